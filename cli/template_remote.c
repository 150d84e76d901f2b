/* cli/template_remote.c — see template_remote.h. */
#include "cli/template_remote.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/template_deps_files.h"
#include "fetcher/fetch.h"
#include "fetcher/http.h"
#include "fetcher/index.h"
#include "fetcher/oci.h"
#include "fetcher/ocidec.h"

int template_remote_wanted(const template_remote *o, const char *chart)
{
	return (o->repo && *o->repo) || !strncmp(chart, "http://", 7) || !strncmp(chart, "https://", 8) ||
	       !strncmp(chart, "oci://", 6);
}

static int read_pem(const char *path, bh_buf *b, bh_error *err)
{
	FILE *f;
	char chunk[8192];
	size_t n;
	if (!path || !*path)
		return 0;
	if (!(f = fopen(path, "re")))
		return bh_error_set(err, BH_EIO, "open %s: no such file or directory", path);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && b->len < (4u << 20))
		bh_buf_put(b, chunk, n);
	fclose(f);
	bh_buf_putc(b, '\0');
	b->len--;
	return 0;
}

/* An exact version ("1.2.3", "1.2.3-rc.1+b"): Helm asks for that tag
 * without listing the others. */
static int exact_version(const char *v)
{
	int dots = 0;
	const char *p = v;
	for (; *p && *p != '-' && *p != '+'; p++) {
		if (*p == '.')
			dots++;
		else if (*p < '0' || *p > '9')
			return 0;
	}
	return dots == 2 && p > v && p[-1] != '.' && v[0] != '.';
}

/* --verify: the manifest's provenance layer, pulled again as Helm's OCI
 * getter does for "<ref>.prov" (Pulled/Digest printed a second time), and
 * the name VerifyChart checks it under ("<name>-<tag>.tgz"). */
static int fetch_oci_prov(const template_remote *o, const oci_pull_opts *chart, const oci_pulled *p, const char *url,
			  bh_error *err)
{
	oci_pull_opts po = *chart;
	oci_pulled q = {0};
	char *purl = NULL;
	const char *sep = p->tag ? ":" : "@", *ref = p->tag ? p->tag : p->manifest_digest;
	if (asprintf(&purl, "%s%s%s.prov", url, sep, ref) < 0)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	po.semver = NULL;
	po.tag = p->tag;
	po.digest = p->tag ? NULL : p->manifest_digest;
	po.media_type = OCI_HELM_PROV_MEDIA;
	po.max_blob = FETCH_DEFAULT_MAX_INDEX;
	int rc = oci_pull(&po, o->prov, &q, err);
	if (rc < 0) {
		bh_error_set(err, rc, "failed to fetch provenance \"%s\"", purl);
	} else {
		fprintf(stderr, "Pulled: %s%s%s\nDigest: %s\n", url + 6, sep, ref, q.manifest_digest);
		fflush(stderr);
		/* filepath.Base of the URL path, its last ':' made '-', + ".tgz" */
		const char *base = strrchr(url + 6, '/') ? strrchr(url + 6, '/') + 1 : url + 6;
		bh_buf_reset(o->prov_name);
		bh_buf_printf(o->prov_name, "%s%s%s", base, sep, ref);
		char *c = strrchr(o->prov_name->data, ':');
		if (c)
			*c = '-';
		bh_buf_puts(o->prov_name, ".tgz");
	}
	oci_pulled_free(&q);
	free(purl);
	return rc;
}

/* Helm's registry client reads the credentials file (--registry-config)
 * when no --username is given; a missing file holds none. */
static int registry_config_read(const template_remote *o, bh_buf *cfg, bh_error *err)
{
	int rc;
	if (o->username || !o->registry_config || !*o->registry_config)
		return 0;
	rc = deps_read_file(o->registry_config, OCI_MAX_DOCKER_CONFIG, cfg, err);
	return rc == BH_ENOTFOUND ? 0 : rc;
}

/* oci://host/path[:tag|@digest] as `helm pull` does it; Helm's "Pulled:"
 * and "Digest:" lines on stderr. */
static int fetch_oci(const template_remote *o, http_opts *ho, const char *chart, bh_buf *out, bh_error *err)
{
	oci_pull_opts po = {0};
	oci_pulled p = {0};
	bh_buf cfg = BH_BUF_INIT;
	char *url = NULL, *tag = NULL, *digest = NULL;
	int rc;
	if ((rc = oci_ref_split(chart, &url, &tag, &digest, err)) < 0)
		return rc;
	po.url = url;
	po.http = ho;
	po.helm_tags = 1;
	po.plain_http = o->plain_http;
	po.max_blob = FETCH_DEFAULT_MAX_CHART;
	po.digest = digest;
	if ((rc = registry_config_read(o, &cfg, err)) == 0 && cfg.len)
		po.docker_config = bh_buf_str(&cfg);
	if (rc == 0 && tag && o->version && *o->version && strcmp(tag, o->version) != 0)
		rc = bh_error_set(err, BH_EINVAL, "chart reference and version mismatch: %s is not %s", o->version, tag);
	else if (rc == 0 && (tag || (o->version && exact_version(o->version))))
		po.tag = tag ? tag : o->version;
	else if (rc == 0)
		po.semver = o->version;
	if (rc == 0 && (rc = oci_pull(&po, out, &p, err)) == 0) {
		fprintf(stderr, "Pulled: %s%s%s\nDigest: %s\n", url + 6, p.tag ? ":" : "@", p.tag ? p.tag : p.manifest_digest,
			p.manifest_digest);
		fflush(stderr);
		if (o->prov)
			rc = fetch_oci_prov(o, &po, &p, url, err);
		if (rc == 0 && o->pulled_version && !(*o->pulled_version = strdup(p.version ? p.version : "")))
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	oci_pulled_free(&p);
	if (cfg.data)
		explicit_bzero(cfg.data, cfg.len);
	bh_buf_free(&cfg);
	free(url);
	free(tag);
	free(digest);
	return rc;
}

/* ChartDownloader.DownloadToCache with VerifyAlways: the provenance file
 * next to the chart URL, and the name VerifyChart checks it under. */
static int fetch_prov(const template_remote *o, http_opts *ho, const char *url, bh_error *err)
{
	char *purl = NULL;
	if (asprintf(&purl, "%s.prov", url) < 0)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	int rc = http_get(ho, purl, FETCH_DEFAULT_MAX_INDEX, o->prov, err);
	if (rc < 0)
		bh_error_set(err, rc, "failed to fetch provenance \"%s\"", purl);
	free(purl);
	const char *p = strstr(url, "://"), *end;
	p = p ? strchr(p + 3, '/') : NULL;
	end = p ? p + strcspn(p, "?#") : NULL;
	const char *base = end;
	while (base && base > p && base[-1] != '/')
		base--;
	bh_buf_reset(o->prov_name);
	if (base && base < end)
		bh_buf_put(o->prov_name, base, (size_t)(end - base));
	else
		bh_buf_puts(o->prov_name, p && end > p ? "/" : ".");
	return rc;
}

/* The http_opts of o (PEM files read into pem[0..2]: CA, cert, key). */
static int http_setup(const template_remote *o, http_opts *ho, bh_buf pem[3], bh_error *err)
{
	int rc;
	memset(ho, 0, sizeof *ho);
	if ((rc = http_init(NULL, 0, err)) < 0 || (rc = read_pem(o->ca_file, &pem[0], err)) < 0 ||
	    (rc = read_pem(o->cert_file, &pem[1], err)) < 0 || (rc = read_pem(o->key_file, &pem[2], err)) < 0)
		return rc;
	ho->username = o->username;
	ho->password = o->password;
	ho->ca_pem = pem[0].len ? pem[0].data : NULL;
	ho->cert_pem = pem[1].len ? pem[1].data : NULL;
	ho->key_pem = pem[2].len ? pem[2].data : NULL;
	ho->insecure_skip_verify = o->insecure_skip_tls_verify;
	ho->pass_credentials = o->pass_credentials;
	ho->timeout_ms = 120000;
	return 0;
}

static void http_done(http_opts *ho, bh_buf pem[3])
{
	free(ho->www_authenticate);
	free(ho->content_type);
	for (int i = 0; i < 3; i++)
		bh_buf_free(&pem[i]);
}

int template_remote_get(const template_remote *o, const char *url, size_t max, bh_buf *out, bh_error *err)
{
	bh_buf pem[3] = {BH_BUF_INIT, BH_BUF_INIT, BH_BUF_INIT};
	http_opts ho;
	int rc = http_setup(o, &ho, pem, err);
	if (rc == 0) {
		ho.auth_url = o->repo;
		rc = http_get(&ho, url, max, out, err);
	}
	http_done(&ho, pem);
	return rc;
}

int template_remote_fetch(const template_remote *o, const char *chart, bh_buf *out, bh_error *err)
{
	bh_buf pem[3] = {BH_BUF_INIT, BH_BUF_INIT, BH_BUF_INIT}, raw = BH_BUF_INIT;
	http_opts ho;
	helm_index *idx = NULL;
	const index_version *v;
	char *url = NULL, *iurl = NULL;
	int rc;
	if ((rc = http_setup(o, &ho, pem, err)) < 0)
		goto done;
	if (!strncmp(chart, "oci://", 6)) {
		rc = fetch_oci(o, &ho, chart, out, err);
		goto done;
	}
	if (!o->repo || !*o->repo) { /* a chart URL */
		if ((rc = http_get(&ho, chart, FETCH_DEFAULT_MAX_CHART, out, err)) == 0 && o->prov)
			rc = fetch_prov(o, &ho, chart, err);
		goto done;
	}
	ho.auth_url = o->repo;
	if (asprintf(&iurl, "%.*s/index.yaml", (int)(strlen(o->repo) - (o->repo[strlen(o->repo) - 1] == '/')), o->repo) < 0) {
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = http_get(&ho, iurl, FETCH_DEFAULT_MAX_INDEX, &raw, err)) < 0 ||
	    (rc = index_decode(raw.data ? raw.data : "", raw.len, FETCH_DEFAULT_MAX_INDEX, &idx, err)) < 0) {
		bh_error_prefix(err, "looks like \"%s\" is not a valid chart repository or cannot be reached", o->repo);
		goto done;
	}
	if ((rc = index_get(idx, chart, o->version, &v, err)) < 0) {
		if (o->version && *o->version)
			bh_error_set(err, rc, "chart \"%s\" version \"%s\" not found in %s repository", chart, o->version, o->repo);
		else
			bh_error_set(err, rc, "chart \"%s\" not found in %s repository", chart, o->repo);
		goto done;
	}
	if (o->version && *o->version && strcmp(o->version, v->version) != 0 && o->warn)
		o->warn("unable to find exact version requested; falling back to closest available version",
			(const char *const[]){"chart", chart, "requested", o->version, "selected", v->version, NULL});
	if (v->nurls == 0) {
		rc = bh_error_set(err, BH_EINVAL, "chart %s has no downloadable URLs", chart);
		goto done;
	}
	if (!(url = fetch_resolve_url(o->repo, v->urls[0]))) {
		rc = bh_error_set(err, BH_EINVAL, "invalid chart URL format: %s", v->urls[0]);
		goto done;
	}
	if ((rc = http_get(&ho, url, FETCH_DEFAULT_MAX_CHART, out, err)) < 0)
		goto done;
	if (v->digest) { /* a corrupted or swapped package is refused */
		char d[72], want[72];
		fetch_sha256(out->data ? out->data : "", out->len, d);
		snprintf(want, sizeof want, "sha256:%.64s", v->digest);
		if (strcasecmp(d, want) != 0)
			rc = bh_error_set(err, BH_EINVAL, "chart %s-%s from %s: digest %s does not match the index's %s", v->name,
					  v->version, url, d, want);
	}
	if (rc == 0 && o->prov)
		rc = fetch_prov(o, &ho, url, err);
done:
	http_done(&ho, pem);
	free(url);
	free(iurl);
	index_free(idx);
	bh_buf_free(&raw);
	return rc;
}
