/* supervisor/sched.h — which queued reconcile starts next: round-robin over
 * tenant namespaces (the namespace after the last one served, in name
 * order, wrapping), the longest-waiting release within a namespace, and at
 * most `cap` reconciles running per namespace. So a tenant with hundreds of
 * queued HelmReleases delays another tenant's release by at most one
 * reconcile slot. Pure: the caller describes its queue in an array. */
#ifndef BH_SUPERVISOR_SCHED_H
#define BH_SUPERVISOR_SCHED_H

#include <stddef.h>

typedef struct sched_item {
	const char *ns;   /* tenant namespace */
	int ready;        /* queued and due now */
	int running;      /* a reconcile of it is running */
	double since;     /* when it became due (earliest first within a namespace) */
} sched_item;

typedef struct sched_state {
	char last_ns[256]; /* namespace served last ("" at first) */
} sched_state;

/* Index of the item to start next (and remembers its namespace), or -1
 * when nothing may start. cap: running reconciles per namespace (0: no cap). */
long sched_pick(sched_state *s, const sched_item *items, size_t n, unsigned cap);

#endif
