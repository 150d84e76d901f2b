/* tests/unit/test_kube_curl.c — the libcurl transport's last line of
 * defence: against a loopback listener that records every byte it gets, no
 * request whose header values (token, extra headers, basic-auth credentials,
 * path) hold CR or LF leaves the client, while a clean one does; a strict
 * configuration refuses a forbidden address when the socket would be opened;
 * one transport sends every method in turn with only its own body;
 * streams run side by side on one kube_curl_multi (one ends, one is stopped,
 * one reaches its deadline, a transport runs a second stream); an error
 * answer to a request with a body closes the connection (HTTP/1 servers may
 * leave that body unread), other answers keep it; and
 * kube/addr.c reads each encoding of a host as libcurl's own URL parser
 * does; the proxy a transport takes from the environment (read once, set
 * explicitly) is the one libcurl would pick, no_proxy included; one
 * transport's requests in turn each carry exactly their own header lines. */
#include <arpa/inet.h>
#include <check.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kube/addr.h"
#include "kube/config.h"
#include "kube/curl.h"
#include "kube/curl_priv.h"
#include "kube/transport.h"
#include "tests/unit/unit_util.h"

/* ---- a loopback listener recording what it receives ------------------------ */
static int lfd = -1;
static unsigned lport;
static volatile int connections;
static char last[8192];
static size_t last_len;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;

/* Reads a request's head (up to its blank line, at most cap - 1 bytes) into
 * buf, NUL-terminated; returns the bytes read. */
static size_t read_head(int c, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;
	buf[0] = '\0';
	while (n < cap - 1 && (r = read(c, buf + n, cap - 1 - n)) > 0) {
		n += (size_t)r;
		buf[n] = '\0';
		if (strstr(buf, "\r\n\r\n"))
			break;
	}
	return n;
}

static void *listener(void *arg)
{
	(void)arg;
	while (!stop) {
		struct pollfd p = {lfd, POLLIN, 0};
		if (poll(&p, 1, 100) <= 0)
			continue;
		int c = accept(lfd, NULL, NULL);
		if (c < 0)
			continue;
		char buf[8192];
		size_t n = read_head(c, buf, sizeof buf);
		pthread_mutex_lock(&mu);
		connections++;
		memcpy(last, buf, n);
		last_len = n;
		pthread_mutex_unlock(&mu);
		static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
					 "Connection: close\r\n\r\n{}";
		if (write(c, ok, sizeof ok - 1) < 0) {
			/* the client went away */
		}
		close(c);
	}
	return NULL;
}

static pthread_t th;

static void listener_start(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(lfd, 0);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(lfd, 8), 0);
	ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&a, &al), 0);
	lport = ntohs(a.sin_port);
	stop = 0;
	ck_assert_int_eq(pthread_create(&th, NULL, listener, NULL), 0);
}

static void listener_stop(void)
{
	stop = 1;
	pthread_join(th, NULL);
	close(lfd);
}

static int seen(void)
{
	pthread_mutex_lock(&mu);
	int n = connections;
	pthread_mutex_unlock(&mu);
	return n;
}

static kube_config *cfg_for(const char *server, const char *token)
{
	kube_config *c = calloc(1, sizeof *c);
	ck_assert_ptr_nonnull(c);
	c->server = strdup(server);
	c->token = token ? strdup(token) : NULL;
	c->namespace_ = strdup("default");
	return c;
}

/* The head of the last request the listener got, copied. */
static void last_head(char *got, size_t cap)
{
	pthread_mutex_lock(&mu);
	size_t n = last_len < cap - 1 ? last_len : cap - 1;
	memcpy(got, last, n);
	got[n] = '\0';
	pthread_mutex_unlock(&mu);
}

/* The listener started and a transport to it with token (*cfg: its
 * configuration, the caller's to free). */
static kube_transport *listener_transport(kube_config **cfg, const char *token)
{
	char url[64];
	bh_error e = {0};
	listener_start();
	snprintf(url, sizeof url, "http://127.0.0.1:%u", lport);
	*cfg = cfg_for(url, token);
	kube_transport *t = kube_curl_transport_new(*cfg, &e);
	ck_assert_msg(t != NULL, "%s", e.msg);
	return t;
}

/* Sends one request through a fresh libcurl transport. */
static int send_one(kube_config *cfg, const char *path, const char *const *headers, bh_error *e)
{
	kube_transport *t = kube_curl_transport_new(cfg, e);
	kube_request req = {.method = "GET", .path = path, .headers = headers, .timeout_ms = 5000};
	kube_response resp = {0};
	ck_assert_ptr_nonnull(t);
	int rc = t->ops->request(t->impl, &req, &resp, e);
	kube_response_free(&resp);
	kube_transport_free(t);
	return rc;
}

START_TEST(test_header_injection_never_sent)
{
	char url[64];
	bh_error e = {0};
	listener_start();
	snprintf(url, sizeof url, "http://127.0.0.1:%u", lport);

	/* the control: a clean request reaches the listener with its token */
	kube_config *cfg = cfg_for(url, "good-token");
	ck_assert_int_eq(send_one(cfg, "/version", NULL, &e), 0);
	ck_assert_int_eq(seen(), 1);
	ck_assert_ptr_nonnull(strstr(last, "Authorization: Bearer good-token\r\n"));
	kube_config_free(cfg);

	/* a token smuggling a header (as from a kubeconfig whose token holds CR LF) */
	static const char *const tokens[] = {"abc\r\nImpersonate-User: system:admin", "abc\nX: y", "abc\rX: y", "a\x01b"};
	for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; i++) {
		cfg = cfg_for(url, tokens[i]);
		ck_assert_int_eq(send_one(cfg, "/version", NULL, &e), BH_EINVAL);
		ck_assert_msg(strstr(e.msg, "header Authorization holds a CR, LF or other control character; not sent"), "%s",
			      e.msg);
		ck_assert_msg(!strstr(e.msg, "system:admin"), "the value was echoed: %s", e.msg);
		kube_config_free(cfg);
	}
	/* extra headers of any caller */
	cfg = cfg_for(url, NULL);
	static const char *const h1[] = {"Impersonate-User: x\r\nImpersonate-Group: system:masters", NULL};
	static const char *const h2[] = {"Accept: a", "X-Y: v\n", NULL};
	ck_assert_int_eq(send_one(cfg, "/version", h1, &e), BH_EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "header Impersonate-User holds"));
	ck_assert_int_eq(send_one(cfg, "/version", h2, &e), BH_EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "header X-Y holds"));
	/* a path that would split the request line */
	ck_assert_int_eq(send_one(cfg, "/version HTTP/1.1\r\nImpersonate-User: x\r\n", NULL, &e), BH_EINVAL);
	kube_config_free(cfg);
	/* basic-auth credentials */
	cfg = cfg_for(url, NULL);
	cfg->username = strdup("u\r\nX: y");
	cfg->password = strdup("p");
	ck_assert_int_eq(send_one(cfg, "/version", NULL, &e), BH_EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "basic-auth credentials hold a control character"));
	kube_config_free(cfg);

	/* a server URL (as a caller might build one) holding CR LF */
	char bad[160];
	snprintf(bad, sizeof bad, "%s/\r\nImpersonate-User: system:admin", url);
	cfg = cfg_for(bad, NULL);
	ck_assert_int_eq(send_one(cfg, "/version", NULL, &e), BH_EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "the server or proxy URL holds a control character"));
	kube_config_free(cfg);

	/* nothing of the refused requests reached the listener */
	usleep(200000);
	ck_assert_int_eq(seen(), 1);
	listener_stop();
}
END_TEST

/* One transport sends requests of every method in turn: each goes out
 * with its own method, and a body only when it has one (the handle keeps
 * its options from request to request, no reset). */
START_TEST(test_methods_in_turn)
{
	static const struct {
		const char *method, *body, *line;
		int has_len;
	} steps[] = {
		{"PUT", "{\"a\":1}", "PUT /x HTTP/1.1\r\n", 1},   {"GET", NULL, "GET /x HTTP/1.1\r\n", 0},
		{"DELETE", NULL, "DELETE /x HTTP/1.1\r\n", 0}, {"HEAD", NULL, "HEAD /x HTTP/1.1\r\n", 0},
		{"POST", "{}", "POST /x HTTP/1.1\r\n", 1},      {"DELETE", "{}", "DELETE /x HTTP/1.1\r\n", 1},
		{"PATCH", "[]", "PATCH /x HTTP/1.1\r\n", 1},    {"GET", NULL, "GET /x HTTP/1.1\r\n", 0},
	};
	bh_error e = {0};
	kube_config *cfg;
	kube_transport *t = listener_transport(&cfg, "tok");
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		kube_request req = {.method = steps[i].method, .path = "/x", .timeout_ms = 5000,
				    .body = steps[i].body, .body_len = steps[i].body ? strlen(steps[i].body) : 0};
		kube_response resp = {0};
		ck_assert_int_eq(t->ops->request(t->impl, &req, &resp, &e), 0);
		ck_assert_int_eq(resp.status, 200);
		kube_response_free(&resp);
		char got[sizeof last + 1];
		last_head(got, sizeof got);
		ck_assert_msg(!strncmp(got, steps[i].line, strlen(steps[i].line)), "step %zu sent: %.40s", i, got);
		ck_assert_msg(!!strstr(got, "Content-Length:") == steps[i].has_len, "step %zu: %s", i, got);
		ck_assert_ptr_nonnull(strstr(got, "Authorization: Bearer tok\r\n"));
	}
	kube_transport_free(t);
	kube_config_free(cfg);
	listener_stop();
}
END_TEST

/* Writes tok to path and waits for the next second: the token file is
 * looked at again (kube_config_token, at most once a second) and its new
 * mtime seen. */
static void token_rewrite(const char *path, const char *tok)
{
	time_t t0 = time(NULL);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(tok, f);
	ck_assert_int_eq(fclose(f), 0);
	struct timespec ts[2] = {{.tv_sec = t0 + 5}, {.tv_sec = t0 + 5}};
	static long bump;
	ts[0].tv_nsec = ts[1].tv_nsec = ++bump; /* a different mtime each time */
	ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
	while (time(NULL) == t0)
		usleep(20000);
}

/* One transport whose token changes (a rotated token file): each request
 * carries the token of its time, never the one before (the Authorization
 * line is kept from request to request while the token stays the same). */
START_TEST(test_token_change_on_one_transport)
{
	char url[64], path[] = "/tmp/test_kube_curl_tokenXXXXXX";
	bh_error e = {0};
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	listener_start();
	snprintf(url, sizeof url, "http://127.0.0.1:%u", lport);
	token_rewrite(path, "first-token");
	kube_config *cfg = cfg_for(url, NULL);
	cfg->token_file = strdup(path);
	kube_transport *t = kube_curl_transport_new(cfg, &e);
	ck_assert_ptr_nonnull(t);
	static const struct {
		const char *tok, *want;
	} steps[] = {
		{"first-token", "Authorization: Bearer first-token\r\n"},
		{"first-token", "Authorization: Bearer first-token\r\n"},
		{"second-token-longer", "Authorization: Bearer second-token-longer\r\n"},
		{"second-token-longer", "Authorization: Bearer second-token-longer\r\n"},
		{"3rd", "Authorization: Bearer 3rd\r\n"},
	};
	int sent = seen();
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		if (i && strcmp(steps[i].tok, steps[i - 1].tok))
			token_rewrite(path, steps[i].tok);
		kube_request req = {.method = "GET", .path = "/x", .timeout_ms = 5000};
		kube_response resp = {0};
		int rc = t->ops->request(t->impl, &req, &resp, &e);
		kube_response_free(&resp);
		ck_assert_msg(rc == 0, "step %zu: %s", i, e.msg);
		ck_assert_int_eq(seen(), ++sent);
		pthread_mutex_lock(&mu);
		char got[sizeof last + 1];
		memcpy(got, last, last_len);
		got[last_len] = '\0';
		pthread_mutex_unlock(&mu);
		ck_assert_msg(strstr(got, steps[i].want) != NULL, "step %zu sent: %s", i, got);
	}
	kube_transport_free(t);
	kube_config_free(cfg);
	unlink(path);
	listener_stop();
}
END_TEST

START_TEST(test_strict_connect_refuses)
{
	bh_error e = {0};
	/* a name (no address to see in the URL) that resolves to loopback, on a
	 * kubelet port: refused before any connection is attempted */
	kube_config *cfg = cfg_for("http://localhost:10250", "t");
	cfg->strict = 1;
	ck_assert_int_eq(send_one(cfg, "/version", NULL, &e), BH_EDENIED);
	ck_assert_msg(strstr(e.msg, "GET /version: the server's address is a kubelet port on the loopback interface"),
		      "%s", e.msg);
	kube_config_free(cfg);
}
END_TEST

/* libcurl's own reading of each URL's host gives the address our check names. */
START_TEST(test_addr_as_libcurl_reads_it)
{
	static const char *const urls[] = {
		"https://169.254.169.254",        "https://2852039166",         "https://0251.0376.0251.0376",
		"https://0xa9.0xfe.0xa9.0xfe",    "https://0XA9FEA9FE",         "https://169.254.43518",
		"https://169.16689662",           "https://0xa9.254.0251.0xfe", "https://[::ffff:169.254.169.254]",
		"https://[::ffff:a9fe:a9fe]",     "https://[fe80::1]:443",      "https://[FD00:EC2::254]",
		"https://100.100.100.200",        "https://127.0.0.1:10250",    "https://2130706433:10255",
		"https://[::1]:10250",            "https://0x7f.1:010250",      "https://169.254.1.2:6443",
		"https://0:10250",                "https://[::ffff:7f00:1]:10250",
	};
	for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++) {
		CURLU *u = curl_url();
		char *host = NULL, *port = NULL;
		unsigned char a[16];
		bh_error e = {0};
		ck_assert_int_eq(curl_url_set(u, CURLUPART_URL, urls[i], 0), CURLUE_OK);
		ck_assert_int_eq(curl_url_get(u, CURLUPART_HOST, &host, 0), CURLUE_OK);
		ck_assert_int_eq(curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT), CURLUE_OK);
		size_t hl = strlen(host);
		int v6 = host[0] == '[';
		char lit[64];
		snprintf(lit, sizeof lit, "%.*s", (int)(v6 ? hl - 2 : hl), v6 ? host + 1 : host);
		/* libcurl normalised the host to a plain address literal */
		ck_assert_msg(inet_pton(v6 ? AF_INET6 : AF_INET, lit, a) == 1, "%s: libcurl's host %s", urls[i], host);
		ck_assert_msg(kube_addr_classify(a, v6 ? 16 : 4, (unsigned)atoi(port)) != NULL, "%s (%s)", urls[i], host);
		/* and our check refuses the URL naming that same address */
		ck_assert_int_eq(kube_url_check_strict(urls[i], 1, "server", &e), BH_EDENIED);
		char shown[64];
		inet_ntop(v6 ? AF_INET6 : AF_INET, a, shown, sizeof shown);
		char want[96];
		snprintf(want, sizeof want, "names %s, ", shown);
		ck_assert_msg(strstr(e.msg, want), "%s: libcurl reads %s, we said: %s", urls[i], shown, e.msg);
		curl_free(host);
		curl_free(port);
		curl_url_cleanup(u);
	}
}
END_TEST

/* ---- streams on one multi handle ------------------------------------------ */
/* A streaming server: each connection gets a 200 with one chunk "hello";
 * a path holding "end" then ends the stream, any other holds it open until
 * the client goes away (closed counts those). */
static int sfd = -1;
static unsigned sport;
static volatile int sstop, closed;

static void *stream_conn(void *arg)
{
	int c = (int)(intptr_t)arg;
	char buf[4096];
	size_t n = read_head(c, buf, sizeof buf);
	static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
				   "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n";
	if (write(c, head, sizeof head - 1) < 0) {
		/* the client went away */
	}
	if (n && strstr(buf, "/end ")) {
		if (write(c, "0\r\n\r\n", 5) < 0) {
			/* the client went away */
		}
	} else {
		while (read(c, buf, sizeof buf) > 0)
			;
		pthread_mutex_lock(&mu);
		closed++;
		pthread_mutex_unlock(&mu);
	}
	close(c);
	return NULL;
}

static void *stream_listener(void *arg)
{
	(void)arg;
	while (!sstop) {
		struct pollfd p = {sfd, POLLIN, 0};
		pthread_t ct;
		if (poll(&p, 1, 100) <= 0)
			continue;
		int c = accept(sfd, NULL, NULL);
		if (c >= 0 && pthread_create(&ct, NULL, stream_conn, (void *)(intptr_t)c) == 0)
			pthread_detach(ct);
		else if (c >= 0)
			close(c);
	}
	return NULL;
}

typedef struct {
	int bytes, ended, rc;
	long status;
} sstate;

static int on_stream(void *ud, const char *data, size_t len)
{
	sstate *st = ud;
	(void)data;
	st->bytes += (int)len;
	return 0;
}

static sstate *ends[3];
static kube_transport *ts[3];

static void on_stream_end(void *ud, kube_transport *t, int rc, const bh_error *err)
{
	(void)ud, (void)err;
	for (int i = 0; i < 3; i++)
		if (ts[i] == t) {
			ends[i]->ended++;
			ends[i]->rc = rc;
		}
}

START_TEST(test_multi_streams)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	pthread_t sth;
	char url[64];
	bh_error e = {0};
	sfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_eq(bind(sfd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(sfd, 8), 0);
	ck_assert_int_eq(getsockname(sfd, (struct sockaddr *)&a, &al), 0);
	sport = ntohs(a.sin_port);
	ck_assert_int_eq(pthread_create(&sth, NULL, stream_listener, NULL), 0);
	snprintf(url, sizeof url, "http://127.0.0.1:%u", sport);
	kube_config *cfg = cfg_for(url, "tok");
	kube_curl_multi *m = kube_curl_multi_new(&e);
	ck_assert_ptr_nonnull(m);
	kube_request reqs[3] = {{.method = "GET", .path = "/end"},
				{.method = "GET", .path = "/hold"},
				{.method = "GET", .path = "/hold", .timeout_ms = 700}};
	kube_response resps[3] = {KUBE_RESPONSE_INIT, KUBE_RESPONSE_INIT, KUBE_RESPONSE_INIT};
	sstate st[3] = {{0}};
	for (int i = 0; i < 3; i++) {
		ends[i] = &st[i];
		ts[i] = kube_curl_transport_new(cfg, &e);
		ck_assert_ptr_nonnull(ts[i]);
		ck_assert_int_eq(kube_curl_multi_add(m, ts[i], &reqs[i], &resps[i], on_stream, &st[i], &e), 0);
	}
	/* a transport runs one stream at a time */
	ck_assert_int_lt(kube_curl_multi_add(m, ts[0], &reqs[0], &resps[0], on_stream, &st[0], &e), 0);
	for (int k = 0; k < 100 && !(st[0].ended && st[1].bytes == 5 && st[2].ended); k++)
		kube_curl_multi_run(m, 100, on_stream_end, NULL);
	/* the ended stream: all its bytes, 0 and 200 */
	ck_assert_int_eq(st[0].ended, 1);
	ck_assert_int_eq(st[0].rc, 0);
	ck_assert_int_eq(st[0].bytes, 5);
	ck_assert_int_eq(resps[0].status, 200);
	/* the one past its deadline: a timeout */
	ck_assert_int_eq(st[2].ended, 1);
	ck_assert_int_eq(st[2].rc, BH_ETIMEOUT);
	/* the held one runs until stopped: its connection is closed, no on_end */
	ck_assert_int_eq(st[1].bytes, 5);
	ck_assert_int_eq(st[1].ended, 0);
	kube_curl_multi_stop(m, ts[1]);
	ck_assert_int_eq(resps[1].status, 200);
	for (int k = 0; k < 50; k++) {
		pthread_mutex_lock(&mu);
		int n = closed;
		pthread_mutex_unlock(&mu);
		if (n == 2)
			break;
		usleep(20000);
	}
	pthread_mutex_lock(&mu);
	ck_assert_int_eq(closed, 2);
	pthread_mutex_unlock(&mu);
	kube_curl_multi_run(m, 0, on_stream_end, NULL);
	ck_assert_int_eq(st[1].ended, 0);
	/* a stopped transport takes the next stream */
	memset(&st[1], 0, sizeof st[1]);
	kube_response_free(&resps[1]);
	resps[1] = (kube_response)KUBE_RESPONSE_INIT;
	ck_assert_int_eq(kube_curl_multi_add(m, ts[1], &reqs[0], &resps[1], on_stream, &st[1], &e), 0);
	for (int k = 0; k < 100 && !st[1].ended; k++)
		kube_curl_multi_run(m, 100, on_stream_end, NULL);
	ck_assert_int_eq(st[1].ended, 1);
	ck_assert_int_eq(st[1].rc, 0);
	ck_assert_int_eq(st[1].bytes, 5);
	for (int i = 0; i < 3; i++) {
		kube_response_free(&resps[i]);
		kube_transport_free(ts[i]);
	}
	kube_curl_multi_free(m);
	kube_config_free(cfg);
	sstop = 1;
	pthread_join(sth, NULL);
	close(sfd);
}
END_TEST


/* ---- an HTTP/1 server that refuses a request without reading its body ----- */
static int kfd = -1;
static unsigned kport;
static int kconns;
static char klines[8][64];
static int nklines;

static void *keep_conn(void *arg)
{
	int c = (int)(long)arg;
	char buf[4096];
	size_t n = 0;
	for (;;) {
		char *end, line[64] = "";
		ssize_t r;
		while (!(end = n ? strstr(buf, "\r\n\r\n") : NULL)) {
			if (n == sizeof buf - 1 || (r = read(c, buf + n, sizeof buf - 1 - n)) <= 0) {
				close(c);
				return NULL;
			}
			n += (size_t)r;
			buf[n] = '\0';
		}
		sscanf(buf, "%63[^\r]", line);
		pthread_mutex_lock(&mu);
		if (nklines < 8)
			snprintf(klines[nklines++], sizeof klines[0], "%s", line);
		pthread_mutex_unlock(&mu);
		/* the head is consumed; a body too unless the request is refused:
		 * then it is left for the next read, as a server that refuses
		 * before reading it leaves it */
		static const char refused[] = "HTTP/1.1 409 Conflict\r\nContent-Length: 2\r\n\r\n{}";
		static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
		const char *a = strstr(line, "/refuse") ? refused : ok, *cl = strcasestr(buf, "Content-Length:");
		size_t skip = (size_t)(end + 4 - buf);
		if (a == ok && cl && cl < end) {
			size_t body = strtoul(cl + 15, NULL, 10);
			while (n < skip + body && (r = read(c, buf + n, sizeof buf - 1 - n)) > 0)
				n += (size_t)r;
			skip += body;
		}
		n -= skip;
		memmove(buf, buf + skip, n);
		buf[n] = '\0';
		if (write(c, a, strlen(a)) < 0)
			break;
	}
	close(c);
	return NULL;
}

static void *keep_listener(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_t t;
		int c = accept(kfd, NULL, NULL);
		if (c < 0)
			return NULL;
		pthread_mutex_lock(&mu);
		kconns++;
		pthread_mutex_unlock(&mu);
		if (pthread_create(&t, NULL, keep_conn, (void *)(long)c) == 0)
			pthread_detach(t);
		else
			close(c);
	}
}

/* After an error answer to a request with a body the connection is not
 * used again (the server may not have read that body, and would read the
 * next request from it); after other answers it is. */
START_TEST(test_refused_body_closes_connection)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	static const struct {
		const char *method, *path, *body;
		long status;
		int conns; /* connections the server has seen after it */
	} steps[] = {
		{"POST", "/ok", "{\"a\":1}", 200, 1},     {"GET", "/refuse", NULL, 409, 1},
		{"POST", "/refuse", "{\"a\":1}", 409, 1}, {"GET", "/next", NULL, 200, 2},
		{"PUT", "/ok", "{}", 200, 2},
	};
	pthread_t th2;
	char url[64];
	bh_error e = {0};
	kfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(kfd, 0);
	ck_assert_int_eq(bind(kfd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(kfd, 8), 0);
	ck_assert_int_eq(getsockname(kfd, (struct sockaddr *)&a, &al), 0);
	kport = ntohs(a.sin_port);
	ck_assert_int_eq(pthread_create(&th2, NULL, keep_listener, NULL), 0);
	pthread_detach(th2);
	snprintf(url, sizeof url, "http://127.0.0.1:%u", kport);
	kube_config *cfg = cfg_for(url, NULL);
	kube_transport *t = kube_curl_transport_new(cfg, &e);
	ck_assert_ptr_nonnull(t);
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		kube_request req = {.method = steps[i].method, .path = steps[i].path, .timeout_ms = 5000,
				    .body = steps[i].body, .body_len = steps[i].body ? strlen(steps[i].body) : 0};
		kube_response resp = {0};
		char want[64];
		ck_assert_int_eq(t->ops->request(t->impl, &req, &resp, &e), 0);
		ck_assert_int_eq(resp.status, steps[i].status);
		kube_response_free(&resp);
		snprintf(want, sizeof want, "%s %s HTTP/1.1", steps[i].method, steps[i].path);
		pthread_mutex_lock(&mu);
		ck_assert_int_eq(nklines, (int)i + 1);
		ck_assert_str_eq(klines[i], want);
		ck_assert_int_eq(kconns, steps[i].conns);
		pthread_mutex_unlock(&mu);
	}
	kube_transport_free(t);
	kube_config_free(cfg);
	close(kfd);
}
END_TEST

static const char *const proxy_vars[] = {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                                         "ALL_PROXY", "no_proxy", "NO_PROXY", NULL};

static void proxy_env_clear(void)
{
	for (size_t i = 0; proxy_vars[i]; i++)
		unsetenv(proxy_vars[i]);
}

/* libcurl's order of the proxy variables, per scheme. */
START_TEST(test_env_proxy_choice)
{
	proxy_env_clear();
	ck_assert_str_eq(kube_curl_env_proxy(0), "");
	ck_assert_str_eq(kube_curl_env_proxy(1), "");
	ck_assert_str_eq(kube_curl_env_noproxy(), "");
	setenv("HTTP_PROXY", "http://H", 1); /* never read */
	ck_assert_str_eq(kube_curl_env_proxy(0), "");
	ck_assert_str_eq(kube_curl_env_proxy(1), "");
	setenv("ALL_PROXY", "http://A", 1);
	ck_assert_str_eq(kube_curl_env_proxy(0), "http://A");
	ck_assert_str_eq(kube_curl_env_proxy(1), "http://A");
	setenv("all_proxy", "http://a", 1);
	ck_assert_str_eq(kube_curl_env_proxy(0), "http://a");
	setenv("HTTPS_PROXY", "http://S", 1);
	ck_assert_str_eq(kube_curl_env_proxy(1), "http://S");
	ck_assert_str_eq(kube_curl_env_proxy(0), "http://a");
	setenv("https_proxy", "", 1); /* empty: as unset */
	ck_assert_str_eq(kube_curl_env_proxy(1), "http://S");
	setenv("https_proxy", "http://s", 1);
	ck_assert_str_eq(kube_curl_env_proxy(1), "http://s");
	setenv("http_proxy", "http://h", 1);
	ck_assert_str_eq(kube_curl_env_proxy(0), "http://h");
	setenv("NO_PROXY", "N", 1);
	ck_assert_str_eq(kube_curl_env_noproxy(), "N");
	setenv("no_proxy", "", 1);
	ck_assert_str_eq(kube_curl_env_noproxy(), "N");
	setenv("no_proxy", "n", 1);
	ck_assert_str_eq(kube_curl_env_noproxy(), "n");
	proxy_env_clear();
}
END_TEST

/* Requests go through the environment's proxy, or straight to the server
 * when no_proxy names it, HTTP_PROXY being all there is for http, or the
 * configuration's proxy-url is bypassed by no_proxy (libcurl applies it to
 * both); a dead proxy (port 9) fails the request if it is used. */
START_TEST(test_env_proxy_used)
{
	char url[64], prox[64], got[sizeof last + 1];
	bh_error e = {0};
	static const char dead[] = "http://127.0.0.1:9";
	listener_start();
	snprintf(url, sizeof url, "http://127.0.0.1:%u", lport);
	snprintf(prox, sizeof prox, "http://127.0.0.1:%u", lport);
	const struct {
		const char *var, *val, *server, *proxy_url, *no_proxy, *want;
	} steps[] = {
		{"http_proxy", prox, "http://proxied.invalid:8080", NULL, NULL, "GET http://proxied.invalid:8080/p HTTP/1.1\r\n"},
		{"ALL_PROXY", prox, "http://proxied.invalid:8080", NULL, NULL, "GET http://proxied.invalid:8080/p HTTP/1.1\r\n"},
		{"http_proxy", dead, url, NULL, "127.0.0.1", "GET /p HTTP/1.1\r\n"},
		{"HTTP_PROXY", dead, url, NULL, NULL, "GET /p HTTP/1.1\r\n"},
		{"http_proxy", "", url, dead, "127.0.0.1", "GET /p HTTP/1.1\r\n"},
		{"http_proxy", "", "http://proxied.invalid:8080", prox, NULL, "GET http://proxied.invalid:8080/p HTTP/1.1\r\n"},
	};
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		proxy_env_clear();
		setenv(steps[i].var, steps[i].val, 1);
		if (steps[i].no_proxy)
			setenv("NO_PROXY", steps[i].no_proxy, 1);
		kube_config *cfg = cfg_for(steps[i].server, "t");
		cfg->proxy_url = steps[i].proxy_url ? strdup(steps[i].proxy_url) : NULL;
		int sent = seen();
		int rc = send_one(cfg, "/p", NULL, &e);
		ck_assert_msg(rc == 0, "step %zu: %s", i, e.msg);
		ck_assert_int_eq(seen(), sent + 1);
		last_head(got, sizeof got);
		ck_assert_msg(!strncmp(got, steps[i].want, strlen(steps[i].want)), "step %zu sent: %s", i, got);
		kube_config_free(cfg);
	}
	proxy_env_clear();
	listener_stop();
}
END_TEST

/* Requests in turn on one transport (as the supervisor's pooled handles
 * serve tenants in turn) each carry exactly their own header lines, none
 * left from the one before; a line with a CR or LF is refused (nothing
 * sent) between clean ones. */
START_TEST(test_header_lines_per_request)
{
	static const char *const ua[] = {"Impersonate-User: a", NULL};
	static const char *const ub[] = {"Impersonate-User: b", NULL};
	static const char *const ubg[] = {"Impersonate-User: b", "Impersonate-Group: g", NULL};
	static const char *const bad[] = {"Impersonate-User: b", "X: y\r\nZ: w", NULL};
	static const struct {
		const char *accept, *ctype;
		const char *const *headers;
		const char *has[3], *hasnt[3];
	} steps[] = {
		{NULL, NULL, ua, {"Impersonate-User: a\r\n", "Accept: application/json\r\n"}, {"Content-Type:"}},
		{NULL, NULL, ua, {"Impersonate-User: a\r\n", "Accept: application/json\r\n"}, {"Content-Type:"}},
		{NULL, NULL, ub, {"Impersonate-User: b\r\n"}, {"Impersonate-User: a"}},
		{NULL, NULL, ubg, {"Impersonate-User: b\r\n", "Impersonate-Group: g\r\n"}, {NULL}},
		{NULL, NULL, ub, {"Impersonate-User: b\r\n"}, {"Impersonate-Group"}},
		{"application/yaml", "application/merge-patch+json", NULL,
		 {"Accept: application/yaml\r\n", "Content-Type: application/merge-patch+json\r\n"}, {"Impersonate-"}},
		{NULL, NULL, bad, {NULL}, {NULL}},
		{"application/json;as=Table", NULL, ub, {"Accept: application/json;as=Table\r\n"}, {"Content-Type:"}},
		{NULL, NULL, NULL, {"Accept: application/json\r\n", "Authorization: Bearer tok\r\n"},
		 {"Impersonate-", "Content-Type:", "as=Table"}},
	};
	char got[sizeof last + 1];
	bh_error e = {0};
	kube_config *cfg;
	kube_transport *t = listener_transport(&cfg, "tok");
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		kube_request req = {.method = "GET", .path = "/x", .timeout_ms = 5000, .accept = steps[i].accept,
				    .content_type = steps[i].ctype, .headers = steps[i].headers};
		kube_response resp = {0};
		int sent = seen();
		int rc = t->ops->request(t->impl, &req, &resp, &e);
		kube_response_free(&resp);
		if (steps[i].headers == bad) {
			ck_assert_int_eq(rc, BH_EINVAL);
			ck_assert_int_eq(seen(), sent);
			continue;
		}
		ck_assert_msg(rc == 0, "step %zu: %s", i, e.msg);
		ck_assert_int_eq(seen(), sent + 1);
		last_head(got, sizeof got);
		for (size_t k = 0; k < 3; k++) {
			if (steps[i].has[k])
				ck_assert_msg(strstr(got, steps[i].has[k]) != NULL, "step %zu lacks %s: %s", i, steps[i].has[k], got);
			if (steps[i].hasnt[k])
				ck_assert_msg(!strstr(got, steps[i].hasnt[k]), "step %zu has %s: %s", i, steps[i].hasnt[k], got);
		}
	}
	kube_transport_free(t);
	kube_config_free(cfg);
	listener_stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kube_curl");
	TCase *tc = tcase_create("hygiene");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_header_injection_never_sent);
	tcase_add_test(tc, test_methods_in_turn);
	tcase_add_test(tc, test_token_change_on_one_transport);
	tcase_add_test(tc, test_strict_connect_refuses);
	tcase_add_test(tc, test_addr_as_libcurl_reads_it);
	tcase_add_test(tc, test_multi_streams);
	tcase_add_test(tc, test_refused_body_closes_connection);
	tcase_add_test(tc, test_env_proxy_choice);
	tcase_add_test(tc, test_env_proxy_used);
	tcase_add_test(tc, test_header_lines_per_request);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
