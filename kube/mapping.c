/* kube/mapping.c — discovery and REST mapping (apiVersion + kind ->
 * resource and scope), cached per client and refreshed on a miss. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/client_priv.h"
#include "kube/internal.h"
#include "kube/kube.h"
#include "lib/buf.h"

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
static int discover(kube_client *c, const char *api_version, struct kube_mapping_gv **out, bh_error *err)
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
	int rc = kube_call(c, "GET", path.data, NULL, NULL, 0, &list, err);
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
		int rc = discover(c, api_version, &gv, err);
		if (rc)
			return bh_error_prefix(err, "no mapping for %s %s", api_version, kind);
		r = find_kind(gv, kind);
	}
	if (!r)
		return bh_error_set(err, BH_ENOTFOUND, "no mapping for %s %s: the server has no kind \"%s\" in %s",
		                    api_version, kind, kind, api_version);
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
