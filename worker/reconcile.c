/* worker/reconcile.c — see reconcile.h. Names and texts follow
 * fluxcd/helm-controller internal/reconcile (state.go, atomic_release.go,
 * install.go, upgrade.go, test.go, unlock.go, rollback_remediation.go,
 * uninstall_remediation.go, release.go summarize). */
#include "worker/reconcile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/helmrelease.h"
#include "helm/action.h"
#include "helm/chart.h"
#include "helm/kustomize.h"
#include "helm/postrender.h"
#include "helm/storage.h"
#include "worker/drift.h"
#include "worker/manifest.h"
#include "worker/plan.h"
#include "worker/snapshot.h"
#include "worker/values.h"

enum { T_RELEASE = 1, T_TEST = 2, T_UNLOCK = 4, T_REMEDIATE = 8 };

#define MSG_MAX 2048

typedef struct remediation {
	int install;          /* install.remediation, else upgrade.remediation */
	long retries;         /* negative = unlimited */
	int remediate_last;   /* remediateLastFailure */
	int ignore_tests;     /* ignoreTestFailures, defaulting to test.ignoreFailures */
	const char *strategy; /* "rollback" or "uninstall" */
} remediation;

typedef struct ctx {
	const rc_input *in;
	action_config acfg;
	const hr_model *m; /* the typed HelmRelease */
	const json_t *spec, *md;
	json_t *st; /* the status being built (a copy of the old one) */
	json_int_t gen;
	const char *name, *ns; /* release name and namespace */
	const char *sns;       /* namespace of the release history (Flux's storage namespace) */
	char chart_name[256], chart_version[256];
	json_t *values; /* composed: valuesFrom, then .spec.values */
	char cdigest[SNAPSHOT_DIGEST_MAX];
	int force;
	struct timespec t0;
	rc_requeue requeue;
	json_t *events; /* Kubernetes Events of the actions run */
	postrender *pr; /* .spec.postRenderers, commonMetadata, origin labels */
	char prdigest[SNAPSHOT_DIGEST_MAX], cmdigest[SNAPSHOT_DIGEST_MAX];
	chart *loaded; /* the chart reconcile_run loaded, for the first action to take */
} ctx;

/* ---- small helpers ------------------------------------------------------------ */

static const char *sget(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static json_int_t st_int(const ctx *c, const char *k)
{
	return json_integer_value(json_object_get(c->st, k));
}

static void st_set_int(ctx *c, const char *k, json_int_t v)
{
	if (v)
		json_object_set_new(c->st, k, json_integer(v));
	else
		json_object_del(c->st, k);
}

static void logf_(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(ctx *c, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	if (!c->in->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	c->in->log(c->in->log_ud, line);
}

static long elapsed_ms(const ctx *c)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)((t.tv_sec - c->t0.tv_sec) * 1000 + (t.tv_nsec - c->t0.tv_nsec) / 1000000);
}

/* The action's timeout (timeout_ns, -1 unset), else .spec.timeout (5m),
 * bounded by what is left of the worker's budget (2s are kept to report
 * the outcome). */
static long action_timeout(const ctx *c, int64_t timeout_ns)
{
	long t = timeout_ns >= 0 ? (long)(timeout_ns / 1000000) : (long)(c->m->timeout_ns / 1000000);
	long left = c->in->budget_ms - elapsed_ms(c) - 2000;
	if (t <= 0)
		t = ACTION_DEFAULT_TIMEOUT_MS;
	if (left < 1000)
		left = 1000;
	return t < left ? t : left;
}

/* ---- conditions ------------------------------------------------------------------ */

static json_t *conds(ctx *c)
{
	json_t *a = json_object_get(c->st, "conditions");
	if (!json_is_array(a)) {
		a = json_array();
		json_object_set_new(c->st, "conditions", a);
	}
	return a;
}

static json_t *cond_get(ctx *c, const char *type)
{
	size_t i;
	json_t *x;
	json_array_foreach(conds(c), i, x) if (!strcmp(sget(x, "type"), type)) return x;
	return NULL;
}

static int cond_is(ctx *c, const char *type, const char *status)
{
	json_t *x = cond_get(c, type);
	return x && !strcmp(sget(x, "status"), status);
}

static void cond_del(ctx *c, const char *type)
{
	size_t i;
	json_t *x;
	json_array_foreach(conds(c), i, x) if (!strcmp(sget(x, "type"), type)) {
		json_array_remove(conds(c), i);
		return;
	}
}

static void cond_setg(ctx *c, const char *type, const char *status, const char *reason, const char *msg,
		      json_int_t gen)
{
	json_t *x = cond_get(c, type);
	if (!x) {
		x = json_object();
		json_array_append_new(conds(c), x);
	}
	json_object_set_new(x, "type", json_string(type));
	json_object_set_new(x, "status", json_string(status));
	json_object_set_new(x, "observedGeneration", json_integer(gen));
	json_object_set_new(x, "reason", json_string(reason));
	json_object_set_new(x, "message", json_string(msg));
}

static void cond_set(ctx *c, const char *type, const char *status, const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void cond_set(ctx *c, const char *type, const char *status, const char *reason, const char *fmt, ...)
{
	char msg[MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cond_setg(c, type, status, reason, msg, c->gen);
}

/* release.go conditionallyDeleteRemediated + summarize. */
static void summarize(ctx *c)
{
	int tests = c->m->test.enable && !c->m->test.ignore_failures;
	const char *order[3];
	size_t n = 0;
	json_t *rem, *rel, *best = NULL;
	json_int_t bg = -1;
	if (!c->m->test.enable)
		cond_del(c, "TestSuccess");
	if ((rem = cond_get(c, "Remediated")) && (rel = cond_get(c, "Released")) &&
	    !strcmp(sget(rel, "status"), "True")) {
		json_int_t rg = json_integer_value(json_object_get(rem, "observedGeneration"));
		json_t *ts = cond_get(c, "TestSuccess");
		if (!tests) {
			if (json_integer_value(json_object_get(rel, "observedGeneration")) >= rg)
				cond_del(c, "Remediated");
		} else if (ts && !strcmp(sget(ts, "status"), "True") &&
			   json_integer_value(json_object_get(ts, "observedGeneration")) >= rg) {
			cond_del(c, "Remediated");
		}
	}
	order[n++] = "Remediated";
	if (tests)
		order[n++] = "TestSuccess";
	order[n++] = "Released";
	for (size_t i = 0; i < n; i++) {
		json_t *x = cond_get(c, order[i]);
		json_int_t g;
		if (!x)
			continue;
		g = json_integer_value(json_object_get(x, "observedGeneration"));
		if (g > bg) {
			best = x;
			bg = g;
		}
	}
	if (!best)
		return;
	{
		const char *status = sget(best, "status");
		char reason[128], msg[MSG_MAX];
		if (!strcmp(status, "Unknown") || !strcmp(sget(best, "type"), "Remediated"))
			status = "False";
		if (!strcmp(status, "True"))
			cond_del(c, "Stalled");
		snprintf(reason, sizeof reason, "%s", sget(best, "reason"));
		snprintf(msg, sizeof msg, "%s", sget(best, "message"));
		cond_setg(c, "Ready", status, reason, msg, c->gen);
	}
}

/* An Event with the condition an action just set (Flux's AnnotatedEventf:
 * revision = chart version, token = config digest). */
static void record(ctx *c, const char *cond, int warning)
{
	json_t *x = cond_get(c, cond), *h = json_array_get(json_object_get(c->st, "history"), 0);
	const char *rev = h ? sget(h, "chartVersion") : c->chart_version;
	const char *tok = h ? sget(h, "configDigest") : c->cdigest;
	json_t *ev;
	if (!x || json_array_size(c->events) >= 8)
		return;
	ev = json_pack("{s:s,s:s,s:s}", "type", warning ? "Warning" : "Normal", "reason", sget(x, "reason"), "message",
		       sget(x, "message"));
	if (ev && *rev)
		json_object_set_new(ev, "revision", json_string(rev));
	if (ev && *tok)
		json_object_set_new(ev, "token", json_string(tok));
	json_array_append_new(c->events, ev);
}

/* ---- remediation (api/v2 helmrelease_types.go) ----------------------------------------- */

static void get_remediation(const ctx *c, int install, remediation *r)
{
	const hr_remediation *o = install ? &c->m->install_remediation : &c->m->upgrade_remediation;
	memset(r, 0, sizeof *r);
	r->install = install;
	r->retries = o->retries;
	r->remediate_last = o->remediate_last_failure >= 0 ? o->remediate_last_failure : (!install && r->retries > 0);
	r->ignore_tests = o->ignore_test_failures >= 0 ? o->ignore_test_failures : c->m->test.ignore_failures;
	r->strategy = install ? "uninstall" : o->strategy;
}

/* By .status.lastAttemptedReleaseAction; 0 when there is none. */
static int active_remediation(const ctx *c, remediation *r)
{
	const char *a = sget(c->st, "lastAttemptedReleaseAction");
	if (!strcmp(a, "install"))
		get_remediation(c, 1, r);
	else if (!strcmp(a, "upgrade"))
		get_remediation(c, 0, r);
	else
		return 0;
	return 1;
}

static json_int_t failure_count(const ctx *c, const remediation *r)
{
	return st_int(c, r->install ? "installFailures" : "upgradeFailures");
}

static int exhausted(const ctx *c, const remediation *r)
{
	return r->retries >= 0 && failure_count(c, r) > r->retries;
}

static void count_failure(ctx *c, const remediation *r)
{
	const char *k = r->install ? "installFailures" : "upgradeFailures";
	st_set_int(c, k, st_int(c, k) + 1);
}

/* Flux's GetActiveRetry: the retryInterval (ms, default 5m) of the strategy
 * of .status.lastAttemptedReleaseAction when it is RetryOnFailure, else 0
 * (the action's remediation applies). */
static long active_retry_ms(const ctx *c)
{
	return (long)(hr_retry_interval_ns(c->m, sget(c->st, "lastAttemptedReleaseAction")) / 1000000);
}

/* Go's time.Duration String() of whole milliseconds ("5m0s", "1.5s", "300ms"). */
static void go_duration_ms(long ms, char *buf, size_t n)
{
	long s = ms / 1000, h = s / 3600, m = (s % 3600) / 60;
	char sec[32];
	if (ms < 1000) {
		snprintf(buf, n, "%ldms", ms);
		return;
	}
	if (ms % 1000) {
		int len = snprintf(sec, sizeof sec, "%ld.%03ld", s % 60, ms % 1000);
		while (len > 0 && sec[len - 1] == '0')
			sec[--len] = '\0';
	} else {
		snprintf(sec, sizeof sec, "%ld", s % 60);
	}
	if (h)
		snprintf(buf, n, "%ldh%ldm%ss", h, m, sec);
	else if (m)
		snprintf(buf, n, "%ldm%ss", m, sec);
	else
		snprintf(buf, n, "%ss", sec);
}

static int ignore_tests(const ctx *c)
{
	remediation r;
	if (active_remediation(c, &r))
		return r.ignore_tests;
	return c->m->test.ignore_failures;
}

/* ---- history --------------------------------------------------------------------------- */

static json_t *history(ctx *c)
{
	json_t *h = json_object_get(c->st, "history");
	if (!json_is_array(h)) {
		h = json_array();
		json_object_set_new(c->st, "history", h);
	}
	return h;
}

static json_t *latest(ctx *c)
{
	return json_array_get(history(c), 0);
}

static int snap_ok(const json_t *s, int ignore)
{
	const char *st = sget(s, "status");
	return (!strcmp(st, "deployed") || !strcmp(st, "superseded")) && (ignore || !snapshot_test_failed(s));
}

/* Snapshots.Truncate: keep the latest and up to the previous successful one. */
static void truncate_history(ctx *c, int ignore)
{
	json_t *h = history(c);
	for (size_t i = 1; i < json_array_size(h); i++)
		if (snap_ok(json_array_get(h, i), ignore)) {
			while (json_array_size(h) > i + 1)
				json_array_remove(h, i + 1);
			return;
		}
}

/* Snapshots.TruncateIgnoringPreviousSnapshots (RetryOnFailure): the 5 newest. */
static void truncate_newest(ctx *c)
{
	json_t *h = history(c);
	while (json_array_size(h) > 5)
		json_array_remove(h, json_array_size(h) - 1);
}

static json_t *previous(ctx *c, int ignore)
{
	json_t *h = history(c);
	for (size_t i = 1; i < json_array_size(h); i++)
		if (snap_ok(json_array_get(h, i), ignore))
			return json_array_get(h, i);
	return NULL;
}

static int snap_targets(const json_t *s, const char *name, const char *ns, json_int_t version)
{
	return !strcmp(sget(s, "name"), name) && !strcmp(sget(s, "namespace"), ns) &&
	       json_integer_value(json_object_get(s, "version")) == version;
}

/* "ns/name.vN" and "chart@version" of a snapshot (Snapshot.FullReleaseName,
 * VersionedChartName). */
static void snap_names(const json_t *s, char *full, size_t fn, char *chart, size_t cn)
{
	snprintf(full, fn, "%s/%s.v%lld", sget(s, "namespace"), sget(s, "name"),
		 (long long)json_integer_value(json_object_get(s, "version")));
	snprintf(chart, cn, "%s@%s", sget(s, "chartName"), sget(s, "chartVersion"));
}

/* The storage observer: the release an action wrote becomes the newest
 * snapshot (or replaces the snapshot of the same version); older snapshots
 * get their status and digest refreshed from storage. */
static void observe(ctx *c, const json_t *rel, const char *action, int tested)
{
	json_t *h = history(c), *snap, *top, *hist = NULL;
	bh_error e;
	size_t i;
	json_t *s;
	if (rel) {
		/* release.go mutateOCIDigest: an install or upgrade records the
		 * chart's OCI digest; another action's update of a revision keeps
		 * the digest that revision has */
		const char *oci = NULL;
		top = json_array_get(h, 0);
		int same = top && snap_targets(top, rel_name(rel), rel_namespace(rel), rel_version(rel));
		if (action && (!strcmp(action, "install") || !strcmp(action, "upgrade")))
			oci = sget(c->st, "lastAttemptedRevisionDigest");
		else if (same)
			oci = sget(top, "ociDigest");
		if (!(snap = snapshot_new(rel, action, tested, oci, &e))) {
			logf_(c, "snapshot of %s: %s", rel_name(rel), e.msg);
			return;
		}
		if (same) {
			if (!tested && json_object_get(top, "testHooks"))
				json_object_set(snap, "testHooks", json_object_get(top, "testHooks"));
			if (!action && json_object_get(top, "action"))
				json_object_set(snap, "action", json_object_get(top, "action"));
			json_array_set_new(h, 0, snap);
		} else {
			json_array_insert_new(h, 0, snap);
		}
	}
	json_array_foreach(h, i, s) {
		json_t *r;
		if ((i == 0 && rel) || strcmp(sget(s, "name"), c->name) || strcmp(sget(s, "namespace"), c->ns))
			continue;
		/* the history is read for an older snapshot of this release only
		 * (an install has none: its record, just written, is not decoded) */
		if (!hist && storage_history(c->in->kc, c->sns, c->name, &hist, &e) < 0)
			return;
		if ((r = storage_version(hist, (int)json_integer_value(json_object_get(s, "version"))))) {
			json_t *n = snapshot_new(r, NULL, 0, sget(s, "ociDigest"), &e);
			if (n) {
				json_object_set(s, "status", json_object_get(n, "status"));
				json_object_set(s, "digest", json_object_get(n, "digest"));
				if (json_object_get(n, "deleted"))
					json_object_set(s, "deleted", json_object_get(n, "deleted"));
			}
			json_decref(n);
		}
	}
	json_decref(hist);
}

/* ---- state (state.go DetermineReleaseState) ---------------------------------------------- */

/* The Helm Operator's antecedent rule, with Flux v2's origin labels: a
 * release whose objects are labelled helm.toolkit.fluxcd.io/name and
 * -/namespace for another HelmRelease belongs to that one and is not taken
 * over (two HelmReleases with one release name would otherwise take it from
 * each other in turn). 0, or BH_EDENIED with err saying whose it is. */
static int owner_check(ctx *c, const json_t *rel, bh_error *err)
{
	json_t *objs = NULL, *o;
	const char *mf = json_string_value(json_object_get(rel, "manifest")), *me = sget(c->md, "name");
	const char *mens = sget(c->md, "namespace");
	size_t i;
	int rc = 0;
	bh_error e;
	if (!mf || kz_objects_parse(mf, &objs, &e) < 0)
		return 0; /* nothing to tell whose it is: Flux takes it over */
	json_array_foreach(objs, i, o) {
		const json_t *l = json_object_get(json_object_get(o, "metadata"), "labels");
		const char *n = json_string_value(json_object_get(l, "helm.toolkit.fluxcd.io/name"));
		const char *ns = json_string_value(json_object_get(l, "helm.toolkit.fluxcd.io/namespace"));
		if (!n || !ns)
			continue;
		if (strcmp(n, me) != 0 || strcmp(ns, mens) != 0)
			rc = bh_error_set(err, BH_EDENIED,
					  "release '%s/%s' does not belong to HelmRelease %s/%s: it was made by HelmRelease "
					  "%s/%s (the origin labels of its objects); this may be an indication that multiple "
					  "HelmReleases with the same release name exist",
					  rel_namespace(rel), rel_name(rel), mens, me, ns, n);
		break;
	}
	json_decref(objs);
	return rc;
}

static int determine_state(ctx *c, plan_state *out, char *why, size_t wn, bh_error *err)
{
	json_t *hist = NULL, *last, *cur;
	char d[SNAPSHOT_DIGEST_MAX];
	const char *status;
	int rc;
	if ((rc = storage_history(c->in->kc, c->sns, c->name, &hist, err)) < 0)
		return rc;
	*why = '\0';
	if (!(last = storage_last(hist))) {
		snprintf(why, wn, "no release in storage");
		*out = PLAN_ABSENT;
		goto done;
	}
	status = rel_status(last);
	if (rel_status_is_pending(status)) {
		snprintf(why, wn, "release with status '%s'", status);
		*out = PLAN_LOCKED;
		goto done;
	}
	if (!(cur = latest(c))) {
		if (!strcmp(status, "uninstalled")) {
			snprintf(why, wn, "found uninstalled release in storage");
			*out = PLAN_ABSENT;
		} else {
			snprintf(why, wn, "found existing release in storage");
			*out = PLAN_UNMANAGED;
			rc = owner_check(c, last, err);
		}
		goto done;
	}
	if (!snap_targets(cur, rel_name(last), rel_namespace(last), rel_version(last))) {
		snprintf(why, wn, "release not observed to be made for object");
		*out = PLAN_UNMANAGED;
		rc = owner_check(c, last, err);
		goto done;
	}
	if ((rc = snapshot_release_digest(last, sget(cur, "ociDigest"), d, err)) < 0)
		goto done;
	if (strcmp(d, sget(cur, "digest")) != 0) {
		snprintf(why, wn, "release digest verification failed");
		*out = PLAN_UNMANAGED;
		goto done;
	}
	if (!strcmp(status, "failed")) {
		snprintf(why, wn, "release is in a failed state");
		*out = PLAN_FAILED;
	} else if (!strcmp(status, "uninstalled")) {
		snprintf(why, wn, "found uninstalled release in storage");
		*out = PLAN_ABSENT;
	} else if (!strcmp(status, "deployed")) {
		const json_t *md = json_object_get(json_object_get(last, "chart"), "metadata");
		remediation r;
		if (strcmp(sget(md, "name"), c->chart_name) || strcmp(sget(md, "version"), c->chart_version)) {
			snprintf(why, wn, "release chart has changed: %.100s@%.60s -> %.100s@%.60s", sget(md, "name"), sget(md, "version"),
				 c->chart_name, c->chart_version);
			*out = PLAN_OUTOFSYNC;
		} else if (strcmp(sget(cur, "configDigest"), c->cdigest) != 0) {
			snprintf(why, wn, "release values have changed");
			*out = PLAN_OUTOFSYNC;
		} else if (json_integer_value(json_object_get(c->st, "observedGeneration")) != c->gen &&
			   strcmp(sget(c->st, "observedPostRenderersDigest"), c->prdigest)) {
			snprintf(why, wn, "release post renderers have changed");
			*out = PLAN_OUTOFSYNC;
		} else if (json_integer_value(json_object_get(c->st, "observedGeneration")) != c->gen &&
			   strcmp(sget(c->st, "observedCommonMetadataDigest"), c->cmdigest)) {
			snprintf(why, wn, "release common metadata has changed");
			*out = PLAN_OUTOFSYNC;
		} else if (c->m->test.enable && !snapshot_tested(cur)) {
			snprintf(why, wn, "release has not been tested");
			*out = PLAN_UNTESTED;
		} else if (c->m->test.enable && active_remediation(c, &r) && !r.ignore_tests &&
			   snapshot_test_failed(cur)) {
			snprintf(why, wn, "has test in failed phase");
			*out = PLAN_FAILED;
		} else {
			*out = PLAN_INSYNC;
		}
	} else {
		rc = bh_error_set(err, BH_EINVAL, "unexpected release status '%s' of %s/%s.v%d", status, c->ns, c->name,
				  rel_version(last));
	}
done:
	json_decref(hist);
	return rc;
}

/* ---- actions ------------------------------------------------------------------------------- */

/* helm-controller's mutateChartWithSourceRevision: a chart from an
 * OCIRepository "<version>@<algo>:<digest>" gets version
 * "<version>+<digest[0:12]>", so a new digest under the same tag is a new
 * revision. */
static int oci_mutate(const char *rev, chart *ch, bh_error *err)
{
	const char *at = strchr(rev, '@'), *colon = at ? strchr(at, ':') : NULL;
	char v[300];
	if (!at)
		return strncmp(rev, "sha256:", 7) == 0 ? 0 : bh_error_set(err, BH_EINVAL, "invalid artifact revision %s", rev);
	if (strlen(chart_version(ch)) != (size_t)(at - rev) || strncmp(rev, chart_version(ch), (size_t)(at - rev)) != 0)
		return bh_error_set(err, BH_EINVAL, "artifact revision %s does not match chart version %s", rev,
				    chart_version(ch));
	if (!colon || strlen(colon + 1) < 12)
		return bh_error_set(err, BH_EINVAL, "invalid artifact revision %s", rev);
	snprintf(v, sizeof v, "%.*s+%.12s", (int)(at - rev), rev, colon + 1);
	json_object_set_new(ch->metadata, "version", json_string(v));
	return 0;
}

static int load_chart(ctx *c, chart **out, bh_error *err)
{
	size_t i;
	json_t *w;
	if (c->loaded) { /* loaded once per job: the first action takes it as it was read */
		*out = c->loaded;
		c->loaded = NULL;
		return 0;
	}
	/* the chart apiVersion check of the CLI (helm's loader), same text */
	if (chart_load_archive(c->in->chart_bytes, c->in->chart_len, NULL, out, err) < 0 ||
	    chart_check_api_version(*out, err) < 0)
		return bh_error_prefix(err, "could not load chart");
	if (c->in->oci_revision && oci_mutate(c->in->oci_revision, *out, err) < 0) {
		chart_free(*out);
		*out = NULL;
		return bh_error_prefix(err, "could not load chart");
	}
	json_array_foreach((*out)->warnings, i, w) /* duplicate keys (the later value wins) */
		logf_(c, "warning: duplicate key in %s: %s", sget(w, "file"), sget(w, "text"));
	return 0;
}

/* .spec.install|upgrade.crds; for install, the deprecated skipCRDs means
 * Skip when crds is unset (its documented replacement). */
static action_crds crds_policy(const hr_action *a)
{
	const char *s = a->crds;
	if (!*s && a->skip_crds)
		return ACTION_CRDS_SKIP;
	if (!strcmp(s, "Skip"))
		return ACTION_CRDS_SKIP;
	if (!strcmp(s, "Create"))
		return ACTION_CRDS_CREATE;
	if (!strcmp(s, "CreateReplace"))
		return ACTION_CRDS_CREATE_REPLACE;
	return ACTION_CRDS_DEFAULT;
}

static void wait_opts(const ctx *c, const hr_action *a, action_wait *w)
{
	w->disable_wait = a->disable_wait;
	w->disable_wait_for_jobs = a->disable_wait_for_jobs;
	w->timeout_ms = action_timeout(c, a->timeout_ns);
}

/* The post-render configuration the release is now in sync with. */
static void observe_manifest_config(ctx *c)
{
	json_object_set_new(c->st, "observedPostRenderersDigest", json_string(c->prdigest));
	json_object_set_new(c->st, "observedCommonMetadataDigest", json_string(c->cmdigest));
}

/* correct_cluster_drift.go: an in-sync release is compared with the
 * cluster (worker/drift.h); in mode enabled the drift is corrected without a
 * new Helm revision. Drifted says what was found; Ready and Released stay
 * as the release is. */
static void check_drift(ctx *c)
{
	const json_t *cfg = json_object_get(c->spec, "driftDetection");
	json_t *hist = NULL, *last, *ev;
	drift_opts o;
	drift_result r;
	bh_error e;
	char rel[600];
	size_t i;
	if (drift_enabled(cfg, &e) <= 0) {
		cond_del(c, "Drifted");
		return;
	}
	if (storage_history(c->in->kc, c->sns, c->name, &hist, &e) < 0 || !(last = storage_last(hist))) {
		json_decref(hist);
		return;
	}
	snprintf(rel, sizeof rel, "%s/%s.v%d", c->ns, c->name, rel_version(last));
	memset(&o, 0, sizeof o);
	o.kc = c->in->kc;
	o.release = rel;
	o.release_name = c->name;
	o.release_ns = c->ns;
	o.config = cfg;
	o.deadline_ms = c->in->budget_ms > 0 ? c->in->budget_ms - elapsed_ms(c) : 0;
	if (drift_run(json_string_value(json_object_get(last, "manifest")), &o, &r, &e) < 0) {
		logf_(c, "drift detection of %s failed: %s", rel, e.msg);
		json_decref(hist);
		return;
	}
	logf_(c, "drift detection of %s: %d object(s) drifted, %d corrected, %d failed, %u API requests", rel, r.drifted,
	      r.corrected, r.failed, r.requests);
	json_array_foreach(r.events, i, ev) {
		if (json_array_size(c->events) >= 8)
			break;
		if (*c->chart_version)
			json_object_set_new(ev, "revision", json_string(c->chart_version));
		if (*c->cdigest)
			json_object_set_new(ev, "token", json_string(c->cdigest));
		json_array_append(c->events, ev);
	}
	if (r.drifted && r.corrected < r.drifted)
		cond_set(c, "Drifted", "True", "DriftDetected", "%s", r.summary);
	else if (r.drifted)
		cond_set(c, "Drifted", "False", "DriftCorrected", "Cluster state of release %s has been corrected", rel);
	else
		cond_set(c, "Drifted", "False", "NoDriftDetected", "No drift detected for release %s", rel);
	json_decref(r.events);
	json_decref(hist);
}

/* After a release action: conditions, counters (install.go / upgrade.go
 * success and failure). Returns rc when nothing was written (the caller
 * retries with a backoff), else 0. */
static int release_outcome(ctx *c, int install, int rc, action_result *res, const bh_error *e, bh_error *err)
{
	const char *verb = install ? "install" : "upgrade";
	observe(c, res->release, verb, 0);
	if (rc < 0) {
		remediation r;
		cond_set(c, "Released", "False", install ? "InstallFailed" : "UpgradeFailed",
			 "Helm %s failed for release %s/%s with chart %s@%s: %s", verb, c->ns, c->name, c->chart_name,
			 c->chart_version, e->msg);
		st_set_int(c, "failures", st_int(c, "failures") + 1);
		record(c, "Released", 1);
		if (!res->release) {
			*err = *e;
			return rc;
		}
		get_remediation(c, install, &r);
		count_failure(c, &r);
		return 0;
	}
	{
		char full[600], ch[600];
		snap_names(latest(c), full, sizeof full, ch, sizeof ch);
		observe_manifest_config(c);
		if (active_retry_ms(c)) { /* failures only matter while a retried release is failed */
			json_object_del(c->st, "failures");
			json_object_del(c->st, "installFailures");
			json_object_del(c->st, "upgradeFailures");
		}
		cond_set(c, "Released", "True", install ? "InstallSucceeded" : "UpgradeSucceeded",
			 "Helm %s succeeded for release %s with chart %s", verb, full, ch);
		record(c, "Released", 0);
		if (c->m->test.enable && !snapshot_tested(latest(c)))
			cond_set(c, "TestSuccess", install ? "False" : "Unknown", "Pending",
				 "Helm release %s with chart %s is awaiting tests", full, ch);
	}
	return 0;
}

/* .status.lastAttemptedReleaseActionDuration: how long the install or
 * upgrade took (Flux's metav1.Duration, Go's duration string). */
static void set_action_duration(ctx *c, long t0)
{
	char d[64];
	go_duration_ms(elapsed_ms(c) - t0, d, sizeof d);
	json_object_set_new(c->st, "lastAttemptedReleaseActionDuration", json_string(d));
}

static int run_install(ctx *c, bh_error *err)
{
	action_install_opts o;
	action_result res;
	chart *ch = NULL;
	const hr_action *in = &c->m->install;
	bh_error e;
	int rc;
	long t0;
	json_object_set_new(c->st, "lastAttemptedReleaseAction", json_string("install"));
	memset(&o, 0, sizeof o);
	action_result_init(&res);
	if ((rc = load_chart(c, &ch, &e)) == 0) {
		o.name = c->name;
		o.namespace_ = c->ns;
		o.chart = ch;
		o.values = c->values;
		o.crds = crds_policy(in);
		o.create_namespace = in->create_namespace && *c->m->target_namespace;
		o.replace = in->replace;
		o.disable_hooks = in->disable_hooks;
		o.disable_take_ownership = in->disable_take_ownership;
		o.skip_schema_validation = in->disable_schema_validation;
		o.force_conflicts = 1;
		wait_opts(c, in, &o.wait);
		logf_(c, "running 'install' action with timeout of %lds", o.wait.timeout_ms / 1000);
		t0 = elapsed_ms(c);
		rc = action_install(&c->acfg, &o, &res, &e);
		set_action_duration(c, t0);
	}
	rc = release_outcome(c, 1, rc, &res, &e, err);
	action_result_free(&res);
	chart_free(ch);
	return rc;
}

static int run_upgrade(ctx *c, bh_error *err)
{
	action_upgrade_opts o;
	action_result res;
	chart *ch = NULL;
	const hr_action *up = &c->m->upgrade;
	bh_error e;
	int rc;
	long t0;
	json_object_set_new(c->st, "lastAttemptedReleaseAction", json_string("upgrade"));
	memset(&o, 0, sizeof o);
	action_result_init(&res);
	if ((rc = load_chart(c, &ch, &e)) == 0) {
		o.name = c->name;
		o.namespace_ = c->ns;
		o.chart = ch;
		o.values = c->values;
		o.crds = crds_policy(up);
		o.preserve_values = up->preserve_values;
		o.force = up->force; /* the document: "updates through a replacement strategy" */
		o.cleanup_on_fail = up->cleanup_on_fail;
		o.disable_hooks = up->disable_hooks;
		o.disable_take_ownership = up->disable_take_ownership;
		o.skip_schema_validation = up->disable_schema_validation;
		o.force_conflicts = 1;
		o.max_history = c->m->max_history;
		wait_opts(c, up, &o.wait);
		logf_(c, "running 'upgrade' action with timeout of %lds", o.wait.timeout_ms / 1000);
		t0 = elapsed_ms(c);
		rc = action_upgrade(&c->acfg, &o, &res, &e);
		set_action_duration(c, t0);
	}
	rc = release_outcome(c, 0, rc, &res, &e, err);
	action_result_free(&res);
	chart_free(ch);
	return rc;
}

static int run_test(ctx *c, bh_error *err)
{
	const hr_test *t = &c->m->test;
	action_test_opts o;
	action_result res;
	const char *filters[65];
	char fbuf[64][260];
	size_t nf = 0;
	char full[600], ch[600];
	bh_error e;
	int rc;
	memset(&o, 0, sizeof o);
	for (; nf < t->nfilters && nf < 64; nf++) {
		snprintf(fbuf[nf], sizeof fbuf[nf], "%s%s", t->filters[nf].exclude ? "!" : "", t->filters[nf].name);
		filters[nf] = fbuf[nf];
	}
	filters[nf] = NULL;
	o.name = c->name;
	o.namespace_ = c->ns;
	o.filters = nf ? filters : NULL;
	o.timeout_ms = action_timeout(c, t->timeout_ns);
	action_result_init(&res);
	logf_(c, "running 'test' action with timeout of %lds", o.timeout_ms / 1000);
	rc = action_test(&c->acfg, &o, &res, &e);
	observe(c, res.release, NULL, 1);
	action_result_free(&res);
	snap_names(latest(c), full, sizeof full, ch, sizeof ch);
	if (rc < 0) {
		remediation r;
		cond_set(c, "TestSuccess", "False", "TestFailed", "Helm test failed for release %s with chart %s: %s", full,
			 ch, e.msg);
		record(c, "TestSuccess", 1);
		st_set_int(c, "failures", st_int(c, "failures") + 1);
		if (active_remediation(c, &r) && !r.ignore_tests)
			count_failure(c, &r);
		if (!snapshot_tested(latest(c))) {
			*err = e;
			return rc;
		}
		return 0;
	}
	{
		size_t n = json_object_size(json_object_get(latest(c), "testHooks"));
		char hooks[64];
		if (n)
			snprintf(hooks, sizeof hooks, "%zu test hook%s completed successfully", n, n > 1 ? "s" : "");
		else
			snprintf(hooks, sizeof hooks, "no test hooks");
		cond_set(c, "TestSuccess", "True", "TestSucceeded", "Helm test succeeded for release %s with chart %s: %s",
			 full, ch, hooks);
		record(c, "TestSuccess", 0);
	}
	return 0;
}

static int run_unlock(ctx *c, bh_error *err)
{
	action_result res;
	json_t *hist = NULL, *last;
	char full[600], ch[600], was[40] = "";
	bh_error e;
	int rc;
	if (storage_history(c->in->kc, c->sns, c->name, &hist, &e) == 0 && (last = storage_last(hist))) {
		const json_t *md = json_object_get(json_object_get(last, "chart"), "metadata");
		snprintf(was, sizeof was, "%s", rel_status(last));
		snprintf(full, sizeof full, "%.200s/%.200s.v%d", c->ns, c->name, rel_version(last));
		snprintf(ch, sizeof ch, "%s@%s", sget(md, "name"), sget(md, "version"));
	} else {
		snprintf(full, sizeof full, "%s/%s", c->ns, c->name);
		snprintf(ch, sizeof ch, "%s@%s", c->chart_name, c->chart_version);
	}
	json_decref(hist);
	action_result_init(&res);
	logf_(c, "running 'unlock' action");
	rc = action_unlock(&c->acfg, c->name, c->ns, &res, &e);
	if (res.release && latest(c) && snap_targets(latest(c), c->name, c->ns, rel_version(res.release)))
		observe(c, res.release, NULL, 0);
	else
		observe(c, NULL, NULL, 0);
	action_result_free(&res);
	if (rc < 0) {
		cond_set(c, "Released", "False", "PendingRelease", "Unlock of Helm release %s with chart %s in %s state failed: %s",
			 full, ch, was, e.msg);
		record(c, "Released", 1);
		st_set_int(c, "failures", st_int(c, "failures") + 1);
		*err = e;
		return rc;
	}
	cond_set(c, "Released", "False", "PendingRelease", "Unlocked Helm release %s with chart %s in %s state", full, ch,
		 was);
	record(c, "Released", 0);
	return 0;
}

static int run_rollback(ctx *c, const json_t *prev_snap, bh_error *err)
{
	const hr_action *rb = &c->m->rollback;
	action_rollback_opts o;
	action_result res;
	char full[600], ch[600];
	bh_error e;
	int rc;
	snap_names(prev_snap, full, sizeof full, ch, sizeof ch);
	memset(&o, 0, sizeof o);
	o.name = c->name;
	o.namespace_ = c->ns;
	o.version = (int)json_integer_value(json_object_get(prev_snap, "version"));
	o.cleanup_on_fail = rb->cleanup_on_fail;
	o.disable_hooks = rb->disable_hooks;
	o.force = rb->force;
	o.recreate = rb->recreate;
	o.max_history = c->m->max_history;
	wait_opts(c, rb, &o.wait);
	action_result_init(&res);
	logf_(c, "running 'rollback' action with timeout of %lds", o.wait.timeout_ms / 1000);
	rc = action_rollback(&c->acfg, &o, &res, &e);
	observe(c, res.release, "rollback", 0);
	if (rc < 0) {
		int wrote = res.release != NULL;
		action_result_free(&res);
		cond_set(c, "Remediated", "False", "RollbackFailed", "Helm rollback to previous release %s with chart %s failed: %s",
			 full, ch, e.msg);
		record(c, "Remediated", 1);
		st_set_int(c, "failures", st_int(c, "failures") + 1);
		if (!wrote) {
			*err = e;
			return rc;
		}
		return 0;
	}
	action_result_free(&res);
	cond_set(c, "Remediated", "True", "RollbackSucceeded", "Helm rollback to previous release %s with chart %s succeeded",
		 full, ch);
	record(c, "Remediated", 0);
	return 0;
}

static int uninstall(ctx *c, const char *name, const char *ns, action_result *res, bh_error *e)
{
	const hr_action *un = &c->m->uninstall;
	action_uninstall_opts o;
	memset(&o, 0, sizeof o);
	o.name = name;
	o.namespace_ = ns;
	o.keep_history = un->keep_history;
	o.disable_hooks = un->disable_hooks;
	o.deletion_propagation = *un->deletion_propagation ? un->deletion_propagation : NULL;
	wait_opts(c, un, &o.wait);
	logf_(c, "running 'uninstall' action with timeout of %lds", o.wait.timeout_ms / 1000);
	return action_uninstall(&c->acfg, &o, res, e);
}

static int run_uninstall_remediation(ctx *c, bh_error *err)
{
	action_result res;
	char full[600], ch[600];
	bh_error e;
	int rc;
	snap_names(latest(c), full, sizeof full, ch, sizeof ch);
	action_result_init(&res);
	rc = uninstall(c, c->name, c->ns, &res, &e);
	observe(c, res.release, "uninstall-remediation", 0);
	action_result_free(&res);
	if (rc < 0) {
		cond_set(c, "Remediated", "False", "UninstallFailed",
			 "Helm uninstall remediation for release %s with chart %s failed: %s", full, ch, e.msg);
		record(c, "Remediated", 1);
		st_set_int(c, "failures", st_int(c, "failures") + 1);
		*err = e;
		return rc;
	}
	cond_set(c, "Remediated", "True", "UninstallSucceeded",
		 "Helm uninstall remediation for release %s with chart %s succeeded", full, ch);
	record(c, "Remediated", 0);
	return 0;
}

/* ---- actionForState ----------------------------------------------------------------------- */

typedef enum next_err { NE_OK, NE_EXCEEDED, NE_MISSING_TARGET } next_err;

typedef struct target_check {
	ctx *c;
	int ignore;            /* test failures ignored for the previous release */
	const json_t *prev;    /* the verified rollback target */
} target_check;

/* action.VerifySnapshot of the previous successful release: in storage and
 * unmodified (a storage error is treated as corrupt: upgrade again). */
static plan_target check_target(void *ud)
{
	target_check *t = ud;
	const json_t *prev = previous(t->c, t->ignore);
	json_t *hist = NULL, *rel;
	bh_error e;
	char d[SNAPSHOT_DIGEST_MAX];
	plan_target r;
	if (!prev)
		return PLAN_TARGET_MISSING;
	if (storage_history(t->c->in->kc, t->c->sns, t->c->name, &hist, &e) < 0)
		return PLAN_TARGET_CORRUPT;
	rel = storage_version(hist, (int)json_integer_value(json_object_get(prev, "version")));
	if (!rel)
		r = PLAN_TARGET_MISSING;
	else if (snapshot_release_digest(rel, sget(prev, "ociDigest"), d, &e) < 0 || strcmp(d, sget(prev, "digest")) != 0)
		r = PLAN_TARGET_CORRUPT;
	else
		r = PLAN_TARGET_OK;
	json_decref(hist);
	if (r == PLAN_TARGET_OK)
		t->prev = prev;
	return r;
}

static void plan_remediation_of(const ctx *c, int install, plan_remediation *p)
{
	remediation r;
	get_remediation(c, install, &r);
	p->retries = r.retries;
	p->failures = failure_count(c, &r);
	p->remediate_last = r.remediate_last;
	p->uninstall = !strcmp(r.strategy, "uninstall");
}

/* actionForState: plan.c chooses; this applies what goes with the choice
 * (history truncation, lastAppliedRevision, the Remediated condition
 * replaced by Released once in sync). */
static plan_action action_for_state(ctx *c, plan_state s, const json_t **target, next_err *ne)
{
	const char *a = sget(c->st, "lastAttemptedReleaseAction");
	remediation r;
	target_check tc = {c, 0, NULL};
	plan_input in;
	plan_output o;
	memset(&in, 0, sizeof in);
	in.state = s;
	in.force = c->force;
	in.retry = active_retry_ms(c) > 0;
	in.active = !strcmp(a, "install") ? 1 : !strcmp(a, "upgrade") ? 2 : 0;
	plan_remediation_of(c, 1, &in.install);
	plan_remediation_of(c, 0, &in.upgrade);
	if (active_remediation(c, &r))
		tc.ignore = r.ignore_tests;
	in.target = check_target;
	in.ud = &tc;
	o = plan_next(&in);
	switch (o.truncate) {
	case PLAN_TRUNCATE: truncate_history(c, s == PLAN_FAILED ? tc.ignore : ignore_tests(c)); break;
	case PLAN_TRUNCATE_NEWEST: truncate_newest(c); break;
	case PLAN_CLEAR: json_array_clear(history(c)); break;
	default: break;
	}
	if (s == PLAN_INSYNC && latest(c))
		json_object_set(c->st, "lastAppliedRevision", json_object_get(latest(c), "chartVersion"));
	if (((s == PLAN_INSYNC && o.action == PLAN_NONE) || s == PLAN_UNTESTED) && cond_is(c, "Remediated", "True")) {
		char full[600], ch[600];
		snap_names(latest(c), full, sizeof full, ch, sizeof ch);
		cond_del(c, "Remediated");
		cond_set(c, "Released", "True", "UpgradeSucceeded", "Helm upgrade succeeded for release %s with chart %s", full,
			 ch);
	}
	*ne = o.error == PLAN_EXCEEDED ? NE_EXCEEDED : o.error == PLAN_MISSING_TARGET ? NE_MISSING_TARGET : NE_OK;
	*target = o.action == PLAN_ROLLBACK ? tc.prev : NULL;
	return o.action;
}

static int kind_type(plan_action k)
{
	switch (k) {
	case PLAN_INSTALL:
	case PLAN_UPGRADE:
		return T_RELEASE;
	case PLAN_TEST:
		return T_TEST;
	case PLAN_UNLOCK:
		return T_UNLOCK;
	default:
		return T_REMEDIATE;
	}
}

static void mark_stalled_exceeded(ctx *c)
{
	remediation r;
	json_int_t n = active_remediation(c, &r) ? failure_count(c, &r) : 0;
	cond_set(c, "Stalled", "True", "RetriesExceeded", "Failed to %s after %lld attempt(s)",
		 sget(c->st, "lastAttemptedReleaseAction"), (long long)n);
}

/* RetryOnFailure: Reconciling=True "retrying after <retryInterval>" and a
 * requeue after it (Flux's ErrRetryAfterInterval); 0 when no retry
 * strategy is active. */
static int retry_after(ctx *c)
{
	long ms = active_retry_ms(c);
	char d[64];
	if (!ms)
		return 0;
	go_duration_ms(ms, d, sizeof d);
	cond_set(c, "Reconciling", "True", "ProgressingWithRetry", "retrying after %s", d);
	c->requeue = RC_REQUEUE_RETRY;
	return 1;
}

/* The atomic release loop. Returns 0, or a negative code after an action
 * or state error (conditions say what; the caller requeues with backoff). */
static int atomic_release(ctx *c, bh_error *err)
{
	unsigned done = 0;
	/* recomputed by this run */
	cond_del(c, "Stalled");
	cond_del(c, "Reconciling");
	for (;;) {
		plan_state s = PLAN_INSYNC;
		plan_action k;
		next_err ne;
		const json_t *target;
		char why[512];
		int rc, type;
		remediation r;
		if ((rc = determine_state(c, &s, why, sizeof why, err)) == BH_EDENIED) {
			cond_set(c, "Ready", "False", "ReleaseNotOwned", "%s", err->msg);
			cond_del(c, "Reconciling");
			record(c, "Ready", 1);
			return 0;
		}
		if (rc < 0) {
			cond_set(c, "Ready", "False", "StateError", "Could not determine release state: %s", err->msg);
			return rc;
		}
		if (*why)
			logf_(c, "release state: %s", why);
		k = action_for_state(c, s, &target, &ne);
		if (ne == NE_EXCEEDED) {
			mark_stalled_exceeded(c);
			summarize(c);
			c->requeue = RC_REQUEUE_NEVER;
			return 0;
		}
		if (ne == NE_MISSING_TARGET) {
			cond_set(c, "Stalled", "True", "MissingRollbackTarget",
				 "Failed to perform remediation: missing target release for rollback: cannot remediate failed release");
			summarize(c);
			c->requeue = RC_REQUEUE_NEVER;
			return 0;
		}
		if (k == PLAN_NONE) {
			if (s == PLAN_INSYNC) {
				observe_manifest_config(c);
				check_drift(c);
			}
			cond_del(c, "Reconciling");
			summarize(c);
			return 0;
		}
		type = kind_type(k);
		if (done & (unsigned)type) {
			summarize(c);
			if (retry_after(c))
				return 0;
			if (!active_remediation(c, &r) || !exhausted(c, &r)) {
				cond_setg(c, "Reconciling", "True", "ProgressingWithRetry",
					  sget(cond_get(c, "Ready"), "message"), c->gen);
				c->requeue = RC_REQUEUE_NOW;
			} else {
				cond_del(c, "Reconciling");
			}
			return 0;
		}
		switch (k) {
		case PLAN_INSTALL: rc = run_install(c, err); break;
		case PLAN_UPGRADE: rc = run_upgrade(c, err); break;
		case PLAN_TEST: rc = run_test(c, err); break;
		case PLAN_UNLOCK: rc = run_unlock(c, err); break;
		case PLAN_ROLLBACK: rc = run_rollback(c, target, err); break;
		case PLAN_UNINSTALL_REMEDIATION: rc = run_uninstall_remediation(c, err); break;
		default: rc = 0; break;
		}
		if (rc < 0) {
			summarize(c);
			if (retry_after(c))
				return 0;
			if (cond_is(c, "Ready", "True"))
				cond_set(c, "Ready", "False", "ReconcileError", "%s", err->msg);
			return rc;
		}
		if (type == T_REMEDIATE) {
			summarize(c);
			if (retry_after(c))
				return 0;
			if (!active_remediation(c, &r) || !exhausted(c, &r)) {
				cond_setg(c, "Reconciling", "True", "ProgressingWithRetry",
					  sget(cond_get(c, "Ready"), "message"), c->gen);
				c->requeue = RC_REQUEUE_NOW;
			} else {
				mark_stalled_exceeded(c);
				cond_del(c, "Reconciling");
				c->requeue = RC_REQUEUE_NEVER;
			}
			return 0;
		}
		done |= (unsigned)type;
	}
}

/* verify.go ReleaseTargetChanged: the release moved (storage namespace,
 * name, namespace, chart name): uninstall the old one (from the storage
 * namespace of .status.storageNamespace) and forget its history. */
static int target_changed(ctx *c, bh_error *err)
{
	json_t *cur = latest(c);
	const char *on, *ons, *osns = sget(c->st, "storageNamespace");
	int sns_changed = *osns && strcmp(osns, c->sns) != 0;
	action_result res;
	int rc;
	if (!cur)
		return 0;
	on = sget(cur, "name");
	ons = sget(cur, "namespace");
	if (!sns_changed && !strcmp(on, c->name) && !strcmp(ons, c->ns) &&
	    !strcmp(sget(cur, "chartName"), c->chart_name))
		return 0;
	logf_(c, "release target changed from %s/%s (storage namespace %s): uninstalling it", ons, on,
	      *osns ? osns : c->sns);
	action_result_init(&res);
	if (sns_changed)
		c->acfg.storage_namespace = osns;
	rc = uninstall(c, on, ons, &res, err);
	c->acfg.storage_namespace = c->sns;
	action_result_free(&res);
	if (rc < 0 && rc != BH_ENOTFOUND) {
		cond_set(c, "Ready", "False", "UninstallFailed", "Failed to uninstall release %s/%s after target change: %s", ons,
			 on, err->msg);
		return rc;
	}
	json_array_clear(history(c));
	json_object_del(c->st, "storageNamespace");
	json_object_del(c->st, "failures");
	json_object_del(c->st, "installFailures");
	json_object_del(c->st, "upgradeFailures");
	return 0;
}

/* ---- the run ----------------------------------------------------------------------------------- */

static int annotation_eq(const ctx *c, const char *a, const char *b)
{
	const json_t *an = json_object_get(c->md, "annotations");
	const char *x = json_string_value(json_object_get(an, a)), *y = json_string_value(json_object_get(an, b));
	return x && y && !strcmp(x, y);
}

static json_t *result_build(ctx *c, int deleting)
{
	json_t *ready = cond_get(c, "Ready"), *st = json_object(), *cl = json_array(), *x, *r;
	static const char *const keep[] = {"history", "failures", "installFailures", "upgradeFailures",
					   "lastAttemptedReleaseAction", "lastAttemptedRevision", "lastAttemptedRevisionDigest",
					   "lastAttemptedConfigDigest", "lastAppliedRevision", "lastHandledForceAt",
					   "lastHandledResetAt", "observedPostRenderersDigest",
					   "observedCommonMetadataDigest", "lastAttemptedReleaseActionDuration"};
	static const char *const rq[] = {"interval", "now", "never", "retry"};
	size_t i;
	const char *status = ready ? sget(ready, "status") : "False";
	json_array_foreach(conds(c), i, x) {
		const char *t = sget(x, "type");
		if (!strcmp(t, "Ready") || !strcmp(t, "Released") || !strcmp(t, "TestSuccess") || !strcmp(t, "Remediated") ||
		    !strcmp(t, "Reconciling") || !strcmp(t, "Stalled") || !strcmp(t, "Drifted"))
			json_array_append_new(cl, json_pack("{s:s,s:s,s:I,s:s,s:s}", "type", t, "status", sget(x, "status"),
							    "observedGeneration",
							    json_integer_value(json_object_get(x, "observedGeneration")),
							    "reason", sget(x, "reason"), "message", sget(x, "message")));
	}
	json_object_set_new(st, "conditions", cl);
	while (json_array_size(history(c)) > 10) /* proto's PROTO_MAX_HISTORY: the oldest go */
		json_array_remove(history(c), json_array_size(history(c)) - 1);
	for (i = 0; i < sizeof keep / sizeof *keep; i++)
		if ((x = json_object_get(c->st, keep[i])))
			json_object_set(st, keep[i], x);
	r = json_pack("{s:b,s:s,s:s,s:s,s:o}", "ready", !strcmp(status, "True"), "reason",
		      ready && *sget(ready, "reason") ? sget(ready, "reason") : "Unknown", "message",
		      ready ? sget(ready, "message") : "", "requeue", rq[c->requeue], "status", st);
	if (r && json_array_size(c->events))
		json_object_set(r, "events", c->events);
	if (r && deleting)
		json_object_set_new(r, "action", json_string("uninstall"));
	else if (r && *sget(c->st, "lastAttemptedReleaseAction"))
		json_object_set_new(r, "action", json_string(sget(c->st, "lastAttemptedReleaseAction")));
	return r;
}

/* Why the stored release is not the one the history records ("" when it
 * is): Flux's Snapshot.Targets (name, namespace, version), and the chart. */
static void not_owned_why(const json_t *cur, const json_t *rel, char *why, size_t wn)
{
	const char *chart = json_string_value(
		json_object_get(json_object_get(json_object_get(rel, "chart"), "metadata"), "name"));
	char full[600], ch[600];
	snap_names(cur, full, sizeof full, ch, sizeof ch);
	why[0] = '\0';
	if (!snap_targets(cur, rel_name(rel), rel_namespace(rel), rel_version(rel)) ||
	    strcmp(chart ? chart : "", sget(cur, "chartName")))
		snprintf(why, wn, "the release in storage is %s/%s.v%d with chart %s, not %s with chart %s from .status.history",
			 rel_namespace(rel), rel_name(rel), rel_version(rel), chart ? chart : "(none)", full, ch);
}

/* The HelmRelease is being deleted (Flux reconcileReleaseDeletion and
 * Uninstall.Reconcile): only the release it owns, as .status.history records
 * it, is uninstalled. With no storage namespace or no history it owns none
 * and nothing is uninstalled; a release of that name installed by someone
 * else, or changed since (another version or chart), is left alone too
 * (Flux uninstalls whatever is latest and then reports the mismatch; here
 * the check comes first). In these cases the object is let go with
 * Released=False and a Warning event saying why. */
static int run_delete(ctx *c, bh_error *err)
{
	action_result res;
	int rc;
	char full[600], ch[600], why[1400];
	bh_error e;
	json_t *cur = latest(c), *hist = NULL, *last;
	const char *osns = sget(c->st, "storageNamespace");
	if (!*osns || !cur) {
		snprintf(full, sizeof full, "%s/%s", c->ns, c->name);
		cond_set(c, "Released", "False", "UninstallSkipped",
			 "Helm uninstall skipped for release %s: this HelmRelease owns no release (%s)", full,
			 !*osns ? "no storage namespace in its status" : "no release in .status.history");
		cond_set(c, "Ready", "True", "UninstallSkipped", "%s", sget(cond_get(c, "Released"), "message"));
		logf_(c, "%s", sget(cond_get(c, "Released"), "message"));
		return 0;
	}
	snap_names(cur, full, sizeof full, ch, sizeof ch);
	/* the job's storage namespace is the status' one (supervisor) */
	if (storage_history(c->in->kc, c->sns, sget(cur, "name"), &hist, &e) < 0) {
		cond_set(c, "Released", "False", "UninstallFailed", "Helm uninstall failed for release %s with chart %s: %s",
			 full, ch, e.msg);
		cond_set(c, "Ready", "False", "UninstallFailed", "Helm uninstall failed for release %s with chart %s: %s", full,
			 ch, e.msg);
		*err = e;
		return e.code;
	}
	last = storage_last(hist);
	if (!last) {
		cond_set(c, "Released", "False", "UninstallSucceeded", "Release %s was not found, assuming it is uninstalled",
			 full);
		cond_set(c, "Ready", "True", "UninstallSucceeded", "Release %s was not found, assuming it is uninstalled", full);
		json_decref(hist);
		return 0;
	}
	not_owned_why(cur, last, why, sizeof why);
	json_decref(hist);
	if (why[0]) {
		cond_set(c, "Released", "False", "UninstallSkipped",
			 "Helm uninstall skipped for release %s with chart %s: %s; it is not this HelmRelease's to remove",
			 full, ch, why);
		cond_set(c, "Ready", "True", "UninstallSkipped", "%s", sget(cond_get(c, "Released"), "message"));
		record(c, "Released", 1);
		logf_(c, "%s", sget(cond_get(c, "Released"), "message"));
		return 0;
	}
	action_result_init(&res);
	rc = uninstall(c, sget(cur, "name"), sget(cur, "namespace"), &res, &e);
	if (res.release)
		observe(c, res.release, "uninstall", 0);
	action_result_free(&res);
	if (rc < 0 && c->m->uninstall.keep_history && strstr(e.msg, "is already deleted")) {
		cond_set(c, "Released", "False", "UninstallSucceeded", "Release %s was already uninstalled", full);
		cond_set(c, "Ready", "True", "UninstallSucceeded", "Release %s was already uninstalled", full);
		return 0;
	}
	if (rc < 0) {
		cond_set(c, "Released", "False", "UninstallFailed", "Helm uninstall failed for release %s with chart %s: %s",
			 full, ch, e.msg);
		cond_set(c, "Ready", "False", "UninstallFailed", "Helm uninstall failed for release %s with chart %s: %s", full,
			 ch, e.msg);
		record(c, "Released", 1);
		*err = e;
		return rc;
	}
	cond_set(c, "Released", "False", "UninstallSucceeded", "Helm uninstall succeeded for release %s with chart %s",
		 full, ch);
	cond_set(c, "Ready", "True", "UninstallSucceeded", "Helm uninstall succeeded for release %s with chart %s", full,
		 ch);
	record(c, "Released", 0);
	return 0;
}

int reconcile_run(const rc_input *in, json_t **result, bh_error *err)
{
	ctx c;
	chart *ch = NULL;
	const json_t *status;
	const char *req;
	bh_error e;
	int rc = 0, bad_spec = 0;
	hr_model *model = NULL;
	memset(&c, 0, sizeof c);
	*result = NULL;
	clock_gettime(CLOCK_MONOTONIC, &c.t0);
	c.in = in;
	c.acfg.kc = in->kc;
	c.acfg.field_manager = "helm-controller";
	c.acfg.log = in->log;
	c.acfg.log_ud = in->log_ud;
	/* the typed model's spec: v2, with a v2beta2 object converted as Flux
	 * converts it (postRenderers patchesStrategicMerge/patchesJson6902) */
	if (hr_decode(in->hr, &model, &e) < 0) {
		/* refused below; a deleted object is uninstalled with the defaults */
		bad_spec = !in->deleting;
		if (!(model = hr_model_default_new()))
			return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	c.m = model;
	c.spec = model->spec;
	c.md = json_object_get(in->hr, "metadata");
	c.gen = json_integer_value(json_object_get(c.md, "generation"));
	c.name = in->release_name;
	c.ns = in->release_ns;
	c.sns = in->storage_ns;
	c.acfg.storage_namespace = in->storage_ns;
	status = json_object_get(in->hr, "status");
	c.st = json_is_object(status) ? json_deep_copy(status) : json_object();
	c.events = json_array();
	if (!c.st || !c.events)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	if (in->deleting) { /* no chart: the release as stored is uninstalled */
		rc = run_delete(&c, &e);
		goto out;
	}
	if (bad_spec) { /* the supervisor decodes it first: a spec that changed meanwhile */
		cond_set(&c, "Ready", "False", e.code == BH_EDENIED ? "UnsupportedSpec" : "InvalidSpec", "%s", e.msg);
		goto out;
	}
	{
		const json_t *v = json_object_get(c.spec, "values");
		if (v && !json_is_object(v) && !json_is_null(v)) {
			cond_set(&c, "Ready", "False", "InitFailed", ".spec.values must be an object");
			goto out;
		}
	}
	if (load_chart(&c, &ch, &e) < 0) {
		cond_set(&c, "Ready", "False", "ArtifactFailed", "Could not load chart: %s", e.msg);
		goto out;
	}
	if (worker_values_compose(in->kc, sget(c.md, "namespace"), c.spec, &c.values, &e) < 0) {
		cond_set(&c, "Ready", "False", "ValuesError", "%s", e.msg);
		record(&c, "Ready", 1);
		chart_free(ch);
		goto out;
	}
	snprintf(c.chart_name, sizeof c.chart_name, "%s", chart_name(ch) ? chart_name(ch) : "");
	snprintf(c.chart_version, sizeof c.chart_version, "%s", chart_version(ch) ? chart_version(ch) : "");
	c.loaded = ch; /* an action changes it: a later one in this job loads its own */
	if (snapshot_config_digest(c.values, c.cdigest, &e) < 0) {
		cond_set(&c, "Ready", "False", "ValuesError", "%s", e.msg);
		goto out;
	}
	if (drift_enabled(json_object_get(c.spec, "driftDetection"), &e) < 0 ||
	    postrender_new(c.spec, sget(c.md, "name"), sget(c.md, "namespace"), &c.pr, &e) < 0 ||
	    manifest_postrenderers_digest(c.spec, c.prdigest, &e) < 0 ||
	    manifest_common_metadata_digest(c.spec, c.cmdigest, &e) < 0) {
		cond_set(&c, "Ready", "False", "InitFailed", "%s", e.msg);
		record(&c, "Ready", 1);
		goto out;
	}
	c.acfg.post_render = postrender_files;
	c.acfg.post_render_ud = c.pr;
	/* reset.go MustResetFailures, then the attempt is recorded */
	req = json_string_value(json_object_get(json_object_get(c.md, "annotations"), "reconcile.fluxcd.io/requestedAt"));
	if (c.gen != json_integer_value(json_object_get(c.st, "lastAttemptedGeneration")) ||
	    strcmp(c.chart_version, sget(c.st, "lastAttemptedRevision")) ||
	    strcmp(c.cdigest, sget(c.st, "lastAttemptedConfigDigest")) ||
	    (annotation_eq(&c, "reconcile.fluxcd.io/resetAt", "reconcile.fluxcd.io/requestedAt") &&
	     strcmp(req, sget(c.st, "lastHandledResetAt")))) {
		json_object_del(c.st, "failures");
		json_object_del(c.st, "installFailures");
		json_object_del(c.st, "upgradeFailures");
	}
	if (annotation_eq(&c, "reconcile.fluxcd.io/resetAt", "reconcile.fluxcd.io/requestedAt"))
		json_object_set_new(c.st, "lastHandledResetAt", json_string(req));
	if (annotation_eq(&c, "reconcile.fluxcd.io/forceAt", "reconcile.fluxcd.io/requestedAt") &&
	    strcmp(req, sget(c.st, "lastHandledForceAt"))) {
		c.force = 1;
		json_object_set_new(c.st, "lastHandledForceAt", json_string(req));
	}
	json_object_set_new(c.st, "lastAttemptedRevision", json_string(c.chart_version));
	if (in->oci_revision && strchr(in->oci_revision, '@'))
		json_object_set_new(c.st, "lastAttemptedRevisionDigest", json_string(strchr(in->oci_revision, '@') + 1));
	else if (in->oci_revision)
		json_object_set_new(c.st, "lastAttemptedRevisionDigest", json_string(in->oci_revision));
	else /* Flux sets it on every attempt: "" (left out) for a source without one */
		json_object_del(c.st, "lastAttemptedRevisionDigest");
	json_object_set_new(c.st, "lastAttemptedConfigDigest", json_string(c.cdigest));
	json_object_del(c.st, "lastAttemptedValuesChecksum");
	if ((rc = target_changed(&c, &e)) == 0)
		rc = atomic_release(&c, &e);
	if (rc < 0)
		logf_(&c, "reconcile failed: %s", e.msg);
out:
	*result = result_build(&c, in->deleting);
	json_decref(c.st);
	json_decref(c.events);
	json_decref(c.values);
	postrender_free(c.pr);
	chart_free(c.loaded);
	hr_model_free(model);
	if (!*result)
		return bh_error_set(err, BH_ENOMEM, "out of memory building the result");
	return 0;
}
