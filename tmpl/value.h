/* tmpl/value.h — the value model of the template engine: Go values as Helm
 * templates see them (int, int64, float64, string, bool, nil, []interface{},
 * map[string]interface{}, []byte, and opaque objects such as .Capabilities,
 * .Files, *semver.Version, time.Time).
 *
 * A tmpl_value is a small struct passed by value. Strings, lists, maps and
 * objects point into memory owned by a tmpl_arena (see below) or into static
 * storage; nothing is reference counted. Everything allocated from an
 * engine's arena is freed at once by tmpl_engine_free(), so functions never
 * free what they create.
 *
 * Go distinguishes the invalid reflect.Value ("no value": a missing map entry
 * after unwrapping, prints "<no value>") from a nil interface{} (what a map
 * lookup of a missing or null key returns before the pipeline unwraps it;
 * `.Values.missing.x` is an error on it, and a string parameter rejects it
 * with "got interface {}"). Both are "nil" to templates' truth tests.
 *
 * Lists and maps keep a Go type name for %T and for the few places where Go
 * cares ([]interface {}, []string, []int, map[string]interface {},
 * map[string]string). Maps are string-keyed; range and printing visit keys in
 * sorted (bytewise) order. A list or map may be Go-nil (is_nil): it behaves as
 * empty but toJson prints null. */
#ifndef TMPL_VALUE_H
#define TMPL_VALUE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "lib/buf.h"
#include "lib/error.h"

enum tmpl_kind {
	TMPL_INVALID = 0, /* no value (Go invalid reflect.Value) */
	TMPL_NIL,         /* nil interface{} (e.g. missing/null map entry) */
	TMPL_BOOL,
	TMPL_INT,         /* Go int (template integer literals, len, ...) */
	TMPL_INT64,       /* Go int64 (Sprig math, --set integers) */
	TMPL_UINT8,       /* Go uint8/byte (index of a string) */
	TMPL_UINT64,      /* Go uint64 (semver Major/Minor/Patch) */
	TMPL_FLOAT64,     /* Go float64 (every number from values.yaml) */
	TMPL_STRING,
	TMPL_BYTES,       /* []byte ([]uint8: .Files.GetBytes) */
	TMPL_LIST,
	TMPL_MAP,
	TMPL_OBJECT,      /* Go struct or pointer with fields/methods */
	TMPL_COMPLEX,     /* Go complex128 (template literals like 1i) */
};

typedef struct tmpl_value tmpl_value;
typedef struct tmpl_list tmpl_list;
typedef struct tmpl_map tmpl_map;
typedef struct tmpl_object tmpl_object;
typedef struct tmpl_class tmpl_class;
typedef struct tmpl_arena tmpl_arena;

struct tmpl_value {
	enum tmpl_kind kind;
	unsigned char iface; /* read out of an interface{} slot (a map or list
			      * element) and not yet unwrapped by a pipeline:
			      * Go then reports its type as "interface {}" */
	unsigned char view;  /* MAP: the same map seen as another Go type
			      * (TMPL_VIEW_*): common.Values' AsMap and Table;
			      * BYTES: 1 for a nil []byte (toJson null) */
	unsigned char addr;  /* OBJECT: an addressable Go value (reflect's
			      * CanAddr: a field reached through a pointer, kept
			      * by variables, with and template; never a
			      * function's argument or result), which finds the
			      * methods of its pointer type */
	union {
		int b;                                  /* BOOL */
		int64_t i;                              /* INT, INT64 */
		uint64_t u;                             /* UINT8, UINT64 */
		double f;                               /* FLOAT64 */
		struct { const char *ptr; size_t len; } s; /* STRING, BYTES */
		tmpl_list *list;                        /* LIST */
		tmpl_map *map;                          /* MAP */
		tmpl_object *obj;                       /* OBJECT */
		struct { double re, im; } c;            /* COMPLEX */
	} u;
};

struct tmpl_list {
	const char *gotype; /* "[]interface {}" unless set otherwise */
	int is_nil;         /* a Go nil slice (prints [], toJson null) */
	const tmpl_class *cls; /* methods of a named slice type (chartutil.VersionSet), or NULL */
	size_t len, cap;
	tmpl_value *items;
};

typedef struct tmpl_map_entry {
	const char *key;
	size_t keylen;
	tmpl_value val;
} tmpl_map_entry;

struct tmpl_map {
	const char *gotype; /* "map[string]interface {}" unless set otherwise */
	int is_nil;
	const tmpl_class *cls; /* methods of a named map type (engine.files), or NULL */
	size_t len, cap;    /* entries in insertion order (deleted ones removed) */
	tmpl_map_entry *entries;
	uint32_t *index;    /* open-addressing hash of entry positions + 1 */
	size_t index_cap;
	int sorted;         /* entries are currently in sorted key order */
};

/* ---- arena: all memory of values created while rendering ---- */

/* Returns NULL when out of memory or over the arena's byte budget (the
 * caller reports BH_ELIMIT / BH_ENOMEM). Memory is zeroed. */
void *tmpl_arena_alloc(tmpl_arena *a, size_t n);
/* Copies n bytes and a NUL; NULL on failure. */
char *tmpl_arena_strdup(tmpl_arena *a, const char *s, size_t n);
/* 1 once an allocation has failed because of the budget. */
int tmpl_arena_over_budget(const tmpl_arena *a);

/* ---- constructors ---- */

/* Inline: the executor makes one or more of these per operation; the
 * bytes the kind does not use are zero. */
static inline tmpl_value tmpl_invalid(void)
{
	tmpl_value v;
	memset(&v, 0, sizeof(v));
	v.kind = TMPL_INVALID;
	return v;
}
static inline tmpl_value tmpl_nil(void)
{
	tmpl_value v = tmpl_invalid();
	v.kind = TMPL_NIL;
	return v;
}
static inline tmpl_value tmpl_bool(int b)
{
	tmpl_value v = tmpl_invalid();
	v.kind = TMPL_BOOL;
	v.u.b = b ? 1 : 0;
	return v;
}
/* Go int */
static inline tmpl_value tmpl_int(int64_t i)
{
	tmpl_value v = tmpl_invalid();
	v.kind = TMPL_INT;
	v.u.i = i;
	return v;
}
static inline tmpl_value tmpl_int64(int64_t i)
{
	tmpl_value v = tmpl_invalid();
	v.kind = TMPL_INT64;
	v.u.i = i;
	return v;
}
static inline tmpl_value tmpl_uint8(uint8_t u)
{
	tmpl_value v = tmpl_invalid();
	v.kind = TMPL_UINT8;
	v.u.u = u;
	return v;
}
static inline tmpl_value tmpl_uint64(uint64_t u)
{
	tmpl_value v = tmpl_invalid();
	v.kind = TMPL_UINT64;
	v.u.u = u;
	return v;
}
static inline tmpl_value tmpl_float(double f)
{
	tmpl_value v = tmpl_invalid();
	v.kind = TMPL_FLOAT64;
	v.u.f = f;
	return v;
}
/* String pointing at s (not copied: s must outlive the engine/arena). */
static inline tmpl_value tmpl_str_static(const char *s, size_t n)
{
	tmpl_value v = tmpl_invalid();
	v.kind = TMPL_STRING;
	v.u.s.ptr = s ? s : "";
	v.u.s.len = n;
	return v;
}
/* String copied into the arena; kind INVALID on allocation failure. */
tmpl_value tmpl_str(tmpl_arena *a, const char *s, size_t n);
tmpl_value tmpl_cstr(tmpl_arena *a, const char *s);
/* Takes the buffer's text into the arena (b is left untouched). */
tmpl_value tmpl_str_buf(tmpl_arena *a, const bh_buf *b);
tmpl_value tmpl_bytes(tmpl_arena *a, const void *p, size_t n);
tmpl_value tmpl_list_value(tmpl_list *l);
tmpl_value tmpl_map_value(tmpl_map *m);
/* A map value's Go type as a template sees it: the map's own (view 0),
 * or, for the same map converted, map[string]interface {} (no methods) or
 * common.Values (with chartutil.Values' methods, helmctx.c). */
enum { TMPL_VIEW_OWN, TMPL_VIEW_PLAIN, TMPL_VIEW_VALUES };
const char *tmpl_map_gotype(const tmpl_value *v);
extern const tmpl_class tmpl_values_class; /* helmctx.c */
static inline const tmpl_class *tmpl_map_class(const tmpl_value *v)
{
	switch (v->view) {
	case TMPL_VIEW_PLAIN: return NULL;
	case TMPL_VIEW_VALUES: return &tmpl_values_class;
	default: return v->u.map->cls;
	}
}
tmpl_value tmpl_object_value(tmpl_object *o);

/* ---- lists ---- */

/* gotype NULL means "[]interface {}". NULL on allocation failure. */
tmpl_list *tmpl_list_new(tmpl_arena *a, const char *gotype, size_t cap);
int tmpl_list_push(tmpl_arena *a, tmpl_list *l, tmpl_value v); /* 0 or BH_ELIMIT */

/* ---- maps ---- */

/* gotype NULL means "map[string]interface {}". */
tmpl_map *tmpl_map_new(tmpl_arena *a, const char *gotype);
/* Inserts or replaces; the key is copied. 0 or BH_ELIMIT. */
int tmpl_map_set(tmpl_arena *a, tmpl_map *m, const char *key, size_t keylen, tmpl_value v);
/* NULL when absent. The pointer is valid until the map is next modified. */
tmpl_value *tmpl_map_get(const tmpl_map *m, const char *key, size_t keylen);
/* The default Go types of maps and lists (tmpl_map_new / tmpl_list_new
 * with NULL): a gotype equal to one of these pointers is that type. */
extern const char tmpl_gotype_map_iface[];
extern const char tmpl_gotype_list_iface[];
int tmpl_map_delete(tmpl_map *m, const char *key, size_t keylen); /* 1 if removed */
/* Puts the entries in bytewise key order (Go's printing and range order);
 * afterwards m->entries[0..len) can be walked in that order. */
void tmpl_map_sort(tmpl_map *m);

/* ---- JSON bridge (values files, --set, toJson/fromJson) ---- */

/* Deep copy of a JSON tree: objects -> map[string]interface {}, arrays ->
 * []interface {}, json_real -> float64, json_integer -> int64 (as --set
 * makes them), null -> nil. Returns INVALID on allocation failure. */
tmpl_value tmpl_value_from_json(tmpl_arena *a, const json_t *j);
/* JSON view of a value as Go's encoding/json would see it (objects use
 * their class's to_json; ints stay integers, float64 become json_real).
 * New reference; NULL with err set for values JSON cannot hold. */
json_t *tmpl_value_to_json(const tmpl_value *v, bh_error *err);

/* Go's encoding/json text of v, appended to out: what Helm's toJson prints
 * (flags from lib/gojson.h: GOJSON_INDENT for toPrettyJson,
 * GOJSON_NO_HTML_ESCAPE for toRawJson). Map keys sorted, struct objects in
 * Go field order, []byte as base64, nil slices/maps as null. Feed the text
 * to yaml_emit_json_text() (lib/yaml.h) for toYaml. Errors as Go's
 * ("json: unsupported value: NaN"); out is left as it was. */
int tmpl_value_gojson(bh_buf *out, const tmpl_value *v, int flags, bh_error *err);

/* The tree gojson_tree_load_yaml (lib/gojson.h) makes of tmpl_value_gojson's
 * text, built from v without the text (toYaml's input), in t->root: strings
 * point into v, the nodes are t's (tmpl_gojson_tree_free). 0 when built; 1,
 * nothing built, when v is not data the text carries unchanged (objects,
 * []byte, complex, NaN and Inf, strings with invalid UTF-8 or with runes the
 * YAML reader folds or refuses, nesting deeper than 100, a text that could
 * reach gojson's size limit): the caller takes the text path, which gives
 * the same result and Go's errors; -1 when out of memory. */
typedef struct tmpl_gojson_tree {
	struct gojson_node *root;
	struct tree_chunk *chunks;
} tmpl_gojson_tree;
int tmpl_value_gojson_tree(const tmpl_value *v, tmpl_gojson_tree *t);
void tmpl_gojson_tree_free(tmpl_gojson_tree *t);
/* Deep copy of lists and maps (scalars and objects are shared). INVALID on
 * allocation failure. */
tmpl_value tmpl_value_deep_copy(tmpl_arena *a, const tmpl_value *v);

/* ---- Go semantics ---- */

/* reflect.Kind name as Sprig's kindOf prints it: "string", "int", "int64",
 * "float64", "bool", "slice", "map", "ptr", "struct", "uint8", "uint64",
 * "complex128", and "invalid" for nil. */
const char *tmpl_value_kind_name(const tmpl_value *v);

/* Go's %T name: "int", "float64", "string", "[]interface {}",
 * "map[string]interface {}", "<nil>" for nil/invalid, class names. */
const char *tmpl_value_type_name(const tmpl_value *v);
/* text/template truth (if/with/and/or/not): false for nil, false, 0, "",
 * empty list/map; objects are true. */
int tmpl_value_truth(const tmpl_value *v);
/* Sprig's empty(): like truth inverted, but also nil-interface aware. */
int tmpl_value_empty(const tmpl_value *v);
/* 1 for INVALID and NIL. */
int tmpl_value_is_nil(const tmpl_value *v);
/* Element i of a list, or INVALID when out of range. */
tmpl_value tmpl_list_at(const tmpl_list *l, size_t i);

#endif
