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
/* heap_expect's range: the heap's start, how far it is populated, and the
 * end of the 4 KiB part (heap_huge_pages' small block); NULL: not armed */
static char *heap_lo, *heap_done, *heap_small_end;

int heap_populate(size_t len)
{
#ifdef MADV_POPULATE_WRITE
	long pg = sysconf(_SC_PAGESIZE);
	char *lo, *hi, *top;
	void *volatile p, *volatile q = NULL; /* not elided with their free() */
	/* not trimmed: the free below would give back what it just took
	 * (two more brk calls, one splitting the heap's mapping) */
	if (pg <= 0 || len > INT_MAX || !mallopt(M_TOP_PAD, (int)len) || !mallopt(M_TRIM_THRESHOLD, INT_MAX))
		return -1;
	/* the main arena: made by this malloc, or already (a static libc's
	 * start-up allocates), then with the default 128 KiB from brk */
	p = malloc(1);
	top = sbrk(0);
	if (!p || top == (char *)-1 || (char *)p >= top) { /* not from brk: a sanitizer's, valgrind's malloc */
		free(p);
		return -1;
	}
	lo = (char *)((uintptr_t)p & ~((uintptr_t)pg - 1));
	hi = lo + len;
	if (top < hi) /* brk then moves past hi, by M_TOP_PAD */
		q = malloc(len);
	free(q);
	free(p);
	top = sbrk(0);
	if (top == (char *)-1)
		return 0;
	if (top < hi) /* brk did not move: up to the page below it */
		hi = (char *)((uintptr_t)top & ~((uintptr_t)pg - 1));
	if (hi > lo && madvise(lo, (size_t)(hi - lo), MADV_POPULATE_WRITE) == 0) { /* else: Linux < 5.14 */
		heap_lo = lo;
		heap_done = hi;
	}
	return 0;
#else
	(void)len;
	return -1;
#endif
}

void heap_expect(size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
	long pg = sysconf(_SC_PAGESIZE);
	char *hi;
	if (!heap_lo || !heap_small_end || pg <= 0)
		return;
	hi = bytes < (size_t)(heap_small_end - heap_lo) ? heap_lo + bytes : heap_small_end;
	hi = (char *)((uintptr_t)hi & ~((uintptr_t)pg - 1));
	if (hi <= heap_done)
		return;
	(void)madvise(heap_done, (size_t)(hi - heap_done), MADV_POPULATE_WRITE);
	heap_done = hi;
#else
	(void)bytes;
#endif
}

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
		if (heap_lo && (char *)first > heap_lo)
			heap_small_end = (char *)first + first_len;
	}
	free(first); /* a free block below the spacer, used first */
	return more ? 0 : BH_ENOMEM;
}
