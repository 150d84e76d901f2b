/* tests/unit/test_kube_e2e.c — kube/ against a real API server process
 * (tests/kubesim) through the libcurl transport, using kubesim's fault
 * injection (/_kubesim/faults, close-watches, compact). Reads the admin
 * kubeconfig from $KUBE_E2E_KUBECONFIG and exits 77 (skip) when it is unset;
 * tests/e2e/kube_client.sh starts kubesim and runs this. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kube/config.h"
#include "kube/curl.h"
#include "kube/kube.h"
#include "kube/ready.h"
#include "kube/wait.h"
#include "tests/unit/unit_util.h"

static kube_config *cfg;
static char NS[64];      /* kube-e2e-<pid>: a fresh namespace per run */
static char GROUP[64];   /* e2e<pid>.example.com: a fresh CRD group per run */

static kube_client *client(void)
{
	bh_error e = {0};
	kube_client *c = kube_curl_client_new(cfg, &e);
	ck_assert_msg(c != NULL, "%s", e.msg);
	return c;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void admin(kube_client *c, const char *method, const char *path, const char *body)
{
	bh_error e = {0};
	json_t *b = body ? json_loads(body, 0, NULL) : NULL;
	ck_assert_msg(!body || b, "bad admin JSON %s", body);
	int rc = kube_request_json(c, method, path, NULL, b, NULL, &e);
	ck_assert_msg(rc == 0, "%s %s: %s", method, path, e.msg);
	json_decref(b);
}

static const kube_resource cms = {"", "v1", "configmaps", "ConfigMap", 1};

static json_t *configmap(const char *name, const char *label)
{
	return json_pack("{s:s,s:s,s:{s:s,s:s,s:{s:s}},s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap", "metadata",
	                 "name", name, "namespace", NS, "labels", "set", label, "data", "k", "v");
}

START_TEST(test_setup_namespace)
{
	kube_client *c = client();
	bh_error e = {0};
	kube_resource nsr;
	ck_assert_msg(kube_mapping_get(c, "v1", "Namespace", &nsr, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(nsr.namespaced, 0);
	json_t *ns = json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "v1", "kind", "Namespace", "metadata", "name", NS);
	int rc = kube_create(c, &nsr, NULL, ns, NULL, NULL, &e);
	ck_assert_msg(rc == 0 || rc == BH_ECONFLICT, "%s", e.msg);
	json_decref(ns);
	admin(c, "DELETE", "/_kubesim/faults", NULL);
	kube_client_free(c);
}
END_TEST

START_TEST(test_crud_and_errors)
{
	kube_client *c = client();
	bh_error e = {0};
	json_t *cm = configmap("crud", "crud"), *out = NULL;
	kube_delete(c, &cms, NS, "crud", NULL, NULL, NULL);
	ck_assert_msg(kube_create(c, &cms, NS, cm, NULL, &out, &e) == 0, "%s", e.msg);
	const char *uid = json_string_value(json_object_get(json_object_get(out, "metadata"), "uid"));
	ck_assert_ptr_nonnull(uid);
	char uidbuf[128];
	snprintf(uidbuf, sizeof uidbuf, "%s", uid);
	json_decref(out);
	/* AlreadyExists -> BH_ECONFLICT with the API's message */
	ck_assert_int_eq(kube_create(c, &cms, NS, cm, NULL, NULL, &e), BH_ECONFLICT);
	ck_assert_msg(strstr(e.msg, "409 AlreadyExists: configmaps \"crud\" already exists") != NULL, "%s", e.msg);
	/* NotFound */
	ck_assert_int_eq(kube_get(c, &cms, NS, "nope", NULL, &out, &e), BH_ENOTFOUND);
	ck_assert_msg(strstr(e.msg, "404 NotFound: configmaps \"nope\" not found") != NULL, "%s", e.msg);
	ck_assert_int_eq(kube_client_last_status(c), 404);
	/* Invalid -> 422 */
	json_t *bad = configmap("Not_A_Name", "x");
	ck_assert_int_eq(kube_create(c, &cms, NS, bad, NULL, NULL, &e), BH_EINVAL);
	ck_assert_msg(strstr(e.msg, "422 Invalid") != NULL, "%s", e.msg);
	json_decref(bad);
	/* merge patch, JSON patch */
	ck_assert_msg(kube_patch(c, &cms, NS, "crud", KUBE_PATCH_MERGE, "{\"data\":{\"m\":\"1\"}}", NULL, NULL, &e) == 0,
	              "%s", e.msg);
	ck_assert_msg(kube_patch(c, &cms, NS, "crud", KUBE_PATCH_JSON,
	                         "[{\"op\":\"add\",\"path\":\"/data/j\",\"value\":\"2\"}]", NULL, &out, &e) == 0,
	              "%s", e.msg);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(out, "data"), "m")), "1");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(out, "data"), "j")), "2");
	/* update with a stale resourceVersion -> conflict */
	json_object_set_new(json_object_get(out, "metadata"), "resourceVersion", json_string("1"));
	ck_assert_int_eq(kube_update(c, &cms, NS, out, NULL, NULL, &e), BH_ECONFLICT);
	json_decref(out);
	/* server-side apply: dry run changes nothing, a real apply does */
	json_t *ap = configmap("crud", "crud");
	json_object_set_new(json_object_get(ap, "data"), "k", json_string("applied"));
	kube_write_opts wo = {.field_manager = "kube-e2e", .force = 1, .dry_run = 1};
	ck_assert_msg(kube_apply(c, &cms, NS, ap, &wo, &out, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(out, "data"), "k")), "applied");
	json_decref(out);
	ck_assert_int_eq(kube_get(c, &cms, NS, "crud", NULL, &out, &e), 0);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(out, "data"), "k")), "v");
	json_decref(out);
	wo.dry_run = 0;
	ck_assert_msg(kube_apply(c, &cms, NS, ap, &wo, NULL, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(kube_get(c, &cms, NS, "crud", NULL, &out, &e), 0);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(out, "data"), "k")), "applied");
	json_t *mf = json_object_get(json_object_get(out, "metadata"), "managedFields");
	int found = 0;
	size_t i;
	json_t *m;
	json_array_foreach(mf, i, m) if (!strcmp(json_string_value(json_object_get(m, "manager")), "kube-e2e")) found = 1;
	ck_assert_msg(found, "field manager kube-e2e not recorded");
	json_decref(out);
	json_decref(ap);
	/* delete: wrong uid precondition -> conflict; right one -> gone */
	kube_delete_opts dopt = {.propagation = "Background", .precondition_uid = "wrong", .grace_seconds = -1};
	ck_assert_int_eq(kube_delete(c, &cms, NS, "crud", &dopt, NULL, &e), BH_ECONFLICT);
	dopt.precondition_uid = uidbuf;
	ck_assert_msg(kube_delete(c, &cms, NS, "crud", &dopt, NULL, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(kube_get(c, &cms, NS, "crud", NULL, NULL, &e), BH_ENOTFOUND);
	json_decref(cm);
	kube_client_free(c);
}
END_TEST

START_TEST(test_crd_mapping_status_events)
{
	kube_client *c = client();
	bh_error e = {0};
	kube_resource crd;
	ck_assert_msg(kube_mapping_get(c, "apiextensions.k8s.io/v1", "CustomResourceDefinition", &crd, &e) == 0, "%s",
	              e.msg);
	/* unknown before the CRD exists */
	kube_resource w;
	char gv[128], crdname[128], def[2048];
	snprintf(gv, sizeof gv, "%s/v1", GROUP);
	snprintf(crdname, sizeof crdname, "widgets.%s", GROUP);
	ck_assert_int_eq(kube_mapping_get(c, gv, "Widget", &w, &e), BH_ENOTFOUND);
	snprintf(def, sizeof def,
		"{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\",\"metadata\":{\"name\":"
		"\"%s\"},\"spec\":{\"group\":\"%s\",\"scope\":\"Namespaced\",\"names\":{"
		"\"plural\":\"widgets\",\"singular\":\"widget\",\"kind\":\"Widget\",\"listKind\":\"WidgetList\"},"
		"\"versions\":[{\"name\":\"v1\",\"served\":true,\"storage\":true,\"subresources\":{\"status\":{}},"
		"\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true}}}]}}",
		crdname, GROUP);
	json_t *obj = json_loads(def, 0, NULL);
	kube_write_opts wo = {.field_manager = "kube-e2e", .force = 1};
	ck_assert_msg(kube_apply(c, &crd, NULL, obj, &wo, NULL, &e) == 0, "%s", e.msg);
	json_decref(obj);
	/* wait for Established with the readiness rules */
	kube_ready r = {0};
	for (int i = 0; i < 100; i++) {
		json_t *got = NULL;
		ck_assert_int_eq(kube_get(c, &crd, NULL, crdname, NULL, &got, &e), 0);
		kube_ready_compute(got, &r);
		json_decref(got);
		if (r.status == KUBE_STATUS_CURRENT)
			break;
		usleep(100000);
	}
	ck_assert_msg(r.status == KUBE_STATUS_CURRENT, "CRD not established: %s", r.message);
	/* the mapping cache had a miss for this group; it is rediscovered */
	ck_assert_msg(kube_mapping_get(c, gv, "Widget", &w, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(w.resource, "widgets");
	ck_assert_int_eq(w.namespaced, 1);
	/* a custom resource and its status subresource */
	obj = json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:i}}", "apiVersion", gv, "kind", "Widget",
	                "metadata", "name", "w1", "namespace", NS, "spec", "size", 1);
	kube_delete(c, &w, NS, "w1", NULL, NULL, NULL);
	json_t *out = NULL;
	ck_assert_msg(kube_create(c, &w, NS, obj, NULL, &out, &e) == 0, "%s", e.msg);
	json_object_set_new(out, "status", json_pack("{s:[{s:s,s:s,s:s}]}", "conditions", "type", "Ready", "status",
	                                             "True", "reason", "Fine"));
	kube_write_opts so = {.subresource = "status"};
	json_t *after = NULL;
	ck_assert_msg(kube_update(c, &w, NS, out, &so, &after, &e) == 0, "%s", e.msg);
	json_decref(out);
	json_decref(after);
	ck_assert_int_eq(kube_get(c, &w, NS, "w1", "status", &out, &e), 0);
	kube_ready_compute(out, &r);
	ck_assert_msg(r.status == KUBE_STATUS_CURRENT, "%s: %s", kube_status_name(r.status), r.message);
	/* an Event about it */
	kube_event ev = {.type = "Normal", .reason = "E2ETest", .message = "hello from kube-e2e",
	                 .reporting_controller = "bulkhead"};
	ck_assert_msg(kube_event_create(c, out, &ev, &e) == 0, "%s", e.msg);
	json_decref(out);
	kube_resource evr;
	ck_assert_int_eq(kube_mapping_get(c, "v1", "Event", &evr, &e), 0);
	kube_list_opts lo = {.field_selector = "reason=E2ETest"};
	json_t *list = NULL;
	ck_assert_msg(kube_list(c, &evr, NS, &lo, &list, &e) == 0, "%s", e.msg);
	int seen = 0;
	size_t i;
	json_t *it;
	json_array_foreach(json_object_get(list, "items"), i, it) {
		const char *msg = json_string_value(json_object_get(it, "message"));
		if (msg && !strcmp(msg, "hello from kube-e2e"))
			seen = 1;
	}
	ck_assert_msg(seen, "event not listed");
	json_decref(list);
	json_decref(obj);
	kube_client_free(c);
}
END_TEST

START_TEST(test_retries_against_faults)
{
	kube_client *c = client();
	bh_error e = {0};
	json_t *cm = configmap("retry-me", "retry");
	int rc = kube_create(c, &cms, NS, cm, NULL, NULL, &e);
	ck_assert_msg(rc == 0 || rc == BH_ECONFLICT, "%s", e.msg);
	json_decref(cm);
	/* two 429s with Retry-After: 1 -> success on the 3rd attempt, >= 2 s later */
	admin(c, "POST", "/_kubesim/faults",
	      "{\"action\":\"status\",\"code\":429,\"retryAfter\":1,\"count\":2,"
	      "\"match\":{\"verb\":\"get\",\"resource\":\"configmaps\",\"name\":\"retry-me\"}}");
	long t0 = now_ms();
	json_t *out = NULL;
	ck_assert_msg(kube_get(c, &cms, NS, "retry-me", NULL, &out, &e) == 0, "%s", e.msg);
	long took = now_ms() - t0;
	json_decref(out);
	ck_assert_int_eq(kube_client_last_attempts(c), 3);
	ck_assert_msg(took >= 2000 && took < 6000, "took %ld ms", took);
	/* endless 503s: gives up after the attempts budget with a clear error */
	admin(c, "POST", "/_kubesim/faults",
	      "{\"action\":\"status\",\"code\":503,\"count\":-1,"
	      "\"match\":{\"verb\":\"get\",\"resource\":\"configmaps\",\"name\":\"retry-me\"}}");
	kube_retry_policy p = {4, 50, 400, 20, 10000};
	kube_client_set_retry(c, &p);
	t0 = now_ms();
	ck_assert_int_eq(kube_get(c, &cms, NS, "retry-me", NULL, &out, &e), BH_EUNAVAIL);
	took = now_ms() - t0;
	ck_assert_int_eq(kube_client_last_attempts(c), 4);
	char want[256];
	snprintf(want, sizeof want, "giving up after 4 attempts (attempts exhausted): GET "
	         "/api/v1/namespaces/%s/configmaps/retry-me: 503 ServiceUnavailable", NS);
	ck_assert_msg(strstr(e.msg, want) != NULL, "%s", e.msg);
	ck_assert_msg(took >= 50 + 100 + 200 - 70, "backoff too short: %ld ms", took);
	/* a POST is not retried on 503 */
	admin(c, "DELETE", "/_kubesim/faults", NULL);
	admin(c, "POST", "/_kubesim/faults",
	      "{\"action\":\"status\",\"code\":503,\"count\":-1,\"match\":{\"verb\":\"create\",\"resource\":\"configmaps\"}}");
	cm = configmap("retry-post", "retry");
	/* its own client: kubesim answers an injected fault without reading
	 * the request body, which spoils that keep-alive connection */
	kube_client *pc = client();
	ck_assert_int_eq(kube_create(pc, &cms, NS, cm, NULL, NULL, &e), BH_EUNAVAIL);
	ck_assert_int_eq(kube_client_last_attempts(pc), 1);
	kube_client_free(pc);
	json_decref(cm);
	/* a request that gets no answer ends at the client's timeout */
	admin(c, "DELETE", "/_kubesim/faults", NULL);
	admin(c, "POST", "/_kubesim/faults",
	      "{\"action\":\"hang\",\"ms\":3000,\"count\":1,"
	      "\"match\":{\"verb\":\"get\",\"resource\":\"configmaps\",\"name\":\"retry-me\"}}");
	kube_client *tc = client();
	kube_client_set_timeout(tc, 500);
	t0 = now_ms();
	ck_assert_int_eq(kube_get(tc, &cms, NS, "retry-me", NULL, &out, &e), BH_ETIMEOUT);
	took = now_ms() - t0;
	ck_assert_msg(took >= 450 && took < 2500, "timeout took %ld ms", took);
	kube_client_free(tc);
	/* Retry-After longer than the remaining budget: give up at once */
	admin(c, "DELETE", "/_kubesim/faults", NULL);
	admin(c, "POST", "/_kubesim/faults",
	      "{\"action\":\"status\",\"code\":429,\"retryAfter\":30,\"count\":1,"
	      "\"match\":{\"verb\":\"get\",\"resource\":\"configmaps\",\"name\":\"retry-me\"}}");
	kube_retry_policy q = {5, 50, 400, 0, 3000};
	kube_client_set_retry(c, &q);
	t0 = now_ms();
	ck_assert_int_eq(kube_get(c, &cms, NS, "retry-me", NULL, &out, &e), BH_EUNAVAIL);
	ck_assert_msg(now_ms() - t0 < 1500, "waited although Retry-After exceeded the budget");
	ck_assert_msg(strstr(e.msg, "Retry-After exceeds the remaining retry budget") != NULL, "%s", e.msg);
	ck_assert_msg(strstr(e.msg, "429 TooManyRequests") != NULL, "%s", e.msg);
	admin(c, "DELETE", "/_kubesim/faults", NULL);
	kube_client_free(c);
}
END_TEST

START_TEST(test_pagination_exactly_once)
{
	kube_client *c = client();
	bh_error e = {0};
	enum { N = 37 };
	for (int i = 0; i < N; i++) {
		char name[32];
		snprintf(name, sizeof name, "page-%02d", i);
		json_t *cm = configmap(name, "paged");
		int rc = kube_create(c, &cms, NS, cm, NULL, NULL, &e);
		ck_assert_msg(rc == 0 || rc == BH_ECONFLICT, "%s", e.msg);
		json_decref(cm);
	}
	/* one 503 in the middle of the pages is retried transparently */
	admin(c, "POST", "/_kubesim/faults",
	      "{\"action\":\"status\",\"code\":503,\"retryAfter\":0,\"count\":1,"
	      "\"match\":{\"verb\":\"list\",\"resource\":\"configmaps\",\"path\":\"configmaps\"}}");
	admin(c, "DELETE", "/_kubesim/log", NULL);
	kube_list_opts lo = {.label_selector = "set=paged", .limit = 5};
	json_t *list = NULL;
	ck_assert_msg(kube_list(c, &cms, NS, &lo, &list, &e) == 0, "%s", e.msg);
	json_t *items = json_object_get(list, "items");
	ck_assert_uint_eq(json_array_size(items), N);
	int seen[N] = {0};
	size_t i;
	json_t *it;
	json_array_foreach(items, i, it) {
		const char *n = json_string_value(json_object_get(json_object_get(it, "metadata"), "name"));
		int k = atoi(n + 5);
		ck_assert(k >= 0 && k < N);
		seen[k]++;
	}
	for (int k = 0; k < N; k++)
		ck_assert_msg(seen[k] == 1, "page-%02d seen %d times", k, seen[k]);
	json_decref(list);
	/* the request log shows ceil(37/5) = 8 pages plus the retried one */
	json_t *logtext = NULL;
	kube_request req = {.method = "GET", .path = "/_kubesim/log"};
	kube_response resp = KUBE_RESPONSE_INIT;
	ck_assert_int_eq(kube_request_send(c, &req, &resp, &e), 0);
	int lists = 0;
	for (const char *p = bh_buf_str(&resp.body); (p = strstr(p, "\"verb\":\"list\"")); p++)
		lists++;
	ck_assert_int_eq(lists, 9);
	kube_response_free(&resp);
	json_decref(logtext);
	admin(c, "DELETE", "/_kubesim/faults", NULL);
	kube_client_free(c);
}
END_TEST

/* ---- watch: no event lost across dropped connections ---- */

enum { WN = 40 };

struct watcher {
	int added[WN];
	int relists;
	int total;
	int dup;
};

static int watch_fn(void *ud, kube_watch_type t, json_t *obj)
{
	struct watcher *w = ud;
	if (t == KUBE_WATCH_RELIST) {
		w->relists++;
		return 0;
	}
	const char *n = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
	if (t == KUBE_WATCH_ADDED && n && !strncmp(n, "w-", 2)) {
		int k = atoi(n + 2);
		if (k >= 0 && k < WN) {
			if (w->added[k])
				w->dup++;
			w->added[k]++;
			w->total++;
		}
	}
	return w->total >= WN;
}

static void *writer(void *arg)
{
	(void)arg;
	bh_error e = {0};
	kube_client *c = kube_curl_client_new(cfg, &e);
	if (!c)
		return NULL;
	for (int i = 0; i < WN; i++) {
		char name[32];
		snprintf(name, sizeof name, "w-%02d", i);
		json_t *cm = configmap(name, "watched");
		kube_create(c, &cms, NS, cm, NULL, NULL, &e);
		json_decref(cm);
		usleep(25000);
		if (i % 10 == 5) {
			/* no body: kubesim's admin endpoints do not read one */
			kube_request_json(c, "POST", "/_kubesim/close-watches", NULL, NULL, NULL, &e);
		}
	}
	kube_client_free(c);
	return NULL;
}

START_TEST(test_watch_no_event_lost)
{
	kube_client *c = client();
	bh_error e = {0};
	/* every watch of configmaps is closed by the server after 150 ms, and
	 * two reconnects are dropped without any answer (connection reset) */
	admin(c, "POST", "/_kubesim/faults",
	      "{\"action\":\"closeWatch\",\"afterMs\":150,\"count\":-1,\"match\":{\"resource\":\"configmaps\"}}");
	admin(c, "POST", "/_kubesim/faults",
	      "{\"action\":\"hang\",\"ms\":100,\"count\":2,\"match\":{\"verb\":\"watch\",\"resource\":\"configmaps\"}}");
	struct watcher w = {{0}, 0, 0, 0};
	pthread_t th;
	/* the list happens first (RELIST), then the writer starts */
	kube_watch_opts wo = {.label_selector = "set=watched", .max_seconds = 30, .timeout_seconds = 30};
	json_t *list = NULL;
	kube_list_opts lo = {.label_selector = "set=watched"};
	ck_assert_int_eq(kube_list(c, &cms, NS, &lo, &list, &e), 0);
	ck_assert_uint_eq(json_array_size(json_object_get(list, "items")), 0);
	const char *rv = json_string_value(json_object_get(json_object_get(list, "metadata"), "resourceVersion"));
	char rvbuf[64];
	snprintf(rvbuf, sizeof rvbuf, "%s", rv);
	json_decref(list);
	wo.resource_version = rvbuf;
	pthread_create(&th, NULL, writer, NULL);
	admin(c, "DELETE", "/_kubesim/log", NULL);
	int rc = kube_watch(c, &cms, NS, &wo, watch_fn, &w, &e);
	pthread_join(th, NULL);
	ck_assert_msg(rc == 0, "%s", e.msg);
	for (int k = 0; k < WN; k++)
		ck_assert_msg(w.added[k] == 1, "w-%02d seen %d times", k, w.added[k]);
	ck_assert_int_eq(w.dup, 0);
	ck_assert_int_eq(w.relists, 0);
	/* and there really were several watch connections */
	kube_request req = {.method = "GET", .path = "/_kubesim/log"};
	kube_response resp = KUBE_RESPONSE_INIT;
	ck_assert_int_eq(kube_request_send(c, &req, &resp, &e), 0);
	int watches = 0;
	for (const char *p = bh_buf_str(&resp.body); (p = strstr(p, "\"verb\":\"watch\"")); p++)
		watches++;
	ck_assert_msg(watches >= 3, "only %d watch connections", watches);
	kube_response_free(&resp);
	admin(c, "DELETE", "/_kubesim/faults", NULL);
	kube_client_free(c);
}
END_TEST

struct relist_state {
	int relists;
	size_t items;
};

static int relist_fn(void *ud, kube_watch_type t, json_t *obj)
{
	struct relist_state *s = ud;
	if (t == KUBE_WATCH_RELIST) {
		s->relists++;
		s->items = json_array_size(json_object_get(obj, "items"));
		return 1;
	}
	return 0;
}

START_TEST(test_watch_relist_after_410)
{
	kube_client *c = client();
	bh_error e = {0};
	json_t *list = NULL;
	kube_list_opts lo = {.label_selector = "set=relist"};
	ck_assert_int_eq(kube_list(c, &cms, NS, &lo, &list, &e), 0);
	char rv[64];
	snprintf(rv, sizeof rv, "%s",
	         json_string_value(json_object_get(json_object_get(list, "metadata"), "resourceVersion")));
	json_decref(list);
	for (int i = 0; i < 3; i++) {
		char name[32];
		snprintf(name, sizeof name, "relist-%d", i);
		json_t *cm = configmap(name, "relist");
		int rc = kube_create(c, &cms, NS, cm, NULL, NULL, &e);
		ck_assert_msg(rc == 0 || rc == BH_ECONFLICT, "%s", e.msg);
		json_decref(cm);
	}
	/* forget the history: watching from rv is now 410 Gone */
	admin(c, "POST", "/_kubesim/compact", NULL);
	struct relist_state s = {0, 0};
	kube_watch_opts wo = {.resource_version = rv, .label_selector = "set=relist", .max_seconds = 20};
	int rc = kube_watch(c, &cms, NS, &wo, relist_fn, &s, &e);
	ck_assert_msg(rc == 0, "%s", e.msg);
	ck_assert_int_eq(s.relists, 1);
	ck_assert_uint_eq(s.items, 3);
	ck_assert_str_ne(kube_watch_last_rv(c), rv);
	kube_client_free(c);
}
END_TEST

START_TEST(test_impersonation_forbidden)
{
	kube_client *c = client();
	bh_error e = {0};
	const char *groups[] = {"system:serviceaccounts", NULL};
	char sa[128];
	snprintf(sa, sizeof sa, "system:serviceaccount:%s:nobody", NS);
	ck_assert_int_eq(kube_client_set_impersonation(c, sa, groups, &e), 0);
	ck_assert_int_eq(kube_get(c, &cms, NS, "anything", NULL, NULL, &e), BH_EDENIED);
	ck_assert_msg(strstr(e.msg, "403 Forbidden") != NULL, "%s", e.msg);
	ck_assert_msg(strstr(e.msg, sa) != NULL, "%s", e.msg);
	kube_client_free(c);
}
END_TEST

START_TEST(test_tls_server_name_and_token_file)
{
	bh_error e = {0};
	/* kubesim's serving certificate names kubernetes.default.svc: with
	 * tls-server-name we connect to 127.0.0.1 but verify that name */
	kube_config *c2 = kube_config_dup(cfg, &e);
	ck_assert_ptr_nonnull(c2);
	c2->tls_server_name = strdup("kubernetes.default.svc");
	kube_client *c = kube_curl_client_new(c2, &e);
	ck_assert_ptr_nonnull(c);
	json_t *v = NULL;
	ck_assert_msg(kube_request_json(c, "GET", "/version", NULL, NULL, &v, &e) == 0, "%s", e.msg);
	json_decref(v);
	kube_client_free(c);
	/* a name the certificate does not carry fails verification, not retried */
	free(c2->tls_server_name);
	c2->tls_server_name = strdup("not-the-server.example.com");
	c = kube_curl_client_new(c2, &e);
	ck_assert_int_eq(kube_request_json(c, "GET", "/version", NULL, NULL, &v, &e), BH_EINVAL);
	ck_assert_int_eq(kube_client_last_attempts(c), 1);
	kube_client_free(c);
	/* bearer token from a file (kubesim writes admin.token next to the kubeconfig) */
	free(c2->tls_server_name);
	c2->tls_server_name = NULL;
	free(c2->cert_pem);
	free(c2->key_pem);
	c2->cert_pem = c2->key_pem = NULL;
	char path[1024];
	snprintf(path, sizeof path, "%s", getenv("KUBE_E2E_KUBECONFIG"));
	char *slash = strrchr(path, '/');
	ck_assert_ptr_nonnull(slash);
	snprintf(slash + 1, sizeof path - (size_t)(slash + 1 - path), "admin.token");
	if (access(path, R_OK) == 0) {
		c2->token_file = strdup(path);
		c = kube_curl_client_new(c2, &e);
		ck_assert_msg(kube_get(c, &cms, NS, "nope", NULL, NULL, &e) == BH_ENOTFOUND, "%s", e.msg);
		kube_client_free(c);
	}
	/* an exec credential plugin handing out the same token */
	if (access(path, R_OK) == 0) {
		char dir[64] = "/tmp/bh-kube-e2e-exec.XXXXXX", plugin[128];
		ck_assert_ptr_nonnull(mkdtemp(dir));
		snprintf(plugin, sizeof plugin, "%s/plugin", dir);
		FILE *f = fopen(plugin, "w");
		ck_assert_ptr_nonnull(f);
		fprintf(f, "#!/bin/sh\nprintf '{\"kind\":\"ExecCredential\",\"apiVersion\":"
		           "\"client.authentication.k8s.io/v1\",\"status\":{\"token\":\"%%s\"}}' \"$(cat '%s')\"\n",
		        path);
		fclose(f);
		chmod(plugin, 0700);
		c2->exec_argv = calloc(2, sizeof(char *));
		c2->exec_argv[0] = strdup(plugin);
		c2->exec_api_version = strdup("client.authentication.k8s.io/v1");
		c = kube_curl_client_new(c2, &e);
		ck_assert_msg(kube_get(c, &cms, NS, "nope", NULL, NULL, &e) == BH_ENOTFOUND, "%s", e.msg);
		kube_client_free(c);
		free(c2->exec_argv[0]);
		free(c2->exec_argv);
		free(c2->exec_api_version);
		c2->exec_argv = NULL;
		c2->exec_api_version = NULL;
		unlink(plugin);
		rmdir(dir);
	}
	/* and no credentials at all: anonymous is refused */
	free(c2->token_file);
	c2->token_file = NULL;
	c = kube_curl_client_new(c2, &e);
	int rc = kube_get(c, &cms, NS, "nope", NULL, NULL, &e);
	ck_assert_msg(rc == BH_EDENIED, "%d %s", rc, e.msg);
	kube_client_free(c);
	kube_config_free(c2);
}
END_TEST

/* Helm's APIVersions against `kubectl api-versions` (the real client's
 * discovery), when the wrapper saved its output. */
START_TEST(test_api_versions)
{
	kube_client *c = client();
	bh_error e = {0};
	json_t *vs = NULL;
	ck_assert_msg(kube_discovery_api_versions(c, &vs, &e) == 0, "%s", e.msg);
	char *txt = json_dumps(vs, JSON_COMPACT);
	ck_assert_ptr_nonnull(strstr(txt, "\"apps/v1/Deployment\""));
	ck_assert_ptr_nonnull(strstr(txt, "\"v1/ConfigMap\""));
	const char *golden = getenv("KUBE_E2E_API_VERSIONS");
	FILE *f = golden && *golden ? fopen(golden, "r") : NULL;
	int lines = 0;
	char line[256];
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (!*line)
			continue;
		char q[300];
		snprintf(q, sizeof q, "\"%s\"", line);
		ck_assert_msg(strstr(txt, q) != NULL, "kubectl api-versions lists %s, we do not", line);
		lines++;
	}
	if (f) {
		fclose(f);
		ck_assert_int_gt(lines, 5);
	}
	free(txt);
	json_decref(vs);
	char ver[64];
	ck_assert_int_eq(kube_server_version(c, ver, sizeof ver, &e), 0);
	ck_assert_int_eq(ver[0], 'v');
	kube_client_free(c);
}
END_TEST

START_TEST(test_deployment_ready)
{
	kube_client *c = client();
	bh_error e = {0};
	kube_resource dep;
	ck_assert_int_eq(kube_mapping_get(c, "apps/v1", "Deployment", &dep, &e), 0);
	const char *def = "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\"},"
	                  "\"spec\":{\"replicas\":2,\"selector\":{\"matchLabels\":{\"app\":"
	                  "\"web\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":"
	                  "[{\"name\":\"c\",\"image\":\"nginx\"}]}}}}";
	json_t *obj = json_loads(def, 0, NULL);
	kube_write_opts wo = {.field_manager = "kube-e2e"};
	ck_assert_msg(kube_apply(c, &dep, NS, obj, &wo, NULL, &e) == 0, "%s", e.msg);
	json_decref(obj);
	/* right after the apply it is not ready yet; then kube_wait sees it through */
	json_t *got = NULL;
	ck_assert_int_eq(kube_get(c, &dep, NS, "web", NULL, &got, &e), 0);
	kube_ready r = {0};
	kube_ready_compute(got, &r);
	ck_assert_msg(r.status == KUBE_STATUS_IN_PROGRESS, "%s: %s", kube_status_name(r.status), r.message);
	json_object_set_new(json_object_get(got, "metadata"), "namespace", json_string(NS));
	kube_wait_opts wopt = {.mode = KUBE_WAIT_READY, .timeout_ms = 20000, .interval_ms = 200};
	ck_assert_msg(kube_wait(c, &got, 1, &wopt, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(kube_get(c, &dep, NS, "web", NULL, &obj, &e), 0);
	kube_ready_compute(obj, &r);
	ck_assert_str_eq(r.message, "Deployment is available. Replicas: 2");
	json_decref(obj);
	/* a Job that fails: --wait-for-jobs reports it with Helm's message */
	kube_resource jobs;
	ck_assert_int_eq(kube_mapping_get(c, "batch/v1", "Job", &jobs, &e), 0);
	json_t *job = json_loads("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"task\"},"
	                         "\"spec\":{\"backoffLimit\":0,\"template\":{\"spec\":{\"restartPolicy\":\"Never\","
	                         "\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}}", 0, NULL);
	ck_assert_msg(kube_create(c, &jobs, NS, job, NULL, NULL, &e) == 0, "%s", e.msg);
	char p[256];
	snprintf(p, sizeof p, "/_kubesim/jobs/%s/task/outcome", NS);
	admin(c, "POST", p, "{\"outcome\":\"Failed\"}");
	json_object_set_new(json_object_get(job, "metadata"), "namespace", json_string(NS));
	json_t *both[2] = {got, job};
	wopt.mode = KUBE_WAIT_JOBS;
	ck_assert_int_eq(kube_wait(c, both, 2, &wopt, &e), BH_EEXEC);
	char want[256];
	snprintf(want, sizeof want, "resource Job/%s/task not ready. status: Failed, message: Job Failed. failed: 1/1", NS);
	ck_assert_str_eq(e.msg, want);
	json_decref(job);
	json_decref(got);
	kube_client_free(c);
}
END_TEST

int main(void)
{
	const char *path = getenv("KUBE_E2E_KUBECONFIG");
	if (!path || !*path) {
		printf("SKIP: KUBE_E2E_KUBECONFIG is not set (run tests/e2e/kube_client.sh)\n");
		return 77;
	}
	bh_error e = {0};
	snprintf(NS, sizeof NS, "kube-e2e-%d", (int)getpid());
	snprintf(GROUP, sizeof GROUP, "e2e%d.example.com", (int)getpid());
	cfg = kube_config_load(path, NULL, &e);
	if (!cfg) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	Suite *s = suite_create("kube-e2e");
	TCase *tc = tcase_create("kubesim");
	tcase_set_timeout(tc, 90);
	tcase_add_test(tc, test_setup_namespace);
	tcase_add_test(tc, test_crud_and_errors);
	tcase_add_test(tc, test_crd_mapping_status_events);
	tcase_add_test(tc, test_retries_against_faults);
	tcase_add_test(tc, test_pagination_exactly_once);
	tcase_add_test(tc, test_watch_no_event_lost);
	tcase_add_test(tc, test_watch_relist_after_410);
	tcase_add_test(tc, test_impersonation_forbidden);
	tcase_add_test(tc, test_tls_server_name_and_token_file);
	tcase_add_test(tc, test_api_versions);
	tcase_add_test(tc, test_deployment_ready);
	suite_add_tcase(s, tc);
	int rc = unit_run(s);
	kube_config_free(cfg);
	return rc;
}
