/* supervisor/broker.h — what a worker may ask of the supervisor. Every frame
 * from a worker goes through broker_dispatch(): the message type selects a
 * row of the dispatch table (handler + policy, in the manner of OpenSSH's
 * monitor mon_dispatch), the payload is decoded as hostile input (proto/),
 * and Kubernetes requests are checked against the worker's job, given the
 * tenant identity (impersonation of the HelmRelease's ServiceAccount),
 * forwarded by the forwarding threads (forward.h), audited, and answered. */
#ifndef BH_SUPERVISOR_BROKER_H
#define BH_SUPERVISOR_BROKER_H

#include "ipc/ipc.h"
#include "kube/kube.h"
#include "lib/error.h"
#include "supervisor/job.h"

/* Handles one frame. Returns 0, or BH_EPROTO/BH_EDENIED for a violation
 * that ends the worker (err says what; j->violation is set and audited),
 * or BH_EIO when an audit record could not be written (j->audit_error is
 * set; the request was not forwarded; the worker must be ended too).
 * Refused Kubernetes requests are not violations: the worker gets a 403
 * Status and may go on. */
int broker_dispatch(sv_job *j, ipc_msg *m, bh_error *err);

/* Records the worker's first protocol violation and audits it. */
void broker_violation(sv_job *j, const char *what);

/* Audits a forwarded request's outcome and queues the answer to j (NULL
 * when the worker is gone: only audited). When the outcome cannot be
 * recorded the answer is withheld, j->audit_error is set and BH_EIO
 * returned: the caller ends the worker. */
struct fwd_req;
/* Forwards a GET list of path the supervisor itself makes as j's identity
 * (the no-op check, noop.h), audited as the worker's requests are; the
 * answer comes back with j's serial. */
int broker_forward_own(sv_job *j, const char *path, bh_error *err);
int broker_answer(sv_job *j, struct fwd_req *f, bh_error *err);

/* The policy check alone (pure; for tests): 0 when the request may be
 * forwarded, else BH_EDENIED with the reason in err. */
int broker_check_request(const sv_job *j, const proto_kube_request *r, bh_error *err);

/* The longest watch a worker may ask for (timeoutSeconds). */
#define BROKER_MAX_WATCH_SECONDS 60

/* "get", "list", "watch", "create", "update", "patch", "delete" from method + path. */
const char *broker_verb(const char *method, const char *path);
/* Does path ask for a watch (a watch parameter in its query)? */
int broker_is_watch(const char *path);
/* Is path an API discovery path (/api, /apis, /apis/GROUP/VERSION, ...)? */
int broker_is_discovery(const char *path);

#endif
