/* tmpl/valuejson.c — Go's encoding/json output for tmpl_values (what Helm's
 * toJson/toPrettyJson/toRawJson print, and the input of lib/yaml's toYaml
 * printer): map keys sorted, struct objects in Go field order, []byte as
 * base64, nil slices/maps as null, Go float formatting, NaN/Inf refused with
 * Go's message ("json: unsupported value: NaN"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gojson.h"
#include "lib/yaml_resolve.h"
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

/* encoding/json's text of a finite float64 */
static void put_float_text(bh_buf *out, double f)
{
	/* a whole number below 1e21 is written as 'f' does */
	char w[24];
	size_t k = go_format_whole_float(w, f, 1e21);
	if (k)
		bh_buf_put(out, w, k);
	else
		gojson_format_float(out, f);
}

static int put_float(enc *e, double f)
{
	if (isnan(f))
		return bh_error_set(e->err, BH_EINVAL, "json: unsupported value: NaN");
	if (isinf(f))
		return bh_error_set(e->err, BH_EINVAL, "json: unsupported value: %sInf", f > 0 ? "+" : "-");
	put_float_text(e->out, f);
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

/* ---- the loaded tree of the text, without the text ---- */

struct tree_chunk {
	struct tree_chunk *next;
	size_t cap, used;
	gojson_node nodes[]; /* and number texts after them */
};

typedef struct tree_build {
	tmpl_gojson_tree *t;
	size_t bound; /* an upper bound of the text's length */
} tree_build;

#define TREE_MAX_DEPTH 100

static void *tb_alloc(tree_build *b, size_t n)
{
	struct tree_chunk *c = b->t->chunks;
	n = (n + sizeof(gojson_node) - 1) / sizeof(gojson_node) * sizeof(gojson_node);
	if (!c || c->cap - c->used < n) {
		size_t cap = c ? c->cap * 2 : 4096;
		if (cap < n)
			cap = n;
		c = malloc(sizeof *c + cap);
		if (!c)
			return NULL;
		c->next = b->t->chunks;
		c->cap = cap;
		c->used = 0;
		b->t->chunks = c;
	}
	void *p = (char *)c->nodes + c->used;
	c->used += n;
	return p;
}

/* 1 when tmpl_value_gojson writes s so that gojson_tree_load_yaml gives it
 * back unchanged and yaml_emit_json_text's reader check passes it: valid
 * UTF-8 (else U+FFFD), without DEL, C1 controls (NEL folds as a line break)
 * or U+FFFE/U+FFFF, which the text carries raw and the reader refuses
 * (controls below 0x20, U+2028 and U+2029 are escaped in the text) */
static int str_carried(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		if (u[i] < 0x80) {
			if (u[i] == 0x7F)
				return 0;
			i++;
			continue;
		}
		int32_t r;
		int sz = utf8_rune_go(u + i, n - i, &r);
		if (r <= 0x9F || r == 0xFFFE || r == 0xFFFF) /* r < 0: invalid */
			return 0;
		i += (size_t)sz;
	}
	return 1;
}

static int tb_text(tree_build *b, gojson_node *n, const char *s, size_t len)
{
	char *t = tb_alloc(b, len + 1);
	if (!t)
		return -1;
	memcpy(t, s, len);
	t[len] = '\0';
	n->type = GOJSON_NUMBER;
	n->text = t;
	n->len = len;
	b->bound += len;
	return 0;
}

static int tb_value(tree_build *b, const tmpl_value *v, gojson_node *n, int depth)
{
	char w[24];
	memset(n, 0, sizeof *n);
	if (depth > TREE_MAX_DEPTH)
		return 1;
	switch (v->kind) {
	case TMPL_INVALID:
	case TMPL_NIL:
		n->type = GOJSON_NULL;
		b->bound += 4;
		return 0;
	case TMPL_BOOL:
		n->type = v->u.b ? GOJSON_TRUE : GOJSON_FALSE;
		b->bound += 5;
		return 0;
	case TMPL_INT:
	case TMPL_INT64:
	case TMPL_UINT8:
	case TMPL_UINT64: {
		int neg = (v->kind == TMPL_INT || v->kind == TMPL_INT64) && v->u.i < 0;
		uint64_t x = neg ? 0 - (uint64_t)v->u.i
			     : (v->kind == TMPL_INT || v->kind == TMPL_INT64) ? (uint64_t)v->u.i : (uint64_t)v->u.u;
		char *e = w + sizeof w, *p = e;
		do
			*--p = (char)('0' + x % 10);
		while ((x /= 10) != 0);
		if (neg)
			*--p = '-';
		return tb_text(b, n, p, (size_t)(e - p));
	}
	case TMPL_FLOAT64: {
		if (isnan(v->u.f) || isinf(v->u.f))
			return 1;
		bh_buf f = BH_BUF_INIT;
		put_float_text(&f, v->u.f);
		int rc = bh_buf_ok(&f) ? tb_text(b, n, bh_buf_str(&f), f.len) : -1;
		bh_buf_free(&f);
		return rc;
	}
	case TMPL_STRING:
		if (!str_carried(v->u.s.ptr, v->u.s.len))
			return 1;
		n->type = GOJSON_STRING;
		n->text = (char *)v->u.s.ptr;
		n->len = v->u.s.len;
		b->bound += 6 * v->u.s.len + 2;
		return 0;
	case TMPL_LIST: {
		const tmpl_list *l = v->u.list;
		if (l->is_nil) {
			n->type = GOJSON_NULL;
			b->bound += 4;
			return 0;
		}
		n->type = GOJSON_ARRAY;
		b->bound += 2 + l->len;
		if (l->len == 0)
			return 0;
		n->items = tb_alloc(b, l->len * sizeof(gojson_node));
		if (!n->items)
			return -1;
		n->n = l->len;
		for (size_t i = 0; i < l->len; i++) {
			int rc = tb_value(b, &l->items[i], &n->items[i], depth + 1);
			if (rc)
				return rc;
		}
		return 0;
	}
	case TMPL_MAP: {
		tmpl_map *m = v->u.map;
		if (m->is_nil) {
			n->type = GOJSON_NULL;
			b->bound += 4;
			return 0;
		}
		n->type = GOJSON_OBJECT;
		b->bound += 2;
		if (m->len == 0)
			return 0;
		tmpl_map_sort(m); /* as tmpl_value_gojson does */
		n->items = tb_alloc(b, 2 * m->len * sizeof(gojson_node));
		if (!n->items)
			return -1;
		n->n = m->len;
		for (size_t i = 0; i < m->len; i++) {
			const tmpl_map_entry *me = &m->entries[i];
			gojson_node *k = &n->items[2 * i];
			if (!str_carried(me->key, me->keylen))
				return 1;
			memset(k, 0, sizeof *k);
			k->type = GOJSON_STRING;
			k->text = (char *)me->key;
			k->len = me->keylen;
			n->keys |= gojson_key_bit(me->key, me->keylen);
			b->bound += 6 * me->keylen + 4;
			int rc = tb_value(b, &me->val, &n->items[2 * i + 1], depth + 1);
			if (rc)
				return rc;
		}
		return 0;
	}
	case TMPL_COMPLEX:
	case TMPL_BYTES:
	case TMPL_OBJECT:
		break;
	}
	return 1;
}

void tmpl_gojson_tree_free(tmpl_gojson_tree *t)
{
	while (t->chunks) {
		struct tree_chunk *c = t->chunks;
		t->chunks = c->next;
		free(c);
	}
	t->root = NULL;
}

int tmpl_value_gojson_tree(const tmpl_value *v, tmpl_gojson_tree *t)
{
	tree_build b = {t, 0};
	t->chunks = NULL;
	t->root = tb_alloc(&b, sizeof(gojson_node));
	int rc = t->root ? tb_value(&b, v, t->root, 0) : -1;
	if (rc == 0 && b.bound > GOJSON_MAX_BYTES)
		rc = 1;
	if (rc)
		tmpl_gojson_tree_free(t);
	return rc;
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
