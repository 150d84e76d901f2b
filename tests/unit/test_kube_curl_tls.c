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
#include <check.h>
#include <jansson.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kube/config.h"
#include "kube/curl.h"
#include "kube/transport.h"
#include "tests/unit/tls_server.h"
#include "tests/unit/unit_util.h"

/* ---- a TLS server answering with the client's common name ------------------ */

/* Requests on the connection until the client closes it, each answered
 * with the common name of the certificate it presented. */
static void serve_conn(tls_server *s, SSL *ssl, int fd, int nth)
{
	char buf[4096];
	(void)s, (void)fd, (void)nth;
	for (;;) {
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

/* A server presenting crt that asks for a client certificate of client_ca. */
static void server_start(tls_server *s, const tls_cred *crt, const tls_cred *client_ca)
{
	tls_server_listen(s, crt);
	X509_STORE_add_cert(SSL_CTX_get_cert_store(s->ctx), client_ca->crt);
	SSL_CTX_set_verify(s->ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
	SSL_CTX_set_session_id_context(s->ctx, (const unsigned char *)"t", 1);
	tls_server_run(s, serve_conn, NULL);
}

/* ---- the client side -------------------------------------------------------- */

static kube_config *cfg_for(const tls_server *s, const tls_cred *ca, const tls_cred *client)
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

static tls_cred ca, other_ca, srv, other_srv, alice, bob;

static void teardown(void)
{
	tls_cred_free(&ca);
	tls_cred_free(&other_ca);
	tls_cred_free(&srv);
	tls_cred_free(&other_srv);
	tls_cred_free(&alice);
	tls_cred_free(&bob);
}

static void setup(void)
{
	ca = tls_cred_make("test-ca", NULL, NULL);
	other_ca = tls_cred_make("other-ca", NULL, NULL);
	srv = tls_cred_make("server", &ca, "serverAuth");
	other_srv = tls_cred_make("server", &other_ca, "serverAuth");
	alice = tls_cred_make("alice", &ca, "clientAuth");
	bob = tls_cred_make("bob", &ca, "clientAuth");
}

START_TEST(test_identity_presented_and_kept_apart)
{
	tls_server s;
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
	tls_server_stop(&s);
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
	tls_server s;
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
	tls_server_stop(&s);
}
END_TEST

START_TEST(test_identity_trusts_its_ca_only)
{
	tls_server s;
	bh_error e;
	server_start(&s, &other_srv, &ca); /* its certificate is other_ca's */
	kube_config *a = cfg_for(&s, &ca, &alice);
	ck_assert_int_eq(kube_curl_tls_identity_set(a, &e), 0);
	ck_assert_ptr_null(who(a, &e));
	ck_assert_msg(strstr(e.msg, "certificate") != NULL, "%s", e.msg); /* libcurl: SSL certificate problem */
	ck_assert_int_eq(kube_curl_tls_identity_connections(), 1);
	kube_config_free(a);
	tls_server_stop(&s);
}
END_TEST

START_TEST(test_identity_refused)
{
	tls_server s;
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
	tls_server_stop(&s);
}
END_TEST

START_TEST(test_identity_insecure_refused)
{
	tls_server s;
	bh_error e;
	server_start(&s, &srv, &ca);
	kube_config *a = cfg_for(&s, &ca, &alice);
	a->insecure = 1;
	ck_assert_int_eq(kube_curl_tls_identity_set(a, &e), BH_EINVAL);
	kube_config_free(a);
	tls_server_stop(&s);
}
END_TEST

/* An exec plugin's new client certificate moves a transport off the
 * identity to blobs, and back when the plugin hands the identity's bytes
 * again: the plugin (expired at once, so run before every request) answers
 * alice, bob, alice; each request on the one transport presents what the
 * plugin gave, on a connection of its own configuration. */
static void write_cred(const char *path, const tls_cred *c)
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
	tls_server s;
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
	tls_server_stop(&s);
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
	/* a process sets its identity once: each test in a process of its own,
	 * whatever CK_FORK says */
	return unit_failures(s, CK_FORK) ? EXIT_FAILURE : EXIT_SUCCESS;
}
