/* tests/unit/test_pgp.c — helm/pgp.h and helm/provenance.h: armor,
 * clearsign canonical text, packet framing errors with go-crypto's texts,
 * and a key and signature made by gpg (tests/unit/data/pgp/). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helm/pgp.h"
#include "helm/provenance.h"
#include "tests/unit/unit_util.h"

START_TEST(test_armor)
{
	const char *t = "junk\n-----BEGIN PGP SIGNATURE-----\nVersion: x\n\naGVsbG8=\n=abcd\n-----END PGP SIGNATURE-----\n";
	bh_buf type = BH_BUF_INIT, body = BH_BUF_INIT;
	bh_error e;
	int berr;
	ck_assert_int_eq(pgp_armor_decode(t, strlen(t), &type, &body, &berr, &e), 0);
	ck_assert_int_eq(berr, 0);
	ck_assert_str_eq(bh_buf_str(&type), "PGP SIGNATURE");
	ck_assert_str_eq(bh_buf_str(&body), "hello");
	const char *bad = "-----BEGIN PGP SIGNATURE-----\n\naGV*bG8=\n-----END PGP SIGNATURE-----\n";
	ck_assert_int_eq(pgp_armor_decode(bad, strlen(bad), &type, &body, &berr, &e), 0);
	ck_assert_int_eq(berr, 1);
	ck_assert_str_eq(e.msg, "illegal base64 data at input byte 3");
	ck_assert_int_eq(pgp_armor_decode("no armor", 8, &type, &body, &berr, &e), BH_EPARSE);
	bh_buf_free(&type);
	bh_buf_free(&body);
}
END_TEST

START_TEST(test_clearsign)
{
	const char *t = "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\n"
			"a: 1  \n- -dashed\r\nlast\t\n"
			"-----BEGIN PGP SIGNATURE-----\n\naGVsbG8=\n-----END PGP SIGNATURE-----";
	pgp_clearsigned c;
	ck_assert_int_eq(pgp_clearsign_decode(t, strlen(t), &c), 0);
	ck_assert_str_eq(c.signed_text.data, "a: 1\r\n-dashed\r\nlast");
	ck_assert_str_eq(c.plain.data, "a: 1\n-dashed\nlast");
	ck_assert_str_eq(c.sig.data, "hello");
	pgp_clearsigned_free(&c);
	const char *other_header = "-----BEGIN PGP SIGNED MESSAGE-----\nComment: x\n\nx\n"
				   "-----BEGIN PGP SIGNATURE-----\n\naGVsbG8=\n-----END PGP SIGNATURE-----";
	ck_assert_int_eq(pgp_clearsign_decode(other_header, strlen(other_header), &c), BH_EPARSE);
	ck_assert_int_eq(pgp_clearsign_decode("hello", 5, &c), BH_EPARSE);
}
END_TEST

START_TEST(test_keyring_framing)
{
	pgp_keyring *kr = NULL;
	bh_error e;
	ck_assert_int_eq(pgp_keyring_decode("", 0, &kr, &e), 0);
	ck_assert_uint_eq(pgp_keyring_count(kr), 0);
	pgp_keyring_free(kr);
	ck_assert_int_ne(pgp_keyring_decode("-----BEGIN", 10, &kr, &e), 0);
	ck_assert_str_eq(e.msg, "openpgp: invalid data: tag byte does not have MSB set");
	ck_assert_int_ne(pgp_keyring_decode("\x99\x01", 2, &kr, &e), 0);
	ck_assert_str_eq(e.msg, "unexpected EOF");
	ck_assert_int_ne(pgp_keyring_decode("\xc0\x00", 2, &kr, &e), 0);
	ck_assert_str_eq(e.msg, "openpgp: unknown critical packet type: 0");
	/* a user ID alone: not a key */
	ck_assert_int_ne(pgp_keyring_decode("\xcd\x01x", 3, &kr, &e), 0);
	ck_assert_str_eq(e.msg, "openpgp: invalid data: first packet was not a public/private key");
}
END_TEST

START_TEST(test_signed)
{
	size_t rn, on, pn;
	char *ring = unit_data_new("pgp", "pubring.gpg", &rn), *other = unit_data_new("pgp", "other.gpg", &on), *prov = unit_data_new("pgp", "mychart-0.1.0.tgz.prov", &pn);
	pgp_keyring *kr = NULL, *ko = NULL;
	bh_error e;
	ck_assert_int_eq(pgp_keyring_decode(ring, rn, &kr, &e), 0);
	ck_assert_uint_eq(pgp_keyring_count(kr), 1);
	ck_assert_int_eq(pgp_keyring_decode(other, on, &ko, &e), 0);
	pgp_clearsigned c;
	ck_assert_int_eq(pgp_clearsign_decode(prov, pn, &c), 0);
	ck_assert_int_eq(pgp_verify_detached(kr, c.signed_text.data, c.signed_text.len, c.sig.data, c.sig.len, 1900000000, &e), 0);
	ck_assert_int_ne(pgp_verify_detached(ko, c.signed_text.data, c.signed_text.len, c.sig.data, c.sig.len, 1900000000, &e), 0);
	ck_assert_str_eq(e.msg, "openpgp: signature made by unknown entity");
	c.signed_text.data[0] ^= 1;
	ck_assert_int_ne(pgp_verify_detached(kr, c.signed_text.data, c.signed_text.len, c.sig.data, c.sig.len, 1900000000, &e), 0);
	ck_assert_str_eq(e.msg, "openpgp: invalid signature: RSA verification failure");
	/* a signature made before its key: not yet valid */
	c.signed_text.data[0] ^= 1;
	ck_assert_int_ne(pgp_verify_detached(kr, c.signed_text.data, c.signed_text.len, c.sig.data, c.sig.len, 1000000000, &e), 0);
	ck_assert_str_eq(e.msg, "openpgp: key expired");
	pgp_clearsigned_free(&c);
	ck_assert_int_ne(provenance_verify(kr, "x", 1, prov, pn, "mychart-0.1.0.tgz", 1900000000, &e), 0);
	ck_assert(strncmp(e.msg, "sha256 sum does not match for mychart-0.1.0.tgz: \"sha256:", 56) == 0);
	ck_assert_int_ne(provenance_verify(kr, "x", 1, prov, pn, "other.tgz", 1900000000, &e), 0);
	ck_assert_str_eq(e.msg, "provenance does not contain a SHA for a file named \"other.tgz\"");
	ck_assert_int_ne(provenance_verify(kr, "x", 1, "junk", 4, "other.tgz", 1900000000, &e), 0);
	ck_assert_str_eq(e.msg, "signature block not found");
	pgp_keyring_free(kr);
	pgp_keyring_free(ko);
	free(ring);
	free(other);
	free(prov);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pgp");
	TCase *tc = tcase_create("pgp");
	tcase_add_test(tc, test_armor);
	tcase_add_test(tc, test_clearsign);
	tcase_add_test(tc, test_keyring_framing);
	tcase_add_test(tc, test_signed);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
