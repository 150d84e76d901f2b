/* tests/unit/test_lib.c — unit tests for lib/ (error, buf, gostrconv). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/error.h"
#include "lib/gostrconv.h"
#include "lib/json_pool.h"
#include "lib/json_skim.h"
#include "tests/unit/go_print_helm.h"
#include "tests/unit/unit_util.h"

START_TEST(test_error_prefix)
{
	bh_error e;
	ck_assert_int_eq(bh_error_set(&e, BH_EINVAL, "bad %s", "thing"), BH_EINVAL);
	bh_error_prefix(&e, "loading %s", "Chart.yaml");
	ck_assert_str_eq(e.msg, "loading Chart.yaml: bad thing");
	ck_assert_str_eq(bh_code_name(e.code), "EINVAL");
}
END_TEST

START_TEST(test_buf)
{
	bh_buf b = BH_BUF_INIT;
	ck_assert_str_eq(bh_buf_str(&b), "");
	for (int i = 0; i < 1000; i++)
		bh_buf_printf(&b, "%d,", i);
	ck_assert(bh_buf_ok(&b));
	ck_assert(strncmp(b.data, "0,1,2,", 6) == 0);
	ck_assert_uint_eq(b.len, strlen(b.data));
	char *s = bh_buf_detach(&b);
	ck_assert_ptr_null(b.data);
	free(s);
	/* bh_buf_put's inline path at the edge of the room: a put that fills
	 * the buffer to its NUL stays in it, one byte more grows it */
	ck_assert_int_eq(bh_buf_grow(&b, 10), 0);
	ck_assert_str_eq(b.data, ""); /* grown, nothing put: still a string */
	size_t cap = b.cap;
	char *data = b.data;
	char fill[256];
	memset(fill, 'x', sizeof fill);
	bh_buf_put(&b, fill, cap - 1);
	ck_assert_ptr_eq(b.data, data);
	ck_assert_uint_eq(b.cap, cap);
	ck_assert_uint_eq(b.len, cap - 1);
	ck_assert_int_eq(b.data[cap - 1], 0);
	bh_buf_put(&b, NULL, 0);
	bh_buf_puts(&b, "y");
	ck_assert_uint_gt(b.cap, cap);
	ck_assert_uint_eq(b.len, cap);
	ck_assert_uint_eq(strlen(b.data), cap);
	ck_assert_int_eq(b.data[cap - 1], 'y');
	bh_buf_putc(&b, 'z');
	ck_assert_str_eq(b.data + cap - 1, "yz");
	bh_buf_free(&b);
}
END_TEST

/* Expected strings are what Go's fmt.Sprint(float64) prints. */
/* json_skim_find + json_skim_cut_found: the text json_skim_cut of each
 * path in turn leaves, from one scan; in path order */
static const char *cuts(const char *text, const char *const *dotted, int *ncut)
{
	static char out[256];
	json_skim_paths ps = {0};
	json_skim_found f;
	size_t n = strlen(text);
	for (; *dotted; dotted++)
		ck_assert_int_ge(json_skim_paths_add(&ps, NULL, 0, *dotted), 0);
	json_skim_find(text, n, &ps, &f);
	out[json_skim_cut_found(text, n, &f, ~0u, out, ncut)] = '\0';
	return out;
}

START_TEST(test_json_skim_cuts)
{
	json_skim_paths ps = {0};
	int n;
	/* two neighbours sharing a comma: each cut as the text left it */
	ck_assert_str_eq(cuts("{\"a\":1,\"b\":2,\"c\":3}", (const char *[]){"a", "b", NULL}, &n), "{\"c\":3}");
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(cuts("{\"a\":1,\"b\":2,\"c\":3}", (const char *[]){"c", "b", NULL}, &n), "{\"a\":1}");
	ck_assert_str_eq(cuts("{\"a\":1,\"b\":2}", (const char *[]){"a", "b", NULL}, &n), "{}");
	/* nested: the inner one first, then the outer; the outer first takes the inner */
	ck_assert_str_eq(cuts("{\"m\":{\"x\":1,\"y\":[2]},\"z\":0}", (const char *[]){"m.y", "m", NULL}, &n), "{\"z\":0}");
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(cuts("{\"m\":{\"x\":1,\"y\":[2]},\"z\":0}", (const char *[]){"m", "m.y", NULL}, &n), "{\"z\":0}");
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(cuts("{\"m\":{\"x\":1,\"y\":[2]},\"z\":0}", (const char *[]){"m.x", "z", NULL}, &n),
			 "{\"m\":{\"y\":[2]}}");
	/* named twice: not cut; not strict: not cut; the others are */
	ck_assert_str_eq(cuts("{\"a\":1,\"a\":2,\"b\":3,\"c\":4}", (const char *[]){"a", "c", NULL}, &n),
			 "{\"a\":1,\"a\":2,\"b\":3}");
	ck_assert_str_eq(cuts("{\"a\":01,\"b\":3}", (const char *[]){"a", "b", NULL}, &n), "{\"a\":01}");
	/* text the scan cannot follow: nothing cut */
	ck_assert_str_eq(cuts("{\"a\":1,\"b\":\"", (const char *[]){"a", NULL}, &n), "{\"a\":1,\"b\":\"");
	ck_assert_int_eq(n, 0);
	/* paths that do not fit */
	ck_assert_int_eq(json_skim_paths_add(&ps, NULL, 0, "a..b"), -1);
	ck_assert_int_eq(json_skim_paths_add(&ps, NULL, 0, ""), -1);
	ck_assert_int_eq(json_skim_paths_add(&ps, NULL, 0, "a.b.c.d.e.f.g.h.i.j"), -1);
	ck_assert_int_eq(json_skim_paths_add(&ps, (const char *[]){"o"}, 1, "a.b.c.d.e.f.g.h"), 0);
	ck_assert_int_eq(ps.n, 1);
	for (int i = 1; i < JSON_SKIM_PATHS; i++)
		ck_assert_int_eq(json_skim_paths_add(&ps, NULL, 0, "x"), i);
	ck_assert_int_eq(json_skim_paths_add(&ps, NULL, 0, "x"), -1);
}
END_TEST

/* json_skim_value on strings: a byte that stops the scan at each place of
 * strings long and short (the scan goes a word at a time, then by byte) */
START_TEST(test_json_skim_strings)
{
	char s[64];
	for (int n = 0; n <= 40; n++) {
		for (int k = 0; k <= n; k++) {
			/* what sits at k: nothing, an escaped quote, a control byte,
			 * a non-ASCII byte, a bad escape, the quote (cut short) */
			for (int what = 0; what < 6; what++) {
				size_t len = 0, whole;
				if (k == n && what >= 1 && what <= 4)
					continue; /* at k == n only the quote (what 5) goes */
				int strict_ok = what < 2 || what == 5;
				s[len++] = '"';
				for (int i = 0; i < n; i++) {
					if (i == k && what == 1)
						s[len++] = '\\', s[len++] = '"';
					else if (i == k && what == 2)
						s[len++] = 0x01;
					else if (i == k && what == 3)
						s[len++] = (char)0xc3;
					else if (i == k && what == 4)
						s[len++] = '\\', s[len++] = 'x';
					else
						s[len++] = (char)('a' + i % 26);
				}
				s[len++] = '"';
				whole = len;
				if (what == 5) { /* a quote at k ends it there: the rest is after it */
					s[1 + k] = '"';
					whole = (size_t)k + 2;
				}
				s[len++] = ' ';
				const char *e = s + len;
				const char *st = json_skim_value(s, e, 0, JSON_SKIM_STRICT);
				const char *lx = json_skim_value(s, e, 0, 0);
				ck_assert_msg(strict_ok ? st == s + whole : st == NULL, "strict n=%d k=%d what=%d", n, k, what);
				ck_assert_msg(lx == s + whole, "lax n=%d k=%d what=%d", n, k, what);
				/* cut short before its closing quote: no end */
				ck_assert_ptr_null(json_skim_value(s, s + whole - 1, 0, 0));
				ck_assert_ptr_null(json_skim_value(s, s + whole - 1, 0, JSON_SKIM_STRICT));
			}
		}
	}
}
END_TEST

START_TEST(test_go_float_g)
{
	static const struct { double v; const char *want; } cases[] = {
		{0, "0"}, {1, "1"}, {3.0, "3"}, {-0.0, "-0"}, {100000, "100000"},
		{1000000, "1e+06"}, {1234567, "1.234567e+06"}, {0.0001, "0.0001"},
		{0.00001, "1e-05"}, {12345678901234567890.0, "1.2345678901234567e+19"},
		{1.5, "1.5"}, {0.1, "0.1"}, {123456789, "1.23456789e+08"},
		{2.5e-300, "2.5e-300"}, {1e21, "1e+21"},
	};
	char buf[64];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		go_format_float(buf, sizeof buf, cases[i].v, 'g', -1);
		ck_assert_str_eq(buf, cases[i].want);
	}
	go_format_float(buf, sizeof buf, 1e21, 'f', -1);
	ck_assert_str_eq(buf, "1000000000000000000000");
	go_format_float(buf, sizeof buf, 0.000001, 'f', -1);
	ck_assert_str_eq(buf, "0.000001");
	go_format_float(buf, sizeof buf, 1.0 / 0.0, 'g', -1);
	ck_assert_str_eq(buf, "+Inf");
}
END_TEST

/* go_is_print against Go itself, on every code point: helm_escaped holds
 * the ones Helm's printf "%q" escaped (tests/unit/gen_go_print_ranges.py);
 * the surrogates, which no UTF-8 string can carry, are category Cs and so
 * not printable, and the generator folds them into their escaped
 * neighbours. */
START_TEST(test_go_is_print_helm)
{
	size_t n = sizeof helm_escaped / sizeof helm_escaped[0], k = 0;
	for (int32_t r = 0; r <= 0x10FFFF; r++) {
		while (k < n && helm_escaped[k][1] < (unsigned)r)
			k++;
		int escaped = k < n && helm_escaped[k][0] <= (unsigned)r;
		if (go_is_print(r) == escaped) /* checked cheaply: 1.1M code points under ASan */
			ck_abort_msg("U+%04X: go_is_print %d, helm %s", (unsigned)r, go_is_print(r),
				     escaped ? "escaped it" : "printed it");
	}
	ck_assert_uint_gt(n, 600); /* the facts were really taken */
	ck_assert_int_eq(go_is_print(-1), 0);
	ck_assert_int_eq(go_is_print(0x110000), 0);
	ck_assert_int_eq(go_is_print(INT32_MAX), 0);
}
END_TEST

/* go_quote_rune: strconv's escapes, by kind; the wanted text is helm
 * v4.1.4's printf "%q" and "%+q" of the same runes */
START_TEST(test_go_quote_rune)
{
	static const int32_t rs[] = {'a', '"', '\\', '\'', '\n', 0x01, 0x7F, 0xA0, 0xE9, 0x2028, 0x1E4D0, 0xE0001};
	bh_buf b = BH_BUF_INIT;
	for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++)
		go_quote_rune(&b, rs[i], '"', 0);
	ck_assert_str_eq(bh_buf_str(&b), "a\\\"\\\\'\\n\\x01\\x7f\\u00a0\xc3\xa9\\u2028\xf0\x9e\x93\x90\\U000e0001");
	bh_buf_reset(&b);
	for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++)
		go_quote_rune(&b, rs[i], '"', 1);
	ck_assert_str_eq(bh_buf_str(&b), "a\\\"\\\\'\\n\\x01\\x7f\\u00a0\\u00e9\\u2028\\U0001e4d0\\U000e0001");
	bh_buf_free(&b);
}
END_TEST

/* lib/json_pool: a freed block is the next one of its size class; classes
 * and large blocks do not overlap; jansson works through the pools, and
 * json_dumps_dup's text is malloc's */
START_TEST(test_json_pool)
{
	char *a = json_pool_alloc(10), *b, *c, *big;
	ck_assert_ptr_nonnull(a);
	memset(a, 'a', 10);
	json_pool_free(a);
	b = json_pool_alloc(20); /* 20 + header: the same 32-byte class */
	ck_assert_ptr_eq(a, b);
	c = json_pool_alloc(100);
	ck_assert_ptr_nonnull(c);
	ck_assert(c >= b + 20 || c + 100 <= b);
	big = json_pool_alloc(4096);
	ck_assert_ptr_nonnull(big);
	memset(big, 'x', 4096);
	memset(c, 'c', 100);
	memset(b, 'b', 20);
	ck_assert_int_eq(big[4095], 'x');
	ck_assert_int_eq(c[99], 'c');
	json_pool_free(big);
	json_pool_free(c);
	json_pool_free(b);
	ck_assert_ptr_eq(json_pool_alloc(100), c);
	json_pool_free(c);

	json_malloc_t m0;
	json_free_t f0;
	json_get_alloc_funcs(&m0, &f0);
	json_pool_install();
	json_t *o = json_object();
	char key[32];
	for (int i = 0; i < 300; i++) {
		snprintf(key, sizeof key, "key-%d", i);
		json_object_set_new(o, key, i % 2 ? json_string(key) : json_integer(i));
	}
	for (int i = 0; i < 300; i += 3) {
		snprintf(key, sizeof key, "key-%d", i);
		json_object_del(o, key);
	}
	ck_assert_uint_eq(json_object_size(o), 200);
	ck_assert_str_eq(json_string_value(json_object_get(o, "key-299")), "key-299");
	ck_assert_int_eq(json_integer_value(json_object_get(o, "key-298")), 298);
	json_t *one = json_pack("{s:[i,s]}", "k", 1, "two");
	char *text = json_dumps_dup(one, JSON_COMPACT);
	ck_assert_str_eq(text, "{\"k\":[1,\"two\"]}");
	free(text);
	json_decref(one);
	json_decref(o);
	json_set_alloc_funcs(m0, f0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lib");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_error_prefix);
	tcase_add_test(tc, test_buf);
	tcase_add_test(tc, test_go_float_g);
	tcase_add_test(tc, test_go_is_print_helm);
	tcase_add_test(tc, test_go_quote_rune);
	tcase_add_test(tc, test_json_skim_cuts);
	tcase_add_test(tc, test_json_skim_strings);
	tcase_add_test(tc, test_json_pool);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
