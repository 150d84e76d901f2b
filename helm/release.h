/* helm/release.h — Helm release records and their storage in Kubernetes
 * Secrets, in the Helm CLI's format (storage driver "secrets"):
 *   name  sh.helm.release.v1.<release>.v<version>, type helm.sh/release.v1,
 *   labels name/owner=helm/status/version/createdAt[/modifiedAt],
 *   data.release = base64(gzip(json(release))) — which the API's JSON shows
 *   base64-encoded once more.
 * The release JSON keeps Go's field order (pkg/release/v1 Release, Info;
 * pkg/chart/v2 Chart, Metadata), omits what Go omits, sorts map keys and
 * escapes <, >, & as Go's encoding/json does. gzip is zlib at best
 * compression with Go's header (mtime 0, OS unknown). */
#ifndef BH_HELM_RELEASE_H
#define BH_HELM_RELEASE_H

#include <jansson.h>
#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"

#define RELEASE_MAX_DECODED ((size_t)64 << 20) /* gunzipped JSON limit */

/* What a release record is built from. Strings are borrowed; json_t values
 * are borrowed (NULL = absent / null). */
typedef struct release_fields {
	const char *name;
	const char *namespace_;
	int version;
	const char *status;        /* "deployed", "pending-install", ... */
	const char *description;   /* "Install complete" */
	const char *first_deployed;/* RFC3339Nano, or NULL */
	const char *last_deployed;
	const char *notes;         /* may be NULL */
	const json_t *chart_metadata; /* Chart.yaml as JSON (any key order) */
	const json_t *chart_templates;/* [{"name":"templates/x.yaml","data":"<base64>"}] */
	const json_t *chart_values;   /* object or NULL */
	const json_t *chart_files;    /* [{"name","data"}] or NULL */
	const json_t *config;         /* user-supplied values, object or NULL */
	const char *manifest;
	const char *apply_method;     /* "ssa", "csa" or NULL */
} release_fields;

/* Builds the release as an ordered json_t (insertion order = Go's). */
json_t *release_json_new(const release_fields *f, bh_error *err);
/* Go's json.Marshal text of an ordered release object (struct field order
 * kept, nested map keys of config/values/annotations sorted, numbers and
 * strings as Go writes them: 3.0 is "3", <>& are \u003c \u003e \u0026).
 * Appends to out. */
int release_marshal(const json_t *rel, bh_buf *out, bh_error *err);

/* base64(gzip(json)) of rel, the value Helm stores. Caller frees. */
char *release_encode_new(const json_t *rel, bh_error *err);
/* Inverse: base64 -> (gunzip if it starts with 1f 8b 08) -> JSON, with
 * RELEASE_MAX_DECODED as limit. *out is a new reference. */
int release_decode(const char *b64, size_t len, json_t **out, bh_error *err);

/* The storage Secret for rel: {"apiVersion":"v1","kind":"Secret",...}.
 * created_unix becomes the createdAt label. New reference. */
json_t *release_secret_new(const json_t *rel, long long created_unix, bh_error *err);
/* "sh.helm.release.v1.<name>.v<version>" — caller frees. */
char *release_secret_name_new(const char *name, int version);

/* RFC3339Nano UTC time as Go prints it (trailing zeros of the fraction
 * trimmed): "2026-11-21T06:48:31.123456789Z". */
void release_time_format(long long sec, long nsec, char out[40]);

/* Standard base64 (with padding). encode: caller frees. decode: ignores
 * nothing, BH_EINVAL on any invalid byte. */
char *release_base64_new(const unsigned char *p, size_t n);
int release_base64_decode(const char *s, size_t n, bh_buf *out, bh_error *err);

#endif
