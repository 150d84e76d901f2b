/* tmpl/engine.c — the engine object (namespace of templates, limits,
 * arena), execution entry points, and Helm 4's error rewriting. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"
#include "tmpl/internal.h"
#include "tmpl/tmpl.h"

void tmpl_limits_default(tmpl_limits *l)
{
	l->max_include_depth = 1000;
	l->max_exec_depth = 3000;
	l->max_output = 64u << 20;
	l->max_steps = 50000000ull;
	l->max_memory = 512u << 20;
	l->max_source = 16u << 20;
	l->max_parse_depth = 10000;
	l->max_stack = 4u << 20;
#if defined(__SANITIZE_ADDRESS__)
	/* ASan frames are several times larger: the same nesting needs more
	 * stack (the sanitizer test wrappers raise `ulimit -s` to match). */
	l->max_stack = 48u << 20;
#endif
}

tmpl_engine *tmpl_engine_new(bh_error *err)
{
	tmpl_engine *e = calloc(1, sizeof(*e));
	if (!e) {
		bh_error_set(err, BH_ENOMEM, "template engine: out of memory");
		return NULL;
	}
	tmpl_limits_default(&e->limits);
	tmpl_arena_init(&e->parse_arena, e->limits.max_memory);
	tmpl_arena_init(&e->arena, e->limits.max_memory);
	if (tmpl_engine_func_index(e)) {
		free(e);
		bh_error_set(err, BH_ENOMEM, "template engine: out of memory");
		return NULL;
	}
	return e;
}

tmpl_engine *tmpl_engine_new_sprig(bh_error *err)
{
	tmpl_engine *e = tmpl_engine_new(err);
	if (e)
		e->sprig_only = 1;
	return e;
}

void tmpl_engine_enable_dns(tmpl_engine *e)
{
	e->dns = 1;
}

void tmpl_buf_get(tmpl_engine *e, bh_buf *b)
{
	if (!e || e->nspare_bufs == 0) {
		bh_buf_init(b);
		return;
	}
	*b = e->spare_bufs[--e->nspare_bufs];
	bh_buf_reset(b);
}

void tmpl_buf_put(tmpl_engine *e, bh_buf *b)
{
	enum { MAX_SPARE = sizeof e->spare_bufs / sizeof e->spare_bufs[0] };
	if (e && b->data && !b->oom && b->cap <= 256 * 1024 && e->nspare_bufs < MAX_SPARE)
		e->spare_bufs[e->nspare_bufs++] = *b;
	else
		bh_buf_free(b);
	bh_buf_init(b);
}

void tmpl_engine_free(tmpl_engine *e)
{
	if (!e)
		return;
	while (e->nspare_bufs > 0)
		bh_buf_free(&e->spare_bufs[--e->nspare_bufs]);
	while (e->nspare_vars > 0)
		free(e->spare_vars[--e->nspare_vars].v);
	while (e->call_errors) {
		struct call_error *c = e->call_errors;
		e->call_errors = c->next;
		free(c);
	}
	tmpl_arena_release(&e->parse_arena);
	tmpl_arena_release(&e->arena);
	if (e->regex_cache_free)
		e->regex_cache_free(e->regex_cache);
	if (e->yaml_kept_free)
		e->yaml_kept_free(e->yaml_kept);
	if (e->yaml_cache_free)
		e->yaml_cache_free(e->yaml_cache);
	for (size_t i = 0; i < e->nmemo; i++)
		free(e->memo[i].key);
	free(e->memo);
	tmpl_ns_release(&e->ns);
	free(e->parse_stack.v);
	free(e->incl);
	free(e->long_error);
	free(e);
}

/* Few distinct keys (a chart's kubeVersion checks): a list is enough. */
#define MEMO_MAX 1024

int tmpl_memo_get(const tmpl_engine *e, const char *key, size_t n, int *val)
{
	for (size_t i = 0; i < e->nmemo; i++)
		if (e->memo[i].n == n && memcmp(e->memo[i].key, key, n) == 0) {
			*val = e->memo[i].val;
			return 1;
		}
	return 0;
}

void tmpl_memo_put(tmpl_engine *e, const char *key, size_t n, int val)
{
	/* 16 doubled up to MEMO_MAX entries (a power of two times 16) */
	if (e->nmemo == MEMO_MAX || VEC_RESERVE(e->memo, e->capmemo, e->nmemo + 1, 16) < 0)
		return;
	char *k = malloc(n ? n : 1);
	if (!k)
		return;
	memcpy(k, key, n);
	e->memo[e->nmemo].key = k;
	e->memo[e->nmemo].n = n;
	e->memo[e->nmemo].val = val;
	e->nmemo++;
}

void tmpl_engine_set_limits(tmpl_engine *e, const tmpl_limits *l)
{
	e->limits = *l;
	tmpl_stack_set_base(e, e->stack_base);
	tmpl_arena_set_budget(&e->parse_arena, l->max_memory);
	tmpl_arena_set_budget(&e->arena, l->max_memory);
}

void tmpl_engine_set_lookup(tmpl_engine *e, tmpl_lookup_fn fn, void *ud)
{
	e->lookup = fn;
	e->lookup_ud = ud;
}

tmpl_arena *tmpl_engine_arena(tmpl_engine *e)
{
	return &e->arena;
}

void tmpl_ns_release(tmpl_ns *ns)
{
	free(ns->trees);
	free(ns->index);
	ns->trees = NULL;
	ns->index = NULL;
	ns->n = ns->cap = ns->index_cap = 0;
}

static long ns_pos(const tmpl_ns *ns, const char *name)
{
	if (!ns->index)
		return -1;
	size_t mask = ns->index_cap - 1;
	uint32_t h = tmpl_hash(name, strlen(name));
	size_t p = h & mask;
	while (ns->index[p]) {
		const ttree *t = ns->trees[ns->index[p] - 1];
		if (t->name_hash == h && strcmp(t->name, name) == 0)
			return (long)(ns->index[p] - 1);
		p = (p + 1) & mask;
	}
	return -1;
}

ttree *tmpl_ns_find(const tmpl_ns *ns, const char *name)
{
	long i = ns_pos(ns, name);
	return i < 0 ? NULL : ns->trees[i];
}

static int ns_reindex(tmpl_ns *ns, size_t cap)
{
	uint32_t *idx = calloc(cap, sizeof(uint32_t));
	if (!idx)
		return BH_ENOMEM;
	free(ns->index);
	ns->index = idx;
	ns->index_cap = cap;
	for (size_t i = 0; i < ns->n; i++) {
		size_t p = ns->trees[i]->name_hash & (cap - 1);
		while (idx[p])
			p = (p + 1) & (cap - 1);
		idx[p] = (uint32_t)(i + 1);
	}
	return 0;
}

int tmpl_ns_add(tmpl_engine *e, tmpl_ns *ns, ttree *t)
{
	(void)e;
	long i = ns_pos(ns, t->name);
	if (i >= 0) {
		ns->trees[i] = t;
		return 0;
	}
	if (VEC_RESERVE(ns->trees, ns->cap, ns->n + 1, 16) < 0)
		return BH_ENOMEM;
	ns->trees[ns->n++] = t;
	if (!ns->index || ns->n * 2 > ns->index_cap)
		return ns_reindex(ns, ns->index_cap ? ns->index_cap * 2 : 64);
	size_t mask = ns->index_cap - 1;
	size_t p = t->name_hash & mask;
	while (ns->index[p])
		p = (p + 1) & mask;
	ns->index[p] = (uint32_t)ns->n;
	return 0;
}

/* Helm's parse error shape: "parse error at (LOC): LAST" from Go's
 * "template: LOC: ...: LAST". */
void tmpl_helm_parse_error(bh_error *err)
{
	char *msg = err->msg;
	const char *p1 = strstr(msg, ": ");
	if (!p1)
		return;
	const char *loc = p1 + 2;
	const char *p2 = strstr(loc, ": ");
	if (!p2)
		return;
	const char *last = p2 + 2, *q;
	while ((q = strstr(last, ": ")) != NULL)
		last = q + 2;
	bh_buf b = BH_BUF_INIT;
	bh_buf_puts(&b, "parse error at (");
	bh_buf_put(&b, loc, (size_t)(p2 - loc));
	bh_buf_puts(&b, "): ");
	bh_buf_puts(&b, last);
	bh_error_set(err, err->code, "%s", bh_buf_str(&b));
	bh_buf_free(&b);
}

static int engine_add(tmpl_engine *e, const char *name, const char *src, size_t len, int borrow,
		      bh_error *err)
{
	char base;
	int outer = !e->stack_base;
	if (outer)
		tmpl_stack_set_base(e, (uintptr_t)&base);
	int r = tmpl_parse(e, &e->ns, name, src, len, borrow, err);
	if (outer)
		tmpl_stack_set_base(e, 0);
	return r;
}

int tmpl_engine_add_go(tmpl_engine *e, const char *name, const char *src, size_t len, bh_error *err)
{
	return engine_add(e, name, src, len, 0, err);
}

int tmpl_engine_add(tmpl_engine *e, const char *name, const char *src, size_t len, bh_error *err)
{
	int r = engine_add(e, name, src, len, 0, err);
	if (r == BH_EPARSE)
		tmpl_helm_parse_error(err);
	return r;
}

int tmpl_engine_add_borrowed(tmpl_engine *e, const char *name, const char *src, size_t len,
			     bh_error *err)
{
	int r = engine_add(e, name, src, len, 1, err);
	if (r == BH_EPARSE)
		tmpl_helm_parse_error(err);
	return r;
}

int tmpl_engine_has(const tmpl_engine *e, const char *name)
{
	return tmpl_ns_find(&e->ns, name) != NULL;
}

/* Finds HELM_ERR_START((?s).*)HELM_ERR_END in s as Go's regexp does: the
 * first start marker, then (greedy, newlines included) up to the last end
 * marker after it. */
static int helm_warn_match(const char *s, const char **gs, size_t *gn)
{
	const char *p = strstr(s, "HELM_ERR_START");
	if (!p)
		return 0;
	const char *body = p + 14, *best = NULL, *q = body;
	while ((q = strstr(q, "HELM_ERR_END")) != NULL) {
		best = q;
		q++;
	}
	if (!best)
		return 0;
	*gs = body;
	*gn = (size_t)(best - body);
	return 1;
}

static void rtrim_put(bh_buf *out, const char *s)
{
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\t'))
		n--;
	bh_buf_put(out, s, n);
}

void tmpl_helm_format_error(bh_buf *out, const xerr *xe)
{
	bh_buf full = BH_BUF_INIT;
	xerr_text(&full, xe);
	const char *t = bh_buf_str(&full);
	/* tokens = SplitN(t, ": ", 3) */
	const char *p1 = strstr(t, ": ");
	const char *p2 = p1 ? strstr(p1 + 2, ": ") : NULL;
	if (p1 && p2) {
		const char *gs;
		size_t gn;
		if (helm_warn_match(p2 + 2, &gs, &gn)) {
			bh_buf_puts(out, "execution error at (");
			bh_buf_put(out, p1 + 2, (size_t)(p2 - (p1 + 2)));
			bh_buf_puts(out, "): ");
			bh_buf_put(out, gs, gn);
			bh_buf_free(&full);
			return;
		}
	}
	/* trace form, unless some level is not a template error */
	for (const xerr *x = xe; x; x = x->next)
		if (x->kind == XE_PLAIN || (x->kind == XE_EXEC && !x->ctx)) {
			bh_buf_puts(out, t);
			bh_buf_free(&full);
			return;
		}
	bh_buf tr = BH_BUF_INIT;
	for (const xerr *x = xe; x; x = x->next) {
		if (x->kind == XE_EXEC) {
			bh_buf_puts(&tr, x->loc);
			bh_buf_puts(&tr, "\n  ");
			bh_buf_puts(&tr, "executing \"");
			bh_buf_puts(&tr, x->name);
			bh_buf_puts(&tr, "\" at <");
			bh_buf_puts(&tr, x->ctx);
			bh_buf_puts(&tr, ">:\n    ");
			rtrim_put(&tr, x->msg);
			bh_buf_putc(&tr, '\n');
		} else {
			rtrim_put(&tr, x->msg);
			bh_buf_putc(&tr, '\n');
		}
	}
	/* TrimSpace */
	const char *s = bh_buf_str(&tr);
	size_t n = tr.len;
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
		n--;
	while (n > 0 && (*s == ' ' || *s == '\n')) {
		s++;
		n--;
	}
	bh_buf_put(out, s, n);
	bh_buf_free(&tr);
	bh_buf_free(&full);
}

/* Sets err to msg; a message longer than bh_error holds keeps its head and
 * its tail (the innermost error of a deep include chain), and the engine
 * keeps the whole text (tmpl_engine_take_error_text). */
static void set_long_error(tmpl_engine *e, bh_error *err, int code, bh_buf *msg)
{
	size_t n = msg->len;
	free(e->long_error);
	e->long_error = NULL;
	if (n < BH_ERROR_MSG_MAX) {
		bh_error_set(err, code, "%s", bh_buf_str(msg));
		return;
	}
	e->long_error = bh_buf_ok(msg) ? bh_buf_detach(msg) : NULL;
	const char *m = e->long_error ? e->long_error : bh_buf_str(msg);
	size_t head = 1024, tail = BH_ERROR_MSG_MAX - head - 128;
	bh_error_set(err, code, "%.*s ... [%zu bytes elided] ... %s", (int)head, m,
		     n - head - tail, m + n - tail);
}

static int run(tmpl_engine *e, const char *name, const tmpl_value *dot, bh_buf *out,
	       bh_error *err, int helm)
{
	ttree *t = tmpl_ns_find(&e->ns, name);
	xerr *xe = NULL;
	int r;
	if (!t)
		return bh_error_set(err, BH_ENOTFOUND,
				    "template: no template \"%s\" associated with template \"gotpl\"", name);
	char base;
	int outer = !e->stack_base;
	e->steps = 0;
	if (outer)
		tmpl_stack_set_base(e, (uintptr_t)&base);
	r = tmpl_exec_tree(e, NULL, t, dot, out, &xe, 0);
	if (outer)
		tmpl_stack_set_base(e, 0);
	if (r) {
		bh_buf b = BH_BUF_INIT;
		if (helm)
			tmpl_helm_format_error(&b, xe);
		else
			xerr_text(&b, xe);
		set_long_error(e, err, r == BH_ELIMIT ? BH_ELIMIT : BH_EEXEC, &b);
		bh_buf_free(&b);
		xerr_free(xe);
		return r == BH_ELIMIT ? BH_ELIMIT : BH_EEXEC;
	}
	return 0;
}

char *tmpl_engine_take_error_text(tmpl_engine *e)
{
	char *s = e->long_error;
	e->long_error = NULL;
	return s;
}

int tmpl_engine_execute(tmpl_engine *e, const char *name, const tmpl_value *dot, bh_buf *out,
			bh_error *err)
{
	return run(e, name, dot, out, err, 0);
}

/* Deletes every "<no value>" from b[from..]. */
static const char nv[] = "<no value>";
#define NVL (sizeof(nv) - 1)

/* memmem(s, n, nv, NVL): '<' is rare in manifests, and memchr is the
 * faster scan */
static char *find_no_value(char *s, size_t n)
{
	for (char *e = s + n; (size_t)(e - s) >= NVL && (s = memchr(s, '<', (size_t)(e - s) - NVL + 1)); s++)
		if (memcmp(s, nv, NVL) == 0)
			return s;
	return NULL;
}

void tmpl_strip_no_value(bh_buf *b, size_t from)
{
	const size_t nvl = NVL;
	if (!b->data || b->len < from + nvl)
		return;
	char *d = b->data, *end = d + b->len;
	char *r = find_no_value(d + from, b->len - from);
	if (!r)
		return; /* the common case: nothing moves */
	char *w = r;
	while (r) {
		r += nvl;
		char *next = find_no_value(r, (size_t)(end - r));
		size_t run = (size_t)((next ? next : end) - r);
		memmove(w, r, run);
		w += run;
		r = next;
	}
	b->len = (size_t)(w - d);
	d[b->len] = '\0';
}

int tmpl_engine_render(tmpl_engine *e, const char *name, const tmpl_value *dot, bh_buf *out,
		       bh_error *err)
{
	size_t from = out->len;
	int r = run(e, name, dot, out, err, 1);
	if (r)
		return r;
	tmpl_strip_no_value(out, from);
	return 0;
}
