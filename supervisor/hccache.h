/* supervisor/hccache.h — the HelmCharts the sources watch sees (built-in
 * or external mode), kept by "namespace/name" so that resolving a
 * HelmRelease's chart reads memory, not the API server (issue 14). Fed from
 * the watch threads; read from the main loop. */
#ifndef BH_SUPERVISOR_HCCACHE_H
#define BH_SUPERVISOR_HCCACHE_H

#include <jansson.h>

#include "kube/kube.h"

/* One watch event (ADDED, MODIFIED, DELETED, or RELIST with .items). */
void hccache_event(kube_watch_type t, const json_t *obj);
/* HelmChart ns/name as last seen, a new reference the caller drops with
 * json_decref, or NULL when the cache has not seen it. Read-only: the cache
 * shares it (it replaces an object on a change, never changes one, and
 * jansson counts references atomically). */
json_t *hccache_get_new(const char *ns, const char *name);
/* HelmChart ns/name's .status.artifact.digest into out (n bytes), without
 * copying the object: 0, or -1 when the cache has no such chart, it has no
 * digest (or an empty one), or the digest does not fit. */
int hccache_digest(const char *ns, const char *name, char *out, size_t n);

#endif
