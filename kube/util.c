/* kube/util.c — YAML to JSON tree, base64, file reading, URL escaping. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "kube/internal.h"
#include "lib/buf.h"

/* ---- YAML -> json_t ---- */

struct anchor {
	char *name;
	json_t *node;
};

struct yparser {
	yaml_parser_t p;
	struct anchor *anchors;
	size_t nanchors;
	int max_depth;
	bh_error *err;
};

static int anchor_add(struct yparser *y, const unsigned char *name, json_t *node)
{
	if (!name)
		return 0;
	if (y->nanchors >= 10000)
		return bh_error_set(y->err, BH_ELIMIT, "too many YAML anchors");
	struct anchor *a = realloc(y->anchors, (y->nanchors + 1) * sizeof *a);
	if (!a)
		return bh_error_set(y->err, BH_ENOMEM, "out of memory");
	y->anchors = a;
	a[y->nanchors].name = strdup((const char *)name);
	if (!a[y->nanchors].name)
		return bh_error_set(y->err, BH_ENOMEM, "out of memory");
	a[y->nanchors].node = json_incref(node);
	y->nanchors++;
	return 0;
}

static json_t *scalar_value(const yaml_event_t *ev)
{
	const char *v = (const char *)ev->data.scalar.value;
	size_t n = ev->data.scalar.length;
	if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev->data.scalar.tag) {
		if (n == 0 || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
		    !strcmp(v, "NULL"))
			return json_null();
		if (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "TRUE"))
			return json_true();
		if (!strcmp(v, "false") || !strcmp(v, "False") || !strcmp(v, "FALSE"))
			return json_false();
	}
	return json_stringn(v, n);
}

static int parse_node(struct yparser *y, yaml_event_t *ev, int depth, json_t **out);

static int next_event(struct yparser *y, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&y->p, ev))
		return bh_error_set(y->err, BH_EPARSE, "YAML line %zu: %s",
		                    y->p.problem_mark.line + 1,
		                    y->p.problem ? y->p.problem : "syntax error");
	return 0;
}

static int parse_children(struct yparser *y, json_t *node, int is_map, int depth)
{
	for (;;) {
		yaml_event_t ev;
		int rc = next_event(y, &ev);
		if (rc)
			return rc;
		if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		json_t *key = NULL;
		if (is_map) {
			rc = parse_node(y, &ev, depth + 1, &key);
			yaml_event_delete(&ev);
			if (rc)
				return rc;
			if (!json_is_string(key)) {
				/* non-string keys: use their text where it is a scalar */
				const char *k = json_is_true(key) ? "true" : json_is_false(key) ? "false" :
				                json_is_null(key) ? "null" : NULL;
				json_decref(key);
				if (!k)
					return bh_error_set(y->err, BH_EPARSE, "YAML line %zu: mapping key is not a scalar",
					                    y->p.mark.line + 1);
				key = json_string(k);
			}
			rc = next_event(y, &ev);
			if (rc) {
				json_decref(key);
				return rc;
			}
		}
		json_t *val = NULL;
		rc = parse_node(y, &ev, depth + 1, &val);
		yaml_event_delete(&ev);
		if (rc) {
			json_decref(key);
			return rc;
		}
		if (is_map) {
			if (!strcmp(json_string_value(key), "<<") && json_is_object(val)) {
				/* merge key: existing keys win */
				const char *k;
				json_t *v;
				json_object_foreach(val, k, v)
					if (!json_object_get(node, k))
						json_object_set(node, k, v);
				json_decref(val);
			} else {
				json_object_set_new(node, json_string_value(key), val);
			}
			json_decref(key);
		} else {
			json_array_append_new(node, val);
		}
	}
}

static int parse_node(struct yparser *y, yaml_event_t *ev, int depth, json_t **out)
{
	if (depth > y->max_depth)
		return bh_error_set(y->err, BH_ELIMIT, "YAML nesting deeper than %d", y->max_depth);
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		*out = scalar_value(ev);
		if (!*out)
			return bh_error_set(y->err, BH_EPARSE, "YAML line %zu: invalid UTF-8 in scalar",
			                    ev->start_mark.line + 1);
		return anchor_add(y, ev->data.scalar.anchor, *out);
	case YAML_ALIAS_EVENT:
		for (size_t i = y->nanchors; i-- > 0;)
			if (!strcmp(y->anchors[i].name, (const char *)ev->data.alias.anchor)) {
				*out = json_incref(y->anchors[i].node);
				return 0;
			}
		return bh_error_set(y->err, BH_EPARSE, "YAML line %zu: unknown alias \"%s\"",
		                    ev->start_mark.line + 1, ev->data.alias.anchor);
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT: {
		int is_map = ev->type == YAML_MAPPING_START_EVENT;
		json_t *node = is_map ? json_object() : json_array();
		if (!node)
			return bh_error_set(y->err, BH_ENOMEM, "out of memory");
		const unsigned char *anchor = is_map ? ev->data.mapping_start.anchor
		                                     : ev->data.sequence_start.anchor;
		/* the anchor is registered once the node is complete, so an alias
		 * inside it cannot refer to it (no reference cycles) */
		char *aname = anchor ? strdup((const char *)anchor) : NULL;
		if (anchor && !aname) {
			json_decref(node);
			return bh_error_set(y->err, BH_ENOMEM, "out of memory");
		}
		int rc = parse_children(y, node, is_map, depth);
		if (!rc)
			rc = anchor_add(y, (const unsigned char *)aname, node);
		free(aname);
		if (rc) {
			json_decref(node);
			return rc;
		}
		*out = node;
		return 0;
	}
	default:
		return bh_error_set(y->err, BH_EPARSE, "YAML line %zu: unexpected event",
		                    ev->start_mark.line + 1);
	}
}

json_t *kube_yaml_parse(const char *data, size_t len, int max_depth, bh_error *err)
{
	struct yparser y = {.max_depth = max_depth, .err = err};
	json_t *root = NULL;
	if (!yaml_parser_initialize(&y.p)) {
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	yaml_parser_set_input_string(&y.p, (const unsigned char *)data, len);
	int rc = 0, docs = 0;
	for (;;) {
		yaml_event_t ev;
		rc = next_event(&y, &ev);
		if (rc)
			break;
		yaml_event_type_t t = ev.type;
		if (t == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (t == YAML_DOCUMENT_START_EVENT && ++docs > 1) {
			yaml_event_delete(&ev);
			rc = bh_error_set(err, BH_EPARSE, "more than one YAML document");
			break;
		}
		if (t == YAML_SCALAR_EVENT || t == YAML_ALIAS_EVENT || t == YAML_SEQUENCE_START_EVENT ||
		    t == YAML_MAPPING_START_EVENT) {
			rc = parse_node(&y, &ev, 1, &root);
		}
		yaml_event_delete(&ev);
		if (rc)
			break;
	}
	yaml_parser_delete(&y.p);
	for (size_t i = 0; i < y.nanchors; i++) {
		free(y.anchors[i].name);
		json_decref(y.anchors[i].node);
	}
	free(y.anchors);
	if (rc) {
		json_decref(root);
		return NULL;
	}
	return root ? root : json_null();
}

/* ---- base64 ---- */

static int b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

char *kube_base64_decode(const char *in, size_t len, size_t *out_len)
{
	char *out = malloc(len / 4 * 3 + 4);
	if (!out)
		return NULL;
	size_t o = 0;
	unsigned acc = 0;
	int bits = 0, pad = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];
		if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		int v = b64val(c);
		if (v < 0 || pad) {
			free(out);
			return NULL;
		}
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	if (pad > 2 || bits >= 6) {
		free(out);
		return NULL;
	}
	out[o] = 0;
	if (out_len)
		*out_len = o;
	return out;
}

/* ---- files ---- */

char *kube_file_read(const char *path, size_t max, size_t *out_len, bh_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		bh_error_set(err, errno == ENOENT ? BH_ENOTFOUND : BH_EIO, "%s: %s", path, strerror(errno));
		return NULL;
	}
	bh_buf b = BH_BUF_INIT;
	char chunk[8192];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (b.len + n > max) {
			fclose(f);
			bh_buf_free(&b);
			bh_error_set(err, BH_ELIMIT, "%s: larger than %zu bytes", path, max);
			return NULL;
		}
		bh_buf_put(&b, chunk, n);
	}
	int bad = ferror(f);
	fclose(f);
	if (bad || !bh_buf_ok(&b)) {
		bh_buf_free(&b);
		bh_error_set(err, bad ? BH_EIO : BH_ENOMEM, "%s: read failed", path);
		return NULL;
	}
	if (out_len)
		*out_len = b.len;
	if (!b.data)
		return strdup("");
	return bh_buf_detach(&b);
}

void kube_query_escape(bh_buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.' || c == '~') {
			bh_buf_putc(b, (char)c);
		} else {
			bh_buf_putc(b, '%');
			bh_buf_putc(b, hex[c >> 4]);
			bh_buf_putc(b, hex[c & 15]);
		}
	}
}
