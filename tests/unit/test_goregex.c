/* tests/unit/test_goregex.c — unit tests of Go's \p{...} classes and (?i)
 * case folding on PCRE2 (lib/goregex.c, lib/goregex_uni.c): goldens from
 * helm v4.1.4 (tests/unit/goregex_helm.h), PCRE2's own property classes
 * checked against the Unicode 15.0.0 tables for every code point (what
 * lib/goregex_uni.c relies on when it writes them), and pattern size. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/goregex.h"
#include "lib/goregex_uni.h"
#include "tests/unit/goregex_helm.h"

static size_t utf8(uint32_t c, char *b)
{
	if (c < 0x80)
		return b[0] = (char)c, 1;
	if (c < 0x800)
		return b[0] = (char)(0xC0 | c >> 6), b[1] = (char)(0x80 | (c & 0x3F)), 2;
	if (c < 0x10000)
		return b[0] = (char)(0xE0 | c >> 12), b[1] = (char)(0x80 | ((c >> 6) & 0x3F)),
		       b[2] = (char)(0x80 | (c & 0x3F)), 3;
	return b[0] = (char)(0xF0 | c >> 18), b[1] = (char)(0x80 | ((c >> 12) & 0x3F)),
	       b[2] = (char)(0x80 | ((c >> 6) & 0x3F)), b[3] = (char)(0x80 | (c & 0x3F)), 4;
}

START_TEST(test_helm_goldens)
{
	size_t nc = sizeof goregex_chars / sizeof goregex_chars[0];
	for (size_t k = 0; k < sizeof goregex_golden / sizeof goregex_golden[0]; k++) {
		const char *pat = goregex_golden[k][0], *want = goregex_golden[k][1];
		goregex re;
		bh_buf err = BH_BUF_INIT;
		ck_assert_msg(goregex_compile(&re, pat, strlen(pat), &err) == 0, "%s: %s", pat, bh_buf_str(&err));
		ck_assert_uint_eq(strlen(want), nc);
		for (size_t i = 0; i < nc; i++) {
			char b[4];
			bh_error e = {0};
			int m = goregex_match(&re, b, utf8(goregex_chars[i], b), &e);
			ck_assert_msg(m == want[i] - '0', "%s on U+%04X: %d, helm %c", pat, (unsigned)goregex_chars[i], m,
				      want[i]);
		}
		goregex_release(&re);
		bh_buf_free(&err);
	}
}
END_TEST

/* every code point but the surrogates, in order, as UTF-8 */
static char *all_runes(size_t *n, size_t **at)
{
	char *s = malloc(4 * 0x110000);
	size_t k = 0;
	*at = malloc(sizeof(size_t) * 0x110001);
	ck_assert(s && *at);
	for (uint32_t c = 0; c < 0x110000; c++) {
		(*at)[c] = k;
		if (c < 0xD800 || c > 0xDFFF)
			k += utf8(c, s + k);
	}
	(*at)[0x110000] = k;
	*n = k;
	return s;
}

/* the first code point whose UTF-8 starts at or after byte off */
static uint32_t rune_at(const size_t *at, size_t off)
{
	uint32_t lo = 0, hi = 0x110000;
	while (lo < hi) {
		uint32_t m = lo + (hi - lo) / 2;
		if (at[m] < off)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* PCRE2's class prop matches exactly q (surrogates aside) */
static void check_prop(const char *prop, const goregex_set *q, const char *s, size_t n, const size_t *at)
{
	char pat[64];
	int ec;
	PCRE2_SIZE eo, off = 0;
	goregex_set got = GOREGEX_SET_INIT, want = GOREGEX_SET_INIT, sur = GOREGEX_SET_INIT;
	snprintf(pat, sizeof pat, "[%s]+", prop);
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &ec, &eo, NULL);
	ck_assert_msg(re != NULL, "%s does not compile", pat);
	pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	while (off < n && pcre2_match(re, (PCRE2_SPTR)s, n, off, PCRE2_NO_UTF_CHECK, md, NULL) > 0) {
		PCRE2_SIZE *o = pcre2_get_ovector_pointer(md);
		uint32_t lo = rune_at(at, o[0]);
		if (lo >= 0xD800 && lo <= 0xDFFF)
			lo = 0xE000;
		goregex_set_add(&got, lo, rune_at(at, o[1]) - 1);
		off = o[1];
	}
	goregex_set_union(&want, q);
	goregex_set_add(&sur, 0xD800, 0xDFFF);
	goregex_set_minus(&want, &sur);
	goregex_set_minus(&got, &sur);
	for (size_t k = 0; k < want.n || k < got.n; k++)
		ck_assert_msg(k < want.n && k < got.n && want.r[k][0] == got.r[k][0] && want.r[k][1] == got.r[k][1],
			      "%s: Go's table (but for Unicode 15.0) has U+%04X..U+%04X, PCRE2's U+%04X..U+%04X", prop,
			      k < want.n ? (unsigned)want.r[k][0] : 0, k < want.n ? (unsigned)want.r[k][1] : 0,
			      k < got.n ? (unsigned)got.r[k][0] : 0, k < got.n ? (unsigned)got.r[k][1] : 0);
	goregex_set_free(&got);
	goregex_set_free(&want);
	goregex_set_free(&sur);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
}

/* lib/goregex_uni.c writes a name's PCRE2 class (PCRE2 10.42, Unicode 14)
 * where it matches Go's table but for code points new in 15.0: every
 * category and script checked for every code point */
START_TEST(test_pcre2_classes)
{
	size_t n, *at, checked = 0;
	char *s = all_runes(&n, &at);
	const char *extra[] = {"Any", "Assigned", "Lc", "C", "L", "M", "N", "P", "S", "Z", NULL};
	for (int pass = 0; pass < 3; pass++) {
		const char *const *names = pass == 0 ? extra : pass == 1 ? goregex_uni_cat_names : goregex_uni_script_names;
		for (size_t k = 0; names[k]; k++) {
			goregex_set t = GOREGEX_SET_INIT, q = GOREGEX_SET_INIT;
			char prop[GOREGEX_PROP_MAX];
			ck_assert(goregex_uni_table(names[k], 0, &t, prop, &q));
			goregex_set_clean(&q);
			if (prop[0]) {
				check_prop(prop, &q, s, n, at);
				checked++;
			}
			goregex_set_free(&t);
			goregex_set_free(&q);
		}
	}
	ck_assert_uint_ge(checked, 190);
	free(s);
	free(at);
}
END_TEST

static void compiles(const char *pat)
{
	goregex re;
	bh_buf err = BH_BUF_INIT;
	ck_assert_msg(goregex_compile(&re, pat, strlen(pat), &err) == 0, "%s: %s", pat, bh_buf_str(&err));
	goregex_release(&re);
	bh_buf_free(&err);
}

/* big classes stay within PCRE2's compiled size limit (helm compiles all) */
START_TEST(test_big_classes)
{
	char pat[4096] = "";
	for (int k = 0; k < 60; k++)
		strcat(pat, "(?i)\\p{Lu}[\\P{L}\\p{Cn}a]");
	compiles(pat);
	compiles("(?i)[\\P{L}\\p{Greek}a]{1000}");
	compiles("(?i)(?:\\p{Lu}\\P{Ll}){500}");
	compiles("\\p{Cn}{1000}\\P{Cn}{1000}");
}
END_TEST

START_TEST(test_errors)
{
	static const char *const bad[][2] = {
		{"\\p{Foo}", "error parsing regexp: invalid character class range: `\\p{Foo}`"},
		{"[a\\p{Nag_Mundari}]", "error parsing regexp: invalid character class range: `\\p{Nag_Mundari}`"},
		{"(?i)\\P{^Old_Italic}", "error parsing regexp: invalid character class range: `\\P{^Old_Italic}`"},
	};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		goregex re;
		bh_buf err = BH_BUF_INIT;
		ck_assert_int_eq(goregex_compile(&re, bad[k][0], strlen(bad[k][0]), &err), -1);
		ck_assert_str_eq(bh_buf_str(&err), bad[k][1]);
		bh_buf_free(&err);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("goregex");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_helm_goldens);
	tcase_add_test(tc, test_pcre2_classes);
	tcase_add_test(tc, test_big_classes);
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
