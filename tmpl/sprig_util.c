/* tmpl/sprig_util.c — shared helpers of the Sprig function families. */
#include "tmpl/sprig_util.h"

#include <stdio.h>
#include <string.h>

#include <errno.h>
#include <pthread.h>
#include <sys/random.h>

#include "tmpl/internal.h"

/* DeepEqual follows pointers into the structs: two distinct objects of one
 * class are compared by what they print (%v and %+v) and their JSON. */
static int objects_equal(const tmpl_value *a, const tmpl_value *b)
{
	const tmpl_class *cls = a->u.obj->cls;
	int eq = 1;
	for (int plus = 0; plus < 2 && eq && cls->format; plus++) {
		bh_buf x = BH_BUF_INIT, y = BH_BUF_INIT;
		cls->format(&x, a, plus);
		cls->format(&y, b, plus);
		eq = x.len == y.len && (x.len == 0 || memcmp(x.data, y.data, x.len) == 0);
		bh_buf_free(&x);
		bh_buf_free(&y);
	}
	if (eq && cls->to_json) {
		bh_error err;
		json_t *x = cls->to_json(a, &err), *y = cls->to_json(b, &err);
		eq = x && y && json_equal(x, y);
		json_decref(x);
		json_decref(y);
	}
	return eq;
}

/* the maps/lists being compared by the callers of a deep_equal frame:
 * meeting a pair again means a cycle, which Go's DeepEqual treats as equal */
typedef struct eq_frame {
	const void *a, *b;
	const struct eq_frame *up;
} eq_frame;

static int deep_equal_in(const tmpl_value *a, const tmpl_value *b, int depth, const eq_frame *up);

static int deep_equal(const tmpl_value *a, const tmpl_value *b, int depth, const eq_frame *up)
{
	const void *pa = NULL, *pb = NULL;
	if (a->kind == TMPL_LIST && b->kind == TMPL_LIST) {
		pa = a->u.list;
		pb = b->u.list;
	} else if (a->kind == TMPL_MAP && b->kind == TMPL_MAP) {
		pa = a->u.map;
		pb = b->u.map;
	}
	if (pa) {
		for (const eq_frame *f = up; f; f = f->up)
			if (f->a == pa && f->b == pb)
				return 1;
		eq_frame fr = {pa, pb, up};
		return deep_equal_in(a, b, depth, &fr);
	}
	return deep_equal_in(a, b, depth, up);
}

static int deep_equal_in(const tmpl_value *a, const tmpl_value *b, int depth, const eq_frame *up)
{
	int an = tmpl_value_is_nil(a), bn = tmpl_value_is_nil(b);
	if (an || bn)
		return an && bn;
	if (a->kind != b->kind || depth > SPRIG_MAX_DEPTH)
		return 0;
	switch (a->kind) {
	case TMPL_BOOL:
		return a->u.b == b->u.b;
	case TMPL_INT:
	case TMPL_INT64:
		return a->u.i == b->u.i;
	case TMPL_UINT8:
	case TMPL_UINT64:
		return a->u.u == b->u.u;
	case TMPL_FLOAT64:
		return a->u.f == b->u.f;
	case TMPL_COMPLEX:
		return a->u.c.re == b->u.c.re && a->u.c.im == b->u.c.im;
	case TMPL_STRING:
	case TMPL_BYTES:
		return a->u.s.len == b->u.s.len && memcmp(a->u.s.ptr, b->u.s.ptr, a->u.s.len) == 0;
	case TMPL_LIST: {
		const tmpl_list *x = a->u.list, *y = b->u.list;
		if (strcmp(x->gotype, y->gotype) != 0 || x->is_nil != y->is_nil || x->len != y->len)
			return 0;
		if (x == y)
			return 1;
		for (size_t i = 0; i < x->len; i++)
			if (!deep_equal(&x->items[i], &y->items[i], depth + 1, up))
				return 0;
		return 1;
	}
	case TMPL_MAP: {
		const tmpl_map *x = a->u.map, *y = b->u.map;
		if (strcmp(x->gotype, y->gotype) != 0 || x->is_nil != y->is_nil || x->len != y->len)
			return 0;
		if (x == y)
			return 1;
		for (size_t i = 0; i < x->len; i++) {
			const tmpl_value *o = tmpl_map_get(y, x->entries[i].key, x->entries[i].keylen);
			if (!o || !deep_equal(&x->entries[i].val, o, depth + 1, up))
				return 0;
		}
		return 1;
	}
	case TMPL_OBJECT:
		if (a->u.obj->cls != b->u.obj->cls)
			return 0;
		if (a->u.obj == b->u.obj || a->u.obj->data == b->u.obj->data)
			return 1;
		return objects_equal(a, b);
	default:
		return 0;
	}
}

int sprig_deep_equal(const tmpl_value *a, const tmpl_value *b)
{
	return deep_equal(a, b, 0, NULL);
}

static int deep_copy(tmpl_call *c, const tmpl_value *v, tmpl_value *out, int depth)
{
	tmpl_arena *a = c->arena;
	*out = *v;
	out->iface = 0;
	if (depth > SPRIG_MAX_DEPTH && (v->kind == TMPL_LIST || v->kind == TMPL_MAP)) {
		bh_error_set(c->err, BH_ELIMIT, "%s: values nested more than %d levels deep", c->name,
			     SPRIG_MAX_DEPTH);
		return BH_ELIMIT;
	}
	if (v->kind == TMPL_LIST) {
		const tmpl_list *l = v->u.list;
		tmpl_list *n = tmpl_list_new(a, l->gotype, l->len);
		if (!n)
			return sprig_oom(c);
		n->is_nil = l->is_nil;
		n->cls = l->cls;
		for (size_t i = 0; i < l->len; i++) {
			tmpl_value x;
			int r = deep_copy(c, &l->items[i], &x, depth + 1);
			if (r)
				return r;
			x.iface = l->items[i].iface;
			if (tmpl_list_push(a, n, x))
				return sprig_oom(c);
		}
		*out = tmpl_list_value(n);
	} else if (v->kind == TMPL_MAP) {
		const tmpl_map *m = v->u.map;
		tmpl_map *n = tmpl_map_new(a, m->gotype);
		if (!n)
			return sprig_oom(c);
		n->is_nil = m->is_nil;
		n->cls = m->cls;
		for (size_t i = 0; i < m->len; i++) {
			const tmpl_map_entry *e = &m->entries[i];
			tmpl_value x;
			int r = deep_copy(c, &e->val, &x, depth + 1);
			if (r)
				return r;
			x.iface = e->val.iface;
			if (tmpl_map_set(a, n, e->key, e->keylen, x))
				return sprig_oom(c);
		}
		*out = tmpl_map_value(n);
	} else if (v->kind == TMPL_OBJECT && v->u.obj->cls->deep_copy) {
		out->addr = 0;
		if (v->u.obj->cls->deep_copy(a, v, out))
			return sprig_oom(c);
	}
	out->addr = 0;
	return 0;
}

int sprig_deep_copy(tmpl_call *c, const tmpl_value *v, tmpl_value *out)
{
	return deep_copy(c, v, out, 0);
}

int sprig_check_size(tmpl_call *c, const bh_buf *b)
{
	if (b->len <= SPRIG_MAX_STRING)
		return 0;
	bh_error_set(c->err, BH_ELIMIT, "%s: result larger than %zu bytes", c->name, SPRIG_MAX_STRING);
	return BH_ELIMIT;
}

int sprig_unmarshal_result(tmpl_call *c, json_t *j, int list, const char *msg)
{
	if (j) {
		/* Go's Unmarshal of null sets the slice or map to nil */
		if (list && json_is_null(j)) {
			tmpl_list *l = tmpl_list_new(c->arena, NULL, 0);
			if (l)
				l->is_nil = 1;
			c->result = l ? tmpl_list_value(l) : tmpl_invalid();
		} else if (json_is_null(j)) {
			tmpl_map *m = tmpl_map_new(c->arena, NULL);
			if (m)
				m->is_nil = 1;
			c->result = m ? tmpl_map_value(m) : tmpl_invalid();
		} else {
			c->result = tmpl_value_from_json(c->arena, j);
		}
		json_decref(j);
	} else if (list) {
		tmpl_list *l = tmpl_list_new(c->arena, NULL, 1);
		c->result = l && !tmpl_list_push(c->arena, l, tmpl_cstr(c->arena, msg)) ? tmpl_list_value(l) : tmpl_invalid();
	} else {
		tmpl_map *m = tmpl_map_new(c->arena, NULL);
		c->result = m && !tmpl_map_set(c->arena, m, "Error", 5, tmpl_cstr(c->arena, msg)) ? tmpl_map_value(m)
											: tmpl_invalid();
	}
	if (c->result.kind == TMPL_INVALID)
		return tmpl_call_errorf(c, "out of memory");
	return 0;
}

int sprig_oom(tmpl_call *c)
{
	bh_error_set(c->err, BH_ELIMIT, "template memory limit exceeded in %s", c->name);
	return BH_ELIMIT;
}

int sprig_ret_buf(tmpl_call *c, bh_buf *b)
{
	if (sprig_check_size(c, b)) {
		tmpl_buf_put(c->engine, b);
		return BH_ELIMIT;
	}
	if (!bh_buf_ok(b)) {
		tmpl_buf_put(c->engine, b);
		return sprig_oom(c);
	}
	c->result = tmpl_str_buf(c->arena, b);
	tmpl_buf_put(c->engine, b);
	if (c->result.kind != TMPL_STRING)
		return sprig_oom(c);
	return 0;
}

tmpl_list *sprig_list(tmpl_call *c, const char *gotype, size_t cap)
{
	tmpl_list *l = tmpl_list_new(c->arena, gotype, cap);
	if (!l)
		sprig_oom(c);
	return l;
}

tmpl_map *sprig_map(tmpl_call *c, const char *gotype)
{
	tmpl_map *m = tmpl_map_new(c->arena, gotype);
	if (!m)
		sprig_oom(c);
	return m;
}

/* Kernel randomness (getrandom, as Go's crypto/rand reads it), taken a
 * block at a time: randAlphaNum asks for 8 bytes a character, and a
 * syscall each, or OpenSSL's DRBG set-up, cost more than the template. A
 * pool is per thread, and a forked child starts with an empty one (what
 * is handed out is wiped from the pool). */
static _Thread_local struct {
	unsigned char b[256];
	size_t left;
} pool;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

static void pool_forget(void)
{
	memset(&pool, 0, sizeof pool);
}

static void pool_init(void)
{
	pthread_atfork(NULL, NULL, pool_forget);
}

static int kernel_random(unsigned char *p, size_t n)
{
	while (n > 0) {
		ssize_t got = getrandom(p, n, 0);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

int sprig_random(void *p, size_t n)
{
	unsigned char *o = p;
	pthread_once(&pool_once, pool_init);
	if (n >= sizeof pool.b)
		return kernel_random(o, n);
	while (n > 0) {
		if (!pool.left) {
			if (kernel_random(pool.b, sizeof pool.b))
				return -1;
			pool.left = sizeof pool.b;
		}
		size_t k = n < pool.left ? n : pool.left;
		unsigned char *from = pool.b + sizeof pool.b - pool.left;
		memcpy(o, from, k);
		memset(from, 0, k);
		pool.left -= k;
		o += k;
		n -= k;
	}
	return 0;
}

int sprig_random_below(uint64_t n, uint64_t *out)
{
	uint64_t x, limit = UINT64_MAX - UINT64_MAX % n;
	do {
		if (sprig_random(&x, sizeof x))
			return -1;
	} while (x >= limit);
	*out = x % n;
	return 0;
}

tmpl_list *sprig_strslice(tmpl_call *c, const tmpl_value *v)
{
	tmpl_list *out;
	if (v->kind == TMPL_LIST && strcmp(v->u.list->gotype, "[]string") == 0)
		return v->u.list;
	if (v->kind == TMPL_LIST) {
		const tmpl_list *l = v->u.list;
		out = sprig_list(c, "[]string", l->len);
		if (!out)
			return NULL;
		for (size_t i = 0; i < l->len; i++) {
			if (tmpl_value_is_nil(&l->items[i]))
				continue;
			tmpl_value s = tmpl_to_string_value(c->arena, &l->items[i]);
			if (s.kind != TMPL_STRING || tmpl_list_push(c->arena, out, s)) {
				sprig_oom(c);
				return NULL;
			}
		}
		return out;
	}
	out = sprig_list(c, "[]string", 1);
	if (!out)
		return NULL;
	if (v->kind == TMPL_BYTES) {
		for (size_t i = 0; i < v->u.s.len; i++) {
			char num[8];
			int n = snprintf(num, sizeof num, "%u", (unsigned char)v->u.s.ptr[i]);
			tmpl_value s = tmpl_str(c->arena, num, (size_t)n);
			if (s.kind != TMPL_STRING || tmpl_list_push(c->arena, out, s)) {
				sprig_oom(c);
				return NULL;
			}
		}
		return out;
	}
	if (tmpl_value_is_nil(v))
		return out;
	tmpl_value s = tmpl_to_string_value(c->arena, v);
	if (s.kind != TMPL_STRING || tmpl_list_push(c->arena, out, s)) {
		sprig_oom(c);
		return NULL;
	}
	return out;
}
