/* tmpl/funcs_paths.c — Sprig's path functions (Go's path and, identical on
 * Linux, path/filepath: base, dir, clean, ext, isAbs and the os* names) and
 * urlParse / urlJoin with Go's net/url parsing, escaping and printing. */
#include <arpa/inet.h>
#include <string.h>

#include "lib/gopath.h"
#include "lib/gostrconv.h"
#include "tmpl/funcs.h"
#include "tmpl/gofmt.h"
#include "tmpl/sprig_util.h"

#define ARG_S(k) (c->argv[k].u.s.ptr)
#define ARG_N(k) (c->argv[k].u.s.len)

/* ---- path ---- */

static int fn_clean(tmpl_call *c)
{
	bh_buf b = BH_BUF_INIT;
	gopath_clean_buf(&b, ARG_S(0), ARG_N(0));
	return sprig_ret_buf(c, &b);
}

static int ret_str(tmpl_call *c, const char *s, size_t n)
{
	c->result = tmpl_str(c->arena, s, n);
	return c->result.kind == TMPL_STRING ? 0 : sprig_oom(c);
}

static int fn_base(tmpl_call *c)
{
	size_t n;
	const char *b = gopath_base(ARG_S(0), ARG_N(0), &n);
	return ret_str(c, b, n);
}

static int fn_dir(tmpl_call *c)
{
	bh_buf b = BH_BUF_INIT;
	gopath_dir_buf(&b, ARG_S(0), ARG_N(0));
	return sprig_ret_buf(c, &b);
}

static int fn_ext(tmpl_call *c)
{
	const char *p = ARG_S(0);
	size_t n = ARG_N(0);
	for (size_t i = n; i > 0 && p[i - 1] != '/'; i--)
		if (p[i - 1] == '.')
			return ret_str(c, p + i - 1, n - (i - 1));
	return ret_str(c, "", 0);
}

static int fn_is_abs(tmpl_call *c)
{
	c->result = tmpl_bool(ARG_N(0) > 0 && ARG_S(0)[0] == '/');
	return 0;
}

/* ---- net/url ---- */

enum enc { E_PATH, E_USERPASS, E_QUERY, E_FRAGMENT, E_HOST, E_ZONE };

static int should_escape(unsigned char ch, enum enc mode)
{
	if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'))
		return 0;
	if (mode == E_HOST || mode == E_ZONE) {
		switch (ch) {
		case '!': case '$': case '&': case '\'': case '(': case ')': case '*':
		case '+': case ',': case ';': case '=': case ':': case '[': case ']':
		case '<': case '>': case '"':
			return 0;
		}
	}
	switch (ch) {
	case '-': case '_': case '.': case '~':
		return 0;
	case '$': case '&': case '+': case ',': case '/': case ':': case ';':
	case '=': case '?': case '@':
		switch (mode) {
		case E_PATH: return ch == '?';
		case E_USERPASS: return ch == '@' || ch == '/' || ch == '?' || ch == ':';
		case E_QUERY: return 1;
		case E_FRAGMENT: return 0;
		default: break;
		}
	}
	if (mode == E_FRAGMENT && (ch == '!' || ch == '(' || ch == ')' || ch == '*'))
		return 0;
	return 1;
}

static void url_escape(bh_buf *out, const char *s, size_t n, enum enc mode)
{
	static const char hex[] = "0123456789ABCDEF";
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == ' ' && mode == E_QUERY) {
			bh_buf_putc(out, '+');
		} else if (should_escape(ch, mode)) {
			bh_buf_putc(out, '%');
			bh_buf_putc(out, hex[ch >> 4]);
			bh_buf_putc(out, hex[ch & 15]);
		} else {
			bh_buf_putc(out, (char)ch);
		}
	}
}

static int ishex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

/* net/url unescape; on error writes the message to err and returns -1 */
static int url_unescape(bh_buf *out, const char *s, size_t n, enum enc mode, bh_buf *err)
{
	for (size_t i = 0; i < n;) {
		if (s[i] == '%') {
			if (i + 2 >= n || !ishex(s[i + 1]) || !ishex(s[i + 2])) {
				size_t k = n - i > 3 ? 3 : n - i;
				bh_buf_puts(err, "invalid URL escape ");
				gofmt_quote(err, s + i, k);
				return -1;
			}
			int v = go_unhex((unsigned char)s[i + 1]) << 4 | go_unhex((unsigned char)s[i + 2]);
			if (mode == E_HOST && go_unhex((unsigned char)s[i + 1]) < 8 && memcmp(s + i, "%25", 3) != 0) {
				bh_buf_puts(err, "invalid URL escape ");
				gofmt_quote(err, s + i, 3);
				return -1;
			}
			if (mode == E_ZONE && memcmp(s + i, "%25", 3) != 0 && v != ' ' &&
			    should_escape((unsigned char)v, E_HOST)) {
				bh_buf_puts(err, "invalid URL escape ");
				gofmt_quote(err, s + i, 3);
				return -1;
			}
			bh_buf_putc(out, (char)v);
			i += 3;
		} else if (s[i] == '+' && mode == E_QUERY) {
			bh_buf_putc(out, ' ');
			i++;
		} else {
			if ((mode == E_HOST || mode == E_ZONE) && (unsigned char)s[i] < 0x80 &&
			    should_escape((unsigned char)s[i], mode)) {
				bh_buf_puts(err, "invalid character ");
				gofmt_quote(err, s + i, 1);
				bh_buf_puts(err, " in host name");
				return -1;
			}
			bh_buf_putc(out, s[i]);
			i++;
		}
	}
	return 0;
}

typedef struct url {
	bh_buf scheme, opaque, user, pass, host, path, query, fragment;
	int has_user, has_pass, force_query, omit_host;
} url;

static void url_free(url *u)
{
	bh_buf_free(&u->scheme);
	bh_buf_free(&u->opaque);
	bh_buf_free(&u->user);
	bh_buf_free(&u->pass);
	bh_buf_free(&u->host);
	bh_buf_free(&u->path);
	bh_buf_free(&u->query);
	bh_buf_free(&u->fragment);
}

static const char *mem_last(const char *s, size_t n, char ch)
{
	for (size_t i = n; i > 0; i--)
		if (s[i - 1] == ch)
			return s + i - 1;
	return NULL;
}

static int valid_optional_port(const char *p, size_t n)
{
	if (n == 0)
		return 1;
	if (p[0] != ':')
		return 0;
	for (size_t i = 1; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return 0;
	return 1;
}

static int parse_host(url *u, const char *h, size_t n, bh_buf *err)
{
	if (n > 0 && h[0] == '[') {
		const char *rb = mem_last(h, n, ']');
		if (!rb) {
			bh_buf_puts(err, "missing ']' in host");
			return -1;
		}
		size_t i = (size_t)(rb - h);
		if (!valid_optional_port(rb + 1, n - i - 1)) {
			bh_buf_puts(err, "invalid port ");
			gofmt_quote(err, rb + 1, n - i - 1);
			bh_buf_puts(err, " after host");
			return -1;
		}
		const char *zone = memmem(h, i, "%25", 3);
		size_t iplen = zone ? (size_t)(zone - h) - 1 : i - 1;
		char ip[64];
		struct in6_addr a6;
		struct in_addr a4;
		if (iplen < sizeof ip) {
			memcpy(ip, h + 1, iplen);
			ip[iplen] = '\0';
		}
		if (iplen < sizeof ip && inet_pton(AF_INET, ip, &a4) == 1) {
			bh_buf_puts(err, "invalid IP-literal");
			return -1;
		}
		if (iplen >= sizeof ip || inet_pton(AF_INET6, ip, &a6) != 1) {
			bh_buf_puts(err, "invalid host: ParseAddr(");
			gofmt_quote(err, h + 1, iplen);
			bh_buf_puts(err, "): unable to parse IP");
			return -1;
		}
		if (zone) {
			size_t z = (size_t)(zone - h);
			if (url_unescape(&u->host, h, z, E_HOST, err) ||
			    url_unescape(&u->host, zone, i - z, E_ZONE, err) ||
			    url_unescape(&u->host, rb, n - i, E_HOST, err))
				return -1;
			return 0;
		}
	} else {
		const char *colon = mem_last(h, n, ':');
		if (colon && !valid_optional_port(colon, n - (size_t)(colon - h))) {
			bh_buf_puts(err, "invalid port ");
			gofmt_quote(err, colon, n - (size_t)(colon - h));
			bh_buf_puts(err, " after host");
			return -1;
		}
	}
	return url_unescape(&u->host, h, n, E_HOST, err);
}

static int valid_userinfo(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))
			continue;
		if (ch >= 0x80)
			return 0;
		if (!strchr("-._:~!$&'()*+,;=%@", ch) || ch == 0)
			return 0;
	}
	return 1;
}

static int parse_authority(url *u, const char *a, size_t n, bh_buf *err)
{
	const char *at = mem_last(a, n, '@');
	if (at) {
		if (parse_host(u, at + 1, n - (size_t)(at - a) - 1, err))
			return -1;
	} else {
		return parse_host(u, a, n, err);
	}
	size_t un = (size_t)(at - a);
	if (!valid_userinfo(a, un)) {
		bh_buf_puts(err, "net/url: invalid userinfo");
		return -1;
	}
	u->has_user = 1;
	const char *colon = memchr(a, ':', un);
	if (!colon)
		return url_unescape(&u->user, a, un, E_USERPASS, err);
	u->has_pass = 1;
	if (url_unescape(&u->user, a, (size_t)(colon - a), E_USERPASS, err))
		return -1;
	return url_unescape(&u->pass, colon + 1, un - (size_t)(colon - a) - 1, E_USERPASS, err);
}

/* net/url parse(rawURL, viaRequest=false) of s[0..n) (no fragment) */
static int url_parse_main(url *u, const char *s, size_t n, bh_buf *err)
{
	const char *rest = s;
	size_t rn = n;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
			bh_buf_puts(err, "net/url: invalid control character in URL");
			return -1;
		}
	if (n == 1 && s[0] == '*') {
		bh_buf_putc(&u->path, '*');
		return 0;
	}
	/* getScheme */
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))
			continue;
		if ((ch >= '0' && ch <= '9') || ch == '+' || ch == '-' || ch == '.') {
			if (i == 0)
				break;
			continue;
		}
		if (ch == ':') {
			if (i == 0) {
				bh_buf_puts(err, "missing protocol scheme");
				return -1;
			}
			for (size_t k = 0; k < i; k++)
				bh_buf_putc(&u->scheme, (char)(s[k] >= 'A' && s[k] <= 'Z' ? s[k] + 32 : s[k]));
			rest = s + i + 1;
			rn = n - i - 1;
		}
		break;
	}
	/* query */
	const char *q = memchr(rest, '?', rn);
	if (q && rn > 0 && rest[rn - 1] == '?' && q == rest + rn - 1) {
		u->force_query = 1;
		rn--;
	} else if (q) {
		bh_buf_put(&u->query, q + 1, rn - (size_t)(q - rest) - 1);
		rn = (size_t)(q - rest);
	}
	if (rn == 0 || rest[0] != '/') {
		if (u->scheme.len > 0) {
			bh_buf_put(&u->opaque, rest, rn);
			return 0;
		}
		const char *slash = memchr(rest, '/', rn);
		size_t seg = slash ? (size_t)(slash - rest) : rn;
		if (memchr(rest, ':', seg)) {
			bh_buf_puts(err, "first path segment in URL cannot contain colon");
			return -1;
		}
	}
	if (rn >= 2 && rest[0] == '/' && rest[1] == '/' && (u->scheme.len > 0 || !(rn >= 3 && rest[2] == '/'))) {
		const char *a = rest + 2;
		size_t an = rn - 2;
		const char *slash = memchr(a, '/', an);
		size_t alen = slash ? (size_t)(slash - a) : an;
		if (parse_authority(u, a, alen, err))
			return -1;
		rest = a + alen;
		rn = an - alen;
	} else if (u->scheme.len > 0 && rn > 0 && rest[0] == '/') {
		u->omit_host = 1;
	}
	return url_unescape(&u->path, rest, rn, E_PATH, err);
}

static int put_str(tmpl_call *c, tmpl_map *m, const char *key, const bh_buf *b)
{
	tmpl_value v = tmpl_str_buf(c->arena, b);
	if (v.kind != TMPL_STRING || tmpl_map_set(c->arena, m, key, strlen(key), v))
		return sprig_oom(c);
	return 0;
}

static int fn_url_parse(tmpl_call *c)
{
	const char *s = ARG_S(0);
	size_t n = ARG_N(0);
	const char *hash = memchr(s, '#', n);
	size_t main_n = hash ? (size_t)(hash - s) : n;
	url u;
	bh_buf err = BH_BUF_INIT, tmp = BH_BUF_INIT;
	int r = 0;
	memset(&u, 0, sizeof u);
	int main_failed = url_parse_main(&u, s, main_n, &err) != 0;
	if (main_failed || (hash && url_unescape(&u.fragment, hash + 1, n - main_n - 1, E_FRAGMENT, &err))) {
		/* Go names the URL without its fragment, except for fragment errors */
		bh_buf q = BH_BUF_INIT;
		gofmt_quote(&q, s, main_failed ? main_n : n);
		r = tmpl_call_errorf(c, "unable to parse url: parse %s: %s", bh_buf_str(&q), bh_buf_str(&err));
		bh_buf_free(&q);
		bh_buf_free(&err);
		url_free(&u);
		return r;
	}
	bh_buf_free(&err);
	tmpl_map *m = sprig_map(c, NULL);
	if (!m) {
		url_free(&u);
		return BH_ELIMIT;
	}
	/* Hostname(): host without a valid :port, without [ ] */
	const char *h = u.host.data ? u.host.data : "";
	size_t hn = u.host.len;
	const char *colon = mem_last(h, hn, ':');
	if (colon && valid_optional_port(colon, hn - (size_t)(colon - h)))
		hn = (size_t)(colon - h);
	if (hn >= 2 && h[0] == '[' && h[hn - 1] == ']') {
		h++;
		hn -= 2;
	}
	bh_buf_put(&tmp, h, hn);
	bh_buf ui = BH_BUF_INIT;
	if (u.has_user) {
		url_escape(&ui, u.user.data ? u.user.data : "", u.user.len, E_USERPASS);
		if (u.has_pass) {
			bh_buf_putc(&ui, ':');
			url_escape(&ui, u.pass.data ? u.pass.data : "", u.pass.len, E_USERPASS);
		}
	}
	r = put_str(c, m, "scheme", &u.scheme) || put_str(c, m, "host", &u.host) ||
	    put_str(c, m, "hostname", &tmp) || put_str(c, m, "path", &u.path) ||
	    put_str(c, m, "query", &u.query) || put_str(c, m, "opaque", &u.opaque) ||
	    put_str(c, m, "fragment", &u.fragment) || put_str(c, m, "userinfo", &ui);
	bh_buf_free(&tmp);
	bh_buf_free(&ui);
	url_free(&u);
	if (r)
		return BH_ELIMIT;
	c->result = tmpl_map_value(m);
	return 0;
}

/* Sprig's dictGetOrEmpty */
static int dict_get(tmpl_call *c, const char *key, const char **s, size_t *n)
{
	tmpl_value *v = tmpl_map_get(c->argv[0].u.map, key, strlen(key));
	*s = "";
	*n = 0;
	if (!v)
		return 0;
	if (tmpl_value_is_nil(v))
		return tmpl_call_errorf(c, "runtime error: invalid memory address or nil pointer dereference");
	if (v->kind != TMPL_STRING)
		return tmpl_call_errorf(c, "unable to parse %s key, must be of type string, but %s found", key,
					tmpl_value_kind_name(v));
	*s = v->u.s.ptr;
	*n = v->u.s.len;
	return 0;
}

static int fn_url_join(tmpl_call *c)
{
	const char *scheme, *host, *path, *query, *opaque, *frag, *ui;
	size_t sn, hn, pn, qn, on, fn, un;
	int r;
	if ((r = dict_get(c, "scheme", &scheme, &sn)) || (r = dict_get(c, "host", &host, &hn)) ||
	    (r = dict_get(c, "path", &path, &pn)) || (r = dict_get(c, "query", &query, &qn)) ||
	    (r = dict_get(c, "opaque", &opaque, &on)) || (r = dict_get(c, "fragment", &frag, &fn)) ||
	    (r = dict_get(c, "userinfo", &ui, &un)))
		return r;
	url u;
	memset(&u, 0, sizeof u);
	if (un > 0) {
		/* url.Parse("proto://" + userinfo + "@host").User */
		bh_buf raw = BH_BUF_INIT, err = BH_BUF_INIT;
		bh_buf_puts(&raw, "proto://");
		bh_buf_put(&raw, ui, un);
		bh_buf_puts(&raw, "@host");
		const char *rs = bh_buf_str(&raw);
		const char *hash = strchr(rs, '#');
		size_t mn = hash ? (size_t)(hash - rs) : raw.len;
		if (url_parse_main(&u, rs, mn, &err)) {
			bh_buf q = BH_BUF_INIT;
			gofmt_quote(&q, rs, mn);
			r = tmpl_call_errorf(c, "unable to parse userinfo in dict: parse %s: %s", bh_buf_str(&q),
					     bh_buf_str(&err));
			bh_buf_free(&q);
			bh_buf_free(&raw);
			bh_buf_free(&err);
			url_free(&u);
			return r;
		}
		bh_buf_free(&raw);
		bh_buf_free(&err);
	}
	/* URL.String() */
	bh_buf b = BH_BUF_INIT;
	if (sn > 0) {
		bh_buf_put(&b, scheme, sn);
		bh_buf_putc(&b, ':');
	}
	if (on > 0) {
		bh_buf_put(&b, opaque, on);
	} else {
		if (sn > 0 || hn > 0 || u.has_user) {
			if (hn > 0 || pn > 0 || u.has_user)
				bh_buf_puts(&b, "//");
			if (u.has_user) {
				url_escape(&b, u.user.data ? u.user.data : "", u.user.len, E_USERPASS);
				if (u.has_pass) {
					bh_buf_putc(&b, ':');
					url_escape(&b, u.pass.data ? u.pass.data : "", u.pass.len, E_USERPASS);
				}
				bh_buf_putc(&b, '@');
			}
			url_escape(&b, host, hn, E_HOST);
		}
		bh_buf ep = BH_BUF_INIT;
		if (pn == 1 && path[0] == '*')
			bh_buf_putc(&ep, '*');
		else
			url_escape(&ep, path, pn, E_PATH);
		if (ep.len > 0 && ep.data[0] != '/' && hn > 0)
			bh_buf_putc(&b, '/');
		if (b.len == 0) {
			const char *slash = memchr(ep.data ? ep.data : "", '/', ep.len);
			size_t seg = slash ? (size_t)(slash - ep.data) : ep.len;
			if (seg > 0 && memchr(ep.data, ':', seg))
				bh_buf_puts(&b, "./");
		}
		bh_buf_put(&b, ep.data ? ep.data : "", ep.len);
		bh_buf_free(&ep);
	}
	if (qn > 0) {
		bh_buf_putc(&b, '?');
		bh_buf_put(&b, query, qn);
	}
	if (fn > 0) {
		bh_buf_putc(&b, '#');
		url_escape(&b, frag, fn, E_FRAGMENT);
	}
	url_free(&u);
	return sprig_ret_buf(c, &b);
}

const tmpl_func_def tmpl_funcs_paths[] = {
	{"base", fn_base, "s", NULL},
	{"dir", fn_dir, "s", NULL},
	{"clean", fn_clean, "s", NULL},
	{"ext", fn_ext, "s", NULL},
	{"isAbs", fn_is_abs, "s", NULL},
	{"osBase", fn_base, "s", NULL},
	{"osDir", fn_dir, "s", NULL},
	{"osClean", fn_clean, "s", NULL},
	{"osExt", fn_ext, "s", NULL},
	{"osIsAbs", fn_is_abs, "s", NULL},
	{"urlParse", fn_url_parse, "s", NULL},
	{"urlJoin", fn_url_join, "m", NULL},
	{NULL, NULL, NULL, NULL},
};
