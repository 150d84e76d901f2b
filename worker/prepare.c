/* worker/prepare.c — see prepare.h. */
#include "worker/prepare.h"

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
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

/* OpenSSL would read its configuration file and load providers lazily. A
 * worker needs no configuration (no TLS; the digests, ciphers and key types
 * of the template functions are the built-in default provider's) nor the
 * cipher/digest name tables (nothing looks one up by name): skipping both
 * halves OpenSSL's share of a worker's start-up, and no host file can
 * change what a template function computes. */
static int prepare_openssl(void)
{
	unsigned char d[EVP_MAX_MD_SIZE], r[16];
	unsigned int dl;
	if (!OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_ADD_ALL_CIPHERS |
					 OPENSSL_INIT_NO_ADD_ALL_DIGESTS,
				 NULL))
		return -1;
	EVP_Digest("x", 1, d, &dl, EVP_sha256(), NULL);
	EVP_Digest("x", 1, d, &dl, EVP_sha1(), NULL);
	EVP_Digest("x", 1, d, &dl, EVP_md5(), NULL);
	return RAND_bytes(r, sizeof r) == 1 ? 0 : -1;
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
