/* tmpl/internal.h — private to tmpl/: the arena, parse trees (Go's
 * text/template/parse nodes), the engine and the execution state. */
#ifndef TMPL_INTERNAL_H
#define TMPL_INTERNAL_H

#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/error.h"
#include "tmpl/funcs.h"
#include "tmpl/tmpl.h"
#include "tmpl/value.h"

/* ---- arena ---- */

struct tmpl_arena {
	/* free space of the current chunk (chunks, at the front), capped so
	 * that nothing handed out from it passes the budget: the inline bump
	 * is one compare */
	char *cur, *lim;
	struct arena_chunk *chunks;
	size_t used;      /* bytes handed out up to the current chunk's off */
	size_t budget;    /* 0 = unlimited */
	int over;         /* an allocation failed */
};

void tmpl_arena_init(tmpl_arena *a, size_t budget);
void tmpl_arena_set_budget(tmpl_arena *a, size_t budget);
void tmpl_arena_release(tmpl_arena *a);
/* Moves src's chunks (and what they hold) into dst, which frees them with
 * its own; src is left empty. Counts src's bytes against dst's budget. */
void tmpl_arena_adopt(tmpl_arena *dst, tmpl_arena *src);

struct arena_chunk {
	struct arena_chunk *next;
	size_t size, off; /* bytes usable (populated), bytes handed out (up to the arena's
	                   * cur when it last synced) */
	size_t cap;       /* bytes the mapping has room for */
	max_align_t data[];
};

/* Nothing stored in an arena needs more than pointer/double alignment. */
#define TMPL_ARENA_ALIGN 8

/* tmpl_arena_alloc with its common case inline (room below lim); the
 * same result and accounting. */
static inline void *tmpl_arena_bump(tmpl_arena *a, size_t n)
{
	size_t k = n ? (n + TMPL_ARENA_ALIGN - 1) & ~(size_t)(TMPL_ARENA_ALIGN - 1) : TMPL_ARENA_ALIGN;
	if ((size_t)(a->lim - a->cur) >= k) {
		void *p = a->cur;
		a->cur += k;
		return p;
	}
	return tmpl_arena_alloc(a, n);
}

/* The hash of tmpl_hash, of the maps' index and of the parse tree names:
 * 8 bytes a step (the names are Values paths and map keys), then a mix
 * (splitmix64's) so that the low bits, the index's, depend on all. */
static inline uint32_t tmpl_strhash(const char *s, size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ n, w;
	while (n > 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
		h ^= h >> 31;
		s += 8;
		n -= 8;
	}
	if (n >= 4) {
		uint32_t a, b;
		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		w = ((uint64_t)a << 32) | b;
	} else if (n > 0) {
		w = ((uint64_t)(unsigned char)s[0] << 16) | ((uint64_t)(unsigned char)s[n >> 1] << 8) |
		    (unsigned char)s[n - 1];
	} else {
		w = 0;
	}
	h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
	h ^= h >> 29;
	h *= 0x94D049BB133111EBull;
	h ^= h >> 32;
	return (uint32_t)h;
}

/* ---- parse trees ---- */

/* memcmp(a, b, n) == 0 for keys (mostly a few bytes to a few tens): up
 * to 16 bytes by two loads of each, overlapping, all inside the n bytes;
 * no call */
static inline int tmpl_key_eq(const char *a, const char *b, size_t n)
{
	uint64_t x0, x1, y0, y1;
	uint32_t u0, u1, v0, v1;
	if (n >= 8 && n <= 16) {
		memcpy(&x0, a, 8);
		memcpy(&y0, b, 8);
		memcpy(&x1, a + n - 8, 8);
		memcpy(&y1, b + n - 8, 8);
		return ((x0 ^ y0) | (x1 ^ y1)) == 0;
	}
	if (n >= 4 && n < 8) {
		memcpy(&u0, a, 4);
		memcpy(&v0, b, 4);
		memcpy(&u1, a + n - 4, 4);
		memcpy(&v1, b + n - 4, 4);
		return ((u0 ^ v0) | (u1 ^ v1)) == 0;
	}
	if (n < 4) {
		for (size_t i = 0; i < n; i++)
			if (a[i] != b[i])
				return 0;
		return 1;
	}
	return memcmp(a, b, n) == 0;
}

/* The position of key in m's entries, or -1 (m may be NULL); h is the
 * key's tmpl_hash, read only when the map has an index. Inline: the
 * executor's field lookups and value.c's map functions. */
static inline long tmpl_map_find_h(const tmpl_map *m, const char *key, size_t keylen, uint32_t h)
{
	if (!m)
		return -1;
	if (!m->index) {
		for (size_t i = 0; i < m->len; i++)
			if (m->entries[i].keylen == keylen &&
			    tmpl_key_eq(m->entries[i].key, key, keylen))
				return (long)i;
		return -1;
	}
	size_t mask = m->index_cap - 1;
	size_t p = h & mask;
	while (m->index[p]) {
		const tmpl_map_entry *e = &m->entries[m->index[p] - 1];
		if (e->keylen == keylen && tmpl_key_eq(e->key, key, keylen))
			return (long)(m->index[p] - 1);
		p = (p + 1) & mask;
	}
	return -1;
}

/* tmpl_map_get with the key's hash known: hash = tmpl_hash(key, keylen) */
static inline tmpl_value *tmpl_map_get_hashed(const tmpl_map *m, const char *key, size_t keylen,
					      uint32_t hash)
{
	long i = tmpl_map_find_h(m, key, keylen, hash);
	return i < 0 ? NULL : &m->entries[i].val;
}

/* The names of N_FIELD, N_VARIABLE and N_CHAIN nodes (ident[]) are
 * NUL-terminated strings after an 8-byte header: their tmpl_strhash hash,
 * computed on first use, and their length, with TMPL_NAME_HASHED once the
 * hash is there (the executor looks fields up with them). */
#define TMPL_NAME_HASHED 0x80000000u

static inline size_t tmpl_name_len(const char *name)
{
	uint32_t n;
	memcpy(&n, name - 4, sizeof n);
	return n & ~TMPL_NAME_HASHED;
}

static inline uint32_t tmpl_name_hash(const char *name)
{
	uint32_t h, n;
	memcpy(&n, name - 4, sizeof n);
	if (n & TMPL_NAME_HASHED) {
		memcpy(&h, name - 8, sizeof h);
		return h;
	}
	/* the header is in the parse arena, which stays writable */
	h = tmpl_strhash(name, n);
	n |= TMPL_NAME_HASHED;
	memcpy((char *)(uintptr_t)(name - 8), &h, sizeof h);
	memcpy((char *)(uintptr_t)(name - 4), &n, sizeof n);
	return h;
}

enum node_type {
	N_TEXT, N_ACTION, N_BOOL, N_CHAIN, N_COMMAND, N_DOT, N_ELSE, N_END,
	N_FIELD, N_IDENT, N_IF, N_LIST, N_NIL, N_NUMBER, N_PIPE, N_RANGE,
	N_STRING, N_TEMPLATE, N_VARIABLE, N_WITH, N_COMMENT, N_BREAK,
	N_CONTINUE,
};

typedef struct tnode tnode;
typedef struct ttree ttree;

struct tnode {
	enum node_type type;
	int pos;             /* byte offset in the tree's text */
	/* Fields of some node types only (the parse arena holds ~10^5 nodes
	 * for a large chart, so they share storage, and a node is allocated
	 * only up to the last field its type uses: parse.c's node_size); read
	 * and write them only after checking the type. */
	union {
		/* N_TEXT, N_STRING (unquoted text), N_COMMENT, N_NUMBER (source
		 * text) */
		struct {
			const char *text;
			size_t len;
		};
		/* N_LIST: nodes; N_COMMAND: args; N_PIPE: cmds, and its
		 * declared variables' count (decl) and kind (= or :=) */
		struct {
			tnode **items;
			int nitems;
			unsigned short ndecl;
			unsigned char is_assign;
		};
		const tmpl_func_def *fn; /* N_IDENT: the resolved function */
		/* N_FIELD, N_VARIABLE (ident[0] = "$x"), N_CHAIN (fields) */
		struct {
			const char **ident;
			int nident;
		};
		struct { /* N_ACTION, N_IF, N_RANGE, N_WITH, N_TEMPLATE */
			tnode *pipe;
			union {
				tnode *list;      /* N_IF, N_RANGE, N_WITH */
				const char *name; /* N_TEMPLATE */
			};
		};
		int b; /* N_BOOL */
	};
	union {
		struct { /* N_STRING: original with quotes */
			const char *quoted;
			size_t qlen;
		};
		tnode **decl;        /* N_PIPE with ndecl > 0: declared variables */
		tnode *else_list;    /* N_IF, N_RANGE, N_WITH */
		tnode *node;         /* N_CHAIN */
		struct {             /* N_NUMBER */
			int64_t i64;
			uint64_t u64;
			double f64;
			double im; /* imaginary part of a complex constant */
			unsigned char is_int, is_uint, is_float, is_complex;
		};
	};
};

struct ttree {
	const char *name;       /* template name (file or define) */
	const char *parse_name; /* file it was parsed from (for positions) */
	const char *text;       /* the whole source of that file */
	size_t text_len;
	tnode *root;
	uint32_t name_hash;     /* tmpl_strhash of name (set by the parser: the
	                         * namespaces index trees by it) */
};

/* The parser's stack of the children of the nodes being parsed. */
struct tnode_stack {
	tnode **v;
	size_t n, cap;
};

/* Writes Go's Node.String() of n. */
void tnode_string(bh_buf *out, const tnode *n);

/* ---- engine ---- */

typedef struct tmpl_ns {
	ttree **trees;
	size_t n, cap;
	const struct tmpl_ns *parent; /* tpl overlays chain to the outer one */
	uint32_t *index;              /* open-addressing hash of trees (pos + 1) */
	size_t index_cap;
} tmpl_ns;

/* Frees what a namespace allocated (not the trees: they live in the arena). */
void tmpl_ns_release(tmpl_ns *ns);

struct tmpl_engine {
	tmpl_arena parse_arena;   /* trees and sources */
	tmpl_arena arena;         /* values */
	tmpl_ns ns;               /* named templates (files and defines) */
	struct tnode_stack parse_stack; /* parse.c's, kept between parses */
	/* parse.c's name lists of field and variable tokens by their text
	 * (open addressing, in the parse arena; a slot is an ident array, or
	 * NULL): the same token text shares one list across all the trees */
	const char ***name_index;
	size_t name_index_n, name_index_cap;
	tmpl_limits limits;
	tmpl_lookup_fn lookup;
	void *lookup_ud;
	/* function name -> definition (last family wins), built once; each
	 * slot keeps the name's hash and length so a lookup compares those
	 * before the name's bytes */
	const struct tmpl_fn_slot { const tmpl_func_def *def; uint32_t hash, len; } *fn_index;
	size_t fn_index_cap;
	int sprig_only;           /* tmpl_engine_new_sprig(): funcs_sprig_only.c */
	int dns;                  /* tmpl_engine_enable_dns() */
	/* per-include-name nesting counts (Helm's includedNames) */
	struct incl_count { const char *name; size_t len; int n; } *incl;
	size_t nincl, capincl;
	/* execution budget of the current top-level execution */
	uint64_t steps;
	int exec_depth;
	/* the whole text of the last execution error when it did not fit in a
	 * bh_error (tmpl_engine_take_error_text) */
	char *long_error;
	/* address near the bottom of the C stack of the outermost parse or
	 * execution (0 when none runs); see tmpl_stack_over() */
	uintptr_t stack_base;
	/* stack_base - limits.max_stack (0 when none runs or the budget
	 * reaches past the address space): tmpl_stack_over's one comparison */
	uintptr_t stack_floor;
	/* compiled regular expressions (funcs_regex.c), or NULL; freed with
	 * the engine by regex_cache_free (a pointer: engines built without the
	 * regex functions do not link them) */
	struct tmpl_regex_cache *regex_cache;
	void (*regex_cache_free)(struct tmpl_regex_cache *rc);
	/* toYaml's libyaml emitter, kept between calls (funcs_yaml.c), or
	 * NULL; freed with the engine by yaml_kept_free (a pointer, as for
	 * regex_cache) */
	struct yaml_emitter_kept *yaml_kept;
	void (*yaml_kept_free)(struct yaml_emitter_kept *k);
	/* fromYaml's results by text (funcs_yaml.c), or NULL; freed with the
	 * engine by yaml_cache_free (a pointer, as for regex_cache) */
	struct tmpl_yaml_cache *yaml_cache;
	void (*yaml_cache_free)(struct tmpl_yaml_cache *yc);
	/* bh_errors of function calls not in use (tmpl_call_error_get) */
	struct call_error *call_errors;
	/* output buffers given back by nested executions (tmpl_buf_get) */
	bh_buf spare_bufs[8];
	int nspare_bufs;
	/* variable stacks given back by finished executions (exec.c) */
	struct spare_vars { void *v; size_t cap; } spare_vars[16];
	int nspare_vars;
	/* results of pure functions (tmpl_memo_get) */
	struct memo_entry { char *key; size_t n; int val; } *memo;
	size_t nmemo, capmemo;
};

/* An error for a function call to fill (cleared by the caller), or NULL
 * when out of memory; give it back with tmpl_call_error_put. The engine
 * keeps those given back for the next calls (a malloc of 8 KiB per call
 * was a tenth of the execution's cost). */
struct call_error {
	struct call_error *next;
	bh_error err;
};

/* Inline: one get and one put per function call the executor makes. */
static inline bh_error *tmpl_call_error_get(tmpl_engine *e)
{
	struct call_error *c = e->call_errors;
	if (c)
		e->call_errors = c->next;
	else if ((c = malloc(sizeof(*c))) == NULL)
		return NULL;
	return &c->err;
}

static inline void tmpl_call_error_put(tmpl_engine *e, bh_error *err)
{
	struct call_error *c = (struct call_error *)(void *)((char *)err - offsetof(struct call_error, err));
	c->next = e->call_errors;
	e->call_errors = c;
}

/* An empty buffer for a nested execution's output (include, tpl), with
 * the room of one given back earlier (a fresh one grew by realloc from 64
 * bytes on every include). Give it back with tmpl_buf_put, which keeps a
 * few of at most 256 KiB and frees the others; *b is empty after either.
 * Without an engine (NULL), a fresh buffer and a free. */
void tmpl_buf_get(tmpl_engine *e, bh_buf *b);
void tmpl_buf_put(tmpl_engine *e, bh_buf *b);

/* A per-engine memo of pure functions' results (semverCompare's), keyed by
 * bytes the caller builds from the function and its arguments. 1 with *val
 * when key is known, else 0. */
int tmpl_memo_get(const tmpl_engine *e, const char *key, size_t n, int *val);
/* Remembers val for key (nothing when out of memory or the memo is full). */
void tmpl_memo_put(tmpl_engine *e, const char *key, size_t n, int val);

/* 1 when the current call nests more than limits.max_stack bytes of C
 * stack below the outermost parse/execution (the stack grows down). */
static inline int tmpl_stack_over(const tmpl_engine *e)
{
	char here;
	return (uintptr_t)&here < e->stack_floor;
}

/* Sets e->stack_base (0: none runs) and the floor tmpl_stack_over compares
 * with. */
static inline void tmpl_stack_set_base(tmpl_engine *e, uintptr_t base)
{
	e->stack_base = base;
	e->stack_floor = base > e->limits.max_stack ? base - e->limits.max_stack : 0;
}

/* Parses src into trees (top-level one named `name`, plus defines/blocks)
 * added to ns (later definitions replace earlier ones). The trees point
 * into a copy of src, or into src itself when borrow is set (src then
 * stays unchanged until the engine is freed). Returns 0 or BH_EPARSE with
 * err->msg in Go's form "template: NAME:LINE: MSG". */
int tmpl_parse(tmpl_engine *e, tmpl_ns *ns, const char *name, const char *src,
	       size_t len, int borrow, bh_error *err);
/* tmpl_parse's two halves: the trees of one source into *set, *nset (an
 * array in e's parse arena; no namespace is touched, so engines may parse
 * on separate threads), then those trees added to ns as Go's AddParseTree
 * does (an empty define does not replace a template of the same name). */
int tmpl_parse_set(tmpl_engine *e, const char *name, const char *src, size_t len, int borrow,
		   ttree ***set, size_t *nset, bh_error *err);
int tmpl_ns_associate(tmpl_engine *e, tmpl_ns *ns, ttree *const *set, size_t nset, const char *name,
		      bh_error *err);
ttree *tmpl_ns_find(const tmpl_ns *ns, const char *name);
/* Rewrites a parse error into Helm's "parse error at (LOC): MSG". */
void tmpl_helm_parse_error(bh_error *err);
/* t: a tree of tmpl_parse (its name_hash set) */
int tmpl_ns_add(tmpl_engine *e, tmpl_ns *ns, ttree *t);

/* ---- execution errors (kept structured for Helm's rewriting) ---- */

enum xerr_kind { XE_EXEC, XE_NOTEMPLATE, XE_PLAIN };

/* One level of an error chain. Go text of a level:
 *   XE_EXEC:       "template: LOC: executing \"NAME\" at <CTX>: MSG"
 *                  where MSG = msg + (next ? next's text : "")
 *   XE_NOTEMPLATE: msg  (template: no template ... associated with ...)
 *   XE_PLAIN:      msg (+ next's text if wrapping)                     */
typedef struct xerr {
	enum xerr_kind kind;
	char *loc;    /* "FILE:LINE:COL" (or "NAME" when no node) */
	char *name;
	char *ctx;    /* node text; NULL when there was no node */
	char *msg;    /* this level's own message (prefix when next != NULL) */
	struct xerr *next;
} xerr;

void xerr_free(xerr *e);
void xerr_text(bh_buf *out, const xerr *e);

/* Executes tree t with dot; appends output. On error returns <0 and sets
 * *xe (caller frees with xerr_free). */
int tmpl_exec_tree(tmpl_engine *e, tmpl_ns *overlay, ttree *t, const tmpl_value *dot,
		   bh_buf *out, xerr **xe, int depth);

/* Helper used by include/tpl: the exec context passed in tmpl_call.exec. */
typedef struct exec_ctx {
	tmpl_engine *e;
	tmpl_ns *overlay;   /* tpl-local definitions, or NULL */
	int depth;
	xerr *inner;        /* set by include/tpl when the callee failed */
} exec_ctx;

/* Helm error rewriting (engine.c). */
void tmpl_helm_format_error(bh_buf *out, const xerr *xe);

/* Deletes every "<no value>" from b[from..] (Helm's post-processing). */
void tmpl_strip_no_value(bh_buf *b, size_t from);

/* Function table lookups (funcs.c); the engine variants use a hash index. */
int tmpl_func_exists(const char *name);
int tmpl_engine_func_index(tmpl_engine *e);
/* Sprig-only engines: the definition replacing name's (NULL: undefined) with
 * *found = 1, or *found = 0 when the name keeps its usual definition. */
const tmpl_func_def *tmpl_sprig_only_find(const char *name, int *found);
/* the function named by name[0..len) (no NUL needed), or NULL */
const tmpl_func_def *tmpl_engine_func_find(const tmpl_engine *e, const char *name, size_t len);
uint32_t tmpl_hash(const char *s, size_t n);

/* Number formatting helpers shared by gofmt and values. */
void gofmt_float(bh_buf *out, double v, char verb, int prec);

#endif
