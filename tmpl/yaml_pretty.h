/* tmpl/yaml_pretty.h — Helm's toYamlPretty on a template value: go-yaml v3's
 * Encoder with SetIndent(2) (lib/yaml.h yaml_emit_pretty_hooks) on the native
 * value, no JSON step: ints stay ints, float64 in %g form (1e+06), NaN and
 * the infinities as .nan/.inf, time.Time in RFC 3339, Go structs with their
 * fields in order under lower-cased names. */
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
