/* tmpl/funcs_reflect.c — Sprig's defaults, flow-control and reflection
 * functions (defaults.go, reflect.go): default, empty, coalesce, all, any,
 * ternary, typeOf, typeIs, typeIsLike, kindOf, kindIs, deepEqual,
 * deepCopy, mustDeepCopy. */
#include <string.h>

#include "tmpl/funcs.h"
#include "tmpl/sprig_util.h"

static int fn_default(tmpl_call *c)
{
	if (c->argc < 2 || tmpl_value_empty(&c->argv[1])) {
		c->result = c->argv[0];
		return 0;
	}
	c->result = c->argv[1];
	return 0;
}

static int fn_empty(tmpl_call *c)
{
	c->result = tmpl_bool(tmpl_value_empty(&c->argv[0]));
	return 0;
}

static int fn_coalesce(tmpl_call *c)
{
	for (int i = 0; i < c->argc; i++)
		if (!tmpl_value_empty(&c->argv[i])) {
			c->result = c->argv[i];
			return 0;
		}
	c->result = tmpl_nil();
	return 0;
}

static int fn_all(tmpl_call *c)
{
	for (int i = 0; i < c->argc; i++)
		if (tmpl_value_empty(&c->argv[i])) {
			c->result = tmpl_bool(0);
			return 0;
		}
	c->result = tmpl_bool(1);
	return 0;
}

static int fn_any(tmpl_call *c)
{
	for (int i = 0; i < c->argc; i++)
		if (!tmpl_value_empty(&c->argv[i])) {
			c->result = tmpl_bool(1);
			return 0;
		}
	c->result = tmpl_bool(0);
	return 0;
}

static int fn_ternary(tmpl_call *c)
{
	c->result = c->argv[2].u.b ? c->argv[0] : c->argv[1];
	return 0;
}

static int ret_str(tmpl_call *c, const char *s)
{
	c->result = tmpl_str_static(s, strlen(s));
	return 0;
}

static int fn_type_of(tmpl_call *c)
{
	return ret_str(c, tmpl_value_type_name(&c->argv[0]));
}

static int str_eq(const tmpl_value *v, const char *s, size_t n)
{
	return v->u.s.len == n && memcmp(v->u.s.ptr, s, n) == 0;
}

static int fn_type_is(tmpl_call *c)
{
	const char *t = tmpl_value_type_name(&c->argv[1]);
	c->result = tmpl_bool(str_eq(&c->argv[0], t, strlen(t)));
	return 0;
}

static int fn_type_is_like(tmpl_call *c)
{
	const char *t = tmpl_value_type_name(&c->argv[1]);
	int like = str_eq(&c->argv[0], t, strlen(t)) ||
		   (t[0] == '*' && str_eq(&c->argv[0], t + 1, strlen(t + 1)));
	c->result = tmpl_bool(like);
	return 0;
}

static int fn_kind_of(tmpl_call *c)
{
	return ret_str(c, tmpl_value_kind_name(&c->argv[0]));
}

static int fn_kind_is(tmpl_call *c)
{
	const char *k = tmpl_value_kind_name(&c->argv[1]);
	c->result = tmpl_bool(str_eq(&c->argv[0], k, strlen(k)));
	return 0;
}

static int fn_deep_equal(tmpl_call *c)
{
	c->result = tmpl_bool(sprig_deep_equal(&c->argv[0], &c->argv[1]));
	return 0;
}

/* copystructure.Copy */
static int fn_deep_copy(tmpl_call *c)
{
	if (tmpl_value_is_nil(&c->argv[0]))
		return tmpl_call_errorf(c, "reflect: call of reflect.Value.Type on zero Value");
	return sprig_deep_copy(c, &c->argv[0], &c->result);
}

const tmpl_func_def tmpl_funcs_reflect[] = {
	{"default", fn_default, "aa*", NULL},
	{"empty", fn_empty, "a", NULL},
	{"coalesce", fn_coalesce, "a*", NULL},
	{"all", fn_all, "a*", NULL},
	{"any", fn_any, "a*", NULL},
	{"ternary", fn_ternary, "aab", NULL},
	{"typeOf", fn_type_of, "a", NULL},
	{"typeIs", fn_type_is, "sa", NULL},
	{"typeIsLike", fn_type_is_like, "sa", NULL},
	{"kindOf", fn_kind_of, "a", NULL},
	{"kindIs", fn_kind_is, "sa", NULL},
	{"deepEqual", fn_deep_equal, "aa", NULL},
	{"deepCopy", fn_deep_copy, "a", NULL},
	{"mustDeepCopy", fn_deep_copy, "a", NULL},
	{NULL, NULL, NULL, NULL},
};
