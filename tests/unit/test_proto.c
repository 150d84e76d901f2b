/* tests/unit/test_proto.c — message codecs: round trips and hostile input. */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "proto/jload.h"
#include "proto/proto.h"
#include "tests/unit/unit_util.h"

START_TEST(test_kube_request_roundtrip)
{
	bh_buf b = BH_BUF_INIT;
	bh_error e;
	proto_kube_request r;
	proto_header h[] = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
	ck_assert_int_eq(proto_kube_request_encode(&b, "POST", "/api/v1/namespaces/a/secrets", h, 2, "{}", 2), 0);
	ck_assert_int_eq(proto_kube_request_decode((unsigned char *)b.data, b.len, &r, &e), 0);
	ck_assert_str_eq(r.method, "POST");
	ck_assert_str_eq(r.path, "/api/v1/namespaces/a/secrets");
	ck_assert_uint_eq(r.nheaders, 2);
	ck_assert_str_eq(proto_kube_request_header(&r, "content-type"), "application/json");
	ck_assert_ptr_null(proto_kube_request_header(&r, "Impersonate-User"));
	ck_assert_uint_eq(r.body_len, 2);
	proto_kube_request_free(&r);
	/* every truncation of a valid message is refused */
	for (size_t n = 0; n < b.len; n++) {
		ck_assert_int_lt(proto_kube_request_decode((unsigned char *)b.data, n, &r, &e), 0);
	}
	bh_buf_free(&b);
}
END_TEST

START_TEST(test_kube_request_hostile)
{
	bh_buf b = BH_BUF_INIT;
	bh_error e;
	proto_kube_request r;
	proto_header bad[] = {{"X Bad", "v"}};
	proto_header ctl[] = {{"X", "a\r\nInjected: 1"}};
	ck_assert_int_eq(proto_kube_request_encode(&b, "TRACE", "/x", NULL, 0, "", 0), 0);
	ck_assert_int_eq(proto_kube_request_decode((unsigned char *)b.data, b.len, &r, &e), BH_EPROTO);
	ck_assert(strstr(e.msg, "method") != NULL);
	bh_buf_reset(&b);
	proto_kube_request_encode(&b, "GET", "relative", NULL, 0, "", 0);
	ck_assert_int_eq(proto_kube_request_decode((unsigned char *)b.data, b.len, &r, &e), BH_EPROTO);
	bh_buf_reset(&b);
	proto_kube_request_encode(&b, "GET", "/a\nb", NULL, 0, "", 0);
	ck_assert_int_eq(proto_kube_request_decode((unsigned char *)b.data, b.len, &r, &e), BH_EPROTO);
	bh_buf_reset(&b);
	proto_kube_request_encode(&b, "GET", "/a", bad, 1, "", 0);
	ck_assert_int_eq(proto_kube_request_decode((unsigned char *)b.data, b.len, &r, &e), BH_EPROTO);
	bh_buf_reset(&b);
	proto_kube_request_encode(&b, "GET", "/a", ctl, 1, "", 0);
	ck_assert_int_eq(proto_kube_request_decode((unsigned char *)b.data, b.len, &r, &e), BH_EPROTO);
	/* trailing garbage */
	bh_buf_reset(&b);
	proto_kube_request_encode(&b, "GET", "/a", NULL, 0, "", 0);
	bh_buf_putc(&b, 'x');
	ck_assert_int_eq(proto_kube_request_decode((unsigned char *)b.data, b.len, &r, &e), BH_EPROTO);
	ck_assert(strstr(e.msg, "trailing") != NULL);
	/* a huge header count is refused without allocating */
	{
		unsigned char m[] = {3, 0, 0, 0, 'G', 'E', 'T', 2, 0, 0, 0, '/', 'a', 0xff, 0xff, 0xff, 0xff};
		ck_assert_int_eq(proto_kube_request_decode(m, sizeof m, &r, &e), BH_ELIMIT);
	}
	/* a string length pointing past the end */
	{
		unsigned char m[] = {0xff, 0xff, 0xff, 0x7f, 'G'};
		ck_assert_int_lt(proto_kube_request_decode(m, sizeof m, &r, &e), 0);
	}
	bh_buf_free(&b);
}
END_TEST

START_TEST(test_response_seccomp_str)
{
	bh_buf b = BH_BUF_INIT;
	bh_error e;
	uint32_t st, nr, arch;
	const unsigned char *body;
	size_t bl;
	unsigned char sc[8];
	proto_kube_response_encode(&b, 201, "{\"a\":1}", 7);
	ck_assert_int_eq(proto_kube_response_decode((unsigned char *)b.data, b.len, &st, &body, &bl, &e), 0);
	ck_assert_uint_eq(st, 201);
	ck_assert_uint_eq(bl, 7);
	ck_assert(memcmp(body, "{\"a\":1}", 7) == 0);
	{ /* the head a gathering writer sends before the body is the encoding's start */
		unsigned char head[PROTO_KUBE_RESPONSE_HEAD];
		proto_kube_response_head(head, 201, 7);
		ck_assert_uint_eq(b.len, sizeof head + 7);
		ck_assert(memcmp(head, b.data, sizeof head) == 0);
	}
	proto_seccomp_encode(sc, 41, 0xc000003e);
	ck_assert_int_eq(proto_seccomp_decode(sc, 8, &nr, &arch, &e), 0);
	ck_assert_uint_eq(nr, 41);
	ck_assert_uint_eq(arch, 0xc000003e);
	ck_assert_int_eq(proto_seccomp_decode(sc, 7, &nr, &arch, &e), BH_EPROTO);
	bh_buf_reset(&b);
	proto_str_encode(&b, "line\twith tab\n", 14);
	ck_assert_int_eq(proto_str_decode((unsigned char *)b.data, b.len, 100, 1, &body, &bl, &e), 0);
	{ /* proto_str_head is the encoding's start */
		unsigned char head[PROTO_STR_HEAD];
		proto_str_head(head, 14);
		ck_assert_uint_eq(b.len, sizeof head + 14);
		ck_assert(memcmp(head, b.data, sizeof head) == 0);
	}
	bh_buf_reset(&b);
	proto_str_encode(&b, "esc\033[2J", 7);
	ck_assert_int_eq(proto_str_decode((unsigned char *)b.data, b.len, 100, 1, &body, &bl, &e), BH_EPROTO);
	ck_assert_int_eq(proto_str_decode((unsigned char *)b.data, b.len, 3, 0, &body, &bl, &e), BH_ELIMIT);
	bh_buf_free(&b);
}
END_TEST

START_TEST(test_result)
{
	bh_error e;
	proto_result r;
	const char *ok = "{\"ready\":true,\"reason\":\"InstallSucceeded\",\"message\":\"Helm install succeeded\","
			 "\"action\":\"install\",\"release\":{\"name\":\"demo\",\"namespace\":\"team-a\",\"version\":1,"
			 "\"status\":\"deployed\",\"chartName\":\"demo\",\"chartVersion\":\"0.1.0\"}}";
	ck_assert_int_eq(proto_result_decode((const unsigned char *)ok, strlen(ok), &r, &e), 0);
	ck_assert(r.ready);
	ck_assert_str_eq(r.reason, "InstallSucceeded");
	ck_assert(r.has_release);
	ck_assert_int_eq(r.release.version, 1);
	ck_assert_str_eq(r.release.namespace_, "team-a");
	ck_assert_ptr_null(r.release.digest);
	proto_result_free(&r);
	static const char *bad[] = {
		"[]", "{\"ready\":1,\"reason\":\"A\",\"message\":\"\"}",
		"{\"ready\":true,\"reason\":\"not camel\",\"message\":\"\"}",
		"{\"ready\":true,\"reason\":\"Ok\"}",
		"{\"ready\":true,\"reason\":\"Ok\",\"message\":\"\",\"ready\":false}",
		"{\"ready\":true,\"reason\":\"Ok\",\"message\":\"\",\"release\":{\"name\":\"a\",\"namespace\":\"b\","
		"\"status\":\"x\",\"chartName\":\"c\",\"chartVersion\":\"1\",\"version\":-3}}",
		"{\"ready\":true,\"reason\":\"Ok\",\"message\":\"a\\u0000b\"}",
		"{\"ready\":true,",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_int_lt(proto_result_decode((const unsigned char *)bad[i], strlen(bad[i]), &r, &e), 0);
}
END_TEST

START_TEST(test_result_status)
{
	bh_error e;
	proto_result r;
	const char *ok =
		"{\"ready\":false,\"reason\":\"RollbackSucceeded\",\"message\":\"m\",\"requeue\":\"now\",\"status\":{"
		"\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\",\"observedGeneration\":2,\"reason\":\"RollbackSucceeded\","
		"\"message\":\"Helm rollback\\nto v1\"},{\"type\":\"Remediated\",\"status\":\"True\",\"observedGeneration\":2,"
		"\"reason\":\"RollbackSucceeded\",\"message\":\"x\"}],"
		"\"history\":[{\"apiVersion\":\"v2\",\"name\":\"a\",\"namespace\":\"b\",\"version\":3,\"status\":\"deployed\","
		"\"testHooks\":{\"a-test\":{\"phase\":\"Succeeded\",\"lastStarted\":\"2026-01-01T00:00:00Z\"}}}],"
		"\"upgradeFailures\":1,\"lastAttemptedReleaseAction\":\"upgrade\"}}";
	json_t *st;
	ck_assert_int_eq(proto_result_decode((const unsigned char *)ok, strlen(ok), &r, &e), 0);
	ck_assert_int_eq(r.requeue, PROTO_REQUEUE_NOW);
	ck_assert_ptr_null(r.events);
	st = r.status;
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(json_array_size(json_object_get(st, "conditions")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(st, "upgradeFailures")), 1);
	{
		json_t *h0 = json_array_get(json_object_get(st, "history"), 0);
		json_t *th = json_object_get(json_object_get(h0, "testHooks"), "a-test");
		ck_assert_str_eq(json_string_value(json_object_get(th, "phase")), "Succeeded");
	}
	proto_result_free(&r);
	{
		const char *ev = "{\"ready\":true,\"reason\":\"Ok\",\"message\":\"\",\"events\":[{\"type\":\"Warning\","
				 "\"reason\":\"UpgradeFailed\",\"message\":\"a\\nb\",\"revision\":\"1.0.0\",\"token\":\"sha256:00\"}]}";
		ck_assert_int_eq(proto_result_decode((const unsigned char *)ev, strlen(ev), &r, &e), 0);
		ck_assert_int_eq(json_array_size((json_t *)r.events), 1);
		ck_assert_str_eq(json_string_value(json_object_get(json_array_get((json_t *)r.events, 0), "revision")), "1.0.0");
		proto_result_free(&r);
	}
#define R(x) "{\"ready\":true,\"reason\":\"Ok\",\"message\":\"\",\"status\":" x "}"
#define C(t, st, reason) "{\"conditions\":[{\"type\":\"" t "\",\"status\":\"" st "\",\"observedGeneration\":1,\"reason\":\"" reason "\",\"message\":\"\"}]}"
	static const char *bad[] = {
		R("[]"),
		R("{\"spec\":{}}"),                      /* not in the catalogue */
		R(C("Available", "True", "Ok")),        /* not a worker condition */
		R(C("Ready", "Maybe", "Ok")),
		R(C("Ready", "True", "not camel")),
		R("{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"Ok\",\"message\":\"\"}]}"),
		R("{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"observedGeneration\":1,\"reason\":\"Ok\",\"message\":\"\"},"
		  "{\"type\":\"Ready\",\"status\":\"True\",\"observedGeneration\":1,\"reason\":\"Ok\",\"message\":\"\"}]}"),
		R("{\"failures\":-1}"),
		R("{\"failures\":\"1\"}"),
		R("{\"lastAttemptedReleaseAction\":\"rm -rf\"}"),
		R("{\"lastAttemptedRevision\":\"a\\nb\"}"),
		R("{\"history\":[{\"name\":\"a\",\"namespace\":\"b\",\"version\":0}]}"),
		R("{\"history\":[{\"name\":\"a\",\"namespace\":\"b\",\"version\":1,\"extra\":1}]}"),
		R("{\"history\":[{\"name\":\"a\",\"namespace\":\"b\",\"version\":1,\"testHooks\":{\"t\":{\"phase\":1}}}]}"),
		R("{\"history\":[1,2,3,4,5,6,7,8,9,10,11]}"),
		"{\"ready\":true,\"reason\":\"Ok\",\"message\":\"\",\"requeue\":\"later\"}",
		"{\"ready\":true,\"reason\":\"Ok\",\"message\":\"\",\"events\":[{\"type\":\"Error\",\"reason\":\"A\",\"message\":\"\"}]}",
		"{\"ready\":true,\"reason\":\"Ok\",\"message\":\"\",\"events\":[{\"type\":\"Normal\",\"reason\":\"a b\",\"message\":\"\"}]}",
		"{\"ready\":true,\"reason\":\"Ok\",\"message\":\"\",\"events\":[{\"type\":\"Normal\",\"reason\":\"A\"}]}",
		"{\"ready\":true,\"reason\":\"Ok\",\"message\":\"\",\"events\":[{\"type\":\"Normal\",\"reason\":\"A\",\"message\":\"\",\"x\":1}]}",
		"{\"ready\":true,\"reason\":\"Ok\",\"message\":\"\",\"events\":[1,2,3,4,5,6,7,8,9]}",
	};
#undef R
#undef C
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = proto_result_decode((const unsigned char *)bad[i], strlen(bad[i]), &r, &e);
		if (rc >= 0)
			ck_abort_msg("accepted bad status %zu: %s", i, bad[i]);
	}
}
END_TEST

/* jload_new gives json_loadb's tree (same types, same member order) or
 * its failure; its own reader takes the subset and leaves the rest. */
static void same_as_jansson(const char *in, size_t flags, int subset)
{
	json_error_t je;
	json_t *a = jload_new(in, strlen(in), flags, &je), *b = json_loadb(in, strlen(in), flags, NULL);
	json_t *f = jload_subset_new(in, strlen(in), flags);
	if (!a || !b) {
		ck_assert_msg(!a && !b, "jload_new and json_loadb disagree on %s", in);
		ck_assert_msg(je.text[0] != '\0', "no error text for %s", in);
	} else {
		char *da = json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY), *db = json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY);
		ck_assert_msg(json_equal(a, b) && !strcmp(da, db), "%s: %s vs %s", in, da, db);
		free(da);
		free(db);
	}
	ck_assert_msg(!f == !subset, "subset reader %s %s", f ? "took" : "left", in);
	if (f) {
		char *da = json_dumps(f, JSON_COMPACT), *db = json_dumps(b, JSON_COMPACT);
		ck_assert_str_eq(da, db);
		free(da);
		free(db);
	}
	json_decref(a);
	json_decref(b);
	json_decref(f);
}

START_TEST(test_jload)
{
	static const char *const subset[] = {
		"{}", "[]", " \t\r\n{ \"a\" : [ 1 , -2 , 0 , -0 , 123456789012345678 , true , false , null ] } \n",
		"{\"z\":1,\"a\":2,\"m\":{\"y\":[],\"b\":{}}}", "{\"s\":\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\te\"}",
		"{\"k\\n\":\"v\",\"\":\"\"}", "[[[[[[[[[[1]]]]]]]]]]", "{\"a\":1,\"a\":2,\"b\":3}",
		"[\"\",\"x\",{\"a\\tb\":{\"c\\\"\":\"d\\\\\"}}]",
	};
	static const char *const other[] = {
		"", " ", "1", "\"s\"", "true", "null", "{", "[", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]", "[1 2]",
		"{\"a\":1}x", "{} {}", "[1.5]", "[1e3]", "[1E3]", "[-]", "[01]", "[-01]", "[1234567890123456789]",
		"[\"\\u0041\"]", "[\"\\u0000\"]", "[\"\xc3\xa9\"]", "[\"\xff\"]", "[\"a\tb\"]", "[\"\\x\"]",
		"[\"abc", "[tru]", "[truex]", "[nul]", "[fals]", "{1:2}", "{'a':1}", "[\"a\"\"b\"]", "[+1]",
		"{\"\\u00e9\":1}", "[1]\x01",
	};
	char deep[2 * (JLOAD_MAX_DEPTH + 2) + 1];
	for (size_t i = 0; i < sizeof subset / sizeof subset[0]; i++) {
		same_as_jansson(subset[i], 0, 1);
		same_as_jansson(subset[i], JSON_REJECT_DUPLICATES, !strstr(subset[i], "\"a\":1,\"a\""));
	}
	for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
		same_as_jansson(other[i], 0, 0);
		same_as_jansson(other[i], JSON_REJECT_DUPLICATES, 0);
	}
	for (int d = JLOAD_MAX_DEPTH; d <= JLOAD_MAX_DEPTH + 1; d++) { /* the deepest nesting it reads */
		memset(deep, '[', (size_t)d);
		memset(deep + d, ']', (size_t)d);
		deep[2 * d] = '\0';
		same_as_jansson(deep, 0, d <= JLOAD_MAX_DEPTH);
	}
	{ /* a flag it does not know goes to json_loadb */
		json_t *v = jload_subset_new("[1]", 3, JSON_DECODE_ANY);
		ck_assert_ptr_null(v);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("proto");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_result_status);
	tcase_add_test(tc, test_kube_request_roundtrip);
	tcase_add_test(tc, test_kube_request_hostile);
	tcase_add_test(tc, test_response_seccomp_str);
	tcase_add_test(tc, test_result);
	tcase_add_test(tc, test_jload);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
