/* helm/kustomize_jsonpatch.c — RFC 6901 JSON pointers and RFC 6902 JSON
 * patches (add, remove, replace, move, copy, test) with the behaviour of
 * evanphx/json-patch v4, which kustomize uses: a missing parent, a missing
 * key for remove/replace or an index out of range is an error; "-" appends.
 * The whole patch applies to a copy, so a failed patch changes nothing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "helm/kustomize.h"

#define PTR_MAX_TOKENS 256

typedef struct ptr {
	char *tok[PTR_MAX_TOKENS];
	size_t n;
} ptr;

static void ptr_free(ptr *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->tok[i]);
	p->n = 0;
}

/* Splits "/a/b~1c" into unescaped tokens. */
static int ptr_parse(const char *s, ptr *p, bh_error *err)
{
	p->n = 0;
	if (!*s)
		return 0;
	if (*s != '/')
		return bh_error_set(err, BH_EINVAL, "JSON pointer %s does not start with '/'", s);
	while (*s == '/') {
		const char *e = strchr(s + 1, '/');
		size_t l = e ? (size_t)(e - s - 1) : strlen(s + 1);
		char *t = malloc(l + 1), *w = t;
		if (!t || p->n == PTR_MAX_TOKENS) {
			free(t);
			ptr_free(p);
			return bh_error_set(err, BH_ELIMIT, "JSON pointer too long");
		}
		for (size_t i = 0; i < l; i++) {
			char c = s[1 + i];
			if (c == '~' && i + 1 < l && (s[2 + i] == '0' || s[2 + i] == '1')) {
				*w++ = s[2 + i] == '0' ? '~' : '/';
				i++;
			} else {
				*w++ = c;
			}
		}
		*w = '\0';
		p->tok[p->n++] = t;
		s += l + 1;
	}
	return 0;
}

/* An array index token: digits without leading zeros; -1 when invalid. */
static long ptr_index(const char *t)
{
	char *end;
	long v;
	if (!*t || (t[0] == '0' && t[1]) || strspn(t, "0123456789") != strlen(t))
		return -1;
	errno = 0;
	v = strtol(t, &end, 10);
	return errno ? -1 : v;
}

static json_t *ptr_walk(json_t *doc, const ptr *p, size_t upto)
{
	json_t *cur = doc;
	for (size_t i = 0; i < upto && cur; i++) {
		if (json_is_object(cur)) {
			cur = json_object_get(cur, p->tok[i]);
		} else if (json_is_array(cur)) {
			long ix = ptr_index(p->tok[i]);
			cur = ix < 0 ? NULL : json_array_get(cur, (size_t)ix);
		} else {
			cur = NULL;
		}
	}
	return cur;
}

json_t *kz_json_pointer_get(json_t *doc, const char *pointer)
{
	ptr p;
	json_t *r;
	if (ptr_parse(pointer, &p, NULL) < 0)
		return NULL;
	r = ptr_walk(doc, &p, p.n);
	ptr_free(&p);
	return r;
}

static int do_remove(json_t *doc, const ptr *p, const char *path, json_t **removed, bh_error *err)
{
	json_t *parent;
	const char *last;
	if (!p->n)
		return bh_error_set(err, BH_EINVAL, "remove operation does not apply: doc is missing path: \"%s\"", path);
	parent = ptr_walk(doc, p, p->n - 1);
	last = p->tok[p->n - 1];
	if (json_is_object(parent)) {
		json_t *v = json_object_get(parent, last);
		if (!v)
			return bh_error_set(err, BH_ENOTFOUND,
					    "remove operation does not apply: doc is missing key: %s", path);
		if (removed)
			*removed = json_incref(v);
		json_object_del(parent, last);
		return 0;
	}
	if (json_is_array(parent)) {
		long ix = ptr_index(last);
		if (ix < 0 || (size_t)ix >= json_array_size(parent))
			return bh_error_set(err, BH_ENOTFOUND, "remove operation does not apply: index out of range: %s", path);
		if (removed)
			*removed = json_incref(json_array_get(parent, (size_t)ix));
		json_array_remove(parent, (size_t)ix);
		return 0;
	}
	return bh_error_set(err, BH_ENOTFOUND, "remove operation does not apply: doc is missing path: \"%s\"", path);
}

int kz_json_pointer_remove(json_t *doc, const char *pointer)
{
	ptr p;
	int rc;
	if (ptr_parse(pointer, &p, NULL) < 0)
		return BH_EINVAL;
	rc = do_remove(doc, &p, pointer, NULL, NULL);
	ptr_free(&p);
	return rc;
}

/* add (replace = 1: the key or index must exist). Steals v. */
static int do_add(json_t **doc, const ptr *p, const char *path, json_t *v, int replace, bh_error *err)
{
	json_t *parent;
	const char *last;
	const char *op = replace ? "replace" : "add";
	if (!p->n) {
		json_decref(*doc);
		*doc = v;
		return 0;
	}
	parent = ptr_walk(*doc, p, p->n - 1);
	last = p->tok[p->n - 1];
	if (json_is_object(parent)) {
		if (replace && !json_object_get(parent, last)) {
			json_decref(v);
			return bh_error_set(err, BH_ENOTFOUND, "replace operation does not apply: doc is missing key: %s",
					    path);
		}
		json_object_set_new(parent, last, v);
		return 0;
	}
	if (json_is_array(parent)) {
		size_t n = json_array_size(parent);
		long ix = !replace && !strcmp(last, "-") ? (long)n : ptr_index(last);
		if (ix < 0 || (size_t)ix > n || (replace && (size_t)ix == n)) {
			json_decref(v);
			return bh_error_set(err, BH_ENOTFOUND, "%s operation does not apply: index out of range: %s", op,
					    path);
		}
		if (replace)
			json_array_set_new(parent, (size_t)ix, v);
		else
			json_array_insert_new(parent, (size_t)ix, v);
		return 0;
	}
	json_decref(v);
	return bh_error_set(err, BH_ENOTFOUND, "%s operation does not apply: doc is missing path: \"%s\"", op, path);
}

/* JSON equality with numbers compared by value (1 == 1.0), as Go's. */
static int json_same(const json_t *a, const json_t *b)
{
	if (json_is_number(a) && json_is_number(b))
		return json_number_value(a) == json_number_value(b);
	if (json_is_array(a) && json_is_array(b)) {
		if (json_array_size(a) != json_array_size(b))
			return 0;
		for (size_t i = 0; i < json_array_size(a); i++)
			if (!json_same(json_array_get(a, i), json_array_get(b, i)))
				return 0;
		return 1;
	}
	if (json_is_object(a) && json_is_object(b)) {
		const char *k;
		json_t *v;
		if (json_object_size(a) != json_object_size(b))
			return 0;
		json_object_foreach((json_t *)a, k, v) if (!json_same(v, json_object_get(b, k))) return 0;
		return 1;
	}
	return json_equal((json_t *)a, (json_t *)b);
}

static int apply_op(json_t **doc, const json_t *op, size_t i, bh_error *err)
{
	const char *kind = json_string_value(json_object_get(op, "op"));
	const char *path = json_string_value(json_object_get(op, "path"));
	const char *from = json_string_value(json_object_get(op, "from"));
	json_t *value = json_object_get(op, "value");
	ptr p, f;
	int rc = 0;
	if (!json_is_object(op) || !kind)
		return bh_error_set(err, BH_EINVAL, "operation %zu: missing \"op\"", i);
	if (!path)
		return bh_error_set(err, BH_EINVAL, "operation %zu (%s): missing \"path\"", i, kind);
	if ((rc = ptr_parse(path, &p, err)) < 0)
		return rc;
	f.n = 0;
	if (!strcmp(kind, "add") || !strcmp(kind, "replace")) {
		if (!value)
			rc = bh_error_set(err, BH_EINVAL, "%s operation at %s: missing \"value\"", kind, path);
		else
			rc = do_add(doc, &p, path, json_deep_copy(value), !strcmp(kind, "replace"), err);
	} else if (!strcmp(kind, "remove")) {
		rc = do_remove(*doc, &p, path, NULL, err);
	} else if (!strcmp(kind, "test")) {
		json_t *cur = ptr_walk(*doc, &p, p.n);
		if (!value)
			rc = bh_error_set(err, BH_EINVAL, "test operation at %s: missing \"value\"", path);
		else if (!(cur ? json_same(cur, value) : json_is_null(value)))
			rc = bh_error_set(err, BH_ECONFLICT, "testing value %s failed: test failed", path);
	} else if (!strcmp(kind, "move") || !strcmp(kind, "copy")) {
		json_t *v = NULL;
		if (!from) {
			rc = bh_error_set(err, BH_EINVAL, "%s operation at %s: missing \"from\"", kind, path);
		} else if ((rc = ptr_parse(from, &f, err)) == 0) {
			if (!strcmp(kind, "move")) {
				rc = do_remove(*doc, &f, from, &v, err);
			} else if (!(v = ptr_walk(*doc, &f, f.n))) {
				rc = bh_error_set(err, BH_ENOTFOUND, "copy operation does not apply: doc is missing from path: %s",
						  from);
			} else {
				v = json_deep_copy(v);
			}
			if (rc == 0)
				rc = do_add(doc, &p, path, v, 0, err);
		}
	} else {
		rc = bh_error_set(err, BH_EINVAL, "unexpected kind of operation \"%s\"", kind);
	}
	ptr_free(&p);
	ptr_free(&f);
	return rc;
}

int kz_json_patch(json_t **doc, const json_t *ops, bh_error *err)
{
	json_t *work;
	size_t i;
	json_t *op;
	if (!json_is_array(ops))
		return bh_error_set(err, BH_EINVAL, "a JSON patch is a list of operations");
	if (!(work = json_deep_copy(*doc)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	json_array_foreach(ops, i, op) {
		int rc = apply_op(&work, op, i, err);
		if (rc < 0) {
			json_decref(work);
			return rc;
		}
	}
	json_decref(*doc);
	*doc = work;
	return 0;
}
