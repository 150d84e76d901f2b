/* helm/chart.c — Helm's LoadFiles (pkg/chart/v2/loader/load.go) and
 * Metadata.Validate, on files already read by chart_archive.c / chart_dir.c. */
#include "helm/chart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "helm/chart_internal.h"
#include "helm/values.h"
#include "lib/buf.h"
#include "lib/semver.h"
#include "lib/vec.h"
#include "lib/gojson.h"
#include "lib/gostrconv.h"
#include "lib/gotime_rfc3339.h"
#include "lib/yaml.h"

void chart_limits_default(chart_limits *l)
{
	l->max_archive = (size_t)64 << 20;
	l->max_total = (size_t)100 << 20;
	l->max_file = (size_t)5 << 20;
	l->max_files = 20000;
	l->max_path_depth = 32;
	l->max_nesting = 16;
}

void chart_limits_fill(chart_limits *dst, const chart_limits *src)
{
	chart_limits d;
	chart_limits_default(&d);
	*dst = d;
	if (!src)
		return;
	if (src->max_archive)
		dst->max_archive = src->max_archive;
	if (src->max_total)
		dst->max_total = src->max_total;
	if (src->max_file)
		dst->max_file = src->max_file;
	if (src->max_files)
		dst->max_files = src->max_files;
	if (src->max_path_depth)
		dst->max_path_depth = src->max_path_depth;
	if (src->max_nesting)
		dst->max_nesting = src->max_nesting;
}

struct chart_blob {
	size_t refs;
	unsigned char *data; /* malloc'd, or the mapping when map_len */
	size_t map_len;
	int slot;            /* the mapping's place in maps[] */
};

/* Every live file mapping and its file's path, for chart_mapped_path: a
 * SIGBUS handler reads it, so a slot is filled before its address is set
 * and its address cleared before it is emptied. */
#define MAP_SLOTS 512
static struct {
	void *volatile addr;
	size_t len;
	char *path;
} maps[MAP_SLOTS];

const char *chart_mapped_path(const void *addr)
{
	for (int i = 0; i < MAP_SLOTS; i++) {
		const unsigned char *a = maps[i].addr;
		if (a && (const unsigned char *)addr >= a && (const unsigned char *)addr < a + maps[i].len)
			return maps[i].path;
	}
	return NULL;
}

void chart_file_adopt(chart_file *f)
{
	if (f->blob || !f->data)
		return;
	f->blob = malloc(sizeof *f->blob);
	if (f->blob) {
		f->blob->refs = 1;
		f->blob->data = f->data;
		f->blob->map_len = 0;
	}
}

int chart_file_adopt_map(chart_file *f, void *map, size_t map_len, const char *path)
{
	int slot = 0;
	while (slot < MAP_SLOTS && maps[slot].addr)
		slot++;
	char *p = slot < MAP_SLOTS ? strdup(path) : NULL;
	f->blob = p ? malloc(sizeof *f->blob) : NULL;
	if (!f->blob) {
		free(p);
		munmap(map, map_len);
		f->data = NULL;
		return slot < MAP_SLOTS ? BH_ENOMEM : 1;
	}
	f->blob->refs = 1;
	f->blob->data = map;
	f->blob->map_len = map_len;
	f->blob->slot = slot;
	maps[slot].path = p;
	maps[slot].len = map_len;
	maps[slot].addr = map;
	return 0;
}

void chart_file_release(chart_file *f)
{
	free(f->name);
	if (!f->blob)
		free(f->data);
	else if (--f->blob->refs == 0) {
		if (f->blob->map_len) {
			int slot = f->blob->slot;
			maps[slot].addr = NULL;
			munmap(f->blob->data, f->blob->map_len);
			free(maps[slot].path);
			maps[slot].path = NULL;
		}
		else
			free(f->blob->data);
		free(f->blob);
	}
	f->name = NULL;
	f->data = NULL;
	f->blob = NULL;
}

int chart_file_copy(chart_file *dst, const char *name, const void *data, size_t len)
{
	dst->name = strdup(name);
	dst->data = malloc(len + 1);
	dst->len = len;
	dst->blob = NULL;
	if (!dst->name || !dst->data) {
		chart_file_release(dst);
		return BH_ENOMEM;
	}
	if (len)
		memcpy(dst->data, data, len);
	dst->data[len] = 0;
	return 0;
}

/* dst = src named name: its data shared when src's is, else copied (and
 * then put under a reference count for later copies). */
static int file_share(chart_file *dst, const char *name, const chart_file *src)
{
	if (!src->blob) {
		if (chart_file_copy(dst, name, src->data, src->len))
			return BH_ENOMEM;
		chart_file_adopt(dst);
		return 0;
	}
	dst->name = strdup(name);
	if (!dst->name)
		return BH_ENOMEM;
	dst->data = src->data;
	dst->len = src->len;
	dst->blob = src->blob;
	dst->blob->refs++;
	return 0;
}

/* f shared as the next of the *n files at *arr, of room for *cap */
static int files_push(chart_file **arr, size_t *n, size_t *cap, const chart_file *f)
{
	if (VEC_RESERVE(*arr, *cap, *n + 1, 16) < 0)
		return BH_ENOMEM;
	if (file_share(&(*arr)[*n], f->name, f))
		return BH_ENOMEM;
	(*n)++;
	return 0;
}

/* Duplicate keys of Chart.yaml or values.yaml, which Helm reads silently
 * (the later value wins), as c->warnings (d: yaml_find_duplicates' texts). */
static void add_duplicates(chart *c, const chart_file *f, const json_t *d)
{
	json_t *x;
	size_t i;
	if (!json_array_size(d))
		return;
	if (!c->warnings)
		c->warnings = json_array();
	json_array_foreach(d, i, x)
		json_array_append_new(c->warnings, json_pack("{s:s,s:O}", "file", f->name, "text", x));
}

void chart_free(chart *c)
{
	if (!c)
		return;
	json_decref(c->metadata);
	json_decref(c->values);
	json_decref(c->lock);
	json_decref(c->warnings);
	if (c->schema_file.name)
		chart_file_release(&c->schema_file);
	for (size_t i = 0; i < c->ntemplates; i++)
		chart_file_release(&c->templates[i]);
	free(c->templates);
	for (size_t i = 0; i < c->nfiles; i++)
		chart_file_release(&c->files[i]);
	free(c->files);
	for (size_t i = 0; i < c->ndeps; i++)
		chart_free(c->deps[i]);
	free(c->deps);
	free(c);
}

static int copy_files(chart_file **dst, const chart_file *src, size_t n)
{
	*dst = NULL;
	if (!n)
		return 0;
	*dst = calloc(n, sizeof **dst);
	if (!*dst)
		return BH_ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (file_share(&(*dst)[i], src[i].name, &src[i]))
			return BH_ENOMEM;
	return 0;
}

chart *chart_dup(const chart *c)
{
	chart *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->metadata = json_deep_copy(c->metadata);
	d->values = json_deep_copy(c->values);
	if (c->lock && !(d->lock = json_deep_copy(c->lock)))
		goto fail;
	d->requirements_v2 = c->requirements_v2;
	d->ntemplates = c->ntemplates;
	d->nfiles = c->nfiles;
	if (copy_files(&d->templates, c->templates, c->ntemplates) ||
	    copy_files(&d->files, c->files, c->nfiles))
		goto fail;
	if (c->schema_file.name) {
		if (file_share(&d->schema_file, c->schema_file.name, &c->schema_file))
			goto fail;
		d->schema = (const char *)d->schema_file.data;
		d->schema_len = d->schema_file.len;
	}
	if (c->ndeps) {
		d->deps = calloc(c->ndeps, sizeof *d->deps);
		if (!d->deps)
			goto fail;
		for (size_t i = 0; i < c->ndeps; i++) {
			d->deps[i] = chart_dup(c->deps[i]);
			if (!d->deps[i])
				goto fail;
			d->deps[i]->parent = d;
			d->ndeps = i + 1;
		}
	}
	d->parent = c->parent;
	if (!d->metadata || !d->values)
		goto fail;
	return d;
fail:
	chart_free(d);
	return NULL;
}

static const char *meta_str(const chart *c, const char *key)
{
	const char *s = c && c->metadata ? json_string_value(json_object_get(c->metadata, key)) : NULL;
	return s ? s : "";
}

const char *chart_name(const chart *c) { return meta_str(c, "name"); }
const char *chart_version(const chart *c) { return meta_str(c, "version"); }
const char *chart_api_version(const chart *c) { return meta_str(c, "apiVersion"); }

int chart_check_api_version(const chart *c, bh_error *err)
{
	const char *api = chart_api_version(c);
	if (!strcmp(api, "v1") || !strcmp(api, "v2"))
		return 0;
	if (!strcmp(api, "v3"))
		return bh_error_set(err, BH_EINVAL, "invalid chart apiVersion");
	return bh_error_set(err, BH_EINVAL, "unsupported chart version");
}
int chart_is_library(const chart *c) { return !strcmp(meta_str(c, "type"), "library"); }

char *chart_full_path_dup(const chart *c)
{
	bh_buf b = BH_BUF_INIT;
	const chart *chain[64];
	size_t n = 0;
	for (const chart *p = c; p && n < 64; p = p->parent)
		chain[n++] = p;
	while (n--) {
		bh_buf_puts(&b, chart_name(chain[n]));
		if (n)
			bh_buf_puts(&b, "/charts/");
	}
	if (!bh_buf_ok(&b)) {
		bh_buf_free(&b);
		return NULL;
	}
	if (!b.data)
		return strdup("");
	return bh_buf_detach(&b);
}

/* Helm's sanitizeString for ASCII: whitespace -> ' ', other controls dropped. */
static void sanitize(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	const char *s = json_string_value(v);
	if (!s)
		return;
	size_t n = json_string_length(v), j = 0;
	char *out = malloc(n + 1);
	if (!out)
		return;
	int changed = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '\t' || ch == '\n' || ch == '\v' || ch == '\f' || ch == '\r') {
			out[j++] = ' ';
			changed = 1;
		} else if (ch < 0x20 || ch == 0x7f) {
			changed = 1;
		} else {
			out[j++] = (char)ch;
		}
	}
	if (changed)
		json_object_set_new(obj, key, json_stringn(out, j));
	free(out);
}

static void sanitize_list(json_t *obj, const char *key)
{
	json_t *a = json_object_get(obj, key);
	size_t i;
	json_t *v;
	if (!json_is_array(a))
		return;
	json_array_foreach(a, i, v) {
		if (json_is_string(v)) {
			json_t *tmp = json_object();
			json_object_set(tmp, "x", v);
			sanitize(tmp, "x");
			json_array_set(a, i, json_object_get(tmp, "x"));
			json_decref(tmp);
		}
	}
}

static int alias_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '-'))
			return 0;
	return 1;
}

static const char *json_kind(const json_t *v)
{
	return json_is_number(v) ? "number" : json_is_boolean(v) ? "bool" : json_is_array(v) ? "array" :
	       json_is_string(v) ? "string" : "object";
}

/* json.Unmarshal's type error (the caller names the file) */
static int type_error(bh_error *err, const json_t *v, const char *field, const char *gotype)
{
	return bh_error_set(err, BH_EINVAL,
			    "error unmarshaling JSON: while decoding JSON: "
			    "json: cannot unmarshal %s into Go struct field %s of type %s",
			    json_kind(v), field, gotype);
}

/* sigs.k8s.io/yaml turns a YAML int, float or bool found where the Go field
 * is a string into that string (int: FormatInt; float: FormatFloat 'g' -1
 * 32-bit; bool: FormatBool) before JSON decoding. Chart.yaml is parsed with
 * YAML_KEEP_INTS so ints and floats are told apart here. */
json_t *chart_yaml_string_new(const json_t *v)
{
	char buf[64];
	if (json_is_integer(v)) {
		snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
		return json_string(buf);
	}
	if (json_is_real(v)) {
		float f = (float)json_real_value(v);
		int p;
		for (p = 1; p < 9; p++) { /* shortest float32 digits */
			snprintf(buf, sizeof buf, "%.*e", p - 1, (double)f);
			if (strtof(buf, NULL) == f)
				break;
		}
		go_format_float(buf, sizeof buf, strtod(buf, NULL), 'g', -1);
		return json_string(buf);
	}
	if (json_is_boolean(v))
		return json_string(json_is_true(v) ? "true" : "false");
	return NULL;
}

/* Replaces obj[key] (object) or obj[index] (array) by its string form when
 * it is a number or bool. */
static void stringify_member(json_t *obj, const char *key, size_t index)
{
	json_t *v = key ? json_object_get(obj, key) : json_array_get(obj, index);
	json_t *s = v ? chart_yaml_string_new(v) : NULL;
	if (!s)
		return;
	if (key)
		json_object_set_new(obj, key, s);
	else
		json_array_set_new(obj, index, s);
}

/* Numbers left in interface{} fields (import-values, ...) are float64, as
 * everywhere else in Helm. */
static void ints_to_reals(json_t *v)
{
	const char *k;
	json_t *x;
	size_t i;
	if (json_is_object(v)) {
		json_object_foreach(v, k, x) {
			if (json_is_integer(x))
				json_object_set_new(v, k, json_real((double)json_integer_value(x)));
			else
				ints_to_reals(x);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x) {
			if (json_is_integer(x))
				json_array_set_new(v, i, json_real((double)json_integer_value(x)));
			else
				ints_to_reals(x);
		}
	}
}

/* A []string from YAML: its numbers and bools become their text; the
 * first element that is then no string (nor null), or NULL. */
static const json_t *strings_first_bad(json_t *a)
{
	size_t i;
	json_t *v;
	json_array_foreach(a, i, v) {
		stringify_member(a, NULL, i);
		v = json_array_get(a, i);
		if (!json_is_string(v) && !json_is_null(v))
			return v;
	}
	return NULL;
}

static int check_string_list(json_t *obj, const char *key, const char *field, bh_error *err)
{
	json_t *a = json_object_get(obj, key);
	const json_t *bad;
	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return type_error(err, a, field, "[]string");
	if ((bad = strings_first_bad(a)))
		return type_error(err, bad, field, "string");
	return 0;
}

/* Type checks json.Unmarshal into chart.Metadata would make. Go keeps the
 * first type error in the JSON text, and sigs.k8s.io/yaml writes that text
 * from a map: keys sorted, at every level. So each object's members are
 * checked in key order, one member at a time (check_member). */
typedef int (*member_check)(json_t *obj, const char *k, bh_error *err);

static int key_str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* obj's keys in byte order, NULL-terminated (free() it); NULL when out of
 * memory. */
static const char **sorted_keys(json_t *obj)
{
	size_t n = json_object_size(obj), i = 0;
	const char **keys = malloc((n + 1) * sizeof *keys), *k;
	json_t *v;
	if (!keys)
		return NULL;
	json_object_foreach(obj, k, v)
		keys[i++] = k;
	keys[n] = NULL;
	qsort(keys, n, sizeof *keys, key_str_cmp);
	return keys;
}

static int check_sorted(json_t *obj, member_check one, bh_error *err)
{
	const char **keys = sorted_keys(obj);
	int rc = 0;
	if (!keys)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	for (size_t i = 0; keys[i] && !rc; i++)
		rc = one(obj, keys[i], err);
	free(keys);
	return rc;
}

/* A field of a Go struct that Chart.yaml or Chart.lock is decoded into:
 * its JSON name and kind: 's' string, 'b' bool, 'l' []string, 'a'
 * []interface{}, 'o' map[string]string, 'm' a slice of pointers to the
 * struct elem, 't' time.Time. */
typedef struct go_field {
	const char *name;
	char kind;
	const struct go_field *elem;
} go_field;

static const go_field maint_def[] = {{"name", 's', NULL}, {"email", 's', NULL}, {"url", 's', NULL}, {NULL, 0, NULL}};
static const go_field dep_def[] = {{"name", 's', NULL},      {"version", 's', NULL},       {"repository", 's', NULL},
				   {"condition", 's', NULL}, {"tags", 'l', NULL},          {"enabled", 'b', NULL},
				   {"import-values", 'a', NULL}, {"alias", 's', NULL},     {NULL, 0, NULL}};
static const go_field md_def[] = {
	{"name", 's', NULL},        {"home", 's', NULL},       {"sources", 'l', NULL},     {"version", 's', NULL},
	{"description", 's', NULL}, {"keywords", 'l', NULL},   {"maintainers", 'm', maint_def},
	{"icon", 's', NULL},        {"apiVersion", 's', NULL}, {"condition", 's', NULL},   {"tags", 's', NULL},
	{"appVersion", 's', NULL},  {"deprecated", 'b', NULL}, {"annotations", 'o', NULL}, {"kubeVersion", 's', NULL},
	{"dependencies", 'm', dep_def}, {"type", 's', NULL},   {NULL, 0, NULL}};
#define GO_FIELDS_MAX 17

/* The index in defs of the field the JSON key names for encoding/json (and
 * sigs.k8s.io/yaml): the same name, or the same once case-folded as
 * bytes.EqualFold does (U+017F and U+212A fold with S and K), else -1. */
static int go_field_index(const char *key, const go_field *defs)
{
	for (int f = 0; defs[f].name; f++) {
		const unsigned char *k = (const unsigned char *)key;
		const char *n = defs[f].name;
		for (; *n && *k; n++) {
			unsigned up = (unsigned)(*n >= 'a' && *n <= 'z' ? *n - 32 : *n), c = *k;
			if (c < 0x80 && (c >= 'a' && c <= 'z' ? c - 32 : c) == up)
				k++;
			else if (c == 0xC5 && k[1] == 0xBF && up == 'S')
				k += 2;
			else if (c == 0xE2 && k[1] == 0x84 && k[2] == 0xAA && up == 'K')
				k += 3;
			else
				break;
		}
		if (!*n && !*k)
			return f;
	}
	return -1;
}

static void fold_members(json_t *obj, const go_field *defs);
static void merge_members(json_t *dst, const json_t *src, const go_field *defs, int keep_unknown);

/* The field f after json.Unmarshal decoded v (type-checked) into it when
 * it held old (NULL: zero): a null keeps a string or bool and empties
 * the rest; a []string keeps an old element where v has a null (else "");
 * a map takes v's keys into the old map; a slice of structs decodes each
 * object into the struct already at its index. A new reference or NULL. */
static json_t *go_merge(json_t *old, json_t *v, const go_field *f)
{
	size_t i;
	json_t *x, *a;
	if (json_is_null(v))
		return (f->kind == 's' || f->kind == 'b') && old ? json_incref(old) : NULL;
	if (f->kind == 'o' && json_is_object(old) && json_is_object(v)) {
		a = json_copy(old);
		json_object_update(a, v);
		return a;
	}
	if ((f->kind != 'l' && f->kind != 'm') || !json_is_array(v))
		return json_incref(v);
	a = json_array();
	json_array_foreach(v, i, x) {
		json_t *was = json_array_get(old, i), *e;
		if (f->kind == 'l' || !json_is_object(x)) {
			if (f->kind == 'l' && json_is_null(x)) /* a string left as it was, or "" */
				json_array_append_new(a, json_is_string(was) ? json_incref(was) : json_string(""));
			else
				json_array_append(a, x);
			continue;
		}
		e = json_is_object(was) ? json_deep_copy(was) : json_object();
		merge_members(e, x, f->elem, 1);
		json_array_append_new(a, e);
	}
	return a;
}

/* obj's members that name a field of defs case-folded (type-checked) merged
 * into the field's own member as json.Unmarshal fills the field key after
 * key (sorted); the elements of struct slices likewise. */
static void fold_members(json_t *obj, const go_field *defs)
{
	json_t *merged[GO_FIELDS_MAX] = {0};
	unsigned char folded[GO_FIELDS_MAX] = {0}, seen[GO_FIELDS_MAX] = {0};
	const char **keys = sorted_keys(obj);
	if (!keys)
		return;
	for (size_t i = 0; keys[i]; i++) {
		int x = go_field_index(keys[i], defs);
		if (x < 0)
			continue;
		json_t *m = go_merge(merged[x], json_object_get(obj, keys[i]), &defs[x]);
		json_decref(merged[x]);
		merged[x] = m;
		seen[x] = 1;
		if (strcmp(keys[i], defs[x].name)) {
			folded[x] = 1;
			json_object_del(obj, keys[i]);
		}
	}
	free(keys);
	for (int x = 0; defs[x].name; x++) {
		if (seen[x] && merged[x] && (folded[x] || defs[x].kind == 'm' || defs[x].kind == 'l'))
			json_object_set_new(obj, defs[x].name, merged[x]);
		else if (seen[x] && folded[x])
			json_object_del(obj, defs[x].name);
		else
			json_decref(merged[x]);
	}
}

/* json.Unmarshal of the object src into the struct dst already holds:
 * src's members in key order, each merged (go_merge) into the field its
 * key names; with keep_unknown, members naming no field are kept too. */
static void merge_members(json_t *dst, const json_t *src, const go_field *defs, int keep_unknown)
{
	const char **keys = sorted_keys((json_t *)src);
	for (size_t i = 0; keys && keys[i]; i++) {
		int x = go_field_index(keys[i], defs);
		const char *k = x < 0 ? keys[i] : defs[x].name;
		json_t *m, *v = json_object_get(src, keys[i]);
		if (x < 0 && !keep_unknown)
			continue;
		m = x < 0 ? json_incref(v) : go_merge(json_object_get(dst, k), v, &defs[x]);
		if (m)
			json_object_set_new(dst, k, m);
		else
			json_object_del(dst, k);
	}
	free(keys);
}

static int check_maintainer(json_t *m, const char *k, bh_error *err);
static int check_dependency(json_t *d, const char *k, bh_error *err);

/* json.Unmarshal's type check of obj's member k into the field of defs it
 * names (owner: the Go struct and field path for messages); a null string
 * is dropped. */
static int check_field(json_t *obj, const char *k, const go_field *defs, const char *owner, bh_error *err)
{
	int x = go_field_index(k, defs), rc;
	const go_field *f = x < 0 ? NULL : &defs[x];
	char field[128];
	json_t *v, *e;
	size_t i;
	if (!f)
		return 0;
	snprintf(field, sizeof field, "%s.%s", owner, f->name);
	if (f->kind == 's')
		stringify_member(obj, k, 0);
	if (f->kind == 'l')
		return check_string_list(obj, k, field, err);
	v = json_object_get(obj, k);
	if (json_is_null(v)) {
		if (f->kind == 's')
			json_object_del(obj, k);
		return 0;
	}
	switch (f->kind) {
	case 's':
		return json_is_string(v) ? 0 : type_error(err, v, field, "string");
	case 'b':
		return json_is_boolean(v) ? 0 : type_error(err, v, field, "bool");
	case 'a':
		return json_is_array(v) ? 0 : type_error(err, v, field, "[]interface {}");
	case 'o': {
		const char *ak;
		if (!json_is_object(v))
			return type_error(err, v, field, "map[string]string");
		json_object_foreach(v, ak, e) {
			stringify_member(v, ak, 0);
			e = json_object_get(v, ak);
			if (!json_is_string(e) && !json_is_null(e))
				return type_error(err, e, field, "string");
		}
		return 0;
	}
	default: { /* 'm' */
		int deps = f->elem == dep_def;
		if (!json_is_array(v))
			return type_error(err, v, field, deps ? "[]*v2.Dependency" : "[]*v2.Maintainer");
		json_array_foreach(v, i, e) {
			if (json_is_null(e))
				continue;
			if (!json_is_object(e))
				return type_error(err, e, field, deps ? "v2.Dependency" : "v2.Maintainer");
			if ((rc = check_sorted(e, deps ? check_dependency : check_maintainer, err)))
				return rc;
		}
		return 0;
	}
	}
}

static int check_maintainer(json_t *m, const char *k, bh_error *err)
{
	return check_field(m, k, maint_def, "Maintainer.maintainers", err);
}

static int check_dependency(json_t *d, const char *k, bh_error *err)
{
	return check_field(d, k, dep_def, "Dependency.dependencies", err);
}

static int check_metadata_member(json_t *md, const char *k, bh_error *err)
{
	return check_field(md, k, md_def, "Metadata", err);
}

/* A root chart's Chart.yaml is first read as loader.chartBase{apiVersion}
 * (a type error names chartBase), whose apiVersion picks the loader: any
 * but "", v1, v2 and v3 is "unsupported chart version" before the full
 * read. The value is the last of the keys naming it (case-folded, in key
 * order) that is not null; YAML numbers and bools as their text. */
static int check_chart_base(json_t *md, bh_error *err)
{
	static const go_field base_def[] = {{"apiVersion", 's', NULL}, {NULL, 0, NULL}};
	const char **keys = sorted_keys(md);
	const json_t *bad = NULL;
	json_t *api = NULL;
	int rc = 0;
	if (!keys)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	for (size_t i = 0; keys[i] && !bad; i++) {
		json_t *v = json_object_get(md, keys[i]), *s;
		if (go_field_index(keys[i], base_def))
			continue;
		if (json_is_array(v) || json_is_object(v))
			bad = v;
		else if ((s = chart_yaml_string_new(v)) || json_is_string(v))
			json_decref(api), api = s ? s : json_incref(v);
	}
	free(keys);
	const char *av = api ? json_string_value(api) : "";
	if (bad) {
		rc = type_error(err, bad, "chartBase.apiVersion", "string");
		bh_error_prefix(err, "cannot load Chart.yaml");
	}
	else if (*av && strcmp(av, "v1") && strcmp(av, "v2") && strcmp(av, "v3"))
		rc = bh_error_set(err, BH_EINVAL, "unsupported chart version");
	json_decref(api);
	return rc;
}

/* Type checks of Chart.yaml (or requirements.yaml, file) as helm reads
 * it: a root chart's Chart.yaml as chartBase first (check_chart_base), then
 * json.Unmarshal into v2.Metadata. */
static int check_types(json_t *md, int root, const char *file, bh_error *err)
{
	int rc;
	if (!json_is_object(md))
		return bh_error_set(err, BH_EINVAL, "cannot load %s: error unmarshaling JSON: while decoding "
				    "JSON: json: cannot unmarshal %s into Go value of type %s", file, json_kind(md),
				    root ? "loader.chartBase" : "v2.Metadata");
	if (root && (rc = check_chart_base(md, err)))
		return rc;
	if ((rc = check_sorted(md, check_metadata_member, err)))
		bh_error_prefix(err, "cannot load %s", file);
	return rc;
}

int chart_metadata_validate(json_t *md, bh_error *err)
{
	static const char *san[] = {"name", "description", "home", "icon", "condition", "tags",
				    "appVersion", "kubeVersion", NULL};
	for (int i = 0; san[i]; i++)
		sanitize(md, san[i]);
	sanitize_list(md, "sources");
	sanitize_list(md, "keywords");
	const char *api = json_string_value(json_object_get(md, "apiVersion"));
	const char *name = json_string_value(json_object_get(md, "name"));
	const char *ver = json_string_value(json_object_get(md, "version"));
	const char *type = json_string_value(json_object_get(md, "type"));
	if (!api || !*api)
		return bh_error_set(err, BH_EINVAL, "validation: chart.metadata.apiVersion is required");
	if (!name || !*name)
		return bh_error_set(err, BH_EINVAL, "validation: chart.metadata.name is required");
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return bh_error_set(err, BH_EINVAL, "validation: chart.metadata.name \"%s\" is invalid", name);
	if (!ver || !*ver)
		return bh_error_set(err, BH_EINVAL, "validation: chart.metadata.version is required");
	semver sv;
	char sem_err[256];
	if (semver_parse(ver, json_string_length(json_object_get(md, "version")), &sv, sem_err, sizeof sem_err))
		return bh_error_set(err, BH_EINVAL, "validation: chart.metadata.version \"%s\" is invalid", ver);
	if (type && *type && strcmp(type, "application") && strcmp(type, "library"))
		return bh_error_set(err, BH_EINVAL, "validation: chart.metadata.type must be application or library");
	json_t *ms = json_object_get(md, "maintainers");
	size_t i;
	json_t *m;
	if (json_is_array(ms)) {
		json_array_foreach(ms, i, m) {
			if (!json_is_object(m))
				return bh_error_set(err, BH_EINVAL,
						    "validation: maintainers must not contain empty or null nodes");
			sanitize(m, "name");
			sanitize(m, "email");
			sanitize(m, "url");
		}
	}
	json_t *deps = json_object_get(md, "dependencies");
	json_t *seen = json_object();
	if (json_is_array(deps)) {
		json_array_foreach(deps, i, m) {
			if (!json_is_object(m)) {
				json_decref(seen);
				return bh_error_set(err, BH_EINVAL,
						    "validation: dependencies must not contain empty or null nodes");
			}
			sanitize(m, "name");
			sanitize(m, "version");
			sanitize(m, "repository");
			sanitize(m, "condition");
			sanitize_list(m, "tags");
			const char *dn = json_string_value(json_object_get(m, "name"));
			const char *al = json_string_value(json_object_get(m, "alias"));
			if (!dn)
				dn = "";
			if (al && *al && !alias_ok(al)) {
				json_decref(seen);
				return bh_error_set(err, BH_EINVAL,
						    "validation: dependency \"%s\" has disallowed characters in the alias", dn);
			}
			const char *key = al && *al ? al : dn;
			if (json_object_get(seen, key)) {
				bh_error_set(err, BH_EINVAL, "validation: more than one dependency with name or alias \"%s\"",
					     key);
				json_decref(seen);
				return BH_EINVAL;
			}
			json_object_set_new(seen, key, json_true());
		}
	}
	json_decref(seen);
	return 0;
}

static int has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static const char *ext_of(const char *name)
{
	const char *slash = strrchr(name, '/');
	const char *base = slash ? slash + 1 : name;
	const char *dot = strrchr(base, '.');
	return dot ? dot : "";
}

/* Is a sub-chart group named by the len bytes at name loaded from its own
 * files (not skipped, not an archive)? The loader's rule below. */
static int group_is_dir(const char *name, size_t len)
{
	if (len && (name[0] == '_' || name[0] == '.'))
		return 0;
	const char *dot = NULL;
	for (size_t i = 0; i < len; i++)
		if (name[i] == '.')
			dot = name + i;
	return !(dot && name + len - dot == 4 && !memcmp(dot, ".tgz", 4));
}

/* Is name (a path in a chart's files) the values.schema.json the loader
 * shares: the chart's own, or a directory sub-chart's, at any depth? */
static int is_shared_schema(const char *name)
{
	for (;;) {
		if (!strcmp(name, "values.schema.json"))
			return 1;
		if (!has_prefix(name, "charts/"))
			return 0;
		const char *sub = name + 7;
		size_t cl = strcspn(sub, "/");
		if (!sub[cl] || !group_is_dir(sub, cl))
			return 0;
		name = sub + cl + 1;
	}
}

size_t chart_files_shared_bytes(const chart_file *files, size_t n)
{
	size_t sum = 0;
	for (size_t i = 0; i < n; i++)
		if (is_shared_schema(files[i].name))
			sum += files[i].len;
	return sum;
}

typedef struct sub_group {
	char *name;
	chart_file *files;
	size_t n, cap;
} sub_group;

static int group_cmp(const void *a, const void *b)
{
	return strcmp(((const sub_group *)a)->name, ((const sub_group *)b)->name);
}

/* ---- Chart.lock: Helm's chart.Lock as encoding/json writes it ----
 *
 * yaml.Unmarshal into v2.Lock is sigs.k8s.io/yaml then json.Unmarshal, as
 * for Chart.yaml (check_field, fold_members): members in key order, each
 * into the field its key names, exactly or case-folded. The first type
 * error is kept while decoding goes on; time.Time's own error ends it. */
#define LOCK_ERR_HEAD "error unmarshaling JSON: while decoding JSON"
#define LOCK_ERR LOCK_ERR_HEAD ": "

static const go_field lock_def[] = {{"dependencies", 'm', dep_def}, {"digest", 's', NULL}, {"generated", 't', NULL},
				    {NULL, 0, NULL}};
enum { LF_GENERATED = 2 };

/* a decoded dependency as encoding/json marshals v2.Dependency: Go field
 * order, omitempty fields left out */
static json_t *lock_dep_out(const json_t *dep)
{
	json_t *o;
	if (!json_is_object(dep))
		return json_null();
	o = json_object();
	for (int f = 0; dep_def[f].name; f++) {
		json_t *v = json_object_get(dep, dep_def[f].name);
		int always = f == 0 || f == 2; /* name, repository */
		if (dep_def[f].kind == 'b' ? json_is_true(v) : json_is_array(v) ? json_array_size(v) > 0 :
		    json_string_length(v) > 0 || (always && json_is_string(v)))
			json_object_set(o, dep_def[f].name, v);
		else if (always)
			json_object_set_new(o, dep_def[f].name, json_string(""));
	}
	return o;
}

/* time.Time's UnmarshalJSON of a generated member into *t (left alone by a
 * null): it reads the JSON text sigs.k8s.io/yaml wrote, escapes and all. */
static int lock_generated(const json_t *gen, rfc3339_time *t, bh_error *err)
{
	bh_buf lit = BH_BUF_INIT;
	int rc;
	if (json_is_string(gen))
		gojson_quote(&lit, json_string_value(gen), json_string_length(gen), 0);
	else
		bh_buf_puts(&lit, json_is_null(gen) ? "null" : "{}");
	if (lit.oom)
		rc = bh_error_set(err, BH_ENOMEM, "out of memory reading Chart.lock's generated time");
	else if ((rc = rfc3339_unmarshal_json(lit.data, lit.len, t, err)))
		bh_error_prefix(err, LOCK_ERR_HEAD);
	bh_buf_free(&lit);
	return rc;
}

/* time.Time's MarshalJSON of the generated time (RFC3339Nano in its own
 * offset). An offset of 24 hours or more, which Go refuses to marshal, is
 * kept as formatted: `helm template` never marshals the lock; storing the
 * release fails on it as Go's json.Marshal does (release_marshal). */
static json_t *lock_time(const rfc3339_time *t)
{
	char buf[RFC3339_FORMAT_MAX];
	rfc3339_format(t, buf, NULL);
	return json_string(buf);
}

/* Helm's yaml.Unmarshal of a lock file into chart.Lock, then that Lock as
 * encoding/json marshals it. A null document leaves *out NULL (a nil Lock
 * pointer: "lock": null). */
static int lock_build(json_t *y, json_t **out, bh_error *err)
{
	rfc3339_time gen = RFC3339_ZERO;
	json_t *o, *deps, *arr;
	const char **keys;
	int rc = 0, failed = 0;
	bh_error first;
	json_decref(*out);
	*out = NULL;
	if (!y || json_is_null(y))
		return 0;
	if (!json_is_object(y))
		return bh_error_set(err, BH_EINVAL, LOCK_ERR "json: cannot unmarshal %s into Go value of type v2.Lock",
				    json_kind(y));
	if (!(keys = sorted_keys(y)))
		return bh_error_set(err, BH_ENOMEM, "out of memory reading Chart.lock");
	for (size_t i = 0; keys[i] && !rc; i++) {
		if (go_field_index(keys[i], lock_def) == LF_GENERATED)
			rc = lock_generated(json_object_get(y, keys[i]), &gen, err);
		else if (!failed && (failed = check_field(y, keys[i], lock_def, "Lock", &first)) == BH_ENOMEM)
			rc = bh_error_set(err, BH_ENOMEM, "%s", first.msg);
	}
	free(keys);
	if (!rc && failed)
		rc = bh_error_set(err, failed, "%s", first.msg);
	if (rc)
		return rc;
	fold_members(y, lock_def);
	ints_to_reals(y);
	if (!(o = json_object()))
		return BH_ENOMEM;
	json_object_set_new(o, "generated", lock_time(&gen));
	const char *digest = json_string_value(json_object_get(y, "digest"));
	json_object_set_new(o, "digest", json_string(digest ? digest : ""));
	deps = json_object_get(y, "dependencies");
	arr = json_is_array(deps) ? json_array() : json_null();
	for (size_t i = 0; i < json_array_size(deps); i++)
		json_array_append_new(arr, lock_dep_out(json_array_get(deps, i)));
	json_object_set_new(o, "dependencies", arr);
	*out = o;
	return 0;
}

int chart_load_files_budget(const chart_file *files, size_t n, chart_load_ctx *ctx,
			    chart **out, bh_error *err)
{
	chart *c = calloc(1, sizeof *c);
	sub_group *groups = NULL;
	size_t ngroups = 0, files_cap = 0, templates_cap = 0;
	int rc = 0;
	if (!c)
		return bh_error_set(err, BH_ENOMEM, "out of memory loading chart");
	c->values = json_object();
	for (size_t i = 0; i < n; i++) {
		if (strcmp(files[i].name, "Chart.yaml"))
			continue;
		json_t *md = NULL, *dups = NULL;
		/* yaml.Unmarshal into chart.Metadata: the first document only;
		 * its duplicate keys in the same pass */
		if ((rc = yaml_parse_any_dups((const char *)files[i].data, files[i].len, NULL, YAML_KEEP_INTS, &md,
					      &dups, err))) {
			bh_error_prefix(err, "cannot load Chart.yaml");
			goto fail;
		}
		add_duplicates(c, &files[i], dups);
		json_decref(dups);
		if (json_is_null(md)) {
			json_decref(md);
			md = json_object();
		}
		json_decref(c->metadata);
		c->metadata = md;
		if ((rc = check_types(md, !ctx->depth, "Chart.yaml", err)))
			goto fail;
		fold_members(md, md_def);
		ints_to_reals(md);
		const char *api = json_string_value(json_object_get(md, "apiVersion"));
		if (!api || !*api)
			json_object_set_new(md, "apiVersion", json_string("v1"));
	}
	for (size_t i = 0; i < n; i++) {
		const chart_file *f = &files[i];
		if (!strcmp(f->name, "Chart.yaml"))
			continue;
		if (!strcmp(f->name, "Chart.lock") || !strcmp(f->name, "requirements.lock")) {
			json_t *lock = NULL;
			if ((rc = yaml_parse_any((const char *)f->data, f->len, NULL, YAML_KEEP_INTS, &lock, err)) ||
			    (rc = lock_build(lock, &c->lock, err))) {
				json_decref(lock);
				bh_error_prefix(err, "cannot load %s", f->name);
				goto fail;
			}
			json_decref(lock);
			if (!strcmp(f->name, "requirements.lock") && c->metadata &&
			    !strcmp(chart_api_version(c), "v1") &&
			    (rc = files_push(&c->files, &c->nfiles, &files_cap, f)))
				goto oom;
		} else if (!strcmp(f->name, "values.yaml")) {
			json_t *v = NULL;
			json_t *dups = NULL; /* values and duplicate keys in one parse */
			if ((rc = yaml_parse_values_dups((const char *)f->data, f->len, NULL, &v, &dups, err))) {
				bh_error_prefix(err, "cannot load values.yaml");
				goto fail;
			}
			add_duplicates(c, f, dups);
			json_decref(dups);
			json_decref(c->values);
			c->values = v;
		} else if (!strcmp(f->name, "values.schema.json")) {
			if (c->schema_file.name)
				chart_file_release(&c->schema_file);
			c->schema = NULL;
			if (file_share(&c->schema_file, f->name, f))
				goto oom;
			c->schema = (const char *)c->schema_file.data;
			c->schema_len = c->schema_file.len;
		} else if (!strcmp(f->name, "requirements.yaml")) {
			/* yaml.Unmarshal into the chart's Metadata: any field of it */
			json_t *req = NULL;
			if (!c->metadata)
				c->metadata = json_object();
			if ((rc = yaml_parse_any((const char *)f->data, f->len, NULL, YAML_KEEP_INTS, &req, err))) {
				bh_error_prefix(err, "cannot load requirements.yaml");
				goto fail;
			}
			if (!json_is_null(req) && (rc = check_types(req, 0, "requirements.yaml", err))) {
				json_decref(req);
				goto fail;
			}
			ints_to_reals(req);
			if (json_is_object(req))
				merge_members(c->metadata, req, md_def, 0);
			json_decref(req);
			if (strcmp(chart_api_version(c), "v1"))
				c->requirements_v2 = 1;
			else if ((rc = files_push(&c->files, &c->nfiles, &files_cap, f)))
				goto oom;
		} else if (has_prefix(f->name, "templates/")) {
			if ((rc = files_push(&c->templates, &c->ntemplates, &templates_cap, f)))
				goto oom;
		} else if (has_prefix(f->name, "charts/")) {
			if (!strcmp(ext_of(f->name), ".prov")) {
				if ((rc = files_push(&c->files, &c->nfiles, &files_cap, f)))
					goto oom;
				continue;
			}
			const char *fname = f->name + 7;
			size_t cl = strcspn(fname, "/");
			size_t g;
			for (g = 0; g < ngroups; g++)
				if (strlen(groups[g].name) == cl && !strncmp(groups[g].name, fname, cl))
					break;
			if (g == ngroups) {
				sub_group *ng = realloc(groups, (ngroups + 1) * sizeof *ng);
				if (!ng)
					goto oom;
				groups = ng;
				memset(&groups[g], 0, sizeof groups[g]);
				groups[g].name = strndup(fname, cl);
				ngroups++;
				if (!groups[g].name)
					goto oom;
			}
			/* borrowed: files outlives the subchart's loading */
			if (VEC_RESERVE(groups[g].files, groups[g].cap, groups[g].n + 1, 16) < 0)
				goto oom;
			chart_file *gf = groups[g].files;
			gf[groups[g].n].name = (char *)fname;
			gf[groups[g].n].data = f->data;
			gf[groups[g].n].len = f->len;
			gf[groups[g].n].blob = f->blob;
			groups[g].n++;
		} else {
			if ((rc = files_push(&c->files, &c->nfiles, &files_cap, f)))
				goto oom;
		}
	}
	if (!c->metadata) {
		rc = bh_error_set(err, BH_EINVAL, "Chart.yaml file is missing");
		goto fail;
	}
	if ((rc = chart_metadata_validate(c->metadata, err)))
		goto fail;
	if (ngroups)
		qsort(groups, ngroups, sizeof *groups, group_cmp);
	for (size_t g = 0; g < ngroups; g++) {
		const char *sn = groups[g].name;
		chart *sc = NULL;
		if (sn[0] == '_' || sn[0] == '.')
			continue;
		if (ctx->depth + 1 > ctx->lim.max_nesting) {
			rc = bh_error_set(err, BH_ELIMIT,
					  "error unpacking subchart %s in %s: sub-charts are nested deeper than %zu levels",
					  sn, chart_name(c), ctx->lim.max_nesting);
			goto fail;
		}
		ctx->depth++;
		if (!strcmp(ext_of(sn), ".tgz")) {
			if (strcmp(groups[g].files[0].name, sn)) {
				ctx->depth--;
				rc = bh_error_set(err, BH_EINVAL, "error unpacking subchart tar in %s: expected %s, got %s",
						  chart_name(c), sn, groups[g].files[0].name);
				goto fail;
			}
			rc = chart_load_archive_budget(groups[g].files[0].data, groups[g].files[0].len, ctx, &sc, err);
		} else {
			chart_file *buff = calloc(groups[g].n + 1, sizeof *buff);
			size_t nb = 0;
			if (!buff) {
				ctx->depth--;
				goto oom;
			}
			for (size_t k = 0; k < groups[g].n; k++) {
				const char *slash = strchr(groups[g].files[k].name, '/');
				if (!slash)
					continue;
				buff[nb].name = (char *)slash + 1;
				buff[nb].data = groups[g].files[k].data;
				buff[nb].len = groups[g].files[k].len;
				buff[nb].blob = groups[g].files[k].blob;
				nb++;
			}
			rc = chart_load_files_budget(buff, nb, ctx, &sc, err);
			free(buff);
		}
		ctx->depth--;
		if (rc) {
			bh_error_prefix(err, "error unpacking subchart %s in %s", sn, chart_name(c));
			goto fail;
		}
		chart **nd = realloc(c->deps, (c->ndeps + 1) * sizeof *nd);
		if (!nd) {
			chart_free(sc);
			goto oom;
		}
		c->deps = nd;
		sc->parent = c;
		c->deps[c->ndeps++] = sc;
	}
	for (size_t g = 0; g < ngroups; g++) {
		free(groups[g].files);
		free(groups[g].name);
	}
	free(groups);
	*out = c;
	return 0;
oom:
	rc = bh_error_set(err, BH_ENOMEM, "out of memory loading chart");
fail:
	for (size_t g = 0; g < ngroups; g++) {
		free(groups[g].files);
		free(groups[g].name);
	}
	free(groups);
	chart_free(c);
	return rc ? rc : BH_EINVAL;
}

int chart_load_files(const chart_file *files, size_t n, const chart_limits *lim,
		     chart **out, bh_error *err)
{
	chart_load_ctx ctx;
	memset(&ctx, 0, sizeof ctx);
	chart_limits_fill(&ctx.lim, lim);
	return chart_load_files_budget(files, n, &ctx, out, err);
}

int chart_check_dependencies(const chart *c, bh_error *err)
{
	json_t *reqs = json_object_get(c->metadata, "dependencies");
	size_t i;
	json_t *r;
	bh_buf missing = BH_BUF_INIT;
	size_t nmissing = 0; /* a dependency without a name is missing too */
	json_array_foreach(reqs, i, r) {
		const char *rn = json_string_value(json_object_get(r, "name"));
		int found = 0;
		if (!rn)
			rn = "";
		for (size_t k = 0; k < c->ndeps; k++)
			if (!strcmp(chart_name(c->deps[k]), rn))
				found = 1;
		if (!found) {
			if (nmissing++)
				bh_buf_puts(&missing, ", ");
			bh_buf_puts(&missing, rn);
		}
	}
	if (nmissing) {
		bh_error_set(err, BH_ENOTFOUND,
			     "an error occurred while checking for chart dependencies. You may need to run "
			     "`helm dependency build` to fetch missing dependencies: found in Chart.yaml, but "
			     "missing in charts/ directory: %s", bh_buf_str(&missing));
		bh_buf_free(&missing);
		return BH_ENOTFOUND;
	}
	bh_buf_free(&missing);
	return 0;
}
