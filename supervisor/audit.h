/* supervisor/audit.h — the broker's audit log, which fails closed: a worker
 * request whose record cannot be written is not forwarded (the broker stops
 * the job, whose release ends Ready=False AuditLogFailed).
 *
 * One JSON object per line (schema in the README, "Audit log"):
 *   {"time","id","phase","cluster","helmRelease","identity","verb","path",
 *    "status","durationMs","refused"|"error"}
 * phase: "intent" (written before the request is forwarded; synced then
 * unless the request is a read, see below),
 * "outcome" (written after the API server answered, before the worker gets
 * the answer; same id; durable with the next sync, see below), "refused" (the broker refused it: never forwarded),
 * "violation" (the worker broke the protocol; verb "invalid").
 *
 * Durability: each record is one write(2) on an O_APPEND fd, durable
 * (fdatasync(2)) before audit_record returns (so a request in flight at a
 * crash is on record as an intent without an outcome). audit_write and
 * audit_sync split that in two; audit_durable and audit_sync_async split the
 * wait too, so that no thread waits on the disk: the broker writes an intent,
 * the forwarding thread asks the log's sync thread for a sync and sends the
 * request only once audit_durable says its intent is durable (it is told
 * when a sync ended). Syncs are group commits: one fdatasync covers every
 * record written before it began, whichever thread asked. An outcome is not
 * synced on its own (audit_write_outcome): the sync of its worker's next
 * intent covers it, so whatever a worker does after an answer comes after
 * that answer's durable outcome, and the sync thread settles the rest after
 * a second without a sync. A read's intent (verb get, list or watch; not
 * a connect subresource such as exec or proxy) is not waited for either:
 * a read changes nothing. A later mutation's intent sync covers the read's
 * records, so every change leaves after them; the worker's result (status,
 * events) does not wait for them: a machine crash can lose the records of
 * the last second's reads. A mutation's intent is always durable before it
 * is sent. A
 * failed sync fails every record it was to cover. Files that cannot be synced (pipes, character devices) are written
 * without it.
 * Rotation: before a record would make the file larger than max_size (its
 * size is read at open and then counted, not asked per record: bulkheadd is
 * the log's only writer), it is renamed PATH.1 (PATH.1 to PATH.2, ... up to max_backups; the oldest goes)
 * and a new PATH is started; audit_reopen (SIGHUP) closes and reopens PATH.
 * Thread-safe (the main loop, the forwarding and watch threads, the sync
 * thread). */
#ifndef BH_SUPERVISOR_AUDIT_H
#define BH_SUPERVISOR_AUDIT_H

#include "lib/error.h"

typedef struct audit_opts {
	const char *path;             /* NULL: no audit log */
	const char *cluster;          /* the API server the broker forwards to */
	unsigned long long max_size;  /* bytes; 0: never rotate */
	unsigned max_backups;         /* rotated files kept (0: the old file is removed) */
} audit_opts;

typedef struct audit_rec {
	const char *phase;            /* "intent", "outcome", "refused", "violation" */
	unsigned long long id;        /* request id (audit_next_id); 0: none */
	const char *helm_release;     /* "ns/name" */
	const char *identity;         /* impersonated user; NULL: the controller's */
	const char *verb, *path;
	long status;                  /* outcome, refused: HTTP status (0: no answer) */
	double duration_ms;           /* outcome */
	const char *why;              /* refused, violation: why; outcome: transport error */
	const char *cluster;          /* a remote cluster (.spec.kubeConfig); NULL: the one of audit_opts */
} audit_rec;

/* Opens the log (none when o->path is NULL). */
int audit_open(const audit_opts *o, bh_error *err);
/* Closes and reopens the log (SIGHUP). On failure the log stays closed and
 * every record fails (and is retried on open) until it can be opened. */
int audit_reopen(bh_error *err);
void audit_close(void);
/* A new request id (printed as "<instance>-<n>", unique per process start). */
unsigned long long audit_next_id(void);
/* Writes r durably. 0, or an error naming the log and errno: the caller must
 * then not forward the request (intent) or deliver its answer (outcome). */
int audit_record(const audit_rec *r, bh_error *err);
/* audit_record in two steps: write r (not yet durable; *seq numbers it, 0
 * when there is nothing to wait for: no log, or r is a read's intent), then
 * wait until record seq is durable. Either failing means what
 * audit_record's failure means. */
int audit_write(const audit_rec *r, unsigned long long *seq, bh_error *err);
int audit_sync(unsigned long long seq, bh_error *err);
/* Without waiting: 1 when record seq is durable (seq 0: there is no log),
 * 0 when not yet, BH_EIO when the sync that was to cover it failed (err
 * says why; the request must not be sent). */
int audit_durable(unsigned long long seq, bh_error *err);
/* Asks the log's sync thread (started on first use) to make every record
 * written so far durable (one fdatasync, shared with whoever else asked),
 * and then to call done(ud) from that thread; a done(ud) asked for twice
 * before the sync is called once. 0, or an error when the thread cannot be
 * started or more than 4 different callbacks wait. */
int audit_sync_async(void (*done)(void *), void *ud, bh_error *err);
/* Writes an outcome record, durable with the next sync (see above). */
int audit_write_outcome(const audit_rec *r, bh_error *err);
/* Makes every record written so far durable (nothing to do: 0). */
int audit_settle(bh_error *err);
/* Are there records written but not yet durable? */
int audit_unsynced(void);
/* Reads a size ("1048576", "100Mi", "10M", "64Ki"); -1 when malformed. */
int audit_parse_size(const char *s, unsigned long long *out);

#endif
