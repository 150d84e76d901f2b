/* supervisor/forward.h — the broker's forwarding. Requests a worker may make
 * (already checked by the broker's policy) are queued here and sent to the
 * API server as the tenant identity by the main loop's thread, each request
 * a transfer of its own on one libcurl multi handle, or a stream of the
 * one HTTP/2 connection of kube/h2.h when the server allows it, whose
 * sockets are in the loop's poll set (fwd_fds, fwd_run; a remote cluster's
 * request on a thread of its own); the loop collects the answers. Non-blocking: a slow
 * API server or a slow request never blocks the supervisor's loop
 * (deadlines, other workers, the watch) nor the other requests. A request is sent only once
 * its intent record is durable (audit.h): it is held, and nobody waits on
 * the disk, until the audit log's sync thread says so; a failed sync means
 * it is never sent (audit_error). Idempotent requests are retried as
 * kube_request_send does (kube_retry_wait), on timers. */
#ifndef BH_SUPERVISOR_FORWARD_H
#define BH_SUPERVISOR_FORWARD_H

#include <poll.h>
#include <stddef.h>
#include <sys/queue.h>

#include "kube/config.h"
#include "kube/transport.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "proto/proto.h"

typedef struct fwd_req {
	unsigned long serial;     /* of the job that asked */
	uint32_t id;              /* its request id */
	char *key;                /* "ns/name" of the HelmRelease (audit) */
	char *identity;           /* impersonated ServiceAccount user, or NULL */
	proto_kube_request r;     /* the request (owned) */
	unsigned long long audit_id; /* links its intent and outcome records */
	kube_config *remote;      /* send to this cluster instead (owned), or NULL */
	char *cluster;            /* its name for the audit record, or NULL */
	unsigned long long audit_seq; /* its intent record (audit_write): durable before it is sent */
	const char *verb;         /* its audit verb (a literal, broker_verb), or NULL: from r */
	/* filled by the forwarding (fwd_run, or a watch's or remote cluster's thread) */
	long status;              /* HTTP status; 0 when none came back */
	bh_buf body;
	char error[512];
	char audit_error[512];    /* the intent or outcome record failed: not sent, or the answer withheld */
	double ms;
	int piece;                /* bytes of a watch's stream (broker_watch.h): more follow */
	STAILQ_ENTRY(fwd_req) link; /* in the forwarding's lists; fwd_take_done's list */
} fwd_req;

/* Sets up the forwarding with transports for n requests at a time (more are
 * made when more run) for cfg. The calling thread is the loop's: it runs
 * fwd_fds/poll/fwd_run. wake() (callable from any thread) is called when
 * another thread (the audit log's sync thread, a watch's or a remote
 * cluster's) hands the loop a request to send or an answer, to an empty
 * list (once per batch: the loop takes the lists each turn). */
int fwd_start(const kube_config *cfg, int n, void (*wake)(void), bh_error *err);
/* Before the loop's poll: the sockets the requests in flight wait on (*n of
 * them, valid until fwd_run) for the poll set, and the longest the loop may
 * wait (*timeout_ms; -1: as long as it likes; 0: requests to start or
 * answers to take, fwd_take_done). On kube/h2.h's connection the requests
 * ready to go start here and their frames are written before the poll (an
 * answer that ends a stream then may call a fwd_own_send caller's
 * function, on this thread). */
const struct pollfd *fwd_fds(size_t *n, int *timeout_ms);
/* After the loop's poll: pfd[0..n) the entries of fwd_fds, their revents
 * set. Starts the requests whose intent is durable and the retries that are
 * due, moves the bytes of those whose socket is ready; the answers go to
 * fwd_take_done. */
void fwd_run(const struct pollfd *pfd, size_t n);
/* Queues r (ownership passes): held until its intent record (audit_seq) is
 * durable, then sent (a watch, broker_is_watch, by broker_watch.h's thread);
 * never sent when that record's sync failed (r->audit_error). */
void fwd_submit(fwd_req *r);
/* The tenant's identity of f as the API server gets it: "Impersonate-User:
 * <identity>" into user_h (user_n bytes) and req->headers = headers (the
 * user alone: the API server gives an impersonated ServiceAccount its
 * groups); nothing without an identity. -1 with f->error set when it does
 * not fit. Used by the forwarding and the watch threads. */
int fwd_impersonate(fwd_req *f, kube_request *req, char *user_h, size_t user_n, const char *headers[2]);
/* Takes every answered request: the first, the others after it by
 * STAILQ_NEXT(f, link), oldest first (caller frees each). */
fwd_req *fwd_take_done(void);
void fwd_req_free(fwd_req *r);
/* Hands an answered request (or a piece of a stream) to the main loop. */
void fwd_done(fwd_req *r);
/* The API server's configuration the threads were started with. */
const kube_config *fwd_config(void);
/* The loop's HTTP/2 client to that server (kube/h2.h; its socket in the
 * loop's poll set through fwd_fds), or NULL when libcurl serves it: the
 * watches' streams (broker_watch.h) go on it too. Loop's thread only. */
struct kube_h2 *fwd_h2(void);

/* The supervisor's own request (no worker, no identity, no audit record:
 * the controller's writes of what it reports, status.h), sent by the loop
 * like a worker's, retried alike; req and what it points to stay valid
 * until done(ud, rc, resp, err, giveup) runs on the loop's thread (rc < 0:
 * no answer, err says why; else resp is the answer, any status, and giveup
 * "giving up after N attempts (why)" when retries of such answers ran out,
 * else NULL). Never called from here: at the next fwd_run. At most 16
 * such requests are under way at once; the others wait their turn, in
 * order (each holds a handle, buffers and a stream). Loop's thread only. */
typedef void (*fwd_own_fn)(void *ud, int rc, const kube_response *resp, const bh_error *err, const char *giveup);
int fwd_own_send(const kube_request *req, fwd_own_fn done, void *ud, bh_error *err);
/* fn runs on the loop's thread at the start of each fwd_fds and fwd_run
 * (its own requests queued, fwd_own_send). */
void fwd_hook_set(void (*fn)(void));
/* From another thread: the loop looks again (its hook runs) soon. */
void fwd_wake(void);
/* One turn of the loop for its requests alone (poll at most timeout_ms):
 * at exit, when the main loop no longer runs. */
void fwd_turn(int timeout_ms);

#endif
