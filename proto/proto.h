/* proto/proto.h — the message catalogue between bulkheadd (supervisor) and
 * bulkhead-worker: message types, their payload encodings, and decoders that
 * validate every field. The supervisor-side decoders (KUBE_REQUEST, LOG,
 * RESULT, SECCOMP) treat every byte as hostile: pure functions, bounded
 * sizes and counts, no trust in any length, and precise error messages.
 *
 * Payloads are sequences of fields: u32 (little-endian) or string
 * (u32 length + bytes). Framing is ipc/ipc.h. */
#ifndef BH_PROTO_H
#define BH_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/error.h"

enum proto_type {
	/* supervisor -> worker */
	PROTO_JOB = 1,           /* str job JSON; carries the chart artifact fd */
	PROTO_KUBE_RESPONSE = 2, /* u32 status, str body; id = request id */
	PROTO_FETCH = 3,         /* to bulkhead-fetcher: request JSON (proto/fetch.h) */
	PROTO_KUBE_STREAM = 4,   /* bytes of a watch's stream as they come; id = request id;
				    its KUBE_RESPONSE (status, "") ends the stream */
	/* worker -> supervisor */
	PROTO_KUBE_REQUEST = 16, /* str method, str path, u32 n, n x (str name, str value), str body */
	PROTO_LOG = 17,          /* str message */
	PROTO_RESULT = 18,       /* str result JSON (see proto_result) */
	PROTO_SECCOMP = 19,      /* u32 syscall number, u32 audit arch (from the SIGSYS handler) */
	PROTO_FETCH_RESULT = 20, /* from bulkhead-fetcher: result JSON (proto/fetch.h), artifact fd */
	PROTO_KUBE_CANCEL = 21,  /* empty; id = the watch request to stop (its late frames are dropped) */
};

/* Limits of the supervisor's decoders. */
#define PROTO_MAX_PATH 4096
#define PROTO_MAX_HEADERS 16
#define PROTO_MAX_HEADER_NAME 128
#define PROTO_MAX_HEADER_VALUE 4096
#define PROTO_MAX_LOG 4096
#define PROTO_MAX_RESULT (1u << 20)
#define PROTO_MAX_TEXT 1024 /* reason/message copied into status */

const char *proto_type_name(uint32_t type);

/* ---- KUBE_REQUEST ------------------------------------------------------ */
typedef struct proto_header {
	char *name;
	char *value;
} proto_header;

typedef struct proto_kube_request {
	char *method; /* GET POST PUT PATCH DELETE */
	char *path;   /* absolute path with optional query, printable ASCII */
	size_t nheaders;
	proto_header *headers;
	unsigned char *body; /* NUL-terminated copy; body_len excludes it */
	size_t body_len;
} proto_kube_request;

int proto_kube_request_encode(bh_buf *out, const char *method, const char *path,
			      const proto_header *headers, size_t nheaders,
			      const void *body, size_t body_len);
int proto_kube_request_decode(const unsigned char *p, size_t n, proto_kube_request *r, bh_error *err);
void proto_kube_request_free(proto_kube_request *r);
/* The value of header name (case-insensitive), or NULL. */
const char *proto_kube_request_header(const proto_kube_request *r, const char *name);

/* ---- KUBE_RESPONSE ----------------------------------------------------- */
int proto_kube_response_encode(bh_buf *out, uint32_t status, const void *body, size_t body_len);
/* What a KUBE_RESPONSE payload holds before its body_len bytes of body (for
 * a writer that sends the body from where it is). */
#define PROTO_KUBE_RESPONSE_HEAD 8
void proto_kube_response_head(unsigned char out[PROTO_KUBE_RESPONSE_HEAD], uint32_t status, size_t body_len);
/* On success *body points into p (not copied). */
int proto_kube_response_decode(const unsigned char *p, size_t n, uint32_t *status,
			       const unsigned char **body, size_t *body_len, bh_error *err);

/* ---- LOG, JOB (single string) ------------------------------------------ */
int proto_str_encode(bh_buf *out, const void *s, size_t n);
/* The start of proto_str_encode's encoding of n bytes (what precedes them),
 * for ipc_outq_push2. */
#define PROTO_STR_HEAD 4
void proto_str_head(unsigned char out[PROTO_STR_HEAD], size_t n);
/* Decodes a payload made of exactly one string of at most max bytes; with
 * text set, the bytes must be printable ASCII/UTF-8 without NUL or controls
 * other than \n and \t. *s points into p. */
int proto_str_decode(const unsigned char *p, size_t n, size_t max, int text,
		     const unsigned char **s, size_t *len, bh_error *err);

/* ---- SECCOMP ------------------------------------------------------------ */
void proto_seccomp_encode(unsigned char out[8], uint32_t nr, uint32_t arch);
int proto_seccomp_decode(const unsigned char *p, size_t n, uint32_t *nr, uint32_t *arch, bh_error *err);

/* ---- RESULT ------------------------------------------------------------- *
 * JSON object sent once by the worker at the end of its job:
 *   {"ready": bool, "reason": "CamelCase", "message": "...",
 *    "action": "install", "release": {snapshot}}            (release optional)
 * snapshot = {"name","namespace","version":int,"status","chartName",
 *             "chartVersion","appVersion","configDigest","digest",
 *             "firstDeployed","lastDeployed"} (strings unless noted).
 * Workers that run the release state machine send instead (or as well):
 *   "requeue": "interval"|"now"|"never"|"retry" (retry: after the
 *               retryInterval of the RetryOnFailure strategy of
 *               lastAttemptedReleaseAction),
 *   "status": {"conditions":[{"type","status","observedGeneration":int,
 *               "reason","message"}] (types Ready Released TestSuccess
 *               Remediated Reconciling Stalled Drifted, at most one each),
 *              "history":[Flux snapshot, at most PROTO_MAX_HISTORY],
 *              "failures","installFailures","upgradeFailures": int,
 *              "lastAttemptedReleaseAction": "install"|"upgrade",
 *              "lastAttemptedRevision","lastAttemptedRevisionDigest",
 *              "lastAttemptedConfigDigest",
 *              "lastAppliedRevision","lastHandledForceAt",
 *              "lastHandledResetAt", "observedPostRenderersDigest",
 *              "observedCommonMetadataDigest",
 *              "lastAttemptedReleaseActionDuration": strings}
 *   "events": [{"type":"Normal"|"Warning","reason","message",
 *               "revision","token"}] (at most PROTO_MAX_EVENTS; Kubernetes
 *               Events of the actions run, with Flux's revision/token
 *               annotations)
 * Every key is checked against this catalogue; the decoded status and
 * events are the RESULT's own trees, every member of them validated. */
typedef struct proto_snapshot {
	char *name, *namespace_, *status, *chart_name, *chart_version, *app_version;
	char *config_digest, *digest, *first_deployed, *last_deployed;
	long long version;
} proto_snapshot;

#define PROTO_MAX_HISTORY 10
#define PROTO_MAX_TEST_HOOKS 64
#define PROTO_MAX_EVENTS 8

enum proto_requeue { PROTO_REQUEUE_INTERVAL = 0, PROTO_REQUEUE_NOW, PROTO_REQUEUE_NEVER, PROTO_REQUEUE_RETRY };

typedef struct proto_result {
	int ready;
	char *reason;
	char *message;
	char *action;    /* may be NULL */
	int has_release;
	proto_snapshot release;
	int requeue;     /* enum proto_requeue */
	void *status;    /* json_t * (validated) or NULL; freed by proto_result_free */
	void *events;    /* json_t * array (validated) or NULL; likewise */
} proto_result;

int proto_result_decode(const unsigned char *p, size_t n, proto_result *r, bh_error *err);
void proto_result_free(proto_result *r);

#endif
