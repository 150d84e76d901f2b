/* tmpl/gofmt.h — Go's fmt package as templates see it: print, println,
 * printf and the %v text of any tmpl_value (map[a:1 b:2], [a b], 1e+06,
 * <nil>, %!d(float64=3), %!s(MISSING), %!(EXTRA string=b), widths, flags,
 * precision, %q/%x/%c/%U/%e/%g/%T ...). All functions append to out. */
#ifndef TMPL_GOFMT_H
#define TMPL_GOFMT_H

#include "lib/buf.h"
#include "tmpl/value.h"

/* Each printer returns 0, or stops early (out->oom set) with:
 * GOFMT_ESELF  a map or list contains itself: Go's fmt recurses until the
 *              goroutine stack overflows (helm dies with "fatal error: stack
 *              overflow"); here it is an error the caller reports;
 * GOFMT_ELARGE the text passed 256 MiB (values that share sub-values can
 *              multiply the text without bound). */
#define GOFMT_ESELF 1
#define GOFMT_ELARGE 2
/* What a GOFMT_E* code means, for error messages. */
const char *gofmt_strerror(int rc);

/* fmt.Sprint(args...): a space only between two operands that are both not
 * strings. */
int gofmt_sprint(bh_buf *out, const tmpl_value *args, int n);
/* fmt.Sprintln(args...). */
int gofmt_sprintln(bh_buf *out, const tmpl_value *args, int n);
/* fmt.Sprintf(format, args...). */
int gofmt_sprintf(bh_buf *out, const char *format, size_t flen,
		  const tmpl_value *args, int n);
/* fmt.Sprint(v) of one value (%v). INVALID and NIL print "<nil>" as fmt
 * does; the template engine itself prints "<no value>" for missing values. */
int gofmt_value(bh_buf *out, const tmpl_value *v);
/* strconv.Quote(s) (what %q prints for a string). */
void gofmt_quote(bh_buf *out, const char *s, size_t n);

#endif
