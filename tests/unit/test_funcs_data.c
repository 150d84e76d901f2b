/* tests/unit/test_funcs_data.c — unit tests of the Sprig list, dict and defaults/reflection functions (tmpl/funcs_lists.c, funcs_dicts.c, funcs_reflect.c):
 * corner cases the conformance vectors miss, with goldens from the real Helm
 * v4.1.4 (see funcs_golden.h), plus limits and randomness checks. */
#include "tests/unit/funcs_golden.h"
#include "tests/unit/unit_util.h"

/* Generated from helm v4.1.4 output. */
static const fgolden goldens[] = {
	{"set_after_unset_shrinks", "{{ $d := dict }}{{ range $i := until 12 }}{{ $_ := set $d (printf \"k%02d\" $i) $i }}{{ end }}{{ range $i := until 6 }}{{ $_ := unset $d (printf \"k%02d\" $i) }}{{ end }}{{ $_ := set $d \"new\" 1 }}{{ hasKey $d \"new\" }} {{ $d.new }} {{ get $d \"new\" }} {{ len $d }} {{ keys $d | sortAlpha | join \",\" }} {{ $_ := set $d \"k11\" 99 }}{{ $d.k11 }} {{ len $d }}", "{}", 0, "true 1 1 7 k06,k07,k08,k09,k10,k11,new 99 7"},
	{"chunk_negative", "{{ chunk -1 (list 1 2) | toJson }}|{{ chunk 3 (list 1 2 3 4 5 6 7) | toJson }}|{{ chunk 5 (list) | toJson }}", "{}", 0, "[]|[[1,2,3],[4,5,6],[7]]|[]"},
	{"chunk_negative_err", "{{ chunk -1 (list 1 2 3) }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <chunk -1 (list 1 2 3)>: error calling chunk: runtime error: makeslice: len out of range"},
	{"merge_empty_dst_list", "{{ merge (dict) (dict \"l\" (list 1)) | toJson }}|{{ merge (dict \"x\" 1) (dict \"l\" (list 1)) | toJson }}|{{ merge (dict \"l\" nil) (dict \"l\" (list 2)) | toJson }}", "{}", 0, "{\"l\":[1]}|{\"l\":[1],\"x\":1}|{\"l\":[2]}"},
	{"merge_nested_nil", "{{ merge (dict \"a\" nil) (dict \"a\" (dict \"b\" 1)) | toJson }}|{{ mergeOverwrite (dict \"a\" (dict \"b\" (list 1) \"c\" 1)) (dict \"a\" (dict \"b\" (list 2 3))) | toJson }}", "{}", 0, "{\"a\":{\"b\":1}}|{\"a\":{\"b\":[2,3],\"c\":1}}"},
	{"merge_scalar_into_list", "{{ merge (dict \"a\" (list 1)) (dict \"a\" \"s\") | toJson }}|{{ mergeOverwrite (dict \"a\" (list 1)) (dict \"a\" \"s\") | toJson }}|{{ merge (dict \"a\" (list)) (dict \"a\" \"s\") | toJson }}", "{}", 0, "{\"a\":[1]}|{\"a\":\"s\"}|{\"a\":\"s\"}"},
	{"merge_values_mut", "{{ $_ := merge .Values.m (dict \"z\" 1) }}{{ .Values.m | toJson }}", "{\"l\": [1, \"a\", null, 2.5], \"m\": {\"a\": 1, \"b\": {\"c\": 2}}, \"s\": \"str\", \"n\": null, \"e\": \"\", \"big\": 1e+20}", 0, "{\"a\":1,\"b\":{\"c\":2},\"z\":1}"},
	{"dig_values", "{{ dig \"a\" \"d\" .Values }}", "{\"l\": [1, \"a\", null, 2.5], \"m\": {\"a\": 1, \"b\": {\"c\": 2}}, \"s\": \"str\", \"n\": null, \"e\": \"\", \"big\": 1e+20}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <dig \"a\" \"d\" .Values>: error calling dig: interface conversion: interface {} is common.Values, not map[string]interface {}"},
	{"uniq_nested", "{{ uniq (list (list 1) (list 1) (dict \"a\" 1) (dict \"a\" 1) \"x\") | toJson }}|{{ has (list 1) (list (list 1)) }}|{{ without (splitList \",\" \"a,b,a\") \"a\" | toJson }}", "{}", 0, "[[1],{\"a\":1},\"x\"]|true|[\"b\"]"},
	{"concat_kinds", "{{ concat (splitList \",\" \"a,b\") (until 2) (list nil) | toJson }}|{{ typeOf (concat (list 1)) }}", "{}", 0, "[\"a\",\"b\",0,1,null]|[]interface {}"},
	{"first_last_kinds", "{{ first (splitList \",\" \"a,b\") }}|{{ last (until 3) }}|{{ typeOf (first (until 1)) }}|{{ rest (until 1) | toJson }}|{{ initial (list) | toJson }}", "{}", 0, "a|2|int|[]|null"},
	{"slice_kinds", "{{ slice (splitList \",\" \"a,b,c\") 1 | typeOf }}|{{ slice (list 1 2 3) \"1\" \"2\" | toJson }}|{{ slice (list) 5 | toJson }}", "{}", 0, "[]string|[2]|null"},
	{"compact_objects", "{{ compact (list (semver \"0.0.0\") 0 (list nil)) | len }}", "{}", 0, "2"},
	{"dict_keys_kinds", "{{ dict (semver \"1.2.3\") 1 | toJson }}|{{ keys (dict \"b\" 1) (dict \"a\" 2) | sortAlpha | toJson }}", "{}", 0, "{\"1.2.3\":1}|[\"a\",\"b\"]"},
	{"pluck_nil", "{{ pluck \"a\" (dict \"a\" nil) (dict) | toJson }}|{{ get (dict \"a\" (list 1)) \"a\" | toJson }}", "{}", 0, "[null]|[1]"},
	{"deep_equal_more", "{{ deepEqual (dict \"a\" (list 1 nil)) (dict \"a\" (list 1 nil)) }}|{{ deepEqual (until 2) (list 0 1) }}|{{ deepEqual (dict) nil }}|{{ deepEqual (semver \"1.0.0\") (semver \"1.0.0\") }}", "{}", 0, "true|false|false|true"},
	{"deepcopy_kinds", "{{ typeOf (deepCopy (until 2)) }}|{{ deepCopy (split \",\" \"a,b\") | toJson }}|{{ typeOf (deepCopy .Values.m) }}", "{\"l\": [1, \"a\", null, 2.5], \"m\": {\"a\": 1, \"b\": {\"c\": 2}}, \"s\": \"str\", \"n\": null, \"e\": \"\", \"big\": 1e+20}", 0, "[]int|{\"_0\":\"a\",\"_1\":\"b\"}|map[string]interface {}"},
	{"kind_type_more", "{{ kindOf (until 1) }}|{{ typeOf (chunk 1 (list 1)) }}|{{ kindOf 1.5i }}|{{ typeOf 1.5i }}|{{ kindIs \"invalid\" .Values.n }}", "{\"l\": [1, \"a\", null, 2.5], \"m\": {\"a\": 1, \"b\": {\"c\": 2}}, \"s\": \"str\", \"n\": null, \"e\": \"\", \"big\": 1e+20}", 0, "slice|[][]interface {}|complex128|complex128|true"},
	{"ternary_default_more", "{{ default 0 nil }}|{{ default (list) \"\" | toJson }}|{{ coalesce nil .Values.e 0 \"\" }}|{{ ternary 1 2 .Values.nope }}", "{\"l\": [1, \"a\", null, 2.5], \"m\": {\"a\": 1, \"b\": {\"c\": 2}}, \"s\": \"str\", \"n\": null, \"e\": \"\", \"big\": 1e+20}", 1, "vec/templates/test.yaml:1:109\n  executing \"vec/templates/test.yaml\" at <.Values.nope>:\n    wrong type for value; expected bool; got interface {}"},
};

START_TEST(test_goldens)
{
	fg_check(&goldens[_i]);
}
END_TEST

START_TEST(test_cyclic_values)
{
	/* set can make a map contain itself; copies and merges stop at the
	 * depth limit instead of overflowing the stack (Helm itself crashes
	 * with a Go stack overflow on deepCopy of such a value) */
	fg_expect_error("{{ $d := dict }}{{ $_ := set $d \"self\" $d }}{{ deepCopy $d }}", "nested more than");
	fg_expect_error("{{ $d := dict \"a\" (dict) }}{{ $_ := set $d.a \"up\" $d }}{{ $e := dict \"a\" (dict) }}"
			"{{ $_ := set $e.a \"up\" $e }}{{ merge $d $e }}", "maps nested too deeply");
	/* helm v4.1.4: "true|true" (Go's DeepEqual treats cycles as equal) */
	char *got = fg_render("{{ $d := dict }}{{ $_ := set $d \"self\" $d }}{{ $e := dict }}{{ $_ := set $e \"self\" $e }}"
			      "{{ deepEqual $d $d }}|{{ deepEqual $d $e }}", NULL, NULL);
	ck_assert_str_eq(got, "true|true");
	free(got);
}
END_TEST

START_TEST(test_set_nil_map)
{
	fg_expect_error("{{ set nil \"k\" 1 }}", "error calling set: assignment to entry in nil map");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("funcs_data");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_goldens, 0, (int)(sizeof(goldens) / sizeof(goldens[0])));
	tcase_add_test(tc, test_cyclic_values);
	tcase_add_test(tc, test_set_nil_map);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
