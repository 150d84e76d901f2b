/* worker/prepare.c — see prepare.h. */
#include "worker/prepare.h"

#include <jansson.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tmpl/tmpl.h"

static int by_byte(const void *a, const void *b)
{
	return *(const unsigned char *)a - *(const unsigned char *)b;
}

/* glibc's qsort asks sysconf(_SC_PHYS_PAGES), i.e. sysinfo(), the first time
 * it sorts 1 KiB or more, and keeps the answer. */
static void prepare_qsort(void)
{
	unsigned char v[4096];
	for (size_t i = 0; i < sizeof v; i++)
		v[i] = (unsigned char)(i * 7919u);
	qsort(v, sizeof v, 1, by_byte);
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

int worker_prepare(void)
{
	struct tm tm;
	time_t t0 = 0;
	json_object_seed(0);    /* jansson's hash seed reads /dev/urandom */
	tzset();                /* gmtime_r and localtime_r read /etc/localtime */
	gmtime_r(&t0, &tm);
	localtime_r(&t0, &tm);
	tmpl_prepare_sandbox(); /* time zones for now/date/toDate */
	prepare_qsort();
	if (prepare_openssl() < 0)
		return -1;
	return 0;
}
