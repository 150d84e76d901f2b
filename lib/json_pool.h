/* lib/json_pool.h — jansson set up for a short-lived process: its hash
 * seed from one system call (json_hash_seed), and its allocations from
 * size-class pools (json_pool_install) for a single-threaded process that
 * builds many small JSON values (the bulkhead CLI's `template`: the values
 * trees of a chart and its sub-charts, their coalesced copies, chart
 * metadata).
 *
 * glibc's malloc carves each new block from the top of the heap (no cached
 * block of the size yet) at ~150-200 instructions; a jansson object costs
 * three of them (the value, its hashtable, each key/value pair). Here a
 * block of up to JSON_POOL_MAX bytes comes from a free list of its 16-byte
 * size class or from the bump pointer of a 64 KiB slab (taken from malloc);
 * a freed block goes back to its class's list. Larger blocks go to malloc.
 * Slabs are never returned: the process's life bounds them.
 *
 * Not thread-safe: install it only in a process where one thread uses
 * jansson, before the first JSON value is allocated (jansson's rule for
 * json_set_alloc_funcs). What jansson hands out to be freed (json_dumps'
 * text) is then a pool block, not malloc's: such a caller must free it
 * through jansson's free function, or use json_dumps_dup. */
#ifndef BH_LIB_JSON_POOL_H
#define BH_LIB_JSON_POOL_H

#include <jansson.h>
#include <stddef.h>

/* the largest block served from the pools (header included) */
#define JSON_POOL_MAX 256

/* Makes jansson allocate through the pools from now on. */
void json_pool_install(void);

/* json_dumps(v, flags) as a malloc'd string (free() it), whichever
 * allocator jansson has; NULL as json_dumps. */
char *json_dumps_dup(const json_t *v, size_t flags);

/* Seeds jansson's hashtables from getrandom(2), one system call, before
 * the first object would make jansson open, read and close /dev/urandom
 * (three, and a path walk). The seed stays random per process (the keys
 * of untrusted values cannot be chosen to collide); when getrandom fails
 * jansson seeds itself as before. Call it before the first JSON object. */
void json_hash_seed(void);

/* For tests: a block of n bytes and its release (what jansson calls). */
void *json_pool_alloc(size_t n);
void json_pool_free(void *p);

#endif
