/* tests/unit/test_noop.c — supervisor/noop.c: which HelmReleases a no-op
 * may be decided for without a worker, which request is Helm's storage
 * list, and the storage fingerprint (order-independent; any other name,
 * resourceVersion, count or a partial page changes or refuses it), and
 * the skim of the answers that decodes only their metadata. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/noop.h"
#include "tests/unit/unit_util.h"

int sv_verbose;

static int eligible(const char *json)
{
	json_error_t je;
	json_t *hr = json_loads(json, 0, &je);
	int r;
	ck_assert_msg(hr != NULL, "bad test JSON: %s", je.text);
	r = noop_eligible(hr);
	json_decref(hr);
	return r;
}

START_TEST(test_eligible)
{
	ck_assert_int_eq(eligible("{\"metadata\":{\"name\":\"a\"},\"spec\":{\"interval\":\"1m\"}}"), 1);
	ck_assert_int_eq(eligible("{\"spec\":{\"valuesFrom\":[]}}"), 1);
	ck_assert_int_eq(eligible("{\"spec\":{\"driftDetection\":{\"mode\":\"disabled\"}}}"), 1);
	ck_assert_int_eq(eligible("{\"spec\":{\"valuesFrom\":[{\"kind\":\"ConfigMap\",\"name\":\"v\"}]}}"), 0);
	ck_assert_int_eq(eligible("{\"spec\":{\"kubeConfig\":{\"secretRef\":{\"name\":\"k\"}}}}"), 0);
	ck_assert_int_eq(eligible("{\"spec\":{\"driftDetection\":{\"mode\":\"enabled\"}}}"), 0);
	ck_assert_int_eq(eligible("{\"spec\":{\"driftDetection\":{\"mode\":\"warn\"}}}"), 0);
	ck_assert_int_eq(eligible("{\"spec\":{\"test\":{\"enable\":true}}}"), 0);
	ck_assert_int_eq(eligible("{\"spec\":{\"suspend\":true}}"), 0);
	ck_assert_int_eq(eligible("{\"metadata\":{\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"},\"spec\":{}}"), 0);
	ck_assert_int_eq(eligible("{\"metadata\":{\"annotations\":{\"reconcile.fluxcd.io/forceAt\":\"x\"}},\"spec\":{}}"), 0);
	ck_assert_int_eq(eligible("{\"metadata\":{\"annotations\":{\"reconcile.fluxcd.io/resetAt\":\"x\"}},\"spec\":{}}"), 0);
	ck_assert_int_eq(eligible("{\"metadata\":{\"annotations\":{\"reconcile.fluxcd.io/requestedAt\":\"x\"}},\"spec\":{}}"), 1);
}
END_TEST

START_TEST(test_storage_list)
{
	ck_assert(noop_is_storage_list("/api/v1/namespaces/apps/secrets?labelSelector=name%3Dweb%2Cowner%3Dhelm&limit=1000", "apps"));
	ck_assert(!noop_is_storage_list("/api/v1/namespaces/apps/secrets?limit=10", "apps"));
	ck_assert(!noop_is_storage_list("/api/v1/namespaces/apps/secrets/sh.helm.release.v1.web.v1", "apps"));
	ck_assert(!noop_is_storage_list("/api/v1/namespaces/apps2/secrets?labelSelector=x", "apps"));
	ck_assert(!noop_is_storage_list("/api/v1/namespaces/apps/configmaps?labelSelector=x", "apps"));
	ck_assert(!noop_is_storage_list(NULL, "apps"));
}
END_TEST

static uint64_t fp_of(const char *body, int want_rc)
{
	uint64_t fp = 0;
	ck_assert_int_eq(noop_storage_fp(body, strlen(body), "web", &fp), want_rc);
	return fp;
}

#define ITEM(n, rv) "{\"metadata\":{\"name\":\"sh.helm.release.v1.web.v" n "\",\"resourceVersion\":\"" rv "\"}}"

START_TEST(test_storage_fp)
{
	uint64_t a = fp_of("{\"items\":[" ITEM("1", "10") "," ITEM("2", "12") "]}", 0);
	ck_assert(a == fp_of("{\"metadata\":{},\"items\":[" ITEM("2", "12") "," ITEM("1", "10") "]}", 0));
	/* another release's Secret (a label match of another name) does not count */
	ck_assert(a == fp_of("{\"items\":[" ITEM("1", "10") "," ITEM("2", "12") ",{\"metadata\":{\"name\":"
			     "\"sh.helm.release.v1.webx.v1\",\"resourceVersion\":\"3\"}}]}", 0));
	ck_assert(a != fp_of("{\"items\":[" ITEM("1", "10") "," ITEM("2", "13") "]}", 0));
	ck_assert(a != fp_of("{\"items\":[" ITEM("1", "10") "]}", 0));
	ck_assert(a != fp_of("{\"items\":[" ITEM("1", "10") "," ITEM("2", "12") "," ITEM("3", "14") "]}", 0));
	ck_assert(fp_of("{\"items\":[]}", 0) != a);
	fp_of("{\"metadata\":{\"continue\":\"abc\"},\"items\":[" ITEM("1", "10") "]}", -1);
	fp_of("{\"kind\":\"Status\"}", -1);
	fp_of("not json", -1);
	fp_of("{\"items\":[{\"metadata\":{\"name\":\"sh.helm.release.v1.web.v1\"}}]}", -1);
}
END_TEST

/* The answers are skimmed, only their metadata decoded: the rest of the
 * text (the release data, nested objects, escapes, blanks) is stepped over
 * as JSON structure, and what breaks it, is too deep, or names a member
 * twice is no answer at all. */
START_TEST(test_skim)
{
	uint64_t a = fp_of("{\"items\":[" ITEM("1", "10") "," ITEM("2", "12") "]}", 0);
	ck_assert(a == fp_of(" {\"kind\" : \"SecretList\", \"items\" : [ {\"data\":{\"release\":\"H4s\\\"I\\\\A}]\"},"
			     "\"n\":[1,-2.5e3,true,null,{}],\"metadata\":{\"name\":\"sh.helm.release.v1.web.v1\","
			     "\"resourceVersion\":\"10\"}} , " ITEM("2", "12") " ] } \n",
			     0));
	/* a name or resourceVersion with escapes reads as its value; a metadata
	 * that is no object names nothing; a name that is no string is no answer */
	ck_assert(a == fp_of("{\"items\":[{\"metadata\":{\"name\":\"sh.helm.release.v1.web\\u002ev1\","
			     "\"resourceVersion\":\"\\u00310\"}}," ITEM("2", "12") "]}",
			     0));
	fp_of("{\"items\":[{\"metadata\":\"x\"}]}", -1);
	fp_of("{\"items\":[{\"metadata\":{\"name\":7,\"resourceVersion\":\"1\"}}]}", -1);
	fp_of("{\"items\":[" ITEM("1", "10") "]} x", -1);             /* more after the value */
	fp_of("{\"items\":[" ITEM("1", "10") "]", -1);                /* cut short */
	fp_of("{\"items\":[" ITEM("1", "10") "],\"items\":[]}", -1); /* a member twice */
	fp_of("{\"items\":[{\"metadata\":{\"name\":\"a\",\"name\":\"b\"}}]}", -1);
	fp_of("{\"items\":[" ITEM("1", "10") "],\"x\":\"a\\\"}", -1); /* a string not closed (its quote escaped) */
	fp_of("{\"items\":[" ITEM("1", "10") ",]}", -1);
	fp_of("{\"items\":[" ITEM("1", "10") "] \"x\":1}", -1);
	fp_of("{\"items\":{}}", -1);
	fp_of("[]", -1);
	{
		char deep[400];
		size_t n = 0;
		n += (size_t)snprintf(deep, sizeof deep, "{\"items\":[],\"x\":");
		for (int i = 0; i < 70; i++)
			deep[n++] = '[';
		for (int i = 0; i < 70; i++)
			deep[n++] = ']';
		snprintf(deep + n, sizeof deep - n, "}");
		fp_of(deep, -1);
	}
	/* a write's answer: its metadata names the Secret */
	{
		noop_store st;
		const char *big = "{\"apiVersion\":\"v1\",\"data\":{\"release\":\"QUJD\\u0041\"},\"metadata\":"
				  "{\"name\":\"sh.helm.release.v1.web.v2\",\"resourceVersion\":\"20\"},\"type\":\"x\"}";
		const char *list = "{\"items\":[" ITEM("1", "10") "]}";
		ck_assert_int_eq(noop_store_load(&st, list, strlen(list), "web"), 0);
		noop_store_write(&st, "POST", "/api/v1/namespaces/apps/secrets", "apps", "web", 201, big, strlen(big));
		ck_assert(st.ok);
		ck_assert(noop_store_fp(&st) == fp_of("{\"items\":[" ITEM("1", "10") "," ITEM("2", "20") "]}", 0));
		ck_assert_uint_eq(st.n, 2);
		noop_store_write(&st, "POST", "/api/v1/namespaces/apps/secrets", "apps", "web", 201, big, strlen(big) - 1);
		ck_assert(!st.ok); /* cut short: not followed */
	}
}
END_TEST

/* The answers to a worker's writes of its storage Secrets update what its
 * storage list loaded, to the fingerprint the next list of the same
 * Secrets has; writes it cannot follow end the record. */
START_TEST(test_store_write)
{
	static const char ns_coll[] = "/api/v1/namespaces/apps/secrets";
	noop_store st;
	const char *list = "{\"items\":[" ITEM("1", "10") "]}";
	ck_assert_int_eq(noop_store_load(&st, list, strlen(list), "web"), 0);
	ck_assert(noop_store_fp(&st) == fp_of(list, 0));
	/* a create (named by its answer), an update, a delete */
	noop_store_write(&st, "POST", ns_coll, "apps", "web", 201, ITEM("2", "20"), strlen(ITEM("2", "20")));
	noop_store_write(&st, "PUT", "/api/v1/namespaces/apps/secrets/sh.helm.release.v1.web.v2", "apps", "web", 200,
			 ITEM("2", "21"), strlen(ITEM("2", "21")));
	ck_assert(st.ok);
	ck_assert(noop_store_fp(&st) == fp_of("{\"items\":[" ITEM("2", "21") "," ITEM("1", "10") "]}", 0));
	noop_store_write(&st, "DELETE", "/api/v1/namespaces/apps/secrets/sh.helm.release.v1.web.v1", "apps", "web", 200,
			 "{}", 2);
	ck_assert(noop_store_fp(&st) == fp_of("{\"items\":[" ITEM("2", "21") "]}", 0));
	/* refused writes, other Secrets, other namespaces and reads change nothing */
	noop_store_write(&st, "PUT", "/api/v1/namespaces/apps/secrets/sh.helm.release.v1.web.v2", "apps", "web", 409,
			 "{}", 2);
	noop_store_write(&st, "PUT", "/api/v1/namespaces/apps/secrets/other", "apps", "web", 200, "{}", 2);
	noop_store_write(&st, "PUT", "/api/v1/namespaces/apps/secrets/sh.helm.release.v1.webx.v1", "apps", "web", 200,
			 "{}", 2);
	noop_store_write(&st, "POST", "/api/v1/namespaces/other/secrets", "apps", "web", 201, "{}", 2);
	noop_store_write(&st, "GET", "/api/v1/namespaces/apps/secrets/sh.helm.release.v1.web.v2", "apps", "web", 200,
			 "{}", 2);
	noop_store_write(&st, "PATCH", "/apis/apps/v1/namespaces/apps/deployments/web", "apps", "web", 200, "{}", 2);
	ck_assert(st.ok);
	ck_assert(noop_store_fp(&st) == fp_of("{\"items\":[" ITEM("2", "21") "]}", 0));
	/* a write without an answer: its outcome is unknown */
	noop_store_write(&st, "PUT", "/api/v1/namespaces/apps/secrets/sh.helm.release.v1.web.v2", "apps", "web", 0, "", 0);
	ck_assert(!st.ok);
	/* an answer that does not say the new resourceVersion */
	ck_assert_int_eq(noop_store_load(&st, list, strlen(list), "web"), 0);
	noop_store_write(&st, "POST", ns_coll, "apps", "web", 201, "{\"kind\":\"Status\"}", 18);
	ck_assert(!st.ok);
	/* a collection delete */
	ck_assert_int_eq(noop_store_load(&st, list, strlen(list), "web"), 0);
	noop_store_write(&st, "DELETE", ns_coll, "apps", "web", 200, "{}", 2);
	ck_assert(!st.ok);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("noop");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_eligible);
	tcase_add_test(tc, test_storage_list);
	tcase_add_test(tc, test_storage_fp);
	tcase_add_test(tc, test_store_write);
	tcase_add_test(tc, test_skim);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
