/* helm/hooks.c — running Helm hooks (see hooks.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helm/hooks.h"
#include "helm/objmeta.h"
#include "helm/storage.h"
#include "kube/ready.h"
#include "kube/wait.h"
#include <time.h>
#include "lib/gostrconv.h"
#include "lib/yaml.h"

json_t *hooks_json_new(const manifest_list *hooks)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < hooks->n; i++) {
		const manifest *m = &hooks->v[i];
		json_t *h = json_object(), *ev = json_array();
		json_object_set_new(h, "name", json_string(m->name));
		json_object_set_new(h, "kind", json_string(m->kind));
		json_object_set_new(h, "path", json_string(m->path));
		json_object_set_new(h, "manifest", json_string(m->content));
		for (size_t k = 0; k < m->nevents; k++)
			json_array_append_new(ev, json_string(m->events[k]));
		json_object_set_new(h, "events", ev);
		json_object_set_new(h, "last_run", json_pack("{s:s}", "phase", ""));
		if (m->weight)
			json_object_set_new(h, "weight", json_integer(m->weight));
		if (m->ndelete_policies) {
			json_t *d = json_array();
			for (size_t k = 0; k < m->ndelete_policies; k++)
				json_array_append_new(d, json_string(m->delete_policies[k]));
			json_object_set_new(h, "delete_policies", d);
		}
		if (m->noutput_log_policies) {
			json_t *d = json_array();
			for (size_t k = 0; k < m->noutput_log_policies; k++)
				json_array_append_new(d, json_string(m->output_log_policies[k]));
			json_object_set_new(h, "output_log_policies", d);
		}
		json_array_append_new(a, h);
	}
	return a;
}

int hooks_parse_object(kube_client *kc, const char *text, const char *ns, json_t **obj_out, kube_resource *r_out,
		       bh_error *err)
{
	json_t *obj = NULL, *md;
	const char *name, *ons;
	int rc;
	*obj_out = NULL;
	if ((rc = yaml_parse_any(text, strlen(text), NULL, YAML_KEEP_INTS, &obj, err)) < 0)
		return rc;
	if (json_is_object(obj) && (rc = objmeta_check(obj, err)) < 0) {
		json_decref(obj);
		return bh_error_prefix(err, "unable to decode \"\"");
	}
	md = json_object_get(obj, "metadata");
	name = json_string_value(json_object_get(md, "name"));
	if (!json_is_object(obj) || !json_string_value(json_object_get(obj, "kind")) || !json_is_object(md) || !name ||
	    !*name) {
		json_decref(obj);
		return bh_error_set(err, BH_EINVAL, "a manifest needs apiVersion, kind and metadata.name");
	}
	if ((rc = kube_mapping_for_object(kc, obj, r_out, err)) < 0) {
		/* cli-runtime's mapper names the object of a kind the server
		 * lacks (k8s' NoKindMatchError): its name and namespace as
		 * written, the source "" (Helm builds from a reader) */
		if (rc == BH_ENOTFOUND) {
			bh_buf m = BH_BUF_INIT;
			const char *wns = json_string_value(json_object_get(md, "namespace"));
			bh_buf_puts(&m, "resource mapping not found for name: ");
			go_quote(&m, name, strlen(name), '"', 0);
			bh_buf_puts(&m, " namespace: ");
			go_quote(&m, wns ? wns : "", wns ? strlen(wns) : 0, '"', 0);
			bh_buf_printf(&m, " from \"\": %s\nensure CRDs are installed first", err->msg);
			bh_error_set(err, rc, "%s", bh_buf_ok(&m) ? bh_buf_str(&m) : "out of memory");
			bh_buf_free(&m);
		}
		json_decref(obj);
		return rc;
	}
	ons = json_string_value(json_object_get(md, "namespace"));
	if (r_out->namespaced && (!ons || !*ons))
		json_object_set_new(md, "namespace", json_string(ns));
	else if (!r_out->namespaced)
		json_object_del(md, "namespace");
	*obj_out = obj;
	return 0;
}

static int has_policy(const json_t *h, const char *p)
{
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(h, "delete_policies"), i, v) if (!strcmp(json_string_value(v) ? json_string_value(v) : "", p)) return 1;
	return 0;
}

static int has_event(const json_t *h, const char *ev)
{
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(h, "events"), i, v) if (!strcmp(json_string_value(v) ? json_string_value(v) : "", ev)) return 1;
	return 0;
}

static const char *hstr(const json_t *h, const char *k)
{
	const char *s = json_string_value(json_object_get(h, k));
	return s ? s : "";
}

/* deleteHookByPolicy: delete (background) and wait until gone. */
static int delete_by_policy(kube_client *kc, const json_t *h, const char *policy, const char *ns, long timeout_ms,
			    bh_error *err)
{
	json_t *obj = NULL;
	kube_resource r;
	kube_delete_opts d = {.propagation = "Background", .grace_seconds = -1};
	int rc;
	if (!strcmp(hstr(h, "kind"), "CustomResourceDefinition") || !has_policy(h, policy))
		return 0;
	if ((rc = hooks_parse_object(kc, hstr(h, "manifest"), ns, &obj, &r, err)) < 0)
		return bh_error_prefix(err, "unable to build kubernetes object for deleting hook %s", hstr(h, "path"));
	const char *ons = json_string_value(json_object_get(json_object_get(obj, "metadata"), "namespace"));
	rc = kube_delete(kc, &r, ons, hstr(h, "name"), &d, NULL, err);
	if (rc == BH_ENOTFOUND)
		rc = 0;
	if (rc == 0) {
		kube_wait_opts wo = {KUBE_WAIT_DELETED, timeout_ms, 0};
		rc = kube_wait(kc, &obj, 1, &wo, err);
	}
	json_decref(obj);
	return rc;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* WatchUntilReady by polling (workers cannot watch): Jobs until complete,
 * Pods until succeeded, other kinds at once. Polls fast at first so short
 * Jobs are seen finishing; a Job with ttlSecondsAfterFinished that
 * disappears after it was seen running was finished and removed by its TTL
 * (Helm's watch would have seen the outcome; a poller cannot): counted as
 * succeeded. Messages as kube_wait's. */
static int wait_hook(kube_client *kc, const json_t *obj, const kube_resource *r, long timeout_ms, bh_error *err)
{
	const char *ns = r->namespaced ? json_string_value(json_object_get(json_object_get(obj, "metadata"), "namespace")) : NULL;
	const char *name = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
	int has_ttl = json_object_get(json_object_get(obj, "spec"), "ttlSecondsAfterFinished") != NULL;
	long start = now_ms(), interval = 50;
	int seen = 0;
	kube_ready st = {KUBE_STATUS_UNKNOWN, ""};
	if (strcmp(r->kind, "Job") && strcmp(r->kind, "Pod"))
		return 0;
	for (;;) {
		json_t *live = NULL;
		bh_error e = {0};
		int rc = kube_get(kc, r, ns, name, NULL, &live, &e);
		if (rc == BH_ENOTFOUND) {
			if (seen && has_ttl)
				return 0;
			st.status = KUBE_STATUS_NOT_FOUND;
			snprintf(st.message, sizeof st.message, "Resource not found");
		} else if (rc == BH_EDENIED) {
			*err = e;
			return rc;
		} else if (rc < 0) {
			st.status = KUBE_STATUS_UNKNOWN;
			snprintf(st.message, sizeof st.message, "%.200s", e.msg);
		} else {
			seen = 1;
			kube_ready_compute_hook(live, &st);
		}
		json_decref(live);
		if (st.status == KUBE_STATUS_CURRENT)
			return 0;
		if (st.status == KUBE_STATUS_FAILED)
			return bh_error_set(err, BH_EEXEC, "resource %s/%s/%s not ready. status: %s, message: %s", r->kind,
					    ns ? ns : "", name, kube_status_name(st.status), st.message);
		long used = now_ms() - start;
		if (used >= timeout_ms)
			return bh_error_set(err, BH_ETIMEOUT,
					    "resource %s/%s/%s not ready. status: %s, message: %s\ncontext deadline exceeded",
					    r->kind, ns ? ns : "", name, kube_status_name(st.status), st.message);
		sleep_ms(interval < timeout_ms - used ? interval : timeout_ms - used);
		if (interval < 1000)
			interval = interval * 3 / 2;
	}
}

struct ordered {
	json_t *h;
	size_t pos;
};

static int by_weight(const void *a, const void *b)
{
	const struct ordered *x = a, *y = b;
	long wx = (long)json_integer_value(json_object_get(x->h, "weight"));
	long wy = (long)json_integer_value(json_object_get(y->h, "weight"));
	int c;
	if (wx != wy)
		return wx < wy ? -1 : 1;
	if ((c = strcmp(hstr(x->h, "name"), hstr(y->h, "name"))))
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void set_last_run(json_t *h, const char *started, const char *completed, const char *phase)
{
	json_t *lr = json_object();
	if (started && *started)
		json_object_set_new(lr, "started_at", json_string(started));
	if (completed && *completed)
		json_object_set_new(lr, "completed_at", json_string(completed));
	json_object_set_new(lr, "phase", json_string(phase));
	json_object_set_new(h, "last_run", lr);
}

static void report(json_t *rh, const json_t *h, const char *event)
{
	json_t *lr = json_object_get(h, "last_run");
	if (!rh)
		return;
	json_array_append_new(rh, json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "name", hstr(h, "name"), "kind", hstr(h, "kind"),
					    "event", event, "phase", hstr(lr, "phase"), "started_at",
					    hstr(lr, "started_at"), "completed_at", hstr(lr, "completed_at")));
}

json_t *hooks_select(const json_t *rel, const char *event, int (*skip)(void *ud, const char *hook_name),
		     void *skip_ud)
{
	json_t *hooks = json_object_get(rel, "hooks"), *h, *out;
	struct ordered *ex = calloc(json_array_size(hooks) + 1, sizeof *ex);
	size_t n = 0, i;
	if (!ex)
		return NULL;
	json_array_foreach(hooks, i, h) {
		if (!has_event(h, event) || (skip && skip(skip_ud, hstr(h, "name"))))
			continue;
		ex[n].h = h;
		ex[n].pos = n;
		n++;
	}
	qsort(ex, n, sizeof *ex, by_weight);
	out = json_array();
	for (i = 0; out && i < n; i++)
		json_array_append(out, ex[i].h);
	free(ex);
	return out;
}

int hooks_run(kube_client *kc, json_t *rel, const char *event, const hooks_run_opts *o, json_t *report_hooks,
	      bh_error *err)
{
	const char *ns = rel_namespace(rel);
	json_t *ex = hooks_select(rel, event, o->skip, o->skip_ud), *h;
	size_t n, i, k;
	int rc = 0;
	if (!ex)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	n = json_array_size(ex);
	for (i = 0; i < n; i++) {
		json_t *obj = NULL, *out = NULL;
		kube_resource r;
		kube_write_opts wo = {o->field_manager, 0, 0, NULL, kube_wait_apply_drop}; /* the answer: wait_hook's */
		char started[40], done[40];
		h = json_array_get(ex, i);
		if (json_array_size(json_object_get(h, "delete_policies")) == 0)
			json_object_set_new(h, "delete_policies", json_pack("[s]", "before-hook-creation"));
		if ((rc = delete_by_policy(kc, h, "before-hook-creation", ns, o->timeout_ms, err)) < 0)
			break;
		if ((rc = hooks_parse_object(kc, hstr(h, "manifest"), ns, &obj, &r, err)) < 0) {
			bh_error_prefix(err, "unable to build kubernetes object for %s hook %s", event, hstr(h, "path"));
			break;
		}
		storage_now(started);
		set_last_run(h, started, NULL, "Running");
		if (o->persist) {
			bh_error e2;
			storage_update(kc, o->storage_namespace, rel, &e2); /* Helm logs and carries on */
		}
		const char *ons = json_string_value(json_object_get(json_object_get(obj, "metadata"), "namespace"));
		rc = kube_apply(kc, &r, ons, obj, &wo, &out, err);
		json_decref(out);
		if (rc < 0) {
			storage_now(done);
			set_last_run(h, started, done, "Failed");
			report(report_hooks, h, event);
			json_decref(obj);
			bh_error_prefix(err, "warning: Hook %s %s failed", event, hstr(h, "path"));
			break;
		}
		rc = wait_hook(kc, obj, &r, o->timeout_ms, err);
		json_decref(obj);
		storage_now(done);
		set_last_run(h, started, done, rc < 0 ? "Failed" : "Succeeded");
		report(report_hooks, h, event);
		if (rc < 0) {
			bh_error e2;
			delete_by_policy(kc, h, "hook-failed", ns, o->timeout_ms, &e2);
			for (k = 0; k < i; k++)
				delete_by_policy(kc, json_array_get(ex, k), "hook-succeeded", ns, o->timeout_ms, &e2);
			break;
		}
	}
	if (rc == 0)
		for (k = n; k-- > 0;)
			if ((rc = delete_by_policy(kc, json_array_get(ex, k), "hook-succeeded", ns, o->timeout_ms, err)) < 0)
				break;
	json_decref(ex);
	return rc;
}
