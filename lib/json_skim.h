/* lib/json_skim.h — a bounded scanner of JSON text that builds no tree: it
 * steps over values, reads the spans of chosen members of an object, reads
 * short strings, and finds a member at a path to cut from the text before a
 * decoder sees it. Pure functions over [p, e): nothing is allocated (but by
 * json_skim_string's jansson fallback, freed before it returns), nesting is
 * limited to JSON_SKIM_DEPTH. Used where a whole decode would cost more than
 * the few members read (the watch's managedFields, a Secret's metadata). */
#ifndef BH_LIB_JSON_SKIM_H
#define BH_LIB_JSON_SKIM_H

#include <stddef.h>

#define JSON_SKIM_DEPTH 64

/* flags of json_skim_value */
enum {
	/* check the value against JSON's grammar, more narrowly: strings of
	 * ASCII with valid escapes (not \u0000, no surrogates), the literals,
	 * numbers of at most 15 characters and 2 exponent digits (none
	 * overflows). Without it strings are stepped over to their closing
	 * quote (whatever an escape names) and a scalar is any run of
	 * [0-9A-Za-z+-.]. */
	JSON_SKIM_STRICT = 1,
};

typedef struct json_skim_span {
	const char *s, *e; /* the value's text, s NULL when absent */
} json_skim_span;

/* p past blanks (space, tab, CR, LF). */
const char *json_skim_ws(const char *p, const char *e);

/* Just past the JSON value at p (after blanks), or NULL when there is none
 * there (or it nests deeper than JSON_SKIM_DEPTH less depth). */
const char *json_skim_value(const char *p, const char *e, int depth, unsigned flags);

/* One pass over the object at p (after blanks; its members stepped over
 * without JSON_SKIM_STRICT, to its end, set in *end): the values of the
 * members named in keys (NULL-terminated) in v[i], v[i].s NULL when
 * absent. 0, or -1 when p is no object or names a wanted member twice. */
int json_skim_object(const char *p, const char *e, int depth, const char *const *keys, json_skim_span *v,
		     const char **end);

/* The JSON string [s, e) (quotes included) into out (n bytes, NUL added):
 * printable ASCII is copied; anything else is decoded by jansson (a NUL
 * in the string does not fit). 0, or -1
 * when it is no string or does not fit. */
int json_skim_string(const char *s, const char *e, char *out, size_t n);

/* Finds the bytes [*from, *to) of the text s (n bytes) to cut so that the
 * member at path (npath names, from the outermost object) goes, with one
 * comma: 1 when there is exactly one such member, in its place, and its
 * value passes JSON_SKIM_STRICT; else 0 (the text left whole). The rest of
 * the text is only scanned (strings, nesting): a decoder checks it. A
 * member named twice inside the value cut is not looked for. */
int json_skim_cut(const char *s, size_t n, const char *const *path, int npath, size_t *from, size_t *to);

#endif
