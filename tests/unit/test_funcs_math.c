/* tests/unit/test_funcs_math.c — unit tests of the Sprig math and conversion functions (tmpl/funcs_math.c, tmpl/funcs_conv.c):
 * corner cases the conformance vectors miss, with goldens from the real Helm
 * v4.1.4 (see funcs_golden.h), plus limits and randomness checks. */
#include "tests/unit/funcs_golden.h"
#include "tests/unit/unit_util.h"

/* Generated from helm v4.1.4 output. */
static const fgolden goldens[] = {
	{"decimal_more", "{{ divf -2 3 }}|{{ mulf 0.1 0.2 }}|{{ addf 1e20 1 }}|{{ divf 1e-20 3 }}|{{ subf 1e16 1 }}|{{ divf 5 -8 }}", "{}", 0, "-0.6666666666666667|0.02|1e+20|0|1e+16|-0.625"},
	{"decimal_round_half", "{{ divf 1 6 }}|{{ divf -1 6 }}|{{ divf 2 30000000000000000 }}|{{ mulf 1.1 1.1 1.1 }}|{{ addf 0.1 0.2 0.3 }}", "{}", 0, "0.1666666666666667|-0.1666666666666667|1e-16|1.331|0.6"},
	{"decimal_nan", "{{ addf (float64 \"NaN\") 1 }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <addf (float64 \"NaN\") 1>: error calling addf: Cannot create a Decimal from NaN"},
	{"round_more", "{{ round 2.675 2 }}|{{ round -2.675 2 }}|{{ round 0.5 0 0.6 }}|{{ round 1234.5678 -3 }}|{{ round 1.5 0 0 }}", "{}", 0, "2.68|-2.68|0|1000|2"},
	{"seq_more", "{{ seq -1 }}|{{ seq 5 -2 1 }}|{{ seq 1 -1 3 }}|{{ seq 0 0 0 }}|{{ seq 1 1 }}", "{}", 0, "1 0 -1|5 3 1|||1"},
	{"until_step_neg", "{{ untilStep -1 -10 -4 | toJson }}|{{ until -1 | toJson }}", "{}", 0, "[-1,-5,-9]|[0]"},
	{"int_conv_more", "{{ int \"-0x10\" }}|{{ int64 \"0b_101\" }}|{{ int \"1__0\" }}|{{ int \"_10\" }}|{{ int64 1e19 }}|{{ int \"+0o17\" }}", "{}", 0, "-16|5|0|0|-9223372036854775808|15"},
	{"float_conv_more", "{{ float64 \"0x1.8p1\" }}|{{ float64 \"1e400\" }}|{{ float64 \"+.5e1\" }}|{{ float64 \"1__0\" }}|{{ float64 \"Infinity\" }}|{{ float64 \"infinity\" }}", "{}", 0, "3|0|5|0|+Inf|+Inf"},
	{"atoi_more", "{{ atoi \"-0\" }}|{{ atoi \"+-1\" }}|{{ atoi \"1_0\" }}|{{ atoi \"-9223372036854775809\" }}", "{}", 0, "0|0|0|-9223372036854775808"},
	{"todecimal_more", "{{ toDecimal \"-0\" }}|{{ toDecimal true }}|{{ toDecimal nil }}|{{ toDecimal \"+17\" }}|{{ toDecimal \"777777777777777777777777\" }}", "{}", 0, "0|0|0|15|0"},
	{"minmax_more", "{{ max \"x\" -5 }}|{{ min 9223372036854775807 \"9223372036854775808\" }}|{{ maxf -0.0 0 }}|{{ minf 0 -0.0 }}|{{ maxf (float64 \"-Inf\") \"NaN\" }}", "{}", 0, "0|0|0|-0|NaN"},
	{"div_mod_more", "{{ mod -7 -3 }}|{{ div -7 2 }}|{{ mod -9223372036854775808 -1 }}|{{ mul -1 -9223372036854775808 }}", "{}", 0, "-1|-3|0|-9223372036854775808"},
	{"floor_ceil_more", "{{ floor \"1e400\" }}|{{ ceil -0.0 }}|{{ floor (float64 \"NaN\") }}", "{}", 0, "0|-0|NaN"},
};

START_TEST(test_goldens)
{
	fg_check(&goldens[_i]);
}
END_TEST

START_TEST(test_rand_int_range)
{
	char *got = fg_render("{{ range until 200 }}{{ randInt -3 3 }},{{ end }}", NULL, NULL);
	int seen[6] = {0};
	for (char *p = got; *p;) {
		char *end;
		long v = strtol(p, &end, 10);
		ck_assert_msg(end != p && *end == ',', "bad output %s", got);
		ck_assert(v >= -3 && v < 3);
		seen[v + 3] = 1;
		p = end + 1;
	}
	for (int i = 0; i < 6; i++)
		ck_assert_msg(seen[i], "value %d never drawn in 200 tries", i - 3);
	free(got);
}
END_TEST

START_TEST(test_list_size_limit)
{
	fg_expect_error("{{ until 2000000 | len }}", "more than 1000000 items");
	fg_expect_error("{{ seq 0 2000000 | len }}", "more than 1000000 items");
	char *got = fg_render("{{ untilStep 9223372036854775806 9223372036854775807 5 | toJson }}", NULL, NULL);
	ck_assert_str_eq(got, "[9223372036854775806]");
	free(got);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("funcs_math");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_goldens, 0, (int)(sizeof(goldens) / sizeof(goldens[0])));
	tcase_add_test(tc, test_rand_int_range);
	tcase_add_test(tc, test_list_size_limit);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
