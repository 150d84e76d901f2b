/* worker/job.h — one reconcile inside the sandbox: load the chart from the
 * artifact bytes (helm/chart.h), render it with the HelmRelease's values
 * (helm/render.h, Helm's install pipeline), apply CRDs and manifests by
 * server-side apply through the broker, wait for them to be ready
 * (kube/wait.h, kstatus) unless disableWait, store the release the way the Helm
 * CLI does (install, or upgrade over an existing release), and describe the
 * outcome as a PROTO_RESULT document. Not yet: hooks other than tests (a
 * clear error), tests, remediation, pruning of
 * objects an upgrade no longer renders, valuesFrom (a clear error).
 *
 * The job document (PROTO_JOB, from the supervisor):
 *   {"helmRelease": {...}, "releaseName": "...", "releaseNamespace": "...",
 *    "storageNamespace": "...", "chart": {"revision","digest"},
 *    "timeoutMs": N (.spec.timeout; the wait for readiness gets 80% of it),
 *    "testHook": "..." (only when bulkheadd runs with --test-hooks)} */
#ifndef BH_WORKER_JOB_H
#define BH_WORKER_JOB_H

#include <jansson.h>
#include <stddef.h>

#include "kube/kube.h"
#include "lib/error.h"

/* Runs the job; *result receives the RESULT object (new reference) — also
 * for failures of the release itself. Returns 0, or a negative code when
 * not even a result could be produced. */
int worker_job_run(kube_client *kc, const json_t *job, const unsigned char *chart, size_t chart_len,
		   json_t **result, bh_error *err);

#endif
