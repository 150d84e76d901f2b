/* supervisor/source.c — see source.h. */
#include "supervisor/source.h"
#include "supervisor/hrent.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/hccache.h"
#include "supervisor/jtext.h"
#include "supervisor/sources.h"
#include "supervisor/status.h"

static const char *str_at(const json_t *o, const char *a, const char *b, const char *c)
{
	const json_t *v = json_object_get(o, a);
	if (b)
		v = json_object_get(v, b);
	if (c)
		v = json_object_get(v, c);
	return json_string_value(v);
}

const char *source_release_namespace(const json_t *hr)
{
	const char *t = str_at(hr, "spec", "targetNamespace", NULL);
	return t && *t ? t : str_at(hr, "metadata", "namespace", NULL);
}

const char *source_storage_namespace(const json_t *hr)
{
	const char *t = str_at(hr, "spec", "storageNamespace", NULL);
	return t && *t ? t : str_at(hr, "metadata", "namespace", NULL);
}

char *source_release_name_new(const json_t *hr)
{
	const char *rn = str_at(hr, "spec", "releaseName", NULL), *tn = str_at(hr, "spec", "targetNamespace", NULL);
	const char *name = str_at(hr, "metadata", "name", NULL);
	char *s;
	if (rn && *rn)
		s = strdup(rn);
	else if (tn && *tn) {
		if (asprintf(&s, "%s-%s", tn, name) < 0)
			s = NULL;
	} else
		s = strdup(name);
	if (s && strlen(s) > 53) { /* name[:40] + "-" + hex(sha256(name))[:12] */
		unsigned char d[32];
		unsigned int dl = 0;
		char *t = malloc(54);
		EVP_Digest(s, strlen(s), d, &dl, EVP_sha256(), NULL);
		if (t) {
			memcpy(t, s, 40);
			t[40] = '-';
			for (int i = 0; i < 6; i++)
				snprintf(t + 41 + 2 * i, 3, "%02x", d[i]);
		}
		free(s);
		s = t;
	}
	return s;
}

double source_parse_duration(const char *s)
{
	double total = 0;
	if (!s || !*s)
		return -1;
	if (strcmp(s, "0") == 0)
		return 0;
	while (*s) {
		char *end;
		double v = strtod(s, &end);
		double unit;
		if (end == s || v < 0)
			return -1;
		s = end;
		if (strncmp(s, "ns", 2) == 0)
			unit = 1e-9, s += 2;
		else if (strncmp(s, "us", 2) == 0 || strncmp(s, "\xc2\xb5s", 3) == 0)
			unit = 1e-6, s += (*s == 'u' ? 2 : 3);
		else if (strncmp(s, "ms", 2) == 0)
			unit = 1e-3, s += 2;
		else if (*s == 's')
			unit = 1, s++;
		else if (*s == 'm')
			unit = 60, s++;
		else if (*s == 'h')
			unit = 3600, s++;
		else
			return -1;
		total += v * unit;
	}
	return total;
}

/* HelmChart spec from .spec.chart.spec (internal/reconcile/helmchart_template.go). */
static void template_metadata(json_t *hc, const json_t *tmd);

/* .spec.chart.spec.verify as the HelmChart's .spec.verify, as helm-controller's
 * templateVerificationToSourceVerification: provider (the CRDs' default
 * cosign when unset), secretRef, matchOIDCIdentity (omitted when empty). */
static json_t *verify_template(const json_t *tv)
{
	const char *prov = str_at(tv, "provider", NULL, NULL), *secret = str_at(tv, "secretRef", "name", NULL);
	const json_t *ids = json_object_get(tv, "matchOIDCIdentity");
	json_t *v = json_pack("{s:s}", "provider", prov && *prov ? prov : "cosign"), *it;
	size_t i;
	if (secret && *secret)
		json_object_set_new(v, "secretRef", json_pack("{s:s}", "name", secret));
	if (json_array_size(ids)) {
		json_t *a = json_array();
		json_array_foreach(ids, i, it)
			json_array_append_new(a, json_pack("{s:s,s:s}", "issuer", str_at(it, "issuer", NULL, NULL) ? str_at(it, "issuer", NULL, NULL) : "",
						"subject", str_at(it, "subject", NULL, NULL) ? str_at(it, "subject", NULL, NULL) : ""));
		json_object_set_new(v, "matchOIDCIdentity", a);
	}
	return v;
}

static json_t *helmchart_new(const json_t *hr, const char *ns, const char *name)
{
	const json_t *cs = json_object_get(json_object_get(json_object_get(hr, "spec"), "chart"), "spec");
	const char *hrns = str_at(hr, "metadata", "namespace", NULL), *hrname = str_at(hr, "metadata", "name", NULL);
	const char *interval = str_at(hr, "spec", "interval", NULL);
	json_t *spec = json_object(), *sr = json_object_get(cs, "sourceRef");
	json_t *hc = json_pack("{s:s,s:s,s:{s:s,s:s,s:{s:s,s:s}}}", "apiVersion", "source.toolkit.fluxcd.io/v1", "kind",
			       "HelmChart", "metadata", "name", name, "namespace", ns, "labels",
			       "helm.toolkit.fluxcd.io/name", hrname, "helm.toolkit.fluxcd.io/namespace", hrns);
	json_object_set(spec, "chart", json_object_get(cs, "chart"));
	if (json_object_get(cs, "version"))
		json_object_set(spec, "version", json_object_get(cs, "version"));
	json_object_set_new(spec, "sourceRef", json_pack("{s:O,s:O}", "kind", json_object_get(sr, "kind"), "name",
							 json_object_get(sr, "name")));
	json_object_set_new(spec, "interval", json_string(str_at(cs, "interval", NULL, NULL) ? str_at(cs, "interval", NULL, NULL)
											  : interval ? interval : "10m"));
	if (json_object_get(cs, "reconcileStrategy"))
		json_object_set(spec, "reconcileStrategy", json_object_get(cs, "reconcileStrategy"));
	if (json_object_get(cs, "valuesFiles"))
		json_object_set(spec, "valuesFiles", json_object_get(cs, "valuesFiles"));
	if (json_is_true(json_object_get(cs, "ignoreMissingValuesFiles")))
		json_object_set_new(spec, "ignoreMissingValuesFiles", json_true());
	if (json_is_object(json_object_get(cs, "verify")))
		json_object_set_new(spec, "verify", verify_template(json_object_get(cs, "verify")));
	json_object_set_new(hc, "spec", spec);
	template_metadata(hc, json_object_get(json_object_get(json_object_get(hr, "spec"), "chart"), "metadata"));
	return hc;
}

/* .spec.chart.metadata: its labels and annotations on the HelmChart, the
 * owner labels (helm.toolkit.fluxcd.io/name, -/namespace) winning, as Flux. */
static void template_metadata(json_t *hc, const json_t *tmd)
{
	json_t *md = json_object_get(hc, "metadata"), *l = json_object_get(tmd, "labels"), *a = json_object_get(tmd, "annotations");
	if (json_object_size(l)) {
		json_t *all = json_deep_copy(l);
		json_object_update(all, json_object_get(md, "labels"));
		json_object_set_new(md, "labels", all);
	}
	if (json_object_size(a))
		json_object_set(md, "annotations", a);
}

/* Are want's labels and annotations all on have (metadata objects)? */
static int metadata_has(const json_t *have, const json_t *want)
{
	static const char *const kinds[] = {"labels", "annotations"};
	for (size_t i = 0; i < 2; i++) {
		const char *k;
		json_t *v;
		json_object_foreach(json_object_get(want, kinds[i]), k, v)
			if (!json_equal(v, json_object_get(json_object_get(have, kinds[i]), k)))
				return 0;
	}
	return 1;
}

/* Namespace and name of the HelmChart made from hr's .spec.chart. */
static void made_chart_name(const json_t *hr, char *ns, size_t nsn, char *name, size_t nn)
{
	const char *hrns = str_at(hr, "metadata", "namespace", NULL), *hrname = str_at(hr, "metadata", "name", NULL);
	const char *sns = str_at(json_object_get(json_object_get(hr, "spec"), "chart"), "spec", "sourceRef", "namespace");
	snprintf(ns, nsn, "%s", sns && *sns ? sns : hrns ? hrns : "");
	snprintf(name, nn, "%s-%s", hrns ? hrns : "", hrname ? hrname : "");
}

int source_of(const json_t *hr, char *kind, size_t kn, char *ns, size_t nsn, char *name, size_t nn)
{
	const json_t *ref = json_object_get(json_object_get(hr, "spec"), "chartRef");
	if (json_is_object(ref)) {
		const char *k = str_at(ref, "kind", NULL, NULL), *n = str_at(ref, "name", NULL, NULL);
		const char *rns = str_at(ref, "namespace", NULL, NULL), *hrns = str_at(hr, "metadata", "namespace", NULL);
		if (!k || !n)
			return -1;
		snprintf(kind, kn, "%s", k);
		snprintf(ns, nsn, "%s", rns && *rns ? rns : hrns ? hrns : "");
		snprintf(name, nn, "%s", n);
		return 0;
	}
	snprintf(kind, kn, "HelmChart");
	made_chart_name(hr, ns, nsn, name, nn);
	return 0;
}

int source_helmchart_made_for(const json_t *hc, const json_t *hr)
{
	const char *owner = json_string_value(
		json_object_get(json_object_get(json_object_get(hc, "metadata"), "labels"), "helm.toolkit.fluxcd.io/name"));
	return owner && !strcmp(owner, str_at(hr, "metadata", "name", NULL));
}

char *source_helmchart_path_new(const json_t *hr, bh_error *err)
{
	char ns[254], name[520], *p;
	made_chart_name(hr, ns, sizeof ns, name, sizeof name);
	if (!*ns) { /* as kube_get refuses it */
		bh_error_set(err, BH_EINVAL, "%s is namespaced: a namespace is required", sv_helmchart_resource.resource);
		return NULL;
	}
	if (!(p = kube_path_new(&sv_helmchart_resource, ns, name, NULL)))
		bh_error_set(err, BH_ENOMEM, "out of memory");
	return p;
}

/* Makes the merge patch patch (an object) replace have: a null for each
 * member of have it lacks, at every depth where both hold an object (so a
 * .spec.verify without matchOIDCIdentity removes it). */
static void merge_nulls(json_t *patch, const json_t *have)
{
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)have, key, v) {
		json_t *p = json_object_get(patch, key);
		if (!p)
			json_object_set_new(patch, key, json_null());
		else if (json_is_object(p) && json_is_object(v))
			merge_nulls(p, v);
	}
}

/* Brings the HelmChart made from .spec.chart in line with it (merge patch
 * of .spec): 1 when it was changed, 0 when it was already so. */
static int helmchart_sync(kube_client *kc, const json_t *hr, const json_t *hc, bh_error *err)
{
	const char *ns = str_at(hc, "metadata", "namespace", NULL), *name = str_at(hc, "metadata", "name", NULL);
	json_t *want = helmchart_new(hr, ns, name), *ws = json_object_get(want, "spec"), *patch, *out = NULL;
	const json_t *have = json_object_get(hc, "spec");
	kube_write_opts wo = {"helm-controller", 0, 0, NULL};
	const char *key;
	json_t *v;
	char *text;
	int same = 1, rc = 0;
	json_object_foreach(ws, key, v) if (!json_equal(v, json_object_get(have, key))) same = 0;
	json_object_foreach((json_t *)have, key, v) if (!json_object_get(ws, key)) same = 0;
	if (!metadata_has(json_object_get(hc, "metadata"), json_object_get(want, "metadata")))
		same = 0;
	if (!same) {
		json_t *pspec = json_deep_copy(ws);
		merge_nulls(pspec, have);
		patch = json_pack("{s:o,s:O}", "spec", pspec, "metadata", json_object_get(want, "metadata"));
		text = jtext_new(patch);
		json_decref(patch);
		rc = text ? kube_patch(kc, &sv_helmchart_resource, ns, name, KUBE_PATCH_MERGE, text, &wo, &out, err) : BH_ENOMEM;
		free(text);
		json_decref(out);
		if (rc < 0)
			bh_error_prefix(err, "updating HelmChart %s/%s", ns, name);
	}
	json_decref(want);
	return rc < 0 ? rc : !same;
}

/* si's url, digest and revision from the source's .status.artifact. */
static int artifact_take(source_info *si, const json_t *art, bh_error *err)
{
	const char *rev = str_at(art, "revision", NULL, NULL);
	if (!json_is_object(art) || !str_at(art, "url", NULL, NULL) || !str_at(art, "digest", NULL, NULL)) {
		bh_error_set(err, BH_OK, "%s '%s/%s' is not ready: no artifact", si->kind, si->ns, si->name);
		return SOURCE_NOT_READY;
	}
	snprintf(si->url, sizeof si->url, "%s", str_at(art, "url", NULL, NULL));
	snprintf(si->digest, sizeof si->digest, "%s", str_at(art, "digest", NULL, NULL));
	snprintf(si->revision, sizeof si->revision, "%s", rev ? rev : "");
	return SOURCE_OK;
}

/* The artifact of a .spec.chartRef to OCIRepository ns/name. */
static int resolve_oci(kube_client *kc, const char *ns, const char *name, source_info *si, bh_error *err)
{
	json_t *o = NULL;
	const json_t *art;
	int rc;
	snprintf(si->kind, sizeof si->kind, "OCIRepository");
	snprintf(si->ns, sizeof si->ns, "%s", ns);
	snprintf(si->name, sizeof si->name, "%s", name);
	rc = kube_get(kc, &sv_ocirepository_resource, ns, name, NULL, &o, err);
	if (rc == BH_ENOTFOUND)
		return bh_error_set(err, BH_ENOTFOUND, "could not get source 'OCIRepository/%s/%s': not found", ns, name);
	if (rc < 0)
		return bh_error_prefix(err, "could not get source 'OCIRepository/%s/%s'", ns, name);
	art = json_object_get(json_object_get(o, "status"), "artifact");
	if (json_integer_value(json_object_get(json_object_get(o, "status"), "observedGeneration")) <
		    flux_generation(o) &&
	    json_object_get(json_object_get(o, "status"), "observedGeneration")) {
		json_decref(o);
		bh_error_set(err, BH_OK, "OCIRepository '%s/%s' is not ready: latest generation of object has not been "
			     "reconciled", ns, name);
		return SOURCE_NOT_READY;
	}
	rc = artifact_take(si, art, err);
	json_decref(o);
	return rc;
}

int source_cached_digest(const json_t *hr, char *digest, size_t n)
{
	const json_t *spec = json_object_get(hr, "spec"), *ref = json_object_get(spec, "chartRef");
	const char *hrns = str_at(hr, "metadata", "namespace", NULL);
	char ns[254], name[520];
	if (json_is_object(ref)) {
		const char *kind = str_at(ref, "kind", NULL, NULL), *nm = str_at(ref, "name", NULL, NULL);
		const char *rns = str_at(ref, "namespace", NULL, NULL);
		if (!kind || strcmp(kind, "HelmChart") != 0 || !nm)
			return -1;
		snprintf(ns, sizeof ns, "%s", rns && *rns ? rns : hrns ? hrns : "");
		snprintf(name, sizeof name, "%s", nm);
	} else if (json_is_object(json_object_get(spec, "chart"))) {
		made_chart_name(hr, ns, sizeof ns, name, sizeof name);
	} else {
		return -1;
	}
	return hccache_digest(ns, name, digest, n);
}

int source_resolve(kube_client *kc, const json_t *hr, source_info *si, bh_error *err)
{
	const json_t *spec = json_object_get(hr, "spec"), *ref = json_object_get(spec, "chartRef");
	const char *hrns = str_at(hr, "metadata", "namespace", NULL);
	char ns[254], name[520];
	json_t *hc = NULL;
	int rc;
	memset(si, 0, sizeof *si);
	if (json_is_object(ref)) {
		const char *kind = str_at(ref, "kind", NULL, NULL), *n = str_at(ref, "name", NULL, NULL);
		const char *rns = str_at(ref, "namespace", NULL, NULL);
		if (!kind || (strcmp(kind, "HelmChart") != 0 && strcmp(kind, "OCIRepository") != 0))
			return bh_error_set(err, BH_EINVAL, "chartRef kind '%s' is not supported (only HelmChart and "
					    "OCIRepository)", kind ? kind : "");
		if (!n)
			return bh_error_set(err, BH_EINVAL, ".spec.chartRef.name is required");
		snprintf(ns, sizeof ns, "%s", rns && *rns ? rns : hrns);
		snprintf(name, sizeof name, "%s", n);
		if (!strcmp(kind, "OCIRepository"))
			return resolve_oci(kc, ns, name, si, err);
	} else if (json_is_object(json_object_get(spec, "chart"))) {
		made_chart_name(hr, ns, sizeof ns, name, sizeof name);
	} else {
		return bh_error_set(err, BH_EINVAL, "one of .spec.chart or .spec.chartRef is required");
	}
	snprintf(si->helmchart, sizeof si->helmchart, "%s/%s", ns, name);
	snprintf(si->kind, sizeof si->kind, "HelmChart");
	snprintf(si->ns, sizeof si->ns, "%s", ns);
	snprintf(si->name, sizeof si->name, "%s", name);
	/* the watch's copy (hccache.h); one not seen yet from the API server */
	rc = (hc = hccache_get_new(ns, name)) ? 0 : kube_get(kc, &sv_helmchart_resource, ns, name, NULL, &hc, err);
	if (rc == BH_ENOTFOUND && !json_is_object(ref)) {
		json_t *obj = helmchart_new(hr, ns, name), *out = NULL;
		kube_write_opts wo = {"helm-controller", 0, 0, NULL};
		rc = kube_create(kc, &sv_helmchart_resource, ns, obj, &wo, &out, err);
		json_decref(obj);
		json_decref(out);
		if (rc < 0 && rc != BH_ECONFLICT)
			return bh_error_prefix(err, "creating HelmChart %s/%s", ns, name);
		bh_error_set(err, BH_OK, "HelmChart '%s/%s' is not ready: created, waiting for its artifact", ns, name);
		return SOURCE_NOT_READY;
	}
	if (rc == BH_ENOTFOUND)
		return bh_error_set(err, BH_ENOTFOUND, "could not get source 'HelmChart/%s/%s': not found", ns, name);
	if (rc < 0)
		return bh_error_prefix(err, "could not get source 'HelmChart/%s/%s'", ns, name);
	if (!json_is_object(ref)) {
		json_int_t gen = flux_generation(hc);
		json_int_t seen = json_integer_value(json_object_get(json_object_get(hc, "status"), "observedGeneration"));
		int updated = helmchart_sync(kc, hr, hc, err);
		if (updated < 0) {
			json_decref(hc);
			return updated;
		}
		/* Flux: the artifact must be of the latest generation (a status
		 * made by hand without observedGeneration is taken as it is) */
		if (updated || (seen > 0 && seen < gen)) {
			json_decref(hc);
			bh_error_set(err, BH_OK, "HelmChart '%s/%s' is not ready: latest generation of object has not been "
				     "reconciled", ns, name);
			return SOURCE_NOT_READY;
		}
	}
	rc = artifact_take(si, json_object_get(json_object_get(hc, "status"), "artifact"), err);
	json_decref(hc);
	return rc;
}
