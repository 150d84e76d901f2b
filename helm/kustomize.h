/* helm/kustomize.h — the part of kustomize that Flux's post-renderers use
 * (`.spec.postRenderers[].kustomize`): `patches` (strategic merge patches
 * with kyaml merge2's rules, and RFC 6902 JSON patches) with `target`
 * selectors, then `images`, over a list of objects — as `kubectl kustomize`
 * (kustomize v5.7) does, which is what the conformance tests compare with.
 *
 * A kustomization is decoded once from the HelmRelease's JSON (untrusted:
 * sizes and counts are limited, regular expressions compiled with PCRE2 and
 * refused when invalid), then applied to any number of object lists. Objects
 * are JSON objects as lib/yaml reads them (YAML_KEEP_INTS). */
#ifndef BH_KUSTOMIZE_H
#define BH_KUSTOMIZE_H

#include <jansson.h>

#include "lib/buf.h"
#include "lib/error.h"

#define KZ_MAX_PATCHES 256          /* patches per kustomization */
#define KZ_MAX_IMAGES 256           /* images per kustomization */
#define KZ_MAX_PATCH_BYTES (1 << 20) /* text of one patch */
#define KZ_MAX_DEPTH 100            /* nesting walked by a merge */

typedef struct kustomization kustomization;
typedef struct kz_selector kz_selector;

/* Decodes {"patches":[{"patch":"...","target":{...}}],"images":[{"name",
 * "newName","newTag","digest"}]}; unknown fields and values of the wrong
 * type are refused by name. What kustomize itself refuses when it builds
 * (a patch that is neither a strategic merge nor a JSON 6902 patch, a JSON
 * patch without a target, a target's regular expression or label selector
 * that does not parse) is not an error here: kustomize_apply gives it, with
 * kustomize's text, where kustomize's build gives it. *out is NULL on
 * error. */
int kustomization_decode(const json_t *spec, kustomization **out, bh_error *err);
void kustomization_free(kustomization *k);

/* Applies the patches in order, then the images, to objs (an array of
 * objects, changed in place; a `$patch: delete` removes an object). An
 * error is kustomize's text (what `kubectl kustomize` prints after
 * "error: "), which Flux's post-renderer returns as it is. */
int kustomize_apply(const kustomization *k, json_t *objs, bh_error *err);

/* kustomize_apply of k[0], ..., k[n-1] in order, as a HelmRelease's
 * post-renderers run: each reads the text the one before printed
 * (kz_objects_emit, then kz_objects_parse_texts). An error is the failing
 * one's alone, as Flux's Combined post-renderer returns it. */
int kustomize_apply_chain(kustomization *const *k, size_t n, json_t *objs, bh_error *err);

/* A target selector ({group, version, kind, name, namespace regular
 * expressions, anchored; labelSelector, annotationSelector}), also used by
 * drift detection's ignore rules. */
int kz_selector_decode(const json_t *target, kz_selector **out, bh_error *err);
int kz_selector_match(const kz_selector *s, const json_t *obj);
void kz_selector_free(kz_selector *s);

/* What Flux's post-renderers check when they print the objects of text
 * (kustomize's resource map unmarshals each into a map with yaml.v3's
 * unique keys): a mapping key twice in a document fails with yaml.v3's
 * text ("map[string]interface {}(nil): yaml: unmarshal errors:" and a line
 * per pair, counted in the document). With annotations_too 0, keys twice
 * in metadata.annotations pass (a kustomize build rebuilds them: the last
 * one counts); Flux's commonMetadata and origin labels alone do not. */
int kz_objects_check_keys(const char *text, int annotations_too, bh_error *err);
/* The objects of a multi-document YAML text (Helm's document separator;
 * empty documents skipped; a document that is not a map is an error naming
 * it). *objs is a new array. */
int kz_objects_parse(const char *text, json_t **objs, bh_error *err);
/* kz_objects_parse for kustomize_apply: each object also keeps, in a
 * member of its own, the YAML text of its label and annotation values
 * (kustomize reads them as text: an annotation 1.50 is written "1.50", 0x10
 * "0x10"). kustomize_apply uses that member and removes it, so objects read
 * this way go through kustomize_apply before anything else reads them. */
int kz_objects_parse_texts(const char *text, json_t **objs, bh_error *err);
/* kz_objects_parse keeping an integer above int64 that yaml.v3 reads as a
 * uint64 exactly, for kz_objects_emit* (kustomize's resource map writes its
 * digits; lib/yaml reads a float64): it is held as a string of its own
 * form, so nothing else reads these objects. */
int kz_objects_parse_exact(const char *text, json_t **objs, bh_error *err);
/* kustomize's output: each object printed as sigs.k8s.io/yaml prints it,
 * separated by "---\n". */
int kz_objects_emit(const json_t *objs, bh_buf *out, bh_error *err);
/* kz_objects_emit's text as kyaml's kio.StringAll prints it again (Helm 4
 * splitting a post-renderer's output): the same, with no line folded. */
int kz_objects_emit_unfolded(const json_t *objs, bh_buf *out, bh_error *err);

/* RFC 6902 patch (a JSON array of operations) applied to *doc (replaced on
 * success); evanphx/json-patch v4 semantics, as kustomize. */
int kz_json_patch(json_t **doc, const json_t *ops, bh_error *err);

/* RFC 6901: the value at pointer in doc (borrowed), or NULL. */
json_t *kz_json_pointer_get(json_t *doc, const char *pointer);
/* Removes the value at pointer; 0, or BH_ENOTFOUND. "" is not removable. */
int kz_json_pointer_remove(json_t *doc, const char *pointer);

#endif
