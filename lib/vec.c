/* lib/vec.c — see vec.h. */
#include "lib/vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

int vec_grow(void *vp, size_t *cap, size_t need, size_t elem_size, size_t first)
{
	void *v, *nv;
	size_t nc = *cap ? *cap : first ? first : 1;
	if (need <= *cap)
		return 0;
	while (nc < need)
		nc = nc > SIZE_MAX / 2 ? need : nc * 2;
	if (elem_size && nc > SIZE_MAX / elem_size)
		return BH_ENOMEM;
	/* the caller's T * read and written as bytes: an object pointer has
	 * void *'s representation on every platform bulkhead builds for */
	memcpy(&v, vp, sizeof v);
	if (!(nv = realloc(v, nc * elem_size)))
		return BH_ENOMEM;
	memcpy(vp, &nv, sizeof nv);
	*cap = nc;
	return 0;
}
