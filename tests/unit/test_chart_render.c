/* tests/unit/test_chart_render.c — the render pipeline (helm/render.h) on
 * small charts whose expected output was produced by the real helm v4.1.4
 * (tests/unit/data/chart-render/, see the README there): document
 * splitting, kind order, hooks and test hooks, NOTES.txt, sub-charts with
 * condition and alias, --include-crds, --is-upgrade, --skip-tests,
 * --no-hooks, --show-only, kubeVersion, YAML errors with and without
 * --debug; values.schema.json of sub-charts and handling of hostile schemas. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "helm/chart.h"
#include "helm/render.h"
#include "helm/render_schema.h"
#include "helm/sort.h"
#include "helm/strvals.h"
#include "helm/values.h"
#include "lib/buf.h"
#include "tests/unit/unit_util.h"

static chart *load_dir(const char *name)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/tests/unit/data/chart-render/%s", BH_SRCDIR, name);
	chart *c = NULL;
	bh_error err;
	ck_assert_msg(chart_load_dir(p, NULL, &c, &err) == 0, "load %s: %s", name, err.msg);
	return c;
}

/* a value as log/slog's TextHandler writes it: quoted when empty or when it
 * holds a space, '"', '=' or a control character */
static void slog_value(bh_buf *b, const char *v)
{
	int quote = !*v;
	for (const char *p = v; *p; p++)
		if (*p == ' ' || *p == '"' || *p == '=' || (unsigned char)*p < 0x20)
			quote = 1;
	if (!quote) {
		bh_buf_puts(b, v);
		return;
	}
	bh_buf_putc(b, '"');
	for (const char *p = v; *p; p++) {
		if (*p == '"' || *p == '\\')
			bh_buf_printf(b, "\\%c", *p);
		else if (*p == '\n')
			bh_buf_puts(b, "\\n");
		else
			bh_buf_putc(b, *p);
	}
	bh_buf_putc(b, '"');
}

static bh_buf logbuf;
static void logcb(void *ud, const char *level, const char *msg, const char *const *attrs)
{
	(void)ud;
	if (!strcmp(level, "DEBUG")) /* the goldens are helm's stderr without --debug */
		return;
	bh_buf_printf(&logbuf, "level=%s msg=", level);
	slog_value(&logbuf, msg);
	for (size_t i = 0; attrs && attrs[i]; i += 2) {
		bh_buf_printf(&logbuf, " %s=", attrs[i]);
		slog_value(&logbuf, attrs[i + 1]);
	}
	bh_buf_putc(&logbuf, '\n');
}

/* Renders demo with the given flags and compares with the golden file. */
static void golden(const char *chart_dir, const char *out_file, render_options *o, const char *const *set, size_t nset)
{
	chart *c = load_dir(chart_dir);
	json_t *vals = json_object();
	bh_error err;
	for (size_t i = 0; i < nset; i++)
		ck_assert_int_eq(strvals_parse_into(set[i], vals, STRVALS_TYPED, NULL, NULL, &err), 0);
	render_result r;
	bh_buf_reset(&logbuf);
	o->log = logcb;
	int rc = render_chart(c, vals, o, &r, &err);
	ck_assert_msg(rc == 0, "render: %s", err.msg);
	char *want = unit_data_new("chart-render", out_file, NULL);
	ck_assert_msg(!strcmp(want, r.template_text), "%s differs:\n--- got ---\n%s\n--- want ---\n%s", out_file,
		      r.template_text, want);
	free(want);
	render_result_free(&r);
	json_decref(vals);
	chart_free(c);
}

START_TEST(test_default)
{
	render_options o = {.release_name = "rel", .namespace_ = "ns", .kube_version = "1.31.0"};
	golden("demo", "default.out", &o, NULL, 0);
	char *want = unit_data_new("chart-render", "default.err", NULL);
	ck_assert_str_eq(bh_buf_str(&logbuf), want);
	free(want);

	/* the structured result */
	chart *c = load_dir("demo");
	render_result r;
	bh_error err;
	ck_assert_int_eq(render_chart(c, NULL, &o, &r, &err), 0);
	ck_assert_str_eq(r.notes, "Installed rel in ns.\n");
	ck_assert_uint_eq(r.hooks.n, 4);
	ck_assert_str_eq(r.hooks.v[3].kind, "Job");
	ck_assert_int_eq(r.hooks.v[3].weight, 5);
	ck_assert_uint_eq(r.hooks.v[3].nevents, 2);
	ck_assert_str_eq(r.hooks.v[3].events[1], "pre-upgrade");
	ck_assert_str_eq(r.hooks.v[3].delete_policies[1], "hook-succeeded");
	ck_assert_str_eq(r.hooks.v[0].events[0], "post-install");
	ck_assert_str_eq(r.hooks.v[2].events[0], "test");
	ck_assert(manifest_is_test_hook(&r.hooks.v[2]));
	ck_assert_uint_eq(r.ncrds, 1);
	ck_assert_str_eq(r.crds[0].path, "demo/crds/widget.yaml");
	ck_assert_str_eq(r.manifests.v[0].kind, "ServiceAccount");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(r.values, "sub"), "greeting")), "from-parent");
	/* text_only: the same text, built where the manifest was, for every
	 * way the hooks and CRDs go into it */
	for (int k = 0; k < 4; k++) {
		render_options t = o;
		render_result r2, r3;
		t.include_crds = k & 1;
		t.skip_tests = k == 2;
		t.no_hooks = k == 3;
		chart_free(c);
		c = load_dir("demo");
		ck_assert_int_eq(render_chart(c, NULL, &t, &r2, &err), 0);
		t.text_only = 1;
		chart_free(c);
		c = load_dir("demo");
		ck_assert_int_eq(render_chart(c, NULL, &t, &r3, &err), 0);
		ck_assert_ptr_null(r3.manifest);
		ck_assert_ptr_nonnull(r2.manifest);
		ck_assert_str_eq(r3.template_text, r2.template_text);
		render_result_free(&r2);
		render_result_free(&r3);
	}
	render_result_free(&r);
	chart_free(c);
}
END_TEST

/* coalescing, globals, nulls, conditions, tags, alias, import-values and
 * every --set flavour, seen through `.Values` printed by each template */
START_TEST(test_values_probe)
{
	render_options o = {.release_name = "p"};
	golden("probe", "probe-default.out", &o, NULL, 0);

	chart *c = load_dir("probe");
	char *user_yaml = unit_data_new("chart-render", "probe-user.yaml", NULL);
	values_file vf = {"probe-user.yaml", user_yaml, strlen(user_yaml)};
	const char *set[] = {"tags.grp=false", "third.on=true"};
	const char *set_json[] = {"sub1.list=[3,{\"a\":null}]"};
	const char *set_string[] = {"second.two=22"};
	values_options vo = {.files = &vf, .nfiles = 1, .set = set, .nset = 2, .set_json = set_json,
			     .nset_json = 1, .set_string = set_string, .nset_string = 1};
	json_t *vals = NULL;
	bh_error err;
	ck_assert_msg(values_compose(&vo, &vals, &err) == 0, "%s", err.msg);
	render_result r;
	ck_assert_msg(render_chart(c, vals, &o, &r, &err) == 0, "%s", err.msg);
	char *want = unit_data_new("chart-render", "probe-user.out", NULL);
	ck_assert_str_eq(r.template_text, want);
	free(want);
	free(user_yaml);
	render_result_free(&r);
	json_decref(vals);
	chart_free(c);
}
END_TEST

START_TEST(test_flags)
{
	const char *set[] = {"other.enabled=true"};
	render_options o = {.release_name = "rel", .namespace_ = "ns", .kube_version = "1.31.0",
			    .include_crds = 1, .is_upgrade = 1};
	golden("demo", "crds-upgrade.out", &o, set, 1);
	render_options o2 = {.release_name = "rel", .namespace_ = "ns", .kube_version = "1.31.0", .skip_tests = 1};
	golden("demo", "skip-tests.out", &o2, NULL, 0);
	render_options o3 = {.release_name = "rel", .namespace_ = "ns", .kube_version = "1.31.0", .no_hooks = 1};
	golden("demo", "no-hooks.out", &o3, NULL, 0);
	const char *show[] = {"templates/multi.yaml", "charts/*/templates/*.yaml"};
	render_options o4 = {.release_name = "rel", .namespace_ = "ns", .kube_version = "1.31.0",
			     .show_only = show, .n_show_only = 2};
	golden("demo", "show-only.out", &o4, NULL, 0);
}
END_TEST

static void expect_error(const char *chart_dir, render_options *o, const char *err_file, int debug_out_file_hint)
{
	chart *c = load_dir(chart_dir);
	render_result r;
	bh_error err;
	int rc = render_chart(c, NULL, o, &r, &err);
	ck_assert_int_lt(rc, 0);
	char *want = unit_data_new("chart-render", err_file, NULL);
	bh_buf got = BH_BUF_INIT;
	bh_buf_printf(&got, "Error: %s%s\n", err.msg,
		      r.debug_hint && !o->debug ? "\n\nUse --debug flag to render out invalid YAML" : "");
	const char *w = strstr(want, "Error: ");
	ck_assert_ptr_nonnull(w);
	ck_assert_str_eq(bh_buf_str(&got), w);
	(void)debug_out_file_hint;
	bh_buf_free(&got);
	free(want);
	render_result_free(&r);
	chart_free(c);
}

START_TEST(test_errors)
{
	render_options o = {.release_name = "rel", .kube_version = "1.19.0"};
	expect_error("demo", &o, "old-kube.err", 0);
	const char *show[] = {"templates/nope.yaml"};
	render_options o2 = {.release_name = "rel", .namespace_ = "ns", .kube_version = "1.31.0",
			     .show_only = show, .n_show_only = 1};
	chart *c = load_dir("demo");
	render_result r;
	bh_error err;
	ck_assert_int_lt(render_chart(c, NULL, &o2, &r, &err), 0);
	ck_assert_str_eq(err.msg, "could not find template templates/nope.yaml in chart");
	ck_assert_int_eq(r.debug_hint, 0);
	char *sm = unit_data_new("chart-render", "show-missing.err", NULL);
	ck_assert_ptr_nonnull(strstr(sm, "Error: could not find template templates/nope.yaml in chart\n"));
	ck_assert_ptr_null(strstr(sm, "Use --debug"));
	free(sm);
	render_result_free(&r);
	chart_free(c);

	render_options o3 = {.release_name = "r"};
	expect_error("bad", &o3, "bad.err", 0);
	render_options o4 = {.release_name = "r", .debug = 1};
	c = load_dir("bad");
	ck_assert_int_lt(render_chart(c, NULL, &o4, &r, &err), 0);
	char *want = unit_data_new("chart-render", "bad-debug.out", NULL);
	ck_assert_ptr_nonnull(r.template_text);
	ck_assert_str_eq(r.template_text, want);
	free(want);
	render_result_free(&r);
	chart_free(c);

	/* an execution error (fail): the hint, and --debug prints an empty manifest */
	render_options o6 = {.release_name = "f"};
	expect_error("failing", &o6, "failing.err", 0);
	render_options o7 = {.release_name = "f", .debug = 1};
	c = load_dir("failing");
	ck_assert_int_lt(render_chart(c, NULL, &o7, &r, &err), 0);
	want = unit_data_new("chart-render", "failing-debug.out", NULL);
	ck_assert_str_eq(r.template_text, want);
	free(want);
	render_result_free(&r);
	chart_free(c);

	render_options o5 = {.release_name = "Bad_Name"};
	c = load_dir("bad");
	ck_assert_int_lt(render_chart(c, NULL, &o5, &r, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "release name check failed: release name \"Bad_Name\": invalid release name"));
	ck_assert_int_eq(r.debug_hint, 0);
	render_result_free(&r);
	chart_free(c);
}
END_TEST

static chart *schema_chart(const char *schema)
{
	chart_file f[] = {
		{(char *)"Chart.yaml", (unsigned char *)"apiVersion: v2\nname: s\nversion: 1.0.0\n", 38},
		{(char *)"values.yaml", (unsigned char *)"a: 1\n", 5},
		{(char *)"values.schema.json", (unsigned char *)schema, strlen(schema)},
	};
	chart *c = NULL;
	bh_error err;
	ck_assert_msg(chart_load_files(f, 3, NULL, &c, &err) == 0, "%s", err.msg);
	return c;
}

/* Rendered output is capped (RENDER_MAX_OUTPUT, 16 MiB; here smaller): the
 * templates together, not each alone; the error names the limit and the
 * template where it was reached. */
START_TEST(test_output_cap)
{
	static const char small[] = "{{ range until 300 }}---\nkind: ConfigMap\nmetadata: {name: s{{ . }}}\n{{ end }}";
	static const char big[] = "{{ range until 1000000 }}---\nkind: ConfigMap\nmetadata: {name: b{{ . }}}\n{{ end }}";
	/* Helm renders in reverse path order: b.yaml (small), then a.yaml */
	chart_file f[] = {
		{(char *)"Chart.yaml", (unsigned char *)"apiVersion: v2\nname: s\nversion: 1.0.0\n", 38},
		{(char *)"templates/b.yaml", (unsigned char *)small, sizeof small - 1},
		{(char *)"templates/a.yaml", (unsigned char *)big, sizeof big - 1},
	};
	render_options o = {.release_name = "r", .max_output = 16384};
	render_result r;
	bh_error err;
	chart *c = NULL;
	ck_assert_msg(chart_load_files(f, 2, NULL, &c, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(render_chart(c, NULL, &o, &r, &err), 0); /* ~12 KiB: fits */
	render_result_free(&r);
	chart_free(c);
	/* two that fit alone do not fit together */
	f[2].data = (unsigned char *)small;
	f[2].len = sizeof small - 1;
	ck_assert_msg(chart_load_files(f, 3, NULL, &c, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(render_chart(c, NULL, &o, &r, &err), BH_ELIMIT);
	ck_assert_str_eq(err.msg, "rendered manifests exceed the output limit of 16384 bytes in template s/templates/a.yaml");
	render_result_free(&r);
	chart_free(c);
	f[2].data = (unsigned char *)big;
	f[2].len = sizeof big - 1;
	ck_assert_msg(chart_load_files(f, 3, NULL, &c, &err) == 0, "%s", err.msg);
	o.max_output = 20000;
	ck_assert_int_eq(render_chart(c, NULL, &o, &r, &err), BH_ELIMIT);
	ck_assert_str_eq(err.msg, "rendered manifests exceed the output limit of 20000 bytes in template s/templates/a.yaml");
	render_result_free(&r);
	/* the default: a million objects stop at 16 MiB */
	o.max_output = 0;
	ck_assert_int_eq(render_chart(c, NULL, &o, &r, &err), BH_ELIMIT);
	ck_assert_str_eq(err.msg, "rendered manifests exceed the output limit of 16 MiB (16777216 bytes) in template s/templates/a.yaml");
	render_result_free(&r);
	chart_free(c);
}
END_TEST

START_TEST(test_schema)
{
	render_options o = {.release_name = "r"};
	render_result r;
	bh_error err;
	chart *c = schema_chart("{\"properties\":{\"a\":{\"type\":\"string\"}}}");
	ck_assert_int_lt(render_chart(c, NULL, &o, &r, &err), 0);
	ck_assert_str_eq(err.msg, "values don't meet the specifications of the schema(s) in the following chart(s):\n"
				  "s:\n- at '/a': got number, want string\n");
	render_result_free(&r);
	chart_free(c);

	/* a remote $ref is refused, nothing is fetched */
	c = schema_chart("{\"$ref\":\"http://169.254.169.254/latest/meta-data/\"}");
	time_t t0 = time(NULL);
	ck_assert_int_lt(render_chart(c, NULL, &o, &r, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "s:"));
	ck_assert_msg(time(NULL) - t0 < 5, "remote $ref took too long");
	render_result_free(&r);
	chart_free(c);
	c = schema_chart("{\"$ref\":\"file:///dev/zero\"}");
	ck_assert_int_lt(render_chart(c, NULL, &o, &r, &err), 0);
	render_result_free(&r);
	chart_free(c);

	/* a $ref cycle: a clear error in bounded time, no stack overflow */
	c = schema_chart("{\"$defs\":{\"x\":{\"$ref\":\"#/$defs/y\"},\"y\":{\"$ref\":\"#/$defs/x\"}},\"$ref\":\"#/$defs/x\"}");
	t0 = time(NULL);
	ck_assert_int_lt(render_chart(c, NULL, &o, &r, &err), 0);
	ck_assert_msg(strlen(err.msg) > 0, "empty error");
	ck_assert_msg(time(NULL) - t0 < 10, "recursive $ref took too long");
	render_result_free(&r);
	chart_free(c);

	/* recursion through the instance is fine: a tree schema */
	c = schema_chart("{\"$defs\":{\"n\":{\"type\":\"object\",\"additionalProperties\":{\"$ref\":\"#/$defs/n\"}}},"
			 "\"properties\":{\"t\":{\"$ref\":\"#/$defs/n\"}}}");
	json_t *v = json_loads("{\"t\":{\"a\":{\"b\":{}}}}", 0, NULL);
	ck_assert_msg(render_chart(c, v, &o, &r, &err) == 0, "%s", err.msg);
	json_decref(v);
	render_result_free(&r);
	chart_free(c);
}
END_TEST

/* Renders a chart with a values file and --set flags; the whole stderr
 * (log lines and the error) must equal the one the real helm printed. */
static void stderr_golden(const char *chart_dir, const char *release, const char *vfile, const char *set,
			  const char *set_json, const char *err_file)
{
	chart *c = load_dir(chart_dir);
	char *file_text = vfile ? unit_data_new("chart-render", vfile, NULL) : NULL;
	values_file vf = {vfile, file_text, file_text ? strlen(file_text) : 0};
	values_options vo = {.files = &vf, .nfiles = vfile ? 1 : 0,
			     .set = &set, .nset = set ? 1 : 0, .set_json = &set_json, .nset_json = set_json ? 1 : 0};
	json_t *vals = NULL;
	bh_error err;
	ck_assert_msg(values_compose(&vo, &vals, &err) == 0, "%s", err.msg);
	render_options o = {.release_name = release, .log = logcb};
	render_result r;
	bh_buf_reset(&logbuf);
	ck_assert_int_lt(render_chart(c, vals, &o, &r, &err), 0);
	bh_buf got = BH_BUF_INIT;
	bh_buf_printf(&got, "%sError: %s%s\n", bh_buf_str(&logbuf), err.msg,
		      r.debug_hint ? "\n\nUse --debug flag to render out invalid YAML" : "");
	char *want = unit_data_new("chart-render", err_file, NULL);
	ck_assert_msg(!strcmp(bh_buf_str(&got), want), "%s differs:\n--- got ---\n%s--- want ---\n%s", err_file,
		      bh_buf_str(&got), want);
	free(want);
	bh_buf_free(&got);
	free(file_text);
	render_result_free(&r);
	json_decref(vals);
	chart_free(c);
}

/* a sub-chart's values.schema.json and values that are missing, null or not
 * a map (see the README of the data directory for the helm commands) */
START_TEST(test_schema_subchart)
{
	stderr_golden("schema-sub", "s", NULL, NULL, NULL, "schema-sub.err");
	stderr_golden("schema-sub", "s", "schema-sub-null.yaml", NULL, NULL, "schema-sub-null.err");
	stderr_golden("schema-sub", "s", "schema-sub-bool.yaml", NULL, NULL, "schema-sub-bool.err");
	stderr_golden("schema-sub", "s", NULL, "sub=null", NULL, "schema-sub-set-null.err");
	stderr_golden("schema-sub", "s", NULL, "sub=hello", NULL, "schema-sub-set-str.err");
	stderr_golden("schema-sub", "s", NULL, NULL, "sub=[1,true,null,\"a\",{\"b\":1}]", "schema-sub-set-json.err");

	/* valid values render */
	chart *c = load_dir("schema-sub");
	char *ok = unit_data_new("chart-render", "schema-sub-ok.yaml", NULL);
	values_file vf = {"schema-sub-ok.yaml", ok, strlen(ok)};
	values_options vo = {.files = &vf, .nfiles = 1};
	json_t *vals = NULL;
	bh_error err;
	ck_assert_msg(values_compose(&vo, &vals, &err) == 0, "%s", err.msg);
	render_options o = {.release_name = "s"};
	render_result r;
	ck_assert_msg(render_chart(c, vals, &o, &r, &err) == 0, "%s", err.msg);
	char *want = unit_data_new("chart-render", "schema-sub-ok.out", NULL);
	ck_assert_str_eq(r.template_text, want);
	free(want);
	free(ok);
	render_result_free(&r);
	json_decref(vals);

	/* Coalescing turns every sub-chart's values into a map first, so the
	 * rest of Helm's ValidateAgainstSchema is only reachable directly: a
	 * sub-chart whose values are missing or null is skipped, one whose
	 * values are not a map is reported with Go's %T (the format string of
	 * pkg/chart/common/util/jsonschema.go). */
	const char *head = "values don't meet the specifications of the schema(s) in the following chart(s):\n";
	struct {
		const char *values, *want;
	} cases[] = {
		{"{}", NULL},
		{"{\"sub\":null}", NULL},
		{"{\"sub\":{\"name\":\"a\",\"port\":1}}", NULL},
		{"{\"sub\":{}}", "sub:\n- at '': missing properties 'name', 'port'\n"},
		{"{\"sub\":\"x\"}", "sub:\ninvalid type for values: expected object (map), got string\n"},
		{"{\"sub\":1}", "sub:\ninvalid type for values: expected object (map), got int64\n"},
		{"{\"sub\":1.5}", "sub:\ninvalid type for values: expected object (map), got float64\n"},
		{"{\"sub\":false}", "sub:\ninvalid type for values: expected object (map), got bool\n"},
		{"{\"sub\":[1]}", "sub:\ninvalid type for values: expected object (map), got []interface {}\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		json_t *v = json_loads(cases[i].values, JSON_DECODE_ANY, NULL);
		ck_assert_ptr_nonnull(v);
		int rc = render_validate_schemas(c, v, NULL, &err);
		if (!cases[i].want) {
			ck_assert_msg(rc == 0, "%s: %s", cases[i].values, err.msg);
		} else {
			ck_assert_int_eq(rc, BH_EINVAL);
			ck_assert_ptr_eq(strstr(err.msg, head), err.msg);
			ck_assert_str_eq(err.msg + strlen(head), cases[i].want);
		}
		json_decref(v);
	}
	chart_free(c);
}
END_TEST

/* a `fail` or `required` message spanning several lines, raised inside an
 * include (or a tpl) from NOTES.txt: Helm's HELM_ERR_START((?s).*)HELM_ERR_END
 * rewrite to "execution error at (FILE:L:C): MSG", also with stray markers */
START_TEST(test_fail_multiline)
{
	stderr_golden("failing-multiline", "f", NULL, "mode=multi,b=1", NULL, "failing-multiline-multi.err");
	stderr_golden("failing-multiline", "f", NULL, "mode=markers,b=1", NULL, "failing-multiline-markers.err");
	stderr_golden("failing-multiline", "f", NULL, "mode=tpl,b=1", NULL, "failing-multiline-tpl.err");
	stderr_golden("failing-multiline", "f", NULL, "mode=none", NULL, "failing-multiline-required.err");
}
END_TEST

/* manifest_head_scan: the head of plain block YAML read without a parse;
 * what it is not sure of is left to the full parse (tests/fuzz/fuzz_sort_head
 * checks that the two agree), which still refuses what Helm refuses. */
START_TEST(test_head_scan)
{
	manifest_head h;
	const char *doc = "# Source: c/templates/job.yaml\n"
			  "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: 'it''s'\n"
			  "  annotations:\n    \"helm.sh/hook\": pre-install,post-install\n"
			  "    helm.sh/hook-weight: \"-5\"\n    other: |\n      text\n"
			  "spec:\n  args: [\"--a\", b]\n  note: a long\n    plain scalar\n  quote: 'over\n    lines'\n";
	ck_assert_int_eq(manifest_head_scan(doc, strlen(doc), &h), 1);
	ck_assert_str_eq(h.api_version, "batch/v1");
	ck_assert_str_eq(h.kind, "Job");
	ck_assert_str_eq(h.name, "it's");
	ck_assert_str_eq(h.hooks[0], "pre-install,post-install");
	ck_assert_str_eq(h.hooks[1], "-5");
	ck_assert_ptr_null(h.hooks[2]);
	manifest_head_clear(&h);
	/* sure: plain words that look like numbers to no parser ("-e" has no
	 * digit; a long flag holds '=' and letters), in typed words' odd cases */
	char flags[400];
	memset(flags, 'x', sizeof flags);
	memcpy(flags, "kind: Pod\nargs:\n- -e\n- -.e\n- --r=", 33);
	memcpy(flags + sizeof flags - 17, "\nx: tRUE\nyES: nO\n", 17);
	ck_assert_int_eq(manifest_head_scan(flags, sizeof flags, &h), 1);
	ck_assert_str_eq(h.kind, "Pod");
	manifest_head_clear(&h);
	/* sure: JSON in a double-quoted value, with Go's \u escapes of <>& */
	const char *json = "kind: ConfigMap\ndata:\n  d.json: \"{\\n  \\\"a\\\": \\\"\\u003cb\\u003e\\u0026\\\"}\"\n";
	ck_assert_int_eq(manifest_head_scan(json, strlen(json), &h), 1);
	ck_assert_str_eq(h.kind, "ConfigMap");
	manifest_head_clear(&h);
	/* not sure: an alias, a case variant of a head key, a NaN, a tab, a
	 * flow sequence over two lines, a kind YAML types as a number, an
	 * exponent, 301 digits, a key YAML types as a bool */
	char digits[320] = "kind: Pod\nx: ";
	memset(digits + 13, '9', 301);
	digits[314] = '\n';
	const char *unsure[] = {
		"kind: &k Pod\nx: *k\n", "kind: Pod\nKind: Job\n", "kind: Pod\nx: .nan\n",
		"kind: Pod\nx:\ty\n", "kind: Pod\nx: [a,\n  b]\n", "kind: 1\n", "kind: Pod\nx: -.5e-1\n",
		digits, "kind: Pod\nTRUE: x\n", "kind: Pod\nx: \"\\u0000\"\n", "kind: Pod\nx: \"\\ud800\"\n",
		"kind: Pod\nx: \"\\u00zz\"\n", "kind: Pod\nx: \"\\u00\"\n",
	};
	for (size_t i = 0; i < sizeof unsure / sizeof *unsure; i++) {
		ck_assert_int_eq(manifest_head_scan(unsure[i], strlen(unsure[i]), &h), 0);
		ck_assert_ptr_null(h.kind);
	}
	/* the full parse then still fails the document as Helm does */
	const char *path = "c/templates/a.yaml", *text = "kind: Pod\nx: .nan\n";
	manifest_list hooks = {0}, generic = {0};
	bh_error err;
	ck_assert_int_ne(manifest_sort_files(&path, &text, 1, &hooks, &generic, NULL, NULL, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "YAML parse error on c/templates/a.yaml"));
	manifest_list_free(&hooks);
	manifest_list_free(&generic);
}
END_TEST

/* manifest_sort_files_inplace: the same manifests as manifest_sort_files,
 * their contents inside the texts; after an error the texts are as they
 * were and the manifests sorted before it still read whole. */
START_TEST(test_sort_inplace)
{
	const char *paths[] = {"c/templates/b.yaml", "c/templates/a.yaml", "c/templates/_h.tpl"};
	const char *src[] = {
		"\n---\nkind: Service\nmetadata:\n  name: s\n  \n---  \n\n# c\n---\nkind: Pod\n---\n",
		"kind: Job\nmetadata:\n  annotations:\n    helm.sh/hook: post-install\n---   \t\nkind: ConfigMap\n",
		"{{ define }}",
	};
	char *rw[3];
	manifest_list h1 = {0}, g1 = {0}, h2 = {0}, g2 = {0};
	bh_error err;
	for (int i = 0; i < 3; i++)
		rw[i] = strdup(src[i]);
	ck_assert_int_eq(manifest_sort_files(paths, src, 3, &h1, &g1, NULL, NULL, &err), 0);
	ck_assert_int_eq(manifest_sort_files_inplace(paths, rw, 3, &h2, &g2, NULL, NULL, &err), 0);
	ck_assert_uint_eq(h1.n, 1);
	ck_assert_uint_eq(g1.n, 4);
	ck_assert_uint_eq(h2.n, h1.n);
	ck_assert_uint_eq(g2.n, g1.n);
	for (size_t i = 0; i < g1.n; i++) {
		ck_assert_str_eq(g2.v[i].content, g1.v[i].content);
		ck_assert_str_eq(g2.v[i].kind, g1.v[i].kind);
		ck_assert_uint_eq(g2.v[i].content_len, strlen(g1.v[i].content));
		ck_assert(g2.v[i].content_borrowed && !g1.v[i].content_borrowed);
		ck_assert(g2.v[i].content >= rw[0] || g2.v[i].content >= rw[1]);
	}
	ck_assert_str_eq(g1.v[0].content, "kind: ConfigMap");
	ck_assert_str_eq(h2.v[0].content, h1.v[0].content);
	ck_assert_str_eq(rw[2], src[2]);
	manifest_list_free(&h1);
	manifest_list_free(&g1);
	manifest_list_free(&h2);
	manifest_list_free(&g2);
	/* a.yaml sorts first and is kept; b.yaml's second document fails */
	free(rw[0]);
	free(rw[1]);
	rw[0] = strdup("kind: Pod\n---\nkind: Pod\nx: .nan\n");
	rw[1] = strdup(src[1]);
	ck_assert_int_ne(manifest_sort_files_inplace(paths, rw, 2, &h2, &g2, NULL, NULL, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "YAML parse error on c/templates/b.yaml"));
	ck_assert_str_eq(rw[0], "kind: Pod\n---\nkind: Pod\nx: .nan\n");
	ck_assert_str_eq(rw[1], src[1]);
	ck_assert_uint_eq(h2.n, 1);
	ck_assert_uint_eq(g2.n, 2);
	ck_assert_str_eq(h2.v[0].content, "kind: Job\nmetadata:\n  annotations:\n    helm.sh/hook: post-install");
	ck_assert_str_eq(g2.v[0].content, "kind: ConfigMap");
	ck_assert_str_eq(g2.v[1].content, "kind: Pod");
	ck_assert(!g2.v[1].content_borrowed);
	manifest_list_free(&h2);
	manifest_list_free(&g2);
	for (int i = 0; i < 3; i++)
		free(rw[i]);
}
END_TEST

/* manifest_sort_by_kind: InstallOrder, unknown kinds after it in byte
 * order, equal kinds in the order they came (stable), at every size
 * around the merge passes' widths */
START_TEST(test_sort_by_kind)
{
	static const char *kinds[] = {"Zeta", "Service", "Namespace", "Alpha", "Service", "Job",
				      "Namespace", "Zeta", "ConfigMap", "Alpha"};
	for (size_t n = 0; n <= 40; n++) {
		manifest_list l = {0};
		l.v = calloc(n + 1, sizeof *l.v);
		l.n = l.cap = n;
		char names[41][8];
		for (size_t i = 0; i < n; i++) {
			l.v[i].kind = (char *)kinds[(i * 7) % 10];
			snprintf(names[i], sizeof names[i], "%zu", i);
			l.v[i].name = names[i];
		}
		manifest_sort_by_kind(&l);
		for (size_t i = 1; i < n; i++) {
			const manifest *a = &l.v[i - 1], *b = &l.v[i];
			int oa = manifest_install_order(a->kind), ob = manifest_install_order(b->kind);
			if (oa >= 0 && ob >= 0)
				ck_assert_int_le(oa, ob);
			else if (oa < 0 && ob < 0)
				ck_assert_int_le(strcmp(a->kind, b->kind), 0);
			else
				ck_assert_int_ge(oa, 0); /* known kinds first */
			if (!strcmp(a->kind, b->kind))
				ck_assert_int_lt(atoi(a->name), atoi(b->name));
		}
		free(l.v);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("chart_render");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_default);
	tcase_add_test(tc, test_flags);
	tcase_add_test(tc, test_values_probe);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_schema);
	tcase_add_test(tc, test_output_cap);
	tcase_add_test(tc, test_schema_subchart);
	tcase_add_test(tc, test_fail_multiline);
	tcase_add_test(tc, test_head_scan);
	tcase_add_test(tc, test_sort_inplace);
	tcase_add_test(tc, test_sort_by_kind);
	suite_add_tcase(s, tc);
	int rc = unit_run(s);
	bh_buf_free(&logbuf);
	return rc;
}
