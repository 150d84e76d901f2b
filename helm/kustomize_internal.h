/* helm/kustomize_internal.h — shared by helm/kustomize*.c only. */
#ifndef BH_KUSTOMIZE_INTERNAL_H
#define BH_KUSTOMIZE_INTERNAL_H

#include <jansson.h>

#include "helm/kustomize.h"
#include "lib/buf.h"
#include "lib/goregex.h"
#include "lib/error.h"

/* Strategic merge of patch into obj (kyaml merge2 with kustomize's
 * prepend-list option): *out is the merged object (new reference), or NULL
 * when the patch deletes it. The object keeps its kind, name and
 * namespace. ostyles and pstyles (either may be NULL) are the style records
 * of obj and patch: {JSON pointer: [quoted, text or null]} for each scalar
 * kyaml holds quoted (single, double, literal or folded, no tag) or, in a
 * patch, whose YAML text is not what its JSON value prints. A patch's
 * scalar that replaces a quoted one is its text as a string (kyaml gives
 * it the replaced node's style). *styles is the result's record (new
 * reference, its quoted scalars), or NULL. */
int kz_smp_apply(const json_t *obj, const json_t *ostyles, const json_t *patch, const json_t *pstyles, json_t **out,
		 json_t **styles, bh_error *err);

/* RFC 6901: the token of key appended to path (a buffer of KZ_PATH_MAX
 * bytes, len of them used); the new length, or 0 when it does not fit. */
#define KZ_PATH_MAX 8192
size_t kz_path_push(char *path, size_t len, const char *key);

/* The text of a scalar as YAML printed it ("80", "true", "x"). */
void kz_scalar_text(const json_t *v, char *buf, size_t n);

/* o's string member k, or "" (absent or not a string). */
const char *kz_sget(const json_t *o, const char *k);

/* kustomize's name reference transformer on one object: kustomize ends
 * every build with it, and it fails on an object a patch left in a shape
 * its walk of the default referrer field specs refuses (a list of lists
 * for containers, a scalar volume, a RoleBinding subject that is no map):
 * 0, or an error with kustomize's text. Names are never changed here. */
int kz_nameref_check(const json_t *o, bh_error *err);

/* The transformer's renames: a JSON patch may rename an object (kustomize
 * keeps its previous ids in build annotations), and each reference, in
 * the default referrer field specs, to a previous name of an object of the
 * referral's kind that the referrer can see becomes its current name (a
 * map reference's namespace too). Several such objects that differ: the
 * error "found multiple possible referrals". */
int kz_nameref_rename(json_t *objs, bh_error *err);


/* ---- a decoded kustomization (kustomize_decode.c) ---------------------- */

typedef struct kz_patch {
	json_t *smp;  /* array of strategic merge patch documents, or NULL */
	json_t *json; /* JSON 6902 operations, or NULL */
	kz_selector *target;
	/* kustomize's errors, found when decoding, given as kustomize gives
	 * them when it builds: config_err when the PatchTransformers are
	 * configured (before any patch runs), apply_err when this patch runs;
	 * NULL when none */
	char *config_err, *apply_err;
	/* a patch with no strategic merge document whose text is no JSON
	 * patch: jsonpatch's decoding error, given at the first object the
	 * patch selects (NULL when none) */
	char *ops_err;
} kz_patch;

typedef struct kz_image {
	char *name, *new_name, *new_tag, *digest;
	goregex *re; /* kustomize's IsImageMatched pattern; NULL never matches */
} kz_image;

struct kustomization {
	kz_patch *patches;
	size_t npatches;
	kz_image *images;
	size_t nimages;
};
/* sigs.k8s.io/yaml's Marshal of o (unfolded: no line folded), with each
 * KZ_UINT written as its digits. */
int kz_emit_one(const json_t *o, int unfolded, bh_buf *out, bh_error *err);

/* ---- selection (kustomize_select.c) ------------------------------------ */

/* A Go regexp (anchored: ^(?:pattern)$); NULL with err set (Go's
 * "error parsing regexp: ..." text) when invalid. */
goregex *kz_re_compile(const char *pattern, int anchor, bh_error *err);
int kz_re_match(goregex *re, const char *s);
void kz_re_free(goregex *re);
/* o's members are all in known (NULL-terminated), else an error naming one. */
int kz_check_fields(const json_t *o, const char *const *known, const char *what, bh_error *err);
/* o's member k: *out its string, NULL when absent or null; an error when
 * it is no string. */
int kz_want_string(const json_t *o, const char *k, const char *what, const char **out, bh_error *err);
/* ResId.EffectiveNamespace: "default" for a namespaced object without one. */
const char *kz_effective_namespace(const json_t *obj);
/* The annotations kustomize keeps on a resource while it builds (the
 * first three: previousKinds, previousNames, previousNamespaces). */
extern const char *const kz_build_annotations[];
/* Field i of a comma-separated list (a previous-ids annotation) in buf;
 * 0 when it has no field i. */
int kz_csv_at(const char *csv, size_t i, char *buf, size_t n);
/* kz_selector_decode keeping what kustomize's Select refuses (a regular
 * expression that does not compile, a label or annotation selector that
 * does not parse) for kz_selector_select to give, as Select does. */
int kz_selector_decode_lazy(const json_t *t, kz_selector **out, bh_error *err);
/* kz_selector_match of a lazy selector: 1, 0, or -1 with Select's error
 * (a regular expression's at once, a label or an annotation selector's at
 * an object of the target's ids). */
int kz_selector_select(const kz_selector *s, const json_t *obj, bh_error *err);
/* The selector as types.Selector's String() prints it. */
const char *kz_selector_text(const kz_selector *s);
/* kz_selector_match's group/version/kind/name/namespace part. */
int kz_selector_ids_match(const kz_selector *s, const json_t *obj);

/* ---- the texts of scalars (kustomize_texts.c) -------------------------- */

/* kustomize (kyaml) reads labels and annotations as the text of their YAML
 * nodes: 1.50 is "1.50", 0x10 "0x10", ~ "~", True "True", !!binary aGk=
 * "aGk=", a map or list "". An object read by kz_objects_parse_texts (or a
 * strategic merge patch) keeps, under KZ_TEXTS, each value whose text is not
 * what its JSON value prints: {"labels"|"annotations": {key: [value,
 * text]}}. The text stands for the value while the value is still the one
 * recorded; a JSON patch makes kustomize go through JSON, so the object's
 * texts are dropped then. kustomize_apply removes them at the end. */
#define KZ_TEXTS "\001kustomize-texts"
#define KZ_TEXTS_MERGE_DEPTH 16
/* An integer above int64 that yaml.v3 reads as a uint64 (kustomize keeps it
 * exactly; lib/yaml reads a float64) is held, while kustomize works on the
 * object, as a string KZ_UINT "digits"; kz_objects_emit writes the digits. */
#define KZ_UINT "\001kz-uint:"
#define KZ_UINT_JSON "\"\\u0001kz-uint:"

/* "labels", "annotations", NULL */
extern const char *const kz_text_fields[];

/* The text kustomize reads for v, the value of key in metadata.FIELD of an
 * object whose KZ_TEXTS record for FIELD is rec (or NULL); NULL when v is
 * NULL. buf holds a text made here. */
const char *kz_value_text(const json_t *v, const char *key, const json_t *rec, char *buf, size_t n);
/* obj's KZ_TEXTS record field ("labels", "annotations", "styles", ...). */
const json_t *kz_texts_of(const json_t *obj, const char *field);

#define KZ_YS_PATCH 1 /* a patch: the texts of its scalars too */
#define KZ_YS_UINTS 2 /* integers above int64 become KZ_UINT */
/* Sets obj's style record (KZ_TEXTS "styles") from the YAML text it was
 * read from (flags KZ_YS_*). */
void kz_styles_record(json_t *obj, const char *text, int flags);
/* The style record of obj as kustomize reads it after writing it as JSON. */
void kz_styles_from_json(json_t *obj);
/* Records under KZ_TEXTS the texts of obj's labels and annotations that
 * its JSON values do not print (rewritten: text is from before
 * kz_doc_rewrite changed it). */
void kz_texts_record(json_t *obj, const char *text, int rewritten);
/* Plain scalars kustomize reads otherwise than our reader (labels_too:
 * a label's .inf/.nan as well as an annotation's) rewritten as quoted
 * strings in *doc (its first text then in *orig, else NULL); what
 * kustomize cannot write as JSON in *quoted and *badkey (new references
 * or NULL), for kz_texts_record_nonjson, which takes them. */
void kz_doc_rewrite(char **doc, int labels_too, json_t **quoted, json_t **badkey, char **orig);
void kz_texts_record_nonjson(json_t *obj, json_t *quoted, json_t *badkey);
/* kustomize's resources are unmarshalled into maps (yaml.v3, unique
 * keys): a key twice in a mapping of the document text fails, but in its
 * metadata.annotations unless annotations_too (a kustomize build rebuilds
 * them; the last one counts). 0, or the error as yaml.v3 words it. */
int kz_duplicate_keys(const char *text, int annotations_too, bh_error *err);
/* A plain mapping key yaml.v3 reads as no string; the error kustomize's
 * output then fails with. */
int kz_key_nonstring(const char *k, size_t n);
int kz_badkey_error(const char *key, bh_error *err);
/* What a JSON patch refuses as encoding/json refuses it (.inf/.nan
 * annotations, keys that are no strings, a list of annotations). */
int kz_json_patch_nonjson(const json_t *o, bh_error *err);
/* The KZ_TEXTS record after a strategic merge of patch (record prec) into
 * an object (record orec); NULL when empty. */
json_t *kz_texts_merge(const json_t *orec, const json_t *prec, const json_t *patch);
/* While a merge runs, a scalar whose YAML node kyaml would hold quoted
 * (single, double, literal or folded style, no tag), or whose patch text
 * is not what its JSON value prints, is boxed: {KZ_BOX: [value, quoted,
 * text or null, typed]} (typed: a patch's tag that its text does not
 * resolve to, as !!float 1; or a tagged string). */
#define KZ_BOX "\001kz-style"
/* kyaml's "wrong node kind: expected EXPECTED but got KIND: node
 * contents:\n..." for node (its kind and its text). */
int kz_kind_error(bh_error *err, const char *expected, const json_t *node);
/* Each value of map becomes the text kustomize reads (kz_value_text). */
void kz_values_to_text(json_t *map, const json_t *rec);

#endif
