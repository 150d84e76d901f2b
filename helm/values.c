/* helm/values.c — see values.h. Jansson's references reproduce Go's map
 * sharing: where Helm shallow-copies a map (coalesceGlobals' copyMap) we do
 * too, where it deep-copies (copystructure) we json_deep_copy. */
#include "helm/values.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/gostrconv.h"
#include "lib/yaml.h"

static void warnf(values_warn_fn warn, void *ud, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void warnf(values_warn_fn warn, void *ud, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	if (!warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	warn(ud, msg);
}

/* Go's fmt %v (t == 0) or %t (t == 1) of a decoded JSON value, map keys
 * sorted as fmt does. %t prints bools; any other scalar becomes
 * "%!t(TYPE=%v)", a nil argument "%!t(<nil>)" but a nil element "<nil>". */
static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void go_scalar(bh_buf *b, int t, const char *type, const char *text, size_t len)
{
	if (t)
		bh_buf_printf(b, "%%!t(%s=", type);
	bh_buf_put(b, text, len);
	if (t)
		bh_buf_putc(b, ')');
}

static void go_fmt(bh_buf *b, const json_t *v, int t, int depth)
{
	char num[64];
	if (depth > 100) {
		bh_buf_puts(b, "...");
		return;
	}
	switch (json_typeof(v)) {
	case JSON_NULL: bh_buf_puts(b, t && !depth ? "%!t(<nil>)" : "<nil>"); break;
	case JSON_TRUE: bh_buf_puts(b, "true"); break;
	case JSON_FALSE: bh_buf_puts(b, "false"); break;
	case JSON_STRING: go_scalar(b, t, "string", json_string_value(v), json_string_length(v)); break;
	case JSON_INTEGER:
		snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
		go_scalar(b, t, "int64", num, strlen(num));
		break;
	case JSON_REAL:
		go_format_float(num, sizeof num, json_real_value(v), 'g', -1);
		go_scalar(b, t, "float64", num, strlen(num));
		break;
	case JSON_ARRAY: {
		size_t i;
		json_t *x;
		bh_buf_putc(b, '[');
		json_array_foreach(v, i, x) {
			if (i)
				bh_buf_putc(b, ' ');
			go_fmt(b, x, t, depth + 1);
		}
		bh_buf_putc(b, ']');
		break;
	}
	case JSON_OBJECT: {
		size_t n = json_object_size(v), i = 0;
		const char **keys = malloc((n + 1) * sizeof *keys);
		const char *k;
		json_t *x;
		if (!keys)
			break;
		json_object_foreach((json_t *)v, k, x)
			keys[i++] = k;
		qsort(keys, n, sizeof *keys, key_cmp);
		bh_buf_puts(b, "map[");
		for (i = 0; i < n; i++) {
			if (i)
				bh_buf_putc(b, ' ');
			go_scalar(b, t, "string", keys[i], strlen(keys[i]));
			bh_buf_putc(b, ':');
			go_fmt(b, json_object_get(v, keys[i]), t, depth + 1);
		}
		bh_buf_putc(b, ']');
		free(keys);
		break;
	}
	}
}

/* Go's fmt %t of a value (the argument itself, not an element). */
static char *show_t(const json_t *v)
{
	bh_buf b = BH_BUF_INIT;
	go_fmt(&b, v, 1, 0);
	if (!b.data)
		return strdup("");
	return bh_buf_detach(&b);
}

static char *show(const json_t *v)
{
	bh_buf b = BH_BUF_INIT;
	go_fmt(&b, v, 0, 0);
	if (!b.data)
		return strdup("");
	return bh_buf_detach(&b);
}

static char *concat_prefix(const char *a, const char *b)
{
	bh_buf out = BH_BUF_INIT;
	if (*a) { /* by puts, not printf: one per table merged */
		bh_buf_puts(&out, a);
		bh_buf_putc(&out, '.');
	}
	bh_buf_puts(&out, b);
	if (!out.data)
		return strdup("");
	return bh_buf_detach(&out);
}

int values_load_yaml(const char *text, size_t len, json_t **out, bh_error *err)
{
	/* lib/yaml splits documents and words errors exactly as Helm's LoadValues. */
	return yaml_parse_values(text, len, NULL, out, err);
}

json_t *values_merge_maps(const json_t *a, const json_t *b)
{
	json_t *out = json_copy((json_t *)a);
	const char *k;
	json_t *v;
	if (!out)
		return NULL;
	json_object_foreach((json_t *)b, k, v) {
		json_t *cur = json_object_get(out, k);
		if (json_is_object(v) && json_is_object(cur)) {
			json_t *m = values_merge_maps(cur, v);
			if (!m) {
				json_decref(out);
				return NULL;
			}
			json_object_set_new(out, k, m);
			continue;
		}
		json_object_set(out, k, v);
	}
	return out;
}

static int apply_set(const char *const *list, size_t n, json_t *base, enum strvals_mode mode,
		     const values_options *o, bh_error *err)
{
	for (size_t i = 0; i < n; i++) {
		int rc = strvals_parse_into(list[i], base, mode, o->file_reader, o->file_ctx, err);
		if (rc)
			return bh_error_prefix(err, "%s", strvals_flag_prefix(mode));
	}
	return 0;
}

int values_compose(const values_options *o, json_t **out, bh_error *err)
{
	json_t *base = json_object();
	int rc = 0;
	if (!base)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	for (size_t i = 0; i < o->nfiles; i++) {
		json_t *cur = NULL;
		rc = values_load_yaml(o->files[i].data, o->files[i].len, &cur, err);
		if (rc) {
			bh_error_prefix(err, "failed to parse %s", o->files[i].name);
			goto fail;
		}
		json_t *m = values_merge_maps(base, cur);
		json_decref(cur);
		json_decref(base);
		base = m;
		if (!base)
			return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < o->nset_json; i++) {
		const char *v = o->set_json[i];
		const char *t = v;
		while (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r' || *t == '\v' || *t == '\f')
			t++;
		if (*t == '{') {
			json_error_t je;
			json_t *m = json_loads(t, JSON_DECODE_INT_AS_REAL, &je);
			if (!m || !json_is_object(m)) {
				json_decref(m);
				rc = bh_error_set(err, BH_EINVAL, "failed parsing --set-json data JSON: %s", v);
				goto fail;
			}
			json_t *merged = values_merge_maps(base, m);
			json_decref(m);
			json_decref(base);
			base = merged;
			if (!base)
				return bh_error_set(err, BH_ENOMEM, "out of memory");
		} else if (strvals_parse_into(v, base, STRVALS_JSON, NULL, NULL, err)) {
			rc = bh_error_set(err, BH_EINVAL, "failed parsing --set-json data %s", v);
			goto fail;
		}
	}
	if ((rc = apply_set(o->set, o->nset, base, STRVALS_TYPED, o, err)) ||
	    (rc = apply_set(o->set_string, o->nset_string, base, STRVALS_STRING, o, err)) ||
	    (rc = apply_set(o->set_file, o->nset_file, base, STRVALS_FILE, o, err)) ||
	    (rc = apply_set(o->set_literal, o->nset_literal, base, STRVALS_LITERAL, o, err)))
		goto fail;
	*out = base;
	return 0;
fail:
	json_decref(base);
	return rc;
}

/* The dotted key of a table being merged, written out only for a warning:
 * the top holds the prefix text ("" for none), each level below one key. */
typedef struct keypath {
	const struct keypath *up;
	const char *key;
} keypath;

static void keypath_put(bh_buf *b, const keypath *p)
{
	if (!p->up) {
		bh_buf_puts(b, p->key);
		return;
	}
	keypath_put(b, p->up);
	if (b->len)
		bh_buf_putc(b, '.');
	bh_buf_puts(b, p->key);
}

static void warn_at(values_warn_fn warn, void *ud, const char *fmt, const keypath *p, const json_t *v)
{
	bh_buf full = BH_BUF_INIT;
	char *s = show(v);
	keypath_put(&full, p);
	warnf(warn, ud, fmt, bh_buf_str(&full), s);
	free(s);
	bh_buf_free(&full);
}

static json_t *tables_path(json_t *dst, json_t *src, const keypath *path, int merge,
			   values_warn_fn warn, void *ud)
{
	const char *k;
	json_t *v;
	if (!src)
		return dst;
	if (!dst)
		return src;
	/* src's keys that held a value before dst's nulls are copied over:
	 * asked for only where dst holds null, so noted only there */
	json_t *nonnil = NULL;
	json_object_foreach(dst, k, v)
		if (json_is_null(v)) {
			json_t *sv = json_object_get(src, k);
			if (sv && !json_is_null(sv) && (nonnil || (nonnil = json_object())))
				json_object_set_new(nonnil, k, json_true());
			json_object_set_new(src, k, json_null());
		}
	json_object_foreach(src, k, v) {
		json_t *dv = json_object_get(dst, k);
		keypath here = {path, k};
		if (dv && !merge && json_is_null(dv) && json_object_get(nonnil, k)) {
			json_object_del(dst, k);
		} else if (!dv) {
			json_object_set(dst, k, v);
		} else if (json_is_object(v)) {
			if (json_is_object(dv))
				tables_path(dv, v, &here, merge, warn, ud);
			else
				warn_at(warn, ud, "warning: cannot overwrite table with non table for %s (%s)", &here, v);
		} else if (json_is_object(dv) && !json_is_null(v)) {
			warn_at(warn, ud, "warning: destination for %s is a table. Ignoring non-table value (%s)", &here, v);
		}
	}
	json_decref(nonnil);
	return dst;
}

static json_t *tables_full_key(json_t *dst, json_t *src, const char *prefix, int merge,
			       values_warn_fn warn, void *ud)
{
	keypath top = {NULL, prefix};
	return tables_path(dst, src, &top, merge, warn, ud);
}

json_t *values_coalesce_tables(json_t *dst, json_t *src, int merge, values_warn_fn warn, void *ud)
{
	return tables_full_key(dst, src, "", merge, warn, ud);
}

static int is_dep_name(const chart *c, const char *key)
{
	for (size_t i = 0; i < c->ndeps; i++)
		if (!strcmp(chart_name(c->deps[i]), key))
			return 1;
	return 0;
}

/* How much of the charts' values trees a coalesce merges in place (and
 * changes) instead of copies: none, the top chart's only, or all; or, for
 * a result only read (TAKE_VIEW), none, with what the merge leaves
 * unchanged shared instead of copied. */
enum { TAKE_NONE, TAKE_ROOT, TAKE_ALL, TAKE_VIEW };

/* For TAKE_VIEW: whether the merge below would change chart c's table val
 * under key k (merged as a source) or later merges reach it through the
 * result (a sub-chart's table, the globals). Scalars and lists are never
 * changed. */
static int view_must_copy(const chart *c, const char *k, const json_t *val, const json_t *value)
{
	if (!json_is_object(val))
		return 0;
	if (value)
		return json_is_object(value);
	return !strcmp(k, "global") || is_dep_name(c, k);
}

/* take: the chart's values tree itself is merged (and changed), not a copy.
 * -1 when out of memory. */
static int coalesce_values(const chart *c, json_t *v, const char *prefix, int merge, int take,
			    values_warn_fn warn, void *ud)
{
	char *sub_prefix = concat_prefix(prefix, chart_name(c));
	json_t *vc = !c->values ? json_object() : take ? json_incref(c->values) : json_deep_copy(c->values);
	const char *k;
	json_t *val;
	int rc = sub_prefix && vc ? 0 : -1;
	json_object_foreach(vc, k, val) {
		json_t *value = json_object_get(v, k);
		json_t *own = NULL;
		if (rc)
			break;
		if (take == TAKE_VIEW && view_must_copy(c, k, val, value) &&
		    !(val = own = json_deep_copy(val))) {
			rc = -1;
			break;
		}
		if (value) {
			if (json_is_null(value) && !merge) {
				json_object_del(v, k);
			} else if (json_is_object(value)) {
				if (!json_is_object(val)) {
					if (!json_is_null(val))
						warnf(warn, ud, "warning: skipped value for %s.%s: Not a table.", sub_prefix, k);
				} else {
					int m2 = is_dep_name(c, k) ? 1 : merge;
					char *full = concat_prefix(sub_prefix, k);
					tables_full_key(value, val, full, m2, warn, ud);
					free(full);
				}
			}
		} else {
			/* a default the values do not set is taken as it is, its
			 * nulls too (helm 4.1.4; later Helm drops a sub-chart's) */
			json_object_set(v, k, val);
		}
		json_decref(own);
	}
	json_decref(vc);
	free(sub_prefix);
	return rc;
}

static void coalesce_globals(json_t *dest, json_t *src, const char *prefix, values_warn_fn warn, void *ud)
{
	json_t *dg = json_object_get(dest, "global");
	json_t *sg = json_object_get(src, "global");
	const char *k;
	json_t *val;
	if (!dg)
		dg = json_object();
	else if (!json_is_object(dg)) {
		warnf(warn, ud, "warning: skipping globals because destination global is not a table.");
		return;
	} else
		json_incref(dg);
	if (!sg)
		sg = json_object();
	else if (!json_is_object(sg)) {
		warnf(warn, ud, "warning: skipping globals because source global is not a table.");
		json_decref(dg);
		return;
	} else
		json_incref(sg);
	json_object_foreach(sg, k, val) {
		json_t *dv = json_object_get(dg, k);
		if (json_is_object(val)) {
			json_t *vv = json_copy(val); /* shallow, as Go's copyMap */
			if (!dv) {
				json_object_set_new(dg, k, vv);
			} else if (!json_is_object(dv)) {
				warnf(warn, ud, "Conflict: cannot merge map onto non-map for \"%s\". Skipping.", k);
				json_decref(vv);
			} else {
				char *sp = concat_prefix(prefix, k);
				tables_full_key(vv, dv, sp, 1, warn, ud);
				free(sp);
				json_object_set_new(dg, k, vv);
			}
		} else if (dv && json_is_object(dv)) {
			warnf(warn, ud, "key %s is table. Skipping", k);
		} else {
			json_object_set(dg, k, val);
		}
	}
	json_object_set_new(dest, "global", dg);
	json_decref(sg);
}

static int coalesce(const chart *c, json_t *dest, const char *prefix, int merge, int take,
		    values_warn_fn warn, void *ud, bh_error *err);

static int coalesce_deps(const chart *c, json_t *dest, const char *prefix, int merge, int take,
			 values_warn_fn warn, void *ud, bh_error *err)
{
	for (size_t i = 0; i < c->ndeps; i++) {
		const chart *sub = c->deps[i];
		const char *sn = chart_name(sub);
		json_t *cur = json_object_get(dest, sn);
		if (!cur) {
			json_object_set_new(dest, sn, json_object());
		} else if (!json_is_object(cur)) {
			char *s = show_t(cur);
			bh_error_set(err, BH_EINVAL, "type mismatch on %s: %s", sn, s);
			free(s);
			return BH_EINVAL;
		}
		json_t *dv = json_object_get(dest, sn);
		char *sub_prefix = concat_prefix(prefix, chart_name(c));
		json_incref(dv);
		coalesce_globals(dv, dest, sub_prefix, warn, ud);
		int rc = coalesce(sub, dv, sub_prefix, merge, take == TAKE_ALL || take == TAKE_VIEW ? take : TAKE_NONE,
				  warn, ud, err);
		json_decref(dv);
		free(sub_prefix);
		if (rc)
			return rc;
	}
	return 0;
}

static int coalesce(const chart *c, json_t *dest, const char *prefix, int merge, int take,
		    values_warn_fn warn, void *ud, bh_error *err)
{
	if (coalesce_values(c, dest, prefix, merge, take, warn, ud))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	return coalesce_deps(c, dest, prefix, merge, take, warn, ud, err);
}

static int coalesce_root(const chart *c, const json_t *vals, int merge, int take,
			 values_warn_fn warn, void *ud, json_t **out, bh_error *err)
{
	json_t *copy = vals ? json_deep_copy(vals) : json_object();
	if (!copy)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	int rc = coalesce(c, copy, "", merge, take, warn, ud, err);
	if (rc) {
		json_decref(copy);
		return rc;
	}
	*out = copy;
	return 0;
}

int values_coalesce(const chart *c, const json_t *vals, int merge,
		    values_warn_fn warn, void *ud, json_t **out, bh_error *err)
{
	return coalesce_root(c, vals, merge, TAKE_NONE, warn, ud, out, err);
}

int values_coalesce_view(const chart *c, const json_t *vals, int merge,
			 values_warn_fn warn, void *ud, json_t **out_view, bh_error *err)
{
	return coalesce_root(c, vals, merge, TAKE_VIEW, warn, ud, out_view, err);
}

/* Makes v a tree: each object or array below it that another reference
 * also reaches is replaced by a deep copy (as the copy values_coalesce
 * makes of the whole would have it), so merging v in place changes nothing
 * reached another way. -1 when out of memory. */
static int unshare(json_t *v);

/* What a container's child e becomes: NULL to keep e (made a tree below),
 * else the deep copy to put in its place; *fail set when out of memory. */
static json_t *unshared_child(json_t *e, int *fail)
{
	json_t *copy;
	if (!json_is_object(e) && !json_is_array(e))
		return NULL;
	if (e->refcount == 1) {
		*fail |= unshare(e);
		return NULL;
	}
	if (!(copy = json_deep_copy(e)))
		*fail = 1;
	return copy;
}

static int unshare(json_t *v)
{
	const char *k;
	json_t *e, *c;
	size_t i;
	int fail = 0;
	if (json_is_object(v))
		json_object_foreach(v, k, e)
			if ((c = unshared_child(e, &fail)) && json_object_set_new(v, k, c))
				fail = 1;
	if (json_is_array(v))
		json_array_foreach(v, i, e)
			if ((c = unshared_child(e, &fail)) && json_array_set_new(v, i, c))
				fail = 1;
	return fail ? -1 : 0;
}

/* c's values (and its sub-charts' when all) made trees */
static int charts_unshare(chart *c, int all)
{
	if (c->values && c->values->refcount > 1) {
		json_t *copy = json_deep_copy(c->values);
		if (!copy)
			return -1;
		json_decref(c->values);
		c->values = copy;
	} else if (c->values && unshare(c->values)) {
		return -1;
	}
	for (size_t i = 0; all && i < c->ndeps; i++)
		if (charts_unshare(c->deps[i], all))
			return -1;
	return 0;
}

static void charts_drop_values(chart *c, int all)
{
	json_decref(c->values);
	c->values = NULL;
	for (size_t i = 0; all && i < c->ndeps; i++)
		charts_drop_values(c->deps[i], all);
}

static int coalesce_taking(chart *c, const json_t *vals, int merge, int take,
			   values_warn_fn warn, void *ud, json_t **out, bh_error *err)
{
	int rc = charts_unshare(c, take == TAKE_ALL) ? bh_error_set(err, BH_ENOMEM, "out of memory")
						      : coalesce_root(c, vals, merge, take, warn, ud, out, err);
	charts_drop_values(c, take == TAKE_ALL);
	return rc;
}

int values_coalesce_take(chart *c, const json_t *vals, int merge,
			 values_warn_fn warn, void *ud, json_t **out, bh_error *err)
{
	return coalesce_taking(c, vals, merge, TAKE_ALL, warn, ud, out, err);
}

int values_coalesce_take_top(chart *c, const json_t *vals, int merge,
			     values_warn_fn warn, void *ud, json_t **out, bh_error *err)
{
	return coalesce_taking(c, vals, merge, TAKE_ROOT, warn, ud, out, err);
}

json_t *values_table_why(const json_t *v, const char *path, bh_buf *why)
{
	const json_t *t = v;
	const char *p = path;
	for (;;) {
		size_t l = strcspn(p, ".");
		if (json_is_object(t))
			t = json_object_getn(t, p, l);
		if (!json_is_object(t)) {
			if (why) {
				go_quote(why, p, l, '"', 0);
				bh_buf_puts(why, " is not a table");
			}
			return NULL;
		}
		if (!p[l])
			return (json_t *)t;
		p += l + 1;
	}
}

json_t *values_table(const json_t *v, const char *path)
{
	return values_table_why(v, path, NULL);
}
