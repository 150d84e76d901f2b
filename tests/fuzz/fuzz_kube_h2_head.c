/* tests/fuzz/fuzz_kube_h2_head.c — libFuzzer target for the HTTP/2
 * client's response header fields (kube_h2_head_field, kube/h2_head.c).
 * The input is a run of fields: a byte choosing the name (one of the
 * fields it decodes, another, or a name taken from the input), two bytes
 * of value length, the value. Properties: an accepted :status is 100-599
 * and taken once; content-type and retry-after, when set, have no space
 * or tab at either end and are no longer than KUBE_H2_MAX_VALUE; a refused
 * field has its error said. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/h2.h"

static void check_value(const char *v)
{
	size_t n;
	if (!v)
		return;
	n = strlen(v);
	if (n > KUBE_H2_MAX_VALUE || (n && (v[0] == ' ' || v[0] == '\t' || v[n - 1] == ' ' || v[n - 1] == '\t')))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {":status", "content-type", "retry-after", "content-length", "Content-Type",
	                                    "x-other"};
	kube_response r = KUBE_RESPONSE_INIT;
	uint64_t clen = UINT64_MAX;
	bh_error err;
	size_t i = 0;
	while (i + 3 <= size) {
		const uint8_t *name;
		size_t nlen, vlen = (size_t)data[i + 1] << 8 | data[i + 2];
		unsigned pick = data[i] % 8;
		long before = r.status;
		i += 3;
		if (pick < 6) {
			name = (const uint8_t *)names[pick];
			nlen = strlen(names[pick]);
		} else { /* a name from the input: up to 16 bytes */
			nlen = i < size ? data[i] % 17 : 0;
			i += i < size;
			if (nlen > size - i)
				nlen = size - i;
			name = data + i;
			i += nlen;
		}
		if (vlen > size - i)
			vlen = size - i;
		err.code = 0;
		err.msg[0] = '\0';
		if (kube_h2_head_field(&r, &clen, name, nlen, data + i, vlen, &err) < 0) {
			if (!err.code || !err.msg[0] || r.status != before)
				abort();
		} else if (r.status != before && (before || r.status < 100 || r.status > 599)) {
			abort();
		}
		check_value(r.content_type);
		check_value(r.retry_after);
		i += vlen;
	}
	kube_response_free(&r);
	return 0;
}
