/* worker/drift.c — see drift.h. */
#include "worker/drift.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "helm/kustomize.h"
#include "helm/sort.h"
#include "lib/buf.h"
#include "lib/gojson.h"

#define FIELD_MANAGER "helm-controller"
#define DISABLED_KEY "helm.toolkit.fluxcd.io/driftDetection"
#define MAX_RULES 100
#define MAX_PATHS 100
#define MSG_MAX 4000

typedef struct rule {
	kz_selector *target; /* NULL = every object */
	char **paths;
	size_t npaths;
} rule;

typedef struct rules {
	rule *v;
	size_t n;
} rules;

static void rules_free(rules *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		kz_selector_free(rs->v[i].target);
		for (size_t j = 0; j < rs->v[i].npaths; j++)
			free(rs->v[i].paths[j]);
		free(rs->v[i].paths);
	}
	free(rs->v);
	rs->v = NULL;
	rs->n = 0;
}

int drift_enabled(const json_t *config, bh_error *err)
{
	const json_t *m = json_object_get(config, "mode");
	const char *s = json_string_value(m);
	if (!m || json_is_null(m) || (s && (!*s || !strcmp(s, "disabled"))))
		return 0;
	if (s && (!strcmp(s, "warn") || !strcmp(s, "enabled")))
		return 1;
	return bh_error_set(err, BH_EINVAL, ".spec.driftDetection.mode: must be one of disabled, warn, enabled");
}

static int rules_decode(const json_t *config, rules *rs, bh_error *err)
{
	const json_t *ign = json_object_get(config, "ignore"), *r;
	size_t i;
	memset(rs, 0, sizeof *rs);
	if (!ign || json_is_null(ign))
		return 0;
	if (!json_is_array(ign) || json_array_size(ign) > MAX_RULES)
		return bh_error_set(err, BH_EINVAL, ".spec.driftDetection.ignore: a list of at most %d rules", MAX_RULES);
	if (!(rs->v = calloc(json_array_size(ign) + 1, sizeof *rs->v)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	json_array_foreach(ign, i, r) {
		rule *x = &rs->v[rs->n++];
		const json_t *paths = json_object_get(r, "paths"), *p, *t = json_object_get(r, "target");
		const char *k;
		json_t *v;
		size_t j;
		if (!json_is_object(r) || !json_is_array(paths) || json_array_size(paths) > MAX_PATHS) {
			bh_error_set(err, BH_EINVAL, ".spec.driftDetection.ignore[%zu]: needs a list of paths", i);
			goto fail;
		}
		json_object_foreach((json_t *)r, k, v) if (strcmp(k, "paths") && strcmp(k, "target")) {
			bh_error_set(err, BH_EINVAL, ".spec.driftDetection.ignore[%zu]: unknown field \"%s\"", i, k);
			goto fail;
		}
		if (!(x->paths = calloc(json_array_size(paths) + 1, sizeof *x->paths))) {
			bh_error_set(err, BH_ENOMEM, "out of memory");
			goto fail;
		}
		json_array_foreach(paths, j, p) {
			const char *s = json_string_value(p);
			if (!s || (*s && *s != '/')) {
				bh_error_set(err, BH_EINVAL, ".spec.driftDetection.ignore[%zu].paths[%zu]: not a JSON pointer", i, j);
				goto fail;
			}
			x->paths[x->npaths++] = strdup(s);
		}
		if (t && !json_is_null(t) && kz_selector_decode(t, &x->target, err) < 0) {
			bh_error_prefix(err, ".spec.driftDetection.ignore[%zu]", i);
			goto fail;
		}
	}
	return 0;
fail:
	rules_free(rs);
	return err ? err->code : BH_EINVAL;
}

/* ---- the diff ------------------------------------------------------------------------ */

static void ptr_append(bh_buf *b, const char *path, const char *key)
{
	bh_buf_puts(b, path);
	bh_buf_putc(b, '/');
	for (const char *k = key; *k; k++) {
		if (*k == '~')
			bh_buf_puts(b, "~0");
		else if (*k == '/')
			bh_buf_puts(b, "~1");
		else
			bh_buf_putc(b, *k);
	}
}

static void op(json_t *ops, const char *kind, const char *path, const json_t *v)
{
	json_t *o = json_pack("{s:s,s:s}", "op", kind, "path", path);
	if (o && v)
		json_object_set_new(o, "value", json_deep_copy(v));
	json_array_append_new(ops, o);
}

void drift_diff(const json_t *from, const json_t *to, const char *path, json_t *ops, int depth)
{
	if (gojson_equal(from, to))
		return;
	if (depth < 64 && json_is_object(from) && json_is_object(to)) {
		const char *k;
		json_t *v;
		json_object_foreach((json_t *)from, k, v) {
			bh_buf p = BH_BUF_INIT;
			ptr_append(&p, path, k);
			if (!json_object_get(to, k))
				op(ops, "remove", bh_buf_str(&p), NULL);
			else
				drift_diff(v, json_object_get(to, k), bh_buf_str(&p), ops, depth + 1);
			bh_buf_free(&p);
		}
		json_object_foreach((json_t *)to, k, v) if (!json_object_get(from, k)) {
			bh_buf p = BH_BUF_INIT;
			ptr_append(&p, path, k);
			op(ops, "add", bh_buf_str(&p), v);
			bh_buf_free(&p);
		}
		return;
	}
	if (depth < 64 && json_is_array(from) && json_is_array(to) && json_array_size(from) == json_array_size(to)) {
		for (size_t i = 0; i < json_array_size(from); i++) {
			char idx[32];
			snprintf(idx, sizeof idx, "%zu", i);
			bh_buf p = BH_BUF_INIT;
			ptr_append(&p, path, idx);
			drift_diff(json_array_get(from, i), json_array_get(to, i), bh_buf_str(&p), ops, depth + 1);
			bh_buf_free(&p);
		}
		return;
	}
	op(ops, "replace", *path ? path : "", to);
}

/* diff.go: labels and annotations (additions and changes only), then all
 * but metadata and status. */
static json_t *object_diff(const json_t *live, const json_t *want)
{
	json_t *ops = json_array();
	static const char *const meta[] = {"labels", "annotations"};
	const json_t *lmd = json_object_get(live, "metadata"), *wmd = json_object_get(want, "metadata");
	const char *k;
	json_t *v;
	for (size_t i = 0; i < 2; i++) {
		const json_t *lm = json_object_get(lmd, meta[i]), *wm = json_object_get(wmd, meta[i]);
		const char *mk;
		json_t *mv;
		char base[64];
		snprintf(base, sizeof base, "/metadata/%s", meta[i]);
		if (!json_is_object(wm) || !json_object_size(wm))
			continue;
		if (!json_is_object(lm)) {
			op(ops, "add", base, wm);
			continue;
		}
		json_object_foreach((json_t *)wm, mk, mv) {
			const json_t *cur = json_object_get(lm, mk);
			bh_buf p = BH_BUF_INIT;
			ptr_append(&p, base, mk);
			if (!cur)
				op(ops, "add", bh_buf_str(&p), mv);
			else if (!gojson_equal(cur, mv))
				op(ops, "replace", bh_buf_str(&p), mv);
			bh_buf_free(&p);
		}
	}
	json_object_foreach((json_t *)live, k, v) {
		if (!strcmp(k, "metadata") || !strcmp(k, "status"))
			continue;
		bh_buf p = BH_BUF_INIT;
		ptr_append(&p, "", k);
		if (!json_object_get(want, k))
			op(ops, "remove", bh_buf_str(&p), NULL);
		else
			drift_diff(v, json_object_get(want, k), bh_buf_str(&p), ops, 1);
		bh_buf_free(&p);
	}
	json_object_foreach((json_t *)want, k, v) {
		if (!strcmp(k, "metadata") || !strcmp(k, "status") || json_object_get(live, k))
			continue;
		bh_buf p = BH_BUF_INIT;
		ptr_append(&p, "", k);
		op(ops, "add", bh_buf_str(&p), v);
		bh_buf_free(&p);
	}
	return ops;
}

/* ---- per object ---------------------------------------------------------------------- */

typedef struct item {
	json_t *want;   /* desired object */
	kube_resource r;
	char id[512];   /* Kind/ns/name */
	int missing;
	json_t *patch;  /* the drift, or NULL */
	int order;
} item;

static const char *md_str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(json_object_get(o, "metadata"), k));
	return s ? s : "";
}

static int disabled(const json_t *o)
{
	const json_t *md = json_object_get(o, "metadata");
	const char *l = json_string_value(json_object_get(json_object_get(md, "labels"), DISABLED_KEY));
	const char *a = json_string_value(json_object_get(json_object_get(md, "annotations"), DISABLED_KEY));
	return (l && !strcmp(l, "disabled")) || (a && !strcmp(a, "disabled"));
}

/* Removes the ignored pointers from o; 1 when a rule ignores the whole object. */
static int apply_ignores(const rules *rs, const json_t *sel_obj, json_t *o)
{
	for (size_t i = 0; i < rs->n; i++) {
		if (rs->v[i].target && !kz_selector_match(rs->v[i].target, sel_obj))
			continue;
		for (size_t j = 0; j < rs->v[i].npaths; j++) {
			if (!*rs->v[i].paths[j])
				return 1;
			if (o)
				kz_json_pointer_remove(o, rs->v[i].paths[j]);
		}
	}
	return 0;
}

static long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int item_cmp(const void *a, const void *b)
{
	const item *x = a, *y = b;
	int c;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	if ((c = strcmp(md_str(x->want, "namespace"), md_str(y->want, "namespace"))))
		return c;
	return strcmp(md_str(x->want, "name"), md_str(y->want, "name"));
}

/* The paths of a patch, for messages: "/spec/replicas, /metadata/labels/x". */
static void patch_paths(const json_t *patch, bh_buf *b)
{
	size_t i;
	json_t *o;
	json_array_foreach(patch, i, o) {
		if (i >= 20) {
			bh_buf_printf(b, ", ... (%zu more)", json_array_size(patch) - i);
			break;
		}
		bh_buf_printf(b, "%s%s", i ? ", " : "", json_string_value(json_object_get(o, "path")));
	}
}

static void add_event(drift_result *r, const char *type, const char *reason, bh_buf *msg)
{
	const char *m = bh_buf_str(msg);
	char cut[MSG_MAX + 1];
	snprintf(cut, sizeof cut, "%s", m);
	json_array_append_new(r->events, json_pack("{s:s,s:s,s:s}", "type", type, "reason", reason, "message", cut));
}

static int check_object(const drift_opts *o, const rules *rs, item *it, drift_result *r, bh_error *err)
{
	json_t *live = NULL, *dry = NULL;
	kube_write_opts wo = {FIELD_MANAGER, 1, 1, NULL};
	const char *ns = it->r.namespaced ? md_str(it->want, "namespace") : NULL;
	int rc;
	r->requests++;
	rc = kube_get(o->kc, &it->r, ns, md_str(it->want, "name"), NULL, &live, err);
	if (rc == BH_ENOTFOUND) {
		it->missing = 1;
		return 0;
	}
	if (rc < 0)
		return rc;
	if (disabled(live) || apply_ignores(rs, live, NULL)) {
		json_decref(live);
		return 0;
	}
	r->requests++;
	if ((rc = kube_apply(o->kc, &it->r, ns, it->want, &wo, &dry, err)) < 0) {
		json_decref(live);
		return rc;
	}
	apply_ignores(rs, it->want, live);
	apply_ignores(rs, it->want, dry);
	it->patch = object_diff(live, dry);
	if (!json_array_size(it->patch)) {
		json_decref(it->patch);
		it->patch = NULL;
	}
	json_decref(live);
	json_decref(dry);
	return 0;
}

static void set_owner(json_t *o, const drift_opts *opt)
{
	json_t *md = json_object_get(o, "metadata"), *l, *a;
	if (!json_is_object(md)) {
		md = json_object();
		json_object_set_new(o, "metadata", md);
	}
	if (!json_is_object(l = json_object_get(md, "labels"))) {
		l = json_object();
		json_object_set_new(md, "labels", l);
	}
	if (!json_is_object(a = json_object_get(md, "annotations"))) {
		a = json_object();
		json_object_set_new(md, "annotations", a);
	}
	json_object_set_new(l, "app.kubernetes.io/managed-by", json_string("Helm"));
	json_object_set_new(a, "meta.helm.sh/release-name", json_string(opt->release_name));
	json_object_set_new(a, "meta.helm.sh/release-namespace", json_string(opt->release_ns));
}

int drift_run(const char *manifest, const drift_opts *o, drift_result *r, bh_error *err)
{
	json_t *objs = NULL, *obj;
	rules rs;
	item *items = NULL;
	size_t n = 0, i;
	long end = now_ms() + (o->deadline_ms > 0 ? o->deadline_ms : 60000);
	int enabled, rc;
	bh_buf det = BH_BUF_INIT, fix = BH_BUF_INIT, bad = BH_BUF_INIT;
	memset(r, 0, sizeof *r);
	if (!(r->events = json_array()))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	enabled = !strcmp(json_string_value(json_object_get(o->config, "mode")) ?
				  json_string_value(json_object_get(o->config, "mode")) : "", "enabled");
	if ((rc = rules_decode(o->config, &rs, err)) < 0)
		return rc;
	if ((rc = kz_objects_parse(manifest ? manifest : "", &objs, err)) < 0) {
		rules_free(&rs);
		return bh_error_prefix(err, "release manifest");
	}
	if (json_array_size(objs) > DRIFT_MAX_OBJECTS) {
		rules_free(&rs);
		json_decref(objs);
		return bh_error_set(err, BH_ELIMIT, "release has more than %d objects", DRIFT_MAX_OBJECTS);
	}
	items = calloc(json_array_size(objs) + 1, sizeof *items);
	if (!items) {
		rules_free(&rs);
		json_decref(objs);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	json_array_foreach(objs, i, obj) {
		item *it = &items[n];
		bh_error e;
		if (disabled(obj) || apply_ignores(&rs, obj, NULL))
			continue;
		if (kube_mapping_for_object(o->kc, obj, &it->r, &e) < 0) {
			bh_buf_printf(&bad, "\n%s/%s: %s", json_string_value(json_object_get(obj, "kind")), md_str(obj, "name"),
				      e.msg);
			continue;
		}
		it->want = json_incref(obj);
		if (it->r.namespaced && !*md_str(obj, "namespace"))
			json_object_set_new(json_object_get(obj, "metadata"), "namespace", json_string(o->release_ns));
		set_owner(obj, o);
		it->order = manifest_install_order(it->r.kind);
		if (it->order < 0)
			it->order = 1000;
		if (it->r.namespaced)
			snprintf(it->id, sizeof it->id, "%s/%s/%s", it->r.kind, md_str(obj, "namespace"), md_str(obj, "name"));
		else
			snprintf(it->id, sizeof it->id, "%s/%s", it->r.kind, md_str(obj, "name"));
		n++;
	}
	qsort(items, n, sizeof *items, item_cmp);
	for (i = 0; i < n; i++) {
		bh_error e;
		if (now_ms() > end) {
			bh_buf_printf(&bad, "\n%s: not checked, the deadline passed", items[i].id);
			continue;
		}
		if (check_object(o, &rs, &items[i], r, &e) < 0) {
			bh_buf_printf(&bad, "\n%s: %s", items[i].id, e.msg);
			continue;
		}
		if (items[i].missing) {
			r->drifted++;
			bh_buf_printf(&det, "\n%s removed", items[i].id);
		} else if (items[i].patch) {
			r->drifted++;
			bh_buf_printf(&det, "\n%s changed: ", items[i].id);
			patch_paths(items[i].patch, &det);
		}
	}
	if (r->drifted) {
		bh_buf m = BH_BUF_INIT;
		bh_buf_printf(&m, "Cluster state of release %s has drifted from the desired state:%s", o->release,
			      bh_buf_str(&det));
		add_event(r, "Warning", "DriftDetected", &m);
		snprintf(r->summary, sizeof r->summary, "%d object(s) of release %s drifted from the desired state",
			 r->drifted, o->release);
		bh_buf_free(&m);
	}
	for (i = 0; enabled && i < n; i++) {
		item *it = &items[i];
		const char *ns = it->r.namespaced ? md_str(it->want, "namespace") : NULL;
		kube_write_opts wo = {FIELD_MANAGER, 0, 0, NULL};
		bh_error e;
		int crc = 0;
		if (!it->missing && !it->patch)
			continue;
		r->requests++;
		if (it->missing) {
			crc = kube_create(o->kc, &it->r, ns, it->want, &wo, NULL, &e);
		} else {
			char *text = json_dumps(it->patch, JSON_COMPACT);
			crc = text ? kube_patch(o->kc, &it->r, ns, md_str(it->want, "name"), KUBE_PATCH_JSON, text, &wo, NULL, &e)
				   : bh_error_set(&e, BH_ENOMEM, "out of memory");
			free(text);
		}
		if (crc < 0) {
			r->failed++;
			bh_buf_printf(&bad, "\n%s: %s", it->id, e.msg);
		} else {
			r->corrected++;
			bh_buf_printf(&fix, "\n%s %s", it->id, it->missing ? "created" : "patched");
		}
	}
	if (r->corrected) {
		bh_buf m = BH_BUF_INIT;
		bh_buf_printf(&m, "Cluster state of release %s has been corrected:%s", o->release, bh_buf_str(&fix));
		add_event(r, "Normal", "DriftCorrected", &m);
		bh_buf_free(&m);
	}
	if (bad.len) {
		bh_buf m = BH_BUF_INIT;
		bh_buf_printf(&m, "%s of release %s:%s", enabled ? "Failed to correct cluster state" : "Failed to detect drift",
			      o->release, bh_buf_str(&bad));
		add_event(r, "Warning", enabled ? "DriftCorrectionFailed" : "DriftDetectionFailed", &m);
		bh_buf_free(&m);
		if (!r->failed)
			r->failed = 1;
	}
	for (i = 0; i < n; i++) {
		json_decref(items[i].want);
		json_decref(items[i].patch);
	}
	free(items);
	json_decref(objs);
	rules_free(&rs);
	bh_buf_free(&det);
	bh_buf_free(&fix);
	bh_buf_free(&bad);
	return 0;
}
