/* supervisor/discovery.h — API discovery done once by the supervisor and
 * handed to every worker with its job (issue 14): a thread fetches a
 * snapshot (kube_discovery_snapshot) at start and again when asked to
 * (a worker had to discover a kind the snapshot lacked, or installed CRDs)
 * or when it is older than its maximum age; the main loop takes each new
 * snapshot, so the worker's common case makes no discovery request. */
#ifndef BH_SUPERVISOR_DISCOVERY_H
#define BH_SUPERVISOR_DISCOVERY_H

#include <jansson.h>

#include "kube/config.h"
#include "lib/error.h"

/* Starts the thread with its own client for cfg; wake() (the main loop's:
 * from any thread) after each new snapshot. max_age: seconds before a
 * refresh nobody asked for. */
int discovery_start(const kube_config *cfg, void (*wake)(void), double max_age, bh_error *err);
/* A newer snapshot than the last taken (caller owns it), or NULL. */
json_t *discovery_take(void);
/* Asks for a new snapshot (the current one may be stale). */
void discovery_refresh(void);

#endif
