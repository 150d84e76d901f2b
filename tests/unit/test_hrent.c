/* tests/unit/test_hrent.c — supervisor/hrent.c: the cache's compact
 * HelmRelease keeps the object (without managedFields) and the flags the
 * queue reads, and its copy in another allocation stands on its own. */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/hccache.h"
#include "supervisor/hrent.h"
#include "tests/unit/unit_util.h"

static const char full[] =
	"{\"apiVersion\":\"helm.toolkit.fluxcd.io/v2\",\"kind\":\"HelmRelease\","
	"\"metadata\":{\"name\":\"app\",\"namespace\":\"team\",\"uid\":\"u-1\",\"generation\":3,"
	"\"finalizers\":[\"other\",\"finalizers.fluxcd.io\"],"
	"\"annotations\":{\"reconcile.fluxcd.io/requestedAt\":\"t2\"},"
	"\"managedFields\":[{\"manager\":\"kubectl\",\"fieldsV1\":{\"f:spec\":{}}}]},"
	"\"spec\":{\"interval\":\"1m\",\"chartRef\":{\"kind\":\"OCIRepository\",\"name\":\"podinfo\"},\"x\":1.5e300},"
	"\"status\":{\"observedGeneration\":3,\"lastAttemptedGeneration\":3,\"lastHandledReconcileAt\":\"t1\","
	"\"history\":[{\"name\":\"\\u00e9\"}]}}";

START_TEST(test_round_trip)
{
	json_t *hr = json_loads(full, 0, NULL), *want = json_loads(full, 0, NULL), *back;
	hr_ent *h, *c;
	ck_assert_ptr_nonnull(hr);
	json_object_del(json_object_get(want, "metadata"), "managedFields");
	json_object_del(json_object_get(hr, "metadata"), "managedFields"); /* as kube_watch delivers it */
	h = hrent_new(hr, NULL, 0); /* no text: hr encoded */
	ck_assert_ptr_nonnull(h);
	ck_assert_ptr_null(strstr(h->text, "managedFields"));
	c = hrent_dup(h);
	memset(h, 0xa5, h->size); /* the copy reads nothing of the original */
	free(h);
	back = hrent_tree_new(c);
	ck_assert(json_equal(back, want));
	ck_assert_str_eq(c->ns, "team");
	ck_assert_str_eq(c->name, "app");
	ck_assert_str_eq(c->uid, "u-1");
	ck_assert_str_eq(c->req, "t2");
	ck_assert_int_eq(c->gen, 3);
	ck_assert(c->finalizer && !c->deleted && !c->suspend);
	ck_assert(c->fin_list);
	ck_assert(c->wants_req && c->wants); /* t2 not handled (t1 was) */
	ck_assert(c->has_src);
	ck_assert_str_eq(c->src_kind, "OCIRepository");
	ck_assert_str_eq(c->src_ns, "team");
	ck_assert_str_eq(c->src_name, "podinfo");
	json_decref(back);
	json_decref(want);
	json_decref(hr);
	free(c);
}
END_TEST

START_TEST(test_flags)
{
	json_t *hr = json_loads("{\"metadata\":{\"name\":\"a\",\"generation\":2,\"deletionTimestamp\":\"x\"},"
				"\"spec\":{\"suspend\":true,\"chart\":{\"spec\":{\"sourceRef\":{\"namespace\":\"src\"}}}},"
				"\"status\":{\"lastAttemptedGeneration\":1}}",
				0, NULL);
	hr_ent *h = hrent_new(hr, NULL, 0);
	ck_assert_ptr_nonnull(h);
	ck_assert_str_eq(h->ns, "");
	ck_assert_str_eq(h->uid, "");
	ck_assert_ptr_null(h->req);
	ck_assert(!h->finalizer && h->deleted && h->suspend);
	ck_assert(!h->fin_list); /* no list: our finalizer's patch adds one (main.c) */
	ck_assert(!h->wants); /* suspended */
	ck_assert(!h->wants_req);
	ck_assert_str_eq(h->src_kind, "HelmChart");
	ck_assert_str_eq(h->src_ns, "src");
	ck_assert_str_eq(h->src_name, "-a");
	free(h);
	/* a new generation not attempted; a chartRef without a name: no source */
	json_object_set_new(json_object_get(hr, "spec"), "suspend", json_false());
	json_object_set_new(json_object_get(hr, "spec"), "chartRef", json_pack("{s:s}", "kind", "HelmChart"));
	h = hrent_new(hr, NULL, 0);
	ck_assert(h->wants && !h->has_src);
	free(h);
	/* an empty list, or others' finalizers: a list the patch tests */
	json_object_set_new(json_object_get(hr, "metadata"), "finalizers", json_array());
	h = hrent_new(hr, NULL, 0);
	ck_assert(h->fin_list && !h->finalizer);
	free(h);
	json_decref(hr);
}
END_TEST

/* The text the watch event carried is kept as it is, not encoded again:
 * only its len bytes, NUL-terminated in the copy. */
/* hrent_unread: what hrent_new reads is the same without those members */
START_TEST(test_unread)
{
	static const char *const objs[] = {
		full,
		"{\"metadata\":{\"name\":\"a\",\"namespace\":\"n\",\"generation\":2,\"annotations\":"
		"{\"reconcile.fluxcd.io/requestedAt\":\"r\"}},\"spec\":{\"suspend\":false,\"values\":{\"a\":[1]},"
		"\"postRenderers\":[{\"kustomize\":{}}],\"chart\":{\"spec\":{\"sourceRef\":{\"namespace\":\"s\"}}}},"
		"\"status\":{\"observedGeneration\":1,\"conditions\":[],\"history\":[]}}",
	};
	for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) {
		json_t *hr = json_loads(objs[i], 0, NULL), *slim = json_deep_copy(hr);
		hr_ent *a, *b;
		ck_assert_ptr_nonnull(hr);
		for (const char *const *u = hrent_unread; *u; u++) {
			char top[64];
			const char *dot = strchr(*u, '.');
			ck_assert_ptr_nonnull(dot);
			snprintf(top, sizeof top, "%.*s", (int)(dot - *u), *u);
			json_object_del(json_object_get(slim, top), dot + 1);
		}
		a = hrent_new(hr, objs[i], strlen(objs[i]));
		b = hrent_new(slim, objs[i], strlen(objs[i]));
		ck_assert_ptr_nonnull(a);
		ck_assert_ptr_nonnull(b);
		ck_assert_int_eq(a->gen, b->gen);
		ck_assert(a->finalizer == b->finalizer && a->deleted == b->deleted && a->suspend == b->suspend);
		ck_assert(a->wants == b->wants && a->wants_req == b->wants_req && a->has_src == b->has_src);
		ck_assert(a->fin_list == b->fin_list);
		ck_assert_str_eq(a->ns, b->ns);
		ck_assert_str_eq(a->name, b->name);
		ck_assert_str_eq(a->uid, b->uid);
		ck_assert(a->req && b->req && !strcmp(a->req, b->req));
		ck_assert_str_eq(a->src_kind, b->src_kind);
		ck_assert_str_eq(a->src_ns, b->src_ns);
		ck_assert_str_eq(a->src_name, b->src_name);
		ck_assert_str_eq(a->text, b->text);
		free(a);
		free(b);
		json_decref(hr);
		json_decref(slim);
	}
}
END_TEST

START_TEST(test_event_text)
{
	static const char line[] = "{ \"metadata\" : {\"name\":\"a\",\"namespace\":\"n\",\"generation\":4} }, more";
	size_t len = strlen(line) - strlen(", more");
	json_t *hr = json_loadb(line, len, 0, NULL), *back;
	hr_ent *h = hrent_new(hr, line, len);
	ck_assert_ptr_nonnull(h);
	ck_assert_uint_eq(h->len, len);
	ck_assert_int_eq(memcmp(h->text, line, len), 0);
	ck_assert_int_eq(h->text[len], '\0');
	ck_assert_str_eq(h->name, "a");
	ck_assert_int_eq(h->gen, 4);
	back = hrent_tree_new(h);
	ck_assert(json_equal(back, hr));
	json_decref(back);
	json_decref(hr);
	free(h);
}
END_TEST

/* the HelmChart cache (hccache.h): a reference taken stays as it was when
 * the cache replaces or drops the object */
START_TEST(test_hccache_shares)
{
	json_t *v1 = json_pack("{s:{s:s,s:s},s:{s:{s:s}}}", "metadata", "namespace", "t", "name", "c", "status", "artifact",
			       "digest", "sha256:1");
	json_t *v2 = json_pack("{s:{s:s,s:s},s:{s:{s:s}}}", "metadata", "namespace", "t", "name", "c", "status", "artifact",
			       "digest", "sha256:2");
	json_t *got, *got2;
	char d[80];
	ck_assert_ptr_null(hccache_get_new("t", "c"));
	hccache_event(KUBE_WATCH_ADDED, v1);
	got = hccache_get_new("t", "c");
	ck_assert(got && json_equal(got, v1) && got != v1); /* the cache keeps its own copy */
	hccache_event(KUBE_WATCH_MODIFIED, v2);
	ck_assert(json_equal(got, v1)); /* replaced, not changed */
	got2 = hccache_get_new("t", "c");
	ck_assert(json_equal(got2, v2));
	ck_assert_int_eq(hccache_digest("t", "c", d, sizeof d), 0);
	ck_assert_str_eq(d, "sha256:2");
	hccache_event(KUBE_WATCH_DELETED, v2);
	ck_assert_ptr_null(hccache_get_new("t", "c"));
	ck_assert(json_equal(got2, v2));
	json_decref(got);
	json_decref(got2);
	json_decref(v1);
	json_decref(v2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hrent");
	TCase *tc = tcase_create("hrent");
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_flags);
	tcase_add_test(tc, test_unread);
	tcase_add_test(tc, test_event_text);
	tcase_add_test(tc, test_hccache_shares);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
