/* lib/scan.h — byte scans the text readers share (lib/gojson.c's JSON
 * reader, lib/yaml_fast.c's YAML reader), sixteen bytes a step where SSE2
 * is there. */
#ifndef BH_SCAN_H
#define BH_SCAN_H

#include <stddef.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* From s[i]: past the spaces there (an indentation), up to n. */
static inline size_t bh_space_run_end(const char *s, size_t i, size_t n)
{
#ifdef __SSE2__
	while (n - i >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
		if (m != 0xFFFF)
			return i + (size_t)__builtin_ctz(~m);
		i += 16;
	}
#endif
	while (i < n && s[i] == ' ')
		i++;
	return i;
}

#endif
