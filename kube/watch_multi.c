/* kube/watch_multi.c — see kube/watch_multi.h. The stream is kube_watch's
 * (kube/watch_priv.h: the same decoder, event handling, request path and
 * verdict on its end); only the waiting differs: a transfer on a multi
 * handle (or a stream of the caller's carrier, whose bytes are kept for
 * the next run) and timers instead of a blocking stream and sleeps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/client_priv.h"
#include "kube/curl.h"
#include "kube/watch_multi.h"
#include "kube/watch_priv.h"
#include "lib/buf.h"

enum { IDLE, WAITING, STREAMING };

struct kube_watch_multi {
	kube_client *c;
	const kube_resource *r;
	char *ns;
	kube_watch_opts o;
	struct kube_wstate w;
	bh_error err; /* w.err: the stream's decoder's */
	kube_curl_multi *m;
	int state;
	long due;  /* WAITING: when the next stream starts (kube_now_ms) */
	int failures;
	/* STREAMING */
	char *path;
	const char **headers;
	kube_request req;
	kube_response resp;
	long began, events_before;
	int ended, end_rc; /* the transfer is done: its outcome */
	bh_error end_err;
	/* another carrier (kube_watch_multi_carrier) */
	const kube_watch_carrier *car;
	int carried;  /* STREAMING: the carrier has the stream */
	int unsent;   /* it ended without leaving: it goes again at once */
	bh_buf pend;  /* its bytes, for the next kube_watch_multi_run */
};

kube_watch_multi *kube_watch_multi_new(kube_client *c, const kube_resource *r, const char *ns,
				       const kube_watch_opts *opts, kube_watch_fn fn, void *ud, bh_error *err)
{
	kube_watch_multi *w;
	if (!r || !r->resource || !fn) {
		bh_error_set(err, BH_EINVAL, "watch: resource and callback are required");
		return NULL;
	}
	if (!(w = calloc(1, sizeof *w)) || (ns && !(w->ns = strdup(ns)))) {
		free(w);
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	if (!(w->m = kube_curl_multi_new(err))) {
		free(w->ns);
		free(w);
		return NULL;
	}
	w->c = c;
	w->r = r;
	if (opts)
		w->o = *opts;
	w->w = (struct kube_wstate){.c = c, .o = &w->o, .fn = fn, .ud = ud, .err = &w->err};
	w->state = IDLE;
	return w;
}

/* The stream's transfer is over (done, or stopped): its pieces freed. */
static void stream_free(kube_watch_multi *w)
{
	bh_buf_free(&w->pend);
	w->carried = w->unsent = 0;
	kube_watchdec_free(&w->w.dec);
	free(w->headers);
	free(w->path);
	kube_response_free(&w->resp);
	w->headers = NULL;
	w->path = NULL;
}

void kube_watch_multi_free(kube_watch_multi *w)
{
	if (!w)
		return;
	if (w->state == STREAMING && !w->ended && w->carried)
		w->car->stop(w->car->cud, w);
	else if (w->state == STREAMING && !w->ended)
		kube_curl_multi_stop(w->m, w->c->t);
	if (w->state == STREAMING)
		stream_free(w);
	kube_curl_multi_free(w->m);
	free(w->ns);
	free(w);
}

int kube_watch_multi_relist(kube_watch_multi *w, bh_error *err)
{
	w->w.user_stop = 0;
	return kube_watch_relist(w->c, w->r, w->ns, &w->w, err);
}

void kube_watch_multi_resume(kube_watch_multi *w, long delay_ms)
{
	if (w->state != IDLE)
		return;
	w->state = WAITING;
	w->due = kube_now_ms() + (delay_ms > 0 ? delay_ms : 0);
	w->failures = 0;
}

static void on_end(void *ud, kube_transport *t, int rc, const bh_error *err)
{
	kube_watch_multi *w = ud;
	(void)t;
	w->ended = 1;
	w->end_rc = rc;
	if (rc)
		w->end_err = *err;
}

/* A stream from c->watch_rv on, or a failure (0 / err set). */
static int stream_start(kube_watch_multi *w, bh_error *err)
{
	long tmo = w->o.timeout_seconds > 0 ? w->o.timeout_seconds : 300;
	w->path = kube_watch_query_new(w->c, w->r, w->ns, &w->o, tmo);
	w->headers = kube_merge_headers(w->c, NULL);
	w->resp = (kube_response)KUBE_RESPONSE_INIT;
	kube_watchdec_init(&w->w.dec, kube_watch_on_event, &w->w);
	w->w.dec.drop = w->o.tree_drop;
	w->w.dec.load = w->o.tree_load;
	w->w.gone = w->w.dec_failed = w->w.user_stop = 0;
	w->w.status_msg[0] = 0;
	w->events_before = w->w.events;
	w->began = kube_now_ms();
	w->ended = 0;
	w->state = STREAMING;
	if (!w->path || !w->headers)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	w->req = (kube_request){.method = "GET", .path = w->path, .headers = w->headers, .timeout_ms = (tmo + 30) * 1000};
	if (w->car) {
		int rc = w->car->add(w->car->cud, &w->req, &w->resp, w, err);
		if (rc <= 0) {
			w->carried = rc == 0;
			return rc;
		}
	}
	return kube_curl_multi_add(w->m, w->c->t, &w->req, &w->resp, kube_watch_on_bytes, &w->w, err);
}

void kube_watch_multi_carrier(kube_watch_multi *w, const kube_watch_carrier *car)
{
	w->car = car;
}

int kube_watch_multi_data(void *ud, const char *data, size_t len)
{
	kube_watch_multi *w = ud;
	bh_buf_put(&w->pend, data, len); /* out of memory: the decoder sees a garbled stream (run) */
	return 0;
}

void kube_watch_multi_end(void *ud, int rc, const bh_error *err, int sent)
{
	kube_watch_multi *w = ud;
	w->ended = 1;
	w->unsent = !sent;
	w->end_rc = rc;
	if (rc)
		w->end_err = *err;
}

/* The carrier's bytes to the decoder; one that asks to stop (an ERROR
 * event, the callback, a garbled stream) ends the stream as libcurl's
 * would: stopped, rc 0, judged by the decoder's state. */
static void carried_feed(kube_watch_multi *w)
{
	int stop;
	if (!bh_buf_ok(&w->pend)) {
		bh_error_set(w->w.err, BH_ENOMEM, "watch: out of memory for the stream's bytes");
		w->w.dec_failed = 1;
		stop = 1;
	} else if (!w->pend.len) {
		return;
	} else {
		stop = kube_watch_on_bytes(&w->w, w->pend.data, w->pend.len);
	}
	bh_buf_reset(&w->pend);
	if (stop && !w->ended) {
		w->car->stop(w->car->cud, w);
		w->ended = 1;
		w->end_rc = 0;
	}
}

const struct pollfd *kube_watch_multi_fds(kube_watch_multi *w, size_t *n, int *timeout_ms)
{
	*n = 0;
	*timeout_ms = -1;
	if (w->state == WAITING) {
		long left = w->due - kube_now_ms();
		if (left > 0) {
			*timeout_ms = (int)left;
			return NULL;
		}
		if (stream_start(w, &w->end_err) < 0) { /* judged at the next run, as a stream that failed */
			w->ended = 1;
			w->end_rc = w->end_err.code;
			*timeout_ms = 0;
			return NULL;
		}
	}
	if (w->state != STREAMING)
		return NULL;
	if (w->ended || (w->carried && w->pend.len)) {
		*timeout_ms = 0;
		return NULL;
	}
	return w->carried ? NULL : kube_curl_multi_fds(w->m, n, timeout_ms);
}

int kube_watch_multi_run(kube_watch_multi *w, const struct pollfd *pfd, size_t n, bh_error *err)
{
	int rc;
	long d = 0;
	if (w->state != STREAMING)
		return 0;
	if (w->carried)
		carried_feed(w);
	else if (!w->ended)
		kube_curl_multi_dispatch(w->m, pfd, n, on_end, w);
	if (!w->ended)
		return 0;
	if (w->unsent) { /* it never left (a server without h2): again, at once */
		stream_free(w);
		w->state = WAITING;
		w->due = kube_now_ms();
		return 0;
	}
	rc = w->end_rc;
	if (rc)
		*w->w.err = w->end_err;
	if (!rc && !w->w.dec_failed && !w->w.dec.stopped && w->resp.status >= 200 && w->resp.status < 300)
		rc = kube_watchdec_finish(&w->w.dec, w->w.err) ? BH_EPARSE : 0;
	if (w->w.user_stop) {
		stream_free(w);
		w->state = IDLE;
		return 0;
	}
	rc = kube_watch_judge(&w->w, w->r, rc, &w->resp, w->path, w->began, w->events_before, &w->failures, &d,
			      w->w.err);
	stream_free(w);
	if (rc) {
		w->state = IDLE;
		if (err)
			*err = *w->w.err;
		return rc;
	}
	w->state = WAITING;
	w->due = kube_now_ms() + d;
	return 0;
}
