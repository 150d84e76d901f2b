/* tests/unit/test_fetcher.c — the fetcher's pure parts: index.yaml
 * decoding and version choice, chart URL resolution, the FETCH /
 * FETCH_RESULT codecs with hostile input (and an OCIRepository's
 * semverFilter, pull secret configs and proxy carried), the Go regexps of
 * a semverFilter (lib/goregex.h), and a HelmChart's valuesFiles applied
 * to a chart archive. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetcher/chartvalues.h"
#include "fetcher/fetch.h"
#include "fetcher/index.h"
#include "helm/targz.h"
#include "lib/gzip.h"
#include "proto/fetch.h"
#include "lib/goregex.h"
#include "tests/unit/unit_util.h"

static const char *index_text =
	"apiVersion: v1\n"
	"entries:\n"
	"  app:\n"
	"  - name: app\n    version: 1.2.0\n    digest: aa\n    urls: [app-1.2.0.tgz]\n    created: \"2026-01-02T00:00:00Z\"\n"
	"  - name: app\n    version: 2.0.0-rc.1\n    urls: [app-2.0.0-rc.1.tgz]\n"
	"  - null\n"
	"  - name: app\n    version: not-semver\n    urls: [x.tgz]\n"
	"  - name: app\n    version: 1.10.0\n    urls: [https://other.example/app-1.10.0.tgz]\n"
	"  - name: app\n    version: 1.2.0+b\n    urls: [app-1.2.0b.tgz]\n    created: \"2026-01-03T00:00:00Z\"\n"
	"  empty: []\n"
	"generated: \"2026-01-01T00:00:00Z\"\n";

static const index_version *pick(const helm_index *idx, const char *name, const char *c, int want_rc)
{
	const index_version *v = NULL;
	bh_error e;
	ck_assert_int_eq(index_get(idx, name, c, &v, &e), want_rc);
	return v;
}

START_TEST(test_index_versions)
{
	helm_index *idx;
	bh_error e;
	ck_assert_int_eq(index_decode(index_text, strlen(index_text), 1 << 20, &idx, &e), 0);
	ck_assert_uint_eq(idx->skipped, 2); /* null and not-semver, as Helm skips them */
	ck_assert_str_eq(pick(idx, "app", NULL, 0)->version, "1.10.0");   /* latest stable */
	ck_assert_str_eq(pick(idx, "app", "*", 0)->version, "1.10.0");
	ck_assert_str_eq(pick(idx, "app", "~1.2", 0)->version, "1.2.0+b"); /* same version: newest created */
	ck_assert_str_eq(pick(idx, "app", "1.2.0", 0)->version, "1.2.0");  /* exact string first */
	ck_assert_str_eq(pick(idx, "app", ">=2.0.0-0", 0)->version, "2.0.0-rc.1"); /* prereleases on request */
	ck_assert_ptr_null(pick(idx, "app", ">=3", BH_ENOTFOUND));
	ck_assert_ptr_null(pick(idx, "nope", NULL, BH_ENOTFOUND));
	ck_assert_ptr_null(pick(idx, "empty", NULL, BH_ENOTFOUND));
	ck_assert_ptr_null(pick(idx, "app", ">>1", BH_EINVAL));
	index_free(idx);
}
END_TEST

START_TEST(test_index_hostile)
{
	helm_index *idx;
	bh_error e;
	char *deep = malloc(100000);
	size_t n = 0;
	ck_assert_int_eq(index_decode("", 0, 1 << 20, &idx, &e), BH_EINVAL);
	ck_assert_str_eq(e.msg, "empty index.yaml file");
	ck_assert_int_eq(index_decode("entries: {}\n", 12, 1 << 20, &idx, &e), BH_EINVAL);
	ck_assert_str_eq(e.msg, "no API version specified");
	ck_assert_int_lt(index_decode("apiVersion: v1\nentries: [1]\n", 28, 1 << 20, &idx, &e), 0);
	ck_assert_int_lt(index_decode("apiVersion: v1\nentries:\n  a: 3\n", 31, 1 << 20, &idx, &e), 0);
	ck_assert_int_eq(index_decode(index_text, strlen(index_text), 64, &idx, &e), BH_ELIMIT);
	/* typed like Helm's Go structs: an all-digit digest is a number, not a string */
	ck_assert_int_eq(index_decode("apiVersion: v1\nentries:\n  a:\n  - {name: a, version: 1.0.0, digest: 00}\n", 71, 1 << 20,
				      &idx, &e), BH_EINVAL);
	ck_assert_str_eq(e.msg, "error unmarshaling index.yaml: entries.a[0].digest is not a string");
	n += (size_t)sprintf(deep, "apiVersion: v1\nx: ");
	for (int i = 0; i < 5000; i++)
		deep[n++] = '[';
	ck_assert_int_eq(index_decode(deep, n, 1 << 20, &idx, &e), BH_ELIMIT);
	free(deep);
}
END_TEST

START_TEST(test_resolve_url)
{
	char *u = fetch_resolve_url("http://h:1/charts", "app-1.0.0.tgz");
	ck_assert_str_eq(u, "http://h:1/charts/app-1.0.0.tgz");
	free(u);
	u = fetch_resolve_url("http://h:1/charts/", "/abs/app.tgz");
	ck_assert_str_eq(u, "http://h:1/abs/app.tgz");
	free(u);
	u = fetch_resolve_url("http://h:1", "https://o/x.tgz");
	ck_assert_str_eq(u, "https://o/x.tgz");
	free(u);
}
END_TEST

START_TEST(test_proto_fetch)
{
	proto_fetch_request rq = {0}, back;
	proto_fetch_result rs;
	bh_buf b = BH_BUF_INIT;
	bh_error e;
	static const char *bad[] = {
		"{}", "[]", "{\"ok\":true,\"reason\":\"X\",\"message\":\"m\"}", /* ok without digest */
		"{\"ok\":false,\"reason\":\"bad reason\",\"message\":\"m\"}",
		"{\"ok\":false,\"reason\":\"X\",\"message\":\"m\",\"extra\":1}",
		"{\"ok\":false,\"reason\":\"X\",\"message\":\"m\",\"size\":-1}",
		"{\"ok\":true,\"reason\":\"X\",\"message\":\"m\",\"digest\":\"sha256:XYZ\"}",
		"{\"ok\":false,\"ok\":true,\"reason\":\"X\",\"message\":\"m\"}",
		"{\"ok\":false,\"reason\":\"X\",\"message\":\"m\",\"observedValuesFiles\":[1]}",
		"{\"ok\":false,\"reason\":\"X\",\"message\":\"m\",\"observedValuesFiles\":[\"a\\nb\"]}",
		"{\"ok\":false,\"reason\":\"X\",\"message\":\"m\",\"observedValuesFiles\":\"a\"}",
	};
	char *vf[] = {"values.yaml", "values-prod.yaml"};
	rq.values_files.v = vf;
	rq.values_files.n = 2;
	rq.op = FETCH_OP_CHART;
	rq.url = "http://127.0.0.1:1/";
	rq.chart = "app";
	rq.password = "secret";
	rq.pass_credentials = 1;
	rq.timeout_ms = 5000;
	ck_assert_int_eq(proto_fetch_request_encode(&rq, &b, &e), 0);
	ck_assert_int_eq(proto_fetch_request_decode((unsigned char *)b.data, b.len, &back, &e), 0);
	ck_assert_int_eq(back.op, FETCH_OP_CHART);
	ck_assert_str_eq(back.chart, "app");
	ck_assert_str_eq(back.password, "secret");
	ck_assert_int_eq(back.pass_credentials, 1);
	ck_assert_int_eq(back.timeout_ms, 5000);
	ck_assert_uint_eq(back.values_files.n, 2);
	ck_assert_str_eq(back.values_files.v[1], "values-prod.yaml");
	proto_fetch_request_free(&back);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		ck_assert_int_lt(proto_fetch_result_decode((const unsigned char *)bad[i], strlen(bad[i]), &rs, &e), 0);
	bh_buf_free(&b);
}
END_TEST

START_TEST(test_proto_fetch_oci)
{
	proto_fetch_request rq = {0}, back;
	bh_buf b = BH_BUF_INIT;
	bh_error e;
	char *cfgs[] = {"{\"auths\":{}}", "{\n \"auths\": {}\n}"};
	rq.op = FETCH_OP_OCI;
	rq.url = "oci://registry.example/charts/app";
	rq.semver = ">=1.0.0";
	rq.semver_filter = "^1\\.";
	rq.pull_secret_configs.v = cfgs;
	rq.pull_secret_configs.n = 2;
	rq.proxy_url = "http://proxy.example:3128";
	rq.proxy_username = "u";
	rq.proxy_password = "p";
	ck_assert_int_eq(proto_fetch_request_encode(&rq, &b, &e), 0);
	ck_assert_int_eq(proto_fetch_request_decode((unsigned char *)b.data, b.len, &back, &e), 0);
	ck_assert_str_eq(back.semver_filter, "^1\\.");
	ck_assert_uint_eq(back.pull_secret_configs.n, 2);
	ck_assert_str_eq(back.pull_secret_configs.v[1], cfgs[1]); /* a docker config may span lines */
	ck_assert_str_eq(back.proxy_url, "http://proxy.example:3128");
	ck_assert_str_eq(back.proxy_username, "u");
	ck_assert_str_eq(back.proxy_password, "p");
	proto_fetch_request_free(&back);
	bh_buf_free(&b);
}
END_TEST

/* match(pattern, subject): 1, 0, or -1 for a pattern that does not compile */
static int re_match(const char *pat, const char *s, char *msg, size_t n)
{
	goregex re;
	bh_buf err = BH_BUF_INIT;
	bh_error e;
	int rc;
	if (goregex_compile(&re, pat, strlen(pat), &err) < 0) {
		snprintf(msg, n, "%s", bh_buf_str(&err));
		bh_buf_free(&err);
		return -1;
	}
	bh_buf_free(&err);
	rc = goregex_match(&re, s, strlen(s), &e);
	goregex_release(&re);
	return rc;
}

START_TEST(test_goregex)
{
	char msg[300];
	/* unanchored, as Go's MatchString */
	ck_assert_int_eq(re_match("^0\\.", "0.2.0", msg, sizeof msg), 1);
	ck_assert_int_eq(re_match("^0\\.", "10.2.0", msg, sizeof msg), 0);
	ck_assert_int_eq(re_match("\\.2\\.", "1.2.0", msg, sizeof msg), 1);
	ck_assert_int_eq(re_match("-rc\\.[0-9]+$", "1.0.0-rc.1", msg, sizeof msg), 1);
	ck_assert_int_eq(re_match("(?P<major>\\d+)\\.x", "v1.x", msg, sizeof msg), 1);
	/* Go's refusals, in Go's words */
	ck_assert_int_eq(re_match("(0\\.1", "0.1.0", msg, sizeof msg), -1);
	ck_assert_str_eq(msg, "error parsing regexp: missing closing ): `(0\\.1`");
	ck_assert_int_eq(re_match("(?=1)", "1", msg, sizeof msg), -1);
	ck_assert_str_eq(msg, "error parsing regexp: invalid or unsupported Perl syntax: `(?=`");
	ck_assert_int_eq(re_match("a{1001}", "a", msg, sizeof msg), -1);
	ck_assert_str_eq(msg, "error parsing regexp: invalid repeat count: `{1001}`");
}
END_TEST

/* A ustar header + data for one file of a test chart. */
static void tar_file(bh_buf *tar, const char *name, const char *data)
{
	char h[512] = {0}, pad[512] = {0};
	size_t n = strlen(data);
	unsigned sum = 0;
	snprintf(h, 100, "%s", name);
	snprintf(h + 100, 8, "0000644");
	snprintf(h + 124, 12, "%011o", (unsigned)n);
	snprintf(h + 136, 12, "%011o", 0);
	memset(h + 148, ' ', 8);
	h[156] = '0';
	memcpy(h + 257, "ustar\0" "00", 8);
	for (int i = 0; i < 512; i++)
		sum += (unsigned char)h[i];
	snprintf(h + 148, 8, "%06o", sum);
	bh_buf_put(tar, h, sizeof h);
	bh_buf_put(tar, data, n);
	bh_buf_put(tar, pad, (512 - n % 512) % 512);
}

/* The chart c/ with values.yaml and values-prod.yaml, as a tar into *tar. */
static void test_chart_tar(bh_buf *tar)
{
	char end[1024] = {0};
	tar_file(tar, "c/Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.2.0\n");
	tar_file(tar, "c/values.yaml", "a: 1\nb:\n  c: [1, 2]\n  keep: k\n");
	tar_file(tar, "c/values-prod.yaml", "b:\n  c: x\n  d: true\n");
	tar_file(tar, "c/templates/cm.yaml", "kind: ConfigMap\n");
	bh_buf_put(tar, end, sizeof end);
}

/* That chart gzip'd into *tgz. */
static void test_chart(bh_buf *tgz)
{
	bh_buf tar = BH_BUF_INIT;
	bh_error e;
	test_chart_tar(&tar);
	ck_assert_int_eq(bh_gzip_best(tar.data, tar.len, tgz, &e), 0);
	bh_buf_free(&tar);
}

/* The text of the archive member name in tgz ("" if absent). */
static char *member_new(const bh_buf *tgz, const char *name)
{
	bh_buf b = BH_BUF_INIT;
	bh_error e;
	targz_entry en;
	targz *t = targz_new(tgz->data, tgz->len, 1 << 20, &e);
	ck_assert_ptr_nonnull(t);
	while (targz_next(t, &en, &e) == 1) {
		if (strcmp(en.name, name))
			continue;
		char chunk[4096];
		long n;
		while ((n = targz_read(t, chunk, sizeof chunk, &e)) > 0)
			bh_buf_put(&b, chunk, (size_t)n);
	}
	targz_free(t);
	bh_buf_putc(&b, 0);
	char *s = strdup(b.data);
	bh_buf_free(&b);
	return s;
}

/* Every entry of tgz as "name=data;" into out: targz_next's last result
 * (0 at the archive's end). */
static int entries(const bh_buf *tgz, uint64_t max, bh_buf *out)
{
	bh_error e;
	targz_entry en;
	int rc;
	targz *t = targz_new(tgz->data, tgz->len, max, &e);
	ck_assert_ptr_nonnull(t);
	while ((rc = targz_next(t, &en, &e)) == 1) {
		char chunk[7];
		long n;
		bh_buf_printf(out, "%s=", en.name);
		while ((n = targz_read(t, chunk, sizeof chunk, &e)) > 0)
			bh_buf_put(out, chunk, (size_t)n);
		ck_assert_int_eq(n, 0);
		bh_buf_putc(out, ';');
	}
	targz_free(t);
	return rc;
}

/* One gzip member is inflated whole (libdeflate), two members, a trailer
 * whose size lies, or a damaged CRC are read by zlib's stream: the same
 * entries either way, the limit as before, damaged data refused. */
START_TEST(test_targz_paths)
{
	static const char want[] = "c/Chart.yaml=apiVersion: v2\nname: c\nversion: 1.2.0\n;"
				   "c/values.yaml=a: 1\nb:\n  c: [1, 2]\n  keep: k\n;"
				   "c/values-prod.yaml=b:\n  c: x\n  d: true\n;"
				   "c/templates/cm.yaml=kind: ConfigMap\n;";
	bh_buf tar = BH_BUF_INIT, one = BH_BUF_INIT, two = BH_BUF_INIT, got = BH_BUF_INIT;
	bh_error e;
	test_chart_tar(&tar);
	ck_assert_int_eq(bh_gzip(tar.data, tar.len, 6, &one, &e), 0);
	ck_assert_int_eq(bh_gzip(tar.data, 1024, 6, &two, &e), 0);
	ck_assert_int_eq(bh_gzip(tar.data + 1024, tar.len - 1024, 6, &two, &e), 0);

	ck_assert_int_eq(entries(&one, tar.len, &got), 0);
	ck_assert_uint_eq(got.len, strlen(want));
	ck_assert_int_eq(memcmp(got.data, want, got.len), 0);
	bh_buf_reset(&got);
	ck_assert_int_eq(entries(&two, tar.len, &got), 0);
	ck_assert_uint_eq(got.len, strlen(want));
	ck_assert_int_eq(memcmp(got.data, want, got.len), 0);
	/* one byte short of the archive: the limit, whole or streamed */
	bh_buf_reset(&got);
	ck_assert_int_eq(entries(&one, tar.len - 1, &got), BH_ELIMIT);
	bh_buf_reset(&got);
	ck_assert_int_eq(entries(&two, tar.len - 1, &got), BH_ELIMIT);
	/* a trailer's size one more: not inflated whole; zlib's stream reads
	 * every entry, then refuses the trailer with the archive's end */
	one.data[one.len - 4]++;
	bh_buf_reset(&got);
	ck_assert_int_lt(entries(&one, tar.len + 1, &got), 0);
	ck_assert_uint_eq(got.len, strlen(want));
	one.data[one.len - 4]--;
	/* a damaged byte of compressed data: refused */
	one.data[one.len / 2] ^= 0x55;
	bh_buf_reset(&got);
	ck_assert_int_lt(entries(&one, tar.len, &got), 0);
	bh_buf_free(&tar);
	bh_buf_free(&one);
	bh_buf_free(&two);
	bh_buf_free(&got);
}
END_TEST

START_TEST(test_chartvalues)
{
	static const char *const files[] = {"values.yaml", "values-prod.yaml", "values-missing.yaml"};
	bh_buf tgz = BH_BUF_INIT, out = BH_BUF_INIT;
	char *version = NULL, *observed = NULL, *s;
	bh_error e;
	chartvalues_opts o = {.files = files, .nfiles = 2, .version_metadata = "3", .max_inflated = 1 << 20};
	test_chart(&tgz);

	/* merged in order, later files win, maps merge; version gets +generation */
	ck_assert_int_eq(chartvalues_apply(tgz.data, tgz.len, &o, &out, &version, &observed, &e), 0);
	ck_assert_str_eq(version, "1.2.0+3");
	ck_assert_str_eq(observed, "values.yaml\nvalues-prod.yaml");
	s = member_new(&out, "c/values.yaml");
	ck_assert_ptr_nonnull(strstr(s, "a: 1"));
	ck_assert_ptr_nonnull(strstr(s, "c: x"));
	ck_assert_ptr_nonnull(strstr(s, "d: true"));
	ck_assert_ptr_nonnull(strstr(s, "keep: k"));
	free(s);
	s = member_new(&out, "c/Chart.yaml");
	ck_assert_ptr_nonnull(strstr(s, "1.2.0+3"));
	free(s);
	s = member_new(&out, "c/templates/cm.yaml");
	ck_assert_str_eq(s, "kind: ConfigMap\n");
	free(s);
	free(version);
	free(observed);
	version = observed = NULL;

	/* a missing file is named, unless ignored (then left out of observed) */
	o.nfiles = 3;
	bh_buf_free(&out);
	ck_assert_int_eq(chartvalues_apply(tgz.data, tgz.len, &o, &out, &version, &observed, &e), BH_EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "values-missing.yaml"));
	ck_assert_ptr_null(version);
	o.ignore_missing = 1;
	bh_buf_free(&out);
	ck_assert_int_eq(chartvalues_apply(tgz.data, tgz.len, &o, &out, &version, &observed, &e), 0);
	ck_assert_str_eq(observed, "values.yaml\nvalues-prod.yaml");
	free(version);
	free(observed);

	/* not an archive; an archive larger than the limit */
	bh_buf_free(&out);
	ck_assert_int_ne(chartvalues_apply("nope", 4, &o, &out, &version, &observed, &e), 0);
	o.max_inflated = 600;
	ck_assert_int_ne(chartvalues_apply(tgz.data, tgz.len, &o, &out, &version, &observed, &e), 0);
	bh_buf_free(&out);
	bh_buf_free(&tgz);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fetcher");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_index_versions);
	tcase_add_test(tc, test_index_hostile);
	tcase_add_test(tc, test_resolve_url);
	tcase_add_test(tc, test_proto_fetch);
	tcase_add_test(tc, test_proto_fetch_oci);
	tcase_add_test(tc, test_goregex);
	tcase_add_test(tc, test_chartvalues);
	tcase_add_test(tc, test_targz_paths);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
