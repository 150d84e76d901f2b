/* supervisor/forward.c — see forward.h. The main loop's thread sends every
 * request to the API server on one libcurl multi handle (kube_curl_multi),
 * whose sockets are in that loop's poll set (fwd_fds, fwd_run): each
 * request is a transfer of its own (a transport from a small idle pool, its
 * connection from the multi handle's cache), so a slow one holds only its
 * own connection. A request waits for its intent record to be durable
 * without anyone waiting on the disk: held here, it is handed to the
 * loop when the audit log's sync thread says so (audit_sync_async).
 * Retries are kube_request_send's (kube_retry_wait), as timers of the
 * loop instead of sleeps. No thread of its own: a request read from a
 * worker, sent, answered and written back to the worker costs no hand-off
 * between threads (each one a sleep and a wake-up on both sides). A remote cluster's request (its own client,
 * whose credential plugin may run) goes on a thread of its own.
 *
 * When the API server is one kube/h2.h serves exactly as libcurl would
 * (https, by address or name, no proxy: kube_h2_usable), the loop's requests go
 * instead as streams of one HTTP/2 connection of kube/h2.c, its socket in
 * the same poll set: a fraction of libcurl's instructions and system calls
 * per request. A server that does not negotiate h2 sends the requests back
 * here unsent, and from then on every request goes by libcurl. */
#include "supervisor/forward.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <time.h>
#include <unistd.h>

#include "kube/curl.h"
#include "kube/h2.h"
#include "kube/kube.h"
#include "supervisor/acl.h"
#include "supervisor/audit.h"
#include "supervisor/broker.h"
#include "supervisor/broker_watch.h"
#include "supervisor/log.h"

#define FWD_TIMEOUT_MS 30000
#define FWD_IDLE_KEEP 16 /* transports kept for the next requests */
/* At most this many of the supervisor's own requests (fwd_own_send) are
 * under way at once (sent, or waiting for a retry): each holds a libcurl
 * handle, its buffers and an HTTP/2 stream, and 1000 objects' finalizers
 * all queued at start-up would otherwise send 256 at once (status.c's
 * queues; the supervisor's peak RSS at 1000 HelmReleases: 34 MiB with 256,
 * within 32 MiB with 16). The others wait their turn, in order. */
#define FWD_OWN_INFLIGHT 16

/* A request being sent (the loop's own). */
typedef struct fx {
	fwd_req *f;         /* a worker's, or NULL: the supervisor's own (fwd_own_send) */
	fwd_own_fn own;     /* called with the outcome of an own request */
	void *own_ud;
	kube_transport *t; /* while an attempt runs on libcurl (NULL on h2) */
	kube_request req;
	kube_response resp;
	char user_h[ACL_IDENTITY_MAX + 32];
	const char *headers[2];
	int attempt;        /* attempts made */
	long start, slept;  /* now_ms of the first; waits asked for since */
	long due;           /* a retry's time (now_ms) */
	double t0;
	struct fx *next;
	STAILQ_ENTRY(fx) wait; /* an own request waiting for its turn (own_waiting) */
} fx;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
/* under mu */
typedef STAILQ_HEAD(fwd_list, fwd_req) fwd_list;
static fwd_list ready = STAILQ_HEAD_INITIALIZER(ready); /* intents durable (or failed): to send */
static fwd_list held = STAILQ_HEAD_INITIALIZER(held);   /* waiting for their intent's sync */
static fwd_list done = STAILQ_HEAD_INITIALIZER(done);   /* answered, for fwd_take_done */
static void (*wake)(void); /* the loop's (fwd_start) */
static pthread_t loop_thread; /* the one that called fwd_start and runs fwd_run */
static kube_config *fwd_cfg;
static kube_curl_multi *multi;
static kube_h2 *h2; /* the direct HTTP/2 client, or NULL: libcurl alone */
static struct pollfd *fds;  /* fwd_fds' entries: libcurl's, then h2's */
static size_t fds_cap, fds_ncurl;
/* the loop's own */
static fx *running, *retrying;
static STAILQ_HEAD(, fx) own_waiting = STAILQ_HEAD_INITIALIZER(own_waiting); /* own requests beyond FWD_OWN_INFLIGHT */
static unsigned own_inflight; /* own requests under way (at most FWD_OWN_INFLIGHT) */
static int sync_wanted; /* intents written this turn wait for a sync not yet asked for */
static kube_transport *idle[FWD_IDLE_KEEP];
static int nidle;
static const kube_retry_policy policy = KUBE_RETRY_DEFAULT;
static void (*turn_hook)(void); /* fwd_hook_set */

void fwd_req_free(fwd_req *r)
{
	if (!r)
		return;
	free(r->key);
	free(r->identity);
	free(r->cluster);
	kube_config_free(r->remote);
	proto_kube_request_free(&r->r);
	bh_buf_free(&r->body);
	free(r);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static double rand01(void *ud)
{
	(void)ud;
	return (double)random() / ((double)RAND_MAX + 1.0);
}

/* f's request as the API server gets it: its headers, and the tenant's
 * identity (the user alone: the API server gives an impersonated
 * ServiceAccount its groups, system:serviceaccounts,
 * system:serviceaccounts:<ns>, system:authenticated, and the controller
 * may impersonate nothing else, deploy/bulkhead.yaml). -1 with f->error
 * set when the identity does not fit. */
static int build_request(fwd_req *f, kube_request *req, char *user_h, size_t user_n, const char *headers[2])
{
	memset(req, 0, sizeof *req);
	req->method = f->r.method;
	req->path = f->r.path;
	req->content_type = proto_kube_request_header(&f->r, "Content-Type");
	req->accept = proto_kube_request_header(&f->r, "Accept");
	req->body = f->r.body_len ? (const char *)f->r.body : NULL;
	req->body_len = f->r.body_len;
	req->timeout_ms = FWD_TIMEOUT_MS;
	return fwd_impersonate(f, req, user_h, user_n, headers);
}

int fwd_impersonate(fwd_req *f, kube_request *req, char *user_h, size_t user_n, const char *headers[2])
{
	headers[0] = headers[1] = NULL;
	if (f->identity) {
		if ((size_t)snprintf(user_h, user_n, "Impersonate-User: %s", f->identity) >= user_n) {
			f->status = 0;
			snprintf(f->error, sizeof f->error, "the identity to impersonate is too long");
			return -1;
		}
		headers[0] = user_h;
		req->headers = headers;
	}
	return 0;
}

/* The outcome record of f; a failure withholds the answer. */
static void record_outcome(fwd_req *f)
{
	bh_error e;
	audit_rec rec = {"outcome", f->audit_id, f->key, f->identity, f->verb ? f->verb : broker_verb(f->r.method, f->r.path),
			 f->r.path, f->status, f->ms, f->status ? NULL : f->error, f->cluster};
	if (audit_write_outcome(&rec, &e) < 0)
		snprintf(f->audit_error, sizeof f->audit_error, "%.500s", e.msg[0] ? e.msg : "audit log: not written");
}

/* ---- a remote cluster's request: a thread and a client of its own ------- */

static void *remote_main(void *arg)
{
	fwd_req *f = arg;
	bh_error e;
	kube_client *rc;
	if (f->audit_error[0]) { /* its intent's sync failed: never sent */
		fwd_done(f);
		return NULL;
	}
	if ((rc = kube_curl_client_new(f->remote, &e))) {
		kube_request req;
		kube_response resp = KUBE_RESPONSE_INIT;
		char user_h[ACL_IDENTITY_MAX + 32];
		const char *headers[2];
		double t0 = now_ms();
		kube_client_set_timeout(rc, FWD_TIMEOUT_MS);
		if (build_request(f, &req, user_h, sizeof user_h, headers) == 0) {
			if (kube_request_send(rc, &req, &resp, &e) < 0) {
				f->status = 0;
				snprintf(f->error, sizeof f->error, "%.500s", e.msg);
			} else {
				f->status = resp.status;
				f->body = resp.body;
				bh_buf_init(&resp.body);
			}
		}
		kube_response_free(&resp);
		f->ms = now_ms() - t0;
		kube_client_free(rc);
	} else {
		f->status = 0;
		snprintf(f->error, sizeof f->error, "remote cluster: %.480s", e.msg);
	}
	record_outcome(f);
	fwd_done(f);
	return NULL;
}

/* ---- on the loop's thread ------------------------------------------------- */

/* An own request goes: its first attempt at the next run_retries (fwd_run),
 * never from here. */
static void own_go(fx *x)
{
	own_inflight++;
	x->t0 = now_ms();
	x->start = (long)x->t0;
	x->due = x->start;
	x->next = retrying;
	retrying = x;
}

/* Own requests waiting go, in order, as far as there is room. */
static void own_next(void)
{
	fx *x;
	while (own_inflight < FWD_OWN_INFLIGHT && (x = STAILQ_FIRST(&own_waiting))) {
		STAILQ_REMOVE_HEAD(&own_waiting, wait);
		own_go(x);
	}
}

/* x's attempt ended (rc, err as a transport's request returns them): sent
 * again later (a retry), or answered. */
static void attempt_ended(fx *x, int rc, const bh_error *err)
{
	fwd_req *f = x->f;
	const char *why;
	long now = (long)now_ms(), used = now - x->start, wait;
	if (x->t) { /* back to the pool (a connection that may not be reused was closed by kube/curl.c) */
		if (nidle < FWD_IDLE_KEEP)
			idle[nidle++] = x->t;
		else
			kube_transport_free(x->t);
		x->t = NULL;
	}
	if (x->slept > used)
		used = x->slept;
	if ((wait = kube_retry_wait(&policy, rand01, NULL, &x->req, x->attempt, rc, &x->resp, used, &why)) >= 0) {
		x->due = now + wait;
		x->slept += wait;
		x->next = retrying;
		retrying = x;
		return;
	}
	if (!f) { /* the supervisor's own: its outcome to its caller */
		bh_error e2;
		char gave[160];
		gave[0] = '\0';
		if (why && rc < 0) {
			char words[BH_ERROR_MSG_MAX];
			e2 = *err;
			kube_giveup_text(words, sizeof words, x->req.method, x->req.path, x->attempt, why);
			bh_error_prefix(&e2, "%s", words);
			err = &e2;
		} else if (why) { /* as kube_client_response_error says it */
			kube_giveup_text(gave, sizeof gave, NULL, NULL, x->attempt, why);
		}
		own_inflight--; /* a request the caller sends from its outcome takes the turn at once */
		x->own(x->own_ud, rc < 0 ? rc : 0, &x->resp, rc < 0 ? err : NULL, gave[0] ? gave : NULL);
		kube_response_free(&x->resp);
		free(x);
		own_next();
		return;
	}
	if (rc < 0) {
		f->status = 0;
		if (why) {
			char words[300];
			kube_giveup_text(words, sizeof words, f->r.method, f->r.path, x->attempt, why);
			snprintf(f->error, sizeof f->error, "%s: %.200s", words, err->msg);
		} else
			snprintf(f->error, sizeof f->error, "%.500s", err->msg);
	} else {
		f->status = x->resp.status;
		f->body = x->resp.body;
		bh_buf_init(&x->resp.body);
	}
	kube_response_free(&x->resp);
	f->ms = now_ms() - x->t0;
	record_outcome(f);
	fwd_done(f);
	free(x);
}

static void h2_end(void *sud, int rc, const bh_error *err, int sent);

/* Starts x's next attempt on a transport of the pool (or a new one). */
static void attempt(fx *x)
{
	bh_error e;
	int rc;
	x->attempt++;
	kube_response_free(&x->resp);
	x->resp = (kube_response)KUBE_RESPONSE_INIT;
	if (h2 && !kube_h2_refused(h2)) {
		if ((rc = kube_h2_add(h2, &x->req, &x->resp, NULL, h2_end, x, &e)) < 0) {
			attempt_ended(x, rc, &e);
			return;
		}
		x->next = running;
		running = x;
		return;
	}
	if (!(x->t = nidle ? idle[--nidle] : kube_curl_transport_new(fwd_cfg, &e))) {
		attempt_ended(x, e.code ? e.code : BH_EIO, &e);
		return;
	}
	if ((rc = kube_curl_multi_add(multi, x->t, &x->req, &x->resp, NULL, x, &e)) < 0) {
		attempt_ended(x, rc, &e);
		return;
	}
	x->next = running;
	running = x;
}

/* f, its intent durable or failed: sent, or answered at once. */
static void start(fwd_req *f)
{
	fx *x;
	if (f->audit_error[0]) { /* fail closed: never sent */
		fwd_done(f);
		return;
	}
	if (!(x = calloc(1, sizeof *x))) {
		f->status = 0;
		snprintf(f->error, sizeof f->error, "out of memory");
		record_outcome(f);
		fwd_done(f);
		return;
	}
	x->f = f;
	x->t0 = now_ms();
	x->start = (long)now_ms();
	if (build_request(f, &x->req, x->user_h, sizeof x->user_h, x->headers) < 0) {
		record_outcome(f);
		fwd_done(f);
		free(x);
		return;
	}
	attempt(x);
}

static void on_end(void *ud, kube_transport *t, int rc, const bh_error *err)
{
	fx **pp, *x;
	(void)ud;
	for (pp = &running; *pp && (*pp)->t != t; pp = &(*pp)->next)
		;
	if (!(x = *pp))
		return;
	*pp = x->next;
	attempt_ended(x, rc, err);
}

/* kube/h2.c's end of x's attempt; one never sent to a server that does not
 * speak h2 goes again, by libcurl. */
static void h2_end(void *sud, int rc, const bh_error *err, int sent)
{
	fx **pp, *x = sud;
	for (pp = &running; *pp && *pp != x; pp = &(*pp)->next)
		;
	if (!*pp)
		return;
	*pp = x->next;
	if (!sent && kube_h2_refused(h2)) {
		x->attempt--;
		attempt(x);
		return;
	}
	attempt_ended(x, rc, err);
}

/* Retries that are due start. */
static void run_retries(void)
{
	long now = (long)now_ms();
	fx **pp = &retrying, *due = NULL;
	while (*pp) {
		fx *x = *pp;
		if (x->due <= now) {
			*pp = x->next;
			x->next = due;
			due = x;
		} else {
			pp = &x->next;
		}
	}
	while (due) {
		fx *x = due;
		due = x->next;
		attempt(x);
	}
}

/* The wait until the next retry is due (0: one is; -1: none waits). */
static long retry_wait(void)
{
	long now = (long)now_ms(), next = -1;
	for (const fx *x = retrying; x; x = x->next)
		if (next < 0 || x->due - now < next)
			next = x->due > now ? x->due - now : 0;
	return next;
}

/* Under mu: has f's intent a sync's verdict (durable, or lost: then
 * f->audit_error says why and f is answered unsent)? */
static int synced(fwd_req *f)
{
	bh_error e;
	int d = audit_durable(f->audit_seq, &e);
	if (d < 0)
		snprintf(f->audit_error, sizeof f->audit_error, "%.500s", e.msg[0] ? e.msg : "audit log: not synced");
	return d != 0;
}

/* Is the caller the loop's thread (which looks at the lists before it
 * polls again, fwd_fds: no wake-up needed)? */
static int on_loop(void)
{
	return pthread_equal(pthread_self(), loop_thread);
}

/* Another thread's hand-over (once per batch) wakes the loop. */
static void wake_loop(void)
{
	wake();
}

/* A wake of the loop owed by to_thread, made by hand_on once mu is
 * released: woken under mu, the loop would only wait for it. */
static int wake_owed;

/* Under mu: f to the loop (fwd_run). */
static void to_thread(fwd_req *f)
{
	int first = STAILQ_EMPTY(&ready);
	STAILQ_INSERT_TAIL(&ready, f, link);
	if (first && !on_loop())
		__atomic_store_n(&wake_owed, 1, __ATOMIC_RELEASE);
}

/* f's intent is durable, or its sync failed: a watch to the watch thread
 * (broker_watch.h), a remote cluster's request to a thread of its own, any
 * other to the loop (fwd_run). Under mu; later collects those that
 * must be handed on after mu is released (their own locks, a thread). */
static void to_ready(fwd_req *f, fwd_list *later)
{
	if (f->remote || broker_is_watch(f->r.path)) {
		STAILQ_INSERT_HEAD(later, f, link);
	} else {
		to_thread(f);
	}
}

static void start_remote(fwd_req *f)
{
	pthread_t th;
	if (pthread_create(&th, NULL, remote_main, f) != 0) {
		f->status = 0;
		snprintf(f->error, sizeof f->error, "cannot start a thread for the remote cluster's request");
		record_outcome(f);
		fwd_done(f);
		return;
	}
	pthread_detach(th);
}

/* Hands on what to_ready left for after mu (and wakes the loop for what it
 * gave the loop). */
static void hand_on(fwd_list *l)
{
	fwd_req *f;
	if (__atomic_exchange_n(&wake_owed, 0, __ATOMIC_ACQ_REL))
		wake_loop();
	while ((f = STAILQ_FIRST(l))) {
		STAILQ_REMOVE_HEAD(l, link);
		if (broker_is_watch(f->r.path))
			bwatch_submit(f);
		else
			start_remote(f);
	}
}

/* No sync can be asked for: the held requests are answered unsent. */
static void fail_held(const bh_error *e)
{
	fwd_list later = STAILQ_HEAD_INITIALIZER(later);
	fwd_req *f;
	svlog(SVLOG_ERROR, "%s", e->msg);
	pthread_mutex_lock(&mu);
	while ((f = STAILQ_FIRST(&held))) {
		STAILQ_REMOVE_HEAD(&held, link);
		snprintf(f->audit_error, sizeof f->audit_error, "%.500s", e->msg);
		to_ready(f, &later);
	}
	pthread_mutex_unlock(&mu);
	hand_on(&later);
}

/* The audit log's sync thread ended a sync: held requests whose intent it
 * made durable (or failed) go to the loop; the others (written after it
 * began) wait for the next one. */
static void on_synced(void *ud)
{
	fwd_list l = STAILQ_HEAD_INITIALIZER(l), later = STAILQ_HEAD_INITIALIZER(later);
	fwd_req *f, *still = NULL;
	bh_error e;
	(void)ud;
	pthread_mutex_lock(&mu);
	STAILQ_CONCAT(&l, &held);
	while ((f = STAILQ_FIRST(&l))) { /* in order: the ones still waiting stay so */
		STAILQ_REMOVE_HEAD(&l, link);
		if (synced(f)) {
			to_ready(f, &later);
		} else {
			still = f;
			STAILQ_INSERT_TAIL(&held, f, link);
		}
	}
	pthread_mutex_unlock(&mu);
	hand_on(&later);
	if (still && audit_sync_async(on_synced, NULL, &e) < 0)
		fail_held(&e);
}

void fwd_done(fwd_req *f)
{
	int first;
	pthread_mutex_lock(&mu);
	first = STAILQ_EMPTY(&done);
	STAILQ_INSERT_TAIL(&done, f, link);
	pthread_mutex_unlock(&mu);
	/* one byte per batch: the main loop drains the pipe before it takes
	 * the answers, so a byte is needed only when the list was empty; none
	 * from the loop itself, which takes them before it polls (fwd_fds) */
	if (first && !on_loop())
		wake_loop();
}

const kube_config *fwd_config(void)
{
	return fwd_cfg;
}

kube_h2 *fwd_h2(void)
{
	return h2;
}

/* Asks for the sync the loop's requests of this turn wait for: one per
 * turn, not one per request, so one sync (and one hand-over back) covers
 * every intent the turn wrote. */
static void ask_sync(void)
{
	bh_error e;
	if (!sync_wanted)
		return;
	sync_wanted = 0;
	if (audit_sync_async(on_synced, NULL, &e) < 0)
		fail_held(&e); /* no sync: never sent */
}

int fwd_start(const kube_config *cfg, int n, void (*wake_fn)(void), bh_error *err)
{
	bh_error e;
	wake = wake_fn;
	loop_thread = pthread_self();
	if (!(fwd_cfg = kube_config_dup(cfg, err)) || !(multi = kube_curl_multi_new(err)))
		return err ? err->code : BH_ENOMEM;
	/* the controller's CA and client certificate decoded once, not per
	 * new connection (a watch's, which cancelling closes); without it
	 * every connection decodes them, as before */
	if (kube_curl_tls_identity_set(cfg, &e) < 0)
		svlog(SVLOG_DEBUG, "%s", e.msg);
	const char *why;
	if (!kube_h2_usable(cfg, &why))
		svlog(SVLOG_DEBUG, "forwarding by libcurl: %s", why);
	else if (!(h2 = kube_h2_new(cfg, &(kube_h2_options){.forget = kube_curl_multi_forget, .write_before_poll = 1}, &e)))
		svlog(SVLOG_DEBUG, "forwarding by libcurl: %s", e.msg);
	else
		svlog(SVLOG_DEBUG, "forwarding over HTTP/2 (kube/h2.c) to %s", cfg->server);
	for (int i = 0; i < n && i < FWD_IDLE_KEEP; i++) { /* connections for the first n at a time */
		if (!(idle[nidle] = kube_curl_transport_new(cfg, err)))
			return err ? err->code : BH_EIO;
		nidle++;
	}
	return 0;
}

/* The requests ready to go (their intents durable), and the retries and
 * own requests due, start. */
static void start_ready(void)
{
	fwd_list l = STAILQ_HEAD_INITIALIZER(l);
	fwd_req *f;
	pthread_mutex_lock(&mu);
	STAILQ_CONCAT(&l, &ready);
	pthread_mutex_unlock(&mu);
	while ((f = STAILQ_FIRST(&l))) {
		STAILQ_REMOVE_HEAD(&l, link);
		start(f);
	}
	run_retries();
}

const struct pollfd *fwd_fds(size_t *n, int *timeout_ms)
{
	if (turn_hook)
		turn_hook();
	ask_sync();
	/* on h2, what is ready goes before the poll, its frames written now
	 * with every other frame of the turn (write_before_poll: fwd_run's
	 * dispatch writes only on POLLOUT): the poll then waits for the
	 * server's answer, not a turn of its own (a wait of 0 ms that finds
	 * nothing) for the writes after it, and one turn makes one write. At
	 * 300 installs: 1.3 of the loop's 20 epoll_waits per install.
	 * libcurl's transfers keep their first step after the poll (its
	 * timer, due now). */
	if (h2) {
		if (!kube_h2_refused(h2))
			start_ready();
		kube_h2_flush(h2);
	}
	const struct pollfd *pfd = kube_curl_multi_fds(multi, n, timeout_ms);
	int pending;
	if (h2) { /* h2's socket after libcurl's */
		size_t nh;
		int th;
		const struct pollfd *ph = kube_h2_fds(h2, &nh, &th);
		if (fds_cap < *n + nh) {
			struct pollfd *p = realloc(fds, (*n + nh + 8) * sizeof *p);
			if (p) {
				fds = p;
				fds_cap = *n + nh + 8;
			}
		}
		if (fds_cap >= *n + nh) {
			if (*n) /* libcurl may have none: pfd NULL */
				memcpy(fds, pfd, *n * sizeof *fds);
			if (nh)
				memcpy(fds + *n, ph, nh * sizeof *fds);
			fds_ncurl = *n;
			*n += nh;
			pfd = fds;
		} else {
			fds_ncurl = *n;
			th = th < 0 || th > 100 ? 100 : th; /* no room for its socket: its timer moves it */
		}
		if (th >= 0 && (*timeout_ms < 0 || th < *timeout_ms))
			*timeout_ms = th;
	}
	pthread_mutex_lock(&mu);
	pending = !STAILQ_EMPTY(&ready) || !STAILQ_EMPTY(&done);
	pthread_mutex_unlock(&mu);
	if (pending) { /* to start, or answers to collect: no wait */
		*timeout_ms = 0;
	} else if (retrying) {
		long r = retry_wait();
		if (r >= 0 && (*timeout_ms < 0 || r < *timeout_ms))
			*timeout_ms = (int)r;
	}
	return pfd;
}

void fwd_run(const struct pollfd *pfd, size_t n)
{
	if (turn_hook)
		turn_hook();
	/* on h2 fwd_fds started them (what came since starts at the next
	 * fwd_fds: its frames could not go before then anyway); libcurl's
	 * transfers, or all when the server refused h2, here: the new
	 * transfers' first step (libcurl's timer, due now) too */
	if (!h2 || kube_h2_refused(h2))
		start_ready();
	if (h2) {
		size_t nc = n < fds_ncurl ? n : fds_ncurl;
		kube_curl_multi_dispatch(multi, pfd, nc, on_end, NULL);
		kube_h2_dispatch(h2, pfd + nc, n - nc);
	} else {
		kube_curl_multi_dispatch(multi, pfd, n, on_end, NULL);
	}
	ask_sync(); /* for the requests the workers made this turn */
}

void fwd_submit(fwd_req *r)
{
	bh_error e;
	fwd_list later = STAILQ_HEAD_INITIALIZER(later);
	int ask = 0;
	pthread_mutex_lock(&mu);
	if (synced(r)) {
		to_ready(r, &later);
	} else { /* held until a sync covers its intent */
		STAILQ_INSERT_TAIL(&held, r, link);
		ask = 1;
	}
	pthread_mutex_unlock(&mu);
	hand_on(&later);
	if (ask && on_loop())
		sync_wanted = 1; /* asked for once the turn's requests are in (ask_sync) */
	else if (ask && audit_sync_async(on_synced, NULL, &e) < 0)
		fail_held(&e); /* no sync: never sent */
}

fwd_req *fwd_take_done(void)
{
	fwd_req *l;
	pthread_mutex_lock(&mu);
	l = STAILQ_FIRST(&done); /* oldest first, still linked by link */
	STAILQ_INIT(&done);
	pthread_mutex_unlock(&mu);
	return l;
}

int fwd_own_send(const kube_request *req, fwd_own_fn done, void *ud, bh_error *err)
{
	fx *x = calloc(1, sizeof *x);
	if (!x)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	x->own = done;
	x->own_ud = ud;
	x->req = *req;
	if (own_inflight < FWD_OWN_INFLIGHT)
		own_go(x);
	else
		STAILQ_INSERT_TAIL(&own_waiting, x, wait);
	return 0;
}

void fwd_hook_set(void (*fn)(void))
{
	turn_hook = fn;
}

void fwd_wake(void)
{
	if (!on_loop())
		wake_loop();
}

void fwd_turn(int timeout_ms)
{
	size_t n;
	int tmo;
	const struct pollfd *pf = fwd_fds(&n, &tmo);
	struct pollfd *p = n ? malloc(n * sizeof *p) : NULL;
	if (n && !p)
		n = 0; /* no memory: libcurl's timer moves them (the short wait below) */
	if (n)
		memcpy(p, pf, n * sizeof *p);
	if (tmo < 0 || tmo > timeout_ms)
		tmo = timeout_ms;
	if (poll(p, n, tmo) <= 0)
		for (size_t i = 0; i < n; i++)
			p[i].revents = 0;
	fwd_run(p, n);
	free(p);
}
