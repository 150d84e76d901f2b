/* tests/fuzz/fuzz_oci.c — the decoders of what an OCI registry and a
 * tenant's docker config hand the fetcher (fetcher/ocidec.h):
 * WWW-Authenticate challenges, manifests and indexes, tag lists and their
 * Link headers, token answers, docker config JSON. The first input byte picks the decoder.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fetcher/ocidec.h"
#include "fuzz_pick.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bh_error e;
	fuzz_pick in;
	if (!fuzz_pick_take(data, size, 6, &in))
		return 0;
	const char *p = in.s;
	size_t n = in.n;
	switch (in.way) {
	case 0: {
		oci_challenges c;
		if (oci_auth_decode(p, n, &c, &e) == 0) {
			const oci_challenge *b = oci_auth_find(&c, "Bearer");
			oci_auth_param_get(b, "realm");
		}
		oci_auth_free(&c);
		break;
	}
	case 1: {
		oci_manifest *m;
		if (oci_manifest_decode(p, n, &m, &e) == 0)
			oci_manifest_free(m);
		break;
	}
	case 2: {
		char **t;
		size_t nt;
		if (oci_tags_decode(p, n, &t, &nt, &e) == 0 || t)
			oci_tags_free(t, nt);
		break;
	}
	case 3: {
		char *t;
		if (oci_token_decode(p, n, &t, &e) == 0)
			free(t);
		break;
	}
	case 4: {
		char *next;
		if (oci_link_next(p, n, &next, &e) == 0)
			free(next);
		break;
	}
	default: {
		char *u, *pw;
		if (oci_dockercfg_lookup(p, n, "registry.example:5000", &u, &pw, &e) == 0) {
			free(u);
			free(pw);
		}
		break;
	}
	}
	return 0;
}
