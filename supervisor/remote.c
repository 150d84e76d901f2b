/* supervisor/remote.c — see remote.h. */
#include "supervisor/remote.h"

#include <stdio.h>
#include <string.h>

#include "helm/release.h"
#include "lib/buf.h"
#include "supervisor/acl.h"

static const kube_resource secrets = {"", "v1", "secrets", "Secret", 1};

int remote_from_secret(const json_t *secret, const char *key, kube_config **cfg, bh_error *err)
{
	const json_t *data = json_object_get(secret, "data"), *v = NULL;
	static const char *const keys[] = {"value", "value.yaml"};
	kube_config_opts o = {1, 0, NULL, NULL};
	bh_buf text = BH_BUF_INIT;
	bh_error e;
	int rc;
	*cfg = NULL;
	if (key && *key)
		v = json_object_get(data, key);
	for (size_t i = 0; !(key && *key) && !v && i < 2; i++)
		v = json_object_get(data, keys[i]);
	if (!json_is_string(v))
		return key && *key ? bh_error_set(err, BH_ENOTFOUND, "has no key '%s'", key)
				   : bh_error_set(err, BH_ENOTFOUND, "has neither a 'value' nor a 'value.yaml' key");
	if ((rc = release_base64_decode(json_string_value(v), json_string_length(v), &text, &e)) < 0) {
		bh_buf_free(&text);
		return bh_error_set(err, rc, "holds no base64 data: %s", e.msg);
	}
	*cfg = kube_config_parse(text.data ? text.data : "", text.len, &o, err);
	bh_buf_free(&text);
	return *cfg ? 0 : (err && err->code ? err->code : BH_EINVAL);
}

int remote_identity(const json_t *hr, char *buf, size_t n, bh_error *err)
{
	const char *sa = json_string_value(json_object_get(json_object_get(hr, "spec"), "serviceAccountName"));
	const char *ns = json_string_value(json_object_get(json_object_get(hr, "metadata"), "namespace"));
	int rc;
	*buf = '\0';
	if (!sa || !*sa)
		return 0;
	if ((rc = acl_check_sa_name(sa, ".spec.serviceAccountName", err)) < 0)
		return rc;
	if ((size_t)snprintf(buf, n, "system:serviceaccount:%s:%s", ns ? ns : "", sa) >= n)
		return bh_error_set(err, BH_EINVAL, ".spec.serviceAccountName is too long");
	return 0;
}

int remote_load(kube_client *kc, const json_t *hr, kube_config **cfg, char *cluster, size_t n, bh_error *err)
{
	const json_t *ref = json_object_get(json_object_get(json_object_get(hr, "spec"), "kubeConfig"), "secretRef");
	const char *ns = json_string_value(json_object_get(json_object_get(hr, "metadata"), "namespace"));
	const char *name = json_string_value(json_object_get(ref, "name"));
	json_t *secret = NULL;
	int rc;
	*cfg = NULL;
	if (!name)
		return 0;
	if ((rc = kube_get(kc, &secrets, ns, name, NULL, &secret, err)) < 0)
		return bh_error_prefix(err, "could not get KubeConfig Secret '%s/%s'", ns, name);
	rc = remote_from_secret(secret, json_string_value(json_object_get(ref, "key")), cfg, err);
	json_decref(secret);
	if (rc < 0)
		return bh_error_prefix(err, "KubeConfig Secret '%s/%s'", ns, name);
	snprintf(cluster, n, "%s (Secret %s/%s)", (*cfg)->server, ns, name);
	return 0;
}
