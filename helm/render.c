/* helm/render.c — see render.h. Follows Helm 4's pkg/action (Install,
 * renderResources), pkg/engine (allTemplates, sortTemplates, render) and
 * pkg/cmd/template.go. */
#include "helm/render.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "helm/render_schema.h"
#include "helm/values.h"
#include "lib/buf.h"
#include "lib/semver.h"
#include "lib/vec.h"
#include "tmpl/helmctx.h"
#include "tmpl/tmpl.h"

void render_result_free(render_result *r)
{
	if (!r)
		return;
	manifest_list_free(&r->manifests);
	manifest_list_free(&r->hooks);
	for (size_t i = 0; i < r->ntexts; i++)
		free(r->texts[i]);
	free(r->texts);
	for (size_t i = 0; i < r->ncrds; i++)
		free(r->crds[i].path);
	free(r->crds);
	free(r->notes);
	free(r->manifest);
	free(r->template_text);
	free(r->error_text);
	json_decref(r->values);
	memset(r, 0, sizeof *r);
}

static int label_ok(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		int alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
		if (!alnum && !(c == '-' && i > 0 && i + 1 < n))
			return 0;
	}
	return 1;
}

int render_validate_release_name(const char *name, bh_error *err)
{
	if (!name || !*name)
		return bh_error_set(err, BH_EINVAL, "release name \"\": no name provided");
	int ok = strlen(name) <= 53;
	for (const char *p = name; ok;) {
		size_t l = strcspn(p, ".");
		if (!label_ok(p, l))
			ok = 0;
		if (!p[l])
			break;
		p += l + 1;
	}
	if (!ok)
		return bh_error_set(err, BH_EINVAL,
				    "release name \"%s\": invalid release name, must match regex "
				    "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the "
				    "length must not be longer than 53", name);
	return 0;
}

/* 1 when the decimal digits s[0..n) exceed a uint64 (Go's ParseUint range) */
static int digits_overflow(const char *s, size_t n)
{
	static const char max[] = "18446744073709551615";
	while (n > 1 && *s == '0')
		s++, n--;
	return n > sizeof max - 1 || (n == sizeof max - 1 && memcmp(s, max, n) > 0);
}

/* common.ParseKubeVersion: "v"-prefixed original, at least major.minor. */
int render_parse_kube_version(const char *in, char **out, bh_error *err)
{
	const char *p = in;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == 'v')
		p++;
	int comps = 0;
	const char *first = p;
	size_t first_len = 0;
	for (;;) {
		const char *c = p;
		if (!isdigit((unsigned char)*p))
			break;
		while (isdigit((unsigned char)*p))
			p++;
		if (!comps++)
			first_len = (size_t)(p - c);
		if (digits_overflow(c, (size_t)(p - c)))
			return bh_error_set(err, BH_EINVAL,
					    "invalid kube version '%s': illegal non-numeric version component \"%.*s\" in \"%s\": "
					    "strconv.ParseUint: parsing \"%.*s\": value out of range",
					    in, (int)(p - c), c, in, (int)(p - c), c);
		if (*p == '.' && isdigit((unsigned char)p[1]))
			p++;
		else
			break;
	}
	if (!comps)
		return bh_error_set(err, BH_EINVAL, "invalid kube version '%s': could not parse \"%s\" as version", in, in);
	if (comps < 2)
		return bh_error_set(err, BH_EINVAL, "invalid kube version '%s': illegal version string \"%s\"", in, in);
	/* k8s ParseGeneric: the first component has no leading zero */
	if (first_len > 1 && first[0] == '0')
		return bh_error_set(err, BH_EINVAL,
				    "invalid kube version '%s': illegal zero-prefixed version component \"%.*s\" in \"%s\"", in,
				    (int)first_len, first, in);
	bh_buf b = BH_BUF_INIT;
	if (in[0] != 'v')
		bh_buf_putc(&b, 'v');
	bh_buf_puts(&b, in);
	*out = bh_buf_detach(&b);
	return *out ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory");
}

/* ---- templates of a chart tree (engine.allTemplates) ---- */

typedef struct renderable {
	char *name;            /* full template name */
	const chart_file *src;
	size_t root;           /* index into roots */
	char *base_path;
	int depth;             /* '/' count */
	size_t seq;            /* order collected: of two with one name, the later is kept */
} renderable;

typedef struct collect {
	tmpl_arena *arena;
	const render_options *o;
	const char *kube_version;
	renderable *v;
	size_t n, cap;
	tmpl_value *roots;
	size_t nroots, rootcap;
	helmctx_file **files; /* per root (nroots, filecap), freed at the end */
	size_t filecap;
	size_t ncharts;       /* charts numbered so far (rec_templates) */
	tmpl_engine *e;       /* the engine the templates are parsed into */
	tmpl_source *src;     /* v's sources, in v's order (the parse job's) */
	tmpl_parse_job *job;  /* a parse running on other threads, or NULL */
	bh_error *err;
} collect;

static int count_slashes(const char *s)
{
	int n = 0;
	for (; *s; s++)
		if (*s == '/')
			n++;
	return n;
}

/* The map a subchart's .Values is, as Helm's recAllTpls takes it with
 * Values.Table("Values." + name): the parent's .Values.<name> itself when
 * that is a map, the name split at each '.' as parsePath does (a.b is
 * .Values.a.b); NULL (the subchart gets a new, empty map) when a step is
 * missing or not a map. */
static const tmpl_map *shared_values(const tmpl_value *parent_root, const char *name)
{
	const tmpl_value *v = tmpl_map_get(parent_root->u.map, "Values", 6);
	for (const char *p = name;; p++) {
		size_t n = strcspn(p, ".");
		if (!v || v->kind != TMPL_MAP || v->u.map->is_nil)
			return NULL;
		v = tmpl_map_get(v->u.map, p, n);
		p += n;
		if (!*p)
			break;
	}
	return v && v->kind == TMPL_MAP && !v->u.map->is_nil ? v->u.map : NULL;
}

/* The chart tree's roots (Helm's per-chart top-level objects), numbered in
 * pre-order as rec_templates numbers the charts: the top chart's .Values
 * from values, a subchart's the map in its parent's .Values (shared_map;
 * NULL: a new, empty one). */
static int rec_roots(collect *cx, const chart *c, const json_t *values, const tmpl_map *shared_map, int is_root,
		     size_t *root_out)
{
	size_t ri = cx->nroots;
	if (VEC_RESERVE(cx->roots, cx->rootcap, cx->nroots + 1, 16) < 0 ||
	    VEC_RESERVE(cx->files, cx->filecap, cx->nroots + 1, 16) < 0)
		return bh_error_set(cx->err, BH_ENOMEM, "out of memory");
	cx->nroots++;
	helmctx_file *hf = calloc(c->nfiles + 1, sizeof *hf);
	cx->files[ri] = hf;
	if (!hf)
		return bh_error_set(cx->err, BH_ENOMEM, "out of memory");
	for (size_t i = 0; i < c->nfiles; i++) {
		hf[i].name = c->files[i].name;
		hf[i].data = c->files[i].data;
		hf[i].len = c->files[i].len;
	}
	helmctx_opts ho;
	memset(&ho, 0, sizeof ho);
	ho.values = values;
	ho.chart = c->metadata;
	ho.release_name = cx->o->release_name;
	ho.release_namespace = cx->o->namespace_ ? cx->o->namespace_ : "default";
	ho.is_upgrade = cx->o->is_upgrade;
	ho.revision = cx->o->revision ? cx->o->revision : 1;
	ho.kube_version = cx->kube_version;
	ho.api_versions = cx->o->api_versions;
	ho.n_api_versions = cx->o->n_api_versions;
	ho.files = hf;
	ho.n_files = c->nfiles;
	ho.not_root = !is_root;
	ho.values_map = shared_map;
	int rc = helmctx_build(cx->arena, &ho, &cx->roots[ri], cx->err);
	if (rc)
		return rc;
	for (size_t i = 0; i < c->ndeps; i++) {
		const chart *sub = c->deps[i];
		size_t si;
		rc = rec_roots(cx, sub, NULL, shared_values(&cx->roots[ri], chart_name(sub)), 0, &si);
		if (rc)
			return rc;
		rc = helmctx_add_subchart(cx->arena, &cx->roots[ri], chart_name(sub), &cx->roots[si], cx->err);
		if (rc)
			return rc;
	}
	*root_out = ri;
	return 0;
}

/* The chart tree's templates (a library chart's "_" files only), each
 * with its chart's pre-order number: they do not depend on the values. */
static int rec_templates(collect *cx, const chart *c)
{
	size_t ri = cx->ncharts++;
	for (size_t i = 0; i < c->ndeps; i++) {
		int rc = rec_templates(cx, c->deps[i]);
		if (rc)
			return rc;
	}
	char *full = chart_full_path_dup(c);
	if (!full)
		return bh_error_set(cx->err, BH_ENOMEM, "out of memory");
	int library = chart_is_library(c);
	size_t full_len = strlen(full);
	for (size_t i = 0; i < c->ntemplates; i++) {
		const chart_file *t = &c->templates[i];
		const char *base = strrchr(t->name, '/');
		base = base ? base + 1 : t->name;
		if (library && base[0] != '_')
			continue;
		if (VEC_RESERVE(cx->v, cx->cap, cx->n + 1, 64) < 0) {
			free(full);
			return bh_error_set(cx->err, BH_ENOMEM, "out of memory");
		}
		renderable *r = &cx->v[cx->n];
		bh_buf nb = BH_BUF_INIT, bb = BH_BUF_INIT;
		/* by puts, not printf: one per template of every chart */
		bh_buf_put(&nb, full, full_len);
		bh_buf_putc(&nb, '/');
		bh_buf_puts(&nb, t->name);
		bh_buf_put(&bb, full, full_len);
		bh_buf_puts(&bb, "/templates");
		r->name = bh_buf_detach(&nb);
		r->base_path = bh_buf_detach(&bb);
		r->src = t;
		r->root = ri;
		r->depth = r->name ? count_slashes(r->name) : 0;
		r->seq = cx->n;
		if (!r->name || !r->base_path) {
			free(r->name);
			free(r->base_path);
			free(full);
			return bh_error_set(cx->err, BH_ENOMEM, "out of memory");
		}
		cx->n++;
	}
	free(full);
	return 0;
}

/* sort.Reverse(byPathLen): more '/' first, then reverse byte order. */
static int renderable_cmp(const void *a, const void *b)
{
	const renderable *x = a, *y = b;
	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	int c = strcmp(x->name, y->name);
	if (c)
		return -c;
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

/* Helm keys the templates by name: of two subcharts with one name (two
 * archives of one chart in charts/, say redis-10.8.1.tgz and
 * redis-11.2.1.tgz), the later one's template replaces the earlier one's
 * of the same path, and those of only one of them are all rendered.
 * v is sorted, the later of one name first: the others are dropped. */
static void drop_replaced(collect *cx)
{
	size_t k = 0;
	for (size_t i = 0; i < cx->n; i++) {
		if (k && !strcmp(cx->v[k - 1].name, cx->v[i].name)) {
			free(cx->v[i].name);
			free(cx->v[i].base_path);
			continue;
		}
		cx->v[k++] = cx->v[i];
	}
	cx->n = k;
}

typedef struct rendered {
	char **paths;
	char **texts;
	size_t n;
} rendered;

static void rendered_free(rendered *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->paths[i]);
		free(r->texts[i]);
	}
	free(r->paths);
	free(r->texts);
	memset(r, 0, sizeof *r);
}

/* Frees what templates_prepare made (a parse still running is stopped). */
static void templates_release(collect *cx)
{
	if (cx->job)
		tmpl_parse_job_cancel(cx->job);
	for (size_t i = 0; i < cx->n; i++) {
		free(cx->v[i].name);
		free(cx->v[i].base_path);
	}
	free(cx->v);
	free(cx->src);
	for (size_t i = 0; i < cx->nroots; i++)
		free(cx->files[i]);
	free(cx->files);
	free(cx->roots);
	tmpl_engine_free(cx->e);
	memset(cx, 0, sizeof *cx);
}

/* The engine and the chart tree's templates in render order, and, with
 * o->parse_threads > 1, their parse started on other threads: it runs
 * while the caller coalesces and checks the values (which the templates'
 * text does not depend on), and render_templates joins in. */
static int templates_prepare(const chart *c, const render_options *o, collect *cx, bh_error *err)
{
	int rc;
	memset(cx, 0, sizeof *cx);
	cx->o = o;
	cx->err = err;
	if (!(cx->e = tmpl_engine_new(err)))
		return err ? err->code : BH_ENOMEM;
	if (o->lookup)
		tmpl_engine_set_lookup(cx->e, o->lookup, o->lookup_ud);
	if (o->enable_dns)
		tmpl_engine_enable_dns(cx->e);
	cx->arena = tmpl_engine_arena(cx->e);
	if ((rc = rec_templates(cx, c)))
		return rc;
	if (!cx->n)
		return 0;
	qsort(cx->v, cx->n, sizeof *cx->v, renderable_cmp);
	drop_replaced(cx);
	if (!(cx->src = malloc(cx->n * sizeof *cx->src)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	for (size_t i = 0; i < cx->n; i++)
		cx->src[i] = (tmpl_source){cx->v[i].name, (const char *)cx->v[i].src->data, cx->v[i].src->len};
	cx->job = tmpl_parse_job_start(cx->e, cx->src, cx->n, o->parse_threads);
	return 0;
}

static int render_templates(collect *cx, const chart *c, const json_t *values, const render_options *o,
			    const char *kube_version, rendered *out, char **long_err, bh_error *err)
{
	int rc;
	memset(out, 0, sizeof *out);
	tmpl_engine *e = cx->e;
	tmpl_limits lim;
	size_t cap = o->max_output ? o->max_output : RENDER_MAX_OUTPUT, total = 0;
	if (o->limits)
		lim = *o->limits;
	else
		tmpl_limits_default(&lim);
	size_t engine_max = lim.max_output;
	cx->kube_version = kube_version;
	cx->err = err;
	size_t top;
	rc = rec_roots(cx, c, values, NULL, 1, &top);
	if (!rc && cx->job) /* joins in; done when it returns */
		rc = tmpl_parse_job_finish(cx->job, err);
	else if (!rc && cx->n)
		rc = tmpl_engine_add_borrowed_all(e, cx->src, cx->n, 1, err);
	cx->job = NULL;
	if (!rc) {
		out->paths = calloc(cx->n + 1, sizeof *out->paths);
		out->texts = calloc(cx->n + 1, sizeof *out->texts);
		if (!out->paths || !out->texts)
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < cx->n && !rc; i++) {
		const renderable *r = &cx->v[i];
		const char *base = strrchr(r->name, '/');
		base = base ? base + 1 : r->name;
		if (base[0] == '_')
			continue;
		rc = helmctx_set_template(cx->arena, &cx->roots[r->root], r->name, r->base_path, err);
		if (rc)
			break;
		bh_buf b = BH_BUF_INIT;
		/* each execution may write only what is left of the budget */
		lim.max_output = cap - total < engine_max ? cap - total : engine_max;
		tmpl_engine_set_limits(e, &lim);
		rc = tmpl_engine_render(e, r->name, &cx->roots[r->root], &b, err);
		if (rc)
			*long_err = tmpl_engine_take_error_text(e);
		if ((!rc || rc == BH_ELIMIT) && b.len > cap - total) {
			char what[64];
			if (cap % ((size_t)1 << 20))
				snprintf(what, sizeof what, "%zu bytes", cap);
			else
				snprintf(what, sizeof what, "%zu MiB (%zu bytes)", cap >> 20, cap);
			rc = bh_error_set(err, BH_ELIMIT, "rendered manifests exceed the output limit of %s in template %s",
					  what, r->name);
		}
		if (rc) {
			bh_buf_free(&b);
			break;
		}
		total += b.len;
		out->paths[out->n] = strdup(r->name);
		out->texts[out->n] = b.data ? bh_buf_detach(&b) : strdup("");
		out->n++;
		if (!out->paths[out->n - 1] || !out->texts[out->n - 1])
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	if (rc)
		rendered_free(out);
	return rc;
}

/* ---- CRDs ---- */

static int has_manifest_ext(const char *name)
{
	const char *slash = strrchr(name, '/');
	const char *dot = strrchr(slash ? slash : name, '.');
	return dot && (!strcasecmp(dot, ".yaml") || !strcasecmp(dot, ".yml") || !strcasecmp(dot, ".json"));
}

static int collect_crds(const chart *c, render_result *r)
{
	char *full = chart_full_path_dup(c);
	if (!full)
		return BH_ENOMEM;
	for (size_t i = 0; i < c->nfiles; i++) {
		const chart_file *f = &c->files[i];
		if (strncmp(f->name, "crds/", 5) || !has_manifest_ext(f->name))
			continue;
		render_crd *nv = realloc(r->crds, (r->ncrds + 1) * sizeof *nv);
		if (!nv) {
			free(full);
			return BH_ENOMEM;
		}
		r->crds = nv;
		bh_buf p = BH_BUF_INIT;
		bh_buf_printf(&p, "%s/%s", full, f->name);
		nv[r->ncrds].path = bh_buf_detach(&p);
		nv[r->ncrds].data = f->data;
		nv[r->ncrds].len = f->len;
		r->ncrds++;
	}
	free(full);
	for (size_t i = 0; i < c->ndeps; i++)
		if (collect_crds(c->deps[i], r))
			return BH_ENOMEM;
	return 0;
}

/* ---- template command output ---- */

static void trim_space(const char **s, size_t *n)
{
	while (*n && isspace((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

/* Appends "---\n# Source: PATH\nTEXT\n" (not by printf: TEXT may be
 * megabytes, which vsnprintf would walk twice). */
static void put_doc_n(bh_buf *b, const char *path, const char *text, size_t len)
{
	bh_buf_puts(b, "---\n# Source: ");
	bh_buf_puts(b, path);
	bh_buf_putc(b, '\n');
	bh_buf_put(b, text, len);
	bh_buf_putc(b, '\n');
}

static void put_doc(bh_buf *b, const char *path, const char *text)
{
	put_doc_n(b, path, text, strlen(text));
}

/* What put_doc_n adds for m, but for its path's length. */
#define DOC_OVERHEAD (sizeof "---\n# Source: \n\n" - 1)

/* Bytes of the documents of l as put_doc_n writes them. */
static size_t docs_size(const manifest_list *l)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += DOC_OVERHEAD + strlen(l->v[i].path) + l->v[i].content_len;
	return n;
}

/* The hooks `helm template` prints after the manifest. */
static void put_hooks(bh_buf *b, const render_result *r, const render_options *o)
{
	for (size_t i = 0; !o->no_hooks && i < r->hooks.n; i++) {
		const manifest *h = &r->hooks.v[i];
		if (!(o->skip_tests && manifest_is_test_hook(h)))
			put_doc_n(b, h->path, h->content, h->content_len);
	}
}

static int template_text(const render_result *r, const render_options *o, bh_buf *out, bh_error *err)
{
	bh_buf all = BH_BUF_INIT;
	const char *m = r->manifest ? r->manifest : "";
	size_t ml = strlen(m);
	trim_space(&m, &ml);
	bh_buf_put(&all, m, ml);
	bh_buf_putc(&all, '\n');
	put_hooks(&all, r, o);
	if (!o->n_show_only) {
		if (!out->data) { /* the text itself becomes out, not a copy of it */
			*out = all;
			return 0;
		}
		bh_buf_put(out, all.data ? all.data : "", all.len);
		bh_buf_free(&all);
		return 0;
	}
	char **docs = NULL;
	size_t nd = 0;
	if (manifest_split(bh_buf_str(&all), &docs, &nd)) {
		bh_buf_free(&all);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	bh_buf_free(&all);
	bh_buf sel = BH_BUF_INIT;
	int rc = 0;
	for (size_t f = 0; f < o->n_show_only && !rc; f++) {
		int missing = 1;
		for (size_t d = 0; d < nd; d++) {
			const char *src = strstr(docs[d], "# Source: ");
			if (!src)
				continue;
			src += 10;
			const char *slash = src;
			while (*slash && *slash != '/' && *slash != '\n')
				slash++;
			if (*slash != '/' || slash == src)
				continue;
			const char *nm = slash + 1;
			size_t nl = strcspn(nm, "\n");
			if (!nl)
				continue;
			char *name = strndup(nm, nl);
			if (name && fnmatch(o->show_only[f], name, FNM_PATHNAME) == 0) {
				bh_buf_printf(&sel, "---\n%s\n", docs[d]);
				missing = 0;
			}
			free(name);
		}
		if (missing)
			rc = bh_error_set(err, BH_ENOTFOUND, "could not find template %s in chart", o->show_only[f]);
	}
	manifest_split_free(docs, nd);
	if (!rc)
		bh_buf_put(out, sel.data ? sel.data : "", sel.len);
	bh_buf_free(&sel);
	return rc;
}

static void logf_(const render_options *o, const char *level, const char *msg, const bh_error *e)
{
	const char *attrs[] = {e ? "error" : NULL, e ? e->msg : NULL, NULL};
	if (o->log)
		o->log(o->log_ud, level, msg, attrs);
}

static void warn_cb(void *ud, const char *msg)
{
	const render_options *o = ud;
	const char *attrs[] = {NULL};
	if (o->log)
		o->log(o->log_ud, "INFO", msg, attrs);
}

static void dep_warn_cb(void *ud, const char *level, const char *msg, const char *const *attrs)
{
	const render_options *o = ud;
	if (o->log)
		o->log(o->log_ud, level, msg, attrs);
}

static int finish_text(render_result *out, const render_options *o, bh_error *err)
{
	bh_buf t = BH_BUF_INIT;
	int rc = template_text(out, o, &t, err);
	if (rc) {
		bh_buf_free(&t);
		return rc;
	}
	out->template_text = t.data ? bh_buf_detach(&t) : strdup("");
	return 0;
}

int render_check_installable(const chart *c, bh_error *err)
{
	const char *type = json_string_value(json_object_get(c->metadata, "type"));
	if (type && *type && strcmp(type, "application"))
		return bh_error_set(err, BH_EINVAL, "%s charts are not installable", type);
	return 0;
}

int render_chart(chart *c, const json_t *user_values, const render_options *o,
		 render_result *out, bh_error *err)
{
	json_t *empty = NULL;
	char *kube = NULL;
	rendered files;
	collect cx;
	int rc;
	memset(out, 0, sizeof *out);
	memset(&files, 0, sizeof files);
	memset(&cx, 0, sizeof cx);
	out->notes = strdup("");
	if (!user_values)
		user_values = empty = json_object();

	if (o->kube_version && *o->kube_version)
		rc = render_parse_kube_version(o->kube_version, &kube, err);
	else
		rc = (kube = strdup("v1.35.0")) ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory");
	if (rc)
		goto done;
	if ((rc = render_check_installable(c, err)))
		goto done;
	if ((rc = render_validate_release_name(o->release_name, err))) {
		logf_(o, "ERROR", "release name check failed", err);
		bh_error_prefix(err, "release name check failed");
		goto done;
	}
	if ((rc = chart_process_dependencies(c, user_values, dep_warn_cb, (void *)o, err))) {
		logf_(o, "ERROR", "chart dependencies processing failed", err);
		bh_error_prefix(err, "chart dependencies processing failed");
		goto done;
	}
	if ((rc = templates_prepare(c, o, &cx, err)))
		goto done;
	if ((rc = o->take_values ? values_coalesce_take(c, user_values, 0, warn_cb, (void *)o, &out->values, err)
				 : values_coalesce(c, user_values, 0, warn_cb, (void *)o, &out->values, err)))
		goto done;
	/* the schema check's lines are DEBUG: only --debug shows them, and the
	 * one with the schema decodes it again (a 48 KiB schema: 8 M instructions) */
	schema_log slg = {o->debug ? o->log : NULL, o->log_ud};
	if (!o->skip_schema_validation && (rc = render_validate_schemas(c, out->values, &slg, err)))
		goto done;

	/* the release exists from here on: errors get Helm's --debug hint */
	out->debug_hint = 1;
	const char *kv = json_string_value(json_object_get(c->metadata, "kubeVersion"));
	if (kv && *kv) { /* against the normalized version (v1.31.0-eks-1 is v1.31.0) */
		bh_buf norm = BH_BUF_INIT;
		helmctx_kube_normalized(kube, &norm);
		int ok = semver_satisfies(kv, bh_buf_str(&norm));
		bh_buf_free(&norm);
		if (!ok) {
			rc = bh_error_set(err, BH_EINVAL,
					  "chart requires kubeVersion: %s which is incompatible with Kubernetes %s", kv, kube);
			goto text;
		}
	}
	rc = render_templates(&cx, c, out->values, o, kube, &files, &out->error_text, err);
	templates_release(&cx); /* the engine: before the documents are sorted */
	if (rc)
		goto text;

	/* NOTES.txt: rendered, then pulled out */
	{
		bh_buf notes = BH_BUF_INIT;
		bh_buf top_notes = BH_BUF_INIT;
		bh_buf_printf(&top_notes, "%s/templates/NOTES.txt", chart_name(c));
		size_t w = 0;
		for (size_t i = 0; i < files.n; i++) {
			size_t pl = strlen(files.paths[i]);
			if (pl >= 9 && !strcmp(files.paths[i] + pl - 9, "NOTES.txt")) {
				if (o->sub_notes || !strcmp(files.paths[i], bh_buf_str(&top_notes))) {
					if (notes.len)
						bh_buf_putc(&notes, '\n');
					bh_buf_puts(&notes, files.texts[i]);
				}
				free(files.paths[i]);
				free(files.texts[i]);
				continue;
			}
			files.paths[w] = files.paths[i];
			files.texts[w] = files.texts[i];
			w++;
		}
		files.n = w;
		bh_buf_free(&top_notes);
		free(out->notes);
		out->notes = notes.data ? bh_buf_detach(&notes) : strdup("");
	}

	if (o->post_render && (rc = o->post_render(o->post_render_ud, &files.paths, &files.texts, &files.n, err)))
		goto text;
	/* the documents stay in the rendered files, which out keeps */
	rc = manifest_sort_files_inplace((const char *const *)files.paths, files.texts, files.n, &out->hooks,
					 &out->manifests, (manifest_log_fn)o->log, o->log_ud, err);
	if (!rc) {
		out->texts = files.texts;
		out->ntexts = files.n;
		files.texts = NULL;
		files.n = 0; /* the paths: the manifests have their own */
		for (size_t i = 0; i < out->ntexts; i++)
			free(files.paths[i]);
	}
	if (rc) {
		/* the raw files, for --debug */
		bh_buf raw = BH_BUF_INIT;
		size_t *order = malloc((files.n + 1) * sizeof *order);
		for (size_t i = 0; order && i < files.n; i++)
			order[i] = i;
		for (size_t i = 1; order && i < files.n; i++)
			for (size_t j = i; j > 0 && strcmp(files.paths[order[j - 1]], files.paths[order[j]]) > 0; j--) {
				size_t t = order[j];
				order[j] = order[j - 1];
				order[j - 1] = t;
			}
		for (size_t i = 0; order && i < files.n; i++) {
			const char *t = files.texts[order[i]];
			size_t tl = strlen(t);
			const char *ts = t;
			trim_space(&ts, &tl);
			if (!tl)
				continue;
			put_doc(&raw, files.paths[order[i]], t);
		}
		free(order);
		out->manifest = raw.data ? bh_buf_detach(&raw) : strdup("");
		goto text;
	}
	if (collect_crds(c, out)) {
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		goto done;
	}
	{
		bh_buf b = BH_BUF_INIT;
		int in_place = o->text_only && !o->n_show_only;
		/* one allocation: no copies as it grows */
		bh_buf_grow(&b, docs_size(&out->manifests) + (in_place ? docs_size(&out->hooks) + 1 : 0));
		if (o->include_crds)
			for (size_t i = 0; i < out->ncrds; i++) {
				bh_buf_printf(&b, "---\n# Source: %s\n", out->crds[i].path);
				bh_buf_put(&b, out->crds[i].data, out->crds[i].len);
				bh_buf_putc(&b, '\n');
			}
		for (size_t i = 0; i < out->manifests.n; i++)
			put_doc_n(&b, out->manifests.v[i].path, out->manifests.v[i].content,
				  out->manifests.v[i].content_len);
		if (!bh_buf_ok(&b)) {
			bh_buf_free(&b);
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
			goto done;
		}
		if (in_place) {
			/* template_text's manifest, trimmed (it starts with "---" or
			 * is empty), is the manifest but for its last spaces */
			while (b.len && isspace((unsigned char)b.data[b.len - 1]))
				b.len--;
			bh_buf_putc(&b, '\n');
			put_hooks(&b, out, o);
			if (!bh_buf_ok(&b)) {
				bh_buf_free(&b);
				rc = bh_error_set(err, BH_ENOMEM, "out of memory");
				goto done;
			}
			out->template_text = bh_buf_detach(&b);
			goto done;
		}
		out->manifest = b.data ? bh_buf_detach(&b) : strdup("");
	}
	rc = finish_text(out, o, err);
	if (rc)
		out->debug_hint = 0; /* template.go returns this one directly */
	goto done;
text:
	/* a failed render still yields Helm's --debug output */
	if (o->debug) {
		if (!out->manifest)
			out->manifest = strdup("");
		finish_text(out, o, NULL);
	}
done:
	templates_release(&cx);
	rendered_free(&files);
	free(kube);
	json_decref(empty);
	return rc;
}
