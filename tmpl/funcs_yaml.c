/* tmpl/funcs_yaml.c — Helm's YAML and TOML functions: toYaml, mustToYaml,
 * toYamlPretty, fromYaml, fromYamlArray, toToml, fromToml.
 *
 * toYaml is sigs.k8s.io/yaml.Marshal (json.Marshal, then goyaml.v2 re-emits
 * the JSON: lib/yaml.h) with the final newline trimmed; fromYaml is
 * sigs.k8s.io/yaml.Unmarshal (YAML 1.1 typing -> JSON -> Go values). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/yaml.h"
#include "tmpl/funcs.h"
#include "tmpl/internal.h"
#include "tmpl/sprig_util.h"
#include "tmpl/toml.h"
#include "tmpl/yaml_pretty.h"

/* sigs.k8s.io/yaml.Marshal(v) minus the final newline: plain data goes to
 * the printer as the tree the JSON text would load to, anything else as
 * that text. */
static int to_yaml(tmpl_engine *e, const tmpl_value *v, bh_buf *out, bh_error *err)
{
	tmpl_gojson_tree t;
	int rc;
	/* an empty map or list, which charts hand to toYaml most often (a
	 * value left at {} or []): the printer's text for it, without a tree
	 * and an emitter run */
	if ((v->kind == TMPL_MAP && !v->u.map->is_nil && v->u.map->len == 0) ||
	    (v->kind == TMPL_LIST && !v->u.list->is_nil && v->u.list->len == 0)) {
		bh_buf_puts(out, v->kind == TMPL_MAP ? "{}" : "[]");
		return bh_buf_ok(out) ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	if (e && tmpl_value_gojson_tree(v, &t) == 0) {
		e->yaml_kept_free = yaml_emitter_kept_free;
		rc = yaml_emit_json_tree_kept(&e->yaml_kept, t.root, out, err);
		tmpl_gojson_tree_free(&t);
	} else {
		bh_buf j;
		tmpl_buf_get(e, &j);
		rc = tmpl_value_gojson(&j, v, 0, err);
		if (rc) {
			bh_error_prefix(err, "error marshaling into JSON");
			tmpl_buf_put(e, &j);
			return rc;
		}
		if (e) {
			e->yaml_kept_free = yaml_emitter_kept_free;
			rc = yaml_emit_json_text_kept(&e->yaml_kept, bh_buf_str(&j), j.len, out, err);
		} else {
			rc = yaml_emit_json_text(bh_buf_str(&j), j.len, out, err);
		}
		tmpl_buf_put(e, &j);
	}
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
	bh_buf b;
	bh_error e;
	bh_error_clear(&e);
	tmpl_buf_get(c->engine, &b);
	if (to_yaml(c->engine, &c->argv[0], &b, &e)) {
		tmpl_buf_put(c->engine, &b);
		if (c->data)
			return tmpl_call_errorf(c, "%s", e.msg);
		c->result = tmpl_str_static("", 0);
		return 0;
	}
	c->result = tmpl_str_buf(c->arena, &b);
	tmpl_buf_put(c->engine, &b);
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

/* fromYaml's results by text, per engine: charts decode the same few
 * texts (a block of labels, "{}") again and again. A cached tree is never
 * changed: every call converts it to new values. Texts of at most
 * YAML_CACHE_TEXT bytes, the last YAML_CACHE_MAX of them: the cache lives
 * outside the value arena's budget, so it stays small (about a MiB at
 * most with the trees). */
#define YAML_CACHE_MAX 32
#define YAML_CACHE_TEXT 4096

typedef struct yaml_cached {
	char *text;
	size_t n;
	int want;
	json_t *j;  /* one reference, or NULL: the error msg */
	char *msg;
} yaml_cached;

struct tmpl_yaml_cache {
	yaml_cached v[YAML_CACHE_MAX];
	size_t n, next; /* next: the entry the next text replaces once full */
};

static void yaml_cached_clear(yaml_cached *k)
{
	free(k->text);
	free(k->msg);
	json_decref(k->j);
	memset(k, 0, sizeof *k);
}

static void yaml_cache_free(struct tmpl_yaml_cache *yc)
{
	for (size_t i = 0; yc && i < yc->n; i++)
		yaml_cached_clear(&yc->v[i]);
	free(yc);
}

static const yaml_cached *yaml_cache_find(const tmpl_engine *e, const char *s, size_t n, int want)
{
	const struct tmpl_yaml_cache *yc = e ? e->yaml_cache : NULL;
	for (size_t i = 0; yc && i < yc->n; i++)
		if (yc->v[i].n == n && yc->v[i].want == want && memcmp(yc->v[i].text, s, n) == 0)
			return &yc->v[i];
	return NULL;
}

/* Keeps the result j (a reference of its own) or msg for text s; nothing
 * when out of memory or s is long. */
static void yaml_cache_add(tmpl_engine *e, const char *s, size_t n, int want, json_t *j, const char *msg)
{
	if (!e || n > YAML_CACHE_TEXT)
		return;
	struct tmpl_yaml_cache *yc = e->yaml_cache;
	if (!yc) {
		if ((yc = e->yaml_cache = calloc(1, sizeof *yc)) == NULL)
			return;
		e->yaml_cache_free = yaml_cache_free;
	}
	yaml_cached k = {.text = malloc(n + 1), .n = n, .want = want, .j = j ? json_incref(j) : NULL,
			 .msg = j ? NULL : strdup(msg)};
	if (!k.text || (!j && !k.msg)) {
		yaml_cached_clear(&k);
		return;
	}
	memcpy(k.text, s, n);
	if (yc->n < YAML_CACHE_MAX) {
		yc->v[yc->n++] = k;
		return;
	}
	yaml_cached_clear(&yc->v[yc->next]);
	yc->v[yc->next] = k;
	yc->next = (yc->next + 1) % YAML_CACHE_MAX;
}

/* Helm: fromYaml(str) map[string]interface{} (failures become {"Error":
 * msg}); fromYamlArray(str) []interface{} (failures become [msg]). */
static int from_yaml(tmpl_call *c, int want)
{
	const char *s = c->argv[0].u.s.ptr;
	size_t n = c->argv[0].u.s.len;
	const yaml_cached *k = yaml_cache_find(c->engine, s, n, want);
	if (k)
		return sprig_unmarshal_result(c, k->j ? json_incref(k->j) : NULL, want == YAML_WANT_LIST, k->msg);
	json_t *j = NULL;
	bh_error e;
	bh_error_clear(&e);
	yaml_unmarshal_as(s, n, NULL, want, &j, &e);
	yaml_cache_add(c->engine, s, n, want, j, e.msg);
	return sprig_unmarshal_result(c, j, want == YAML_WANT_LIST, e.msg);
}

static int fn_from_yaml(tmpl_call *c)
{
	return from_yaml(c, YAML_WANT_MAP);
}

static int fn_from_yaml_array(tmpl_call *c)
{
	return from_yaml(c, YAML_WANT_LIST);
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
	if (toml_from_toml(c->arena, c->argv[0].u.s.ptr, c->argv[0].u.s.len, &c->result, &e))
		return sprig_unmarshal_result(c, NULL, 0, e.msg);
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
