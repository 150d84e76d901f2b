/* tmpl/funcs_helm.c — the functions Helm's engine defines itself:
 * include, tpl, required, fail, lookup (pkg/engine/funcs.go, engine.go). */
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"
#include "tmpl/funcs.h"
#include "tmpl/gofmt.h"
#include "tmpl/internal.h"

/* The index of name's nesting count in e->incl (added at 0 when new), or -1
 * when out of memory. An index stays valid while the array grows. */
static long incl_slot(tmpl_engine *e, const char *name)
{
	size_t len = strlen(name);
	/* a chart includes tens of names: lengths and first bytes differ */
	for (size_t i = 0; i < e->nincl; i++)
		if (e->incl[i].len == len && e->incl[i].name[0] == name[0] &&
		    memcmp(e->incl[i].name, name, len) == 0)
			return (long)i;
	if (VEC_RESERVE(e->incl, e->capincl, e->nincl + 1, 16) < 0)
		return -1;
	char *nm = tmpl_arena_strdup(&e->parse_arena, name, len);
	if (!nm)
		return -1;
	e->incl[e->nincl].name = nm;
	e->incl[e->nincl].len = len;
	e->incl[e->nincl].n = 0;
	return (long)e->nincl++;
}

static ttree *find_tree(exec_ctx *xc, const char *name)
{
	for (const tmpl_ns *o = xc->overlay; o; o = o->parent) {
		ttree *t = tmpl_ns_find(o, name);
		if (t)
			return t;
	}
	return tmpl_ns_find(&xc->e->ns, name);
}

static int fn_include(tmpl_call *c)
{
	exec_ctx *xc = c->exec;
	tmpl_engine *e = xc->e;
	const char *name = tmpl_arena_strdup(c->arena, c->argv[0].u.s.ptr, c->argv[0].u.s.len);
	long slot = name ? incl_slot(e, name) : -1;
	bh_buf out;
	xerr *xe = NULL;
	int r;
	if (slot < 0)
		return BH_ELIMIT;
	if (e->incl[slot].n > e->limits.max_include_depth)
		return tmpl_call_errorf(c, "rendering template has a nested reference name: %s: unable to execute template",
					name);
	e->incl[slot].n++;
	ttree *t = find_tree(xc, name);
	if (!t) {
		e->incl[slot].n--;
		xerr *x = calloc(1, sizeof(*x));
		if (!x)
			return BH_ELIMIT;
		x->kind = XE_NOTEMPLATE;
		bh_buf m = BH_BUF_INIT;
		bh_buf_puts(&m, "template: no template ");
		gofmt_quote(&m, name, strlen(name));
		bh_buf_puts(&m, " associated with template \"gotpl\"");
		x->msg = bh_buf_detach(&m);
		xc->inner = x;
		return BH_EEXEC;
	}
	if (xc->depth + 1 >= e->limits.max_exec_depth) {
		e->incl[slot].n--;
		return tmpl_call_errorf(c, "exceeded maximum template depth (%d)", e->limits.max_exec_depth);
	}
	tmpl_buf_get(e, &out);
	r = tmpl_exec_tree(e, xc->overlay, t, &c->argv[1], &out, &xe, xc->depth + 1);
	/* the array may have grown meanwhile: the index holds */
	e->incl[slot].n--;
	if (r) {
		tmpl_buf_put(e, &out);
		xc->inner = xe;
		return r == BH_ELIMIT ? BH_ELIMIT : BH_EEXEC;
	}
	c->result = tmpl_str_buf(c->arena, &out);
	tmpl_buf_put(e, &out);
	return 0;
}

static int fn_tpl(tmpl_call *c)
{
	exec_ctx *xc = c->exec;
	tmpl_engine *e = xc->e;
	const tmpl_value *src = &c->argv[0];
	tmpl_ns *ov = tmpl_arena_alloc(&e->parse_arena, sizeof(*ov));
	bh_error *perr = tmpl_call_error_get(e); /* 8 KiB: one kept for calls */
	bh_buf out;
	xerr *xe = NULL;
	int r;
	if (!ov || !perr) {
		if (perr)
			tmpl_call_error_put(e, perr);
		return BH_ELIMIT;
	}
	ov->parent = xc->overlay;
	bh_error_clear(perr);
	r = tmpl_parse(e, ov, "gotpl", src->u.s.ptr, src->u.s.len, 0, perr);
	if (r) {
		bh_buf q = BH_BUF_INIT;
		gofmt_quote(&q, src->u.s.ptr, src->u.s.len);
		tmpl_call_errorf(c, "cannot parse template %s: %s", bh_buf_str(&q), perr->msg);
		bh_buf_free(&q);
		tmpl_ns_release(ov);
		tmpl_call_error_put(e, perr);
		return r == BH_ELIMIT ? BH_ELIMIT : BH_EEXEC;
	}
	tmpl_call_error_put(e, perr);
	ttree *t = tmpl_ns_find(ov, "gotpl");
	if (!t) {
		tmpl_ns_release(ov);
		return tmpl_call_errorf(c, "cannot parse template: no root template");
	}
	if (xc->depth + 1 >= e->limits.max_exec_depth) {
		tmpl_ns_release(ov);
		return tmpl_call_errorf(c, "exceeded maximum template depth (%d)", e->limits.max_exec_depth);
	}
	tmpl_buf_get(e, &out);
	r = tmpl_exec_tree(e, ov, t, &c->argv[1], &out, &xe, xc->depth + 1);
	if (r) {
		tmpl_buf_put(e, &out);
		xerr *w = calloc(1, sizeof(*w));
		if (!w) {
			xerr_free(xe);
			tmpl_ns_release(ov);
			return BH_ELIMIT;
		}
		bh_buf m = BH_BUF_INIT;
		bh_buf_puts(&m, "error during tpl function execution for ");
		gofmt_quote(&m, src->u.s.ptr, src->u.s.len);
		bh_buf_puts(&m, ": ");
		w->kind = XE_PLAIN;
		w->msg = bh_buf_detach(&m);
		w->next = xe;
		xc->inner = w;
		/* trees parsed by tpl stay referenced by nothing after this call */
		tmpl_ns_release(ov);
		return r == BH_ELIMIT ? BH_ELIMIT : BH_EEXEC;
	}
	tmpl_ns_release(ov);
	tmpl_strip_no_value(&out, 0);
	c->result = tmpl_str_buf(c->arena, &out);
	tmpl_buf_put(e, &out);
	return 0;
}

static int warn(tmpl_call *c, const tmpl_value *msg)
{
	return tmpl_call_errorf(c, "HELM_ERR_START%.*sHELM_ERR_END", (int)msg->u.s.len, msg->u.s.ptr);
}

static int fn_required(tmpl_call *c)
{
	const tmpl_value *v = &c->argv[1];
	if (tmpl_value_is_nil(v))
		return warn(c, &c->argv[0]);
	if (v->kind == TMPL_STRING && v->u.s.len == 0)
		return warn(c, &c->argv[0]);
	c->result = *v;
	return 0;
}

static int fn_fail(tmpl_call *c)
{
	return warn(c, &c->argv[0]);
}

static int fn_lookup(tmpl_call *c)
{
	exec_ctx *xc = c->exec;
	tmpl_engine *e = xc->e;
	if (e->lookup) {
		bh_error err;
		char *s[4];
		tmpl_value out = tmpl_invalid();
		for (int i = 0; i < 4; i++)
			s[i] = tmpl_arena_strdup(c->arena, c->argv[i].u.s.ptr, c->argv[i].u.s.len);
		if (!s[0] || !s[1] || !s[2] || !s[3])
			return BH_ELIMIT;
		bh_error_clear(&err);
		if (e->lookup(e->lookup_ud, c->arena, s[0], s[1], s[2], s[3], &out, &err))
			return tmpl_call_errorf(c, "%s", err.msg);
		c->result = out;
		return 0;
	}
	tmpl_map *m = tmpl_map_new(c->arena, NULL);
	if (!m)
		return BH_ELIMIT;
	c->result = tmpl_map_value(m);
	return 0;
}

const tmpl_func_def tmpl_funcs_helm[] = {
	{"include", fn_include, "sa", NULL},
	{"tpl", fn_tpl, "sa", NULL},
	{"required", fn_required, "sa", NULL},
	{"fail", fn_fail, "s", NULL},
	{"lookup", fn_lookup, "ssss", NULL},
	{NULL, NULL, NULL, NULL},
};
