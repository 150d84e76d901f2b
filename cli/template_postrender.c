/* cli/template_postrender.c — `bulkhead template --post-renderer-config
 * FILE`: the post-render chain of the HelmRelease in FILE (its
 * .spec.postRenderers, .spec.commonMetadata and Flux's origin labels, see
 * helm/postrender.h) for the rendered chart, as Flux would apply it. FILE is
 * YAML; its first document of kind HelmRelease is used (metadata.namespace
 * defaults to the --namespace of the command). */
#include "cli/template_postrender.h"

#include <stdio.h>
#include <string.h>

#include "helm/kustomize.h"
#include "lib/buf.h"

int template_postrender_load(const char *path, const char *ns, postrender **out, bh_error *err)
{
	FILE *f = fopen(path, "rb");
	bh_buf b = BH_BUF_INIT;
	char chunk[8192];
	size_t n;
	json_t *objs = NULL, *hr = NULL, *o;
	size_t i;
	int rc;
	*out = NULL;
	if (!f)
		return bh_error_set(err, BH_EIO, "open %s: no such file or not readable", path);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len < ((size_t)16 << 20))
		bh_buf_put(&b, chunk, n);
	fclose(f);
	if (!bh_buf_ok(&b))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	rc = kz_objects_parse(bh_buf_str(&b), &objs, err);
	bh_buf_free(&b);
	if (rc < 0)
		return bh_error_prefix(err, "%s", path);
	json_array_foreach(objs, i, o) {
		const char *kind = json_string_value(json_object_get(o, "kind"));
		if (kind && !strcmp(kind, "HelmRelease")) {
			hr = o;
			break;
		}
	}
	if (!hr) {
		json_decref(objs);
		return bh_error_set(err, BH_EINVAL, "%s: no HelmRelease in the file", path);
	}
	{
		const json_t *md = json_object_get(hr, "metadata");
		const char *name = json_string_value(json_object_get(md, "name"));
		const char *hns = json_string_value(json_object_get(md, "namespace"));
		rc = postrender_new(json_object_get(hr, "spec"), name ? name : "", hns && *hns ? hns : ns, out, err);
	}
	json_decref(objs);
	if (rc < 0)
		return bh_error_prefix(err, "%s", path);
	return 0;
}
