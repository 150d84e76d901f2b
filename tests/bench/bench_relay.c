/* tests/bench/bench_relay.c — the floor of bulkheadd's relay design (issue
 * 14: supervisor CPU / workers' CPU <= 0.2): the least CPU a supervisor
 * process spends to relay one worker API request the way bulkheadd does
 * (DESIGN.md, supervisor/broker.c, supervisor/forward.c, supervisor/audit.h),
 * with nothing else in it: no JSON, no HTTP/2, no policy, no Kubernetes
 * objects. What remains is the kernel and OpenSSL work the design cannot do
 * without, so bulkheadd's CPU per install can come down to this and not
 * below it.
 *
 * usage: bench_relay [-w WORKERS] [-k REQUESTS] [-m MUTATIONS] [-r RUNS] [-t THINK_US] [-d DIR] [-s SIZES]
 *        bench_relay --header
 *
 * Processes, per run:
 *  - a server: one TLS 1.3 connection on loopback TCP (a self-signed P-256
 *    certificate made at start with the OpenSSL API), answers each request
 *    frame with an answer of the size the request asks for (its first 4
 *    bytes) carrying the request's id, as fast as it can;
 *  - the relay (the process measured): an epoll loop over the workers'
 *    AF_UNIX SOCK_STREAM sockets (ipc/ipc.h framing: 16-byte header, then
 *    the payload), the TLS socket and the sync thread's eventfd. Per request:
 *    recvmsg of the request from a worker, write() of a 300-byte
 *    intent line to an O_APPEND audit file in DIR, SSL_write of the request
 *    (its id names the worker) on the one persistent connection; for a
 *    mutation (MUTATIONS of every 12 requests, default 5) the send first
 *    waits until a sync thread's fdatasync covers the intent (group commit:
 *    one fdatasync for every intent written before it started, as
 *    audit_sync_async does); then SSL_read of the answer, write() of an
 *    outcome line, sendmsg of the answer to the worker;
 *  - WORKERS workers (default 10, as bulkheadd's --concurrent 10), each
 *    sending REQUESTS requests (default 1200) in a row, blocking for each
 *    answer; with -t THINK, spinning THINK microseconds of CPU before each
 *    request (a worker's own work: bulkheadd's workers spend ~5.7 ms per
 *    12-request install, ~475 us a request), so requests overlap as little
 *    as they do under bulkheadd and the relay batches less than with
 *    workers that only send.
 * Sizes (-s): "small" (default): every request 400 bytes, every answer 1.5
 * KB; "install": the 12 requests of a podinfo install by their bytes as
 * kubesim sends and receives them (the release Secret, ~50 KB, written
 * twice and echoed back twice; the applies, the HelmRelease's status and
 * finalizer, the Event, the reads and the Deployment's watch: ~111 KB out
 * and ~126 KB in per install), the 5 mutations the largest.
 * The relay's CPU is getrusage(RUSAGE_SELF) (all its threads) from when the
 * workers are let go (TLS handshake done) to the last worker's close; the
 * sync thread's by its thread CPU clock. Each configuration runs RUNS times
 * (default 5); the row printed is the run with the median CPU per request.
 * A benchmark, not a test: it fails only when something cannot be set up. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "ipc/ipc.h"
#include "tests/bench/ipcrec.h"

#define MAX_LEN (64 * 1024) /* the largest request or answer payload */
#define LINE_LEN 300
#define MAX_WORKERS 256
#define MAX_RUNS 51

/* The 12 requests of an install, by payload bytes (-s): request, answer.
 * A request's first 4 bytes tell the server its answer's size. */
typedef struct sizes {
	uint32_t req[12], ans[12];
} sizes;

static const sizes sizes_small = {{400, 400, 400, 400, 400, 400, 400, 400, 400, 400, 400, 400},
				  {1500, 1500, 1500, 1500, 1500, 1500, 1500, 1500, 1500, 1500, 1500, 1500}};
/* the release Secret POSTed and PUT, the Deployment's and the Service's
 * applies, a status PATCH (the mutations first: -m 5), then the storage
 * list, the two existence reads, the Deployment's watch (two events), the
 * finalizer PATCH, the second status PATCH and the Event */
static const sizes sizes_install = {{50000, 50000, 5000, 1500, 1200, 300, 300, 300, 300, 300, 1200, 1000},
				    {50000, 50000, 5000, 2000, 2300, 200, 300, 300, 10000, 2300, 2300, 1000}};
static const sizes *sz = &sizes_small;

static void die(const char *what)
{
	fprintf(stderr, "bench_relay: %s: %s\n", what, strerror(errno));
	ERR_print_errors_fp(stderr);
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double tv_s(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

static double clock_s(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void write_all(int fd, const void *p, size_t n)
{
	if (ipcrec_write_all(fd, p, n) < 0)
		die("write");
}

static int read_all(int fd, void *p, size_t n)
{
	char *c = p;
	while (n > 0) {
		ssize_t r = read(fd, c, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

/* ---- TLS set-up: a throwaway self-signed certificate ---- */

static SSL_CTX *server_ctx_new(void)
{
	EVP_PKEY *key = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	if (!key || !x)
		die("key");
	ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
	X509_gmtime_adj(X509_getm_notBefore(x), 0);
	X509_gmtime_adj(X509_getm_notAfter(x), 3600);
	X509_set_pubkey(x, key);
	X509_NAME *name = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"localhost", -1, -1, 0);
	X509_set_issuer_name(x, name);
	if (!X509_sign(x, key, EVP_sha256()))
		die("X509_sign");
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	if (!ctx || !SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) || !SSL_CTX_use_certificate(ctx, x) ||
	    !SSL_CTX_use_PrivateKey(ctx, key))
		die("server SSL_CTX");
	X509_free(x);
	EVP_PKEY_free(key);
	return ctx;
}

static void tcp_nodelay(int fd)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* ---- the server: answers every request frame with the bytes it asks for ---- */

static void server_run(SSL_CTX *ctx, int lfd)
{
	int fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die("accept");
	tcp_nodelay(fd);
	SSL *ssl = SSL_new(ctx);
	SSL_set_fd(ssl, fd);
	if (SSL_accept(ssl) != 1)
		die("SSL_accept");
	static unsigned char in[4 * MAX_LEN], ans[IPC_HDR_SIZE + MAX_LEN];
	memset(ans + IPC_HDR_SIZE, 'a', MAX_LEN);
	size_t have = 0;
	for (;;) {
		int n = SSL_read(ssl, in + have, (int)(sizeof in - have));
		if (n <= 0)
			break;
		have += (size_t)n;
		size_t off = 0;
		while (have - off >= IPC_HDR_SIZE) {
			ipc_hdr h;
			if (ipc_hdr_decode(in + off, MAX_LEN, &h, NULL) < 0 || h.len < 4)
				die("server: bad frame");
			if (have - off < IPC_HDR_SIZE + h.len)
				break;
			const unsigned char *q = in + off + IPC_HDR_SIZE;
			uint32_t al = q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
			if (al > MAX_LEN)
				die("server: answer too large");
			ipc_hdr a = {.type = h.type, .len = al, .id = h.id};
			ipc_hdr_encode(&a, ans);
			if (SSL_write(ssl, ans, (int)(IPC_HDR_SIZE + al)) != (int)(IPC_HDR_SIZE + al))
				die("server SSL_write");
			off += IPC_HDR_SIZE + h.len;
		}
		memmove(in, in + off, have - off);
		have -= off;
	}
	SSL_free(ssl);
	close(fd);
}

/* ---- a worker: k requests in a row, each waiting for its answer ---- */

/* Burns think_us of this process's CPU (not wall time: on a busy machine
 * a worker's work takes its CPU however long it waits for it). */
static void worker_think(int think_us)
{
	double end = clock_s(CLOCK_PROCESS_CPUTIME_ID) + think_us / 1e6;
	volatile unsigned spin = 0;
	while (clock_s(CLOCK_PROCESS_CPUTIME_ID) < end)
		for (int i = 0; i < 10000; i++) /* the clock is a system call: not too often */
			spin++;
}

static void worker_run(int sock, int go, int k, int think_us)
{
	static unsigned char req[IPC_HDR_SIZE + MAX_LEN], ans[IPC_HDR_SIZE + MAX_LEN];
	memset(req + IPC_HDR_SIZE, 'r', MAX_LEN);
	char c;
	if (read(go, &c, 1) < 0) /* EOF when the relay is ready */
		die("worker go");
	for (int i = 0; i < k; i++) {
		if (think_us > 0)
			worker_think(think_us);
		uint32_t rl = sz->req[i % 12], al = sz->ans[i % 12];
		ipc_hdr h = {.type = 1, .len = rl, .id = (uint32_t)i}, a;
		ipc_hdr_encode(&h, req);
		for (int b = 0; b < 4; b++)
			req[IPC_HDR_SIZE + b] = (unsigned char)(al >> (8 * b));
		write_all(sock, req, IPC_HDR_SIZE + rl);
		if (read_all(sock, ans, IPC_HDR_SIZE) < 0 || ipc_hdr_decode(ans, MAX_LEN, &a, NULL) < 0 ||
		    a.len != al || read_all(sock, ans + IPC_HDR_SIZE, a.len) < 0)
			die("worker: relay closed");
	}
	close(sock);
}

/* ---- the relay ---- */

/* The audit log's sync thread: group commit as supervisor/audit.c does. */
typedef struct syncer {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fd, efd, stop;
	uint64_t written; /* intents written (sequence numbers 1..written) */
	uint64_t synced;  /* every intent up to this is durable */
	uint64_t nsyncs;
} syncer;

static void *syncer_main(void *arg)
{
	syncer *s = arg;
	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->stop && s->written == s->synced)
			pthread_cond_wait(&s->cv, &s->mu);
		if (s->stop)
			break;
		uint64_t upto = s->written;
		pthread_mutex_unlock(&s->mu);
		if (fdatasync(s->fd) < 0)
			die("fdatasync");
		pthread_mutex_lock(&s->mu);
		s->synced = upto;
		s->nsyncs++;
		uint64_t one = 1;
		if (write(s->efd, &one, sizeof one) < 0)
			die("eventfd write");
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

typedef struct conn {
	int fd;
	unsigned char in[IPC_HDR_SIZE + MAX_LEN];
	size_t have;
	uint32_t nreq;
	uint64_t wait_seq; /* a mutation waiting for this intent's sync (0: none) */
	unsigned char req[IPC_HDR_SIZE + MAX_LEN];
	int req_n; /* req's bytes */
} conn;

typedef struct relay {
	SSL *ssl;
	int tls_fd, audit_fd, mut;
	syncer sy;
	conn w[MAX_WORKERS];
	int nw, nw_live;
	char line[LINE_LEN];
	unsigned char tin[4 * MAX_LEN];
	size_t thave;
	uint64_t nreq;
} relay;

static void audit_line(relay *r, char kind, uint32_t id)
{
	/* the rest of the line stays as made at start: a record's size is what costs */
	int n = snprintf(r->line, 32, "%c %010u ", kind, id);
	r->line[n] = ' '; /* over snprintf's NUL */
	write_all(r->audit_fd, r->line, sizeof r->line);
}

static void tls_send(relay *r, const unsigned char *p, int n)
{
	for (;;) {
		int w = SSL_write(r->ssl, p, n);
		if (w == n)
			return;
		int e = SSL_get_error(r->ssl, w);
		if (e != SSL_ERROR_WANT_WRITE && e != SSL_ERROR_WANT_READ)
			die("relay SSL_write");
		struct pollfd pf = {.fd = r->tls_fd, .events = e == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN};
		poll(&pf, 1, -1); /* same buffer, same length: OpenSSL's retry rule */
	}
}

/* A worker's request: intent line; a read goes at once, a mutation after
 * its intent's sync. The id on the TLS connection names the worker. */
static void relay_request(relay *r, int i)
{
	conn *c = &r->w[i];
	ipc_hdr h;
	ipc_hdr_decode(c->in, MAX_LEN, &h, NULL);
	uint32_t id = (uint32_t)i;
	audit_line(r, 'I', id);
	ipc_hdr t = {.type = h.type, .len = h.len, .id = id};
	ipc_hdr_encode(&t, c->req);
	memcpy(c->req + IPC_HDR_SIZE, c->in + IPC_HDR_SIZE, h.len);
	c->req_n = IPC_HDR_SIZE + (int)h.len;
	if ((int)(c->nreq++ % 12) < r->mut) {
		pthread_mutex_lock(&r->sy.mu);
		c->wait_seq = ++r->sy.written;
		pthread_cond_signal(&r->sy.cv);
		pthread_mutex_unlock(&r->sy.mu);
		return;
	}
	tls_send(r, c->req, c->req_n);
}

/* Worker readable: recvmsg what it holds; a whole frame is relayed. */
static void relay_worker(relay *r, int i, int ep)
{
	conn *c = &r->w[i];
	struct iovec iov = {c->in + c->have, sizeof c->in - c->have};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n = recvmsg(c->fd, &mh, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
		c->fd = -1;
		r->nw_live--;
		return;
	}
	c->have += (size_t)n;
	ipc_hdr h;
	if (c->have < IPC_HDR_SIZE)
		return;
	if (ipc_hdr_decode(c->in, MAX_LEN, &h, NULL) < 0)
		die("relay: bad request");
	if (c->have < IPC_HDR_SIZE + h.len)
		return;
	if (c->have != IPC_HDR_SIZE + h.len)
		die("worker sent more than one request");
	relay_request(r, i);
	c->have = 0;
}

/* The sync thread's eventfd: send every mutation its sync now covers. */
static void relay_synced(relay *r, int efd)
{
	uint64_t v;
	if (read(efd, &v, sizeof v) < 0)
		die("eventfd read");
	pthread_mutex_lock(&r->sy.mu);
	uint64_t synced = r->sy.synced;
	pthread_mutex_unlock(&r->sy.mu);
	for (int i = 0; i < r->nw; i++) {
		conn *c = &r->w[i];
		if (c->wait_seq && c->wait_seq <= synced) {
			c->wait_seq = 0;
			tls_send(r, c->req, c->req_n);
		}
	}
}

/* TLS readable: every whole answer gets its outcome line and goes to its
 * worker with one sendmsg. */
static void relay_answers(relay *r)
{
	for (;;) {
		int n = SSL_read(r->ssl, r->tin + r->thave, (int)(sizeof r->tin - r->thave));
		if (n <= 0) {
			int e = SSL_get_error(r->ssl, n);
			if (e == SSL_ERROR_WANT_READ)
				return;
			die("relay SSL_read");
		}
		r->thave += (size_t)n;
		size_t off = 0;
		while (r->thave - off >= IPC_HDR_SIZE) {
			ipc_hdr h;
			if (ipc_hdr_decode(r->tin + off, MAX_LEN, &h, NULL) < 0 || h.id >= MAX_WORKERS)
				die("relay: bad answer");
			if (r->thave - off < IPC_HDR_SIZE + h.len)
				break;
			conn *c = &r->w[h.id];
			audit_line(r, 'O', h.id);
			ipc_hdr a = {.type = h.type, .len = h.len, .id = c->nreq - 1};
			unsigned char hdr[IPC_HDR_SIZE];
			ipc_hdr_encode(&a, hdr);
			struct iovec iov[2] = {{hdr, sizeof hdr}, {r->tin + off + IPC_HDR_SIZE, h.len}};
			struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2};
			if (sendmsg(c->fd, &mh, MSG_NOSIGNAL) != (ssize_t)(IPC_HDR_SIZE + h.len))
				die("relay sendmsg"); /* the worker waits: its socket buffer is empty */
			r->nreq++;
			off += IPC_HDR_SIZE + h.len;
		}
		memmove(r->tin, r->tin + off, r->thave - off);
		r->thave -= off;
	}
}

typedef struct result {
	double wall, user, sys, sync_cpu;
	uint64_t nreq, nsyncs, nmut;
} result;

static void relay_run(int port, const int *socks, int nw, int mut, const char *dir, int ready, int out)
{
	static relay r;
	r.mut = mut;
	r.nw = r.nw_live = nw;
	memset(r.line, 'x', sizeof r.line);
	r.line[sizeof r.line - 1] = '\n';
	char path[4096];
	snprintf(path, sizeof path, "%s/audit.log", dir);
	r.audit_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (r.audit_fd < 0)
		die(path);

	r.tls_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (r.tls_fd < 0 || connect(r.tls_fd, (struct sockaddr *)&sa, sizeof sa) < 0)
		die("connect");
	tcp_nodelay(r.tls_fd);
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
	r.ssl = SSL_new(ctx);
	SSL_set_fd(r.ssl, r.tls_fd);
	if (SSL_connect(r.ssl) != 1)
		die("SSL_connect");
	fcntl(r.tls_fd, F_SETFL, fcntl(r.tls_fd, F_GETFL) | O_NONBLOCK);

	int ep = epoll_create1(EPOLL_CLOEXEC);
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ep < 0 || efd < 0)
		die("epoll/eventfd");
	struct epoll_event ev = {.events = EPOLLIN};
	for (int i = 0; i < nw; i++) {
		r.w[i].fd = socks[i];
		ev.data.u32 = (uint32_t)i;
		epoll_ctl(ep, EPOLL_CTL_ADD, socks[i], &ev);
	}
	ev.data.u32 = MAX_WORKERS;
	epoll_ctl(ep, EPOLL_CTL_ADD, r.tls_fd, &ev);
	ev.data.u32 = MAX_WORKERS + 1;
	epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev);

	pthread_mutex_init(&r.sy.mu, NULL);
	pthread_cond_init(&r.sy.cv, NULL);
	r.sy.fd = r.audit_fd;
	r.sy.efd = efd;
	pthread_t th;
	clockid_t thclock;
	if (pthread_create(&th, NULL, syncer_main, &r.sy) != 0 || pthread_getcpuclockid(th, &thclock) != 0)
		die("sync thread");

	struct rusage ru0, ru1;
	double sync0 = clock_s(thclock);
	getrusage(RUSAGE_SELF, &ru0);
	double t0 = now_s();
	close(ready); /* the workers go */
	struct epoll_event evs[64];
	while (r.nw_live > 0) {
		int n = epoll_wait(ep, evs, 64, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("epoll_wait");
		for (int i = 0; i < n; i++) {
			uint32_t k = evs[i].data.u32;
			if (k == MAX_WORKERS)
				relay_answers(&r);
			else if (k == MAX_WORKERS + 1)
				relay_synced(&r, efd);
			else
				relay_worker(&r, (int)k, ep);
		}
	}
	double t1 = now_s();
	getrusage(RUSAGE_SELF, &ru1);
	result res = {.wall = t1 - t0, .user = tv_s(ru1.ru_utime) - tv_s(ru0.ru_utime),
		      .sys = tv_s(ru1.ru_stime) - tv_s(ru0.ru_stime), .sync_cpu = clock_s(thclock) - sync0,
		      .nreq = r.nreq, .nsyncs = r.sy.nsyncs, .nmut = r.sy.written};
	pthread_mutex_lock(&r.sy.mu);
	r.sy.stop = 1;
	pthread_cond_signal(&r.sy.cv);
	pthread_mutex_unlock(&r.sy.mu);
	pthread_join(th, NULL);
	write_all(out, &res, sizeof res);
	SSL_shutdown(r.ssl);
	SSL_free(r.ssl);
	SSL_CTX_free(ctx);
}

/* ---- one run: server, relay, workers ---- */

static pid_t fork_or_die(void)
{
	pid_t p = fork();
	if (p < 0)
		die("fork");
	return p;
}

static result run_once(SSL_CTX *sctx, int nw, int k, int mut, int think_us, const char *dir)
{
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof sa;
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 1) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl) < 0)
		die("listen");
	pid_t server = fork_or_die();
	if (server == 0) {
		server_run(sctx, lfd);
		_exit(0);
	}
	close(lfd);

	int socks[MAX_WORKERS], wsocks[MAX_WORKERS], go[2], res[2];
	for (int i = 0; i < nw; i++) {
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) /* as supervisor/spawn.c */
			die("socketpair");
		socks[i] = sv[0];
		wsocks[i] = sv[1];
	}
	if (pipe(go) < 0 || pipe(res) < 0)
		die("pipe");
	pid_t workers[MAX_WORKERS];
	for (int i = 0; i < nw; i++) {
		workers[i] = fork_or_die();
		if (workers[i] == 0) {
			close(go[1]); /* and the other workers' sockets: a relay sees EOF when its worker ends */
			for (int j = 0; j < nw; j++) {
				close(socks[j]);
				if (j > i)
					close(wsocks[j]);
			}
			worker_run(wsocks[i], go[0], k, think_us);
			_exit(0);
		}
		close(wsocks[i]);
	}
	close(go[0]);
	pid_t rel = fork_or_die();
	if (rel == 0) {
		close(res[0]);
		relay_run(ntohs(sa.sin_port), socks, nw, mut, dir, go[1], res[1]);
		_exit(0);
	}
	close(go[1]);
	close(res[1]);
	for (int i = 0; i < nw; i++)
		close(socks[i]);
	result r;
	if (read_all(res[0], &r, sizeof r) < 0) {
		errno = EPIPE;
		die("the relay gave no result");
	}
	close(res[0]);
	int st, bad = 0;
	for (int i = 0; i < nw; i++)
		if (waitpid(workers[i], &st, 0) < 0 || st != 0)
			bad = 1;
	if (waitpid(rel, &st, 0) < 0 || st != 0 || waitpid(server, &st, 0) < 0 || st != 0)
		bad = 1;
	if (bad) {
		errno = ECHILD;
		die("a process of the run failed");
	}
	char path[4096];
	snprintf(path, sizeof path, "%s/audit.log", dir);
	unlink(path);
	return r;
}

static double cpu_per_req(const result *r)
{
	return (r->user + r->sys) / (double)r->nreq;
}

static int by_cpu(const void *a, const void *b)
{
	double x = cpu_per_req(a), y = cpu_per_req(b);
	return (x > y) - (x < y);
}

static void print_header(void)
{
	printf("%7s %6s %7s %6s %8s %8s %9s %8s %8s %11s %9s %10s %8s\n", "workers", "think", "req", "mut", "wall_s", "req/s",
	       "relay_us", "user_us", "sys_us", "ms/install", "fsyncs", "mut/fsync", "us/fsync");
}

static int arg_int(const char *s, int lo, int hi, const char *name)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "bench_relay: %s must be %d..%d, not %s\n", name, lo, hi, s);
		exit(2);
	}
	return (int)v;
}

int main(int argc, char **argv)
{
	int nw = 10, k = 1200, mut = 5, runs = 5, think_us = 0;
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	if (argc == 2 && strcmp(argv[1], "--header") == 0) {
		print_header();
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc) {
			fprintf(stderr, "usage: bench_relay [-w WORKERS] [-k REQUESTS] [-m MUTATIONS] [-r RUNS] [-t THINK_US] [-d DIR] [-s small|install]\n");
			return 2;
		}
		const char *o = argv[i], *v = argv[++i];
		if (strcmp(o, "-w") == 0)
			nw = arg_int(v, 1, MAX_WORKERS, "-w");
		else if (strcmp(o, "-k") == 0)
			k = arg_int(v, 1, 10000000, "-k");
		else if (strcmp(o, "-m") == 0)
			mut = arg_int(v, 0, 12, "-m");
		else if (strcmp(o, "-r") == 0)
			runs = arg_int(v, 1, MAX_RUNS, "-r");
		else if (strcmp(o, "-t") == 0)
			think_us = arg_int(v, 0, 1000000, "-t");
		else if (strcmp(o, "-d") == 0)
			dir = v;
		else if (strcmp(o, "-s") == 0 && (strcmp(v, "small") == 0 || strcmp(v, "install") == 0))
			sz = strcmp(v, "small") == 0 ? &sizes_small : &sizes_install;
		else {
			fprintf(stderr, "bench_relay: unknown option %s\n", o);
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	SSL_CTX *sctx = server_ctx_new();
	result rs[MAX_RUNS];
	for (int i = 0; i < runs; i++)
		rs[i] = run_once(sctx, nw, k, mut, think_us, dir);
	qsort(rs, (size_t)runs, sizeof rs[0], by_cpu);
	const result *m = &rs[runs / 2];
	double n = (double)m->nreq;
	printf("%7d %6d %7llu %3d/12 %8.2f %8.0f %9.1f %8.1f %8.1f %11.3f %9llu %10.2f %8.1f\n", nw, think_us,
	       (unsigned long long)m->nreq, mut, m->wall, n / m->wall, cpu_per_req(m) * 1e6, m->user / n * 1e6,
	       m->sys / n * 1e6, cpu_per_req(m) * 12 * 1e3, (unsigned long long)m->nsyncs,
	       m->nsyncs ? (double)m->nmut / (double)m->nsyncs : 0.0,
	       m->nsyncs ? m->sync_cpu / (double)m->nsyncs * 1e6 : 0.0);
	SSL_CTX_free(sctx);
	return 0;
}
