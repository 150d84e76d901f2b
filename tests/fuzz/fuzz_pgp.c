/* tests/fuzz/fuzz_pgp.c — the OpenPGP decoders behind `template --verify`
 * (helm/pgp.h, helm/provenance.h): the first input byte picks binary
 * keyrings (then the test .prov of tests/unit/data/pgp checked against
 * the keyring read), ASCII armor, or a whole .prov file checked against
 * the RSA test key of tests/unit/data/pgp (clearsign, signature, the
 * `files:` YAML).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "helm/pgp.h"
#include "helm/provenance.h"
#include "fuzz_pick.h"

static char prov[8192];
static size_t prov_len;

static size_t slurp(const char *path, char *buf, size_t max)
{
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, max, f) : 0;
	if (f)
		fclose(f);
	return n;
}

static pgp_keyring *test_key(void)
{
	static pgp_keyring *kr;
	static int done;
	if (done)
		return kr;
	done = 1;
	char buf[8192];
	size_t n = slurp(BH_SRCDIR "/tests/unit/data/pgp/pubring.gpg", buf, sizeof buf);
	prov_len = slurp(BH_SRCDIR "/tests/unit/data/pgp/mychart-0.1.0.tgz.prov", prov, sizeof prov);
	bh_error e;
	if (pgp_keyring_decode(buf, n, &kr, &e))
		kr = NULL;
	return kr;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bh_error e;
	fuzz_pick in;
	if (!fuzz_pick_take(data, size, 3, &in))
		return 0;
	const char *p = in.s;
	size_t n = in.n;
	switch (in.way) {
	case 0: {
		pgp_keyring *kr = NULL;
		test_key();
		if (pgp_keyring_decode(p, n, &kr, &e) == 0) {
			provenance_verify(kr, "x", 1, prov, prov_len, "mychart-0.1.0.tgz", 1900000000, &e);
			pgp_keyring_free(kr);
		}
		break;
	}
	case 1: {
		bh_buf type = BH_BUF_INIT, body = BH_BUF_INIT;
		int berr;
		pgp_armor_decode(p, n, &type, &body, &berr, &e);
		bh_buf_free(&type);
		bh_buf_free(&body);
		break;
	}
	default: {
		pgp_keyring *kr = test_key();
		if (kr)
			provenance_verify(kr, "x", 1, p, n, "mychart-0.1.0.tgz", 1900000000, &e);
	}
	}
	return 0;
}
