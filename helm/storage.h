/* helm/storage.h — Helm release history over the Kubernetes API, as the
 * Helm CLI's "secrets" storage driver keeps it (pkg/storage): one Secret per
 * release version (helm/release.h builds and decodes them), queried by the
 * labels name=<release>,owner=helm. Also the release-level rules built on
 * it: last and last deployed version, the pending-* lock, max-history
 * pruning, and JSON helpers that keep Go's field order when a record is
 * changed.
 *
 * Releases are jansson objects in the Go field order of pkg/release/v1
 * (as release_json_new builds them or release_decode reads them). */
#ifndef BH_HELM_STORAGE_H
#define BH_HELM_STORAGE_H

#include <jansson.h>

#include "kube/kube.h"
#include "lib/error.h"

#define STORAGE_MAX_VERSIONS 10000 /* refuse histories longer than this */

/* Every stored version of `name` in namespace ns, decoded, sorted by
 * version ascending, as a new JSON array (empty when none). A record that
 * does not decode is an error naming its Secret. */
int storage_history(kube_client *kc, const char *ns, const char *name, json_t **out, bh_error *err);
/* Keeps the history storage_history read through kc (one release: the
 * worker's), kept up to date by this module's own writes through kc, so
 * that one reconcile lists its release's storage once (issue 14). For a
 * process that alone writes that release while it runs (the release lock
 * of the worker's reconcile). kc NULL stops it and frees what it kept. */
void storage_memo(kube_client *kc);

/* Borrowed entries of a history array: the highest version (Helm's Last),
 * the highest version with status "deployed" (Deployed), the given version;
 * NULL when there is none. */
json_t *storage_last(const json_t *hist);
json_t *storage_deployed(const json_t *hist);
json_t *storage_version(const json_t *hist, int version);

/* Create writes a new version's Secret (labels with createdAt); update
 * replaces an existing one (PUT without resourceVersion, labels with
 * modifiedAt, as Helm's driver). The Secret goes to the storage namespace
 * ns (Helm's --namespace of the driver, Flux's .spec.storageNamespace);
 * NULL or "" = the release's own namespace. */
int storage_create(kube_client *kc, const char *ns, const json_t *rel, bh_error *err);
int storage_update(kube_client *kc, const char *ns, const json_t *rel, bh_error *err);
/* Deletes one version's Secret; a missing one is not an error. */
int storage_delete(kube_client *kc, const char *ns, const char *name, int version, bh_error *err);

/* Helm's removeLeastRecent(max-1) before a Create: deletes the oldest
 * versions until at most max-1 remain, never the last deployed one.
 * max <= 0: no pruning. *pruned (may be NULL) receives the count. */
int storage_prune(kube_client *kc, const char *ns, const char *name, int max, int *pruned, bh_error *err);

/* ---- record helpers (Go field order kept) ---- */

/* Accessors (borrowed, "" / 0 when absent). */
const char *rel_name(const json_t *rel);
const char *rel_namespace(const json_t *rel);
int rel_version(const json_t *rel);
const char *rel_status(const json_t *rel);
int rel_status_is_pending(const char *status);

/* Sets info.<key> (string; NULL removes it), keeping Info's field order
 * (first_deployed, last_deployed, deleted, description, status, notes, ...). */
void rel_info_set(json_t *rel, const char *key, const char *value);
/* Sets a top-level key (value stolen; NULL removes), keeping Release's field
 * order (name, info, chart, config, manifest, hooks, version, namespace,
 * apply_method). */
void rel_set(json_t *rel, const char *key, json_t *value);

/* Current time as Go's RFC3339Nano UTC text. */
void storage_now(char out[40]);

#endif
