/* tests/unit/vectors.h — helpers for unit tests that replay the conformance
 * vectors in $BH_SRCDIR/../shared/conformance (JSON Lines files read with
 * lib/gojson's tree, so number literals keep their original text). */
#ifndef BH_TEST_VECTORS_H
#define BH_TEST_VECTORS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/gojson.h"

/* Path of a file under the shared conformance folder, or NULL (with a note
 * on stderr) when the folder is absent. Caller frees. */
static inline char *vec_path(const char *rel)
{
	const char *src = getenv("BH_SRCDIR");
	char *p;
	FILE *f;
	if (!src)
		src = BH_SRCDIR;
	if (asprintf(&p, "%s/../shared/conformance/%s", src, rel) < 0)
		return NULL;
	f = fopen(p, "r");
	if (!f) {
		fprintf(stderr, "SKIP: %s not found (conformance data absent)\n", p);
		free(p);
		return NULL;
	}
	fclose(f);
	return p;
}

static inline const gojson_node *vec_get(const gojson_node *o, const char *key)
{
	if (!o || o->type != GOJSON_OBJECT)
		return NULL;
	for (size_t i = o->n; i-- > 0;)
		if (strlen(key) == o->items[2 * i].len && memcmp(o->items[2 * i].text, key, o->items[2 * i].len) == 0)
			return &o->items[2 * i + 1];
	return NULL;
}

static inline const char *vec_str(const gojson_node *o, const char *key)
{
	const gojson_node *n = vec_get(o, key);
	return n && n->type == GOJSON_STRING ? n->text : NULL;
}

/* A JSON string literal as the vectors' values files hold it: control
 * characters (C0, DEL, C1) escaped as \u00XX, everything else as UTF-8. */
static inline void vec_quote_ascii(bh_buf *b, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	bh_buf_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned c = s[i];
		if (c == '"' || c == '\\') {
			bh_buf_putc(b, '\\');
			bh_buf_putc(b, (char)c);
		} else if (c == '\n') {
			bh_buf_puts(b, "\\n");
		} else if (c == '\t') {
			bh_buf_puts(b, "\\t");
		} else if (c < 0x20 || c == 0x7F) {
			bh_buf_printf(b, "\\u%04x", c);
		} else if (c == 0xC2 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] < 0xA0) {
			bh_buf_printf(b, "\\u%04x", s[i + 1]);
			i++;
		} else {
			bh_buf_putc(b, (char)c);
		}
	}
	bh_buf_putc(b, '"');
}

/* Writes a tree back as JSON text, numbers as they were written. */
static inline void vec_text(const gojson_node *n, bh_buf *b)
{
	switch (n->type) {
	case GOJSON_NULL: bh_buf_puts(b, "null"); break;
	case GOJSON_TRUE: bh_buf_puts(b, "true"); break;
	case GOJSON_FALSE: bh_buf_puts(b, "false"); break;
	case GOJSON_NUMBER: bh_buf_put(b, n->text, n->len); break;
	case GOJSON_STRING: vec_quote_ascii(b, n->text, n->len); break;
	case GOJSON_ARRAY:
		bh_buf_putc(b, '[');
		for (size_t i = 0; i < n->n; i++) {
			if (i)
				bh_buf_puts(b, ", ");
			vec_text(&n->items[i], b);
		}
		bh_buf_putc(b, ']');
		break;
	case GOJSON_OBJECT:
		bh_buf_putc(b, '{');
		for (size_t i = 0; i < n->n; i++) {
			if (i)
				bh_buf_puts(b, ", ");
			vec_text(&n->items[2 * i], b);
			bh_buf_puts(b, ": ");
			vec_text(&n->items[2 * i + 1], b);
		}
		bh_buf_putc(b, '}');
		break;
	}
}

/* Calls fn(line_tree, arg) for every line of a JSONL file; returns lines read. */
static inline int vec_each(const char *path, void (*fn)(const gojson_node *, void *), void *arg)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int count = 0;
	if (!f)
		return -1;
	while ((n = getline(&line, &cap, f)) > 0) {
		gojson_node *t;
		if (gojson_tree_load(line, (size_t)n, NULL, &t, NULL) == 0) {
			fn(t, arg);
			gojson_tree_free(t);
			count++;
		}
	}
	free(line);
	fclose(f);
	return count;
}

/* How many vectors a test checked and how many of them failed. */
typedef struct vec_tally {
	int run, failed;
} vec_tally;

/* Replays the conformance file rel (e.g. "functions/funcs.jsonl") through
 * fn with ty as its argument and prints "label: N run, M failed". Returns 0
 * (nothing run) when the conformance data is absent, else 1. */
static inline int vec_replay(const char *rel, void (*fn)(const gojson_node *, void *), vec_tally *ty,
			     const char *label)
{
	char *p = vec_path(rel);
	if (!p)
		return 0;
	vec_each(p, fn, ty);
	free(p);
	fprintf(stderr, "%s: %d run, %d failed\n", label, ty->run, ty->failed);
	return 1;
}

#endif
