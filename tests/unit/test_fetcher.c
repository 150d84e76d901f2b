/* tests/unit/test_fetcher.c — the fetcher's pure parts: index.yaml
 * decoding and version choice, chart URL resolution, and the FETCH /
 * FETCH_RESULT codecs with hostile input. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetcher/fetch.h"
#include "fetcher/index.h"
#include "proto/fetch.h"

static const char *index_text =
	"apiVersion: v1\n"
	"entries:\n"
	"  app:\n"
	"  - name: app\n    version: 1.2.0\n    digest: aa\n    urls: [app-1.2.0.tgz]\n    created: \"2026-01-02T00:00:00Z\"\n"
	"  - name: app\n    version: 2.0.0-rc.1\n    urls: [app-2.0.0-rc.1.tgz]\n"
	"  - null\n"
	"  - name: app\n    version: not-semver\n    urls: [x.tgz]\n"
	"  - name: app\n    version: 1.10.0\n    urls: [https://other.example/app-1.10.0.tgz]\n"
	"  - name: app\n    version: 1.2.0+b\n    urls: [app-1.2.0b.tgz]\n    created: \"2026-01-03T00:00:00Z\"\n"
	"  empty: []\n"
	"generated: \"2026-01-01T00:00:00Z\"\n";

static const index_version *pick(const helm_index *idx, const char *name, const char *c, int want_rc)
{
	const index_version *v = NULL;
	bh_error e;
	ck_assert_int_eq(index_get(idx, name, c, &v, &e), want_rc);
	return v;
}

START_TEST(test_index_versions)
{
	helm_index *idx;
	bh_error e;
	ck_assert_int_eq(index_decode(index_text, strlen(index_text), 1 << 20, &idx, &e), 0);
	ck_assert_uint_eq(idx->skipped, 2); /* null and not-semver, as Helm skips them */
	ck_assert_str_eq(pick(idx, "app", NULL, 0)->version, "1.10.0");   /* latest stable */
	ck_assert_str_eq(pick(idx, "app", "*", 0)->version, "1.10.0");
	ck_assert_str_eq(pick(idx, "app", "~1.2", 0)->version, "1.2.0+b"); /* same version: newest created */
	ck_assert_str_eq(pick(idx, "app", "1.2.0", 0)->version, "1.2.0");  /* exact string first */
	ck_assert_str_eq(pick(idx, "app", ">=2.0.0-0", 0)->version, "2.0.0-rc.1"); /* prereleases on request */
	ck_assert_ptr_null(pick(idx, "app", ">=3", BH_ENOTFOUND));
	ck_assert_ptr_null(pick(idx, "nope", NULL, BH_ENOTFOUND));
	ck_assert_ptr_null(pick(idx, "empty", NULL, BH_ENOTFOUND));
	ck_assert_ptr_null(pick(idx, "app", ">>1", BH_EINVAL));
	index_free(idx);
}
END_TEST

START_TEST(test_index_hostile)
{
	helm_index *idx;
	bh_error e;
	char *deep = malloc(100000);
	size_t n = 0;
	ck_assert_int_eq(index_decode("", 0, 1 << 20, &idx, &e), BH_EINVAL);
	ck_assert_str_eq(e.msg, "empty index.yaml file");
	ck_assert_int_eq(index_decode("entries: {}\n", 12, 1 << 20, &idx, &e), BH_EINVAL);
	ck_assert_str_eq(e.msg, "no API version specified");
	ck_assert_int_lt(index_decode("apiVersion: v1\nentries: [1]\n", 28, 1 << 20, &idx, &e), 0);
	ck_assert_int_lt(index_decode("apiVersion: v1\nentries:\n  a: 3\n", 31, 1 << 20, &idx, &e), 0);
	ck_assert_int_eq(index_decode(index_text, strlen(index_text), 64, &idx, &e), BH_ELIMIT);
	/* typed like Helm's Go structs: an all-digit digest is a number, not a string */
	ck_assert_int_eq(index_decode("apiVersion: v1\nentries:\n  a:\n  - {name: a, version: 1.0.0, digest: 00}\n", 71, 1 << 20,
				      &idx, &e), BH_EINVAL);
	ck_assert_str_eq(e.msg, "error unmarshaling index.yaml: entries.a[0].digest is not a string");
	n += (size_t)sprintf(deep, "apiVersion: v1\nx: ");
	for (int i = 0; i < 5000; i++)
		deep[n++] = '[';
	ck_assert_int_eq(index_decode(deep, n, 1 << 20, &idx, &e), BH_ELIMIT);
	free(deep);
}
END_TEST

START_TEST(test_resolve_url)
{
	char *u = fetch_resolve_url("http://h:1/charts", "app-1.0.0.tgz");
	ck_assert_str_eq(u, "http://h:1/charts/app-1.0.0.tgz");
	free(u);
	u = fetch_resolve_url("http://h:1/charts/", "/abs/app.tgz");
	ck_assert_str_eq(u, "http://h:1/abs/app.tgz");
	free(u);
	u = fetch_resolve_url("http://h:1", "https://o/x.tgz");
	ck_assert_str_eq(u, "https://o/x.tgz");
	free(u);
}
END_TEST

START_TEST(test_proto_fetch)
{
	proto_fetch_request rq = {0}, back;
	proto_fetch_result rs;
	bh_buf b = BH_BUF_INIT;
	bh_error e;
	static const char *bad[] = {
		"{}", "[]", "{\"ok\":true,\"reason\":\"X\",\"message\":\"m\"}", /* ok without digest */
		"{\"ok\":false,\"reason\":\"bad reason\",\"message\":\"m\"}",
		"{\"ok\":false,\"reason\":\"X\",\"message\":\"m\",\"extra\":1}",
		"{\"ok\":false,\"reason\":\"X\",\"message\":\"m\",\"size\":-1}",
		"{\"ok\":true,\"reason\":\"X\",\"message\":\"m\",\"digest\":\"sha256:XYZ\"}",
		"{\"ok\":false,\"ok\":true,\"reason\":\"X\",\"message\":\"m\"}",
		"{\"ok\":false,\"reason\":\"X\",\"message\":\"m\",\"observedValuesFiles\":[1]}",
		"{\"ok\":false,\"reason\":\"X\",\"message\":\"m\",\"observedValuesFiles\":[\"a\\nb\"]}",
		"{\"ok\":false,\"reason\":\"X\",\"message\":\"m\",\"observedValuesFiles\":\"a\"}",
	};
	char *vf[] = {"values.yaml", "values-prod.yaml"};
	rq.values_files.v = vf;
	rq.values_files.n = 2;
	rq.op = FETCH_OP_CHART;
	rq.url = "http://127.0.0.1:1/";
	rq.chart = "app";
	rq.password = "secret";
	rq.pass_credentials = 1;
	rq.timeout_ms = 5000;
	ck_assert_int_eq(proto_fetch_request_encode(&rq, &b, &e), 0);
	ck_assert_int_eq(proto_fetch_request_decode((unsigned char *)b.data, b.len, &back, &e), 0);
	ck_assert_int_eq(back.op, FETCH_OP_CHART);
	ck_assert_str_eq(back.chart, "app");
	ck_assert_str_eq(back.password, "secret");
	ck_assert_int_eq(back.pass_credentials, 1);
	ck_assert_int_eq(back.timeout_ms, 5000);
	ck_assert_uint_eq(back.values_files.n, 2);
	ck_assert_str_eq(back.values_files.v[1], "values-prod.yaml");
	proto_fetch_request_free(&back);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		ck_assert_int_lt(proto_fetch_result_decode((const unsigned char *)bad[i], strlen(bad[i]), &rs, &e), 0);
	bh_buf_free(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fetcher");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;
	tcase_add_test(tc, test_index_versions);
	tcase_add_test(tc, test_index_hostile);
	tcase_add_test(tc, test_resolve_url);
	tcase_add_test(tc, test_proto_fetch);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
