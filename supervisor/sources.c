/* supervisor/sources.c — see sources.h. */
#include "supervisor/sources.h"
#include "supervisor/hrent.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fetcher/cosign.h"
#include "kube/curl.h"
#include "supervisor/acl.h"
#include "supervisor/artcache.h"
#include "supervisor/artifact.h"
#include "supervisor/hccache.h"
#include "supervisor/log.h"
#include "supervisor/loopwatch.h"
#include "supervisor/source.h"
#include "supervisor/status.h"

const kube_resource sv_helmrepository_resource = {"source.toolkit.fluxcd.io", "v1", "helmrepositories",
						   "HelmRepository", 1};
const kube_resource sv_ocirepository_resource = {"source.toolkit.fluxcd.io", "v1", "ocirepositories",
						  "OCIRepository", 1};
static const kube_resource secret_resource = {"", "v1", "secrets", "Secret", 1};
static const kube_resource serviceaccount_resource = {"", "v1", "serviceaccounts", "ServiceAccount", 1};

#define COSIGN_KEYS_MAX 64 /* public keys of one .spec.verify.secretRef */
#define FAIL_RETRY 10.0 /* seconds before a failed object is tried again (at most its interval) */
#define CTRL "source-controller"

enum { K_REPO = 0, K_CHART = 1, K_OCI = 2, K_N };
static const char *const kind_names[K_N] = {"HelmRepository", "HelmChart", "OCIRepository"};
static const kube_resource *const kind_res[K_N] = {&sv_helmrepository_resource, &sv_helmchart_resource,
						   &sv_ocirepository_resource};

typedef struct obj {
	int chart;        /* K_REPO, K_CHART, K_OCI */
	char ns[254], name[254];
	json_t *o;
	double due;
	json_int_t handled_gen;
	char handled_req[64];
	int busy, gone;
	int again;        /* due again as soon as the reconcile under way ends */
} obj;

static struct {
	sources_opts o;
	fetchcl_opts fetch;
	char deny[300];
	pthread_mutex_t mu;
	pthread_cond_t cv;
	obj *objs;
	size_t n;
} S = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *str(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(o, a);
	return json_string_value(b ? json_object_get(v, b) : v);
}

static obj *find(int chart, const char *ns, const char *name)
{
	for (size_t i = 0; i < S.n; i++)
		if (S.objs[i].chart == chart && !strcmp(S.objs[i].ns, ns) && !strcmp(S.objs[i].name, name))
			return &S.objs[i];
	return NULL;
}

/* The HelmCharts of the repository ns/name look again at once (its index
 * changed). Under S.mu. */
static void charts_due(const char *ns, const char *name)
{
	for (size_t i = 0; i < S.n; i++) {
		const char *rn = str(json_object_get(S.objs[i].o, "spec"), "sourceRef", "name");
		if (S.objs[i].chart == K_CHART && !strcmp(S.objs[i].ns, ns) && rn && !strcmp(rn, name)) {
			S.objs[i].due = 0;
			S.objs[i].again = S.objs[i].busy; /* it may have read the old index */
		}
	}
}

static const char *artifact_digest(const json_t *o)
{
	return str(json_object_get(o, "status"), "artifact", "digest");
}

/* ---- watches ------------------------------------------------------------------ */
static void upsert(int chart, json_t *o)
{
	const char *ns = str(o, "metadata", "namespace"), *name = str(o, "metadata", "name");
	const char *was, *now;
	obj *x;
	if (!ns || !name)
		return;
	if (!(x = find(chart, ns, name))) {
		obj *no = realloc(S.objs, (S.n + 1) * sizeof *S.objs);
		if (!no)
			return;
		S.objs = no;
		x = &S.objs[S.n++];
		memset(x, 0, sizeof *x);
		x->chart = chart;
		x->handled_gen = -1;
		snprintf(x->ns, sizeof x->ns, "%s", ns);
		snprintf(x->name, sizeof x->name, "%s", name);
	}
	/* a repository's new index reaches its charts once they can see it:
	 * reconcile_main's look-again right after the reconcile that wrote it
	 * may run before this event brings the status here */
	was = artifact_digest(x->o);
	now = artifact_digest(o);
	int moved = now && (!was || strcmp(was, now) != 0);
	if (chart == K_REPO && moved)
		charts_due(ns, name);
	json_decref(x->o);
	x->o = json_incref(o);
	x->gone = 0;
	/* a chart's new artifact starts its HelmReleases once the caches they
	 * read it from hold it (hccache_event ran before this), as for
	 * external sources: kicked from the reconcile that wrote it, a release
	 * could look before the event came, find nothing new and wait its
	 * interval */
	if (chart != K_REPO && moved && S.o.on_artifact)
		S.o.on_artifact(chart == K_CHART ? "HelmChart" : "OCIRepository", ns, name);
}

static void forget(obj *x)
{
	if (x->busy) {
		x->gone = 1;
		return;
	}
	json_decref(x->o);
	*x = S.objs[--S.n];
}

typedef struct wctx {
	int chart;
	const kube_resource *res;
} wctx;

static int on_event(void *ud, kube_watch_type t, json_t *o)
{
	const wctx *w = ud;
	size_t i;
	json_t *it;
	if (w->chart)
		hccache_event(t, o);
	pthread_mutex_lock(&S.mu);
	if (t == KUBE_WATCH_ADDED || t == KUBE_WATCH_MODIFIED) {
		upsert(w->chart, o);
	} else if (t == KUBE_WATCH_DELETED) {
		obj *x = find(w->chart, str(o, "metadata", "namespace") ? str(o, "metadata", "namespace") : "",
			      str(o, "metadata", "name") ? str(o, "metadata", "name") : "");
		if (x)
			forget(x);
	} else if (t == KUBE_WATCH_RELIST) {
		for (size_t k = 0; k < S.n;) {
			int found = 0;
			if (S.objs[k].chart != w->chart) {
				k++;
				continue;
			}
			json_array_foreach(json_object_get(o, "items"), i, it) if (
				!strcmp(str(it, "metadata", "namespace") ? str(it, "metadata", "namespace") : "", S.objs[k].ns) &&
				!strcmp(str(it, "metadata", "name") ? str(it, "metadata", "name") : "", S.objs[k].name)) found = 1;
			if (!found && !S.objs[k].busy) {
				forget(&S.objs[k]);
				continue;
			}
			k++;
		}
		json_array_foreach(json_object_get(o, "items"), i, it) upsert(w->chart, it);
	}
	pthread_cond_broadcast(&S.cv);
	pthread_mutex_unlock(&S.mu);
	return 0;
}

/* ---- supported fields ---------------------------------------------------------- */
int sources_check_repository(const json_t *repo, bh_error *err)
{
	const json_t *spec = json_object_get(repo, "spec");
	const char *type = str(spec, "type", NULL), *prov = str(spec, "provider", NULL);
	int oci = type && !strcmp(type, "oci");
	if (type && *type && strcmp(type, "default") != 0 && !oci)
		return bh_error_set(err, BH_EINVAL, ".spec.type '%s' is not supported (only 'default' and 'oci')", type);
	if (prov && *prov && strcmp(prov, "generic") != 0)
		return bh_error_set(err, BH_EINVAL, ".spec.provider '%s' is not supported by bulkhead's built-in sources "
				    "(only 'generic')", prov);
	if (!str(spec, "url", NULL) || !*str(spec, "url", NULL))
		return bh_error_set(err, BH_EINVAL, ".spec.url is required");
	if (oci && strncmp(str(spec, "url", NULL), "oci://", 6) != 0)
		return bh_error_set(err, BH_EINVAL, ".spec.url '%s' must be an oci:// URL (.spec.type is 'oci')",
				    str(spec, "url", NULL));
	if (!oci && strncmp(str(spec, "url", NULL), "http://", 7) != 0 && strncmp(str(spec, "url", NULL), "https://", 8) != 0)
		return bh_error_set(err, BH_EINVAL, ".spec.url '%s' must be an http:// or https:// URL", str(spec, "url", NULL));
	return 0;
}

static int repo_is_oci(const json_t *repo)
{
	const char *t = str(json_object_get(repo, "spec"), "type", NULL);
	return t && !strcmp(t, "oci");
}

/* spec[key] (at path, for messages): NULL when absent, null or "" (Go's
 * omitempty), else a string of at most max bytes. */
static int opt_string(const json_t *obj, const char *key, const char *path, size_t max, const char **out,
		      bh_error *err)
{
	const json_t *v = json_object_get(obj, key);
	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return bh_error_set(err, BH_EINVAL, "%s must be a string", path);
	if (json_string_length(v) > max)
		return bh_error_set(err, BH_EINVAL, "%s is longer than %zu bytes", path, max);
	if (json_string_length(v) > 0)
		*out = json_string_value(v);
	return 0;
}

/* A LocalObjectReference's name (obj[key].name, obj at path parent), or NULL. */
static int opt_ref(const json_t *spec, const char *parent, const char *key, const char **out, bh_error *err)
{
	char path[96];
	snprintf(path, sizeof path, "%s.%s.name", parent, key);
	*out = NULL;
	if (json_object_get(spec, key) && !json_is_null(json_object_get(spec, key)) &&
	    !json_is_object(json_object_get(spec, key)))
		return bh_error_set(err, BH_EINVAL, "%s.%s must be an object with a name", parent, key);
	return opt_string(json_object_get(spec, key), "name", path, 253, out, err);
}

int sources_oci_decode(const json_t *o, sources_oci_spec *s, bh_error *err)
{
	const json_t *spec = json_object_get(o, "spec"), *ref = json_object_get(spec, "ref");
	const json_t *ls = json_object_get(spec, "layerSelector");
	static const char *const refused[] = {"ignore"};
	const char *prov;
	int rc;
	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
		if (json_object_get(spec, refused[i]) && !json_is_null(json_object_get(spec, refused[i])))
			return bh_error_set(err, BH_EINVAL, ".spec.%s is not supported by bulkhead's built-in sources", refused[i]);
	if ((rc = opt_string(spec, "provider", ".spec.provider", 64, &prov, err)) < 0 ||
	    (rc = opt_string(spec, "url", ".spec.url", 4096, &s->url, err)) < 0 ||
	    (rc = opt_string(ref, "digest", ".spec.ref.digest", 200, &s->digest, err)) < 0 ||
	    (rc = opt_string(ref, "semver", ".spec.ref.semver", 1024, &s->semver, err)) < 0 ||
	    (rc = opt_string(ref, "semverFilter", ".spec.ref.semverFilter", 1024, &s->semver_filter, err)) < 0 ||
	    (rc = opt_string(ref, "tag", ".spec.ref.tag", 128, &s->tag, err)) < 0 ||
	    (rc = opt_string(ls, "mediaType", ".spec.layerSelector.mediaType", 255, &s->media_type, err)) < 0 ||
	    (rc = opt_string(ls, "operation", ".spec.layerSelector.operation", 16, &s->operation, err)) < 0 ||
	    (rc = opt_string(spec, "serviceAccountName", ".spec.serviceAccountName", 253, &s->service_account, err)) < 0 ||
	    (rc = opt_ref(spec, ".spec", "secretRef", &s->secret_ref, err)) < 0 ||
	    (rc = opt_ref(spec, ".spec", "certSecretRef", &s->cert_secret_ref, err)) < 0 ||
	    (rc = opt_ref(spec, ".spec", "proxySecretRef", &s->proxy_secret_ref, err)) < 0)
		return rc;
	if (prov && strcmp(prov, "generic") != 0)
		return bh_error_set(err, BH_EINVAL, ".spec.provider '%s' is not supported by bulkhead's built-in sources "
				    "(only 'generic')", prov);
	if (s->operation && strcmp(s->operation, "extract") != 0 && strcmp(s->operation, "copy") != 0)
		return bh_error_set(err, BH_EINVAL, ".spec.layerSelector.operation '%s' is invalid (extract or copy)",
				    s->operation);
	if (!s->operation)
		s->operation = "extract";
	if (!s->url || strncmp(s->url, "oci://", 6) != 0)
		return bh_error_set(err, BH_EINVAL, ".spec.url '%s' must be an oci:// URL", s->url ? s->url : "");
	if (s->service_account && (rc = acl_check_sa_name(s->service_account, ".spec.serviceAccountName", err)) < 0)
		return rc;
	s->verify = json_object_get(spec, "verify") && !json_is_null(json_object_get(spec, "verify"));
	if (s->verify && (rc = sources_verify_decode(json_object_get(spec, "verify"), 1, &s->verify_secret, err)) < 0)
		return rc;
	/* source-controller's precedence: the others are not looked at */
	if (s->digest)
		s->semver = s->semver_filter = s->tag = NULL;
	else if (s->semver)
		s->tag = NULL;
	else
		s->semver_filter = NULL; /* a filter of the semver choice: no semver, nothing to filter */
	s->insecure = json_is_true(json_object_get(spec, "insecure"));
	return 0;
}

int sources_check_oci(const json_t *o, bh_error *err)
{
	sources_oci_spec s;
	return sources_oci_decode(o, &s, err);
}

int sources_verify_decode(const json_t *v, int builtin, const char **secret, bh_error *err)
{
	const json_t *ids = json_object_get(v, "matchOIDCIdentity"), *it;
	const char *prov;
	size_t i;
	int rc;
	*secret = NULL;
	if (!json_is_object(v))
		return bh_error_set(err, BH_EINVAL, ".spec.verify must be an object");
	if ((rc = opt_string(v, "provider", ".spec.verify.provider", 64, &prov, err)) < 0 ||
	    (rc = opt_ref(v, ".spec.verify", "secretRef", secret, err)) < 0)
		return rc;
	if (prov && strcmp(prov, "cosign") != 0 && strcmp(prov, "notation") != 0)
		return bh_error_set(err, BH_EINVAL, ".spec.verify.provider '%s' is invalid (cosign or notation)", prov);
	if (ids && !json_is_null(ids) && !json_is_array(ids))
		return bh_error_set(err, BH_EINVAL, ".spec.verify.matchOIDCIdentity must be a list");
	json_array_foreach(ids, i, it) {
		const char *iss = str(it, "issuer", NULL), *sub = str(it, "subject", NULL);
		if (!iss || !*iss || !sub || !*sub)
			return bh_error_set(err, BH_EINVAL, ".spec.verify.matchOIDCIdentity[%zu]: issuer and subject are required", i);
	}
	if (!builtin)
		return 0;
	if (prov && !strcmp(prov, "notation"))
		return bh_error_set(err, BH_EINVAL, ".spec.verify.provider 'notation' is not supported by bulkhead's built-in "
				    "sources (only 'cosign' with the public keys of .spec.verify.secretRef)");
	if (!*secret)
		return bh_error_set(err, BH_EINVAL, ".spec.verify without .spec.verify.secretRef (cosign keyless "
				    "verification, which needs Sigstore's public Fulcio and Rekor online) is not supported by "
				    "bulkhead's built-in sources: give the public keys in .spec.verify.secretRef");
	if (json_object_get(v, "trustedRootSecretRef") && !json_is_null(json_object_get(v, "trustedRootSecretRef")))
		return bh_error_set(err, BH_EINVAL, ".spec.verify.trustedRootSecretRef (keyless verification) is not "
				    "supported by bulkhead's built-in sources");
	return 0;
}

int sources_check_chart(const json_t *chart, bh_error *err)
{
	const json_t *spec = json_object_get(chart, "spec");
	const char *kind = str(spec, "sourceRef", "kind"), *secret;
	int rc;
	if (json_object_get(spec, "verify") && !json_is_null(json_object_get(spec, "verify")) &&
	    (rc = sources_verify_decode(json_object_get(spec, "verify"), 0, &secret, err)) < 0)
		return rc;
	const json_t *vf = json_object_get(spec, "valuesFiles");
	size_t i;
	json_t *it;
	if (vf && !json_is_array(vf))
		return bh_error_set(err, BH_EINVAL, ".spec.valuesFiles must be a list of paths");
	json_array_foreach(vf, i, it) if (!json_is_string(it) || !*json_string_value(it) || json_string_length(it) > 1024)
		return bh_error_set(err, BH_EINVAL, ".spec.valuesFiles[%zu] must be a path inside the chart", i);
	if (json_array_size(vf) > 256)
		return bh_error_set(err, BH_EINVAL, ".spec.valuesFiles: at most 256 files");
	if (str(spec, "valuesFile", NULL))
		return bh_error_set(err, BH_EINVAL, ".spec.valuesFile (v1beta2, deprecated) is not supported by bulkhead's "
				    "built-in sources: list it in .spec.valuesFiles");
	if (!kind || strcmp(kind, "HelmRepository") != 0)
		return bh_error_set(err, BH_EINVAL, ".spec.sourceRef.kind '%s' is not supported by bulkhead's built-in "
				    "sources yet (only HelmRepository)", kind ? kind : "");
	if (!str(spec, "chart", NULL) || !*str(spec, "chart", NULL))
		return bh_error_set(err, BH_EINVAL, ".spec.chart is required");
	return 0;
}

/* ---- status ------------------------------------------------------------------------ */
static void rfc3339(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Sets condition type (status NULL removes it), keeping lastTransitionTime
 * while the status does not change. */
static void cond_set(json_t *conds, const char *type, const char *status, const char *reason, const char *msg,
		     json_int_t gen, const char *now)
{
	size_t i;
	json_t *c;
	json_array_foreach(conds, i, c) if (!strcmp(str(c, "type", NULL) ? str(c, "type", NULL) : "", type)) {
		const char *old = str(c, "status", NULL), *ltt = str(c, "lastTransitionTime", NULL);
		json_t *nc;
		if (!status) {
			json_array_remove(conds, i);
			return;
		}
		nc = json_pack("{s:s,s:s,s:I,s:s,s:s,s:s}", "type", type, "status", status, "observedGeneration", gen,
			       "lastTransitionTime", old && ltt && !strcmp(old, status) ? ltt : now, "reason", reason,
			       "message", msg);
		json_array_set_new(conds, i, nc);
		return;
	}
	if (status)
		json_array_append_new(conds, json_pack("{s:s,s:s,s:I,s:s,s:s,s:s}", "type", type, "status", status,
						       "observedGeneration", gen, "lastTransitionTime", now, "reason",
						       reason, "message", msg));
}

/* What the fetcher reports verified, checked again here (the fetcher faces
 * the registry): the signature with the key it names, over a payload that
 * claims the manifest's digest, the artifact (artifact_digest, unless NULL)
 * a layer of that manifest, the revision (unless NULL) ending with the
 * manifest's digest. 0, or -1 with msg (source-controller's words). */
static int recheck_verified(const proto_fetch_request *rq, const proto_fetch_result *r, const char *artifact_digest,
			    const char *revision, char *msg, size_t mn)
{
	char md[72] = "";
	bh_error e;
	size_t rl = revision ? strlen(revision) : 0;
	memset(&e, 0, sizeof e);
	if (!r->sig_manifest || !r->sig_payload || !r->sig_signature || r->sig_key < 0 ||
	    (size_t)r->sig_key >= rq->cosign_keys.n)
		bh_error_set(&e, BH_EPROTO, "the fetcher reported a verified signature without its evidence");
	else if (cosign_check_evidence(rq->cosign_keys.v[r->sig_key], r->sig_manifest, r->sig_payload, r->sig_signature,
				       artifact_digest, md, &e) == 0 &&
		 (!revision || (rl >= 71 && !strcmp(revision + rl - 71, md))))
		return 0;
	else if (e.code == BH_OK || !e.msg[0])
		bh_error_set(&e, BH_EPROTO, "the revision %s is not the signed manifest %s", revision, md);
	snprintf(msg, mn, "failed to verify the signature using provider 'cosign': bulkhead's check of the "
		 "fetcher's verification failed: %.900s", e.msg);
	return -1;
}

static int is_verification_error(const char *reason)
{
	return !strcmp(reason, "VerificationError") || !strcmp(reason, "ChartVerificationError");
}

/* SourceVerified as source-controller keeps it: gone without .spec.verify;
 * False (VerificationError) when the verification failed; True with
 * verified (the message) when it succeeded now; a False one from before
 * is dropped (it is recalculated), a True one kept. */
static void verified_cond(json_t *conds, const json_t *o, int ok, const char *reason, const char *msg,
			  const char *verified, json_int_t gen, const char *now)
{
	const json_t *v = json_object_get(json_object_get(o, "spec"), "verify");
	size_t i;
	json_t *c;
	if (!v || json_is_null(v))
		cond_set(conds, "SourceVerified", NULL, "", "", gen, now);
	else if (!ok && is_verification_error(reason))
		cond_set(conds, "SourceVerified", "False", "VerificationError", msg, gen, now);
	else if (ok && verified)
		cond_set(conds, "SourceVerified", "True", "Succeeded", verified, gen, now);
	else
		json_array_foreach(conds, i, c) if (!strcmp(str(c, "type", NULL) ? str(c, "type", NULL) : "", "SourceVerified") &&
						    !strcmp(str(c, "status", NULL) ? str(c, "status", NULL) : "", "False")) {
			json_array_remove(conds, i);
			break;
		}
}

/* Writes st (merge patch of .status) and the Ready condition from
 * ok/reason/msg (and SourceVerified, verified_cond). */
static void write_status_v(kube_client *kc, const obj *x, json_t *st, int ok, const char *reason, const char *msg,
			   const char *verified)
{
	const json_t *o = x->o;
	json_int_t gen = flux_generation(o);
	json_t *conds = json_deep_copy(json_object_get(json_object_get(o, "status"), "conditions")), *patch, *out = NULL;
	const char *req;
	kube_write_opts wo = {CTRL, 0, 0, "status"};
	char now[32], *text;
	bh_error e;
	int build;
	rfc3339(now, sizeof now);
	if (!json_is_array(conds)) {
		json_decref(conds);
		conds = json_array();
	}
	cond_set(conds, "Ready", ok ? "True" : "False", reason, msg, gen, now);
	/* source-controller: a build error, not a fetch error */
	build = !ok && (!strcmp(reason, "ValuesFilesError") || !strcmp(reason, "ChartVerificationError"));
	/* an OCIRepository's failed verification, or a HelmChart's verifier
	 * that could not be made: SourceVerified alone */
	cond_set(conds, "FetchFailed", ok || build || !strcmp(reason, "VerificationError") ? NULL : "True", reason, msg,
		 gen, now);
	verified_cond(conds, o, ok, reason, msg, verified, gen, now);
	cond_set(conds, "BuildFailed", build ? "True" : NULL, reason, msg, gen, now);
	cond_set(conds, "Reconciling", NULL, "", "", gen, now);
	cond_set(conds, "Stalled", NULL, "", "", gen, now);
	json_object_set_new(st, "conditions", conds);
	json_object_set_new(st, "observedGeneration", json_integer(gen));
	req = flux_requested_at(o);
	if (req)
		json_object_set_new(st, "lastHandledReconcileAt", json_string(req));
	patch = json_pack("{s:o}", "status", st);
	text = json_dumps(patch, JSON_COMPACT);
	json_decref(patch);
	if (text && kube_patch(kc, kind_res[x->chart], x->ns, x->name,
			       KUBE_PATCH_MERGE, text, &wo, &out, &e) < 0)
		svlog(SVLOG_ERROR, "sources: %s/%s: writing status: %s", x->ns, x->name, e.msg);
	free(text);
	json_decref(out);
}

static void write_status(kube_client *kc, const obj *x, json_t *st, int ok, const char *reason, const char *msg)
{
	write_status_v(kc, x, st, ok, reason, msg, NULL);
}

/* ---- credentials ------------------------------------------------------------------- */
static char *b64_value(const json_t *data, const char *key)
{
	const char *s = str(data, key, NULL);
	size_t n, pad = 0;
	unsigned char *out;
	int r;
	if (!s)
		return NULL;
	n = strlen(s);
	if (n % 4 || !(out = malloc(n / 4 * 3 + 1)))
		return NULL;
	if ((r = EVP_DecodeBlock(out, (const unsigned char *)s, (int)n)) < 0) {
		free(out);
		return NULL;
	}
	while (pad < 2 && n > pad && s[n - 1 - pad] == '=')
		pad++;
	out[r - (int)pad] = '\0';
	return (char *)out;
}

/* Fills rq's credentials from the source's secretRef (a docker config
 * .dockerconfigjson, or username and password; certFile/keyFile/caFile)
 * and certSecretRef (tls.crt, tls.key, ca.crt), read with the controller's
 * identity. */
static int load_credentials(kube_client *kc, const char *ns, const char *secret_ref, const char *cert_secret_ref,
			    proto_fetch_request *rq, bh_error *err)
{
	const char *refs[2] = {secret_ref, cert_secret_ref};
	for (int i = 0; i < 2; i++) {
		json_t *sec = NULL, *data;
		int rc;
		if (!refs[i])
			continue;
		if ((rc = kube_get(kc, &secret_resource, ns, refs[i], NULL, &sec, err)) < 0)
			return bh_error_prefix(err, "failed to get secret '%s/%s'", ns, refs[i]);
		data = json_object_get(sec, "data");
		if (i == 0 && str(data, ".dockerconfigjson", NULL)) {
			if (!(rq->docker_config = b64_value(data, ".dockerconfigjson"))) {
				json_decref(sec);
				return bh_error_set(err, BH_EINVAL, "secret '%s/%s': .dockerconfigjson is not base64", ns, refs[i]);
			}
		} else if (i == 0) {
			rq->username = b64_value(data, "username");
			rq->password = b64_value(data, "password");
			if (!!rq->username != !!rq->password) {
				json_decref(sec);
				return bh_error_set(err, BH_EINVAL, "secret '%s/%s': username and password are both required "
						    "for basic auth", ns, refs[i]);
			}
		}
		if (!rq->cert_pem)
			rq->cert_pem = b64_value(data, i ? "tls.crt" : "certFile");
		if (!rq->key_pem)
			rq->key_pem = b64_value(data, i ? "tls.key" : "keyFile");
		if (!rq->ca_pem)
			rq->ca_pem = b64_value(data, i ? "ca.crt" : "caFile");
		json_decref(sec);
	}
	return 0;
}

#define MAX_PULL_SECRETS 64

/* The docker config a pull secret holds, as Kubernetes' keychain reads
 * it: .dockerconfigjson of a kubernetes.io/dockerconfigjson Secret, or
 * .dockercfg (the "auths" map alone) of a kubernetes.io/dockercfg one.
 * *cfg is NULL for another Secret (it holds none). */
static int pull_secret_config(const json_t *sec, const char *ns, char **cfg, bh_error *err)
{
	const char *type = str(sec, "type", NULL), *name = str(sec, "metadata", "name");
	const json_t *data = json_object_get(sec, "data");
	int json = type && !strcmp(type, "kubernetes.io/dockerconfigjson") && str(data, ".dockerconfigjson", NULL);
	int legacy = type && !strcmp(type, "kubernetes.io/dockercfg") && str(data, ".dockercfg", NULL);
	char *raw;
	*cfg = NULL;
	if (!json && !legacy)
		return 0;
	if (!(raw = b64_value(data, json ? ".dockerconfigjson" : ".dockercfg")))
		return bh_error_set(err, BH_EINVAL, "secret '%s/%s': %s is not base64", ns, name ? name : "",
				    json ? ".dockerconfigjson" : ".dockercfg");
	if (json) {
		*cfg = raw;
		return 0;
	}
	if (asprintf(cfg, "{\"auths\":%s}", raw) < 0)
		*cfg = NULL;
	explicit_bzero(raw, strlen(raw));
	free(raw);
	return *cfg ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory");
}

/* .spec.serviceAccountName: the docker configs of the ServiceAccount's
 * imagePullSecrets (in the object's namespace), in their order, into
 * rq->pull_secret_configs, as source-controller: a missing ServiceAccount
 * or Secret fails the fetch. */
static int load_pull_secrets(kube_client *kc, const char *ns, const char *sa, proto_fetch_request *rq,
			     bh_error *err)
{
	json_t *acct = NULL, *it;
	const json_t *list;
	size_t i;
	int rc = kube_get(kc, &serviceaccount_resource, ns, sa, NULL, &acct, err);
	if (rc == BH_ENOTFOUND)
		return bh_error_set(err, BH_ENOTFOUND, "serviceaccount '%s/%s' not found", ns, sa);
	if (rc < 0)
		return bh_error_prefix(err, "failed to get serviceaccount '%s/%s'", ns, sa);
	list = json_object_get(acct, "imagePullSecrets");
	if (json_array_size(list) > MAX_PULL_SECRETS)
		rc = bh_error_set(err, BH_ELIMIT, "serviceaccount '%s/%s': more than %d imagePullSecrets", ns, sa,
				  MAX_PULL_SECRETS);
	else if (!(rq->pull_secret_configs.v = calloc(json_array_size(list) + 1, sizeof(char *))))
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
	json_array_foreach(list, i, it) {
		const char *name = str(it, "name", NULL);
		json_t *sec = NULL;
		char *cfg = NULL;
		if (rc < 0)
			break;
		if (!name || !*name)
			continue;
		if ((rc = kube_get(kc, &secret_resource, ns, name, NULL, &sec, err)) < 0)
			bh_error_prefix(err, "failed to get image pull secret for serviceaccount '%s/%s'", ns, sa);
		else if ((rc = pull_secret_config(sec, ns, &cfg, err)) == 0 && cfg)
			rq->pull_secret_configs.v[rq->pull_secret_configs.n++] = cfg;
		json_decref(sec);
	}
	json_decref(acct);
	return rc;
}

/* .spec.proxySecretRef: the proxy's address (an http or https URL) and
 * its optional username and password, as source-controller reads them. */
static int load_proxy(kube_client *kc, const char *ns, const char *name, proto_fetch_request *rq, bh_error *err)
{
	json_t *sec = NULL;
	const json_t *data;
	const char *a;
	int rc;
	if ((rc = kube_get(kc, &secret_resource, ns, name, NULL, &sec, err)) < 0)
		return bh_error_prefix(err, "failed to get proxy address: failed to get secret '%s/%s'", ns, name);
	data = json_object_get(sec, "data");
	if (!str(data, "address", NULL))
		rc = bh_error_set(err, BH_EINVAL, "failed to get proxy address: secret '%s/%s': key 'address' not found",
				  ns, name);
	else if (!(rq->proxy_url = b64_value(data, "address")))
		rc = bh_error_set(err, BH_EINVAL, "failed to get proxy address: secret '%s/%s': address is not base64",
				  ns, name);
	if (rc == 0) {
		a = rq->proxy_url;
		if (!*a)
			rc = bh_error_set(err, BH_EINVAL, "failed to get proxy address: secret '%s/%s': proxy address is "
					  "empty", ns, name);
		else if (strlen(a) > 2048)
			rc = bh_error_set(err, BH_EINVAL, "failed to get proxy address: secret '%s/%s': proxy URL exceeds "
					  "maximum length of 2048 characters", ns, name);
		else if (strncmp(a, "http://", 7) != 0 && strncmp(a, "https://", 8) != 0)
			rc = bh_error_set(err, BH_EINVAL, "failed to get proxy address: secret '%s/%s': proxy URL must use "
					  "http or https scheme, got '%.*s'", ns, name, (int)strcspn(a, ":"), a);
		else if (a[strcspn(a, " \t\r\n")])
			rc = bh_error_set(err, BH_EINVAL, "failed to get proxy address: secret '%s/%s': the proxy address "
					  "holds a space or a line break", ns, name);
	}
	/* a password without a username is not used (as Go's url.User) */
	if (rc == 0 && (rq->proxy_username = b64_value(data, "username")))
		rq->proxy_password = b64_value(data, "password");
	json_decref(sec);
	return rc;
}

/* .spec.verify.secretRef: its public keys (every data key ending in
 * ".pub", in key order) into rq->cosign_keys, as source-controller reads
 * them. The error is the Secret's (not found: as the API client words it). */
static int load_cosign_keys(kube_client *kc, const char *ns, const char *name, proto_fetch_request *rq, bh_error *err)
{
	json_t *sec = NULL, *v;
	const json_t *data;
	const char *k;
	int rc = kube_get(kc, &secret_resource, ns, name, NULL, &sec, err);
	if (rc == BH_ENOTFOUND)
		return bh_error_set(err, BH_ENOTFOUND, "secrets \"%s\" not found", name);
	if (rc < 0)
		return rc;
	data = json_object_get(sec, "data");
	if (!(rq->cosign_keys.v = calloc(json_object_size(data) + 1, sizeof(char *))))
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
	json_object_foreach((json_t *)data, k, v) {
		size_t kl = strlen(k);
		char *pem;
		if (rc < 0 || kl < 4 || strcmp(k + kl - 4, ".pub") != 0)
			continue;
		if (rq->cosign_keys.n == COSIGN_KEYS_MAX)
			rc = bh_error_set(err, BH_ELIMIT, "secret '%s/%s' holds more than %d public keys", ns, name, COSIGN_KEYS_MAX);
		else if (!(pem = b64_value(data, k)))
			rc = bh_error_set(err, BH_EINVAL, "secret '%s/%s': %s is not base64", ns, name, k);
		else
			rq->cosign_keys.v[rq->cosign_keys.n++] = pem;
	}
	json_decref(sec);
	return rc;
}

static void free_credentials(proto_fetch_request *rq)
{
	char **p[] = {&rq->username, &rq->password, &rq->cert_pem, &rq->key_pem, &rq->ca_pem, &rq->docker_config,
		      &rq->proxy_url, &rq->proxy_username, &rq->proxy_password};
	for (size_t i = 0; i < sizeof p / sizeof *p; i++) {
		if (*p[i])
			explicit_bzero(*p[i], strlen(*p[i]));
		free(*p[i]);
		*p[i] = NULL;
	}
	for (size_t i = 0; i < rq->pull_secret_configs.n; i++) {
		explicit_bzero(rq->pull_secret_configs.v[i], strlen(rq->pull_secret_configs.v[i]));
		free(rq->pull_secret_configs.v[i]);
	}
	free(rq->pull_secret_configs.v);
	rq->pull_secret_configs.v = NULL;
	rq->pull_secret_configs.n = 0;
}

/* the public keys stay until the fetcher's verification is checked again */
static void free_cosign_keys(proto_fetch_request *rq)
{
	for (size_t i = 0; i < rq->cosign_keys.n; i++)
		free(rq->cosign_keys.v[i]);
	free(rq->cosign_keys.v);
	rq->cosign_keys.v = NULL;
	rq->cosign_keys.n = 0;
}

static double interval_of(const json_t *o)
{
	double d = source_parse_duration(str(json_object_get(o, "spec"), "interval", NULL));
	return d > 0 ? d : 600;
}

/* ---- reconcile ----------------------------------------------------------------------- */
static json_t *artifact_json(const char *kind, const obj *x, const char *file, const char *rev,
			     const proto_fetch_result *r, json_int_t size)
{
	char path[1200], url[1300], now[32];
	rfc3339(now, sizeof now);
	snprintf(path, sizeof path, "%s/%s/%s/%s", kind, x->ns, x->name, file);
	snprintf(url, sizeof url, "bulkhead://artifacts/%s", path);
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:I}", "path", path, "url", url, "revision", rev, "digest", r->digest,
			 "lastUpdateTime", now, "size", size);
}

/* An OCIRepository's credentials beyond load_credentials': its
 * ServiceAccount's pull secrets and its proxy. */
static int load_oci_extras(kube_client *kc, const obj *x, const sources_oci_spec *oci, proto_fetch_request *rq,
			   bh_error *err)
{
	int rc = 0;
	if (oci->service_account && (rc = load_pull_secrets(kc, x->ns, oci->service_account, rq, err)) < 0)
		return bh_error_prefix(err, "failed to get credential");
	if (oci->proxy_secret_ref)
		rc = load_proxy(kc, x->ns, oci->proxy_secret_ref, rq, err);
	return rc;
}

/* Fills the request's repository settings and credentials (from oci, an
 * OCIRepository's decoded spec, else from repo's), runs it in a fetcher
 * and, when it fails, writes the failure to x's status. 0 when r->ok
 * (then *fd may hold the artifact), else -1. */
static int run_fetch(kube_client *kc, const obj *x, const json_t *repo, const sources_oci_spec *oci,
		     proto_fetch_request *rq, proto_fetch_result *r, int *fd)
{
	const json_t *rspec = json_object_get(repo, "spec");
	double timeout = source_parse_duration(str(rspec, "timeout", NULL));
	fetchcl_opts fo = S.fetch;
	char label[600];
	bh_error e;
	int rc = -1;
	const char *secret = oci ? oci->secret_ref : str(rspec, "secretRef", "name");
	const char *cert = oci ? oci->cert_secret_ref : str(rspec, "certSecretRef", "name");
	rq->url = (char *)(oci ? oci->url : str(rspec, "url", NULL));
	rq->pass_credentials = json_is_true(json_object_get(rspec, "passCredentials"));
	/* .spec.insecure (OCI only): a registry over plain HTTP */
	rq->plain_http = oci ? oci->insecure
			     : !strncmp(rq->url ? rq->url : "", "oci://", 6) && json_is_true(json_object_get(rspec, "insecure"));
	rq->timeout_ms = (long long)((timeout > 0 ? timeout : 60) * 1000);
	snprintf(label, sizeof label, "%s/%s/%s", kind_names[x->chart], x->ns, x->name);
	fo.label = label;
	if (load_credentials(kc, str(repo, "metadata", "namespace"), secret, cert, rq, &e) < 0 ||
	    (oci && load_oci_extras(kc, x, oci, rq, &e) < 0))
		write_status(kc, x, json_object(), 0, "AuthenticationFailed", e.msg);
	else if (fetchcl_run(&fo, rq, r, fd, &e) < 0)
		write_status(kc, x, json_object(), 0, "FetcherFailed", e.msg);
	else if (!r->ok)
		write_status(kc, x, json_object(), 0, r->reason, r->message);
	else
		rc = 0;
	free_credentials(rq);
	return rc;
}

/* Returns 1 when the repository's index revision changed, 0 when not, -1 on failure. */
static int reconcile_repository(kube_client *kc, const obj *x)
{
	proto_fetch_request rq = {0};
	proto_fetch_result r = {0};
	const char *old = str(json_object_get(json_object_get(x->o, "status"), "artifact"), "revision", NULL);
	char file[100], msg[200];
	bh_error e;
	int fd = -1, changed = -1;
	if (sources_check_repository(x->o, &e) < 0) {
		write_status(kc, x, json_object(), 0, "UnsupportedSpec", e.msg);
		return -1;
	}
	rq.op = FETCH_OP_INDEX;
	if (run_fetch(kc, x, x->o, NULL, &rq, &r, &fd) == 0) {
		json_t *st = json_object();
		snprintf(file, sizeof file, "index-%.64s.yaml", r.digest + 7);
		json_object_set_new(st, "artifact", artifact_json("helmrepository", x, file, r.revision, &r, r.size));
		json_object_set_new(st, "url", json_string(str(json_object_get(st, "artifact"), "url", NULL)));
		snprintf(msg, sizeof msg, "stored artifact: revision '%s'", r.revision);
		write_status(kc, x, st, 1, "Succeeded", msg);
		changed = !old || strcmp(old, r.revision) != 0;
	}
	if (fd >= 0)
		close(fd);
	proto_fetch_result_free(&r);
	return changed;
}

/* A HelmChart's .spec.verify: for an OCI HelmRepository, the public keys
 * of its secretRef into rq (keyless and notation refused by name); for an
 * HTTP one, nothing (the fetcher fails as source-controller's
 * ChartRepository.VerifyChart does). 0, or -1 with the failure written. */
static int chart_verify_setup(kube_client *kc, const obj *x, const json_t *repo, proto_fetch_request *rq)
{
	const char *secret;
	char msg[1200];
	bh_error e;
	rq->verify = 1;
	if (!repo_is_oci(repo))
		return 0;
	if (sources_verify_decode(json_object_get(json_object_get(x->o, "spec"), "verify"), 1, &secret, &e) < 0) {
		write_status(kc, x, json_object(), 0, "UnsupportedSpec", e.msg);
		return -1;
	}
	if (load_cosign_keys(kc, x->ns, secret, rq, &e) == 0 && rq->cosign_keys.n == 0)
		bh_error_set(&e, BH_ENOTFOUND, "no public keys found in secret '%s/%s'", x->ns, secret);
	if (rq->cosign_keys.n == 0) {
		free_cosign_keys(rq);
		snprintf(msg, sizeof msg, "failed to verify the signature using provider 'cosign': %.1000s", e.msg);
		write_status(kc, x, json_object(), 0, "VerificationError", msg);
		return -1;
	}
	return 0;
}

/* 0, or -1 on failure. */
static int reconcile_chart(kube_client *kc, const obj *x, json_t *repo)
{
	proto_fetch_request rq = {0};
	proto_fetch_result r = {0};
	const json_t *spec = json_object_get(x->o, "spec");
	const json_t *art = json_object_get(json_object_get(x->o, "status"), "artifact");
	const char *have_digest = str(art, "digest", NULL), *have_rev = str(art, "revision", NULL);
	char file[600], msg[1200], gen[32], *vf[257], vmsg[400];
	bh_error e;
	int fd = -1, rc = -1, verify = json_object_get(spec, "verify") && !json_is_null(json_object_get(spec, "verify"));
	size_t i;
	json_t *it;
	if (sources_check_chart(x->o, &e) < 0) {
		write_status(kc, x, json_object(), 0, "UnsupportedSpec", e.msg);
		return -1;
	}
	if (!repo) {
		snprintf(msg, sizeof msg, "failed to get source: HelmRepository.source.toolkit.fluxcd.io \"%s\" not found",
			 str(spec, "sourceRef", "name"));
		write_status(kc, x, json_object(), 0, "SourceUnavailable", msg);
		return -1;
	}
	if (sources_check_repository(repo, &e) < 0) {
		snprintf(msg, sizeof msg, "HelmRepository '%s': %.1000s", str(spec, "sourceRef", "name"), e.msg);
		write_status(kc, x, json_object(), 0, "UnsupportedSpec", msg);
		return -1;
	}
	if (verify && chart_verify_setup(kc, x, repo, &rq) < 0)
		return -1;
	rq.op = FETCH_OP_CHART;
	rq.chart = (char *)str(spec, "chart", NULL);
	rq.version = (char *)str(spec, "version", NULL);
	json_array_foreach(json_object_get(spec, "valuesFiles"), i, it) vf[rq.values_files.n++] = (char *)json_string_value(it);
	rq.values_files.v = vf;
	rq.ignore_missing_values_files = json_is_true(json_object_get(spec, "ignoreMissingValuesFiles"));
	snprintf(gen, sizeof gen, "%lld",
		 (long long)flux_generation(x->o));
	rq.version_metadata = gen;
	/* with values files the artifact is re-packaged each time (same bytes, same digest) */
	if (!rq.values_files.n && have_digest && artcache_has(have_digest)) {
		rq.have_version = (char *)have_rev;
		rq.have_digest = (char *)have_digest;
	}
	if (run_fetch(kc, x, repo, NULL, &rq, &r, &fd) == 0 && verify && repo_is_oci(repo) &&
	    (!r.verified || recheck_verified(&rq, &r, rq.values_files.n ? NULL : r.digest, NULL, msg, sizeof msg) < 0)) {
		/* the fetcher must have verified it (source-controller verifies a chart every time) */
		write_status(kc, x, json_object(), 0, "VerificationError",
			     r.verified ? msg : "failed to verify the signature using provider 'cosign': the fetcher did "
						"not report a verified signature");
	} else if (r.ok) {
		json_t *st = json_object();
		if (!r.unchanged) {
			artcache_put(r.digest, fd, (size_t)r.size);
			fd = -1;
			snprintf(file, sizeof file, "%s-%s.tgz", r.chart, r.revision);
			json_object_set_new(st, "artifact", artifact_json("helmchart", x, file, r.revision, &r, r.size));
			json_object_set_new(st, "url", json_string(str(json_object_get(st, "artifact"), "url", NULL)));
		}
		json_object_set_new(st, "observedChartName", json_string(r.chart ? r.chart : str(spec, "chart", NULL)));
		if (rq.values_files.n) {
			json_t *ov = json_array();
			for (i = 0; i < r.observed_values_files.n; i++)
				json_array_append_new(ov, json_string(r.observed_values_files.v[i] ? r.observed_values_files.v[i] : ""));
			json_object_set_new(st, "observedValuesFiles", ov);
		} else {
			json_object_set_new(st, "observedValuesFiles", json_null());
		}
		if (str(json_object_get(json_object_get(repo, "status"), "artifact"), "revision", NULL))
			json_object_set_new(st, "observedSourceArtifactRevision",
					    json_string(str(json_object_get(json_object_get(repo, "status"), "artifact"),
							    "revision", NULL)));
		snprintf(msg, sizeof msg, "pulled '%s' chart with version '%s'", r.chart ? r.chart : "", r.revision);
		snprintf(vmsg, sizeof vmsg, "verified signature of version %s", r.revision);
		/* its watch event starts the releases (upsert) */
		write_status_v(kc, x, st, 1, "ChartPullSucceeded", msg, r.verified ? vmsg : NULL);
		rc = 0;
	}
	if (fd >= 0)
		close(fd);
	proto_fetch_result_free(&r);
	free_cosign_keys(&rq);
	return rc;
}

/* An OCIRepository's .spec.verify: the public keys of its secretRef into
 * rq; the revision held is not verified again while SourceVerified is True
 * for this generation (source-controller's rule). 0, or -1 with the
 * failure written. */
static int oci_verify_setup(kube_client *kc, const obj *x, const sources_oci_spec *spec, const char *have_rev,
			    proto_fetch_request *rq)
{
	size_t i;
	json_t *c;
	char msg[1200];
	bh_error e;
	rq->verify = 1;
	if (load_cosign_keys(kc, x->ns, spec->verify_secret, rq, &e) < 0) {
		free_cosign_keys(rq);
		snprintf(msg, sizeof msg, "failed to verify the signature using provider 'cosign': %.1000s", e.msg);
		write_status(kc, x, json_object(), 0, "VerificationError", msg);
		return -1;
	}
	json_array_foreach(json_object_get(json_object_get(x->o, "status"), "conditions"), i, c)
		if (have_rev && !strcmp(str(c, "type", NULL) ? str(c, "type", NULL) : "", "SourceVerified") &&
		    !strcmp(str(c, "status", NULL) ? str(c, "status", NULL) : "", "True") &&
		    json_integer_value(json_object_get(c, "observedGeneration")) == flux_generation(x->o))
			rq->verified_revision = (char *)have_rev;
	return 0;
}

/* An OCIRepository: the artifact is the selected layer as it is in the
 * registry (for a Helm chart, the chart's .tgz), its revision
 * "<tag>@sha256:<manifest digest>" (or the digest alone). 0, or -1. */
static int reconcile_oci(kube_client *kc, const obj *x)
{
	proto_fetch_request rq = {0};
	proto_fetch_result r = {0};
	sources_oci_spec spec;
	const json_t *art = json_object_get(json_object_get(x->o, "status"), "artifact");
	const char *have_digest = str(art, "digest", NULL), *have_rev = str(art, "revision", NULL);
	char file[200], msg[600], vmsg[400];
	bh_error e;
	int fd = -1, rc = -1;
	if (sources_oci_decode(x->o, &spec, &e) < 0) {
		write_status(kc, x, json_object(), 0, "UnsupportedSpec", e.msg);
		return -1;
	}
	rq.op = FETCH_OP_OCI;
	rq.tag = (char *)spec.tag;
	rq.semver = (char *)spec.semver;
	rq.semver_filter = (char *)spec.semver_filter;
	rq.ref_digest = (char *)spec.digest;
	rq.media_type = (char *)spec.media_type;
	if (have_digest && have_rev && artcache_has(have_digest)) {
		rq.have_version = (char *)have_rev;
		rq.have_digest = (char *)have_digest;
	}
	if (spec.verify && oci_verify_setup(kc, x, &spec, have_rev, &rq) < 0)
		return -1;
	if (run_fetch(kc, x, x->o, &spec, &rq, &r, &fd) == 0 && spec.verify &&
	    (r.verified ? recheck_verified(&rq, &r, r.unchanged ? have_digest : r.digest, r.revision, msg, sizeof msg) < 0
			: !(rq.verified_revision && r.revision && !strcmp(r.revision, rq.verified_revision)))) {
		write_status(kc, x, json_object(), 0, "VerificationError",
			     r.verified ? msg : "failed to verify the signature using provider 'cosign': the fetcher did not "
						"report a verified signature");
	} else if (r.ok) {
		json_t *st = json_object();
		if (!r.unchanged) {
			artcache_put(r.digest, fd, (size_t)r.size);
			fd = -1;
			snprintf(file, sizeof file, "%.64s.tgz", r.digest + 7);
			json_object_set_new(st, "artifact", artifact_json("ocirepository", x, file, r.revision, &r, r.size));
			json_object_set_new(st, "url", json_string(str(json_object_get(st, "artifact"), "url", NULL)));
		}
		if (spec.media_type)
			json_object_set_new(st, "observedLayerSelector",
					    json_pack("{s:s,s:s}", "mediaType", spec.media_type, "operation", spec.operation));
		snprintf(msg, sizeof msg, "stored artifact for digest '%.500s'", r.revision);
		snprintf(vmsg, sizeof vmsg, "verified signature of revision %.300s", r.revision);
		/* its watch event starts the releases (upsert) */
		write_status_v(kc, x, st, 1, "Succeeded", msg, r.verified ? vmsg : NULL);
		rc = 0;
	}
	if (fd >= 0)
		close(fd);
	proto_fetch_result_free(&r);
	free_cosign_keys(&rq);
	return rc;
}

/* ---- scheduling ---------------------------------------------------------------------- */
static int is_due(const obj *x, double now)
{
	const json_t *md = json_object_get(x->o, "metadata");
	const char *req = flux_requested_at(x->o);
	if (x->busy || x->gone || json_is_true(json_object_get(json_object_get(x->o, "spec"), "suspend")) ||
	    str(md, "deletionTimestamp", NULL) || (x->chart == K_REPO && repo_is_oci(x->o)))
		return 0; /* an OCI HelmRepository holds settings only: no artifact, no status (as Flux) */
	return flux_generation(x->o) != x->handled_gen ||
	       (req && strcmp(req, x->handled_req) != 0) || now >= x->due;
}

static void *reconcile_main(void *arg)
{
	bh_error e;
	kube_client *kc = kube_curl_client_new(S.o.cfg, &e);
	(void)arg;
	if (!kc) {
		svlog(SVLOG_ERROR, "sources: %s", e.msg);
		return NULL;
	}
	pthread_mutex_lock(&S.mu);
	for (;;) {
		double now = now_s();
		obj *x = NULL, copy;
		json_t *o, *repo = NULL;
		const char *req;
		int chart, rc;
		/* repositories first: their charts need their status */
		for (int pass = 0; pass < K_N && !x; pass++)
			for (size_t i = 0; i < S.n && !x; i++)
				if (S.objs[i].chart == pass && is_due(&S.objs[i], now))
					x = &S.objs[i];
		if (!x) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			pthread_cond_timedwait(&S.cv, &S.mu, &ts);
			continue;
		}
		x->busy = 1;
		x->handled_gen = flux_generation(x->o);
		req = flux_requested_at(x->o);
		snprintf(x->handled_req, sizeof x->handled_req, "%s", req ? req : "");
		copy = *x;
		o = json_incref(x->o);
		chart = x->chart;
		if (chart == K_CHART) {
			const char *rn = str(json_object_get(o, "spec"), "sourceRef", "name");
			obj *r = find(0, copy.ns, rn ? rn : "");
			repo = r ? json_incref(r->o) : NULL;
		}
		pthread_mutex_unlock(&S.mu);
		svlog(SVLOG_DEBUG, "sources: reconciling %s %s/%s", kind_names[chart], copy.ns, copy.name);
		rc = chart == K_CHART ? reconcile_chart(kc, &copy, repo)
		     : chart == K_OCI ? reconcile_oci(kc, &copy)
				      : reconcile_repository(kc, &copy);
		pthread_mutex_lock(&S.mu);
		if ((x = find(chart, copy.ns, copy.name))) {
			x->busy = 0;
			x->due = x->again ? 0 : now_s() + (rc >= 0 || interval_of(o) < FAIL_RETRY ? interval_of(o) : FAIL_RETRY);
			x->again = 0;
			if (x->gone)
				forget(x);
		}
		if (chart == K_REPO && rc == 1) /* a new index: its charts look again now (and when its status arrives) */
			charts_due(copy.ns, copy.name);
		json_decref(o);
		json_decref(repo);
	}
	return NULL;
}

void sources_kick(const char *kind, const char *ns, const char *name)
{
	obj *x;
	pthread_mutex_lock(&S.mu);
	if ((x = find(!strcmp(kind, "OCIRepository") ? K_OCI : K_CHART, ns, name)))
		x->due = 0;
	pthread_cond_broadcast(&S.cv);
	pthread_mutex_unlock(&S.mu);
}

/* S.fetch: the fetcher binary (--fetcher-path or next to bulkheadd) and
 * the API server's host:port, which the fetcher must never connect to. */
static int fetcher_setup(const kube_config *cfg, const char *path, bh_error *err)
{
	const char *host = strstr(cfg->server, "://");
	S.fetch.path = path ? path : fetchcl_default_path();
	if ((S.fetch.path_fd = open(S.fetch.path, O_PATH | O_CLOEXEC)) < 0 || access(S.fetch.path, X_OK) < 0)
		return bh_error_set(err, BH_ENOTFOUND, "fetcher binary %s: %s (see --fetcher-path)", S.fetch.path,
				    strerror(errno));
	host = host ? host + 3 : cfg->server;
	snprintf(S.deny, sizeof S.deny, "%.*s", (int)strcspn(host, "/"), host);
	if (!strchr(S.deny + (S.deny[0] == '[' ? strcspn(S.deny, "]") : 0), ':'))
		snprintf(S.deny + strlen(S.deny), sizeof S.deny - strlen(S.deny), ":%s",
			 strncmp(cfg->server, "http://", 7) == 0 ? "80" : "443");
	S.fetch.deny = S.deny;
	return 0;
}

int sources_start(const sources_opts *o, bh_error *err)
{
	static wctx w[K_N] = {{K_REPO, &sv_helmrepository_resource}, {K_CHART, &sv_helmchart_resource},
			      {K_OCI, &sv_ocirepository_resource}};
	pthread_t th;
	int rc;
	S.o = *o;
	if ((rc = fetcher_setup(o->cfg, o->fetcher_path, err)) < 0)
		return rc;
	for (int i = 0; i < K_N; i++) { /* on the main loop (loopwatch.h) */
		kube_watch_opts wo = {0};
		wo.timeout_seconds = 60;
		if ((rc = loopwatch_add(o->cfg, w[i].res, NULL, &wo, on_event, &w[i], w[i].res->resource, err)) < 0)
			return rc;
	}
	for (int i = 0; i < (o->threads > 0 ? o->threads : 4); i++) {
		if (pthread_create(&th, NULL, reconcile_main, NULL) != 0)
			return bh_error_set(err, BH_EIO, "cannot start a sources reconcile thread");
		pthread_detach(th);
	}
	return 0;
}

/* ---- external mode: triggers from a source-controller's HelmCharts and OCIRepositories */
typedef struct seen {
	char key[520];
	char art[400]; /* "revision digest" */
} seen;

static struct {
	const kube_config *cfg;
	void (*on_artifact)(const char *kind, const char *ns, const char *name);
	pthread_mutex_t mu; /* the watches run on the main loop; kept for any other caller */
	seen *v;
	size_t n;
} X = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void external_seen(const char *kind, const json_t *o)
{
	const char *ns = str(o, "metadata", "namespace"), *name = str(o, "metadata", "name");
	const json_t *art = json_object_get(json_object_get(o, "status"), "artifact");
	char key[520], now[400];
	size_t i;
	if (!ns || !name)
		return;
	snprintf(key, sizeof key, "%s/%.250s/%.250s", kind, ns, name);
	snprintf(now, sizeof now, "%.190s %.190s", str(art, "revision", NULL) ? str(art, "revision", NULL) : "",
		 str(art, "digest", NULL) ? str(art, "digest", NULL) : "");
	for (i = 0; i < X.n && strcmp(X.v[i].key, key) != 0; i++)
		;
	if (i == X.n) {
		seen *nv = realloc(X.v, (X.n + 1) * sizeof *X.v);
		if (!nv)
			return;
		X.v = nv;
		snprintf(X.v[X.n].key, sizeof X.v[X.n].key, "%.519s", key);
		snprintf(X.v[X.n++].art, sizeof X.v[0].art, "%s", now);
		return; /* first sight: the HelmReleases reconcile on their own */
	}
	if (strcmp(X.v[i].art, now) != 0) {
		snprintf(X.v[i].art, sizeof X.v[i].art, "%s", now);
		if (art)
			X.on_artifact(kind, ns, name);
	}
}

static int on_external(void *ud, kube_watch_type t, json_t *o)
{
	const kube_resource *res = ud;
	size_t i;
	json_t *it;
	if (!strcmp(res->kind, "HelmChart"))
		hccache_event(t, o);
	pthread_mutex_lock(&X.mu);
	if (t == KUBE_WATCH_ADDED || t == KUBE_WATCH_MODIFIED)
		external_seen(res->kind, o);
	else if (t == KUBE_WATCH_RELIST)
		json_array_foreach(json_object_get(o, "items"), i, it) external_seen(res->kind, it);
	pthread_mutex_unlock(&X.mu);
	return 0;
}

int sources_watch_external(const kube_config *cfg, const char *fetcher_path,
			   void (*on_artifact)(const char *kind, const char *ns, const char *name), bh_error *err)
{
	int rc;
	if ((rc = fetcher_setup(cfg, fetcher_path, err)) < 0)
		return rc;
	artifact_use_fetcher(&S.fetch);
	X.cfg = cfg;
	X.on_artifact = on_artifact;
	for (int i = K_CHART; i <= K_OCI; i++) { /* on the main loop (loopwatch.h) */
		kube_watch_opts wo = {0};
		wo.timeout_seconds = 60;
		if ((rc = loopwatch_add(cfg, kind_res[i], NULL, &wo, on_external, (void *)kind_res[i],
					kind_res[i]->resource, err)) < 0)
			return rc;
	}
	return 0;
}
