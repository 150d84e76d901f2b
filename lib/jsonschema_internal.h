/* lib/jsonschema_internal.h — internal to lib/jsonschema*.c. */
#ifndef BH_JSONSCHEMA_INTERNAL_H
#define BH_JSONSCHEMA_INTERNAL_H

#include "lib/error.h"
#include "lib/gojson.h"

/* The bundled meta-schema for a draft (4, 6, 7, 2019, 2020) and the URL v6
 * names it by in messages ("...schema#"). */
const char *jsonschema_meta_text(int draft, const char **url);

/* The meta-schema check of a values.schema.json's tree for its draft, as
 * v6 does it: 0, or BH_EINVAL with v6's "is not valid against metaschema"
 * message and its "- at" lines (BH_ELIMIT, BH_ENOMEM, or the decoding
 * error of a number out of float64 range). */
int jsonschema_meta_check(const gojson_node *root, int draft, bh_error *err);

/* 1 when the check above surely passes, found by one cheap walk
 * (lib/jsonschema_quick.c); 0 when not sure (then run the check). */
int jsonschema_meta_quick(const gojson_node *root, int draft);

#endif
