/* tmpl/toml.h — TOML for Helm's toToml/fromToml, as BurntSushi/toml v1.6.0
 * encodes Go values and decodes documents into map[string]interface{}
 * (integers int64, floats float64, datetimes time.Time, arrays of tables
 * []map[string]interface {}). The decoder is a pure function of its input
 * with size and nesting limits. */
#ifndef TMPL_TOML_H
#define TMPL_TOML_H

#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"
#include "tmpl/value.h"

#define TOML_MAX_BYTES ((size_t)16 << 20)
/* Nesting of arrays and inline tables: BurntSushi's recursion takes a
 * million nested arrays (helm v4.1.4 runs out of Go's 1 GB stack between
 * 500,000 and 1,000,000); toml_decode keeps them on the heap. */
#define TOML_MAX_DEPTH 1000000
/* Parts of a key, with the keys of the inline tables around it: each part
 * costs BurntSushi (and toml_decode) the length of the key so far. */
#define TOML_MAX_KEY_PARTS 5000
/* Nesting of the tables toml_encode writes (its key path) */
#define TOML_ENCODE_MAX_DEPTH 200

/* Appends the encoding of v. BH_EINVAL with the encoder's message ("toml:
 * top-level values must be Go maps or structs", ...) on failure. */
int toml_encode(const tmpl_value *v, bh_buf *out, bh_error *err);

/* BurntSushi's dblQuotedReplacer: s with '"', '\\' and control bytes
 * escaped as inside a TOML basic string (\b \t \n \f \r, else \u00XX). */
void toml_dbl_quoted(bh_buf *b, const char *s, size_t n);

/* Parses text into a map value allocated in a. BH_EPARSE with the
 * decoder's message ("toml: line 1: expected '.' or '=', but got 't'
 * instead"), BH_ELIMIT for limits. */
int toml_decode(tmpl_arena *a, const char *text, size_t len, tmpl_value *out, bh_error *err);

/* Helm's fromToml: the document's map, or when it is refused (a parse error
 * or a limit) the map {"Error": message}, the message with all its bytes
 * (BurntSushi's %c of EOF puts a NUL byte in a few). 0, or BH_ENOMEM. */
int toml_from_toml(tmpl_arena *a, const char *text, size_t len, tmpl_value *out, bh_error *err);

#endif
