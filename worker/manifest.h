/* worker/manifest.h — the worker's side of the manifest pipeline: the
 * HelmRelease's post-render chain (helm/postrender.h) and the digests Flux
 * records of it, .status.observedPostRenderersDigest and
 * .status.observedCommonMetadataDigest: "sha256:" over Go's json.Encoder
 * encoding of .spec.postRenderers and .spec.commonMetadata (the API
 * types' field order, a final newline), so a digest written by Flux's
 * helm-controller reads as in sync. */
#ifndef BH_WORKER_MANIFEST_H
#define BH_WORKER_MANIFEST_H

#include <jansson.h>

#include "lib/error.h"
#include "worker/snapshot.h"

int manifest_postrenderers_digest(const json_t *spec, char out[SNAPSHOT_DIGEST_MAX], bh_error *err);
int manifest_common_metadata_digest(const json_t *spec, char out[SNAPSHOT_DIGEST_MAX], bh_error *err);

#endif
