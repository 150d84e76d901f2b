/* supervisor/metrics.h — bulkheadd's Prometheus metrics: a fixed catalogue
 * of families (Flux's gotk_reconcile_duration_seconds, controller-runtime's
 * reconcile and work-queue series, leader status, and bulkhead's own worker,
 * broker, audit and per-tenant series), each with series keyed by their
 * label text. Thread-safe; rendered in the text exposition format 0.0.4. */
#ifndef BH_SUPERVISOR_METRICS_H
#define BH_SUPERVISOR_METRICS_H

#include <stddef.h>

typedef enum {
	M_RECONCILE_DURATION, /* histogram {kind,name,namespace} */
	M_RECONCILE_TOTAL,    /* counter {controller,result} */
	M_RECONCILE_ERRORS,   /* counter {controller} */
	M_MAX_CONCURRENT,     /* gauge {controller} */
	M_ACTIVE_WORKERS,     /* gauge {controller} */
	M_WORKQUEUE_DEPTH,    /* gauge {controller,name} */
	M_LEADER,             /* gauge {name} */
	M_WORKER_SPAWNS,      /* counter */
	M_WORKER_DEATHS,      /* counter {cause} */
	M_BROKER_REQUESTS,    /* counter {verb,code} */
	M_AUDIT_RECORDS,      /* counter {result} */
	M_INFLIGHT,           /* gauge {namespace} */
	M_QUEUE_DEPTH,        /* gauge {namespace} */
	M_FAMILIES
} metrics_family;

/* Label text for up to 3 pairs (NULL-terminated key/value list): writes
 * k1="v1",k2="v2" with values escaped as the format requires. */
void metrics_labels(char *buf, size_t n, ...);

void metrics_add(metrics_family f, const char *labels, double v); /* counter */
void metrics_set(metrics_family f, const char *labels, double v); /* gauge */
void metrics_observe(metrics_family f, const char *labels, double v); /* histogram */
/* Sets every series of a gauge family to 0 (before setting the current ones). */
void metrics_zero(metrics_family f);

/* Why a worker ended: "exit" (on its own), "seccomp", "cpu" (RLIMIT_CPU),
 * "memory" (reported running out of memory), "timeout" (its deadline),
 * "protocol" (killed for a protocol violation), "killed" (SIGKILL from
 * elsewhere, e.g. the OOM killer) or "crash" (another signal). */
struct sv_job;
const char *metrics_death_cause(const struct sv_job *j, unsigned long cpu_limit);
/* Records one finished reconcile: the worker's death (none for a no-op
 * decided without a worker, noop.h), Flux's duration
 * histogram and controller-runtime's totals. requeue: the worker asked
 * for an immediate requeue. */
void metrics_reconcile_done(const struct sv_job *j, int ready, int requeue, double seconds, unsigned long cpu_limit);

/* Hooks for other modules. */
void metrics_broker_request(const char *verb, long code);
void metrics_audit_record(int ok);

/* The exposition text (caller frees), or NULL when out of memory. */
char *metrics_render_new(size_t *len);
/* Drops every series (tests). */
void metrics_reset(void);

#endif
