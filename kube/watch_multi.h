/* kube/watch_multi.h — a watch driven by the caller's poll loop: the
 * stream of kube_watch (kube.h) as one transfer on a libcurl multi handle
 * (kube/curl.h) whose sockets the caller polls with its own, or as a
 * stream of a connection the caller polls anyway (kube_watch_multi_carrier,
 * below), so its events are decoded and delivered on the caller's thread, with no thread of its
 * own and no hand-over. It resumes from the last resourceVersion, takes
 * bookmarks, reconnects with kube_watch's backoff on a failed or garbled
 * stream and after a stream that ends with nothing to say, as kube_watch
 * does; what needs a list (the start, 410 Gone, a refusal or too many
 * failures) it leaves to the caller: kube_watch_multi_relist, which
 * blocks, on a thread that may block, then kube_watch_multi_resume. */
#ifndef BH_KUBE_WATCH_MULTI_H
#define BH_KUBE_WATCH_MULTI_H

#include <poll.h>
#include <stddef.h>

#include "kube/kube.h"
#include "lib/error.h"

typedef struct kube_watch_multi kube_watch_multi;

/* A watch of r in ns (NULL: all) through c (its transport, a curl one,
 * streams it; c is used by nothing else meanwhile) with opts (copied; its
 * strings and r stay the caller's; max_seconds and resource_version are
 * not used), delivering to fn(ud, ...) as kube_watch does. Idle until
 * kube_watch_multi_resume. NULL with err set. */
kube_watch_multi *kube_watch_multi_new(kube_client *c, const kube_resource *r, const char *ns,
				       const kube_watch_opts *opts, kube_watch_fn fn, void *ud, bh_error *err);
void kube_watch_multi_free(kube_watch_multi *w);
/* While idle, on any thread (it blocks): lists r and hands the list to fn
 * as RELIST; the stream then resumes from the list's resourceVersion. */
int kube_watch_multi_relist(kube_watch_multi *w, bh_error *err);
/* The stream (re)starts from the last resourceVersion: at once, or after
 * delay_ms. */
void kube_watch_multi_resume(kube_watch_multi *w, long delay_ms);
/* Before the caller's poll: the sockets the stream waits on (*n of them,
 * valid until kube_watch_multi_run) and the longest the caller may wait
 * (*timeout_ms, -1: no limit). Starts a stream that is due. */
const struct pollfd *kube_watch_multi_fds(kube_watch_multi *w, size_t *n, int *timeout_ms);
/* After the poll (pfd[0..n): the entries of kube_watch_multi_fds with
 * their revents): moves the stream's bytes (fn is called from here). 0
 * while the watch goes on (reconnecting by itself); BH_EGONE when it needs
 * a list (410 Gone), or another code with err set when it stopped on an
 * error kube_watch would return (a refusal, too many failures): idle then,
 * a list and kube_watch_multi_resume start it again. 0 and idle too when
 * fn asked to stop. */
int kube_watch_multi_run(kube_watch_multi *w, const struct pollfd *pfd, size_t n, bh_error *err);

/* Another carrier of the stream than the watch's own libcurl transfer: a
 * connection the caller's loop already polls (kube/h2.h's, say), so the
 * events come with that connection's other bytes, on no socket of their
 * own. add(cud, req, resp, w, err) takes the stream (0; req and resp stay
 * valid until it ends or is stopped), leaves it to libcurl (1), or fails
 * (< 0, err set: judged as a stream that failed). The carrier hands the
 * body's bytes to kube_watch_multi_data(w, ...) and its end to
 * kube_watch_multi_end(w, ...), both on the loop's thread; they only keep
 * them for the next kube_watch_multi_run, which decodes and delivers them
 * (the callback runs from kube_watch_multi_run whichever carries the
 * stream). stop(cud, w) drops a stream not ended (no end call after it).
 * car stays the caller's; NULL: libcurl alone. */
typedef struct kube_watch_carrier {
	int (*add)(void *cud, const kube_request *req, kube_response *resp, kube_watch_multi *w, bh_error *err);
	void (*stop)(void *cud, kube_watch_multi *w);
	void *cud;
} kube_watch_carrier;
void kube_watch_multi_carrier(kube_watch_multi *w, const kube_watch_carrier *car);
/* The carrier's hand-over (w is a kube_watch_multi): a 2xx answer's body
 * bytes (always 0: kept, judged by kube_watch_multi_run); the stream's end
 * (rc, err as a transport's stream op returns them; sent 0 when the
 * request never left: it goes again, by the carrier or libcurl, at once). */
int kube_watch_multi_data(void *w, const char *data, size_t len);
void kube_watch_multi_end(void *w, int rc, const bh_error *err, int sent);

#endif
