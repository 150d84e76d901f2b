/* supervisor/source.h — finding a HelmRelease's chart artifact as Flux's
 * helm-controller does: .spec.chartRef names a HelmChart or an
 * OCIRepository, or the controller creates HelmChart "<ns>-<name>" from
 * .spec.chart (in the sourceRef's namespace) and uses it; the artifact is
 * the source's .status.artifact {url, digest, revision}. Also the release
 * name, namespaces and identity of the job. */
#ifndef BH_SUPERVISOR_SOURCE_H
#define BH_SUPERVISOR_SOURCE_H

#include <jansson.h>

#include "kube/kube.h"
#include "lib/error.h"

typedef struct source_info {
	char kind[32];         /* "HelmChart" or "OCIRepository" */
	char ns[254], name[520];
	char helmchart[800];   /* "ns/name" of a HelmChart source, else "" */
	char url[2048];
	char digest[200];
	char revision[200];
} source_info;

enum { SOURCE_OK = 0, SOURCE_NOT_READY = 1 };

/* Returns SOURCE_OK with *si filled, SOURCE_NOT_READY (no artifact yet;
 * err says why), or a negative code (err says why: missing HelmChart,
 * unsupported chartRef kind, API error). May create the HelmChart. */
int source_resolve(kube_client *kc, const json_t *hr, source_info *si, bh_error *err);
/* The artifact digest of hr's HelmChart as the HelmChart watch last saw
 * it (hccache.h), read from memory only; -1 when not known that way. */
int source_cached_digest(const json_t *hr, char *digest, size_t n);

/* The source hr takes its chart from: its chartRef, or the HelmChart made
 * from .spec.chart (truncated to the buffers). 0, or -1 for a chartRef
 * without kind or name (no source). */
int source_of(const json_t *hr, char *kind, size_t kn, char *ns, size_t nsn, char *name, size_t nn);

/* Deleting the HelmChart bulkhead made from hr's .spec.chart (when hr was
 * deleted or moved to .spec.chartRef), only one labelled as made for hr, in
 * steps for a caller that sends the requests itself (main.c's status queue
 * run): a GET of the path source_helmchart_path_new makes (new, NULL with
 * err set when there is none: no namespace, out of memory), and when its
 * answer hc is one source_helmchart_made_for hr, a DELETE of that path. */
char *source_helmchart_path_new(const json_t *hr, bh_error *err);
int source_helmchart_made_for(const json_t *hc, const json_t *hr);

/* Release name (.spec.releaseName or [targetNamespace-]name, shortened to 53
 * characters as Flux does), release and storage namespaces. Caller frees. */
char *source_release_name_new(const json_t *hr);
const char *source_release_namespace(const json_t *hr);
const char *source_storage_namespace(const json_t *hr);

/* Parses a Go duration ("5m", "1h30m", "2.5s", "300ms"); -1 if invalid. */
double source_parse_duration(const char *s);

#endif
