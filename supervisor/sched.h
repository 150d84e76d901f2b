/* supervisor/sched.h — which queued reconcile starts next: round-robin over
 * tenant namespaces (the namespace after the last one served, in name
 * order, wrapping), the longest-waiting release within a namespace, and at
 * most `cap` reconciles running per namespace. So a tenant with hundreds of
 * queued HelmReleases delays another tenant's release by at most one
 * reconcile slot. sched_q makes that choice from structures kept up to
 * date one event at a time (bulkheadd's queue: a pick costs O(log
 * namespaces + log n), not a walk of every HelmRelease nor of every
 * namespace: one HelmRelease per tenant is a common layout).
 * tests/unit/test_ops.c holds the rule written as that walk, and checks
 * sched_q against it on random runs. */
#ifndef BH_SUPERVISOR_SCHED_H
#define BH_SUPERVISOR_SCHED_H

#include <stddef.h>

/* The caller keeps a table of items (indexes 0..n), each with a sched_link
 * (link(ud, i) finds it) and says through waiting(ud, i) whether item i may
 * start (queued, nothing of it running). Per namespace a min-heap of its
 * queued items by (due, index): the first in the table among equals. The
 * namespaces in an array sorted by name (round-robin after the one served
 * last) under a tree of their keys, which finds the first namespace after
 * a place that may start something now. A timer min-heap of the items by
 * due. Items that stopped waiting leave the heaps lazily, when they come to
 * the top: the caller reports only queueing, running and removal.
 * A namespace is held while an item's link names it (from the item's
 * first report to its removal, queued or not): when the last such item is
 * removed, or reported with another namespace, it leaves the array (the
 * round-robin goes on after its name), so namespaces that come and go
 * (one per preview environment, off-boarded tenants) are not held on. */
typedef struct sched_ns sched_ns;

typedef struct sched_link {
	sched_ns *ns;      /* its namespace's, or NULL before the first report and after removal */
	double due;        /* when it may start (its last sched_q_queue) */
	size_t qpos, tpos; /* position + 1 in its namespace's heap, in the timer heap; 0: not in */
	int running;       /* counted as running in its namespace */
} sched_link;

typedef struct sched_heap {
	size_t *a, n, cap; /* item indexes */
} sched_heap;

typedef struct sched_q {
	sched_link *(*link)(void *ud, size_t i);
	int (*waiting)(void *ud, size_t i);
	void *ud;
	sched_ns **ns;     /* the namespaces, sorted by name */
	size_t nns, nscap; /* how many; room for (a power of two, or 0) */
	/* A min-tree over ns[]: node 1 the root, node k's children 2k and
	 * 2k + 1, leaf nscap + j namespace j's key: the due of the top of its
	 * heap, HUGE_VAL when empty or at `cap` (no earlier waiting item; the
	 * top may have stopped waiting: the pick looks). nscap * 2 doubles,
	 * and halves when a quarter of it is used. */
	double *key;
	unsigned cap;      /* the cap of the keys (a pick with another remakes them) */
	sched_ns *last;    /* served last, or NULL; kept for its name alone once it left */
	sched_heap timer;  /* by due */
} sched_q;

#define SCHED_Q_INIT(link_fn, waiting_fn, ud_) {.link = (link_fn), .waiting = (waiting_fn), .ud = (ud_)}

/* Item i (namespace ns) is queued, due at `due`: into (or moved within) its
 * namespace's heap and the timer heap. 0, or BH_ENOMEM: it is in neither
 * (sched_q_has says so; the caller reports it again later). Here, in
 * sched_q_wait and in sched_q_running, an item reported with another
 * namespace than before moves to it, its queue place and running count
 * along. */
int sched_q_queue(sched_q *q, size_t i, const char *ns, double due);
/* Item i waits again (what ran of it ended; queued since, at its last
 * due): back into the heaps it left meanwhile. 0 or BH_ENOMEM as above. */
int sched_q_wait(sched_q *q, size_t i, const char *ns);
/* Is item i in both heaps (as sched_q_queue and sched_q_wait put it)? */
int sched_q_has(const sched_q *q, size_t i);
/* Item i (namespace ns) starts (running 1) or ends (0) running: the
 * per-namespace cap counts it. 0, or BH_ENOMEM (a new namespace): not counted. */
int sched_q_running(sched_q *q, size_t i, const char *ns, int running);
/* Item i leaves the table (before the caller moves another into its place),
 * and its namespace with it when it was the last item naming it. */
void sched_q_remove(sched_q *q, size_t i);
/* The item now at index i was moved there from a higher index, its link
 * copied along. */
void sched_q_moved(sched_q *q, size_t i);
/* The item to start next at `now` (and remembers its namespace), or -1:
 * by the rule above, given every running item and every waiting one due
 * by now. cap: running items per namespace (0: no cap). */
long sched_q_pick(sched_q *q, double now, unsigned cap);
/* The earliest due after now of a waiting item, or HUGE_VAL. */
double sched_q_next(sched_q *q, double now);
void sched_q_free(sched_q *q);

#endif
