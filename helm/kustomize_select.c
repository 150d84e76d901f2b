/* helm/kustomize_select.c — target selection: kustomize's
 * types.SelectorRegex and resmap.Select (regular expressions for group,
 * version, kind, name and namespace; label and annotation selectors as
 * k8s.io/apimachinery labels.Parse reads them). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helm/kustomize.h"
#include "helm/kustomize_internal.h"
#include "helm/kustomize_schema.h"

/* ---- label selectors (k8s.io/apimachinery labels.Parse) ------------------------------- */

enum sel_op { OP_EQ, OP_NE, OP_IN, OP_NOTIN, OP_EXISTS, OP_NOTEXISTS, OP_GT, OP_LT };

typedef struct sel_req {
	char *key;
	enum sel_op op;
	char **vals;
	size_t nvals;
} sel_req;

typedef struct labelsel {
	sel_req *r;
	size_t n;
} labelsel;

static void labelsel_free(labelsel *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->r[i].key);
		for (size_t j = 0; j < l->r[i].nvals; j++)
			free(l->r[i].vals[j]);
		free(l->r[i].vals);
	}
	free(l->r);
	l->r = NULL;
	l->n = 0;
}

static int push_val(sel_req *r, char *v)
{
	char **nv = realloc(r->vals, (r->nvals + 1) * sizeof *nv);
	if (!nv || !v) {
		free(v);
		return -1;
	}
	r->vals = nv;
	r->vals[r->nvals++] = v;
	return 0;
}

/* k8s.io/apimachinery validation: ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
 * (empty allowed) */
static int qualified_part(const char *s)
{
	size_t n = strlen(s);
	if (!n)
		return 1;
	if (!isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
			return 0;
	return 1;
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)* */
static int dns1123_subdomain(const char *s)
{
	const char *p = s;
	for (;;) {
		size_t n = strcspn(p, ".");
		if (!n || !(islower((unsigned char)p[0]) || isdigit((unsigned char)p[0])) ||
		    !(islower((unsigned char)p[n - 1]) || isdigit((unsigned char)p[n - 1])))
			return 0;
		for (size_t i = 0; i < n; i++)
			if (!islower((unsigned char)p[i]) && !isdigit((unsigned char)p[i]) && p[i] != '-')
				return 0;
		if (!p[n])
			return 1;
		p += n + 1;
	}
}

#define KZ_NAME_RE_ERR                                                                                       \
	"must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric " \
	"character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "                 \
	"'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

/* labels.Parse's checks of a requirement's key (a qualified name) and
 * values (label values), worded as k8s.io/apimachinery words them. */
static int labelsel_req_check(const sel_req *r, bh_error *err)
{
	char msg[1024] = "";
	const char *slash = strchr(r->key, '/'), *name = slash ? slash + 1 : r->key;
#define KZ_ADD(...) snprintf(msg + strlen(msg), sizeof msg - strlen(msg), __VA_ARGS__)
	if (slash && strchr(slash + 1, '/')) {
		KZ_ADD("a qualified name " KZ_NAME_RE_ERR " with an optional DNS subdomain prefix and '/' (e.g. "
		       "'example.com/MyName')");
	} else {
		if (slash && slash == r->key)
			KZ_ADD("prefix part must be non-empty");
		else if (slash) {
			char prefix[512];
			snprintf(prefix, sizeof prefix, "%.*s", (int)(slash - r->key), r->key);
			if (slash - r->key > 253)
				KZ_ADD("prefix part must be no more than 253 characters");
			if (!dns1123_subdomain(prefix))
				KZ_ADD("%sprefix part a DNS-1123 subdomain must consist of lower case alphanumeric "
				       "characters, '-' or '.', and must start and end with an alphanumeric character "
				       "(e.g. 'example.com', regex used for validation is "
				       "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
				       *msg ? "; " : "");
		}
		if (!*name)
			KZ_ADD("%sname part must be non-empty", *msg ? "; " : "");
		else if (strlen(name) > 63)
			KZ_ADD("%sname part must be no more than 63 characters", *msg ? "; " : "");
		if (!*name || !qualified_part(name))
			KZ_ADD("%sname part " KZ_NAME_RE_ERR, *msg ? "; " : "");
	}
	if (*msg)
		return bh_error_set(err, BH_EINVAL, "invalid label key \"%s\": %s", r->key,
				    msg);
	for (size_t i = 0; i < r->nvals; i++) {
		const char *v = r->vals[i];
		if (strlen(v) > 63)
			KZ_ADD("must be no more than 63 characters");
		if (!qualified_part(v))
			KZ_ADD("%sa valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
			       "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
			       "'my_value',  or '12345', regex used for validation is "
			       "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
			       *msg ? "; " : "");
		if (*msg)
			return bh_error_set(err, BH_EINVAL,
					    "invalid label value: \"%s\": at key: \"%s\": %s", v,
					    r->key, msg);
	}
#undef KZ_ADD
	return 0;
}

/* labels.Parse (kyaml's copy of k8s.io/apimachinery's): its lexer and
 * parser, with their error texts. */
enum sel_tok { T_ERROR, T_END, T_CLOSE, T_COMMA, T_NOTEXISTS, T_DEQ, T_EQ, T_GT, T_ID, T_IN, T_LT, T_NE, T_NOTIN, T_OPEN };

typedef struct sel_item {
	enum sel_tok tok;
	char *lit;
} sel_item;

static int sel_special(char c)
{
	return c && strchr("=!(),><", c) != NULL;
}

static int sel_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static enum sel_tok sel_literal(const char *s, size_t n)
{
	static const struct {
		const char *s;
		enum sel_tok t;
	} lits[] = {{")", T_CLOSE}, {",", T_COMMA}, {"!", T_NOTEXISTS}, {"==", T_DEQ}, {"=", T_EQ},	{">", T_GT},
		    {"in", T_IN},    {"<", T_LT},    {"!=", T_NE},	 {"notin", T_NOTIN}, {"(", T_OPEN}};
	for (size_t i = 0; i < sizeof lits / sizeof lits[0]; i++)
		if (strlen(lits[i].s) == n && !strncmp(lits[i].s, s, n))
			return lits[i].t;
	return T_ERROR;
}

/* Lexer.Lex over the whole text: the items, the last T_END; NULL when out
 * of memory. */
static sel_item *sel_scan(const char *s, size_t *n)
{
	sel_item *it = NULL;
	size_t cap = 0;
	*n = 0;
	for (;;) {
		enum sel_tok t;
		size_t len = 0;
		char *lit;
		while (sel_space(*s))
			s++;
		if (!*s) {
			t = T_END;
			lit = strdup("");
		} else if (sel_special(*s)) { /* the longest literal among the symbols */
			size_t k = 0;
			t = T_ERROR;
			while (sel_special(s[k])) {
				enum sel_tok x = sel_literal(s, k + 1);
				k++;
				if (x != T_ERROR) {
					t = x;
					len = k;
				} else if (t != T_ERROR) {
					break;
				}
			}
			if (t == T_ERROR) {
				len = k;
				lit = malloc(k + 40);
				if (lit)
					sprintf(lit, "error expected: keyword found '%.*s'", (int)k, s);
			} else {
				lit = strndup(s, len);
			}
		} else {
			while (s[len] && !sel_special(s[len]) && !sel_space(s[len]))
				len++;
			t = sel_literal(s, len);
			if (t == T_ERROR)
				t = T_ID;
			lit = strndup(s, len);
		}
		if (!lit || (*n + 1 > cap && !(cap = cap ? cap * 2 : 16, it = realloc(it, cap * sizeof *it)))) {
			free(lit);
			break;
		}
		it[(*n)++] = (sel_item){t, lit};
		s += len;
		if (t == T_END)
			return it;
	}
	for (size_t i = 0; it && i < *n; i++)
		free(it[i].lit);
	free(it);
	return NULL;
}

typedef struct sel_parser {
	sel_item *it;
	size_t pos;
} sel_parser;

/* lookahead/consume in the Values context: "in" and "notin" are words */
static enum sel_tok sel_peek(const sel_parser *p, int values, const char **lit)
{
	enum sel_tok t = p->it[p->pos].tok;
	if (lit)
		*lit = p->it[p->pos].lit;
	return values && (t == T_IN || t == T_NOTIN) ? T_ID : t;
}

static enum sel_tok sel_next(sel_parser *p, int values, const char **lit)
{
	enum sel_tok t = sel_peek(p, values, lit);
	if (p->it[p->pos].tok != T_END)
		p->pos++;
	return t;
}

static int sel_value_add(sel_req *r, const char *v)
{
	for (size_t i = 0; i < r->nvals; i++) /* a set */
		if (!strcmp(r->vals[i], v))
			return 0;
	return push_val(r, strdup(v));
}

/* Go's strconv.ParseInt(s, 10, 64) succeeds */
static int go_int64(const char *s, long long *out)
{
	char *e;
	const char *d = s + (*s == '+' || *s == '-');
	if (!*d || strspn(d, "0123456789") != strlen(d))
		return 0;
	errno = 0;
	*out = strtoll(s, &e, 10);
	return errno == 0 && !*e;
}

#define SEL_FAIL(...) do { bh_error_set(err, BH_EINVAL, __VA_ARGS__); goto fail; } while (0)

/* parseRequirement into r (its errors without "unable to parse
 * requirement: ") */
static int sel_requirement(sel_parser *p, sel_req *r, bh_error *err)
{
	const char *lit;
	enum sel_tok t = sel_next(p, 1, &lit), t2;
	int notexists = 0;
	if (t == T_NOTEXISTS) {
		notexists = 1;
		t = sel_next(p, 1, &lit);
	}
	if (t != T_ID)
		return bh_error_set(err, BH_EINVAL, "found '%s', expected: identifier", lit);
	if (!(r->key = strdup(lit)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	if (labelsel_req_check(r, err) < 0)
		return -1;
	t2 = sel_peek(p, 1, NULL);
	if (notexists || t2 == T_END || t2 == T_COMMA) {
		r->op = notexists ? OP_NOTEXISTS : OP_EXISTS;
		return 0;
	}
	switch (sel_next(p, 0, &lit)) {
	case T_IN: r->op = OP_IN; break;
	case T_EQ:
	case T_DEQ: r->op = OP_EQ; break;
	case T_GT: r->op = OP_GT; break;
	case T_LT: r->op = OP_LT; break;
	case T_NOTIN: r->op = OP_NOTIN; break;
	case T_NE: r->op = OP_NE; break;
	default: return bh_error_set(err, BH_EINVAL, "found '%s', expected: '=', '!=', '==', 'in', notin'", lit);
	}
	if (r->op == OP_IN || r->op == OP_NOTIN) { /* parseValues */
		const char *l2;
		if (sel_next(p, 1, &lit) != T_OPEN)
			return bh_error_set(err, BH_EINVAL, "found '%s' expected: '('", lit);
		t = sel_peek(p, 1, &lit);
		if (t == T_CLOSE) {
			sel_next(p, 1, NULL);
			if (sel_value_add(r, "") < 0)
				return bh_error_set(err, BH_ENOMEM, "out of memory");
		} else if (t == T_ID || t == T_COMMA) {
			const char *first = lit;
			for (;;) { /* parseIdentifiersList */
				const char *l;
				enum sel_tok x = sel_next(p, 1, &l);
				if (x == T_ID) {
					if (sel_value_add(r, l) < 0)
						return bh_error_set(err, BH_ENOMEM, "out of memory");
					x = sel_peek(p, 1, &l2);
					if (x == T_COMMA)
						continue;
					if (x == T_CLOSE)
						break;
					return bh_error_set(err, BH_EINVAL, "found '%s', expected: ',' or ')'", l2);
				} else if (x == T_COMMA) {
					if ((!r->nvals && sel_value_add(r, "") < 0))
						return bh_error_set(err, BH_ENOMEM, "out of memory");
					x = sel_peek(p, 1, NULL);
					if (x == T_CLOSE) {
						if (sel_value_add(r, "") < 0)
							return bh_error_set(err, BH_ENOMEM, "out of memory");
						break;
					}
					if (x == T_COMMA) {
						sel_next(p, 1, NULL);
						if (sel_value_add(r, "") < 0)
							return bh_error_set(err, BH_ENOMEM, "out of memory");
					}
				} else {
					return bh_error_set(err, BH_EINVAL, "found '%s', expected: ',', or identifier", l);
				}
			}
			if (sel_next(p, 1, NULL) != T_CLOSE)
				return bh_error_set(err, BH_EINVAL, "found '%s', expected: ')'", first);
		} else {
			return bh_error_set(err, BH_EINVAL, "found '%s', expected: ',', ')' or identifier", lit);
		}
	} else { /* parseExactValue */
		t = sel_peek(p, 1, &lit);
		if (t == T_END || t == T_COMMA) {
			if (sel_value_add(r, "") < 0)
				return bh_error_set(err, BH_ENOMEM, "out of memory");
		} else if (sel_next(p, 1, &lit) == T_ID) {
			if (sel_value_add(r, lit) < 0)
				return bh_error_set(err, BH_ENOMEM, "out of memory");
		} else {
			return bh_error_set(err, BH_EINVAL, "found '%s', expected: identifier", lit);
		}
	}
	/* NewRequirement */
	if (r->op == OP_GT || r->op == OP_LT) {
		long long x;
		if (r->nvals != 1)
			return bh_error_set(err, BH_EINVAL, "for 'Gt', 'Lt' operators, exactly one value is required");
		if (!go_int64(r->vals[0], &x))
			return bh_error_set(err, BH_EINVAL, "for 'Gt', 'Lt' operators, the value must be an integer");
	}
	return labelsel_req_check(r, err);
}

static int labelsel_parse(const char *s, labelsel *l, bh_error *err)
{
	size_t n;
	sel_parser p = {sel_scan(s, &n), 0};
	memset(l, 0, sizeof *l);
	if (!p.it)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	for (;;) {
		const char *lit;
		enum sel_tok t = sel_peek(&p, 1, &lit);
		sel_req r, *nr;
		if (t == T_END)
			break;
		if (t != T_ID && t != T_NOTEXISTS)
			SEL_FAIL("found '%s', expected: !, identifier, or 'end of string'", lit);
		memset(&r, 0, sizeof r);
		if (sel_requirement(&p, &r, err) < 0 || !(nr = realloc(l->r, (l->n + 1) * sizeof *nr))) {
			free(r.key);
			for (size_t j = 0; j < r.nvals; j++)
				free(r.vals[j]);
			free(r.vals);
			if (err && err->code != BH_ENOMEM)
				bh_error_prefix(err, "unable to parse requirement");
			goto fail;
		}
		l->r = nr;
		l->r[l->n++] = r;
		t = sel_next(&p, 1, &lit);
		if (t == T_END)
			break;
		if (t != T_COMMA)
			SEL_FAIL("found '%s', expected: ',' or 'end of string'", lit);
		t = sel_peek(&p, 1, &lit);
		if (t != T_ID && t != T_NOTEXISTS)
			SEL_FAIL("found '%s', expected: identifier after ','", lit);
	}
	for (size_t i = 0; i < n; i++)
		free(p.it[i].lit);
	free(p.it);
	return 0;
fail:
	for (size_t i = 0; i < n; i++)
		free(p.it[i].lit);
	free(p.it);
	labelsel_free(l);
	return err ? err->code : BH_EINVAL;
}

/* labels (or annotations) as kustomize reads them: their texts (rec, the
 * object's KZ_TEXTS record for them) */
static int labelsel_match(const labelsel *l, const json_t *labels, const json_t *rec)
{
	for (size_t i = 0; i < l->n; i++) {
		const sel_req *r = &l->r[i];
		char buf[64];
		const char *v = kz_value_text(json_object_get(labels, r->key), r->key, rec, buf, sizeof buf);
		int in = 0;
		for (size_t j = 0; v && j < r->nvals; j++)
			in |= !strcmp(v, r->vals[j]);
		switch (r->op) {
		case OP_EQ:
		case OP_IN:
			if (!in)
				return 0;
			break;
		case OP_NE:
		case OP_NOTIN:
			if (in)
				return 0;
			break;
		case OP_EXISTS:
			if (!v)
				return 0;
			break;
		case OP_NOTEXISTS:
			if (v)
				return 0;
			break;
		case OP_GT:
		case OP_LT: {
			long long have, want;
			if (!v || !go_int64(v, &have) || !go_int64(r->vals[0], &want) ||
			    (r->op == OP_GT ? have <= want : have >= want))
				return 0;
			break;
		}
		}
	}
	return 1;
}

/* ---- selectors ------------------------------------------------------------------------ */

enum { SEL_GROUP, SEL_VERSION, SEL_KIND, SEL_NAME, SEL_NAMESPACE, SEL_N };
static const char *const sel_fields[SEL_N] = {"group", "version", "kind", "name", "namespace"};

struct kz_selector {
	goregex *re[SEL_N]; /* NULL = any */
	labelsel labels, annotations;
	int has_labels, has_annotations;
	/* decoded lazily (kz_selector_decode_lazy): the errors kustomize's
	 * Select gives, the regular expressions' at once, a label or an
	 * annotation selector's only at an object of the target's ids */
	char *re_err, *labels_err, *annotations_err;
	char *text; /* types.Selector's String() */
};

goregex *kz_re_compile(const char *pattern, int anchor, bh_error *err)
{
	bh_buf full = BH_BUF_INIT, msg = BH_BUF_INIT;
	goregex *re = calloc(1, sizeof *re);
	if (re)
		bh_buf_printf(&full, anchor ? "^(?:%s)$" : "%s", pattern);
	if (!re || full.oom) {
		free(re);
		bh_buf_free(&full);
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	if (goregex_compile(re, bh_buf_str(&full), full.len, &msg) < 0) {
		bh_error_set(err, BH_EINVAL, "%s", msg.oom ? "error parsing regexp" : bh_buf_str(&msg));
		free(re);
		re = NULL;
	}
	bh_buf_free(&full);
	bh_buf_free(&msg);
	return re;
}

int kz_re_match(goregex *re, const char *s)
{
	return goregex_match(re, s, strlen(s), NULL) == 1;
}

void kz_re_free(goregex *re)
{
	if (!re)
		return;
	goregex_release(re);
	free(re);
}

void kz_selector_free(kz_selector *s)
{
	if (!s)
		return;
	for (int i = 0; i < SEL_N; i++)
		kz_re_free(s->re[i]);
	labelsel_free(&s->labels);
	labelsel_free(&s->annotations);
	free(s->re_err);
	free(s->text);
	free(s->labels_err);
	free(s->annotations_err);
	free(s);
}

int kz_check_fields(const json_t *o, const char *const *known, const char *what, bh_error *err)
{
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)o, k, v) {
		int ok = 0;
		for (size_t i = 0; known[i] && !ok; i++)
			ok = !strcmp(k, known[i]);
		if (!ok)
			return bh_error_set(err, BH_EINVAL, "%s: unknown field \"%s\"", what, k);
	}
	return 0;
}

int kz_want_string(const json_t *o, const char *k, const char *what, const char **out, bh_error *err)
{
	json_t *v = json_object_get(o, k);
	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return bh_error_set(err, BH_EINVAL, "%s.%s: must be a string", what, k);
	*out = json_string_value(v);
	return 0;
}

/* An error of a lazy selector kept as its text in *keep (0), else err's. */
static int keep_error(int lazy, char **keep, bh_error *err)
{
	if (!lazy || !err || err->code == BH_ENOMEM)
		return -1;
	if (!*keep && !(*keep = strdup(err->msg)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	return 0;
}

static int selector_decode(const json_t *t, int lazy, kz_selector **out, bh_error *err)
{
	static const char *const known[] = {"group", "version", "kind", "name", "namespace",
					    "labelSelector", "annotationSelector", NULL};
	kz_selector *s;
	const char *v;
	*out = NULL;
	if (!json_is_object(t))
		return bh_error_set(err, BH_EINVAL, "target: must be an object");
	if (kz_check_fields(t, known, "target", err) < 0)
		return BH_EINVAL;
	if (!(s = calloc(1, sizeof *s)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	for (int i = 0; i < SEL_N; i++) {
		if (kz_want_string(t, sel_fields[i], "target", &v, err) < 0)
			goto fail;
		if (v && *v && !(s->re[i] = kz_re_compile(v, 1, err))) {
			if (keep_error(lazy, &s->re_err, err) == 0)
				continue;
			if (!lazy)
				bh_error_prefix(err, "target.%s", sel_fields[i]);
			goto fail;
		}
	}
	if (kz_want_string(t, "labelSelector", "target", &v, err) < 0)
		goto fail;
	if (v && *v) {
		if (labelsel_parse(v, &s->labels, err) < 0) {
			if (keep_error(lazy, &s->labels_err, err) < 0)
				goto fail;
		} else {
			s->has_labels = 1;
		}
	}
	if (kz_want_string(t, "annotationSelector", "target", &v, err) < 0)
		goto fail;
	if (v && *v) {
		if (labelsel_parse(v, &s->annotations, err) < 0) {
			if (keep_error(lazy, &s->annotations_err, err) < 0)
				goto fail;
		} else {
			s->has_annotations = 1;
		}
	}
	{ /* Kind.version.group/name.namespace:a=ANNOTATIONS:l=LABELS */
		const char *f[SEL_N], *dflt[SEL_N] = {"[noGrp]", "[noVer]", "[noKind]", "[noName]", "[noNs]"};
		for (int i = 0; i < SEL_N; i++) {
			f[i] = json_string_value(json_object_get(t, sel_fields[i]));
			if (!f[i] || !*f[i])
				f[i] = dflt[i];
		}
		bh_buf b = BH_BUF_INIT;
		bh_buf_printf(&b, "%s.%s.%s/%s.%s:a=%s:l=%s", f[SEL_KIND], f[SEL_VERSION], f[SEL_GROUP], f[SEL_NAME],
			      f[SEL_NAMESPACE], kz_sget(t, "annotationSelector"), kz_sget(t, "labelSelector"));
		s->text = bh_buf_ok(&b) ? strdup(bh_buf_str(&b)) : NULL;
		bh_buf_free(&b);
		if (!s->text) {
			bh_error_set(err, BH_ENOMEM, "out of memory");
			goto fail;
		}
	}
	*out = s;
	return 0;
fail:
	kz_selector_free(s);
	return err ? err->code : BH_EINVAL;
}

int kz_selector_decode(const json_t *t, kz_selector **out, bh_error *err)
{
	return selector_decode(t, 0, out, err);
}

int kz_selector_decode_lazy(const json_t *t, kz_selector **out, bh_error *err)
{
	return selector_decode(t, 1, out, err);
}

const char *kz_sget(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

/* ResId.EffectiveNamespace: "default" for a namespaced object without one. */
const char *kz_effective_namespace(const json_t *obj)
{
	const json_t *md = json_object_get(obj, "metadata");
	const char *ns = kz_sget(md, "namespace");
	if (kz_schema_cluster_scoped(kz_sget(obj, "apiVersion"), kz_sget(obj, "kind")))
		return "_non_namespaceable_";
	return *ns ? ns : "default";
}

/* The annotations kustomize keeps on a resource while it builds, and
 * takes off every resource at the end (a chart's own ones too). A JSON
 * patch sees the build annotations (the previous kind, name and namespace
 * are set on every resource), so an "add" under /metadata/annotations
 * finds the map even when the chart made none. */
const char *const kz_build_annotations[] = {
	"internal.config.kubernetes.io/previousKinds", "internal.config.kubernetes.io/previousNames",
	"internal.config.kubernetes.io/previousNamespaces", "config.k8s.io/id", "config.kubernetes.io/index",
	"config.kubernetes.io/path", "internal.config.kubernetes.io/annotations-migration-resource-id",
	"internal.config.kubernetes.io/generatorBehavior", "internal.config.kubernetes.io/id",
	"internal.config.kubernetes.io/index", "internal.config.kubernetes.io/needsHashSuffix",
	"internal.config.kubernetes.io/path", "internal.config.kubernetes.io/prefixes",
	"internal.config.kubernetes.io/refBy", "internal.config.kubernetes.io/seqindent",
	"internal.config.kubernetes.io/suffixes", NULL};

/* kz_selector_match's group/version/kind/name/namespace part */
int kz_selector_ids_match(const kz_selector *s, const json_t *obj)
{
	const char *av = kz_sget(obj, "apiVersion"), *slash = strchr(av, '/');
	const json_t *md = json_object_get(obj, "metadata");
	char group[256];
	const char *vals[SEL_N];
	snprintf(group, sizeof group, "%.*s", slash ? (int)(slash - av) : 0, av);
	vals[SEL_GROUP] = group;
	vals[SEL_VERSION] = slash ? slash + 1 : av;
	vals[SEL_KIND] = kz_sget(obj, "kind");
	vals[SEL_NAME] = kz_sget(md, "name");
	vals[SEL_NAMESPACE] = kz_effective_namespace(obj);
	for (int i = 0; i < SEL_N; i++) {
		const json_t *an = json_object_get(md, "annotations");
		/* resmap.Select: a name or namespace also matches as the object's
		 * original one (its first previous id, after a JSON patch) */
		const char *prev = i == SEL_NAME		? json_string_value(json_object_get(an, kz_build_annotations[1]))
				   : i == SEL_NAMESPACE ? json_string_value(json_object_get(an, kz_build_annotations[2]))
							: NULL;
		char org[512];
		if (!s->re[i] || kz_re_match(s->re[i], vals[i]))
			continue;
		if (!prev || !json_is_object(an))
			return 0;
		snprintf(org, sizeof org, "%.*s", (int)strcspn(prev, ","), prev);
		if (!kz_re_match(s->re[i], org))
			return 0;
	}
	return 1;
}

int kz_selector_match(const kz_selector *s, const json_t *obj)
{
	const json_t *md = json_object_get(obj, "metadata");
	if (!kz_selector_ids_match(s, obj))
		return 0;
	if (s->has_labels && !labelsel_match(&s->labels, json_object_get(md, "labels"), kz_texts_of(obj, "labels")))
		return 0;
	if (s->has_annotations && !labelsel_match(&s->annotations, json_object_get(md, "annotations"),
							       kz_texts_of(obj, "annotations")))
		return 0;
	return 1;
}

const char *kz_selector_text(const kz_selector *s)
{
	return s->text;
}

int kz_selector_select(const kz_selector *s, const json_t *obj, bh_error *err)
{
	const json_t *md = json_object_get(obj, "metadata");
	if (s->re_err)
		return bh_error_set(err, BH_EINVAL, "%s", s->re_err);
	if (!kz_selector_ids_match(s, obj))
		return 0;
	if (s->labels_err)
		return bh_error_set(err, BH_EINVAL, "%s", s->labels_err);
	if (s->has_labels && !labelsel_match(&s->labels, json_object_get(md, "labels"), kz_texts_of(obj, "labels")))
		return 0;
	if (s->annotations_err)
		return bh_error_set(err, BH_EINVAL, "%s", s->annotations_err);
	return kz_selector_match(s, obj);
}

int kz_csv_at(const char *csv, size_t i, char *buf, size_t n)
{
	for (; i > 0 && csv; i--)
		if ((csv = strchr(csv, ',')))
			csv++;
	if (!csv)
		return 0;
	snprintf(buf, n, "%.*s", (int)strcspn(csv, ","), csv);
	return 1;
}
