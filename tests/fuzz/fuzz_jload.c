/* tests/fuzz/fuzz_jload.c — the supervisor's JSON reader (proto/jload.h)
 * against jansson's: on any input, jload_new must give what json_loadb
 * gives (both fail, or equal trees with the same members in the same
 * order), with and without JSON_REJECT_DUPLICATES.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/jload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (size_t flags = 0; flags <= JSON_REJECT_DUPLICATES; flags += JSON_REJECT_DUPLICATES) {
		json_t *a = jload_new((const char *)data, size, flags, NULL);
		json_t *b = json_loadb((const char *)data, size, flags, NULL);
		if (!a != !b)
			abort();
		if (a) {
			char *da = json_dumps(a, JSON_COMPACT), *db = json_dumps(b, JSON_COMPACT);
			if (!json_equal(a, b) || !da || !db || strcmp(da, db) != 0)
				abort();
			free(da);
			free(db);
		}
		json_decref(a);
		json_decref(b);
	}
	return 0;
}
