/* lib/yaml_pretty.c — Helm's toYamlPretty: go.yaml.in/yaml/v3's Encoder with
 * SetIndent(2) on the value itself (no JSON round trip): block collections,
 * sequences indented under their key, no line folding, YAML 1.2 typing with
 * the YAML 1.1 booleans (y, yes, on, ...) still quoted. The style choice and
 * the scalar writers follow v3's emitterc.go (itself a port of libyaml). */
#include "lib/yaml.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gostrconv.h"
#include "lib/yaml_resolve.h"

enum style { ST_PLAIN, ST_SINGLE, ST_DOUBLE, ST_LITERAL };

typedef struct analysis {
	int multiline, flow_plain, block_plain, single_ok, block_ok;
} analysis;

static int is_break_at(const unsigned char *s, size_t n, size_t i)
{
	if (s[i] == '\r' || s[i] == '\n')
		return 1;
	if (s[i] == 0xC2 && i + 1 < n && s[i + 1] == 0x85)
		return 1;
	if (s[i] == 0xE2 && i + 2 < n && s[i + 1] == 0x80 && (s[i + 2] == 0xA8 || s[i + 2] == 0xA9))
		return 1;
	return 0;
}

static int is_blankz_at(const unsigned char *s, size_t n, size_t i)
{
	return i >= n || s[i] == ' ' || s[i] == '\t' || is_break_at(s, n, i);
}

static int is_printable_at(const unsigned char *s, size_t n, size_t i)
{
	unsigned c = s[i];
	unsigned c1 = i + 1 < n ? s[i + 1] : 0, c2 = i + 2 < n ? s[i + 2] : 0;
	return c == 0x0A || (c >= 0x20 && c <= 0x7E) || (c == 0xC2 && c1 >= 0xA0) || (c > 0xC2 && c < 0xED) ||
	       (c == 0xED && c1 < 0xA0) || c == 0xEE ||
	       (c == 0xEF && !(c1 == 0xBB && c2 == 0xBF) && !(c1 == 0xBF && (c2 == 0xBE || c2 == 0xBF)));
}

static size_t width_at(const unsigned char *s, size_t i)
{
	unsigned c = s[i];
	return (c & 0x80) == 0 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
}

/* v3 yaml_emitter_analyze_scalar */
static void analyze(const char *str, size_t n, analysis *a)
{
	const unsigned char *s = (const unsigned char *)str;
	int block_ind = 0, flow_ind = 0, line_breaks = 0, special = 0, tabs = 0;
	int leading_space = 0, leading_break = 0, trailing_space = 0, trailing_break = 0;
	int break_space = 0, space_break = 0, prev_space = 0, prev_break = 0;
	int preceded_ws = 1, followed_ws;
	if (n == 0) {
		a->multiline = 0;
		a->flow_plain = 0;
		a->block_plain = 1;
		a->single_ok = 1;
		a->block_ok = 0;
		return;
	}
	if (n >= 3 && ((s[0] == '-' && s[1] == '-' && s[2] == '-') || (s[0] == '.' && s[1] == '.' && s[2] == '.'))) {
		block_ind = 1;
		flow_ind = 1;
	}
	followed_ws = is_blankz_at(s, n, width_at(s, 0));
	for (size_t i = 0; i < n;) {
		size_t w = width_at(s, i);
		unsigned c = s[i];
		if (i == 0) {
			if (strchr("#,[]{}&*!|>'\"%@`", (int)c) && c) {
				flow_ind = 1;
				block_ind = 1;
			}
			if (c == '?' || c == ':') {
				flow_ind = 1;
				if (followed_ws)
					block_ind = 1;
			}
			if (c == '-' && followed_ws) {
				flow_ind = 1;
				block_ind = 1;
			}
		} else {
			if (strchr(",?[]{}", (int)c) && c)
				flow_ind = 1;
			if (c == ':') {
				flow_ind = 1;
				if (followed_ws)
					block_ind = 1;
			}
			if (c == '#' && preceded_ws) {
				flow_ind = 1;
				block_ind = 1;
			}
		}
		if (c == '\t')
			tabs = 1;
		else if (!is_printable_at(s, n, i))
			special = 1;
		if (c == ' ') {
			if (i == 0)
				leading_space = 1;
			if (i + w == n)
				trailing_space = 1;
			if (prev_break)
				break_space = 1;
			prev_space = 1;
			prev_break = 0;
		} else if (is_break_at(s, n, i)) {
			line_breaks = 1;
			if (i == 0)
				leading_break = 1;
			if (i + w == n)
				trailing_break = 1;
			if (prev_space)
				space_break = 1;
			prev_space = 0;
			prev_break = 1;
		} else {
			prev_space = 0;
			prev_break = 0;
		}
		preceded_ws = is_blankz_at(s, n, i);
		i += w;
		if (i < n)
			followed_ws = is_blankz_at(s, n, i + width_at(s, i));
	}
	a->multiline = line_breaks;
	a->flow_plain = a->block_plain = a->single_ok = a->block_ok = 1;
	if (leading_space || leading_break || trailing_space || trailing_break)
		a->flow_plain = a->block_plain = 0;
	if (trailing_space)
		a->block_ok = 0;
	if (break_space)
		a->flow_plain = a->block_plain = a->single_ok = 0;
	if (space_break || tabs || special)
		a->flow_plain = a->block_plain = a->single_ok = 0;
	if (space_break || special)
		a->block_ok = 0;
	if (line_breaks)
		a->flow_plain = a->block_plain = 0;
	if (flow_ind)
		a->flow_plain = 0;
	if (block_ind)
		a->block_plain = 0;
}

static int is_old_bool(const char *s, size_t n)
{
	static const char *const w[] = {"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
					"on", "On", "ON", "off", "Off", "OFF", NULL};
	for (const char *const *p = w; *p; p++)
		if (strlen(*p) == n && memcmp(*p, s, n) == 0)
			return 1;
	return 0;
}

/* v3 resolve("", s) == strTag: the 1.1 words y/yes/on/... are not special
 * in v3's table (they are handled by isOldBool) */
static int resolves_to_str(const char *s, size_t n)
{
	yres r;
	if (is_old_bool(s, n))
		return 1;
	yaml_resolve("", s, n, &r);
	return r.kind == YR_STR;
}

/* v3 stringv + select_scalar_style */
static enum style choose_style(const char *s, size_t n, int simple_key, analysis *a)
{
	enum style st;
	int can_plain = resolves_to_str(s, n) && !yaml_is_base60_float(s, n) && !is_old_bool(s, n);
	analyze(s, n, a);
	if (memchr(s, '\n', n))
		st = ST_LITERAL;
	else if (can_plain)
		st = ST_PLAIN;
	else
		st = ST_DOUBLE;
	if (simple_key && a->multiline)
		st = ST_DOUBLE;
	if (st == ST_PLAIN) {
		if (!a->block_plain)
			st = ST_SINGLE;
		if (n == 0 && simple_key)
			st = ST_SINGLE;
	}
	if (st == ST_SINGLE && !a->single_ok)
		st = ST_DOUBLE;
	if (st == ST_LITERAL && (!a->block_ok || simple_key))
		st = ST_DOUBLE;
	return st;
}

static void put_indent(bh_buf *b, int indent)
{
	for (int i = 0; i < indent; i++)
		bh_buf_putc(b, ' ');
}

static void write_double(bh_buf *b, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	static const char hex[] = "0123456789ABCDEF";
	/* yaml.v3's is_bom(b, i) reads b[0..2], not b[i..]: in a string that
	 * starts with a BOM every character is escaped */
	int bom = n >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF;
	bh_buf_putc(b, '"');
	for (size_t i = 0; i < n;) {
		size_t w = width_at(s, i);
		int32_t r;
		if (w > n - i)
			w = n - i;
		if (!is_printable_at(s, n, i) || bom ||
		    is_break_at(s, n, i) || s[i] == '"' || s[i] == '\\') {
			utf8_rune_go(s + i, n - i, &r);
			if (r < 0)
				r = s[i];
			bh_buf_putc(b, '\\');
			switch (r) {
			case 0x00: bh_buf_putc(b, '0'); break;
			case 0x07: bh_buf_putc(b, 'a'); break;
			case 0x08: bh_buf_putc(b, 'b'); break;
			case 0x09: bh_buf_putc(b, 't'); break;
			case 0x0A: bh_buf_putc(b, 'n'); break;
			case 0x0B: bh_buf_putc(b, 'v'); break;
			case 0x0C: bh_buf_putc(b, 'f'); break;
			case 0x0D: bh_buf_putc(b, 'r'); break;
			case 0x1B: bh_buf_putc(b, 'e'); break;
			case 0x22: bh_buf_putc(b, '"'); break;
			case 0x5C: bh_buf_putc(b, '\\'); break;
			case 0x85: bh_buf_putc(b, 'N'); break;
			case 0xA0: bh_buf_putc(b, '_'); break;
			case 0x2028: bh_buf_putc(b, 'L'); break;
			case 0x2029: bh_buf_putc(b, 'P'); break;
			default:
				if (r <= 0xFF) {
					bh_buf_putc(b, 'x');
					bh_buf_putc(b, hex[(r >> 4) & 0xF]);
					bh_buf_putc(b, hex[r & 0xF]);
				} else if (r <= 0xFFFF) {
					bh_buf_putc(b, 'u');
					for (int k = 12; k >= 0; k -= 4)
						bh_buf_putc(b, hex[(r >> k) & 0xF]);
				} else {
					bh_buf_putc(b, 'U');
					for (int k = 28; k >= 0; k -= 4)
						bh_buf_putc(b, hex[(r >> k) & 0xF]);
				}
			}
			i += w;
			continue;
		}
		bh_buf_put(b, s + i, w);
		i += w;
	}
	bh_buf_putc(b, '"');
}

static void write_single(bh_buf *b, const char *str, size_t n, int indent)
{
	const unsigned char *s = (const unsigned char *)str;
	int breaks = 0;
	bh_buf_putc(b, '\'');
	for (size_t i = 0; i < n;) {
		size_t w = width_at(s, i);
		if (w > n - i)
			w = n - i;
		if (is_break_at(s, n, i)) {
			bh_buf_put(b, s + i, w);
			breaks = 1;
		} else {
			if (breaks)
				put_indent(b, indent);
			if (s[i] == '\'')
				bh_buf_putc(b, '\'');
			bh_buf_put(b, s + i, w);
			breaks = 0;
		}
		i += w;
	}
	bh_buf_putc(b, '\'');
}

/* "|" with hints, then the lines at `indent` */
static void write_literal(bh_buf *b, const char *str, size_t n, int indent)
{
	const unsigned char *s = (const unsigned char *)str;
	int breaks = 1;
	bh_buf_putc(b, '|');
	if (n && (s[0] == ' ' || is_break_at(s, n, 0)))
		bh_buf_putc(b, '2');
	/* yaml.v3's chomping: '-' unless the last character is a break (NEL,
	 * LS, PS too), '+' when the one before it is one as well */
	size_t last = n, prev;
	while (last > 0 && (s[--last] & 0xC0) == 0x80)
		;
	prev = last;
	while (prev > 0 && (s[--prev] & 0xC0) == 0x80)
		;
	if (n == 0 || !is_break_at(s, n, last))
		bh_buf_putc(b, '-');
	else if (last == 0 || is_break_at(s, n, prev))
		bh_buf_putc(b, '+');
	bh_buf_putc(b, '\n');
	for (size_t i = 0; i < n;) {
		size_t w = width_at(s, i);
		if (w > n - i)
			w = n - i;
		if (is_break_at(s, n, i)) { /* yaml.v3 writes NEL, LS, PS as they are, then no indent */
			bh_buf_put(b, s + i, w);
			breaks = 1;
		} else {
			if (breaks)
				put_indent(b, indent);
			bh_buf_put(b, s + i, w);
			breaks = 0;
		}
		i += w;
	}
	/* a last '\n' (or NEL, LS, PS) ends the line: see next_line */
}

/* yaml.v3's write_indent before the next key, item or ": ", or at the
 * document's end: a line break and the indent, but no break after a
 * literal scalar that ended in a break, '\n' or a raw LS or PS
 * (write_break left the column at 0: only the spaces follow). Nothing
 * else ends in a break: other scalars end in a quote or a non-break. */
static void next_line(bh_buf *b, int indent)
{
	const unsigned char *e = (const unsigned char *)b->data + b->len;
	if (!(b->len >= 1 && e[-1] == '\n') &&
	    !(b->len >= 3 && e[-3] == 0xE2 && e[-2] == 0x80 && (e[-1] == 0xA8 || e[-1] == 0xA9)))
		bh_buf_putc(b, '\n');
	put_indent(b, indent);
}

static void write_string(bh_buf *b, const char *s, size_t n, int simple_key, int indent, int content_indent)
{
	analysis a;
	switch (choose_style(s, n, simple_key, &a)) {
	case ST_PLAIN: bh_buf_put(b, s, n); break;
	case ST_SINGLE: write_single(b, s, n, indent); break;
	case ST_DOUBLE: write_double(b, s, n); break;
	case ST_LITERAL: write_literal(b, s, n, content_indent); break;
	}
}

/* v3 stringv for text that is not UTF-8 */
static void write_binary(bh_buf *b, const char *s, size_t n)
{
	bh_buf_puts(b, "!!binary ");
	bh_buf_put_base64(b, s, n, 0);
}

static void write_scalar(bh_buf *b, const yaml_pretty_hooks *h, const json_t *v, int indent, int content_indent)
{
	char t[64];
	switch (json_typeof(v)) {
	case JSON_NULL: bh_buf_puts(b, "null"); break;
	case JSON_TRUE: bh_buf_puts(b, "true"); break;
	case JSON_FALSE: bh_buf_puts(b, "false"); break;
	case JSON_INTEGER: bh_buf_printf(b, "%lld", (long long)json_integer_value(v)); break;
	case JSON_REAL: {
		double d = json_real_value(v);
		if (isnan(d))
			bh_buf_puts(b, ".nan");
		else if (isinf(d))
			bh_buf_puts(b, d > 0 ? ".inf" : "-.inf");
		else {
			go_format_float(t, sizeof t, d, 'g', -1);
			bh_buf_puts(b, t);
		}
		break;
	}
	case JSON_STRING:
		if (h && h->verbatim && h->verbatim(v, h->ud))
			bh_buf_put(b, json_string_value(v), json_string_length(v));
		else if (!utf8_check_go(json_string_value(v), json_string_length(v)))
			write_binary(b, json_string_value(v), json_string_length(v));
		else
			write_string(b, json_string_value(v), json_string_length(v), 0, indent, content_indent);
		break;
	case JSON_ARRAY: bh_buf_puts(b, "[]"); break;
	case JSON_OBJECT: bh_buf_puts(b, "{}"); break;
	}
}

static int is_block(const json_t *v)
{
	return (json_is_object(v) && json_object_size(v)) || (json_is_array(v) && json_array_size(v));
}

/* natural key order (sorter.go) */
typedef struct pkey {
	const char *key;
	size_t len;
	json_t *val;
	int32_t *runes;
	size_t nr;
} pkey;

static int pkey_cmp(const void *x, const void *y)
{
	const pkey *a = x, *b = y;
	if (yaml_key_less(a->runes, a->nr, b->runes, b->nr, 1))
		return -1;
	if (yaml_key_less(b->runes, b->nr, a->runes, a->nr, 1))
		return 1;
	return 0;
}

static int emit_value(bh_buf *b, const yaml_pretty_hooks *h, const json_t *v, int indent, int depth);
static int emit_seq(bh_buf *b, const yaml_pretty_hooks *h, const json_t *v, int indent, int inline_first, int depth);

/* a mapping whose keys start at `indent`; the first key follows the
 * current text when inline_first (after "- " or at the document start) */
static int emit_map(bh_buf *b, const yaml_pretty_hooks *h, const json_t *v, int indent, int inline_first, int depth)
{
	size_t n = json_object_size(v), i = 0;
	pkey *keys;
	void *it;
	int rc = 0;
	if (depth > YAML_MAX_DEPTH)
		return BH_ELIMIT;
	keys = calloc(n + 1, sizeof *keys);
	if (!keys)
		return BH_ENOMEM;
	for (it = json_object_iter((json_t *)v); it && i < n; it = json_object_iter_next((json_t *)v, it), i++) {
		keys[i].key = json_object_iter_key(it);
		keys[i].len = json_object_iter_key_len(it);
		keys[i].val = json_object_iter_value(it);
		keys[i].runes = malloc((keys[i].len + 1) * sizeof(int32_t));
		if (!keys[i].runes) {
			rc = BH_ENOMEM;
			break;
		}
		for (size_t k = 0; k < keys[i].len;) {
			int32_t r;
			k += (size_t)utf8_rune_go((const unsigned char *)keys[i].key + k, keys[i].len - k, &r);
			keys[i].runes[keys[i].nr++] = r < 0 ? 0xFFFD : r;
		}
	}
	n = i;
	if (!rc && !(h && h->ordered && h->ordered(v, h->ud)))
		qsort(keys, n, sizeof *keys, pkey_cmp);
	for (i = 0; i < n && !rc; i++) {
		analysis a;
		int complex;
		if (i > 0 || !inline_first)
			next_line(b, indent);
		choose_style(keys[i].key, keys[i].len, 1, &a);
		complex = keys[i].len > 128 || a.multiline;
		if (complex) {
			/* "? key" then ": value", the value written compactly
			 * as after "- " */
			const json_t *val = keys[i].val;
			bh_buf_puts(b, "? ");
			write_string(b, keys[i].key, keys[i].len, 0, indent + 2, indent + 2);
			next_line(b, indent);
			bh_buf_puts(b, ": ");
			if (json_is_object(val) && json_object_size(val))
				rc = emit_map(b, h, val, indent + 2, 1, depth + 1);
			else if (json_is_array(val) && json_array_size(val))
				rc = emit_seq(b, h, val, indent + 2, 1, depth + 1);
			else
				write_scalar(b, h, val, indent + 2, indent + 2);
			continue;
		}
		if (!utf8_check_go(keys[i].key, keys[i].len))
			write_binary(b, keys[i].key, keys[i].len);
		else
			write_string(b, keys[i].key, keys[i].len, 1, indent, indent + 2);
		bh_buf_putc(b, ':');
		rc = emit_value(b, h, keys[i].val, indent, depth + 1);
	}
	for (i = 0; i < n; i++)
		free(keys[i].runes);
	free(keys);
	return rc;
}

/* the value after "key:" of a mapping at `indent` */
static int emit_value(bh_buf *b, const yaml_pretty_hooks *h, const json_t *v, int indent, int depth)
{
	if (json_is_object(v) && json_object_size(v))
		return emit_map(b, h, v, indent + 2, 0, depth);
	if (json_is_array(v) && json_array_size(v))
		return emit_seq(b, h, v, indent + 2, 0, depth);
	bh_buf_putc(b, ' ');
	/* yaml.v3 raises the indent by 2 for the scalar (emit_scalar's
	 * increase_indent): a single-quoted one's lines after a break */
	write_scalar(b, h, v, indent + 2, indent + 2);
	return 0;
}

static int emit_seq(bh_buf *b, const yaml_pretty_hooks *h, const json_t *v, int indent, int inline_first, int depth)
{
	int rc = 0;
	if (depth > YAML_MAX_DEPTH)
		return BH_ELIMIT;
	for (size_t i = 0; i < json_array_size(v) && !rc; i++) {
		const json_t *e = json_array_get(v, i);
		if (i > 0 || !inline_first)
			next_line(b, indent);
		bh_buf_puts(b, "- ");
		if (json_is_object(e) && json_object_size(e))
			rc = emit_map(b, h, e, indent + 2, 1, depth + 1);
		else if (json_is_array(e) && json_array_size(e))
			rc = emit_seq(b, h, e, indent + 2, 1, depth + 1);
		else
			write_scalar(b, h, e, indent + 2, indent + 2);
	}
	return rc;
}

int yaml_emit_pretty(const json_t *v, bh_buf *out, bh_error *err)
{
	return yaml_emit_pretty_hooks(v, NULL, out, err);
}

int yaml_emit_pretty_hooks(const json_t *v, const yaml_pretty_hooks *h, bh_buf *out, bh_error *err)
{
	size_t mark = out->len;
	int rc = 0;
	if (!v || !is_block(v))
		write_scalar(out, h, v ? v : json_null(), 2, 2); /* v3's root indent: best_indent */
	else if (json_is_object(v))
		rc = emit_map(out, h, v, 0, 1, 0);
	else
		rc = emit_seq(out, h, v, 0, 1, 0);
	if (!rc)
		next_line(out, 0); /* the document's end */
	if (!rc && !bh_buf_ok(out))
		rc = BH_ENOMEM;
	if (rc) {
		out->len = mark;
		if (out->data)
			out->data[mark] = '\0';
		if (rc == BH_ELIMIT)
			return bh_error_set(err, rc, "yaml: value nested deeper than %d levels", YAML_MAX_DEPTH);
		return bh_error_set(err, rc, "out of memory");
	}
	return 0;
}
