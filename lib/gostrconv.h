/* lib/gostrconv.h — Go's strconv pieces that Helm output is made of:
 * FormatFloat(v, fmt, -1, 64) (shortest round-trip digits) as used by fmt's
 * %v, encoding/json and the YAML printer; IsPrint and the rune escapes of
 * Quote, as used by fmt's %q, Sprig's quote and the schema validator's
 * messages. */
#ifndef BH_GOSTRCONV_H
#define BH_GOSTRCONV_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

/* Writes strconv.FormatFloat(v, fmt, prec, 64) into buf (NUL-terminated,
 * truncated to n). fmt is one of 'e', 'E', 'f', 'g', 'G'; prec -1 means the
 * shortest representation that round-trips. Returns the length written
 * (excluding NUL) as snprintf does. Inf/NaN print as "+Inf", "-Inf", "NaN". */
int go_format_float(char *buf, size_t n, double v, char fmt, int prec);

/* Shortest decimal digits of |v| (finite, non-zero): digits[] without dot,
 * *ndigits of them, value = 0.d1d2... x 10^*dp. Returns 0, or -1 if v is
 * zero/inf/nan. */
int go_shortest_digits(double v, char digits[32], int *ndigits, int *dp);

/* strconv's unhex: the value of the hex digit c (0-9, a-f, A-F), else -1. */
int go_unhex(unsigned c);

/* strconv.IsPrint (and unicode.IsPrint) of Go 1.25, Unicode 15.0.0: r is a
 * letter, mark, number, punctuation or symbol (general category L, M, N, P
 * or S) or U+0020. Everything else (controls, format characters, other
 * spaces, separators, private use, surrogates, unassigned code points,
 * r < 0 or r > U+10FFFF) is not. */
int go_is_print(int32_t r);

/* utf8.AppendRune: r in UTF-8 appended to b (U+FFFD for a surrogate, r < 0
 * or r > U+10FFFF). */
void go_append_rune(bh_buf *b, int32_t r);

/* strconv's escape of the valid rune r (U+0000..U+10FFFF, not a surrogate)
 * inside a string quoted with quote, appended to b: r as it is if it is
 * printable (with ascii_only, printable ASCII), else \a \b \f \n \r \t \v,
 * \xNN for other ASCII controls, \uNNNN or \UNNNNNNNN; quote and '\\' get
 * a backslash. A byte that is not UTF-8 is the caller's (Go writes \xNN). */
void go_quote_rune(bh_buf *b, int32_t r, char quote, int ascii_only);

/* strconv.Quote (ascii_only: QuoteToASCII) of s[0..n) appended to b, in
 * quote characters: each rune as go_quote_rune writes it, each byte that is
 * not UTF-8 as \xNN. */
void go_quote(bh_buf *b, const char *s, size_t n, char quote, int ascii_only);

#endif
