/* helm/kustomize_smp.c — strategic merge patches as kustomize applies them:
 * kyaml's merge2 walker (dest = the object, origin = the patch) with the
 * prepend list option of kustomize's patchstrategicmerge filter. Lists are
 * merged by key only where the built-in kind's OpenAPI data says
 * "merge" (helm/kustomize_schema.h); every other list is replaced. Maps are
 * merged; null in the patch deletes; `$patch: delete|replace|merge` on maps
 * and lists. Works on copies: the inputs are never changed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helm/kustomize.h"
#include "helm/kustomize_internal.h"
#include "helm/kustomize_schema.h"
#include "lib/yaml.h"

#define MAX_KEYS 4

typedef struct sch {
	const kz_type *t;  /* object type of the value, or NULL */
	const kz_field *f; /* the field that holds the value (lists, maps of), or NULL */
	int field;         /* the value is a map's field (kyaml sets it with its FieldSetter) */
} sch;

enum dir { D_MERGE, D_REPLACE, D_DELETE };

static const sch NOSCH = {NULL, NULL, 0};

static const json_t *unbox(const json_t *v);

void kz_scalar_text(const json_t *v, char *buf, size_t n)
{
	v = unbox(v);
	switch (json_typeof(v)) {
	case JSON_STRING:
		snprintf(buf, n, "%s", json_string_value(v));
		break;
	case JSON_INTEGER:
		snprintf(buf, n, "%lld", (long long)json_integer_value(v));
		break;
	case JSON_REAL:
		snprintf(buf, n, "%.17g", json_real_value(v));
		break;
	case JSON_TRUE:
		snprintf(buf, n, "true");
		break;
	case JSON_FALSE:
		snprintf(buf, n, "false");
		break;
	default:
		snprintf(buf, n, "%s", "");
	}
}

/* ---- scalar styles -------------------------------------------------------------------- */

/* While a merge runs, a scalar whose YAML node kyaml would hold quoted
 * (single, double, literal or folded style, no tag), or whose patch text
 * is not what its JSON value prints, is boxed: {KZ_BOX: [value, quoted,
 * text or null, typed]} (typed: a patch's tag that its text does not
 * resolve to, as !!float 1; or a tagged string). */

static int is_box(const json_t *v)
{
	return json_is_object(v) && json_object_size(v) == 1 && json_object_get(v, KZ_BOX);
}

static const json_t *unbox(const json_t *v)
{
	return is_box(v) ? json_array_get(json_object_get(v, KZ_BOX), 0) : v;
}

static int box_quoted(const json_t *v)
{
	return is_box(v) && json_is_true(json_array_get(json_object_get(v, KZ_BOX), 1));
}

static const char *box_text(const json_t *v)
{
	return is_box(v) ? json_string_value(json_array_get(json_object_get(v, KZ_BOX), 2)) : NULL;
}

/* The text kyaml holds for a scalar (its YAML text where recorded). */
static void stext(const json_t *v, char *buf, size_t n)
{
	const char *t = box_text(v);
	if (t)
		snprintf(buf, n, "%s", t);
	else
		kz_scalar_text(v, buf, n);
}

static int box_typed(const json_t *v)
{
	return is_box(v) && json_is_true(json_array_get(json_object_get(v, KZ_BOX), 3));
}

static json_t *box_new(json_t *value, int quoted, const char *text)
{
	json_t *b = json_object();
	json_object_set_new(b, KZ_BOX, json_pack("[o,b,s?]", value, quoted, text));
	return b;
}

static int is_map(const json_t *v)
{
	return json_is_object(v) && !is_box(v);
}

/* An object's null written as nothing (its box's text ""). */
static int is_empty_null(const json_t *v)
{
	return is_box(v) && json_is_null(unbox(v)) && box_text(v) && !*box_text(v);
}

static int is_null(const json_t *v)
{
	return !v || json_is_null(v) || is_empty_null(v);
}

static int is_scalar(const json_t *v)
{
	return v && (is_box(v) || (!json_is_object(v) && !json_is_array(v) && !json_is_null(v)));
}

size_t kz_path_push(char *path, size_t len, const char *key)
{
	size_t n = len;
	if (n + 1 >= KZ_PATH_MAX)
		return 0;
	path[n++] = '/';
	for (const char *k = key; *k; k++) {
		if (n + 3 >= KZ_PATH_MAX)
			return 0;
		if (*k == '~' || *k == '/') {
			path[n++] = '~';
			path[n++] = *k == '~' ? '0' : '1';
		} else {
			path[n++] = *k;
		}
	}
	path[n] = '\0';
	return n;
}

/* A copy of v with the scalars of the style record rec ({pointer: [quoted,
 * text]}) boxed. */
static json_t *boxed(const json_t *v, const json_t *rec, char *path, size_t len, int depth)
{
	json_t *out, *x;
	const json_t *ent;
	if (json_is_object(v) || json_is_array(v)) {
		const char *k;
		size_t i;
		char idx[32];
		out = json_is_object(v) ? json_object() : json_array();
		if (!out)
			return NULL;
		json_object_foreach((json_t *)v, k, x) {
			size_t l = depth < KZ_MAX_DEPTH ? kz_path_push(path, len, k) : 0;
			json_object_set_new(out, k, l ? boxed(x, rec, path, l, depth + 1) : json_deep_copy(x));
			path[len] = '\0';
		}
		json_array_foreach((json_t *)v, i, x) {
			size_t l;
			snprintf(idx, sizeof idx, "%zu", i);
			l = depth < KZ_MAX_DEPTH ? kz_path_push(path, len, idx) : 0;
			json_array_append_new(out, l ? boxed(x, rec, path, l, depth + 1) : json_deep_copy(x));
			path[len] = '\0';
		}
		return out;
	}
	if (!(ent = json_object_get(rec, path)) || (json_is_null(v) && !json_is_string(json_array_get(ent, 1))))
		return json_deep_copy(v);
	{
		json_t *b = box_new(json_deep_copy(v), json_is_true(json_array_get(ent, 0)),
				    json_string_value(json_array_get(ent, 1)));
		json_array_append(json_object_get(b, KZ_BOX), json_array_get(ent, 2) ? json_array_get(ent, 2) : json_false());
		return b;
	}
}

static void unboxed(json_t *v, json_t *rec, char *path, size_t len);

/* What replaces the child x of a value at path (l its length, 0 when too
 * long): its box's value (recorded in rec unless plain with no text), or NULL when x is
 * no box (its own children then unboxed). */
static json_t *unboxed_child(json_t *x, json_t *rec, char *path, size_t l)
{
	if (!is_box(x)) {
		if (l)
			unboxed(x, rec, path, l);
		return NULL;
	}
	if (l && (box_quoted(x) || box_typed(x) || box_text(x)))
		json_object_set_new(rec, path, json_pack("[b,s?,b]", box_quoted(x), box_text(x), box_typed(x)));
	return (json_t *)unbox(x);
}

/* Takes the boxes out of v (changed in place): each quoted, typed or texted
 * one is recorded in rec as [quoted, text, typed]. v itself is no box. */
static void unboxed(json_t *v, json_t *rec, char *path, size_t len)
{
	json_t *x, *r;
	const char *k;
	size_t i;
	void *tmp;
	char idx[32];
	json_object_foreach_safe(v, tmp, k, x) {
		if ((r = unboxed_child(x, rec, path, kz_path_push(path, len, k))))
			json_object_set(v, k, r);
		path[len] = '\0';
	}
	json_array_foreach(v, i, x) {
		snprintf(idx, sizeof idx, "%zu", i);
		if ((r = unboxed_child(x, rec, path, kz_path_push(path, len, idx))))
			json_array_set(v, i, r);
		path[len] = '\0';
	}
}

/* ---- schema -------------------------------------------------------------------------- */

static sch sch_root_of(const json_t *o)
{
	sch s = NOSCH;
	const char *av = json_string_value(unbox(json_object_get(o, "apiVersion")));
	const char *k = json_string_value(unbox(json_object_get(o, "kind")));
	if (json_is_object(o) && av && k)
		s.t = kz_schema_root(av, k);
	return s;
}

static sch sch_field(sch s, const char *key)
{
	sch r = NOSCH;
	if (s.f && s.f->mapof && !s.f->list) {
		r.t = kz_schema_type(s.f->type);
		return r;
	}
	if (!s.t)
		return r;
	for (size_t i = 0; i < s.t->n; i++)
		if (!strcmp(s.t->fields[i].name, key)) {
			const kz_field *f = &s.t->fields[i];
			r.f = f;
			if (!f->list && !f->mapof)
				r.t = kz_schema_type(f->type);
			return r;
		}
	if (s.t->mapof >= 0)
		r.t = kz_schema_type(s.t->mapof);
	return r;
}

static sch sch_elem(sch s)
{
	sch r = NOSCH;
	if (s.f && s.f->list)
		r.t = kz_schema_type(s.f->type);
	return r;
}

/* ---- directives ---------------------------------------------------------------------- */

static int dir_of(const char *v, enum dir *d, bh_error *err)
{
	if (!strcmp(v, "delete"))
		*d = D_DELETE;
	else if (!strcmp(v, "replace"))
		*d = D_REPLACE;
	else if (!strcmp(v, "merge"))
		*d = D_MERGE;
	else
		return bh_error_set(err, BH_EINVAL, "unknown patch strategy '%s'", v);
	return 0;
}

/* A map's `$patch`: removed from o (a copy we own). */
static int map_directive(json_t *o, enum dir *d, bh_error *err)
{
	json_t *v = json_object_get(o, "$patch");
	char t[256];
	*d = D_MERGE;
	if (!v)
		return 0;
	if (!is_scalar(v))
		return bh_error_set(err, BH_EINVAL, "unknown patch strategy '%s'", "");
	kz_scalar_text(v, t, sizeof t);
	if (dir_of(t, d, err) < 0)
		return BH_EINVAL;
	json_object_del(o, "$patch");
	return 0;
}

/* A list's directive: an element that is a one-key map {$patch: X}. Every
 * element {$patch: X} is dropped from a (a copy we own), as are null and
 * empty-map elements (kyaml's ElementSetter). */
static int list_directive(json_t *a, enum dir *d, bh_error *err)
{
	json_t *first = NULL, *e;
	size_t i;
	char t[256];
	*d = D_MERGE;
	json_array_foreach(a, i, e) if (is_map(e) && json_object_get(e, "$patch")) {
		first = e;
		break;
	}
	if (!first || json_object_size(first) > 1)
		return 0;
	if (!is_scalar(json_object_get(first, "$patch")))
		return 0;
	kz_scalar_text(json_object_get(first, "$patch"), t, sizeof t);
	if (dir_of(t, d, err) < 0)
		return BH_EINVAL;
	for (i = 0; i < json_array_size(a);) {
		json_t *x = json_array_get(a, i);
		char u[256];
		int drop = is_null(x) || (is_map(x) && json_object_size(x) == 0);
		if (!drop && is_map(x) && is_scalar(json_object_get(x, "$patch"))) {
			kz_scalar_text(json_object_get(x, "$patch"), u, sizeof u);
			drop = !strcmp(u, t);
		}
		if (drop)
			json_array_remove(a, i);
		else
			i++;
	}
	return 0;
}

/* ---- the walk ------------------------------------------------------------------------ */

static int walk(json_t *dest, json_t *origin, sch s, int depth, json_t **out, bh_error *err);

static int walk_map(json_t *dest, json_t *origin, sch s, int depth, json_t **out, bh_error *err)
{
	json_t *base, *src = NULL, *keys;
	const char *k;
	json_t *v;
	enum dir d = D_MERGE;
	int rc = 0;
	*out = NULL;
	if (origin && is_map(origin)) {
		src = json_deep_copy(origin);
		if (!src)
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		/* over nothing, kyaml's VisitMap ignores a bad directive: the
		 * patch's map is added with its "$patch" */
		if ((rc = map_directive(src, &d, is_null(dest) ? NULL : err)) < 0 && !is_null(dest)) {
			json_decref(src);
			return rc;
		}
		rc = 0;
	} else if (!is_null(origin) && !is_null(dest)) { /* ErrorIfAnyInvalidAndNonNull */
		return kz_kind_error(err, "MappingNode", origin);
	}
	if (is_null(dest)) {
		if (!origin) { /* an explicit null kept */
			*out = json_null();
			return 0;
		}
		if (!src || d == D_DELETE) {
			json_decref(src);
			return 0;
		}
		base = json_incref(src);
	} else {
		if (origin && json_is_null(origin))
			return 0;
		if (d == D_DELETE) {
			json_decref(src);
			return 0;
		}
		/* a map walked against itself (a replaced list's element) keeps its nodes */
		base = d == D_REPLACE || (src && dest == origin) ? json_incref(src) : json_incref(dest);
	}
	if (!is_map(base) || (src && !is_map(src))) {
		rc = kz_kind_error(err, "MappingNode", !is_map(base) ? base : src);
		json_decref(base);
		json_decref(src);
		return rc;
	}
	keys = json_object();
	json_object_foreach(base, k, v) json_object_set(keys, k, json_true());
	if (src)
		json_object_foreach(src, k, v) json_object_set(keys, k, json_true());
	*out = json_object();
	json_object_foreach(keys, k, v) {
		json_t *r = NULL, *dv = json_object_get(base, k), *ov = src ? json_object_get(src, k) : NULL;
		sch fs = sch_field(s, k);
		fs.field = 1;
		/* kyaml's VisitMap: a null written as nothing, with nothing from
		 * the patch, is dropped */
		if (is_empty_null(dv) && !ov)
			continue;
		if ((rc = walk(is_empty_null(dv) ? NULL : dv, ov, fs, depth + 1, &r, err)) < 0)
			break;
		if (r)
			json_object_set_new(*out, k, r);
	}
	json_decref(keys);
	json_decref(base);
	json_decref(src);
	if (rc < 0) {
		json_decref(*out);
		*out = NULL;
	}
	return rc;
}

/* The key values of an element ("" for a missing or empty field). */
typedef struct kv {
	char v[MAX_KEYS][128];
	int present; /* the element is a map (or a scalar for primitive lists) */
} kv;

static void elem_values(const json_t *e, char keys[][64], int nk, kv *out)
{
	memset(out, 0, sizeof *out);
	if (nk == 0) {
		out->present = is_scalar(e);
		if (out->present)
			stext(e, out->v[0], sizeof out->v[0]);
		return;
	}
	out->present = is_map(e);
	for (int i = 0; i < nk && out->present; i++) {
		json_t *f = json_object_get(e, keys[i]);
		if (f && is_scalar(f))
			stext(f, out->v[i], sizeof out->v[i]);
	}
}

/* kyaml's FieldMatcher over the keys in use: MatchField's (ElementList:
 * the field's text is the value, "" too), or with setter, ElementSetter's
 * (a value "" matches any element that has the field). */
static int elem_matches(const json_t *e, char keys[][64], int nk, const kv *vals, const int *use, int setter)
{
	char t[128];
	if (nk == 0) {
		if (!is_scalar(e))
			return 0;
		stext(e, t, sizeof t);
		return !strcmp(t, vals->v[0]);
	}
	if (!is_map(e))
		return 0;
	for (int i = 0; i < nk; i++) {
		json_t *f;
		if (!use[i])
			continue;
		f = json_object_get(e, keys[i]);
		if (f && setter && !vals->v[i][0])
			continue;
		if (!f || is_map(f) || json_is_array(f))
			return 0;
		stext(f, t, sizeof t);
		if (json_is_null(f))
			t[0] = '\0';
		if (strcmp(t, vals->v[i]))
			return 0;
	}
	return 1;
}

static json_t *find_elem(json_t *a, char keys[][64], int nk, const kv *vals, const int *use)
{
	size_t i;
	json_t *e;
	if (!a || !json_is_array(a))
		return NULL;
	json_array_foreach(a, i, e) if (elem_matches(e, keys, nk, vals, use, 0)) return e;
	return NULL;
}

/* kyaml ElementSetter: drops null/empty elements, replaces the first match
 * (every match when el is NULL: removed), appends when none. */
static void elem_set(json_t *a, json_t *el, char keys[][64], int nk, const kv *vals, const int *use)
{
	json_t *n = json_array();
	size_t i;
	json_t *e;
	int found = 0;
	json_array_foreach(a, i, e) {
		if (is_null(e) || (is_map(e) && !json_object_size(e)))
			continue;
		if (nk > 0 && !is_map(e)) {
			json_array_append(n, e);
			continue;
		}
		if (!elem_matches(e, keys, nk, vals, use, 1)) {
			json_array_append(n, e);
			continue;
		}
		found = 1;
		if (el)
			json_array_append(n, el);
	}
	if (!found && el)
		json_array_append(n, el);
	json_array_clear(a);
	json_array_extend(a, n);
	json_decref(n);
}

/* A key value put back into an element: plain YAML text, so digits are a number. */
static json_t *scalar_new(const char *t)
{
	char *end;
	long long v;
	if (*t && strspn(t + (*t == '-'), "0123456789") == strlen(t + (*t == '-')) && t[*t == '-']) {
		v = strtoll(t, &end, 10);
		if (!*end)
			return json_integer(v);
	}
	return json_string(t);
}

static int kv_eq(const kv *a, const kv *b, int nk)
{
	for (int i = 0; i < (nk ? nk : 1); i++)
		if (strcmp(a->v[i], b->v[i]))
			return 0;
	return 1;
}

/* the index + 1 of the first element of the patch list a (its list
 * directive taken out) that is only a "$patch", or 0 */
static size_t lone_directive(const json_t *a)
{
	size_t i;
	json_t *e;
	json_array_foreach(a, i, e) if (is_map(e) && json_object_size(e) == 1) {
		const char *d = json_string_value(unbox(json_object_get(e, "$patch")));
		if (d && (!strcmp(d, "replace") || !strcmp(d, "merge") || !strcmp(d, "delete")))
			return i + 1;
	}
	return 0;
}

static size_t index_of(const json_t *a, const json_t *e)
{
	size_t i;
	json_t *x;
	json_array_foreach(a, i, x) if (x == e) return i;
	return (size_t)-1;
}

/* e (a map) has one of the keys. */
static int any_key(const json_t *e, char keys[][64], int nk)
{
	for (int k = 0; k < nk; k++)
		if (json_object_get(e, keys[k]))
			return 1;
	return 0;
}

static int is_replace_directive(const json_t *el)
{
	const char *d = json_string_value(unbox(json_object_get(el, "$patch")));
	return d && !strcmp(d, "replace");
}

/* ---- several merge keys (ports: containerPort and protocol) ----------------------------
 * kyaml's walkAssociativeSequence as it runs for a list with more than one
 * merge key, step by step (walk/associative_sequence.go): the key values of
 * the patch's elements then the object's (mergeValues joins two that agree
 * where both have a value), an element merged for each, then
 * appendListNode, which puts the object's elements back, each after
 * removing from the result every element whose keys match its own. */

/* A field's text as yaml.v3 holds it: a scalar's, "" for a map or list. */
static void field_text(const json_t *f, char *buf, size_t n)
{
	buf[0] = '\0';
	if (is_scalar(f))
		stext(f, buf, n);
}

/* kyaml's ElementSetter over a (keys[0..nk), values vals[0..nv), nv <= nk):
 * null and empty-map elements dropped; an element that matches (a value
 * "" matches any element that has the field; past the values, the last
 * field's outcome stands, as in kyaml's loop) is replaced by el (removed
 * when el is NULL); a non-matching one is kept when there are values; el
 * appended when nothing matched. */
static int setter_apply(json_t *a, json_t *el, char keys[][64], int nk, char vals[][128], int nv, bh_error *err)
{
	json_t *n = json_array(), *e;
	size_t i;
	int found = 0;
	int mapping_setter = nk > 0 && keys[0][0] && nv > 0 && vals[0][0];
	if (!n)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	json_array_foreach(a, i, e) {
		const json_t *val = NULL;
		int match = 1;
		if (is_null(e) || (is_map(e) && !json_object_size(e)))
			continue;
		if (!is_map(e) && mapping_setter) {
			json_array_append(n, e);
			continue;
		}
		for (int j = 0; j < nk; j++) {
			if (j < nv) {
				const json_t *f;
				char t[128];
				if (!is_map(e)) {
					json_decref(n);
					return kz_kind_error(err, "MappingNode", e);
				}
				f = json_object_get(e, keys[j]);
				field_text(f, t, sizeof t);
				val = f && (!vals[j][0] || !strcmp(t, vals[j])) ? f : NULL;
			}
			if (!val) {
				match = 0;
				break;
			}
		}
		if (!match) {
			if (nv > 0)
				json_array_append(n, e);
			continue;
		}
		found = 1;
		if (el)
			json_array_append(n, el);
	}
	if (el && !is_null(el) && !found)
		json_array_append(n, el);
	json_array_clear(a);
	json_array_extend(a, n);
	json_decref(n);
	return 0;
}

/* kyaml's ElementList (MatchElementList): the first map element whose
 * fields keys[k] (use[k]) hold the texts vals[k] ("" too). */
static json_t *element_list(json_t *a, char keys[][64], int nk, const kv *vals, const int *use)
{
	size_t i;
	json_t *e;
	if (!a || !json_is_array(a))
		return NULL;
	json_array_foreach(a, i, e) {
		int ok = is_map(e);
		for (int k = 0; k < nk && ok; k++) {
			const json_t *f;
			char t[128];
			if (!use[k])
				continue;
			f = json_object_get(e, keys[k]);
			field_text(f, t, sizeof t);
			ok = f && !strcmp(t, vals->v[k]);
		}
		if (ok)
			return e;
	}
	return NULL;
}

/* validateKeys: the keys that have a value in some entry of vl (all of
 * them when none has), as valid[k]. */
static void valid_keys(const kv *vl, size_t nv, int nk, int *valid)
{
	int any = 0;
	for (int k = 0; k < nk; k++) {
		valid[k] = 0;
		for (size_t i = 0; i < nv && !valid[k]; i++)
			valid[k] = vl[i].v[k][0] != 0;
		any |= valid[k];
	}
	if (!any)
		for (int k = 0; k < nk; k++)
			valid[k] = 1;
}

/* The keys and values of the valid ones, in order. */
static int pick_keys(char keys[][64], int nk, const int *valid, const kv *x, char ok[][64], char ov[][128])
{
	int n = 0;
	for (int k = 0; k < nk; k++)
		if (valid[k]) {
			memcpy(ok[n], keys[k], sizeof ok[0]);
			if (ov)
				memcpy(ov[n], x->v[k], sizeof ov[0]);
			n++;
		}
	return n;
}

/* d: the object's list (a copy, changed), o: the patch's (or NULL), or d
 * itself when kyaml's two are one node (each element then walked against
 * itself, its "$patch" taken out of it as kyaml elides it). *out: the
 * merged list. */
static int assoc_multi(json_t *d, json_t *o, char keys[][64], int nk, sch s, int depth, json_t **out, bh_error *err)
{
	size_t nv = 0, cap = json_array_size(d) + (o ? json_array_size(o) : 0) + 1;
	kv *vl = calloc(cap, sizeof *vl);
	json_t *items = json_array();
	int valid[MAX_KEYS], rc = 0, nvk;
	char vkeys[MAX_KEYS][64], vvals[MAX_KEYS][128];
	*out = NULL;
	if (!vl || !items) {
		free(vl);
		json_decref(items);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	/* elementValues: the patch's first, then the object's, each once */
	for (int src = 0; src < 2; src++) {
		json_t *a = src == 0 ? o : d, *e;
		size_t i;
		json_array_foreach(a, i, e) {
			kv x;
			int seen = 0;
			elem_values(e, keys, nk, &x);
			x.present = 1;
			for (size_t j = 0; j < nv && !seen; j++)
				seen = kv_eq(&vl[j], &x, nk);
			if (!seen)
				vl[nv++] = x;
		}
	}
	/* mergeValues: values1 is the entry as the outer loop found it */
	for (size_t i = 0; i < nv; i++) {
		kv v1 = vl[i];
		for (size_t j = 0; j < nv; j++) {
			kv m = v1;
			int common = 0, ok = 1;
			for (int k = 0; k < nk && ok; k++) {
				if (!strcmp(v1.v[k], vl[j].v[k]))
					common = 1;
				else if (v1.v[k][0] && vl[j].v[k][0])
					ok = 0;
				else if (!v1.v[k][0])
					strcpy(m.v[k], vl[j].v[k]);
			}
			if (ok && common) {
				vl[i] = m;
				vl[j] = m;
			}
		}
	}
	valid_keys(vl, nv, nk, valid);
	nvk = pick_keys(keys, nk, valid, NULL, vkeys, NULL);
	for (size_t i = 0; i < nv && rc == 0; i++) {
		int use[MAX_KEYS], anyv = 0, in_place;
		json_t *de, *oe, *val = NULL;
		pick_keys(keys, nk, valid, &vl[i], vkeys, vvals);
		/* elementValueList: matched on the valid keys this entry has values for */
		for (int k = 0; k < nk; k++)
			anyv |= valid[k] && vl[i].v[k][0];
		for (int k = 0; k < nk; k++)
			use[k] = valid[k] && (!anyv || vl[i].v[k][0]);
		de = element_list(d, keys, nk, &vl[i], use);
		oe = element_list(o, keys, nk, &vl[i], use);
		if ((rc = walk(de, oe, sch_elem(s), depth + 1, &val, err)) < 0)
			break;
		/* kyaml elides a walked element's "$patch" from the patch's node:
		 * the same key values met again find it without */
		if (is_map(oe) && json_object_get(oe, "$patch"))
			json_object_del(oe, "$patch");
		/* kyaml merges into the object's element in place, unless the
		 * patch's replaces it (a new node; the object keeps its own) */
		in_place = de && is_map(de) && val && !(oe && is_replace_directive(oe));
		if (is_null(val) || (is_map(val) && !json_object_size(val))) {
			json_decref(val);
			rc = setter_apply(d, NULL, vkeys, nvk, vvals, nvk, err);
			continue;
		}
		for (int k = 0, n = 0; k < nk; k++) {
			if (!valid[k])
				continue;
			if (is_map(val) && !json_object_get(val, keys[k]) && vvals[n][0])
				json_object_set_new(val, keys[k], scalar_new(vvals[n]));
			n++;
		}
		if (in_place) {
			size_t j;
			json_t *e;
			json_array_foreach(d, j, e) if (e == de) {
				json_array_set(d, j, val);
				break;
			}
		}
		rc = setter_apply(items, val, vkeys, nvk, vvals, nvk, err);
		json_decref(val);
	}
	/* appendListNode (the patch's list prepended): the object's elements
	 * after, each first removing what matches its key values */
	if (rc == 0 && nv > 0) {
		size_t j;
		json_t *e;
		json_array_foreach(d, j, e) {
			char v[MAX_KEYS][128];
			int n = 0;
			for (int k = 0; k < nvk && rc == 0; k++) {
				const json_t *f;
				if (!is_null(e) && !is_map(e)) {
					rc = kz_kind_error(err, "MappingNode", e);
					break;
				}
				f = is_map(e) ? json_object_get(e, vkeys[k]) : NULL;
				if (!f) {
					json_array_append(items, e);
					continue;
				}
				field_text(f, v[n], sizeof v[0]);
				n++;
			}
			if (rc == 0 && nvk > 1)
				rc = setter_apply(items, NULL, vkeys, nvk, v, n, err);
			if (rc == 0)
				rc = setter_apply(items, e, vkeys, nvk, v, n, err);
			if (rc < 0)
				break;
		}
		if (rc == 0) {
			*out = items;
			items = NULL;
		}
	} else if (rc == 0) {
		*out = json_incref(d);
	}
	json_decref(items);
	free(vl);
	return rc;
}

static int walk_assoc(json_t *dest, json_t *origin, sch s, int depth, json_t **out, bh_error *err)
{
	json_t *d = NULL, *o = NULL, *items = NULL;
	enum dir dir = D_MERGE;
	char keys[MAX_KEYS][64];
	int nk = 0, rc = 0;
	kv *vl = NULL;
	size_t nv = 0, cap;
	int valid[MAX_KEYS] = {0}, self;
	size_t clear = 0; /* a lone "$patch" element (index + 1) drops the object's elements (below) */
	*out = NULL;
	if (origin && json_is_null(origin) && !is_null(dest))
		return 0;
	if (origin && !json_is_null(origin)) {
		if (!json_is_array(origin))
			return kz_kind_error(err, "SequenceNode", origin);
		o = json_deep_copy(origin);
	}
	if (is_null(dest)) {
		if (!o)
			return 0;
		d = json_deep_copy(o);
		if (s.f && s.f->keys[0] && !strchr(s.f->keys, ',')) {
			/* a list the object lacks (or null): kyaml adds the patch's,
			 * and each of its maps without the merge key (a lone "$patch"
			 * too) drops the elements before it and after it: the last one
			 * is left alone */
			json_t *last = NULL, *e;
			size_t i;
			json_array_foreach(o, i, e) if (is_map(e) && json_object_size(e) && !json_object_get(e, s.f->keys))
				last = e;
			if (last) {
				json_decref(d);
				d = json_pack("[O]", last);
				*out = d;
				d = NULL;
				goto done;
			}
			/* an empty map: the patch's elements from it on are gone,
			 * those before it are merged as usual */
			json_array_foreach(o, i, e) if (is_map(e) && !json_object_size(e)) break;
			while (json_array_size(o) > i) {
				json_array_remove(o, i);
				json_array_remove(d, i);
			}
		}
	} else {
		if (o && (rc = list_directive(o, &dir, err)) < 0)
			goto done;
		if (dir == D_DELETE)
			goto done;
		d = dir == D_REPLACE ? json_deep_copy(o) : json_deep_copy(dest);
	}
	if (!d || !json_is_array(d)) {
		rc = d ? kz_kind_error(err, "SequenceNode", d) : bh_error_set(err, BH_ENOMEM, "out of memory");
		goto done;
	}
	if (s.f && s.f->keys[0]) {
		const char *p = s.f->keys;
		while (*p && nk < MAX_KEYS) {
			size_t l = strcspn(p, ",");
			snprintf(keys[nk++], sizeof keys[0], "%.*s", (int)(l < 63 ? l : 63), p);
			p += l + (p[l] == ',');
		}
	}
	if (nk > 1) {
		/* a list the object lacks, or one the patch replaces, is the
		 * patch's own node in kyaml: one list, walked against itself */
		rc = assoc_multi(d, is_null(dest) || dir == D_REPLACE ? d : o, keys, nk, s, depth, out, err);
		goto done;
	}
	/* the key values: the patch's elements first, then the object's */
	cap = json_array_size(d) + (o ? json_array_size(o) : 0) + 1;
	vl = calloc(cap, sizeof *vl);
	if (!vl) {
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		goto done;
	}
	for (int src = 0; src < 2; src++) {
		json_t *a = src == 0 ? (o ? o : NULL) : d;
		size_t i;
		json_t *e;
		if (!a)
			continue;
		json_array_foreach(a, i, e) {
			kv x;
			int seen = 0;
			elem_values(e, keys, nk, &x);
			if (nk == 0 && !x.present)
				continue;
			for (size_t j = 0; j < nv && !seen; j++)
				seen = kv_eq(&vl[j], &x, nk);
			if (!seen)
				vl[nv++] = x;
		}
	}
	valid_keys(vl, nv, nk, valid);
	/* a list the object lacks, or one the patch replaces, is the patch's
	 * own node in kyaml, walked against itself: an element's "$patch" is
	 * gone from both (determineSmpDirective edits the one node) */
	self = is_null(dest) || dir == D_REPLACE || dest == origin;
	items = json_array();
	clear = dir == D_MERGE && nk == 1 && o ? lone_directive(o) : 0;
	for (size_t i = 0; i < nv; i++) {
		int use[MAX_KEYS];
		json_t *de, *oe, *val = NULL;
		int anyv = 0;
		/* elementValueList: match on the keys this element has values for */
		for (int k = 0; k < nk; k++)
			anyv |= vl[i].v[k][0] != 0;
		for (int k = 0; k < nk; k++)
			use[k] = anyv ? vl[i].v[k][0] != 0 : 1;
		de = find_elem(d, keys, nk, &vl[i], use);
		oe = find_elem(o, keys, nk, &vl[i], use);
		if (clear && !oe) /* cleared (below), and not in the patch */
			continue;
		if (clear && de && index_of(o, oe) >= clear)
			de = NULL; /* named after the clearing: the patch's element alone */
		/* a replaced list is the patch's: kyaml walks its elements against
		 * themselves (the same nodes) */
		if ((rc = walk(self && de && oe ? oe : de, oe, sch_elem(s), depth + 1, &val, err)) < 0)
			goto done;
		if (is_null(val) || (is_map(val) && !json_object_size(val))) {
			elem_set(d, NULL, keys, nk, &vl[i], valid);
			json_decref(val);
			continue;
		}
		for (int k = 0; k < nk; k++)
			if (valid[k] && is_map(val) && !json_object_get(val, keys[k]) && vl[i].v[k][0])
				json_object_set_new(val, keys[k], scalar_new(vl[i].v[k]));
		/* the merged element replaces the object's own (kyaml merges in
		 * place); an element the patch replaces ($patch: replace) is a new
		 * node that kyaml then swaps back for the object's unchanged one */
		if (de && nk == 0) { /* a scalar matched by its text: kyaml's ElementSetter puts the object's back */
			json_decref(val);
			val = json_incref(de);
		} else if (de && !self && is_replace_directive(oe)) {
			json_decref(val);
			val = json_incref(de);
		} else if (de) {
			size_t j;
			json_t *e;
			json_array_foreach(d, j, e) if (e == de) {
				json_array_set(d, j, val);
				break;
			}
		}
		elem_set(items, val, keys, nk, &vl[i], valid);
		json_decref(val);
	}
	if (nv > 0) { /* prepend: the patch's items, then the object's in their order */
		size_t j;
		json_t *e;
		json_array_foreach(d, j, e) {
			kv x;
			elem_values(e, keys, nk, &x);
			if (nk > 0 && !is_null(e) && !is_map(e)) { /* appendListNode's Get(key) on it */
				rc = kz_kind_error(err, "MappingNode", e);
				goto done;
			}
			if (nk > 0 && !x.present) {
				json_array_append(items, e);
				continue;
			}
			if (nk > 0 && !any_key(e, keys, nk)) {
				/* appendListNode: an element without any key is appended,
				 * then ElementSetter with no values keeps nothing but it */
				json_array_clear(items);
				json_array_append(items, e);
				continue;
			}
			if (nk == 0 && is_null(e))
				continue; /* ElementSetter with a null element: nothing added */
			/* a lone "$patch: X" element that is not the list's own
			 * directive has no key value, and kyaml's ElementSetter for an
			 * empty value drops every element that has the key: what the
			 * patch did not merge or add is gone */
			if (clear && index_of(items, e) == (size_t)-1)
				continue; /* not merged before the clearing */
			elem_set(items, e, keys, nk, &x, valid);
		}
		json_decref(d);
		d = items;
		items = NULL;
	}
	*out = d;
	d = NULL;
done:
	json_decref(d);
	json_decref(o);
	json_decref(items);
	free(vl);
	return rc;
}

/* kyaml's FieldSetter quotes a plain string that YAML 1.1 reads as another
 * type (yes, on, n): a later patch's scalar over it is a string. */
static int yaml11_nonstring(const json_t *v)
{
	const char *t = json_string_value(v);
	size_t n = strlen(t);
	json_t *j = NULL;
	int r;
	if (!n || n > 32 || strpbrk(t, " \t\n:#"))
		return 0;
	if (yaml_parse_any(t, n, NULL, 0, &j, NULL) < 0)
		return 0;
	r = j && !json_is_string(j);
	json_decref(j);
	return r;
}

/* A scalar field or element: the patch's (null: none) or the object's. */
static int walk_scalar(json_t *dest, json_t *origin, json_t **out)
{
	if (origin && dest && !json_is_null(origin)) {
		/* kyaml's FieldSetter gives the patch's node the style of the
		 * node it replaces: over a quoted one, yaml.v3 writes the patch's
		 * text quoted (a string), unless the patch's tag is not what its
		 * text resolves to (kept by the tag; not modelled) */
		const json_t *ov = unbox(origin), *ob = json_object_get(origin, KZ_BOX);
		char t[256];
		const char *tx = json_string_value(json_array_get(ob, 2));
		if (!box_quoted(dest)) { /* the patch's node, in the object's plain style */
			*out = json_deep_copy(is_box(origin) ? origin : ov);
			if (is_box(*out))
				json_array_set(json_object_get(*out, KZ_BOX), 1, json_false());
		} else if (json_is_true(json_array_get(ob, 3))) { /* a tag its text does not resolve to */
			*out = box_new(json_deep_copy(ov), 1, NULL);
		} else if (tx) {
			*out = box_new(json_string(tx), 1, NULL);
		} else if (json_is_string(ov)) {
			*out = box_new(json_deep_copy(ov), 1, NULL);
		} else {
			kz_scalar_text(ov, t, sizeof t);
			*out = box_new(json_string(t), 1, NULL);
		}
		return 0;
	}
	if (origin) {
		*out = json_is_null(origin) ? NULL : json_deep_copy(origin);
		return 0;
	}
	*out = json_deep_copy(dest);
	return 0;
}

/* yaml.v3's name of the kind of v's node. */
static int walk(json_t *dest, json_t *origin, sch s, int depth, json_t **out, bh_error *err)
{
	int rc;
	const json_t *k = !is_null(dest) ? dest : (!is_null(origin) ? origin : NULL);
	*out = NULL;
	if (depth > KZ_MAX_DEPTH)
		return bh_error_set(err, BH_ELIMIT, "patch nested deeper than %d", KZ_MAX_DEPTH);
	if (!s.t && !s.f && k && is_map(k))
		s = sch_root_of(k);
	if (!k || is_map(k))
		return walk_map(dest, origin, s, depth, out, err);
	if (json_is_array(k)) {
		if ((!is_null(dest) && !json_is_array(dest)) || (!is_null(origin) && !json_is_array(origin)))
			return kz_kind_error(err, "SequenceNode", is_null(dest) || json_is_array(dest) ? origin : dest);
		if (s.f && s.f->assoc)
			return walk_assoc(dest, origin, s, depth, out, err);
		if (origin) {
			*out = json_is_null(origin) ? NULL : json_deep_copy(origin);
			return 0;
		}
		*out = json_deep_copy(dest);
		return 0;
	}
	if ((!is_null(dest) && !is_scalar(dest)) || (!is_null(origin) && !is_scalar(origin)))
		return kz_kind_error(err, "ScalarNode", is_null(dest) || is_scalar(dest) ? origin : dest);
	/* the quoting lasts where the field keeps its node (the object's
	 * unpatched, or the patch's new one); a replaced node takes the
	 * object's style */
	if ((rc = walk_scalar(dest, origin, out)) == 0 && s.field && (!dest || !origin || dest == origin) &&
	    json_is_string(*out) && yaml11_nonstring(*out)) {
		json_t *b = box_new(*out, 1, NULL);
		*out = b;
	}
	return rc;
}

int kz_smp_apply(const json_t *obj, const json_t *ostyles, const json_t *patch, const json_t *pstyles, json_t **out,
		 json_t **styles, bh_error *err)
{
	json_t *r = NULL, *bo, *bp;
	json_t *md;
	int rc;
	const json_t *omd = json_object_get(obj, "metadata");
	const char *keep[] = {"name", "namespace"};
	char path[KZ_PATH_MAX] = "";
	*out = NULL;
	*styles = NULL;
	bo = boxed(obj, ostyles, path, 0, 0);
	bp = boxed(patch, pstyles, path, 0, 0);
	rc = bo && bp ? walk(bo, bp, sch_root_of(obj), 0, &r, err) : bh_error_set(err, BH_ENOMEM, "out of memory");
	json_decref(bo);
	json_decref(bp);
	if (rc < 0)
		return rc;
	if (!r || !is_map(r) || !json_object_size(r)) {
		json_decref(r);
		return 0;
	}
	if ((*styles = json_object()))
		unboxed(r, *styles, path, 0);
	/* ApplySmPatch: kind, name and namespace stay the object's */
	if (json_object_get(obj, "kind"))
		json_object_set(r, "kind", json_object_get(obj, "kind"));
	md = json_object_get(r, "metadata");
	if (!json_is_object(md)) {
		md = json_object();
		json_object_set_new(r, "metadata", md);
	}
	for (size_t i = 0; i < 2 && json_is_object(md); i++) {
		json_t *v = json_object_get(omd, keep[i]);
		if (v && json_is_string(v) && *json_string_value(v))
			json_object_set(md, keep[i], v);
		else if (i == 1)
			json_object_del(md, keep[i]);
		else if (!v || !is_scalar(v) || json_is_null(v)) /* SetName(GetName()): "" for none */
			json_object_set_new(md, keep[i], json_string(""));
		else
			json_object_set(md, keep[i], v);
	}
	*out = r;
	return 0;
}
