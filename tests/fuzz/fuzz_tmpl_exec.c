/* tests/fuzz/fuzz_tmpl_exec.c — libFuzzer target for the template executor
 * (tmpl/exec.c, gofmt, builtins, include/tpl): the input is a template
 * source, rendered against a small Helm root (.Values with maps, lists,
 * numbers, strings, nulls; .Files; .Capabilities) under tight step, output,
 * memory and depth budgets. Must never crash, leak or hang.
 * FUZZ_SEEDS: tests/fuzz/corpus/fuzz_tmpl_parse
 */
#include <stdint.h>

#include <jansson.h>

#include "tests/fuzz/fuzz_render.h"
#include "tmpl/funcs.h"

const tmpl_func_def *const tmpl_func_families[] = {
	tmpl_funcs_builtin, tmpl_funcs_core, tmpl_funcs_helm, NULL,
};

static const char values_json[] =
	"{\"s\":\"str\",\"n\":5,\"f\":3.5,\"big\":1000000,\"t\":true,\"z\":null,\"es\":\"\","
	"\"l\":[1,2,3],\"ls\":[\"a\",\"b\"],\"ll\":[[1,2],[3]],\"el\":[],\"m\":{\"x\":1,\"y\":\"b\"},"
	"\"e\":{},\"a\":{\"b\":{\"c\":\"deep\"}},\"mixed\":[1,\"two\",null,{\"k\":\"v\"},[9]],"
	"\"tpl\":\"{{ .Values.s }}\"}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned char fa[] = "alpha\n", fb[] = "k=v\nx=y\n";
	static const helmctx_file files[] = {
		{"files/a.txt", fa, sizeof fa - 1},
		{"files/sub/b.conf", fb, sizeof fb - 1},
		{"empty.txt", fa, 0},
	};
	json_error_t je;
	json_t *vals = json_loads(values_json, JSON_DECODE_INT_AS_REAL, &je);
	if (vals)
		fuzz_render((const char *)data, size, vals, files, sizeof files / sizeof files[0]);
	json_decref(vals);
	return 0;
}
