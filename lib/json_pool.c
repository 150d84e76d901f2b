/* lib/json_pool.c — see json_pool.h. */
#include "lib/json_pool.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define CLASS_STEP 16
#define NCLASSES (JSON_POOL_MAX / CLASS_STEP)
#define SLAB_SIZE (64 * 1024)
/* Each block starts with this header: its class k (1..NCLASSES: k * 16
 * bytes, header included), or 0 for a block of malloc's; the payload
 * follows, 8-byte aligned (jansson stores pointers, doubles, json_int_t). */
#define HDR 8

typedef struct free_block {
	struct free_block *next;
} free_block;

/* A slab's first 16 bytes link it to the one before (kept reachable for
 * leak checkers); its blocks follow. */
typedef struct slab {
	struct slab *next;
	char pad[CLASS_STEP - sizeof(struct slab *)];
} slab;

static free_block *free_lists[NCLASSES + 1];
static slab *slabs;
static char *bump, *bump_end;

void *json_pool_alloc(size_t n)
{
	size_t k, size;
	char *b;
	if (n > JSON_POOL_MAX - HDR) {
		b = malloc(n + HDR);
		if (!b)
			return NULL;
		memset(b, 0, HDR);
		return b + HDR;
	}
	k = (n + HDR + CLASS_STEP - 1) / CLASS_STEP;
	if (free_lists[k]) {
		free_block *f = free_lists[k];
		free_lists[k] = f->next;
		return f;
	}
	size = k * CLASS_STEP;
	if ((size_t)(bump_end - bump) < size) {
		/* what is left of the old slab (under JSON_POOL_MAX bytes) stays unused */
		slab *s = malloc(SLAB_SIZE);
		if (!s)
			return NULL;
		s->next = slabs;
		slabs = s;
		bump = (char *)s + sizeof *s;
		bump_end = (char *)s + SLAB_SIZE;
	}
	b = bump;
	bump += size;
	memcpy(b, &(uint64_t){k}, HDR);
	return b + HDR;
}

void json_pool_free(void *p)
{
	char *b;
	uint64_t k;
	if (!p)
		return;
	b = (char *)p - HDR;
	memcpy(&k, b, HDR);
	if (!k) {
		free(b);
		return;
	}
	((free_block *)p)->next = free_lists[k];
	free_lists[k] = p;
}

void json_pool_install(void)
{
	json_set_alloc_funcs(json_pool_alloc, json_pool_free);
}

char *json_dumps_dup(const json_t *v, size_t flags)
{
	json_malloc_t m;
	json_free_t f;
	char *s = json_dumps(v, flags), *r;
	if (!s)
		return NULL;
	r = strdup(s);
	json_get_alloc_funcs(&m, &f);
	f(s);
	return r;
}

void json_hash_seed(void)
{
	uint32_t seed = 0;
	if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t)sizeof seed)
		seed = 0;
	json_object_seed(seed); /* 0: jansson's own */
}
