/* tmpl/helmctx.h — Helm's root object `.` for rendering a chart: .Values,
 * .Release, .Chart (Chart.yaml with Go field names), .Capabilities
 * (KubeVersion, APIVersions.Has, HelmVersion), .Files (Get, GetBytes, Glob,
 * Lines, AsConfig, AsSecrets), .Template (Name, BasePath) and .Subcharts.
 * No chart loading and no cluster access here: the caller (helm/) passes
 * the already-loaded pieces. Everything is built in the engine's arena. */
#ifndef TMPL_HELMCTX_H
#define TMPL_HELMCTX_H

#include <stddef.h>

#include <jansson.h>

#include "lib/error.h"
#include "tmpl/value.h"

typedef struct helmctx_file {
	const char *name;           /* chart-relative path, '/' separated */
	const unsigned char *data;  /* not copied: must outlive the engine */
	size_t len;
} helmctx_file;

typedef struct helmctx_opts {
	const json_t *values;       /* .Values (a JSON object; NULL = {}) */
	const json_t *chart;        /* Chart.yaml as loaded (keys as in the file:
				     * name, version, appVersion, ...); NULL =
				     * {apiVersion: v2, name: vec, version: 0.1.0} */
	const char *release_name;   /* default "x" */
	const char *release_namespace; /* default "default" */
	int is_upgrade;             /* IsUpgrade; IsInstall = !is_upgrade */
	int revision;               /* default 1 */
	const char *kube_version;   /* e.g. "v1.35.0" (default) */
	const char *const *api_versions; /* extra --api-versions */
	size_t n_api_versions;
	const helmctx_file *files;  /* .Files (already filtered by the caller) */
	size_t n_files;
	int not_root;               /* set for a subchart: IsRoot false */
	const tmpl_map *values_map; /* a subchart's .Values: its parent's
				     * .Values.<name> map itself, shared as
				     * Helm's Values.Table hands it out (what
				     * a parent's template sets in it, the
				     * subchart's templates see); values is
				     * then not read */
} helmctx_opts;

/* Builds the root map into *out. Values are deep-copied into the arena
 * (numbers: json_real -> float64, json_integer -> int64). 0 or BH_E*. */
int helmctx_build(tmpl_arena *a, const helmctx_opts *o, tmpl_value *out, bh_error *err);

/* Helm 4's normalized Kubernetes version of a --kube-version / gitVersion
 * that k8s ParseGeneric took: "v" and its numeric components as integers
 * ("v1.31.0-eks-1" -> "v1.31.0", "1.031.x" -> "v1.31"). KubeVersion's
 * String() and the chart's kubeVersion check use it. */
void helmctx_kube_normalized(const char *version, bh_buf *out);
/* Sets .Template = {Name: name, BasePath: base_path} on a root built by
 * helmctx_build (Helm does this before executing each file). */
int helmctx_set_template(tmpl_arena *a, tmpl_value *root, const char *name,
			 const char *base_path, bh_error *err);
/* Adds .Subcharts.NAME = sub (the subchart's own root). */
int helmctx_add_subchart(tmpl_arena *a, tmpl_value *root, const char *name,
			 const tmpl_value *sub, bh_error *err);

#endif
