/* tests/unit/test_chart.c — chart loading: Helm's layout rules and
 * validation, every loading limit, and hostile archives (path traversal,
 * absolute paths, links, decompression bombs, deep and alias-bomb YAML,
 * nested archives), each refused with a clear error in bounded time. */
#include <archive.h>
#include <archive_entry.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helm/chart.h"
#include "helm/chart_internal.h"
#include "lib/buf.h"
#include "lib/gotime_rfc3339.h"
#include "tests/unit/unit_util.h"

typedef struct entry {
	const char *name;
	char type;        /* 'f' file, 'b' file of `fill` bytes of data, 'l' symlink,
			   * 'h' hard link, 'd' dir, 'c' char device */
	const char *data; /* file contents (or link target) */
	size_t fill;      /* if > 0: that many zero bytes instead of data */
} entry;

/* Builds a .tgz in memory; *len set; caller frees. */
static unsigned char *make_tgz(const entry *e, size_t n, size_t *len)
{
	size_t cap = 64 << 20;
	unsigned char *buf = malloc(cap);
	size_t used = 0;
	struct archive *a = archive_write_new();
	archive_write_add_filter_gzip(a);
	archive_write_set_format_pax_restricted(a);
	archive_write_set_bytes_in_last_block(a, 1);
	ck_assert_int_eq(archive_write_open_memory(a, buf, cap, &used), ARCHIVE_OK);
	for (size_t i = 0; i < n; i++) {
		struct archive_entry *ae = archive_entry_new();
		archive_entry_set_pathname(ae, e[i].name);
		archive_entry_set_perm(ae, 0644);
		if (e[i].type == 'l') {
			archive_entry_set_filetype(ae, AE_IFLNK);
			archive_entry_set_symlink(ae, e[i].data);
		} else if (e[i].type == 'h') {
			archive_entry_set_filetype(ae, AE_IFREG);
			archive_entry_set_hardlink(ae, e[i].data);
		} else if (e[i].type == 'd') {
			archive_entry_set_filetype(ae, AE_IFDIR);
		} else if (e[i].type == 'c') {
			archive_entry_set_filetype(ae, AE_IFCHR);
		} else if (e[i].type == 'b') {
			archive_entry_set_filetype(ae, AE_IFREG);
			archive_entry_set_size(ae, (la_int64_t)e[i].fill);
		} else {
			size_t sz = e[i].fill ? e[i].fill : strlen(e[i].data);
			archive_entry_set_filetype(ae, AE_IFREG);
			archive_entry_set_size(ae, (la_int64_t)sz);
		}
		ck_assert_int_eq(archive_write_header(a, ae), ARCHIVE_OK);
		if (e[i].type == 'b')
			archive_write_data(a, e[i].data, e[i].fill);
		if (e[i].type == 'f') {
			if (e[i].fill) {
				static char zeros[65536];
				size_t left = e[i].fill;
				while (left) {
					size_t k = left < sizeof zeros ? left : sizeof zeros;
					archive_write_data(a, zeros, k);
					left -= k;
				}
			} else {
				archive_write_data(a, e[i].data, strlen(e[i].data));
			}
		}
		archive_entry_free(ae);
	}
	archive_write_close(a);
	archive_write_free(a);
	*len = used;
	return buf;
}

#define CHART_YAML "apiVersion: v2\nname: mychart\nversion: 0.1.0\n"

static int load(const entry *e, size_t n, const chart_limits *lim, chart **c, bh_error *err)
{
	size_t len;
	unsigned char *buf = make_tgz(e, n, &len);
	int rc = chart_load_archive(buf, len, lim, c, err);
	free(buf);
	return rc;
}

static void expect_error(const entry *e, size_t n, const chart_limits *lim, const char *want)
{
	chart *c = NULL;
	bh_error err;
	bh_error_clear(&err);
	int rc = load(e, n, lim, &c, &err);
	ck_assert_msg(rc < 0, "expected an error containing '%s'", want);
	ck_assert_ptr_null(c);
	ck_assert_msg(strstr(err.msg, want) != NULL, "error '%s' lacks '%s'", err.msg, want);
}

START_TEST(test_good_archive)
{
	entry e[] = {
		{"mychart/Chart.yaml", 'f', CHART_YAML "dependencies:\n- name: sub\n  version: 1.x\n", 0},
		{"mychart/values.yaml", 'f', "a: 1\nb:\n  c: x\n", 0},
		{"mychart/values.schema.json", 'f', "{}", 0},
		{"mychart/templates/a.yaml", 'f', "kind: A\n", 0},
		{"mychart/templates/_h.tpl", 'f', "{{ define \"x\" }}{{ end }}", 0},
		{"mychart/crds/c.yaml", 'f', "kind: CustomResourceDefinition\n", 0},
		{"mychart/README.md", 'f', "\xEF\xBB\xBFhello", 0},
		{"mychart/charts/sub/Chart.yaml", 'f', "apiVersion: v2\nname: sub\nversion: 1.2.3\n", 0},
		{"mychart/charts/sub/templates/s.yaml", 'f', "kind: S\n", 0},
		{"mychart/charts/_skipped/Chart.yaml", 'f', "nonsense", 0},
	};
	chart *c = NULL;
	bh_error err;
	ck_assert_msg(load(e, sizeof e / sizeof e[0], NULL, &c, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(chart_name(c), "mychart");
	ck_assert_str_eq(chart_version(c), "0.1.0");
	ck_assert_uint_eq(c->ntemplates, 2);
	ck_assert_uint_eq(c->nfiles, 2); /* crds/c.yaml, README.md */
	ck_assert_str_eq((char *)c->files[1].data, "hello"); /* BOM trimmed */
	ck_assert(json_real_value(json_object_get(c->values, "a")) == 1.0);
	ck_assert_ptr_nonnull(c->schema);
	ck_assert_uint_eq(c->ndeps, 1);
	ck_assert_str_eq(chart_name(c->deps[0]), "sub");
	char *fp = chart_full_path_dup(c->deps[0]);
	ck_assert_str_eq(fp, "mychart/charts/sub");
	free(fp);
	ck_assert_int_eq(chart_check_dependencies(c, &err), 0);
	chart_free(c);
}
END_TEST

START_TEST(test_nested_archive_and_v1_requirements)
{
	entry inner[] = {
		{"sub/Chart.yaml", 'f', "name: sub\nversion: 1.0.0\n", 0},
		{"sub/templates/x.yaml", 'f', "kind: X\n", 0},
	};
	size_t il;
	unsigned char *ib = make_tgz(inner, 2, &il);
	bh_buf data = BH_BUF_INIT;
	bh_buf_put(&data, ib, il);
	free(ib);
	/* an archive inside an archive: write it as a file of the outer one */
	size_t cap = 1 << 20, used = 0;
	unsigned char *buf = malloc(cap);
	struct archive *a = archive_write_new();
	archive_write_add_filter_gzip(a);
	archive_write_set_format_pax_restricted(a);
	archive_write_open_memory(a, buf, cap, &used);
	const char *names[] = {"top/Chart.yaml", "top/requirements.yaml", "top/charts/sub-1.0.0.tgz"};
	const char *bodies[] = {"apiVersion: v1\nname: top\nversion: 2.0.0\n",
				"dependencies:\n- name: sub\n  version: '>=1.0.0'\n", NULL};
	for (int i = 0; i < 3; i++) {
		struct archive_entry *ae = archive_entry_new();
		const char *b = bodies[i] ? bodies[i] : data.data;
		size_t bl = bodies[i] ? strlen(bodies[i]) : data.len;
		archive_entry_set_pathname(ae, names[i]);
		archive_entry_set_filetype(ae, AE_IFREG);
		archive_entry_set_perm(ae, 0644);
		archive_entry_set_size(ae, (la_int64_t)bl);
		archive_write_header(a, ae);
		archive_write_data(a, b, bl);
		archive_entry_free(ae);
	}
	archive_write_close(a);
	archive_write_free(a);
	chart *c = NULL;
	bh_error err;
	ck_assert_msg(chart_load_archive(buf, used, NULL, &c, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(chart_api_version(c->deps[0]), "v1"); /* apiVersion defaults to v1 */
	ck_assert_uint_eq(json_array_size(json_object_get(c->metadata, "dependencies")), 1);
	ck_assert_uint_eq(c->nfiles, 1); /* requirements.yaml kept as a file for v1 */
	chart_free(c);
	free(buf);
	bh_buf_free(&data);
}
END_TEST

START_TEST(test_chart_lock)
{
	/* Chart.lock kept as Helm's chart.Lock marshals it: Go field order,
	 * omitempty dependency fields, time.Time in RFC3339Nano */
	entry e[] = {
		{"mychart/Chart.yaml", 'f', CHART_YAML, 0},
		{"mychart/Chart.lock", 'f',
		 "dependencies:\n- repository: oci://r/b\n  version: 2.31.4\n  name: common\n  enabled: false\n"
		 "digest: sha256:ab\ngenerated: \"2025-08-13T19:31:58.340987000Z\"\n", 0},
	};
	entry bad[] = {
		{"mychart/Chart.yaml", 'f', CHART_YAML, 0},
		{"mychart/Chart.lock", 'f', "digest: [1]\n", 0},
	};
	chart *c = NULL, *d;
	bh_error err;
	char *s;
	ck_assert_msg(load(e, sizeof e / sizeof e[0], NULL, &c, &err) == 0, "%s", err.msg);
	s = json_dumps(c->lock, JSON_COMPACT | JSON_PRESERVE_ORDER);
	ck_assert_str_eq(s, "{\"generated\":\"2025-08-13T19:31:58.340987Z\",\"digest\":\"sha256:ab\",\"dependencies\":"
			    "[{\"name\":\"common\",\"version\":\"2.31.4\",\"repository\":\"oci://r/b\"}]}");
	free(s);
	d = chart_dup(c);
	ck_assert_ptr_nonnull(d);
	ck_assert(json_equal(d->lock, c->lock));
	chart_free(d);
	chart_free(c);
	c = NULL;
	ck_assert_int_lt(load(bad, sizeof bad / sizeof bad[0], NULL, &c, &err), 0);
	ck_assert_msg(strstr(err.msg, "cannot load Chart.lock") != NULL, "%s", err.msg);
	/* keys case-folded into one field, in key order: the later array
	 * decoded into the dependency already there, a null tag keeping the
	 * old one, "digest" after "Digest" (the lock as helm 4.1.4's
	 * `install --dry-run=client -o json` writes it) */
	entry fold[] = {
		{"mychart/Chart.yaml", 'f', CHART_YAML, 0},
		{"mychart/Chart.lock", 'f',
		 "DEPENDENCIES: [{name: a, alias: x, tags: [t1, t2], import-values: [1, {a: 2}]}, {name: z}]\n"
		 "dependencies: [{name: b, Tags: [null], enabled: true}]\ndigest: 5\nDigest: 16777217\n"
		 "generated: \"2021-06-15T1:02:03,1234567891+01:60\"\n", 0},
	};
	ck_assert_msg(load(fold, sizeof fold / sizeof fold[0], NULL, &c, &err) == 0, "%s", err.msg);
	s = json_dumps(c->lock, JSON_COMPACT | JSON_PRESERVE_ORDER);
	ck_assert_str_eq(s, "{\"generated\":\"2021-06-15T01:02:03.123456789+02:00\",\"digest\":\"5\",\"dependencies\":"
			    "[{\"name\":\"b\",\"repository\":\"\",\"tags\":[\"t1\"],\"enabled\":true,"
			    "\"import-values\":[1.0,{\"a\":2.0}],\"alias\":\"x\"}]}");
	free(s);
	chart_free(c);
}
END_TEST

/* lib/gotime_rfc3339: what Go 1.25's time.Time.UnmarshalJSON and
 * MarshalJSON make of Chart.lock's generated (texts from helm 4.1.4) */
START_TEST(test_rfc3339)
{
	static const struct {
		const char *lit, *want; /* want: the MarshalJSON text, or the error */
		int rc;
	} cases[] = {
		{"\"2020-01-01T00:00:00Z\"", "2020-01-01T00:00:00Z", 0},
		{"\"2024-02-29T23:59:59.120000000+05:30\"", "2024-02-29T23:59:59.12+05:30", 0},
		{"\"2021-06-15T1:02:03,5-00:00\"", "2021-06-15T01:02:03.5Z", 0},
		{"\"2026-11-29T02:25:22.123456789012Z\"", "2026-11-29T02:25:22.123456789Z", 0},
		{"\"0000-01-01T00:00:00+01:60\"", "0000-01-01T00:00:00+02:00", 0},
		{"\"2020-01-01T00:00:00+24:00\"", "Time.MarshalJSON: timezone hour outside of range [0,23]", 1},
		{"null", "0001-01-01T00:00:00Z", 0},
		{"7", "Time.UnmarshalJSON: input is not a JSON string", -1},
		{"\"\"", "parsing time \"\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"2006\"", -1},
		{"\"2020-01-01T24:00:00Z\"", "parsing time \"2020-01-01T24:00:00Z\": hour out of range", -1},
		{"\"1999-12-31T23:59:60Z\"", "parsing time \"1999-12-31T23:59:60Z\": second out of range", -1},
		{"\"2019-02-29T00:00:00Z\"", "parsing time \"2019-02-29T00:00:00Z\": day out of range", -1},
		{"\"2020-13-01T00:00:00Z\"", "parsing time \"2020-13-01T00:00:00Z\": month out of range", -1},
		{"\"2020-01-01T00:00:00+25:00\"",
		 "parsing time \"2020-01-01T00:00:00+25:00\": time zone offset hour out of range", -1},
		{"\"2020-01-01t00:00:00Z\"",
		 "parsing time \"2020-01-01t00:00:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
		 "\"t00:00:00Z\" as \"T\"", -1},
		{"\"2020-01-01T00:00:00z\"",
		 "parsing time \"2020-01-01T00:00:00z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"z\" as "
		 "\"Z07:00\"", -1},
		{"\"2020-1-01T00:00:00Z\"",
		 "parsing time \"2020-1-01T00:00:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
		 "\"1-01T00:00:00Z\" as \"01\"", -1},
		{"\"2020-01-01T00:00:00.5+01:00x\"", "parsing time \"2020-01-01T00:00:00.5+01:00x\": extra text: \"x\"", -1},
		{"\"\xc3\xa9\\n\"",
		 "parsing time \"\\xc3\\xa9\\\\n\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\\xc3\\xa9\\\\n\" as "
		 "\"2006\"", -1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		rfc3339_time t = RFC3339_ZERO;
		char buf[RFC3339_FORMAT_MAX];
		bh_error err;
		int rc = rfc3339_unmarshal_json(cases[i].lit, strlen(cases[i].lit), &t, &err);
		if (cases[i].rc < 0) {
			ck_assert_int_eq(rc, BH_EINVAL);
			ck_assert_str_eq(err.msg, cases[i].want);
			continue;
		}
		ck_assert_msg(rc == 0, "%s: %s", cases[i].lit, err.msg);
		rc = rfc3339_format(&t, buf, &err);
		ck_assert_str_eq(rc ? err.msg : buf, cases[i].want);
		ck_assert_int_eq(rc != 0, cases[i].rc);
	}
}
END_TEST

START_TEST(test_path_traversal)
{
	entry e[] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0}, {"mychart/../../etc/evil", 'f', "x", 0}};
	expect_error(e, 2, NULL, "chart illegally references parent directory: entry \"mychart/../../etc/evil\"");
	entry e2[] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0}, {"mychart/templates/../../x", 'f', "x", 0}};
	expect_error(e2, 2, NULL, "references parent directory");
	entry e3[] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0}, {"mychart\\..\\..\\x", 'f', "x", 0}};
	expect_error(e3, 2, NULL, "references parent directory");
}
END_TEST

START_TEST(test_absolute_and_odd_names)
{
	entry e[] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0}, {"mychart//etc/passwd", 'f', "x", 0}};
	expect_error(e, 2, NULL, "chart illegally contains absolute paths: entry \"mychart//etc/passwd\"");
	entry e2[] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0}, {"mychart/c:/windows", 'f', "x", 0}};
	expect_error(e2, 2, NULL, "chart contains illegally named files");
	entry e3[] = {{"Chart.yaml", 'f', CHART_YAML, 0}};
	expect_error(e3, 1, NULL, "content outside the base directory: \"Chart.yaml\"");
	entry e4[] = {{"mychart", 'f', "x", 0}};
	expect_error(e4, 1, NULL, "content outside the base directory");
}
END_TEST

/* An archive whose charts/sub-1.0.0.tgz is an archive of inner[]. */
static unsigned char *nested_tgz(const entry *inner, size_t n, size_t *len)
{
	size_t il;
	unsigned char *ib = make_tgz(inner, n, &il), *out;
	char *copy = malloc(il + 1);
	memcpy(copy, ib, il);
	copy[il] = '\0';
	entry outer[] = {{"top/Chart.yaml", 'f', "apiVersion: v2\nname: top\nversion: 2.0.0\n", 0},
			 {"top/charts/sub-1.0.0.tgz", 'b', copy, il}};
	out = make_tgz(outer, 2, len);
	free(ib);
	free(copy);
	return out;
}

START_TEST(test_duplicates_and_hygiene_everywhere)
{
	/* as Helm: the last of several entries with one name wins, once */
	entry d[] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0},
		     {"mychart/templates/a.yaml", 'f', "kind: First\n", 0},
		     {"mychart/values.yaml", 'f', "a: 1\n", 0},
		     {"mychart/templates/a.yaml", 'f', "kind: Second\n", 0},
		     {"mychart/values.yaml", 'f', "a: 2\n", 0},
		     {"mychart/Chart.yaml", 'f', "apiVersion: v2\nname: mychart\nversion: 0.2.0\n", 0}};
	chart *c = NULL;
	bh_error err;
	ck_assert_msg(load(d, 6, NULL, &c, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(c->ntemplates, 1);
	ck_assert_str_eq((char *)c->templates[0].data, "kind: Second\n");
	ck_assert(json_real_value(json_object_get(c->values, "a")) == 2.0);
	ck_assert_str_eq(chart_version(c), "0.2.0");
	chart_free(c);
	/* stricter than Helm: absolute names and ".." anywhere are refused */
	entry a[] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0}, {"/mychart/templates/x.yaml", 'f', "x", 0}};
	expect_error(a, 2, NULL, "chart illegally contains absolute paths: entry \"/mychart/templates/x.yaml\"");
	entry dd[] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0}, {"mychart/templates/../templates/x.yaml", 'f', "x", 0}};
	expect_error(dd, 2, NULL, "references parent directory: entry \"mychart/templates/../templates/x.yaml\"");
	/* the same inside a sub-chart archive */
	entry in_dup[] = {{"sub/Chart.yaml", 'f', "apiVersion: v2\nname: sub\nversion: 1.0.0\n", 0},
			  {"sub/templates/x.yaml", 'f', "kind: One\n", 0}, {"sub/templates/x.yaml", 'f', "kind: Two\n", 0}};
	size_t len;
	unsigned char *buf = nested_tgz(in_dup, 3, &len);
	ck_assert_msg(chart_load_archive(buf, len, NULL, &c, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(c->ndeps, 1);
	ck_assert_uint_eq(c->deps[0]->ntemplates, 1);
	ck_assert_str_eq((char *)c->deps[0]->templates[0].data, "kind: Two\n");
	chart_free(c);
	free(buf);
	entry in_bad[][2] = {{{"sub/Chart.yaml", 'f', "apiVersion: v2\nname: sub\nversion: 1.0.0\n", 0}, {"sub/../../x", 'f', "x", 0}},
			     {{"sub/Chart.yaml", 'f', "apiVersion: v2\nname: sub\nversion: 1.0.0\n", 0}, {"/sub/x", 'f', "x", 0}},
			     {{"sub/Chart.yaml", 'f', "apiVersion: v2\nname: sub\nversion: 1.0.0\n", 0}, {"sub//etc/x", 'f', "x", 0}}};
	const char *why[] = {"references parent directory", "absolute paths", "absolute paths"};
	for (size_t i = 0; i < 3; i++) {
		c = NULL;
		buf = nested_tgz(in_bad[i], 2, &len);
		ck_assert_int_lt(chart_load_archive(buf, len, NULL, &c, &err), 0);
		ck_assert_ptr_null(c);
		ck_assert_msg(strstr(err.msg, why[i]) != NULL, "%s", err.msg);
		free(buf);
	}
}
END_TEST

START_TEST(test_links_and_devices)
{
	entry e[] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0}, {"mychart/templates/leak.yaml", 'l', "/etc/passwd", 0}};
	expect_error(e, 2, NULL, "symbolic link (refused): entry \"mychart/templates/leak.yaml\"");
	entry e2[] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0}, {"mychart/values.yaml", 'h', "/etc/shadow", 0}};
	expect_error(e2, 2, NULL, "hard link (refused): entry \"mychart/values.yaml\"");
	entry e3[] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0}, {"mychart/values.yaml", 'c', NULL, 0}};
	expect_error(e3, 2, NULL, "irregular file (refused): entry \"mychart/values.yaml\"");
}
END_TEST

START_TEST(test_decompression_bomb)
{
	/* 1 GiB of zeros compresses to about 1 MiB: stopped at the per-file cap */
	entry e[] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0}, {"mychart/templates/big.yaml", 'f', NULL, (size_t)64 << 20}};
	clock_t t0 = clock();
	expect_error(e, 2, NULL, "chart file \"templates/big.yaml\" is larger than the maximum file size 5242880");
	ck_assert_msg((double)(clock() - t0) / CLOCKS_PER_SEC < 10.0, "bomb took too long");
	/* many files under the per-file cap: stopped at the total cap */
	chart_limits lim = {0};
	chart_limits_default(&lim);
	lim.max_total = (size_t)8 << 20;
	entry m[6] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0}};
	char names[5][32];
	for (int i = 0; i < 5; i++) {
		snprintf(names[i], sizeof names[i], "mychart/files/f%d", i);
		m[i + 1].name = names[i];
		m[i + 1].type = 'f';
		m[i + 1].fill = (size_t)3 << 20;
	}
	expect_error(m, 6, &lim, "decompressed chart is larger than the maximum size 8388608");
}
END_TEST

START_TEST(test_limits)
{
	chart_limits lim;
	entry many[20] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0}};
	char names[19][32];
	for (int i = 0; i < 19; i++) {
		snprintf(names[i], sizeof names[i], "mychart/files/f%d", i);
		many[i + 1].name = names[i];
		many[i + 1].type = 'f';
		many[i + 1].data = "x";
	}
	chart_limits_default(&lim);
	lim.max_files = 10;
	expect_error(many, 20, &lim, "chart archive has more than 10 files");

	chart_limits_default(&lim);
	lim.max_path_depth = 4;
	entry deep[] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0}, {"mychart/a/b/c/d/e/f.txt", 'f', "x", 0}};
	expect_error(deep, 2, &lim, "is nested deeper than 4 directories");

	chart_limits_default(&lim);
	lim.max_archive = 64;
	entry small[] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0}, {"mychart/x", 'f', NULL, 100000}};
	expect_error(small, 2, &lim, "chart archive is larger than the maximum size 64");

	chart_limits_default(&lim);
	lim.max_file = 100;
	entry big[] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0}, {"mychart/x", 'f', NULL, 101}};
	expect_error(big, 2, &lim, "chart file \"x\" is larger than the maximum file size 100");

	chart_limits_default(&lim);
	lim.max_nesting = 1;
	entry nest[] = {{"a/Chart.yaml", 'f', "apiVersion: v2\nname: a\nversion: 1.0.0\n", 0},
			{"a/charts/b/Chart.yaml", 'f', "apiVersion: v2\nname: b\nversion: 1.0.0\n", 0},
			{"a/charts/b/charts/c/Chart.yaml", 'f', "apiVersion: v2\nname: c\nversion: 1.0.0\n", 0}};
	expect_error(nest, 3, &lim, "sub-charts are nested deeper than 1 levels");

	ck_assert_int_lt(chart_load_archive("not gzip", 8, NULL, &(chart *){NULL}, NULL), 0);
}
END_TEST

START_TEST(test_hostile_yaml)
{
	/* 100000 nested flow sequences */
	size_t n = 100000;
	char *deep = malloc(2 * n + 16);
	strcpy(deep, "a: ");
	memset(deep + 3, '[', n);
	memset(deep + 3 + n, ']', n);
	deep[3 + 2 * n] = 0;
	entry e[] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0}, {"mychart/values.yaml", 'f', deep, 0}};
	clock_t t0 = clock();
	expect_error(e, 2, NULL, "cannot load values.yaml");
	free(deep);
	/* billion laughs */
	bh_buf b = BH_BUF_INIT;
	bh_buf_puts(&b, "a0: &a0 [x,x,x,x,x,x,x,x,x]\n");
	for (int i = 1; i <= 9; i++) {
		bh_buf_printf(&b, "a%d: &a%d [", i, i);
		for (int j = 0; j < 9; j++)
			bh_buf_printf(&b, "%s*a%d", j ? "," : "", i - 1);
		bh_buf_puts(&b, "]\n");
	}
	bh_buf_puts(&b, "v: *a9\n");
	entry e2[] = {{"mychart/Chart.yaml", 'f', CHART_YAML, 0}, {"mychart/values.yaml", 'f', b.data, 0}};
	expect_error(e2, 2, NULL, "cannot load values.yaml");
	bh_buf_free(&b);
	ck_assert_msg((double)(clock() - t0) / CLOCKS_PER_SEC < 20.0, "hostile YAML took too long");
}
END_TEST

START_TEST(test_metadata_validation)
{
	entry nover[] = {{"m/Chart.yaml", 'f', "apiVersion: v2\nname: m\n", 0}};
	expect_error(nover, 1, NULL, "validation: chart.metadata.version is required");
	entry badver[] = {{"m/Chart.yaml", 'f', "apiVersion: v2\nname: m\nversion: one\n", 0}};
	expect_error(badver, 1, NULL, "validation: chart.metadata.version \"one\" is invalid");
	entry dots[] = {{"m/Chart.yaml", 'f', "apiVersion: v2\nname: ..\nversion: 1.0.0\n", 0}};
	expect_error(dots, 1, NULL, "validation: chart.metadata.name \"..\" is invalid");
	entry slash[] = {{"m/Chart.yaml", 'f', "apiVersion: v2\nname: ../../tmp/evil\nversion: 1.0.0\n", 0}};
	expect_error(slash, 1, NULL, "is invalid");
	entry type[] = {{"m/Chart.yaml", 'f', CHART_YAML "type: plugin\n", 0}};
	expect_error(type, 1, NULL, "chart.metadata.type must be application or library");
	entry alias[] = {{"m/Chart.yaml", 'f', CHART_YAML "dependencies:\n- name: x\n  alias: \"a\\n/../b\"\n", 0}};
	expect_error(alias, 1, NULL, "dependency \"x\" has disallowed characters in the alias");
	entry dup[] = {{"m/Chart.yaml", 'f', CHART_YAML "dependencies:\n- name: xa\n- name: ya\n  alias: xa\n", 0}};
	expect_error(dup, 1, NULL, "more than one dependency with name or alias \"xa\"");
	entry nulldep[] = {{"m/Chart.yaml", 'f', CHART_YAML "dependencies:\n- ~\n", 0}};
	expect_error(nulldep, 1, NULL, "dependencies must not contain empty or null nodes");
	entry nullm[] = {{"m/Chart.yaml", 'f', CHART_YAML "maintainers:\n- ~\n", 0}};
	expect_error(nullm, 1, NULL, "maintainers must not contain empty or null nodes");
	entry numver[] = {{"m/Chart.yaml", 'f', "apiVersion: v2\nname: m\nversion: [1]\n", 0}};
	expect_error(numver, 1, NULL, "cannot unmarshal array into Go struct field Metadata.version of type string");
	entry top[] = {{"m/Chart.yaml", 'f', "- a\n", 0}};
	expect_error(top, 1, NULL, "json: cannot unmarshal array into Go value of type loader.chartBase");
	entry missing[] = {{"m/values.yaml", 'f', "a: 1\n", 0}};
	expect_error(missing, 1, NULL, "Chart.yaml file is missing");
	entry badsub[] = {{"m/Chart.yaml", 'f', CHART_YAML, 0}, {"m/charts/s/Chart.yaml", 'f', "name: s\n", 0}};
	expect_error(badsub, 2, NULL, "error unpacking subchart s in mychart: validation: chart.metadata.version is required");
}
END_TEST

/* Numbers and bools under string fields of Chart.yaml become strings as
 * sigs.k8s.io/yaml makes them; only the first document counts. Expected
 * strings are what the real helm 4.1.4 printed for .Chart.* of these files. */
START_TEST(test_metadata_scalars)
{
	entry e[] = {{"m/Chart.yaml", 'f',
		      "apiVersion: v2\nname: m\nversion: 1.0\nappVersion: 1000000\ndescription: 1e7\n"
		      "home: 3.14159265358979\nicon: 0x1F\nkeywords: [1.5, true]\nannotations: {a: 7, b: yes}\n"
		      "---\ncondition: ignored\n", 0}};
	chart *c = NULL;
	bh_error err;
	ck_assert_msg(load(e, 1, NULL, &c, &err) == 0, "%s", err.msg);
	json_t *md = c->metadata;
	ck_assert_str_eq(json_string_value(json_object_get(md, "version")), "1");
	ck_assert_str_eq(json_string_value(json_object_get(md, "appVersion")), "1000000");
	ck_assert_str_eq(json_string_value(json_object_get(md, "description")), "1e+07");
	ck_assert_str_eq(json_string_value(json_object_get(md, "home")), "3.1415927");
	ck_assert_str_eq(json_string_value(json_object_get(md, "icon")), "31");
	json_t *kw = json_object_get(md, "keywords");
	ck_assert_str_eq(json_string_value(json_array_get(kw, 0)), "1.5");
	ck_assert_str_eq(json_string_value(json_array_get(kw, 1)), "true");
	json_t *ann = json_object_get(md, "annotations");
	ck_assert_str_eq(json_string_value(json_object_get(ann, "a")), "7");
	ck_assert_str_eq(json_string_value(json_object_get(ann, "b")), "true");
	ck_assert_ptr_null(json_object_get(md, "condition"));
	chart_free(c);
}
END_TEST

START_TEST(test_missing_dependency)
{
	entry e[] = {{"m/Chart.yaml", 'f', CHART_YAML "dependencies:\n- name: x\n  version: 1.0.0\n", 0}};
	chart *c = NULL;
	bh_error err;
	ck_assert_int_eq(load(e, 1, NULL, &c, &err), 0);
	ck_assert_int_lt(chart_check_dependencies(c, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "found in Chart.yaml, but missing in charts/ directory: x"));
	chart_free(c);
}
END_TEST

static char tmpdir[256];

static void write_file(const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", tmpdir, rel);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* chart_load_dir_log's lines, "LEVEL msg k=v ...\n" each */
static struct {
	char text[4096];
	size_t len;
} link_log;

static void note_link(void *ud, const char *level, const char *msg, const char *const *attrs)
{
	(void)ud;
	size_t room = sizeof link_log.text - link_log.len;
	int k = snprintf(link_log.text + link_log.len, room, "%s %s", level, msg);
	for (size_t i = 0; attrs && attrs[i] && k > 0 && (size_t)k < room; i += 2)
		k += snprintf(link_log.text + link_log.len + k, room - (size_t)k, " %s=%s", attrs[i], attrs[i + 1]);
	if (k > 0 && (size_t)k + 1 < room) {
		link_log.text[link_log.len + (size_t)k] = '\n';
		link_log.len += (size_t)k + 1;
		link_log.text[link_log.len] = '\0';
	}
}

START_TEST(test_directory)
{
	char p[512];
	snprintf(tmpdir, sizeof tmpdir, "/tmp/bh-test-chart-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(p, sizeof p, "%s/templates", tmpdir);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/ignored", tmpdir);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/empty", tmpdir); /* nothing to list, nothing to load */
	mkdir(p, 0755);
	write_file("Chart.yaml", CHART_YAML);
	/* a plain name, "*" and a tail, a pattern fnmatch reads */
	write_file(".helmignore", "# comment\nignored/\n*.bak\nOWNERS\n*~\nn?tes.txt\n/*.tmp\n");
	write_file("templates/a.yaml", "kind: A\n");
	write_file("templates/.hidden", "x");
	write_file("templates/b.bak", "x");
	write_file("templates/c.yaml~", "x");
	write_file("templates/d.bak.yaml", "kind: D\n");
	write_file("ignored/x.txt", "x");
	write_file("notes.txt", "n");
	write_file("OWNERS", "o");
	write_file("OWNERS2", "o");
	write_file("bak", "o");
	write_file("top.tmp", "o"); /* the rooted rule: at the top only */
	write_file("templates/e.tmp", "x");
	chart *c = NULL;
	bh_error err;
	ck_assert_msg(chart_load_dir(tmpdir, NULL, &c, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(c->ntemplates, 3);
	ck_assert_str_eq(c->templates[0].name, "templates/a.yaml");
	ck_assert_str_eq(c->templates[1].name, "templates/d.bak.yaml");
	ck_assert_str_eq(c->templates[2].name, "templates/e.tmp");
	ck_assert_uint_eq(c->nfiles, 3); /* .helmignore, OWNERS2, bak */
	/* the .helmignore read for its rules is the chart's file */
	ck_assert_str_eq(c->files[0].name, ".helmignore");
	ck_assert_uint_eq(c->files[0].len, strlen("# comment\nignored/\n*.bak\nOWNERS\n*~\nn?tes.txt\n/*.tmp\n"));
	ck_assert_str_eq((const char *)c->files[0].data, "# comment\nignored/\n*.bak\nOWNERS\n*~\nn?tes.txt\n/*.tmp\n");
	ck_assert_str_eq(c->files[1].name, "OWNERS2");
	ck_assert_str_eq(c->files[2].name, "bak");
	chart_free(c);
	/* a FIFO is refused (not opened for reading: no writer would come) */
	snprintf(p, sizeof p, "%s/templates/pipe.yaml", tmpdir);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	ck_assert_int_lt(chart_load_dir(tmpdir, NULL, &c, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "templates/pipe.yaml as it has file mode type bits set"));
	unlink(p);
	/* a .helmignore that is a symbolic link is followed (Helm's os.Stat):
	 * its rules apply, and the link's target is a file of the chart too */
	snprintf(p, sizeof p, "%s/.helmignore", tmpdir);
	char moved[600];
	snprintf(moved, sizeof moved, "%s/helmignore.real", tmpdir);
	ck_assert_int_eq(rename(p, moved), 0);
	ck_assert_int_eq(symlink("helmignore.real", p), 0);
	ck_assert_msg(chart_load_dir(tmpdir, NULL, &c, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(c->ntemplates, 3);
	ck_assert_uint_eq(c->nfiles, 4); /* .helmignore, OWNERS2, bak, helmignore.real */
	ck_assert_str_eq(c->files[0].name, ".helmignore");
	ck_assert_str_eq((const char *)c->files[0].data, "# comment\nignored/\n*.bak\nOWNERS\n*~\nn?tes.txt\n/*.tmp\n");
	ck_assert_str_eq(c->files[3].name, "helmignore.real");
	chart_free(c);
	unlink(p);
	ck_assert_int_eq(rename(moved, p), 0);
	/* loaded again the same, by chart_load_path too (one open) */
	ck_assert_msg(chart_load_path(tmpdir, NULL, &c, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(c->ntemplates, 3);
	ck_assert_uint_eq(c->nfiles, 3);
	chart_free(c);
	/* a symbolic link inside the chart is followed, with Helm's INFO line */
	char target[600], want[1400];
	snprintf(p, sizeof p, "%s/templates/linked.yaml", tmpdir);
	snprintf(target, sizeof target, "%s/OWNERS2", tmpdir);
	ck_assert_int_eq(symlink("../OWNERS2", p), 0);
	link_log.len = 0;
	ck_assert_msg(chart_load_dir_log(tmpdir, NULL, note_link, NULL, &c, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(c->ntemplates, 4);
	snprintf(want, sizeof want,
		 "INFO found symbolic link in path. Contents of linked file included and used path=%s resolved=%s\n", p,
		 target);
	ck_assert_str_eq(link_log.text, want);
	chart_free(c);
	unlink(p);
	/* a dangling one fails with Go's EvalSymlinks text */
	ck_assert_int_eq(symlink("nowhere.yaml", p), 0);
	ck_assert_int_lt(chart_load_dir(tmpdir, NULL, &c, &err), 0);
	snprintf(want, sizeof want, "error evaluating symlink %s: lstat %s/templates/nowhere.yaml: no such file or directory",
		 p, tmpdir);
	ck_assert_str_eq(err.msg, want);
	unlink(p);
	/* a full-path rule with a literal prefix (a path that differs in it
	 * is not matched), a one-letter pattern, "*" after a directory */
	write_file(".helmignore", "docs/*.md\nc?\nlogs/*\n");
	const char *dirs[] = {"docs", "docsx", "logs"};
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof p, "%s/%s", tmpdir, dirs[i]);
		mkdir(p, 0755);
	}
	write_file("docs/a.md", "x");
	write_file("docs/a.txt", "x");
	write_file("docsx/a.md", "x");
	write_file("logs/l", "x");
	write_file("cd", "x");
	write_file("c", "x");
	ck_assert_msg(chart_load_dir(tmpdir, NULL, &c, &err) == 0, "%s", err.msg);
	const char *kept[] = {".helmignore", "OWNERS", "OWNERS2", "bak", "c", "docs/a.txt",
			      "docsx/a.md", "ignored/x.txt", "notes.txt", "top.tmp"};
	ck_assert_uint_eq(c->nfiles, 10);
	for (size_t i = 0; i < 10; i++)
		ck_assert_str_eq(c->files[i].name, kept[i]);
	ck_assert_uint_eq(c->ntemplates, 5); /* all but templates/.hidden */
	chart_free(c);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* A file of len bytes: an optional BOM, then 'a' + i % 26 up to len */
static char *big_text(size_t len, int bom)
{
	char *t = malloc(len + 1);
	ck_assert_ptr_nonnull(t);
	for (size_t i = 0; i < len; i++)
		t[i] = (char)('a' + i % 26);
	if (bom)
		memcpy(t, "\xEF\xBB\xBF", 3);
	t[len] = 0;
	return t;
}

static void assert_file(const chart_file *f, const char *name, const char *want)
{
	ck_assert_str_eq(f->name, name);
	ck_assert_uint_eq(f->len, strlen(want));
	ck_assert_int_eq(memcmp(f->data, want, f->len), 0);
	ck_assert_int_eq(f->data[f->len], 0);
}

/* Large files (which the directory loader maps instead of reading), one
 * with a BOM, one of whole pages (no terminating byte after it: read), in
 * the chart and in a sub-chart: the same data, NUL-terminated, BOM
 * trimmed; shared by chart_dup beyond the original's chart_free; counted
 * against the total size limit. */
START_TEST(test_directory_large_files)
{
	char p[512];
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	snprintf(tmpdir, sizeof tmpdir, "/tmp/bh-test-chart-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	const char *dirs[] = {"templates", "crds", "charts", "charts/sub", "charts/sub/crds"};
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		snprintf(p, sizeof p, "%s/%s", tmpdir, dirs[i]);
		ck_assert_int_eq(mkdir(p, 0755), 0);
	}
	char *bom = big_text(70001, 1), *pages = big_text(8 * page, 0), *odd = big_text(20000, 0);
	write_file("Chart.yaml", CHART_YAML);
	write_file("crds/bom.yaml", bom);
	write_file("crds/pages.yaml", pages);
	write_file("templates/odd.txt", odd);
	write_file("charts/sub/Chart.yaml", "apiVersion: v2\nname: sub\nversion: 1.0.0\n");
	write_file("charts/sub/crds/odd.yaml", odd);
	chart *c = NULL, *dup;
	bh_error err;
	ck_assert_msg(chart_load_dir(tmpdir, NULL, &c, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(c->ntemplates, 1);
	ck_assert_uint_eq(c->nfiles, 2);
	ck_assert_uint_eq(c->ndeps, 1);
	ck_assert_uint_eq(c->deps[0]->nfiles, 1);
	dup = chart_dup(c);
	ck_assert_ptr_nonnull(dup);
	chart_free(c);
	assert_file(&dup->files[0], "crds/bom.yaml", bom + 3);
	assert_file(&dup->files[1], "crds/pages.yaml", pages);
	assert_file(&dup->templates[0], "templates/odd.txt", odd);
	assert_file(&dup->deps[0]->files[0], "crds/odd.yaml", odd);
	chart_free(dup);
	/* the BOM counts toward the total, as when read */
	chart_limits lim = {0};
	lim.max_total = 70001 + 8 * page + 2 * 20000 + strlen(CHART_YAML) + 40; /* every byte */
	ck_assert_msg(chart_load_dir(tmpdir, &lim, &c, &err) == 0, "%s", err.msg);
	chart_free(c);
	lim.max_total--;
	ck_assert_int_lt(chart_load_dir(tmpdir, &lim, &c, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "chart is larger than the maximum size"));
	free(bom);
	free(pages);
	free(odd);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* A mapped file that shrinks under a loaded chart: reading its lost pages
 * raises SIGBUS at an address chart_mapped_path names the file of (the CLI's
 * handler prints it, cli/main.c); after chart_free nothing is named. */
static int bus_pipe = -1;
static void on_bus(int sig, siginfo_t *si, void *uc)
{
	const char *p = chart_mapped_path(si->si_addr);
	(void)sig;
	(void)uc;
	if (p)
		(void)!write(bus_pipe, p, strlen(p));
	_exit(p ? 7 : 8);
}

START_TEST(test_directory_mapped_truncated)
{
	char p[512];
	snprintf(tmpdir, sizeof tmpdir, "/tmp/bh-test-chart-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(p, sizeof p, "%s/templates", tmpdir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	char *odd = big_text(70001, 0);
	write_file("Chart.yaml", CHART_YAML);
	write_file("templates/odd.txt", odd);
	chart *c = NULL;
	bh_error err;
	ck_assert_msg(chart_load_dir(tmpdir, NULL, &c, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(c->ntemplates, 1);
	const unsigned char *d = c->templates[0].data;
	snprintf(p, sizeof p, "%s/templates/odd.txt", tmpdir);
	ck_assert_ptr_nonnull(chart_mapped_path(d));
	ck_assert_str_eq(chart_mapped_path(d + 70000), p);
	ck_assert_ptr_null(chart_mapped_path(p));
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_bus;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGBUS, &sa, NULL);
		bus_pipe = fds[1];
		if (truncate(p, 0))
			_exit(9);
		volatile unsigned char x = d[69999];
		(void)x;
		_exit(10);
	}
	close(fds[1]);
	char got[512] = {0};
	ssize_t n = read(fds[0], got, sizeof got - 1);
	close(fds[0]);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 7, "child status %d", st);
	ck_assert_int_gt(n, 0);
	ck_assert_str_eq(got, p);
	chart_free(c);
	ck_assert_ptr_null(chart_mapped_path(d + 70000));
	free(odd);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Chart.yaml `version` is checked with lib/semver's NewVersion (coercing),
 * as helm v4.1.4 does: v1.2 and 01.2 load, 1.2.3-01 and 1.2.3.4 do not. */
START_TEST(test_semver)
{
	entry ok1[] = {{"m/Chart.yaml", 'f', "apiVersion: v2\nname: m\nversion: v1.2\n", 0}};
	entry ok2[] = {{"m/Chart.yaml", 'f', "apiVersion: v2\nname: m\nversion: \"01.2\"\n", 0}};
	chart *c = NULL;
	bh_error err;
	ck_assert_msg(load(ok1, 1, NULL, &c, &err) == 0, "%s", err.msg);
	chart_free(c);
	c = NULL;
	ck_assert_msg(load(ok2, 1, NULL, &c, &err) == 0, "%s", err.msg);
	chart_free(c);
	entry bad1[] = {{"m/Chart.yaml", 'f', "apiVersion: v2\nname: m\nversion: 1.2.3-01\n", 0}};
	expect_error(bad1, 1, NULL, "validation: chart.metadata.version \"1.2.3-01\" is invalid");
	entry bad2[] = {{"m/Chart.yaml", 'f', "apiVersion: v2\nname: m\nversion: 1.2.3.4\n", 0}};
	expect_error(bad2, 1, NULL, "validation: chart.metadata.version \"1.2.3.4\" is invalid");
}
END_TEST

/* The sum of every schema the loaded chart and its sub-charts hold. */
static size_t schemas_held(const chart *c)
{
	size_t sum = c->schema_len;
	for (size_t i = 0; i < c->ndeps; i++)
		sum += schemas_held(c->deps[i]);
	return sum;
}

/* chart_files_shared_bytes counts exactly the schemas the loader shares
 * (the directory loader's heap estimate leaves them out): the chart's and
 * its directory sub-charts', not a values.schema.json anywhere else
 * (templates/, files/, a skipped _sub-chart). */
START_TEST(test_shared_bytes)
{
	static const char md[] = "apiVersion: v2\nname: %s\nversion: 1.0.0\n";
	char top[64], sub[64], deep[64];
	snprintf(top, sizeof top, md, "top");
	snprintf(sub, sizeof sub, md, "sub");
	snprintf(deep, sizeof deep, md, "deep");
	chart_file f[] = {
		{"Chart.yaml", (unsigned char *)top, strlen(top), NULL},
		{"values.schema.json", (unsigned char *)"{\"type\":\"object\"}", 17, NULL},
		{"templates/values.schema.json", (unsigned char *)"{}", 2, NULL},
		{"files/values.schema.json", (unsigned char *)"{ }", 3, NULL},
		{"charts/_skip/Chart.yaml", (unsigned char *)sub, strlen(sub), NULL},
		{"charts/_skip/values.schema.json", (unsigned char *)"{   }", 5, NULL},
		{"charts/sub/Chart.yaml", (unsigned char *)sub, strlen(sub), NULL},
		{"charts/sub/values.schema.json", (unsigned char *)"{\"type\":\"object\",\"a\":1}", 23, NULL},
		{"charts/sub/charts/deep/Chart.yaml", (unsigned char *)deep, strlen(deep), NULL},
		{"charts/sub/charts/deep/values.schema.json", (unsigned char *)"{\"b\":2}", 7, NULL},
		{"charts/sub/templates/values.schema.json", (unsigned char *)"{    }", 6, NULL},
	};
	size_t n = sizeof f / sizeof f[0];
	chart *c = NULL;
	bh_error err = {0};
	ck_assert_uint_eq(chart_files_shared_bytes(f, n), 17 + 23 + 7);
	ck_assert_msg(chart_load_files(f, n, NULL, &c, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(schemas_held(c), chart_files_shared_bytes(f, n));
	chart_free(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("chart");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_good_archive);
	tcase_add_test(tc, test_nested_archive_and_v1_requirements);
	tcase_add_test(tc, test_path_traversal);
	tcase_add_test(tc, test_absolute_and_odd_names);
	tcase_add_test(tc, test_links_and_devices);
	tcase_add_test(tc, test_duplicates_and_hygiene_everywhere);
	tcase_add_test(tc, test_decompression_bomb);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_hostile_yaml);
	tcase_add_test(tc, test_metadata_validation);
	tcase_add_test(tc, test_metadata_scalars);
	tcase_add_test(tc, test_chart_lock);
	tcase_add_test(tc, test_rfc3339);
	tcase_add_test(tc, test_missing_dependency);
	tcase_add_test(tc, test_directory);
	tcase_add_test(tc, test_directory_large_files);
	tcase_add_test(tc, test_directory_mapped_truncated);
	tcase_add_test(tc, test_semver);
	tcase_add_test(tc, test_shared_bytes);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
