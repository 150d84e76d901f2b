/* helm/chart_semver.h — the parts of Masterminds/semver v3 that chart
 * loading needs: version validity (Chart.yaml `version`), and constraint
 * checks (Helm's IsCompatibleRange for `kubeVersion` and dependency
 * `version` ranges): operators = != > < >= <= ~ ^, wildcards (x, X, *),
 * partial versions, `a - b` ranges, `,`/space (and) and `||` (or), and the
 * rule that a pre-release version only satisfies constraints that carry a
 * pre-release themselves. */
#ifndef BH_CHART_SEMVER_H
#define BH_CHART_SEMVER_H

#include <stdint.h>

typedef struct chart_semver {
	uint64_t major, minor, patch;
	char pre[128];   /* pre-release without '-', "" when none */
	int minor_set, patch_set; /* parts given (not wildcards/missing) */
	int major_wild;
} chart_semver;

/* semver.NewVersion (lenient: optional v, missing minor/patch). 0 or -1. */
int chart_semver_parse(const char *s, chart_semver *v);
/* Precedence: <0, 0, >0. */
int chart_semver_cmp(const chart_semver *a, const chart_semver *b);
/* IsCompatibleRange(constraint, version): 1 satisfied, 0 not (also when the
 * constraint or the version does not parse, as Helm). */
int chart_semver_satisfies(const char *constraint, const char *version);

#endif
