/* kube/wait.h — waiting for objects to become ready (or to be deleted) the
 * way Helm 4's kstatus waiter does (pkg/kube/statuswait.go), by polling
 * GETs; the last object left to wait for is watched instead when the
 * transport streams (the worker's broker does), so its readiness is seen
 * when it happens, in one request. */
#ifndef BH_KUBE_WAIT_H
#define BH_KUBE_WAIT_H

#include <jansson.h>
#include <stddef.h>

#include "kube/kube.h"
#include "kube/ready.h"

typedef enum kube_wait_mode {
	KUBE_WAIT_READY,   /* Helm --wait (watcher): every object Current */
	KUBE_WAIT_JOBS,    /* --wait-for-jobs: Jobs must also have completed */
	KUBE_WAIT_HOOKS,   /* hooks: Jobs complete, Pods succeed, the rest at once */
	KUBE_WAIT_DELETED, /* every object gone (NotFound) */
} kube_wait_mode;

#define KUBE_WAIT_DEFAULT_TIMEOUT_MS 30000 /* Helm's DefaultStatusWatcherTimeout */
#define KUBE_WAIT_DEFAULT_INTERVAL_MS 1000
#define KUBE_WAIT_WATCH_MAX_SECONDS 60 /* timeoutSeconds of one watch request */

typedef struct kube_wait_opts {
	kube_wait_mode mode;
	long timeout_ms;  /* 0 = KUBE_WAIT_DEFAULT_TIMEOUT_MS */
	long interval_ms; /* between polls; 0 = KUBE_WAIT_DEFAULT_INTERVAL_MS */
} kube_wait_opts;

/* Waits for objs (each with apiVersion, kind, metadata.name and, when
 * namespaced, metadata.namespace). Paused Deployments are not waited for.
 * A Failed object stops the wait once the others are done. Returns 0, or
 * BH_ETIMEOUT / BH_EEXEC with Helm's messages, one line per object:
 * "resource Deployment/ns/web not ready. status: InProgress, message: ..."
 * (plus "context deadline exceeded" on timeout); BH_EDENIED and mapping
 * errors end the wait at once. */
int kube_wait(kube_client *c, json_t *const *objs, size_t n, const kube_wait_opts *opts, bh_error *err);

/* The members of an apply's answer kube_wait's first look at the object
 * does not read (its managedFields and kube_ready_unread's), for
 * kube_write_opts.answer_drop when the answer is kept only for a wait. */
extern const char *const kube_wait_apply_drop[];

#endif
