/* helm/chart.h — a Helm chart in memory, loaded the way Helm 4 loads it
 * (pkg/chart/v2/loader): from a `.tgz` in a memory buffer or an fd (works in
 * the sandbox: no path is opened), or from a directory (CLI only, honours
 * `.helmignore`). Chart.yaml (apiVersion v1/v2, Helm's validation),
 * requirements.yaml for v1, values.yaml, values.schema.json, templates/,
 * crds/, charts/ (sub-chart folders and archives, recursively).
 *
 * Hostile input: every archive entry is checked (no absolute paths, no `..`,
 * no drive letters, no links or devices) and counted against limits (archive
 * size, decompressed total shared by nested archives, per-file size, file
 * count, path depth, sub-chart nesting); a refusal names the entry. */
#ifndef BH_CHART_H
#define BH_CHART_H

#include <jansson.h>
#include <stddef.h>

#include "lib/error.h"

typedef struct chart_file {
	char *name;          /* chart-relative path, '/' separated */
	unsigned char *data; /* NUL-terminated (the NUL is not counted in len) */
	size_t len;
	struct chart_blob *blob; /* NULL, or the reference count that data is
				  * shared under between loads and chart_dup()
				  * (the loaders' business: leave it NULL) */
} chart_file;

/* A file of 16 KiB or more loaded from a directory (chart_load_dir) may be
 * a private mapping of the file: if the file shrinks while the chart is in
 * use, reading its lost pages raises SIGBUS. chart_mapped_path names the
 * file whose live mapping holds addr, NULL when none does. Async-signal-safe:
 * for a SIGBUS handler (cli/main.c). The table of live mappings, like a
 * chart's shared file references, is not locked: charts are loaded, copied
 * and freed by one thread at a time (the CLI's and the worker's only one). */
const char *chart_mapped_path(const void *addr);

typedef struct chart chart;
struct chart {
	json_t *metadata;     /* Chart.yaml as loaded (keys as in the file); v1
			       * requirements.yaml dependencies merged in */
	json_t *values;       /* values.yaml: always an object */
	json_t *lock;         /* Chart.lock (requirements.lock for v1) as Helm's
			       * chart.Lock marshals it, fields in Go order:
			       * {"generated","digest","dependencies":[{"name",
			       * "version","repository",...}]}; NULL when absent */
	const char *schema;   /* values.schema.json (NUL-terminated) or NULL:
			       * schema_file's data */
	size_t schema_len;
	chart_file schema_file; /* the file shared (not copied: 181 KiB for
				 * traefik); its name NULL when none */
	chart_file *templates; /* templates/... in load order */
	size_t ntemplates;
	chart_file *files;     /* everything else (.Files, crds/) in load order */
	size_t nfiles;
	chart **deps;          /* sub-charts (owned) */
	size_t ndeps;
	chart *parent;         /* NULL for the top chart */
	json_t *warnings;      /* what Helm reads silently but a user should see:
				* [{"file":"values.yaml","text":"line 3: key \"a\"
				* already set in map"}] for duplicate keys in
				* Chart.yaml or values.yaml; NULL when none */
	int requirements_v2;   /* a requirements.yaml in a chart whose apiVersion
				* is not v1 (Helm's loader logs it: "Warning:
				* Dependencies are handled in Chart.yaml ...") */
};

typedef struct chart_limits {
	size_t max_archive;    /* bytes of one compressed archive (default 64 MiB) */
	size_t max_total;      /* decompressed bytes of everything (default 100 MiB,
				* Helm's MaxDecompressedChartSize) */
	size_t max_file;       /* bytes of one file (default 5 MiB, Helm's former
				* MaxDecompressedFileSize; dir loading too) */
	size_t max_files;      /* number of files (default 20000) */
	size_t max_path_depth; /* components of an entry path (default 32) */
	size_t max_nesting;    /* sub-chart nesting (default 16) */
} chart_limits;

void chart_limits_default(chart_limits *l);

/* What Helm logs (slog): level, message, and NULL-terminated key/value
 * attribute pairs (msg="..." key=value). */
typedef void (*chart_warn_fn)(void *ud, const char *level, const char *msg, const char *const *attrs);

/* Loads a gzip'd tar chart from memory. lim NULL = defaults. */
int chart_load_archive(const void *buf, size_t len, const chart_limits *lim,
		       chart **out, bh_error *err);
/* Reads the whole fd (at most lim->max_archive bytes), then as above. */
int chart_load_fd(int fd, const chart_limits *lim, chart **out, bh_error *err);
/* Loads a chart directory as Helm's LoadDir does: a symbolic link is
 * followed (its target read, a directory walked under the link's name;
 * Helm's INFO "found symbolic link in path. Contents of linked file
 * included and used" path=... resolved=... to warn when given); irregular
 * files are refused. */
int chart_load_dir(const char *path, const chart_limits *lim, chart **out, bh_error *err);
int chart_load_dir_log(const char *path, const chart_limits *lim, chart_warn_fn warn, void *ud,
		       chart **out, bh_error *err);
/* The files chart_load_dir would load from path (.helmignore applied,
 * sorted as Helm walks them, names chart-relative): *files is new, free
 * with chart_files_free. */
int chart_dir_read_files(const char *path, const chart_limits *lim, chart_file **files, size_t *n, bh_error *err);
void chart_files_free(chart_file *files, size_t n);
/* A directory or an archive file, as `helm template` accepts CHART. */
int chart_load_path(const char *path, const chart_limits *lim, chart **out, bh_error *err);
int chart_load_path_log(const char *path, const chart_limits *lim, chart_warn_fn warn, void *ud,
			chart **out, bh_error *err);
/* Helm's LoadFiles: builds a chart from chart-relative files (takes the
 * names/data as given; copies them). Used by the loaders above. */
int chart_load_files(const chart_file *files, size_t n, const chart_limits *lim,
		     chart **out, bh_error *err);
void chart_free(chart *c);

/* Deep copy (used for aliased dependencies). NULL on allocation failure. */
chart *chart_dup(const chart *c);

/* Accessors on metadata (borrowed strings, "" when absent). */
const char *chart_name(const chart *c);
const char *chart_version(const chart *c);
const char *chart_api_version(const chart *c);
int chart_is_library(const chart *c);
/* loader.Load's dispatch on the top chart's Chart.yaml apiVersion (after
 * sigs.k8s.io/yaml made `2` the string "2"): v1 and v2 load; "v3" is
 * "invalid chart apiVersion"; anything else "unsupported chart version". */
int chart_check_api_version(const chart *c, bh_error *err);
/* "parent/charts/name" path used in template names (Helm's ChartFullPath). */
char *chart_full_path_dup(const chart *c);

/* Dependencies processing (pkg/chart/v2/util/dependencies.go):
 * ProcessDependencies = enable/disable by condition and tags, aliases, then
 * import-values. `user_values` are the user-supplied values (not coalesced).
 * What Helm logs goes to warn() when given: level ("WARN" for dependency
 * notes, "INFO" for coalescing warnings), message, and NULL-terminated
 * key/value attribute pairs (slog style: msg="..." key=value). */
int chart_process_dependencies(chart *c, const json_t *user_values,
			       chart_warn_fn warn, void *ud, bh_error *err);

/* Helm's CheckDependencies: every Chart.yaml dependency present in charts/. */
int chart_check_dependencies(const chart *c, bh_error *err);

/* What sigs.k8s.io/yaml makes of a YAML scalar decoded (YAML_KEEP_INTS) where
 * the Go field is a string: int -> FormatInt, float -> FormatFloat('g', -1,
 * 32), bool -> "true"/"false". A new string, or NULL for any other kind. */
json_t *chart_yaml_string_new(const json_t *v);

#endif
