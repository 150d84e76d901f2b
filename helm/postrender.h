/* helm/postrender.h — a HelmRelease's post-render chain, as Flux's
 * helm-controller builds it (internal/postrender BuildPostRenderers) and
 * Helm 4 runs it (the "combined" post-render strategy, Flux's default):
 *
 *   1. every .spec.postRenderers[].kustomize, in order (helm/kustomize.h),
 *      each over the text the one before printed (kustomize_apply_chain);
 *   2. .spec.commonMetadata labels and annotations on every object
 *      (metadata only; they override what the chart set);
 *   3. the origin labels helm.toolkit.fluxcd.io/name and
 *      helm.toolkit.fluxcd.io/namespace on every object (last: they win).
 *
 * It runs over the rendered files after rendering and before Helm sorts
 * them into manifests and hooks, so hooks are post-rendered too. Each file's
 * documents go through the chain together and come back to their file;
 * objects a patch adds without a file land in "generated-by-postrender-N.yaml"
 * (Helm's splitAndDeannotate). Objects are printed as kustomize prints them.
 *
 * The chain always has step 3, as in Flux, so every release manifest is
 * re-printed and labelled. Decoding validates every field and refuses
 * unknown ones by name. */
#ifndef BH_POSTRENDER_H
#define BH_POSTRENDER_H

#include <jansson.h>
#include <stddef.h>

#include "lib/error.h"

#define POSTRENDER_MAX_RENDERERS 64

typedef struct postrender postrender;

/* From a HelmRelease's .spec (postRenderers, commonMetadata) and the
 * HelmRelease's name and namespace (origin labels). */
int postrender_new(const json_t *spec, const char *hr_name, const char *hr_ns, postrender **out, bh_error *err);
void postrender_free(postrender *p);

/* The chain over rendered files (render_options.post_render): paths[i] and
 * texts[i] (malloc'd, owned by the caller's arrays) are replaced by the
 * post-rendered files; on error they are left as they were. ud is the
 * postrender. */
int postrender_files(void *ud, char ***paths, char ***texts, size_t *n, bh_error *err);

/* The chain over objects (an array of objects, changed in place). */
int postrender_objects(const postrender *p, json_t *objs, bh_error *err);

#endif
