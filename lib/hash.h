/* lib/hash.h — FNV-1a, 64 bits: the one string hash of the project's hash
 * tables and digests (not for anything an adversary must not collide). */
#ifndef BH_LIB_HASH_H
#define BH_LIB_HASH_H

#include <stddef.h>
#include <stdint.h>

#define BH_FNV1A_INIT 14695981039346656037ULL

/* h (BH_FNV1A_INIT to start) continued over the n bytes at p. */
static inline uint64_t bh_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ULL;
	return h;
}

/* A NUL-terminated string's hash. */
static inline uint64_t bh_fnv1a_str(const char *s)
{
	uint64_t h = BH_FNV1A_INIT;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return h;
}

#endif
