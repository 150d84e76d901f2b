/* tests/unit/test_strvals.c — helm/strvals against the behaviour of Helm's
 * pkg/strvals (cases from its parser_test.go and the conformance notes'
 * "Number typing" section). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "helm/strvals.h"
#include "tests/unit/unit_util.h"

typedef struct tcase {
	enum strvals_mode mode;
	const char *in;
	const char *want; /* JSON (1 = int64, 1.0 = float64), NULL when an error is expected */
	const char *err;  /* substring of the error */
} tcase;

static const tcase cases[] = {
	{STRVALS_TYPED, "name=value", "{\"name\":\"value\"}", NULL},
	{STRVALS_TYPED, "long_int_string=1234567890", "{\"long_int_string\":1234567890}", NULL},
	{STRVALS_TYPED, "boolean=true,b2=FALSE", "{\"boolean\":true,\"b2\":false}", NULL},
	{STRVALS_TYPED, "is_null=null,n2=NULL", "{\"is_null\":null,\"n2\":null}", NULL},
	{STRVALS_TYPED, "zero=0,mz=-0,p=+5,neg=-3", "{\"zero\":0,\"mz\":0,\"p\":5,\"neg\":-3}", NULL},
	{STRVALS_TYPED, "lz=00009,f=1.5,e=1e3,h=0x10,u=1_000", "{\"lz\":\"00009\",\"f\":\"1.5\",\"e\":\"1e3\",\"h\":\"0x10\",\"u\":\"1_000\"}", NULL},
	{STRVALS_TYPED, "big=12345678901234567890", "{\"big\":\"12345678901234567890\"}", NULL},
	{STRVALS_TYPED, "q=\"\"", "{\"q\":\"\\\"\\\"\"}", NULL},
	{STRVALS_TYPED, "name=value,foo=bar", "{\"name\":\"value\",\"foo\":\"bar\"}", NULL},
	{STRVALS_TYPED, "name=value,foo=", "{\"name\":\"value\",\"foo\":\"\"}", NULL},
	{STRVALS_TYPED, "name1=,name2=foo", "{\"name1\":\"\",\"name2\":\"foo\"}", NULL},
	{STRVALS_TYPED, "name=value,foo", NULL, "key \"foo\" has no value"},
	{STRVALS_TYPED, "name", NULL, "key \"name\" has no value"},
	{STRVALS_TYPED, "name1,name2=", NULL, "key \"name1\" has no value (cannot end with ,)"},
	{STRVALS_TYPED, "a.b=c", "{\"a\":{\"b\":\"c\"}}", NULL},
	{STRVALS_TYPED, "a.b=c,a.d=e", "{\"a\":{\"b\":\"c\",\"d\":\"e\"}}", NULL},
	{STRVALS_TYPED, "list={a,b,c}", "{\"list\":[\"a\",\"b\",\"c\"]}", NULL},
	{STRVALS_TYPED, "list={1,true,x},z=1", "{\"list\":[1,true,\"x\"],\"z\":1}", NULL},
	{STRVALS_TYPED, "a={}", "{\"a\":[\"\"]}", NULL},
	{STRVALS_TYPED, "list={a,b", NULL, "list must terminate with '}'"},
	{STRVALS_TYPED, "list[0]=foo", "{\"list\":[\"foo\"]}", NULL},
	{STRVALS_TYPED, "list[0].foo=bar", "{\"list\":[{\"foo\":\"bar\"}]}", NULL},
	{STRVALS_TYPED, "list[1]=foo", "{\"list\":[null,\"foo\"]}", NULL},
	{STRVALS_TYPED, "list[0]=a,list[1]=b", "{\"list\":[\"a\",\"b\"]}", NULL},
	{STRVALS_TYPED, "name.list[0]=foo", "{\"name\":{\"list\":[\"foo\"]}}", NULL},
	{STRVALS_TYPED, "a[0][1]=x", "{\"a\":[[null,\"x\"]]}", NULL},
	{STRVALS_TYPED, "a[0]", "{\"a\":[]}", NULL},
	{STRVALS_TYPED, "name=one\\,two", "{\"name\":\"one,two\"}", NULL},
	{STRVALS_TYPED, "key\\.with\\.dots=x", "{\"key.with.dots\":\"x\"}", NULL},
	{STRVALS_TYPED, "list[-1]=x", NULL, "negative -1 index not allowed"},
	{STRVALS_TYPED, "list[65537]=x", NULL, "index of 65537 is greater than maximum supported index of 65536"},
	{STRVALS_TYPED, "list[x]=1", NULL, "error parsing index: strconv.Atoi: parsing \"x\": invalid syntax"},
	{STRVALS_TYPED, "list[0]x=1", NULL, "unexpected data at end of array index: ['x']"},
	{STRVALS_TYPED, "x=1,x.y=2", NULL, "unable to parse key: interface conversion: interface {} is int64, not map[string]interface {}"},
	{STRVALS_TYPED, "x=1,x[0]=2", NULL, "unable to parse key: interface conversion: interface {} is int64, not []interface {}"},
	{STRVALS_TYPED, "a.=1", NULL, "key map \"a\" has no value"},
	{STRVALS_TYPED, "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.aa.bb.cc.dd.ee.ff=1", NULL,
	 "value name nested level is greater than maximum supported nested level of 30"},
	{STRVALS_STRING, "n=1,b=true,l={1,2}", "{\"n\":\"1\",\"b\":\"true\",\"l\":[\"1\",\"2\"]}", NULL},
	{STRVALS_JSON, "a=[1,2],b={\"x\":true}", "{\"a\":[1.0,2.0],\"b\":{\"x\":true}}", NULL},
	{STRVALS_JSON, "a=", "{\"a\":null}", NULL},
	{STRVALS_JSON, "a=\"s\", b=2", "{\"a\":\"s\",\" b\":2.0}", NULL},
	{STRVALS_JSON, "l[1]=3", "{\"l\":[null,3.0]}", NULL},
	{STRVALS_JSON, "a=[1,", NULL, ""},
	{STRVALS_LITERAL, "a=b,c=d", "{\"a\":\"b,c=d\"}", NULL},
	{STRVALS_LITERAL, "a.b\\c={x}", "{\"a\":{\"b\\\\c\":\"{x}\"}}", NULL},
	{STRVALS_LITERAL, "l[0]=x", "{\"l\":[\"x\"]}", NULL},
};

START_TEST(test_cases)
{
	const tcase *c = &cases[_i];
	json_t *dest = json_object();
	bh_error err;
	bh_error_clear(&err);
	int rc = strvals_parse_into(c->in, dest, c->mode, NULL, NULL, &err);
	if (c->want) {
		ck_assert_msg(rc == 0, "%s: unexpected error %s", c->in, err.msg);
		json_t *want = json_loads(c->want, 0, NULL);
		ck_assert_ptr_nonnull(want);
		char *got = json_dumps(dest, JSON_SORT_KEYS | JSON_COMPACT);
		ck_assert_msg(json_equal(want, dest), "%s: got %s want %s", c->in, got, c->want);
		free(got);
		json_decref(want);
	} else {
		ck_assert_msg(rc < 0, "%s: expected an error", c->in);
		ck_assert_msg(strstr(err.msg, c->err) != NULL, "%s: error %s lacks %s", c->in, err.msg, c->err);
	}
	json_decref(dest);
}
END_TEST

START_TEST(test_nested_index_limit)
{
	/* a[0][0][0]... deeper than our bound: refused, not a stack overflow */
	size_t n = 5000;
	char *s = malloc(1 + n * 3 + 3);
	strcpy(s, "a");
	for (size_t i = 0; i < n; i++)
		strcat(s, "[0]");
	strcat(s, "=1");
	json_t *dest = json_object();
	bh_error err;
	ck_assert_int_lt(strvals_parse_into(s, dest, STRVALS_TYPED, NULL, NULL, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "nested deeper"));
	json_decref(dest);
	free(s);
}
END_TEST

static json_t *reader(const char *path, void *ctx, bh_error *err)
{
	(void)ctx;
	if (!strcmp(path, "missing"))
		return bh_error_set(err, BH_EIO, "open missing: no such file or directory"), NULL;
	return json_string("file contents");
}

START_TEST(test_set_file)
{
	json_t *dest = json_object();
	bh_error err;
	ck_assert_int_eq(strvals_parse_into("a=some/path", dest, STRVALS_FILE, reader, NULL, &err), 0);
	ck_assert_str_eq(json_string_value(json_object_get(dest, "a")), "file contents");
	ck_assert_int_lt(strvals_parse_into("b=missing", dest, STRVALS_FILE, reader, NULL, &err), 0);
	ck_assert_str_eq(err.msg, "open missing: no such file or directory");
	json_decref(dest);
}
END_TEST

START_TEST(test_merge_into_existing)
{
	json_t *dest = json_loads("{\"a\":{\"x\":1.0},\"l\":[\"p\",\"q\"]}", 0, NULL);
	bh_error err;
	ck_assert_int_eq(strvals_parse_into("a.y=2,l[1]=r", dest, STRVALS_TYPED, NULL, NULL, &err), 0);
	json_t *want = json_loads("{\"a\":{\"x\":1.0,\"y\":2},\"l\":[\"p\",\"r\"]}", 0, NULL);
	ck_assert(json_equal(want, dest));
	json_decref(want);
	json_decref(dest);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("strvals");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_cases, 0, (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(tc, test_nested_index_limit);
	tcase_add_test(tc, test_set_file);
	tcase_add_test(tc, test_merge_into_existing);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
