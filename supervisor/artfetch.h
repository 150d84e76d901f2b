/* supervisor/artfetch.h — chart artifacts for reconciles in
 * --sources=external mode, off the main loop (issue 14). artfetch_get
 * answers from the artifact cache (artcache.h) by digest, so a chart is
 * downloaded and verified once per digest, not once per reconcile; a miss
 * queues one download (artifact.h, in a bulkhead-fetcher) on the fetch
 * threads, however many HelmReleases ask for that digest, and answers
 * ARTFETCH_PENDING. When a download ends, the done callback runs (on a
 * fetch thread); each asker then gets the fd, or the failure once. */
#ifndef BH_SUPERVISOR_ARTFETCH_H
#define BH_SUPERVISOR_ARTFETCH_H

#include "lib/error.h"

enum { ARTFETCH_READY = 0, ARTFETCH_PENDING = 1 };

/* Starts nthreads fetch threads; done() is called after each download. */
int artfetch_start(int nthreads, void (*done)(void), bh_error *err);

/* For asker (a HelmRelease key): ARTFETCH_READY with a read-only fd of the
 * verified artifact in *fd, ARTFETCH_PENDING (ask again after done()), or
 * the download's error (artifact_fetch's codes, err says why), given to
 * each asker that waited for it once; the next ask downloads again. */
int artfetch_get(const char *asker, const char *url, const char *digest, int *fd, bh_error *err);

#endif
