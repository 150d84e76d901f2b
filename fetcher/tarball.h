/* fetcher/tarball.h — writing a chart archive: ustar entries (regular
 * files, mode 0644, owner 0, long names split into prefix/name) appended to
 * a tar buffer, then the end-of-archive blocks and gzip (lib/gzip.h).
 * Used to re-package a chart with new values (chartvalues.c) and to
 * package a `file://` dependency for `bulkhead template
 * --dependency-update` as `helm dependency update` does. */
#ifndef BH_FETCHER_TARBALL_H
#define BH_FETCHER_TARBALL_H

#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"

/* Appends one regular file entry (header, data, padding) to tar. BH_ELIMIT
 * when the name cannot be stored in a ustar header. */
int tarball_put(bh_buf *tar, const char *name, const void *data, size_t len, long long mtime, bh_error *err);
/* Ends the archive in tar and appends it gzip-compressed to out. */
int tarball_finish(bh_buf *tar, bh_buf *out, bh_error *err);

#endif
