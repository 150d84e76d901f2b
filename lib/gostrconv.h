/* lib/gostrconv.h — Go's strconv number formatting, which Helm output is
 * made of: FormatFloat(v, fmt, -1, 64) (shortest round-trip digits) as used
 * by fmt's %v, encoding/json and the YAML printer. */
#ifndef BH_GOSTRCONV_H
#define BH_GOSTRCONV_H

#include <stddef.h>

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

#endif
