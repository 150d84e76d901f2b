/* helm/targz.h — reads a gzip-compressed tar archive held in memory, entry
 * by entry, the way Helm's chart loader reads one with Go's compress/gzip
 * (concatenated members) and archive/tar (V7, USTAR, PAX and GNU headers:
 * PAX path/linkpath/size records, GNU long names). The reader is a pure
 * function of its input: it never touches the file system and decompresses
 * no more than a caller-given number of bytes. */
#ifndef HELM_TARGZ_H
#define HELM_TARGZ_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

typedef struct targz targz;

/* Entry types, as tar's typeflag (regular files are always TARGZ_REG). */
enum {
	TARGZ_REG = '0',
	TARGZ_HARDLINK = '1',
	TARGZ_SYMLINK = '2',
	TARGZ_DIR = '5',
	TARGZ_GLOBAL = 'g', /* a PAX global header (callers skip it) */
};

typedef struct targz_entry {
	const char *name;     /* owned by the reader; valid until the next call */
	const char *linkname; /* "" unless a link */
	int type;             /* TARGZ_* or another typeflag byte */
	uint64_t size;        /* bytes of data that targz_read() returns */
} targz_entry;

/* A reader over buf[0..len) (which must outlive it). max_inflated bounds
 * the decompressed bytes read in all (headers, data, padding). NULL with
 * err set when buf is not gzip data or memory runs out. */
targz *targz_new(const void *buf, size_t len, uint64_t max_inflated, bh_error *err);
void targz_free(targz *t);

/* The next entry into *e (its unread data is skipped): 1, 0 at the end of
 * the archive, or a BH_E* code (BH_ELIMIT when max_inflated is reached,
 * BH_EINVAL for a damaged archive) with err set. */
int targz_next(targz *t, targz_entry *e, bh_error *err);

/* Reads up to n bytes of the current entry's data into dst: the count (0 at
 * its end) or a BH_E* code with err set. */
long targz_read(targz *t, void *dst, size_t n, bh_error *err);

#endif
