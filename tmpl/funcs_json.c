/* tmpl/funcs_json.c — JSON functions: Helm's toJson/mustToJson/fromJson/
 * fromJsonArray and Sprig's toPrettyJson, toRawJson, mustFromJson (and
 * their must* forms). Encoding is Go's encoding/json (tmpl/json_enc.h),
 * decoding Go's json.Unmarshal into interface{} (lib/gojson.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/gojson.h"
#include "tmpl/funcs.h"
#include "tmpl/json_enc.h"

/* data: encoder flags | MUST (errors are template errors) */
#define MUST 0x100

static int fn_to_json(tmpl_call *c)
{
	int flags = (int)(intptr_t)c->data;
	bh_buf b = BH_BUF_INIT;
	bh_error e;
	bh_error_clear(&e);
	if (tmpl_json_encode(&c->argv[0], flags & ~MUST, &b, &e)) {
		bh_buf_free(&b);
		if (flags & MUST)
			return tmpl_call_errorf(c, "%s", e.msg);
		c->result = tmpl_str_static("", 0);
		return 0;
	}
	c->result = tmpl_str_buf(c->arena, &b);
	bh_buf_free(&b);
	return 0;
}

/* encoding/json's name of a JSON value's kind in UnmarshalTypeError. */
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

static int decode(tmpl_call *c, json_t **out, bh_error *e)
{
	const tmpl_value *s = &c->argv[0];
	bh_error_clear(e);
	return gojson_decode(s->u.s.ptr, s->u.s.len, NULL, 0, out, e);
}

/* Helm: fromJson(str) map[string]interface{}; failures become {"Error": msg}. */
static int fn_from_json(tmpl_call *c)
{
	json_t *j = NULL;
	bh_error e;
	tmpl_map *m;
	char msg[BH_ERROR_MSG_MAX + 128];
	if (decode(c, &j, &e) == 0 && (json_is_object(j) || json_is_null(j))) {
		if (json_is_null(j)) {
			m = tmpl_map_new(c->arena, NULL);
			if (!m)
				goto oom;
			c->result = tmpl_map_value(m);
		} else {
			c->result = tmpl_value_from_json(c->arena, j);
		}
		json_decref(j);
		if (c->result.kind == TMPL_INVALID)
			goto oom;
		return 0;
	}
	if (j)
		snprintf(msg, sizeof msg, "json: cannot unmarshal %s into Go value of type map[string]interface {}",
			 json_kind(j));
	else
		snprintf(msg, sizeof msg, "%s", e.msg);
	json_decref(j);
	m = tmpl_map_new(c->arena, NULL);
	if (!m || tmpl_map_set(c->arena, m, "Error", 5, tmpl_cstr(c->arena, msg)))
		goto oom;
	c->result = tmpl_map_value(m);
	return 0;
oom:
	return tmpl_call_errorf(c, "out of memory");
}

/* Helm: fromJsonArray(str) []interface{}; failures become [msg]. */
static int fn_from_json_array(tmpl_call *c)
{
	json_t *j = NULL;
	bh_error e;
	tmpl_list *l;
	char msg[BH_ERROR_MSG_MAX + 128];
	if (decode(c, &j, &e) == 0 && (json_is_array(j) || json_is_null(j))) {
		if (json_is_null(j)) {
			l = tmpl_list_new(c->arena, NULL, 0);
			if (!l)
				goto oom;
			l->is_nil = 1;
			c->result = tmpl_list_value(l);
		} else {
			c->result = tmpl_value_from_json(c->arena, j);
		}
		json_decref(j);
		if (c->result.kind == TMPL_INVALID)
			goto oom;
		return 0;
	}
	if (j)
		snprintf(msg, sizeof msg, "json: cannot unmarshal %s into Go value of type []interface {}",
			 json_kind(j));
	else
		snprintf(msg, sizeof msg, "%s", e.msg);
	json_decref(j);
	l = tmpl_list_new(c->arena, NULL, 1);
	if (!l || tmpl_list_push(c->arena, l, tmpl_cstr(c->arena, msg)))
		goto oom;
	c->result = tmpl_list_value(l);
	return 0;
oom:
	return tmpl_call_errorf(c, "out of memory");
}

/* Sprig: mustFromJson(v string) (interface{}, error) — any JSON value. */
static int fn_must_from_json(tmpl_call *c)
{
	json_t *j = NULL;
	bh_error e;
	if (decode(c, &j, &e))
		return tmpl_call_errorf(c, "%s", e.msg);
	c->result = tmpl_value_from_json(c->arena, j);
	json_decref(j);
	if (c->result.kind == TMPL_INVALID)
		return tmpl_call_errorf(c, "out of memory");
	return 0;
}

const tmpl_func_def tmpl_funcs_json[] = {
	{"toJson", fn_to_json, "a", (void *)(intptr_t)0},
	{"mustToJson", fn_to_json, "a", (void *)(intptr_t)MUST},
	{"toPrettyJson", fn_to_json, "a", (void *)(intptr_t)GOJSON_INDENT},
	{"mustToPrettyJson", fn_to_json, "a", (void *)(intptr_t)(GOJSON_INDENT | MUST)},
	/* Sprig's toRawJson panics on marshal errors: a template error too */
	{"toRawJson", fn_to_json, "a", (void *)(intptr_t)(GOJSON_NO_HTML_ESCAPE | MUST)},
	{"mustToRawJson", fn_to_json, "a", (void *)(intptr_t)(GOJSON_NO_HTML_ESCAPE | MUST)},
	{"fromJson", fn_from_json, "s", NULL},
	{"fromJsonArray", fn_from_json_array, "s", NULL},
	{"mustFromJson", fn_must_from_json, "s", NULL},
	{NULL, NULL, NULL, NULL},
};
