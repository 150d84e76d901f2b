/* supervisor/fetchcl.h — the supervisor's side of bulkhead-fetcher: one
 * fetcher process per request (spawn.h: fork + exec, fixed environment, no
 * credentials of the controller), the request with the credentials of that
 * one source, a deadline on the answer, and distrust of it: the result is
 * decoded as hostile (proto/fetch.h), the artifact fd must be a sealed
 * memfd within the size cap, and its sha256 is computed here again and
 * compared with the digest the fetcher claims. */
#ifndef BH_SUPERVISOR_FETCHCL_H
#define BH_SUPERVISOR_FETCHCL_H

#include <stddef.h>

#include "lib/error.h"
#include "proto/fetch.h"

typedef struct fetchcl_opts {
	const char *path;          /* bulkhead-fetcher */
	int path_fd;               /* O_PATH fd of it, or -1 */
	const char *deny;          /* host:port the fetcher must never connect to (API server), or NULL */
	const char *label;         /* "HelmChart/ns/name", shown in its argv */
	unsigned long memory_mb, cpu_seconds;
} fetchcl_opts;

/* Runs rq in a new fetcher. Returns 0 with *res filled (res->ok says
 * whether the fetch succeeded; on ok and !unchanged *fd is a read-only fd
 * of the verified artifact), or a negative code when the fetcher itself
 * failed (crashed, seccomp, timeout, protocol violation; err says which). */
int fetchcl_run(const fetchcl_opts *o, const proto_fetch_request *rq, proto_fetch_result *res, int *fd,
		bh_error *err);

/* The path of bulkhead-fetcher next to the running binary (build tree or
 * libexec), else /usr/libexec/bulkhead-fetcher. Caller frees. */
char *fetchcl_default_path(void);

#endif
