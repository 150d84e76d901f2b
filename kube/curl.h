/* kube/curl.h — the libcurl transport (library libbhkubecurl.a): HTTPS to
 * the API server of a kube_config with TLS verification (CA data, client
 * certificates, tls-server-name), bearer tokens re-read on rotation,
 * connection reuse and timeouts. Used by the supervisor and the CLI; the
 * worker never links it.
 */
#ifndef BH_KUBE_CURL_H
#define BH_KUBE_CURL_H

#include <poll.h>
#include <stddef.h>

#include "kube/config.h"
#include "kube/transport.h"
#include "lib/error.h"

/* Connect timeout and default whole-request timeout in milliseconds. */
#define KUBE_CURL_CONNECT_TIMEOUT_MS 10000
#define KUBE_CURL_DEFAULT_TIMEOUT_MS 60000

/* A transport for cfg (copied: the caller keeps its cfg). Free with
 * kube_transport_free() or hand to kube_client_new(). */
kube_transport *kube_curl_transport_new(const kube_config *cfg, bh_error *err);

/* The process's own TLS identity (kube/curl_tls.c): cfg's CA, client
 * certificate and key are decoded once here, and every later connection of
 * a transport whose configuration holds the same bytes takes them from
 * there instead of decoding them again (libcurl would, per connection).
 * Others are as before. Call once; only in a program linking libcurl and
 * OpenSSL dynamically (not the CLI, whose libcurl is loaded lazily).
 * Error (and nothing changes) when libcurl's TLS is not this program's
 * OpenSSL or cfg has no CA or is insecure. */
int kube_curl_tls_identity_set(const kube_config *cfg, bh_error *err);
/* Connections set up with that identity so far. */
unsigned long kube_curl_tls_identity_connections(void);

/* Convenience: transport + client for cfg. */
struct kube_client *kube_curl_client_new(const kube_config *cfg, bh_error *err);

/* Streams run side by side by one thread (libcurl's multi interface, in
 * kube/curl_multi.c): each on a curl transport of its own, which stays the
 * caller's and runs nothing else until its stream ends or is stopped. */
typedef struct kube_curl_multi kube_curl_multi;
/* Idle connections a kube_curl_multi keeps for its next transfers. */
#define KUBE_CURL_MULTI_KEEP 32
/* Called by kube_curl_multi_run for a stream that ended: rc and err as the
 * transport's stream op returns them; t is idle again. */
typedef void (*kube_curl_end_fn)(void *ud, kube_transport *t, int rc, const bh_error *err);

kube_curl_multi *kube_curl_multi_new(bh_error *err);
/* Frees m; its streams must have ended or been stopped. NULL is fine. */
void kube_curl_multi_free(kube_curl_multi *m);
/* Starts streaming req on t (a kube_curl_transport_new transport) as
 * t->ops->stream would; req with its strings, resp and ud stay valid until
 * the stream ends (kube_curl_multi_run's on_end) or is stopped. */
int kube_curl_multi_add(kube_curl_multi *m, kube_transport *t, const kube_request *req, kube_response *resp,
                        kube_stream_fn on_data, void *ud, bh_error *err);
/* Stops t's stream at once (the connection is closed); as on_data asking to
 * stop, its outcome is 0 with resp->status as far as it came. No on_end. */
void kube_curl_multi_stop(kube_curl_multi *m, kube_transport *t);
/* Waits up to timeout_ms for the streams' sockets, their timers or a
 * kube_curl_multi_wakeup, moves their bytes (on_data is called from here),
 * and calls on_end for each stream that ended. Only streams whose socket is
 * ready or whose timer is due run (libcurl's socket interface); a stream
 * with nothing to read is not called (no idle tick on_data(NULL, 0): stop
 * one with kube_curl_multi_stop). */
void kube_curl_multi_run(kube_curl_multi *m, int timeout_ms, kube_curl_end_fn on_end, void *ud);
/* kube_curl_multi_run in a caller's own poll(2) (one thread, one poll set):
 * kube_curl_multi_fds gives the sockets the streams wait on (*n of them, m's
 * own, valid until the next call into m) and the longest wait libcurl allows
 * (*timeout_ms, -1: no timer); after the poll, kube_curl_multi_dispatch with
 * those entries (their revents set) runs what is ready or due as
 * kube_curl_multi_run does. */
const struct pollfd *kube_curl_multi_fds(kube_curl_multi *m, size_t *n, int *timeout_ms);
/* fn(fd) is called, on the thread that calls this, whenever a multi handle
 * run by that thread stops waiting on a socket (before libcurl closes it,
 * or as it keeps it idle): a caller that keeps the sockets registered
 * across waits (supervisor/evset.h) drops it then. Set once, before the
 * thread's multi handles run; NULL: none. */
void kube_curl_multi_forget_hook(void (*fn)(int fd));
/* Calls that hook for fd, when set on the calling thread: for another
 * client of the same poll set (kube/h2.h) closing a socket of its own. */
void kube_curl_multi_forget(int fd);
void kube_curl_multi_dispatch(kube_curl_multi *m, const struct pollfd *pfd, size_t n, kube_curl_end_fn on_end,
                              void *ud);
/* Makes a kube_curl_multi_run waiting on another thread return now. */
void kube_curl_multi_wakeup(kube_curl_multi *m);

#endif
