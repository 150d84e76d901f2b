/* lib/gotime_rfc3339.h — Go's time.Time as encoding/json reads and writes
 * it (Go 1.25, as helm v4.1.4 is built), for a Chart.lock's `generated`.
 *
 * Reading is time.Time.UnmarshalJSON: the literal null leaves the time
 * alone, anything else must be a JSON string literal whose bytes between
 * the quotes, escapes left as they are (go.dev/issue/47353), are parsed by
 * parseStrictRFC3339. With its strict checks disabled in Go 1.25 that is
 * time.Parse(time.RFC3339, s): the fast path, else the general parser, which
 * also takes a one-digit hour, a ',' before the fraction, more than nine
 * fraction digits (truncated) and zone offsets up to +24:60. Errors are
 * Go's texts ("parsing time \"x\" as \"2006-01-02T15:04:05Z07:00\": cannot
 * parse \"x\" as \"2006\"", "...: hour out of range", "...: extra text:
 * ..."), with time's own quoting of the values.
 *
 * Writing is time.Time.MarshalJSON: RFC3339Nano in the parsed offset ('Z'
 * for a zero offset, fraction zeros dropped), failing as Go does when the
 * offset's hour is 24 or more. */
#ifndef BH_GOTIME_RFC3339_H
#define BH_GOTIME_RFC3339_H

#include <stddef.h>

#include "lib/error.h"

/* A parsed time as written: the fields in its own offset. */
typedef struct rfc3339_time {
	int year, month, day, hour, min, sec;
	int nsec;   /* 0..999999999 */
	int offset; /* seconds east of UTC (0 for 'Z') */
} rfc3339_time;

/* The zero time.Time, 0001-01-01T00:00:00Z. */
#define RFC3339_ZERO {1, 1, 1, 0, 0, 0, 0, 0}

/* time.Parse(time.RFC3339, s[0..n)) into *out. BH_EINVAL with Go's
 * ParseError text on failure. */
int rfc3339_parse(const char *s, size_t n, rfc3339_time *out, bh_error *err);

/* time.Time.UnmarshalJSON of the JSON literal lit[0..n): "null" leaves *t
 * as it is; a literal that is not in quotes fails with "Time.UnmarshalJSON:
 * input is not a JSON string"; else rfc3339_parse of its inside. */
int rfc3339_unmarshal_json(const char *lit, size_t n, rfc3339_time *t, bh_error *err);

/* Longest text rfc3339_format writes, with its NUL:
 * "2006-01-02T15:04:05.999999999-25:00". */
#define RFC3339_FORMAT_MAX 36

/* time.Time.MarshalJSON's text (without the quotes) of t into buf. Fails
 * (BH_EINVAL, "Time.MarshalJSON: timezone hour outside of range [0,23]" or
 * "... year outside of range [0,9999]") where Go does; buf then holds the
 * text Go would have refused (the year modulo 10000). */
int rfc3339_format(const rfc3339_time *t, char buf[RFC3339_FORMAT_MAX], bh_error *err);

#endif
