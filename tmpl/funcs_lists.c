/* tmpl/funcs_lists.c — Sprig's list functions (list.go): list/tuple,
 * first/last/rest/initial, append/push/prepend, concat, reverse, uniq,
 * without, has, compact, mustSlice, chunk and their must* twins. Sprig's
 * non-must variants panic with the same message the must* ones return, so
 * both report "error calling NAME: MSG" alike. */
#include <math.h>
#include <string.h>

#include "tmpl/funcs.h"
#include "tmpl/sprig_util.h"

#define NIL_DEREF "runtime error: invalid memory address or nil pointer dereference"

/* Length of a slice-kind value (list or []byte); -1 when not a slice. */
static long slice_len(const tmpl_value *v)
{
	if (v->kind == TMPL_LIST)
		return (long)v->u.list->len;
	if (v->kind == TMPL_BYTES)
		return (long)v->u.s.len;
	return -1;
}

static tmpl_value slice_at(const tmpl_value *v, size_t i)
{
	tmpl_value r;
	if (v->kind == TMPL_BYTES)
		return tmpl_uint8((uint8_t)v->u.s.ptr[i]);
	r = v->u.list->items[i];
	r.iface = 0;
	return r;
}

/* Checks the list argument the way Sprig does (reflect.TypeOf(x).Kind()):
 * nil panics, non-slices give "FMT" with the kind. Returns the length or
 * a negative error code. */
static long need_slice(tmpl_call *c, const tmpl_value *v, const char *fmt)
{
	long n;
	if (tmpl_value_is_nil(v))
		return tmpl_call_errorf(c, NIL_DEREF);
	n = slice_len(v);
	if (n < 0)
		return tmpl_call_errorf(c, fmt, tmpl_value_kind_name(v));
	return n;
}

static tmpl_list *new_list(tmpl_call *c, size_t cap)
{
	return sprig_list(c, NULL, cap);
}

/* The common prologue of list functions over argv[0]: its length (Sprig's
 * error, formatted with fmt, when it is not a list) and an empty result list
 * with room for it. */
static int begin_list(tmpl_call *c, const char *fmt, long *n, tmpl_list **l)
{
	*n = need_slice(c, &c->argv[0], fmt);
	if (*n < 0)
		return (int)*n;
	*l = new_list(c, (size_t)*n);
	return *l ? 0 : BH_ELIMIT;
}

static int push(tmpl_call *c, tmpl_list *l, tmpl_value v)
{
	return tmpl_list_push(c->arena, l, v) ? sprig_oom(c) : 0;
}

static int ret_nil_list(tmpl_call *c)
{
	tmpl_list *l = new_list(c, 0);
	if (!l)
		return BH_ELIMIT;
	l->is_nil = 1;
	c->result = tmpl_list_value(l);
	return 0;
}

static int fn_list(tmpl_call *c)
{
	tmpl_list *l = new_list(c, (size_t)c->argc);
	if (!l)
		return BH_ELIMIT;
	for (int i = 0; i < c->argc; i++)
		if (push(c, l, c->argv[i]))
			return BH_ELIMIT;
	c->result = tmpl_list_value(l);
	return 0;
}

static int fn_first(tmpl_call *c)
{
	long n = need_slice(c, &c->argv[0], "Cannot find first on type %s");
	if (n < 0)
		return (int)n;
	c->result = n == 0 ? tmpl_nil() : slice_at(&c->argv[0], 0);
	return 0;
}

static int fn_last(tmpl_call *c)
{
	long n = need_slice(c, &c->argv[0], "Cannot find last on type %s");
	if (n < 0)
		return (int)n;
	c->result = n == 0 ? tmpl_nil() : slice_at(&c->argv[0], (size_t)n - 1);
	return 0;
}

/* rest (skip = first) and initial (skip = last) */
static int sub_list(tmpl_call *c, const char *fmt, int from_start)
{
	long n = need_slice(c, &c->argv[0], fmt);
	tmpl_list *l;
	if (n < 0)
		return (int)n;
	if (n == 0)
		return ret_nil_list(c);
	l = new_list(c, (size_t)n - 1);
	if (!l)
		return BH_ELIMIT;
	for (long i = from_start ? 1 : 0; i < (from_start ? n : n - 1); i++)
		if (push(c, l, slice_at(&c->argv[0], (size_t)i)))
			return BH_ELIMIT;
	c->result = tmpl_list_value(l);
	return 0;
}

static int fn_rest(tmpl_call *c)
{
	return sub_list(c, "Cannot find rest on type %s", 1);
}

static int fn_initial(tmpl_call *c)
{
	return sub_list(c, "Cannot find initial on type %s", 0);
}

static int fn_append(tmpl_call *c)
{
	long n = need_slice(c, &c->argv[0], "Cannot push on type %s");
	tmpl_list *l;
	if (n < 0)
		return (int)n;
	l = new_list(c, (size_t)n + 1);
	if (!l)
		return BH_ELIMIT;
	for (long i = 0; i < n; i++)
		if (push(c, l, slice_at(&c->argv[0], (size_t)i)))
			return BH_ELIMIT;
	if (push(c, l, c->argv[1]))
		return BH_ELIMIT;
	c->result = tmpl_list_value(l);
	return 0;
}

static int fn_prepend(tmpl_call *c)
{
	long n = need_slice(c, &c->argv[0], "Cannot prepend on type %s");
	tmpl_list *l;
	if (n < 0)
		return (int)n;
	l = new_list(c, (size_t)n + 1);
	if (!l || push(c, l, c->argv[1]))
		return BH_ELIMIT;
	for (long i = 0; i < n; i++)
		if (push(c, l, slice_at(&c->argv[0], (size_t)i)))
			return BH_ELIMIT;
	c->result = tmpl_list_value(l);
	return 0;
}

static int fn_concat(tmpl_call *c)
{
	tmpl_list *l = new_list(c, 0);
	if (!l)
		return BH_ELIMIT;
	l->is_nil = 1;
	for (int a = 0; a < c->argc; a++) {
		long n = need_slice(c, &c->argv[a], "Cannot concat type %s as list");
		if (n < 0)
			return (int)n;
		for (long i = 0; i < n; i++) {
			l->is_nil = 0;
			if (push(c, l, slice_at(&c->argv[a], (size_t)i)))
				return BH_ELIMIT;
		}
	}
	c->result = tmpl_list_value(l);
	return 0;
}

static int fn_reverse(tmpl_call *c)
{
	long n;
	tmpl_list *l = NULL;
	int rc = begin_list(c, "Cannot find reverse on type %s", &n, &l);
	if (rc)
		return rc;
	for (long i = n - 1; i >= 0; i--)
		if (push(c, l, slice_at(&c->argv[0], (size_t)i)))
			return BH_ELIMIT;
	c->result = tmpl_list_value(l);
	return 0;
}

static int in_values(const tmpl_value *vals, size_t n, const tmpl_value *needle)
{
	for (size_t i = 0; i < n; i++)
		if (sprig_deep_equal(needle, &vals[i]))
			return 1;
	return 0;
}

static int fn_uniq(tmpl_call *c)
{
	long n;
	tmpl_list *l = NULL;
	int rc = begin_list(c, "Cannot find uniq on type %s", &n, &l);
	if (rc)
		return rc;
	for (long i = 0; i < n; i++) {
		tmpl_value v = slice_at(&c->argv[0], (size_t)i);
		if (!in_values(l->items, l->len, &v) && push(c, l, v))
			return BH_ELIMIT;
	}
	c->result = tmpl_list_value(l);
	return 0;
}

static int fn_without(tmpl_call *c)
{
	long n;
	tmpl_list *l = NULL;
	int rc = begin_list(c, "Cannot find without on type %s", &n, &l);
	if (rc)
		return rc;
	for (long i = 0; i < n; i++) {
		tmpl_value v = slice_at(&c->argv[0], (size_t)i);
		if (!in_values(c->argv + 1, (size_t)c->argc - 1, &v) && push(c, l, v))
			return BH_ELIMIT;
	}
	c->result = tmpl_list_value(l);
	return 0;
}

static int fn_has(tmpl_call *c)
{
	const tmpl_value *hay = &c->argv[1];
	long n;
	if (tmpl_value_is_nil(hay)) {
		c->result = tmpl_bool(0);
		return 0;
	}
	n = need_slice(c, hay, "Cannot find has on type %s");
	if (n < 0)
		return (int)n;
	for (long i = 0; i < n; i++) {
		tmpl_value v = slice_at(hay, (size_t)i);
		if (sprig_deep_equal(&c->argv[0], &v)) {
			c->result = tmpl_bool(1);
			return 0;
		}
	}
	c->result = tmpl_bool(0);
	return 0;
}

static int fn_compact(tmpl_call *c)
{
	long n;
	tmpl_list *l = NULL;
	int rc = begin_list(c, "Cannot compact on type %s", &n, &l);
	if (rc)
		return rc;
	for (long i = 0; i < n; i++) {
		tmpl_value v = slice_at(&c->argv[0], (size_t)i);
		if (!tmpl_value_empty(&v) && push(c, l, v))
			return BH_ELIMIT;
	}
	c->result = tmpl_list_value(l);
	return 0;
}

/* Sprig's slice(list, indices...) (also registered as mustSlice) */
static int fn_slice(tmpl_call *c)
{
	const tmpl_value *v = &c->argv[0];
	long n = need_slice(c, v, "list should be type of slice or array but %s");
	int64_t start = 0, end;
	if (n < 0)
		return (int)n;
	if (n == 0) {
		c->result = tmpl_nil();
		return 0;
	}
	if (c->argc > 1)
		tmpl_to_int64(&c->argv[1], &start);
	end = n;
	if (c->argc > 2)
		tmpl_to_int64(&c->argv[2], &end);
	if (start < 0 || end < start || end > n)
		return tmpl_call_errorf(c, "reflect.Value.Slice: slice index out of bounds");
	if (v->kind == TMPL_BYTES) {
		c->result = tmpl_bytes(c->arena, v->u.s.ptr + start, (size_t)(end - start));
		return c->result.kind == TMPL_BYTES ? 0 : sprig_oom(c);
	}
	tmpl_list *l = sprig_list(c, v->u.list->gotype, (size_t)(end - start));
	if (!l)
		return BH_ELIMIT;
	for (int64_t i = start; i < end; i++)
		if (push(c, l, v->u.list->items[i]))
			return BH_ELIMIT;
	c->result = tmpl_list_value(l);
	return 0;
}

/* Go's float64 -> int conversion on amd64 (out of range and NaN give
 * math.MinInt64). */
static int64_t go_f2i(double f)
{
	if (isnan(f) || f >= 9223372036854775808.0 || f < -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)f;
}

static int fn_chunk(tmpl_call *c)
{
	int64_t size = c->argv[0].u.i;
	const tmpl_value *v = &c->argv[1];
	long n = need_slice(c, v, "Cannot chunk type %s");
	if (n < 0)
		return (int)n;
	int64_t cs = go_f2i(floor((double)(n - 1) / (double)size));
	if (cs != INT64_MIN)
		cs += 1;
	if (cs < 0 || cs > (int64_t)1 << 40)
		return tmpl_call_errorf(c, "runtime error: makeslice: len out of range");
	tmpl_list *out = sprig_list(c, "[][]interface {}", (size_t)cs);
	if (!out)
		return BH_ELIMIT;
	for (int64_t i = 0; i < cs; i++) {
		int64_t clen = size;
		if (i == cs - 1) {
			clen = go_f2i(floor(fmod((double)n, (double)size)));
			if (clen == 0)
				clen = size;
		}
		if (clen < 0)
			return tmpl_call_errorf(c, "runtime error: makeslice: len out of range");
		tmpl_list *part = new_list(c, (size_t)clen);
		if (!part)
			return BH_ELIMIT;
		for (int64_t j = 0; j < clen; j++) {
			int64_t ix = i * size + j;
			if (ix < 0 || ix >= n)
				return tmpl_call_errorf(c, "reflect: slice index out of range");
			if (push(c, part, slice_at(v, (size_t)ix)))
				return BH_ELIMIT;
		}
		if (push(c, out, tmpl_list_value(part)))
			return BH_ELIMIT;
	}
	c->result = tmpl_list_value(out);
	return 0;
}

const tmpl_func_def tmpl_funcs_lists[] = {
	{"list", fn_list, "a*", NULL},
	{"tuple", fn_list, "a*", NULL},
	{"first", fn_first, "a", NULL},
	{"mustFirst", fn_first, "a", NULL},
	{"last", fn_last, "a", NULL},
	{"mustLast", fn_last, "a", NULL},
	{"rest", fn_rest, "a", NULL},
	{"mustRest", fn_rest, "a", NULL},
	{"initial", fn_initial, "a", NULL},
	{"mustInitial", fn_initial, "a", NULL},
	{"append", fn_append, "aa", NULL},
	{"push", fn_append, "aa", NULL},
	{"mustAppend", fn_append, "aa", NULL},
	{"mustPush", fn_append, "aa", NULL},
	{"prepend", fn_prepend, "aa", NULL},
	{"mustPrepend", fn_prepend, "aa", NULL},
	{"concat", fn_concat, "a*", NULL},
	{"reverse", fn_reverse, "a", NULL},
	{"mustReverse", fn_reverse, "a", NULL},
	{"uniq", fn_uniq, "a", NULL},
	{"mustUniq", fn_uniq, "a", NULL},
	{"without", fn_without, "aa*", NULL},
	{"mustWithout", fn_without, "aa*", NULL},
	{"has", fn_has, "aa", NULL},
	{"mustHas", fn_has, "aa", NULL},
	{"compact", fn_compact, "a", NULL},
	{"mustCompact", fn_compact, "a", NULL},
	{"slice", fn_slice, "aa*", NULL},
	{"mustSlice", fn_slice, "aa*", NULL},
	{"chunk", fn_chunk, "ia", NULL},
	{"mustChunk", fn_chunk, "ia", NULL},
	{NULL, NULL, NULL, NULL},
};
