/* kube/curl_priv.h — what kube/curl_multi.c needs of a libcurl transport
 * (kube/curl.c): a stream set up on its handle without performing it, and
 * its outcome once the handle is done. Not a public API. */
#ifndef BH_KUBE_CURL_PRIV_H
#define BH_KUBE_CURL_PRIV_H

#include <curl/curl.h>

#include "kube/config.h"
#include "kube/transport.h"

/* Sets req up on t's handle as t->ops->stream would and returns the handle
 * (t's, borrowed), or NULL with err set (t is not a curl transport, already
 * has a stream, or req is refused). req and its strings, resp and ud stay
 * the caller's until kube_curl_end. */
CURL *kube_curl_start(kube_transport *t, const kube_request *req, kube_response *resp, kube_stream_fn on_data,
                      void *ud, bh_error *err);
/* t's handle (borrowed). */
CURL *kube_curl_handle(kube_transport *t);
/* The stream's outcome, as t->ops->stream returns it: cc is libcurl's result
 * for the handle; stop = 1 when the caller stopped it (as on_data asking to
 * stop: 0, resp->status as far as it came). The handle is idle again. */
int kube_curl_end(kube_transport *t, CURLcode cc, int stop, bh_error *err);

/* A new libcurl share of TLS sessions, locked by the process's share
 * locks (set up by the first transport), or NULL (out of memory);
 * curl_share_cleanup() it. */
CURLSH *kube_curl_session_share_new(void);

/* The proxy libcurl (7.88) takes from the environment for an https (1) or
 * http (0) URL when none is set: https_proxy, HTTPS_PROXY, then all_proxy,
 * ALL_PROXY (http: http_proxy, never HTTP_PROXY, then all_proxy,
 * ALL_PROXY); a variable set empty counts as unset. "" for none. Borrowed
 * from the environment (or a literal): valid until it is changed. */
const char *kube_curl_env_proxy(int https);
/* The hosts that bypass a proxy, as libcurl reads them from the
 * environment: no_proxy, else NO_PROXY, "" for none (borrowed, as above). */
const char *kube_curl_env_noproxy(void);

/* kube/curl_tls.c's identity, applied to h for configuration c when c is
 * it (1), or not (0, h untouched). */
typedef int (*kube_curl_tls_fn)(CURL *h, const kube_config *c);
/* Every transport's credentials go through fn from now on (set once). */
void kube_curl_tls_hook_set(kube_curl_tls_fn fn);
/* The CApath of the identity's handles: no other configuration has it, so
 * libcurl never lends one of their connections to another; never read. */
#define KUBE_CURL_TLS_ID_CAPATH "/nonexistent/bulkhead-tls-identity"

#endif
