/* tests/fuzz/fuzz_proto.c — the supervisor's decoders of worker bytes: frame
 * header, KUBE_REQUEST, LOG, RESULT, SECCOMP. The first input byte picks the
 * decoder; the rest is the hostile payload.
 */
#include <stddef.h>
#include <stdint.h>

#include "ipc/ipc.h"
#include "proto/proto.h"
#include "fuzz_pick.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bh_error e;
	fuzz_pick in;
	if (!fuzz_pick_take(data, size, 5, &in))
		return 0;
	const unsigned char *p = in.p;
	size_t n = in.n;
	switch (in.way) {
	case 0: {
		ipc_hdr h;
		if (n >= IPC_HDR_SIZE)
			ipc_hdr_decode(p, IPC_MAX_PAYLOAD, &h, &e);
		break;
	}
	case 1: {
		proto_kube_request r;
		if (proto_kube_request_decode(p, n, &r, &e) == 0) {
			proto_kube_request_header(&r, "Impersonate-User");
			proto_kube_request_free(&r);
		}
		break;
	}
	case 2: {
		const unsigned char *s;
		size_t l;
		proto_str_decode(p, n, PROTO_MAX_LOG, 1, &s, &l, &e);
		break;
	}
	case 3: {
		proto_result r;
		if (proto_result_decode(p, n, &r, &e) == 0)
			proto_result_free(&r);
		break;
	}
	default: {
		uint32_t nr, arch, st;
		const unsigned char *b;
		size_t bl;
		proto_seccomp_decode(p, n, &nr, &arch, &e);
		proto_kube_response_decode(p, n, &st, &b, &bl, &e);
	}
	}
	return 0;
}
