/* supervisor/artifact.h — fetching a chart artifact the way helm-controller
 * does (internal/loader/artifact_url.go): HTTP GET of the source's
 * .status.artifact.url (size-limited), verification of .status.artifact.digest
 * ("<algo>:<hex>", sha256/sha384/sha512), and the bytes handed over as a
 * sealed memfd reopened read-only, ready to pass to a worker. */
#ifndef BH_SUPERVISOR_ARTIFACT_H
#define BH_SUPERVISOR_ARTIFACT_H

#include <stddef.h>

#include "lib/error.h"

#define ARTIFACT_MAX_BYTES ((size_t)10 << 20)

/* Downloads url, checks digest, returns a read-only fd in *fd. Errors:
 * BH_EUNAVAIL (HTTP/connection), BH_ENOTFOUND (404), BH_ELIMIT (too large),
 * BH_EINVAL ("integrity" mismatch or bad digest syntax). */
int artifact_fetch(const char *url, const char *digest, long timeout_ms, int *fd, bh_error *err);

/* Verifies digest over p[0..n) (pure). */
int artifact_verify(const unsigned char *p, size_t n, const char *digest, bh_error *err);

#endif
