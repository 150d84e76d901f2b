/* tests/fuzz/fuzz_kube_answer.c — libFuzzer target for an API answer decoded
 * less the members a caller does not read (kube_write_opts.answer_drop,
 * kube_decode_body): it must be refused exactly when jansson refuses the
 * whole answer, and decode as the whole answer does but for (only) the
 * members dropped.
 * FUZZ_SEEDS: tests/fuzz/corpus/fuzz_watch
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/client_priv.h"
#include "kube/wait.h"

/* o less the members at kube_wait_apply_drop's paths (two names each) */
static void drop_paths(json_t *o)
{
	for (const char *const *p = kube_wait_apply_drop; *p; p++) {
		const char *dot = strchr(*p, '.');
		char parent[32];
		if (!dot || (size_t)(dot - *p) >= sizeof parent || strchr(dot + 1, '.'))
			abort(); /* the target knows only paths of two names */
		memcpy(parent, *p, (size_t)(dot - *p));
		parent[dot - *p] = '\0';
		json_object_del(json_object_get(o, parent), dot + 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kube_response resp = KUBE_RESPONSE_INIT;
	bh_error err;
	json_t *cut = NULL, *whole = NULL;
	if (size > 65536)
		return 0;
	bh_buf_put(&resp.body, data, size);
	if (!bh_buf_ok(&resp.body))
		return 0;
	int rc_cut = kube_decode_body(&resp, kube_wait_apply_drop, &cut, "fuzz", &err);
	int rc_whole = kube_decode_body(&resp, NULL, &whole, "fuzz", &err);
	if ((rc_cut != 0) != (rc_whole != 0))
		abort(); /* the cut changed what is accepted */
	if (!rc_whole) {
		drop_paths(cut);
		drop_paths(whole);
		if (!json_equal(cut, whole))
			abort();
	}
	json_decref(cut);
	json_decref(whole);
	kube_response_free(&resp);
	return 0;
}
