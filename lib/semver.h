/* lib/semver.h — Masterminds/semver v3.4.0, the one semver implementation
 * of bulkhead: NewVersion (the coercing parser: "v1.2" -> 1.2.0), version
 * ordering, and constraint strings ("~1.2", "^0.3", ">= 1.19-0 <2",
 * "1.0 - 2.0 || 3.x") with the library's prerelease rules. Used by the
 * template functions semver/semverCompare (tmpl/funcs_semver.c) and by chart
 * loading and rendering (Chart.yaml version, dependency version ranges,
 * kubeVersion). Pure functions, no allocation except the constraint
 * checks' temporary buffers. */
#ifndef BH_SEMVER_H
#define BH_SEMVER_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

#define SEMVER_MAX_LEN 256         /* semver.MaxVersionLen */
#define SEMVER_MAX_CONSTRAINT 4096 /* our limit on constraint strings */

typedef struct semver {
	uint64_t major, minor, patch;
	char pre[SEMVER_MAX_LEN + 1];
	char meta[SEMVER_MAX_LEN + 1];
	char original[SEMVER_MAX_LEN + 1];
} semver;

/* semver.NewVersion. 0, or -1 with errmsg (Go's error text) filled. */
int semver_parse(const char *s, size_t n, semver *v, char *errmsg, size_t errsz);
/* Version.String() appended to out. */
void semver_format(const semver *v, bh_buf *out);
/* Version.Compare: -1, 0, 1 (build metadata ignored). */
int semver_compare(const semver *a, const semver *b);
/* Prerelease / metadata validation as SetPrerelease/SetMetadata do;
 * NULL when valid, else Go's error text. */
const char *semver_check_prerelease(const char *p);
const char *semver_check_metadata(const char *m);

/* NewConstraint(c).Check(v): 1 or 0, or -1 with errmsg ("improper
 * constraint: X") when the constraint does not parse. */
int semver_constraint_check(const char *c, size_t n, const semver *v, char *errmsg, size_t errsz);

/* Helm's IsCompatibleRange(constraint, version): 1 when the version parses
 * and satisfies the constraint, 0 otherwise (also when either does not
 * parse). NULL is treated as not parsing. */
int semver_satisfies(const char *constraint, const char *version);

#endif
