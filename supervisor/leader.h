/* supervisor/leader.h — leader election on a coordination.k8s.io/v1 Lease,
 * with controller-runtime's (client-go's) semantics and flags: a candidate
 * takes the Lease when it is free or its holder has not renewed it for the
 * lease duration (measured on our own clock, from when we last saw the
 * record change); the leader renews it every retry period and gives up
 * leadership when it could not renew for the renew deadline; a clean
 * shutdown releases it (empty holderIdentity) so another replica takes over
 * at once. Runs on its own thread with its own API client; the main loop
 * reads leader_is_leader() before starting any work. */
#ifndef BH_SUPERVISOR_LEADER_H
#define BH_SUPERVISOR_LEADER_H

#include <jansson.h>

#include "kube/config.h"
#include "lib/error.h"

typedef struct leader_opts {
	const char *ns, *name;   /* the Lease */
	const char *identity;    /* holderIdentity of this replica */
	double lease_duration, renew_deadline, retry_period; /* seconds */
} leader_opts;

int leader_start(const kube_config *cfg, const leader_opts *o, bh_error *err);
int leader_is_leader(void);
/* 1 once this replica held the Lease and lost it (it must stop). */
int leader_lost(void);
/* Stops campaigning; releases the Lease if held (bounded by the retry period). */
void leader_stop(void);

/* The namespace bulkheadd runs in: $RUNTIME_NAMESPACE (Flux's convention),
 * else the in-cluster ServiceAccount's, else "default". Static storage. */
const char *leader_runtime_namespace(void);

/* Pure decision, for the thread and for tests: may `me` take or renew a
 * Lease whose spec is `spec` (NULL: none), last seen changing at
 * `observed_at`, at time `now` (same clock)? 1 yes, 0 no (held by another). */
int leader_may_take(const json_t *spec, const char *me, double observed_at, double now, double lease_duration);
/* The spec to write: holderIdentity me, renewTime now (MicroTime text),
 * acquireTime and leaseTransitions+1 when the holder changes. New object. */
json_t *leader_spec_new(const json_t *old_spec, const char *me, const char *now_text, double lease_duration);

#endif
