/* tmpl/funcs_dicts.c — Sprig's dictionary functions (dict.go): dict, get,
 * set, unset, hasKey, pluck, dig, keys, values, pick, omit, and merge /
 * mergeOverwrite with dario.cat/mergo v1 semantics (the rules that decide
 * which side wins are spelled out in merge_into). */
#include <string.h>

#include "tmpl/funcs.h"
#include "tmpl/sprig_util.h"

static const char MSI[] = "map[string]interface {}";

static int ret_map(tmpl_call *c, tmpl_map *m)
{
	c->result = tmpl_map_value(m);
	return 0;
}

static int fn_dict(tmpl_call *c)
{
	tmpl_map *m = sprig_map(c, NULL);
	bh_buf k = BH_BUF_INIT;
	if (!m)
		return BH_ELIMIT;
	for (int i = 0; i < c->argc; i += 2) {
		tmpl_value v = i + 1 < c->argc ? c->argv[i + 1] : tmpl_str_static("", 0);
		/* a string key is its own text (tmpl_to_string's): no copy
		 * through a buffer, which was a malloc per dict */
		if (c->argv[i].kind == TMPL_STRING) {
			const char *key = c->argv[i].u.s.ptr ? c->argv[i].u.s.ptr : "";
			if (tmpl_map_set(c->arena, m, key, c->argv[i].u.s.len, v)) {
				bh_buf_free(&k);
				return sprig_oom(c);
			}
			continue;
		}
		bh_buf_reset(&k);
		tmpl_to_string(&k, &c->argv[i]);
		if (!bh_buf_ok(&k) || tmpl_map_set(c->arena, m, k.data ? k.data : "", k.len, v)) {
			bh_buf_free(&k);
			return sprig_oom(c);
		}
	}
	bh_buf_free(&k);
	return ret_map(c, m);
}

#define MAP_ARG(k) (c->argv[k].u.map)
#define STR_ARG(k) (c->argv[k].u.s.ptr), (c->argv[k].u.s.len)

static int fn_get(tmpl_call *c)
{
	tmpl_value *v = tmpl_map_get(MAP_ARG(0), STR_ARG(1));
	if (v) {
		c->result = *v;
		return 0;
	}
	c->result = tmpl_str_static("", 0);
	return 0;
}

static int fn_set(tmpl_call *c)
{
	tmpl_map *m = MAP_ARG(0);
	if (m->is_nil)
		return tmpl_call_errorf(c, "assignment to entry in nil map");
	if (tmpl_map_set(c->arena, m, STR_ARG(1), c->argv[2]))
		return sprig_oom(c);
	c->result = c->argv[0];
	return 0;
}

static int fn_unset(tmpl_call *c)
{
	tmpl_map_delete(MAP_ARG(0), STR_ARG(1));
	c->result = c->argv[0];
	return 0;
}

static int fn_has_key(tmpl_call *c)
{
	c->result = tmpl_bool(tmpl_map_get(MAP_ARG(0), STR_ARG(1)) != NULL);
	return 0;
}

static int fn_pluck(tmpl_call *c)
{
	tmpl_list *l = sprig_list(c, NULL, (size_t)c->argc);
	if (!l)
		return BH_ELIMIT;
	for (int i = 1; i < c->argc; i++) {
		tmpl_value *v = tmpl_map_get(MAP_ARG(i), STR_ARG(0));
		if (v && tmpl_list_push(c->arena, l, *v))
			return sprig_oom(c);
	}
	c->result = tmpl_list_value(l);
	return 0;
}

/* The %T of an interface{} argument for interface-conversion panics. */
static const char *iface_type(const tmpl_value *v)
{
	return tmpl_value_is_nil(v) ? "nil" : tmpl_value_type_name(v);
}

static int fn_dig(tmpl_call *c)
{
	const tmpl_value *d;
	int nkeys = c->argc - 2;
	if (c->argc < 3)
		return tmpl_call_errorf(c, "dig needs at least three arguments");
	d = &c->argv[c->argc - 1];
	if (d->kind != TMPL_MAP || strcmp(tmpl_map_gotype(d), MSI) != 0)
		return tmpl_call_errorf(c, "interface conversion: interface {} is %s, not %s", iface_type(d), MSI);
	for (int i = 0; i < nkeys; i++)
		if (c->argv[i].kind != TMPL_STRING)
			return tmpl_call_errorf(c, "interface conversion: interface {} is %s, not string",
						iface_type(&c->argv[i]));
	for (int i = 0; i < nkeys; i++) {
		tmpl_value *step = tmpl_map_get(d->u.map, c->argv[i].u.s.ptr, c->argv[i].u.s.len);
		if (!step) {
			c->result = c->argv[c->argc - 2];
			return 0;
		}
		if (i == nkeys - 1) {
			c->result = *step;
			return 0;
		}
		if (step->kind != TMPL_MAP || strcmp(tmpl_map_gotype(step), MSI) != 0)
			return tmpl_call_errorf(c, "interface conversion: interface {} is %s, not %s",
						iface_type(step), MSI);
		d = step;
	}
	c->result = c->argv[c->argc - 2];
	return 0;
}

/* keys and values come out in sorted key order: Go's order is random, and
 * any fixed order is one Go could have produced. */
static int fn_keys(tmpl_call *c)
{
	tmpl_list *l = sprig_list(c, "[]string", 8);
	if (!l)
		return BH_ELIMIT;
	for (int i = 0; i < c->argc; i++) {
		tmpl_map *m = MAP_ARG(i);
		tmpl_map_sort(m);
		for (size_t k = 0; k < m->len; k++) {
			tmpl_value s = tmpl_str(c->arena, m->entries[k].key, m->entries[k].keylen);
			if (s.kind != TMPL_STRING || tmpl_list_push(c->arena, l, s))
				return sprig_oom(c);
		}
	}
	c->result = tmpl_list_value(l);
	return 0;
}

static int fn_values(tmpl_call *c)
{
	tmpl_map *m = MAP_ARG(0);
	tmpl_list *l = sprig_list(c, NULL, m->len);
	if (!l)
		return BH_ELIMIT;
	tmpl_map_sort(m);
	for (size_t k = 0; k < m->len; k++)
		if (tmpl_list_push(c->arena, l, m->entries[k].val))
			return sprig_oom(c);
	c->result = tmpl_list_value(l);
	return 0;
}

static int fn_pick(tmpl_call *c)
{
	tmpl_map *out = sprig_map(c, NULL);
	if (!out)
		return BH_ELIMIT;
	for (int i = 1; i < c->argc; i++) {
		tmpl_value *v = tmpl_map_get(MAP_ARG(0), STR_ARG(i));
		if (v && tmpl_map_set(c->arena, out, STR_ARG(i), *v))
			return sprig_oom(c);
	}
	return ret_map(c, out);
}

static int fn_omit(tmpl_call *c)
{
	tmpl_map *m = MAP_ARG(0), *out = sprig_map(c, NULL);
	if (!out)
		return BH_ELIMIT;
	for (size_t k = 0; k < m->len; k++) {
		const tmpl_map_entry *e = &m->entries[k];
		int skip = 0;
		for (int i = 1; i < c->argc && !skip; i++)
			skip = c->argv[i].u.s.len == e->keylen && memcmp(c->argv[i].u.s.ptr, e->key, e->keylen) == 0;
		if (!skip && tmpl_map_set(c->arena, out, e->key, e->keylen, e->val))
			return sprig_oom(c);
	}
	return ret_map(c, out);
}

/* mergo's isEmptyValue seen through an interface{} (dereferenced). */
static int mergo_empty(const tmpl_value *v)
{
	if (v->kind == TMPL_COMPLEX)
		return 0;
	return tmpl_value_empty(v);
}

static int is_slice(const tmpl_value *v)
{
	return v->kind == TMPL_LIST || v->kind == TMPL_BYTES;
}

/* mergo deepMerge of two map[string]interface{} values (dst modified). */
static int merge_into(tmpl_call *c, tmpl_map *dst, const tmpl_map *src, int overwrite, int depth)
{
	if (depth > 1000)
		return tmpl_call_errorf(c, "maps nested too deeply to merge");
	for (size_t i = 0; i < src->len; i++) {
		const tmpl_map_entry *e = &src->entries[i];
		tmpl_value sv = e->val;
		tmpl_value *dp = tmpl_map_get(dst, e->key, e->keylen);
		tmpl_value dv = dp ? *dp : tmpl_invalid();
		int have = dp != NULL;
		/* a nil interface in src: only overwrite copies it */
		if (tmpl_value_is_nil(&sv)) {
			if (overwrite && tmpl_map_set(c->arena, dst, e->key, e->keylen, tmpl_nil()))
				return sprig_oom(c);
			continue;
		}
		if (sv.kind == TMPL_MAP) {
			/* merged in place into a map in dst; nothing for other dst values */
			if (have && dv.kind == TMPL_MAP) {
				int r = merge_into(c, dv.u.map, sv.u.map, overwrite, depth + 1);
				if (r)
					return r;
			}
		} else if (is_slice(&sv)) {
			/* mergo tests emptiness of the two maps here, not of the values */
			tmpl_value ds = dv;
			if (!have || tmpl_value_is_nil(&dv)) {
				tmpl_list *l = sprig_list(c, sv.kind == TMPL_LIST ? sv.u.list->gotype : "[]uint8", 0);
				if (!l)
					return BH_ELIMIT;
				ds = tmpl_list_value(l);
				if (sv.kind == TMPL_BYTES)
					ds = tmpl_bytes(c->arena, "", 0);
			}
			if (overwrite || dst->len == 0)
				ds = sv;
			if (tmpl_map_set(c->arena, dst, e->key, e->keylen, ds))
				return sprig_oom(c);
		}
		if (have && !mergo_empty(&dv)) {
			if (is_slice(&sv))
				continue;
			if (sv.kind == TMPL_MAP && dv.kind == TMPL_MAP)
				continue;
		}
		if (overwrite || !have || mergo_empty(&dv)) {
			if (tmpl_map_set(c->arena, dst, e->key, e->keylen, sv))
				return sprig_oom(c);
		}
	}
	return 0;
}

static int merge(tmpl_call *c, int overwrite)
{
	tmpl_map *dst = MAP_ARG(0);
	for (int i = 1; i < c->argc; i++) {
		tmpl_map *src = MAP_ARG(i);
		if (dst->is_nil && !src->is_nil) {
			dst = sprig_map(c, tmpl_map_gotype(&c->argv[0]));
			if (!dst)
				return BH_ELIMIT;
		}
		int r = merge_into(c, dst, src, overwrite, 0);
		if (r)
			return r;
	}
	/* the argument itself keeps its conversion to map[string]interface {} */
	c->result = dst == MAP_ARG(0) ? c->argv[0] : tmpl_map_value(dst);
	return 0;
}

static int fn_merge(tmpl_call *c)
{
	return merge(c, 0);
}

static int fn_merge_overwrite(tmpl_call *c)
{
	return merge(c, 1);
}

const tmpl_func_def tmpl_funcs_dicts[] = {
	{"dict", fn_dict, "a*", NULL},
	{"get", fn_get, "ms", NULL},
	{"set", fn_set, "msa", NULL},
	{"unset", fn_unset, "ms", NULL},
	{"hasKey", fn_has_key, "ms", NULL},
	{"pluck", fn_pluck, "sm*", NULL},
	{"dig", fn_dig, "a*", NULL},
	{"keys", fn_keys, "m*", NULL},
	{"values", fn_values, "m", NULL},
	{"pick", fn_pick, "ms*", NULL},
	{"omit", fn_omit, "ms*", NULL},
	{"merge", fn_merge, "mm*", NULL},
	{"mustMerge", fn_merge, "mm*", NULL},
	{"mergeOverwrite", fn_merge_overwrite, "mm*", NULL},
	{"mustMergeOverwrite", fn_merge_overwrite, "mm*", NULL},
	{NULL, NULL, NULL, NULL},
};
