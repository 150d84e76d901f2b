/* supervisor/artifact.h — fetching a chart artifact the way helm-controller
 * does (internal/loader/artifact_url.go) in --sources=external mode: HTTP
 * GET of the source's .status.artifact.url (size-limited), run in a
 * bulkhead-fetcher (the supervisor downloads nothing itself), verification
 * of .status.artifact.digest ("<algo>:<hex>", sha256/sha384/sha512) here
 * again over the sealed read-only memfd the fetcher hands back, ready to
 * pass to a worker. */
#ifndef BH_SUPERVISOR_ARTIFACT_H
#define BH_SUPERVISOR_ARTIFACT_H

#include <stddef.h>

#include "lib/error.h"
#include "supervisor/fetchcl.h"

#define ARTIFACT_MAX_BYTES ((size_t)10 << 20)

/* The fetcher artifact_fetch runs (copied; call once at start-up). */
void artifact_use_fetcher(const fetchcl_opts *o);

/* Downloads url, checks digest, returns a read-only fd in *fd. Errors:
 * BH_EUNAVAIL (HTTP/connection), BH_ENOTFOUND (404), BH_ELIMIT (too large),
 * BH_EINVAL ("integrity" mismatch or bad digest syntax). */
int artifact_fetch(const char *url, const char *digest, long timeout_ms, int *fd, bh_error *err);

/* Verifies digest over p[0..n) (pure). */
int artifact_verify(const unsigned char *p, size_t n, const char *digest, bh_error *err);

#endif
