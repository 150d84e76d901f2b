/* fetcher/chartvalues.h — a HelmChart's .spec.valuesFiles, as
 * source-controller's chart builder applies them: the listed files of the
 * chart (paths inside it, in order; "values.yaml" is the chart's own
 * values) are deep-merged (later files win, maps merge), the chart is
 * re-packaged with the result as its values.yaml and its version's build
 * metadata set to the HelmChart's generation ("1.2.0" -> "1.2.0+3"). A
 * missing file is an error ("no values file found at path '...'") unless
 * ignore_missing. Pure function of its input (untrusted chart bytes) with
 * size limits; the output archive is deterministic (mtime 0). */
#ifndef BH_FETCHER_CHARTVALUES_H
#define BH_FETCHER_CHARTVALUES_H

#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"

typedef struct chartvalues_opts {
	const char *const *files; /* valuesFiles, in order */
	size_t nfiles;
	int ignore_missing;
	const char *version_metadata; /* the generation, e.g. "3" */
	size_t max_inflated;          /* bytes of the unpacked chart */
} chartvalues_opts;

/* Re-packages the chart archive tgz[0..n) into *out (appended). *version_out
 * (new string) is the new chart version; *observed_out (new, may be "")
 * the files that were merged, joined by '\n'. BH_EINVAL with err naming
 * the file for a missing or bad values file. */
int chartvalues_apply(const void *tgz, size_t n, const chartvalues_opts *o, bh_buf *out, char **version_out,
		      char **observed_out, bh_error *err);

#endif
