/* helm/render_schema.c — see render_schema.h. */
#include "helm/render_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/jsonschema.h"

/* Go's %T of a decoded value (never null or a map here) */
static const char *go_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING: return "string";
	case JSON_INTEGER: return "int64";
	case JSON_REAL: return "float64";
	case JSON_TRUE:
	case JSON_FALSE: return "bool";
	case JSON_ARRAY: return "[]interface {}";
	default: return "map[string]interface {}";
	}
}

/* Helm's slog.Debug lines of ValidateAgainstSchema (level DEBUG; the
 * caller shows them under --debug). */
static void debug_log(const schema_log *lg, const char *msg, const char *k, const char *v)
{
	const char *attrs[] = {k, v, NULL};
	if (lg && lg->fn)
		lg->fn(lg->ud, "DEBUG", msg, attrs);
}

static int validate_rec(const chart *c, const json_t *values, const schema_log *lg, bh_buf *sb, bh_error *err)
{
	if (c->schema) {
		debug_log(lg, "chart name", "chart-name", chart_name(c));
		json_t *parsed = lg && lg->fn ? json_loadb(c->schema, c->schema_len, JSON_DECODE_ANY, NULL) : NULL;
		if (parsed) {
			char *text = strndup(c->schema, c->schema_len);
			debug_log(lg, "unmarshalled JSON schema", "schema", text ? text : "");
			free(text);
			json_decref(parsed);
		}
		jsonschema *s = NULL;
		bh_error e;
		bh_error_clear(&e);
		int rc = jsonschema_compile_text(c->schema, c->schema_len, &s, &e);
		if (rc) {
			if (rc == BH_ENOMEM)
				return bh_error_set(err, rc, "%s", e.msg);
			bh_buf_printf(sb, "%s:\n%s", chart_name(c), e.msg);
		} else {
			bh_buf errs = BH_BUF_INIT;
			rc = jsonschema_validate(s, values, &errs, &e);
			jsonschema_free(s);
			if (rc < 0) {
				bh_buf_free(&errs);
				return bh_error_set(err, rc, "%s: %s", chart_name(c), e.msg);
			}
			if (rc > 0)
				bh_buf_printf(sb, "%s:\n%s", chart_name(c), bh_buf_str(&errs));
			bh_buf_free(&errs);
		}
	}
	char ndeps[32];
	snprintf(ndeps, sizeof ndeps, "%zu", c->ndeps);
	if (lg && lg->fn) {
		const char *attrs[] = {"chart", chart_name(c), "dependencies", ndeps, NULL};
		lg->fn(lg->ud, "DEBUG", "number of dependencies in the chart", attrs);
	}
	/* as Helm: a sub-chart without values (or null) is not checked, one
	 * whose values are not a map is reported with Go's %T of them */
	for (size_t i = 0; i < c->ndeps; i++) {
		const char *name = chart_name(c->deps[i]);
		const json_t *sub = json_object_get(values, name);
		if (!sub || json_is_null(sub))
			continue;
		if (!json_is_object(sub)) {
			bh_buf_printf(sb, "%s:\ninvalid type for values: expected object (map), got %s\n", name,
				      go_type_name(sub));
			continue;
		}
		int rc = validate_rec(c->deps[i], sub, lg, sb, err);
		if (rc)
			return rc;
	}
	return 0;
}

int render_validate_schemas(const chart *c, const json_t *values, const schema_log *lg, bh_error *err)
{
	bh_buf sb = BH_BUF_INIT;
	int rc = validate_rec(c, values, lg, &sb, err);
	if (!rc && sb.len)
		rc = bh_error_set(err, BH_EINVAL,
				  "values don't meet the specifications of the schema(s) in the following chart(s):\n%s",
				  bh_buf_str(&sb));
	bh_buf_free(&sb);
	return rc;
}
