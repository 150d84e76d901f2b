/* kube/h2.c — the direct HTTP/2 client (see kube/h2.h).
 *
 * One connection: a non-blocking TCP socket, OpenSSL over it (ALPN "h2"
 * only), nghttp2's session fed from SSL_read (nghttp2_session_mem_recv) and
 * drained into one output buffer (nghttp2_session_mem_send) written with
 * SSL_write. A stream ends from nghttp2's callbacks onto a list that
 * kube_h2_dispatch hands to the caller after nghttp2 returned, so the
 * caller's end call may add or stop streams.
 *
 * A server given by name is looked up again for every new connection (its
 * addresses change), by getaddrinfo on a short-lived thread of its own that
 * signals an eventfd when done: the caller's loop polls that fd as it polls
 * the socket, and other work never waits for a slow resolver (nor does a
 * slow one pile up threads: a connection made while the last one's lookup
 * still runs waits for that lookup). Its
 * addresses are tried in the resolver's order, the next when one cannot be
 * connected to, as libcurl does. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "kube/client_priv.h"
#include "kube/curl_priv.h"
#include "kube/h2.h"
#include "kube/internal.h"
#include "lib/buf.h"
#include "lib/vec.h"

#define PRESIZE_MAX (4u << 20)
#define MAX_HEADERS 16           /* extra header lines of a request */
#define REQUEUE_MAX 3            /* new connections a stream not yet sent may wait for */
#define STREAM_WINDOW (1 << 20)  /* the window we give each stream */
#define CONN_WINDOW (16 << 20)   /* and the connection */
#define DL_NONE SIZE_MAX
#define LOOKUP_FRESH_MS 3000     /* a lookup started this long before a connection serves it */

typedef struct h2s {
	void *sud;
	kube_stream_fn on_data;
	kube_h2_end_fn on_end;
	const kube_request *req;
	kube_response *resp;
	int32_t id;       /* 0: not submitted on the connection */
	int sent;         /* its HEADERS frame left */
	int requeues;
	int stopped;      /* on_data asked to stop */
	size_t body_off;
	uint64_t clen;
	long long deadline; /* ms, CLOCK_MONOTONIC */
	size_t dl_at;     /* its place in the client's deadline heap, DL_NONE once ended */
	int rc;           /* its outcome once known (finished) */
	char msg[300];
	TAILQ_ENTRY(h2s) link; /* in one of the client's lists */
	struct slist *on;      /* that list, NULL between two */
	struct h2s *ud_next;   /* in its bucket of the client's streams by sud */
} h2s;

typedef struct slist {
	TAILQ_HEAD(h2s_q, h2s) q;
	size_t n;
} slist;

enum { C_NONE, C_RESOLVING, C_CONNECTING, C_TLS, C_READY };

/* A lookup of the server's name, shared by the client and the thread that
 * runs it: freed by whichever lets it go last (a client may give up on a
 * slow one, or be freed, while the thread still waits on the resolver). */
typedef struct lookup {
	atomic_int refs;
	atomic_int done;       /* rc, err and ai are set (release/acquire) */
	int efd;               /* eventfd, written once done */
	int rc, err;           /* getaddrinfo's, and errno for EAI_SYSTEM */
	long long started;     /* ms, CLOCK_MONOTONIC */
	struct addrinfo *ai;   /* the addresses, until the client takes them */
	char port[8];
	char host[];
} lookup;

struct kube_h2 {
	kube_config *cfg;
	char *authority;  /* the server URL's host[:port] */
	char *prefix;     /* its path, "" for none */
	char *verify;     /* the name the certificate is verified for (and SNI, unless an address) */
	int verify_ip;
	char *host;       /* the server's host name, looked up per connection; NULL: an address */
	char port[8];
	lookup *lk;       /* the lookup under way (C_RESOLVING), or the last one's while its thread runs */
	struct addrinfo *ai;      /* the addresses: the server's own, or its name's last lookup */
	struct addrinfo *ai_next; /* the next to try for this connection */
	int last_errno;           /* why the last address tried could not be connected to */
	char last_addr[64];       /* that address */
	long long try_deadline;   /* ms: the address tried now gives way to the next */
	SSL_CTX *ctx;
	SSL_SESSION *sess; /* the last connection's, resumed by the next */
	void (*forget)(int fd);
	int state, fd, goaway, refused;
	SSL *ssl;
	nghttp2_session *ng;
	long long conn_started, conn_deadline;
	int ping_idle, ping_timeout; /* ms: the health check's (kube_h2_options) */
	int connect_timeout;         /* ms: kube_h2_options' */
	int write_before_poll;       /* kube_h2_options' */
	long long quiet_since; /* ms: the last time bytes came */
	long long ping_at;     /* ms: when the health check's PING went, 0: none waits */
	bh_buf out;       /* nghttp2's bytes, for SSL_write */
	bh_buf net;       /* TLS bytes not yet written to the socket (the BIO's output) */
	size_t net_off;
	bh_buf in;        /* TLS bytes read from the socket, not yet taken by the SSL (the BIO's input) */
	size_t in_off;
	slist queue;      /* not submitted */
	slist live;       /* submitted on the connection */
	slist fin;        /* ended, for the caller */
	h2s **dl;         /* the deadlines of queue and live: a binary min-heap */
	size_t ndl, dl_cap;
	h2s **by_ud;      /* the streams not handed back, by sud (kube_h2_stop's key): chained buckets */
	size_t nud, ud_cap; /* ud_cap: a power of two, or 0 */
	struct pollfd pfd;
	unsigned long conns;
	char *auth;       /* "Bearer <token>" as sent last */
	char user_agent[64];
};

static void l_push(slist *l, h2s *s)
{
	TAILQ_INSERT_TAIL(&l->q, s, link);
	l->n++;
	s->on = l;
}

static void l_push_front(slist *l, h2s *s)
{
	TAILQ_INSERT_HEAD(&l->q, s, link);
	l->n++;
	s->on = l;
}

static void l_del(slist *l, h2s *s)
{
	TAILQ_REMOVE(&l->q, s, link);
	l->n--;
	s->on = NULL;
}

static h2s *l_first(slist *l)
{
	return TAILQ_FIRST(&l->q);
}

/* ---- the streams by their caller's pointer --------------------------------------
 * kube_h2_stop's key is the sud its caller gave kube_h2_add: a hash of it
 * finds the stream without a walk of the lists (thousands of watches and
 * requests on one connection). */

static size_t ud_slot(const void *sud, size_t cap)
{
	uint64_t x = (uint64_t)(uintptr_t)sud * 0x9E3779B97F4A7C15ull; /* Fibonacci hashing */
	return (size_t)(x ^ (x >> 29)) & (cap - 1);
}

/* The buckets doubled (from 64): 0, or -1 out of memory. */
static int ud_grow(kube_h2 *h)
{
	size_t cap = h->ud_cap ? h->ud_cap * 2 : 64;
	h2s **b = calloc(cap, sizeof *b), *s, *nx;
	if (!b)
		return -1;
	for (size_t i = 0; i < h->ud_cap; i++)
		for (s = h->by_ud[i]; s; s = nx) {
			size_t k = ud_slot(s->sud, cap);
			nx = s->ud_next;
			s->ud_next = b[k];
			b[k] = s;
		}
	free(h->by_ud);
	h->by_ud = b;
	h->ud_cap = cap;
	return 0;
}

static int ud_add(kube_h2 *h, h2s *s)
{
	size_t k;
	if (h->nud >= h->ud_cap && ud_grow(h) < 0)
		return -1;
	k = ud_slot(s->sud, h->ud_cap);
	s->ud_next = h->by_ud[k];
	h->by_ud[k] = s;
	h->nud++;
	return 0;
}

static void ud_del(kube_h2 *h, h2s *s)
{
	h2s **p = &h->by_ud[ud_slot(s->sud, h->ud_cap)];
	while (*p != s)
		p = &(*p)->ud_next;
	*p = s->ud_next;
	h->nud--;
}

static h2s *ud_find(const kube_h2 *h, const void *sud)
{
	h2s *s = h->ud_cap ? h->by_ud[ud_slot(sud, h->ud_cap)] : NULL;
	while (s && s->sud != sud)
		s = s->ud_next;
	return s;
}

/* ---- the streams' deadlines ----------------------------------------------------
 * A binary min-heap of the streams not ended, each knowing its place in it
 * (dl_at): the next deadline is the first, a stream goes in or out in
 * O(log n), so a loop turn does not walk every stream. */

static void dl_set(kube_h2 *h, size_t i, h2s *s)
{
	h->dl[i] = s;
	s->dl_at = i;
}

static void dl_up(kube_h2 *h, size_t i)
{
	h2s *s = h->dl[i];
	while (i > 0 && h->dl[(i - 1) / 2]->deadline > s->deadline) {
		dl_set(h, i, h->dl[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	dl_set(h, i, s);
}

static void dl_down(kube_h2 *h, size_t i)
{
	h2s *s = h->dl[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->ndl)
			break;
		if (c + 1 < h->ndl && h->dl[c + 1]->deadline < h->dl[c]->deadline)
			c++;
		if (s->deadline <= h->dl[c]->deadline)
			break;
		dl_set(h, i, h->dl[c]);
		i = c;
	}
	dl_set(h, i, s);
}

/* s's deadline in: 0, or -1 (no memory). */
static int dl_add(kube_h2 *h, h2s *s)
{
	if (VEC_RESERVE(h->dl, h->dl_cap, h->ndl + 1, 64) < 0)
		return -1;
	dl_set(h, h->ndl++, s);
	dl_up(h, s->dl_at);
	return 0;
}

/* s's deadline out (none: nothing). */
static void dl_del(kube_h2 *h, h2s *s)
{
	size_t i = s->dl_at;
	h2s *last;
	if (i == DL_NONE)
		return;
	s->dl_at = DL_NONE;
	last = h->dl[--h->ndl];
	if (last == s)
		return;
	dl_set(h, i, last);
	dl_up(h, i);
	dl_down(h, last->dl_at);
}

/* s (of list l) ends with rc (0: its answer is in resp). */
static void finish(kube_h2 *h, slist *l, h2s *s, int rc, const char *msg)
{
	l_del(l, s);
	dl_del(h, s);
	s->rc = rc;
	if (rc < 0)
		snprintf(s->msg, sizeof s->msg, "%s %.120s: %s", s->req->method, s->req->path, msg);
	l_push(&h->fin, s);
}

/* ---- which configurations ------------------------------------------------ */

int kube_h2_usable(const kube_config *cfg, const char **why)
{
	const char *srv = cfg ? cfg->server : NULL;
	*why = NULL;
	if (!srv || strncasecmp(srv, "https://", 8))
		*why = "the server is not https";
	else if (cfg->proxy_url || kube_curl_env_proxy(1)[0])
		*why = "a proxy is configured";
	else if (cfg->exec_argv || cfg->username)
		*why = "an exec plugin or basic authentication";
	else if (cfg->insecure || cfg->strict)
		*why = "an insecure or strict configuration";
	else if ((cfg->cert_pem && !cfg->key_pem) || (cfg->key_pem && !cfg->cert_pem))
		*why = "a client certificate without its key";
	return *why == NULL;
}

/* The server URL's parts: its host an address (kept), or a name (looked
 * up on each new connection). */
static int parse_server(kube_h2 *h, bh_error *err)
{
	const char *a = h->cfg->server + 8, *slash = strchr(a, '/'), *portp = NULL;
	size_t alen = slash ? (size_t)(slash - a) : strlen(a), hlen = alen;
	char host[256];
	const char *hs = a;
	struct addrinfo hints = {0};
	if (a[0] == '[') {
		const char *rb = memchr(a, ']', alen);
		if (!rb)
			return bh_error_set(err, BH_EINVAL, "server %s: bad IPv6 address", h->cfg->server);
		hs = a + 1;
		hlen = (size_t)(rb - a) - 1;
		if (rb + 1 < a + alen && rb[1] == ':')
			portp = rb + 2;
	} else {
		const char *colon = memchr(a, ':', alen);
		if (colon) {
			portp = colon + 1;
			hlen = (size_t)(colon - a);
		}
	}
	if (hlen == 0 || hlen >= sizeof host || (portp && (a + alen == portp || (size_t)(a + alen - portp) >= sizeof h->port ||
	                                                    strspn(portp, "0123456789") != (size_t)(a + alen - portp))))
		return bh_error_set(err, BH_EINVAL, "server %s: bad host or port", h->cfg->server);
	memcpy(host, hs, hlen);
	host[hlen] = '\0';
	if (portp)
		snprintf(h->port, sizeof h->port, "%.*s", (int)(a + alen - portp), portp);
	else
		snprintf(h->port, sizeof h->port, "443");
	h->authority = strndup(a, alen);
	h->prefix = strdup(slash ? slash : "");
	if (!h->authority || !h->prefix)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	if (kube_has_ctl(h->authority) || kube_has_ctl(h->prefix))
		return bh_error_set(err, BH_EINVAL, "the server URL holds a control character");
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, h->port, &hints, &h->ai) != 0 || !h->ai) {
		h->ai = NULL;
		if (a[0] == '[')
			return bh_error_set(err, BH_EINVAL, "server %s: bad IPv6 address", h->cfg->server);
		if (!(h->host = strdup(host)))
			return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	/* the certificate is checked for tls-server-name, else the URL's host
	 * (an address as an address, a name as a name, with SNI): as libcurl */
	h->verify_ip = !h->cfg->tls_server_name && !h->host;
	h->verify = strdup(h->cfg->tls_server_name ? h->cfg->tls_server_name : host);
	if (!h->verify)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	return 0;
}

/* ---- TLS ----------------------------------------------------------------- */

static int ossl_error(bh_error *err, int code, const char *what)
{
	char b[256];
	unsigned long e = ERR_get_error();
	ERR_error_string_n(e, b, sizeof b);
	ERR_clear_error();
	return bh_error_set(err, code, "%s: %s", what, e ? b : "failed");
}

static int new_session_cb(SSL *ssl, SSL_SESSION *sess)
{
	kube_h2 *h = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
	if (h->sess)
		SSL_SESSION_free(h->sess);
	h->sess = sess;
	return 1; /* ours now */
}

/* The TLS context, the credentials decoded once: the CA (cfg's bytes, else
 * the system's store, as libcurl's default), the client certificate with
 * its chain, and its key. */
static int tls_setup(kube_h2 *h, bh_error *err)
{
	const kube_config *c = h->cfg;
	static const unsigned char alpn[] = "\x02h2";
	BIO *b = NULL;
	X509 *x;
	if (!(h->ctx = SSL_CTX_new(TLS_client_method())))
		return ossl_error(err, BH_ENOMEM, "TLS context");
	SSL_CTX_set_min_proto_version(h->ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(h->ctx, SSL_VERIFY_PEER, NULL);
	/* its buffers kept (one connection): not freed and allocated again per record */
	SSL_CTX_clear_mode(h->ctx, SSL_MODE_RELEASE_BUFFERS);
	SSL_CTX_set_app_data(h->ctx, h);
	SSL_CTX_set_session_cache_mode(h->ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
	SSL_CTX_sess_set_new_cb(h->ctx, new_session_cb);
	if (SSL_CTX_set_alpn_protos(h->ctx, alpn, sizeof alpn - 1) != 0)
		return ossl_error(err, BH_ENOMEM, "TLS ALPN");
	if (c->ca_pem) {
		X509_STORE *st = SSL_CTX_get_cert_store(h->ctx);
		int n = 0;
		if (!(b = BIO_new_mem_buf(c->ca_pem, (int)c->ca_len)))
			return ossl_error(err, BH_ENOMEM, "TLS CA");
		while ((x = PEM_read_bio_X509(b, NULL, NULL, NULL))) {
			X509_STORE_add_cert(st, x);
			X509_free(x);
			n++;
		}
		BIO_free(b);
		ERR_clear_error();
		if (!n)
			return bh_error_set(err, BH_EINVAL, "certificate-authority: no certificate in it");
	} else if (SSL_CTX_set_default_verify_paths(h->ctx) != 1) {
		return ossl_error(err, BH_EINVAL, "the system's CA store");
	}
	if (c->cert_pem) {
		EVP_PKEY *k;
		int ok;
		if (!(b = BIO_new_mem_buf(c->cert_pem, (int)c->cert_len)))
			return ossl_error(err, BH_ENOMEM, "client certificate");
		ok = (x = PEM_read_bio_X509(b, NULL, NULL, NULL)) && SSL_CTX_use_certificate(h->ctx, x) == 1;
		X509_free(x);
		while (ok && (x = PEM_read_bio_X509(b, NULL, NULL, NULL)))
			if (SSL_CTX_add0_chain_cert(h->ctx, x) != 1) {
				X509_free(x);
				ok = 0;
			}
		BIO_free(b);
		ERR_clear_error();
		if (!ok)
			return bh_error_set(err, BH_EINVAL, "client-certificate: not a PEM certificate");
		if (!(b = BIO_new_mem_buf(c->key_pem, (int)c->key_len)))
			return ossl_error(err, BH_ENOMEM, "client key");
		k = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
		BIO_free(b);
		ok = k && SSL_CTX_use_PrivateKey(h->ctx, k) == 1 && SSL_CTX_check_private_key(h->ctx) == 1;
		EVP_PKEY_free(k);
		if (!ok)
			return ossl_error(err, BH_EINVAL, "client-key: not the certificate's PEM key");
	}
	return 0;
}

/* ---- the server's name ------------------------------------------------------ */

static void lookup_unref(lookup *lk)
{
	if (atomic_fetch_sub_explicit(&lk->refs, 1, memory_order_acq_rel) != 1)
		return;
	if (lk->ai)
		freeaddrinfo(lk->ai);
	close(lk->efd);
	free(lk);
}

/* The lookup's thread: the resolver may take seconds (a slow or gone DNS
 * server); nothing else waits for it. */
static void *lookup_run(void *arg)
{
	lookup *lk = arg;
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
	uint64_t one = 1;
	lk->rc = getaddrinfo(lk->host, lk->port, &hints, &lk->ai);
	lk->err = errno;
	if (lk->rc)
		lk->ai = NULL;
	atomic_store_explicit(&lk->done, 1, memory_order_release);
	while (write(lk->efd, &one, sizeof one) < 0 && errno == EINTR)
		;
	lookup_unref(lk);
	return NULL;
}

/* h->host's lookup started on a thread of its own (detached, every signal
 * blocked in it: the process's handlers run on its other threads): 0, or
 * -1 with why set. */
static int lookup_start(kube_h2 *h, char *why, size_t n)
{
	size_t hl = strlen(h->host);
	lookup *lk = calloc(1, sizeof *lk + hl + 1);
	pthread_attr_t at;
	pthread_t th;
	sigset_t all, old;
	int rc;
	if (!lk) {
		snprintf(why, n, "out of memory");
		return -1;
	}
	if ((lk->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		snprintf(why, n, "looking up %s: eventfd: %s", h->host, strerror(errno));
		free(lk);
		return -1;
	}
	atomic_init(&lk->refs, 2);
	atomic_init(&lk->done, 0);
	lk->started = kube_now_ms();
	memcpy(lk->port, h->port, sizeof lk->port);
	memcpy(lk->host, h->host, hl + 1);
	sigfillset(&all);
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&th, &at, lookup_run, lk);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&at);
	if (rc != 0) {
		snprintf(why, n, "looking up %s: no thread for it: %s", h->host, strerror(rc));
		close(lk->efd);
		free(lk);
		return -1;
	}
	h->lk = lk;
	return 0;
}

/* h lets its lookup go: freed now when its thread is done, else by the
 * thread when it is (a resolver that takes longer than the connection's
 * time holds only that thread, until the resolver's own timeout). */
static void lookup_drop(kube_h2 *h)
{
	if (!h->lk)
		return;
	if (h->forget)
		h->forget(h->lk->efd);
	lookup_unref(h->lk);
	h->lk = NULL;
}

/* The connection h's lookup was for is over: the lookup kept while its
 * thread runs (out of the caller's poll set), so that the next connection
 * waits for it rather than start another thread: one lookup thread per
 * client, however many connections a dead DNS server makes time out. */
static void lookup_leave(kube_h2 *h)
{
	if (!h->lk)
		return;
	if (atomic_load_explicit(&h->lk->done, memory_order_acquire))
		lookup_drop(h);
	else if (h->forget)
		h->forget(h->lk->efd);
}

/* 1 when lk was started so long before the connection now made that its
 * addresses may have changed since. */
static int lookup_stale(const kube_h2 *h, const lookup *lk)
{
	return lk->started < h->conn_started - LOOKUP_FRESH_MS;
}

/* ---- the connection -------------------------------------------------------- */

/* The socket tried or used now closed (the caller's poll set told first). */
static void sock_close(kube_h2 *h)
{
	if (h->fd >= 0) {
		if (h->forget)
			h->forget(h->fd);
		close(h->fd);
	}
	h->fd = -1;
}

/* Empties b for the next connection, its memory kept unless an allocation
 * failed (which bh_buf remembers until freed). */
static void buf_clear(bh_buf *b)
{
	if (bh_buf_ok(b))
		bh_buf_reset(b);
	else
		bh_buf_free(b);
}

static void conn_close(kube_h2 *h)
{
	if (h->ng)
		nghttp2_session_del(h->ng);
	h->ng = NULL;
	if (h->ssl)
		SSL_free(h->ssl);
	h->ssl = NULL;
	lookup_leave(h);
	sock_close(h);
	h->state = C_NONE;
	h->goaway = 0;
	h->ping_at = 0;
	buf_clear(&h->out);
	buf_clear(&h->net);
	h->net_off = 0;
	buf_clear(&h->in);
	h->in_off = 0;
}

/* The connection is gone (code, why): sent streams end with code, the
 * others wait for the next connection (or end, after REQUEUE_MAX). */
static void conn_lost(kube_h2 *h, int code, const char *why)
{
	h2s *s, *nx;
	/* back to the queue's front, in their order */
	for (s = TAILQ_LAST(&h->live.q, h2s_q); s; s = nx) {
		nx = TAILQ_PREV(s, h2s_q, link);
		if (s->sent) { /* one that asked to stop has its outcome */
			finish(h, &h->live, s, s->stopped ? 0 : code, why);
			continue;
		}
		l_del(&h->live, s);
		s->id = 0;
		s->body_off = 0;
		l_push_front(&h->queue, s);
	}
	conn_close(h);
	for (s = l_first(&h->queue); s; s = nx) {
		nx = TAILQ_NEXT(s, link);
		if (++s->requeues > REQUEUE_MAX)
			finish(h, &h->queue, s, code, why);
	}
}

/* The connection could not be made: every stream waiting ends (none was
 * sent). */
static void conn_failed(kube_h2 *h, int code, const char *why)
{
	h2s *s;
	conn_close(h);
	while ((s = l_first(&h->queue)))
		finish(h, &h->queue, s, code, why);
}

/* A TCP connection to the next of h's addresses (in the resolver's order)
 * under way, or, when none is left, the connection failed with the last
 * one's error. */
static void connect_next(kube_h2 *h)
{
	char why[300];
	struct addrinfo *a;
	while ((a = h->ai_next)) {
		int fd = socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;
		long long now = kube_now_ms();
		h->ai_next = a->ai_next;
		if (getnameinfo(a->ai_addr, a->ai_addrlen, h->last_addr, sizeof h->last_addr, NULL, 0, NI_NUMERICHOST))
			snprintf(h->last_addr, sizeof h->last_addr, "?");
		if (fd < 0) {
			h->last_errno = errno;
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
		h->fd = fd;
		h->state = C_CONNECTING;
		if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS) {
			h->last_errno = errno;
			sock_close(h);
			continue;
		}
		/* with another address left, this one has half the time left: one
		 * that never answers does not take all of it */
		h->try_deadline = h->ai_next ? now + (h->conn_deadline - now) / 2 : h->conn_deadline;
		return;
	}
	if (h->host)
		snprintf(why, sizeof why, "connect to %s (%s, of %s): %s", h->authority, h->last_addr, h->host,
		         strerror(h->last_errno));
	else
		snprintf(why, sizeof why, "connect to %s: %s", h->authority, strerror(h->last_errno));
	conn_failed(h, BH_EUNAVAIL, why);
}

static void lookup_again(kube_h2 *h);

/* The lookup is done: its addresses tried, or the connection failed
 * naming the host. */
static void lookup_done(kube_h2 *h)
{
	lookup *lk = h->lk;
	char why[300];
	uint64_t v;
	if (!atomic_load_explicit(&lk->done, memory_order_acquire))
		return; /* not yet (a stray wake-up) */
	(void)!read(lk->efd, &v, sizeof v);
	if (!lk->rc && lookup_stale(h, lk)) { /* a past connection's: looked up again */
		lookup_drop(h);
		lookup_again(h);
		return;
	}
	if (lk->rc) {
		snprintf(why, sizeof why, "looking up the server's host %s: %s", h->host,
		         lk->rc == EAI_SYSTEM ? strerror(lk->err) : gai_strerror(lk->rc));
		conn_failed(h, BH_EUNAVAIL, why);
		return;
	}
	if (h->ai)
		freeaddrinfo(h->ai);
	h->ai = h->ai_next = lk->ai; /* ours now: the thread is done with lk */
	lk->ai = NULL;
	lookup_drop(h);
	h->last_errno = EADDRNOTAVAIL; /* a lookup with no address */
	connect_next(h);
}

/* A new connection: the server's name looked up again (its addresses
 * change), or its address connected to. */
static void conn_start(kube_h2 *h)
{
	h->conns++;
	h->conn_started = kube_now_ms();
	h->conn_deadline = h->conn_started + h->connect_timeout;
	h->last_errno = ECONNREFUSED;
	if (!h->host) {
		h->ai_next = h->ai;
		connect_next(h);
		return;
	}
	if (h->lk && atomic_load_explicit(&h->lk->done, memory_order_acquire) && lookup_stale(h, h->lk))
		lookup_drop(h); /* ended long ago: neither its addresses nor its error are news */
	if (!h->lk) {
		lookup_again(h);
		return;
	}
	h->state = C_RESOLVING; /* the last connection's lookup, still under way or just done */
	if (atomic_load_explicit(&h->lk->done, memory_order_acquire))
		lookup_done(h);
}

/* A new lookup for the connection under way. */
static void lookup_again(kube_h2 *h)
{
	char why[300];
	if (lookup_start(h, why, sizeof why) < 0)
		conn_failed(h, BH_EUNAVAIL, why);
	else
		h->state = C_RESOLVING;
}

/* ---- nghttp2's callbacks --------------------------------------------------- */

static h2s *stream_of(nghttp2_session *ng, int32_t id)
{
	return nghttp2_session_get_stream_user_data(ng, id);
}

static int on_frame_send(nghttp2_session *ng, const nghttp2_frame *f, void *ud)
{
	h2s *s;
	(void)ud;
	if (f->hd.type == NGHTTP2_HEADERS && (s = stream_of(ng, f->hd.stream_id)))
		s->sent = 1;
	return 0;
}

static int on_frame_recv(nghttp2_session *ng, const nghttp2_frame *f, void *ud)
{
	kube_h2 *h = ud;
	h2s *s;
	if (f->hd.type == NGHTTP2_GOAWAY) {
		h->goaway = 1; /* no new stream here; the others go on */
		return 0;
	}
	if (f->hd.type != NGHTTP2_HEADERS || !(s = stream_of(ng, f->hd.stream_id)) || s->rc)
		return 0;
	if (s->resp->status >= 100 && s->resp->status < 200) { /* informational: the final answer follows */
		free(s->resp->content_type);
		free(s->resp->retry_after);
		s->resp->content_type = s->resp->retry_after = NULL;
		s->resp->status = 0;
		s->clen = UINT64_MAX;
	} else if (!s->on_data && s->clen != UINT64_MAX && s->clen > s->resp->body.len && s->clen <= PRESIZE_MAX) {
		bh_buf_grow(&s->resp->body, (size_t)(s->clen - s->resp->body.len));
	}
	return 0;
}

static int on_header(nghttp2_session *ng, const nghttp2_frame *f, const uint8_t *name, size_t nlen,
                     const uint8_t *value, size_t vlen, uint8_t flags, void *ud)
{
	h2s *s = stream_of(ng, f->hd.stream_id);
	bh_error e;
	(void)flags, (void)ud;
	if (!s || s->rc || f->hd.type != NGHTTP2_HEADERS || (s->resp->status >= 200 && f->headers.cat == NGHTTP2_HCAT_HEADERS))
		return 0; /* stopped, failed, or trailers */
	if (kube_h2_head_field(s->resp, &s->clen, name, nlen, value, vlen, &e) < 0) {
		s->rc = e.code;
		snprintf(s->msg, sizeof s->msg, "%.290s", e.msg);
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* the stream is reset */
	}
	return 0;
}

static int on_data(nghttp2_session *ng, uint8_t flags, int32_t id, const uint8_t *data, size_t len, void *ud)
{
	h2s *s = stream_of(ng, id);
	(void)flags, (void)ud;
	if (!s || s->rc || s->stopped)
		return 0;
	if (s->on_data && s->resp->status >= 200 && s->resp->status < 300) { /* a stream's bytes */
		if (!s->on_data(s->sud, (const char *)data, len))
			return 0;
		s->stopped = 1; /* ends with 0 */
	} else if (s->resp->body.len + len > KUBE_H2_MAX_BODY) {
		s->rc = BH_ELIMIT;
		snprintf(s->msg, sizeof s->msg, "response larger than %u bytes", KUBE_H2_MAX_BODY);
	} else {
		bh_buf_put(&s->resp->body, data, len);
		if (bh_buf_ok(&s->resp->body))
			return 0;
		s->rc = BH_ENOMEM;
		snprintf(s->msg, sizeof s->msg, "out of memory reading response");
	}
	nghttp2_submit_rst_stream(ng, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
	return 0;
}

static int on_close(nghttp2_session *ng, int32_t id, uint32_t code, void *ud)
{
	kube_h2 *h = ud;
	h2s *s = stream_of(ng, id);
	char why[80];
	if (!s)
		return 0; /* stopped */
	nghttp2_session_set_stream_user_data(ng, id, NULL);
	if (s->stopped) {
		finish(h, &h->live, s, 0, NULL);
	} else if (s->rc) { /* failed here: its message is set */
		l_del(&h->live, s);
		dl_del(h, s);
		l_push(&h->fin, s);
	} else if (code == NGHTTP2_NO_ERROR && s->resp->status >= 200) {
		finish(h, &h->live, s, 0, NULL);
	} else if (!s->resp->status && (code == NGHTTP2_REFUSED_STREAM || !s->sent)) {
		/* not processed by the server (RFC 9113 8.7): again, on the next connection */
		l_del(&h->live, s);
		s->id = 0;
		s->sent = 0;
		s->body_off = 0;
		if (++s->requeues > REQUEUE_MAX) {
			l_push(&h->queue, s);
			finish(h, &h->queue, s, BH_EUNAVAIL, "refused by the server");
		} else {
			l_push_front(&h->queue, s);
		}
	} else {
		snprintf(why, sizeof why, "stream closed by the server (HTTP/2 error %u)", code);
		finish(h, &h->live, s, BH_EUNAVAIL, why);
	}
	return 0;
}

static ssize_t body_read(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                         nghttp2_data_source *src, void *ud)
{
	h2s *s = stream_of(ng, id);
	size_t left;
	(void)src, (void)ud;
	if (!s)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	left = s->req->body_len - s->body_off;
	if (len > left)
		len = left;
	if (len)
		memcpy(buf, s->req->body + s->body_off, len);
	s->body_off += len;
	if (s->body_off == s->req->body_len)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)len;
}

static nghttp2_session_callbacks *callbacks(void)
{
	static nghttp2_session_callbacks *cb;
	if (!cb && nghttp2_session_callbacks_new(&cb) == 0) {
		nghttp2_session_callbacks_set_on_frame_send_callback(cb, on_frame_send);
		nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
		nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
		nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
		nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_close);
	}
	return cb;
}

/* ---- requests ---------------------------------------------------------------- */

#define NV(n, v, vl) ((nghttp2_nv){(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, (vl), NGHTTP2_NV_FLAG_NONE})

/* s as a stream on the connection: 0, or -1 (s ended with why). */
static int submit(kube_h2 *h, h2s *s)
{
	const kube_request *r = s->req;
	nghttp2_nv nv[9 + MAX_HEADERS];
	size_t n = 0, i;
	char lower[MAX_HEADERS][64];
	char clen[24];
	bh_buf path = BH_BUF_INIT;
	nghttp2_data_provider dp = {.source.ptr = s, .read_callback = body_read};
	int has_body = r->body || !strcmp(r->method, "POST") || !strcmp(r->method, "PUT") || !strcmp(r->method, "PATCH");
	const char *accept = r->accept ? r->accept : "application/json";
	bh_buf_puts(&path, h->prefix);
	bh_buf_puts(&path, r->path);
	if (!bh_buf_ok(&path)) {
		bh_buf_free(&path);
		finish(h, &h->queue, s, BH_ENOMEM, "out of memory");
		return -1;
	}
	nv[n++] = NV(":method", r->method, strlen(r->method));
	nv[n++] = NV(":scheme", "https", 5);
	nv[n++] = NV(":authority", h->authority, strlen(h->authority));
	nv[n++] = NV(":path", path.data, path.len);
	nv[n++] = NV("user-agent", h->user_agent, strlen(h->user_agent));
	nv[n++] = NV("accept", accept, strlen(accept));
	if (r->content_type)
		nv[n++] = NV("content-type", r->content_type, strlen(r->content_type));
	if (h->auth)
		nv[n++] = NV("authorization", h->auth, strlen(h->auth));
	if (has_body) {
		snprintf(clen, sizeof clen, "%zu", r->body_len);
		nv[n++] = NV("content-length", clen, strlen(clen));
	}
	for (i = 0; r->headers && r->headers[i]; i++) { /* "Name: value", checked by kube_h2_add */
		const char *l = r->headers[i], *colon = strchr(l, ':'), *v;
		size_t k = (size_t)(colon - l);
		for (size_t j = 0; j < k; j++)
			lower[i][j] = (char)(l[j] >= 'A' && l[j] <= 'Z' ? l[j] + 32 : l[j]);
		for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
			;
		nv[n++] = (nghttp2_nv){(uint8_t *)lower[i], (uint8_t *)v, k, strlen(v), NGHTTP2_NV_FLAG_NONE};
	}
	s->id = nghttp2_submit_request(h->ng, NULL, nv, n, has_body ? &dp : NULL, s);
	bh_buf_free(&path);
	if (s->id < 0) {
		int nomem = s->id == NGHTTP2_ERR_NOMEM;
		s->id = 0;
		finish(h, &h->queue, s, nomem ? BH_ENOMEM : BH_EUNAVAIL, "the stream could not start");
		return -1;
	}
	l_del(&h->queue, s);
	l_push(&h->live, s);
	return 0;
}

/* The header lines of req as kube_h2_add takes them: "Name: value", a
 * name of 1-63 characters, at most 16 lines, no control character. */
static int check_request(const kube_request *req, bh_error *err)
{
	size_t i;
	if (kube_has_ctl(req->method) || kube_has_ctl(req->path) || strchr(req->method, ' ') || strchr(req->path, ' '))
		return bh_error_set(err, BH_EINVAL, "request method or path holds a space or control character; not sent");
	if ((req->accept && kube_has_ctl(req->accept)) || (req->content_type && kube_has_ctl(req->content_type)))
		return bh_error_set(err, BH_EINVAL, "%s %.300s: Accept or Content-Type holds a control character; not sent",
		                    req->method, req->path);
	for (i = 0; req->headers && req->headers[i]; i++) {
		const char *l = req->headers[i], *colon = strchr(l, ':');
		if (i >= MAX_HEADERS || !colon || colon == l || colon - l >= 64 || kube_has_ctl(l))
			return bh_error_set(err, BH_EINVAL, "%s %.300s: header %.64s is not a clean \"Name: value\" line; not sent",
			                    req->method, req->path, l);
	}
	return 0;
}

/* h->auth for the token to send now. */
static int refresh_auth(kube_h2 *h, const kube_request *req, bh_error *err)
{
	const char *tok;
	int rc;
	if ((rc = kube_config_refresh_for(h->cfg, req->method, req->path, err)) < 0)
		return rc;
	tok = h->cfg->token;
	if (!tok) {
		free(h->auth);
		h->auth = NULL;
		return 0;
	}
	if (h->auth && !strcmp(h->auth + 7, tok))
		return 0;
	if (kube_has_ctl(tok))
		return bh_error_set(err, BH_EINVAL, "%s %.300s: the bearer token holds a control character; not sent",
		                    req->method, req->path);
	free(h->auth);
	if (!(h->auth = malloc(strlen(tok) + 8)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	memcpy(h->auth, "Bearer ", 7);
	strcpy(h->auth + 7, tok);
	return 0;
}

int kube_h2_add(kube_h2 *h, const kube_request *req, kube_response *resp, kube_stream_fn on_data,
                kube_h2_end_fn on_end, void *sud, bh_error *err)
{
	h2s *s;
	int rc;
	if ((rc = check_request(req, err)) < 0 || (rc = refresh_auth(h, req, err)) < 0)
		return rc;
	if (!(s = calloc(1, sizeof *s)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	s->sud = sud;
	s->on_data = on_data;
	s->on_end = on_end;
	s->req = req;
	s->resp = resp;
	s->clen = UINT64_MAX;
	s->deadline = kube_now_ms() + (req->timeout_ms > 0 ? req->timeout_ms : KUBE_H2_DEFAULT_TIMEOUT_MS);
	if (dl_add(h, s) < 0) {
		free(s);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	if (ud_add(h, s) < 0) {
		dl_del(h, s);
		free(s);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	l_push(&h->queue, s);
	if (h->refused)
		finish(h, &h->queue, s, BH_EPROTO, "the server does not speak HTTP/2");
	return 0;
}

void kube_h2_stop(kube_h2 *h, void *sud)
{
	h2s *s = ud_find(h, sud);
	if (!s)
		return;
	if (s->on == &h->live) {
		nghttp2_session_set_stream_user_data(h->ng, s->id, NULL);
		nghttp2_submit_rst_stream(h->ng, NGHTTP2_FLAG_NONE, s->id, NGHTTP2_CANCEL);
	}
	l_del(s->on, s);
	ud_del(h, s);
	dl_del(h, s);
	free(s);
}

/* ---- moving bytes -------------------------------------------------------------- */

/* The socket is read and written here, the TLS connection through memory
 * BIOs: one read(2) takes every record that came (OpenSSL on a socket
 * reads each record's header and body apart, and once more to learn that
 * nothing is left), one write(2) sends every record made. */

/* An SSL call's failure r: 0 when it only waits for more bytes, else
 * BH_EUNAVAIL with why set. */
static int tls_wait(kube_h2 *h, int r, char *why, size_t n)
{
	int e = SSL_get_error(h->ssl, r);
	unsigned long q;
	if (e == SSL_ERROR_WANT_READ)
		return 0;
	q = ERR_get_error();
	if (e == SSL_ERROR_ZERO_RETURN || !q)
		snprintf(why, n, "the server closed the connection");
	else {
		char b[200];
		ERR_error_string_n(q, b, sizeof b);
		snprintf(why, n, "TLS: %s", b);
	}
	ERR_clear_error();
	return BH_EUNAVAIL;
}

/* The TLS connection's BIO: the SSL writes its records onto h->net and
 * reads what net_fill put in h->in, both ours. OpenSSL's memory BIO zeroes
 * every block it grows by and its whole buffer on each reset (BIO_reset),
 * and its bytes had to be copied out again: a tenth of bulkheadd's
 * instructions in a callgrind profile of the scale benchmark. */
static int tlsbio_write(BIO *b, const char *p, int n)
{
	kube_h2 *h = BIO_get_data(b);
	BIO_clear_retry_flags(b);
	bh_buf_put(&h->net, p, (size_t)n);
	return bh_buf_ok(&h->net) ? n : -1;
}

static int tlsbio_read(BIO *b, char *p, int n)
{
	kube_h2 *h = BIO_get_data(b);
	size_t have = h->in.len - h->in_off, k = have < (size_t)n ? have : (size_t)n;
	BIO_clear_retry_flags(b);
	if (!k) { /* empty: "wait for more", not the end (net_fill tells the end) */
		BIO_set_retry_read(b);
		return -1;
	}
	memcpy(p, h->in.data + h->in_off, k);
	if ((h->in_off += k) == h->in.len) {
		bh_buf_reset(&h->in);
		h->in_off = 0;
	}
	return (int)k;
}

static long tlsbio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
	kube_h2 *h = BIO_get_data(b);
	(void)num, (void)ptr;
	switch (cmd) {
	case BIO_CTRL_FLUSH:
		return 1;
	case BIO_CTRL_PENDING:
		return (long)(h->in.len - h->in_off);
	case BIO_CTRL_WPENDING:
		return (long)(h->net.len - h->net_off);
	default:
		return 0;
	}
}

static BIO_METHOD *tlsbio_method;

static void tlsbio_init(void)
{
	BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "bulkhead h2");
	if (m && BIO_meth_set_write(m, tlsbio_write) && BIO_meth_set_read(m, tlsbio_read) &&
	    BIO_meth_set_ctrl(m, tlsbio_ctrl))
		tlsbio_method = m;
	else
		BIO_meth_free(m);
}

/* A BIO over h's buffers, or NULL when out of memory. */
static BIO *tlsbio_new(kube_h2 *h)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	BIO *b;
	pthread_once(&once, tlsbio_init);
	if (!tlsbio_method || !(b = BIO_new(tlsbio_method)))
		return NULL;
	BIO_set_data(b, h);
	BIO_set_init(b, 1);
	return b;
}

/* The TLS bytes made so far to the socket, as far as it takes them: 0, or
 * BH_EUNAVAIL/BH_ENOMEM with why set. */
static int net_send(kube_h2 *h, char *why, size_t n)
{
	if (!bh_buf_ok(&h->net)) {
		snprintf(why, n, "out of memory");
		return BH_ENOMEM;
	}
	while (h->net_off < h->net.len) {
		ssize_t w = write(h->fd, h->net.data + h->net_off, h->net.len - h->net_off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (w < 0) {
			snprintf(why, n, "connection: %s", strerror(errno));
			return BH_EUNAVAIL;
		}
		h->net_off += (size_t)w;
	}
	bh_buf_reset(&h->net);
	h->net_off = 0;
	return 0;
}

/* What the socket holds, to the TLS connection: 0, 1 (the server closed
 * it), or BH_EUNAVAIL/BH_ENOMEM with why set. */
static int net_fill(kube_h2 *h, char *why, size_t n)
{
	const size_t chunk = 65536;
	if (h->in_off) { /* a partial record left by the last drain: to the front, so h->in stays bounded */
		memmove(h->in.data, h->in.data + h->in_off, h->in.len - h->in_off);
		h->in.len -= h->in_off;
		h->in_off = 0;
	}
	for (;;) {
		if (bh_buf_grow(&h->in, chunk) < 0) {
			snprintf(why, n, "out of memory");
			return BH_ENOMEM;
		}
		ssize_t r = read(h->fd, h->in.data + h->in.len, chunk);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (r < 0) {
			snprintf(why, n, "connection: %s", strerror(errno));
			return BH_EUNAVAIL;
		}
		if (r == 0)
			return 1;
		h->in.len += (size_t)r;
		h->in.data[h->in.len] = '\0';
		h->quiet_since = kube_now_ms(); /* the connection lives: a PING waiting is answered */
		h->ping_at = 0;
		if ((size_t)r < chunk) /* all there was, most likely: the poll says if not */
			return 0;
	}
}

/* Writes what nghttp2 has to send, while the socket takes it: 0, or -1
 * (the connection is lost). */
static int flush(kube_h2 *h)
{
	char why[256];
	int rc;
	for (;;) {
		const uint8_t *p;
		ssize_t k;
		if ((rc = net_send(h, why, sizeof why)) < 0) {
			conn_lost(h, rc, why);
			return -1;
		}
		if (h->net_off < h->net.len)
			return 0; /* the socket is full: on POLLOUT */
		bh_buf_reset(&h->out);
		/* up to 64 KiB of frames per round */
		while (h->out.len < 65536 && (k = nghttp2_session_mem_send(h->ng, &p)) > 0)
			bh_buf_put(&h->out, p, (size_t)k);
		if (!bh_buf_ok(&h->out)) {
			conn_lost(h, BH_ENOMEM, "out of memory");
			return -1;
		}
		if (h->out.len == 0)
			return 0;
		for (size_t off = 0; off < h->out.len;) { /* into memory: never waits */
			int r = SSL_write(h->ssl, h->out.data + off, (int)(h->out.len - off));
			if (r <= 0) {
				tls_wait(h, r, why, sizeof why);
				conn_lost(h, BH_EUNAVAIL, why);
				return -1;
			}
			off += (size_t)r;
		}
	}
}

/* Reads what came: 0, or -1 (the connection is lost). */
static int drain(kube_h2 *h)
{
	uint8_t b[16384];
	char why[256];
	int eof = net_fill(h, why, sizeof why);
	if (eof < 0) {
		conn_lost(h, eof, why);
		return -1;
	}
	for (;;) {
		int r = SSL_read(h->ssl, b, sizeof b);
		if (r <= 0) {
			if (tls_wait(h, r, why, sizeof why) < 0 || eof) {
				conn_lost(h, BH_EUNAVAIL, eof ? "the server closed the connection" : why);
				return -1;
			}
			return 0;
		}
		ssize_t k = nghttp2_session_mem_recv(h->ng, b, (size_t)r);
		if (k < 0) {
			snprintf(why, sizeof why, "HTTP/2: %s", nghttp2_strerror((int)k));
			conn_lost(h, BH_EUNAVAIL, why);
			return -1;
		}
	}
}

/* The handshake is done: h2, or the server refused it. */
static void tls_done(kube_h2 *h)
{
	const unsigned char *p = NULL;
	unsigned n = 0;
	nghttp2_settings_entry st[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
	                               {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, STREAM_WINDOW}};
	SSL_get0_alpn_selected(h->ssl, &p, &n);
	if (n != 2 || memcmp(p, "h2", 2)) {
		h->refused = 1;
		conn_failed(h, BH_EPROTO, "the server does not speak HTTP/2");
		return;
	}
	if (!callbacks() || nghttp2_session_client_new(&h->ng, callbacks(), h) != 0) {
		conn_failed(h, BH_ENOMEM, "out of memory");
		return;
	}
	nghttp2_submit_settings(h->ng, NGHTTP2_FLAG_NONE, st, sizeof st / sizeof st[0]);
	nghttp2_session_set_local_window_size(h->ng, NGHTTP2_FLAG_NONE, 0, CONN_WINDOW);
	h->state = C_READY;
	h->quiet_since = kube_now_ms();
	h->ping_at = 0;
}

static void handshake(kube_h2 *h, short rev)
{
	char why[300];
	int r, eof = 0, rc;
	if ((rev & (POLLIN | POLLHUP | POLLERR)) && (eof = net_fill(h, why, sizeof why)) < 0) {
		conn_failed(h, eof, why);
		return;
	}
	r = SSL_connect(h->ssl);
	if ((rc = net_send(h, why, sizeof why)) < 0) {
		conn_failed(h, rc, why);
		return;
	}
	if (r == 1) {
		tls_done(h);
		return;
	}
	if (tls_wait(h, r, why, sizeof why) < 0 || eof) {
		long v = SSL_get_verify_result(h->ssl);
		if (v != X509_V_OK) { /* a bad certificate: no retry fixes it */
			snprintf(why, sizeof why, "the server's certificate: %s", X509_verify_cert_error_string(v));
			conn_failed(h, BH_EINVAL, why);
		} else {
			conn_failed(h, BH_EUNAVAIL, why);
		}
	}
}

/* The TCP connection is up: TLS over it. */
static void tls_start(kube_h2 *h)
{
	int soerr = 0;
	socklen_t sl = sizeof soerr;
	getsockopt(h->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
	if (soerr) { /* this address refused it: the next, if any */
		h->last_errno = soerr;
		sock_close(h);
		connect_next(h);
		return;
	}
	BIO *b = NULL;
	if (!(h->ssl = SSL_new(h->ctx)) || !(b = tlsbio_new(h))) {
		conn_failed(h, BH_ENOMEM, "TLS: out of memory");
		return;
	}
	SSL_set_bio(h->ssl, b, b); /* the SSL's now (one reference for both) */
	if (!h->verify_ip)
		SSL_set_tlsext_host_name(h->ssl, h->verify);
	if (!(h->verify_ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(h->ssl), h->verify)
	                   : SSL_set1_host(h->ssl, h->verify))) {
		conn_failed(h, BH_EINVAL, "TLS: the name to verify is refused");
		return;
	}
	if (h->sess)
		SSL_set_session(h->ssl, h->sess);
	h->state = C_TLS;
	handshake(h, 0);
}

/* Streams waiting go on the connection, as many as the server takes. */
static void submit_queued(kube_h2 *h)
{
	uint32_t max = nghttp2_session_get_remote_settings(h->ng, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
	while (l_first(&h->queue) && !h->goaway && h->live.n < max)
		submit(h, l_first(&h->queue));
}

/* The health check (as client-go's): a connection with streams open that
 * read nothing for ping_idle ms gets a PING; one that then reads nothing
 * for ping_timeout ms is dead (a peer or a path gone without a word, a
 * watch otherwise silent forever): closed as a lost connection. */
static void health(kube_h2 *h, long long now)
{
	char why[200];
	if (h->ping_at && now - h->ping_at >= h->ping_timeout) {
		snprintf(why, sizeof why, "the connection to %.64s is dead: no answer to a PING in %d ms (HTTP/2 health check)",
		         h->authority, h->ping_timeout);
		conn_lost(h, BH_EUNAVAIL, why);
		return;
	}
	if (!h->ping_at && h->live.n && now - h->quiet_since >= h->ping_idle) {
		if (nghttp2_submit_ping(h->ng, NGHTTP2_FLAG_NONE, NULL) != 0) {
			conn_lost(h, BH_ENOMEM, "out of memory");
			return;
		}
		h->ping_at = now;
	}
}

/* The health check's next time (ms), or -1: none. */
static long long health_due(const kube_h2 *h)
{
	if (h->state != C_READY)
		return -1;
	if (h->ping_at)
		return h->ping_at + h->ping_timeout;
	return h->live.n ? h->quiet_since + h->ping_idle : -1;
}

/* Streams past their deadline end (a sent one is reset), earliest first. */
static void expire(kube_h2 *h, long long now)
{
	h2s *s;
	while (h->ndl && (s = h->dl[0])->deadline <= now) {
		if (!s->id) { /* waiting: not on the connection */
			finish(h, &h->queue, s, BH_ETIMEOUT, "timed out");
			continue;
		}
		nghttp2_session_set_stream_user_data(h->ng, s->id, NULL);
		nghttp2_submit_rst_stream(h->ng, NGHTTP2_FLAG_NONE, s->id, NGHTTP2_CANCEL);
		finish(h, &h->live, s, BH_ETIMEOUT, "timed out");
	}
	if (h->state == C_CONNECTING && h->ai_next && h->try_deadline <= now) { /* the next address */
		h->last_errno = ETIMEDOUT;
		sock_close(h);
		connect_next(h);
	}
	if (h->state == C_RESOLVING && h->conn_deadline <= now) {
		char why[300];
		snprintf(why, sizeof why, "looking up the server's host %s: timed out", h->host);
		conn_failed(h, BH_ETIMEOUT, why);
	} else if ((h->state == C_CONNECTING || h->state == C_TLS) && h->conn_deadline <= now) {
		conn_failed(h, BH_ETIMEOUT, "connection timed out");
	}
}

/* The fd h waits on: the lookup's while it runs, else the socket (or -1). */
static int poll_fd(const kube_h2 *h)
{
	return h->state == C_RESOLVING ? h->lk->efd : h->fd;
}

/* Nothing to write: no frame waits in nghttp2, no byte for the socket. */
static int written(const kube_h2 *h)
{
	return !nghttp2_session_want_write(h->ng) && h->net_off == h->net.len;
}

/* The poll's events rev (none: 0) moved through the connection, the
 * streams waiting started; wr: the frames that wait are written (else
 * nothing is: the caller's rev had no POLLOUT). */
static void step(kube_h2 *h, short rev, int wr)
{
	if (h->state == C_RESOLVING && rev)
		lookup_done(h);
	else if (h->state == C_CONNECTING && rev)
		tls_start(h);
	else if (h->state == C_TLS && rev)
		handshake(h, rev);
	else if (h->state == C_READY && (rev & (POLLIN | POLLHUP | POLLERR)))
		drain(h);
	if (h->state == C_READY) {
		submit_queued(h);
		if ((wr ? flush(h) == 0 : written(h)) && h->state == C_READY && !h->live.n &&
		    (h->goaway || (!nghttp2_session_want_read(h->ng) && !nghttp2_session_want_write(h->ng))))
			conn_close(h); /* drained after a GOAWAY, or the session is over */
	}
}

/* A connection for the streams waiting with none, and the ended streams
 * to their end calls. */
static void settle(kube_h2 *h)
{
	h2s *s;
	if (h->state == C_NONE && l_first(&h->queue))
		conn_start(h);
	while ((s = l_first(&h->fin))) {
		bh_error e;
		l_del(&h->fin, s);
		ud_del(h, s); /* its end call may add another with its sud */
		e.code = s->rc;
		snprintf(e.msg, sizeof e.msg, "%s", s->rc ? s->msg : "");
		s->on_end(s->sud, s->rc, s->rc ? &e : NULL, s->sent);
		free(s);
	}
}

void kube_h2_dispatch(kube_h2 *h, const struct pollfd *pfd, size_t n)
{
	short rev = 0;
	long long now;
	int wr;
	for (size_t i = 0; i < n; i++)
		if (poll_fd(h) >= 0 && pfd[i].fd == poll_fd(h))
			rev = pfd[i].revents;
	/* a socket that was full writes on POLLOUT; with write_before_poll
	 * the rest waits for kube_h2_flush, before the caller's next poll */
	wr = !h->write_before_poll || (rev & POLLOUT);
	step(h, rev, wr);
	now = kube_now_ms();
	if (h->state == C_READY)
		health(h, now);
	expire(h, now);
	if (wr && h->state == C_READY && h->ng && nghttp2_session_want_write(h->ng))
		flush(h); /* the health check's PING, the resets of the streams that expired */
	settle(h);
}

/* No clock and no deadline here: the dispatch after the caller's last
 * poll looked at them, and one due since makes kube_h2_fds's wait 0 ms,
 * so the dispatch after the next poll ends it. */
void kube_h2_flush(kube_h2 *h)
{
	step(h, 0, 1);
	settle(h);
}

const struct pollfd *kube_h2_fds(kube_h2 *h, size_t *n, int *timeout_ms)
{
	long long now = kube_now_ms(), next = h->ndl ? h->dl[0]->deadline : -1, hc = health_due(h);
	short ev = 0;
	if (hc >= 0 && (next < 0 || hc < next))
		next = hc;
	if (h->state == C_RESOLVING || h->state == C_TLS)
		next = next < 0 || h->conn_deadline < next ? h->conn_deadline : next;
	else if (h->state == C_CONNECTING)
		next = next < 0 || h->try_deadline < next ? h->try_deadline : next;
	*timeout_ms = next < 0 ? -1 : next > now ? (int)(next - now) : 0;
	if (l_first(&h->fin) || (h->state == C_NONE && l_first(&h->queue)) ||
	    (h->state == C_READY && l_first(&h->queue) && !h->goaway &&
	     h->live.n < nghttp2_session_get_remote_settings(h->ng, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)) ||
	    (h->state == C_READY && nghttp2_session_want_write(h->ng) && h->net_off == h->net.len))
		*timeout_ms = 0; /* to do now */
	switch (h->state) {
	case C_RESOLVING:
		ev = POLLIN;
		break;
	case C_CONNECTING:
		ev = POLLOUT;
		break;
	case C_TLS:
	case C_READY:
		ev = POLLIN | (h->net_off < h->net.len ? POLLOUT : 0);
		break;
	default:
		*n = 0;
		return NULL;
	}
	h->pfd = (struct pollfd){.fd = poll_fd(h), .events = ev};
	*n = 1;
	return &h->pfd;
}

int kube_h2_refused(const kube_h2 *h)
{
	return h->refused;
}

unsigned long kube_h2_connections(const kube_h2 *h)
{
	return h->conns;
}

kube_h2 *kube_h2_new(const kube_config *cfg, const kube_h2_options *opt, bh_error *err)
{
	static const kube_h2_options none = {0};
	const char *why;
	kube_h2 *h;
	if (!opt)
		opt = &none;
	if (!kube_h2_usable(cfg, &why)) {
		bh_error_set(err, BH_EINVAL, "HTTP/2 client: %s", why);
		return NULL;
	}
	if (opt->ping_idle_ms < 0 || opt->ping_timeout_ms < 0) {
		bh_error_set(err, BH_EINVAL, "HTTP/2 client: a negative health check interval (ping idle %d ms, timeout %d ms)",
		             opt->ping_idle_ms, opt->ping_timeout_ms);
		return NULL;
	}
	if (opt->connect_timeout_ms < 0) {
		bh_error_set(err, BH_EINVAL, "HTTP/2 client: a negative connect timeout (%d ms)", opt->connect_timeout_ms);
		return NULL;
	}
	if (!(h = calloc(1, sizeof *h))) {
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	h->fd = -1;
	h->forget = opt->forget;
	h->ping_idle = opt->ping_idle_ms ? opt->ping_idle_ms : KUBE_H2_PING_IDLE_MS;
	h->ping_timeout = opt->ping_timeout_ms ? opt->ping_timeout_ms : KUBE_H2_PING_TIMEOUT_MS;
	h->connect_timeout = opt->connect_timeout_ms ? opt->connect_timeout_ms : KUBE_H2_CONNECT_TIMEOUT_MS;
	h->write_before_poll = opt->write_before_poll;
	TAILQ_INIT(&h->queue.q);
	TAILQ_INIT(&h->live.q);
	TAILQ_INIT(&h->fin.q);
	bh_buf_init(&h->out);
	bh_buf_init(&h->net);
	snprintf(h->user_agent, sizeof h->user_agent, "bulkhead/%s", PACKAGE_VERSION);
	if (!(h->cfg = kube_config_dup(cfg, err)) || parse_server(h, err) < 0 || tls_setup(h, err) < 0) {
		kube_h2_free(h);
		return NULL;
	}
	return h;
}

static void drop(slist *l)
{
	h2s *s;
	while ((s = l_first(l))) {
		l_del(l, s);
		free(s);
	}
}

void kube_h2_free(kube_h2 *h)
{
	if (!h)
		return;
	lookup_drop(h); /* its thread, if it still runs, frees it */
	conn_close(h);
	drop(&h->queue);
	drop(&h->live);
	drop(&h->fin);
	free(h->dl);
	free(h->by_ud);
	bh_buf_free(&h->out);
	bh_buf_free(&h->net);
	bh_buf_free(&h->in);
	if (h->sess)
		SSL_SESSION_free(h->sess);
	SSL_CTX_free(h->ctx);
	kube_config_free(h->cfg);
	free(h->authority);
	free(h->prefix);
	free(h->verify);
	free(h->host);
	if (h->ai)
		freeaddrinfo(h->ai);
	free(h->auth);
	free(h);
}
