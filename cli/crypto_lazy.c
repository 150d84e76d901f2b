/* cli/crypto_lazy.c — the libcrypto (OpenSSL 3) functions the `bulkhead`
 * command uses, loaded with dlopen() the first time one is called, as
 * cli/curl_lazy.c does for libcurl. Linked in, libcrypto's static archive
 * costs every start 16,600 relocations that write 88 pages of tables
 * (object identifiers, providers, error strings) and a CPUID probe: about
 * 100 page faults and 2.5 ms of CPU, a fifth of rendering a small chart that
 * never calls a crypto function. Only a template that does (genCA,
 * encryptAES, sha1sum, float math, ...) or a provenance check pays the load
 * now. It has no header: it defines libcrypto's own API (the CLI is linked
 * without -lcrypto; a libcrypto function the CLI's libraries use and missing
 * here fails the link, and belongs in CRYPTO_FUNCS). Every prototype is
 * checked against OpenSSL's headers by the compiler. */
#include "cli/lazy_open.h"

#include <openssl/asn1.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/param_build.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define LIBCRYPTO_SONAME "libcrypto.so.3"

/* F(return type, value when the library cannot be loaded, name, parameters,
 * arguments); V(name, parameters, arguments) for a function returning void */
#define CRYPTO_FUNCS(F, V) \
	V(ASN1_IA5STRING_free, (ASN1_IA5STRING *a), (a)) \
	F(ASN1_IA5STRING *, NULL, ASN1_IA5STRING_new, (void), ()) \
	V(ASN1_OCTET_STRING_free, (ASN1_OCTET_STRING *a), (a)) \
	F(ASN1_OCTET_STRING *, NULL, ASN1_OCTET_STRING_new, (void), ()) \
	F(int, 0, ASN1_OCTET_STRING_set, (ASN1_OCTET_STRING *a, const unsigned char *b, int c), (a, b, c)) \
	F(int, 0, ASN1_STRING_set, (ASN1_STRING *a, const void *b, int c), (a, b, c)) \
	V(BN_CTX_end, (BN_CTX *a), (a)) \
	V(BN_CTX_free, (BN_CTX *a), (a)) \
	F(BIGNUM *, NULL, BN_CTX_get, (BN_CTX *a), (a)) \
	F(BN_CTX *, NULL, BN_CTX_new, (void), ()) \
	F(BN_CTX *, NULL, BN_CTX_secure_new, (void), ()) \
	V(BN_CTX_start, (BN_CTX *a), (a)) \
	V(BN_MONT_CTX_free, (BN_MONT_CTX *a), (a)) \
	F(BN_MONT_CTX *, NULL, BN_MONT_CTX_new, (void), ()) \
	F(int, 0, BN_MONT_CTX_set, (BN_MONT_CTX *a, const BIGNUM *b, BN_CTX *c), (a, b, c)) \
	F(int, 0, BN_add, (BIGNUM *a, const BIGNUM *b, const BIGNUM *c), (a, b, c)) \
	F(int, 0, BN_add_word, (BIGNUM *a, unsigned long b), (a, b)) \
	F(BIGNUM *, NULL, BN_bin2bn, (const unsigned char *a, int b, BIGNUM *c), (a, b, c)) \
	F(char *, NULL, BN_bn2dec, (const BIGNUM *a), (a)) \
	V(BN_clear_free, (BIGNUM *a), (a)) \
	F(int, 0, BN_cmp, (const BIGNUM *a, const BIGNUM *b), (a, b)) \
	F(BIGNUM *, NULL, BN_copy, (BIGNUM *a, const BIGNUM *b), (a, b)) \
	F(int, 0, BN_dec2bn, (BIGNUM **a, const char *b), (a, b)) \
	F(int, 0, BN_div, (BIGNUM *a, BIGNUM *b, const BIGNUM *c, const BIGNUM *d, BN_CTX *e), (a, b, c, d, e)) \
	F(BIGNUM *, NULL, BN_dup, (const BIGNUM *a), (a)) \
	F(int, 0, BN_exp, (BIGNUM *a, const BIGNUM *b, const BIGNUM *c, BN_CTX *d), (a, b, c, d)) \
	V(BN_free, (BIGNUM *a), (a)) \
	F(int, 0, BN_gcd, (BIGNUM *a, const BIGNUM *b, const BIGNUM *c, BN_CTX *d), (a, b, c, d)) \
	F(int, 0, BN_is_bit_set, (const BIGNUM *a, int b), (a, b)) \
	F(int, 0, BN_is_negative, (const BIGNUM *a), (a)) \
	F(int, 0, BN_is_one, (const BIGNUM *a), (a)) \
	F(int, 0, BN_is_zero, (const BIGNUM *a), (a)) \
	F(int, 0, BN_lshift, (BIGNUM *a, const BIGNUM *b, int c), (a, b, c)) \
	F(int, 0, BN_lshift1, (BIGNUM *a, const BIGNUM *b), (a, b)) \
	F(int, 0, BN_mod_exp_mont, (BIGNUM *a, const BIGNUM *b, const BIGNUM *c, const BIGNUM *d, BN_CTX *e, BN_MONT_CTX *f), (a, b, c, d, e, f)) \
	F(BIGNUM *, NULL, BN_mod_inverse, (BIGNUM *a, const BIGNUM *b, const BIGNUM *c, BN_CTX *d), (a, b, c, d)) \
	F(int, 0, BN_mod_sqr, (BIGNUM *a, const BIGNUM *b, const BIGNUM *c, BN_CTX *d), (a, b, c, d)) \
	F(unsigned long, (BN_ULONG)-1, BN_mod_word, (const BIGNUM *a, unsigned long b), (a, b)) \
	F(int, 0, BN_mul, (BIGNUM *a, const BIGNUM *b, const BIGNUM *c, BN_CTX *d), (a, b, c, d)) \
	F(BIGNUM *, NULL, BN_new, (void), ()) \
	F(int, 0, BN_num_bits, (const BIGNUM *a), (a)) \
	F(int, 0, BN_priv_rand, (BIGNUM *a, int b, int c, int d), (a, b, c, d)) \
	F(int, 0, BN_priv_rand_range, (BIGNUM *a, const BIGNUM *b), (a, b)) \
	F(int, 0, BN_rshift, (BIGNUM *a, const BIGNUM *b, int c), (a, b, c)) \
	F(BIGNUM *, NULL, BN_secure_new, (void), ()) \
	V(BN_set_negative, (BIGNUM *a, int b), (a, b)) \
	F(int, 0, BN_set_word, (BIGNUM *a, unsigned long b), (a, b)) \
	F(int, 0, BN_sub, (BIGNUM *a, const BIGNUM *b, const BIGNUM *c), (a, b, c)) \
	F(int, 0, BN_sub_word, (BIGNUM *a, unsigned long b), (a, b)) \
	F(ASN1_INTEGER *, NULL, BN_to_ASN1_INTEGER, (const BIGNUM *a, ASN1_INTEGER *b), (a, b)) \
	F(const BIGNUM *, NULL, BN_value_one, (void), ()) \
	V(BN_zero_ex, (BIGNUM *a), (a)) \
	V(CRYPTO_clear_free, (void *a, size_t b, const char *c, int d), (a, b, c, d)) \
	F(void *, NULL, CRYPTO_malloc, (size_t a, const char *b, int c), (a, b, c)) \
	V(CRYPTO_free, (void *a, const char *b, int c), (a, b, c)) \
	V(ECDSA_SIG_free, (ECDSA_SIG *a), (a)) \
	F(ECDSA_SIG *, NULL, ECDSA_SIG_new, (void), ()) \
	F(int, 0, ECDSA_SIG_set0, (ECDSA_SIG *a, BIGNUM *b, BIGNUM *c), (a, b, c)) \
	F(int, 0, ERR_pop_to_mark, (void), ()) \
	F(int, 0, ERR_set_mark, (void), ()) \
	V(EVP_CIPHER_CTX_free, (EVP_CIPHER_CTX *a), (a)) \
	F(EVP_CIPHER_CTX *, NULL, EVP_CIPHER_CTX_new, (void), ()) \
	F(int, 0, EVP_CIPHER_CTX_set_padding, (EVP_CIPHER_CTX *a, int b), (a, b)) \
	F(int, 0, EVP_CipherFinal_ex, (EVP_CIPHER_CTX *a, unsigned char *b, int *c), (a, b, c)) \
	F(int, 0, EVP_CipherInit_ex, (EVP_CIPHER_CTX *a, const EVP_CIPHER *b, ENGINE *c, const unsigned char *d, const unsigned char *e, int f), (a, b, c, d, e, f)) \
	F(int, 0, EVP_CipherUpdate, (EVP_CIPHER_CTX *a, unsigned char *b, int *c, const unsigned char *d, int e), (a, b, c, d, e)) \
	F(int, 0, EVP_Digest, (const void *a, size_t b, unsigned char *c, unsigned int *d, const EVP_MD *e, ENGINE *f), (a, b, c, d, e, f)) \
	F(int, 0, EVP_DigestFinal_ex, (EVP_MD_CTX *a, unsigned char *b, unsigned int *c), (a, b, c)) \
	F(int, 0, EVP_DigestInit_ex, (EVP_MD_CTX *a, const EVP_MD *b, ENGINE *c), (a, b, c)) \
	F(int, 0, EVP_DigestUpdate, (EVP_MD_CTX *a, const void *b, size_t c), (a, b, c)) \
	F(int, 0, EVP_DigestVerify, (EVP_MD_CTX *a, const unsigned char *b, size_t c, const unsigned char *d, size_t e), (a, b, c, d, e)) \
	F(int, 0, EVP_DigestVerifyInit, (EVP_MD_CTX *a, EVP_PKEY_CTX **b, const EVP_MD *c, ENGINE *d, EVP_PKEY *e), (a, b, c, d, e)) \
	F(int, 0, EVP_MD_CTX_copy_ex, (EVP_MD_CTX *a, const EVP_MD_CTX *b), (a, b)) \
	V(EVP_MD_CTX_free, (EVP_MD_CTX *a), (a)) \
	F(EVP_MD_CTX *, NULL, EVP_MD_CTX_new, (void), ()) \
	F(int, 0, EVP_PBE_scrypt, (const char *a, size_t b, const unsigned char *c, size_t d, uint64_t e, uint64_t f, uint64_t g, uint64_t h, unsigned char *i, size_t j), (a, b, c, d, e, f, g, h, i, j)) \
	F(EVP_PKEY *, NULL, EVP_PKCS82PKEY, (const PKCS8_PRIV_KEY_INFO *a), (a)) \
	F(PKCS8_PRIV_KEY_INFO *, NULL, EVP_PKEY2PKCS8, (const EVP_PKEY *a), (a)) \
	V(EVP_PKEY_CTX_free, (EVP_PKEY_CTX *a), (a)) \
	F(EVP_PKEY_CTX *, NULL, EVP_PKEY_CTX_new, (EVP_PKEY *a, ENGINE *b), (a, b)) \
	F(EVP_PKEY_CTX *, NULL, EVP_PKEY_CTX_new_from_name, (OSSL_LIB_CTX *a, const char *b, const char *c), (a, b, c)) \
	F(EVP_PKEY_CTX *, NULL, EVP_PKEY_CTX_new_from_pkey, (OSSL_LIB_CTX *a, EVP_PKEY *b, const char *c), (a, b, c)) \
	F(int, 0, EVP_PKEY_CTX_set_dsa_paramgen_bits, (EVP_PKEY_CTX *a, int b), (a, b)) \
	F(int, 0, EVP_PKEY_CTX_set_dsa_paramgen_q_bits, (EVP_PKEY_CTX *a, int b), (a, b)) \
	F(int, 0, EVP_PKEY_CTX_set_rsa_padding, (EVP_PKEY_CTX *a, int b), (a, b)) \
	F(int, 0, EVP_PKEY_CTX_set_signature_md, (EVP_PKEY_CTX *a, const EVP_MD *b), (a, b)) \
	V(EVP_PKEY_free, (EVP_PKEY *a), (a)) \
	F(int, 0, EVP_PKEY_fromdata, (EVP_PKEY_CTX *a, EVP_PKEY **b, int c, OSSL_PARAM *d), (a, b, c, d)) \
	F(int, 0, EVP_PKEY_fromdata_init, (EVP_PKEY_CTX *a), (a)) \
	F(int, 0, EVP_PKEY_get_base_id, (const EVP_PKEY *a), (a)) \
	F(int, 0, EVP_PKEY_get_size, (const EVP_PKEY *a), (a)) \
	F(int, 0, EVP_PKEY_keygen, (EVP_PKEY_CTX *a, EVP_PKEY **b), (a, b)) \
	F(int, 0, EVP_PKEY_keygen_init, (EVP_PKEY_CTX *a), (a)) \
	F(EVP_PKEY *, NULL, EVP_PKEY_new_raw_public_key, (int a, ENGINE *b, const unsigned char *c, size_t d), (a, b, c, d)) \
	F(int, 0, EVP_PKEY_paramgen, (EVP_PKEY_CTX *a, EVP_PKEY **b), (a, b)) \
	F(int, 0, EVP_PKEY_paramgen_init, (EVP_PKEY_CTX *a), (a)) \
	F(int, 0, EVP_PKEY_verify, (EVP_PKEY_CTX *a, const unsigned char *b, size_t c, const unsigned char *d, size_t e), (a, b, c, d, e)) \
	F(int, 0, EVP_PKEY_verify_init, (EVP_PKEY_CTX *a), (a)) \
	F(const EVP_CIPHER *, NULL, EVP_aes_256_cbc, (void), ()) \
	F(const EVP_MD *, NULL, EVP_sha1, (void), ()) \
	F(const EVP_MD *, NULL, EVP_sha224, (void), ()) \
	F(const EVP_MD *, NULL, EVP_sha256, (void), ()) \
	F(const EVP_MD *, NULL, EVP_sha384, (void), ()) \
	F(const EVP_MD *, NULL, EVP_sha3_256, (void), ()) \
	F(const EVP_MD *, NULL, EVP_sha3_512, (void), ()) \
	F(const EVP_MD *, NULL, EVP_sha512, (void), ()) \
	V(GENERAL_NAMES_free, (GENERAL_NAMES *a), (a)) \
	V(GENERAL_NAME_free, (GENERAL_NAME *a), (a)) \
	F(GENERAL_NAME *, NULL, GENERAL_NAME_new, (void), ()) \
	V(GENERAL_NAME_set0_value, (GENERAL_NAME *a, int b, void *c), (a, b, c)) \
	F(unsigned char *, NULL, HMAC, (const EVP_MD *a, const void *b, int c, const unsigned char *d, size_t e, unsigned char *f, unsigned int *g), (a, b, c, d, e, f, g)) \
	F(OPENSSL_STACK *, NULL, OPENSSL_sk_new_null, (void), ()) \
	F(int, -1, OPENSSL_sk_num, (const OPENSSL_STACK *a), (a)) \
	F(int, 0, OPENSSL_sk_push, (OPENSSL_STACK *a, const void *b), (a, b)) \
	V(OSSL_PARAM_BLD_free, (OSSL_PARAM_BLD *a), (a)) \
	F(OSSL_PARAM_BLD *, NULL, OSSL_PARAM_BLD_new, (void), ()) \
	F(int, 0, OSSL_PARAM_BLD_push_BN, (OSSL_PARAM_BLD *a, const char *b, const BIGNUM *c), (a, b, c)) \
	F(int, 0, OSSL_PARAM_BLD_push_octet_string, (OSSL_PARAM_BLD *a, const char *b, const void *c, size_t d), (a, b, c, d)) \
	F(int, 0, OSSL_PARAM_BLD_push_utf8_string, (OSSL_PARAM_BLD *a, const char *b, const char *c, size_t d), (a, b, c, d)) \
	F(OSSL_PARAM *, NULL, OSSL_PARAM_BLD_to_param, (OSSL_PARAM_BLD *a), (a)) \
	V(OSSL_PARAM_free, (OSSL_PARAM *a), (a)) \
	V(PKCS8_PRIV_KEY_INFO_free, (PKCS8_PRIV_KEY_INFO *a), (a)) \
	F(X509_EXTENSION *, NULL, X509V3_EXT_conf_nid, (struct lhash_st_CONF_VALUE *a, X509V3_CTX *b, int c, const char *d), (a, b, c, d)) \
	V(X509V3_set_ctx, (X509V3_CTX *a, X509 *b, X509 *c, X509_REQ *d, X509_CRL *e, int f), (a, b, c, d, e, f)) \
	V(X509_EXTENSION_free, (X509_EXTENSION *a), (a)) \
	F(int, 0, X509_NAME_add_entry_by_txt, (X509_NAME *a, const char *b, int c, const unsigned char *d, int e, int f, int g), (a, b, c, d, e, f, g)) \
	V(X509_NAME_free, (X509_NAME *a), (a)) \
	F(X509_NAME *, NULL, X509_NAME_new, (void), ()) \
	F(int, 0, X509_add1_ext_i2d, (X509 *a, int b, void *c, int d, unsigned long e), (a, b, c, d, e)) \
	F(int, 0, X509_add_ext, (X509 *a, X509_EXTENSION *b, int c), (a, b, c)) \
	V(X509_free, (X509 *a), (a)) \
	F(int, -1, X509_get_ext_by_NID, (const X509 *a, int b, int c), (a, b, c)) \
	F(ASN1_INTEGER *, NULL, X509_get_serialNumber, (X509 *a), (a)) \
	F(X509_NAME *, NULL, X509_get_subject_name, (const X509 *a), (a)) \
	F(ASN1_TIME *, NULL, X509_getm_notAfter, (const X509 *a), (a)) \
	F(ASN1_TIME *, NULL, X509_getm_notBefore, (const X509 *a), (a)) \
	F(X509 *, NULL, X509_new, (void), ()) \
	F(int, 0, X509_set_issuer_name, (X509 *a, const X509_NAME *b), (a, b)) \
	F(int, 0, X509_set_pubkey, (X509 *a, EVP_PKEY *b), (a, b)) \
	F(int, 0, X509_set_subject_name, (X509 *a, const X509_NAME *b), (a, b)) \
	F(int, 0, X509_set_version, (X509 *a, long b), (a, b)) \
	F(int, 0, X509_sign, (X509 *a, EVP_PKEY *b, const EVP_MD *c), (a, b, c)) \
	F(ASN1_TIME *, NULL, X509_time_adj_ex, (ASN1_TIME *a, int b, long c, time_t *d), (a, b, c, d)) \
	F(PKCS8_PRIV_KEY_INFO *, NULL, d2i_PKCS8_PRIV_KEY_INFO, (PKCS8_PRIV_KEY_INFO **a, const unsigned char **b, long c), (a, b, c)) \
	F(EVP_PKEY *, NULL, d2i_PrivateKey, (int a, EVP_PKEY **b, const unsigned char **c, long d), (a, b, c, d)) \
	F(EVP_PKEY *, NULL, d2i_PUBKEY, (EVP_PKEY **a, const unsigned char **b, long c), (a, b, c)) \
	F(EVP_PKEY *, NULL, d2i_PublicKey, (int a, EVP_PKEY **b, const unsigned char **c, long d), (a, b, c, d)) \
	F(X509 *, NULL, d2i_X509, (X509 **a, const unsigned char **b, long c), (a, b, c)) \
	F(int, -1, i2d_ECDSA_SIG, (const ECDSA_SIG *a, unsigned char **b), (a, b)) \
	F(int, -1, i2d_PKCS8_PRIV_KEY_INFO, (const PKCS8_PRIV_KEY_INFO *a, unsigned char **b), (a, b)) \
	F(int, -1, i2d_PrivateKey, (const EVP_PKEY *a, unsigned char **b), (a, b)) \
	F(int, -1, i2d_X509, (const X509 *a, unsigned char **b), (a, b))

#define FIELD(ret, fail, name, params, args) ret(*name) params;
#define VFIELD(name, params, args) void(*name) params;
static struct {
	CRYPTO_FUNCS(FIELD, VFIELD)
	EVP_PKEY *(*EVP_PKEY_Q_keygen)(OSSL_LIB_CTX *, const char *, const char *, ...);
} fn;
static int loaded; /* 1 when every symbol was found */
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define SLOT(ret, fail, name, params, args) {#name, (void **)&fn.name},
#define VSLOT(name, params, args) {#name, (void **)&fn.name},
static const struct lazy_sym slots[] = {
	CRYPTO_FUNCS(SLOT, VSLOT){"EVP_PKEY_Q_keygen", (void **)&fn.EVP_PKEY_Q_keygen}};

/* The loaded libcrypto brings its own copy of the C library, and with it
 * its own malloc: a block one allocator made and the other freed corrupts
 * the heap or aborts ("free(): invalid next size": a DER buffer we
 * malloc'd and OPENSSL_clear_free freed, genSignedCertWithKey with an
 * ed25519 key). Our code pairs OPENSSL_malloc with OPENSSL_free; and
 * libcrypto allocates with this binary's malloc when it is loaded first
 * (dlopen runs only its CPUID probe, which allocates nothing). Loaded
 * earlier, as libcurl's dependency, it keeps its own, which the pairing
 * makes safe. */
static void *mem_malloc(size_t n, const char *file, int line)
{
	(void)file;
	(void)line;
	return malloc(n);
}

static void *mem_realloc(void *p, size_t n, const char *file, int line)
{
	(void)file;
	(void)line;
	return realloc(p, n);
}

static void mem_free(void *p, const char *file, int line)
{
	(void)file;
	(void)line;
	free(p);
}

static void load(void)
{
	int (*set_mem)(CRYPTO_malloc_fn, CRYPTO_realloc_fn, CRYPTO_free_fn) = NULL;
	struct lazy_sym mem = {"CRYPTO_set_mem_functions", (void **)&set_mem};
	if (!lazy_open(LIBCRYPTO_SONAME, "libssl3", &mem, 1))
		return;
	(void)set_mem(mem_malloc, mem_realloc, mem_free); /* 0 when it has allocated already */
	loaded = lazy_open(LIBCRYPTO_SONAME, "libssl3", slots, sizeof slots / sizeof slots[0]);
}

static int ready(void)
{
	pthread_once(&once, load);
	return loaded;
}

#define WRAP(ret, fail, name, params, args) \
	ret name params { return ready() ? fn.name args : fail; }
/* A function returning void gets only objects the loaded library made (it
 * frees or fills them): while nothing is loaded there is nothing to do. */
#define VWRAP(name, params, args) \
	void name params                  \
	{                                 \
		if (loaded)               \
			fn.name args;     \
	}
CRYPTO_FUNCS(WRAP, VWRAP)

/* The arguments after the key type follow from the type, as in OpenSSL:
 * RSA takes its size in bits, EC and SM2 a curve name, the others none. */
EVP_PKEY *EVP_PKEY_Q_keygen(OSSL_LIB_CTX *ctx, const char *propq, const char *type, ...)
{
	va_list ap;
	EVP_PKEY *k;
	if (!ready())
		return NULL;
	va_start(ap, type);
	if (!strcmp(type, "RSA"))
		k = fn.EVP_PKEY_Q_keygen(ctx, propq, type, va_arg(ap, size_t));
	else if (!strcmp(type, "EC") || !strcmp(type, "SM2"))
		k = fn.EVP_PKEY_Q_keygen(ctx, propq, type, va_arg(ap, char *));
	else
		k = fn.EVP_PKEY_Q_keygen(ctx, propq, type);
	va_end(ap);
	return k;
}
