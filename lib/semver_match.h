/* lib/semver_match.h — internal to lib/semver.c (and its fuzz target): the
 * four regular expressions of Masterminds/semver's constraint grammar,
 * matched by hand with the results PCRE2 (leftmost-first, backtracking)
 * gives for them:
 *   WS  = [\t\n\f\r ]
 *   OPS = =||!=|>|<|>=|=>|<=|=<|~|~>|\^
 *   CV  = v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?
 *         (-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?
 *   one   = ^WS*(OPS)WS*(CV)WS*$
 *   find  = (OPS)WS*(CV)
 *   valid = ^(WS*(OPS)WS*(CV)WS*)((?:WS+|,WS*)(OPS)WS*(CV)WS*)*$
 *   range = WS*(CV)WS+-WS+(CV)WS*
 * Offsets are PCRE2's ovector: group g spans [ov[2g], ov[2g+1]), SIZE_MAX
 * when unset. Only the groups named below are filled. */
#ifndef BH_SEMVER_MATCH_H
#define BH_SEMVER_MATCH_H

#include <stddef.h>
#include <stdint.h>

#define SEMVER_ONE_GROUPS 7    /* 0, 1 op, 2 CV, 3 major, 4 .minor, 5 .patch, 6 -pre */
#define SEMVER_FIND_GROUPS 7   /* the same groups */
#define SEMVER_RANGE_GROUPS 16 /* 0, 1 CV (2-5 as above), 11 CV (12-15) */

/* "one" on all of s[0..n): 1 when it matches */
int semver_match_one(const char *s, size_t n, size_t ov[SEMVER_ONE_GROUPS * 2]);

/* "find": the leftmost match at or after start, 1 when there is one */
int semver_match_find(const char *s, size_t n, size_t start, size_t ov[SEMVER_FIND_GROUPS * 2]);

/* "valid" on all of s[0..n): 1 when it matches */
int semver_match_valid(const char *s, size_t n);

/* "range": the leftmost match at or after start, 1 when there is one */
int semver_match_range(const char *s, size_t n, size_t start, size_t ov[SEMVER_RANGE_GROUPS * 2]);

#endif
