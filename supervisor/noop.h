/* supervisor/noop.h — a reconcile that changes nothing without a worker
 * (issue 14 item 3, as Flux decides from observed digests). After a worker
 * found a release in sync, or acted and left it Ready (an install, an
 * upgrade) with every write to its storage followed by the broker (the
 * answers to its creates, updates and deletes of the release's storage
 * Secrets, noop_store_write), the supervisor remembers, in
 * memory per HelmRelease, the inputs it reconciled (generation, artifact
 * digest) and a fingerprint of the Helm storage it read (the names and
 * resourceVersions of the release's storage Secrets, from the API server's
 * answer to the worker's storage list, updated by the answers to its
 * writes). The next reconcile with the same
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

/* The release's storage Secrets a worker read and wrote (names and
 * resourceVersions), kept per job: the answer to its storage list loads
 * it, the answers to its writes of those Secrets update it. */
#define NOOP_STORE_MAX 64
typedef struct noop_store {
	int ok; /* loaded, and every write since followed */
	size_t n;
	struct {
		char name[320], rv[64];
	} s[NOOP_STORE_MAX];
} noop_store;

/* Loads st from a Secret list answer (as noop_storage_fp reads it); -1
 * when body is no such list (st->ok is then 0). */
int noop_store_load(noop_store *st, const char *body, size_t len, const char *release);
/* Follows the answer (status, body) to a request of method on path, when
 * it is a write of a Secret in storage_ns named for release; a write whose
 * outcome is unknown (no answer) or whose answer does not say the new
 * resourceVersion ends st->ok. */
void noop_store_write(noop_store *st, const char *method, const char *path, const char *storage_ns,
		      const char *release, long status, const char *body, size_t len);
/* The fingerprint of st, equal to noop_storage_fp of a list with the same
 * Secrets. */
uint64_t noop_store_fp(const noop_store *st);

#endif
