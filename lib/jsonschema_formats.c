/* lib/jsonschema_formats.c — see jsonschema_formats.h. Messages follow v6's
 * formats.go and the Go standard-library errors it passes on. */
#include "lib/jsonschema_formats.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/goregex.h"
#include "lib/gostrconv.h"
#include "lib/yaml_resolve.h"

/* time's own quote (time/format.go), for its ParseError: ASCII as it is
 * but '"' and '\\' escaped, and every byte of a control character or of a
 * non-ASCII rune (valid or not) as \xNN; DEL stays as it is */
static void time_quote(bh_buf *b, const char *s, size_t n)
{
	bh_buf_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < ' ' || c >= 0x80) {
			bh_buf_printf(b, "\\x%02x", c);
			continue;
		}
		if (c == '"' || c == '\\')
			bh_buf_putc(b, '\\');
		bh_buf_putc(b, (char)c);
	}
	bh_buf_putc(b, '"');
}

/* Go's %q of a string */
static void str_quote(bh_buf *b, const char *s, size_t n)
{
	go_quote(b, s, n, '"', 0);
}

/* Go's %q of a rune */
static void rune_quote(bh_buf *b, int32_t r)
{
	bh_buf_putc(b, '\'');
	go_quote_rune(b, r, '\'', 0);
	bh_buf_putc(b, '\'');
}

static int fail(bh_buf *why, const char *msg)
{
	bh_buf_puts(why, msg);
	return 1;
}

static int isdig(char c)
{
	return c >= '0' && c <= '9';
}

static int json_pointer(const char *s, size_t n, bh_buf *why)
{
	size_t i = 0;
	if (n == 0)
		return 0;
	if (s[0] != '/')
		return fail(why, "not starting with /");
	while (i < n) {
		int esc = 0;
		i++; /* the '/' */
		while (i < n && s[i] != '/') {
			int32_t r;
			int sz = utf8_rune_go((const unsigned char *)s + i, n - i, &r);
			if (r < 0)
				r = 0xFFFD;
			if (esc) {
				esc = 0;
				if (r != '0' && r != '1')
					return fail(why, "~ must be followed by 0 or 1");
			} else if (r == '~') {
				esc = 1;
			} else if (!((r >= 0 && r <= 0x2E) || (r >= 0x30 && r <= 0x7D) || r >= 0x7F)) {
				bh_buf_puts(why, "invalid character ");
				rune_quote(why, r);
				return 1;
			}
			i += (size_t)sz;
		}
		if (esc)
			return fail(why, "~ must be followed by 0 or 1");
	}
	return 0;
}

static int rel_json_pointer(const char *s, size_t n, bh_buf *why)
{
	size_t d = 0;
	while (d < n && isdig(s[d]))
		d++;
	if (d == 0)
		return fail(why, "must start with non-negative integer");
	if (d > 1 && s[0] == '0')
		return fail(why, "starts with zero");
	if (n - d == 1 && s[d] == '#')
		return 0;
	return json_pointer(s + d, n - d, why);
}

static int uuid(const char *s, size_t n, bh_buf *why)
{
	static const size_t groups[] = {8, 4, 4, 4, 12};
	size_t g = 0, start = 0, count = 1;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '-')
			count++;
	if (count != 5) {
		bh_buf_printf(why, "must have %d elements", 5);
		return 1;
	}
	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '-')
			continue;
		if (i - start != groups[g]) {
			bh_buf_printf(why, "element %zu must be %zu characters long", g + 1, groups[g]);
			return 1;
		}
		for (size_t k = start; k < i;) {
			int32_t r;
			int sz = utf8_rune_go((const unsigned char *)s + k, n - k, &r);
			if (!(isdig((char)r) || (r >= 'a' && r <= 'f') || (r >= 'A' && r <= 'F'))) {
				bh_buf_puts(why, "non-hex character ");
				rune_quote(why, r < 0 ? 0xFFFD : r);
				return 1;
			}
			k += (size_t)sz;
		}
		g++;
		start = i + 1;
	}
	return 0;
}

static int duration(const char *s, size_t n, bh_buf *why)
{
	static const char *const all[] = {"YMD", "HMS"};
	size_t i = 0, part = 0;
	if (n == 0 || s[0] != 'P')
		return fail(why, "must start with P");
	s++;
	n--;
	if (n == 0)
		return fail(why, "nothing after P");
	if (s[n - 1] == 'W') {
		if (n == 1)
			return fail(why, "no number in week");
		for (i = 0; i + 1 < n; i++)
			if (!isdig(s[i]))
				return fail(why, "invalid week");
		return 0;
	}
	/* split on 'T' */
	while (1) {
		size_t e = i;
		const char *units;
		while (e < n && s[e] != 'T')
			e++;
		if (part != 0 && e == i)
			return fail(why, "no time elements");
		if (part >= 2)
			return fail(why, "more than one T");
		units = all[part];
		while (i < e) {
			size_t d = i;
			const char *j;
			while (d < e && isdig(s[d]))
				d++;
			if (d == i)
				return fail(why, "missing number");
			if (d == e)
				return fail(why, "missing unit");
			j = strchr(units, s[d]);
			if (!j || !s[d]) {
				if (strchr(all[part], s[d]) && s[d]) {
					bh_buf_puts(why, "unit ");
					rune_quote(why, (unsigned char)s[d]);
					bh_buf_puts(why, " out of order");
				} else {
					bh_buf_puts(why, "invalid unit ");
					rune_quote(why, (unsigned char)s[d]);
				}
				return 1;
			}
			units = j + 1;
			i = d + 1;
		}
		if (e >= n)
			break;
		i = e + 1;
		part++;
		if (i == n) {
			if (part >= 2)
				return fail(why, "more than one T");
			return fail(why, "no time elements");
		}
	}
	return 0;
}

/* strconv.Atoi */
static int go_atoi(const char *s, size_t n, long long *out, bh_buf *why)
{
	size_t i = 0;
	int neg = 0;
	long long v = 0;
	if (n && (s[0] == '+' || s[0] == '-')) {
		neg = s[0] == '-';
		i = 1;
	}
	if (i == n)
		goto bad;
	for (; i < n; i++) {
		if (!isdig(s[i]))
			goto bad;
		if (v > 922337203685477580LL) {
			bh_buf_puts(why, "strconv.Atoi: parsing ");
			str_quote(why, s, n);
			bh_buf_puts(why, ": value out of range");
			return 1;
		}
		v = v * 10 + (s[i] - '0');
	}
	*out = neg ? -v : v;
	return 0;
bad:
	bh_buf_puts(why, "strconv.Atoi: parsing ");
	str_quote(why, s, n);
	bh_buf_puts(why, ": invalid syntax");
	return 1;
}

static int ipv4(const char *s, size_t n, bh_buf *why)
{
	size_t start = 0, groups = 1;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '.')
			groups++;
	if (groups != 4)
		return fail(why, "expected four decimals");
	for (size_t i = 0; i <= n; i++) {
		long long v;
		if (i < n && s[i] != '.')
			continue;
		if (i - start > 1 && s[start] == '0')
			return fail(why, "leading zeros");
		if (go_atoi(s + start, i - start, &v, why))
			return 1;
		if (v < 0 || v > 255)
			return fail(why, "decimal must be between 0 and 255");
		start = i + 1;
	}
	return 0;
}

/* net/netip.ParseAddr errors: "ParseAddr(\"in\"): msg (at \"rest\")" */
static int addr_err(bh_buf *why, const char *in, size_t inl, const char *msg, const char *at, size_t atl)
{
	bh_buf_puts(why, "ParseAddr(");
	str_quote(why, in, inl);
	bh_buf_printf(why, "): %s", msg);
	if (at && atl) {
		bh_buf_puts(why, " (at ");
		str_quote(why, at, atl);
		bh_buf_putc(why, ')');
	}
	return 1;
}

/* netip parseIPv4Fields over in[off:end] */
static int ipv4_fields(const char *in, size_t inl, size_t off, size_t end, bh_buf *why)
{
	const char *s = in + off;
	size_t n = end - off;
	int val = 0, pos = 0, dig = 0;
	for (size_t i = 0; i < n; i++) {
		if (isdig(s[i])) {
			if (dig == 1 && val == 0)
				return addr_err(why, in, inl, "IPv4 field has octet with leading zero", NULL, 0);
			val = val * 10 + (s[i] - '0');
			dig++;
			if (val > 255)
				return addr_err(why, in, inl, "IPv4 field has value >255", NULL, 0);
		} else if (s[i] == '.') {
			if (i == 0 || i == n - 1 || s[i - 1] == '.')
				return addr_err(why, in, inl, "IPv4 field must have at least one digit", s + i, n - i);
			if (pos == 3)
				return addr_err(why, in, inl, "IPv4 address too long", NULL, 0);
			pos++;
			val = 0;
			dig = 0;
		} else {
			return addr_err(why, in, inl, "unexpected character", s + i, n - i);
		}
	}
	if (pos < 3)
		return addr_err(why, in, inl, "IPv4 address too short", NULL, 0);
	return 0;
}

/* netip parseIPv6; *zone set when a zone was given */
static int ipv6_parse(const char *in, size_t inl, int *has_zone, bh_buf *why)
{
	const char *s = in, *pct = memchr(in, '%', inl);
	size_t n = inl, zl = 0;
	int i = 0, ellipsis = -1;
	*has_zone = 0;
	if (pct) {
		n = (size_t)(pct - in);
		zl = inl - n - 1;
		if (zl == 0)
			return addr_err(why, in, inl, "zone must be a non-empty string", NULL, 0);
		*has_zone = 1;
	}
	if (n >= 2 && s[0] == ':' && s[1] == ':') {
		ellipsis = 0;
		s += 2;
		n -= 2;
		if (n == 0)
			return 0;
	}
	while (i < 16) {
		size_t off = 0;
		unsigned acc = 0;
		for (; off < n; off++) {
			char c = s[off];
			int h = isdig(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
			if (h < 0)
				break;
			acc = (acc << 4) + (unsigned)h;
			if (off > 3)
				return addr_err(why, in, inl, "each group must have 4 or less digits", s, n);
			if (acc > 0xFFFF)
				return addr_err(why, in, inl, "IPv6 field has value >=2^16", s, n);
		}
		if (off == 0)
			return addr_err(why, in, inl, "each colon-separated field must have at least one digit", s, n);
		if (off < n && s[off] == '.') {
			size_t end = inl - (zl ? zl + 1 : 0);
			if (ellipsis < 0 && i != 12)
				return addr_err(why, in, inl, "embedded IPv4 address must replace the final 2 fields of the address", s, n);
			if (i + 4 > 16)
				return addr_err(why, in, inl, "too many hex fields to fit an embedded IPv4 at the end of the address", s, n);
			if (ipv4_fields(in, inl, end - n, end, why))
				return 1;
			i += 4;
			n = 0;
			break;
		}
		i += 2;
		s += off;
		n -= off;
		if (n == 0)
			break;
		if (s[0] != ':')
			return addr_err(why, in, inl, "unexpected character, want colon", s, n);
		if (n == 1)
			return addr_err(why, in, inl, "colon must be followed by more characters", s, n);
		s++;
		n--;
		if (s[0] == ':') {
			if (ellipsis >= 0)
				return addr_err(why, in, inl, "multiple :: in address", s, n);
			ellipsis = i;
			s++;
			n--;
			if (n == 0)
				break;
		}
	}
	if (n != 0)
		return addr_err(why, in, inl, "trailing garbage after address", s, n);
	if (i < 16) {
		if (ellipsis < 0)
			return addr_err(why, in, inl, "address string too short", NULL, 0);
	} else if (ellipsis >= 0) {
		return addr_err(why, in, inl, "the :: must expand to at least one field of zeros", s, n);
	}
	return 0;
}

/* netip.ParseAddr (either family) */
static int parse_addr(const char *s, size_t n, int *has_zone, bh_buf *why)
{
	*has_zone = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.')
			return ipv4_fields(s, n, 0, n, why);
		if (s[i] == ':')
			return ipv6_parse(s, n, has_zone, why);
		if (s[i] == '%')
			return addr_err(why, s, n, "missing IPv6 address", NULL, 0);
	}
	return addr_err(why, s, n, "unable to parse IP", NULL, 0);
}

static int ipv6(const char *s, size_t n, bh_buf *why)
{
	int zone;
	if (!memchr(s, ':', n))
		return fail(why, "missing colon");
	if (parse_addr(s, n, &zone, why))
		return 1;
	if (zone)
		return fail(why, "zone id is not a part of ipv6 address");
	return 0;
}

static int hostname(const char *s, size_t n, bh_buf *why)
{
	size_t start = 0;
	if (n && s[n - 1] == '.')
		n--;
	if (n > 253)
		return fail(why, "more than 253 characters long");
	for (size_t i = 0; i <= n; i++) {
		size_t l;
		if (i < n && s[i] != '.')
			continue;
		l = i - start;
		if (l < 1 || l > 63)
			return fail(why, "label must be 1 to 63 characters long");
		if (s[start] == '-')
			return fail(why, "label starts with hyphen");
		if (s[i - 1] == '-')
			return fail(why, "label ends with hyphen");
		for (size_t k = start; k < i;) {
			int32_t r;
			int sz = utf8_rune_go((const unsigned char *)s + k, i - k, &r);
			if (!((r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || isdig((char)r) || r == '-')) {
				bh_buf_puts(why, "invalid character ");
				rune_quote(why, r < 0 ? 0xFFFD : r);
				return 1;
			}
			k += (size_t)sz;
		}
		start = i + 1;
	}
	return 0;
}

static int email(const char *s, size_t n, bh_buf *why)
{
	const char *at = NULL;
	const char *local, *domain;
	size_t ll, dl;
	if (n > 254)
		return fail(why, "more than 255 characters long");
	for (size_t i = n; i-- > 0;)
		if (s[i] == '@') {
			at = s + i;
			break;
		}
	if (!at)
		return fail(why, "missing @");
	local = s;
	ll = (size_t)(at - s);
	domain = at + 1;
	dl = n - ll - 1;
	if (ll > 64)
		return fail(why, "local part more than 64 characters long");
	if (ll > 1 && local[0] == '"' && local[ll - 1] == '"') {
		for (size_t i = 1; i + 1 < ll; i++)
			if (local[i] == '\\' || local[i] == '"')
				return fail(why, "backslash and quote are not allowed within quoted local part");
	} else {
		if (ll && local[0] == '.')
			return fail(why, "starts with dot");
		if (ll && local[ll - 1] == '.')
			return fail(why, "ends with dot");
		for (size_t i = 0; i + 1 < ll; i++)
			if (local[i] == '.' && local[i + 1] == '.')
				return fail(why, "consecutive dots");
		for (size_t i = 0; i < ll;) {
			int32_t r;
			int sz = utf8_rune_go((const unsigned char *)local + i, ll - i, &r);
			if (!((r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || isdig((char)r) ||
			      (r > 0 && r < 0x80 && strchr(".!#$%&'*+-/=?^_`{|}~", (char)r)))) {
				bh_buf_puts(why, "invalid character ");
				rune_quote(why, r < 0 ? 0xFFFD : r);
				return 1;
			}
			i += (size_t)sz;
		}
	}
	if (dl >= 2 && domain[0] == '[' && domain[dl - 1] == ']') {
		bh_buf inner = BH_BUF_INIT;
		int rc;
		if (dl - 2 >= 5 && memcmp(domain + 1, "IPv6:", 5) == 0) {
			rc = ipv6(domain + 6, dl - 7, &inner);
			if (rc)
				bh_buf_printf(why, "invalid ipv6 address: %s", bh_buf_str(&inner));
		} else {
			rc = ipv4(domain + 1, dl - 2, &inner);
			if (rc)
				bh_buf_printf(why, "invalid ipv4 address: %s", bh_buf_str(&inner));
		}
		bh_buf_free(&inner);
		return rc;
	}
	{
		bh_buf inner = BH_BUF_INIT;
		int rc = hostname(domain, dl, &inner);
		if (rc)
			bh_buf_printf(why, "invalid domain: %s", bh_buf_str(&inner));
		bh_buf_free(&inner);
		return rc;
	}
}

static int days_in(int m, int y)
{
	static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return d[m - 1];
}

/* time.Parse("2006-01-02", s) and its error text */
static int date(const char *s, size_t n, bh_buf *why)
{
	size_t i = 0;
	int y, m, d;
	const char *elem;
#define CANNOT(e) do { elem = (e); goto cannot; } while (0)
	if (n < 4 || !isdig(s[0]) || !isdig(s[1]) || !isdig(s[2]) || !isdig(s[3]))
		CANNOT("2006");
	y = atoi((char[]){s[0], s[1], s[2], s[3], 0});
	i = 4;
	if (i >= n || s[i] != '-')
		CANNOT("-");
	i++;
	if (i + 1 >= n || !isdig(s[i]) || !isdig(s[i + 1]))
		CANNOT("01");
	m = (s[i] - '0') * 10 + (s[i + 1] - '0');
	i += 2;
	if (m < 1 || m > 12) {
		bh_buf_puts(why, "parsing time ");
		time_quote(why, s, n);
		bh_buf_puts(why, ": month out of range");
		return 1;
	}
	if (i >= n || s[i] != '-')
		CANNOT("-");
	i++;
	if (i + 1 >= n || !isdig(s[i]) || !isdig(s[i + 1]))
		CANNOT("02");
	d = (s[i] - '0') * 10 + (s[i + 1] - '0');
	i += 2;
	if (i < n) {
		bh_buf_puts(why, "parsing time ");
		time_quote(why, s, n);
		bh_buf_puts(why, ": extra text: ");
		time_quote(why, s + i, n - i);
		return 1;
	}
	if (d < 1 || d > days_in(m, y)) {
		bh_buf_puts(why, "parsing time ");
		time_quote(why, s, n);
		bh_buf_puts(why, ": day out of range");
		return 1;
	}
	return 0;
cannot:
	bh_buf_puts(why, "parsing time ");
	time_quote(why, s, n);
	bh_buf_puts(why, " as \"2006-01-02\": cannot parse ");
	time_quote(why, s + i, n - i);
	bh_buf_printf(why, " as \"%s\"", elem);
	return 1;
#undef CANNOT
}

static int two_digits_atoi(const char *p, size_t l, int *v)
{
	/* strconv.Atoi on a short token */
	size_t i = 0;
	int neg = 0, x = 0;
	if (l && (p[0] == '+' || p[0] == '-')) {
		neg = p[0] == '-';
		i = 1;
	}
	if (i == l)
		return -1;
	for (; i < l; i++) {
		if (!isdig(p[i]))
			return -1;
		x = x * 10 + (p[i] - '0');
	}
	*v = neg ? -x : x;
	return 0;
}

static int timefmt(const char *s, size_t n, bh_buf *why)
{
	int h, m, sec, zh, zm;
	size_t i;
	if (n < 9)
		return fail(why, "less than 9 characters long");
	if (s[2] != ':' || s[5] != ':')
		return fail(why, "missing colon in correct place");
	if (two_digits_atoi(s, 2, &h) || two_digits_atoi(s + 3, 2, &m) || two_digits_atoi(s + 6, 2, &sec))
		return fail(why, "invalid hour/min/sec");
	if (h < 0 || m < 0 || sec < 0)
		return fail(why, "non-positive hour/min/sec");
	if (h > 23 || m > 59 || sec > 60)
		return fail(why, "hour/min/sec out of range");
	i = 8;
	if (i < n && s[i] == '.') {
		size_t d = i + 1;
		while (d < n && isdig(s[d]))
			d++;
		if (d == i + 1)
			return fail(why, "no digits in second fraction");
		i = d;
	}
	if (!(n - i == 1 && (s[i] == 'z' || s[i] == 'Z'))) {
		int sign;
		if (n - i != 6)
			return fail(why, "offset must be 6 characters long");
		if (s[i] == '+')
			sign = -1;
		else if (s[i] == '-')
			sign = 1;
		else
			return fail(why, "offset must begin with plus/minus");
		if (s[i + 3] != ':')
			return fail(why, "missing colon in offset in correct place");
		if (two_digits_atoi(s + i + 1, 2, &zh) || two_digits_atoi(s + i + 4, 2, &zm))
			return fail(why, "invalid hour/min in offset");
		if (zh < 0 || zm < 0)
			return fail(why, "non-positive hour/min in offset");
		if (zh > 23 || zm > 59)
			return fail(why, "hour/min in offset out of range");
		{
			int hm = (h * 60 + m) + sign * (zh * 60 + zm);
			if (hm < 0)
				hm += 24 * 60;
			h = hm / 60;
			m = hm % 60;
		}
	}
	if (sec >= 60 && (h != 23 || m != 59))
		return fail(why, "invalid leap second");
	return 0;
}

static int datetime(const char *s, size_t n, bh_buf *why)
{
	bh_buf inner = BH_BUF_INIT;
	if (n < 20)
		return fail(why, "less than 20 characters long");
	if (s[10] != 't' && s[10] != 'T')
		return fail(why, "11th character must be t or T");
	if (date(s, 10, &inner)) {
		bh_buf_printf(why, "invalid date element: %s", bh_buf_str(&inner));
		bh_buf_free(&inner);
		return 1;
	}
	if (timefmt(s + 11, n - 11, &inner)) {
		bh_buf_printf(why, "invalid time element: %s", bh_buf_str(&inner));
		bh_buf_free(&inner);
		return 1;
	}
	return 0;
}

/* net/url.Parse, the parts that can fail, with its messages */
static int url_fail(bh_buf *why, const char *s, size_t n, const char *msg)
{
	bh_buf_puts(why, "parse ");
	str_quote(why, s, n);
	bh_buf_printf(why, ": %s", msg);
	return 1;
}

static int ishex(char c)
{
	return isdig(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/* unescape(): every % must start a valid escape */
static int check_escapes(const char *full, size_t fn, const char *s, size_t n, bh_buf *why)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '%')
			continue;
		if (i + 2 >= n || !ishex(s[i + 1]) || !ishex(s[i + 2])) {
			size_t e = i + 3 < n ? i + 3 : n;
			bh_buf m = BH_BUF_INIT;
			bh_buf_puts(&m, "invalid URL escape ");
			str_quote(&m, s + i, e - i);
			url_fail(why, full, fn, bh_buf_str(&m));
			bh_buf_free(&m);
			return 1;
		}
		i += 2;
	}
	return 0;
}

/* characters url.Parse refuses in a host name (shouldEscape, encodeHost) */
static int host_char_ok(unsigned char c)
{
	if (c >= 0x80 || isdig((char)c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'))
		return 1;
	return strchr("-._~!$&'()*+,;=:[]<>\"%", c) && c;
}

/* returns 1 on error; *host gets the host part (without port) */
static int url_parse(const char *s, size_t n, int *has_scheme, const char **host, size_t *hostl, bh_buf *why)
{
	size_t i, rest = 0, hash;
	const char *r;
	size_t rl;
	*has_scheme = 0;
	*host = NULL;
	*hostl = 0;
	/* the fragment is split off first; what is before it is parsed (its
	 * errors quote only that part), then the fragment unescaped (its
	 * errors quote the whole) */
	for (hash = 0; hash < n && s[hash] != '#'; hash++)
		;
	for (i = 0; i < hash; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7F)
			return url_fail(why, s, hash, "net/url: invalid control character in URL");
	/* scheme */
	for (i = 0; i < hash; i++) {
		char c = s[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
			continue;
		if ((isdig(c) || c == '+' || c == '-' || c == '.') && i > 0)
			continue;
		if (c == ':') {
			if (i == 0)
				return url_fail(why, s, hash, "missing protocol scheme");
			*has_scheme = 1;
			rest = i + 1;
		}
		break;
	}
	r = s + rest;
	rl = hash - rest;
	/* the query is not checked */
	for (i = 0; i < rl && r[i] != '?'; i++)
		;
	rl = i;
	if (!*has_scheme && !(rl && r[0] == '/')) {
		size_t seg = 0;
		while (seg < rl && r[seg] != '/')
			seg++;
		if (memchr(r, ':', seg))
			return url_fail(why, s, hash, "first path segment in URL cannot contain colon");
	}
	if ((*has_scheme || !(rl >= 3 && r[0] == '/' && r[1] == '/' && r[2] == '/')) && rl >= 2 && r[0] == '/' && r[1] == '/') {
		const char *auth = r + 2, *at, *h;
		size_t al = 0, hl;
		while (al < rl - 2 && auth[al] != '/')
			al++;
		at = NULL;
		for (size_t k = al; k-- > 0;)
			if (auth[k] == '@') {
				at = auth + k;
				break;
			}
		h = at ? at + 1 : auth;
		hl = al - (size_t)(h - auth);
		if (hl && h[0] == '[') {
			const char *close = memchr(h, ']', hl);
			int zone;
			bh_buf inner = BH_BUF_INIT;
			if (!close)
				return url_fail(why, s, hash, "missing ']' in host");
			if (parse_addr(h + 1, (size_t)(close - h - 1), &zone, &inner)) {
				bh_buf m = BH_BUF_INIT;
				bh_buf_printf(&m, "invalid host: %s", bh_buf_str(&inner));
				url_fail(why, s, hash, bh_buf_str(&m));
				bh_buf_free(&m);
				bh_buf_free(&inner);
				return 1;
			}
			bh_buf_free(&inner);
			*host = h + 1;
			*hostl = (size_t)(close - h - 1);
		} else {
			/* a last ":..." must be a (possibly empty) numeric port */
			const char *colon = NULL;
			for (size_t k = hl; k-- > 0;)
				if (h[k] == ':') {
					colon = h + k;
					break;
				}
			if (colon) {
				for (const char *p = colon + 1; p < h + hl; p++) {
					if (!isdig(*p)) {
						bh_buf m = BH_BUF_INIT;
						bh_buf_puts(&m, "invalid port ");
						str_quote(&m, colon, (size_t)(h + hl - colon));
						bh_buf_puts(&m, " after host");
						url_fail(why, s, hash, bh_buf_str(&m));
						bh_buf_free(&m);
						return 1;
					}
				}
			}
			for (size_t k = 0; k < hl; k++) {
				if (!host_char_ok((unsigned char)h[k])) {
					bh_buf m = BH_BUF_INIT;
					bh_buf_puts(&m, "invalid character ");
					str_quote(&m, h + k, 1);
					bh_buf_puts(&m, " in host name");
					url_fail(why, s, hash, bh_buf_str(&m));
					bh_buf_free(&m);
					return 1;
				}
			}
			if (check_escapes(s, hash, h, hl, why))
				return 1;
			/* URL.Hostname(): without the port */
			*host = h;
			*hostl = colon ? (size_t)(colon - h) : hl;
		}
		r = auth + al;
		rl = rl - 2 - al;
	}
	if (check_escapes(s, hash, r, rl, why))
		return 1;
	return hash < n && check_escapes(s, n, s + hash + 1, n - hash - 1, why);
}

/* A fragment-only reference ("#/$defs/x": most $refs of a schema) with no
 * backslash or '%' in it: url_parse finds no scheme, path or host in it
 * and nothing to unescape (a fragment may hold controls), so ri accepts
 * it; two memchr instead of url_parse's passes. */
static int plain_fragment(const char *s, size_t n)
{
	return n && s[0] == '#' && !memchr(s, '%', n) && !memchr(s, '\\', n);
}

/* v6 (as shipped with Helm 4.1): uri needs a scheme, uri-reference refuses
 * backslashes; both run url.Parse plus an IPv6 host check */
static int ri(const char *s, size_t n, int reference, bh_buf *why)
{
	int has_scheme;
	const char *host;
	size_t hostl;
	if (reference && plain_fragment(s, n))
		return 0;
	if (reference && memchr(s, '\\', n))
		return fail(why, "contains \\");
	if (url_parse(s, n, &has_scheme, &host, &hostl, why))
		return 1;
	if (host && memchr(host, ':', hostl)) {
		int zone;
		bh_buf inner = BH_BUF_INIT;
		if (host == s || host[-1] != '[') {
			bh_buf_free(&inner);
			return fail(why, "ipv6 address not enclosed in brackets");
		}
		if (!memchr(host, ':', hostl) || parse_addr(host, hostl, &zone, &inner)) {
			bh_buf_printf(why, "invalid ipv6 address: %s", bh_buf_str(&inner));
			bh_buf_free(&inner);
			return 1;
		}
		bh_buf_free(&inner);
	}
	if (!reference && !has_scheme)
		return fail(why, "relative url");
	return 0;
}

int jsonschema_format_check(const char *name, const char *s, size_t n, bh_buf *why)
{
	/* first the two the meta-schema check asks for (every $ref, pattern) */
	if (!strcmp(name, "uri-reference") || !strcmp(name, "iri-reference")) return ri(s, n, 1, why);
	if (!strcmp(name, "regex")) return goregex_check(s, n, why) ? 1 : 0;
	if (!strcmp(name, "json-pointer")) return json_pointer(s, n, why);
	if (!strcmp(name, "relative-json-pointer")) return rel_json_pointer(s, n, why);
	if (!strcmp(name, "uuid")) return uuid(s, n, why);
	if (!strcmp(name, "duration")) return duration(s, n, why);
	if (!strcmp(name, "ipv4")) return ipv4(s, n, why);
	if (!strcmp(name, "ipv6")) return ipv6(s, n, why);
	if (!strcmp(name, "hostname")) return hostname(s, n, why);
	if (!strcmp(name, "email")) return email(s, n, why);
	if (!strcmp(name, "date")) return date(s, n, why);
	if (!strcmp(name, "time")) return timefmt(s, n, why);
	if (!strcmp(name, "date-time")) return datetime(s, n, why);
	if (!strcmp(name, "uri") || !strcmp(name, "iri")) return ri(s, n, 0, why);
	return -1;
}
