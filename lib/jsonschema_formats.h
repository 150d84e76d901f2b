/* lib/jsonschema_formats.h — internal to lib/jsonschema.c: the "format"
 * checks of santhosh-tekuri/jsonschema v6 (formats.go) with its messages. */
#ifndef BH_JSONSCHEMA_FORMATS_H
#define BH_JSONSCHEMA_FORMATS_H

#include <stddef.h>

#include "lib/buf.h"

/* Checks s[0..n) against the named format. Returns -1 for a format v6 does
 * not know (not asserted), 0 when valid, 1 when not (why = the reason). */
int jsonschema_format_check(const char *name, const char *s, size_t n, bh_buf *why);

#endif
