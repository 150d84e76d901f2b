/* kube/curl_tls.c — the process's own TLS identity parsed once (see
 * kube_curl_tls_identity_set in kube/curl.h).
 *
 * libcurl 7.x builds a new SSL_CTX for each connection and loads the CA,
 * the client certificate and its key from their PEM blobs into it: three
 * OpenSSL 3 decodes, about 8 M instructions of the 12 M a new connection
 * costs (callgrind, a P-256 CA and client key). A connection of a
 * transport whose configuration holds exactly the identity's bytes gets
 * them here instead, from objects decoded once (CURLOPT_SSL_CTX_FUNCTION),
 * and no blob.
 *
 * Without blobs, libcurl's TLS session and connection matching would no
 * longer tell this identity from another configuration's, so its handles
 * (1) keep their TLS sessions in a share of their own, and (2) carry a
 * CApath no other configuration has (never read: the store set here
 * replaces the one libcurl loads it into), which its connection cache
 * compares. Its own file: a program that never calls
 * kube_curl_tls_identity_set (the CLI, whose libcurl is loaded lazily with
 * a libcrypto of its own) links none of it. */
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kube/curl.h"
#include "kube/curl_priv.h"
#include "kube/kube.h"

/* Set once, then only read (published by kube_curl_tls_hook's store). */
static struct {
	char *ca, *cert, *key; /* copies of the configuration's bytes, compared */
	size_t ca_len, cert_len, key_len;
	X509_STORE *store;
	X509 *leaf;            /* NULL: no client certificate */
	STACK_OF(X509) *chain; /* the certificates after the leaf */
	EVP_PKEY *pkey;
	CURLSH *share;
} id;

static atomic_ulong connections; /* SSL_CTXs given the identity */
static pthread_once_t set_once = PTHREAD_ONCE_INIT;

/* CURLOPT_SSL_CTX_FUNCTION: the identity into a new connection's SSL_CTX
 * (after libcurl's own set-up, before the handshake). */
static CURLcode on_ssl_ctx(CURL *h, void *sslctx, void *ud)
{
	SSL_CTX *ctx = sslctx;
	(void)h, (void)ud;
	atomic_fetch_add(&connections, 1);
	SSL_CTX_set1_cert_store(ctx, id.store);
	if (!id.leaf)
		return CURLE_OK;
	if (SSL_CTX_use_certificate(ctx, id.leaf) != 1)
		return CURLE_SSL_CERTPROBLEM;
	for (int i = 0; i < sk_X509_num(id.chain); i++)
		if (SSL_CTX_add1_chain_cert(ctx, sk_X509_value(id.chain, i)) != 1)
			return CURLE_SSL_CERTPROBLEM;
	return SSL_CTX_use_PrivateKey(ctx, id.pkey) == 1 ? CURLE_OK : CURLE_SSL_CERTPROBLEM;
}

static int same(const char *a, size_t an, const char *b, size_t bn)
{
	return an == bn && (!an || (a && b && !memcmp(a, b, an)));
}

/* The hook kube/curl.c calls when a handle's credentials are set: 1 when
 * c is the identity (h then set up with it), 0 when not (h untouched). */
static int apply(CURL *h, const kube_config *c)
{
	if (c->insecure || !c->ca_pem || !same(c->ca_pem, c->ca_len, id.ca, id.ca_len) ||
	    !same(c->cert_pem, c->cert_pem ? c->cert_len : 0, id.cert, id.cert_len) ||
	    (c->cert_pem && !same(c->key_pem, c->key_len, id.key, id.key_len)))
		return 0;
	curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, (struct curl_blob *)NULL);
	curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, (struct curl_blob *)NULL);
	curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, (struct curl_blob *)NULL);
	curl_easy_setopt(h, CURLOPT_CAINFO, (char *)NULL);
	curl_easy_setopt(h, CURLOPT_CAPATH, KUBE_CURL_TLS_ID_CAPATH);
	curl_easy_setopt(h, CURLOPT_SSL_CTX_FUNCTION, on_ssl_ctx);
	curl_easy_setopt(h, CURLOPT_SHARE, id.share);
	return 1;
}

static char *dup_bytes(const char *p, size_t n)
{
	char *d = malloc(n ? n : 1);
	if (d && n)
		memcpy(d, p, n);
	return d;
}

/* id from cfg; 0, or -1 with *why set (id then half built, never used). */
static int build(const kube_config *cfg, const char **why)
{
	const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
	const char *ours = OpenSSL_version(OPENSSL_VERSION); /* "OpenSSL 3.0.19 27 Jan 2026" */
	size_t n;
	BIO *b;
	X509 *x;
	/* libcurl's "OpenSSL/3.0.19": the SSL_CTX it hands over is of the
	 * libcrypto this program links, the same version */
	if (!v->ssl_version || strncmp(v->ssl_version, "OpenSSL/", 8) || strncmp(ours, "OpenSSL ", 8) ||
	    (n = strcspn(ours + 8, " ")) != strlen(v->ssl_version + 8) || strncmp(v->ssl_version + 8, ours + 8, n)) {
		*why = "libcurl does not use this program's OpenSSL";
		return -1;
	}
	if (cfg->insecure || !cfg->ca_pem || (cfg->cert_pem && !cfg->key_pem)) {
		*why = "the configuration has no CA, or is insecure";
		return -1;
	}
	if (cfg->ca_len > INT_MAX || cfg->cert_len > INT_MAX || cfg->key_len > INT_MAX) {
		*why = "credentials too large";
		return -1;
	}
	*why = "out of memory";
	if (!(id.ca = dup_bytes(cfg->ca_pem, cfg->ca_len)) || !(id.store = X509_STORE_new()) ||
	    !(id.share = kube_curl_session_share_new()))
		return -1;
	id.ca_len = cfg->ca_len;
	*why = "the CA holds no PEM certificate";
	if (!(b = BIO_new_mem_buf(cfg->ca_pem, (int)cfg->ca_len)))
		return -1;
	n = 0;
	while ((x = PEM_read_bio_X509(b, NULL, NULL, NULL))) {
		int ok = X509_STORE_add_cert(id.store, x);
		X509_free(x);
		if (!ok) {
			BIO_free(b);
			return -1;
		}
		n++;
	}
	BIO_free(b);
	ERR_clear_error(); /* the end of the PEM text */
	if (!n)
		return -1;
	/* as libcurl sets the store it loads a CA into */
	X509_STORE_set_flags(id.store, X509_V_FLAG_PARTIAL_CHAIN);
	if (cfg->cert_pem) {
		*why = "the client certificate or key does not decode";
		if (!(id.cert = dup_bytes(cfg->cert_pem, cfg->cert_len)) || !(id.key = dup_bytes(cfg->key_pem, cfg->key_len)))
			return -1;
		id.cert_len = cfg->cert_len;
		id.key_len = cfg->key_len;
		if (!(id.chain = sk_X509_new_null()) || !(b = BIO_new_mem_buf(cfg->cert_pem, (int)cfg->cert_len)))
			return -1;
		id.leaf = PEM_read_bio_X509(b, NULL, NULL, NULL);
		while (id.leaf && (x = PEM_read_bio_X509(b, NULL, NULL, NULL)))
			if (!sk_X509_push(id.chain, x)) {
				X509_free(x);
				break;
			}
		BIO_free(b);
		ERR_clear_error();
		if (!id.leaf || !(b = BIO_new_mem_buf(cfg->key_pem, (int)cfg->key_len)))
			return -1;
		id.pkey = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
		BIO_free(b);
		ERR_clear_error();
		if (!id.pkey || X509_check_private_key(id.leaf, id.pkey) != 1) {
			*why = "the client key does not decode or does not match the certificate";
			ERR_clear_error();
			return -1;
		}
	}
	return 0;
}

/* What build made of id when it failed. */
static void unbuild(void)
{
	free(id.ca);
	free(id.cert);
	free(id.key);
	X509_STORE_free(id.store);
	X509_free(id.leaf);
	sk_X509_pop_free(id.chain, X509_free);
	EVP_PKEY_free(id.pkey);
	if (id.share)
		curl_share_cleanup(id.share);
	memset(&id, 0, sizeof id);
}

static const kube_config *set_cfg;
static const char *set_why;

static void set_now(void)
{
	if (build(set_cfg, &set_why) < 0) {
		unbuild();
		return;
	}
	set_why = NULL;
	kube_curl_tls_hook_set(apply);
}

int kube_curl_tls_identity_set(const kube_config *cfg, bh_error *err)
{
	bh_error e;
	kube_transport *t;
	/* libcurl initialised (and its OpenSSL) before anything is decoded */
	if (!(t = kube_curl_transport_new(cfg, err ? err : &e)))
		return err ? err->code : BH_EIO;
	kube_transport_free(t);
	set_cfg = cfg;
	set_why = "set once already";
	pthread_once(&set_once, set_now);
	set_cfg = NULL;
	if (set_why)
		return bh_error_set(err, BH_EINVAL, "TLS identity: %s", set_why);
	return 0;
}

unsigned long kube_curl_tls_identity_connections(void)
{
	return atomic_load(&connections);
}
