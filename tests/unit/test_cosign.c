/* tests/unit/test_cosign.c — cosign signatures checked with public keys
 * (fetcher/cosign.h): good signatures with ECDSA P-256 and P-384, RSA
 * (PKCS#1 v1.5, SHA-256) and Ed25519 keys made here with OpenSSL; a
 * signature by another key, of other bytes, over a payload naming another
 * digest; keys and signatures that cannot be decoded; the signature
 * manifest and payload decoders with their limits. The texts are cosign's
 * and sigstore's. */
#include <check.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdlib.h>
#include <string.h>

#include "fetcher/cosign.h"
#include "tests/unit/unit_util.h"

#define DIGEST "sha256:2a8a6a0ff1ea5b8d4d2b2f3f6c5e7ef3c43ab3a02d8c8c5b35ac9bd0f6c5a3e1"
#define OTHER "sha256:0000000000000000000000000000000000000000000000000000000000000000"

static const char *payload_for(const char *digest, char *buf, size_t n)
{
	snprintf(buf, n,
		 "{\"critical\":{\"identity\":{\"docker-reference\":\"r.example/charts/app\"},\"image\":"
		 "{\"docker-manifest-digest\":\"%s\"},\"type\":\"cosign container image signature\"},\"optional\":null}",
		 digest);
	return buf;
}

static EVP_PKEY *keygen(const char *kind)
{
	EVP_PKEY *k = !strcmp(kind, "P-256") || !strcmp(kind, "P-384") ? EVP_PKEY_Q_keygen(NULL, NULL, "EC", kind)
		      : !strcmp(kind, "RSA")                          ? EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048)
									      : EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	ck_assert_ptr_nonnull(k);
	return k;
}

/* The public key as PEM (caller frees). */
static char *pub_pem(EVP_PKEY *k)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *p, *s;
	long n;
	ck_assert_int_eq(PEM_write_bio_PUBKEY(b, k), 1);
	n = BIO_get_mem_data(b, &p);
	s = strndup(p, (size_t)n);
	BIO_free(b);
	return s;
}

/* base64 of k's signature over msg, as `openssl dgst -sha256 -sign` (Ed25519: the message itself). */
static char *sign_b64(EVP_PKEY *k, const char *msg)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	unsigned char sig[1024];
	size_t sn = sizeof sig;
	char *b = malloc(2048);
	ck_assert_int_eq(EVP_DigestSignInit(c, NULL, EVP_PKEY_get_base_id(k) == EVP_PKEY_ED25519 ? NULL : EVP_sha256(),
					    NULL, k), 1);
	ck_assert_int_eq(EVP_DigestSign(c, sig, &sn, (const unsigned char *)msg, strlen(msg)), 1);
	EVP_EncodeBlock((unsigned char *)b, sig, (int)sn);
	EVP_MD_CTX_free(c);
	return b;
}

static int check(const char *pem, const char *payload, const char *sig, const char *want, bh_error *e)
{
	return cosign_check(pem, strlen(pem), payload, strlen(payload), sig, want, e);
}

START_TEST(test_good_and_bad)
{
	static const struct {
		const char *kind, *mismatch;
	} kinds[] = {
		{"P-256", "invalid signature when validating ASN.1 encoded signature"},
		{"P-384", "invalid signature when validating ASN.1 encoded signature"},
		{"RSA", "crypto/rsa: verification error"},
		{"ED25519", "failed to verify signature"},
	};
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
		EVP_PKEY *k = keygen(kinds[i].kind), *other = keygen(kinds[i].kind);
		char buf[600], buf2[600], *pem = pub_pem(k), *opem = pub_pem(other);
		const char *good = payload_for(DIGEST, buf, sizeof buf), *wrong = payload_for(OTHER, buf2, sizeof buf2);
		char *sig = sign_b64(k, good), *sig_wrong = sign_b64(k, wrong);
		bh_error e;
		ck_assert_msg(check(pem, good, sig, DIGEST, &e) == 0, "%s: %s", kinds[i].kind, e.msg);
		/* another key */
		ck_assert_int_eq(check(opem, good, sig, DIGEST, &e), BH_EDENIED);
		ck_assert_str_eq(e.msg, kinds[i].mismatch);
		/* the signature of other bytes */
		ck_assert_int_eq(check(pem, good, sig_wrong, DIGEST, &e), BH_EDENIED);
		ck_assert_str_eq(e.msg, kinds[i].mismatch);
		/* a good signature over a payload naming another digest */
		ck_assert_int_eq(check(pem, wrong, sig_wrong, DIGEST, &e), BH_EDENIED);
		ck_assert_str_eq(e.msg, "invalid or missing digest in claim: " OTHER);
		free(sig);
		free(sig_wrong);
		free(pem);
		free(opem);
		EVP_PKEY_free(k);
		EVP_PKEY_free(other);
	}
}
END_TEST

START_TEST(test_undecodable)
{
	EVP_PKEY *k = keygen("P-256");
	char buf[600], *pem = pub_pem(k);
	const char *good = payload_for(DIGEST, buf, sizeof buf);
	char *sig = sign_b64(k, good), *priv, *p;
	BIO *b = BIO_new(BIO_s_mem());
	long n;
	bh_error e;
	ck_assert_int_eq(check("not a key", good, sig, DIGEST, &e), BH_EINVAL);
	ck_assert_str_eq(e.msg, "PEM decoding failed");
	ck_assert_int_eq(PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL), 1);
	n = BIO_get_mem_data(b, &p);
	priv = strndup(p, (size_t)n);
	ck_assert_int_eq(cosign_key_check(priv, strlen(priv), &e), BH_EINVAL);
	ck_assert_str_eq(e.msg, "unknown Public key PEM file type: PRIVATE KEY. Are you passing the correct public key?");
	ck_assert_int_eq(cosign_key_check(pem, strlen(pem), &e), 0);
	{
		const char *junk = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n";
		ck_assert_int_eq(cosign_key_check(junk, strlen(junk), &e), BH_EINVAL);
		ck_assert_str_eq(e.msg, "x509: failed to parse public key: the PUBLIC KEY block is not valid DER");
	}
	/* Go's base64.StdEncoding: padding required; line breaks skipped */
	ck_assert_int_eq(check(pem, good, "AB*=", DIGEST, &e), BH_EINVAL);
	ck_assert_str_eq(e.msg, "illegal base64 data at input byte 2");
	ck_assert_int_eq(check(pem, good, "QUJD", DIGEST, &e), BH_EDENIED);
	ck_assert_int_eq(check(pem, good, "QUI", DIGEST, &e), BH_EINVAL);
	ck_assert_int_eq(check(pem, good, "QQ==QQ==", DIGEST, &e), BH_EINVAL);
	{
		char wrapped[2200];
		size_t l = strlen(sig);
		snprintf(wrapped, sizeof wrapped, "%.*s\n%s", (int)(l / 2), sig, sig + l / 2);
		ck_assert_msg(check(pem, good, wrapped, DIGEST, &e) == 0, "%s", e.msg);
	}
	/* a payload that is not a simple-signing document, well signed */
	free(sig);
	sig = sign_b64(k, "{\"critical\":\"x\"}");
	ck_assert_int_eq(check(pem, "{\"critical\":\"x\"}", sig, DIGEST, &e), BH_EPARSE);
	ck_assert_str_eq(e.msg, "json: cannot unmarshal string into Go struct field SimpleContainerImage.critical of type "
				"payload.Critical");
	free(sig);
	free(priv);
	free(pem);
	BIO_free(b);
	EVP_PKEY_free(k);
}
END_TEST

#define PD(t) cosign_payload_digest(t, strlen(t), &d, &e)
#define SD(t) cosign_sigmanifest_decode(t, strlen(t), &s, &e)

START_TEST(test_payload_decoder)
{
	char *d;
	bh_error e;
	ck_assert_int_eq(PD("{\"Critical\":{\"IMAGE\":{\"Docker-Manifest-Digest\":\"sha256:ab\"}}}"), 0);
	ck_assert_str_eq(d, "sha256:ab");
	free(d);
	ck_assert_int_eq(PD("{\"critical\":null}"), 0);
	ck_assert_str_eq(d, "");
	free(d);
	ck_assert_int_eq(PD("[1]"), BH_EPARSE);
	ck_assert_int_eq(PD("{\"critical\":{\"image\":{\"docker-manifest-digest\":7}}}"),
			 BH_EPARSE);
	ck_assert_str_eq(e.msg, "json: cannot unmarshal number into Go struct field Image.critical.image.docker-manifest-digest "
				"of type string");
	ck_assert_int_eq(PD("{\"a\":1,\"a\":2}"), BH_EPARSE);
	ck_assert_int_eq(cosign_payload_digest("{}", COSIGN_MAX_PAYLOAD + 1, &d, &e), BH_ELIMIT);
}
END_TEST

START_TEST(test_manifest_decoder)
{
	cosign_sigs s;
	bh_error e;
	char big[8000];
	size_t at;
	const char *m = "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"config\":{},"
			"\"layers\":[{\"mediaType\":\"application/vnd.dev.cosign.simplesigning.v1+json\",\"size\":10,\"digest\":"
			"\"" DIGEST "\",\"annotations\":{\"dev.cosignproject.cosign/signature\":\"QUJD\"}},"
			"{\"mediaType\":\"x\",\"size\":1,\"digest\":\"" OTHER "\"}]}";
	ck_assert_int_eq(cosign_sigmanifest_decode(m, strlen(m), &s, &e), 0);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_str_eq(s.v[0].digest, DIGEST);
	ck_assert_str_eq(s.v[0].b64sig, "QUJD");
	ck_assert_int_eq(s.v[0].size, 10);
	ck_assert_ptr_null(s.v[1].b64sig);
	cosign_sigs_free(&s);
	ck_assert_int_eq(SD("{\"schemaVersion\":2,\"layers\":[{\"digest\":\"md5:x\",\"size\":1}]}"), BH_EINVAL);
	ck_assert_str_eq(e.msg, "signature manifest: layer 0: digest is missing or not sha256:<64 hex digits>");
	cosign_sigs_free(&s);
	ck_assert_int_eq(SD("{\"schemaVersion\":1,\"layers\":[]}"), BH_EINVAL);
	cosign_sigs_free(&s);
	at = (size_t)snprintf(big, sizeof big, "{\"schemaVersion\":2,\"layers\":[");
	for (int i = 0; i <= COSIGN_MAX_SIGNATURES; i++)
		at += (size_t)snprintf(big + at, sizeof big - at, "%s{\"size\":1,\"digest\":\"%s\"}", i ? "," : "", DIGEST);
	at += (size_t)snprintf(big + at, sizeof big - at, "]}");
	ck_assert_uint_lt(at, sizeof big);
	ck_assert_int_eq(cosign_sigmanifest_decode(big, at, &s, &e), BH_ELIMIT);
	cosign_sigs_free(&s);
}
END_TEST

/* the supervisor's check of a fetcher's report (cosign_check_evidence) */
START_TEST(test_evidence)
{
	EVP_PKEY *k = keygen("P-256"), *other = keygen("P-256");
	char *pem = pub_pem(k), *opem = pub_pem(other), manifest[600], md[72], want[72], payload[600], *mb, *pb, *sig;
	unsigned char d[32];
	unsigned dl = 0;
	bh_error e;
	snprintf(manifest, sizeof manifest,
		 "{\"schemaVersion\":2,\"config\":{\"mediaType\":\"application/vnd.cncf.helm.config.v1+json\",\"size\":1,"
		 "\"digest\":\"%s\"},\"layers\":[{\"mediaType\":\"application/vnd.cncf.helm.chart.content.v1.tar+gzip\","
		 "\"size\":3,\"digest\":\"%s\"}]}",
		 OTHER, DIGEST);
	EVP_Digest(manifest, strlen(manifest), d, &dl, EVP_sha256(), NULL);
	strcpy(want, "sha256:");
	for (int i = 0; i < 32; i++)
		snprintf(want + 7 + 2 * i, 3, "%02x", d[i]);
	payload_for(want, payload, sizeof payload);
	sig = sign_b64(k, payload);
	mb = cosign_b64(manifest, strlen(manifest));
	pb = cosign_b64(payload, strlen(payload));
	ck_assert_msg(cosign_check_evidence(pem, mb, pb, sig, DIGEST, md, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(md, want);
	ck_assert_int_eq(cosign_check_evidence(pem, mb, pb, sig, NULL, md, &e), 0);
	/* the artifact is not a layer of the signed manifest */
	ck_assert_int_eq(cosign_check_evidence(pem, mb, pb, sig, OTHER, md, &e), BH_EDENIED);
	{
		char m[300];
		snprintf(m, sizeof m, "the artifact %s is no layer of the signed manifest %s", OTHER, want);
		ck_assert_str_eq(e.msg, m);
	}
	/* another key; another manifest than the payload claims */
	ck_assert_int_eq(cosign_check_evidence(opem, mb, pb, sig, DIGEST, md, &e), BH_EDENIED);
	free(mb);
	manifest[strlen(manifest) - 1] = ' ';
	mb = cosign_b64(manifest, strlen(manifest));
	ck_assert_int_eq(cosign_check_evidence(pem, mb, pb, sig, DIGEST, md, &e), BH_EDENIED);
	ck_assert_ptr_nonnull(strstr(e.msg, "invalid or missing digest in claim: sha256:"));
	/* cosign_b64 is base64's standard alphabet with padding */
	free(mb);
	mb = cosign_b64("\xfb\xff", 2);
	ck_assert_str_eq(mb, "+/8=");
	free(mb);
	mb = cosign_b64("abc", 3);
	ck_assert_str_eq(mb, "YWJj");
	free(mb);
	free(pb);
	free(sig);
	free(pem);
	free(opem);
	EVP_PKEY_free(k);
	EVP_PKEY_free(other);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cosign");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_good_and_bad);
	tcase_add_test(tc, test_undecodable);
	tcase_add_test(tc, test_payload_decoder);
	tcase_add_test(tc, test_manifest_decoder);
	tcase_add_test(tc, test_evidence);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
