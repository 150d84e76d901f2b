/* lib/gzip.h — gzip compression (libdeflate, whole buffers) with the header
 * Go's compress/gzip writes (no name, mtime 0, OS "unknown"), for release
 * records and re-packaged chart archives. The output depends only on the
 * input and the level (libdeflate is deterministic). */
#ifndef LIB_GZIP_H
#define LIB_GZIP_H

#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"

/* A compressor at one level (1-12: libdeflate's; 1-9 compare with
 * zlib's), for several members in a row: its tables are set up once.
 * NULL when out of memory or the level is out of range. */
typedef struct bh_gzipper bh_gzipper;
bh_gzipper *bh_gzipper_new(int level);
void bh_gzipper_free(bh_gzipper *g);
/* Appends one gzip member of in[0..n) to out. Members in a row form one
 * gzip file (RFC 1952 2.2: gunzip, Go's gzip.Reader and Python read them
 * as one stream). 0, or BH_ENOMEM. */
int bh_gzipper_member(bh_gzipper *g, const void *in, size_t n, bh_buf *out, bh_error *err);

/* Appends the gzip stream of in[0..n) (one member), at level 1-12, to out.
 * 0, or BH_ENOMEM / BH_EINVAL (level). */
int bh_gzip(const void *in, size_t n, int level, bh_buf *out, bh_error *err);
/* The same at level 9 (as Go's BestCompression). */
int bh_gzip_best(const void *in, size_t n, bh_buf *out, bh_error *err);

#endif
