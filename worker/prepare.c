/* worker/prepare.c — see prepare.h. */
#include "worker/prepare.h"

#include <jansson.h>
#include <openssl/crypto.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "lib/heap.h"
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

/* The heap on transparent huge pages (lib/heap.h): a podinfo install
 * touched about 380 heap pages, 7-10 ms of its CPU on a PVM guest, and a
 * 2 MiB huge page is one fault. No small region below (a worker's heap is
 * all job), 4 MiB marked MADV_HUGEPAGE, blocks up to 8 MiB from the heap. */
#define PREPARE_HEAP_HUGE ((size_t)4 << 20)
#define PREPARE_HEAP_MMAP (8 << 20)

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

/* glibc's time zone, loaded now: gmtime_r and localtime_r load it at their
 * first call, and after the lock-down the open would trap. TZ="" (as
 * bulkheadd starts workers) is UTC, which glibc reads from
 * /usr/share/zoneinfo/Universal (seven system calls, a stdio buffer and
 * the file's parse, about 2% of a worker's start); "UTC0" is the same zone
 * (UTC, offset 0, no daylight saving) in POSIX form, parsed after one
 * failed open. Only glibc's zone changes: the template engine's Local was
 * read from TZ="" before (tmpl_prepare_sandbox), and nothing in a worker
 * reads TZ afterwards. */
static void prepare_tz(void)
{
	const char *tz = getenv("TZ");
	struct tm tm;
	time_t t0 = 0;
	if (tz && !*tz)
		(void)setenv("TZ", "UTC0", 1);
	tzset();
	gmtime_r(&t0, &tm);
	localtime_r(&t0, &tm);
}

int worker_prepare(void)
{
	(void)heap_huge_pages(0, PREPARE_HEAP_HUGE, PREPARE_HEAP_MMAP); /* first: before anything is allocated */
	prepare_json_seed();
	tmpl_prepare_sandbox(); /* time zones for now/date/toDate: first, it reads TZ */
	prepare_tz();
	prepare_qsort();
	if (prepare_openssl() < 0)
		return -1;
	return 0;
}
