/* tmpl/valuejson.c — Go's encoding/json output for tmpl_values (what Helm's
 * toJson/toPrettyJson/toRawJson print, and the input of lib/yaml's toYaml
 * printer): map keys sorted, struct objects in Go field order, []byte as
 * base64, nil slices/maps as null, Go float formatting, NaN/Inf refused with
 * Go's message ("json: unsupported value: NaN"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gojson.h"
#include "tmpl/strconv.h"
#include "tmpl/funcs.h"
#include "tmpl/value.h"

typedef struct enc {
	int flags;
	bh_buf *out;
	bh_error *err;
} enc;

static void newline(enc *e, int depth)
{
	if (!(e->flags & GOJSON_INDENT))
		return;
	bh_buf_putc(e->out, '\n');
	for (int i = 0; i < depth; i++)
		bh_buf_puts(e->out, "  ");
}

static int put_float(enc *e, double f)
{
	if (isnan(f))
		return bh_error_set(e->err, BH_EINVAL, "json: unsupported value: NaN");
	if (isinf(f))
		return bh_error_set(e->err, BH_EINVAL, "json: unsupported value: %sInf", f > 0 ? "+" : "-");
	/* encoding/json writes a whole number below 1e21 as 'f' does */
	char w[24];
	size_t k = go_format_whole_float(w, f, 1e21);
	if (k) {
		bh_buf_put(e->out, w, k);
		return 0;
	}
	gojson_format_float(e->out, f);
	return 0;
}

static int keycmp(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;
	return strcmp(*x, *y);
}

/* A json_t from an object's to_json; ordered = keep insertion order. */
static int enc_json(enc *e, const json_t *j, int ordered, int depth)
{
	if (depth > GOJSON_MAX_DEPTH)
		return bh_error_set(e->err, BH_ELIMIT, "json: nesting deeper than %d", GOJSON_MAX_DEPTH);
	switch (json_typeof(j)) {
	case JSON_NULL: bh_buf_puts(e->out, "null"); return 0;
	case JSON_TRUE: bh_buf_puts(e->out, "true"); return 0;
	case JSON_FALSE: bh_buf_puts(e->out, "false"); return 0;
	case JSON_INTEGER: bh_buf_printf(e->out, "%lld", (long long)json_integer_value(j)); return 0;
	case JSON_REAL: return put_float(e, json_real_value(j));
	case JSON_STRING:
		gojson_quote(e->out, json_string_value(j), json_string_length(j), e->flags);
		return 0;
	case JSON_ARRAY: {
		size_t n = json_array_size(j);
		if (n == 0) {
			bh_buf_puts(e->out, "[]");
			return 0;
		}
		bh_buf_putc(e->out, '[');
		for (size_t i = 0; i < n; i++) {
			if (i)
				bh_buf_putc(e->out, ',');
			newline(e, depth + 1);
			if (enc_json(e, json_array_get(j, i), ordered, depth + 1))
				return -1;
		}
		newline(e, depth);
		bh_buf_putc(e->out, ']');
		return 0;
	}
	case JSON_OBJECT: {
		size_t n = json_object_size(j), k = 0;
		const char **keys;
		const char *key;
		json_t *val;
		if (n == 0) {
			bh_buf_puts(e->out, "{}");
			return 0;
		}
		keys = malloc(n * sizeof *keys);
		if (!keys)
			return bh_error_set(e->err, BH_ENOMEM, "out of memory");
		json_object_foreach((json_t *)j, key, val)
			keys[k++] = key;
		if (!ordered)
			qsort(keys, n, sizeof *keys, keycmp);
		bh_buf_putc(e->out, '{');
		for (size_t i = 0; i < n; i++) {
			if (i)
				bh_buf_putc(e->out, ',');
			newline(e, depth + 1);
			gojson_quote(e->out, keys[i], strlen(keys[i]), e->flags);
			bh_buf_puts(e->out, (e->flags & GOJSON_INDENT) ? ": " : ":");
			if (enc_json(e, json_object_get(j, keys[i]), ordered, depth + 1)) {
				free(keys);
				return -1;
			}
		}
		free(keys);
		newline(e, depth);
		bh_buf_putc(e->out, '}');
		return 0;
	}
	}
	return 0;
}

static int enc_value(enc *e, const tmpl_value *v, int depth)
{
	if (depth > GOJSON_MAX_DEPTH)
		return bh_error_set(e->err, BH_ELIMIT, "json: nesting deeper than %d", GOJSON_MAX_DEPTH);
	switch (v->kind) {
	case TMPL_INVALID:
	case TMPL_NIL:
		bh_buf_puts(e->out, "null");
		return 0;
	case TMPL_BOOL:
		bh_buf_puts(e->out, v->u.b ? "true" : "false");
		return 0;
	case TMPL_INT:
	case TMPL_INT64:
		bh_buf_printf(e->out, "%lld", (long long)v->u.i);
		return 0;
	case TMPL_UINT8:
	case TMPL_UINT64:
		bh_buf_printf(e->out, "%llu", (unsigned long long)v->u.u);
		return 0;
	case TMPL_FLOAT64:
		return put_float(e, v->u.f);
	case TMPL_STRING:
		gojson_quote(e->out, v->u.s.ptr, v->u.s.len, e->flags);
		return 0;
	case TMPL_COMPLEX:
		return bh_error_set(e->err, BH_EINVAL, "json: unsupported type: complex128");
	case TMPL_BYTES:
	case TMPL_OBJECT: {
		json_t *j = tmpl_value_to_json(v, e->err);
		int rc;
		if (!j)
			return -1;
		rc = enc_json(e, j, v->kind == TMPL_OBJECT && v->u.obj->cls->json_struct, depth);
		json_decref(j);
		return rc;
	}
	case TMPL_LIST: {
		const tmpl_list *l = v->u.list;
		if (l->is_nil) {
			bh_buf_puts(e->out, "null");
			return 0;
		}
		if (l->len == 0) {
			bh_buf_puts(e->out, "[]");
			return 0;
		}
		bh_buf_putc(e->out, '[');
		for (size_t i = 0; i < l->len; i++) {
			if (i)
				bh_buf_putc(e->out, ',');
			newline(e, depth + 1);
			if (enc_value(e, &l->items[i], depth + 1))
				return -1;
		}
		newline(e, depth);
		bh_buf_putc(e->out, ']');
		return 0;
	}
	case TMPL_MAP: {
		tmpl_map *m = v->u.map;
		if (m->is_nil) {
			bh_buf_puts(e->out, "null");
			return 0;
		}
		if (m->len == 0) {
			bh_buf_puts(e->out, "{}");
			return 0;
		}
		tmpl_map_sort(m);
		bh_buf_putc(e->out, '{');
		for (size_t i = 0; i < m->len; i++) {
			if (i)
				bh_buf_putc(e->out, ',');
			newline(e, depth + 1);
			gojson_quote(e->out, m->entries[i].key, m->entries[i].keylen, e->flags);
			bh_buf_puts(e->out, (e->flags & GOJSON_INDENT) ? ": " : ":");
			if (enc_value(e, &m->entries[i].val, depth + 1))
				return -1;
		}
		newline(e, depth);
		bh_buf_putc(e->out, '}');
		return 0;
	}
	}
	return 0;
}

int tmpl_value_gojson(bh_buf *out, const tmpl_value *v, int flags, bh_error *err)
{
	enc e = {flags, out, err};
	size_t start = out->len;
	if (enc_value(&e, v, 0)) {
		out->len = start;
		if (out->data)
			out->data[start] = '\0';
		return err && err->code ? err->code : BH_EINVAL;
	}
	if (!bh_buf_ok(out))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	return 0;
}

const char *tmpl_value_kind_name(const tmpl_value *v)
{
	switch (v->kind) {
	case TMPL_BOOL: return "bool";
	case TMPL_INT: return "int";
	case TMPL_INT64: return "int64";
	case TMPL_UINT8: return "uint8";
	case TMPL_UINT64: return "uint64";
	case TMPL_FLOAT64: return "float64";
	case TMPL_STRING: return "string";
	case TMPL_BYTES:
	case TMPL_LIST: return "slice";
	case TMPL_MAP: return "map";
	case TMPL_OBJECT: return v->u.obj->cls->pointer ? "ptr" : "struct";
	case TMPL_COMPLEX: return "complex128";
	default: return "invalid";
	}
}

static tmpl_value deep_copy(tmpl_arena *a, const tmpl_value *v, int depth);

tmpl_value tmpl_value_deep_copy(tmpl_arena *a, const tmpl_value *v)
{
	return deep_copy(a, v, 0);
}

/* Nesting deeper than 10000 is refused (INVALID) instead of overflowing
 * the C stack. */
static tmpl_value deep_copy(tmpl_arena *a, const tmpl_value *v, int depth)
{
	if (depth > 10000)
		return tmpl_invalid();
	switch (v->kind) {
	case TMPL_LIST: {
		const tmpl_list *l = v->u.list;
		tmpl_list *n = tmpl_list_new(a, l->gotype, l->len);
		if (!n)
			return tmpl_invalid();
		n->is_nil = l->is_nil;
		n->cls = l->cls;
		for (size_t i = 0; i < l->len; i++) {
			tmpl_value x = deep_copy(a, &l->items[i], depth + 1);
			if (x.kind == TMPL_INVALID && l->items[i].kind != TMPL_INVALID)
				return x;
			if (tmpl_list_push(a, n, x))
				return tmpl_invalid();
		}
		n->is_nil = l->is_nil;
		return tmpl_list_value(n);
	}
	case TMPL_MAP: {
		const tmpl_map *m = v->u.map;
		tmpl_map *n = tmpl_map_new(a, m->gotype);
		if (!n)
			return tmpl_invalid();
		n->cls = m->cls;
		for (size_t i = 0; i < m->len; i++) {
			tmpl_value x = deep_copy(a, &m->entries[i].val, depth + 1);
			if (x.kind == TMPL_INVALID && m->entries[i].val.kind != TMPL_INVALID)
				return x;
			if (tmpl_map_set(a, n, m->entries[i].key, m->entries[i].keylen, x))
				return tmpl_invalid();
		}
		n->is_nil = m->is_nil;
		return tmpl_map_value(n);
	}
	default: {
		tmpl_value r = *v;
		r.iface = 0;
		return r;
	}
	}
}
