/* fetcher/fetch.h — one request of bulkhead-fetcher, from request to
 * verified bytes: a Helm repository's index.yaml (decoded and checked), a
 * chart picked from it by name and semver constraint and downloaded from
 * the URL the index names (checked against the index's digest), or an
 * artifact whose digest is known. Used by the fetcher process and by the
 * `bulkhead template --repo` path, so both fetch the same way. */
#ifndef BH_FETCHER_FETCH_H
#define BH_FETCHER_FETCH_H

#include "lib/buf.h"
#include "proto/fetch.h"

#define FETCH_DEFAULT_MAX_INDEX ((size_t)50 << 20) /* Flux's --helm-index-max-size */
#define FETCH_DEFAULT_MAX_CHART ((size_t)10 << 20) /* Flux's --helm-chart-max-size */

/* Runs rq. res is always filled (ok, or a reason and message); on ok and
 * not unchanged, artifact holds the bytes whose digest is res->digest. */
void fetch_run(const proto_fetch_request *rq, proto_fetch_result *res, bh_buf *artifact);

/* "sha256:<hex>" of p[0..n) into out (72 bytes). */
void fetch_sha256(const void *p, size_t n, char out[72]);

/* Helm's ResolveReferenceURL: ref resolved against the repository URL
 * (whose path is taken as a directory). Caller frees; NULL if invalid. */
char *fetch_resolve_url(const char *repo_url, const char *ref);

#endif
