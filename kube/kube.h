/* kube/kube.h — the Kubernetes API client: a client object over one
 * transport (kube/transport.h), raw requests with retries, typed API errors,
 * discovery and REST mapping, and the verbs (get, list, watch, create,
 * update, patch/apply, delete, status subresource, Events).
 *
 * Objects are jansson json_t values. Functions returning json_t ** give the
 * caller a new reference (json_decref it). A client is used by one thread at
 * a time.
 *
 * Errors: 404 -> BH_ENOTFOUND, 409 -> BH_ECONFLICT, 410 -> BH_EGONE,
 * 422/400 -> BH_EINVAL, 401/403 -> BH_EDENIED, 429/5xx (after retries) ->
 * BH_EUNAVAIL; err->msg carries the API's Status message. The HTTP status
 * and Status reason of the last failed call are in kube_client_last_*().
 */
#ifndef BH_KUBE_H
#define BH_KUBE_H

#include <jansson.h>
#include <stddef.h>

#include "kube/config.h"
#include "kube/transport.h"
#include "lib/error.h"

typedef struct kube_client kube_client;

/* Retry policy for idempotent requests (GET/HEAD/PUT/DELETE, apply patches)
 * on 429, 5xx and connection errors; any method on 429. The wait before
 * retry n is min(max_ms, base_ms * 2^n) with +-jitter_pct random jitter,
 * or the server's Retry-After when it gives one. The whole call gives up
 * when max_attempts were made or the next wait would pass budget_ms. */
typedef struct kube_retry_policy {
	int max_attempts;  /* default 5 (1 = no retry) */
	long base_ms;      /* default 200 */
	long max_ms;       /* default 10000 */
	int jitter_pct;    /* default 20 */
	long budget_ms;    /* default 60000 */
} kube_retry_policy;
#define KUBE_RETRY_DEFAULT {5, 200, 10000, 20, 60000}

/* The retry decision of kube_request_send under policy p, for a caller that
 * sends the attempts itself: attempt number `attempt` of req ended with rc
 * (resp when rc is 0), used_ms after the first began. Returns the wait in ms
 * before the next attempt, or -1 when this attempt is the outcome; *why then
 * names the limit that stopped a retryable one (NULL: not retryable).
 * rand01(ud) gives the jitter, a number in [0, 1). */
long kube_retry_wait(const kube_retry_policy *p, double (*rand01)(void *), void *ud, const kube_request *req,
                     int attempt, int rc, const kube_response *resp, long used_ms, const char **why);
/* The words of a retry that ran out, into out (n bytes): "METHOD PATH: giving
 * up after N attempt(s) (why)" for a request that failed, or, with method
 * NULL, "giving up after N attempts (why)" before an answer's own error. */
void kube_giveup_text(char *out, size_t n, const char *method, const char *path, int attempts, const char *why);

/* Creates a client owning t (freed with the client, also on failure). */
kube_client *kube_client_new(kube_transport *t, bh_error *err);
void kube_client_free(kube_client *c);
void kube_client_set_retry(kube_client *c, const kube_retry_policy *p);
/* Impersonation added to every request: user, and NULL-terminated groups
 * (either may be NULL to clear). Returns 0 or BH_ENOMEM. */
int kube_client_set_impersonation(kube_client *c, const char *user,
                                  const char *const *groups, bh_error *err);
/* Default request timeout in ms (0 = transport default). */
void kube_client_set_timeout(kube_client *c, long timeout_ms);
/* For tests: replace sleeping (ms) and the random source (returns [0,1)). */
void kube_client_set_hooks(kube_client *c, void (*sleep_ms)(void *, long),
                           double (*rand01)(void *), void *ud);
/* HTTP status and Status.reason of the last failed call ("" if none). */
long kube_client_last_status(const kube_client *c);
const char *kube_client_last_reason(const kube_client *c);
/* The message of the last error's Status ("" when it had none): what
 * client-go's StatusError prints. Borrowed until the next request. */
const char *kube_client_last_message(const kube_client *c);
/* Number of transport attempts the last call made (retries + 1). */
int kube_client_last_attempts(const kube_client *c);

/* Raw request with client headers (impersonation) and retries. Returns 0
 * when an HTTP response arrived — whatever its status — and fills resp. */
int kube_request_send(kube_client *c, const kube_request *req,
                      kube_response *resp, bh_error *err);
/* Maps a non-2xx response to a BH_E* code and a message with the API
 * Status message ("what: 404 NotFound: pods \"x\" not found"). Returns 0
 * for 2xx. */
int kube_response_error(const kube_response *resp, const char *what, bh_error *err);
/* Raw request + error mapping + JSON decode of the 2xx body (out may be
 * NULL; an empty body gives json null). */
int kube_request_json(kube_client *c, const char *method, const char *path,
                      const char *content_type, const json_t *body,
                      json_t **out, bh_error *err);

/* ---- REST mapping ---- */

/* A resource type. Strings are owned by the client's mapping cache (or
 * static), valid until kube_client_free(). */
typedef struct kube_resource {
	const char *group;    /* "" for the core group */
	const char *version;  /* "v1" */
	const char *resource; /* plural: "deployments" */
	const char *kind;     /* "Deployment" */
	int namespaced;
} kube_resource;

/* Maps apiVersion ("apps/v1", "v1") + kind to a resource, from discovery
 * of that group/version (cached; rediscovered once when the kind is not in
 * the cache — a CRD installed a moment ago). BH_ENOTFOUND when the server
 * does not serve it. */
int kube_mapping_get(kube_client *c, const char *api_version, const char *kind,
                     kube_resource *out, bh_error *err);
/* Same, from an object's apiVersion and kind. */
int kube_mapping_for_object(kube_client *c, const json_t *obj, kube_resource *out,
                            bh_error *err);
/* Drops the discovery cache (and a preloaded snapshot). */
void kube_mapping_reset(kube_client *c);

/* Discovery fetched once and handed on (issue 14): a snapshot is a JSON
 * object of the discovery answers by path ("/version", "/api", "/apis",
 * "/api/v1", "/apis/apps/v1", ...), cut to the fields the mapping and
 * .Capabilities use. kube_discovery_snapshot fetches one (1 + 2 + one
 * request per group/version; a group/version that cannot be listed is left
 * out). kube_discovery_preload gives c a snapshot (c takes a reference):
 * the mapping, kube_discovery_api_versions and kube_server_version then
 * answer from it without a request, and a kind missing from it is
 * rediscovered from the server as before. */
int kube_discovery_snapshot(kube_client *c, json_t **out, bh_error *err);
void kube_discovery_preload(kube_client *c, json_t *snapshot);
/* Was a discovery request sent since the preload (a kind the snapshot
 * lacked, or the cache dropped after CRDs were installed)? */
int kube_discovery_missed(const kube_client *c);

/* Helm's .Capabilities.APIVersions (action.GetVersionSet): every served
 * group/version ("v1", "apps/v1") and every "group/version/Kind"
 * ("apps/v1/Deployment"), sorted, as a new JSON array of strings. A
 * group/version whose resources cannot be listed (an aggregated API that is
 * down) contributes only its name, as in Helm. */
int kube_discovery_api_versions(kube_client *c, json_t **out, bh_error *err);
/* The server's version (GET /version .gitVersion, e.g. "v1.35.0") into buf. */
int kube_server_version(kube_client *c, char *buf, size_t n, bh_error *err);

/* Builds the path of a resource collection or object:
 * /apis/GROUP/VERSION[/namespaces/NS]/RESOURCE[/NAME[/SUBRESOURCE]]
 * (/api/v1/... for the core group). ns is ignored for cluster-scoped
 * resources; name and subresource may be NULL. Query strings are added by
 * the verbs. Caller frees. */
char *kube_path_new(const kube_resource *r, const char *ns, const char *name,
                    const char *subresource);

/* ---- verbs ---- */

/* Options for writes. Any field may be zero/NULL. */
typedef struct kube_write_opts {
	const char *field_manager;
	int force;            /* SSA: take over conflicting fields */
	int dry_run;          /* dryRun=All */
	const char *subresource; /* "status", "scale", or NULL */
	/* kube_patch and kube_apply: dotted paths in the answer's object
	 * ("metadata.managedFields"), NULL-terminated, of members the caller
	 * does not read: cut from the answer's text before it is decoded, each
	 * one json_skim_cut vouches for (anything unusual stays in the tree).
	 * NULL: the whole answer. */
	const char *const *answer_drop;
} kube_write_opts;

typedef enum kube_patch_type {
	KUBE_PATCH_MERGE,     /* application/merge-patch+json */
	KUBE_PATCH_JSON,      /* application/json-patch+json */
	KUBE_PATCH_STRATEGIC, /* application/strategic-merge-patch+json */
	KUBE_PATCH_APPLY,     /* application/apply-patch+yaml (server-side apply) */
} kube_patch_type;

typedef struct kube_list_opts {
	const char *label_selector;
	const char *field_selector;
	long limit;           /* page size; 0 = 500 */
	long max_items;       /* refuse lists larger than this; 0 = 1000000 */
} kube_list_opts;

typedef struct kube_delete_opts {
	const char *propagation; /* "Foreground", "Background", "Orphan" or NULL */
	const char *precondition_uid;
	const char *precondition_rv;
	int dry_run;
	long grace_seconds;      /* -1 = not sent */
} kube_delete_opts;

int kube_get(kube_client *c, const kube_resource *r, const char *ns,
             const char *name, const char *subresource, json_t **out, bh_error *err);
/* One object of kube_get_many: what to get (r, ns, name as for kube_get,
 * borrowed), and its outcome: rc as kube_get returns it, out (a new
 * reference, or NULL) and err. */
typedef struct kube_get_item {
	const kube_resource *r;
	const char *ns;
	const char *name;
	json_t *out;
	int rc;
	bh_error err;
} kube_get_item;
/* kube_get of each of n objects, up to KUBE_BATCH_MAX of their requests
 * sent together when the transport can (one round trip for independent
 * reads), each with its own retries and errors: one failing does not fail
 * the others. kube_client_last_* then describe the last of them. */
void kube_get_many(kube_client *c, kube_get_item *items, size_t n);
/* Lists every page (limit/continue) into one List object
 * {"apiVersion","kind":"<Kind>List","metadata":{"resourceVersion"},"items":[...]}.
 * An expired continue token (410) restarts the list from the beginning once. */
int kube_list(kube_client *c, const kube_resource *r, const char *ns,
              const kube_list_opts *opts, json_t **out, bh_error *err);
int kube_create(kube_client *c, const kube_resource *r, const char *ns,
                const json_t *obj, const kube_write_opts *opts, json_t **out,
                bh_error *err);
/* POST (name NULL) or PUT of object name, already written as JSON text
 * (json[0..len)), with no query; the answer is parsed only when out is
 * not NULL. */
int kube_write_text(kube_client *c, const kube_resource *r, const char *ns, const char *name, const char *json,
		    size_t len, json_t **out, bh_error *err);
/* PUT of the whole object (name from obj.metadata.name); with
 * opts->subresource = "status" this is the status update. */
int kube_update(kube_client *c, const kube_resource *r, const char *ns,
                const json_t *obj, const kube_write_opts *opts, json_t **out,
                bh_error *err);
/* patch is the patch document (JSON text; YAML or JSON for APPLY). */
int kube_patch(kube_client *c, const kube_resource *r, const char *ns,
               const char *name, kube_patch_type type, const char *patch,
               const kube_write_opts *opts, json_t **out, bh_error *err);
/* The path (new) and *content_type (static) of kube_patch's request, for a
 * caller that sends it itself. NULL: err says why. */
char *kube_patch_path_new(const kube_resource *r, const char *ns, const char *name, kube_patch_type type,
                          const kube_write_opts *opts, const char **content_type, bh_error *err);
/* Server-side apply of obj (field_manager required). */
int kube_apply(kube_client *c, const kube_resource *r, const char *ns,
               const json_t *obj, const kube_write_opts *opts, json_t **out,
               bh_error *err);
/* out (may be NULL) receives the returned object or Status. */
int kube_delete(kube_client *c, const kube_resource *r, const char *ns,
                const char *name, const kube_delete_opts *opts, json_t **out,
                bh_error *err);

/* Creates a core/v1 Event about `involved` (an object with apiVersion, kind,
 * metadata.name/namespace/uid/resourceVersion). type is "Normal" or
 * "Warning". The Event goes to the involved object's namespace ("default"
 * for cluster-scoped objects). */
typedef struct kube_event {
	const char *type;
	const char *reason;
	const char *message;
	const char *action;              /* may be NULL */
	const char *reporting_controller;/* e.g. "helm-controller" */
	const char *reporting_instance;  /* may be NULL */
	const json_t *annotations;       /* object, may be NULL */
} kube_event;
int kube_event_create(kube_client *c, const json_t *involved,
                      const kube_event *ev, bh_error *err);
/* The Event kube_event_create POSTs (new) and its path (new in *path), for
 * a caller that sends it itself (as JSON, compact). NULL: err says why. */
json_t *kube_event_new(const json_t *involved, const kube_event *ev, char **path, bh_error *err);

/* ---- watch ---- */

typedef enum kube_watch_type {
	KUBE_WATCH_ADDED,
	KUBE_WATCH_MODIFIED,
	KUBE_WATCH_DELETED,
	KUBE_WATCH_BOOKMARK,
	KUBE_WATCH_ERROR,   /* object is a Status (decoder only; kube_watch handles it) */
	KUBE_WATCH_RELIST,  /* object is a full List: replace your cache with it */
} kube_watch_type;

const char *kube_watch_type_name(kube_watch_type t);

/* Return 0 to keep watching, non-zero to stop (kube_watch then returns 0).
 * obj is borrowed for the duration of the call. */
typedef int (*kube_watch_fn)(void *ud, kube_watch_type type, json_t *obj);

/* A JSON reader with json_loadb's signature and results. */
typedef json_t *(*kube_json_load_fn)(const char *text, size_t len, size_t flags, json_error_t *je);

typedef struct kube_watch_opts {
	const char *resource_version; /* start here; NULL/"" = list first (RELIST) */
	const char *label_selector;
	const char *field_selector;
	long timeout_seconds;         /* per watch request sent to the server; 0 = 300 */
	long max_seconds;             /* whole kube_watch call; 0 = until stopped */
	int max_reconnects;           /* consecutive failures before giving up; 0 = 10 */
	int deliver_bookmarks;        /* pass BOOKMARK events to the callback */
	/* Dotted paths in the object ("status.history"), NULL-terminated, of
	 * members the callback does not read: left out of an event's tree
	 * (not decoded) when kube_watch_object_text gives the text, which
	 * keeps them; the skim vouches for their JSON (json_skim_cut). */
	const char *const *tree_drop;
	/* The reader of an event's JSON: json_loadb's signature and result
	 * (the same tree, or NULL and *je), such as proto/jload.h's
	 * jload_new; NULL: json_loadb. */
	kube_json_load_fn tree_load;
} kube_watch_opts;

/* Watches r (in ns, or all namespaces when ns is NULL) and calls fn for each
 * event. Resumes from the last seen resourceVersion (bookmarks included)
 * after a dropped connection or a server timeout; on 410 Gone it lists again
 * and delivers KUBE_WATCH_RELIST before resuming. Returns 0 when fn stopped
 * or max_seconds passed, else an error. */
int kube_watch(kube_client *c, const kube_resource *r, const char *ns,
               const kube_watch_opts *opts, kube_watch_fn fn, void *ud,
               bh_error *err);
/* The last resourceVersion kube_watch saw (borrowed; "" before any). */
const char *kube_watch_last_rv(const kube_client *c);
/* During a kube_watch_fn's call: the text of the object delivered, as the
 * event carried it (JSON, less metadata.managedFields; borrowed, len bytes,
 * not NUL-terminated), or NULL (a RELIST, or text the skim cannot place). */
const char *kube_watch_object_text(const kube_client *c, size_t *len);

#endif
