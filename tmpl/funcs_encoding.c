/* tmpl/funcs_encoding.c — Sprig's encoding and hashing functions: b64enc,
 * b64dec, b32enc, b32dec (Go's StdEncoding, decode errors returned as the
 * output text exactly as Go words them), sha1sum, sha256sum, sha512sum
 * (lower-case hex) and adler32sum (decimal). */
#include <stdint.h>
#include <string.h>

#include <openssl/evp.h>
#include <zlib.h>

#include "tmpl/funcs.h"
#include "tmpl/sha256.h"

static const char b64_alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char b32_alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

static int ret_buf(tmpl_call *c, bh_buf *b)
{
	if (!bh_buf_ok(b)) {
		bh_buf_free(b);
		return tmpl_call_errorf(c, "out of memory");
	}
	c->result = tmpl_str_buf(c->arena, b);
	bh_buf_free(b);
	if (c->result.kind == TMPL_INVALID)
		return tmpl_call_errorf(c, "out of memory");
	return 0;
}

static int fn_b64enc(tmpl_call *c)
{
	bh_buf b = BH_BUF_INIT;
	bh_buf_put_base64(&b, c->argv[0].u.s.ptr, c->argv[0].u.s.len, 0);
	return ret_buf(c, &b);
}

static int b64_val(unsigned char ch)
{
	const char *p = ch ? strchr(b64_alpha, ch) : NULL;
	return p ? (int)(p - b64_alpha) : -1;
}

/* Go encoding/base64 decodeQuantum (StdEncoding, not strict). Returns the
 * new source index; *bad = error offset or -1; *nout bytes written. */
static size_t b64_quantum(const unsigned char *src, size_t len, size_t si, unsigned char *dst,
			  int *nout, long *bad)
{
	unsigned char dbuf[4] = {0, 0, 0, 0};
	int dlen = 4;
	*nout = 0;
	*bad = -1;
	for (int j = 0; j < 4; j++) {
		if (si == len) {
			if (j == 0)
				return si;
			*bad = (long)(si - (size_t)j);
			return si;
		}
		unsigned char in = src[si++];
		int v = b64_val(in);
		if (v >= 0) {
			dbuf[j] = (unsigned char)v;
			continue;
		}
		if (in == '\n' || in == '\r') {
			j--;
			continue;
		}
		if (in != '=') {
			*bad = (long)(si - 1);
			return si;
		}
		if (j == 0 || j == 1) {
			*bad = (long)(si - 1);
			return si;
		}
		if (j == 2) {
			while (si < len && (src[si] == '\n' || src[si] == '\r'))
				si++;
			if (si == len) {
				*bad = (long)len;
				return si;
			}
			if (src[si] != '=') {
				*bad = (long)(si - 1);
				return si;
			}
			si++;
		}
		while (si < len && (src[si] == '\n' || src[si] == '\r'))
			si++;
		if (si < len)
			*bad = (long)si; /* trailing garbage, after writing */
		dlen = j;
		break;
	}
	unsigned val = (unsigned)dbuf[0] << 18 | (unsigned)dbuf[1] << 12 | (unsigned)dbuf[2] << 6 | dbuf[3];
	unsigned char o[3] = {(unsigned char)(val >> 16), (unsigned char)(val >> 8), (unsigned char)val};
	memcpy(dst, o, (size_t)(dlen - 1));
	*nout = dlen - 1;
	return si;
}

/* Sprig: b64dec returns the decoded text, or Go's error text. */
static int fn_b64dec(tmpl_call *c)
{
	const unsigned char *src = (const unsigned char *)c->argv[0].u.s.ptr;
	size_t len = c->argv[0].u.s.len, si = 0;
	bh_buf b = BH_BUF_INIT;
	while (si < len) {
		unsigned char q[3];
		int n;
		long bad;
		si = b64_quantum(src, len, si, q, &n, &bad);
		bh_buf_put(&b, q, (size_t)n);
		if (bad >= 0) {
			bh_buf_reset(&b);
			bh_buf_printf(&b, "illegal base64 data at input byte %ld", bad);
			break;
		}
		if (n == 0 && si >= len)
			break;
	}
	return ret_buf(c, &b);
}

static int fn_b32enc(tmpl_call *c)
{
	const unsigned char *p = (const unsigned char *)c->argv[0].u.s.ptr;
	size_t n = c->argv[0].u.s.len;
	bh_buf b = BH_BUF_INIT;
	for (size_t i = 0; i < n; i += 5) {
		unsigned char blk[5] = {0, 0, 0, 0, 0};
		size_t k = n - i < 5 ? n - i : 5;
		static const int nchars[6] = {0, 2, 4, 5, 7, 8};
		uint64_t x = 0;
		memcpy(blk, p + i, k);
		for (int j = 0; j < 5; j++)
			x = x << 8 | blk[j];
		for (int j = 0; j < 8; j++)
			bh_buf_putc(&b, j < nchars[k] ? b32_alpha[(x >> (35 - 5 * j)) & 31] : '=');
	}
	return ret_buf(c, &b);
}

static int b32_val(unsigned char ch)
{
	const char *p = ch ? strchr(b32_alpha, ch) : NULL;
	return p ? (int)(p - b32_alpha) : -1;
}

/* Go encoding/base32 DecodeString (newlines stripped first). */
static int fn_b32dec(tmpl_call *c)
{
	const char *in = c->argv[0].u.s.ptr;
	size_t inlen = c->argv[0].u.s.len, olen = 0;
	unsigned char *src = tmpl_arena_alloc(c->arena, inlen + 1);
	bh_buf b = BH_BUF_INIT;
	long bad = -1;
	int end = 0;
	size_t pos = 0;
	if (!src)
		return tmpl_call_errorf(c, "out of memory");
	for (size_t i = 0; i < inlen; i++)
		if (in[i] != '\n' && in[i] != '\r')
			src[olen++] = (unsigned char)in[i];
	while (pos < olen && !end && bad < 0) {
		unsigned char dbuf[8] = {0};
		int dlen = 8;
		for (int j = 0; j < 8;) {
			size_t rest = olen - pos;
			if (rest == 0) {
				bad = (long)(olen - rest - (size_t)j);
				break;
			}
			unsigned char ch = src[pos++];
			rest--;
			if (ch == '=' && j >= 2 && rest < 8) {
				if (rest + (size_t)j < 7) {
					bad = (long)olen;
					break;
				}
				for (int k = 0; k < 7 - j; k++)
					if (rest > (size_t)k && src[pos + (size_t)k] != '=') {
						bad = (long)(olen - rest + (size_t)k - 1);
						break;
					}
				if (bad >= 0)
					break;
				dlen = j;
				end = 1;
				if (dlen == 1 || dlen == 3 || dlen == 6)
					bad = (long)(olen - rest - 1);
				break;
			}
			int v = b32_val(ch);
			if (v < 0) {
				bad = (long)(olen - rest - 1);
				break;
			}
			dbuf[j++] = (unsigned char)v;
		}
		if (bad >= 0)
			break;
		unsigned char o[5];
		o[4] = (unsigned char)(dbuf[6] << 5 | dbuf[7]);
		o[3] = (unsigned char)(dbuf[4] << 7 | dbuf[5] << 2 | dbuf[6] >> 3);
		o[2] = (unsigned char)(dbuf[3] << 4 | dbuf[4] >> 1);
		o[1] = (unsigned char)(dbuf[1] << 6 | dbuf[2] << 1 | dbuf[3] >> 4);
		o[0] = (unsigned char)(dbuf[0] << 3 | dbuf[1] >> 2);
		static const int nbytes[9] = {0, 0, 1, 0, 2, 3, 0, 4, 5};
		bh_buf_put(&b, o, (size_t)nbytes[dlen]);
	}
	if (bad >= 0) {
		bh_buf_reset(&b);
		bh_buf_printf(&b, "illegal base32 data at input byte %ld", bad);
	}
	return ret_buf(c, &b);
}

static int fn_digest(tmpl_call *c)
{
	const char *name = c->data;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char hex[2 * EVP_MAX_MD_SIZE];
	if (!strcmp(name, "SHA256")) {
		/* the common one (checksum annotations): no OpenSSL set-up */
		tmpl_sha256(c->argv[0].u.s.ptr, c->argv[0].u.s.len, md);
		mdlen = 32;
	} else {
		/* direct, not EVP_get_digestbyname(): no name table to build */
		const EVP_MD *alg = !strcmp(name, "SHA1") ? EVP_sha1() : EVP_sha512();
		if (!EVP_Digest(c->argv[0].u.s.ptr, c->argv[0].u.s.len, md, &mdlen, alg, NULL))
			return tmpl_call_errorf(c, "%s: digest failed", name);
	}
	for (unsigned i = 0; i < mdlen; i++) {
		hex[2 * i] = "0123456789abcdef"[md[i] >> 4];
		hex[2 * i + 1] = "0123456789abcdef"[md[i] & 15];
	}
	c->result = tmpl_str(c->arena, hex, 2 * (size_t)mdlen);
	if (c->result.kind == TMPL_INVALID)
		return tmpl_call_errorf(c, "out of memory");
	return 0;
}

static int fn_adler32(tmpl_call *c)
{
	const unsigned char *p = (const unsigned char *)c->argv[0].u.s.ptr;
	size_t n = c->argv[0].u.s.len;
	uLong a = adler32(0L, Z_NULL, 0);
	bh_buf b = BH_BUF_INIT;
	while (n > 0) {
		uInt k = n > 1u << 30 ? 1u << 30 : (uInt)n;
		a = adler32(a, p, k);
		p += k;
		n -= k;
	}
	bh_buf_printf(&b, "%lu", (unsigned long)a);
	return ret_buf(c, &b);
}

const tmpl_func_def tmpl_funcs_encoding[] = {
	{"b64enc", fn_b64enc, "s", NULL},
	{"b64dec", fn_b64dec, "s", NULL},
	{"b32enc", fn_b32enc, "s", NULL},
	{"b32dec", fn_b32dec, "s", NULL},
	{"sha1sum", fn_digest, "s", (void *)"SHA1"},
	{"sha256sum", fn_digest, "s", (void *)"SHA256"},
	{"sha512sum", fn_digest, "s", (void *)"SHA512"},
	{"adler32sum", fn_adler32, "s", NULL},
	{NULL, NULL, NULL, NULL},
};
