/* tests/fuzz/fuzz_pick.h — the opening shared by the fuzz targets that feed
 * several decoders from one input: the first byte picks the decoder (modulo
 * the number of decoders), the remaining bytes are that decoder's input.
 */
#ifndef BH_FUZZ_PICK_H
#define BH_FUZZ_PICK_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	unsigned way;          /* which decoder: 0 .. ways-1 */
	const char *s;         /* the decoder's input, as text */
	const unsigned char *p; /* the same bytes, as bytes */
	size_t n;
} fuzz_pick;

/* Returns 0 when the input is empty (nothing to decode), 1 otherwise. */
static inline int fuzz_pick_take(const uint8_t *data, size_t size, unsigned ways, fuzz_pick *out)
{
	if (size < 1)
		return 0;
	out->way = data[0] % ways;
	out->p = data + 1;
	out->s = (const char *)data + 1;
	out->n = size - 1;
	return 1;
}

#endif
