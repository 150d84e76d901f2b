/* lib/jsonschema_internal.h — internal to lib/jsonschema*.c. */
#ifndef BH_JSONSCHEMA_INTERNAL_H
#define BH_JSONSCHEMA_INTERNAL_H

#include <string.h>

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

/* n's text is the literal lit (its length already checked): memcmp of a
 * constant size, which the compiler expands in place */
#define JSONSCHEMA_TEXT_IS(n, lit) (memcmp((n)->text, lit, sizeof lit - 1) == 0)

/* The index of a string node's text among the seven type names "null",
 * "boolean", "number", "integer", "string", "array", "object" (in that
 * order), found by its length; -1 when it is none of them. */
static inline int jsonschema_type_index(const gojson_node *n)
{
	if (n->type != GOJSON_STRING)
		return -1;
	switch (n->len) {
	case 4: return JSONSCHEMA_TEXT_IS(n, "null") ? 0 : -1;
	case 5: return JSONSCHEMA_TEXT_IS(n, "array") ? 5 : -1;
	case 6:
		return JSONSCHEMA_TEXT_IS(n, "number") ? 2
		       : JSONSCHEMA_TEXT_IS(n, "string") ? 4
		       : JSONSCHEMA_TEXT_IS(n, "object") ? 6
							 : -1;
	case 7:
		return JSONSCHEMA_TEXT_IS(n, "boolean") ? 1 : JSONSCHEMA_TEXT_IS(n, "integer") ? 3 : -1;
	}
	return -1;
}

#endif
