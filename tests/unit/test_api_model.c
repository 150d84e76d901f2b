/* tests/unit/test_api_model.c — api/helmrelease: the CRD walk (every spec
 * field of every served version of deploy/crds' HelmRelease schema is in the
 * model's table, consumed or refused by name), the table's own consistency,
 * Go durations (vectors from Go's time.ParseDuration), defaults, validation
 * and refusals by name, v2beta2 conversion, and the decoder's limits. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/helmrelease.h"
#include "lib/buf.h"
#include "lib/yaml.h"
#include "tests/unit/unit_util.h"

/* v2beta2 fields that hr_convert_v2beta2_new turns into v2 ones. */
static int converted(const char *path)
{
	return strstr(path, ".patchesStrategicMerge") || strstr(path, ".patchesJson6902") ||
	       !strcmp(path, "spec.chart.spec.valuesFile");
}

static int nleaves, nobjects;

static void walk_schema(const json_t *s, const char *path)
{
	const json_t *props = json_object_get(s, "properties"), *items = json_object_get(s, "items");
	const char *type = json_string_value(json_object_get(s, "type")), *k;
	const hr_field *f = hr_field_find(path);
	json_t *c;
	char sub[512];
	if (converted(path))
		return;
	ck_assert_msg(f != NULL, "CRD field .%s is not in the model's table (consume it or refuse it by name)", path);
	if (type && !strcmp(type, "array") && json_is_object(items) && json_object_get(items, "properties")) {
		ck_assert_msg(f->type == HR_T_LIST, ".%s: the CRD has a list of objects", path);
		snprintf(sub, sizeof sub, "%s[]", path);
		json_object_foreach((json_t *)json_object_get(items, "properties"), k, c) {
			char leaf[600];
			snprintf(leaf, sizeof leaf, "%s.%s", sub, k);
			walk_schema(c, leaf);
		}
		nobjects++;
		return;
	}
	if (json_is_object(props)) {
		ck_assert_msg(f->type == HR_T_OBJECT || f->type == HR_T_ANY, ".%s: the CRD has an object", path);
		json_object_foreach((json_t *)props, k, c) {
			snprintf(sub, sizeof sub, "%s.%s", path, k);
			walk_schema(c, sub);
		}
		nobjects++;
		return;
	}
	nleaves++;
	if (type && !strcmp(type, "boolean"))
		ck_assert_msg(f->type == HR_T_BOOL, ".%s: the CRD has a boolean", path);
	if (type && !strcmp(type, "integer"))
		ck_assert_msg(f->type == HR_T_INT, ".%s: the CRD has an integer", path);
	if (type && !strcmp(type, "string"))
		ck_assert_msg(f->type == HR_T_STRING || f->type == HR_T_DURATION, ".%s: the CRD has a string", path);
	if (json_is_integer(json_object_get(s, "maxLength")) && f->type == HR_T_STRING)
		ck_assert_msg(f->max_len == (int)json_integer_value(json_object_get(s, "maxLength")),
			      ".%s: maxLength differs from the CRD's", path);
}

START_TEST(test_crd_walk)
{
	char path[1024];
	size_t n;
	char *text;
	json_t *crd = NULL, *v;
	bh_error err;
	size_t i;
	snprintf(path, sizeof path, "%s/deploy/crds/helm.toolkit.fluxcd.io_helmreleases.yaml", BH_SRCDIR);
	text = unit_read_new(path, &n);
	ck_assert_msg(text != NULL, "cannot read %s", path);
	ck_assert_int_eq(yaml_parse_any(text, n, NULL, 0, &crd, &err), 0);
	json_array_foreach(json_object_get(json_object_get(crd, "spec"), "versions"), i, v) {
		const json_t *schema = json_object_get(json_object_get(v, "schema"), "openAPIV3Schema");
		const json_t *spec = json_object_get(json_object_get(schema, "properties"), "spec");
		ck_assert_ptr_nonnull(spec);
		walk_schema(spec, "spec");
	}
	ck_assert_int_gt(i, 1);    /* v2 and v2beta2 */
	ck_assert_int_gt(nleaves, 10); /* the walk did reach the leaves */
	json_decref(crd);
	free(text);
}
END_TEST

/* Every row's parent is a row of kind object (or list for "x[].y"). */
START_TEST(test_table_closed)
{
	for (size_t i = 0; i < hr_fields_count; i++) {
		char parent[512];
		const char *p = hr_fields[i].path, *dot = strrchr(p, '.');
		const hr_field *f;
		ck_assert_ptr_eq(hr_field_find(p), &hr_fields[i]); /* no duplicates */
		if (!dot)
			continue;
		snprintf(parent, sizeof parent, "%.*s", (int)(dot - p), p);
		if (strlen(parent) > 2 && !strcmp(parent + strlen(parent) - 2, "[]")) {
			parent[strlen(parent) - 2] = 0;
			f = hr_field_find(parent);
			ck_assert_msg(f && f->type == HR_T_LIST, "%s: parent %s is not a list row", p, parent);
		} else {
			f = hr_field_find(parent);
			ck_assert_msg(f && f->type == HR_T_OBJECT, "%s: parent %s is not an object row", p, parent);
		}
		if (hr_fields[i].refused_values)
			ck_assert_ptr_nonnull(hr_fields[i].refused);
	}
}
END_TEST

START_TEST(test_durations)
{
	static const struct {
		const char *in;
		long long ns;
	} ok[] = {{"0", 0},
		  {"5s", 5000000000LL},
		  {"1h30m", 5400000000000LL},
		  {"1.5h", 5400000000000LL},
		  {"300ms", 300000000LL},
		  {"-1.5h", -5400000000000LL},
		  {"+5m", 300000000000LL},
		  {"1\xc2\xb5s", 1000},
		  {"1.s", 1000000000LL},
		  {".5s", 500000000LL},
		  {"1h2m3s4ms5us6ns", 3723004005006LL},
		  {"2562047h47m16.854775807s", 9223372036854775807LL},
		  /* a fraction longer than 19 digits (its scale past 2^64; fuzz_helmrelease) */
		  {"1.0000000000000000000000000001h", 3600000000000LL},
		  {"1.00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		   "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		   "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		   "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000009h",
		   3600000000000LL}};
	static const char *const bad[] = {"", "1", "1x", "h", ".s", "-", "1h-2m", "2562047h47m16.854775808s", "1e3s", " 1s"};
	int64_t ns;
	bh_error err;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		ck_assert_msg(hr_parse_duration(ok[i].in, &ns, &err) == 0, "%s: %s", ok[i].in, err.msg);
		ck_assert_msg(ns == ok[i].ns, "%s: %lld", ok[i].in, (long long)ns);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(hr_parse_duration(bad[i], &ns, &err) < 0, "%s accepted", bad[i]);
	ck_assert_int_eq(hr_parse_duration("1x", &ns, &err), BH_EINVAL);
	ck_assert_str_eq(err.msg, "time: unknown unit \"x\" in duration \"1x\"");
	ck_assert_int_eq(hr_parse_duration("1", &ns, &err), BH_EINVAL);
	ck_assert_str_eq(err.msg, "time: missing unit in duration \"1\"");
}
END_TEST

#define OBJ(api, spec)                                                                                              \
	"{\"apiVersion\":\"helm.toolkit.fluxcd.io/" api "\",\"kind\":\"HelmRelease\",\"metadata\":{\"name\":\"demo\","   \
	"\"namespace\":\"team-x\"},\"spec\":{\"interval\":\"5m\"" spec "}}"
#define CHART ",\"chart\":{\"spec\":{\"chart\":\"demo\",\"sourceRef\":{\"kind\":\"HelmRepository\",\"name\":\"r\"}}}"
#define REF ",\"chartRef\":{\"kind\":\"HelmChart\",\"name\":\"c\",\"namespace\":\"src\"}"

static int decode(const char *text, hr_model **m, bh_error *err)
{
	return hr_decode_bytes(text, strlen(text), m, err);
}

START_TEST(test_defaults)
{
	hr_model *m;
	bh_error err;
	ck_assert_msg(decode(OBJ("v2", CHART), &m, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(m->interval_ns, 300000000000LL);
	ck_assert_int_eq(m->timeout_ns, 300000000000LL);
	ck_assert_int_eq(m->max_history, 5);
	ck_assert_str_eq(m->chart_version, "*");
	ck_assert_str_eq(m->source_namespace, "team-x");
	ck_assert_str_eq(m->upgrade_strategy, "RemediateOnFailure");
	ck_assert_str_eq(m->upgrade_remediation.strategy, "rollback");
	ck_assert_int_eq(m->install_remediation.remediate_last_failure, -1);
	ck_assert_int_eq(m->rollback.timeout_ns, -1);
	ck_assert(m->has_chart && !m->has_chart_ref && !m->beta2);
	hr_model_free(m);
	ck_assert_msg(decode(OBJ("v2", REF ",\"timeout\":\"90s\",\"maxHistory\":0,\"upgrade\":{\"remediation\":{"
					    "\"retries\":-1,\"strategy\":\"uninstall\"}},\"rollback\":{\"disableHooks\":true,\"force\":true,\"recreate\":true}"),
			     &m, &err) == 0,
		      "%s", err.msg);
	ck_assert_int_eq(m->timeout_ns, 90000000000LL);
	ck_assert_int_eq(m->max_history, 0);
	ck_assert_str_eq(m->ref_namespace, "src");
	ck_assert_int_eq(m->upgrade_remediation.retries, -1);
	ck_assert_str_eq(m->upgrade_remediation.strategy, "uninstall");
	ck_assert_int_eq(m->rollback.disable_hooks, 1);
	ck_assert_int_eq(m->rollback.force, 1);
	ck_assert_int_eq(m->rollback.recreate, 1);
	ck_assert_int_eq(hr_retry_interval_ns(m, "upgrade"), 0); /* RemediateOnFailure */
	hr_model_free(m);
	/* the actions' options and the tests */
	ck_assert_msg(decode(OBJ("v2", CHART ",\"install\":{\"skipCRDs\":true,\"createNamespace\":true,\"timeout\":\"1m\"},"
					    "\"upgrade\":{\"crds\":\"CreateReplace\",\"preserveValues\":true,\"disableWait\":true},"
					    "\"uninstall\":{\"keepHistory\":true,\"deletionPropagation\":\"orphan\"},"
					    "\"test\":{\"enable\":true,\"ignoreFailures\":true,\"filters\":[{\"name\":\"t1\",\"exclude\":true},{\"name\":\"t2\"}]}"),
			     &m, &err) == 0,
		      "%s", err.msg);
	ck_assert(m->install.skip_crds && m->install.create_namespace && !*m->install.crds);
	ck_assert_int_eq(m->install.timeout_ns, 60000000000LL);
	ck_assert_str_eq(m->upgrade.crds, "CreateReplace");
	ck_assert(m->upgrade.preserve_values && m->upgrade.disable_wait && !m->upgrade.force);
	ck_assert_int_eq(m->upgrade.timeout_ns, -1);
	ck_assert(m->uninstall.keep_history && !m->uninstall.disable_hooks);
	ck_assert_str_eq(m->uninstall.deletion_propagation, "orphan");
	ck_assert(m->test.enable && m->test.ignore_failures);
	ck_assert_int_eq(m->test.nfilters, 2);
	ck_assert(m->test.filters[0].exclude && !m->test.filters[1].exclude);
	ck_assert_str_eq(m->test.filters[1].name, "t2");
	hr_model_free(m);
	/* the defaults of an object that no longer decodes */
	ck_assert_ptr_nonnull(m = hr_model_default_new());
	ck_assert_int_eq(m->timeout_ns, 300000000000LL);
	ck_assert_int_eq(m->max_history, 5);
	ck_assert(!m->uninstall.keep_history && !*m->uninstall.deletion_propagation && !m->test.enable);
	hr_model_free(m);
	/* dependencies (namespace defaulted), strategies (retryInterval 5m by default) */
	ck_assert_msg(decode(OBJ("v2", CHART ",\"dependsOn\":[{\"name\":\"a\"},{\"name\":\"b\",\"namespace\":\"o\"}],"
					    "\"install\":{\"strategy\":{\"name\":\"RetryOnFailure\"}},\"upgrade\":{"
					    "\"strategy\":{\"name\":\"RetryOnFailure\",\"retryInterval\":\"30s\"}}"),
			     &m, &err) == 0,
		      "%s", err.msg);
	ck_assert_int_eq(m->ndepends_on, 2);
	ck_assert_str_eq(m->depends_on[0].namespace_, "team-x");
	ck_assert_str_eq(m->depends_on[1].name, "b");
	ck_assert_str_eq(m->depends_on[1].namespace_, "o");
	ck_assert_int_eq(hr_retry_interval_ns(m, "install"), 300000000000LL);
	ck_assert_int_eq(hr_retry_interval_ns(m, "upgrade"), 30000000000LL);
	ck_assert_int_eq(hr_retry_interval_ns(m, ""), 0);
	hr_model_free(m);
}
END_TEST

static void expect(const char *text, int code, const char *msg)
{
	hr_model *m = NULL;
	bh_error err;
	int rc = decode(text, &m, &err);
	ck_assert_msg(rc == code, "%s: got %d (%s), want %d", text, rc, rc ? err.msg : "", code);
	ck_assert_msg(strstr(err.msg, msg) != NULL, "message \"%s\" lacks \"%s\"", err.msg, msg);
	ck_assert_ptr_null(m);
}

START_TEST(test_validation)
{
	expect(OBJ("v2", CHART REF), BH_EINVAL, "both .spec.chart and .spec.chartRef are set");
	expect(OBJ("v2", ""), BH_EINVAL, "one of .spec.chart or .spec.chartRef is required");
	expect(OBJ("v2", CHART ",\"bogus\":1"), BH_EINVAL, "unknown field .spec.bogus");
	expect(OBJ("v2", CHART ",\"install\":{\"remediation\":{\"retires\":3}}"), BH_EINVAL,
	       "unknown field .spec.install.remediation.retires");
	expect(OBJ("v2", CHART ",\"timeout\":\"5 minutes\""), BH_EINVAL, ".spec.timeout: invalid duration \"5 minutes\"");
	expect(OBJ("v2", CHART ",\"timeout\":\"-5m\""), BH_EINVAL, ".spec.timeout: invalid duration");
	expect(OBJ("v2", CHART ",\"upgrade\":{\"crds\":\"Always\"}"), BH_EINVAL,
	       ".spec.upgrade.crds: unsupported value \"Always\" (one of Skip|Create|CreateReplace)");
	expect(OBJ("v2", CHART ",\"releaseName\":\"a123456789012345678901234567890123456789012345678901234\""),
	       BH_EINVAL, ".spec.releaseName must be at most 53 characters");
	expect(OBJ("v2", CHART ",\"targetNamespace\":\"Team_X\""), BH_EINVAL, ".spec.targetNamespace \"Team_X\" must be a DNS-1123 label");
	expect(OBJ("v2", CHART ",\"suspend\":\"yes\""), BH_EINVAL, ".spec.suspend must be a boolean");
	expect(OBJ("v2", CHART ",\"maxHistory\":-1"), BH_EINVAL, ".spec.maxHistory must not be negative");
	/* a whole number past int64 (converting it would be undefined: fuzz_helmrelease) */
	expect(OBJ("v2", CHART ",\"install\":{\"remediation\":{\"retries\":8888888888888888888888888888888888883}}"),
	       BH_EINVAL, ".spec.install.remediation.retries must be an integer");
	expect(OBJ("v2", CHART ",\"maxHistory\":1e300"), BH_EINVAL, ".spec.maxHistory must be an integer");
	expect(OBJ("v2", CHART ",\"valuesFrom\":[{\"kind\":\"Secret\",\"name\":\"s\",\"targetPath\":\"a b\"}]"), BH_EINVAL,
	       ".spec.valuesFrom[].targetPath \"a b\" must match");
	expect(OBJ("v2", CHART ",\"valuesFrom\":[{\"kind\":\"Secret\"}]"), BH_EINVAL,
	       "in .spec.valuesFrom[0]: .spec.valuesFrom[].name is required");
	expect(OBJ("v2", CHART ",\"dependsOn\":[{\"namespace\":\"a\"}]"), BH_EINVAL,
	       "in .spec.dependsOn[0]: .spec.dependsOn[].name is required");
	expect(OBJ("v2", CHART ",\"dependsOn\":[{\"name\":\"A_b\"}]"), BH_EINVAL,
	       ".spec.dependsOn[].name \"A_b\" must be a DNS-1123 subdomain");
	expect(OBJ("v2", CHART ",\"upgrade\":{\"strategy\":{\"name\":\"RemediateOnFailure\",\"retryInterval\":\"1m\"}}"),
	       BH_EINVAL, ".spec.upgrade.strategy: .retryInterval can only be set when .name is 'RetryOnFailure'");
	expect(OBJ("v2", CHART ",\"install\":{\"strategy\":{\"retryInterval\":\"1m\"}}"), BH_EINVAL,
	       ".spec.install.strategy.name is required");
	expect(OBJ("v2", CHART ",\"install\":{\"strategy\":{\"name\":\"Retry\"}}"), BH_EINVAL,
	       ".spec.install.strategy.name: unsupported value \"Retry\"");
	expect(OBJ("v2beta1", CHART), BH_EINVAL, "apiVersion helm.toolkit.fluxcd.io/v2beta1 is not supported");
	expect("{\"apiVersion\":\"helm.toolkit.fluxcd.io/v2\",\"metadata\":{\"name\":\"Demo\",\"namespace\":\"x\"},"
	       "\"spec\":{\"interval\":\"1m\"" CHART "}}",
	       BH_EINVAL, ".metadata.name must be a DNS-1123 subdomain");
}
END_TEST

START_TEST(test_refused_by_name)
{
	hr_model *m;
	bh_error err;
	expect(OBJ("v2", CHART ",\"kubeConfig\":{\"configMapRef\":{\"name\":\"k\"}}"), BH_EDENIED,
	       ".spec.kubeConfig.configMapRef is not supported by this version of bulkhead: workload identity providers");
	expect(OBJ("v2", CHART ",\"kubeConfig\":{\"secretRef\":{\"key\":\"value\"}}"), BH_EINVAL,
	       ".spec.kubeConfig.secretRef.name is required");
	expect(OBJ("v2", CHART ",\"kubeConfig\":{}"), BH_EINVAL, ".spec.kubeConfig needs a secretRef");
	/* .spec.chart.spec.verify: accepted (copied into the HelmChart), checked as the CRD does */
	ck_assert_msg(decode(OBJ("v2", ",\"chart\":{\"spec\":{\"chart\":\"d\",\"sourceRef\":{\"kind\":\"HelmRepository\","
				       "\"name\":\"r\"},\"verify\":{\"provider\":\"cosign\",\"secretRef\":{\"name\":\"keys\"},"
				       "\"matchOIDCIdentity\":[{\"issuer\":\"^https://x$\",\"subject\":\".*\"}]}}}"),
			     &m, &err) == 0,
		      "%s", err.msg);
	hr_model_free(m);
	expect(OBJ("v2",
		   ",\"chart\":{\"spec\":{\"chart\":\"d\",\"sourceRef\":{\"kind\":\"HelmRepository\",\"name\":\"r\"},"
		   "\"verify\":{\"provider\":\"gpg\"}}}"),
	       BH_EINVAL, ".spec.chart.spec.verify.provider");
	expect(OBJ("v2",
		   ",\"chart\":{\"spec\":{\"chart\":\"d\",\"sourceRef\":{\"kind\":\"HelmRepository\",\"name\":\"r\"},"
		   "\"verify\":{\"provider\":\"cosign\",\"secretRef\":{}}}}"),
	       BH_EINVAL, ".spec.chart.spec.verify.secretRef.name is required");
	expect(OBJ("v2",
		   ",\"chart\":{\"spec\":{\"chart\":\"d\",\"sourceRef\":{\"kind\":\"HelmRepository\",\"name\":\"r\"},"
		   "\"verify\":{\"matchOIDCIdentity\":[{\"issuer\":\"i\"}]}}}"),
	       BH_EINVAL, "in .spec.chart.spec.verify.matchOIDCIdentity[0]: .spec.chart.spec.verify.matchOIDCIdentity[].subject is required");
	expect(OBJ("v2", ",\"chart\":{\"metadata\":{\"labels\":{\"a\":1}},\"spec\":{\"chart\":\"d\",\"sourceRef\":{"
			 "\"kind\":\"HelmRepository\",\"name\":\"r\"}}}"),
	       BH_EINVAL, ".spec.chart.metadata.labels.a must be a string");
	/* a refused field at its zero value changes nothing: accepted */
	ck_assert_msg(decode(OBJ("v2", CHART ",\"install\":{\"disableOpenAPIValidation\":true}"), &m, &err) == 0, "%s", err.msg);
	hr_model_free(m);
	ck_assert_msg(decode(OBJ("v2", CHART ",\"dependsOn\":[],\"rollback\":{\"force\":false},\"upgrade\":{\"strategy\":"
					    "{\"name\":\"RemediateOnFailure\"}}"),
			     &m, &err) == 0,
		      "%s", err.msg);
	hr_model_free(m);
	/* every refused row has a reason a user can read */
	for (size_t i = 0; i < hr_fields_count; i++)
		if (hr_fields[i].refused)
			ck_assert_int_gt(strlen(hr_fields[i].refused), 10);
}
END_TEST

START_TEST(test_v2beta2)
{
	hr_model *m;
	bh_error err;
	const json_t *k, *p;
	ck_assert_msg(decode(OBJ("v2beta2", ",\"chart\":{\"spec\":{\"chart\":\"d\",\"valuesFile\":\"a.yaml\",\"valuesFiles\":"
					       "[\"b.yaml\"],\"sourceRef\":{\"kind\":\"GitRepository\",\"name\":\"g\"}}},"
					       "\"postRenderers\":[{\"kustomize\":{\"patches\":[{\"patch\":\"P\"}],"
					       "\"patchesStrategicMerge\":[{\"kind\":\"Deployment\"}],\"patchesJson6902\":[{"
					       "\"target\":{\"kind\":\"Service\"},\"patch\":[{\"op\":\"remove\",\"path\":\"/x\"}]}]}}]"),
			     &m, &err) == 0,
		      "%s", err.msg);
	ck_assert(m->beta2);
	k = json_object_get(json_array_get(json_object_get(m->spec, "postRenderers"), 0), "kustomize");
	ck_assert_ptr_null(json_object_get(k, "patchesStrategicMerge"));
	ck_assert_ptr_null(json_object_get(k, "patchesJson6902"));
	p = json_object_get(k, "patches");
	ck_assert_int_eq(json_array_size(p), 3);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(p, 0), "patch")), "{\"kind\":\"Deployment\"}");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(p, 1), "patch")), "P");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(p, 2), "patch")),
			 "[{\"op\":\"remove\",\"path\":\"/x\"}]");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(json_array_get(p, 2), "target"), "kind")),
			 "Service");
	p = json_object_get(json_object_get(json_object_get(m->spec, "chart"), "spec"), "valuesFiles");
	ck_assert_int_eq(json_array_size(p), 2);
	ck_assert_str_eq(json_string_value(json_array_get(p, 0)), "a.yaml");
	hr_model_free(m);
	/* the same deprecated field under v2 is refused by name, not dropped */
	expect(OBJ("v2", CHART ",\"postRenderers\":[{\"kustomize\":{\"patchesStrategicMerge\":[{}]}}]"), BH_EINVAL,
	       "in .spec.postRenderers[0]: unknown field .spec.postRenderers[].kustomize.patchesStrategicMerge");
}
END_TEST

START_TEST(test_limits)
{
	bh_buf b = BH_BUF_INIT;
	hr_model *m;
	bh_error err;
	bh_buf_puts(&b, "{\"metadata\":{\"name\":\"d\",\"namespace\":\"n\"},\"spec\":{\"interval\":\"1m\"" CHART ",\"values\":");
	for (int i = 0; i < 300; i++)
		bh_buf_puts(&b, "[");
	for (int i = 0; i < 300; i++)
		bh_buf_puts(&b, "]");
	bh_buf_puts(&b, "}}");
	ck_assert_int_eq(hr_decode_bytes(b.data, b.len, &m, &err), BH_ELIMIT);
	ck_assert_ptr_null(m);
	ck_assert_int_eq(hr_decode_bytes(b.data, HR_MAX_BYTES + 1, &m, &err), BH_ELIMIT);
	ck_assert_ptr_nonnull(strstr(err.msg, "larger than the limit"));
	bh_buf_free(&b);
	expect("[1]", BH_EINVAL, "must be a JSON object");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("api_model");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_crd_walk);
	tcase_add_test(tc, test_table_closed);
	tcase_add_test(tc, test_durations);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_validation);
	tcase_add_test(tc, test_refused_by_name);
	tcase_add_test(tc, test_v2beta2);
	tcase_add_test(tc, test_limits);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
