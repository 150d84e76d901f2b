/* helm/pgp.h — the OpenPGP subset Helm's provenance files need, read as
 * github.com/ProtonMail/go-crypto v1.3.0 (the library helm v4.1.4 uses)
 * reads it: binary keyrings (openpgp.ReadKeyRing: transferable public or
 * secret keys, self-signatures checked), ASCII armor, cleartext signed
 * messages (clearsign.Decode) and detached v4 signatures
 * (openpgp.CheckDetachedSignature). Keys and signatures: RSA, DSA, ECDSA
 * (P-256/384/521), EdDSA (Ed25519 legacy), Ed25519 and Ed448, hashed with
 * SHA-1/224/256/384/512 or SHA3-256/512; the cryptography is OpenSSL's.
 * What Helm's library would accept and this subset cannot check (other
 * curves, v5/v6 keys and signatures, partial-length packets) is refused by
 * name.
 *
 * Every decoder is a pure function of its input bytes with the limits
 * below. Error messages are go-crypto's texts ("openpgp: signature made by
 * unknown entity", "openpgp: invalid data: ...", "unexpected EOF"). */
#ifndef BH_HELM_PGP_H
#define BH_HELM_PGP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/error.h"

#define PGP_MAX_INPUT (16u << 20) /* bytes of a keyring, armor or message */
#define PGP_MAX_PACKETS 200000    /* packets in one keyring or signature */
#define PGP_MAX_ENTITIES 20000    /* keys (with subkeys) in one keyring */

typedef struct pgp_keyring pgp_keyring;

/* openpgp.ReadKeyRing over binary packets. An entity that is malformed or
 * uses what go-crypto does not support is skipped; if every one is, the
 * last such error is returned (BH_EINVAL), as Helm's library does. A new
 * keyring in *out (free with pgp_keyring_free). */
int pgp_keyring_decode(const void *data, size_t len, pgp_keyring **out, bh_error *err);
void pgp_keyring_free(pgp_keyring *kr);
size_t pgp_keyring_count(const pgp_keyring *kr);

/* armor.Decode: the first "-----BEGIN X-----" block; its type X into type
 * and its base64 body, decoded, into body. Like go-crypto v1.3.0 the CRC24
 * line ends the body and is not checked. Returns BH_EPARSE when no block
 * header is found; a body that does not decode sets *body_err (0 when it
 * decoded) and err to the text Helm's library reports when reading it. */
int pgp_armor_decode(const char *text, size_t len, bh_buf *type, bh_buf *body, int *body_err,
		     bh_error *err);

/* clearsign.Decode: the signed text (dash-escapes removed, trailing blanks
 * stripped, lines joined by CRLF: what the signature covers) into signed,
 * the same lines joined by LF into plain, and the armored signature's
 * packets into sig. Returns BH_EPARSE when data holds no complete
 * clearsigned message (Helm then says "signature block not found"). */
typedef struct pgp_clearsigned {
	bh_buf signed_text, plain, sig;
	int sig_err;         /* the armor body did not decode: err_msg says why */
	char err_msg[256];
} pgp_clearsigned;
int pgp_clearsign_decode(const char *data, size_t len, pgp_clearsigned *out);
void pgp_clearsigned_free(pgp_clearsigned *c);

/* openpgp.CheckDetachedSignature: the first signature in sig (binary
 * packets) whose issuer is a signing key of kr must verify over msg, and
 * neither it nor the key may be expired or revoked at `now` (Unix
 * seconds). 0 when it verifies; otherwise BH_EDENIED (or BH_EINVAL for a
 * malformed signature) and go-crypto's error text. */
int pgp_verify_detached(const pgp_keyring *kr, const void *msg, size_t msg_len, const void *sig,
			size_t sig_len, int64_t now, bh_error *err);

#endif
