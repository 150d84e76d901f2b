/* tests/fuzz/fuzz_render.h — the render step the template fuzz targets
 * share: src rendered as fuzz/templates/t.yaml against a Helm root with
 * .Values = vals and the given .Files, under tight step, output, memory and
 * depth budgets. Errors are expected and ignored. */
#ifndef BH_FUZZ_RENDER_H
#define BH_FUZZ_RENDER_H

#include <string.h>

#include <jansson.h>

#include "tmpl/helmctx.h"
#include "tmpl/tmpl.h"

static void fuzz_render(const char *src, size_t n, json_t *vals, const helmctx_file *files, size_t n_files)
{
	static const char name[] = "fuzz/templates/t.yaml";
	bh_error err;
	bh_buf out = BH_BUF_INIT;
	tmpl_engine *e = tmpl_engine_new(&err);
	tmpl_limits l;
	helmctx_opts o;
	tmpl_value root;
	if (!e)
		return;
	tmpl_limits_default(&l);
	l.max_steps = 200000;
	l.max_output = 1u << 20;
	l.max_memory = 64u << 20;
	l.max_exec_depth = 200;
	l.max_include_depth = 50;
	l.max_parse_depth = 200;
	tmpl_engine_set_limits(e, &l);
	memset(&o, 0, sizeof(o));
	o.values = vals;
	o.files = files;
	o.n_files = n_files;
	if (tmpl_engine_add(e, name, src, n, &err) == 0 && helmctx_build(tmpl_engine_arena(e), &o, &root, &err) == 0 &&
	    helmctx_set_template(tmpl_engine_arena(e), &root, name, "fuzz/templates", &err) == 0)
		tmpl_engine_render(e, name, &root, &out, &err);
	bh_buf_free(&out);
	tmpl_engine_free(e);
}

#endif
