/* supervisor/broker_watch.c — see broker_watch.h. */
#include "supervisor/broker_watch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/curl.h"
#include "supervisor/acl.h"
#include "supervisor/audit.h"
#include "supervisor/broker.h"
#include "supervisor/log.h"

#define BW_MAX_THREADS 32 /* watches at a time; more wait their turn */

typedef struct bw {
	fwd_req *f;
	int cancel;  /* under mu */
	struct bw *next;
} bw;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static bw *queue, *running; /* singly linked; queue is taken from its head */
static int nthreads, nidle;

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
		if (p) {
			p->serial = w->f->serial;
			p->id = w->f->id;
			p->piece = 1;
			bh_buf_put(&p->body, data, len);
			fwd_done(p);
		}
		if (!p || !bh_buf_ok(&p->body)) /* a hole in the stream: better none */
			return 1;
	}
	pthread_mutex_lock(&mu);
	stop = w->cancel;
	pthread_mutex_unlock(&mu);
	return stop;
}

/* Runs w's watch on t (the thread's transport, or one for its remote cluster). */
static void perform(kube_transport *t, bw *w)
{
	fwd_req *f = w->f;
	char user_h[ACL_IDENTITY_MAX + 32];
	const char *headers[2] = {NULL};
	kube_request req = {.method = "GET", .path = f->r.path, .accept = proto_kube_request_header(&f->r, "Accept"),
			    .timeout_ms = (BROKER_MAX_WATCH_SECONDS + 15) * 1000L};
	kube_response resp = KUBE_RESPONSE_INIT;
	bh_error err;
	if (f->identity) { /* as forward.c: the user alone, the API server adds the groups */
		if ((size_t)snprintf(user_h, sizeof user_h, "Impersonate-User: %s", f->identity) >= sizeof user_h) {
			snprintf(f->error, sizeof f->error, "the identity to impersonate is too long");
			return;
		}
		headers[0] = user_h;
		req.headers = headers;
	}
	if (t->ops->stream(t->impl, &req, &resp, on_piece, w, &err) < 0) {
		f->status = 0;
		snprintf(f->error, sizeof f->error, "%.500s", err.msg);
	} else {
		f->status = resp.status;
		f->body = resp.body; /* only when not 2xx */
		bh_buf_init(&resp.body);
	}
	kube_response_free(&resp);
}

static void run(kube_transport **mine, bw *w)
{
	fwd_req *f = w->f;
	bh_error e;
	double t0 = now_ms();
	int stopped;
	if (audit_sync(f->audit_seq, &e) < 0) { /* fail closed: never sent */
		snprintf(f->audit_error, sizeof f->audit_error, "%.500s", e.msg[0] ? e.msg : "audit log: not synced");
		return;
	}
	pthread_mutex_lock(&mu);
	stopped = w->cancel;
	pthread_mutex_unlock(&mu);
	if (stopped) {
		snprintf(f->error, sizeof f->error, "stopped by the worker before it was sent");
	} else if (f->remote) {
		kube_transport *t = kube_curl_transport_new(f->remote, &e);
		if (t)
			perform(t, w);
		else
			snprintf(f->error, sizeof f->error, "remote cluster: %.480s", e.msg);
		kube_transport_free(t);
	} else {
		if (!*mine && !(*mine = kube_curl_transport_new(fwd_config(), &e)))
			snprintf(f->error, sizeof f->error, "%.500s", e.msg);
		if (*mine)
			perform(*mine, w);
	}
	f->ms = now_ms() - t0;
	audit_rec rec = {"outcome", f->audit_id, f->key, f->identity, "watch", f->r.path, f->status, f->ms,
			 f->status ? NULL : f->error, f->cluster};
	if (audit_write_outcome(&rec, &e) < 0)
		snprintf(f->audit_error, sizeof f->audit_error, "%.500s", e.msg[0] ? e.msg : "audit log: not written");
}

static void *bw_main(void *arg)
{
	kube_transport *mine = NULL; /* the thread's own connection, kept between watches */
	(void)arg;
	for (;;) {
		bw *w, **pp;
		pthread_mutex_lock(&mu);
		nidle++;
		while (!queue)
			pthread_cond_wait(&cv, &mu);
		nidle--;
		w = queue;
		queue = w->next;
		w->next = running;
		running = w;
		pthread_mutex_unlock(&mu);
		run(&mine, w);
		pthread_mutex_lock(&mu);
		for (pp = &running; *pp != w; pp = &(*pp)->next)
			;
		*pp = w->next;
		pthread_mutex_unlock(&mu);
		fwd_done(w->f);
		free(w);
	}
	return NULL;
}

void bwatch_submit(fwd_req *f)
{
	bw *w = calloc(1, sizeof *w), **pp;
	pthread_t th;
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
	if (nidle == 0 && nthreads < BW_MAX_THREADS) {
		if (pthread_create(&th, NULL, bw_main, NULL) == 0) {
			pthread_detach(th);
			nthreads++;
		} else if (nthreads == 0) {
			svlog(SVLOG_ERROR, "cannot start a thread for workers' watches");
		}
	}
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}

/* Stops job serial's watch id, or all its watches (all). */
static void cancel(unsigned long serial, uint32_t id, int all)
{
	pthread_mutex_lock(&mu);
	for (bw *w = running; w; w = w->next)
		if (w->f->serial == serial && (all || w->f->id == id))
			w->cancel = 1;
	for (bw *w = queue; w; w = w->next)
		if (w->f->serial == serial && (all || w->f->id == id))
			w->cancel = 1;
	pthread_mutex_unlock(&mu);
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
