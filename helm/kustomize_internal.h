/* helm/kustomize_internal.h — shared by helm/kustomize*.c only. */
#ifndef BH_KUSTOMIZE_INTERNAL_H
#define BH_KUSTOMIZE_INTERNAL_H

#include <jansson.h>

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

#endif
