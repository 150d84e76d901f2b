/* tests/unit/test_vec.c — lib/vec: VEC_RESERVE grows by doubling from the
 * first capacity, keeps what the array held, refuses a size that overflows
 * and leaves the array as it was then. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/error.h"
#include "lib/vec.h"
#include "tests/unit/unit_util.h"

START_TEST(test_vec_doubles)
{
	long *v = NULL;
	size_t n = 0, cap = 0;
	for (long i = 0; i < 1000; i++) {
		ck_assert_int_eq(VEC_RESERVE(v, cap, n + 1, 16), 0);
		v[n++] = i;
	}
	ck_assert_uint_eq(cap, 1024); /* 16, 32, ... 1024 */
	for (long i = 0; i < 1000; i++)
		ck_assert_int_eq(v[i], i);
	ck_assert_int_eq(VEC_RESERVE(v, cap, 1024, 16), 0); /* room: no change */
	ck_assert_uint_eq(cap, 1024);
	ck_assert_int_eq(VEC_RESERVE(v, cap, 5000, 16), 0); /* far past: doubles until it holds */
	ck_assert_uint_eq(cap, 8192);
	ck_assert_int_eq(v[999], 999);
	free(v);
}
END_TEST

START_TEST(test_vec_first)
{
	char *v = NULL;
	size_t cap = 0;
	ck_assert_int_eq(VEC_RESERVE(v, cap, 1, 0), 0); /* no first capacity: 1 */
	ck_assert_uint_eq(cap, 1);
	ck_assert_int_eq(VEC_RESERVE(v, cap, 3, 0), 0);
	ck_assert_uint_eq(cap, 4);
	free(v);
	v = NULL;
	cap = 0;
	ck_assert_int_eq(VEC_RESERVE(v, cap, 100, 64), 0);
	ck_assert_uint_eq(cap, 128);
	free(v);
}
END_TEST

START_TEST(test_vec_overflow)
{
	double *v = NULL;
	size_t cap = 0;
	ck_assert_int_eq(VEC_RESERVE(v, cap, 4, 4), 0);
	v[3] = 2.5;
	/* more elements than size_t bytes can count: refused, nothing lost */
	ck_assert_int_eq(VEC_RESERVE(v, cap, SIZE_MAX / 4, 4), BH_ENOMEM);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(cap, 4);
	ck_assert(v[3] == 2.5);
	free(v);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vec");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_vec_doubles);
	tcase_add_test(tc, test_vec_first);
	tcase_add_test(tc, test_vec_overflow);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
