/* tests/fuzz/fuzz_sprig.c — libFuzzer target for the Sprig function
 * families of tmpl/ (strings, regex, conversion, math, defaults/reflection,
 * lists, dicts, paths/urls). The first input byte picks the mode:
 *   'R' regex: the rest is PATTERN NUL SUBJECT NUL REPLACEMENT, run through
 *       every regex function (the Go-syntax parser/translator and matching);
 *   'U' url: the rest is run through urlParse, urlJoin, base, dir, clean, ext;
 *   anything else: the whole input is a template rendered with the families.
 * Must never crash, leak or hang (limits as in fuzz_tmpl_exec.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "tests/fuzz/fuzz_render.h"
#include "tmpl/funcs.h"

const tmpl_func_def *const tmpl_func_families[] = {
	tmpl_funcs_builtin, tmpl_funcs_core, tmpl_funcs_strings, tmpl_funcs_reflect, tmpl_funcs_dicts,
	tmpl_funcs_lists, tmpl_funcs_math, tmpl_funcs_conv, tmpl_funcs_paths, tmpl_funcs_regex,
	tmpl_funcs_helm, NULL,
};

static const char regex_tmpl[] =
	"{{ regexMatch .Values.p .Values.s }}|{{ regexFindAll .Values.p .Values.s -1 }}|"
	"{{ regexFindAll .Values.p .Values.s 3 }}|{{ regexFind .Values.p .Values.s }}|"
	"{{ regexReplaceAll .Values.p .Values.s .Values.r }}|"
	"{{ regexReplaceAllLiteral .Values.p .Values.s .Values.r }}|"
	"{{ regexSplit .Values.p .Values.s -1 }}|{{ regexSplit .Values.p .Values.s 2 }}|"
	"{{ regexQuoteMeta .Values.p }}";

static const char url_tmpl[] =
	"{{ base .Values.s }}|{{ dir .Values.s }}|{{ clean .Values.s }}|{{ ext .Values.s }}|"
	"{{ $u := urlParse .Values.s }}{{ $u | toString }}|{{ urlJoin $u }}";

static const char values_json[] =
	"{\"s\":\"str\",\"n\":5,\"f\":3.5,\"t\":true,\"z\":null,\"l\":[1,\"a\",null,2.5],"
	"\"m\":{\"a\":1,\"b\":{\"c\":[1,2]}},\"e\":{}}";

/* the i-th NUL-separated field of d[0..n) */
static json_t *field(const uint8_t *d, size_t n, int i)
{
	size_t start = 0;
	for (size_t k = 0; k <= n; k++) {
		if (k == n || d[k] == 0) {
			if (i-- == 0)
				return json_stringn_nocheck((const char *)d + start, k - start);
			start = k + 1;
		}
	}
	return json_string("");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t je;
	if (size > 0 && (data[0] == 'R' || data[0] == 'U')) {
		json_t *vals = json_object();
		json_object_set_new(vals, "p", field(data + 1, size - 1, 0));
		json_object_set_new(vals, "s", field(data + 1, size - 1, data[0] == 'R' ? 1 : 0));
		json_object_set_new(vals, "r", field(data + 1, size - 1, 2));
		if (data[0] == 'R')
			fuzz_render(regex_tmpl, sizeof regex_tmpl - 1, vals, NULL, 0);
		else
			fuzz_render(url_tmpl, sizeof url_tmpl - 1, vals, NULL, 0);
		json_decref(vals);
		return 0;
	}
	json_t *vals = json_loads(values_json, JSON_DECODE_INT_AS_REAL, &je);
	if (vals)
		fuzz_render((const char *)data, size, vals, NULL, 0);
	json_decref(vals);
	return 0;
}
