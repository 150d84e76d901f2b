/* helm/pgp_packet.c — OpenPGP packets read as go-crypto v1.3.0 reads them
 * (see helm/pgp_packet.h): packet headers, public keys (RSA, DSA, ECDSA,
 * EdDSA, Ed25519, Ed448 as OpenSSL keys), signatures with their
 * subpackets. */
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <string.h>

#include "helm/pgp_packet.h"

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

const EVP_MD *pgp_hash_md(int id)
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

int pgp_structural(bh_error *err, const char *msg)
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
				return pgp_structural(err, "signature subpacket truncated");
			len = ((size_t)(p[0] - 192) << 8) + p[1] + 192, take(&area, 2, NULL);
		} else {
			if (area.n < 5)
				return pgp_structural(err, "signature subpacket truncated");
			len = be32(p + 1), take(&area, 5, NULL);
		}
		bytes sp;
		if (take(&area, len, &sp))
			return pgp_structural(err, "signature subpacket truncated");
		if (!sp.n)
			return pgp_structural(err, "zero length signature subpacket");
		int type = sp.p[0] & 0x7f, critical = sp.p[0] & 0x80;
		sp.p++, sp.n--;
		if (!hashed && type != 16 && type != 33 && type != 32)
			continue;
		switch (type) {
		case 2:
			if (sp.n != 4)
				return pgp_structural(err, "signature creation time not four bytes");
			s->created = be32(sp.p);
			break;
		case 3:
			if (sp.n != 4)
				return pgp_structural(err, "expiration subpacket with bad length");
			s->sig_life = be32(sp.p);
			break;
		case 4:
			if (sp.p[0] == 0)
				return bh_error_set(err, BH_EINVAL, "openpgp: unsupported feature: signature with non-exportable certification"), R_SKIP;
			break;
		case 9:
			if (sp.n != 4)
				return pgp_structural(err, "key expiration subpacket with bad length");
			s->key_life = be32(sp.p);
			break;
		case 16:
			if (sp.n != 8)
				return pgp_structural(err, "issuer subpacket with bad length");
			s->has_issuer = 1;
			s->issuer = (uint64_t)be32(sp.p) << 32 | be32(sp.p + 4);
			break;
		case 20:
			if (sp.n < 8 || sp.n != 8 + ((size_t)sp.p[4] << 8 | sp.p[5]) + ((size_t)sp.p[6] << 8 | sp.p[7]))
				return pgp_structural(err, "notation data subpacket with bad length");
			if (critical && !s->has_critical) {
				s->has_critical = 1;
				s->critical_notation.p = sp.p + 8;
				s->critical_notation.n = (size_t)sp.p[4] << 8 | sp.p[5];
			}
			break;
		case 25:
			if (sp.n != 1)
				return pgp_structural(err, "primary user id subpacket with bad length");
			s->primary_id = sp.p[0] ? 2 : 1;
			break;
		case 27:
			s->flags_valid = 1;
			s->flags = sp.n ? sp.p[0] : 0;
			break;
		case 29:
			if (!sp.n)
				return pgp_structural(err, "empty revocation reason subpacket");
			s->revocation_reason = sp.p[0] + 1;
			break;
		case 32: {
			if (s->embedded)
				return pgp_structural(err, "Cannot have multiple embedded signatures");
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
				return pgp_structural(err, "empty issuer fingerprint subpacket");
			if (sp.p[0] >= 5 ? sp.n - 1 != 32 : sp.n - 1 != 20)
				return pgp_structural(err, "bad fingerprint length");
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
		return pgp_structural(err, "no creation time in signature");
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
	if (!pgp_hash_md(s->hashalgo))
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
int pgp_packet_next(reader *r, pkt *out, bh_error *err)
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
int pgp_packet_class(int rc)
{
	return rc == R_FAIL + 10 ? R_SKIP : rc;
}
