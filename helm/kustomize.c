/* helm/kustomize.c — see kustomize.h: applying a kustomization —
 * the patch transformer (strategic merge or JSON 6902) and the image tag
 * transformer (kustomize's legacy walk over every `containers`/
 * `initContainers` list, then its image field specs), then the name
 * reference transformer and what kustomize's build does last. Decoding is
 * in kustomize_decode.c, selection in kustomize_select.c, the texts of
 * scalars in kustomize_texts.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helm/kustomize.h"
#include "helm/kustomize_internal.h"
#include "lib/gostrconv.h"

/* ---- applying ------------------------------------------------------------------------ */

static void obj_id(const json_t *o, char *buf, size_t n)
{
	const json_t *md = json_object_get(o, "metadata");
	snprintf(buf, n, "%s/%s %s/%s", kz_sget(o, "apiVersion"), kz_sget(o, "kind"), kz_effective_namespace(o),
		 kz_sget(md, "name"));
}

/* resid.ResId's String(): Kind.version.group/name.namespace, "[noGrp]",
 * "[noNs]" and the like for what is empty (a patch's own namespace). */
static void res_id(const json_t *o, char *buf, size_t n)
{
	const json_t *md = json_object_get(o, "metadata");
	const char *av = kz_sget(o, "apiVersion"), *slash = strchr(av, '/');
	const char *kind = kz_sget(o, "kind"), *name = kz_sget(md, "name"), *ns = kz_sget(md, "namespace");
	char g[256], v[256];
	snprintf(g, sizeof g, "%.*s", slash ? (int)(slash - av) : 0, av);
	snprintf(v, sizeof v, "%s", slash ? slash + 1 : av);
	snprintf(buf, n, "%.100s.%.60s.%.100s/%.160s.%.80s", *kind ? kind : "[noKind]", *v ? v : "[noVer]", *g ? g : "[noGrp]",
		 *name ? name : "[noName]", *ns ? ns : "[noNs]");
}

static int apply_smp_one(json_t *objs, size_t i, const json_t *patch, bh_error *err)
{
	json_t *obj = json_array_get(objs, i), *p, *r = NULL, *orec, *prec, *styles = NULL;
	int rc;
	if (!(p = json_deep_copy(patch)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	/* resmap.ApplySmPatch: the patch takes the object's apiVersion */
	if (json_object_get(obj, "apiVersion"))
		json_object_set(p, "apiVersion", json_object_get(obj, "apiVersion"));
	orec = json_incref(json_object_get(obj, KZ_TEXTS));
	prec = json_incref(json_object_get(p, KZ_TEXTS));
	json_object_del(obj, KZ_TEXTS);
	json_object_del(p, KZ_TEXTS);
	rc = kz_smp_apply(obj, json_object_get(orec, "styles"), p, json_object_get(prec, "styles"), &r, &styles, err);
	if (r) {
		json_t *rec = kz_texts_merge(orec, prec, p);
		if (json_object_size(styles)) {
			if (!rec)
				rec = json_object();
			json_object_set(rec, "styles", styles);
		}
		if (rec)
			json_object_set_new(r, KZ_TEXTS, rec);
	}
	json_decref(styles);
	json_decref(p);
	json_decref(orec);
	json_decref(prec);
	if (rc < 0) {
		json_decref(r);
		return rc;
	}
	if (r)
		json_array_set_new(objs, i, r);
	else
		json_array_set_new(objs, i, json_null()); /* removed after the patch */
	return 0;
}

static void drop_removed(json_t *objs)
{
	for (size_t i = 0; i < json_array_size(objs);)
		if (json_is_null(json_array_get(objs, i)))
			json_array_remove(objs, i);
		else
			i++;
}

/* resWrangler.GetMatchingResourcesByAnyId: a's current id, or one of its
 * previous ones (its build annotations, after a JSON patch renamed it), is
 * b's. */
static int same_id(const json_t *a, const json_t *b)
{
	const json_t *an = json_object_get(json_object_get(a, "metadata"), "annotations");
	const char *prev[3], *bkind = kz_sget(b, "kind"), *bname = kz_sget(json_object_get(b, "metadata"), "name");
	char k[256], n[512], ns[256];
	if (strcmp(kz_sget(a, "apiVersion"), kz_sget(b, "apiVersion")))
		return 0;
	if (!strcmp(kz_sget(a, "kind"), bkind) && !strcmp(kz_sget(json_object_get(a, "metadata"), "name"), bname) &&
	    !strcmp(kz_effective_namespace(a), kz_effective_namespace(b)))
		return 1;
	for (int f = 0; f < 3; f++)
		if (!(prev[f] = json_string_value(json_object_get(an, kz_build_annotations[f]))))
			return 0;
	for (size_t i = 0; kz_csv_at(prev[0], i, k, sizeof k) && kz_csv_at(prev[1], i, n, sizeof n) &&
			   kz_csv_at(prev[2], i, ns, sizeof ns);
	     i++)
		if (!strcmp(k, bkind) && !strcmp(n, bname) && !strcmp(ns, kz_effective_namespace(b)))
			return 1;
	return 0;
}


/* kustomize's JSON patch reads the object back with encoding/json into
 * interface{} values: every number is a float64 (a KZ_UINT too, before). */
static json_t *as_float(const json_t *x)
{
	const char *s = json_string_value(x);
	if (s && !strncmp(s, KZ_UINT, strlen(KZ_UINT)))
		return json_real(strtod(s + strlen(KZ_UINT), NULL));
	if (json_is_integer(x) && (json_integer_value(x) > (1LL << 53) || json_integer_value(x) < -(1LL << 53)))
		return json_real((double)json_integer_value(x));
	return NULL;
}

static void numbers_to_float(json_t *v, int depth)
{
	const char *k;
	json_t *x, *f;
	size_t i;
	void *tmp;
	if (depth > KZ_MAX_DEPTH + 8)
		return;
	json_object_foreach_safe(v, tmp, k, x) {
		if ((f = as_float(x)))
			json_object_set_new(v, k, f);
		else
			numbers_to_float(x, depth + 1);
	}
	json_array_foreach(v, i, x) {
		if ((f = as_float(x)))
			json_array_set_new(v, i, f);
		else
			numbers_to_float(x, depth + 1);
	}
}

/* PatchTransformer.transformJson6902 after the patch: the annotations are
 * set again from kyaml's GetAnnotations of the result, so they are the
 * texts of their values (a map or list ""), a list's elements are read in
 * pairs (key, value), anything else is none; a key "" leaves none. */
/* kioutil.GetInternalAnnotations: the texts of o's annotations that are
 * internal.config.kubernetes.io/ ones (or the legacy path, index and id),
 * rec the KZ_TEXTS record of its annotations; a new object. */
static json_t *internal_annotations(const json_t *o, const json_t *rec)
{
	static const char *const legacy[] = {"config.kubernetes.io/path", "config.kubernetes.io/index", "config.k8s.io/id"};
	const json_t *an = json_object_get(json_object_get(o, "metadata"), "annotations");
	json_t *out = json_object(), *v;
	const char *k;
	json_object_foreach((json_t *)an, k, v) {
		char buf[64];
		int want = !strncmp(k, "internal.config.kubernetes.io/", 30);
		for (size_t i = 0; i < sizeof legacy / sizeof legacy[0] && !want; i++)
			want = !strcmp(k, legacy[i]);
		if (want)
			json_object_set_new(out, k, json_string(kz_value_text(v, k, rec, buf, sizeof buf)));
	}
	return out;
}

/* ... and internal (internal_annotations before the patch) set again over
 * them, as transformJson6902 does. */
static int annotations_after_json_patch(json_t *o, const json_t *internal, bh_error *err)
{
	json_t *md = json_object_get(o, "metadata"), *an, *m, *v;
	const char *k;
	size_t i;
	char kb[64], vb[64];
	if (!md && json_object_size(internal)) /* SetAnnotations makes metadata */
		json_object_set_new(o, "metadata", md = json_object());
	if (!json_is_object(md))
		return 0;
	if (!(an = json_object_get(md, "annotations"))) {
		if (json_object_size(internal))
			json_object_set(md, "annotations", (json_t *)internal);
		return 0;
	}
	if (json_is_array(an) && json_array_size(an) % 2)
		return bh_error_set(err, BH_EINVAL,
				    "metadata.annotations is a list of %zu elements: runtime error: index out of range "
				    "[%zu] with length %zu (kustomize v5.7.1 panics reading its pairs)",
				    json_array_size(an), json_array_size(an), json_array_size(an));
	if (!(m = json_object()))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	json_object_foreach(an, k, v) json_object_set_new(m, k, json_string(kz_value_text(v, k, NULL, vb, sizeof vb)));
	for (i = 0; json_is_array(an) && i + 1 < json_array_size(an); i += 2)
		json_object_set_new(m, kz_value_text(json_array_get(an, i), "", NULL, kb, sizeof kb),
				    json_string(kz_value_text(json_array_get(an, i + 1), "", NULL, vb, sizeof vb)));
	json_object_update(m, (json_t *)internal);
	/* SetAnnotations sets the keys in order: "" replaces the map with a
	 * string, on which the next key fails (the error is dropped) */
	if (json_object_get(m, ""))
		json_object_clear(m);
	json_object_set_new(md, "annotations", m);
	return 0;
}

/* The text kyaml's GetMeta reads of a metadata field: a scalar's, ""
 * for a map, a list or null. */
static void meta_text(const json_t *v, char *buf, size_t n)
{
	buf[0] = '\0';
	if (v && !json_is_null(v) && !json_is_object(v) && !json_is_array(v))
		kz_scalar_text(v, buf, n);
}

static void build_annotations_add(json_t *o)
{
	json_t *md = json_object_get(o, "metadata"), *an;
	const char *vals[3];
	if (!json_is_object(md))
		return;
	an = json_object_get(md, "annotations");
	if (!an || json_is_null(an))
		json_object_set_new(md, "annotations", an = json_object());
	if (!json_is_object(an))
		return;
	char name[256];
	meta_text(json_object_get(md, "name"), name, sizeof name);
	vals[0] = kz_sget(o, "kind");
	vals[1] = name;
	vals[2] = kz_effective_namespace(o);
	for (int i = 0; i < 3; i++) { /* appendCsvAnnotation: after the ids of earlier patches */
		const char *cur = json_string_value(json_object_get(an, kz_build_annotations[i]));
		if (!*vals[i])
			continue;
		json_object_set_new(an, kz_build_annotations[i],
				    cur ? json_sprintf("%s,%s", cur, vals[i]) : json_string(vals[i]));
	}
}

/* transformStrategicMerge's error when Select fails: "unable to find
 * patch target %q in `resources`: ...", the target as types.Selector's
 * String() prints it. */
static int select_error(const kz_selector *s, bh_error *err)
{
	bh_buf b = BH_BUF_INIT;
	int rc;
	bh_buf_puts(&b, "unable to find patch target ");
	go_quote(&b, kz_selector_text(s), strlen(kz_selector_text(s)), '"', 0);
	rc = bh_buf_ok(&b) ? bh_error_prefix(err, "%s in `resources`", bh_buf_str(&b)) : err ? err->code : BH_EINVAL;
	bh_buf_free(&b);
	return rc;
}

static int apply_patch(const kz_patch *p, json_t *objs, bh_error *err)
{
	size_t n = json_array_size(objs);
	int rc = 0;
	if (p->apply_err)
		return bh_error_set(err, BH_EINVAL, "%s", p->apply_err);
	if (p->smp && !p->target) {
		size_t j;
		json_t *doc;
		json_array_foreach(p->smp, j, doc) {
			size_t i, found = 0, at = 0;
			char id[512];
			for (i = 0; i < n; i++)
				if (json_is_object(json_array_get(objs, i)) && same_id(json_array_get(objs, i), doc) && !found++)
					at = i;
			res_id(doc, id, sizeof id);
			if (found != 1) /* GetById's demandOneMatch */
				return bh_error_set(err, found ? BH_EINVAL : BH_ENOTFOUND,
						    "no resource matches strategic merge patch \"%s\": %s for Id %s; failed to find "
						    "unique target for patch %s",
						    id, found ? "multiple matches" : "no matches", id, id);
			if ((rc = apply_smp_one(objs, at, doc, err)) < 0)
				return rc;
		}
		drop_removed(objs);
		return 0;
	}
	{
		char *sel = calloc(n + 1, 1);
		if (!sel)
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		for (size_t i = 0; i < n; i++) {
			const json_t *o = json_array_get(objs, i), *md = json_object_get(o, "metadata");
			/* resmap.Select reads the labels and annotations of every
			 * object of the target's kinds and names in pairs: an odd
			 * list is kustomize's panic */
			for (int f = 0; f < 2 && kz_selector_ids_match(p->target, o); f++) {
				const json_t *m = json_object_get(md, kz_text_fields[f]);
				if (json_is_array(m) && json_array_size(m) % 2) {
					char id[512];
					free(sel);
					obj_id(o, id, sizeof id);
					return bh_error_set(err, BH_EINVAL,
							    "%s: metadata.%s is a list of %zu elements, not a map "
							    "(kustomize v5.7.1 panics: runtime error: index out of range)",
							    id, kz_text_fields[f], json_array_size(m));
				}
			}
			if ((rc = kz_selector_select(p->target, o, err)) < 0) {
				free(sel);
				return p->smp ? select_error(p->target, err) : rc;
			}
			sel[i] = (char)rc;
		}
		rc = 0;
		json_t *tsmp = p->smp ? json_deep_copy(json_array_get(p->smp, 0)) : NULL;
		if (tsmp) { /* a targeted patch is read as a resource first */
			json_t *md = json_object_get(tsmp, "metadata");
			kz_values_to_text(json_object_get(md, "labels"), kz_texts_of(tsmp, "labels"));
			kz_values_to_text(json_object_get(md, "annotations"), kz_texts_of(tsmp, "annotations"));
			{ /* the patch's styles stay */
				json_t *st = json_incref(json_object_get(json_object_get(tsmp, KZ_TEXTS), "styles"));
				json_object_del(tsmp, KZ_TEXTS);
				if (st)
					json_object_set_new(tsmp, KZ_TEXTS, json_pack("{s:o}", "styles", st));
			}
		}
		for (size_t i = 0; i < n && rc == 0; i++) {
			if (!sel[i])
				continue;
			if (tsmp) {
				rc = apply_smp_one(objs, i, tsmp, err);
			} else {
				json_t *o, *internal;
				if (p->ops_err) {
					rc = bh_error_set(err, BH_EINVAL, "%s", p->ops_err);
					break;
				}
				o = json_incref(json_array_get(objs, i));
				json_t *arec = json_incref((json_t *)kz_texts_of(o, "annotations"));
				rc = kz_json_patch_nonjson(o, err);
				json_object_del(o, KZ_TEXTS); /* kustomize goes through JSON */
				build_annotations_add(o);
				internal = internal_annotations(o, arec); /* read before, as texts */
				json_decref(arec);
				numbers_to_float(o, 0);
				if (rc == 0 && (rc = kz_json_patch(&o, p->json, err)) == 0 && !json_is_object(o))
					/* RNode.UnmarshalJSON into a map (a scalar root is the patch's error) */
					rc = bh_error_set(err, BH_EINVAL,
							  "json: cannot unmarshal array into Go value of type map[string]interface {}");
				if (rc == 0 && (rc = annotations_after_json_patch(o, internal, err)) == 0) {
					numbers_to_float(o, 0);
					kz_styles_from_json(o);
					json_array_set(objs, i, o);
				}
				json_decref(internal);
				json_decref(o);
			}
		}
		json_decref(tsmp);
		free(sel);
	}
	drop_removed(objs);
	return rc;
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A map of strings as Go's fmt prints it: map[k:v k:v], keys sorted. */
static void go_map(bh_buf *b, const json_t *m)
{
	size_t n = json_is_object(m) ? json_object_size(m) : 0, i = 0;
	const char **keys = n ? malloc(n * sizeof *keys) : NULL;
	const char *k;
	json_t *v;
	char t[512];
	bh_buf_puts(b, "map[");
	if (keys) {
		json_object_foreach((json_t *)m, k, v) keys[i++] = k;
		qsort(keys, n, sizeof *keys, key_cmp);
		for (i = 0; i < n; i++) {
			meta_text(json_object_get(m, keys[i]), t, sizeof t);
			bh_buf_printf(b, "%s%s:%s", i ? " " : "", keys[i], t);
		}
	}
	free(keys);
	bh_buf_puts(b, "]");
}

/* The name reference transformer's PrevIds: kustomize panics when an
 * object's build annotations hold different numbers of previous names,
 * namespaces and kinds (appendCsvAnnotation skipped an empty name before
 * a JSON patch, or a name held a comma). */
static int prev_ids_valid(const json_t *o, bh_error *err)
{
	const json_t *an = json_object_get(json_object_get(o, "metadata"), "annotations");
	size_t counts[3];
	if (!json_is_object(an) || !json_object_get(an, kz_build_annotations[1]))
		return 0;
	for (int i = 0; i < 3; i++) {
		const char *t = json_string_value(json_object_get(an, kz_build_annotations[i]));
		counts[i] = 1;
		for (; t && *t; t++)
			counts[i] += *t == ',';
	}
	if (counts[0] != counts[1] || counts[0] != counts[2])
		return bh_error_set(err, BH_EINVAL,
				    "number of previous names, number of previous namespaces, number of previous kinds not "
				    "equal (kustomize v5.7.1 panics)");
	return 0;
}

/* IgnoreLocal's GetValidatedMetadata, after the name references: an
 * object needs a kind, and a name unless its kind ends in "List" (the
 * error prints its ResourceMeta as Go's %v does). */
static int meta_valid(const json_t *o, bh_error *err)
{
	const json_t *md = json_object_get(o, "metadata");
	char kind[256], name[256], av[256], ns[256];
	bh_buf b = BH_BUF_INIT;
	int rc;
	meta_text(json_object_get(o, "kind"), kind, sizeof kind);
	meta_text(json_object_get(md, "name"), name, sizeof name);
	if (kind[0] && (name[0] || (strlen(kind) >= 4 && !strcmp(kind + strlen(kind) - 4, "List"))))
		return 0;
	meta_text(json_object_get(o, "apiVersion"), av, sizeof av);
	meta_text(json_object_get(md, "namespace"), ns, sizeof ns);
	bh_buf_printf(&b, "{{%s %s} {{%s %s} ", av, kind, name, ns);
	go_map(&b, json_object_get(md, "labels"));
	bh_buf_puts(&b, " ");
	go_map(&b, json_object_get(md, "annotations"));
	bh_buf_puts(&b, "}}");
	rc = bh_error_set(err, BH_EINVAL, "missing %s in object %s", kind[0] ? "metadata.name" : "kind",
			  b.oom ? "" : bh_buf_str(&b));
	bh_buf_free(&b);
	return rc;
}

/* image.Split */
static void image_split(const char *s, char **name, char **tag, char **digest)
{
	const char *search = s, *at, *colon;
	size_t base = 0;
	const char *slash = strchr(s, '/');
	if (slash && slash > s) {
		base = (size_t)(slash - s);
		search = slash;
	}
	at = strchr(search, '@');
	colon = strchr(search, ':');
	*tag = *digest = NULL;
	if (!at && !colon) {
		*name = strdup(s);
		return;
	}
	if (at && (!colon || at < colon)) {
		*name = strndup(s, (size_t)(at - search) + base);
		*digest = strdup(at + 1);
		return;
	}
	*name = strndup(s, (size_t)(colon - search) + base);
	if (at) {
		*tag = strndup(colon + 1, (size_t)(at - colon - 1));
		*digest = strdup(at + 1);
	} else {
		*tag = strdup(colon + 1);
	}
}

/* imageTagUpdater.SetImageValue: a scalar's text (null's "null", a
 * number's digits) is matched and rewritten as a string; a map or a list
 * is ErrorIfInvalid's error. */
static int image_update(const kz_image *im, json_t *holder, const char *key, bh_error *err)
{
	json_t *v = json_object_get(holder, key);
	char *name, *tag, *digest, *r, text[512];
	const char *t, *d;
	if (!v)
		return 0;
	if (json_is_object(v) || json_is_array(v))
		return kz_kind_error(err, "ScalarNode", v);
	if (json_is_null(v))
		snprintf(text, sizeof text, "null");
	else
		kz_scalar_text(v, text, sizeof text);
	if (!im->re || !kz_re_match(im->re, text))
		return 0;
	image_split(text, &name, &tag, &digest);
	if (im->new_name) {
		free(name);
		name = strdup(im->new_name);
	}
	t = tag;
	d = digest;
	if (im->new_tag && im->digest) {
		t = im->new_tag;
		d = im->digest;
	} else if (im->new_tag) {
		t = im->new_tag;
		d = NULL;
	} else if (im->digest) {
		t = NULL;
		d = im->digest;
	}
	r = malloc(strlen(name ? name : "") + (t ? strlen(t) : 0) + (d ? strlen(d) : 0) + 3);
	if (r && name) {
		sprintf(r, "%s%s%s%s%s", name, t && *t ? ":" : "", t && *t ? t : "", d && *d ? "@" : "", d && *d ? d : "");
		if (strcmp(r, text)) /* the same text: the node (its tag) stays */
			json_object_set_new(holder, key, json_string(r));
	}
	free(r);
	free(name);
	free(tag);
	free(digest);
	return 0;
}

static int image_walk(const kz_image *im, json_t *v, int depth, bh_error *err)
{
	if (depth > KZ_MAX_DEPTH)
		return 0;
	if (json_is_object(v)) {
		const char *k;
		json_t *x;
		json_object_foreach(v, k, x) {
			if (image_walk(im, x, depth + 1, err) < 0)
				return err ? err->code : BH_EINVAL;
			if ((!strcmp(k, "containers") || !strcmp(k, "initContainers")) && json_is_array(x)) {
				size_t i;
				json_t *c;
				json_array_foreach(x, i, c) if (json_is_object(c) && image_update(im, c, "image", err) < 0) return
					err ? err->code : BH_EINVAL;
			}
		}
	} else if (json_is_array(v)) {
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x) if (image_walk(im, x, depth + 1, err) < 0) return err ? err->code : BH_EINVAL;
	}
	return 0;
}

/* The image field specs kustomize adds to the legacy walk: image volumes. */
static int image_volumes(const kz_image *im, json_t *spec, bh_error *err)
{
	size_t i;
	json_t *vol;
	json_array_foreach(json_object_get(spec, "volumes"), i, vol) {
		json_t *img = json_object_get(vol, "image");
		if (json_is_object(img) && image_update(im, img, "reference", err) < 0)
			return err ? err->code : BH_EINVAL;
	}
	return 0;
}

/* The image field specs (spec/containers[]/image, .../initContainers[]/...,
 * .../volumes[]/image/reference, under spec and spec/template/spec): the
 * fieldspec filter makes a null list on its path an empty one. */
static void image_null_lists(json_t *spec)
{
	static const char *const lists[] = {"containers", "initContainers", "volumes"};
	for (size_t i = 0; json_is_object(spec) && i < sizeof lists / sizeof lists[0]; i++) {
		json_t *l = json_object_get(spec, lists[i]);
		if (l && json_is_null(l))
			json_object_set_new(spec, lists[i], json_array());
	}
}

/* kustomize's IgnoreLocal makes a resource map of what is left at the end:
 * two objects with one id (a JSON patch renamed one to the other's name)
 * are its panic. */
static int ids_unique(const json_t *objs, bh_error *err)
{
	json_t *seen = json_object();
	size_t i;
	const json_t *o;
	int rc = 0;
	if (!seen)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	json_array_foreach(objs, i, o) {
		char id[1024];
		const char *av = kz_sget(o, "apiVersion"), *slash = strchr(av, '/');
		snprintf(id, sizeof id, "%s.%s.%.*s/%s.%s", kz_sget(o, "kind"), slash ? slash + 1 : av,
			 slash ? (int)(slash - av) : 6, slash ? av : "[noGrp]", kz_sget(json_object_get(o, "metadata"), "name"),
			 kz_effective_namespace(o));
		if (json_object_get(seen, id)) {
			rc = bh_error_set(err, BH_EINVAL,
					  "may not add resource with an already registered id: %s (kustomize v5.7.1 panics)",
					  id);
			break;
		}
		json_object_set_new(seen, id, json_true());
	}
	json_decref(seen);
	return rc;
}

int kustomize_apply(const kustomization *k, json_t *objs, bh_error *err)
{
	if (!json_is_array(objs))
		return bh_error_set(err, BH_EINVAL, "kustomize: objects must be a list");
	{ /* objects not read from their text here (a previous post-renderer's
	   * output): kustomize reads the text sigs.k8s.io/yaml wrote */
		size_t i;
		json_t *o;
		json_array_foreach(objs, i, o) if (json_is_object(o) && !kz_texts_of(o, "styles")) kz_styles_from_json(o);
	}
	/* kustomize configures every patch before the first one runs */
	for (size_t i = 0; i < k->npatches; i++)
		if (k->patches[i].config_err)
			return bh_error_set(err, BH_EINVAL, "%s", k->patches[i].config_err);
	for (size_t i = 0; i < k->npatches; i++) {
		int rc = apply_patch(&k->patches[i], objs, err);
		if (rc < 0)
			return rc;
	}
	for (size_t j = 0; j < k->nimages; j++) {
		size_t i;
		json_t *o;
		json_array_foreach(objs, i, o) {
			json_t *spec = json_object_get(o, "spec");
			if (!strcmp(kz_sget(o, "kind"), "CustomResourceDefinition"))
				continue;
			image_null_lists(spec);
			image_null_lists(json_object_get(json_object_get(spec, "template"), "spec"));
			if (image_walk(&k->images[j], o, 0, err) < 0 || image_volumes(&k->images[j], spec, err) < 0 ||
			    image_volumes(&k->images[j], json_object_get(json_object_get(spec, "template"), "spec"), err) < 0)
				return err ? err->code : BH_EINVAL;
		}
	}
	{
		size_t i;
		json_t *o;
		json_array_foreach(objs, i, o) if (prev_ids_valid(o, err) < 0) return err ? err->code : BH_EINVAL;
		json_array_foreach(objs, i, o) if (kz_nameref_check(o, err) < 0) return err ? err->code : BH_EINVAL;
		if (kz_nameref_rename(objs, err) < 0)
			return err ? err->code : BH_EINVAL;
		json_array_foreach(objs, i, o) if (meta_valid(o, err) < 0) return err ? err->code : BH_EINVAL;
	}
	/* kustomize's build annotations come off at the end, and an annotation
	 * map left empty (or null) goes with them; a resource marked
	 * config.kubernetes.io/local-config (but "false") is not in the output */
	{
		size_t i = 0;
		while (i < json_array_size(objs)) {
			json_t *o = json_array_get(objs, i), *md = json_object_get(o, "metadata");
			json_t *an = json_object_get(md, "annotations");
			const json_t *rec = kz_texts_of(o, "annotations");
			char buf[64];
			const char *local = kz_value_text(json_object_get(an, "config.kubernetes.io/local-config"),
						       "config.kubernetes.io/local-config", rec, buf, sizeof buf);
			if (local && strcmp(local, "false")) {
				json_array_remove(objs, i);
				continue;
			}
			for (int k = 0; json_is_object(an) && kz_build_annotations[k]; k++)
				json_object_del(an, kz_build_annotations[k]);
			kz_values_to_text(an, rec);
			{ /* kustomize writes annotation keys back as plain scalars */
				const json_t *bk = json_object_get(json_object_get(o, KZ_TEXTS), "badkey");
				const char *k, *bad = NULL;
				json_t *v;
				json_object_foreach(an, k, v) if (!bad && kz_key_nonstring(k, strlen(k))) bad = k;
				if (bk || bad) {
					char id[512];
					obj_id(o, id, sizeof id);
					if (bk)
						bh_error_set(err, BH_EINVAL, "%s", json_string_value(bk));
					else
						kz_badkey_error(bad, err);
					return bh_error_prefix(err, "%s", id);
				}
			}
			json_object_del(o, KZ_TEXTS);
			if (an && (json_is_null(an) || (json_is_object(an) && !json_object_size(an))))
				json_object_del(md, "annotations");
			i++;
		}
	}
	return ids_unique(objs, err);
}

/* Flux's kustomize post-renderer reads the rendered text and prints its
 * result (resMap.AsYaml): the next one reads that text, not the objects. */
static int objects_reread(json_t *objs, bh_error *err)
{
	bh_buf out = BH_BUF_INIT;
	json_t *again = NULL;
	int rc = kz_objects_emit(objs, &out, err);
	if (rc == 0)
		rc = kz_objects_parse_texts(bh_buf_str(&out), &again, err);
	bh_buf_free(&out);
	if (rc < 0)
		return rc;
	json_array_clear(objs);
	json_array_extend(objs, again);
	json_decref(again);
	return 0;
}

int kustomize_apply_chain(kustomization *const *k, size_t n, json_t *objs, bh_error *err)
{
	for (size_t i = 0; i < n; i++) {
		int rc = i ? objects_reread(objs, err) : 0;
		if (rc == 0)
			rc = kustomize_apply(k[i], objs, err);
		if (rc < 0)
			return rc; /* Flux's Combined post-renderer: the error alone */
	}
	return 0;
}
