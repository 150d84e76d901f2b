/* proto/proto.c — see proto.h. */
#include "proto/proto.h"
#include "proto/jload.h"

#include <stdio.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *proto_type_name(uint32_t type)
{
	switch (type) {
	case PROTO_JOB: return "JOB";
	case PROTO_KUBE_RESPONSE: return "KUBE_RESPONSE";
	case PROTO_KUBE_REQUEST: return "KUBE_REQUEST";
	case PROTO_LOG: return "LOG";
	case PROTO_RESULT: return "RESULT";
	case PROTO_SECCOMP: return "SECCOMP";
	case PROTO_FETCH: return "FETCH";
	case PROTO_FETCH_RESULT: return "FETCH_RESULT";
	case PROTO_KUBE_STREAM: return "KUBE_STREAM";
	case PROTO_KUBE_CANCEL: return "KUBE_CANCEL";
	}
	return "UNKNOWN";
}

/* ---- field reader -------------------------------------------------------- */
typedef struct rd {
	const unsigned char *p;
	size_t n, at;
	bh_error *err;
	const char *what;
} rd;

static int rd_u32(rd *r, uint32_t *v, const char *field)
{
	if (r->n - r->at < 4)
		return bh_error_set(r->err, BH_EPROTO, "%s: truncated at field %s", r->what, field);
	*v = (uint32_t)r->p[r->at] | (uint32_t)r->p[r->at + 1] << 8 | (uint32_t)r->p[r->at + 2] << 16 |
	     (uint32_t)r->p[r->at + 3] << 24;
	r->at += 4;
	return 0;
}

static int rd_str(rd *r, const unsigned char **s, size_t *len, size_t max, const char *field)
{
	uint32_t l = 0;
	int rc;
	if ((rc = rd_u32(r, &l, field)) < 0)
		return rc;
	if (l > max)
		return bh_error_set(r->err, BH_ELIMIT, "%s: field %s is %u bytes, limit %zu", r->what, field, l, max);
	if (r->n - r->at < l)
		return bh_error_set(r->err, BH_EPROTO, "%s: field %s announces %u bytes, %zu remain", r->what,
				    field, l, r->n - r->at);
	*s = r->p + r->at;
	*len = l;
	r->at += l;
	return 0;
}

static int rd_end(rd *r)
{
	if (r->at != r->n)
		return bh_error_set(r->err, BH_EPROTO, "%s: %zu trailing bytes", r->what, r->n - r->at);
	return 0;
}

static void put_u32(bh_buf *b, uint32_t v)
{
	unsigned char x[4] = {v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >> 24) & 0xff};
	bh_buf_put(b, x, 4);
}

static void put_str(bh_buf *b, const void *s, size_t n)
{
	put_u32(b, (uint32_t)n);
	bh_buf_put(b, s, n);
}

static int is_text(const unsigned char *s, size_t n, int allow_nl)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == 0 || s[i] == 0x7f)
			return 0;
		if (s[i] < 0x20 && !(allow_nl && (s[i] == '\n' || s[i] == '\t')))
			return 0;
	}
	return 1;
}

static int is_token(const unsigned char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '_'))
			return 0;
	return 1;
}

static char *dupn(const unsigned char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* ---- KUBE_REQUEST --------------------------------------------------------- */
int proto_kube_request_encode(bh_buf *out, const char *method, const char *path,
			      const proto_header *headers, size_t nheaders,
			      const void *body, size_t body_len)
{
	put_str(out, method, strlen(method));
	put_str(out, path, strlen(path));
	put_u32(out, (uint32_t)nheaders);
	for (size_t i = 0; i < nheaders; i++) {
		put_str(out, headers[i].name, strlen(headers[i].name));
		put_str(out, headers[i].value, strlen(headers[i].value));
	}
	put_str(out, body, body_len);
	return bh_buf_ok(out) ? 0 : BH_ENOMEM;
}

void proto_kube_request_free(proto_kube_request *r)
{
	if (!r)
		return;
	free(r->method);
	free(r->path);
	for (size_t i = 0; i < r->nheaders; i++) {
		free(r->headers[i].name);
		free(r->headers[i].value);
	}
	free(r->headers);
	free(r->body);
	memset(r, 0, sizeof *r);
}

int proto_kube_request_decode(const unsigned char *p, size_t n, proto_kube_request *out, bh_error *err)
{
	static const char *const methods[] = {"GET", "POST", "PUT", "PATCH", "DELETE"};
	rd r = {p, n, 0, err, "KUBE_REQUEST"};
	const unsigned char *s;
	size_t l, i;
	uint32_t nh = 0;
	int rc, ok = 0;
	memset(out, 0, sizeof *out);
	if ((rc = rd_str(&r, &s, &l, 8, "method")) < 0)
		return rc;
	for (i = 0; i < sizeof methods / sizeof methods[0]; i++)
		if (strlen(methods[i]) == l && memcmp(methods[i], s, l) == 0)
			ok = 1;
	if (!ok)
		return bh_error_set(err, BH_EPROTO, "KUBE_REQUEST: method is not one of GET, POST, PUT, PATCH, DELETE");
	if (!(out->method = dupn(s, l)))
		goto oom;
	if ((rc = rd_str(&r, &s, &l, PROTO_MAX_PATH, "path")) < 0)
		goto fail;
	if (l == 0 || s[0] != '/' || !is_text(s, l, 0) || memchr(s, ' ', l) || memchr(s, '#', l)) {
		rc = bh_error_set(err, BH_EPROTO, "KUBE_REQUEST: path must be an absolute URL path of printable characters");
		goto fail;
	}
	if (!(out->path = dupn(s, l)))
		goto oom;
	if ((rc = rd_u32(&r, &nh, "header count")) < 0)
		goto fail;
	if (nh > PROTO_MAX_HEADERS) {
		rc = bh_error_set(err, BH_ELIMIT, "KUBE_REQUEST: %u headers, limit %d", nh, PROTO_MAX_HEADERS);
		goto fail;
	}
	if (nh && !(out->headers = calloc(nh, sizeof *out->headers)))
		goto oom;
	for (i = 0; i < nh; i++) {
		if ((rc = rd_str(&r, &s, &l, PROTO_MAX_HEADER_NAME, "header name")) < 0)
			goto fail;
		if (!is_token(s, l)) {
			rc = bh_error_set(err, BH_EPROTO, "KUBE_REQUEST: header name is not a token");
			goto fail;
		}
		out->nheaders = i + 1;
		if (!(out->headers[i].name = dupn(s, l)))
			goto oom;
		if ((rc = rd_str(&r, &s, &l, PROTO_MAX_HEADER_VALUE, "header value")) < 0)
			goto fail;
		if (!is_text(s, l, 0)) {
			rc = bh_error_set(err, BH_EPROTO, "KUBE_REQUEST: header %s has control characters",
					  out->headers[i].name);
			goto fail;
		}
		if (!(out->headers[i].value = dupn(s, l)))
			goto oom;
	}
	if ((rc = rd_str(&r, &s, &l, n, "body")) < 0)
		goto fail;
	if (!(out->body = (unsigned char *)dupn(s, l)))
		goto oom;
	out->body_len = l;
	if ((rc = rd_end(&r)) < 0)
		goto fail;
	return 0;
oom:
	rc = bh_error_set(err, BH_ENOMEM, "KUBE_REQUEST: out of memory");
fail:
	proto_kube_request_free(out);
	return rc;
}

const char *proto_kube_request_header(const proto_kube_request *r, const char *name)
{
	for (size_t i = 0; i < r->nheaders; i++)
		if (strcasecmp(r->headers[i].name, name) == 0)
			return r->headers[i].value;
	return NULL;
}

/* ---- KUBE_RESPONSE -------------------------------------------------------- */
void proto_kube_response_head(unsigned char out[PROTO_KUBE_RESPONSE_HEAD], uint32_t status, size_t body_len)
{
	for (int i = 0; i < 4; i++) {
		out[i] = (unsigned char)(status >> (8 * i));
		out[4 + i] = (unsigned char)((uint32_t)body_len >> (8 * i));
	}
}

int proto_kube_response_encode(bh_buf *out, uint32_t status, const void *body, size_t body_len)
{
	unsigned char head[PROTO_KUBE_RESPONSE_HEAD];
	proto_kube_response_head(head, status, body_len);
	bh_buf_put(out, head, sizeof head);
	bh_buf_put(out, body, body_len);
	return bh_buf_ok(out) ? 0 : BH_ENOMEM;
}

int proto_kube_response_decode(const unsigned char *p, size_t n, uint32_t *status,
			       const unsigned char **body, size_t *body_len, bh_error *err)
{
	rd r = {p, n, 0, err, "KUBE_RESPONSE"};
	int rc;
	if ((rc = rd_u32(&r, status, "status")) < 0 || (rc = rd_str(&r, body, body_len, n, "body")) < 0)
		return rc;
	if (*status < 100 || *status > 599)
		return bh_error_set(err, BH_EPROTO, "KUBE_RESPONSE: status %u out of range", *status);
	return rd_end(&r);
}

/* ---- single string ---------------------------------------------------------- */
void proto_str_head(unsigned char out[PROTO_STR_HEAD], size_t n)
{
	for (int i = 0; i < 4; i++)
		out[i] = (unsigned char)((uint32_t)n >> (8 * i));
}

int proto_str_encode(bh_buf *out, const void *s, size_t n)
{
	put_str(out, s, n);
	return bh_buf_ok(out) ? 0 : BH_ENOMEM;
}

int proto_str_decode(const unsigned char *p, size_t n, size_t max, int text,
		     const unsigned char **s, size_t *len, bh_error *err)
{
	rd r = {p, n, 0, err, "string message"};
	int rc;
	if ((rc = rd_str(&r, s, len, max, "text")) < 0 || (rc = rd_end(&r)) < 0)
		return rc;
	if (text && !is_text(*s, *len, 1))
		return bh_error_set(err, BH_EPROTO, "string message has NUL or control characters");
	return 0;
}

/* ---- SECCOMP ------------------------------------------------------------------- */
void proto_seccomp_encode(unsigned char out[8], uint32_t nr, uint32_t arch)
{
	for (int i = 0; i < 4; i++) {
		out[i] = (nr >> (8 * i)) & 0xff;
		out[4 + i] = (arch >> (8 * i)) & 0xff;
	}
}

int proto_seccomp_decode(const unsigned char *p, size_t n, uint32_t *nr, uint32_t *arch, bh_error *err)
{
	rd r = {p, n, 0, err, "SECCOMP"};
	int rc;
	if ((rc = rd_u32(&r, nr, "syscall")) < 0 || (rc = rd_u32(&r, arch, "arch")) < 0)
		return rc;
	if (*nr > 4095)
		return bh_error_set(err, BH_EPROTO, "SECCOMP: syscall number %u out of range", *nr);
	return rd_end(&r);
}

/* ---- RESULT ------------------------------------------------------------------------ */
void proto_result_free(proto_result *r)
{
	proto_snapshot *s;
	if (!r)
		return;
	free(r->reason);
	free(r->message);
	free(r->action);
	s = &r->release;
	free(s->name);
	free(s->namespace_);
	free(s->status);
	free(s->chart_name);
	free(s->chart_version);
	free(s->app_version);
	free(s->config_digest);
	free(s->digest);
	free(s->first_deployed);
	free(s->last_deployed);
	json_decref((json_t *)r->status);
	json_decref((json_t *)r->events);
	memset(r, 0, sizeof *r);
}

/* Copies string member key of o into *dst. required: missing is an error.
 * reason-like strings must be CamelCase tokens. */
static int get_str(json_t *o, const char *key, char **dst, size_t max, int required, int camel, bh_error *err)
{
	json_t *v = json_object_get(o, key);
	const char *s;
	size_t l;
	if (!v || json_is_null(v)) {
		if (required)
			return bh_error_set(err, BH_EPROTO, "RESULT: missing field %s", key);
		return 0;
	}
	if (!json_is_string(v))
		return bh_error_set(err, BH_EPROTO, "RESULT: field %s is not a string", key);
	s = json_string_value(v);
	l = json_string_length(v);
	if (l > max)
		return bh_error_set(err, BH_ELIMIT, "RESULT: field %s is %zu bytes, limit %zu", key, l, max);
	if (!is_text((const unsigned char *)s, l, !camel))
		return bh_error_set(err, BH_EPROTO, "RESULT: field %s has NUL or control characters", key);
	if (camel) {
		if (l == 0 || s[0] < 'A' || s[0] > 'Z')
			return bh_error_set(err, BH_EPROTO, "RESULT: field %s must be CamelCase", key);
		for (size_t i = 0; i < l; i++)
			if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
				return bh_error_set(err, BH_EPROTO, "RESULT: field %s must be CamelCase", key);
	}
	if (!(*dst = dupn((const unsigned char *)s, l)))
		return bh_error_set(err, BH_ENOMEM, "RESULT: out of memory");
	return 0;
}

/* ---- RESULT status: a catalogue of what a worker may write ---- */
enum { V_STR, V_INT, V_CONDS, V_HISTORY, V_TESTHOOKS, V_EVENTS };
typedef struct vfield {
	const char *key;
	int kind;
	size_t max;              /* string bytes / array entries */
	const char *const *enumv; /* allowed values, NULL-terminated, or NULL */
} vfield;

static const char *const cond_types[] = {"Ready", "Released", "TestSuccess", "Remediated", "Reconciling", "Stalled",
					 "Drifted", NULL};
static const char *const cond_status[] = {"True", "False", "Unknown", NULL};
static const char *const actions[] = {"install", "upgrade", NULL};
static const char *const event_types[] = {"Normal", "Warning", NULL};

static const vfield status_fields[] = {
	{"conditions", V_CONDS, 7, NULL},
	{"history", V_HISTORY, PROTO_MAX_HISTORY, NULL},
	{"failures", V_INT, 0, NULL},
	{"installFailures", V_INT, 0, NULL},
	{"upgradeFailures", V_INT, 0, NULL},
	{"lastAttemptedReleaseAction", V_STR, 16, actions},
	{"lastAttemptedRevision", V_STR, 256, NULL},
	{"lastAttemptedRevisionDigest", V_STR, 256, NULL},
	{"lastAttemptedConfigDigest", V_STR, 256, NULL},
	{"lastAppliedRevision", V_STR, 256, NULL},
	{"lastHandledForceAt", V_STR, 256, NULL},
	{"lastHandledResetAt", V_STR, 256, NULL},
	{"observedPostRenderersDigest", V_STR, 256, NULL},
	{"observedCommonMetadataDigest", V_STR, 256, NULL},
	{"lastAttemptedReleaseActionDuration", V_STR, 64, NULL},
	{NULL, 0, 0, NULL},
};
static const vfield cond_fields[] = {
	{"type", V_STR, 32, cond_types},
	{"status", V_STR, 8, cond_status},
	{"observedGeneration", V_INT, 0, NULL},
	{"reason", V_STR, 64, NULL}, /* CamelCase, checked below */
	{"message", V_STR, 4 * PROTO_MAX_TEXT, NULL},
	{NULL, 0, 0, NULL},
};
static const vfield snap_fields[] = {
	{"apiVersion", V_STR, 16, NULL},
	{"digest", V_STR, 256, NULL},
	{"name", V_STR, 253, NULL},
	{"namespace", V_STR, 63, NULL},
	{"version", V_INT, 0, NULL},
	{"status", V_STR, 32, NULL},
	{"action", V_STR, 32, NULL},
	{"chartName", V_STR, 253, NULL},
	{"chartVersion", V_STR, 128, NULL},
	{"appVersion", V_STR, 128, NULL},
	{"configDigest", V_STR, 256, NULL},
	{"firstDeployed", V_STR, 64, NULL},
	{"lastDeployed", V_STR, 64, NULL},
	{"deleted", V_STR, 64, NULL},
	{"ociDigest", V_STR, 256, NULL},
	{"testHooks", V_TESTHOOKS, PROTO_MAX_TEST_HOOKS, NULL},
	{NULL, 0, 0, NULL},
};
static const vfield event_fields[] = {
	{"type", V_STR, 8, event_types},
	{"reason", V_STR, 64, NULL}, /* CamelCase, checked below */
	{"message", V_STR, 4 * PROTO_MAX_TEXT, NULL},
	{"revision", V_STR, 256, NULL},
	{"token", V_STR, 256, NULL},
	{NULL, 0, 0, NULL},
};
static const vfield result_fields[] = {
	{"events", V_EVENTS, PROTO_MAX_EVENTS, NULL},
	{NULL, 0, 0, NULL},
};
static const vfield hook_fields[] = {
	{"lastStarted", V_STR, 64, NULL},
	{"lastCompleted", V_STR, 64, NULL},
	{"phase", V_STR, 32, NULL},
	{NULL, 0, 0, NULL},
};

static int v_object(const json_t *o, const vfield *f, const char *where, bh_error *err);

static int v_camel(const char *s)
{
	if (!*s || *s < 'A' || *s > 'Z')
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

static int v_value(const json_t *v, const vfield *f, const char *where, bh_error *err)
{
	char sub[160];
	size_t i;
	const char *k;
	json_t *x;
	switch (f->kind) {
	case V_STR: {
		size_t l = json_string_length(v);
		if (!json_is_string(v))
			return bh_error_set(err, BH_EPROTO, "RESULT: %s.%s is not a string", where, f->key);
		if (l > f->max)
			return bh_error_set(err, BH_ELIMIT, "RESULT: %s.%s is %zu bytes, limit %zu", where, f->key, l, f->max);
		if (!is_text((const unsigned char *)json_string_value(v), l, f->kind == V_STR && f->max > 1024))
			return bh_error_set(err, BH_EPROTO, "RESULT: %s.%s has NUL or control characters", where, f->key);
		if (f->enumv) {
			int ok = 0;
			for (const char *const *e = f->enumv; *e; e++)
				ok |= !strcmp(*e, json_string_value(v));
			if (!ok)
				return bh_error_set(err, BH_EPROTO, "RESULT: %s.%s has an unknown value", where, f->key);
		}
		break;
	}
	case V_INT:
		if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 1000000000000LL)
			return bh_error_set(err, BH_EPROTO, "RESULT: %s.%s must be a non-negative integer", where, f->key);
		break;
	case V_CONDS:
	case V_HISTORY:
	case V_EVENTS:
		if (!json_is_array(v))
			return bh_error_set(err, BH_EPROTO, "RESULT: %s.%s is not an array", where, f->key);
		if (json_array_size(v) > f->max)
			return bh_error_set(err, BH_ELIMIT, "RESULT: %s.%s has %zu entries, limit %zu", where, f->key,
					    json_array_size(v), f->max);
		json_array_foreach(v, i, x) {
			snprintf(sub, sizeof sub, "%s.%s[%zu]", where, f->key, i);
			if (v_object(x, f->kind == V_CONDS ? cond_fields : f->kind == V_EVENTS ? event_fields : snap_fields, sub,
				     err) < 0)
				return err->code;
			if (f->kind == V_EVENTS) {
				if (!json_is_string(json_object_get(x, "type")) || !json_is_string(json_object_get(x, "message")) ||
				    !v_camel(json_string_value(json_object_get(x, "reason")) ? json_string_value(json_object_get(x, "reason")) : ""))
					return bh_error_set(err, BH_EPROTO, "RESULT: %s needs type, message and a CamelCase reason", sub);
			} else if (f->kind == V_CONDS) {
				if (json_object_size(x) != 5 || !v_camel(json_string_value(json_object_get(x, "reason"))))
					return bh_error_set(err, BH_EPROTO, "RESULT: %s needs type, status, observedGeneration, "
							    "message and a CamelCase reason", sub);
				for (size_t j = 0; j < i; j++)
					if (json_equal(json_object_get(json_array_get(v, j), "type"), json_object_get(x, "type")))
						return bh_error_set(err, BH_EPROTO, "RESULT: %s repeats a condition type", sub);
			} else if (!json_is_string(json_object_get(x, "name")) || !json_is_string(json_object_get(x, "namespace")) ||
				   json_integer_value(json_object_get(x, "version")) < 1) {
				return bh_error_set(err, BH_EPROTO, "RESULT: %s needs name, namespace and a positive version", sub);
			}
		}
		break;
	case V_TESTHOOKS:
		if (!json_is_object(v))
			return bh_error_set(err, BH_EPROTO, "RESULT: %s.%s is not an object", where, f->key);
		if (json_object_size(v) > f->max)
			return bh_error_set(err, BH_ELIMIT, "RESULT: %s.%s has %zu entries, limit %zu", where, f->key,
					    json_object_size(v), f->max);
		json_object_foreach((json_t *)v, k, x) {
			size_t kl = strlen(k);
			if (kl == 0 || kl > 253 || !is_text((const unsigned char *)k, kl, 0))
				return bh_error_set(err, BH_EPROTO, "RESULT: %s.%s has an invalid hook name", where, f->key);
			snprintf(sub, sizeof sub, "%s.%s[%.40s]", where, f->key, k);
			if (v_object(x, hook_fields, sub, err) < 0)
				return err->code;
		}
		break;
	}
	return 0;
}

/* Checks that o has only members f allows, each as f says: the decoder
 * then keeps o itself (its tree is the RESULT's, which holds nothing else
 * once the catalogue's fields are taken), not a copy. */
static int v_object(const json_t *o, const vfield *f, const char *where, bh_error *err)
{
	const char *k;
	json_t *v;
	if (!json_is_object(o))
		return bh_error_set(err, BH_EPROTO, "RESULT: %s is not an object", where);
	json_object_foreach((json_t *)o, k, v) {
		const vfield *g;
		for (g = f; g->key && strcmp(g->key, k) != 0; g++)
			;
		if (!g->key)
			return bh_error_set(err, BH_EPROTO, "RESULT: %s has an unknown field %.64s", where, k);
		if (v_value(v, g, where, err) < 0)
			return err->code;
	}
	return 0;
}

int proto_result_decode(const unsigned char *p, size_t n, proto_result *out, bh_error *err)
{
	json_error_t je;
	json_t *root, *v, *rel;
	proto_snapshot *s = &out->release;
	int rc = 0;
	memset(out, 0, sizeof *out);
	if (n > PROTO_MAX_RESULT)
		return bh_error_set(err, BH_ELIMIT, "RESULT: %zu bytes, limit %u", n, PROTO_MAX_RESULT);
	root = jload_new((const char *)p, n, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return bh_error_set(err, BH_EPARSE, "RESULT: invalid JSON: %s", je.text);
	if (!json_is_object(root)) {
		rc = bh_error_set(err, BH_EPROTO, "RESULT: not a JSON object");
		goto done;
	}
	v = json_object_get(root, "ready");
	if (!json_is_boolean(v)) {
		rc = bh_error_set(err, BH_EPROTO, "RESULT: field ready must be a boolean");
		goto done;
	}
	out->ready = json_is_true(v);
	if ((rc = get_str(root, "reason", &out->reason, 64, 1, 1, err)) < 0 ||
	    (rc = get_str(root, "message", &out->message, 4 * PROTO_MAX_TEXT, 1, 0, err)) < 0 ||
	    (rc = get_str(root, "action", &out->action, 32, 0, 0, err)) < 0)
		goto done;
	rel = json_object_get(root, "release");
	if (rel && !json_is_null(rel)) {
		json_t *ver;
		if (!json_is_object(rel)) {
			rc = bh_error_set(err, BH_EPROTO, "RESULT: release is not an object");
			goto done;
		}
		out->has_release = 1;
		if ((rc = get_str(rel, "name", &s->name, 253, 1, 0, err)) < 0 ||
		    (rc = get_str(rel, "namespace", &s->namespace_, 63, 1, 0, err)) < 0 ||
		    (rc = get_str(rel, "status", &s->status, 32, 1, 0, err)) < 0 ||
		    (rc = get_str(rel, "chartName", &s->chart_name, 253, 1, 0, err)) < 0 ||
		    (rc = get_str(rel, "chartVersion", &s->chart_version, 128, 1, 0, err)) < 0 ||
		    (rc = get_str(rel, "appVersion", &s->app_version, 128, 0, 0, err)) < 0 ||
		    (rc = get_str(rel, "configDigest", &s->config_digest, 256, 0, 0, err)) < 0 ||
		    (rc = get_str(rel, "digest", &s->digest, 256, 0, 0, err)) < 0 ||
		    (rc = get_str(rel, "firstDeployed", &s->first_deployed, 64, 0, 0, err)) < 0 ||
		    (rc = get_str(rel, "lastDeployed", &s->last_deployed, 64, 0, 0, err)) < 0)
			goto done;
		ver = json_object_get(rel, "version");
		if (!json_is_integer(ver) || json_integer_value(ver) < 1 || json_integer_value(ver) > 1000000000) {
			rc = bh_error_set(err, BH_EPROTO, "RESULT: release.version must be a positive integer");
			goto done;
		}
		s->version = json_integer_value(ver);
	}
	v = json_object_get(root, "requeue");
	if (v) {
		const char *q = json_string_value(v);
		if (q && !strcmp(q, "interval"))
			out->requeue = PROTO_REQUEUE_INTERVAL;
		else if (q && !strcmp(q, "now"))
			out->requeue = PROTO_REQUEUE_NOW;
		else if (q && !strcmp(q, "never"))
			out->requeue = PROTO_REQUEUE_NEVER;
		else if (q && !strcmp(q, "retry"))
			out->requeue = PROTO_REQUEUE_RETRY;
		else {
			rc = bh_error_set(err, BH_EPROTO, "RESULT: requeue must be interval, now, never or retry");
			goto done;
		}
	}
	v = json_object_get(root, "events");
	if (v) {
		if ((rc = v_value(v, &result_fields[0], "", err)) < 0)
			goto done;
		out->events = json_incref(v);
	}
	v = json_object_get(root, "status");
	if (v) {
		if ((rc = v_object(v, status_fields, "status", err)) < 0)
			goto done;
		out->status = json_incref(v);
	}
done:
	json_decref(root);
	if (rc < 0)
		proto_result_free(out);
	return rc;
}
