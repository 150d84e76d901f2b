/* lib/gostrconv.c — see gostrconv.h. */
#include "lib/gostrconv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gostrconv_print.h"
#include "lib/yaml_resolve.h"

int go_shortest_digits(double v, char digits[32], int *ndigits, int *dp)
{
	char tmp[64];
	int p, exp10;
	if (v == 0 || isinf(v) || isnan(v))
		return -1;
	v = fabs(v);
	for (p = 1; p <= 17; p++) {
		snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	/* tmp is "d.ddde[+-]XX" */
	{
		char *e = strchr(tmp, 'e');
		int k = 0;
		exp10 = atoi(e + 1);
		for (char *c = tmp; c < e; c++)
			if (*c >= '0' && *c <= '9')
				digits[k++] = *c;
		while (k > 1 && digits[k - 1] == '0')
			k--;
		digits[k] = '\0';
		*ndigits = k;
	}
	*dp = exp10 + 1;
	return 0;
}

static size_t put(char *buf, size_t n, size_t at, char c)
{
	if (at + 1 < n)
		buf[at] = c;
	return at + 1;
}

static size_t fmt_e(char *buf, size_t n, size_t at, const char *d, int nd, int dp, char ech)
{
	int exp = dp - 1, i;
	char eb[16];
	at = put(buf, n, at, d[0]);
	if (nd > 1) {
		at = put(buf, n, at, '.');
		for (i = 1; i < nd; i++)
			at = put(buf, n, at, d[i]);
	}
	at = put(buf, n, at, ech);
	at = put(buf, n, at, exp < 0 ? '-' : '+');
	snprintf(eb, sizeof eb, "%02d", exp < 0 ? -exp : exp);
	for (i = 0; eb[i]; i++)
		at = put(buf, n, at, eb[i]);
	return at;
}

static size_t fmt_f(char *buf, size_t n, size_t at, const char *d, int nd, int dp)
{
	int i, frac;
	if (dp > 0) {
		for (i = 0; i < dp; i++)
			at = put(buf, n, at, i < nd ? d[i] : '0');
	} else {
		at = put(buf, n, at, '0');
	}
	frac = nd - dp;
	if (frac > 0) {
		at = put(buf, n, at, '.');
		for (i = 0; i < frac; i++) {
			int j = dp + i;
			at = put(buf, n, at, (j >= 0 && j < nd) ? d[j] : '0');
		}
	}
	return at;
}

int go_format_float(char *buf, size_t n, double v, char fmt, int prec)
{
	char d[32];
	int nd, dp;
	size_t at = 0;
	if (isnan(v))
		return snprintf(buf, n, "NaN");
	if (isinf(v))
		return snprintf(buf, n, v > 0 ? "+Inf" : "-Inf");
	if (prec >= 0) {
		char f[8];
		snprintf(f, sizeof f, "%%.*%c", fmt);
		return snprintf(buf, n, f, prec, v);
	}
	if (signbit(v))
		at = put(buf, n, at, '-');
	if (v == 0) {
		d[0] = '0';
		d[1] = '\0';
		nd = 1;
		dp = 1;
	} else {
		go_shortest_digits(v, d, &nd, &dp);
	}
	switch (fmt) {
	case 'e':
	case 'E':
		at = fmt_e(buf, n, at, d, nd, dp, fmt);
		break;
	case 'f':
		at = fmt_f(buf, n, at, d, nd, dp);
		break;
	default: { /* 'g'/'G', shortest: Go decides with precision 6 */
		int exp = dp - 1;
		if (exp < -4 || exp >= 6)
			at = fmt_e(buf, n, at, d, nd, dp, fmt == 'G' ? 'E' : 'e');
		else
			at = fmt_f(buf, n, at, d, nd, dp);
		break;
	}
	}
	if (n)
		buf[at < n ? at : n - 1] = '\0';
	return (int)at;
}

int go_unhex(unsigned c)
{
	if (c >= '0' && c <= '9')
		return (int)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (int)(c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (int)(c - 'A' + 10);
	return -1;
}

int go_is_print(int32_t r)
{
	/* ASCII and Latin-1 directly: U+0020..U+007E, and U+00A1..U+00FF but
	 * the soft hyphen U+00AD (Cf) */
	if (r < 0x100)
		return (r >= 0x20 && r < 0x7F) || (r >= 0xA1 && r != 0xAD);
	if (r > 0x10FFFF)
		return 0;
	size_t lo = 0, hi = go_print_len;
	while (lo < hi) { /* the first range whose last code point is >= r */
		size_t mid = lo + (hi - lo) / 2;
		if (go_print[mid][1] < (uint32_t)r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < go_print_len && go_print[lo][0] <= (uint32_t)r;
}

void go_append_rune(bh_buf *b, int32_t r)
{
	char u[4];
	if (r < 0 || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF))
		r = 0xFFFD;
	if (r < 0x80) {
		bh_buf_putc(b, (char)r);
		return;
	}
	if (r < 0x800) {
		u[0] = (char)(0xC0 | (r >> 6));
		u[1] = (char)(0x80 | (r & 0x3F));
		bh_buf_put(b, u, 2);
	} else if (r < 0x10000) {
		u[0] = (char)(0xE0 | (r >> 12));
		u[1] = (char)(0x80 | ((r >> 6) & 0x3F));
		u[2] = (char)(0x80 | (r & 0x3F));
		bh_buf_put(b, u, 3);
	} else {
		u[0] = (char)(0xF0 | (r >> 18));
		u[1] = (char)(0x80 | ((r >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((r >> 6) & 0x3F));
		u[3] = (char)(0x80 | (r & 0x3F));
		bh_buf_put(b, u, 4);
	}
}

/* \<esc> then v as ndigits lower-case hex digits (printf is most of the
 * cost of quoting a string full of escapes) */
static void put_hex_escape(bh_buf *b, char esc, uint32_t v, int ndigits)
{
	static const char hx[] = "0123456789abcdef";
	char t[10];
	t[0] = '\\';
	t[1] = esc;
	for (int k = ndigits - 1; k >= 0; k--, v >>= 4)
		t[2 + k] = hx[v & 15];
	bh_buf_put(b, t, (size_t)ndigits + 2);
}

void go_quote_rune(bh_buf *b, int32_t r, char quote, int ascii_only)
{
	static const char esc[] = "\aa\bb\ff\nn\rr\tt\vv";
	if (r == quote || r == '\\') {
		bh_buf_putc(b, '\\');
		bh_buf_putc(b, (char)r);
		return;
	}
	if ((!ascii_only || r < 0x80) && go_is_print(r)) {
		go_append_rune(b, r);
		return;
	}
	for (const char *e = esc; *e; e += 2)
		if (r == *e) {
			bh_buf_putc(b, '\\');
			bh_buf_putc(b, e[1]);
			return;
		}
	if (r < 0x20 || r == 0x7F)
		put_hex_escape(b, 'x', (uint32_t)r, 2);
	else if (r < 0x10000)
		put_hex_escape(b, 'u', (uint32_t)r, 4);
	else
		put_hex_escape(b, 'U', (uint32_t)r, 8);
}

void go_quote(bh_buf *b, const char *s, size_t n, char quote, int ascii_only)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	bh_buf_putc(b, quote);
	while (i < n) {
		/* a run of printable ASCII other than the quote and '\\' is written
		 * as it is (what go_quote_rune does per rune) */
		size_t j = i;
		while (j < n && u[j] >= ' ' && u[j] < 0x7F && u[j] != (unsigned char)quote && u[j] != '\\')
			j++;
		if (j > i) {
			bh_buf_put(b, s + i, j - i);
			i = j;
			continue;
		}
		int32_t r;
		int sz = utf8_rune_go(u + i, n - i, &r);
		if (r < 0)
			put_hex_escape(b, 'x', u[i], 2);
		else
			go_quote_rune(b, r, quote, ascii_only);
		i += (size_t)sz;
	}
	bh_buf_putc(b, quote);
}
