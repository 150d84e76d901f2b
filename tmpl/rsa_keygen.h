/* tmpl/rsa_keygen.h — RSA key generation for Sprig's genPrivateKey,
 * genCA, genSelfSignedCert and genSignedCert, done as Go's crypto/rsa does
 * it (two random primes with the top two bits set, e = 65537, FIPS 186-5's
 * Miller-Rabin round counts for random candidates) on OpenSSL's big
 * numbers. OpenSSL's own RSA keygen for 2048 bits and more follows SP
 * 800-56B (auxiliary primes, at least 64 Miller-Rabin rounds on every
 * prime), which made these functions three times slower than helm's. */
#ifndef TMPL_RSA_KEYGEN_H
#define TMPL_RSA_KEYGEN_H

#include <openssl/evp.h>

/* A new RSA key pair of `bits` bits (1024 or more), or NULL on failure. */
EVP_PKEY *rsa_keygen_go(int bits);

#endif
