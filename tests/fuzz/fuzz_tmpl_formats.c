/* tests/fuzz/fuzz_tmpl_formats.c — libFuzzer target for the untrusted-text
 * decoders of the Sprig/Helm function families: the first byte picks one of
 * TOML (fromToml, then toToml of the result), semver versions and
 * constraints (semver/semverCompare), Go time layouts and values (toDate),
 * Go durations (dateModify/durationRound) and the toYamlPretty emitter on a
 * fromToml result, where toYaml's two ways (the tree built from the value,
 * the JSON text) must print the same. Must never crash, leak or hang.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/semver.h"
#include "lib/yaml.h"
#include "tmpl/gotime.h"
#include "tmpl/tmpl.h"
#include "tmpl/toml.h"
#include "tmpl/value.h"
#include "tmpl/yaml_pretty.h"

#include "fuzz_pick.h"

/* this target links only some families */
const tmpl_func_def *const tmpl_func_families[] = {NULL};

static void *arena_alloc(void *ud, size_t n)
{
	return tmpl_arena_alloc(ud, n);
}

/* toYaml's tree way prints what its text way does, where it is taken */
static void to_yaml_same(const tmpl_value *v)
{
	tmpl_gojson_tree t;
	bh_buf j = BH_BUF_INIT, want = BH_BUF_INIT, got = BH_BUF_INIT;
	bh_error ew, eg;
	yaml_emitter_kept *kept = NULL;
	bh_error_clear(&ew);
	bh_error_clear(&eg);
	if (tmpl_value_gojson_tree(v, &t) != 0)
		return;
	int rg = yaml_emit_json_tree_kept(&kept, t.root, &got, &eg);
	tmpl_gojson_tree_free(&t);
	yaml_emitter_kept_free(kept);
	int rw = tmpl_value_gojson(&j, v, 0, &ew);
	if (!rw)
		rw = yaml_emit_json_text(bh_buf_str(&j), j.len, &want, &ew);
	if (rg != rw || strcmp(eg.msg, ew.msg) != 0 || got.len != want.len || memcmp(got.data, want.data, got.len) != 0)
		abort();
	bh_buf_free(&j);
	bh_buf_free(&want);
	bh_buf_free(&got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bh_error err;
	char em[1024];
	fuzz_pick in;
	if (!fuzz_pick_take(data, size, 5, &in))
		return 0;
	const char *s = in.s;
	size_t n = in.n;
	bh_error_clear(&err);
	switch (in.way) {
	case 0:
	case 4: {
		tmpl_engine *e = tmpl_engine_new(&err);
		tmpl_value v;
		bh_buf b = BH_BUF_INIT;
		if (!e)
			return 0;
		if (toml_decode(tmpl_engine_arena(e), s, n, &v, &err) == 0) {
			if (in.way == 0)
				toml_encode(&v, &b, &err);
			else {
				yaml_pretty_encode(&v, &b, &err);
				to_yaml_same(&v);
			}
		}
		bh_buf_free(&b);
		tmpl_engine_free(e);
		break;
	}
	case 1: {
		/* "constraint\0version" */
		const char *z = memchr(s, '\0', n);
		semver v;
		if (!z) {
			semver_parse(s, n, &v, em, sizeof em);
			break;
		}
		if (semver_parse(z + 1, n - (size_t)(z + 1 - s), &v, em, sizeof em) == 0)
			semver_constraint_check(s, (size_t)(z - s), &v, em, sizeof em);
		break;
	}
	case 2: {
		/* "layout\0value" */
		const char *z = memchr(s, '\0', n);
		tmpl_engine *e = tmpl_engine_new(&err);
		gotime t;
		bh_buf b = BH_BUF_INIT;
		if (!e)
			return 0;
		if (z && gotime_parse(s, (size_t)(z - s), z + 1, n - (size_t)(z + 1 - s), arena_alloc,
				      tmpl_engine_arena(e), &t, em, sizeof em) == 0) {
			gotime_format(&t, s, (size_t)(z - s), &b);
			gotime_string(&t, &b);
		}
		bh_buf_free(&b);
		tmpl_engine_free(e);
		break;
	}
	case 3: {
		int64_t d;
		bh_buf b = BH_BUF_INIT;
		if (gotime_parse_duration(s, n, &d, em, sizeof em) == 0)
			gotime_duration_string(gotime_duration_round(d, 1000000000), &b);
		bh_buf_free(&b);
		break;
	}
	}
	return 0;
}
