/* helm/action.h — Helm's release actions (install, upgrade, rollback,
 * uninstall, test, and Flux's unlock of a stale pending-* release) with
 * Helm 4's semantics, over a kube client (libcurl in the CLI, the broker in
 * the worker), storing history in Helm's Secret format (helm/storage.h) so
 * the Helm CLI and bulkhead can continue each other's releases.
 *
 * Objects are applied server-side with a fixed field manager and Helm's
 * ownership metadata (label app.kubernetes.io/managed-by=Helm, annotations
 * meta.helm.sh/release-name/-namespace); `force` replaces them with a PUT
 * instead (Helm's --force-replace). Install and upgrade render the chart
 * themselves (the revision and IsUpgrade are known only here) with the
 * cluster's version, API versions and a live `lookup`. Hooks run as
 * helm/hooks.h says; waits use kube/wait.h (Jobs must complete unless
 * disable_wait_for_jobs). Descriptions and error texts are Helm 4's
 * ("Install complete", "Upgrade \"x\" failed: pre-upgrade hooks failed: ...",
 * "Rollback to N", "another operation (install/upgrade/rollback) is in
 * progress", ...).
 *
 * Every action fills an action_result: the release it wrote and a report
 * (JSON) of what it did, for status, events and audit:
 *   {"action":"install","release":NAME,"namespace":NS,"version":N,
 *    "status":"deployed","description":"Install complete",
 *    "objects":[{"op":"create|update|delete|keep|orphan","apiVersion","kind",
 *                "namespace","name"}],
 *    "hooks":[{"name","kind","event","phase","started_at","completed_at"}],
 *    "pruned":N}
 * The report is filled on failure too (what was done before the error). */
#ifndef BH_HELM_ACTION_H
#define BH_HELM_ACTION_H

#include <jansson.h>

#include "helm/chart.h"
#include "kube/kube.h"
#include "lib/error.h"
#include "tmpl/tmpl.h"

#define ACTION_DEFAULT_TIMEOUT_MS 300000L /* Helm CLI --timeout 5m */

/* CRD policy for crds/ (Flux .spec.install.crds / .spec.upgrade.crds). */
typedef enum action_crds {
	ACTION_CRDS_DEFAULT = 0, /* install: Create, upgrade: Skip */
	ACTION_CRDS_SKIP,
	ACTION_CRDS_CREATE,         /* create missing CRDs, leave existing ones */
	ACTION_CRDS_CREATE_REPLACE, /* create missing and update existing CRDs */
} action_crds;

/* What every action shares. */
typedef struct action_config {
	kube_client *kc;
	const char *field_manager; /* NULL = "helm-controller" */
	void (*log)(void *ud, const char *msg); /* progress lines, may be NULL */
	void *log_ud;
	/* namespace of the release history Secrets (Helm's storage driver
	 * namespace, Flux's .spec.storageNamespace); NULL or "" = the release
	 * namespace of each action. Every action (install, upgrade, rollback,
	 * uninstall, test, unlock) and its hooks read and write history there. */
	const char *storage_namespace;
	/* install/upgrade: a post-renderer over the rendered files
	 * (render_options.post_render; helm/postrender.h); NULL = none */
	int (*post_render)(void *ud, char ***paths, char ***texts, size_t *n, bh_error *err);
	void *post_render_ud;
} action_config;

typedef struct action_wait {
	int disable_wait;          /* resources not waited for (hooks still are) */
	int disable_wait_for_jobs; /* Jobs need not complete */
	long timeout_ms;           /* per action; 0 = ACTION_DEFAULT_TIMEOUT_MS */
} action_wait;

typedef struct action_install_opts {
	const char *name;
	const char *namespace_;
	chart *chart;              /* rendered by the action (modified in place) */
	const json_t *values;      /* user-supplied values (NULL = none) */
	action_crds crds;
	int create_namespace;
	int replace;               /* reuse the name of an uninstalled/failed release */
	int disable_hooks;
	int disable_take_ownership;/* refuse existing objects not owned by the release */
	int force_conflicts;       /* SSA force (Flux: on) */
	action_wait wait;
	const char *description;   /* NULL = "Install complete" */
	const json_t *crd_labels;  /* labels added to CRDs from crds/ (Flux:
				    * helm.toolkit.fluxcd.io/name, -/namespace); may be NULL */
	int skip_schema_validation;/* values not checked against values.schema.json
				    * (Helm's --skip-schema-validation, Flux's
				    * .spec.install.disableSchemaValidation) */
} action_install_opts;

typedef struct action_upgrade_opts {
	const char *name;
	const char *namespace_;
	chart *chart;
	const json_t *values;
	action_crds crds;          /* default Skip */
	int preserve_values;       /* merge values over the current release's config */
	int force;                 /* replace (PUT) objects instead of applying */
	int cleanup_on_fail;       /* delete objects this upgrade created, on failure */
	int disable_hooks;
	int disable_take_ownership;
	int force_conflicts;
	int max_history;           /* 0 = unlimited */
	action_wait wait;
	const char *description;   /* NULL = "Upgrade complete" */
	const json_t *crd_labels;  /* as for install */
	int skip_schema_validation;/* as for install (.spec.upgrade.disableSchemaValidation) */
} action_upgrade_opts;

typedef struct action_rollback_opts {
	const char *name;
	const char *namespace_;
	int version;               /* 0 = the previous successful version */
	int recreate;              /* delete and recreate Pods of workloads (restart) */
	int force;
	int cleanup_on_fail;
	int disable_hooks;
	int max_history;
	action_wait wait;
} action_rollback_opts;

typedef struct action_uninstall_opts {
	const char *name;
	const char *namespace_;
	int keep_history;
	int disable_hooks;
	const char *deletion_propagation; /* "background" (default), "foreground", "orphan" */
	action_wait wait;                 /* disable_wait: do not wait for deletion */
	const char *description;
} action_uninstall_opts;

typedef struct action_test_opts {
	const char *name;
	const char *namespace_;
	const char *const *filters; /* "name" includes, "!name" excludes; NULL-terminated or NULL */
	long timeout_ms;
} action_test_opts;

typedef struct action_result {
	json_t *release; /* the record as last stored, or NULL */
	json_t *report;  /* see the top comment; never NULL after an action */
} action_result;

/* The template `lookup` of live objects through the kube_client ud
 * (render_options.lookup), as install and upgrade render. */
int action_lookup(void *ud, tmpl_arena *a, const char *api_version, const char *kind, const char *ns, const char *name,
		  tmpl_value *out, bh_error *err);
/* Install's checks before it writes anything (`helm template
 * --dry-run=server`): the objects of manifest built ("unable to build
 * kubernetes objects from release manifest: ...") and, unless
 * take_ownership, none existing without the release's ownership metadata
 * ("unable to continue with install: ... exists and cannot be imported
 * into the current release: ..."). */
int action_install_check(kube_client *kc, const char *manifest, const char *name, const char *ns, int take_ownership,
			 bh_error *err);

void action_result_init(action_result *r);
void action_result_free(action_result *r);

int action_install(const action_config *cfg, const action_install_opts *o, action_result *res, bh_error *err);
int action_upgrade(const action_config *cfg, const action_upgrade_opts *o, action_result *res, bh_error *err);
int action_rollback(const action_config *cfg, const action_rollback_opts *o, action_result *res, bh_error *err);
/* A release whose storage is already gone succeeds (report "status":"uninstalled"). */
int action_uninstall(const action_config *cfg, const action_uninstall_opts *o, action_result *res, bh_error *err);
/* Runs the test hooks of the last release; a failing test pod is named in
 * err ("test hook NAME (Pod) failed: ...") and its phase recorded. */
int action_test(const action_config *cfg, const action_test_opts *o, action_result *res, bh_error *err);
/* Flux's unlock: the last release in pending-* becomes failed, "Release
 * unlocked from stale '<status>' state". BH_ENOTFOUND when nothing is
 * pending. */
int action_unlock(const action_config *cfg, const char *name, const char *ns, action_result *res, bh_error *err);

#endif
