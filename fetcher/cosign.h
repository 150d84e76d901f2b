/* fetcher/cosign.h — cosign signatures checked with public keys, as
 * source-controller's key-based verifier does it (cosign CheckOpts with
 * Offline and IgnoreTlog: no transparency log, no certificates): the
 * signatures of an artifact whose manifest has digest sha256:<hex> are the
 * layers of the manifest at tag "sha256-<hex>.sig" in the same repository;
 * each layer is a simple-signing JSON payload (a blob, checked against the
 * layer's sha256 digest) and its base64 signature is the layer's annotation
 * dev.cosignproject.cosign/signature. A signature is good when it verifies
 * over the payload with one trusted public key (ECDSA, RSA PKCS#1 v1.5:
 * SHA-256; Ed25519: the payload itself) and the payload's
 * critical.image.docker-manifest-digest is the artifact's digest.
 *
 * The decoders (cosign_sigmanifest_decode, cosign_payload_digest) are pure
 * functions over untrusted bytes with size and count limits (fuzz target
 * tests/fuzz/fuzz_cosign.c); the error texts are cosign's and sigstore's,
 * so that they read as source-controller's conditions. */
#ifndef BH_FETCHER_COSIGN_H
#define BH_FETCHER_COSIGN_H

#include <stddef.h>

#include "lib/error.h"

#define COSIGN_SIG_ANNOTATION "dev.cosignproject.cosign/signature"
#define COSIGN_MAX_MANIFEST ((size_t)1 << 20)   /* bytes of a signature manifest */
#define COSIGN_MAX_SIGNATURES 64                /* layers of a signature manifest */
#define COSIGN_MAX_PAYLOAD ((size_t)64 << 10)   /* bytes of one simple-signing payload (cosign writes ~250) */
#define COSIGN_MAX_SIGNATURE_B64 16384          /* bytes of one base64 signature */
#define COSIGN_MAX_KEYS 64                      /* public keys of one verification */
#define COSIGN_MAX_KEY_PEM 65536

typedef struct cosign_layer {
	char *digest;  /* "sha256:<hex>" of the payload blob (checked) */
	long long size;
	char *b64sig;  /* the annotation's value, or NULL when the layer has none */
} cosign_layer;

typedef struct cosign_sigs {
	cosign_layer *v;
	size_t n;
} cosign_sigs;

/* The layers of a signature manifest (an OCI or Docker image manifest,
 * schemaVersion 2). BH_EPARSE, BH_EINVAL (a missing or wrong field,
 * named), BH_ELIMIT. Free with cosign_sigs_free (also after a failure). */
int cosign_sigmanifest_decode(const char *text, size_t n, cosign_sigs *out, bh_error *err);
void cosign_sigs_free(cosign_sigs *s);

/* critical.image.docker-manifest-digest of a simple-signing payload (json
 * member names matched as encoding/json does: exact, else ASCII
 * case-insensitive), "" when absent or null. Caller frees *digest.
 * BH_EPARSE (not JSON, or a member of the wrong type: encoding/json's
 * message), BH_ELIMIT. */
int cosign_payload_digest(const char *text, size_t n, char **digest, bh_error *err);

/* Is pem (n bytes) a public key a verifier can be made of? 0, or BH_EINVAL
 * with sigstore's message ("PEM decoding failed", ...). */
int cosign_key_check(const char *pem, size_t n, bh_error *err);

/* One signature against one key: the base64 signature over payload, then
 * the payload's claim against want_digest. 0 when both hold; BH_EDENIED
 * with the reason cosign gives (the verifier's "invalid signature when
 * validating ASN.1 encoded signature", "crypto/rsa: verification error",
 * "failed to verify signature", or "invalid or missing digest in claim:
 * <digest>"); BH_EINVAL for a key or signature that cannot be decoded. */
int cosign_check(const char *pem, size_t pem_len, const void *payload, size_t n, const char *b64sig,
		 const char *want_digest, bh_error *err);

/* The supervisor's own check of a verification a fetcher reports (the
 * fetcher faces the registry and may be compromised): manifest_b64,
 * payload_b64 and b64sig as the fetcher hands them (base64 of the artifact
 * manifest's bytes and of the signed payload; the signature): the signature
 * verifies over the payload with pem, the payload claims the sha256 of the
 * manifest (into md), and artifact_digest (NULL: not checked) is the digest
 * of one of the manifest's layers. 0, or an error naming what does not hold. */
int cosign_check_evidence(const char *pem, const char *manifest_b64, const char *payload_b64, const char *b64sig,
			  const char *artifact_digest, char md[72], bh_error *err);
/* base64 (standard, padded) of n bytes; caller frees; NULL without memory */
char *cosign_b64(const void *p, size_t n);

#endif
