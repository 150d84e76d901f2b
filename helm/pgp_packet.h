/* helm/pgp_packet.h — private to helm/pgp*.c: the parsed forms of OpenPGP
 * packets (keys, signatures, the keyring that owns them) and the packet
 * reader of helm/pgp_packet.c, which reads them as go-crypto v1.3.0's
 * packet.Reader does. Parsed packets point into the bytes they were read
 * from. See helm/pgp.h for the public API. */
#ifndef BH_HELM_PGP_PACKET_H
#define BH_HELM_PGP_PACKET_H

#include <openssl/evp.h>
#include <stddef.h>
#include <stdint.h>

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

/* Reader.Next: the next packet go-crypto would hand out, parsed into out;
 * unknown and unsupported packets and markers are skipped. R_OK, R_EOF,
 * R_FAIL (err set), or R_FAIL + 10 for a StructuralError. */
int pgp_packet_next(reader *r, pkt *out, bh_error *err);
/* pgp_packet_next's R_FAIL + 10 as R_SKIP (the entity is skipped), else rc. */
int pgp_packet_class(int rc);
/* The digest of an OpenPGP hash algorithm id, or NULL. */
const EVP_MD *pgp_hash_md(int id);
/* A StructuralError: "openpgp: invalid data: MSG", R_SKIP. */
int pgp_structural(bh_error *err, const char *msg);

#endif
