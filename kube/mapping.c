/* kube/mapping.c — discovery and REST mapping (apiVersion + kind ->
 * resource and scope), cached per client and refreshed on a miss. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/client_priv.h"
#include "kube/internal.h"
#include "kube/kube.h"
#include "lib/buf.h"
#include "lib/vec.h"

static const char *intern(kube_client *c, const char *s)
{
	for (size_t i = 0; i < c->npool; i++)
		if (!strcmp(c->pool[i], s))
			return c->pool[i];
	char **p = realloc(c->pool, (c->npool + 1) * sizeof *p);
	if (!p)
		return NULL;
	c->pool = p;
	if (!(p[c->npool] = strdup(s)))
		return NULL;
	return p[c->npool++];
}

void kube_mapping_reset(kube_client *c)
{
	for (size_t i = 0; i < c->ngvs; i++)
		free(c->gvs[i].e);
	free(c->gvs);
	c->gvs = NULL;
	c->ngvs = 0;
	json_decref(c->disc);
	c->disc = NULL;
}

/* A discovery GET: from the preloaded snapshot when it has path (and not
 * fresh: fresh drops it and asks the server), else the server. */
static int disc_call(kube_client *c, const char *path, int fresh, json_t **out, bh_error *err)
{
	json_t *v = json_object_get(c->disc, path);
	if (v && !fresh) {
		*out = json_incref(v);
		return 0;
	}
	if (v) { /* the snapshot is the caller's: a shallow copy of our own first */
		json_t *own = json_copy(c->disc);
		json_decref(c->disc);
		c->disc = own;
		json_object_del(c->disc, path);
	}
	c->disc_missed = 1;
	return kube_call(c, "GET", path, NULL, NULL, 0, out, err);
}

int kube_discovery_missed(const kube_client *c)
{
	return c->disc_missed;
}

void kube_discovery_preload(kube_client *c, json_t *snapshot)
{
	json_decref(c->disc);
	c->disc = json_is_object(snapshot) ? json_incref(snapshot) : NULL; /* read only: see disc_call */
	c->disc_missed = 0;
}

/* The fields of a discovery answer the mapping and .Capabilities read. */
static json_t *cut_resources(const json_t *list)
{
	json_t *res = json_array(), *r;
	size_t i;
	json_array_foreach(json_object_get(list, "resources"), i, r) {
		const char *name = json_string_value(json_object_get(r, "name"));
		const char *kind = json_string_value(json_object_get(r, "kind"));
		if (name && kind)
			json_array_append_new(res, json_pack("{s:s,s:s,s:b}", "name", name, "kind", kind, "namespaced",
							     json_is_true(json_object_get(r, "namespaced"))));
	}
	return json_pack("{s:o}", "resources", res);
}

int kube_discovery_snapshot(kube_client *c, json_t **out, bh_error *err)
{
	json_t *snap = json_object(), *core = NULL, *groups = NULL, *ver = NULL, *gvs = json_array(), *g, *v;
	size_t i, j;
	int rc;
	if (!snap || !gvs) {
		json_decref(snap);
		json_decref(gvs);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	rc = kube_call(c, "GET", "/version", NULL, NULL, 0, &ver, err);
	if (!rc)
		rc = kube_call(c, "GET", "/api", NULL, NULL, 0, &core, err);
	if (!rc)
		rc = kube_call(c, "GET", "/apis", NULL, NULL, 0, &groups, err);
	if (!rc) {
		json_t *gl = json_array();
		json_object_set_new(snap, "/version", json_pack("{s:O?}", "gitVersion", json_object_get(ver, "gitVersion")));
		json_object_set_new(snap, "/api", json_pack("{s:O?}", "versions", json_object_get(core, "versions")));
		json_array_foreach(json_object_get(core, "versions"), i, v) if (json_is_string(v))
			json_array_append(gvs, v);
		json_array_foreach(json_object_get(groups, "groups"), i, g) {
			json_t *vl = json_array();
			json_array_foreach(json_object_get(g, "versions"), j, v) {
				json_t *gv = json_object_get(v, "groupVersion");
				if (!json_is_string(gv))
					continue;
				json_array_append_new(vl, json_pack("{s:O}", "groupVersion", gv));
				json_array_append(gvs, gv);
			}
			json_array_append_new(gl, json_pack("{s:o}", "versions", vl));
		}
		json_object_set_new(snap, "/apis", json_pack("{s:o}", "groups", gl));
	}
	json_array_foreach(gvs, i, v) {
		const char *gv = json_string_value(v);
		bh_buf path = BH_BUF_INIT;
		json_t *list = NULL;
		bh_error ignored;
		if (rc || strlen(gv) > 300 || strchr(gv, '?') || strstr(gv, ".."))
			continue;
		bh_buf_printf(&path, "%s/%s", strchr(gv, '/') ? "/apis" : "/api", gv);
		if (bh_buf_ok(&path) && kube_call(c, "GET", path.data, NULL, NULL, 0, &list, &ignored) == 0)
			json_object_set_new(snap, path.data, cut_resources(list));
		json_decref(list);
		bh_buf_free(&path);
	}
	json_decref(gvs);
	json_decref(ver);
	json_decref(core);
	json_decref(groups);
	if (rc) {
		json_decref(snap);
		return bh_error_prefix(err, "API discovery");
	}
	*out = snap;
	return 0;
}

static void split_gv(const char *api_version, char *group, size_t gsz, char *version, size_t vsz)
{
	const char *slash = strchr(api_version, '/');
	if (slash) {
		snprintf(group, gsz, "%.*s", (int)(slash - api_version), api_version);
		snprintf(version, vsz, "%s", slash + 1);
	} else {
		group[0] = 0;
		snprintf(version, vsz, "%s", api_version);
	}
}

/* Fetches and caches one group/version. Returns its cache slot. */
static int discover(kube_client *c, const char *api_version, int fresh, struct kube_mapping_gv **out, bh_error *err)
{
	char group[256], version[64];
	split_gv(api_version, group, sizeof group, version, sizeof version);
	bh_buf path = BH_BUF_INIT;
	if (group[0])
		bh_buf_printf(&path, "/apis/%s/%s", group, version);
	else
		bh_buf_printf(&path, "/api/%s", version);
	if (!bh_buf_ok(&path))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	json_t *list = NULL;
	int rc = disc_call(c, path.data, fresh, &list, err);
	bh_buf_free(&path);
	if (rc) {
		if (rc == BH_ENOTFOUND)
			bh_error_set(err, BH_ENOTFOUND, "the server does not serve apiVersion \"%s\"", api_version);
		return rc;
	}
	json_t *res = json_object_get(list, "resources");
	struct kube_mapping_gv gv = {0};
	gv.group_version = intern(c, api_version);
	size_t i;
	json_t *r;
	gv.e = calloc(json_array_size(res) + 1, sizeof *gv.e);
	if (!gv.group_version || !gv.e) {
		free(gv.e);
		json_decref(list);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	const char *g = intern(c, group), *v = intern(c, version);
	json_array_foreach(res, i, r) {
		const char *name = json_string_value(json_object_get(r, "name"));
		const char *kind = json_string_value(json_object_get(r, "kind"));
		if (!name || !kind || strchr(name, '/'))
			continue; /* subresources */
		kube_resource *e = &gv.e[gv.n];
		e->group = g;
		e->version = v;
		e->resource = intern(c, name);
		e->kind = intern(c, kind);
		e->namespaced = json_is_true(json_object_get(r, "namespaced"));
		if (!e->group || !e->version || !e->resource || !e->kind) {
			free(gv.e);
			json_decref(list);
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		}
		gv.n++;
	}
	json_decref(list);
	for (i = 0; i < c->ngvs; i++)
		if (!strcmp(c->gvs[i].group_version, api_version)) {
			free(c->gvs[i].e);
			c->gvs[i] = gv;
			*out = &c->gvs[i];
			return 0;
		}
	struct kube_mapping_gv *n = realloc(c->gvs, (c->ngvs + 1) * sizeof *n);
	if (!n) {
		free(gv.e);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	c->gvs = n;
	c->gvs[c->ngvs] = gv;
	*out = &c->gvs[c->ngvs++];
	return 0;
}

static const kube_resource *find_kind(const struct kube_mapping_gv *gv, const char *kind)
{
	for (size_t i = 0; i < gv->n; i++)
		if (!strcmp(gv->e[i].kind, kind))
			return &gv->e[i];
	return NULL;
}

int kube_mapping_get(kube_client *c, const char *api_version, const char *kind, kube_resource *out,
                     bh_error *err)
{
	if (!api_version || !*api_version || !kind || !*kind)
		return bh_error_set(err, BH_EINVAL, "REST mapping: apiVersion and kind are required");
	if (strlen(api_version) > 300 || strchr(api_version, '?') || strstr(api_version, ".."))
		return bh_error_set(err, BH_EINVAL, "REST mapping: invalid apiVersion \"%s\"", api_version);
	struct kube_mapping_gv *gv = NULL;
	for (size_t i = 0; i < c->ngvs; i++)
		if (!strcmp(c->gvs[i].group_version, api_version))
			gv = &c->gvs[i];
	const kube_resource *r = gv ? find_kind(gv, kind) : NULL;
	if (!r) {
		/* unknown: (re)discover once — a CRD may have been installed just now */
		int missed = c->disc_missed, rc;
		c->disc_missed = 0;
		rc = discover(c, api_version, 0, &gv, err);
		if (!rc && !(r = find_kind(gv, kind)) && !c->disc_missed) /* the snapshot is older than the kind */
			rc = discover(c, api_version, 1, &gv, err);
		c->disc_missed |= missed;
		if (rc && rc != BH_ENOTFOUND)
			return bh_error_prefix(err, "no mapping for %s %s", api_version, kind);
		r = rc ? NULL : find_kind(gv, kind);
	}
	/* the group/version not served, or without the kind: the RESTMapper's
	 * NoKindMatchError, as Helm's and kubectl's messages quote it */
	if (!r)
		return bh_error_set(err, BH_ENOTFOUND, "no matches for kind \"%s\" in version \"%s\"", kind, api_version);
	*out = *r;
	return 0;
}

int kube_mapping_for_object(kube_client *c, const json_t *obj, kube_resource *out, bh_error *err)
{
	const char *av = json_string_value(json_object_get(obj, "apiVersion"));
	const char *kind = json_string_value(json_object_get(obj, "kind"));
	if (!av || !kind)
		return bh_error_set(err, BH_EINVAL, "object has no apiVersion or kind");
	return kube_mapping_get(c, av, kind, out, err);
}

char *kube_path_new(const kube_resource *r, const char *ns, const char *name, const char *subresource)
{
	bh_buf b = BH_BUF_INIT;
	if (r->group && r->group[0])
		bh_buf_printf(&b, "/apis/%s/%s", r->group, r->version);
	else
		bh_buf_printf(&b, "/api/%s", r->version);
	if (r->namespaced && ns && *ns) {
		bh_buf_puts(&b, "/namespaces/");
		kube_query_escape(&b, ns);
	}
	bh_buf_printf(&b, "/%s", r->resource);
	if (name && *name) {
		bh_buf_putc(&b, '/');
		kube_query_escape(&b, name);
		if (subresource && *subresource)
			bh_buf_printf(&b, "/%s", subresource);
	}
	return bh_buf_ok(&b) ? bh_buf_detach(&b) : NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A growing list of strings (the caller frees each and the list). */
struct strlist {
	char **s;
	size_t n, cap;
	int oom;
};

/* Appends gv (n bytes) as a string, or "gv/kind" when kind is not NULL. */
static void strlist_add(struct strlist *l, const char *gv, size_t n, const char *kind)
{
	size_t nk = kind ? strlen(kind) + 1 : 0;
	char *t;
	if (l->oom)
		return;
	if (VEC_RESERVE(l->s, l->cap, l->n + 1, 128) < 0) {
		l->oom = 1;
		return;
	}
	if (!(t = malloc(n + nk + 1))) {
		l->oom = 1;
		return;
	}
	memcpy(t, gv, n);
	if (kind) {
		t[n] = '/';
		memcpy(t + n + 1, kind, nk - 1);
	}
	t[n + nk] = '\0';
	l->s[l->n++] = t;
}

int kube_discovery_api_versions(kube_client *c, json_t **out, bh_error *err)
{
	json_t *core = NULL, *groups = NULL;
	int rc = disc_call(c, "/api", 0, &core, err);
	if (!rc)
		rc = disc_call(c, "/apis", 0, &groups, err);
	if (rc) {
		json_decref(core);
		return bh_error_prefix(err, "could not get apiVersions from Kubernetes");
	}
	/* the group versions, then each one's kinds as "gv/Kind" */
	struct strlist l = {0};
	size_t i, j, ngv;
	json_t *v, *g;
	json_array_foreach(json_object_get(core, "versions"), i, v) if (json_is_string(v))
		strlist_add(&l, json_string_value(v), strlen(json_string_value(v)), NULL);
	json_array_foreach(json_object_get(groups, "groups"), i, g) {
		json_array_foreach(json_object_get(g, "versions"), j, v) {
			json_t *gv = json_object_get(v, "groupVersion");
			if (json_is_string(gv))
				strlist_add(&l, json_string_value(gv), strlen(json_string_value(gv)), NULL);
		}
	}
	ngv = l.n;
	for (i = 0; i < ngv && !l.oom; i++) {
		char path[320], *gv = l.s[i];
		size_t gl = strlen(gv);
		json_t *list = NULL, *r;
		bh_error ignored;
		if (gl > 300 || strchr(gv, '?') || strstr(gv, ".."))
			continue;
		snprintf(path, sizeof path, "%s/%s", strchr(gv, '/') ? "/apis" : "/api", gv);
		if (disc_call(c, path, 0, &list, &ignored) == 0) {
			json_array_foreach(json_object_get(list, "resources"), j, r) {
				const char *kind = json_string_value(json_object_get(r, "kind"));
				if (kind && *kind)
					strlist_add(&l, gv, gl, kind);
			}
		}
		json_decref(list);
	}
	json_decref(core);
	json_decref(groups);
	json_t *res = l.oom ? NULL : json_array();
	if (res) {
		qsort(l.s, l.n, sizeof *l.s, cmp_str);
		for (i = 0; i < l.n; i++)
			if ((i == 0 || strcmp(l.s[i], l.s[i - 1])) && json_array_append_new(res, json_string(l.s[i])))
				break;
		if (i < l.n) {
			json_decref(res);
			res = NULL;
		}
	}
	for (i = 0; i < l.n; i++)
		free(l.s[i]);
	free(l.s);
	if (!res)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	*out = res;
	return 0;
}

int kube_server_version(kube_client *c, char *buf, size_t n, bh_error *err)
{
	json_t *v = NULL;
	int rc = disc_call(c, "/version", 0, &v, err);
	if (rc)
		return rc;
	const char *gv = json_string_value(json_object_get(v, "gitVersion"));
	if (!gv || !*gv)
		rc = bh_error_set(err, BH_EPROTO, "GET /version: no gitVersion in the answer");
	else if (strlen(gv) >= n)
		rc = bh_error_set(err, BH_ELIMIT, "GET /version: gitVersion too long");
	else
		snprintf(buf, n, "%s", gv);
	json_decref(v);
	return rc;
}
