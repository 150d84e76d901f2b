/* supervisor/depends.h — Flux's .spec.dependsOn: a HelmRelease is released
 * only once every HelmRelease it depends on is Ready at its current
 * generation (metadata.generation == status.observedGeneration and Ready=
 * True); until then it is Ready=False with Flux's reason DependencyNotReady
 * and message, and looked at again after --requeue-dependency. A chain of
 * dependencies that leads back to the HelmRelease itself can never become
 * Ready: it is reported as such (reason DependencyCycle, the cycle named).
 * Pure: the caller lends its cache of HelmReleases through a lookup. */
#ifndef BH_SUPERVISOR_DEPENDS_H
#define BH_SUPERVISOR_DEPENDS_H

#include <jansson.h>
#include <stddef.h>

/* The cached HelmRelease ns/name (borrowed), or NULL when there is none. */
typedef const json_t *(*depends_lookup_fn)(void *ud, const char *ns, const char *name);

enum depends_state { DEPENDS_READY = 0, DEPENDS_NOT_READY, DEPENDS_CYCLE };

/* Flux's condition reasons for DEPENDS_NOT_READY and DEPENDS_CYCLE. */
#define DEPENDS_REASON "DependencyNotReady"
#define DEPENDS_CYCLE_REASON "DependencyCycle"

/* Checks hr's (borrowed, already decoded as valid) dependencies in order.
 * DEPENDS_READY; or DEPENDS_NOT_READY / DEPENDS_CYCLE with msg saying which
 * dependency and why, in Flux's words ("dependency 'ns/name' is not
 * ready", "unable to get 'ns/name' dependency: ..."). */
int depends_check(const json_t *hr, depends_lookup_fn get, void *ud, char *msg, size_t n);

/* A new one-element list of Events for status_write (sv_outcome.events):
 * Flux records a dependency not ready as a Normal Event, not a Warning. */
json_t *depends_event_new(const char *reason, const char *msg);

#endif
