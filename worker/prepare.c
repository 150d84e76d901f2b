/* worker/prepare.c — see prepare.h. */
#include "worker/prepare.h"

#include <jansson.h>
#include <malloc.h>
#include <openssl/crypto.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>

#include "tmpl/tmpl.h"

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* glibc's qsort asks sysconf(_SC_PHYS_PAGES), i.e. sysinfo(), the first time
 * it sorts 1 KiB or more, and keeps the answer: 1 KiB of 128 sorted values
 * is the cheapest such sort (about 450 comparisons; 4096 bytes one by one
 * took 50 k, 0.3 ms of each start). */
static void prepare_qsort(void)
{
	uint64_t v[1024 / sizeof(uint64_t)];
	for (size_t i = 0; i < sizeof v / sizeof *v; i++)
		v[i] = i;
	qsort(v, sizeof v / sizeof *v, sizeof *v, by_value);
}

/* OpenSSL would read its configuration file the first time it is used
 * (an open the filter refuses): initialised here without it, and without
 * the cipher/digest name tables and the exit-time clean-up. A worker needs
 * no configuration (no TLS; the digests, ciphers and key types of the
 * template functions are the built-in default provider's), and no host file
 * can change what a template function computes. The rest is lazy: the
 * provider's algorithms are fetched and the random generator seeded (by
 * getrandom, allowed) by the first job that uses them, after the lock-down.
 * A podinfo install needs one digest, never the ciphers nor the random
 * generator: their set-up was about 5 ms of each worker's start
 * (tests/e2e/sandbox_crypto.sh runs every crypto function locked down). */
static int prepare_openssl(void)
{
	return OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_ADD_ALL_CIPHERS |
					   OPENSSL_INIT_NO_ADD_ALL_DIGESTS | OPENSSL_INIT_NO_ATEXIT,
				   NULL)
		       ? 0
		       : -1;
}

/* The heap on transparent huge pages. On a paravirtualised guest (PVM) each
 * page the worker first touches costs a fault of 20-50 us (the exception,
 * not the page): a podinfo install touched about 380 heap pages, 7-10 ms of
 * its CPU. A 2 MiB huge page is one fault.
 * malloc's top chunk is moved to the next 2 MiB boundary (a spacer block
 * that is never touched takes up the space before it, so it costs address
 * space only), grown by PREPARE_HEAP_HUGE and marked MADV_HUGEPAGE, and
 * kept: no trimming, and blocks up to 8 MiB come from it rather than from
 * mmap (whose 4 KiB pages would fault one by one again). A host without
 * transparent huge pages ("never", or a kernel without them) leaves the
 * heap as it was: madvise fails or is ignored and the worker goes on. The
 * layout stays random: the heap's start is the kernel's, only the first
 * boundary above it is taken. */
#define PREPARE_HUGE ((uintptr_t)2 << 20)
#define PREPARE_HEAP_HUGE ((size_t)4 << 20)

static void *heap_spacer[2]; /* held for the worker's life */

static void prepare_heap(void)
{
	char *first, *grow;
	uintptr_t bound, end;
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	mallopt(M_MMAP_THRESHOLD, 8 << 20);
	if (!(first = heap_spacer[0] = malloc(64)))
		return;
	bound = ((uintptr_t)first + PREPARE_HUGE - 1) & ~(PREPARE_HUGE - 1);
	if (bound - (uintptr_t)first < 8192)
		bound += PREPARE_HUGE;
	/* the spacer ends a page below the boundary: its header and the next
	 * block's are the only bytes written there */
	if (!(heap_spacer[1] = malloc(bound - (uintptr_t)first - 4096)))
		return;
	if (!(grow = malloc(PREPARE_HEAP_HUGE + PREPARE_HUGE)))
		return;
	end = ((uintptr_t)grow + PREPARE_HEAP_HUGE + PREPARE_HUGE) & ~(PREPARE_HUGE - 1);
	if (end > bound)
		madvise((void *)bound, end - bound, MADV_HUGEPAGE);
	free(grow); /* back to the top chunk, which is not trimmed */
}

/* jansson's hash seed in one getrandom(): json_object_seed(0) would open
 * and read /dev/urandom (three calls and a path walk). 0 asks jansson for
 * its own (the /dev/urandom way), so a zero draw becomes 1. */
static void prepare_json_seed(void)
{
	uint32_t seed;
	if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
		seed = 0;
	else if (seed == 0)
		seed = 1;
	json_object_seed(seed);
}

int worker_prepare(void)
{
	struct tm tm;
	time_t t0 = 0;
	prepare_heap();         /* first: before anything is allocated */
	prepare_json_seed();
	tzset();                /* gmtime_r and localtime_r read /etc/localtime */
	gmtime_r(&t0, &tm);
	localtime_r(&t0, &tm);
	tmpl_prepare_sandbox(); /* time zones for now/date/toDate */
	prepare_qsort();
	if (prepare_openssl() < 0)
		return -1;
	return 0;
}
