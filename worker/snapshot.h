/* worker/snapshot.h — Flux's view of Helm releases for .status.history
 * (api/v2 Snapshot): the config digest of a values map (fluxcd/pkg
 * chartutil.DigestValues: sha256 over the values' YAML, empty values hash
 * the empty string), a release digest over the stored record (name,
 * version, info, chart metadata, config, manifest, non-test hooks,
 * namespace, and the chart's OCI digest when the chart came from an
 * OCIRepository — bulkhead's own canonical JSON, so it detects any change
 * of the record but is not byte-equal to Flux's digest), and snapshots
 * built from stored records. */
#ifndef BH_WORKER_SNAPSHOT_H
#define BH_WORKER_SNAPSHOT_H

#include <jansson.h>
#include <stddef.h>

#include "lib/error.h"

#define SNAPSHOT_DIGEST_MAX 80 /* "sha256:" + 64 hex + NUL fits */

/* "sha256:<hex>" of n bytes. */
void snapshot_sha256(const void *p, size_t n, char out[SNAPSHOT_DIGEST_MAX]);
/* "sha256:<hex>" of the YAML of values (NULL, null or {} = no values). */
int snapshot_config_digest(const json_t *values, char out[SNAPSHOT_DIGEST_MAX], bh_error *err);
/* "sha256:<hex>" of the record rel (a decoded Helm release) observed with
 * the OCI digest of its chart (NULL or "" when none). */
int snapshot_release_digest(const json_t *rel, const char *oci_digest, char out[SNAPSHOT_DIGEST_MAX], bh_error *err);

/* A new snapshot object of rel: apiVersion "v2", digest, name, namespace,
 * version, status, action (may be NULL), chartName, chartVersion,
 * appVersion, configDigest, firstDeployed, lastDeployed, deleted,
 * testHooks {name: {lastStarted, lastCompleted, phase}} when with_tests and
 * a test hook has run, and ociDigest when oci_digest is not NULL or "".
 * NULL on error. */
json_t *snapshot_new(const json_t *rel, const char *action, int with_tests, const char *oci_digest, bh_error *err);

/* Does the snapshot record test results (testHooks present)? */
int snapshot_tested(const json_t *snap);
/* Does it have a test hook in phase "Failed"? */
int snapshot_test_failed(const json_t *snap);

#endif
