/* fetcher/cosign.c — see cosign.h. */
#include "fetcher/cosign.h"

#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fetcher/ocidec.h"
#include "lib/buf.h"

/* ---- decoders ------------------------------------------------------------------ */
static int printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}

static int layer(size_t i, const json_t *l, cosign_layer *out, bh_error *err)
{
	const json_t *d = json_object_get(l, "digest"), *sz = json_object_get(l, "size");
	const json_t *ann = json_object_get(l, "annotations"), *sig;
	if (!json_is_object(l))
		return bh_error_set(err, BH_EINVAL, "signature manifest: layer %zu is not an object", i);
	if (!json_is_string(d) || !oci_digest_valid_sha256(json_string_value(d)))
		return bh_error_set(err, BH_EINVAL, "signature manifest: layer %zu: digest is missing or not "
				    "sha256:<64 hex digits>", i);
	if (!json_is_integer(sz) || json_integer_value(sz) < 0)
		return bh_error_set(err, BH_EINVAL, "signature manifest: layer %zu: size is missing or negative", i);
	if (ann && !json_is_null(ann) && !json_is_object(ann))
		return bh_error_set(err, BH_EINVAL, "signature manifest: layer %zu: annotations is not an object", i);
	sig = json_object_get(ann, COSIGN_SIG_ANNOTATION);
	if (sig && (!json_is_string(sig) || json_string_length(sig) > COSIGN_MAX_SIGNATURE_B64 ||
		    !printable(json_string_value(sig), json_string_length(sig))))
		return bh_error_set(err, BH_EINVAL, "signature manifest: layer %zu: the %s annotation is not a "
				    "printable string of at most %d bytes", i, COSIGN_SIG_ANNOTATION, COSIGN_MAX_SIGNATURE_B64);
	out->size = json_integer_value(sz);
	if (!(out->digest = strdup(json_string_value(d))) || (sig && !(out->b64sig = strdup(json_string_value(sig)))))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	return 0;
}

int cosign_sigmanifest_decode(const char *text, size_t n, cosign_sigs *out, bh_error *err)
{
	json_t *root, *list, *l;
	size_t i;
	int rc = 0;
	memset(out, 0, sizeof *out);
	if (!(root = oci_json_load("signature manifest", text, n, COSIGN_MAX_MANIFEST, err)))
		return err->code;
	list = json_object_get(root, "layers");
	if (!json_is_integer(json_object_get(root, "schemaVersion")) ||
	    json_integer_value(json_object_get(root, "schemaVersion")) != 2)
		rc = bh_error_set(err, BH_EINVAL, "signature manifest: schemaVersion must be 2");
	else if (!json_is_array(list))
		rc = bh_error_set(err, BH_EINVAL, "signature manifest: layers is missing or not an array");
	else if (json_array_size(list) > COSIGN_MAX_SIGNATURES)
		rc = bh_error_set(err, BH_ELIMIT, "signature manifest: %zu layers, limit %d", json_array_size(list),
				  COSIGN_MAX_SIGNATURES);
	else if (!(out->v = calloc(json_array_size(list) + 1, sizeof *out->v)))
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
	if (rc == 0)
		json_array_foreach(list, i, l) {
			out->n++;
			if ((rc = layer(i, l, &out->v[i], err)) < 0)
				break;
		}
	json_decref(root);
	return rc;
}

void cosign_sigs_free(cosign_sigs *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].digest);
		free(s->v[i].b64sig);
	}
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* o's member for a Go struct field's json name: the exact key, else the
 * first key equal to it without regard to ASCII case. */
static const json_t *member(const json_t *o, const char *name)
{
	const json_t *v = json_object_get(o, name);
	const char *k;
	json_t *it;
	if (v)
		return v;
	json_object_foreach((json_t *)o, k, it) if (!strcasecmp(k, name)) return it;
	return NULL;
}

static const char *json_kind(const json_t *v)
{
	return json_is_object(v) ? "object" : json_is_array(v) ? "array" : json_is_string(v) ? "string"
	       : json_is_boolean(v) ? "bool" : "number";
}

int cosign_payload_digest(const char *text, size_t n, char **digest, bh_error *err)
{
	json_t *root;
	const json_t *crit, *img, *d;
	int rc = 0;
	*digest = NULL;
	if (!(root = oci_json_load("simple signing payload", text, n, COSIGN_MAX_PAYLOAD, err)))
		return err->code;
	crit = member(root, "critical");
	img = json_is_object(crit) ? member(crit, "image") : NULL;
	d = json_is_object(img) ? member(img, "docker-manifest-digest") : NULL;
	/* encoding/json: null leaves a field as it is */
	if (crit && !json_is_null(crit) && !json_is_object(crit))
		rc = bh_error_set(err, BH_EPARSE, "json: cannot unmarshal %s into Go struct field "
				  "SimpleContainerImage.critical of type payload.Critical", json_kind(crit));
	else if (img && !json_is_null(img) && !json_is_object(img))
		rc = bh_error_set(err, BH_EPARSE, "json: cannot unmarshal %s into Go struct field "
				  "Critical.critical.image of type payload.Image", json_kind(img));
	else if (d && !json_is_null(d) && !json_is_string(d))
		rc = bh_error_set(err, BH_EPARSE, "json: cannot unmarshal %s into Go struct field "
				  "Image.critical.image.docker-manifest-digest of type string", json_kind(d));
	else if (!(*digest = strdup(json_is_string(d) ? json_string_value(d) : "")))
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
	json_decref(root);
	return rc;
}

/* ---- keys and signatures ------------------------------------------------------------ */
/* Go's base64.StdEncoding.DecodeString of s's n bytes: padding required,
 * '\r' and '\n' skipped (with pem, all white space, as pem.Decode). *out
 * (caller frees) holds *outn bytes. */
static int b64_decode(const char *s, size_t n, int pem, unsigned char **out, size_t *outn, bh_error *err)
{
	size_t k = 0, pad = 0, at = 0;
	unsigned char *o = malloc(n / 4 * 3 + 3);
	unsigned q[4];
	if (!o)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		int v;
		if (s[i] == '\r' || s[i] == '\n' || (pem && (s[i] == ' ' || s[i] == '\t')))
			continue;
		if (s[i] == '=' && k >= 2) {
			pad++;
			q[k++] = 0;
		} else if (pad || (v = bh_base64_value((unsigned char)s[i])) < 0) {
			free(o);
			return bh_error_set(err, BH_EINVAL, "illegal base64 data at input byte %zu", i);
		} else {
			q[k++] = (unsigned)v;
		}
		if (k == 4) {
			unsigned v = q[0] << 18 | q[1] << 12 | q[2] << 6 | q[3];
			o[at++] = (unsigned char)(v >> 16);
			if (pad < 2)
				o[at++] = (unsigned char)(v >> 8);
			if (pad < 1)
				o[at++] = (unsigned char)v;
			k = 0;
			if (pad)
				pad = 3; /* nothing may follow the padding */
		}
	}
	if (k) {
		free(o);
		return bh_error_set(err, BH_EINVAL, "illegal base64 data at input byte %zu", n);
	}
	*out = o;
	*outn = at;
	return 0;
}

/* The first PEM block of text (encoding/pem's Decode, without headers):
 * its type (into type) and bytes (*der, caller frees). -1 when there is none. */
static int pem_block(const char *text, size_t n, char *type, size_t tn, unsigned char **der, size_t *dn)
{
	const char *end = text + n, *p = text, *t, *body, *stop;
	char endline[200];
	bh_error e;
	for (;;) {
		p = memmem(p, (size_t)(end - p), "-----BEGIN ", 11);
		if (!p)
			return -1;
		if (p == text || p[-1] == '\n')
			break;
		p += 11;
	}
	t = p + 11;
	body = memmem(t, (size_t)(end - t), "-----", 5);
	if (!body || (size_t)(body - t) >= tn || memchr(t, '\n', (size_t)(body - t)))
		return -1;
	snprintf(type, tn, "%.*s", (int)(body - t), t);
	body += 5;
	snprintf(endline, sizeof endline, "-----END %s-----", type);
	if (!(stop = memmem(body, (size_t)(end - body), endline, strlen(endline))))
		return -1;
	return b64_decode(body, (size_t)(stop - body), 1, der, dn, &e) < 0 ? -1 : 0;
}

/* sigstore's cryptoutils.UnmarshalPEMToPublicKey, then LoadVerifier's key types. */
static int load_key(const char *pem, size_t n, EVP_PKEY **key, bh_error *err)
{
	char type[100];
	unsigned char *der = NULL;
	const unsigned char *p;
	size_t dn = 0;
	int rc = 0, id;
	*key = NULL;
	if (n > COSIGN_MAX_KEY_PEM)
		return bh_error_set(err, BH_ELIMIT, "public key: %zu bytes, limit %d", n, COSIGN_MAX_KEY_PEM);
	if (pem_block(pem, n, type, sizeof type, &der, &dn) < 0)
		return bh_error_set(err, BH_EINVAL, "PEM decoding failed");
	p = der;
	if (!strcmp(type, "PUBLIC KEY"))
		*key = d2i_PUBKEY(NULL, &p, (long)dn);
	else if (!strcmp(type, "RSA PUBLIC KEY"))
		*key = d2i_PublicKey(EVP_PKEY_RSA, NULL, &p, (long)dn);
	else
		rc = bh_error_set(err, BH_EINVAL, "unknown Public key PEM file type: %s. Are you passing the correct "
				  "public key?", type);
	if (rc == 0 && (!*key || p != der + dn))
		rc = bh_error_set(err, BH_EINVAL, "x509: failed to parse public key: the %s block is not valid DER", type);
	if (rc == 0 && (id = EVP_PKEY_get_base_id(*key)) != EVP_PKEY_EC && id != EVP_PKEY_RSA && id != EVP_PKEY_ED25519)
		rc = bh_error_set(err, BH_EINVAL, "unsupported public key type");
	if (rc < 0) {
		EVP_PKEY_free(*key);
		*key = NULL;
	}
	free(der);
	return rc;
}

int cosign_key_check(const char *pem, size_t n, bh_error *err)
{
	EVP_PKEY *k;
	int rc = load_key(pem, n, &k, err);
	EVP_PKEY_free(k);
	return rc;
}

/* The verifier's own message for a signature that does not verify. */
static const char *mismatch_text(int id)
{
	return id == EVP_PKEY_EC    ? "invalid signature when validating ASN.1 encoded signature"
	       : id == EVP_PKEY_RSA ? "crypto/rsa: verification error"
				    : "failed to verify signature";
}

int cosign_check(const char *pem, size_t pem_len, const void *payload, size_t n, const char *b64sig,
		 const char *want_digest, bh_error *err)
{
	EVP_PKEY *key;
	EVP_MD_CTX *ctx = NULL;
	unsigned char *sig = NULL;
	size_t sn = 0;
	char *got = NULL;
	int rc, id;
	if ((rc = load_key(pem, pem_len, &key, err)) < 0)
		return rc;
	id = EVP_PKEY_get_base_id(key);
	if ((rc = b64_decode(b64sig, strlen(b64sig), 0, &sig, &sn, err)) < 0)
		goto done;
	if (!(ctx = EVP_MD_CTX_new()) ||
	    EVP_DigestVerifyInit(ctx, NULL, id == EVP_PKEY_ED25519 ? NULL : EVP_sha256(), NULL, key) != 1) {
		rc = bh_error_set(err, BH_ENOMEM, "cannot set up signature verification");
		goto done;
	}
	if (EVP_DigestVerify(ctx, sig, sn, payload, n) != 1) {
		rc = bh_error_set(err, BH_EDENIED, "%s", mismatch_text(id));
		goto done;
	}
	/* cosign.SimpleClaimVerifier */
	if ((rc = cosign_payload_digest(payload, n, &got, err)) < 0)
		goto done;
	if (strcmp(got, want_digest) != 0)
		rc = bh_error_set(err, BH_EDENIED, "invalid or missing digest in claim: %.200s", got);
done:
	free(got);
	free(sig);
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(key);
	return rc;
}

char *cosign_b64(const void *p, size_t n)
{
	bh_buf b = BH_BUF_INIT;
	bh_buf_put_base64(&b, p, n, 0);
	if (!bh_buf_ok(&b)) {
		bh_buf_free(&b);
		return NULL;
	}
	return bh_buf_detach(&b);
}

int cosign_check_evidence(const char *pem, const char *manifest_b64, const char *payload_b64, const char *b64sig,
			  const char *artifact_digest, char md[72], bh_error *err)
{
	unsigned char *man = NULL, *pay = NULL, d[32];
	size_t mn = 0, pn = 0;
	unsigned dl = 0;
	oci_manifest *m = NULL;
	int rc;
	if ((rc = b64_decode(manifest_b64, strlen(manifest_b64), 0, &man, &mn, err)) < 0 ||
	    (rc = b64_decode(payload_b64, strlen(payload_b64), 0, &pay, &pn, err)) < 0)
		goto done;
	EVP_Digest(man, mn, d, &dl, EVP_sha256(), NULL);
	memcpy(md, "sha256:", 7);
	for (unsigned i = 0; i < 32; i++)
		snprintf(md + 7 + 2 * i, 3, "%02x", d[i]);
	if ((rc = cosign_check(pem, strlen(pem), pay, pn, b64sig, md, err)) < 0)
		goto done;
	if (artifact_digest) {
		size_t i = 0;
		if ((rc = oci_manifest_decode((const char *)man, mn, &m, err)) < 0)
			goto done;
		while (!m->is_index && i < m->nlayers && strcmp(m->layers[i].digest, artifact_digest) != 0)
			i++;
		if (m->is_index || i == m->nlayers)
			rc = bh_error_set(err, BH_EDENIED, "the artifact %s is no layer of the signed manifest %s", artifact_digest, md);
	}
done:
	oci_manifest_free(m);
	free(man);
	free(pay);
	return rc;
}
