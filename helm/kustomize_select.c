/* helm/kustomize_select.c — target selection: kustomize's
 * types.SelectorRegex and resmap.Select (regular expressions for group,
 * version, kind, name and namespace; label and annotation selectors as
 * k8s.io/apimachinery labels.Parse reads them). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helm/kustomize.h"
#include "helm/kustomize_internal.h"
#include "helm/kustomize_schema.h"

/* ---- label selectors (k8s.io/apimachinery labels.Parse) ------------------------------- */

enum sel_op { OP_EQ, OP_NE, OP_IN, OP_NOTIN, OP_EXISTS, OP_NOTEXISTS };

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

static void skip_ws(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

static char *word(const char **p)
{
	const char *s = *p;
	size_t n = 0;
	skip_ws(p);
	s = *p;
	while (s[n] && !strchr(" \t,()=!", s[n]))
		n++;
	*p = s + n;
	return n ? strndup(s, n) : NULL;
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
		return bh_error_set(err, BH_EINVAL, "unable to parse requirement: invalid label key \"%s\": %s", r->key,
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
					    "unable to parse requirement: invalid label value: \"%s\": at key: \"%s\": %s", v,
					    r->key, msg);
	}
#undef KZ_ADD
	return 0;
}

static int labelsel_parse(const char *s, labelsel *l, const char *what, bh_error *err)
{
	const char *p = s;
	memset(l, 0, sizeof *l);
	skip_ws(&p);
	while (*p) {
		sel_req r;
		sel_req *nr;
		memset(&r, 0, sizeof r);
		skip_ws(&p);
		if (*p == '!') {
			p++;
			r.op = OP_NOTEXISTS;
			if (!(r.key = word(&p)))
				goto bad;
		} else {
			if (!(r.key = word(&p)))
				goto bad;
			skip_ws(&p);
			if (p[0] == '=' && p[1] == '=') {
				p += 2;
				r.op = OP_EQ;
			} else if (p[0] == '=') {
				p++;
				r.op = OP_EQ;
			} else if (p[0] == '!' && p[1] == '=') {
				p += 2;
				r.op = OP_NE;
			} else if (!strncmp(p, "in", 2) && (p[2] == ' ' || p[2] == '(')) {
				p += 2;
				r.op = OP_IN;
			} else if (!strncmp(p, "notin", 5) && (p[5] == ' ' || p[5] == '(')) {
				p += 5;
				r.op = OP_NOTIN;
			} else {
				r.op = OP_EXISTS;
			}
			if (r.op == OP_EQ || r.op == OP_NE) {
				char *v = word(&p);
				if (push_val(&r, v ? v : strdup("")) < 0)
					goto bad;
			} else if (r.op == OP_IN || r.op == OP_NOTIN) {
				skip_ws(&p);
				if (*p != '(')
					goto bad;
				p++;
				for (;;) {
					char *v = word(&p);
					if (push_val(&r, v ? v : strdup("")) < 0)
						goto bad;
					skip_ws(&p);
					if (*p == ',') {
						p++;
						continue;
					}
					if (*p != ')')
						goto bad;
					p++;
					break;
				}
			}
		}
		if (labelsel_req_check(&r, err) < 0)
			goto invalid;
		nr = realloc(l->r, (l->n + 1) * sizeof *nr);
		if (!nr)
			goto bad;
		l->r = nr;
		l->r[l->n++] = r;
		skip_ws(&p);
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p)
			goto bad_nofree;
		continue;
	bad:
		free(r.key);
		for (size_t j = 0; j < r.nvals; j++)
			free(r.vals[j]);
		free(r.vals);
	bad_nofree:
		labelsel_free(l);
		return bh_error_set(err, BH_EINVAL, "invalid %s %s: cannot parse near %.40s", what, s, p);
	invalid:
		free(r.key);
		for (size_t j = 0; j < r.nvals; j++)
			free(r.vals[j]);
		free(r.vals);
		labelsel_free(l);
		return err ? err->code : BH_EINVAL;
	}
	return 0;
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

int kz_selector_decode(const json_t *t, kz_selector **out, bh_error *err)
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
			bh_error_prefix(err, "target.%s", sel_fields[i]);
			goto fail;
		}
	}
	if (kz_want_string(t, "labelSelector", "target", &v, err) < 0)
		goto fail;
	if (v && *v) {
		if (labelsel_parse(v, &s->labels, "labelSelector", err) < 0)
			goto fail;
		s->has_labels = 1;
	}
	if (kz_want_string(t, "annotationSelector", "target", &v, err) < 0)
		goto fail;
	if (v && *v) {
		if (labelsel_parse(v, &s->annotations, "annotationSelector", err) < 0)
			goto fail;
		s->has_annotations = 1;
	}
	*out = s;
	return 0;
fail:
	kz_selector_free(s);
	return err ? err->code : BH_EINVAL;
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
