/* supervisor/status.h — what the supervisor writes back to a HelmRelease:
 * .status (conditions Ready/Released with Flux's reasons and
 * lastTransitionTime kept while the status does not change,
 * observedGeneration, lastAttempted*, history newest-first, storageNamespace,
 * helmChart) through the status subresource, and Kubernetes Events.
 * A worker that ran the release state machine computes the conditions,
 * history and counters itself (proto RESULT "status", validated); the
 * supervisor keeps lastTransitionTime, sets observedGeneration (Ready or
 * Stalled), lastAttemptedGeneration, lastHandledReconcileAt, helmChart and
 * storageNamespace, and records the worker's events. */
#ifndef BH_SUPERVISOR_STATUS_H
#define BH_SUPERVISOR_STATUS_H

#include <jansson.h>
#include <stdint.h>

#include "kube/config.h"
#include "kube/kube.h"
#include "lib/error.h"
#include "proto/proto.h"

typedef struct sv_outcome {
	int ready;
	const char *reason;            /* CamelCase */
	const char *message;
	const char *action;            /* "install"/"upgrade" when a release action ran, else NULL */
	const proto_snapshot *release; /* release written by the action, or NULL */
	int attempted;                 /* sets lastAttemptedGeneration/Revision */
	const char *revision;          /* chart version attempted, or NULL */
	const char *helmchart;         /* "ns/name" or NULL */
	const char *storage_ns;        /* or NULL */
	int event;                     /* also record an Event */
	int stalled;                   /* also Stalled=True: the spec cannot work until changed */
	int progressing;               /* a worker started: Ready=Unknown and
					* Reconciling=True (reason Progressing) */
	const json_t *wstatus;         /* the status a state-machine worker computed
					* (proto_result.status, validated), or NULL:
					* its conditions replace the owned ones, its
					* fields replace the catalogue's fields */
	const json_t *events;          /* the worker's events (proto_result.events)
					* recorded instead of the single one, or NULL */
	uint64_t *written;             /* the object's record of the status last
					* written (status_patch), or NULL */
} sv_outcome;

extern const kube_resource sv_helmrelease_resource;
extern const kube_resource sv_helmchart_resource;

/* Builds the new .status object from the old one and o (pure). It shares
 * values with hr's status and o->wstatus: change only its top level. */
json_t *status_build(const json_t *hr, const sv_outcome *o, const char *now);
/* The digest of a status (members in any order), never 0. */
uint64_t status_digest(const json_t *st);
/* The merge patch (compact text, new in *text) that takes hr's status to
 * st. written is the object's record: the digest of the status last
 * written (0: none; NULL: no record). While hr's status is that one (the
 * cache shows our last write, and nobody else's since), only the members
 * that change go, and *text is NULL when none does; otherwise (a write
 * not seen yet, another writer's change, a failed write) the whole status
 * goes (st itself, which gains the members hr's status has and st has not,
 * as null). *written becomes st's digest. 0, or BH_ENOMEM. */
int status_patch(const json_t *hr, json_t *st, uint64_t *written, char **text);
/* Writes it (merge patch on /status: status_patch with o->written; none
 * when nothing changes) and, when o->event, its Events.
 * After status_async_start (which needs fwd_start: forward.h), the patch and
 * Events are built here and sent by the main loop as requests of its own
 * (fwd_own_send: no thread, no blocking client; an object's writes and runs
 * in order, one request at a time): the loop never waits on the API server
 * for a status; a failed write is logged. status_flush, on the loop's
 * thread once its loop has ended, sends everything queued (at exit).
 * Loop's thread only. */
int status_write(kube_client *kc, const json_t *hr, const sv_outcome *o, bh_error *err);
void status_async_start(void);

/* A run (status_run): requests about the object itself that must not block
 * the main loop (its finalizer, the ServiceAccount check of its deletion),
 * as a state machine. fn(ud, st) is called first with st->step 0, then
 * with the outcome of each request it asked for (st->step k: of its k-th);
 * it returns 1 having set st->req to the next request (which, and what it
 * points to, stay valid until fn's next call), or 0 when it has ended (fn
 * then owns ud no more: it freed or handed it on). */
typedef struct status_step {
	unsigned step;             /* 0: the first call; k: the outcome of the k-th request */
	int rc;                    /* 0: answered (resp, any status); < 0: no answer (err) */
	const kube_response *resp; /* valid during the call */
	const bh_error *err;
	const char *giveup;        /* "giving up after N attempts (why)" when retries ran out, or NULL */
	kube_request sent;         /* the request whose outcome this is */
	kube_request req;          /* fn's next request (zeroed before each call) */
} status_step;
typedef int (*status_run_fn)(void *ud, status_step *st);
/* Runs fn on the loop's thread as the main loop's own requests
 * (fwd_own_send: retried as kube_request_send does), after the writes and
 * runs queued before it for the HelmRelease ns/name, and before those
 * queued after it. Needs status_async_start. 0, or an error (fn was not
 * called and does not own ud). Loop's thread only. */
int status_run(const char *ns, const char *name, status_run_fn fn, void *ud, bh_error *err);
/* The outcome of st's last request as kube_get/kube_patch/kube_delete
 * report it: 0 for an answer 2xx (with out: its body decoded, new in
 * *out, null when empty), else the error (BH_ENOTFOUND for 404, ...) in e
 * with the message a blocking client gives ("METHOD PATH: 404 NotFound:
 * ...", after "giving up after ..." when retries ran out) for st->sent. */
int status_step_result(const status_step *st, json_t **out, bh_error *e);
void status_flush(void);

#endif
