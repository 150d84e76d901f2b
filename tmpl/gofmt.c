/* tmpl/gofmt.c — Go's fmt printing rules for tmpl_values (see gofmt.h).
 * Structure follows Go's fmt/print.go and fmt/format.go: a formatter state
 * (flags, width, precision) and printArg/printValue with badVerb. */
#include "tmpl/gofmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gostrconv.h"
#include "tmpl/strconv.h"
#include "tmpl/funcs.h"
#include "tmpl/internal.h"

/* The maps and lists being printed, innermost first (a value met again on
 * this path holds itself). */
typedef struct fpath {
	const void *p;
	const struct fpath *up;
} fpath;

/* One gofmt_* call: where its output started, and why it stopped. */
typedef struct frun {
	size_t start;
	int fail; /* 0, GOFMT_ESELF or GOFMT_ELARGE */
	const fpath *path;
} frun;

typedef struct fstate {
	bh_buf *out;
	frun *run;
	int plus, minus, sharp, space, zero;
	int plusV, sharpV;
	int wid, prec;
	int widPresent, precPresent;
	int erroring;
} fstate;

/* ---- UTF-8 ---- */

static int utf8_decode(const unsigned char *s, size_t n, int *size)
{
	unsigned c = s[0];
	if (c < 0x80) {
		*size = 1;
		return (int)c;
	}
	if (c >= 0xC2 && c <= 0xDF && n >= 2 && (s[1] & 0xC0) == 0x80) {
		*size = 2;
		return (int)(((c & 0x1F) << 6) | (s[1] & 0x3F));
	}
	if (c >= 0xE0 && c <= 0xEF && n >= 3 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80) {
		int r = (int)(((c & 0x0F) << 12) | ((s[1] & 0x3F) << 6) | (s[2] & 0x3F));
		if (r >= 0x800 && (r < 0xD800 || r > 0xDFFF)) {
			*size = 3;
			return r;
		}
	}
	if (c >= 0xF0 && c <= 0xF4 && n >= 4 && (s[1] & 0xC0) == 0x80 &&
	    (s[2] & 0xC0) == 0x80 && (s[3] & 0xC0) == 0x80) {
		int r = (int)(((c & 0x07) << 18) | ((s[1] & 0x3F) << 12) | ((s[2] & 0x3F) << 6) |
			      (s[3] & 0x3F));
		if (r >= 0x10000 && r <= 0x10FFFF) {
			*size = 4;
			return r;
		}
	}
	*size = 1;
	return -1; /* RuneError */
}

static size_t rune_count(const char *s, size_t n)
{
	size_t c = 0, i = 0;
	int sz;
	while (i < n) {
		utf8_decode((const unsigned char *)s + i, n - i, &sz);
		i += (size_t)sz;
		c++;
	}
	return c;
}

/* ---- padding ---- */

static void write_padding(fstate *f, int n)
{
	if (n <= 0 || bh_buf_grow(f->out, (size_t)n) < 0)
		return; /* out of memory: the buffer says so */
	memset(f->out->data + f->out->len, f->zero ? '0' : ' ', (size_t)n);
	f->out->len += (size_t)n;
	f->out->data[f->out->len] = '\0';
}

static void pad(fstate *f, const char *s, size_t n)
{
	if (!f->widPresent || f->wid == 0) {
		bh_buf_put(f->out, s, n);
		return;
	}
	int width = f->wid - (int)rune_count(s, n);
	if (!f->minus) {
		write_padding(f, width);
		bh_buf_put(f->out, s, n);
	} else {
		bh_buf_put(f->out, s, n);
		int z = f->zero;
		f->zero = 0;
		write_padding(f, width);
		f->zero = z;
	}
}

/* ---- quoting (strconv) ---- */

void gofmt_quote(bh_buf *out, const char *s, size_t n)
{
	go_quote(out, s, n, '"', 0);
}

static int can_backquote(const char *s, size_t n)
{
	size_t i = 0;
	int sz;
	while (i < n) {
		int r = utf8_decode((const unsigned char *)s + i, n - i, &sz);
		if (r < 0 && sz == 1)
			return 0;
		if (sz > 1) {
			if (r == 0xFEFF)
				return 0;
			i += (size_t)sz;
			continue;
		}
		if (r == '`' || r == 0x7F || (r < ' ' && r != '\t'))
			return 0;
		i++;
	}
	return 1;
}

/* ---- format.go ---- */

static void fmt_bool(fstate *f, int v)
{
	if (v)
		pad(f, "true", 4);
	else
		pad(f, "false", 5);
}

static void fmt_integer(fstate *f, uint64_t u, int base, int is_signed, char verb, const char *digits)
{
	char buf[200];
	int negative = is_signed && (int64_t)u < 0;
	if (negative)
		u = -u;
	int prec = 0, i = (int)sizeof buf;
	int oldzero = f->zero;
	if (f->precPresent) {
		prec = f->prec;
		if (prec > 150)
			prec = 150;
		if (prec == 0 && u == 0) {
			f->zero = 0;
			write_padding(f, f->wid);
			f->zero = oldzero;
			return;
		}
	} else if (f->zero && !f->minus && f->widPresent) {
		prec = f->wid;
		if (negative || f->plus || f->space)
			prec--;
		if (prec > 150)
			prec = 150;
	}
	switch (base) {
	case 10:
		while (u >= 10) {
			i--;
			buf[i] = (char)('0' + u % 10);
			u /= 10;
		}
		break;
	case 16:
		while (u >= 16) {
			i--;
			buf[i] = digits[u & 0xF];
			u >>= 4;
		}
		break;
	case 8:
		while (u >= 8) {
			i--;
			buf[i] = (char)('0' + (u & 7));
			u >>= 3;
		}
		break;
	case 2:
		while (u >= 2) {
			i--;
			buf[i] = (char)('0' + (u & 1));
			u >>= 1;
		}
		break;
	}
	i--;
	buf[i] = digits[u];
	while (i > 0 && prec > (int)sizeof buf - i) {
		i--;
		buf[i] = '0';
	}
	if (f->sharp) {
		switch (base) {
		case 2: i--; buf[i] = 'b'; i--; buf[i] = '0'; break;
		case 8: if (buf[i] != '0') { i--; buf[i] = '0'; } break;
		case 16: i--; buf[i] = digits[16]; i--; buf[i] = '0'; break;
		}
	}
	if (verb == 'O') {
		i--;
		buf[i] = 'o';
		i--;
		buf[i] = '0';
	}
	if (negative) {
		i--;
		buf[i] = '-';
	} else if (f->plus) {
		i--;
		buf[i] = '+';
	} else if (f->space) {
		i--;
		buf[i] = ' ';
	}
	f->zero = 0;
	pad(f, buf + i, sizeof buf - (size_t)i);
	f->zero = oldzero;
}

static void fmt_unicode(fstate *f, uint64_t u)
{
	char buf[64];
	int n = snprintf(buf, sizeof buf, "U+%04llX", (unsigned long long)u);
	if (f->precPresent && f->prec > 4) {
		n = snprintf(buf, sizeof buf, "U+%0*llX", f->prec > 40 ? 40 : f->prec,
			     (unsigned long long)u);
	}
	if (f->sharp && u <= 0x10FFFF && go_is_print((int32_t)u)) {
		bh_buf tmp = BH_BUF_INIT;
		bh_buf_put(&tmp, buf, (size_t)n);
		bh_buf_puts(&tmp, " '");
		go_append_rune(&tmp, (int)u);
		bh_buf_putc(&tmp, '\'');
		int oz = f->zero;
		f->zero = 0;
		pad(f, bh_buf_str(&tmp), tmp.len);
		f->zero = oz;
		bh_buf_free(&tmp);
		return;
	}
	int oz = f->zero;
	f->zero = 0;
	pad(f, buf, (size_t)n);
	f->zero = oz;
}

static void fmt_c(fstate *f, uint64_t c)
{
	bh_buf tmp = BH_BUF_INIT;
	int r = c > 0x10FFFF ? 0xFFFD : (int)c;
	go_append_rune(&tmp, r);
	pad(f, bh_buf_str(&tmp), tmp.len);
	bh_buf_free(&tmp);
}

static void fmt_qc(fstate *f, uint64_t c)
{
	bh_buf tmp = BH_BUF_INIT;
	int r = c > 0x10FFFF ? 0xFFFD : (int)c;
	if (r >= 0xD800 && r <= 0xDFFF)
		r = 0xFFFD;
	bh_buf_putc(&tmp, '\'');
	go_quote_rune(&tmp, r, '\'', f->plus);
	bh_buf_putc(&tmp, '\'');
	pad(f, bh_buf_str(&tmp), tmp.len);
	bh_buf_free(&tmp);
}

/* strconv 'x'/'X' hexadecimal float with prec (-1 = shortest). */
static void fmt_hexfloat(bh_buf *b, double v, int prec, char verb)
{
	int upper = verb == 'X';
	const char *dg = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	uint64_t mant;
	int exp;
	if (signbit(v))
		bh_buf_putc(b, '-');
	v = fabs(v);
	if (v == 0) {
		mant = 0;
		exp = 0;
	} else {
		int e;
		double m = frexp(v, &e); /* v = m * 2^e, m in [0.5,1) */
		mant = (uint64_t)ldexp(m, 53); /* 53-bit mantissa */
		exp = e - 1;
		/* denormals: mant has fewer bits; normalise */
		while (mant && !(mant & (1ULL << 52))) {
			mant <<= 1;
			exp--;
		}
	}
	/* mant: 1 bit integer part + 52 fraction bits; shift to 60 bits of
	 * fraction (15 hex digits) like Go: mant <<= 60-52 */
	mant <<= 8; /* now integer part at bit 60 */
	if (prec >= 0 && prec < 15) {
		int shift = 60 - prec * 4;
		uint64_t extra = mant & ((1ULL << shift) - 1);
		mant >>= shift;
		if ((extra | (mant & 1)) != 0 &&
		    extra >= (1ULL << (shift - 1)) &&
		    (extra > (1ULL << (shift - 1)) || (mant & 1)))
			mant++;
		mant <<= shift;
		if (mant & (1ULL << 61)) {
			mant >>= 1;
			exp++;
		}
	}
	int hex_digits = prec;
	if (prec < 0) {
		/* shortest: drop trailing zero hex digits */
		uint64_t frac = mant & ((1ULL << 60) - 1);
		hex_digits = 0;
		while (frac) {
			hex_digits++;
			frac = (frac << 4) & ((1ULL << 60) - 1);
		}
	}
	bh_buf_putc(b, '0');
	bh_buf_putc(b, upper ? 'X' : 'x');
	bh_buf_putc(b, (char)('0' + ((mant >> 60) & 1)));
	if (hex_digits > 0) {
		bh_buf_putc(b, '.');
		uint64_t frac = mant & ((1ULL << 60) - 1);
		for (int i = 0; i < hex_digits; i++) {
			if (i < 15) {
				bh_buf_putc(b, dg[(frac >> 56) & 0xF]);
				frac = (frac << 4) & ((1ULL << 60) - 1);
			} else {
				bh_buf_putc(b, '0');
			}
		}
	}
	bh_buf_putc(b, upper ? 'P' : 'p');
	if (exp < 0) {
		bh_buf_putc(b, '-');
		exp = -exp;
	} else {
		bh_buf_putc(b, '+');
	}
	bh_buf_printf(b, "%02d", exp);
}

void gofmt_float(bh_buf *out, double v, char verb, int prec)
{
	char buf[512];
	if (verb == 'x' || verb == 'X') {
		if (isnan(v)) {
			bh_buf_puts(out, "NaN");
			return;
		}
		if (isinf(v)) {
			bh_buf_puts(out, v > 0 ? "+Inf" : "-Inf");
			return;
		}
		fmt_hexfloat(out, v, prec, verb);
		return;
	}
	if (verb == 'b') {
		if (isnan(v) || isinf(v)) {
			go_format_float(buf, sizeof buf, v, 'g', -1);
			bh_buf_puts(out, buf);
			return;
		}
		int e;
		double m = frexp(fabs(v), &e);
		uint64_t mant = v == 0 ? 0 : (uint64_t)ldexp(m, 53);
		if (signbit(v))
			bh_buf_putc(out, '-');
		bh_buf_printf(out, "%llup%+d", (unsigned long long)mant, v == 0 ? -1074 : e - 53);
		return;
	}
	if (verb == 'F')
		verb = 'f';
	if (prec > 400)
		prec = 400;
	if (prec < 0 && (verb == 'g' || verb == 'f')) {
		/* a whole number (%v of most numbers in values) */
		size_t k = go_format_whole_float(buf, v, verb == 'g' ? 1e6 : 1e300);
		if (k) {
			bh_buf_put(out, buf, k);
			return;
		}
	}
	go_format_float(buf, sizeof buf, v, verb, prec);
	if (prec >= 0 && (verb == 'g' || verb == 'G') && !isnan(v) && !isinf(v)) {
		/* C's %g and Go's agree except C prints "inf"; handled above */
	}
	bh_buf_puts(out, buf);
}

static void fmt_float(fstate *f, double v, char verb, int prec)
{
	bh_buf num = BH_BUF_INIT;
	if (f->precPresent)
		prec = f->prec;
	bh_buf_putc(&num, '+');
	gofmt_float(&num, v, verb, prec);
	char *s = num.data;
	size_t n = num.len;
	if (s[1] == '-' || s[1] == '+') {
		s++;
		n--;
	} else {
		s[0] = '+';
	}
	if (f->space && s[0] == '+' && !f->plus)
		s[0] = ' ';
	if (s[1] == 'I' || s[1] == 'N') {
		int oz = f->zero;
		f->zero = 0;
		if (s[1] == 'N' && !f->space && !f->plus) {
			s++;
			n--;
		}
		pad(f, s, n);
		f->zero = oz;
		bh_buf_free(&num);
		return;
	}
	if (f->sharp && verb != 'b') {
		/* Go's fmtFloat '#' handling, digit counting included */
		int digits = 0;
		if (verb == 'v' || verb == 'g' || verb == 'G' || verb == 'x') {
			digits = prec;
			if (digits == -1)
				digits = 6;
		}
		bh_buf t = BH_BUF_INIT, tail = BH_BUF_INIT;
		int has_dot = 0, nonzero = 0;
		size_t i, numlen = n;
		for (i = 1; i < numlen; i++) {
			char c = s[i];
			if (c == '.') {
				has_dot = 1;
			} else if (c == 'p' || c == 'P') {
				bh_buf_put(&tail, s + i, numlen - i);
				numlen = i;
				break;
			} else if ((c == 'e' || c == 'E') && verb != 'x' && verb != 'X') {
				bh_buf_put(&tail, s + i, numlen - i);
				numlen = i;
				break;
			} else {
				if (c != '0')
					nonzero = 1;
				if (nonzero)
					digits--;
			}
		}
		bh_buf_put(&t, s, numlen);
		if (!has_dot) {
			if (numlen == 2 && s[1] == '0')
				digits--;
			bh_buf_putc(&t, '.');
		}
		for (; digits > 0; digits--)
			bh_buf_putc(&t, '0');
		bh_buf_put(&t, bh_buf_str(&tail), tail.len);
		bh_buf_free(&tail);
		bh_buf_free(&num);
		num = t;
		s = num.data;
		n = num.len;
	}
	if (f->plus || s[0] != '+') {
		if (f->zero && !f->minus && f->widPresent && f->wid > (int)n) {
			bh_buf_putc(f->out, s[0]);
			write_padding(f, f->wid - (int)n);
			bh_buf_put(f->out, s + 1, n - 1);
		} else {
			pad(f, s, n);
		}
	} else {
		pad(f, s + 1, n - 1);
	}
	bh_buf_free(&num);
}

static void fmt_complex(fstate *f, double re, double im, char verb)
{
	int oldplus = f->plus;
	bh_buf_putc(f->out, '(');
	fmt_float(f, re, verb, verb == 'v' ? -1 : (verb == 'f' || verb == 'e' || verb == 'E' || verb == 'F') ? 6 : -1);
	f->plus = 1;
	fmt_float(f, im, verb, verb == 'v' ? -1 : (verb == 'f' || verb == 'e' || verb == 'E' || verb == 'F') ? 6 : -1);
	bh_buf_puts(f->out, "i)");
	f->plus = oldplus;
}

static size_t truncate_len(fstate *f, const char *s, size_t n)
{
	if (f->precPresent) {
		size_t i = 0;
		int sz, k = 0;
		while (i < n) {
			if (k == f->prec)
				return i;
			utf8_decode((const unsigned char *)s + i, n - i, &sz);
			i += (size_t)sz;
			k++;
		}
	}
	return n;
}

static void fmt_sbx(fstate *f, const char *s, size_t n, const char *digits)
{
	size_t length = n;
	int width;
	bh_buf tmp = BH_BUF_INIT;
	if (f->precPresent && f->prec < (int)length)
		length = (size_t)f->prec;
	width = 2 * (int)length;
	if (width > 0) {
		if (f->space) {
			if (f->sharp)
				width *= 2;
			width += (int)length - 1;
		} else if (f->sharp) {
			width += 2;
		}
	} else {
		if (f->widPresent)
			write_padding(f, f->wid);
		return;
	}
	if (f->widPresent && f->wid > width && !f->minus)
		write_padding(f, f->wid - width);
	bh_buf *b = &tmp;
	if (f->sharp) {
		bh_buf_putc(b, '0');
		bh_buf_putc(b, digits[16]);
	}
	for (size_t i = 0; i < length; i++) {
		if (f->space && i > 0) {
			bh_buf_putc(b, ' ');
			if (f->sharp) {
				bh_buf_putc(b, '0');
				bh_buf_putc(b, digits[16]);
			}
		}
		unsigned char c = (unsigned char)s[i];
		bh_buf_putc(b, digits[c >> 4]);
		bh_buf_putc(b, digits[c & 0xF]);
	}
	bh_buf_put(f->out, tmp.data, tmp.len);
	bh_buf_free(&tmp);
	if (f->widPresent && f->wid > width && f->minus)
		write_padding(f, f->wid - width);
}

static void fmt_q(fstate *f, const char *s, size_t n)
{
	bh_buf tmp = BH_BUF_INIT;
	n = truncate_len(f, s, n);
	if (f->sharp && can_backquote(s, n)) {
		bh_buf_putc(&tmp, '`');
		bh_buf_put(&tmp, s, n);
		bh_buf_putc(&tmp, '`');
	} else {
		go_quote(&tmp, s, n, '"', f->plus);
	}
	pad(f, bh_buf_str(&tmp), tmp.len);
	bh_buf_free(&tmp);
}

/* ---- print.go ---- */

static void print_value(fstate *f, const tmpl_value *v, char verb, int depth);
static void print_list_items(fstate *f, const tmpl_list *l, char verb, int depth);
static void print_map_entries(fstate *f, tmpl_map *m, char verb, int depth);

static void bad_verb(fstate *f, char verb, const tmpl_value *v)
{
	f->erroring = 1;
	bh_buf_puts(f->out, "%!");
	go_append_rune(f->out, (unsigned char)verb);
	bh_buf_putc(f->out, '(');
	if (v && !tmpl_value_is_nil(v)) {
		bh_buf_puts(f->out, tmpl_value_type_name(v));
		bh_buf_putc(f->out, '=');
		print_value(f, v, 'v', 0);
	} else {
		bh_buf_puts(f->out, "<nil>");
	}
	bh_buf_putc(f->out, ')');
	f->erroring = 0;
}

static void fmt_string(fstate *f, const char *s, size_t n, char verb, const tmpl_value *v)
{
	switch (verb) {
	case 'v':
		if (f->sharpV)
			fmt_q(f, s, n);
		else
			pad(f, s, truncate_len(f, s, n));
		break;
	case 's':
		pad(f, s, truncate_len(f, s, n));
		break;
	case 'x':
		fmt_sbx(f, s, n, "0123456789abcdefx");
		break;
	case 'X':
		fmt_sbx(f, s, n, "0123456789ABCDEFX");
		break;
	case 'q':
		fmt_q(f, s, n);
		break;
	default:
		bad_verb(f, verb, v);
	}
}

static void fmt_int_verb(fstate *f, uint64_t u, int is_signed, char verb, const tmpl_value *v)
{
	switch (verb) {
	case 'v':
		if (f->sharpV && !is_signed) {
			int s = f->sharp;
			f->sharp = 1;
			fmt_integer(f, u, 16, 0, verb, "0123456789abcdefx");
			f->sharp = s;
		} else {
			fmt_integer(f, u, 10, is_signed, verb, "0123456789abcdefx");
		}
		break;
	case 'd':
		fmt_integer(f, u, 10, is_signed, verb, "0123456789abcdefx");
		break;
	case 'b':
		fmt_integer(f, u, 2, is_signed, verb, "0123456789abcdefx");
		break;
	case 'o':
	case 'O':
		fmt_integer(f, u, 8, is_signed, verb, "0123456789abcdefx");
		break;
	case 'x':
		fmt_integer(f, u, 16, is_signed, verb, "0123456789abcdefx");
		break;
	case 'X':
		fmt_integer(f, u, 16, is_signed, verb, "0123456789ABCDEFX");
		break;
	case 'c':
		fmt_c(f, u);
		break;
	case 'q':
		fmt_qc(f, u);
		break;
	case 'U':
		fmt_unicode(f, u);
		break;
	default:
		bad_verb(f, verb, v);
	}
}

static void fmt_float_verb(fstate *f, double x, char verb, const tmpl_value *v)
{
	switch (verb) {
	case 'v':
		fmt_float(f, x, 'g', -1);
		break;
	case 'b': case 'g': case 'G': case 'x': case 'X':
		fmt_float(f, x, verb, -1);
		break;
	case 'f': case 'e': case 'E': case 'F':
		fmt_float(f, x, verb, 6);
		break;
	default:
		bad_verb(f, verb, v);
	}
}

/* Enters container p: 0, or -1 when p is already being printed (Go's fmt
 * would recurse until its stack overflows: helm dies with "fatal error:
 * stack overflow"). */
static int path_enter(fstate *f, fpath *node, const void *p)
{
	for (const fpath *q = f->run->path; q; q = q->up)
		if (q->p == p) {
			f->run->fail = GOFMT_ESELF;
			f->out->oom = 1;
			return -1;
		}
	node->p = p;
	node->up = f->run->path;
	f->run->path = node;
	return 0;
}

static void path_leave(fstate *f, const fpath *node)
{
	f->run->path = node->up;
}

static void print_list(fstate *f, const tmpl_value *v, char verb, int depth)
{
	const tmpl_list *l = v->u.list;
	fpath node;
	if (path_enter(f, &node, l))
		return;
	print_list_items(f, l, verb, depth);
	path_leave(f, &node);
}

static void print_list_items(fstate *f, const tmpl_list *l, char verb, int depth)
{
	if (f->sharpV) {
		bh_buf_puts(f->out, l->gotype);
		if (l->is_nil) {
			bh_buf_puts(f->out, "(nil)");
			return;
		}
		bh_buf_putc(f->out, '{');
		for (size_t i = 0; i < l->len; i++) {
			if (i > 0)
				bh_buf_puts(f->out, ", ");
			print_value(f, &l->items[i], verb, depth + 1);
		}
		bh_buf_putc(f->out, '}');
		return;
	}
	bh_buf_putc(f->out, '[');
	for (size_t i = 0; i < l->len; i++) {
		if (i > 0)
			bh_buf_putc(f->out, ' ');
		print_value(f, &l->items[i], verb, depth + 1);
	}
	bh_buf_putc(f->out, ']');
}

static void print_map(fstate *f, const tmpl_value *v, char verb, int depth)
{
	fpath node;
	if (path_enter(f, &node, v->u.map))
		return;
	print_map_entries(f, v->u.map, verb, depth);
	path_leave(f, &node);
}

static void print_map_entries(fstate *f, tmpl_map *m, char verb, int depth)
{
	tmpl_map_sort(m);
	if (f->sharpV) {
		bh_buf_puts(f->out, m->gotype);
		if (m->is_nil) {
			bh_buf_puts(f->out, "(nil)");
			return;
		}
		bh_buf_putc(f->out, '{');
	} else {
		bh_buf_puts(f->out, "map[");
	}
	for (size_t i = 0; i < m->len; i++) {
		if (i > 0)
			bh_buf_puts(f->out, f->sharpV ? ", " : " ");
		tmpl_value k = tmpl_str_static(m->entries[i].key, m->entries[i].keylen);
		print_value(f, &k, verb, depth + 1);
		bh_buf_putc(f->out, ':');
		print_value(f, &m->entries[i].val, verb, depth + 1);
	}
	bh_buf_putc(f->out, f->sharpV ? '}' : ']');
}

static int has_string_method(const tmpl_class *cls)
{
	if (cls->methods)
		for (const tmpl_method *m = cls->methods; m->name; m++)
			if (strcmp(m->name, "String") == 0)
				return 1;
	return 0;
}

static void print_struct(fstate *f, const tmpl_value *v, char verb, int depth)
{
	const tmpl_class *cls = v->u.obj->cls;
	if (f->sharpV)
		bh_buf_puts(f->out, cls->gotype[0] == '*' ? cls->gotype + 1 : cls->gotype);
	bh_buf_putc(f->out, '{');
	for (size_t i = 0; cls->go_fields[i]; i++) {
		tmpl_value fv = tmpl_invalid();
		if (i > 0)
			bh_buf_puts(f->out, f->sharpV ? ", " : " ");
		if (f->plusV || f->sharpV) {
			bh_buf_puts(f->out, cls->go_fields[i]);
			bh_buf_putc(f->out, ':');
		}
		if (cls->field)
			cls->field(v, cls->go_fields[i], &fv);
		print_value(f, &fv, verb, depth + 1);
	}
	bh_buf_putc(f->out, '}');
}

static void print_object(fstate *f, const tmpl_value *v, char verb, int depth)
{
	bh_buf tmp = BH_BUF_INIT;
	const tmpl_class *cls = v->u.obj->cls;
	if (cls->go_fields && (cls->ptr_stringer || !cls->format)) {
		if (cls->pointer) {
			if (depth > 0) {
				char addr[32];
				snprintf(addr, sizeof addr, "%p", (void *)v->u.obj);
				pad(f, addr, strlen(addr));
				return;
			}
			bh_buf_putc(f->out, '&');
			depth++;
		}
		print_struct(f, v, verb, depth);
		return;
	}
	if (depth > 0 && v->u.obj->cls->pointer && !has_string_method(v->u.obj->cls) &&
	    (verb == 'v' || verb == 'p')) {
		/* Go prints a nested pointer as its address */
		char addr[32];
		snprintf(addr, sizeof addr, "%p", (void *)v->u.obj);
		pad(f, addr, strlen(addr));
		return;
	}
	if (v->u.obj->cls->format)
		v->u.obj->cls->format(&tmp, v, f->plusV);
	switch (verb) {
	case 'v': case 's':
		pad(f, bh_buf_str(&tmp), truncate_len(f, bh_buf_str(&tmp), tmp.len));
		break;
	case 'q':
		fmt_q(f, bh_buf_str(&tmp), tmp.len);
		break;
	case 'x':
		fmt_sbx(f, bh_buf_str(&tmp), tmp.len, "0123456789abcdefx");
		break;
	case 'X':
		fmt_sbx(f, bh_buf_str(&tmp), tmp.len, "0123456789ABCDEFX");
		break;
	default:
		bad_verb(f, verb, v);
	}
	bh_buf_free(&tmp);
}

/* Values nested deeper than this print as "..." (Go has no limit; a C stack
 * does). Only templates that build absurdly deep dicts can reach it. */
#define GOFMT_MAX_DEPTH 2000
/* A single printf result larger than this marks the buffer out of memory. */
#define GOFMT_MAX_SPRINTF ((size_t)256 << 20)

static void print_value(fstate *f, const tmpl_value *v, char verb, int depth)
{
	if (f->run->fail)
		return;
	if (f->out->oom || f->out->len - f->run->start > GOFMT_MAX_SPRINTF) {
		/* stop: shared sub-values can multiply the text without bound */
		f->run->fail = GOFMT_ELARGE;
		f->out->oom = 1;
		return;
	}
	if (depth > GOFMT_MAX_DEPTH) {
		bh_buf_puts(f->out, "...");
		return;
	}
	switch (v->kind) {
	case TMPL_INVALID:
	case TMPL_NIL:
		if (depth == 0) {
			if (verb == 'v' || verb == 'T') {
				pad(f, "<nil>", 5);
			} else {
				bad_verb(f, verb, NULL);
			}
		} else if (f->sharpV) {
			bh_buf_puts(f->out, "interface {}(nil)");
		} else {
			bh_buf_puts(f->out, "<nil>"); /* Go writes it unpadded here */
		}
		return;
	case TMPL_BOOL:
		if (verb == 't' || verb == 'v')
			fmt_bool(f, v->u.b);
		else
			bad_verb(f, verb, v);
		return;
	case TMPL_INT:
	case TMPL_INT64:
		fmt_int_verb(f, (uint64_t)v->u.i, 1, verb, v);
		return;
	case TMPL_UINT8:
	case TMPL_UINT64:
		fmt_int_verb(f, v->u.u, 0, verb, v);
		return;
	case TMPL_FLOAT64:
		fmt_float_verb(f, v->u.f, verb, v);
		return;
	case TMPL_COMPLEX:
		switch (verb) {
		case 'v': case 'b': case 'g': case 'G': case 'x': case 'X': case 'f': case 'F':
		case 'e': case 'E':
			fmt_complex(f, v->u.c.re, v->u.c.im, verb == 'v' ? 'g' : verb);
			break;
		default:
			bad_verb(f, verb, v);
		}
		return;
	case TMPL_STRING:
		fmt_string(f, v->u.s.ptr, v->u.s.len, verb, v);
		return;
	case TMPL_BYTES:
		if (verb == 's' || verb == 'q' || verb == 'x' || verb == 'X') {
			fmt_string(f, v->u.s.ptr, v->u.s.len, verb, v);
			return;
		}
		if (verb != 'v' && verb != 'd' && verb != 'b' && verb != 'o' && verb != 'O' &&
		    verb != 'c' && verb != 'U') {
			bad_verb(f, verb, v);
			return;
		}
		if (f->sharpV && v->view) {
			bh_buf_puts(f->out, "[]byte(nil)");
			return;
		}
		if (f->sharpV) {
			bh_buf_puts(f->out, "[]byte{");
			for (size_t i = 0; i < v->u.s.len; i++) {
				if (i)
					bh_buf_puts(f->out, ", ");
				bh_buf_printf(f->out, "0x%x", (unsigned char)v->u.s.ptr[i]);
			}
			bh_buf_putc(f->out, '}');
			return;
		}
		bh_buf_putc(f->out, '[');
		for (size_t i = 0; i < v->u.s.len; i++) {
			if (i)
				bh_buf_putc(f->out, ' ');
			fmt_int_verb(f, (unsigned char)v->u.s.ptr[i], 0, verb == 'v' ? 'd' : verb, v);
		}
		bh_buf_putc(f->out, ']');
		return;
	case TMPL_LIST:
		print_list(f, v, verb, depth);
		return;
	case TMPL_MAP:
		print_map(f, v, verb, depth);
		return;
	case TMPL_OBJECT:
		print_object(f, v, verb, depth);
		return;
	}
}

/* %p of a map, slice or pointer is its address in Go (fmtPointer: %#x,
 * or plain hex with '#'), and 0x0 when nil; anything else is a bad verb.
 * Go's heap addresses differ on every run (0xc000026c30), so the address
 * printed has their shape: 0xc000000000 plus the low bits of ours. An
 * empty slice points at the Go runtime's zerobase, a fixed address of the
 * helm binary (GO_ZEROBASE: helm 4.1.4's). */
#define GO_ZEROBASE 0x4029440u
static void fmt_pointer(fstate *f, const tmpl_value *v)
{
	const void *p;
	uint64_t u;
	int sharp = f->sharp, zerobase = 0;
	switch (v->kind) {
	case TMPL_MAP:
		p = v->u.map->is_nil ? NULL : (const void *)v->u.map;
		break;
	case TMPL_LIST:
		p = v->u.list->is_nil ? NULL : (const void *)v->u.list;
		zerobase = p && !v->u.list->len;
		break;
	case TMPL_BYTES:
		p = v->u.s.ptr;
		zerobase = p && !v->u.s.len;
		break;
	case TMPL_OBJECT:
		if (v->u.obj->cls->pointer) {
			p = v->u.obj;
			break;
		}
		/* fall through */
	default:
		bad_verb(f, 'p', v);
		return;
	}
	u = zerobase ? GO_ZEROBASE : p ? 0xc000000000u | ((uintptr_t)p & 0xfffff8u) : 0;
	f->sharp = !sharp;
	fmt_integer(f, u, 16, 0, 'v', "0123456789abcdefx");
	f->sharp = sharp;
}

static void print_arg(fstate *f, const tmpl_value *v, char verb)
{
	if (tmpl_value_is_nil(v)) {
		if (verb == 'T' || verb == 'v')
			pad(f, "<nil>", 5);
		else
			bad_verb(f, verb, NULL);
		return;
	}
	if (verb == 'T') {
		const char *t = tmpl_value_type_name(v);
		fmt_string(f, t, strlen(t), 's', NULL);
		return;
	}
	if (verb == 'p') {
		fmt_pointer(f, v);
		return;
	}
	print_value(f, v, verb, 0);
}

static void fstate_init(fstate *f, bh_buf *out, frun *run)
{
	memset(f, 0, sizeof(*f));
	f->out = out;
	f->run = run;
}

static void frun_init(frun *run, const bh_buf *out)
{
	memset(run, 0, sizeof *run);
	run->start = out->len;
}

const char *gofmt_strerror(int rc)
{
	switch (rc) {
	case GOFMT_ESELF:
		return "a map or list that contains itself cannot be printed";
	case GOFMT_ELARGE:
		return "the printed text is larger than 256 MiB";
	default:
		return "ok";
	}
}

int gofmt_value(bh_buf *out, const tmpl_value *v)
{
	fstate f;
	frun run;
	if (v->kind == TMPL_STRING) { /* print_value's %v of a string: itself */
		if (out->oom)
			return GOFMT_ELARGE;
		bh_buf_put(out, v->u.s.ptr, v->u.s.len);
		return 0;
	}
	frun_init(&run, out);
	fstate_init(&f, out, &run);
	print_arg(&f, v, 'v');
	return run.fail;
}

static int is_string_arg(const tmpl_value *v)
{
	return v->kind == TMPL_STRING;
}

int gofmt_sprint(bh_buf *out, const tmpl_value *args, int n)
{
	int prev_string = 0, rc = 0;
	for (int i = 0; i < n && !rc; i++) {
		int is_str = is_string_arg(&args[i]);
		if (i > 0 && !is_str && !prev_string)
			bh_buf_putc(out, ' ');
		rc = gofmt_value(out, &args[i]);
		prev_string = is_str;
	}
	return rc;
}

int gofmt_sprintln(bh_buf *out, const tmpl_value *args, int n)
{
	int rc = 0;
	for (int i = 0; i < n && !rc; i++) {
		if (i > 0)
			bh_buf_putc(out, ' ');
		rc = gofmt_value(out, &args[i]);
	}
	bh_buf_putc(out, '\n');
	return rc;
}

/* parsenum: digits at s[*i..end) */
static int parse_num(const char *s, size_t end, size_t *i, int *num)
{
	int isnum = 0;
	*num = 0;
	while (*i < end && s[*i] >= '0' && s[*i] <= '9') {
		if (*num > 1000000) {
			/* Go's tooLarge: give up on the rest of the format */
			*num = 0;
			*i = end;
			return 0;
		}
		*num = *num * 10 + (s[*i] - '0');
		isnum = 1;
		(*i)++;
	}
	return isnum;
}

int gofmt_sprintf(bh_buf *out, const char *format, size_t end,
		  const tmpl_value *args, int nargs)
{
	fstate f;
	frun run;
	int argNum = 0, afterIndex = 0, reordered = 0, goodArgNum = 1;
	size_t i = 0;
	size_t start_len = out->len;
	frun_init(&run, out);
	fstate_init(&f, out, &run);
	while (i < end && !run.fail) {
		if (out->len - start_len > GOFMT_MAX_SPRINTF) {
			/* stop: the caller's memory budget will refuse it anyway */
			out->oom = 1;
			run.fail = GOFMT_ELARGE;
			break;
		}
		goodArgNum = 1;
		size_t lasti = i;
		while (i < end && format[i] != '%')
			i++;
		if (i > lasti)
			bh_buf_put(out, format + lasti, i - lasti);
		if (i >= end)
			break;
		i++; /* skip % */
		fstate_init(&f, out, &run);
		/* flags */
		for (; i < end; i++) {
			char c = format[i];
			if (c == '#') f.sharp = 1;
			else if (c == '0') f.zero = !f.minus;
			else if (c == '+') f.plus = 1;
			else if (c == '-') { f.minus = 1; f.zero = 0; }
			else if (c == ' ') f.space = 1;
			else break;
		}
		/* argument index */
#define ARG_NUMBER()                                                                 \
	do {                                                                         \
		afterIndex = 0;                                                      \
		if (i < end && format[i] == '[') {                                   \
			reordered = 1;                                               \
			size_t j;                                                    \
			int ok = 0, idx = 0;                                         \
			for (j = i + 1; j < end; j++) {                              \
				if (format[j] == ']') {                              \
					size_t k = i + 1;                            \
					int w;                                       \
					int isn = parse_num(format, j, &k, &w);      \
					if (isn && k == j) {                          \
						idx = w - 1;                         \
						ok = 1;                              \
					}                                            \
					break;                                       \
				}                                                    \
			}                                                            \
			if (j >= end) {                                              \
				goodArgNum = 0;                                      \
				i++;                                                 \
			} else {                                                     \
				if (ok && idx >= 0 && idx < nargs) {                 \
					argNum = idx;                                \
					afterIndex = 1;                              \
				} else {                                             \
					goodArgNum = 0;                              \
				}                                                    \
				i = j + 1;                                           \
			}                                                            \
		}                                                                    \
	} while (0)
		ARG_NUMBER();
		/* width */
		if (i < end && format[i] == '*') {
			i++;
			if (argNum < nargs && (args[argNum].kind == TMPL_INT || args[argNum].kind == TMPL_INT64 ||
					       args[argNum].kind == TMPL_UINT8 || args[argNum].kind == TMPL_UINT64)) {
				int64_t w = args[argNum].kind == TMPL_UINT8 || args[argNum].kind == TMPL_UINT64
						    ? (int64_t)args[argNum].u.u : args[argNum].u.i;
				if (w > 1000000 || w < -1000000) {
					bh_buf_puts(out, "%!(BADWIDTH)");
					f.widPresent = 0;
				} else {
					f.wid = (int)w;
					f.widPresent = 1;
					if (w < 0) {
						f.minus = 1;
						f.zero = 0;
						f.wid = (int)-w;
					}
				}
				argNum++;
			} else {
				if (argNum < nargs)
					argNum++;
				bh_buf_puts(out, "%!(BADWIDTH)");
			}
			afterIndex = 0;
		} else {
			f.widPresent = parse_num(format, end, &i, &f.wid);
			if (afterIndex && f.widPresent)
				goodArgNum = 0;
		}
		/* precision */
		if (i + 1 <= end && i < end && format[i] == '.') {
			i++;
			if (afterIndex)
				goodArgNum = 0;
			ARG_NUMBER();
			if (i < end && format[i] == '*') {
				i++;
				if (argNum < nargs && (args[argNum].kind == TMPL_INT || args[argNum].kind == TMPL_INT64)) {
					int64_t p = args[argNum].u.i;
					if (p < 0 || p > 1000000) {
						f.precPresent = 0;
						if (p > 1000000)
							bh_buf_puts(out, "%!(BADPREC)");
					} else {
						f.prec = (int)p;
						f.precPresent = 1;
					}
					argNum++;
				} else {
					if (argNum < nargs)
						argNum++;
					bh_buf_puts(out, "%!(BADPREC)");
				}
				afterIndex = 0;
			} else {
				f.precPresent = parse_num(format, end, &i, &f.prec);
				if (!f.precPresent) {
					f.prec = 0;
					f.precPresent = 1;
				}
			}
		}
		if (!afterIndex)
			ARG_NUMBER();
		if (i >= end) {
			bh_buf_puts(out, "%!(NOVERB)");
			break;
		}
		int sz;
		int verb = utf8_decode((const unsigned char *)format + i, end - i, &sz);
		if (verb < 0)
			verb = 0xFFFD;
		i += (size_t)sz;
		if (verb == '%') {
			bh_buf_putc(out, '%');
			continue;
		}
		if (!goodArgNum) {
			bh_buf_puts(out, "%!");
			go_append_rune(out, verb);
			bh_buf_puts(out, "(BADINDEX)");
			continue;
		}
		if (argNum >= nargs) {
			bh_buf_puts(out, "%!");
			go_append_rune(out, verb);
			bh_buf_puts(out, "(MISSING)");
			continue;
		}
		if (verb == 'w')
			verb = 'v'; /* Sprintf treats %w like %v... but reports badverb */
		if (verb == 'v') {
			if (f.sharp) {
				f.sharp = 0;
				f.sharpV = 1;
			}
			if (f.plus) {
				f.plus = 0;
				f.plusV = 1;
			}
		}
		if (verb > 0x7F) {
			/* non-ASCII verbs are always bad */
			f.erroring = 1;
			bh_buf_puts(out, "%!");
			go_append_rune(out, verb);
			bh_buf_putc(out, '(');
			if (!tmpl_value_is_nil(&args[argNum])) {
				bh_buf_puts(out, tmpl_value_type_name(&args[argNum]));
				bh_buf_putc(out, '=');
				print_value(&f, &args[argNum], 'v', 0);
			} else {
				bh_buf_puts(out, "<nil>");
			}
			bh_buf_putc(out, ')');
			argNum++;
			continue;
		}
		print_arg(&f, &args[argNum], (char)verb);
		argNum++;
	}
	if (!reordered && argNum < nargs && !run.fail) {
		fstate_init(&f, out, &run);
		bh_buf_puts(out, "%!(EXTRA ");
		for (int k = argNum; k < nargs; k++) {
			if (k > argNum)
				bh_buf_puts(out, ", ");
			if (tmpl_value_is_nil(&args[k])) {
				bh_buf_puts(out, "<nil>");
			} else {
				bh_buf_puts(out, tmpl_value_type_name(&args[k]));
				bh_buf_putc(out, '=');
				print_arg(&f, &args[k], 'v');
			}
		}
		bh_buf_putc(out, ')');
	}
	return run.fail;
#undef ARG_NUMBER
}
