/* lib/jsonschema_formats.c — see jsonschema_formats.h. Messages follow v6's
 * formats.go and the Go standard-library errors it passes on. */
#include "lib/jsonschema_formats.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/yaml_resolve.h"

/* Go's %q of a string (double quotes) */
static void go_quote(bh_buf *b, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	bh_buf_putc(b, '"');
	for (size_t i = 0; i < n;) {
		int32_t r;
		int sz = utf8_rune_go(s + i, n - i, &r);
		if (r == '"' || r == '\\') {
			bh_buf_putc(b, '\\');
			bh_buf_putc(b, (char)r);
		} else if (r == '\n') {
			bh_buf_puts(b, "\\n");
		} else if (r == '\t') {
			bh_buf_puts(b, "\\t");
		} else if (r == '\r') {
			bh_buf_puts(b, "\\r");
		} else if (r < 0 || r < 0x20 || r == 0x7F) {
			bh_buf_printf(b, "\\x%02x", s[i]);
		} else if (r >= 0x80 && r < 0xA0) {
			bh_buf_printf(b, "\\u%04x", (unsigned)r);
		} else {
			bh_buf_put(b, s + i, (size_t)sz);
		}
		i += (size_t)sz;
	}
	bh_buf_putc(b, '"');
}

/* Go's %q of a rune */
static void go_quote_rune(bh_buf *b, int32_t r)
{
	if (r == '\'')
		bh_buf_puts(b, "'\\''");
	else if (r == '\\')
		bh_buf_puts(b, "'\\\\'");
	else if (r == '\n')
		bh_buf_puts(b, "'\\n'");
	else if (r == '\t')
		bh_buf_puts(b, "'\\t'");
	else if (r < 0x20 || r == 0x7F)
		bh_buf_printf(b, "'\\x%02x'", (unsigned)r);
	else if (r >= 0x80 && r < 0xA0)
		bh_buf_printf(b, "'\\u%04x'", (unsigned)r);
	else {
		char t[5] = {0};
		if (r < 0x80) {
			t[0] = (char)r;
		} else if (r < 0x800) {
			t[0] = (char)(0xC0 | (r >> 6));
			t[1] = (char)(0x80 | (r & 0x3F));
		} else if (r < 0x10000) {
			t[0] = (char)(0xE0 | (r >> 12));
			t[1] = (char)(0x80 | ((r >> 6) & 0x3F));
			t[2] = (char)(0x80 | (r & 0x3F));
		} else {
			t[0] = (char)(0xF0 | (r >> 18));
			t[1] = (char)(0x80 | ((r >> 12) & 0x3F));
			t[2] = (char)(0x80 | ((r >> 6) & 0x3F));
			t[3] = (char)(0x80 | (r & 0x3F));
		}
		bh_buf_printf(b, "'%s'", t);
	}
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
				go_quote_rune(why, r);
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
				go_quote_rune(why, r < 0 ? 0xFFFD : r);
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
					go_quote_rune(why, (unsigned char)s[d]);
					bh_buf_puts(why, " out of order");
				} else {
					bh_buf_puts(why, "invalid unit ");
					go_quote_rune(why, (unsigned char)s[d]);
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
			go_quote(why, s, n);
			bh_buf_puts(why, ": value out of range");
			return 1;
		}
		v = v * 10 + (s[i] - '0');
	}
	*out = neg ? -v : v;
	return 0;
bad:
	bh_buf_puts(why, "strconv.Atoi: parsing ");
	go_quote(why, s, n);
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

static int ipv6(const char *s, size_t n, bh_buf *why)
{
	char buf[128];
	unsigned char addr[16];
	if (!memchr(s, ':', n))
		return fail(why, "missing colon");
	if (memchr(s, '%', n)) {
		size_t z = (size_t)((const char *)memchr(s, '%', n) - s);
		if (z < sizeof buf) {
			memcpy(buf, s, z);
			buf[z] = '\0';
			if (inet_pton(AF_INET6, buf, addr) == 1)
				return fail(why, "zone id is not a part of ipv6 address");
		}
	}
	if (n >= sizeof buf)
		goto bad;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET6, buf, addr) == 1)
		return 0;
bad:
	bh_buf_puts(why, "ParseAddr(");
	go_quote(why, s, n);
	bh_buf_puts(why, "): unable to parse IP");
	return 1;
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
				go_quote_rune(why, r < 0 ? 0xFFFD : r);
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
				go_quote_rune(why, r < 0 ? 0xFFFD : r);
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
		go_quote(why, s, n);
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
		go_quote(why, s, n);
		bh_buf_puts(why, ": extra text: ");
		go_quote(why, s + i, n - i);
		return 1;
	}
	if (d < 1 || d > days_in(m, y)) {
		bh_buf_puts(why, "parsing time ");
		go_quote(why, s, n);
		bh_buf_puts(why, ": day out of range");
		return 1;
	}
	return 0;
cannot:
	bh_buf_puts(why, "parsing time ");
	go_quote(why, s, n);
	bh_buf_puts(why, " as \"2006-01-02\": cannot parse ");
	go_quote(why, s + i, n - i);
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

/* uri / uri-reference / iri / iri-reference (net/url.Parse essentials) */
static int ri(const char *s, size_t n, int international, int reference, bh_buf *why)
{
	size_t i;
	int has_scheme = 0;
	if (!international) {
		for (i = 0; i < n; i++)
			if ((unsigned char)s[i] >= 0x80)
				return fail(why, "has unescaped non-ASCII characters");
		for (i = 0; i < n; i++)
			if (strchr("<>\" {}|\\^`", s[i]) && s[i])
				return fail(why, "has illegal ASCII characters");
	}
	for (i = 0; i < n; i++) {
		if (s[i] == '%') {
			if (i + 2 >= n + 0 || !strchr("0123456789abcdefABCDEF", s[i + 1]) || !s[i + 1] ||
			    !strchr("0123456789abcdefABCDEF", s[i + 2]) || !s[i + 2]) {
				size_t e = i + 3 < n ? i + 3 : n;
				bh_buf_puts(why, "parse ");
				go_quote(why, s, n);
				bh_buf_puts(why, ": invalid URL escape ");
				go_quote(why, s + i, e - i);
				return 1;
			}
		}
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7F) {
			bh_buf_puts(why, "parse ");
			go_quote(why, s, n);
			bh_buf_puts(why, ": net/url: invalid control character in URL");
			return 1;
		}
	}
	/* scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" */
	for (i = 0; i < n; i++) {
		char ch = s[i];
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))
			continue;
		if ((isdig(ch) || ch == '+' || ch == '-' || ch == '.') && i > 0)
			continue;
		if (ch == ':') {
			if (i == 0) {
				bh_buf_puts(why, "parse ");
				go_quote(why, s, n);
				bh_buf_puts(why, ": missing protocol scheme");
				return 1;
			}
			has_scheme = 1;
		}
		break;
	}
	if (!has_scheme) {
		/* "first path segment in URL cannot contain colon" */
		size_t seg = 0;
		while (seg < n && s[seg] != '/' && s[seg] != '?' && s[seg] != '#')
			seg++;
		if (memchr(s, ':', seg)) {
			bh_buf_puts(why, "parse ");
			go_quote(why, s, n);
			bh_buf_puts(why, ": first path segment in URL cannot contain colon");
			return 1;
		}
	}
	if (!reference && !has_scheme)
		return fail(why, "relative url");
	return 0;
}

int jsonschema_format_check(const char *name, const char *s, size_t n, bh_buf *why)
{
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
	if (!strcmp(name, "uri")) return ri(s, n, 0, 0, why);
	if (!strcmp(name, "iri")) return ri(s, n, 1, 0, why);
	if (!strcmp(name, "uri-reference")) return ri(s, n, 0, 1, why);
	if (!strcmp(name, "iri-reference")) return ri(s, n, 1, 1, why);
	return -1;
}
