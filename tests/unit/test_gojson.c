/* tests/unit/test_gojson.c — lib/gojson against Go's encoding/json (expected
 * strings from Helm v4.1.4's toJson/toPrettyJson/toRawJson/fromJson). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gojson.h"
#include "lib/yaml.h"
#include "tests/unit/vectors.h"
#include "tests/unit/unit_util.h"

static char *enc(json_t *v, int flags)
{
	bh_buf b = BH_BUF_INIT;
	bh_error e = {0};
	int rc = gojson_encode(v, flags, &b, &e);
	json_decref(v);
	ck_assert_msg(rc == 0, "encode: %s", e.msg);
	return bh_buf_detach(&b);
}

#define ENC_EQ(v, flags, want) do { char *s_ = enc((v), (flags)); ck_assert_str_eq(s_ ? s_ : "", (want)); free(s_); } while (0)

START_TEST(test_encode_scalars)
{
	ENC_EQ(json_real(1e21), 0, "1e+21");
	ENC_EQ(json_real(1e20), 0, "100000000000000000000");
	ENC_EQ(json_real(0.000001), 0, "0.000001");
	ENC_EQ(json_real(1e-7), 0, "1e-7");
	ENC_EQ(json_real(-0.0), 0, "-0");
	ENC_EQ(json_real(123456789.0), 0, "123456789");
	ENC_EQ(json_real(9007199254740993.0), 0, "9007199254740992");
	ENC_EQ(json_integer(9223372036854775807LL), 0, "9223372036854775807");
	ENC_EQ(json_string("<&>"), 0, "\"\\u003c\\u0026\\u003e\"");
	ENC_EQ(json_string("<&>"), GOJSON_NO_HTML_ESCAPE, "\"<&>\"");
	ENC_EQ(json_string("\xc3\xa9\xe2\x80\xa8\t\n\""), 0, "\"\xc3\xa9\\u2028\\t\\n\\\"\"");
	ENC_EQ(json_stringn_nocheck("\x00\x1f\x7f", 3), 0, "\"\\u0000\\u001f\x7f\"");
	ENC_EQ(json_stringn_nocheck("a\xff" "b", 3), 0, "\"a\\ufffdb\"");
	ENC_EQ(json_string("\b\f"), 0, "\"\\b\\f\"");
}
END_TEST

START_TEST(test_encode_collections)
{
	json_t *o = json_pack("{s:i,s:{s:i,s:i},s:[]}", "b", 1, "a", "d", 2, "c", 3, "e");
	ENC_EQ(json_incref(o), 0, "{\"a\":{\"c\":3,\"d\":2},\"b\":1,\"e\":[]}");
	ENC_EQ(o, GOJSON_INDENT, "{\n  \"a\": {\n    \"c\": 3,\n    \"d\": 2\n  },\n  \"b\": 1,\n  \"e\": []\n}");
	ENC_EQ(json_pack("[i,[i]]", 1, 2), GOJSON_INDENT, "[\n  1,\n  [\n    2\n  ]\n]");
	ENC_EQ(json_object(), GOJSON_INDENT, "{}");
}
END_TEST

/* jansson cannot hold NaN/Inf (json_real refuses them), so the encoder's
 * "json: unsupported value" path is reached only through callers' own
 * float handling; gojson_format_float is what they share. */
/* gojson_quote scans 16 bytes a step: each byte it must escape (or
 * decode as UTF-8) at every position of a 40-byte string of 'a's, with and
 * without HTML escaping */
START_TEST(test_quote_positions)
{
	static const struct {
		const char *in, *html, *plain;
	} cases[] = {
		{"<", "\\u003c", "<"}, {">", "\\u003e", ">"}, {"&", "\\u0026", "&"},
		{"\"", "\\\"", "\\\""}, {"\\", "\\\\", "\\\\"}, {"\n", "\\n", "\\n"},
		{"\x01", "\\u0001", "\\u0001"}, {"\x1f", "\\u001f", "\\u001f"}, {"\x7f", "\x7f", "\x7f"},
		{"\xc3\xa9", "\xc3\xa9", "\xc3\xa9"}, {"\xe2\x80\xa8", "\\u2028", "\\u2028"},
		{"\xff", "\\ufffd", "\\ufffd"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
		for (size_t pos = 0; pos < 40; pos++)
			for (int html = 0; html < 2; html++) {
				char in[64], want[128];
				size_t il = strlen(cases[k].in);
				memset(in, 'a', 40);
				memcpy(in + pos, cases[k].in, il);
				size_t n = pos + il < 40 ? 40 : pos + il;
				snprintf(want, sizeof want, "\"%.*s%s%.*s\"", (int)pos, in,
					 html ? cases[k].html : cases[k].plain, (int)(n - pos - il), in + pos + il);
				bh_buf b = BH_BUF_INIT;
				gojson_quote(&b, in, n, html ? 0 : GOJSON_NO_HTML_ESCAPE);
				ck_assert_msg(strcmp(bh_buf_str(&b), want) == 0, "case %zu at %zu (html %d): %s", k, pos,
					      html, bh_buf_str(&b));
				bh_buf_free(&b);
			}
}
END_TEST

START_TEST(test_format_float)
{
	bh_buf b = BH_BUF_INIT;
	gojson_format_float(&b, 1e-7);
	bh_buf_putc(&b, ' ');
	gojson_format_float(&b, 1.5e300);
	bh_buf_putc(&b, ' ');
	gojson_format_float(&b, 0.1);
	ck_assert_str_eq(bh_buf_str(&b), "1e-7 1.5e+300 0.1");
	bh_buf_free(&b);
}
END_TEST

static void dec_err(const char *text, const char *msg)
{
	json_t *v = NULL;
	bh_error e = {0};
	int rc = gojson_decode(text, strlen(text), NULL, 0, &v, &e);
	ck_assert_msg(rc != 0, "%s decoded", text);
	ck_assert_ptr_null(v);
	ck_assert_str_eq(e.msg, msg);
}

/* messages from the fromJson / fromJsonArray / mustFromJson vectors */
START_TEST(test_decode_errors)
{
	dec_err("not json", "invalid character 'o' in literal null (expecting 'u')");
	dec_err("", "unexpected end of JSON input");
	dec_err("   ", "unexpected end of JSON input");
	dec_err("{\"a\":1} trailing", "invalid character 't' after top-level value");
	dec_err("{bad", "invalid character 'b' looking for beginning of object key string");
	dec_err("bad", "invalid character 'b' looking for beginning of value");
	dec_err("[1,2] x", "invalid character 'x' after top-level value");
	dec_err("{\"a\" 1}", "invalid character '1' after object key");
	dec_err("{\"a\":1 2}", "invalid character '2' after object key:value pair");
	dec_err("[1 2]", "invalid character '2' after array element");
	dec_err("\"a\nb\"", "invalid character '\\n' in string literal");
	dec_err("\"\\x\"", "invalid character 'x' in string escape code");
	dec_err("\"\\u12g4\"", "invalid character 'g' in \\u hexadecimal character escape");
	dec_err("-a", "invalid character 'a' in numeric literal");
	/* a byte >= 0x80 is the rune U+00XX, quoted by strconv.IsPrint (helm
	 * 4.1.4's (fromJson "\xa0").Error and the like) */
	dec_err("\xa0", "invalid character '\\u00a0' looking for beginning of value");
	dec_err("\xad", "invalid character '\\u00ad' looking for beginning of value");
	dec_err("\x85", "invalid character '\\u0085' looking for beginning of value");
	dec_err("\xa1", "invalid character '\xc2\xa1' looking for beginning of value");
	dec_err("{\"a\":1\xa0}", "invalid character '\\u00a0' after object key:value pair");
	dec_err("1.e", "invalid character 'e' after decimal point in numeric literal");
	/* a number or literal cut short: Go's scanner steps a space through
	 * its state at the end (helm 4.1.4's fromJson) */
	dec_err("1e+", "invalid character ' ' in exponent of numeric literal");
	dec_err("n", "invalid character ' ' in literal null (expecting 'u')");
	dec_err("[tru", "invalid character ' ' in literal true (expecting 'e')");
	dec_err("{\"a\":nul", "invalid character ' ' in literal null (expecting 'l')");
	dec_err("[-", "invalid character ' ' in numeric literal");
	dec_err("-0.", "invalid character ' ' after decimal point in numeric literal");
	dec_err("[1", "unexpected end of JSON input");
	dec_err("\"abc", "unexpected end of JSON input");
	dec_err("01", "invalid character '1' after top-level value");
	dec_err("[1e400]", "json: cannot unmarshal number 1e400 into Go value of type float64");
	dec_err("'a'", "invalid character '\\'' looking for beginning of value");
	/* after indentation read eight spaces at a time */
	dec_err("{\n                 x", "invalid character 'x' looking for beginning of object key string");
	dec_err("[1,\n        ", "unexpected end of JSON input");
}
END_TEST

START_TEST(test_decode_values)
{
	json_t *v = NULL;
	bh_error e = {0};
	const char *t = "{\"a\":1,\"a\":2,\"b\":[1e3,12345678901234567890,\"\\u00e9\\ud83c\\udf89\\ud800\"],\"c\":null}";
	ck_assert_int_eq(gojson_decode(t, strlen(t), NULL, 0, &v, &e), 0);
	ck_assert(json_real_value(json_object_get(v, "a")) == 2);
	ck_assert(json_real_value(json_array_get(json_object_get(v, "b"), 0)) == 1000);
	ck_assert(json_real_value(json_array_get(json_object_get(v, "b"), 1)) == 12345678901234567890.0);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(v, "b"), 2)), "\xc3\xa9\xf0\x9f\x8e\x89\xef\xbf\xbd");
	ck_assert(json_is_null(json_object_get(v, "c")));
	json_decref(v);
	t = "[7, 7.0, -9223372036854775808]";
	ck_assert_int_eq(gojson_decode(t, strlen(t), NULL, GOJSON_KEEP_INTS, &v, &e), 0);
	ck_assert(json_is_integer(json_array_get(v, 0)));
	ck_assert(json_is_real(json_array_get(v, 1)));
	ck_assert(json_integer_value(json_array_get(v, 2)) == INT64_MIN);
	json_decref(v);
	/* indentation of 8, 9, 16 and 17 spaces, tabs and CRs among them */
	t = "{\n        \"a\":\n         [1,\n                2,\n                 \t3\r\n        \t ]\n}";
	ck_assert_int_eq(gojson_decode(t, strlen(t), NULL, 0, &v, &e), 0);
	ck_assert_uint_eq(json_array_size(json_object_get(v, "a")), 3);
	ck_assert(json_real_value(json_array_get(json_object_get(v, "a"), 2)) == 3);
	json_decref(v);
	/* invalid UTF-8 inside strings becomes U+FFFD as in Go */
	ck_assert_int_eq(gojson_decode("\"a\xff\"", 4, NULL, 0, &v, &e), 0);
	ck_assert_str_eq(json_string_value(v), "a\xef\xbf\xbd");
	json_decref(v);
}
END_TEST

/* A tree bigger than its first blocks of memory: arrays grown past every
 * doubling (in place and moved), strings longer than a block, escaped and
 * plain, nested arrays between the growth steps of their parent's; every
 * value read back from the tree. */
START_TEST(test_tree_big)
{
	enum { N = 3000, LONG = 40000 };
	bh_buf t = BH_BUF_INIT;
	bh_error e = {0};
	gojson_node *root = NULL;
	bh_buf_puts(&t, "{\"long\":\"");
	for (size_t i = 0; i < LONG; i++)
		bh_buf_putc(&t, (char)('a' + i % 26));
	bh_buf_puts(&t, "\\n\",\"list\":[");
	for (int i = 0; i < N; i++)
		bh_buf_printf(&t, "%s{\"k\":\"value number %d of the list\",\"n\":%d,\"a\":[%d,[%d]]}",
			      i ? "," : "", i, i, i, i);
	bh_buf_puts(&t, "]}");
	ck_assert(bh_buf_ok(&t));
	ck_assert_int_eq(gojson_tree_load(t.data, t.len, NULL, &root, &e), 0);
	ck_assert_int_eq(root->type, GOJSON_OBJECT);
	ck_assert_uint_eq(root->n, 2);
	const gojson_node *l = &root->items[1];
	ck_assert_uint_eq(l->len, LONG + 1);
	ck_assert_int_eq(l->text[LONG - 1], 'a' + (LONG - 1) % 26);
	ck_assert_int_eq(l->text[LONG], '\n');
	ck_assert_int_eq(l->text[LONG + 1], 0);
	const gojson_node *list = &root->items[3];
	ck_assert_int_eq(list->type, GOJSON_ARRAY);
	ck_assert_uint_eq(list->n, N);
	for (int i = 0; i < N; i++) {
		const gojson_node *o = &list->items[i];
		char want[64];
		snprintf(want, sizeof want, "value number %d of the list", i);
		ck_assert_uint_eq(o->n, 3);
		ck_assert_str_eq(o->items[1].text, want);
		snprintf(want, sizeof want, "%d", i);
		ck_assert_str_eq(o->items[3].text, want);
		ck_assert_uint_eq(o->items[5].n, 2);
		ck_assert_str_eq(o->items[5].items[0].text, want);
		ck_assert_str_eq(o->items[5].items[1].items[0].text, want);
	}
	gojson_tree_free(root);
	bh_buf_free(&t);
}
END_TEST

/* gojson_tree_info_of: values, depth and numbers a float64 may not hold,
 * counted by the reader */
START_TEST(test_tree_info)
{
	static const struct {
		const char *text;
		size_t values, long_numbers;
		int max_depth;
	} cases[] = {
		{"7", 1, 0, 1},
		{"{}", 1, 0, 1},
		{"[1, {\"a\": [2e3, \"x\"], \"b\": null}, -1E+400]", 8, 2, 4},
		{"{\"k\": {\"k\": {\"k\": 0.5}}}", 4, 0, 4},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		gojson_node *root = NULL;
		bh_error e = {0};
		ck_assert_int_eq(gojson_tree_load(cases[i].text, strlen(cases[i].text), NULL, &root, &e), 0);
		const gojson_tree_info *ti = gojson_tree_info_of(root);
		ck_assert_uint_eq(ti->values, cases[i].values);
		ck_assert_uint_eq(ti->long_numbers, cases[i].long_numbers);
		ck_assert_int_eq(ti->max_depth, cases[i].max_depth);
		gojson_tree_free(root);
	}
	/* 300 digits and more without an exponent count; 299 do not */
	for (int digits = 299; digits <= 301; digits++) {
		bh_buf t = BH_BUF_INIT;
		gojson_node *root = NULL;
		bh_error e = {0};
		bh_buf_putc(&t, '[');
		for (int k = 0; k < digits; k++)
			bh_buf_putc(&t, '9');
		bh_buf_puts(&t, ", 1.5]");
		ck_assert_int_eq(gojson_tree_load(t.data, t.len, NULL, &root, &e), 0);
		ck_assert_uint_eq(gojson_tree_info_of(root)->long_numbers, digits >= 300);
		gojson_tree_free(root);
		bh_buf_free(&t);
	}
}
END_TEST

START_TEST(test_decode_limits)
{
	bh_buf b = BH_BUF_INIT;
	json_t *v = NULL;
	bh_error e = {0};
	gojson_limits lim = {0, 50};
	for (int i = 0; i < 51; i++)
		bh_buf_putc(&b, '[');
	for (int i = 0; i < 51; i++)
		bh_buf_putc(&b, ']');
	ck_assert_int_eq(gojson_decode(b.data, b.len, &lim, 0, &v, &e), BH_ELIMIT);
	lim.max_depth = 60;
	ck_assert_int_eq(gojson_decode(b.data, b.len, &lim, 0, &v, &e), 0);
	json_decref(v);
	lim.max_bytes = 10;
	ck_assert_int_eq(gojson_decode(b.data, b.len, &lim, 0, &v, &e), BH_ELIMIT);
	bh_buf_free(&b);
}
END_TEST

/* ---- toJson / toRawJson / toPrettyJson vectors on .Values ---------------- */

static void funcs_vector(const gojson_node *t, void *arg)
{
	vec_tally *ty = arg;
	const char *tpl = vec_str(t, "template"), *expect = vec_str(t, "expect"), *id = vec_str(t, "id");
	const gojson_node *vals = vec_get(t, "values");
	static const struct { const char *prefix; int flags; } fns[] = {
		{"{{ toJson .Values", 0}, {"{{ mustToJson .Values", 0},
		{"{{ toRawJson .Values", GOJSON_NO_HTML_ESCAPE}, {"{{ mustToRawJson .Values", GOJSON_NO_HTML_ESCAPE},
		{"{{ toPrettyJson .Values", GOJSON_INDENT}, {"{{ mustToPrettyJson .Values", GOJSON_INDENT},
	};
	char field[128];
	json_t *values = NULL, *subject;
	bh_buf vt = BH_BUF_INIT, out = BH_BUF_INIT;
	bh_error e = {0};
	size_t f;
	if (!tpl || !expect)
		return;
	for (f = 0; f < sizeof fns / sizeof fns[0]; f++) {
		size_t pl = strlen(fns[f].prefix);
		if (strncmp(tpl, fns[f].prefix, pl) == 0) {
			const char *rest = tpl + pl;
			if (strcmp(rest, " }}") == 0) {
				field[0] = '\0';
				break;
			}
			if (rest[0] == '.' && sscanf(rest, ".%127[A-Za-z0-9_] }}", field) == 1) {
				char again[160];
				snprintf(again, sizeof again, "%s.%s }}", fns[f].prefix, field);
				if (strcmp(again, tpl) == 0)
					break;
			}
		}
	}
	if (f == sizeof fns / sizeof fns[0])
		return;
	if (vals)
		vec_text(vals, &vt);
	ty->run++;
	if (yaml_parse_values(vt.data ? vt.data : "", vt.len, NULL, &values, &e)) {
		ty->failed++;
		fprintf(stderr, "FAIL %s: values: %s\n", id, e.msg);
		goto out;
	}
	subject = field[0] ? json_object_get(values, field) : values;
	if (!subject) {
		bh_buf_puts(&out, "null");
	} else if (gojson_encode(subject, fns[f].flags, &out, &e)) {
		ty->failed++;
		fprintf(stderr, "FAIL %s: %s\n", id, e.msg);
		goto out;
	}
	if (strcmp(bh_buf_str(&out), expect) != 0) {
		ty->failed++;
		fprintf(stderr, "FAIL %s: got [%s] want [%s]\n", id, bh_buf_str(&out), expect);
	}
out:
	json_decref(values);
	bh_buf_free(&vt);
	bh_buf_free(&out);
}

START_TEST(test_funcs_vectors)
{
	vec_tally ty = {0, 0};
	if (!vec_replay("functions/funcs.jsonl", funcs_vector, &ty, "funcs.jsonl toJson family on values"))
		return;
	ck_assert_int_gt(ty.run, 5);
	ck_assert_int_eq(ty.failed, 0);
}
END_TEST

/* fromJson / fromJsonArray messages and shapes (funcs.jsonl) */
START_TEST(test_decode_as)
{
	static const struct { const char *text; int want; const char *out; } cases[] = {
		{"{\"a\":1,\"b\":[1,2]}", GOJSON_WANT_MAP, "{\"a\":1,\"b\":[1,2]}"},
		{"[1,2]", GOJSON_WANT_MAP, "json: cannot unmarshal array into Go value of type map[string]interface {}"},
		{"not json", GOJSON_WANT_MAP, "invalid character 'o' in literal null (expecting 'u')"},
		{"", GOJSON_WANT_MAP, "unexpected end of JSON input"},
		{"null", GOJSON_WANT_MAP, "null"},
		{"\"str\"", GOJSON_WANT_MAP, "json: cannot unmarshal string into Go value of type map[string]interface {}"},
		{"{\"a\":1,\"a\":2}", GOJSON_WANT_MAP, "{\"a\":2}"},
		{"{\"a\":1}", GOJSON_WANT_LIST, "json: cannot unmarshal object into Go value of type []interface {}"},
		{"null", GOJSON_WANT_LIST, "null"},
		{"[1,\"a\",true,null]", GOJSON_WANT_LIST, "[1,\"a\",true,null]"},
		{"{\"a\":12345678901234567890}", GOJSON_WANT_MAP, "{\"a\":12345678901234567000}"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		json_t *v = NULL;
		bh_error e = {0};
		bh_buf b = BH_BUF_INIT;
		if (gojson_decode_as(cases[i].text, strlen(cases[i].text), NULL, cases[i].want, &v, &e) == 0)
			gojson_encode(v, 0, &b, &e);
		else
			bh_buf_puts(&b, e.msg);
		ck_assert_msg(strcmp(bh_buf_str(&b), cases[i].out) == 0, "%s: got [%s]", cases[i].text, bh_buf_str(&b));
		json_decref(v);
		bh_buf_free(&b);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gojson");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_encode_scalars);
	tcase_add_test(tc, test_encode_collections);
	tcase_add_test(tc, test_format_float);
	tcase_add_test(tc, test_quote_positions);
	tcase_add_test(tc, test_decode_errors);
	tcase_add_test(tc, test_decode_values);
	tcase_add_test(tc, test_decode_limits);
	tcase_add_test(tc, test_tree_big);
	tcase_add_test(tc, test_tree_info);
	tcase_add_test(tc, test_funcs_vectors);
	tcase_add_test(tc, test_decode_as);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
