/* supervisor/noop.h — a reconcile that changes nothing without a worker
 * (issue 14 item 3, as Flux decides from observed digests). After a worker
 * found a release in sync and wrote nothing, the supervisor remembers, in
 * memory per HelmRelease, the inputs it reconciled (generation, artifact
 * digest) and a fingerprint of the Helm storage it read (the names and
 * resourceVersions of the release's storage Secrets, from the API server's
 * answer to the worker's storage list). The next reconcile with the same
 * inputs lists the storage once, as the tenant, and when the fingerprint is
 * the same writes the remembered outcome instead of spawning a worker.
 * Anything else (other inputs, valuesFrom, kubeConfig, drift detection or
 * tests enabled, another storage) spawns the worker as before. A restart
 * forgets the memory, which only costs a worker. */
#ifndef BH_SUPERVISOR_NOOP_H
#define BH_SUPERVISOR_NOOP_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* May hr's no-op be decided without a worker at all? Only when nothing it
 * reads besides its own spec, the artifact and the storage can change the
 * outcome (pure). */
int noop_eligible(const json_t *hr);

/* Is path (with query) a list of the Secrets in storage_ns selected by
 * labels (Helm's storage list)? (pure) */
int noop_is_storage_list(const char *path, const char *storage_ns);

/* The fingerprint of the storage Secrets of release in a Secret list
 * answer (names sh.helm.release.v1.<release>.v<N> with their
 * resourceVersions, in any order) in *fp; -1 when body is no such list. */
int noop_storage_fp(const char *body, size_t len, const char *release, uint64_t *fp);

#endif
