/* tests/fuzz/fuzz_json.c — libFuzzer target for the Go-compatible JSON
 * decoder (gojson_decode / gojson_tree_load) and, on what it accepts, the
 * encoder in its three modes and the JSONToYAML printer. Re-decoding the
 * encoder's output must give back an equal tree, and the printer of plain
 * data must print what libyaml's emitter does.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gojson.h"
#include "lib/yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gojson_limits lim = {(size_t)1 << 20, 200};
	bh_error err;
	json_t *v = NULL, *w = NULL;
	gojson_node *t = NULL;
	bh_buf out = BH_BUF_INIT;
	if (gojson_tree_load((const char *)data, size, &lim, &t, &err) == 0)
		gojson_tree_free(t);
	if (gojson_tree_load_yaml((const char *)data, size, &lim, &t, &err) == 0) {
		bh_buf want = BH_BUF_INIT;
		bh_error ew;
		int rg = yaml_emit_json_tree_kept(NULL, t, &out, &err);
		int rw = yaml_emit_json_tree_libyaml(t, &want, &ew);
		if (rg != rw || out.len != want.len || (rg == 0 && memcmp(out.data, want.data, out.len) != 0))
			abort();
		bh_buf_free(&want);
		gojson_tree_free(t);
	}
	if (gojson_decode((const char *)data, size, &lim, GOJSON_KEEP_INTS, &v, &err) == 0) {
		for (int flags = 0; flags <= (GOJSON_INDENT | GOJSON_NO_HTML_ESCAPE); flags++) {
			bh_buf_reset(&out);
			if (gojson_encode(v, flags, &out, &err) != 0)
				abort(); /* a decoded tree always encodes */
			if (gojson_decode(out.data, out.len, NULL, GOJSON_KEEP_INTS, &w, &err) != 0)
				abort();
			if (!gojson_equal(v, w))
				abort();
			json_decref(w);
		}
		bh_buf_reset(&out);
		(void)yaml_emit_json_text((const char *)data, size, &out, &err);
		json_decref(v);
	}
	bh_buf_free(&out);
	return 0;
}
