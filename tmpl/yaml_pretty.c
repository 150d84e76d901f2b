/* tmpl/yaml_pretty.c — go-yaml v3 block emitter for toYamlPretty (see
 * yaml_pretty.h). Scalar style selection follows the emitter's analysis
 * (yaml_emitter_analyze_scalar / select_scalar_style). */
#include "tmpl/yaml_pretty.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gostrconv.h"
#include "lib/yaml_resolve.h"
#include "tmpl/funcs.h"
#include "tmpl/gotime.h"

typedef struct pe {
	bh_buf *out;
	bh_error *err;
} pe;

static void put_indent(pe *e, int n)
{
	for (int i = 0; i < n; i++)
		bh_buf_putc(e->out, ' ');
}

/* go-yaml is_printable on the rune at s (len k) */
static int printable(const unsigned char *s, int k, int32_t r)
{
	(void)s;
	if (k == 1)
		return r == 0x0A || (r >= 0x20 && r <= 0x7E);
	if (k == 4)
		return 0;
	if (r < 0xA0)
		return 0;
	if (r >= 0xD800 && r <= 0xDFFF)
		return 0;
	if (r == 0xFEFF || r == 0xFFFE || r == 0xFFFF)
		return 0;
	return 1;
}

typedef struct analysis {
	int multiline, flow_plain, block_plain, single_ok, block_ok;
} analysis;

static int is_blank_or_end(const char *s, size_t n, size_t i)
{
	return i >= n || s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r';
}

static void analyze(const char *s, size_t n, analysis *a)
{
	int block_ind = 0, flow_ind = 0, line_breaks = 0, special = 0, tabs = 0;
	int leading_space = 0, leading_break = 0, trailing_space = 0, trailing_break = 0;
	int break_space = 0, space_break = 0, prev_space = 0, prev_break = 0;
	int preceded_ws = 1, followed_ws;
	memset(a, 0, sizeof *a);
	if (n == 0) {
		a->block_plain = 1;
		a->single_ok = 1;
		return;
	}
	if (n >= 3 && (memcmp(s, "---", 3) == 0 || memcmp(s, "...", 3) == 0))
		block_ind = flow_ind = 1;
	size_t i = 0;
	int32_t r;
	int k = utf8_rune_go((const unsigned char *)s, n, &r);
	followed_ws = is_blank_or_end(s, n, (size_t)k);
	while (i < n) {
		char c = s[i];
		int first = i == 0;
		k = utf8_rune_go((const unsigned char *)s + i, n - i, &r);
		int last = i + (size_t)k >= n;
		if (first) {
			if (strchr("#,[]{}&*!|>'\"%@`", c) && c) {
				flow_ind = block_ind = 1;
			}
			if (c == '?' || c == ':') {
				flow_ind = 1;
				if (followed_ws)
					block_ind = 1;
			}
			if (c == '-' && followed_ws)
				flow_ind = block_ind = 1;
		} else {
			if (c && strchr(",?[]{}", c))
				flow_ind = 1;
			if (c == ':') {
				flow_ind = 1;
				if (followed_ws)
					block_ind = 1;
			}
			if (c == '#' && preceded_ws)
				flow_ind = block_ind = 1;
		}
		if (c == '\t')
			tabs = 1;
		else if (!printable((const unsigned char *)s + i, k, r))
			special = 1;
		if (c == '\n' || c == '\r')
			line_breaks = 1;
		if (c == ' ') {
			if (first)
				leading_space = 1;
			if (last)
				trailing_space = 1;
			if (prev_break)
				break_space = 1;
			prev_space = 1;
			prev_break = 0;
		} else if (c == '\n' || c == '\r') {
			if (first)
				leading_break = 1;
			if (last)
				trailing_break = 1;
			if (prev_space)
				space_break = 1;
			prev_break = 1;
			prev_space = 0;
		} else {
			prev_space = prev_break = 0;
		}
		preceded_ws = c == ' ' || c == '\t' || c == '\n' || c == '\r';
		i += (size_t)k;
		if (i < n) {
			int32_t r2;
			int k2 = utf8_rune_go((const unsigned char *)s + i, n - i, &r2);
			followed_ws = is_blank_or_end(s, n, i + (size_t)k2);
		}
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

static void write_double(pe *e, const char *s, size_t n)
{
	bh_buf *b = e->out;
	bh_buf_putc(b, '"');
	for (size_t i = 0; i < n;) {
		int32_t r;
		int k = utf8_rune_go((const unsigned char *)s + i, n - i, &r);
		if (r < 0)
			r = (unsigned char)s[i];
		if (!printable((const unsigned char *)s + i, k, r) || r == 0xFEFF || r == '\n' || r == '\r' ||
		    r == 0x85 || r == 0x2028 || r == 0x2029 || r == '"' || r == '\\') {
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
			case '"': bh_buf_putc(b, '"'); break;
			case '\\': bh_buf_putc(b, '\\'); break;
			case 0x85: bh_buf_putc(b, 'N'); break;
			case 0xA0: bh_buf_putc(b, '_'); break;
			case 0x2028: bh_buf_putc(b, 'L'); break;
			case 0x2029: bh_buf_putc(b, 'P'); break;
			default:
				if (r <= 0xFF)
					bh_buf_printf(b, "x%02X", (unsigned)r);
				else if (r <= 0xFFFF)
					bh_buf_printf(b, "u%04X", (unsigned)r);
				else
					bh_buf_printf(b, "U%08X", (unsigned)r);
			}
		} else {
			bh_buf_put(b, s + i, (size_t)k);
		}
		i += (size_t)k;
	}
	bh_buf_putc(b, '"');
}

static void write_single(pe *e, const char *s, size_t n)
{
	bh_buf_putc(e->out, '\'');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\'')
			bh_buf_putc(e->out, '\'');
		bh_buf_putc(e->out, s[i]);
	}
	bh_buf_putc(e->out, '\'');
}

/* literal block scalar; indent = indentation of its content */
static void write_literal(pe *e, const char *s, size_t n, int indent)
{
	bh_buf_putc(e->out, '|');
	if (n > 0 && (s[0] == ' ' || s[0] == '\n'))
		bh_buf_putc(e->out, '2');
	if (n == 0 || s[n - 1] != '\n')
		bh_buf_putc(e->out, '-');
	else if (n == 1 || s[n - 2] == '\n')
		bh_buf_putc(e->out, '+');
	bh_buf_putc(e->out, '\n');
	int at_line_start = 1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n') {
			bh_buf_putc(e->out, '\n');
			at_line_start = 1;
			continue;
		}
		if (at_line_start) {
			put_indent(e, indent);
			at_line_start = 0;
		}
		bh_buf_putc(e->out, s[i]);
	}
	/* the final line break is written by the caller's newline */
	if (e->out->len > 0 && e->out->data[e->out->len - 1] == '\n' && n > 0 && s[n - 1] == '\n')
		e->out->data[--e->out->len] = '\0';
}

/* encoder.stringv: the style for an untagged string, then emission.
 * key = simple key context; indent = block scalar content indentation. */
static void string_scalar(pe *e, const char *s, size_t n, int key, int indent)
{
	analysis a;
	yres r;
	int plain;
	if (!utf8_check_go(s, n)) {
		bh_buf_puts(e->out, "!!binary ");
		static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		const unsigned char *p = (const unsigned char *)s;
		for (size_t i = 0; i < n; i += 3) {
			unsigned x = (unsigned)p[i] << 16;
			size_t k = n - i < 3 ? n - i : 3;
			if (k > 1)
				x |= (unsigned)p[i + 1] << 8;
			if (k > 2)
				x |= p[i + 2];
			bh_buf_putc(e->out, b64[x >> 18]);
			bh_buf_putc(e->out, b64[(x >> 12) & 63]);
			bh_buf_putc(e->out, k > 1 ? b64[(x >> 6) & 63] : '=');
			bh_buf_putc(e->out, k > 2 ? b64[x & 63] : '=');
		}
		return;
	}
	yaml_resolve("", s, n, &r);
	plain = r.kind == YR_STR && !yaml_is_base60_float(s, n);
	analyze(s, n, &a);
	if (memchr(s, '\n', n)) {
		if (!key && a.block_ok) {
			write_literal(e, s, n, indent);
			return;
		}
		write_double(e, s, n);
		return;
	}
	if (plain && a.block_plain && !(n == 0 && key)) {
		bh_buf_put(e->out, s, n);
		return;
	}
	if (plain && n > 0 && !a.block_plain && a.single_ok) {
		write_single(e, s, n);
		return;
	}
	if (!plain || !a.single_ok) {
		write_double(e, s, n);
		return;
	}
	write_single(e, s, n);
}

static int is_empty_coll(const tmpl_value *v)
{
	return (v->kind == TMPL_MAP && v->u.map->len == 0) || (v->kind == TMPL_LIST && v->u.list->len == 0);
}

static int node(pe *e, const tmpl_value *v, int indent, int depth);

/* keys in yaml.v3's order */
static int key_cmp(const void *x, const void *y)
{
	const tmpl_map_entry *a = *(const tmpl_map_entry *const *)x, *b = *(const tmpl_map_entry *const *)y;
	int32_t *ra = malloc((a->keylen + 1) * sizeof(int32_t)), *rb = malloc((b->keylen + 1) * sizeof(int32_t));
	size_t na = 0, nb = 0;
	int res;
	if (!ra || !rb) {
		free(ra);
		free(rb);
		return strcmp(a->key, b->key);
	}
	for (size_t i = 0; i < a->keylen;) {
		int32_t r;
		int k = utf8_rune_go((const unsigned char *)a->key + i, a->keylen - i, &r);
		ra[na++] = r < 0 ? 0xFFFD : r;
		i += (size_t)k;
	}
	for (size_t i = 0; i < b->keylen;) {
		int32_t r;
		int k = utf8_rune_go((const unsigned char *)b->key + i, b->keylen - i, &r);
		rb[nb++] = r < 0 ? 0xFFFD : r;
		i += (size_t)k;
	}
	if (yaml_key_less(ra, na, rb, nb, 1))
		res = -1;
	else if (yaml_key_less(rb, nb, ra, na, 1))
		res = 1;
	else
		res = 0;
	free(ra);
	free(rb);
	return res;
}

/* A value written after "key:" or "- ": leading " " for scalars, a newline
 * for nested blocks. */
static int value_after(pe *e, const tmpl_value *v, int indent, int depth, int in_seq)
{
	if ((v->kind == TMPL_MAP || v->kind == TMPL_LIST) && !is_empty_coll(v)) {
		if (in_seq) {
			bh_buf_putc(e->out, ' ');
			return node(e, v, -(indent + 2) - 1, depth + 1);
		}
		bh_buf_putc(e->out, '\n');
		return node(e, v, indent + 2, depth + 1);
	}
	bh_buf_putc(e->out, ' ');
	return node(e, v, indent + 2, depth + 1);
}

/* indent < 0: the first line continues the current one (after "- "), the
 * block's indentation is -indent-1. */
static int node(pe *e, const tmpl_value *v, int indent, int depth)
{
	char buf[64];
	int inline_first = indent < 0;
	if (inline_first)
		indent = -indent - 1;
	if (depth > YAML_PRETTY_MAX_DEPTH)
		return bh_error_set(e->err, BH_ELIMIT, "yaml: nesting deeper than %d", YAML_PRETTY_MAX_DEPTH);
	switch (v->kind) {
	case TMPL_INVALID:
	case TMPL_NIL:
		bh_buf_puts(e->out, "null");
		return 0;
	case TMPL_BOOL:
		bh_buf_puts(e->out, v->u.b ? "true" : "false");
		return 0;
	case TMPL_INT:
	case TMPL_INT64:
		bh_buf_printf(e->out, "%lld", (long long)v->u.i);
		return 0;
	case TMPL_UINT8:
	case TMPL_UINT64:
		bh_buf_printf(e->out, "%llu", (unsigned long long)v->u.u);
		return 0;
	case TMPL_FLOAT64:
		if (isnan(v->u.f))
			bh_buf_puts(e->out, ".nan");
		else if (isinf(v->u.f))
			bh_buf_puts(e->out, v->u.f > 0 ? ".inf" : "-.inf");
		else {
			go_format_float(buf, sizeof buf, v->u.f, 'g', -1);
			bh_buf_puts(e->out, buf);
		}
		return 0;
	case TMPL_STRING:
	case TMPL_BYTES:
		string_scalar(e, v->u.s.ptr, v->u.s.len, 0, depth == 0 ? 2 : indent);
		return 0;
	case TMPL_COMPLEX:
		return bh_error_set(e->err, BH_EINVAL, "yaml: cannot marshal type: complex128");
	case TMPL_OBJECT: {
		const gotime *t = tmpl_time_of(v);
		json_t *j;
		int rc = 0;
		if (t) {
			static const char layout[] = "2006-01-02T15:04:05.999999999Z07:00";
			gotime_format(t, layout, sizeof layout - 1, e->out);
			return 0;
		}
		j = tmpl_value_to_json(v, e->err);
		if (!j)
			return -1;
		if (json_is_string(j)) {
			string_scalar(e, json_string_value(j), json_string_length(j), 0, depth == 0 ? 2 : indent);
		} else if (json_is_object(j) && json_object_size(j) > 0) {
			/* a Go struct: fields in order, names lower-cased */
			const char *k;
			json_t *x;
			int first = 1;
			json_object_foreach(j, k, x) {
				char low[128];
				size_t i;
				for (i = 0; k[i] && i + 1 < sizeof low; i++)
					low[i] = (char)tolower((unsigned char)k[i]);
				low[i] = '\0';
				if (!(first && inline_first))
					put_indent(e, indent);
				first = 0;
				string_scalar(e, low, i, 1, indent);
				bh_buf_putc(e->out, ':');
				if (json_is_string(x)) {
					bh_buf_putc(e->out, ' ');
					string_scalar(e, json_string_value(x), json_string_length(x), 0, indent + 2);
				} else {
					bh_buf_puts(e->out, " null");
				}
				bh_buf_putc(e->out, '\n');
			}
			if (e->out->len && e->out->data[e->out->len - 1] == '\n')
				e->out->data[--e->out->len] = '\0';
		} else {
			bh_buf_puts(e->out, "{}");
		}
		json_decref(j);
		return rc;
	}
	case TMPL_LIST: {
		const tmpl_list *l = v->u.list;
		if (l->len == 0) {
			bh_buf_puts(e->out, "[]");
			return 0;
		}
		for (size_t i = 0; i < l->len; i++) {
			if (i > 0)
				bh_buf_putc(e->out, '\n');
			if (i > 0 || !inline_first)
				put_indent(e, indent);
			bh_buf_putc(e->out, '-');
			if (value_after(e, &l->items[i], indent, depth, 1))
				return -1;
		}
		return 0;
	}
	case TMPL_MAP: {
		const tmpl_map *m = v->u.map;
		const tmpl_map_entry **ents;
		if (m->len == 0) {
			bh_buf_puts(e->out, "{}");
			return 0;
		}
		ents = malloc(m->len * sizeof *ents);
		if (!ents)
			return bh_error_set(e->err, BH_ENOMEM, "out of memory");
		for (size_t i = 0; i < m->len; i++)
			ents[i] = &m->entries[i];
		qsort(ents, m->len, sizeof *ents, key_cmp);
		for (size_t i = 0; i < m->len; i++) {
			if (i > 0)
				bh_buf_putc(e->out, '\n');
			if (i > 0 || !inline_first)
				put_indent(e, indent);
			if (ents[i]->keylen > 128 || memchr(ents[i]->key, '\n', ents[i]->keylen)) {
				/* not a simple key: "? key" then ": value" */
				bh_buf_puts(e->out, "? ");
				string_scalar(e, ents[i]->key, ents[i]->keylen, 0, indent + 2);
				bh_buf_putc(e->out, '\n');
				put_indent(e, indent);
			} else {
				string_scalar(e, ents[i]->key, ents[i]->keylen, 1, indent);
			}
			bh_buf_putc(e->out, ':');
			if (value_after(e, &ents[i]->val, indent, depth, 0)) {
				free(ents);
				return -1;
			}
		}
		free(ents);
		return 0;
	}
	}
	return 0;
}

int yaml_pretty_encode(const tmpl_value *v, bh_buf *out, bh_error *err)
{
	pe e = {out, err};
	size_t start = out->len;
	if (node(&e, v, 0, 0)) {
		out->len = start;
		if (out->data)
			out->data[start] = '\0';
		return err->code ? err->code : BH_EINVAL;
	}
	bh_buf_putc(out, '\n');
	return 0;
}
