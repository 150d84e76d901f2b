/* tmpl/exec.c — the executor: a port of Go's text/template/exec.go
 * (walk, pipelines, commands, fields, function calls, argument conversion
 * and Go's error texts), with step, depth and output budgets. Errors are
 * returned (never longjmp) so temporary buffers are always released. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"
#include "tmpl/gofmt.h"
#include "tmpl/internal.h"

#define WALK_BREAK 1
#define WALK_CONTINUE 2

typedef struct var {
	const char *name;
	tmpl_value value;
} var;

typedef struct state {
	tmpl_engine *e;
	tmpl_ns *overlay;
	ttree *tmpl;
	bh_buf *wr;
	const tnode *node;
	var *vars;
	int nvars;
	size_t capvars;
	int depth;
	xerr *err;
} state;

/* ---- errors ---- */

static char *xstrdup(const char *s)
{
	size_t n = strlen(s);
	char *p = malloc(n + 1);
	if (p)
		memcpy(p, s, n + 1);
	return p;
}

void xerr_free(xerr *e)
{
	while (e) {
		xerr *n = e->next;
		free(e->loc);
		free(e->name);
		free(e->ctx);
		free(e->msg);
		free(e);
		e = n;
	}
}

void xerr_text(bh_buf *out, const xerr *e)
{
	for (; e; e = e->next) {
		switch (e->kind) {
		case XE_EXEC:
			bh_buf_puts(out, "template: ");
			bh_buf_puts(out, e->loc);
			if (e->ctx) {
				bh_buf_puts(out, ": executing \"");
				bh_buf_puts(out, e->name);
				bh_buf_puts(out, "\" at <");
				bh_buf_puts(out, e->ctx);
				bh_buf_puts(out, ">");
			}
			bh_buf_puts(out, ": ");
			bh_buf_puts(out, e->msg);
			break;
		case XE_NOTEMPLATE:
		case XE_PLAIN:
			bh_buf_puts(out, e->msg);
			break;
		}
	}
}

/* n is a node of t (every node an execution walks belongs to the tree it
 * executes) */
static void error_context(const ttree *t, const tnode *n, bh_buf *loc, bh_buf *ctx)
{
	int pos = n->pos, line = 1, last_nl = -1;
	for (int i = 0; i < pos && (size_t)i < t->text_len; i++)
		if (t->text[i] == '\n') {
			line++;
			last_nl = i;
		}
	int col = last_nl < 0 ? pos : pos - (last_nl + 1);
	bh_buf_printf(loc, "%s:%d:%d", t->parse_name, line, col);
	tnode_string(ctx, n);
}

static xerr *xerr_new_exec(state *s, const char *msg)
{
	xerr *x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->kind = XE_EXEC;
	x->name = xstrdup(s->tmpl->name);
	if (s->node) {
		bh_buf loc = BH_BUF_INIT, ctx = BH_BUF_INIT;
		error_context(s->tmpl, s->node, &loc, &ctx);
		x->loc = bh_buf_detach(&loc);
		x->ctx = bh_buf_detach(&ctx);
		if (!x->loc)
			x->loc = xstrdup("");
		if (!x->ctx)
			x->ctx = xstrdup("");
	} else {
		x->loc = xstrdup(s->tmpl->name);
	}
	x->msg = xstrdup(msg);
	return x;
}

static int errorf(state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int errorf(state *s, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (!s->err)
		s->err = xerr_new_exec(s, buf);
	return BH_EEXEC;
}

static int limitf(state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int limitf(state *s, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (!s->err) {
		s->err = xerr_new_exec(s, buf);
	}
	return BH_ELIMIT;
}

/* step's errors, in its order (the step is counted already) */
static int step_limit(state *s) __attribute__((noinline, cold));
static int step_limit(state *s)
{
	if (tmpl_stack_over(s->e))
		return limitf(s, "template nesting too deep: more than %zu bytes of stack",
			      s->e->limits.max_stack);
	if (s->e->steps > s->e->limits.max_steps)
		return limitf(s, "evaluation step limit of %llu exceeded",
			      (unsigned long long)s->e->limits.max_steps);
	if (s->wr->len > s->e->limits.max_output)
		return limitf(s, "output size limit of %zu bytes exceeded", s->e->limits.max_output);
	if (s->wr->oom)
		return limitf(s, "out of memory writing output");
	return limitf(s, "memory limit of %zu bytes exceeded", s->e->limits.max_memory);
}

static inline int step(state *s)
{
	tmpl_engine *e = s->e;
	/* the arena's over flag: tmpl_arena_over_budget */
	if (tmpl_stack_over(e) || ++e->steps > e->limits.max_steps || s->wr->len > e->limits.max_output ||
	    s->wr->oom || e->arena.over)
		return step_limit(s);
	return 0;
}

/* ---- variables ---- */

static int push(state *s, const char *name, tmpl_value v)
{
	if (VEC_RESERVE(s->vars, s->capvars, (size_t)s->nvars + 1, 8) < 0)
		return limitf(s, "out of memory");
	s->vars[s->nvars].name = name;
	s->vars[s->nvars].value = v;
	s->nvars++;
	return 0;
}

/* An execution's variable stack starts as one a finished execution gave
 * back (a realloc of 8 per include and template call was most of their
 * mallocs); vars_done gives it back, or frees it. */
static void vars_start(state *s)
{
	tmpl_engine *e = s->e;
	if (e->nspare_vars > 0) {
		e->nspare_vars--;
		s->vars = e->spare_vars[e->nspare_vars].v;
		s->capvars = e->spare_vars[e->nspare_vars].cap;
	}
}

static void vars_done(state *s)
{
	tmpl_engine *e = s->e;
	if (s->vars && s->capvars <= 1024 &&
	    e->nspare_vars < (int)(sizeof e->spare_vars / sizeof e->spare_vars[0])) {
		e->spare_vars[e->nspare_vars].v = s->vars;
		e->spare_vars[e->nspare_vars].cap = s->capvars;
		e->nspare_vars++;
	} else {
		free(s->vars);
	}
	s->vars = NULL;
	s->nvars = 0;
	s->capvars = 0;
}

/* Variable names start with '$': the second byte tells most apart
 * without a strcmp call (both "$": two NULs). */
static inline int var_is(const char *a, const char *b)
{
	return a[1] == b[1] && strcmp(a, b) == 0;
}

static int set_var(state *s, const char *name, tmpl_value v)
{
	for (int i = s->nvars - 1; i >= 0; i--)
		if (var_is(s->vars[i].name, name)) {
			s->vars[i].value = v;
			return 0;
		}
	return errorf(s, "undefined variable: %s", name);
}

static int var_value(state *s, const char *name, tmpl_value *out)
{
	for (int i = s->nvars - 1; i >= 0; i--)
		if (var_is(s->vars[i].name, name)) {
			*out = s->vars[i].value;
			return 0;
		}
	return errorf(s, "undefined variable: %s", name);
}

/* ---- helpers ---- */

static tmpl_value unwrap(tmpl_value v)
{
	if (v.kind == TMPL_NIL)
		return tmpl_invalid();
	v.iface = 0;
	return v;
}

static const char *type_for_err(const tmpl_value *v)
{
	if (v->kind == TMPL_NIL || v->iface)
		return "interface {}";
	return tmpl_value_type_name(v);
}

static int eval_pipeline(state *s, const tmpl_value *dot, const tnode *pipe, tmpl_value *out);
static int walk(state *s, const tmpl_value *dot, const tnode *node);
static int eval_arg(state *s, const tmpl_value *dot, char typ, const tnode *n, tmpl_value *out);
static int eval_field_chain(state *s, const tmpl_value *dot, tmpl_value receiver, const tnode *node,
			    const char **ident, int n, const tnode *const *args, int nargs,
			    const tmpl_value *final, tmpl_value *out);
static inline __attribute__((always_inline)) int eval_function(state *s, const tmpl_value *dot, const tnode *node, const tnode *cmd,
			 const tnode *const *args, int nargs, const tmpl_value *final, tmpl_value *out);

static int print_value(state *s, const tnode *n, const tmpl_value *v)
{
	int r;
	s->node = n;
	if (v->kind == TMPL_INVALID || v->kind == TMPL_NIL) {
		bh_buf_puts(s->wr, "<no value>");
		return 0;
	}
	if (v->kind == TMPL_OBJECT && v->u.obj->cls->ptr_stringer && v->u.obj->cls->format && v->addr) {
		/* the template prints an addressable value: Go finds String() */
		v->u.obj->cls->format(s->wr, v, 0);
		return 0;
	}
	if ((r = gofmt_value(s->wr, v)))
		return limitf(s, "%s", gofmt_strerror(r));
	return 0;
}

/* ---- walk ---- */

static int walk_list(state *s, const tmpl_value *dot, const tnode *list)
{
	for (int i = 0; i < list->nitems; i++) {
		int r = walk(s, dot, list->items[i]);
		if (r)
			return r;
	}
	return 0;
}

static int walk_if_or_with(state *s, enum node_type typ, const tmpl_value *dot, const tnode *node)
{
	int mark = s->nvars, r;
	tmpl_value val;
	r = eval_pipeline(s, dot, node->pipe, &val);
	if (r == 0) {
		if (tmpl_value_truth(&val)) {
			r = typ == N_WITH ? walk(s, &val, node->list) : walk(s, dot, node->list);
		} else if (node->else_list) {
			r = walk(s, dot, node->else_list);
		}
	}
	s->nvars = mark;
	return r;
}

static int range_iteration(state *s, const tnode *rn, int mark, const tmpl_value *index,
			   const tmpl_value *elem)
{
	const tnode *pipe = rn->pipe;
	int r;
	if (pipe->ndecl > 0) {
		if (pipe->is_assign) {
			if (pipe->ndecl > 1)
				r = set_var(s, pipe->decl[0]->ident[0], *index);
			else
				r = set_var(s, pipe->decl[0]->ident[0], *elem);
			if (r)
				return r;
		} else {
			s->vars[s->nvars - 1].value = *elem;
		}
	}
	if (pipe->ndecl > 1) {
		if (pipe->is_assign) {
			r = set_var(s, pipe->decl[1]->ident[0], *elem);
			if (r)
				return r;
		} else {
			s->vars[s->nvars - 2].value = *index;
		}
	}
	r = walk(s, elem, rn->list);
	s->nvars = mark;
	if (r == WALK_CONTINUE)
		r = 0;
	return r;
}

static int walk_range(state *s, const tmpl_value *dot, const tnode *rn)
{
	int outer = s->nvars, r, mark, ran = 0;
	tmpl_value val;
	s->node = rn;
	r = eval_pipeline(s, dot, rn->pipe, &val);
	if (r)
		goto out;
	mark = s->nvars;
	switch (val.kind) {
	case TMPL_INT:
	case TMPL_INT64:
	case TMPL_UINT8:
	case TMPL_UINT64: {
		if (rn->pipe->ndecl > 1) {
			bh_buf b = BH_BUF_INIT;
			gofmt_value(&b, &val);
			r = errorf(s, "can't use %s to iterate over more than one variable", bh_buf_str(&b));
			bh_buf_free(&b);
			goto out;
		}
		int64_t n = (val.kind == TMPL_UINT8 || val.kind == TMPL_UINT64) ? (int64_t)val.u.u : val.u.i;
		for (int64_t i = 0; i < n; i++) {
			tmpl_value elem = val;
			if (val.kind == TMPL_UINT8 || val.kind == TMPL_UINT64)
				elem.u.u = (uint64_t)i;
			else
				elem.u.i = i;
			tmpl_value inv = tmpl_invalid();
			ran = 1;
			if ((r = step(s)) != 0)
				goto out;
			r = range_iteration(s, rn, mark, &inv, &elem);
			if (r == WALK_BREAK) {
				r = 0;
				break;
			}
			if (r)
				goto out;
		}
		break;
	}
	case TMPL_LIST: {
		const tmpl_list *l = val.u.list;
		int iface = l->gotype == tmpl_gotype_list_iface || strcmp(l->gotype, "[]interface {}") == 0;
		for (size_t i = 0; i < l->len; i++) {
			tmpl_value idx = tmpl_int((int64_t)i);
			tmpl_value elem = l->items[i];
			if (iface) {
				elem.iface = 1;
				if (elem.kind == TMPL_INVALID)
					elem.kind = TMPL_NIL;
			}
			ran = 1;
			if ((r = step(s)) != 0)
				goto out;
			r = range_iteration(s, rn, mark, &idx, &elem);
			if (r == WALK_BREAK) {
				r = 0;
				break;
			}
			if (r)
				goto out;
		}
		break;
	}
	case TMPL_BYTES: {
		for (size_t i = 0; i < val.u.s.len; i++) {
			tmpl_value idx = tmpl_int((int64_t)i);
			tmpl_value elem = tmpl_uint8((uint8_t)val.u.s.ptr[i]);
			ran = 1;
			if ((r = step(s)) != 0)
				goto out;
			r = range_iteration(s, rn, mark, &idx, &elem);
			if (r == WALK_BREAK) {
				r = 0;
				break;
			}
			if (r)
				goto out;
		}
		break;
	}
	case TMPL_MAP: {
		tmpl_map *m = val.u.map;
		int iface = strcmp(m->gotype, "map[string]string") != 0;
		tmpl_map_sort(m);
		/* snapshot keys: the body may modify the map */
		size_t n = m->len;
		tmpl_map_entry *snap = NULL;
		if (n) {
			snap = malloc(n * sizeof(*snap));
			if (!snap) {
				r = limitf(s, "out of memory");
				goto out;
			}
			memcpy(snap, m->entries, n * sizeof(*snap));
		}
		for (size_t i = 0; i < n; i++) {
			tmpl_value key = tmpl_str_static(snap[i].key, snap[i].keylen);
			tmpl_value elem = snap[i].val;
			if (iface) {
				elem.iface = 1;
				if (elem.kind == TMPL_INVALID)
					elem.kind = TMPL_NIL;
			}
			ran = 1;
			if ((r = step(s)) != 0)
				break;
			r = range_iteration(s, rn, mark, &key, &elem);
			if (r == WALK_BREAK) {
				r = 0;
				break;
			}
			if (r)
				break;
		}
		free(snap);
		if (r)
			goto out;
		break;
	}
	case TMPL_INVALID:
		break;
	default: {
		bh_buf b = BH_BUF_INIT;
		gofmt_value(&b, &val);
		r = errorf(s, "range can't iterate over %s", bh_buf_str(&b));
		bh_buf_free(&b);
		goto out;
	}
	}
	if (!ran && rn->else_list)
		r = walk(s, dot, rn->else_list);
out:
	s->nvars = outer;
	return r;
}

static ttree *lookup_template(state *s, const char *name)
{
	for (const tmpl_ns *o = s->overlay; o; o = o->parent) {
		ttree *t = tmpl_ns_find(o, name);
		if (t)
			return t;
	}
	return tmpl_ns_find(&s->e->ns, name);
}

static int walk_template(state *s, const tmpl_value *dot, const tnode *t)
{
	s->node = t;
	ttree *tmpl = lookup_template(s, t->name);
	tmpl_value newdot;
	int r;
	if (!tmpl)
		return errorf(s, "template \"%s\" not defined", t->name);
	if (s->depth >= s->e->limits.max_exec_depth)
		return limitf(s, "exceeded maximum template depth (%d)", s->e->limits.max_exec_depth);
	r = eval_pipeline(s, dot, t->pipe, &newdot);
	if (r)
		return r;
	state ns;
	memset(&ns, 0, sizeof(ns));
	ns.e = s->e;
	ns.overlay = s->overlay;
	ns.tmpl = tmpl;
	ns.wr = s->wr;
	ns.depth = s->depth + 1;
	vars_start(&ns);
	r = push(&ns, "$", newdot);
	if (r == 0)
		r = walk(&ns, &newdot, tmpl->root);
	vars_done(&ns);
	if (ns.err) {
		s->err = ns.err;
	}
	if (r == WALK_BREAK || r == WALK_CONTINUE)
		r = 0;
	return r;
}

static int walk(state *s, const tmpl_value *dot, const tnode *node)
{
	int r;
	s->node = node;
	if ((r = step(s)) != 0)
		return r;
	switch (node->type) {
	case N_ACTION: {
		tmpl_value val;
		r = eval_pipeline(s, dot, node->pipe, &val);
		if (r)
			return r;
		if (node->pipe->ndecl == 0)
			return print_value(s, node, &val);
		return 0;
	}
	case N_BREAK:
		return WALK_BREAK;
	case N_CONTINUE:
		return WALK_CONTINUE;
	case N_COMMENT:
		return 0;
	case N_IF:
		return walk_if_or_with(s, N_IF, dot, node);
	case N_LIST:
		return walk_list(s, dot, node);
	case N_RANGE:
		return walk_range(s, dot, node);
	case N_TEMPLATE:
		return walk_template(s, dot, node);
	case N_TEXT:
		bh_buf_put(s->wr, node->text, node->len);
		return 0;
	case N_WITH:
		return walk_if_or_with(s, N_WITH, dot, node);
	default: {
		bh_buf b = BH_BUF_INIT;
		tnode_string(&b, node);
		r = errorf(s, "unknown node: %s", bh_buf_str(&b));
		bh_buf_free(&b);
		return r;
	}
	}
}

/* ---- evaluation ---- */

static int not_a_function(state *s, const tnode *const *args, int nargs, const tmpl_value *final)
{
	if (nargs > 1 || final) {
		bh_buf b = BH_BUF_INIT;
		tnode_string(&b, args[0]);
		int r = errorf(s, "can't give argument to non-function %s", bh_buf_str(&b));
		bh_buf_free(&b);
		return r;
	}
	return 0;
}

static int is_hex_int(const char *t, size_t n)
{
	if (n > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
		for (size_t i = 0; i < n; i++)
			if (t[i] == 'p' || t[i] == 'P')
				return 0;
		return 1;
	}
	return 0;
}

static int ideal_constant(state *s, const tnode *c, tmpl_value *out)
{
	s->node = c;
	int has_float_chars = 0;
	for (size_t i = 0; i < c->len; i++)
		if (strchr(".eEpP", c->text[i]))
			has_float_chars = 1;
	if (c->is_complex) {
		tmpl_value v = tmpl_invalid();
		v.kind = TMPL_COMPLEX;
		v.u.c.re = c->f64;
		v.u.c.im = c->im;
		*out = v;
		return 0;
	}
	if (c->is_float && !is_hex_int(c->text, c->len) && !(c->len > 0 && c->text[0] == '\'') &&
	    has_float_chars) {
		*out = tmpl_float(c->f64);
		return 0;
	}
	if (c->is_int) {
		*out = tmpl_int(c->i64);
		return 0;
	}
	if (c->is_uint)
		return errorf(s, "%.*s overflows int", (int)c->len, c->text);
	*out = tmpl_invalid();
	return 0;
}

static int eval_command(state *s, const tmpl_value *dot, const tnode *cmd, const tmpl_value *final,
			tmpl_value *out)
{
	const tnode *first = cmd->items[0];
	const tnode *const *args = (const tnode *const *)cmd->items;
	int nargs = cmd->nitems, r;
	switch (first->type) {
	case N_FIELD:
		s->node = first;
		return eval_field_chain(s, dot, *dot, first, first->ident, first->nident, args, nargs,
					final, out);
	case N_CHAIN: {
		tmpl_value pipe;
		s->node = first;
		if (first->node->type == N_NIL) {
			bh_buf b = BH_BUF_INIT;
			tnode_string(&b, first);
			r = errorf(s, "indirection through explicit nil in %s", bh_buf_str(&b));
			bh_buf_free(&b);
			return r;
		}
		r = eval_arg(s, dot, 0, first->node, &pipe);
		if (r)
			return r;
		return eval_field_chain(s, dot, pipe, first, first->ident, first->nident, args, nargs,
					final, out);
	}
	case N_IDENT:
		return eval_function(s, dot, first, cmd, args, nargs, final, out);
	case N_PIPE:
		r = not_a_function(s, args, nargs, final);
		if (r)
			return r;
		return eval_pipeline(s, dot, first, out);
	case N_VARIABLE: {
		tmpl_value v;
		s->node = first;
		r = var_value(s, first->ident[0], &v);
		if (r)
			return r;
		if (first->nident == 1) {
			r = not_a_function(s, args, nargs, final);
			if (r)
				return r;
			*out = v;
			return 0;
		}
		return eval_field_chain(s, dot, v, first, first->ident + 1, first->nident - 1, args,
					nargs, final, out);
	}
	default:
		break;
	}
	s->node = first;
	r = not_a_function(s, args, nargs, final);
	if (r)
		return r;
	switch (first->type) {
	case N_BOOL:
		*out = tmpl_bool(first->b);
		return 0;
	case N_DOT:
		*out = *dot;
		return 0;
	case N_NIL:
		return errorf(s, "nil is not a command");
	case N_NUMBER:
		return ideal_constant(s, first, out);
	case N_STRING:
		*out = tmpl_str_static(first->text, first->len);
		return 0;
	default:
		break;
	}
	{
		bh_buf b = BH_BUF_INIT, q = BH_BUF_INIT;
		tnode_string(&b, first);
		gofmt_quote(&q, bh_buf_str(&b), b.len);
		r = errorf(s, "can't evaluate command %s", bh_buf_str(&q));
		bh_buf_free(&b);
		bh_buf_free(&q);
		return r;
	}
}

static int eval_pipeline(state *s, const tmpl_value *dot, const tnode *pipe, tmpl_value *out)
{
	tmpl_value value;
	int have = 0, r;
	if (!pipe) {
		*out = tmpl_invalid();
		return 0;
	}
	s->node = pipe;
	value = tmpl_invalid();
	for (int i = 0; i < pipe->nitems; i++) {
		tmpl_value nv;
		if ((r = step(s)) != 0)
			return r;
		r = eval_command(s, dot, pipe->items[i], have ? &value : NULL, &nv);
		if (r)
			return r;
		value = unwrap(nv);
		have = 1;
	}
	for (int i = 0; i < pipe->ndecl; i++) {
		if (pipe->is_assign)
			r = set_var(s, pipe->decl[i]->ident[0], value);
		else
			r = push(s, pipe->decl[i]->ident[0], value);
		if (r)
			return r;
	}
	*out = value;
	return 0;
}

/* Zero value of a map's element type for a missing key. */
static tmpl_value map_zero(const tmpl_map *m)
{
	if (strcmp(m->gotype, "map[string]string") == 0)
		return tmpl_str_static("", 0);
	if (strcmp(m->gotype, "engine.files") == 0) { /* map[string][]byte: a nil []byte */
		tmpl_value b = tmpl_str_static("", 0);
		b.kind = TMPL_BYTES;
		b.view = 1;
		return b;
	}
	tmpl_value v = tmpl_nil();
	v.iface = 1;
	return v;
}

static int eval_call(state *s, const tmpl_value *dot, const tmpl_func_def *fn, const tmpl_method *m,
		     const tmpl_value *self, const tnode *node, const char *name,
		     const tnode *const *args, int nargs, const tmpl_value *final, tmpl_value *out);

static inline __attribute__((always_inline)) int eval_field(state *s, const tmpl_value *dot, const char *field, const tnode *node,
		      const tnode *const *args, int nargs, const tmpl_value *final,
		      const tmpl_value *receiver, tmpl_value *out)
{
	int has_args = nargs > 1 || final;
	if (receiver->kind == TMPL_INVALID) {
		*out = tmpl_invalid();
		return 0;
	}
	if (receiver->kind == TMPL_NIL)
		return errorf(s, "nil pointer evaluating interface {}.%s", field);
	if (receiver->kind == TMPL_OBJECT) {
		const tmpl_class *cls = receiver->u.obj->cls;
		if (cls->methods && (!cls->ptr_methods || cls->pointer || receiver->addr))
			for (const tmpl_method *mm = cls->methods; mm->name; mm++)
				if (mm->name[0] == field[0] && strcmp(mm->name, field) == 0)
					return eval_call(s, dot, NULL, mm, receiver, node, field, args, nargs,
							 final, out);
		if (cls->field) {
			tmpl_value v;
			if (cls->field(receiver, field, &v) == 0) {
				if (field[0] >= 'a' && field[0] <= 'z')
					return errorf(s, "%s is an unexported field of struct type %s", field,
						      type_for_err(receiver));
				if (has_args)
					return errorf(s, "%s has arguments but cannot be invoked as function",
						      field);
				*out = v;
				/* a field through a pointer (or of an addressable struct) */
				out->addr = v.kind == TMPL_OBJECT && (cls->pointer || receiver->addr);
				return 0;
			}
		}
		return errorf(s, "can't evaluate field %s in type %s", field, type_for_err(receiver));
	}
	const tmpl_class *named = receiver->kind == TMPL_MAP  ? tmpl_map_class(receiver)
				  : receiver->kind == TMPL_LIST ? receiver->u.list->cls
								: NULL;
	/* methods are exported: a name that starts with a lower-case ASCII
	 * letter (a Values key, mostly) is never one */
	if (named && named->methods && !(field[0] >= 'a' && field[0] <= 'z'))
		for (const tmpl_method *mm = named->methods; mm->name; mm++)
			if (mm->name[0] == field[0] && strcmp(mm->name, field) == 0)
				return eval_call(s, dot, NULL, mm, receiver, node, field, args, nargs, final,
						 out);
	if (receiver->kind == TMPL_MAP) {
		if (has_args)
			return errorf(s, "%s is not a method but has arguments", field);
		/* field: a parse tree name (tmpl_name_hash) */
		const tmpl_map *m = receiver->u.map;
		tmpl_value *v = tmpl_map_get_hashed(m, field, tmpl_name_len(field),
						    m->index ? tmpl_name_hash(field) : 0);
		if (!v) {
			*out = map_zero(receiver->u.map);
			return 0;
		}
		*out = *v;
		/* the plain and Values views are interface maps */
		if (receiver->view == TMPL_VIEW_PLAIN || receiver->view == TMPL_VIEW_VALUES ||
		    receiver->u.map->gotype == tmpl_gotype_map_iface || receiver->u.map->gotype[0] != 'm' ||
		    strcmp(receiver->u.map->gotype, "map[string]string") != 0) {
			out->iface = 1;
			if (out->kind == TMPL_INVALID)
				out->kind = TMPL_NIL;
		}
		return 0;
	}
	return errorf(s, "can't evaluate field %s in type %s", field, type_for_err(receiver));
}

static int eval_field_chain(state *s, const tmpl_value *dot, tmpl_value receiver, const tnode *node,
			    const char **ident, int n, const tnode *const *args, int nargs,
			    const tmpl_value *final, tmpl_value *out)
{
	int r;
	for (int i = 0; i < n - 1; i++) {
		tmpl_value next;
		r = eval_field(s, dot, ident[i], node, NULL, 0, NULL, &receiver, &next);
		if (r)
			return r;
		receiver = next;
	}
	return eval_field(s, dot, ident[n - 1], node, args, nargs, final, &receiver, out);
}

static inline __attribute__((always_inline)) int eval_function(state *s, const tmpl_value *dot, const tnode *node, const tnode *cmd,
			 const tnode *const *args, int nargs, const tmpl_value *final, tmpl_value *out)
{
	s->node = node;
	const tmpl_func_def *fn = node->fn; /* the parser resolved it */
	return eval_call(s, dot, fn, NULL, NULL, cmd, fn->name, args, nargs, final, out);
}

static const char *type_code_name(char c)
{
	switch (c) {
	case 's': return "string";
	case 'b': return "bool";
	case 'f': return "float64";
	case 'i': return "int";
	case 'I': return "int64";
	case 'U': return "uint64";
	case 'l': return "[]interface {}";
	case 'm': return "map[string]interface {}";
	case 'r': return "reflect.Value";
	case 'w': return "io.Writer";
	case 't': return "time.Time";
	case 'C': return "sprig.certificate";
	case 'V': return "*semver.Version";
	default: return "interface {}";
	}
}

static int assignable(const tmpl_value *v, char typ)
{
	switch (typ) {
	case 'a': case 'r': case 0: return 1;
	case 's': return v->kind == TMPL_STRING;
	case 'b': return v->kind == TMPL_BOOL;
	case 'f': return v->kind == TMPL_FLOAT64;
	case 'i': return v->kind == TMPL_INT;
	case 'I': return v->kind == TMPL_INT64;
	case 'U': return v->kind == TMPL_UINT64;
	case 'l': return v->kind == TMPL_LIST && strcmp(v->u.list->gotype, "[]interface {}") == 0;
	case 'm': return v->kind == TMPL_MAP && (strcmp(tmpl_map_gotype(v), "map[string]interface {}") == 0 ||
						 strcmp(tmpl_map_gotype(v), "common.Values") == 0);
	case 'w': return 0; /* no template value is an io.Writer */
	case 't': case 'C': case 'V':
		return v->kind == TMPL_OBJECT && strcmp(tmpl_value_type_name(v), type_code_name(typ)) == 0;
	}
	return 0;
}

static int validate_type_slow(state *s, tmpl_value v, char typ, tmpl_value *out)
{
	if (v.kind == TMPL_INVALID) {
		switch (typ) {
		case 'a':
		case 'w': /* a nil io.Writer */
		case 'V': /* a nil *semver.Version */
			*out = tmpl_nil();
			return 0;
		case 0:
		case 'r':
			*out = tmpl_invalid();
			return 0;
		case 'l': {
			tmpl_list *l = tmpl_list_new(&s->e->arena, NULL, 0);
			if (!l)
				return limitf(s, "out of memory");
			l->is_nil = 1;
			*out = tmpl_list_value(l);
			return 0;
		}
		case 'm': {
			tmpl_map *m = tmpl_map_new(&s->e->arena, NULL);
			if (!m)
				return limitf(s, "out of memory");
			m->is_nil = 1;
			*out = tmpl_map_value(m);
			return 0;
		}
		default:
			return errorf(s, "invalid value; expected %s", type_code_name(typ));
		}
	}
	if (typ == 0 || typ == 'a' || typ == 'r') {
		*out = v;
		return 0;
	}
	if (v.kind == TMPL_NIL) {
		if (typ == 'l' || typ == 'm')
			return errorf(s, "wrong type for value; expected %s; got interface {}", type_code_name(typ));
		return errorf(s, "wrong type for value; expected %s; got interface {}", type_code_name(typ));
	}
	if (!assignable(&v, typ))
		return errorf(s, "wrong type for value; expected %s; got %s", type_code_name(typ),
			      tmpl_value_type_name(&v));
	v.iface = 0;
	/* reflect's Call converts a common.Values argument to the parameter's
	 * map[string]interface {}: what merge, set and unset hand back is the
	 * same map without the type (dig then takes it) */
	if (typ == 'm')
		v.view = TMPL_VIEW_PLAIN;
	*out = v;
	return 0;
}

/* Converts v to the parameter type typ (or checks it) into *out: inline,
 * the common case of an interface parameter ('a', 'r', none) taking a
 * valid value as it is; validate_type_slow for the rest. */
static inline int validate_type(state *s, tmpl_value v, char typ, tmpl_value *out)
{
	if (v.kind != TMPL_INVALID && (typ == 0 || typ == 'a' || typ == 'r')) {
		*out = v;
		return 0;
	}
	return validate_type_slow(s, v, typ, out);
}

static int eval_empty_interface(state *s, const tmpl_value *dot, const tnode *n, tmpl_value *out)
{
	s->node = n;
	switch (n->type) {
	case N_BOOL:
		*out = tmpl_bool(n->b);
		return 0;
	case N_DOT:
		*out = *dot;
		return 0;
	case N_NUMBER:
		return ideal_constant(s, n, out);
	case N_STRING:
		*out = tmpl_str_static(n->text, n->len);
		return 0;
	default:
		break;
	}
	bh_buf b = BH_BUF_INIT;
	tnode_string(&b, n);
	int r = errorf(s, "can't handle assignment of %s to empty interface argument", bh_buf_str(&b));
	bh_buf_free(&b);
	return r;
}

/* Evaluates argument node n for a parameter of type code typ (0 = the
 * untyped evaluation of a chain's base). */
static int eval_arg(state *s, const tmpl_value *dot, char typ, const tnode *n, tmpl_value *out)
{
	tmpl_value v;
	int r;
	s->node = n;
	if (tmpl_stack_over(s->e))
		return limitf(s, "template nesting too deep: more than %zu bytes of stack",
			      s->e->limits.max_stack);
	switch (n->type) {
	case N_DOT:
		return validate_type(s, *dot, typ, out);
	case N_NIL:
		switch (typ) {
		case 0: case 'a': case 'w': case 'V':
			*out = tmpl_nil();
			return 0;
		case 'r':
			*out = tmpl_invalid();
			return 0;
		case 'l': case 'm':
			return validate_type(s, tmpl_invalid(), typ, out);
		default:
			return errorf(s, "cannot assign nil to %s", type_code_name(typ));
		}
	case N_FIELD:
		r = eval_field_chain(s, dot, *dot, n, n->ident, n->nident, &n, 1, NULL, &v);
		if (r)
			return r;
		return validate_type(s, v, typ, out);
	case N_VARIABLE:
		r = var_value(s, n->ident[0], &v);
		if (r)
			return r;
		if (n->nident > 1) {
			tmpl_value w;
			r = eval_field_chain(s, dot, v, n, n->ident + 1, n->nident - 1, NULL, 0, NULL, &w);
			if (r)
				return r;
			v = w;
		}
		return validate_type(s, v, typ, out);
	case N_PIPE:
		r = eval_pipeline(s, dot, n, &v);
		if (r)
			return r;
		return validate_type(s, v, typ, out);
	case N_IDENT:
		r = eval_function(s, dot, n, n, NULL, 0, NULL, &v);
		if (r)
			return r;
		return validate_type(s, v, typ, out);
	case N_CHAIN: {
		tmpl_value base;
		if (n->node->type == N_NIL) {
			bh_buf b = BH_BUF_INIT;
			tnode_string(&b, n);
			r = errorf(s, "indirection through explicit nil in %s", bh_buf_str(&b));
			bh_buf_free(&b);
			return r;
		}
		r = eval_arg(s, dot, 0, n->node, &base);
		if (r)
			return r;
		r = eval_field_chain(s, dot, base, n, n->ident, n->nident, NULL, 0, NULL, &v);
		if (r)
			return r;
		return validate_type(s, v, typ, out);
	}
	default:
		break;
	}
	/* the constants' fast paths first; the node's text only for an error */
	switch (typ) {
	case 'b':
		if (n->type == N_BOOL) {
			*out = tmpl_bool(n->b);
			return 0;
		}
		break;
	case 'f':
		if (n->type == N_NUMBER && n->is_float) {
			*out = tmpl_float(n->f64);
			return 0;
		}
		break;
	case 'i':
	case 'I':
		if (n->type == N_NUMBER && n->is_int) {
			*out = typ == 'i' ? tmpl_int(n->i64) : tmpl_int64(n->i64);
			return 0;
		}
		break;
	case 'U':
		if (n->type == N_NUMBER && n->is_uint) {
			*out = tmpl_uint64(n->u64);
			return 0;
		}
		break;
	case 's':
		if (n->type == N_STRING) {
			*out = tmpl_str_static(n->text, n->len);
			return 0;
		}
		break;
	case 0:
	case 'a':
	case 'r':
		return eval_empty_interface(s, dot, n, out);
	default:
		break;
	}
	bh_buf b = BH_BUF_INIT;
	tnode_string(&b, n);
	switch (typ) {
	case 'b':
		r = errorf(s, "expected bool; found %s", bh_buf_str(&b));
		break;
	case 'f':
		r = errorf(s, "expected float; found %s", bh_buf_str(&b));
		break;
	case 'i':
	case 'I':
		r = errorf(s, "expected integer; found %s", bh_buf_str(&b));
		break;
	case 'U':
		r = errorf(s, "expected unsigned integer; found %s", bh_buf_str(&b));
		break;
	case 's':
		r = errorf(s, "expected string; found %s", bh_buf_str(&b));
		break;
	default:
		r = errorf(s, "can't handle %s for arg of type %s", bh_buf_str(&b), type_code_name(typ));
	}
	bh_buf_free(&b);
	return r;
}

static int eval_call(state *s, const tmpl_value *dot, const tmpl_func_def *fn, const tmpl_method *m,
		     const tmpl_value *self, const tnode *node, const char *name,
		     const tnode *const *args, int nargs, const tmpl_value *final, tmpl_value *out)
{
	const char *params = fn ? fn->params : m->params;
	size_t plen = strlen(params);
	int variadic = plen > 0 && params[plen - 1] == '*';
	int num_params = variadic ? (int)plen - 1 : (int)plen;
	int num_fixed, num_in, r;
	if (args) {
		args++;
		nargs--;
	} else {
		nargs = 0;
	}
	num_in = nargs + (final ? 1 : 0);
	num_fixed = nargs;
	if (variadic) {
		num_fixed = num_params - 1;
		if (num_in < num_fixed)
			return errorf(s, "wrong number of args for %s: want at least %d got %d", name,
				      num_params - 1, nargs);
	} else if (num_in != num_params) {
		return errorf(s, "wrong number of args for %s: want %d got %d", name, num_params, num_in);
	}

	/* and/or: short-circuit, returning the deciding operand */
	if (fn && fn->fn == NULL && fn->data == NULL && (strcmp(name, "and") == 0 || strcmp(name, "or") == 0)) {
		tmpl_value v = tmpl_invalid();
		int is_or = strcmp(name, "or") == 0;
		for (int i = 0; i < nargs; i++) {
			r = eval_arg(s, dot, 'r', args[i], &v);
			if (r)
				return r;
			v = unwrap(v);
			if (tmpl_value_truth(&v) == is_or) {
				*out = v;
				return 0;
			}
		}
		if (final)
			v = unwrap(*final);
		*out = v;
		return 0;
	}

	tmpl_value *argv = NULL;
	if (num_in > 0) {
		argv = tmpl_arena_bump(&s->e->arena, (size_t)num_in * sizeof(tmpl_value));
		if (!argv)
			return limitf(s, "memory limit of %zu bytes exceeded", s->e->limits.max_memory);
	}
	int i = 0;
	/* i < num_fixed: below plen - 2 when variadic, below num_in == plen
	 * otherwise, so params[i] is the fixed parameter's type */
	for (; i < num_fixed && i < nargs; i++) {
		r = eval_arg(s, dot, params[i], args[i], &argv[i]);
		if (r)
			return r;
		argv[i].addr = 0; /* the function's parameter is a copy */
	}
	if (variadic) {
		char et = params[plen - 2];
		for (; i < nargs; i++) {
			r = eval_arg(s, dot, et, args[i], &argv[i]);
			if (r)
				return r;
			argv[i].addr = 0;
		}
	}
	if (final) {
		char t;
		if (variadic) {
			if (num_in - 1 < num_fixed)
				t = params[num_in - 1];
			else
				t = params[plen - 2];
		} else {
			t = params[num_params - 1];
		}
		r = validate_type(s, *final, t, &argv[i]);
		if (r)
			return r;
		argv[i].addr = 0;
	}

	/* call */
	tmpl_call c;
	exec_ctx xc;
	/* bh_error is 8 KiB: keep it off the stack of this recursive path */
	bh_error *ferrp = tmpl_call_error_get(s->e);
	if (!ferrp)
		return limitf(s, "out of memory");
#define ferr (*ferrp)
	memset(&c, 0, sizeof(c));
	memset(&xc, 0, sizeof(xc));
	bh_error_clear(&ferr);
	xc.e = s->e;
	xc.overlay = s->overlay;
	xc.depth = s->depth;
	c.engine = s->e;
	c.arena = &s->e->arena;
	c.name = name;
	c.argc = num_in;
	c.argv = argv;
	c.self = self;
	c.data = fn ? fn->data : m->data;
	c.result = tmpl_invalid();
	c.err = &ferr;
	c.exec = &xc;
	/* like Go, s->node stays on the last evaluated argument unless the call
	 * fails (a later "undefined variable" error points there) */
	if (fn && fn->fn == NULL && fn->data == NULL && strcmp(name, "call") == 0) {
		/* the "call" builtin: no function values exist in Helm charts */
		tmpl_value f = argv[0];
		if (tmpl_value_is_nil(&f)) {
			bh_error_set(&ferr, BH_EEXEC, "call of nil");
		} else {
			bh_buf b = BH_BUF_INIT;
			if (nargs > 0)
				tnode_string(&b, args[0]);
			else
				gofmt_value(&b, final);
			bh_error_set(&ferr, BH_EEXEC, "non-function %s of type %s", bh_buf_str(&b),
				     tmpl_value_type_name(&f));
			bh_buf_free(&b);
		}
		r = BH_EEXEC;
	} else {
		tmpl_func_fn f = fn ? fn->fn : m->fn;
		r = f(&c);
	}
	if (r) {
		if (r == BH_ELIMIT && !xc.inner) {
			s->node = node;
			r = limitf(s, "%s", ferr.msg[0] ? ferr.msg : "limit exceeded");
			tmpl_call_error_put(s->e, ferrp);
			return r;
		}
		s->node = node;
		bh_buf prefix = BH_BUF_INIT;
		bh_buf_printf(&prefix, "error calling %s: ", name);
		xerr *x = xerr_new_exec(s, bh_buf_str(&prefix));
		bh_buf_free(&prefix);
		if (!x) {
			xerr_free(xc.inner);
			tmpl_call_error_put(s->e, ferrp);
			return limitf(s, "out of memory");
		}
		if (xc.inner) {
			x->next = xc.inner;
		} else {
			xerr *p = calloc(1, sizeof(*p));
			if (p) {
				p->kind = XE_PLAIN;
				p->msg = xstrdup(ferr.msg);
			}
			x->next = p;
		}
		if (!s->err)
			s->err = x;
		else
			xerr_free(x);
		tmpl_call_error_put(s->e, ferrp);
		return r == BH_ELIMIT ? BH_ELIMIT : BH_EEXEC;
	}
	tmpl_call_error_put(s->e, ferrp);
	*out = c.result;
	out->addr = 0; /* a function's result is a new value */
	return 0;
#undef ferr
}

int tmpl_exec_tree(tmpl_engine *e, tmpl_ns *overlay, ttree *t, const tmpl_value *dot,
		   bh_buf *out, xerr **xe, int depth)
{
	state s;
	int r;
	memset(&s, 0, sizeof(s));
	s.e = e;
	s.overlay = overlay;
	s.tmpl = t;
	s.wr = out;
	s.depth = depth;
	*xe = NULL;
	tmpl_value d = *dot;
	d.iface = 0;
	if (d.kind == TMPL_NIL)
		d.kind = TMPL_INVALID;
	vars_start(&s);
	r = push(&s, "$", d);
	if (r == 0) {
		if (!t->root) {
			r = errorf(&s, "\"%s\" is an incomplete or empty template", t->name);
		} else {
			r = walk(&s, &d, t->root);
			if (r == WALK_BREAK || r == WALK_CONTINUE)
				r = 0;
		}
	}
	if (r == 0 && (out->oom || out->len > e->limits.max_output))
		r = limitf(&s, "output size limit of %zu bytes exceeded", e->limits.max_output);
	vars_done(&s);
	*xe = s.err;
	if (r && !s.err) {
		*xe = xerr_new_exec(&s, "execution failed");
	}
	return r;
}
