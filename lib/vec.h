/* lib/vec.h — room in a growable array (a pointer, a count, a capacity):
 * the doubling realloc that lists, heaps and buffers of the project repeat,
 * written once, with the size overflow checked and nothing changed when
 * the allocation fails.
 *
 *     if (VEC_RESERVE(l->v, l->cap, l->n + 1, 16) < 0)
 *             return BH_ENOMEM;
 *     l->v[l->n++] = x;
 *
 * The capacity doubles from `first` (or from the current one) until it
 * holds `need`; elements past the count are left as realloc leaves them. */
#ifndef BH_LIB_VEC_H
#define BH_LIB_VEC_H

#include <stddef.h>

/* The array at *vp (a pointer to any object pointer, NULL when empty),
 * of *cap elements of elem_size bytes, made to hold at least `need`:
 * 0, or BH_ENOMEM (out of memory, or need * elem_size overflows) with
 * *vp and *cap as they were. Use VEC_RESERVE. */
int vec_grow(void *vp, size_t *cap, size_t need, size_t elem_size, size_t first);

/* VEC_RESERVE(v, cap, need, first): v an lvalue of type T *, cap a size_t
 * lvalue; 0 at once when there is room. Its arguments may be evaluated
 * twice: no side effects in them. */
#define VEC_RESERVE(v, cap, need, first) \
	((need) <= (cap) ? 0 : vec_grow(&(v), &(cap), (need), sizeof *(v), (first)))

#endif
