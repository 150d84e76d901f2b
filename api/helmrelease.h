/* api/helmrelease.h — the typed HelmRelease model (helm.toolkit.fluxcd.io v2,
 * and v2beta2 converted to it as Flux converts it).
 *
 * A HelmRelease object is untrusted input: hr_decode() checks it once against
 * the table of every field the v2 API has (hr_fields[]), with the document's
 * types, defaults and validation (Go durations, enums, name lengths, DNS-1123
 * names, mutually exclusive fields), and fills an hr_model. A field bulkhead
 * does not act on is refused by name with its reason (UnsupportedSpec), and a
 * field the API does not have is refused by name too: nothing is ignored.
 * tests/unit/test_api_model.c walks the CRD schema to prove the table covers
 * every field of it. hr_decode_bytes() adds the byte size and depth limits.
 */
#ifndef BH_API_HELMRELEASE_H
#define BH_API_HELMRELEASE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

#define HR_MAX_BYTES ((size_t)4 << 20) /* an object larger than this is refused */
#define HR_MAX_DEPTH 64                /* nesting outside .spec.values */
#define HR_MAX_DEPENDS 64
#define HR_DEFAULT_RETRY_INTERVAL_NS (300LL * 1000000000) /* Flux: retryInterval defaults to 5m */

/* Field kinds of the table. */
enum hr_type {
	HR_T_OBJECT,   /* a struct: its fields are rows of their own */
	HR_T_LIST,     /* a list of structs: rows "path[].field" */
	HR_T_STRING,
	HR_T_STRLIST,  /* a list of strings */
	HR_T_STRMAP,   /* map[string]string (labels, annotations) */
	HR_T_BOOL,
	HR_T_INT,
	HR_T_DURATION, /* a Go time.Duration string, as the CRD pattern allows */
	HR_T_ANY,      /* any JSON (values, patch operations) */
};

/* Checks on a string row. */
enum hr_check {
	HR_C_NONE,
	HR_C_DNS1123_LABEL,     /* namespaces */
	HR_C_DNS1123_SUBDOMAIN, /* object names */
	HR_C_RELEASE_NAME,      /* Helm's release name rule */
	HR_C_VALUES_KEY,        /* ^[\-._a-zA-Z0-9]+$ */
	HR_C_TARGET_PATH,       /* ^([a-zA-Z0-9_\-.\\\/]|\[[0-9]{1,5}\])+$ */
};

/* One row of the table: a field of the API, as a path from the object's
 * root ("spec.install.remediation.retries", lists as "spec.dependsOn[].name").
 * `refused` set: bulkhead does not act on the field; a value other than
 * the type's zero (false, 0, "", empty list) is refused with that reason.
 * `refused_values`: values of an enum that are refused ("a|b") with the same
 * reason. */
typedef struct hr_field {
	const char *path;
	enum hr_type type;
	const char *enums; /* allowed values "a|b|c", or NULL */
	int min_len, max_len;
	enum hr_check check;
	const char *refused;
	const char *refused_values;
} hr_field;

extern const hr_field hr_fields[];
extern const size_t hr_fields_count;
/* The row for path (lists written "[]"), or NULL. */
const hr_field *hr_field_find(const char *path);

/* Go's time.ParseDuration; 0 or a BH_EINVAL naming what was wrong. */
int hr_parse_duration(const char *s, int64_t *ns, bh_error *err);

typedef struct hr_ref {
	char *name, *namespace_; /* namespace_ defaulted to the object's */
} hr_ref;

typedef struct hr_remediation {
	int retries;
	int remediate_last_failure; /* -1 unset */
	int ignore_test_failures;   /* -1 unset */
	char *strategy;             /* upgrade: "rollback" (default) or "uninstall" */
} hr_remediation;

/* The options of one Helm action: .spec.install, .upgrade, .rollback or
 * .uninstall (each action reads the members its part of the API has; the
 * others stay 0). */
typedef struct hr_action {
	int64_t timeout_ns; /* -1: .spec.timeout */
	int disable_wait, disable_wait_for_jobs, disable_hooks;
	int disable_schema_validation, disable_take_ownership; /* install, upgrade */
	char *crds;               /* install, upgrade: "Skip|Create|CreateReplace", "" unset */
	int skip_crds;            /* install: the deprecated skipCRDs */
	int create_namespace, replace;        /* install */
	int force, cleanup_on_fail;           /* upgrade, rollback */
	int preserve_values;                  /* upgrade */
	int recreate;                         /* rollback */
	int keep_history;                     /* uninstall */
	char *deletion_propagation;           /* uninstall: "background|foreground|orphan", "" unset */
} hr_action;

typedef struct hr_test_filter {
	char *name;
	int exclude;
} hr_test_filter;

typedef struct hr_test {
	int enable, ignore_failures;
	int64_t timeout_ns; /* -1: .spec.timeout */
	hr_test_filter *filters;
	size_t nfilters;
} hr_test;

typedef struct hr_model {
	int beta2;               /* decoded from v2beta2 */
	char *name, *namespace_;
	int64_t interval_ns, timeout_ns; /* timeout default 5m */
	char *release_name, *target_namespace, *storage_namespace, *service_account_name;
	int suspend, max_history, persistent_client;
	/* .spec.chart (template) or .spec.chartRef: exactly one is set */
	int has_chart, has_chart_ref;
	char *chart_name, *chart_version, *source_kind, *source_name, *source_namespace;
	char *ref_kind, *ref_name, *ref_namespace;
	hr_ref *depends_on;      /* .spec.dependsOn, namespaces defaulted */
	size_t ndepends_on;
	hr_remediation install_remediation, upgrade_remediation;
	char *install_strategy;  /* "RemediateOnFailure" (default) or "RetryOnFailure" */
	int64_t install_retry_interval_ns; /* default 5m */
	char *upgrade_strategy;  /* "RemediateOnFailure" (default) or "RetryOnFailure" */
	int64_t retry_interval_ns;         /* upgrade's; default 5m */
	hr_action install, upgrade, rollback, uninstall;
	hr_test test;
	json_t *spec; /* the spec in v2 form (owned): what the worker reads */
} hr_model;

/* Decodes obj (borrowed; a HelmRelease of v2 or v2beta2) into a new model
 * (*out, free with hr_model_free). Errors: BH_EINVAL naming the field and
 * what was wrong; BH_EDENIED for a field that is refused (UnsupportedSpec),
 * naming it and why; BH_ELIMIT for depth. */
int hr_decode(const json_t *obj, hr_model **out, bh_error *err);
/* The same from JSON bytes, refused beyond HR_MAX_BYTES / HR_MAX_DEPTH. */
int hr_decode_bytes(const char *text, size_t len, hr_model **out, bh_error *err);
void hr_model_free(hr_model *m);
/* A new model of an empty spec: every default (for an object that no longer
 * decodes, e.g. a deleted HelmRelease whose spec was changed meanwhile). */
hr_model *hr_model_default_new(void);

/* Flux's GetActiveRetry: the retryInterval of the strategy of action
 * ("install" or "upgrade", .status.lastAttemptedReleaseAction) when that
 * strategy is RetryOnFailure, else 0 (remediation applies). */
int64_t hr_retry_interval_ns(const hr_model *m, const char *action);

/* Converts a v2beta2 spec (borrowed) to a new v2 spec, as Flux does:
 * postRenderers[].kustomize.patchesStrategicMerge and .patchesJson6902
 * become .patches (in kustomize's order: strategic merge first, JSON 6902
 * last), and chart.spec.valuesFile goes in front of valuesFiles. */
json_t *hr_convert_v2beta2_new(const json_t *spec, bh_error *err);

#endif
