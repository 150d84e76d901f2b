/* tests/unit/test_values.c — values composition and coalescing, and
 * dependency processing (conditions, tags, alias, import-values), checked
 * against Helm's documented and tested behaviour (pkg/chart/common/util
 * coalesce_test.go, pkg/chart/v2/util/dependencies_test.go). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "helm/chart.h"
#include "helm/values.h"
#include "lib/buf.h"
#include "tests/unit/unit_util.h"

static chart *mk(const char *const *names, const char *const *bodies, size_t n)
{
	chart_file *f = calloc(n, sizeof *f);
	for (size_t i = 0; i < n; i++) {
		f[i].name = (char *)names[i];
		f[i].data = (unsigned char *)bodies[i];
		f[i].len = strlen(bodies[i]);
	}
	chart *c = NULL;
	bh_error err;
	int rc = chart_load_files(f, n, NULL, &c, &err);
	ck_assert_msg(rc == 0, "load: %s", err.msg);
	free(f);
	return c;
}

static void assert_json(const json_t *got, const char *want_text)
{
	json_t *want = json_loads(want_text, 0, NULL);
	ck_assert_msg(want != NULL, "bad expected JSON %s", want_text);
	char *g = json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT);
	ck_assert_msg(json_equal(want, got), "got %s\nwant %s", g, want_text);
	free(g);
	json_decref(want);
}

static int nwarn;
static char lastwarn[1024];
static void warn(void *ud, const char *m)
{
	(void)ud;
	nwarn++;
	snprintf(lastwarn, sizeof lastwarn, "%s", m);
}

START_TEST(test_coalesce_basic)
{
	const char *n[] = {"Chart.yaml", "values.yaml"};
	const char *b[] = {"apiVersion: v2\nname: top\nversion: 1.0.0\n",
			   "scalar: 1\nmap:\n  a: x\n  b: why\nlist: [1, 2]\nremove: me\nnested:\n  t:\n    u: 1\n"};
	chart *c = mk(n, b, 2);
	json_t *user = json_loads("{\"scalar\":2,\"map\":{\"b\":\"z\",\"c\":\"w\"},\"list\":[3],"
				  "\"remove\":null,\"nested\":{\"t\":\"flat\"},\"newnull\":null}", 0, NULL);
	json_t *out = NULL;
	bh_error err;
	nwarn = 0;
	ck_assert_int_eq(values_coalesce(c, user, 0, warn, NULL, &out, &err), 0);
	assert_json(out, "{\"scalar\":2,\"map\":{\"a\":\"x\",\"b\":\"z\",\"c\":\"w\"},\"list\":[3],"
			 "\"nested\":{\"t\":\"flat\"},\"newnull\":null}");
	/* the user's value is not modified */
	ck_assert_ptr_nonnull(json_object_get(user, "remove"));
	json_decref(out);
	/* a table in the defaults cannot be replaced by a scalar one level down */
	json_t *u2 = json_loads("{\"nested\":{\"t\":{\"u\":2}},\"map\":{\"a\":{\"deep\":1}}}", 0, NULL);
	ck_assert_int_eq(values_coalesce(c, u2, 0, warn, NULL, &out, &err), 0);
	assert_json(out, "{\"scalar\":1.0,\"map\":{\"a\":{\"deep\":1},\"b\":\"why\"},\"list\":[1.0,2.0],"
			 "\"remove\":\"me\",\"nested\":{\"t\":{\"u\":2}}}");
	json_decref(out);
	json_decref(u2);
	json_decref(user);
	chart_free(c);
}
END_TEST

START_TEST(test_table_warning)
{
	const char *n[] = {"Chart.yaml", "values.yaml"};
	const char *b[] = {"apiVersion: v2\nname: top\nversion: 1.0.0\n", "a:\n  b: 1\n"};
	chart *c = mk(n, b, 2);
	json_t *user = json_loads("{\"a\":{\"b\":{\"c\":1}}}", 0, NULL);
	json_t *out = NULL;
	nwarn = 0;
	ck_assert_int_eq(values_coalesce(c, user, 0, warn, NULL, &out, NULL), 0);
	ck_assert_int_eq(nwarn, 1);
	ck_assert_str_eq(lastwarn, "warning: destination for top.a.b is a table. Ignoring non-table value (1)");
	json_decref(out);
	json_decref(user);
	chart_free(c);
	/* three levels down, and a user's null deleting a default there */
	b[1] = "a:\n  b:\n    c:\n      d: 1\n    x: 1\n    z: 2\n";
	c = mk(n, b, 2);
	user = json_loads("{\"a\":{\"b\":{\"c\":5,\"x\":null}}}", 0, NULL);
	nwarn = 0;
	ck_assert_int_eq(values_coalesce(c, user, 0, warn, NULL, &out, NULL), 0);
	ck_assert_int_eq(nwarn, 1);
	ck_assert_str_eq(lastwarn, "warning: cannot overwrite table with non table for top.a.b.c (map[d:1])");
	assert_json(out, "{\"a\":{\"b\":{\"c\":5,\"z\":2.0}}}");
	json_decref(out);
	json_decref(user);
	chart_free(c);
}
END_TEST

/* values_coalesce_take: the result values_coalesce gives, though the
 * charts' trees share a table that the merge changes (it must be copied
 * for one of them), and no chart keeps values after */
START_TEST(test_coalesce_take)
{
	const char *n[] = {"Chart.yaml", "values.yaml", "charts/sub/Chart.yaml", "charts/sub/values.yaml"};
	const char *b[] = {"apiVersion: v2\nname: top\nversion: 1.0.0\n",
			   "global:\n  reg: top.io\n  img:\n    tag: t1\nsub:\n  x: parent\nkeep: 1\n",
			   "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
			   "x: sub\nglobal:\n  own: 1\n"};
	json_t *user = json_loads("{\"global\":{\"img\":{\"tag\":\"u\"}},\"sub\":{\"t\":{\"gone\":null}},"
				  "\"t\":{\"gone\":null},\"keep\":null}", 0, NULL);
	json_t *want = NULL, *got = NULL;
	bh_error err;
	for (int pass = 0; pass < 3; pass++) {
		chart *c = mk(n, b, 4);
		json_t *t = json_loads("{\"gone\":1,\"stays\":{\"a\":1}}", 0, NULL);
		ck_assert_int_eq(c->ndeps, 1);
		json_object_set(c->values, "t", t); /* one table in both charts' values */
		json_object_set(c->deps[0]->values, "t", t);
		json_decref(t);
		if (pass == 0) {
			ck_assert_int_eq(values_coalesce(c, user, 0, NULL, NULL, &want, &err), 0);
		} else if (pass == 1) {
			ck_assert_int_eq(values_coalesce_take(c, user, 0, NULL, NULL, &got, &err), 0);
			ck_assert_ptr_null(c->values);
			ck_assert_ptr_null(c->deps[0]->values);
		} else {
			/* the top chart's tree only: the sub-chart's stays as it was */
			json_t *top = NULL;
			ck_assert_int_eq(values_coalesce_take_top(c, user, 0, NULL, NULL, &top, &err), 0);
			ck_assert_ptr_null(c->values);
			assert_json(c->deps[0]->values, "{\"x\":\"sub\",\"global\":{\"own\":1.0},"
							"\"t\":{\"gone\":1,\"stays\":{\"a\":1}}}");
			char *wt = json_dumps(want, JSON_COMPACT);
			assert_json(top, wt);
			free(wt);
			json_decref(top);
		}
		chart_free(c);
	}
	char *w = json_dumps(want, JSON_SORT_KEYS | JSON_COMPACT);
	ck_assert_ptr_nonnull(json_object_get(json_object_get(json_object_get(want, "sub"), "t"), "gone") ? NULL : w);
	assert_json(got, w);
	free(w);
	json_decref(want);
	json_decref(got);
	json_decref(user);
}
END_TEST

/* values_coalesce_view: the result values_coalesce gives, the charts'
 * values trees unchanged after it (a sub-chart's table under the parent's
 * values, the globals, a table merged under the user's: each changed by
 * the merge unless copied), and a table the merge leaves alone shared, not
 * copied */
START_TEST(test_coalesce_view)
{
	const char *n[] = {"Chart.yaml", "values.yaml", "charts/sub/Chart.yaml", "charts/sub/values.yaml"};
	const char *b[] = {"apiVersion: v2\nname: top\nversion: 1.0.0\n",
			   "global:\n  reg: top.io\n  img:\n    tag: t1\n    a:\n      b: 1\nsub:\n  x: parent\n"
			   "merged:\n  a: 1\n  b:\n    c: 2\nalone:\n  deep:\n    d: 3\nlist: [1, {e: 4}]\n",
			   "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
			   "x: sub\nglobal:\n  own: 1\n  img:\n    a:\n      c: 2\nnulls:\n  gone: null\n  k: 1\nplain:\n  p: 5\n"};
	const char *users[] = {"{\"global\":{\"img\":{\"tag\":\"u\"}},\"merged\":{\"b\":{\"f\":null},\"a\":9},"
			       "\"sub\":{\"plain\":{\"q\":6}}}",
			       "{}"};
	for (size_t u = 0; u < sizeof users / sizeof *users; u++) {
		json_t *user = json_loads(users[u], 0, NULL);
		chart *c = mk(n, b, 4);
		ck_assert_int_eq(c->ndeps, 1);
		char *top_before = json_dumps(c->values, JSON_SORT_KEYS | JSON_COMPACT);
		char *sub_before = json_dumps(c->deps[0]->values, JSON_SORT_KEYS | JSON_COMPACT);
		json_t *want = NULL, *got = NULL;
		bh_error err;
		ck_assert_int_eq(values_coalesce(c, user, 0, NULL, NULL, &want, &err), 0);
		ck_assert_int_eq(values_coalesce_view(c, user, 0, NULL, NULL, &got, &err), 0);
		char *w = json_dumps(want, JSON_SORT_KEYS | JSON_COMPACT);
		assert_json(got, w);
		assert_json(c->values, top_before);
		assert_json(c->deps[0]->values, sub_before);
		ck_assert_ptr_eq(json_object_get(got, "alone"), json_object_get(c->values, "alone"));
		ck_assert_ptr_ne(json_object_get(got, "sub"), json_object_get(c->values, "sub"));
		/* a sub-chart default's null stays (helm 4.1.4 renders
		 * {"nulls":{"gone":null,"k":1}} for these charts) */
		ck_assert(json_is_null(json_object_get(json_object_get(json_object_get(got, "sub"), "nulls"), "gone")));
		/* a second view from the unchanged charts is the same again */
		json_decref(got);
		ck_assert_int_eq(values_coalesce_view(c, user, 0, NULL, NULL, &got, &err), 0);
		assert_json(got, w);
		free(w);
		free(top_before);
		free(sub_before);
		json_decref(want);
		json_decref(got);
		json_decref(user);
		chart_free(c);
	}
}
END_TEST

START_TEST(test_subchart_and_globals)
{
	const char *n[] = {"Chart.yaml", "values.yaml", "charts/sub/Chart.yaml", "charts/sub/values.yaml"};
	const char *b[] = {"apiVersion: v2\nname: top\nversion: 1.0.0\n",
			   "global:\n  reg: top.io\n  img:\n    tag: t1\nsub:\n  x: parent\n",
			   "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
			   "x: sub\ny: sub\nglobal:\n  reg: sub.io\n  own: 1\n  img:\n    pull: Always\n"};
	chart *c = mk(n, b, 4);
	json_t *user = json_loads("{\"global\":{\"img\":{\"tag\":\"u\"}},\"sub\":{\"y\":\"user\"}}", 0, NULL);
	json_t *out = NULL;
	bh_error err;
	ck_assert_int_eq(values_coalesce(c, user, 0, NULL, NULL, &out, &err), 0);
	json_t *sub = json_object_get(out, "sub");
	ck_assert_str_eq(json_string_value(json_object_get(sub, "x")), "parent");
	ck_assert_str_eq(json_string_value(json_object_get(sub, "y")), "user");
	json_t *g = json_object_get(sub, "global");
	ck_assert_str_eq(json_string_value(json_object_get(g, "reg")), "top.io");   /* parent global wins */
	ck_assert(json_real_value(json_object_get(g, "own")) == 1.0);               /* sub's own global kept */
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(g, "img"), "tag")), "u");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(g, "img"), "pull")), "Always");
	json_decref(out);
	json_decref(user);
	chart_free(c);
}
END_TEST

START_TEST(test_dependencies)
{
	const char *n[] = {
		"Chart.yaml", "values.yaml",
		"charts/a/Chart.yaml", "charts/a/values.yaml",
		"charts/b/Chart.yaml",
		"charts/c/Chart.yaml",
		"charts/lib/Chart.yaml",
	};
	const char *b[] = {
		"apiVersion: v2\nname: top\nversion: 1.0.0\ndependencies:\n"
		"- name: a\n  version: 1.x\n  condition: a.enabled\n  import-values:\n  - data\n  - child: deep.inner\n    parent: imported\n"
		"- name: a\n  alias: a2\n  version: 1.0.0\n  condition: a2.enabled,a.enabled\n"
		"- name: b\n  version: '*'\n  tags: [front]\n"
		"- name: c\n  version: '>=1'\n  tags: [back]\n"
		"- name: lib\n  version: 0.1.0\n",
		"a:\n  enabled: true\na2:\n  enabled: false\ntags:\n  back: false\nimported:\n  keep: parent\n",
		"apiVersion: v2\nname: a\nversion: 1.0.0\n",
		"exports:\n  data:\n    fromA: 1\ndeep:\n  inner:\n    keep: child\n    more: x\n",
		"apiVersion: v2\nname: b\nversion: 2.0.0\n",
		"apiVersion: v2\nname: c\nversion: 3.0.0\n",
		"apiVersion: v2\nname: lib\nversion: 0.1.0\ntype: library\n",
	};
	chart *c = mk(n, b, 7);
	bh_error err;
	json_t *user = json_object();
	ck_assert_msg(chart_process_dependencies(c, user, NULL, NULL, &err) == 0, "%s", err.msg);
	/* a (enabled), a2 (alias, disabled by its first condition), b (no tag value: on), c (tag off) */
	bh_buf names = BH_BUF_INIT;
	for (size_t i = 0; i < c->ndeps; i++)
		bh_buf_printf(&names, "%s%s", i ? "," : "", chart_name(c->deps[i]));
	ck_assert_str_eq(bh_buf_str(&names), "a,b,lib");
	bh_buf_free(&names);
	/* import-values: exports.data at the top, deep.inner under imported (parent wins) */
	ck_assert(json_real_value(json_object_get(c->values, "fromA")) == 1.0);
	json_t *imp = json_object_get(c->values, "imported");
	ck_assert_str_eq(json_string_value(json_object_get(imp, "keep")), "parent");
	ck_assert_str_eq(json_string_value(json_object_get(imp, "more")), "x");
	json_decref(user);
	chart_free(c);

	/* the user enables the alias */
	c = mk(n, b, 7);
	user = json_loads("{\"a2\":{\"enabled\":true},\"tags\":{\"back\":true}}", 0, NULL);
	ck_assert_int_eq(chart_process_dependencies(c, user, NULL, NULL, &err), 0);
	names = (bh_buf)BH_BUF_INIT;
	for (size_t i = 0; i < c->ndeps; i++)
		bh_buf_printf(&names, "%s%s", i ? "," : "", chart_name(c->deps[i]));
	ck_assert_str_eq(bh_buf_str(&names), "a,a2,b,c,lib");
	char *fp = chart_full_path_dup(c->deps[1]);
	ck_assert_str_eq(fp, "top/charts/a2");
	free(fp);
	bh_buf_free(&names);
	json_decref(user);
	chart_free(c);
}
END_TEST

START_TEST(test_values_files_and_flags)
{
	const char *f1 = "a: 1\nm:\n  x: 1\n  yy: 2\nl: [1, 2]\n---\nb: doc2\n";
	const char *f2 = "m:\n  yy: null\nl: [9]\n";
	values_file files[] = {{"one.yaml", f1, strlen(f1)}, {"two.yaml", f2, strlen(f2)}};
	const char *set[] = {"a=2", "s.t={x,y}"};
	const char *set_string[] = {"n=5"};
	const char *set_json[] = {"j={\"k\":[1]}", "{\"top\": true}"};
	const char *lit[] = {"lit=a,b=c"};
	values_options o = {.files = files, .nfiles = 2, .set = set, .nset = 2, .set_string = set_string,
			    .nset_string = 1, .set_json = set_json, .nset_json = 2, .set_literal = lit,
			    .nset_literal = 1};
	json_t *out = NULL;
	bh_error err;
	ck_assert_msg(values_compose(&o, &out, &err) == 0, "%s", err.msg);
	assert_json(out, "{\"a\":2,\"b\":\"doc2\",\"m\":{\"x\":1.0,\"yy\":null},\"l\":[9.0],"
			 "\"s\":{\"t\":[\"x\",\"y\"]},\"n\":\"5\",\"j\":{\"k\":[1.0]},\"top\":true,\"lit\":\"a,b=c\"}");
	json_decref(out);

	const char *bad[] = {"replicaCount"};
	values_options o2 = {.set = bad, .nset = 1};
	ck_assert_int_lt(values_compose(&o2, &out, &err), 0);
	ck_assert_str_eq(err.msg, "failed parsing --set data: key \"replicaCount\" has no value");
	const char *badj[] = {"a=[1,"};
	values_options o3 = {.set_json = badj, .nset_json = 1};
	ck_assert_int_lt(values_compose(&o3, &out, &err), 0);
	ck_assert_str_eq(err.msg, "failed parsing --set-json data a=[1,");
	const char *sep = "a: 1\n--- x\n";
	values_file bf[] = {{"bad.yaml", sep, strlen(sep)}};
	values_options o4 = {.files = bf, .nfiles = 1};
	ck_assert_int_lt(values_compose(&o4, &out, &err), 0);
	ck_assert_str_eq(err.msg, "failed to parse bad.yaml: error reading yaml document: invalid Yaml document separator: x");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("values");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_coalesce_basic);
	tcase_add_test(tc, test_table_warning);
	tcase_add_test(tc, test_subchart_and_globals);
	tcase_add_test(tc, test_coalesce_take);
	tcase_add_test(tc, test_coalesce_view);
	tcase_add_test(tc, test_dependencies);
	tcase_add_test(tc, test_values_files_and_flags);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
