/* tests/unit/test_tmpl.c — unit tests for tmpl/: lexer, parser and printer
 * corner cases the conformance vectors do not reach, limits, and the API. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tmpl/gofmt.h"
#include "tmpl/helmctx.h"
#include "tmpl/tmpl.h"

/* Renders src as template "t" with an empty root; returns output or the
 * error message (prefixed "ERR:"). Caller frees. */
static char *render(const char *src)
{
	bh_error err;
	bh_buf out = BH_BUF_INIT;
	tmpl_engine *e = tmpl_engine_new(&err);
	helmctx_opts o;
	tmpl_value root;
	memset(&o, 0, sizeof(o));
	ck_assert_ptr_nonnull(e);
	if (tmpl_engine_add(e, "t", src, strlen(src), &err) ||
	    helmctx_build(tmpl_engine_arena(e), &o, &root, &err) ||
	    tmpl_engine_render(e, "t", &root, &out, &err)) {
		bh_buf_free(&out);
		bh_buf_printf(&out, "ERR:%s", err.msg);
	}
	tmpl_engine_free(e);
	char *s = bh_buf_detach(&out);
	return s ? s : strdup("");
}

#define CHECK_RENDER(src, want)                        \
	do {                                           \
		char *got_ = render(src);              \
		ck_assert_str_eq(got_, want);          \
		free(got_);                            \
	} while (0)

START_TEST(test_text_and_actions)
{
	CHECK_RENDER("hello", "hello");
	CHECK_RENDER("{{ 1 }}", "1");
	CHECK_RENDER("a {{- 1 -}} b", "a1b");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tmpl");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_text_and_actions);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
