/* tests/unit/test_acl.c — the lock-down decisions of supervisor/acl.c:
 * ServiceAccount names (the API server's DNS-1123 subdomain rule), which
 * identity a HelmRelease's worker gets (never the controller's), Flux's
 * cross-namespace reference refusals; the ServiceAccount check of a
 * deletion (its GET, the meaning of its outcome); and the Stalled status a
 * refusal writes (supervisor/status.c). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/acl.h"
#include "supervisor/status.h"
#include "tests/unit/unit_util.h"

int sv_verbose;

static json_t *hr(const char *spec_json)
{
	json_error_t je;
	json_t *spec = json_loads(spec_json, 0, &je);
	ck_assert_msg(spec != NULL, "bad test JSON: %s", je.text);
	return json_pack("{s:{s:s,s:s,s:i},s:o}", "metadata", "name", "web", "namespace", "team-a", "generation", 3,
			 "spec", spec);
}

START_TEST(test_sa_names)
{
	static const char *const good[] = {"default", "a", "deployer-1", "team.deployer", "0abc", "a.b-c.d", NULL};
	static const char *const bad[] = {"", "Deployer", "bad_name", "-a", "a-", ".a", "a.", "a..b", "a.-b", "a-.b",
					  "a b", "system:masters", "../x", "a/b", "é", NULL};
	char longname[300];
	bh_error e;
	for (const char *const *p = good; *p; p++)
		ck_assert_msg(acl_check_sa_name(*p, "name", &e) == 0, "%s refused: %s", *p, e.msg);
	for (const char *const *p = bad; *p; p++)
		ck_assert_msg(acl_check_sa_name(*p, "name", &e) == BH_EINVAL, "%s accepted", *p);
	ck_assert_int_eq(acl_check_sa_name("Bad_Name", ".spec.serviceAccountName", &e), BH_EINVAL);
	ck_assert_str_eq(e.msg, ".spec.serviceAccountName \"Bad_Name\" is invalid: a lowercase RFC 1123 subdomain must "
				"consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
				"alphanumeric character (e.g. 'example.com', regex used for validation is "
				"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
	memset(longname, 'a', 254);
	longname[254] = '\0';
	ck_assert_int_eq(acl_check_sa_name(longname, "name", &e), BH_EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "must be no more than 253 characters"));
	longname[253] = '\0';
	ck_assert_int_eq(acl_check_sa_name(longname, "name", &e), 0);
}
END_TEST

START_TEST(test_identity)
{
	acl_policy none = {NULL, 0}, dflt = {"default", 0};
	char id[ACL_IDENTITY_MAX];
	bh_error e;
	json_t *own = hr("{\"serviceAccountName\":\"deployer\"}"), *bare = hr("{}"),
	       *bad = hr("{\"serviceAccountName\":\"x:system:masters\"}"), *num = hr("{\"serviceAccountName\":7}");
	ck_assert_int_eq(acl_identity(&none, own, id, sizeof id, &e), 0);
	ck_assert_str_eq(id, "system:serviceaccount:team-a:deployer");
	ck_assert_int_eq(acl_identity(&dflt, own, id, sizeof id, &e), 0);
	ck_assert_str_eq(id, "system:serviceaccount:team-a:deployer");
	ck_assert_int_eq(acl_identity(&dflt, bare, id, sizeof id, &e), 0);
	ck_assert_str_eq(id, "system:serviceaccount:team-a:default");
	/* no identity configured: refused, never the controller's own */
	ck_assert_int_eq(acl_identity(&none, bare, id, sizeof id, &e), BH_EDENIED);
	ck_assert_ptr_nonnull(strstr(e.msg, "no ServiceAccount to act as"));
	ck_assert_int_eq(acl_identity(&dflt, bad, id, sizeof id, &e), BH_EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, ".spec.serviceAccountName \"x:system:masters\" is invalid"));
	ck_assert_int_eq(acl_identity(&dflt, num, id, sizeof id, &e), BH_EINVAL);
	ck_assert_int_eq(acl_identity(&dflt, own, id, 20, &e), BH_EINVAL); /* never truncated */
	json_decref(own);
	json_decref(bare);
	json_decref(bad);
	json_decref(num);
}
END_TEST

static int refs(int lock, const char *spec, char *msg)
{
	acl_policy p = {"default", lock};
	bh_error e;
	json_t *o = hr(spec);
	int rc = acl_check_refs(&p, o, &e);
	json_decref(o);
	if (msg)
		strcpy(msg, rc ? e.msg : "");
	return rc;
}

START_TEST(test_cross_namespace_refs)
{
	char m[BH_ERROR_MSG_MAX];
	const char *chart_other = "{\"chart\":{\"spec\":{\"chart\":\"podinfo\",\"sourceRef\":{\"kind\":\"HelmRepository\","
				  "\"name\":\"repo\",\"namespace\":\"flux-system\"}}}}";
	const char *chartref_other = "{\"chartRef\":{\"kind\":\"OCIRepository\",\"name\":\"podinfo\",\"namespace\":\"shared\"}}";
	ck_assert_int_eq(refs(0, chart_other, m), 0);
	ck_assert_int_eq(refs(1, chart_other, m), BH_EDENIED);
	ck_assert_str_eq(m, "cross-namespace references are not allowed: cannot access HelmChart flux-system/team-a-web");
	ck_assert_int_eq(refs(0, chartref_other, m), 0);
	ck_assert_int_eq(refs(1, chartref_other, m), BH_EDENIED);
	ck_assert_str_eq(m, "cross-namespace references are not allowed: cannot access OCIRepository shared/podinfo");
	ck_assert_int_eq(refs(1, "{\"dependsOn\":[{\"name\":\"db\"},{\"name\":\"db\",\"namespace\":\"team-b\"}]}", m),
			 BH_EDENIED);
	ck_assert_str_eq(m, "cross-namespace references are not allowed: cannot access HelmRelease team-b/db");
	/* naming the own namespace is no cross-namespace reference */
	ck_assert_int_eq(refs(1, "{\"chartRef\":{\"kind\":\"HelmChart\",\"name\":\"c\",\"namespace\":\"team-a\"},"
				 "\"dependsOn\":[{\"name\":\"db\",\"namespace\":\"team-a\"}],"
				 "\"valuesFrom\":[{\"kind\":\"Secret\",\"name\":\"v\",\"namespace\":\"team-a\"}]}", m), 0);
	/* valuesFrom is read in the HelmRelease's namespace only, in every mode */
	ck_assert_int_eq(refs(0, "{\"valuesFrom\":[{\"kind\":\"Secret\",\"name\":\"db\",\"namespace\":\"team-b\"}]}", m),
			 BH_EDENIED);
	ck_assert_ptr_nonnull(strstr(m, "cross-namespace references are not allowed: cannot access Secret team-b/db"));
}
END_TEST

/* The ServiceAccount check: the GET of the identity's ServiceAccount, and
 * what its outcome says (found, not found, the API could not tell). */
START_TEST(test_sa_check)
{
	char sa[ACL_IDENTITY_MAX];
	bh_error err = {0};
	char *p = acl_sa_path_new("system:serviceaccount:team-a:deployer", sa, sizeof sa, &err);
	ck_assert_str_eq(p, "/api/v1/namespaces/team-a/serviceaccounts/deployer");
	ck_assert_str_eq(sa, "team-a/deployer");
	free(p);
	ck_assert_ptr_null(acl_sa_path_new("system:admin", sa, sizeof sa, &err));
	ck_assert_int_eq(err.code, BH_EINVAL);
	ck_assert_str_eq(err.msg, "'system:admin' is not a ServiceAccount");
	ck_assert_ptr_null(acl_sa_path_new("system:serviceaccount:team-a", sa, sizeof sa, &err));
	ck_assert_int_eq(err.code, BH_EINVAL);
	ck_assert_ptr_null(acl_sa_path_new("system:serviceaccount::deployer", sa, sizeof sa, &err));
	ck_assert_str_eq(err.msg, "serviceaccounts is namespaced: a namespace is required");
	ck_assert_ptr_null(acl_sa_path_new("system:serviceaccount:team-a:", sa, sizeof sa, &err));
	ck_assert_str_eq(err.msg, "get serviceaccounts: a name is required");
	ck_assert_int_eq(acl_sa_exists_of(0, "team-a/deployer", &err), 1);
	ck_assert_int_eq(acl_sa_exists_of(BH_ENOTFOUND, "team-a/deployer", &err), 0);
	ck_assert_str_eq(err.msg, "ServiceAccount team-a/deployer not found");
	bh_error_set(&err, BH_EUNAVAIL, "GET /x: 503 ServiceUnavailable: try later");
	ck_assert_int_eq(acl_sa_exists_of(BH_EUNAVAIL, "team-a/deployer", &err), BH_EUNAVAIL);
	ck_assert_str_eq(err.msg, "GET /x: 503 ServiceUnavailable: try later");
}
END_TEST

START_TEST(test_stalled_status)
{
	json_t *o = hr("{}"), *st, *c;
	sv_outcome out = {0, ACL_ACCESS_DENIED, "cross-namespace references are not allowed: cannot access X a/b"};
	size_t i;
	int seen = 0;
	out.stalled = 1;
	st = status_build(o, &out, "2026-01-01T00:00:00Z");
	ck_assert_int_eq(json_integer_value(json_object_get(st, "observedGeneration")), 3);
	json_array_foreach(json_object_get(st, "conditions"), i, c) {
		const char *t = json_string_value(json_object_get(c, "type"));
		if (!strcmp(t, "Ready") || !strcmp(t, "Stalled")) {
			ck_assert_str_eq(json_string_value(json_object_get(c, "status")), strcmp(t, "Ready") ? "True" : "False");
			ck_assert_str_eq(json_string_value(json_object_get(c, "reason")), "AccessDenied");
			seen++;
		}
	}
	ck_assert_int_eq(seen, 2);
	/* the next outcome (spec fixed, source not ready) is no longer stalled */
	json_object_set_new(o, "status", st);
	out.stalled = 0;
	out.reason = "SourceNotReady";
	out.message = "HelmChart 'team-a/c' is not ready";
	st = status_build(o, &out, "2026-01-01T00:00:01Z");
	json_array_foreach(json_object_get(st, "conditions"), i, c)
		ck_assert_str_ne(json_string_value(json_object_get(c, "type")), "Stalled");
	json_decref(st);
	json_decref(o);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("acl");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_sa_names);
	tcase_add_test(tc, test_identity);
	tcase_add_test(tc, test_cross_namespace_refs);
	tcase_add_test(tc, test_sa_check);
	tcase_add_test(tc, test_stalled_status);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
