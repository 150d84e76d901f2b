/* lib/yaml.h — YAML the way Helm reads and prints it.
 *
 * Reading: what sigs.k8s.io/yaml.Unmarshal gives Helm (goyaml.v2 YAML 1.1
 * typing -> JSON -> Go json.Unmarshal): every number a float64 (json_real),
 * y/yes/on/... booleans, timestamps kept as strings, merge keys, anchors and
 * aliases (with an expansion budget), duplicate keys last-wins, non-string
 * keys turned into strings, NaN/Inf refused (reported in json.Marshal
 * order). yaml_parse_any reads the first document only (goyaml.v2 Unmarshal);
 * yaml_parse_values reads every document of a values file and deep-merges
 * them, as Helm 4's loader does. Errors read like Helm's: "error converting
 * YAML to JSON: yaml: line 3: mapping values are not allowed in this
 * context" (callers add their own prefix such as "cannot load values.yaml").
 * Checked byte for byte against helm v4.1.4 on the conformance vectors, the
 * corpus values files and randomized documents.
 *
 * Printing: sigs.k8s.io/yaml.Marshal / JSONToYAML, byte for byte (goyaml.v2
 * emitter: natural key order, YAML 1.1-aware quoting, literal blocks, 80-column
 * folding), which is what Helm's toYaml prints before trimming the final
 * newline. */
#ifndef BH_YAML_H
#define BH_YAML_H

#include <jansson.h>
#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"

#define YAML_MAX_BYTES ((size_t)64 << 20) /* input size */
#define YAML_MAX_DEPTH 1000               /* nesting of collections */
#define YAML_MAX_NODES 2000000            /* values produced, incl. alias expansion */
#define YAML_MAX_ERROR_VALUE 4096         /* bytes of a value quoted in an error
					   * message ("invalid map key: ..."),
					   * then "..." */

/* Limits for parsing untrusted YAML; a NULL pointer or a 0 field means the
 * default above. */
typedef struct yaml_limits {
	size_t max_bytes;
	size_t max_depth;
	size_t max_nodes;
} yaml_limits;

/* Parses a values file (Helm 4 LoadValues): documents split at "---" lines
 * (k8s.io YAMLReader rules), each unmarshalled, then deep-merged in order.
 * *out is a new JSON object (caller json_decref()s). Empty documents (or only
 * comments, or `~`) add nothing; a document whose top level is not a mapping
 * is an error (BH_EINVAL, Helm's json.Unmarshal message). Error messages
 * start with "cannot unmarshal yaml document: " or "error reading yaml
 * document: " exactly as Helm's (the caller adds "cannot load values.yaml: "
 * or "failed to parse FILE: " — and must not split documents itself).
 * Syntax errors: BH_EPARSE; limits: BH_ELIMIT. */
int yaml_parse_values(const char *text, size_t len, const yaml_limits *lim,
		      json_t **out, bh_error *err);

/* yaml_parse_values and yaml_find_duplicates (values=1) in one pass: *out
 * as the first returns it, and *dups a new array of the second's texts
 * (NULL when it could not be made). Errors as yaml_parse_values words them. */
int yaml_parse_values_dups(const char *text, size_t len, const yaml_limits *lim,
			   json_t **out, json_t **dups, bh_error *err);

/* Duplicate mapping keys (Helm reads them silently, the later value wins;
 * helm lint's strict Chart.yaml parse reports them): parses text as a values
 * file (values=1: every document) or as one document, and sets *dups to a
 * new JSON array of goyaml.v2 strict-mode texts, one per key that repeats an
 * earlier key of the same mapping, e.g. "line 3: key \"a\" already set in
 * map" (lines of the whole text; at most 100). Parse errors as
 * yaml_parse_values (*dups NULL then). */
int yaml_find_duplicates(const char *text, size_t len, const yaml_limits *lim, int values,
			 json_t **dups, bh_error *err);

/* yaml_parse_any flags */
#define YAML_KEEP_INTS 1 /* integers that fit int64 stay json_integer (not Helm's
			  * values typing; for internal documents) */
#define YAML_V3_TYPING 2 /* yaml.v3's booleans (only true/false, any case form
			  * of those): how kustomize's kyaml reads objects */

/* Parses the first document into any JSON kind (fromYaml, fromYamlArray,
 * manifests). An empty document gives json null. */
int yaml_parse_any(const char *text, size_t len, const yaml_limits *lim, int flags,
		   json_t **out, bh_error *err);

/* yaml_parse_any and yaml_find_duplicates (values=0) in one pass: *out as
 * the first returns it, and *dups a new array of the second's texts (NULL
 * when it could not be made, or on an error). Errors as yaml_parse_any's. */
int yaml_parse_any_dups(const char *text, size_t len, const yaml_limits *lim, int flags,
			json_t **out, json_t **dups, bh_error *err);

/* fromYaml / fromYamlArray: sigs.k8s.io/yaml.Unmarshal of the first document
 * into map[string]interface{} (YAML_WANT_MAP) or []interface{}
 * (YAML_WANT_LIST); an empty or null document gives an empty map or list.
 * On failure err->msg is Helm's text, e.g. "error unmarshaling JSON: while
 * decoding JSON: json: cannot unmarshal array into Go value of type
 * map[string]interface {}" (fromYaml stores it under "Error", fromYamlArray
 * returns it as the only element — the caller builds that). */
#define YAML_WANT_MAP 1
#define YAML_WANT_LIST 2
int yaml_unmarshal_as(const char *text, size_t len, const yaml_limits *lim, int want,
		      json_t **out, bh_error *err);

/* Appends sigs.k8s.io/yaml.JSONToYAML(json) to out: json is JSON text as Go's
 * encoding/json writes it (gojson_encode output). The result ends with a
 * newline ("{}\n" for an empty object, "null\n" for null); Helm's toYaml
 * trims that one final newline — the caller does. Errors read as Helm's
 * mustToYaml reports them ("yaml: control characters are not allowed");
 * toYaml prints "" instead. Nothing is appended on error. */
int yaml_emit_json_text(const char *json, size_t len, bh_buf *out, bh_error *err);
/* yaml_emit_json_text with no line folded (as yaml_emit_unfolded). */
int yaml_emit_json_text_unfolded(const char *json, size_t len, bh_buf *out, bh_error *err);

/* yaml_emit_json_text on a libyaml emitter kept in *kept between calls (its
 * buffers are allocated once, not per call). *kept starts NULL; the caller
 * frees it with yaml_emitter_kept_free. */
typedef struct yaml_emitter_kept yaml_emitter_kept;
int yaml_emit_json_text_kept(yaml_emitter_kept **kept, const char *json, size_t len, bh_buf *out, bh_error *err);
void yaml_emitter_kept_free(yaml_emitter_kept *k);

struct gojson_node;
/* yaml_emit_json_text_kept for the tree gojson_tree_load_yaml makes of the
 * JSON text (or one built to be the same: a caller that skips the text). */
int yaml_emit_json_tree_kept(yaml_emitter_kept **kept, const struct gojson_node *root, bh_buf *out,
			     bh_error *err);
/* The same on libyaml's emitter alone, without the printer of plain data
 * that the others try first (for the tests that hold the two alike). */
int yaml_emit_json_tree_libyaml(const struct gojson_node *root, bh_buf *out, bh_error *err);

/* sigs.k8s.io/yaml.Marshal(v): gojson_encode(v) then yaml_emit_json_text
 * (encoding errors are prefixed "error marshaling into JSON: "). */
int yaml_emit(const json_t *v, bh_buf *out, bh_error *err);

/* yaml_emit's text as kyaml (kio.StringAll) prints it again after reading
 * it: every node keeps the style yaml_emit chose, and no line is folded
 * (Helm 4 splits a post-renderer's output that way). */
int yaml_emit_unfolded(const json_t *v, bh_buf *out, bh_error *err);

/* Helm's toYamlPretty: go.yaml.in/yaml/v3 Encoder with SetIndent(2) on the
 * value tree (sequences indented under their key, no line folding, numbers
 * as the tree holds them: json_integer as int, json_real as Go float64).
 * Ends with a newline like yaml_emit (toYamlPretty trims it). */
int yaml_emit_pretty(const json_t *v, bh_buf *out, bh_error *err);

/* yaml_emit_pretty for a tree another layer converted from its own values
 * (the template engine's toYamlPretty). verbatim(leaf): 1 when a string leaf
 * is written as it is, unquoted (what v3 prints plain for Go values JSON has
 * no type for: time.Time, NaN and the infinities, uint64 above int64);
 * ordered(object): 1 when an object keeps its key order (a Go struct, keys
 * in field order) instead of v3's natural sort. Either may be NULL. */
typedef struct yaml_pretty_hooks {
	int (*verbatim)(const json_t *leaf, void *ud);
	int (*ordered)(const json_t *object, void *ud);
	void *ud;
} yaml_pretty_hooks;
int yaml_emit_pretty_hooks(const json_t *v, const yaml_pretty_hooks *h, bh_buf *out, bh_error *err);

#endif
