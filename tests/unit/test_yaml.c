/* tests/unit/test_yaml.c — lib/yaml: values typing, error shapes, limits,
 * and the toYaml printer, checked against Helm's own outputs (the
 * conformance vectors, produced by helm v4.1.4). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gojson.h"
#include "lib/yaml.h"
#include "lib/yaml_internal.h"
#include "lib/yaml_resolve.h"
#include "tests/unit/vectors.h"
#include "tests/unit/unit_util.h"

static json_t *parse_ok(const char *text)
{
	json_t *v = NULL;
	bh_error e = {0};
	int rc = yaml_parse_values(text, strlen(text), NULL, &v, &e);
	ck_assert_msg(rc == 0, "parse failed: %s", e.msg);
	return v;
}

static char *emit_json(const char *json)
{
	bh_buf b = BH_BUF_INIT;
	bh_error e = {0};
	int rc = yaml_emit_json_text(json, strlen(json), &b, &e);
	ck_assert_msg(rc == 0, "emit failed: %s", e.msg);
	return bh_buf_detach(&b);
}

/* indentation past the fast printer's 32-space run (lib/yaml_emit.c
 * fast_write_indent): 24 nested maps, the last key at 46 spaces */
START_TEST(test_emit_deep_indent)
{
	enum { DEPTH = 24 };
	bh_buf json = BH_BUF_INIT, want = BH_BUF_INIT;
	for (int i = 0; i < DEPTH; i++)
		bh_buf_puts(&json, "{\"k\":");
	bh_buf_puts(&json, "\"v\"");
	for (int i = 0; i < DEPTH; i++)
		bh_buf_putc(&json, '}');
	for (int i = 0; i < DEPTH; i++) {
		for (int k = 0; k < 2 * i; k++)
			bh_buf_putc(&want, ' ');
		bh_buf_puts(&want, i + 1 < DEPTH ? "k:\n" : "k: v\n");
	}
	char *got = emit_json(bh_buf_str(&json));
	ck_assert_str_eq(got, bh_buf_str(&want));
	free(got);
	bh_buf_free(&json);
	bh_buf_free(&want);
}
END_TEST

/* goyaml.v2's words that are not strings, each resolved to its kind, and
 * words near them (other case mixes, prefixes, extensions) left strings */
START_TEST(test_resolve_words)
{
	static const struct { const char *s; enum yres_kind k; int b; } words[] = {
		{"y", YR_BOOL, 1}, {"Y", YR_BOOL, 1}, {"yes", YR_BOOL, 1}, {"Yes", YR_BOOL, 1},
		{"YES", YR_BOOL, 1}, {"true", YR_BOOL, 1}, {"True", YR_BOOL, 1}, {"TRUE", YR_BOOL, 1},
		{"on", YR_BOOL, 1}, {"On", YR_BOOL, 1}, {"ON", YR_BOOL, 1}, {"n", YR_BOOL, 0},
		{"N", YR_BOOL, 0}, {"no", YR_BOOL, 0}, {"No", YR_BOOL, 0}, {"NO", YR_BOOL, 0},
		{"false", YR_BOOL, 0}, {"False", YR_BOOL, 0}, {"FALSE", YR_BOOL, 0}, {"off", YR_BOOL, 0},
		{"Off", YR_BOOL, 0}, {"OFF", YR_BOOL, 0}, {"", YR_NULL, 0}, {"~", YR_NULL, 0},
		{"null", YR_NULL, 0}, {"Null", YR_NULL, 0}, {"NULL", YR_NULL, 0}, {".nan", YR_FLOAT, 0},
		{".NaN", YR_FLOAT, 0}, {".NAN", YR_FLOAT, 0}, {".inf", YR_FLOAT, 0}, {".Inf", YR_FLOAT, 0},
		{".INF", YR_FLOAT, 0}, {"+.inf", YR_FLOAT, 0}, {"+.Inf", YR_FLOAT, 0},
		{"+.INF", YR_FLOAT, 0}, {"-.inf", YR_FLOAT, 0}, {"-.Inf", YR_FLOAT, 0},
		{"-.INF", YR_FLOAT, 0},
	};
	static const char *const strings[] = {
		"yES", "yEs", "ye", "yess", "tRUE", "tru", "truee", "oN", "of", "oFF", "nO", "nULL", "nul",
		"fALSE", "fals", "~~", "nan", ".nAn", ".in", "+inf", "-.iNF", "<", "<<" /* a merge key only as a key */, "<<<", "a", "Z", "t", "f",
		"o", "O", "T", "F", "yaml", "_", "@",
	};
	yres r;
	for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
		ck_assert_int_eq(yaml_resolve("", words[i].s, strlen(words[i].s), &r), 0);
		ck_assert_msg(r.kind == words[i].k, "%s: kind %d", words[i].s, (int)r.kind);
		if (r.kind == YR_BOOL)
			ck_assert_int_eq(r.b, words[i].b);
	}
	for (size_t i = 0; i < sizeof strings / sizeof *strings; i++) {
		ck_assert_int_eq(yaml_resolve("", strings[i], strlen(strings[i]), &r), 0);
		ck_assert_msg(r.kind == YR_STR, "%s: kind %d", strings[i], (int)r.kind);
	}
	ck_assert_int_eq(yaml_resolve("", "-.inf", 5, &r), 0);
	ck_assert(isinf(r.f) && r.f < 0);
	ck_assert_int_eq(yaml_resolve("", "+.Inf", 5, &r), 0);
	ck_assert(isinf(r.f) && r.f > 0);
	ck_assert_int_eq(yaml_resolve("", ".NaN", 4, &r), 0);
	ck_assert(isnan(r.f));
}
END_TEST

START_TEST(test_numbers_are_floats)
{
	json_t *v = parse_ok("a: 2\nb: 0x1F\nc: 1_000\nd: 017\ne: 08\nf: 0b101\ng: 1e3\nh: '2'\n");
	ck_assert(json_is_real(json_object_get(v, "a")));
	ck_assert(json_real_value(json_object_get(v, "b")) == 31);
	ck_assert(json_real_value(json_object_get(v, "c")) == 1000);
	ck_assert(json_real_value(json_object_get(v, "d")) == 15);
	ck_assert(json_real_value(json_object_get(v, "e")) == 8);
	ck_assert(json_real_value(json_object_get(v, "f")) == 5);
	ck_assert(json_real_value(json_object_get(v, "g")) == 1000);
	ck_assert_str_eq(json_string_value(json_object_get(v, "h")), "2");
	json_decref(v);
}
END_TEST

START_TEST(test_bool_keys_and_values)
{
	json_t *v = parse_ok("y: 1\nn: 2\nyes: on\nk: Off\n2020-01-01: 12:30\n");
	ck_assert(json_object_get(v, "y") == NULL);
	ck_assert(json_real_value(json_object_get(v, "false")) == 2);
	ck_assert(json_is_true(json_object_get(v, "true")));
	ck_assert(json_is_false(json_object_get(v, "k")));
	ck_assert_str_eq(json_string_value(json_object_get(v, "2020-01-01")), "12:30");
	json_decref(v);
}
END_TEST

START_TEST(test_multi_document_values)
{
	/* Helm merges every document of a values file (later ones win, maps deep-merge) */
	json_t *v = parse_ok("---\na: {x: 1, z: 2}\n---\na: {z: 3}\nb: 1\n--- # c\n");
	ck_assert(json_real_value(json_object_get(json_object_get(v, "a"), "x")) == 1);
	ck_assert(json_real_value(json_object_get(json_object_get(v, "a"), "z")) == 3);
	json_decref(v);
	v = parse_ok("");
	ck_assert(json_is_object(v) && json_object_size(v) == 0);
	json_decref(v);
	v = parse_ok("# only a comment\n~\n");
	ck_assert(json_is_object(v) && json_object_size(v) == 0);
	json_decref(v);
	/* dashes inside lines, in comments and "--" at a line start separate
	 * nothing; the last line's "---" (no newline) does */
	v = parse_ok("a: b---c\n# ---\nd: -1\n--x: 1\n---\ne: x-y\n---");
	ck_assert_str_eq(json_string_value(json_object_get(v, "a")), "b---c");
	ck_assert(json_real_value(json_object_get(v, "d")) == -1);
	ck_assert(json_real_value(json_object_get(v, "--x")) == 1);
	ck_assert_str_eq(json_string_value(json_object_get(v, "e")), "x-y");
	json_decref(v);
}
END_TEST

static void expect_err(const char *text, int code, const char *msg)
{
	json_t *v = NULL;
	bh_error e = {0};
	int rc = yaml_parse_values(text, strlen(text), NULL, &v, &e);
	ck_assert_int_eq(rc, code);
	ck_assert_ptr_null(v);
	ck_assert_str_eq(e.msg, msg);
}

/* Messages captured from helm v4.1.4 (after its "cannot load values.yaml: "). */
START_TEST(test_error_shapes)
{
	expect_err("abc\n", BH_EINVAL, "cannot unmarshal yaml document: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type map[string]interface {}");
	expect_err("a: [\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 1: did not find expected node content");
	expect_err("a: b: c\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: mapping values are not allowed in this context");
	expect_err("a:\n  - b\n c: d\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 2: did not find expected key");
	expect_err("a: \"x\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 2: found unexpected end of stream");
	expect_err("a: 1\n~: 2\n", BH_EINVAL, "cannot unmarshal yaml document: error converting YAML to JSON: unsupported map key of type: %!s(<nil>), key: <nil>, value: 2");
	/* an empty flow collection where a key or entry must come (goyaml.v2 loses its simple key) */
	expect_err("a:\n- b: 1\n\n[]\n  c: 1\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 3: did not find expected key");
	expect_err("a:\n  - b: 1\n  []\n    c: 1\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 2: did not find expected '-' indicator");
	/* an empty flow collection closed by the other bracket, or one where a
	 * key must come, with a scanner error after it: goyaml.v2's parser
	 * fails first (helm v4.1.4, values.yaml) */
	expect_err("a: {]- b", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: did not find expected node content");
	expect_err("a: 1\nb: {]- b", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 1: did not find expected node content");
	expect_err("k: v\n{]- b", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 1: did not find expected key");
	expect_err("k: v\n[ ]- b", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 1: did not find expected key");
	expect_err("k: v\n{\n]- b", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 1: did not find expected key");
	expect_err("a:\n  b: 1\n  {}\n  c: 2\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 2: did not find expected key");
	expect_err("x: 1\na:\n  b: 1\n  [\n  ]\n  c: 2\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 3: did not find expected key");
	expect_err("v0: 1\n\n[]: 1\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 2: did not find expected key");
	expect_err("a:\n- x\n[]: 1\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 2: did not find expected key");
	expect_err("k0:\n\n  []: 1\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 2: did not find expected key");
	expect_err("k2:\n[] x\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 1: did not find expected key");
	expect_err("k0:\n[\n]", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 4: could not find expected ':'");
	expect_err("k0:\n[ # c\n]\n[x]\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 4: could not find expected ':'");
	expect_err("a:\n[]\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 3: could not find expected ':'");
	expect_err("k0:\n[]: 1\n", BH_EINVAL, "cannot unmarshal yaml document: error converting YAML to JSON: unsupported map key of type: %!s(<nil>), key: <nil>, value: 1");
	expect_err("k0:\n{}: {a: 1}\n", BH_EINVAL, "cannot unmarshal yaml document: error converting YAML to JSON: unsupported map key of type: %!s(<nil>), key: <nil>, value: map[interface {}]interface {}{\"a\":1}");
	expect_err("[]: 1\nk1:\n", BH_EINVAL, "cannot unmarshal yaml document: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}");
	expect_err("a: !!int abc\n", BH_EINVAL, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: cannot decode !!str `abc` as a !!int");
	expect_err("a: &x [*x]\n", BH_EINVAL, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: anchor 'x' value contains itself");
	expect_err("a: *y\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: unknown anchor 'y' referenced");
	expect_err("x: 1\n---\ny: [\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 1: did not find expected node content");
	expect_err("a: !!binary 'zz'\n", BH_EINVAL, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: !!binary value contains invalid base64 data");
	expect_err("? [a]\n: 1\n", BH_EINVAL, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: invalid map key: []interface {}{\"a\"}");
	expect_err("<<: [1]\n", BH_EINVAL, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: map merge requires map or sequence of maps as the value");
	expect_err("v: .inf\n", BH_EINVAL, "cannot unmarshal yaml document: error converting YAML to JSON: json: unsupported value: +Inf");
	/* a later null key of the same map replaces the value Go's map holds */
	expect_err("~: 1\nnull: 2\n", BH_EINVAL, "cannot unmarshal yaml document: error converting YAML to JSON: unsupported map key of type: %!s(<nil>), key: <nil>, value: 2");
	expect_err("a: 1\n~: x\nb: 2\n~: [1]\n", BH_EINVAL, "cannot unmarshal yaml document: error converting YAML to JSON: unsupported map key of type: %!s(<nil>), key: <nil>, value: []interface {}{1}");
	/* %#v quotes strings as strconv.Quote does */
	expect_err("[\"\\u2028\", \"<&>\", \"\\x7f\", \"\\t\", \"\\xe9\\U0001F600\", \"\\u00ad\"]: 1\n", BH_EINVAL,
		   "cannot unmarshal yaml document: error converting YAML to JSON: yaml: invalid map key: []interface {}{\"\\u2028\", \"<&>\", \"\\x7f\", \"\\t\", \"\xc3\xa9\xf0\x9f\x98\x80\", \"\\u00ad\"}");
	expect_err("? {a: \"\\u00a0\"}\n: 1\n", BH_EINVAL, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: invalid map key: map[interface {}]interface {}{\"a\":\"\\u00a0\"}");
	/* json.Marshal meets map keys in sorted order */
	expect_err("b: .nan\na: -.inf\n", BH_EINVAL, "cannot unmarshal yaml document: error converting YAML to JSON: json: unsupported value: -Inf");
	/* "off" and "n" are both the key false: the later value replaces -Inf */
	json_decref(parse_ok("off: -.Inf\nn: 1\n"));
}
END_TEST

static void expect_values(const char *text, const char *json)
{
	json_t *v = parse_ok(text);
	char *got = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	ck_assert_str_eq(got, json);
	free(got);
	json_decref(v);
}

/* helm 4.1.4 reads a values file line by line (apimachinery's LineReader):
 * every line ends in "\n", CRLF included, the last one too. Expected values
 * and messages from `helm template` on these values.yaml files. */
START_TEST(test_values_lines)
{
	expect_values("a: |\n  x", "{\"a\":\"x\\n\"}");
	expect_values("a: |\r\n  x\r\n  y", "{\"a\":\"x\\ny\\n\"}");
	expect_values("a: 1\r\nb: 2\r\n", "{\"a\":1.0,\"b\":2.0}"); /* float64s */
	expect_err("a: \"", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 2: found unexpected end of stream");
	expect_err("a: '", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 2: found unexpected end of stream");
	expect_err("a: \"\\", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 2: found unexpected end of stream");
	/* a "---" line that ends no document is the first line of the next:
	 * goyaml's line numbers count it */
	expect_err("---\na: \"\\/\"\n---\nb: 1\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 2: found unknown escape character");
	expect_err("--- # c\n\na: [\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 3: did not find expected node content");
	expect_err("---\n---\na: [\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 1: did not find expected node content");
	/* the text after "---" is trimmed as strings.TrimSpace does: Unicode
	 * spaces too */
	expect_values("a: 1\n---\xc2\xa0\nb: 2\n", "{\"a\":1.0,\"b\":2.0}");
	expect_err("---\xe2\x80\xa8 {\n,a: 1\n", BH_EPARSE, "error reading yaml document: invalid Yaml document separator: {");
	expect_err("a: 1\n--- x\xe3\x80\x80\r\nb: 2\n", BH_EPARSE, "error reading yaml document: invalid Yaml document separator: x");
	/* a BOM that starts a line (not the file) starts a plain scalar */
	expect_values("a: 1\n\xef\xbb\xbf" "b: 2\n", "{\"a\":1.0,\"\xef\xbb\xbf" "b\":2.0}");
	expect_values("a: 1\n\xef\xbb\xbf" "1: 2\n", "{\"a\":1.0,\"\xef\xbb\xbf" "1\":2.0}");
	expect_values("a: 1\n\xef\xbb\xbf" "b\"\\: 2\n", "{\"a\":1.0,\"\xef\xbb\xbf" "b\\\"\\\\\":2.0}");
	expect_values("a: \"x\n\xef\xbb\xbf" "b: 2\"\n", "{\"a\":\"x \xef\xbb\xbf" "b: 2\"}");
	expect_values("a: |\n  x\n\xef\xbb\xbf" "b: 2\n", "{\"a\":\"x\\n\",\"\xef\xbb\xbf" "b\":2.0}");
	expect_err("a: 1\n\xef\xbb\xbf" "b\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 3: could not find expected ':'");
	/* after any of goyaml's line breaks, and whatever follows it (an
	 * indicator, spaces, a comment, nothing): the BOM starts a plain scalar
	 * (helm v4.1.4, values.yaml and fromYaml) */
	expect_values("a: 1\r\xef\xbb\xbf" "b: 2", "{\"a\":1.0,\"\xef\xbb\xbf" "b\":2.0}");
	expect_values("a: 1\xe2\x80\xa8\xef\xbb\xbf" "b: 2", "{\"a\":1.0,\"\xef\xbb\xbf" "b\":2.0}");
	expect_values("a: 1\xe2\x80\xa9\xef\xbb\xbf" "b: 2", "{\"a\":1.0,\"\xef\xbb\xbf" "b\":2.0}");
	expect_values("a: 1\r\xef\xbb\xbf{b: 1}", "{\"a\":1.0,\"\xef\xbb\xbf{b\":\"1}\"}");
	expect_values("a: 1\xe2\x80\xa8\xef\xbb\xbf[1]: 2", "{\"a\":1.0,\"\xef\xbb\xbf[1]\":2.0}");
	expect_values("a: 1\xc2\x85\xef\xbb\xbf&x b: 2", "{\"a\":1.0,\"\xef\xbb\xbf&x b\":2.0}");
	expect_values("a: 1\n\xef\xbb\xbf  b: 2", "{\"a\":1.0,\"\xef\xbb\xbf  b\":2.0}");
	expect_values("a: 1\n\xef\xbb\xbf!!str \"q\": 2", "{\"a\":1.0,\"\xef\xbb\xbf!!str \\\"q\\\"\":2.0}");
	expect_err("a: 1\n\xef\xbb\xbf# c", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 3: could not find expected ':'");
	expect_err("a: 1\n\xef\xbb\xbf- x", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 3: could not find expected ':'");
	expect_err("a: 1\n\xef\xbb\xbf", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 3: could not find expected ':'");
	/* a private-use character of the text stays as it is */
	expect_values("a: \xee\x80\x80\n\xef\xbb\xbf" "b: 2", "{\"a\":\"\xee\x80\x80\",\"\xef\xbb\xbf" "b\":2.0}");
	/* a UTF-16 file is cut at its 0x0A bytes: the NUL after the last one
	 * is a line of its own */
	static const char u16[] = "\xff\xfe" "a\0:\0 \0" "1\0\n\0";
	json_t *v = NULL;
	bh_error e = {0};
	ck_assert_int_eq(yaml_parse_values(u16, sizeof u16 - 1, NULL, &v, &e), BH_EPARSE);
	ck_assert_str_eq(e.msg, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: incomplete UTF-16 character");
}
END_TEST

/* goyaml.v2's double-quoted escapes and %YAML versions where libyaml
 * 0.2.5 differs. Values and messages from helm 4.1.4's `helm template` on
 * these values.yaml files. */
START_TEST(test_goyaml_escapes)
{
	expect_values("a: [\"\\'\", \"a\\'b\"]\nb: \"\\'\"\n", "{\"a\":[\"'\",\"a'b\"],\"b\":\"'\"}");
	expect_values("\"k\\'\": 1\n", "{\"k'\":1.0}");
	expect_err("a: \"x\\/y\"\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: found unknown escape character");
	expect_err("a:\n  b: \"x\n   \\/y\"\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 3: found unknown escape character");
	expect_err("a: \"\\'x\\/\"\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: found unknown escape character");
	expect_err("x: \"\\' \\q\"\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: found unknown escape character");
	expect_err("\xc3\xa9: \"\\/\"\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: found unknown escape character");
	/* goyaml stops at the "\\/" before libyaml's end of stream */
	expect_err("\"\\/': 1\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: found unknown escape character");
	expect_err("k: \"a\\/ \\'\"\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: found unknown escape character");
	/* a '?' ends a plain scalar in a flow collection */
	expect_err("k: [a?b]\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: did not find expected ',' or ']'");
	expect_err("k: {a?b: c}\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: did not find expected ',' or '}'");
	expect_err("k: [\n  a,\n  b?c]\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 2: did not find expected ',' or ']'");
	expect_err("k: [a: b?c]\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: did not find expected ',' or ']'");
	expect_err("k: [{a: b?c}]\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: did not find expected ',' or '}'");
	expect_err("k: [a: {b: c?}]\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: did not find expected ',' or '}'");
	/* ',', '[' and ']' belong to a tag */
	expect_values("k: !a[b] x\n", "{\"k\":\"x\"}");
	expect_values("!!b,nary aG=: 1\n", "{\"aG=\":1.0}");
	expect_values("k: {!]: b}\n", "{\"k\":{\"b\":null}}");
	expect_values("k: [!!str, a]\n", "{\"k\":[\"a\"]}");
	expect_values("k: [!a, b]\n", "{\"k\":[\"b\"]}");
	expect_values("k: !!binary[ aGk=\n", "{\"k\":\"aGk=\"}");
	expect_values("a: !!,\n  loa\\/t .!inf\n", "{\"a\":\"loa\\\\/t .!inf\"}");
	expect_err("a\t: [!!]}fl@at .inf\\\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: did not find expected whitespace or line break");
	expect_err("k: [!a,b]\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'");
	/* a ':' that a flow indicator follows stays in a plain scalar */
	expect_values("k: [a:, b]\n", "{\"k\":[\"a:\",\"b\"]}");
	expect_values("k: {a:}\n", "{\"k\":{\"a:\":null}}");
	expect_values("k: [http://a:]\n", "{\"k\":[\"http://a:\"]}");
	expect_values("k: [it's:, b]\n", "{\"k\":[\"it's:\",\"b\"]}");
	expect_values("k: [a::]\n", "{\"k\":[\"a::\"]}");
	expect_values("k: [&x a:, *x]\n", "{\"k\":[\"a:\",\"a:\"]}");
	expect_err("k: [a:[b]]\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: did not find expected ',' or ']'");
	expect_err("{k%:{a: -}\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: did not find expected ',' or '}'");
	expect_err("k: [!!int a:]\n", BH_EINVAL, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: cannot decode !!str `a:` as a !!int");
	/* each "\\'" scalar is a read again up to it: forty near the top of
	 * a 2 MB document cost little and are all read (helm: all read) */
	{
		bh_buf big = BH_BUF_INIT;
		json_t *v = NULL;
		bh_error e = {0};
		for (int i = 0; i < 40; i++)
			bh_buf_printf(&big, "k%d: [\"a\\'b\"]\n", i);
		for (int i = 0; i < 100000; i++)
			bh_buf_printf(&big, "p%d: [x, y]\n", i);
		ck_assert_int_eq(yaml_parse_values(big.data, big.len, NULL, &v, &e), 0);
		ck_assert_str_eq(json_string_value(json_array_get(json_object_get(v, "k39"), 0)), "a'b");
		ck_assert_int_eq(json_object_size(v), 100040);
		json_decref(v);
		bh_buf_free(&big);
	}
	expect_err("%YAML 1.2\n---\na: 1\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: found incompatible YAML document");
	expect_err("# c\n%YAML 1.2\n---\na: 1\n", BH_EPARSE, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 1: found incompatible YAML document");
}
END_TEST

/* The billion-laughs shape: a0 has 10 scalars, each further level 10
 * aliases of the one before. */
static void laughs(bh_buf *b, int levels)
{
	bh_buf_puts(b, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
	for (int i = 1; i < levels; i++)
		bh_buf_printf(b, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n",
			      i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
}

/* An alias inside its own anchor's value, used as a map key: goyaml.v2
 * decodes the key first and meets the alias again (helm v4.1.4: "yaml:
 * anchor 'u' value contains itself", at once). Found by fuzz_kubeconfig;
 * it used to cost minutes of CPU printing the key. */
START_TEST(test_anchor_cycles_in_keys)
{
	static const char fuzz[] = "&u\n*u:\n*u: c0\n"
				   "8888888888888888888888888888888888888888888888888888888888888888888888er: u1}\n";
	static const char pre[] = "cannot unmarshal yaml document: error converting YAML to JSON: yaml: ";
	char want[512];
	snprintf(want, sizeof want, "%sanchor 'u' value contains itself", pre);
	expect_err(fuzz, BH_EINVAL, want);
	snprintf(want, sizeof want, "%sanchor 'k' value contains itself", pre);
	expect_err("? &k [*k]\n: 1\n", BH_EINVAL, want);
	snprintf(want, sizeof want, "%sanchor 'v' value contains itself", pre);
	expect_err("~: &v [*v, *v]\n", BH_EINVAL, want);
	expect_err("&v [*v]\n", BH_EINVAL, want);
	/* helm's %#v of a key: Go prints map keys sorted, each once */
	snprintf(want, sizeof want, "%sinvalid map key: map[interface {}]interface {}{\"a\":2, \"b\":1}", pre);
	expect_err("m: &m {b: 1, a: 2}\n*m : x\n", BH_EINVAL, want);
	snprintf(want, sizeof want, "%sinvalid map key: map[interface {}]interface {}{\"a\":2, \"b\":3}", pre);
	expect_err("{b: 1, a: 2, b: 3}: x\n", BH_EINVAL, want);
	snprintf(want, sizeof want, "%sinvalid map key: map[interface {}]interface {}{1:3, 2:1, 10:2}", pre);
	expect_err("{2: 1, 10: 2, 1: 3}: x\n", BH_EINVAL, want);
	snprintf(want, sizeof want, "%sinvalid map key: []interface {}{1, \"a\", 2.5, true, interface {}(nil)}", pre);
	expect_err("? [1, \"a\", 2.5, true, ~]\n: x\n", BH_EINVAL, want);
	snprintf(want, sizeof want, "%sdocument contains excessive aliasing", pre);
	{
		bh_buf b = BH_BUF_INIT;
		laughs(&b, 7);
		bh_buf_puts(&b, "? [*a3]\n: x\n");
		expect_err(bh_buf_str(&b), BH_ELIMIT, want);
		bh_buf_free(&b);
	}
}
END_TEST

/* The value quoted in an "invalid map key" message is capped (helm would
 * print all of it): the error text stays small whatever the key. */
START_TEST(test_error_value_budget)
{
	bh_buf b = BH_BUF_INIT;
	json_t *v = NULL;
	bh_error e = {0};
	bh_buf_puts(&b, "? [");
	for (int i = 0; i < 20000; i++)
		bh_buf_puts(&b, i ? ", abcdef" : "abcdef");
	bh_buf_puts(&b, "]\n: x\n");
	ck_assert_int_eq(yaml_parse_values(b.data, b.len, NULL, &v, &e), BH_EINVAL);
	ck_assert_ptr_null(v);
	ck_assert_msg(strstr(e.msg, "invalid map key: []interface {}{\"abcdef\", \"abcdef\""), "%s", e.msg);
	ck_assert_uint_le(strlen(e.msg), YAML_MAX_ERROR_VALUE + 200);
	ck_assert_str_eq(e.msg + strlen(e.msg) - 4, "...}");
	bh_buf_free(&b);
}
END_TEST

/* Duplicate mapping keys: Helm keeps the later value silently; helm lint's
 * strict parse of Chart.yaml words them "line 25: key \"version\" already
 * set in map" (helm v4.1.4, the line of the later value). */
START_TEST(test_duplicate_keys)
{
	json_t *d = NULL;
	bh_error e = {0};
	static const char text[] = "a: 1\nb:\n  c: 1\n  c:\n    2\na: 3\nm: &m {x: 1, x: 2}\nn: *m\n"
				   "o: {<<: *m, x: 3}\np: {<<: *m, z: 1, z: 2}\n---\na: 1\n'a': 2\n";
	ck_assert_int_eq(yaml_find_duplicates(text, strlen(text), NULL, 1, &d, &e), 0);
	char *got = json_dumps(d, JSON_COMPACT);
	/* per document; lines of the whole file; an alias does not repeat the
	 * anchor's report; a key over a merged one is no duplicate, one
	 * written twice beside a merge is */
	ck_assert_str_eq(got, "[\"line 5: key \\\"c\\\" already set in map\",\"line 6: key \\\"a\\\" already set in map\","
			      "\"line 7: key \\\"x\\\" already set in map\",\"line 10: key \\\"z\\\" already set in map\","
			      "\"line 13: key \\\"a\\\" already set in map\"]");
	free(got);
	json_decref(d);
	/* one document (Chart.yaml): the later documents are not read */
	ck_assert_int_eq(yaml_find_duplicates(text, strlen(text), NULL, 0, &d, &e), 0);
	ck_assert_int_eq(json_array_size(d), 4);
	json_decref(d);
	ck_assert_int_eq(yaml_find_duplicates("a: [\n", 5, NULL, 1, &d, &e), BH_EPARSE);
	ck_assert_ptr_null(d);
}
END_TEST

/* What a reader makes of text, as one string: the values (or the first
 * document) as JSON with the duplicate keys' texts, or the error. */
static char *read_as_text(const char *text, int values)
{
	json_t *v = NULL, *d = NULL;
	bh_error e = {0};
	bh_buf b = BH_BUF_INIT;
	int rc = values ? yaml_parse_values_dups(text, strlen(text), NULL, &v, &d, &e)
			: yaml_parse_any_dups(text, strlen(text), NULL, 0, &v, &d, &e);
	bh_buf_printf(&b, "%d ", rc);
	if (rc) {
		bh_buf_puts(&b, e.msg);
	} else {
		char *ds = json_dumps(d, JSON_COMPACT);
		ck_assert_int_eq(gojson_encode(v, 0, &b, &e), 0);
		bh_buf_printf(&b, " %s", ds);
		free(ds);
	}
	json_decref(v);
	json_decref(d);
	return bh_buf_detach(&b);
}

/* 1 when the direct reader takes text whole (no libyaml) */
static int fast_takes(const char *text)
{
	builder b = {0};
	bh_error e = {0};
	ynode *root;
	int rc;
	b.err = &e;
	b.max_depth = YAML_MAX_DEPTH;
	b.max_nodes = YAML_MAX_NODES;
	rc = yaml_fast_build(&b, text, strlen(text), &root);
	ybuilder_reset(&b);
	return rc == 0;
}

/* the direct reader and libyaml read text alike, as one document and as
 * a values file (document number i, for the message) */
static void assert_readers_agree(const char *text, size_t i)
{
	for (int values = 0; values < 2; values++) {
		char *fast, *slow;
		yaml_fast_off = 0;
		fast = read_as_text(text, values);
		yaml_fast_off = 1;
		slow = read_as_text(text, values);
		yaml_fast_off = 0;
		ck_assert_msg(!strcmp(fast, slow), "document %zu: direct reader %s, libyaml %s", i, fast, slow);
		free(fast);
		free(slow);
	}
}

START_TEST(test_fast_reader_matches_libyaml)
{
	/* taken by the direct reader: the shapes of values files */
	static const char *const taken[] = {
		"a: 1\nb:\n  c: x y # c\n  d: \"q\\n\\\"\\t\"\n  e: 'it''s'\n# only a comment\nf: ~\n",
		"list:\n- a\n- b: 1\n  c: [x, \"y\", 'z']\n-\n  - deep\n- {}\nnext: []\n",
		"  indented: root\n  k: v\n",
		"s: |\n  line 1\n\n   more\n  end\nf: >-\n  one\n  two\n\n  three\n   kept\nk: |+\n  x\n\n\nz: 1\n",
		"e:\n-\n- \nq: \"a\" # c\n",
		"\"k\": v\n'k 2' : w\ndup: 1\ndup: 2\nn:\n  dup: 3\n  dup: 4\n",
		"u: \xc3\xa9t\xc3\xa9 # caf\xc3\xa9\nbool: yes\nnum: 0x1F\nurl: http://a:80/b#c\n",
		/* plain scalars over lines (Chart.yaml descriptions) */
		"a: x\n  y\n", "d: a reverse proxy and\n  load balancer\nh: x\n",
		"a: one\n  two\n\n  three\n\n\n  four - [5] {6}  \n\nb: 1\n# c\n",
		"l:\n- x\n  y\n- k: v\n    w\n   u\nm:\n- p\n q\n", "- x\n  y\n  - z\n",
		/* a scalar or a flow collection on the line below its key */
		"e:\n  {}\nf:\n  [a, 'b']\ng:\n  plain\n  more\nh:\n  |\n    lit\ni:\n  \"q\"\n",
		/* the first document of several */
		"a: 1\nb: |\n  x\n\n---\nc: [\n", "- a\n---  \n", "{}\n", " [a, \"b\"] # c\n",
		/* flow collections of flow collections, on one line */
		"a: {b: c, 'd' : [1, {e: \"f\"}], g: {}}\nh: [x, [y], {z: 1} ]\n", "a: {x: y, x: z}\n",
		/* the last line without a newline */
		"a: |\n  x", "a: >\n  x\n\n  y", "a: |-\n  x\nb: 1", "s:\n  |\n    {\"j\": 1}",
		"- a\n- - b\n", /* given to libyaml: the entry's own '-' */
		"a: x\n  y # c\n", "a: x\n  y: z\n", "a: x\n# c\n  y\n", "a: x\n  y\tz\n", "a: x\n\t y\n",
		"x\n  y\n", "a:\n  x\n  y: 1\n", "---\na: 1\n", "a: 1\n--- b\n",
		"a: 1\n---x\n", "a: 1\n...\n", "{}\nb: 1\n", "[a]\n  b\n", "{a: 1}\n",
		"a: b: c\n", "a: \"x\n  y\"\n", "a:\n  - x\n  b: y\n", "a: |2\n   x\n",
		"a: &x 1\nb: *x\n", "a: !!str 1\n", "a:\tb\n", "a: 1\n\tb: 2\n", "a: [x,]\n", "a: [x,, y]\n", "a: [x: y]\n", "a: {x}\n",
		"a: {x: }\n", "a: {\"x\":y}\n", "a: {x:y}\n", "a: {[x]: y}\n", "a: [x\n  ]\n", "a: [x #c\n]\n",
		"a: |\n  x\n  ", "a: 1\r\nb: 2\n", "\xef\xbb\xbf" "a: 1\n", "a: \x01\n", "? a\n: b\n", "a: 1\n b: 2\n",
		"a: 1\n- b\n", "- a\nb: 1\n", "a: \xc2\x85x\n", "# \xff\na: 1\n", "a: |\n  x\n\ty\n", "x\n", "",
		"a: '\xe2\x80\xa8'\n", "a: \"\\x41\"\n", "a: \"\\u00e9\"\n", "k: v\n...\n", "%YAML 1.1\n---\na: 1\n",
	};
	for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
		assert_readers_agree(taken[i], i);
		/* the first twenty-three are what the direct reader exists for
		 * (and an empty text) */
		ck_assert_msg(fast_takes(taken[i]) == (i < 23 || !*taken[i]), "document %zu", i);
	}
}
END_TEST

/* lines long enough for the direct reader's sixteen-byte scans: a stop
 * (':', ' ', tab) or the line's end past them, and indentation of more
 * than sixteen spaces; quoted scalars; the first thirteen are taken */
START_TEST(test_fast_reader_long_lines)
{
	static const char *const docs[] = {
		/* quoted scalars with and without escapes */
		"a: ''\nb: \"\"\nc: 'x'''\nd: '''x'\ne: 'a \\ b'\n", "a: \"x\\\"\" # c\nb: 'y' # d\n",
		"\"k\\\\\": 'w'\nk2: \"v\\\"x\"\n", "a: ['x', \"y\", '', \"\"]\n", "a: {'k': \"v\", \"\": ''}\n",
		"a_key_longer_than_sixteen_bytes: a value that is longer than sixteen bytes\n",
		"k: http://example.com:8080/path/and/more/bytes # a comment after a long value\n",
		"key_with:colon_inside_it_and_more_bytes: v\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx: 1\n",
		"                    # a comment indented by twenty spaces\na:\n                    b: deep\n",
		"a:\n                                  b: 1\n                                  c: 2\n",
		"a: 1234567890123456 # c\nb: 12345678901234567890123\n",
		"abcdefghijklmnopq:\n- abcdefghijklmnopqrstuvwxyz0123456789\n- 0123456789abcdefghijklmn: x\n",
		"a: a colon then no blank:x\nb: 0123456789abcdef\n",
		"a: \"a tab\there\"\n", "a: 'a tab\there'\n", "'k''': \"v\"\n",
		"a: a value with more than sixteen bytes\tthen a tab\n",
		"a: ends with a colon at sixteen:\nb: 0123456789abcdef\n",
		"a: a value of more than sixteen bytes: then a colon\n",
		"long_key_name_over_sixteen\t: v\n",
		"a:\n                  \tb: 1\n",
		"abcdefghijklmnopqrstuvw #x: 1\n",
	};
	for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
		assert_readers_agree(docs[i], i);
		ck_assert_msg(fast_takes(docs[i]) == (i < 13), "document %zu", i);
	}
}
END_TEST

START_TEST(test_limits)
{
	/* the billion-laughs shape: each level doubles the expansion */
	bh_buf b = BH_BUF_INIT;
	json_t *v = NULL;
	bh_error e = {0};
	yaml_limits lim = {0, 0, 100000};
	laughs(&b, 12);
	ck_assert_int_eq(yaml_parse_values(b.data, b.len, &lim, &v, &e), BH_ELIMIT);
	ck_assert_ptr_null(v);
	/* with the default limits goyaml's alias ratio check stops it */
	ck_assert_int_eq(yaml_parse_values(b.data, b.len, NULL, &v, &e), BH_ELIMIT);
	ck_assert_str_eq(e.msg, "cannot unmarshal yaml document: error converting YAML to JSON: yaml: document contains excessive aliasing");
	bh_buf_reset(&b);
	for (int i = 0; i < 5000; i++)
		bh_buf_putc(&b, '[');
	ck_assert_int_eq(yaml_parse_any(b.data, b.len, NULL, 0, &v, &e), BH_ELIMIT);
	lim.max_bytes = 10;
	ck_assert_int_eq(yaml_parse_values("a: 123456789012\n", 16, &lim, &v, &e), BH_ELIMIT);
	bh_buf_free(&b);
}
END_TEST

START_TEST(test_parse_any)
{
	json_t *v = NULL;
	bh_error e = {0};
	ck_assert_int_eq(yaml_parse_any("- 1\n- b\n", 8, NULL, 0, &v, &e), 0);
	ck_assert(json_is_array(v) && json_is_real(json_array_get(v, 0)));
	json_decref(v);
	ck_assert_int_eq(yaml_parse_any("- 1\n", 4, NULL, YAML_KEEP_INTS, &v, &e), 0);
	ck_assert(json_is_integer(json_array_get(v, 0)));
	json_decref(v);
	ck_assert_int_eq(yaml_parse_any("", 0, NULL, 0, &v, &e), 0);
	ck_assert(json_is_null(v));
	json_decref(v);
}
END_TEST

START_TEST(test_emit_basics)
{
	static const struct { const char *json, *yaml; } cases[] = {
		{"{\"b\":[1,2],\"a\":{\"n\":\"v\"}}", "a:\n  \"n\": v\nb:\n- 1\n- 2\n"},
		{"{\"a10\":1,\"a9\":2,\"a1\":3,\"B\":4,\"_x\":5,\"1\":6}", "_x: 5\n\"1\": 6\nB: 4\na1: 3\na9: 2\na10: 1\n"},
		{"\"a\\nb\"", "|-\n  a\n  b\n"},
		{"1e+21", "1e+21\n"},
		{"0.000001", "1e-06\n"},
		{"12345678901234567000", "12345678901234567000\n"},
		{"\"12:30\"", "\"12:30\"\n"},
		{"\"x: y\"", "'x: y'\n"},
		{"{}", "{}\n"},
		{"null", "null\n"},
		{"[[1,2],{\"a\":[]}]", "- - 1\n  - 2\n- a: []\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *y = emit_json(cases[i].json);
		ck_assert_msg(strcmp(y, cases[i].yaml) == 0, "%s: got [%s] want [%s]", cases[i].json, y, cases[i].yaml);
		free(y);
	}
}
END_TEST

/* Behaviours of sigs.k8s.io/yaml found by differential runs against helm
 * v4.1.4 (toYaml / mustToYaml of values loaded from JSON text). */
START_TEST(test_emit_goyaml_quirks)
{
	bh_buf b = BH_BUF_INIT;
	bh_error e = {0};
	/* a raw NEL in the JSON text folds like a YAML line break */
	const char *nel = "{\"k\":\"c1\xc2\x85\"}";
	/* goyaml does not indent before the quote closing a scalar that ends in U+2028 */
	const char *ls = "{\"k17\":\"\xe2\x80\xa8\"}";
	ck_assert_int_eq(yaml_emit_json_text(nel, strlen(nel), &b, &e), 0);
	ck_assert_str_eq(bh_buf_str(&b), "k: 'c1 '\n");
	bh_buf_reset(&b);
	ck_assert_int_eq(yaml_emit_json_text(ls, strlen(ls), &b, &e), 0);
	ck_assert_str_eq(bh_buf_str(&b), "k17: '\xe2\x80\xa8'\n");
	bh_buf_reset(&b);
	/* a raw NEL inside a key: the YAML key would span lines */
	nel = "{\"a\":{\"c1\xc2\x85\":1}}";
	ck_assert_int_eq(yaml_emit_json_text(nel, strlen(nel), &b, &e), BH_EPARSE);
	ck_assert_str_eq(e.msg, "yaml: line 1: did not find expected ',' or '}'");
	/* mustToYaml of "del\x7f" */
	ck_assert_int_eq(yaml_emit_json_text("\"del\x7f\"", 6, &b, &e), BH_EINVAL);
	ck_assert_str_eq(e.msg, "yaml: control characters are not allowed");
	ck_assert_uint_eq(b.len, 0);
	bh_buf_free(&b);
}
END_TEST

/* One kept emitter through a run of texts, errors among them, prints each
 * as a fresh one does (yaml_emit_json_text_kept against yaml_emit_json_text) */
START_TEST(test_emit_kept)
{
	static const char *const texts[] = {
		"{\"b\":[1,2,{\"x\":\"y\"}],\"a\":{\"c\":null,\"d\":true}}",
		"\"del\x7f\"",
		"{\"long\":\"aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp qqqq rrrr\"}",
		"{\"k17\":\"\xe2\x80\xa8\"}",
		"{\"a\":{\"c1\xc2\x85\":1}}",
		"{\"lit\":\"line one\\nline two\\n\",\"n\":1e400,\"f\":0.5}",
		"{\t\"ws\":\r\n[]}",
		"\"\x01\"",
		"\"c1 \xc2\x80 and \xef\xbf\xbe\"",
		"\"bad \xff utf-8\"",
		"{}",
		"[\"yes\",\"1.5\",\"\",\"null\"]",
	};
	yaml_emitter_kept *kept = NULL;
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
			bh_buf want = BH_BUF_INIT, got = BH_BUF_INIT;
			bh_error ew = {0}, eg = {0};
			size_t n = strlen(texts[i]);
			int rw = yaml_emit_json_text(texts[i], n, &want, &ew);
			bh_buf_puts(&got, "x");
			int rg = yaml_emit_json_text_kept(&kept, texts[i], n, &got, &eg);
			ck_assert_int_eq(rg, rw);
			ck_assert_str_eq(eg.msg, ew.msg);
			ck_assert_str_eq(bh_buf_str(&got) + 1, bh_buf_str(&want));
			bh_buf_free(&want);
			bh_buf_free(&got);
		}
	ck_assert_ptr_nonnull(kept);
	yaml_emitter_kept_free(kept);
}
END_TEST

/* The printer of plain data prints what libyaml's emitter prints, byte for
 * byte: random trees of strings from an alphabet of the characters that
 * change a scalar's style (indicators, quotes, spaces, '#', ':', '-'),
 * with lengths around the folding width and the simple-key limit, numbers,
 * and now and then a line break or a non-ASCII rune (libyaml's alone) */
static void rand_json(bh_buf *b, unsigned *seed, int depth);

static void rand_json_string(bh_buf *b, unsigned *seed)
{
	static const char alpha[] = "ab-:# '\"\\?,[]{}&*!|>%@`.0123456789xyz\n\n\n\t";
	static const char *const words[] = {"", "yes", "null", "~", "1.5", "0x1F", "1:20", "---", "...",
					    "true", "- x", "a: b", "-", "?", ":", "#c", "12e3", "190:20:30",
					    "caf\\u00e9", "line\\nnext", "tab\\tx", "2001-12-14", "\\n", "a\\n\\n",
					    "\\nlead", " \\nx", "x \\n", "x\\n ",
					    "2001-12-14 21:59:43.10 -5", "2001-12-14  21:59:43.10", "2001-12-14\\t21:59:43"};
	bh_buf_putc(b, '"');
	if (rand_r(seed) % 3 == 0) {
		bh_buf_puts(b, words[rand_r(seed) % (sizeof words / sizeof words[0])]);
	} else {
		size_t lens[] = {1, 3, 8, 40, 70, 79, 90, 127, 128, 129, 200};
		size_t n = lens[rand_r(seed) % (sizeof lens / sizeof lens[0])];
		int spaces = rand_r(seed) % 2, lines = rand_r(seed) % 3 == 0;
		for (size_t i = 0; i < n; i++) {
			char c = alpha[rand_r(seed) % (sizeof alpha - (lines ? 1 : 5))];
			if (!spaces && c == ' ')
				c = 'q';
			if (c == '"' || c == '\\')
				bh_buf_putc(b, '\\');
			bh_buf_puts(b, c == '\n' ? "\\n" : c == '\t' ? "\\t" : (char[]){c, 0});
		}
	}
	bh_buf_putc(b, '"');
}

static void rand_json(bh_buf *b, unsigned *seed, int depth)
{
	static const char *const nums[] = {"0", "-1", "12345678901234567890", "1e400", "0.5", "1e21", "-0", "3.25e-9"};
	int k = (int)(rand_r(seed) % (depth > 5 ? 6 : 10));
	switch (k) {
	case 0: bh_buf_puts(b, rand_r(seed) % 2 ? "null" : rand_r(seed) % 2 ? "true" : "false"); return;
	case 1: bh_buf_puts(b, nums[rand_r(seed) % (sizeof nums / sizeof nums[0])]); return;
	case 2: case 3: case 4: case 5: rand_json_string(b, seed); return;
	case 6: case 7: {
		bh_buf_putc(b, '[');
		for (int n = (int)(rand_r(seed) % 4), i = 0; i < n; i++) {
			if (i)
				bh_buf_putc(b, ',');
			rand_json(b, seed, depth + 1);
		}
		bh_buf_putc(b, ']');
		return;
	}
	default: {
		bh_buf_putc(b, '{');
		for (int n = (int)(rand_r(seed) % 5), i = 0; i < n; i++) {
			if (i)
				bh_buf_putc(b, ',');
			rand_json_string(b, seed);
			bh_buf_putc(b, ':');
			rand_json(b, seed, depth + 1);
		}
		bh_buf_putc(b, '}');
		return;
	}
	}
}

START_TEST(test_emit_plain_printer)
{
	unsigned seed = 1414;
	/* scalars folded past the best width after a long key: a timestamp
	 * (goyaml quotes it), plain and single-quoted text with runs of
	 * spaces */
	static const char *const fixed[] = {
		"{\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\":"
		"\"2001-12-14 21:59:43.10\"}",
		"[{\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\":"
		"\"ab  cd efg hij\",\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkz\":"
		"\"#a  b c 'd'  e\"}]",
		/* a space, '#' and ':' on either side of 16-byte steps of fast_scan */
		"[\"aaaaaaaaaaaaaaa #bbbbbbbbbbbbbbb: cccccccccccccccc:\",\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:\","
		"\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa #\",\"aaaaaaaaaaaaaaaa\\nbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb \"]",
	};
	for (int round = 0; round < 20000 + (int)(sizeof fixed / sizeof fixed[0]); round++) {
		bh_buf j = BH_BUF_INIT, want = BH_BUF_INIT, got = BH_BUF_INIT;
		bh_error ew = {0}, eg = {0}, el = {0};
		gojson_node *root = NULL;
		yaml_emitter_kept *kept = NULL;
		if (round >= 20000)
			bh_buf_puts(&j, fixed[round - 20000]);
		else
			rand_json(&j, &seed, round % 7 == 0 ? 6 : 0);
		int rc = gojson_tree_load_yaml(bh_buf_str(&j), j.len, NULL, &root, &el);
		ck_assert_msg(rc == 0, "round %d: %s: %s", round, bh_buf_str(&j), el.msg);
		int rw = yaml_emit_json_tree_libyaml(root, &want, &ew);
		int rg = yaml_emit_json_tree_kept(&kept, root, &got, &eg);
		ck_assert_int_eq(rg, rw);
		ck_assert_str_eq(eg.msg, ew.msg);
		ck_assert_msg(strcmp(bh_buf_str(&got), bh_buf_str(&want)) == 0, "round %d: %s\nlibyaml:\n%s\nprinter:\n%s",
			      round, bh_buf_str(&j), bh_buf_str(&want), bh_buf_str(&got));
		yaml_emitter_kept_free(kept);
		gojson_tree_free(root);
		bh_buf_free(&j);
		bh_buf_free(&want);
		bh_buf_free(&got);
	}
}
END_TEST

/* toYamlPretty of template-built values (expected text from funcs.jsonl) */
START_TEST(test_emit_pretty)
{
	static const struct { const char *json; const char *want; } cases[] = {
		{"{\"b\":2,\"a\":[1,2],\"c\":{\"d\":[{\"e\":1}]}}", "a:\n  - 1\n  - 2\nb: 2\nc:\n  d:\n    - e: 1"},
		{"[1,\"a\",null,true]", "- 1\n- a\n- null\n- true"},
		{"[[1,2],[{\"a\":1}]]", "- - 1\n  - 2\n- - a: 1"},
		{"{\"y\":1,\"n\":2,\"yes\":3,\"1\":4}", "\"1\": 4\n\"n\": 2\n\"y\": 1\n\"yes\": 3"},
		{"{\"k\":\"\"}", "k: \"\""},
		{"{\"a\":{}}", "a: {}"},
		{"{\"b\":\"x\",\"a\":[]}", "a: []\nb: x"},
		{"\"multi\\nline\\n\"", "|\n  multi\n  line"},
		{"\"del\\u007f\"", "\"del\\x7F\""},
		{"null", "null"},
		{"{}", "{}"},
		{"[]", "[]"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		json_t *v = NULL;
		bh_buf b = BH_BUF_INIT;
		bh_error e = {0};
		ck_assert_int_eq(gojson_decode(cases[i].json, strlen(cases[i].json), NULL, GOJSON_KEEP_INTS, &v, &e), 0);
		ck_assert_int_eq(yaml_emit_pretty(v, &b, &e), 0);
		if (b.len && b.data[b.len - 1] == '\n')
			b.data[--b.len] = '\0';
		ck_assert_msg(strcmp(bh_buf_str(&b), cases[i].want) == 0, "%s: got [%s] want [%s]", cases[i].json, bh_buf_str(&b), cases[i].want);
		json_decref(v);
		bh_buf_free(&b);
	}
}
END_TEST

/* ---- conformance vectors -------------------------------------------------- */

static void lang_vector(const gojson_node *t, void *arg)
{
	vec_tally *ty = arg;
	const char *topic = vec_str(t, "topic"), *vy = vec_str(t, "valuesYaml");
	const char *efull = vec_str(t, "errorFull"), *id = vec_str(t, "id");
	const gojson_node *want = vec_get(t, "values");
	json_t *got = NULL;
	bh_error e = {0};
	int rc;
	if (!vy || !topic || strcmp(topic, "yaml-typing") != 0)
		return;
	if (!want && !(efull && strncmp(efull, "cannot load values.yaml", 23) == 0))
		return;
	ty->run++;
	rc = yaml_parse_values(vy, strlen(vy), NULL, &got, &e);
	if (want) {
		bh_buf wt = BH_BUF_INIT;
		json_t *wj = NULL;
		vec_text(want, &wt);
		gojson_decode(wt.data, wt.len, NULL, 0, &wj, NULL);
		if (rc || !gojson_equal(got, wj)) {
			ty->failed++;
			fprintf(stderr, "FAIL %s: %s\n", id, rc ? e.msg : "values differ");
		}
		json_decref(wj);
		bh_buf_free(&wt);
	} else {
		char full[BH_ERROR_MSG_MAX + 64];
		snprintf(full, sizeof full, "cannot load values.yaml: %s", e.msg);
		if (!rc || strcmp(full, efull) != 0) {
			ty->failed++;
			fprintf(stderr, "FAIL %s: got [%s] want [%s]\n", id, rc ? full : "success", efull);
		}
	}
	json_decref(got);
}

START_TEST(test_lang_yaml_typing)
{
	vec_tally ty = {0, 0};
	if (!vec_replay("functions/lang.jsonl", lang_vector, &ty, "lang.jsonl yaml-typing"))
		return;
	ck_assert_int_gt(ty.run, 80);
	ck_assert_int_eq(ty.failed, 0);
}
END_TEST

static void funcs_vector(const gojson_node *t, void *arg)
{
	vec_tally *ty = arg;
	const char *tpl = vec_str(t, "template"), *expect = vec_str(t, "expect"), *id = vec_str(t, "id");
	const gojson_node *vals = vec_get(t, "values");
	json_t *values = NULL, *subject = NULL;
	bh_buf vt = BH_BUF_INIT, out = BH_BUF_INIT;
	bh_error e = {0};
	int rc, wrap = 0;
	if (!tpl || !expect)
		return;
	int pretty = strncmp(tpl, "{{ toYamlPretty ", 16) == 0;
	if (strcmp(tpl, "{{ toYaml .Values.v }}") && strcmp(tpl, "{{ toYaml .Values }}") &&
	    strcmp(tpl, "{{ toYaml (dict \"k\" .Values.v) }}") && strcmp(tpl, "{{ mustToYaml .Values.v }}") &&
	    strcmp(tpl, "{{ toYamlPretty .Values.v }}") && strcmp(tpl, "{{ toYamlPretty .Values }}") &&
	    strcmp(tpl, "{{ toYamlPretty .Values.f }}") && strcmp(tpl, "{{ toYamlPretty .Values.i }}") &&
	    strcmp(tpl, "{{ toYamlPretty .Values.big }}"))
		return;
	if (vals)
		vec_text(vals, &vt);
	rc = yaml_parse_values(vt.data ? vt.data : "", vt.len, NULL, &values, &e);
	if (rc) {
		fprintf(stderr, "FAIL %s: values: %s\n", id, e.msg);
		ty->run++;
		ty->failed++;
		goto out;
	}
	if (strstr(tpl, ".Values.")) {
		const char *f = strstr(tpl, ".Values.") + 8;
		char field[32] = {0};
		for (int k = 0; k < 31 && f[k] != ' ' && f[k] != ')'; k++)
			field[k] = f[k];
		subject = json_object_get(values, field);
		subject = subject ? json_incref(subject) : json_null();
	} else {
		subject = json_incref(values);
	}
	if (strstr(tpl, "dict")) {
		json_t *d = json_object();
		json_object_set_new(d, "k", subject);
		subject = d;
		wrap = 1;
	}
	(void)wrap;
	ty->run++;
	/* Helm's toYaml prints "" when marshalling fails */
	if ((pretty ? yaml_emit_pretty(subject, &out, &e) : yaml_emit(subject, &out, &e)))
		bh_buf_reset(&out);
	if (out.len && out.data[out.len - 1] == '\n')
		out.data[--out.len] = '\0';
	if (strcmp(bh_buf_str(&out), expect) != 0) {
		ty->failed++;
		fprintf(stderr, "FAIL %s: got [%s] want [%s]\n", id, bh_buf_str(&out), expect);
	}
out:
	json_decref(subject);
	json_decref(values);
	bh_buf_free(&vt);
	bh_buf_free(&out);
}

/* a Go interpreted string literal (template source) -> bytes */
static char *go_unquote(const char *s, const char **end)
{
	bh_buf b = BH_BUF_INIT;
	if (*s != '"')
		return NULL;
	for (s++; *s && *s != '"'; s++) {
		if (*s != '\\') {
			bh_buf_putc(&b, *s);
			continue;
		}
		s++;
		switch (*s) {
		case 'n': bh_buf_putc(&b, '\n'); break;
		case 't': bh_buf_putc(&b, '\t'); break;
		case 'u': {
			unsigned v = (unsigned)strtoul((char[]){s[1], s[2], s[3], s[4], 0}, NULL, 16);
			if (v < 0x80) {
				bh_buf_putc(&b, (char)v);
			} else if (v < 0x800) {
				bh_buf_putc(&b, (char)(0xC0 | (v >> 6)));
				bh_buf_putc(&b, (char)(0x80 | (v & 0x3F)));
			} else {
				bh_buf_putc(&b, (char)(0xE0 | (v >> 12)));
				bh_buf_putc(&b, (char)(0x80 | ((v >> 6) & 0x3F)));
				bh_buf_putc(&b, (char)(0x80 | (v & 0x3F)));
			}
			s += 4;
			break;
		}
		default: bh_buf_putc(&b, *s);
		}
	}
	*end = *s ? s + 1 : s;
	if (!b.data)
		bh_buf_puts(&b, "");
	return bh_buf_detach(&b);
}

static void fromyaml_vector(const gojson_node *t, void *arg)
{
	vec_tally *ty = arg;
	const char *tpl = vec_str(t, "template"), *expect = vec_str(t, "expect"), *id = vec_str(t, "id");
	const char *rest, *lit;
	char *text;
	int want, mode; /* mode 0: | toJson, 1: bare print (errors only), 2: .Error */
	json_t *v = NULL;
	bh_error e = {0};
	bh_buf got = BH_BUF_INIT;
	if (!tpl || !expect)
		return;
	if (!strncmp(tpl, "{{ fromYaml \"", 13)) {
		want = YAML_WANT_MAP;
		lit = tpl + 12;
		mode = -1;
	} else if (!strncmp(tpl, "{{ fromYamlArray \"", 18)) {
		want = YAML_WANT_LIST;
		lit = tpl + 17;
		mode = -1;
	} else if (!strncmp(tpl, "{{ (fromYaml \"", 14)) {
		want = YAML_WANT_MAP;
		lit = tpl + 13;
		mode = 2;
	} else {
		return;
	}
	text = go_unquote(lit, &rest);
	if (!text)
		return;
	if (mode == 2 && strcmp(rest, ").Error }}") != 0)
		goto out;
	if (mode == -1)
		mode = !strcmp(rest, " | toJson }}") ? 0 : !strcmp(rest, " }}") ? 1 : -1;
	if (mode < 0)
		goto out;
	if (yaml_unmarshal_as(text, strlen(text), NULL, want, &v, &e) != 0) {
		if (mode == 2) {
			bh_buf_puts(&got, e.msg);
		} else if (mode == 1) {
			bh_buf_printf(&got, want == YAML_WANT_MAP ? "map[Error:%s]" : "[%s]", e.msg);
		} else {
			json_t *w = want == YAML_WANT_MAP ? json_pack("{s:s}", "Error", e.msg) : json_pack("[s]", e.msg);
			gojson_encode(w, 0, &got, NULL);
			json_decref(w);
		}
	} else if (mode == 0) {
		gojson_encode(v, 0, &got, NULL);
	} else {
		goto out; /* a successful bare print needs Go's %v */
	}
	ty->run++;
	if (strcmp(bh_buf_str(&got), expect) != 0) {
		ty->failed++;
		fprintf(stderr, "FAIL %s: got [%s] want [%s]\n", id, bh_buf_str(&got), expect);
	}
out:
	json_decref(v);
	bh_buf_free(&got);
	free(text);
}

START_TEST(test_funcs_fromyaml)
{
	vec_tally ty = {0, 0};
	if (!vec_replay("functions/funcs.jsonl", fromyaml_vector, &ty, "funcs.jsonl fromYaml/fromYamlArray"))
		return;
	ck_assert_int_gt(ty.run, 35);
	ck_assert_int_eq(ty.failed, 0);
}
END_TEST

START_TEST(test_funcs_toyaml)
{
	vec_tally ty = {0, 0};
	if (!vec_replay("functions/funcs.jsonl", funcs_vector, &ty, "funcs.jsonl toYaml/toYamlPretty"))
		return;
	ck_assert_int_gt(ty.run, 170);
	ck_assert_int_eq(ty.failed, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("yaml");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_resolve_words);
	tcase_add_test(tc, test_numbers_are_floats);
	tcase_add_test(tc, test_bool_keys_and_values);
	tcase_add_test(tc, test_multi_document_values);
	tcase_add_test(tc, test_error_shapes);
	tcase_add_test(tc, test_values_lines);
	tcase_add_test(tc, test_goyaml_escapes);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_anchor_cycles_in_keys);
	tcase_add_test(tc, test_error_value_budget);
	tcase_add_test(tc, test_duplicate_keys);
	tcase_add_test(tc, test_fast_reader_matches_libyaml);
	tcase_add_test(tc, test_fast_reader_long_lines);
	tcase_add_test(tc, test_parse_any);
	tcase_add_test(tc, test_emit_basics);
	tcase_add_test(tc, test_emit_goyaml_quirks);
	tcase_add_test(tc, test_emit_kept);
	tcase_add_test(tc, test_emit_plain_printer);
	tcase_add_test(tc, test_emit_pretty);
	tcase_add_test(tc, test_lang_yaml_typing);
	tcase_add_test(tc, test_funcs_toyaml);
	tcase_add_test(tc, test_funcs_fromyaml);
	tcase_add_test(tc, test_emit_deep_indent);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
