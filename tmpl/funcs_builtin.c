/* tmpl/funcs_builtin.c — Go text/template's builtin functions (and, or,
 * call are evaluated by the executor itself; their entries have fn NULL),
 * plus Sprig's `slice`, which Helm uses in place of Go's. */
#include <stdio.h>
#include <string.h>

#include "lib/gostrconv.h"
#include "tmpl/funcs.h"
#include "tmpl/gofmt.h"
#include "tmpl/internal.h"

static tmpl_value indirect_iface(const tmpl_value *v)
{
	tmpl_value r = *v;
	if (r.kind == TMPL_NIL)
		return tmpl_invalid();
	r.iface = 0;
	return r;
}

static int fn_not(tmpl_call *c)
{
	c->result = tmpl_bool(!tmpl_value_truth(&c->argv[0]));
	return 0;
}

static int fn_len(tmpl_call *c)
{
	const tmpl_value *v = &c->argv[0];
	switch (v->kind) {
	case TMPL_NIL:
		return tmpl_call_errorf(c, "len of nil pointer");
	case TMPL_INVALID:
		return tmpl_call_errorf(c, "reflect: call of reflect.Value.Type on zero Value");
	case TMPL_STRING:
	case TMPL_BYTES:
		c->result = tmpl_int((int64_t)v->u.s.len);
		return 0;
	case TMPL_LIST:
		c->result = tmpl_int((int64_t)v->u.list->len);
		return 0;
	case TMPL_MAP:
		c->result = tmpl_int((int64_t)v->u.map->len);
		return 0;
	default:
		return tmpl_call_errorf(c, "len of type %s", tmpl_value_type_name(v));
	}
}

static int index_arg(tmpl_call *c, const tmpl_value *idx, size_t cap, int64_t *out)
{
	int64_t x;
	switch (idx->kind) {
	case TMPL_INT:
	case TMPL_INT64:
		x = idx->u.i;
		break;
	case TMPL_UINT8:
	case TMPL_UINT64:
		x = (int64_t)idx->u.u;
		break;
	case TMPL_INVALID:
		return tmpl_call_errorf(c, "cannot index slice/array with nil");
	default:
		return tmpl_call_errorf(c, "cannot index slice/array with type %s", tmpl_value_type_name(idx));
	}
	if (x < 0 || (uint64_t)x > cap)
		return tmpl_call_errorf(c, "index out of range: %lld", (long long)x);
	*out = x;
	return 0;
}

static int fn_index(tmpl_call *c)
{
	tmpl_value item = indirect_iface(&c->argv[0]);
	int r;
	if (item.kind == TMPL_INVALID)
		return tmpl_call_errorf(c, "index of untyped nil");
	for (int i = 1; i < c->argc; i++) {
		tmpl_value idx = indirect_iface(&c->argv[i]);
		int64_t x;
		if (item.kind == TMPL_NIL)
			return tmpl_call_errorf(c, "index of nil pointer");
		switch (item.kind) {
		case TMPL_LIST: {
			const tmpl_list *l = item.u.list;
			if ((r = index_arg(c, &idx, l->len, &x)) != 0)
				return r;
			if ((size_t)x >= l->len)
				return tmpl_call_errorf(c, "reflect: slice index out of range");
			item = l->items[x];
			if (strcmp(l->gotype, "[]interface {}") == 0) {
				item.iface = 1;
				if (item.kind == TMPL_INVALID)
					item.kind = TMPL_NIL;
			}
			break;
		}
		case TMPL_STRING:
		case TMPL_BYTES:
			if ((r = index_arg(c, &idx, item.u.s.len, &x)) != 0)
				return r;
			if ((size_t)x >= item.u.s.len)
				return tmpl_call_errorf(c, item.kind == TMPL_STRING
								   ? "reflect: string index out of range"
								   : "reflect: slice index out of range");
			item = tmpl_uint8((uint8_t)item.u.s.ptr[x]);
			break;
		case TMPL_MAP: {
			const tmpl_map *m = item.u.map;
			if (idx.kind == TMPL_INVALID)
				return tmpl_call_errorf(c, "value is nil; should be of type string");
			if (idx.kind != TMPL_STRING)
				return tmpl_call_errorf(c, "value has type %s; should be string",
							tmpl_value_type_name(&idx));
			tmpl_value *v = tmpl_map_get(m, idx.u.s.ptr, idx.u.s.len);
			int iface = strcmp(m->gotype, "map[string]string") != 0;
			if (v) {
				item = *v;
			} else {
				item = iface ? tmpl_nil() : tmpl_str_static("", 0);
			}
			if (iface) {
				item.iface = 1;
				if (item.kind == TMPL_INVALID)
					item.kind = TMPL_NIL;
			}
			break;
		}
		default:
			return tmpl_call_errorf(c, "can't index item of type %s", tmpl_value_type_name(&item));
		}
	}
	c->result = item;
	return 0;
}

static const char *kind_name(const tmpl_value *v)
{
	switch (v->kind) {
	case TMPL_BOOL: return "bool";
	case TMPL_INT: return "int";
	case TMPL_INT64: return "int64";
	case TMPL_UINT8: return "uint8";
	case TMPL_UINT64: return "uint64";
	case TMPL_FLOAT64: return "float64";
	case TMPL_STRING: return "string";
	case TMPL_MAP: return "map";
	case TMPL_OBJECT: return v->u.obj->cls->pointer ? "ptr" : "struct";
	case TMPL_COMPLEX: return "complex128";
	default: return "invalid";
	}
}

/* Sprig's slice(list, indices...) */
static int fn_slice(tmpl_call *c)
{
	const tmpl_value *list = &c->argv[0];
	int64_t start = 0, end;
	size_t len;
	if (tmpl_value_is_nil(list))
		return tmpl_call_errorf(c, "runtime error: invalid memory address or nil pointer dereference");
	if (list->kind != TMPL_LIST && list->kind != TMPL_BYTES)
		return tmpl_call_errorf(c, "list should be type of slice or array but %s", kind_name(list));
	len = list->kind == TMPL_LIST ? list->u.list->len : list->u.s.len;
	if (len == 0) {
		c->result = tmpl_nil();
		return 0;
	}
	if (c->argc > 1)
		tmpl_to_int64(&c->argv[1], &start);
	end = (int64_t)len;
	if (c->argc > 2)
		tmpl_to_int64(&c->argv[2], &end);
	if (start < 0 || end < start || end > (int64_t)len)
		return tmpl_call_errorf(c, "reflect.Value.Slice: slice index out of bounds");
	if (list->kind == TMPL_BYTES) {
		c->result = tmpl_bytes(c->arena, list->u.s.ptr + start, (size_t)(end - start));
		return 0;
	}
	tmpl_list *nl = tmpl_list_new(c->arena, list->u.list->gotype, (size_t)(end - start));
	if (!nl)
		return BH_ELIMIT;
	for (int64_t i = start; i < end; i++)
		tmpl_list_push(c->arena, nl, list->u.list->items[i]);
	c->result = tmpl_list_value(nl);
	return 0;
}

static int fn_print(tmpl_call *c)
{
	bh_buf b = BH_BUF_INIT;
	int g = gofmt_sprint(&b, c->argv, c->argc);
	if (g || !bh_buf_ok(&b)) {
		bh_buf_free(&b);
		return bh_error_set(c->err, BH_ELIMIT, "%s: %s", c->name, gofmt_strerror(g ? g : GOFMT_ELARGE));
	}
	c->result = tmpl_str_buf(c->arena, &b);
	bh_buf_free(&b);
	return 0;
}

static int fn_println(tmpl_call *c)
{
	bh_buf b = BH_BUF_INIT;
	int g = gofmt_sprintln(&b, c->argv, c->argc);
	if (g || !bh_buf_ok(&b)) {
		bh_buf_free(&b);
		return bh_error_set(c->err, BH_ELIMIT, "%s: %s", c->name, gofmt_strerror(g ? g : GOFMT_ELARGE));
	}
	c->result = tmpl_str_buf(c->arena, &b);
	bh_buf_free(&b);
	return 0;
}

static int fn_printf(tmpl_call *c)
{
	bh_buf b;
	tmpl_buf_get(c->engine, &b); /* a kept buffer: no malloc per call */
	int g = gofmt_sprintf(&b, c->argv[0].u.s.ptr, c->argv[0].u.s.len, c->argv + 1, c->argc - 1);
	if (g || !bh_buf_ok(&b)) {
		tmpl_buf_put(c->engine, &b);
		return bh_error_set(c->err, BH_ELIMIT, "%s: %s", c->name, gofmt_strerror(g ? g : GOFMT_ELARGE));
	}
	c->result = tmpl_str_buf(c->arena, &b);
	tmpl_buf_put(c->engine, &b);
	return 0;
}

/* ---- comparisons ---- */

enum bkind { K_INVALID, K_BOOL, K_COMPLEX, K_INT, K_FLOAT, K_STRING, K_UINT };

static enum bkind basic_kind(const tmpl_value *v)
{
	switch (v->kind) {
	case TMPL_BOOL: return K_BOOL;
	case TMPL_INT:
	case TMPL_INT64: return K_INT;
	case TMPL_UINT8:
	case TMPL_UINT64: return K_UINT;
	case TMPL_FLOAT64: return K_FLOAT;
	case TMPL_COMPLEX: return K_COMPLEX;
	case TMPL_STRING: return K_STRING;
	default: return K_INVALID;
	}
}

static int str_cmp(const tmpl_value *a, const tmpl_value *b)
{
	size_t n = a->u.s.len < b->u.s.len ? a->u.s.len : b->u.s.len;
	int r = memcmp(a->u.s.ptr, b->u.s.ptr, n);
	if (r)
		return r;
	return a->u.s.len < b->u.s.len ? -1 : a->u.s.len > b->u.s.len;
}

static int is_nil_val(const tmpl_value *v)
{
	if (v->kind == TMPL_INVALID || v->kind == TMPL_NIL)
		return 1;
	if (v->kind == TMPL_LIST)
		return v->u.list->is_nil;
	if (v->kind == TMPL_MAP)
		return v->u.map->is_nil;
	return 0;
}

static int refl_kind(const tmpl_value *v)
{
	switch (v->kind) {
	case TMPL_INVALID: return 0;
	case TMPL_LIST:
	case TMPL_BYTES: return 1; /* slice */
	case TMPL_MAP: return 2;
	case TMPL_OBJECT: return v->u.obj->cls->pointer ? 3 : 4;
	default: return 5 + (int)v->kind;
	}
}

static int eq_values(tmpl_call *c, const tmpl_value *a1, const tmpl_value *a2, int *truth)
{
	tmpl_value arg1 = indirect_iface(a1), arg = indirect_iface(a2);
	enum bkind k1 = basic_kind(&arg1), k2 = basic_kind(&arg);
	*truth = 0;
	if (k1 != k2) {
		if (k1 == K_INT && k2 == K_UINT)
			*truth = arg1.u.i >= 0 && (uint64_t)arg1.u.i == arg.u.u;
		else if (k1 == K_UINT && k2 == K_INT)
			*truth = arg.u.i >= 0 && arg1.u.u == (uint64_t)arg.u.i;
		else if (arg1.kind != TMPL_INVALID && arg.kind != TMPL_INVALID)
			return tmpl_call_errorf(c, "incompatible types for comparison: %s and %s",
						tmpl_value_type_name(&arg1), tmpl_value_type_name(&arg));
		return 0;
	}
	switch (k1) {
	case K_BOOL: *truth = arg1.u.b == arg.u.b; return 0;
	case K_COMPLEX: *truth = arg1.u.c.re == arg.u.c.re && arg1.u.c.im == arg.u.c.im; return 0;
	case K_FLOAT: *truth = arg1.u.f == arg.u.f; return 0;
	case K_INT: *truth = arg1.u.i == arg.u.i; return 0;
	case K_STRING: *truth = str_cmp(&arg1, &arg) == 0; return 0;
	case K_UINT: *truth = arg1.u.u == arg.u.u; return 0;
	case K_INVALID: break;
	}
	if (refl_kind(&arg1) != refl_kind(&arg) && arg1.kind != TMPL_INVALID && arg.kind != TMPL_INVALID) {
		bh_buf b = BH_BUF_INIT;
		tmpl_value fa[4] = {arg1, tmpl_str_static(tmpl_value_type_name(&arg1),
							  strlen(tmpl_value_type_name(&arg1))),
				    tmpl_str_static(tmpl_value_type_name(&arg), strlen(tmpl_value_type_name(&arg))),
				    arg};
		static const char f4[] = "non-comparable types %s: %v, %s: %v";
		gofmt_sprintf(&b, f4, sizeof f4 - 1, fa, 4);
		int r = tmpl_call_errorf(c, "%s", bh_buf_str(&b));
		bh_buf_free(&b);
		return r;
	}
	if (is_nil_val(&arg1) || is_nil_val(&arg)) {
		*truth = is_nil_val(&arg) == is_nil_val(&arg1);
		return 0;
	}
	if (arg.kind == TMPL_LIST || arg.kind == TMPL_BYTES || arg.kind == TMPL_MAP) {
		bh_buf b = BH_BUF_INIT;
		tmpl_value fa[2] = {arg, tmpl_str_static(tmpl_value_type_name(&arg),
							 strlen(tmpl_value_type_name(&arg)))};
		static const char f2[] = "non-comparable type %s: %v";
		gofmt_sprintf(&b, f2, sizeof f2 - 1, fa, 2);
		int r = tmpl_call_errorf(c, "%s", bh_buf_str(&b));
		bh_buf_free(&b);
		return r;
	}
	if (arg.kind == TMPL_OBJECT && arg1.kind == TMPL_OBJECT)
		*truth = arg.u.obj == arg1.u.obj || (arg.u.obj->cls == arg1.u.obj->cls &&
						     arg.u.obj->data == arg1.u.obj->data);
	return 0;
}

static int fn_eq(tmpl_call *c)
{
	int truth, r;
	if (c->argc < 2)
		return tmpl_call_errorf(c, "missing argument for comparison");
	for (int i = 1; i < c->argc; i++) {
		if ((r = eq_values(c, &c->argv[0], &c->argv[i], &truth)) != 0)
			return r;
		if (truth) {
			c->result = tmpl_bool(1);
			return 0;
		}
	}
	c->result = tmpl_bool(0);
	return 0;
}

static int fn_ne(tmpl_call *c)
{
	int truth, r;
	if ((r = eq_values(c, &c->argv[0], &c->argv[1], &truth)) != 0)
		return r;
	c->result = tmpl_bool(!truth);
	return 0;
}

static int lt_values(tmpl_call *c, const tmpl_value *a1, const tmpl_value *a2, int *truth)
{
	tmpl_value arg1 = indirect_iface(a1), arg2 = indirect_iface(a2);
	enum bkind k1 = basic_kind(&arg1), k2;
	*truth = 0;
	if (k1 == K_INVALID)
		return tmpl_call_errorf(c, "invalid type for comparison");
	k2 = basic_kind(&arg2);
	if (k2 == K_INVALID)
		return tmpl_call_errorf(c, "invalid type for comparison");
	if (k1 != k2) {
		if (k1 == K_INT && k2 == K_UINT)
			*truth = arg1.u.i < 0 || (uint64_t)arg1.u.i < arg2.u.u;
		else if (k1 == K_UINT && k2 == K_INT)
			*truth = arg2.u.i >= 0 && arg1.u.u < (uint64_t)arg2.u.i;
		else
			return tmpl_call_errorf(c, "incompatible types for comparison: %s and %s",
						tmpl_value_type_name(&arg1), tmpl_value_type_name(&arg2));
		return 0;
	}
	switch (k1) {
	case K_BOOL:
	case K_COMPLEX:
		return tmpl_call_errorf(c, "invalid type for comparison");
	case K_FLOAT: *truth = arg1.u.f < arg2.u.f; break;
	case K_INT: *truth = arg1.u.i < arg2.u.i; break;
	case K_STRING: *truth = str_cmp(&arg1, &arg2) < 0; break;
	case K_UINT: *truth = arg1.u.u < arg2.u.u; break;
	default: break;
	}
	return 0;
}

static int le_values(tmpl_call *c, const tmpl_value *a, const tmpl_value *b, int *truth)
{
	int r = lt_values(c, a, b, truth);
	if (r || *truth)
		return r;
	return eq_values(c, a, b, truth);
}

static int fn_lt(tmpl_call *c)
{
	int t, r = lt_values(c, &c->argv[0], &c->argv[1], &t);
	if (r)
		return r;
	c->result = tmpl_bool(t);
	return 0;
}

static int fn_le(tmpl_call *c)
{
	int t, r = le_values(c, &c->argv[0], &c->argv[1], &t);
	if (r)
		return r;
	c->result = tmpl_bool(t);
	return 0;
}

static int fn_gt(tmpl_call *c)
{
	int t, r = le_values(c, &c->argv[0], &c->argv[1], &t);
	if (r)
		return r;
	c->result = tmpl_bool(!t);
	return 0;
}

static int fn_ge(tmpl_call *c)
{
	int t, r = lt_values(c, &c->argv[0], &c->argv[1], &t);
	if (r)
		return r;
	c->result = tmpl_bool(!t);
	return 0;
}

/* ---- escapers ---- */

/* Go's evalArgs: fmt.Sprint with nil printed as "<no value>". */
static void eval_args(bh_buf *b, const tmpl_value *args, int n)
{
	if (n == 1 && args[0].kind == TMPL_STRING) {
		bh_buf_put(b, args[0].u.s.ptr, args[0].u.s.len);
		return;
	}
	int prev_string = 0;
	for (int i = 0; i < n; i++) {
		tmpl_value a = args[i];
		if (tmpl_value_is_nil(&a))
			a = tmpl_str_static("<no value>", 10);
		int is_str = a.kind == TMPL_STRING;
		if (i > 0 && !is_str && !prev_string)
			bh_buf_putc(b, ' ');
		gofmt_value(b, &a);
		prev_string = is_str;
	}
}

static int fn_html(tmpl_call *c)
{
	bh_buf s = BH_BUF_INIT, o = BH_BUF_INIT;
	eval_args(&s, c->argv, c->argc);
	for (size_t i = 0; i < s.len; i++) {
		char ch = s.data[i];
		switch (ch) {
		case '\0': bh_buf_puts(&o, "\xEF\xBF\xBD"); break;
		case '"': bh_buf_puts(&o, "&#34;"); break;
		case '\'': bh_buf_puts(&o, "&#39;"); break;
		case '&': bh_buf_puts(&o, "&amp;"); break;
		case '<': bh_buf_puts(&o, "&lt;"); break;
		case '>': bh_buf_puts(&o, "&gt;"); break;
		default: bh_buf_putc(&o, ch);
		}
	}
	c->result = tmpl_str_buf(c->arena, &o);
	bh_buf_free(&s);
	bh_buf_free(&o);
	return 0;
}

static int dec_utf8(const unsigned char *s, size_t n, int *size)
{
	unsigned c = s[0];
	if (c >= 0xC2 && c <= 0xDF && n >= 2 && (s[1] & 0xC0) == 0x80) {
		*size = 2;
		return (int)(((c & 0x1F) << 6) | (s[1] & 0x3F));
	}
	if (c >= 0xE0 && c <= 0xEF && n >= 3 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80) {
		int r = (int)(((c & 0x0F) << 12) | ((s[1] & 0x3F) << 6) | (s[2] & 0x3F));
		if (r >= 0x800 && (r < 0xD800 || r > 0xDFFF)) {
			*size = 3;
			return r;
		}
	}
	if (c >= 0xF0 && c <= 0xF4 && n >= 4 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80 &&
	    (s[3] & 0xC0) == 0x80) {
		int r = (int)(((c & 0x07) << 18) | ((s[1] & 0x3F) << 12) | ((s[2] & 0x3F) << 6) | (s[3] & 0x3F));
		if (r >= 0x10000 && r <= 0x10FFFF) {
			*size = 4;
			return r;
		}
	}
	*size = 1;
	return 0xFFFD;
}

static int fn_js(tmpl_call *c)
{
	static const char hx[] = "0123456789ABCDEF";
	bh_buf s = BH_BUF_INIT, o = BH_BUF_INIT;
	eval_args(&s, c->argv, c->argc);
	const unsigned char *b = (const unsigned char *)bh_buf_str(&s);
	for (size_t i = 0; i < s.len; i++) {
		unsigned char ch = b[i];
		if (ch < 0x80) {
			switch (ch) {
			case '\\': bh_buf_puts(&o, "\\\\"); break;
			case '\'': bh_buf_puts(&o, "\\'"); break;
			case '"': bh_buf_puts(&o, "\\\""); break;
			case '<': bh_buf_puts(&o, "\\u003C"); break;
			case '>': bh_buf_puts(&o, "\\u003E"); break;
			case '&': bh_buf_puts(&o, "\\u0026"); break;
			case '=': bh_buf_puts(&o, "\\u003D"); break;
			default:
				if (ch < ' ') {
					bh_buf_puts(&o, "\\u00");
					bh_buf_putc(&o, hx[ch >> 4]);
					bh_buf_putc(&o, hx[ch & 15]);
				} else {
					bh_buf_putc(&o, (char)ch);
				}
			}
			continue;
		}
		int sz, r = dec_utf8(b + i, s.len - i, &sz);
		if (go_is_print(r)) /* U+FFFD (a bad byte, too) is printable */
			bh_buf_put(&o, (const char *)b + i, (size_t)sz);
		else
			bh_buf_printf(&o, "\\u%04X", r);
		i += (size_t)sz - 1;
	}
	c->result = tmpl_str_buf(c->arena, &o);
	bh_buf_free(&s);
	bh_buf_free(&o);
	return 0;
}

static int fn_urlquery(tmpl_call *c)
{
	static const char hx[] = "0123456789ABCDEF";
	bh_buf s = BH_BUF_INIT, o = BH_BUF_INIT;
	eval_args(&s, c->argv, c->argc);
	for (size_t i = 0; i < s.len; i++) {
		unsigned char ch = (unsigned char)s.data[i];
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		    ch == '-' || ch == '_' || ch == '.' || ch == '~') {
			bh_buf_putc(&o, (char)ch);
		} else if (ch == ' ') {
			bh_buf_putc(&o, '+');
		} else {
			bh_buf_putc(&o, '%');
			bh_buf_putc(&o, hx[ch >> 4]);
			bh_buf_putc(&o, hx[ch & 15]);
		}
	}
	c->result = tmpl_str_buf(c->arena, &o);
	bh_buf_free(&s);
	bh_buf_free(&o);
	return 0;
}

const tmpl_func_def tmpl_funcs_builtin[] = {
	{"and", NULL, "rr*", NULL},
	{"or", NULL, "rr*", NULL},
	{"call", NULL, "rr*", NULL},
	{"not", fn_not, "r", NULL},
	{"len", fn_len, "r", NULL},
	{"index", fn_index, "rr*", NULL},
	{"slice", fn_slice, "aa*", NULL},
	{"print", fn_print, "a*", NULL},
	{"printf", fn_printf, "sa*", NULL},
	{"println", fn_println, "a*", NULL},
	{"eq", fn_eq, "rr*", NULL},
	{"ne", fn_ne, "rr", NULL},
	{"lt", fn_lt, "rr", NULL},
	{"le", fn_le, "rr", NULL},
	{"gt", fn_gt, "rr", NULL},
	{"ge", fn_ge, "rr", NULL},
	{"html", fn_html, "a*", NULL},
	{"js", fn_js, "a*", NULL},
	{"urlquery", fn_urlquery, "a*", NULL},
	{NULL, NULL, NULL, NULL},
};
