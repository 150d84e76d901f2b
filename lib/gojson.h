/* lib/gojson.h — JSON exactly as Go's encoding/json writes and reads it.
 *
 * Encoding (what Helm's toJson/toPrettyJson/toRawJson and sigs.k8s.io/yaml
 * produce): object keys sorted bytewise, Go string escaping (HTML-safe
 * \u003c \u003e \u0026 unless GOJSON_NO_HTML_ESCAPE, \u2028/\u2029, invalid
 * UTF-8 as \ufffd), float64 as Go formats it ('f', or 'e' when the exponent
 * is < -6 or >= 21, "e-07" shortened to "e-7"), json_integer as int64.
 *
 * Decoding (Go's json.Unmarshal into interface{}): strict RFC 8259 text,
 * every number a float64 (json_real) unless GOJSON_KEEP_INTS, duplicate keys
 * last-wins, invalid UTF-8 in strings replaced by U+FFFD, error messages in
 * Go's words ("invalid character 'x' looking for beginning of value",
 * "unexpected end of JSON input", ...), with size and depth limits.
 *
 * The lower-level tree (gojson_node) keeps number literals as text; the
 * YAML printer uses it to reproduce sigs.k8s.io/yaml.JSONToYAML. */
#ifndef BH_GOJSON_H
#define BH_GOJSON_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/error.h"

/* gojson_encode flags */
#define GOJSON_INDENT 1         /* json.MarshalIndent(v, "", "  ") */
#define GOJSON_NO_HTML_ESCAPE 2 /* Encoder.SetEscapeHTML(false) (toRawJson) */

/* Appends the Go encoding of v to out (no trailing newline). Fails with
 * BH_EINVAL and Go's message ("json: unsupported value: NaN") for NaN/Inf,
 * BH_ELIMIT when nested deeper than GOJSON_MAX_DEPTH. */
int gojson_encode(const json_t *v, int flags, bh_buf *out, bh_error *err);

/* Appends one Go-escaped JSON string literal (with quotes) for s[0..n). */
void gojson_quote(bh_buf *out, const char *s, size_t n, int flags);

/* Appends strconv/encoding-json formatting of a float64 (no NaN/Inf). */
void gojson_format_float(bh_buf *out, double v);

/* 1 when a and b are equal as Go's reflect.DeepEqual sees decoded
 * interface{} values: numbers by value whatever their json type (1 == 1.0),
 * objects by key set (keys may hold NUL bytes), arrays in order. */
int gojson_equal(const json_t *a, const json_t *b);

#define GOJSON_MAX_DEPTH 1000
#define GOJSON_MAX_BYTES ((size_t)64 << 20)

typedef struct gojson_limits {
	size_t max_bytes; /* 0 = GOJSON_MAX_BYTES */
	int max_depth;    /* 0 = GOJSON_MAX_DEPTH */
} gojson_limits;

/* gojson_decode flags */
#define GOJSON_KEEP_INTS 1 /* integral literals within int64 -> json_integer */

/* Decodes one JSON value (any kind; surrounding whitespace allowed) into a
 * new json_t (caller json_decref()s). Errors: BH_EPARSE with Go's message,
 * BH_ELIMIT for size/depth, BH_EINVAL for numbers out of float64 range
 * ("json: cannot unmarshal number 1e400 into Go value of type float64"). */
int gojson_decode(const char *text, size_t len, const gojson_limits *lim, int flags,
		  json_t **out, bh_error *err);

/* fromJson / fromJsonArray: json.Unmarshal into map[string]interface{}
 * (GOJSON_WANT_MAP) or []interface{} (GOJSON_WANT_LIST). JSON null gives
 * json null for both: Go sets the map or slice to nil. Numbers are
 * float64. A value of another kind fails with Go's "json: cannot unmarshal
 * array into Go value of type map[string]interface {}" (*out NULL). A
 * number past float64's range fails as Go's does, after the whole value is
 * decoded: BH_EINVAL with the first such number's error in err, and *out
 * holding the value with those numbers as null (the caller json_decref()s
 * it; Helm's fromJson keeps it, fromJsonArray does not). */
#define GOJSON_WANT_MAP 1
#define GOJSON_WANT_LIST 2
int gojson_decode_as(const char *text, size_t len, const gojson_limits *lim, int want,
		     json_t **out, bh_error *err);

enum gojson_type {
	GOJSON_NULL, GOJSON_FALSE, GOJSON_TRUE, GOJSON_NUMBER, GOJSON_STRING,
	GOJSON_ARRAY, GOJSON_OBJECT
};

typedef struct gojson_node gojson_node;
struct gojson_node {
	enum gojson_type type;
	char *text;          /* STRING: decoded UTF-8 (NUL-terminated, may hold NULs);
			      * NUMBER: the literal as written */
	size_t len;          /* length of text */
	gojson_node *items;  /* ARRAY: n values; OBJECT: 2n nodes (key, value, ...) */
	size_t n;
	uint64_t keys;       /* OBJECT: gojson_key_bit of each key, or'ed (a
			      * lookup that misses is mostly one test) */
};

/* One bit of a key's length and first and last bytes. */
static inline __attribute__((always_inline)) uint64_t gojson_key_bit(const char *k, size_t len)
{
	unsigned h = (unsigned)len * 7u;
	if (len)
		h += (unsigned char)k[0] + 3u * (unsigned char)k[len - 1];
	return (uint64_t)1 << (h & 63);
}

/* Parses text into a tree (same syntax rules and messages as gojson_decode).
 * *out is freed with gojson_tree_free(), all at once: its nodes' texts and
 * item arrays are the tree's (not freed, changed in size or kept apart). */
int gojson_tree_load(const char *text, size_t len, const gojson_limits *lim,
		     gojson_node **out, bh_error *err);
void gojson_tree_free(gojson_node *root);

/* What a loaded tree holds, counted while it was read: its values (the
 * root, array items and object members' values; not keys), the deepest of
 * them (the root is at depth 1), and its number literals with an exponent
 * or of 300 characters or more (the only ones a float64 may not hold). */
typedef struct gojson_tree_info {
	size_t values;
	int max_depth;
	size_t long_numbers;
} gojson_tree_info;

/* The info of a tree from gojson_tree_load(_yaml) (its root), the tree's. */
const gojson_tree_info *gojson_tree_info_of(const gojson_node *root);

/* The json_t gojson_decode() makes of the text a tree was loaded from
 * (caller json_decref()s), with the same flags and errors. */
int gojson_tree_decode(const gojson_node *root, int flags, json_t **out, bh_error *err);

/* The same, but strings are read the way goyaml reads a double-quoted YAML
 * scalar: raw line breaks (U+0085, U+2028, U+2029) fold as YAML line breaks
 * (NEL and the blanks around it become one space). Used to reproduce
 * sigs.k8s.io/yaml.JSONToYAML, which parses JSON text as YAML. */
int gojson_tree_load_yaml(const char *text, size_t len, const gojson_limits *lim,
			  gojson_node **out, bh_error *err);

#endif
