/* tmpl/funcs.c — function registry lookup, tmpl_call helpers and the
 * Go/Sprig conversions (spf13/cast) declared in funcs.h. */
#include "tmpl/funcs.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tmpl/gofmt.h"
#include "tmpl/internal.h"
#include "tmpl/strconv.h"

int tmpl_call_errorf(tmpl_call *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bh_error_vset(c->err, BH_EEXEC, fmt, ap);
	va_end(ap);
	return BH_EEXEC;
}

const tmpl_func_def *tmpl_func_find(const char *name)
{
	const tmpl_func_def *found = NULL;
	for (size_t f = 0; tmpl_func_families[f]; f++)
		for (const tmpl_func_def *d = tmpl_func_families[f]; d->name; d++)
			if (strcmp(d->name, name) == 0)
				found = d;
	return found;
}

int tmpl_func_exists(const char *name)
{
	return tmpl_func_find(name) != NULL;
}

uint32_t tmpl_hash(const char *s, size_t n)
{
	return tmpl_strhash(s, n);
}

/* The registry never changes at run time, so its hash index is built once
 * per process (engines are created from one thread in bulkhead). */
static const struct tmpl_fn_slot *fn_index;
static size_t fn_index_cap;

int tmpl_engine_func_index(tmpl_engine *e)
{
	size_t n = 0, cap = 64;
	if (!fn_index) {
		struct tmpl_fn_slot *idx;
		for (size_t f = 0; tmpl_func_families[f]; f++)
			for (const tmpl_func_def *d = tmpl_func_families[f]; d->name; d++)
				n++;
		while (cap < n * 2)
			cap *= 2;
		idx = calloc(cap, sizeof(*idx));
		if (!idx)
			return BH_ENOMEM;
		for (size_t f = 0; tmpl_func_families[f]; f++)
			for (const tmpl_func_def *d = tmpl_func_families[f]; d->name; d++) {
				size_t len = strlen(d->name);
				uint32_t h = tmpl_hash(d->name, len);
				size_t p = h & (cap - 1);
				while (idx[p].def && strcmp(idx[p].def->name, d->name) != 0)
					p = (p + 1) & (cap - 1);
				/* later families replace earlier ones */
				idx[p] = (struct tmpl_fn_slot){d, h, (uint32_t)len};
			}
		fn_index_cap = cap;
		fn_index = idx;
	}
	e->fn_index = fn_index;
	e->fn_index_cap = fn_index_cap;
	return 0;
}

const tmpl_func_def *tmpl_engine_func_find(const tmpl_engine *e, const char *name, size_t len)
{
	if (e->sprig_only || e->dns || !e->fn_index) {
		/* the lookups by NUL-terminated name; no function's name is as
		 * long as the buffer */
		char z[64];
		if (len >= sizeof z)
			return NULL;
		memcpy(z, name, len);
		z[len] = '\0';
		if (e->sprig_only || (e->dns && !strcmp(z, "getHostByName"))) {
			int found;
			const tmpl_func_def *d = tmpl_sprig_only_find(z, &found);
			if (found)
				return d;
		}
		if (!e->fn_index)
			return tmpl_func_find(z);
	}
	uint32_t h = tmpl_strhash(name, len);
	size_t mask = e->fn_index_cap - 1;
	for (size_t p = h & mask; e->fn_index[p].def; p = (p + 1) & mask) {
		const struct tmpl_fn_slot *s = &e->fn_index[p];
		if (s->hash == h && s->len == len && tmpl_key_eq(s->def->name, name, len))
			return s->def;
	}
	return NULL;
}

/* Go's float64 -> int64 conversion as amd64 does it (out of range and NaN
 * give math.MinInt64). */
static int64_t f2i(double f)
{
	if (isnan(f) || f >= 9223372036854775808.0 || f < -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)f;
}

/* cast's trimZeroDecimal: "3.00" -> "3" */
static size_t trim_zero_decimal(const char *s, size_t n)
{
	int found = 0;
	for (size_t i = n; i > 0; i--) {
		switch (s[i - 1]) {
		case '.':
			if (found)
				return i - 1;
			break;
		case '0':
			found = 1;
			break;
		default:
			return n;
		}
	}
	return n;
}

int tmpl_to_int64(const tmpl_value *v, int64_t *out)
{
	*out = 0;
	switch (v->kind) {
	case TMPL_INVALID:
	case TMPL_NIL:
		return 0;
	case TMPL_INT:
	case TMPL_INT64:
		*out = v->u.i;
		return 0;
	case TMPL_UINT8:
	case TMPL_UINT64:
		*out = (int64_t)v->u.u;
		return 0;
	case TMPL_FLOAT64:
		*out = f2i(v->u.f);
		return 0;
	case TMPL_BOOL:
		*out = v->u.b ? 1 : 0;
		return 0;
	case TMPL_STRING: {
		size_t n = trim_zero_decimal(v->u.s.ptr, v->u.s.len);
		int64_t x;
		if (go_parse_int(v->u.s.ptr, n, 0, &x) == 0) {
			*out = x;
			return 0;
		}
		return -1;
	}
	default:
		return -1;
	}
}

int tmpl_to_float64(const tmpl_value *v, double *out)
{
	*out = 0;
	switch (v->kind) {
	case TMPL_INVALID:
	case TMPL_NIL:
		return 0;
	case TMPL_INT:
	case TMPL_INT64:
		*out = (double)v->u.i;
		return 0;
	case TMPL_UINT8:
	case TMPL_UINT64:
		*out = (double)v->u.u;
		return 0;
	case TMPL_FLOAT64:
		*out = v->u.f;
		return 0;
	case TMPL_BOOL:
		*out = v->u.b ? 1 : 0;
		return 0;
	case TMPL_STRING: {
		double d;
		if (go_parse_float(v->u.s.ptr, v->u.s.len, &d) == 0) {
			*out = d;
			return 0;
		}
		return -1;
	}
	default:
		return -1;
	}
}

int tmpl_to_bool(const tmpl_value *v, int *out)
{
	*out = 0;
	switch (v->kind) {
	case TMPL_INVALID:
	case TMPL_NIL:
		return 0;
	case TMPL_BOOL:
		*out = v->u.b;
		return 0;
	case TMPL_INT:
	case TMPL_INT64:
		*out = v->u.i != 0;
		return 0;
	case TMPL_UINT8:
	case TMPL_UINT64:
		*out = v->u.u != 0;
		return 0;
	case TMPL_FLOAT64:
		*out = v->u.f != 0;
		return 0;
	case TMPL_STRING: {
		static const char *t[] = {"1", "t", "T", "TRUE", "true", "True"};
		static const char *f[] = {"0", "f", "F", "FALSE", "false", "False"};
		for (size_t i = 0; i < 6; i++) {
			if (strlen(t[i]) == v->u.s.len && memcmp(t[i], v->u.s.ptr, v->u.s.len) == 0) {
				*out = 1;
				return 0;
			}
			if (strlen(f[i]) == v->u.s.len && memcmp(f[i], v->u.s.ptr, v->u.s.len) == 0)
				return 0;
		}
		return -1;
	}
	default:
		return -1;
	}
}

int tmpl_to_string(bh_buf *out, const tmpl_value *v)
{
	switch (v->kind) {
	case TMPL_STRING:
	case TMPL_BYTES:
		bh_buf_put(out, v->u.s.ptr, v->u.s.len);
		return 0;
	default:
		return gofmt_value(out, v);
	}
}

tmpl_value tmpl_to_string_value(tmpl_arena *a, const tmpl_value *v)
{
	if (v->kind == TMPL_STRING) {
		tmpl_value r = *v;
		r.iface = 0;
		return r;
	}
	bh_buf b = BH_BUF_INIT;
	tmpl_value r;
	if (tmpl_to_string(&b, v))
		memset(&r, 0, sizeof r); /* TMPL_INVALID: the caller's error */
	else
		r = tmpl_str_buf(a, &b);
	bh_buf_free(&b);
	return r;
}

const tmpl_list *tmpl_as_list(const tmpl_value *v)
{
	return v->kind == TMPL_LIST ? v->u.list : NULL;
}
