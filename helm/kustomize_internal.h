/* helm/kustomize_internal.h — shared by helm/kustomize*.c only. */
#ifndef BH_KUSTOMIZE_INTERNAL_H
#define BH_KUSTOMIZE_INTERNAL_H

#include <jansson.h>

#include "lib/error.h"

/* Strategic merge of patch into obj (kyaml merge2 with kustomize's
 * prepend-list option): *out is the merged object (new reference), or NULL
 * when the patch deletes it. The object keeps its kind, name and
 * namespace. */
int kz_smp_apply(const json_t *obj, const json_t *patch, json_t **out, bh_error *err);

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

#endif
