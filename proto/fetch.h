/* proto/fetch.h — the messages between bulkheadd and bulkhead-fetcher.
 * PROTO_FETCH (supervisor -> fetcher) carries one request as a JSON object
 * with the credentials of that one source only; PROTO_FETCH_RESULT (fetcher
 * -> supervisor) carries the outcome as a JSON object and, on success, the
 * artifact as a sealed read-only memfd. Both decoders check every key
 * against a catalogue (unknown keys, wrong types, control characters and
 * oversized values are refused); the result decoder treats its bytes as
 * hostile (a compromised fetcher), and the supervisor verifies the fd's
 * digest itself. */
#ifndef BH_PROTO_FETCH_H
#define BH_PROTO_FETCH_H

#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"

#define PROTO_MAX_FETCH_REQUEST (256u << 10)
#define PROTO_MAX_FETCH_RESULT (64u << 10)

enum proto_fetch_op {
	FETCH_OP_INDEX = 1,    /* a Helm repository's index.yaml (artifact: the index) */
	FETCH_OP_CHART,        /* index.yaml, pick chart/version, download it */
	FETCH_OP_ARTIFACT,     /* a URL whose digest is known (source-controller artifacts) */
	FETCH_OP_OCI,          /* an OCIRepository: url oci://..., tag/semver/refDigest, mediaType */
};

/* A list of strings (each printable, no newline). */
typedef struct proto_strv {
	char **v;
	size_t n;
} proto_strv;

typedef struct proto_fetch_request {
	int op;
	char *url;                       /* repository URL (http(s):// or oci://), or artifact URL */
	char *chart, *version;           /* CHART: name and semver constraint */
	char *digest;                    /* ARTIFACT: expected "sha256:<hex>" */
	char *have_version, *have_digest;/* CHART, OCI: the artifact the supervisor holds (OCI: its revision) */
	char *username, *password;
	char *ca_pem, *cert_pem, *key_pem;
	char *docker_config;             /* .dockerconfigjson of the source's secret */
	char *tag, *semver, *ref_digest, *media_type; /* OCI: the reference and the layer */
	char *semver_filter;             /* OCI: a Go regexp the tags must match before semver picks */
	proto_strv pull_secret_configs;  /* OCI: docker configs of the serviceAccountName's imagePullSecrets,
					  * in order, after docker_config (the first entry for a registry wins) */
	char *proxy_url;                 /* http(s)://host:port of a proxy for every request, or NULL */
	char *proxy_username, *proxy_password;
	proto_strv values_files;         /* CHART: HelmChart .spec.valuesFiles (re-package, chartvalues.h) */
	char *version_metadata;          /* CHART with values_files: the HelmChart's generation */
	int ignore_missing_values_files;
	int verify;                      /* CHART, OCI: check the cosign signatures of the manifest
					  * (fetcher/cosign.h; an HTTP repository's chart: refused as
					  * source-controller refuses it) */
	proto_strv cosign_keys;          /* verify: the PEM public keys (the Secret's *.pub) */
	char *verified_revision;         /* OCI verify: a revision verified before (not checked again) */
	int insecure_skip_verify, pass_credentials, plain_http;
	long long timeout_ms, max_index, max_chart;
} proto_fetch_request;

typedef struct proto_fetch_result {
	int ok;
	int unchanged;   /* CHART: resolved to have_version/have_digest; no fd */
	char *reason;    /* CamelCase */
	char *message;
	char *digest;    /* "sha256:<64 hex>" of the artifact */
	char *revision;  /* INDEX: the index digest; CHART: the chart version; OCI: <tag>@<manifest digest> */
	char *chart;     /* CHART: chart name */
	proto_strv observed_values_files; /* CHART with values files: those merged */
	int verified;    /* verify: a signature of the revision verified now, and its evidence for the
			  * supervisor (fetcher/cosign.h cosign_check_evidence): */
	char *sig_manifest;  /* base64 of the artifact manifest's bytes */
	char *sig_payload;   /* base64 of the signed simple-signing payload */
	char *sig_signature; /* the base64 signature */
	int sig_key;         /* the index of the key in the request's cosign_keys */
	long long size;
} proto_fetch_result;

int proto_fetch_request_encode(const proto_fetch_request *r, bh_buf *out, bh_error *err);
int proto_fetch_request_decode(const unsigned char *p, size_t n, proto_fetch_request *r, bh_error *err);
void proto_fetch_request_free(proto_fetch_request *r);

int proto_fetch_result_encode(const proto_fetch_result *r, bh_buf *out, bh_error *err);
int proto_fetch_result_decode(const unsigned char *p, size_t n, proto_fetch_result *r, bh_error *err);
void proto_fetch_result_free(proto_fetch_result *r);

#endif
