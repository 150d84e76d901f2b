/* kube/ready.h — readiness of Kubernetes objects by the kstatus rules Helm 4
 * waits with (fluxcd/cli-utils pkg/kstatus/status): generic checks
 * (deletion, observedGeneration, Reconciling/Stalled conditions), then
 * kind-specific rules for Deployments, StatefulSets, DaemonSets,
 * ReplicaSets, Jobs, Pods, PVCs, Services, PDBs, CRDs, and a generic rule
 * for everything else (a Ready condition if present). Pure functions on
 * json_t objects.
 */
#ifndef BH_KUBE_READY_H
#define BH_KUBE_READY_H

#include <jansson.h>

typedef enum kube_status {
	KUBE_STATUS_CURRENT,      /* reconciled and ready */
	KUBE_STATUS_IN_PROGRESS,  /* still converging */
	KUBE_STATUS_FAILED,       /* reconciled and failed (terminal for a wait) */
	KUBE_STATUS_TERMINATING,  /* being deleted */
	KUBE_STATUS_UNKNOWN,      /* cannot tell */
	KUBE_STATUS_NOT_FOUND,    /* object does not exist (callers set this) */
} kube_status;

typedef struct kube_ready {
	kube_status status;
	char message[256];
} kube_ready;

/* kstatus names: "Current", "InProgress", "Failed", "Terminating",
 * "Unknown", "NotFound". */
const char *kube_status_name(kube_status s);

/* Computes the status of obj (with apiVersion/kind/metadata/spec/status). */
void kube_ready_compute(const json_t *obj, kube_ready *out);

/* Helm's --wait-for-jobs: like kube_ready_compute, but a Job is Current only
 * once it completed (Helm's custom Job status reader: "Job in progress"
 * until the Complete or Failed condition). */
void kube_ready_compute_jobs(const json_t *obj, kube_ready *out);

/* Helm's hook wait (WatchUntilReady): Jobs as above, Pods Current once
 * Succeeded and Failed once Failed, everything else Current at once. */
void kube_ready_compute_hook(const json_t *obj, kube_ready *out);

/* Dotted paths of an object's members none of the above reads (a pod
 * template, a CRD's schemas, labels, annotations), NULL-terminated: a
 * watch for readiness need not decode them (kube_watch_opts.tree_drop). */
#define KUBE_READY_UNREAD "spec.template", "spec.versions", "metadata.labels", "metadata.annotations"
extern const char *const kube_ready_unread[];

#endif
