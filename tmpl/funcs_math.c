/* tmpl/funcs_math.c — Sprig's integer and float math (numeric.go and
 * functions.go): add/add1/sub/mul/div/mod/max/min (int64 via cast),
 * until/untilStep/seq, randInt, addf/add1f/subf/mulf/divf (exact decimal
 * arithmetic as shopspring/decimal does it), maxf/minf/floor/ceil/round. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>

#include "tmpl/funcs.h"
#include "tmpl/sprig_util.h"

/* Largest list until/untilStep/seq will build (Go would try any size). */
#define MATH_MAX_ITEMS ((int64_t)1000 * 1000)

static int64_t i64(const tmpl_value *v)
{
	int64_t x;
	tmpl_to_int64(v, &x);
	return x;
}

static double f64(const tmpl_value *v)
{
	double x;
	tmpl_to_float64(v, &x);
	return x;
}

/* two's complement wrap-around as Go does */
static int64_t wrap_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static int64_t wrap_mul(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a * (uint64_t)b);
}

static int fn_add(tmpl_call *c)
{
	int64_t a = 0;
	for (int i = 0; i < c->argc; i++)
		a = wrap_add(a, i64(&c->argv[i]));
	c->result = tmpl_int64(a);
	return 0;
}

static int fn_add1(tmpl_call *c)
{
	c->result = tmpl_int64(wrap_add(i64(&c->argv[0]), 1));
	return 0;
}

static int fn_sub(tmpl_call *c)
{
	c->result = tmpl_int64((int64_t)((uint64_t)i64(&c->argv[0]) - (uint64_t)i64(&c->argv[1])));
	return 0;
}

static int fn_mul(tmpl_call *c)
{
	int64_t a = i64(&c->argv[0]);
	for (int i = 1; i < c->argc; i++)
		a = wrap_mul(a, i64(&c->argv[i]));
	c->result = tmpl_int64(a);
	return 0;
}

static int fn_div(tmpl_call *c)
{
	int64_t a = i64(&c->argv[0]), b = i64(&c->argv[1]);
	if (b == 0)
		return tmpl_call_errorf(c, "runtime error: integer divide by zero");
	c->result = tmpl_int64(b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b);
	return 0;
}

static int fn_mod(tmpl_call *c)
{
	int64_t a = i64(&c->argv[0]), b = i64(&c->argv[1]);
	if (b == 0)
		return tmpl_call_errorf(c, "runtime error: integer divide by zero");
	c->result = tmpl_int64(b == -1 ? 0 : a % b);
	return 0;
}

static int fn_max(tmpl_call *c)
{
	int64_t a = i64(&c->argv[0]);
	for (int i = 1; i < c->argc; i++) {
		int64_t b = i64(&c->argv[i]);
		if (b > a)
			a = b;
	}
	c->result = tmpl_int64(a);
	return 0;
}

static int fn_min(tmpl_call *c)
{
	int64_t a = i64(&c->argv[0]);
	for (int i = 1; i < c->argc; i++) {
		int64_t b = i64(&c->argv[i]);
		if (b < a)
			a = b;
	}
	c->result = tmpl_int64(a);
	return 0;
}

/* numeric.go untilStep into a []int list */
static int until_step(tmpl_call *c, int64_t start, int64_t stop, int64_t step, tmpl_list **out)
{
	tmpl_list *l = sprig_list(c, "[]int", 8);
	if (!l)
		return BH_ELIMIT;
	*out = l;
	if (stop < start) {
		if (step >= 0)
			return 0;
		for (int64_t i = start; i > stop;) {
			if ((int64_t)l->len >= MATH_MAX_ITEMS)
				goto toolong;
			if (tmpl_list_push(c->arena, l, tmpl_int(i)))
				return sprig_oom(c);
			if (i < INT64_MIN - step)
				break;
			i += step;
		}
		return 0;
	}
	if (step <= 0)
		return 0;
	for (int64_t i = start; i < stop;) {
		if ((int64_t)l->len >= MATH_MAX_ITEMS)
			goto toolong;
		if (tmpl_list_push(c->arena, l, tmpl_int(i)))
			return sprig_oom(c);
		if (i > INT64_MAX - step)
			break;
		i += step;
	}
	return 0;
toolong:
	bh_error_set(c->err, BH_ELIMIT, "%s: more than %lld items", c->name, (long long)MATH_MAX_ITEMS);
	return BH_ELIMIT;
}

static int fn_until(tmpl_call *c)
{
	int64_t n = c->argv[0].u.i;
	tmpl_list *l;
	int r = until_step(c, 0, n, n < 0 ? -1 : 1, &l);
	if (r)
		return r;
	c->result = tmpl_list_value(l);
	return 0;
}

static int fn_until_step(tmpl_call *c)
{
	tmpl_list *l;
	int r = until_step(c, c->argv[0].u.i, c->argv[1].u.i, c->argv[2].u.i, &l);
	if (r)
		return r;
	c->result = tmpl_list_value(l);
	return 0;
}

static int fn_seq(tmpl_call *c)
{
	int64_t start, end, step, inc = 1;
	tmpl_list *l = NULL;
	bh_buf b = BH_BUF_INIT;
	int r = 0;
	switch (c->argc) {
	case 1:
		start = 1;
		end = c->argv[0].u.i;
		if (end < start)
			inc = -1;
		r = until_step(c, start, wrap_add(end, inc), inc, &l);
		break;
	case 2:
		start = c->argv[0].u.i;
		end = c->argv[1].u.i;
		step = end < start ? -1 : 1;
		r = until_step(c, start, wrap_add(end, step), step, &l);
		break;
	case 3:
		start = c->argv[0].u.i;
		step = c->argv[1].u.i;
		end = c->argv[2].u.i;
		if (end < start) {
			inc = -1;
			if (step > 0)
				break;
		}
		r = until_step(c, start, wrap_add(end, inc), step, &l);
		break;
	default:
		break;
	}
	if (r)
		return r;
	for (size_t i = 0; l && i < l->len; i++)
		bh_buf_printf(&b, i ? " %lld" : "%lld", (long long)l->items[i].u.i);
	return sprig_ret_buf(c, &b);
}

static int fn_rand_int(tmpl_call *c)
{
	int64_t lo = c->argv[0].u.i, hi = c->argv[1].u.i;
	int64_t n = (int64_t)((uint64_t)hi - (uint64_t)lo);
	uint64_t k;
	if (n <= 0)
		return tmpl_call_errorf(c, "invalid argument to Intn");
	if (sprig_random_below((uint64_t)n, &k))
		return tmpl_call_errorf(c, "no random data available");
	c->result = tmpl_int(wrap_add((int64_t)k, lo));
	return 0;
}

/* ---- decimal arithmetic (shopspring/decimal) ---- */

typedef struct dec {
	BIGNUM *v;   /* coefficient */
	int exp;     /* value = v * 10^exp */
} dec;

/* decimal.NewFromFloat: the shortest decimal that reads back as f */
static int dec_from_float(tmpl_call *c, double f, dec *d)
{
	char buf[64], digits[40];
	int prec, exp10, n = 0;
	if (isnan(f) || isinf(f))
		return tmpl_call_errorf(c, "Cannot create a Decimal from %s",
					isnan(f) ? "NaN" : (f > 0 ? "+Inf" : "-Inf"));
	d->exp = 0;
	if (f == 0)
		return BN_zero(d->v), 0;
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*e", prec - 1, f);
		if (strtod(buf, NULL) == f)
			break;
	}
	/* buf = [-]D.DDDDe[+-]XX */
	const char *p = buf;
	if (*p == '-')
		digits[n++] = *p++;
	for (; *p && *p != 'e'; p++)
		if (*p != '.')
			digits[n++] = *p;
	digits[n] = '\0';
	exp10 = atoi(p + 1);
	if (!BN_dec2bn(&d->v, digits))
		return sprig_oom(c);
	d->exp = exp10 - (prec - 1);
	return 0;
}

static int pow10_bn(BIGNUM *r, int e, BN_CTX *ctx)
{
	BIGNUM *ten = BN_new();
	BIGNUM *ex = BN_new();
	int ok = ten && ex && BN_set_word(ten, 10) && BN_set_word(ex, (BN_ULONG)e) && BN_exp(r, ten, ex, ctx);
	BN_free(ten);
	BN_free(ex);
	return ok;
}

/* a.v scaled so that a.exp becomes e (e <= a.exp) */
static int dec_rescale(dec *a, int e, BN_CTX *ctx)
{
	if (a->exp == e)
		return 1;
	BIGNUM *p = BN_new();
	int ok = p && pow10_bn(p, a->exp - e, ctx) && BN_mul(a->v, a->v, p, ctx);
	BN_free(p);
	if (ok)
		a->exp = e;
	return ok;
}

enum dec_op { D_ADD, D_SUB, D_MUL, D_DIV };

#define DIV_PRECISION 16

static int dec_apply(tmpl_call *c, dec *a, dec *b, enum dec_op op, BN_CTX *ctx)
{
	int ok = 1;
	switch (op) {
	case D_ADD:
	case D_SUB: {
		int e = a->exp < b->exp ? a->exp : b->exp;
		ok = dec_rescale(a, e, ctx) && dec_rescale(b, e, ctx) &&
		     (op == D_ADD ? BN_add(a->v, a->v, b->v) : BN_sub(a->v, a->v, b->v));
		break;
	}
	case D_MUL:
		ok = BN_mul(a->v, a->v, b->v, ctx);
		a->exp += b->exp;
		break;
	case D_DIV: {
		/* DivRound(b, 16): quotient truncated at 10^-16, then rounded half
		 * away from zero on the remainder */
		if (BN_is_zero(b->v))
			return tmpl_call_errorf(c, "decimal division by 0");
		BIGNUM *num = BN_dup(a->v), *den = BN_dup(b->v), *q = BN_new(), *rem = BN_new(), *p = BN_new();
		int shift = a->exp - b->exp + DIV_PRECISION;
		ok = num && den && q && rem && p;
		if (ok && shift > 0)
			ok = pow10_bn(p, shift, ctx) && BN_mul(num, num, p, ctx);
		else if (ok && shift < 0)
			ok = pow10_bn(p, -shift, ctx) && BN_mul(den, den, p, ctx);
		if (ok)
			ok = BN_div(q, rem, num, den, ctx); /* truncates toward zero */
		if (ok && !BN_is_zero(rem)) {
			BN_set_negative(rem, 0);
			BN_set_negative(den, 0);
			ok = BN_lshift1(rem, rem);
			if (ok && BN_cmp(rem, den) >= 0) {
				int neg = BN_is_negative(a->v) != BN_is_negative(b->v);
				ok = neg ? BN_sub_word(q, 1) : BN_add_word(q, 1);
			}
		}
		if (ok) {
			ok = BN_copy(a->v, q) != NULL;
			a->exp = -DIV_PRECISION;
		}
		BN_free(num);
		BN_free(den);
		BN_free(q);
		BN_free(rem);
		BN_free(p);
		break;
	}
	}
	return ok ? 0 : sprig_oom(c);
}

/* Decimal.Float64(): nearest float64 of the exact value */
static int dec_to_float(tmpl_call *c, const dec *d, double *out)
{
	char *s = BN_bn2dec(d->v);
	if (!s)
		return sprig_oom(c);
	size_t n = strlen(s) + 32;
	char *t = malloc(n);
	if (!t) {
		OPENSSL_free(s);
		return sprig_oom(c);
	}
	snprintf(t, n, "%se%d", s, d->exp);
	*out = strtod(t, NULL);
	free(t);
	OPENSSL_free(s);
	return 0;
}

/* execDecimalOp(first, rest, op) */
static int decimal_op(tmpl_call *c, const tmpl_value *first, const tmpl_value *rest, int nrest,
		      double one, enum dec_op op)
{
	BN_CTX *ctx = BN_CTX_new();
	dec a = {BN_new(), 0}, b = {BN_new(), 0};
	double res = 0;
	int r = (!ctx || !a.v || !b.v) ? sprig_oom(c) : 0;
	if (!r)
		r = dec_from_float(c, first ? f64(first) : 0, &a);
	for (int i = 0; !r && i < (rest ? nrest : 1); i++) {
		r = dec_from_float(c, rest ? f64(&rest[i]) : one, &b);
		if (!r)
			r = dec_apply(c, &a, &b, op, ctx);
	}
	if (!r)
		r = dec_to_float(c, &a, &res);
	BN_free(a.v);
	BN_free(b.v);
	BN_CTX_free(ctx);
	if (r)
		return r;
	c->result = tmpl_float(res);
	return 0;
}

static int fn_addf(tmpl_call *c)
{
	return decimal_op(c, NULL, c->argv, c->argc, 0, D_ADD);
}

static int fn_add1f(tmpl_call *c)
{
	return decimal_op(c, &c->argv[0], NULL, 0, 1, D_ADD);
}

static int fn_subf(tmpl_call *c)
{
	return decimal_op(c, &c->argv[0], c->argv + 1, c->argc - 1, 0, D_SUB);
}

static int fn_mulf(tmpl_call *c)
{
	return decimal_op(c, &c->argv[0], c->argv + 1, c->argc - 1, 0, D_MUL);
}

static int fn_divf(tmpl_call *c)
{
	return decimal_op(c, &c->argv[0], c->argv + 1, c->argc - 1, 0, D_DIV);
}

/* Go's math.Max / math.Min */
static double go_max(double x, double y)
{
	if (isinf(x) && x > 0)
		return x;
	if (isinf(y) && y > 0)
		return y;
	if (isnan(x) || isnan(y))
		return NAN;
	if (x == 0 && x == y)
		return signbit(x) ? y : x;
	return x > y ? x : y;
}

static double go_min(double x, double y)
{
	if (isinf(x) && x < 0)
		return x;
	if (isinf(y) && y < 0)
		return y;
	if (isnan(x) || isnan(y))
		return NAN;
	if (x == 0 && x == y)
		return signbit(x) ? x : y;
	return x < y ? x : y;
}

static int fn_maxf(tmpl_call *c)
{
	double a = f64(&c->argv[0]);
	for (int i = 1; i < c->argc; i++)
		a = go_max(a, f64(&c->argv[i]));
	c->result = tmpl_float(a);
	return 0;
}

static int fn_minf(tmpl_call *c)
{
	double a = f64(&c->argv[0]);
	for (int i = 1; i < c->argc; i++)
		a = go_min(a, f64(&c->argv[i]));
	c->result = tmpl_float(a);
	return 0;
}

static int fn_floor(tmpl_call *c)
{
	c->result = tmpl_float(floor(f64(&c->argv[0])));
	return 0;
}

static int fn_ceil(tmpl_call *c)
{
	c->result = tmpl_float(ceil(f64(&c->argv[0])));
	return 0;
}

static int fn_round(tmpl_call *c)
{
	double round_on = c->argc > 2 ? c->argv[2].u.f : .5;
	double val = f64(&c->argv[0]);
	double p = pow(10, (double)c->argv[1].u.i);
	double digit = p * val, ip;
	double frac = modf(digit, &ip);
	double r = frac >= round_on ? ceil(digit) : floor(digit);
	c->result = tmpl_float(r / p);
	return 0;
}

const tmpl_func_def tmpl_funcs_math[] = {
	{"add", fn_add, "a*", NULL},
	{"add1", fn_add1, "a", NULL},
	{"sub", fn_sub, "aa", NULL},
	{"mul", fn_mul, "aa*", NULL},
	{"div", fn_div, "aa", NULL},
	{"mod", fn_mod, "aa", NULL},
	{"max", fn_max, "aa*", NULL},
	{"biggest", fn_max, "aa*", NULL},
	{"min", fn_min, "aa*", NULL},
	{"until", fn_until, "i", NULL},
	{"untilStep", fn_until_step, "iii", NULL},
	{"seq", fn_seq, "i*", NULL},
	{"randInt", fn_rand_int, "ii", NULL},
	{"addf", fn_addf, "a*", NULL},
	{"add1f", fn_add1f, "a", NULL},
	{"subf", fn_subf, "aa*", NULL},
	{"mulf", fn_mulf, "aa*", NULL},
	{"divf", fn_divf, "aa*", NULL},
	{"maxf", fn_maxf, "aa*", NULL},
	{"minf", fn_minf, "aa*", NULL},
	{"floor", fn_floor, "a", NULL},
	{"ceil", fn_ceil, "a", NULL},
	{"round", fn_round, "aif*", NULL},
	{NULL, NULL, NULL, NULL},
};
