/* fetcher/oci.h — pulling one Helm chart from an OCI registry over the
 * distribution protocol (GET /v2/<name>/tags/list, manifests/<ref>,
 * blobs/<digest>), as Helm's registry client and Flux's source-controller
 * do: the reference resolved (a digest, a tag, or the highest tag matching
 * a semver constraint: Helm's GetTagMatchingVersionOrConstraint, '_' in a
 * tag read as '+'; for an OCIRepository, among the tags a Go regexp
 * matches, as source-controller's semverFilter), the manifest decoded (size-capped) and its sha256
 * computed, the chart layer picked by media type, the blob downloaded
 * within the chart cap and checked against its digest. Registry auth: an
 * anonymous request first; a 401 answer's WWW-Authenticate challenge
 * decides: Basic (the source's username/password), or Bearer (a token from
 * the challenge's realm for its service and scope, asked with the
 * credentials when there are any, then sent to the registry only). The
 * credentials come from the request or from a docker config JSON for the
 * registry's host, and are never sent to another host (redirects to blob
 * storage go without them). https unless plain_http. With verify, the
 * manifest's cosign signatures are checked (cosign.h) before the layer is
 * pulled, and also when the revision is the one already held. */
#ifndef BH_FETCHER_OCI_H
#define BH_FETCHER_OCI_H

#include "fetcher/http.h"
#include "lib/buf.h"
#include "lib/error.h"

#define OCI_HELM_CHART_MEDIA "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
#define OCI_HELM_CHART_LEGACY_MEDIA "application/tar+gzip"
#define OCI_HELM_CONFIG_MEDIA "application/vnd.cncf.helm.config.v1+json"
#define OCI_HELM_PROV_MEDIA "application/vnd.cncf.helm.chart.provenance.v1.prov"

typedef struct oci_pull_opts {
	const char *url;           /* oci://host[:port]/path, without a tag */
	const char *digest;        /* ref: this manifest digest, else */
	const char *tag;           /* this tag, else */
	const char *semver;        /* the highest tag matching (NULL/"" with helm: "*") */
	const char *semver_filter; /* with semver: only tags this Go regexp matches (unanchored) */
	int helm_tags;             /* tags as Helm writes them ('_' = '+'), exact match first */
	const char *media_type;    /* the layer to take (NULL: the Helm chart layer) */
	const char *docker_config; /* .dockerconfigjson, or NULL */
	const char *const *pull_configs; /* more docker configs (a ServiceAccount's imagePullSecrets), after */
	size_t npull_configs;      /* docker_config: the first entry for the registry wins */
	int plain_http;
	const char *have_revision; /* the revision already held: stop before the blob */
	int verify;                /* check the manifest's cosign signatures (cosign.h) with these keys */
	const char *const *verify_keys; /* PEM public keys: one good signature with any of them suffices */
	size_t nverify_keys;
	const char *verified_revision; /* a revision verified before: not checked again */
	size_t max_blob;
	http_opts *http;           /* credentials, TLS, timeout */
} oci_pull_opts;

typedef struct oci_pulled {
	char *tag;             /* the tag resolved (as written), or NULL for a digest ref */
	char *version;         /* the tag as a chart version ('_' -> '+') */
	char *manifest_digest; /* sha256:<hex> of the manifest bytes */
	char *revision;        /* "<tag>@<manifest digest>", or the digest */
	char *name;            /* last path element of the repository */
	int unchanged;         /* revision == have_revision: no blob fetched */
	int auth_failed;       /* the failure was the registry's refusal of our credentials */
	int verified;          /* verify: a signature of manifest_digest verified with one of the keys */
	/* verified: the evidence, for the supervisor to check again (cosign_check_evidence):
	 * the manifest's bytes and the signed payload (base64), the signature, the key's index */
	char *ev_manifest, *ev_payload, *ev_signature;
	int ev_key;
	int verify_failed;     /* the failure was the verification's (the error is cosign's) */
	int bundle_only;       /* no cosign v2 signature, but a cosign v3 bundle referrer: verify_failed too */
} oci_pulled;

/* 0 with the layer's bytes in blob (verified), or an error whose message
 * names the step (out->auth_failed set when authentication failed). */
int oci_pull(const oci_pull_opts *o, bh_buf *blob, oci_pulled *out, bh_error *err);
void oci_pulled_free(oci_pulled *p);

/* Splits "oci://host/path[:tag|@digest]" into url (without ref, caller
 * frees) and ref (the tag or digest in *tag / *digest, caller frees). */
int oci_ref_split(const char *ref, char **url, char **tag, char **digest, bh_error *err);

#endif
