/* tests/unit/test_remote.c — supervisor/remote.c: the kubeconfig of a
 * .spec.kubeConfig Secret (keys, strict policy) and the identity used on the
 * remote cluster. */
#include <check.h>
#include <jansson.h>
#include <string.h>

#include "supervisor/remote.h"
#include "tests/unit/unit_util.h"

#define KC "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'https://10.0.0.1:6443'}\n" \
	   "users:\n- name: u\n  user: {token: abc}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n"
#define EXEC "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'https://10.0.0.1:6443'}\n" \
	     "users:\n- name: u\n  user:\n    exec: {apiVersion: client.authentication.k8s.io/v1, command: sh}\n" \
	     "contexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n"

static json_t *secret(const char *key, const char *text)
{
	static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(text), o = 0;
	char b64[2048];
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned char)text[i] << 16 | (i + 1 < n ? (unsigned char)text[i + 1] << 8 : 0) |
			     (i + 2 < n ? (unsigned char)text[i + 2] : 0);
		b64[o++] = tbl[v >> 18 & 63];
		b64[o++] = tbl[v >> 12 & 63];
		b64[o++] = i + 1 < n ? tbl[v >> 6 & 63] : '=';
		b64[o++] = i + 2 < n ? tbl[v & 63] : '=';
	}
	b64[o] = '\0';
	return json_pack("{s:{s:s}}", "data", key, b64);
}

START_TEST(test_from_secret)
{
	kube_config *cfg;
	bh_error err;
	json_t *s = secret("value", KC);
	ck_assert_msg(remote_from_secret(s, NULL, &cfg, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(cfg->server, "https://10.0.0.1:6443");
	kube_config_free(cfg);
	json_decref(s);
	s = secret("value.yaml", KC); /* Cluster API's other key */
	ck_assert_int_eq(remote_from_secret(s, NULL, &cfg, &err), 0);
	kube_config_free(cfg);
	ck_assert_int_eq(remote_from_secret(s, "value", &cfg, &err), BH_ENOTFOUND); /* .key named: only it */
	ck_assert_str_eq(err.msg, "has no key 'value'");
	json_decref(s);
	s = secret("other", KC);
	ck_assert_int_eq(remote_from_secret(s, NULL, &cfg, &err), BH_ENOTFOUND);
	ck_assert_str_eq(err.msg, "has neither a 'value' nor a 'value.yaml' key");
	ck_assert_int_eq(remote_from_secret(s, "other", &cfg, &err), 0);
	kube_config_free(cfg);
	json_decref(s);
	/* the strict tenant policy */
	s = secret("value", EXEC);
	ck_assert_int_lt(remote_from_secret(s, NULL, &cfg, &err), 0);
	ck_assert_ptr_null(cfg);
	ck_assert_msg(strstr(err.msg, "users[0].user.exec") != NULL, "%s", err.msg);
	json_decref(s);
	s = json_pack("{s:{s:s}}", "data", "value", "not base64!");
	ck_assert_int_lt(remote_from_secret(s, NULL, &cfg, &err), 0);
	json_decref(s);
}
END_TEST

START_TEST(test_identity)
{
	char id[600];
	bh_error err;
	json_t *hr = json_pack("{s:{s:s,s:s},s:{s:s}}", "metadata", "name", "web", "namespace", "team", "spec",
			       "serviceAccountName", "deployer");
	ck_assert_int_eq(remote_identity(hr, id, sizeof id, &err), 0);
	ck_assert_str_eq(id, "system:serviceaccount:team:deployer");
	json_object_del(json_object_get(hr, "spec"), "serviceAccountName");
	ck_assert_int_eq(remote_identity(hr, id, sizeof id, &err), 0);
	ck_assert_str_eq(id, ""); /* the kubeconfig's own */
	json_object_set_new(json_object_get(hr, "spec"), "serviceAccountName", json_string("Bad_Name"));
	ck_assert_int_eq(remote_identity(hr, id, sizeof id, &err), BH_EINVAL);
	json_decref(hr);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("remote");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_from_secret);
	tcase_add_test(tc, test_identity);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
