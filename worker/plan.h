/* worker/plan.h — the release state machine's choice of the next action,
 * as a pure function (Flux helm-controller internal/reconcile
 * atomic_release.go actionForState): the observed release state, the
 * HelmRelease's remediation and strategy settings and counters in; the
 * action, the error that stops the run (retries exhausted, no rollback
 * target) and the history truncation out. worker/reconcile.c runs it in its
 * atomic release loop; tests/unit/test_plan.c is its table. */
#ifndef BH_WORKER_PLAN_H
#define BH_WORKER_PLAN_H

typedef enum plan_state {
	PLAN_ABSENT,    /* no release in storage, or an uninstalled one */
	PLAN_UNMANAGED, /* a release the history does not describe */
	PLAN_OUTOFSYNC, /* chart, values, post renderers or metadata changed */
	PLAN_LOCKED,    /* pending-install/-upgrade/-rollback */
	PLAN_UNTESTED,  /* in sync, tests enabled and not run */
	PLAN_INSYNC,
	PLAN_FAILED,    /* the release is failed */
} plan_state;

typedef enum plan_action {
	PLAN_NONE,
	PLAN_INSTALL,
	PLAN_UPGRADE,
	PLAN_TEST,
	PLAN_UNLOCK,
	PLAN_ROLLBACK,
	PLAN_UNINSTALL_REMEDIATION,
} plan_action;

typedef enum plan_error {
	PLAN_OK,
	PLAN_EXCEEDED,       /* Stalled RetriesExceeded */
	PLAN_MISSING_TARGET, /* Stalled MissingRollbackTarget */
} plan_error;

typedef enum plan_truncate {
	PLAN_KEEP,            /* history as it is */
	PLAN_TRUNCATE,        /* Snapshots.Truncate: the latest and up to the previous successful one */
	PLAN_TRUNCATE_NEWEST, /* TruncateIgnoringPreviousSnapshots: the 5 newest (RetryOnFailure) */
	PLAN_CLEAR,           /* the history no longer describes the release */
} plan_truncate;

/* What a rollback target check found (asked only when a rollback is chosen). */
typedef enum plan_target {
	PLAN_TARGET_OK,
	PLAN_TARGET_MISSING, /* no previous successful snapshot, or it is gone from storage */
	PLAN_TARGET_CORRUPT, /* in storage but not as observed: upgrade again instead */
} plan_target;

typedef struct plan_remediation {
	long retries;        /* negative: unlimited */
	long failures;       /* installFailures / upgradeFailures */
	int remediate_last;  /* remediateLastFailure */
	int uninstall;       /* strategy uninstall (install remediation always) */
} plan_remediation;

typedef struct plan_input {
	plan_state state;
	int force;                        /* an unhandled reconcile.fluxcd.io/forceAt */
	int retry;                        /* the active strategy is RetryOnFailure */
	int active;                       /* 0 none, 1 install, 2 upgrade (lastAttemptedReleaseAction) */
	plan_remediation install, upgrade;
	plan_target (*target)(void *ud);  /* checks the rollback target */
	void *ud;
} plan_input;

typedef struct plan_output {
	plan_action action;
	plan_error error;
	plan_truncate truncate;
} plan_output;

/* Remediation.RetriesExhausted: failures beyond a non-negative retries. */
int plan_exhausted(const plan_remediation *r);
plan_output plan_next(const plan_input *in);
const char *plan_action_name(plan_action a);

#endif
