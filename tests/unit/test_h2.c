/* tests/unit/test_h2.c — the direct HTTP/2 client (kube/h2.h) against an
 * in-process TLS HTTP/2 server (nghttp2's server side, a thread per
 * connection): many concurrent streams beyond the server's
 * SETTINGS_MAX_CONCURRENT_STREAMS on one connection, the request's headers
 * as the server gets them (token, impersonation, content type), a 1 MiB
 * response, a POST body over 64 KiB, a server GOAWAY mid-way (the streams
 * it did not take go again on a new connection), a connection refused, a
 * stream's timeout, a stopped stream, a server that does not offer h2
 * (ALPN), a server whose certificate is not of the CA, a token file
 * replaced between requests, the connection's health check (a server
 * that stops answering PINGs, one that answers), and a server given by host
 * name ("localhost": looked up on a thread per new connection, never
 * stalling the caller's loop; the certificate checked for the name, or
 * tls-server-name, with SNI; a name that does not resolve; a certificate
 * for another name; in a child with namespaces of its own, a name whose
 * first address refuses, and a DNS server that never answers while another
 * client in the same loop is served). */
#include <arpa/inet.h>
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sched.h>
#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kube/h2.h"
#include "tests/unit/tls_server.h"
#include "tests/unit/unit_util.h"

/* ---- certificates: a CA, the server's certificate of it ------------------------ */

static tls_cred ca, srv;

/* ---- the server ----------------------------------------------------------------- */

typedef struct server {
	tls_server t;
	int no_h2;           /* offer no h2 by ALPN */
	uint32_t max_streams; /* SETTINGS_MAX_CONCURRENT_STREAMS */
	int goaway_at;       /* the nth request of the first connection: GOAWAY taking only the streams up to it */
	int no_ping_ack;     /* PINGs taken and never answered: a server gone silent */
	pthread_mutex_t mu;
	int requests;        /* requests answered */
	int pings;           /* PINGs received */
	int peak;            /* most streams open at once */
	char sni[64];        /* the server name of the last handshake, "" for none */
	char auth[128], imp[128], ctype[64]; /* of the last request */
} server;

typedef struct sconn {
	server *s;
	SSL *ssl;
	int fd, first, seen, open;
	struct sreq {
		int32_t id;
		size_t got;   /* body bytes */
		char path[64];
		size_t left;  /* of the answer */
		char answer[32];
	} reqs[128];
} sconn;

static struct sreq *sreq_of(sconn *k, int32_t id)
{
	for (int i = 0; i < 128; i++)
		if (k->reqs[i].id == id)
			return &k->reqs[i];
	for (int i = 0; i < 128; i++)
		if (!k->reqs[i].id) {
			memset(&k->reqs[i], 0, sizeof k->reqs[i]);
			k->reqs[i].id = id;
			return &k->reqs[i];
		}
	return NULL;
}

static ssize_t s_send(nghttp2_session *ng, const uint8_t *d, size_t n, int fl, void *ud)
{
	sconn *k = ud;
	int r = SSL_write(k->ssl, d, (int)n);
	(void)ng, (void)fl;
	return r > 0 ? r : NGHTTP2_ERR_CALLBACK_FAILURE;
}

static ssize_t s_recv(nghttp2_session *ng, uint8_t *d, size_t n, int fl, void *ud)
{
	sconn *k = ud;
	struct pollfd p = {k->fd, POLLIN, 0};
	int r;
	(void)ng, (void)fl;
	if (!SSL_pending(k->ssl) && poll(&p, 1, 0) <= 0)
		return NGHTTP2_ERR_WOULDBLOCK;
	r = SSL_read(k->ssl, d, (int)n);
	return r > 0 ? r : NGHTTP2_ERR_EOF;
}

/* The answer's body: "/big" 1 MiB of 'x', else the text in answer. */
static ssize_t s_body(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                      nghttp2_data_source *src, void *ud)
{
	struct sreq *q = src->ptr;
	(void)ng, (void)id, (void)ud;
	if (len > q->left)
		len = q->left;
	if (!strcmp(q->path, "/big"))
		memset(buf, 'x', len);
	else
		memcpy(buf, q->answer + strlen(q->answer) - q->left, len);
	q->left -= len;
	if (!q->left)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)len;
}

static int s_header(nghttp2_session *ng, const nghttp2_frame *f, const uint8_t *n, size_t nl, const uint8_t *v,
                    size_t vl, uint8_t fl, void *ud)
{
	sconn *k = ud;
	struct sreq *q = sreq_of(k, f->hd.stream_id);
	(void)ng, (void)fl;
	pthread_mutex_lock(&k->s->mu);
	if (nl == 5 && !memcmp(n, ":path", 5) && q)
		snprintf(q->path, sizeof q->path, "%.*s", (int)vl, v);
	else if (nl == 13 && !memcmp(n, "authorization", 13))
		snprintf(k->s->auth, sizeof k->s->auth, "%.*s", (int)vl, v);
	else if (nl == 16 && !memcmp(n, "impersonate-user", 16))
		snprintf(k->s->imp, sizeof k->s->imp, "%.*s", (int)vl, v);
	else if (nl == 12 && !memcmp(n, "content-type", 12))
		snprintf(k->s->ctype, sizeof k->s->ctype, "%.*s", (int)vl, v);
	pthread_mutex_unlock(&k->s->mu);
	return 0;
}

static int s_data(nghttp2_session *ng, uint8_t fl, int32_t id, const uint8_t *d, size_t n, void *ud)
{
	struct sreq *q = sreq_of(ud, id);
	(void)ng, (void)fl, (void)d;
	if (q)
		q->got += n;
	return 0;
}

static int s_begin(nghttp2_session *ng, const nghttp2_frame *f, void *ud)
{
	sconn *k = ud;
	(void)ng, (void)f;
	k->open++;
	pthread_mutex_lock(&k->s->mu);
	if (k->open > k->s->peak)
		k->s->peak = k->open;
	pthread_mutex_unlock(&k->s->mu);
	return 0;
}

static int s_close(nghttp2_session *ng, int32_t id, uint32_t code, void *ud)
{
	sconn *k = ud;
	struct sreq *q = sreq_of(k, id);
	(void)ng, (void)code;
	k->open--;
	if (q)
		q->id = 0;
	return 0;
}

/* A request is complete: answered, except "/slow" (never). */
static int s_frame(nghttp2_session *ng, const nghttp2_frame *f, void *ud)
{
	sconn *k = ud;
	struct sreq *q;
	nghttp2_data_provider dp;
	nghttp2_nv nv[] = {{(uint8_t *)":status", (uint8_t *)"200", 7, 3, 0},
	                   {(uint8_t *)"content-type", (uint8_t *)"text/plain", 12, 10, 0},
	                   {(uint8_t *)"retry-after", (uint8_t *)"3", 11, 1, 0}};
	if (f->hd.type == NGHTTP2_PING && !(f->hd.flags & NGHTTP2_FLAG_ACK)) {
		pthread_mutex_lock(&k->s->mu);
		k->s->pings++;
		pthread_mutex_unlock(&k->s->mu);
		return 0;
	}
	if ((f->hd.type != NGHTTP2_HEADERS && f->hd.type != NGHTTP2_DATA) || !(f->hd.flags & NGHTTP2_FLAG_END_STREAM) ||
	    !(q = sreq_of(k, f->hd.stream_id)))
		return 0;
	k->seen++;
	if (k->first && k->s->goaway_at && k->seen == k->s->goaway_at)
		nghttp2_submit_goaway(ng, NGHTTP2_FLAG_NONE, f->hd.stream_id, NGHTTP2_NO_ERROR, NULL, 0);
	if (k->first && k->s->goaway_at && k->seen > k->s->goaway_at)
		return 0; /* not taken */
	if (!strcmp(q->path, "/slow"))
		return 0;
	snprintf(q->answer, sizeof q->answer, "%.16s %zu", q->path, q->got);
	q->left = !strcmp(q->path, "/big") ? (1u << 20) : strlen(q->answer);
	dp.source.ptr = q;
	dp.read_callback = s_body;
	nghttp2_submit_response(ng, f->hd.stream_id, nv, 3, &dp);
	pthread_mutex_lock(&k->s->mu);
	k->s->requests++;
	pthread_mutex_unlock(&k->s->mu);
	return 0;
}

static void serve_conn(tls_server *t, SSL *ssl, int fd, int nth)
{
	sconn k = {.s = t->ud, .ssl = ssl, .fd = fd, .first = nth == 0};
	nghttp2_session_callbacks *cb;
	nghttp2_session *ng;
	nghttp2_option *opt;
	nghttp2_settings_entry st = {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, k.s->max_streams};
	nghttp2_option_new(&opt);
	nghttp2_option_set_no_auto_ping_ack(opt, k.s->no_ping_ack);
	nghttp2_session_callbacks_new(&cb);
	nghttp2_session_callbacks_set_send_callback(cb, s_send);
	nghttp2_session_callbacks_set_recv_callback(cb, s_recv);
	nghttp2_session_callbacks_set_on_header_callback(cb, s_header);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, s_data);
	nghttp2_session_callbacks_set_on_begin_headers_callback(cb, s_begin);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb, s_close);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cb, s_frame);
	if (nghttp2_session_server_new2(&ng, cb, &k, opt) == 0) {
		nghttp2_submit_settings(ng, NGHTTP2_FLAG_NONE, &st, 1);
		while (!t->stop && (nghttp2_session_want_read(ng) || nghttp2_session_want_write(ng))) {
			struct pollfd p = {fd, POLLIN, 0};
			if (nghttp2_session_send(ng) != 0)
				break;
			if (!SSL_pending(ssl) && poll(&p, 1, 20) <= 0)
				continue;
			if (nghttp2_session_recv(ng) != 0)
				break;
		}
		nghttp2_session_del(ng);
	}
	nghttp2_session_callbacks_del(cb);
	nghttp2_option_del(opt);
	SSL_shutdown(ssl);
}

static int alpn_cb(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in, unsigned inlen,
                   void *arg)
{
	server *s = arg;
	(void)ssl;
	if (s->no_h2)
		return SSL_TLSEXT_ERR_NOACK;
	return nghttp2_select_next_protocol((unsigned char **)out, outlen, in, inlen) == 1 ? SSL_TLSEXT_ERR_OK
	                                                                                    : SSL_TLSEXT_ERR_NOACK;
}

/* Records the client's SNI. */
static int sni_cb(SSL *ssl, int *al, void *arg)
{
	server *s = arg;
	const char *n = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
	(void)al;
	pthread_mutex_lock(&s->mu);
	snprintf(s->sni, sizeof s->sni, "%s", n ? n : "");
	pthread_mutex_unlock(&s->mu);
	return SSL_TLSEXT_ERR_OK;
}

/* s serving with the certificate crt on the loopback address ipv4. */
static void server_start_at(server *s, const tls_cred *crt, const char *ipv4, int no_h2, uint32_t max_streams,
                            int goaway_at, int no_ping_ack)
{
	memset(s, 0, sizeof *s);
	pthread_mutex_init(&s->mu, NULL);
	s->no_h2 = no_h2;
	s->max_streams = max_streams;
	s->goaway_at = goaway_at;
	s->no_ping_ack = no_ping_ack;
	tls_server_listen_at(&s->t, crt, ipv4);
	SSL_CTX_set_alpn_select_cb(s->t.ctx, alpn_cb, s);
	SSL_CTX_set_tlsext_servername_callback(s->t.ctx, sni_cb);
	SSL_CTX_set_tlsext_servername_arg(s->t.ctx, s);
	tls_server_run(&s->t, serve_conn, s);
}

static void server_start_crt(server *s, const tls_cred *crt, int no_h2, uint32_t max_streams, int goaway_at,
                             int no_ping_ack)
{
	server_start_at(s, crt, "127.0.0.1", no_h2, max_streams, goaway_at, no_ping_ack);
}

static void server_start(server *s, int no_h2, uint32_t max_streams, int goaway_at, int no_ping_ack)
{
	server_start_crt(s, &srv, no_h2, max_streams, goaway_at, no_ping_ack);
}

static void server_stop(server *s)
{
	tls_server_stop(&s->t);
	pthread_mutex_destroy(&s->mu);
}

/* ---- the client ------------------------------------------------------------------- */

#define NREQ 64

typedef struct result {
	int done, rc, sent;
	char msg[256];
} result;

static result res[NREQ];
static int forgotten = -1;

static void on_end(void *sud, int rc, const bh_error *err, int sent)
{
	result *r = sud;
	r->done = 1;
	r->rc = rc;
	r->sent = sent;
	snprintf(r->msg, sizeof r->msg, "%.200s", err ? err->msg : "");
}

static void forget(int fd)
{
	forgotten = fd;
}

/* A configuration for https://host:port trusting ca_pem. */
static kube_config *cfg_host(const char *host, unsigned port, const char *ca_pem)
{
	kube_config *c = calloc(1, sizeof *c);
	char url[128];
	snprintf(url, sizeof url, "https://%s:%u", host, port);
	c->server = strdup(url);
	c->namespace_ = strdup("default");
	c->token = strdup("tok-123");
	c->ca_pem = strdup(ca_pem);
	c->ca_len = strlen(ca_pem);
	return c;
}

static kube_config *cfg_for(unsigned port, const char *ca_pem)
{
	return cfg_host("127.0.0.1", port, ca_pem);
}

/* Seen by run: lookups of the server's name (turns whose fd to poll is not
 * a socket, after one that was or had none), and the longest a call into
 * the client took (ms). */
static int lookups;
static long long slowest_ms;

static long long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int flush_first; /* run() calls kube_h2_flush before each poll (write_before_poll) */

/* Runs h until the first n results are done (or 20 s pass). */
static void run(kube_h2 *h, int n)
{
	int was_lookup = 0;
	lookups = 0;
	slowest_ms = 0;
	for (int turns = 0; turns < 2000; turns++) {
		size_t k;
		int tmo, all = 1, is_lookup = 0;
		struct pollfd p[1];
		const struct pollfd *f;
		struct stat st;
		long long t0;
		for (int i = 0; i < n; i++)
			all &= res[i].done;
		if (all)
			return;
		t0 = mono_ms();
		if (flush_first)
			kube_h2_flush(h);
		f = kube_h2_fds(h, &k, &tmo);
		if (k) {
			p[0] = f[0];
			is_lookup = fstat(p[0].fd, &st) == 0 && !S_ISSOCK(st.st_mode);
		}
		lookups += is_lookup && !was_lookup;
		was_lookup = is_lookup;
		if (tmo < 0 || tmo > 10)
			tmo = 10;
		if (poll(p, k, tmo) <= 0)
			p[0].revents = 0;
		kube_h2_dispatch(h, p, k);
		if (mono_ms() - t0 - tmo > slowest_ms) /* the poll's wait aside */
			slowest_ms = mono_ms() - t0 - tmo;
	}
}

/* A client of s, its health check's intervals those of opt (NULL: the defaults). */
static kube_h2 *client_with(const server *s, kube_config **cfg, const kube_h2_options *opt)
{
	bh_error e;
	kube_h2 *h;
	kube_h2_options o = opt ? *opt : (kube_h2_options){0};
	o.forget = forget;
	*cfg = cfg_for(s->t.port, ca.crt_pem);
	h = kube_h2_new(*cfg, &o, &e);
	ck_assert_msg(h != NULL, "%s", e.msg);
	memset(res, 0, sizeof res);
	return h;
}

static kube_h2 *client(const server *s, kube_config **cfg)
{
	return client_with(s, cfg, NULL);
}

static void setup(void)
{
	ca = tls_cred_make("h2-ca", NULL, NULL);
	srv = tls_cred_make("h2-test", &ca, "serverAuth");
}

static void teardown(void)
{
	tls_cred_free(&ca);
	tls_cred_free(&srv);
}

START_TEST(test_many_streams_one_connection)
{
	server s;
	kube_config *cfg;
	kube_h2 *h;
	kube_request rq[NREQ];
	kube_response rs[NREQ];
	char paths[NREQ][16];
	const char *hdr[] = {"Impersonate-User: system:serviceaccount:apps:sa", NULL};
	bh_error e;
	server_start(&s, 0, 5, 0, 0);
	h = client(&s, &cfg);
	for (int i = 0; i < NREQ; i++) {
		snprintf(paths[i], sizeof paths[i], "/r/%d", i);
		rq[i] = (kube_request){.method = "GET", .path = paths[i], .headers = hdr};
		rs[i] = (kube_response)KUBE_RESPONSE_INIT;
		ck_assert_int_eq(kube_h2_add(h, &rq[i], &rs[i], NULL, on_end, &res[i], &e), 0);
	}
	run(h, NREQ);
	for (int i = 0; i < NREQ; i++) {
		char want[32];
		snprintf(want, sizeof want, "/r/%d 0", i);
		ck_assert_msg(res[i].done && res[i].rc == 0, "%d: %s", i, res[i].msg);
		ck_assert_int_eq(rs[i].status, 200);
		ck_assert_str_eq(rs[i].content_type, "text/plain");
		ck_assert_str_eq(rs[i].retry_after, "3");
		ck_assert_uint_eq(rs[i].body.len, strlen(want));
		ck_assert(!memcmp(rs[i].body.data, want, rs[i].body.len));
		kube_response_free(&rs[i]);
	}
	ck_assert_uint_eq(kube_h2_connections(h), 1);
	ck_assert_int_le(s.peak, 5); /* the server's limit kept */
	ck_assert_int_ge(s.peak, 2); /* and streams side by side */
	ck_assert_str_eq(s.auth, "Bearer tok-123");
	ck_assert_str_eq(s.imp, "system:serviceaccount:apps:sa");
	kube_h2_free(h);
	ck_assert_int_ge(forgotten, 0); /* its socket forgotten before close */
	server_stop(&s);
	kube_config_free(cfg);
}
END_TEST

START_TEST(test_big_response_and_body)
{
	server s;
	kube_config *cfg;
	kube_h2 *h;
	size_t blen = 200000;
	char *body = malloc(blen);
	kube_request big = {.method = "GET", .path = "/big"};
	kube_request post = {.method = "POST", .path = "/post", .content_type = "application/json", .body = body,
	                     .body_len = blen};
	kube_response r1 = KUBE_RESPONSE_INIT, r2 = KUBE_RESPONSE_INIT;
	bh_error e;
	memset(body, 'b', blen);
	server_start(&s, 0, 100, 0, 0);
	h = client(&s, &cfg);
	ck_assert_int_eq(kube_h2_add(h, &big, &r1, NULL, on_end, &res[0], &e), 0);
	ck_assert_int_eq(kube_h2_add(h, &post, &r2, NULL, on_end, &res[1], &e), 0);
	run(h, 2);
	ck_assert_msg(res[0].rc == 0 && res[1].rc == 0, "%s / %s", res[0].msg, res[1].msg);
	ck_assert_uint_eq(r1.body.len, 1u << 20);
	ck_assert(r1.body.data[0] == 'x' && r1.body.data[(1u << 20) - 1] == 'x');
	ck_assert_uint_eq(r2.body.len, strlen("/post 200000"));
	ck_assert(!memcmp(r2.body.data, "/post 200000", r2.body.len)); /* every byte of the body came */
	ck_assert_str_eq(s.ctype, "application/json");
	kube_response_free(&r1);
	kube_response_free(&r2);
	kube_h2_free(h);
	server_stop(&s);
	kube_config_free(cfg);
	free(body);
}
END_TEST

/* write_before_poll: a dispatch writes nothing new (the server sees no
 * request), kube_h2_flush writes it; a big answer and a big body (window
 * updates, the socket full) still go through when the caller flushes
 * before each poll. */
START_TEST(test_write_before_poll)
{
	server s;
	kube_config *cfg;
	kube_h2 *h;
	size_t blen = 200000, k;
	int tmo, before;
	char *body = malloc(blen);
	kube_request big = {.method = "GET", .path = "/big"}, one = {.method = "GET", .path = "/one"};
	kube_request post = {.method = "POST", .path = "/post", .content_type = "application/json", .body = body,
	                     .body_len = blen};
	kube_response r1 = KUBE_RESPONSE_INIT, r2 = KUBE_RESPONSE_INIT, r3 = KUBE_RESPONSE_INIT;
	kube_h2_options o = {.write_before_poll = 1};
	bh_error e;
	memset(body, 'b', blen);
	server_start(&s, 0, 100, 0, 0);
	h = client_with(&s, &cfg, &o);
	flush_first = 1;
	ck_assert_int_eq(kube_h2_add(h, &big, &r1, NULL, on_end, &res[0], &e), 0);
	ck_assert_int_eq(kube_h2_add(h, &post, &r2, NULL, on_end, &res[1], &e), 0);
	run(h, 2);
	ck_assert_msg(res[0].rc == 0 && res[1].rc == 0, "%s / %s", res[0].msg, res[1].msg);
	ck_assert_uint_eq(r1.body.len, 1u << 20);
	ck_assert_uint_eq(r2.body.len, strlen("/post 200000"));
	ck_assert(!memcmp(r2.body.data, "/post 200000", r2.body.len));
	pthread_mutex_lock(&s.mu);
	before = s.requests;
	pthread_mutex_unlock(&s.mu);
	ck_assert_int_eq(kube_h2_add(h, &one, &r3, NULL, on_end, &res[2], &e), 0);
	for (int i = 0; i < 5; i++) { /* dispatches with no event: its frames wait */
		kube_h2_dispatch(h, NULL, 0);
		usleep(20000);
	}
	kube_h2_fds(h, &k, &tmo);
	ck_assert_int_eq(tmo, 0); /* a write waits: no sleep */
	pthread_mutex_lock(&s.mu);
	ck_assert_int_eq(s.requests, before);
	pthread_mutex_unlock(&s.mu);
	kube_h2_flush(h);
	kube_h2_fds(h, &k, &tmo);
	ck_assert_int_ne(tmo, 0); /* written: the poll waits for the answer */
	run(h, 3);
	ck_assert_msg(res[2].done && res[2].rc == 0, "%s", res[2].msg);
	ck_assert_uint_eq(r3.body.len, strlen("/one 0"));
	ck_assert_int_eq(s.requests, before + 1);
	ck_assert_uint_eq(kube_h2_connections(h), 1);
	flush_first = 0;
	kube_response_free(&r1);
	kube_response_free(&r2);
	kube_response_free(&r3);
	kube_h2_free(h);
	server_stop(&s);
	kube_config_free(cfg);
	free(body);
}
END_TEST

START_TEST(test_goaway_midway)
{
	server s;
	kube_config *cfg;
	kube_h2 *h;
	kube_request rq[20];
	kube_response rs[20];
	char paths[20][16];
	bh_error e;
	server_start(&s, 0, 100, 5, 0);
	h = client(&s, &cfg);
	for (int i = 0; i < 20; i++) {
		snprintf(paths[i], sizeof paths[i], "/g/%d", i);
		rq[i] = (kube_request){.method = "POST", .path = paths[i], .body = "{}", .body_len = 2};
		rs[i] = (kube_response)KUBE_RESPONSE_INIT;
		ck_assert_int_eq(kube_h2_add(h, &rq[i], &rs[i], NULL, on_end, &res[i], &e), 0);
	}
	run(h, 20);
	for (int i = 0; i < 20; i++) {
		ck_assert_msg(res[i].done && res[i].rc == 0, "%d: %s", i, res[i].msg);
		ck_assert_int_eq(rs[i].status, 200);
		kube_response_free(&rs[i]);
	}
	/* the streams the GOAWAY did not take went once more, on a second
	 * connection; each request answered exactly once */
	ck_assert_uint_eq(kube_h2_connections(h), 2);
	ck_assert_int_eq(s.requests, 20);
	kube_h2_free(h);
	server_stop(&s);
	kube_config_free(cfg);
}
END_TEST

START_TEST(test_refused_timeout_stop)
{
	server s;
	kube_config *cfg;
	kube_h2 *h;
	kube_request slow = {.method = "GET", .path = "/slow", .timeout_ms = 300};
	kube_request stopped = {.method = "GET", .path = "/slow"};
	kube_request ok = {.method = "GET", .path = "/ok"};
	kube_response r1 = KUBE_RESPONSE_INIT, r2 = KUBE_RESPONSE_INIT, r3 = KUBE_RESPONSE_INIT;
	bh_error e;
	int fd;
	server_start(&s, 0, 100, 0, 0);
	h = client(&s, &cfg);
	ck_assert_int_eq(kube_h2_add(h, &slow, &r1, NULL, on_end, &res[0], &e), 0);
	ck_assert_int_eq(kube_h2_add(h, &stopped, &r2, NULL, on_end, &res[1], &e), 0);
	ck_assert_int_eq(kube_h2_add(h, &ok, &r3, NULL, on_end, &res[2], &e), 0);
	run(h, 1);
	ck_assert_int_eq(res[0].rc, BH_ETIMEOUT);
	ck_assert_int_eq(res[0].sent, 1);
	ck_assert_int_eq(res[2].rc, 0);
	kube_h2_stop(h, &res[1]);
	run(h, 1);
	ck_assert_int_eq(res[1].done, 0); /* no end call for a stopped stream */
	kube_response_free(&r1);
	kube_response_free(&r2);
	kube_response_reset(&r3);
	kube_h2_free(h);
	server_stop(&s);
	kube_config_free(cfg);

	/* nobody listens: refused, unsent */
	ck_assert_int_ge(fd = socket(AF_INET, SOCK_STREAM, 0), 0);
	{
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		socklen_t al = sizeof a;
		ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
		getsockname(fd, (struct sockaddr *)&a, &al);
		s.t.port = ntohs(a.sin_port); /* bound, not listening */
	}
	h = client(&s, &cfg);
	ck_assert_int_eq(kube_h2_add(h, &ok, &r3, NULL, on_end, &res[0], &e), 0);
	run(h, 1);
	close(fd);
	ck_assert_int_eq(res[0].rc, BH_EUNAVAIL);
	ck_assert_int_eq(res[0].sent, 0);
	ck_assert_msg(strstr(res[0].msg, "connect") != NULL, "%s", res[0].msg);
	kube_response_free(&r3);
	kube_h2_free(h);
	kube_config_free(cfg);
}
END_TEST

START_TEST(test_no_h2_and_bad_certificate)
{
	server s;
	kube_config *cfg;
	kube_h2 *h;
	kube_request ok = {.method = "GET", .path = "/ok"};
	kube_response r = KUBE_RESPONSE_INIT;
	bh_error e;
	const char *why;
	server_start(&s, 1, 100, 0, 0);
	h = client(&s, &cfg);
	ck_assert_int_eq(kube_h2_add(h, &ok, &r, NULL, on_end, &res[0], &e), 0);
	run(h, 1);
	ck_assert_int_eq(res[0].sent, 0);
	ck_assert(kube_h2_refused(h));
	ck_assert_int_eq(s.requests, 0);
	kube_h2_free(h);
	kube_config_free(cfg);
	server_stop(&s);

	/* a server whose certificate is not of the configuration's CA */
	server_start(&s, 0, 100, 0, 0);
	{
		tls_cred other = tls_cred_make("other-ca", NULL, NULL); /* the client trusts this one */
		cfg = cfg_for(s.t.port, other.crt_pem);
		tls_cred_free(&other);
	}
	ck_assert_ptr_nonnull(h = kube_h2_new(cfg, NULL, &e));
	memset(res, 0, sizeof res);
	ck_assert_int_eq(kube_h2_add(h, &ok, &r, NULL, on_end, &res[0], &e), 0);
	run(h, 1);
	ck_assert_int_eq(res[0].rc, BH_EINVAL); /* no retry fixes it */
	ck_assert_msg(strstr(res[0].msg, "certificate") != NULL, "%s", res[0].msg);
	ck_assert_int_eq(s.requests, 0);
	kube_h2_free(h);
	server_stop(&s);
	/* not usable: plain http, a proxy */
	free(cfg->server);
	cfg->server = strdup("http://127.0.0.1:1");
	ck_assert(!kube_h2_usable(cfg, &why));
	free(cfg->server);
	cfg->server = strdup("https://127.0.0.1:1");
	cfg->proxy_url = strdup("http://127.0.0.1:2");
	ck_assert(!kube_h2_usable(cfg, &why));
	ck_assert_ptr_null(kube_h2_new(cfg, NULL, &e));
	kube_config_free(cfg);
}
END_TEST

/* A stream's bytes: counted; stop after the first piece when asked. */
static size_t piece_bytes[2];
static int stop_first;

static int on_piece(void *sud, const char *data, size_t len)
{
	result *r = sud;
	(void)data;
	piece_bytes[r - res] += len;
	return r == &res[1] && stop_first;
}

START_TEST(test_stream_pieces)
{
	server s;
	kube_config *cfg;
	kube_h2 *h;
	kube_request big = {.method = "GET", .path = "/big"};
	kube_response r1 = KUBE_RESPONSE_INIT, r2 = KUBE_RESPONSE_INIT;
	bh_error e;
	server_start(&s, 0, 100, 0, 0);
	h = client(&s, &cfg);
	piece_bytes[0] = piece_bytes[1] = 0;
	stop_first = 1;
	ck_assert_int_eq(kube_h2_add(h, &big, &r1, on_piece, on_end, &res[0], &e), 0);
	ck_assert_int_eq(kube_h2_add(h, &big, &r2, on_piece, on_end, &res[1], &e), 0);
	run(h, 2);
	ck_assert_msg(res[0].rc == 0 && res[1].rc == 0, "%s / %s", res[0].msg, res[1].msg);
	ck_assert_uint_eq(piece_bytes[0], 1u << 20); /* every byte to the callback */
	ck_assert_uint_eq(r1.body.len, 0);           /* none kept */
	ck_assert_uint_gt(piece_bytes[1], 0);        /* the one that stopped: a piece, not all */
	ck_assert_uint_lt(piece_bytes[1], 1u << 20);
	ck_assert_int_eq(r2.status, 200);
	kube_response_free(&r1);
	kube_response_free(&r2);
	kube_h2_free(h);
	server_stop(&s);
	kube_config_free(cfg);
}
END_TEST

/* One request's Authorization as the server got it. */
static void ask(kube_h2 *h, server *s, char *auth, size_t n)
{
	kube_request rq = {.method = "GET", .path = "/t"};
	kube_response r = KUBE_RESPONSE_INIT;
	bh_error e;
	memset(res, 0, sizeof res);
	ck_assert_int_eq(kube_h2_add(h, &rq, &r, NULL, on_end, &res[0], &e), 0);
	run(h, 1);
	ck_assert_int_eq(res[0].rc, 0);
	kube_response_free(&r);
	pthread_mutex_lock(&s->mu);
	snprintf(auth, n, "%s", s->auth);
	pthread_mutex_unlock(&s->mu);
}

START_TEST(test_token_file_rotation)
{
	server s;
	kube_config *cfg;
	kube_h2 *h;
	char path[] = "/tmp/test_h2_tokenXXXXXX", auth[128];
	int fd = mkstemp(path);
	time_t t0;
	bh_error e;
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "first\n", 6), 6);
	close(fd);
	server_start(&s, 0, 100, 0, 0);
	cfg = cfg_for(s.t.port, ca.crt_pem);
	free(cfg->token);
	cfg->token = NULL;
	cfg->token_file = strdup(path);
	ck_assert_ptr_nonnull(h = kube_h2_new(cfg, NULL, &e));
	ask(h, &s, auth, sizeof auth);
	ck_assert_str_eq(auth, "Bearer first");
	/* the file replaced: read again once its second is over */
	for (t0 = time(NULL); time(NULL) == t0;)
		usleep(20000);
	ck_assert_int_ge(fd = open(path, O_WRONLY | O_TRUNC), 0);
	ck_assert_int_eq(write(fd, "second-token\n", 13), 13);
	close(fd);
	for (t0 = time(NULL); time(NULL) == t0;)
		usleep(20000);
	ask(h, &s, auth, sizeof auth);
	ck_assert_str_eq(auth, "Bearer second-token");
	kube_h2_free(h);
	server_stop(&s);
	kube_config_free(cfg);
	unlink(path);
}
END_TEST

static long long ms_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int pings_of(server *s)
{
	int n;
	pthread_mutex_lock(&s->mu);
	n = s->pings;
	pthread_mutex_unlock(&s->mu);
	return n;
}

/* The health check, with short intervals: a server that takes PINGs and
 * never answers has its connection closed within the intervals, the watch
 * on it failing with the health check's error; one that answers keeps its
 * connection, the stream going on until its own timeout. */
START_TEST(test_health_check)
{
	server s;
	kube_config *cfg;
	kube_h2 *h;
	kube_h2_options opt = {.ping_idle_ms = 200, .ping_timeout_ms = 300};
	/* a loaded machine's late ACK is no failure; an ACK not taken for one
	 * would end the stream at ~1.2 s, before its own timeout */
	kube_h2_options lenient = {.ping_idle_ms = 200, .ping_timeout_ms = 1000};
	kube_request watch = {.method = "GET", .path = "/slow", .timeout_ms = 10000};
	kube_request quiet = {.method = "GET", .path = "/slow", .timeout_ms = 3000};
	kube_response r = KUBE_RESPONSE_INIT;
	long long t0, took;
	size_t n;
	int tmo;
	bh_error e;

	server_start(&s, 0, 100, 0, 1); /* never answers a PING */
	h = client_with(&s, &cfg, &opt);
	forgotten = -1;
	t0 = ms_now();
	ck_assert_int_eq(kube_h2_add(h, &watch, &r, on_piece, on_end, &res[0], &e), 0);
	run(h, 1);
	took = ms_now() - t0;
	ck_assert_int_eq(res[0].done, 1);
	ck_assert_int_eq(res[0].rc, BH_EUNAVAIL);
	ck_assert_int_eq(res[0].sent, 1);
	ck_assert_msg(strstr(res[0].msg, "no answer to a PING in 300 ms") != NULL, "%s", res[0].msg);
	ck_assert_int_ge(took, 500);  /* idle 200 ms, then 300 ms for the answer */
	ck_assert_int_lt(took, 3000); /* not the stream's 10 s */
	ck_assert_int_eq(pings_of(&s), 1);
	ck_assert_int_ge(forgotten, 0); /* the connection closed */
	kube_h2_fds(h, &n, &tmo);
	ck_assert_uint_eq(n, 0);
	kube_response_free(&r);
	kube_h2_free(h);
	server_stop(&s);
	kube_config_free(cfg);

	server_start(&s, 0, 100, 0, 0); /* answers PINGs */
	h = client_with(&s, &cfg, &lenient);
	t0 = ms_now();
	ck_assert_int_eq(kube_h2_add(h, &quiet, &r, on_piece, on_end, &res[0], &e), 0);
	run(h, 1);
	took = ms_now() - t0;
	ck_assert_int_eq(res[0].rc, BH_ETIMEOUT); /* its own timeout, not the health check */
	ck_assert_int_ge(took, 3000);
	ck_assert_int_ge(pings_of(&s), 3); /* one per 200 ms quiet, each answered */
	ck_assert_uint_eq(kube_h2_connections(h), 1);
	kube_response_free(&r);
	kube_h2_free(h);
	server_stop(&s);
	kube_config_free(cfg);

	/* a negative interval is refused */
	cfg = cfg_for(s.t.port, ca.crt_pem);
	opt.ping_idle_ms = -1;
	ck_assert_ptr_null(kube_h2_new(cfg, &opt, &e));
	ck_assert_msg(strstr(e.msg, "health check") != NULL, "%s", e.msg);
	/* so is a negative connect timeout */
	opt.ping_idle_ms = 0;
	opt.connect_timeout_ms = -1;
	ck_assert_ptr_null(kube_h2_new(cfg, &opt, &e));
	ck_assert_msg(strstr(e.msg, "connect timeout") != NULL, "%s", e.msg);
	kube_config_free(cfg);
}
END_TEST

/* A server given by name: looked up on each new connection (the first
 * connection's GOAWAY makes a second), its certificate checked for the
 * name with SNI; with tls-server-name, for that name instead. */
START_TEST(test_host_name)
{
	tls_cred named = tls_cred_make_san("h2-named", &ca, "serverAuth", "DNS:localhost");
	tls_cred other = tls_cred_make_san("h2-other", &ca, "serverAuth", "DNS:api.example.test");
	server s;
	kube_config *cfg;
	kube_h2 *h;
	kube_request rq[4];
	kube_response rs[4];
	bh_error e;
	const char *why;
	server_start_crt(&s, &named, 0, 100, 2, 0);
	cfg = cfg_host("localhost", s.t.port, ca.crt_pem);
	ck_assert(kube_h2_usable(cfg, &why));
	h = kube_h2_new(cfg, NULL, &e);
	ck_assert_msg(h != NULL, "%s", e.msg);
	memset(res, 0, sizeof res);
	for (int i = 0; i < 4; i++) {
		rq[i] = (kube_request){.method = "GET", .path = "/named"};
		rs[i] = (kube_response)KUBE_RESPONSE_INIT;
		ck_assert_int_eq(kube_h2_add(h, &rq[i], &rs[i], NULL, on_end, &res[i], &e), 0);
	}
	run(h, 4);
	for (int i = 0; i < 4; i++) {
		ck_assert_msg(res[i].done && res[i].rc == 0, "%d: %s", i, res[i].msg);
		ck_assert_int_eq(rs[i].status, 200);
		kube_response_free(&rs[i]);
	}
	ck_assert_uint_eq(kube_h2_connections(h), 2); /* the GOAWAY's */
	ck_assert_int_eq(lookups, 2);                 /* the name looked up again for the second */
	ck_assert_str_eq(s.sni, "localhost");
	ck_assert_int_lt(slowest_ms, 200);
	kube_h2_free(h);
	server_stop(&s);
	kube_config_free(cfg);

	/* a certificate for another name is refused; with tls-server-name
	 * naming it, it is the one checked (and sent as SNI) */
	server_start_crt(&s, &other, 0, 100, 0, 0);
	cfg = cfg_host("localhost", s.t.port, ca.crt_pem);
	ck_assert_ptr_nonnull(h = kube_h2_new(cfg, NULL, &e));
	memset(res, 0, sizeof res);
	rs[0] = (kube_response)KUBE_RESPONSE_INIT;
	ck_assert_int_eq(kube_h2_add(h, &rq[0], &rs[0], NULL, on_end, &res[0], &e), 0);
	run(h, 1);
	ck_assert_int_eq(res[0].rc, BH_EINVAL);
	ck_assert_msg(strstr(res[0].msg, "certificate") != NULL, "%s", res[0].msg);
	ck_assert_int_eq(s.requests, 0);
	kube_response_free(&rs[0]);
	kube_h2_free(h);
	cfg->tls_server_name = strdup("api.example.test");
	ck_assert_ptr_nonnull(h = kube_h2_new(cfg, NULL, &e));
	memset(res, 0, sizeof res);
	rs[0] = (kube_response)KUBE_RESPONSE_INIT;
	ck_assert_int_eq(kube_h2_add(h, &rq[0], &rs[0], NULL, on_end, &res[0], &e), 0);
	run(h, 1);
	ck_assert_msg(res[0].rc == 0 && rs[0].status == 200, "%s", res[0].msg);
	ck_assert_str_eq(s.sni, "api.example.test");
	kube_response_free(&rs[0]);
	kube_h2_free(h);
	server_stop(&s);
	kube_config_free(cfg);
	tls_cred_free(&named);
	tls_cred_free(&other);
}
END_TEST

/* A name that does not resolve: the streams waiting end unsent with an
 * error naming the host, and the loop was never held by the lookup. */
START_TEST(test_host_name_unknown)
{
	kube_config *cfg = cfg_host("no-such-host.invalid", 6443, ca.crt_pem);
	kube_request rq = {.method = "GET", .path = "/x"};
	kube_response rs = KUBE_RESPONSE_INIT;
	kube_h2 *h;
	bh_error e;
	ck_assert_ptr_nonnull(h = kube_h2_new(cfg, NULL, &e));
	memset(res, 0, sizeof res);
	ck_assert_int_eq(kube_h2_add(h, &rq, &rs, NULL, on_end, &res[0], &e), 0);
	run(h, 1);
	ck_assert(res[0].done);
	ck_assert(res[0].rc == BH_EUNAVAIL || res[0].rc == BH_ETIMEOUT); /* a resolver that does not answer in time */
	ck_assert_int_eq(res[0].sent, 0);
	ck_assert_msg(strstr(res[0].msg, "looking up the server's host no-such-host.invalid") != NULL, "%s", res[0].msg);
	ck_assert_int_eq(lookups, 1);
	ck_assert_int_lt(slowest_ms, 200);
	kube_response_free(&rs);
	kube_h2_free(h);
	/* a client freed while its lookup runs: the lookup's thread frees it
	 * (under ASan: nothing leaked, nothing used after its free) */
	ck_assert_ptr_nonnull(h = kube_h2_new(cfg, NULL, &e));
	rs = (kube_response)KUBE_RESPONSE_INIT;
	ck_assert_int_eq(kube_h2_add(h, &rq, &rs, NULL, on_end, &res[0], &e), 0);
	{
		size_t k;
		int tmo;
		kube_h2_dispatch(h, NULL, 0); /* the connection starts: its lookup */
		kube_h2_fds(h, &k, &tmo);
		ck_assert_uint_eq(k, 1);
	}
	kube_h2_free(h);
	usleep(300000);
	kube_response_free(&rs);
	kube_config_free(cfg);
}
END_TEST

/* ---- in a namespace of the test's own: its /etc/hosts, its resolver ---------- */

/* text bound over target in this mount namespace: 0, or -1. */
static int bind_text(const char *target, const char *text)
{
	char tmp[] = "/tmp/test_h2_etc.XXXXXX";
	int fd = mkstemp(tmp), rc = -1;
	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) == (ssize_t)strlen(text) && mount(tmp, target, NULL, MS_BIND, NULL) == 0)
		rc = 0;
	close(fd);
	unlink(tmp); /* the mount keeps it */
	return rc;
}

/* This process in a user and mount namespace of its own (and a network
 * one, its loopback up, when net): 0, or -1 (none here). */
static int ns_own(int net)
{
	struct ifreq ifr = {0};
	int fd;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | (net ? CLONE_NEWNET : 0)) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -1;
	if (!net)
		return 0;
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0 || (ifr.ifr_flags |= IFF_UP, ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* fn run in a child (its namespaces its own): passes on 0, is skipped
 * with a line on 77 (no namespaces here, or a resolver that does not
 * behave as the test needs), fails on anything else. */
static void in_child(int (*fn)(void), const char *name)
{
	int st;
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(fn());
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st), "%s: the child died", name);
	if (WEXITSTATUS(st) == 77) {
		fprintf(stderr, "%s: skipped (no user namespace here, or the resolver differs)\n", name);
		return;
	}
	ck_assert_msg(WEXITSTATUS(st) == 0, "%s: the child failed (%d)", name, WEXITSTATUS(st));
}

/* "multi.test" is 127.0.0.1, where nothing listens on the server's port,
 * then 127.0.0.2, where the server is: the second is tried when the first
 * refuses. */
static int addresses_child(void)
{
	tls_cred named = tls_cred_make_san("h2-multi", &ca, "serverAuth", "DNS:multi.test");
	char addr[64];
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
	kube_request rq = {.method = "GET", .path = "/multi"};
	kube_response rs = KUBE_RESPONSE_INIT;
	kube_config *cfg;
	kube_h2 *h;
	server s;
	bh_error e;
	int ok;
	if (ns_own(0) < 0 || bind_text("/etc/hosts", "127.0.0.1 multi.test\n127.0.0.2 multi.test\n") < 0)
		return 77;
	if (getaddrinfo("multi.test", "443", &hints, &ai) != 0 || !ai || !ai->ai_next ||
	    getnameinfo(ai->ai_addr, ai->ai_addrlen, addr, sizeof addr, NULL, 0, NI_NUMERICHOST) != 0 ||
	    strcmp(addr, "127.0.0.1") != 0) {
		if (ai)
			freeaddrinfo(ai);
		return 77;
	}
	freeaddrinfo(ai);
	server_start_at(&s, &named, "127.0.0.2", 0, 100, 0, 0);
	cfg = cfg_host("multi.test", s.t.port, ca.crt_pem);
	if (!(h = kube_h2_new(cfg, NULL, &e)))
		return 2;
	memset(res, 0, sizeof res);
	if (kube_h2_add(h, &rq, &rs, NULL, on_end, &res[0], &e) < 0)
		return 3;
	run(h, 1);
	if (!res[0].done || res[0].rc)
		fprintf(stderr, "test_host_name_addresses: %s\n", res[0].msg);
	ok = res[0].done && res[0].rc == 0 && rs.status == 200 && s.requests == 1 && kube_h2_connections(h) == 1;
	kube_response_free(&rs);
	kube_h2_free(h);
	server_stop(&s);
	kube_config_free(cfg);
	tls_cred_free(&named);
	return ok ? 0 : 4;
}

START_TEST(test_host_name_addresses)
{
	in_child(addresses_child, "test_host_name_addresses");
}
END_TEST

#define NFAST 16

/* A resolver that never answers (a DNS server on 127.0.0.1:53 of the
 * child's own network that reads and says nothing; 2 s and the resolver
 * gives up): a client whose server is "slow.test" waits on it while
 * another client in the same loop, its server by address, has all its
 * streams answered, and no call into either takes long. */
static int slow_dns_child(void)
{
	struct sockaddr_in dns = {.sin_family = AF_INET, .sin_port = htons(53), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct addrinfo *ai = NULL;
	kube_request rq = {.method = "GET", .path = "/fast"};
	kube_response rs[NFAST + 1];
	kube_config *cf, *cs;
	kube_h2 *fast, *slow;
	long long t0, fast_at = 0, slowest = 0;
	server s;
	bh_error e;
	int u, ok, all;
	if (ns_own(1) < 0 || (u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(u, (struct sockaddr *)&dns, sizeof dns) < 0 || bind_text("/etc/hosts", "127.0.0.1 localhost\n") < 0 ||
	    bind_text("/etc/resolv.conf", "nameserver 127.0.0.1\noptions timeout:2 attempts:1\n") < 0)
		return 77;
	t0 = mono_ms();
	if (getaddrinfo("probe.test", "443", NULL, &ai) == 0 || mono_ms() - t0 < 1500) { /* not by that DNS server */
		if (ai)
			freeaddrinfo(ai);
		return 77;
	}
	server_start(&s, 0, 100, 0, 0);
	cf = cfg_for(s.t.port, ca.crt_pem);
	cs = cfg_host("slow.test", s.t.port, ca.crt_pem);
	if (!(fast = kube_h2_new(cf, NULL, &e)) || !(slow = kube_h2_new(cs, NULL, &e)))
		return 2;
	memset(res, 0, sizeof res);
	t0 = mono_ms();
	rs[NFAST] = (kube_response)KUBE_RESPONSE_INIT;
	if (kube_h2_add(slow, &rq, &rs[NFAST], NULL, on_end, &res[NFAST], &e) < 0)
		return 3;
	kube_h2_dispatch(slow, NULL, 0); /* its lookup starts first */
	slowest = mono_ms() - t0;
	for (int i = 0; i < NFAST; i++) {
		rs[i] = (kube_response)KUBE_RESPONSE_INIT;
		if (kube_h2_add(fast, &rq, &rs[i], NULL, on_end, &res[i], &e) < 0)
			return 3;
	}
	while (!res[NFAST].done && mono_ms() - t0 < 15000) {
		struct pollfd p[2];
		const struct pollfd *f;
		size_t nf, ns;
		int tf, ts;
		long long t1 = mono_ms(), spent;
		f = kube_h2_fds(fast, &nf, &tf);
		if (nf)
			p[0] = f[0];
		f = kube_h2_fds(slow, &ns, &ts);
		if (ns)
			p[nf] = f[0];
		spent = mono_ms() - t1;
		poll(p, nf + ns, 10);
		t1 = mono_ms();
		kube_h2_dispatch(fast, p, nf);
		kube_h2_dispatch(slow, p + nf, ns);
		spent += mono_ms() - t1;
		slowest = spent > slowest ? spent : slowest;
		all = 1;
		for (int i = 0; i < NFAST; i++)
			all &= res[i].done && res[i].rc == 0;
		if (all && !fast_at)
			fast_at = mono_ms();
	}
	fprintf(stderr, "test_host_name_slow_dns: %d fast streams answered in %lld ms; the lookup ended after %lld ms (%s); longest call %lld ms\n",
	        NFAST, fast_at ? fast_at - t0 : -1, mono_ms() - t0, res[NFAST].msg, slowest);
	ok = fast_at && res[NFAST].done && res[NFAST].rc != 0 && !res[NFAST].sent &&
	     strstr(res[NFAST].msg, "looking up the server's host slow.test") && fast_at - t0 < 1000 &&
	     mono_ms() - t0 >= 1500 && slowest < 200;
	for (int i = 0; i <= NFAST; i++)
		kube_response_free(&rs[i]);
	kube_h2_free(fast);
	kube_h2_free(slow);
	server_stop(&s);
	kube_config_free(cf);
	kube_config_free(cs);
	close(u);
	return ok ? 0 : 4;
}

START_TEST(test_host_name_slow_dns)
{
	in_child(slow_dns_child, "test_host_name_slow_dns");
}
END_TEST

/* Threads of this process now. */
static int task_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Runs h for up to ms, or until r is done. */
static void run_until(kube_h2 *h, const result *r, long long ms)
{
	long long end = mono_ms() + ms;
	while (!r->done && mono_ms() < end) {
		struct pollfd p[1];
		size_t n;
		int tmo;
		const struct pollfd *f = kube_h2_fds(h, &n, &tmo);
		if (n)
			p[0] = f[0];
		poll(p, n, 20);
		kube_h2_dispatch(h, p, n);
	}
}

/* A DNS server that never answers (and a resolver that waits 10 s for it,
 * longer than three connections' timeouts of 1.5 s): every connection
 * times out looking the name up, yet the client has one lookup thread at a
 * time, the first, which each new connection waits for. */
#define DEAD_DNS_CONNECT_MS 1500
static int dead_dns_child(void)
{
	struct sockaddr_in dns = {.sin_family = AF_INET, .sin_port = htons(53), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	kube_request rq = {.method = "GET", .path = "/x"};
	kube_response rs[3];
	kube_config *c;
	kube_h2 *h;
	bh_error e;
	int u, base, most = 0, ok = 1;
	if (ns_own(1) < 0 || (u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(u, (struct sockaddr *)&dns, sizeof dns) < 0 || bind_text("/etc/hosts", "127.0.0.1 localhost\n") < 0 ||
	    bind_text("/etc/resolv.conf", "nameserver 127.0.0.1\noptions timeout:10 attempts:1\n") < 0)
		return 77;
	c = cfg_host("dead.test", 443, ca.crt_pem);
	if (!(h = kube_h2_new(c, &(kube_h2_options){.connect_timeout_ms = DEAD_DNS_CONNECT_MS}, &e)))
		return 2;
	memset(res, 0, sizeof res);
	base = task_count();
	for (int i = 0; i < 3; i++) {
		long long t0 = mono_ms();
		int n;
		rs[i] = (kube_response)KUBE_RESPONSE_INIT;
		if (kube_h2_add(h, &rq, &rs[i], NULL, on_end, &res[i], &e) < 0)
			return 3;
		run_until(h, &res[i], 300);
		n = task_count() - base;
		most = n > most ? n : most;
		run_until(h, &res[i], DEAD_DNS_CONNECT_MS + 2000);
		fprintf(stderr, "test_host_name_dead_dns: connection %d: %d lookup thread(s); ended after %lld ms: %s\n", i + 1,
		        n, mono_ms() - t0, res[i].msg);
		if (i == 0 && (!res[0].done || !strstr(res[0].msg, "looking up the server's host dead.test: timed out")))
			return 77; /* the name was not asked of that server */
		ok &= res[i].done && res[i].rc != 0 && n == 1; /* the last may see the resolver give up */
	}
	kube_h2_free(h);
	for (int i = 0; i < 3; i++)
		kube_response_free(&rs[i]);
	kube_config_free(c);
	close(u);
	return ok && most == 1 ? 0 : 4;
}

START_TEST(test_host_name_dead_dns)
{
	in_child(dead_dns_child, "test_host_name_dead_dns");
}
END_TEST

/* Stopping each of many streams, last first, from the middle of the
 * queue: each stop takes exactly its own stream (none of them ends, the
 * one left is dropped by the free). The time is printed, not asserted
 * (speed lives in benchmarks): a walk from the queue's head would pass
 * over about 1.25e9 streams, seconds where the hash takes milliseconds. */
static int stop_many_ends;
static void stop_many_end(void *sud, int rc, const bh_error *err, int sent)
{
	(void)sud, (void)rc, (void)err, (void)sent;
	stop_many_ends++;
}

START_TEST(test_stop_many)
{
	enum { N = 50000 };
	kube_config *cfg = cfg_for(1, ca.crt_pem);
	kube_request rq = {.method = "GET", .path = "/x"};
	kube_response r = KUBE_RESPONSE_INIT;
	static char ud[N];
	kube_h2 *h;
	bh_error e;
	long long t0;
	ck_assert_ptr_nonnull(h = kube_h2_new(cfg, NULL, &e));
	for (int i = 0; i < N; i++)
		ck_assert_int_eq(kube_h2_add(h, &rq, &r, NULL, stop_many_end, &ud[i], &e), 0);
	kube_h2_stop(h, &r); /* not a stream's: nothing */
	t0 = mono_ms();
	for (int i = N - 1; i > 0; i--)
		kube_h2_stop(h, &ud[i]);
	fprintf(stderr, "test_stop_many: %d streams stopped in %lld ms\n", N - 1, mono_ms() - t0);
	kube_h2_stop(h, &ud[1]); /* stopped already: nothing */
	kube_h2_free(h); /* the one left dropped */
	ck_assert_int_eq(stop_many_ends, 0);
	kube_config_free(cfg);
}
END_TEST

START_TEST(test_head_fields)
{
	kube_response r = KUBE_RESPONSE_INIT;
	uint64_t cl = UINT64_MAX;
	bh_error e;
	ck_assert_int_eq(kube_h2_head_field(&r, &cl, (const uint8_t *)":status", 7, (const uint8_t *)"404", 3, &e), 0);
	ck_assert_int_eq(r.status, 404);
	ck_assert_int_eq(kube_h2_head_field(&r, &cl, (const uint8_t *)":status", 7, (const uint8_t *)"200", 3, &e),
	                 BH_EPROTO);
	r.status = 0;
	ck_assert_int_eq(kube_h2_head_field(&r, &cl, (const uint8_t *)":status", 7, (const uint8_t *)"20x", 3, &e),
	                 BH_EPROTO);
	ck_assert_int_eq(kube_h2_head_field(&r, &cl, (const uint8_t *)"content-length", 14, (const uint8_t *)"1234", 4, &e),
	                 0);
	ck_assert_uint_eq(cl, 1234);
	ck_assert_int_eq(kube_h2_head_field(&r, &cl, (const uint8_t *)"content-length", 14, (const uint8_t *)"12a", 3, &e),
	                 0);
	ck_assert(cl == UINT64_MAX);
	ck_assert_int_eq(kube_h2_head_field(&r, &cl, (const uint8_t *)"retry-after", 11, (const uint8_t *)"\t7 ", 3, &e), 0);
	ck_assert_str_eq(r.retry_after, "7");
	kube_response_free(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("h2");
	signal(SIGPIPE, SIG_IGN); /* as bulkheadd: a peer gone is an error of the write */
	TCase *tc = tcase_create("client");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_many_streams_one_connection);
	tcase_add_test(tc, test_big_response_and_body);
	tcase_add_test(tc, test_write_before_poll);
	tcase_add_test(tc, test_goaway_midway);
	tcase_add_test(tc, test_refused_timeout_stop);
	tcase_add_test(tc, test_no_h2_and_bad_certificate);
	tcase_add_test(tc, test_head_fields);
	tcase_add_test(tc, test_token_file_rotation);
	tcase_add_test(tc, test_stream_pieces);
	tcase_add_test(tc, test_health_check);
	tcase_add_test(tc, test_host_name);
	tcase_add_test(tc, test_host_name_unknown);
	tcase_add_test(tc, test_host_name_addresses);
	tcase_add_test(tc, test_host_name_slow_dns);
	tcase_add_test(tc, test_host_name_dead_dns);
	tcase_add_test(tc, test_stop_many);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
