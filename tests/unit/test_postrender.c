/* tests/unit/test_postrender.c — the manifest pipeline's pieces that the
 * kustomize conformance cases do not reach: helm/postrender.h over rendered
 * files (Helm 4's combined strategy: files split back, partials and blank
 * files skipped, hooks included, the filename annotation removed; Flux's
 * order commonMetadata then origin labels), strict decoding, the
 * observed*Digest values (goldens: sha256 of the Go json.Encoder text
 * written out by hand below), JSON pointers, and drift's JSON diff. */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "helm/kustomize.h"
#include "helm/postrender.h"
#include "worker/drift.h"
#include "worker/manifest.h"
#include "tests/unit/unit_util.h"

START_TEST(test_files)
{
	json_t *spec = unit_json_new("{\"postRenderers\":[{\"kustomize\":{\"patches\":[{\"patch\":\"- op: add\\n  path: /data/b\\n"
			    "  value: x\\n\",\"target\":{\"kind\":\"ConfigMap\"}}]}}],"
			    "\"commonMetadata\":{\"labels\":{\"team\":\"t\",\"helm.toolkit.fluxcd.io/name\":\"no\"},"
			    "\"annotations\":{\"owner\":\"o\"}}}");
	postrender *p = NULL;
	bh_error e;
	char **paths = calloc(4, sizeof *paths), **texts = calloc(4, sizeof *texts);
	size_t n = 4;
	paths[0] = strdup("c/templates/z.yaml");
	texts[0] = strdup("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    team: chart\n"
			  "data:\n  s: |\n    line\n---\n# only a comment\n---\napiVersion: v1\nkind: Pod\n"
			  "metadata:\n  name: h\n  annotations:\n    helm.sh/hook: test\n");
	paths[1] = strdup("c/templates/_helpers.tpl");
	texts[1] = strdup("{{- define \"x\" }}{{ end }}");
	paths[2] = strdup("c/templates/blank.yaml");
	texts[2] = strdup("  \n");
	paths[3] = strdup("c/templates/a.yaml");
	texts[3] = strdup("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n");
	ck_assert_int_eq(postrender_new(spec, "hr", "ns", &p, &e), 0);
	ck_assert_int_eq(postrender_files(p, &paths, &texts, &n, &e), 0);
	ck_assert_int_eq(n, 2);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(paths[i], "c/templates/a.yaml")) {
			ck_assert_str_eq(texts[i], "apiVersion: v1\nkind: Secret\nmetadata:\n  annotations:\n    owner: o\n"
						   "  labels:\n    helm.toolkit.fluxcd.io/name: hr\n"
						   "    helm.toolkit.fluxcd.io/namespace: ns\n    team: t\n  name: s\n");
		} else {
			ck_assert_str_eq(paths[i], "c/templates/z.yaml");
			ck_assert_ptr_nonnull(strstr(texts[i], "data:\n  b: x\n  s: |\n    line\n"));
			ck_assert_ptr_nonnull(strstr(texts[i], "\n---\napiVersion: v1\nkind: Pod\n"));
			ck_assert_ptr_nonnull(strstr(texts[i], "helm.sh/hook: test"));
			ck_assert_ptr_null(strstr(texts[i], "postrender-filename"));
			ck_assert_ptr_null(strstr(texts[i], "team: chart"));
		}
		free(paths[i]);
		free(texts[i]);
	}
	free(paths);
	free(texts);
	postrender_free(p);
	json_decref(spec);
}
END_TEST

/* One file (c/templates/cm.yaml, text) through the chain of the
 * HelmRelease .spec spec: the file's text after it (the caller frees it). */
static char *render_one(const char *spec, const char *text)
{
	json_t *s = unit_json_new(spec);
	postrender *p = NULL;
	bh_error e;
	char **paths = calloc(1, sizeof *paths), **texts = calloc(1, sizeof *texts), *out;
	size_t n = 1;
	paths[0] = strdup("c/templates/cm.yaml");
	texts[0] = strdup(text);
	ck_assert_int_eq(postrender_new(s, "hr", "ns", &p, &e), 0);
	if (postrender_files(p, &paths, &texts, &n, &e) < 0)
		ck_abort_msg("%s", e.msg);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(paths[0], "c/templates/cm.yaml");
	out = texts[0];
	free(paths[0]);
	free(paths);
	free(texts);
	postrender_free(p);
	json_decref(s);
	return out;
}

/* two kustomize post-renderers: the second reads the text the first
 * printed (a label 12345678901234567890 is that text to its labelSelector) */
START_TEST(test_files_chain)
{
	char *out = render_one(
		"{\"postRenderers\":[{\"kustomize\":{\"patches\":[{\"patch\":\"kind: ConfigMap\\nmetadata:\\n  name: any\\n"
		"data:\\n  b: x\\n\",\"target\":{\"kind\":\"ConfigMap\"}}]}},{\"kustomize\":{\"patches\":[{\"patch\":\"apiVersion: v1\\nkind: "
		"ConfigMap\\nmetadata:\\n  name: any\\n  labels:\\n    second: by-big\\n\",\"target\":{\"labelSelector\":"
		"\"big=12345678901234567890\"}}]}}]}",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    big: 12345678901234567890\ndata:\n  a: z\n");
	ck_assert_str_eq(out, "apiVersion: v1\ndata:\n  a: z\n  b: x\nkind: ConfigMap\nmetadata:\n  labels:\n"
			      "    big: 12345678901234567890\n    helm.toolkit.fluxcd.io/name: hr\n"
			      "    helm.toolkit.fluxcd.io/namespace: ns\n    second: by-big\n  name: a\n");
	free(out);
}
END_TEST

/* without a kustomize post-renderer an integer above int64 still comes out
 * exactly (kustomize's resource map writes uint64 digits) */
START_TEST(test_files_uint64)
{
	char *out = render_one("{}", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  b: 12345678901234567890\n"
				     "  c: 18446744073709551616\n");
	ck_assert_ptr_nonnull(strstr(out, "  b: 12345678901234567890\n  c: 1.8446744073709552e+19\n"));
	free(out);
}
END_TEST

/* One file through the chain of spec: the error (the caller frees it). */
static char *render_error(const char *spec, const char *text)
{
	json_t *s = unit_json_new(spec);
	postrender *p = NULL;
	bh_error e;
	char **paths = calloc(1, sizeof *paths), **texts = calloc(1, sizeof *texts), *msg = NULL;
	size_t n = 1;
	paths[0] = strdup("c/templates/cm.yaml");
	texts[0] = strdup(text);
	ck_assert_int_eq(postrender_new(s, "hr", "ns", &p, &e), 0);
	if (postrender_files(p, &paths, &texts, &n, &e) < 0)
		msg = strdup(e.msg);
	ck_assert_int_eq(n, 1); /* the files as they were */
	ck_assert_str_eq(texts[0], text);
	free(paths[0]);
	free(texts[0]);
	free(paths);
	free(texts);
	postrender_free(p);
	json_decref(s);
	return msg;
}

/* A mapping key twice fails as Flux's post-renderers fail on it (kustomize's
 * resource map unmarshals each object with yaml.v3's unique keys), with the
 * origin labels alone too (Flux always runs them), Helm's text before it.
 * For data_twice the text after the prefix is kubectl kustomize v5.7.1's
 * for the same document. The lines named are the document's as rendered;
 * kustomize counts them in the object as it re-prints it (for both_twice,
 * after rebuilding the annotations: 9 and 8). A kustomize build lets keys
 * twice in metadata.annotations pass (it rebuilds them), the origin labels
 * alone do not. */
START_TEST(test_duplicate_keys)
{
	static const char *const kz = "{\"postRenderers\":[{\"kustomize\":{\"images\":[{\"name\":\"x\",\"newTag\":\"1\"}]}}]}";
	const char *data_twice = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    x: \"1\"\n"
				 "data:\n  k: \"1\"\n  k: \"2\"\n  j: \"3\"\n  j: \"4\"\n";
	const char *both_twice = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    x: \"1\"\n"
				 "    x: \"2\"\ndata:\n  k: \"1\"\n  k: \"2\"\n";
	const char *annotation_twice = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n"
				       "    x: \"1\"\n    x: \"2\"\n";
	char *m;
	m = render_error("{}", data_twice);
	ck_assert_str_eq(m, "error while running post render on files: map[string]interface {}(nil): yaml: unmarshal "
			    "errors:\n  line 9: mapping key \"k\" already defined at line 8\n  line 11: mapping key \"j\" "
			    "already defined at line 10");
	free(m);
	m = render_error(kz, both_twice);
	ck_assert_str_eq(m, "error while running post render on files: map[string]interface {}(nil): yaml: unmarshal "
			    "errors:\n  line 10: mapping key \"k\" already defined at line 9");
	free(m);
	m = render_error("{}", annotation_twice);
	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(strstr(m, "line 7: mapping key \"x\" already defined at line 6"));
	free(m);
	{ /* through a kustomize build, the last annotation counts */
		char *out = render_one(kz, annotation_twice);
		ck_assert_ptr_nonnull(strstr(out, "  annotations:\n    x: \"2\"\n"));
		free(out);
	}
}
END_TEST

START_TEST(test_refused)
{
	static const char *const bad[] = {
		"{\"postRenderers\":[{\"helm\":{}}]}",
		"{\"postRenderers\":[{\"kustomize\":{\"patchesStrategicMerge\":[]}}]}",
		"{\"postRenderers\":[{\"kustomize\":{\"images\":[{\"newTag\":\"1\"}]}}]}",
		/* a key twice in a strategic merge patch: kyaml merges the first */
		"{\"postRenderers\":[{\"kustomize\":{\"patches\":[{\"patch\":\"apiVersion: v1\\nkind: ConfigMap\\n"
		"metadata:\\n  name: a\\ndata:\\n  x: \\\"1\\\"\\ndata:\\n  y: \\\"2\\\"\"}]}}]}",
		"{\"commonMetadata\":{\"labels\":{\"a\":1}}}",
		"{\"commonMetadata\":{\"finalizers\":[]}}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		json_t *spec = unit_json_new(bad[i]);
		postrender *p = NULL;
		bh_error e;
		ck_assert_msg(postrender_new(spec, "a", "b", &p, &e) < 0, "accepted %s", bad[i]);
		ck_assert_ptr_null(p);
		json_decref(spec);
	}
}
END_TEST

/* What kustomize refuses when it builds fails the render as Flux's
 * post-renderer fails (Helm's text, then kustomize's), not the decoding. */
START_TEST(test_refused_at_render)
{
	static const char *const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    a: b\n";
	static const char *const bad[][2] = {
		{"{\"postRenderers\":[{\"kustomize\":{\"patches\":[{\"patch\":\"- op: add\\n  path: /x\\n  value: 1\"}]}}]}",
		 "error while running post render on files: must specify a target for JSON patch "
		 "[patch: \"- op: add\\n  path: /x\\n  value: 1\"]"},
		{"{\"postRenderers\":[{\"kustomize\":{\"patches\":[{\"patch\":\"kind: ConfigMap\\nmetadata: {name: a}\","
		 "\"target\":{\"kind\":\"(\"}}]}}]}",
		 "error while running post render on files: unable to find patch target \"(.[noVer].[noGrp]/[noName].[noNs]:a=:l=\" "
		 "in `resources`: error parsing regexp: missing closing ): `^(?:()$`"},
		{"{\"postRenderers\":[{\"kustomize\":{\"patches\":[{\"patch\":\"\"}]}}]}",
		 "error while running post render on files: trouble configuring builtin PatchTransformer with config: `\n"
		 "{}\n`: must specify one of patch and path in\n{}\n"},
		{"{\"postRenderers\":[{\"kustomize\":{\"patches\":[{\"patch\":\"a: 1\",\"target\":{\"labelSelector\":\"a in (\"}}]}}]}",
		 "error while running post render on files: trouble configuring builtin PatchTransformer with config: `\n"
		 "patch: 'a: 1'\ntarget:\n  labelSelector: a in (\n`: unable to parse SM or JSON patch from [patch: \"a: 1\"]"},
		{"{\"postRenderers\":[{\"kustomize\":{\"patches\":[{\"patch\":\"[]\",\"target\":{\"labelSelector\":\"a in (\"}}]}}]}",
		 "error while running post render on files: unable to parse requirement: found '', expected: ',', ')' or identifier"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *m = render_error(bad[i][0], cm);
		ck_assert_ptr_nonnull(m);
		ck_assert_str_eq(m, bad[i][1]);
		free(m);
	}
}
END_TEST

/* A patch of aliases that expand exponentially (kubectl kustomize runs for
 * ever on it: kyaml copies every alias before anything reads it) is
 * refused at once with yaml.v3's text for it. */
START_TEST(test_refused_aliases)
{
	bh_buf t = BH_BUF_INIT;
	json_t *spec;
	postrender *p = NULL;
	bh_error e;
	bh_buf_puts(&t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\nx:\n  a0: &a0 [l, l, l, l, l, l, l, l, l]\n");
	for (int i = 1; i < 9; i++)
		bh_buf_printf(&t, "  a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i - 1, i - 1,
			      i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
	spec = json_pack("{s:[{s:{s:[{s:s}]}}]}", "postRenderers", "kustomize", "patches", "patch", bh_buf_str(&t));
	ck_assert_int_lt(postrender_new(spec, "a", "b", &p, &e), 0);
	ck_assert_ptr_nonnull(strstr(e.msg, "yaml: document contains excessive aliasing"));
	ck_assert_ptr_null(p);
	json_decref(spec);
	bh_buf_free(&t);
}
END_TEST

START_TEST(test_digests)
{
	char d[SNAPSHOT_DIGEST_MAX];
	bh_error e;
	json_t *spec = unit_json_new("{\"postRenderers\":[{\"kustomize\":{\"images\":[{\"newTag\":\"1\",\"name\":\"nginx\"}],"
			    "\"patches\":[{\"target\":{\"labelSelector\":\"a=b\",\"kind\":\"ConfigMap\"},"
			    "\"patch\":\"- op: add\\n  path: /a\\n  value: <b>\\n\"}]}}],"
			    "\"commonMetadata\":{\"labels\":{\"c\":\"<z>\",\"b\":\"y\"},\"annotations\":{\"a\":\"x\"}}}");
	/* [{"kustomize":{"patches":[{"patch":"- op: add\n  path: /a\n  value: \u003cb\u003e\n",
	 *   "target":{"kind":"ConfigMap","labelSelector":"a=b"}}],"images":[{"name":"nginx","newTag":"1"}]}}]\n */
	ck_assert_int_eq(manifest_postrenderers_digest(spec, d, &e), 0);
	ck_assert_str_eq(d, "sha256:08e27316caddec0ac1ae2cd95a0c3896b46234edfa3c4cfe8f73001757360d70");
	/* {"annotations":{"a":"x"},"labels":{"b":"y","c":"\u003cz\u003e"}}\n */
	ck_assert_int_eq(manifest_common_metadata_digest(spec, d, &e), 0);
	ck_assert_str_eq(d, "sha256:f2517e2053ceb25b03d9b1b4548d4ea65040d85d1556a508b49d60c23f5900b9");
	json_decref(spec);
	spec = json_object();
	ck_assert_int_eq(manifest_postrenderers_digest(spec, d, &e), 0); /* "null\n" */
	ck_assert_str_eq(d, "sha256:38e0b9de817f645c4bec37c0d4a3e58baecccb040f5718dc069a72c7385a0bed");
	json_decref(spec);
}
END_TEST

START_TEST(test_pointers_and_diff)
{
	json_t *o = unit_json_new("{\"metadata\":{\"annotations\":{\"a/b\":\"1\",\"c~d\":\"2\"}},\"l\":[1,2]}");
	json_t *from = unit_json_new("{\"spec\":{\"replicas\":3,\"x\":{\"y\":1},\"list\":[1,2],\"gone\":true},\"k\":\"v\"}");
	json_t *to = unit_json_new("{\"spec\":{\"replicas\":1,\"x\":{\"y\":1.0},\"list\":[1,2,3],\"new\":{\"a/b\":1}},\"k\":\"v\"}");
	json_t *ops = json_array(), *want;
	ck_assert_str_eq(json_string_value(kz_json_pointer_get(o, "/metadata/annotations/a~1b")), "1");
	ck_assert_str_eq(json_string_value(kz_json_pointer_get(o, "/metadata/annotations/c~0d")), "2");
	ck_assert_int_eq(json_integer_value(kz_json_pointer_get(o, "/l/1")), 2);
	ck_assert_ptr_null(kz_json_pointer_get(o, "/l/01"));
	ck_assert_int_eq(kz_json_pointer_remove(o, "/metadata/annotations/a~1b"), 0);
	ck_assert_int_eq(kz_json_pointer_remove(o, "/metadata/annotations/a~1b"), BH_ENOTFOUND);
	ck_assert_int_eq(kz_json_pointer_remove(o, "/l/5"), BH_ENOTFOUND);
	drift_diff(from, to, "", ops, 0);
	want = unit_json_new("[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":1},"
		    "{\"op\":\"replace\",\"path\":\"/spec/list\",\"value\":[1,2,3]},"
		    "{\"op\":\"remove\",\"path\":\"/spec/gone\"},"
		    "{\"op\":\"add\",\"path\":\"/spec/new\",\"value\":{\"a/b\":1}}]");
	ck_assert_msg(json_equal(ops, want), "diff: %s", json_dumps(ops, JSON_COMPACT));
	/* the patch turns from into to */
	ck_assert_int_eq(kz_json_patch(&from, ops, NULL), 0);
	ck_assert(json_equal(json_object_get(json_object_get(from, "spec"), "new"),
			     json_object_get(json_object_get(to, "spec"), "new")));
	ck_assert_int_eq(json_integer_value(kz_json_pointer_get(from, "/spec/replicas")), 1);
	json_decref(o);
	json_decref(from);
	json_decref(to);
	json_decref(ops);
	json_decref(want);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("postrender");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_files);
	tcase_add_test(tc, test_files_uint64);
	tcase_add_test(tc, test_files_chain);
	tcase_add_test(tc, test_duplicate_keys);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_refused_at_render);
	tcase_add_test(tc, test_refused_aliases);
	tcase_add_test(tc, test_digests);
	tcase_add_test(tc, test_pointers_and_diff);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
