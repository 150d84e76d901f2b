/* tmpl/funcs_json.c — JSON functions: Helm's toJson/mustToJson/fromJson/
 * fromJsonArray and Sprig's toPrettyJson, toRawJson, mustFromJson (and
 * their must* forms). Encoding is Go's encoding/json (tmpl_value_gojson),
 * decoding Go's json.Unmarshal into interface{} (lib/gojson.h). */
#include <stdint.h>
#include <string.h>

#include "lib/gojson.h"
#include "tmpl/funcs.h"
#include "tmpl/internal.h"
#include "tmpl/sprig_util.h"

/* data: encoder flags | MUST (errors are template errors) */
#define MUST 0x100

static int fn_to_json(tmpl_call *c)
{
	int flags = (int)(intptr_t)c->data;
	bh_buf b;
	bh_error e;
	bh_error_clear(&e);
	tmpl_buf_get(c->engine, &b);
	if (tmpl_value_gojson(&b, &c->argv[0], flags & ~MUST, &e)) {
		tmpl_buf_put(c->engine, &b);
		if (flags & MUST)
			return tmpl_call_errorf(c, "%s", e.msg);
		c->result = tmpl_str_static("", 0);
		return 0;
	}
	c->result = tmpl_str_buf(c->arena, &b);
	tmpl_buf_put(c->engine, &b);
	return 0;
}

static int decode(tmpl_call *c, json_t **out, bh_error *e)
{
	const tmpl_value *s = &c->argv[0];
	bh_error_clear(e);
	return gojson_decode(s->u.s.ptr, s->u.s.len, NULL, 0, out, e);
}

/* Helm: fromJson(str) map[string]interface{} (failures become {"Error":
 * msg}); fromJsonArray(str) []interface{} (failures become [msg]). */
static int from_json(tmpl_call *c, int want)
{
	json_t *j = NULL;
	bh_error e;
	bh_error_clear(&e);
	if (gojson_decode_as(c->argv[0].u.s.ptr, c->argv[0].u.s.len, NULL, want, &j, &e) && j) {
		/* a number past float64: the map keeps what was decoded, its
		 * "Error" set after; the list is replaced by [msg] */
		if (want == GOJSON_WANT_LIST || json_object_set_new(j, "Error", json_string(e.msg))) {
			json_decref(j);
			j = NULL;
		}
	}
	return sprig_unmarshal_result(c, j, want == GOJSON_WANT_LIST, e.msg);
}

static int fn_from_json(tmpl_call *c)
{
	return from_json(c, GOJSON_WANT_MAP);
}

static int fn_from_json_array(tmpl_call *c)
{
	return from_json(c, GOJSON_WANT_LIST);
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
