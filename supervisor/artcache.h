/* supervisor/artcache.h — bulkheadd's store of verified chart artifacts in
 * built-in sources mode: sealed read-only memfds keyed by "sha256:<hex>",
 * with a size cap and least-recently-used eviction (an fd already handed
 * to a worker stays valid). Thread-safe: the sources thread puts, the main
 * thread opens. Nothing is written to disk; after a restart the sources
 * thread fetches the artifacts again. */
#ifndef BH_SUPERVISOR_ARTCACHE_H
#define BH_SUPERVISOR_ARTCACHE_H

#include <stddef.h>

void artcache_set_limit(size_t bytes);
/* Stores fd (ownership taken) of size bytes under digest. */
void artcache_put(const char *digest, int fd, size_t size);
/* A fresh read-only fd of the artifact (its own file offset), or -1. */
int artcache_open(const char *digest);
int artcache_has(const char *digest);
size_t artcache_bytes(void);

#endif
