/* helm/render_schema.c — see render_schema.h. */
#include "helm/render_schema.h"

#include <string.h>

#include "lib/buf.h"
#include "lib/jsonschema.h"

static int validate_rec(const chart *c, const json_t *values, bh_buf *sb, bh_error *err)
{
	if (c->schema) {
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
	for (size_t i = 0; i < c->ndeps; i++) {
		const json_t *sub = json_object_get(values, chart_name(c->deps[i]));
		json_t *empty = NULL;
		if (!json_is_object(sub))
			sub = empty = json_object();
		int rc = validate_rec(c->deps[i], sub, sb, err);
		json_decref(empty);
		if (rc)
			return rc;
	}
	return 0;
}

int render_validate_schemas(const chart *c, const json_t *values, bh_error *err)
{
	bh_buf sb = BH_BUF_INIT;
	int rc = validate_rec(c, values, &sb, err);
	if (!rc && sb.len)
		rc = bh_error_set(err, BH_EINVAL,
				  "values don't meet the specifications of the schema(s) in the following chart(s):\n%s",
				  bh_buf_str(&sb));
	bh_buf_free(&sb);
	return rc;
}
