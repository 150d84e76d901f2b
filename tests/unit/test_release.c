/* tests/unit/test_release.c — Helm release storage codec: Go field order and
 * escaping, gzip header, double base64 in the Secret, round trip, limits. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "helm/release.h"
#include "lib/gojson.h"
#include "lib/gzip.h"
#include "tests/unit/unit_util.h"

static json_t *sample(void)
{
	json_t *meta = json_pack("{s:s,s:s,s:s,s:s,s:s}", "version", "0.1.0", "name", "demo", "apiVersion", "v2",
				 "appVersion", "1.0", "description", "A <demo> & more");
	json_t *tpl = json_pack("[{s:s,s:s}]", "name", "templates/cm.yaml", "data", "YQ==");
	json_t *vals = json_pack("{s:i,s:s,s:f,s:f,s:{s:i,s:[{s:b,s:n}]}}", "zeta", 1, "alpha", "x", "ratio", 3.0, "tiny",
				 1e-7, "mid", "b", 1, "a", "y", 1, "x");
	release_fields f = {
		.name = "demo", .namespace_ = "team-a", .version = 1, .status = "deployed",
		.description = "Install complete", .first_deployed = "2026-11-21T06:00:00.5Z",
		.last_deployed = "2026-11-21T06:00:00.5Z", .chart_metadata = meta,
		.chart_templates = tpl, .chart_values = vals, .config = NULL,
		.manifest = "---\n# Source: demo/templates/cm.yaml\nkind: ConfigMap\n", .apply_method = "ssa",
	};
	json_t *r = release_json_new(&f, NULL);
	json_decref(meta);
	json_decref(tpl);
	json_decref(vals);
	return r;
}

START_TEST(test_marshal_order)
{
	json_t *r = sample();
	bh_buf b = BH_BUF_INIT;
	ck_assert_int_eq(release_marshal(r, &b, NULL), 0);
	ck_assert_str_eq(b.data,
		"{\"name\":\"demo\",\"info\":{\"first_deployed\":\"2026-11-21T06:00:00.5Z\","
		"\"last_deployed\":\"2026-11-21T06:00:00.5Z\",\"description\":\"Install complete\",\"status\":\"deployed\"},"
		"\"chart\":{\"metadata\":{\"name\":\"demo\",\"version\":\"0.1.0\",\"description\":\"A \\u003cdemo\\u003e \\u0026 more\","
		"\"apiVersion\":\"v2\",\"appVersion\":\"1.0\"},\"lock\":null,\"templates\":[{\"name\":\"templates/cm.yaml\",\"data\":\"YQ==\"}],"
		"\"values\":{\"alpha\":\"x\",\"mid\":{\"a\":[{\"x\":null,\"y\":true}],\"b\":1},\"ratio\":3,\"tiny\":1e-7,"
		"\"zeta\":1},\"schema\":null,\"files\":null},"
		"\"manifest\":\"---\\n# Source: demo/templates/cm.yaml\\nkind: ConfigMap\\n\",\"version\":1,"
		"\"namespace\":\"team-a\",\"apply_method\":\"ssa\"}");
	bh_buf_free(&b);
	json_decref(r);
}
END_TEST

START_TEST(test_secret_roundtrip)
{
	json_t *r = sample(), *sec, *back;
	bh_buf raw = BH_BUF_INIT;
	bh_error e;
	const char *data;
	sec = release_secret_new(r, 1763700000, &e);
	ck_assert_ptr_nonnull(sec);
	ck_assert_str_eq(json_string_value(json_object_get(sec, "type")), "helm.sh/release.v1");
	json_t *md = json_object_get(sec, "metadata"), *lb = json_object_get(md, "labels");
	ck_assert_str_eq(json_string_value(json_object_get(md, "name")), "sh.helm.release.v1.demo.v1");
	ck_assert_str_eq(json_string_value(json_object_get(md, "namespace")), "team-a");
	ck_assert_str_eq(json_string_value(json_object_get(lb, "owner")), "helm");
	ck_assert_str_eq(json_string_value(json_object_get(lb, "status")), "deployed");
	ck_assert_str_eq(json_string_value(json_object_get(lb, "version")), "1");
	ck_assert_str_eq(json_string_value(json_object_get(lb, "createdAt")), "1763700000");
	ck_assert_str_eq(json_string_value(json_object_get(lb, "name")), "demo");
	/* data.release as the API carries it: base64 of Helm's base64(gzip(json)) */
	data = json_string_value(json_object_get(json_object_get(sec, "data"), "release"));
	ck_assert_int_eq(release_base64_decode(data, strlen(data), &raw, &e), 0);
	ck_assert(strncmp(raw.data, "H4sI", 4) == 0); /* base64 of 1f 8b 08 */
	ck_assert_int_eq(release_decode(raw.data, raw.len, &back, &e), 0);
	{ /* same document (numbers may come back as integers: compare Go's text) */
		bh_buf x = BH_BUF_INIT, y = BH_BUF_INIT;
		ck_assert_int_eq(release_marshal(back, &x, NULL), 0);
		ck_assert_int_eq(release_marshal(r, &y, NULL), 0);
		ck_assert_str_eq(x.data, y.data);
		bh_buf_free(&x);
		bh_buf_free(&y);
	}
	/* gzip header as Go writes it: OS byte 255 */
	{
		bh_buf gz = BH_BUF_INIT;
		ck_assert_int_eq(release_base64_decode(raw.data, raw.len, &gz, &e), 0);
		ck_assert_uint_eq((unsigned char)gz.data[9], 255);
		ck_assert_uint_eq((unsigned char)gz.data[4], 0);
		bh_buf_free(&gz);
	}
	json_decref(back);
	json_decref(sec);
	json_decref(r);
	bh_buf_free(&raw);
}
END_TEST

/* Records compressed in pieces with a keep: each reads back (zlib checks
 * each member's CRC and size), the middle piece is reused by the next record
 * of the release, and a text without a chart is compressed whole. */
static void check_text(const char *enc, const char *want)
{
	json_t *back;
	bh_error e;
	bh_buf x = BH_BUF_INIT;
	ck_assert_msg(release_decode(enc, strlen(enc), &back, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(release_marshal(back, &x, NULL), 0);
	ck_assert_str_eq(x.data, want);
	bh_buf_free(&x);
	json_decref(back);
}

/* A record whose base64 text passes the API's 1 MiB at our level is
 * compressed again at the best level, and the smaller is stored. */
START_TEST(test_gzip_tight)
{
	static char words[4096][6]; /* random five-letter words: text that compresses about 2:1 */
	bh_buf js = BH_BUF_INIT, best = BH_BUF_INIT, quick = BH_BUF_INIT;
	bh_error e;
	unsigned x = 12345;
	release_gzkeep *k = release_gzkeep_new();
	char *enc;
	for (int i = 0; i < 4096; i++)
		for (int j = 0; j < 5; j++) {
			x = x * 1103515245u + 12345u;
			words[i][j] = (char)('a' + (x >> 16) % 26);
		}
	bh_buf_puts(&js, "{\"name\":\"big\",\"chart\":{\"files\":\"");
	while (js.len < (size_t)2 << 20) {
		x = x * 1103515245u + 12345u;
		bh_buf_puts(&js, words[(x >> 16) % 4096]);
		bh_buf_putc(&js, ' ');
	}
	bh_buf_puts(&js, "\"},\"version\":1}");
	ck_assert(bh_buf_ok(&js));
	ck_assert_int_eq(bh_gzip(js.data, js.len, RELEASE_GZIP_LEVEL, &quick, &e), 0);
	ck_assert_int_eq(bh_gzip(js.data, js.len, RELEASE_GZIP_BEST, &best, &e), 0);
	/* the case this is about: over the limit at the usual level, and smaller at the best */
	ck_assert_uint_gt((quick.len + 2) / 3 * 4, RELEASE_STORED_MAX);
	ck_assert_uint_lt(best.len, quick.len);
	ck_assert_ptr_nonnull(enc = release_encode_text_keep_new(k, js.data, js.len, &e));
	ck_assert_uint_eq(strlen(enc), (best.len + 2) / 3 * 4);
	check_text(enc, js.data);
	free(enc);
	ck_assert_ptr_nonnull(enc = release_encode_text_new(js.data, js.len, &e));
	ck_assert_uint_eq(strlen(enc), (best.len + 2) / 3 * 4);
	free(enc);
	release_gzkeep_free(k);
	bh_buf_free(&js);
	bh_buf_free(&best);
	bh_buf_free(&quick);
}
END_TEST

START_TEST(test_gzkeep)
{
	json_t *r = sample();
	bh_buf a = BH_BUF_INIT, b = BH_BUF_INIT;
	bh_error e;
	release_gzkeep *k = release_gzkeep_new();
	char *ea, *eb, *ec, *plain;
	json_object_set_new(json_object_get(r, "info"), "status", json_string("pending-install"));
	ck_assert_int_eq(release_marshal(r, &a, NULL), 0);
	json_object_set_new(json_object_get(r, "info"), "status", json_string("deployed"));
	json_object_set_new(r, "hooks", json_pack("[{s:s}]", "name", "pre"));
	ck_assert_int_eq(release_marshal(r, &b, NULL), 0);
	ea = release_encode_text_keep_new(k, a.data, a.len, &e);
	eb = release_encode_text_keep_new(k, b.data, b.len, &e);
	ck_assert_ptr_nonnull(ea);
	ck_assert_ptr_nonnull(eb);
	check_text(ea, a.data);
	check_text(eb, b.data);
	/* a fresh keep compresses the same bytes: the kept piece is what it would be */
	release_gzkeep_free(k);
	k = release_gzkeep_new();
	ec = release_encode_text_keep_new(k, b.data, b.len, &e);
	ck_assert_str_eq(ec, eb);
	/* no top-level chart: one piece, as release_encode_text_new */
	free(ec);
	ec = release_encode_text_keep_new(k, "{\"name\":\"x\",\"chart\":1}", 22, &e);
	plain = release_encode_text_new("{\"name\":\"x\",\"chart\":1}", 22, &e);
	ck_assert_str_eq(ec, plain);
	free(ea);
	free(eb);
	free(ec);
	free(plain);
	release_gzkeep_free(k);
	bh_buf_free(&a);
	bh_buf_free(&b);
	json_decref(r);
}
END_TEST

/* The chart's text kept: the same record marshals to the same text, a
 * second record with the same chart object reuses it, another chart
 * object is marshalled (three charts: the oldest falls out of the keep). */
START_TEST(test_marshal_keep)
{
	json_t *r = sample(), *r2 = sample(), *r3 = sample();
	release_gzkeep *k = release_gzkeep_new();
	bh_buf want = BH_BUF_INIT;
	json_object_set_new(json_object_get(json_object_get(r2, "chart"), "metadata"), "name", json_string("other"));
	json_object_set_new(json_object_get(json_object_get(r3, "chart"), "metadata"), "name", json_string("third"));
	for (int round = 0; round < 3; round++) {
		json_t *const rs[3] = {r, r2, r3};
		for (int i = 0; i < 3; i++) {
			bh_buf got = BH_BUF_INIT;
			if (i == 0) /* a record written again with another status */
				json_object_set_new(json_object_get(r, "info"), "status",
						    json_string(round ? "deployed" : "pending-install"));
			bh_buf_reset(&want);
			ck_assert_int_eq(release_marshal(rs[i], &want, NULL), 0);
			ck_assert_int_eq(release_marshal_keep(k, rs[i], &got, NULL), 0);
			ck_assert_str_eq(got.data, want.data);
			bh_buf_reset(&got);
			ck_assert_int_eq(release_marshal_keep(k, rs[i], &got, NULL), 0);
			ck_assert_str_eq(got.data, want.data);
			bh_buf_free(&got);
			{ /* the stored copy as release_stored_copy's, its chart shared while kept */
				json_t *c1 = release_stored_copy_keep(k, rs[i]), *c2 = release_stored_copy_keep(k, rs[i]);
				json_t *plain = release_stored_copy(rs[i]);
				ck_assert(json_equal(c1, plain) && json_equal(c2, plain));
				ck_assert_ptr_eq(json_object_get(c1, "chart"), json_object_get(c2, "chart"));
				ck_assert_ptr_ne(json_object_get(c1, "info"), json_object_get(c2, "info"));
				json_decref(c1);
				json_decref(c2);
				json_decref(plain);
			}
		}
	}
	release_gzkeep_free(k);
	bh_buf_free(&want);
	json_decref(r);
	json_decref(r2);
	json_decref(r3);
}
END_TEST

/* The pieces of a kept record begin where release_marshal_keep saw its
 * chart and hooks begin: the gzip member is the one a scan of the text
 * gives (a keep that marshalled nothing), also when the text follows other
 * bytes in the buffer; a text the keep did not marshal last is scanned. */
/* Is back what storing rel reads back as? */
static int same_stored(const json_t *back, const json_t *rel)
{
	json_t *c = release_stored_copy(rel);
	int same = json_equal(back, c);
	json_decref(c);
	return same;
}

START_TEST(test_marshal_keep_split)
{
	json_t *r = sample(), *r2 = sample(), *back = NULL;
	release_gzkeep *k = release_gzkeep_new(), *fresh = release_gzkeep_new(), *fresh2 = release_gzkeep_new();
	bh_buf t = BH_BUF_INIT, t2 = BH_BUF_INIT;
	char *s1, *s2, *s3, *s4;
	bh_error e;
	json_object_set_new(json_object_get(json_object_get(r2, "chart"), "metadata"), "name", json_string("other"));
	bh_buf_puts(&t, "prefix");
	ck_assert_int_eq(release_marshal_keep(k, r, &t, NULL), 0);
	ck_assert_ptr_nonnull(s1 = release_encode_text_keep_new(k, t.data + 6, t.len - 6, &e));
	ck_assert_ptr_nonnull(s2 = release_encode_text_keep_new(fresh, t.data + 6, t.len - 6, &e));
	ck_assert_str_eq(s1, s2);
	ck_assert_int_eq(release_decode(s1, strlen(s1), &back, &e), 0);
	ck_assert_int_eq(same_stored(back, r), 1);
	json_decref(back);
	/* another record's text: k's points are not its own */
	ck_assert_int_eq(release_marshal(r2, &t2, NULL), 0);
	ck_assert_ptr_nonnull(s3 = release_encode_text_keep_new(k, t2.data, t2.len, &e));
	ck_assert_ptr_nonnull(s4 = release_encode_text_keep_new(fresh2, t2.data, t2.len, &e));
	ck_assert_str_eq(s3, s4);
	ck_assert_int_eq(release_decode(s3, strlen(s3), &back, &e), 0);
	ck_assert_int_eq(same_stored(back, r2), 1);
	json_decref(back);
	free(s1);
	free(s2);
	free(s3);
	free(s4);
	bh_buf_free(&t);
	bh_buf_free(&t2);
	release_gzkeep_free(k);
	release_gzkeep_free(fresh);
	release_gzkeep_free(fresh2);
	json_decref(r);
	json_decref(r2);
}
END_TEST

/* A record's copy shares its chart and copies the rest */
START_TEST(test_record_copy)
{
	json_t *r = sample(), *c = release_record_copy(r);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(json_equal(c, r), 1);
	ck_assert_ptr_eq(json_object_get(c, "chart"), json_object_get(r, "chart"));
	ck_assert_ptr_ne(json_object_get(c, "info"), json_object_get(r, "info"));
	json_object_set_new(json_object_get(c, "info"), "status", json_string("superseded"));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "info"), "status")), "deployed");
	json_decref(c);
	json_decref(r);
}
END_TEST

/* A string's text is gojson_quote's (HTML-safe) whatever byte needs care
 * and wherever it is (release_marshal checks eight bytes at a time), for
 * lengths 0 to 25 */
START_TEST(test_marshal_quote)
{
	static const char *const odd[] = {"\"", "\\", "<", ">", "&", "\n", "\x01", "\x1f", "\x7f", "\xc3\xa9",
					  "\xe2\x80\xa8", "\xff", "~", " "};
	for (size_t k = 0; k < sizeof odd / sizeof *odd; k++)
		for (size_t n = 0; n < 26; n++)
			for (size_t at = 0; at <= n; at++) {
				char t[40];
				size_t len;
				bh_buf got = BH_BUF_INIT, want = BH_BUF_INIT;
				json_t *o;
				memset(t, 'Q', n);
				len = n;
				if (at < n) { /* the odd bytes at at (else none) */
					size_t m = strlen(odd[k]);
					memcpy(t + at, odd[k], m);
					len = at + m > n ? at + m : n;
				}
				o = json_pack("{s:o}", "k", json_stringn_nocheck(t, len));
				ck_assert_int_eq(release_marshal(o, &got, NULL), 0);
				bh_buf_puts(&want, "{\"k\":");
				gojson_quote(&want, t, len, 0);
				bh_buf_putc(&want, '}');
				ck_assert_str_eq(got.data, want.data);
				bh_buf_free(&got);
				bh_buf_free(&want);
				json_decref(o);
			}
}
END_TEST

/* data.release, base64 of base64, for gzip members of every length mod 9
 * (the encoder makes both layers at once, 9 bytes at a time) */
START_TEST(test_secret_base64_twice)
{
	json_t *r = sample();
	size_t seen = 0;
	for (int i = 0; i < 64 && seen != 0x1ff; i++) {
		char desc[80];
		bh_buf raw = BH_BUF_INIT, gz = BH_BUF_INIT, x = BH_BUF_INIT, y = BH_BUF_INIT;
		json_t *sec, *back;
		const char *data;
		bh_error e;
		for (int j = 0; j < i; j++) /* varied bytes: the gzip member's length varies too */
			desc[j] = (char)('a' + (j * 7 + i) % 26);
		desc[i] = '\0';
		json_object_set_new(json_object_get(r, "info"), "description", json_string(desc));
		ck_assert_ptr_nonnull(sec = release_secret_new(r, 1763700000, &e));
		data = json_string_value(json_object_get(json_object_get(sec, "data"), "release"));
		ck_assert_int_eq(release_base64_decode(data, strlen(data), &raw, &e), 0);
		ck_assert_int_eq(release_base64_decode(raw.data, raw.len, &gz, &e), 0);
		seen |= (size_t)1 << (gz.len % 9);
		ck_assert_int_eq(release_decode(raw.data, raw.len, &back, &e), 0);
		ck_assert_int_eq(release_marshal(back, &x, NULL), 0);
		ck_assert_int_eq(release_marshal(r, &y, NULL), 0);
		ck_assert_str_eq(x.data, y.data);
		json_decref(back);
		json_decref(sec);
		bh_buf_free(&raw);
		bh_buf_free(&gz);
		bh_buf_free(&x);
		bh_buf_free(&y);
	}
	ck_assert_uint_eq(seen, 0x1ff);
	json_decref(r);
}
END_TEST

START_TEST(test_base64_and_decode_errors)
{
	bh_buf b = BH_BUF_INIT;
	bh_error e;
	json_t *o;
	char *s = release_base64_new((const unsigned char *)"hello!?", 7);
	ck_assert_str_eq(s, "aGVsbG8hPw==");
	/* every character of the alphabet, in order */
	char *all = release_base64_new((const unsigned char *)"\x00\x10\x83\x10\x51\x87\x20\x92\x8b\x30\xd3\x8f\x41\x14\x93\x51"
						    "\x55\x97\x61\x96\x9b\x71\xd7\x9f\x82\x18\xa3\x92\x59\xa7\xa2\x9a"
						    "\xab\xb2\xdb\xaf\xc3\x1c\xb3\xd3\x5d\xb7\xe3\x9e\xbb\xf3\xdf\xbf",
			       48);
	ck_assert_str_eq(all, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
	free(all);
	ck_assert_int_eq(release_base64_decode(s, strlen(s), &b, &e), 0);
	ck_assert_uint_eq(b.len, 7);
	ck_assert(memcmp(b.data, "hello!?", 7) == 0);
	free(s);
	bh_buf_reset(&b);
	ck_assert_int_eq(release_base64_decode("a$==", 4, &b, &e), BH_EINVAL);
	ck_assert_int_eq(release_base64_decode("abc", 3, &b, &e), BH_EINVAL);
	ck_assert_int_eq(release_base64_decode("a=bc", 4, &b, &e), BH_EINVAL);
	/* every digit, in groups before the last; a bad byte there named */
	ck_assert_int_eq(release_base64_decode("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/AA==", 68, &b, &e), 0);
	ck_assert_uint_eq(b.len, 49);
	ck_assert(memcmp(b.data, "\x00\x10\x83\x10\x51\x87\x20\x92\x8b\x30\xd3\x8f\x41\x14\x93\x51"
				 "\x55\x97\x61\x96\x9b\x71\xd7\x9f\x82\x18\xa3\x92\x59\xa7\xa2\x9a"
				 "\xab\xb2\xdb\xaf\xc3\x1c\xb3\xd3\x5d\xb7\xe3\x9e\xbb\xf3\xdf\xbf\x00",
			 49) == 0);
	bh_buf_reset(&b);
	ck_assert_int_eq(release_base64_decode("QUJDRE$GQUJD", 12, &b, &e), BH_EINVAL);
	ck_assert_str_eq(e.msg, "illegal base64 data at input byte 6");
	ck_assert_int_eq(release_base64_decode("QU==QUJD", 8, &b, &e), BH_EINVAL);
	ck_assert_str_eq(e.msg, "illegal base64 data at input byte 2");
	bh_buf_reset(&b);
	/* plain JSON (no gzip) is accepted, as Helm does */
	s = release_base64_new((const unsigned char *)"{\"name\":\"x\"}", 12);
	ck_assert_int_eq(release_decode(s, strlen(s), &o, &e), 0);
	ck_assert_str_eq(json_string_value(json_object_get(o, "name")), "x");
	json_decref(o);
	free(s);
	/* truncated gzip */
	s = release_base64_new((const unsigned char *)"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff\x01", 11);
	ck_assert_int_lt(release_decode(s, strlen(s), &o, &e), 0);
	free(s);
	/* gzip members in a row read as one stream (Go's multistream reader);
	 * bytes after a member that do not begin another are an error */
	{
		bh_buf gz = BH_BUF_INIT;
		ck_assert_int_eq(bh_gzip("{\"name\":", 8, 1, &gz, &e), 0);
		ck_assert_int_eq(bh_gzip("\"two\"}", 6, 9, &gz, &e), 0);
		s = release_base64_new((const unsigned char *)gz.data, gz.len);
		ck_assert_msg(release_decode(s, strlen(s), &o, &e) == 0, "%s", e.msg);
		ck_assert_str_eq(json_string_value(json_object_get(o, "name")), "two");
		json_decref(o);
		free(s);
		bh_buf_put(&gz, "\0\0\0\0", 4);
		s = release_base64_new((const unsigned char *)gz.data, gz.len);
		ck_assert_int_eq(release_decode(s, strlen(s), &o, &e), BH_EINVAL);
		free(s);
		bh_buf_free(&gz);
	}
	/* a record of more than 8 times its gzip'd size (libdeflate's room
	 * grown), and a header CRC: checked (by zlib) when there is one */
	{
		bh_buf js = BH_BUF_INIT, gz = BH_BUF_INIT;
		unsigned char hd[12];
		bh_buf_puts(&js, "{\"name\":\"big\"");
		while (js.len < 300000)
			bh_buf_puts(&js, ",\"k\":\"vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\"");
		bh_buf_putc(&js, '}');
		ck_assert_int_eq(bh_gzip(js.data, js.len, 1, &gz, &e), 0);
		ck_assert_uint_lt(gz.len * 8, js.len);
		s = release_base64_new((const unsigned char *)gz.data, gz.len);
		ck_assert_msg(release_decode(s, strlen(s), &o, &e) == 0, "%s", e.msg);
		ck_assert_str_eq(json_string_value(json_object_get(o, "name")), "big");
		json_decref(o);
		free(s);
		bh_buf_reset(&gz);
		ck_assert_int_eq(bh_gzip("{\"name\":\"h\"}", 12, 1, &gz, &e), 0);
		memcpy(hd, gz.data, 10);
		hd[3] |= 2;
		uLong crc = crc32(0, hd, 10);
		hd[10] = (unsigned char)crc;
		hd[11] = (unsigned char)(crc >> 8);
		bh_buf_reset(&js);
		bh_buf_put(&js, hd, 12);
		bh_buf_put(&js, gz.data + 10, gz.len - 10);
		s = release_base64_new((const unsigned char *)js.data, js.len);
		ck_assert_msg(release_decode(s, strlen(s), &o, &e) == 0, "%s", e.msg);
		ck_assert_str_eq(json_string_value(json_object_get(o, "name")), "h");
		json_decref(o);
		free(s);
		js.data[10] ^= 1;
		s = release_base64_new((const unsigned char *)js.data, js.len);
		ck_assert_int_eq(release_decode(s, strlen(s), &o, &e), BH_EINVAL);
		ck_assert_msg(strstr(e.msg, "header crc"), "%s", e.msg);
		free(s);
		bh_buf_free(&js);
		bh_buf_free(&gz);
	}
	bh_buf_free(&b);
}
END_TEST

/* release_stored_copy: equal to what decoding the stored text gives, or
 * NULL where only decoding can tell */
static json_t *decoded(const json_t *r)
{
	char *enc = release_encode_new(r, NULL);
	json_t *back = NULL;
	ck_assert_ptr_nonnull(enc);
	ck_assert_int_eq(release_decode(enc, strlen(enc), &back, NULL), 0);
	free(enc);
	return back;
}

START_TEST(test_stored_copy)
{
	json_t *r = sample(), *c, *back;
	/* "ratio": 3.0 reads back as 3, "tiny" as 1e-7 */
	ck_assert_ptr_nonnull(c = release_stored_copy(r));
	back = decoded(r);
	ck_assert(json_equal(c, back));
	ck_assert(json_is_integer(json_object_get(json_object_get(json_object_get(c, "chart"), "values"), "ratio")));
	json_decref(c);
	json_decref(back);
	json_object_set_new(r, "config", json_pack("{s:s,s:i,s:[b,n],s:{}}", "html", "<a href=x>&amp;\u2028 \xc3\xa9\n\t\x01",
						   "n", 7, "list", 1, "empty"));
	json_object_set_new(json_object_get(r, "chart"), "values", json_null());
	ck_assert_ptr_nonnull(c = release_stored_copy(r));
	back = decoded(r);
	ck_assert(json_equal(c, back));
	{ /* the same key order */
		char *a = json_dumps(c, JSON_COMPACT), *b = json_dumps(back, JSON_COMPACT);
		ck_assert_str_eq(a, b);
		free(a);
		free(b);
	}
	json_decref(c);
	json_decref(back);
	/* invalid UTF-8 is written as U+FFFD; a NUL is refused when read */
	json_object_set_new(r, "manifest", json_stringn_nocheck("a\xff", 2));
	ck_assert_ptr_null(release_stored_copy(r));
	json_object_set_new(r, "manifest", json_stringn("a\0b", 3));
	ck_assert_ptr_null(release_stored_copy(r));
	/* the same anywhere in a long ASCII text (read eight bytes at a time),
	 * and a valid two-byte rune anywhere kept */
	for (size_t at = 0; at < 24; at++) {
		char t[32];
		json_t *ok;
		memset(t, 'x', sizeof t);
		t[at] = '\xff';
		json_object_set_new(r, "manifest", json_stringn_nocheck(t, sizeof t));
		ck_assert_ptr_null(release_stored_copy(r));
		t[at] = '\0';
		json_object_set_new(r, "manifest", json_stringn_nocheck(t, sizeof t));
		ck_assert_ptr_null(release_stored_copy(r));
		t[at] = '\xc3';
		t[at + 1] = '\xa9';
		json_object_set_new(r, "manifest", json_stringn_nocheck(t, sizeof t));
		ck_assert_ptr_nonnull(ok = release_stored_copy(r));
		ck_assert_mem_eq(json_string_value(json_object_get(ok, "manifest")), t, sizeof t);
		json_decref(ok);
	}
	json_object_set_new(r, "manifest", json_real(1e20)); /* written 100000000000000000000: not an int64 */
	ck_assert_ptr_null(release_stored_copy(r));
	json_decref(r);
}
END_TEST

START_TEST(test_time_and_name)
{
	char t[40], *n;
	release_time_format(1763708911, 123456000, t);
	ck_assert_str_eq(t, "2025-11-21T07:08:31.123456Z");
	release_time_format(1763708911, 0, t);
	ck_assert_str_eq(t, "2025-11-21T07:08:31Z");
	n = release_secret_name_new("web", 12);
	ck_assert_str_eq(n, "sh.helm.release.v1.web.v12");
	free(n);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("release");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_marshal_order);
	tcase_add_test(tc, test_secret_roundtrip);
	tcase_add_test(tc, test_gzkeep);
	tcase_add_test(tc, test_marshal_keep);
	tcase_add_test(tc, test_marshal_keep_split);
	tcase_add_test(tc, test_marshal_quote);
	tcase_add_test(tc, test_record_copy);
	tcase_add_test(tc, test_secret_base64_twice);
	tcase_add_test(tc, test_base64_and_decode_errors);
	tcase_add_test(tc, test_time_and_name);
	tcase_add_test(tc, test_stored_copy);
	tcase_add_test(tc, test_gzip_tight);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
