/* helm/action.c — install and upgrade, and what the actions share (see
 * action.h). Rollback, uninstall, test and unlock: action_more.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helm/action_internal.h"
#include "helm/hooks.h"
#include "helm/release.h"
#include "helm/render.h"
#include "kube/wait.h"
#include "tmpl/value.h"

void action_result_init(action_result *r)
{
	r->release = NULL;
	r->report = NULL;
}

void action_result_free(action_result *r)
{
	json_decref(r->release);
	json_decref(r->report);
	action_result_init(r);
}

void act_log(const action_config *cfg, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	if (!cfg->log)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	cfg->log(cfg->log_ud, buf);
}

const char *act_manager(const action_config *cfg)
{
	return cfg->field_manager && *cfg->field_manager ? cfg->field_manager : "helm-controller";
}

const char *act_storage_ns(const action_config *cfg, const char *ns)
{
	return cfg->storage_namespace && *cfg->storage_namespace ? cfg->storage_namespace : ns;
}

long act_timeout(const action_wait *w)
{
	return w->timeout_ms > 0 ? w->timeout_ms : ACTION_DEFAULT_TIMEOUT_MS;
}

int act_report_init(action_result *res, const char *action, const char *name, const char *ns, bh_error *err)
{
	int rc;
	action_result_free(res);
	if (!name || !ns || !*ns || strchr(ns, '/') || strlen(ns) > 63)
		return bh_error_set(err, BH_EINVAL, "%s: a release name and a valid namespace are required", action);
	if ((rc = render_validate_release_name(name, err)) < 0)
		return rc;
	res->report = json_pack("{s:s,s:s,s:s,s:i,s:s,s:s,s:[],s:[]}", "action", action, "release", name, "namespace", ns,
				"version", 0, "status", "", "description", "", "objects", "hooks");
	return res->report ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory");
}

void act_report_release(action_result *res, const json_t *rel)
{
	const char *d = json_string_value(json_object_get(json_object_get(rel, "info"), "description"));
	json_object_set_new(res->report, "version", json_integer(rel_version(rel)));
	json_object_set_new(res->report, "status", json_string(rel_status(rel)));
	json_object_set_new(res->report, "description", json_string(d ? d : ""));
	json_decref(res->release);
	res->release = json_is_object(rel) ? release_record_copy(rel) : json_deep_copy(rel);
}

json_t *act_objects(action_result *res)
{
	return json_object_get(res->report, "objects");
}

json_t *act_hooks(action_result *res)
{
	return json_object_get(res->report, "hooks");
}

/* ---- applying ---------------------------------------------------------- */

int act_is_csa(const json_t *rel)
{
	const char *m = json_string_value(json_object_get(rel, "apply_method"));
	return !m || strcmp(m, "ssa");
}

int act_apply(const action_config *cfg, json_t *obj, const kube_resource *r, int force_conflicts, int replace,
	      bh_error *err)
{
	/* the answer is only kept for the wait's first look */
	kube_write_opts wo = {act_manager(cfg), force_conflicts, 0, NULL, kube_wait_apply_drop};
	json_t *out = NULL;
	const char *ns = r->namespaced ? obj_ns(obj) : NULL;
	int rc;
	if (replace) { /* Helm's --force: replace the live object */
		json_t *live = NULL;
		rc = kube_get(cfg->kc, r, ns, obj_name(obj), NULL, &live, err);
		if (rc == 0) {
			json_t *copy = json_deep_copy(obj);
			json_t *rv = json_object_get(json_object_get(live, "metadata"), "resourceVersion");
			if (rv)
				json_object_set(json_object_get(copy, "metadata"), "resourceVersion", rv);
			rc = kube_update(cfg->kc, r, ns, copy, &wo, &out, err);
			json_decref(copy);
			json_decref(live);
			json_decref(out);
			return rc;
		}
		json_decref(live);
		if (rc != BH_ENOTFOUND)
			return rc;
		rc = kube_create(cfg->kc, r, ns, obj, &wo, &out, err);
		json_decref(out);
		return rc;
	}
	rc = kube_apply(cfg->kc, r, ns, obj, &wo, &out, err);
	json_decref(out);
	return rc;
}

int act_wait(const action_config *cfg, const objlist *l, const action_wait *w, bh_error *err)
{
	kube_wait_opts wo = {w->disable_wait_for_jobs ? KUBE_WAIT_READY : KUBE_WAIT_JOBS, act_timeout(w), 0};
	if (w->disable_wait || l->n == 0)
		return 0;
	act_log(cfg, "waiting for %zu resource(s) (timeout %lds)", l->n, act_timeout(w) / 1000);
	return kube_wait(cfg->kc, l->obj, l->n, &wo, err);
}

int act_delete(const action_config *cfg, const json_t *o, const kube_resource *r, const char *propagation,
	       bh_error *err)
{
	kube_delete_opts d = {.propagation = propagation ? propagation : "Background", .grace_seconds = -1};
	int rc = kube_delete(cfg->kc, r, r->namespaced ? obj_ns(o) : NULL, obj_name(o), &d, NULL, err);
	return rc == BH_ENOTFOUND ? 0 : rc;
}

/* Called by act_each_live with l's object i and its GET (it): returns 0
 * to go on, or an error that stops the walk. */
typedef int (*act_live_fn)(const action_config *cfg, void *ud, const objlist *l, size_t i, const kube_get_item *it,
			   bh_error *err);

/* fn on each object of l that skip does not hold (in_skip[i] = 1 for each
 * one it holds, when in_skip is not NULL), with its live object: the GETs
 * go KUBE_BATCH_MAX at a time (one round trip through the broker), fn
 * takes them in manifest order. The first error stops the walk (no GET
 * goes out after its batch) and is returned. */
static int act_each_live(const action_config *cfg, const objlist *l, const objlist *skip, unsigned char *in_skip,
			 act_live_fn fn, void *ud, bh_error *err)
{
	kube_get_item it[KUBE_BATCH_MAX];
	size_t at[KUBE_BATCH_MAX];
	int rc = 0;
	for (size_t i = 0; i < l->n && rc == 0;) {
		size_t n = 0;
		for (; i < l->n && n < KUBE_BATCH_MAX; i++) {
			if (skip && objlist_find(skip, l->obj[i], &l->r[i]) >= 0) {
				if (in_skip)
					in_skip[i] = 1;
				continue;
			}
			it[n].r = &l->r[i];
			it[n].ns = l->r[i].namespaced ? obj_ns(l->obj[i]) : NULL;
			it[n].name = obj_name(l->obj[i]);
			at[n++] = i;
		}
		kube_get_many(cfg->kc, it, n);
		for (size_t k = 0; k < n; k++) {
			if (rc == 0)
				rc = fn(cfg, ud, l, at[k], &it[k], err);
			json_decref(it[k].out);
		}
	}
	return rc;
}

/* act_each_live's fn for act_delete_removed (ud: the report's objects):
 * deletes the object as its GET allows, kept when the live object says
 * helm.sh/resource-policy: keep. */
static int delete_removed_one(const action_config *cfg, void *ud, const objlist *l, size_t i,
			      const kube_get_item *it, bh_error *err)
{
	const char *pol;
	int rc;
	if (it->rc == BH_ENOTFOUND)
		return 0;
	if (it->rc < 0)
		return bh_error_set(err, it->rc, "%s", it->err.msg);
	pol = json_string_value(
		json_object_get(json_object_get(json_object_get(it->out, "metadata"), "annotations"), "helm.sh/resource-policy"));
	if (pol && !strcmp(pol, "keep")) {
		act_log(cfg, "keeping %s %s (resource policy)", obj_kind(it->out), obj_name(it->out));
		obj_report(ud, "keep", l->obj[i]);
		return 0;
	}
	if ((rc = act_delete(cfg, l->obj[i], &l->r[i], "Background", err)) < 0)
		return rc;
	obj_report(ud, "delete", l->obj[i]);
	return 0;
}

/* Deletes objects of `old` not in `cur` (Helm's Update), skipping those
 * whose live object says helm.sh/resource-policy: keep. Their GETs go a
 * batch at a time; the deletes follow in manifest order. */
int act_delete_removed(const action_config *cfg, const objlist *old, const objlist *cur, json_t *objects,
		       bh_error *err)
{
	return act_each_live(cfg, old, cur, NULL, delete_removed_one, objects, err);
}

typedef struct conflict_ctx {
	const char *rel, *ns, *what;
	int take_ownership;
	unsigned char *exists;
} conflict_ctx;

/* act_each_live's fn for act_check_conflicts: the existingResourceConflict
 * verdict on the object from its GET, worded as Helm's. */
static int conflict_verdict(const action_config *cfg, void *ud, const objlist *l, size_t i, const kube_get_item *it,
			    bh_error *err)
{
	const conflict_ctx *x = ud;
	char desc[600];
	int rc = it->rc;
	(void)cfg;
	if (rc == BH_ENOTFOUND)
		return 0;
	obj_describe(l->obj[i], desc, sizeof desc);
	if (rc < 0) {
		bh_error_set(err, rc, "%s", it->err.msg);
		bh_error_prefix(err, "unable to continue with %s: could not get information about the resource %s",
				x->what, desc);
		return rc;
	}
	x->exists[i] = 1;
	if (!x->take_ownership && (rc = obj_check_owner(it->out, x->rel, x->ns, err)) < 0)
		bh_error_prefix(err, "unable to continue with %s: %s exists and cannot be imported into the current release",
				x->what, desc);
	return rc;
}

/* existingResourceConflict: for target objects not in `old` (NULL at
 * install), GET them; an existing one must carry the release's ownership
 * metadata unless take_ownership. exists[i] = 1 when the object exists.
 * The GETs go a batch at a time; the verdicts are taken in manifest order,
 * so the first object that fails is the one reported. */
int act_check_conflicts(const action_config *cfg, const char *rel, const char *ns, const objlist *tgt,
			const objlist *old, int take_ownership, const char *what, unsigned char *exists, bh_error *err)
{
	conflict_ctx x = {rel, ns, what, take_ownership, exists};
	return act_each_live(cfg, tgt, old, exists, conflict_verdict, &x, err);
}

int action_install_check(kube_client *kc, const char *manifest, const char *name, const char *ns, int take_ownership,
			 bh_error *err)
{
	action_config cfg = {.kc = kc};
	objlist l = {0};
	int rc = objlist_parse_as(kc, manifest, ns, 0, "release manifest", &l, err);
	unsigned char *exists = rc < 0 ? NULL : calloc(l.n + 1, 1);
	if (rc == 0 && !exists)
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
	if (rc == 0)
		rc = act_check_conflicts(&cfg, name, ns, &l, NULL, take_ownership, "install", exists, err);
	free(exists);
	objlist_free(&l);
	return rc;
}

/* chartutil.MergeTables(dst, src): keys of src missing in dst are added,
 * maps merged recursively. Also the union of two managedFields fieldsV1
 * sets. */
static void merge_tables(json_t *dst, const json_t *src)
{
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)src, k, v) {
		json_t *d = json_object_get(dst, k);
		if (!d)
			json_object_set_new(dst, k, json_deep_copy(v));
		else if (json_is_object(d) && json_is_object(v))
			merge_tables(d, v);
	}
}

/* Helm 4's client-side to server-side apply transition (csaupgrade
 * UpgradeManagedFieldsPatch): the field manager's Update entries of the live
 * object are merged into its Apply entry, so that server-side apply then
 * owns — and prunes — what client-side apply set. A JSON patch guarded by
 * the resourceVersion. Objects without such entries are left alone. */
static int csa_to_ssa(const action_config *cfg, const json_t *obj, const kube_resource *r, bh_error *err)
{
	const char *mgr = act_manager(cfg), *ns = r->namespaced ? obj_ns(obj) : NULL;
	json_t *live = NULL, *mf, *e, *keep, *apply = NULL, *patch;
	size_t i;
	int rc, found = 0;
	rc = kube_get(cfg->kc, r, ns, obj_name(obj), NULL, &live, err);
	if (rc == BH_ENOTFOUND)
		return 0;
	if (rc < 0)
		return rc;
	mf = json_object_get(json_object_get(live, "metadata"), "managedFields");
	keep = json_array();
	json_array_foreach(mf, i, e) {
		const char *m = json_string_value(json_object_get(e, "manager"));
		const char *op = json_string_value(json_object_get(e, "operation"));
		const char *sub = json_string_value(json_object_get(e, "subresource"));
		if (!m || strcmp(m, mgr) || (sub && *sub)) {
			json_array_append(keep, e);
			continue;
		}
		if (op && !strcmp(op, "Update"))
			found = 1;
		if (!apply) {
			apply = json_deep_copy(e);
			json_object_set_new(apply, "operation", json_string("Apply"));
			json_object_set(apply, "apiVersion", json_object_get(live, "apiVersion"));
			if (!json_is_object(json_object_get(apply, "fieldsV1")))
				json_object_set_new(apply, "fieldsV1", json_object());
		} else {
			merge_tables(json_object_get(apply, "fieldsV1"), json_object_get(e, "fieldsV1"));
		}
	}
	if (found) {
		json_array_append_new(keep, apply);
		apply = NULL;
		patch = json_pack("[{s:s,s:s,s:O},{s:s,s:s,s:O}]", "op", "test", "path", "/metadata/resourceVersion", "value",
				  json_object_get(json_object_get(live, "metadata"), "resourceVersion"), "op", "replace", "path",
				  "/metadata/managedFields", "value", keep);
		char *text = patch ? json_dumps(patch, JSON_COMPACT) : NULL;
		json_t *out = NULL;
		kube_write_opts wo = {mgr, 0, 0, NULL};
		rc = text ? kube_patch(cfg->kc, r, ns, obj_name(obj), KUBE_PATCH_JSON, text, &wo, &out, err)
			  : bh_error_set(err, BH_ENOMEM, "out of memory");
		free(text);
		json_decref(out);
		json_decref(patch);
		if (rc < 0)
			bh_error_prefix(err, "upgrading managed fields of %s %s to server-side apply", obj_kind(obj),
					obj_name(obj));
	}
	json_decref(apply);
	json_decref(keep);
	json_decref(live);
	return rc;
}

/* Applies the target objects with ownership metadata; reports create or
 * update by exists[]. from_csa: the previous release was applied
 * client-side (apply_method "" or "csa"): move field ownership first. */
int act_apply_all(const action_config *cfg, const char *rel, const char *ns, objlist *tgt,
		  const unsigned char *exists, int force_conflicts, int replace, int from_csa, json_t *objects,
		  bh_error *err)
{
	int rc = 0;
	for (size_t i = 0; i < tgt->n && rc == 0; i++) {
		if (from_csa && exists[i] && !replace && (rc = csa_to_ssa(cfg, tgt->obj[i], &tgt->r[i], err)) < 0)
			break;
		obj_set_owner(tgt->obj[i], rel, ns);
		if ((rc = act_apply(cfg, tgt->obj[i], &tgt->r[i], force_conflicts, replace, err)) < 0) {
			char desc[600];
			obj_describe(tgt->obj[i], desc, sizeof desc);
			bh_error_prefix(err, "%s", desc);
			break;
		}
		obj_report(objects, exists[i] ? "update" : "create", tgt->obj[i]);
	}
	return rc;
}

/* ---- CRDs and namespace ------------------------------------------------ */

static int apply_crds(const action_config *cfg, const render_result *rr, action_crds policy, const char *ns,
		      const json_t *labels, json_t *objects, bh_error *err)
{
	static const kube_resource crd_res = {"apiextensions.k8s.io", "v1", "customresourcedefinitions",
					      "CustomResourceDefinition", 0};
	objlist created = {0};
	int rc = 0;
	if (policy == ACTION_CRDS_SKIP || rr->ncrds == 0)
		return 0;
	created.obj = calloc(1, sizeof *created.obj);
	created.r = calloc(1, sizeof *created.r);
	for (size_t i = 0; i < rr->ncrds && rc == 0; i++) {
		char *text = strndup((const char *)rr->crds[i].data, rr->crds[i].len);
		objlist l;
		if (!text)
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		rc = objlist_parse(cfg->kc, text, ns, 0, &l, err);
		free(text);
		if (rc < 0) {
			bh_error_prefix(err, "%s", rr->crds[i].path);
			break;
		}
		for (size_t k = 0; k < l.n && rc == 0; k++) {
			json_t *live = NULL;
			if (strcmp(l.r[k].kind, "CustomResourceDefinition")) {
				act_log(cfg, "skipping %s %s in %s: not a CustomResourceDefinition", l.r[k].kind,
					obj_name(l.obj[k]), rr->crds[i].path);
				continue;
			}
			rc = kube_get(cfg->kc, &crd_res, NULL, obj_name(l.obj[k]), NULL, &live, err);
			json_decref(live);
			if (rc == 0 && policy != ACTION_CRDS_CREATE_REPLACE) {
				obj_report(objects, "unchanged", l.obj[k]);
				continue;
			}
			int existed = rc == 0;
			if (rc < 0 && rc != BH_ENOTFOUND)
				break;
			if (json_object_size(labels)) {
				json_t *md = json_object_get(l.obj[k], "metadata"), *lb = json_object_get(md, "labels");
				if (!json_is_object(lb)) {
					lb = json_object();
					json_object_set_new(md, "labels", lb);
				}
				json_object_update(lb, (json_t *)labels);
			}
			if ((rc = act_apply(cfg, l.obj[k], &l.r[k], 1, 0, err)) < 0) {
				bh_error_prefix(err, "failed to install CRD %s", rr->crds[i].path);
				break;
			}
			obj_report(objects, existed ? "update" : "create", l.obj[k]);
			void *p1 = realloc(created.obj, (created.n + 1) * sizeof *created.obj);
			if (p1)
				created.obj = p1;
			void *p2 = realloc(created.r, (created.n + 1) * sizeof *created.r);
			if (p2)
				created.r = p2;
			if (!p1 || !p2) {
				rc = bh_error_set(err, BH_ENOMEM, "out of memory");
				break;
			}
			created.obj[created.n] = json_incref(l.obj[k]);
			created.r[created.n++] = l.r[k];
		}
		objlist_free(&l);
	}
	if (rc == 0 && created.n) { /* Helm waits up to 60s for CRDs to be established */
		kube_wait_opts wo = {KUBE_WAIT_READY, 60000, 0};
		rc = kube_wait(cfg->kc, created.obj, created.n, &wo, err);
		kube_mapping_reset(cfg->kc);
	}
	objlist_free(&created);
	return rc;
}

static int create_namespace(const action_config *cfg, const char *ns, json_t *objects, bh_error *err)
{
	static const kube_resource nsr = {"", "v1", "namespaces", "Namespace", 0};
	json_t *o = json_pack("{s:s,s:s,s:{s:s,s:{s:s}}}", "apiVersion", "v1", "kind", "Namespace", "metadata", "name", ns,
			      "labels", "name", ns);
	kube_write_opts wo = {act_manager(cfg), 0, 0, NULL};
	json_t *out = NULL;
	int rc = kube_apply(cfg->kc, &nsr, NULL, o, &wo, &out, err);
	if (rc == BH_ECONFLICT) /* fields owned by another manager: it exists */
		rc = 0;
	if (rc == 0)
		obj_report(objects, "apply", o);
	json_decref(out);
	json_decref(o);
	return rc;
}

/* ---- rendering and the record ------------------------------------------ */

static json_t *files_json(const chart_file *f, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		char *b = release_base64_new(f[i].data, f[i].len);
		/* base64 is ASCII: no UTF-8 check of the (large) text */
		json_array_append_new(a, json_pack("{s:s,s:o}", "name", f[i].name, "data",
						   json_stringn_nocheck(b ? b : "", b ? (f[i].len + 2) / 3 * 4 : 0)));
		free(b);
	}
	return a;
}

/* Helm's `lookup` against the cluster (install/upgrade render with it):
 * a named object, or the list of a kind when name is ""; an object that
 * does not exist gives an empty map; a kind the server does not serve is
 * an error. */
int action_lookup(void *ud, tmpl_arena *a, const char *api_version, const char *kind, const char *ns, const char *name,
		  tmpl_value *out, bh_error *err)
{
	kube_client *kc = ud;
	kube_resource r;
	json_t *obj = NULL;
	int rc;
	if ((rc = kube_mapping_get(kc, api_version, kind, &r, err)) < 0)
		return rc;
	if (name && *name)
		rc = kube_get(kc, &r, r.namespaced && ns && *ns ? ns : NULL, name, NULL, &obj, err);
	else
		rc = kube_list(kc, &r, r.namespaced && ns && *ns ? ns : NULL, NULL, &obj, err);
	if (rc == BH_ENOTFOUND) {
		json_decref(obj);
		obj = json_object();
		rc = 0;
	}
	if (rc < 0 && (rc == BH_EDENIED || rc == BH_EINVAL || rc == BH_ECONFLICT) && *kube_client_last_message(kc))
		bh_error_set(err, rc, "%s", kube_client_last_message(kc)); /* client-go's StatusError text */
	if (rc < 0)
		return rc;
	*out = tmpl_value_from_json(a, obj);
	json_decref(obj);
	return 0;
}

int act_render(const action_config *cfg, chart *c, const json_t *values, const char *name, const char *ns,
	       int revision, int is_upgrade, int skip_schema, render_result *rr, json_t **chart_json, bh_error *err)
{
	render_options ro;
	json_t *apis = NULL, *templates, *files;
	const char **av = NULL;
	char kv[64] = "";
	int rc;
	memset(&ro, 0, sizeof ro);
	ro.release_name = name;
	ro.namespace_ = ns;
	ro.revision = revision;
	ro.is_upgrade = is_upgrade;
	ro.skip_schema_validation = skip_schema;
	ro.lookup = action_lookup;
	ro.lookup_ud = cfg->kc;
	ro.post_render = cfg->post_render;
	ro.post_render_ud = cfg->post_render_ud;
	/* the cluster's capabilities, as Helm's install/upgrade use them */
	if (kube_server_version(cfg->kc, kv, sizeof kv, NULL) == 0 && kv[0])
		ro.kube_version = kv;
	if (kube_discovery_api_versions(cfg->kc, &apis, NULL) == 0) {
		size_t i;
		json_t *v;
		av = calloc(json_array_size(apis) + 1, sizeof *av);
		if (av) {
			json_array_foreach(apis, i, v) av[i] = json_string_value(v);
			ro.api_versions = av;
			ro.n_api_versions = json_array_size(apis);
		}
	}
	templates = files_json(c->templates, c->ntemplates);
	files = files_json(c->files, c->nfiles);
	rc = render_chart(c, values, &ro, rr, err);
	free(av);
	json_decref(apis);
	if (rc < 0) {
		json_decref(templates);
		json_decref(files);
		return rc;
	}
	*chart_json = json_pack("{s:o,s:o}", "templates", templates, "files", files);
	return 0;
}

json_t *act_release_new(const chart *c, const json_t *chart_json, const render_result *rr, const char *name,
			const char *ns, int version, const char *status, const char *desc, const char *first,
			const json_t *config, bh_error *err)
{
	char now[40];
	json_t *rel;
	storage_now(now);
	release_fields f = {
		.name = name, .namespace_ = ns, .version = version, .status = status, .description = desc,
		.first_deployed = first ? first : now, .last_deployed = now, .notes = rr->notes,
		.chart_metadata = c->metadata, .chart_values = c->values, .config = config,
		.manifest = rr->manifest ? rr->manifest : "", .apply_method = "ssa",
	};
	const char *const shared[] = {"templates", "files"};
	if (!(rel = release_json_new(&f, err)))
		return NULL;
	/* the chart's files, made for this record (act_render) and not changed
	 * after, are shared, not copied: they replace the nulls in place */
	for (int i = 0; i < 2; i++)
		if (json_object_get(chart_json, shared[i]))
			json_object_set(json_object_get(rel, "chart"), shared[i], json_object_get(chart_json, shared[i]));
	if (c->lock) /* replaces the null in place: Go's field order kept */
		json_object_set_new(json_object_get(rel, "chart"), "lock", json_deep_copy(c->lock));
	if (c->schema) {
		char *s = release_base64_new((const unsigned char *)c->schema, c->schema_len);
		if (s)
			json_object_set_new(json_object_get(rel, "chart"), "schema", json_string(s));
		free(s);
	}
	if (rr->hooks.n)
		rel_set(rel, "hooks", hooks_json_new(&rr->hooks));
	return rel;
}

int act_run_hooks(const action_config *cfg, json_t *rel, const char *event, long timeout_ms, action_result *res,
	      bh_error *err)
{
	hooks_run_opts ho = {act_manager(cfg), timeout_ms, 1, NULL, NULL, cfg->storage_namespace};
	int rc;
	act_log(cfg, "running %s hooks", event);
	rc = hooks_run(cfg->kc, rel, event, &ho, act_hooks(res), err);
	if (rc < 0 && (!strcmp(event, "pre-install") || !strcmp(event, "post-install")))
		bh_error_prefix(err, "failed %s", event); /* Helm 4's install words it so */
	else if (rc < 0)
		bh_error_prefix(err, "%s hooks failed", event);
	return rc;
}

/* ---- install ------------------------------------------------------------ */

int action_install(const action_config *cfg, const action_install_opts *o, action_result *res, bh_error *err)
{
	bh_error err_local; /* the descriptions need a message even when err is NULL */
	if (!err)
		err = &err_local;
	json_t *hist = NULL, *last, *rel = NULL, *chart_json = NULL;
	render_result rr;
	objlist tgt = {0};
	unsigned char *exists = NULL;
	int rc, version = 1;
	char desc[BH_ERROR_MSG_MAX + 200];
	memset(&rr, 0, sizeof rr);
	if ((rc = act_report_init(res, "install", o->name, o->namespace_, err)) < 0)
		return rc;
	if ((rc = storage_history(cfg->kc, act_storage_ns(cfg, o->namespace_), o->name, &hist, err)) < 0)
		return rc;
	if ((last = storage_last(hist))) {
		const char *st = rel_status(last);
		if (!o->replace || (strcmp(st, "uninstalled") && strcmp(st, "failed"))) {
			json_decref(hist);
			return bh_error_set(err, BH_ECONFLICT, "release name check failed: cannot reuse a name that is still in use");
		}
		version = rel_version(last) + 1;
	}
	if (o->create_namespace && (rc = create_namespace(cfg, o->namespace_, act_objects(res), err)) < 0)
		goto out;
	if ((rc = act_render(cfg, o->chart, o->values, o->name, o->namespace_, version, 0,
			      o->skip_schema_validation, &rr, &chart_json, err)) < 0)
		goto out;
	if ((rc = apply_crds(cfg, &rr, o->crds == ACTION_CRDS_DEFAULT ? ACTION_CRDS_CREATE : o->crds, o->namespace_,
			     o->crd_labels, act_objects(res), err)) < 0)
		goto out;
	if ((rc = objlist_parse(cfg->kc, rr.manifest, o->namespace_, 0, &tgt, err)) < 0)
		goto out;
	if (!(rel = act_release_new(o->chart, chart_json, &rr, o->name, o->namespace_, version, "pending-install",
				    "Initial install underway", NULL, o->values, err))) {
		rc = err ? err->code : BH_ENOMEM;
		goto out;
	}
	if (!(exists = calloc(tgt.n + 1, 1))) {
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = act_check_conflicts(cfg, o->name, o->namespace_, &tgt, NULL, !o->disable_take_ownership, "install",
				      exists, err)) < 0)
		goto out;
	/* --replace: the previous (non-failed) record becomes superseded */
	if (last && strcmp(rel_status(last), "failed")) {
		rel_info_set(last, "status", "superseded");
		rel_info_set(last, "description", "superseded by new release");
		if ((rc = storage_update(cfg->kc, cfg->storage_namespace, last, err)) < 0)
			goto out;
	}
	if ((rc = storage_create(cfg->kc, cfg->storage_namespace, rel, err)) < 0)
		goto out;
	act_report_release(res, rel);
	if (!o->disable_hooks && (rc = act_run_hooks(cfg, rel, "pre-install", act_timeout(&o->wait), res, err)) < 0)
		goto failed;
	act_log(cfg, "applying %zu object(s)", tgt.n);
	if ((rc = act_apply_all(cfg, o->name, o->namespace_, &tgt, exists, o->force_conflicts, 0, 0,
				act_objects(res), err)) < 0)
		goto failed;
	if ((rc = act_wait(cfg, &tgt, &o->wait, err)) < 0)
		goto failed;
	if (!o->disable_hooks && (rc = act_run_hooks(cfg, rel, "post-install", act_timeout(&o->wait), res, err)) < 0)
		goto failed;
	rel_info_set(rel, "status", "deployed");
	rel_info_set(rel, "description", o->description && *o->description ? o->description : "Install complete");
	if ((rc = storage_update(cfg->kc, cfg->storage_namespace, rel, err)) < 0)
		goto out;
	act_report_release(res, rel);
	goto out;
failed:
	snprintf(desc, sizeof desc, "Release \"%s\" failed: %s", o->name, err ? err->msg : "");
	rel_info_set(rel, "status", "failed");
	rel_info_set(rel, "description", desc);
	{
		bh_error e2;
		storage_update(cfg->kc, cfg->storage_namespace, rel, &e2);
	}
	act_report_release(res, rel);
out:
	free(exists);
	objlist_free(&tgt);
	render_result_free(&rr);
	json_decref(chart_json);
	json_decref(rel);
	json_decref(hist);
	return rc;
}

/* ---- upgrade ------------------------------------------------------------ */

int action_upgrade(const action_config *cfg, const action_upgrade_opts *o, action_result *res, bh_error *err)
{
	bh_error err_local; /* the descriptions need a message even when err is NULL */
	if (!err)
		err = &err_local;
	json_t *hist = NULL, *last, *cur, *rel = NULL, *chart_json = NULL, *vals = NULL;
	render_result rr;
	objlist tgt = {0}, old = {0};
	unsigned char *exists = NULL;
	int rc, version, pruned = 0;
	char desc[BH_ERROR_MSG_MAX + 200];
	const char *first;
	memset(&rr, 0, sizeof rr);
	if ((rc = act_report_init(res, "upgrade", o->name, o->namespace_, err)) < 0)
		return rc;
	if ((rc = storage_history(cfg->kc, act_storage_ns(cfg, o->namespace_), o->name, &hist, err)) < 0)
		return rc;
	if (!(last = storage_last(hist))) {
		json_decref(hist);
		return bh_error_set(err, BH_ENOTFOUND, "\"%s\" has no deployed releases", o->name);
	}
	if (rel_status_is_pending(rel_status(last))) {
		json_decref(hist);
		return bh_error_set(err, BH_ECONFLICT, "another operation (install/upgrade/rollback) is in progress");
	}
	cur = !strcmp(rel_status(last), "deployed") ? last : storage_deployed(hist);
	if (!cur && (!strcmp(rel_status(last), "failed") || !strcmp(rel_status(last), "superseded")))
		cur = last;
	if (!cur) {
		json_decref(hist);
		return bh_error_set(err, BH_ENOTFOUND, "\"%s\" has no deployed releases", o->name);
	}
	version = rel_version(last) + 1;
	vals = o->values ? json_deep_copy(o->values) : json_object();
	if (o->preserve_values && json_is_object(json_object_get(cur, "config")))
		merge_tables(vals, json_object_get(cur, "config"));
	if ((rc = act_render(cfg, o->chart, vals, o->name, o->namespace_, version, 1,
			      o->skip_schema_validation, &rr, &chart_json, err)) < 0)
		goto out;
	if (o->crds != ACTION_CRDS_DEFAULT &&
	    (rc = apply_crds(cfg, &rr, o->crds, o->namespace_, o->crd_labels, act_objects(res), err)) < 0)
		goto out;
	/* helm 4.1.4's upgrade prints the builder's error alone */
	if ((rc = objlist_parse_as(cfg->kc, rr.manifest, o->namespace_, 0, NULL, &tgt, err)) < 0)
		goto out;
	if ((rc = objlist_parse(cfg->kc, json_string_value(json_object_get(cur, "manifest")), o->namespace_, 1, &old,
				err)) < 0)
		goto out;
	first = json_string_value(json_object_get(json_object_get(cur, "info"), "first_deployed"));
	if (!(rel = act_release_new(o->chart, chart_json, &rr, o->name, o->namespace_, version, "pending-upgrade",
				    "Preparing upgrade", first, vals, err))) {
		rc = err ? err->code : BH_ENOMEM;
		goto out;
	}
	if (!(exists = calloc(tgt.n + 1, 1))) {
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = act_check_conflicts(cfg, o->name, o->namespace_, &tgt, &old, !o->disable_take_ownership, "update",
				      exists, err)) < 0)
		goto out;
	if ((rc = storage_prune(cfg->kc, act_storage_ns(cfg, o->namespace_), o->name, o->max_history, &pruned, err)) < 0)
		goto out;
	json_object_set_new(res->report, "pruned", json_integer(pruned));
	if ((rc = storage_create(cfg->kc, cfg->storage_namespace, rel, err)) < 0)
		goto out;
	act_report_release(res, rel);
	if (!o->disable_hooks && (rc = act_run_hooks(cfg, rel, "pre-upgrade", act_timeout(&o->wait), res, err)) < 0)
		goto failed;
	act_log(cfg, "applying %zu object(s)", tgt.n);
	if ((rc = act_apply_all(cfg, o->name, o->namespace_, &tgt, exists, o->force_conflicts, o->force,
				act_is_csa(cur), act_objects(res), err)) < 0)
		goto failed;
	if ((rc = act_delete_removed(cfg, &old, &tgt, act_objects(res), err)) < 0)
		goto failed;
	if ((rc = act_wait(cfg, &tgt, &o->wait, err)) < 0)
		goto failed;
	if (!o->disable_hooks && (rc = act_run_hooks(cfg, rel, "post-upgrade", act_timeout(&o->wait), res, err)) < 0)
		goto failed;
	{
		bh_error e2;
		rel_info_set(cur, "status", "superseded");
		if (storage_update(cfg->kc, cfg->storage_namespace, cur, &e2) < 0)
			act_log(cfg, "%s", e2.msg);
	}
	rel_info_set(rel, "status", "deployed");
	rel_info_set(rel, "description", o->description && *o->description ? o->description : "Upgrade complete");
	if ((rc = storage_update(cfg->kc, cfg->storage_namespace, rel, err)) < 0)
		goto out;
	act_report_release(res, rel);
	goto out;
failed:
	snprintf(desc, sizeof desc, "Upgrade \"%s\" failed: %s", o->name, err ? err->msg : "");
	if (o->cleanup_on_fail && exists) {
		bh_error e2;
		for (size_t i = 0; i < tgt.n; i++)
			if (!exists[i] && act_delete(cfg, tgt.obj[i], &tgt.r[i], "Background", &e2) == 0)
				obj_report(act_objects(res), "delete", tgt.obj[i]);
	}
	rel_info_set(rel, "status", "failed");
	rel_info_set(rel, "description", desc);
	{
		bh_error e2;
		storage_update(cfg->kc, cfg->storage_namespace, rel, &e2);
	}
	act_report_release(res, rel);
out:
	free(exists);
	objlist_free(&tgt);
	objlist_free(&old);
	render_result_free(&rr);
	json_decref(chart_json);
	json_decref(vals);
	json_decref(rel);
	json_decref(hist);
	return rc;
}
