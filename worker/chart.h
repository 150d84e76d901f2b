/* worker/chart.h — the skeleton's chart loader: a Helm chart .tgz read from
 * memory (libarchive), with Helm's and Flux's archive rules (regular files
 * and directories only, no absolute or ".." paths, size limits), Chart.yaml
 * and values.yaml parsed. It stands in until helm/chart.h (the chart
 * engine's loader) replaces it; templates are used as plain manifests. */
#ifndef BH_WORKER_CHART_H
#define BH_WORKER_CHART_H

#include <jansson.h>
#include <stddef.h>

#include "lib/error.h"

#define CHART_MAX_TGZ ((size_t)10 << 20)    /* Flux */
#define CHART_MAX_TOTAL ((size_t)100 << 20) /* Helm */
#define CHART_MAX_FILE ((size_t)5 << 20)    /* Helm, Flux */
#define CHART_MAX_FILES 10000

typedef struct chart_file {
	char *name; /* relative to the chart root: "templates/cm.yaml" */
	unsigned char *data;
	size_t len;
} chart_file;

typedef struct worker_chart {
	json_t *metadata; /* Chart.yaml */
	json_t *values;   /* values.yaml (object, possibly empty) */
	const char *name, *version, *app_version; /* borrowed from metadata */
	chart_file *files;
	size_t nfiles;
} worker_chart;

/* Loads a chart archive. *out is freed with worker_chart_free. */
int worker_chart_load(const unsigned char *tgz, size_t len, worker_chart **out, bh_error *err);
void worker_chart_free(worker_chart *c);

#endif
