/* helm/render_schema.h — Helm's ValidateAgainstSchema: the coalesced values
 * checked against values.schema.json of the chart and of every sub-chart
 * (each with its own section of the values), messages as Helm prints them. */
#ifndef BH_RENDER_SCHEMA_H
#define BH_RENDER_SCHEMA_H

#include <jansson.h>

#include "helm/chart.h"
#include "lib/error.h"

/* Where Helm's slog.Debug lines go ("chart name", "unmarshalled JSON schema",
 * "number of dependencies in the chart"); fn may be NULL. */
typedef struct schema_log {
	void (*fn)(void *ud, const char *level, const char *msg, const char *const *attrs);
	void *ud;
} schema_log;

/* 0 when every schema accepts its values; BH_EINVAL with
 * "values don't meet the specifications of the schema(s) in the following
 * chart(s):\n<chart>:\n- at '/x': ...\n" otherwise. */
int render_validate_schemas(const chart *c, const json_t *values, const schema_log *lg, bh_error *err);

#endif
