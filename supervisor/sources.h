/* supervisor/sources.h — bulkhead's built-in source controller
 * (--sources=builtin): it serves Flux's source API for Helm itself. Watches
 * on the main loop (loopwatch.h) keep caches of HelmRepositories, HelmCharts and OCIRepositories
 * (an OCI HelmRepository only holds settings for its HelmCharts, as in
 * Flux: no artifact, no status); a small pool of
 * reconcile threads (each with its own API client) fetches every due
 * object through a new bulkhead-fetcher (fetchcl.h) with that source's
 * credentials only, writes .status (artifact with revision and sha256
 * digest, conditions Ready/FetchFailed with source-controller's reasons)
 * and keeps chart artifacts in artcache.h. With .spec.verify (cosign public
 * keys), the fetcher verifies the signature and the supervisor checks the
 * evidence it hands back (fetcher/cosign.h cosign_check_evidence). A HelmChart whose artifact
 * revision changes is reported through on_artifact, so the HelmReleases
 * using it reconcile at once; a HelmRepository whose index changes makes
 * its HelmCharts due at once. */
#ifndef BH_SUPERVISOR_SOURCES_H
#define BH_SUPERVISOR_SOURCES_H

#include <jansson.h>

#include "kube/config.h"
#include "kube/kube.h"
#include "lib/error.h"
#include "supervisor/fetchcl.h"

typedef struct sources_opts {
	const kube_config *cfg;                          /* the fetcher never connects to cfg->server */
	const char *fetcher_path;                        /* NULL: next to bulkheadd (fetchcl.h) */
	int threads;                                     /* reconcile threads (default 4) */
	/* kind "HelmChart" or "OCIRepository"; from a reconcile thread (builtin)
	 * or the main loop's (external) */
	void (*on_artifact)(const char *kind, const char *ns, const char *name);
} sources_opts;

extern const kube_resource sv_helmrepository_resource;
extern const kube_resource sv_ocirepository_resource;

int sources_start(const sources_opts *o, bh_error *err);
/* --sources=external: watches HelmCharts and OCIRepositories (filled by a
 * real source-controller) and calls on_artifact when one's .status.artifact
 * revision or digest changes (also when it first gets one; on the main
 * loop's thread: the watches are loopwatch.h's); sets up the
 * fetcher (fetcher_path, NULL: next to bulkheadd) that artifact_fetch
 * downloads the artifacts with. */
int sources_watch_external(const kube_config *cfg, const char *fetcher_path,
			   void (*on_artifact)(const char *kind, const char *ns, const char *name), bh_error *err);

/* Makes HelmChart or OCIRepository (kind) ns/name due now (its artifact
 * is missing from the cache). */
void sources_kick(const char *kind, const char *ns, const char *name);

/* Pure parts, for tests: HelmRepository/HelmChart fields bulkhead does not
 * support, refused by name (0, or BH_EINVAL with err naming the field). */
int sources_check_repository(const json_t *repo, bh_error *err);
int sources_check_chart(const json_t *chart, bh_error *err);
int sources_check_oci(const json_t *ocirepo, bh_error *err);

/* An OCIRepository's spec as the built-in source uses it, decoded once
 * (sources_oci_decode): the strings point into the object decoded, which
 * must outlive it. */
typedef struct sources_oci_spec {
	const char *url;             /* oci://host/path */
	/* the reference, in source-controller's precedence: digest, else
	 * semver (among the tags semver_filter matches), else tag, else
	 * "latest"; only the one that applies is set */
	const char *digest, *semver, *semver_filter, *tag;
	const char *media_type;      /* layerSelector.mediaType, or NULL: the Helm chart layer */
	const char *operation;       /* layerSelector.operation: "extract" (default) or "copy" */
	const char *secret_ref;      /* Secret names in the object's namespace, or NULL */
	const char *cert_secret_ref;
	const char *proxy_secret_ref;
	const char *service_account; /* serviceAccountName: its imagePullSecrets, or NULL */
	int insecure;                /* plain HTTP */
	const char *verify_secret;   /* .spec.verify (provider cosign): the Secret of its public keys, or NULL */
	int verify;                  /* .spec.verify is set */
} sources_oci_spec;

/* .spec.verify of a HelmChart or an OCIRepository, checked: provider
 * cosign (the CRDs' default) or notation, secretRef.name, the
 * matchOIDCIdentity entries. With builtin, only what bulkhead's built-in
 * sources verify is accepted: cosign with public keys (a secretRef); keyless
 * cosign (Sigstore's public Fulcio and Rekor, online) and notation are
 * refused by name. *secret: the secretRef's name, or NULL. 0, or BH_EINVAL
 * naming the field. */
int sources_verify_decode(const json_t *verify, int builtin, const char **secret, bh_error *err);

/* Decodes and checks an OCIRepository's spec: 0, or BH_EINVAL with err
 * naming the field (refused, wrong type, too long, invalid). */
int sources_oci_decode(const json_t *ocirepo, sources_oci_spec *s, bh_error *err);

#endif
