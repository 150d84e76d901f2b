/* tests/unit/test_funcs_paths.c — unit tests of the Sprig path and URL functions (tmpl/funcs_paths.c):
 * corner cases the conformance vectors miss, with goldens from the real Helm
 * v4.1.4 (see funcs_golden.h), plus limits and randomness checks. */
#include "tests/unit/funcs_golden.h"
#include "tests/unit/unit_util.h"

/* Generated from helm v4.1.4 output. */
static const fgolden goldens[] = {
	{"clean_more", "{{ clean \"a/../../b\" }}|{{ clean \"/../x\" }}|{{ clean \"a//b/./c/\" }}|{{ clean \"./\" }}|{{ clean \"../../\" }}|{{ clean \"/a/b/../../..\" }}", "{}", 0, "../b|/x|a/b/c|.|../..|/"},
	{"base_dir_more", "{{ base \"///\" }}|{{ dir \"/\" }}|{{ dir \"a/b/\" }}|{{ dir \"//a\" }}|{{ ext \"a.b/c\" }}|{{ ext \"x.tar.gz\" }}|{{ isAbs \"\" }}", "{}", 0, "/|/|a/b|/||.gz|false"},
	{"url_ipv6_zone", "{{ urlParse \"http://[fe80::1%25en0]:8080/x\" | toJson }}", "{}", 0, "{\"fragment\":\"\",\"host\":\"[fe80::1%en0]:8080\",\"hostname\":\"fe80::1%en0\",\"opaque\":\"\",\"path\":\"/x\",\"query\":\"\",\"scheme\":\"http\",\"userinfo\":\"\"}"},
	{"url_userinfo_escapes", "{{ urlParse \"http://a%40b:p%3Ass@h/\" | toJson }}|{{ urlParse \"http://a%40b:p%3Ass@h/\" | urlJoin }}", "{}", 0, "{\"fragment\":\"\",\"host\":\"h\",\"hostname\":\"h\",\"opaque\":\"\",\"path\":\"/\",\"query\":\"\",\"scheme\":\"http\",\"userinfo\":\"a%40b:p%3Ass\"}|http://a%40b:p%3Ass@h/"},
	{"url_path_escapes", "{{ urlParse \"http://h/a%2Fb%3Fc\" | toJson }}|{{ urlParse \"http://h/a%2Fb%3Fc\" | urlJoin }}", "{}", 0, "{\"fragment\":\"\",\"host\":\"h\",\"hostname\":\"h\",\"opaque\":\"\",\"path\":\"/a/b?c\",\"query\":\"\",\"scheme\":\"http\",\"userinfo\":\"\"}|http://h/a/b%3Fc"},
	{"url_err_port", "{{ urlParse \"http://h:abc/\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <urlParse \"http://h:abc/\">: error calling urlParse: unable to parse url: parse \"http://h:abc/\": invalid port \":abc\" after host"},
	{"url_err_fragment", "{{ urlParse \"http://h/p#f%zz\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <urlParse \"http://h/p#f%zz\">: error calling urlParse: unable to parse url: parse \"http://h/p#f%zz\": invalid URL escape \"%zz\""},
	{"url_err_colon", "{{ urlParse \"a:b/c:d\" | toJson }}|{{ urlParse \"1a:b\" | toJson }}", "{}", 1, "template: vec/templates/test.yaml:1:37: executing \"vec/templates/test.yaml\" at <urlParse \"1a:b\">: error calling urlParse: unable to parse url: parse \"1a:b\": first path segment in URL cannot contain colon"},
	{"url_err_relcolon", "{{ urlParse \"ab/c:d\" | toJson }}|{{ urlParse \"./a:b\" | toJson }}", "{}", 0, "{\"fragment\":\"\",\"host\":\"\",\"hostname\":\"\",\"opaque\":\"\",\"path\":\"ab/c:d\",\"query\":\"\",\"scheme\":\"\",\"userinfo\":\"\"}|{\"fragment\":\"\",\"host\":\"\",\"hostname\":\"\",\"opaque\":\"\",\"path\":\"./a:b\",\"query\":\"\",\"scheme\":\"\",\"userinfo\":\"\"}"},
	{"url_err_relcolon2", "{{ urlParse \"a:b\" | toJson }}|{{ urlParse \":x\" }}", "{}", 1, "template: vec/templates/test.yaml:1:33: executing \"vec/templates/test.yaml\" at <urlParse \":x\">: error calling urlParse: unable to parse url: parse \":x\": missing protocol scheme"},
	{"url_err_ctl", "{{ urlParse \"http://h/\\t\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <urlParse \"http://h/\\t\">: error calling urlParse: unable to parse url: parse \"http://h/\\t\": net/url: invalid control character in URL"},
	{"url_err_ipv4lit", "{{ urlParse \"http://[1.2.3.4]/\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <urlParse \"http://[1.2.3.4]/\">: error calling urlParse: unable to parse url: parse \"http://[1.2.3.4]/\": invalid IP-literal"},
	{"url_star_force", "{{ urlParse \"*\" | toJson }}|{{ urlParse \"http://h/p?\" | urlJoin }}|{{ urlParse \"http:/p\" | urlJoin }}|{{ urlParse \"http:///p\" | toJson }}", "{}", 0, "{\"fragment\":\"\",\"host\":\"\",\"hostname\":\"\",\"opaque\":\"\",\"path\":\"*\",\"query\":\"\",\"scheme\":\"\",\"userinfo\":\"\"}|http://h/p|http:///p|{\"fragment\":\"\",\"host\":\"\",\"hostname\":\"\",\"opaque\":\"\",\"path\":\"/p\",\"query\":\"\",\"scheme\":\"http\",\"userinfo\":\"\"}"},
	{"urljoin_escapes", "{{ urlJoin (dict \"path\" \"a?b#c\" \"host\" \"h s\") }}|{{ urlJoin (dict \"path\" \"a:b\") }}|{{ urlJoin (dict \"scheme\" \"x\" \"path\" \"a:b\") }}|{{ urlJoin (dict \"userinfo\" \"u@x\" \"host\" \"h\") }}|{{ urlJoin (dict \"fragment\" \"!*'()\") }}", "{}", 0, "//h%20s/a%3Fb%23c|./a:b|x://a:b|//u%40x@h|#!*%27()"},
	{"urljoin_nil", "{{ urlJoin (dict \"host\" nil) }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <urlJoin (dict \"host\" nil)>: error calling urlJoin: runtime error: invalid memory address or nil pointer dereference"},
};

START_TEST(test_goldens)
{
	fg_check(&goldens[_i]);
}
END_TEST


int main(void)
{
	Suite *s = suite_create("funcs_paths");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_goldens, 0, (int)(sizeof(goldens) / sizeof(goldens[0])));
	suite_add_tcase(s, tc);
	return unit_run(s);
}
