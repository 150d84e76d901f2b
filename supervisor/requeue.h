/* supervisor/requeue.h — when a HelmRelease is looked at again after a
 * worker: Flux's --interval-jitter-percentage (an interval requeue is
 * jittered by a uniform +/- percentage, so objects with one interval spread
 * out), and RetryOnFailure's retryInterval (.spec.install.strategy or
 * .spec.upgrade.strategy of the action last attempted). */
#ifndef BH_SUPERVISOR_REQUEUE_H
#define BH_SUPERVISOR_REQUEUE_H

#include <jansson.h>

#define REQUEUE_JITTER_DEFAULT 5 /* Flux's default percentage */

/* Sets the percentage (0..99); -1 when out of range. */
int requeue_set_jitter(long percent);
/* secs jittered by the percentage: uniform in [secs*(1-p), secs*(1+p)]. */
double requeue_jitter(double secs);
/* The retryInterval in seconds (jittered) for hr (borrowed) after a worker
 * whose result status (borrowed) says which action was attempted; 0 when
 * that action's strategy is not RetryOnFailure. */
double requeue_retry_secs(const json_t *hr, const json_t *wstatus);

#endif
