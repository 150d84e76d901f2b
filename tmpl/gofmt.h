/* tmpl/gofmt.h — Go's fmt package as templates see it: print, println,
 * printf and the %v text of any tmpl_value (map[a:1 b:2], [a b], 1e+06,
 * <nil>, %!d(float64=3), %!s(MISSING), %!(EXTRA string=b), widths, flags,
 * precision, %q/%x/%c/%U/%e/%g/%T ...). All functions append to out. */
#ifndef TMPL_GOFMT_H
#define TMPL_GOFMT_H

#include "lib/buf.h"
#include "tmpl/value.h"

/* fmt.Sprint(args...): a space only between two operands that are both not
 * strings. */
void gofmt_sprint(bh_buf *out, const tmpl_value *args, int n);
/* fmt.Sprintln(args...). */
void gofmt_sprintln(bh_buf *out, const tmpl_value *args, int n);
/* fmt.Sprintf(format, args...). */
void gofmt_sprintf(bh_buf *out, const char *format, size_t flen,
		   const tmpl_value *args, int n);
/* fmt.Sprint(v) of one value (%v). INVALID and NIL print "<nil>" as fmt
 * does; the template engine itself prints "<no value>" for missing values. */
void gofmt_value(bh_buf *out, const tmpl_value *v);
/* strconv.Quote(s) (what %q prints for a string). */
void gofmt_quote(bh_buf *out, const char *s, size_t n);

#endif
