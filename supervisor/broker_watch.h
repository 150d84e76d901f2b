/* supervisor/broker_watch.h — the workers' watches. A worker's wait watches
 * the last object it waits for (kube/wait.h); the broker checks the request
 * (broker.h: one named object, at most 60 s) and hands it here. The main
 * loop's thread drives every watch (libcurl's multi interface, its sockets
 * in the loop's poll, at most 32 at a time; the forwarding's short requests
 * never wait for a watch), as the tenant, audited like any request: each
 * piece of a stream is read on the thread that writes it to the worker. A new watch's connection resumes a TLS
 * session (kube/curl.c) instead of a full handshake. The stream's bytes go back to the main
 * loop as fwd_req pieces (forward.h, piece = 1) for the worker's
 * PROTO_KUBE_STREAM frames; the answer that ends it comes last. */
#ifndef BH_SUPERVISOR_BROKER_WATCH_H
#define BH_SUPERVISOR_BROKER_WATCH_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/forward.h"

/* Queues the watch f (ownership passes; its answer comes back through
 * fwd_take_done like a forwarded request's). fwd_submit calls it once f's
 * intent record is durable, or its sync failed (f->audit_error: answered
 * unsent). */
void bwatch_submit(fwd_req *f);
/* Stops request id of job serial (the worker has what it waited for, or is
 * gone): its connection is closed at once. Unknown ids are ignored. */
void bwatch_cancel(unsigned long serial, uint32_t id);
/* Stops every watch of job serial (its worker ended: a watch it left open
 * would otherwise hold its connection until its timeout). */
void bwatch_cancel_job(unsigned long serial);
/* Watches of job serial still running and not stopped. */
unsigned bwatch_count(unsigned long serial);
/* The loop's thread, before its poll: starts the queued watches that have
 * room, stops the cancelled ones, and gives the sockets the watches wait on
 * (*n of them, NULL when none; valid until bwatch_run) and the longest the
 * loop may wait for them (*timeout_ms, -1: no limit). Another thread's
 * bwatch_submit or bwatch_cancel wakes the loop (fwd_wake). */
const struct pollfd *bwatch_fds(size_t *n, int *timeout_ms);
/* After the poll: pfd[0..n) the entries of bwatch_fds with their revents;
 * moves the streams' bytes (fwd_done pieces) and answers the ended ones. */
void bwatch_run(const struct pollfd *pfd, size_t n);

#endif
