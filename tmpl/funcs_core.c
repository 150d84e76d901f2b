/* tmpl/funcs_core.c — the two Sprig functions the template language
 * itself leans on (`default`, `int`); the Sprig families may override
 * them (later families in funcs_registry.c win). */
#include "tmpl/funcs.h"

/* Sprig: default(d interface{}, given ...interface{}) */
static int fn_default(tmpl_call *c)
{
	if (c->argc < 2 || tmpl_value_empty(&c->argv[1])) {
		c->result = c->argv[0];
		return 0;
	}
	c->result = c->argv[1];
	return 0;
}

/* Sprig: int(v) = cast.ToInt(v) */
static int fn_int(tmpl_call *c)
{
	int64_t v;
	tmpl_to_int64(&c->argv[0], &v);
	c->result = tmpl_int(v);
	return 0;
}

const tmpl_func_def tmpl_funcs_core[] = {
	{"default", fn_default, "aa*", NULL},
	{"int", fn_int, "a", NULL},
	{NULL, NULL, NULL, NULL},
};
