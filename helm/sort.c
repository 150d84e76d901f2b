/* helm/sort.c — see sort.h. */
#include "helm/sort.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "helm/chart.h"
#include "lib/buf.h"
#include "lib/vec.h"
#include "lib/yaml.h"

static const char *install_order[] = {
	"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange",
	"PodSecurityPolicy", "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList",
	"ConfigMap", "StorageClass", "PersistentVolume", "PersistentVolumeClaim",
	"CustomResourceDefinition", "ClusterRole", "ClusterRoleList", "ClusterRoleBinding",
	"ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList", "Service",
	"DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
	"HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress",
	"APIService", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", NULL,
};

int manifest_install_order(const char *kind)
{
	for (int i = 0; install_order[i]; i++)
		if (!strcmp(install_order[i], kind))
			return i;
	return -1;
}

/* Go's \s in RE2: [\t\n\f\r ] */
static int re_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* unicode.IsSpace for ASCII (TrimSpace / TrimLeftFunc) */
static int go_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* s[0..n) without Go's leading and trailing spaces: *start and the length */
static size_t trim_span(const char *s, size_t n, size_t *start)
{
	size_t a = 0;
	while (a < n && go_space(s[a]))
		a++;
	while (n > a && go_space(s[n - 1]))
		n--;
	*start = a;
	return n - a;
}

static char *trimmed_dup(const char *s, size_t n)
{
	size_t a;
	n = trim_span(s, n, &a);
	/* not strndup: s has no NUL before s + n, which strndup would look for */
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s + a, n);
		d[n] = 0;
	}
	return d;
}

/* The first line start j >= from + 1 (after a '\n' at or past from) where
 * s[j..j+3) is "---", or len: 16 bytes at a time where SSE2 is (a rendered
 * file has thousands of lines, and a memchr call per line was most of the
 * split). */
static size_t find_marker(const char *s, size_t from, size_t len)
{
	size_t i = from;
#if defined(__SSE2__)
	/* a '\n' at i + k whose next byte is '-', for k in 0..15: i + 17 <= len */
	while (len - i >= 17) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 1));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, _mm_set1_epi8('\n')),
								       _mm_cmpeq_epi8(b, _mm_set1_epi8('-'))));
		for (; m; m &= m - 1) {
			size_t j = i + (size_t)__builtin_ctz(m) + 1;
			if (j + 3 <= len && s[j + 1] == '-' && s[j + 2] == '-')
				return j;
		}
		i += 16;
	}
#endif
	for (; i < len; i++)
		if (s[i] == '\n' && i + 4 <= len && !memcmp(s + i + 1, "---", 3))
			return i + 1;
	return len;
}

typedef struct span {
	size_t start, len;
} span;

/* SplitManifests as spans of text[0..len): the trimmed, non-empty
 * documents in order (*out malloc'd; NULL when there are none). */
static int split_spans(const char *text, size_t len, span **out, size_t *n)
{
	const char *s = text;
	while (len && go_space(*s)) {
		s++;
		len--;
	}
	size_t pos = 0, last = 0, cnt = 0, cap = 0, off = (size_t)(s - text);
	span *v = NULL;
	*out = NULL;
	*n = 0;
	for (;;) {
		size_t mstart = 0, mend = 0;
		int found = 0;
		if (pos == 0 && len >= 3 && !memcmp(s, "---", 3)) {
			mend = 3;
			found = 1;
		} else {
			size_t j = find_marker(s, pos, len);
			if (j < len) {
				size_t k = j - 1; /* the '\n' before the marker, and the spaces before it */
				while (k > pos && re_space(s[k - 1]))
					k--;
				mstart = k;
				mend = j + 3;
				found = 1;
			}
		}
		size_t dend = found ? mstart : len;
		if (dend > last) {
			size_t a, l = trim_span(s + last, dend - last, &a);
			/* Go keeps d != "" docs only */
			if (l) {
				if (VEC_RESERVE(v, cap, cnt + 1, 8) < 0) {
					free(v);
					return BH_ENOMEM;
				}
				v[cnt].start = off + last + a;
				v[cnt].len = l;
				cnt++;
			}
		}
		if (!found)
			break;
		while (mend < len && re_space(s[mend]))
			mend++;
		pos = last = mend;
	}
	*out = v;
	*n = cnt;
	return 0;
}

int manifest_split(const char *text, char ***out, size_t *n)
{
	span *sp;
	size_t ns;
	if (split_spans(text, strlen(text), &sp, &ns))
		return BH_ENOMEM;
	char **docs = malloc((ns + 1) * sizeof *docs);
	if (!docs) {
		free(sp);
		return BH_ENOMEM;
	}
	for (size_t i = 0; i < ns; i++) {
		docs[i] = malloc(sp[i].len + 1);
		if (!docs[i]) {
			manifest_split_free(docs, i);
			free(sp);
			return BH_ENOMEM;
		}
		memcpy(docs[i], text + sp[i].start, sp[i].len);
		docs[i][sp[i].len] = 0;
	}
	free(sp);
	*out = docs;
	*n = ns;
	return 0;
}

void manifest_split_free(char **docs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(docs[i]);
	free(docs);
}

static void manifest_clear(manifest *m)
{
	free(m->path);
	if (!m->content_borrowed)
		free(m->content);
	free(m->api_version);
	free(m->kind);
	free(m->name);
	for (size_t i = 0; i < m->nevents; i++)
		free(m->events[i]);
	free(m->events);
	for (size_t i = 0; i < m->ndelete_policies; i++)
		free(m->delete_policies[i]);
	free(m->delete_policies);
	for (size_t i = 0; i < m->noutput_log_policies; i++)
		free(m->output_log_policies[i]);
	free(m->output_log_policies);
}

void manifest_list_free(manifest_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		manifest_clear(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static manifest *list_push(manifest_list *l)
{
	if (VEC_RESERVE(l->v, l->cap, l->n + 1, 32) < 0)
		return NULL;
	memset(&l->v[l->n], 0, sizeof l->v[0]);
	return &l->v[l->n++];
}

int manifest_is_test_hook(const manifest *m)
{
	for (size_t i = 0; i < m->nevents; i++)
		if (!strcmp(m->events[i], "test"))
			return 1;
	return 0;
}

static const char *json_kind_name(const json_t *v)
{
	if (json_is_string(v))
		return "string";
	if (json_is_number(v))
		return "number";
	if (json_is_boolean(v))
		return "bool";
	if (json_is_array(v))
		return "array";
	return "object";
}

/* SimpleHead as Helm 4 reads it: sigs.k8s.io/yaml.Unmarshal, i.e. goyaml.v2
 * typing, then YAML numbers and bools found where the Go field is a string
 * become strings (chart_yaml_string_new), then encoding/json decodes the
 * object with its keys in sorted order, matching struct fields by exact name
 * first and ASCII case-insensitively next; a later key overwrites, `null`
 * leaves a string as it was and resets a pointer or map; the first type
 * error is the one reported. */
#define HEAD_ERR "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal %s into Go "

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* o's keys in json.Marshal order; NULL on OOM (or no keys: *n == 0). */
static const char **sorted_keys(const json_t *o, size_t *n)
{
	const char **v = malloc((json_object_size(o) + 1) * sizeof *v);
	const char *k;
	json_t *x;
	*n = 0;
	if (!v)
		return NULL;
	json_object_foreach((json_t *)o, k, x) v[(*n)++] = k;
	qsort(v, *n, sizeof *v, key_cmp);
	return v;
}

/* The field of names[] key decodes into, or -1. */
static int head_field(const char *key, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(key, names[i]))
			return i;
	for (int i = 0; i < n; i++)
		if (!strcasecmp(key, names[i]))
			return i;
	return -1;
}

/* A string field: *dst replaced unless v is null. */
static int head_string(const json_t *v, char **dst, const char *field, char *emsg, size_t emsz)
{
	json_t *s = json_is_string(v) ? json_incref((json_t *)v) : chart_yaml_string_new(v);
	if (json_is_null(v))
		return 0;
	if (!s) {
		snprintf(emsg, emsz, HEAD_ERR "struct field %s of type string", json_kind_name(v), field);
		return -1;
	}
	free(*dst);
	*dst = strdup(json_string_value(s));
	json_decref(s);
	return 0;
}

/* metadata.annotations (map[string]string) merged into *ann. */
static int head_annotations(const json_t *v, json_t **ann, char *emsg, size_t emsz)
{
	size_t n;
	if (json_is_null(v)) {
		json_decref(*ann);
		*ann = NULL;
		return 0;
	}
	if (!json_is_object(v)) {
		snprintf(emsg, emsz, HEAD_ERR "struct field .metadata.annotations of type map[string]string",
			 json_kind_name(v));
		return -1;
	}
	const char **keys = sorted_keys(v, &n);
	if (!*ann)
		*ann = json_object();
	for (size_t i = 0; keys && i < n; i++) {
		const json_t *x = json_object_get(v, keys[i]);
		json_t *s = json_is_null(x) ? json_string("") :
			    json_is_string(x) ? json_incref((json_t *)x) : chart_yaml_string_new(x);
		if (!s) {
			snprintf(emsg, emsz, HEAD_ERR "struct field .metadata.annotations of type string",
				 json_kind_name(x));
			free(keys);
			return -1;
		}
		json_object_set_new(*ann, keys[i], s);
	}
	free(keys);
	return 0;
}

static int head_metadata(const json_t *md, manifest *m, json_t **ann, char *emsg, size_t emsz)
{
	static const char *const names[] = {"name", "annotations"};
	size_t n;
	if (json_is_null(md)) { /* a nil *struct again */
		free(m->name);
		m->name = NULL;
		json_decref(*ann);
		*ann = NULL;
		return 0;
	}
	if (!json_is_object(md)) {
		snprintf(emsg, emsz, HEAD_ERR "struct field SimpleHead.metadata of type struct { Name string \"json:\\\"name\\\"\"; Annotations map[string]string \"json:\\\"annotations\\\"\" }",
			 json_kind_name(md));
		return -1;
	}
	const char **keys = sorted_keys(md, &n);
	int rc = 0;
	for (size_t i = 0; keys && i < n && !rc; i++) {
		const json_t *v = json_object_get(md, keys[i]);
		int f = head_field(keys[i], names, 2);
		if (f == 0)
			rc = head_string(v, &m->name, ".metadata.name", emsg, emsz);
		else if (f == 1)
			rc = head_annotations(v, ann, emsg, emsz);
	}
	free(keys);
	return rc;
}

/* Fills m's head fields and *annotations (new, all strings), or an error. */
static int read_head(const json_t *doc, manifest *m, json_t **annotations, char *emsg, size_t emsz)
{
	static const char *const names[] = {"apiVersion", "kind", "metadata"};
	size_t n;
	*annotations = NULL;
	if (json_is_null(doc))
		return 0;
	if (!json_is_object(doc)) {
		snprintf(emsg, emsz, HEAD_ERR "value of type util.SimpleHead", json_kind_name(doc));
		return -1;
	}
	const char **keys = sorted_keys(doc, &n);
	int rc = 0;
	for (size_t i = 0; keys && i < n && !rc; i++) {
		const json_t *v = json_object_get(doc, keys[i]);
		switch (head_field(keys[i], names, 3)) {
		case 0:
			rc = head_string(v, &m->api_version, "SimpleHead.apiVersion", emsg, emsz);
			break;
		case 1:
			rc = head_string(v, &m->kind, "SimpleHead.kind", emsg, emsz);
			break;
		case 2:
			rc = head_metadata(v, m, annotations, emsg, emsz);
			break;
		}
	}
	free(keys);
	return rc;
}

/* The head by manifest_head_scan: 1 with m's head fields and *annotations
 * (the hook annotations found, or NULL) set, 0 when the document must be
 * parsed, -1 out of memory. */
static int head_fast(const char *doc, size_t len, manifest *m, json_t **annotations)
{
	manifest_head h;
	int r = manifest_head_scan(doc, len, &h);
	if (r <= 0)
		return r;
	m->api_version = h.api_version;
	m->kind = h.kind;
	m->name = h.name;
	h.api_version = h.kind = h.name = NULL;
	for (int i = 0; i < MANIFEST_HEAD_HOOKS && r > 0; i++) {
		if (!h.hooks[i])
			continue;
		if (!*annotations)
			*annotations = json_object();
		if (!*annotations || json_object_set_new(*annotations, manifest_hook_keys[i],
							 json_stringn_nocheck(h.hooks[i], strlen(h.hooks[i]))))
			r = -1;
	}
	manifest_head_clear(&h);
	if (r < 0) {
		json_decref(*annotations);
		*annotations = NULL;
	}
	return r;
}

/* Splits an annotation value on ',' into trimmed lower-case items. */
static int split_values(const char *v, char ***out, size_t *n)
{
	size_t cap = 4, cnt = 0;
	char **arr = malloc(cap * sizeof *arr);
	if (!arr)
		return -1;
	for (;;) {
		size_t l = strcspn(v, ",");
		char *item = trimmed_dup(v, l);
		if (!item)
			break;
		for (char *q = item; *q; q++)
			if (*q >= 'A' && *q <= 'Z')
				*q = (char)(*q - 'A' + 'a');
		if (VEC_RESERVE(arr, cap, cnt + 1, 4) < 0) {
			free(item);
			break;
		}
		arr[cnt++] = item;
		if (!v[l])
			break;
		v += l + 1;
	}
	*out = arr;
	*n = cnt;
	return 0;
}

static const char *known_events[] = {"pre-install", "post-install", "pre-delete", "post-delete",
				     "pre-upgrade", "post-upgrade", "pre-rollback", "post-rollback",
				     "test", NULL};

static int path_cmp(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;
	return strcmp(*x, *y);
}

/* A manifest of an in-place sort takes its own copy of its content (the
 * texts are put back as they were after an error). */
static void own_contents(manifest_list *l, size_t from)
{
	for (size_t i = from; i < l->n; i++) {
		manifest *m = &l->v[i];
		if (!m->content_borrowed)
			continue;
		char *d = malloc(m->content_len + 1);
		if (d) {
			memcpy(d, m->content, m->content_len);
			d[m->content_len] = 0;
		}
		m->content = d ? d : calloc(1, 1);
		m->content_len = d ? m->content_len : 0;
		m->content_borrowed = 0;
	}
}

/* manifest_sort_files; in place when rw (texts as writable): the
 * documents' ends get their NULs, each undone on an error (undo). */
static int sort_files(const char *const *paths, const char *const *texts, char *const *rw, size_t n,
		      manifest_list *hooks, manifest_list *generic, manifest_log_fn log, void *log_ud,
		      bh_error *err)
{
	size_t nhooks0 = hooks->n, ngeneric0 = generic->n;
	struct undo {
		char *at, was;
	} *undo = NULL;
	size_t nundo = 0, capundo = 0;
	size_t *idx = malloc((n + 1) * sizeof *idx);
	const char **keys = malloc((n + 1) * 2 * sizeof *keys);
	int rc = 0;
	if (!idx || !keys) {
		free(idx);
		free(keys);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	/* sort (path, index) pairs by path */
	for (size_t i = 0; i < n; i++) {
		keys[2 * i] = paths[i];
		keys[2 * i + 1] = (const char *)(uintptr_t)i;
	}
	qsort(keys, n, 2 * sizeof *keys, path_cmp);
	for (size_t i = 0; i < n; i++)
		idx[i] = (size_t)(uintptr_t)keys[2 * i + 1];
	free(keys);
	for (size_t fi = 0; fi < n && !rc; fi++) {
		const char *path = paths[idx[fi]], *text = rw ? rw[idx[fi]] : texts[idx[fi]];
		const char *base = strrchr(path, '/');
		base = base ? base + 1 : path;
		if (base[0] == '_')
			continue;
		const char *t = text;
		while (*t && go_space(*t))
			t++;
		if (!*t)
			continue;
		span *docs = NULL;
		size_t nd = 0;
		if (split_spans(text, (size_t)(t - text) + strlen(t), &docs, &nd)) {
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
			break;
		}
		if (rw && VEC_RESERVE(undo, capundo, nundo + nd, 16) < 0) {
			free(docs);
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
			break;
		}
		for (size_t d = 0; d < nd && !rc; d++) {
			char *doc_text;
			size_t doc_len = docs[d].len;
			if (rw) {
				/* the byte after a document is a space or its separator's */
				doc_text = rw[idx[fi]] + docs[d].start;
				undo[nundo].at = doc_text + doc_len;
				undo[nundo].was = doc_text[doc_len];
				nundo++;
				doc_text[doc_len] = 0;
			} else {
				doc_text = malloc(doc_len + 1);
				if (!doc_text) {
					rc = bh_error_set(err, BH_ENOMEM, "out of memory");
					break;
				}
				memcpy(doc_text, text + docs[d].start, doc_len);
				doc_text[doc_len] = 0;
			}
			json_t *doc = NULL;
			bh_error yerr;
			manifest tmp;
			memset(&tmp, 0, sizeof tmp);
			json_t *ann = NULL;
			int fast = head_fast(doc_text, doc_len, &tmp, &ann);
			if (fast < 0) {
				rc = bh_error_set(err, BH_ENOMEM, "out of memory");
				goto doc_fail;
			}
			if (!fast && yaml_parse_any(doc_text, doc_len, NULL, YAML_KEEP_INTS, &doc, &yerr)) {
				rc = bh_error_set(err, BH_EPARSE, "YAML parse error on %s: %s", path, yerr.msg);
				goto doc_fail;
			}
			char emsg[1024];
			if (!fast && read_head(doc, &tmp, &ann, emsg, sizeof emsg)) {
				rc = bh_error_set(err, BH_EPARSE, "YAML parse error on %s: %s", path, emsg);
				manifest_clear(&tmp);
				json_decref(doc);
				json_decref(ann);
				goto doc_fail;
			}
			json_t *hookv = ann ? json_object_get(ann, "helm.sh/hook") : NULL;
			manifest *m;
			if (!hookv) {
				m = list_push(generic);
			} else {
				char **ev = NULL;
				size_t nev = 0;
				split_values(json_is_string(hookv) ? json_string_value(hookv) : "", &ev, &nev);
				int unknown = 0;
				for (size_t e = 0; e < nev; e++) {
					if (!strcmp(ev[e], "test-success")) {
						free(ev[e]);
						ev[e] = strdup("test");
					}
					int ok = 0;
					for (int k = 0; known_events[k]; k++)
						if (ev[e] && !strcmp(ev[e], known_events[k]))
							ok = 1;
					if (!ok)
						unknown = 1;
				}
				if (unknown) {
					if (log) {
						const char *attrs[] = {"hookTypes",
								       json_is_string(hookv) ? json_string_value(hookv) : "",
								       NULL};
						log(log_ud, "INFO", "skipping unknown hooks", attrs);
					}
					for (size_t e = 0; e < nev; e++)
						free(ev[e]);
					free(ev);
					manifest_clear(&tmp);
					json_decref(doc);
					json_decref(ann);
					if (!rw)
						free(doc_text);
					continue;
				}
				m = list_push(hooks);
				if (m) {
					m->events = ev;
					m->nevents = nev;
					const char *w = json_string_value(json_object_get(ann, "helm.sh/hook-weight"));
					if (w && *w) {
						char *end;
						errno = 0;
						long v = strtol(w, &end, 10);
						if (!*end && !errno && v >= -2147483648L && v <= 2147483647L &&
						    w[0] != ' ' && !(w[0] == '+' && w[1] == '-'))
							m->weight = (int)v;
					}
					const char *dp = json_string_value(json_object_get(ann, "helm.sh/hook-delete-policy"));
					if (dp)
						split_values(dp, &m->delete_policies, &m->ndelete_policies);
					const char *op = json_string_value(json_object_get(ann, "helm.sh/hook-output-log-policy"));
					if (op)
						split_values(op, &m->output_log_policies, &m->noutput_log_policies);
				} else {
					for (size_t e = 0; e < nev; e++)
						free(ev[e]);
					free(ev);
				}
			}
			if (!m) {
				manifest_clear(&tmp);
				json_decref(doc);
				json_decref(ann);
				rc = bh_error_set(err, BH_ENOMEM, "out of memory");
				goto doc_fail;
			}
			m->path = strdup(path);
			m->content = doc_text;
			m->content_len = doc_len;
			m->content_borrowed = rw != NULL;
			m->api_version = tmp.api_version ? tmp.api_version : strdup("");
			m->kind = tmp.kind ? tmp.kind : strdup("");
			m->name = tmp.name ? tmp.name : strdup("");
			json_decref(doc);
			json_decref(ann);
			continue;
		doc_fail:
			if (!rw)
				free(doc_text);
			break;
		}
		free(docs);
	}
	free(idx);
	if (rc && rw) {
		own_contents(hooks, nhooks0);
		own_contents(generic, ngeneric0);
		while (nundo--)
			*undo[nundo].at = undo[nundo].was;
	}
	free(undo);
	if (!rc) {
		manifest_sort_by_kind(hooks);
		manifest_sort_by_kind(generic);
	}
	return rc;
}

int manifest_sort_files(const char *const *paths, const char *const *texts, size_t n,
			manifest_list *hooks, manifest_list *generic,
			manifest_log_fn log, void *log_ud, bh_error *err)
{
	return sort_files(paths, texts, NULL, n, hooks, generic, log, log_ud, err);
}

int manifest_sort_files_inplace(const char *const *paths, char *const *texts, size_t n,
				manifest_list *hooks, manifest_list *generic,
				manifest_log_fn log, void *log_ud, bh_error *err)
{
	return sort_files(paths, NULL, texts, n, hooks, generic, log, log_ud, err);
}

static int less_by_order(int oa, int ob, const manifest *a, const manifest *b)
{
	if (oa < 0 && ob < 0)
		return strcmp(a->kind, b->kind) < 0;
	if (oa < 0)
		return 0;
	if (ob < 0)
		return 1;
	return oa < ob;
}

static int less_by_kind(const manifest *a, const manifest *b)
{
	return less_by_order(manifest_install_order(a->kind), manifest_install_order(b->kind), a, b);
}

void manifest_sort_by_kind(manifest_list *l)
{
	/* a stable merge sort of (order, index) pairs, each kind's place in
	 * InstallOrder looked up once, not at every comparison */
	size_t n = l->n;
	if (n < 2)
		return;
	struct key {
		int order;
		size_t i;
	} *k = malloc(2 * n * sizeof *k);
	manifest *tmp = malloc(n * sizeof *tmp);
	if (!k || !tmp) {
		free(k);
		free(tmp);
		/* fall back to stable insertion sort */
		for (size_t i = 1; i < n; i++) {
			manifest x = l->v[i];
			size_t j = i;
			while (j > 0 && less_by_kind(&x, &l->v[j - 1])) {
				l->v[j] = l->v[j - 1];
				j--;
			}
			l->v[j] = x;
		}
		return;
	}
	struct key *src = k, *dst = k + n;
	for (size_t i = 0; i < n; i++) {
		src[i].order = manifest_install_order(l->v[i].kind);
		src[i].i = i;
	}
	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t i = lo, j = mid, o = lo;
			while (i < mid && j < hi) {
				if (less_by_order(src[j].order, src[i].order, &l->v[src[j].i], &l->v[src[i].i]))
					dst[o++] = src[j++];
				else
					dst[o++] = src[i++];
			}
			while (i < mid)
				dst[o++] = src[i++];
			while (j < hi)
				dst[o++] = src[j++];
		}
		struct key *t = src;
		src = dst;
		dst = t;
	}
	for (size_t i = 0; i < n; i++)
		tmp[i] = l->v[src[i].i];
	memcpy(l->v, tmp, n * sizeof *tmp);
	free(tmp);
	free(k);
}
