/* tmpl/funcs_yaml.c — Helm's YAML and TOML functions: toYaml, mustToYaml,
 * toYamlPretty, fromYaml, fromYamlArray, toToml, fromToml.
 *
 * toYaml is sigs.k8s.io/yaml.Marshal (json.Marshal, then goyaml.v2 re-emits
 * the JSON: lib/yaml.h) with the final newline trimmed; fromYaml is
 * sigs.k8s.io/yaml.Unmarshal (YAML 1.1 typing -> JSON -> Go values). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/yaml.h"
#include "tmpl/funcs.h"
#include "tmpl/json_enc.h"
#include "tmpl/toml.h"
#include "tmpl/yaml_pretty.h"

/* sigs.k8s.io/yaml.Marshal(v) minus the final newline. */
static int to_yaml(const tmpl_value *v, bh_buf *out, bh_error *err)
{
	bh_buf j = BH_BUF_INIT;
	int rc = tmpl_json_encode(v, 0, &j, err);
	if (rc) {
		bh_error_prefix(err, "error marshaling into JSON");
		bh_buf_free(&j);
		return rc;
	}
	rc = yaml_emit_json_text(bh_buf_str(&j), j.len, out, err);
	bh_buf_free(&j);
	if (rc) {
		/* sigs.k8s.io/yaml returns goyaml's error unwrapped here */
		static const char pfx[] = "error converting JSON to YAML: ";
		if (strncmp(err->msg, pfx, sizeof pfx - 1) == 0)
			memmove(err->msg, err->msg + sizeof pfx - 1, strlen(err->msg) - (sizeof pfx - 1) + 1);
		return rc;
	}
	if (out->len > 0 && out->data[out->len - 1] == '\n')
		out->data[--out->len] = '\0';
	return 0;
}

static int fn_to_yaml(tmpl_call *c)
{
	bh_buf b = BH_BUF_INIT;
	bh_error e;
	bh_error_clear(&e);
	if (to_yaml(&c->argv[0], &b, &e)) {
		bh_buf_free(&b);
		if (c->data)
			return tmpl_call_errorf(c, "%s", e.msg);
		c->result = tmpl_str_static("", 0);
		return 0;
	}
	c->result = tmpl_str_buf(c->arena, &b);
	bh_buf_free(&b);
	return 0;
}

static int fn_to_yaml_pretty(tmpl_call *c)
{
	bh_buf b = BH_BUF_INIT;
	bh_error e;
	bh_error_clear(&e);
	if (yaml_pretty_encode(&c->argv[0], &b, &e)) {
		bh_buf_free(&b);
		c->result = tmpl_str_static("", 0);
		return 0;
	}
	if (b.len > 0 && b.data[b.len - 1] == '\n')
		b.data[--b.len] = '\0';
	c->result = tmpl_str_buf(c->arena, &b);
	bh_buf_free(&b);
	return 0;
}

static const char *json_kind(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: return "object";
	case JSON_ARRAY: return "array";
	case JSON_STRING: return "string";
	case JSON_INTEGER:
	case JSON_REAL: return "number";
	default: return "bool";
	}
}

/* Parses the first document; on failure fills msg with Helm's text. */
static json_t *parse(const tmpl_value *s, int want_array, char *msg, size_t msgsz)
{
	json_t *j = NULL;
	bh_error e;
	bh_error_clear(&e);
	if (yaml_parse_any(s->u.s.ptr, s->u.s.len, NULL, 0, &j, &e)) {
		snprintf(msg, msgsz, "%s", e.msg);
		return NULL;
	}
	if (json_is_null(j) || (want_array ? json_is_array(j) : json_is_object(j)))
		return j;
	snprintf(msg, msgsz,
		 "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal %s into Go value of type %s",
		 json_kind(j), want_array ? "[]interface {}" : "map[string]interface {}");
	json_decref(j);
	return NULL;
}

/* Helm: fromYaml(str) map[string]interface{}; failures -> {"Error": msg}. */
static int fn_from_yaml(tmpl_call *c)
{
	char msg[BH_ERROR_MSG_MAX + 160];
	json_t *j = parse(&c->argv[0], 0, msg, sizeof msg);
	tmpl_map *m;
	if (j && json_is_object(j)) {
		c->result = tmpl_value_from_json(c->arena, j);
		json_decref(j);
		if (c->result.kind == TMPL_INVALID)
			return tmpl_call_errorf(c, "out of memory");
		return 0;
	}
	m = tmpl_map_new(c->arena, NULL);
	if (!m || (!j && tmpl_map_set(c->arena, m, "Error", 5, tmpl_cstr(c->arena, msg))))
		return tmpl_call_errorf(c, "out of memory");
	json_decref(j);
	c->result = tmpl_map_value(m);
	return 0;
}

/* Helm: fromYamlArray(str) []interface{}; failures -> [msg]. */
static int fn_from_yaml_array(tmpl_call *c)
{
	char msg[BH_ERROR_MSG_MAX + 160];
	json_t *j = parse(&c->argv[0], 1, msg, sizeof msg);
	tmpl_list *l;
	if (j && json_is_array(j)) {
		c->result = tmpl_value_from_json(c->arena, j);
		json_decref(j);
		if (c->result.kind == TMPL_INVALID)
			return tmpl_call_errorf(c, "out of memory");
		return 0;
	}
	l = tmpl_list_new(c->arena, NULL, 1);
	if (!l || (!j && tmpl_list_push(c->arena, l, tmpl_cstr(c->arena, msg))))
		return tmpl_call_errorf(c, "out of memory");
	json_decref(j);
	c->result = tmpl_list_value(l);
	return 0;
}

/* Helm: toToml(v) string; encoder errors become the output text. */
static int fn_to_toml(tmpl_call *c)
{
	bh_buf b = BH_BUF_INIT;
	bh_error e;
	bh_error_clear(&e);
	if (c->argv[0].kind == TMPL_NIL || c->argv[0].kind == TMPL_INVALID)
		return tmpl_call_errorf(c, "reflect: call of reflect.Value.Type on zero Value");
	if (toml_encode(&c->argv[0], &b, &e)) {
		bh_buf_reset(&b);
		bh_buf_puts(&b, e.msg);
	}
	c->result = tmpl_str_buf(c->arena, &b);
	bh_buf_free(&b);
	return 0;
}

/* Helm: fromToml(str) map[string]interface{}; failures -> {"Error": msg}. */
static int fn_from_toml(tmpl_call *c)
{
	bh_error e;
	bh_error_clear(&e);
	if (toml_decode(c->arena, c->argv[0].u.s.ptr, c->argv[0].u.s.len, &c->result, &e)) {
		tmpl_map *m = tmpl_map_new(c->arena, NULL);
		if (!m || tmpl_map_set(c->arena, m, "Error", 5, tmpl_cstr(c->arena, e.msg)))
			return tmpl_call_errorf(c, "out of memory");
		c->result = tmpl_map_value(m);
	}
	return 0;
}

const tmpl_func_def tmpl_funcs_yaml[] = {
	{"toYaml", fn_to_yaml, "a", NULL},
	{"mustToYaml", fn_to_yaml, "a", (void *)1},
	{"toYamlPretty", fn_to_yaml_pretty, "a", NULL},
	{"fromYaml", fn_from_yaml, "s", NULL},
	{"fromYamlArray", fn_from_yaml_array, "s", NULL},
	{"toToml", fn_to_toml, "a", NULL},
	{"fromToml", fn_from_toml, "s", NULL},
	{NULL, NULL, NULL, NULL},
};
