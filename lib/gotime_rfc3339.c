/* lib/gotime_rfc3339.c — time.Parse(time.RFC3339, s) and time.Time's
 * MarshalJSON/UnmarshalJSON as Go 1.25 does them (see the header). The
 * parser follows Go's general parse() for the layout
 * "2006-01-02T15:04:05Z07:00" step by step, so its errors name the same
 * layout element and remaining value; Go's fast path accepts a subset of
 * what the general parser accepts, with the same result. */
#include "lib/gotime_rfc3339.h"

#include <stdio.h>
#include <string.h>

#include "lib/buf.h"

#define RFC3339 "2006-01-02T15:04:05Z07:00"

/* The byte length of the UTF-8 sequence at s[0..n) as Go's decoder reads
 * it (no surrogates, no overlong forms, at most U+10FFFF), 0 when invalid;
 * *r its rune. */
static size_t utf8_width(const unsigned char *s, size_t n, unsigned *r)
{
	unsigned c = s[0], lo = 0x80, hi = 0xBF;
	size_t w;
	if (c < 0x80) {
		*r = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		w = 2, *r = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		w = 3, *r = c & 0x0F;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		w = 4, *r = c & 0x07;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else {
		return 0;
	}
	if (n < w || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 1; i < w; i++) {
		if (i > 1 && (s[i] < 0x80 || s[i] > 0xBF))
			return 0;
		*r = (*r << 6) | (s[i] & 0x3F);
	}
	return w;
}

/* time's own quote(): '"' and '\\' escaped, every byte of a non-ASCII or
 * control rune as \xNN (an invalid byte alone, a real U+FFFD as 3 bytes). */
static void time_quote(bh_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	bh_buf_putc(b, '"');
	for (size_t i = 0; i < n;) {
		unsigned r;
		size_t w = utf8_width(u + i, n - i, &r);
		if (w == 1 && r >= ' ') {
			if (r == '"' || r == '\\')
				bh_buf_putc(b, '\\');
			bh_buf_putc(b, (char)r);
			i++;
			continue;
		}
		if (!w)
			w = 1;
		for (size_t j = 0; j < w; j++) {
			char e[4] = {'\\', 'x', hex[u[i + j] >> 4], hex[u[i + j] & 15]};
			bh_buf_put(b, e, 4);
		}
		i += w;
	}
	bh_buf_putc(b, '"');
}

/* a time.ParseError: with msg, "parsing time VALUE" msg; else "parsing
 * time VALUE as LAYOUT: cannot parse ELEM as LAYOUTELEM". */
static int parse_error(bh_error *err, const char *value, size_t vn, const char *layout_elem,
		       const char *elem, size_t en, const char *msg)
{
	bh_buf b = BH_BUF_INIT;
	int rc;
	bh_buf_puts(&b, "parsing time ");
	time_quote(&b, value, vn);
	if (msg) {
		bh_buf_puts(&b, msg);
	} else {
		bh_buf_puts(&b, " as ");
		time_quote(&b, RFC3339, strlen(RFC3339));
		bh_buf_puts(&b, ": cannot parse ");
		time_quote(&b, elem, en);
		bh_buf_puts(&b, " as ");
		time_quote(&b, layout_elem, strlen(layout_elem));
	}
	if (b.oom)
		rc = bh_error_set(err, BH_ENOMEM, "out of memory describing a time that does not parse");
	else
		rc = bh_error_set(err, BH_EINVAL, "%s", b.data);
	bh_buf_free(&b);
	return rc;
}

static int is_digit(const char *s, size_t n, size_t i)
{
	return i < n && s[i] >= '0' && s[i] <= '9';
}

/* time's getnum: one or two digits (fixed: exactly two); the count read,
 * 0 when there is no number */
static size_t getnum(const char *s, size_t n, int fixed, int *v)
{
	if (!is_digit(s, n, 0))
		return 0;
	if (!is_digit(s, n, 1)) {
		if (fixed)
			return 0;
		*v = s[0] - '0';
		return 1;
	}
	*v = (s[0] - '0') * 10 + (s[1] - '0');
	return 2;
}

static int days_in(int month, int year)
{
	static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (month == 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))
		return 29;
	return days[month - 1];
}

/* The steps of the layout: the literal before each element and the
 * element's text as ParseError names it. */
enum { F_YEAR, F_MONTH, F_DAY, F_HOUR, F_MIN, F_SEC, F_ZONE, F_END };
static const char *const step_prefix[] = {"", "-", "-", "T", ":", ":", "", ""};
static const char *const step_elem[] = {"2006", "01", "02", "15", "04", "05", "Z07:00", ""};

int rfc3339_parse(const char *s, size_t n, rfc3339_time *out, bh_error *err)
{
	rfc3339_time t = {0, -1, -1, 0, 0, 0, 0, 0};
	const char *v = s;
	size_t vn = n;
	for (int f = F_YEAR; f <= F_END; f++) {
		const char *prefix = step_prefix[f], *range = NULL;
		size_t pn = strlen(prefix), used = 0;
		int bad = 0, num = 0;
		for (size_t i = 0; i < pn; i++, v++, vn--)
			if (!vn || *v != prefix[i])
				return parse_error(err, s, n, prefix, v, vn, NULL);
		const char *hold = v;
		size_t holdn = vn;
		switch (f) {
		case F_YEAR:
			if (vn < 4 || !is_digit(v, vn, 0))
				bad = 1;
			for (size_t i = 0; !bad && i < 4; i++)
				if (!is_digit(v, vn, i))
					bad = 1; /* atoi's rest that is not a number */
				else
					t.year = t.year * 10 + (v[i] - '0');
			used = vn < 4 ? 0 : 4;
			break;
		case F_MONTH:
		case F_DAY:
		case F_HOUR:
		case F_MIN:
		case F_SEC:
			if (!(used = getnum(v, vn, f != F_HOUR, &num))) {
				bad = 1;
				num = 0;
			}
			if (f == F_MONTH)
				t.month = num, range = !bad && (num < 1 || num > 12) ? "month" : NULL;
			else if (f == F_DAY)
				t.day = num;
			else if (f == F_HOUR)
				t.hour = num, range = num >= 24 ? "hour" : NULL;
			else if (f == F_MIN)
				t.min = num, range = num >= 60 ? "minute" : NULL;
			else if (!bad && (t.sec = num) >= 60)
				range = "second";
			if (f == F_SEC && !bad && !range && vn - used >= 2 &&
			    (v[used] == '.' || v[used] == ',') && is_digit(v, vn, used + 1)) {
				/* a fraction the layout does not have: every digit
				 * taken, the first nine count */
				size_t k = used + 1;
				while (is_digit(v, vn, k))
					k++;
				for (size_t i = used + 1; i < used + 10; i++)
					t.nsec = t.nsec * 10 + (i < k ? v[i] - '0' : 0);
				used = k;
			}
			break;
		case F_ZONE: {
			int hr = 0, mm = 0;
			if (vn && v[0] == 'Z') {
				used = 1;
				break;
			}
			if (vn < 6 || v[3] != ':') {
				bad = 1;
				break;
			}
			used = 6;
			if (getnum(v + 1, 2, 1, &hr) != 2)
				bad = 1, hr = 0;
			else if (getnum(v + 4, 2, 1, &mm) != 2)
				bad = 1, mm = 0;
			if (hr > 24)
				range = "time zone offset hour";
			if (mm > 60)
				range = "time zone offset minute";
			t.offset = (hr * 60 + mm) * 60;
			if (v[0] == '-')
				t.offset = -t.offset;
			else if (v[0] != '+')
				bad = 1;
			break;
		}
		case F_END:
			if (vn) {
				bh_buf b = BH_BUF_INIT;
				bh_buf_puts(&b, ": extra text: ");
				time_quote(&b, v, vn);
				int rc = b.oom ? bh_error_set(err, BH_ENOMEM, "out of memory describing a time")
					       : parse_error(err, s, n, "", v, vn, b.data);
				bh_buf_free(&b);
				return rc;
			}
			break;
		}
		if (range) {
			char msg[64];
			snprintf(msg, sizeof msg, ": %s out of range", range);
			return parse_error(err, s, n, step_elem[f], NULL, 0, msg);
		}
		if (bad)
			return parse_error(err, s, n, step_elem[f], hold, holdn, NULL);
		v += used;
		vn -= used;
	}
	if (t.day < 1 || t.day > days_in(t.month, t.year))
		return parse_error(err, s, n, "", NULL, 0, ": day out of range");
	*out = t;
	return 0;
}

int rfc3339_unmarshal_json(const char *lit, size_t n, rfc3339_time *t, bh_error *err)
{
	if (n == 4 && !memcmp(lit, "null", 4))
		return 0;
	if (n < 2 || lit[0] != '"' || lit[n - 1] != '"')
		return bh_error_set(err, BH_EINVAL, "Time.UnmarshalJSON: input is not a JSON string");
	return rfc3339_parse(lit + 1, n - 2, t, err);
}

int rfc3339_format(const rfc3339_time *t, char buf[RFC3339_FORMAT_MAX], bh_error *err)
{
	int len = snprintf(buf, RFC3339_FORMAT_MAX, "%04d-%02d-%02dT%02d:%02d:%02d", t->year % 10000, t->month,
			   t->day, t->hour, t->min, t->sec);
	if (t->nsec > 0) {
		int ns = t->nsec, digits = 9;
		while (ns % 10 == 0)
			ns /= 10, digits--;
		len += snprintf(buf + len, (size_t)(RFC3339_FORMAT_MAX - len), ".%0*d", digits, ns);
	}
	int zone = (t->offset < 0 ? -t->offset : t->offset) / 60;
	if (!t->offset)
		snprintf(buf + len, (size_t)(RFC3339_FORMAT_MAX - len), "Z");
	else
		snprintf(buf + len, (size_t)(RFC3339_FORMAT_MAX - len), "%c%02d:%02d", t->offset < 0 ? '-' : '+',
			 zone / 60 % 100, zone % 60);
	if (t->year < 0 || t->year > 9999)
		return bh_error_set(err, BH_EINVAL, "Time.MarshalJSON: year outside of range [0,9999]");
	if (zone / 60 >= 24)
		return bh_error_set(err, BH_EINVAL, "Time.MarshalJSON: timezone hour outside of range [0,23]");
	return 0;
}
