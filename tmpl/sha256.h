/* tmpl/sha256.h — SHA-256 (FIPS 180-4) for sha256sum: a few hundred bytes
 * hashed per chart do not justify OpenSSL's provider set-up (about 5 M
 * instructions on first use). */
#ifndef TMPL_SHA256_H
#define TMPL_SHA256_H

#include <stddef.h>

/* Writes the 32-byte digest of p[0..n) to md: with the CPU's SHA
 * extensions where it has them (x86-64), else in portable C. */
void tmpl_sha256(const void *p, size_t n, unsigned char md[32]);
/* tmpl_sha256 always in portable C (the tests compare both). */
void tmpl_sha256_generic(const void *p, size_t n, unsigned char md[32]);

#endif
