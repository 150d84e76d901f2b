/* tmpl/valuejson.c — Go's encoding/json output for tmpl_values (what Helm's
 * toJson/toPrettyJson/toRawJson print, and the input of lib/yaml's toYaml
 * printer): map keys sorted, struct objects in Go field order, []byte as
 * base64, nil slices/maps as null, Go float formatting. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gojson.h"
#include "tmpl/funcs.h"
#include "tmpl/value.h"

static void newline(bh_buf *out, int flags, int depth)
{
	if (!(flags & GOJSON_INDENT))
		return;
	bh_buf_putc(out, '\n');
	for (int i = 0; i < depth; i++)
		bh_buf_puts(out, "  ");
}

static int enc_float(bh_buf *out, double f, bh_error *err)
{
	if (isnan(f) || isinf(f)) {
		return bh_error_set(err, BH_EINVAL, "json: unsupported value: %s",
				    isnan(f) ? "NaN" : f > 0 ? "+Inf" : "-Inf");
	}
	gojson_format_float(out, f);
	return 0;
}

static int enc_json(bh_buf *out, const json_t *j, int flags, int ordered, int depth, bh_error *err);

static int enc_json_obj(bh_buf *out, const json_t *j, int flags, int ordered, int depth, bh_error *err)
{
	size_t n = json_object_size(j), k = 0;
	const char **keys;
	const char *key;
	json_t *val;
	int r = 0;
	if (n == 0) {
		bh_buf_puts(out, "{}");
		return 0;
	}
	keys = malloc(n * sizeof(char *));
	if (!keys)
		return bh_error_set(err, BH_ENOMEM, "json: out of memory");
	json_object_foreach((json_t *)j, key, val)
		keys[k++] = key;
	if (!ordered) {
		/* bytewise sort */
		for (size_t a = 1; a < n; a++)
			for (size_t b = a; b > 0 && strcmp(keys[b - 1], keys[b]) > 0; b--) {
				const char *t = keys[b];
				keys[b] = keys[b - 1];
				keys[b - 1] = t;
			}
	}
	bh_buf_putc(out, '{');
	for (size_t i = 0; i < n && r == 0; i++) {
		if (i)
			bh_buf_putc(out, ',');
		newline(out, flags, depth + 1);
		gojson_quote(out, keys[i], strlen(keys[i]), flags);
		bh_buf_puts(out, (flags & GOJSON_INDENT) ? ": " : ":");
		r = enc_json(out, json_object_get(j, keys[i]), flags, 0, depth + 1, err);
	}
	newline(out, flags, depth);
	bh_buf_putc(out, '}');
	free(keys);
	return r;
}

static int enc_json(bh_buf *out, const json_t *j, int flags, int ordered, int depth, bh_error *err)
{
	if (depth > GOJSON_MAX_DEPTH)
		return bh_error_set(err, BH_ELIMIT, "json: nesting deeper than %d", GOJSON_MAX_DEPTH);
	switch (json_typeof(j)) {
	case JSON_OBJECT:
		return enc_json_obj(out, j, flags, ordered, depth, err);
	case JSON_ARRAY:
		if (json_array_size(j) == 0) {
			bh_buf_puts(out, "[]");
			return 0;
		}
		bh_buf_putc(out, '[');
		for (size_t i = 0; i < json_array_size(j); i++) {
			if (i)
				bh_buf_putc(out, ',');
			newline(out, flags, depth + 1);
			int r = enc_json(out, json_array_get(j, i), flags, 0, depth + 1, err);
			if (r)
				return r;
		}
		newline(out, flags, depth);
		bh_buf_putc(out, ']');
		return 0;
	case JSON_STRING:
		gojson_quote(out, json_string_value(j), json_string_length(j), flags);
		return 0;
	case JSON_INTEGER:
		bh_buf_printf(out, "%lld", (long long)json_integer_value(j));
		return 0;
	case JSON_REAL:
		return enc_float(out, json_real_value(j), err);
	case JSON_TRUE:
		bh_buf_puts(out, "true");
		return 0;
	case JSON_FALSE:
		bh_buf_puts(out, "false");
		return 0;
	default:
		bh_buf_puts(out, "null");
		return 0;
	}
}

static int enc(bh_buf *out, const tmpl_value *v, int flags, int depth, bh_error *err)
{
	if (depth > GOJSON_MAX_DEPTH)
		return bh_error_set(err, BH_ELIMIT, "json: nesting deeper than %d", GOJSON_MAX_DEPTH);
	switch (v->kind) {
	case TMPL_INVALID:
	case TMPL_NIL:
		bh_buf_puts(out, "null");
		return 0;
	case TMPL_BOOL:
		bh_buf_puts(out, v->u.b ? "true" : "false");
		return 0;
	case TMPL_INT:
	case TMPL_INT64:
		bh_buf_printf(out, "%lld", (long long)v->u.i);
		return 0;
	case TMPL_UINT8:
	case TMPL_UINT64:
		bh_buf_printf(out, "%llu", (unsigned long long)v->u.u);
		return 0;
	case TMPL_FLOAT64:
		return enc_float(out, v->u.f, err);
	case TMPL_STRING:
		gojson_quote(out, v->u.s.ptr, v->u.s.len, flags);
		return 0;
	case TMPL_COMPLEX:
		return bh_error_set(err, BH_EINVAL, "json: unsupported type: complex128");
	case TMPL_BYTES:
	case TMPL_OBJECT: {
		json_t *j = tmpl_value_to_json(v, err);
		if (!j)
			return err ? err->code : BH_EINVAL;
		int ordered = v->kind == TMPL_OBJECT && v->u.obj->cls->json_struct;
		int r = enc_json(out, j, flags, ordered, depth, err);
		json_decref(j);
		return r;
	}
	case TMPL_LIST: {
		const tmpl_list *l = v->u.list;
		if (l->is_nil) {
			bh_buf_puts(out, "null");
			return 0;
		}
		if (l->len == 0) {
			bh_buf_puts(out, "[]");
			return 0;
		}
		bh_buf_putc(out, '[');
		for (size_t i = 0; i < l->len; i++) {
			if (i)
				bh_buf_putc(out, ',');
			newline(out, flags, depth + 1);
			int r = enc(out, &l->items[i], flags, depth + 1, err);
			if (r)
				return r;
		}
		newline(out, flags, depth);
		bh_buf_putc(out, ']');
		return 0;
	}
	case TMPL_MAP: {
		tmpl_map *m = v->u.map;
		if (m->is_nil) {
			bh_buf_puts(out, "null");
			return 0;
		}
		if (m->len == 0) {
			bh_buf_puts(out, "{}");
			return 0;
		}
		tmpl_map_sort(m);
		bh_buf_putc(out, '{');
		for (size_t i = 0; i < m->len; i++) {
			if (i)
				bh_buf_putc(out, ',');
			newline(out, flags, depth + 1);
			gojson_quote(out, m->entries[i].key, m->entries[i].keylen, flags);
			bh_buf_puts(out, (flags & GOJSON_INDENT) ? ": " : ":");
			int r = enc(out, &m->entries[i].val, flags, depth + 1, err);
			if (r)
				return r;
		}
		newline(out, flags, depth);
		bh_buf_putc(out, '}');
		return 0;
	}
	}
	bh_buf_puts(out, "null");
	return 0;
}

int tmpl_value_gojson(bh_buf *out, const tmpl_value *v, int flags, bh_error *err)
{
	size_t start = out->len;
	int r = enc(out, v, flags, 0, err);
	if (r) {
		out->len = start;
		if (out->data)
			out->data[start] = '\0';
	}
	return r;
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
