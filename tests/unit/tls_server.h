/* tests/unit/tls_server.h — what the unit tests' in-process TLS servers
 * share (test_h2, test_kube_curl_tls): P-256 keys and certificates made in
 * memory (a CA, the certificates it signs), and a listener on 127.0.0.1
 * that runs the test's handler on each connection it accepts, a thread per
 * connection, after the TLS handshake. Test code: a failure is a check
 * assertion, not an error returned. */
#ifndef BH_TESTS_TLS_SERVER_H
#define BH_TESTS_TLS_SERVER_H

#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <pthread.h>

typedef struct tls_cred {
	EVP_PKEY *key;
	X509 *crt;
	char *crt_pem, *key_pem;
} tls_cred;

/* A key and a certificate for cn: ca NULL, a self-signed CA; else signed
 * by ca with the extended key usage eku ("serverAuth": also the subject
 * alternative name IP:127.0.0.1, "clientAuth"). tls_cred_free frees it. */
tls_cred tls_cred_make(const char *cn, const tls_cred *ca, const char *eku);
/* The same, a "serverAuth" one with the subject alternative names san
 * instead (e.g. "DNS:localhost"). */
tls_cred tls_cred_make_san(const char *cn, const tls_cred *ca, const char *eku, const char *san);
void tls_cred_free(tls_cred *c);

#define TLS_SERVER_MAX_CONNS 32

typedef struct tls_server tls_server;

/* Serves one connection (on its thread) whose handshake succeeded; nth
 * counts the connections accepted, 0 for the first. The SSL is freed and
 * the socket closed when it returns (a close_notify is the handler's). */
typedef void (*tls_server_fn)(tls_server *s, SSL *ssl, int fd, int nth);

struct tls_server {
	int fd;
	unsigned port;
	SSL_CTX *ctx;      /* the caller may set it up between listen and run */
	volatile int stop; /* tls_server_stop: handlers that loop end on it */
	tls_server_fn fn;
	void *ud;          /* the caller's */
	pthread_t th;
	struct tls_conn {
		tls_server *s;
		int fd, nth;
		pthread_t th;
	} conns[TLS_SERVER_MAX_CONNS]; /* joined by tls_server_stop */
	int nconns;
};

/* s listening on 127.0.0.1 (a port of the kernel's, s->port), its context
 * presenting crt; nothing accepted until tls_server_run. */
void tls_server_listen(tls_server *s, const tls_cred *crt);
/* The same on another loopback address (e.g. "127.0.0.2"). */
void tls_server_listen_at(tls_server *s, const tls_cred *crt, const char *ipv4);
/* Accepts connections on a thread of s's, each served by fn. */
void tls_server_run(tls_server *s, tls_server_fn fn, void *ud);
/* Stops accepting, waits for every connection's handler, frees s's context. */
void tls_server_stop(tls_server *s);

#endif
