/* supervisor/jtext.h — a jansson tree as compact JSON text, byte for byte
 * what json_dumps(v, JSON_COMPACT) writes, in a fraction of its
 * instructions: no per-token callback, no loop check (snprintf of every
 * container's address), ASCII copied a run at a time. The supervisor's
 * main thread encodes every status patch, job and no-op memory with it.
 * A value it does not write itself (a real, a string that is not UTF-8,
 * nesting deeper than JTEXT_MAX_DEPTH) makes it hand the whole tree to
 * json_dumps, so the text never differs. */
#ifndef BH_SUPERVISOR_JTEXT_H
#define BH_SUPERVISOR_JTEXT_H

#include <jansson.h>

#define JTEXT_MAX_DEPTH 512

/* v (an object or an array) as new text, freed with free(); NULL as
 * json_dumps(v, JSON_COMPACT) returns it (out of memory, not a container). */
char *jtext_new(const json_t *v);

#endif
