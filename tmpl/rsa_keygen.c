/* tmpl/rsa_keygen.c — see rsa_keygen.h. Candidates are found by an
 * incremental search from a random odd start (residues modulo the small
 * primes are computed once, then stepped), and tested with Miller-Rabin on
 * random bases. */
#include "tmpl/rsa_keygen.h"
#include "tmpl/tmpl.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/param_build.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define NSMALL 2048        /* odd primes used to sieve candidates */
#define MAX_DELTA (1 << 16) /* then a fresh random start */

/* FIPS 186-5 Appendix C.1 (error 2^-100 for a random candidate), as Go's
 * crypto/rsa millerRabinIterations. */
static int mr_rounds(int bits)
{
	if (bits >= 3747)
		return 3;
	if (bits >= 1345)
		return 4;
	if (bits >= 476)
		return 5;
	if (bits >= 400)
		return 6;
	if (bits >= 347)
		return 7;
	if (bits >= 308)
		return 8;
	if (bits >= 55)
		return 27;
	return 34;
}

static void small_primes(uint32_t *out)
{
	int n = 0;
	for (uint32_t c = 3; n < NSMALL; c += 2) {
		int prime = 1;
		for (int i = 0; i < n && out[i] * out[i] <= c; i++)
			if (c % out[i] == 0) {
				prime = 0;
				break;
			}
		if (prime)
			out[n++] = c;
	}
}

/* 1 when w (odd, > 3) passes `rounds` Miller-Rabin rounds, 0 when
 * composite, -1 on failure. */
static int miller_rabin(const BIGNUM *w, int rounds, BN_CTX *ctx)
{
	int rc = -1, a = 0;
	BN_CTX_start(ctx);
	BIGNUM *w1 = BN_CTX_get(ctx), *m = BN_CTX_get(ctx), *b = BN_CTX_get(ctx);
	BIGNUM *z = BN_CTX_get(ctx), *r3 = BN_CTX_get(ctx);
	BN_MONT_CTX *mont = BN_MONT_CTX_new();
	if (!r3 || !mont || !BN_MONT_CTX_set(mont, w, ctx) || !BN_sub(w1, w, BN_value_one()))
		goto out;
	while (!BN_is_bit_set(w1, a))
		a++;
	if (!BN_rshift(m, w1, a) || !BN_sub(r3, w, BN_value_one()) || !BN_sub_word(r3, 2))
		goto out;
	for (int i = 0; i < rounds; i++) {
		/* b in [2, w-2] */
		if (!BN_priv_rand_range(b, r3) || !BN_add_word(b, 2) ||
		    !BN_mod_exp_mont(z, b, m, w, ctx, mont))
			goto out;
		if (BN_is_one(z) || !BN_cmp(z, w1))
			continue;
		int j;
		for (j = 1; j < a; j++) {
			if (!BN_mod_sqr(z, z, w, ctx))
				goto out;
			if (!BN_cmp(z, w1))
				break;
			if (BN_is_one(z)) {
				rc = 0;
				goto out;
			}
		}
		if (j == a) {
			rc = 0;
			goto out;
		}
	}
	rc = 1;
out:
	BN_MONT_CTX_free(mont);
	BN_CTX_end(ctx);
	return rc;
}

/* tmpl_rsa_keygen_threads() (tmpl/tmpl.h) */
static int keygen_threads = 1;

void tmpl_rsa_keygen_threads(int n)
{
	keygen_threads = n < 1 ? 1 : n > 8 ? 8 : n;
}

/* A random prime of exactly `bits` bits whose top two bits are set; 1 when
 * *stop became set first (another search found one). */
static int random_prime(BIGNUM *p, int bits, const uint32_t *sp, BN_CTX *ctx, atomic_int *stop)
{
	uint32_t *res = malloc(NSMALL * sizeof *res);
	BIGNUM *start = BN_new();
	int rc = -1;
	if (!res || !start)
		goto out;
	for (;;) {
		if (!BN_priv_rand(start, bits, BN_RAND_TOP_TWO, BN_RAND_BOTTOM_ODD))
			goto out;
		for (int i = 0; i < NSMALL; i++) {
			BN_ULONG r = BN_mod_word(start, sp[i]);
			if (r == (BN_ULONG)-1)
				goto out;
			res[i] = (uint32_t)r;
		}
		for (uint32_t d = 0; d < MAX_DELTA; d += 2) {
			int i;
			for (i = 0; i < NSMALL; i++)
				if ((res[i] + d) % sp[i] == 0)
					break;
			if (i < NSMALL)
				continue;
			if (stop && atomic_load(stop)) {
				rc = 1;
				goto out;
			}
			if (!BN_copy(p, start) || !BN_add_word(p, d))
				goto out;
			if (BN_num_bits(p) != bits)
				break;
			int mr = miller_rabin(p, mr_rounds(bits), ctx);
			if (mr < 0)
				goto out;
			if (mr) {
				rc = 0;
				goto out;
			}
		}
	}
out:
	free(res);
	BN_free(start);
	return rc;
}

/* One search of prime_race: its own candidate and context. */
struct prime_search {
	int bits;
	const uint32_t *sp;
	atomic_int *stop;
	BIGNUM *p;
	BN_CTX *ctx;
	int rc;
	pthread_t th;
};

static void *prime_search_main(void *arg)
{
	struct prime_search *s = arg;
	s->rc = random_prime(s->p, s->bits, s->sp, s->ctx, s->stop);
	if (s->rc == 0)
		atomic_store(s->stop, 1);
	return NULL;
}

/* random_prime, as keygen_threads independent searches from their own
 * random starts, the first prime found taken: the time to a prime is the
 * shortest of theirs (the search's time is its prime gap's, which varies
 * tenfold), and a key's two primes take about the time one took. */
static int prime_race(BIGNUM *p, int bits, const uint32_t *sp, BN_CTX *ctx)
{
	struct prime_search s[8];
	atomic_int stop;
	int n = keygen_threads, started = 0, rc = -1;
	if (n <= 1)
		return random_prime(p, bits, sp, ctx, NULL);
	atomic_init(&stop, 0);
	for (int i = 0; i < n; i++) {
		s[i] = (struct prime_search){bits, sp, &stop, BN_secure_new(), BN_CTX_secure_new(), -1, 0};
		if (!s[i].p || !s[i].ctx || (i > 0 && pthread_create(&s[i].th, NULL, prime_search_main, &s[i]))) {
			BN_clear_free(s[i].p);
			BN_CTX_free(s[i].ctx);
			break;
		}
		started++;
	}
	if (started > 0)
		prime_search_main(&s[0]);
	for (int i = 1; i < started; i++)
		pthread_join(s[i].th, NULL);
	for (int i = 0; i < started; i++) {
		if (rc != 0 && s[i].rc == 0)
			rc = BN_copy(p, s[i].p) ? 0 : -1;
		BN_clear_free(s[i].p);
		BN_CTX_free(s[i].ctx);
	}
	if (!started)
		return random_prime(p, bits, sp, ctx, NULL);
	return rc;
}

static EVP_PKEY *from_parts(BIGNUM *const v[8])
{
	static const char *const names[8] = {
		OSSL_PKEY_PARAM_RSA_N, OSSL_PKEY_PARAM_RSA_E, OSSL_PKEY_PARAM_RSA_D,
		OSSL_PKEY_PARAM_RSA_FACTOR1, OSSL_PKEY_PARAM_RSA_FACTOR2,
		OSSL_PKEY_PARAM_RSA_EXPONENT1, OSSL_PKEY_PARAM_RSA_EXPONENT2,
		OSSL_PKEY_PARAM_RSA_COEFFICIENT1,
	};
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *pc = NULL;
	EVP_PKEY *k = NULL;
	int ok = bld != NULL;
	for (int i = 0; ok && i < 8; i++)
		ok = OSSL_PARAM_BLD_push_BN(bld, names[i], v[i]);
	if (ok && (params = OSSL_PARAM_BLD_to_param(bld)) &&
	    (pc = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL)) && EVP_PKEY_fromdata_init(pc) > 0 &&
	    EVP_PKEY_fromdata(pc, &k, EVP_PKEY_KEYPAIR, params) <= 0)
		k = NULL;
	EVP_PKEY_CTX_free(pc);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	return k;
}

EVP_PKEY *rsa_keygen_go(int bits)
{
	uint32_t *sp = malloc(NSMALL * sizeof *sp);
	BN_CTX *ctx = BN_CTX_secure_new();
	EVP_PKEY *k = NULL;
	/* n e d p q dP dQ qInv, then p-1 q-1 lcm gcd scratch */
	BIGNUM *v[13] = {0};
	int ok = sp && ctx;
	for (int i = 0; ok && i < 13; i++)
		ok = (v[i] = BN_secure_new()) != NULL;
	if (!ok || bits < 1024 || !BN_set_word(v[1], 65537))
		goto out;
	small_primes(sp);
	BIGNUM *n = v[0], *e = v[1], *d = v[2], *p = v[3], *q = v[4];
	BIGNUM *p1 = v[8], *q1 = v[9], *lcm = v[10], *g = v[11], *t = v[12];
	for (;;) {
		if (prime_race(p, (bits + 1) / 2, sp, ctx) || prime_race(q, bits / 2, sp, ctx))
			goto out;
		/* |p - q| large, as FIPS 186-5 A.1.3 asks */
		if (!BN_sub(t, p, q))
			goto out;
		if (BN_num_bits(t) <= bits / 2 - 100)
			continue;
		if (!BN_mul(n, p, q, ctx) || !BN_sub(p1, p, BN_value_one()) || !BN_sub(q1, q, BN_value_one()) ||
		    !BN_gcd(g, p1, q1, ctx) || !BN_mul(t, p1, q1, ctx) || !BN_div(lcm, NULL, t, g, ctx))
			goto out;
		if (BN_num_bits(n) != bits)
			continue;
		/* d = e^-1 mod lambda(n); none when e divides p-1 or q-1 */
		ERR_set_mark();
		BIGNUM *inv = BN_mod_inverse(d, e, lcm, ctx);
		ERR_pop_to_mark();
		if (!inv)
			continue;
		if (!BN_mod(v[5], d, p1, ctx) || !BN_mod(v[6], d, q1, ctx) || !BN_mod_inverse(v[7], q, p, ctx))
			goto out;
		break;
	}
	k = from_parts(v);
out:
	for (int i = 0; i < 13; i++)
		BN_clear_free(v[i]);
	BN_CTX_free(ctx);
	free(sp);
	return k;
}
