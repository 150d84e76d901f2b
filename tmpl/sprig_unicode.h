/* tmpl/sprig_unicode.h — the parts of Go's unicode and unicode/utf8
 * packages the Sprig functions need: rune classes (IsLetter, IsUpper,
 * IsSpace, ...), simple case mapping (ToUpper/ToLower/ToTitle) and UTF-8
 * decoding/encoding with Go's rules (an invalid byte decodes as U+FFFD of
 * width 1; an invalid rune encodes as U+FFFD). Private to tmpl/. */
#ifndef TMPL_SPRIG_UNICODE_H
#define TMPL_SPRIG_UNICODE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

#define UNI_RUNE_ERROR 0xFFFD

typedef struct uni_case {
	uint32_t cp, upper, lower, title;
} uni_case;

typedef struct uni_range {
	uint32_t lo, hi;
} uni_range;

/* generated tables (tmpl/unicode_tables.c) */
extern const uni_case uni_cases[];
extern const size_t uni_ncases;
extern const uni_range uni_letter[], uni_upper[], uni_lower[], uni_title[],
	uni_digit[], uni_number[], uni_punct[], uni_mark[];
extern const size_t uni_nletter, uni_nupper, uni_nlower, uni_ntitle,
	uni_ndigit, uni_nnumber, uni_npunct, uni_nmark;

int uni_is_letter(uint32_t r);
int uni_is_upper(uint32_t r);
int uni_is_lower(uint32_t r);
int uni_is_title(uint32_t r);
int uni_is_digit(uint32_t r);
int uni_is_number(uint32_t r);
int uni_is_punct(uint32_t r);
int uni_is_space(uint32_t r);
uint32_t uni_to_upper(uint32_t r);
uint32_t uni_to_lower(uint32_t r);
uint32_t uni_to_title(uint32_t r);

/* utf8.DecodeRuneInString: the rune at s[0..n) and its width (0 when n is
 * 0; 1 with U+FFFD for an invalid encoding). */
uint32_t uni_decode(const char *s, size_t n, size_t *width);
/* utf8.AppendRune. */
void uni_put(bh_buf *out, uint32_t r);

#endif
