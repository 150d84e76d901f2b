/* tests/unit/funcs_golden.h — shared harness of the Sprig function unit
 * tests (test_funcs_*.c): renders one template as Helm renders a chart file
 * (values from JSON text, release x/ns) and compares with goldens that the
 * real Helm v4.1.4 produced (sentinel/--debug method of
 * ../shared/conformance/functions/README.md; errors rendered unwrapped with
 * Helm's "Error: " prefix and --debug hint removed). */
#ifndef TESTS_UNIT_FUNCS_GOLDEN_H
#define TESTS_UNIT_FUNCS_GOLDEN_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "tmpl/helmctx.h"
#include "tmpl/tmpl.h"

typedef struct fgolden {
	const char *name, *src, *values;
	int is_err;
	const char *want;
} fgolden;

#define FG_NAME "vec/templates/test.yaml"

/* Renders src; returns malloc'd output, or "ERR:" + message. */
static inline char *fg_render(const char *src, const char *values_json, const tmpl_limits *lim)
{
	bh_error err;
	bh_buf out = BH_BUF_INIT;
	tmpl_value root;
	helmctx_opts o;
	json_error_t je;
	tmpl_engine *e = tmpl_engine_new(&err);
	json_t *vals = json_loads(values_json ? values_json : "{}", JSON_DECODE_INT_AS_REAL, &je);
	memset(&o, 0, sizeof(o));
	o.values = vals;
	o.release_name = "x";
	o.release_namespace = "ns";
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_nonnull(vals);
	if (lim)
		tmpl_engine_set_limits(e, lim);
	int r = tmpl_engine_add(e, FG_NAME, src, strlen(src), &err);
	if (r == 0)
		r = helmctx_build(tmpl_engine_arena(e), &o, &root, &err);
	if (r == 0)
		r = helmctx_set_template(tmpl_engine_arena(e), &root, FG_NAME, "vec/templates", &err);
	if (r == 0)
		r = tmpl_engine_render(e, FG_NAME, &root, &out, &err);
	if (r) {
		bh_buf_free(&out);
		bh_buf_printf(&out, "ERR:%s", err.msg);
	}
	tmpl_engine_free(e);
	json_decref(vals);
	char *s = bh_buf_detach(&out);
	return s ? s : strdup("");
}

static inline void fg_check(const fgolden *g)
{
	char *got = fg_render(g->src, g->values, NULL);
	if (g->is_err) {
		ck_assert_msg(strncmp(got, "ERR:", 4) == 0, "%s: expected error, got [%s]", g->name, got);
		ck_assert_msg(strcmp(got + 4, g->want) == 0, "%s:\nwant [%s]\n got [%s]", g->name, g->want, got + 4);
	} else {
		ck_assert_msg(strcmp(got, g->want) == 0, "%s:\nwant [%s]\n got [%s]", g->name, g->want, got);
	}
	free(got);
}

/* Asserts that src fails with a message containing want. */
static inline void fg_expect_error(const char *src, const char *want)
{
	char *got = fg_render(src, NULL, NULL);
	ck_assert_msg(strncmp(got, "ERR:", 4) == 0 && strstr(got, want), "%s: want error with [%s], got [%s]", src,
		      want, got);
	free(got);
}

#endif
