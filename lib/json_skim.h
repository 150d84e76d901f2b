/* lib/json_skim.h — a bounded scanner of JSON text that builds no tree: it
 * steps over values, reads the spans of chosen members of an object, reads
 * short strings, and finds the members at paths to cut from the text before
 * a decoder sees it (several paths in one scan). Pure functions over [p, e): nothing is allocated (but by
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
 * member at path (npath names, from the outermost object, at most
 * JSON_SKIM_NAMES) goes, with one comma: 1 when there is exactly one such
 * member, in its place, and its value passes JSON_SKIM_STRICT; else 0 (the
 * text left whole). The rest of the text is only scanned (strings,
 * nesting): a decoder checks it. A member named twice inside the value cut
 * is not looked for. */
int json_skim_cut(const char *s, size_t n, const char *const *path, int npath, size_t *from, size_t *to);

/* ---- several cuts in one pass ----
 * Paths split once (json_skim_paths_add), then each text scanned once for
 * all of them (json_skim_find), and cut (json_skim_cut_found) to what
 * json_skim_cut, called for each path in turn on the text the cuts before
 * left, would leave. */
#define JSON_SKIM_PATHS 16 /* paths in one set */
#define JSON_SKIM_NAMES 9  /* names in one path */

typedef struct json_skim_paths {
	int n;
	struct json_skim_path {
		int len;      /* names */
		int extended; /* another path of the set begins with all of this one's names */
		const char *name[JSON_SKIM_NAMES]; /* borrowed, name_len[i] bytes each */
		size_t name_len[JSON_SKIM_NAMES];
	} p[JSON_SKIM_PATHS];
} json_skim_paths; /* {0}: no paths */

/* Adds a path to ps: the npre names of pre (NUL-terminated), then the
 * names of dotted split at each '.' (dotted NULL: none). The names are
 * borrowed: pre's strings and dotted must outlive ps. Its index, or -1
 * (ps unchanged) when ps is full, the path has no name or more than
 * JSON_SKIM_NAMES, or dotted an empty name. */
int json_skim_paths_add(json_skim_paths *ps, const char *const *pre, int npre, const char *dotted);

/* Where the member at each path of a set is in a text: bit i of found set
 * when path i's member is there once and its value passes JSON_SKIM_STRICT
 * (json_skim_cut's conditions but its place), its key's opening quote at
 * at[i] and its value's end at end[i]. */
typedef struct json_skim_found {
	unsigned found;
	size_t at[JSON_SKIM_PATHS], end[JSON_SKIM_PATHS];
} json_skim_found;

/* One pass over s (n bytes) for the members at the paths of ps, into *f.
 * f->found (0 as well when the text is no JSON the scan can follow). */
unsigned json_skim_find(const char *s, size_t n, const json_skim_paths *ps, json_skim_found *f);

/* s (n bytes) into out (room for n bytes; out may be s) less the members of
 * f (found in s) at the paths of mask (bits), cut in path order, each
 * where and as json_skim_cut would cut it from the text the cuts before
 * left (one not in its place there stays). That holds for a text that is
 * JSON; on any other, json_skim_find stops where the scan cannot follow
 * and may find less than json_skim_cut's lenient scan would, and the text
 * stays one a decoder refuses. The length of out; *ncut
 * (when not NULL) the number of members cut. */
size_t json_skim_cut_found(const char *s, size_t n, const json_skim_found *f, unsigned mask, char *out, int *ncut);

#endif
