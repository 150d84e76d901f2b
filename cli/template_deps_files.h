/* cli/template_deps_files.h — the file work of `bulkhead template
 * --dependency-update` (template_deps.c): reading and writing whole files
 * with Go's error texts, and Helm's safeMoveDeps (the downloaded archives
 * moved into charts/, outdated ones deleted). */
#ifndef BH_CLI_TEMPLATE_DEPS_FILES_H
#define BH_CLI_TEMPLATE_DEPS_FILES_H

#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"

/* The whole file (at most max bytes) into out. BH_ENOTFOUND ("open PATH: no
 * such file or directory") when it does not exist. */
int deps_read_file(const char *path, size_t max, bh_buf *out, bh_error *err);
/* Writes data to path (its directory made first), mode 0644. */
int deps_write_file(const char *path, const void *data, size_t len, bh_error *err);
/* safeMoveDeps: every archive of src that loads as a chart is renamed into
 * dest; then each archive of dest that src did not hold is deleted unless
 * it is the chart of a dependency without a repository (local_names[0..n),
 * "" for the others). Helm's notes go to stdout. */
int deps_move(const char *src, const char *dest, const char *const *local_names, size_t n, bh_error *err);
/* rm -r path (what could be removed). */
void deps_remove_tree(const char *path);

#endif
