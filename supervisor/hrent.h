/* supervisor/hrent.h — a HelmRelease as bulkheadd's cache keeps it: the
 * fields the queue looks at on every event (key, generation, finalizer,
 * deletion, suspend, reconcile requests, chart source), decoded once, and
 * the object itself as JSON text (the watch event's, without
 * metadata.managedFields, which nothing reads), decoded into a tree again
 * only for a reconcile,
 * a status write or a dependency check. A jansson tree of an object with
 * its status costs about five times its text (at 1000 HelmReleases, 13-14
 * MiB of bulkheadd's heap). One allocation per object. */
#ifndef BH_SUPERVISOR_HRENT_H
#define BH_SUPERVISOR_HRENT_H

#include <jansson.h>
#include <stddef.h>

typedef struct hr_ent {
	json_int_t gen;         /* metadata.generation */
	unsigned finalizer : 1; /* carries finalizers.fluxcd.io */
	unsigned deleted : 1;   /* metadata.deletionTimestamp set */
	unsigned suspend : 1;   /* .spec.suspend */
	unsigned wants : 1;     /* asks for a reconcile not attempted yet (hrent_wants) */
	unsigned wants_req : 1; /* carries a reconcile request not handled yet */
	unsigned has_src : 1;   /* src_* name its chart's source (source_of) */
	unsigned fin_list : 1;  /* has a metadata.finalizers list (maybe of others' finalizers) */
	const char *ns, *name, *uid; /* "" when absent */
	const char *req;        /* reconcile.fluxcd.io/requestedAt, or NULL */
	const char *src_kind, *src_ns, *src_name;
	size_t size;            /* of the whole allocation */
	size_t len;             /* of text */
	char *text;             /* the object, JSON, NUL-terminated */
} hr_ent;

#define HR_FINALIZER "finalizers.fluxcd.io"

/* The compact form of hr, which has no metadata.managedFields (kube_watch
 * drops them); its text is text (len bytes, hr's JSON, as the watch event
 * carried it) or, when text is NULL, hr encoded. NULL when out of memory.
 * Freed with free(). */
hr_ent *hrent_new(const json_t *hr, const char *text, size_t len);
/* Members of the object (dotted paths, NULL-terminated) hrent_new does not
 * read when it is given the text: kube_watch_opts.tree_drop. */
extern const char *const hrent_unread[];
/* A copy in one allocation of the calling thread (the watch thread's
 * arena keeps only short-lived memory). NULL when out of memory. */
hr_ent *hrent_dup(const hr_ent *h);
/* The object as a new tree; NULL when out of memory. */
json_t *hrent_tree_new(const hr_ent *h);

/* A Flux object's (any kind's) metadata.generation (0 when absent) and its
 * reconcile.fluxcd.io/requestedAt annotation (NULL when absent): read in
 * one place, not by path at each use. */
json_int_t flux_generation(const json_t *o);
const char *flux_requested_at(const json_t *o);

/* The predicates on a decoded object behind the flags above. */
int hr_has_finalizer(const json_t *hr);
int hr_being_deleted(const json_t *hr);
int hr_wants_reconcile_request(const json_t *hr);
/* Asks for a reconcile that has not been attempted yet: not suspended, and
 * a generation or a reconcile request not attempted. */
int hr_wants_reconcile(const json_t *hr);

#endif
