/* worker/drift.h — Flux's drift detection and correction
 * (internal/action/diff.go, internal/reconcile/correct_cluster_drift.go)
 * for a release that is otherwise in sync, under the tenant's identity
 * (every request goes through the broker).
 *
 * Detection, per object of the stored release manifest (hooks excluded),
 * with Helm's ownership metadata and the release namespace added: skipped
 * when the desired or the live object has the label or annotation
 * helm.toolkit.fluxcd.io/driftDetection: disabled, or an ignore rule with
 * the path "" matches it; a GET of the live object (404: the object is
 * missing), then a server-side apply dry run (force, field manager
 * helm-controller); the `ignore` rules' JSON pointers (RFC 6901) whose
 * target selects the object are removed from both; the drift is the JSON
 * patch from the live object to the dry-run result over metadata.labels and
 * metadata.annotations (additions and changes only) and everything but
 * metadata and status.
 *
 * Cost: 2 API requests per object when nothing drifted (GET, dry-run
 * PATCH), 1 for a missing object, plus discovery once per group/version;
 * objects are visited one by one and the run stops at the deadline.
 *
 * Correction (mode "enabled"): missing objects are created, drifted ones
 * patched with the computed JSON patch (field manager helm-controller), in
 * install order; no Helm revision is written. */
#ifndef BH_WORKER_DRIFT_H
#define BH_WORKER_DRIFT_H

#include <jansson.h>

#include "kube/kube.h"
#include "lib/error.h"

#define DRIFT_MAX_OBJECTS 5000

typedef struct drift_opts {
	kube_client *kc;
	const char *release;      /* "ns/name.vN", for messages */
	const char *release_name; /* ownership metadata */
	const char *release_ns;
	const json_t *config;     /* .spec.driftDetection */
	long deadline_ms;         /* time left for the whole run */
} drift_opts;

typedef struct drift_result {
	int drifted;        /* objects that drifted or are missing */
	int corrected;      /* of those, corrected */
	int failed;         /* corrections that failed */
	unsigned requests;  /* API requests made */
	json_t *events;     /* [{type, reason, message}] to report */
	char summary[1024]; /* one line for the Drifted condition */
} drift_result;

/* 1 when mode is "warn" or "enabled" (validated: anything else but
 * "disabled" or empty is an error naming the field). */
int drift_enabled(const json_t *config, bh_error *err);

/* Detects (and, in mode enabled, corrects) drift of the objects of manifest.
 * r->events is a new array (json_decref it). Negative only when nothing
 * could be checked. */
int drift_run(const char *manifest, const drift_opts *o, drift_result *r, bh_error *err);

/* The JSON patch (RFC 6902) turning `from` into `to` (objects compared by
 * key, arrays of equal length element by element, anything else replaced),
 * appended to ops. Exposed for tests. */
void drift_diff(const json_t *from, const json_t *to, const char *path, json_t *ops, int depth);

#endif
