/* supervisor/job.h — the supervisor's record of one running worker (one
 * reconcile of one HelmRelease): identity it acts as, namespaces it may
 * read, its channel state, and what it reported. Shared by the scheduler
 * (main.c), the broker and the status writer. */
#ifndef BH_SUPERVISOR_JOB_H
#define BH_SUPERVISOR_JOB_H

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>

#include "ipc/ipc.h"
#include "proto/proto.h"

typedef struct sv_job {
	char key[320];          /* "ns/name" */
	char reconcile_id[37];  /* logged with every line of this reconcile */
	json_t *hr;             /* the HelmRelease as it was when the job started */
	const char *ns, *name;  /* borrowed from hr */
	char *identity;         /* impersonated user, or NULL (controller identity) */
	char *release_name, *release_ns, *storage_ns;
	char *helmchart;        /* "ns/name" of the HelmChart used */
	struct kube_config *remote; /* .spec.kubeConfig's cluster (owned), or NULL */
	char *cluster;          /* its name for audit records, or NULL */
	pid_t pid;
	int sock;               /* -1 once closed */
	ipc_reader rd;
	ipc_outq oq;
	double started, deadline;
	int exited, wstatus;
	double cpu_used;        /* CPU seconds of the ended worker */
	int timed_out;
	int shutdown_killed;    /* killed when the graceful shutdown timeout passed */
	int deleting;           /* the job uninstalls a deleted HelmRelease */
	int has_result;
	proto_result result;
	int has_seccomp;
	uint32_t seccomp_nr, seccomp_arch;
	char violation[600];    /* first protocol violation, "" if none */
	char audit_error[600];  /* an audit record could not be written: the job stops */
	unsigned long serial;   /* unique per job (answers find their job by it) */
	unsigned inflight;      /* requests being forwarded */
	unsigned nrequests;
	unsigned nlogs;
	unsigned seen;          /* bit per message type already received (ONCE policy) */
	int asked_discovery;    /* it sent a discovery request, or wrote CRDs: the snapshot may be stale */
	unsigned writes;        /* requests other than GET forwarded for it */
	int progress_said;      /* the Progressing status was written */
	char digest[80];        /* of the chart artifact it was given */
	int check;              /* no worker: the supervisor's no-op check (noop.h) */
	int noop_ok;            /* noop_eligible(hr), asked once: hr does not change */
	struct noop_store *store; /* its release's storage as it listed and wrote it (noop.h), or NULL */
	char *storage_path;     /* that list's path */
} sv_job;

#endif
