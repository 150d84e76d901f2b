/* lib/json_skim.c — see json_skim.h. */
#include "lib/json_skim.h"

#include <jansson.h>
#include <string.h>

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

const char *json_skim_ws(const char *p, const char *e)
{
	while (p < e && is_ws(*p))
		p++;
	return p;
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* p at '"': just past the closing quote, or NULL. Strict: a bad escape, a
 * control or non-ASCII byte is NULL too. Lax: memchr, not a loop per byte
 * (the strings skimmed are mostly long base64 without escapes). */
static const char *str_end(const char *p, const char *e, unsigned flags)
{
	if (!(flags & JSON_SKIM_STRICT)) {
		for (p++; p < e;) {
			const char *q = memchr(p, '"', (size_t)(e - p)), *b;
			if (!q)
				return NULL;
			if (!(b = memchr(p, '\\', (size_t)(q - p))))
				return q + 1;
			p = b + 2; /* the escaped character, whatever it is */
		}
		return NULL;
	}
	for (p++; p < e; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '"')
			return p + 1;
		if (c < 0x20 || c >= 0x80)
			return NULL;
		if (c == '\\') {
			if (++p >= e)
				return NULL;
			if (*p == 'u') { /* \u0000 and surrogates left to jansson */
				if (e - p < 5 || !is_hex(p[1]) || !is_hex(p[2]) || !is_hex(p[3]) || !is_hex(p[4]) ||
				    !memcmp(p + 1, "0000", 4) || ((p[1] == 'd' || p[1] == 'D') && strchr("89abcdefABCDEF", p[2])))
					return NULL;
				p += 4;
			} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
	}
	return NULL;
}

static const char *digits(const char *p, const char *e)
{
	const char *s = p;
	while (p < e && *p >= '0' && *p <= '9')
		p++;
	return p > s ? p : NULL;
}

/* A literal or number at p (strict), or any run of scalar characters. */
static const char *scalar_end(const char *p, const char *e, unsigned flags)
{
	const char *s = p;
	if (!(flags & JSON_SKIM_STRICT)) {
		while (p < e && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				 *p == '-' || *p == '+' || *p == '.'))
			p++;
		return p > s ? p : NULL;
	}
	static const char *const lit[] = {"true", "false", "null"};
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(lit[i]);
		if ((size_t)(e - p) >= n && !memcmp(p, lit[i], n))
			return p + n;
	}
	if (p < e && *p == '-')
		p++;
	if (p < e && *p == '0')
		p++;
	else if (!(p = digits(p, e)))
		return NULL;
	if (p < e && *p == '.' && !(p = digits(p + 1, e)))
		return NULL;
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		const char *x = p;
		if (!(p = digits(p, e)) || p - x > 2)
			return NULL;
	}
	/* jansson refuses what overflows a double or an integer: numbers
	 * past 15 characters or 2 exponent digits are left to it */
	return p - s > 15 ? NULL : p;
}

const char *json_skim_value(const char *p, const char *e, int depth, unsigned flags)
{
	p = json_skim_ws(p, e);
	if (p >= e)
		return NULL;
	if (*p == '"')
		return str_end(p, e, flags);
	if (*p != '{' && *p != '[')
		return scalar_end(p, e, flags);
	char close = *p == '{' ? '}' : ']';
	if (depth >= JSON_SKIM_DEPTH)
		return NULL;
	p = json_skim_ws(p + 1, e);
	if (p < e && *p == close)
		return p + 1;
	for (;;) {
		if (close == '}') {
			if (p >= e || *p != '"' || !(p = str_end(p, e, flags)))
				return NULL;
			p = json_skim_ws(p, e);
			if (p >= e || *p != ':')
				return NULL;
			p++;
		}
		if (!(p = json_skim_value(p, e, depth + 1, flags)))
			return NULL;
		p = json_skim_ws(p, e);
		if (p >= e)
			return NULL;
		if (*p == close)
			return p + 1;
		if (*p != ',')
			return NULL;
		p = json_skim_ws(p + 1, e);
	}
}

int json_skim_object(const char *p, const char *e, int depth, const char *const *keys, json_skim_span *v,
		     const char **end)
{
	size_t k;
	for (k = 0; keys[k]; k++)
		v[k].s = v[k].e = NULL;
	p = json_skim_ws(p, e);
	if (p >= e || *p != '{' || depth >= JSON_SKIM_DEPTH)
		return -1;
	p = json_skim_ws(p + 1, e);
	if (p < e && *p == '}') {
		*end = p + 1;
		return 0;
	}
	for (;;) {
		const char *ks = p, *kend = p < e && *p == '"' ? str_end(p, e, 0) : NULL, *vs, *vend;
		if (!kend)
			return -1;
		p = json_skim_ws(kend, e);
		if (p >= e || *p != ':' || !(vend = json_skim_value(vs = json_skim_ws(p + 1, e), e, depth + 1, 0)))
			return -1;
		size_t kl = (size_t)(kend - ks) - 2;
		for (k = 0; keys[k]; k++)
			if (strlen(keys[k]) == kl && !memcmp(ks + 1, keys[k], kl)) {
				if (v[k].s)
					return -1;
				v[k].s = vs;
				v[k].e = vend;
			}
		p = json_skim_ws(vend, e);
		if (p < e && *p == '}') {
			*end = p + 1;
			return 0;
		}
		if (p >= e || *p != ',')
			return -1;
		p = json_skim_ws(p + 1, e);
	}
}

int json_skim_string(const char *s, const char *e, char *out, size_t n)
{
	size_t l = (size_t)(e - s);
	if (l < 2 || *s != '"' || e[-1] != '"')
		return -1;
	for (const char *p = s + 1; p < e - 1; p++)
		if (*p == '\\' || *p == '"' || (unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f) {
			json_t *v = json_loadb(s, l, JSON_DECODE_ANY, NULL);
			const char *t = json_string_value(v);
			size_t tl = t ? json_string_length(v) : 0;
			int rc = t && tl < n && !memchr(t, '\0', tl) ? 0 : -1;
			if (rc == 0)
				memcpy(out, t, tl + 1);
			json_decref(v);
			return rc;
		}
	if (l - 2 >= n)
		return -1;
	memcpy(out, s + 1, l - 2);
	out[l - 2] = '\0';
	return 0;
}

int json_skim_paths_add(json_skim_paths *ps, const char *const *pre, int npre, const char *dotted)
{
	struct json_skim_path *x;
	if (ps->n >= JSON_SKIM_PATHS || npre < 0 || npre > JSON_SKIM_NAMES)
		return -1;
	x = &ps->p[ps->n];
	x->len = 0;
	x->extended = 0;
	for (int i = 0; i < npre; i++) {
		x->name[x->len] = pre[i];
		x->name_len[x->len++] = strlen(pre[i]);
	}
	while (dotted && *dotted) {
		size_t l = strcspn(dotted, ".");
		if (!l || x->len == JSON_SKIM_NAMES)
			return -1;
		x->name[x->len] = dotted;
		x->name_len[x->len++] = l;
		dotted += l + (dotted[l] == '.');
	}
	if (!x->len)
		return -1;
	/* a path that begins with all of another's names is found inside that
	 * one's value: json_skim_find then scans into the value */
	for (int i = 0; i < ps->n; i++) {
		struct json_skim_path *y = &ps->p[i], *lo = y->len < x->len ? y : x, *hi = lo == y ? x : y;
		int k = 0;
		if (lo->len == hi->len)
			continue;
		while (k < lo->len && lo->name_len[k] == hi->name_len[k] && !memcmp(lo->name[k], hi->name[k], lo->name_len[k]))
			k++;
		if (k == lo->len)
			lo->extended = 1;
	}
	return ps->n++;
}

/* The scan behind json_skim_cut, for every path of ps at once. Keys are
 * the strings followed by ':'; path i has matched its first m[i] names
 * when its m[i]th name's object is open at depth m[i] + 1 (its key a
 * candidate, cand, until the value's '{'). */
unsigned json_skim_find(const char *s, size_t n, const json_skim_paths *ps, json_skim_found *f)
{
	const char *p = s, *e = s + n;
	int depth = 0, m[JSON_SKIM_PATHS] = {0};
	unsigned cand = 0, dead = 0;
	f->found = 0;
	while (p < e) {
		char c = *p;
		if (c == '"') {
			const char *k = p, *q = str_end(p, e, 0);
			unsigned done = 0;
			if (!q)
				return f->found = 0;
			cand = 0;
			p = json_skim_ws(q, e);
			if (p >= e || *p != ':')
				continue;
			size_t kl = (size_t)(q - k) - 2;
			for (int i = 0; i < ps->n; i++) {
				const struct json_skim_path *x = &ps->p[i];
				if (dead >> i & 1 || depth != m[i] + 1 || x->name_len[m[i]] != kl ||
				    memcmp(k + 1, x->name[m[i]], kl))
					continue;
				if (m[i] == x->len - 1)
					done |= 1u << i; /* the member itself */
				else
					cand |= 1u << i;
			}
			if (done) {
				const char *v = json_skim_value(p + 1, e, 0, JSON_SKIM_STRICT);
				int skip = v != NULL;
				for (int i = 0; i < ps->n; i++) {
					if (!(done >> i & 1))
						continue;
					if (!v || f->found >> i & 1) { /* not strict, or there twice */
						dead |= 1u << i;
						f->found &= ~(1u << i);
					} else {
						f->found |= 1u << i;
						f->at[i] = (size_t)(k - s);
						f->end[i] = (size_t)(v - s);
					}
					if (ps->p[i].extended)
						skip = 0;
				}
				if (skip) { /* no other path inside: past the value */
					p = v;
					continue;
				}
			}
			p++;
			continue;
		}
		if (c == '{' || c == '[') {
			if (c == '{')
				for (int i = 0; i < ps->n; i++)
					if (cand >> i & 1 && depth == m[i] + 1)
						m[i]++;
			depth++;
			cand = 0;
		} else if (c == '}' || c == ']') {
			if (--depth < 0)
				return f->found = 0;
			for (int i = 0; i < ps->n; i++)
				if (m[i] > depth - 1)
					m[i] = depth > 0 ? depth - 1 : 0;
		}
		p++;
	}
	return f->found;
}

/* The bytes [*from, *to) of s[0..n) to cut for the member whose key begins
 * at k and whose value ends at v, with one comma: 1, or 0 when the member
 * is not in its place (a value's end and its comma before, or the object's
 * brace, and a member or the brace after). */
static int member_cut(const char *s, size_t n, size_t k, size_t v, size_t *from, size_t *to)
{
	const char *e = s + n, *a = s + k, *b = json_skim_ws(s + v, e), *pre;
	while (a > s && is_ws(a[-1]))
		a--;
	if (b == e || a == s)
		return 0;
	pre = a - 1; /* the value's end before a comma */
	while (pre > s && is_ws(pre[-1]))
		pre--;
	if (a[-1] == ',' && (*b == ',' || *b == '}') && pre > s && !strchr("{[,:", pre[-1]))
		a--, b = s + v;
	else if (a[-1] == '{' && *b == '}')
		a = s + k, b = s + v;
	else if (a[-1] == '{' && *b == ',' && json_skim_ws(b + 1, e) < e && *json_skim_ws(b + 1, e) == '"')
		a = s + k, b++;
	else
		return 0;
	*from = (size_t)(a - s), *to = (size_t)(b - s);
	return 1;
}

size_t json_skim_cut_found(const char *s, size_t n, const json_skim_found *f, unsigned mask, char *out, int *ncut)
{
	size_t at[JSON_SKIM_PATHS], end[JSON_SKIM_PATHS], from, to;
	unsigned left = f->found & mask;
	int cut = 0;
	if (out != s)
		memcpy(out, s, n);
	for (int i = 0; i < JSON_SKIM_PATHS; i++)
		if (left >> i & 1)
			at[i] = f->at[i], end[i] = f->end[i];
	for (int i = 0; i < JSON_SKIM_PATHS && left; i++) {
		if (!(left >> i & 1))
			continue;
		left &= ~(1u << i);
		if (!member_cut(out, n, at[i], end[i], &from, &to))
			continue;
		memmove(out + from, out + to, n - to);
		n -= to - from;
		cut++;
		/* the members still to cut: gone with this one (inside it),
		 * moved (after it), or shorter (it was inside their value) */
		for (int j = i + 1; j < JSON_SKIM_PATHS; j++) {
			if (!(left >> j & 1))
				continue;
			if (at[j] >= from && end[j] <= to)
				left &= ~(1u << j);
			else if (at[j] >= to)
				at[j] -= to - from, end[j] -= to - from;
			else if (end[j] >= to)
				end[j] -= to - from;
		}
	}
	if (ncut)
		*ncut = cut;
	return n;
}

int json_skim_cut(const char *s, size_t n, const char *const *path, int npath, size_t *from, size_t *to)
{
	json_skim_paths ps;
	json_skim_found f;
	ps.n = 0;
	if (json_skim_paths_add(&ps, path, npath, NULL) < 0 || !json_skim_find(s, n, &ps, &f))
		return 0;
	return member_cut(s, n, f.at[0], f.end[0], from, to);
}
