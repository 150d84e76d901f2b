/* supervisor/hccache.c — see hccache.h. */
#include "supervisor/hccache.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static json_t *charts; /* "ns/name" -> object */

static int key_of(const json_t *o, char *key, size_t n)
{
	const json_t *md = json_object_get(o, "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));
	if (!ns || !name)
		return -1;
	return snprintf(key, n, "%s/%s", ns, name) < (int)n ? 0 : -1;
}

static void put(const json_t *o)
{
	char key[600];
	if (key_of(o, key, sizeof key) == 0)
		json_object_set_new(charts, key, json_deep_copy(o));
}

void hccache_event(kube_watch_type t, const json_t *obj)
{
	char key[600];
	size_t i;
	json_t *it;
	pthread_mutex_lock(&mu);
	if (!charts)
		charts = json_object();
	switch (t) {
	case KUBE_WATCH_ADDED:
	case KUBE_WATCH_MODIFIED:
		put(obj);
		break;
	case KUBE_WATCH_DELETED:
		if (key_of(obj, key, sizeof key) == 0)
			json_object_del(charts, key);
		break;
	case KUBE_WATCH_RELIST:
		json_object_clear(charts);
		json_array_foreach(json_object_get(obj, "items"), i, it) put(it);
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&mu);
}

json_t *hccache_get_new(const char *ns, const char *name)
{
	char key[600];
	json_t *o = NULL;
	if (snprintf(key, sizeof key, "%s/%s", ns, name) >= (int)sizeof key)
		return NULL;
	pthread_mutex_lock(&mu);
	if (charts) /* a stored object never changes (put replaces it): shared, not copied */
		o = json_incref(json_object_get(charts, key));
	pthread_mutex_unlock(&mu);
	return o;
}

int hccache_digest(const char *ns, const char *name, char *out, size_t n)
{
	char key[600];
	const char *d = NULL;
	int rc = -1;
	if (snprintf(key, sizeof key, "%s/%s", ns, name) >= (int)sizeof key)
		return -1;
	pthread_mutex_lock(&mu);
	if (charts)
		d = json_string_value(json_object_get(
			json_object_get(json_object_get(json_object_get(charts, key), "status"), "artifact"), "digest"));
	if (d && *d && strlen(d) < n) {
		memcpy(out, d, strlen(d) + 1);
		rc = 0;
	}
	pthread_mutex_unlock(&mu);
	return rc;
}
