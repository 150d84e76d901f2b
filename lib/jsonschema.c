/* lib/jsonschema.c — see jsonschema.h. The evaluation order, the error tree
 * and its printing follow santhosh-tekuri/jsonschema v6 (validator.go,
 * output.go, kind/kind.go). Schemas are interpreted from the gojson tree;
 * compilation resolves references and compiles regexes up front. */
#include "lib/jsonschema.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gojson.h"
#include "lib/goregex.h"
#include "lib/gostrconv.h"
#include "lib/jsonschema_formats.h"
#include "lib/jsonschema_internal.h"
#include "lib/hash.h"
#include "lib/vec.h"
#include "lib/yaml_resolve.h"

typedef gojson_node node;

/* ---- compiled schema ------------------------------------------------------- */

typedef struct ptr_ent {
	const void *key;
	void *val;
} ptr_ent;

typedef struct ptr_map {
	ptr_ent *e;
	size_t cap, n;
} ptr_map;

struct jsonschema {
	gojson_node *root;
	int draft;            /* 4, 6, 7, 2019, 2020 */
	ptr_map refs;         /* $ref string node -> target schema node */
	ptr_map regexes;      /* pattern string node -> goregex (Go's syntax and matching) */
	ptr_map seen;         /* schema nodes already compiled */
	size_t nschemas;      /* objects with a key compile_schema looks for
			       * (counted by collect_anchors): at most that
			       * many go into `seen` (but in an exact pass) */
	node true_schema;     /* target of urn: references */
	int nanchors;
	struct anchor { char *name; const node *target; } *anchors;
	int has_uneval;       /* unevaluatedProperties/Items appear somewhere */
	int assert_format;    /* assert "format" whatever the draft (meta-schemas) */
};

static size_t ptr_hash(const void *p)
{
	uintptr_t x = (uintptr_t)p;
	x ^= x >> 17;
	x *= 0xed5ad4bbU;
	x ^= x >> 11;
	return (size_t)x;
}

/* m's entries moved to a table of nc (a power of two) entries */
static int map_rehash(ptr_map *m, size_t nc)
{
	size_t i;
	ptr_ent *ne = calloc(nc, sizeof *ne);
	if (!ne)
		return -1;
	for (size_t k = 0; k < m->cap; k++) {
		if (!m->e[k].key)
			continue;
		i = ptr_hash(m->e[k].key) & (nc - 1);
		while (ne[i].key)
			i = (i + 1) & (nc - 1);
		ne[i] = m->e[k];
	}
	free(m->e);
	m->e = ne;
	m->cap = nc;
	return 0;
}

/* Room for `want` entries in all (one allocation, no rehash while they
 * go in); -1 when out of memory */
static int map_reserve(ptr_map *m, size_t want)
{
	size_t nc = m->cap ? m->cap : 64;
	while ((want + 1) * 2 > nc)
		nc *= 2;
	if (nc == m->cap)
		return 0;
	return map_rehash(m, nc);
}

static int map_put(ptr_map *m, const void *key, void *val)
{
	size_t i;
	if ((m->n + 1) * 2 > m->cap && map_rehash(m, m->cap ? m->cap * 2 : 64))
		return -1;
	i = ptr_hash(key) & (m->cap - 1);
	while (m->e[i].key && m->e[i].key != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->e[i].key)
		m->n++;
	m->e[i].key = key;
	m->e[i].val = val;
	return 0;
}

static void *map_get(const ptr_map *m, const void *key)
{
	size_t i;
	if (!m->cap)
		return NULL;
	i = ptr_hash(key) & (m->cap - 1);
	while (m->e[i].key) {
		if (m->e[i].key == key)
			return m->e[i].val;
		i = (i + 1) & (m->cap - 1);
	}
	return NULL;
}

/* ---- tree helpers ---------------------------------------------------------- */

/* Inline, so that a literal name's length is folded; most lookups miss
 * and end at the key mask. */
static inline __attribute__((always_inline)) const node *kw_len(const node *s, const char *name, size_t l)
{
	if (!s || s->type != GOJSON_OBJECT || !(s->keys & gojson_key_bit(name, l)))
		return NULL;
	for (size_t i = s->n; i-- > 0;) /* duplicate keys: the last wins */
		if (s->items[2 * i].len == l && memcmp(s->items[2 * i].text, name, l) == 0)
			return &s->items[2 * i + 1];
	return NULL;
}

static inline __attribute__((always_inline)) const node *kw(const node *s, const char *name)
{
	return kw_len(s, name, strlen(name));
}

static int is_schema(const node *n)
{
	return n && (n->type == GOJSON_OBJECT || n->type == GOJSON_TRUE || n->type == GOJSON_FALSE);
}

static inline __attribute__((always_inline)) const node *kw_schema(const node *s, const char *name)
{
	const node *n = kw(s, name);
	return is_schema(n) ? n : NULL;
}

static inline __attribute__((always_inline)) const char *kw_str(const node *s, const char *name)
{
	const node *n = kw(s, name);
	return n && n->type == GOJSON_STRING ? n->text : NULL;
}

static inline __attribute__((always_inline)) int kw_num(const node *s, const char *name, double *out)
{
	const node *n = kw(s, name);
	if (!n || n->type != GOJSON_NUMBER)
		return 0;
	*out = strtod(n->text, NULL);
	return 1;
}

/* intVal: a number whose value is an integer */
static inline __attribute__((always_inline)) int kw_int(const node *s, const char *name, long long *out)
{
	double d;
	if (!kw_num(s, name, &d) || d != floor(d) || fabs(d) > 9e18)
		return 0;
	*out = (long long)d;
	return 1;
}

static inline __attribute__((always_inline)) int kw_true(const node *s, const char *name)
{
	const node *n = kw(s, name);
	return n && n->type == GOJSON_TRUE;
}

/* ---- compile --------------------------------------------------------------- */

/* The members of one big object (a "$defs" that hundreds of references
 * point into) hashed by key: slot[h] is a member's index + 1, 0 when empty.
 * A later duplicate key takes its slot, so the last wins, as in Go. */
typedef struct key_index {
	const node *obj;
	size_t cap; /* a power of two, at least twice obj->n */
	uint32_t *slot;
} key_index;

/* objects with fewer members are searched by a plain walk */
#define KEY_INDEX_MIN 16

typedef struct compiler {
	jsonschema *s;
	bh_error *err;
	int depth;
	int exact;         /* leaves go through `seen` too */
	int redo;          /* a leaf at the depth limit: compile again, exact */
	key_index *idx;    /* of the big objects references went through */
	size_t nidx, idx_cap;
} compiler;

static void compiler_free_indexes(compiler *c)
{
	for (size_t i = 0; i < c->nidx; i++)
		free(c->idx[i].slot);
	free(c->idx);
	c->idx = NULL;
	c->nidx = c->idx_cap = 0;
}

/* the index of obj's keys (built on first use); NULL when out of memory */
static const key_index *key_index_of(compiler *c, const node *obj)
{
	key_index *ki;
	for (size_t i = 0; i < c->nidx; i++)
		if (c->idx[i].obj == obj)
			return &c->idx[i];
	if (VEC_RESERVE(c->idx, c->idx_cap, c->nidx + 1, 4) < 0)
		return NULL;
	ki = &c->idx[c->nidx];
	ki->obj = obj;
	ki->cap = 64;
	while (ki->cap < 2 * obj->n)
		ki->cap *= 2;
	if (!(ki->slot = calloc(ki->cap, sizeof *ki->slot)))
		return NULL;
	for (size_t m = 0; m < obj->n; m++) {
		const node *k = &obj->items[2 * m];
		size_t h = bh_fnv1a(BH_FNV1A_INIT, k->text, k->len) & (ki->cap - 1);
		while (ki->slot[h]) {
			const node *o = &obj->items[2 * (ki->slot[h] - 1)];
			if (o->len == k->len && memcmp(o->text, k->text, k->len) == 0)
				break;
			h = (h + 1) & (ki->cap - 1);
		}
		ki->slot[h] = (uint32_t)(m + 1);
	}
	c->nidx++;
	return ki;
}

/* The value of obj's member named t[0..tl) (the last of duplicates), or
 * NULL; *oom set when an index could not be built */
static const node *member_find(compiler *c, const node *obj, const char *t, size_t tl, int *oom)
{
	const key_index *ki;
	if (obj->n < KEY_INDEX_MIN || obj->n > UINT32_MAX - 1) {
		for (size_t i = obj->n; i-- > 0;)
			if (obj->items[2 * i].len == tl && memcmp(obj->items[2 * i].text, t, tl) == 0)
				return &obj->items[2 * i + 1];
		return NULL;
	}
	if (!(ki = key_index_of(c, obj))) {
		*oom = 1;
		return NULL;
	}
	for (size_t h = bh_fnv1a(BH_FNV1A_INIT, t, tl) & (ki->cap - 1); ki->slot[h]; h = (h + 1) & (ki->cap - 1)) {
		const node *k = &obj->items[2 * (ki->slot[h] - 1)];
		if (k->len == tl && memcmp(k->text, t, tl) == 0)
			return k + 1;
	}
	return NULL;
}

/* One JSON-pointer token of a URI fragment: percent-decoding, then
 * "~1" -> "/" and "~0" -> "~". */
static int pointer_unescape(const char *tok, size_t n, bh_buf *out)
{
	bh_buf pd = BH_BUF_INIT;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (tok[i] == '%') {
			int h1 = i + 1 < n ? go_unhex((unsigned char)tok[i + 1]) : -1;
			int h2 = i + 2 < n ? go_unhex((unsigned char)tok[i + 2]) : -1;
			if (h1 < 0 || h2 < 0) {
				rc = -1;
				goto out;
			}
			bh_buf_putc(&pd, (char)(h1 * 16 + h2));
			i += 2;
			continue;
		}
		bh_buf_putc(&pd, tok[i]);
	}
	for (size_t i = 0; i < pd.len; i++) {
		if (pd.data[i] == '~') {
			if (i + 1 < pd.len && pd.data[i + 1] == '0') {
				bh_buf_putc(out, '~');
			} else if (i + 1 < pd.len && pd.data[i + 1] == '1') {
				bh_buf_putc(out, '/');
			} else {
				rc = -1;
				goto out;
			}
			i++;
			continue;
		}
		bh_buf_putc(out, pd.data[i]);
	}
out:
	bh_buf_free(&pd);
	return rc;
}

/* Resolves a JSON pointer fragment ("" or "/a/b") against the root;
 * *oom set when out of memory. */
static const node *resolve_pointer(compiler *c, const node *root, const char *frag, int *oom)
{
	const node *cur = root;
	const char *p = frag;
	if (*p == '\0')
		return root;
	if (*p != '/')
		return NULL;
	while (*p == '/' && cur) {
		const char *e = strchr(p + 1, '/');
		size_t l = e ? (size_t)(e - p - 1) : strlen(p + 1);
		bh_buf tok = BH_BUF_INIT;
		const node *next = NULL;
		const char *t = p + 1; /* the token, unescaped */
		size_t tl = l;
		if (memchr(t, '%', l) || memchr(t, '~', l)) {
			if (pointer_unescape(t, l, &tok) < 0) {
				bh_buf_free(&tok);
				return NULL;
			}
			t = bh_buf_str(&tok);
			tl = tok.len;
		}
		if (cur->type == GOJSON_OBJECT) {
			next = member_find(c, cur, t, tl, oom);
		} else if (cur->type == GOJSON_ARRAY) {
			char *end;
			if (!tok.len) /* not unescaped: strtoul wants it NUL-terminated */
				bh_buf_put(&tok, t, tl);
			unsigned long idx = strtoul(bh_buf_str(&tok), &end, 10);
			if (tok.len && *end == '\0' && idx < cur->n && (tok.data[0] != '0' || tok.len == 1))
				next = &cur->items[idx];
		}
		bh_buf_free(&tok);
		cur = next;
		p += l + 1;
	}
	return cur;
}

static const char *draft_id_kw(int draft)
{
	return draft == 4 ? "id" : "$id";
}

static const char *strip_scheme(const char *u)
{
	if (strncmp(u, "http://", 7) == 0)
		return u + 7;
	if (strncmp(u, "https://", 8) == 0)
		return u + 8;
	return u;
}

static int draft_from_url(const char *url)
{
	char buf[256];
	const char *u;
	size_t l;
	snprintf(buf, sizeof buf, "%s", url);
	l = strlen(buf);
	if (l && buf[l - 1] == '#')
		buf[--l] = '\0';
	if (strchr(buf, '#'))
		return 0;
	u = strip_scheme(buf);
	if (!strcmp(u, "json-schema.org/schema")) return 2020;
	if (!strcmp(u, "json-schema.org/draft/2020-12/schema")) return 2020;
	if (!strcmp(u, "json-schema.org/draft/2019-09/schema")) return 2019;
	if (!strcmp(u, "json-schema.org/draft-07/schema")) return 7;
	if (!strcmp(u, "json-schema.org/draft-06/schema")) return 6;
	if (!strcmp(u, "json-schema.org/draft-04/schema")) return 4;
	return 0;
}

/* The base URL part of an id/ref (without fragment), compared loosely. */
static int same_document(const char *a, size_t al, const char *b)
{
	size_t bl = strlen(b);
	while (al && a[al - 1] == '#')
		al--;
	while (bl && b[bl - 1] == '#')
		bl--;
	return al == bl && memcmp(a, b, al) == 0;
}

static int add_anchor(jsonschema *s, const char *name, const node *target)
{
	struct anchor *na = realloc(s->anchors, (size_t)(s->nanchors + 1) * sizeof *na);
	if (!na)
		return -1;
	s->anchors = na;
	na[s->nanchors].name = strdup(name);
	if (!na[s->nanchors].name)
		return -1;
	na[s->nanchors].target = target;
	s->nanchors++;
	return 0;
}

static const node *find_anchor(const jsonschema *s, const char *name)
{
	for (int i = s->nanchors; i-- > 0;)
		if (strcmp(s->anchors[i].name, name) == 0)
			return s->anchors[i].target;
	return NULL;
}

/* The keywords compile_schema looks at, in the order it looks (which
 * decides the error reported first): one X(name, kind) each. Expanded with
 * the names as literals, each lookup folds its key bit and length (a
 * keyword the schema lacks costs one test). */
#define COMPILE_KEYWORDS(X)                                                                                   \
	X("additionalProperties", ONE) X("additionalItems", ONE) X("contains", ONE) X("propertyNames", ONE) \
	X("not", ONE) X("if", ONE) X("then", ONE) X("else", ONE) X("unevaluatedProperties", ONE)            \
	X("unevaluatedItems", ONE) X("items", ONE)                                                            \
	X("allOf", ARR) X("anyOf", ARR) X("oneOf", ARR) X("prefixItems", ARR) X("items", ARR)                 \
	X("properties", MAP) X("patternProperties", MAP) X("dependentSchemas", MAP) X("definitions", MAP)    \
	X("$defs", MAP) X("dependencies", MAP)                                                                \
	X("pattern", NONE) X("$ref", NONE) X("$recursiveRef", NONE) X("$dynamicRef", NONE)

#define KW_BIT(name, kind) | gojson_key_bit(name, sizeof name - 1)
/* the key bits of every keyword compile_schema looks at (folded) */
#define COMPILE_KEY_BITS (0 COMPILE_KEYWORDS(KW_BIT))

/* First pass: anchors anywhere in the document (they may be referenced
 * before they are reached). Only objects can hold one, and most hold none
 * of the keys (one test of the key bits). */
static int collect_anchors(jsonschema *s, const node *n, int depth)
{
	const uint64_t anchor_keys = gojson_key_bit("$anchor", 7) | gojson_key_bit("$dynamicAnchor", 14) |
				     gojson_key_bit("id", 2) | gojson_key_bit("$id", 3);
	if (depth > JSONSCHEMA_MAX_DEPTH)
		return -2;
	s->nschemas += n->type == GOJSON_OBJECT && (n->keys & COMPILE_KEY_BITS);
	if (n->type == GOJSON_OBJECT && (n->keys & anchor_keys)) {
		const char *a = kw_str(n, "$anchor"), *da = kw_str(n, "$dynamicAnchor");
		const char *id = s->draft == 4 ? kw_str(n, "id") : kw_str(n, "$id");
		if (a && add_anchor(s, a, n))
			return -1;
		if (da && add_anchor(s, da, n))
			return -1;
		if (id && s->draft < 2019) {
			const char *h = strchr(id, '#');
			if (h && h[1] && h[1] != '/' && add_anchor(s, h + 1, n))
				return -1;
		}
	}
	if (n->type != GOJSON_OBJECT && n->type != GOJSON_ARRAY)
		return 0;
	/* an object's values are its odd items, an array's all of them */
	size_t step = n->type == GOJSON_OBJECT ? 2 : 1, count = n->n * step;
	for (size_t i = step - 1; i < count; i += step) {
		const node *v = &n->items[i];
		if (v->type != GOJSON_OBJECT && v->type != GOJSON_ARRAY)
			continue; /* a scalar holds no anchor */
		int rc = collect_anchors(s, v, depth + 1);
		if (rc)
			return rc;
	}
	return 0;
}

static int compile_schema(compiler *c, const node *n);

static int resolve_ref(compiler *c, const node *refnode)
{
	const char *ref = refnode->text, *hash = strchr(ref, '#');
	size_t base_len = hash ? (size_t)(hash - ref) : strlen(ref);
	const char *frag = hash ? hash + 1 : "";
	const node *target = NULL;
	const char *rootid = kw_str(c->s->root, draft_id_kw(c->s->draft));
	if (strncmp(ref, "urn:", 4) == 0) {
		/* Helm resolves unknown URNs to a permissive schema */
		return map_put(&c->s->refs, refnode, &c->s->true_schema) ? bh_error_set(c->err, BH_ENOMEM, "out of memory") : 0;
	}
	if (base_len) {
		int local = same_document(ref, base_len, "file:///values.schema.json") ||
			    same_document(ref, base_len, "values.schema.json") ||
			    (rootid && same_document(ref, base_len, rootid));
		if (!local)
			return bh_error_set(c->err, BH_EINVAL,
					    "failing loading \"%.*s\": references outside values.schema.json are not fetched",
					    (int)base_len, ref);
	}
	if (*frag == '/' || *frag == '\0') {
		int oom = 0;
		target = resolve_pointer(c, c->s->root, frag, &oom);
		if (oom)
			return bh_error_set(c->err, BH_ENOMEM, "out of memory");
	} else {
		target = find_anchor(c->s, frag);
	}
	if (!target || !is_schema(target))
		return bh_error_set(c->err, BH_EINVAL, "jsonschema: $ref %s: no schema at that location in values.schema.json", ref);
	if (map_put(&c->s->refs, refnode, (void *)target))
		return bh_error_set(c->err, BH_ENOMEM, "out of memory");
	return compile_schema(c, target);
}

static void regex_free(goregex *re)
{
	goregex_release(re);
	free(re);
}

/* A pattern compiled once per schema; Go's parse (goregex) reports a bad
 * one, which Helm reports as a meta-schema violation of the "regex" format */
static int compile_regex(compiler *c, const node *pat)
{
	bh_buf why = BH_BUF_INIT;
	goregex *re;
	if (map_get(&c->s->regexes, pat))
		return 0;
	if (!(re = calloc(1, sizeof *re)))
		return bh_error_set(c->err, BH_ENOMEM, "out of memory");
	if (goregex_compile(re, pat->text, pat->len, &why)) {
		bh_error_set(c->err, BH_EINVAL, "jsonschema: invalid regex '%s': %s", pat->text, bh_buf_str(&why));
		bh_buf_free(&why);
		free(re);
		return BH_EINVAL;
	}
	bh_buf_free(&why);
	if (map_put(&c->s->regexes, pat, re)) {
		regex_free(re);
		return bh_error_set(c->err, BH_ENOMEM, "out of memory");
	}
	return 0;
}

static int compile_map_of_schemas(compiler *c, const node *m)
{
	if (!m || m->type != GOJSON_OBJECT)
		return 0;
	for (size_t i = 0; i < m->n; i++) {
		int rc = compile_schema(c, &m->items[2 * i + 1]);
		if (rc)
			return rc;
	}
	return 0;
}

static int compile_arr_of_schemas(compiler *c, const node *a)
{
	if (!a || a->type != GOJSON_ARRAY)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		int rc = compile_schema(c, &a->items[i]);
		if (rc)
			return rc;
	}
	return 0;
}

#define COMPILE_ONE compile_schema
#define COMPILE_ARR compile_arr_of_schemas
#define COMPILE_MAP compile_map_of_schemas
#define KW_COMPILE_NONE(name)
#define KW_COMPILE(name, kind) KW_COMPILE_##kind(name)
#define KW_COMPILE_ONE(name) if (!rc && (v = kw(n, name))) rc = COMPILE_ONE(c, v);
#define KW_COMPILE_ARR(name) if (!rc && (v = kw(n, name))) rc = COMPILE_ARR(c, v);
#define KW_COMPILE_MAP(name) if (!rc && (v = kw(n, name))) rc = COMPILE_MAP(c, v);

static int compile_schema(compiler *c, const node *n)
{
	/* the key bits of every keyword looked at below */
	const uint64_t keywords = COMPILE_KEY_BITS;
	int rc = 0;
	const node *v;
	if (!is_schema(n) || n->type != GOJSON_OBJECT)
		return 0;
	if (!c->exact && !(n->keys & keywords)) {
		/* a leaf (most are): nothing to compile, nor to remember as seen;
		 * but one this deep fails unless it was seen, which only the
		 * exact pass knows */
		if (c->depth < JSONSCHEMA_MAX_DEPTH)
			return 0;
		c->redo = 1;
		return BH_ELIMIT;
	}
	if (map_get(&c->s->seen, n))
		return 0;
	if (map_put(&c->s->seen, n, (void *)n))
		return bh_error_set(c->err, BH_ENOMEM, "out of memory");
	if (++c->depth > JSONSCHEMA_MAX_DEPTH) {
		c->depth--;
		return bh_error_set(c->err, BH_ELIMIT, "jsonschema: schema nested deeper than %d levels", JSONSCHEMA_MAX_DEPTH);
	}
	COMPILE_KEYWORDS(KW_COMPILE)
	if (!rc && (v = kw(n, "patternProperties")) && v->type == GOJSON_OBJECT)
		for (size_t i = 0; i < v->n && !rc; i++)
			rc = compile_regex(c, &v->items[2 * i]);
	if (!rc && (v = kw(n, "pattern")) && v->type == GOJSON_STRING)
		rc = compile_regex(c, v);
	if (c->s->draft >= 2019 && (kw(n, "unevaluatedProperties") || kw(n, "unevaluatedItems")))
		c->s->has_uneval = 1;
	if (!rc && (v = kw(n, "$ref")) && v->type == GOJSON_STRING)
		rc = resolve_ref(c, v);
	if (!rc && c->s->draft >= 2019 && (v = kw(n, "$recursiveRef")) && v->type == GOJSON_STRING)
		rc = resolve_ref(c, v);
	if (!rc && c->s->draft >= 2020 && (v = kw(n, "$dynamicRef")) && v->type == GOJSON_STRING)
		rc = resolve_ref(c, v);
	c->depth--;
	return rc;
}

void jsonschema_free(jsonschema *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->regexes.cap; i++)
		if (s->regexes.e[i].key)
			regex_free(s->regexes.e[i].val);
	free(s->regexes.e);
	free(s->refs.e);
	free(s->seen.e);
	for (int i = 0; i < s->nanchors; i++)
		free(s->anchors[i].name);
	free(s->anchors);
	gojson_tree_free(s->root);
	free(s);
}

int jsonschema_compile(const json_t *schema, jsonschema **out, bh_error *err)
{
	bh_buf b = BH_BUF_INIT;
	int rc = gojson_encode(schema, GOJSON_NO_HTML_ESCAPE, &b, err);
	if (!rc)
		rc = jsonschema_compile_text(bh_buf_str(&b), b.len, out, err);
	else
		*out = NULL;
	bh_buf_free(&b);
	return rc;
}

/* ---- validation errors (v6 ValidationError) ----------------------------------- */

enum { E_PLAIN, E_GROUP, E_REF };

typedef struct verr verr;
struct verr {
	int kind;
	char *loc;  /* JSON pointer of the instance */
	char *msg;  /* kind message */
	verr **causes;
	size_t n;
};

static void verr_free(verr *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++)
		verr_free(e->causes[i]);
	free(e->causes);
	free(e->loc);
	free(e->msg);
	free(e);
}

typedef struct errlist {
	verr **v;
	size_t n, cap;
} errlist;

static void errlist_free(errlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		verr_free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

typedef struct uneval {
	int active;
	size_t np, ni;
	char *props; /* 1 = not yet evaluated; indexed like the sorted keys */
	char *items;
} uneval;

typedef struct vctx {
	const jsonschema *s;
	bh_error *err;
	int hard;          /* BH_ENOMEM / BH_ELIMIT once something went wrong */
	size_t steps;
	int depth;
	/* the current instance location: the tokens toks[base..ntok) (a
	 * property name as it is, or an array index when s is NULL), written
	 * out as a JSON pointer only for an error (most values have none) */
	struct loctok { const char *s; size_t n; } toks[JSONSCHEMA_MAX_DEPTH + 2];
	int base, ntok;
	const node *refstack[JSONSCHEMA_MAX_DEPTH];
	size_t refloc[JSONSCHEMA_MAX_DEPTH];
	int nref;
} vctx;

/* the current instance location as a JSON pointer (a new string; NULL
 * when out of memory) */
static char *loc_text(const vctx *c)
{
	bh_buf b = BH_BUF_INIT;
	for (int t = c->base; t < c->ntok; t++) {
		const char *tok = c->toks[t].s;
		size_t n = c->toks[t].n;
		bh_buf_putc(&b, '/');
		if (!tok) {
			bh_buf_printf(&b, "%zu", n);
			continue;
		}
		for (size_t i = 0; i < n;) {
			size_t run = 0; /* characters that stand for themselves */
			while (i + run < n && tok[i + run] != '~' && tok[i + run] != '/')
				run++;
			bh_buf_put(&b, tok + i, run);
			if ((i += run) < n)
				bh_buf_puts(&b, tok[i++] == '~' ? "~0" : "~1");
		}
	}
	return bh_buf_ok(&b) ? bh_buf_detach(&b) : (bh_buf_free(&b), NULL);
}

/* the length of loc_text(c) (what tells locations apart in a chain of
 * references) */
static size_t loc_len(const vctx *c)
{
	size_t len = 0;
	for (int t = c->base; t < c->ntok; t++) {
		const char *tok = c->toks[t].s;
		size_t n = c->toks[t].n;
		if (!tok) {
			char d[32];
			len += 1 + (size_t)snprintf(d, sizeof d, "%zu", n);
			continue;
		}
		len += 1 + n;
		for (size_t i = 0; i < n; i++)
			len += tok[i] == '~' || tok[i] == '/';
	}
	return len;
}

static int errlist_add(vctx *c, errlist *l, verr *e)
{
	if (!e)
		return 0;
	if (VEC_RESERVE(l->v, l->cap, l->n + 1, 4) < 0) {
		verr_free(e);
		c->hard = BH_ENOMEM;
		return -1;
	}
	l->v[l->n++] = e;
	return 0;
}

static verr *mkerr(vctx *c, int kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static verr *mkerr(vctx *c, int kind, const char *fmt, ...)
{
	verr *e = calloc(1, sizeof *e);
	bh_buf m = BH_BUF_INIT;
	va_list ap;
	if (!e) {
		c->hard = BH_ENOMEM;
		return NULL;
	}
	va_start(ap, fmt);
	bh_buf_vprintf(&m, fmt, ap);
	va_end(ap);
	e->kind = kind;
	e->msg = bh_buf_detach(&m);
	e->loc = loc_text(c);
	if (!e->msg || !e->loc) {
		verr_free(e);
		c->hard = BH_ENOMEM;
		return NULL;
	}
	return e;
}

/* an error whose message is taken over from a buffer */
static verr *mkerr_buf(vctx *c, bh_buf *m)
{
	verr *e = mkerr(c, E_PLAIN, "%s", bh_buf_str(m));
	bh_buf_free(m);
	return e;
}

static verr *with_causes(verr *e, errlist *l)
{
	if (!e) {
		errlist_free(l);
		return NULL;
	}
	e->causes = l->v;
	e->n = l->n;
	l->v = NULL;
	l->n = l->cap = 0;
	return e;
}

/* ---- message pieces (kind/kind.go) ----------------------------------------- */

/* kind.quote(): Go's %q, then \" -> " and ' -> \', in single quotes. */
static void quote(bh_buf *b, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	bh_buf_putc(b, '\'');
	for (size_t i = 0; i < n;) {
		int32_t r;
		int sz = utf8_rune_go(s + i, n - i, &r);
		if (r < 0)
			bh_buf_printf(b, "\\x%02x", s[i]);
		else if (r == '\\' && i + 1 == n) /* v6's \" -> " eats the second \ of a final one */
			bh_buf_putc(b, '\\');
		else if (r == '"')
			bh_buf_putc(b, '"');
		else
			go_quote_rune(b, r, '\'', 0);
		i += (size_t)sz;
	}
	bh_buf_putc(b, '\'');
}

static void fmt_float(bh_buf *b, double d)
{
	char t[64];
	go_format_float(t, sizeof t, d, 'g', -1);
	bh_buf_puts(b, t);
}

/* golang.org/x/text/message (English) formatting of %d: digit grouping */
static void loc_int(bh_buf *b, long long v)
{
	char t[32];
	int n = snprintf(t, sizeof t, "%lld", v), start = (t[0] == '-'), digits = n - start;
	if (start)
		bh_buf_putc(b, '-');
	for (int i = start; i < n; i++) {
		bh_buf_putc(b, t[i]);
		digits--;
		if (digits > 0 && digits % 3 == 0)
			bh_buf_putc(b, ',');
	}
}

/* ... and of %v on a float64: Go's shortest %g, with grouping, and the
 * exponent form written as 1.5×10⁻⁰⁷ */
static void loc_float(bh_buf *b, double d)
{
	static const char *const sup[] = {"\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
					  "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
	char t[64], *e, *dot;
	go_format_float(t, sizeof t, d, 'g', -1);
	if (isinf(d) || isnan(d)) {
		bh_buf_puts(b, t);
		return;
	}
	e = strchr(t, 'e');
	if (e) {
		*e = '\0';
		bh_buf_puts(b, t);
		bh_buf_puts(b, "\u00d710");
		for (char *p = e + 1; *p; p++) {
			if (*p == '-')
				bh_buf_puts(b, "\u207b");
			else if (*p >= '0' && *p <= '9')
				bh_buf_puts(b, sup[*p - '0']);
		}
		return;
	}
	dot = strchr(t, '.');
	{
		size_t il = dot ? (size_t)(dot - t) : strlen(t), start = t[0] == '-';
		size_t digits = il - start;
		if (start)
			bh_buf_putc(b, '-');
		for (size_t i = start; i < il; i++) {
			bh_buf_putc(b, t[i]);
			digits--;
			if (digits > 0 && digits % 3 == 0)
				bh_buf_putc(b, ',');
		}
		if (dot)
			bh_buf_puts(b, dot);
	}
}

/* "NAME: got X, want Y" with localized integers */
static verr *got_want(vctx *c, const char *name, long long got, long long want)
{
	bh_buf m = BH_BUF_INIT;
	bh_buf_printf(&m, "%s: got ", name);
	loc_int(&m, got);
	bh_buf_puts(&m, ", want ");
	loc_int(&m, want);
	return mkerr_buf(c, &m);
}

/* display() of an instance value */
static void display_value(bh_buf *b, const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING: quote(b, json_string_value(v), json_string_length(v)); break;
	case JSON_ARRAY: case JSON_OBJECT: bh_buf_puts(b, "value"); break;
	case JSON_INTEGER: bh_buf_printf(b, "%lld", (long long)json_integer_value(v)); break;
	case JSON_REAL: fmt_float(b, json_real_value(v)); break;
	case JSON_TRUE: bh_buf_puts(b, "true"); break;
	case JSON_FALSE: bh_buf_puts(b, "false"); break;
	case JSON_NULL: bh_buf_puts(b, "<nil>"); break;
	}
}

/* display() of a schema literal (json.Number prints as written) */
static void display_node(bh_buf *b, const node *n)
{
	switch (n->type) {
	case GOJSON_STRING: quote(b, n->text, n->len); break;
	case GOJSON_ARRAY: case GOJSON_OBJECT: bh_buf_puts(b, "value"); break;
	case GOJSON_NUMBER: bh_buf_put(b, n->text, n->len); break;
	case GOJSON_TRUE: bh_buf_puts(b, "true"); break;
	case GOJSON_FALSE: bh_buf_puts(b, "false"); break;
	case GOJSON_NULL: bh_buf_puts(b, "<nil>"); break;
	}
}

/* ---- values ----------------------------------------------------------------- */

enum { T_NULL = 1, T_BOOL = 2, T_NUMBER = 4, T_INTEGER = 8, T_STRING = 16, T_ARRAY = 32, T_OBJECT = 64 };

static int type_of(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_NULL: return T_NULL;
	case JSON_TRUE: case JSON_FALSE: return T_BOOL;
	case JSON_INTEGER: case JSON_REAL: return T_NUMBER;
	case JSON_STRING: return T_STRING;
	case JSON_ARRAY: return T_ARRAY;
	default: return T_OBJECT;
	}
}

static int node_type(const node *n)
{
	switch (n->type) {
	case GOJSON_NULL: return T_NULL;
	case GOJSON_TRUE: case GOJSON_FALSE: return T_BOOL;
	case GOJSON_NUMBER: return T_NUMBER;
	case GOJSON_STRING: return T_STRING;
	case GOJSON_ARRAY: return T_ARRAY;
	default: return T_OBJECT;
	}
}

static const char *type_name(int t)
{
	switch (t) {
	case T_NULL: return "null";
	case T_BOOL: return "boolean";
	case T_NUMBER: return "number";
	case T_INTEGER: return "integer";
	case T_STRING: return "string";
	case T_ARRAY: return "array";
	default: return "object";
	}
}

/* the T_* bit of a type name (T_NULL ... T_OBJECT follow the names'
 * order), 0 for anything else */
static int type_from_string(const node *n)
{
	int i = jsonschema_type_index(n);
	return i < 0 ? 0 : 1 << i;
}

static int is_integer_value(const json_t *v)
{
	if (json_is_integer(v))
		return 1;
	if (json_is_real(v)) {
		double d = json_real_value(v);
		return isfinite(d) && d == floor(d);
	}
	return 0;
}

static int value_equals(const json_t *a, const json_t *b, int depth)
{
	int ta = type_of(a), tb = type_of(b);
	if (ta != tb || depth > JSONSCHEMA_MAX_DEPTH)
		return 0;
	switch (ta) {
	case T_NULL: return 1;
	case T_BOOL: return json_typeof(a) == json_typeof(b);
	case T_NUMBER: return json_number_value(a) == json_number_value(b);
	case T_STRING:
		return json_string_length(a) == json_string_length(b) &&
		       memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0;
	case T_ARRAY:
		if (json_array_size(a) != json_array_size(b))
			return 0;
		for (size_t i = 0; i < json_array_size(a); i++)
			if (!value_equals(json_array_get(a, i), json_array_get(b, i), depth + 1))
				return 0;
		return 1;
	default: {
		const char *k;
		json_t *v;
		if (json_object_size(a) != json_object_size(b))
			return 0;
		json_object_foreach((json_t *)a, k, v) {
			json_t *w = json_object_get(b, k);
			if (!w || !value_equals(v, w, depth + 1))
				return 0;
		}
		return 1;
	}
	}
}

/* instance value vs schema literal (enum, const) */
static int node_equals(const json_t *a, const node *b, int depth)
{
	int ta = type_of(a), tb = node_type(b);
	if (ta != tb || depth > JSONSCHEMA_MAX_DEPTH)
		return 0;
	switch (ta) {
	case T_NULL: return 1;
	case T_BOOL: return json_is_true(a) == (b->type == GOJSON_TRUE);
	case T_NUMBER: return json_number_value(a) == strtod(b->text, NULL);
	case T_STRING: return json_string_length(a) == b->len && memcmp(json_string_value(a), b->text, b->len) == 0;
	case T_ARRAY:
		if (json_array_size(a) != b->n)
			return 0;
		for (size_t i = 0; i < b->n; i++)
			if (!node_equals(json_array_get(a, i), &b->items[i], depth + 1))
				return 0;
		return 1;
	default: {
		size_t distinct = 0;
		for (size_t i = 0; i < b->n; i++) {
			const node *k = &b->items[2 * i];
			int dup = 0;
			json_t *w;
			for (size_t j = i + 1; j < b->n; j++)
				if (b->items[2 * j].len == k->len && memcmp(b->items[2 * j].text, k->text, k->len) == 0)
					dup = 1;
			if (dup)
				continue; /* the last occurrence wins */
			distinct++;
			w = json_object_getn(a, k->text, k->len);
			if (!w || !node_equals(w, &b->items[2 * i + 1], depth + 1))
				return 0;
		}
		return distinct == json_object_size(a);
	}
	}
}

/* ---- exact decimal multipleOf ------------------------------------------------- */

typedef struct dec {
	unsigned __int128 m; /* mantissa, no trailing zeros */
	int e;               /* value = m * 10^e */
	int ok;
} dec;

static dec dec_parse(const char *s)
{
	dec d = {0, 0, 1};
	int seen_dot = 0, digits = 0;
	const char *p = s;
	if (*p == '-' || *p == '+')
		p++;
	for (; *p && *p != 'e' && *p != 'E'; p++) {
		if (*p == '.') {
			seen_dot = 1;
			continue;
		}
		if (*p < '0' || *p > '9') {
			d.ok = 0;
			return d;
		}
		if (d.m == 0 && *p == '0') {
			if (seen_dot)
				d.e--;
			continue;
		}
		if (++digits > 36) {
			d.ok = 0;
			return d;
		}
		d.m = d.m * 10 + (unsigned)(*p - '0');
		if (seen_dot)
			d.e--;
	}
	if (*p == 'e' || *p == 'E')
		d.e += atoi(p + 1);
	while (d.m && d.m % 10 == 0) {
		d.m /= 10;
		d.e++;
	}
	return d;
}

/* 1 if a/b is an integer, 0 if not, -1 if it cannot be decided exactly */
static int dec_multiple(dec a, dec b)
{
	if (!a.ok || !b.ok || b.m == 0)
		return -1;
	if (a.m == 0)
		return 1;
	if (a.e >= b.e) {
		/* b.m divides a.m * 10^(a.e-b.e) ? */
		unsigned __int128 r = a.m % b.m;
		int k = a.e - b.e;
		if (b.m > ((unsigned __int128)1 << 62))
			return -1;
		while (k-- > 0)
			r = (r * 10) % b.m;
		return r == 0;
	} else {
		/* b.m * 10^(b.e-a.e) divides a.m ? */
		unsigned __int128 d = b.m;
		int k = b.e - a.e;
		while (k-- > 0) {
			if (d > a.m)
				return 0;
			d *= 10;
		}
		return a.m % d == 0;
	}
}

static char *value_number_text(const json_t *v, char *buf, size_t n)
{
	if (json_is_integer(v))
		snprintf(buf, n, "%lld", (long long)json_integer_value(v));
	else
		go_format_float(buf, n, json_real_value(v), 'e', -1);
	return buf;
}

/* ---- the validator (v6 validator.validate) ------------------------------------ */

static verr *validate(vctx *c, const node *sch, const json_t *v, int bool_result, uneval *ue);

static int all_props_evaluated(const node *s)
{
	return kw(s, "additionalProperties") != NULL;
}

static void items_evaluated(const jsonschema *js, const node *s, size_t *num, int *all)
{
	const node *it = kw(s, "items");
	*num = 0;
	*all = 0;
	if (js->draft < 2020) {
		if (it && it->type == GOJSON_ARRAY) {
			*num = it->n;
			if (kw(s, "additionalItems"))
				*all = 1;
		} else if (is_schema(it)) {
			*all = 1;
		}
	} else {
		const node *pi = kw(s, "prefixItems");
		if (pi && pi->type == GOJSON_ARRAY)
			*num = pi->n;
		if (is_schema(it))
			*all = 1;
	}
}

static void uneval_init(const jsonschema *js, uneval *u, const json_t *v, const node *s, int caller_needs)
{
	memset(u, 0, sizeof *u);
	if (!js->has_uneval || s->type != GOJSON_OBJECT)
		return;
	if (json_is_object(v)) {
		if (!all_props_evaluated(s) && (caller_needs || kw(s, "unevaluatedProperties"))) {
			u->np = json_object_size(v);
			u->props = malloc(u->np + 1);
			if (u->props) {
				memset(u->props, 1, u->np + 1);
				u->active = 1;
			}
		}
	} else if (json_is_array(v)) {
		size_t num;
		int all;
		items_evaluated(js, s, &num, &all);
		if (!all && (caller_needs || kw(s, "unevaluatedItems")) && num < json_array_size(v)) {
			u->ni = json_array_size(v);
			u->items = calloc(u->ni + 1, 1);
			if (u->items) {
				memset(u->items + num, 1, u->ni - num);
				u->active = 1;
			}
		}
	}
}

static void uneval_free(uneval *u)
{
	if (!u->active) /* (most: nothing was allocated) */
		return;
	free(u->props);
	free(u->items);
	memset(u, 0, sizeof *u);
}

static int uneval_empty(const uneval *u)
{
	for (size_t i = 0; i < u->np; i++)
		if (u->props[i])
			return 0;
	for (size_t i = 0; i < u->ni; i++)
		if (u->items && u->items[i])
			return 0;
	return 1;
}

/* intersection: what stays unevaluated must be unevaluated in both */
static void uneval_merge(uneval *u, const uneval *o)
{
	for (size_t i = 0; i < u->np; i++)
		if (!o->props || i >= o->np || !o->props[i])
			u->props[i] = 0;
	for (size_t i = 0; i < u->ni; i++)
		if (u->items && (!o->items || i >= o->ni || !o->items[i]))
			u->items[i] = 0;
}

/* an object's members sorted by key (v6 iterates a Go map: any order;
 * sorted is stable) */
typedef struct member {
	const char *key;
	size_t len;
	json_t *val;
} member;

static int membercmp(const void *a, const void *b)
{
	const member *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c;
	/* most keys differ in their first byte: no memcmp call for them */
	if (n && x->key[0] != y->key[0])
		return (unsigned char)x->key[0] < (unsigned char)y->key[0] ? -1 : 1;
	c = memcmp(x->key, y->key, n);
	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* obj's members into m (room for json_object_size(obj)), in the object's
 * own order; their count */
static size_t fill_members(const json_t *obj, member *m)
{
	size_t n = json_object_size(obj), i = 0;
	for (void *it = json_object_iter((json_t *)obj); it && i < n; it = json_object_iter_next((json_t *)obj, it), i++) {
		m[i].key = json_object_iter_key(it);
		m[i].len = json_object_iter_key_len(it);
		m[i].val = json_object_iter_value(it);
	}
	return i;
}

/* m[0..n) sorted by key */
static void sort_members(member *m, size_t n)
{
	if (n > 16) {
		qsort(m, n, sizeof *m, membercmp);
		return;
	}
	/* most objects are small: insertion sort, without qsort's calls
	 * (keys are distinct, so the order is the same) */
	for (size_t j = 1; j < n; j++) {
		member x = m[j];
		size_t k = j;
		for (; k > 0 && membercmp(&x, &m[k - 1]) < 0; k--)
			m[k] = m[k - 1];
		m[k] = x;
	}
}

static member *sorted_members(const json_t *obj)
{
	member *m = malloc((json_object_size(obj) + 1) * sizeof *m);
	if (m)
		sort_members(m, fill_members(obj, m));
	return m;
}

/* validateSelf: same instance, another schema; merges uneval on success */
static verr *validate_self(vctx *c, const node *sch, const json_t *v, int bool_result, uneval *ue)
{
	uneval sub;
	verr *e;
	uneval_init(c->s, &sub, v, sch, ue->active && !uneval_empty(ue));
	e = validate(c, sch, v, bool_result, &sub);
	if (!e && ue->active && sub.active)
		uneval_merge(ue, &sub);
	else if (!e && ue->active && !sub.active && sch->type == GOJSON_OBJECT) {
		/* the subschema tracked nothing: it evaluated everything it could see
		 * only if it has additionalProperties/items for all */
		uneval tmp;
		memset(&tmp, 0, sizeof tmp);
		if (json_is_object(v) && all_props_evaluated(sch))
			uneval_merge(ue, &tmp);
	}
	uneval_free(&sub);
	return e;
}

/* 1 when the Go regexp re matches s[0..n) anywhere (Go's MatchString),
 * 0 when not; -1 with c->hard set past goregex's backtracking limits
 * (Go's engine has none: no answer is better than a wrong one) */
static int regex_match(vctx *c, goregex *re, const char *s, size_t n)
{
	int m = goregex_match(re, s, n, NULL);
	if (m < 0) {
		c->hard = BH_ELIMIT;
		return -1;
	}
	return m;
}

/* validateVal: a child value, at the location token tok[0..toklen) (an
 * array index toklen when tok is NULL) */
static verr *validate_val(vctx *c, const node *sch, const json_t *v, const char *tok, size_t toklen, int bool_result)
{
	uneval sub;
	verr *e;
	if (c->ntok >= (int)(sizeof c->toks / sizeof c->toks[0])) {
		c->hard = BH_ELIMIT;
		return NULL;
	}
	c->toks[c->ntok].s = tok;
	c->toks[c->ntok].n = toklen;
	c->ntok++;
	uneval_init(c->s, &sub, v, sch, 0);
	e = validate(c, sch, v, bool_result, &sub);
	uneval_free(&sub);
	c->ntok--;
	return e;
}

static verr *validate_idx(vctx *c, const node *sch, const json_t *v, size_t i, int bool_result)
{
	return validate_val(c, sch, v, NULL, i, bool_result);
}

static verr *validate_ref(vctx *c, const node *refnode, const json_t *v, int bool_result, uneval *ue)
{
	const node *target = map_get(&c->s->refs, refnode);
	verr *e, *re;
	int cycle = 0;
	size_t here;
	if (!target)
		return NULL;
	here = loc_len(c);
	/* the same schema again on the same value through references: a cycle */
	for (int i = c->nref; i-- > 0;) {
		if (c->refloc[i] != here)
			break;
		if (c->refstack[i] == target) {
			cycle = 1;
			break;
		}
	}
	if (cycle)
		return mkerr(c, E_PLAIN, "both %s and %s resolve to \"file:///values.schema.json#%s\" causing reference cycle",
			     refnode->text, refnode->text, refnode->text[0] == '#' ? refnode->text + 1 : refnode->text);
	if (c->nref >= JSONSCHEMA_MAX_DEPTH) {
		c->hard = BH_ELIMIT;
		return NULL;
	}
	c->refstack[c->nref] = target;
	c->refloc[c->nref] = here;
	c->nref++;
	e = validate_self(c, target, v, bool_result, ue);
	c->nref--;
	if (!e)
		return NULL;
	re = mkerr(c, E_REF, "validation failed");
	if (!re) {
		verr_free(e);
		return NULL;
	}
	if (e->kind == E_GROUP) {
		re->causes = e->causes;
		re->n = e->n;
		e->causes = NULL;
		e->n = 0;
		verr_free(e);
	} else {
		re->causes = malloc(sizeof *re->causes);
		if (!re->causes) {
			verr_free(e);
			verr_free(re);
			c->hard = BH_ENOMEM;
			return NULL;
		}
		re->causes[0] = e;
		re->n = 1;
	}
	return re;
}

static void missing_list(bh_buf *b, const json_t *obj, const node *req, int *count)
{
	*count = 0;
	if (!req || req->type != GOJSON_ARRAY)
		return;
	for (size_t i = 0; i < req->n; i++) {
		const node *r = &req->items[i];
		if (r->type != GOJSON_STRING)
			continue;
		if (!json_object_getn(obj, r->text, r->len)) {
			if (*count)
				bh_buf_puts(b, ", ");
			quote(b, r->text, r->len);
			(*count)++;
		}
	}
}

/* obj_validate's visit of the members keys[0..nkeys) for "properties",
 * "patternProperties" and "additionalProperties" */
static void members_validate(vctx *c, const node *props, const node *pprops, const node *addl, const member *keys,
			     size_t nkeys, int br, uneval *ue, errlist *errs)
{
	const jsonschema *js = c->s;
	bh_buf addl_names = BH_BUF_INIT;
	int naddl = 0;
	for (size_t i = 0; i < nkeys && !c->hard; i++) {
		const char *k = keys[i].key;
		size_t kl = keys[i].len;
		json_t *pv = keys[i].val;
		int evaluated = 0;
		const node *ps;
		if (br && errs->n)
			break;
		if (props && props->type == GOJSON_OBJECT) {
			ps = NULL;
			for (size_t j = props->n; j-- > 0;)
				if (props->items[2 * j].len == kl && (!kl || props->items[2 * j].text[0] == k[0]) &&
				    memcmp(props->items[2 * j].text, k, kl) == 0) {
					ps = &props->items[2 * j + 1];
					break;
				}
			if (is_schema(ps)) {
				evaluated = 1;
				errlist_add(c, errs, validate_val(c, ps, pv, k, kl, br));
			}
		}
		if (pprops && pprops->type == GOJSON_OBJECT) {
			for (size_t j = 0; j < pprops->n; j++) {
				goregex *re = map_get(&js->regexes, &pprops->items[2 * j]);
				int m;
				if (!re || !is_schema(&pprops->items[2 * j + 1]))
					continue;
				if ((m = regex_match(c, re, k, kl)) < 0)
					break;
				if (m) {
					evaluated = 1;
					errlist_add(c, errs, validate_val(c, &pprops->items[2 * j + 1], pv, k, kl, br));
				}
			}
		}
		if (!evaluated && addl) {
			evaluated = 1;
			if (addl->type == GOJSON_FALSE) {
				if (naddl++)
					bh_buf_puts(&addl_names, ", ");
				quote(&addl_names, k, kl);
			} else if (addl->type == GOJSON_OBJECT) {
				errlist_add(c, errs, validate_val(c, addl, pv, k, kl, br));
			}
		}
		if (evaluated && ue->active && ue->props)
			ue->props[i] = 0;
	}
	if (naddl)
		errlist_add(c, errs, mkerr(c, E_PLAIN, "additional properties %s not allowed", bh_buf_str(&addl_names)));
	bh_buf_free(&addl_names);
}

static void obj_validate(vctx *c, const node *s, const json_t *obj, int br, uneval *ue, errlist *errs)
{
	const jsonschema *js = c->s;
	long long lim;
	const node *n, *props = kw(s, "properties"), *pprops = kw(s, "patternProperties");
	const node *addl = kw(s, "additionalProperties");
	member *keys;
	size_t nkeys = json_object_size(obj);

	if (kw_int(s, "minProperties", &lim) && (long long)nkeys < lim)
		errlist_add(c, errs, got_want(c, "minProperties", (long long)nkeys, lim));
	if (kw_int(s, "maxProperties", &lim) && (long long)nkeys > lim)
		errlist_add(c, errs, got_want(c, "maxProperties", (long long)nkeys, lim));
	if ((n = kw(s, "required")) && n->type == GOJSON_ARRAY) {
		bh_buf m = BH_BUF_INIT;
		int cnt;
		missing_list(&m, obj, n, &cnt);
		if (cnt == 1)
			errlist_add(c, errs, mkerr(c, E_PLAIN, "missing property %s", bh_buf_str(&m)));
		else if (cnt > 1)
			errlist_add(c, errs, mkerr(c, E_PLAIN, "missing properties %s", bh_buf_str(&m)));
		bh_buf_free(&m);
	}
	if (br && errs->n)
		return;
	if ((n = kw(s, "dependencies")) && n->type == GOJSON_OBJECT) {
		for (size_t i = 0; i < n->n; i++) {
			const node *pn = &n->items[2 * i], *dep = &n->items[2 * i + 1];
			if (!json_object_getn(obj, pn->text, pn->len))
				continue;
			if (dep->type == GOJSON_ARRAY) {
				bh_buf m = BH_BUF_INIT, q = BH_BUF_INIT;
				int cnt;
				missing_list(&m, obj, dep, &cnt);
				if (cnt) {
					quote(&q, pn->text, pn->len);
					errlist_add(c, errs, mkerr(c, E_PLAIN, "properties %s required, if %s exists", bh_buf_str(&m), bh_buf_str(&q)));
				}
				bh_buf_free(&m);
				bh_buf_free(&q);
			} else if (is_schema(dep)) {
				errlist_add(c, errs, validate_self(c, dep, obj, br, ue));
			}
		}
	}
	/* the members, only for a keyword that visits them. v6 visits them in
	 * a Go map's order: this sorts them, for errors in a stable order. But
	 * when the visit finds no error its order does not matter (the same
	 * subschemas run, as many steps): first the object's own order, without
	 * a sort; again sorted only when it found errors (or ran out of steps,
	 * which a sorted visit that stops early in a boolean result may not) */
	int visit = (props && props->type == GOJSON_OBJECT) || (pprops && pprops->type == GOJSON_OBJECT) || addl;
	keys = NULL;
	if (js->draft != 4 && kw_schema(s, "propertyNames")) {
		if (!(keys = sorted_members(obj))) {
			c->hard = BH_ENOMEM;
			return;
		}
		if (visit)
			members_validate(c, props, pprops, addl, keys, nkeys, br, ue, errs);
	} else if (visit) {
		member small[8], *m = nkeys <= 8 ? small : malloc(nkeys * sizeof *m);
		size_t n0 = errs->n, steps0 = c->steps, got;
		int unsorted = !(ue->active && ue->props) && !c->hard; /* ue->props follow the sorted order */
		if (!m) {
			c->hard = BH_ENOMEM;
			return;
		}
		got = fill_members(obj, m);
		if (!unsorted)
			sort_members(m, got);
		members_validate(c, props, pprops, addl, m, got, br, ue, errs);
		if (unsorted && (c->hard == BH_ELIMIT || (!c->hard && errs->n != n0))) {
			while (errs->n > n0)
				verr_free(errs->v[--errs->n]);
			c->hard = 0;
			c->steps = steps0;
			sort_members(m, got);
			members_validate(c, props, pprops, addl, m, got, br, ue, errs);
		}
		if (m != small)
			free(m);
	}
	if (js->draft == 4)
		goto out;
	if ((n = kw_schema(s, "propertyNames"))) {
		for (size_t i = 0; i < nkeys && !c->hard; i++) {
			json_t *name = json_stringn_nocheck(keys[i].key, keys[i].len);
			uneval sub;
			verr *e;
			if (!name) {
				c->hard = BH_ENOMEM;
				break;
			}
			/* v6 validates the name as a document of its own: these
			 * errors (and the one wrapping them) are reported at '' */
			int saved = c->base;
			c->base = c->ntok;
			uneval_init(js, &sub, name, n, 0);
			e = validate(c, n, name, br, &sub);
			uneval_free(&sub);
			json_decref(name);
			if (e) {
				/* v6 keeps the causes but renames the error */
				verr *pe;
				bh_buf q = BH_BUF_INIT;
				quote(&q, keys[i].key, keys[i].len);
				pe = mkerr(c, E_PLAIN, "invalid propertyName %s", bh_buf_str(&q));
				bh_buf_free(&q);
				/* causes: those of sch.validate()'s wrapper, i.e. the
				 * group's members or the single error itself */
				if (pe && e->kind == E_GROUP) {
					pe->causes = e->causes;
					pe->n = e->n;
					e->causes = NULL;
					e->n = 0;
					verr_free(e);
				} else if (pe) {
					pe->causes = malloc(sizeof *pe->causes);
					if (pe->causes) {
						pe->causes[0] = e;
						pe->n = 1;
					} else {
						verr_free(e);
						c->hard = BH_ENOMEM;
					}
				} else {
					verr_free(e);
				}
				errlist_add(c, errs, pe);
			}
			c->base = saved;
		}
	}
	if (js->draft == 6)
		goto out;
	if (js->draft >= 2019 && (n = kw(s, "dependentSchemas")) && n->type == GOJSON_OBJECT) {
		for (size_t i = 0; i < n->n; i++)
			if (json_object_getn(obj, n->items[2 * i].text, n->items[2 * i].len) && is_schema(&n->items[2 * i + 1]))
				errlist_add(c, errs, validate_self(c, &n->items[2 * i + 1], obj, br, ue));
	}
	if (js->draft >= 2019 && (n = kw(s, "dependentRequired")) && n->type == GOJSON_OBJECT) {
		for (size_t i = 0; i < n->n; i++) {
			const node *pn = &n->items[2 * i];
			bh_buf m = BH_BUF_INIT, q = BH_BUF_INIT;
			int cnt;
			if (!json_object_getn(obj, pn->text, pn->len) || n->items[2 * i + 1].type != GOJSON_ARRAY)
				continue;
			missing_list(&m, obj, &n->items[2 * i + 1], &cnt);
			if (cnt) {
				quote(&q, pn->text, pn->len);
				errlist_add(c, errs, mkerr(c, E_PLAIN, "properties %s required, if %s exists", bh_buf_str(&m), bh_buf_str(&q)));
			}
			bh_buf_free(&m);
			bh_buf_free(&q);
		}
	}
out:
	free(keys);
}

static void int_list(bh_buf *b, const size_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		bh_buf_printf(b, i ? " %zu" : "%zu", v[i]);
}

static void arr_validate(vctx *c, const node *s, const json_t *arr, int br, uneval *ue, errlist *errs)
{
	const jsonschema *js = c->s;
	size_t len = json_array_size(arr);
	long long lim;
	const node *n;
	if (kw_int(s, "minItems", &lim) && (long long)len < lim)
		errlist_add(c, errs, got_want(c, "minItems", (long long)len, lim));
	if (kw_int(s, "maxItems", &lim) && (long long)len > lim)
		errlist_add(c, errs, got_want(c, "maxItems", (long long)len, lim));
	if (kw_true(s, "uniqueItems") && len > 1) {
		int found = 0;
		for (size_t i = 1; i < len && !found; i++)
			for (size_t j = 0; j < i; j++)
				if (value_equals(json_array_get(arr, i), json_array_get(arr, j), 0)) {
					bh_buf m = BH_BUF_INIT;
					bh_buf_puts(&m, "items at ");
					loc_int(&m, (long long)j);
					bh_buf_puts(&m, " and ");
					loc_int(&m, (long long)i);
					bh_buf_puts(&m, " are equal");
					errlist_add(c, errs, mkerr_buf(c, &m));
					found = 1;
					break;
				}
	}
	if (js->draft < 2020) {
		size_t evaluated = 0;
		const node *items = kw(s, "items"), *ai;
		if (is_schema(items)) {
			for (size_t i = 0; i < len; i++)
				errlist_add(c, errs, validate_idx(c, items, json_array_get(arr, i), i, br));
			evaluated = len;
		} else if (items && items->type == GOJSON_ARRAY) {
			size_t m = len < items->n ? len : items->n;
			for (size_t i = 0; i < m; i++)
				if (is_schema(&items->items[i]))
					errlist_add(c, errs, validate_idx(c, &items->items[i], json_array_get(arr, i), i, br));
			evaluated = m;
			ai = kw(s, "additionalItems");
			if (ai && ai->type == GOJSON_FALSE && evaluated != len)
			{
				bh_buf m = BH_BUF_INIT;
				bh_buf_puts(&m, "last ");
				loc_int(&m, (long long)(len - evaluated));
				bh_buf_puts(&m, " additionalItem(s) not allowed");
				errlist_add(c, errs, mkerr_buf(c, &m));
			}
			else if (ai && ai->type == GOJSON_OBJECT)
				for (size_t i = evaluated; i < len; i++)
					errlist_add(c, errs, validate_idx(c, ai, json_array_get(arr, i), i, br));
		}
	} else {
		const node *pi = kw(s, "prefixItems"), *items = kw_schema(s, "items");
		size_t evaluated = 0;
		if (pi && pi->type == GOJSON_ARRAY) {
			evaluated = len < pi->n ? len : pi->n;
			for (size_t i = 0; i < evaluated; i++)
				if (is_schema(&pi->items[i]))
					errlist_add(c, errs, validate_idx(c, &pi->items[i], json_array_get(arr, i), i, br));
		}
		/* v6 names these items by their index after the prefix (it
		 * reports [1, 2, 3] with prefixItems of one as /1 and /2 ... from 0) */
		if (items)
			for (size_t i = evaluated; i < len; i++)
				errlist_add(c, errs, validate_idx(c, items, json_array_get(arr, i), i - evaluated, br));
	}
	if (js->draft >= 6 && (n = kw_schema(s, "contains"))) {
		errlist cerrs = {0};
		size_t *matched = calloc(len + 1, sizeof *matched), nm = 0;
		long long minc = -1, maxc = -1;
		if (!matched) {
			c->hard = BH_ENOMEM;
			return;
		}
		for (size_t i = 0; i < len; i++) {
			verr *e = validate_idx(c, n, json_array_get(arr, i), i, br);
			if (e) {
				errlist_add(c, &cerrs, e);
			} else {
				matched[nm++] = i;
				if (js->draft >= 2020 && ue->active && ue->items && i < ue->ni)
					ue->items[i] = 0;
			}
		}
		if (js->draft >= 2019) {
			kw_int(s, "minContains", &minc);
			kw_int(s, "maxContains", &maxc);
		}
		if (minc >= 0) {
			if ((long long)nm < minc) {
				bh_buf m = BH_BUF_INIT;
				if (nm == 0) {
					bh_buf_puts(&m, "min ");
					loc_int(&m, minc);
					bh_buf_puts(&m, " items required to match contains schema, but none matched");
				} else {
					bh_buf_puts(&m, "min ");
					loc_int(&m, minc);
					bh_buf_puts(&m, " items required to match contains schema, but matched ");
					loc_int(&m, (long long)nm);
					bh_buf_puts(&m, " items at ");
					int_list(&m, matched, nm);
				}
				errlist_add(c, errs, with_causes(mkerr_buf(c, &m), &cerrs));
			}
		} else if (nm == 0) {
			errlist_add(c, errs, with_causes(mkerr(c, E_PLAIN, "no items match contains schema"), &cerrs));
		}
		errlist_free(&cerrs);
		if (maxc >= 0 && (long long)nm > maxc) {
			bh_buf m = BH_BUF_INIT;
			bh_buf_puts(&m, "max ");
			loc_int(&m, maxc);
			bh_buf_puts(&m, " items required to match contains schema, but matched ");
			loc_int(&m, (long long)nm);
			bh_buf_puts(&m, " items at ");
			int_list(&m, matched, nm);
			errlist_add(c, errs, mkerr_buf(c, &m));
		}
		free(matched);
	}
}

static void str_validate(vctx *c, const node *s, const json_t *v, errlist *errs)
{
	const char *str = json_string_value(v);
	size_t len = json_string_length(v);
	long long lim, runes = -1;
	const node *pat;
	if (kw(s, "minLength") || kw(s, "maxLength")) {
		runes = 0;
		for (size_t i = 0; i < len;) {
			int32_t r;
			i += (size_t)utf8_rune_go((const unsigned char *)str + i, len - i, &r);
			runes++;
		}
	}
	if (kw_int(s, "minLength", &lim) && runes < lim)
		errlist_add(c, errs, got_want(c, "minLength", (long long)runes, lim));
	if (kw_int(s, "maxLength", &lim) && runes > lim)
		errlist_add(c, errs, got_want(c, "maxLength", (long long)runes, lim));
	if ((pat = kw(s, "pattern")) && pat->type == GOJSON_STRING) {
		goregex *re = map_get(&c->s->regexes, pat);
		if (re) {
			int m = regex_match(c, re, str, len);
			if (m < 0)
				return;
			if (!m) {
				bh_buf b = BH_BUF_INIT;
				quote(&b, str, len);
				bh_buf_puts(&b, " does not match pattern ");
				quote(&b, pat->text, pat->len);
				errlist_add(c, errs, mkerr_buf(c, &b));
			}
		}
	}
}

static void num_validate(vctx *c, const node *s, const json_t *v, errlist *errs)
{
	double x = json_number_value(v), want = 0;
	const jsonschema *js = c->s;
	int has_min = kw_num(s, "minimum", &want);
	double minv = want, maxv = 0, exmin = 0, exmax = 0;
	int has_max, has_exmin = 0, has_exmax = 0;
	const node *mo;
	has_max = kw_num(s, "maximum", &maxv);
	if (js->draft == 4) {
		if (kw_true(s, "exclusiveMaximum") && has_max) {
			has_exmax = 1;
			exmax = maxv;
			has_max = 0;
		}
		if (kw_true(s, "exclusiveMinimum") && has_min) {
			has_exmin = 1;
			exmin = minv;
			has_min = 0;
		}
	} else {
		has_exmax = kw_num(s, "exclusiveMaximum", &exmax);
		has_exmin = kw_num(s, "exclusiveMinimum", &exmin);
	}
#define NUMERR(name, w) do { bh_buf m_ = BH_BUF_INIT; bh_buf_puts(&m_, name ": got "); loc_float(&m_, x); \
		bh_buf_puts(&m_, ", want "); loc_float(&m_, (w)); errlist_add(c, errs, mkerr_buf(c, &m_)); } while (0)
	if (has_min && x < minv)
		NUMERR("minimum", minv);
	if (has_max && x > maxv)
		NUMERR("maximum", maxv);
	if (has_exmin && x <= exmin)
		NUMERR("exclusiveMinimum", exmin);
	if (has_exmax && x >= exmax)
		NUMERR("exclusiveMaximum", exmax);
	if ((mo = kw(s, "multipleOf")) && mo->type == GOJSON_NUMBER) {
		char t[64];
		double mv = strtod(mo->text, NULL);
		int r = dec_multiple(dec_parse(value_number_text(v, t, sizeof t)), dec_parse(mo->text));
		if (r < 0)
			r = mv != 0 && fmod(x, mv) == 0;
		if (!r)
			NUMERR("multipleOf", mv);
	}
#undef NUMERR
}

static void cond_validate(vctx *c, const node *s, const json_t *v, int br, uneval *ue, errlist *errs)
{
	const node *n;
	if ((n = kw_schema(s, "not"))) {
		uneval tmp;
		verr *e;
		memset(&tmp, 0, sizeof tmp);
		e = validate_self(c, n, v, 1, &tmp);
		if (!e)
			errlist_add(c, errs, mkerr(c, E_PLAIN, "'not' failed"));
		verr_free(e);
	}
	if ((n = kw(s, "allOf")) && n->type == GOJSON_ARRAY && n->n) {
		errlist sub = {0};
		for (size_t i = 0; i < n->n; i++) {
			verr *e = is_schema(&n->items[i]) ? validate_self(c, &n->items[i], v, br, ue) : NULL;
			if (e) {
				errlist_add(c, &sub, e);
				if (br)
					break;
			}
		}
		if (sub.n)
			errlist_add(c, errs, with_causes(mkerr(c, E_PLAIN, "'allOf' failed"), &sub));
	}
	if ((n = kw(s, "anyOf")) && n->type == GOJSON_ARRAY && n->n) {
		errlist sub = {0};
		int matched = 0;
		for (size_t i = 0; i < n->n; i++) {
			verr *e = is_schema(&n->items[i]) ? validate_self(c, &n->items[i], v, br, ue) : NULL;
			if (e) {
				errlist_add(c, &sub, e);
			} else {
				matched = 1;
				if (!ue->active || uneval_empty(ue))
					break;
			}
		}
		if (!matched)
			errlist_add(c, errs, with_causes(mkerr(c, E_PLAIN, "'anyOf' failed"), &sub));
		else
			errlist_free(&sub);
	}
	if ((n = kw(s, "oneOf")) && n->type == GOJSON_ARRAY && n->n) {
		errlist sub = {0};
		long matched = -1;
		for (size_t i = 0; i < n->n; i++) {
			verr *e = is_schema(&n->items[i]) ? validate_self(c, &n->items[i], v, br || matched != -1, ue) : NULL;
			if (e) {
				if (matched == -1)
					errlist_add(c, &sub, e);
				else
					verr_free(e);
			} else if (matched == -1) {
				matched = (long)i;
			} else {
				bh_buf m = BH_BUF_INIT;
				bh_buf_puts(&m, "'oneOf' failed, subschemas ");
				loc_int(&m, matched);
				bh_buf_puts(&m, ", ");
				loc_int(&m, (long long)i);
				bh_buf_puts(&m, " matched");
				errlist_add(c, errs, mkerr_buf(c, &m));
				break;
			}
		}
		if (matched == -1)
			errlist_add(c, errs, with_causes(mkerr(c, E_PLAIN, "'oneOf' failed, none matched"), &sub));
		else
			errlist_free(&sub);
	}
	if (c->s->draft >= 7 && (n = kw_schema(s, "if"))) {
		verr *e = validate_self(c, n, v, 1, ue);
		const node *t = kw_schema(s, "then"), *el = kw_schema(s, "else");
		if (n->type == GOJSON_TRUE)
			el = NULL;
		if (n->type == GOJSON_FALSE)
			t = NULL;
		if (!e) {
			if (t)
				errlist_add(c, errs, validate_self(c, t, v, br, ue));
		} else if (el) {
			errlist_add(c, errs, validate_self(c, el, v, br, ue));
		}
		verr_free(e);
	}
}

static void uneval_validate(vctx *c, const node *s, const json_t *v, int br, uneval *ue, errlist *errs)
{
	const node *up = kw_schema(s, "unevaluatedProperties"), *ui = kw_schema(s, "unevaluatedItems");
	if (json_is_object(v) && up && ue->props) {
		member *keys = sorted_members(v);
		if (!keys) {
			c->hard = BH_ENOMEM;
			return;
		}
		for (size_t i = 0; i < ue->np; i++)
			if (ue->props[i])
				errlist_add(c, errs, validate_val(c, up, keys[i].val, keys[i].key, keys[i].len, br));
		free(keys);
		memset(ue->props, 0, ue->np);
	}
	if (json_is_array(v) && ui && ue->items) {
		for (size_t i = 0; i < ue->ni; i++)
			if (ue->items[i])
				errlist_add(c, errs, validate_idx(c, ui, json_array_get(v, i), i, br));
		memset(ue->items, 0, ue->ni);
	}
}

static verr *validate(vctx *c, const node *s, const json_t *v, int br, uneval *ue)
{
	errlist errs = {0};
	const node *n;
	int t = type_of(v);
	verr *e;
	if (c->hard)
		return NULL;
	if (++c->steps > JSONSCHEMA_MAX_STEPS) {
		c->hard = BH_ELIMIT;
		return NULL;
	}
	if (s->type == GOJSON_TRUE)
		return NULL;
	if (s->type == GOJSON_FALSE)
		return mkerr(c, E_PLAIN, "false schema");
	if (s->type != GOJSON_OBJECT)
		return NULL;
	if (++c->depth > JSONSCHEMA_MAX_DEPTH) {
		c->depth--;
		c->hard = BH_ELIMIT;
		return NULL;
	}
	/* drafts before 2019-09: "$ref" hides its siblings (v6 still checks const) */
	if (c->s->draft < 2019 && (n = kw(s, "$ref")) && n->type == GOJSON_STRING)
		goto ref_only;
	/* type */
	if ((n = kw(s, "type"))) {
		int want = 0;
		if (n->type == GOJSON_STRING)
			want = type_from_string(n);
		else if (n->type == GOJSON_ARRAY)
			for (size_t i = 0; i < n->n; i++)
				want |= type_from_string(&n->items[i]);
		if (want && !(want & t) && !((want & T_INTEGER) && t == T_NUMBER && is_integer_value(v))) {
			bh_buf m = BH_BUF_INIT;
			int first = 1;
			bh_buf_printf(&m, "got %s, want ", type_name(t));
			for (int b = 1; b <= T_OBJECT; b <<= 1) {
				if (!(want & b))
					continue;
				if (!first)
					bh_buf_puts(&m, " or ");
				bh_buf_puts(&m, type_name(b));
				first = 0;
			}
			e = mkerr_buf(c, &m);
			goto done_single;
		}
	}
ref_only:
	/* const */
	if (c->s->draft >= 6 && (n = kw(s, "const"))) {
		if (!node_equals(v, n, 0)) {
			bh_buf m = BH_BUF_INIT;
			if (n->type == GOJSON_ARRAY || n->type == GOJSON_OBJECT) {
				bh_buf_puts(&m, "'const' failed");
			} else {
				bh_buf_puts(&m, "value must be ");
				display_node(&m, n);
			}
			e = mkerr_buf(c, &m);
			goto done_single;
		}
	}
	if (c->s->draft < 2019 && (n = kw(s, "$ref")) && n->type == GOJSON_STRING) {
		e = validate_ref(c, n, v, br, ue);
		goto done_single;
	}
	/* enum */
	if ((n = kw(s, "enum")) && n->type == GOJSON_ARRAY) {
		int matched = 0, prim = 1;
		for (size_t i = 0; i < n->n && !matched; i++)
			matched = node_equals(v, &n->items[i], 0);
		if (!matched) {
			bh_buf m = BH_BUF_INIT;
			for (size_t i = 0; i < n->n; i++)
				if (n->items[i].type == GOJSON_ARRAY || n->items[i].type == GOJSON_OBJECT)
					prim = 0;
			if (!prim) {
				bh_buf_puts(&m, "'enum' failed");
			} else if (n->n == 1) {
				bh_buf_puts(&m, "value must be ");
				display_node(&m, &n->items[0]);
			} else {
				bh_buf_puts(&m, "value must be one of ");
				for (size_t i = 0; i < n->n; i++) {
					if (i)
						bh_buf_puts(&m, ", ");
					display_node(&m, &n->items[i]);
				}
			}
			e = mkerr_buf(c, &m);
			goto done_single;
		}
	}
	/* format: asserted by v6 for drafts before 2019-09 */
	if ((c->s->draft < 2019 || c->s->assert_format) && (n = kw(s, "format")) && n->type == GOJSON_STRING && json_is_string(v)) {
		bh_buf why = BH_BUF_INIT;
		int r = jsonschema_format_check(n->text, json_string_value(v), json_string_length(v), &why);
		if (r > 0) {
			bh_buf m = BH_BUF_INIT;
			display_value(&m, v);
			bh_buf_printf(&m, " is not valid %s: %s", n->text, bh_buf_str(&why));
			bh_buf_free(&why);
			e = mkerr_buf(c, &m);
			goto done_single;
		}
		bh_buf_free(&why);
	}
	/* $ref */
	if ((n = kw(s, "$ref")) && n->type == GOJSON_STRING) {
		e = validate_ref(c, n, v, br, ue);
		if (c->s->draft < 2019)
			goto done_single;
		errlist_add(c, &errs, e);
	}
	switch (t) {
	case T_OBJECT: obj_validate(c, s, v, br, ue, &errs); break;
	case T_ARRAY: arr_validate(c, s, v, br, ue, &errs); break;
	case T_STRING: str_validate(c, s, v, &errs); break;
	case T_NUMBER: num_validate(c, s, v, &errs); break;
	}
	if (errs.n == 0 || !br) {
		if (c->s->draft >= 2019) {
			if ((n = kw(s, "$recursiveRef")) && n->type == GOJSON_STRING)
				errlist_add(c, &errs, validate_ref(c, n, v, br, ue));
			if (c->s->draft >= 2020 && (n = kw(s, "$dynamicRef")) && n->type == GOJSON_STRING)
				errlist_add(c, &errs, validate_ref(c, n, v, br, ue));
		}
		cond_validate(c, s, v, br, ue, &errs);
		if (c->s->draft >= 2019)
			uneval_validate(c, s, v, br, ue, &errs);
	}
	c->depth--;
	if (c->hard) {
		errlist_free(&errs);
		return NULL;
	}
	if (errs.n == 0) {
		free(errs.v);
		return NULL;
	}
	if (errs.n == 1) {
		e = errs.v[0];
		free(errs.v);
		return e;
	}
	return with_causes(mkerr(c, E_GROUP, "validation failed"), &errs);
done_single:
	c->depth--;
	errlist_free(&errs);
	if (c->hard) {
		verr_free(e);
		return NULL;
	}
	return e;
}

/* output.go display(): a Reference with a single cause is not shown */
static void display(bh_buf *b, const verr *e, int indent)
{
	if (!(e->kind == E_REF && e->n == 1)) {
		if (indent > 0) {
			bh_buf_putc(b, '\n');
			for (int i = 0; i < indent - 1; i++)
				bh_buf_puts(b, "  ");
			bh_buf_puts(b, "- ");
		}
		indent++;
		bh_buf_puts(b, "at ");
		quote(b, e->loc, strlen(e->loc));
		bh_buf_puts(b, ": ");
		bh_buf_puts(b, e->msg);
	}
	for (size_t i = 0; i < e->n; i++)
		display(b, e->causes[i], indent);
}

/* runs the validator; *hard is set to BH_ELIMIT/BH_ENOMEM on failure */
static verr *validate_root(const jsonschema *s, const json_t *values, int *hard)
{
	vctx c;
	uneval ue;
	verr *e;
	memset(&c, 0, sizeof c);
	c.s = s;
	uneval_init(s, &ue, values, s->root, 0);
	e = validate(&c, s->root, values, 0, &ue);
	uneval_free(&ue);
	*hard = c.hard;
	if (c.hard) {
		verr_free(e);
		return NULL;
	}
	return e;
}

/* the Schema wrapper's causes, one "- at ..." line each, then a newline */
static int display_errors(const verr *e, bh_buf *out)
{
	bh_buf tmp = BH_BUF_INIT;
	/* a top-level group shows its causes directly */
	if (e->kind == E_GROUP) {
		for (size_t i = 0; i < e->n; i++)
			display(&tmp, e->causes[i], 1);
	} else {
		display(&tmp, e, 1);
	}
	if (tmp.len && tmp.data[0] == '\n')
		bh_buf_put(out, tmp.data + 1, tmp.len - 1);
	bh_buf_putc(out, '\n');
	bh_buf_free(&tmp);
	return bh_buf_ok(out) ? 0 : BH_ENOMEM;
}

int jsonschema_validate(const jsonschema *s, const json_t *values, bh_buf *errors, bh_error *err)
{
	int hard = 0;
	verr *e = validate_root(s, values, &hard);
	if (hard) {
		if (hard == BH_ELIMIT)
			return bh_error_set(err, BH_ELIMIT, "values.schema.json: validation exceeded its limits (%d levels, %d steps)",
					    JSONSCHEMA_MAX_DEPTH, JSONSCHEMA_MAX_STEPS);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	if (!e)
		return 0;
	/* Helm strips the wrapper's first line and adds a newline */
	if (display_errors(e, errors)) {
		verr_free(e);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	verr_free(e);
	return 1;
}

/* ---- compilation entry points (after the validator: the meta-schema check uses it) */

static int compile_internal(const char *text, size_t len, int meta, jsonschema **out, bh_error *err);

/* v6 checks values.schema.json against its draft's meta-schema first:
 * the schema's tree (root), decoded as its text would be, against its
 * draft's meta-schema */
int jsonschema_meta_check(const gojson_node *root, int draft, bh_error *err)
{
	const char *url;
	const char *mt = jsonschema_meta_text(draft, &url);
	jsonschema *ms = NULL;
	json_t *inst = NULL;
	verr *e;
	int rc, hard = 0;
	bh_buf lines = BH_BUF_INIT;
	rc = compile_internal(mt, strlen(mt), 0, &ms, err);
	if (rc)
		return rc;
	ms->assert_format = 1;
	rc = gojson_tree_decode(root, 0, &inst, err);
	if (rc) {
		jsonschema_free(ms);
		return rc;
	}
	e = validate_root(ms, inst, &hard);
	if (hard) {
		rc = hard == BH_ELIMIT ? bh_error_set(err, BH_ELIMIT, "values.schema.json: meta-schema check exceeded its limits")
				       : bh_error_set(err, BH_ENOMEM, "out of memory");
	} else if (e) {
		display_errors(e, &lines);
		while (lines.len && lines.data[lines.len - 1] == '\n')
			lines.data[--lines.len] = '\0';
		rc = bh_error_set(err, BH_EINVAL,
				  "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with '%s'\n%s",
				  url, bh_buf_str(&lines));
	}
	bh_buf_free(&lines);
	verr_free(e);
	json_decref(inst);
	jsonschema_free(ms);
	return rc;
}

static int compile_internal(const char *text, size_t len, int meta, jsonschema **out, bh_error *err)
{
	gojson_limits lim = {JSONSCHEMA_MAX_BYTES, JSONSCHEMA_MAX_DEPTH};
	jsonschema *s;
	compiler c;
	const char *sv;
	int rc;
	*out = NULL;
	s = calloc(1, sizeof *s);
	if (!s)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	s->true_schema.type = GOJSON_TRUE;
	rc = gojson_tree_load(text, len, &lim, &s->root, err);
	if (rc) {
		free(s);
		return rc;
	}
	s->draft = 2020;
	if ((sv = kw_str(s->root, "$schema"))) {
		s->draft = draft_from_url(sv);
		if (!s->draft) {
			bh_error_set(err, BH_EINVAL, "failing loading \"%s\": unknown meta-schema (not fetched; draft-04, -06, -07, 2019-09 and 2020-12 are known)", sv);
			jsonschema_free(s);
			return BH_EINVAL;
		}
	}
	if (meta && !jsonschema_meta_quick(s->root, s->draft) && (rc = jsonschema_meta_check(s->root, s->draft, err))) {
		jsonschema_free(s);
		return rc;
	}
	if (!is_schema(s->root)) {
		jsonschema_free(s);
		return bh_error_set(err, BH_EINVAL, "jsonschema: values.schema.json is not a schema (want an object or a boolean)");
	}
	rc = collect_anchors(s, s->root, 0);
	if (rc) {
		jsonschema_free(s);
		return rc == -2 ? bh_error_set(err, BH_ELIMIT, "jsonschema: schema nested too deeply")
				: bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	/* room for every schema object compile_schema may remember as seen */
	if (map_reserve(&s->seen, s->nschemas)) {
		jsonschema_free(s);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	c.s = s;
	c.err = err;
	c.depth = 0;
	c.exact = c.redo = 0;
	c.idx = NULL;
	c.nidx = c.idx_cap = 0;
	rc = compile_schema(&c, s->root);
	if (rc && c.redo) {
		/* rare (a $ref chain some 256 deep): again, with every node seen */
		if (s->seen.e)
			memset(s->seen.e, 0, s->seen.cap * sizeof *s->seen.e);
		s->seen.n = 0;
		c.depth = 0;
		c.exact = 1;
		rc = compile_schema(&c, s->root);
	}
	compiler_free_indexes(&c);
	if (rc) {
		jsonschema_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int jsonschema_compile_text(const char *text, size_t len, jsonschema **out, bh_error *err)
{
	return compile_internal(text, len, 1, out, err);
}
