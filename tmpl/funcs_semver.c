/* tmpl/funcs_semver.c — Sprig's semver and semverCompare, and the
 * *semver.Version objects `semver` returns (methods Major, Minor, Patch,
 * Prerelease, Metadata, Original, String, Compare, LessThan, GreaterThan,
 * LessThanEqual, GreaterThanEqual, Equal, IncMajor/IncMinor/IncPatch,
 * SetPrerelease, SetMetadata). The Inc and Set methods return a
 * semver.Version value, which only has the value-receiver methods. */
#include <string.h>

#include "tmpl/funcs.h"
#include "tmpl/internal.h"
#include "lib/semver.h"

static const tmpl_class version_ptr_class;
static const tmpl_class version_val_class;

static tmpl_value new_version(tmpl_arena *a, const semver *v, int pointer)
{
	semver *copy = tmpl_arena_alloc(a, sizeof *copy);
	tmpl_object *o;
	if (!copy)
		return tmpl_invalid();
	*copy = *v;
	o = tmpl_object_new(a, pointer ? &version_ptr_class : &version_val_class, copy);
	return o ? tmpl_object_value(o) : tmpl_invalid();
}

static int set_result(tmpl_call *c, tmpl_value v)
{
	if (v.kind == TMPL_INVALID)
		return tmpl_call_errorf(c, "out of memory");
	c->result = v;
	return 0;
}

static const semver *self_v(tmpl_call *c)
{
	return c->self->u.obj->data;
}

static int m_major(tmpl_call *c) { c->result = tmpl_uint64(self_v(c)->major); return 0; }
static int m_minor(tmpl_call *c) { c->result = tmpl_uint64(self_v(c)->minor); return 0; }
static int m_patch(tmpl_call *c) { c->result = tmpl_uint64(self_v(c)->patch); return 0; }
static int m_pre(tmpl_call *c) { c->result = tmpl_cstr(c->arena, self_v(c)->pre); return 0; }
static int m_meta(tmpl_call *c) { c->result = tmpl_cstr(c->arena, self_v(c)->meta); return 0; }
static int m_original(tmpl_call *c) { c->result = tmpl_cstr(c->arena, self_v(c)->original); return 0; }

static int m_string(tmpl_call *c)
{
	bh_buf b = BH_BUF_INIT;
	semver_format(self_v(c), &b);
	c->result = tmpl_str_buf(c->arena, &b);
	bh_buf_free(&b);
	return 0;
}

/* The *Version argument of Compare/LessThan/... ('V': the engine checked
 * its type); NULL after an error: a nil one makes Go's method panic. */
static const semver *arg_version(tmpl_call *c)
{
	const semver *o = tmpl_object_data(&c->argv[0], &version_ptr_class);
	if (!o)
		tmpl_call_errorf(c, "runtime error: invalid memory address or nil pointer dereference");
	return o;
}

/* data: 0 Compare, 1 LessThan, 2 GreaterThan, 3 Equal, 4 LessThanEqual,
 * 5 GreaterThanEqual */
static int m_compare(tmpl_call *c)
{
	const semver *o = arg_version(c);
	int d, which = (int)(intptr_t)c->data;
	if (!o)
		return BH_EEXEC;
	d = semver_compare(self_v(c), o);
	switch (which) {
	case 0: c->result = tmpl_int(d); break;
	case 1: c->result = tmpl_bool(d < 0); break;
	case 2: c->result = tmpl_bool(d > 0); break;
	case 3: c->result = tmpl_bool(d == 0); break;
	case 4: c->result = tmpl_bool(d <= 0); break;
	default: c->result = tmpl_bool(d >= 0); break;
	}
	return 0;
}

/* Original of a derived version: the old 'v' prefix + String(). */
static void set_original(const semver *old, semver *n)
{
	bh_buf b = BH_BUF_INIT;
	if (old->original[0] == 'v')
		bh_buf_putc(&b, 'v');
	semver_format(n, &b);
	snprintf(n->original, sizeof n->original, "%s", bh_buf_str(&b));
	bh_buf_free(&b);
}

/* data: 0 IncPatch, 1 IncMinor, 2 IncMajor */
static int m_inc(tmpl_call *c)
{
	const semver *v = self_v(c);
	semver n = *v;
	int which = (int)(intptr_t)c->data;
	n.meta[0] = '\0';
	if (which == 0) {
		if (v->pre[0])
			n.pre[0] = '\0';
		else
			n.patch++;
	} else {
		n.pre[0] = '\0';
		n.patch = 0;
		if (which == 1) {
			n.minor++;
		} else {
			n.minor = 0;
			n.major++;
		}
	}
	set_original(v, &n);
	return set_result(c, new_version(c->arena, &n, 0));
}

/* data: 0 SetPrerelease, 1 SetMetadata */
static int m_set(tmpl_call *c)
{
	const semver *v = self_v(c);
	semver n = *v;
	const tmpl_value *a = &c->argv[0];
	const char *err = NULL;
	char tmp[SEMVER_MAX_LEN + 1];
	if (a->u.s.len > SEMVER_MAX_LEN || memchr(a->u.s.ptr, '\0', a->u.s.len))
		return tmpl_call_errorf(c, "%s", c->data ? "invalid metadata string" : "invalid prerelease string");
	memcpy(tmp, a->u.s.ptr, a->u.s.len);
	tmp[a->u.s.len] = '\0';
	if (tmp[0])
		err = c->data ? semver_check_metadata(tmp) : semver_check_prerelease(tmp);
	if (err)
		return tmpl_call_errorf(c, "%s", err);
	memcpy(c->data ? n.meta : n.pre, tmp, a->u.s.len + 1);
	set_original(v, &n);
	return set_result(c, new_version(c->arena, &n, 0));
}

static void v_format(bh_buf *out, const tmpl_value *self, int plus)
{
	(void)plus;
	semver_format(self->u.obj->data, out);
}

static json_t *v_json(const tmpl_value *self, bh_error *err)
{
	bh_buf b = BH_BUF_INIT;
	json_t *j;
	(void)err;
	semver_format(self->u.obj->data, &b);
	j = json_stringn(bh_buf_str(&b), b.len);
	bh_buf_free(&b);
	return j;
}

#define VALUE_METHODS \
	{"Major", m_major, "", NULL}, \
	{"Minor", m_minor, "", NULL}, \
	{"Patch", m_patch, "", NULL}, \
	{"Prerelease", m_pre, "", NULL}, \
	{"Metadata", m_meta, "", NULL}, \
	{"String", m_string, "", NULL}, \
	{"IncPatch", m_inc, "", (void *)(intptr_t)0}, \
	{"IncMinor", m_inc, "", (void *)(intptr_t)1}, \
	{"IncMajor", m_inc, "", (void *)(intptr_t)2}, \
	{"SetPrerelease", m_set, "s", (void *)(intptr_t)0}, \
	{"SetMetadata", m_set, "s", (void *)(intptr_t)1}

static const tmpl_method ptr_methods[] = {
	VALUE_METHODS,
	{"Original", m_original, "", NULL},
	{"Compare", m_compare, "V", (void *)(intptr_t)0},
	{"LessThan", m_compare, "V", (void *)(intptr_t)1},
	{"GreaterThan", m_compare, "V", (void *)(intptr_t)2},
	{"Equal", m_compare, "V", (void *)(intptr_t)3},
	{"LessThanEqual", m_compare, "V", (void *)(intptr_t)4},
	{"GreaterThanEqual", m_compare, "V", (void *)(intptr_t)5},
	{NULL, NULL, NULL, NULL},
};

static const tmpl_method val_methods[] = {
	VALUE_METHODS,
	{NULL, NULL, NULL, NULL},
};

/* deepCopy: semver.Version has no exported field, the copy is 0.0.0 */
static int v_deep_copy(tmpl_arena *a, const tmpl_value *self, tmpl_value *out)
{
	semver zero;
	(void)self;
	memset(&zero, 0, sizeof zero);
	*out = new_version(a, &zero, 1);
	return out->kind == TMPL_INVALID ? BH_ENOMEM : 0;
}

static const tmpl_class version_ptr_class = {
	"*semver.Version", 1, ptr_methods, NULL, v_format, v_json, 0, NULL, 0, 0, v_deep_copy,
};

static const tmpl_class version_val_class = {
	"semver.Version", 0, val_methods, NULL, v_format, v_json, 0,
};

/* Sprig: semver(version string) (*semver.Version, error) */
static int fn_semver(tmpl_call *c)
{
	semver v;
	char em[256];
	if (semver_parse(c->argv[0].u.s.ptr, c->argv[0].u.s.len, &v, em, sizeof em))
		return tmpl_call_errorf(c, "%s", em);
	return set_result(c, new_version(c->arena, &v, 1));
}

/* Sprig: semverCompare(constraint, version string) (bool, error) */
/* semverCompare's memo key: the constraint's length, then both strings;
 * 0 when they do not fit in buf */
static size_t compare_key(char *buf, size_t cap, const tmpl_value *cs, const tmpl_value *vs)
{
	size_t a = cs->u.s.len, b = vs->u.s.len;
	if (a > cap || b > cap - a || sizeof a > cap - a - b)
		return 0;
	memcpy(buf, &a, sizeof a);
	memcpy(buf + sizeof a, cs->u.s.ptr, a);
	memcpy(buf + sizeof a + a, vs->u.s.ptr, b);
	return sizeof a + a + b;
}

static int fn_semver_compare(tmpl_call *c)
{
	semver v;
	char em[512], key[512];
	int r;
	const tmpl_value *cs = &c->argv[0], *vs = &c->argv[1];
	/* a pure function, called with the same few arguments many times */
	size_t kn = c->engine ? compare_key(key, sizeof key, cs, vs) : 0;
	if (kn && tmpl_memo_get(c->engine, key, kn, &r)) {
		c->result = tmpl_bool(r);
		return 0;
	}
	/* NewConstraint first, then NewVersion: a constraint's error does not
	 * depend on the version checked (semver_constraint_check parses every
	 * term before it checks any), so the constraint is checked alone only
	 * when the version does not parse */
	if (semver_parse(vs->u.s.ptr, vs->u.s.len, &v, em, sizeof em)) {
		char cem[512];
		semver zero;
		memset(&zero, 0, sizeof zero);
		if (semver_constraint_check(cs->u.s.ptr, cs->u.s.len, &zero, cem, sizeof cem) < 0)
			return tmpl_call_errorf(c, "%s", cem);
		return tmpl_call_errorf(c, "%s", em);
	}
	r = semver_constraint_check(cs->u.s.ptr, cs->u.s.len, &v, em, sizeof em);
	if (r < 0)
		return tmpl_call_errorf(c, "%s", em);
	if (kn)
		tmpl_memo_put(c->engine, key, kn, r);
	c->result = tmpl_bool(r);
	return 0;
}

const tmpl_func_def tmpl_funcs_semver[] = {
	{"semver", fn_semver, "s", NULL},
	{"semverCompare", fn_semver_compare, "ss", NULL},
	{NULL, NULL, NULL, NULL},
};
