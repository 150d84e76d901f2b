/* helm/pgp.c — OpenPGP keyrings (entities, self-signatures, bindings,
 * revocations) and detached signature checks as go-crypto v1.3.0 does
 * them (see helm/pgp.h), over the packets of helm/pgp_packet.c. Key and
 * signature bytes stay in the buffer they were read from; parsed packets
 * point into it. */
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <stdlib.h>
#include <string.h>

#include "helm/pgp.h"
#include "helm/pgp_packet.h"

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
		     EVP_PKEY_CTX_set_signature_md(pc, pgp_hash_md(s->hashalgo)) > 0 && EVP_PKEY_verify(pc, sp, sn, dg, dn) == 1;
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
	if (!h || !EVP_DigestInit_ex(h, pgp_hash_md(s->hashalgo), NULL) || !EVP_DigestUpdate(h, hdr, 3) ||
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
		int rc = pgp_packet_class(pgp_packet_next(r, &p, err));
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
			return pgp_structural(err, "user ID signature with wrong type");
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
		rc = pgp_packet_class(pgp_packet_next(r, &p, err));
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
			rc = pgp_structural(err, "subkey signature with wrong type");
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
		rc = pgp_structural(err, "subkey packet not followed by signature");
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
	int rc = pgp_packet_class(pgp_packet_next(r, &p, err));
	if (rc)
		return rc;
	if (p.kind != K_KEY) {
		r->unread = p, r->has_unread = 1;
		return pgp_structural(err, "first packet was not a public/private key");
	}
	e->primary = p.key;
	if (!can_sign(e->primary.algo))
		return pgp_structural(err, "primary key cannot be used for signatures");
	for (;;) {
		rc = pgp_packet_class(pgp_packet_next(r, &p, err));
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
		return pgp_structural(err, "v4 entity without any identities");
	for (size_t i = 0; i < nrevs; i++) {
		if (verify_direct(&e->primary, revs[i], err))
			return is_refusal(err) ? R_SKIP : pgp_structural(err, "revocation signature signed by alternate key");
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
		int rc = pgp_packet_next(r, &p, err);
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
		rc = pgp_packet_next(&r, &p, err);
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
	if (!h || !EVP_DigestInit_ex(h, pgp_hash_md(s->hashalgo), NULL) ||
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
