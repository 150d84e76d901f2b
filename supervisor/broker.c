/* supervisor/broker.c — see broker.h. */
#include "supervisor/broker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "lib/gostrconv.h"
#include "sandbox/sandbox.h"
#include "supervisor/audit.h"
#include "supervisor/broker_watch.h"
#include "supervisor/forward.h"
#include "supervisor/log.h"

#define BROKER_MAX_REQUESTS 10000     /* per job */
#define BROKER_MAX_INFLIGHT 4         /* requests of one worker being forwarded */
#define BROKER_MAX_LOGS 200           /* log lines printed per job */

static int on_kube_request(sv_job *j, ipc_msg *m, bh_error *err);
static int on_log(sv_job *j, ipc_msg *m, bh_error *err);
static int on_result(sv_job *j, ipc_msg *m, bh_error *err);
static int on_seccomp(sv_job *j, ipc_msg *m, bh_error *err);
static int on_kube_cancel(sv_job *j, ipc_msg *m, bh_error *err);

/* ---------------------------------------------------------------------------
 * The whole attack surface: what a worker may send, and under which policy.
 *   ONCE    - at most one such message per job (a second is a violation)
 *   BROKER  - Kubernetes request: only Content-Type/Accept headers (never an
 *             identity), reads only in the job's namespaces (but for one
 *             named non-Secret object, read as the tenant), watches only
 *             of one named non-Secret object for at most 60 s (one at a
 *             time), no proxy/exec/attach/portforward; at most 4 in
 *             flight; forwarded as the tenant's ServiceAccount, audited
 * Any other type, a payload over `max`, or a payload that does not decode
 * ends the worker as a protocol violation.
 * ------------------------------------------------------------------------- */
enum { P_ANY = 0, P_ONCE = 1, P_BROKER = 2 };
static const struct rule {
	uint32_t type;
	int (*handler)(sv_job *, ipc_msg *, bh_error *);
	unsigned policy;
	uint32_t max; /* payload bytes */
} dispatch[] = {
	{PROTO_KUBE_REQUEST, on_kube_request, P_BROKER, IPC_MAX_PAYLOAD},
	{PROTO_LOG, on_log, P_ANY, PROTO_MAX_LOG + 4},
	{PROTO_RESULT, on_result, P_ONCE, PROTO_MAX_RESULT + 4},
	{PROTO_SECCOMP, on_seccomp, P_ONCE, 8},
	{PROTO_KUBE_CANCEL, on_kube_cancel, P_ANY, 0},
};

static int job_audit_write(sv_job *j, const char *phase, unsigned long long id, const char *verb, const char *path,
			   long status, const char *why, unsigned long long *seq, bh_error *err);

/* Writes one audit record of j's. The log fails closed: when the record
 * cannot be written the job stops (reason AuditLogFailed) and err says why. */
static int job_audit(sv_job *j, const char *phase, unsigned long long id, const char *verb, const char *path,
		     long status, const char *why, bh_error *err)
{
	return job_audit_write(j, phase, id, verb, path, status, why, NULL, err);
}

/* The same; with seq, the record is written but not waited for: *seq is
 * what audit_sync must see durable (the forwarding does, before it
 * sends the request). */
static int job_audit_write(sv_job *j, const char *phase, unsigned long long id, const char *verb, const char *path,
			   long status, const char *why, unsigned long long *seq, bh_error *err)
{
	audit_rec r = {phase, id, j->key, j->identity, verb, path, status, 0, why, j->cluster};
	bh_error e;
	if ((seq ? audit_write(&r, seq, &e) : audit_record(&r, &e)) == 0)
		return 0;
	if (!j->audit_error[0])
		snprintf(j->audit_error, sizeof j->audit_error, "%.590s", e.msg);
	return bh_error_set(err, BH_EIO, "%.500s", e.msg);
}

void broker_violation(sv_job *j, const char *what)
{
	if (!j->violation[0])
		snprintf(j->violation, sizeof j->violation, "%.590s", what);
	job_audit(j, "violation", 0, "invalid", "", 0, what, NULL);
}

int broker_dispatch(sv_job *j, ipc_msg *m, bh_error *err)
{
	for (size_t i = 0; i < sizeof dispatch / sizeof dispatch[0]; i++) {
		const struct rule *r = &dispatch[i];
		int rc;
		if (r->type != m->hdr.type)
			continue;
		if (m->hdr.len > r->max) {
			bh_error_set(err, BH_EPROTO, "%s message of %u bytes exceeds its limit of %u", proto_type_name(r->type),
				     m->hdr.len, r->max);
			broker_violation(j, err->msg);
			return BH_EPROTO;
		}
		if ((r->policy & P_ONCE) && (j->seen & (1u << (r->type & 31)))) {
			bh_error_set(err, BH_EPROTO, "second %s message", proto_type_name(r->type));
			broker_violation(j, err->msg);
			return BH_EPROTO;
		}
		j->seen |= 1u << (r->type & 31);
		if ((rc = r->handler(j, m, err)) < 0 && !j->audit_error[0])
			broker_violation(j, err->msg);
		return rc;
	}
	bh_error_set(err, BH_EPROTO, "unknown message type %u", m->hdr.type);
	broker_violation(j, err->msg);
	return BH_EPROTO;
}

/* ---- request policy ---------------------------------------------------------- */
typedef struct api_path {
	int discovery;
	char subresource[64]; /* "" when none */
	int namespaced;     /* path names a namespace-scoped resource */
	char ns[256];
	int collection;     /* no object name */
	char resource[64];  /* plural resource name ("" for discovery) */
	int nseg;
} api_path;

/* Decodes %XX escapes in place, and in a query value (query) '+' as a
 * space; -1 on a bad escape or a control character once decoded, and in a
 * path segment (!query) on '/', '%' or '\\' once decoded. */
static int pct_decode(char *s, int query)
{
	char *w = s;
	for (const char *r = s; *r; r++) {
		int c = (unsigned char)*r;
		if (query && c == '+') {
			c = ' ';
		} else if (c == '%') {
			int hi = go_unhex((unsigned char)r[1]), lo = hi < 0 ? -1 : go_unhex((unsigned char)r[2]);
			if (lo < 0)
				return -1;
			c = hi << 4 | lo;
			r += 2;
			if (!query && (c == '/' || c == '%'))
				return -1;
		}
		if (c < 0x20 || c == 0x7f || (!query && c == '\\'))
			return -1;
		*w++ = (char)c;
	}
	*w = '\0';
	return 0;
}

/* Decodes one path segment in place, as the API server will, so the policy
 * sees the names the server acts on: "system%3Aaggregate" is
 * "system:aggregate". Refused (-1): a bad escape, a byte that is a control
 * character, '/', '\\' or '%' once decoded, and the segments "." and ".." in
 * any spelling. */
static int segment_decode(char *s)
{
	return pct_decode(s, 0) < 0 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0 ? -1 : 0;
}

static int parse_path(const char *full, api_path *ap, bh_error *err)
{
	char path[PROTO_MAX_PATH + 1], *segs[64], *save = NULL, *q;
	int n = 0, p;
	memset(ap, 0, sizeof *ap);
	snprintf(path, sizeof path, "%s", full);
	if ((q = strchr(path, '?')))
		*q = '\0';
	if (path[0] != '/' || strstr(path, "//"))
		return bh_error_set(err, BH_EDENIED, "path is not in canonical form");
	for (char *s = strtok_r(path, "/", &save); s; s = strtok_r(NULL, "/", &save)) {
		if (n == 64 || segment_decode(s) < 0)
			return bh_error_set(err, BH_EDENIED, "path is not in canonical form");
		segs[n++] = s;
	}
	ap->nseg = n;
	if (n == 0)
		return bh_error_set(err, BH_EDENIED, "path / is not an API path");
	if (strcmp(segs[0], "version") == 0 || strcmp(segs[0], "openapi") == 0) {
		ap->discovery = 1;
		return 0;
	}
	if (strcmp(segs[0], "api") == 0)
		p = 2;
	else if (strcmp(segs[0], "apis") == 0)
		p = 3;
	else
		return bh_error_set(err, BH_EDENIED, "path is outside the Kubernetes API");
	if (n <= p) {
		ap->discovery = 1;
		return 0;
	}
	if (strcmp(segs[p], "namespaces") == 0 && n >= p + 3) {
		ap->namespaced = 1;
		snprintf(ap->ns, sizeof ap->ns, "%s", segs[p + 1]);
		ap->collection = n == p + 3;
		snprintf(ap->resource, sizeof ap->resource, "%s", segs[p + 2]);
		if (n >= p + 5)
			snprintf(ap->subresource, sizeof ap->subresource, "%s", segs[p + 4]);
	} else {
		ap->collection = n == p + 1;
		snprintf(ap->resource, sizeof ap->resource, "%s", segs[p]);
		if (n >= p + 3)
			snprintf(ap->subresource, sizeof ap->subresource, "%s", segs[p + 2]);
	}
	return 0;
}

static int has_param(const char *q, const char *name)
{
	size_t l = strlen(name);
	for (const char *p = q; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL)
		if (strncmp(p, name, l) == 0 && (p[l] == '=' || p[l] == '&' || p[l] == '\0'))
			return 1;
	return 0;
}

static int own_ns(const sv_job *j, const char *ns)
{
	return strcmp(ns, j->ns) == 0 || (j->release_ns && strcmp(ns, j->release_ns) == 0) ||
	       (j->storage_ns && strcmp(ns, j->storage_ns) == 0);
}

/* A worker's watch (kube/wait.h watches the last object it waits for):
 * GET of a namespaced collection that is not Secrets, bounded to one object
 * by fieldSelector=metadata.name=NAME, with timeoutSeconds of 1..60 and no
 * other parameter than resourceVersion and allowWatchBookmarks. It goes as
 * the tenant (in the job's namespaces without one), as a GET would. */
static int check_watch(const sv_job *j, const proto_kube_request *r, const api_path *ap, bh_error *err)
{
	char q[PROTO_MAX_PATH + 1], *save = NULL;
	int named = 0, timeout = 0;
	if (strcmp(r->method, "GET") != 0 || ap->discovery || !ap->namespaced || !ap->collection || ap->subresource[0] ||
	    !strcmp(ap->resource, "secrets"))
		return bh_error_set(err, BH_EDENIED, "a worker may only watch one named object of a namespaced kind other than Secrets");
	if (!j->identity && !own_ns(j, ap->ns))
		return bh_error_set(err, BH_EDENIED, "namespace %s is not one of the job's namespaces", ap->ns);
	snprintf(q, sizeof q, "%s", strchr(r->path, '?') + 1);
	for (char *p = strtok_r(q, "&", &save); p; p = strtok_r(NULL, "&", &save)) {
		char *v = strchr(p, '=');
		long n;
		if (v)
			*v++ = '\0';
		if (!v || pct_decode(v, 1) < 0)
			return bh_error_set(err, BH_EDENIED, "watch parameter %.60s has no valid value", p);
		if (!strcmp(p, "watch") || !strcmp(p, "allowWatchBookmarks")) {
			if (strcmp(v, "1") != 0 && strcmp(v, "true") != 0)
				return bh_error_set(err, BH_EDENIED, "watch parameter %s=%.60s", p, v);
		} else if (!strcmp(p, "fieldSelector")) {
			if (strncmp(v, "metadata.name=", 14) != 0 || !v[14] || strpbrk(v + 14, ",=!"))
				return bh_error_set(err, BH_EDENIED, "a worker's watch is of one object: fieldSelector=metadata.name=NAME");
			named = 1;
		} else if (!strcmp(p, "timeoutSeconds")) {
			char *end;
			n = strtol(v, &end, 10);
			if (*end || end == v || n < 1 || n > BROKER_MAX_WATCH_SECONDS)
				return bh_error_set(err, BH_EDENIED, "a worker's watch needs timeoutSeconds of 1 to %d",
						    BROKER_MAX_WATCH_SECONDS);
			timeout = 1;
		} else if (strcmp(p, "resourceVersion") != 0) {
			return bh_error_set(err, BH_EDENIED, "watch parameter %.60s is not allowed to workers", p);
		}
	}
	if (!named)
		return bh_error_set(err, BH_EDENIED, "a worker's watch is of one object: fieldSelector=metadata.name=NAME");
	if (!timeout)
		return bh_error_set(err, BH_EDENIED, "a worker's watch needs timeoutSeconds of 1 to %d", BROKER_MAX_WATCH_SECONDS);
	return 0;
}

int broker_is_watch(const char *path)
{
	const char *q = strchr(path, '?');
	return q && has_param(q + 1, "watch");
}

/* The policy check of r, whose path parse_path gave ap (prc: its result;
 * perr: its error when it failed), as broker_check_request. */
static int check_parsed(const sv_job *j, const proto_kube_request *r, int prc, const api_path *pap,
			const bh_error *perr, bh_error *err)
{
	const api_path ap = *pap;
	const char *q;
	for (size_t i = 0; i < r->nheaders; i++) {
		const char *h = r->headers[i].name;
		if (strncasecmp(h, "Impersonate-", 12) == 0 || strcasecmp(h, "Authorization") == 0)
			return bh_error_set(err, BH_EDENIED, "a worker may not choose its identity (header %s)", h);
		if (strcasecmp(h, "Content-Type") != 0 && strcasecmp(h, "Accept") != 0)
			return bh_error_set(err, BH_EDENIED, "header %s is not allowed", h);
	}
	if (prc < 0) {
		if (err)
			*err = *perr;
		return prc;
	}
	if ((q = strchr(r->path, '?')) && has_param(q + 1, "watch"))
		return check_watch(j, r, &ap, err);
	if (!strcmp(ap.subresource, "proxy") || !strcmp(ap.subresource, "exec") || !strcmp(ap.subresource, "attach") ||
	    !strcmp(ap.subresource, "portforward"))
		return bh_error_set(err, BH_EDENIED, "the %s subresource reaches into the cluster's network and is not available to workers",
				    ap.subresource);
	if (ap.discovery) {
		if (strcmp(r->method, "GET") != 0)
			return bh_error_set(err, BH_EDENIED, "discovery paths are read-only");
		return 0;
	}
	if (strcmp(r->method, "GET") == 0) {
		/* Helm's actions read each object before they write it (ownership
		 * and conflict checks): with a tenant identity, one named object
		 * that is not a Secret goes to the cluster as the tenant, whose
		 * RBAC decides, as for writes. Lists and Secrets stay within the
		 * job's namespaces. */
		if (j->identity && !ap.collection && !ap.subresource[0] && strcmp(ap.resource, "secrets") != 0 &&
		    (!ap.namespaced || !own_ns(j, ap.ns)))
			return 0;
		if (!ap.namespaced)
			return bh_error_set(err, BH_EDENIED, "reading cluster-scoped resources is not part of a release job");
		if (!own_ns(j, ap.ns))
			return bh_error_set(err, BH_EDENIED, "namespace %s is not one of the job's namespaces", ap.ns);
		return 0;
	}
	/* Writes go to the cluster as the tenant, whose RBAC decides. Without a
	 * tenant identity the controller's own would be used: keep those to the
	 * job's namespaces. */
	if (!j->identity && (!ap.namespaced || !own_ns(j, ap.ns)))
		return bh_error_set(err, BH_EDENIED, "without a ServiceAccount to impersonate, writes are limited to the job's namespaces");
	return 0;
}

int broker_check_request(const sv_job *j, const proto_kube_request *r, bh_error *err)
{
	api_path ap;
	bh_error perr; /* set by parse_path when it fails, read only then */
	int prc = parse_path(r->path, &ap, &perr);
	return check_parsed(j, r, prc, &ap, &perr, err);
}

/* broker_verb of method and path, whose parse_path gave ap (NULL: it failed). */
static const char *verb_of(const char *method, const char *path, const api_path *ap)
{
	if (strcmp(method, "POST") == 0)
		return "create";
	if (strcmp(method, "PUT") == 0)
		return "update";
	if (strcmp(method, "PATCH") == 0)
		return "patch";
	if (!ap)
		return strcmp(method, "GET") == 0 ? "get" : "delete";
	if (strcmp(method, "GET") == 0 && broker_is_watch(path))
		return "watch";
	if (strcmp(method, "DELETE") == 0)
		return ap->collection ? "deletecollection" : "delete";
	return ap->collection || ap->discovery ? "list" : "get";
}

int broker_is_discovery(const char *path)
{
	api_path ap;
	return parse_path(path, &ap, NULL) == 0 && ap.discovery;
}

const char *broker_verb(const char *method, const char *path)
{
	api_path ap;
	return verb_of(method, path, parse_path(path, &ap, NULL) == 0 ? &ap : NULL);
}

/* The answer goes from body straight to the worker's socket (into its
 * queue only what the socket does not take, or when answers wait there
 * already): no copy of the body when the worker keeps up. */
static int respond(sv_job *j, uint32_t id, long status, const char *body, size_t len, bh_error *err)
{
	unsigned char head[PROTO_KUBE_RESPONSE_HEAD];
	proto_kube_response_head(head, (uint32_t)status, len);
	return ipc_outq_send2(&j->oq, j->sock, PROTO_KUBE_RESPONSE, id, head, sizeof head, body, len, err);
}

static int respond_status(sv_job *j, uint32_t id, long code, const char *reason, const char *message, bh_error *err)
{
	json_t *st = json_pack("{s:s,s:s,s:{},s:s,s:s,s:s,s:i}", "kind", "Status", "apiVersion", "v1", "metadata",
			       "status", "Failure", "message", message, "reason", reason, "code", (int)code);
	char *s = st ? json_dumps(st, JSON_COMPACT) : NULL;
	int rc = s ? respond(j, id, code, s, strlen(s), err) : bh_error_set(err, BH_ENOMEM, "out of memory");
	free(s);
	json_decref(st);
	return rc;
}

static int on_kube_request(sv_job *j, ipc_msg *m, bh_error *err)
{
	proto_kube_request r;
	bh_error why;
	fwd_req *f;
	unsigned long long seq = 0;
	int rc;
	if (++j->nrequests > BROKER_MAX_REQUESTS)
		return bh_error_set(err, BH_ELIMIT, "more than %d Kubernetes requests in one job", BROKER_MAX_REQUESTS);
	if ((rc = proto_kube_request_decode(m->payload, m->hdr.len, &r, err)) < 0)
		return rc;
	/* the path parsed once: for the verb, the policy and discovery */
	api_path ap;
	bh_error perr; /* set by parse_path when it fails, read only then */
	int prc = parse_path(r.path, &ap, &perr);
	const char *verb = verb_of(r.method, r.path, prc == 0 ? &ap : NULL);
	unsigned long long id = audit_next_id();
	if (check_parsed(j, &r, prc, &ap, &perr, &why) < 0) {
		char msg[1200];
		snprintf(msg, sizeof msg, "bulkhead broker refused %s %.600s: %.500s", r.method, r.path, why.msg);
		svlog_hr(SVLOG_DEBUG, j->key, j->reconcile_id, "%s", msg);
		if ((rc = job_audit(j, "refused", id, verb, r.path, 403, why.msg, err)) == 0)
			rc = respond_status(j, m->hdr.id, 403, "Forbidden", msg, err);
		proto_kube_request_free(&r);
		return rc;
	}
	if (j->exited) { /* read after its death: nobody is waiting for the answer */
		rc = job_audit(j, "refused", id, verb, r.path, 0, "the worker has exited", err);
		proto_kube_request_free(&r);
		return rc;
	}
	if (j->inflight >= BROKER_MAX_INFLIGHT || (broker_is_watch(r.path) && bwatch_count(j->serial))) {
		char msg[200];
		if (j->inflight >= BROKER_MAX_INFLIGHT)
			snprintf(msg, sizeof msg, "bulkhead broker: at most %d requests of a worker are forwarded at a time",
				 BROKER_MAX_INFLIGHT);
		else
			snprintf(msg, sizeof msg, "bulkhead broker: one watch of a worker at a time");
		if ((rc = job_audit(j, "refused", id, verb, r.path, 429, msg, err)) == 0)
			rc = respond_status(j, m->hdr.id, 429, "TooManyRequests", msg, err);
		proto_kube_request_free(&r);
		return rc;
	}
	/* on record before it leaves: a request in flight at a crash is known
	 * (the forwarding waits for the record to be durable) */
	if ((rc = job_audit_write(j, "intent", id, verb, r.path, 0, NULL, &seq, err)) < 0) {
		bh_error_prefix(err, "%s %.300s not forwarded", r.method, r.path);
		proto_kube_request_free(&r);
		return rc;
	}
	if (!(f = calloc(1, sizeof *f))) {
		proto_kube_request_free(&r);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	if (strcmp(r.method, "GET") != 0)
		j->writes++;
	if (!j->remote && !strncmp(r.path, "/api", 4) && prc == 0 && ap.discovery) /* not /version, /openapi */
		j->asked_discovery = 1;
	if (!j->remote && strcmp(r.method, "GET") != 0 && strstr(r.path, "/customresourcedefinitions"))
		j->asked_discovery = 1;
	f->audit_id = id;
	f->audit_seq = seq;
	f->verb = verb;
	f->serial = j->serial;
	f->id = m->hdr.id;
	f->key = strdup(j->key);
	f->identity = j->identity ? strdup(j->identity) : NULL;
	f->r = r;
	if (j->remote) { /* .spec.kubeConfig: to the workload cluster */
		bh_error e;
		f->remote = kube_config_dup(j->remote, &e);
		f->cluster = j->cluster ? strdup(j->cluster) : NULL;
	}
	j->inflight++;
	fwd_submit(f); /* a watch goes on to bwatch_submit once its intent is durable */
	return 0;
}

int broker_forward_own(sv_job *j, const char *path, bh_error *err)
{
	unsigned long long seq = 0, id = audit_next_id();
	fwd_req *f;
	int rc;
	if ((rc = job_audit_write(j, "intent", id, "list", path, 0, NULL, &seq, err)) < 0)
		return rc;
	if (!(f = calloc(1, sizeof *f)) || !(f->r.method = strdup("GET")) || !(f->r.path = strdup(path)) ||
	    !(f->key = strdup(j->key)) || (j->identity && !(f->identity = strdup(j->identity)))) {
		if (f)
			fwd_req_free(f);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	f->audit_id = id;
	f->audit_seq = seq;
	f->verb = "list";
	f->serial = j->serial;
	j->inflight++;
	fwd_submit(f);
	return 0;
}

int broker_answer(sv_job *j, fwd_req *f, bh_error *err)
{
	/* the forwarding synced the intent and recorded the outcome */
	if (f->audit_error[0]) { /* fail closed: the answer is withheld, the job stops */
		if (j && !j->audit_error[0])
			snprintf(j->audit_error, sizeof j->audit_error, "%.590s", f->audit_error);
		return bh_error_set(err, BH_EIO, "%.500s", f->audit_error);
	}
	if (f->piece) { /* of a watch's stream */
		if (!j || j->sock < 0) {
			bwatch_cancel(f->serial, f->id);
			return 0;
		}
		return ipc_outq_push(&j->oq, PROTO_KUBE_STREAM, f->id, f->body.data, f->body.len, -1, err);
	}
	if (!j)
		return 0; /* the worker is gone */
	if (j->inflight)
		j->inflight--;
	if (j->sock < 0)
		return 0;
	if (f->status == 0)
		return respond_status(j, f->id, 503, "ServiceUnavailable", f->error, err);
	if (f->body.len > IPC_MAX_PAYLOAD - 16)
		return respond_status(j, f->id, 500, "InternalError", "response too large for the worker channel", err);
	return respond(j, f->id, (uint32_t)f->status, f->body.data ? f->body.data : "", f->body.len, err);
}

static int on_log(sv_job *j, ipc_msg *m, bh_error *err)
{
	const unsigned char *s;
	size_t n;
	int rc;
	if ((rc = proto_str_decode(m->payload, m->hdr.len, PROTO_MAX_LOG, 1, &s, &n, err)) < 0)
		return rc;
	if (++j->nlogs <= BROKER_MAX_LOGS)
		svlog_worker(j->key, j->reconcile_id, (const char *)s, n);
	else if (j->nlogs == BROKER_MAX_LOGS + 1)
		svlog_worker(j->key, j->reconcile_id, "more log lines dropped", 21);
	return 0;
}

static int on_result(sv_job *j, ipc_msg *m, bh_error *err)
{
	const unsigned char *s;
	size_t n;
	int rc;
	if ((rc = proto_str_decode(m->payload, m->hdr.len, PROTO_MAX_RESULT, 0, &s, &n, err)) < 0 ||
	    (rc = proto_result_decode(s, n, &j->result, err)) < 0)
		return rc;
	j->has_result = 1;
	return 0;
}

static int on_kube_cancel(sv_job *j, ipc_msg *m, bh_error *err)
{
	(void)err;
	bwatch_cancel(j->serial, m->hdr.id);
	return 0;
}

static int on_seccomp(sv_job *j, ipc_msg *m, bh_error *err)
{
	int rc;
	if ((rc = proto_seccomp_decode(m->payload, m->hdr.len, &j->seccomp_nr, &j->seccomp_arch, err)) < 0)
		return rc;
	j->has_seccomp = 1;
	return 0;
}
