/* lib/yaml_resolve.c — see yaml_resolve.h. Follows go.yaml.in/yaml/v2
 * resolve.go (v2.4) and the Go strconv/time functions it calls. */
#include "lib/yaml_resolve.h"

#include "lib/goregex_uni.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_PREFIX "tag:yaml.org,2002:"

/* ---- UTF-8 ------------------------------------------------------------------- */

int utf8_rune_go(const unsigned char *s, size_t n, int32_t *r)
{
	unsigned c = s[0];
	if (c < 0x80) {
		*r = (int32_t)c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF && n >= 2 && (s[1] & 0xC0) == 0x80) {
		*r = (int32_t)(((c & 0x1F) << 6) | (s[1] & 0x3F));
		return 2;
	}
	if (c >= 0xE0 && c <= 0xEF && n >= 3) {
		unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
		if (s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80) {
			*r = (int32_t)(((c & 0x0F) << 12) | ((s[1] & 0x3F) << 6) | (s[2] & 0x3F));
			return 3;
		}
	}
	if (c >= 0xF0 && c <= 0xF4 && n >= 4) {
		unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
		if (s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 && (s[3] & 0xC0) == 0x80) {
			*r = (int32_t)(((c & 0x07) << 18) | ((s[1] & 0x3F) << 12) |
				       ((s[2] & 0x3F) << 6) | (s[3] & 0x3F));
			return 4;
		}
	}
	*r = -1;
	return 1;
}

int utf8_check_go(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		int32_t r;
		if (u[i] < 0x80) {
			i++;
			continue;
		}
		i += (size_t)utf8_rune_go(u + i, n - i, &r);
		if (r < 0)
			return 0;
	}
	return 1;
}

void utf8_sanitize_go(bh_buf *out, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		int32_t r;
		int sz = utf8_rune_go(u + i, n - i, &r);
		if (r < 0)
			bh_buf_put(out, "\xEF\xBF\xBD", 3);
		else
			bh_buf_put(out, u + i, (size_t)sz);
		i += (size_t)sz;
	}
}

/* ---- strconv ------------------------------------------------------------------ */

/* strconv.ParseUint(s, 0, 64): 0 ok, -1 syntax, -2 range. */
static int go_parse_uint0(const char *s, size_t n, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;
	size_t i = 0;
	if (n == 0)
		return -1;
	if (s[0] == '0') {
		char l = n >= 3 ? (char)(s[1] | 0x20) : 0;
		if (l == 'b') {
			base = 2;
			i = 2;
		} else if (l == 'o') {
			base = 8;
			i = 2;
		} else if (l == 'x') {
			base = 16;
			i = 2;
		} else {
			base = 8;
			i = 1;
		}
	}
	for (; i < n; i++) {
		unsigned d;
		char c = s[i];
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
			d = (unsigned)((c | 0x20) - 'a' + 10);
		else
			return -1;
		if (d >= base)
			return -1;
		if (v > (UINT64_MAX - d) / base)
			return -2;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* strconv.ParseInt(s, 0, 64). */
static int go_parse_int0(const char *s, size_t n, int64_t *out)
{
	int neg = 0, rc;
	uint64_t u;
	if (n == 0)
		return -1;
	if (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-';
		s++;
		n--;
	}
	rc = go_parse_uint0(s, n, &u);
	if (rc)
		return rc;
	if (neg) {
		if (u > (uint64_t)1 << 63)
			return -2;
		*out = (int64_t)(0 - u);
	} else {
		if (u >= (uint64_t)1 << 63)
			return -2;
		*out = (int64_t)u;
	}
	return 0;
}

static int isdig(char c)
{
	return c >= '0' && c <= '9';
}

/* ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static int yaml_style_float(const char *s, size_t n)
{
	size_t i = 0, k;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	if (i < n && s[i] == '.') {
		i++;
		k = i;
		while (i < n && isdig(s[i]))
			i++;
		if (i == k)
			return 0;
	} else {
		k = i;
		while (i < n && isdig(s[i]))
			i++;
		if (i == k)
			return 0;
		if (i < n && s[i] == '.') {
			i++;
			while (i < n && isdig(s[i]))
				i++;
		}
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		k = i;
		while (i < n && isdig(s[i]))
			i++;
		if (i == k)
			return 0;
	}
	return i == n;
}

/* strconv.ParseFloat on text already known to be a decimal float literal;
 * -1 on overflow (ErrRange). */
static int parse_float(const char *s, size_t n, double *out)
{
	char tmp[128], *buf = tmp;
	double d;
	if (n >= sizeof tmp) {
		buf = malloc(n + 1);
		if (!buf)
			return -1;
	}
	memcpy(buf, s, n);
	buf[n] = '\0';
	d = strtod(buf, NULL);
	if (buf != tmp)
		free(buf);
	if (isinf(d))
		return -1;
	*out = d;
	return 0;
}

/* ---- time.Parse for goyaml's timestamp formats --------------------------------- */

static int getnum(const char *s, size_t n, size_t *i, int *v)
{
	if (*i >= n || !isdig(s[*i]))
		return -1;
	*v = s[*i] - '0';
	(*i)++;
	if (*i < n && isdig(s[*i])) {
		*v = *v * 10 + (s[*i] - '0');
		(*i)++;
	}
	return 0;
}

static int days_in(int month, int year)
{
	static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (month == 2 && ((year % 4 == 0 && year % 100 != 0) || year % 400 == 0))
		return 29;
	return d[month - 1];
}

/* layout: 0 = "2006-1-2T15:4:5.999999999Z07:00", 1 = same with 't',
 * 2 = "2006-1-2 15:4:5.999999999", 3 = "2006-1-2". */
static int parse_time(const char *s, size_t n, int layout)
{
	size_t i = 4;
	int year, month, day, h, m, sec;
	if (n < 4 || !isdig(s[0]) || !isdig(s[1]) || !isdig(s[2]) || !isdig(s[3]))
		return 0;
	year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
	if (i >= n || s[i++] != '-')
		return 0;
	if (getnum(s, n, &i, &month) || month < 1 || month > 12)
		return 0;
	if (i >= n || s[i++] != '-')
		return 0;
	if (getnum(s, n, &i, &day))
		return 0;
	if (layout == 3)
		goto end;
	if (i >= n || s[i++] != (layout == 0 ? 'T' : layout == 1 ? 't' : ' '))
		return 0;
	if (getnum(s, n, &i, &h) || h >= 24)
		return 0;
	if (i >= n || s[i++] != ':')
		return 0;
	if (getnum(s, n, &i, &m) || m >= 60)
		return 0;
	if (i >= n || s[i++] != ':')
		return 0;
	if (getnum(s, n, &i, &sec) || sec >= 60)
		return 0;
	if (i + 1 < n && (s[i] == '.' || s[i] == ',') && isdig(s[i + 1])) {
		i++;
		while (i < n && isdig(s[i]))
			i++;
	}
	if (layout <= 1) {
		if (i < n && s[i] == 'Z') {
			i++;
		} else {
			int zh, zm;
			if (n - i < 6 || (s[i] != '+' && s[i] != '-') || s[i + 3] != ':' ||
			    !isdig(s[i + 1]) || !isdig(s[i + 2]) || !isdig(s[i + 4]) || !isdig(s[i + 5]))
				return 0;
			zh = (s[i + 1] - '0') * 10 + (s[i + 2] - '0');
			zm = (s[i + 4] - '0') * 10 + (s[i + 5] - '0');
			if (zh > 24 || zm > 60)
				return 0;
			i += 6;
		}
	}
end:
	if (i != n)
		return 0;
	if (day < 1 || day > days_in(month, year))
		return 0;
	return 1;
}

static int is_timestamp(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && isdig(s[i]))
		i++;
	if (i != 4 || i == n || s[i] != '-')
		return 0;
	for (int l = 0; l < 4; l++)
		if (parse_time(s, n, l))
			return 1;
	return 0;
}

/* ---- resolve ----------------------------------------------------------------- */

/* goyaml.v2's resolve table: the words that are not strings, grouped by
 * their first letter in either case (word_range's ranges) */
static const struct resolve_word {
	unsigned char len;
	char text[7];
	enum yres_kind kind;
	signed char v; /* bool: 1/0; float: 0 NaN, 1 +Inf, -1 -Inf */
} resolve_words[] = {
	/* 0: y */
	{1, "y", YR_BOOL, 1}, {1, "Y", YR_BOOL, 1}, {3, "yes", YR_BOOL, 1}, {3, "Yes", YR_BOOL, 1},
	{3, "YES", YR_BOOL, 1},
	/* 5: t */
	{4, "true", YR_BOOL, 1}, {4, "True", YR_BOOL, 1}, {4, "TRUE", YR_BOOL, 1},
	/* 8: o */
	{2, "on", YR_BOOL, 1}, {2, "On", YR_BOOL, 1}, {2, "ON", YR_BOOL, 1},
	{3, "off", YR_BOOL, 0}, {3, "Off", YR_BOOL, 0}, {3, "OFF", YR_BOOL, 0},
	/* 14: n */
	{1, "n", YR_BOOL, 0}, {1, "N", YR_BOOL, 0}, {2, "no", YR_BOOL, 0}, {2, "No", YR_BOOL, 0},
	{2, "NO", YR_BOOL, 0}, {4, "null", YR_NULL, 0}, {4, "Null", YR_NULL, 0}, {4, "NULL", YR_NULL, 0},
	/* 22: f */
	{5, "false", YR_BOOL, 0}, {5, "False", YR_BOOL, 0}, {5, "FALSE", YR_BOOL, 0},
	/* 25: ~ */
	{1, "~", YR_NULL, 0},
	/* 26: . */
	{4, ".nan", YR_FLOAT, 0}, {4, ".NaN", YR_FLOAT, 0}, {4, ".NAN", YR_FLOAT, 0},
	{4, ".inf", YR_FLOAT, 1}, {4, ".Inf", YR_FLOAT, 1}, {4, ".INF", YR_FLOAT, 1},
	/* 32: + */
	{5, "+.inf", YR_FLOAT, 1}, {5, "+.Inf", YR_FLOAT, 1}, {5, "+.INF", YR_FLOAT, 1},
	/* 35: - */
	{5, "-.inf", YR_FLOAT, -1}, {5, "-.Inf", YR_FLOAT, -1}, {5, "-.INF", YR_FLOAT, -1},
	/* 38: < */
	{2, "<<", YR_MERGE, 0},
	/* 39 */
};

/* The entries of resolve_words that start with c: [*b, *e) */
static void word_range(char c, size_t *b, size_t *e)
{
	static const unsigned char lo[] = {0, 5, 8, 14, 22, 25, 26, 32, 35, 38, 39};
	static const char first[] = "ytonf~.+-<";
	const char *p = c ? strchr(first, c | (c >= 'A' && c <= 'Z' ? 0x20 : 0)) : NULL;
	size_t g = p ? (size_t)(p - first) : 0;
	*b = p ? lo[g] : 0;
	*e = p ? lo[g + 1] : 0;
}

static int lookup_map(const char *s, size_t n, yres *r)
{
	size_t b, e;
	if (n > 5) /* longer than every word */
		return 0;
	if (n == 0) {
		r->kind = YR_NULL;
		return 1;
	}
	word_range(s[0], &b, &e);
	for (size_t i = b; i < e; i++) {
		const struct resolve_word *w = &resolve_words[i];
		if (w->len != n || memcmp(s, w->text, n))
			continue;
		r->kind = w->kind;
		if (w->kind == YR_BOOL)
			r->b = w->v;
		else if (w->kind == YR_FLOAT)
			r->f = w->v ? w->v * INFINITY : NAN;
		return 1;
	}
	return 0;
}

static int tag_is(const char *tag, const char *shortname)
{
	size_t pl = strlen(TAG_PREFIX);
	return strncmp(tag, TAG_PREFIX, pl) == 0 && strcmp(tag + pl, shortname) == 0;
}

static enum yres_kind tag_kind(const char *tag)
{
	if (!*tag)
		return YR_OTHER;
	if (tag_is(tag, "str")) return YR_STR;
	if (tag_is(tag, "bool")) return YR_BOOL;
	if (tag_is(tag, "int")) return YR_INT;
	if (tag_is(tag, "float")) return YR_FLOAT;
	if (tag_is(tag, "null")) return YR_NULL;
	if (tag_is(tag, "timestamp")) return YR_TIMESTAMP;
	if (tag_is(tag, "binary")) return YR_BINARY;
	if (tag_is(tag, "merge")) return YR_MERGE;
	return YR_OTHER;
}

const char *yres_tag(const yres *r)
{
	switch (r->kind) {
	case YR_NULL: return TAG_PREFIX "null";
	case YR_BOOL: return TAG_PREFIX "bool";
	case YR_INT: case YR_UINT: return TAG_PREFIX "int";
	case YR_FLOAT: return TAG_PREFIX "float";
	case YR_TIMESTAMP: return TAG_PREFIX "timestamp";
	case YR_BINARY: return TAG_PREFIX "binary";
	case YR_MERGE: return TAG_PREFIX "merge";
	default: return TAG_PREFIX "str";
	}
}

static void resolve_plain(const char *tag, enum yres_kind tk, const char *s, size_t n, yres *r)
{
	char hint;
	r->kind = YR_STR;
	if (n == 0) {
		hint = 'N';
	} else {
		unsigned char c = (unsigned char)s[0];
		if (!yaml_plain_may_resolve(c))
			hint = 0;
		else if (c == '+' || c == '-')
			hint = 'S';
		else if (isdig((char)c))
			hint = 'D';
		else if (c == '.')
			hint = '.';
		else
			hint = 'M'; /* y n t f o (either case), ~ */
	}
	if (!hint || tk == YR_STR)
		return;
	if (lookup_map(s, n, r))
		return;
	if (hint == '.') {
		double f;
		if (yaml_style_float(s, n) && parse_float(s, n, &f) == 0) {
			r->kind = YR_FLOAT;
			r->f = f;
		}
		return;
	}
	if (hint == 'D' || hint == 'S') {
		char tmp[128], *plain = tmp;
		size_t pn = 0;
		int64_t iv;
		uint64_t uv;
		double f;
		if ((!*tag || tk == YR_TIMESTAMP) && is_timestamp(s, n)) {
			r->kind = YR_TIMESTAMP;
			return;
		}
		if (n >= sizeof tmp) {
			plain = malloc(n + 1);
			if (!plain)
				return;
		}
		for (size_t i = 0; i < n; i++)
			if (s[i] != '_')
				plain[pn++] = s[i];
		plain[pn] = '\0';
		if (go_parse_int0(plain, pn, &iv) == 0) {
			r->kind = YR_INT;
			r->i = iv;
		} else if (go_parse_uint0(plain, pn, &uv) == 0) {
			r->kind = YR_UINT;
			r->u = uv;
		} else if (yaml_style_float(plain, pn) && parse_float(plain, pn, &f) == 0) {
			r->kind = YR_FLOAT;
			r->f = f;
		}
		if (plain != tmp)
			free(plain);
	}
}

int yaml_resolve(const char *tag, const char *s, size_t n, yres *r)
{
	enum yres_kind tk = tag_kind(tag);
	memset(r, 0, sizeof *r);
	if (*tag && (tk == YR_OTHER || tk == YR_BINARY || tk == YR_MERGE)) {
		/* not a resolvable tag: the text stays as it is */
		r->kind = tk == YR_BINARY ? YR_BINARY : YR_OTHER;
		return 0;
	}
	resolve_plain(tag, tk, s, n, r);
	if (!*tag || tk == YR_STR)
		return 0;
	if (tk == r->kind || (tk == YR_INT && r->kind == YR_UINT))
		return 0;
	if (tk == YR_FLOAT && r->kind == YR_INT) {
		r->kind = YR_FLOAT;
		r->f = (double)r->i;
		return 0;
	}
	if (tk == YR_FLOAT && r->kind == YR_UINT)
		return -1; /* goyaml converts only int/int64, not uint64 */
	return -1;
}

int yaml_is_base60_float(const char *s, size_t n)
{
	/* ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$ */
	size_t i = 0;
	int groups = 0;
	if (n == 0 || !memchr(s, ':', n))
		return 0;
	if (s[0] == '+' || s[0] == '-')
		i++;
	if (i >= n || !isdig(s[i]))
		return 0;
	i++;
	while (i < n && (isdig(s[i]) || s[i] == '_'))
		i++;
	while (i < n && s[i] == ':') {
		size_t st = ++i, k = 0;
		while (i < n && isdig(s[i]) && k < 2) {
			i++;
			k++;
		}
		if (k == 0)
			return 0;
		if (k == 2 && s[st] > '5')
			return 0;
		groups++;
	}
	if (!groups)
		return 0;
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && (isdig(s[i]) || s[i] == '_'))
			i++;
	}
	return i == n;
}

/* ---- float32 shortest formatting ------------------------------------------------ */

int go_format_float32_g(char *buf, size_t n, double v)
{
	float f = (float)v;
	char tmp[64], digits[16];
	int nd = 0, exp10, p, dp, len = 0;
	char out[64];
	if (isinf(f))
		return snprintf(buf, n, "%s", f > 0 ? "+Inf" : "-Inf");
	if (isnan(f))
		return snprintf(buf, n, "NaN");
	if (f == 0)
		return snprintf(buf, n, "%s", signbit(f) ? "-0" : "0");
	for (p = 1; p <= 9; p++) {
		snprintf(tmp, sizeof tmp, "%.*e", p - 1, (double)fabsf(f));
		if (strtof(tmp, NULL) == fabsf(f))
			break;
	}
	{
		char *e = strchr(tmp, 'e');
		exp10 = atoi(e + 1);
		for (char *c = tmp; c < e; c++)
			if (isdig(*c))
				digits[nd++] = *c;
		while (nd > 1 && digits[nd - 1] == '0')
			nd--;
	}
	dp = exp10 + 1;
	if (signbit(f))
		out[len++] = '-';
	if (exp10 < -4 || exp10 >= 21 || exp10 >= 6) {
		out[len++] = digits[0];
		if (nd > 1) {
			out[len++] = '.';
			for (int i = 1; i < nd; i++)
				out[len++] = digits[i];
		}
		len += snprintf(out + len, sizeof out - (size_t)len, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
	} else if (dp <= 0) {
		out[len++] = '0';
		out[len++] = '.';
		for (int i = 0; i < -dp; i++)
			out[len++] = '0';
		for (int i = 0; i < nd; i++)
			out[len++] = digits[i];
	} else {
		for (int i = 0; i < dp || i < nd; i++) {
			if (i == dp)
				out[len++] = '.';
			out[len++] = i < nd ? digits[i] : '0';
		}
	}
	out[len] = '\0';
	return snprintf(buf, n, "%s", out);
}

/* ---- goyaml's map key order (sorter.go keyList.Less, string keys) ---------- */

/* unicode.IsLetter: Go's category L (Unicode 15.0) */
static int rune_is_letter(int32_t r)
{
	if (r < 0x80)
		return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z');
	return r >= 0 && goregex_uni_category((uint32_t)r)[0] == 'L';
}

/* unicode.IsDigit: Go's category Nd */
static int rune_is_digit(int32_t r)
{
	if (r < 0x80)
		return r >= '0' && r <= '9';
	return r >= 0 && !strcmp(goregex_uni_category((uint32_t)r), "Nd");
}

int yaml_key_less(const int32_t *ar, size_t an, const int32_t *br, size_t bn, int v3)
{
	int digits = 0; /* v3: the runes before the difference ended in a digit */
	for (size_t i = 0; i < an && i < bn; i++) {
		int al, bl;
		size_t ai, bi;
		/* Go's int64 arithmetic wraps; do it unsigned, compare signed */
		uint64_t anum = 0, bnum = 0;
		if (ar[i] == br[i]) {
			digits = rune_is_digit(ar[i]);
			continue;
		}
		al = rune_is_letter(ar[i]);
		bl = rune_is_letter(br[i]);
		if (al && bl)
			return ar[i] < br[i];
		if (al || bl)
			return v3 && digits ? al : bl;
		if (ar[i] == '0' || br[i] == '0') {
			for (size_t j = i; j-- > 0 && rune_is_digit(ar[j]);) {
				if (ar[j] != '0') {
					anum = 1;
					bnum = 1;
					break;
				}
			}
		}
		for (ai = i; ai < an && rune_is_digit(ar[ai]); ai++)
			anum = anum * 10 + (uint64_t)(ar[ai] - '0');
		for (bi = i; bi < bn && rune_is_digit(br[bi]); bi++)
			bnum = bnum * 10 + (uint64_t)(br[bi] - '0');
		if (anum != bnum)
			return (int64_t)anum < (int64_t)bnum;
		if (ai != bi)
			return ai < bi;
		return ar[i] < br[i];
	}
	return an < bn;
}
