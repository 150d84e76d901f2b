/* lib/heap.c — see heap.h. */
#include "lib/heap.h"

#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/error.h"

#define HEAP_HUGE_PAGE ((uintptr_t)2 << 20)

static void *heap_spacer; /* held for the process's life */

int heap_huge_pages(size_t small, size_t grow, int mmap_threshold)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t first_len = small ? small : 64;
	char *first, *more;
	uintptr_t bound, lo, hi;
	if (pg <= 0 || !mallopt(M_TRIM_THRESHOLD, INT_MAX) || !mallopt(M_MMAP_THRESHOLD, mmap_threshold))
		return BH_EINVAL;
	if (!(first = malloc(first_len)))
		return BH_ENOMEM;
	/* the spacer ends a page below the boundary: its header and the next
	 * block's are the only bytes written between first and the boundary */
	bound = ((uintptr_t)first + first_len + 2 * (uintptr_t)pg + HEAP_HUGE_PAGE - 1) & ~(HEAP_HUGE_PAGE - 1);
	heap_spacer = malloc(bound - (uintptr_t)pg - ((uintptr_t)first + first_len));
	more = heap_spacer ? malloc(grow + HEAP_HUGE_PAGE) : NULL;
	if (more) {
		lo = ((uintptr_t)more + HEAP_HUGE_PAGE - 1) & ~(HEAP_HUGE_PAGE - 1);
		hi = ((uintptr_t)more + grow + HEAP_HUGE_PAGE) & ~(HEAP_HUGE_PAGE - 1);
		if (hi > lo)
			(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
		free(more); /* back to the top chunk, which is not trimmed */
	}
	free(first); /* a free block below the spacer, used first */
	return more ? 0 : BH_ENOMEM;
}
