/* worker/snapshot.c — see snapshot.h. */
#include "worker/snapshot.h"

#include <string.h>

#include "lib/buf.h"
#include "lib/gojson.h"
#include "lib/yaml.h"
#include "tmpl/sha256.h"

/* tmpl_sha256, not OpenSSL's EVP: the worker's first EVP digest sets up
 * the default provider, about 5 M instructions for a few KiB hashed */
void snapshot_sha256(const void *p, size_t n, char out[SNAPSHOT_DIGEST_MAX])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char d[32];
	tmpl_sha256(p, n, d);
	memcpy(out, "sha256:", 7);
	for (int i = 0; i < 32; i++) {
		out[7 + 2 * i] = hex[d[i] >> 4];
		out[8 + 2 * i] = hex[d[i] & 15];
	}
	out[7 + 64] = '\0';
}

int snapshot_config_digest(const json_t *values, char out[SNAPSHOT_DIGEST_MAX], bh_error *err)
{
	bh_buf b = BH_BUF_INIT;
	int rc;
	if (!values || json_is_null(values) || (json_is_object(values) && json_object_size(values) == 0)) {
		snapshot_sha256("", 0, out);
		return 0;
	}
	if ((rc = yaml_emit(values, &b, err)) < 0) {
		bh_buf_free(&b);
		return bh_error_prefix(err, "values digest");
	}
	snapshot_sha256(b.data ? b.data : "", b.len, out);
	bh_buf_free(&b);
	return 0;
}

static const char *str_or(const json_t *v)
{
	return json_is_string(v) ? json_string_value(v) : "";
}

static int is_test_hook(const json_t *h)
{
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(h, "events"), i, e) {
		const char *s = json_string_value(e);
		if (s && (!strcmp(s, "test") || !strcmp(s, "test-success")))
			return 1;
	}
	return 0;
}

int snapshot_release_digest(const json_t *rel, const char *oci_digest, char out[SNAPSHOT_DIGEST_MAX], bh_error *err)
{
	json_t *obs = json_object(), *hooks = json_array(), *h;
	bh_buf b = BH_BUF_INIT;
	size_t i;
	int rc;
	json_array_foreach(json_object_get(rel, "hooks"), i, h) if (!is_test_hook(h)) json_array_append(hooks, h);
	json_object_set(obs, "name", json_object_get(rel, "name"));
	json_object_set(obs, "version", json_object_get(rel, "version"));
	json_object_set(obs, "info", json_object_get(rel, "info"));
	json_object_set(obs, "chartMetadata", json_object_get(json_object_get(rel, "chart"), "metadata"));
	json_object_set(obs, "config", json_object_get(rel, "config"));
	json_object_set(obs, "manifest", json_object_get(rel, "manifest"));
	json_object_set_new(obs, "hooks", hooks);
	json_object_set(obs, "namespace", json_object_get(rel, "namespace"));
	if (oci_digest && *oci_digest)
		json_object_set_new(obs, "ociDigest", json_string(oci_digest));
	rc = gojson_encode(obs, 0, &b, err);
	json_decref(obs);
	if (rc == 0) {
		bh_buf_putc(&b, '\n');
		snapshot_sha256(b.data, b.len, out);
	}
	bh_buf_free(&b);
	return rc < 0 ? bh_error_prefix(err, "release digest") : 0;
}

/* Helm's RFC3339Nano time as a metav1.Time (whole seconds). */
static json_t *meta_time(const json_t *v)
{
	const char *s = json_string_value(v);
	char t[64];
	const char *dot;
	if (!s || !*s || strlen(s) >= sizeof t)
		return NULL;
	if ((dot = strchr(s, '.')) && dot - s == 19 && s[strlen(s) - 1] == 'Z') {
		memcpy(t, s, 19);
		strcpy(t + 19, "Z");
		return json_string(t);
	}
	return json_string(s);
}

static void set_time(json_t *o, const char *key, const json_t *v)
{
	json_t *t = meta_time(v);
	if (t)
		json_object_set_new(o, key, t);
}

json_t *snapshot_new(const json_t *rel, const char *action, int with_tests, const char *oci_digest, bh_error *err)
{
	char d[SNAPSHOT_DIGEST_MAX], cd[SNAPSHOT_DIGEST_MAX];
	json_t *info = json_object_get(rel, "info"), *md = json_object_get(json_object_get(rel, "chart"), "metadata");
	json_t *s, *av;
	if (snapshot_release_digest(rel, oci_digest, d, err) < 0 || snapshot_config_digest(json_object_get(rel, "config"), cd, err) < 0)
		return NULL;
	s = json_pack("{s:s,s:s,s:O,s:O,s:O,s:O}", "apiVersion", "v2", "digest", d, "name", json_object_get(rel, "name"),
		      "namespace", json_object_get(rel, "namespace"), "version", json_object_get(rel, "version"), "status",
		      json_object_get(info, "status"));
	if (!s) {
		bh_error_set(err, BH_EINVAL, "release record lacks name, namespace, version or status");
		return NULL;
	}
	if (action)
		json_object_set_new(s, "action", json_string(action));
	json_object_set_new(s, "chartName", json_string(str_or(json_object_get(md, "name"))));
	json_object_set_new(s, "chartVersion", json_string(str_or(json_object_get(md, "version"))));
	if ((av = json_object_get(md, "appVersion")) && json_is_string(av) && json_string_length(av))
		json_object_set(s, "appVersion", av);
	json_object_set_new(s, "configDigest", json_string(cd));
	set_time(s, "firstDeployed", json_object_get(info, "first_deployed"));
	set_time(s, "lastDeployed", json_object_get(info, "last_deployed"));
	set_time(s, "deleted", json_object_get(info, "deleted"));
	if (oci_digest && *oci_digest)
		json_object_set_new(s, "ociDigest", json_string(oci_digest));
	if (with_tests) {
		json_t *th = json_object(), *h;
		size_t i;
		json_array_foreach(json_object_get(rel, "hooks"), i, h) {
			json_t *lr = json_object_get(h, "last_run"), *e = json_object();
			const char *name = json_string_value(json_object_get(h, "name"));
			const char *ph = json_string_value(json_object_get(lr, "phase"));
			if (!is_test_hook(h) || !name || !ph || !*ph) {
				json_decref(e);
				continue;
			}
			set_time(e, "lastStarted", json_object_get(lr, "started_at"));
			set_time(e, "lastCompleted", json_object_get(lr, "completed_at"));
			json_object_set_new(e, "phase", json_string(ph));
			json_object_set_new(th, name, e);
		}
		json_object_set_new(s, "testHooks", th);
	}
	return s;
}

int snapshot_tested(const json_t *snap)
{
	return json_is_object(json_object_get(snap, "testHooks"));
}

int snapshot_test_failed(const json_t *snap)
{
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)json_object_get(snap, "testHooks"), k, v) {
		const char *ph = json_string_value(json_object_get(v, "phase"));
		if (ph && !strcmp(ph, "Failed"))
			return 1;
	}
	return 0;
}
