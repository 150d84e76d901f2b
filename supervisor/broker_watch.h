/* supervisor/broker_watch.h — the workers' watches. A worker's wait watches
 * the last object it waits for (kube/wait.h); the broker checks the request
 * (broker.h: one named object, at most 60 s) and hands it here. One thread
 * drives every watch (libcurl's multi interface, at most 32 at a time; the
 * forwarding threads' short requests never wait for a watch), as the
 * tenant, audited like any request. A new watch's connection resumes a TLS
 * session (kube/curl.c) instead of a full handshake. The stream's bytes go back to the main
 * loop as fwd_req pieces (forward.h, piece = 1) for the worker's
 * PROTO_KUBE_STREAM frames; the answer that ends it comes last. */
#ifndef BH_SUPERVISOR_BROKER_WATCH_H
#define BH_SUPERVISOR_BROKER_WATCH_H

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

#endif
