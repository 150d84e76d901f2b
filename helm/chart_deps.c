/* helm/chart_deps.c — Helm's ProcessDependencies
 * (pkg/chart/v2/util/dependencies.go): aliases, `condition` and `tags`
 * enabling, then `import-values` (both forms) children first. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helm/chart.h"
#include "helm/values.h"
#include "lib/buf.h"
#include "lib/json_pool.h"
#include "lib/semver.h"

typedef struct logctx {
	chart_warn_fn warn;
	void *ud;
} logctx;

static void warn2(const logctx *lc, const char *msg, const char *k1, const char *v1, const char *k2, const char *v2)
{
	const char *attrs[] = {k1, v1, k2, v2, NULL};
	if (lc->warn)
		lc->warn(lc->ud, "WARN", msg, attrs);
}

/* values_warn_fn adapter: coalescing warnings are log.Printf (INFO) in Helm */
static void values_warn(void *ud, const char *msg)
{
	const logctx *lc = ud;
	const char *attrs[] = {NULL};
	if (lc->warn)
		lc->warn(lc->ud, "INFO", msg, attrs);
}

static const char *dstr(const json_t *d, const char *k)
{
	const char *s = json_string_value(json_object_get(d, k));
	return s ? s : "";
}

/* Values.PathValue: the non-table value at a dotted path, or NULL. */
static json_t *path_value(const json_t *v, const char *path)
{
	if (!*path)
		return NULL;
	const char *dot = strrchr(path, '.');
	const json_t *t = v;
	const char *key = path;
	if (dot) {
		char *head = strndup(path, (size_t)(dot - path));
		t = head ? values_table(v, head) : NULL;
		free(head);
		key = dot + 1;
		if (!t)
			return NULL;
	}
	json_t *k = json_object_get(t, key);
	if (!k || json_is_object(k))
		return NULL;
	return k;
}

static void process_tags(json_t *reqs, const json_t *cvals, const logctx *lc)
{
	json_t *vt = values_table(cvals, "tags");
	size_t i, j;
	json_t *r, *tag;
	if (!vt)
		return;
	json_array_foreach(reqs, i, r) {
		int has_true = 0, has_false = 0;
		json_array_foreach(json_object_get(r, "tags"), j, tag) {
			const char *tn = json_string_value(tag);
			json_t *b = tn ? json_object_get(vt, tn) : NULL;
			if (!b)
				continue;
			if (json_is_boolean(b)) {
				if (json_is_true(b))
					has_true = 1;
				else
					has_false = 1;
			} else {
				warn2(lc, "returned non-bool value", "tag", tn, "chart", dstr(r, "name"));
			}
		}
		if (!has_true && has_false)
			json_object_set_new(r, "enabled", json_false());
		else
			json_object_set_new(r, "enabled", json_true());
	}
}

static void process_conditions(json_t *reqs, const json_t *cvals, const char *cpath, const logctx *lc)
{
	size_t i;
	json_t *r;
	json_array_foreach(reqs, i, r) {
		const char *cond = dstr(r, "condition");
		while (*cond == ' ' || *cond == '\t' || *cond == '\n' || *cond == '\r')
			cond++;
		char *copy = strdup(cond);
		if (!copy)
			continue;
		size_t cl = strlen(copy);
		while (cl && (copy[cl - 1] == ' ' || copy[cl - 1] == '\t' || copy[cl - 1] == '\n' || copy[cl - 1] == '\r'))
			copy[--cl] = 0;
		char *p = copy;
		for (;;) {
			size_t l = strcspn(p, ",");
			if (l > 0) {
				bh_buf path = BH_BUF_INIT;
				bh_buf_printf(&path, "%s%.*s", cpath, (int)l, p);
				json_t *vv = path_value(cvals, bh_buf_str(&path));
				bh_buf_free(&path);
				if (vv) {
					if (json_is_boolean(vv)) {
						json_object_set_new(r, "enabled", json_boolean(json_is_true(vv)));
						break;
					}
					char *c1 = strndup(p, l);
					warn2(lc, "returned non-bool value", "path", c1 ? c1 : "", "chart", dstr(r, "name"));
					free(c1);
				}
			}
			if (!p[l])
				break;
			p += l + 1;
		}
		free(copy);
	}
}

static int compatible(const json_t *req, const chart *c)
{
	return semver_satisfies(dstr(req, "version"), chart_version(c));
}

static int set_deps(chart *c, chart **deps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		deps[i]->parent = c;
	free(c->deps);
	c->deps = deps;
	c->ndeps = n;
	return 0;
}

static int process_enabled(chart *c, const json_t *v, const char *path, const logctx *lc, bh_error *err)
{
	json_t *reqs = json_object_get(c->metadata, "dependencies");
	size_t i;
	json_t *r;
	if (!json_is_array(reqs))
		return 0;
	size_t cap = c->ndeps + json_array_size(reqs) + 1, nn = 0;
	chart **nd = calloc(cap, sizeof *nd);
	char *keep = calloc(c->ndeps + 1, 1);
	if (!nd || !keep) {
		free(nd);
		free(keep);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	for (size_t k = 0; k < c->ndeps; k++) {
		int matched = 0;
		json_array_foreach(reqs, i, r)
			if (!strcmp(chart_name(c->deps[k]), dstr(r, "name")) && compatible(r, c->deps[k]))
				matched = 1;
		if (!matched) {
			nd[nn++] = c->deps[k];
			keep[k] = 1;
		}
	}
	/* how many requirements take each chart (the first that matches each) */
	size_t *takers = calloc(c->ndeps + 1, sizeof *takers);
	if (!takers) {
		free(nd);
		free(keep);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	json_array_foreach(reqs, i, r) {
		if (!json_is_object(r))
			continue;
		for (size_t k = 0; k < c->ndeps; k++)
			if (!strcmp(chart_name(c->deps[k]), dstr(r, "name")) && compatible(r, c->deps[k])) {
				takers[k]++;
				break;
			}
	}
	json_array_foreach(reqs, i, r) {
		if (!json_is_object(r))
			continue;
		for (size_t k = 0; k < c->ndeps; k++) {
			if (strcmp(chart_name(c->deps[k]), dstr(r, "name")) || !compatible(r, c->deps[k]))
				continue;
			/* a chart one requirement takes is moved, not copied (the
			 * original would be freed below) */
			chart *cp = takers[k] == 1 ? c->deps[k] : chart_dup(c->deps[k]);
			if (takers[k] == 1)
				keep[k] = 1;
			if (!cp) {
				for (size_t m = 0; m < nn; m++) {
					int orig = 0;
					for (size_t o = 0; o < c->ndeps; o++)
						if (nd[m] == c->deps[o])
							orig = 1;
					if (!orig)
						chart_free(nd[m]);
				}
				free(takers);
				free(keep);
				free(nd);
				return bh_error_set(err, BH_ENOMEM, "out of memory");
			}
			const char *alias = dstr(r, "alias");
			if (*alias)
				json_object_set_new(cp->metadata, "name", json_string(alias));
			nd[nn++] = cp;
			break;
		}
		const char *alias = dstr(r, "alias");
		if (*alias)
			json_object_set_new(r, "name", json_string(alias));
	}
	for (size_t k = 0; k < c->ndeps; k++)
		if (!keep[k])
			chart_free(c->deps[k]);
	free(takers);
	free(keep);
	set_deps(c, nd, nn);

	json_array_foreach(reqs, i, r)
		if (json_is_object(r))
			json_object_set_new(r, "enabled", json_true());
	json_t *cvals = NULL;
	int rc = values_coalesce_view(c, v, 0, values_warn, (void *)lc, &cvals, err);
	if (rc)
		return rc;
	process_tags(reqs, cvals, lc);
	process_conditions(reqs, cvals, path, lc);

	/* drop disabled charts and their metadata entries */
	json_t *rm = json_object();
	json_array_foreach(reqs, i, r)
		if (json_is_object(r) && json_is_false(json_object_get(r, "enabled")))
			json_object_set_new(rm, dstr(r, "name"), json_true());
	size_t w = 0;
	for (size_t k = 0; k < c->ndeps; k++) {
		if (json_object_get(rm, chart_name(c->deps[k])))
			chart_free(c->deps[k]);
		else
			c->deps[w++] = c->deps[k];
	}
	c->ndeps = w;
	json_t *md = json_array();
	json_array_foreach(reqs, i, r)
		if (!json_is_object(r) || !json_object_get(rm, dstr(r, "name")))
			json_array_append(md, r);
	json_decref(rm);
	for (size_t k = 0; k < c->ndeps && !rc; k++) {
		bh_buf sub = BH_BUF_INIT;
		bh_buf_printf(&sub, "%s%s.", path, chart_name(c->deps[k]));
		rc = process_enabled(c->deps[k], cvals, bh_buf_str(&sub), lc, err);
		bh_buf_free(&sub);
	}
	json_decref(cvals);
	if (json_array_size(md))
		json_object_set_new(c->metadata, "dependencies", md);
	else {
		json_decref(md);
		json_object_del(c->metadata, "dependencies");
	}
	return rc;
}

/* pathToMap: {a: {b: data}} for "a.b"; data itself for ".". New ref. */
static json_t *path_to_map(const char *path, json_t *data)
{
	if (!strcmp(path, "."))
		return json_incref(data);
	json_t *cur = json_incref(data);
	const char *end = path + strlen(path);
	for (;;) {
		const char *start = end;
		while (start > path && start[-1] != '.')
			start--;
		json_t *m = json_object();
		json_object_setn_new(m, start, (size_t)(end - start), cur);
		cur = m;
		if (start == path)
			break;
		end = start - 1;
	}
	return cur;
}

static char *go_sprint(const json_t *v)
{
	if (!v)
		return strdup("<nil>");
	if (json_is_string(v))
		return strdup(json_string_value(v));
	if (json_is_null(v))
		return strdup("<nil>");
	if (json_is_true(v))
		return strdup("true");
	if (json_is_false(v))
		return strdup("false");
	char *s = json_dumps_dup(v, JSON_ENCODE_ANY | JSON_COMPACT);
	return s ? s : strdup("");
}

static int process_import_values(chart *c, const logctx *lc, bh_error *err)
{
	json_t *reqs = json_object_get(c->metadata, "dependencies");
	size_t i, j;
	json_t *r, *riv;
	if (!json_is_array(reqs))
		return 0;
	json_t *cvals = NULL;
	/* c's values are replaced by cvals below: merged in place */
	int rc = values_coalesce_take_top(c, NULL, 1, values_warn, (void *)lc, &cvals, err);
	if (rc)
		return rc;
	json_t *b = json_object();
	json_array_foreach(reqs, i, r) {
		json_t *ivs = json_object_get(r, "import-values");
		if (!json_is_array(ivs))
			continue;
		json_t *outiv = json_array();
		const char *rn = dstr(r, "name");
		json_array_foreach(ivs, j, riv) {
			if (json_is_object(riv)) {
				char *child = go_sprint(json_object_get(riv, "child"));
				char *parent = go_sprint(json_object_get(riv, "parent"));
				json_t *o = json_object();
				json_object_set_new(o, "child", json_string(child));
				json_object_set_new(o, "parent", json_string(parent));
				json_array_append_new(outiv, o);
				bh_buf p = BH_BUF_INIT;
				bh_buf_printf(&p, "%s.%s", rn, child);
				bh_buf why = BH_BUF_INIT;
				json_t *vv = values_table_why(cvals, bh_buf_str(&p), &why);
				bh_buf_free(&p);
				if (!vv) {
					warn2(lc, "ImportValues missing table from chart", "chart", rn, "error", bh_buf_str(&why));
				} else {
					json_t *pm = path_to_map(parent, vv);
					values_coalesce_tables(b, pm, 1, values_warn, (void *)lc);
					json_decref(pm);
				}
				bh_buf_free(&why);
				free(child);
				free(parent);
			} else if (json_is_string(riv)) {
				bh_buf child = BH_BUF_INIT, p = BH_BUF_INIT;
				bh_buf_printf(&child, "exports.%s", json_string_value(riv));
				json_t *o = json_object();
				json_object_set_new(o, "child", json_string(bh_buf_str(&child)));
				json_object_set_new(o, "parent", json_string("."));
				json_array_append_new(outiv, o);
				bh_buf_printf(&p, "%s.%s", rn, bh_buf_str(&child));
				bh_buf why = BH_BUF_INIT;
				json_t *vm = values_table_why(cvals, bh_buf_str(&p), &why);
				if (!vm) /* Helm names no chart here */
					warn2(lc, "ImportValues missing table", "error", bh_buf_str(&why), NULL, NULL);
				else
					values_coalesce_tables(b, vm, 1, values_warn, (void *)lc);
				bh_buf_free(&why);
				bh_buf_free(&child);
				bh_buf_free(&p);
			}
		}
		json_object_set_new(r, "import-values", outiv);
	}
	json_t *copy = cvals;
	if (json_object_size(b)) {
		/* b may hold tables of cvals: coalesce into a copy of its own */
		copy = json_deep_copy(cvals);
		json_decref(cvals);
		values_coalesce_tables(copy, b, 1, values_warn, (void *)lc);
	} /* else: coalescing nothing changes nothing, and cvals is a new tree no one else holds */
	json_decref(b);
	if (!copy)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	json_decref(c->values);
	c->values = copy;
	return 0;
}

static int import_values_rec(chart *c, const logctx *lc, bh_error *err)
{
	for (size_t i = 0; i < c->ndeps; i++) {
		int rc = import_values_rec(c->deps[i], lc, err);
		if (rc)
			return rc;
	}
	return process_import_values(c, lc, err);
}

int chart_process_dependencies(chart *c, const json_t *user_values,
			       chart_warn_fn warn, void *ud, bh_error *err)
{
	logctx lc = {warn, ud};
	int rc = process_enabled(c, user_values, "", &lc, err);
	if (rc)
		return rc;
	return import_values_rec(c, &lc, err);
}
