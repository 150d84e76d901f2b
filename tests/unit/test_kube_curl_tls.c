/* tests/unit/test_kube_curl_tls.c — the process's TLS identity decoded once
 * (kube_curl_tls_identity_set, kube/curl_tls.c), against an in-process TLS
 * server that asks for a client certificate and answers with the common
 * name it saw: a transport of the identity's configuration presents its
 * certificate through it (counted), on a fresh connection each time; a
 * transport with another client certificate, after it, presents its own
 * (no session or connection of the identity lent to it), as does one on
 * the same kube_curl_multi; the identity trusts its CA only (a server of
 * another CA is refused); a key that is not the certificate's, or an
 * insecure configuration, is refused and nothing changes; an exec plugin's
 * new certificate moves a transport off the identity and back. */
#include <arpa/inet.h>
#include <check.h>
#include <jansson.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kube/config.h"
#include "kube/curl.h"
#include "kube/transport.h"

/* ---- certificates made for the test ----------------------------------------- */

typedef struct {
	EVP_PKEY *key;
	X509 *crt;
	char *crt_pem, *key_pem;
} cred;

static char *pem_of(int (*w)(BIO *, const void *), const void *obj)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *p, *s;
	long n;
	ck_assert_int_eq(w(b, obj), 1);
	n = BIO_get_mem_data(b, &p);
	s = malloc((size_t)n + 1);
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
	X509V3_set_ctx(&c, issuer, x, NULL, NULL, 0);
	X509_EXTENSION *e = X509V3_EXT_conf_nid(NULL, &c, nid, v);
	ck_assert_ptr_nonnull(e);
	X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
}

/* A P-256 key and a certificate for cn, signed by ca (self-signed: NULL). */
static cred make(const char *cn, const cred *ca, const char *eku)
{
	static long serial = 1;
	cred c = {EVP_EC_gen("P-256"), X509_new(), NULL, NULL};
	X509 *x = c.crt, *issuer = ca ? ca->crt : x;
	ck_assert_ptr_nonnull(c.key);
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), serial++);
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
			ext(x, issuer, NID_subject_alt_name, "IP:127.0.0.1");
	}
	ck_assert_int_gt(X509_sign(x, ca ? ca->key : c.key, EVP_sha256()), 0);
	c.crt_pem = pem_of(w_crt, x);
	c.key_pem = pem_of(w_key, c.key);
	return c;
}

/* ---- a TLS server answering with the client's common name ------------------ */

#define MAX_CONNS 32

typedef struct server {
	int fd;
	unsigned port;
	SSL_CTX *ctx;
	pthread_t th;
	volatile int stop;
	struct conn {
		struct server *s;
		int c;
		pthread_t th;
	} conns[MAX_CONNS]; /* joined by server_stop (their clients closed them) */
	int nconns;
} server;

static void serve_conn(server *s, int c)
{
	SSL *ssl = SSL_new(s->ctx);
	char buf[4096];
	SSL_set_fd(ssl, c);
	if (SSL_accept(ssl) == 1) {
		for (;;) { /* requests on the connection until it closes */
			size_t n = 0;
			int r;
			buf[0] = 0;
			while (n < sizeof buf - 1 && !strstr(buf, "\r\n\r\n") && (r = SSL_read(ssl, buf + n, (int)(sizeof buf - 1 - n))) > 0)
				buf[n += (size_t)r] = 0;
			if (!strstr(buf, "\r\n\r\n"))
				break;
			char cn[128] = "none", out[512];
			X509 *peer = SSL_get1_peer_certificate(ssl);
			if (peer) {
				X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, cn, sizeof cn);
				X509_free(peer);
			}
			int len = snprintf(out, sizeof out, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n\r\n%s",
					   strlen(cn), cn);
			if (SSL_write(ssl, out, len) != len)
				break;
		}
	}
	SSL_free(ssl);
	close(c);
}

static void *serve_thread(void *arg)
{
	struct conn *k = arg;
	serve_conn(k->s, k->c);
	return NULL;
}

/* A thread per connection: a client may keep one open while it makes another. */
static void *serve(void *arg)
{
	server *s = arg;
	while (!s->stop) {
		struct pollfd p = {s->fd, POLLIN, 0};
		if (poll(&p, 1, 50) <= 0)
			continue;
		int c = accept(s->fd, NULL, NULL);
		if (c < 0)
			continue;
		struct conn *k = &s->conns[s->nconns];
		k->s = s;
		k->c = c;
		if (s->nconns == MAX_CONNS || pthread_create(&k->th, NULL, serve_thread, k) != 0) {
			close(c);
			continue;
		}
		s->nconns++;
	}
	return NULL;
}

static void server_start(server *s, const cred *crt, const cred *client_ca)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	memset(s, 0, sizeof *s);
	ck_assert_ptr_nonnull(s->ctx = SSL_CTX_new(TLS_server_method()));
	ck_assert_int_eq(SSL_CTX_use_certificate(s->ctx, crt->crt), 1);
	ck_assert_int_eq(SSL_CTX_use_PrivateKey(s->ctx, crt->key), 1);
	X509_STORE_add_cert(SSL_CTX_get_cert_store(s->ctx), client_ca->crt);
	SSL_CTX_set_verify(s->ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
	SSL_CTX_set_session_id_context(s->ctx, (const unsigned char *)"t", 1);
	ck_assert_int_ge(s->fd = socket(AF_INET, SOCK_STREAM, 0), 0);
	ck_assert_int_eq(bind(s->fd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(s->fd, 16), 0);
	getsockname(s->fd, (struct sockaddr *)&a, &al);
	s->port = ntohs(a.sin_port);
	ck_assert_int_eq(pthread_create(&s->th, NULL, serve, s), 0);
}

static void server_stop(server *s)
{
	s->stop = 1;
	pthread_join(s->th, NULL);
	for (int i = 0; i < s->nconns; i++)
		pthread_join(s->conns[i].th, NULL);
	close(s->fd);
	SSL_CTX_free(s->ctx);
}

/* ---- the client side -------------------------------------------------------- */

static kube_config *cfg_for(const server *s, const cred *ca, const cred *client)
{
	kube_config *c = calloc(1, sizeof *c);
	char url[64];
	ck_assert_ptr_nonnull(c);
	snprintf(url, sizeof url, "https://127.0.0.1:%u", s->port);
	c->server = strdup(url);
	c->namespace_ = strdup("default");
	c->ca_pem = strdup(ca->crt_pem);
	c->ca_len = strlen(c->ca_pem);
	if (client) {
		c->cert_pem = strdup(client->crt_pem);
		c->cert_len = strlen(c->cert_pem);
		c->key_pem = strdup(client->key_pem);
		c->key_len = strlen(c->key_pem);
	}
	return c;
}

/* The common name the server saw, through a fresh transport for cfg (a new
 * connection), or NULL with *e set. */
static char *who(const kube_config *cfg, bh_error *e)
{
	kube_transport *t = kube_curl_transport_new(cfg, e);
	kube_request req = {.method = "GET", .path = "/whoami", .timeout_ms = 20000};
	kube_response resp = KUBE_RESPONSE_INIT;
	char *s = NULL;
	ck_assert_ptr_nonnull(t);
	if (t->ops->request(t->impl, &req, &resp, e) == 0 && resp.status == 200)
		s = strndup(resp.body.data ? resp.body.data : "", resp.body.len);
	kube_response_free(&resp);
	kube_transport_free(t);
	return s;
}

static cred ca, other_ca, srv, other_srv, alice, bob;

static void cred_free(cred *c)
{
	EVP_PKEY_free(c->key);
	X509_free(c->crt);
	free(c->crt_pem);
	free(c->key_pem);
}

static void teardown(void)
{
	cred_free(&ca);
	cred_free(&other_ca);
	cred_free(&srv);
	cred_free(&other_srv);
	cred_free(&alice);
	cred_free(&bob);
}

static void setup(void)
{
	ca = make("test-ca", NULL, NULL);
	other_ca = make("other-ca", NULL, NULL);
	srv = make("server", &ca, "serverAuth");
	other_srv = make("server", &other_ca, "serverAuth");
	alice = make("alice", &ca, "clientAuth");
	bob = make("bob", &ca, "clientAuth");
}

START_TEST(test_identity_presented_and_kept_apart)
{
	server s;
	bh_error e;
	char *name;
	server_start(&s, &srv, &ca);
	kube_config *a = cfg_for(&s, &ca, &alice), *b = cfg_for(&s, &ca, &bob);
	ck_assert_int_eq(kube_curl_tls_identity_set(a, &e), 0);
	ck_assert_int_eq(kube_curl_tls_identity_connections(), 0);
	for (int i = 1; i <= 3; i++) { /* each a new connection, the identity's */
		ck_assert_ptr_nonnull(name = who(a, &e));
		ck_assert_str_eq(name, "alice");
		free(name);
		ck_assert_int_eq(kube_curl_tls_identity_connections(), i);
	}
	/* bob's configuration, same server and CA: his own certificate, from his blobs */
	ck_assert_ptr_nonnull(name = who(b, &e));
	ck_assert_str_eq(name, "bob");
	free(name);
	ck_assert_int_eq(kube_curl_tls_identity_connections(), 3);
	/* the same bytes in another configuration are the identity */
	kube_config *a2 = cfg_for(&s, &ca, &alice);
	ck_assert_ptr_nonnull(name = who(a2, &e));
	ck_assert_str_eq(name, "alice");
	free(name);
	ck_assert_int_eq(kube_curl_tls_identity_connections(), 4);
	/* once only */
	ck_assert_int_eq(kube_curl_tls_identity_set(b, &e), BH_EINVAL);
	kube_config_free(a);
	kube_config_free(a2);
	kube_config_free(b);
	server_stop(&s);
}
END_TEST

/* Streams of alice and bob on one multi handle, in turn: a connection kept
 * by the handle's cache is never lent to the other. */
static void on_end(void *ud, kube_transport *t, int rc, const bh_error *err)
{
	(void)t, (void)err;
	*(int *)ud = rc == 0 ? 1 : -1;
}

static int ignore(void *ud, const char *data, size_t len)
{
	(void)ud, (void)data, (void)len;
	return 0;
}

START_TEST(test_identity_multi_no_lending)
{
	server s;
	bh_error e;
	server_start(&s, &srv, &ca);
	kube_config *a = cfg_for(&s, &ca, &alice), *b = cfg_for(&s, &ca, &bob);
	ck_assert_int_eq(kube_curl_tls_identity_set(a, &e), 0);
	kube_curl_multi *m = kube_curl_multi_new(&e);
	ck_assert_ptr_nonnull(m);
	const kube_config *order[] = {a, b, a, b};
	const char *want[] = {"alice", "bob", "alice", "bob"};
	for (int i = 0; i < 4; i++) {
		kube_transport *t = kube_curl_transport_new(order[i], &e);
		kube_request req = {.method = "GET", .path = "/whoami", .timeout_ms = 20000};
		kube_response resp = KUBE_RESPONSE_INIT;
		int done = 0;
		ck_assert_ptr_nonnull(t);
		/* on_data gets the 2xx body; none kept: the server's answer is
		 * checked by a plain request on the same transport below */
		ck_assert_int_eq(kube_curl_multi_add(m, t, &req, &resp, ignore, NULL, &e), 0);
		for (int k = 0; k < 500 && !done; k++)
			kube_curl_multi_run(m, 10, on_end, &done);
		ck_assert_int_eq(done, 1);
		ck_assert_int_eq(resp.status, 200);
		kube_response_free(&resp);
		kube_transport_free(t);
		char *name = who(order[i], &e);
		ck_assert_ptr_nonnull(name);
		ck_assert_str_eq(name, want[i]);
		free(name);
	}
	/* alice's two requests, and one or two connections for her streams
	 * (the second may reuse the first's) */
	ck_assert_int_ge(kube_curl_tls_identity_connections(), 3);
	ck_assert_int_le(kube_curl_tls_identity_connections(), 4);
	kube_curl_multi_free(m);
	kube_config_free(a);
	kube_config_free(b);
	server_stop(&s);
}
END_TEST

START_TEST(test_identity_trusts_its_ca_only)
{
	server s;
	bh_error e;
	server_start(&s, &other_srv, &ca); /* its certificate is other_ca's */
	kube_config *a = cfg_for(&s, &ca, &alice);
	ck_assert_int_eq(kube_curl_tls_identity_set(a, &e), 0);
	ck_assert_ptr_null(who(a, &e));
	ck_assert_msg(strstr(e.msg, "certificate") != NULL, "%s", e.msg); /* libcurl: SSL certificate problem */
	ck_assert_int_eq(kube_curl_tls_identity_connections(), 1);
	kube_config_free(a);
	server_stop(&s);
}
END_TEST

START_TEST(test_identity_refused)
{
	server s;
	bh_error e;
	char *name;
	server_start(&s, &srv, &ca);
	kube_config *a = cfg_for(&s, &ca, &alice);
	free(a->key_pem); /* bob's key with alice's certificate */
	a->key_pem = strdup(bob.key_pem);
	a->key_len = strlen(a->key_pem);
	ck_assert_int_eq(kube_curl_tls_identity_set(a, &e), BH_EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "does not match"));
	kube_config_free(a);
	a = cfg_for(&s, &ca, &alice); /* still blobs, as before */
	ck_assert_ptr_nonnull(name = who(a, &e));
	ck_assert_str_eq(name, "alice");
	free(name);
	ck_assert_int_eq(kube_curl_tls_identity_connections(), 0);
	kube_config_free(a);
	server_stop(&s);
}
END_TEST

START_TEST(test_identity_insecure_refused)
{
	server s;
	bh_error e;
	server_start(&s, &srv, &ca);
	kube_config *a = cfg_for(&s, &ca, &alice);
	a->insecure = 1;
	ck_assert_int_eq(kube_curl_tls_identity_set(a, &e), BH_EINVAL);
	kube_config_free(a);
	server_stop(&s);
}
END_TEST

/* An exec plugin's new client certificate moves a transport off the
 * identity to blobs, and back when the plugin hands the identity's bytes
 * again: the plugin (expired at once, so run before every request) answers
 * alice, bob, alice; each request on the one transport presents what the
 * plugin gave, on a connection of its own configuration. */
static void write_cred(const char *path, const cred *c)
{
	json_t *j = json_pack("{s:s,s:s,s:{s:s,s:s,s:s}}", "kind", "ExecCredential", "apiVersion",
			      "client.authentication.k8s.io/v1", "status", "clientCertificateData", c->crt_pem,
			      "clientKeyData", c->key_pem, "expirationTimestamp", "2000-01-01T00:00:00Z");
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(json_dump_file(j, path, 0), 0);
	json_decref(j);
}

START_TEST(test_identity_exec_plugin_switches)
{
	server s;
	bh_error e;
	char dir[] = "/tmp/bh_tls_exec_XXXXXX", path[128], *name;
	const char *want[] = {"alice", "bob", "alice"};
	unsigned long n0 = 0;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/cred0", dir);
	write_cred(path, &alice);
	snprintf(path, sizeof path, "%s/cred1", dir);
	write_cred(path, &bob);
	server_start(&s, &srv, &ca);
	kube_config *a = cfg_for(&s, &ca, &alice), *x = cfg_for(&s, &ca, NULL);
	ck_assert_int_eq(kube_curl_tls_identity_set(a, &e), 0);
	/* the plugin: cred0, cred1, cred0, ... by a count kept in dir */
	const char *argv[] = {"/bin/sh", "-c", "n=$(cat \"$0/n\" 2>/dev/null || echo 0); echo $((n + 1)) >\"$0/n\"; "
			      "cat \"$0/cred$((n % 2))\"", dir, NULL};
	x->exec_argv = calloc(6, sizeof(char *));
	ck_assert_ptr_nonnull(x->exec_argv);
	for (int i = 0; argv[i]; i++)
		ck_assert_ptr_nonnull(x->exec_argv[i] = strdup(argv[i]));
	x->exec_api_version = strdup("client.authentication.k8s.io/v1");
	kube_transport *t = kube_curl_transport_new(x, &e);
	ck_assert_ptr_nonnull(t);
	for (int i = 0; i < 3; i++) {
		kube_request req = {.method = "GET", .path = "/whoami", .timeout_ms = 20000};
		kube_response resp = KUBE_RESPONSE_INIT;
		ck_assert_msg(t->ops->request(t->impl, &req, &resp, &e) == 0, "request %d: %s", i, e.msg);
		ck_assert_int_eq(resp.status, 200);
		ck_assert_ptr_nonnull(name = strndup(resp.body.data ? resp.body.data : "", resp.body.len));
		ck_assert_str_eq(name, want[i]);
		free(name);
		kube_response_free(&resp);
		/* alice's connection through the identity, bob's not */
		if (i == 0)
			ck_assert_int_eq((n0 = kube_curl_tls_identity_connections()), 1);
		else if (i == 1)
			ck_assert_int_eq(kube_curl_tls_identity_connections(), n0);
	}
	kube_transport_free(t);
	kube_config_free(a);
	kube_config_free(x);
	server_stop(&s);
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, i == 0 ? "n" : i == 1 ? "cred0" : "cred1");
		unlink(path);
	}
	rmdir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kube_curl_tls");
	TCase *tc = tcase_create("identity");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_identity_presented_and_kept_apart);
	tcase_add_test(tc, test_identity_multi_no_lending);
	tcase_add_test(tc, test_identity_trusts_its_ca_only);
	tcase_add_test(tc, test_identity_refused);
	tcase_add_test(tc, test_identity_insecure_refused);
	tcase_add_test(tc, test_identity_exec_plugin_switches);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	/* a process sets its identity once: each test in a process of its own,
	 * whatever CK_FORK says */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
