/* helm/objmeta.h — the check kubectl's resource builder (cli-runtime's
 * metadataValidatingDecoder) makes on every object Helm builds from a
 * manifest: its apiVersion, kind and metadata must decode into Go's
 * TypeMeta and ObjectMeta. Helm 4 sorts manifests with numbers and booleans
 * in those fields turned into strings, but building the objects (before any
 * hook or apply) then fails, and this gives its text: `json: cannot
 * unmarshal number into Go struct field ObjectMeta.metadata.annotations of
 * type string` (encoding/json: the first error in key order; null is no
 * error). */
#ifndef BH_HELM_OBJMETA_H
#define BH_HELM_OBJMETA_H

#include <jansson.h>

#include "lib/error.h"

/* 0 when obj (a parsed manifest document) decodes; else BH_EINVAL and
 * err->msg the Go error text. */
int objmeta_check(const json_t *obj, bh_error *err);

#endif
