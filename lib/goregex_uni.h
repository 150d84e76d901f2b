/* lib/goregex_uni.h — character classes as Go's regexp/syntax builds them,
 * for lib/goregex.c: sets of code points (sorted inclusive ranges), Go
 * 1.25's \p{...} tables (Unicode 15.0.0: general categories, scripts, Any,
 * Assigned, ASCII, LC and the category aliases) and Go's simple case
 * folding (the orbits of unicode.SimpleFold), so that a class matches
 * exactly what Go's does, written for PCRE2 as explicit ranges. The tables
 * are generated (lib/goregex_uni_gen.py -> lib/goregex_uni_tables.c).
 * Pure: no I/O. */
#ifndef BH_LIB_GOREGEX_UNI_H
#define BH_LIB_GOREGEX_UNI_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

typedef struct goregex_set {
	uint32_t (*r)[2]; /* inclusive ranges; sorted and disjoint after goregex_set_clean */
	size_t n, cap;
	int oom;          /* an allocation failed: the set is incomplete */
} goregex_set;

#define GOREGEX_SET_INIT {NULL, 0, 0, 0}

void goregex_set_add(goregex_set *s, uint32_t lo, uint32_t hi);
/* sorts and merges the ranges */
void goregex_set_clean(goregex_set *s);
/* the complement in U+0000..U+10FFFF (s cleaned first) */
void goregex_set_negate(goregex_set *s);
/* adds the simple case folding orbit of every member (Go's
 * appendFoldedRange/appendFoldedClass); s cleaned after */
void goregex_set_fold(goregex_set *s);
/* adds all of t to s */
void goregex_set_union(goregex_set *s, const goregex_set *t);
int goregex_set_has(const goregex_set *s, uint32_t c); /* s cleaned */
void goregex_set_free(goregex_set *s);

/* s minus t (t cleaned); s cleaned after */
void goregex_set_minus(goregex_set *s, const goregex_set *t);

#define GOREGEX_PROP_MAX 32

/* Go's unicodeTable for a name already in canonical form (regexp/syntax
 * canonicalName): 1 with the table added to tab (negated when Go inverts
 * it: Assigned), folded too when fold is set and Go has a fold table for
 * the name; 0 for a name Go does not know. prop: PCRE2's class for the
 * name ("\p{L}", "\p{sc:Greek}", "\P{Cn}"), whose code points are added
 * to q: Go's but for those new in Unicode 15.0, which PCRE2's Unicode 14
 * tables have as unassigned (in C and Cn); "" when PCRE2 has none (ASCII,
 * a script new in 15.0). tests/unit/test_goregex checks all of PCRE2
 * 10.42's classes so. */
int goregex_uni_table(const char *canon, int fold, goregex_set *tab, char prop[GOREGEX_PROP_MAX], goregex_set *q);

/* The cleaned set as explicit ranges for a PCRE2 class (surrogates left
 * out: they are never in valid UTF-8); returns how many were written.
 * PCRE2's caseless mode would add its own case folding: the caller turns
 * it off. */
size_t goregex_set_put(bh_buf *out, const goregex_set *s);

/* Go's general category of c ("Lu", "Nd", ... "Cn" when unassigned), as
 * its Unicode 15.0 tables have it: unicode.IsLetter(c) is a name starting
 * with 'L'. */
const char *goregex_uni_category(uint32_t c);

/* generated tables (lib/goregex_uni_tables.c) */
typedef struct goregex_fold_run {
	uint32_t lo;
	uint16_t n;     /* characters: lo, lo + stride, ... */
	uint8_t stride;
	int32_t delta;  /* the next one of the orbit is c + delta */
} goregex_fold_run;
extern const char *const goregex_uni_cat_names[];   /* two-letter, sorted, NULL-ended */
extern const uint32_t goregex_uni_cat_runs[];       /* start << 8 | category index */
extern const size_t goregex_uni_cat_runs_len;
extern const char *const goregex_uni_script_names[]; /* sorted, NULL-ended */
extern const uint32_t goregex_uni_script_runs[];    /* start << 8 | script index, 0xFF none */
extern const size_t goregex_uni_script_runs_len;
extern const uint32_t goregex_uni_new15[];         /* lo, hi, ...: new in Unicode 15.0 */
extern const size_t goregex_uni_new15_len;
extern const goregex_fold_run goregex_uni_fold[];
extern const size_t goregex_uni_fold_len;

#endif
