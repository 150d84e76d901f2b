/* worker/job.c — see job.h. */
#include "worker/job.h"

#include <string.h>

#include "helm/storage.h"
#include "worker/reconcile.h"

int worker_job_run(kube_client *kc, const json_t *job, const unsigned char *chart_bytes, size_t chart_len, unsigned flags,
		   void (*log)(void *ud, const char *msg), void *log_ud, json_t **result, bh_error *err)
{
	rc_input in = {0};
	json_int_t t = json_integer_value(json_object_get(job, "timeoutMs"));
	*result = NULL;
	in.kc = kc;
	/* the supervisor's discovery, and one storage list per reconcile (issue 14) */
	kube_discovery_preload(kc, json_object_get(job, "discovery"));
	storage_memo(kc);
	in.hr = json_object_get(job, "helmRelease");
	in.release_name = json_string_value(json_object_get(job, "releaseName"));
	in.release_ns = json_string_value(json_object_get(job, "releaseNamespace"));
	in.storage_ns = json_string_value(json_object_get(job, "storageNamespace"));
	if (!in.release_name || !in.release_ns || !in.storage_ns || !json_is_object(json_object_get(in.hr, "spec")))
		return bh_error_set(err, BH_EPROTO, "job is missing releaseName, releaseNamespace, storageNamespace or spec");
	in.chart_bytes = chart_bytes;
	in.chart_len = chart_len;
	in.budget_ms = t > 0 ? (long)t : 300000;
	in.deleting = json_is_true(json_object_get(job, "delete"));
	const char *kind = json_string_value(json_object_get(json_object_get(job, "chart"), "sourceKind"));
	if (kind && !strcmp(kind, "OCIRepository"))
		in.oci_revision = json_string_value(json_object_get(json_object_get(job, "chart"), "revision"));
	in.log = log;
	in.log_ud = log_ud;
	int rc = reconcile_run(&in, result, err);
	if (!(flags & WORKER_JOB_LAST))
		storage_memo(NULL); /* about 290 k instructions for a podinfo install */
	return rc;
}
