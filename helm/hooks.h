/* helm/hooks.h — Helm hooks (pkg/action/hooks.go): the hook records of a
 * release, and running the hooks of one event in Helm's order (kind order,
 * then weight, then name), with delete policies (before-hook-creation — the
 * default —, hook-succeeded, hook-failed; CRDs never deleted), waiting for
 * Jobs to complete and Pods to succeed, and each hook's last_run (started,
 * completed, phase) recorded in the release and persisted when it starts.
 *
 * Hook waits poll (workers cannot watch), fast at first (50 ms, growing to
 * 1 s) so short Jobs are seen finishing; a Job with ttlSecondsAfterFinished
 * that vanishes after it was seen was finished and removed by its TTL and
 * counts as succeeded (Helm's watch sees the outcome; a poller may not).
 * Messages are kube/wait.h's ("resource Job/ns/x not ready. status: Failed,
 * message: ..."), which are Helm 4's. */
#ifndef BH_HELM_HOOKS_H
#define BH_HELM_HOOKS_H

#include <jansson.h>

#include "helm/sort.h"
#include "kube/kube.h"
#include "lib/error.h"

/* The release's "hooks" array for rendered hooks (kind order kept), with
 * last_run {"phase":""}. New reference. */
json_t *hooks_json_new(const manifest_list *hooks);

typedef struct hooks_run_opts {
	const char *field_manager;
	long timeout_ms;       /* per hook wait (Helm passes the action's timeout) */
	int persist;           /* Update the release in storage when a hook starts */
	/* optional: return non-zero to skip a hook by name (helm test filters) */
	int (*skip)(void *ud, const char *hook_name);
	void *skip_ud;
	const char *storage_namespace; /* where persist updates the release; NULL = its namespace */
} hooks_run_opts;

/* The hooks of rel for `event` in execution order (kind order as stored,
 * then weight, then name; sort.Stable), minus those skip() refuses (skip
 * may be NULL). Borrowed entries of rel's "hooks" in a new array. */
json_t *hooks_select(const json_t *rel, const char *event, int (*skip)(void *ud, const char *hook_name),
		     void *skip_ud);

/* Runs the hooks of `event` ("pre-install", ..., "test") of rel, updating
 * rel's hook records. Appends one entry per hook run to report_hooks (may
 * be NULL): {"name","kind","event","phase","started_at","completed_at"}.
 * On failure err names the hook: "job NAME failed: ..." style messages from
 * the waiter, prefixed with nothing (the action adds "<event> hooks
 * failed: "); the hook-failed / earlier hook-succeeded deletions are done
 * before returning. */
int hooks_run(kube_client *kc, json_t *rel, const char *event, const hooks_run_opts *o,
	      json_t *report_hooks, bh_error *err);

/* Applies one manifest document as a hook object would be (no ownership
 * metadata); exposed for the actions. Parses YAML; namespaced objects
 * without a namespace get ns. *obj_out (may be NULL) gets the parsed
 * object. */
int hooks_parse_object(kube_client *kc, const char *text, const char *ns, json_t **obj_out,
		       kube_resource *r_out, bh_error *err);

#endif
