/* kube/h2.h — a direct HTTP/2 client for the supervisor's forwarding
 * (library libbhkubeh2.a; nghttp2 for the framing, OpenSSL for TLS): one
 * non-blocking connection to the API server of a kube_config, each request
 * a stream of its own on it, driven from a caller's poll set (kube_h2_fds,
 * kube_h2_dispatch) as kube/curl.h's kube_curl_multi is. Same TLS identity
 * and verification as the libcurl transport for that configuration (CA
 * bytes or the system's store, client certificate and key,
 * tls-server-name), the bearer token through kube_config_refresh (token
 * file rotation). Only for a configuration kube_h2_usable accepts (an
 * https server, no proxy, no exec plugin or basic auth, not insecure, not
 * strict). A server given by host name is looked up for each new
 * connection on a short-lived thread (the caller's loop polls its eventfd
 * meanwhile, never held by a slow resolver), its addresses tried in order,
 * and its certificate checked for that name (SNI sent), or for
 * tls-server-name as libcurl does; a name that does not resolve ends the
 * waiting streams unsent (BH_EUNAVAIL) naming the host. A server that
 * does not negotiate "h2" by ALPN makes kube_h2_refused true, and its
 * requests end unsent, for the caller to send another way. The worker
 * never links it.
 *
 * A stream not yet sent when its connection goes (a GOAWAY that did not
 * take it, the server's REFUSED_STREAM, a connection lost before its
 * HEADERS left) is sent again on a new connection; a sent one whose
 * connection goes ends with BH_EUNAVAIL, for the caller's retry policy.
 * Streams beyond the server's SETTINGS_MAX_CONCURRENT_STREAMS wait here.
 * A connection's health is checked as client-go's HTTP/2 transport does
 * (ReadIdleTimeout, PingTimeout): one with streams open that read nothing
 * for ping_idle_ms is sent a PING, and when nothing comes within
 * ping_timeout_ms it is dead: closed, as if the server had dropped it (a
 * watch's stream then ends with BH_EUNAVAIL and is started again by its
 * caller), rather than left to hang until the streams' own timeouts.
 * The caller ignores SIGPIPE (bulkheadd does): a write to a connection the
 * server closed is then an error of that write. */
#ifndef BH_KUBE_H2_H
#define BH_KUBE_H2_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/config.h"
#include "kube/transport.h"
#include "lib/error.h"

/* Largest response body (as the libcurl transport's), longest response
 * header value taken, connect (lookup, TCP and TLS) timeout unless
 * kube_h2_options sets one. */
#define KUBE_H2_MAX_BODY (512u << 20)
#define KUBE_H2_MAX_VALUE 8192
#define KUBE_H2_CONNECT_TIMEOUT_MS 10000
#define KUBE_H2_DEFAULT_TIMEOUT_MS 60000
/* The health check's defaults: client-go's (30 s idle, 15 s for the PING). */
#define KUBE_H2_PING_IDLE_MS 30000
#define KUBE_H2_PING_TIMEOUT_MS 15000

typedef struct kube_h2 kube_h2;

/* A client's options (zero fields: the defaults). */
typedef struct kube_h2_options {
	void (*forget)(int fd); /* called before its socket is closed (a caller whose poll
	                         * set keeps sockets registered drops it then); NULL: none */
	int ping_idle_ms;       /* nothing read for this long with streams open: a PING */
	int ping_timeout_ms;    /* nothing read for this long after it: the connection is dead */
	int connect_timeout_ms; /* a new connection's name lookup, TCP and TLS together */
	int write_before_poll;  /* non-zero: kube_h2_dispatch writes only the bytes the socket
	                         * held back (on POLLOUT); the frames made since (requests,
	                         * window updates, acknowledgements, PINGs) go at the caller's
	                         * kube_h2_flush before its next poll, so one turn of its loop
	                         * makes one write, not one after the poll and one for what it
	                         * queued before the next */
} kube_h2_options;

/* 1 when cfg can be served here exactly as the libcurl transport would
 * serve it, else 0 with *why (a literal) saying why not. */
int kube_h2_usable(const kube_config *cfg, const char **why);
/* A client for cfg (copied) with the options opt (NULL: the defaults);
 * connects on its first request. NULL with err set when cfg is not usable,
 * its credentials do not load, or an interval of opt is negative. */
kube_h2 *kube_h2_new(const kube_config *cfg, const kube_h2_options *opt, bh_error *err);
/* Closes the connection; streams not ended are dropped (no end call). */
void kube_h2_free(kube_h2 *h);

/* Called by kube_h2_dispatch for a stream that ended: sud is kube_h2_add's;
 * rc and err as a transport's request (or stream) op returns them (0: resp
 * holds the answer, any status); sent 0 when the request never left this
 * process (safe to send another way). */
typedef void (*kube_h2_end_fn)(void *sud, int rc, const bh_error *err, int sent);
/* Queues req as a stream; req with its strings and resp stay valid until
 * it ends (on_end) or is stopped; sud names it. on_data NULL: resp gets the
 * whole answer; else a 2xx answer's body goes to on_data(sud, ...) as it
 * comes (non-zero: stop; the stream then ends with 0), as a transport's
 * stream op has it, with no idle tick (stop one with kube_h2_stop). Error
 * (nothing queued): the credentials could not be refreshed, or a header
 * holds a control character. */
int kube_h2_add(kube_h2 *h, const kube_request *req, kube_response *resp, kube_stream_fn on_data,
                kube_h2_end_fn on_end, void *sud, bh_error *err);
/* Stops sud's stream (reset if it was sent); no end call. */
void kube_h2_stop(kube_h2 *h, void *sud);
/* The fd to poll (*n: 0 or 1, h's own, valid until the next call into h:
 * its socket, or the eventfd of a lookup of the server's name; either is
 * given to opt's forget before h lets it go) and the longest wait
 * (*timeout_ms, -1: none). */
const struct pollfd *kube_h2_fds(kube_h2 *h, size_t *n, int *timeout_ms);
/* After the poll: pfd[0..n) (h's entry among them, revents set; others
 * ignored). Moves bytes, starts what waits, ends what is done or due. */
void kube_h2_dispatch(kube_h2 *h, const struct pollfd *pfd, size_t n);
/* Before the caller's poll: streams waiting start (a connection is begun
 * for them) and every frame waiting is written; ended streams go to their
 * end calls. Deadlines and the health check are left to kube_h2_dispatch
 * (the turn's dispatch looked at them; kube_h2_fds wants no wait for one
 * due since). With write_before_poll the caller calls it before each poll
 * (then kube_h2_fds wants no wait for a write). */
void kube_h2_flush(kube_h2 *h);
/* The server did not negotiate h2: every request added from now on ends
 * unsent. */
int kube_h2_refused(const kube_h2 *h);
/* Connections made so far (TCP + TLS handshakes). */
unsigned long kube_h2_connections(const kube_h2 *h);

/* One response header field into resp (kube/h2_head.c): ":status" (three
 * digits, 100-599), content-type and retry-after (trimmed copies), and
 * content-length into *clen (digits; UINT64_MAX when none or too large);
 * others are ignored. A pure decoder of the server's bytes: 0, or
 * BH_EPROTO (a bad status, a second one, a value longer than
 * KUBE_H2_MAX_VALUE, NUL, CR or LF in a value taken) or BH_ENOMEM with err set. An informational status
 * (1xx) is taken like any: the caller drops it with the fields before it. */
int kube_h2_head_field(kube_response *resp, uint64_t *clen, const uint8_t *name, size_t nlen,
                       const uint8_t *value, size_t vlen, bh_error *err);

#endif
