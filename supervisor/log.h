/* supervisor/log.h — bulkheadd's log lines, in one of two encodings:
 *   console  "bulkheadd: [worker ]NS/NAME: message" (for people and greps)
 *   json     one JSON object per line with the fields of Flux controllers
 *            (controller-runtime's zap logger): level, ts, msg, controller,
 *            controllerGroup, controllerKind, HelmRelease {name,namespace},
 *            namespace, name, reconcileID; worker lines add "logger":"worker".
 * Lines are written whole (one write(2) holds one or more lines), so threads
 * never interleave. */
#ifndef BH_SUPERVISOR_LOG_H
#define BH_SUPERVISOR_LOG_H

#include <stddef.h>

typedef enum { SVLOG_ERROR = 0, SVLOG_INFO = 1, SVLOG_DEBUG = 2 } svlog_level;
typedef enum { SVLOG_CONSOLE = 0, SVLOG_JSON = 1 } svlog_encoding;

void svlog_setup(svlog_encoding enc, svlog_level max);
/* "json" or "console"; -1 for anything else. */
int svlog_encoding_parse(const char *s);
/* "error", "info" or "debug"; -1 for anything else. */
int svlog_level_parse(const char *s);
int svlog_enabled(svlog_level l);

/* A line about the daemon itself. */
void svlog(svlog_level l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A line about one HelmRelease (key "ns/name"); rid is the reconcile's id
 * or NULL outside a reconcile. */
void svlog_hr(svlog_level l, const char *key, const char *rid, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A line a worker sent (n bytes, not NUL-terminated), attributed to its
 * HelmRelease and reconcile. */
void svlog_worker(const char *key, const char *rid, const char *msg, size_t n);
/* svlog_hold(1): from now on this thread's lines wait in a buffer until
 * svlog_flush, or svlog_flush_due finds the first of them 50 ms old (or
 * until it holds 32 KiB, a line at level error comes, or exit); the main
 * loop calls svlog_flush_due before each poll and waits no longer than it
 * says, so the lines of many turns cost one write. svlog_hold(0) flushes
 * and writes each line at once again. */
void svlog_hold(int on);
void svlog_flush(void);
/* Flushes this thread's held lines if the first is 50 ms old: -1 when none
 * is held (now), else the ms until they are due. */
int svlog_flush_due(void);

/* A new random reconcile id (UUID v4 text) into out[37]. */
void svlog_reconcile_id(char out[37]);

#endif
