/* lib/heap.h — malloc's heap on transparent huge pages, for a short-lived
 * process that touches many heap pages (bulkhead-worker, the bulkhead CLI).
 *
 * On a paravirtualised guest each page a process first touches costs a
 * fault of 20-50 us (the exception, not the page); a 2 MiB huge page is one
 * fault. heap_huge_pages() keeps the first `small` bytes of the heap on 4 KiB
 * pages (a free block malloc fills first: a small run's peak RSS stays what
 * it was), takes the heap to the next 2 MiB boundary with a spacer block
 * that is allocated and never touched (address space only, held for the
 * process's life), grows it by `grow` bytes marked MADV_HUGEPAGE and hands
 * them back to malloc's top chunk, which is never trimmed; blocks up to
 * `mmap_threshold` bytes come from the heap rather than from mmap (whose
 * 4 KiB pages would fault one by one again). The layout stays random: the
 * heap's start is the kernel's, only the first boundary above it is taken.
 * Call it first, before anything is allocated. A host without transparent
 * huge pages refuses or ignores the madvise and the pages fault in as
 * before; a sanitizer's allocator refuses the mallopt and nothing changes. */
/*
 * heap_populate() populates the heap's first bytes in one madvise (a page
 * faulted in one at a time costs ~2.7 us on this kind of VM, a populated
 * one ~1.4 us); heap_expect() then lets code that learns how big the run
 * will be (the chart loader) populate more of the 4 KiB part the same way.
 */
#ifndef BH_LIB_HEAP_H
#define BH_LIB_HEAP_H

#include <stddef.h>

/* 0 when the heap was arranged (madvise may still have been ignored);
 * BH_EINVAL when malloc refuses the settings, BH_ENOMEM when a block could
 * not be had. Either way the process goes on with the heap it has. */
int heap_huge_pages(size_t small, size_t grow, int mmap_threshold);

/* Populates the first len bytes of malloc's heap (from its first block,
 * brk moved there by M_TOP_PAD = len; the heap is never trimmed) and arms
 * heap_expect. 0 (the pages
 * fault in as used where the madvise is not there), or -1 when malloc's
 * heap is not brk's (a sanitizer's or valgrind's allocator): nothing is
 * done then. Call it first. */
int heap_populate(size_t len);

/* The process is about to use about `bytes` of heap in all: the pages up
 * to there, within the 4 KiB part heap_huge_pages keeps (its `small`
 * bytes), are populated now, in one madvise, instead of faulting one at a
 * time later. Nothing unless heap_populate and heap_huge_pages were
 * called; never more than once per page. */
void heap_expect(size_t bytes);

#endif
