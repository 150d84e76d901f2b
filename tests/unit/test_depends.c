/* tests/unit/test_depends.c — supervisor/depends.c (Flux's dependsOn check,
 * cycles) and supervisor/requeue.c (interval jitter, retryInterval). */
#include <check.h>
#include <jansson.h>
#include <string.h>

#include "supervisor/depends.h"
#include "supervisor/requeue.h"
#include "tests/unit/unit_util.h"

static json_t *cache;

static json_t *hr(const char *ns, const char *name, long gen, long observed, const char *ready, const char *deps)
{
	json_t *o = json_pack("{s:s,s:{s:s,s:s,s:I},s:{s:s},s:{s:I,s:[{s:s,s:s}]}}", "apiVersion",
			      "helm.toolkit.fluxcd.io/v2", "metadata", "name", name, "namespace", ns, "generation",
			      (json_int_t)gen, "spec", "interval", "1m", "status", "observedGeneration", (json_int_t)observed,
			      "conditions", "type", "Ready", "status", ready);
	json_t *d = deps ? json_loads(deps, 0, NULL) : NULL;
	if (d)
		json_object_set_new(json_object_get(o, "spec"), "dependsOn", d);
	return o;
}

static void put(json_t *o)
{
	char key[300];
	snprintf(key, sizeof key, "%s/%s", json_string_value(json_object_get(json_object_get(o, "metadata"), "namespace")),
		 json_string_value(json_object_get(json_object_get(o, "metadata"), "name")));
	json_object_set_new(cache, key, o);
}

static const json_t *lookup(void *ud, const char *ns, const char *name)
{
	char key[300];
	(void)ud;
	snprintf(key, sizeof key, "%s/%s", ns, name);
	return json_object_get(cache, key);
}

START_TEST(test_depends)
{
	char msg[512];
	json_t *b;
	cache = json_object();
	put(hr("t", "a", 2, 2, "True", NULL));
	put(hr("o", "x", 1, 1, "True", NULL));
	b = hr("t", "b", 1, 0, "Unknown", "[{\"name\":\"a\"},{\"name\":\"x\",\"namespace\":\"o\"}]");
	ck_assert_int_eq(depends_check(b, lookup, NULL, msg, sizeof msg), DEPENDS_READY);
	/* a not Ready; a Ready at an older generation; a missing */
	put(hr("t", "a", 2, 2, "False", NULL));
	ck_assert_int_eq(depends_check(b, lookup, NULL, msg, sizeof msg), DEPENDS_NOT_READY);
	ck_assert_str_eq(msg, "dependency 't/a' is not ready");
	put(hr("t", "a", 3, 2, "True", NULL));
	ck_assert_int_eq(depends_check(b, lookup, NULL, msg, sizeof msg), DEPENDS_NOT_READY);
	json_object_del(cache, "t/a");
	ck_assert_int_eq(depends_check(b, lookup, NULL, msg, sizeof msg), DEPENDS_NOT_READY);
	ck_assert_str_eq(msg, "unable to get 't/a' dependency: helmreleases.helm.toolkit.fluxcd.io \"a\" not found");
	/* a cycle through b: b -> a -> o/x -> b, even with every member Ready */
	put(hr("t", "a", 1, 1, "True", "[{\"name\":\"x\",\"namespace\":\"o\"}]"));
	put(hr("o", "x", 1, 1, "True", "[{\"name\":\"b\",\"namespace\":\"t\"}]"));
	ck_assert_int_eq(depends_check(b, lookup, NULL, msg, sizeof msg), DEPENDS_CYCLE);
	ck_assert_msg(!strncmp(msg, "dependency cycle: t/b -> t/a -> o/x -> t/b: ", 44), "%s", msg);
	/* a cycle elsewhere (a <-> x) is theirs to report: b just waits */
	put(hr("o", "x", 1, 1, "False", "[{\"name\":\"a\",\"namespace\":\"t\"}]"));
	ck_assert_int_eq(depends_check(b, lookup, NULL, msg, sizeof msg), DEPENDS_NOT_READY);
	ck_assert_str_eq(msg, "dependency 'o/x' is not ready");
	/* depending on itself */
	json_decref(b);
	b = hr("t", "b", 1, 0, "Unknown", "[{\"name\":\"b\"}]");
	ck_assert_int_eq(depends_check(b, lookup, NULL, msg, sizeof msg), DEPENDS_CYCLE);
	ck_assert_msg(!strncmp(msg, "dependency cycle: t/b -> t/b: ", 30), "%s", msg);
	json_decref(b);
	json_decref(cache);
}
END_TEST

START_TEST(test_event)
{
	json_t *ev = depends_event_new(DEPENDS_REASON, "dependency 't/a' is not ready");
	ck_assert_int_eq(json_array_size(ev), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ev, 0), "type")), "Normal");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ev, 0), "reason")), "DependencyNotReady");
	json_decref(ev);
}
END_TEST

START_TEST(test_requeue)
{
	double lo = 1e9, hi = 0;
	json_t *o, *st;
	for (int i = 0; i < 2000; i++) {
		double d = requeue_jitter(600);
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	ck_assert(lo >= 570 && hi <= 630); /* the default 5% */
	ck_assert(lo < 590 && hi > 610);   /* and it does spread */
	ck_assert_int_eq(requeue_set_jitter(100), -1);
	ck_assert_int_eq(requeue_set_jitter(-1), -1);
	ck_assert_int_eq(requeue_set_jitter(0), 0);
	ck_assert(requeue_jitter(600) == 600);
	o = json_loads("{\"apiVersion\":\"helm.toolkit.fluxcd.io/v2\",\"kind\":\"HelmRelease\",\"metadata\":{\"name\":\"a\","
		       "\"namespace\":\"t\"},\"spec\":{\"interval\":\"1m\",\"chartRef\":{\"kind\":\"HelmChart\",\"name\":\"c\"},"
		       "\"upgrade\":{\"strategy\":{\"name\":\"RetryOnFailure\",\"retryInterval\":\"7s\"}},"
		       "\"install\":{\"strategy\":{\"name\":\"RetryOnFailure\"}}}}",
		       0, NULL);
	ck_assert_ptr_nonnull(o);
	st = json_pack("{s:s}", "lastAttemptedReleaseAction", "upgrade");
	ck_assert(requeue_retry_secs(o, st) == 7);
	json_object_set_new(st, "lastAttemptedReleaseAction", json_string("install"));
	ck_assert(requeue_retry_secs(o, st) == 300); /* Flux's default 5m */
	json_object_del(json_object_get(o, "spec"), "upgrade");
	json_object_set_new(st, "lastAttemptedReleaseAction", json_string("upgrade"));
	ck_assert(requeue_retry_secs(o, st) == 0);
	json_decref(st);
	json_decref(o);
	requeue_set_jitter(REQUEUE_JITTER_DEFAULT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("depends");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_depends);
	tcase_add_test(tc, test_event);
	tcase_add_test(tc, test_requeue);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
