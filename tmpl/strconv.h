/* tmpl/strconv.h — the parts of Go's strconv the template engine needs for
 * literals and Sprig's cast: ParseInt/ParseUint with base 0 (prefixes and
 * underscores), ParseFloat (Go syntax, hex floats), Unquote/UnquoteChar. */
#ifndef TMPL_STRCONV_H
#define TMPL_STRCONV_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

/* Results: 0 ok, -1 syntax error, -2 out of range (value clamped). */
int go_parse_int(const char *s, size_t n, int base, int64_t *out);
int go_parse_uint(const char *s, size_t n, int base, uint64_t *out);
int go_parse_float(const char *s, size_t n, double *out);
/* strconv.Unquote of a "..."/`...`/'...' literal into out. 0 or -1. */
int go_unquote(const char *s, size_t n, bh_buf *out);
/* UnquoteChar for a character literal body (after the opening quote):
 * decodes one rune; *tail gets the rest. 0 or -1. */
int go_unquote_char(const char *s, size_t n, char quote, int *rune, size_t *used);
/* A float64 that is a whole number of magnitude below lim and 2^53,
 * -0 excepted, written in decimal into buf (room for 21 bytes, no NUL):
 * its length, 0 for any other value. Go's FormatFloat prints such a value
 * so with 'f' (any lim) and with 'g' and the shortest precision (lim 1e6:
 * from 1e+06 on it uses an exponent). */
size_t go_format_whole_float(char *buf, double v, double lim);

#endif
