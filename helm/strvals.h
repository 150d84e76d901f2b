/* helm/strvals.h — Helm's `--set` family parser (pkg/strvals): parses one
 * `name1=value1,name2=value2` argument into a jansson value tree, with Helm's
 * typing, paths (`a.b`), lists (`{x,y}`), indexes (`a[0]`), backslash escapes
 * and limits (index <= 65536, <= 30 nested names).
 *
 * Typing per mode (as Helm): STRVALS_TYPED (--set): true/false -> bool, null
 * -> null, decimal int64 without a leading zero -> integer, else string.
 * STRVALS_STRING (--set-string): always strings. STRVALS_JSON (--set-json):
 * each value is a JSON document (numbers become reals, like Go's float64).
 * STRVALS_FILE (--set-file): each value is a path given to the reader callback.
 * STRVALS_LITERAL (--set-literal): `name=rest of the line`, no escapes.
 * Error messages are Helm's, without the "failed parsing --set data: " prefix
 * (see strvals_flag_prefix()). */
#ifndef BH_STRVALS_H
#define BH_STRVALS_H

#include <jansson.h>
#include <stddef.h>

#include "lib/error.h"

enum strvals_mode {
	STRVALS_TYPED,
	STRVALS_STRING,
	STRVALS_JSON,
	STRVALS_FILE,
	STRVALS_LITERAL,
};

#define STRVALS_MAX_INDEX 65536
#define STRVALS_MAX_NESTED_NAME 30
/* Not in Helm (Go grows its stack): bound on a[0][0]... nesting. */
#define STRVALS_MAX_NESTED_INDEX 1000

/* For STRVALS_FILE: returns a new reference to the value for path `path`
 * (Helm uses the file's contents as a string), or NULL with err filled. */
typedef json_t *(*strvals_reader)(const char *path, void *ctx, bh_error *err);

/* Parses `s` and merges the result into the object `dest` (keys overwrite).
 * Returns 0 or a negative BH_E* code with err->msg as Helm words it. */
int strvals_parse_into(const char *s, json_t *dest, enum strvals_mode mode,
		       strvals_reader reader, void *ctx, bh_error *err);

/* Helm's typing of one --set scalar (typedVal): new reference. */
json_t *strvals_typed_value(const char *s, size_t len);

/* "failed parsing --set data" etc.: the prefix helm puts before a parse error
 * of that flag (for --set-json the message has no inner detail). */
const char *strvals_flag_prefix(enum strvals_mode mode);

#endif
