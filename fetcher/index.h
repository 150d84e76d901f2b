/* fetcher/index.h — a Helm repository's index.yaml, decoded once from
 * untrusted bytes (Helm's repo.loadIndex: an apiVersion is required, null
 * entries and entries without a valid name or semver version are skipped,
 * each chart's versions sorted newest first), and the choice of a chart
 * version for a constraint as Flux's source-controller makes it (an exact
 * version string first, else the highest version satisfying the
 * Masterminds/semver constraint, prereleases only when the constraint asks
 * for them, ties broken by .created). Pure functions with size, depth and
 * count limits. */
#ifndef BH_FETCHER_INDEX_H
#define BH_FETCHER_INDEX_H

#include <stddef.h>

#include "lib/error.h"
#include "lib/semver.h"

#define INDEX_MAX_DEPTH 64       /* nesting of YAML collections */
#define INDEX_MAX_NODES 2000000  /* YAML values */
#define INDEX_MAX_VERSIONS 500000 /* chart versions in all entries */
#define INDEX_MAX_URLS 16        /* urls of one chart version */

typedef struct index_version {
	char *name;
	char *version;   /* as written */
	semver sv;
	char *digest;    /* hex sha256 of the package, or NULL */
	char *created;   /* RFC 3339, or NULL */
	char **urls;
	size_t nurls;
} index_version;

typedef struct index_chart {
	char *name;
	index_version *versions; /* newest first */
	size_t nversions;
} index_chart;

typedef struct helm_index {
	index_chart *charts;
	size_t ncharts;
	size_t skipped; /* entries dropped as invalid (Helm logs them) */
} helm_index;

/* Decodes text[0..len) (at most max_bytes). BH_EPARSE/BH_EINVAL with
 * Helm's message ("no API version specified", "empty index.yaml file"),
 * BH_ELIMIT when a limit is exceeded. *out: free with index_free. */
int index_decode(const char *text, size_t len, size_t max_bytes, helm_index **out, bh_error *err);
void index_free(helm_index *idx);

/* The version of chart name that constraint (NULL or "" = latest stable,
 * "*" too) selects. Borrowed from idx. BH_ENOTFOUND with Flux's messages
 * ("no chart name found", "no chart version found", "no 'x' chart with
 * version matching '1.x' found"), BH_EINVAL for a bad constraint. */
int index_get(const helm_index *idx, const char *name, const char *constraint, const index_version **out,
	      bh_error *err);

#endif
