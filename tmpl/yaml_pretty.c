/* tmpl/yaml_pretty.c — toYamlPretty on template values (see yaml_pretty.h):
 * the value becomes a json_t tree for lib's v3 emitter (yaml_emit_pretty_hooks);
 * what JSON has no type for goes through the emitter's hooks. */
#include "tmpl/yaml_pretty.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/vec.h"
#include "lib/yaml.h"
#include "tmpl/funcs.h"
#include "tmpl/gotime.h"

/* the leaves written verbatim and the objects that keep their key order */
typedef struct ptrset {
	const json_t **p;
	size_t len, cap;
} ptrset;

typedef struct conv {
	ptrset verbatim, ordered;
	bh_error *err;
} conv;

static int ptrset_add(ptrset *s, const json_t *j)
{
	if (VEC_RESERVE(s->p, s->cap, s->len + 1, 16) < 0)
		return -1;
	s->p[s->len++] = j;
	return 0;
}

static int ptr_cmp(const void *x, const void *y)
{
	uintptr_t a = (uintptr_t)*(const json_t *const *)x, b = (uintptr_t)*(const json_t *const *)y;
	return a < b ? -1 : a > b;
}

static int ptrset_has(const ptrset *s, const json_t *j)
{
	return s->len && bsearch(&j, s->p, s->len, sizeof *s->p, ptr_cmp) != NULL;
}

static int is_verbatim(const json_t *leaf, void *ud)
{
	return ptrset_has(&((conv *)ud)->verbatim, leaf);
}

static int is_ordered(const json_t *object, void *ud)
{
	return ptrset_has(&((conv *)ud)->ordered, object);
}

static json_t *verbatim(conv *c, const char *text)
{
	json_t *j = json_string(text);
	if (j && ptrset_add(&c->verbatim, j)) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* A Go struct (an object whose encoding/json view is an object): v3 writes
 * its fields in order under their lower-cased names; string fields as text,
 * others as null. Other objects: their JSON string, else {}. */
static json_t *object_tree(conv *c, const tmpl_value *v)
{
	const gotime *t = tmpl_time_of(v);
	json_t *j, *r;
	const char *k;
	json_t *x;
	if (t) {
		static const char layout[] = "2006-01-02T15:04:05.999999999Z07:00";
		bh_buf b = BH_BUF_INIT;
		gotime_format(t, layout, sizeof layout - 1, &b);
		r = bh_buf_ok(&b) ? verbatim(c, bh_buf_str(&b)) : NULL;
		bh_buf_free(&b);
		return r;
	}
	j = tmpl_value_to_json(v, c->err);
	if (!j || json_is_string(j))
		return j;
	r = json_object();
	if (r && json_is_object(j) && json_object_size(j) > 0) {
		if (ptrset_add(&c->ordered, r)) {
			json_decref(r);
			r = NULL;
		}
		json_object_foreach(j, k, x) {
			char low[128];
			size_t i;
			if (!r)
				break;
			for (i = 0; k[i] && i + 1 < sizeof low; i++)
				low[i] = (char)tolower((unsigned char)k[i]);
			low[i] = '\0';
			json_object_set_new_nocheck(r, low, json_is_string(x) ? json_incref(x) : json_null());
		}
	}
	json_decref(j);
	return r;
}

static json_t *tree(conv *c, const tmpl_value *v, int depth)
{
	char num[32];
	json_t *r = NULL;
	if (depth > YAML_PRETTY_MAX_DEPTH) {
		bh_error_set(c->err, BH_ELIMIT, "yaml: nesting deeper than %d", YAML_PRETTY_MAX_DEPTH);
		return NULL;
	}
	switch (v->kind) {
	case TMPL_INVALID:
	case TMPL_NIL: return json_null();
	case TMPL_BOOL: return json_boolean(v->u.b);
	case TMPL_INT:
	case TMPL_INT64: return json_integer(v->u.i);
	case TMPL_UINT8:
	case TMPL_UINT64:
		if (v->u.u <= INT64_MAX)
			return json_integer((json_int_t)v->u.u);
		snprintf(num, sizeof num, "%llu", (unsigned long long)v->u.u);
		return verbatim(c, num);
	case TMPL_FLOAT64:
		if (isnan(v->u.f))
			return verbatim(c, ".nan");
		if (isinf(v->u.f))
			return verbatim(c, v->u.f > 0 ? ".inf" : "-.inf");
		return json_real(v->u.f);
	case TMPL_STRING: return json_stringn_nocheck(v->u.s.ptr, v->u.s.len);
	case TMPL_BYTES: { /* yaml.v3 writes a []byte as the list of its bytes */
		json_t *a = json_array();
		for (size_t i = 0; a && i < v->u.s.len; i++)
			if (json_array_append_new(a, json_integer((unsigned char)v->u.s.ptr[i]))) {
				json_decref(a);
				a = NULL;
			}
		if (!a)
			bh_error_set(c->err, BH_ENOMEM, "out of memory");
		return a;
	}
	case TMPL_COMPLEX:
		bh_error_set(c->err, BH_EINVAL, "yaml: cannot marshal type: complex128");
		return NULL;
	case TMPL_OBJECT: return object_tree(c, v);
	case TMPL_LIST:
		r = json_array();
		for (size_t i = 0; r && i < v->u.list->len; i++) {
			json_t *x = tree(c, &v->u.list->items[i], depth + 1);
			if (!x || json_array_append_new(r, x)) {
				json_decref(r);
				return NULL;
			}
		}
		return r;
	case TMPL_MAP:
		r = json_object();
		for (size_t i = 0; r && i < v->u.map->len; i++) {
			const tmpl_map_entry *m = &v->u.map->entries[i];
			json_t *x = tree(c, &m->val, depth + 1);
			if (!x || json_object_setn_new_nocheck(r, m->key, m->keylen, x)) {
				json_decref(r);
				return NULL;
			}
		}
		return r;
	}
	return json_null();
}

int yaml_pretty_encode(const tmpl_value *v, bh_buf *out, bh_error *err)
{
	conv c = {{NULL, 0, 0}, {NULL, 0, 0}, err};
	yaml_pretty_hooks h = {is_verbatim, is_ordered, &c};
	json_t *j;
	int rc;
	bh_error_clear(err);
	j = tree(&c, v, 0);
	if (!j) {
		rc = err->code ? err->code : bh_error_set(err, BH_ENOMEM, "out of memory");
	} else {
		if (c.verbatim.len)
			qsort(c.verbatim.p, c.verbatim.len, sizeof *c.verbatim.p, ptr_cmp);
		if (c.ordered.len)
			qsort(c.ordered.p, c.ordered.len, sizeof *c.ordered.p, ptr_cmp);
		rc = yaml_emit_pretty_hooks(j, &h, out, err);
	}
	json_decref(j);
	free(c.verbatim.p);
	free(c.ordered.p);
	return rc;
}
