/* tmpl/funcs_conv.c — Sprig's type conversion functions: atoi (strconv),
 * int / int64 / float64 (spf13/cast) and toDecimal (octal text). */
#include <string.h>

#include "tmpl/funcs.h"
#include "tmpl/gofmt.h"
#include "tmpl/sprig_util.h"
#include "tmpl/strconv.h"

/* strconv.Atoi: decimal with optional sign; out of range clamps (Sprig
 * ignores the error), anything else is 0. */
static int fn_atoi(tmpl_call *c)
{
	int64_t v;
	int r = go_parse_int(c->argv[0].u.s.ptr, c->argv[0].u.s.len, 10, &v);
	c->result = tmpl_int(r == -1 ? 0 : v);
	return 0;
}

static int fn_int(tmpl_call *c)
{
	int64_t v;
	tmpl_to_int64(&c->argv[0], &v);
	c->result = tmpl_int(v);
	return 0;
}

static int fn_int64(tmpl_call *c)
{
	int64_t v;
	tmpl_to_int64(&c->argv[0], &v);
	c->result = tmpl_int64(v);
	return 0;
}

static int fn_float64(tmpl_call *c)
{
	double v;
	tmpl_to_float64(&c->argv[0], &v);
	c->result = tmpl_float(v);
	return 0;
}

/* strconv.ParseInt(fmt.Sprint(v), 8, 64), 0 on any error */
static int fn_to_decimal(tmpl_call *c)
{
	bh_buf b = BH_BUF_INIT;
	int64_t v = 0;
	gofmt_value(&b, &c->argv[0]);
	if (!bh_buf_ok(&b)) {
		bh_buf_free(&b);
		return sprig_oom(c);
	}
	if (go_parse_int(b.data ? b.data : "", b.len, 8, &v) != 0)
		v = 0;
	bh_buf_free(&b);
	c->result = tmpl_int64(v);
	return 0;
}

const tmpl_func_def tmpl_funcs_conv[] = {
	{"atoi", fn_atoi, "s", NULL},
	{"int", fn_int, "a", NULL},
	{"int64", fn_int64, "a", NULL},
	{"float64", fn_float64, "a", NULL},
	{"toDecimal", fn_to_decimal, "a", NULL},
	{NULL, NULL, NULL, NULL},
};
