/* supervisor/broker_watch.c — see broker_watch.h. The main loop's thread
 * drives every watch through libcurl's multi interface (kube_curl_multi),
 * its sockets in the loop's poll (bwatch_fds, bwatch_run): a watch is a
 * transport of its own added to it, a cancel removes it. A watch of the
 * controller's cluster is instead a stream of the forwarding's HTTP/2
 * connection when there is one (fwd_h2; its socket is the forwarding's),
 * unless the server refused h2. */
#include "supervisor/broker_watch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/curl.h"
#include "kube/h2.h"
#include "supervisor/acl.h"
#include "supervisor/audit.h"
#include "supervisor/broker.h"
#include "supervisor/forward.h"
#include "supervisor/log.h"

#define BW_MAX_STREAMS 32 /* watches at a time; more wait their turn */
#define BW_IDLE_KEEP 4    /* transports kept for the next watches */

typedef struct bw {
	fwd_req *f;
	int cancel;  /* under mu */
	int started; /* on the multi handle or h2 (the loop's thread's own) */
	int on_h2;   /* a stream of fwd_h2() */
	double t0;
	kube_transport *t; /* its transport while it runs */
	kube_request req;
	kube_response resp;
	char user_h[ACL_IDENTITY_MAX + 32];
	const char *headers[2];
	struct bw *next;
} bw;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static bw *queue, *running; /* singly linked; queue is taken from its head */
static unsigned nrunning;
static kube_curl_multi *multi; /* the loop's thread's, made at the first watch */
/* the loop's thread's own, not under mu */
static kube_transport *idle[BW_IDLE_KEEP];
static int nidle_t;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* The stream's bytes, each piece to the main loop; (NULL, 0) is the idle tick. */
static int on_piece(void *ud, const char *data, size_t len)
{
	bw *w = ud;
	int stop;
	if (len) {
		fwd_req *p = calloc(1, sizeof *p);
		int ok = 0;
		if (p) {
			p->serial = w->f->serial;
			p->id = w->f->id;
			p->piece = 1;
			bh_buf_put(&p->body, data, len);
			ok = bh_buf_ok(&p->body); /* read before p is the main loop's */
			if (ok)
				fwd_done(p);
			else
				fwd_req_free(p);
		}
		if (!ok) /* a hole in the stream: better none */
			return 1;
	}
	pthread_mutex_lock(&mu);
	stop = w->cancel;
	pthread_mutex_unlock(&mu);
	return stop;
}

/* w's answer and outcome record; w leaves the running list and is freed. */
static void finish(bw *w)
{
	fwd_req *f = w->f;
	bh_error e;
	bw **pp;
	if (w->t) { /* a local transport is kept for the next watch */
		if (!f->remote && nidle_t < BW_IDLE_KEEP)
			idle[nidle_t++] = w->t;
		else
			kube_transport_free(w->t);
	}
	kube_response_free(&w->resp);
	if (!f->audit_error[0]) {
		f->ms = now_ms() - w->t0;
		audit_rec rec = {"outcome", f->audit_id, f->key, f->identity, "watch", f->r.path, f->status, f->ms,
				 f->status ? NULL : f->error, f->cluster};
		if (audit_write_outcome(&rec, &e) < 0)
			snprintf(f->audit_error, sizeof f->audit_error, "%.500s",
				 e.msg[0] ? e.msg : "audit log: not written");
	}
	pthread_mutex_lock(&mu);
	for (pp = &running; *pp != w; pp = &(*pp)->next)
		;
	*pp = w->next;
	nrunning--;
	pthread_mutex_unlock(&mu);
	fwd_done(f);
	free(w);
}

/* w's stream ended (rc, err as the transport's stream op returns them). */
static void answer(bw *w, int rc, const bh_error *err)
{
	fwd_req *f = w->f;
	if (rc < 0) {
		f->status = 0;
		snprintf(f->error, sizeof f->error, "%.500s", err->msg);
	} else {
		f->status = w->resp.status;
		f->body = w->resp.body; /* only when not 2xx */
		bh_buf_init(&w->resp.body);
	}
	w->started = 0;
	finish(w);
}

static void on_end(void *ud, kube_transport *t, int rc, const bh_error *err)
{
	bw *w;
	(void)ud;
	pthread_mutex_lock(&mu);
	for (w = running; w && !(w->started && w->t == t); w = w->next)
		;
	pthread_mutex_unlock(&mu);
	if (w)
		answer(w, rc, err);
}

static void h2_end(void *sud, int rc, const bh_error *err, int sent);
static void start(bw *w);

/* w's watch on fwd_h2(): 1 when it went there, 0 when it goes by libcurl,
 * -1 when it was answered (refused). */
static int start_h2(bw *w)
{
	kube_h2 *h = fwd_h2();
	bh_error e;
	if (w->f->remote || !h || kube_h2_refused(h))
		return 0;
	if (kube_h2_add(h, &w->req, &w->resp, on_piece, h2_end, w, &e) < 0) {
		w->f->status = 0;
		snprintf(w->f->error, sizeof w->f->error, "%.500s", e.msg);
		finish(w);
		return -1;
	}
	w->on_h2 = w->started = 1;
	return 1;
}

/* kube/h2.c's end of w's stream; one never sent to a server that does not
 * speak h2 starts again, by libcurl. */
static void h2_end(void *sud, int rc, const bh_error *err, int sent)
{
	bw *w = sud;
	w->on_h2 = w->started = 0;
	if (!sent && kube_h2_refused(fwd_h2())) {
		start(w);
		return;
	}
	answer(w, rc, err);
}

/* A transport for w: one kept from an earlier watch, a new one, or one for
 * its remote cluster (NULL with f->error set). */
static kube_transport *transport_for(fwd_req *f)
{
	bh_error e;
	kube_transport *t;
	if (f->remote) {
		if (!(t = kube_curl_transport_new(f->remote, &e)))
			snprintf(f->error, sizeof f->error, "remote cluster: %.480s", e.msg);
		return t;
	}
	if (nidle_t)
		return idle[--nidle_t];
	if (!(t = kube_curl_transport_new(fwd_config(), &e)))
		snprintf(f->error, sizeof f->error, "%.500s", e.msg);
	return t;
}

/* Sends w's watch (its intent record is durable: fwd_submit held it until
 * then), or answers it at once. */
static void start(bw *w)
{
	fwd_req *f = w->f;
	bh_error e;
	int stopped;
	w->t0 = now_ms();
	if (f->audit_error[0]) { /* its intent's sync failed: never sent */
		finish(w);
		return;
	}
	pthread_mutex_lock(&mu);
	stopped = w->cancel;
	pthread_mutex_unlock(&mu);
	if (stopped) {
		snprintf(f->error, sizeof f->error, "stopped by the worker before it was sent");
		finish(w);
		return;
	}
	w->req = (kube_request){.method = "GET", .path = f->r.path, .accept = proto_kube_request_header(&f->r, "Accept"),
				.timeout_ms = (BROKER_MAX_WATCH_SECONDS + 15) * 1000L};
	w->resp = (kube_response)KUBE_RESPONSE_INIT;
	if (fwd_impersonate(f, &w->req, w->user_h, sizeof w->user_h, w->headers) < 0) {
		finish(w);
		return;
	}
	if (start_h2(w))
		return;
	if (!(w->t = transport_for(f))) {
		finish(w);
		return;
	}
	if (kube_curl_multi_add(multi, w->t, &w->req, &w->resp, on_piece, w, &e) < 0) {
		f->status = 0;
		snprintf(f->error, sizeof f->error, "%.500s", e.msg);
		finish(w);
		return;
	}
	w->started = 1;
}

/* The next queued watch, now running, when there is room for it. */
static bw *next_to_start(void)
{
	bw *w = NULL;
	pthread_mutex_lock(&mu);
	if (queue && nrunning < BW_MAX_STREAMS) { /* in order; more wait their turn */
		w = queue;
		queue = w->next;
		w->next = running;
		running = w;
		nrunning++;
	}
	pthread_mutex_unlock(&mu);
	return w;
}

/* A watch cancelled while on the multi handle, or NULL. */
static bw *next_to_stop(void)
{
	bw *w;
	pthread_mutex_lock(&mu);
	for (w = running; w && !(w->started && w->cancel); w = w->next)
		;
	pthread_mutex_unlock(&mu);
	return w;
}

/* The queued watches that have room, started; the cancelled ones on the
 * multi handle, stopped (cancel = remove). The loop's thread. */
static void start_and_stop(void)
{
	bw *w;
	while ((w = next_to_start()))
		start(w);
	while ((w = next_to_stop())) {
		if (w->on_h2)
			kube_h2_stop(fwd_h2(), w);
		else
			kube_curl_multi_stop(multi, w->t);
		answer(w, 0, NULL);
	}
}

/* Every queued watch answered with why none could start (no multi handle). */
static void fail_queued(const char *why)
{
	bw *w;
	while ((w = next_to_start())) {
		snprintf(w->f->error, sizeof w->f->error, "%.500s", why);
		finish(w);
	}
}

const struct pollfd *bwatch_fds(size_t *n, int *timeout_ms)
{
	int any;
	*n = 0;
	*timeout_ms = -1;
	pthread_mutex_lock(&mu);
	any = queue || running;
	pthread_mutex_unlock(&mu);
	if (!any)
		return NULL;
	if (!multi) {
		bh_error e;
		if (!(multi = kube_curl_multi_new(&e))) {
			fail_queued(e.msg);
			return NULL;
		}
	}
	start_and_stop();
	const struct pollfd *pfd = kube_curl_multi_fds(multi, n, timeout_ms);
	if (fwd_h2()) { /* watches just queued there: no wait (its socket is the forwarding's) */
		size_t nh;
		int th;
		kube_h2_fds(fwd_h2(), &nh, &th);
		if (th >= 0 && (*timeout_ms < 0 || th < *timeout_ms))
			*timeout_ms = th;
	}
	return pfd;
}

void bwatch_run(const struct pollfd *pfd, size_t n)
{
	if (!multi)
		return;
	start_and_stop(); /* cancelled since bwatch_fds: closed at once */
	kube_curl_multi_dispatch(multi, pfd, n, on_end, NULL);
}

void bwatch_submit(fwd_req *f)
{
	bw *w = calloc(1, sizeof *w), **pp;
	if (!w) {
		snprintf(f->error, sizeof f->error, "out of memory");
		fwd_done(f);
		return;
	}
	w->f = f;
	pthread_mutex_lock(&mu);
	for (pp = &queue; *pp; pp = &(*pp)->next)
		;
	*pp = w;
	pthread_mutex_unlock(&mu);
	fwd_wake(); /* from the audit log's sync thread: the loop looks again */
}

/* Stops job serial's watch id, or all its watches (all). */
static void cancel(unsigned long serial, uint32_t id, int all)
{
	int hit = 0;
	pthread_mutex_lock(&mu);
	for (bw *w = running; w; w = w->next)
		if (w->f->serial == serial && (all || w->f->id == id))
			w->cancel = hit = 1;
	for (bw *w = queue; w; w = w->next)
		if (w->f->serial == serial && (all || w->f->id == id))
			w->cancel = 1;
	pthread_mutex_unlock(&mu);
	if (hit)
		fwd_wake();
}

void bwatch_cancel(unsigned long serial, uint32_t id)
{
	cancel(serial, id, 0);
}

void bwatch_cancel_job(unsigned long serial)
{
	cancel(serial, 0, 1);
}

unsigned bwatch_count(unsigned long serial)
{
	unsigned n = 0;
	pthread_mutex_lock(&mu);
	for (bw *w = running; w; w = w->next)
		n += w->f->serial == serial && !w->cancel;
	for (bw *w = queue; w; w = w->next)
		n += w->f->serial == serial && !w->cancel;
	pthread_mutex_unlock(&mu);
	return n;
}
