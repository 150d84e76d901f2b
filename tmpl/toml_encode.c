/* tmpl/toml_encode.c — BurntSushi/toml's Encoder on template values (see
 * toml.h): plain keys first, then [tables] and [[arrays of tables]] with
 * two-space indentation per level, keys sorted, nil values skipped. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gostrconv.h"
#include "tmpl/funcs.h"
#include "tmpl/gotime.h"
#include "tmpl/toml.h"

typedef struct enc {
	bh_buf *out;
	bh_error *err;
	int written;
	int depth;
} enc;

typedef struct key {
	const char *parts[TOML_ENCODE_MAX_DEPTH + 1];
	size_t lens[TOML_ENCODE_MAX_DEPTH + 1];
	int n;
} key;

static void wf(enc *e, const char *s, size_t n)
{
	bh_buf_put(e->out, s, n);
	e->written = 1;
}

static void wstr(enc *e, const char *s)
{
	wf(e, s, strlen(s));
}

static void newline(enc *e)
{
	if (e->written)
		bh_buf_putc(e->out, '\n');
}

void toml_dbl_quoted(bh_buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': bh_buf_puts(b, "\\\""); break;
		case '\\': bh_buf_puts(b, "\\\\"); break;
		case '\b': bh_buf_puts(b, "\\b"); break;
		case '\t': bh_buf_puts(b, "\\t"); break;
		case '\n': bh_buf_puts(b, "\\n"); break;
		case '\f': bh_buf_puts(b, "\\f"); break;
		case '\r': bh_buf_puts(b, "\\r"); break;
		default:
			if (c < 0x20 || c == 0x7f)
				bh_buf_printf(b, "\\u%04x", c);
			else
				bh_buf_putc(b, (char)c);
		}
	}
}

static void quoted(enc *e, const char *s, size_t n)
{
	bh_buf_putc(e->out, '"');
	toml_dbl_quoted(e->out, s, n);
	bh_buf_putc(e->out, '"');
	e->written = 1;
}

static void key_part(enc *e, const char *s, size_t n)
{
	int bare = n > 0;
	for (size_t i = 0; i < n && bare; i++) {
		char c = s[i];
		bare = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
	}
	if (bare)
		wf(e, s, n);
	else
		quoted(e, s, n);
}

static void indent(enc *e, const key *k)
{
	for (int i = 0; i < k->n - 1; i++)
		wstr(e, "  ");
}

static void key_path(enc *e, const key *k)
{
	for (int i = 0; i < k->n; i++) {
		if (i)
			wstr(e, ".");
		key_part(e, k->parts[i], k->lens[i]);
	}
}

enum ttype { T_NONE, T_SCALAR, T_ARRAY, T_TABLE, T_TABLE_ARRAY };

static int is_nilish(const tmpl_value *v)
{
	return v->kind == TMPL_NIL || v->kind == TMPL_INVALID || (v->kind == TMPL_LIST && v->u.list->is_nil) ||
	       (v->kind == TMPL_MAP && v->u.map->is_nil) || (v->kind == TMPL_BYTES && v->view);
}

static int toml_is_time(const tmpl_value *v)
{
	return tmpl_time_of(v) != NULL;
}

/* RFC 3339 with nanoseconds, as BurntSushi writes time.Time, except for
 * the local date/time/datetime its decoder makes (toml_decode.c names their
 * zones): those are written back in their own form, without a zone */
static void toml_time_text(const tmpl_value *v, bh_buf *out)
{
	static const struct { const char *zone, *layout; } local[] = {
		{"datetime-local", "2006-01-02T15:04:05.999999999"},
		{"date-local", "2006-01-02"},
		{"time-local", "15:04:05.999999999"},
	};
	const char *layout = "2006-01-02T15:04:05.999999999Z07:00";
	const gotime *t = tmpl_time_of(v);
	const char *zone;
	int off;
	gotime_zone(t, &zone, &off);
	for (size_t i = 0; zone && i < sizeof local / sizeof local[0]; i++)
		if (strcmp(zone, local[i].zone) == 0)
			layout = local[i].layout;
	gotime_format(t, layout, strlen(layout), out);
}

/* Go structs (objects whose JSON view is an ordered object) are tables */
static int is_table(const tmpl_value *v)
{
	return v->kind == TMPL_MAP || (v->kind == TMPL_OBJECT && !toml_is_time(v) && v->u.obj->cls->json_struct);
}

static enum ttype type_of(enc *e, const tmpl_value *v, int *bad)
{
	if (is_nilish(v))
		return T_NONE;
	if (is_table(v))
		return T_TABLE;
	if (v->kind == TMPL_LIST) {
		const tmpl_list *l = v->u.list;
		int all = l->len > 0;
		for (size_t i = 0; i < l->len; i++) {
			if (l->items[i].kind == TMPL_NIL || l->items[i].kind == TMPL_INVALID) {
				bh_error_set(e->err, BH_EINVAL, "toml: cannot encode array with nil element");
				*bad = 1;
				return T_NONE;
			}
			/* Go's tomlTypeOfGo looks into nested arrays too (isTableArray) */
			if (l->items[i].kind == TMPL_LIST && (type_of(e, &l->items[i], bad), *bad))
				return T_NONE;
			if (!is_table(&l->items[i]))
				all = 0;
		}
		return all ? T_TABLE_ARRAY : T_ARRAY;
	}
	return T_SCALAR;
}

static int element(enc *e, const tmpl_value *v);
static int table_body(enc *e, key *k, const tmpl_value *v, int inl);

static int element(enc *e, const tmpl_value *v)
{
	char buf[64];
	switch (v->kind) {
	case TMPL_STRING:
		quoted(e, v->u.s.ptr, v->u.s.len);
		return 0;
	case TMPL_BOOL:
		wstr(e, v->u.b ? "true" : "false");
		return 0;
	case TMPL_INT:
	case TMPL_INT64:
		bh_buf_printf(e->out, "%lld", (long long)v->u.i);
		e->written = 1;
		return 0;
	case TMPL_UINT8:
	case TMPL_UINT64:
		bh_buf_printf(e->out, "%llu", (unsigned long long)v->u.u);
		e->written = 1;
		return 0;
	case TMPL_FLOAT64: {
		double f = v->u.f;
		if (isnan(f)) {
			wstr(e, signbit(f) ? "-nan" : "nan");
		} else if (isinf(f)) {
			wstr(e, f < 0 ? "-inf" : "inf");
		} else {
			go_format_float(buf, sizeof buf, f, 'g', -1);
			wstr(e, buf);
			if (!strpbrk(buf, ".e"))
				wstr(e, ".0");
		}
		return 0;
	}
	case TMPL_BYTES:
		wstr(e, "[");
		for (size_t i = 0; i < v->u.s.len; i++) {
			if (i)
				wstr(e, ", ");
			bh_buf_printf(e->out, "%u", (unsigned char)v->u.s.ptr[i]);
		}
		wstr(e, "]");
		return 0;
	case TMPL_LIST: {
		const tmpl_list *l = v->u.list;
		wstr(e, "[");
		for (size_t i = 0; i < l->len; i++) {
			if (element(e, &l->items[i]))
				return -1;
			if (i + 1 != l->len)
				wstr(e, ", ");
		}
		wstr(e, "]");
		return 0;
	}
	case TMPL_MAP: {
		key k;
		k.n = 0;
		return table_body(e, &k, v, 1);
	}
	case TMPL_OBJECT: {
		if (toml_is_time(v)) {
			toml_time_text(v, e->out);
			e->written = 1;
			return 0;
		}
		json_t *j = tmpl_value_to_json(v, e->err);
		int rc = 0;
		if (!j)
			return -1;
		if (json_is_string(j)) {
			quoted(e, json_string_value(j), json_string_length(j));
		} else {
			bh_error_set(e->err, BH_EINVAL, "toml: unsupported type %s", tmpl_value_type_name(v));
			rc = -1;
		}
		json_decref(j);
		return rc;
	}
	case TMPL_NIL:
	case TMPL_INVALID:
		bh_error_set(e->err, BH_EINVAL, "toml: cannot encode a nil value");
		return -1;
	case TMPL_COMPLEX:
		bh_error_set(e->err, BH_EINVAL, "toml: unsupported type: complex128");
		return -1;
	}
	return 0;
}

static int encode(enc *e, key *k, const tmpl_value *v);

/* The struct/map fields of a table-like object as a map value. */
static const tmpl_map *object_map(enc *e, const tmpl_value *v, tmpl_map *tmp)
{
	(void)e;
	(void)tmp;
	if (v->kind == TMPL_MAP)
		return v->u.map;
	return NULL;
}

static int cmpkey(const void *a, const void *b)
{
	const tmpl_map_entry *const *x = a, *const *y = b;
	size_t n = (*x)->keylen < (*y)->keylen ? (*x)->keylen : (*y)->keylen;
	int c = memcmp((*x)->key, (*y)->key, n);
	if (c)
		return c;
	return (*x)->keylen < (*y)->keylen ? -1 : (*x)->keylen > (*y)->keylen;
}

static int table_body(enc *e, key *k, const tmpl_value *v, int inl)
{
	const tmpl_map *m = object_map(e, v, NULL);
	const tmpl_map_entry **direct, **sub;
	size_t nd = 0, ns = 0;
	int rc = 0, bad = 0;
	if (!m) {
		/* a Go struct: its fields in declaration order (JSON view), scalars only */
		json_t *j = tmpl_value_to_json(v, e->err);
		const char *fk;
		json_t *fv;
		size_t i = 0, nf;
		if (!j)
			return -1;
		nf = json_object_size(j);
		if (inl)
			wstr(e, "{");
		json_object_foreach(j, fk, fv) {
			i++;
			if (json_is_null(fv))
				continue;
			if (!json_is_string(fv) && !json_is_number(fv) && !json_is_boolean(fv)) {
				rc = bh_error_set(e->err, BH_EINVAL, "toml: unsupported type %s", tmpl_value_type_name(v));
				break;
			}
			if (inl) {
				key_part(e, fk, strlen(fk));
				wstr(e, " = ");
			} else {
				k->parts[k->n] = fk;
				k->lens[k->n] = strlen(fk);
				k->n++;
				indent(e, k);
				k->n--;
				key_part(e, fk, strlen(fk));
				wstr(e, " = ");
			}
			if (json_is_string(fv)) {
				quoted(e, json_string_value(fv), json_string_length(fv));
			} else if (json_is_integer(fv)) {
				bh_buf_printf(e->out, "%lld", (long long)json_integer_value(fv));
			} else if (json_is_real(fv)) {
				tmpl_value fl = tmpl_float(json_real_value(fv));
				element(e, &fl);
			} else {
				wstr(e, json_is_true(fv) ? "true" : "false");
			}
			if (inl && i != nf)
				wstr(e, ", ");
			if (!inl)
				newline(e);
		}
		if (inl)
			wstr(e, "}");
		json_decref(j);
		return rc ? -1 : 0;
	}
	direct = calloc(m->len + 1, sizeof *direct);
	sub = calloc(m->len + 1, sizeof *sub);
	if (!direct || !sub) {
		free(direct);
		free(sub);
		return bh_error_set(e->err, BH_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < m->len; i++) {
		enum ttype t = type_of(e, &m->entries[i].val, &bad);
		if (bad) {
			rc = -1;
			goto out;
		}
		if (t == T_TABLE || t == T_TABLE_ARRAY)
			sub[ns++] = &m->entries[i];
		else
			direct[nd++] = &m->entries[i];
	}
	qsort(direct, nd, sizeof *direct, cmpkey);
	qsort(sub, ns, sizeof *sub, cmpkey);
	if (inl)
		wstr(e, "{");
	for (int pass = 0; pass < 2 && rc == 0; pass++) {
		const tmpl_map_entry **list = pass ? sub : direct;
		size_t cnt = pass ? ns : nd;
		for (size_t i = 0; i < cnt && rc == 0; i++) {
			const tmpl_map_entry *en = list[i];
			if (is_nilish(&en->val))
				continue;
			if (inl) {
				key_part(e, en->key, en->keylen);
				wstr(e, " = ");
				rc = element(e, &en->val);
				if ((pass == 0 && ns > 0) || i + 1 != cnt)
					wstr(e, ", ");
			} else {
				if (k->n >= TOML_ENCODE_MAX_DEPTH) {
					rc = bh_error_set(e->err, BH_ELIMIT, "toml: nesting deeper than %d", TOML_ENCODE_MAX_DEPTH);
					break;
				}
				k->parts[k->n] = en->key;
				k->lens[k->n] = en->keylen;
				k->n++;
				rc = encode(e, k, &en->val);
				k->n--;
			}
		}
	}
	if (inl && rc == 0)
		wstr(e, "}");
out:
	free(direct);
	free(sub);
	return rc ? -1 : 0;
}

static int encode(enc *e, key *k, const tmpl_value *v)
{
	int bad = 0;
	enum ttype t;
	if (is_nilish(v))
		return 0;
	t = type_of(e, v, &bad);
	if (bad)
		return -1;
	if (t == T_TABLE) {
		if (k->n == 1)
			newline(e);
		if (k->n > 0) {
			indent(e, k);
			wstr(e, "[");
			key_path(e, k);
			wstr(e, "]");
			newline(e);
		}
		return table_body(e, k, v, 0);
	}
	if (t == T_TABLE_ARRAY) {
		const tmpl_list *l = v->u.list;
		if (k->n == 0)
			return bh_error_set(e->err, BH_EINVAL, "toml: top-level values must be Go maps or structs");
		for (size_t i = 0; i < l->len; i++) {
			newline(e);
			indent(e, k);
			wstr(e, "[[");
			key_path(e, k);
			wstr(e, "]]");
			newline(e);
			if (table_body(e, k, &l->items[i], 0))
				return -1;
		}
		return 0;
	}
	if (k->n == 0)
		return element(e, v);
	indent(e, k);
	key_part(e, k->parts[k->n - 1], k->lens[k->n - 1]);
	wstr(e, " = ");
	if (element(e, v))
		return -1;
	newline(e);
	return 0;
}

int toml_encode(const tmpl_value *v, bh_buf *out, bh_error *err)
{
	enc e = {out, err, 0, 0};
	key *k = calloc(1, sizeof *k);
	size_t start = out->len;
	int rc;
	if (!k)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	rc = encode(&e, k, v);
	free(k);
	if (rc) {
		out->len = start;
		if (out->data)
			out->data[start] = '\0';
		return err->code ? err->code : BH_EINVAL;
	}
	return 0;
}
