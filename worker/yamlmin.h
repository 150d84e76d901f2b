/* worker/yamlmin.h — the minimum YAML reading the skeleton worker needs
 * (Chart.yaml, values.yaml, plain-manifest documents) until lib/yaml.h's
 * Helm-exact reader replaces it: libyaml document API -> jansson, YAML 1.1
 * plain-scalar typing (null, bool, int, float), aliases with a node budget,
 * depth limit. Only the first document of the text is read. */
#ifndef BH_WORKER_YAMLMIN_H
#define BH_WORKER_YAMLMIN_H

#include <jansson.h>
#include <stddef.h>

#include "lib/error.h"

#define YAMLMIN_MAX_DEPTH 200
#define YAMLMIN_MAX_NODES 1000000

/* *out: new reference (json null for an empty document). */
int yamlmin_parse(const char *text, size_t len, json_t **out, bh_error *err);

#endif
