/* helm/kustomize.c — see kustomize.h: decoding a kustomization, target
 * selection (kustomize's types.SelectorRegex and resmap.Select), the patch
 * transformer (strategic merge or JSON 6902, told apart as kustomize does)
 * and the image tag transformer (kustomize's legacy walk over every
 * `containers`/`initContainers` list, then its image field specs). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "helm/kustomize.h"
#include "helm/kustomize_internal.h"
#include "helm/kustomize_schema.h"
#include "lib/gojson.h"
#include "lib/gostrconv.h"
#include "lib/vec.h"
#include "lib/yaml.h"

/* ---- the text of label and annotation values ------------------------------------------- */

/* kustomize (kyaml) reads labels and annotations as the text of their YAML
 * nodes: 1.50 is "1.50", 0x10 "0x10", ~ "~", True "True", !!binary aGk=
 * "aGk=", a map or list "". An object read by kz_objects_parse_texts (or a
 * strategic merge patch) keeps, under KZ_TEXTS, each value whose text is not
 * what its JSON value prints: {"labels"|"annotations": {key: [value,
 * text]}}. The text stands for the value while the value is still the one
 * recorded; a JSON patch makes kustomize go through JSON, so the object's
 * texts are dropped then. kustomize_apply removes them at the end. */
#define KZ_TEXTS "\001kustomize-texts"
#define KZ_TEXTS_MERGE_DEPTH 16
/* An integer above int64 that yaml.v3 reads as a uint64 (see yuint). */
#define KZ_UINT "\001kz-uint:"
#define KZ_UINT_JSON "\"\\u0001kz-uint:"

static const char *const text_fields[] = {"labels", "annotations", NULL};

/* The text of a JSON scalar as kustomize reads it back from JSON (a map or
 * list is ""); not for strings. */
static void scalar_as_text(const json_t *v, char *buf, size_t n)
{
	buf[0] = '\0';
	if (json_is_real(v)) /* JSON's float64 as yaml.v3 writes it */
		go_format_float(buf, n, json_real_value(v), 'g', -1);
	else if (json_is_null(v))
		snprintf(buf, n, "null");
	else if (!json_is_object(v) && !json_is_array(v))
		kz_scalar_text(v, buf, n);
}

/* The text kustomize reads for v, the value of key in metadata.FIELD of an
 * object whose KZ_TEXTS record for FIELD is rec (or NULL); NULL when v is
 * NULL. buf holds a text made here. */
static const char *value_text(const json_t *v, const char *key, const json_t *rec, char *buf, size_t n)
{
	const json_t *r = json_object_get(rec, key);
	if (!v)
		return NULL;
	if (r && json_equal(json_array_get(r, 0), (json_t *)v))
		return json_string_value(json_array_get(r, 1));
	if (json_is_string(v))
		return json_string_value(v);
	scalar_as_text(v, buf, n);
	return buf;
}

static const json_t *texts_of(const json_t *obj, const char *field)
{
	return json_object_get(json_object_get(obj, KZ_TEXTS), field);
}

static int yscalar_is(const yaml_node_t *n, const char *s)
{
	return n && n->type == YAML_SCALAR_NODE && n->data.scalar.length == strlen(s) &&
	       !memcmp(n->data.scalar.value, s, n->data.scalar.length);
}

/* The value of key in a mapping node (the last one, as the reader takes). */
static yaml_node_t *ymap_get(yaml_document_t *d, const yaml_node_t *m, const char *key)
{
	yaml_node_t *found = NULL;
	if (!m || m->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++)
		if (yscalar_is(yaml_document_get_node(d, p->key), key))
			found = yaml_document_get_node(d, p->value);
	return found;
}

static int ymerge_key(const yaml_node_t *k)
{
	return yscalar_is(k, "<<") && k->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* Sets out[key] to the text of each scalar value of mapping node m (aliases
 * are the nodes they name); a key merged in with "<<" only when no key of
 * m (or an earlier merged map) set it. */
static void ymap_texts(yaml_document_t *d, const yaml_node_t *m, json_t *out, int depth)
{
	json_t *mine = json_object();
	if (!mine || !m || m->type != YAML_MAPPING_NODE || depth > KZ_TEXTS_MERGE_DEPTH) {
		json_decref(mine);
		return;
	}
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(d, p->key), *v = yaml_document_get_node(d, p->value);
		if (!k || k->type != YAML_SCALAR_NODE || !v || ymerge_key(k))
			continue;
		json_object_set_new(mine, (const char *)k->data.scalar.value,
				    v->type == YAML_SCALAR_NODE
					? json_stringn((const char *)v->data.scalar.value, v->data.scalar.length)
					: json_string(""));
	}
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *v = yaml_document_get_node(d, p->value);
		if (!ymerge_key(yaml_document_get_node(d, p->key)) || !v)
			continue;
		if (v->type == YAML_SEQUENCE_NODE) {
			for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++)
				ymap_texts(d, yaml_document_get_node(d, *i), out, depth + 1);
		} else {
			ymap_texts(d, v, out, depth + 1);
		}
	}
	json_object_update(out, mine);
	json_decref(mine);
}

/* libyaml's node tree of text; 0 when libyaml does not read it. */
static int ydoc_load(const char *text, yaml_parser_t *parser, yaml_document_t *doc)
{
	if (!yaml_parser_initialize(parser))
		return 0;
	yaml_parser_set_input_string(parser, (const unsigned char *)text, strlen(text));
	if (!yaml_parser_load(parser, doc)) {
		yaml_parser_delete(parser);
		return 0;
	}
	return 1;
}

static void ydoc_free(yaml_parser_t *parser, yaml_document_t *doc)
{
	yaml_document_delete(doc);
	yaml_parser_delete(parser);
}

/* ---- the styles of scalars (see kz_smp_apply) ---------------------------------------- */


static int ytagged(const char *text, const yaml_node_t *n);
static int emit_one(const json_t *o, int unfolded, bh_buf *out, bh_error *err);

/* An integer above int64 that yaml.v3 reads as a uint64 (kustomize keeps it
 * exactly; lib/yaml reads a float64) is held, while kustomize works on the
 * object, as a string KZ_UINT "digits"; kz_objects_emit writes the digits. */

/* yaml.v3's resolve of a plain scalar: underscores dropped, then Go's
 * ParseInt(s, 0, 64) fails and ParseUint(s, 0, 64) reads it. The decimal
 * digits in out (at least 21 bytes), or 0. */
static int v3_uint(const char *s, size_t n, char *out, size_t outn)
{
	char t[128];
	size_t m = 0, i = 0;
	unsigned base = 10;
	unsigned long long v = 0;
	for (size_t j = 0; j < n; j++)
		if (s[j] != '_') {
			if (m + 1 >= sizeof t)
				return 0;
			t[m++] = s[j];
		}
	t[m] = '\0';
	if (!m || !(t[0] >= '0' && t[0] <= '9'))
		return 0;
	if (t[0] == '0' && m > 1) {
		i = 2;
		if (t[1] == 'x' || t[1] == 'X')
			base = 16;
		else if (t[1] == 'o' || t[1] == 'O')
			base = 8;
		else if (t[1] == 'b' || t[1] == 'B')
			base = 2;
		else
			base = 8, i = 1;
	}
	if (i >= m)
		return 0;
	for (; i < m; i++) {
		int c = t[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
		if ((unsigned)d >= base || v > (~0ULL - (unsigned)d) / base)
			return 0;
		v = v * base + (unsigned)d;
	}
	if (v <= 9223372036854775807ULL)
		return 0;
	snprintf(out, outn, "%llu", v);
	return 1;
}

/* v's member or element (child, the value of node n) as KZ_UINT when n is
 * a plain untagged integer above int64. */
static json_t *yuint(const char *text, const yaml_node_t *n, const json_t *child)
{
	char d[32];
	if (!n || n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || !json_is_real(child) ||
	    ytagged(text, n) || !v3_uint((const char *)n->data.scalar.value, n->data.scalar.length, d, sizeof d))
		return NULL;
	return json_sprintf("%s%s", KZ_UINT, d);
}

/* A scalar node written with a tag (after its anchor, if any). */
static int ytagged(const char *text, const yaml_node_t *n)
{
	size_t s = n->start_mark.index;
	if (text[s] == '&')
		while (text[s] && !strchr(" \t\r\n", text[s]))
			s++;
	while (text[s] == ' ' || text[s] == '\t')
		s++;
	return text[s] == '!';
}

/* Records in rec the style of each scalar of node n (the value v): quoted
 * ones; the text of a plain one that v does not print (kyaml matches list
 * elements by it); in a patch
 * a tagged one whose text alone is another type ([false, null, true]); a
 * tagged string as [false, null, true] too. */
#define YS_PATCH 1 /* a patch: the texts of its scalars too */
#define YS_UINTS 2 /* integers above int64 become KZ_UINT */

static void ystyles(const char *text, yaml_document_t *d, const yaml_node_t *n, json_t *v, json_t *rec, int flags,
		    char *path, size_t len, int depth)
{
	int patch = flags & YS_PATCH;
	if (!n || !v || depth > KZ_MAX_DEPTH)
		return;
	if (n->type == YAML_SCALAR_NODE) {
		int quoted = n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE && n->data.scalar.style != YAML_ANY_SCALAR_STYLE;
		char buf[64];
		if (json_is_object(v) || json_is_array(v) || json_is_null(v) || n->start_mark.index >= strlen(text))
			return;
		if (ytagged(text, n)) {
			json_t *plain = NULL;
			if (json_is_string(v)) /* tagged: kyaml never quotes it */
				json_object_set_new(rec, path, json_pack("[b,n,b]", 0, 1));
			else if (patch &&
			    (yaml_parse_any((const char *)n->data.scalar.value, n->data.scalar.length, NULL,
					    YAML_KEEP_INTS | YAML_V3_TYPING, &plain, NULL) < 0 ||
			     json_typeof(plain) != json_typeof(v)))
				json_object_set_new(rec, path, json_pack("[b,n,b]", 0, 1));
			json_decref(plain);
			return;
		}
		if (quoted) {
			json_object_set_new(rec, path, json_pack("[b,n]", 1));
			return;
		}
		if (json_is_string(v) ? strlen(json_string_value(v)) == n->data.scalar.length &&
						!memcmp(json_string_value(v), n->data.scalar.value, n->data.scalar.length)
				      : (kz_scalar_text(v, buf, sizeof buf), strlen(buf) == n->data.scalar.length &&
						 !memcmp(buf, n->data.scalar.value, n->data.scalar.length)))
			return;
		json_object_set_new(rec, path,
				    json_pack("[b,s%]", 0, (const char *)n->data.scalar.value, n->data.scalar.length));
		return;
	}
	if (n->type == YAML_SEQUENCE_NODE && json_is_array(v)) {
		size_t i = 0;
		for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++, i++) {
			char idx[32];
			size_t l;
			snprintf(idx, sizeof idx, "%zu", i);
			if (!(l = kz_path_push(path, len, idx)))
				return;
			ystyles(text, d, yaml_document_get_node(d, *it), json_array_get(v, i), rec, flags, path, l, depth + 1);
			if (flags & YS_UINTS) {
				json_t *u = yuint(text, yaml_document_get_node(d, *it), json_array_get(v, i));
				if (u)
					json_array_set_new(v, i, u);
			}
			path[len] = '\0';
		}
		return;
	}
	if (n->type != YAML_MAPPING_NODE || !json_is_object(v))
		return;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(d, p->key);
		const char *key;
		size_t l = len;
		if (!k || k->type != YAML_SCALAR_NODE || ymerge_key(k))
			continue;
		key = (const char *)k->data.scalar.value;
		if (strlen(key) != k->data.scalar.length || !json_object_get(v, key))
			continue;
		if ((l = kz_path_push(path, len, key))) {
			yaml_node_t *vn = yaml_document_get_node(d, p->value);
			json_t *u;
			ystyles(text, d, vn, json_object_get(v, key), rec, flags, path, l, depth + 1);
			if ((flags & YS_UINTS) && (u = yuint(text, vn, json_object_get(v, key))))
				json_object_set_new(v, key, u);
		}
		path[len] = '\0';
	}
}

/* Sets obj's style record (KZ_TEXTS "styles", {} when nothing is quoted)
 * from the YAML text it was read from (flags YS_*). */
static void styles_record(json_t *obj, const char *text, int flags)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	json_t *rec, *t;
	char path[KZ_PATH_MAX] = "";
	if (!ydoc_load(text, &parser, &doc))
		return;
	rec = json_object();
	ystyles(text, &doc, yaml_document_get_root_node(&doc), obj, rec, flags, path, 0, 0);
	ydoc_free(&parser, &doc);
	if (!(t = json_object_get(obj, KZ_TEXTS)))
		json_object_set_new(obj, KZ_TEXTS, t = json_object());
	json_object_set_new(t, "styles", rec);
}

/* After a JSON patch kustomize makes the object's nodes again from JSON
 * (yaml.v3 writes it, kyaml reads it): a string is quoted where it cannot
 * be written plain. */
static void styles_from_json(json_t *obj)
{
	bh_buf out = BH_BUF_INIT;
	if (emit_one(obj, 0, &out, NULL) == 0 && bh_buf_ok(&out) && out.data)
		styles_record(obj, out.data, 0);
	bh_buf_free(&out);
}

/* A value of metadata.labels/annotations whose text another reader would
 * not print from its JSON value: parsed text has one (rewritten: obj was
 * read from the text rewrite_scalars made of it). */
static int texts_needed(const json_t *obj, const char *text, int rewritten)
{
	const json_t *md = json_object_get(obj, "metadata");
	if (rewritten || strstr(text, "binary"))
		return 1;
	for (int f = 0; text_fields[f]; f++) {
		const char *k;
		json_t *v;
		json_object_foreach((json_t *)json_object_get(md, text_fields[f]), k, v) if (!json_is_string(v) ||
											     !strncmp(json_string_value(v), KZ_UINT, strlen(KZ_UINT))) return 1;
	}
	return 0;
}

/* Records under KZ_TEXTS the texts of obj's labels and annotations that
 * its JSON values do not print, from the YAML text obj was read from (its
 * text before rewrite_scalars when rewritten). Nothing is recorded when
 * libyaml does not read the text. */
static void texts_record(json_t *obj, const char *text, int rewritten)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	const json_t *md = json_object_get(obj, "metadata");
	yaml_node_t *ymd;
	json_t *rec;
	if (!json_is_object(md) || !texts_needed(obj, text, rewritten) || !ydoc_load(text, &parser, &doc))
		return;
	ymd = ymap_get(&doc, yaml_document_get_root_node(&doc), "metadata");
	rec = json_object();
	for (int f = 0; rec && text_fields[f]; f++) {
		json_t *vals = json_object_get(md, text_fields[f]), *t = json_object(), *fr = json_object(), *v;
		const char *k;
		ymap_texts(&doc, ymap_get(&doc, ymd, text_fields[f]), t, 0);
		json_object_foreach(vals, k, v) {
			const char *tx = json_string_value(json_object_get(t, k));
			char buf[64];
			if (!tx || json_is_object(v) || json_is_array(v))
				continue;
			if (!json_is_string(v))
				scalar_as_text(v, buf, sizeof buf);
			if (strcmp(tx, json_is_string(v) ? json_string_value(v) : buf))
				json_object_set_new(fr, k, json_pack("[O,s]", v, tx));
		}
		if (json_object_size(fr))
			json_object_set(rec, text_fields[f], fr);
		json_decref(fr);
		json_decref(t);
	}
	if (json_object_size(rec) && json_object_get(obj, KZ_TEXTS))
		json_object_update(json_object_get(obj, KZ_TEXTS), rec);
	else if (json_object_size(rec))
		json_object_set(obj, KZ_TEXTS, rec);
	json_decref(rec);
	ydoc_free(&parser, &doc);
}

static int yaml_inf_nan(const char *v, size_t n)
{
	static const char *const forms[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
					    "-.Inf", "-.INF", ".nan", ".NaN", ".NAN", NULL};
	for (int i = 0; forms[i]; i++)
		if (strlen(forms[i]) == n && !memcmp(v, forms[i], n))
			return 1;
	return 0;
}

/* yaml.v3's parseTimestamp (2006-1-2T15:4:5.999999999Z07:00, the same
 * with 't' or ' ' and no zone, or 2006-1-2, as Go's time.Parse reads them):
 * 1 with the time as encoding/json writes it (RFC 3339, nanoseconds
 * trimmed) in out, which kustomize prints where it went through JSON; 2
 * for a time encoding/json refuses (a zone of 24 hours or more). */
static int v3_timestamp(const char *s, size_t n, char *out, size_t outn)
{
	int y, mo, d, h = 0, mi = 0, sec = 0, off = 0;
	long nsec = 0;
	size_t i;
	if (n < 8 || s[4] != '-')
		return 0;
	for (i = 0; i < 4; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
#define KZ_NUM(v)                                                                                       \
	do {                                                                                            \
		if (i >= n || s[i] < '0' || s[i] > '9')                                                 \
			return 0;                                                                       \
		v = s[i++] - '0';                                                                       \
		if (i < n && s[i] >= '0' && s[i] <= '9')                                                \
			v = v * 10 + (s[i++] - '0');                                                    \
	} while (0)
	i = 5;
	KZ_NUM(mo);
	if (i >= n || s[i++] != '-')
		return 0;
	KZ_NUM(d);
	if (i < n) {
		char sep = s[i++];
		if (sep != 'T' && sep != 't' && sep != ' ')
			return 0;
		KZ_NUM(h);
		if (i >= n || s[i++] != ':')
			return 0;
		KZ_NUM(mi);
		if (i >= n || s[i++] != ':')
			return 0;
		KZ_NUM(sec);
		if (i + 1 < n && (s[i] == '.' || s[i] == ',') && s[i + 1] >= '0' && s[i + 1] <= '9') {
			int digits = 0;
			for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
				if (digits++ < 9)
					nsec = nsec * 10 + (s[i] - '0');
			for (; digits < 9; digits++)
				nsec *= 10;
		}
		if (sep != ' ') { /* Z07:00 */
			if (i < n && s[i] == 'Z') {
				i++;
			} else {
				int oh, om;
				if (n - i < 6 || (s[i] != '+' && s[i] != '-') || s[i + 3] != ':')
					return 0;
				for (size_t k = 1; k < 6; k++)
					if (k != 3 && (s[i + k] < '0' || s[i + k] > '9'))
						return 0;
				oh = (s[i + 1] - '0') * 10 + (s[i + 2] - '0');
				om = (s[i + 4] - '0') * 10 + (s[i + 5] - '0');
				if (oh > 24 || om > 60)
					return 0;
				off = (s[i] == '-' ? -1 : 1) * (oh * 60 + om);
				i += 6;
			}
		}
	}
#undef KZ_NUM
	if (i != n || mo < 1 || mo > 12 || h > 23 || mi > 59 || sec > 59)
		return 0;
	if (off <= -24 * 60 || off >= 24 * 60)
		return 2;
	{
		static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
		int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
		if (d < 1 || d > mdays[mo - 1] + (mo == 2 && leap))
			return 0;
	}
	{
		char frac[24] = "", zone[16] = "Z";
		if (nsec) {
			snprintf(frac, sizeof frac, ".%09ld", nsec);
			for (size_t k = strlen(frac); frac[k - 1] == '0'; k--)
				frac[k - 1] = '\0';
		}
		if (off)
			snprintf(zone, sizeof zone, "%c%02d:%02d", off < 0 ? '-' : '+', abs(off) / 60 % 100, abs(off) % 60);
		snprintf(out, outn, "%04d-%02d-%02dT%02d:%02d:%02d%s%s", y, mo, d, h, mi, sec, frac, zone);
	}
	return 1;
}

/* Some "YYYY-" in text: a timestamp may be there. */
static int may_have_timestamp(const char *text)
{
	for (const char *p = strchr(text, '-'); p; p = strchr(p + 1, '-'))
		if (p - text >= 4 && p[-1] >= '0' && p[-1] <= '9' && p[-2] >= '0' && p[-2] <= '9' && p[-3] >= '0' &&
		    p[-3] <= '9' && p[-4] >= '0' && p[-4] <= '9')
			return 1;
	return 0;
}

/* A plain mapping key yaml.v3 reads as no string (null, a bool, a number,
 * a timestamp): kustomize's objects then hold a map[interface{}]interface{},
 * which encoding/json refuses. */
static int key_nonstring(const char *k, size_t n)
{
	static const char *const words[] = {"~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE",
					    NULL};
	char t[64];
	json_t *v = NULL;
	int r;
	for (int i = 0; words[i]; i++)
		if (strlen(words[i]) == n && !memcmp(k, words[i], n))
			return 1;
	if (v3_timestamp(k, n, t, sizeof t))
		return 1;
	if (!n || n > 400 || !strchr("0123456789+-.", k[0]) || strspn(k, "0123456789abcdefABCDEFxXoO_+-.nNiI") < n)
		return 0;
	if (yaml_parse_any(k, n, NULL, YAML_KEEP_INTS | YAML_V3_TYPING, &v, NULL) < 0)
		return 0;
	r = !json_is_string(v);
	json_decref(v);
	return r;
}

typedef struct scalar_edit {
	size_t s, e;
	char *rep;
} scalar_edit;

static int edit_cmp(const void *a, const void *b)
{
	const scalar_edit *x = a, *y = b;
	return x->s < y->s ? -1 : x->s > y->s;
}

/* Plain scalar node v of text to be written as the quoted string rep (when
 * its text is the scalar itself, or an anchor and the scalar: not a tag). 0,
 * or -1 when it is not. */
static int edit_add(scalar_edit **ed, size_t *n, size_t *cap, const char *text, const yaml_node_t *v, const char *rep)
{
	size_t s = v->start_mark.index, e = v->end_mark.index, len = v->data.scalar.length;
	if (e - s > len && text[s] == '&' && !memchr(text + s, '!', e - s - len))
		s = e - len; /* &anchor value */
	if (e - s != len || memcmp(text + s, v->data.scalar.value, len) ||
	    VEC_RESERVE(*ed, *cap, *n + 1, 8) < 0 || !((*ed)[*n].rep = malloc(strlen(rep) + 3)))
		return -1;
	sprintf((*ed)[*n].rep, "\"%s\"", rep);
	(*ed)[*n].s = s;
	(*ed)[*n].e = e;
	(*n)++;
	return 0;
}

/* Plain scalars that kustomize reads otherwise than our reader, written as
 * quoted strings: an annotation .inf or .nan is its text to kyaml (a JSON
 * reader refuses the number; *quoted, a new object, gets each such
 * annotation and its text), and in a document that is a map a timestamp
 * (a time of day only outside flow collections) goes out through JSON as
 * encoding/json writes a time.Time (2001-12-14 is "2001-12-14T00:00:00Z").
 * The new text, or NULL when nothing changed.
 * *badkey: a new string, why kustomize cannot write the document as JSON
 * (a map key key_nonstring, a time), or NULL. */
static char *rewrite_scalars(const char *text, json_t **quoted, json_t **badkey)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root, *an;
	bh_buf out = BH_BUF_INIT;
	scalar_edit *ed = NULL;
	size_t ned = 0, cap = 0, done = 0;
	int inf = strstr(text, ".inf") || strstr(text, ".Inf") || strstr(text, ".INF") || strstr(text, ".nan") ||
		  strstr(text, ".NaN") || strstr(text, ".NAN");
	int ts = may_have_timestamp(text);
	*quoted = NULL;
	*badkey = NULL;
	if (!ydoc_load(text, &parser, &doc))
		return NULL;
	root = yaml_document_get_root_node(&doc);
	an = ymap_get(&doc, ymap_get(&doc, root, "metadata"), "annotations");
	for (yaml_node_pair_t *p = inf && an && an->type == YAML_MAPPING_NODE ? an->data.mapping.pairs.start : NULL;
	     p && p < an->data.mapping.pairs.top; p++) {
		yaml_node_t *v = yaml_document_get_node(&doc, p->value), *k = yaml_document_get_node(&doc, p->key);
		if (!v || !k || k->type != YAML_SCALAR_NODE || v->type != YAML_SCALAR_NODE ||
		    v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
		    !yaml_inf_nan((const char *)v->data.scalar.value, v->data.scalar.length) ||
		    edit_add(&ed, &ned, &cap, text, v, (const char *)v->data.scalar.value) < 0)
			continue;
		if (!*quoted)
			*quoted = json_object();
		json_object_set_new(*quoted, (const char *)k->data.scalar.value,
				    json_stringn((const char *)v->data.scalar.value, v->data.scalar.length));
	}
	if (root && root->type == YAML_MAPPING_NODE) {
		size_t nn = (size_t)(doc.nodes.top - doc.nodes.start);
		char *iskey = calloc(nn + 1, 1), *inflow = calloc(nn + 1, 1);
		for (size_t id = 1; iskey && inflow && id <= nn; id++) {
			yaml_node_t *m = yaml_document_get_node(&doc, (int)id);
			for (yaml_node_item_t *it = m->type == YAML_SEQUENCE_NODE ? m->data.sequence.items.start : NULL;
			     it && it < m->data.sequence.items.top; it++)
				if (*it >= 1 && (size_t)*it <= nn)
					inflow[*it] = m->data.sequence.style == YAML_FLOW_SEQUENCE_STYLE;
			for (yaml_node_pair_t *p = m->type == YAML_MAPPING_NODE ? m->data.mapping.pairs.start : NULL;
			     p && p < m->data.mapping.pairs.top; p++) {
				yaml_node_t *k = yaml_document_get_node(&doc, p->key);
				if (p->key >= 1 && (size_t)p->key <= nn)
					iskey[p->key] = 1;
				if (p->value >= 1 && (size_t)p->value <= nn)
					inflow[p->value] = m->data.mapping.style == YAML_FLOW_MAPPING_STYLE;
				if (!*badkey && k && k->type == YAML_SCALAR_NODE &&
				    k->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ymerge_key(k) &&
				    key_nonstring((const char *)k->data.scalar.value, k->data.scalar.length))
					*badkey = json_sprintf("map key %s is no string to kustomize (yaml.v3 reads it as "
							       "another type): json: unsupported type: map[interface "
							       "{}]interface {}",
							       (const char *)k->data.scalar.value);
			}
		}
		for (size_t id = 1; ts && iskey && inflow && id <= nn; id++) {
			yaml_node_t *v = yaml_document_get_node(&doc, (int)id);
			char t[64];
			int r;
			if (iskey[id] || v->type != YAML_SCALAR_NODE || v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
			    !(r = v3_timestamp((const char *)v->data.scalar.value, v->data.scalar.length, t, sizeof t)))
				continue;
			/* a date is a time.Time to kustomize; a time of day only
			 * outside a flow collection ({...}, [...]) */
			if (inflow[id] && memchr(v->data.scalar.value, ':', v->data.scalar.length))
				continue;
			if (r == 1)
				edit_add(&ed, &ned, &cap, text, v, t);
			else if (!*badkey)
				*badkey = json_sprintf("%s: json: error calling MarshalJSON for type time.Time: "
						       "Time.MarshalJSON: timezone hour outside of range [0,23]",
						       (const char *)v->data.scalar.value);
		}
		free(iskey);
		free(inflow);
	}
	ydoc_free(&parser, &doc);
	if (ned)
		qsort(ed, ned, sizeof *ed, edit_cmp);
	for (size_t i = 0; i < ned; i++) {
		if (ed[i].s >= done) {
			bh_buf_put(&out, text + done, ed[i].s - done);
			bh_buf_puts(&out, ed[i].rep);
			done = ed[i].e;
		}
		free(ed[i].rep);
	}
	free(ed);
	if (done)
		bh_buf_puts(&out, text + done);
	if (!done || !bh_buf_ok(&out)) {
		bh_buf_free(&out);
		json_decref(*quoted);
		*quoted = NULL;
		return NULL;
	}
	return bh_buf_detach(&out);
}

/* rewrite_scalars on a document: *doc replaced when it changed, its first
 * text then in *orig (the caller frees it), else *orig NULL. */
static void doc_rewrite(char **doc, json_t **quoted, json_t **badkey, char **orig)
{
	char *q = rewrite_scalars(*doc, quoted, badkey);
	*orig = NULL;
	if (q) {
		*orig = *doc;
		*doc = q;
	}
}

/* Records in obj what rewrite_scalars found that kustomize cannot write
 * as JSON (an output or a JSON patch fails on them): the annotations it
 * quoted, the first map key that is no string. Takes quoted and badkey. */
static void texts_record_nonjson(json_t *obj, json_t *quoted, json_t *badkey)
{
	json_t *rec;
	if (!quoted && !badkey)
		return;
	if (!(rec = json_object_get(obj, KZ_TEXTS)))
		json_object_set_new(obj, KZ_TEXTS, rec = json_object());
	if (quoted)
		json_object_set_new(rec, "nonjson", quoted);
	if (badkey)
		json_object_set_new(rec, "badkey", badkey);
}

static int badkey_error(const char *key, bh_error *err)
{
	return bh_error_set(err, BH_EINVAL,
			    "map key %s is no string to kustomize (yaml.v3 reads it as another type): json: unsupported "
			    "type: map[interface {}]interface {}",
			    key);
}

/* kustomize's JSON patch first marshals the object to JSON: an annotation
 * still the .inf/.nan its YAML said is refused as encoding/json refuses it. */
static int json_patch_nonjson(const json_t *o, bh_error *err)
{
	const json_t *an = json_object_get(json_object_get(o, "metadata"), "annotations"), *t;
	const char *k;
	/* kustomize sets its previous-id annotations first (resmap.Select
	 * refused an odd list already) */
	if (json_is_array(an))
		return bh_error_set(err, BH_EINVAL,
				    "metadata.annotations is a list, not a map (kustomize v5.7.1 panics: wrong node kind: "
				    "expected MappingNode but got SequenceNode)");
	if ((t = json_object_get(json_object_get(o, KZ_TEXTS), "badkey")))
		return bh_error_set(err, BH_EINVAL, "%s", json_string_value(t));
	json_object_foreach((json_t *)texts_of(o, "nonjson"), k, t) {
		const char *v = json_string_value(json_object_get(an, k)), *tx = json_string_value(t);
		if (v && tx && !strcmp(v, tx))
			return bh_error_set(err, BH_EINVAL, "json: unsupported value: %s",
					    strchr("nN", tx[1]) ? "NaN" : tx[0] == '-' ? "-Inf" : "+Inf");
	}
	return 0;
}

/* The texts after a strategic merge of patch (texts prec) into an object
 * (texts orec): a label or annotation the patch names is the patch's. */
static json_t *texts_merge(const json_t *orec, const json_t *prec, const json_t *patch)
{
	/* each record, and the metadata field its keys are of */
	static const char *const recs[][2] = {
		{"labels", "labels"}, {"annotations", "annotations"}, {"nonjson", "annotations"}};
	json_t *out = json_object();
	const json_t *pmd = json_object_get(patch, "metadata");
	for (size_t f = 0; out && f < sizeof recs / sizeof recs[0]; f++) {
		json_t *m = json_deep_copy(json_object_get(orec, recs[f][0])), *v;
		const char *k;
		if (!m)
			m = json_object();
		json_object_foreach((json_t *)json_object_get(pmd, recs[f][1]), k, v) json_object_del(m, k);
		json_object_update(m, json_object_get(prec, recs[f][0]));
		if (json_object_size(m))
			json_object_set(out, recs[f][0], m);
		json_decref(m);
	}
	if (out) { /* a key the patch or the object brought */
		json_t *bk = json_object_get(prec, "badkey") ? json_object_get(prec, "badkey") : json_object_get(orec, "badkey");
		if (bk)
			json_object_set(out, "badkey", bk);
	}
	if (!json_object_size(out)) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/* kustomize keeps annotations (and a targeted patch's labels) as strings:
 * each value becomes the text kustomize reads (value_text). */
static void values_to_text(json_t *map, const json_t *rec)
{
	const char *k;
	json_t *v;
	if (!json_is_object(map))
		return;
	json_object_foreach(map, k, v) {
		char buf[64];
		const char *t;
		if (json_is_string(v) && !json_object_get(rec, k))
			continue;
		t = value_text(v, k, rec, buf, sizeof buf);
		json_object_set_new(map, k, json_string(t));
	}
}

/* ---- label selectors (k8s.io/apimachinery labels.Parse) ------------------------------- */

enum sel_op { OP_EQ, OP_NE, OP_IN, OP_NOTIN, OP_EXISTS, OP_NOTEXISTS };

typedef struct sel_req {
	char *key;
	enum sel_op op;
	char **vals;
	size_t nvals;
} sel_req;

typedef struct labelsel {
	sel_req *r;
	size_t n;
} labelsel;

static void labelsel_free(labelsel *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->r[i].key);
		for (size_t j = 0; j < l->r[i].nvals; j++)
			free(l->r[i].vals[j]);
		free(l->r[i].vals);
	}
	free(l->r);
	l->r = NULL;
	l->n = 0;
}

static void skip_ws(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

static char *word(const char **p)
{
	const char *s = *p;
	size_t n = 0;
	skip_ws(p);
	s = *p;
	while (s[n] && !strchr(" \t,()=!", s[n]))
		n++;
	*p = s + n;
	return n ? strndup(s, n) : NULL;
}

static int push_val(sel_req *r, char *v)
{
	char **nv = realloc(r->vals, (r->nvals + 1) * sizeof *nv);
	if (!nv || !v) {
		free(v);
		return -1;
	}
	r->vals = nv;
	r->vals[r->nvals++] = v;
	return 0;
}

/* k8s.io/apimachinery validation: ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
 * (empty allowed) */
static int qualified_part(const char *s)
{
	size_t n = strlen(s);
	if (!n)
		return 1;
	if (!isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
			return 0;
	return 1;
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)* */
static int dns1123_subdomain(const char *s)
{
	const char *p = s;
	for (;;) {
		size_t n = strcspn(p, ".");
		if (!n || !(islower((unsigned char)p[0]) || isdigit((unsigned char)p[0])) ||
		    !(islower((unsigned char)p[n - 1]) || isdigit((unsigned char)p[n - 1])))
			return 0;
		for (size_t i = 0; i < n; i++)
			if (!islower((unsigned char)p[i]) && !isdigit((unsigned char)p[i]) && p[i] != '-')
				return 0;
		if (!p[n])
			return 1;
		p += n + 1;
	}
}

#define KZ_NAME_RE_ERR                                                                                       \
	"must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric " \
	"character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "                 \
	"'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

/* labels.Parse's checks of a requirement's key (a qualified name) and
 * values (label values), worded as k8s.io/apimachinery words them. */
static int labelsel_req_check(const sel_req *r, bh_error *err)
{
	char msg[1024] = "";
	const char *slash = strchr(r->key, '/'), *name = slash ? slash + 1 : r->key;
#define KZ_ADD(...) snprintf(msg + strlen(msg), sizeof msg - strlen(msg), __VA_ARGS__)
	if (slash && strchr(slash + 1, '/')) {
		KZ_ADD("a qualified name " KZ_NAME_RE_ERR " with an optional DNS subdomain prefix and '/' (e.g. "
		       "'example.com/MyName')");
	} else {
		if (slash && slash == r->key)
			KZ_ADD("prefix part must be non-empty");
		else if (slash) {
			char prefix[512];
			snprintf(prefix, sizeof prefix, "%.*s", (int)(slash - r->key), r->key);
			if (slash - r->key > 253)
				KZ_ADD("prefix part must be no more than 253 characters");
			if (!dns1123_subdomain(prefix))
				KZ_ADD("%sprefix part a DNS-1123 subdomain must consist of lower case alphanumeric "
				       "characters, '-' or '.', and must start and end with an alphanumeric character "
				       "(e.g. 'example.com', regex used for validation is "
				       "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
				       *msg ? "; " : "");
		}
		if (!*name)
			KZ_ADD("%sname part must be non-empty", *msg ? "; " : "");
		else if (strlen(name) > 63)
			KZ_ADD("%sname part must be no more than 63 characters", *msg ? "; " : "");
		if (!*name || !qualified_part(name))
			KZ_ADD("%sname part " KZ_NAME_RE_ERR, *msg ? "; " : "");
	}
	if (*msg)
		return bh_error_set(err, BH_EINVAL, "unable to parse requirement: invalid label key \"%s\": %s", r->key,
				    msg);
	for (size_t i = 0; i < r->nvals; i++) {
		const char *v = r->vals[i];
		if (strlen(v) > 63)
			KZ_ADD("must be no more than 63 characters");
		if (!qualified_part(v))
			KZ_ADD("%sa valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
			       "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
			       "'my_value',  or '12345', regex used for validation is "
			       "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
			       *msg ? "; " : "");
		if (*msg)
			return bh_error_set(err, BH_EINVAL,
					    "unable to parse requirement: invalid label value: \"%s\": at key: \"%s\": %s", v,
					    r->key, msg);
	}
#undef KZ_ADD
	return 0;
}

static int labelsel_parse(const char *s, labelsel *l, const char *what, bh_error *err)
{
	const char *p = s;
	memset(l, 0, sizeof *l);
	skip_ws(&p);
	while (*p) {
		sel_req r;
		sel_req *nr;
		memset(&r, 0, sizeof r);
		skip_ws(&p);
		if (*p == '!') {
			p++;
			r.op = OP_NOTEXISTS;
			if (!(r.key = word(&p)))
				goto bad;
		} else {
			if (!(r.key = word(&p)))
				goto bad;
			skip_ws(&p);
			if (p[0] == '=' && p[1] == '=') {
				p += 2;
				r.op = OP_EQ;
			} else if (p[0] == '=') {
				p++;
				r.op = OP_EQ;
			} else if (p[0] == '!' && p[1] == '=') {
				p += 2;
				r.op = OP_NE;
			} else if (!strncmp(p, "in", 2) && (p[2] == ' ' || p[2] == '(')) {
				p += 2;
				r.op = OP_IN;
			} else if (!strncmp(p, "notin", 5) && (p[5] == ' ' || p[5] == '(')) {
				p += 5;
				r.op = OP_NOTIN;
			} else {
				r.op = OP_EXISTS;
			}
			if (r.op == OP_EQ || r.op == OP_NE) {
				char *v = word(&p);
				if (push_val(&r, v ? v : strdup("")) < 0)
					goto bad;
			} else if (r.op == OP_IN || r.op == OP_NOTIN) {
				skip_ws(&p);
				if (*p != '(')
					goto bad;
				p++;
				for (;;) {
					char *v = word(&p);
					if (push_val(&r, v ? v : strdup("")) < 0)
						goto bad;
					skip_ws(&p);
					if (*p == ',') {
						p++;
						continue;
					}
					if (*p != ')')
						goto bad;
					p++;
					break;
				}
			}
		}
		if (labelsel_req_check(&r, err) < 0)
			goto invalid;
		nr = realloc(l->r, (l->n + 1) * sizeof *nr);
		if (!nr)
			goto bad;
		l->r = nr;
		l->r[l->n++] = r;
		skip_ws(&p);
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p)
			goto bad_nofree;
		continue;
	bad:
		free(r.key);
		for (size_t j = 0; j < r.nvals; j++)
			free(r.vals[j]);
		free(r.vals);
	bad_nofree:
		labelsel_free(l);
		return bh_error_set(err, BH_EINVAL, "invalid %s %s: cannot parse near %.40s", what, s, p);
	invalid:
		free(r.key);
		for (size_t j = 0; j < r.nvals; j++)
			free(r.vals[j]);
		free(r.vals);
		labelsel_free(l);
		return err ? err->code : BH_EINVAL;
	}
	return 0;
}

/* labels (or annotations) as kustomize reads them: their texts (rec, the
 * object's KZ_TEXTS record for them) */
static int labelsel_match(const labelsel *l, const json_t *labels, const json_t *rec)
{
	for (size_t i = 0; i < l->n; i++) {
		const sel_req *r = &l->r[i];
		char buf[64];
		const char *v = value_text(json_object_get(labels, r->key), r->key, rec, buf, sizeof buf);
		int in = 0;
		for (size_t j = 0; v && j < r->nvals; j++)
			in |= !strcmp(v, r->vals[j]);
		switch (r->op) {
		case OP_EQ:
		case OP_IN:
			if (!in)
				return 0;
			break;
		case OP_NE:
		case OP_NOTIN:
			if (in)
				return 0;
			break;
		case OP_EXISTS:
			if (!v)
				return 0;
			break;
		case OP_NOTEXISTS:
			if (v)
				return 0;
			break;
		}
	}
	return 1;
}

/* ---- selectors ------------------------------------------------------------------------ */

enum { SEL_GROUP, SEL_VERSION, SEL_KIND, SEL_NAME, SEL_NAMESPACE, SEL_N };
static const char *const sel_fields[SEL_N] = {"group", "version", "kind", "name", "namespace"};

struct kz_selector {
	pcre2_code *re[SEL_N]; /* NULL = any */
	labelsel labels, annotations;
	int has_labels, has_annotations;
};

static pcre2_code *re_compile(const char *pattern, int anchor, bh_error *err)
{
	char *full = malloc(strlen(pattern) + 16);
	int ec;
	PCRE2_SIZE off;
	pcre2_code *re;
	if (!full) {
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	sprintf(full, anchor ? "^(?:%s)$" : "%s", pattern);
	re = pcre2_compile((PCRE2_SPTR)full, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_DOLLAR_ENDONLY, &ec, &off, NULL);
	free(full);
	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(ec, msg, sizeof msg);
		bh_error_set(err, BH_EINVAL, "invalid regular expression %s: %s", pattern, (char *)msg);
	}
	return re;
}

static int re_match(const pcre2_code *re, const char *s)
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	int rc;
	if (!md)
		return 0;
	rc = pcre2_match(re, (PCRE2_SPTR)s, strlen(s), 0, 0, md, NULL);
	pcre2_match_data_free(md);
	return rc >= 0;
}

void kz_selector_free(kz_selector *s)
{
	if (!s)
		return;
	for (int i = 0; i < SEL_N; i++)
		pcre2_code_free(s->re[i]);
	labelsel_free(&s->labels);
	labelsel_free(&s->annotations);
	free(s);
}

static int check_fields(const json_t *o, const char *const *known, const char *what, bh_error *err)
{
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)o, k, v) {
		int ok = 0;
		for (size_t i = 0; known[i] && !ok; i++)
			ok = !strcmp(k, known[i]);
		if (!ok)
			return bh_error_set(err, BH_EINVAL, "%s: unknown field \"%s\"", what, k);
	}
	return 0;
}

static int want_string(const json_t *o, const char *k, const char *what, const char **out, bh_error *err)
{
	json_t *v = json_object_get(o, k);
	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return bh_error_set(err, BH_EINVAL, "%s.%s: must be a string", what, k);
	*out = json_string_value(v);
	return 0;
}

int kz_selector_decode(const json_t *t, kz_selector **out, bh_error *err)
{
	static const char *const known[] = {"group", "version", "kind", "name", "namespace",
					    "labelSelector", "annotationSelector", NULL};
	kz_selector *s;
	const char *v;
	*out = NULL;
	if (!json_is_object(t))
		return bh_error_set(err, BH_EINVAL, "target: must be an object");
	if (check_fields(t, known, "target", err) < 0)
		return BH_EINVAL;
	if (!(s = calloc(1, sizeof *s)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	for (int i = 0; i < SEL_N; i++) {
		if (want_string(t, sel_fields[i], "target", &v, err) < 0)
			goto fail;
		if (v && *v && !(s->re[i] = re_compile(v, 1, err))) {
			bh_error_prefix(err, "target.%s", sel_fields[i]);
			goto fail;
		}
	}
	if (want_string(t, "labelSelector", "target", &v, err) < 0)
		goto fail;
	if (v && *v) {
		if (labelsel_parse(v, &s->labels, "labelSelector", err) < 0)
			goto fail;
		s->has_labels = 1;
	}
	if (want_string(t, "annotationSelector", "target", &v, err) < 0)
		goto fail;
	if (v && *v) {
		if (labelsel_parse(v, &s->annotations, "annotationSelector", err) < 0)
			goto fail;
		s->has_annotations = 1;
	}
	*out = s;
	return 0;
fail:
	kz_selector_free(s);
	return err ? err->code : BH_EINVAL;
}

const char *kz_sget(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

/* ResId.EffectiveNamespace: "default" for a namespaced object without one. */
static const char *effective_namespace(const json_t *obj)
{
	const json_t *md = json_object_get(obj, "metadata");
	const char *ns = kz_sget(md, "namespace");
	if (kz_schema_cluster_scoped(kz_sget(obj, "apiVersion"), kz_sget(obj, "kind")))
		return "_non_namespaceable_";
	return *ns ? ns : "default";
}

/* kz_selector_match's group/version/kind/name/namespace part */
/* The annotations kustomize keeps on a resource while it builds, and
 * takes off every resource at the end (a chart's own ones too). A JSON
 * patch sees the build annotations (the previous kind, name and namespace
 * are set on every resource), so an "add" under /metadata/annotations
 * finds the map even when the chart made none. */
static const char *const build_annotations[] = {
	"internal.config.kubernetes.io/previousKinds", "internal.config.kubernetes.io/previousNames",
	"internal.config.kubernetes.io/previousNamespaces", "config.k8s.io/id", "config.kubernetes.io/index",
	"config.kubernetes.io/path", "internal.config.kubernetes.io/annotations-migration-resource-id",
	"internal.config.kubernetes.io/generatorBehavior", "internal.config.kubernetes.io/id",
	"internal.config.kubernetes.io/index", "internal.config.kubernetes.io/needsHashSuffix",
	"internal.config.kubernetes.io/path", "internal.config.kubernetes.io/prefixes",
	"internal.config.kubernetes.io/refBy", "internal.config.kubernetes.io/seqindent",
	"internal.config.kubernetes.io/suffixes", NULL};

static int selector_ids_match(const kz_selector *s, const json_t *obj)
{
	const char *av = kz_sget(obj, "apiVersion"), *slash = strchr(av, '/');
	const json_t *md = json_object_get(obj, "metadata");
	char group[256];
	const char *vals[SEL_N];
	snprintf(group, sizeof group, "%.*s", slash ? (int)(slash - av) : 0, av);
	vals[SEL_GROUP] = group;
	vals[SEL_VERSION] = slash ? slash + 1 : av;
	vals[SEL_KIND] = kz_sget(obj, "kind");
	vals[SEL_NAME] = kz_sget(md, "name");
	vals[SEL_NAMESPACE] = effective_namespace(obj);
	for (int i = 0; i < SEL_N; i++) {
		const json_t *an = json_object_get(md, "annotations");
		/* resmap.Select: a name or namespace also matches as the object's
		 * original one (its first previous id, after a JSON patch) */
		const char *prev = i == SEL_NAME		? json_string_value(json_object_get(an, build_annotations[1]))
				   : i == SEL_NAMESPACE ? json_string_value(json_object_get(an, build_annotations[2]))
							: NULL;
		char org[512];
		if (!s->re[i] || re_match(s->re[i], vals[i]))
			continue;
		if (!prev || !json_is_object(an))
			return 0;
		snprintf(org, sizeof org, "%.*s", (int)strcspn(prev, ","), prev);
		if (!re_match(s->re[i], org))
			return 0;
	}
	return 1;
}

int kz_selector_match(const kz_selector *s, const json_t *obj)
{
	const json_t *md = json_object_get(obj, "metadata");
	if (!selector_ids_match(s, obj))
		return 0;
	if (s->has_labels && !labelsel_match(&s->labels, json_object_get(md, "labels"), texts_of(obj, "labels")))
		return 0;
	if (s->has_annotations && !labelsel_match(&s->annotations, json_object_get(md, "annotations"),
							       texts_of(obj, "annotations")))
		return 0;
	return 1;
}

/* ---- decoding ------------------------------------------------------------------------ */

typedef struct kz_patch {
	json_t *smp;  /* array of strategic merge patch documents, or NULL */
	json_t *json; /* JSON 6902 operations, or NULL */
	kz_selector *target;
} kz_patch;

typedef struct kz_image {
	char *name, *new_name, *new_tag, *digest;
	pcre2_code *re; /* kustomize's IsImageMatched pattern; NULL never matches */
} kz_image;

struct kustomization {
	kz_patch *patches;
	size_t npatches;
	kz_image *images;
	size_t nimages;
};

void kustomization_free(kustomization *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->npatches; i++) {
		json_decref(k->patches[i].smp);
		json_decref(k->patches[i].json);
		kz_selector_free(k->patches[i].target);
	}
	for (size_t i = 0; i < k->nimages; i++) {
		free(k->images[i].name);
		free(k->images[i].new_name);
		free(k->images[i].new_tag);
		free(k->images[i].digest);
		pcre2_code_free(k->images[i].re);
	}
	free(k->patches);
	free(k->images);
	free(k);
}

/* What may follow "---" on a separator line, as k8s.io's YAMLReader allows:
 * blanks, then nothing or a comment ("---# note" separates, as helm and
 * kubectl read it; cert-manager's rbac.yaml has one). */
static int is_separator_rest(const char *q)
{
	while (*q == ' ' || *q == '\t' || *q == '\r')
		q++;
	return *q == '\0' || *q == '\n' || *q == '#';
}

/* Documents split at "---" lines (k8s.io YAMLReader), kept whole: a block
 * scalar at the end of a document keeps its final newline. */
static int split_docs(const char *text, char ***docs, size_t *n)
{
	const char *p = text, *start = text;
	size_t cap = 0;
	*docs = NULL;
	*n = 0;
	for (;;) {
		const char *eol = strchr(p, '\n');
		int sep = !strncmp(p, "---", 3) && is_separator_rest(p + 3);
		if (sep || !*p) {
			if (VEC_RESERVE(*docs, cap, *n + 1, 8) < 0)
				return -1;
			if (!((*docs)[(*n)++] = strndup(start, (size_t)(p - start))))
				return -1;
			if (!*p)
				return 0;
			start = eol ? eol + 1 : p + strlen(p);
		}
		if (!eol)
			p += strlen(p);
		else
			p = eol + 1;
		if (!*p && start == p) {
			return 0;
		}
	}
}

static void docs_free(char **docs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(docs[i]);
	free(docs);
}

/* The patch text: every document a map -> strategic merge; one list ->
 * JSON 6902 (kustomize's PatchTransformer.Config). */
static int patch_parse(const char *text, kz_patch *p, bh_error *err)
{
	char **docs = NULL;
	size_t n = 0;
	int rc = 0;
	yaml_limits lim = {KZ_MAX_PATCH_BYTES, KZ_MAX_DEPTH, 100000};
	size_t tl = strlen(text);
	while (tl && strchr(" \t\r\n", text[tl - 1]))
		tl--;
	if (!tl)
		return bh_error_set(err, BH_EINVAL, "must specify one of patch and path");
	if (tl > KZ_MAX_PATCH_BYTES)
		return bh_error_set(err, BH_ELIMIT, "patch longer than %d bytes", KZ_MAX_PATCH_BYTES);
	if (text[strspn(text, " \t\r\n")] == '[') { /* jsonPatchFromBytes (trimmed): JSON, not YAML */
		json_error_t je;
		json_t *j = json_loads(text, JSON_DECODE_ANY, &je);
		int ok = json_is_array(j);
		json_decref(j);
		if (!ok)
			return bh_error_set(err, BH_EINVAL, "unable to parse SM or JSON patch: not JSON: %s (line %d)",
					    je.text, je.line);
	}
	if (split_docs(text, &docs, &n) < 0) {
		docs_free(docs, n);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		json_t *d = NULL, *quoted = NULL, *badkey = NULL;
		char *orig;
		doc_rewrite(&docs[i], &quoted, &badkey, &orig);
		/* kyaml reads strategic merge patches (yaml.v3 typing); a JSON
		 * patch goes through sigs.k8s.io/yaml (goyaml.v2 typing) */
		rc = yaml_parse_any(docs[i], strlen(docs[i]), &lim, YAML_KEEP_INTS | YAML_V3_TYPING, &d, err);
		if (rc == 0 && json_is_array(d)) {
			json_decref(d);
			d = NULL;
			rc = yaml_parse_any(docs[i], strlen(docs[i]), &lim, YAML_KEEP_INTS, &d, err);
		}
		if (rc < 0 || !json_is_object(d) || p->json) {
			json_decref(quoted); /* set for a map only */
			json_decref(badkey);
			quoted = badkey = NULL;
			free(orig);
			orig = NULL;
		}
		if (rc < 0)
			break;
		if (json_is_null(d)) {
			json_decref(d);
			continue;
		}
		if (json_is_array(d)) {
			if (p->json || p->smp) {
				json_decref(d);
				rc = bh_error_set(err, BH_EINVAL, "unable to parse SM or JSON patch");
				break;
			}
			p->json = d;
			continue;
		}
		if (!json_is_object(d) || p->json) {
			json_decref(d);
			rc = bh_error_set(err, BH_EINVAL, "unable to parse SM or JSON patch");
			break;
		}
		if (!p->smp)
			p->smp = json_array();
		styles_record(d, orig ? orig : docs[i], YS_PATCH | YS_UINTS);
		texts_record(d, orig ? orig : docs[i], orig != NULL);
		free(orig);
		texts_record_nonjson(d, quoted, badkey);
		json_array_append_new(p->smp, d);
	}
	docs_free(docs, n);
	if (rc == 0 && !p->smp && !p->json)
		rc = bh_error_set(err, BH_EINVAL, "unable to parse SM or JSON patch");
	if (rc == 0 && p->json) {
		/* a list of operations (each an object; what they hold is
		 * checked as the library applies them: "Unexpected kind") */
		size_t i;
		json_t *op;
		json_array_foreach(p->json, i, op) if (!json_is_object(op))
			return bh_error_set(err, BH_EINVAL, "unable to parse SM or JSON patch: operation %zu is not a map", i);
	}
	return rc;
}

static char *dup_opt(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s && *s ? strdup(s) : NULL;
}

static int image_decode(const json_t *o, kz_image *im, size_t i, bh_error *err)
{
	static const char *const known[] = {"name", "newName", "newTag", "digest", NULL};
	char what[32];
	const char *dummy;
	snprintf(what, sizeof what, "images[%zu]", i);
	if (!json_is_object(o))
		return bh_error_set(err, BH_EINVAL, "%s: must be an object", what);
	if (check_fields(o, known, what, err) < 0)
		return BH_EINVAL;
	for (size_t f = 0; known[f]; f++)
		if (want_string(o, known[f], what, &dummy, err) < 0)
			return BH_EINVAL;
	im->name = dup_opt(o, "name");
	im->new_name = dup_opt(o, "newName");
	im->new_tag = dup_opt(o, "newTag");
	im->digest = dup_opt(o, "digest");
	if (!im->name)
		return bh_error_set(err, BH_EINVAL, "%s: name is required", what);
	{
		char *pat = malloc(strlen(im->name) + 80);
		if (!pat)
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		sprintf(pat, "^%s(:[a-zA-Z0-9_.{}-]*)?(@sha256:[a-zA-Z0-9_.{}-]*)?$", im->name);
		im->re = re_compile(pat, 0, NULL); /* Go ignores a bad pattern: nothing matches */
		free(pat);
	}
	return 0;
}

int kustomization_decode(const json_t *spec, kustomization **out, bh_error *err)
{
	static const char *const known[] = {"patches", "images", NULL};
	static const char *const pknown[] = {"patch", "target", NULL};
	const json_t *patches = json_object_get(spec, "patches"), *images = json_object_get(spec, "images");
	kustomization *k;
	size_t i;
	json_t *v;
	*out = NULL;
	if (!json_is_object(spec))
		return bh_error_set(err, BH_EINVAL, "kustomize: must be an object");
	if (check_fields(spec, known, "kustomize", err) < 0)
		return BH_EINVAL;
	if ((patches && !json_is_array(patches) && !json_is_null(patches)) ||
	    (images && !json_is_array(images) && !json_is_null(images)))
		return bh_error_set(err, BH_EINVAL, "kustomize: patches and images must be lists");
	if (json_array_size(patches) > KZ_MAX_PATCHES || json_array_size(images) > KZ_MAX_IMAGES)
		return bh_error_set(err, BH_ELIMIT, "kustomize: more than %d patches or images", KZ_MAX_PATCHES);
	if (!(k = calloc(1, sizeof *k)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	k->patches = calloc(json_array_size(patches) + 1, sizeof *k->patches);
	k->images = calloc(json_array_size(images) + 1, sizeof *k->images);
	if (!k->patches || !k->images) {
		kustomization_free(k);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	json_array_foreach(patches, i, v) {
		kz_patch *p = &k->patches[k->npatches++];
		const char *text;
		if (!json_is_object(v) || check_fields(v, pknown, "patches[]", err) < 0 ||
		    want_string(v, "patch", "patches[]", &text, err) < 0) {
			if (!json_is_object(v))
				bh_error_set(err, BH_EINVAL, "must be an object");
			goto fail_patch;
		}
		if (patch_parse(text ? text : "", p, err) < 0)
			goto fail_patch;
		if (json_object_get(v, "target") && !json_is_null(json_object_get(v, "target")) &&
		    kz_selector_decode(json_object_get(v, "target"), &p->target, err) < 0)
			goto fail_patch;
		if (p->json && !p->target) {
			bh_error_set(err, BH_EINVAL, "must specify a target for JSON patch");
			goto fail_patch;
		}
		if (p->smp && p->target && json_array_size(p->smp) > 1) {
			bh_error_set(err, BH_EINVAL,
				     "Multiple Strategic-Merge Patches in one `patches` entry is not allowed to set `patches.target` field");
			goto fail_patch;
		}
		continue;
	fail_patch:
		bh_error_prefix(err, "kustomize.patches[%zu]", i);
		kustomization_free(k);
		return err ? err->code : BH_EINVAL;
	}
	json_array_foreach(images, i, v) {
		if (image_decode(v, &k->images[k->nimages++], i, err) < 0) {
			bh_error_prefix(err, "kustomize");
			kustomization_free(k);
			return err ? err->code : BH_EINVAL;
		}
	}
	*out = k;
	return 0;
}

/* ---- objects ------------------------------------------------------------------------- */

static int objects_parse(const char *text, int keep_texts, json_t **objs, bh_error *err)
{
	char **docs = NULL;
	size_t n = 0;
	int rc = 0;
	json_t *a = json_array();
	*objs = NULL;
	if (!a || split_docs(text, &docs, &n) < 0) {
		docs_free(docs, n);
		json_decref(a);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		json_t *d = NULL, *quoted = NULL, *badkey = NULL;
		char *orig = NULL;
		if (keep_texts == 1)
			doc_rewrite(&docs[i], &quoted, &badkey, &orig);
		if ((rc = yaml_parse_any(docs[i], strlen(docs[i]), NULL, YAML_KEEP_INTS | YAML_V3_TYPING, &d, err)) < 0) {
			json_decref(quoted);
			json_decref(badkey);
			free(orig);
			bh_error_prefix(err, "document %zu", i + 1);
			break;
		}
		if (!json_is_object(d)) {
			json_decref(quoted);
			json_decref(badkey);
			free(orig);
			if (json_is_null(d)) {
				json_decref(d);
				continue;
			}
			json_decref(d);
			rc = bh_error_set(err, BH_EINVAL, "document %zu: not a map", i + 1);
			break;
		}
		if (keep_texts == 1) {
			styles_record(d, orig ? orig : docs[i], YS_UINTS);
			texts_record(d, orig ? orig : docs[i], orig != NULL);
			texts_record_nonjson(d, quoted, badkey);
		} else if (keep_texts == 2) { /* the integers above int64 only */
			styles_record(d, docs[i], YS_UINTS);
			json_object_del(d, KZ_TEXTS);
		}
		free(orig);
		json_array_append_new(a, d);
	}
	docs_free(docs, n);
	if (rc < 0) {
		json_decref(a);
		return rc;
	}
	*objs = a;
	return 0;
}

int kz_objects_parse(const char *text, json_t **objs, bh_error *err)
{
	return objects_parse(text, 0, objs, err);
}

int kz_objects_parse_texts(const char *text, json_t **objs, bh_error *err)
{
	return objects_parse(text, 1, objs, err);
}

int kz_objects_parse_exact(const char *text, json_t **objs, bh_error *err)
{
	return objects_parse(text, 2, objs, err);
}

/* sigs.k8s.io/yaml's Marshal of o (unfolded: no line folded), with each
 * KZ_UINT written as its digits. */
static int emit_one(const json_t *o, int unfolded, bh_buf *out, bh_error *err)
{
	bh_buf js = BH_BUF_INIT;
	int rc = gojson_encode(o, 0, &js, err);
	const char *u;
	if (rc) {
		bh_buf_free(&js);
		return bh_error_prefix(err, "error marshaling into JSON");
	}
	if (js.data && (u = strstr(bh_buf_str(&js), KZ_UINT_JSON))) {
		bh_buf t = BH_BUF_INIT;
		const char *p = bh_buf_str(&js);
		do {
			const char *d = u + strlen(KZ_UINT_JSON), *e = d + strspn(d, "0123456789");
			bh_buf_put(&t, p, (size_t)(u - p));
			bh_buf_put(&t, d, (size_t)(e - d));
			p = *e == '"' ? e + 1 : e;
		} while ((u = strstr(p, KZ_UINT_JSON)));
		bh_buf_puts(&t, p);
		bh_buf_free(&js);
		js = t;
		if (!bh_buf_ok(&js)) {
			bh_buf_free(&js);
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		}
	}
	rc = (unfolded ? yaml_emit_json_text_unfolded : yaml_emit_json_text)(bh_buf_str(&js), js.len, out, err);
	bh_buf_free(&js);
	return rc;
}

static int emit_objects(const json_t *objs, int unfolded, bh_buf *out, bh_error *err)
{
	size_t i;
	json_t *o;
	json_array_foreach(objs, i, o) {
		if (i)
			bh_buf_puts(out, "---\n");
		if (emit_one(o, unfolded, out, err) < 0)
			return err ? err->code : BH_EINVAL;
	}
	return bh_buf_ok(out) ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory");
}

int kz_objects_emit(const json_t *objs, bh_buf *out, bh_error *err)
{
	return emit_objects(objs, 0, out, err);
}

int kz_objects_emit_unfolded(const json_t *objs, bh_buf *out, bh_error *err)
{
	return emit_objects(objs, 1, out, err);
}

/* ---- applying ------------------------------------------------------------------------ */

static void obj_id(const json_t *o, char *buf, size_t n)
{
	const json_t *md = json_object_get(o, "metadata");
	snprintf(buf, n, "%s/%s %s/%s", kz_sget(o, "apiVersion"), kz_sget(o, "kind"), effective_namespace(o),
		 kz_sget(md, "name"));
}

static int apply_smp_one(json_t *objs, size_t i, const json_t *patch, bh_error *err)
{
	json_t *obj = json_array_get(objs, i), *p, *r = NULL, *orec, *prec, *styles = NULL;
	int rc;
	if (!(p = json_deep_copy(patch)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	/* resmap.ApplySmPatch: the patch takes the object's apiVersion */
	if (json_object_get(obj, "apiVersion"))
		json_object_set(p, "apiVersion", json_object_get(obj, "apiVersion"));
	orec = json_incref(json_object_get(obj, KZ_TEXTS));
	prec = json_incref(json_object_get(p, KZ_TEXTS));
	json_object_del(obj, KZ_TEXTS);
	json_object_del(p, KZ_TEXTS);
	rc = kz_smp_apply(obj, json_object_get(orec, "styles"), p, json_object_get(prec, "styles"), &r, &styles, err);
	if (r) {
		json_t *rec = texts_merge(orec, prec, p);
		if (json_object_size(styles)) {
			if (!rec)
				rec = json_object();
			json_object_set(rec, "styles", styles);
		}
		if (rec)
			json_object_set_new(r, KZ_TEXTS, rec);
	}
	json_decref(styles);
	json_decref(p);
	json_decref(orec);
	json_decref(prec);
	if (rc < 0) {
		char id[512];
		json_decref(r);
		obj_id(obj, id, sizeof id);
		return bh_error_prefix(err, "%s", id);
	}
	if (r)
		json_array_set_new(objs, i, r);
	else
		json_array_set_new(objs, i, json_null()); /* removed after the patch */
	return 0;
}

static void drop_removed(json_t *objs)
{
	for (size_t i = 0; i < json_array_size(objs);)
		if (json_is_null(json_array_get(objs, i)))
			json_array_remove(objs, i);
		else
			i++;
}

static int same_id(const json_t *a, const json_t *b)
{
	return !strcmp(kz_sget(a, "apiVersion"), kz_sget(b, "apiVersion")) && !strcmp(kz_sget(a, "kind"), kz_sget(b, "kind")) &&
	       !strcmp(kz_sget(json_object_get(a, "metadata"), "name"), kz_sget(json_object_get(b, "metadata"), "name")) &&
	       !strcmp(effective_namespace(a), effective_namespace(b));
}


/* kustomize's JSON patch reads the object back with encoding/json into
 * interface{} values: every number is a float64 (a KZ_UINT too, before). */
static json_t *as_float(const json_t *x)
{
	const char *s = json_string_value(x);
	if (s && !strncmp(s, KZ_UINT, strlen(KZ_UINT)))
		return json_real(strtod(s + strlen(KZ_UINT), NULL));
	if (json_is_integer(x) && (json_integer_value(x) > (1LL << 53) || json_integer_value(x) < -(1LL << 53)))
		return json_real((double)json_integer_value(x));
	return NULL;
}

static void numbers_to_float(json_t *v, int depth)
{
	const char *k;
	json_t *x, *f;
	size_t i;
	void *tmp;
	if (depth > KZ_MAX_DEPTH + 8)
		return;
	json_object_foreach_safe(v, tmp, k, x) {
		if ((f = as_float(x)))
			json_object_set_new(v, k, f);
		else
			numbers_to_float(x, depth + 1);
	}
	json_array_foreach(v, i, x) {
		if ((f = as_float(x)))
			json_array_set_new(v, i, f);
		else
			numbers_to_float(x, depth + 1);
	}
}

/* PatchTransformer.transformJson6902 after the patch: the annotations are
 * set again from kyaml's GetAnnotations of the result, so they are the
 * texts of their values (a map or list ""), a list's elements are read in
 * pairs (key, value), anything else is none; a key "" leaves none. */
static int annotations_after_json_patch(json_t *o, bh_error *err)
{
	json_t *md = json_object_get(o, "metadata"), *an, *m, *v;
	const char *k;
	size_t i;
	char kb[64], vb[64];
	if (!json_is_object(md) || !(an = json_object_get(md, "annotations")))
		return 0;
	if (json_is_array(an) && json_array_size(an) % 2)
		return bh_error_set(err, BH_EINVAL,
				    "metadata.annotations is a list of %zu elements: runtime error: index out of range "
				    "[%zu] with length %zu (kustomize v5.7.1 panics reading its pairs)",
				    json_array_size(an), json_array_size(an), json_array_size(an));
	if (!(m = json_object()))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	json_object_foreach(an, k, v) json_object_set_new(m, k, json_string(value_text(v, k, NULL, vb, sizeof vb)));
	for (i = 0; json_is_array(an) && i + 1 < json_array_size(an); i += 2)
		json_object_set_new(m, value_text(json_array_get(an, i), "", NULL, kb, sizeof kb),
				    json_string(value_text(json_array_get(an, i + 1), "", NULL, vb, sizeof vb)));
	/* SetAnnotations sets the keys in order: "" replaces the map with a
	 * string, on which the next key fails (the error is dropped) */
	if (json_object_get(m, ""))
		json_object_clear(m);
	json_object_set_new(md, "annotations", m);
	return 0;
}

static void build_annotations_add(json_t *o)
{
	json_t *md = json_object_get(o, "metadata"), *an;
	const char *vals[3];
	if (!json_is_object(md))
		return;
	an = json_object_get(md, "annotations");
	if (!an || json_is_null(an))
		json_object_set_new(md, "annotations", an = json_object());
	if (!json_is_object(an))
		return;
	vals[0] = kz_sget(o, "kind");
	vals[1] = kz_sget(md, "name");
	vals[2] = effective_namespace(o);
	for (int i = 0; i < 3; i++) { /* appendCsvAnnotation: after the ids of earlier patches */
		const char *cur = json_string_value(json_object_get(an, build_annotations[i]));
		if (!*vals[i])
			continue;
		json_object_set_new(an, build_annotations[i],
				    cur ? json_sprintf("%s,%s", cur, vals[i]) : json_string(vals[i]));
	}
}

static int apply_patch(const kz_patch *p, json_t *objs, bh_error *err)
{
	size_t n = json_array_size(objs);
	int rc = 0;
	if (p->smp && !p->target) {
		size_t j;
		json_t *doc;
		json_array_foreach(p->smp, j, doc) {
			size_t i, found = 0;
			for (i = 0; i < n && !found; i++)
				if (json_is_object(json_array_get(objs, i)) && same_id(json_array_get(objs, i), doc)) {
					found = 1;
					if ((rc = apply_smp_one(objs, i, doc, err)) < 0)
						return rc;
				}
			if (!found) {
				char id[512];
				obj_id(doc, id, sizeof id);
				return bh_error_set(err, BH_ENOTFOUND, "no resource matches strategic merge patch \"%s\"", id);
			}
		}
		drop_removed(objs);
		return 0;
	}
	{
		char *sel = calloc(n + 1, 1);
		if (!sel)
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		for (size_t i = 0; i < n; i++) {
			const json_t *o = json_array_get(objs, i), *md = json_object_get(o, "metadata");
			/* resmap.Select reads the labels and annotations of every
			 * object of the target's kinds and names in pairs: an odd
			 * list is kustomize's panic */
			for (int f = 0; f < 2 && selector_ids_match(p->target, o); f++) {
				const json_t *m = json_object_get(md, text_fields[f]);
				if (json_is_array(m) && json_array_size(m) % 2) {
					char id[512];
					free(sel);
					obj_id(o, id, sizeof id);
					return bh_error_set(err, BH_EINVAL,
							    "%s: metadata.%s is a list of %zu elements, not a map "
							    "(kustomize v5.7.1 panics: runtime error: index out of range)",
							    id, text_fields[f], json_array_size(m));
				}
			}
			sel[i] = kz_selector_match(p->target, o);
		}
		json_t *tsmp = p->smp ? json_deep_copy(json_array_get(p->smp, 0)) : NULL;
		if (tsmp) { /* a targeted patch is read as a resource first */
			json_t *md = json_object_get(tsmp, "metadata");
			values_to_text(json_object_get(md, "labels"), texts_of(tsmp, "labels"));
			values_to_text(json_object_get(md, "annotations"), texts_of(tsmp, "annotations"));
			{ /* the patch's styles stay */
				json_t *st = json_incref(json_object_get(json_object_get(tsmp, KZ_TEXTS), "styles"));
				json_object_del(tsmp, KZ_TEXTS);
				if (st)
					json_object_set_new(tsmp, KZ_TEXTS, json_pack("{s:o}", "styles", st));
			}
		}
		for (size_t i = 0; i < n && rc == 0; i++) {
			if (!sel[i])
				continue;
			if (tsmp) {
				rc = apply_smp_one(objs, i, tsmp, err);
			} else {
				json_t *o = json_incref(json_array_get(objs, i));
				rc = json_patch_nonjson(o, err);
				json_object_del(o, KZ_TEXTS); /* kustomize goes through JSON */
				build_annotations_add(o);
				numbers_to_float(o, 0);
				if (rc < 0 || (rc = kz_json_patch(&o, p->json, err)) < 0 ||
				    (rc = annotations_after_json_patch(o, err)) < 0) {
					char id[512];
					obj_id(o, id, sizeof id);
					bh_error_prefix(err, "%s", id);
				} else {
					numbers_to_float(o, 0);
					styles_from_json(o);
					json_array_set(objs, i, o);
				}
				json_decref(o);
			}
		}
		json_decref(tsmp);
		free(sel);
	}
	drop_removed(objs);
	return rc;
}

/* image.Split */
static void image_split(const char *s, char **name, char **tag, char **digest)
{
	const char *search = s, *at, *colon;
	size_t base = 0;
	const char *slash = strchr(s, '/');
	if (slash && slash > s) {
		base = (size_t)(slash - s);
		search = slash;
	}
	at = strchr(search, '@');
	colon = strchr(search, ':');
	*tag = *digest = NULL;
	if (!at && !colon) {
		*name = strdup(s);
		return;
	}
	if (at && (!colon || at < colon)) {
		*name = strndup(s, (size_t)(at - search) + base);
		*digest = strdup(at + 1);
		return;
	}
	*name = strndup(s, (size_t)(colon - search) + base);
	if (at) {
		*tag = strndup(colon + 1, (size_t)(at - colon - 1));
		*digest = strdup(at + 1);
	} else {
		*tag = strdup(colon + 1);
	}
}

static void image_update(const kz_image *im, json_t *holder, const char *key)
{
	json_t *v = json_object_get(holder, key);
	char *name, *tag, *digest, *r;
	const char *t, *d;
	if (!json_is_string(v) || !im->re || !re_match(im->re, json_string_value(v)))
		return;
	image_split(json_string_value(v), &name, &tag, &digest);
	if (im->new_name) {
		free(name);
		name = strdup(im->new_name);
	}
	t = tag;
	d = digest;
	if (im->new_tag && im->digest) {
		t = im->new_tag;
		d = im->digest;
	} else if (im->new_tag) {
		t = im->new_tag;
		d = NULL;
	} else if (im->digest) {
		t = NULL;
		d = im->digest;
	}
	r = malloc(strlen(name ? name : "") + (t ? strlen(t) : 0) + (d ? strlen(d) : 0) + 3);
	if (r && name) {
		sprintf(r, "%s%s%s%s%s", name, t && *t ? ":" : "", t && *t ? t : "", d && *d ? "@" : "", d && *d ? d : "");
		json_object_set_new(holder, key, json_string(r));
	}
	free(r);
	free(name);
	free(tag);
	free(digest);
}

static void image_walk(const kz_image *im, json_t *v, int depth)
{
	if (depth > KZ_MAX_DEPTH)
		return;
	if (json_is_object(v)) {
		const char *k;
		json_t *x;
		json_object_foreach(v, k, x) {
			image_walk(im, x, depth + 1);
			if ((!strcmp(k, "containers") || !strcmp(k, "initContainers")) && json_is_array(x)) {
				size_t i;
				json_t *c;
				json_array_foreach(x, i, c) if (json_is_object(c)) image_update(im, c, "image");
			}
		}
	} else if (json_is_array(v)) {
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x) image_walk(im, x, depth + 1);
	}
}

/* The image field specs kustomize adds to the legacy walk: image volumes. */
static void image_volumes(const kz_image *im, json_t *spec)
{
	size_t i;
	json_t *vol;
	json_array_foreach(json_object_get(spec, "volumes"), i, vol) {
		json_t *img = json_object_get(vol, "image");
		if (json_is_object(img))
			image_update(im, img, "reference");
	}
}

/* kustomize's IgnoreLocal makes a resource map of what is left at the end:
 * two objects with one id (a JSON patch renamed one to the other's name)
 * are its panic. */
static int ids_unique(const json_t *objs, bh_error *err)
{
	json_t *seen = json_object();
	size_t i;
	const json_t *o;
	int rc = 0;
	if (!seen)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	json_array_foreach(objs, i, o) {
		char id[1024];
		const char *av = kz_sget(o, "apiVersion"), *slash = strchr(av, '/');
		snprintf(id, sizeof id, "%s.%s.%.*s/%s.%s", kz_sget(o, "kind"), slash ? slash + 1 : av,
			 slash ? (int)(slash - av) : 6, slash ? av : "[noGrp]", kz_sget(json_object_get(o, "metadata"), "name"),
			 effective_namespace(o));
		if (json_object_get(seen, id)) {
			rc = bh_error_set(err, BH_EINVAL,
					  "may not add resource with an already registered id: %s (kustomize v5.7.1 panics)",
					  id);
			break;
		}
		json_object_set_new(seen, id, json_true());
	}
	json_decref(seen);
	return rc;
}

int kustomize_apply(const kustomization *k, json_t *objs, bh_error *err)
{
	if (!json_is_array(objs))
		return bh_error_set(err, BH_EINVAL, "kustomize: objects must be a list");
	{ /* objects not read from their text here (a previous post-renderer's
	   * output): kustomize reads the text sigs.k8s.io/yaml wrote */
		size_t i;
		json_t *o;
		json_array_foreach(objs, i, o) if (json_is_object(o) && !texts_of(o, "styles")) styles_from_json(o);
	}
	for (size_t i = 0; i < k->npatches; i++) {
		int rc = apply_patch(&k->patches[i], objs, err);
		if (rc < 0)
			return bh_error_prefix(err, "kustomize.patches[%zu]", i);
	}
	for (size_t j = 0; j < k->nimages; j++) {
		size_t i;
		json_t *o;
		json_array_foreach(objs, i, o) {
			json_t *spec = json_object_get(o, "spec");
			if (!strcmp(kz_sget(o, "kind"), "CustomResourceDefinition"))
				continue;
			image_walk(&k->images[j], o, 0);
			image_volumes(&k->images[j], spec);
			image_volumes(&k->images[j], json_object_get(json_object_get(spec, "template"), "spec"));
		}
	}
	{
		size_t i;
		json_t *o;
		json_array_foreach(objs, i, o) if (kz_nameref_check(o, err) < 0) return err ? err->code : BH_EINVAL;
		if (kz_nameref_rename(objs, err) < 0)
			return err ? err->code : BH_EINVAL;
	}
	/* kustomize's build annotations come off at the end, and an annotation
	 * map left empty (or null) goes with them; a resource marked
	 * config.kubernetes.io/local-config (but "false") is not in the output */
	{
		size_t i = 0;
		while (i < json_array_size(objs)) {
			json_t *o = json_array_get(objs, i), *md = json_object_get(o, "metadata");
			json_t *an = json_object_get(md, "annotations");
			const json_t *rec = texts_of(o, "annotations");
			char buf[64];
			const char *local = value_text(json_object_get(an, "config.kubernetes.io/local-config"),
						       "config.kubernetes.io/local-config", rec, buf, sizeof buf);
			if (local && strcmp(local, "false")) {
				json_array_remove(objs, i);
				continue;
			}
			for (int k = 0; json_is_object(an) && build_annotations[k]; k++)
				json_object_del(an, build_annotations[k]);
			values_to_text(an, rec);
			{ /* kustomize writes annotation keys back as plain scalars */
				const json_t *bk = json_object_get(json_object_get(o, KZ_TEXTS), "badkey");
				const char *k, *bad = NULL;
				json_t *v;
				json_object_foreach(an, k, v) if (!bad && key_nonstring(k, strlen(k))) bad = k;
				if (bk || bad) {
					char id[512];
					obj_id(o, id, sizeof id);
					if (bk)
						bh_error_set(err, BH_EINVAL, "%s", json_string_value(bk));
					else
						badkey_error(bad, err);
					return bh_error_prefix(err, "%s", id);
				}
			}
			json_object_del(o, KZ_TEXTS);
			if (an && (json_is_null(an) || (json_is_object(an) && !json_object_size(an))))
				json_object_del(md, "annotations");
			i++;
		}
	}
	return ids_unique(objs, err);
}
