/* supervisor/audit.h — the broker's audit log: one JSON object per line per
 * worker request (forwarded or refused) and per protocol violation:
 *   {"time","helmRelease","identity","verb","path","status","durationMs"[,"refused"]}
 * Lines are written with a single write(2) on an O_APPEND fd. */
#ifndef BH_SUPERVISOR_AUDIT_H
#define BH_SUPERVISOR_AUDIT_H

#include "lib/error.h"

int audit_open(const char *path, bh_error *err); /* NULL path: audit disabled */
void audit_close(void);
/* refused: NULL for forwarded requests, else why the broker refused. */
void audit_write(const char *helm_release, const char *identity, const char *verb, const char *path,
		 long status, double duration_ms, const char *refused);

#endif
