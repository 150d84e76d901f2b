/* tmpl/funcs_crypto.c — Sprig's cryptographic and random functions:
 * bcrypt, htpasswd, derivePassword, genPrivateKey, encryptAES, decryptAES,
 * randBytes, uuidv4, and the certificate functions (genCA, genCAWithKey,
 * genSelfSignedCert[WithKey], genSignedCert[WithKey], buildCustomCert)
 * returning sprig.certificate objects with .Cert and .Key PEM strings.
 * Also Helm's getHostByName, which answers "" (no DNS from templates).
 * Randomness comes from OpenSSL's CSPRNG; bcrypt from libxcrypt. */
#include <arpa/inet.h>
#include <crypt.h>
#include <stdint.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "lib/gostrconv.h"
#include "tmpl/funcs.h"
#include "tmpl/rsa_keygen.h"
#include "tmpl/sprig_util.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Strict-enough StdEncoding decode (newlines skipped); -1 on bad input.
 * Used for PEM bodies and AES input after b64_check. */
static long b64_decode(const char *s, size_t n, unsigned char *out)
{
	unsigned acc = 0;
	int bits = 0;
	long o = 0;
	size_t pad = 0;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		const char *p;
		if (ch == '\n' || ch == '\r' || (ch == ' ' && 0))
			continue;
		if (ch == '=') {
			pad++;
			continue;
		}
		if (pad || !ch || !(p = strchr(b64, ch)))
			return -1;
		acc = acc << 6 | (unsigned)(p - b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(acc >> bits);
		}
	}
	return o;
}

/* Go's base64.StdEncoding.DecodeString error offset, or -1 when valid. */
static long b64_error_offset(const char *s, size_t n)
{
	size_t si = 0;
	while (si < n) {
		int j;
		for (j = 0; j < 4; j++) {
			if (si == n) {
				if (j == 0)
					return -1;
				return (long)(si - (size_t)j);
			}
			char in = s[si++];
			if (in && strchr(b64, in))
				continue;
			if (in == '\n' || in == '\r') {
				j--;
				continue;
			}
			if (in != '=' || j < 2)
				return (long)(si - 1);
			if (j == 2) {
				while (si < n && (s[si] == '\n' || s[si] == '\r'))
					si++;
				if (si == n)
					return (long)n;
				if (s[si] != '=')
					return (long)(si - 1);
				si++;
			}
			while (si < n && (s[si] == '\n' || s[si] == '\r'))
				si++;
			return si < n ? (long)si : -1;
		}
	}
	return -1;
}

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

static int ret_cstr(tmpl_call *c, const char *s)
{
	c->result = tmpl_cstr(c->arena, s);
	return c->result.kind == TMPL_INVALID ? tmpl_call_errorf(c, "out of memory") : 0;
}

/* ---- bcrypt ---- */

/* bcrypt cost 10 "$2a$" hash of s, or Sprig's failure text. */
static void bcrypt_hash(const char *s, size_t n, bh_buf *out)
{
	unsigned char rnd[16];
	char salt[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data *cd;
	char pw[80];
	if (n > 72) {
		bh_buf_puts(out, "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes");
		return;
	}
	memcpy(pw, s, n);
	pw[n] = '\0';
	cd = calloc(1, sizeof *cd);
	if (!cd || sprig_random(rnd, sizeof rnd) != 0 ||
	    !crypt_gensalt_rn("$2a$", 10, (const char *)rnd, sizeof rnd, salt, sizeof salt)) {
		free(cd);
		bh_buf_puts(out, "failed to encrypt string with bcrypt: cannot generate salt");
		return;
	}
	const char *h = crypt_r(pw, salt, cd);
	if (!h || h[0] == '*')
		bh_buf_puts(out, "failed to encrypt string with bcrypt: crypt failed");
	else
		bh_buf_puts(out, h);
	explicit_bzero(pw, sizeof pw);
	free(cd);
}

static int fn_bcrypt(tmpl_call *c)
{
	bh_buf b = BH_BUF_INIT;
	bcrypt_hash(c->argv[0].u.s.ptr, c->argv[0].u.s.len, &b);
	return ret_buf(c, &b);
}

static int fn_htpasswd(tmpl_call *c)
{
	const tmpl_value *u = &c->argv[0], *p = &c->argv[1];
	bh_buf b = BH_BUF_INIT;
	if (memchr(u->u.s.ptr, ':', u->u.s.len)) {
		bh_buf_puts(&b, "invalid username: ");
		bh_buf_put(&b, u->u.s.ptr, u->u.s.len);
		return ret_buf(c, &b);
	}
	bh_buf_put(&b, u->u.s.ptr, u->u.s.len);
	bh_buf_putc(&b, ':');
	bcrypt_hash(p->u.s.ptr, p->u.s.len, &b);
	return ret_buf(c, &b);
}

/* ---- derivePassword (Master Password) ---- */

static const char *const tpl_maximum[] = {"anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno", NULL};
static const char *const tpl_long[] = {
	"CvcvnoCvcvCvcv", "CvcvCvcvnoCvcv", "CvcvCvcvCvcvno", "CvccnoCvcvCvcv", "CvccCvcvnoCvcv",
	"CvccCvcvCvcvno", "CvcvnoCvccCvcv", "CvcvCvccnoCvcv", "CvcvCvccCvcvno", "CvcvnoCvcvCvcc",
	"CvcvCvcvnoCvcc", "CvcvCvcvCvccno", "CvccnoCvccCvcv", "CvccCvccnoCvcv", "CvccCvccCvcvno",
	"CvcvnoCvccCvcc", "CvcvCvccnoCvcc", "CvcvCvccCvccno", "CvccnoCvcvCvcc", "CvccCvcvnoCvcc",
	"CvccCvcvCvccno", NULL};
static const char *const tpl_medium[] = {"CvcnoCvc", "CvcCvcno", NULL};
static const char *const tpl_short[] = {"Cvcn", NULL};
static const char *const tpl_basic[] = {"aaanaaan", "aannaaan", "aaannaaa", NULL};
static const char *const tpl_pin[] = {"nnnn", NULL};

static const char *tpl_chars(char t)
{
	switch (t) {
	case 'V': return "AEIOU";
	case 'C': return "BCDFGHJKLMNPQRSTVWXYZ";
	case 'v': return "aeiou";
	case 'c': return "bcdfghjklmnpqrstvwxyz";
	case 'A': return "AEIOUBCDFGHJKLMNPQRSTVWXYZ";
	case 'a': return "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz";
	case 'n': return "0123456789";
	case 'o': return "@&%?,=[]_:-+*$#!'^~;()/.";
	case 'x': return "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()";
	}
	return "";
}

static void put_be32(bh_buf *b, uint32_t v)
{
	unsigned char q[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8), (unsigned char)v};
	bh_buf_put(b, q, 4);
}

static int fn_derive_password(tmpl_call *c)
{
	static const char seed[] = "com.lyndir.masterpassword";
	const char *type = c->argv[1].u.s.ptr;
	size_t tn = c->argv[1].u.s.len;
	const tmpl_value *pw = &c->argv[2], *user = &c->argv[3], *site = &c->argv[4];
	const char *const *tpls = NULL;
	static const struct { const char *n; const char *const *t; } types[] = {
		{"maximum", tpl_maximum}, {"long", tpl_long}, {"medium", tpl_medium},
		{"short", tpl_short}, {"basic", tpl_basic}, {"pin", tpl_pin},
	};
	unsigned char key[64], mac[32];
	unsigned int maclen = 0;
	bh_buf salt = BH_BUF_INIT, b = BH_BUF_INIT;
	size_t ntpl = 0;
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strlen(types[i].n) == tn && memcmp(types[i].n, type, tn) == 0)
			tpls = types[i].t;
	if (!tpls) {
		bh_buf_puts(&b, "cannot find password template ");
		bh_buf_put(&b, type, tn);
		return ret_buf(c, &b);
	}
	bh_buf_puts(&salt, seed);
	put_be32(&salt, (uint32_t)user->u.s.len);
	bh_buf_put(&salt, user->u.s.ptr, user->u.s.len);
	if (EVP_PBE_scrypt(pw->u.s.ptr, pw->u.s.len, (const unsigned char *)bh_buf_str(&salt), salt.len, 32768, 8, 2,
			   (uint64_t)80 << 20, key, sizeof key) != 1) {
		bh_buf_free(&salt);
		bh_buf_puts(&b, "failed to derive password: scrypt failed");
		return ret_buf(c, &b);
	}
	bh_buf_reset(&salt);
	bh_buf_puts(&salt, seed);
	put_be32(&salt, (uint32_t)site->u.s.len);
	bh_buf_put(&salt, site->u.s.ptr, site->u.s.len);
	put_be32(&salt, (uint32_t)c->argv[0].u.u);
	HMAC(EVP_sha256(), key, sizeof key, (const unsigned char *)bh_buf_str(&salt), salt.len, mac, &maclen);
	bh_buf_free(&salt);
	explicit_bzero(key, sizeof key);
	while (tpls[ntpl])
		ntpl++;
	const char *t = tpls[mac[0] % ntpl];
	for (size_t i = 0; t[i]; i++) {
		const char *chars = tpl_chars(t[i]);
		bh_buf_putc(&b, chars[mac[i + 1] % strlen(chars)]);
	}
	return ret_buf(c, &b);
}

/* ---- keys ---- */

static void pem_wrap(bh_buf *out, const char *label, const unsigned char *der, size_t n)
{
	bh_buf_printf(out, "-----BEGIN %s-----\n", label);
	bh_buf_put_base64(out, der, n, 64);
	bh_buf_printf(out, "-----END %s-----\n", label);
}

/* pemBlockForKey: PKCS#1 / SEC1 / DSA for those key types, else PKCS#8. */
static int key_pem(EVP_PKEY *k, bh_buf *out)
{
	unsigned char *der = NULL;
	int n;
	const char *label;
	switch (EVP_PKEY_get_base_id(k)) {
	case EVP_PKEY_RSA: label = "RSA PRIVATE KEY"; n = i2d_PrivateKey(k, &der); break;
	case EVP_PKEY_EC: label = "EC PRIVATE KEY"; n = i2d_PrivateKey(k, &der); break;
	case EVP_PKEY_DSA: label = "DSA PRIVATE KEY"; n = i2d_PrivateKey(k, &der); break;
	default: {
		PKCS8_PRIV_KEY_INFO *p8 = EVP_PKEY2PKCS8(k);
		label = "PRIVATE KEY";
		n = p8 ? i2d_PKCS8_PRIV_KEY_INFO(p8, &der) : -1;
		PKCS8_PRIV_KEY_INFO_free(p8);
	}
	}
	if (n <= 0)
		return -1;
	pem_wrap(out, label, der, (size_t)n);
	OPENSSL_clear_free(der, (size_t)n);
	return 0;
}

static EVP_PKEY *gen_dsa(void)
{
	EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_name(NULL, "DSA", NULL), *kc = NULL;
	EVP_PKEY *params = NULL, *key = NULL;
	if (pc && EVP_PKEY_paramgen_init(pc) > 0 && EVP_PKEY_CTX_set_dsa_paramgen_bits(pc, 2048) > 0 &&
	    EVP_PKEY_CTX_set_dsa_paramgen_q_bits(pc, 256) > 0 && EVP_PKEY_paramgen(pc, &params) > 0 &&
	    (kc = EVP_PKEY_CTX_new_from_pkey(NULL, params, NULL)) && EVP_PKEY_keygen_init(kc) > 0)
		EVP_PKEY_keygen(kc, &key);
	EVP_PKEY_CTX_free(pc);
	EVP_PKEY_CTX_free(kc);
	EVP_PKEY_free(params);
	return key;
}

static int fn_gen_private_key(tmpl_call *c)
{
	const tmpl_value *t = &c->argv[0];
	EVP_PKEY *k = NULL;
	bh_buf b = BH_BUF_INIT;
#define TYPE_IS(lit) (t->u.s.len == sizeof(lit) - 1 && memcmp(t->u.s.ptr, lit, sizeof(lit) - 1) == 0)
	if (TYPE_IS("") || TYPE_IS("rsa"))
		k = rsa_keygen_go(4096);
	else if (TYPE_IS("ecdsa"))
		k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	else if (TYPE_IS("ed25519"))
		k = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	else if (TYPE_IS("dsa"))
		k = gen_dsa();
	else {
		bh_buf_puts(&b, "Unknown type ");
		bh_buf_put(&b, t->u.s.ptr, t->u.s.len);
		return ret_buf(c, &b);
	}
#undef TYPE_IS
	if (!k || key_pem(k, &b)) {
		bh_buf_reset(&b);
		bh_buf_puts(&b, "failed to generate private key: key generation failed");
	}
	EVP_PKEY_free(k);
	return ret_buf(c, &b);
}

/* pem.Decode of the first block: its type and DER bytes (malloc'ed). */
static int pem_decode(const char *s, size_t n, char *type, size_t typesz, unsigned char **der, size_t *dn)
{
	const char *end = s + n, *p = s;
	while (p < end) {
		const char *b = memmem(p, (size_t)(end - p), "-----BEGIN ", 11);
		const char *te, *body, *e;
		char endline[128];
		if (!b)
			return -1;
		te = memmem(b + 11, (size_t)(end - b - 11), "-----", 5);
		if (!te || (size_t)(te - b - 11) >= typesz || memchr(b + 11, '\n', (size_t)(te - b - 11))) {
			p = b + 11;
			continue;
		}
		memcpy(type, b + 11, (size_t)(te - b - 11));
		type[te - b - 11] = '\0';
		body = te + 5;
		while (body < end && (*body == '\r' || *body == '\n' || *body == ' ' || *body == '\t'))
			body++;
		snprintf(endline, sizeof endline, "-----END %s-----", type);
		e = memmem(body, (size_t)(end - body), endline, strlen(endline));
		if (!e) {
			p = b + 11;
			continue;
		}
		bh_buf clean = BH_BUF_INIT;
		for (const char *q = body; q < e; q++)
			if (*q != ' ' && *q != '\t' && *q != '\r' && *q != '\n')
				bh_buf_putc(&clean, *q);
		*der = OPENSSL_malloc(clean.len + 1); /* the callers free it with OPENSSL_clear_free */
		long k = *der ? b64_decode(bh_buf_str(&clean), clean.len, *der) : -1;
		bh_buf_free(&clean);
		if (k < 0) {
			OPENSSL_free(*der);
			*der = NULL;
			p = b + 11;
			continue;
		}
		*dn = (size_t)k;
		return 0;
	}
	return -1;
}

/* parsePrivateKeyPEM; NULL with Go's message in em. */
static EVP_PKEY *parse_key_pem(const char *s, size_t n, char *em, size_t emsz)
{
	char type[64];
	unsigned char *der = NULL;
	size_t dn = 0;
	EVP_PKEY *k = NULL;
	const unsigned char *p;
	size_t tl;
	if (pem_decode(s, n, type, sizeof type, &der, &dn)) {
		snprintf(em, emsz, "no PEM data in input");
		return NULL;
	}
	p = der;
	tl = strlen(type);
	if (strcmp(type, "PRIVATE KEY") == 0) {
		PKCS8_PRIV_KEY_INFO *p8 = d2i_PKCS8_PRIV_KEY_INFO(NULL, &p, (long)dn);
		k = p8 ? EVP_PKCS82PKEY(p8) : NULL;
		PKCS8_PRIV_KEY_INFO_free(p8);
		if (!k)
			snprintf(em, emsz, "decoding PEM as PKCS#8: x509: failed to parse private key");
	} else if (tl < 12 || strcmp(type + tl - 12, " PRIVATE KEY") != 0) {
		snprintf(em, emsz, "no private key data in PEM block of type %s", type);
	} else if (strcmp(type, "RSA PRIVATE KEY") == 0) {
		if (!(k = d2i_PrivateKey(EVP_PKEY_RSA, NULL, &p, (long)dn)))
			snprintf(em, emsz, "parsing RSA private key from PEM: x509: failed to parse private key");
	} else if (strcmp(type, "EC PRIVATE KEY") == 0) {
		if (!(k = d2i_PrivateKey(EVP_PKEY_EC, NULL, &p, (long)dn)))
			snprintf(em, emsz, "parsing EC private key from PEM: x509: failed to parse EC private key");
	} else if (strcmp(type, "DSA PRIVATE KEY") == 0) {
		if (!(k = d2i_PrivateKey(EVP_PKEY_DSA, NULL, &p, (long)dn)))
			snprintf(em, emsz, "parsing DSA private key from PEM: asn1: structure error");
	} else {
		snprintf(em, emsz, "invalid private key type %s", type);
	}
	OPENSSL_clear_free(der, dn);
	return k;
}

/* ---- certificates ---- */

typedef struct cert {
	tmpl_value cert, key;
} cert;

static int cert_field(const tmpl_value *self, const char *name, tmpl_value *out)
{
	cert *c = self->u.obj->data;
	if (strcmp(name, "Cert") == 0)
		*out = c->cert;
	else if (strcmp(name, "Key") == 0)
		*out = c->key;
	else
		return BH_ENOTFOUND;
	return 0;
}

static void cert_format(bh_buf *out, const tmpl_value *self, int plus)
{
	cert *c = self->u.obj->data;
	bh_buf_puts(out, plus ? "{Cert:" : "{");
	bh_buf_put(out, c->cert.u.s.ptr, c->cert.u.s.len);
	bh_buf_puts(out, plus ? " Key:" : " ");
	bh_buf_put(out, c->key.u.s.ptr, c->key.u.s.len);
	bh_buf_putc(out, '}');
}

static json_t *cert_json(const tmpl_value *self, bh_error *err)
{
	cert *c = self->u.obj->data;
	json_t *o = json_object();
	(void)err;
	json_object_set_new(o, "Cert", json_stringn(c->cert.u.s.ptr, c->cert.u.s.len));
	json_object_set_new(o, "Key", json_stringn(c->key.u.s.ptr, c->key.u.s.len));
	return o;
}

static const tmpl_class cert_class = {
	"sprig.certificate", 0, NULL, cert_field, cert_format, cert_json, 1,
};

static int ret_cert(tmpl_call *c, const bh_buf *certpem, const bh_buf *keypem)
{
	cert *d = tmpl_arena_alloc(c->arena, sizeof *d);
	tmpl_object *o;
	if (!d)
		return tmpl_call_errorf(c, "out of memory");
	d->cert = tmpl_str_buf(c->arena, certpem);
	d->key = tmpl_str_buf(c->arena, keypem);
	o = tmpl_object_new(c->arena, &cert_class, d);
	if (!o || d->cert.kind == TMPL_INVALID || d->key.kind == TMPL_INVALID)
		return tmpl_call_errorf(c, "out of memory");
	c->result = tmpl_object_value(o);
	return 0;
}

/* Collects IPs or DNS names from a []interface{} argument. */
static int san_list(tmpl_call *c, const tmpl_value *v, int ips, GENERAL_NAMES *gens)
{
	const tmpl_list *l;
	if (v->kind == TMPL_NIL || v->kind == TMPL_INVALID)
		return 0;
	if (v->kind != TMPL_LIST)
		return tmpl_call_errorf(c, "wrong type for value; expected []interface {}; got %s", tmpl_value_type_name(v));
	l = v->u.list;
	for (size_t i = 0; i < l->len; i++) {
		const tmpl_value *it = &l->items[i];
		char s[256];
		GENERAL_NAME *g;
		if (it->kind != TMPL_STRING) {
			bh_buf b = BH_BUF_INIT;
			tmpl_to_string(&b, it);
			tmpl_call_errorf(c, "%s: %s is not a string", ips ? "error parsing ip" : "error processing alternate dns name",
					 bh_buf_str(&b));
			bh_buf_free(&b);
			return BH_EEXEC;
		}
		if (it->u.s.len >= sizeof s || memchr(it->u.s.ptr, '\0', it->u.s.len)) {
			if (ips)
				return tmpl_call_errorf(c, "error parsing ip: %.*s", (int)it->u.s.len, it->u.s.ptr);
		}
		if (ips) {
			unsigned char addr[16];
			int alen = 0;
			memcpy(s, it->u.s.ptr, it->u.s.len);
			s[it->u.s.len] = '\0';
			if (inet_pton(AF_INET, s, addr) == 1) {
				alen = 4;
			} else if (inet_pton(AF_INET6, s, addr) == 1) {
				static const unsigned char v4map[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
				alen = 16;
				if (memcmp(addr, v4map, 12) == 0) {
					memmove(addr, addr + 12, 4);
					alen = 4;
				}
			} else {
				return tmpl_call_errorf(c, "error parsing ip: %s", s);
			}
			ASN1_OCTET_STRING *os = ASN1_OCTET_STRING_new();
			g = GENERAL_NAME_new();
			if (!os || !g || !ASN1_OCTET_STRING_set(os, addr, alen)) {
				ASN1_OCTET_STRING_free(os);
				GENERAL_NAME_free(g);
				return tmpl_call_errorf(c, "out of memory");
			}
			GENERAL_NAME_set0_value(g, GEN_IPADD, os);
		} else {
			ASN1_IA5STRING *ia5 = ASN1_IA5STRING_new();
			g = GENERAL_NAME_new();
			if (!ia5 || !g || !ASN1_STRING_set(ia5, it->u.s.ptr, (int)it->u.s.len)) {
				ASN1_IA5STRING_free(ia5);
				GENERAL_NAME_free(g);
				return tmpl_call_errorf(c, "out of memory");
			}
			GENERAL_NAME_set0_value(g, GEN_DNS, ia5);
		}
		sk_GENERAL_NAME_push(gens, g);
	}
	return 0;
}

static int add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *e;
	X509V3_set_ctx_nodb(&ctx);
	X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
	e = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	if (!e)
		return -1;
	X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
	return 0;
}

/* x509.CreateCertificate's isIA5String on the DNS names (after
 * san_list took them as strings): a rune above ASCII (a byte >= 0x80,
 * invalid UTF-8 too) fails it. */
static int dns_ia5_check(tmpl_call *c, const tmpl_value *dns)
{
	if (!dns || dns->kind != TMPL_LIST)
		return 0;
	for (size_t i = 0; i < dns->u.list->len; i++) {
		const tmpl_value *it = &dns->u.list->items[i];
		for (size_t k = 0; k < it->u.s.len; k++) {
			if ((unsigned char)it->u.s.ptr[k] >= 0x80) {
				bh_buf b = BH_BUF_INIT;
				int rc;
				go_quote(&b, it->u.s.ptr, it->u.s.len, '"', 0);
				rc = tmpl_call_errorf(c, "error creating certificate: x509: %s cannot be encoded as an IA5String",
						      bh_buf_str(&b));
				bh_buf_free(&b);
				return rc;
			}
		}
	}
	return 0;
}

/* Builds and signs a certificate (Sprig's getBaseCertTemplate +
 * x509.CreateCertificate); appends the PEMs of the certificate and of the
 * signee key. issuer NULL = self-signed. */
static int make_cert(tmpl_call *c, const tmpl_value *cn, const tmpl_value *ips, const tmpl_value *dns, int64_t days,
		     int is_ca, EVP_PKEY *signee, X509 *issuer, EVP_PKEY *signer, bh_buf *certpem, bh_buf *keypem)
{
	GENERAL_NAMES *gens = sk_GENERAL_NAME_new_null();
	X509 *x = X509_new();
	X509_NAME *name = X509_NAME_new();
	BIGNUM *serial = BN_new(), *bound = BN_new();
	unsigned char *der = NULL;
	int rc = BH_EEXEC, n;
	if (!gens || !x || !name || !serial || !bound) {
		rc = tmpl_call_errorf(c, "out of memory");
		goto out;
	}
	if (san_list(c, ips, 1, gens) || san_list(c, dns, 0, gens))
		goto out;
	if (!BN_lshift(bound, BN_value_one(), 128) || !BN_priv_rand_range(serial, bound) ||
	    !BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(x))) {
		rc = tmpl_call_errorf(c, "error generating serial number");
		goto out;
	}
	X509_set_version(x, 2);
	if (cn->u.s.len > 0 &&
	    !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)cn->u.s.ptr, (int)cn->u.s.len, -1, 0)) {
		rc = tmpl_call_errorf(c, "error creating certificate: invalid common name");
		goto out;
	}
	X509_set_subject_name(x, name);
	X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name);
	X509_time_adj_ex(X509_getm_notBefore(x), 0, 0, NULL);
	if (days > 3650000)
		days = 3650000;
	if (days < -3650000)
		days = -3650000;
	X509_time_adj_ex(X509_getm_notAfter(x), (int)days, 0, NULL);
	X509_set_pubkey(x, signee);
	add_ext(x, issuer ? issuer : x, NID_key_usage,
		is_ca ? "critical,digitalSignature,keyEncipherment,keyCertSign" : "critical,digitalSignature,keyEncipherment");
	add_ext(x, issuer ? issuer : x, NID_ext_key_usage, "serverAuth,clientAuth");
	add_ext(x, issuer ? issuer : x, NID_basic_constraints, is_ca ? "critical,CA:TRUE" : "critical,CA:FALSE");
	if (is_ca)
		add_ext(x, x, NID_subject_key_identifier, "hash");
	if (issuer && X509_get_ext_by_NID(issuer, NID_subject_key_identifier, -1) >= 0)
		add_ext(x, issuer, NID_authority_key_identifier, "keyid");
	if (sk_GENERAL_NAME_num(gens) > 0)
		X509_add1_ext_i2d(x, NID_subject_alt_name, gens, 0, X509V3_ADD_DEFAULT);
	int id = EVP_PKEY_get_base_id(signer);
	if (id != EVP_PKEY_RSA && id != EVP_PKEY_EC && id != EVP_PKEY_ED25519) {
		rc = tmpl_call_errorf(c, "error creating certificate: x509: only RSA, ECDSA and Ed25519 keys supported");
		goto out;
	}
	if (dns_ia5_check(c, dns))
		goto out;
	if (!X509_sign(x, signer, id == EVP_PKEY_ED25519 ? NULL : EVP_sha256()) || (n = i2d_X509(x, &der)) <= 0) {
		rc = tmpl_call_errorf(c, "error creating certificate: signing failed");
		goto out;
	}
	pem_wrap(certpem, "CERTIFICATE", der, (size_t)n);
	OPENSSL_free(der);
	if (key_pem(signee, keypem)) {
		rc = tmpl_call_errorf(c, "error encoding private key");
		goto out;
	}
	rc = 0;
out:
	GENERAL_NAMES_free(gens);
	X509_free(x);
	X509_NAME_free(name);
	BN_free(serial);
	BN_free(bound);
	return rc;
}

/* data bits: 1 = CA, 2 = with key (last arg), 4 = signed by a CA (arg 4) */
#define C_CA 1
#define C_KEY 2
#define C_SIGNED 4

static const tmpl_value nil_value = {.kind = TMPL_NIL};

static int fn_gen_cert(tmpl_call *c)
{
	int flags = (int)(intptr_t)c->data;
	const tmpl_value *cn = &c->argv[0], *ips = &nil_value, *dns = &nil_value;
	int64_t days;
	EVP_PKEY *key = NULL, *signer = NULL;
	X509 *issuer = NULL;
	bh_buf cp = BH_BUF_INIT, kp = BH_BUF_INIT;
	char em[512];
	int rc = BH_EEXEC;
	if (flags & C_CA) {
		days = c->argv[1].u.i;
	} else {
		ips = &c->argv[1];
		dns = &c->argv[2];
		days = c->argv[3].u.i;
	}
	if (flags & C_SIGNED) {
		cert *ca = tmpl_object_data(&c->argv[4], &cert_class);
		char type[64];
		unsigned char *der = NULL;
		size_t dn = 0;
		if (!ca)
			return tmpl_call_errorf(c, "wrong type for value; expected sprig.certificate; got %s",
						tmpl_value_type_name(&c->argv[4]));
		if (pem_decode(ca->cert.u.s.ptr, ca->cert.u.s.len, type, sizeof type, &der, &dn))
			return tmpl_call_errorf(c, "unable to decode certificate");
		const unsigned char *p = der;
		issuer = d2i_X509(NULL, &p, (long)dn);
		OPENSSL_free(der);
		if (!issuer)
			return tmpl_call_errorf(c, "error parsing certificate: decodedSignerCert.Bytes: x509: malformed certificate");
		signer = parse_key_pem(ca->key.u.s.ptr, ca->key.u.s.len, em, sizeof em);
		if (!signer) {
			X509_free(issuer);
			return tmpl_call_errorf(c, "error parsing private key: %s", em);
		}
	}
	if (flags & C_KEY) {
		const tmpl_value *kv = &c->argv[c->argc - 1];
		key = parse_key_pem(kv->u.s.ptr, kv->u.s.len, em, sizeof em);
		if (!key) {
			rc = tmpl_call_errorf(c, "parsing private key: %s", em);
			goto out;
		}
	} else {
		key = rsa_keygen_go(2048);
		if (!key) {
			rc = tmpl_call_errorf(c, "error generating rsa key: key generation failed");
			goto out;
		}
	}
	rc = make_cert(c, cn, ips, dns, days, flags & C_CA, key, issuer, signer ? signer : key, &cp, &kp);
	if (rc == 0)
		rc = ret_cert(c, &cp, &kp);
out:
	EVP_PKEY_free(key);
	EVP_PKEY_free(signer);
	X509_free(issuer);
	bh_buf_free(&cp);
	bh_buf_free(&kp);
	return rc;
}

/* x509.ParseCertificate's first complaints, for buildCustomCert */
static const char *x509_shape_error(const unsigned char *d, size_t n)
{
	size_t i = 0, len;
	if (n < 2 || d[0] != 0x30)
		return "x509: malformed certificate";
	i = 1;
	if (d[i] & 0x80) {
		size_t k = d[i] & 0x7f;
		i += 1 + k;
	} else {
		i++;
	}
	(void)len;
	if (i >= n || d[i] != 0x30)
		return "x509: malformed tbs certificate";
	return "x509: malformed certificate";
}

static int fn_build_custom_cert(tmpl_call *c)
{
	const tmpl_value *cv = &c->argv[0], *kv = &c->argv[1];
	unsigned char *cbuf, *kbuf, *der = NULL;
	long cn, kn;
	char type[64], em[512];
	size_t dn = 0;
	bh_buf cp = BH_BUF_INIT, kp = BH_BUF_INIT;
	cbuf = tmpl_arena_alloc(c->arena, cv->u.s.len + 1);
	kbuf = tmpl_arena_alloc(c->arena, kv->u.s.len + 1);
	if (!cbuf || !kbuf)
		return tmpl_call_errorf(c, "out of memory");
	if (b64_error_offset(cv->u.s.ptr, cv->u.s.len) >= 0 || (cn = b64_decode(cv->u.s.ptr, cv->u.s.len, cbuf)) < 0)
		return tmpl_call_errorf(c, "unable to decode base64 certificate");
	if (b64_error_offset(kv->u.s.ptr, kv->u.s.len) >= 0 || (kn = b64_decode(kv->u.s.ptr, kv->u.s.len, kbuf)) < 0)
		return tmpl_call_errorf(c, "unable to decode base64 private key");
	if (pem_decode((const char *)cbuf, (size_t)cn, type, sizeof type, &der, &dn))
		return tmpl_call_errorf(c, "unable to decode certificate");
	const unsigned char *p = der;
	X509 *x = d2i_X509(NULL, &p, (long)dn);
	if (!x) {
		const char *why = x509_shape_error(der, dn);
		OPENSSL_free(der);
		return tmpl_call_errorf(c, "error parsing certificate: decodedCert.Bytes: %s", why);
	}
	X509_free(x);
	OPENSSL_free(der);
	EVP_PKEY *k = parse_key_pem((const char *)kbuf, (size_t)kn, em, sizeof em);
	if (!k)
		return tmpl_call_errorf(c, "error parsing private key: %s", em);
	EVP_PKEY_free(k);
	bh_buf_put(&cp, cbuf, (size_t)cn);
	bh_buf_put(&kp, kbuf, (size_t)kn);
	int rc = ret_cert(c, &cp, &kp);
	bh_buf_free(&cp);
	bh_buf_free(&kp);
	return rc;
}

/* ---- AES ---- */

static int aes_cbc(const unsigned char key[32], const unsigned char *iv, const unsigned char *in, size_t n,
		   unsigned char *out, int enc)
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int l1 = 0, l2 = 0, ok;
	ok = ctx && EVP_CipherInit_ex(ctx, EVP_aes_256_cbc(), NULL, key, iv, enc) == 1 &&
	     EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 && EVP_CipherUpdate(ctx, out, &l1, in, (int)n) == 1 &&
	     EVP_CipherFinal_ex(ctx, out + l1, &l2) == 1;
	EVP_CIPHER_CTX_free(ctx);
	return ok ? 0 : -1;
}

static void aes_key(const tmpl_value *pw, unsigned char key[32])
{
	memset(key, 0, 32);
	memcpy(key, pw->u.s.ptr, pw->u.s.len < 32 ? pw->u.s.len : 32);
}

static int fn_encrypt_aes(tmpl_call *c)
{
	const tmpl_value *pt = &c->argv[1];
	unsigned char key[32];
	size_t pad = 16 - pt->u.s.len % 16, n = pt->u.s.len + pad;
	unsigned char *buf, *ct;
	bh_buf b = BH_BUF_INIT;
	if (pt->u.s.len == 0)
		return ret_cstr(c, "");
	buf = tmpl_arena_alloc(c->arena, n);
	ct = tmpl_arena_alloc(c->arena, 16 + n);
	if (!buf || !ct)
		return tmpl_call_errorf(c, "out of memory");
	memcpy(buf, pt->u.s.ptr, pt->u.s.len);
	memset(buf + pt->u.s.len, (int)pad, pad);
	aes_key(&c->argv[0], key);
	if (sprig_random(ct, 16) != 0 || aes_cbc(key, ct, buf, n, ct + 16, 1))
		return tmpl_call_errorf(c, "encryption failed");
	bh_buf_put_base64(&b, ct, 16 + n, 0);
	return ret_buf(c, &b);
}

static int fn_decrypt_aes(tmpl_call *c)
{
	const tmpl_value *in = &c->argv[1];
	unsigned char key[32], *raw, *out;
	long n, bad;
	if (in->u.s.len == 0)
		return ret_cstr(c, "");
	bad = b64_error_offset(in->u.s.ptr, in->u.s.len);
	if (bad >= 0)
		return tmpl_call_errorf(c, "illegal base64 data at input byte %ld", bad);
	raw = tmpl_arena_alloc(c->arena, in->u.s.len + 1);
	if (!raw)
		return tmpl_call_errorf(c, "out of memory");
	n = b64_decode(in->u.s.ptr, in->u.s.len, raw);
	if (n < 16)
		return tmpl_call_errorf(c, "runtime error: slice bounds out of range [:16] with capacity %ld", n);
	if ((n - 16) % 16 != 0)
		return tmpl_call_errorf(c, "crypto/cipher: input not full blocks");
	if (n == 16)
		return tmpl_call_errorf(c, "runtime error: index out of range [-1]");
	out = tmpl_arena_alloc(c->arena, (size_t)n);
	if (!out)
		return tmpl_call_errorf(c, "out of memory");
	aes_key(&c->argv[0], key);
	if (aes_cbc(key, raw, raw + 16, (size_t)(n - 16), out, 0))
		return tmpl_call_errorf(c, "decryption failed");
	long len = n - 16, keep = len - out[len - 1];
	if (keep < 0)
		return tmpl_call_errorf(c, "runtime error: slice bounds out of range [:%ld]", keep);
	c->result = tmpl_str(c->arena, (const char *)out, (size_t)keep);
	return c->result.kind == TMPL_INVALID ? tmpl_call_errorf(c, "out of memory") : 0;
}

/* ---- random ---- */

#define RAND_BYTES_MAX ((int64_t)64 << 20)

static int fn_rand_bytes(tmpl_call *c)
{
	int64_t n = c->argv[0].u.i;
	unsigned char *buf;
	bh_buf b = BH_BUF_INIT;
	if (n < 0)
		return tmpl_call_errorf(c, "runtime error: makeslice: len out of range");
	if (n > RAND_BYTES_MAX)
		return tmpl_call_errorf(c, "randBytes: %lld bytes is over the limit of %lld", (long long)n,
					(long long)RAND_BYTES_MAX);
	buf = tmpl_arena_alloc(c->arena, (size_t)n + 1);
	if (!buf || (n > 0 && sprig_random(buf, (size_t)n) != 0))
		return tmpl_call_errorf(c, "randBytes: cannot read random bytes");
	bh_buf_put_base64(&b, buf, (size_t)n, 0);
	return ret_buf(c, &b);
}

static int fn_uuidv4(tmpl_call *c)
{
	unsigned char u[16];
	char s[37];
	if (sprig_random(u, sizeof u) != 0)
		return tmpl_call_errorf(c, "uuidv4: cannot read random bytes");
	u[6] = (unsigned char)((u[6] & 0x0f) | 0x40);
	u[8] = (unsigned char)((u[8] & 0x3f) | 0x80);
	snprintf(s, sizeof s, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
		 u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	return ret_cstr(c, s);
}

/* Helm: getHostByName answers "" unless DNS lookups are enabled, and
 * templates here never touch the network. */
static int fn_get_host_by_name(tmpl_call *c)
{
	return ret_cstr(c, "");
}

const tmpl_func_def tmpl_funcs_crypto[] = {
	{"bcrypt", fn_bcrypt, "s", NULL},
	{"htpasswd", fn_htpasswd, "ss", NULL},
	{"derivePassword", fn_derive_password, "Ussss", NULL},
	{"genPrivateKey", fn_gen_private_key, "s", NULL},
	{"buildCustomCert", fn_build_custom_cert, "ss", NULL},
	{"genCA", fn_gen_cert, "si", (void *)(intptr_t)C_CA},
	{"genCAWithKey", fn_gen_cert, "sis", (void *)(intptr_t)(C_CA | C_KEY)},
	{"genSelfSignedCert", fn_gen_cert, "slli", (void *)(intptr_t)0},
	{"genSelfSignedCertWithKey", fn_gen_cert, "sllis", (void *)(intptr_t)C_KEY},
	{"genSignedCert", fn_gen_cert, "slliC", (void *)(intptr_t)C_SIGNED},
	{"genSignedCertWithKey", fn_gen_cert, "slliCs", (void *)(intptr_t)(C_SIGNED | C_KEY)},
	{"encryptAES", fn_encrypt_aes, "ss", NULL},
	{"decryptAES", fn_decrypt_aes, "ss", NULL},
	{"randBytes", fn_rand_bytes, "i", NULL},
	{"uuidv4", fn_uuidv4, "", NULL},
	{"getHostByName", fn_get_host_by_name, "s", NULL},
	{NULL, NULL, NULL, NULL},
};
