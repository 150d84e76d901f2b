/* kube/client.c — the client object, raw requests with retries/backoff,
 * and mapping of API errors (Status objects) to BH_E* codes. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "kube/client_priv.h"
#include "kube/kube.h"
#include "lib/json_skim.h"

void kube_response_free(kube_response *resp)
{
	if (!resp)
		return;
	free(resp->content_type);
	free(resp->retry_after);
	bh_buf_free(&resp->body);
}

void kube_response_reset(kube_response *resp)
{
	kube_response_free(resp);
	memset(resp, 0, sizeof *resp);
}

kube_transport *kube_transport_new(const kube_transport_ops *ops, void *impl)
{
	kube_transport *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->ops = ops;
	t->impl = impl;
	return t;
}

void kube_transport_free(kube_transport *t)
{
	if (!t)
		return;
	if (t->ops && t->ops->free)
		t->ops->free(t->impl);
	free(t);
}

static void real_sleep(void *ud, long ms)
{
	(void)ud;
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
}

static double real_rand(void *ud)
{
	(void)ud;
	return (double)random() / ((double)RAND_MAX + 1.0);
}

long kube_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

kube_client *kube_client_new(kube_transport *t, bh_error *err)
{
	if (!t || !t->ops || !t->ops->request) {
		kube_transport_free(t);
		bh_error_set(err, BH_EINVAL, "kube client: no transport");
		return NULL;
	}
	kube_client *c = calloc(1, sizeof *c);
	if (!c) {
		kube_transport_free(t);
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	c->t = t;
	c->retry = (kube_retry_policy)KUBE_RETRY_DEFAULT;
	c->sleep_ms = real_sleep;
	c->rand01 = real_rand;
	return c;
}

static void free_headers(kube_client *c)
{
	if (c->imp_headers) {
		for (size_t i = 0; c->imp_headers[i]; i++)
			free(c->imp_headers[i]);
		free(c->imp_headers);
	}
	c->imp_headers = NULL;
}

void kube_client_free(kube_client *c)
{
	if (!c)
		return;
	kube_transport_free(c->t);
	free_headers(c);
	kube_mapping_reset(c);
	json_decref(c->applied);
	for (size_t i = 0; i < c->npool; i++)
		free(c->pool[i]);
	free(c->pool);
	free(c);
}

void kube_client_set_retry(kube_client *c, const kube_retry_policy *p)
{
	c->retry = *p;
	if (c->retry.max_attempts < 1)
		c->retry.max_attempts = 1;
	if (c->retry.base_ms < 0)
		c->retry.base_ms = 0;
	if (c->retry.max_ms < c->retry.base_ms)
		c->retry.max_ms = c->retry.base_ms;
	if (c->retry.jitter_pct < 0 || c->retry.jitter_pct > 100)
		c->retry.jitter_pct = 0;
}

void kube_client_set_timeout(kube_client *c, long timeout_ms)
{
	c->timeout_ms = timeout_ms;
}

void kube_client_set_hooks(kube_client *c, void (*sleep_ms)(void *, long), double (*rand01)(void *),
                           void *ud)
{
	c->sleep_ms = sleep_ms ? sleep_ms : real_sleep;
	c->rand01 = rand01 ? rand01 : real_rand;
	c->hook_ud = ud;
}

static int header_value_ok(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

int kube_client_set_impersonation(kube_client *c, const char *user, const char *const *groups,
                                  bh_error *err)
{
	free_headers(c);
	size_t n = 0;
	for (size_t i = 0; groups && groups[i]; i++)
		n++;
	if (!user && n == 0)
		return 0;
	if ((user && !header_value_ok(user)))
		return bh_error_set(err, BH_EINVAL, "impersonation: user contains control characters");
	for (size_t i = 0; i < n; i++)
		if (!header_value_ok(groups[i]))
			return bh_error_set(err, BH_EINVAL, "impersonation: group contains control characters");
	c->imp_headers = calloc(n + 2, sizeof *c->imp_headers);
	if (!c->imp_headers)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	size_t k = 0;
	bh_buf b = BH_BUF_INIT;
	if (user) {
		bh_buf_printf(&b, "Impersonate-User: %s", user);
		c->imp_headers[k++] = bh_buf_detach(&b);
	}
	for (size_t i = 0; i < n; i++) {
		bh_buf_printf(&b, "Impersonate-Group: %s", groups[i]);
		c->imp_headers[k++] = bh_buf_detach(&b);
	}
	for (size_t i = 0; i < k; i++)
		if (!c->imp_headers[i]) {
			free_headers(c);
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		}
	return 0;
}

long kube_client_last_status(const kube_client *c)
{
	return c->last_status;
}

const char *kube_client_last_reason(const kube_client *c)
{
	return c->last_reason;
}

const char *kube_client_last_message(const kube_client *c)
{
	return c->last_message;
}

void kube_giveup_text(char *out, size_t n, const char *method, const char *path, int attempts, const char *why)
{
	if (method)
		snprintf(out, n, "%s %s: giving up after %d attempt%s (%s)", method, path, attempts,
		         attempts == 1 ? "" : "s", why);
	else
		snprintf(out, n, "giving up after %d attempts (%s)", attempts, why);
}

int kube_client_last_attempts(const kube_client *c)
{
	return c->last_attempts;
}

/* Headers = client impersonation + request's own. Caller frees the array. */
const char **kube_merge_headers(kube_client *c, const char *const *extra)
{
	size_t n = 0, m = 0;
	for (size_t i = 0; c->imp_headers && c->imp_headers[i]; i++)
		n++;
	for (size_t i = 0; extra && extra[i]; i++)
		m++;
	const char **h = calloc(n + m + 1, sizeof *h);
	if (!h)
		return NULL;
	for (size_t i = 0; i < n; i++)
		h[i] = c->imp_headers[i];
	for (size_t i = 0; i < m; i++)
		h[n + i] = extra[i];
	return h;
}

static int method_idempotent(const kube_request *req)
{
	const char *m = req->method;
	if (!strcmp(m, "GET") || !strcmp(m, "HEAD") || !strcmp(m, "OPTIONS") || !strcmp(m, "PUT") ||
	    !strcmp(m, "DELETE"))
		return 1;
	return !strcmp(m, "PATCH") && req->content_type &&
	       !strcmp(req->content_type, "application/apply-patch+yaml");
}

/* Retry-After: delta-seconds, or an HTTP-date (IMF-fixdate). Returns ms
 * (capped at a day) or -1 when absent or unreadable. */
long kube_parse_retry_after(const char *v)
{
	if (!v)
		return -1;
	while (*v == ' ')
		v++;
	if (*v < '0' || *v > '9') {
		struct tm tm = {0};
		const char *end = strptime(v, "%a, %d %b %Y %H:%M:%S GMT", &tm);
		if (!end || *end)
			return -1;
		long d = (long)(timegm(&tm) - time(NULL));
		if (d < 0)
			d = 0;
		return d > 86400 ? 86400L * 1000 : d * 1000;
	}
	long s = 0;
	for (; *v >= '0' && *v <= '9'; v++) {
		s = s * 10 + (*v - '0');
		if (s > 86400)
			return 86400L * 1000;
	}
	while (*v == ' ')
		v++;
	return *v ? -1 : s * 1000;
}

static long backoff_ms(const kube_retry_policy *p, int attempt, double (*rand01)(void *), void *ud)
{
	long d = p->base_ms;
	for (int i = 1; i < attempt && d < p->max_ms; i++)
		d *= 2;
	if (d > p->max_ms)
		d = p->max_ms;
	if (p->jitter_pct > 0) {
		double j = (rand01(ud) * 2.0 - 1.0) * p->jitter_pct / 100.0;
		d = (long)((double)d * (1.0 + j));
	}
	return d < 0 ? 0 : d;
}

long kube_retry_wait(const kube_retry_policy *p, double (*rand01)(void *), void *ud, const kube_request *req,
                     int attempt, int rc, const kube_response *resp, long used_ms, const char **why)
{
	int idem = method_idempotent(req);
	*why = NULL;
	if (rc ? !(idem && rc == BH_EUNAVAIL)
	       : !(resp->status == 429 || (idem && resp->status >= 500 && resp->status != 501)))
		return -1;
	long ra = rc ? -1 : kube_parse_retry_after(resp->retry_after);
	long wait = ra >= 0 ? ra : backoff_ms(p, attempt, rand01, ud);
	if (attempt >= p->max_attempts)
		*why = "attempts exhausted";
	else if (used_ms + wait > p->budget_ms)
		*why = ra >= 0 ? "Retry-After exceeds the remaining retry budget" : "retry budget exhausted";
	return *why ? -1 : wait;
}

/* Refuses what could smuggle a second request or header line: a path that
 * is not absolute, and control characters in the path or header values. */
static int request_ok(const kube_request *req, bh_error *err)
{
	if (!req->method || !*req->method || strspn(req->method, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != strlen(req->method))
		return bh_error_set(err, BH_EINVAL, "request: invalid method");
	if (!req->path || req->path[0] != '/')
		return bh_error_set(err, BH_EINVAL, "request: path must start with /");
	for (const char *p = req->path; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return bh_error_set(err, BH_EINVAL, "request: path contains a space or control character");
	if ((req->content_type && !header_value_ok(req->content_type)) || (req->accept && !header_value_ok(req->accept)))
		return bh_error_set(err, BH_EINVAL, "request: header contains a control character");
	for (size_t i = 0; req->headers && req->headers[i]; i++)
		if (!header_value_ok(req->headers[i]) || !strchr(req->headers[i], ':'))
			return bh_error_set(err, BH_EINVAL, "request: malformed header line");
	return 0;
}

/* req made ready to send in *r: validated, the client's headers merged
 * (*headers, the caller frees it) and the client's timeout as default. */
static int request_prepare(kube_client *c, const kube_request *req, kube_request *r, const char ***headers,
			   bh_error *err)
{
	int rc = request_ok(req, err);
	if (rc)
		return rc;
	if (!(*headers = kube_merge_headers(c, req->headers)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	*r = *req;
	r->headers = *headers;
	if (!r->timeout_ms)
		r->timeout_ms = c->timeout_ms;
	return 0;
}

/* The attempts of r (req as the caller gave it) under the retry policy,
 * the first already made when sent is set (its outcome in rc and resp),
 * all counted from start. Returns the outcome of the last. */
static int request_attempts(kube_client *c, const kube_request *req, const kube_request *r, int sent, int rc,
			    kube_response *resp, long start, bh_error *err)
{
	long slept = 0;
	c->giveup_why = NULL;
	c->last_attempts = 0;
	c->last_message[0] = 0;
	for (int attempt = 1;; attempt++) {
		c->last_attempts = attempt;
		if (attempt > 1 || !sent) {
			kube_response_reset(resp);
			rc = c->t->ops->request(c->t->impl, r, resp, err);
		}
		/* the budget counts real elapsed time plus the waits we asked for
		 * (which a test's fake sleep may not really spend) */
		long used = kube_now_ms() - start;
		if (slept > used)
			used = slept;
		const char *why;
		long wait = kube_retry_wait(&c->retry, c->rand01, c->hook_ud, req, attempt, rc, resp, used, &why);
		if (wait < 0) {
			if (why && rc) {
				char gave[BH_ERROR_MSG_MAX];
				kube_giveup_text(gave, sizeof gave, req->method, req->path, attempt, why);
				bh_error_prefix(err, "%s", gave);
			} else if (why) {
				c->giveup_attempts = attempt;
				c->giveup_why = why;
			}
			return rc;
		}
		c->sleep_ms(c->hook_ud, wait);
		slept += wait;
	}
}

int kube_request_send(kube_client *c, const kube_request *req, kube_response *resp, bh_error *err)
{
	const char **headers;
	kube_request r;
	int rc = request_prepare(c, req, &r, &headers, err);
	if (rc)
		return rc;
	rc = request_attempts(c, req, &r, 0, 0, resp, kube_now_ms(), err);
	free(headers);
	return rc;
}

/* The first attempts of n requests: together when the transport can, else
 * one by one. */
static void transport_requests(kube_client *c, size_t n, const kube_request *reqs, kube_response *resps, int *rcs,
			       bh_error *const *errs)
{
	if (c->t->ops->requests && n > 1) {
		c->t->ops->requests(c->t->impl, n, reqs, resps, rcs, errs);
		return;
	}
	for (size_t i = 0; i < n; i++)
		rcs[i] = c->t->ops->request(c->t->impl, &reqs[i], &resps[i], errs[i]);
}

/* Extracts Status.message/reason from a JSON error body. */
static void status_details(const kube_response *resp, const char **msg, const char **reason, json_t **root)
{
	*msg = *reason = NULL;
	*root = NULL;
	if (!resp->body.len)
		return;
	json_t *j = json_loadb(resp->body.data, resp->body.len, 0, NULL);
	if (!json_is_object(j)) {
		json_decref(j);
		return;
	}
	*root = j;
	*msg = json_string_value(json_object_get(j, "message"));
	*reason = json_string_value(json_object_get(j, "reason"));
}

static int code_for_status(long s)
{
	switch (s) {
	case 400:
	case 422:
		return BH_EINVAL;
	case 401:
	case 403:
		return BH_EDENIED;
	case 404:
		return BH_ENOTFOUND;
	case 409:
		return BH_ECONFLICT;
	case 410:
		return BH_EGONE;
	case 408:
	case 504:
		return BH_ETIMEOUT;
	}
	if (s == 429 || s >= 500)
		return BH_EUNAVAIL;
	return BH_EPROTO;
}

int kube_client_response_error(kube_client *c, const kube_response *resp, const char *what, bh_error *err)
{
	if (resp->status >= 200 && resp->status < 300) {
		c->giveup_why = NULL;
		return 0;
	}
	const char *msg, *reason;
	json_t *root;
	status_details(resp, &msg, &reason, &root);
	c->last_status = resp->status;
	snprintf(c->last_reason, sizeof c->last_reason, "%s", reason ? reason : "");
	snprintf(c->last_message, sizeof c->last_message, "%s", msg ? msg : "");
	int rc = kube_response_error(resp, what, err);
	if (c->giveup_why) {
		char gave[160];
		kube_giveup_text(gave, sizeof gave, NULL, NULL, c->giveup_attempts, c->giveup_why);
		bh_error_prefix(err, "%s", gave);
		c->giveup_why = NULL;
	}
	json_decref(root);
	return rc;
}

int kube_response_error(const kube_response *resp, const char *what, bh_error *err)
{
	if (resp->status >= 200 && resp->status < 300)
		return 0;
	const char *msg, *reason;
	json_t *root;
	status_details(resp, &msg, &reason, &root);
	int code = code_for_status(resp->status);
	if (msg && *msg) {
		bh_error_set(err, code, "%s: %ld %s: %s", what, resp->status, reason && *reason ? reason : "Error",
		             msg);
	} else {
		int n = (int)(resp->body.len > 200 ? 200 : resp->body.len);
		bh_error_set(err, code, "%s: HTTP %ld%s%.*s", what, resp->status, n ? ": " : "", n,
		             n ? resp->body.data : "");
	}
	json_decref(root);
	return code;
}

/* The answer's text less the members at drop (found in one scan), in b: 1
 * when one was cut (else b holds nothing), -1 out of memory. */
static int cut_answer(const kube_response *resp, const char *const *drop, bh_buf *b)
{
	json_skim_paths ps;
	json_skim_found f;
	int ncut;
	ps.n = 0;
	for (; drop && *drop; drop++)
		json_skim_paths_add(&ps, NULL, 0, *drop); /* one that does not fit stays */
	if (!ps.n || !json_skim_find(resp->body.data, resp->body.len, &ps, &f))
		return 0;
	if (bh_buf_grow(b, resp->body.len) < 0)
		return -1;
	b->len = json_skim_cut_found(resp->body.data, resp->body.len, &f, f.found, b->data, &ncut);
	b->data[b->len] = '\0';
	if (!ncut)
		bh_buf_reset(b);
	return ncut ? 1 : 0;
}

int kube_decode_body(const kube_response *resp, const char *const *drop, json_t **out, const char *what,
		     bh_error *err)
{
	bh_buf cut = BH_BUF_INIT;
	json_error_t je;
	int rc;
	if (!out)
		return 0;
	if (!resp->body.len) {
		*out = json_null();
		return 0;
	}
	if ((rc = cut_answer(resp, drop, &cut)) < 0) {
		bh_buf_free(&cut);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	*out = rc ? json_loadb(cut.data, cut.len, JSON_DECODE_ANY, &je)
		  : json_loadb(resp->body.data, resp->body.len, JSON_DECODE_ANY, &je);
	bh_buf_free(&cut);
	if (!*out)
		return bh_error_set(err, BH_EPROTO, "%s: response is not JSON: %s", what, je.text);
	return 0;
}

int kube_call(kube_client *c, const char *method, const char *path, const char *content_type,
              const char *body, size_t body_len, json_t **out, bh_error *err)
{
	return kube_call_drop(c, method, path, content_type, body, body_len, NULL, out, err);
}

/* The answer of what (a request that was sent: rc, resp) as kube_call
 * gives it: the error of a failed status, else the body decoded into *out. */
static int call_outcome(kube_client *c, int rc, const kube_response *resp, const char *what,
			const char *const *drop, json_t **out, bh_error *err)
{
	if (!rc)
		rc = kube_client_response_error(c, resp, what, err);
	if (!rc)
		rc = kube_decode_body(resp, drop, out, what, err);
	return rc;
}

int kube_call_drop(kube_client *c, const char *method, const char *path, const char *content_type,
		   const char *body, size_t body_len, const char *const *drop, json_t **out, bh_error *err)
{
	kube_request req = {
		.method = method,
		.path = path,
		.content_type = content_type,
		.body = body,
		.body_len = body_len,
	};
	kube_response resp = KUBE_RESPONSE_INIT;
	c->giveup_why = NULL;
	c->last_status = 0;
	c->last_reason[0] = 0;
	bh_buf what = BH_BUF_INIT;
	bh_buf_printf(&what, "%s %s", method, path);
	int rc = kube_request_send(c, &req, &resp, err);
	rc = call_outcome(c, rc, &resp, bh_buf_str(&what), drop, out, err);
	bh_buf_free(&what);
	kube_response_free(&resp);
	return rc;
}

/* kube_call_many of n <= KUBE_BATCH_MAX requests. */
static void call_batch(kube_client *c, size_t n, const kube_request *reqs, json_t **outs, int *rcs,
		       bh_error *const *errs)
{
	kube_request r[KUBE_BATCH_MAX];
	const char **headers[KUBE_BATCH_MAX];
	kube_response resps[KUBE_BATCH_MAX];
	size_t idx[KUBE_BATCH_MAX], m = 0;
	int first[KUBE_BATCH_MAX];
	long start;
	for (size_t i = 0; i < n; i++) {
		outs[i] = NULL;
		if ((rcs[i] = request_prepare(c, &reqs[i], &r[m], &headers[m], errs[i])) == 0)
			idx[m++] = i;
	}
	start = kube_now_ms();
	for (size_t k = 0; k < m; k++)
		resps[k] = (kube_response)KUBE_RESPONSE_INIT;
	if (m) {
		bh_error *e[KUBE_BATCH_MAX];
		for (size_t k = 0; k < m; k++)
			e[k] = errs[idx[k]];
		transport_requests(c, m, r, resps, first, e);
	}
	/* in order, each one's retries and then its outcome: the client's
	 * record of the last call (kube_client_last_*) is that item's */
	for (size_t k = 0; k < m; k++) {
		size_t i = idx[k];
		bh_buf what = BH_BUF_INIT;
		c->last_status = 0;
		c->last_reason[0] = 0;
		rcs[i] = request_attempts(c, &reqs[i], &r[k], 1, first[k], &resps[k], start, errs[i]);
		bh_buf_printf(&what, "%s %s", reqs[i].method, reqs[i].path);
		rcs[i] = call_outcome(c, rcs[i], &resps[k], bh_buf_str(&what), NULL, &outs[i], errs[i]);
		bh_buf_free(&what);
		kube_response_free(&resps[k]);
		free(headers[k]);
	}
}

void kube_call_many(kube_client *c, size_t n, const kube_request *reqs, json_t **outs, int *rcs,
		    bh_error *const *errs)
{
	for (size_t at = 0; at < n; at += KUBE_BATCH_MAX)
		call_batch(c, n - at < KUBE_BATCH_MAX ? n - at : KUBE_BATCH_MAX, reqs + at, outs + at, rcs + at, errs + at);
}

int kube_request_json(kube_client *c, const char *method, const char *path, const char *content_type,
                      const json_t *body, json_t **out, bh_error *err)
{
	char *text = NULL;
	if (body) {
		text = json_dumps(body, JSON_COMPACT | JSON_ENCODE_ANY);
		if (!text)
			return bh_error_set(err, BH_ENOMEM, "out of memory encoding request body");
	}
	int rc = kube_call(c, method, path, body ? (content_type ? content_type : "application/json") : NULL,
	                   text, text ? strlen(text) : 0, out, err);
	free(text);
	return rc;
}
