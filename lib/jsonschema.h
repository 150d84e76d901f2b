/* lib/jsonschema.h — values.schema.json validation as Helm 4 does it
 * (santhosh-tekuri/jsonschema v6: drafts 4, 6, 7, 2019-09 and 2020-12,
 * chosen by "$schema", 2020-12 when absent), with its error messages.
 *
 * Supported: type, enum, const, properties, patternProperties,
 * additionalProperties, required, minProperties/maxProperties, propertyNames,
 * dependencies, dependentRequired, dependentSchemas, items, additionalItems,
 * prefixItems, contains/minContains/maxContains, minItems/maxItems,
 * uniqueItems, minimum/maximum/exclusiveMinimum/exclusiveMaximum (draft-04
 * boolean form too), multipleOf (exact decimal arithmetic), minLength/
 * maxLength, pattern and patternProperties (Go RE2 syntax checked, then
 * PCRE2 in UTF mode with `$` only at the end), format (asserted for drafts
 * 4-7 as v6 does: date-time, date, time, duration, email, hostname, ipv4,
 * ipv6, uuid, uri, uri-reference, iri, iri-reference, json-pointer,
 * relative-json-pointer, regex — messages as v6/Go print them),
 * allOf/anyOf/oneOf/not, if/then/else, $ref/$dynamicRef/$recursiveRef within
 * the document (JSON pointers, $defs/definitions, $anchor, "#name" ids, the
 * document's own $id), unevaluatedProperties/unevaluatedItems.
 * Remote and file $ref are refused with an error (nothing is fetched);
 * "urn:" references are permissive (true), as in Helm. Like Helm, the
 * schema is first checked against its draft's meta-schema (json-schema.org
 * documents, bundled in lib/jsonschema_meta.c).
 * Numbers in messages are printed the way v6's golang.org/x/text printer
 * does ("got 1,234", "got 2×10⁰⁶").
 *
 * Compile errors: err->msg is what Helm prints after "<chart>:\n" (no final
 * newline) for schemas the meta-schema rejects ("\"file:///values.schema.json#\"
 * is not valid against metaschema: jsonschema validation failed with ..."
 * followed by the "- at" lines) and for references Helm would fetch
 * ("failing loading \"https://...\": ..."); other failures read
 * "jsonschema: ...".
 *
 * Output of jsonschema_validate (appended to `errors`): exactly the text
 * Helm prints for one chart after its "<chart-name>:\n" line, e.g.
 *   "- at '/log/level': value must be one of 'TRACE', 'DEBUG'\n"
 * (nested causes are indented by two spaces per level). The caller prints
 * "values don't meet the specifications of the schema(s) in the following
 * chart(s):\n" once, then "<chart>:\n" + this text for each failing chart. */
#ifndef BH_JSONSCHEMA_H
#define BH_JSONSCHEMA_H

#include <jansson.h>
#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"

typedef struct jsonschema jsonschema;

#define JSONSCHEMA_MAX_BYTES ((size_t)16 << 20)
#define JSONSCHEMA_MAX_DEPTH 256     /* nesting of schema and of instance */
#define JSONSCHEMA_MAX_STEPS 5000000 /* subschema evaluations per validation */

/* Compiles the text of a values.schema.json (numbers keep their written
 * form, as Helm's UseNumber decoding does, so messages print `1.0` as `1.0`).
 * Errors: BH_EPARSE (not JSON), BH_EINVAL (bad regex, unresolvable or remote
 * $ref, unknown $schema), BH_ELIMIT. *out is freed with jsonschema_free(). */
int jsonschema_compile_text(const char *text, size_t len, jsonschema **out, bh_error *err);

/* Same from a parsed schema (numbers print as Go prints float64/int64). */
int jsonschema_compile(const json_t *schema, jsonschema **out, bh_error *err);

void jsonschema_free(jsonschema *s);

/* Validates values (a Helm values tree: json_real/json_integer numbers).
 * Returns 0 when valid, 1 when not (violations appended to errors as
 * described above), or a negative BH_E* code (BH_ELIMIT when the step or
 * depth budget ran out; err says so). */
int jsonschema_validate(const jsonschema *s, const json_t *values, bh_buf *errors, bh_error *err);

#endif
