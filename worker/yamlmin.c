/* worker/yamlmin.c — see yamlmin.h. */
#include "worker/yamlmin.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef struct conv {
	yaml_document_t *doc;
	size_t budget;
	bh_error *err;
} conv;

static int eq_any(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return 1;
	return 0;
}

static json_t *scalar(const yaml_node_t *n)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
	static const char *const trues[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y", NULL};
	static const char *const falses[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N", NULL};
	const char *s = (const char *)n->data.scalar.value;
	size_t len = n->data.scalar.length;
	char *end;
	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return json_stringn(s, len);
	if (strlen(s) != len)
		return json_stringn(s, len);
	if (eq_any(s, nulls))
		return json_null();
	if (eq_any(s, trues))
		return json_true();
	if (eq_any(s, falses))
		return json_false();
	if (len && (s[0] == '-' || s[0] == '+' || (s[0] >= '0' && s[0] <= '9'))) {
		long long v;
		double d;
		errno = 0;
		v = strtoll(s, &end, 0);
		if (*end == '\0' && errno == 0 && !(len > 1 && s[0] == '0' && s[1] >= '0' && s[1] <= '9'))
			return json_integer(v);
		errno = 0;
		d = strtod(s, &end);
		if (*end == '\0' && errno == 0 && strpbrk(s, "xXpPnN") == NULL)
			return json_real(d);
	}
	return json_stringn(s, len);
}

static json_t *node_to_json(conv *c, int id, int depth)
{
	yaml_node_t *n = yaml_document_get_node(c->doc, id);
	json_t *out;
	if (!n) {
		bh_error_set(c->err, BH_EPARSE, "yaml: dangling node");
		return NULL;
	}
	if (depth > YAMLMIN_MAX_DEPTH) {
		bh_error_set(c->err, BH_ELIMIT, "yaml: nesting deeper than %d", YAMLMIN_MAX_DEPTH);
		return NULL;
	}
	if (c->budget-- == 0) {
		bh_error_set(c->err, BH_ELIMIT, "yaml: more than %d values (alias expansion?)", YAMLMIN_MAX_NODES);
		return NULL;
	}
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return scalar(n);
	case YAML_SEQUENCE_NODE:
		out = json_array();
		for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
			json_t *v = node_to_json(c, *it, depth + 1);
			if (!v) {
				json_decref(out);
				return NULL;
			}
			json_array_append_new(out, v);
		}
		return out;
	case YAML_MAPPING_NODE:
		out = json_object();
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
			json_t *v;
			if (!k || k->type != YAML_SCALAR_NODE) {
				json_decref(out);
				bh_error_set(c->err, BH_EPARSE, "yaml: only scalar mapping keys are supported");
				return NULL;
			}
			if (k->data.scalar.length == 2 && memcmp(k->data.scalar.value, "<<", 2) == 0) {
				json_decref(out);
				bh_error_set(c->err, BH_EPARSE, "yaml: merge keys are not supported by this reader");
				return NULL;
			}
			v = node_to_json(c, p->value, depth + 1);
			if (!v) {
				json_decref(out);
				return NULL;
			}
			json_object_setn_new(out, (const char *)k->data.scalar.value, k->data.scalar.length, v);
		}
		return out;
	default:
		bh_error_set(c->err, BH_EPARSE, "yaml: empty node");
		return NULL;
	}
}

int yamlmin_parse(const char *text, size_t len, json_t **out, bh_error *err)
{
	yaml_parser_t p;
	yaml_document_t doc;
	conv c = {&doc, YAMLMIN_MAX_NODES, err};
	int rc = 0;
	*out = NULL;
	if (!yaml_parser_initialize(&p))
		return bh_error_set(err, BH_ENOMEM, "yaml: out of memory");
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &doc)) {
		rc = bh_error_set(err, BH_EPARSE, "yaml: line %zu: %s", p.problem_mark.line + 1,
				  p.problem ? p.problem : "syntax error");
		yaml_parser_delete(&p);
		return rc;
	}
	if (!yaml_document_get_root_node(&doc))
		*out = json_null();
	else if (!(*out = node_to_json(&c, 1, 0)))
		rc = err ? err->code : BH_EPARSE;
	yaml_document_delete(&doc);
	yaml_parser_delete(&p);
	return rc;
}
