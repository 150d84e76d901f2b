/* fetcher/oci.c — see oci.h. */
#include "fetcher/oci.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fetcher/cosign.h"
#include "fetcher/fetch.h"
#include "fetcher/ocidec.h"
#include "lib/semver.h"
#include "lib/goregex.h"

#define OCI_MANIFEST_ACCEPT "application/vnd.oci.image.manifest.v1+json"
/* cosign writes its signature manifests as OCI or Docker image manifests */
#define COSIGN_MANIFEST_ACCEPT OCI_MANIFEST_ACCEPT ", application/vnd.docker.distribution.manifest.v2+json"
/* cosign v3's signatures: Sigstore bundles, OCI referrers of the artifact
 * (application/vnd.dev.sigstore.bundle.v0.3+json and later versions) */
#define OCI_INDEX_ACCEPT "application/vnd.oci.image.index.v1+json"
#define COSIGN_BUNDLE_TYPE "application/vnd.dev.sigstore.bundle"

typedef struct reg {
	const oci_pull_opts *o;
	char base[1200];     /* scheme://host:port */
	char host[600];      /* host:port, the docker config key */
	char name[1200];     /* repository path */
	char *user, *pass;   /* the registry's credentials, or NULL */
	char *token;         /* a Bearer token from the realm, or NULL */
	int basic;           /* the registry asked for Basic */
	int auth_tried;
	int auth_failed;
} reg;

int oci_ref_split(const char *ref, char **url, char **tag, char **digest, bh_error *err)
{
	const char *p = ref + 6, *slash, *at, *colon;
	*url = *tag = *digest = NULL;
	if (strncmp(ref, "oci://", 6) != 0 || !(slash = strchr(p, '/')) || slash == p || !slash[1])
		return bh_error_set(err, BH_EINVAL, "invalid OCI reference %s: want oci://host/path", ref);
	if ((at = strchr(slash, '@'))) {
		*digest = strdup(at + 1);
		*url = strndup(ref, (size_t)(at - ref));
	} else if ((colon = strrchr(slash, ':'))) {
		*tag = strdup(colon + 1);
		*url = strndup(ref, (size_t)(colon - ref));
	} else {
		*url = strdup(ref);
	}
	if (!*url) {
		free(*tag), free(*digest);
		*tag = *digest = NULL;
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	return 0;
}

/* r's credentials from a docker config's entry for r's host: 0, or
 * BH_ENOTFOUND when it has none, or an error. */
static int dockercfg_take(reg *r, const char *cfg, bh_error *err)
{
	return oci_dockercfg_lookup(cfg, strlen(cfg), r->host, &r->user, &r->pass, err);
}

static int reg_init(reg *r, const oci_pull_opts *o, bh_error *err)
{
	const char *p = o->url + 6, *slash;
	size_t n;
	int rc;
	memset(r, 0, sizeof *r);
	r->o = o;
	if (strncmp(o->url, "oci://", 6) != 0 || !(slash = strchr(p, '/')) || slash == p || !slash[1] ||
	    (size_t)(slash - p) >= sizeof r->host)
		return bh_error_set(err, BH_EINVAL, "invalid OCI URL %s: want oci://host/path", o->url);
	snprintf(r->host, sizeof r->host, "%.*s", (int)(slash - p), p);
	snprintf(r->name, sizeof r->name, "%s", slash + 1);
	n = strlen(r->name);
	while (n && r->name[n - 1] == '/')
		r->name[--n] = '\0';
	for (const char *c = r->name; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789._-/", *c))
			return bh_error_set(err, BH_EINVAL, "invalid OCI repository name '%s': only lower-case letters, "
					    "digits, '.', '_', '-' and '/' are allowed", r->name);
	snprintf(r->base, sizeof r->base, "%s://%s", o->plain_http ? "http" : "https", r->host);
	if (o->http->username) {
		r->user = strdup(o->http->username);
		r->pass = strdup(o->http->password ? o->http->password : "");
	} else {
		/* as source-controller's keychain: secretRef's config, then the
		 * ServiceAccount's imagePullSecrets in order; the first entry for
		 * the host wins */
		if (o->docker_config && (rc = dockercfg_take(r, o->docker_config, err)) != BH_ENOTFOUND)
			return rc < 0 ? rc : 0;
		for (size_t i = 0; i < o->npull_configs; i++)
			if ((rc = dockercfg_take(r, o->pull_configs[i], err)) != BH_ENOTFOUND)
				return rc < 0 ? bh_error_prefix(err, "imagePullSecrets[%zu]", i) : 0;
	}
	return 0;
}

static void reg_free(reg *r)
{
	char *s[] = {r->user, r->pass, r->token};
	for (size_t i = 0; i < 3; i++)
		if (s[i]) {
			explicit_bzero(s[i], strlen(s[i]));
			free(s[i]);
		}
}

/* GET the token for the challenge's service and scope from its realm. */
static int get_token(reg *r, const oci_challenge *ch, bh_error *err)
{
	const char *realm = oci_auth_param_get(ch, "realm"), *service = oci_auth_param_get(ch, "service");
	const char *scope = oci_auth_param_get(ch, "scope");
	char defscope[1300], *url = NULL, *es = NULL, *esc = NULL;
	http_opts ho = *r->o->http;
	bh_buf b = BH_BUF_INIT;
	int rc;
	if (!realm || (strncmp(realm, "https://", 8) != 0 && !(r->o->plain_http && strncmp(realm, "http://", 7) == 0)))
		return bh_error_set(err, BH_EDENIED, "registry %s: the Bearer challenge's realm '%s' is not an https URL",
				    r->host, realm ? realm : "");
	snprintf(defscope, sizeof defscope, "repository:%s:pull", r->name);
	es = curl_easy_escape(NULL, service ? service : "", 0);
	esc = curl_easy_escape(NULL, scope ? scope : defscope, 0);
	if (!es || !esc || asprintf(&url, "%s%cservice=%s&scope=%s", realm, strchr(realm, '?') ? '&' : '?', es, esc) < 0)
		url = NULL;
	curl_free(es);
	curl_free(esc);
	if (!url)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	ho.username = r->user;
	ho.password = r->pass;
	ho.bearer = NULL;
	ho.auth_url = realm;
	ho.accept = "application/json";
	ho.www_authenticate = ho.content_type = NULL;
	rc = http_get(&ho, url, OCI_MAX_TOKEN_ANSWER, &b, err);
	if (rc < 0 && (ho.status == 401 || ho.status == 403))
		rc = bh_error_set(err, BH_EDENIED, "registry %s: the token service %s refused the %s: %ld", r->host, realm,
				  r->user ? "credentials" : "anonymous request", ho.status);
	else if (rc < 0)
		bh_error_prefix(err, "registry %s: getting a token", r->host);
	else
		rc = oci_token_decode(b.data ? b.data : "", b.len, &r->token, err);
	free(ho.www_authenticate);
	free(ho.content_type);
	free(url);
	bh_buf_free(&b);
	return rc;
}

/* Answers a 401's challenge; 0 when the request should be tried again. */
static int authenticate(reg *r, const char *www, bh_error *err)
{
	oci_challenges cs;
	const oci_challenge *ch;
	int rc;
	r->auth_failed = 1;
	if (r->auth_tried || !www)
		return bh_error_set(err, BH_EDENIED, "registry %s: authentication failed%s: 401 Unauthorized", r->host,
				    r->user ? " (wrong username or password?)" : " (no credentials given)");
	r->auth_tried = 1;
	if ((rc = oci_auth_decode(www, strlen(www), &cs, err)) < 0) {
		oci_auth_free(&cs);
		return bh_error_prefix(err, "registry %s", r->host);
	}
	if ((ch = oci_auth_find(&cs, "Bearer"))) {
		rc = get_token(r, ch, err);
	} else if (oci_auth_find(&cs, "Basic")) {
		r->basic = 1;
		rc = r->user ? 0
			     : bh_error_set(err, BH_EDENIED, "registry %s asks for basic authentication and no credentials "
					    "were given: 401 Unauthorized", r->host);
	} else {
		rc = bh_error_set(err, BH_EDENIED, "registry %s: unsupported authentication scheme '%s'", r->host,
				  cs.n ? cs.c[0].scheme : "");
	}
	oci_auth_free(&cs);
	if (rc == 0)
		r->auth_failed = 0;
	return rc;
}

/* GET base/v2/<name>/<what> with the registry's auth. */
/* GET <base>/v2/<name>/<what>, or the URL what when it holds "://" (a tag
 * list's next page). With link, the answer's Link header (or NULL) is
 * returned there; caller frees. */
static int reg_get(reg *r, const char *what, const char *accept, size_t max, bh_buf *out, char **link, bh_error *err)
{
	char *url;
	int rc;
	if (strstr(what, "://") ? !(url = strdup(what)) : asprintf(&url, "%s/v2/%s/%s", r->base, r->name, what) < 0)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	for (;;) {
		http_opts ho = *r->o->http;
		ho.username = r->basic ? r->user : NULL;
		ho.password = r->basic ? r->pass : NULL;
		ho.bearer = r->token;
		ho.auth_url = r->base;
		ho.accept = accept;
		ho.www_authenticate = ho.content_type = ho.link = NULL;
		ho.want_link = link != NULL;
		rc = http_get(&ho, url, max, out, err);
		free(ho.content_type);
		if (rc < 0 && ho.status == 401) {
			rc = authenticate(r, ho.www_authenticate, err);
			free(ho.www_authenticate);
			free(ho.link);
			if (rc == 0)
				continue;
		} else {
			free(ho.www_authenticate);
			if (link && rc == 0)
				*link = ho.link;
			else
				free(ho.link);
		}
		break;
	}
	free(url);
	return rc;
}

/* The URL of a tag list's next page: the Link header's reference resolved
 * against the page's URL (RFC 3986, as Go's URL.Parse does), or NULL when
 * there is no next page. Caller frees *next. */
static int next_page(const char *page, const char *link, char **next, bh_error *err)
{
	char *ref = NULL, *abs = NULL;
	CURLU *u;
	int rc;
	*next = NULL;
	if (!link)
		return 0;
	if ((rc = oci_link_next(link, strlen(link), &ref, err)) < 0 || !ref)
		return rc;
	if (!(u = curl_url()))
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
	else {
		if (curl_url_set(u, CURLUPART_URL, page, 0) != CURLUE_OK ||
		    curl_url_set(u, CURLUPART_URL, ref, 0) != CURLUE_OK || curl_url_get(u, CURLUPART_URL, &abs, 0) != CURLUE_OK)
			rc = bh_error_set(err, BH_EPARSE, "tag list: invalid next link %s", ref);
		else if (!(*next = strdup(abs)))
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		curl_free(abs);
		curl_url_cleanup(u);
	}
	free(ref);
	return rc;
}

/* Every tag of the repository, page after page while the registry's answer
 * has a Link to a next one (as oras-go and go-containerregistry follow it). */
static int list_tags(reg *r, char ***tags, size_t *nt, bh_error *err)
{
	bh_buf b = BH_BUF_INIT;
	char *page, *link = NULL, *next = NULL, **more; /* page: the URL of the page to read */
	size_t nm;
	int rc = 0;
	if (asprintf(&page, "%s/v2/%s/tags/list", r->base, r->name) < 0) {
		page = NULL;
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	*tags = NULL;
	*nt = 0;
	for (int pages = 0; rc == 0 && page; pages++) {
		if (pages == OCI_MAX_TAG_PAGES) {
			rc = bh_error_set(err, BH_ELIMIT, "tag list: more than %d pages", OCI_MAX_TAG_PAGES);
			break;
		}
		bh_buf_reset(&b);
		if ((rc = reg_get(r, page, "application/json", (size_t)16 << 20, &b, &link, err)) < 0 ||
		    (rc = oci_tags_decode(b.data ? b.data : "", b.len, &more, &nm, err)) < 0)
			break;
		if (*nt + nm > OCI_MAX_TAGS) {
			oci_tags_free(more, nm);
			rc = bh_error_set(err, BH_ELIMIT, "tag list: more than %d tags", OCI_MAX_TAGS);
			break;
		}
		char **all = realloc(*tags, (*nt + nm + 1) * sizeof *all);
		if (!all) {
			oci_tags_free(more, nm);
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
			break;
		}
		memcpy(all + *nt, more, nm * sizeof *more);
		free(more);
		*tags = all;
		*nt += nm;
		rc = next_page(page, link, &next, err);
		if (rc == 0 && next && !strcmp(next, page))
			rc = bh_error_set(err, BH_EPARSE, "tag list: the next link %s points at the page itself", next);
		free(link);
		link = NULL;
		free(page);
		page = next;
		next = NULL;
	}
	free(link);
	free(next);
	free(page);
	bh_buf_free(&b);
	if (rc < 0) {
		oci_tags_free(*tags, *nt);
		*tags = NULL;
		*nt = 0;
	}
	return rc;
}

static int cmp_tags_desc(const void *a, const void *b)
{
	const semver *x = a, *y = b;
	int c = semver_compare(y, x);
	return c ? c : strcmp(y->original, x->original);
}

/* Keeps the tags filter matches (in order), freeing the others. */
static int filter_tags(goregex *filter, char **tags, size_t *nt, bh_error *err)
{
	size_t k = 0;
	int rc = 0;
	for (size_t i = 0; i < *nt; i++) {
		int m = rc < 0 ? 0 : goregex_match(filter, tags[i], strlen(tags[i]), err);
		if (m < 0)
			rc = bh_error_prefix(err, ".spec.ref.semverFilter, tag '%s'", tags[i]);
		if (m > 0)
			tags[k++] = tags[i];
		else
			free(tags[i]);
	}
	*nt = k;
	return rc;
}

/* The tag the options select. */
static int resolve_tag(reg *r, char **tag, bh_error *err)
{
	const oci_pull_opts *o = r->o;
	const char *con = o->semver && *o->semver ? o->semver : "*";
	char **tags = NULL, msg[300];
	semver *sv = NULL;
	goregex fre, *filter = NULL;
	size_t nt = 0, nv = 0;
	int rc;
	*tag = NULL;
	if (o->tag && *o->tag)
		return (*tag = strdup(o->tag)) ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory");
	if (!o->helm_tags && (!o->semver || !*o->semver))
		return (*tag = strdup("latest")) ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory");
	/* a bad filter fails before any request */
	if (o->semver_filter && *o->semver_filter) {
		bh_buf m = BH_BUF_INIT;
		rc = goregex_compile(&fre, o->semver_filter, strlen(o->semver_filter), &m);
		if (rc < 0)
			bh_error_set(err, BH_EINVAL, ".spec.ref.semverFilter: %s", bh_buf_str(&m));
		bh_buf_free(&m);
		if (rc < 0)
			return BH_EINVAL;
		filter = &fre;
	}
	if ((rc = list_tags(r, &tags, &nt, err)) < 0) {
		if (filter)
			goregex_release(filter);
		return bh_error_prefix(err, "listing the tags of %s", o->url);
	}
	if (filter && (rc = filter_tags(filter, tags, &nt, err)) < 0)
		goto done;
	if (filter && nt == 0) {
		rc = bh_error_set(err, BH_ENOTFOUND, "no tag of %s matches .spec.ref.semverFilter '%s'", o->url,
				  o->semver_filter);
		goto done;
	}
	if (o->helm_tags)
		for (size_t i = 0; i < nt; i++)
			for (char *c = tags[i]; *c; c++)
				if (*c == '_')
					*c = '+';
	if (o->helm_tags && o->semver && *o->semver)
		for (size_t i = 0; i < nt; i++)
			if (strcmp(tags[i], o->semver) == 0) {
				*tag = strdup(tags[i]);
				goto done;
			}
	if (nt == 0) {
		rc = bh_error_set(err, BH_ENOTFOUND, "unable to locate any tags in provided repository: %s", o->url);
		goto done;
	}
	if (!(sv = calloc(nt, sizeof *sv))) {
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < nt; i++)
		if (semver_parse(tags[i], strlen(tags[i]), &sv[nv], msg, sizeof msg) == 0)
			nv++;
	qsort(sv, nv, sizeof *sv, cmp_tags_desc);
	for (size_t i = 0; i < nv && !*tag; i++) {
		int ok = semver_constraint_check(con, strlen(con), &sv[i], msg, sizeof msg);
		if (ok < 0) {
			rc = bh_error_set(err, BH_EINVAL, "%s", msg);
			goto done;
		}
		if (ok)
			*tag = strdup(sv[i].original);
	}
	if (!*tag)
		rc = bh_error_set(err, BH_ENOTFOUND, "could not locate a version matching provided version string %s",
				  o->semver && *o->semver ? o->semver : "*");
done:
	free(sv);
	oci_tags_free(tags, nt);
	if (filter)
		goregex_release(filter);
	return rc;
}

static const oci_descriptor *pick_layer(const oci_manifest *m, const char *want)
{
	for (size_t i = 0; i < m->nlayers; i++)
		if (want ? !strcmp(m->layers[i].media_type, want)
			 : !strcmp(m->layers[i].media_type, OCI_HELM_CHART_MEDIA) ||
				   !strcmp(m->layers[i].media_type, OCI_HELM_CHART_LEGACY_MEDIA))
			return &m->layers[i];
	return NULL;
}

/* The payload of signature layer l into b, or why it cannot be had
 * (cosign's texts) in why. -1 only when the registry could not be asked
 * (then err is set). */
static int signature_payload(reg *r, const cosign_layer *l, bh_buf *b, char *why, size_t wn, bh_error *err)
{
	char what[100], d[72];
	bh_error e;
	*why = '\0';
	if (!l->b64sig) {
		snprintf(why, wn, "signature layer %s is missing \"%s\" annotation", l->digest, COSIGN_SIG_ANNOTATION);
		return 0;
	}
	if ((size_t)l->size > COSIGN_MAX_PAYLOAD) {
		snprintf(why, wn, "size of layer (%lld) exceeded the limit (%zu)", l->size, COSIGN_MAX_PAYLOAD);
		return 0;
	}
	snprintf(what, sizeof what, "blobs/%s", l->digest);
	if (reg_get(r, what, NULL, COSIGN_MAX_PAYLOAD, b, NULL, &e) < 0) {
		if (r->auth_failed) {
			*err = e;
			return -1;
		}
		snprintf(why, wn, "%.500s", e.msg);
		return 0;
	}
	fetch_sha256(b->data ? b->data : "", b->len, d);
	if (strcmp(d, l->digest) != 0)
		snprintf(why, wn, "error verifying sha256 checksum after reading %zu bytes; got \"%s\", want \"%s\"", b->len,
			 d, l->digest);
	return 0;
}

/* The artifact type of a cosign v3 bundle (OCI referrer) of the manifest
 * md, into t, when the registry holds one: asked of the referrers API,
 * then of the referrers tag schema's index at tag sha256-<hex> (as cosign
 * finds them). 1 when one is found, 0 when none (or the registry cannot
 * say), -1 when the registry refused our credentials (err set). */
static int bundle_referrer(reg *r, const char *md, char *t, size_t tn, bh_error *err)
{
	static const char *const where[] = {"referrers/%s", "manifests/sha256-%.64s"};
	int found = 0;
	for (size_t w = 0; w < 2 && !found; w++) {
		char what[120];
		bh_buf b = BH_BUF_INIT;
		oci_manifest *ix = NULL;
		bh_error e;
		snprintf(what, sizeof what, where[w], w ? md + 7 : md);
		if (reg_get(r, what, OCI_INDEX_ACCEPT, OCI_MAX_MANIFEST, &b, NULL, &e) < 0) {
			bh_buf_free(&b);
			if (r->auth_failed) {
				*err = e;
				return -1;
			}
			continue;
		}
		if (oci_manifest_decode(b.data ? b.data : "", b.len, &ix, &e) == 0 && ix->is_index)
			for (size_t i = 0; i < ix->nlayers && !found; i++)
				if (ix->layers[i].artifact_type &&
				    !strncmp(ix->layers[i].artifact_type, COSIGN_BUNDLE_TYPE, strlen(COSIGN_BUNDLE_TYPE))) {
					snprintf(t, tn, "%.255s", ix->layers[i].artifact_type);
					found = 1;
				}
		oci_manifest_free(ix);
		bh_buf_free(&b);
	}
	return found;
}

/* cosign's VerifyImageSignatures with each key in turn (Offline,
 * IgnoreTlog): 0 as soon as one signature verifies with one key; else
 * cosign's error for the first key ("no signatures found", "no matching
 * signatures: ..."). */
static int verify_signatures(reg *r, const char *md, oci_pulled *out, bh_error *err)
{
	const oci_pull_opts *o = r->o;
	char what[120], (*why)[600] = NULL;
	bh_buf mb = BH_BUF_INIT, *payloads = NULL, msg = BH_BUF_INIT;
	cosign_sigs sigs = {0};
	int rc;
	snprintf(what, sizeof what, "manifests/sha256-%.64s.sig", md + 7);
	rc = reg_get(r, what, COSIGN_MANIFEST_ACCEPT, COSIGN_MAX_MANIFEST, &mb, NULL, err);
	if (rc == BH_ENOTFOUND || (rc == 0 && (rc = cosign_sigmanifest_decode(mb.data ? mb.data : "", mb.len, &sigs, err)) == 0 &&
				   sigs.n == 0)) {
		char t[256];
		if ((rc = bundle_referrer(r, md, t, sizeof t, err)) < 0)
			goto done;
		if (rc && (out->bundle_only = 1))
			rc = bh_error_set(err, BH_EDENIED, "no signatures found: the signature is a cosign v3 bundle (an OCI "
					  "referrer of type %s), which bulkhead's built-in sources do not read; sign with "
					  "'cosign sign --new-bundle-format=false', or use Flux's source-controller "
					  "(bulkheadd --sources=external)", t);
		else
			rc = bh_error_set(err, BH_EDENIED, "no signatures found");
		goto done;
	}
	if (rc < 0) {
		bh_error_prefix(err, "signatures of %s", md);
		goto done;
	}
	if (!(payloads = calloc(sigs.n, sizeof *payloads)) || !(why = calloc(sigs.n, sizeof *why))) {
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < sigs.n; i++)
		if ((rc = signature_payload(r, &sigs.v[i], &payloads[i], why[i], sizeof why[i], err)) < 0)
			goto done;
	for (size_t k = 0; k < o->nverify_keys; k++) {
		bh_buf_reset(&msg);
		bh_buf_puts(&msg, "no matching signatures: ");
		for (size_t i = 0; i < sigs.n; i++) {
			bh_error e;
			if (!why[i][0] &&
			    cosign_check(o->verify_keys[k], strlen(o->verify_keys[k]), payloads[i].data ? payloads[i].data : "",
					 payloads[i].len, sigs.v[i].b64sig, md, &e) == 0) {
				out->ev_payload = cosign_b64(payloads[i].data ? payloads[i].data : "", payloads[i].len);
				out->ev_signature = strdup(sigs.v[i].b64sig);
				out->ev_key = (int)k;
				rc = out->ev_payload && out->ev_signature ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory");
				goto done;
			}
			if (i)
				bh_buf_puts(&msg, "\n ");
			bh_buf_puts(&msg, why[i][0] ? why[i] : e.msg);
		}
		if (k == 0)
			bh_error_set(err, BH_EDENIED, "%.3000s", bh_buf_str(&msg));
	}
	rc = o->nverify_keys ? BH_EDENIED : bh_error_set(err, BH_EDENIED, "no matching signatures: no public keys");
done:
	for (size_t i = 0; payloads && i < sigs.n; i++)
		bh_buf_free(&payloads[i]);
	free(payloads);
	free(why);
	cosign_sigs_free(&sigs);
	bh_buf_free(&mb);
	bh_buf_free(&msg);
	return rc;
}

int oci_pull(const oci_pull_opts *o, bh_buf *blob, oci_pulled *out, bh_error *err)
{
	reg r;
	bh_buf mb = BH_BUF_INIT;
	oci_manifest *m = NULL;
	const oci_descriptor *l;
	char md[72], d[72], *what = NULL, *wire_tag = NULL;
	int rc;
	memset(out, 0, sizeof *out);
	bh_buf_reset(blob);
	if ((rc = reg_init(&r, o, err)) < 0)
		goto done;
	out->name = strdup(strrchr(r.name, '/') ? strrchr(r.name, '/') + 1 : r.name);
	if (o->digest && *o->digest) {
		if (!oci_digest_valid_sha256(o->digest)) {
			rc = bh_error_set(err, BH_EINVAL, "invalid digest '%s': want sha256:<64 hex digits>", o->digest);
			goto done;
		}
		wire_tag = strdup(o->digest);
	} else {
		if ((rc = resolve_tag(&r, &out->tag, err)) < 0)
			goto done;
		wire_tag = strdup(out->tag);
		for (char *c = wire_tag; c && *c; c++)
			if (*c == '+')
				*c = '_'; /* '+' is not allowed in a tag: Helm pushes it as '_' */
		out->version = strdup(out->tag);
	}
	if (!wire_tag || asprintf(&what, "manifests/%s", wire_tag) < 0) {
		what = NULL;
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = reg_get(&r, what, OCI_MANIFEST_ACCEPT, OCI_MAX_MANIFEST, &mb, NULL, err)) < 0) {
		bh_error_prefix(err, "failed to get the manifest of %s:%s", o->url, wire_tag);
		goto done;
	}
	fetch_sha256(mb.data ? mb.data : "", mb.len, md);
	if (o->digest && *o->digest && strcmp(md, o->digest) != 0) {
		rc = bh_error_set(err, BH_EINVAL, "manifest of %s@%s: its content has digest %s", o->url, o->digest, md);
		goto done;
	}
	out->manifest_digest = strdup(md);
	if (!out->tag)
		out->revision = strdup(md);
	else if (asprintf(&out->revision, "%s@%s", out->tag, md) < 0)
		out->revision = NULL;
	if (!out->revision || !out->manifest_digest || !out->name) {
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		goto done;
	}
	if (o->verify && !(o->verified_revision && !strcmp(o->verified_revision, out->revision))) {
		if ((rc = verify_signatures(&r, md, out, err)) < 0) {
			out->verify_failed = 1;
			goto done;
		}
		if (!(out->ev_manifest = cosign_b64(mb.data ? mb.data : "", mb.len))) {
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
			goto done;
		}
		out->verified = 1;
	}
	if (o->have_revision && strcmp(o->have_revision, out->revision) == 0) {
		out->unchanged = 1;
		goto done;
	}
	if ((rc = oci_manifest_decode(mb.data ? mb.data : "", mb.len, &m, err)) < 0) {
		bh_error_prefix(err, "%s:%s", o->url, wire_tag);
		goto done;
	}
	if (m->is_index) {
		rc = bh_error_set(err, BH_EINVAL, "%s:%s is an image index, not the manifest of a Helm chart", o->url, wire_tag);
		goto done;
	}
	if (!(l = pick_layer(m, o->media_type))) {
		rc = bh_error_set(err, BH_ENOTFOUND, "manifest does not contain a layer with mediatype %s",
				  o->media_type ? o->media_type : OCI_HELM_CHART_MEDIA);
		goto done;
	}
	if (!oci_digest_valid_sha256(l->digest)) {
		rc = bh_error_set(err, BH_EINVAL, "layer digest %s: only sha256 digests are supported", l->digest);
		goto done;
	}
	if (l->size < 0 || (size_t)l->size > o->max_blob) {
		rc = bh_error_set(err, BH_ELIMIT, "the chart layer of %s:%s is %lld bytes, more than the limit of %zu", o->url,
				  wire_tag, l->size, o->max_blob);
		goto done;
	}
	free(what);
	if (asprintf(&what, "blobs/%s", l->digest) < 0) {
		what = NULL;
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = reg_get(&r, what, NULL, o->max_blob, blob, NULL, err)) < 0) {
		bh_error_prefix(err, "failed to download the chart layer of %s:%s", o->url, wire_tag);
		goto done;
	}
	fetch_sha256(blob->data ? blob->data : "", blob->len, d);
	if (strcmp(d, l->digest) != 0 || (long long)blob->len != l->size)
		rc = bh_error_set(err, BH_EINVAL, "the chart layer of %s:%s does not match its descriptor: digest %s, %zu "
				  "bytes; the manifest says %s, %lld bytes", o->url, wire_tag, d, blob->len, l->digest, l->size);
done:
	out->auth_failed = rc < 0 && r.auth_failed;
	if (rc < 0)
		bh_buf_reset(blob);
	free(what);
	free(wire_tag);
	oci_manifest_free(m);
	bh_buf_free(&mb);
	reg_free(&r);
	return rc;
}

void oci_pulled_free(oci_pulled *p)
{
	free(p->tag);
	free(p->version);
	free(p->manifest_digest);
	free(p->revision);
	free(p->name);
	free(p->ev_manifest);
	free(p->ev_payload);
	free(p->ev_signature);
	memset(p, 0, sizeof *p);
}
