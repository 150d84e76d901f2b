/* lib/semver.c — Masterminds/semver v3.4.0 versions and constraints (see
 * semver.h). The constraint grammar is the library's regular expressions,
 * matched by hand (lib/semver_match.h says how each one is read). */
#include "lib/semver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/semver_match.h"
#include "lib/vec.h"

static int is_ident_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

/* Go strconv.ParseUint(s, 10, 64) on a digit run. */
static int parse_u64(const char *s, size_t n, uint64_t *out, char *errmsg, size_t errsz)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10) {
			snprintf(errmsg, errsz,
				 "error parsing version segment: strconv.ParseUint: parsing \"%.*s\": value out of range",
				 (int)n, s);
			return -1;
		}
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* One dot-separated identifier list: [0-9A-Za-z-]+(\.[0-9A-Za-z-]+)* */
static size_t scan_idents(const char *s, size_t n)
{
	size_t i = 0;
	for (;;) {
		size_t st = i;
		while (i < n && is_ident_char(s[i]))
			i++;
		if (i == st)
			return st == 0 ? 0 : st - 1; /* drop a trailing '.' */
		if (i < n && s[i] == '.' && i + 1 < n && is_ident_char(s[i + 1])) {
			i++;
			continue;
		}
		return i;
	}
}

const char *semver_check_prerelease(const char *p)
{
	const char *s = p;
	while (1) {
		const char *e = strchr(s, '.');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		int digits = 1, ok = 1;
		for (size_t i = 0; i < n; i++) {
			if (s[i] < '0' || s[i] > '9')
				digits = 0;
			if (!is_ident_char(s[i]))
				ok = 0;
		}
		if (digits) {
			if (n > 1 && s[0] == '0')
				return "version segment starts with 0";
		} else if (!ok) {
			return "invalid prerelease string";
		}
		if (!e)
			return NULL;
		s = e + 1;
	}
}

const char *semver_check_metadata(const char *m)
{
	for (const char *s = m; *s; s++)
		if (*s != '.' && !is_ident_char(*s))
			return "invalid metadata string";
	return NULL;
}

int semver_parse(const char *s, size_t n, semver *v, char *errmsg, size_t errsz)
{
	size_t i = 0, st, num[3][2] = {{0, 0}, {0, 0}, {0, 0}};
	int nnum = 0;
	const char *err;
	memset(v, 0, sizeof *v);
	if (n > SEMVER_MAX_LEN) {
		snprintf(errmsg, errsz, "version string is too long (max %d bytes)", SEMVER_MAX_LEN);
		return -1;
	}
	if (i < n && s[i] == 'v')
		i++;
	while (nnum < 3) {
		if (nnum > 0) {
			if (i + 1 >= n || s[i] != '.' || s[i + 1] < '0' || s[i + 1] > '9')
				break;
			i++;
		}
		st = i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == st)
			goto invalid;
		num[nnum][0] = st;
		num[nnum][1] = i - st;
		nnum++;
	}
	if (i < n && s[i] == '-') {
		size_t k = scan_idents(s + i + 1, n - i - 1);
		if (k == 0)
			goto invalid;
		memcpy(v->pre, s + i + 1, k);
		i += 1 + k;
	}
	if (i < n && s[i] == '+') {
		size_t k = scan_idents(s + i + 1, n - i - 1);
		if (k == 0)
			goto invalid;
		memcpy(v->meta, s + i + 1, k);
		i += 1 + k;
	}
	if (i != n)
		goto invalid;
	memcpy(v->original, s, n);
	uint64_t *dst[3] = {&v->major, &v->minor, &v->patch};
	for (int k = 0; k < nnum; k++)
		if (parse_u64(s + num[k][0], num[k][1], dst[k], errmsg, errsz))
			return -1;
	if (v->pre[0] && (err = semver_check_prerelease(v->pre))) {
		snprintf(errmsg, errsz, "%s", err);
		return -1;
	}
	if (v->meta[0] && (err = semver_check_metadata(v->meta))) {
		snprintf(errmsg, errsz, "%s", err);
		return -1;
	}
	return 0;
invalid:
	snprintf(errmsg, errsz, "invalid semantic version");
	return -1;
}

void semver_format(const semver *v, bh_buf *out)
{
	bh_buf_printf(out, "%llu.%llu.%llu", (unsigned long long)v->major, (unsigned long long)v->minor,
		      (unsigned long long)v->patch);
	if (v->pre[0])
		bh_buf_printf(out, "-%s", v->pre);
	if (v->meta[0])
		bh_buf_printf(out, "+%s", v->meta);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int all_digits(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return 0;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 1;
}

/* comparePrePart */
static int cmp_pre_part(const char *s, size_t sn, const char *o, size_t on)
{
	uint64_t si = 0, oi = 0;
	int sd, od;
	if (sn == on && memcmp(s, o, sn) == 0)
		return 0;
	if (sn == 0)
		return -1;
	if (on == 0)
		return 1;
	sd = all_digits(s, sn, &si);
	od = all_digits(o, on, &oi);
	if (!sd && !od) {
		size_t m = sn < on ? sn : on;
		int c = memcmp(s, o, m);
		if (c == 0)
			c = sn < on ? -1 : 1;
		return c > 0 ? 1 : -1;
	}
	if (!od)
		return -1; /* s numeric, o not */
	if (!sd)
		return 1;
	return si > oi ? 1 : -1;
}

static int cmp_prerelease(const char *a, const char *b)
{
	while (*a || *b) {
		const char *ea = strchr(a, '.'), *eb = strchr(b, '.');
		size_t na = ea ? (size_t)(ea - a) : strlen(a);
		size_t nb = eb ? (size_t)(eb - b) : strlen(b);
		int d = cmp_pre_part(a, na, b, nb);
		if (d)
			return d;
		a += na + (ea ? 1 : 0);
		b += nb + (eb ? 1 : 0);
		if (!ea && !eb)
			break;
	}
	return 0;
}

int semver_compare(const semver *a, const semver *b)
{
	int d;
	if ((d = cmp_u64(a->major, b->major)) || (d = cmp_u64(a->minor, b->minor)) ||
	    (d = cmp_u64(a->patch, b->patch)))
		return d;
	if (!a->pre[0] && !b->pre[0])
		return 0;
	if (!a->pre[0])
		return 1;
	if (!b->pre[0])
		return -1;
	return cmp_prerelease(a->pre, b->pre);
}

/* ---- constraints ---- */

typedef struct cons {
	char op[3];
	semver con;
	int dirty, minor_dirty, patch_dirty;
} cons;

/* ---- the constraint grammar (see semver_match.h) ---- */

static int is_ws(char c)
{
	return c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' ';
}

/* [0-9|x|X|\*]: a version part's character (the class holds '|') */
static int is_part(char c)
{
	return (c >= '0' && c <= '9') || c == '|' || c == 'x' || c == 'X' || c == '*';
}

static size_t skip_ws(const char *s, size_t n, size_t i)
{
	while (i < n && is_ws(s[i]))
		i++;
	return i;
}

/* The operator at s[i]: its length, 0 for the empty alternative. Where an
 * operator is a prefix of another (= of =>, ~ of ~>), only the longer one
 * can be followed by a version (no version starts with = < >), so taking
 * the longest is what the regex's backtracking ends with. */
static size_t op_at(const char *s, size_t n, size_t i)
{
	static const char two[][2] = {{'!', '='}, {'>', '='}, {'=', '>'}, {'<', '='}, {'=', '<'}, {'~', '>'}};
	if (i >= n)
		return 0;
	if (i + 1 < n)
		for (size_t k = 0; k < sizeof two / sizeof *two; k++)
			if (s[i] == two[k][0] && s[i + 1] == two[k][1])
				return 2;
	return strchr("=><~^", s[i]) && s[i] ? 1 : 0;
}

static void set_group(size_t *ov, int g, size_t a, size_t b)
{
	ov[2 * g] = a;
	ov[2 * g + 1] = b;
}

/* (-|\+)([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*) at s[i]: its end, or i */
static size_t ident_list(const char *s, size_t n, size_t i, char lead)
{
	size_t j;
	if (i + 1 >= n || s[i] != lead || !is_ident_char(s[i + 1]))
		return i;
	j = i + 1;
	while (j < n && is_ident_char(s[j]))
		j++;
	while (j + 1 < n && s[j] == '.' && is_ident_char(s[j + 1]))
		for (j++; j < n && is_ident_char(s[j]); j++)
			;
	return j;
}

/* (\.[0-9|x|X|\*]+) at s[i]: its end, or i */
static size_t dot_part(const char *s, size_t n, size_t i)
{
	size_t j;
	if (i + 1 >= n || s[i] != '.' || !is_part(s[i + 1]))
		return i;
	for (j = i + 1; j < n && is_part(s[j]); j++)
		;
	return j;
}

/* The version pattern CV at s[i], greedy: each optional part is taken
 * when it matches, and a shorter match would leave a character of the
 * version that nothing after a version accepts. Its end, or SIZE_MAX;
 * groups g (whole), g+1 major, g+2 ".minor", g+3 ".patch", g+4 "-pre"
 * (unset: SIZE_MAX) when ov is not NULL. */
static size_t cv_at(const char *s, size_t n, size_t i, size_t *ov, int g)
{
	size_t j = i, a, b, c, d, e;
	if (j < n && s[j] == 'v')
		j++;
	a = j;
	while (j < n && is_part(s[j]))
		j++;
	if (j == a)
		return SIZE_MAX;
	b = dot_part(s, n, j);
	c = b > j ? dot_part(s, n, b) : b;
	d = ident_list(s, n, c, '-');
	e = ident_list(s, n, d, '+');
	if (ov) {
		set_group(ov, g, i, e);
		set_group(ov, g + 1, a, j);
		if (b > j)
			set_group(ov, g + 2, j, b);
		if (c > b)
			set_group(ov, g + 3, b, c);
		if (d > c)
			set_group(ov, g + 4, c, d);
	}
	return e;
}

static void ov_unset(size_t *ov, int ngroups)
{
	for (int k = 0; k < 2 * ngroups; k++)
		ov[k] = SIZE_MAX;
}

int semver_match_one(const char *s, size_t n, size_t ov[SEMVER_ONE_GROUPS * 2])
{
	size_t i = skip_ws(s, n, 0), ol, e;
	ov_unset(ov, SEMVER_ONE_GROUPS);
	ol = op_at(s, n, i);
	e = cv_at(s, n, skip_ws(s, n, i + ol), ov, 2);
	if (e == SIZE_MAX || skip_ws(s, n, e) != n)
		return 0;
	set_group(ov, 0, 0, n);
	set_group(ov, 1, i, i + ol);
	return 1;
}

int semver_match_find(const char *s, size_t n, size_t start, size_t ov[SEMVER_FIND_GROUPS * 2])
{
	for (size_t i = start; i < n; i++) {
		/* an operator character can only start its operator; a blank or
		 * a version character only the empty alternative */
		size_t ol = op_at(s, n, i), j = skip_ws(s, n, i + ol), e;
		if ((e = cv_at(s, n, j, NULL, 0)) == SIZE_MAX)
			continue;
		ov_unset(ov, SEMVER_FIND_GROUPS);
		cv_at(s, n, j, ov, 2);
		set_group(ov, 0, i, e);
		set_group(ov, 1, i, i + ol);
		return 1;
	}
	return 0;
}

int semver_match_valid(const char *s, size_t n)
{
	size_t i = skip_ws(s, n, 0);
	for (;;) {
		size_t e = cv_at(s, n, skip_ws(s, n, i + op_at(s, n, i)), NULL, 0), k;
		if (e == SIZE_MAX)
			return 0;
		k = skip_ws(s, n, e);
		if (k == n)
			return 1;
		if (s[k] == ',')
			k = skip_ws(s, n, k + 1);
		else if (k == e)
			return 0; /* a term is followed by blanks, a comma, or the end */
		i = k;
	}
}

int semver_match_range(const char *s, size_t n, size_t start, size_t ov[SEMVER_RANGE_GROUPS * 2])
{
	for (size_t i = start; i < n; i++) {
		size_t j = skip_ws(s, n, i), e1, k, k2, e2;
		e1 = cv_at(s, n, j, NULL, 0);
		if (e1 == SIZE_MAX)
			continue;
		k = skip_ws(s, n, e1);
		if (k == e1 || k >= n || s[k] != '-')
			continue;
		k2 = skip_ws(s, n, k + 1);
		if (k2 == k + 1 || (e2 = cv_at(s, n, k2, NULL, 0)) == SIZE_MAX)
			continue;
		ov_unset(ov, SEMVER_RANGE_GROUPS);
		cv_at(s, n, j, ov, 1);
		cv_at(s, n, k2, ov, 11);
		set_group(ov, 0, i, skip_ws(s, n, e2));
		return 1;
	}
	return 0;
}

/* group g of ov as (ptr,len); len 0 when unset */
static size_t group(const size_t *ov, const char *s, int g, const char **p)
{
	if (ov[2 * g] == SIZE_MAX) {
		*p = s;
		return 0;
	}
	*p = s + ov[2 * g];
	return ov[2 * g + 1] - ov[2 * g];
}

static int is_x(const char *s, size_t n)
{
	return n == 1 && (s[0] == 'x' || s[0] == 'X' || s[0] == '*');
}

/* Whether s has a " - " (any white space each side): re_range needs one. */
static int has_range_dash(const char *s, size_t n)
{
	for (size_t i = 1; i + 1 < n; i++)
		if (s[i] == '-' && strchr("\t\n\f\r ", s[i - 1]) && strchr("\t\n\f\r ", s[i + 1]))
			return 1;
	return 0;
}

/* rewriteRange: "A - B" -> ">= A, <= B " */
static void rewrite_range(const char *s, size_t n, bh_buf *out)
{
	size_t pos = 0, ov[SEMVER_RANGE_GROUPS * 2];
	int ranges = has_range_dash(s, n);
	bh_buf_reset(out);
	while (ranges && pos < n && semver_match_range(s, n, pos, ov)) {
		const char *a, *b;
		size_t an = group(ov, s, 1, &a), bn = group(ov, s, 11, &b);
		bh_buf_put(out, s + pos, ov[0] - pos);
		bh_buf_printf(out, ">= %.*s, <= %.*s ", (int)an, a, (int)bn, b); /* with the space after, as Masterminds writes it */
		pos = ov[1];
	}
	if (pos < n)
		bh_buf_put(out, s + pos, n - pos);
}

static int parse_cons(const char *s, size_t n, cons *c)
{
	const char *op, *cv, *maj, *min, *pat, *pre;
	size_t opn, cvn, majn, minn, patn, pren, ov[SEMVER_ONE_GROUPS * 2];
	char ver[SEMVER_MAX_CONSTRAINT + 64], em[256];
	if (!semver_match_one(s, n, ov))
		return -1;
	opn = group(ov, s, 1, &op);
	cvn = group(ov, s, 2, &cv);
	majn = group(ov, s, 3, &maj);
	minn = group(ov, s, 4, &min);
	patn = group(ov, s, 5, &pat);
	pren = group(ov, s, 6, &pre);
	memset(c, 0, sizeof *c);
	memcpy(c->op, op, opn < 2 ? opn : 2);
	if (is_x(maj, majn) || majn == 0) {
		snprintf(ver, sizeof ver, "0.0.0%.*s", (int)pren, pre);
		c->dirty = 1;
	} else if (minn == 0 || is_x(min + 1, minn - 1)) {
		c->minor_dirty = c->dirty = 1;
		snprintf(ver, sizeof ver, "%.*s.0.0%.*s", (int)majn, maj, (int)pren, pre);
	} else if (patn == 0 || is_x(pat + 1, patn - 1)) {
		c->patch_dirty = c->dirty = 1;
		snprintf(ver, sizeof ver, "%.*s%.*s.0%.*s", (int)majn, maj, (int)minn, min, (int)pren, pre);
	} else {
		snprintf(ver, sizeof ver, "%.*s", (int)cvn, cv);
	}
	if (semver_parse(ver, strlen(ver), &c->con, em, sizeof em))
		return -2; /* "constraint Parser Error" */
	return 0;
}

static int check_one(const cons *c, const semver *v, int include_pre);

static int c_tilde(const cons *c, const semver *v)
{
	if (semver_compare(v, &c->con) < 0)
		return 0;
	if (c->con.major == 0 && c->con.minor == 0 && c->con.patch == 0 && !c->minor_dirty && !c->patch_dirty)
		return 1;
	if (v->major != c->con.major)
		return 0;
	if (v->minor != c->con.minor && !c->minor_dirty)
		return 0;
	return 1;
}

static int check_one(const cons *c, const semver *v, int include_pre)
{
	const char *op = c->op;
	int cmp;
	if (v->pre[0] && !include_pre)
		return 0;
	cmp = semver_compare(v, &c->con);
	if (op[0] == '\0' || strcmp(op, "=") == 0) {
		if (c->dirty)
			return c_tilde(c, v);
		return cmp == 0;
	}
	if (strcmp(op, "!=") == 0) {
		if (c->dirty) {
			if (c->con.major != v->major)
				return 1;
			if (c->con.minor != v->minor && !c->minor_dirty)
				return 1;
			else if (c->minor_dirty)
				return 0;
			else if (c->con.patch != v->patch && !c->patch_dirty)
				return 1;
			else if (c->patch_dirty) {
				if (v->pre[0] || c->con.pre[0])
					return cmp_prerelease(v->pre, c->con.pre) != 0;
				return 0;
			}
		}
		return cmp != 0;
	}
	if (strcmp(op, ">") == 0) {
		if (!c->dirty)
			return cmp == 1;
		if (v->major > c->con.major)
			return 1;
		if (v->major < c->con.major || c->minor_dirty)
			return 0;
		if (c->patch_dirty)
			return v->minor > c->con.minor;
		return cmp == 1;
	}
	if (strcmp(op, "<") == 0)
		return cmp < 0;
	if (strcmp(op, ">=") == 0 || strcmp(op, "=>") == 0)
		return cmp >= 0;
	if (strcmp(op, "<=") == 0 || strcmp(op, "=<") == 0) {
		if (!c->dirty)
			return cmp <= 0;
		if (v->major > c->con.major)
			return 0;
		if (v->major == c->con.major && v->minor > c->con.minor && !c->minor_dirty)
			return 0;
		return 1;
	}
	if (strcmp(op, "~") == 0 || strcmp(op, "~>") == 0)
		return c_tilde(c, v);
	if (strcmp(op, "^") == 0) {
		if (cmp < 0)
			return 0;
		if (c->con.major > 0 || c->minor_dirty)
			return v->major == c->con.major;
		if (c->con.major == 0 && v->major > 0)
			return 0;
		if (c->con.minor > 0 || c->patch_dirty)
			return v->minor == c->con.minor;
		if (c->con.minor == 0 && v->minor > 0)
			return 0;
		return c->con.patch == v->patch;
	}
	return 0;
}

#define MAX_AND 256

int semver_constraint_check(const char *cstr, size_t n, const semver *v, char *errmsg, size_t errsz)
{
	bh_buf s = BH_BUF_INIT;
	const char *p, *end;
	int result = 0, rc = 0;
	cons *cs = NULL; /* one OR group's terms, grown as they come (a cons is ~800 bytes) */
	size_t ncap = 0;
	if (n > SEMVER_MAX_CONSTRAINT) {
		snprintf(errmsg, errsz, "improper constraint: constraint longer than %d bytes", SEMVER_MAX_CONSTRAINT);
		return -1;
	}
	rewrite_range(cstr, n, &s);
	if (!bh_buf_ok(&s)) {
		snprintf(errmsg, errsz, "out of memory");
		rc = -1;
	}
	p = bh_buf_str(&s);
	end = p + s.len;
	/* every OR group must parse before any is checked (NewConstraint) */
	for (int pass = 0; pass < 2 && rc == 0; pass++) {
		const char *q = p;
		while (rc == 0) {
			const char *bar = strstr(q, "||");
			size_t gl = bar ? (size_t)(bar - q) : (size_t)(end - q);
			size_t pos = 0, ov[SEMVER_FIND_GROUPS * 2];
			int nc = 0, has_pre = 0, ok = 1;
			if (!semver_match_valid(q, gl)) {
				snprintf(errmsg, errsz, "improper constraint: %.*s", (int)gl, q);
				rc = -1;
				break;
			}
			while (pos < gl && semver_match_find(q, gl, pos, ov)) {
				size_t ms = ov[0], me = ov[1];
				int prc;
				if (nc == MAX_AND) {
					snprintf(errmsg, errsz, "improper constraint: more than %d terms", MAX_AND);
					rc = -1;
					break;
				}
				/* most groups hold one or two terms */
				if (VEC_RESERVE(cs, ncap, (size_t)nc + 1, 4) < 0) {
					snprintf(errmsg, errsz, "out of memory");
					rc = -1;
					break;
				}
				prc = parse_cons(q + ms, me - ms, &cs[nc]);
				if (prc) {
					if (prc == -2)
						snprintf(errmsg, errsz, "constraint Parser Error");
					else
						snprintf(errmsg, errsz, "improper constraint: %.*s", (int)(me - ms), q + ms);
					rc = -1;
					break;
				}
				if (cs[nc].con.pre[0])
					has_pre = 1;
				nc++;
				pos = me > ms ? me : me + 1;
			}
			if (rc)
				break;
			if (pass == 1 && !result) {
				for (int i = 0; i < nc && ok; i++)
					ok = check_one(&cs[i], v, has_pre);
				if (ok && nc > 0)
					result = 1;
			}
			if (!bar)
				break;
			q = bar + 2;
		}
	}
	free(cs);
	bh_buf_free(&s);
	return rc ? -1 : result;
}

int semver_satisfies(const char *constraint, const char *version)
{
	semver v;
	char em[256];
	if (!constraint || !version || semver_parse(version, strlen(version), &v, em, sizeof em))
		return 0;
	return semver_constraint_check(constraint, strlen(constraint), &v, em, sizeof em) == 1;
}
