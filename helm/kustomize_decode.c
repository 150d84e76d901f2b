/* helm/kustomize_decode.c — decoding a kustomization (patches, told
 * apart as strategic merge or JSON 6902 as kustomize does, and images) and
 * reading/writing the object lists kustomize works on (documents split as
 * k8s.io's YAMLReader splits them, written as sigs.k8s.io/yaml writes them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helm/kustomize.h"
#include "helm/kustomize_internal.h"
#include "lib/gojson.h"
#include "lib/gostrconv.h"
#include "lib/vec.h"
#include "lib/yaml.h"

/* ---- decoding ------------------------------------------------------------------------ */


void kustomization_free(kustomization *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->npatches; i++) {
		json_decref(k->patches[i].smp);
		json_decref(k->patches[i].json);
		kz_selector_free(k->patches[i].target);
		free(k->patches[i].config_err);
		free(k->patches[i].apply_err);
		free(k->patches[i].ops_err);
	}
	for (size_t i = 0; i < k->nimages; i++) {
		free(k->images[i].name);
		free(k->images[i].new_name);
		free(k->images[i].new_tag);
		free(k->images[i].digest);
		kz_re_free(k->images[i].re);
	}
	free(k->patches);
	free(k->images);
	free(k);
}

/* What may follow "---" on a separator line, as k8s.io's YAMLReader allows:
 * blanks, then nothing or a comment ("---# note" separates, as helm and
 * kubectl read it; cert-manager's rbac.yaml has one). */
static int is_separator_rest(const char *q)
{
	while (*q == ' ' || *q == '\t' || *q == '\r')
		q++;
	return *q == '\0' || *q == '\n' || *q == '#';
}

/* Documents split at "---" lines (k8s.io YAMLReader), kept whole: a block
 * scalar at the end of a document keeps its final newline. */
static int split_docs(const char *text, char ***docs, size_t *n)
{
	const char *p = text, *start = text;
	size_t cap = 0;
	*docs = NULL;
	*n = 0;
	for (;;) {
		const char *eol = strchr(p, '\n');
		int sep = !strncmp(p, "---", 3) && is_separator_rest(p + 3);
		if (sep || !*p) {
			if (VEC_RESERVE(*docs, cap, *n + 1, 8) < 0)
				return -1;
			if (!((*docs)[(*n)++] = strndup(start, (size_t)(p - start))))
				return -1;
			if (!*p)
				return 0;
			start = eol ? eol + 1 : p + strlen(p);
		}
		if (!eol)
			p += strlen(p);
		else
			p = eol + 1;
		if (!*p && start == p) {
			return 0;
		}
	}
}

static void docs_free(char **docs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(docs[i]);
	free(docs);
}

/* A document of blank and comment lines only. */
static int blank_doc(const char *d)
{
	while (*d) {
		d += strspn(d, " \t\r");
		if (*d == '#')
			d += strcspn(d, "\n");
		if (*d && *d != '\n')
			return 0;
		d += *d == '\n';
	}
	return 1;
}

/* GetValidatedMetadata: a kind, and a name unless the kind ends in
 * "List"; 0 or -1. */
static int sm_doc_valid(const json_t *d)
{
	const json_t *kind = json_object_get(d, "kind"), *name = json_object_get(json_object_get(d, "metadata"), "name");
	char k[256] = "", nm[8] = "";
	if (kind && !json_is_null(kind) && !json_is_object(kind) && !json_is_array(kind))
		kz_scalar_text(kind, k, sizeof k);
	if (name && !json_is_null(name) && !json_is_object(name) && !json_is_array(name))
		kz_scalar_text(name, nm, sizeof nm);
	return k[0] && (nm[0] || (strlen(k) >= 4 && !strcmp(k + strlen(k) - 4, "List"))) ? 0 : -1;
}

/* jsonpatch.DecodePatch of the value v (encoding/json into []Operation):
 * the operations (null: none), or NULL with *why Go's error. */
static json_t *json_ops(json_t *v, char *why, size_t n)
{
	static const char *const kinds[] = {"object", "array", "string", "number", "number", "bool", "bool", "null"};
	size_t i;
	json_t *op;
	if (json_is_null(v))
		return json_array();
	if (!json_is_array(v)) {
		snprintf(why, n, "json: cannot unmarshal %s into Go value of type jsonpatch.Patch", kinds[json_typeof(v)]);
		return NULL;
	}
	json_array_foreach(v, i, op) if (!json_is_object(op)) {
		snprintf(why, n, "json: cannot unmarshal %s into Go value of type jsonpatch.Operation", kinds[json_typeof(op)]);
		return NULL;
	}
	return json_incref(v);
}

/* PatchTransformer.Config on the (trimmed) patch text: read as strategic
 * merge patches (the resource factory: every document that is not null or
 * empty a map with a kind and a name) and as a JSON 6902 patch (JSON when
 * it starts with "[", else the first YAML document alone). Neither: the
 * error "unable to parse SM or JSON patch". Strategic merge when it reads
 * as one; with no documents to merge, a JSON patch that runs when the
 * patch does (its decoding error, if any, in p->ops_err for the first
 * object it selects). */
static int patch_parse_trimmed(const char *text, int targeted, kz_patch *p, bh_error *err)
{
	char **docs = NULL;
	size_t n = 0;
	int rc = 0, sm_bad = 0;
	json_t *ops = NULL, *smp = NULL;
	char why[BH_ERROR_MSG_MAX] = "", *dup = NULL;
	yaml_limits lim = {KZ_MAX_PATCH_BYTES, KZ_MAX_DEPTH, 100000};
	if (!*text)
		return bh_error_set(err, BH_EINVAL, "must specify one of patch and path");
	if (strlen(text) > KZ_MAX_PATCH_BYTES)
		return bh_error_set(err, BH_ELIMIT, "patch longer than %d bytes", KZ_MAX_PATCH_BYTES);
	if (split_docs(text, &docs, &n) < 0) {
		docs_free(docs, n);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	/* the JSON 6902 reading */
	if (text[0] == '[') {
		json_t *j = NULL;
		bh_error e2;
		if (gojson_decode(text, strlen(text), NULL, GOJSON_KEEP_INTS, &j, &e2) == 0)
			ops = json_ops(j, why, sizeof why);
		else
			snprintf(why, sizeof why, "%s", e2.msg);
		json_decref(j);
	} else if (n) {
		json_t *d = NULL;
		bh_error e2;
		/* goyaml's first document: what precedes the first "---" is none
		 * when it is blank (an empty one between two "---" is one) */
		size_t f = n > 1 && blank_doc(docs[0]);
		if (yaml_parse_any(docs[f], strlen(docs[f]), &lim, YAML_KEEP_INTS, &d, &e2) == 0)
			ops = json_ops(d, why, sizeof why);
		else if (e2.code == BH_ELIMIT || e2.code == BH_ENOMEM)
			rc = bh_error_set(err, e2.code, "%s", e2.msg);
		else
			snprintf(why, sizeof why, "%s", e2.msg);
		json_decref(d);
	}
	/* the strategic merge reading */
	if (!(smp = json_array()))
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
	for (size_t i = 0; i < n && rc == 0 && !sm_bad; i++) {
		json_t *d = NULL, *quoted = NULL, *badkey = NULL;
		char *orig;
		bh_error e2;
		kz_doc_rewrite(&docs[i], targeted, &quoted, &badkey, &orig);
		/* kyaml reads strategic merge patches (yaml.v3 typing) */
		if (yaml_parse_any(docs[i], strlen(docs[i]), &lim, YAML_KEEP_INTS | YAML_V3_TYPING, &d, &e2) < 0) {
			if (e2.code == BH_ELIMIT || e2.code == BH_ENOMEM)
				rc = bh_error_set(err, e2.code, "%s", e2.msg);
			sm_bad = 1;
		} else if (!json_is_null(d) && !(json_is_object(d) && !json_object_size(d)) &&
			   !(json_is_array(d) && !json_array_size(d))) { /* IsNilOrEmpty ones are skipped */
			if (!json_is_object(d) || sm_doc_valid(d) < 0) {
				sm_bad = 1;
			} else {
				bh_error e3;
				if (!dup && kz_duplicate_keys(orig ? orig : docs[i], 1, &e3) < 0 &&
				    !(dup = strdup(strstr(e3.msg, "yaml: ") ? strstr(e3.msg, "yaml: ") : e3.msg)))
					rc = bh_error_set(err, BH_ENOMEM, "out of memory");
				kz_styles_record(d, orig ? orig : docs[i], KZ_YS_PATCH | KZ_YS_UINTS);
				kz_texts_record(d, orig ? orig : docs[i], orig != NULL);
				kz_texts_record_nonjson(d, quoted, badkey);
				quoted = badkey = NULL;
				json_array_append(smp, d);
			}
		}
		json_decref(d);
		json_decref(quoted);
		json_decref(badkey);
		free(orig);
	}
	docs_free(docs, n);
	if (rc == 0 && sm_bad && !ops)
		rc = bh_error_set(err, BH_EINVAL, "unable to parse SM or JSON patch");
	if (rc == 0 && !sm_bad && json_array_size(smp) && dup) {
		/* kyaml reads a strategic merge patch as nodes, where the first
		 * of a repeated key is the one merged; bulkhead reads the last */
		rc = bh_error_set(err, BH_EPARSE,
				  "a strategic merge patch with a mapping key twice (kustomize merges the first one, "
				  "bulkhead does not read it so): %s",
				  dup);
	} else if (rc == 0 && !sm_bad && json_array_size(smp)) {
		p->smp = json_incref(smp);
	} else if (rc == 0) {
		p->json = ops ? json_incref(ops) : json_array();
		if (!ops && !(p->ops_err = strdup(why)))
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	json_decref(ops);
	json_decref(smp);
	free(dup);
	return rc;
}

/* Go's unicode.IsSpace over UTF-8 at s (ASCII blanks, U+0085, U+00A0): its
 * length in bytes, or 0. */
static size_t go_space(const unsigned char *s)
{
	if (*s && strchr(" \t\n\v\f\r", *s))
		return 1;
	return s[0] == 0xc2 && (s[1] == 0x85 || s[1] == 0xa0) ? 2 : 0;
}

/* strings.TrimSpace of text: [*s, *e). */
static void trim_space(const char *text, const char **s, const char **e)
{
	const unsigned char *a = (const unsigned char *)text, *z = a + strlen(text);
	for (size_t k; (k = go_space(a)); a += k)
		;
	while (z > a && (go_space(z - 1) == 1 || (z - a >= 2 && go_space(z - 2) == 2)))
		z -= go_space(z - 1) == 1 ? 1 : 2;
	*s = (const char *)a;
	*e = (const char *)z;
}

/* PatchTransformer.Config reads strings.TrimSpace(patch): a block scalar
 * that ends the patch loses its final newline ("a: |\n  x\n" is "x"). */
static int patch_parse(const char *text, int targeted, kz_patch *p, bh_error *err)
{
	const char *s, *e;
	char *t;
	int rc;
	trim_space(text, &s, &e);
	if (!(t = strndup(s, (size_t)(e - s))))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	rc = patch_parse_trimmed(t, targeted, p, err);
	free(t);
	return rc;
}

/* PatchTransformer's patchSource: [patch: "TEXT"] (Go's %q of the
 * patch, spaces trimmed), appended to b. */
static void patch_source(bh_buf *b, const char *text)
{
	const char *s, *e;
	trim_space(text, &s, &e);
	bh_buf_puts(b, "[patch: ");
	go_quote(b, s, (size_t)(e - s), '"', 0);
	bh_buf_puts(b, "]");
}

/* A patch kustomize cannot configure: the error its build gives before
 * any patch runs ("trouble configuring builtin PatchTransformer with
 * config: `...`", the config printed as sigs.k8s.io/yaml prints it) kept
 * in p->config_err. */
static int config_error(const json_t *v, const char *text, kz_patch *p, bh_error *err)
{
	static const char *const tf[] = {"group", "version", "kind", "name", "namespace",
					 "annotationSelector", "labelSelector", NULL};
	json_t *c = json_object(), *t = json_object();
	bh_buf y = BH_BUF_INIT, b = BH_BUF_INIT;
	const json_t *target = json_object_get(v, "target");
	int rc = 0;
	for (size_t i = 0; tf[i]; i++) {
		const char *s = json_string_value(json_object_get(target, tf[i]));
		if (s && *s)
			json_object_set_new(t, tf[i], json_string(s));
	}
	if (*text)
		json_object_set_new(c, "patch", json_string(text));
	if (json_is_object(target))
		json_object_set(c, "target", t);
	if (kz_emit_one(c, 0, &y, err) < 0) {
		rc = -1;
		goto out;
	}
	bh_buf_printf(&b, "trouble configuring builtin PatchTransformer with config: `\n%s`: ", bh_buf_str(&y));
	const char *ts, *te;
	trim_space(text, &ts, &te);
	if (ts == te) {
		bh_buf_printf(&b, "must specify one of patch and path in\n%s", bh_buf_str(&y));
	} else {
		bh_buf_puts(&b, "unable to parse SM or JSON patch from ");
		patch_source(&b, text);
	}
	if (!bh_buf_ok(&b) || !(p->config_err = strdup(bh_buf_str(&b))))
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
out:
	json_decref(c);
	json_decref(t);
	bh_buf_free(&y);
	bh_buf_free(&b);
	return rc;
}

static char *dup_opt(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s && *s ? strdup(s) : NULL;
}

static int image_decode(const json_t *o, kz_image *im, size_t i, bh_error *err)
{
	static const char *const known[] = {"name", "newName", "newTag", "digest", NULL};
	char what[32];
	const char *dummy;
	snprintf(what, sizeof what, "images[%zu]", i);
	if (!json_is_object(o))
		return bh_error_set(err, BH_EINVAL, "%s: must be an object", what);
	if (kz_check_fields(o, known, what, err) < 0)
		return BH_EINVAL;
	for (size_t f = 0; known[f]; f++)
		if (kz_want_string(o, known[f], what, &dummy, err) < 0)
			return BH_EINVAL;
	im->name = dup_opt(o, "name");
	im->new_name = dup_opt(o, "newName");
	im->new_tag = dup_opt(o, "newTag");
	im->digest = dup_opt(o, "digest");
	if (!im->name)
		return bh_error_set(err, BH_EINVAL, "%s: name is required", what);
	{
		char *pat = malloc(strlen(im->name) + 96);
		if (!pat)
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		sprintf(pat, "^%s(:[a-zA-Z0-9_.{}-]*)?(@[a-zA-Z0-9]+([.+_-][a-zA-Z0-9]+)*:[a-zA-Z0-9_.{}-]*)?$", im->name);
		im->re = kz_re_compile(pat, 0, NULL); /* Go ignores a bad pattern: nothing matches */
		free(pat);
	}
	return 0;
}

int kustomization_decode(const json_t *spec, kustomization **out, bh_error *err)
{
	static const char *const known[] = {"patches", "images", NULL};
	static const char *const pknown[] = {"patch", "target", NULL};
	const json_t *patches = json_object_get(spec, "patches"), *images = json_object_get(spec, "images");
	kustomization *k;
	size_t i;
	json_t *v;
	*out = NULL;
	if (!json_is_object(spec))
		return bh_error_set(err, BH_EINVAL, "kustomize: must be an object");
	if (kz_check_fields(spec, known, "kustomize", err) < 0)
		return BH_EINVAL;
	if ((patches && !json_is_array(patches) && !json_is_null(patches)) ||
	    (images && !json_is_array(images) && !json_is_null(images)))
		return bh_error_set(err, BH_EINVAL, "kustomize: patches and images must be lists");
	if (json_array_size(patches) > KZ_MAX_PATCHES || json_array_size(images) > KZ_MAX_IMAGES)
		return bh_error_set(err, BH_ELIMIT, "kustomize: more than %d patches or images", KZ_MAX_PATCHES);
	if (!(k = calloc(1, sizeof *k)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	k->patches = calloc(json_array_size(patches) + 1, sizeof *k->patches);
	k->images = calloc(json_array_size(images) + 1, sizeof *k->images);
	if (!k->patches || !k->images) {
		kustomization_free(k);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	json_array_foreach(patches, i, v) {
		kz_patch *p = &k->patches[k->npatches++];
		const char *text;
		const json_t *target;
		if (!json_is_object(v) || kz_check_fields(v, pknown, "patches[]", err) < 0 ||
		    kz_want_string(v, "patch", "patches[]", &text, err) < 0) {
			if (!json_is_object(v))
				bh_error_set(err, BH_EINVAL, "must be an object");
			goto fail_patch;
		}
		target = json_object_get(v, "target");
		if (json_is_null(target))
			target = NULL;
		/* a targeted patch is read as a resource: its labels are texts */
		if (patch_parse(text ? text : "", target != NULL, p, err) < 0) {
			if (err && err->code != BH_EINVAL) /* not kustomize's refusal: bulkhead's */
				goto fail_patch;
			if (config_error(v, text ? text : "", p, err) < 0)
				goto fail_patch;
			continue;
		}
		if (target && kz_selector_decode_lazy(target, &p->target, err) < 0)
			goto fail_patch;
		if ((p->json && !p->target) || (p->smp && p->target && json_array_size(p->smp) > 1)) {
			bh_buf b = BH_BUF_INIT;
			bh_buf_puts(&b, p->json ? "must specify a target for JSON patch "
						: "Multiple Strategic-Merge Patches in one `patches` entry is not allowed to "
						  "set `patches.target` field: ");
			patch_source(&b, text);
			if (!bh_buf_ok(&b) || !(p->apply_err = strdup(bh_buf_str(&b)))) {
				bh_buf_free(&b);
				bh_error_set(err, BH_ENOMEM, "out of memory");
				goto fail_patch;
			}
			bh_buf_free(&b);
		}
		continue;
	fail_patch:
		bh_error_prefix(err, "kustomize.patches[%zu]", i);
		kustomization_free(k);
		return err ? err->code : BH_EINVAL;
	}
	json_array_foreach(images, i, v) {
		if (image_decode(v, &k->images[k->nimages++], i, err) < 0) {
			bh_error_prefix(err, "kustomize");
			kustomization_free(k);
			return err ? err->code : BH_EINVAL;
		}
	}
	*out = k;
	return 0;
}

/* ---- objects ------------------------------------------------------------------------- */

static int objects_parse(const char *text, int keep_texts, json_t **objs, bh_error *err)
{
	char **docs = NULL;
	size_t n = 0;
	int rc = 0;
	json_t *a = json_array();
	*objs = NULL;
	if (!a || split_docs(text, &docs, &n) < 0) {
		docs_free(docs, n);
		json_decref(a);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		json_t *d = NULL, *quoted = NULL, *badkey = NULL;
		char *orig = NULL;
		if (keep_texts == 1)
			kz_doc_rewrite(&docs[i], 0, &quoted, &badkey, &orig);
		if ((rc = yaml_parse_any(docs[i], strlen(docs[i]), NULL, YAML_KEEP_INTS | YAML_V3_TYPING, &d, err)) < 0) {
			json_decref(quoted);
			json_decref(badkey);
			free(orig);
			bh_error_prefix(err, "document %zu", i + 1);
			break;
		}
		if (!json_is_object(d)) {
			json_decref(quoted);
			json_decref(badkey);
			free(orig);
			if (json_is_null(d)) {
				json_decref(d);
				continue;
			}
			json_decref(d);
			rc = bh_error_set(err, BH_EINVAL, "document %zu: not a map", i + 1);
			break;
		}
		if (keep_texts == 1) {
			kz_styles_record(d, orig ? orig : docs[i], KZ_YS_UINTS);
			kz_texts_record(d, orig ? orig : docs[i], orig != NULL);
			kz_texts_record_nonjson(d, quoted, badkey);
		} else if (keep_texts == 2) { /* the integers above int64 only */
			kz_styles_record(d, docs[i], KZ_YS_UINTS);
			json_object_del(d, KZ_TEXTS);
		}
		free(orig);
		json_array_append_new(a, d);
	}
	docs_free(docs, n);
	if (rc < 0) {
		json_decref(a);
		return rc;
	}
	*objs = a;
	return 0;
}

int kz_objects_check_keys(const char *text, int annotations_too, bh_error *err)
{
	char **docs = NULL;
	size_t n = 0;
	int rc = 0;
	if (split_docs(text, &docs, &n) < 0) {
		docs_free(docs, n);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = kz_duplicate_keys(docs[i], annotations_too, err);
	docs_free(docs, n);
	return rc;
}

int kz_objects_parse(const char *text, json_t **objs, bh_error *err)
{
	return objects_parse(text, 0, objs, err);
}

int kz_objects_parse_texts(const char *text, json_t **objs, bh_error *err)
{
	return objects_parse(text, 1, objs, err);
}

int kz_objects_parse_exact(const char *text, json_t **objs, bh_error *err)
{
	return objects_parse(text, 2, objs, err);
}

/* sigs.k8s.io/yaml's Marshal of o (unfolded: no line folded), with each
 * KZ_UINT written as its digits. */
int kz_emit_one(const json_t *o, int unfolded, bh_buf *out, bh_error *err)
{
	bh_buf js = BH_BUF_INIT;
	int rc = gojson_encode(o, 0, &js, err);
	const char *u;
	if (rc) {
		bh_buf_free(&js);
		return bh_error_prefix(err, "error marshaling into JSON");
	}
	if (js.data && (u = strstr(bh_buf_str(&js), KZ_UINT_JSON))) {
		bh_buf t = BH_BUF_INIT;
		const char *p = bh_buf_str(&js);
		do {
			const char *d = u + strlen(KZ_UINT_JSON), *e = d + strspn(d, "0123456789");
			bh_buf_put(&t, p, (size_t)(u - p));
			bh_buf_put(&t, d, (size_t)(e - d));
			p = *e == '"' ? e + 1 : e;
		} while ((u = strstr(p, KZ_UINT_JSON)));
		bh_buf_puts(&t, p);
		bh_buf_free(&js);
		js = t;
		if (!bh_buf_ok(&js)) {
			bh_buf_free(&js);
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		}
	}
	rc = (unfolded ? yaml_emit_json_text_unfolded : yaml_emit_json_text)(bh_buf_str(&js), js.len, out, err);
	bh_buf_free(&js);
	return rc;
}

static int emit_objects(const json_t *objs, int unfolded, bh_buf *out, bh_error *err)
{
	size_t i;
	json_t *o;
	json_array_foreach(objs, i, o) {
		if (i)
			bh_buf_puts(out, "---\n");
		if (kz_emit_one(o, unfolded, out, err) < 0)
			return err ? err->code : BH_EINVAL;
	}
	return bh_buf_ok(out) ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory");
}

int kz_objects_emit(const json_t *objs, bh_buf *out, bh_error *err)
{
	return emit_objects(objs, 0, out, err);
}

int kz_objects_emit_unfolded(const json_t *objs, bh_buf *out, bh_error *err)
{
	return emit_objects(objs, 1, out, err);
}
