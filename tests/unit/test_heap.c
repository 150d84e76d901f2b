/* tests/unit/test_heap.c — lib/heap: heap_expect populates the heap up to
 * the bytes it is told, and no further. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/heap.h"
#include "tests/unit/unit_util.h"

/* how many of the pages of [p, p + len) are resident */
static size_t resident(const void *p, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(pg - 1), hi = ((uintptr_t)p + len + pg - 1) & ~(uintptr_t)(pg - 1);
	size_t n = (hi - lo) / pg, got = 0;
	unsigned char *v = malloc(n);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(mincore((void *)lo, hi - lo, v), 0);
	for (size_t i = 0; i < n; i++)
		got += v[i] & 1;
	free(v);
	return got;
}

START_TEST(test_heap_expect)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	/* under a sanitizer's allocator the heap is not brk's: nothing is
	 * done, and there is nothing to check */
	if (heap_populate(64 << 10) < 0)
		return;
	ck_assert_int_eq(heap_huge_pages(1 << 20, 4 << 20, 32 << 20), 0);
	/* the heap's start, as heap_populate took it: the page of its first
	 * block (malloc(1), freed, and given again) */
	char *q = malloc(1);
	ck_assert_ptr_nonnull(q);
	char *lo = (char *)((uintptr_t)q & ~(uintptr_t)(pg - 1));
	/* the rest of the 1 MiB 4 KiB part is a free block no one wrote */
	ck_assert_uint_lt(resident(lo + (300 << 10), 200 << 10), 2);
	heap_expect(512 << 10);
	ck_assert_uint_eq(resident(lo, 512 << 10), (512 << 10) / pg);
	ck_assert_uint_lt(resident(lo + (600 << 10), 200 << 10), 2); /* not past what was asked */
	heap_expect(0); /* never less */
	ck_assert_uint_eq(resident(lo, 512 << 10), (512 << 10) / pg);
	free(q);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("heap");
	TCase *tc = tcase_create("expect");
	tcase_add_test(tc, test_heap_expect);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
