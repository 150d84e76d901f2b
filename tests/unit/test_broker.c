/* tests/unit/test_broker.c — the supervisor's pure decisions: the broker's
 * request policy, verbs for the audit log, status building (conditions,
 * transition times, history), durations, release names, artifact digests. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/artifact.h"
#include "supervisor/broker.h"
#include "supervisor/source.h"
#include "supervisor/status.h"
#include "tests/unit/unit_util.h"

int sv_verbose;

static sv_job job(const char *identity)
{
	sv_job j;
	memset(&j, 0, sizeof j);
	j.ns = "team-a";
	j.release_ns = "team-a-apps";
	j.storage_ns = "team-a";
	j.identity = (char *)identity;
	return j;
}

static int check(const sv_job *j, const char *method, const char *path, const char *hname, char *why)
{
	proto_kube_request r;
	proto_header h = {(char *)hname, "x"};
	bh_error e;
	int rc;
	memset(&r, 0, sizeof r);
	r.method = (char *)method;
	r.path = (char *)path;
	if (hname) {
		r.headers = &h;
		r.nheaders = 1;
	}
	rc = broker_check_request(j, &r, &e);
	if (why)
		strcpy(why, rc < 0 ? e.msg : "");
	return rc;
}

START_TEST(test_policy)
{
	sv_job j = job("system:serviceaccount:team-a:deployer");
	char why[BH_ERROR_MSG_MAX];
	/* reads: own namespaces and discovery only */
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/secrets?labelSelector=owner%3Dhelm", NULL, NULL), 0);
	ck_assert_int_eq(check(&j, "GET", "/apis/apps/v1/namespaces/team-a-apps/deployments/web", NULL, NULL), 0);
	ck_assert_int_eq(check(&j, "GET", "/api/v1", NULL, NULL), 0);
	ck_assert_int_eq(check(&j, "GET", "/apis/apps/v1", NULL, NULL), 0);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-b/secrets", NULL, why), BH_EDENIED);
	ck_assert(strstr(why, "namespace team-b is not one of the job's namespaces") != NULL);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/nodes", NULL, NULL), BH_EDENIED);
	/* one named object elsewhere is read as the tenant (Helm's checks before
	 * a write), except Secrets */
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a", NULL, NULL), 0);
	ck_assert_int_eq(check(&j, "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/web", NULL, NULL), 0);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-b/configmaps/x", NULL, NULL), 0);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-b/secrets/x", NULL, NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-b/pods/x/log", NULL, NULL), BH_EDENIED);
	/* writes go to the cluster as the tenant: RBAC decides */
	ck_assert_int_eq(check(&j, "PATCH", "/api/v1/namespaces/team-b/configmaps/x", NULL, NULL), 0);
	ck_assert_int_eq(check(&j, "POST", "/api/v1", NULL, NULL), BH_EDENIED);
	/* identity and other headers */
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/pods", "Impersonate-User", why), BH_EDENIED);
	ck_assert(strstr(why, "may not choose its identity") != NULL);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/pods", "impersonate-group", NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/pods", "Authorization", NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/pods", "X-Remote-User", NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/pods", "Content-Type", NULL), 0);
	/* watches: one named non-Secret object, at most 60 s, as the tenant */
	ck_assert_int_eq(check(&j, "GET", "/apis/apps/v1/namespaces/team-b/deployments?watch=1&allowWatchBookmarks=true"
				       "&timeoutSeconds=60&resourceVersion=42&fieldSelector=metadata.name%3Dweb", NULL, why), 0);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/pods?watch=true&timeoutSeconds=1&fieldSelector=metadata.name=p",
			       NULL, NULL), 0);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/pods?watch=1", NULL, why), BH_EDENIED);
	ck_assert(strstr(why, "fieldSelector=metadata.name=NAME") != NULL);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/pods?a=1&watch", NULL, NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/pods?watch=1&fieldSelector=metadata.name%3Dp", NULL, why),
			 BH_EDENIED);
	ck_assert(strstr(why, "timeoutSeconds of 1 to 60") != NULL);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/pods?watch=1&timeoutSeconds=61&fieldSelector=metadata.name%3Dp",
			       NULL, NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/pods?watch=1&timeoutSeconds=0&fieldSelector=metadata.name%3Dp",
			       NULL, NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/pods?watch=1&timeoutSeconds=9&fieldSelector=metadata.name%3Dp"
				       "%2Cmetadata.name%21%3Dq", NULL, NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/pods?watch=1&timeoutSeconds=9&fieldSelector=metadata.name%3Dp"
				       "&labelSelector=a", NULL, why), BH_EDENIED);
	ck_assert(strstr(why, "labelSelector is not allowed") != NULL);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/secrets?watch=1&timeoutSeconds=9&fieldSelector=metadata.name%3Dp",
			       NULL, NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/pods?watch=1&timeoutSeconds=9&fieldSelector=metadata.name%3Dp", NULL, NULL),
			 BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/pods/p?watch=1&timeoutSeconds=9", NULL, NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/pods?watched=1", NULL, NULL), 0);
	/* path tricks */
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/../../team-b/secrets", NULL, NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a//secrets", NULL, NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team%2Db/secrets", NULL, NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/healthz", NULL, NULL), BH_EDENIED);
	/* percent-encoded names are decoded as the API server does: ':' is legit
	 * in RBAC names; traversal and separators in any spelling are not */
	ck_assert_int_eq(check(&j, "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Ametrics-server-aggregated-reader", NULL, why), 0);
	ck_assert_int_eq(check(&j, "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:metrics-server", NULL, NULL), 0);
	ck_assert_int_eq(check(&j, "DELETE", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system%3aauth-delegator%40x", NULL, NULL), 0);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/secrets/a%3Ab", NULL, NULL), 0);
	static const char *const bad[] = {
		"/api/v1/namespaces/team-a/%2e%2e/%2E%2E/nodes", "/api/v1/namespaces/team-a/configmaps/%2e",
		"/api/v1/namespaces/team-a/configmaps/.%2E", "/api/v1/namespaces/team-a/configmaps/a%2Fb",
		"/api/v1/namespaces/team-a/configmaps/a%2fb", "/api/v1/namespaces/team-a/configmaps/a%00b",
		"/api/v1/namespaces/team-a/configmaps/a%5Cb", "/api/v1/namespaces/team-a/configmaps/a\\b",
		"/api/v1/namespaces/team-a/configmaps/a%0Ab", "/api/v1/namespaces/team-a/configmaps/a\tb",
		"/api/v1/namespaces/team-a/configmaps/a%252e", "/api/v1/namespaces/team-a/configmaps/a%2",
		"/api/v1/namespaces/team-a/configmaps/a%zz", "/api/v1/namespaces/team-a/configmaps/a%",
		"/api/v1/namespaces/team-a/configmaps/%7F", "/api/v1/namespaces/team-a/./configmaps",
		"//api/v1/namespaces/team-a/configmaps", "api/v1/namespaces/team-a/configmaps",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_msg(check(&j, "GET", bad[i], NULL, why) == BH_EDENIED, "%s was accepted", bad[i]);
		ck_assert_msg(strstr(why, "canonical form") != NULL, "%s: %s", bad[i], why);
	}
	/* the policy sees decoded names: an encoded "secrets" is still Secrets */
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-b/secret%73/x", NULL, NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team%2Da/secrets", NULL, NULL), 0);
	/* subresources that reach into the cluster network */
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/services/web:80/proxy/admin", NULL, why), BH_EDENIED);
	ck_assert(strstr(why, "proxy subresource") != NULL);
	ck_assert_int_eq(check(&j, "POST", "/api/v1/namespaces/team-a/pods/web/exec?command=sh", NULL, NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "POST", "/api/v1/namespaces/team-a/pods/web/portforward", NULL, NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/nodes/n1/proxy/metrics", NULL, NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a/configmaps/exec", NULL, NULL), 0);
	ck_assert_int_eq(check(&j, "PUT", "/apis/helm.toolkit.fluxcd.io/v2/namespaces/team-a/helmreleases/x/status", NULL, NULL), 0);
	/* without a tenant identity, writes stay in the job's namespaces */
	j = job(NULL);
	ck_assert_int_eq(check(&j, "PATCH", "/api/v1/namespaces/team-b/configmaps/x", NULL, why), BH_EDENIED);
	ck_assert_int_eq(check(&j, "PATCH", "/api/v1/namespaces/team-a-apps/configmaps/x", NULL, NULL), 0);
	/* and so do reads */
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-b/configmaps/x", NULL, NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/web", NULL, NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-b/pods?watch=1&timeoutSeconds=9&fieldSelector=metadata.name%3Dp",
			       NULL, NULL), BH_EDENIED);
	ck_assert_int_eq(check(&j, "GET", "/api/v1/namespaces/team-a-apps/pods?watch=1&timeoutSeconds=9&fieldSelector=metadata.name%3Dp",
			       NULL, NULL), 0);
}
END_TEST

START_TEST(test_verbs)
{
	ck_assert_str_eq(broker_verb("GET", "/api/v1/namespaces/a/secrets?x=1"), "list");
	ck_assert_str_eq(broker_verb("GET", "/api/v1/namespaces/a/secrets/s"), "get");
	ck_assert_str_eq(broker_verb("GET", "/apis/apps/v1/deployments"), "list");
	ck_assert_str_eq(broker_verb("GET", "/apis/apps/v1/namespaces/a/deployments?watch=1"), "watch");
	ck_assert_str_eq(broker_verb("POST", "/api/v1/namespaces/a/secrets"), "create");
	ck_assert_str_eq(broker_verb("PUT", "/api/v1/namespaces/a/secrets/s"), "update");
	ck_assert_str_eq(broker_verb("PATCH", "/api/v1/namespaces/a/secrets/s"), "patch");
	ck_assert_str_eq(broker_verb("DELETE", "/api/v1/namespaces/a/secrets/s"), "delete");
	ck_assert_str_eq(broker_verb("DELETE", "/api/v1/namespaces/a/secrets"), "deletecollection");
}
END_TEST

/* The merge patch goes whole unless the object's status is the one last
 * written; then only what changed, or nothing. */
START_TEST(test_status_patch)
{
	json_t *hr = json_pack("{s:{s:s},s:{s:[{s:s,s:s}],s:i,s:s,s:s}}", "metadata", "name", "web", "status", "conditions",
			       "type", "Ready", "status", "True", "observedGeneration", 2, "lastHandledReconcileAt", "a",
			       "gone", "x");
	json_t *st = json_deep_copy(json_object_get(hr, "status")), *p;
	uint64_t rec = 0, want;
	char *text;
	json_object_set_new(st, "lastHandledReconcileAt", json_string("b"));
	json_object_del(st, "gone");
	/* no record: the whole status, removed members null (st gains them) */
	want = status_digest(st);
	ck_assert_int_eq(status_patch(hr, st, &rec, &text), 0);
	ck_assert_str_eq(text, "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}],"
			       "\"observedGeneration\":2,\"lastHandledReconcileAt\":\"b\",\"gone\":null}}");
	free(text);
	ck_assert(json_is_null(json_object_get(st, "gone")));
	json_object_del(st, "gone");
	ck_assert_uint_eq(rec, want);
	ck_assert_uint_eq(rec, status_digest(st));
	ck_assert_uint_ne(rec, status_digest(json_object_get(hr, "status")));
	/* the record is not the object's status (our write not seen yet, or
	 * another writer's): whole again */
	ck_assert_int_eq(status_patch(hr, st, &rec, &text), 0);
	ck_assert_ptr_nonnull(strstr(text, "\"conditions\""));
	free(text);
	json_object_del(st, "gone");
	/* the object shows what was written (members in another order): only what changes */
	p = json_pack("{s:s,s:i,s:[{s:s,s:s}]}", "lastHandledReconcileAt", "b", "observedGeneration", 2, "conditions", "status",
		      "True", "type", "Ready");
	json_object_set_new(hr, "status", p);
	ck_assert_uint_eq(status_digest(p), rec);
	json_object_set_new(st, "lastHandledReconcileAt", json_string("c"));
	ck_assert_int_eq(status_patch(hr, st, &rec, &text), 0);
	ck_assert_str_eq(text, "{\"status\":{\"lastHandledReconcileAt\":\"c\"}}");
	free(text);
	ck_assert_uint_eq(rec, status_digest(st));
	/* nothing changes: no patch */
	json_object_set_new(p, "lastHandledReconcileAt", json_string("c"));
	ck_assert_int_eq(status_patch(hr, st, &rec, &text), 0);
	ck_assert_ptr_null(text);
	/* a member removed: null, and the record follows */
	json_object_del(st, "observedGeneration");
	ck_assert_int_eq(status_patch(hr, st, &rec, &text), 0);
	ck_assert_str_eq(text, "{\"status\":{\"observedGeneration\":null}}");
	free(text);
	ck_assert_uint_eq(rec, status_digest(st));
	json_object_del(p, "observedGeneration");
	ck_assert_int_eq(status_patch(hr, st, &rec, &text), 0);
	ck_assert_ptr_null(text);
	/* a condition changed by someone else: the record no longer holds */
	json_object_set_new(json_array_get(json_object_get(p, "conditions"), 0), "status", json_string("False"));
	ck_assert_int_eq(status_patch(hr, st, &rec, &text), 0);
	ck_assert_ptr_nonnull(strstr(text, "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]"));
	ck_assert_ptr_nonnull(strstr(text, "\"lastHandledReconcileAt\":\"c\""));
	free(text);
	/* without a record (NULL): always whole */
	json_object_set_new(json_array_get(json_object_get(p, "conditions"), 0), "status", json_string("True"));
	ck_assert_int_eq(status_patch(hr, st, NULL, &text), 0);
	ck_assert_ptr_nonnull(strstr(text, "\"conditions\""));
	free(text);
	json_decref(st);
	json_decref(hr);
}
END_TEST

START_TEST(test_status_build)
{
	json_t *hr = json_pack("{s:{s:s,s:s,s:i},s:{s:[{s:s,s:s,s:s,s:s,s:s},{s:s,s:s,s:s,s:s,s:s}],s:[{s:s,s:i,s:s}]}}",
			       "metadata", "name", "web", "namespace", "team-a", "generation", 3, "status", "conditions",
			       "type", "Ready", "status", "False", "lastTransitionTime", "2026-01-01T00:00:00Z", "reason", "X",
			       "message", "m", "type", "Reconciling", "status", "True", "lastTransitionTime", "t", "reason",
			       "Progressing", "message", "m", "history", "chartName", "web", "version", 1, "status", "deployed");
	json_t *before = json_deep_copy(hr); /* status_build shares hr's values: it must not change them */
	proto_snapshot snap = {0};
	sv_outcome o = {0};
	json_t *st, *c0, *c1;
	snap.name = "web";
	snap.namespace_ = "team-a";
	snap.status = "deployed";
	snap.chart_name = "web";
	snap.chart_version = "1.0.0";
	snap.version = 2;
	o.ready = 1;
	o.reason = "UpgradeSucceeded";
	o.message = "Helm upgrade succeeded";
	o.action = "upgrade";
	o.release = &snap;
	o.attempted = 1;
	o.revision = "1.0.0";
	st = status_build(hr, &o, "2026-02-02T00:00:00Z");
	ck_assert_int_eq(json_integer_value(json_object_get(st, "observedGeneration")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(st, "lastAttemptedGeneration")), 3);
	ck_assert_str_eq(json_string_value(json_object_get(st, "lastAttemptedReleaseAction")), "upgrade");
	ck_assert_uint_eq(json_array_size(json_object_get(st, "conditions")), 2); /* Reconciling dropped */
	c0 = json_array_get(json_object_get(st, "conditions"), 0);
	c1 = json_array_get(json_object_get(st, "conditions"), 1);
	ck_assert_str_eq(json_string_value(json_object_get(c0, "type")), "Ready");
	ck_assert_str_eq(json_string_value(json_object_get(c0, "status")), "True");
	ck_assert_str_eq(json_string_value(json_object_get(c0, "lastTransitionTime")), "2026-02-02T00:00:00Z");
	ck_assert_int_eq(json_integer_value(json_object_get(c0, "observedGeneration")), 3);
	ck_assert_str_eq(json_string_value(json_object_get(c1, "type")), "Released");
	ck_assert_uint_eq(json_array_size(json_object_get(st, "history")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(json_object_get(st, "history"), 0), "version")), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(st, "history"), 1), "status")),
			 "superseded");
	json_decref(st);
	ck_assert(json_equal(hr, before));
	/* a failure keeps Ready=False's transition time and observedGeneration */
	memset(&o, 0, sizeof o);
	o.reason = "WorkerCrashed";
	o.message = "worker was killed";
	o.attempted = 1;
	st = status_build(hr, &o, "2026-03-03T00:00:00Z");
	c0 = json_array_get(json_object_get(st, "conditions"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(c0, "lastTransitionTime")), "2026-01-01T00:00:00Z");
	ck_assert_ptr_null(json_object_get(st, "observedGeneration"));
	ck_assert_int_eq(json_integer_value(json_object_get(st, "failures")), 1);
	json_decref(st);
	/* a worker started: Ready=Unknown, Reconciling=True, nothing else moves */
	memset(&o, 0, sizeof o);
	o.reason = "Progressing";
	o.message = "Running release action with timeout of 5m0s";
	o.progressing = 1;
	st = status_build(hr, &o, "2026-04-04T00:00:00Z");
	c0 = json_array_get(json_object_get(st, "conditions"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(c0, "status")), "Unknown");
	c1 = json_array_get(json_object_get(st, "conditions"), 1);
	ck_assert_str_eq(json_string_value(json_object_get(c1, "type")), "Reconciling");
	ck_assert_str_eq(json_string_value(json_object_get(c1, "status")), "True");
	ck_assert_str_eq(json_string_value(json_object_get(c1, "reason")), "Progressing");
	ck_assert_uint_eq(json_array_size(json_object_get(st, "conditions")), 2);
	ck_assert_ptr_null(json_object_get(st, "lastAttemptedGeneration"));
	json_decref(st);
	ck_assert(json_equal(hr, before));
	json_decref(before);
	json_decref(hr);
}
END_TEST

/* The outcome of a run's request (status_step_result) as the blocking
 * client reports it: errors named after the request, the answer decoded. */
START_TEST(test_status_step_result)
{
	kube_response resp = KUBE_RESPONSE_INIT;
	status_step st;
	bh_error err = {0}, e;
	json_t *out;
	memset(&st, 0, sizeof st);
	st.sent.method = "GET";
	st.sent.path = "/api/v1/namespaces/a/serviceaccounts/s";
	st.resp = &resp;
	resp.status = 404;
	bh_buf_puts(&resp.body, "{\"kind\":\"Status\",\"reason\":\"NotFound\",\"message\":\"serviceaccounts \\\"s\\\" not found\"}");
	ck_assert_int_eq(status_step_result(&st, &out, &err), BH_ENOTFOUND);
	ck_assert_ptr_null(out);
	ck_assert_str_eq(err.msg, "GET /api/v1/namespaces/a/serviceaccounts/s: 404 NotFound: serviceaccounts \"s\" not found");
	resp.status = 503;
	st.giveup = "giving up after 5 attempts (503)";
	ck_assert_int_eq(status_step_result(&st, NULL, &err), BH_EUNAVAIL);
	ck_assert_ptr_nonnull(strstr(err.msg, "giving up after 5 attempts (503): GET /api/v1/namespaces/a/serviceaccounts/s: 503"));
	st.giveup = NULL;
	resp.status = 200;
	ck_assert_int_eq(status_step_result(&st, &out, &err), 0);
	ck_assert_str_eq(json_string_value(json_object_get(out, "kind")), "Status");
	json_decref(out);
	bh_buf_reset(&resp.body);
	bh_buf_puts(&resp.body, "<html>");
	ck_assert_int_eq(status_step_result(&st, NULL, &err), 0); /* not read: not decoded */
	ck_assert_int_eq(status_step_result(&st, &out, &err), BH_EPROTO);
	ck_assert_ptr_null(out);
	ck_assert_ptr_nonnull(strstr(err.msg, "GET /api/v1/namespaces/a/serviceaccounts/s: response is not JSON"));
	bh_buf_reset(&resp.body);
	ck_assert_int_eq(status_step_result(&st, &out, &err), 0);
	ck_assert(json_is_null(out));
	json_decref(out);
	/* no answer: the error the sending gave */
	bh_error_set(&e, BH_ETIMEOUT, "GET /x: giving up after 3 attempts (timeout): timed out");
	st.rc = BH_ETIMEOUT;
	st.resp = NULL;
	st.err = &e;
	ck_assert_int_eq(status_step_result(&st, NULL, &err), BH_ETIMEOUT);
	ck_assert_str_eq(err.msg, e.msg);
	kube_response_free(&resp);
}
END_TEST

START_TEST(test_source_helpers)
{
	json_t *hr;
	char *n;
	ck_assert(source_parse_duration("5m") == 300);
	ck_assert(source_parse_duration("1h30m") == 5400);
	ck_assert(source_parse_duration("2.5s") == 2.5);
	ck_assert(source_parse_duration("300ms") > 0.29 && source_parse_duration("300ms") < 0.31);
	ck_assert(source_parse_duration("5") < 0);
	ck_assert(source_parse_duration("x") < 0);
	hr = json_pack("{s:{s:s,s:s},s:{s:s}}", "metadata", "name", "web", "namespace", "a", "spec", "targetNamespace", "prod");
	n = source_release_name_new(hr);
	ck_assert_str_eq(n, "prod-web");
	ck_assert_str_eq(source_release_namespace(hr), "prod");
	ck_assert_str_eq(source_storage_namespace(hr), "a");
	free(n);
	json_decref(hr);
	/* Flux: name[:40] + "-" + hex(sha256(name))[:12] when longer than 53 */
	hr = json_pack("{s:{s:s,s:s},s:{}}", "metadata", "name", "a-very-long-helmrelease-name-that-goes-on-and-on-and-on",
		       "namespace", "a", "spec");
	n = source_release_name_new(hr);
	ck_assert_uint_eq(strlen(n), 53);
	ck_assert(strncmp(n, "a-very-long-helmrelease-name-that-goes-o-", 41) == 0);
	free(n);
	json_decref(hr);
	/* the HelmChart made from .spec.chart (deleted after an uninstall):
	 * in its source's namespace, only one labelled as made for it */
	{
		bh_error e;
		json_t *hc;
		hr = json_pack("{s:{s:s,s:s},s:{s:{s:{s:{s:s}}}}}", "metadata", "name", "web", "namespace", "a", "spec", "chart",
			       "spec", "sourceRef", "namespace", "flux");
		n = source_helmchart_path_new(hr, &e);
		ck_assert_str_eq(n, "/apis/source.toolkit.fluxcd.io/v1/namespaces/flux/helmcharts/a-web");
		free(n);
		hc = json_pack("{s:{s:{s:s}}}", "metadata", "labels", "helm.toolkit.fluxcd.io/name", "web");
		ck_assert(source_helmchart_made_for(hc, hr));
		json_object_set_new(json_object_get(json_object_get(hc, "metadata"), "labels"), "helm.toolkit.fluxcd.io/name",
				    json_string("other"));
		ck_assert(!source_helmchart_made_for(hc, hr));
		json_decref(hc);
		json_decref(hr);
		hr = json_pack("{s:{s:s},s:{}}", "metadata", "name", "web", "spec");
		ck_assert_ptr_null(source_helmchart_path_new(hr, &e));
		ck_assert_str_eq(e.msg, "helmcharts is namespaced: a namespace is required");
		json_decref(hr);
	}
}
END_TEST

START_TEST(test_artifact_verify)
{
	bh_error e;
	/* sha256("abc") */
	ck_assert_int_eq(artifact_verify((const unsigned char *)"abc", 3,
		"sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", &e), 0);
	ck_assert_int_eq(artifact_verify((const unsigned char *)"abd", 3,
		"sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", &e), BH_EINVAL);
	ck_assert(strstr(e.msg, "integrity check failed") != NULL);
	ck_assert_int_eq(artifact_verify((const unsigned char *)"abc", 3, "md5:900150983cd24fb0d6963f7d28e17f72", &e), BH_EINVAL);
	ck_assert_int_eq(artifact_verify((const unsigned char *)"abc", 3, "nodigest", &e), BH_EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("broker");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_policy);
	tcase_add_test(tc, test_verbs);
	tcase_add_test(tc, test_status_build);
	tcase_add_test(tc, test_status_patch);
	tcase_add_test(tc, test_status_step_result);
	tcase_add_test(tc, test_source_helpers);
	tcase_add_test(tc, test_artifact_verify);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
