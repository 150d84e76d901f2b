/* helm/postrender.c — see postrender.h. */
#include "helm/postrender.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helm/kustomize.h"
#include "lib/buf.h"

#define FILENAME_ANNOTATION "postrenderer.helm.sh/postrender-filename"

struct postrender {
	kustomization **k;
	size_t nk;
	json_t *labels, *annotations; /* commonMetadata (objects of strings) or NULL */
	json_t *origin;               /* the origin labels */
};

void postrender_free(postrender *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nk; i++)
		kustomization_free(p->k[i]);
	free(p->k);
	json_decref(p->labels);
	json_decref(p->annotations);
	json_decref(p->origin);
	free(p);
}

static int string_map(const json_t *m, const char *what, json_t **out, bh_error *err)
{
	const char *k;
	json_t *v;
	*out = NULL;
	if (!m || json_is_null(m))
		return 0;
	if (!json_is_object(m))
		return bh_error_set(err, BH_EINVAL, "%s: must be a map of strings", what);
	json_object_foreach((json_t *)m, k, v) if (!json_is_string(v))
		return bh_error_set(err, BH_EINVAL, "%s.%s: must be a string", what, k);
	*out = json_deep_copy(m);
	return 0;
}

int postrender_new(const json_t *spec, const char *hr_name, const char *hr_ns, postrender **out, bh_error *err)
{
	const json_t *prs = json_object_get(spec, "postRenderers");
	const json_t *cm = json_object_get(spec, "commonMetadata");
	postrender *p;
	size_t i;
	json_t *v;
	*out = NULL;
	if (prs && !json_is_null(prs) && !json_is_array(prs))
		return bh_error_set(err, BH_EINVAL, ".spec.postRenderers: must be a list");
	if (json_array_size(prs) > POSTRENDER_MAX_RENDERERS)
		return bh_error_set(err, BH_ELIMIT, ".spec.postRenderers: more than %d entries", POSTRENDER_MAX_RENDERERS);
	if (!(p = calloc(1, sizeof *p)) || !(p->k = calloc(json_array_size(prs) + 1, sizeof *p->k))) {
		free(p);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	json_array_foreach(prs, i, v) {
		const char *key;
		json_t *x;
		if (!json_is_object(v)) {
			bh_error_set(err, BH_EINVAL, ".spec.postRenderers[%zu]: must be an object", i);
			goto fail;
		}
		json_object_foreach(v, key, x) if (strcmp(key, "kustomize")) {
			bh_error_set(err, BH_EINVAL, ".spec.postRenderers[%zu]: unknown field \"%s\"", i, key);
			goto fail;
		}
		x = json_object_get(v, "kustomize");
		if (!x || json_is_null(x))
			continue;
		if (kustomization_decode(x, &p->k[p->nk], err) < 0) {
			bh_error_prefix(err, ".spec.postRenderers[%zu]", i);
			goto fail;
		}
		p->nk++;
	}
	if (cm && !json_is_null(cm)) {
		const char *key;
		json_t *x;
		if (!json_is_object(cm)) {
			bh_error_set(err, BH_EINVAL, ".spec.commonMetadata: must be an object");
			goto fail;
		}
		json_object_foreach((json_t *)cm, key, x) if (strcmp(key, "labels") && strcmp(key, "annotations")) {
			bh_error_set(err, BH_EINVAL, ".spec.commonMetadata: unknown field \"%s\"", key);
			goto fail;
		}
		if (string_map(json_object_get(cm, "labels"), ".spec.commonMetadata.labels", &p->labels, err) < 0 ||
		    string_map(json_object_get(cm, "annotations"), ".spec.commonMetadata.annotations", &p->annotations,
			       err) < 0)
			goto fail;
	}
	p->origin = json_pack("{s:s,s:s}", "helm.toolkit.fluxcd.io/name", hr_name ? hr_name : "",
			      "helm.toolkit.fluxcd.io/namespace", hr_ns ? hr_ns : "");
	if (!p->origin) {
		bh_error_set(err, BH_ENOMEM, "out of memory");
		goto fail;
	}
	*out = p;
	return 0;
fail:
	postrender_free(p);
	return err ? err->code : BH_EINVAL;
}

/* kustomize's LabelTransformer / AnnotationsTransformer with the field spec
 * metadata/labels (or annotations), created when missing. */
static void set_meta(json_t *objs, const char *field, const json_t *kv)
{
	size_t i;
	json_t *o;
	if (!kv || !json_object_size(kv))
		return;
	json_array_foreach(objs, i, o) {
		json_t *md = json_object_get(o, "metadata"), *m;
		if (!json_is_object(md)) {
			md = json_object();
			json_object_set_new(o, "metadata", md);
		}
		m = json_object_get(md, field);
		if (!json_is_object(m)) {
			m = json_object();
			json_object_set_new(md, field, m);
		}
		json_object_update(m, (json_t *)kv);
	}
}

int postrender_objects(const postrender *p, json_t *objs, bh_error *err)
{
	int rc = kustomize_apply_chain(p->k, p->nk, objs, err);
	if (rc < 0)
		return rc;
	set_meta(objs, "labels", p->labels);
	set_meta(objs, "annotations", p->annotations);
	set_meta(objs, "labels", p->origin);
	return 0;
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int blank(const char *s)
{
	return s[strspn(s, " \t\r\n\v\f")] == '\0';
}

/* Helm's annotateAndMerge: the documents of every file in path order, each
 * annotated with its file; read for kustomize_apply when keep_texts, else
 * with integers above int64 kept (Flux's own post-renderers write them
 * through kustomize's resource map too). */
static int merge_files(char **paths, char **texts, char ***order, size_t n, int keep_texts, json_t **objs,
		       bh_error *err)
{
	int rc = 0;
	if (!(*objs = json_array()))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	for (size_t j = 0; j < n && rc == 0; j++) {
		size_t i = (size_t)(order[j] - paths);
		json_t *docs = NULL, *d;
		size_t k;
		if (base_name(paths[i])[0] == '_' || blank(texts[i]))
			continue;
		if ((rc = (keep_texts ? kz_objects_parse_texts : kz_objects_parse_exact)(texts[i], &docs, err)) < 0) {
			bh_error_prefix(err, "parsing %s", paths[i]);
			break;
		}
		json_array_foreach(docs, k, d) {
			json_t *md = json_object_get(d, "metadata"), *an;
			if (!json_is_object(md)) {
				md = json_object();
				json_object_set_new(d, "metadata", md);
			}
			an = json_object_get(md, "annotations");
			if (!json_is_object(an)) {
				an = json_object();
				json_object_set_new(md, "annotations", an);
			}
			json_object_set_new(an, FILENAME_ANNOTATION, json_string(paths[i]));
			json_array_append(*objs, d);
		}
		json_decref(docs);
	}
	if (rc < 0) {
		json_decref(*objs);
		*objs = NULL;
	}
	return rc;
}

/* Helm's splitAndDeannotate: objects back to their files. */
static int split_files(json_t *objs, char ***paths, char ***texts, size_t *n, bh_error *err)
{
	json_t *files = json_object(), *o, *list;
	const char *path;
	size_t i, k = 0;
	int rc = 0;
	char **np, **nt;
	json_array_foreach(objs, i, o) {
		json_t *md = json_object_get(o, "metadata"), *an = json_object_get(md, "annotations");
		const char *f = json_string_value(json_object_get(an, FILENAME_ANNOTATION));
		char gen[64];
		if (!f) {
			snprintf(gen, sizeof gen, "generated-by-postrender-%zu.yaml", i);
			f = gen;
		}
		list = json_object_get(files, f);
		if (!list) {
			list = json_array();
			json_object_set_new(files, f, list);
		}
		json_array_append(list, o);
		json_object_del(an, FILENAME_ANNOTATION);
		if (json_is_object(an) && !json_object_size(an))
			json_object_del(md, "annotations");
	}
	np = calloc(json_object_size(files) + 1, sizeof *np);
	nt = calloc(json_object_size(files) + 1, sizeof *nt);
	if (!np || !nt) {
		free(np);
		free(nt);
		json_decref(files);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	json_object_foreach(files, path, list) {
		bh_buf b = BH_BUF_INIT;
		/* kio.StringAll over what Flux's last post-renderer printed */
		if ((rc = kz_objects_emit_unfolded(list, &b, err)) < 0) {
			bh_buf_free(&b);
			break;
		}
		np[k] = strdup(path);
		nt[k] = b.data ? bh_buf_detach(&b) : strdup("");
		k++;
	}
	json_decref(files);
	if (rc < 0) {
		for (size_t j = 0; j < k; j++) {
			free(np[j]);
			free(nt[j]);
		}
		free(np);
		free(nt);
		return rc;
	}
	for (size_t j = 0; j < *n; j++) {
		free((*paths)[j]);
		free((*texts)[j]);
	}
	free(*paths);
	free(*texts);
	*paths = np;
	*texts = nt;
	*n = k;
	return 0;
}

int postrender_files(void *ud, char ***paths, char ***texts, size_t *n, bh_error *err)
{
	const postrender *p = ud;
	json_t *objs = NULL;
	char ***order = malloc((*n + 1) * sizeof *order); /* the files in path order (Helm's sorted names) */
	int rc;
	if (!order)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	for (size_t i = 0; i < *n; i++)
		order[i] = &(*paths)[i];
	qsort(order, *n, sizeof *order, path_cmp);
	/* Helm 4's texts for its three steps (renderResources, the combined
	 * strategy): merging the files, running the post-renderers, splitting
	 * their output back into files */
	if ((rc = merge_files(*paths, *texts, order, *n, p->nk > 0, &objs, err)) < 0) {
		free(order);
		return bh_error_prefix(err, "error merging manifests");
	}
	/* Flux's post-renderers print every object through kustomize's
	 * resource map, which refuses a mapping key twice (the origin labels
	 * alone too: then in annotations as well) */
	for (size_t j = 0; j < *n && rc == 0; j++)
		if (base_name(*order[j])[0] != '_')
			rc = kz_objects_check_keys((*texts)[order[j] - *paths], p->nk == 0, err);
	free(order);
	if (rc == 0)
		rc = postrender_objects(p, objs, err);
	if (rc < 0)
		bh_error_prefix(err, "error while running post render on files");
	else if ((rc = split_files(objs, paths, texts, n, err)) < 0)
		bh_error_prefix(err, "error while parsing post rendered output");
	json_decref(objs);
	return rc;
}
