/* cli/template_postrender.h — the post-render chain of a HelmRelease file
 * for `bulkhead template --post-renderer-config FILE`. */
#ifndef BH_CLI_TEMPLATE_POSTRENDER_H
#define BH_CLI_TEMPLATE_POSTRENDER_H

#include "helm/postrender.h"
#include "lib/error.h"

int template_postrender_load(const char *path, const char *ns, postrender **out, bh_error *err);

#endif
