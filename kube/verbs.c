/* kube/verbs.c — get, list (paginated), create, update, patch, apply,
 * delete, and Events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/client_priv.h"
#include "kube/internal.h"
#include "kube/kube.h"
#include "lib/buf.h"

#define DEFAULT_PAGE 500
#define DEFAULT_MAX_ITEMS 1000000

static char *path_q(const kube_resource *r, const char *ns, const char *name, const char *sub, bh_buf *q)
{
	char *p = kube_path_new(r, ns, name, sub);
	if (!p)
		return NULL;
	bh_buf b = BH_BUF_INIT;
	bh_buf_puts(&b, p);
	free(p);
	if (q && q->len) {
		bh_buf_putc(&b, '?');
		bh_buf_put(&b, q->data, q->len);
	}
	return bh_buf_ok(&b) ? bh_buf_detach(&b) : NULL;
}

static void qadd(bh_buf *q, const char *key, const char *val)
{
	if (!val)
		return;
	if (q->len)
		bh_buf_putc(q, '&');
	bh_buf_puts(q, key);
	bh_buf_putc(q, '=');
	kube_query_escape(q, val);
}

static void write_query(bh_buf *q, const kube_write_opts *o)
{
	if (!o)
		return;
	if (o->dry_run)
		qadd(q, "dryRun", "All");
	qadd(q, "fieldManager", o->field_manager);
}

static int check_res(const kube_resource *r, const char *ns, bh_error *err)
{
	if (!r || !r->resource || !r->version)
		return bh_error_set(err, BH_EINVAL, "no resource type given");
	if (r->namespaced && (!ns || !*ns))
		return bh_error_set(err, BH_EINVAL, "%s is namespaced: a namespace is required", r->resource);
	return 0;
}

/* The path of a GET of object name (sub: its subresource, or NULL) into
 * *path_new (the caller frees it): 0, or the error that refuses it. */
static int get_path(const kube_resource *r, const char *ns, const char *name, const char *sub, char **path_new,
		    bh_error *err)
{
	int rc = check_res(r, ns, err);
	*path_new = NULL;
	if (rc)
		return rc;
	if (!name || !*name)
		return bh_error_set(err, BH_EINVAL, "get %s: a name is required", r->resource);
	if (!(*path_new = path_q(r, ns, name, sub, NULL)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	return 0;
}

int kube_get(kube_client *c, const kube_resource *r, const char *ns, const char *name, const char *sub,
             json_t **out, bh_error *err)
{
	char *p;
	int rc = get_path(r, ns, name, sub, &p, err);
	if (rc)
		return rc;
	rc = kube_call(c, "GET", p, NULL, NULL, 0, out, err);
	free(p);
	return rc;
}

/* One chunk of kube_get_many (n <= KUBE_BATCH_MAX). */
static void get_chunk(kube_client *c, kube_get_item *items, size_t n)
{
	kube_request reqs[KUBE_BATCH_MAX];
	char *paths[KUBE_BATCH_MAX];
	json_t *outs[KUBE_BATCH_MAX];
	int rcs[KUBE_BATCH_MAX];
	bh_error *errs[KUBE_BATCH_MAX];
	size_t idx[KUBE_BATCH_MAX], m = 0;
	for (size_t i = 0; i < n; i++) {
		kube_get_item *it = &items[i];
		it->out = NULL;
		if ((it->rc = get_path(it->r, it->ns, it->name, NULL, &paths[m], &it->err)) < 0)
			continue;
		reqs[m] = (kube_request){.method = "GET", .path = paths[m]};
		errs[m] = &it->err;
		idx[m++] = i;
	}
	if (m)
		kube_call_many(c, m, reqs, outs, rcs, errs);
	for (size_t k = 0; k < m; k++) {
		items[idx[k]].rc = rcs[k];
		items[idx[k]].out = outs[k];
		free(paths[k]);
	}
}

void kube_get_many(kube_client *c, kube_get_item *items, size_t n)
{
	for (size_t at = 0; at < n; at += KUBE_BATCH_MAX)
		get_chunk(c, items + at, n - at < KUBE_BATCH_MAX ? n - at : KUBE_BATCH_MAX);
}

static int list_pages(kube_client *c, const kube_resource *r, const char *ns, const kube_list_opts *o,
                      json_t *items, json_t **meta, json_t **first, bh_error *err)
{
	long limit = o && o->limit > 0 ? o->limit : DEFAULT_PAGE;
	long max = o && o->max_items > 0 ? o->max_items : DEFAULT_MAX_ITEMS;
	char *cont = NULL;
	char lim[32];
	snprintf(lim, sizeof lim, "%ld", limit);
	int rc = 0;
	for (int page = 0;; page++) {
		bh_buf q = BH_BUF_INIT;
		qadd(&q, "labelSelector", o ? o->label_selector : NULL);
		qadd(&q, "fieldSelector", o ? o->field_selector : NULL);
		qadd(&q, "limit", lim);
		qadd(&q, "continue", cont);
		char *p = path_q(r, ns, NULL, NULL, &q);
		bh_buf_free(&q);
		if (!p) {
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
			break;
		}
		json_t *list = NULL;
		rc = kube_call(c, "GET", p, NULL, NULL, 0, &list, err);
		free(p);
		if (rc)
			break;
		json_t *its = json_object_get(list, "items");
		if (!json_is_object(list) || (its && !json_is_array(its) && !json_is_null(its))) {
			json_decref(list);
			rc = bh_error_set(err, BH_EPROTO, "list %s: response is not a List", r->resource);
			break;
		}
		if (json_array_size(its) + json_array_size(items) > (size_t)max) {
			json_decref(list);
			rc = bh_error_set(err, BH_ELIMIT, "list %s: more than %ld items", r->resource, max);
			break;
		}
		if (its)
			json_array_extend(items, its);
		if (!*first) {
			*first = json_incref(list);
		}
		json_decref(*meta);
		*meta = json_incref(json_object_get(list, "metadata"));
		const char *next = json_string_value(json_object_get(*meta, "continue"));
		free(cont);
		cont = next && *next ? strdup(next) : NULL;
		json_decref(list);
		if (!cont)
			break;
		if (page > 100000) {
			rc = bh_error_set(err, BH_ELIMIT, "list %s: too many pages", r->resource);
			break;
		}
	}
	free(cont);
	return rc;
}

int kube_list(kube_client *c, const kube_resource *r, const char *ns, const kube_list_opts *o, json_t **out,
              bh_error *err)
{
	if (!r || !r->resource)
		return bh_error_set(err, BH_EINVAL, "no resource type given");
	int rc = 0;
	json_t *items = NULL, *meta = NULL, *first = NULL;
	for (int tries = 0; tries < 2; tries++) {
		json_decref(items);
		json_decref(meta);
		json_decref(first);
		items = json_array();
		meta = first = NULL;
		if (!items)
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		rc = list_pages(c, r, ns, o, items, &meta, &first, err);
		if (rc != BH_EGONE)
			break; /* 410: the continue token expired; start over once */
	}
	if (!rc) {
		json_t *res = json_object();
		json_t *m = json_object();
		const char *rv = json_string_value(json_object_get(meta, "resourceVersion"));
		json_object_set_new(m, "resourceVersion", json_string(rv ? rv : ""));
		const char *av = json_string_value(json_object_get(first, "apiVersion"));
		const char *kind = json_string_value(json_object_get(first, "kind"));
		json_object_set_new(res, "apiVersion", json_string(av ? av : ""));
		if (kind) {
			json_object_set_new(res, "kind", json_string(kind));
		} else {
			bh_buf k = BH_BUF_INIT;
			bh_buf_printf(&k, "%sList", r->kind ? r->kind : "");
			json_object_set_new(res, "kind", json_string(bh_buf_str(&k)));
			bh_buf_free(&k);
		}
		json_object_set_new(res, "metadata", m);
		json_object_set(res, "items", items);
		*out = res;
	}
	json_decref(items);
	json_decref(meta);
	json_decref(first);
	return rc;
}

static const char *obj_name(const json_t *obj)
{
	return json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
}

int kube_create(kube_client *c, const kube_resource *r, const char *ns, const json_t *obj,
                const kube_write_opts *o, json_t **out, bh_error *err)
{
	int rc = check_res(r, ns, err);
	if (rc)
		return rc;
	bh_buf q = BH_BUF_INIT;
	write_query(&q, o);
	char *p = path_q(r, ns, NULL, NULL, &q);
	bh_buf_free(&q);
	if (!p)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	rc = kube_request_json(c, "POST", p, NULL, obj, out, err);
	free(p);
	return rc;
}

int kube_write_text(kube_client *c, const kube_resource *r, const char *ns, const char *name, const char *json,
		    size_t len, json_t **out, bh_error *err)
{
	int rc = check_res(r, ns, err);
	if (rc)
		return rc;
	if (name && !*name)
		return bh_error_set(err, BH_EINVAL, "update %s: object has no metadata.name", r->resource);
	char *p = kube_path_new(r, ns, name, NULL);
	if (!p)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	rc = kube_call(c, name ? "PUT" : "POST", p, "application/json", json, len, out, err);
	free(p);
	return rc;
}

int kube_update(kube_client *c, const kube_resource *r, const char *ns, const json_t *obj,
                const kube_write_opts *o, json_t **out, bh_error *err)
{
	int rc = check_res(r, ns, err);
	if (rc)
		return rc;
	const char *name = obj_name(obj);
	if (!name || !*name)
		return bh_error_set(err, BH_EINVAL, "update %s: object has no metadata.name", r->resource);
	bh_buf q = BH_BUF_INIT;
	write_query(&q, o);
	char *p = path_q(r, ns, name, o ? o->subresource : NULL, &q);
	bh_buf_free(&q);
	if (!p)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	rc = kube_request_json(c, "PUT", p, NULL, obj, out, err);
	free(p);
	return rc;
}

static const char *patch_ct(kube_patch_type t)
{
	switch (t) {
	case KUBE_PATCH_JSON:
		return "application/json-patch+json";
	case KUBE_PATCH_STRATEGIC:
		return "application/strategic-merge-patch+json";
	case KUBE_PATCH_APPLY:
		return "application/apply-patch+yaml";
	case KUBE_PATCH_MERGE:
	default:
		return "application/merge-patch+json";
	}
}

char *kube_patch_path_new(const kube_resource *r, const char *ns, const char *name, kube_patch_type type,
                          const kube_write_opts *o, const char **content_type, bh_error *err)
{
	if (check_res(r, ns, err))
		return NULL;
	if (!name || !*name) {
		bh_error_set(err, BH_EINVAL, "patch %s: a name is required", r->resource);
		return NULL;
	}
	if (type == KUBE_PATCH_APPLY && (!o || !o->field_manager || !*o->field_manager)) {
		bh_error_set(err, BH_EINVAL, "server-side apply of %s/%s: a field manager is required", r->resource, name);
		return NULL;
	}
	bh_buf q = BH_BUF_INIT;
	write_query(&q, o);
	if (type == KUBE_PATCH_APPLY && o->force)
		qadd(&q, "force", "true");
	char *p = path_q(r, ns, name, o ? o->subresource : NULL, &q);
	bh_buf_free(&q);
	if (!p)
		bh_error_set(err, BH_ENOMEM, "out of memory");
	*content_type = patch_ct(type);
	return p;
}

int kube_patch(kube_client *c, const kube_resource *r, const char *ns, const char *name, kube_patch_type type,
               const char *patch, const kube_write_opts *o, json_t **out, bh_error *err)
{
	const char *ct;
	char *p = kube_patch_path_new(r, ns, name, type, o, &ct, err);
	if (!p)
		return err ? err->code : BH_EINVAL;
	int rc = kube_call_drop(c, "PATCH", p, ct, patch, patch ? strlen(patch) : 0, o ? o->answer_drop : NULL, out,
	                        err);
	free(p);
	return rc;
}

int kube_apply(kube_client *c, const kube_resource *r, const char *ns, const json_t *obj,
               const kube_write_opts *o, json_t **out, bh_error *err)
{
	const char *name = obj_name(obj);
	if (!name || !*name)
		return bh_error_set(err, BH_EINVAL, "apply %s: object has no metadata.name", r ? r->resource : "?");
	char *text = json_dumps(obj, JSON_COMPACT);
	if (!text)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	int rc = kube_patch(c, r, ns, name, KUBE_PATCH_APPLY, text, o, out, err);
	free(text);
	if (rc == 0 && out && *out && !(o && (o->dry_run || o->subresource)))
		kube_applied_put(c, r, ns, name, *out);
	return rc;
}

static int applied_key(const kube_resource *r, const char *ns, const char *name, char *key, size_t n)
{
	return snprintf(key, n, "%s/%s/%s/%s", r->group ? r->group : "", r->resource, r->namespaced && ns ? ns : "",
			name) < (int)n ? 0 : -1;
}

void kube_applied_put(kube_client *c, const kube_resource *r, const char *ns, const char *name, const json_t *obj)
{
	char key[800];
	if (!c->applied)
		c->applied = json_object();
	if (!c->applied || json_object_size(c->applied) >= KUBE_APPLIED_MAX || applied_key(r, ns, name, key, sizeof key) < 0)
		return;
	json_object_set(c->applied, key, (json_t *)obj);
}

json_t *kube_applied_take(kube_client *c, const kube_resource *r, const char *ns, const char *name)
{
	char key[800];
	json_t *o;
	if (!c->applied || applied_key(r, ns, name, key, sizeof key) < 0 || !(o = json_object_get(c->applied, key)))
		return NULL;
	json_incref(o);
	json_object_del(c->applied, key);
	return o;
}

int kube_delete(kube_client *c, const kube_resource *r, const char *ns, const char *name,
                const kube_delete_opts *o, json_t **out, bh_error *err)
{
	int rc = check_res(r, ns, err);
	if (rc)
		return rc;
	if (!name || !*name)
		return bh_error_set(err, BH_EINVAL, "delete %s: a name is required", r->resource);
	json_t *body = json_pack("{s:s,s:s}", "apiVersion", "v1", "kind", "DeleteOptions");
	if (!body)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	if (o) {
		if (o->propagation)
			json_object_set_new(body, "propagationPolicy", json_string(o->propagation));
		if (o->precondition_uid || o->precondition_rv) {
			json_t *pre = json_object();
			if (o->precondition_uid)
				json_object_set_new(pre, "uid", json_string(o->precondition_uid));
			if (o->precondition_rv)
				json_object_set_new(pre, "resourceVersion", json_string(o->precondition_rv));
			json_object_set_new(body, "preconditions", pre);
		}
		if (o->dry_run)
			json_object_set_new(body, "dryRun", json_pack("[s]", "All"));
		if (o->grace_seconds >= 0)
			json_object_set_new(body, "gracePeriodSeconds", json_integer(o->grace_seconds));
	}
	bh_buf q = BH_BUF_INIT;
	if (o && o->dry_run)
		qadd(&q, "dryRun", "All");
	char *p = path_q(r, ns, name, NULL, &q);
	bh_buf_free(&q);
	if (!p) {
		json_decref(body);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	rc = kube_request_json(c, "DELETE", p, NULL, body, out, err);
	free(p);
	json_decref(body);
	return rc;
}

static void now_rfc3339(char *buf, size_t n)
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

json_t *kube_event_new(const json_t *inv, const kube_event *ev, char **path, bh_error *err)
{
	json_t *md = json_object_get(inv, "metadata");
	const char *name = json_string_value(json_object_get(md, "name"));
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	*path = NULL;
	if (!name || !ev || !ev->reason || !ev->type) {
		bh_error_set(err, BH_EINVAL, "event: involved object name, type and reason are required");
		return NULL;
	}
	if (strcmp(ev->type, "Normal") && strcmp(ev->type, "Warning")) {
		bh_error_set(err, BH_EINVAL, "event: type \"%s\" is not Normal or Warning", ev->type);
		return NULL;
	}
	if (!ns || !*ns)
		ns = "default";
	char ts[40];
	now_rfc3339(ts, sizeof ts);
	/* name like client-go's recorder: <involved>.<unique hex> */
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	char evname[300];
	snprintf(evname, sizeof evname, "%.200s.%016llx", name,
	         (unsigned long long)t.tv_sec * 1000000000ULL + (unsigned long long)t.tv_nsec);
	json_t *ref = json_object();
	static const char *const ref_keys[] = {"apiVersion", "kind"};
	for (size_t i = 0; i < 2; i++) {
		json_t *v = json_object_get(inv, ref_keys[i]);
		if (json_is_string(v))
			json_object_set(ref, ref_keys[i], v);
	}
	static const char *const md_keys[] = {"name", "namespace", "uid", "resourceVersion"};
	for (size_t i = 0; i < 4; i++) {
		json_t *v = json_object_get(md, md_keys[i]);
		if (json_is_string(v))
			json_object_set(ref, md_keys[i], v);
	}
	const char *ctl = ev->reporting_controller ? ev->reporting_controller : "bulkhead";
	json_t *emd = json_pack("{s:s,s:s}", "name", evname, "namespace", ns);
	if (ev->annotations && json_is_object(ev->annotations))
		json_object_set_new(emd, "annotations", json_deep_copy(ev->annotations));
	json_t *e = json_pack("{s:s,s:s,s:o,s:o,s:s,s:s,s:s,s:s,s:s,s:i,s:{s:s},s:s,s:s}", "apiVersion", "v1",
	                      "kind", "Event", "metadata", emd, "involvedObject", ref, "reason", ev->reason,
	                      "message", ev->message ? ev->message : "", "type", ev->type, "firstTimestamp", ts,
	                      "lastTimestamp", ts, "count", 1, "source", "component", ctl, "reportingComponent",
	                      ctl, "reportingInstance", ev->reporting_instance ? ev->reporting_instance : "");
	if (!e) {
		bh_error_set(err, BH_ENOMEM, "event: cannot build the Event object");
		return NULL;
	}
	json_object_set_new(e, "eventTime", json_null());
	if (ev->action)
		json_object_set_new(e, "action", json_string(ev->action));
	bh_buf p = BH_BUF_INIT;
	bh_buf_puts(&p, "/api/v1/namespaces/");
	kube_query_escape(&p, ns);
	bh_buf_puts(&p, "/events");
	if (!bh_buf_ok(&p)) {
		bh_buf_free(&p);
		json_decref(e);
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	*path = bh_buf_detach(&p);
	return e;
}

int kube_event_create(kube_client *c, const json_t *inv, const kube_event *ev, bh_error *err)
{
	char *path;
	json_t *e = kube_event_new(inv, ev, &path, err);
	if (!e)
		return err ? err->code : BH_EINVAL;
	int rc = kube_request_json(c, "POST", path, NULL, e, NULL, err);
	free(path);
	json_decref(e);
	return rc;
}
