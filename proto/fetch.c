/* proto/fetch.c — see fetch.h. */
#include "proto/fetch.h"
#include "proto/jload.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

enum { F_STR, F_BOOL, F_INT, F_I32, F_STRV };
#define MAX_STRV 256
typedef struct ffield {
	const char *key;
	int kind;
	size_t off;
	size_t max;   /* string bytes, or largest integer */
	int required;
} ffield;

#define RQ(f) offsetof(proto_fetch_request, f)
static const ffield request_fields[] = {
	{"op", F_I32, RQ(op), FETCH_OP_OCI, 1},
	{"url", F_STR, RQ(url), 4096, 1},
	{"chart", F_STR, RQ(chart), 253, 0},
	{"version", F_STR, RQ(version), 1024, 0},
	{"digest", F_STR, RQ(digest), 200, 0},
	{"haveVersion", F_STR, RQ(have_version), 256, 0},
	{"haveDigest", F_STR, RQ(have_digest), 200, 0},
	{"username", F_STR, RQ(username), 4096, 0},
	{"password", F_STR, RQ(password), 16384, 0},
	{"caPem", F_STR, RQ(ca_pem), 65536, 0},
	{"certPem", F_STR, RQ(cert_pem), 65536, 0},
	{"keyPem", F_STR, RQ(key_pem), 65536, 0},
	{"dockerConfig", F_STR, RQ(docker_config), 65536, 0},
	{"tag", F_STR, RQ(tag), 128, 0},
	{"semver", F_STR, RQ(semver), 1024, 0},
	{"refDigest", F_STR, RQ(ref_digest), 200, 0},
	{"mediaType", F_STR, RQ(media_type), 255, 0},
	{"semverFilter", F_STR, RQ(semver_filter), 1024, 0},
	{"pullSecretConfigs", F_STRV, RQ(pull_secret_configs), 65536, 0},
	{"proxyUrl", F_STR, RQ(proxy_url), 2048, 0},
	{"proxyUsername", F_STR, RQ(proxy_username), 4096, 0},
	{"proxyPassword", F_STR, RQ(proxy_password), 16384, 0},
	{"valuesFiles", F_STRV, RQ(values_files), 1024, 0},
	{"versionMetadata", F_STR, RQ(version_metadata), 64, 0},
	{"ignoreMissingValuesFiles", F_BOOL, RQ(ignore_missing_values_files), 0, 0},
	{"verify", F_BOOL, RQ(verify), 0, 0},
	{"cosignKeyPems", F_STRV, RQ(cosign_keys), 65536, 0},
	{"verifiedRevision", F_STR, RQ(verified_revision), 256, 0},
	{"insecureSkipVerify", F_BOOL, RQ(insecure_skip_verify), 0, 0},
	{"plainHttp", F_BOOL, RQ(plain_http), 0, 0},
	{"passCredentials", F_BOOL, RQ(pass_credentials), 0, 0},
	{"timeoutMs", F_INT, RQ(timeout_ms), 3600000, 0},
	{"maxIndex", F_INT, RQ(max_index), (size_t)1 << 30, 0},
	{"maxChart", F_INT, RQ(max_chart), (size_t)1 << 30, 0},
	{NULL, 0, 0, 0, 0},
};
#define RS(f) offsetof(proto_fetch_result, f)
static const ffield result_fields[] = {
	{"ok", F_BOOL, RS(ok), 0, 1},
	{"unchanged", F_BOOL, RS(unchanged), 0, 0},
	{"reason", F_STR, RS(reason), 64, 1},
	{"message", F_STR, RS(message), 4096, 1},
	{"digest", F_STR, RS(digest), 71, 0},
	{"revision", F_STR, RS(revision), 256, 0},
	{"chart", F_STR, RS(chart), 253, 0},
	{"observedValuesFiles", F_STRV, RS(observed_values_files), 1024, 0},
	{"size", F_INT, RS(size), (size_t)1 << 30, 0},
	{"verified", F_BOOL, RS(verified), 0, 0},
	{"sigManifest", F_STR, RS(sig_manifest), 24576, 0},
	{"sigPayload", F_STR, RS(sig_payload), 8192, 0},
	{"sigSignature", F_STR, RS(sig_signature), 4096, 0},
	{"sigKey", F_I32, RS(sig_key), 255, 0},
	{NULL, 0, 0, 0, 0},
};

static int encode(const ffield *fs, const void *s, bh_buf *out, bh_error *err)
{
	json_t *o = json_object();
	char *text;
	for (const ffield *f = fs; f->key && o; f++) {
		const char *p = (const char *)s + f->off;
		if (f->kind == F_STR && *(char *const *)p)
			json_object_set_new(o, f->key, json_string(*(char *const *)p));
		else if (f->kind == F_BOOL)
			json_object_set_new(o, f->key, json_boolean(*(const int *)p));
		else if (f->kind == F_STRV && ((const proto_strv *)p)->n) {
			json_t *a = json_array();
			for (size_t i = 0; i < ((const proto_strv *)p)->n; i++)
				json_array_append_new(a, json_string(((const proto_strv *)p)->v[i]));
			json_object_set_new(o, f->key, a);
		}
		else if (f->kind == F_I32)
			json_object_set_new(o, f->key, json_integer(*(const int *)p));
		else if (f->kind == F_INT)
			json_object_set_new(o, f->key, json_integer(*(const long long *)p));
	}
	text = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	if (!text)
		return bh_error_set(err, BH_ENOMEM, "encoding a fetch message: out of memory (or invalid UTF-8)");
	bh_buf_puts(out, text);
	free(text);
	return bh_buf_ok(out) ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory");
}

static int text_ok(const char *s, size_t n, int multiline)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == 0 || c == 0x7f || (c < 0x20 && !(multiline && (c == '\n' || c == '\r' || c == '\t'))))
			return 0;
	}
	return 1;
}

static int decode(const char *what, const ffield *fs, const unsigned char *p, size_t n, size_t max, void *s,
		  bh_error *err)
{
	json_error_t je;
	json_t *root, *v;
	const char *k;
	if (n > max)
		return bh_error_set(err, BH_ELIMIT, "%s: %zu bytes, limit %zu", what, n, max);
	if (!(root = jload_new((const char *)p, n, JSON_REJECT_DUPLICATES, &je)))
		return bh_error_set(err, BH_EPARSE, "%s: invalid JSON: %s", what, je.text);
	if (!json_is_object(root)) {
		json_decref(root);
		return bh_error_set(err, BH_EPROTO, "%s: not a JSON object", what);
	}
	json_object_foreach(root, k, v) {
		const ffield *f;
		for (f = fs; f->key && strcmp(f->key, k) != 0; f++)
			;
		if (!f->key) {
			int rc = bh_error_set(err, BH_EPROTO, "%s: unknown field %.64s", what, k);
			json_decref(root);
			return rc;
		}
	}
	for (const ffield *f = fs; f->key; f++) {
		char *dst = (char *)s + f->off;
		v = json_object_get(root, f->key);
		if (!v) {
			if (f->required) {
				json_decref(root);
				return bh_error_set(err, BH_EPROTO, "%s: missing field %s", what, f->key);
			}
			continue;
		}
		if (f->kind == F_STR) {
			size_t l = json_string_length(v);
			if (!json_is_string(v) || l > f->max ||
			    !text_ok(json_string_value(v), l, strstr(f->key, "Pem") || strstr(f->key, "Config") || !strcmp(f->key, "message"))) {
				json_decref(root);
				return bh_error_set(err, BH_EPROTO, "%s: field %s must be a string of at most %zu printable bytes",
						    what, f->key, f->max);
			}
			*(char **)dst = strdup(json_string_value(v));
		} else if (f->kind == F_STRV) {
			proto_strv *sv = (proto_strv *)dst;
			size_t i;
			json_t *it;
			if (!json_is_array(v) || json_array_size(v) > MAX_STRV ||
			    !(sv->v = calloc(json_array_size(v) + 1, sizeof *sv->v))) {
				json_decref(root);
				return bh_error_set(err, BH_EPROTO, "%s: field %s must be a list of at most %d strings", what,
						    f->key, MAX_STRV);
			}
			json_array_foreach(v, i, it) {
				if (!json_is_string(it) || json_string_length(it) > f->max ||
				    !text_ok(json_string_value(it), json_string_length(it),
					     strstr(f->key, "Config") || strstr(f->key, "Pem"))) {
					json_decref(root);
					return bh_error_set(err, BH_EPROTO, "%s: field %s must hold strings of at most %zu "
							    "printable bytes", what, f->key, f->max);
				}
				sv->v[sv->n++] = strdup(json_string_value(it));
			}
		} else if (f->kind == F_BOOL) {
			if (!json_is_boolean(v)) {
				json_decref(root);
				return bh_error_set(err, BH_EPROTO, "%s: field %s must be a boolean", what, f->key);
			}
			*(int *)dst = json_is_true(v);
		} else {
			if (!json_is_integer(v) || json_integer_value(v) < 0 || (size_t)json_integer_value(v) > f->max) {
				json_decref(root);
				return bh_error_set(err, BH_EPROTO, "%s: field %s must be an integer from 0 to %zu", what,
						    f->key, f->max);
			}
			if (f->kind == F_I32)
				*(int *)dst = (int)json_integer_value(v);
			else
				*(long long *)dst = json_integer_value(v);
		}
	}
	json_decref(root);
	return 0;
}

static void free_strs(const ffield *fs, void *s)
{
	for (const ffield *f = fs; f->key; f++)
		if (f->kind == F_STRV) {
			proto_strv *sv = (proto_strv *)((char *)s + f->off);
			for (size_t i = 0; i < sv->n; i++) {
				if (sv->v[i] && strstr(f->key, "Config"))
					explicit_bzero(sv->v[i], strlen(sv->v[i]));
				free(sv->v[i]);
			}
			free(sv->v);
			sv->v = NULL;
			sv->n = 0;
		} else if (f->kind == F_STR) {
			char **p = (char **)((char *)s + f->off);
			if (*p && (strstr(f->key, "Pem") || strstr(f->key, "Config")))
				explicit_bzero(*p, strlen(*p));
			free(*p);
			*p = NULL;
		}
}

int proto_fetch_request_encode(const proto_fetch_request *r, bh_buf *out, bh_error *err)
{
	return encode(request_fields, r, out, err);
}

int proto_fetch_request_decode(const unsigned char *p, size_t n, proto_fetch_request *r, bh_error *err)
{
	int rc;
	memset(r, 0, sizeof *r);
	if ((rc = decode("FETCH", request_fields, p, n, PROTO_MAX_FETCH_REQUEST, r, err)) < 0) {
		proto_fetch_request_free(r);
		return rc;
	}
	if (r->op < FETCH_OP_INDEX) {
		proto_fetch_request_free(r);
		return bh_error_set(err, BH_EPROTO, "FETCH: unknown op");
	}
	if (r->op == FETCH_OP_CHART && !r->chart) {
		proto_fetch_request_free(r);
		return bh_error_set(err, BH_EPROTO, "FETCH: a chart request needs a chart name");
	}
	if (r->op == FETCH_OP_ARTIFACT && !r->digest) {
		proto_fetch_request_free(r);
		return bh_error_set(err, BH_EPROTO, "FETCH: an artifact request needs its digest");
	}
	return 0;
}

void proto_fetch_request_free(proto_fetch_request *r)
{
	if (r->password)
		explicit_bzero(r->password, strlen(r->password));
	if (r->proxy_password)
		explicit_bzero(r->proxy_password, strlen(r->proxy_password));
	free_strs(request_fields, r);
}

int proto_fetch_result_encode(const proto_fetch_result *r, bh_buf *out, bh_error *err)
{
	return encode(result_fields, r, out, err);
}

static int is_sha256(const char *d)
{
	if (!d || strncmp(d, "sha256:", 7) != 0 || strlen(d) != 71)
		return 0;
	for (const char *c = d + 7; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
			return 0;
	return 1;
}

int proto_fetch_result_decode(const unsigned char *p, size_t n, proto_fetch_result *r, bh_error *err)
{
	int rc;
	memset(r, 0, sizeof *r);
	if ((rc = decode("FETCH_RESULT", result_fields, p, n, PROTO_MAX_FETCH_RESULT, r, err)) < 0)
		goto fail;
	for (const char *c = r->reason; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')) ||
		    r->reason[0] < 'A' || r->reason[0] > 'Z') {
			rc = bh_error_set(err, BH_EPROTO, "FETCH_RESULT: reason must be CamelCase");
			goto fail;
		}
	if (r->ok && !r->unchanged && !is_sha256(r->digest)) {
		rc = bh_error_set(err, BH_EPROTO, "FETCH_RESULT: digest must be sha256:<64 lowercase hex>");
		goto fail;
	}
	return 0;
fail:
	proto_fetch_result_free(r);
	return rc;
}

void proto_fetch_result_free(proto_fetch_result *r)
{
	free_strs(result_fields, r);
}
