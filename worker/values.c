/* worker/values.c — see values.h. */
#include "worker/values.h"

#include <stdio.h>
#include <string.h>

#include "helm/release.h"
#include "helm/strvals.h"
#include "helm/values.h"
#include "lib/buf.h"

#define MAX_REFS 64

static const kube_resource configmaps = {"", "v1", "configmaps", "ConfigMap", 1};
static const kube_resource secrets = {"", "v1", "secrets", "Secret", 1};

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

/* One reference's text: *data (new buffer) or *skip for an optional miss. */
static int ref_data(kube_client *kc, const char *ns, const json_t *ref, bh_buf *data, int *skip, bh_error *err)
{
	const char *kind = str(ref, "kind"), *name = str(ref, "name");
	const char *key = *str(ref, "valuesKey") ? str(ref, "valuesKey") : "values.yaml";
	int optional = json_is_true(json_object_get(ref, "optional")), rc;
	const kube_resource *r;
	json_t *obj = NULL, *v;
	bh_error e;
	*skip = 0;
	if (!strcmp(kind, "ConfigMap"))
		r = &configmaps;
	else if (!strcmp(kind, "Secret"))
		r = &secrets;
	else
		return bh_error_set(err, BH_EINVAL, "unsupported values reference kind '%s' of '%s'", kind, name);
	if (!*name)
		return bh_error_set(err, BH_EINVAL, "a values reference of kind %s has no name", kind);
	if ((rc = kube_get(kc, r, ns, name, NULL, &obj, &e)) < 0) {
		if (rc == BH_ENOTFOUND && optional) {
			*skip = 1;
			return 0;
		}
		return bh_error_set(err, rc, "could not resolve %s chart values reference '%s/%s' with key '%s': %s", kind, ns,
				    name, key, rc == BH_ENOTFOUND ? "not found" : e.msg);
	}
	v = json_object_get(json_object_get(obj, "data"), key);
	if (!json_is_string(v)) {
		json_decref(obj);
		if (optional) {
			*skip = 1;
			return 0;
		}
		return bh_error_set(err, BH_ENOTFOUND, "could not resolve %s chart values reference '%s/%s' with key '%s': key not found",
				    kind, ns, name, key);
	}
	if (r == &secrets)
		rc = release_base64_decode(json_string_value(v), json_string_length(v), data, &e);
	else {
		bh_buf_put(data, json_string_value(v), json_string_length(v));
		rc = bh_buf_ok(data) ? 0 : bh_error_set(&e, BH_ENOMEM, "out of memory");
	}
	json_decref(obj);
	if (rc < 0)
		return bh_error_set(err, rc, "could not read %s chart values reference '%s/%s' with key '%s': %s", kind, ns, name,
				    key, e.msg);
	return 0;
}

/* A valuesFrom entry with a targetPath, set once every other value is merged. */
typedef struct path_set {
	const json_t *ref;
	bh_buf data;
} path_set;

/* fluxcd/pkg chartutil ReplacePathValue: Helm's --set syntax at the target
 * path, typed as --set types it; a value in single or double quotes is
 * stripped of its quotes (every leading and trailing one, as strings.Trim)
 * and kept a string, as --set-string. */
static int replace_path_value(json_t *result, const path_set *p, bh_error *err)
{
	const char *tp = str(p->ref, "targetPath"), *v = p->data.data ? p->data.data : "";
	size_t n = p->data.len;
	int quoted = n >= 1 && ((v[0] == '\'' && v[n - 1] == '\'') || (v[0] == '"' && v[n - 1] == '"'));
	bh_buf set = BH_BUF_INIT;
	int rc;
	if (quoted) {
		while (n && (*v == '\'' || *v == '"'))
			v++, n--;
		while (n && (v[n - 1] == '\'' || v[n - 1] == '"'))
			n--;
	}
	bh_buf_printf(&set, "%s=", tp);
	bh_buf_put(&set, v, n);
	rc = strvals_parse_into(bh_buf_str(&set), result, quoted ? STRVALS_STRING : STRVALS_TYPED, NULL, NULL, err);
	bh_buf_free(&set);
	if (rc < 0)
		return bh_error_prefix(err, "unable to replace values at target path '%s' of %s '%s'", tp, str(p->ref, "kind"),
				       str(p->ref, "name"));
	return 0;
}

static void sets_free(path_set *sets, size_t n)
{
	for (size_t i = 0; i < n; i++)
		bh_buf_free(&sets[i].data);
}

/* As the v2 document orders them: references in order, the later merged
 * over the earlier; then .spec.values over those; then every targetPath
 * value, which "will overwrite everything before, including inline values". */
int worker_values_compose(kube_client *kc, const char *ns, const json_t *spec, json_t **out, bh_error *err)
{
	const json_t *refs = json_object_get(spec, "valuesFrom"), *vals = json_object_get(spec, "values");
	json_t *result = json_object(), *ref, *m;
	path_set sets[MAX_REFS];
	size_t i, nsets = 0;
	int rc = 0;
	*out = NULL;
	if (refs && !json_is_array(refs)) {
		json_decref(result);
		return bh_error_set(err, BH_EINVAL, ".spec.valuesFrom must be a list");
	}
	if (json_array_size(refs) > MAX_REFS) {
		json_decref(result);
		return bh_error_set(err, BH_ELIMIT, ".spec.valuesFrom has %zu references, limit %d", json_array_size(refs), MAX_REFS);
	}
	json_array_foreach(refs, i, ref) {
		bh_buf data = BH_BUF_INIT;
		json_t *v = NULL;
		int skip;
		if ((rc = ref_data(kc, ns, ref, &data, &skip, err)) < 0 || skip) {
			bh_buf_free(&data);
			if (rc < 0)
				goto fail;
			continue;
		}
		if (*str(ref, "targetPath")) {
			sets[nsets].ref = ref;
			sets[nsets++].data = data;
			continue;
		}
		rc = values_load_yaml(data.data ? data.data : "", data.len, &v, err);
		bh_buf_free(&data);
		if (rc < 0) {
			bh_error_prefix(err, "unable to read values from %s '%s' key '%s'", str(ref, "kind"), str(ref, "name"),
					*str(ref, "valuesKey") ? str(ref, "valuesKey") : "values.yaml");
			goto fail;
		}
		m = values_merge_maps(result, v);
		json_decref(v);
		json_decref(result);
		if (!(result = m)) {
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
			goto fail;
		}
	}
	if (json_is_object(vals)) {
		m = values_merge_maps(result, vals);
		json_decref(result);
		if (!(result = m)) {
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
			goto fail;
		}
	}
	for (i = 0; i < nsets; i++)
		if ((rc = replace_path_value(result, &sets[i], err)) < 0)
			goto fail;
	sets_free(sets, nsets);
	*out = result;
	return 0;
fail:
	sets_free(sets, nsets);
	json_decref(result);
	return rc;
}
