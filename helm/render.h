/* helm/render.h — the `helm template` / install rendering pipeline as a
 * library call (Helm 4 Install.RunWithContext + renderResources + the
 * template command's printing). Pure: the chart arrives loaded from bytes,
 * values as trees; no file opens, no network, no exec. Used by
 * `bulkhead template` and by the worker inside its sandbox.
 *
 * Steps, with Helm's messages: release name check; dependencies (condition,
 * tags, alias, import-values); values coalescing and values.schema.json
 * validation; Chart.yaml kubeVersion; every template of the chart and its
 * sub-charts rendered (tmpl/); NOTES.txt pulled out; documents split, heads
 * parsed, hooks separated, install-order sort; CRDs from crds/ (optional);
 * then the `helm template` text (show-only, skip-tests, no-hooks). */
#ifndef BH_RENDER_H
#define BH_RENDER_H

#include <jansson.h>
#include <stddef.h>

#include "helm/chart.h"
#include "helm/sort.h"
#include "lib/error.h"
#include "tmpl/tmpl.h"

/* A log line Helm would print through slog (level "ERROR", "WARN", "INFO",
 * and "DEBUG" when render_options.debug is set), with NULL-terminated
 * key/value attribute pairs, e.g. {"error", "...", NULL}. */
typedef void (*render_log_fn)(void *ud, const char *level, const char *msg, const char *const *attrs);

/* Rendered output of one chart, all templates and sub-charts together: the
 * 16 MiB of the research notes (an API object is at most ~3 MiB and Helm's
 * release Secret at most 1 MiB compressed). */
#define RENDER_MAX_OUTPUT ((size_t)16 << 20)

typedef struct render_options {
	const char *release_name;      /* required */
	const char *namespace_;        /* NULL = "default" */
	int revision;                  /* 0 = 1 */
	int is_upgrade;
	const char *kube_version;      /* as given to --kube-version; NULL = v1.35.0 */
	const char *const *api_versions; /* --api-versions, appended to the defaults */
	size_t n_api_versions;
	int include_crds;              /* CRDs from crds/ in the manifest text */
	int skip_tests;                /* template text: leave out test hooks */
	int no_hooks;                  /* template text: leave out hooks */
	const char *const *show_only;  /* template text: --show-only patterns */
	size_t n_show_only;
	int debug;                     /* template text even on error (raw files on YAML errors) */
	int skip_schema_validation;
	int sub_notes;                 /* --render-subchart-notes */
	int enable_dns;                /* --enable-dns: getHostByName resolves names */
	int take_values;               /* the caller renders the chart once and reads
					* none of its values after: render_chart may
					* merge them in place (values_coalesce_take) */
	int text_only;                 /* the caller reads template_text, not
					* manifest: a rendered chart's text is built
					* where the manifest was (manifest NULL) */
	int parse_threads;             /* threads that may parse the templates
					* (tmpl_engine_add_borrowed_all): 0 or 1 =
					* the caller's alone (the sandboxed worker) */
	render_log_fn log;             /* optional */
	void *log_ud;
	const tmpl_limits *limits;     /* template engine limits (NULL = defaults) */
	size_t max_output;             /* bytes all templates may render together
					* (0 = RENDER_MAX_OUTPUT) */
	tmpl_lookup_fn lookup;         /* `lookup` (NULL: empty map, as helm template) */
	void *lookup_ud;
	/* A post-renderer (helm/postrender.h postrender_files), run over the
	 * rendered files before they are split into manifests and hooks; it may
	 * replace the arrays (and free the old ones). NULL = none. */
	int (*post_render)(void *ud, char ***paths, char ***texts, size_t *n, bh_error *err);
	void *post_render_ud;
} render_options;

typedef struct render_crd {
	char *path;                    /* "<chart>/crds/x.yaml" (or sub-chart path) */
	const unsigned char *data;     /* borrowed from the chart */
	size_t len;
} render_crd;

typedef struct render_result {
	manifest_list manifests;       /* ordinary documents, install order */
	manifest_list hooks;           /* hooks, kind order */
	render_crd *crds;              /* every crds/ file (parent first) */
	size_t ncrds;
	char *notes;                   /* rendered NOTES.txt ("" when none) */
	char *manifest;                /* Helm's release manifest text
					* ("---\n# Source: P\nDOC\n"...; CRDs first
					* when include_crds); with debug after a YAML
					* error: the raw rendered files */
	char *template_text;           /* what `helm template` prints on stdout */
	json_t *values;                /* coalesced values (.Values of the top chart) */
	int debug_hint;                /* the error came after Helm created the
					* release (and is not --show-only's): the
					* CLI appends "Use --debug flag ..." */
	char *error_text;              /* on a template error longer than a
					* bh_error holds (a deep include chain):
					* its whole text; else NULL */
	char **texts;                  /* the rendered files the manifests' and
					* hooks' contents point into (owned) */
	size_t ntexts;
} render_result;

/* Renders chart c (modified: dependencies are processed in place) with
 * user values (NULL = {}). 0, or BH_E* with err->msg in Helm's words
 * (without the CLI's "Error: " and hint). out is always initialised;
 * release with render_result_free(). */
int render_chart(chart *c, const json_t *user_values, const render_options *o,
		 render_result *out, bh_error *err);
void render_result_free(render_result *r);

/* helm install's and template's checkIfInstallable: "TYPE charts are not
 * installable" unless c's type is "" or "application". helm runs it right
 * after loading the chart, before its "this chart is deprecated" warning and
 * the dependency check; render_chart runs it too. */
int render_check_installable(const chart *c, bh_error *err);
/* chartutil.ValidateReleaseName. */
int render_validate_release_name(const char *name, bh_error *err);
/* --kube-version as `helm template` parses it: *out is a new "vX.Y[.Z]"; the
 * error is helm's "invalid kube version 'IN': ...". */
int render_parse_kube_version(const char *in, char **out, bh_error *err);

#endif
