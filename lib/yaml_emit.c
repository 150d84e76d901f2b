/* lib/yaml_emit.c — the printing half of yaml.h: sigs.k8s.io/yaml.JSONToYAML
 * (goyaml.v2 Unmarshal of JSON text, then goyaml.v2 Marshal) on libyaml's
 * emitter, which goyaml's emitter is a port of. */
#include "lib/yaml.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "lib/gojson.h"
#include "lib/gostrconv.h"
#include "lib/vec.h"
#include "lib/yaml_resolve.h"

typedef struct emit_ctx {
	yaml_emitter_t *em;
	bh_buf *out;
	bh_error *err;
	int marked; /* a TAIL_MARK was emitted (see emit_string) */
	size_t nscalars; /* scalar events sent */
	bh_buf boms; /* goyaml's text of each BOM placeholder, in the order sent, each with its NUL */
	size_t *bom_at; /* the number of scalars sent before each */
	size_t nboms, capboms;
} emit_ctx;

/* libyaml (0.2.5) indents before the closing quote of a single-quoted
 * scalar that ends in a line break; goyaml does not. Strings ending in
 * U+2028/U+2029 (the only breaks that reach that writer) get this marker
 * appended, and unmark() removes it with whatever libyaml put before it.
 * Not a literal scalar's: there libyaml does as goyaml (the '|' without a
 * chomping indicator, what follows right after the raw LS or PS). */
#define TAIL_MARK "\xEE\x80\x80\xEF\xA3\xBF\xEE\x80\x80"
#define TAIL_MARK_LEN 9

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
	bh_buf *b = data;
	bh_buf_put(b, buffer, size);
	return bh_buf_ok(b);
}

static int emit_event(emit_ctx *c, yaml_event_t *ev)
{
	if (!yaml_emitter_emit(c->em, ev))
		return bh_error_set(c->err, BH_EINVAL, "yaml: %s",
				    c->em->problem ? c->em->problem : "unknown problem generating YAML content");
	return 0;
}

static int emit_scalar(emit_ctx *c, const char *s, size_t n, yaml_scalar_style_t style)
{
	yaml_event_t ev;
	if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)n, 1, 1, style))
		return bh_error_set(c->err, BH_ENOMEM, "out of memory");
	c->nscalars++;
	return emit_event(c, &ev);
}

/* The style goyaml.v2 encoder.stringv asks for a valid UTF-8 string
 * without a tag (the emitter may still pick another: libyaml's analysis). */
static yaml_scalar_style_t string_style(const char *s, size_t n)
{
	yres r;
	if (memchr(s, '\n', n))
		return YAML_LITERAL_SCALAR_STYLE;
	yaml_resolve("", s, n, &r);
	if (r.kind == YR_STR && !yaml_is_base60_float(s, n))
		return YAML_PLAIN_SCALAR_STYLE;
	return YAML_DOUBLE_QUOTED_SCALAR_STYLE;
}

/* the rune of valid UTF-8 at s[*i] (n bytes), *i moved past it */
static uint32_t utf8_next(const unsigned char *s, size_t n, size_t *i)
{
	uint32_t v = s[*i];
	int k = v < 0x80 ? 0 : v < 0xE0 ? 1 : v < 0xF0 ? 2 : 3;
	v &= k == 0 ? 0x7F : k == 1 ? 0x1F : k == 2 ? 0x0F : 0x07;
	for (int j = 1; j <= k && *i + (size_t)j < n; j++)
		v = (v << 6) | (s[*i + (size_t)j] & 0x3F);
	*i += (size_t)k + 1;
	return v;
}

/* goyaml.v2's escape of v in a double-quoted scalar */
static void goyaml_escape(bh_buf *b, uint32_t v)
{
	static const struct {
		uint32_t v;
		char c;
	} short_esc[] = {{0, '0'},    {7, 'a'},     {8, 'b'},      {9, 't'},      {0xA, 'n'},
			 {0xB, 'v'},  {0xC, 'f'},   {0xD, 'r'},    {0x1B, 'e'},   {'"', '"'},
			 {'\\', '\\'}, {0x85, 'N'}, {0xA0, '_'}, {0x2028, 'L'}, {0x2029, 'P'}};
	for (size_t k = 0; k < sizeof short_esc / sizeof short_esc[0]; k++)
		if (short_esc[k].v == v) {
			bh_buf_putc(b, '\\');
			bh_buf_putc(b, short_esc[k].c);
			return;
		}
	bh_buf_printf(b, v <= 0xFF ? "\\x%02X" : v <= 0xFFFF ? "\\u%04X" : "\\U%08X", (unsigned)v);
}

/* goyaml.v2's is_bom(b, i) reads b[0..2], not b[i..]: in a string that
 * starts with a BOM every character is "the BOM", and its double-quoted
 * writer escapes them all ("\uFEFFk" is written "\uFEFF\x6B"), where
 * libyaml escapes only the BOM. Such a string goes to libyaml as a
 * placeholder of the same length in bytes (libyaml's simple key check)
 * that libyaml writes as wide as goyaml's text, with no space (nothing is
 * folded): a character both escape alike (the BOM, line breaks, '"', '\\',
 * control characters with a short escape) as it is, any other as bytes
 * 'x' (1 column), '\t' (2: "\t") and 0x01 (4: "\x01"). Appends goyaml's
 * text (with its NUL) to c->boms and the placeholder's place among the
 * scalars to c->bom_at; *ph is the placeholder (free it). */
static int bom_placeholder(emit_ctx *c, const char *s, size_t n, char **ph, size_t *phn)
{
	static const uint32_t alike[] = {'"', '\\', 0, 7, 8, 9, 0xA, 0xB, 0xC, 0xD, 0x1B, 0x85, 0x2028, 0x2029, 0xFEFF};
	const unsigned char *u = (const unsigned char *)s;
	bh_buf p = BH_BUF_INIT;
	bh_buf_putc(&c->boms, '"');
	for (size_t i = 0; i < n;) {
		size_t at = i, mark = c->boms.len, same = 0;
		uint32_t v = utf8_next(u, n, &i);
		goyaml_escape(&c->boms, v);
		for (size_t k = 0; k < sizeof alike / sizeof alike[0]; k++)
			same |= alike[k] == v;
		if (same) {
			bh_buf_put(&p, s + at, i - at);
			continue;
		}
		/* i - at bytes, as many columns as goyaml's escape */
		size_t b = i - at, cols = c->boms.len - mark;
		while (b > 0) {
			size_t w = cols >= 4 + (b - 1) ? 4 : cols >= 2 + (b - 1) ? 2 : 1;
			bh_buf_putc(&p, w == 4 ? '\x01' : w == 2 ? '\t' : 'x');
			cols -= w;
			b--;
		}
	}
	bh_buf_put(&c->boms, "\"", 2); /* the closing quote and the NUL */
	if (!bh_buf_ok(&p) || !bh_buf_ok(&c->boms) ||
	    VEC_RESERVE(c->bom_at, c->capboms, c->nboms + 1, 8) < 0) {
		bh_buf_free(&p);
		return bh_error_set(c->err, BH_ENOMEM, "out of memory");
	}
	c->bom_at[c->nboms++] = c->nscalars;
	*phn = p.len;
	*ph = bh_buf_detach(&p);
	return 0;
}

/* Each placeholder in libyaml's output out[from..), replaced by goyaml's
 * text. They are found by place, not by text (any string may hold the
 * text libyaml wrote for one): out, read back by libyaml's parser, has a
 * scalar event for each scalar sent, in order; a placeholder's event marks
 * its text (from its opening quote to after its closing one) in characters,
 * counted here into bytes. */
static int bom_unplace(emit_ctx *c, bh_buf *out, size_t from)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	bh_buf nb = BH_BUF_INIT;
	const unsigned char *t = (const unsigned char *)out->data + from;
	size_t len = out->len - from, scalar = 0, k = 0, chars = 0, bytes = 0, copied = 0;
	const char *go = c->boms.data;
	int rc = 0, done = 0;
	if (!yaml_parser_initialize(&parser))
		return bh_error_set(c->err, BH_ENOMEM, "out of memory");
	yaml_parser_set_input_string(&parser, t, len);
	bh_buf_put(&nb, out->data, from);
	while (!done && !rc) {
		if (!yaml_parser_parse(&parser, &ev)) {
			rc = bh_error_set(c->err, BH_EINVAL, "yaml: libyaml cannot read back what it wrote: %s",
					  parser.problem ? parser.problem : "unknown problem");
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		if (ev.type == YAML_SCALAR_EVENT && k < c->nboms && scalar++ == c->bom_at[k]) {
			size_t span[2], mark[2] = {ev.start_mark.index, ev.end_mark.index};
			for (int e = 0; e < 2; e++) { /* characters to bytes (valid UTF-8) */
				while (chars < mark[e] && bytes < len) {
					bytes++;
					while (bytes < len && (t[bytes] & 0xC0) == 0x80)
						bytes++;
					chars++;
				}
				span[e] = bytes;
			}
			if (span[1] - span[0] < 2 || t[span[0]] != '"' || t[span[1] - 1] != '"') {
				rc = bh_error_set(c->err, BH_EINVAL, "yaml: a BOM string's placeholder is not where libyaml put it");
			} else {
				bh_buf_put(&nb, t + copied, span[0] - copied);
				bh_buf_puts(&nb, go);
				copied = span[1];
				go += strlen(go) + 1;
				k++;
			}
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	if (!rc && k != c->nboms)
		rc = bh_error_set(c->err, BH_EINVAL, "yaml: %zu of %zu BOM string placeholders found", k, c->nboms);
	bh_buf_put(&nb, t + copied, len - copied);
	if (!rc && !bh_buf_ok(&nb))
		rc = bh_error_set(c->err, BH_ENOMEM, "out of memory");
	if (rc) {
		bh_buf_free(&nb);
		return rc;
	}
	bh_buf_free(out);
	*out = nb;
	return 0;
}

/* goyaml.v2 encoder.stringv for a valid UTF-8 string without a tag. */
static int emit_string(emit_ctx *c, const char *s, size_t n)
{
	yaml_scalar_style_t style = string_style(s, n);
	int rc;
	if (n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
		char *ph = NULL;
		size_t phn = 0;
		if ((rc = bom_placeholder(c, s, n, &ph, &phn)))
			return rc;
		rc = emit_scalar(c, ph, phn, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
		free(ph);
		return rc;
	}
	if (style != YAML_LITERAL_SCALAR_STYLE && n >= 3 && (unsigned char)s[n - 3] == 0xE2 &&
	    (unsigned char)s[n - 2] == 0x80 && ((unsigned char)s[n - 1] == 0xA8 || (unsigned char)s[n - 1] == 0xA9)) {
		char *t = malloc(n + TAIL_MARK_LEN);
		if (!t)
			return bh_error_set(c->err, BH_ENOMEM, "out of memory");
		memcpy(t, s, n);
		memcpy(t + n, TAIL_MARK, TAIL_MARK_LEN);
		rc = emit_scalar(c, t, n + TAIL_MARK_LEN, style);
		free(t);
		c->marked = 1;
		return rc;
	}
	return emit_scalar(c, s, n, style);
}

/* Removes each TAIL_MARK, and the indentation libyaml wrote between a raw
 * trailing U+2028/U+2029 and it (in a double-quoted scalar the break is
 * escaped and only the marker goes). */
static void unmark(bh_buf *b, size_t from)
{
	size_t i = from, o = from;
	while (i < b->len) {
		if (i + TAIL_MARK_LEN <= b->len && memcmp(b->data + i, TAIL_MARK, TAIL_MARK_LEN) == 0) {
			size_t k = o;
			while (k > from && b->data[k - 1] == ' ')
				k--;
			if (k > from && b->data[k - 1] == '\n')
				k--;
			if (k >= from + 3 && (unsigned char)b->data[k - 3] == 0xE2 && (unsigned char)b->data[k - 2] == 0x80 &&
			    ((unsigned char)b->data[k - 1] == 0xA8 || (unsigned char)b->data[k - 1] == 0xA9))
				o = k;
			i += TAIL_MARK_LEN;
			continue;
		}
		b->data[o++] = b->data[i++];
	}
	b->len = o;
	if (b->data)
		b->data[o] = '\0';
}

/* The text goyaml prints for the JSON number literal text (a plain
 * scalar): its length, or -1 when goyaml keeps the literal as a string
 * (e.g. 1e400, which it could not parse). */
static int number_text(const char *text, size_t n, char *buf, size_t size)
{
	yres r;
	yaml_resolve("", text, n, &r);
	switch (r.kind) {
	case YR_INT: return snprintf(buf, size, "%lld", (long long)r.i);
	case YR_UINT: return snprintf(buf, size, "%llu", (unsigned long long)r.u);
	case YR_FLOAT:
		if (isinf(r.f))
			return snprintf(buf, size, "%s", r.f > 0 ? ".inf" : "-.inf");
		if (isnan(r.f))
			return snprintf(buf, size, ".nan");
		return go_format_float(buf, size, r.f, 'g', -1);
	default: return -1;
	}
}

static int emit_number(emit_ctx *c, const char *text, size_t n)
{
	char buf[64];
	int len = number_text(text, n, buf, sizeof buf);
	if (len < 0)
		return emit_string(c, text, n);
	return emit_scalar(c, buf, (size_t)len, YAML_PLAIN_SCALAR_STYLE);
}

/* The runes of s[0..n) into rs (room for n), invalid bytes as U+FFFD;
 * their count */
static size_t to_runes(const char *s, size_t n, int32_t *rs)
{
	size_t i = 0, k = 0;
	while (i < n) {
		int32_t r;
		if ((unsigned char)s[i] < 0x80) {
			rs[k++] = (unsigned char)s[i++];
			continue;
		}
		int sz = utf8_rune_go((const unsigned char *)s + i, n - i, &r);
		rs[k++] = r < 0 ? 0xFFFD : r;
		i += (size_t)sz;
	}
	return k;
}

typedef struct key_ent {
	int32_t *runes;
	size_t nr;
	size_t idx; /* position in the object, for last-wins on duplicates */
	const gojson_node *key, *val;
} key_ent;

static int key_cmp(const void *pa, const void *pb)
{
	const key_ent *a = pa, *b = pb;
	if (yaml_key_less(a->runes, a->nr, b->runes, b->nr, 0))
		return -1;
	if (yaml_key_less(b->runes, b->nr, a->runes, a->nr, 0))
		return 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int same_key(const key_ent *a, const key_ent *b)
{
	return a->key->len == b->key->len && memcmp(a->key->text, b->key->text, a->key->len) == 0;
}

/* The entries of object n in the order goyaml prints its keys (a run of
 * equal keys ends with the one that wins: see same_key), with the keys'
 * runes in the same block; NULL when out of memory or n has none. The
 * caller frees it. */
static key_ent *sorted_keys(const gojson_node *n)
{
	size_t bytes = 0;
	for (size_t i = 0; i < n->n; i++)
		bytes += n->items[2 * i].len;
	key_ent *ents = n->n ? malloc(n->n * sizeof *ents + bytes * sizeof(int32_t)) : NULL;
	if (!ents)
		return NULL;
	int32_t *rs = (int32_t *)(void *)(ents + n->n);
	for (size_t i = 0; i < n->n; i++) {
		ents[i].key = &n->items[2 * i];
		ents[i].val = &n->items[2 * i + 1];
		ents[i].idx = i;
		ents[i].runes = rs;
		ents[i].nr = to_runes(ents[i].key->text, ents[i].key->len, rs);
		rs += ents[i].nr;
	}
	/* json.Marshal's byte order, which the tree mostly comes in, is most
	 * often goyaml's too: then there is nothing to sort */
	for (size_t i = 1; i < n->n; i++)
		if (key_cmp(&ents[i - 1], &ents[i]) > 0) {
			qsort(ents, n->n, sizeof *ents, key_cmp);
			break;
		}
	return ents;
}

static int emit_node(emit_ctx *c, const gojson_node *n, int depth)
{
	yaml_event_t ev;
	int rc = 0;
	if (depth > GOJSON_MAX_DEPTH)
		return bh_error_set(c->err, BH_ELIMIT, "yaml: value nested deeper than %d levels", GOJSON_MAX_DEPTH);
	switch (n->type) {
	case GOJSON_NULL: return emit_scalar(c, "null", 4, YAML_PLAIN_SCALAR_STYLE);
	case GOJSON_TRUE: return emit_scalar(c, "true", 4, YAML_PLAIN_SCALAR_STYLE);
	case GOJSON_FALSE: return emit_scalar(c, "false", 5, YAML_PLAIN_SCALAR_STYLE);
	case GOJSON_NUMBER: return emit_number(c, n->text, n->len);
	case GOJSON_STRING: return emit_string(c, n->text, n->len);
	case GOJSON_ARRAY:
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
		if ((rc = emit_event(c, &ev)))
			return rc;
		for (size_t i = 0; i < n->n && !rc; i++)
			rc = emit_node(c, &n->items[i], depth + 1);
		if (rc)
			return rc;
		yaml_sequence_end_event_initialize(&ev);
		return emit_event(c, &ev);
	case GOJSON_OBJECT: {
		key_ent *ents = sorted_keys(n);
		size_t i;
		if (n->n && !ents)
			return bh_error_set(c->err, BH_ENOMEM, "out of memory");
		if (!rc) {
			yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
			rc = emit_event(c, &ev);
		}
		for (i = 0; i < n->n && !rc; i++) {
			/* duplicate keys: the last one in the text wins */
			if (i + 1 < n->n && same_key(&ents[i], &ents[i + 1]))
				continue;
			rc = emit_string(c, ents[i].key->text, ents[i].key->len);
			if (!rc)
				rc = emit_node(c, ents[i].val, depth + 1);
		}
		free(ents);
		if (rc)
			return rc;
		yaml_mapping_end_event_initialize(&ev);
		return emit_event(c, &ev);
	}
	}
	return bh_error_set(c->err, BH_EINVAL, "yaml: bad JSON node");
}

/* ---- the printer of plain data ----
 * What libyaml's emitter writes for the events emit_node sends, written
 * directly for the common case: every scalar ASCII without control
 * characters, every key short enough to be a simple key, and no scalar
 * with a space long enough that libyaml could fold it at the best width.
 * Anything else is refused (FAST_NO) and goes to libyaml. The state is
 * libyaml's own (column, whitespace, indention, indent), and so are the
 * steps (write_indent, write_indicator, the scalar writers), so the two
 * agree byte for byte (test_yaml checks this on random trees). */
#define FAST_NO 1
#define SIMPLE_KEY_MAX 128 /* libyaml's check_simple_key */

typedef struct fast_ctx {
	bh_buf *out;
	int best_width;
	int column;
	int whitespace;
	int indention;
} fast_ctx;

static void fast_put(fast_ctx *f, const char *s, size_t n)
{
	/* one byte (a space, an indicator, a quote): bh_buf_putc, inline */
	if (n == 1)
		bh_buf_putc(f->out, s[0]);
	else
		bh_buf_put(f->out, s, n);
	f->column += (int)n;
}

static void fast_write_indent(fast_ctx *f, int indent)
{
	if (indent < 0)
		indent = 0;
	if (!f->indention || f->column > indent || (f->column == indent && !f->whitespace)) {
		bh_buf_putc(f->out, '\n');
		f->column = 0;
	}
	/* the indentation's spaces: one put per 32, not one per space */
	static const char spaces[] = "                                ";
	while (f->column < indent) {
		int k = indent - f->column < (int)sizeof spaces - 1 ? indent - f->column : (int)sizeof spaces - 1;
		fast_put(f, spaces, (size_t)k);
	}
	f->whitespace = 1;
	f->indention = 1;
}

static void fast_indicator(fast_ctx *f, const char *ind, int need_whitespace, int is_whitespace, int is_indention)
{
	if (need_whitespace && !f->whitespace)
		fast_put(f, " ", 1);
	fast_put(f, ind, strlen(ind));
	f->whitespace = is_whitespace;
	f->indention = f->indention && is_indention;
}

/* What the printer needs of libyaml's analysis of a scalar, in one pass */
typedef struct scalar_scan {
	int nl;       /* a line break */
	int space;    /* a space */
	int space_nl; /* a space right before a break */
	int plain;    /* without a break: a block plain scalar may hold it */
} scalar_scan;

/* Scans s (n > 0); FAST_NO when a byte is neither printable ASCII nor
 * '\n' (libyaml's path prints those). */
static int fast_scan(const char *s, size_t n, scalar_scan *a)
{
	const unsigned char *u = (const unsigned char *)s;
	/* the end reads as white space (libyaml reads the NUL there) */
	int followed = n == 1 || u[1] == ' ';
	memset(a, 0, sizeof *a);
	a->plain = !(n >= 3 && (memcmp(s, "---", 3) == 0 || memcmp(s, "...", 3) == 0)) && u[0] != ' ' &&
		   u[n - 1] != ' ' && !(u[0] && strchr("#,[]{}&*!|>'\"%@`", u[0])) &&
		   !((u[0] == '?' || u[0] == ':' || u[0] == '-') && followed);
	for (size_t i = 0; i < n; i++) {
#ifdef __SSE2__
		/* 16 bytes a step over the ones that change nothing here:
		 * printable ASCII but ' ', ':' and '#' (the byte after them
		 * looks back or ahead at most one byte, never at these) */
		while (i + 16 <= n) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(u + i));
			/* 0x21 to 0x7E as one signed compare (see word_end in tmpl/parse.c) */
			__m128i in = _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8((char)(0x80 - 0x21))),
						    _mm_set1_epi8((char)(-128 + 0x7F - 0x21)));
			__m128i mark = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(':')),
						    _mm_cmpeq_epi8(v, _mm_set1_epi8('#')));
			unsigned m = (unsigned)_mm_movemask_epi8(_mm_andnot_si128(mark, in));
			if (m != 0xFFFF) {
				i += (size_t)__builtin_ctz(~m);
				break;
			}
			i += 16;
		}
		if (i >= n)
			break;
#endif
		unsigned c = u[i];
		if (c - 0x20u < 0x5Fu) { /* 0x20 to 0x7E */
			if (c == ' ') {
				a->space = 1;
				a->space_nl |= i + 1 < n && u[i + 1] == '\n';
			} else if (i > 0 && ((c == ':' && (i + 1 == n || u[i + 1] == ' ')) || (c == '#' && u[i - 1] == ' '))) {
				a->plain = 0;
			}
		} else if (c == '\n') {
			a->nl = 1;
		} else {
			return FAST_NO;
		}
	}
	return 0;
}

/* A literal block scalar (s has a line break, every byte printable
 * ASCII or '\n', no space before a break or at the end) at the scalar's
 * indent: libyaml's write_literal_scalar and block scalar hints. The
 * emitter's whitespace and indention stay as the last byte left them. */
static void fast_literal(fast_ctx *f, const char *s, size_t n, int indent)
{
	fast_indicator(f, "|", 1, 0, 0);
	if (s[0] == ' ' || s[0] == '\n')
		fast_indicator(f, "2", 0, 0, 0); /* the indentation hint: best_indent */
	if (s[n - 1] != '\n')
		fast_indicator(f, "-", 0, 0, 0);
	else if (n == 1 || s[n - 2] == '\n')
		fast_indicator(f, "+", 0, 0, 0);
	int breaks = 1;
	bh_buf_putc(f->out, '\n');
	f->column = 0;
	f->indention = 1;
	f->whitespace = 1;
	for (size_t i = 0; i < n;) {
		if (s[i] == '\n') {
			bh_buf_putc(f->out, '\n');
			f->column = 0;
			f->indention = 1;
			breaks = 1;
			i++;
			continue;
		}
		if (breaks)
			fast_write_indent(f, indent);
		const char *e = memchr(s + i, '\n', n - i);
		size_t k = e ? (size_t)(e - s) : n;
		fast_put(f, s + i, k - i);
		f->indention = 0;
		breaks = 0;
		i = k;
	}
}

/* The bytes of a plain (q 0) or quoted (q the quote) scalar that may be
 * folded at the best width, as libyaml's scalar writers do with
 * allow_breaks: a space where the column is past the best width, after a
 * non-space, becomes a line break and the scalar's indent (not before
 * another space in plain and single-quoted style, not first or last in
 * quoted style). libyaml also escapes a space after a break in
 * double-quoted style: fast_scalar leaves such scalars to it. */
static void fast_folded(fast_ctx *f, const char *s, size_t n, char q, int indent)
{
	int spaces = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == ' ') {
			int next_space = i + 1 < n && s[i + 1] == ' ';
			int inner = i != 0 && i != n - 1;
			if (!spaces && f->column > f->best_width && (q == 0 ? !next_space : inner && (q == '"' || !next_space))) {
				fast_write_indent(f, indent);
			} else {
				fast_put(f, " ", 1);
			}
			spaces = 1;
			continue;
		}
		if ((q == '\'' && c == '\'') || (q == '"' && (c == '"' || c == '\\')))
			fast_put(f, q == '\'' ? "'" : "\\", 1);
		fast_put(f, &c, 1);
		f->indention = 0;
		spaces = 0;
	}
}

/* A scalar of the given requested style (plain, double-quoted or literal)
 * in a simple key (key) or a value of the emitter's indent (see fast_node);
 * FAST_NO when libyaml must print it. */
static int fast_scalar(fast_ctx *f, const char *s, size_t n, yaml_scalar_style_t style, int key, int indent)
{
	scalar_scan a = {0, 0, 0, 0};
	if (n && fast_scan(s, n, &a))
		return FAST_NO;
	if (style == YAML_LITERAL_SCALAR_STYLE) {
		/* libyaml's block_allowed, and no simple key holds a break */
		if (key || s[n - 1] == ' ' || a.space_nl)
			return FAST_NO;
		fast_literal(f, s, n, indent < 0 ? 2 : indent + 2);
		return 0;
	}
	if (n == 0) {
		if (style != YAML_DOUBLE_QUOTED_SCALAR_STYLE)
			return FAST_NO;
	} else if (a.nl) {
		return FAST_NO;
	} else if (!a.plain && style == YAML_PLAIN_SCALAR_STYLE) {
		style = YAML_SINGLE_QUOTED_SCALAR_STYLE;
	}
	int space = a.space;
	if (key && n > SIMPLE_KEY_MAX)
		return FAST_NO;
	/* a value with a space may be folded (libyaml's allow_breaks), when
	 * it can reach past the best width (quotes and escapes: at most 2n) */
	int fold = space && !key && (long)f->column + 3 + 2 * (long)n > (long)f->best_width;
	if (fold && style == YAML_DOUBLE_QUOTED_SCALAR_STYLE && memmem(s, n, "  ", 2))
		return FAST_NO;
	char q = style == YAML_PLAIN_SCALAR_STYLE ? 0 : style == YAML_SINGLE_QUOTED_SCALAR_STYLE ? '\'' : '"';
	if (!q) {
		if (!f->whitespace)
			fast_put(f, " ", 1);
	} else {
		fast_indicator(f, q == '\'' ? "'" : "\"", 1, 0, 0);
	}
	if (fold) {
		fast_folded(f, s, n, q, indent < 0 ? 2 : indent + 2);
	} else {
		size_t from = 0;
		for (size_t i = 0; q && i < n; i++) {
			const char *esc = q == '\'' ? (s[i] == '\'' ? "''" : NULL)
						    : (s[i] == '"' ? "\\\"" : s[i] == '\\' ? "\\\\" : NULL);
			if (!esc)
				continue;
			fast_put(f, s + from, i - from);
			fast_put(f, esc, 2);
			from = i + 1;
		}
		fast_put(f, s + from, n - from);
	}
	if (q)
		fast_put(f, &q, 1);
	f->whitespace = 0;
	f->indention = 0;
	return 0;
}

static int fast_string(fast_ctx *f, const char *s, size_t n, int key, int indent)
{
	return fast_scalar(f, s, n, string_style(s, n), key, indent);
}

/* Node n at the emitter's indent (the enclosing collection's, -1 at the
 * root), as a mapping's value (in_mapping) or not. */
static int fast_node(fast_ctx *f, const gojson_node *n, int indent, int in_mapping, int depth)
{
	int rc = 0;
	if (depth > GOJSON_MAX_DEPTH)
		return FAST_NO; /* libyaml's path reports it */
	switch (n->type) {
	case GOJSON_NULL: return fast_scalar(f, "null", 4, YAML_PLAIN_SCALAR_STYLE, 0, indent);
	case GOJSON_TRUE: return fast_scalar(f, "true", 4, YAML_PLAIN_SCALAR_STYLE, 0, indent);
	case GOJSON_FALSE: return fast_scalar(f, "false", 5, YAML_PLAIN_SCALAR_STYLE, 0, indent);
	case GOJSON_NUMBER: {
		char buf[64];
		int len = number_text(n->text, n->len, buf, sizeof buf);
		if (len < 0)
			return fast_string(f, n->text, n->len, 0, indent);
		return fast_scalar(f, buf, (size_t)len, YAML_PLAIN_SCALAR_STYLE, 0, indent);
	}
	case GOJSON_STRING: return fast_string(f, n->text, n->len, 0, indent);
	case GOJSON_ARRAY: {
		if (!n->n) {
			fast_indicator(f, "[", 1, 1, 0);
			fast_indicator(f, "]", 0, 0, 0);
			return 0;
		}
		/* libyaml's increase_indent: a sequence in a mapping is not
		 * indented */
		int in = indent < 0 ? 0 : in_mapping && !f->indention ? indent : indent + 2;
		for (size_t i = 0; i < n->n && !rc; i++) {
			fast_write_indent(f, in);
			fast_indicator(f, "-", 1, 0, 1);
			rc = fast_node(f, &n->items[i], in, 0, depth + 1);
		}
		return rc;
	}
	case GOJSON_OBJECT: {
		if (!n->n) {
			fast_indicator(f, "{", 1, 1, 0);
			fast_indicator(f, "}", 0, 0, 0);
			return 0;
		}
		key_ent *ents = sorted_keys(n);
		if (!ents)
			return FAST_NO; /* out of memory: libyaml's path reports it */
		int in = indent < 0 ? 0 : indent + 2;
		for (size_t i = 0; i < n->n && !rc; i++) {
			if (i + 1 < n->n && same_key(&ents[i], &ents[i + 1]))
				continue; /* the last of equal keys wins */
			fast_write_indent(f, in);
			rc = fast_string(f, ents[i].key->text, ents[i].key->len, 1, in);
			if (!rc) {
				fast_indicator(f, ":", 0, 0, 0);
				rc = fast_node(f, ents[i].val, in, 1, depth + 1);
			}
		}
		free(ents);
		return rc;
	}
	}
	return FAST_NO;
}

/* Appends root as emit_tree's libyaml emitter would, or nothing and
 * FAST_NO when the tree is not plain data this printer takes. */
static int fast_tree(const gojson_node *root, int width, bh_buf *out)
{
	size_t mark = out->len;
	fast_ctx f = {.out = out, .best_width = width == 0 ? 80 : width < 0 ? INT32_MAX : width,
		      .column = 0, .whitespace = 1, .indention = 1};
	if (width > 0 && width <= 4)
		return FAST_NO; /* libyaml takes 80 then */
	int rc = fast_node(&f, root, -1, 0, 0);
	if (!rc) {
		fast_write_indent(&f, 0); /* the document end */
		if (!bh_buf_ok(out))
			rc = FAST_NO;
	}
	if (rc) {
		out->len = mark;
		if (out->data)
			out->data[mark] = '\0';
	}
	return rc;
}

/* goyaml's reader refuses these before parsing (JSON text may carry DEL,
 * C1 controls or U+FFFE/U+FFFF unescaped). */
static int yaml_chars_ok(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		if (u[i] < 0x80) { /* most of JSON text: no rune to decode */
			if (u[i] < 0x20 ? !(u[i] == '\t' || u[i] == '\n' || u[i] == '\r') : u[i] == 0x7F)
				return 0;
			i++;
			continue;
		}
		int32_t r;
		int sz = utf8_rune_go(u + i, n - i, &r);
		if (r < 0)
			return 0;
		if (!(r == 0x09 || r == 0x0A || r == 0x0D || (r >= 0x20 && r <= 0x7E) || r == 0x85 ||
		      (r >= 0xA0 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || r >= 0x10000))
			return 0;
		i += (size_t)sz;
	}
	return 1;
}

struct yaml_emitter_kept {
	yaml_emitter_t em;
};

/* Sets a kept emitter, whose last stream ended, up for a new stream as
 * yaml_emitter_initialize would, but keeping its buffers, stacks and event
 * queue (emptied) instead of allocating them again (48 KiB, and a large
 * request makes malloc consolidate its fast bins). 0 when it holds anything
 * a finished stream does not (events, tag directives, anchors): then it is
 * not reused. */
static int emitter_rewind(yaml_emitter_t *em)
{
	yaml_emitter_t k = *em;
	if (k.events.head != k.events.tail || k.tag_directives.top != k.tag_directives.start || k.anchors ||
	    k.states.top != k.states.start)
		return 0;
	memset(em, 0, sizeof *em);
	em->buffer.start = em->buffer.pointer = em->buffer.last = k.buffer.start;
	em->buffer.end = k.buffer.end;
	em->raw_buffer.start = em->raw_buffer.pointer = em->raw_buffer.last = k.raw_buffer.start;
	em->raw_buffer.end = k.raw_buffer.end;
	em->states.start = em->states.top = k.states.start;
	em->states.end = k.states.end;
	em->events.start = em->events.head = em->events.tail = k.events.start;
	em->events.end = k.events.end;
	em->indents.start = em->indents.top = k.indents.start;
	em->indents.end = k.indents.end;
	em->tag_directives.start = em->tag_directives.top = k.tag_directives.start;
	em->tag_directives.end = k.tag_directives.end;
	return 1;
}

/* An emitter for a new stream: *kept rewound, else a new one (kept in
 * *kept when kept is not NULL, else in *local). NULL when out of memory. */
static yaml_emitter_t *emitter_open(yaml_emitter_kept **kept, yaml_emitter_t *local)
{
	yaml_emitter_t *em = local;
	if (kept && *kept) {
		if (emitter_rewind(&(*kept)->em))
			return &(*kept)->em;
		yaml_emitter_kept_free(*kept);
		*kept = NULL;
	}
	if (kept) {
		*kept = malloc(sizeof **kept);
		if (!*kept)
			return NULL;
		em = &(*kept)->em;
	}
	if (!yaml_emitter_initialize(em)) {
		if (kept) {
			free(*kept);
			*kept = NULL;
		}
		return NULL;
	}
	return em;
}

/* After a stream: a kept emitter stays for the next one unless the stream
 * failed (its state is then unknown); any other is deleted. */
static void emitter_close(yaml_emitter_kept **kept, yaml_emitter_t *em, int failed)
{
	if (!kept) {
		yaml_emitter_delete(em);
	} else if (failed) {
		yaml_emitter_kept_free(*kept);
		*kept = NULL;
	}
}

void yaml_emitter_kept_free(yaml_emitter_kept *k)
{
	if (!k)
		return;
	yaml_emitter_delete(&k->em);
	free(k);
}

/* Appends root as one YAML document, as goyaml.v2 Marshal prints what
 * sigs.k8s.io/yaml loaded from JSON text; nothing on error. */
static int emit_tree(const gojson_node *root, int width, int libyaml_only, yaml_emitter_kept **kept, bh_buf *out,
		     bh_error *err)
{
	emit_ctx c;
	yaml_emitter_t local;
	yaml_event_t ev;
	size_t mark = out->len;
	int rc;
	if (!libyaml_only && fast_tree(root, width, out) == 0)
		return 0;
	memset(&c, 0, sizeof c);
	c.out = out;
	c.err = err;
	c.em = emitter_open(kept, &local);
	if (!c.em)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	yaml_emitter_set_output(c.em, write_handler, out);
	yaml_emitter_set_unicode(c.em, 1);
	if (width)
		yaml_emitter_set_width(c.em, width);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	rc = emit_event(&c, &ev);
	if (!rc) {
		yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
		rc = emit_event(&c, &ev);
	}
	if (!rc)
		rc = emit_node(&c, root, 0);
	if (!rc) {
		yaml_document_end_event_initialize(&ev, 1);
		rc = emit_event(&c, &ev);
	}
	if (!rc) {
		c.em->open_ended = 0;
		yaml_stream_end_event_initialize(&ev);
		rc = emit_event(&c, &ev);
	}
	emitter_close(kept, c.em, rc != 0);
	if (!rc && c.nboms) /* on libyaml's own text: before unmark */
		rc = bom_unplace(&c, out, mark);
	if (!rc && c.marked)
		unmark(out, mark);
	bh_buf_free(&c.boms);
	free(c.bom_at);
	if (!rc && !bh_buf_ok(out))
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
	if (rc) {
		out->len = mark;
		if (out->data)
			out->data[mark] = '\0';
	}
	return rc;
}

static int emit_json_text(const char *json, size_t len, int width, yaml_emitter_kept **kept, bh_buf *out,
			  bh_error *err)
{
	gojson_node *root;
	int rc;
	if (!yaml_chars_ok(json, len))
		return bh_error_set(err, BH_EINVAL, "yaml: %s",
				    utf8_check_go(json, len) ? "control characters are not allowed" : "invalid leading UTF-8 octet");
	rc = gojson_tree_load_yaml(json, len, NULL, &root, err);
	if (rc)
		return rc;
	rc = emit_tree(root, width, 0, kept, out, err);
	gojson_tree_free(root);
	return rc;
}

int yaml_emit_json_text(const char *json, size_t len, bh_buf *out, bh_error *err)
{
	return emit_json_text(json, len, 0, NULL, out, err);
}

int yaml_emit_json_text_unfolded(const char *json, size_t len, bh_buf *out, bh_error *err)
{
	return emit_json_text(json, len, -1, NULL, out, err);
}

int yaml_emit_json_text_kept(yaml_emitter_kept **kept, const char *json, size_t len, bh_buf *out, bh_error *err)
{
	return emit_json_text(json, len, 0, kept, out, err);
}

int yaml_emit_json_tree_kept(yaml_emitter_kept **kept, const gojson_node *root, bh_buf *out, bh_error *err)
{
	return emit_tree(root, 0, 0, kept, out, err);
}

int yaml_emit_json_tree_libyaml(const gojson_node *root, bh_buf *out, bh_error *err)
{
	return emit_tree(root, 0, 1, NULL, out, err);
}

static int emit_value(const json_t *v, int width, bh_buf *out, bh_error *err)
{
	bh_buf js = BH_BUF_INIT;
	int rc = gojson_encode(v, 0, &js, err);
	if (rc)
		bh_error_prefix(err, "error marshaling into JSON");
	else
		rc = emit_json_text(bh_buf_str(&js), js.len, width, NULL, out, err);
	bh_buf_free(&js);
	return rc;
}

int yaml_emit(const json_t *v, bh_buf *out, bh_error *err)
{
	return emit_value(v, 0, out, err);
}

int yaml_emit_unfolded(const json_t *v, bh_buf *out, bh_error *err)
{
	return emit_value(v, -1, out, err); /* libyaml: a negative width is unlimited */
}
