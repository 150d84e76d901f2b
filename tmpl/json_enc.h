/* tmpl/json_enc.h — Go's encoding/json Marshal of template values (private
 * helper of the JSON and YAML function families).
 *
 * Writes a tmpl_value as json.Marshal / json.MarshalIndent(v, "", "  ")
 * would: map keys sorted bytewise, objects through their class's to_json
 * (Go struct field order kept when the class says json_struct), float64 in
 * Go's form, []byte as base64, NaN/Inf refused with Go's message
 * ("json: unsupported value: NaN"). */
#ifndef TMPL_JSON_ENC_H
#define TMPL_JSON_ENC_H

#include "lib/buf.h"
#include "lib/error.h"
#include "lib/gojson.h" /* GOJSON_INDENT, GOJSON_NO_HTML_ESCAPE */
#include "tmpl/value.h"

/* Appends the encoding of v to out. 0, or BH_EINVAL (unsupported value or
 * type) / BH_ELIMIT (nesting deeper than GOJSON_MAX_DEPTH) with err set. */
int tmpl_json_encode(const tmpl_value *v, int flags, bh_buf *out, bh_error *err);

#endif
