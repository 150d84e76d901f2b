/* tests/unit/test_kube.c — unit tests for kube/ (placeholder suite grows below). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kube/config.h"
#include "kube/kube.h"

static const char *kc_basic =
	"apiVersion: v1\nkind: Config\ncurrent-context: dev\n"
	"clusters:\n- name: c1\n  cluster:\n    server: https://10.0.0.1:6443/\n"
	"    certificate-authority-data: aGVsbG8=\n    tls-server-name: kubernetes\n"
	"users:\n- name: u1\n  user:\n    token: abc\n"
	"contexts:\n- name: dev\n  context:\n    cluster: c1\n    user: u1\n    namespace: team-a\n";

START_TEST(test_config_basic)
{
	bh_error e = {0};
	kube_config *c = kube_config_parse(kc_basic, strlen(kc_basic), NULL, &e);
	ck_assert_msg(c != NULL, "%s", e.msg);
	ck_assert_str_eq(c->server, "https://10.0.0.1:6443");
	ck_assert_str_eq(c->ca_pem, "hello");
	ck_assert_str_eq(c->token, "abc");
	ck_assert_str_eq(c->namespace_, "team-a");
	ck_assert_str_eq(c->tls_server_name, "kubernetes");
	kube_config_free(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kube");
	TCase *tc = tcase_create("config");
	tcase_add_test(tc, test_config_basic);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
