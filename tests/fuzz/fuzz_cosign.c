/* tests/fuzz/fuzz_cosign.c — the decoders of what a registry hands the
 * fetcher's cosign verification (fetcher/cosign.h): signature manifests,
 * simple-signing payloads, public-key PEM, and a whole check of a fuzzed
 * payload and base64 signature against a fixed ECDSA P-256 key, and the
 * supervisor's check of a fetcher's report (cosign_check_evidence). The
 * first input byte picks the decoder.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fetcher/cosign.h"
#include "fuzz_pick.h"

static const char key[] = "-----BEGIN PUBLIC KEY-----\n"
			  "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEn9A+AGd8741TrLWRRmUFBWUh98Em\n"
			  "9HGIcY4eGMi17gcevBCzoZfL9f2Yw1Ppfbodwxl/jN4f1WivrrOElETbiw==\n"
			  "-----END PUBLIC KEY-----\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bh_error e;
	fuzz_pick in;
	if (!fuzz_pick_take(data, size, 5, &in))
		return 0;
	switch (in.way) {
	case 0: {
		cosign_sigs s;
		cosign_sigmanifest_decode(in.s, in.n, &s, &e);
		cosign_sigs_free(&s);
		break;
	}
	case 1: {
		char *d;
		if (cosign_payload_digest(in.s, in.n, &d, &e) == 0)
			free(d);
		break;
	}
	case 2:
		cosign_key_check(in.s, in.n, &e);
		break;
	case 4: {
		/* the supervisor's check of a fetcher's report: "<manifest>\n<payload>\n<base64 signature>" */
		const char *a = memchr(in.s, '\n', in.n), *b = a ? memchr(a + 1, '\n', in.n - (size_t)(a + 1 - in.s)) : NULL;
		char *mb, *pb, *sig, md[72];
		if (!b)
			break;
		mb = cosign_b64(in.s, (size_t)(a - in.s));
		pb = cosign_b64(a + 1, (size_t)(b - a - 1));
		sig = strndup(b + 1, in.n - (size_t)(b + 1 - in.s));
		if (mb && pb && sig)
			cosign_check_evidence(key, mb, pb, sig, "sha256:0000000000000000000000000000000000000000000000000000000000000000",
					      md, &e);
		free(mb);
		free(pb);
		free(sig);
		break;
	}
	default: {
		/* "<base64 signature>\n<payload>" */
		const char *nl = memchr(in.s, '\n', in.n);
		char *sig;
		if (!nl || !(sig = strndup(in.s, (size_t)(nl - in.s))))
			break;
		cosign_check(key, sizeof key - 1, nl + 1, in.n - (size_t)(nl + 1 - in.s), sig,
			     "sha256:0000000000000000000000000000000000000000000000000000000000000000", &e);
		free(sig);
		break;
	}
	}
	return 0;
}
