/* tests/unit/test_worker_snapshot.c — worker/snapshot.h: Flux's config
 * digest (golden: sha256 of the real helm's toYaml of the same values, the
 * go-yaml v2 text fluxcd/pkg chartutil.DigestValues hashes), snapshots of
 * stored releases, and what the release digest covers. */
#include <check.h>
#include <jansson.h>
#include <string.h>

#include "worker/snapshot.h"
#include "tests/unit/unit_util.h"

START_TEST(test_config_digest)
{
	char d[SNAPSHOT_DIGEST_MAX];
	bh_error e;
	/* helm template with {{ toYaml .Values }} printed
	 * "alpha:\n  flag: true\n  nested:\n    a: null\n    b: 2.5\n    s: <x> & y\nempty: {}\nzeta:\n- 1\n- two\n- k: v\n" */
	json_t *v = unit_json_new("{\"zeta\":[1,\"two\",{\"k\":\"v\"}],\"alpha\":{\"nested\":{\"b\":2.5,\"a\":null,\"s\":\"<x> & y\"},"
			 "\"flag\":true},\"empty\":{}}");
	ck_assert_int_eq(snapshot_config_digest(v, d, &e), 0);
	ck_assert_str_eq(d, "sha256:bbcb10836f6ae363bcd10543afbe0b379623b8d7192d4ef79cb18daeac1b1fda");
	json_decref(v);
	/* no values: the digest of nothing */
	ck_assert_int_eq(snapshot_config_digest(NULL, d, &e), 0);
	ck_assert_str_eq(d, "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	v = json_object();
	ck_assert_int_eq(snapshot_config_digest(v, d, &e), 0);
	ck_assert_str_eq(d, "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	json_decref(v);
}
END_TEST

static const char *REL =
	"{\"name\":\"web\",\"info\":{\"first_deployed\":\"2026-01-02T03:04:05.123456789Z\","
	"\"last_deployed\":\"2026-01-02T03:04:06.5Z\",\"deleted\":\"\",\"description\":\"Install complete\","
	"\"status\":\"deployed\"},\"chart\":{\"metadata\":{\"name\":\"app\",\"version\":\"1.0.0\",\"appVersion\":\"1.0\"}},"
	"\"config\":{\"message\":\"one\"},\"manifest\":\"---\\nkind: ConfigMap\\n\","
	"\"hooks\":[{\"name\":\"web-test\",\"kind\":\"Pod\",\"events\":[\"test\"],"
	"\"last_run\":{\"started_at\":\"2026-01-02T03:05:00.1Z\",\"completed_at\":\"2026-01-02T03:05:01.2Z\",\"phase\":\"Failed\"}},"
	"{\"name\":\"web-pre\",\"kind\":\"Job\",\"events\":[\"pre-install\"],\"last_run\":{\"phase\":\"Succeeded\"}},"
	"{\"name\":\"web-test2\",\"kind\":\"Pod\",\"events\":[\"test-success\"],\"last_run\":{\"phase\":\"\"}}],"
	"\"version\":3,\"namespace\":\"team-a\"}";

START_TEST(test_snapshot)
{
	bh_error e;
	json_t *rel = unit_json_new(REL), *s, *th;
	s = snapshot_new(rel, "upgrade", 0, NULL, &e);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(json_string_value(json_object_get(s, "apiVersion")), "v2");
	ck_assert_str_eq(json_string_value(json_object_get(s, "name")), "web");
	ck_assert_str_eq(json_string_value(json_object_get(s, "namespace")), "team-a");
	ck_assert_int_eq(json_integer_value(json_object_get(s, "version")), 3);
	ck_assert_str_eq(json_string_value(json_object_get(s, "status")), "deployed");
	ck_assert_str_eq(json_string_value(json_object_get(s, "action")), "upgrade");
	ck_assert_str_eq(json_string_value(json_object_get(s, "chartName")), "app");
	ck_assert_str_eq(json_string_value(json_object_get(s, "chartVersion")), "1.0.0");
	ck_assert_str_eq(json_string_value(json_object_get(s, "appVersion")), "1.0");
	ck_assert_str_eq(json_string_value(json_object_get(s, "firstDeployed")), "2026-01-02T03:04:05Z");
	ck_assert_str_eq(json_string_value(json_object_get(s, "lastDeployed")), "2026-01-02T03:04:06Z");
	ck_assert_ptr_null(json_object_get(s, "deleted"));
	ck_assert_str_eq(json_string_value(json_object_get(s, "configDigest")),
			 "sha256:c3a70400d9465960aa58d6436c38fbd85353c68020ce39a4efaf8ad9467137ff"); /* "message: one\n" */
	ck_assert_int_eq(strncmp(json_string_value(json_object_get(s, "digest")), "sha256:", 7), 0);
	ck_assert_int_eq(strlen(json_string_value(json_object_get(s, "digest"))), 71);
	ck_assert(!snapshot_tested(s));
	ck_assert(!snapshot_test_failed(s));
	ck_assert_ptr_null(json_object_get(s, "ociDigest"));
	json_decref(s);
	/* a chart from an OCIRepository: its digest is recorded and observed */
	s = snapshot_new(rel, "install", 0, "sha256:0123", &e);
	ck_assert_str_eq(json_string_value(json_object_get(s, "ociDigest")), "sha256:0123");
	{
		char d[SNAPSHOT_DIGEST_MAX];
		ck_assert_int_eq(snapshot_release_digest(rel, "sha256:0123", d, &e), 0);
		ck_assert_str_eq(json_string_value(json_object_get(s, "digest")), d);
		ck_assert_int_eq(snapshot_release_digest(rel, NULL, d, &e), 0);
		ck_assert_str_ne(json_string_value(json_object_get(s, "digest")), d);
	}
	json_decref(s);
	/* with test results: only test hooks that ran */
	s = snapshot_new(rel, NULL, 1, "", &e);
	ck_assert_ptr_null(json_object_get(s, "action"));
	th = json_object_get(s, "testHooks");
	ck_assert_int_eq(json_object_size(th), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(th, "web-test"), "phase")), "Failed");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(th, "web-test"), "lastStarted")),
			 "2026-01-02T03:05:00Z");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(th, "web-test"), "lastCompleted")),
			 "2026-01-02T03:05:01Z");
	ck_assert(snapshot_tested(s));
	ck_assert(snapshot_test_failed(s));
	json_decref(s);
	json_decref(rel);
}
END_TEST

START_TEST(test_release_digest)
{
	bh_error e;
	char a[SNAPSHOT_DIGEST_MAX], b[SNAPSHOT_DIGEST_MAX];
	json_t *rel = unit_json_new(REL);
	ck_assert_int_eq(snapshot_release_digest(rel, NULL, a, &e), 0);
	/* a test run does not change it (Flux's observation drops test hooks) */
	json_object_set_new(json_object_get(json_array_get(json_object_get(rel, "hooks"), 0), "last_run"), "phase",
			    json_string("Succeeded"));
	ck_assert_int_eq(snapshot_release_digest(rel, NULL, b, &e), 0);
	ck_assert_str_eq(a, b);
	/* anything else does: status, config, other hooks' runs */
	json_object_set_new(json_object_get(rel, "info"), "status", json_string("superseded"));
	ck_assert_int_eq(snapshot_release_digest(rel, NULL, b, &e), 0);
	ck_assert_str_ne(a, b);
	json_object_set_new(json_object_get(rel, "info"), "status", json_string("deployed"));
	json_object_set_new(json_object_get(rel, "config"), "message", json_string("two"));
	ck_assert_int_eq(snapshot_release_digest(rel, NULL, b, &e), 0);
	ck_assert_str_ne(a, b);
	json_decref(rel);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("worker_snapshot");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_config_digest);
	tcase_add_test(tc, test_snapshot);
	tcase_add_test(tc, test_release_digest);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
