/* tmpl/helmctx.c — Helm's root object (see helmctx.h): .Values, .Release,
 * .Chart (Go field names), .Capabilities, .Files (engine.files with its
 * methods), .Template and .Subcharts. */
#include "tmpl/helmctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/yaml.h"
#include "tmpl/funcs.h"
#include "tmpl/gofmt.h"

#define HELM_VERSION "v4.1.4"
#define HELM_GIT_COMMIT "05fa37973dc9e42b76e1d2883494c87174b6074f"
#define HELM_GO_VERSION "go1.25.9"
#define HELM_KUBE_CLIENT "v1.35"

/* chartutil.DefaultVersionSet of Helm 4.1.4 (57 group/versions). */
static const char *const default_api_versions[] = {
	"v1", "admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1alpha1",
	"admissionregistration.k8s.io/v1beta1", "internal.apiserver.k8s.io/v1alpha1", "apps/v1",
	"apps/v1beta1", "apps/v1beta2", "authentication.k8s.io/v1", "authentication.k8s.io/v1alpha1",
	"authentication.k8s.io/v1beta1", "authorization.k8s.io/v1", "authorization.k8s.io/v1beta1",
	"autoscaling/v1", "autoscaling/v2", "autoscaling/v2beta1", "autoscaling/v2beta2", "batch/v1",
	"batch/v1beta1", "certificates.k8s.io/v1", "certificates.k8s.io/v1beta1",
	"certificates.k8s.io/v1alpha1", "coordination.k8s.io/v1alpha2", "coordination.k8s.io/v1beta1",
	"coordination.k8s.io/v1", "discovery.k8s.io/v1", "discovery.k8s.io/v1beta1", "events.k8s.io/v1",
	"events.k8s.io/v1beta1", "extensions/v1beta1", "flowcontrol.apiserver.k8s.io/v1",
	"flowcontrol.apiserver.k8s.io/v1beta1", "flowcontrol.apiserver.k8s.io/v1beta2",
	"flowcontrol.apiserver.k8s.io/v1beta3", "networking.k8s.io/v1", "networking.k8s.io/v1beta1",
	"node.k8s.io/v1", "node.k8s.io/v1alpha1", "node.k8s.io/v1beta1", "policy/v1", "policy/v1beta1",
	"rbac.authorization.k8s.io/v1", "rbac.authorization.k8s.io/v1beta1",
	"rbac.authorization.k8s.io/v1alpha1", "resource.k8s.io/v1", "resource.k8s.io/v1beta2",
	"resource.k8s.io/v1beta1", "resource.k8s.io/v1alpha3", "scheduling.k8s.io/v1alpha1",
	"scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1", "storage.k8s.io/v1beta1", "storage.k8s.io/v1",
	"storage.k8s.io/v1alpha1", "storagemigration.k8s.io/v1beta1", "apiextensions.k8s.io/v1beta1",
	"apiextensions.k8s.io/v1",
};

static int set_str(tmpl_arena *a, tmpl_map *m, const char *k, const char *v)
{
	tmpl_value s = tmpl_cstr(a, v ? v : "");
	if (s.kind == TMPL_INVALID)
		return BH_ELIMIT;
	return tmpl_map_set(a, m, k, strlen(k), s);
}

/* ---- .Capabilities ---- */

typedef struct kube_version {
	char *version, *major, *minor;
	char *normalized; /* "v" and the numeric components (what %v prints second) */
} kube_version;

static int kv_field(const tmpl_value *self, const char *name, tmpl_value *out)
{
	kube_version *kv = self->u.obj->data;
	const char *s = strcmp(name, "Version") == 0 ? kv->version
			: strcmp(name, "normalizedVersion") == 0 ? kv->normalized
			: strcmp(name, "Major") == 0 ? kv->major
			: strcmp(name, "Minor") == 0 ? kv->minor : NULL;
	if (!s)
		return BH_ENOTFOUND;
	*out = tmpl_str_static(s, strlen(s));
	return 0;
}

static int kv_git_version(tmpl_call *c)
{
	kube_version *kv = c->self->u.obj->data;
	c->result = tmpl_str_static(kv->version, strlen(kv->version));
	return 0;
}

/* String() in Helm 4: the normalized version, or Version when there is
 * none (a deepCopy's) */
static const char *kv_string_of(const kube_version *kv)
{
	return kv->normalized[0] ? kv->normalized : kv->version;
}

static int kv_string(tmpl_call *c)
{
	const char *s = kv_string_of(c->self->u.obj->data);
	c->result = tmpl_str_static(s, strlen(s));
	return 0;
}

static void kv_format(bh_buf *out, const tmpl_value *self, int plus)
{
	(void)plus;
	bh_buf_puts(out, kv_string_of(self->u.obj->data));
}

/* A new object of self's class over a copy of its size bytes of data, in
 * *out: the copy, or NULL when out of memory. */
static void *clone_object(tmpl_arena *a, const tmpl_value *self, size_t size, tmpl_value *out)
{
	void *n = tmpl_arena_alloc(a, size);
	tmpl_object *o;
	if (!n || !(o = tmpl_object_new(a, self->u.obj->cls, n)))
		return NULL;
	memcpy(n, self->u.obj->data, size);
	*out = tmpl_object_value(o);
	return n;
}

/* deepCopy: the exported fields, normalizedVersion empty */
static int kv_deep_copy(tmpl_arena *a, const tmpl_value *self, tmpl_value *out)
{
	kube_version *n = clone_object(a, self, sizeof *n, out);
	if (!n)
		return BH_ENOMEM;
	n->normalized = "";
	return 0;
}

static json_t *kv_json(const tmpl_value *self, bh_error *err)
{
	kube_version *kv = self->u.obj->data;
	(void)err;
	return json_pack("{s:s,s:s,s:s}", "Version", kv->version, "Major", kv->major, "Minor", kv->minor);
}

static const tmpl_method kv_methods[] = {
	{"GitVersion", kv_git_version, "", NULL},
	{"String", kv_string, "", NULL},
	{NULL, NULL, NULL, NULL},
};

static const char *const kv_fields[] = {"Version", "normalizedVersion", "Major", "Minor", NULL};

/* String() and GitVersion() have pointer receivers in Helm 4 */
static const tmpl_class kube_version_class = {
	"common.KubeVersion", 0, kv_methods, kv_field, kv_format, kv_json, 1, kv_fields, 1, 1, kv_deep_copy,
};

static int hv_field(const tmpl_value *self, const char *name, tmpl_value *out)
{
	const char *s = strcmp(name, "Version") == 0 ? HELM_VERSION
			: strcmp(name, "GitCommit") == 0 ? HELM_GIT_COMMIT
			: strcmp(name, "GitTreeState") == 0 ? "clean"
			: strcmp(name, "GoVersion") == 0 ? HELM_GO_VERSION
			: strcmp(name, "KubeClientVersion") == 0 ? HELM_KUBE_CLIENT : NULL;
	(void)self;
	if (!s)
		return BH_ENOTFOUND;
	*out = tmpl_str_static(s, strlen(s));
	return 0;
}

static json_t *hv_json(const tmpl_value *self, bh_error *err)
{
	(void)self;
	(void)err;
	return json_pack("{s:s,s:s,s:s,s:s,s:s}", "version", HELM_VERSION, "git_commit", HELM_GIT_COMMIT,
			 "git_tree_state", "clean", "go_version", HELM_GO_VERSION, "kube_client_version",
			 HELM_KUBE_CLIENT);
}

static const char *const hv_fields[] = {"Version", "GitCommit", "GitTreeState", "GoVersion",
					 "KubeClientVersion", NULL};

static const tmpl_class helm_version_class = {
	"version.BuildInfo", 0, NULL, hv_field, NULL, hv_json, 1, hv_fields, 0,
};

static int vs_has(tmpl_call *c)
{
	const tmpl_list *l = c->self->u.list;
	const tmpl_value *q = &c->argv[0];
	for (size_t i = 0; i < l->len; i++)
		if (l->items[i].u.s.len == q->u.s.len && memcmp(l->items[i].u.s.ptr, q->u.s.ptr, q->u.s.len) == 0) {
			c->result = tmpl_bool(1);
			return 0;
		}
	c->result = tmpl_bool(0);
	return 0;
}

static const tmpl_method vs_methods[] = {
	{"Has", vs_has, "s", NULL},
	{NULL, NULL, NULL, NULL},
};

static const tmpl_class version_set_class = {
	"common.VersionSet", 0, vs_methods, NULL, NULL, NULL, 0,
};

typedef struct caps {
	tmpl_value api_versions, kube_version, helm_version;
} caps;

static int caps_field(const tmpl_value *self, const char *name, tmpl_value *out)
{
	caps *c = self->u.obj->data;
	if (strcmp(name, "APIVersions") == 0)
		*out = c->api_versions;
	else if (strcmp(name, "KubeVersion") == 0)
		*out = c->kube_version;
	else if (strcmp(name, "HelmVersion") == 0)
		*out = c->helm_version;
	else
		return BH_ENOTFOUND;
	return 0;
}

static json_t *caps_json(const tmpl_value *self, bh_error *err)
{
	caps *c = self->u.obj->data;
	json_t *o = json_object();
	json_object_set_new(o, "KubeVersion", kv_json(&c->kube_version, err));
	json_object_set_new(o, "APIVersions", tmpl_value_to_json(&c->api_versions, err));
	json_object_set_new(o, "HelmVersion", hv_json(&c->helm_version, err));
	return o;
}

/* common.Capabilities' fields in the struct's order (fmt, encoding/json) */
static const char *const caps_fields[] = {"KubeVersion", "APIVersions", "HelmVersion", NULL};

/* deepCopy: a new *Capabilities (eq tells them apart), its KubeVersion
 * copied as kv_deep_copy does (the version set and BuildInfo have no
 * unexported field) */
static int caps_deep_copy(tmpl_arena *a, const tmpl_value *self, tmpl_value *out)
{
	const caps *c = self->u.obj->data;
	caps *n = clone_object(a, self, sizeof *n, out);
	return n ? kv_deep_copy(a, &c->kube_version, &n->kube_version) : BH_ENOMEM;
}

static const tmpl_class caps_class = {
	"*common.Capabilities", 1, NULL, caps_field, NULL, caps_json, 1, caps_fields, 0, 0, caps_deep_copy,
};

void helmctx_kube_normalized(const char *version, bh_buf *out)
{
	const char *p = version;
	char *end;
	if (*p == 'v' || *p == 'V')
		p++;
	while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		p++;
	bh_buf_putc(out, 'v');
	for (int i = 0; *p >= '0' && *p <= '9'; i++) { /* as k8s Version.String prints them */
		bh_buf_printf(out, "%s%llu", i ? "." : "", strtoull(p, &end, 10));
		p = end;
		if (*p != '.' || p[1] < '0' || p[1] > '9')
			break;
		p++;
	}
}

/* "v1.28.3" / "1.28" -> Version "v1.28.3" / "v1.28", Major "1", Minor "28" */
static int parse_kube_version(tmpl_arena *a, const char *s, kube_version *kv, bh_error *err)
{
	unsigned long long maj = 0, min = 0;
	const char *p = s;
	char *end;
	char buf[256];
	/* what k8s ParseGeneric took (render_parse_kube_version, or a
	 * cluster's gitVersion): "v", blanks, major.minor[.more][anything] */
	if (*p == 'v' || *p == 'V')
		p++;
	while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		p++;
	if (*p < '0' || *p > '9')
		return bh_error_set(err, BH_EINVAL, "invalid kube version %s: could not parse it as a version", s);
	bh_buf norm = BH_BUF_INIT;
	maj = strtoull(p, &end, 10);
	p = end;
	if (*p == '.' && p[1] >= '0' && p[1] <= '9')
		min = strtoull(p + 1, &end, 10);
	helmctx_kube_normalized(s, &norm);
	kv->normalized = tmpl_arena_strdup(a, bh_buf_str(&norm), norm.len);
	bh_buf_free(&norm);
	/* Helm 4 keeps the text given (with a "v" prefix), e.g. "v1.30" */
	snprintf(buf, sizeof buf, "%s%s", s[0] == 'v' ? "" : "v", s);
	kv->version = tmpl_arena_strdup(a, buf, strlen(buf));
	snprintf(buf, sizeof buf, "%llu", maj);
	kv->major = tmpl_arena_strdup(a, buf, strlen(buf));
	snprintf(buf, sizeof buf, "%llu", min);
	kv->minor = tmpl_arena_strdup(a, buf, strlen(buf));
	if (!kv->version || !kv->major || !kv->minor || !kv->normalized)
		return bh_error_set(err, BH_ELIMIT, "out of memory");
	return 0;
}

static int build_caps(tmpl_arena *a, const helmctx_opts *o, tmpl_value *out, bh_error *err)
{
	caps *c = tmpl_arena_alloc(a, sizeof(*c));
	kube_version *kv = tmpl_arena_alloc(a, sizeof(*kv));
	tmpl_list *vs = tmpl_list_new(a, "common.VersionSet", 64);
	int r;
	if (!c || !kv || !vs)
		return bh_error_set(err, BH_ELIMIT, "out of memory");
	vs->cls = &version_set_class;
	for (size_t i = 0; i < sizeof default_api_versions / sizeof default_api_versions[0]; i++)
		if (tmpl_list_push(a, vs, tmpl_str_static(default_api_versions[i], strlen(default_api_versions[i]))))
			return bh_error_set(err, BH_ELIMIT, "out of memory");
	for (size_t i = 0; i < o->n_api_versions; i++)
		if (tmpl_list_push(a, vs, tmpl_cstr(a, o->api_versions[i])))
			return bh_error_set(err, BH_ELIMIT, "out of memory");
	r = parse_kube_version(a, o->kube_version ? o->kube_version : "v1.35.0", kv, err);
	if (r)
		return r;
	c->api_versions = tmpl_list_value(vs);
	c->kube_version = tmpl_object_value(tmpl_object_new(a, &kube_version_class, kv));
	c->helm_version = tmpl_object_value(tmpl_object_new(a, &helm_version_class, NULL));
	*out = tmpl_object_value(tmpl_object_new(a, &caps_class, c));
	if (out->kind == TMPL_INVALID || c->kube_version.kind == TMPL_INVALID ||
	    c->helm_version.kind == TMPL_INVALID)
		return bh_error_set(err, BH_ELIMIT, "out of memory");
	return 0;
}

/* ---- .Files (engine.files) ---- */

static const tmpl_class files_class;

static tmpl_map *files_new(tmpl_arena *a)
{
	tmpl_map *m = tmpl_map_new(a, "engine.files");
	if (m)
		m->cls = &files_class;
	return m;
}

static int files_get(tmpl_call *c)
{
	const tmpl_map *m = c->self->u.map;
	tmpl_value *v = tmpl_map_get(m, c->argv[0].u.s.ptr, c->argv[0].u.s.len);
	if (!v) {
		c->result = tmpl_str_static("", 0);
		return 0;
	}
	c->result = tmpl_str_static(v->u.s.ptr, v->u.s.len);
	return 0;
}

static int files_get_bytes(tmpl_call *c)
{
	const tmpl_map *m = c->self->u.map;
	tmpl_value *v = tmpl_map_get(m, c->argv[0].u.s.ptr, c->argv[0].u.s.len);
	tmpl_value r = tmpl_invalid();
	r.kind = TMPL_BYTES;
	if (v) {
		r.u.s.ptr = v->u.s.ptr;
		r.u.s.len = v->u.s.len;
	} else {
		r.u.s.ptr = "";
		r.u.s.len = 0;
	}
	c->result = r;
	return 0;
}

/* gobwas/glob with '/' as separator. Returns 1 match, 0 no match;
 * *bad set when the pattern does not compile. */
static int glob_match(const char *p, size_t pn, const char *s, size_t sn, int *bad, int depth)
{
	size_t pi = 0, si = 0;
	if (depth > 64) {
		*bad = 1;
		return 0;
	}
	while (pi < pn) {
		char c = p[pi];
		if (c == '*') {
			int super = pi + 1 < pn && p[pi + 1] == '*';
			size_t rest = pi + (super ? 2 : 1);
			for (size_t k = si;; k++) {
				if (glob_match(p + rest, pn - rest, s + k, sn - k, bad, depth + 1))
					return 1;
				if (*bad)
					return 0;
				if (k >= sn || (!super && s[k] == '/'))
					return 0;
			}
		}
		if (c == '?') {
			if (si >= sn || s[si] == '/')
				return 0;
			/* one UTF-8 rune */
			si++;
			while (si < sn && ((unsigned char)s[si] & 0xC0) == 0x80)
				si++;
			pi++;
			continue;
		}
		if (c == '[') {
			size_t j = pi + 1;
			int neg = 0, ok = 0;
			if (j < pn && p[j] == '!') {
				neg = 1;
				j++;
			}
			size_t start = j;
			while (j < pn && p[j] != ']')
				j++;
			if (j >= pn || j == start) {
				*bad = 1;
				return 0;
			}
			if (si >= sn || s[si] == '/')
				return 0;
			unsigned char ch = (unsigned char)s[si];
			for (size_t k = start; k < j; k++) {
				if (k + 2 < j && p[k + 1] == '-') {
					if (ch >= (unsigned char)p[k] && ch <= (unsigned char)p[k + 2])
						ok = 1;
					k += 2;
				} else if (ch == (unsigned char)p[k]) {
					ok = 1;
				}
			}
			if (ok == neg)
				return 0;
			si++;
			pi = j + 1;
			continue;
		}
		if (c == '{') {
			/* alternatives up to the matching '}' */
			size_t j = pi + 1;
			int lvl = 1;
			while (j < pn && lvl) {
				if (p[j] == '{')
					lvl++;
				else if (p[j] == '}')
					lvl--;
				if (lvl)
					j++;
			}
			if (j >= pn) {
				*bad = 1;
				return 0;
			}
			size_t a = pi + 1;
			for (size_t k = pi + 1; k <= j; k++) {
				if (k == j || (p[k] == ',')) {
					/* alternative p[a..k) followed by the rest p[j+1..] */
					size_t altn = k - a, restn = pn - (j + 1);
					char *buf = malloc(altn + restn + 1);
					if (!buf)
						return 0;
					memcpy(buf, p + a, altn);
					memcpy(buf + altn, p + j + 1, restn);
					int m = glob_match(buf, altn + restn, s + si, sn - si, bad, depth + 1);
					free(buf);
					if (m || *bad)
						return m;
					a = k + 1;
				}
			}
			return 0;
		}
		if (c == '\\' && pi + 1 < pn) {
			pi++;
			c = p[pi];
		}
		if (si >= sn || s[si] != c)
			return 0;
		si++;
		pi++;
	}
	return si == sn;
}

static int files_glob(tmpl_call *c)
{
	const tmpl_map *m = c->self->u.map;
	const tmpl_value *pat = &c->argv[0];
	tmpl_map *nf = files_new(c->arena);
	int bad = 0;
	if (!nf)
		return BH_ELIMIT;
	/* compile check: a pattern that does not compile matches everything */
	glob_match(pat->u.s.ptr, pat->u.s.len, "", 0, &bad, 0);
	for (size_t i = 0; i < m->len; i++) {
		const tmpl_map_entry *e = &m->entries[i];
		int b2 = 0;
		if (bad || glob_match(pat->u.s.ptr, pat->u.s.len, e->key, e->keylen, &b2, 0) || b2)
			if (tmpl_map_set(c->arena, nf, e->key, e->keylen, e->val))
				return BH_ELIMIT;
	}
	tmpl_map_sort(nf);
	c->result = tmpl_map_value(nf);
	return 0;
}

static const char *path_base(const char *k, size_t n, size_t *bn)
{
	while (n > 1 && k[n - 1] == '/')
		n--;
	size_t i = n;
	while (i > 0 && k[i - 1] != '/')
		i--;
	*bn = n - i;
	return k + i;
}

static int files_as(tmpl_call *c, int secrets)
{
	tmpl_map *m = c->self->u.map;
	json_t *o = json_object();
	bh_buf out = BH_BUF_INIT;
	bh_error err;
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	if (!o)
		return BH_ELIMIT;
	tmpl_map_sort(m);
	for (size_t i = 0; i < m->len; i++) {
		size_t bn;
		const char *b = path_base(m->entries[i].key, m->entries[i].keylen, &bn);
		char *key = strndup(b, bn);
		const tmpl_value *v = &m->entries[i].val;
		json_t *val;
		if (secrets) {
			bh_buf e = BH_BUF_INIT;
			const unsigned char *p = (const unsigned char *)v->u.s.ptr;
			size_t n = v->u.s.len, k;
			for (k = 0; k + 2 < n; k += 3) {
				unsigned x = (unsigned)p[k] << 16 | (unsigned)p[k + 1] << 8 | p[k + 2];
				bh_buf_putc(&e, b64[x >> 18]);
				bh_buf_putc(&e, b64[(x >> 12) & 63]);
				bh_buf_putc(&e, b64[(x >> 6) & 63]);
				bh_buf_putc(&e, b64[x & 63]);
			}
			if (n - k == 1) {
				unsigned x = (unsigned)p[k] << 16;
				bh_buf_putc(&e, b64[x >> 18]);
				bh_buf_putc(&e, b64[(x >> 12) & 63]);
				bh_buf_puts(&e, "==");
			} else if (n - k == 2) {
				unsigned x = (unsigned)p[k] << 16 | (unsigned)p[k + 1] << 8;
				bh_buf_putc(&e, b64[x >> 18]);
				bh_buf_putc(&e, b64[(x >> 12) & 63]);
				bh_buf_putc(&e, b64[(x >> 6) & 63]);
				bh_buf_putc(&e, '=');
			}
			val = json_stringn(bh_buf_str(&e), e.len);
			bh_buf_free(&e);
		} else {
			val = json_stringn_nocheck(v->u.s.ptr, v->u.s.len);
		}
		if (key && val)
			json_object_set_new_nocheck(o, key, val);
		else
			json_decref(val);
		free(key);
	}
	bh_error_clear(&err);
	if (yaml_emit(o, &out, &err) == 0) {
		if (out.len && out.data[out.len - 1] == '\n')
			out.len--;
		c->result = tmpl_str(c->arena, bh_buf_str(&out), out.len);
	} else {
		c->result = tmpl_str_static("", 0);
	}
	json_decref(o);
	bh_buf_free(&out);
	return 0;
}

static int files_as_config(tmpl_call *c)
{
	return files_as(c, 0);
}

static int files_as_secrets(tmpl_call *c)
{
	return files_as(c, 1);
}

static int files_lines(tmpl_call *c)
{
	const tmpl_map *m = c->self->u.map;
	tmpl_value *v = tmpl_map_get(m, c->argv[0].u.s.ptr, c->argv[0].u.s.len);
	tmpl_list *l = tmpl_list_new(c->arena, "[]string", 0);
	if (!l)
		return BH_ELIMIT;
	c->result = tmpl_list_value(l);
	if (!v)
		return 0;
	const char *s = v->u.s.ptr;
	size_t n = v->u.s.len;
	if (n == 0)
		return tmpl_call_errorf(c, "runtime error: index out of range [-1]");
	if (s[n - 1] == '\n')
		n--;
	size_t st = 0;
	for (size_t i = 0; i <= n; i++)
		if (i == n || s[i] == '\n') {
			if (tmpl_list_push(c->arena, l, tmpl_str_static(s + st, i - st)))
				return BH_ELIMIT;
			st = i + 1;
		}
	return 0;
}

static const tmpl_method files_methods[] = {
	{"AsConfig", files_as_config, "", NULL},
	{"AsSecrets", files_as_secrets, "", NULL},
	{"Get", files_get, "s", NULL},
	{"GetBytes", files_get_bytes, "s", NULL},
	{"Glob", files_glob, "s", NULL},
	{"Lines", files_lines, "s", NULL},
	{NULL, NULL, NULL, NULL},
};

static const tmpl_class files_class = {
	"engine.files", 0, files_methods, NULL, NULL, NULL, 0,
};

/* ---- common.Values (pkg/chart/common/values.go): the methods of .Values
 * (and of the root, .Template and every Table result). The same map is
 * seen through another type by AsMap and Table (tmpl_value.view). */

static tmpl_value values_view(const tmpl_value *m, int view)
{
	tmpl_value v = *m;
	v.view = (unsigned char)view;
	v.iface = 0;
	return v;
}

/* Values.AsMap: the map itself as map[string]interface {} (a new empty one
 * when it has no entries). */
static int values_as_map(tmpl_call *c)
{
	if (c->self->u.map->len == 0) {
		tmpl_map *m = tmpl_map_new(c->arena, NULL);
		if (!m)
			return BH_ELIMIT;
		c->result = tmpl_map_value(m);
		return 0;
	}
	c->result = values_view(c->self, TMPL_VIEW_PLAIN);
	return 0;
}

/* yaml.Marshal(v), trailing newline kept */
static int values_yaml_text(tmpl_call *c, bh_buf *out)
{
	bh_buf j = BH_BUF_INIT;
	bh_error e;
	tmpl_value plain = values_view(c->self, TMPL_VIEW_PLAIN);
	int rc = tmpl_value_gojson(&j, &plain, 0, &e);
	if (!rc)
		rc = yaml_emit_json_text(bh_buf_str(&j), j.len, out, &e);
	bh_buf_free(&j);
	if (rc)
		return rc == BH_ELIMIT ? rc : tmpl_call_errorf(c, "%s", e.msg);
	return 0;
}

static int values_yaml(tmpl_call *c)
{
	bh_buf out = BH_BUF_INIT;
	int rc = values_yaml_text(c, &out);
	if (!rc) {
		c->result = tmpl_str_buf(c->arena, &out);
		if (c->result.kind == TMPL_INVALID)
			rc = BH_ELIMIT;
	}
	bh_buf_free(&out);
	return rc;
}

/* Values.Encode(w io.Writer): no template value is a writer; a nil one
 * makes Go's call panic, which text/template reports. */
static int values_encode(tmpl_call *c)
{
	return tmpl_call_errorf(c, "runtime error: invalid memory address or nil pointer dereference");
}

/* tableLookup over the '.'-separated path: the table (as common.Values),
 * or the key that is not a table. */
static int values_table_walk(const tmpl_value *root, const char *path, size_t n, tmpl_value *out,
			     const char **bad, size_t *badn)
{
	tmpl_value t = *root;
	size_t st = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && path[i] != '.')
			continue;
		tmpl_value *v = tmpl_map_get(t.u.map, path + st, i - st);
		if (!v || v->kind != TMPL_MAP ||
		    (strcmp(tmpl_map_gotype(v), "map[string]interface {}") && strcmp(tmpl_map_gotype(v), "common.Values"))) {
			*bad = path + st;
			*badn = i - st;
			return -1;
		}
		t = values_view(v, TMPL_VIEW_VALUES);
		st = i + 1;
	}
	*out = t;
	return 0;
}

static int values_table(tmpl_call *c)
{
	const char *bad;
	size_t badn;
	if (values_table_walk(c->self, c->argv[0].u.s.ptr, c->argv[0].u.s.len, &c->result, &bad, &badn))
		return tmpl_call_errorf(c, "\"%.*s\" is not a table", (int)badn, bad);
	return 0;
}

static int is_table(const tmpl_value *v)
{
	return v->kind == TMPL_MAP && !strcmp(tmpl_map_gotype(v), "map[string]interface {}");
}

/* Values.PathValue: the value (not a table) at the end of the path. */
static int values_path_value(tmpl_call *c)
{
	const char *p = c->argv[0].u.s.ptr, *bad, *last;
	size_t n = c->argv[0].u.s.len, badn;
	tmpl_value t;
	if (!n)
		return tmpl_call_errorf(c, "YAML path cannot be empty");
	last = p + n;
	while (last > p && last[-1] != '.')
		last--;
	size_t keyn = (size_t)(p + n - last);
	if (last == p) {
		t = *c->self;
	} else if (values_table_walk(c->self, p, (size_t)(last - 1 - p), &t, &bad, &badn)) {
		return tmpl_call_errorf(c, "\"%.*s\" is not a value", (int)keyn, last);
	}
	tmpl_value *v = tmpl_map_get(t.u.map, last, keyn);
	if (!v || is_table(v))
		return tmpl_call_errorf(c, "\"%.*s\" is not a value", (int)keyn, last);
	c->result = *v;
	c->result.iface = 0;
	return 0;
}

static const tmpl_method values_methods[] = {
	{"AsMap", values_as_map, "", NULL},
	{"Encode", values_encode, "w", NULL},
	{"PathValue", values_path_value, "s", NULL},
	{"Table", values_table, "s", NULL},
	{"YAML", values_yaml, "", NULL},
	{NULL, NULL, NULL, NULL},
};

const tmpl_class tmpl_values_class = {
	"common.Values", 0, values_methods, NULL, NULL, NULL, 0,
};

/* ---- .Chart ---- */

static tmpl_value str_field(tmpl_arena *a, const json_t *chart, const char *key)
{
	const json_t *v = chart ? json_object_get(chart, key) : NULL;
	if (json_is_string(v))
		return tmpl_str(a, json_string_value(v), json_string_length(v));
	if (json_is_number(v)) {
		tmpl_value f = json_is_real(v) ? tmpl_float(json_real_value(v)) : tmpl_int64(json_integer_value(v));
		bh_buf b = BH_BUF_INIT;
		gofmt_value(&b, &f);
		tmpl_value r = tmpl_str_buf(a, &b);
		bh_buf_free(&b);
		return r;
	}
	if (json_is_true(v))
		return tmpl_str_static("true", 4);
	if (json_is_false(v))
		return tmpl_str_static("false", 5);
	return tmpl_str_static("", 0);
}

static tmpl_value str_list(tmpl_arena *a, const json_t *arr)
{
	tmpl_list *l = tmpl_list_new(a, NULL, 0);
	if (!l)
		return tmpl_invalid();
	for (size_t i = 0; json_is_array(arr) && i < json_array_size(arr); i++) {
		const json_t *x = json_array_get(arr, i);
		if (json_is_string(x))
			tmpl_list_push(a, l, tmpl_str(a, json_string_value(x), json_string_length(x)));
		else
			tmpl_list_push(a, l, tmpl_value_from_json(a, x));
	}
	return tmpl_list_value(l);
}

static int build_chart(tmpl_arena *a, const json_t *chart, int is_root, tmpl_value *out)
{
	static const char *const strs[][2] = {
		{"APIVersion", "apiVersion"}, {"AppVersion", "appVersion"}, {"Condition", "condition"},
		{"Description", "description"}, {"Home", "home"}, {"Icon", "icon"},
		{"KubeVersion", "kubeVersion"}, {"Name", "name"}, {"Tags", "tags"}, {"Type", "type"},
		{"Version", "version"},
	};
	tmpl_map *m = tmpl_map_new(a, NULL);
	json_t *def = NULL;
	if (!m)
		return BH_ELIMIT;
	if (!chart) {
		def = json_pack("{s:s,s:s,s:s}", "apiVersion", "v2", "name", "vec", "version", "0.1.0");
		chart = def;
	}
	for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
		tmpl_map_set(a, m, strs[i][0], strlen(strs[i][0]), str_field(a, chart, strs[i][1]));
	tmpl_map_set(a, m, "Keywords", 8, str_list(a, json_object_get(chart, "keywords")));
	tmpl_map_set(a, m, "Sources", 7, str_list(a, json_object_get(chart, "sources")));
	tmpl_map_set(a, m, "Deprecated", 10, tmpl_bool(json_is_true(json_object_get(chart, "deprecated"))));
	tmpl_map_set(a, m, "IsRoot", 6, tmpl_bool(is_root));
	/* Annotations: map[string]string, nil when absent */
	{
		const json_t *an = json_object_get(chart, "annotations");
		tmpl_map *am = tmpl_map_new(a, "map[string]string");
		if (!am)
			return BH_ELIMIT;
		if (json_is_object(an)) {
			const char *k;
			json_t *v;
			json_object_foreach((json_t *)an, k, v) {
				tmpl_map_set(a, am, k, strlen(k), json_is_string(v) ? tmpl_str(a, json_string_value(v), json_string_length(v)) : tmpl_str_static("", 0));
			}
			tmpl_map_sort(am);
		} else {
			am->is_nil = 1;
		}
		tmpl_map_set(a, m, "Annotations", 11, tmpl_map_value(am));
	}
	/* Maintainers: []interface{} of {Name, Email, URL} */
	{
		const json_t *ms = json_object_get(chart, "maintainers");
		tmpl_list *l = tmpl_list_new(a, NULL, 0);
		if (!l)
			return BH_ELIMIT;
		for (size_t i = 0; json_is_array(ms) && i < json_array_size(ms); i++) {
			const json_t *x = json_array_get(ms, i);
			tmpl_map *mm = tmpl_map_new(a, NULL);
			if (!mm)
				return BH_ELIMIT;
			tmpl_map_set(a, mm, "Email", 5, str_field(a, x, "email"));
			tmpl_map_set(a, mm, "Name", 4, str_field(a, x, "name"));
			tmpl_map_set(a, mm, "URL", 3, str_field(a, x, "url"));
			tmpl_list_push(a, l, tmpl_map_value(mm));
		}
		tmpl_map_set(a, m, "Maintainers", 11, tmpl_list_value(l));
	}
	/* Dependencies: []interface{} of maps with Go field names */
	{
		const json_t *ds = json_object_get(chart, "dependencies");
		tmpl_list *l = tmpl_list_new(a, NULL, 0);
		if (!l)
			return BH_ELIMIT;
		for (size_t i = 0; json_is_array(ds) && i < json_array_size(ds); i++) {
			const json_t *x = json_array_get(ds, i);
			tmpl_map *dm = tmpl_map_new(a, NULL);
			if (!dm)
				return BH_ELIMIT;
			tmpl_map_set(a, dm, "Alias", 5, str_field(a, x, "alias"));
			tmpl_map_set(a, dm, "Condition", 9, str_field(a, x, "condition"));
			tmpl_map_set(a, dm, "Enabled", 7, tmpl_bool(!json_is_false(json_object_get(x, "enabled"))));
			tmpl_map_set(a, dm, "ImportValues", 12, str_list(a, json_object_get(x, "import-values")));
			tmpl_map_set(a, dm, "Name", 4, str_field(a, x, "name"));
			tmpl_map_set(a, dm, "Repository", 10, str_field(a, x, "repository"));
			tmpl_map_set(a, dm, "Tags", 4, str_list(a, json_object_get(x, "tags")));
			tmpl_map_set(a, dm, "Version", 7, str_field(a, x, "version"));
			tmpl_list_push(a, l, tmpl_map_value(dm));
		}
		tmpl_map_set(a, m, "Dependencies", 12, tmpl_list_value(l));
	}
	json_decref(def);
	tmpl_map_sort(m);
	*out = tmpl_map_value(m);
	return tmpl_arena_over_budget(a) ? BH_ELIMIT : 0;
}

/* ---- root ---- */

int helmctx_build(tmpl_arena *a, const helmctx_opts *o, tmpl_value *out, bh_error *err)
{
	tmpl_map *root = tmpl_map_new(a, "common.Values");
	tmpl_map *rel = tmpl_map_new(a, NULL);
	tmpl_map *sub = tmpl_map_new(a, NULL);
	tmpl_map *files = files_new(a);
	tmpl_value v;
	int r;
	if (!root || !rel || !sub || !files)
		return bh_error_set(err, BH_ELIMIT, "building the template root: out of memory");
	root->cls = &tmpl_values_class;
	/* .Values */
	if (o->values_map) {
		/* the same map seen as common.Values: its own type stays the
		 * parent's map[string]interface {} */
		v = tmpl_map_value((tmpl_map *)o->values_map);
		v.view = TMPL_VIEW_VALUES;
	} else if (o->values && json_is_object(o->values)) {
		v = tmpl_value_from_json(a, o->values);
		if (v.kind == TMPL_INVALID)
			return bh_error_set(err, BH_ELIMIT, "building .Values: out of memory");
	} else {
		tmpl_map *vm = tmpl_map_new(a, NULL);
		if (!vm)
			return bh_error_set(err, BH_ELIMIT, "building .Values: out of memory");
		v = tmpl_map_value(vm);
	}
	if (!o->values_map) {
		v.u.map->gotype = "common.Values";
		v.u.map->cls = &tmpl_values_class;
	}
	tmpl_map_set(a, root, "Values", 6, v);
	/* .Release */
	set_str(a, rel, "Name", o->release_name ? o->release_name : "x");
	set_str(a, rel, "Namespace", o->release_namespace ? o->release_namespace : "default");
	tmpl_map_set(a, rel, "IsUpgrade", 9, tmpl_bool(o->is_upgrade));
	tmpl_map_set(a, rel, "IsInstall", 9, tmpl_bool(!o->is_upgrade));
	tmpl_map_set(a, rel, "Revision", 8, tmpl_int(o->revision ? o->revision : 1));
	set_str(a, rel, "Service", "Helm");
	tmpl_map_sort(rel);
	tmpl_map_set(a, root, "Release", 7, tmpl_map_value(rel));
	/* .Chart */
	r = build_chart(a, o->chart, !o->not_root, &v);
	if (r)
		return bh_error_set(err, r, "building .Chart: out of memory");
	tmpl_map_set(a, root, "Chart", 5, v);
	/* .Capabilities */
	r = build_caps(a, o, &v, err);
	if (r)
		return r;
	tmpl_map_set(a, root, "Capabilities", 12, v);
	/* .Files */
	for (size_t i = 0; i < o->n_files; i++) {
		tmpl_value b = tmpl_invalid();
		b.kind = TMPL_BYTES;
		b.u.s.ptr = (const char *)o->files[i].data;
		b.u.s.len = o->files[i].len;
		if (!b.u.s.ptr)
			b.u.s.ptr = "";
		if (tmpl_map_set(a, files, o->files[i].name, strlen(o->files[i].name), b))
			return bh_error_set(err, BH_ELIMIT, "building .Files: out of memory");
	}
	tmpl_map_sort(files);
	tmpl_map_set(a, root, "Files", 5, tmpl_map_value(files));
	tmpl_map_set(a, root, "Subcharts", 9, tmpl_map_value(sub));
	tmpl_map_sort(root);
	if (tmpl_arena_over_budget(a))
		return bh_error_set(err, BH_ELIMIT, "building the template root: out of memory");
	*out = tmpl_map_value(root);
	return 0;
}

int helmctx_set_template(tmpl_arena *a, tmpl_value *root, const char *name, const char *base_path,
			 bh_error *err)
{
	tmpl_map *t;
	if (root->kind != TMPL_MAP)
		return bh_error_set(err, BH_EINVAL, "helmctx_set_template: root is not a map");
	t = tmpl_map_new(a, "common.Values");
	if (t)
		t->cls = &tmpl_values_class;
	if (!t || set_str(a, t, "BasePath", base_path) || set_str(a, t, "Name", name) ||
	    tmpl_map_set(a, root->u.map, "Template", 8, tmpl_map_value(t)))
		return bh_error_set(err, BH_ELIMIT, "setting .Template: out of memory");
	return 0;
}

int helmctx_add_subchart(tmpl_arena *a, tmpl_value *root, const char *name, const tmpl_value *sub,
			 bh_error *err)
{
	tmpl_value *s;
	if (root->kind != TMPL_MAP || !(s = tmpl_map_get(root->u.map, "Subcharts", 9)) || s->kind != TMPL_MAP)
		return bh_error_set(err, BH_EINVAL, "helmctx_add_subchart: root has no .Subcharts map");
	/* recAllTpls' map[string]any: the subchart's root seen as a plain
	 * map (no common.Values methods), as .Subcharts holds it */
	if (tmpl_map_set(a, s->u.map, name, strlen(name), values_view(sub, TMPL_VIEW_PLAIN)))
		return bh_error_set(err, BH_ELIMIT, "adding subchart %s: out of memory", name);
	return 0;
}
