/* tests/fuzz/fuzz_jsonschema.c — libFuzzer target for values.schema.json
 * compilation and validation. The input is split at the first NUL byte:
 * schema text before it, values YAML after it (no NUL: the values are the
 * schema text read as YAML), so both halves get mutated. The schema text is
 * also checked against each draft's meta-schema both ways: when the quick
 * check is sure, the full check must accept it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gojson.h"
#include "lib/jsonschema.h"
#include "lib/jsonschema_internal.h"
#include "lib/yaml.h"

static void meta_quick_is_sound(const char *text, size_t len)
{
	static const int drafts[] = {4, 6, 7, 2019, 2020};
	gojson_limits lim = {JSONSCHEMA_MAX_BYTES, JSONSCHEMA_MAX_DEPTH};
	gojson_node *root = NULL;
	bh_error err;
	if (gojson_tree_load(text, len, &lim, &root, &err) != 0)
		return;
	for (size_t i = 0; i < sizeof drafts / sizeof *drafts; i++)
		if (jsonschema_meta_quick(root, drafts[i]) && jsonschema_meta_check(root, drafts[i], &err) != 0)
			abort();
	gojson_tree_free(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const char *nul = memchr(text, '\0', size);
	size_t slen = nul ? (size_t)(nul - text) : size;
	const char *vtext = nul ? nul + 1 : text;
	size_t vlen = nul ? size - slen - 1 : size;
	yaml_limits ylim = {(size_t)1 << 20, 64, 20000};
	jsonschema *s = NULL;
	json_t *values = NULL;
	bh_error err;
	bh_buf out = BH_BUF_INIT;
	meta_quick_is_sound(text, slen);
	if (jsonschema_compile_text(text, slen, &s, &err) != 0)
		return 0;
	if (yaml_parse_values(vtext, vlen, &ylim, &values, &err) == 0) {
		int rc = jsonschema_validate(s, values, &out, &err);
		if (rc == 1 && (out.len == 0 || out.data[out.len - 1] != '\n'))
			abort();
		if (rc == 0 && out.len != 0)
			abort();
		json_decref(values);
	}
	bh_buf_free(&out);
	jsonschema_free(s);
	return 0;
}
