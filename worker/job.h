/* worker/job.h — one reconcile inside the sandbox: reads the job document,
 * and runs Flux's release state machine (worker/reconcile.h) over the chart
 * artifact with every Kubernetes request brokered by the supervisor; the
 * outcome is a PROTO_RESULT document carrying the HelmRelease's new status.
 *
 * The job document (PROTO_JOB, from the supervisor):
 *   {"helmRelease": {...}, "releaseName": "...", "releaseNamespace": "...",
 *    "storageNamespace": "...", "chart": {"revision","digest","sourceKind"},
 *    "timeoutMs": N (.spec.timeout: the whole run, all actions, must fit),
 *    "delete": true (the HelmRelease is being deleted: uninstall),
 *    "testHook": "..." (only when bulkheadd runs with --test-hooks)} */
#ifndef BH_WORKER_JOB_H
#define BH_WORKER_JOB_H

#include <jansson.h>
#include <stddef.h>

#include "kube/kube.h"
#include "lib/error.h"

/* worker_job_run's flags. WORKER_JOB_LAST: the process ends right after
 * this job (bulkhead-worker): the release history it kept (helm/storage.h's
 * memo) is left to the exit instead of freed. Without it the next job in
 * the process starts clean (tests/bench/worker_replay). */
#define WORKER_JOB_LAST 1u

/* Runs the job; *result receives the RESULT object (new reference) — also
 * for failures of the release itself. Returns 0, or a negative code when
 * not even a result could be produced. log (may be NULL) gets progress
 * lines. */
int worker_job_run(kube_client *kc, const json_t *job, const unsigned char *chart, size_t chart_len, unsigned flags,
		   void (*log)(void *ud, const char *msg), void *log_ud, json_t **result, bh_error *err);

#endif
