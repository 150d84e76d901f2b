/* helm/kustomize_jsonpatch.c — RFC 6901 JSON pointers (strict: drift
 * ignore rules) and RFC 6902 JSON patches (add, remove, replace, move,
 * copy, test) with the behaviour of evanphx/json-patch v4.12, which
 * kustomize uses (see the list above apply_op). The whole patch applies
 * to a copy, so a failed patch changes nothing. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
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

/* ---- RFC 6902 patches as evanphx/json-patch v4 applies them -------------
 * kustomize's JSON patches go through that library, quirks included, and a
 * post-renderer's result must be kustomize's:
 *   - a key whose value is null counts as absent when read (test, copy,
 *     replace), as present when removed; walking through null, a scalar or
 *     a bad index is a "missing path";
 *   - replace of an absent key sets it; copy from an absent key copies null;
 *     add or replace without "value" writes null;
 *   - an array index is Go's strconv.Atoi ("+1", "01" and negative indices
 *     counted from the end are taken), "-" appends (add only);
 *   - a pointer's first token is dropped whatever it is ("x/a" is "/a"),
 *     and "" is the whole document only for test and replace;
 *   - move removes first, then looks for the destination;
 *   - test compares objects by their members, numbers by value.
 * Messages are the library's (ErrMissing wrapped: "...: missing value"). */

/* Go's strconv.Atoi: 0, or -1 with its message in why */
static int go_atoi(const char *s, long long *v, char *why, size_t n)
{
	const char *p = s;
	int neg = 0;
	unsigned long long acc = 0, lim;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (!*p || strspn(p, "0123456789") != strlen(p)) {
		snprintf(why, n, "strconv.Atoi: parsing \"%s\": invalid syntax", s);
		return -1;
	}
	lim = neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
	for (; *p; p++) {
		if (acc > (lim - (unsigned long long)(*p - '0')) / 10) {
			snprintf(why, n, "strconv.Atoi: parsing \"%s\": value out of range", s);
			return -1;
		}
		acc = acc * 10 + (unsigned long long)(*p - '0');
	}
	*v = neg ? (long long)(0 - acc) : (long long)acc;
	return 0;
}

/* partialArray's index of key for get/set/remove (len = the array's);
 * 0 with *ix, or -1 with the library's message in why */
static int ary_index(const char *key, size_t len, long long *ix, char *why, size_t n)
{
	long long i;
	if (go_atoi(key, &i, why, n))
		return -1;
	if (i < 0) {
		if (i < -(long long)len) {
			snprintf(why, n, "Unable to access invalid index: %lld: invalid index referenced", i);
			return -1;
		}
		i += (long long)len;
	}
	if (i >= (long long)len) {
		snprintf(why, n, "Unable to access invalid index: %lld: invalid index referenced", i);
		return -1;
	}
	*ix = i;
	return 0;
}

/* findObject: the container of the pointer's last token, and that token
 * (decoded, in key); NULL when the path is missing */
static json_t *find_container(json_t *doc, const char *path, char **key)
{
	ptr p;
	json_t *cur = doc;
	const char *s = strchr(path, '/');
	char why[128];
	*key = NULL;
	if (!s)
		return NULL; /* Go: fewer than two parts */
	if (ptr_parse(s, &p, NULL) < 0 || p.n == 0)
		return NULL;
	for (size_t i = 0; i + 1 < p.n && cur; i++) {
		json_t *next = NULL;
		long long ix;
		if (json_is_object(cur))
			next = json_object_get(cur, p.tok[i]);
		else if (ary_index(p.tok[i], json_array_size(cur), &ix, why, sizeof why) == 0)
			next = json_array_get(cur, (size_t)ix);
		cur = json_is_object(next) || json_is_array(next) ? next : NULL;
	}
	if (cur) {
		*key = p.tok[p.n - 1];
		p.tok[p.n - 1] = NULL;
		p.n--;
	}
	ptr_free(&p);
	return cur;
}

/* container.get: *v is the value (NULL: absent or null) */
static int con_get(json_t *con, const char *key, json_t **v, char *why, size_t n)
{
	long long ix;
	if (json_is_object(con)) {
		*v = json_object_get(con, key);
		if (json_is_null(*v))
			*v = NULL;
		return 0;
	}
	if (ary_index(key, json_array_size(con), &ix, why, n))
		return -1;
	*v = json_array_get(con, (size_t)ix);
	if (json_is_null(*v))
		*v = NULL;
	return 0;
}

/* container.add (steals v, NULL meaning null) */
static int con_add(json_t *con, const char *key, json_t *v, char *why, size_t n)
{
	long long ix;
	size_t len;
	if (!v)
		v = json_null();
	if (json_is_object(con)) {
		json_object_set_new(con, key, v);
		return 0;
	}
	len = json_array_size(con);
	if (!strcmp(key, "-")) {
		json_array_append_new(con, v);
		return 0;
	}
	if (go_atoi(key, &ix, why, n)) {
		char at[128];
		snprintf(at, sizeof at, "%s", why);
		snprintf(why, n, "value was not a proper array index: '%s': %s", key, at);
	} else if (ix >= (long long)len + 1 || ix < -((long long)len + 1)) {
		snprintf(why, n, "Unable to access invalid index: %lld: invalid index referenced", ix);
	} else {
		json_array_insert_new(con, (size_t)(ix < 0 ? ix + (long long)len + 1 : ix), v);
		return 0;
	}
	json_decref(v);
	return -1;
}

/* container.remove */
static int con_remove(json_t *con, const char *key, char *why, size_t n)
{
	long long ix;
	if (json_is_object(con)) {
		if (!json_object_get(con, key)) {
			snprintf(why, n, "Unable to remove nonexistent key: %s: missing value", key);
			return -1;
		}
		json_object_del(con, key);
		return 0;
	}
	if (ary_index(key, json_array_size(con), &ix, why, n))
		return -1;
	json_array_remove(con, (size_t)ix);
	return 0;
}

/* Operation.Path/From: 0 with *s; -1 with why: the field absent or null
 * ("operation missing path field: missing value"), or not a string (Go's
 * json.Unmarshal message) */
static int op_field(const json_t *op, const char *name, const char **s, char *why, size_t n)
{
	const json_t *v = json_object_get(op, name);
	static const char *const types[] = {"object", "array", "string", "number", "number", "bool", "bool", "null"};
	if (json_is_string(v)) {
		*s = json_string_value(v);
		return 0;
	}
	if (!v || json_is_null(v))
		snprintf(why, n, "operation%s missing %s field: missing value", strcmp(name, "from") ? "" : ",", name);
	else
		snprintf(why, n, "json: cannot unmarshal %s into Go value of type string", types[json_typeof(v)]);
	return -1;
}

/* lazyNode.equal as the test operation uses it (a NULL a or b: absent) */
static int test_equal(const json_t *a, const json_t *b)
{
	return a && b && json_same(a, b);
}

static int apply_op(json_t **doc, const json_t *op, bh_error *err)
{
	const json_t *k = json_object_get(op, "op");
	const char *kind = json_is_string(k) ? json_string_value(k) : "unknown";
	const json_t *value = json_object_get(op, "value");
	const char *path = NULL, *from = NULL;
	char why[512], *key = NULL, *fkey = NULL;
	json_t *con, *v = NULL;
	int rc = BH_EINVAL;
#define FAIL(...) do { rc = bh_error_set(err, BH_EINVAL, __VA_ARGS__); goto out; } while (0)
	if (!strcmp(kind, "add")) {
		if (op_field(op, "path", &path, why, sizeof why))
			FAIL("add operation failed to decode path: missing value");
		if (!(con = find_container(*doc, path, &key)))
			FAIL("add operation does not apply: doc is missing path: \"%s\": missing value", path);
		if (con_add(con, key, value ? json_deep_copy(value) : NULL, why, sizeof why))
			FAIL("error in add for path: '%s': %s", path, why);
	} else if (!strcmp(kind, "remove")) {
		if (op_field(op, "path", &path, why, sizeof why))
			FAIL("remove operation failed to decode path: missing value");
		if (!(con = find_container(*doc, path, &key)))
			FAIL("remove operation does not apply: doc is missing path: \"%s\": missing value", path);
		if (con_remove(con, key, why, sizeof why))
			FAIL("error in remove for path: '%s': %s", path, why);
	} else if (!strcmp(kind, "replace")) {
		if (op_field(op, "path", &path, why, sizeof why))
			FAIL("replace operation failed to decode path: %s", why);
		if (!*path) {
			if (!json_is_object(value) && !json_is_array(value))
				FAIL("replace operation value must be object or array: %%!w(<nil>)");
			json_decref(*doc);
			*doc = json_deep_copy(value);
		} else if (!(con = find_container(*doc, path, &key))) {
			FAIL("replace operation does not apply: doc is missing path: %s: missing value", path);
		} else if (con_get(con, key, &v, why, sizeof why)) {
			FAIL("replace operation does not apply: doc is missing key: %s: missing value", path);
		} else {
			json_t *nv = value ? json_deep_copy(value) : json_null();
			long long ix;
			if (json_is_object(con))
				json_object_set_new(con, key, nv);
			else if (ary_index(key, json_array_size(con), &ix, why, sizeof why) == 0)
				json_array_set_new(con, (size_t)ix, nv);
		}
	} else if (!strcmp(kind, "move")) {
		if (op_field(op, "from", &from, why, sizeof why))
			FAIL("move operation failed to decode from: %s", why);
		if (!(con = find_container(*doc, from, &fkey)))
			FAIL("move operation does not apply: doc is missing from path: %s: missing value", from);
		if (con_get(con, fkey, &v, why, sizeof why))
			FAIL("error in move for path: '%s': %s", fkey, why);
		v = v ? json_incref(v) : NULL;
		if (con_remove(con, fkey, why, sizeof why))
			FAIL("error in move for path: '%s': %s", fkey, why);
		if (op_field(op, "path", &path, why, sizeof why))
			FAIL("move operation failed to decode path: %s", why);
		if (!(con = find_container(*doc, path, &key)))
			FAIL("move operation does not apply: doc is missing destination path: %s: missing value", path);
		rc = con_add(con, key, v, why, sizeof why);
		v = NULL;
		if (rc)
			FAIL("error in move for path: '%s': %s", path, why);
	} else if (!strcmp(kind, "test")) {
		if (op_field(op, "path", &path, why, sizeof why))
			FAIL("test operation failed to decode path: %s", why);
		if (!*path) {
			if (!test_equal(*doc, value))
				FAIL("testing value %s failed: test failed", path);
		} else if (!(con = find_container(*doc, path, &key))) {
			FAIL("test operation does not apply: is missing path: %s: missing value", path);
		} else if (con_get(con, key, &v, why, sizeof why)) {
			FAIL("error in test for path: '%s': %s", path, why);
		} else if (!v ? value && !json_is_null(value) : !test_equal(v, value)) {
			FAIL("testing value %s failed: test failed", path);
		}
		v = NULL;
	} else if (!strcmp(kind, "copy")) {
		if (op_field(op, "from", &from, why, sizeof why))
			FAIL("copy operation failed to decode from: %s", why);
		if (!(con = find_container(*doc, from, &fkey)))
			FAIL("copy operation does not apply: doc is missing from path: %s: missing value", from);
		if (con_get(con, fkey, &v, why, sizeof why))
			FAIL("error in copy for from: '%s': %s", from, why);
		if (op_field(op, "path", &path, why, sizeof why))
			FAIL("copy operation failed to decode path: missing value");
		if (!(con = find_container(*doc, path, &key)))
			FAIL("copy operation does not apply: doc is missing destination path: %s: missing value", path);
		rc = con_add(con, key, v ? json_deep_copy(v) : NULL, why, sizeof why);
		v = NULL;
		if (rc)
			FAIL("error while adding value during copy: %s", why);
	} else {
		FAIL("Unexpected kind: %s", kind);
	}
	rc = 0;
#undef FAIL
out:
	if (rc && v && !strcmp(kind, "move"))
		json_decref(v);
	free(key);
	free(fkey);
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
		int rc = json_is_object(op) ? apply_op(&work, op, err)
					    : bh_error_set(err, BH_EINVAL, "operation %zu is not a map", i);
		if (rc < 0) {
			json_decref(work);
			return rc;
		}
	}
	json_decref(*doc);
	*doc = work;
	return 0;
}
