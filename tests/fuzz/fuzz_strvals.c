/* tests/fuzz/fuzz_strvals.c — libFuzzer target for helm/strvals: the first
 * byte picks the mode (--set, --set-string, --set-json, --set-literal), the
 * rest is the argument. Must never crash, leak or recurse without bound.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "helm/strvals.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum strvals_mode modes[] = {STRVALS_TYPED, STRVALS_STRING, STRVALS_JSON, STRVALS_LITERAL};
	if (size < 1)
		return 0;
	char *s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = 0;
	json_t *dest = json_object();
	bh_error err;
	strvals_parse_into(s, dest, modes[data[0] % 4], NULL, NULL, &err);
	/* parsing twice into the same map exercises the merge paths */
	strvals_parse_into(s, dest, STRVALS_TYPED, NULL, NULL, &err);
	json_decref(dest);
	free(s);
	return 0;
}
