/* helm/kustomize_texts.c — how kustomize (kyaml, yaml.v3) reads the
 * text of scalars where our JSON objects would lose it: the texts of label and
 * annotation values, the style records of quoted scalars (for kz_smp_apply),
 * integers above int64, and the scalars kustomize writes otherwise
 * (timestamps, .inf/.nan annotations, map keys that are no strings). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "helm/kustomize.h"
#include "helm/kustomize_internal.h"
#include "lib/gostrconv.h"
#include "lib/vec.h"
#include "lib/yaml.h"

/* ---- the text of label and annotation values ------------------------------------------- */

const char *const kz_text_fields[] = {"labels", "annotations", NULL};

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
const char *kz_value_text(const json_t *v, const char *key, const json_t *rec, char *buf, size_t n)
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

const json_t *kz_texts_of(const json_t *obj, const char *field)
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

static void ystyles(const char *text, yaml_document_t *d, const yaml_node_t *n, json_t *v, json_t *rec, int flags,
		    char *path, size_t len, int depth)
{
	int patch = flags & KZ_YS_PATCH;
	if (!n || !v || depth > KZ_MAX_DEPTH)
		return;
	if (n->type == YAML_SCALAR_NODE) {
		int quoted = n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE && n->data.scalar.style != YAML_ANY_SCALAR_STYLE;
		char buf[64];
		/* an object's null written as nothing ("k:"): kyaml's merge drops
		 * it where it walks ("null" and "~" stay) */
		if (json_is_null(v) && !patch && !quoted && !n->data.scalar.length && n->start_mark.index < strlen(text) &&
		    !ytagged(text, n)) {
			json_object_set_new(rec, path, json_pack("[b,s]", 0, ""));
			return;
		}
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
			if (flags & KZ_YS_UINTS) {
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
			if ((flags & KZ_YS_UINTS) && (u = yuint(text, vn, json_object_get(v, key))))
				json_object_set_new(v, key, u);
		}
		path[len] = '\0';
	}
}

/* Sets obj's style record (KZ_TEXTS "styles", {} when nothing is quoted)
 * from the YAML text it was read from (flags YS_*). */
void kz_styles_record(json_t *obj, const char *text, int flags)
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
void kz_styles_from_json(json_t *obj)
{
	bh_buf out = BH_BUF_INIT;
	if (kz_emit_one(obj, 0, &out, NULL) == 0 && bh_buf_ok(&out) && out.data)
		kz_styles_record(obj, out.data, 0);
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
	for (int f = 0; kz_text_fields[f]; f++) {
		const char *k;
		json_t *v;
		json_object_foreach((json_t *)json_object_get(md, kz_text_fields[f]), k, v) if (!json_is_string(v) ||
											     !strncmp(json_string_value(v), KZ_UINT, strlen(KZ_UINT))) return 1;
	}
	return 0;
}

/* Records under KZ_TEXTS the texts of obj's labels and annotations that
 * its JSON values do not print, from the YAML text obj was read from (its
 * text before rewrite_scalars when rewritten). Nothing is recorded when
 * libyaml does not read the text. */
void kz_texts_record(json_t *obj, const char *text, int rewritten)
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
	for (int f = 0; rec && kz_text_fields[f]; f++) {
		json_t *vals = json_object_get(md, kz_text_fields[f]), *t = json_object(), *fr = json_object(), *v;
		const char *k;
		ymap_texts(&doc, ymap_get(&doc, ymd, kz_text_fields[f]), t, 0);
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
			json_object_set(rec, kz_text_fields[f], fr);
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
int kz_key_nonstring(const char *k, size_t n)
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
 * annotation and its text; with labels_too, a targeted patch read as a
 * resource, a label's too, not in *quoted), and in a document that is a map a timestamp
 * (a time of day only outside flow collections) goes out through JSON as
 * encoding/json writes a time.Time (2001-12-14 is "2001-12-14T00:00:00Z").
 * The new text, or NULL when nothing changed.
 * *badkey: a new string, why kustomize cannot write the document as JSON
 * (a map key kz_key_nonstring, a time), or NULL. */
static char *rewrite_scalars(const char *text, int labels_too, json_t **quoted, json_t **badkey)
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
	for (int f = 0; f < (labels_too ? 2 : 1); f++) {
		an = ymap_get(&doc, ymap_get(&doc, root, "metadata"), f ? "labels" : "annotations");
		for (yaml_node_pair_t *p = inf && an && an->type == YAML_MAPPING_NODE ? an->data.mapping.pairs.start : NULL;
		     p && p < an->data.mapping.pairs.top; p++) {
			yaml_node_t *v = yaml_document_get_node(&doc, p->value), *k = yaml_document_get_node(&doc, p->key);
			if (!v || !k || k->type != YAML_SCALAR_NODE || v->type != YAML_SCALAR_NODE ||
			    v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
			    !yaml_inf_nan((const char *)v->data.scalar.value, v->data.scalar.length) ||
			    edit_add(&ed, &ned, &cap, text, v, (const char *)v->data.scalar.value) < 0 || f)
				continue;
			if (!*quoted)
				*quoted = json_object();
			json_object_set_new(*quoted, (const char *)k->data.scalar.value,
					    json_stringn((const char *)v->data.scalar.value, v->data.scalar.length));
		}
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
				    kz_key_nonstring((const char *)k->data.scalar.value, k->data.scalar.length))
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

/* yaml.v3's decoder over node n (preorder): a mapping with a key text
 * twice (same kind) adds "line L: mapping key K already defined at line
 * M" for each pair and is not entered; skip is a mapping left alone. */
static void dup_walk(yaml_document_t *d, yaml_node_t *n, const yaml_node_t *skip, bh_buf *out, int depth)
{
	if (!n || depth > KZ_MAX_DEPTH)
		return;
	if (n->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
			dup_walk(d, yaml_document_get_node(d, *it), skip, out, depth + 1);
		return;
	}
	if (n->type != YAML_MAPPING_NODE || n == skip)
		return;
	{
		size_t before = out->len;
		yaml_node_pair_t *a, *b, *top = n->data.mapping.pairs.top;
		for (a = n->data.mapping.pairs.start; a < top; a++)
			for (b = a + 1; b < top; b++) {
				yaml_node_t *ka = yaml_document_get_node(d, a->key), *kb = yaml_document_get_node(d, b->key);
				if (!ka || !kb || ka->type != YAML_SCALAR_NODE || kb->type != YAML_SCALAR_NODE ||
				    ka->data.scalar.length != kb->data.scalar.length ||
				    memcmp(ka->data.scalar.value, kb->data.scalar.value, ka->data.scalar.length))
					continue;
				bh_buf_printf(out, "\n  line %zu: mapping key ", kb->start_mark.line + 1);
				go_quote(out, (const char *)kb->data.scalar.value, kb->data.scalar.length, '"', 0);
				bh_buf_printf(out, " already defined at line %zu", ka->start_mark.line + 1);
			}
		if (out->len != before)
			return;
	}
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
		dup_walk(d, yaml_document_get_node(d, p->value), skip, out, depth + 1);
}

int kz_duplicate_keys(const char *text, int annotations_too, bh_error *err)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	bh_buf out = BH_BUF_INIT;
	int rc = 0;
	if (!ydoc_load(text, &parser, &doc))
		return 0;
	root = yaml_document_get_root_node(&doc);
	dup_walk(&doc, root, annotations_too ? NULL : ymap_get(&doc, ymap_get(&doc, root, "metadata"), "annotations"), &out,
		 0);
	ydoc_free(&parser, &doc);
	if (out.len)
		rc = bh_error_set(err, BH_EINVAL, "map[string]interface {}(nil): yaml: unmarshal errors:%s", bh_buf_str(&out));
	bh_buf_free(&out);
	return rc;
}

/* rewrite_scalars on a document: *doc replaced when it changed, its first
 * text then in *orig (the caller frees it), else *orig NULL. */
void kz_doc_rewrite(char **doc, int labels_too, json_t **quoted, json_t **badkey, char **orig)
{
	char *q = rewrite_scalars(*doc, labels_too, quoted, badkey);
	*orig = NULL;
	if (q) {
		*orig = *doc;
		*doc = q;
	}
}

/* Records in obj what rewrite_scalars found that kustomize cannot write
 * as JSON (an output or a JSON patch fails on them): the annotations it
 * quoted, the first map key that is no string. Takes quoted and badkey. */
void kz_texts_record_nonjson(json_t *obj, json_t *quoted, json_t *badkey)
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

int kz_badkey_error(const char *key, bh_error *err)
{
	return bh_error_set(err, BH_EINVAL,
			    "map key %s is no string to kustomize (yaml.v3 reads it as another type): json: unsupported "
			    "type: map[interface {}]interface {}",
			    key);
}

/* kustomize's JSON patch first marshals the object to JSON: an annotation
 * still the .inf/.nan its YAML said is refused as encoding/json refuses it. */
int kz_json_patch_nonjson(const json_t *o, bh_error *err)
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
	json_object_foreach((json_t *)kz_texts_of(o, "nonjson"), k, t) {
		const char *v = json_string_value(json_object_get(an, k)), *tx = json_string_value(t);
		if (v && tx && !strcmp(v, tx))
			return bh_error_set(err, BH_EINVAL, "json: unsupported value: %s",
					    strchr("nN", tx[1]) ? "NaN" : tx[0] == '-' ? "-Inf" : "+Inf");
	}
	return 0;
}

/* The texts after a strategic merge of patch (texts prec) into an object
 * (texts orec): a label or annotation the patch names is the patch's. */
json_t *kz_texts_merge(const json_t *orec, const json_t *prec, const json_t *patch)
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
 * each value becomes the text kustomize reads (kz_value_text). */
void kz_values_to_text(json_t *map, const json_t *rec)
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
		t = kz_value_text(v, k, rec, buf, sizeof buf);
		json_object_set_new(map, k, json_string(t));
	}
}

/* A scalar as sigs.k8s.io/yaml prints it alone, its lines after the first
 * indented by ind (a block scalar's). */
static void dump_scalar(bh_buf *b, const json_t *v, int ind)
{
	bh_buf t = BH_BUF_INIT;
	const char *p;
	if (yaml_emit((json_t *)v, &t, NULL) < 0 || !t.len) {
		bh_buf_free(&t);
		bh_buf_puts(b, "null\n");
		return;
	}
	for (p = bh_buf_str(&t); *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
		if (p != t.data)
			bh_buf_printf(b, "%*s", ind, "");
		bh_buf_put(b, p, n);
		p += n;
	}
	bh_buf_free(&t);
}

/* v as kyaml prints a node (yaml.v3, indent 2, lists not indented under
 * their key, maps in their own order), at indentation ind; the first line
 * goes where b is. */
static void dump_node(bh_buf *b, const json_t *v, int ind, int depth)
{
	const char *k;
	json_t *x, *box = json_is_object(v) && json_object_size(v) == 1 ? json_object_get(v, KZ_BOX) : NULL;
	size_t i, n = 0;
	if (box) { /* a scalar of a merge (kustomize_smp.c) */
		const json_t *val = json_array_get(box, 0);
		const char *text = json_string_value(json_array_get(box, 2)), *sv = json_string_value(val);
		if (json_is_true(json_array_get(box, 1)) && sv && !strpbrk(sv, "\n\r\t")) {
			/* quoted: kyaml keeps the node's style (taken to be single
			 * quotes, which the text no longer says) */
			bh_buf_puts(b, "'");
			for (; *sv; sv++)
				bh_buf_puts(b, *sv == '\'' ? "''" : (char[]){*sv, 0});
			bh_buf_puts(b, "'\n");
		} else if (text && !json_is_true(json_array_get(box, 1))) {
			bh_buf_printf(b, "%s\n", text);
		} else {
			dump_scalar(b, val, ind);
		}
		return;
	}
	if (depth > KZ_MAX_DEPTH || (!json_is_object(v) && !json_is_array(v)) || !(json_object_size(v) + json_array_size(v))) {
		if (json_is_object(v) || json_is_array(v))
			bh_buf_puts(b, json_is_object(v) ? "{}\n" : "[]\n");
		else
			dump_scalar(b, v, ind);
		return;
	}
	if (json_is_array(v)) {
		json_array_foreach(v, i, x) {
			bh_buf_printf(b, "%*s- ", i ? ind : 0, "");
			dump_node(b, x, ind + 2, depth + 1);
		}
		return;
	}
	json_object_foreach((json_t *)v, k, x) {
		json_t *key = json_string(k);
		if (!strcmp(k, KZ_TEXTS)) {
			json_decref(key);
			continue;
		}
		bh_buf_printf(b, "%*s", n++ ? ind : 0, "");
		dump_scalar(b, key, ind);
		json_decref(key);
		b->len -= b->len && b->data[b->len - 1] == '\n';
		if ((json_is_object(x) && json_object_size(x)) || (json_is_array(x) && json_array_size(x))) {
			bh_buf_puts(b, ":\n");
			bh_buf_printf(b, "%*s", json_is_object(x) ? ind + 2 : ind, "");
			dump_node(b, x, json_is_object(x) ? ind + 2 : ind, depth + 1);
		} else {
			bh_buf_puts(b, ": ");
			dump_node(b, x, ind + 2, depth + 1);
		}
	}
}

/* kyaml's InvalidNodeKindError: the kinds, then the node as kyaml prints
 * it. */
int kz_kind_error(bh_error *err, const char *expected, const json_t *node)
{
	bh_buf b = BH_BUF_INIT;
	const char *got = json_is_object(node) && !json_object_get(node, KZ_BOX) ? "MappingNode"
			  : json_is_array(node)				    ? "SequenceNode"
									    : "ScalarNode";
	int rc;
	if (node)
		dump_node(&b, node, 0, 0);
	if (!node || !bh_buf_ok(&b)) {
		bh_buf_free(&b);
		return bh_error_set(err, BH_EINVAL, "wrong node kind: expected %s but got %s", expected, got);
	}
	rc = bh_error_set(err, BH_EINVAL, "wrong node kind: expected %s but got %s: node contents:\n%s", expected, got,
			  bh_buf_str(&b));
	bh_buf_free(&b);
	return rc;
}
