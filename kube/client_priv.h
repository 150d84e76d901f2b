/* kube/client_priv.h — the kube_client structure, shared by the kube/ sources only. */
#ifndef BH_KUBE_CLIENT_PRIV_H
#define BH_KUBE_CLIENT_PRIV_H

#include "kube/kube.h"

/* One discovered group/version; strings point into the client's intern
 * pool, which lives as long as the client (kube_resource stays valid). */
struct kube_mapping_gv {
	const char *group_version;
	kube_resource *e;
	size_t n;
};

struct kube_client {
	kube_transport *t;
	kube_retry_policy retry;
	long timeout_ms;
	char **imp_headers; /* NULL-terminated or NULL */
	void (*sleep_ms)(void *, long);
	double (*rand01)(void *);
	void *hook_ud;
	long last_status;
	char last_reason[64];
	char last_message[1024]; /* the last error Status's message ("" when none) */
	int last_attempts;
	int giveup_attempts;
	const char *giveup_why;
	struct kube_mapping_gv *gvs;
	size_t ngvs;
	char **pool; /* interned strings */
	size_t npool;
	int disc_missed;
	json_t *applied; /* "resource/ns/name" -> the answer of its last apply (kube_wait's first look) */
	json_t *disc; /* preloaded discovery answers by path (kube_discovery_preload) */
	char watch_rv[128];
	const char *watch_text; /* kube_watch_object_text */
	size_t watch_text_len;
};

long kube_now_ms(void);
long kube_parse_retry_after(const char *v);
const char **kube_merge_headers(kube_client *c, const char *const *extra);
/* Like kube_response_error, and records last status/reason and retries. */
int kube_client_response_error(kube_client *c, const kube_response *resp, const char *what, bh_error *err);
/* The answer's JSON into *out; the members at the dotted paths of drop
 * (NULL-terminated, or NULL) left out when json_skim_cut vouches for them
 * (kube_write_opts.answer_drop). */
int kube_decode_body(const kube_response *resp, const char *const *drop, json_t **out, const char *what,
		     bh_error *err);
/* Request + error mapping + JSON decode. */
int kube_call(kube_client *c, const char *method, const char *path, const char *content_type,
              const char *body, size_t body_len, json_t **out, bh_error *err);
/* kube_call, its answer decoded less the members at drop (kube_decode_body). */
int kube_call_drop(kube_client *c, const char *method, const char *path, const char *content_type,
		   const char *body, size_t body_len, const char *const *drop, json_t **out, bh_error *err);
/* kube_call of each of n requests (no body decoded less anything), the
 * first attempts of each KUBE_BATCH_MAX sent together when the transport
 * can (ops->requests); the retries of each then as kube_call makes them.
 * outs[i] (NULL or a new reference), rcs[i] and *errs[i]: what kube_call
 * gives for reqs[i]. */
void kube_call_many(kube_client *c, size_t n, const kube_request *reqs, json_t **outs, int *rcs,
		    bh_error *const *errs);
/* The answer of the last apply of an object (kube_apply records it;
 * kube_wait takes it as its first look instead of a GET), or NULL. Take:
 * the record is removed and the caller owns the object. */
#define KUBE_APPLIED_MAX 512
void kube_applied_put(kube_client *c, const kube_resource *r, const char *ns, const char *name, const json_t *obj);
json_t *kube_applied_take(kube_client *c, const kube_resource *r, const char *ns, const char *name);

#endif
