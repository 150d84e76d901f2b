/* worker/job.h — one reconcile inside the sandbox (skeleton): load the chart
 * from the artifact bytes, take its templates as plain manifests, install
 * (or upgrade over an existing release) through the broker, store the
 * release the way the Helm CLI does, and describe the outcome as a
 * PROTO_RESULT document.
 *
 * The job document (PROTO_JOB, from the supervisor):
 *   {"helmRelease": {...}, "releaseName": "...", "releaseNamespace": "...",
 *    "storageNamespace": "...", "chart": {"revision","digest"},
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
