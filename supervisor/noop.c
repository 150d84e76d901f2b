/* supervisor/noop.c — see noop.h. */
#include "supervisor/noop.h"

#include <stdio.h>
#include <string.h>

static const json_t *at(const json_t *o, const char *a, const char *b)
{
	o = json_object_get(o, a);
	return b ? json_object_get(o, b) : o;
}

int noop_eligible(const json_t *hr)
{
	const json_t *spec = json_object_get(hr, "spec"), *ann = at(hr, "metadata", "annotations");
	const char *drift = json_string_value(at(json_object_get(spec, "driftDetection"), "mode", NULL));
	if (json_object_get(json_object_get(hr, "metadata"), "deletionTimestamp") ||
	    json_is_true(json_object_get(spec, "suspend")))
		return 0;
	if (json_array_size(json_object_get(spec, "valuesFrom")) || json_object_get(spec, "kubeConfig"))
		return 0; /* read from other objects: their changes are not seen here */
	if (drift && strcmp(drift, "disabled") != 0)
		return 0; /* the cluster's objects are compared by the worker */
	if (json_is_true(at(spec, "test", "enable")))
		return 0;
	if (json_object_get(ann, "reconcile.fluxcd.io/forceAt") || json_object_get(ann, "reconcile.fluxcd.io/resetAt") ||
	    json_object_get(ann, "bulkhead.dev/test-hook"))
		return 0; /* force, reset (as status.lastHandled*At tell) and test hooks are the worker's */
	return 1;
}

int noop_is_storage_list(const char *path, const char *storage_ns)
{
	char want[320];
	size_t n;
	if (!path || !storage_ns || snprintf(want, sizeof want, "/api/v1/namespaces/%s/secrets?", storage_ns) >= (int)sizeof want)
		return 0;
	n = strlen(want);
	return !strncmp(path, want, n) && strstr(path + n, "labelSelector=") != NULL;
}

/* FNV-1a, 64 bits */
static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

int noop_storage_fp(const char *body, size_t len, const char *release, uint64_t *fp)
{
	json_t *list = json_loadb(body, len, 0, NULL), *it;
	char prefix[400];
	uint64_t sum = 0, count = 0;
	size_t i, pn;
	const char *cont;
	int rc = -1;
	snprintf(prefix, sizeof prefix, "sh.helm.release.v1.%s.v", release);
	pn = strlen(prefix);
	cont = json_string_value(at(list, "metadata", "continue"));
	if (!json_is_array(json_object_get(list, "items")) || (cont && *cont))
		goto out; /* not a list, or one page of several */
	json_array_foreach(json_object_get(list, "items"), i, it) {
		const char *name = json_string_value(at(it, "metadata", "name"));
		const char *rv = json_string_value(at(it, "metadata", "resourceVersion"));
		if (!name || !rv)
			goto out;
		if (strncmp(name, prefix, pn) != 0)
			continue;
		/* order-independent: the sum of each Secret's hash */
		sum += fnv(fnv(14695981039346656037ULL, name, strlen(name) + 1), rv, strlen(rv));
		count++;
	}
	*fp = fnv(sum, (const char *)&count, sizeof count);
	rc = 0;
out:
	json_decref(list);
	return rc;
}
