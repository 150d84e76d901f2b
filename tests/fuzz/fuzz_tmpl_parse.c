/* tests/fuzz/fuzz_tmpl_parse.c — libFuzzer target for the template parser
 * (tmpl/parse.c): the input is a template source. Parsing must never crash,
 * leak, or recurse without bound; errors are fine. Links the engine core with
 * its own family list (Go builtins, default/int, Helm's) so function files
 * added later do not change what this target links.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tmpl/funcs.h"
#include "tmpl/tmpl.h"

const tmpl_func_def *const tmpl_func_families[] = {
	tmpl_funcs_builtin, tmpl_funcs_core, tmpl_funcs_helm, NULL,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bh_error err;
	tmpl_engine *e = tmpl_engine_new(&err);
	tmpl_limits l;
	if (!e)
		return 0;
	tmpl_limits_default(&l);
	l.max_parse_depth = 200;
	l.max_memory = 64u << 20;
	tmpl_engine_set_limits(e, &l);
	tmpl_engine_add(e, "fuzz/templates/t.yaml", (const char *)data, size, &err);
	tmpl_engine_free(e);
	return 0;
}
