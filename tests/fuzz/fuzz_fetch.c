/* tests/fuzz/fuzz_fetch.c — decoders of fetched and fetcher bytes: a Helm
 * repository's index.yaml (with a version choice on what decoded), the
 * supervisor's decoder of FETCH_RESULT (a compromised fetcher) and the
 * fetcher's decoder of FETCH. The first input byte picks the decoder.
 */
#include <stddef.h>
#include <stdint.h>

#include "fetcher/index.h"
#include "proto/fetch.h"
#include "fuzz_pick.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bh_error e;
	fuzz_pick in;
	if (!fuzz_pick_take(data, size, 3, &in))
		return 0;
	const unsigned char *p = in.p;
	size_t n = in.n;
	switch (in.way) {
	case 0: {
		helm_index *idx;
		const index_version *v;
		if (index_decode((const char *)p, n, 1 << 20, &idx, &e) == 0) {
			for (size_t i = 0; i < idx->ncharts; i++) {
				index_get(idx, idx->charts[i].name, NULL, &v, &e);
				index_get(idx, idx->charts[i].name, ">=0.0.0-0", &v, &e);
			}
			index_free(idx);
		}
		break;
	}
	case 1: {
		proto_fetch_result r;
		if (proto_fetch_result_decode(p, n, &r, &e) == 0)
			proto_fetch_result_free(&r);
		break;
	}
	default: {
		proto_fetch_request r;
		if (proto_fetch_request_decode(p, n, &r, &e) == 0)
			proto_fetch_request_free(&r);
	}
	}
	return 0;
}
