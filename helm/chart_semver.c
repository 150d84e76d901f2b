/* helm/chart_semver.c — see chart_semver.h. */
#include "helm/chart_semver.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int parse_num(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	if (!isdigit((unsigned char)*s))
		return -1;
	while (isdigit((unsigned char)*s)) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		s++;
	}
	*p = s;
	*out = v;
	return 0;
}

static int is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '-';
}

/* dot-separated identifiers of [0-9A-Za-z-]; copies up to n-1 bytes */
static int parse_idents(const char **p, char *dst, size_t n, int check_numeric)
{
	const char *s = *p, *start = s;
	for (;;) {
		const char *id = s;
		while (is_ident_char(*s))
			s++;
		if (s == id)
			return -1;
		if (check_numeric) {
			int numeric = 1;
			for (const char *q = id; q < s; q++)
				if (!isdigit((unsigned char)*q))
					numeric = 0;
			if (numeric && s - id > 1 && *id == '0')
				return -1;
		}
		if (*s != '.')
			break;
		s++;
	}
	if (dst) {
		size_t len = (size_t)(s - start);
		if (len >= n)
			len = n - 1;
		memcpy(dst, start, len);
		dst[len] = 0;
	}
	*p = s;
	return 0;
}

/* Parses a version; with `wild`, parts may be x/X/ * (constraint side). */
static int parse_version(const char *s, chart_semver *v, int wild)
{
	memset(v, 0, sizeof *v);
	if (*s == 'v' || (wild && *s == 'V'))
		s++;
	if (wild && (*s == 'x' || *s == 'X' || *s == '*')) {
		v->major_wild = 1;
		s++;
	} else if (parse_num(&s, &v->major))
		return -1;
	if (*s == '.') {
		s++;
		if (wild && (*s == 'x' || *s == 'X' || *s == '*'))
			s++;
		else if (parse_num(&s, &v->minor))
			return -1;
		else
			v->minor_set = !v->major_wild;
		if (*s == '.') {
			s++;
			if (wild && (*s == 'x' || *s == 'X' || *s == '*'))
				s++;
			else if (parse_num(&s, &v->patch))
				return -1;
			else
				v->patch_set = v->minor_set;
		}
	}
	if (*s == '-') {
		s++;
		if (parse_idents(&s, v->pre, sizeof v->pre, 1))
			return -1;
	}
	if (*s == '+') {
		s++;
		if (parse_idents(&s, NULL, 0, 0))
			return -1;
	}
	return *s ? -1 : 0;
}

int chart_semver_parse(const char *s, chart_semver *v)
{
	if (parse_version(s, v, 0))
		return -1;
	v->minor_set = v->patch_set = 1;
	return 0;
}

static int cmp_pre(const char *a, const char *b)
{
	if (!*a && !*b)
		return 0;
	if (!*a)
		return 1;
	if (!*b)
		return -1;
	while (*a || *b) {
		if (!*a)
			return -1;
		if (!*b)
			return 1;
		size_t la = strcspn(a, "."), lb = strcspn(b, ".");
		int na = 1, nb = 1;
		for (size_t i = 0; i < la; i++)
			if (!isdigit((unsigned char)a[i]))
				na = 0;
		for (size_t i = 0; i < lb; i++)
			if (!isdigit((unsigned char)b[i]))
				nb = 0;
		int c;
		if (na && nb) {
			c = la != lb ? (la < lb ? -1 : 1) : strncmp(a, b, la);
		} else if (na) {
			c = -1;
		} else if (nb) {
			c = 1;
		} else {
			size_t m = la < lb ? la : lb;
			c = strncmp(a, b, m);
			if (!c && la != lb)
				c = la < lb ? -1 : 1;
		}
		if (c)
			return c < 0 ? -1 : 1;
		a += la;
		b += lb;
		if (*a == '.')
			a++;
		if (*b == '.')
			b++;
	}
	return 0;
}

int chart_semver_cmp(const chart_semver *a, const chart_semver *b)
{
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	if (a->patch != b->patch)
		return a->patch < b->patch ? -1 : 1;
	return cmp_pre(a->pre, b->pre);
}

/* One constraint `op version` against v. */
static int check_one(const char *op, const chart_semver *c, const chart_semver *v)
{
	int dirty = c->major_wild || !c->minor_set || !c->patch_set;
	if (v->pre[0] && !c->pre[0])
		return 0;
	if (c->major_wild)
		return strcmp(op, "!=") != 0;
	int cmp = chart_semver_cmp(v, c);
	if (!strcmp(op, "") || !strcmp(op, "=")) {
		if (!dirty)
			return cmp == 0;
		op = "~";
	}
	if (!strcmp(op, "!=")) {
		if (!dirty)
			return cmp != 0;
		if (v->major != c->major)
			return 1;
		if (!c->minor_set)
			return 0;
		if (v->minor != c->minor)
			return 1;
		return 0;
	}
	if (!strcmp(op, ">")) {
		if (!dirty)
			return cmp > 0;
		if (v->major != c->major)
			return v->major > c->major;
		if (!c->minor_set)
			return 0;
		return v->minor > c->minor;
	}
	if (!strcmp(op, ">=") || !strcmp(op, "=>"))
		return cmp >= 0;
	if (!strcmp(op, "<"))
		return cmp < 0;
	if (!strcmp(op, "<=") || !strcmp(op, "=<")) {
		if (!dirty)
			return cmp <= 0;
		if (v->major != c->major)
			return v->major < c->major;
		if (!c->minor_set)
			return 1;
		return v->minor <= c->minor;
	}
	if (!strcmp(op, "~") || !strcmp(op, "~>")) {
		if (cmp < 0)
			return 0;
		if (v->major != c->major)
			return 0;
		if (c->minor_set && v->minor != c->minor)
			return 0;
		return 1;
	}
	if (!strcmp(op, "^")) {
		if (cmp < 0)
			return 0;
		if (c->major > 0 || !c->minor_set)
			return v->major == c->major;
		if (c->minor > 0 || !c->patch_set)
			return v->major == 0 && v->minor == c->minor;
		return v->major == 0 && v->minor == 0 && v->patch == c->patch;
	}
	return 0;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* One `||` alternative: all of its comparisons hold. -1 on syntax error. */
static int check_and(char *s, const chart_semver *v)
{
	char *p = trim(s);
	/* "a - b" range */
	char *dash = strstr(p, " - ");
	if (dash) {
		*dash = 0;
		chart_semver lo, hi;
		char *a = trim(p), *b = trim(dash + 3);
		if (parse_version(a, &lo, 1) || parse_version(b, &hi, 1))
			return -1;
		return check_one(">=", &lo, v) && check_one("<=", &hi, v);
	}
	int ok = 1, any = 0;
	while (*p) {
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		char op[3] = {0};
		size_t n = 0;
		while (n < 2 && strchr("=!<>~^", *p))
			op[n++] = *p++;
		if (*p == '>' || *p == '=')
			return -1;
		while (isspace((unsigned char)*p))
			p++;
		char ver[256];
		size_t m = 0;
		while (*p && *p != ',' && !isspace((unsigned char)*p) && m + 1 < sizeof ver)
			ver[m++] = *p++;
		ver[m] = 0;
		chart_semver c;
		if (!m || parse_version(ver, &c, 1))
			return -1;
		any = 1;
		if (!check_one(op, &c, v))
			ok = 0;
	}
	return any ? ok : -1;
}

int chart_semver_satisfies(const char *constraint, const char *version)
{
	chart_semver v;
	if (!constraint || !version || chart_semver_parse(version, &v))
		return 0;
	char *copy = strdup(constraint);
	if (!copy)
		return 0;
	int result = 0, valid = 1;
	char *save = copy;
	for (;;) {
		char *bar = strstr(save, "||");
		if (bar)
			*bar = 0;
		int r = check_and(save, &v);
		if (r < 0)
			valid = 0;
		else if (r > 0)
			result = 1;
		if (!bar)
			break;
		save = bar + 2;
	}
	free(copy);
	return valid && result;
}
