/* tmpl/yaml_pretty.h — Helm's toYamlPretty: go-yaml v3's Encoder with
 * SetIndent(2) on the native template value (no JSON step): block style,
 * sequences indented under their key, keys in yaml.v3's natural order,
 * float64 in %g form (1e+06), no line folding, v3 quoting rules. */
#ifndef TMPL_YAML_PRETTY_H
#define TMPL_YAML_PRETTY_H

#include "lib/buf.h"
#include "lib/error.h"
#include "tmpl/value.h"

#define YAML_PRETTY_MAX_DEPTH 1000

/* Appends the document (ending with a newline). BH_ELIMIT when nested too
 * deep, BH_EINVAL for values YAML cannot hold (complex numbers). */
int yaml_pretty_encode(const tmpl_value *v, bh_buf *out, bh_error *err);

#endif
