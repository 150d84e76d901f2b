/* fetcher/fetch.c — see fetch.h. */
#include "fetcher/fetch.h"

#include <curl/curl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetcher/chartvalues.h"
#include "fetcher/cosign.h"
#include "fetcher/http.h"
#include "fetcher/index.h"
#include "fetcher/oci.h"

void fetch_sha256(const void *p, size_t n, char out[72])
{
	unsigned char d[32];
	unsigned int dl = 0;
	EVP_Digest(p, n, d, &dl, EVP_sha256(), NULL);
	memcpy(out, "sha256:", 7);
	for (unsigned i = 0; i < 32; i++)
		snprintf(out + 7 + 2 * i, 3, "%02x", d[i]);
}

char *fetch_resolve_url(const char *repo_url, const char *ref)
{
	CURLU *u = curl_url();
	char *path = NULL, *s = NULL, *r = NULL;
	if (!u)
		return NULL;
	if (curl_url_set(u, CURLUPART_URL, repo_url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_PATH, &path, 0) == CURLUE_OK) {
		size_t n = strlen(path);
		char *dir = malloc(n + 2);
		if (dir) {
			memcpy(dir, path, n + 1);
			if (n == 0 || dir[n - 1] != '/')
				strcat(dir, "/");
			if (curl_url_set(u, CURLUPART_PATH, dir, 0) == CURLUE_OK &&
			    curl_url_set(u, CURLUPART_URL, ref, 0) == CURLUE_OK &&
			    curl_url_get(u, CURLUPART_URL, &s, 0) == CURLUE_OK)
				r = strdup(s);
			free(dir);
		}
	}
	curl_free(path);
	curl_free(s);
	curl_url_cleanup(u);
	return r;
}

static void fail(proto_fetch_result *res, const char *reason, const bh_error *e, const char *prefix)
{
	char msg[4096];
	res->ok = 0;
	snprintf(msg, sizeof msg, "%s%.3900s", prefix, e->msg);
	res->reason = strdup(e->code == BH_EUNAVAIL && strstr(e->msg, ": 401 ") ? "AuthenticationFailed" : reason);
	res->message = strdup(msg);
}

static void http_opts_from(const proto_fetch_request *rq, http_opts *o)
{
	memset(o, 0, sizeof *o);
	o->username = rq->username;
	o->password = rq->password;
	o->ca_pem = rq->ca_pem;
	o->cert_pem = rq->cert_pem;
	o->key_pem = rq->key_pem;
	o->insecure_skip_verify = rq->insecure_skip_verify;
	o->pass_credentials = rq->pass_credentials;
	o->auth_url = rq->url;
	o->proxy = rq->proxy_url;
	o->proxy_username = rq->proxy_username;
	o->proxy_password = rq->proxy_password;
	o->timeout_ms = rq->timeout_ms > 0 ? (long)rq->timeout_ms : 60000;
}

static void opts_free(http_opts *o)
{
	free(o->www_authenticate);
	free(o->content_type);
}

/* GET <repo>/index.yaml and decode it. */
static int get_index(const proto_fetch_request *rq, http_opts *o, bh_buf *raw, helm_index **idx, bh_error *e)
{
	size_t max = rq->max_index > 0 ? (size_t)rq->max_index : FETCH_DEFAULT_MAX_INDEX;
	char *url;
	size_t n = strlen(rq->url);
	int rc;
	if (asprintf(&url, "%.*s/index.yaml", (int)(n && rq->url[n - 1] == '/' ? n - 1 : n), rq->url) < 0)
		return bh_error_set(e, BH_ENOMEM, "out of memory");
	rc = http_get(o, url, max, raw, e);
	free(url);
	if (rc < 0)
		return rc;
	return index_decode(raw->data ? raw->data : "", raw->len, max, idx, e);
}

static void run_index(const proto_fetch_request *rq, proto_fetch_result *res, bh_buf *art)
{
	http_opts o;
	helm_index *idx = NULL;
	bh_error e;
	char d[72];
	http_opts_from(rq, &o);
	if (get_index(rq, &o, art, &idx, &e) < 0) {
		fail(res, "IndexationFailed", &e, "failed to fetch Helm repository index: ");
	} else {
		fetch_sha256(art->data ? art->data : "", art->len, d);
		res->ok = 1;
		res->reason = strdup("Succeeded");
		res->message = strdup("fetched index");
		res->digest = strdup(d);
		res->revision = strdup(d);
		res->size = (long long)art->len;
	}
	index_free(idx);
	opts_free(&o);
}

static void run_chart(const proto_fetch_request *rq, proto_fetch_result *res, bh_buf *art)
{
	http_opts o;
	helm_index *idx = NULL;
	const index_version *v;
	bh_buf raw = BH_BUF_INIT;
	bh_error e;
	char d[72], want[72], *url = NULL;
	http_opts_from(rq, &o);
	if (rq->verify) { /* no signatures to check: refused before any fetch, as source-controller refuses it */
		bh_error_set(&e, BH_EINVAL, ".spec.verify applies only to charts of a HelmRepository of type 'oci' (an "
			     "HTTP repository's charts carry no cosign signature)");
		fail(res, "ChartVerificationError", &e, "chart verification error: ");
		goto done;
	}
	if (get_index(rq, &o, &raw, &idx, &e) < 0) {
		fail(res, "ChartPullFailed", &e, "failed to fetch Helm repository index: ");
		goto done;
	}
	if (index_get(idx, rq->chart, rq->version, &v, &e) < 0) {
		fail(res, "ChartPullFailed", &e, "invalid chart reference: failed to get chart version for remote reference: ");
		goto done;
	}
	snprintf(want, sizeof want, "sha256:%.64s", v->digest ? v->digest : "");
	res->chart = strdup(v->name);
	res->revision = strdup(v->version);
	if (rq->have_version && strcmp(rq->have_version, v->version) == 0 &&
	    (!v->digest || (rq->have_digest && strcmp(rq->have_digest, want) == 0))) {
		res->ok = res->unchanged = 1;
		res->reason = strdup("ChartPullSucceeded");
		res->message = strdup("artifact up-to-date with remote revision");
		res->digest = rq->have_digest ? strdup(rq->have_digest) : NULL;
		goto done;
	}
	if (v->nurls == 0) {
		bh_error_set(&e, BH_EINVAL, "chart '%s' version '%s' has no downloadable URLs", v->name, v->version);
		fail(res, "ChartPullFailed", &e, "");
		goto done;
	}
	if (!(url = fetch_resolve_url(rq->url, v->urls[0]))) {
		bh_error_set(&e, BH_EINVAL, "invalid chart URL format: %s", v->urls[0]);
		fail(res, "ChartPullFailed", &e, "");
		goto done;
	}
	opts_free(&o);
	http_opts_from(rq, &o);
	if (http_get(&o, url, rq->max_chart > 0 ? (size_t)rq->max_chart : FETCH_DEFAULT_MAX_CHART, art, &e) < 0) {
		fail(res, "ChartPullFailed", &e, "failed to download chart: ");
		goto done;
	}
	fetch_sha256(art->data ? art->data : "", art->len, d);
	if (v->digest && strcasecmp(want, d) != 0) {
		bh_error_set(&e, BH_EINVAL, "chart %s-%s from %s: digest %s does not match the index's %s", v->name,
			     v->version, url, d, want);
		fail(res, "ChartPullFailed", &e, "failed to verify chart: ");
		goto done;
	}
	res->ok = 1;
	res->reason = strdup("ChartPullSucceeded");
	res->message = strdup("pulled");
	res->digest = strdup(d);
	res->size = (long long)art->len;
done:
	free(url);
	index_free(idx);
	bh_buf_free(&raw);
	opts_free(&o);
}

static void run_artifact(const proto_fetch_request *rq, proto_fetch_result *res, bh_buf *art)
{
	http_opts o;
	bh_error e;
	char d[72];
	http_opts_from(rq, &o);
	if (http_get(&o, rq->url, rq->max_chart > 0 ? (size_t)rq->max_chart : FETCH_DEFAULT_MAX_CHART, art, &e) < 0) {
		fail(res, "ArtifactFailed", &e, "");
	} else if (fetch_sha256(art->data ? art->data : "", art->len, d),
		   !strncmp(rq->digest, "sha256:", 7) && strcasecmp(d, rq->digest) != 0) {
		/* (sha384/sha512 digests: the supervisor checks them) */
		bh_error_set(&e, BH_EINVAL, "integrity check failed: computed digest %s does not match %s", d, rq->digest);
		fail(res, "IntegrityCheckFailed", &e, "");
	} else {
		res->ok = 1;
		res->reason = strdup("Succeeded");
		res->message = strdup("downloaded");
		res->digest = strdup(d);
		res->size = (long long)art->len;
	}
	opts_free(&o);
}

#define FETCH_MAX_SIGNED_MANIFEST_B64 24576 /* proto/fetch.c's sigManifest */

/* A failed cosign verification as source-controller reports it: for a
 * HelmChart, the chart build's error naming the chart's reference; for an
 * OCIRepository, the one message its key-based path has (with why, when
 * the only signature is a cosign v3 bundle, which is not read). */
static void verify_failed(proto_fetch_result *res, const oci_pull_opts *po, const oci_pulled *p, int chart,
			  const bh_error *e)
{
	bh_error m;
	if (chart) {
		bh_error_set(&m, BH_EDENIED, "failed to verify %s:%s: %.3500s", po->url, p->version ? p->version : "", e->msg);
		fail(res, "ChartVerificationError", &m, "chart verification error: ");
	} else {
		bh_error_set(&m, BH_EDENIED, "no matching signatures were found for '%.1200s@%s'%s%.1500s", po->url + 6,
			     p->manifest_digest ? p->manifest_digest : "", p->bundle_only ? ": " : "",
			     p->bundle_only ? e->msg : "");
		fail(res, "VerificationError", &m, "failed to verify the signature using provider 'cosign': ");
	}
}

/* An OCI pull: a HelmChart from a HelmRepository of type oci (chart set:
 * Helm's tags, version constraint), or an OCIRepository. */
static void run_oci(const proto_fetch_request *rq, proto_fetch_result *res, bh_buf *art)
{
	http_opts ho;
	oci_pull_opts po = {0};
	oci_pulled p;
	bh_error e;
	char *url = NULL, d[72];
	int chart = rq->op == FETCH_OP_CHART;
	http_opts_from(rq, &ho);
	ho.pass_credentials = 0; /* registry credentials never leave the registry's host */
	if (chart && asprintf(&url, "%s/%s", rq->url, rq->chart) < 0)
		url = NULL;
	po.url = chart ? url : rq->url;
	po.http = &ho;
	po.helm_tags = chart;
	po.semver = chart ? rq->version : rq->semver;
	po.semver_filter = chart ? NULL : rq->semver_filter;
	po.tag = rq->tag;
	po.digest = rq->ref_digest;
	po.media_type = rq->media_type;
	po.docker_config = rq->docker_config;
	po.pull_configs = (const char *const *)rq->pull_secret_configs.v;
	po.npull_configs = rq->pull_secret_configs.n;
	po.plain_http = rq->plain_http;
	po.have_revision = chart ? NULL : rq->have_version;
	po.verify = rq->verify;
	po.verify_keys = (const char *const *)rq->cosign_keys.v;
	po.nverify_keys = rq->cosign_keys.n;
	po.verified_revision = chart ? NULL : rq->verified_revision; /* a HelmChart verifies every time */
	for (size_t i = 0; rq->verify && i < rq->cosign_keys.n; i++)
		if (cosign_key_check(rq->cosign_keys.v[i], strlen(rq->cosign_keys.v[i]), &e) < 0) {
			fail(res, "VerificationError", &e, "failed to verify the signature using provider 'cosign': ");
			goto done;
		}
	po.max_blob = rq->max_chart > 0 ? (size_t)rq->max_chart : FETCH_DEFAULT_MAX_CHART;
	if (!po.url) {
		bh_error_set(&e, BH_ENOMEM, "out of memory");
		fail(res, "ChartPullFailed", &e, "");
	} else if (oci_pull(&po, art, &p, &e) < 0) {
		if (p.verify_failed)
			verify_failed(res, &po, &p, chart, &e);
		else
			fail(res, p.auth_failed ? "AuthenticationFailed" : chart ? "ChartPullFailed" : "OCIArtifactPullFailed", &e,
			     chart ? "failed to pull chart: " : "failed to pull artifact: ");
	} else if (p.verified && strlen(p.ev_manifest) > FETCH_MAX_SIGNED_MANIFEST_B64) {
		bh_error_set(&e, BH_ELIMIT, "the signed manifest of %s is %zu bytes (base64), more than bulkhead checks "
			     "again (%d)", po.url, strlen(p.ev_manifest), FETCH_MAX_SIGNED_MANIFEST_B64);
		verify_failed(res, &po, &p, chart, &e);
	} else {
		res->ok = 1;
		res->verified = p.verified;
		res->sig_key = p.ev_key;
		res->sig_manifest = p.ev_manifest;
		res->sig_payload = p.ev_payload;
		res->sig_signature = p.ev_signature;
		p.ev_manifest = p.ev_payload = p.ev_signature = NULL;
		res->unchanged = p.unchanged;
		res->chart = strdup(chart ? rq->chart : p.name);
		res->revision = strdup(chart ? p.version : p.revision);
		if (p.unchanged) {
			res->digest = rq->have_digest ? strdup(rq->have_digest) : NULL;
			res->reason = strdup("Succeeded");
			res->message = strdup("artifact up-to-date with remote revision");
		} else {
			fetch_sha256(art->data ? art->data : "", art->len, d);
			res->digest = strdup(d);
			res->size = (long long)art->len;
			res->reason = strdup(chart ? "ChartPullSucceeded" : "Succeeded");
			res->message = strdup("pulled");
		}
	}
	oci_pulled_free(&p);
done:
	free(url);
	opts_free(&ho);
}

/* A pulled chart with .spec.valuesFiles: re-packaged with the merged values
 * (chartvalues.h); the revision becomes the new chart version. */
static void apply_values_files(const proto_fetch_request *rq, proto_fetch_result *res, bh_buf *art)
{
	chartvalues_opts o = {(const char *const *)rq->values_files.v, rq->values_files.n,
			      rq->ignore_missing_values_files, rq->version_metadata, (size_t)64 << 20};
	bh_buf out = BH_BUF_INIT;
	char *version, *observed, d[72];
	bh_error e;
	if (chartvalues_apply(art->data ? art->data : "", art->len, &o, &out, &version, &observed, &e) < 0) {
		bh_buf_free(&out);
		free(res->reason);
		free(res->message);
		res->reason = res->message = NULL;
		fail(res, "ValuesFilesError", &e, "values files merge error: failed to merge chart values: ");
		return;
	}
	bh_buf_reset(art);
	bh_buf_put(art, out.data ? out.data : "", out.len);
	bh_buf_free(&out);
	fetch_sha256(art->data ? art->data : "", art->len, d);
	free(res->digest);
	free(res->revision);
	res->digest = strdup(d);
	res->revision = version;
	res->size = (long long)art->len;
	for (char *s = observed, *nl; *s; s = nl + 1) {
		char **nv = realloc(res->observed_values_files.v, (res->observed_values_files.n + 1) * sizeof *nv);
		nl = s + strcspn(s, "\n");
		if (!nv)
			break;
		res->observed_values_files.v = nv;
		nv[res->observed_values_files.n++] = strndup(s, (size_t)(nl - s));
		if (!*nl)
			break;
	}
	free(observed);
}

void fetch_run(const proto_fetch_request *rq, proto_fetch_result *res, bh_buf *artifact)
{
	memset(res, 0, sizeof *res);
	bh_buf_reset(artifact);
	if (rq->op == FETCH_OP_INDEX)
		run_index(rq, res, artifact);
	else if (rq->op == FETCH_OP_OCI || (rq->op == FETCH_OP_CHART && !strncmp(rq->url, "oci://", 6)))
		run_oci(rq, res, artifact);
	else if (rq->op == FETCH_OP_CHART)
		run_chart(rq, res, artifact);
	else
		run_artifact(rq, res, artifact);
	if (rq->op == FETCH_OP_CHART && res->ok && !res->unchanged && rq->values_files.n)
		apply_values_files(rq, res, artifact);
}
