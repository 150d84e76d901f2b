/* lib/gzip.h — gzip compression with the header Go's compress/gzip writes
 * (no name, mtime 0, OS "unknown"), for release records and re-packaged
 * chart archives. */
#ifndef LIB_GZIP_H
#define LIB_GZIP_H

#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"

/* Appends the gzip stream of in[0..n), at zlib level 1-9, to out. 0, or
 * BH_ENOMEM / BH_EIO. */
int bh_gzip(const void *in, size_t n, int level, bh_buf *out, bh_error *err);
/* The same at level 9 (Go's BestCompression). */
int bh_gzip_best(const void *in, size_t n, bh_buf *out, bh_error *err);

#endif
