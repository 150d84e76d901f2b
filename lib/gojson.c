/* lib/gojson.c — see gojson.h. */
#include "lib/gojson.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "lib/gostrconv.h"
#include "lib/scan.h"
#include "lib/vec.h"
#include "lib/yaml_resolve.h"

/* ---- encoding ------------------------------------------------------------ */

/* From s[i], 16 bytes a step (SSE2; none without): the first block of 16
 * holding a quote, a backslash, a control, a byte >= 0x80 or, when html,
 * one of <>&, is where this stops, at that byte; else where fewer than 16
 * bytes are left. */
static size_t plain_ascii_run(const unsigned char *s, size_t i, size_t n, int html)
{
#ifdef __SSE2__
	while (i + 16 <= n) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i bad = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)), /* controls, >= 0x80 */
					   _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
							_mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
		if (html)
			bad = _mm_or_si128(bad, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('<')),
							     _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('>')),
									  _mm_cmpeq_epi8(v, _mm_set1_epi8('&')))));
		unsigned m = (unsigned)_mm_movemask_epi8(bad);
		if (m)
			return i + (size_t)__builtin_ctz(m);
		i += 16;
	}
#else
	(void)s, (void)n, (void)html;
#endif
	return i;
}

void gojson_quote(bh_buf *out, const char *str, size_t n, int flags)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	int html = !(flags & GOJSON_NO_HTML_ESCAPE);
	size_t i = 0, start = 0;
	bh_buf_putc(out, '"');
	while (i < n) {
		/* 16 bytes a step over printable ASCII that needs no escape */
		i = plain_ascii_run(s, i, n, html);
		if (i >= n)
			break;
		unsigned c = s[i];
		if (c < 0x80) {
			int safe = c >= 0x20 && c != '"' && c != '\\' &&
				   !(html && (c == '<' || c == '>' || c == '&'));
			if (safe) {
				i++;
				continue;
			}
			bh_buf_put(out, s + start, i - start);
			switch (c) {
			case '\\': case '"':
				bh_buf_putc(out, '\\');
				bh_buf_putc(out, (char)c);
				break;
			case '\b': bh_buf_puts(out, "\\b"); break;
			case '\f': bh_buf_puts(out, "\\f"); break;
			case '\n': bh_buf_puts(out, "\\n"); break;
			case '\r': bh_buf_puts(out, "\\r"); break;
			case '\t': bh_buf_puts(out, "\\t"); break;
			default:
				bh_buf_puts(out, "\\u00");
				bh_buf_putc(out, hex[c >> 4]);
				bh_buf_putc(out, hex[c & 0xF]);
			}
			i++;
			start = i;
			continue;
		}
		{
			int32_t r;
			int sz = utf8_rune_go(s + i, n - i, &r);
			if (r < 0) {
				bh_buf_put(out, s + start, i - start);
				bh_buf_puts(out, "\\ufffd");
				i += (size_t)sz;
				start = i;
				continue;
			}
			if (r == 0x2028 || r == 0x2029) {
				bh_buf_put(out, s + start, i - start);
				bh_buf_puts(out, r == 0x2028 ? "\\u2028" : "\\u2029");
				i += (size_t)sz;
				start = i;
				continue;
			}
			i += (size_t)sz;
		}
	}
	bh_buf_put(out, s + start, n - start);
	bh_buf_putc(out, '"');
}

void gojson_format_float(bh_buf *out, double v)
{
	char tmp[64];
	double a = fabs(v);
	char fmt = 'f';
	int n;
	if (a != 0 && (a < 1e-6 || a >= 1e21))
		fmt = 'e';
	n = go_format_float(tmp, sizeof tmp, v, fmt, -1);
	if (fmt == 'e' && n >= 4 && tmp[n - 4] == 'e' && tmp[n - 3] == '-' && tmp[n - 2] == '0') {
		tmp[n - 2] = tmp[n - 1];
		tmp[n - 1] = '\0';
		n--;
	}
	bh_buf_put(out, tmp, (size_t)n);
}

typedef struct kv {
	const char *key;
	size_t len;
	json_t *val;
} kv;

/* Go sorts map keys as strings: bytewise, embedded NULs included */
static int kvcmp(const void *a, const void *b)
{
	const kv *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->key, y->key, n);
	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

static void newline(bh_buf *out, int depth)
{
	bh_buf_putc(out, '\n');
	for (int i = 0; i < depth; i++)
		bh_buf_puts(out, "  ");
}

static int encode(const json_t *v, int flags, int depth, bh_buf *out, bh_error *err)
{
	int ind = flags & GOJSON_INDENT;
	if (depth > GOJSON_MAX_DEPTH)
		return bh_error_set(err, BH_ELIMIT, "json: value nested deeper than %d levels", GOJSON_MAX_DEPTH);
	switch (json_typeof(v)) {
	case JSON_NULL: bh_buf_puts(out, "null"); return 0;
	case JSON_TRUE: bh_buf_puts(out, "true"); return 0;
	case JSON_FALSE: bh_buf_puts(out, "false"); return 0;
	case JSON_INTEGER:
		bh_buf_printf(out, "%lld", (long long)json_integer_value(v));
		return 0;
	case JSON_REAL: {
		double d = json_real_value(v);
		if (isnan(d) || isinf(d))
			return bh_error_set(err, BH_EINVAL, "json: unsupported value: %s",
					    isnan(d) ? "NaN" : d > 0 ? "+Inf" : "-Inf");
		gojson_format_float(out, d);
		return 0;
	}
	case JSON_STRING:
		gojson_quote(out, json_string_value(v), json_string_length(v), flags);
		return 0;
	case JSON_ARRAY: {
		size_t i, n = json_array_size(v);
		bh_buf_putc(out, '[');
		for (i = 0; i < n; i++) {
			int rc;
			if (i)
				bh_buf_putc(out, ',');
			if (ind)
				newline(out, depth + 1);
			rc = encode(json_array_get(v, i), flags, depth + 1, out, err);
			if (rc)
				return rc;
		}
		if (ind && n)
			newline(out, depth);
		bh_buf_putc(out, ']');
		return 0;
	}
	case JSON_OBJECT: {
		size_t n = json_object_size(v), i = 0;
		kv *ents;
		void *it;
		int rc = 0;
		if (n == 0) {
			bh_buf_puts(out, "{}");
			return 0;
		}
		ents = malloc(n * sizeof *ents);
		if (!ents)
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		for (it = json_object_iter((json_t *)v); it && i < n; it = json_object_iter_next((json_t *)v, it), i++) {
			ents[i].key = json_object_iter_key(it);
			ents[i].len = json_object_iter_key_len(it);
			ents[i].val = json_object_iter_value(it);
		}
		n = i;
		qsort(ents, n, sizeof *ents, kvcmp);
		bh_buf_putc(out, '{');
		for (i = 0; i < n && !rc; i++) {
			if (i)
				bh_buf_putc(out, ',');
			if (ind)
				newline(out, depth + 1);
			gojson_quote(out, ents[i].key, ents[i].len, flags);
			bh_buf_puts(out, ind ? ": " : ":");
			rc = encode(ents[i].val, flags, depth + 1, out, err);
		}
		free(ents);
		if (rc)
			return rc;
		if (ind)
			newline(out, depth);
		bh_buf_putc(out, '}');
		return 0;
	}
	}
	return bh_error_set(err, BH_EINVAL, "json: unsupported value type");
}

int gojson_encode(const json_t *v, int flags, bh_buf *out, bh_error *err)
{
	size_t mark = out->len;
	int rc;
	if (!v) {
		bh_buf_puts(out, "null");
		return 0;
	}
	rc = encode(v, flags, 0, out, err);
	if (rc) {
		out->len = mark;
		if (out->data)
			out->data[mark] = '\0';
		return rc;
	}
	if (!bh_buf_ok(out))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	return 0;
}

/* ---- decoding ------------------------------------------------------------ */

/* A loaded tree's texts and item arrays come from blocks of its own, freed
 * with it at once, not one malloc each: the root sits in a tree_mem. */
typedef struct tree_block {
	struct tree_block *next;
	size_t used, cap;
	max_align_t data[]; /* cap bytes */
} tree_block;

typedef struct tree_mem {
	tree_block *blocks; /* the newest first */
	gojson_tree_info info;
	gojson_node root;
} tree_mem;

/* an array grown in place keeps the block's next allocation aligned */
_Static_assert(sizeof(gojson_node) % _Alignof(max_align_t) == 0, "gojson_node size");

#define TREE_BLOCK_MIN ((size_t)16 << 10)
#define TREE_BLOCK_MAX ((size_t)1 << 20)

/* tree_alloc when the newest block has no room: a new block */
static void *tree_alloc_block(tree_mem *m, size_t n)
{
	tree_block *b = m->blocks;
	size_t cap = b && b->cap < TREE_BLOCK_MAX ? b->cap * 2 : TREE_BLOCK_MIN;
	if (cap < n)
		cap = n;
	if (!(b = malloc(sizeof *b + cap)))
		return NULL;
	b->next = m->blocks;
	b->used = n;
	b->cap = cap;
	m->blocks = b;
	return b->data;
}

/* n bytes (aligned for a gojson_node) from m's blocks; NULL when out of
 * memory */
static inline void *tree_alloc(tree_mem *m, size_t n)
{
	tree_block *b = m->blocks;
	n = (n + _Alignof(max_align_t) - 1) & ~(_Alignof(max_align_t) - 1);
	if (!b || b->cap - b->used < n)
		return tree_alloc_block(m, n);
	void *r = (unsigned char *)b->data + b->used;
	b->used += n;
	return r;
}

/* A NUL-terminated copy of s[0..n) from m */
static inline char *tree_strdup(tree_mem *m, const void *s, size_t n)
{
	char *t = tree_alloc(m, n + 1);
	if (t) {
		if (n)
			memcpy(t, s, n);
		t[n] = 0;
	}
	return t;
}

typedef struct parser {
	const unsigned char *s;
	size_t n, i;
	tree_mem *mem;  /* where the tree's texts and arrays come from */
	int max_depth;
	int yaml_breaks; /* fold raw NEL/LS/PS inside strings as YAML does */
	int in_key;      /* parsing an object key */
	int breaks_seen; /* raw YAML line breaks so far (yaml_breaks mode) */
	gojson_node *stk; /* the items of open containers (see stk_push) */
	gojson_tree_info *info;
	size_t stk_n, stk_cap;
	bh_error *err;
} parser;

/* Go's quoteChar(): how the scanner names an offending byte. */
static void quote_char(char out[16], unsigned c)
{
	if (c == '\'') {
		strcpy(out, "'\\''");
		return;
	}
	if (c == '"') {
		strcpy(out, "'\"'");
		return;
	}
	switch (c) {
	case '\a': strcpy(out, "'\\a'"); return;
	case '\b': strcpy(out, "'\\b'"); return;
	case '\f': strcpy(out, "'\\f'"); return;
	case '\n': strcpy(out, "'\\n'"); return;
	case '\r': strcpy(out, "'\\r'"); return;
	case '\t': strcpy(out, "'\\t'"); return;
	case '\v': strcpy(out, "'\\v'"); return;
	case '\\': strcpy(out, "'\\\\'"); return;
	}
	if (c < 0x20 || c == 0x7F) {
		snprintf(out, 16, "'\\x%02x'", c);
	} else if (c < 0x80) {
		snprintf(out, 16, "'%c'", (char)c);
	} else if (!go_is_print((int32_t)c)) {
		snprintf(out, 16, "'\\u%04x'", c);
	} else {
		/* string(byte) is the rune U+00XX, printed as UTF-8 */
		snprintf(out, 16, "'%c%c'", (char)(0xC0 | (c >> 6)), (char)(0x80 | (c & 0x3F)));
	}
}

/* A NUL-terminated copy of the input's bytes [st, st + n) from the tree's
 * memory. A short one (most keys and numbers) is copied as 16 bytes with
 * no call: its allocation is rounded up to 16 bytes (max_align_t), and the
 * input holds 16 from st; the bytes past the NUL are never read. */
static inline __attribute__((always_inline)) char *text_dup(parser *p, size_t st, size_t n)
{
	if (_Alignof(max_align_t) >= 16 && n < 16 && p->n - st >= 16) {
		char *t = tree_alloc(p->mem, n + 1);
		if (t) {
			memcpy(t, p->s + st, 16);
			t[n] = 0;
		}
		return t;
	}
	return tree_strdup(p->mem, p->s + st, n);
}

static int bad(parser *p, const char *context)
{
	char q[16];
	if (p->i >= p->n)
		return bh_error_set(p->err, BH_EPARSE, "unexpected end of JSON input");
	quote_char(q, p->s[p->i]);
	return bh_error_set(p->err, BH_EPARSE, "invalid character %s %s", q, context);
}

/* bad() inside a number or a literal: at the end of the input Go's scanner
 * steps one space through the token's state (scanner.eof), so a token cut
 * short is "invalid character ' ' in literal true (expecting 'e')", not
 * the end of the input */
static int bad_in_token(parser *p, const char *context)
{
	if (p->i >= p->n)
		return bh_error_set(p->err, BH_EPARSE, "invalid character ' ' %s", context);
	return bad(p, context);
}

static void skip_ws_run(parser *p)
{
	const unsigned char *s = p->s;
	size_t i = p->i, n = p->n;
	while (i < n) {
		unsigned char c = s[i];
		if (c == '\n') /* then the indentation of pretty-printed JSON */
			i = bh_space_run_end((const char *)s, i + 1, n);
		else if (c == ' ' || c == '\t' || c == '\r')
			i++;
		else
			break;
	}
	p->i = i;
}

/* past the whitespace at p->i: mostly none or one space (after a ':'),
 * seen without a call */
static inline void skip_ws(parser *p)
{
	if (p->i < p->n && p->s[p->i] > ' ')
		return;
	if (p->n - p->i > 1 && p->s[p->i] == ' ' && p->s[p->i + 1] > ' ') {
		p->i++;
		return;
	}
	skip_ws_run(p);
}

static int read_u4(parser *p, int32_t *r)
{
	int32_t v = 0;
	for (int k = 0; k < 4; k++) {
		int h;
		if (p->i >= p->n)
			return bad(p, "");
		h = go_unhex(p->s[p->i]);
		if (h < 0)
			return bad(p, "in \\u hexadecimal character escape");
		v = v * 16 + h;
		p->i++;
	}
	*r = v;
	return 0;
}

/* A raw line break inside a double-quoted YAML scalar (libyaml/goyaml
 * scan_flow_scalar): blanks before it are dropped, blanks and further breaks
 * after it are consumed; a lone NEL becomes one space, LS/PS are kept. */
static void fold_breaks(parser *p, bh_buf *b)
{
	bh_buf trailing = BH_BUF_INIT;
	char leading[3];
	size_t ll;
	int32_t r;
	while (b->len && b->data[b->len - 1] == ' ')
		b->data[--b->len] = '\0';
	p->i += (size_t)utf8_rune_go(p->s + p->i, p->n - p->i, &r);
	if (r == 0x85) {
		leading[0] = '\n';
		ll = 1;
	} else {
		memcpy(leading, p->s + p->i - 3, 3);
		ll = 3;
	}
	while (p->i < p->n) {
		int sz;
		if (p->s[p->i] == ' ') {
			p->i++;
			continue;
		}
		sz = utf8_rune_go(p->s + p->i, p->n - p->i, &r);
		if (r == 0x85)
			bh_buf_putc(&trailing, '\n');
		else if (r == 0x2028 || r == 0x2029)
			bh_buf_put(&trailing, p->s + p->i, (size_t)sz);
		else
			break;
		p->i += (size_t)sz;
	}
	if (leading[0] == '\n') {
		if (trailing.len == 0)
			bh_buf_putc(b, ' ');
		else
			bh_buf_put(b, trailing.data, trailing.len);
	} else {
		bh_buf_put(b, leading, ll);
		bh_buf_put(b, trailing.data ? trailing.data : "", trailing.len);
	}
	bh_buf_free(&trailing);
}

/* The first byte of s[i..n) that is a quote, a backslash, a control or
 * not ASCII; n when there is none. */
static inline __attribute__((always_inline)) size_t string_run_end(const unsigned char *s, size_t i, size_t n)
{
	/* 16 bytes a step first (a schema's descriptions are long) */
	for (i = plain_ascii_run(s, i, n, 0); i < n; i++)
		if (s[i] == '"' || s[i] == '\\' || s[i] < 0x20 || s[i] >= 0x80)
			break;
	return i;
}

/* parse_string from p->i (in the string) when the string holds an escape,
 * a control or a byte >= 0x80 */
static int parse_string_slow(parser *p, gojson_node *node)
{
	bh_buf b = BH_BUF_INIT;
	int rc;
	for (;;) {
		unsigned c;
		if (p->i >= p->n) {
			rc = bad(p, "");
			goto fail;
		}
		c = p->s[p->i];
		if (c == '"') {
			p->i++;
			break;
		}
		if (c < 0x20) {
			rc = bad(p, "in string literal");
			goto fail;
		}
		if (c == '\\') {
			int32_t r;
			p->i++;
			if (p->i >= p->n) {
				rc = bad(p, "");
				goto fail;
			}
			c = p->s[p->i];
			switch (c) {
			case '"': case '\\': case '/': bh_buf_putc(&b, (char)c); p->i++; continue;
			case 'b': bh_buf_putc(&b, '\b'); p->i++; continue;
			case 'f': bh_buf_putc(&b, '\f'); p->i++; continue;
			case 'n': bh_buf_putc(&b, '\n'); p->i++; continue;
			case 'r': bh_buf_putc(&b, '\r'); p->i++; continue;
			case 't': bh_buf_putc(&b, '\t'); p->i++; continue;
			case 'u':
				p->i++;
				if ((rc = read_u4(p, &r)))
					goto fail;
				if (r >= 0xD800 && r < 0xDC00) {
					/* a high surrogate pairs only with a following \uDC00-\uDFFF */
					size_t save = p->i;
					int32_t lo;
					if (p->i + 1 < p->n && p->s[p->i] == '\\' && p->s[p->i + 1] == 'u') {
						p->i += 2;
						if ((rc = read_u4(p, &lo)))
							goto fail;
						if (lo >= 0xDC00 && lo < 0xE000) {
							go_append_rune(&b, 0x10000 + ((r - 0xD800) << 10) + (lo - 0xDC00));
							continue;
						}
					}
					p->i = save;
					r = 0xFFFD;
				} else if (r >= 0xDC00 && r < 0xE000) {
					r = 0xFFFD;
				}
				go_append_rune(&b, r);
				continue;
			default:
				rc = bad(p, "in string escape code");
				goto fail;
			}
		}
		if (c < 0x80) {
			size_t st = p->i;
			p->i = string_run_end(p->s, st, p->n);
			bh_buf_put(&b, p->s + st, p->i - st);
		} else {
			int32_t r;
			int sz = utf8_rune_go(p->s + p->i, p->n - p->i, &r);
			if (p->yaml_breaks && (r == 0x85 || r == 0x2028 || r == 0x2029)) {
				p->breaks_seen++;
				if (p->in_key) {
					/* a YAML simple key cannot span lines */
					rc = bh_error_set(p->err, BH_EPARSE, "yaml: line %d: did not find expected ',' or '}'",
							  p->breaks_seen);
					goto fail;
				}
				fold_breaks(p, &b);
				continue;
			}
			if (r < 0)
				go_append_rune(&b, 0xFFFD);
			else
				bh_buf_put(&b, p->s + p->i, (size_t)sz);
			p->i += (size_t)sz;
		}
	}
	if (!bh_buf_ok(&b)) {
		rc = bh_error_set(p->err, BH_ENOMEM, "out of memory");
		goto fail;
	}
	node->type = GOJSON_STRING;
	node->len = b.len;
	node->text = tree_strdup(p->mem, b.data ? b.data : "", b.len);
	bh_buf_free(&b);
	if (!node->text)
		return bh_error_set(p->err, BH_ENOMEM, "out of memory");
	return 0;
fail:
	bh_buf_free(&b);
	return rc;
}

static inline __attribute__((always_inline)) int parse_string(parser *p, gojson_node *node)
{
	size_t j;
	p->i++; /* opening quote */
	/* printable ASCII up to the closing quote: the text as it is */
	j = string_run_end(p->s, p->i, p->n);
	if (j >= p->n || p->s[j] != '"')
		return parse_string_slow(p, node);
	node->text = text_dup(p, p->i, j - p->i);
	if (!node->text)
		return bh_error_set(p->err, BH_ENOMEM, "out of memory");
	node->type = GOJSON_STRING;
	node->len = j - p->i;
	p->i = j + 1;
	return 0;
}

static int isdig(parser *p)
{
	return p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9';
}

static int parse_number(parser *p, gojson_node *node)
{
	size_t st = p->i;
	if (p->s[p->i] == '-') {
		p->i++;
		if (!isdig(p))
			return bad_in_token(p, "in numeric literal");
	}
	if (p->s[p->i] == '0') {
		p->i++;
	} else {
		while (isdig(p))
			p->i++;
	}
	if (p->i < p->n && p->s[p->i] == '.') {
		p->i++;
		if (!isdig(p))
			return bad_in_token(p, "after decimal point in numeric literal");
		while (isdig(p))
			p->i++;
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		p->info->long_numbers++;
		p->i++;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		if (!isdig(p))
			return bad_in_token(p, "in exponent of numeric literal");
		while (isdig(p))
			p->i++;
	}
	node->type = GOJSON_NUMBER;
	node->len = p->i - st;
	if (node->len >= 300)
		p->info->long_numbers += !memchr(p->s + st, 'e', node->len) && !memchr(p->s + st, 'E', node->len);
	node->text = text_dup(p, st, node->len);
	if (!node->text)
		return bh_error_set(p->err, BH_ENOMEM, "out of memory");
	return 0;
}

static int parse_literal(parser *p, const char *word, enum gojson_type t, gojson_node *node)
{
	size_t k;
	p->i++;
	for (k = 1; word[k]; k++) {
		char ctx[64];
		if (p->i >= p->n || p->s[p->i] != (unsigned char)word[k]) {
			snprintf(ctx, sizeof ctx, "in literal %s (expecting '%c')", word, word[k]);
			return bad_in_token(p, ctx);
		}
		p->i++;
	}
	node->type = t;
	return 0;
}

/* The items of the open arrays and objects wait on the parser's stack,
 * each container's after its own node; when it closes they move to the
 * tree's memory at once, at their exact size (no array grown and copied
 * while it fills, nor room left over). A new zeroed node on the stack: its
 * index (the stack may move while it is parsed: nodes are named by index) */
static int stk_grow(parser *p)
{
	if (VEC_RESERVE(p->stk, p->stk_cap, p->stk_n + 1, 64) < 0)
		return bh_error_set(p->err, BH_ENOMEM, "out of memory");
	return 0;
}

static inline __attribute__((always_inline)) int stk_push(parser *p, size_t *idx)
{
	int rc;
	if (p->stk_n == p->stk_cap && (rc = stk_grow(p)))
		return rc;
	*idx = p->stk_n++;
	memset(&p->stk[*idx], 0, sizeof *p->stk);
	return 0;
}

/* The container at idx closes: its n items (the nodes after it on the
 * stack) move to the tree's memory */
static int stk_close(parser *p, size_t idx, size_t n)
{
	if (n) {
		gojson_node *it = tree_alloc(p->mem, n * sizeof *it);
		if (!it)
			return bh_error_set(p->err, BH_ENOMEM, "out of memory");
		memcpy(it, &p->stk[idx + 1], n * sizeof *it);
		p->stk[idx].items = it;
	}
	p->stk[idx].n = n;
	p->stk_n = idx + 1;
	return 0;
}

static int parse_value(parser *p, size_t idx, int depth);

static int parse_array(parser *p, size_t idx, int depth)
{
	size_t slot;
	int rc;
	p->stk[idx].type = GOJSON_ARRAY;
	p->i++;
	skip_ws(p);
	if (p->i < p->n && p->s[p->i] == ']') {
		p->i++;
		return 0;
	}
	for (;;) {
		if ((rc = stk_push(p, &slot)))
			return rc;
		if ((rc = parse_value(p, slot, depth + 1)))
			return rc;
		skip_ws(p);
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			skip_ws(p);
			continue;
		}
		if (p->i < p->n && p->s[p->i] == ']') {
			p->i++;
			return stk_close(p, idx, p->stk_n - idx - 1);
		}
		return bad(p, "after array element");
	}
}

static int parse_object(parser *p, size_t idx, int depth)
{
	size_t slot;
	int rc;
	p->stk[idx].type = GOJSON_OBJECT;
	p->i++;
	skip_ws(p);
	if (p->i < p->n && p->s[p->i] == '}') {
		p->i++;
		return 0;
	}
	for (;;) {
		if (p->i >= p->n || p->s[p->i] != '"')
			return bad(p, "looking for beginning of object key string");
		if ((rc = stk_push(p, &slot)))
			return rc;
		p->in_key = 1;
		rc = parse_string(p, &p->stk[slot]);
		p->in_key = 0;
		if (rc)
			return rc;
		skip_ws(p);
		if (p->i >= p->n || p->s[p->i] != ':')
			return bad(p, "after object key");
		p->i++;
		skip_ws(p);
		if ((rc = stk_push(p, &slot)))
			return rc;
		if ((rc = parse_value(p, slot, depth + 1)))
			return rc;
		skip_ws(p);
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			skip_ws(p);
			continue;
		}
		if (p->i < p->n && p->s[p->i] == '}') {
			uint64_t keys = 0;
			size_t n = (p->stk_n - idx - 1) / 2;
			p->i++;
			for (size_t i = 0; i < n; i++) {
				const gojson_node *k = &p->stk[idx + 1 + 2 * i];
				keys |= gojson_key_bit(k->text, k->len);
			}
			p->stk[idx].keys = keys;
			if ((rc = stk_close(p, idx, n * 2)))
				return rc;
			p->stk[idx].n = n; /* pairs */
			return 0;
		}
		return bad(p, "after object key:value pair");
	}
}

static int parse_value(parser *p, size_t idx, int depth)
{
	unsigned c;
	if (p->i >= p->n)
		return bad(p, "");
	if (depth > p->max_depth)
		return bh_error_set(p->err, BH_ELIMIT, "exceeded max depth");
	p->info->values++;
	if (depth > p->info->max_depth)
		p->info->max_depth = depth;
	c = p->s[p->i];
	switch (c) {
	case '{': return parse_object(p, idx, depth);
	case '[': return parse_array(p, idx, depth);
	case '"': return parse_string(p, &p->stk[idx]);
	case 't': return parse_literal(p, "true", GOJSON_TRUE, &p->stk[idx]);
	case 'f': return parse_literal(p, "false", GOJSON_FALSE, &p->stk[idx]);
	case 'n': return parse_literal(p, "null", GOJSON_NULL, &p->stk[idx]);
	}
	if (c == '-' || (c >= '0' && c <= '9'))
		return parse_number(p, &p->stk[idx]);
	return bad(p, "looking for beginning of value");
}

void gojson_tree_free(gojson_node *root)
{
	if (!root)
		return;
	tree_mem *m = (tree_mem *)(void *)((unsigned char *)root - offsetof(tree_mem, root));
	for (tree_block *b = m->blocks, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(m);
}

static int tree_load(const char *text, size_t len, const gojson_limits *lim, int yaml_breaks,
		     gojson_node **out, bh_error *err);

const gojson_tree_info *gojson_tree_info_of(const gojson_node *root)
{
	const tree_mem *m = (const tree_mem *)(const void *)((const unsigned char *)root - offsetof(tree_mem, root));
	return &m->info;
}

int gojson_tree_load(const char *text, size_t len, const gojson_limits *lim,
		     gojson_node **out, bh_error *err)
{
	return tree_load(text, len, lim, 0, out, err);
}

int gojson_tree_load_yaml(const char *text, size_t len, const gojson_limits *lim,
			  gojson_node **out, bh_error *err)
{
	return tree_load(text, len, lim, 1, out, err);
}

static int tree_load(const char *text, size_t len, const gojson_limits *lim, int yaml_breaks,
		     gojson_node **out, bh_error *err)
{
	parser p;
	gojson_node *root;
	int rc;
	size_t max_bytes = lim && lim->max_bytes ? lim->max_bytes : GOJSON_MAX_BYTES;
	*out = NULL;
	if (len > max_bytes)
		return bh_error_set(err, BH_ELIMIT, "JSON document of %zu bytes exceeds the limit of %zu bytes", len, max_bytes);
	p.s = (const unsigned char *)text;
	p.n = len;
	p.i = 0;
	p.max_depth = lim && lim->max_depth > 0 ? lim->max_depth : GOJSON_MAX_DEPTH;
	p.yaml_breaks = yaml_breaks;
	p.in_key = 0;
	p.breaks_seen = 0;
	p.err = err;
	tree_mem *mem = calloc(1, sizeof *mem);
	if (!mem)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	p.mem = mem;
	p.stk = NULL;
	p.stk_n = p.stk_cap = 0;
	p.info = &mem->info;
	root = &mem->root;
	skip_ws(&p);
	size_t top;
	rc = stk_push(&p, &top);
	if (!rc)
		rc = parse_value(&p, top, 1);
	if (!rc) {
		*root = p.stk[top];
		skip_ws(&p);
		if (p.i < p.n)
			rc = bad(&p, "after top-level value");
	}
	free(p.stk);
	if (rc) {
		gojson_tree_free(root);
		return rc;
	}
	*out = root;
	return 0;
}

/* ---- tree -> json_t -------------------------------------------------------- */

static int is_integral_literal(const char *s)
{
	return strpbrk(s, ".eE") == NULL;
}

/* flags: GOJSON_KEEP_INTS; TO_JSON_SAVE_NUMBERS: a number past float64's
 * range becomes null, the first such error kept in err and *saved set (Go's
 * decoder into interface{}: d.saveError, and the decoding goes on) */
#define TO_JSON_SAVE_NUMBERS 0x100

static json_t *to_json(const gojson_node *n, int flags, bh_error *err, int *saved)
{
	switch (n->type) {
	case GOJSON_NULL: return json_null();
	case GOJSON_TRUE: return json_true();
	case GOJSON_FALSE: return json_false();
	case GOJSON_STRING: {
		json_t *s = json_stringn_nocheck(n->text, n->len);
		if (!s)
			bh_error_set(err, BH_ENOMEM, "out of memory");
		return s;
	}
	case GOJSON_NUMBER: {
		double d;
		json_t *v;
		if ((flags & GOJSON_KEEP_INTS) && is_integral_literal(n->text)) {
			long long ll;
			char *end;
			errno = 0;
			ll = strtoll(n->text, &end, 10);
			if (errno == 0 && *end == '\0') {
				v = json_integer(ll);
				if (!v)
					bh_error_set(err, BH_ENOMEM, "out of memory");
				return v;
			}
		}
		d = strtod(n->text, NULL);
		if (isinf(d)) {
			if (!(flags & TO_JSON_SAVE_NUMBERS) || !*saved)
				bh_error_set(err, BH_EINVAL, "json: cannot unmarshal number %s into Go value of type float64",
					     n->text);
			if (!(flags & TO_JSON_SAVE_NUMBERS))
				return NULL;
			*saved = 1;
			return json_null();
		}
		v = json_real(d);
		if (!v)
			bh_error_set(err, BH_ENOMEM, "out of memory");
		return v;
	}
	case GOJSON_ARRAY: {
		json_t *a = json_array();
		if (!a) {
			bh_error_set(err, BH_ENOMEM, "out of memory");
			return NULL;
		}
		for (size_t i = 0; i < n->n; i++) {
			json_t *e = to_json(&n->items[i], flags, err, saved);
			if (!e || json_array_append_new(a, e)) {
				if (e)
					bh_error_set(err, BH_ENOMEM, "out of memory");
				json_decref(a);
				return NULL;
			}
		}
		return a;
	}
	case GOJSON_OBJECT: {
		json_t *o = json_object();
		if (!o) {
			bh_error_set(err, BH_ENOMEM, "out of memory");
			return NULL;
		}
		for (size_t i = 0; i < n->n; i++) {
			const gojson_node *k = &n->items[2 * i];
			json_t *e = to_json(&n->items[2 * i + 1], flags, err, saved);
			if (!e || json_object_setn_new_nocheck(o, k->text, k->len, e)) {
				if (e)
					bh_error_set(err, BH_ENOMEM, "out of memory");
				json_decref(o);
				return NULL;
			}
		}
		return o;
	}
	}
	bh_error_set(err, BH_EINVAL, "json: bad node");
	return NULL;
}

int gojson_decode(const char *text, size_t len, const gojson_limits *lim, int flags,
		  json_t **out, bh_error *err)
{
	gojson_node *root;
	int rc;
	*out = NULL;
	rc = gojson_tree_load(text, len, lim, &root, err);
	if (rc)
		return rc;
	rc = gojson_tree_decode(root, flags, out, err);
	gojson_tree_free(root);
	return rc;
}

int gojson_tree_decode(const gojson_node *root, int flags, json_t **out, bh_error *err)
{
	int saved = 0;
	*out = to_json(root, flags, err, &saved);
	return *out ? 0 : (err ? err->code : BH_EINVAL);
}

int gojson_decode_as(const char *text, size_t len, const gojson_limits *lim, int want,
		     json_t **out, bh_error *err)
{
	gojson_node *root;
	const char *kind;
	int saved = 0;
	int rc = gojson_tree_load(text, len, lim, &root, err);
	*out = NULL;
	if (rc)
		return rc;
	/* the top level's kind first: a value of another kind is skipped whole */
	switch (root->type) {
	case GOJSON_NULL: kind = NULL; break;
	case GOJSON_ARRAY: kind = want == GOJSON_WANT_LIST ? NULL : "array"; break;
	case GOJSON_OBJECT: kind = want == GOJSON_WANT_LIST ? "object" : NULL; break;
	case GOJSON_STRING: kind = "string"; break;
	case GOJSON_TRUE: case GOJSON_FALSE: kind = "bool"; break;
	default: kind = "number"; break;
	}
	if (kind) {
		gojson_tree_free(root);
		return bh_error_set(err, BH_EINVAL, "json: cannot unmarshal %s into Go value of type %s", kind,
				    want == GOJSON_WANT_LIST ? "[]interface {}" : "map[string]interface {}");
	}
	*out = to_json(root, TO_JSON_SAVE_NUMBERS, err, &saved);
	gojson_tree_free(root);
	if (!*out)
		return err ? err->code : BH_EINVAL;
	return saved ? BH_EINVAL : 0;
}

int gojson_equal(const json_t *a, const json_t *b)
{
	if (json_is_number(a) && json_is_number(b))
		return json_number_value(a) == json_number_value(b);
	if (json_typeof(a) != json_typeof(b))
		return 0;
	if (json_is_array(a)) {
		if (json_array_size(a) != json_array_size(b))
			return 0;
		for (size_t i = 0; i < json_array_size(a); i++)
			if (!gojson_equal(json_array_get(a, i), json_array_get(b, i)))
				return 0;
		return 1;
	}
	if (json_is_object(a)) {
		void *it;
		if (json_object_size(a) != json_object_size(b))
			return 0;
		for (it = json_object_iter((json_t *)a); it; it = json_object_iter_next((json_t *)a, it)) {
			json_t *w = json_object_getn(b, json_object_iter_key(it), json_object_iter_key_len(it));
			if (!w || !gojson_equal(json_object_iter_value(it), w))
				return 0;
		}
		return 1;
	}
	return json_equal(a, b);
}
