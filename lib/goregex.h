/* lib/goregex.h — Go regular expressions (the regexp package's RE2
 * syntax) on PCRE2: a Go pattern is parsed with Go's rules (Go's error
 * messages; no backreferences, lookaround, possessive or atomic groups),
 * translated to an equivalent PCRE2 pattern and compiled with match,
 * depth and heap limits that bound backtracking (Go's engine is
 * linear-time). Used by the template engine's regex functions
 * (tmpl/funcs_regex.c), by values.schema.json's pattern and
 * patternProperties (lib/jsonschema.c) and by fields whose value is a Go
 * regexp (an OCIRepository's .spec.ref.semverFilter, in the fetcher).
 * Pure: no I/O. */
#ifndef BH_LIB_GOREGEX_H
#define BH_LIB_GOREGEX_H

#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>
#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"

typedef struct goregex {
	pcre2_code *code;
	pcre2_match_data *md;
	pcre2_match_context *mctx; /* the limits */
} goregex;

/* Compiles the Go pattern pat[0..n) into re. 0, or -1 with err holding
 * Go's Error() text ("error parsing regexp: ..."). */
int goregex_compile(goregex *re, const char *pat, size_t n, bh_buf *err);

/* Only Go's parse of pat[0..n), as regexp.Compile checks it (no PCRE2
 * pattern made): 0 (err untouched), or -1 with err holding Go's Error()
 * text, as goregex_compile. */
int goregex_check(const char *pat, size_t n, bh_buf *err);

/* 1 when s[0..n) holds a match (unanchored, as Go's MatchString), 0 when
 * not, BH_ELIMIT (err set) past the backtracking limits. Invalid UTF-8 in
 * s never matches. */
int goregex_match(goregex *re, const char *s, size_t n, bh_error *err);

/* Frees what goregex_compile made (re itself is the caller's). */
void goregex_release(goregex *re);

#endif
