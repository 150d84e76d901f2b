/* tests/fuzz/fuzz_release.c — Helm release storage decoding (base64, gzip
 * with a size limit, JSON) of data.release values, which anyone able to
 * write Secrets in a storage namespace controls.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "helm/release.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *out = NULL;
	bh_error e;
	char *b64;
	/* the raw bytes as a stored value, and the bytes wrapped as Helm would */
	if (release_decode((const char *)data, size, &out, &e) == 0)
		json_decref(out);
	b64 = release_base64_new(data, size);
	if (b64) {
		size_t n = 0;
		while (b64[n])
			n++;
		if (release_decode(b64, n, &out, &e) == 0)
			json_decref(out);
		free(b64);
	}
	return 0;
}
