/* tests/fuzz/fuzz_yaml.c — libFuzzer target for the YAML reader (values
 * typing, anchors/aliases/merge keys, multi-document values) and, on what it
 * accepts, the toYaml printer; the printed text must read back to the same
 * tree, unless the tree has a "<<" key: goyaml.v2 prints that key plain
 * (helm's toYaml of {"<<": {"a": 1}} is "<<:\n  a: 1"), and read back it is
 * a merge key, so only the printing itself is checked there. Small limits
 * keep alias bombs and deep nesting short. The direct reader
 * (lib/yaml_fast.c) must give what libyaml alone gives: the same values,
 * duplicate-key texts and errors.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gojson.h"
#include "lib/yaml.h"
#include "lib/yaml_internal.h"

/* Is there, anywhere in the tree (deeper than 1000: yes), a key for which
 * key_hit says so, or a string value for which str_hit does (NULL: none)? */
static int tree_any(const json_t *v, int depth, int (*key_hit)(const char *), int (*str_hit)(const char *))
{
	const char *k;
	json_t *x;
	size_t i;
	if (depth > 1000)
		return 1;
	if (json_is_string(v))
		return str_hit && str_hit(json_string_value(v));
	if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			if (tree_any(x, depth + 1, key_hit, str_hit))
				return 1;
	} else if (json_is_object(v)) {
		json_object_foreach((json_t *)v, k, x)
			if (key_hit(k) || tree_any(x, depth + 1, key_hit, str_hit))
				return 1;
	}
	return 0;
}

/* A "<<" key (as a quoted key, or a merge key nested where the reader
 * keeps it as text). */
static int is_merge_key(const char *k)
{
	return !strcmp(k, "<<");
}

/* U+0085, U+2028 or U+2029: the emitter writes them as helm's toYaml does
 * (checked with helm v4.1.4: "\N" comes out as ' '), a line break that
 * loads back folded, so trees holding them (in a key or a value) do not
 * round-trip, in helm either. */
static int has_unicode_break(const char *t)
{
	return strstr(t, "\xc2\x85") || strstr(t, "\xe2\x80\xa8") || strstr(t, "\xe2\x80\xa9");
}

/* A reading of data as one text: values or first document, its JSON and
 * duplicate keys, or its error. */
static void read_text(const uint8_t *data, size_t size, int values, bh_buf *out)
{
	yaml_limits lim = {(size_t)1 << 20, 64, 20000};
	bh_error err;
	json_t *v = NULL, *d = NULL;
	int rc = values ? yaml_parse_values_dups((const char *)data, size, &lim, &v, &d, &err)
			: yaml_parse_any_dups((const char *)data, size, &lim, 0, &v, &d, &err);
	bh_buf_printf(out, "%d ", rc);
	if (rc) {
		bh_buf_puts(out, err.msg);
	} else {
		char *ds = json_dumps(d, JSON_COMPACT);
		if (gojson_encode(v, 0, out, &err))
			bh_buf_puts(out, err.msg);
		bh_buf_puts(out, ds ? ds : "?");
		free(ds);
	}
	json_decref(v);
	json_decref(d);
}

static void same_as_libyaml(const uint8_t *data, size_t size)
{
	for (int values = 0; values < 2; values++) {
		bh_buf a = BH_BUF_INIT, b = BH_BUF_INIT;
		read_text(data, size, values, &a);
		yaml_fast_off = 1;
		read_text(data, size, values, &b);
		yaml_fast_off = 0;
		if (a.len != b.len || memcmp(a.data, b.data, a.len))
			abort();
		bh_buf_free(&a);
		bh_buf_free(&b);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	yaml_limits lim = {(size_t)1 << 20, 64, 20000};
	bh_error err;
	json_t *v = NULL, *back = NULL;
	bh_buf out = BH_BUF_INIT;
	same_as_libyaml(data, size);
	if (yaml_parse_values((const char *)data, size, &lim, &v, &err) == 0) {
		if (yaml_emit(v, &out, &err) == 0 && !tree_any(v, 0, is_merge_key, NULL) && !tree_any(v, 0, has_unicode_break, has_unicode_break)) {
			/* what toYaml prints of a values tree loads back as the same
			 * values (a values tree has no NaN, and printed strings are
			 * quoted whenever they would read as something else) */
			yaml_limits big = {0, 1000, 0};
			if (yaml_parse_any(out.data, out.len, &big, 0, &back, &err) != 0)
				abort();
			if (!(json_object_size(v) == 0 && json_is_object(back)) && !gojson_equal(v, back))
				abort();
			json_decref(back);
		}
		json_decref(v);
	}
	bh_buf_free(&out);
	if (yaml_parse_any((const char *)data, size, &lim, YAML_KEEP_INTS, &v, &err) == 0)
		json_decref(v);
	return 0;
}
