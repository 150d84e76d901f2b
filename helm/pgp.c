/* helm/pgp.c — OpenPGP packets, keys, signatures, keyrings and detached
 * signature checks as go-crypto v1.3.0 does them (see helm/pgp.h). Key
 * and signature bytes stay in the buffer they were read from; parsed
 * packets point into it. */
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <string.h>

#include "helm/pgp.h"

#define MAX_SIG_DEPTH 3 /* signatures embedded in signatures */

/* how a packet read or an entity failed, as ReadKeyRing tells them apart */
enum { R_OK = 0, R_EOF = 1, R_SKIP = 2 /* StructuralError or UnsupportedError */, R_FAIL = 3 };

typedef struct bytes {
	const unsigned char *p;
	size_t n;
} bytes;

typedef struct pgp_sig {
	int version, type, pkalgo, hashalgo;
	bytes hashed;                /* version .. hashed subpackets (the hash suffix's head) */
	unsigned char tag[2];
	int64_t created;
	uint32_t sig_life, key_life; /* 0: none */
	int has_issuer, has_fpr, flags_valid, flags, primary_id, revocation_reason;
	uint64_t issuer;
	unsigned char fpr[20];
	bytes critical_notation; /* the first critical notation's name */
	int has_critical;
	bytes m1, m2; /* RSA s; (EC)DSA/EdDSA r, s; Ed25519/Ed448 signature in m1 */
	struct pgp_sig *embedded;
} pgp_sig;

typedef struct pgp_key {
	int algo, unsupported; /* unsupported: a key go-crypto reads that bulkhead cannot check */
	int64_t created;
	bytes body; /* the public key packet's body (version .. key material) */
	unsigned char fpr[20];
	uint64_t keyid;
	EVP_PKEY *pkey;
	pgp_sig *binding; /* subkeys: the newest binding signature */
	pgp_sig **revs;
	size_t nrevs;
} pgp_key;

typedef struct pgp_identity {
	bytes uid;
	pgp_sig *self;
	pgp_sig *revs[8]; /* the first revocations (more only count) */
	size_t nrevs;
} pgp_identity;

typedef struct pgp_entity {
	pgp_key primary;
	pgp_key *subs;
	size_t nsubs;
	pgp_identity *ids;
	size_t nids;
} pgp_entity;

struct pgp_keyring {
	pgp_entity *ents;
	size_t n;
	unsigned char *data;
	pgp_sig **sigs; /* every signature kept, for freeing */
	size_t nsigs;
	uint64_t *refused; /* key ids of entities skipped as unverifiable here */
	size_t nrefused;
};

/* ---- packets ---- */

typedef struct pkt {
	int tag;
	bytes body;
	/* parsed */
	pgp_sig *sig;
	pgp_key key;
	int subkey, secret, kind; /* kind: K_* */
} pkt;

enum { K_OTHER, K_KEY, K_UID, K_SIG };

typedef struct reader {
	const unsigned char *p;
	size_t n, off, count;
	pkt unread;
	int has_unread;
	pgp_keyring *kr; /* owns parsed signatures */
} reader;

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int unexpected_eof(bh_error *err)
{
	return bh_error_set(err, BH_EINVAL, "unexpected EOF");
}

/* readHeader: one packet's tag and body. R_EOF at the end of input. */
static int read_header(reader *r, int *tag, bytes *body, bh_error *err)
{
	if (r->off >= r->n)
		return R_EOF;
	if (++r->count > PGP_MAX_PACKETS)
		return bh_error_set(err, BH_ELIMIT, "openpgp: more than %d packets", PGP_MAX_PACKETS), R_FAIL;
	const unsigned char *p = r->p + r->off;
	size_t avail = r->n - r->off, len, hl;
	if (!(p[0] & 0x80))
		return bh_error_set(err, BH_EINVAL, "openpgp: invalid data: tag byte does not have MSB set"), R_FAIL;
	if (!(p[0] & 0x40)) {
		*tag = (p[0] & 0x3f) >> 2;
		int lt = p[0] & 3;
		if (lt == 3) {
			hl = 1, len = avail - 1;
		} else {
			hl = 1 + (1u << lt);
			if (avail < hl)
				return unexpected_eof(err), R_FAIL;
			len = 0;
			for (size_t i = 1; i < hl; i++)
				len = len << 8 | p[i];
		}
	} else {
		*tag = p[0] & 0x3f;
		if (avail < 2)
			return unexpected_eof(err), R_FAIL;
		if (p[1] < 192) {
			hl = 2, len = p[1];
		} else if (p[1] < 224) {
			if (avail < 3)
				return unexpected_eof(err), R_FAIL;
			hl = 3, len = ((size_t)(p[1] - 192) << 8) + p[2] + 192;
		} else if (p[1] == 255) {
			if (avail < 6)
				return unexpected_eof(err), R_FAIL;
			hl = 6, len = be32(p + 2);
		} else {
			return bh_error_set(err, BH_EDENIED,
					    "openpgp: a partial-length packet (tag %d) in a key or signature: "
					    "bulkhead reads only definite lengths there", *tag), R_FAIL;
		}
	}
	body->p = p + hl;
	if (len > avail - hl) { /* a short body: what go-crypto's parsers hit */
		body->n = avail - hl;
		r->off = r->n;
		return R_OK + 10; /* truncated */
	}
	body->n = len;
	r->off += hl + len;
	return R_OK;
}

static int mpi(bytes *b, bytes *out)
{
	if (b->n < 2)
		return -1;
	size_t bits = (size_t)b->p[0] << 8 | b->p[1], n = (bits + 7) / 8;
	if (b->n - 2 < n)
		return -1;
	out->p = b->p + 2, out->n = n;
	b->p += 2 + n, b->n -= 2 + n;
	return 0;
}

static int take(bytes *b, size_t n, bytes *out)
{
	if (b->n < n)
		return -1;
	if (out)
		out->p = b->p, out->n = n;
	b->p += n, b->n -= n;
	return 0;
}

static int oid(bytes *b, bytes *out)
{
	if (b->n < 1 || b->p[0] == 0 || b->p[0] == 0xff)
		return -1;
	size_t n = b->p[0];
	b->p++, b->n--;
	return take(b, n, out);
}

static EVP_PKEY *from_params(const char *type, OSSL_PARAM_BLD *bld)
{
	EVP_PKEY *pk = NULL;
	OSSL_PARAM *params = bld ? OSSL_PARAM_BLD_to_param(bld) : NULL;
	EVP_PKEY_CTX *ctx = params ? EVP_PKEY_CTX_new_from_name(NULL, type, NULL) : NULL;
	if (!ctx || EVP_PKEY_fromdata_init(ctx) <= 0 || EVP_PKEY_fromdata(ctx, &pk, EVP_PKEY_PUBLIC_KEY, params) <= 0)
		pk = NULL;
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	return pk;
}

static EVP_PKEY *rsa_key(bytes n, bytes e)
{
	BIGNUM *bn = BN_bin2bn(n.p, (int)n.n, NULL), *be = BN_bin2bn(e.p, (int)e.n, NULL);
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	EVP_PKEY *pk = NULL;
	if (bn && be && bld && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn) &&
	    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, be))
		pk = from_params("RSA", bld);
	else
		OSSL_PARAM_BLD_free(bld);
	BN_free(bn);
	BN_free(be);
	return pk;
}

static EVP_PKEY *dsa_key(bytes p, bytes q, bytes g, bytes y)
{
	const char *names[4] = {OSSL_PKEY_PARAM_FFC_P, OSSL_PKEY_PARAM_FFC_Q, OSSL_PKEY_PARAM_FFC_G, OSSL_PKEY_PARAM_PUB_KEY};
	bytes v[4] = {p, q, g, y};
	BIGNUM *bn[4] = {NULL};
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	int ok = bld != NULL;
	for (int i = 0; i < 4 && ok; i++)
		ok = (bn[i] = BN_bin2bn(v[i].p, (int)v[i].n, NULL)) && OSSL_PARAM_BLD_push_BN(bld, names[i], bn[i]);
	EVP_PKEY *pk = ok ? from_params("DSA", bld) : NULL;
	if (!ok)
		OSSL_PARAM_BLD_free(bld);
	for (int i = 0; i < 4; i++)
		BN_free(bn[i]);
	return pk;
}

static int oid_is(bytes o, const char *hex_der, size_t n)
{
	return o.n == n && !memcmp(o.p, hex_der, n);
}

static const char *ec_group(bytes o)
{
	if (oid_is(o, "\x2a\x86\x48\xce\x3d\x03\x01\x07", 8))
		return "P-256";
	if (oid_is(o, "\x2b\x81\x04\x00\x22", 5))
		return "P-384";
	if (oid_is(o, "\x2b\x81\x04\x00\x23", 5))
		return "P-521";
	return NULL;
}

static EVP_PKEY *ec_key(const char *group, bytes pt)
{
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	if (!bld || !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, group, 0) ||
	    !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pt.p, pt.n)) {
		OSSL_PARAM_BLD_free(bld);
		return NULL;
	}
	return from_params("EC", bld);
}

/* PublicKey.parse (v4): the public part of a public or secret key packet;
 * its length is found by walking the algorithm's fields. R_SKIP for what
 * go-crypto skips as unsupported. */
static int parse_key(bytes b, pgp_key *k, bh_error *err)
{
	memset(k, 0, sizeof *k);
	const unsigned char *start = b.p;
	if (b.n < 1)
		return unexpected_eof(err), R_FAIL;
	if (b.p[0] == 5 || b.p[0] == 6)
		return bh_error_set(err, BH_EDENIED, "openpgp: a v%d key: bulkhead reads v4 keys only", b.p[0]), R_FAIL;
	if (b.p[0] != 4)
		return bh_error_set(err, BH_EINVAL, "openpgp: unsupported feature: public key version %d", b.p[0]), R_SKIP;
	if (b.n < 6)
		return unexpected_eof(err), R_FAIL;
	k->created = be32(b.p + 1);
	k->algo = b.p[5];
	take(&b, 6, NULL);
	bytes m1, m2, m3, m4, o;
	int bad = 0;
	switch (k->algo) {
	case 1: case 2: case 3:
		bad = mpi(&b, &m1) || mpi(&b, &m2);
		if (!bad && k->algo != 2 && !(k->pkey = rsa_key(m1, m2)))
			k->unsupported = 1;
		break;
	case 16:
		bad = mpi(&b, &m1) || mpi(&b, &m2) || mpi(&b, &m3);
		break;
	case 17:
		bad = mpi(&b, &m1) || mpi(&b, &m2) || mpi(&b, &m3) || mpi(&b, &m4);
		if (!bad && !(k->pkey = dsa_key(m1, m2, m3, m4)))
			k->unsupported = 1;
		break;
	case 18:
		bad = oid(&b, &o) || mpi(&b, &m1) || b.n < 1 || take(&b, 1 + (size_t)b.p[0], NULL);
		break;
	case 19: {
		bad = oid(&b, &o) || mpi(&b, &m1);
		const char *g = bad ? NULL : ec_group(o);
		if (!bad && !(g && (k->pkey = ec_key(g, m1))))
			k->unsupported = 1;
		break;
	}
	case 22:
		bad = oid(&b, &o) || mpi(&b, &m1);
		if (bad)
			break;
		if (!oid_is(o, "\x2b\x06\x01\x04\x01\xda\x47\x0f\x01", 9))
			return bh_error_set(err, BH_EINVAL, "openpgp: unsupported feature: unsupported oid"), R_SKIP;
		if (m1.n != 33 || m1.p[0] != 0x40 ||
		    !(k->pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, m1.p + 1, 32)))
			k->unsupported = 1;
		break;
	case 25: case 26: case 27: case 28: {
		size_t n = k->algo == 25 ? 32 : k->algo == 26 ? 56 : k->algo == 27 ? 32 : 57;
		bad = take(&b, n, &m1);
		if (!bad && k->algo >= 27 &&
		    !(k->pkey = EVP_PKEY_new_raw_public_key(k->algo == 27 ? EVP_PKEY_ED25519 : EVP_PKEY_ED448, NULL,
							     m1.p, m1.n)))
			k->unsupported = 1;
		break;
	}
	default:
		return bh_error_set(err, BH_EINVAL, "openpgp: unsupported feature: public key type: %d", k->algo), R_SKIP;
	}
	if (bad)
		return unexpected_eof(err), R_FAIL;
	k->body.p = start, k->body.n = (size_t)(b.p - start);
	if (k->body.n > 0xffff)
		return bh_error_set(err, BH_EINVAL, "openpgp: invalid data: key packet too large"), R_FAIL;
	unsigned char hdr[3] = {0x99, (unsigned char)(k->body.n >> 8), (unsigned char)k->body.n};
	EVP_MD_CTX *h = EVP_MD_CTX_new();
	if (!h || !EVP_DigestInit_ex(h, EVP_sha1(), NULL) || !EVP_DigestUpdate(h, hdr, 3) ||
	    !EVP_DigestUpdate(h, k->body.p, k->body.n) || !EVP_DigestFinal_ex(h, k->fpr, NULL)) {
		EVP_MD_CTX_free(h);
		EVP_PKEY_free(k->pkey);
		k->pkey = NULL;
		return bh_error_set(err, BH_ENOMEM, "out of memory"), R_FAIL;
	}
	EVP_MD_CTX_free(h);
	k->keyid = 0;
	for (int i = 12; i < 20; i++)
		k->keyid = k->keyid << 8 | k->fpr[i];
	return R_OK;
}

static const EVP_MD *hash_md(int id)
{
	switch (id) {
	case 2: return EVP_sha1();
	case 8: return EVP_sha256();
	case 9: return EVP_sha384();
	case 10: return EVP_sha512();
	case 11: return EVP_sha224();
	case 12: return EVP_sha3_256();
	case 14: return EVP_sha3_512();
	}
	return NULL;
}

static int structural(bh_error *err, const char *msg)
{
	bh_error_set(err, BH_EINVAL, "openpgp: invalid data: %s", msg);
	return R_SKIP;
}

static int parse_sig(bytes b, pgp_sig *s, int depth, pgp_keyring *kr, bh_error *err);

/* parseSignatureSubpacket, for the fields checks use. */
static int parse_subpackets(bytes area, pgp_sig *s, int hashed, int depth, pgp_keyring *kr, bh_error *err)
{
	while (area.n) {
		size_t len;
		const unsigned char *p = area.p;
		if (p[0] < 192) {
			len = p[0], take(&area, 1, NULL);
		} else if (p[0] < 255) {
			if (area.n < 2)
				return structural(err, "signature subpacket truncated");
			len = ((size_t)(p[0] - 192) << 8) + p[1] + 192, take(&area, 2, NULL);
		} else {
			if (area.n < 5)
				return structural(err, "signature subpacket truncated");
			len = be32(p + 1), take(&area, 5, NULL);
		}
		bytes sp;
		if (take(&area, len, &sp))
			return structural(err, "signature subpacket truncated");
		if (!sp.n)
			return structural(err, "zero length signature subpacket");
		int type = sp.p[0] & 0x7f, critical = sp.p[0] & 0x80;
		sp.p++, sp.n--;
		if (!hashed && type != 16 && type != 33 && type != 32)
			continue;
		switch (type) {
		case 2:
			if (sp.n != 4)
				return structural(err, "signature creation time not four bytes");
			s->created = be32(sp.p);
			break;
		case 3:
			if (sp.n != 4)
				return structural(err, "expiration subpacket with bad length");
			s->sig_life = be32(sp.p);
			break;
		case 4:
			if (sp.p[0] == 0)
				return bh_error_set(err, BH_EINVAL, "openpgp: unsupported feature: signature with non-exportable certification"), R_SKIP;
			break;
		case 9:
			if (sp.n != 4)
				return structural(err, "key expiration subpacket with bad length");
			s->key_life = be32(sp.p);
			break;
		case 16:
			if (sp.n != 8)
				return structural(err, "issuer subpacket with bad length");
			s->has_issuer = 1;
			s->issuer = (uint64_t)be32(sp.p) << 32 | be32(sp.p + 4);
			break;
		case 20:
			if (sp.n < 8 || sp.n != 8 + ((size_t)sp.p[4] << 8 | sp.p[5]) + ((size_t)sp.p[6] << 8 | sp.p[7]))
				return structural(err, "notation data subpacket with bad length");
			if (critical && !s->has_critical) {
				s->has_critical = 1;
				s->critical_notation.p = sp.p + 8;
				s->critical_notation.n = (size_t)sp.p[4] << 8 | sp.p[5];
			}
			break;
		case 25:
			if (sp.n != 1)
				return structural(err, "primary user id subpacket with bad length");
			s->primary_id = sp.p[0] ? 2 : 1;
			break;
		case 27:
			s->flags_valid = 1;
			s->flags = sp.n ? sp.p[0] : 0;
			break;
		case 29:
			if (!sp.n)
				return structural(err, "empty revocation reason subpacket");
			s->revocation_reason = sp.p[0] + 1;
			break;
		case 32: {
			if (s->embedded)
				return structural(err, "Cannot have multiple embedded signatures");
			if (depth >= MAX_SIG_DEPTH)
				return bh_error_set(err, BH_ELIMIT, "openpgp: signatures embedded more than %d deep", MAX_SIG_DEPTH), R_FAIL;
			pgp_sig *e = calloc(1, sizeof *e);
			pgp_sig **v = e ? realloc(kr->sigs, (kr->nsigs + 1) * sizeof *v) : NULL;
			if (!v) {
				free(e);
				return bh_error_set(err, BH_ENOMEM, "out of memory"), R_FAIL;
			}
			kr->sigs = v, kr->sigs[kr->nsigs++] = e;
			s->embedded = e;
			int rc = parse_sig(sp, e, depth + 1, kr, err);
			if (rc)
				return rc == R_EOF ? (unexpected_eof(err), R_FAIL) : rc;
			if (e->type != 0x19) {
				bh_error_set(err, BH_EINVAL, "openpgp: invalid data: cross-signature has unexpected type %d", e->type);
				return R_SKIP;
			}
			break;
		}
		case 33:
			if (!sp.n)
				return structural(err, "empty issuer fingerprint subpacket");
			if (sp.p[0] >= 5 ? sp.n - 1 != 32 : sp.n - 1 != 20)
				return structural(err, "bad fingerprint length");
			if (sp.p[0] < 5) {
				s->has_fpr = 1;
				memcpy(s->fpr, sp.p + 1, 20);
				s->issuer = (uint64_t)be32(sp.p + 13) << 32 | be32(sp.p + 17);
			} else {
				s->issuer = (uint64_t)be32(sp.p + 1) << 32 | be32(sp.p + 5);
			}
			s->has_issuer = 1;
			break;
		case 5: case 6: case 7: case 11: case 12: case 21: case 22: case 23: case 24: case 26: case 28:
		case 30: case 31: case 34: case 35: case 39:
			break;
		default:
			if (critical)
				return bh_error_set(err, BH_EINVAL, "openpgp: unsupported feature: unknown critical signature subpacket type %d", type), R_SKIP;
		}
	}
	if (!s->created)
		return structural(err, "no creation time in signature");
	return R_OK;
}

/* Signature.parse (v4; v3 skipped as go-crypto does; v5/v6 refused). */
static int parse_sig(bytes b, pgp_sig *s, int depth, pgp_keyring *kr, bh_error *err)
{
	const unsigned char *start = b.p;
	if (b.n < 1)
		return unexpected_eof(err), R_FAIL;
	s->version = b.p[0];
	if (s->version == 5 || s->version == 6)
		return bh_error_set(err, BH_EDENIED, "openpgp: a v%d signature: bulkhead reads v4 signatures only", s->version), R_FAIL;
	if (s->version != 4)
		return bh_error_set(err, BH_EINVAL, "openpgp: unsupported feature: signature packet version %d", s->version), R_SKIP;
	if (b.n < 6)
		return unexpected_eof(err), R_FAIL;
	s->type = b.p[1], s->pkalgo = b.p[2], s->hashalgo = b.p[3];
	if (!strchr("\x01\x03\x11\x13\x16\x1b\x1c", s->pkalgo) || !s->pkalgo)
		return bh_error_set(err, BH_EINVAL, "openpgp: unsupported feature: public key algorithm %d", s->pkalgo), R_SKIP;
	if (!hash_md(s->hashalgo))
		return bh_error_set(err, BH_EINVAL, "openpgp: unsupported feature: hash function %d", s->hashalgo), R_SKIP;
	size_t hl = (size_t)b.p[4] << 8 | b.p[5];
	take(&b, 6, NULL);
	bytes area, un;
	if (take(&b, hl, &area))
		return unexpected_eof(err), R_FAIL;
	s->hashed.p = start, s->hashed.n = 6 + hl;
	int rc = parse_subpackets(area, s, 1, depth, kr, err);
	if (rc)
		return rc;
	if (b.n < 2)
		return unexpected_eof(err), R_FAIL;
	size_t ul = (size_t)b.p[0] << 8 | b.p[1];
	take(&b, 2, NULL);
	if (take(&b, ul, &un))
		return unexpected_eof(err), R_FAIL;
	if ((rc = parse_subpackets(un, s, 0, depth, kr, err)))
		return rc;
	if (b.n < 2)
		return unexpected_eof(err), R_FAIL;
	memcpy(s->tag, b.p, 2);
	take(&b, 2, NULL);
	int bad;
	switch (s->pkalgo) {
	case 1: case 3: bad = mpi(&b, &s->m1); break;
	case 27: bad = take(&b, 64, &s->m1); break;
	case 28: bad = take(&b, 114, &s->m1); break;
	default: bad = mpi(&b, &s->m1) || mpi(&b, &s->m2); break;
	}
	if (bad)
		return unexpected_eof(err), R_FAIL;
	return R_OK;
}

/* Reader.Next: the next packet go-crypto would hand out, parsed; unknown
 * and unsupported packets skipped, markers too. */
static int next(reader *r, pkt *out, bh_error *err)
{
	if (r->has_unread) {
		*out = r->unread;
		r->has_unread = 0;
		return R_OK;
	}
	for (;;) {
		memset(out, 0, sizeof *out);
		int rc = read_header(r, &out->tag, &out->body, err), truncated = rc == R_OK + 10;
		if (rc == R_EOF || rc == R_FAIL)
			return rc;
		switch (out->tag) {
		case 2: {
			pgp_sig *s = calloc(1, sizeof *s);
			pgp_sig **v = s ? realloc(r->kr->sigs, (r->kr->nsigs + 1) * sizeof *v) : NULL;
			if (!v) {
				free(s);
				return bh_error_set(err, BH_ENOMEM, "out of memory"), R_FAIL;
			}
			r->kr->sigs = v, r->kr->sigs[r->kr->nsigs++] = s;
			rc = parse_sig(out->body, s, 0, r->kr, err);
			if (rc == R_SKIP && strstr(err->msg, "unsupported feature"))
				continue;
			if (rc)
				return R_FAIL + (rc == R_SKIP ? 10 : 0);
			out->sig = s, out->kind = K_SIG;
			return R_OK;
		}
		case 5: case 6: case 7: case 14:
			rc = parse_key(out->body, &out->key, err);
			if (rc == R_SKIP)
				continue;
			if (rc)
				return rc;
			out->secret = out->tag == 5 || out->tag == 7;
			out->subkey = out->tag == 7 || out->tag == 14;
			out->kind = K_KEY;
			return R_OK;
		case 13:
			out->kind = K_UID;
			return truncated ? (unexpected_eof(err), R_FAIL) : R_OK;
		case 10: case 12:
			continue;
		case 1: case 3: case 4: case 8: case 9: case 11: case 17: case 18: case 20: case 21:
			return R_OK;
		default:
			if (out->tag >= 40)
				continue;
			return bh_error_set(err, BH_EINVAL, "openpgp: unknown critical packet type: %d", out->tag), R_FAIL;
		}
	}
}

/* R_FAIL + 10 from next(): a StructuralError (R_SKIP for an entity) */
static int next_class(int rc)
{
	return rc == R_FAIL + 10 ? R_SKIP : rc;
}

/* ---- verification ---- */

static int cmp_sig_issuer(const pgp_sig *s, const pgp_key *k)
{
	if (s->has_fpr)
		return !memcmp(s->fpr, k->fpr, 20);
	return s->has_issuer && s->issuer == k->keyid;
}

static int can_sign(int algo)
{
	return !(algo == 2 || algo == 16 || algo == 18 || algo == 25 || algo == 26);
}

static int refuse_key(const pgp_key *k, bh_error *err)
{
	return bh_error_set(err, BH_EDENIED,
			    "openpgp: key %016llX uses public key algorithm %d, which bulkhead cannot verify "
			    "(it checks RSA, DSA, ECDSA P-256/384/521, EdDSA Ed25519, Ed25519 and Ed448 keys)",
			    (unsigned long long)k->keyid, k->algo);
}

/* PublicKey.VerifySignature: h holds the signed data; the signature's
 * suffix is added to it (as Go's hash, it stays added). */
static int key_verify(const pgp_key *k, EVP_MD_CTX *h, const pgp_sig *s, bh_error *err)
{
	if (!can_sign(k->algo))
		return bh_error_set(err, BH_EDENIED, "openpgp: invalid argument: public key cannot generate signatures");
	unsigned char trailer[6] = {4, 0xff, (unsigned char)(s->hashed.n >> 24), (unsigned char)(s->hashed.n >> 16),
				    (unsigned char)(s->hashed.n >> 8), (unsigned char)s->hashed.n};
	unsigned char dg[EVP_MAX_MD_SIZE];
	unsigned dn = 0;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	if (!c || !EVP_DigestUpdate(h, s->hashed.p, s->hashed.n) || !EVP_DigestUpdate(h, trailer, 6) ||
	    !EVP_MD_CTX_copy_ex(c, h) || !EVP_DigestFinal_ex(c, dg, &dn)) {
		EVP_MD_CTX_free(c);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	EVP_MD_CTX_free(c);
	if (k->algo != s->pkalgo)
		return bh_error_set(err, BH_EDENIED, "openpgp: invalid argument: public key and signature use different algorithms");
	if (k->unsupported || !k->pkey)
		return refuse_key(k, err);
	const char *what = "RSA";
	unsigned char sigbuf[1024], *der = NULL;
	const unsigned char *sp = s->m1.p;
	size_t sn = s->m1.n;
	int ok = 0;
	EVP_PKEY_CTX *pc = NULL;
	EVP_MD_CTX *mc = NULL;
	switch (k->algo) {
	case 1: case 3: {
		size_t ks = (size_t)EVP_PKEY_get_size(k->pkey);
		if (sn <= ks && ks <= sizeof sigbuf) { /* padToKeySize */
			memset(sigbuf, 0, ks - sn);
			memcpy(sigbuf + ks - sn, sp, sn);
			sp = sigbuf, sn = ks;
		}
		pc = EVP_PKEY_CTX_new(k->pkey, NULL);
		ok = pc && EVP_PKEY_verify_init(pc) > 0 && EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PADDING) > 0 &&
		     EVP_PKEY_CTX_set_signature_md(pc, hash_md(s->hashalgo)) > 0 && EVP_PKEY_verify(pc, sp, sn, dg, dn) == 1;
		break;
	}
	case 17: case 19: {
		what = k->algo == 17 ? "DSA" : "ECDSA";
		ECDSA_SIG *es = ECDSA_SIG_new(); /* DSA's Dss-Sig-Value is the same SEQUENCE of r, s */
		BIGNUM *r = BN_bin2bn(s->m1.p, (int)s->m1.n, NULL), *ss = BN_bin2bn(s->m2.p, (int)s->m2.n, NULL);
		int dl = -1;
		if (es && r && ss && ECDSA_SIG_set0(es, r, ss))
			r = ss = NULL, dl = i2d_ECDSA_SIG(es, &der);
		BN_free(r);
		BN_free(ss);
		ECDSA_SIG_free(es);
		pc = dl > 0 ? EVP_PKEY_CTX_new(k->pkey, NULL) : NULL;
		ok = pc && EVP_PKEY_verify_init(pc) > 0 && EVP_PKEY_verify(pc, der, (size_t)dl, dg, dn) == 1;
		break;
	}
	default: { /* EdDSA over the digest */
		what = k->algo == 22 ? "EdDSA" : k->algo == 27 ? "Ed25519" : "ed448";
		if (k->algo == 22) {
			if (s->m1.n > 32 || s->m2.n > 32)
				break;
			memset(sigbuf, 0, 64);
			memcpy(sigbuf + 32 - s->m1.n, s->m1.p, s->m1.n);
			memcpy(sigbuf + 64 - s->m2.n, s->m2.p, s->m2.n);
			sp = sigbuf, sn = 64;
		}
		mc = EVP_MD_CTX_new();
		ok = mc && EVP_DigestVerifyInit(mc, NULL, NULL, NULL, k->pkey) > 0 &&
		     EVP_DigestVerify(mc, sp, sn, dg, dn) == 1;
	}
	}
	OPENSSL_free(der);
	EVP_PKEY_CTX_free(pc);
	EVP_MD_CTX_free(mc);
	return ok ? 0 : bh_error_set(err, BH_EDENIED, "openpgp: invalid signature: %s verification failure", what);
}

/* A hash context over a key's packet (and a second key's, or a user ID). */
static EVP_MD_CTX *hash_start(const pgp_sig *s, const pgp_key *k, bh_error *err)
{
	EVP_MD_CTX *h = EVP_MD_CTX_new();
	unsigned char hdr[3] = {0x99, (unsigned char)(k->body.n >> 8), (unsigned char)k->body.n};
	if (!h || !EVP_DigestInit_ex(h, hash_md(s->hashalgo), NULL) || !EVP_DigestUpdate(h, hdr, 3) ||
	    !EVP_DigestUpdate(h, k->body.p, k->body.n)) {
		EVP_MD_CTX_free(h);
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	return h;
}

static int verify_uid(const pgp_key *k, bytes uid, const pgp_sig *s, bh_error *err)
{
	EVP_MD_CTX *h = hash_start(s, k, err);
	unsigned char hdr[5] = {0xb4, (unsigned char)(uid.n >> 24), (unsigned char)(uid.n >> 16),
				(unsigned char)(uid.n >> 8), (unsigned char)uid.n};
	int rc = !h ? BH_ENOMEM
	     : (!EVP_DigestUpdate(h, hdr, 5) || !EVP_DigestUpdate(h, uid.p, uid.n))
		     ? bh_error_set(err, BH_ENOMEM, "out of memory")
		     : key_verify(k, h, s, err);
	EVP_MD_CTX_free(h);
	return rc;
}

static int hash_key2(EVP_MD_CTX *h, const pgp_key *k)
{
	unsigned char hdr[3] = {0x99, (unsigned char)(k->body.n >> 8), (unsigned char)k->body.n};
	return EVP_DigestUpdate(h, hdr, 3) && EVP_DigestUpdate(h, k->body.p, k->body.n);
}

/* VerifyKeySignature: a subkey binding (with its cross-signature when the
 * subkey may sign) or a subkey revocation. */
static int verify_binding(const pgp_key *pk, const pgp_key *sub, const pgp_sig *s, bh_error *err)
{
	EVP_MD_CTX *h = hash_start(s, pk, err);
	int rc = !h ? BH_ENOMEM : !hash_key2(h, sub) ? bh_error_set(err, BH_ENOMEM, "out of memory") : key_verify(pk, h, s, err);
	EVP_MD_CTX_free(h);
	if (rc || !(s->flags & 2))
		return rc;
	if (!s->embedded)
		return bh_error_set(err, BH_EINVAL, "openpgp: invalid data: signing subkey is missing cross-signature");
	h = hash_start(s->embedded, pk, err);
	rc = !h ? BH_ENOMEM : !hash_key2(h, sub) ? bh_error_set(err, BH_ENOMEM, "out of memory") : key_verify(sub, h, s->embedded, err);
	EVP_MD_CTX_free(h);
	if (rc && rc != BH_ENOMEM)
		bh_error_prefix(err, "openpgp: invalid data: error while verifying cross-signature");
	return rc;
}

static int verify_direct(const pgp_key *pk, const pgp_sig *s, bh_error *err)
{
	EVP_MD_CTX *h = hash_start(s, pk, err);
	int rc = h ? key_verify(pk, h, s, err) : BH_ENOMEM;
	EVP_MD_CTX_free(h);
	return rc;
}

/* ---- keyring ---- */

static void key_free(pgp_key *k)
{
	EVP_PKEY_free(k->pkey);
	free(k->revs);
}

static void entity_free(pgp_entity *e)
{
	key_free(&e->primary);
	for (size_t i = 0; i < e->nsubs; i++)
		key_free(&e->subs[i]);
	free(e->subs);
	free(e->ids);
}

static int push_rev(pgp_key *k, pgp_sig *s)
{
	pgp_sig **v = realloc(k->revs, (k->nrevs + 1) * sizeof *v);
	if (!v)
		return -1;
	k->revs = v, v[k->nrevs++] = s;
	return 0;
}

/* addUserID */
static int add_uid(pgp_entity *e, reader *r, bytes uid, bh_error *err)
{
	pgp_identity id = {uid, NULL, {NULL}, 0};
	int self = 0;
	pkt p;
	for (;;) {
		int rc = next_class(next(r, &p, err));
		if (rc == R_EOF)
			break;
		if (rc)
			return rc;
		if (p.kind != K_SIG) {
			r->unread = p, r->has_unread = 1;
			break;
		}
		pgp_sig *s = p.sig;
		if (!(s->type >= 0x10 && s->type <= 0x13) && s->type != 0x30)
			return structural(err, "user ID signature with wrong type");
		if (!cmp_sig_issuer(s, &e->primary))
			continue;
		if (verify_uid(&e->primary, uid, s, err)) {
			if (err->code == BH_EDENIED && strstr(err->msg, "bulkhead cannot verify"))
				return R_SKIP;
			bh_error_prefix(err, "openpgp: invalid data: user ID self-signature invalid");
			return R_SKIP;
		}
		if (s->type == 0x30 && id.nrevs < 8)
			id.revs[id.nrevs++] = s;
		else if (s->type == 0x30)
			id.nrevs++;
		else if (!id.self || s->created > id.self->created)
			id.self = s;
		self = 1;
	}
	if (!self)
		return R_OK;
	for (size_t i = 0; i < e->nids; i++)
		if (e->ids[i].uid.n == uid.n && !memcmp(e->ids[i].uid.p, uid.p, uid.n)) {
			e->ids[i] = id;
			return R_OK;
		}
	pgp_identity *v = realloc(e->ids, (e->nids + 1) * sizeof *v);
	if (!v)
		return bh_error_set(err, BH_ENOMEM, "out of memory"), R_FAIL;
	e->ids = v, v[e->nids++] = id;
	return R_OK;
}

static int is_refusal(const bh_error *err)
{
	return err->code == BH_EDENIED && strstr(err->msg, "bulkhead cannot verify") != NULL;
}

/* addSubkey; sub is owned (kept or freed) here */
static int add_subkey(pgp_entity *e, reader *r, pgp_key *sub, bh_error *err)
{
	pkt p;
	int rc = R_OK;
	for (;;) {
		rc = next_class(next(r, &p, err));
		if (rc == R_EOF) {
			rc = R_OK;
			break;
		}
		if (rc) {
			if (rc != R_FAIL || err->code != BH_ENOMEM)
				bh_error_prefix(err, "openpgp: invalid data: subkey signature invalid"), rc = R_SKIP;
			goto fail;
		}
		if (p.kind != K_SIG) {
			r->unread = p, r->has_unread = 1;
			break;
		}
		pgp_sig *s = p.sig;
		if (s->type != 0x18 && s->type != 0x28) {
			rc = structural(err, "subkey signature with wrong type");
			goto fail;
		}
		if (verify_binding(&e->primary, sub, s, err)) {
			if (!is_refusal(err))
				bh_error_prefix(err, "openpgp: invalid data: subkey signature invalid");
			rc = R_SKIP;
			goto fail;
		}
		if (s->type == 0x28) {
			if (push_rev(sub, s))
				goto oom;
		} else if (!sub->binding || s->created > sub->binding->created) {
			sub->binding = s;
		}
	}
	if (!sub->binding) {
		rc = structural(err, "subkey packet not followed by signature");
		goto fail;
	}
	pgp_key *v = realloc(e->subs, (e->nsubs + 1) * sizeof *v);
	if (!v)
		goto oom;
	e->subs = v, v[e->nsubs++] = *sub;
	return R_OK;
oom:
	rc = R_FAIL, bh_error_set(err, BH_ENOMEM, "out of memory");
fail:
	key_free(sub);
	return rc;
}

/* ReadEntity (v4) */
static int read_entity(reader *r, pgp_entity *e, bh_error *err)
{
	pkt p;
	pgp_sig *revs[64];
	size_t nrevs = 0;
	int rc = next_class(next(r, &p, err));
	if (rc)
		return rc;
	if (p.kind != K_KEY) {
		r->unread = p, r->has_unread = 1;
		return structural(err, "first packet was not a public/private key");
	}
	e->primary = p.key;
	if (!can_sign(e->primary.algo))
		return structural(err, "primary key cannot be used for signatures");
	for (;;) {
		rc = next_class(next(r, &p, err));
		if (rc == R_EOF)
			break;
		if (rc)
			return rc;
		if (p.kind == K_UID) {
			if ((rc = add_uid(e, r, p.body, err)))
				return rc;
		} else if (p.kind == K_SIG && p.sig->type == 0x20) {
			if (nrevs == sizeof revs / sizeof *revs)
				return bh_error_set(err, BH_ELIMIT, "openpgp: more than %zu key revocations", nrevs), R_FAIL;
			revs[nrevs++] = p.sig;
		} else if (p.kind == K_KEY && !p.subkey) {
			r->unread = p, r->has_unread = 1;
			break;
		} else if (p.kind == K_KEY && (rc = add_subkey(e, r, &p.key, err))) {
			return rc;
		}
	}
	if (!e->nids)
		return structural(err, "v4 entity without any identities");
	for (size_t i = 0; i < nrevs; i++) {
		if (verify_direct(&e->primary, revs[i], err))
			return is_refusal(err) ? R_SKIP : structural(err, "revocation signature signed by alternate key");
		if (push_rev(&e->primary, revs[i]))
			return bh_error_set(err, BH_ENOMEM, "out of memory"), R_FAIL;
	}
	return R_OK;
}

/* readToNextPublicKey */
static int to_next_public_key(reader *r, bh_error *err)
{
	pkt p;
	for (;;) {
		int rc = next(r, &p, err);
		if (rc == R_EOF)
			return R_EOF;
		if (rc)
			return R_FAIL;
		if (p.kind == K_KEY && p.tag == 6) {
			r->unread = p, r->has_unread = 1;
			return R_OK;
		}
		if (p.kind == K_KEY)
			key_free(&p.key);
	}
}

static void sigs_free(pgp_keyring *kr)
{
	for (size_t i = 0; i < kr->nsigs; i++)
		free(kr->sigs[i]);
	free(kr->sigs);
}

void pgp_keyring_free(pgp_keyring *kr)
{
	if (!kr)
		return;
	for (size_t i = 0; i < kr->n; i++)
		entity_free(&kr->ents[i]);
	free(kr->ents);
	sigs_free(kr);
	free(kr->refused);
	free(kr->data);
	free(kr);
}

size_t pgp_keyring_count(const pgp_keyring *kr)
{
	return kr ? kr->n : 0;
}

int pgp_keyring_decode(const void *data, size_t len, pgp_keyring **out, bh_error *err)
{
	*out = NULL;
	if (len > PGP_MAX_INPUT)
		return bh_error_set(err, BH_ELIMIT, "keyring is larger than %u bytes", PGP_MAX_INPUT);
	pgp_keyring *kr = calloc(1, sizeof *kr);
	if (!kr || !(kr->data = malloc(len ? len : 1))) {
		free(kr);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	memcpy(kr->data, data, len);
	reader r = {.p = kr->data, .n = len, .kr = kr};
	bh_error last;
	int have_last = 0, rc;
	for (;;) {
		pgp_entity e;
		memset(&e, 0, sizeof e);
		rc = read_entity(&r, &e, err);
		if (rc == R_OK) {
			pgp_entity *v = kr->n < PGP_MAX_ENTITIES ? realloc(kr->ents, (kr->n + 1) * sizeof *v) : NULL;
			if (!v) {
				entity_free(&e);
				rc = R_FAIL;
				if (kr->n < PGP_MAX_ENTITIES)
					bh_error_set(err, BH_ENOMEM, "out of memory");
				else
					bh_error_set(err, BH_ELIMIT, "keyring has more than %d keys", PGP_MAX_ENTITIES);
				break;
			}
			kr->ents = v, v[kr->n++] = e;
			continue;
		}
		if (rc == R_SKIP) {
			last = *err, have_last = 1;
			if (is_refusal(err) && e.primary.body.n) {
				uint64_t *v = realloc(kr->refused, (kr->nrefused + 1 + e.nsubs) * sizeof *v);
				if (v) {
					kr->refused = v, v[kr->nrefused++] = e.primary.keyid;
					for (size_t i = 0; i < e.nsubs; i++)
						v[kr->nrefused++] = e.subs[i].keyid;
				}
			}
			entity_free(&e);
			rc = to_next_public_key(&r, err);
		} else {
			entity_free(&e);
		}
		if (rc == R_EOF) {
			rc = R_OK;
			break;
		}
		if (rc)
			break;
	}
	if (r.has_unread && r.unread.kind == K_KEY)
		key_free(&r.unread.key);
	if (rc) {
		pgp_keyring_free(kr);
		return err && err->code ? err->code : BH_EINVAL;
	}
	if (!kr->n && have_last) {
		pgp_keyring_free(kr);
		if (err)
			*err = last;
		return last.code ? last.code : BH_EINVAL;
	}
	*out = kr;
	return 0;
}

/* ---- detached signatures ---- */

static int sig_expired(const pgp_sig *s, int64_t now)
{
	if (s->created > now)
		return 1;
	return s->sig_life && now > s->created + (int64_t)s->sig_life;
}

static int key_expired(const pgp_key *k, const pgp_sig *s, int64_t now)
{
	if (k->created > now)
		return 1;
	return s && s->key_life && now > k->created + (int64_t)s->key_life;
}

static int revoked(pgp_sig *const *revs, size_t n, int64_t now)
{
	for (size_t i = 0; i < n; i++)
		if ((revs[i]->revocation_reason == 3) || !sig_expired(revs[i], now))
			return 1;
	return 0;
}

static int is_primary(const pgp_sig *s)
{
	return s && s->primary_id == 2;
}

/* shouldPreferIdentity, over the identities in order */
static const pgp_identity *primary_identity(const pgp_entity *e)
{
	const pgp_identity *best = NULL;
	for (size_t i = 0; i < e->nids; i++) {
		const pgp_identity *c = &e->ids[i];
		int take_it;
		if (!best || best->nrevs > c->nrevs)
			take_it = 1;
		else if (best->nrevs < c->nrevs)
			take_it = 0;
		else if (!best->self)
			take_it = 1;
		else if (!c->self)
			take_it = 0;
		else if (is_primary(best->self) && !is_primary(c->self))
			take_it = 0;
		else if (!is_primary(best->self) && is_primary(c->self))
			take_it = 1;
		else
			take_it = c->self->created > best->self->created;
		if (take_it)
			best = c;
	}
	return best;
}

typedef struct cand {
	const pgp_entity *e;
	const pgp_key *k;
	const pgp_sig *self;
} cand;

static int check_details(const cand *c, const pgp_sig *sig, int64_t now, bh_error *err)
{
	const pgp_identity *pid = primary_identity(c->e);
	const pgp_sig *psig = pid ? pid->self : NULL;
	int sub = c->k != &c->e->primary;
	const pgp_sig *check[4] = {sig, psig, sub ? c->self : NULL, sub && c->self ? c->self->embedded : NULL};
	for (int i = 0; i < 4; i++)
		if (check[i] && check[i]->has_critical)
			return bh_error_set(err, BH_EDENIED, "openpgp: invalid signature: unknown critical notation: %.*s",
					    (int)check[i]->critical_notation.n, (const char *)check[i]->critical_notation.p);
	if (revoked(c->e->primary.revs, c->e->primary.nrevs, now) || (sub && revoked(c->k->revs, c->k->nrevs, now)) ||
	    (pid && revoked(pid->revs, pid->nrevs < 8 ? pid->nrevs : 8, now)))
		return bh_error_set(err, BH_EDENIED, "openpgp: signature made by revoked key");
	if (key_expired(&c->e->primary, psig, now) || (sub && key_expired(c->k, c->self, now)))
		return bh_error_set(err, BH_EDENIED, "openpgp: key expired");
	for (int i = 0; i < 4; i++)
		if (check[i] && sig_expired(check[i], now))
			return bh_error_set(err, BH_EDENIED, "openpgp: signature expired");
	return 0;
}

static int usable(const pgp_sig *self)
{
	return self && self->flags_valid && (self->flags & 2);
}

/* KeysByIdUsage(id, KeyFlagSign) */
static size_t signing_keys(const pgp_keyring *kr, uint64_t id, cand *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < kr->n && n < max; i++) {
		const pgp_entity *e = &kr->ents[i];
		if (e->primary.keyid == id) {
			const pgp_identity *pid = primary_identity(e);
			if (pid && usable(pid->self))
				out[n++] = (cand){e, &e->primary, pid->self};
		}
		for (size_t j = 0; j < e->nsubs && n < max; j++)
			if (e->subs[j].keyid == id && usable(e->subs[j].binding))
				out[n++] = (cand){e, &e->subs[j], e->subs[j].binding};
	}
	return n;
}

static int hash_canonical(EVP_MD_CTX *h, const unsigned char *p, size_t n)
{
	size_t start = 0;
	int cr = 0;
	for (size_t i = 0; i < n; i++) {
		if (cr) {
			cr = 0;
		} else if (p[i] == '\r') {
			cr = 1;
		} else if (p[i] == '\n') {
			if (!EVP_DigestUpdate(h, p + start, i - start) || !EVP_DigestUpdate(h, "\r\n", 2))
				return 0;
			start = i + 1;
		}
	}
	return EVP_DigestUpdate(h, p + start, n - start);
}

int pgp_verify_detached(const pgp_keyring *kr, const void *msg, size_t msg_len, const void *sig,
			size_t sig_len, int64_t now, bh_error *err)
{
	pgp_keyring tmp;
	memset(&tmp, 0, sizeof tmp);
	reader r = {.p = sig, .n = sig_len, .kr = &tmp};
	cand keys[16];
	size_t nk = 0;
	pkt p;
	int rc, refused = 0;
	if (sig_len > PGP_MAX_INPUT || msg_len > (size_t)1 << 40) {
		rc = bh_error_set(err, BH_ELIMIT, "signature is larger than %u bytes", PGP_MAX_INPUT);
		goto out;
	}
	for (;;) {
		rc = next(&r, &p, err);
		if (rc == R_EOF) {
			rc = refused ? bh_error_set(err, BH_EDENIED,
						    "openpgp: the signing key is in the keyring but uses an algorithm "
						    "bulkhead cannot verify (it checks RSA, DSA, ECDSA P-256/384/521, EdDSA "
						    "Ed25519, Ed25519 and Ed448 keys)")
				     : bh_error_set(err, BH_EDENIED, "openpgp: signature made by unknown entity");
			goto out;
		}
		if (rc) {
			rc = err->code ? err->code : BH_EINVAL;
			goto out;
		}
		if (p.kind == K_KEY)
			key_free(&p.key);
		if (p.kind != K_SIG) {
			rc = bh_error_set(err, BH_EINVAL, "openpgp: invalid data: non signature packet found");
			goto out;
		}
		if (!p.sig->has_issuer) {
			rc = bh_error_set(err, BH_EINVAL, "openpgp: invalid data: signature doesn't have an issuer");
			goto out;
		}
		for (size_t i = 0; i < kr->nrefused; i++)
			refused |= kr->refused[i] == p.sig->issuer;
		if ((nk = signing_keys(kr, p.sig->issuer, keys, sizeof keys / sizeof *keys)))
			break;
	}
	const pgp_sig *s = p.sig;
	if (s->type != 0 && s->type != 1) {
		rc = bh_error_set(err, BH_EDENIED, "openpgp: unsupported feature: unsupported signature type: %d", s->type);
		goto out;
	}
	EVP_MD_CTX *h = EVP_MD_CTX_new();
	if (!h || !EVP_DigestInit_ex(h, hash_md(s->hashalgo), NULL) ||
	    !(s->type == 1 ? hash_canonical(h, msg, msg_len) : EVP_DigestUpdate(h, msg, msg_len))) {
		EVP_MD_CTX_free(h);
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nk; i++) {
		if (!(rc = key_verify(keys[i].k, h, s, err))) {
			rc = check_details(&keys[i], s, now, err);
			break;
		}
	}
	EVP_MD_CTX_free(h);
out:
	if (r.has_unread && r.unread.kind == K_KEY)
		key_free(&r.unread.key);
	sigs_free(&tmp);
	return rc;
}
