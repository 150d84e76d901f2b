/* proto/jload.h — JSON text to a jansson tree, the same tree json_loadb
 * gives, for the supervisor's hot decoders (a worker's RESULT, a cached
 * HelmRelease, a remembered status). jansson's reader costs about 200
 * instructions a byte (a callback per character); this one reads the
 * common subset of JSON directly: objects, arrays, strings of printable
 * ASCII with the short escapes (\" \\ \/ \b \f \n \r \t), integers of at
 * most 18 digits, true, false, null, nesting to JLOAD_MAX_DEPTH. Anything
 * else (a real, a \u escape, a byte above 0x7f or below 0x20, a longer
 * integer, deeper nesting, an error) is handed to json_loadb, which then
 * decides alone: the tree, or the error, is always json_loadb's. */
#ifndef BH_PROTO_JLOAD_H
#define BH_PROTO_JLOAD_H

#include <jansson.h>
#include <stddef.h>

#define JLOAD_MAX_DEPTH 64

/* json_loadb(text, len, flags, je) with flags 0 or JSON_REJECT_DUPLICATES
 * (others go to json_loadb as they are). The tree is the caller's
 * (json_decref); NULL as json_loadb returns it. */
json_t *jload_new(const char *text, size_t len, size_t flags, json_error_t *je);
/* The subset's reader alone: NULL when text is not in it (or is not JSON,
 * or memory ran out), where jload_new asks json_loadb. */
json_t *jload_subset_new(const char *text, size_t len, size_t flags);

#endif
