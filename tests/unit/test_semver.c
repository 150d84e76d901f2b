/* tests/unit/test_semver.c — lib/semver (Masterminds/semver v3.4.0): the
 * coercing parser, ordering, constraint errors, and Helm's IsCompatibleRange.
 * Expected results come from the real helm v4.1.4: the table below is
 * `{{ semverCompare C V }}` for each constraint and version (the same
 * library Helm's kubeVersion and dependency range checks use), "E" where
 * helm refused the constraint; the parse results are `{{ semver V }}`. */
#include <check.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/semver.h"
#include "lib/semver_match.h"
#include "tests/unit/unit_util.h"

static const char *const vers[] = {"1.31.0", "1.31.0-gke.100", "1.22.0-0", "1.2.3", "0.12.8", "0.0.4",
				   "0.2.9", "1.5.0", "2.0.0", "1.2.0-beta", "3.1.0"};

static const struct {
	const char *constraint, *want; /* one of 1 / 0 / E per version */
} table[] = {
	{"~0.0.0", "10011111101"},
	{"V1.2.3", "EEEEEEEEEEE"},
	{"v1.2.3", "00010000000"},
	{">=1.22.0-0,<=1.35.x", "11100000000"},
	{"<x", "00000000000"},
	{"!=*", "10011111101"},
	{">= 1.22.0-0", "11100000101"},
	{"^1.25.0-0", "11000000000"},
	{"2.x.x", "00000000100"},
	{"0.12.*", "00001000000"},
	{"~1.2.3", "00010000000"},
	{">=1.0.0 <2.0.0 || 3.x", "10010001001"},
	{"1.0 - 1.4", "00010000000"},
	{">=1.0.0", "10010001101"},
	{"!=1.x", "00001110101"},
	{">1.x", "00000000101"},
	{"<=1.x", "10011111000"},
	{"^0.0.3", "00000000000"},
	{"^0.2", "00000010000"},
	{"~1", "10010001000"},
	{"=1.2", "00010000000"},
	{">1.2", "10000001101"},
	{"<=1.2", "00011110000"},
	{"", "EEEEEEEEEEE"},
};

/* the hand matchers of the constraint grammar (lib/semver_match.h): what
 * the library's regular expressions answer, groups included */
START_TEST(test_grammar)
{
	static const struct {
		const char *s;
		int valid;
	} valid[] = {
		{"1.0", 1}, {" >= 1.0 ", 1}, {">=1.0 <2", 1}, {">=1.0,<2", 1}, {">=1.0 , <2", 1}, {"1.0 2.0", 1},
		{"=>1.x, =<2.*", 1}, {"~>1.2.3-rc.1+b.2", 1}, {"1|2", 1}, {"", 0}, {",1.0", 0}, {"1.0,,2.0", 0},
		{"1.0 ,", 0}, {"1.0>2.0", 0}, {"==1.0", 0}, {"!1.0", 0}, {"1.0-", 0}, {"1.2.3.4", 0}, {"v", 0},
	};
	size_t ov[SEMVER_RANGE_GROUPS * 2];
	const char *s;
	for (size_t i = 0; i < sizeof valid / sizeof *valid; i++)
		ck_assert_msg(semver_match_valid(valid[i].s, strlen(valid[i].s)) == valid[i].valid, "%s", valid[i].s);
	/* one: the operator is the longest that a version follows */
	s = " =< v1.2-rc.1 ";
	ck_assert(semver_match_one(s, strlen(s), ov));
	ck_assert_uint_eq(ov[2], 1); ck_assert_uint_eq(ov[3], 3);   /* "=<" */
	ck_assert_uint_eq(ov[4], 4); ck_assert_uint_eq(ov[5], 13);  /* "v1.2-rc.1" */
	ck_assert_uint_eq(ov[6], 5); ck_assert_uint_eq(ov[7], 6);   /* "1" */
	ck_assert_uint_eq(ov[8], 6); ck_assert_uint_eq(ov[9], 8);   /* ".2" */
	ck_assert_uint_eq(ov[10], SIZE_MAX);                        /* no patch */
	ck_assert_uint_eq(ov[12], 8); ck_assert_uint_eq(ov[13], 13); /* "-rc.1" */
	ck_assert(!semver_match_one("=>", 2, ov));
	/* find: leftmost, the empty operator swallowing the blanks before */
	s = ">=1.0, 2.x";
	ck_assert(semver_match_find(s, strlen(s), 0, ov));
	ck_assert_uint_eq(ov[0], 0); ck_assert_uint_eq(ov[1], 5); ck_assert_uint_eq(ov[3], 2);
	ck_assert(semver_match_find(s, strlen(s), 5, ov));
	ck_assert_uint_eq(ov[0], 6); ck_assert_uint_eq(ov[1], 10); ck_assert_uint_eq(ov[2], 6); ck_assert_uint_eq(ov[3], 6);
	/* range: from the first blank before the first version */
	s = ">= 1.0 - 2.0-rc ";
	ck_assert(semver_match_range(s, strlen(s), 0, ov));
	ck_assert_uint_eq(ov[0], 2); ck_assert_uint_eq(ov[1], 16);
	ck_assert_uint_eq(ov[2], 3); ck_assert_uint_eq(ov[3], 6);
	ck_assert_uint_eq(ov[22], 9); ck_assert_uint_eq(ov[23], 15);
	ck_assert(!semver_match_range("1.0 -2.0", 8, 0, ov));
}
END_TEST

START_TEST(test_satisfies_table)
{
	char em[256];
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		for (size_t j = 0; j < sizeof vers / sizeof vers[0]; j++) {
			semver v;
			ck_assert_int_eq(semver_parse(vers[j], strlen(vers[j]), &v, em, sizeof em), 0);
			int want = table[i].want[j] == '1';
			ck_assert_msg(semver_satisfies(table[i].constraint, vers[j]) == want, "%s vs %s: want %d",
				      table[i].constraint, vers[j], want);
			int rc = semver_constraint_check(table[i].constraint, strlen(table[i].constraint), &v, em,
							 sizeof em);
			ck_assert_int_eq(rc, table[i].want[j] == 'E' ? -1 : want);
		}
	}
	/* more pairs checked with helm's semverCompare (a leading "v" on the
	 * version is fine; "V" on a constraint is not, as with kubeVersion) */
	ck_assert(semver_satisfies(">= 1.22.0-0", "v1.31.0"));
	ck_assert(!semver_satisfies("^1.25.0-0", "v2.0.0"));
	ck_assert(!semver_satisfies("V1.2.3", "v1.2.3"));
	ck_assert(!semver_satisfies(">= 1.22.0-0", "v1.21.0"));
	ck_assert(semver_satisfies("^1.25.0-0", "v1.31.0"));
	ck_assert(semver_satisfies("2.x.x", "2.31.10"));
	ck_assert(!semver_satisfies("0.12.*", "0.13.0"));
	ck_assert(!semver_satisfies("v0.6.0", "0.1.0"));
	ck_assert(semver_satisfies("~1.2.3", "1.2.9"));
	ck_assert(!semver_satisfies("~1.2.3", "1.3.0"));
	ck_assert(semver_satisfies("1.0 - 1.4", "1.3.0"));
	ck_assert(!semver_satisfies(NULL, "1.0.0"));
	ck_assert(!semver_satisfies(">=1", NULL));
	ck_assert(!semver_satisfies(">=1", "not-a-version"));
}
END_TEST

START_TEST(test_constraint_errors)
{
	semver v;
	char em[256];
	ck_assert_int_eq(semver_parse("1.0.0", 5, &v, em, sizeof em), 0);
	ck_assert_int_eq(semver_constraint_check("V1.2.3", 6, &v, em, sizeof em), -1);
	ck_assert_str_eq(em, "improper constraint: V1.2.3");
	ck_assert_int_eq(semver_constraint_check("", 0, &v, em, sizeof em), -1);
	ck_assert_str_eq(em, "improper constraint: ");
	ck_assert_int_eq(semver_constraint_check(">=1.2.3.4", 9, &v, em, sizeof em), -1);
	ck_assert_str_eq(em, "improper constraint: >=1.2.3.4");
	/* a long constraint is refused, not matched */
	bh_buf b = BH_BUF_INIT;
	for (int i = 0; i < 2000; i++)
		bh_buf_puts(&b, ">=1.0.0 ");
	ck_assert_int_eq(semver_constraint_check(bh_buf_str(&b), b.len, &v, em, sizeof em), -1);
	bh_buf_free(&b);
}
END_TEST

START_TEST(test_parse)
{
	static const struct {
		const char *in, *want; /* String(), or "ERR:" and Go's error text */
	} cases[] = {
		{"v1.2", "1.2.0"},
		{"1", "1.0.0"},
		{"01.2.3", "1.2.3"},
		{"1.2.3-rc.1+b.2", "1.2.3-rc.1+b.2"},
		{"1.2.3-0a", "1.2.3-0a"},
		{"v1.31.0-gke.100", "1.31.0-gke.100"},
		{"1.2.3-01", "ERR:version segment starts with 0"},
		{"", "ERR:invalid semantic version"},
		{"1.2.3.4", "ERR:invalid semantic version"},
		{"1.0.0-beta..1", "ERR:invalid semantic version"},
		{"1.2.3+meta$", "ERR:invalid semantic version"},
		{"V1.2.3", "ERR:invalid semantic version"},
		{"99999999999999999999.0.0", "ERR:error parsing version segment: strconv.ParseUint: parsing "
					     "\"99999999999999999999\": value out of range"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		semver v;
		char em[256];
		bh_buf got = BH_BUF_INIT;
		if (semver_parse(cases[i].in, strlen(cases[i].in), &v, em, sizeof em))
			bh_buf_printf(&got, "ERR:%s", em);
		else
			semver_format(&v, &got);
		ck_assert_msg(!strcmp(bh_buf_str(&got), cases[i].want), "%s: got %s want %s", cases[i].in,
			      bh_buf_str(&got), cases[i].want);
		if (strncmp(cases[i].want, "ERR:", 4))
			ck_assert_str_eq(v.original, cases[i].in);
		bh_buf_free(&got);
	}
}
END_TEST

START_TEST(test_compare)
{
	/* semver.org's precedence example, then build metadata ignored */
	static const char *const order[] = {"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta",
					    "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0",
					    "2.0.0"};
	size_t n = sizeof order / sizeof order[0];
	semver a, b;
	char em[256];
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(semver_parse(order[i], strlen(order[i]), &a, em, sizeof em), 0);
		for (size_t j = 0; j < n; j++) {
			ck_assert_int_eq(semver_parse(order[j], strlen(order[j]), &b, em, sizeof em), 0);
			ck_assert_int_eq(semver_compare(&a, &b), i < j ? -1 : i > j ? 1 : 0);
		}
	}
	ck_assert_int_eq(semver_parse("1.0.0+x", 7, &a, em, sizeof em), 0);
	ck_assert_int_eq(semver_parse("1.0.0+y", 7, &b, em, sizeof em), 0);
	ck_assert_int_eq(semver_compare(&a, &b), 0);
	ck_assert_ptr_null(semver_check_prerelease("rc.1"));
	ck_assert_str_eq(semver_check_prerelease("01"), "version segment starts with 0");
	ck_assert_str_eq(semver_check_metadata("a+b"), "invalid metadata string");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("semver");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_satisfies_table);
	tcase_add_test(tc, test_constraint_errors);
	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_compare);
	tcase_add_test(tc, test_grammar);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
