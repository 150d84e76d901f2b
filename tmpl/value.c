/* tmpl/value.c — the value model: arena, constructors, lists, maps, JSON
 * bridge and Go's type names / truth. See value.h. */
#include "tmpl/value.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tmpl/funcs.h"
#include "tmpl/internal.h"

/* ---- arena ---- */

/* Chunks are anonymous mappings and the arena never reuses memory, so
 * every block it hands out is already zero (no memset). A chunk's mapping
 * is CHUNK_MIN bytes, header included; its pages are populated
 * POPULATE_STEP at a time as the arena reaches them. On this kind of VM a
 * fresh page costs tens of microseconds, and a populated one half what a
 * page fault costs, so pages are populated in batches; in steps, an
 * arena's last chunk costs only what it holds (populated whole, the two
 * arenas' last chunks were up to 512 KiB of a small chart's peak RSS). */
#define CHUNK_MIN (256 * 1024)
#define POPULATE_STEP (64 * 1024)

static void populate(void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	/* without it (Linux < 5.14) the pages fault in as they are used */
	(void)madvise(p, len, MADV_POPULATE_WRITE);
#endif
}

/* make room for n more bytes in c, within its mapping */
static void chunk_populate(struct arena_chunk *c, size_t n)
{
	size_t hdr = sizeof(*c);
	size_t end = (hdr + c->off + n + POPULATE_STEP - 1) / POPULATE_STEP * POPULATE_STEP - hdr;
	if (end > c->cap)
		end = c->cap;
	populate((char *)c->data + c->size, end - c->size); /* hdr + size is a step's end */
	c->size = end;
}

void tmpl_arena_init(tmpl_arena *a, size_t budget)
{
	a->cur = a->lim = NULL;
	a->chunks = NULL;
	a->used = 0;
	a->budget = budget;
	a->over = 0;
}

/* Counts what the inline bump handed out since the last sync into the
 * chunk's off and used. */
static void arena_sync(tmpl_arena *a)
{
	struct arena_chunk *c = a->chunks;
	if (c) {
		size_t d = (size_t)(a->cur - ((char *)c->data + c->off));
		c->off += d;
		a->used += d;
	}
}

/* Sets cur/lim from the front chunk and the budget left. */
static void arena_window(tmpl_arena *a)
{
	struct arena_chunk *c = a->chunks;
	if (!c) {
		a->cur = a->lim = NULL;
		return;
	}
	a->cur = (char *)c->data + c->off;
	a->lim = (char *)c->data + c->size;
	if (a->budget && a->used >= a->budget)
		a->lim = a->cur;
	else if (a->budget && (size_t)(a->lim - a->cur) > a->budget - a->used)
		a->lim = a->cur + (a->budget - a->used);
}

void tmpl_arena_set_budget(tmpl_arena *a, size_t budget)
{
	arena_sync(a);
	a->budget = budget;
	arena_window(a);
}

/* tmpl_arenas_leave_to_exit(): chunks are no longer unmapped */
static int arena_chunks_kept;

void tmpl_arenas_leave_to_exit(void)
{
	arena_chunks_kept = 1;
}

void tmpl_arena_release(tmpl_arena *a)
{
	struct arena_chunk *c = arena_chunks_kept ? NULL : a->chunks, *n;
	while (c) {
		n = c->next;
		munmap(c, sizeof(*c) + c->cap);
		c = n;
	}
	a->chunks = NULL;
	a->cur = a->lim = NULL;
	a->used = 0;
	a->over = 0;
}

void *tmpl_arena_alloc(tmpl_arena *a, size_t n)
{
	struct arena_chunk *c;
	size_t al = TMPL_ARENA_ALIGN;
	void *p;
	if (!a)
		return NULL;
	n = (n + al - 1) & ~(al - 1);
	if (n == 0)
		n = al;
	if ((size_t)(a->lim - a->cur) >= n) {
		p = a->cur;
		a->cur += n;
		return p;
	}
	arena_sync(a);
	c = a->chunks;
	if (a->budget && (n > a->budget || a->used > a->budget - n)) {
		a->over = 1;
		return NULL;
	}
	if (c && c->size - c->off < n && c->cap - c->off >= n) {
		chunk_populate(c, n);
	} else if (!c || c->size - c->off < n) {
		int big = n > CHUNK_MIN - sizeof(*c);
		size_t sz = big ? sizeof(*c) + n : CHUNK_MIN;
		c = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (c == MAP_FAILED) {
			a->over = 1;
			return NULL;
		}
		if (!big)
			populate(c, POPULATE_STEP); /* before the header is written */
		c->cap = sz - sizeof(*c);
		c->size = big ? c->cap : POPULATE_STEP - sizeof(*c);
		c->off = 0;
		if (c->size < n)
			chunk_populate(c, n);
		if (a->chunks && big) {
			/* big block: keep the current chunk in front */
			c->next = a->chunks->next;
			a->chunks->next = c;
		} else {
			c->next = a->chunks;
			a->chunks = c;
		}
	}
	p = (char *)c->data + c->off;
	c->off += n;
	a->used += n;
	arena_window(a);
	return p;
}

void tmpl_arena_adopt(tmpl_arena *dst, tmpl_arena *src)
{
	struct arena_chunk *last;
	if (!src->chunks)
		return;
	arena_sync(src);
	arena_sync(dst);
	for (last = src->chunks; last->next; last = last->next)
		;
	if (dst->chunks) { /* dst's front chunk stays in front: its bump goes on */
		last->next = dst->chunks->next;
		dst->chunks->next = src->chunks;
	} else {
		dst->chunks = src->chunks;
	}
	dst->used += src->used;
	dst->over |= src->over;
	src->chunks = NULL;
	src->cur = src->lim = NULL;
	src->used = 0;
	arena_window(dst);
}

char *tmpl_arena_strdup(tmpl_arena *a, const char *s, size_t n)
{
	char *p = tmpl_arena_bump(a, n + 1);
	if (!p)
		return NULL;
	if (n)
		memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

int tmpl_arena_over_budget(const tmpl_arena *a)
{
	return a->over;
}

/* ---- constructors ---- */

tmpl_value tmpl_str(tmpl_arena *a, const char *s, size_t n)
{
	char *p = tmpl_arena_strdup(a, s, n);
	if (!p)
		return tmpl_invalid();
	return tmpl_str_static(p, n);
}

tmpl_value tmpl_cstr(tmpl_arena *a, const char *s)
{
	return tmpl_str(a, s, strlen(s));
}

tmpl_value tmpl_str_buf(tmpl_arena *a, const bh_buf *b)
{
	return tmpl_str(a, bh_buf_str(b), b->len);
}

tmpl_value tmpl_bytes(tmpl_arena *a, const void *p, size_t n)
{
	tmpl_value v = tmpl_str(a, p, n);
	if (v.kind == TMPL_STRING)
		v.kind = TMPL_BYTES;
	return v;
}

tmpl_value tmpl_list_value(tmpl_list *l)
{
	tmpl_value v = tmpl_invalid();
	if (!l)
		return v;
	v.kind = TMPL_LIST;
	v.u.list = l;
	return v;
}

const char *tmpl_map_gotype(const tmpl_value *v)
{
	switch (v->view) {
	case TMPL_VIEW_PLAIN: return "map[string]interface {}";
	case TMPL_VIEW_VALUES: return "common.Values";
	default: return v->u.map->gotype;
	}
}


tmpl_value tmpl_map_value(tmpl_map *m)
{
	tmpl_value v = tmpl_invalid();
	if (!m)
		return v;
	v.kind = TMPL_MAP;
	v.u.map = m;
	return v;
}

tmpl_value tmpl_object_value(tmpl_object *o)
{
	tmpl_value v = tmpl_invalid();
	if (!o)
		return v;
	v.kind = TMPL_OBJECT;
	v.u.obj = o;
	return v;
}

tmpl_object *tmpl_object_new(tmpl_arena *a, const tmpl_class *cls, void *data)
{
	tmpl_object *o = tmpl_arena_bump(a, sizeof(*o));
	if (!o)
		return NULL;
	o->cls = cls;
	o->data = data;
	return o;
}

void *tmpl_object_data(const tmpl_value *v, const tmpl_class *cls)
{
	if (!v || v->kind != TMPL_OBJECT || v->u.obj->cls != cls)
		return NULL;
	return v->u.obj->data;
}

/* ---- lists ---- */

tmpl_list *tmpl_list_new(tmpl_arena *a, const char *gotype, size_t cap)
{
	tmpl_list *l = tmpl_arena_bump(a, sizeof(*l));
	if (!l)
		return NULL;
	l->gotype = gotype ? gotype : tmpl_gotype_list_iface;
	if (cap) {
		l->items = tmpl_arena_bump(a, cap * sizeof(tmpl_value));
		if (!l->items)
			return NULL;
		l->cap = cap;
	}
	return l;
}

int tmpl_list_push(tmpl_arena *a, tmpl_list *l, tmpl_value v)
{
	if (l->len == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 4;
		tmpl_value *n = tmpl_arena_bump(a, ncap * sizeof(tmpl_value));
		if (!n)
			return BH_ELIMIT;
		if (l->len)
			memcpy(n, l->items, l->len * sizeof(tmpl_value));
		l->items = n;
		l->cap = ncap;
	}
	l->items[l->len++] = v;
	l->is_nil = 0;
	return 0;
}

tmpl_value tmpl_list_at(const tmpl_list *l, size_t i)
{
	if (!l || i >= l->len)
		return tmpl_invalid();
	return l->items[i];
}

/* ---- maps ---- */

const char tmpl_gotype_map_iface[] = "map[string]interface {}";
const char tmpl_gotype_list_iface[] = "[]interface {}";

static uint32_t hash_key(const char *k, size_t n)
{
	return tmpl_strhash(k, n);
}

tmpl_map *tmpl_map_new(tmpl_arena *a, const char *gotype)
{
	tmpl_map *m = tmpl_arena_bump(a, sizeof(*m));
	if (!m)
		return NULL;
	m->gotype = gotype ? gotype : tmpl_gotype_map_iface;
	m->sorted = 1;
	return m;
}

static void map_reindex(tmpl_map *m)
{
	if (!m->index)
		return;
	memset(m->index, 0, m->index_cap * sizeof(uint32_t));
	for (size_t i = 0; i < m->len; i++) {
		size_t mask = m->index_cap - 1;
		size_t p = hash_key(m->entries[i].key, m->entries[i].keylen) & mask;
		while (m->index[p])
			p = (p + 1) & mask;
		m->index[p] = (uint32_t)(i + 1);
	}
}

static long map_find(const tmpl_map *m, const char *key, size_t keylen)
{
	if (!m)
		return -1;
	return tmpl_map_find_h(m, key, keylen, m->index ? hash_key(key, keylen) : 0);
}


tmpl_value *tmpl_map_get(const tmpl_map *m, const char *key, size_t keylen)
{
	long i = map_find(m, key, keylen);
	return i < 0 ? NULL : &m->entries[i].val;
}

/* m's index sized for its entries (a map of more than 8 has one, at
 * least twice its entries' number of slots) and filled */
static int map_index_build(tmpl_arena *a, tmpl_map *m)
{
	size_t icap = 32;
	uint32_t *idx;
	while (icap < m->len * 4)
		icap *= 2;
	idx = tmpl_arena_bump(a, icap * sizeof(uint32_t));
	if (!idx)
		return BH_ELIMIT;
	m->index = idx;
	m->index_cap = icap;
	map_reindex(m);
	return 0;
}

/* key (not in m) and v as m's last entry, m's index left as it is (the
 * caller brings it up to date) */
static inline int map_push(tmpl_arena *a, tmpl_map *m, const char *key, size_t keylen, tmpl_value v)
{
	if (m->len == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 8;
		tmpl_map_entry *n = tmpl_arena_bump(a, ncap * sizeof(*n));
		if (!n)
			return BH_ELIMIT;
		if (m->len)
			memcpy(n, m->entries, m->len * sizeof(*n));
		m->entries = n;
		m->cap = ncap;
	}
	char *k = tmpl_arena_strdup(a, key, keylen);
	if (!k)
		return BH_ELIMIT;
	if (m->sorted && m->len) {
		const tmpl_map_entry *last = &m->entries[m->len - 1];
		size_t mn = last->keylen < keylen ? last->keylen : keylen;
		int c = memcmp(last->key, key, mn);
		if (c > 0 || (c == 0 && last->keylen > keylen))
			m->sorted = 0;
	}
	m->entries[m->len].key = k;
	m->entries[m->len].keylen = keylen;
	m->entries[m->len].val = v;
	m->len++;
	m->is_nil = 0;
	return 0;
}

/* key (not in m) and v as m's last entry */
static int map_append(tmpl_arena *a, tmpl_map *m, const char *key, size_t keylen, tmpl_value v)
{
	int rc = map_push(a, m, key, keylen, v);
	/* a map of 8 or fewer is scanned, unless it keeps the index it had
	 * when it was larger (tmpl_map_delete): then the index takes the key */
	if (rc || (m->len <= 8 && !m->index))
		return rc;
	if (!m->index || m->len * 2 > m->index_cap)
		return map_index_build(a, m);
	size_t mask = m->index_cap - 1;
	size_t p = hash_key(key, keylen) & mask;
	while (m->index[p])
		p = (p + 1) & mask;
	m->index[p] = (uint32_t)m->len;
	return 0;
}

int tmpl_map_set(tmpl_arena *a, tmpl_map *m, const char *key, size_t keylen, tmpl_value v)
{
	long i = map_find(m, key, keylen);
	if (i >= 0) {
		m->entries[i].val = v;
		return 0;
	}
	return map_append(a, m, key, keylen, v);
}

int tmpl_map_delete(tmpl_map *m, const char *key, size_t keylen)
{
	long i = map_find(m, key, keylen);
	if (i < 0)
		return 0;
	memmove(&m->entries[i], &m->entries[i + 1], (m->len - i - 1) * sizeof(tmpl_map_entry));
	m->len--;
	map_reindex(m);
	return 1;
}

/* 1 when x's key sorts after y's (bytewise, a prefix first): the first
 * bytes compared here, as keys mostly differ early; memcmp for the rest */
static inline int entry_after(const tmpl_map_entry *x, const tmpl_map_entry *y)
{
	size_t n = x->keylen < y->keylen ? x->keylen : y->keylen, i = 0;
	const unsigned char *a = (const unsigned char *)x->key, *b = (const unsigned char *)y->key;
	while (i < n && i < 4 && a[i] == b[i])
		i++;
	if (i < n && i < 4)
		return a[i] > b[i];
	int c = i < n ? memcmp(a + i, b + i, n - i) : 0;
	return c ? c > 0 : x->keylen > y->keylen;
}

static int entry_cmp(const void *a, const void *b)
{
	const tmpl_map_entry *x = a, *y = b;
	size_t n = x->keylen < y->keylen ? x->keylen : y->keylen;
	int c = memcmp(x->key, y->key, n);
	if (c)
		return c;
	return x->keylen < y->keylen ? -1 : x->keylen > y->keylen;
}

/* Maps of up to this many entries are sorted by insertion in place (no
 * comparison callback, no scratch buffer); larger ones by merging sorted
 * runs of MAP_SORT_RUN entries, with scratch room on the stack up to
 * MAP_SORT_STACK entries. */
#define MAP_INSERTION_SORT_MAX 16
#define MAP_SORT_RUN 8
#define MAP_SORT_STACK 64

/* e[0..n) sorted by insertion */
static void entries_insertion_sort(tmpl_map_entry *e, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		tmpl_map_entry t = e[i];
		size_t j = i;
		while (j > 0 && entry_after(&e[j - 1], &t)) {
			e[j] = e[j - 1];
			j--;
		}
		e[j] = t;
	}
}

/* e[0..n) sorted: runs sorted by insertion, then merged bottom-up between
 * e and tmp (n entries of room); the result in e */
static void entries_merge_sort(tmpl_map_entry *e, tmpl_map_entry *tmp, size_t n)
{
	tmpl_map_entry *src = e, *dst = tmp;
	for (size_t i = 0; i < n; i += MAP_SORT_RUN)
		entries_insertion_sort(e + i, n - i < MAP_SORT_RUN ? n - i : MAP_SORT_RUN);
	for (size_t w = MAP_SORT_RUN; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = n - lo < w ? n : lo + w, hi = n - lo < 2 * w ? n : lo + 2 * w;
			size_t a = lo, b = mid, o = lo;
			while (a < mid && b < hi)
				dst[o++] = entry_after(&src[a], &src[b]) ? src[b++] : src[a++];
			while (a < mid)
				dst[o++] = src[a++];
			while (b < hi)
				dst[o++] = src[b++];
		}
		tmpl_map_entry *t = src;
		src = dst;
		dst = t;
	}
	if (src != e)
		memcpy(e, src, n * sizeof(*e));
}

/* m's entries in sorted key order (its index left as it is) */
static void map_sort_entries(tmpl_map *m)
{
	tmpl_map_entry stack[MAP_SORT_STACK], *tmp;
	if (m->len <= MAP_INSERTION_SORT_MAX)
		entries_insertion_sort(m->entries, m->len);
	else if (m->len <= MAP_SORT_STACK)
		entries_merge_sort(m->entries, stack, m->len);
	else if ((tmp = malloc(m->len * sizeof(*tmp)))) {
		entries_merge_sort(m->entries, tmp, m->len);
		free(tmp);
	} else {
		qsort(m->entries, m->len, sizeof(tmpl_map_entry), entry_cmp);
	}
	m->sorted = 1;
}

void tmpl_map_sort(tmpl_map *m)
{
	if (!m || m->sorted)
		return;
	map_sort_entries(m);
	map_reindex(m);
}

/* ---- JSON bridge ---- */

tmpl_value tmpl_value_from_json(tmpl_arena *a, const json_t *j)
{
	size_t i;
	switch (json_typeof(j)) {
	case JSON_OBJECT: {
		tmpl_map *m = tmpl_map_new(a, NULL);
		const char *k;
		size_t klen, n = json_object_size(j);
		json_t *v;
		int nul_seen = 0;
		if (!m)
			return tmpl_invalid();
		if (n) {
			m->entries = tmpl_arena_bump(a, n * sizeof(*m->entries));
			if (!m->entries)
				return tmpl_invalid();
			m->cap = n;
		}
		/* an object's keys are distinct, so they are appended without a
		 * look-up (the index is made once, after the sort), until a key
		 * with a NUL: its name is cut there (as before) and may then
		 * equal another's, so from there on with look-ups */
		/* an iterator walked by hand: json_object_keylen_foreach
		 * would look each key's iterator up again from the key */
		for (void *it = json_object_iter((json_t *)j); it; it = json_object_iter_next((json_t *)j, it)) {
			k = json_object_iter_key(it);
			klen = json_object_iter_key_len(it);
			v = json_object_iter_value(it);
			tmpl_value x = tmpl_value_from_json(a, v);
			size_t kl = strlen(k);
			if (x.kind == TMPL_INVALID)
				return x;
			if (kl != klen && !nul_seen) {
				nul_seen = 1;
				if (m->len > 8 && map_index_build(a, m))
					return tmpl_invalid();
			}
			if (nul_seen ? tmpl_map_set(a, m, k, kl, x) : map_push(a, m, k, kl, x))
				return tmpl_invalid();
		}
		if (!nul_seen && m->len > 8) {
			if (!m->sorted)
				map_sort_entries(m);
			if (map_index_build(a, m))
				return tmpl_invalid();
		}
		tmpl_map_sort(m);
		return tmpl_map_value(m);
	}
	case JSON_ARRAY: {
		tmpl_list *l = tmpl_list_new(a, NULL, json_array_size(j));
		if (!l)
			return tmpl_invalid();
		for (i = 0; i < json_array_size(j); i++) {
			tmpl_value x = tmpl_value_from_json(a, json_array_get(j, i));
			if (x.kind == TMPL_INVALID)
				return x;
			if (tmpl_list_push(a, l, x))
				return tmpl_invalid();
		}
		return tmpl_list_value(l);
	}
	case JSON_STRING:
		return tmpl_str(a, json_string_value(j), json_string_length(j));
	case JSON_INTEGER:
		return tmpl_int64(json_integer_value(j));
	case JSON_REAL:
		return tmpl_float(json_real_value(j));
	case JSON_TRUE:
		return tmpl_bool(1);
	case JSON_FALSE:
		return tmpl_bool(0);
	case JSON_NULL:
	default:
		return tmpl_nil();
	}
}

static json_t *to_json(const tmpl_value *v, bh_error *err, int depth);

json_t *tmpl_value_to_json(const tmpl_value *v, bh_error *err)
{
	return to_json(v, err, 0);
}

static json_t *to_json(const tmpl_value *v, bh_error *err, int depth)
{
	json_t *r;
	size_t i;
	if (depth > 1000) {
		bh_error_set(err, BH_ELIMIT, "json: nesting deeper than 1000");
		return NULL;
	}
	switch (v->kind) {
	case TMPL_INVALID:
	case TMPL_NIL:
		return json_null();
	case TMPL_BOOL:
		return json_boolean(v->u.b);
	case TMPL_INT:
	case TMPL_INT64:
		return json_integer(v->u.i);
	case TMPL_UINT8:
	case TMPL_UINT64:
		return json_integer((json_int_t)v->u.u);
	case TMPL_FLOAT64:
		return json_real(v->u.f);
	case TMPL_STRING:
		return json_stringn_nocheck(v->u.s.ptr, v->u.s.len);
	case TMPL_BYTES: {
		if (v->view) /* a nil slice */
			return json_null();
		/* encoding/json writes []byte as base64 */
		static const char b64[] =
			"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		bh_buf b = BH_BUF_INIT;
		const unsigned char *p = (const unsigned char *)v->u.s.ptr;
		size_t n = v->u.s.len;
		for (i = 0; i + 2 < n; i += 3) {
			unsigned x = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
			bh_buf_putc(&b, b64[x >> 18]);
			bh_buf_putc(&b, b64[(x >> 12) & 63]);
			bh_buf_putc(&b, b64[(x >> 6) & 63]);
			bh_buf_putc(&b, b64[x & 63]);
		}
		if (n - i == 1) {
			unsigned x = (unsigned)p[i] << 16;
			bh_buf_putc(&b, b64[x >> 18]);
			bh_buf_putc(&b, b64[(x >> 12) & 63]);
			bh_buf_puts(&b, "==");
		} else if (n - i == 2) {
			unsigned x = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8;
			bh_buf_putc(&b, b64[x >> 18]);
			bh_buf_putc(&b, b64[(x >> 12) & 63]);
			bh_buf_putc(&b, b64[(x >> 6) & 63]);
			bh_buf_putc(&b, '=');
		}
		r = json_stringn(bh_buf_str(&b), b.len);
		bh_buf_free(&b);
		return r;
	}
	case TMPL_LIST:
		if (v->u.list->is_nil)
			return json_null();
		r = json_array();
		for (i = 0; i < v->u.list->len; i++) {
			json_t *x = to_json(&v->u.list->items[i], err, depth + 1);
			if (!x) {
				json_decref(r);
				return NULL;
			}
			json_array_append_new(r, x);
		}
		return r;
	case TMPL_MAP:
		if (v->u.map->is_nil)
			return json_null();
		r = json_object();
		for (i = 0; i < v->u.map->len; i++) {
			const tmpl_map_entry *e = &v->u.map->entries[i];
			json_t *x = to_json(&e->val, err, depth + 1);
			if (!x) {
				json_decref(r);
				return NULL;
			}
			json_object_setn_new_nocheck(r, e->key, e->keylen, x);
		}
		return r;
	case TMPL_OBJECT:
		if (v->u.obj->cls->to_json)
			return v->u.obj->cls->to_json(v, err);
		return json_object();
	case TMPL_COMPLEX:
		bh_error_set(err, BH_EINVAL, "json: unsupported type: complex128");
		return NULL;
	}
	return json_null();
}

/* ---- Go semantics ---- */

const char *tmpl_value_type_name(const tmpl_value *v)
{
	switch (v->kind) {
	case TMPL_INVALID:
	case TMPL_NIL: return "<nil>";
	case TMPL_BOOL: return "bool";
	case TMPL_INT: return "int";
	case TMPL_INT64: return "int64";
	case TMPL_UINT8: return "uint8";
	case TMPL_UINT64: return "uint64";
	case TMPL_FLOAT64: return "float64";
	case TMPL_STRING: return "string";
	case TMPL_BYTES: return "[]uint8";
	case TMPL_LIST: return v->u.list->gotype;
	case TMPL_MAP: return tmpl_map_gotype(v);
	case TMPL_OBJECT: return v->u.obj->cls->gotype;
	case TMPL_COMPLEX: return "complex128";
	}
	return "<nil>";
}

int tmpl_value_truth(const tmpl_value *v)
{
	switch (v->kind) {
	case TMPL_INVALID:
	case TMPL_NIL: return 0;
	case TMPL_BOOL: return v->u.b;
	case TMPL_INT:
	case TMPL_INT64: return v->u.i != 0;
	case TMPL_UINT8:
	case TMPL_UINT64: return v->u.u != 0;
	case TMPL_FLOAT64: return v->u.f != 0;
	case TMPL_STRING:
	case TMPL_BYTES: return v->u.s.len > 0;
	case TMPL_LIST: return v->u.list->len > 0;
	case TMPL_MAP: return v->u.map->len > 0;
	case TMPL_OBJECT: return 1;
	case TMPL_COMPLEX: return v->u.c.re != 0 || v->u.c.im != 0;
	}
	return 0;
}

int tmpl_value_empty(const tmpl_value *v)
{
	return !tmpl_value_truth(v);
}

int tmpl_value_is_nil(const tmpl_value *v)
{
	return v->kind == TMPL_INVALID || v->kind == TMPL_NIL;
}
