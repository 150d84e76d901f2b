/* tmpl/sha256.c — SHA-256 (FIPS 180-4), one-shot. See sha256.h. */
#include "tmpl/sha256.h"

#include <stdint.h>
#include <string.h>

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, k;
	int i;
	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
	for (i = 0; i < 64; i++) {
		uint32_t t1 = k + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		k = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#if defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define SHA256_GLIBC_FEATURES 1
#endif
#endif
#ifndef SHA256_GLIBC_FEATURES
#define SHA256_GLIBC_FEATURES 0
#include <cpuid.h>
#endif
#include <stdatomic.h>

/* n blocks with the SHA extensions (Intel's SHA-NI): h[] is kept as the
 * ABEF and CDGH halves sha256rnds2 works on, four rounds a step, and the
 * schedule W[4g..4g+3] from the four groups before it (msg1, the alignr'd
 * W[t-7] terms, msg2). */
__attribute__((target("sha,sse4.1,ssse3"))) static void blocks_shani(uint32_t h[8], const unsigned char *p,
								      size_t n)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)h), 0xB1); /* CDAB */
	__m128i s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)(h + 4)), 0x1B); /* EFGH */
	__m128i s0 = _mm_alignr_epi8(t, s1, 8);     /* ABEF */
	s1 = _mm_blend_epi16(s1, t, 0xF0);          /* CDGH */
	for (; n > 0; n--, p += 64) {
		__m128i abef = s0, cdgh = s1, w[4];
		for (int g = 0; g < 4; g++)
			w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * g)), bswap);
		for (int g = 0; g < 16; g++) {
			if (g >= 4) {
				__m128i x = _mm_add_epi32(_mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]),
							  _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4));
				w[g & 3] = _mm_sha256msg2_epu32(x, w[(g + 3) & 3]);
			}
			__m128i m = _mm_add_epi32(w[g & 3], _mm_loadu_si128((const __m128i *)(const void *)(K + 4 * g)));
			s1 = _mm_sha256rnds2_epu32(s1, s0, m);
			s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(m, 0x0E));
		}
		s0 = _mm_add_epi32(s0, abef);
		s1 = _mm_add_epi32(s1, cdgh);
	}
	t = _mm_shuffle_epi32(s0, 0x1B);    /* FEBA */
	s1 = _mm_shuffle_epi32(s1, 0xB1);   /* DCHG */
	s0 = _mm_blend_epi16(t, s1, 0xF0);  /* DCBA */
	s1 = _mm_alignr_epi8(s1, t, 8);     /* HGFE */
	_mm_storeu_si128((__m128i *)(void *)h, s0);
	_mm_storeu_si128((__m128i *)(void *)(h + 4), s1);
}

/* 1 when the CPU has the SHA extensions and SSE4.1 (and SSSE3). glibc's
 * own record of the CPU's features answers, where glibc has one: each
 * cpuid instruction traps to the hypervisor on a virtual machine (tens of
 * microseconds; this asked four), and glibc asked them all at start-up. */
static int have_shani(void)
{
	static atomic_int known = -1;
	int k = atomic_load_explicit(&known, memory_order_relaxed);
	if (k < 0) {
#if SHA256_GLIBC_FEATURES
		k = CPU_FEATURE_ACTIVE(SHA) && CPU_FEATURE_ACTIVE(SSE4_1) && CPU_FEATURE_ACTIVE(SSSE3);
#else
		unsigned a, b, c, d;
		k = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_1) && (c & bit_SSSE3) &&
		    __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
#endif
		atomic_store_explicit(&known, k, memory_order_relaxed);
	}
	return k;
}
#define HAVE_SHANI_PATH 1
#endif

static void blocks(uint32_t h[8], const unsigned char *p, size_t n, int generic)
{
#ifdef HAVE_SHANI_PATH
	if (!generic && have_shani()) {
		blocks_shani(h, p, n);
		return;
	}
#endif
	(void)generic;
	for (; n > 0; n--, p += 64)
		block(h, p);
}

static void sha256(const void *data, size_t n, unsigned char md[32], int generic)
{
	uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	const unsigned char *p = data;
	unsigned char tail[128];
	size_t left = n, t;
	uint64_t bits = (uint64_t)n * 8;
	blocks(h, p, left / 64, generic);
	p += left / 64 * 64;
	left %= 64;
	/* the rest, 0x80, zeros, and the length in bits: one or two blocks */
	memset(tail, 0, sizeof tail);
	if (left)
		memcpy(tail, p, left);
	tail[left] = 0x80;
	t = left < 56 ? 64 : 128;
	for (int i = 0; i < 8; i++)
		tail[t - 1 - i] = (unsigned char)(bits >> (8 * i));
	blocks(h, tail, t / 64, generic);
	for (int i = 0; i < 8; i++) {
		md[4 * i] = (unsigned char)(h[i] >> 24);
		md[4 * i + 1] = (unsigned char)(h[i] >> 16);
		md[4 * i + 2] = (unsigned char)(h[i] >> 8);
		md[4 * i + 3] = (unsigned char)h[i];
	}
}

void tmpl_sha256(const void *data, size_t n, unsigned char md[32])
{
	sha256(data, n, md, 0);
}

void tmpl_sha256_generic(const void *data, size_t n, unsigned char md[32])
{
	sha256(data, n, md, 1);
}
