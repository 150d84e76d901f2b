/* tests/unit/tls_server.c — the unit tests' TLS server (see tls_server.h). */
#include "tests/unit/tls_server.h"

#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- certificates ------------------------------------------------------------ */

static char *pem_of(int (*w)(BIO *, const void *), const void *obj)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *p, *s;
	long n;
	ck_assert_int_eq(w(b, obj), 1);
	n = BIO_get_mem_data(b, &p);
	ck_assert_ptr_nonnull(s = malloc((size_t)n + 1));
	memcpy(s, p, (size_t)n);
	s[n] = 0;
	BIO_free(b);
	return s;
}

static int w_crt(BIO *b, const void *x)
{
	return PEM_write_bio_X509(b, (X509 *)x);
}

static int w_key(BIO *b, const void *k)
{
	return PEM_write_bio_PrivateKey(b, (EVP_PKEY *)k, NULL, NULL, 0, NULL, NULL);
}

static void ext(X509 *x, X509 *issuer, int nid, const char *v)
{
	X509V3_CTX c;
	X509_EXTENSION *e;
	X509V3_set_ctx(&c, issuer, x, NULL, NULL, 0);
	ck_assert_ptr_nonnull(e = X509V3_EXT_conf_nid(NULL, &c, nid, v));
	X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
}

tls_cred tls_cred_make(const char *cn, const tls_cred *ca, const char *eku)
{
	return tls_cred_make_san(cn, ca, eku, "IP:127.0.0.1");
}

tls_cred tls_cred_make_san(const char *cn, const tls_cred *ca, const char *eku, const char *san)
{
	static long serial = 1;
	tls_cred c = {EVP_EC_gen("P-256"), X509_new(), NULL, NULL};
	X509 *x = c.crt, *issuer = ca ? ca->crt : x;
	ck_assert_ptr_nonnull(c.key);
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED));
	X509_gmtime_adj(X509_getm_notBefore(x), -3600);
	X509_gmtime_adj(X509_getm_notAfter(x), 86400);
	X509_set_pubkey(x, c.key);
	X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
	X509_set_issuer_name(x, X509_get_subject_name(issuer));
	if (!ca) {
		ext(x, issuer, NID_basic_constraints, "critical,CA:TRUE");
		ext(x, issuer, NID_key_usage, "critical,keyCertSign,cRLSign");
	} else {
		ext(x, issuer, NID_ext_key_usage, eku);
		if (!strcmp(eku, "serverAuth"))
			ext(x, issuer, NID_subject_alt_name, san);
	}
	ck_assert_int_gt(X509_sign(x, ca ? ca->key : c.key, EVP_sha256()), 0);
	c.crt_pem = pem_of(w_crt, x);
	c.key_pem = pem_of(w_key, c.key);
	return c;
}

void tls_cred_free(tls_cred *c)
{
	EVP_PKEY_free(c->key);
	X509_free(c->crt);
	free(c->crt_pem);
	free(c->key_pem);
	memset(c, 0, sizeof *c);
}

/* ---- the server ------------------------------------------------------------------ */

static void *conn_main(void *arg)
{
	struct tls_conn *k = arg;
	SSL *ssl = SSL_new(k->s->ctx);
	if (ssl && SSL_set_fd(ssl, k->fd) == 1 && SSL_accept(ssl) == 1)
		k->s->fn(k->s, ssl, k->fd, k->nth);
	SSL_free(ssl);
	close(k->fd);
	return NULL;
}

/* A thread per connection: a client may keep one open while it makes another. */
static void *accept_main(void *arg)
{
	tls_server *s = arg;
	while (!s->stop) {
		struct pollfd p = {s->fd, POLLIN, 0};
		struct tls_conn *k;
		int c;
		if (poll(&p, 1, 20) <= 0 || (c = accept(s->fd, NULL, NULL)) < 0)
			continue;
		if (s->nconns == TLS_SERVER_MAX_CONNS) {
			close(c);
			continue;
		}
		k = &s->conns[s->nconns];
		k->s = s;
		k->fd = c;
		k->nth = s->nconns;
		if (pthread_create(&k->th, NULL, conn_main, k) != 0) {
			close(c);
			continue;
		}
		s->nconns++;
	}
	return NULL;
}

void tls_server_listen(tls_server *s, const tls_cred *crt)
{
	tls_server_listen_at(s, crt, "127.0.0.1");
}

void tls_server_listen_at(tls_server *s, const tls_cred *crt, const char *ipv4)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t al = sizeof a;
	ck_assert_int_eq(inet_pton(AF_INET, ipv4, &a.sin_addr), 1);
	memset(s, 0, sizeof *s);
	ck_assert_ptr_nonnull(s->ctx = SSL_CTX_new(TLS_server_method()));
	ck_assert_int_eq(SSL_CTX_use_certificate(s->ctx, crt->crt), 1);
	ck_assert_int_eq(SSL_CTX_use_PrivateKey(s->ctx, crt->key), 1);
	ck_assert_int_ge(s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), 0);
	ck_assert_int_eq(bind(s->fd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(s->fd, 16), 0);
	ck_assert_int_eq(getsockname(s->fd, (struct sockaddr *)&a, &al), 0);
	s->port = ntohs(a.sin_port);
}

void tls_server_run(tls_server *s, tls_server_fn fn, void *ud)
{
	s->fn = fn;
	s->ud = ud;
	ck_assert_int_eq(pthread_create(&s->th, NULL, accept_main, s), 0);
}

void tls_server_stop(tls_server *s)
{
	s->stop = 1;
	pthread_join(s->th, NULL);
	for (int i = 0; i < s->nconns; i++)
		pthread_join(s->conns[i].th, NULL);
	close(s->fd);
	SSL_CTX_free(s->ctx);
	s->ctx = NULL;
}
