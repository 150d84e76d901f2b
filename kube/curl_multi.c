/* kube/curl_multi.c — streams driven together (see kube/curl.h). Its own
 * file so that a program using only kube/curl.c (the CLI, which loads
 * libcurl lazily) never links libcurl's multi functions.
 *
 * Driven by libcurl's socket interface (curl_multi_socket_action): libcurl
 * says which sockets it waits on and when its next timer is due, one
 * poll(2) here waits for them, and only a transfer whose socket is ready
 * (or whose timer is due) runs, told what is ready. curl_multi_perform
 * would run every transfer on each wake-up and, not knowing what is
 * ready, poll each transfer's socket once more: a system call per
 * transfer per wake-up. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kube/curl.h"
#include "kube/curl_priv.h"
#include "lib/vec.h"

struct kube_curl_multi {
	CURLM *m;
	struct pollfd *pfd; /* [0]: the wake-up pipe; then the sockets libcurl waits on */
	size_t npfd, cap;
	int wake[2];        /* kube_curl_multi_wakeup writes a byte */
	int due;            /* libcurl's timer is set: at deadline */
	struct timespec deadline;
	int nomem;          /* a socket could not be added: poll every socket's state by time */
};

static void now_plus(struct timespec *ts, long ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* Milliseconds until ts (rounded up; 0 when past). */
static long ms_until(const struct timespec *ts)
{
	struct timespec now;
	long ms;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long)(ts->tv_sec - now.tv_sec) * 1000 + (ts->tv_nsec - now.tv_nsec + 999999L) / 1000000L;
	return ms < 0 ? 0 : ms;
}

/* kube_curl_multi_forget_hook's: told on the thread that set it */
typedef void (*forget_fn_t)(int fd);
static _Atomic(forget_fn_t) forget_fn;
static pthread_t forget_thread; /* written before forget_fn (release), read after it (acquire) */

void kube_curl_multi_forget_hook(void (*fn)(int fd))
{
	forget_thread = pthread_self();
	atomic_store_explicit(&forget_fn, fn, memory_order_release);
}

void kube_curl_multi_forget(int fd)
{
	forget_fn_t fn = atomic_load_explicit(&forget_fn, memory_order_acquire);
	if (fn && pthread_equal(forget_thread, pthread_self()))
		fn(fd);
}

/* CURLMOPT_SOCKETFUNCTION: what libcurl waits for on s. */
static int on_socket(CURL *e, curl_socket_t s, int what, void *ud, void *sockp)
{
	kube_curl_multi *m = ud;
	size_t i;
	(void)e, (void)sockp;
	for (i = 1; i < m->npfd && m->pfd[i].fd != s; i++)
		;
	if (what == CURL_POLL_REMOVE) {
		kube_curl_multi_forget(s); /* before libcurl closes s (or keeps it, idle, unwatched) */
		if (i < m->npfd)
			m->pfd[i] = m->pfd[--m->npfd];
		return 0;
	}
	if (i == m->npfd) {
		if (VEC_RESERVE(m->pfd, m->cap, m->npfd + 1, 16) < 0) {
			m->nomem = 1;
			return 0;
		}
		m->pfd[m->npfd++].fd = s;
	}
	m->pfd[i].events = (short)((what & CURL_POLL_IN ? POLLIN : 0) | (what & CURL_POLL_OUT ? POLLOUT : 0));
	m->pfd[i].revents = 0;
	return 0;
}

/* CURLMOPT_TIMERFUNCTION: libcurl's next timer (-1: none). */
static int on_timer(CURLM *cm, long timeout_ms, void *ud)
{
	kube_curl_multi *m = ud;
	(void)cm;
	m->due = timeout_ms >= 0;
	if (m->due)
		now_plus(&m->deadline, timeout_ms);
	return 0;
}

kube_curl_multi *kube_curl_multi_new(bh_error *err)
{
	kube_curl_multi *m = calloc(1, sizeof *m);
	if (!m || !(m->pfd = malloc(16 * sizeof *m->pfd)) || !(m->m = curl_multi_init())) {
		if (m)
			free(m->pfd);
		free(m);
		bh_error_set(err, BH_ENOMEM, "curl_multi_init failed");
		return NULL;
	}
	m->cap = 16;
	if (pipe2(m->wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		int e = errno;
		curl_multi_cleanup(m->m);
		free(m->pfd);
		free(m);
		bh_error_set(err, BH_EIO, "curl multi: pipe: %s", strerror(e));
		return NULL;
	}
	m->pfd[0] = (struct pollfd){.fd = m->wake[0], .events = POLLIN};
	m->npfd = 1;
	curl_multi_setopt(m->m, CURLMOPT_SOCKETFUNCTION, on_socket);
	curl_multi_setopt(m->m, CURLMOPT_SOCKETDATA, m);
	curl_multi_setopt(m->m, CURLMOPT_TIMERFUNCTION, on_timer);
	curl_multi_setopt(m->m, CURLMOPT_TIMERDATA, m);
	/* idle connections kept for the next transfers: libcurl's default, 4
	 * per transfer on the handle, shrinks as soon as a burst of transfers
	 * ends and closes what the next burst will open again (a TLS handshake
	 * each) */
	curl_multi_setopt(m->m, CURLMOPT_MAXCONNECTS, (long)KUBE_CURL_MULTI_KEEP);
	return m;
}

void kube_curl_multi_free(kube_curl_multi *m)
{
	if (!m)
		return;
	curl_multi_cleanup(m->m);
	close(m->wake[0]);
	close(m->wake[1]);
	free(m->pfd);
	free(m);
}

int kube_curl_multi_add(kube_curl_multi *m, kube_transport *t, const kube_request *req, kube_response *resp,
                        kube_stream_fn on_data, void *ud, bh_error *err)
{
	CURL *h = kube_curl_start(t, req, resp, on_data, ud, err);
	CURLMcode mc;
	if (!h)
		return err ? err->code : BH_EINVAL;
	curl_easy_setopt(h, CURLOPT_PRIVATE, (void *)t);
	if ((mc = curl_multi_add_handle(m->m, h)) != CURLM_OK) {
		kube_curl_end(t, CURLE_OK, 1, NULL);
		return bh_error_set(err, mc == CURLM_OUT_OF_MEMORY ? BH_ENOMEM : BH_EIO, "%s %s: %s", req->method,
		                    req->path, curl_multi_strerror(mc));
	}
	return 0;
}

/* The transport whose handle h is (kube_curl_multi_add set it). */
static kube_transport *owner(CURL *h)
{
	void *t = NULL;
	curl_easy_getinfo(h, CURLINFO_PRIVATE, &t);
	return t;
}

void kube_curl_multi_stop(kube_curl_multi *m, kube_transport *t)
{
	bh_error e;
	curl_multi_remove_handle(m->m, kube_curl_handle(t));
	kube_curl_end(t, CURLE_OK, 1, &e);
}

/* The wait libcurl allows (ms, capped at max; max < 0: no cap, -1 when
 * nothing is due). */
static long multi_timeout(kube_curl_multi *m, long max)
{
	long tmo = max;
	if (m->due && (tmo < 0 || ms_until(&m->deadline) < tmo))
		tmo = ms_until(&m->deadline);
	if (m->nomem && (tmo < 0 || tmo > 100))
		tmo = 100;
	return tmo;
}

const struct pollfd *kube_curl_multi_fds(kube_curl_multi *m, size_t *n, int *timeout_ms)
{
	*n = m->npfd - 1;
	*timeout_ms = (int)multi_timeout(m, -1);
	return m->pfd + 1;
}

void kube_curl_multi_dispatch(kube_curl_multi *m, const struct pollfd *pfd, size_t n, kube_curl_end_fn on_end,
                              void *ud)
{
	int running, left;
	CURLMsg *msg;
	/* what is ready, copied first: libcurl's callbacks change the set */
	struct {
		curl_socket_t fd;
		int ev;
	} ready[64];
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		short r = pfd[i].revents;
		if (!r)
			continue;
		if (k == sizeof ready / sizeof ready[0]) /* the rest on the next round */
			break;
		ready[k].fd = pfd[i].fd;
		ready[k++].ev = (r & (POLLIN | POLLHUP) ? CURL_CSELECT_IN : 0) | (r & POLLOUT ? CURL_CSELECT_OUT : 0) |
		                (r & (POLLERR | POLLNVAL) ? CURL_CSELECT_ERR : 0);
	}
	for (size_t i = 0; i < k; i++)
		curl_multi_socket_action(m->m, ready[i].fd, ready[i].ev, &running);
	if (m->nomem) { /* a socket we do not watch: let libcurl look at every transfer */
		m->nomem = 0;
		curl_multi_perform(m->m, &running);
	}
	if (m->due && ms_until(&m->deadline) == 0) {
		m->due = 0; /* libcurl sets it again if it needs it */
		curl_multi_socket_action(m->m, CURL_SOCKET_TIMEOUT, 0, &running);
	}
	while ((msg = curl_multi_info_read(m->m, &left))) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		CURL *h = msg->easy_handle;
		CURLcode cc = msg->data.result;
		kube_transport *t = owner(h);
		bh_error e; /* not "= {0}": that clears 8 KiB per transfer */
		e.code = 0;
		e.msg[0] = '\0';
		curl_multi_remove_handle(m->m, h);
		int rc = kube_curl_end(t, cc, 0, &e);
		on_end(ud, t, rc, &e);
	}
}

void kube_curl_multi_run(kube_curl_multi *m, int timeout_ms, kube_curl_end_fn on_end, void *ud)
{
	int n = 0;
	long tmo = multi_timeout(m, timeout_ms);
	if (tmo > 0 || !m->due) /* libcurl's timer due now: its transfers run first, no wait */
		n = poll(m->pfd, m->npfd, (int)tmo);
	if (n > 0 && m->pfd[0].revents) { /* drained: a short read leaves nothing behind */
		char b[64];
		while (read(m->wake[0], b, sizeof b) == (ssize_t)sizeof b)
			;
	}
	m->pfd[0].revents = 0;
	kube_curl_multi_dispatch(m, n > 0 ? m->pfd + 1 : m->pfd, n > 0 ? m->npfd - 1 : 0, on_end, ud);
}

void kube_curl_multi_wakeup(kube_curl_multi *m)
{
	if (write(m->wake[1], "w", 1) < 0) {
		/* full: a wake-up is pending already */
	}
}
