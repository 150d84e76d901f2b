/* worker/reconcile.h — Flux helm-controller v2's release state machine
 * (internal/reconcile: DetermineReleaseState -> actionForState, run in a
 * loop where each kind of action runs at most once and a remediation ends
 * the run), over helm/action.h through the brokered kube client.
 *
 * States: Absent, Unmanaged, OutOfSync, Locked, Untested, InSync, Failed.
 * Actions: install, upgrade, test, unlock, rollback remediation, uninstall
 * remediation, and the uninstall of a deleted HelmRelease.
 *
 * The outcome is the HelmRelease's new .status as Flux computes it
 * (conditions Ready/Released/TestSuccess/Remediated/Reconciling/Stalled with
 * their observedGeneration, history newest-first with digests and test
 * hooks, failures/installFailures/upgradeFailures, lastAttempted*), and how
 * the supervisor should requeue. */
#ifndef BH_WORKER_RECONCILE_H
#define BH_WORKER_RECONCILE_H

#include <jansson.h>
#include <stddef.h>

#include "kube/kube.h"
#include "lib/error.h"

typedef enum rc_requeue {
	RC_REQUEUE_INTERVAL = 0, /* the next .spec.interval (or backoff after an error) */
	RC_REQUEUE_NOW,          /* Flux's ErrMustRequeue: remediation continues */
	RC_REQUEUE_NEVER,        /* stalled until the object changes */
	RC_REQUEUE_RETRY,        /* Flux's ErrRetryAfterInterval: RetryOnFailure's retryInterval */
} rc_requeue;

typedef struct rc_input {
	kube_client *kc;
	const json_t *hr;                 /* the HelmRelease (spec, status, metadata) */
	const char *release_name, *release_ns, *storage_ns;
	const unsigned char *chart_bytes; /* the chart artifact (.tgz) */
	size_t chart_len;
	long budget_ms;                   /* the whole run must end within this */
	int deleting;                     /* the HelmRelease is being deleted: uninstall */
	const char *oci_revision;         /* an OCIRepository source's artifact revision, or NULL */
	void (*log)(void *ud, const char *msg);
	void *log_ud;
} rc_input;

/* Runs one reconcile. *result receives the RESULT document (new
 * reference): {"ready","reason","message","action","requeue","status":{..}}
 * — produced for every failure of the release itself; a negative return
 * means not even that could be built. */
int reconcile_run(const rc_input *in, json_t **result, bh_error *err);

#endif
