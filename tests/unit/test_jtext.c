/* tests/unit/test_jtext.c — jtext_new writes what json_dumps(JSON_COMPACT)
 * writes: fixed cases (escapes, UTF-8, integers' extremes, reals, key
 * order, deep nesting, strings json_dumps refuses) and random trees. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/jtext.h"
#include "tests/unit/unit_util.h"

/* jtext_new(v) and json_dumps(v, JSON_COMPACT) agree (both NULL, or the
 * same text); takes v */
static void same(json_t *v)
{
	char *a = jtext_new(v), *b = json_dumps(v, JSON_COMPACT);
	if (!b)
		ck_assert_ptr_null(a);
	else
		ck_assert_msg(a && !strcmp(a, b), "jtext %s\njansson %s", a ? a : "(null)", b);
	free(a);
	free(b);
	json_decref(v);
}

START_TEST(test_fixed)
{
	char ctl[40];
	json_t *deep = json_array(), *o;
	for (int i = 0; i < 32; i++)
		ctl[i] = (char)(i + 1);
	memcpy(ctl + 31, "\"\\/\x7f", 5);
	same(json_pack("{s:s,s:s,s:I,s:I,s:I,s:b,s:b,s:n,s:{},s:[]}", "b", "x", "a", "héllo – 𝄞", "min",
		       (json_int_t)(-9223372036854775807LL - 1), "max", (json_int_t)9223372036854775807LL, "zero",
		       (json_int_t)0, "t", 1, "f", 0, "n", "eo", "ea"));
	same(json_pack("[s,s#,s]", ctl, "a\0b", (int)3, "\xe2\x80\xa8\xef\xbf\xbf\xf4\x8f\xbf\xbf"));
	same(json_pack("{s:f,s:f,s:[f,f]}", "r", 1.0, "s", 1e300, "l", 0.5, -2.25e-7)); /* reals: jansson's digits */
	o = json_object(); /* insertion order, not sorted */
	json_object_set_new(o, "zeta", json_integer(1));
	json_object_set_new(o, "alpha", json_integer(-12));
	json_object_set_new(o, "k\"\n", json_string("v"));
	json_object_set_new(o, "mid", json_integer(3));
	json_object_del(o, "alpha");
	json_object_set_new(o, "alpha", json_integer(4));
	same(o);
	/* strings json_dumps refuses: a stray continuation byte, an overlong
	 * form, a surrogate, above U+10FFFF, a cut sequence */
	same(json_pack("[o]", json_stringn_nocheck("a\x80", 2)));
	same(json_pack("[o]", json_stringn_nocheck("\xc0\xaf", 2)));
	same(json_pack("[o]", json_stringn_nocheck("\xe0\x9f\xbf", 3)));
	same(json_pack("[o]", json_stringn_nocheck("\xed\xa0\x80", 3)));
	same(json_pack("[o]", json_stringn_nocheck("\xf4\x90\x80\x80", 4)));
	same(json_pack("[o]", json_stringn_nocheck("\xe2\x82", 2)));
	o = deep; /* deeper than jtext writes itself */
	for (int d = 0; d < JTEXT_MAX_DEPTH + 5; d++) {
		json_t *n = json_array();
		json_array_append_new(o, n);
		o = n;
	}
	same(deep);
	ck_assert_ptr_null(jtext_new(NULL));
	{
		json_t *s = json_string("x");
		ck_assert_ptr_null(jtext_new(s)); /* not a container: as json_dumps without JSON_ENCODE_ANY */
		json_decref(s);
	}
}
END_TEST

static unsigned long long seed = 0x9e3779b97f4a7c15ULL;
static unsigned rnd(unsigned n)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (unsigned)(seed % n);
}

static json_t *rnd_string(void)
{
	static const char *const pieces[] = {"a", "Z", "\"", "\\", "\n", "\x01", "\x1f", " ", "é", "€", "𝄞", "\x7f",
					     "/", "<", "\t", "status", "\xe2\x80\xa8"};
	char s[64];
	size_t n = 0;
	for (unsigned k = rnd(6); k; k--) {
		const char *p = pieces[rnd(sizeof pieces / sizeof *pieces)];
		memcpy(s + n, p, strlen(p));
		n += strlen(p);
	}
	return json_stringn(s, n);
}

static json_t *rnd_tree(int depth)
{
	unsigned k = depth > 4 ? rnd(5) : rnd(7);
	switch (k) {
	case 0: return rnd_string();
	case 1: return json_integer((json_int_t)rnd(2000000) - 1000000);
	case 2: return rnd(2) ? json_true() : json_false();
	case 3: return json_null();
	case 4: return rnd(8) ? rnd_string() : json_real((double)rnd(1000) / 7.0);
	case 5: {
		json_t *o = json_object();
		for (unsigned n = rnd(5); n; n--) {
			json_t *key = rnd_string();
			json_object_set_new(o, json_string_value(key), rnd_tree(depth + 1));
			json_decref(key);
		}
		return o;
	}
	default: {
		json_t *a = json_array();
		for (unsigned n = rnd(5); n; n--)
			json_array_append_new(a, rnd_tree(depth + 1));
		return a;
	}
	}
}

START_TEST(test_random_trees)
{
	for (int i = 0; i < 3000; i++) {
		json_t *t = rnd_tree(0);
		if (json_is_object(t) || json_is_array(t))
			same(t);
		else
			json_decref(t);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jtext");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_fixed);
	tcase_add_test(tc, test_random_trees);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
