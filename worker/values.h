/* worker/values.h — Flux's composition of a HelmRelease's values
 * (fluxcd/pkg chartutil.ChartValuesFromReferences): each .spec.valuesFrom
 * reference (ConfigMap or Secret in the HelmRelease's namespace, key
 * valuesKey or "values.yaml", optional, targetPath in Helm --set syntax)
 * merged in order, then .spec.values merged over them. Reads go through
 * the caller's (brokered) kube client. */
#ifndef BH_WORKER_VALUES_H
#define BH_WORKER_VALUES_H

#include <jansson.h>

#include "kube/kube.h"
#include "lib/error.h"

/* *out: a new object (the composed values). Errors name the reference. */
int worker_values_compose(kube_client *kc, const char *ns, const json_t *spec, json_t **out, bh_error *err);

#endif
