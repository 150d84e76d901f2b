/* tmpl/strconv.c — see strconv.h. */
#include "tmpl/strconv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int lower(int c)
{
	return c | 0x20;
}

/* Go's underscoreOK: underscores only between digits (or after a base
 * prefix). */
static int underscore_ok(const char *s, size_t n)
{
	char saw = '^';
	size_t i = 0;
	int hex = 0;
	if (n >= 1 && (s[0] == '-' || s[0] == '+')) {
		s++;
		n--;
	}
	if (n >= 2 && s[0] == '0' && (lower(s[1]) == 'b' || lower(s[1]) == 'o' || lower(s[1]) == 'x')) {
		i = 2;
		saw = '0';
		hex = lower(s[1]) == 'x';
	}
	for (; i < n; i++) {
		char c = s[i];
		if ((c >= '0' && c <= '9') || (hex && lower(c) >= 'a' && lower(c) <= 'f')) {
			saw = '0';
			continue;
		}
		if (c == '_') {
			if (saw != '0')
				return 0;
			saw = '_';
			continue;
		}
		if (saw == '_')
			return 0;
		saw = '!';
	}
	return saw != '_';
}

int go_parse_uint(const char *s, size_t n, int base, uint64_t *out)
{
	size_t i = 0;
	int base0 = base == 0, underscores = 0;
	uint64_t v = 0;
	*out = 0;
	if (n == 0)
		return -1;
	if (base == 0) {
		base = 10;
		if (s[0] == '0') {
			if (n >= 3 && lower(s[1]) == 'b') {
				base = 2;
				i = 2;
			} else if (n >= 3 && lower(s[1]) == 'o') {
				base = 8;
				i = 2;
			} else if (n >= 3 && lower(s[1]) == 'x') {
				base = 16;
				i = 2;
			} else {
				base = 8;
				i = 1;
			}
		}
	}
	int overflow = 0;
	for (; i < n; i++) {
		int c = (unsigned char)s[i], d;
		if (c == '_' && base0) {
			underscores = 1;
			continue;
		} else if (c >= '0' && c <= '9') {
			d = c - '0';
		} else if (lower(c) >= 'a' && lower(c) <= 'z') {
			d = lower(c) - 'a' + 10;
		} else {
			return -1;
		}
		if (d >= base)
			return -1;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			overflow = 1;
		else
			v = v * (uint64_t)base + (uint64_t)d;
	}
	if (underscores && !underscore_ok(s, n))
		return -1;
	if (overflow) {
		*out = UINT64_MAX;
		return -2;
	}
	*out = v;
	return 0;
}

int go_parse_int(const char *s, size_t n, int base, int64_t *out)
{
	int neg = 0, r;
	uint64_t u;
	*out = 0;
	if (n == 0)
		return -1;
	if (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-';
		s++;
		n--;
	}
	r = go_parse_uint(s, n, base, &u);
	if (r == -1)
		return -1;
	if (r == -2 || (!neg && u > (uint64_t)INT64_MAX) || (neg && u > (uint64_t)INT64_MAX + 1)) {
		*out = neg ? INT64_MIN : INT64_MAX;
		return -2;
	}
	*out = neg ? (int64_t)(0 - u) : (int64_t)u;
	return 0;
}

int go_parse_float(const char *s, size_t n, double *out)
{
	char buf[512];
	size_t i = 0, k = 0;
	int hex = 0, sawdigits = 0, sawp = 0, underscores = 0;
	*out = 0;
	if (n == 0 || n >= sizeof buf)
		return -1;
	/* special words */
	{
		size_t j = 0;
		int sign = 1;
		if (s[0] == '+' || s[0] == '-') {
			sign = s[0] == '-' ? -1 : 1;
			j = 1;
		}
		size_t rest = n - j;
		if ((rest == 3 || rest == 8) &&
		    (strncasecmp(s + j, "inf", 3) == 0 && (rest == 3 || strncasecmp(s + j, "infinity", 8) == 0))) {
			*out = sign * INFINITY;
			return 0;
		}
		if (rest == 3 && strncasecmp(s + j, "nan", 3) == 0 && j == 0) {
			*out = NAN;
			return 0;
		}
	}
	if (s[i] == '+' || s[i] == '-')
		buf[k++] = s[i++];
	if (n - i >= 2 && s[i] == '0' && lower(s[i + 1]) == 'x') {
		hex = 1;
		buf[k++] = s[i++];
		buf[k++] = s[i++];
	}
	int sawdot = 0, sawe = 0;
	for (; i < n; i++) {
		char c = s[i];
		if (c == '_') {
			underscores = 1;
			continue;
		}
		if (c >= '0' && c <= '9') {
			sawdigits = 1;
		} else if (hex && !sawp && lower(c) >= 'a' && lower(c) <= 'f') {
			sawdigits = 1;
		} else if (c == '.') {
			if (sawdot || sawe || sawp)
				return -1;
			sawdot = 1;
		} else if (!hex && lower(c) == 'e' && !sawe) {
			if (!sawdigits)
				return -1;
			sawe = 1;
			buf[k++] = c;
			if (i + 1 < n && (s[i + 1] == '+' || s[i + 1] == '-'))
				buf[k++] = s[++i];
			if (i + 1 >= n)
				return -1;
			continue;
		} else if (hex && lower(c) == 'p' && !sawp) {
			if (!sawdigits)
				return -1;
			sawp = 1;
			buf[k++] = c;
			if (i + 1 < n && (s[i + 1] == '+' || s[i + 1] == '-'))
				buf[k++] = s[++i];
			if (i + 1 >= n)
				return -1;
			continue;
		} else {
			return -1;
		}
		buf[k++] = c;
	}
	if (!sawdigits || (hex && !sawp))
		return -1;
	if (underscores && !underscore_ok(s, n))
		return -1;
	buf[k] = '\0';
	errno = 0;
	char *end;
	double v = strtod(buf, &end);
	if (*end != '\0')
		return -1;
	*out = v;
	if (errno == ERANGE && isinf(v))
		return -2;
	return 0;
}

static int unhex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (lower(c) >= 'a' && lower(c) <= 'f')
		return lower(c) - 'a' + 10;
	return -1;
}

static int utf8_dec(const unsigned char *s, size_t n, int *size)
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
	return -1;
}

static void put_rune(bh_buf *b, int r)
{
	if (r < 0x80) {
		bh_buf_putc(b, (char)r);
	} else if (r < 0x800) {
		bh_buf_putc(b, (char)(0xC0 | (r >> 6)));
		bh_buf_putc(b, (char)(0x80 | (r & 0x3F)));
	} else if (r < 0x10000) {
		bh_buf_putc(b, (char)(0xE0 | (r >> 12)));
		bh_buf_putc(b, (char)(0x80 | ((r >> 6) & 0x3F)));
		bh_buf_putc(b, (char)(0x80 | (r & 0x3F)));
	} else {
		bh_buf_putc(b, (char)(0xF0 | (r >> 18)));
		bh_buf_putc(b, (char)(0x80 | ((r >> 12) & 0x3F)));
		bh_buf_putc(b, (char)(0x80 | ((r >> 6) & 0x3F)));
		bh_buf_putc(b, (char)(0x80 | (r & 0x3F)));
	}
}

/* Decodes one (possibly escaped) character. *byte_val >= 0 when the escape
 * was \x or octal (a raw byte, not a rune). */
static int unquote_one(const char *s, size_t n, char quote, int *rune, int *byte_val, size_t *used)
{
	int c = (unsigned char)s[0];
	*byte_val = -1;
	if (c == quote && (quote == '\'' || quote == '"'))
		return -1;
	if (c >= 0x80) {
		int sz;
		int r = utf8_dec((const unsigned char *)s, n, &sz);
		if (r < 0)
			return -1;
		*rune = r;
		*used = (size_t)sz;
		return 0;
	}
	if (c != '\\') {
		*rune = c;
		*used = 1;
		return 0;
	}
	if (n <= 1)
		return -1;
	c = (unsigned char)s[1];
	*used = 2;
	switch (c) {
	case 'a': *rune = '\a'; return 0;
	case 'b': *rune = '\b'; return 0;
	case 'f': *rune = '\f'; return 0;
	case 'n': *rune = '\n'; return 0;
	case 'r': *rune = '\r'; return 0;
	case 't': *rune = '\t'; return 0;
	case 'v': *rune = '\v'; return 0;
	case 'x': case 'u': case 'U': {
		int len = c == 'x' ? 2 : c == 'u' ? 4 : 8, v = 0;
		if (n < (size_t)(2 + len))
			return -1;
		for (int j = 0; j < len; j++) {
			int x = unhex((unsigned char)s[2 + j]);
			if (x < 0)
				return -1;
			v = (v << 4) | x;
		}
		*used = (size_t)(2 + len);
		if (c == 'x') {
			*byte_val = v;
			*rune = v;
			return 0;
		}
		if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) || v < 0)
			return -1;
		*rune = v;
		return 0;
	}
	case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
		int v = c - '0';
		if (n < 4)
			return -1;
		for (int j = 2; j < 4; j++) {
			int x = (unsigned char)s[j] - '0';
			if (x < 0 || x > 7)
				return -1;
			v = (v << 3) | x;
		}
		if (v > 255)
			return -1;
		*used = 4;
		*byte_val = v;
		*rune = v;
		return 0;
	}
	case '\\':
		*rune = '\\';
		return 0;
	case '\'':
	case '"':
		if (c != quote)
			return -1;
		*rune = c;
		return 0;
	}
	return -1;
}

int go_unquote_char(const char *s, size_t n, char quote, int *rune, size_t *used)
{
	int bv;
	if (n == 0)
		return -1;
	return unquote_one(s, n, quote, rune, &bv, used);
}

int go_unquote(const char *s, size_t n, bh_buf *out)
{
	char quote;
	if (n < 2)
		return -1;
	quote = s[0];
	if (quote != s[n - 1])
		return -1;
	s++;
	n -= 2;
	if (quote == '`') {
		if (memchr(s, '`', n))
			return -1;
		/* copied in runs between the carriage returns Go drops */
		for (const char *e = s + n, *cr; s < e; s = cr + 1) {
			cr = memchr(s, '\r', (size_t)(e - s));
			bh_buf_put(out, s, cr ? (size_t)(cr - s) : (size_t)(e - s));
			if (!cr)
				break;
		}
		return 0;
	}
	if (quote != '"' && quote != '\'')
		return -1;
	size_t i = 0;
	if (quote == '"') {
		/* plain ASCII without escapes is its own value */
		while (i < n && s[i] != '\\' && s[i] != '\n' && s[i] != '"' &&
		       (unsigned char)s[i] < 0x80)
			i++;
		bh_buf_put(out, s, i);
	}
	int count = 0;
	while (i < n) {
		int r, bv;
		size_t used;
		if (s[i] == '\n')
			return -1;
		if (unquote_one(s + i, n - i, quote, &r, &bv, &used))
			return -1;
		if (bv >= 0 && quote == '"')
			bh_buf_putc(out, (char)bv);
		else
			put_rune(out, r);
		i += used;
		count++;
		if (quote == '\'' && i < n)
			return -1;
	}
	if (quote == '\'' && count != 1)
		return -1;
	bh_buf_putc(out, '\0');
	out->len--;
	return 0;
}

size_t go_format_whole_float(char *buf, double v, double lim)
{
	char tmp[24];
	size_t n = 0, k = 0;
	/* NaN fails the compare. Below 2^53 the neighbours of a whole number
	 * are at most 1 away, so its shortest digits are all of its digits;
	 * above, Go's shortest digits end in zeros the exact value lacks */
	if (!(fabs(v) < lim) || fabs(v) >= 9007199254740992.0 || (v == 0 && signbit(v)))
		return 0;
	int64_t i = (int64_t)v;
	if ((double)i != v)
		return 0;
	uint64_t u = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
	do {
		tmp[k++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (i < 0)
		buf[n++] = '-';
	while (k)
		buf[n++] = tmp[--k];
	return n;
}
