/* lib/yaml.c — see yaml.h. Reading: libyaml events -> node tree (anchors,
 * aliases) -> goyaml.v2 typing -> json_t. Printing: lib/yaml_emit.c. */
#include "lib/yaml.h"

#include "lib/hash.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lib/gojson.h"
#include "lib/gostrconv.h"
#include "lib/vec.h"
#include "lib/yaml_internal.h"
#include "lib/yaml_resolve.h"

#define TAG_PREFIX "tag:yaml.org,2002:"

static int anchor_put(builder *b, const char *name, ynode *node)
{
	size_t i;
	if (b->acount * 2 >= b->acap) {
		size_t ncap = b->acap ? b->acap * 2 : 64, k;
		anchor_ent *nt = calloc(ncap, sizeof *nt);
		if (!nt)
			return -1;
		for (k = 0; k < b->acap; k++) {
			if (!b->anchors[k].name)
				continue;
			i = (size_t)bh_fnv1a_str(b->anchors[k].name) & (ncap - 1);
			while (nt[i].name)
				i = (i + 1) & (ncap - 1);
			nt[i] = b->anchors[k];
		}
		free(b->anchors);
		b->anchors = nt;
		b->acap = ncap;
	}
	i = (size_t)bh_fnv1a_str(name) & (b->acap - 1);
	while (b->anchors[i].name) {
		if (strcmp(b->anchors[i].name, name) == 0) {
			b->anchors[i].node = node; /* redefinition: later one wins */
			return 0;
		}
		i = (i + 1) & (b->acap - 1);
	}
	b->anchors[i].name = strdup(name);
	if (!b->anchors[i].name)
		return -1;
	b->anchors[i].node = node;
	b->acount++;
	return 0;
}

static ynode *anchor_get(builder *b, const char *name)
{
	size_t i;
	if (!b->acap)
		return NULL;
	i = (size_t)bh_fnv1a_str(name) & (b->acap - 1);
	while (b->anchors[i].name) {
		if (strcmp(b->anchors[i].name, name) == 0)
			return b->anchors[i].node;
		i = (i + 1) & (b->acap - 1);
	}
	return NULL;
}

static void blocks_free(yblock *blk)
{
	for (yblock *next; blk; blk = next) {
		next = blk->next;
		free(blk);
	}
}

static void builder_free(builder *b)
{
	size_t i;
	/* yaml_fast_build's nodes own nothing: no tags, their texts in the
	 * arena, their kids in the kid blocks */
	for (yblock *blk = b->arena ? NULL : b->blocks; blk; blk = blk->next) {
		ynode *nodes = YBLOCK_NODES(blk);
		for (i = 0; i < blk->n; i++) {
			free(nodes[i].tag);
			free(nodes[i].value);
			free(nodes[i].kids);
		}
	}
	blocks_free(b->blocks);
	blocks_free(b->kid_blocks);
	for (i = 0; i < b->acap; i++)
		free(b->anchors[i].name);
	free(b->anchors);
	free(b->arena);
}

void ybuilder_reset(builder *b)
{
	builder_free(b);
	b->blocks = NULL;
	b->nall = 0;
	b->anchors = NULL;
	b->acap = b->acount = 0;
	b->arena = NULL;
	b->kid_blocks = NULL;
}

/* Room for n items of size bytes from the block list *list: from its
 * newest block, else from a new one (first items, then twice the newest's
 * up to most, or n when more). NULL when memory is out. */
static void *yblock_take(yblock **list, size_t size, size_t n, size_t first, size_t most)
{
	yblock *blk = *list;
	if (!blk || blk->cap - blk->n < n) {
		size_t cap = blk ? blk->cap * 2 : first;
		if (cap > most)
			cap = most;
		if (cap < n)
			cap = n;
		blk = malloc(sizeof *blk + cap * size);
		if (!blk)
			return NULL;
		blk->next = *list;
		blk->n = 0;
		blk->cap = cap;
		*list = blk;
	}
	blk->n += n;
	return (unsigned char *)blk->items + (blk->n - n) * size;
}

ynode **ykids_take(builder *b, size_t n)
{
	return yblock_take(&b->kid_blocks, sizeof(ynode *), n, 256, 8192);
}

ynode *ynode_new_block(builder *b, int kind)
{
	ynode *n;
	if (b->nall >= b->max_nodes) {
		bh_error_set(b->err, BH_ELIMIT, "yaml: document has more than %zu nodes", b->max_nodes);
		return NULL;
	}
	n = yblock_take(&b->blocks, sizeof *n, 1, 16, 1024);
	if (!n) {
		bh_error_set(b->err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	memset(n, 0, sizeof *n);
	n->kind = kind;
	b->nall++;
	return n;
}

int ynode_add(builder *b, ynode *parent, ynode *kid)
{
	if (VEC_RESERVE(parent->kids, parent->cap, parent->n + 1, 4) < 0)
		return bh_error_set(b->err, BH_ENOMEM, "out of memory");
	parent->kids[parent->n++] = kid;
	return 0;
}

/* goyaml.v2 parser.fail(): which line it names. */
static int parser_fail(yaml_parser_t *p, bh_error *err)
{
	size_t line = 0;
	const char *msg = p->problem ? p->problem : "unknown problem parsing YAML content";
	if (p->error == YAML_MEMORY_ERROR)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	if (p->problem_mark.line != 0) {
		line = p->problem_mark.line;
		if (p->error == YAML_SCANNER_ERROR)
			line++;
	} else if (p->context_mark.line != 0) {
		line = p->context_mark.line;
	}
	if (line)
		return bh_error_set(err, BH_EPARSE, "yaml: line %zu: %s", line, msg);
	return bh_error_set(err, BH_EPARSE, "yaml: %s", msg);
}

/* goyaml.v2 takes only %YAML 1.1 (libyaml 0.2.5 1.2 too); the directive
 * is checked before the document's content is read. */
static int version_check(const char *text, size_t len, bh_error *err)
{
	yaml_parser_t p;
	yaml_token_t t;
	int rc = 0;
	if (!memmem(text, len, "%YAML", 5))
		return 0;
	if (!yaml_parser_initialize(&p))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	while (yaml_parser_scan(&p, &t)) { /* a scanner error: the parse reports it */
		yaml_token_type_t type = t.type;
		if (type == YAML_VERSION_DIRECTIVE_TOKEN && t.data.version_directive.minor != 1) {
			/* a parser error: its line is not counted from 1 */
			if (t.start_mark.line)
				rc = bh_error_set(err, BH_EPARSE, "yaml: line %zu: found incompatible YAML document", t.start_mark.line);
			else
				rc = bh_error_set(err, BH_EPARSE, "yaml: found incompatible YAML document");
		}
		yaml_token_delete(&t);
		if (type != YAML_STREAM_START_TOKEN && type != YAML_TAG_DIRECTIVE_TOKEN)
			break;
	}
	yaml_parser_delete(&p);
	return rc;
}

/* libyaml's marks count characters: where the idx'th one starts in text
 * (UTF-8, after a BOM). c carries the last answer forward. */
typedef struct charpos {
	size_t ch, off, base;
} charpos;

static size_t char_offset(const char *text, size_t len, charpos *c, size_t idx)
{
	if (idx < c->ch)
		c->ch = 0, c->off = c->base;
	while (c->ch < idx && c->off < len) {
		unsigned char u = (unsigned char)text[c->off];
		c->off += u < 0x80 ? 1 : u < 0xE0 ? 2 : u < 0xF0 ? 3 : 4;
		c->ch++;
	}
	return c->off < len ? c->off : len;
}

/* The line breaks libyaml counts in text[from, to). */
static size_t breaks_between(const char *text, size_t from, size_t to)
{
	size_t n = 0;
	for (size_t i = from; i < to; i++) {
		unsigned char u = (unsigned char)text[i];
		if (u == '\n' || (u == '\r' && (i + 1 >= to || text[i + 1] != '\n')))
			n++;
		else if (u == 0xC2 && i + 1 < to && (unsigned char)text[i + 1] == 0x85)
			n++;
		else if (u == 0xE2 && i + 2 < to && (unsigned char)text[i + 1] == 0x80 &&
			 ((unsigned char)text[i + 2] == 0xA8 || (unsigned char)text[i + 2] == 0xA9))
			n++;
	}
	return n;
}

/* goyaml.v2 has no "\/" escape (libyaml 0.2.5 has): a double-quoted scalar
 * at text[s, e) (its quotes included) whose text has one is refused as
 * goyaml's scanner words it, its line that of the backslash. */
static int slash_escape_check(const char *text, size_t s, size_t e, size_t line, bh_error *err)
{
	for (size_t i = s + 1; i + 1 < e; i++) {
		if (text[i] != '\\')
			continue;
		if (text[i + 1] == '/') {
			line += breaks_between(text, s, i);
			if (line) /* a scanner error: counted from 1 */
				return bh_error_set(err, BH_EPARSE, "yaml: line %zu: found unknown escape character", line + 1);
			return bh_error_set(err, BH_EPARSE, "yaml: found unknown escape character");
		}
		i++;
	}
	return 0;
}

/* goyaml.v2 reads "\'" in a double-quoted scalar as a quote, libyaml 0.2.5
 * refuses it. When libyaml stopped at one (at *text + off), every "\'" of
 * that scalar becomes "\x27" in a copy of the text (lines stay where they
 * are) that libyaml reads again: 1 when done, 0 when off is no "\'". */
static int quote_escape_fix(const char **text, size_t *len, size_t off, bh_buf *copy)
{
	const char *t = *text;
	bh_buf nb = BH_BUF_INIT;
	size_t i = off;
	if (off + 1 >= *len || t[off] != '\\' || t[off + 1] != '\'')
		return 0;
	bh_buf_put(&nb, t, off);
	while (i < *len && t[i] != '"') {
		if (t[i] == '\\' && i + 1 < *len) {
			if (t[i + 1] == '\'')
				bh_buf_puts(&nb, "\\x27");
			else
				bh_buf_put(&nb, t + i, 2);
			i += 2;
			continue;
		}
		bh_buf_putc(&nb, t[i++]);
	}
	bh_buf_put(&nb, t + i, *len - i);
	bh_buf_free(copy);
	*copy = nb;
	*text = nb.data;
	*len = nb.len;
	return 1;
}

/* goyaml.v2 reads on past a ':' that a flow indicator follows in a plain
 * scalar of a flow collection ("[a:]" is ["a:"]), libyaml 0.2.5 refuses
 * it ("found unexpected ':'"). Such a scalar (from from, the ':' at colon)
 * is a string whatever its text: in a copy of the text it becomes a
 * single-quoted one, up to where goyaml ends it. 1 when done, 0 when the
 * scalar runs over more than its line (left to libyaml's error). */
static int plain_colon_fix(const char **text, size_t *len, size_t from, size_t colon, bh_buf *copy)
{
	const char *t = *text;
	size_t n = *len, i, end;
	bh_buf nb = BH_BUF_INIT;
	if (colon >= n || t[colon] != ':' || from > colon || memchr(t + from, '\n', colon - from) ||
	    memchr(t + from, '\r', colon - from))
		return 0;
	for (i = colon + 1; i < n; i++) {
		char c = t[i];
		if (c == '\n' || c == '\r')
			return 0;
		if ((c == ':' && (i + 1 >= n || strchr(" \t\r\n", t[i + 1]))) || strchr(",?[]{}", c) ||
		    (c == '#' && (t[i - 1] == ' ' || t[i - 1] == '\t')))
			break;
	}
	if (i >= n)
		return 0;
	for (end = i; end > colon + 1 && (t[end - 1] == ' ' || t[end - 1] == '\t');)
		end--;
	bh_buf_put(&nb, t, from);
	bh_buf_putc(&nb, '\'');
	for (i = from; i < end; i++) {
		if (t[i] == '\'')
			bh_buf_putc(&nb, '\'');
		bh_buf_putc(&nb, t[i]);
	}
	bh_buf_putc(&nb, '\'');
	bh_buf_put(&nb, t + end, n - end);
	bh_buf_free(copy);
	*copy = nb;
	*text = nb.data;
	*len = nb.len;
	return 1;
}

/* Where libyaml stopped and build reads again: fix[0] the offset, fix[1]
 * the plain scalar's start for plain_colon_fix, SIZE_MAX for
 * quote_escape_fix. */
static int stop_mend(const char **text, size_t *len, const size_t fix[2], bh_buf *copy)
{
	if (fix[1] != SIZE_MAX)
		return plain_colon_fix(text, len, fix[1], fix[0], copy);
	return quote_escape_fix(text, len, fix[0], copy);
}

/* libyaml stopped: goyaml stopped at a "\\/" before that point of a
 * double-quoted scalar (say a quote left open) already. fix is set when
 * the stop is one stop_mend can mend. */
static int quoted_stop(yaml_parser_t *p, const char *text, size_t len, charpos *cp, int utf8,
		       size_t fix[2], bh_error *err)
{
	if (utf8 && p->error == YAML_SCANNER_ERROR && p->context && p->problem &&
	    strcmp(p->context, "while scanning a plain scalar") == 0 &&
	    strcmp(p->problem, "found unexpected ':'") == 0) {
		fix[1] = char_offset(text, len, cp, p->context_mark.index);
		fix[0] = char_offset(text, len, cp, p->problem_mark.index);
	}
	if (utf8 && p->error == YAML_SCANNER_ERROR && p->context &&
	    strstr(p->context, "a quoted scalar")) { /* "while scanning/parsing" */
		size_t s = char_offset(text, len, cp, p->context_mark.index);
		size_t e = char_offset(text, len, cp, p->problem_mark.index);
		int rc;
		if (s < len && text[s] == '"' &&
		    (rc = slash_escape_check(text, s, e < len ? e + 1 : len, p->context_mark.line, err)))
			return rc;
		if (p->problem && strcmp(p->problem, "found unknown escape character") == 0)
			fix[0] = e;
	}
	return parser_fail(p, err);
}

/* goyaml.v2 ends a plain scalar in a flow collection at a '?' (libyaml
 * 0.2.5 reads on): the '?' is then a key indicator where a ',' or the
 * collection's end (end) must come. text[s, e) is the scalar, from line. */
static int flow_question_check(const char *text, size_t s, size_t e, size_t line, int end, bh_error *err)
{
	const char *q = memchr(text + s, '?', e - s);
	const char *want = end == ']' ? "did not find expected ',' or ']'" : "did not find expected ',' or '}'";
	if (!q)
		return 0;
	line += breaks_between(text, s, (size_t)(q - text));
	if (line) /* a parser error: its line is not counted from 1 */
		return bh_error_set(err, BH_EPARSE, "yaml: line %zu: %s", line, want);
	return bh_error_set(err, BH_EPARSE, "yaml: %s", want);
}

/* Where the flow collection text[o] opens ends, when there is nothing but
 * blanks, line breaks and comments before its end; else 0. Either closing
 * bracket ends it: goyaml.v2's scanner drops the key at any. */
static size_t empty_flow(const char *text, size_t len, size_t o)
{
	if (o >= len || (text[o] != '[' && text[o] != '{'))
		return 0;
	for (size_t i = o + 1; i < len; i++) {
		if (text[i] == '#')
			while (i + 1 < len && text[i + 1] != '\n' && text[i + 1] != '\r')
				i++;
		else if (text[i] == ']' || text[i] == '}')
			return i;
		else if (!strchr(" \t\r\n", text[i]))
			return 0;
	}
	return 0;
}

/* goyaml.v2 hands an empty flow collection to its parser before the KEY
 * token a ':' after it adds (the key is gone from simple_keys_by_tok, see
 * below): where libyaml reads one as the next key of a block mapping open
 * at its column, goyaml's parser fails on it, unless the mapping waits for
 * a value (libyaml ended it with an empty one there): then *doc is 2, the
 * collection is that value and the empty one the key. Where libyaml starts
 * a block mapping with it, *doc is 1 when goyaml's document is just the
 * collection. */
static int empty_flow_key_check(const yaml_event_t *ev, const char *text, size_t len, charpos *cp,
				ynode *const *stack, const size_t *cols, const unsigned char *ends, size_t depth,
				int *doc, bh_error *err)
{
	size_t line = ev->start_mark.line;
	const ynode *top = depth && !ends[depth - 1] ? stack[depth - 1] : NULL;
	const ynode *last = top && top->n ? top->kids[top->n - 1] : NULL;
	const char *what = "did not find expected key";
	if (!top || top->kind != N_MAP || top->n % 2 || cols[depth - 1] != ev->start_mark.column ||
	    !empty_flow(text, len, char_offset(text, len, cp, ev->start_mark.index)))
		return 0;
	if (last && last->kind == N_SCALAR && !last->len && last->implicit && !last->tag) {
		*doc = 2; /* goyaml: the value libyaml left empty; the key is null */
		return 0;
	}
	if (top->n == 0 && top->line == line) {
		/* libyaml's mapping starts at this key; goyaml's parser takes the
		 * collection where the mapping would be: as the document (what
		 * follows is not read), as a mapping's value (the ':' after it is
		 * where a key must be) or as a sequence's entry (a '-' must come) */
		const ynode *up = depth > 1 && !ends[depth - 2] ? stack[depth - 2] : NULL;
		if (depth == 1) {
			*doc = 1;
			return 0;
		}
		if (!up || (up->kind == N_MAP && up->n % 2))
			return 0;
		if (up->kind == N_SEQ && !(depth > 2 && !ends[depth - 3] && stack[depth - 3]->kind == N_MAP &&
					   cols[depth - 3] == cols[depth - 2])) /* not an indentless one */
			what = "did not find expected '-' indicator";
	}
	if (line) /* a parser error: its line is not counted from 1 */
		return bh_error_set(err, BH_EPARSE, "yaml: line %zu: %s", line, what);
	return bh_error_set(err, BH_EPARSE, "yaml: %s", what);
}

/* goyaml.v2 takes the empty flow collection that ends before text[i] as
 * the value its mapping waits for and keeps its stale required key: the
 * parser fails on a plain scalar after it on its line ("did not find
 * expected key"), the scanner on the first token of a later line or the
 * stream's end (removing the key: "could not find expected ':'"). */
static int empty_flow_value_stop(const char *text, size_t len, size_t i, bh_error *err)
{
	size_t line;
	while (i < len && (text[i] == ' ' || text[i] == '\t'))
		i++;
	if (i < len && text[i] == '#')
		while (i < len && text[i] != '\n' && text[i] != '\r')
			i++;
	if (i < len && text[i] != '\n' && text[i] != '\r') {
		if (!((text[i] >= 'a' && text[i] <= 'z') || (text[i] >= 'A' && text[i] <= 'Z') ||
		      (text[i] >= '0' && text[i] <= '9')))
			return 0;
		line = breaks_between(text, 0, i);
		if (line) /* a parser error: its line is not counted from 1 */
			return bh_error_set(err, BH_EPARSE, "yaml: line %zu: did not find expected key", line);
		return bh_error_set(err, BH_EPARSE, "yaml: did not find expected key");
	}
	while (i < len) {
		if (text[i] == '#')
			while (i < len && text[i] != '\n' && text[i] != '\r')
				i++;
		else if (text[i] == ' ' || text[i] == '\n' || text[i] == '\r')
			i++;
		else if (text[i] == '\t')
			return 0;
		else
			break;
	}
	line = breaks_between(text, 0, i);
	if (i >= len && len && text[len - 1] != '\n' && text[len - 1] != '\r')
		line++; /* the stream's end starts a line */
	return bh_error_set(err, BH_EPARSE, "yaml: line %zu: could not find expected ':'", line + 1);
}

/* goyaml.v2 loses the simple key an empty flow collection ("[]", "{}",
 * "[ # c\n]") saved where a key is required (the column of the block
 * collection it is in): closing it drops the key's token from
 * simple_keys_by_tok, so no "could not find expected ':'" comes; the parser
 * is handed the '[' or '{' where a key or a '-' must come and fails there
 * (libyaml 0.2.5 fails on the stale key instead). top/parent: the block
 * collections open, with their start columns; a mapping that waits for a
 * value takes the collection as that value (empty_flow_value_stop). */
static int empty_flow_key_stop(const yaml_parser_t *p, const char *text, size_t len, charpos *cp, int utf8,
			       const ynode *top, size_t top_col, const ynode *parent, size_t parent_col,
			       bh_error *err)
{
	size_t o, end, line = p->context_mark.line;
	const char *what;
	if (!utf8 || !top || p->error != YAML_SCANNER_ERROR || !p->context || !p->problem ||
	    strcmp(p->context, "while scanning a simple key") != 0 ||
	    strcmp(p->problem, "could not find expected ':'") != 0)
		return 0;
	o = char_offset(text, len, cp, p->context_mark.index);
	end = empty_flow(text, len, o);
	if (!end || top_col != p->context_mark.column)
		return 0;
	if (top->kind == N_MAP && top->n % 2)
		return empty_flow_value_stop(text, len, end + 1, err);
	if (top->kind == N_MAP || (parent && parent->kind == N_MAP && parent_col == top_col))
		what = "did not find expected key"; /* an indentless sequence ends first */
	else
		what = "did not find expected '-' indicator";
	if (!line)
		line = top->line;
	if (line) /* a parser error: its line is not counted from 1 */
		return bh_error_set(err, BH_EPARSE, "yaml: line %zu: %s", line, what);
	return bh_error_set(err, BH_EPARSE, "yaml: %s", what);
}

/* goyaml.v2 drops the simple key a flow collection's start saved when any
 * closing bracket ends it, so an empty one ('[ ]', '{]', '[ }') goes to its
 * parser at once; libyaml 0.2.5 scans on for the key and fails on a later
 * token ('{]- b': "block sequence entries are not allowed in this
 * context"). Where a block collection open at the collection's column wants
 * a key or a '-' (top, parent: as for empty_flow_key_stop), the parser
 * fails on the '[' or '{' ("did not find expected key" / "did not find
 * expected '-' indicator"); elsewhere on a mismatched closing bracket ("did
 * not find expected node content"). from_mark: libyaml's mark where its
 * last event ended; the collection must start there (after blanks,
 * comments and block indicators), outside any flow collection. */
static int empty_flow_scan_stop(const yaml_parser_t *p, const char *text, size_t len, charpos *cp,
				size_t from_mark, const ynode *top, size_t top_col, const ynode *parent,
				size_t parent_col, bh_error *err)
{
	size_t i, o, stop, line, col = 0;
	const char *what = "did not find expected node content";
	if (p->error != YAML_SCANNER_ERROR || p->problem_mark.index < from_mark)
		return 0;
	i = char_offset(text, len, cp, from_mark);
	stop = char_offset(text, len, cp, p->problem_mark.index);
	while (i < stop) {
		if (text[i] && strchr(" \t\r\n", text[i]))
			i++;
		else if (text[i] == '#')
			while (i < stop && text[i] != '\n' && text[i] != '\r')
				i++;
		else if (text[i] && strchr("-?:", text[i]) && i + 1 < len && text[i + 1] && strchr(" \t\r\n", text[i + 1]))
			i += 2;
		else
			break;
	}
	if (i >= stop || (text[i] != '[' && text[i] != '{'))
		return 0;
	o = i;
	for (i++; i < stop && text[i] && strchr(" \t\r\n", text[i]); i++)
		;
	if (i >= stop || (text[i] != ']' && text[i] != '}'))
		return 0;
	size_t k = o;
	for (; k > 0 && text[k - 1] != '\n' && text[k - 1] != '\r'; k--)
		col += ((unsigned char)text[k - 1] & 0xC0) != 0x80;
	if (k == 0 && cp->base == 3) /* the text's BOM is no column */
		col--;
	if (top && top_col == col) {
		if (top->kind == N_MAP && top->n % 2)
			return 0; /* the value the mapping waits for: not followed here */
		if (top->kind == N_MAP || (parent && parent->kind == N_MAP && parent_col == top_col))
			what = "did not find expected key"; /* an indentless sequence ends first */
		else
			what = "did not find expected '-' indicator";
		i = o;
	} else if (text[i] == (text[o] == '[' ? ']' : '}')) {
		return 0; /* libyaml fails where goyaml does */
	}
	line = breaks_between(text, 0, i);
	if (line) /* a parser error: its line is not counted from 1 */
		return bh_error_set(err, BH_EPARSE, "yaml: line %zu: %s", line, what);
	return bh_error_set(err, BH_EPARSE, "yaml: %s", what);
}

/* Reads the first document of text into a node tree with libyaml; fix is
 * set where it stopped at something goyaml reads (see stop_mend). */
static int build_libyaml(builder *b, const char *text, size_t len, ynode **root, size_t fix[2])
{
	yaml_parser_t p;
	yaml_event_t ev;
	ynode **stack = NULL;
	size_t depth = 0, scap = 0;
	size_t flow_base = SIZE_MAX; /* stack index of the outermost flow collection */
	unsigned char *ends = NULL;  /* per stack level: ']' or '}' that a flow
				      * collection's entries end at */
	size_t *cols = NULL;         /* per stack level: the start column */
	size_t ecap = 0, ccap = 0;
	int rc = 0, done = 0, docs = 0, flow = 0, whole = 0, swap = 0;
	size_t last_end = 0; /* libyaml's mark of the last event's end */
	int utf8 = !(len >= 2 && ((unsigned char)text[0] == 0xFF || (unsigned char)text[0] == 0xFE));
	charpos cp = {0, 0, 0};
	*root = NULL;
	fix[0] = fix[1] = SIZE_MAX;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		cp.off = cp.base = 3;
	if ((rc = version_check(text, len, b->err)))
		return rc;
	if (!yaml_parser_initialize(&p))
		return bh_error_set(b->err, BH_ENOMEM, "out of memory");
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	while (!done) {
		ynode *n = NULL;
		if (!yaml_parser_parse(&p, &ev)) {
			const ynode *top = depth && !ends[depth - 1] ? stack[depth - 1] : NULL;
			const ynode *parent = depth > 1 && !ends[depth - 2] ? stack[depth - 2] : NULL;
			rc = empty_flow_key_stop(&p, text, len, &cp, utf8, top, top ? cols[depth - 1] : 0, parent,
						 parent ? cols[depth - 2] : 0, b->err);
			if (!rc && utf8 && flow_base == SIZE_MAX)
				rc = empty_flow_scan_stop(&p, text, len, &cp, last_end, top, top ? cols[depth - 1] : 0,
							  parent, parent ? cols[depth - 2] : 0, b->err);
			if (!rc)
				rc = quoted_stop(&p, text, len, &cp, utf8, fix, b->err);
			break;
		}
		if (utf8 && ev.type == YAML_SCALAR_EVENT &&
		    (ev.data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE ||
		     (ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && flow_base != SIZE_MAX))) {
			size_t s = char_offset(text, len, &cp, ev.start_mark.index);
			size_t e = char_offset(text, len, &cp, ev.end_mark.index);
			if (ev.data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE)
				rc = slash_escape_check(text, s, e, ev.start_mark.line, b->err);
			else
				rc = flow_question_check(text, s, e, ev.start_mark.line, ends[depth - 1], b->err);
			if (rc) {
				yaml_event_delete(&ev);
				break;
			}
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
		case YAML_DOCUMENT_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (docs++)
				done = 1;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (depth)
				depth--;
			if (depth <= flow_base)
				flow_base = SIZE_MAX;
			break;
		case YAML_ALIAS_EVENT:
			n = ynode_new(b, N_ALIAS);
			if (!n) {
				rc = b->err ? b->err->code : BH_ENOMEM;
				break;
			}
			n->value = (char *)ev.data.alias.anchor; /* taken from the event */
			ev.data.alias.anchor = NULL;
			n->alias = anchor_get(b, n->value);
			if (!n->alias) {
				rc = bh_error_set(b->err, BH_EPARSE, "yaml: unknown anchor '%s' referenced", n->value);
				break;
			}
			break;
		case YAML_SCALAR_EVENT:
			n = ynode_new(b, N_SCALAR);
			if (!n) {
				rc = b->err ? b->err->code : BH_ENOMEM;
				break;
			}
			/* libyaml's buffers (malloc'd, NUL-terminated) are
			 * taken from the event, not copied */
			n->value = (char *)ev.data.scalar.value;
			ev.data.scalar.value = NULL;
			n->len = ev.data.scalar.length;
			n->tag = (char *)ev.data.scalar.tag;
			ev.data.scalar.tag = NULL;
			n->implicit = ev.data.scalar.plain_implicit;
			if (ev.data.scalar.anchor && anchor_put(b, (const char *)ev.data.scalar.anchor, n))
				rc = bh_error_set(b->err, BH_ENOMEM, "out of memory");
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT: {
			int seq = ev.type == YAML_SEQUENCE_START_EVENT;
			yaml_char_t *anchor = seq ? ev.data.sequence_start.anchor : ev.data.mapping_start.anchor;
			yaml_char_t *tag = seq ? ev.data.sequence_start.tag : ev.data.mapping_start.tag;
			n = ynode_new(b, seq ? N_SEQ : N_MAP);
			if (!n) {
				rc = b->err ? b->err->code : BH_ENOMEM;
				break;
			}
			flow = seq ? ev.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
				   : ev.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
			if (flow && utf8 &&
			    (rc = empty_flow_key_check(&ev, text, len, &cp, stack, cols, ends, depth, &whole, b->err)))
				break;
			if (whole == 2) { /* goyaml: the value, and the key is the empty one */
				whole = 0;
				swap = 1;
			}
			if (whole) { /* goyaml's document is this empty collection */
				*root = n;
				n = NULL;
				done = 1;
				break;
			}
			if (flow && !seq && depth && ends && ends[depth - 1] == ']' && utf8) {
				/* "[a: b]": a single-pair mapping without braces
				 * ends with its sequence's entry */
				size_t s = char_offset(text, len, &cp, ev.start_mark.index);
				flow = s < len && text[s] == '{' ? '}' : ']';
			} else if (flow) {
				flow = seq ? ']' : '}';
			}
			if (tag) {
				n->tag = (char *)tag; /* taken from the event */
				if (seq)
					ev.data.sequence_start.tag = NULL;
				else
					ev.data.mapping_start.tag = NULL;
			}
			if (anchor && anchor_put(b, (const char *)anchor, n))
				rc = bh_error_set(b->err, BH_ENOMEM, "out of memory");
			break;
		}
		default:
			break;
		}
		if (!rc && n) {
			n->line = ev.start_mark.line;
			if (depth)
				rc = ynode_add(b, stack[depth - 1], n);
			if (depth && !rc && swap) {
				ynode **k = stack[depth - 1]->kids + stack[depth - 1]->n - 2;
				k[1] = k[0];
				k[0] = n;
				swap = 0;
			} else if (!depth && !*root)
				*root = n;
			if (!rc && (n->kind == N_SEQ || n->kind == N_MAP)) {
				if (depth >= b->max_depth) {
					rc = bh_error_set(b->err, BH_ELIMIT, "yaml: document nested deeper than %zu levels", b->max_depth);
				} else {
					if (VEC_RESERVE(stack, scap, depth + 1, 16) < 0)
						rc = bh_error_set(b->err, BH_ENOMEM, "out of memory");
					else if (VEC_RESERVE(ends, ecap, depth + 1, 16) < 0 ||
						 VEC_RESERVE(cols, ccap, depth + 1, 16) < 0)
						rc = bh_error_set(b->err, BH_ENOMEM, "out of memory");
					else {
						ends[depth] = (unsigned char)flow;
						cols[depth] = ev.start_mark.column;
						stack[depth++] = n;
					}
					if (flow && flow_base == SIZE_MAX)
						flow_base = depth - 1;
				}
			}
		}
		last_end = ev.end_mark.index;
		yaml_event_delete(&ev);
		if (rc)
			break;
	}
	free(stack);
	free(ends);
	free(cols);
	yaml_parser_delete(&p);
	return rc;
}

/* goyaml.v2 reads ',', '[' and ']' as part of a tag ("!a[b]", "!!b,nary");
 * libyaml 0.2.5 ends the tag there (and then refuses it, or in a flow
 * collection takes a ',' as the next entry). Where libyaml's scanner ends a
 * tag at one, they and the tag characters after them become %XX escapes in
 * a copy of the text (libyaml decodes them back into the tag): the offset
 * to mend from, or SIZE_MAX when there is none. */
static size_t tag_stop(const char *text, size_t len)
{
	yaml_parser_t p;
	yaml_token_t t;
	charpos cp = {0, 0, 0};
	size_t at = SIZE_MAX;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		cp.off = cp.base = 3;
	if (!yaml_parser_initialize(&p))
		return SIZE_MAX;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	for (;;) {
		if (!yaml_parser_scan(&p, &t)) {
			if (p.context && (strcmp(p.context, "while scanning a tag") == 0 || strcmp(p.context, "while parsing a tag") == 0)) {
				size_t o = char_offset(text, len, &cp, p.problem_mark.index);
				if (o < len && strchr(",[]", text[o]))
					at = o;
			}
			break;
		}
		if (t.type == YAML_TAG_TOKEN) {
			size_t s = char_offset(text, len, &cp, t.start_mark.index);
			size_t e = char_offset(text, len, &cp, t.end_mark.index);
			if (e < len && strchr(",[]", text[e]) && !(s + 1 < len && text[s + 1] == '<'))
				at = e;
		}
		yaml_token_type_t type = t.type;
		yaml_token_delete(&t);
		if (at != SIZE_MAX || type == YAML_STREAM_END_TOKEN)
			break;
	}
	yaml_parser_delete(&p);
	return at;
}

/* goyaml.v2's tag characters (yaml_parser_scan_tag_uri) */
static int goyaml_tag_char(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c && strchr("-_;/?:@&=+$,.!~*'()[]%", c));
}

/* Whether some '!' is followed, through tag characters, by a ',', '[' or
 * ']' (tag_stop's full scan is needed only then). */
static int tag_may_stop(const char *text, size_t len)
{
	const char *q = text, *end = text + len;
	while ((q = memchr(q, '!', (size_t)(end - q)))) {
		for (q++; q < end && goyaml_tag_char((unsigned char)*q); q++)
			if (*q == ',' || *q == '[' || *q == ']')
				return 1;
	}
	return 0;
}

static void tag_escape_fix(const char **text, size_t *len, size_t off, bh_buf *copy)
{
	const char *t = *text;
	bh_buf nb = BH_BUF_INIT;
	size_t i = off;
	bh_buf_put(&nb, t, off);
	for (; i < *len && goyaml_tag_char((unsigned char)t[i]); i++) {
		if (strchr(",[]", t[i]))
			bh_buf_printf(&nb, "%%%02X", (unsigned char)t[i]);
		else
			bh_buf_putc(&nb, t[i]);
	}
	bh_buf_put(&nb, t + i, *len - i);
	bh_buf_free(copy);
	*copy = nb;
	*text = nb.data ? nb.data : "";
	*len = nb.len;
}

/* goyaml.v2 reads a BOM that starts a line (not the text) as the first
 * character of a plain scalar ("\uFEFFb: 2" has the key "\uFEFFb"); libyaml
 * 0.2.5 skips it, the scalar then a column further in. The first plain
 * scalar libyaml's scanner finds right after such a BOM: its text is
 * text[*s, *e), the BOM at *s - 3; 0 when there is none. */
static int bom_stop(const char *text, size_t len, size_t *s, size_t *e)
{
	yaml_parser_t p;
	yaml_token_t t;
	charpos cp = {0, 0, 0};
	int found = 0;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		cp.off = cp.base = 3;
	if (!yaml_parser_initialize(&p))
		return 0;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	while (!found && yaml_parser_scan(&p, &t)) {
		yaml_token_type_t type = t.type;
		if (type == YAML_SCALAR_TOKEN && t.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
		    t.start_mark.column == 1) {
			size_t a = char_offset(text, len, &cp, t.start_mark.index);
			size_t b = char_offset(text, len, &cp, t.end_mark.index);
			if (a >= 4 && memcmp(text + a - 3, "\xef\xbb\xbf", 3) == 0 && text[a - 4] == '\n') {
				*s = a;
				*e = b;
				found = 1;
			}
		}
		yaml_token_delete(&t);
		if (type == YAML_STREAM_END_TOKEN)
			break;
	}
	yaml_parser_delete(&p);
	return found;
}

/* The scalar bom_stop found becomes a double-quoted one that starts with
 * the BOM (such a scalar is a string whatever its text). */
static void bom_fix(const char **text, size_t *len, size_t s, size_t e, bh_buf *copy)
{
	const char *t = *text;
	bh_buf nb = BH_BUF_INIT;
	bh_buf_put(&nb, t, s - 3);
	bh_buf_puts(&nb, "\"\\uFEFF");
	for (size_t i = s; i < e; i++) {
		if (t[i] == '"' || t[i] == '\\')
			bh_buf_putc(&nb, '\\');
		bh_buf_putc(&nb, t[i]);
	}
	bh_buf_putc(&nb, '"');
	bh_buf_put(&nb, t + e, *len - e);
	bh_buf_free(copy);
	*copy = nb;
	*text = nb.data;
	*len = nb.len;
}

/* Is text[i] right after a line break as goyaml.v2 reads them: '\n', '\r',
 * NEL, LS or PS? */
static int after_break(const unsigned char *t, size_t i)
{
	return i >= 1 && (t[i - 1] == '\n' || t[i - 1] == '\r' || (i >= 2 && t[i - 2] == 0xc2 && t[i - 1] == 0x85) ||
			  (i >= 3 && t[i - 3] == 0xe2 && t[i - 2] == 0x80 && (t[i - 1] == 0xa8 || t[i - 1] == 0xa9)));
}

/* goyaml.v2 reads a BOM that starts a line (after any of its line breaks;
 * not the text's first) as a character that starts a plain scalar, whatever
 * follows it ("\uFEFF[1]: 2" has the key "\uFEFF[1]", "\uFEFF# c" is a
 * scalar, a lone BOM a string); libyaml 0.2.5 skips it. Each such BOM is
 * written as a private-use character of the same length that the text does
 * not hold, which libyaml reads as goyaml reads the BOM (lines, columns
 * and offsets unchanged); sentinel_unfix turns them back in the tree. 1
 * with *text the copy and sent[] the character's bytes; 0 when there is no
 * such BOM, or no character is free (then bom_stop mends what it can). */
static int bom_sentinel_fix(const char **text, size_t *len, bh_buf *copy, unsigned char sent[3])
{
	const unsigned char *t = (const unsigned char *)*text;
	const char *at = memmem(*text, *len, "\xef\xbb\xbf", 3);
	int need = 0, found = 0;
	for (; at && !need; at = memmem(at + 1, *len - (size_t)(at + 1 - *text), "\xef\xbb\xbf", 3))
		need = after_break(t, (size_t)(at - *text));
	for (unsigned cp = 0xE000; need && !found && cp < 0xE100; cp++) {
		sent[0] = 0xee, sent[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f)), sent[2] = (unsigned char)(0x80 | (cp & 0x3f));
		found = !memmem(*text, *len, sent, 3);
	}
	if (!found)
		return 0;
	bh_buf nb = BH_BUF_INIT;
	bh_buf_put(&nb, *text, *len);
	if (!bh_buf_ok(&nb)) {
		bh_buf_free(&nb);
		return 0;
	}
	for (size_t i = 1; i + 3 <= nb.len; i++)
		if (!memcmp(nb.data + i, "\xef\xbb\xbf", 3) && after_break((const unsigned char *)nb.data, i))
			memcpy(nb.data + i, sent, 3);
	bh_buf_free(copy);
	*copy = nb;
	*text = nb.data;
	*len = nb.len;
	return 1;
}

/* the BOMs bom_sentinel_fix replaced, back in every scalar of b */
static void sentinel_unfix(builder *b, const unsigned char sent[3])
{
	for (yblock *blk = b->blocks; blk; blk = blk->next)
		for (size_t i = 0; i < blk->n; i++) {
			ynode *n = &YBLOCK_NODES(blk)[i];
			if (n->kind != N_SCALAR || !n->value || n->len < 3)
				continue;
			for (char *q = n->value; (q = memmem(q, n->len - (size_t)(q - n->value), sent, 3)); q += 3)
				memcpy(q, "\xef\xbb\xbf", 3);
		}
}

/* Reads the first document of text into a node tree; *root is NULL for an
 * empty stream. yaml_fast_build first, else libyaml, read again after each
 * scalar stop_mend made readable (a bounded number of times: each is a full
 * read). */
/* Before each read again: 0, or the error when the last copy failed or the
 * reads so far went too far (*spent: the bytes read up to each stop, at the
 * latest; a read again starts from the top). */
static int mend_check(builder *b, size_t fixes, size_t *spent, size_t at, const bh_buf *copy)
{
	if (!bh_buf_ok(copy))
		return bh_error_set(b->err, BH_ENOMEM, "out of memory");
	*spent += at;
	if (fixes >= 8 && *spent >= (size_t)64 << 20)
		return bh_error_set(b->err, BH_ELIMIT,
				    "yaml: gave up after reading the document again %zu times (for goyaml's \\' escapes, "
				    "tags with ',', '[' or ']', line-start BOMs, plain scalars with ':' in flow collections)", fixes);
	return 0;
}

static int build(builder *b, const char *text, size_t len, ynode **root)
{
	bh_buf copy = BH_BUF_INIT;
	size_t fix[2], fixes = 0, spent = 0, s, e;
	int rc = 0;
	int utf8 = !(len >= 2 && ((unsigned char)text[0] == 0xFF || (unsigned char)text[0] == 0xFE));
	*root = NULL;
	if (yaml_fast_build(b, text, len, root) == 0)
		return 0;
	unsigned char sent[3];
	int sentinel = utf8 && bom_sentinel_fix(&text, &len, &copy, sent);
	if (!sentinel && utf8 && memmem(text, len, "\n\xef\xbb\xbf", 4))
		while (!rc && bom_stop(text, len, &s, &e) && !(rc = mend_check(b, fixes++, &spent, s, &copy)))
			bom_fix(&text, &len, s, e, &copy);
	if (!rc && utf8 && tag_may_stop(text, len))
		while (!rc && (s = tag_stop(text, len)) != SIZE_MAX && !(rc = mend_check(b, fixes++, &spent, s, &copy)))
			tag_escape_fix(&text, &len, s, &copy);
	if (!rc)
		rc = mend_check(b, 0, &spent, 0, &copy);
	while (!rc && (rc = build_libyaml(b, text, len, root, fix)) && fix[0] != SIZE_MAX) {
		int mrc = mend_check(b, fixes++, &spent, fix[0], &copy);
		if (mrc) {
			rc = mrc;
			break;
		}
		if (!stop_mend(&text, &len, fix, &copy))
			break;
		rc = mend_check(b, 0, &spent, 0, &copy);
		ybuilder_reset(b);
		*root = NULL;
	}
	if (sentinel)
		sentinel_unfix(b, sent);
	bh_buf_free(&copy);
	return rc;
}

/* ---- typing and conversion to json_t --------------------------------------- */

typedef struct decoder {
	bh_error *err;
	int keep_ints;
	int v3; /* YAML_V3_TYPING */
	int utf8_valid; /* every scalar's text is valid UTF-8 (yaml_fast_build's) */
	size_t decode_count, alias_count, alias_depth, max_nodes, depth, max_depth;
	/* key-conversion errors, reported after decoding: the first whose
	 * mapping is still in the document (not in a value a later
	 * duplicate key replaced, nor in an unsupported key's value) */
	struct pending_key {
		json_t *obj;              /* the mapping's object (a reference) */
		int u64;                  /* a uint64 key (else a null one) */
		unsigned long long key;   /* that key */
		char msg[512];
	} *pend;
	size_t npend, cappend;
	int pend_lost;            /* more than YAML_MAX_PENDING: pend[0] is reported if none is left */
	json_t *key_obj;          /* the object of the mapping whose key key_string converts */
	int sharp_cut;            /* go_sharp_v reached YAML_MAX_ERROR_VALUE */
	json_t *dups;             /* duplicate keys found, when asked for */
	/* NaN/Inf values: placeholders in the tree, reported in json.Marshal
	 * order (sorted keys, depth first) once decoding is done */
	json_t **nonfinite;
	double *nonfinite_val;
	size_t nnonfinite, capnonfinite;
} decoder;

static double allowed_alias_ratio(size_t count)
{
	if (count <= 400000)
		return 0.99;
	if (count >= 4000000)
		return 0.10;
	return 0.99 - 0.89 * ((double)(count - 400000) / 3600000.0);
}

static int dec_fail(decoder *d, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int dec_fail(decoder *d, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bh_error_vset(d->err, code, fmt, ap);
	va_end(ap);
	return code;
}

#define YAML_MAX_PENDING 32

/* Records an unsupported key of the mapping decoded into d->key_obj. The
 * same key again in that object (a duplicate, or one a merge brought)
 * replaces the value in goyaml's map: its message names the last one. */
static void pend(decoder *d, int u64, unsigned long long key, const char *msg)
{
	struct pending_key *p = NULL;
	for (size_t i = 0; i < d->npend && !p; i++)
		if (d->pend[i].obj == d->key_obj && d->pend[i].u64 == u64 && (!u64 || d->pend[i].key == key))
			p = &d->pend[i];
	if (!p) {
		if (d->npend == YAML_MAX_PENDING) {
			d->pend_lost = 1;
			return;
		}
		if (d->npend == d->cappend) {
			size_t cap = d->cappend ? 2 * d->cappend : 4;
			struct pending_key *np = realloc(d->pend, cap * sizeof *np);
			if (!np) {
				d->pend_lost = 1;
				return;
			}
			d->pend = np;
			d->cappend = cap;
		}
		p = &d->pend[d->npend++];
		p->obj = json_incref(d->key_obj);
		p->u64 = u64;
		p->key = key;
	}
	snprintf(p->msg, sizeof p->msg, "%s", msg);
}

/* v is obj or holds it (as deep as the decoder's depth limit let it be) */
static int holds(const json_t *v, const json_t *obj)
{
	const char *k;
	json_t *e;
	size_t i;
	if (v == obj)
		return 1;
	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, k, e) if (holds(e, obj)) return 1;
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, e) if (holds(e, obj)) return 1;
	}
	return 0;
}

/* The message of the first recorded key error still in doc, or NULL */
static const char *pending_error(const decoder *d, const json_t *doc)
{
	for (size_t i = 0; i < d->npend; i++)
		if (holds(doc, d->pend[i].obj))
			return d->pend[i].msg;
	return d->pend_lost ? d->pend[0].msg : NULL;
}

static const char *short_tag(const char *tag, char *buf, size_t n)
{
	if (strncmp(tag, TAG_PREFIX, strlen(TAG_PREFIX)) == 0) {
		snprintf(buf, n, "!!%s", tag + strlen(TAG_PREFIX));
		return buf;
	}
	return tag;
}

/* base64 (StdEncoding, padding required, '\r' '\n' ignored as Go does). */
static int b64_decode(const char *s, size_t n, bh_buf *out)
{
	static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned q[4];
	int k = 0, pad = 0;
	for (size_t i = 0; i < n; i++) {
		const char *p;
		char c = s[i];
		if (c == '\r' || c == '\n')
			continue;
		if (c == '=') {
			if (k < 2)
				return -1;
			pad++;
			q[k++] = 0;
		} else {
			if (pad || !(p = strchr(al, c)) || !c)
				return -1;
			q[k++] = (unsigned)(p - al);
		}
		if (k == 4) {
			unsigned v = (q[0] << 18) | (q[1] << 12) | (q[2] << 6) | q[3];
			bh_buf_putc(out, (char)(v >> 16));
			if (pad < 2)
				bh_buf_putc(out, (char)(v >> 8));
			if (pad < 1)
				bh_buf_putc(out, (char)v);
			k = 0;
			if (pad) {
				/* only newlines may follow padding */
				for (i++; i < n; i++)
					if (s[i] != '\r' && s[i] != '\n')
						return -1;
				return 0;
			}
		}
	}
	return k == 0 ? 0 : -1;
}

/* A Go string as json.Marshal would keep it: invalid UTF-8 becomes U+FFFD
 * (valid: known to be). */
static inline json_t *json_go_string(const char *s, size_t n, int valid)
{
	if (valid || utf8_check_go(s, n))
		return json_stringn_nocheck(s, n);
	{
		bh_buf b = BH_BUF_INIT;
		json_t *j;
		utf8_sanitize_go(&b, s, n);
		j = json_stringn_nocheck(b.data ? b.data : "", b.len);
		bh_buf_free(&b);
		return j;
	}
}

static int is_merge(const ynode *n)
{
	return n->kind == N_SCALAR && n->value[0] == '<' && n->value[1] == '<' && !n->value[2] &&
	       (n->implicit || (n->tag && strcmp(n->tag, TAG_PREFIX "merge") == 0));
}

static int decode(decoder *d, const ynode *n, json_t **out);

/* 1 when scalar node n is a string without yaml_resolve: untagged, and
 * quoted or block, or plain with a first byte that settles it (most) */
static inline int scalar_is_str(const ynode *n)
{
	return !n->tag && (!n->implicit || (n->len && !yaml_plain_may_resolve((unsigned char)n->value[0])));
}

/* Resolves a scalar node as goyaml.v2's decoder does for interface{}. */
static inline int scalar_value(decoder *d, const ynode *n, yres *r)
{
	const char *tag = n->tag;
	if (scalar_is_str(n)) {
		r->kind = YR_STR;
		return 0;
	}
	if (yaml_resolve(tag ? tag : "", n->value, n->len, r) < 0) {
		char a[128], b[128];
		return dec_fail(d, BH_EINVAL, "yaml: cannot decode %s `%s` as a %s",
				short_tag(yres_tag(r), a, sizeof a), n->value, short_tag(tag, b, sizeof b));
	}
	/* yaml.v3: only true/false booleans (y, yes, on, ... are strings) */
	if (d->v3 && !tag && r->kind == YR_BOOL) {
		static const char *const b[] = {"true", "True", "TRUE", "false", "False", "FALSE"};
		r->kind = YR_STR;
		for (size_t i = 0; i < 6; i++)
			if (!strcmp(n->value, b[i]))
				r->kind = YR_BOOL;
	}
	return 0;
}

static int scalar_json(decoder *d, const ynode *n, json_t **out)
{
	yres r;
	int rc = scalar_value(d, n, &r);
	if (rc)
		return rc;
	switch (r.kind) {
	case YR_NULL: *out = json_null(); break;
	case YR_BOOL: *out = json_boolean(r.b); break;
	case YR_INT:
		*out = d->keep_ints ? json_integer(r.i) : json_real((double)r.i);
		break;
	case YR_UINT: *out = json_real((double)r.u); break;
	case YR_FLOAT:
		if (isnan(r.f) || isinf(r.f)) {
			*out = json_object(); /* a placeholder, identified by pointer */
			if (*out && d->nnonfinite == d->capnonfinite) {
				size_t nc = d->capnonfinite ? d->capnonfinite * 2 : 8;
				json_t **np = realloc(d->nonfinite, nc * sizeof *np);
				double *nv = np ? realloc(d->nonfinite_val, nc * sizeof *nv) : NULL;
				if (np)
					d->nonfinite = np;
				if (!np || !nv) {
					json_decref(*out);
					return dec_fail(d, BH_ENOMEM, "out of memory");
				}
				d->nonfinite_val = nv;
				d->capnonfinite = nc;
			}
			if (*out) {
				/* keep a reference: pointer identity must outlive a
				 * duplicate key replacing the value */
				d->nonfinite[d->nnonfinite] = json_incref(*out);
				d->nonfinite_val[d->nnonfinite++] = r.f;
			}
		} else {
			*out = json_real(r.f);
		}
		break;
	case YR_BINARY: {
		bh_buf b = BH_BUF_INIT;
		if (b64_decode(n->value, n->len, &b) < 0) {
			bh_buf_free(&b);
			return dec_fail(d, BH_EINVAL, "yaml: !!binary value contains invalid base64 data");
		}
		*out = json_go_string(b.data ? b.data : "", b.len, 0);
		bh_buf_free(&b);
		break;
	}
	default: /* strings, timestamps (kept as text), merge, unknown tags */
		*out = json_go_string(n->value, n->len, d->utf8_valid);
		break;
	}
	if (!*out)
		return dec_fail(d, BH_ENOMEM, "out of memory");
	return 0;
}

/* scalar_value for a message about the document: its own error dropped
 * (d->err untouched); 0 with *r set, or nonzero. */
static int scalar_peek(decoder *d, const ynode *n, yres *r)
{
	bh_error scratch;
	bh_error *save = d->err;
	int rc;
	d->err = &scratch;
	rc = scalar_value(d, n, r);
	d->err = save;
	return rc;
}

/* A scalar key as the Go value goyaml.v2 decodes it to, for fmt's sorted
 * map printing (r->kind: YR_NULL, YR_STR for every string, YR_UINT,
 * YR_INT, YR_FLOAT, YR_BOOL; a !!binary key is the string it decodes to,
 * left in *bin): 0 when it is not a plain scalar. */
static int sharp_key(decoder *d, const ynode *k, yres *r, bh_buf *bin)
{
	if (k->kind == N_ALIAS && k->alias)
		k = k->alias;
	if (k->kind != N_SCALAR || scalar_peek(d, k, r))
		return 0;
	if (r->kind == YR_BINARY && b64_decode(k->value, k->len, bin) < 0)
		return 0;
	if (r->kind != YR_NULL && r->kind != YR_BOOL && r->kind != YR_INT && r->kind != YR_UINT && r->kind != YR_FLOAT)
		r->kind = YR_STR;
	return 1;
}

typedef struct sharp_ent {
	size_t at; /* index of the pair (sharp_pairs) */
	const char *s; /* a string key's text (a !!binary key's: decoded, in bin) */
	size_t sn;
	bh_buf bin;
	yres r;
} sharp_ent;

/* fmt (internal/fmtsort) orders interface keys by the address of their
 * type, then by value: in helm v4.1.4's binary nil < string < uint64 <
 * int < float64 < bool */
static int sharp_rank(int kind)
{
	switch (kind) {
	case YR_NULL: return 0;
	case YR_UINT: return 2;
	case YR_INT: return 3;
	case YR_FLOAT: return 4;
	case YR_BOOL: return 5;
	default: return 1;
	}
}

/* fmtsort's order; a NaN is below every other float and equal to none */
static int sharp_cmp(const sharp_ent *a, const sharp_ent *b)
{
	int ra = sharp_rank(a->r.kind), rb = sharp_rank(b->r.kind);
	if (ra != rb)
		return ra < rb ? -1 : 1;
	switch (a->r.kind) {
	case YR_NULL: return 0;
	case YR_BOOL: return a->r.b - b->r.b;
	case YR_INT: return a->r.i < b->r.i ? -1 : a->r.i > b->r.i;
	case YR_UINT: return a->r.u < b->r.u ? -1 : a->r.u > b->r.u;
	case YR_FLOAT:
		if (isnan(a->r.f) || isnan(b->r.f))
			return isnan(a->r.f) && isnan(b->r.f) ? (a->at > b->at) - (a->at < b->at) : isnan(a->r.f) ? -1 : 1;
		return a->r.f < b->r.f ? -1 : a->r.f > b->r.f;
	default: {
		size_t m = a->sn < b->sn ? a->sn : b->sn;
		int c = m ? memcmp(a->s, b->s, m) : 0;
		return c ? c : (a->sn > b->sn) - (a->sn < b->sn);
	}
	}
}

static int sharp_sort_cmp(const void *x, const void *y)
{
	const sharp_ent *a = x, *b = y;
	int c = sharp_cmp(a, b);
	return c ? c : (a->at > b->at) - (a->at < b->at); /* a later duplicate follows */
}

/* The key and value nodes of mapping m in the order goyaml sets them in
 * its map, merges followed as decode_mapping_into does (a merged sequence
 * from its last map); at most YAML_MAX_ERROR_VALUE pairs (more do not
 * print) and 16 times as many mappings visited (merges of merges of
 * aliases multiply), an alias being merged into itself not followed again. */
typedef struct sharp_pairs {
	const ynode **kv; /* key, value, key, value, ... */
	size_t n, cap, visits;
} sharp_pairs;

static void sharp_flatten(sharp_pairs *p, const ynode *m)
{
	ynode *an = NULL;
	if (++p->visits > 16 * YAML_MAX_ERROR_VALUE)
		return;
	if (m->kind == N_ALIAS && m->alias) {
		an = (ynode *)m;
		if (an->printing)
			return;
		an->printing = 1;
		m = m->alias;
	}
	for (size_t i = 0; m->kind == N_MAP && i + 1 < m->n && p->n < YAML_MAX_ERROR_VALUE; i += 2) {
		const ynode *k = m->kids[i], *v = m->kids[i + 1];
		if (is_merge(k)) {
			const ynode *t = v->kind == N_ALIAS && v->alias ? v->alias : v;
			if (t->kind == N_MAP)
				sharp_flatten(p, v);
			else if (v->kind == N_SEQ)
				for (size_t j = v->n; j-- > 0;)
					sharp_flatten(p, v->kids[j]);
			continue;
		}
		if (p->n == p->cap) {
			size_t cap = p->cap ? 2 * p->cap : 8;
			const ynode **nk = realloc(p->kv, 2 * cap * sizeof *nk);
			if (!nk)
				break;
			p->kv = nk;
			p->cap = cap;
		}
		p->kv[2 * p->n] = k;
		p->kv[2 * p->n + 1] = v;
		p->n++;
	}
	if (an)
		an->printing = 0;
}

/* fmt prints a Go map sorted by key, each key once (the last value wins in
 * the decoded map). A map with a key that is no scalar (goyaml refuses it
 * before anything prints it) keeps document order.
 * order[] holds pair indexes into p; returns the new count. */
static size_t sharp_map_order(decoder *d, const sharp_pairs *p, size_t *order, size_t k)
{
	sharp_ent *e = calloc(k + 1, sizeof *e);
	size_t w = 0, got = 0;
	if (!e)
		return k;
	for (; got < k; got++) {
		const ynode *kn = p->kv[2 * order[got]];
		e[got].at = order[got];
		if (!sharp_key(d, kn, &e[got].r, &e[got].bin))
			break;
		if (kn->kind == N_ALIAS && kn->alias)
			kn = kn->alias;
		e[got].s = e[got].r.kind == YR_STR && e[got].bin.data ? e[got].bin.data : kn->value;
		e[got].sn = e[got].r.kind == YR_STR && e[got].bin.data ? e[got].bin.len : kn->len;
	}
	if (got == k) {
		qsort(e, k, sizeof *e, sharp_sort_cmp);
		for (size_t i = 0; i < k; i++) { /* equal keys are next to each other: the last counts */
			if (i && sharp_cmp(&e[i - 1], &e[i]) == 0)
				w--;
			order[w++] = e[i].at;
		}
	}
	for (size_t i = 0; i < k; i++)
		bh_buf_free(&e[i].bin);
	free(e);
	return got == k ? w : k;
}

/* Go's %+#v of a decoded v2 value, for the "invalid map key" and
 * "unsupported map key" messages. Bounded: at most YAML_MAX_ERROR_VALUE
 * bytes are written (then "..."), and an alias met again inside its own
 * expansion prints "..." (the decoder refuses such a document anyway), so
 * the work is linear in the cap whatever the aliases multiply. */
static void go_sharp_v(bh_buf *b, decoder *d, const ynode *n, size_t start)
{
	ynode *an = NULL;
	if (b->len - start >= YAML_MAX_ERROR_VALUE) {
		if (!d->sharp_cut) {
			bh_buf_puts(b, "...");
			d->sharp_cut = 1;
		}
		return;
	}
	if (n->kind == N_ALIAS && n->alias) {
		an = (ynode *)n;
		if (an->printing) {
			bh_buf_puts(b, "...");
			return;
		}
		an->printing = 1;
		n = n->alias;
	}
	if (n->kind == N_SCALAR) {
		yres r;
		if (scalar_peek(d, n, &r)) {
			bh_buf_puts(b, "?");
		} else {
			switch (r.kind) {
			case YR_NULL: bh_buf_puts(b, "interface {}(nil)"); break;
			case YR_BOOL: bh_buf_puts(b, r.b ? "true" : "false"); break;
			case YR_INT: bh_buf_printf(b, "%lld", (long long)r.i); break;
			case YR_UINT: bh_buf_printf(b, "0x%llx", (unsigned long long)r.u); break;
			case YR_FLOAT: {
				char t[64];
				go_format_float(t, sizeof t, r.f, 'g', -1);
				bh_buf_puts(b, t);
				break;
			}
			case YR_BINARY: { /* the string it decodes to */
				bh_buf t = BH_BUF_INIT;
				if (b64_decode(n->value, n->len, &t) < 0)
					bh_buf_puts(b, "?");
				else
					go_quote(b, t.data ? t.data : "", t.len, '"', 0);
				bh_buf_free(&t);
				break;
			}
			default: /* %#v of a string is strconv.Quote's */
				go_quote(b, n->value ? n->value : "", n->len, '"', 0);
				break;
			}
		}
	} else if (n->kind == N_SEQ) {
		bh_buf_puts(b, "[]interface {}{");
		for (size_t i = 0; i < n->n && !d->sharp_cut; i++) {
			if (i)
				bh_buf_puts(b, ", ");
			go_sharp_v(b, d, n->kids[i], start);
		}
		bh_buf_putc(b, '}');
	} else if (n->kind == N_MAP) {
		sharp_pairs p = {0};
		size_t *order, k = 0;
		bh_buf_puts(b, "map[interface {}]interface {}{");
		sharp_flatten(&p, n);
		if ((order = malloc((p.n + 1) * sizeof *order))) {
			for (size_t i = 0; i < p.n; i++)
				order[k++] = i;
			k = sharp_map_order(d, &p, order, k);
			for (size_t j = 0; j < k && !d->sharp_cut; j++) {
				if (j)
					bh_buf_puts(b, ", ");
				go_sharp_v(b, d, p.kv[2 * order[j]], start);
				bh_buf_putc(b, ':');
				go_sharp_v(b, d, p.kv[2 * order[j] + 1], start);
			}
			free(order);
		}
		free(p.kv);
		bh_buf_putc(b, '}');
	} else {
		bh_buf_puts(b, "<nil>");
	}
	if (an)
		an->printing = 0;
}

static void sharp_v_new(bh_buf *b, decoder *d, const ynode *n)
{
	d->sharp_cut = 0;
	go_sharp_v(b, d, n, b->len);
}

/* The value of an unsupported key as sigs.k8s.io/yaml's %+#v prints it:
 * "<nil>" for a null scalar (a nil interface), else go_sharp_v's. */
static void unsupported_value(decoder *d, const ynode *v, bh_buf *m)
{
	const ynode *vv = v;
	yres vr;
	while (vv->kind == N_ALIAS && vv->alias)
		vv = vv->alias;
	if (vv->kind == N_SCALAR && !scalar_peek(d, vv, &vr) && vr.kind == YR_NULL)
		bh_buf_puts(m, "<nil>");
	else
		sharp_v_new(m, d, vv);
}

/* The JSON key sigs.k8s.io/yaml makes of a YAML key: a string key is left
 * in *kp, *kn (the node's own text), any other is written to key (and *kp
 * left alone); 1 if it is unsupported (a pending error is recorded), -1 on
 * a hard error. */
static int key_string(decoder *d, const ynode *k, const ynode *v, bh_buf *key, const char **kp, size_t *kn)
{
	const ynode *kk = k;
	yres r;
	int rc;
	while (kk->kind == N_ALIAS && kk->alias)
		kk = kk->alias;
	if (kk->kind != N_SCALAR) {
		/* goyaml.v2 decodes the key first (aliases, their cycles and the
		 * alias budget are checked there), then refuses a map or slice */
		bh_buf m = BH_BUF_INIT;
		json_t *tmp = NULL;
		if (decode(d, k, &tmp))
			return -1;
		json_decref(tmp);
		sharp_v_new(&m, d, kk);
		dec_fail(d, BH_EINVAL, "yaml: invalid map key: %s", bh_buf_str(&m));
		bh_buf_free(&m);
		return -1;
	}
	if ((rc = scalar_value(d, kk, &r)))
		return -1;
	switch (r.kind) {
	case YR_NULL: {
		bh_buf m = BH_BUF_INIT;
		unsupported_value(d, v, &m);
		{
			char msg[512];
			snprintf(msg, sizeof msg, "unsupported map key of type: %%!s(<nil>), key: <nil>, value: %s", bh_buf_str(&m));
			pend(d, 0, 0, msg);
		}
		bh_buf_free(&m);
		return 1;
	}
	case YR_BOOL:
		bh_buf_puts(key, r.b ? "true" : "false");
		return 0;
	case YR_INT:
		bh_buf_printf(key, "%lld", (long long)r.i);
		return 0;
	case YR_UINT: {
		bh_buf m = BH_BUF_INIT;
		char msg[512];
		unsupported_value(d, v, &m);
		snprintf(msg, sizeof msg, "unsupported map key of type: uint64, key: 0x%llx, value: %s",
			 (unsigned long long)r.u, bh_buf_str(&m));
		bh_buf_free(&m);
		pend(d, 1, r.u, msg);
		return 1;
	}
	case YR_FLOAT: {
		char t[64];
		if (isnan(r.f))
			bh_buf_puts(key, ".nan");
		else if (isinf(r.f))
			bh_buf_puts(key, r.f > 0 ? ".inf" : "-.inf");
		else {
			go_format_float32_g(t, sizeof t, r.f);
			bh_buf_puts(key, t);
		}
		return 0;
	}
	case YR_BINARY: {
		if (b64_decode(kk->value, kk->len, key) < 0) {
			dec_fail(d, BH_EINVAL, "yaml: !!binary value contains invalid base64 data");
			return -1;
		}
		return 0;
	}
	default: /* the scalar's own text: no copy */
		*kp = kk->value ? kk->value : "";
		*kn = kk->len;
		return 0;
	}
}

static int decode_mapping_into(decoder *d, const ynode *n, json_t *obj);

static int merge(decoder *d, const ynode *v, json_t *obj)
{
	static const char want[] = "yaml: map merge requires map or sequence of maps as the value";
	switch (v->kind) {
	case N_MAP:
		return decode_mapping_into(d, v, obj);
	case N_ALIAS:
		if (v->alias && v->alias->kind != N_MAP)
			return dec_fail(d, BH_EINVAL, want);
		return decode_mapping_into(d, v, obj);
	case N_SEQ:
		for (size_t i = v->n; i-- > 0;) {
			const ynode *e = v->kids[i];
			int rc;
			if (e->kind == N_ALIAS) {
				if (e->alias && e->alias->kind != N_MAP)
					return dec_fail(d, BH_EINVAL, want);
			} else if (e->kind != N_MAP) {
				return dec_fail(d, BH_EINVAL, want);
			}
			if ((rc = decode_mapping_into(d, e, obj)))
				return rc;
		}
		return 0;
	default:
		return dec_fail(d, BH_EINVAL, want);
	}
}

static inline int count_node(decoder *d)
{
	d->decode_count++;
	if (d->alias_depth > 0)
		d->alias_count++;
	if (d->alias_count > 100 && d->decode_count > 1000 &&
	    (double)d->alias_count / (double)d->decode_count > allowed_alias_ratio(d->decode_count))
		return dec_fail(d, BH_ELIMIT, "yaml: document contains excessive aliasing");
	if (d->decode_count > d->max_nodes)
		return dec_fail(d, BH_ELIMIT, "yaml: document expands to more than %zu values", d->max_nodes);
	return 0;
}

/* A key this mapping already set: goyaml.v2 strict mode's text, with the
 * line of the later value ("line 3: key \"a\" already set in map"). */
static void report_dup(decoder *d, const char *ks, size_t kl, const ynode *v)
{
	bh_buf m = BH_BUF_INIT;
	bh_buf_printf(&m, "line %zu: key ", v->line + 1);
	gojson_quote(&m, ks, kl, GOJSON_NO_HTML_ESCAPE);
	bh_buf_puts(&m, " already set in map");
	if (bh_buf_ok(&m) && json_array_size(d->dups) < 100)
		json_array_append_new(d->dups, json_stringn(m.data, m.len));
	bh_buf_free(&m);
}

static void note_dup(decoder *d, json_t *seen, const char *ks, size_t kl, const ynode *v)
{
	if (json_object_getn(seen, ks, kl))
		report_dup(d, ks, kl, v);
	else
		json_object_setn_new_nocheck(seen, ks, kl, json_true());
}

static int has_merge_key(const ynode *n)
{
	for (size_t i = 0; i + 1 < n->n; i += 2)
		if (is_merge(n->kids[i]))
			return 1;
	return 0;
}

/* Decodes mapping node n (or an alias of one) into the existing object. */
static int decode_mapping_into(decoder *d, const ynode *n, json_t *obj)
{
	int rc;
	if (n->kind == N_ALIAS) {
		ynode *an = (ynode *)n;
		if (an->busy)
			return dec_fail(d, BH_EINVAL, "yaml: anchor '%s' value contains itself", n->value);
		an->busy = 1;
		d->alias_depth++;
		rc = count_node(d);
		if (!rc)
			rc = decode_mapping_into(d, n->alias, obj);
		d->alias_depth--;
		an->busy = 0;
		return rc;
	}
	if ((rc = count_node(d)))
		return rc;
	if (++d->depth > d->max_depth) {
		d->depth--;
		return dec_fail(d, BH_ELIMIT, "yaml: document nested deeper than %zu levels", d->max_depth);
	}
	/* keys written by this mapping itself (not again through an alias):
	 * while obj holds only those (it started empty, no merge key), a key
	 * already in obj is a duplicate; else a set of them */
	int dup_check = d->dups && !d->alias_depth;
	int own = dup_check && json_object_size(obj) == 0 && !has_merge_key(n);
	json_t *seen = dup_check && !own ? json_object() : NULL;
	for (size_t i = 0; i + 1 < n->n && !rc; i += 2) {
		const ynode *k = n->kids[i], *v = n->kids[i + 1];
		bh_buf key = BH_BUF_INIT;
		const char *ks = NULL;
		size_t kl = 0;
		json_t *val = NULL;
		int kr;
		if (is_merge(k)) {
			rc = merge(d, v, obj);
			continue;
		}
		if (k->kind == N_SCALAR && scalar_is_str(k)) {
			/* a string key (most): key_string's answer, its text */
			ks = k->value ? k->value : "";
			kl = k->len;
			kr = 0;
		} else {
			d->key_obj = obj;
			kr = key_string(d, k, v, &key, &ks, &kl);
		}
		if (kr < 0) {
			rc = d->err ? d->err->code : BH_EINVAL;
			bh_buf_free(&key);
			break;
		}
		rc = decode(d, v, &val);
		if (!rc && kr == 0) {
			bh_buf k2 = BH_BUF_INIT;
			if (!ks) {
				ks = key.data ? key.data : "";
				kl = key.len;
			}
			if (!d->utf8_valid && !utf8_check_go(ks, kl)) {
				utf8_sanitize_go(&k2, ks, kl);
				ks = bh_buf_str(&k2);
				kl = k2.len;
			}
			size_t had = own ? json_object_size(obj) : 0;
			if (seen)
				note_dup(d, seen, ks, kl, v);
			if (json_object_setn_new_nocheck(obj, ks, kl, val))
				rc = dec_fail(d, BH_ENOMEM, "out of memory");
			else if (own && json_object_size(obj) == had)
				report_dup(d, ks, kl, v); /* the key replaced a value */
			if (k2.data)
				bh_buf_free(&k2);
		} else {
			json_decref(val);
		}
		if (key.data)
			bh_buf_free(&key);
	}
	json_decref(seen);
	d->depth--;
	return rc;
}

static int decode(decoder *d, const ynode *n, json_t **out)
{
	int rc;
	*out = NULL;
	switch (n->kind) {
	case N_ALIAS: {
		ynode *an = (ynode *)n;
		if (an->busy)
			return dec_fail(d, BH_EINVAL, "yaml: anchor '%s' value contains itself", n->value);
		if ((rc = count_node(d)))
			return rc;
		an->busy = 1;
		d->alias_depth++;
		rc = decode(d, n->alias, out);
		d->alias_depth--;
		an->busy = 0;
		return rc;
	}
	case N_SCALAR:
		if ((rc = count_node(d)))
			return rc;
		return scalar_json(d, n, out);
	case N_SEQ: {
		json_t *a;
		if ((rc = count_node(d)))
			return rc;
		if (++d->depth > d->max_depth) {
			d->depth--;
			return dec_fail(d, BH_ELIMIT, "yaml: document nested deeper than %zu levels", d->max_depth);
		}
		a = json_array();
		if (!a) {
			d->depth--;
			return dec_fail(d, BH_ENOMEM, "out of memory");
		}
		for (size_t i = 0; i < n->n; i++) {
			json_t *e;
			if ((rc = decode(d, n->kids[i], &e)))
				break;
			if (json_array_append_new(a, e)) {
				rc = dec_fail(d, BH_ENOMEM, "out of memory");
				break;
			}
		}
		d->depth--;
		if (rc) {
			json_decref(a);
			return rc;
		}
		*out = a;
		return 0;
	}
	case N_MAP: {
		json_t *o = json_object();
		if (!o)
			return dec_fail(d, BH_ENOMEM, "out of memory");
		d->decode_count--; /* decode_mapping_into counts this node */
		rc = decode_mapping_into(d, n, o);
		if (rc) {
			json_decref(o);
			return rc;
		}
		*out = o;
		return 0;
	}
	}
	return dec_fail(d, BH_EINVAL, "yaml: bad node");
}

/* The first NaN/Inf placeholder in json.Marshal order; -1 if none. */
static int first_nonfinite(const decoder *d, const json_t *v, int depth)
{
	if (depth > 10000)
		return -1;
	for (size_t i = 0; i < d->nnonfinite; i++)
		if (d->nonfinite[i] == v)
			return (int)i;
	if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++) {
			int r = first_nonfinite(d, json_array_get(v, i), depth + 1);
			if (r >= 0)
				return r;
		}
	} else if (json_is_object(v)) {
		size_t n = json_object_size(v), k = 0;
		struct kv { const char *key; size_t len; json_t *val; } *ents = malloc((n + 1) * sizeof *ents);
		int r = -1;
		if (!ents)
			return d->nnonfinite ? 0 : -1;
		for (void *it = json_object_iter((json_t *)v); it && k < n; it = json_object_iter_next((json_t *)v, it), k++) {
			ents[k].key = json_object_iter_key(it);
			ents[k].len = json_object_iter_key_len(it);
			ents[k].val = json_object_iter_value(it);
		}
		/* insertion sort by Go string order; objects are small */
		for (size_t i = 1; i < k; i++) {
			struct kv t = ents[i];
			size_t j = i;
			while (j > 0) {
				size_t m = ents[j - 1].len < t.len ? ents[j - 1].len : t.len;
				int c = memcmp(ents[j - 1].key, t.key, m);
				if (c < 0 || (c == 0 && ents[j - 1].len <= t.len))
					break;
				ents[j] = ents[j - 1];
				j--;
			}
			ents[j] = t;
		}
		for (size_t i = 0; i < k && r < 0; i++)
			r = first_nonfinite(d, ents[i].val, depth + 1);
		free(ents);
		return r;
	}
	return -1;
}

/* sigs.k8s.io/yaml.Unmarshal into interface{}: first document only. */
static int unmarshal_doc(const char *text, size_t len, const yaml_limits *lim, int flags,
			 json_t *dups, size_t line0, json_t **out, bh_error *err)
{
	builder b;
	decoder d;
	ynode *root = NULL;
	int rc;
	memset(&b, 0, sizeof b);
	memset(&d, 0, sizeof d);
	b.err = err;
	b.max_depth = lim && lim->max_depth ? lim->max_depth : YAML_MAX_DEPTH;
	b.max_nodes = lim && lim->max_nodes ? lim->max_nodes : YAML_MAX_NODES;
	*out = NULL;
	rc = build(&b, text, len, &root);
	if (!rc) {
		d.err = err;
		d.keep_ints = (flags & YAML_KEEP_INTS) != 0;
		d.v3 = (flags & YAML_V3_TYPING) != 0;
		d.utf8_valid = b.arena != NULL;
		d.max_nodes = b.max_nodes;
		d.max_depth = b.max_depth;
		d.dups = dups;
		for (yblock *blk = dups ? b.blocks : NULL; blk; blk = blk->next)
			for (size_t i = 0; i < blk->n; i++)
				YBLOCK_NODES(blk)[i].line += line0;
		if (!root) {
			*out = json_null();
		} else {
			rc = decode(&d, root, out);
			const char *perr = !rc && d.npend ? pending_error(&d, *out) : NULL;
			if (perr) {
				rc = bh_error_set(err, BH_EINVAL, "%s", perr);
				json_decref(*out);
				*out = NULL;
			} else if (!rc && d.nnonfinite) {
				/* a NaN/Inf overwritten by a later duplicate key is gone */
				int k = first_nonfinite(&d, *out, 0);
				if (k >= 0) {
					double f = d.nonfinite_val[k];
					json_decref(*out);
					*out = NULL;
					rc = bh_error_set(err, BH_EINVAL, "json: unsupported value: %s",
							  isnan(f) ? "NaN" : f > 0 ? "+Inf" : "-Inf");
				}
			}
		}
	}
	builder_free(&b);
	for (size_t i = 0; i < d.nnonfinite; i++)
		json_decref(d.nonfinite[i]);
	for (size_t i = 0; i < d.npend; i++)
		json_decref(d.pend[i].obj);
	free(d.pend);
	free(d.nonfinite);
	free(d.nonfinite_val);
	if (rc) {
		bh_error_prefix(err, "error converting YAML to JSON");
		return rc;
	}
	return 0;
}

static int parse_any(const char *text, size_t len, const yaml_limits *lim, int flags, json_t *dups,
		     json_t **out, bh_error *err)
{
	size_t max = lim && lim->max_bytes ? lim->max_bytes : YAML_MAX_BYTES;
	*out = NULL;
	if (len > max)
		return bh_error_set(err, BH_ELIMIT, "YAML document of %zu bytes exceeds the limit of %zu bytes", len, max);
	return unmarshal_doc(text, len, lim, flags, dups, 0, out, err);
}

int yaml_parse_any(const char *text, size_t len, const yaml_limits *lim, int flags,
		   json_t **out, bh_error *err)
{
	return parse_any(text, len, lim, flags, NULL, out, err);
}

int yaml_parse_any_dups(const char *text, size_t len, const yaml_limits *lim, int flags,
			json_t **out, json_t **dups, bh_error *err)
{
	int rc;
	*dups = json_array();
	rc = parse_any(text, len, lim, flags, *dups, out, err);
	if (rc) {
		json_decref(*dups);
		*dups = NULL;
	}
	return rc;
}

/* Helm's values MergeMaps: b's keys win; nested maps merge. Steals b. */
static int merge_maps(json_t *a, json_t *b)
{
	const char *k;
	json_t *v;
	json_object_foreach(b, k, v) {
		json_t *av = json_object_get(a, k);
		if (json_is_object(v) && av && json_is_object(av)) {
			json_t *copy = json_deep_copy(av);
			if (!copy || merge_maps(copy, v) || json_object_set_new(a, k, copy))
				return -1;
			continue;
		}
		if (json_object_set(a, k, v))
			return -1;
	}
	return 0;
}

static const char *type_word(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_ARRAY: return "array";
	case JSON_OBJECT: return "object";
	case JSON_STRING: return "string";
	case JSON_TRUE: case JSON_FALSE: return "bool";
	default: return "number";
	}
}

int yaml_unmarshal_as(const char *text, size_t len, const yaml_limits *lim, int want,
		      json_t **out, bh_error *err)
{
	json_t *v = NULL;
	int rc = yaml_parse_any(text, len, lim, 0, &v, err);
	*out = NULL;
	if (rc)
		return rc;
	if (json_is_null(v)) {
		json_decref(v);
		*out = want == YAML_WANT_LIST ? json_array() : json_object();
		return *out ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	if ((want == YAML_WANT_LIST && !json_is_array(v)) || (want != YAML_WANT_LIST && !json_is_object(v))) {
		rc = bh_error_set(err, BH_EINVAL,
				  "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal %s into Go value of type %s",
				  type_word(v), want == YAML_WANT_LIST ? "[]interface {}" : "map[string]interface {}");
		json_decref(v);
		return rc;
	}
	*out = v;
	return 0;
}

static int parse_values(const char *text, size_t len, const yaml_limits *lim, json_t *dups,
			json_t **out, bh_error *err);

int yaml_parse_values(const char *text, size_t len, const yaml_limits *lim,
		      json_t **out, bh_error *err)
{
	return parse_values(text, len, lim, NULL, out, err);
}

int yaml_parse_values_dups(const char *text, size_t len, const yaml_limits *lim,
			   json_t **out, json_t **dups, bh_error *err)
{
	*dups = json_array();
	int rc = parse_values(text, len, lim, *dups, out, err);
	if (rc) {
		/* again without: its error text counts lines per document */
		json_decref(*dups);
		*dups = NULL;
		rc = parse_values(text, len, lim, NULL, out, err);
	}
	return rc;
}

int yaml_find_duplicates(const char *text, size_t len, const yaml_limits *lim, int values,
			 json_t **dups, bh_error *err)
{
	json_t *v = NULL;
	int rc;
	*dups = json_array();
	if (!*dups)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	if (values)
		rc = parse_values(text, len, lim, *dups, &v, err);
	else if (len > (lim && lim->max_bytes ? lim->max_bytes : YAML_MAX_BYTES))
		rc = bh_error_set(err, BH_ELIMIT, "YAML document of %zu bytes exceeds the limit", len);
	else
		rc = unmarshal_doc(text, len, lim, 0, *dups, 0, &v, err);
	json_decref(v);
	if (rc) {
		json_decref(*dups);
		*dups = NULL;
	}
	return rc;
}

/* Go's unicode.IsSpace rune at the start of s[0, n) (strings.TrimSpace
 * trims them): its length in bytes, 0 if none. */
static size_t go_space_at(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	if (n && (u[0] == ' ' || (u[0] >= '\t' && u[0] <= '\r')))
		return 1;
	if (n >= 2 && u[0] == 0xC2 && (u[1] == 0x85 || u[1] == 0xA0))
		return 2;
	if (n < 3)
		return 0;
	if ((u[0] == 0xE1 && u[1] == 0x9A && u[2] == 0x80) || (u[0] == 0xE3 && u[1] == 0x80 && u[2] == 0x80) ||
	    (u[0] == 0xE2 && u[1] == 0x80 && (u[2] <= 0x8A || u[2] == 0xA8 || u[2] == 0xA9 || u[2] == 0xAF)) ||
	    (u[0] == 0xE2 && u[1] == 0x81 && u[2] == 0x9F))
		return 3;
	return 0;
}

/* The same for the rune that ends s[0, n). */
static size_t go_space_before(const char *s, size_t n)
{
	for (size_t w = 1; w <= 3 && w <= n; w++)
		if (go_space_at(s + n - w, w) == w)
			return w;
	return 0;
}

/* The first line start at or after pos (itself a line start) whose line
 * begins with "---"; len if none. Skips by '-' (fewer than lines in values
 * files), not line by line. */
static size_t next_dashes_line(const char *text, size_t len, size_t pos)
{
	while (len - pos >= 3) {
		const char *q = memchr(text + pos, '-', len - pos);
		size_t i;
		if (!q)
			break;
		i = (size_t)(q - text);
		if ((i == 0 || text[i - 1] == '\n') && len - i >= 3 && memcmp(q, "---", 3) == 0)
			return i;
		pos = i + 1;
	}
	return len;
}

/* A document as apimachinery's LineReader hands it on: bufio.ReadLine
 * drops each line's "\n" or "\r\n" and a "\n" is put back, so a CRLF
 * becomes a LF and a last line without one gets one ("a: |\n  x" reads
 * "x\n"). Returns text itself when nothing changes, else *copy (caller
 * frees), NULL when out of memory. */
static const char *doc_lines(const char *text, size_t *len, char **copy)
{
	size_t n = *len, i, o = 0;
	char *c;
	*copy = NULL;
	if (n && text[n - 1] == '\n' && !memmem(text, n, "\r\n", 2))
		return text;
	c = malloc(n + 2);
	if (!c)
		return NULL;
	for (i = 0; i < n; i++)
		if (!(text[i] == '\r' && i + 1 < n && text[i + 1] == '\n'))
			c[o++] = text[i];
	if (!o || c[o - 1] != '\n')
		c[o++] = '\n';
	c[o] = '\0';
	*len = o;
	*copy = c;
	return c;
}

static int parse_values(const char *text, size_t len, const yaml_limits *lim, json_t *dups,
			json_t **out, bh_error *err)
{
	size_t line0 = 0, counted = 0;
	size_t max = lim && lim->max_bytes ? lim->max_bytes : YAML_MAX_BYTES;
	size_t pos = 0, doc_start = 0;
	json_t *values;
	*out = NULL;
	if (len > max)
		return bh_error_set(err, BH_ELIMIT, "YAML document of %zu bytes exceeds the limit of %zu bytes", len, max);
	values = json_object();
	if (!values)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	/* k8s.io/apimachinery YAMLReader: documents separated by lines that
	 * start with "---" followed only by spaces or a comment. */
	for (;;) {
		size_t eol = pos, doc_end;
		int at_eof, is_sep = 0;
		pos = next_dashes_line(text, len, pos);
		if (pos < len) {
			const char *nl = memchr(text + pos, '\n', len - pos);
			eol = nl ? (size_t)(nl - text) : len;
		}
		at_eof = pos >= len;
		if (!at_eof && len - pos >= 3 && memcmp(text + pos, "---", 3) == 0) {
			size_t t = pos + 3, e = eol, w;
			if (e > t && text[e - 1] == '\r') /* ReadLine drops a CRLF */
				e--;
			while (t < e && (w = go_space_at(text + t, e - t)))
				t += w;
			if (t < e && text[t] != '#') {
				size_t te = e;
				while (te > t && (w = go_space_before(text + t, te - t)))
					te -= w;
				json_decref(values);
				return bh_error_set(err, BH_EPARSE, "error reading yaml document: invalid Yaml document separator: %.*s",
						    (int)(te - t), text + t);
			}
			is_sep = 1;
		}
		if (is_sep || at_eof) {
			doc_end = pos;
			if (doc_end > doc_start) {
				json_t *doc;
				int rc;
				for (; counted < doc_start; counted++)
					line0 += text[counted] == '\n';
				size_t dn = doc_end - doc_start;
				char *copy;
				const char *dt = doc_lines(text + doc_start, &dn, &copy);
				if (!dt) {
					json_decref(values);
					return bh_error_set(err, BH_ENOMEM, "out of memory");
				}
				rc = unmarshal_doc(dt, dn, lim, 0, dups, line0, &doc, err);
				free(copy);
				if (rc) {
					json_decref(values);
					bh_error_prefix(err, "cannot unmarshal yaml document");
					return rc;
				}
				if (json_is_object(doc) && !json_object_size(values)) {
					/* the first map: merging it into nothing is
					 * taking it */
					json_decref(values);
					values = doc;
					doc = NULL;
				} else if (json_is_object(doc)) {
					if (merge_maps(values, doc)) {
						json_decref(doc);
						json_decref(values);
						return bh_error_set(err, BH_ENOMEM, "out of memory");
					}
				} else if (!json_is_null(doc)) {
					const char *w = type_word(doc);
					json_decref(doc);
					json_decref(values);
					return bh_error_set(err, BH_EINVAL,
							    "cannot unmarshal yaml document: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal %s into Go value of type map[string]interface {}", w);
				}
				json_decref(doc);
			}
			if (at_eof)
				break;
			/* a separator that ends no document (nothing read since
			 * the last one) is the first line of the next one, as
			 * YAMLReader keeps it: goyaml counts its lines from it */
			if (doc_end > doc_start)
				doc_start = eol < len ? eol + 1 : eol;
		}
		pos = eol < len ? eol + 1 : len;
		if (at_eof)
			break;
	}
	*out = values;
	return 0;
}
