/* supervisor/status.c — see status.h. */
#include "supervisor/status.h"
#include "supervisor/hrent.h"
#include "kube/curl.h"
#include "lib/hash.h"
#include "supervisor/forward.h"
#include "supervisor/jtext.h"
#include "supervisor/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <time.h>

const kube_resource sv_helmrelease_resource = {"helm.toolkit.fluxcd.io", "v2", "helmreleases", "HelmRelease", 1};
const kube_resource sv_helmchart_resource = {"source.toolkit.fluxcd.io", "v1", "helmcharts", "HelmChart", 1};

#define MAX_HISTORY 5
#define MAX_MESSAGE 1024 /* status text copied from workers stays short */

static json_t *find_cond(json_t *conds, const char *type)
{
	size_t i;
	json_t *c;
	json_array_foreach(conds, i, c) {
		const char *t = json_string_value(json_object_get(c, "type"));
		if (t && strcmp(t, type) == 0)
			return c;
	}
	return NULL;
}

/* A Stalled condition set for a refused or invalid spec (sv_outcome.stalled). */
static int spec_stalled(const json_t *c)
{
	const char *r = json_string_value(json_object_get(c, "reason"));
	return r && (!strcmp(r, "UnsupportedSpec") || !strcmp(r, "InvalidSpec") || !strcmp(r, "AccessDenied") ||
		     !strcmp(r, "InvalidServiceAccountName")); /* the lock-down's (supervisor/acl.c) */
}

/* Conditions and fields a state-machine worker owns (proto.h RESULT). */
static const char *const worker_conds[] = {"Ready", "Released", "TestSuccess", "Remediated", "Reconciling", "Stalled",
					   "Drifted", NULL};
static const char *const worker_fields[] = {"history", "failures", "installFailures", "upgradeFailures",
					    "lastAttemptedReleaseAction", "lastAttemptedRevision", "lastAttemptedRevisionDigest",
					    "lastAttemptedConfigDigest", "lastAppliedRevision", "lastHandledForceAt",
					    "lastHandledResetAt", "observedPostRenderersDigest",
					    "observedCommonMetadataDigest", "lastAttemptedReleaseActionDuration", NULL};

static int in_list(const char *const *l, const char *s)
{
	for (; s && *l; l++)
		if (!strcmp(*l, s))
			return 1;
	return 0;
}

/* The condition {type, status, observedGeneration, lastTransitionTime,
 * reason, message}, in that order, as json_pack builds it without its
 * format's parse: NULL when a string is NULL or not UTF-8 (or out of
 * memory). */
static json_t *cond_new(const char *type, const char *st, json_int_t gen, const char *ltt, const char *reason,
			const char *msg)
{
	static const char *const keys[] = {"type", "status", "observedGeneration", "lastTransitionTime", "reason",
					   "message"};
	json_t *v[6] = {json_string(type), json_string(st), json_integer(gen), json_string(ltt), json_string(reason),
			json_string(msg)};
	json_t *c = json_object();
	int bad = !c;
	for (size_t i = 0; i < 6; i++)
		bad |= !v[i];
	for (size_t i = 0; i < 6; i++)
		if (bad)
			json_decref(v[i]);
		else
			bad = json_object_set_new_nocheck(c, keys[i], v[i]) < 0;
	if (bad) {
		json_decref(c);
		return NULL;
	}
	return c;
}

static void set_cond(json_t *conds, const json_t *old, const char *type, const char *st, const char *reason,
		     const char *message, json_int_t gen, const char *now)
{
	json_t *prev = find_cond((json_t *)old, type), *c;
	const char *pst = prev ? json_string_value(json_object_get(prev, "status")) : NULL;
	const char *ltt = pst && strcmp(pst, st) == 0 ? json_string_value(json_object_get(prev, "lastTransitionTime")) : NULL;
	char msg[MAX_MESSAGE + 1];
	size_t n = strlen(message);
	if (n > MAX_MESSAGE) { /* cut at a UTF-8 boundary */
		n = MAX_MESSAGE;
		while (n && ((unsigned char)message[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(msg, message, n);
	msg[n] = '\0';
	c = cond_new(type, st, gen, ltt ? ltt : now, reason, msg);
	size_t i;
	json_t *mine = NULL;
	json_array_foreach(conds, i, mine) {
		const char *t = json_string_value(json_object_get(mine, "type"));
		if (t && !strcmp(t, type))
			break;
	}
	if (i < json_array_size(conds)) { /* conds shares the cached object's conditions: a copy changes */
		json_t *upd = json_copy(mine);
		json_object_update(upd, c);
		json_decref(c);
		json_array_set_new(conds, i, upd);
	} else {
		json_array_append_new(conds, c);
	}
}

static json_t *snapshot_json(const proto_snapshot *s)
{
	json_t *o = json_object();
	if (s->app_version)
		json_object_set_new(o, "appVersion", json_string(s->app_version));
	json_object_set_new(o, "chartName", json_string(s->chart_name));
	json_object_set_new(o, "chartVersion", json_string(s->chart_version));
	if (s->config_digest)
		json_object_set_new(o, "configDigest", json_string(s->config_digest));
	if (s->digest)
		json_object_set_new(o, "digest", json_string(s->digest));
	if (s->first_deployed)
		json_object_set_new(o, "firstDeployed", json_string(s->first_deployed));
	if (s->last_deployed)
		json_object_set_new(o, "lastDeployed", json_string(s->last_deployed));
	json_object_set_new(o, "name", json_string(s->name));
	json_object_set_new(o, "namespace", json_string(s->namespace_));
	json_object_set_new(o, "status", json_string(s->status));
	json_object_set_new(o, "version", json_integer(s->version));
	return o;
}

json_t *status_build(const json_t *hr, const sv_outcome *o, const char *now)
{
	const json_t *old = json_object_get(hr, "status");
	json_int_t gen = flux_generation(hr);
	/* st and conds share the values of the cached object (no deep copy of
	 * its status per write): only their own top level changes, and a
	 * value that changes below it is copied first */
	json_t *st = json_is_object(old) ? json_copy((json_t *)old) : json_object();
	json_t *oldconds = json_object_get(old, "conditions");
	json_t *conds = json_array(), *c;
	size_t i;
	const char *req = flux_requested_at(hr);
	/* keep other conditions, drop Reconciling (negative polarity: only while true) */
	json_array_foreach(oldconds, i, c) {
		const char *t = json_string_value(json_object_get(c, "type"));
		if (o->wstatus && in_list(worker_conds, t))
			continue; /* the worker's list replaces them */
		if (!o->wstatus && t && !strcmp(t, "Stalled") && spec_stalled(c))
			continue; /* set again below while the spec is still refused */
		if (t && (o->progressing || strcmp(t, "Reconciling") != 0))
			json_array_append(conds, c); /* shared: set_cond replaces, never changes it */
	}
	if (o->wstatus) {
		json_array_foreach(json_object_get(o->wstatus, "conditions"), i, c) {
			const char *t = json_string_value(json_object_get(c, "type"));
			set_cond(conds, oldconds, t, json_string_value(json_object_get(c, "status")),
				 json_string_value(json_object_get(c, "reason")), json_string_value(json_object_get(c, "message")),
				 json_integer_value(json_object_get(c, "observedGeneration")), now);
		}
		if (!find_cond(conds, "Ready"))
			set_cond(conds, oldconds, "Ready", o->ready ? "True" : "False", o->reason, o->message, gen, now);
	} else if (o->progressing) {
		/* a periodic look at a ready release (same generation) keeps Ready */
		json_t *r = find_cond(oldconds, "Ready");
		if (!r || strcmp(json_string_value(json_object_get(r, "status")) ? json_string_value(json_object_get(r, "status")) : "", "True") ||
		    json_integer_value(json_object_get(r, "observedGeneration")) != gen)
			set_cond(conds, oldconds, "Ready", "Unknown", o->reason, o->message, gen, now);
		set_cond(conds, oldconds, "Reconciling", "True", o->reason, o->message, gen, now);
	} else {
		set_cond(conds, oldconds, "Ready", o->ready ? "True" : "False", o->reason, o->message, gen, now);
	}
	if (o->stalled)
		set_cond(conds, oldconds, "Stalled", "True", o->reason, o->message, gen, now);
	if (o->action && !o->wstatus)
		set_cond(conds, oldconds, "Released", o->ready ? "True" : "False", o->reason, o->message, gen, now);
	/* Ready first, as Flux orders them */
	{
		json_t *sorted = json_array();
		json_array_append(sorted, find_cond(conds, "Ready"));
		json_array_foreach(conds, i, c) {
			const char *t = json_string_value(json_object_get(c, "type"));
			if (strcmp(t, "Ready") != 0)
				json_array_append(sorted, c);
		}
		json_decref(conds);
		conds = sorted;
	}
	json_object_set_new(st, "conditions", conds);
	if (o->ready || o->stalled)
		json_object_set_new(st, "observedGeneration", json_integer(gen));
	if (o->wstatus) {
		const json_t *stalled = find_cond(conds, "Stalled");
		if (stalled && !strcmp(json_string_value(json_object_get(stalled, "status")), "True"))
			json_object_set_new(st, "observedGeneration", json_integer(gen));
		for (const char *const *f = worker_fields; *f; f++) {
			json_t *v = json_object_get(o->wstatus, *f);
			if (v && !(json_is_integer(v) && json_integer_value(v) == 0))
				json_object_set(st, *f, v);
			else
				json_object_del(st, *f);
		}
	}
	if (o->attempted) {
		json_object_set_new(st, "lastAttemptedGeneration", json_integer(gen));
		if (o->revision && !o->wstatus)
			json_object_set_new(st, "lastAttemptedRevision", json_string(o->revision));
		if (o->action && !o->wstatus)
			json_object_set_new(st, "lastAttemptedReleaseAction", json_string(o->action));
	}
	if (o->progressing)
		return st;
	if (req)
		json_object_set_new(st, "lastHandledReconcileAt", json_string(req));
	if (o->helmchart)
		json_object_set_new(st, "helmChart", json_string(o->helmchart));
	if (o->storage_ns)
		json_object_set_new(st, "storageNamespace", json_string(o->storage_ns));
	if (o->release) {
		json_t *hist = json_array(), *h;
		json_array_append_new(hist, snapshot_json(o->release));
		json_array_foreach(json_object_get(old, "history"), i, h) {
			if (json_array_size(hist) >= MAX_HISTORY)
				break;
			if (json_integer_value(json_object_get(h, "version")) != o->release->version) {
				const char *hs = json_string_value(json_object_get(h, "status"));
				/* the worker superseded the previous deployed release */
				if (hs && strcmp(hs, "deployed") == 0 && strcmp(o->release->status, "deployed") == 0) {
					json_t *c = json_copy(h);
					json_object_set_new(c, "status", json_string("superseded"));
					json_array_append_new(hist, c);
				} else {
					json_array_append(hist, h);
				}
			}
		}
		json_object_set_new(st, "history", hist);
		if (o->ready)
			json_object_set_new(st, "lastAppliedRevision", json_string(o->release->chart_version));
	}
	if (o->wstatus) {
		/* counters came with the worker's status */
	} else if (!o->ready && o->attempted) {
		json_int_t f = json_integer_value(json_object_get(st, "failures"));
		json_object_set_new(st, "failures", json_integer(f + 1));
	} else if (o->ready) {
		json_object_del(st, "failures");
	}
	return st;
}

/* The Events of o, as {type, reason, message[, revision, token]} objects. */
static json_t *events_new(const sv_outcome *o)
{
	json_t *a = json_array();
	if (o->event && json_array_size(o->events) > 0) {
		size_t i;
		json_t *x;
		json_array_foreach(o->events, i, x) json_array_append_new(a, json_deep_copy(x));
	} else if (o->event) {
		json_array_append_new(a, json_pack("{s:s,s:s,s:s}", "type", o->ready ? "Normal" : "Warning", "reason",
						   o->reason ? o->reason : "", "message", o->message ? o->message : ""));
	}
	return a;
}

/* How the status is patched: by Flux's helm-controller, on the subresource. */
static const kube_write_opts status_wo = {"helm-controller", 0, 0, "status"};

/* Event x (events_new) as kube_event_create takes it; an: an object for its
 * annotations (filled here, the caller's). */
static kube_event event_of(const json_t *x, json_t *an)
{
	const char *rev = json_string_value(json_object_get(x, "revision"));
	const char *tok = json_string_value(json_object_get(x, "token"));
	if (rev)
		json_object_set_new(an, "helm.toolkit.fluxcd.io/revision", json_string(rev));
	if (tok)
		json_object_set_new(an, "helm.toolkit.fluxcd.io/token", json_string(tok));
	return (kube_event){json_string_value(json_object_get(x, "type")), json_string_value(json_object_get(x, "reason")),
			    json_string_value(json_object_get(x, "message")), NULL, "helm-controller", NULL,
			    rev || tok ? an : NULL};
}

/* Sends a status merge patch (text, or none when NULL) and the Events that go with it. */
static int send_status(kube_client *kc, const json_t *hr, const char *text, const json_t *events, bh_error *err)
{
	const json_t *md = json_object_get(hr, "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));
	json_t *x;
	size_t i;
	/* the answer (the whole object) is not decoded: nothing here reads it */
	int rc = text ? kube_patch(kc, &sv_helmrelease_resource, ns, name, KUBE_PATCH_MERGE, text, &status_wo, NULL, err) : 0;
	if (rc < 0)
		return bh_error_prefix(err, "writing status of HelmRelease %s/%s", ns, name);
	json_array_foreach(events, i, x) {
		json_t *an = json_object();
		kube_event ev = event_of(x, an);
		bh_error e2;
		if (kube_event_create(kc, hr, &ev, &e2) < 0)
			svlog(SVLOG_ERROR, "event for %s/%s: %s", ns, name, e2.msg);
		json_decref(an);
	}
	return 0;
}

/* ---- the asynchronous writer (status_async_start) ----------------------------------- */
/* What a status write keeps of the object (send_status, and
 * kube_event_create's involvedObject): not the whole object (its status
 * and spec are most of it), copied (the write owns it). NULL: no memory. */
static json_t *involved_new(const json_t *hr)
{
	static const char *const top[] = {"apiVersion", "kind"}, *const meta[] = {"name", "namespace", "uid", "resourceVersion"};
	const json_t *md = json_object_get(hr, "metadata");
	json_t *o = json_object(), *m = json_object();
	int bad = !o || !m || json_object_set(o, "metadata", m) < 0;
	for (size_t i = 0; !bad && i < 2; i++)
		if (json_object_get(hr, top[i]))
			bad = json_object_set_new(o, top[i], json_deep_copy(json_object_get(hr, top[i]))) < 0;
	for (size_t i = 0; !bad && i < 4; i++)
		if (json_object_get(md, meta[i]))
			bad = json_object_set_new(m, meta[i], json_deep_copy(json_object_get(md, meta[i]))) < 0;
	json_decref(m);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* A run queued (status_run; a status write is one too, write_step). */
typedef struct wr_item {
	status_run_fn run;
	void *ud;
	unsigned q;     /* its queue (Q): of its object */
	status_step st; /* its step so far */
	STAILQ_ENTRY(wr_item) link;
} wr_item;

/* An object's writes and runs, in order: one at a time, the next when it
 * ends; their requests are the main loop's own (forward.h: no thread, no
 * blocking client). Objects map to WQ_N queues, so a slow write holds up
 * only the few objects of its queue. The loop's own, as all below. */
#define WQ_N 256
typedef struct wr_q {
	STAILQ_HEAD(, wr_item) items; /* set up by status_async_start */
	int busy;    /* the head's request is in flight, or its run is being called */
} wr_q;
static wr_q Q[WQ_N];
static int async_on;        /* status_async_start */
static unsigned pending;    /* queued or running */

static void on_answer(void *ud, int rc, const kube_response *resp, const bh_error *err, const char *giveup);

/* Calls it's run with its step so far and sends the request it asks for:
 * 0, one is in flight; -1, the run has ended. A request that cannot be
 * sent goes back to the run as one without an answer. */
static int item_go(wr_item *it)
{
	bh_error e;
	for (;;) {
		it->st.sent = it->st.req;
		memset(&it->st.req, 0, sizeof it->st.req);
		if (!it->run(it->ud, &it->st))
			return -1;
		it->st.step++;
		if (fwd_own_send(&it->st.req, on_answer, it, &e) == 0)
			return 0;
		it->st.rc = e.code ? e.code : BH_EIO;
		it->st.resp = NULL;
		it->st.err = &e;
		it->st.giveup = NULL;
	}
}

/* The runs of q from its head on, until one has a request in flight (how
 * many are at once is the forwarding's, fwd_own_send). */
static void q_pump(wr_q *q)
{
	wr_item *it;
	while ((it = STAILQ_FIRST(&q->items)) && !q->busy) {
		q->busy = 1; /* a run that queues another for its object (status_write) does not call itself again */
		if (item_go(it) == 0)
			return;
		q->busy = 0;
		STAILQ_REMOVE_HEAD(&q->items, link);
		free(it);
		pending--;
	}
}

/* The answer to a run's request (fwd_own_fn): the run goes on, or its queue does. */
static void on_answer(void *ud, int rc, const kube_response *resp, const bh_error *err, const char *giveup)
{
	wr_item *it = ud;
	wr_q *q = &Q[it->q];
	it->st.rc = rc < 0 ? rc : 0;
	it->st.resp = rc < 0 ? NULL : resp;
	it->st.err = err;
	it->st.giveup = giveup;
	q->busy = 0;
	q_pump(q); /* it is the head */
}

int status_step_result(const status_step *st, json_t **out, bh_error *e)
{
	char what[1100];
	json_error_t je;
	if (out)
		*out = NULL;
	if (st->rc < 0 || !st->resp) {
		if (!st->err)
			return bh_error_set(e, BH_EIO, "%s %s: no answer", st->sent.method, st->sent.path);
		*e = *st->err;
		return e->code ? e->code : BH_EIO;
	}
	snprintf(what, sizeof what, "%s %.1024s", st->sent.method, st->sent.path);
	if (st->resp->status < 200 || st->resp->status >= 300) { /* as kube_call_drop says it */
		int rc = kube_response_error(st->resp, what, e);
		if (st->giveup)
			bh_error_prefix(e, "%s", st->giveup);
		return rc;
	}
	if (!out)
		return 0;
	if (!st->resp->body.len)
		*out = json_null();
	else if (!(*out = json_loadb(st->resp->body.data, st->resp->body.len, JSON_DECODE_ANY, &je)))
		return bh_error_set(e, BH_EPROTO, "%s: response is not JSON: %s", what, je.text);
	return 0;
}

/* A status write as a run (write_step): the patch, then each Event. */
typedef struct wr_write {
	json_t *hr, *events; /* hr: involved_new's */
	char *text;          /* the patch, or NULL: none */
	size_t k;            /* the next request: 0 the patch, k > 0 events[k - 1] */
	int patching;        /* the request in flight is the patch */
	char *path, *body;   /* of the request in flight */
} wr_write;

static void write_free(wr_write *w)
{
	json_decref(w->hr);
	json_decref(w->events);
	free(w->text);
	free(w->path);
	free(w->body);
	free(w);
}

/* w's request failed (e): logged as send_status does. 1 when that ends w
 * (a failed patch: no Events after it). */
static int write_failed(const wr_write *w, bh_error *e)
{
	const json_t *md = json_object_get(w->hr, "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));
	if (w->patching) {
		bh_error_prefix(e, "writing status of HelmRelease %s/%s", ns, name);
		svlog(SVLOG_ERROR, "%s", e->msg);
		return 1;
	}
	svlog(SVLOG_ERROR, "event for %s/%s: %s", ns, name, e->msg);
	return 0;
}

/* status_run_fn of a status write: send_status's requests in its order. */
static int write_step(void *ud, status_step *st)
{
	wr_write *w = ud;
	bh_error e;
	if (st->step && status_step_result(st, NULL, &e) < 0 && write_failed(w, &e)) {
		write_free(w);
		return 0;
	}
	for (;;) {
		size_t k = w->k++;
		free(w->path);
		free(w->body);
		w->path = w->body = NULL;
		memset(&st->req, 0, sizeof st->req);
		e.code = BH_EIO;
		e.msg[0] = '\0';
		if (k == 0 && !w->text)
			continue;
		if (k == 0) {
			const json_t *md = json_object_get(w->hr, "metadata");
			w->patching = 1;
			if ((w->path = kube_patch_path_new(&sv_helmrelease_resource,
							   json_string_value(json_object_get(md, "namespace")),
							   json_string_value(json_object_get(md, "name")), KUBE_PATCH_MERGE,
							   &status_wo, &st->req.content_type, &e))) {
				st->req.method = "PATCH";
				st->req.body = w->text;
				st->req.body_len = strlen(w->text);
			}
		} else if (k - 1 < json_array_size(w->events)) {
			const json_t *x = json_array_get(w->events, k - 1);
			json_t *an = json_object(), *ev;
			kube_event ke = event_of(x, an);
			w->patching = 0;
			if ((ev = kube_event_new(w->hr, &ke, &w->path, &e))) {
				if (!(w->body = jtext_new(ev))) /* json_dumps's text, in a fraction of its work */
					bh_error_set(&e, BH_ENOMEM, "out of memory encoding request body");
				st->req.method = "POST";
				st->req.content_type = "application/json";
				st->req.body = w->body;
				st->req.body_len = w->body ? strlen(w->body) : 0;
			}
			json_decref(ev);
			json_decref(an);
		} else {
			write_free(w);
			return 0;
		}
		st->req.path = w->path;
		if (w->path && st->req.body)
			return 1;
		if (write_failed(w, &e)) /* not sent: as a failed one */
			break;
	}
	write_free(w);
	return 0;
}

void status_async_start(void)
{
	if (async_on)
		return; /* the queues may hold writes already */
	for (size_t i = 0; i < WQ_N; i++)
		STAILQ_INIT(&Q[i].items);
	async_on = 1;
}

void status_flush(void)
{
	while (pending)
		fwd_turn(50); /* the main loop has ended: its requests go on here */
}

/* Queues the run fn(ud) on the queue of the object ns/name. */
static int submit(const char *ns, const char *name, status_run_fn fn, void *ud, bh_error *err)
{
	const char *n1 = ns ? ns : "", *n2 = name ? name : "";
	uint64_t h = bh_fnv1a(BH_FNV1A_INIT, n1, strlen(n1));
	wr_item *it = calloc(1, sizeof *it);
	wr_q *q;
	if (!it)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	it->run = fn;
	it->ud = ud;
	h = bh_fnv1a(bh_fnv1a(h, "/", 1), n2, strlen(n2));
	it->q = (unsigned)(h % WQ_N);
	q = &Q[it->q];
	STAILQ_INSERT_TAIL(&q->items, it, link);
	pending++;
	q_pump(q);
	return 0;
}

static uint64_t digest(uint64_t h, const json_t *v);

/* An object's member's share of its digest (status_digest). */
static uint64_t member_digest(const char *k, const json_t *v)
{
	return digest(bh_fnv1a_str(k), v);
}

static uint64_t object_digest(uint64_t h, uint64_t sum)
{
	return bh_fnv1a(bh_fnv1a(h, "{", 1), &sum, sizeof sum);
}

/* The sum of object o's members' digests. */
static uint64_t digest_sum(const json_t *o)
{
	const char *k;
	json_t *x;
	uint64_t sum = 0;
	json_object_foreach((json_t *)o, k, x) sum += member_digest(k, x);
	return sum;
}

/* v's digest: objects' members in any order (a sum), arrays' in theirs. */
static uint64_t digest(uint64_t h, const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return object_digest(h, digest_sum(v));
	case JSON_ARRAY: {
		size_t i;
		json_t *x;
		h = bh_fnv1a(h, "[", 1);
		json_array_foreach(v, i, x) h = digest(h, x);
		return bh_fnv1a(h, "]", 1);
	}
	case JSON_STRING:
		return bh_fnv1a(bh_fnv1a(h, "\"", 1), json_string_value(v), json_string_length(v) + 1);
	case JSON_INTEGER:
		return bh_fnv1a(bh_fnv1a(h, "i", 1), &(json_int_t){json_integer_value(v)}, sizeof(json_int_t));
	case JSON_REAL:
		return bh_fnv1a(bh_fnv1a(h, "r", 1), &(double){json_real_value(v)}, sizeof(double));
	case JSON_TRUE:
		return bh_fnv1a(h, "t", 1);
	case JSON_FALSE:
		return bh_fnv1a(h, "f", 1);
	default:
		return bh_fnv1a(h, "n", 1);
	}
}

uint64_t status_digest(const json_t *st)
{
	return st ? digest(BH_FNV1A_INIT, st) | 1 : 1; /* never 0 (no record) */
}

int status_patch(const json_t *hr, json_t *st, uint64_t *written, char **text)
{
	const json_t *old = json_object_get(hr, "status");
	int maybe = written && *written && json_is_object(old); /* else no digest of old */
	uint64_t sum = maybe ? digest_sum(old) : 0; /* becomes st's (digest_sum) */
	int diff = maybe && *written == (object_digest(BH_FNV1A_INIT, sum) | 1), bad = 0;
	const char *k;
	json_t *v, *ps, *patch = json_object();
	*text = NULL;
	if (!diff) { /* the whole status: st itself */
		sum = written ? digest_sum(st) : 0;
		ps = json_incref(st);
	} else if ((ps = json_object())) {
		json_object_foreach(st, k, v) {
			const json_t *was = json_object_get(old, k);
			if (was && json_equal(v, was))
				continue; /* its share of the digest stays */
			if (was)
				sum -= member_digest(k, was);
			sum += member_digest(k, v);
			if (!bad)
				bad = json_object_set(ps, k, v) < 0;
		}
	}
	bad |= !ps || !patch || json_object_set(patch, "status", ps) < 0;
	/* a merge patch keeps what it does not mention: removed fields become null */
	json_object_foreach((json_t *)old, k, v) if (!json_object_get(st, k) && !json_object_get(ps, k)) {
		if (diff)
			sum -= member_digest(k, v);
		if (!bad)
			bad = json_object_set_new(ps, k, json_null()) < 0;
	}
	if (!bad && (!diff || json_object_size(ps)) && !(*text = jtext_new(patch)))
		bad = 1;
	json_decref(ps);
	json_decref(patch);
	if (bad)
		return BH_ENOMEM;
	if (written)
		*written = object_digest(BH_FNV1A_INIT, sum) | 1;
	return 0;
}

int status_write(kube_client *kc, const json_t *hr, const sv_outcome *o, bh_error *err)
{
	struct timespec ts;
	struct tm tm;
	char now[32], *text;
	json_t *st, *events;
	int rc;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
	st = status_build(hr, o, now);
	rc = st ? status_patch(hr, st, o->written, &text) : BH_ENOMEM;
	json_decref(st);
	if (rc < 0) {
		if (o->written)
			*o->written = 0;
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	events = events_new(o);
	if (!text && json_array_size(events) == 0) { /* nothing changes */
		json_decref(events);
		return 0;
	}
	if (async_on) { /* sent by the loop; errors are logged there */
		const json_t *md = json_object_get(hr, "metadata");
		wr_write *w = calloc(1, sizeof *w);
		if (!w || !(w->hr = involved_new(hr))) {
			free(w);
			free(text);
			json_decref(events);
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		}
		w->text = text;
		w->events = events;
		if ((rc = submit(json_string_value(json_object_get(md, "namespace")),
				 json_string_value(json_object_get(md, "name")), write_step, w, err)) < 0)
			write_free(w);
		return rc;
	}
	rc = send_status(kc, hr, text, events, err);
	free(text);
	json_decref(events);
	return rc;
}

int status_run(const char *ns, const char *name, status_run_fn fn, void *ud, bh_error *err)
{
	if (!async_on)
		return bh_error_set(err, BH_EINVAL, "status_run: the loop's requests are not started (status_async_start)");
	return submit(ns, name, fn, ud, err);
}
