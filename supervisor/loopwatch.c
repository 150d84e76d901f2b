/* supervisor/loopwatch.c — see loopwatch.h. */
#include "supervisor/loopwatch.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/curl.h"
#include "kube/h2.h"
#include "kube/watch_multi.h"
#include "proto/jload.h"
#include "supervisor/forward.h"
#include "supervisor/log.h"

#define LW_MAX 8 /* watches: the HelmReleases and three kinds of sources */

typedef struct lw {
	kube_client *c;
	kube_watch_multi *w;
	kube_watch_fn fn;
	void *ud;
	const char *what;
	/* under mu */
	int want;       /* a list is asked for */
	double due;     /* not before (now_s) */
	json_t *list;   /* the list made, for the loop */
	json_t *listed; /* the lister's: the list while its call ends */
	size_t nfds;    /* the loop's: its sockets in the last loopwatch_fds */
} lw;

static lw ws[LW_MAX];
static size_t nws;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv; /* on CLOCK_MONOTONIC (lister_main's waits) */
static pthread_t lister_th;
static int lister_on;
static struct pollfd *pfds; /* the loop's: every watch's sockets */
static size_t cap;

/* kube_watch_multi's callback: a list (on the lister's thread) is kept
 * for the loop, anything else goes to the watch's own. */
static int on_event(void *ud, kube_watch_type type, json_t *obj)
{
	lw *x = ud;
	if (type == KUBE_WATCH_RELIST) { /* the loop gets it once the list is over (lister_main) */
		json_decref(x->listed);
		x->listed = json_incref(obj);
		return 0;
	}
	return x->fn(x->ud ? x->ud : x->c, type, obj);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The lister: the lists asked for, one at a time, the one due first; a
 * failed one is asked for again a second later (the others' go on). */
static void *lister_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "bh-watch-list");
	pthread_mutex_lock(&mu);
	for (;;) {
		lw *x = NULL;
		double now = now_s(), next = 0;
		bh_error e;
		for (size_t i = 0; i < nws; i++)
			if (ws[i].want && (!x || ws[i].due < x->due))
				x = &ws[i];
		if (x && x->due > now)
			next = x->due;
		if (!x || next) {
			if (next) {
				struct timespec ts = {(time_t)next, 0}; /* cv's clock is now_s's */
				ts.tv_nsec = (long)((next - (double)ts.tv_sec) * 1e9);
				pthread_cond_timedwait(&cv, &mu, &ts);
			} else {
				pthread_cond_wait(&cv, &mu);
			}
			continue;
		}
		x->want = 0;
		pthread_mutex_unlock(&mu);
		int rc = kube_watch_multi_relist(x->w, &e);
		if (rc < 0)
			svlog(SVLOG_ERROR, "watching %s: %s (retrying)", x->what, e.msg);
		pthread_mutex_lock(&mu);
		if (rc < 0) {
			x->want = 1;
			x->due = now_s() + 1;
			json_decref(x->listed);
		} else { /* the loop hands the list on and resumes the stream */
			json_decref(x->list);
			x->list = x->listed;
			fwd_wake();
		}
		x->listed = NULL;
	}
	return NULL;
}

/* The streams go on the forwarding's HTTP/2 connection (forward.h's
 * fwd_h2) when it serves their cluster: their events come with the
 * answers that connection brings anyway (the status writes that make
 * them, often in the same read), instead of on a libcurl connection and a
 * TLS session of their own (their own reads and wake-ups of the loop). A
 * server that does not speak h2 leaves them to libcurl. */
static int h2_add(void *cud, const kube_request *req, kube_response *resp, kube_watch_multi *w, bh_error *err)
{
	kube_h2 *h = fwd_h2();
	(void)cud;
	if (!h || kube_h2_refused(h))
		return 1;
	return kube_h2_add(h, req, resp, kube_watch_multi_data, kube_watch_multi_end, w, err);
}

static void h2_stop(void *cud, kube_watch_multi *w)
{
	(void)cud;
	if (fwd_h2())
		kube_h2_stop(fwd_h2(), w);
}

static const kube_watch_carrier h2_carrier = {h2_add, h2_stop, NULL};

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Is cfg the forwarding's cluster, as the same user (its HTTP/2
 * connection may carry cfg's watches)? */
static int fwd_cluster(const kube_config *cfg)
{
	const kube_config *f = fwd_config();
	return f && same_str(cfg->server, f->server) && same_str(cfg->tls_server_name, f->tls_server_name) &&
	       same_str(cfg->token, f->token) && same_str(cfg->token_file, f->token_file) &&
	       same_str(cfg->cert_pem, f->cert_pem) && same_str(cfg->key_pem, f->key_pem) &&
	       same_str(cfg->ca_pem, f->ca_pem) && same_str(cfg->username, f->username) &&
	       !cfg->exec_argv && !f->exec_argv;
}

/* Under mu: a list of x, after delay_ms. */
static void want_list(lw *x, long delay_ms)
{
	x->want = 1;
	x->due = now_s() + (double)delay_ms / 1000.0;
	pthread_cond_signal(&cv);
}

int loopwatch_add(const kube_config *cfg, const kube_resource *r, const char *ns, const kube_watch_opts *opts,
		  kube_watch_fn fn, void *ud, const char *what, bh_error *err)
{
	lw *x = &ws[nws];
	if (nws == LW_MAX)
		return bh_error_set(err, BH_ELIMIT, "more than %d watches", LW_MAX);
	if (!(x->c = kube_curl_client_new(cfg, err)))
		return err->code;
	kube_watch_opts o = opts ? *opts : (kube_watch_opts){0};
	if (!o.tree_load) /* the events' JSON read by proto/jload.h's reader: the same trees, faster */
		o.tree_load = jload_new;
	if (!(x->w = kube_watch_multi_new(x->c, r, ns, &o, on_event, x, err))) {
		kube_client_free(x->c);
		return err->code;
	}
	if (fwd_cluster(cfg))
		kube_watch_multi_carrier(x->w, &h2_carrier);
	x->fn = fn;
	x->ud = ud;
	x->what = what;
	if (!lister_on) {
		pthread_condattr_t ca;
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&cv, &ca);
		pthread_condattr_destroy(&ca);
		if (pthread_create(&lister_th, NULL, lister_main, NULL) != 0) {
			kube_watch_multi_free(x->w);
			kube_client_free(x->c);
			return bh_error_set(err, BH_EIO, "cannot start the watches' list thread");
		}
		pthread_detach(lister_th);
		lister_on = 1;
	}
	pthread_mutex_lock(&mu);
	nws++;
	want_list(x, 0);
	pthread_mutex_unlock(&mu);
	return 0;
}

const struct pollfd *loopwatch_fds(size_t *n, int *timeout_ms)
{
	size_t total = 0;
	*timeout_ms = -1;
	for (size_t i = 0; i < nws; i++) {
		lw *x = &ws[i];
		json_t *list;
		size_t k;
		int tmo;
		pthread_mutex_lock(&mu);
		list = x->list;
		x->list = NULL;
		pthread_mutex_unlock(&mu);
		if (list) { /* the list first, then the stream from its version */
			x->fn(x->ud ? x->ud : x->c, KUBE_WATCH_RELIST, list);
			json_decref(list);
			kube_watch_multi_resume(x->w, 0);
		}
		const struct pollfd *p = kube_watch_multi_fds(x->w, &k, &tmo);
		if (tmo >= 0 && (*timeout_ms < 0 || tmo < *timeout_ms))
			*timeout_ms = tmo;
		x->nfds = 0;
		if (k && total + k > cap) {
			struct pollfd *np = realloc(pfds, (total + k) * 2 * sizeof *np);
			if (!np) { /* its bytes wait for the next turn, a moment later */
				if (*timeout_ms < 0 || *timeout_ms > 100)
					*timeout_ms = 100;
				continue;
			}
			pfds = np;
			cap = (total + k) * 2;
		}
		if (k)
			memcpy(pfds + total, p, k * sizeof *p);
		x->nfds = k;
		total += k;
	}
	*n = total;
	return pfds;
}

void loopwatch_run(const struct pollfd *pfd, size_t n)
{
	size_t at = 0;
	for (size_t i = 0; i < nws; i++) {
		lw *x = &ws[i];
		bh_error e;
		size_t k = x->nfds <= n - at ? x->nfds : n - at;
		int rc = kube_watch_multi_run(x->w, pfd + at, k, &e);
		at += k;
		if (!rc)
			continue;
		if (rc != BH_EGONE) /* as a watch that returned: logged, listed again a second later */
			svlog(SVLOG_ERROR, "watching %s: %s (retrying)", x->what, e.msg);
		pthread_mutex_lock(&mu);
		want_list(x, rc == BH_EGONE ? 0 : 1000);
		pthread_mutex_unlock(&mu);
	}
}
