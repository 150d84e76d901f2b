/* kube/transport.h — the one transport seam of the Kubernetes client.
 *
 * A transport moves one HTTP request to the API server and brings back the
 * response. The supervisor and the CLI use the libcurl transport
 * (kube/curl.h, library libbhkubecurl.a); the sandboxed worker implements
 * these same ops by sending each request over its socket to the broker.
 * Retries, backoff, error typing and JSON live above this seam (kube/kube.h),
 * so every transport gets them.
 *
 * A transport is used by one thread at a time. It may send a few requests
 * together (ops->requests): independent reads then cost one round trip.
 */
#ifndef BH_KUBE_TRANSPORT_H
#define BH_KUBE_TRANSPORT_H

#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"

/* One request. All strings are borrowed for the duration of the call. */
typedef struct kube_request {
	const char *method;        /* "GET", "POST", "PUT", "PATCH", "DELETE" */
	const char *path;          /* absolute path plus query: "/api/v1/pods?limit=5" */
	const char *content_type;  /* of the body; NULL when there is none */
	const char *accept;        /* NULL means "application/json" */
	const char *body;          /* may be NULL */
	size_t body_len;
	/* Extra header lines "Name: value", e.g. "Impersonate-User: ...".
	 * NULL-terminated array, or NULL. */
	const char *const *headers;
	long timeout_ms;           /* whole request; 0 = the transport's default */
} kube_request;

/* One response. The transport fills it; kube_response_free() releases it. */
typedef struct kube_response {
	long status;         /* HTTP status, 0 when none was received */
	char *content_type;  /* Content-Type header or NULL */
	char *retry_after;   /* Retry-After header or NULL */
	bh_buf body;         /* the body (for a stream: only when not 2xx) */
} kube_response;

#define KUBE_RESPONSE_INIT {0, NULL, NULL, BH_BUF_INIT}

void kube_response_free(kube_response *resp);  /* frees the members, not resp */
void kube_response_reset(kube_response *resp); /* same, and zeroes it for reuse */

/* Called with the bytes of a 2xx streaming response as they arrive, and
 * with (NULL, 0) now and then while it is idle (about once a second with
 * libcurl), so a stream can be stopped without new bytes.
 * Return 0 to go on, non-zero to stop the stream (the call then returns 0). */
typedef int (*kube_stream_fn)(void *ud, const char *data, size_t len);

/* The most requests ops->requests takes at once: the supervisor's broker
 * forwards at most 4 requests of one worker at a time. */
#define KUBE_BATCH_MAX 4

typedef struct kube_transport_ops {
	/* Performs req and fills resp (any HTTP status is a success here).
	 * Returns 0, or a negative BH_E* code when no HTTP response came back:
	 * BH_EUNAVAIL for connection failures (retryable), BH_ETIMEOUT when
	 * req->timeout_ms passed, BH_EINVAL/BH_EDENIED for errors retrying
	 * cannot fix (bad TLS configuration, broker refusal). */
	int (*request)(void *impl, const kube_request *req, kube_response *resp,
	               bh_error *err);
	/* Streaming variant (watch): sets resp->status and headers; when the
	 * status is 2xx the body goes to on_data as it arrives, otherwise it is
	 * collected in resp->body. Returns 0 when the server ended the stream or
	 * on_data asked to stop, or a negative code as for request (a dropped
	 * connection mid-stream is BH_EUNAVAIL). req->timeout_ms bounds the whole
	 * stream when non-zero. */
	int (*stream)(void *impl, const kube_request *req, kube_response *resp,
	              kube_stream_fn on_data, void *ud, bh_error *err);
	/* Releases impl. */
	void (*free)(void *impl);
	/* Optional (NULL: the client sends them one by one with request):
	 * performs the n requests (1 <= n <= KUBE_BATCH_MAX) together, their
	 * answers taken in whatever order they come. rcs[i], resps[i] and
	 * *errs[i] are what request would have given for reqs[i]: one
	 * request's failure (a refusal, a timeout) does not fail the others. */
	void (*requests)(void *impl, size_t n, const kube_request *reqs, kube_response *resps, int *rcs,
			 bh_error *const *errs);
} kube_transport_ops;

/* A transport: ops plus its state. kube_client_new() takes ownership. */
typedef struct kube_transport {
	const kube_transport_ops *ops;
	void *impl;
} kube_transport;

/* Allocates a transport around ops/impl (NULL on OOM; impl is then not freed). */
kube_transport *kube_transport_new(const kube_transport_ops *ops, void *impl);
/* Calls ops->free(impl) and frees t. NULL is fine. */
void kube_transport_free(kube_transport *t);

#endif
