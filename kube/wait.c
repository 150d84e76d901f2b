/* kube/wait.c — waiter with Helm's kstatus semantics (see wait.h): polls,
 * and watches the last object left. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/client_priv.h"
#include "kube/wait.h"
#include "lib/buf.h"

const char *const kube_wait_apply_drop[] = {"metadata.managedFields", KUBE_READY_UNREAD, NULL};

struct item {
	kube_resource r;
	const char *ns, *name;
	int skip;
	int settled; /* Current with no .status (a Service, a ConfigMap): nothing left to look at */
	int fresh;   /* its status came from a watch that just ended: no GET this round */
	char rv[64]; /* resourceVersion of the last look ("" when none) */
	kube_ready st;
};

static void compute(const json_t *obj, kube_wait_mode mode, kube_ready *st)
{
	if (mode == KUBE_WAIT_JOBS)
		kube_ready_compute_jobs(obj, st);
	else if (mode == KUBE_WAIT_HOOKS)
		kube_ready_compute_hook(obj, st);
	else
		kube_ready_compute(obj, st);
}

static void look(struct item *it, const json_t *obj, kube_wait_mode mode)
{
	const char *rv = json_string_value(json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));
	snprintf(it->rv, sizeof it->rv, "%s", rv && strlen(rv) < sizeof it->rv ? rv : "");
	compute(obj, mode, &it->st);
}

/* Kinds whose readiness is their existence (no status a controller
 * fills): once Current, looking again tells nothing. A LoadBalancer
 * Service waits for its address. */
static int statusless(const kube_resource *r, const json_t *obj)
{
	static const char *const core[] = {"services", "configmaps", "secrets", "serviceaccounts", NULL};
	static const char *const rbac[] = {"roles", "rolebindings", "clusterroles", "clusterrolebindings", NULL};
	const char *const *l = !r->group || !*r->group ? core
			       : !strcmp(r->group, "rbac.authorization.k8s.io") ? rbac : NULL;
	const char *type = json_string_value(json_object_get(json_object_get(obj, "spec"), "type"));
	for (; l && *l; l++)
		if (!strcmp(*l, r->resource))
			return strcmp(r->resource, "services") != 0 || !type || strcmp(type, "LoadBalancer") != 0;
	return 0;
}

static void poll_one(kube_client *c, struct item *it, kube_wait_mode mode, int *fatal, bh_error *err)
{
	/* an object applied a moment ago: its apply's answer is the first look */
	json_t *obj = mode == KUBE_WAIT_DELETED ? NULL : kube_applied_take(c, &it->r, it->ns, it->name);
	bh_error e = {0};
	int rc = obj ? 0 : kube_get(c, &it->r, it->ns, it->name, NULL, &obj, &e);
	if (rc == BH_ENOTFOUND) {
		it->st.status = KUBE_STATUS_NOT_FOUND;
		snprintf(it->st.message, sizeof it->st.message, "Resource not found");
	} else if (rc == BH_EDENIED) {
		*fatal = 1;
		*err = e;
	} else if (rc) {
		it->st.status = KUBE_STATUS_UNKNOWN;
		snprintf(it->st.message, sizeof it->st.message, "%.255s", e.msg);
	} else {
		look(it, obj, mode);
	}
	if (obj && (mode == KUBE_WAIT_READY || mode == KUBE_WAIT_JOBS) && it->st.status == KUBE_STATUS_CURRENT)
		it->settled = statusless(&it->r, obj);
	json_decref(obj);
}

/* statusObserver: ignoring Failed (when waiting for Current) and Unknown
 * (when waiting for deletion), is everything at the desired status? */
static int all_done(const struct item *items, size_t n, kube_status want)
{
	for (size_t i = 0; i < n; i++) {
		kube_status s = items[i].st.status;
		if (items[i].skip)
			continue;
		if (want == KUBE_STATUS_CURRENT && s == KUBE_STATUS_FAILED)
			continue;
		if (want == KUBE_STATUS_NOT_FOUND && s == KUBE_STATUS_UNKNOWN)
			continue;
		if (s != want)
			return 0;
	}
	return 1;
}

/* Is this status what the wait waits for (Failed ends a wait for Current)? */
static int done(kube_status s, kube_status want)
{
	return s == want || (want == KUBE_STATUS_CURRENT && s == KUBE_STATUS_FAILED);
}

/* The one object the wait still waits for, when it may be watched (its
 * last look gave a resourceVersion), else NULL. */
static struct item *watch_candidate(struct item *items, size_t n, kube_status want)
{
	struct item *one = NULL;
	if (want != KUBE_STATUS_CURRENT)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (items[i].skip || done(items[i].st.status, want))
			continue;
		if (one)
			return NULL;
		one = &items[i];
	}
	return one && one->rv[0] ? one : NULL;
}

struct watching {
	struct item *it;
	kube_wait_mode mode;
};

static int on_watch_event(void *ud, kube_watch_type type, json_t *obj)
{
	struct watching *w = ud;
	if (type == KUBE_WATCH_RELIST) /* after 410 Gone: the list of (at most) our object */
		obj = json_array_get(json_object_get(obj, "items"), 0);
	if (type == KUBE_WATCH_DELETED || !obj) {
		w->it->st.status = KUBE_STATUS_NOT_FOUND;
		snprintf(w->it->st.message, sizeof w->it->st.message, "Resource not found");
		return 0;
	}
	if (type == KUBE_WATCH_BOOKMARK)
		return 0;
	look(w->it, obj, w->mode);
	return done(w->it->st.status, KUBE_STATUS_CURRENT);
}

/* Instead of polling it, watches the object it (one request, resumed from
 * its last look) until it is done or left_ms passed. Returns 0, or an error
 * (no watch permission, no stream over this transport...): then poll. */
static int watch_item(kube_client *c, struct item *it, kube_wait_mode mode, long left_ms, bh_error *err)
{
	char sel[300];
	struct watching w = {it, mode};
	long secs = (left_ms + 999) / 1000;
	if ((size_t)snprintf(sel, sizeof sel, "metadata.name=%s", it->name) >= sizeof sel)
		return bh_error_set(err, BH_EINVAL, "wait: name too long to watch");
	kube_watch_opts wo = {.resource_version = it->rv,
			      .field_selector = sel,
			      .timeout_seconds = secs < KUBE_WAIT_WATCH_MAX_SECONDS ? secs : KUBE_WAIT_WATCH_MAX_SECONDS,
			      .max_seconds = secs,
			      .max_reconnects = 2,
			      .tree_drop = kube_ready_unread}; /* look() reads none of them */
	return kube_watch(c, &it->r, it->ns, &wo, on_watch_event, &w, err);
}

int kube_wait(kube_client *c, json_t *const *objs, size_t n, const kube_wait_opts *opts, bh_error *err)
{
	static const kube_wait_opts defaults = {0};
	const kube_wait_opts *o = opts ? opts : &defaults;
	long timeout = o->timeout_ms > 0 ? o->timeout_ms : KUBE_WAIT_DEFAULT_TIMEOUT_MS;
	long interval = o->interval_ms > 0 ? o->interval_ms : KUBE_WAIT_DEFAULT_INTERVAL_MS;
	kube_status want = o->mode == KUBE_WAIT_DELETED ? KUBE_STATUS_NOT_FOUND : KUBE_STATUS_CURRENT;
	if (n == 0)
		return 0;
	struct item *items = calloc(n, sizeof *items);
	if (!items)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		json_t *md = json_object_get(objs[i], "metadata");
		items[i].name = json_string_value(json_object_get(md, "name"));
		items[i].ns = json_string_value(json_object_get(md, "namespace"));
		items[i].st.status = KUBE_STATUS_UNKNOWN;
		if (!items[i].name) {
			rc = bh_error_set(err, BH_EINVAL, "wait: object %zu has no metadata.name", i);
			break;
		}
		rc = kube_mapping_for_object(c, objs[i], &items[i].r, err);
		if (rc)
			break;
		if (!items[i].r.namespaced)
			items[i].ns = NULL;
		else if (!items[i].ns || !*items[i].ns)
			rc = bh_error_set(err, BH_EINVAL, "wait: %s %s has no metadata.namespace", items[i].r.kind,
			                  items[i].name);
		/* Helm does not wait for paused Deployments */
		if (want == KUBE_STATUS_CURRENT && !strcmp(items[i].r.group, "apps") &&
		    !strcmp(items[i].r.kind, "Deployment") &&
		    json_is_true(json_object_get(json_object_get(objs[i], "spec"), "paused")))
			items[i].skip = 1;
	}
	long start = kube_now_ms(), slept = 0;
	int timed_out = 0, may_watch = c->t->ops->stream != NULL;
	while (!rc) {
		int fatal = 0;
		struct item *one;
		for (size_t i = 0; i < n && !fatal; i++) {
			if (!items[i].skip && !items[i].settled && !items[i].fresh)
				poll_one(c, &items[i], o->mode, &fatal, err);
			items[i].fresh = 0;
		}
		if (fatal) {
			rc = bh_error_prefix(err, "wait");
			break;
		}
		if (all_done(items, n, want))
			break;
		long used = kube_now_ms() - start;
		if (slept > used)
			used = slept;
		if (used >= timeout) {
			timed_out = 1;
			break;
		}
		if (may_watch && (one = watch_candidate(items, n, want))) {
			bh_error we;
			if (watch_item(c, one, o->mode, timeout - used, &we) == 0) {
				one->fresh = 1;
				continue;
			}
			may_watch = 0; /* poll from here on */
		}
		long d = timeout - used < interval ? timeout - used : interval;
		c->sleep_ms(c->hook_ud, d);
		slept += d;
	}
	if (!rc) {
		bh_buf b = BH_BUF_INIT;
		for (size_t i = 0; i < n; i++) {
			const struct item *it = &items[i];
			if (it->skip)
				continue;
			if (want == KUBE_STATUS_CURRENT && it->st.status == KUBE_STATUS_CURRENT)
				continue;
			if (want == KUBE_STATUS_NOT_FOUND &&
			    (it->st.status == KUBE_STATUS_NOT_FOUND || it->st.status == KUBE_STATUS_UNKNOWN))
				continue;
			bh_buf_printf(&b, "%sresource %s/%s/%s %s. status: %s, message: %s", b.len ? "\n" : "", it->r.kind,
			              it->ns ? it->ns : "", it->name, want == KUBE_STATUS_CURRENT ? "not ready" : "still exists",
			              kube_status_name(it->st.status), it->st.message);
		}
		if (timed_out)
			bh_buf_printf(&b, "%scontext deadline exceeded", b.len ? "\n" : "");
		if (!bh_buf_ok(&b))
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		else if (b.len)
			rc = bh_error_set(err, timed_out ? BH_ETIMEOUT : BH_EEXEC, "%s", b.data);
		bh_buf_free(&b);
	}
	free(items);
	return rc;
}
