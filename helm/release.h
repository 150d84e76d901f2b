/* helm/release.h — Helm release records and their storage in Kubernetes
 * Secrets, in the Helm CLI's format (storage driver "secrets"):
 *   name  sh.helm.release.v1.<release>.v<version>, type helm.sh/release.v1,
 *   labels name/owner=helm/status/version/createdAt[/modifiedAt],
 *   data.release = base64(gzip(json(release))) — which the API's JSON shows
 *   base64-encoded once more.
 * The release JSON keeps Go's field order (pkg/release/v1 Release, Info;
 * pkg/chart/v2 Chart, Metadata), omits what Go omits, sorts map keys and
 * escapes <, >, & as Go's encoding/json does. gzip has Go's header (mtime
 * 0, OS unknown), at a faster level than the best Helm asks Go for
 * (RELEASE_GZIP_LEVEL: any level reads back the same), possibly in several
 * members (gunzip and Helm read them as one stream). */
#ifndef BH_HELM_RELEASE_H
#define BH_HELM_RELEASE_H

#include <jansson.h>
#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"

#define RELEASE_MAX_DECODED ((size_t)64 << 20) /* gunzipped JSON limit */
/* Helm compresses its records with gzip.BestCompression (9); gunzip reads
 * any level alike. Levels are libdeflate's (lib/gzip.h). A record of at
 * most RELEASE_GZIP_FAST_MAX bytes of JSON is compressed at level 1:
 * podinfo's 97 KB record 5.5 M instructions at zlib's level 3 (28,081
 * bytes) -> 2.7 M (27,570 bytes). A larger one, nearer the API's 1 MiB
 * Secret limit, at level 6 (podinfo's: zlib 6 10.0 M, 25,382 bytes ->
 * 6.0 M, 25,531 bytes). */
#define RELEASE_GZIP_LEVEL 6
#define RELEASE_GZIP_FAST_LEVEL 1
#define RELEASE_GZIP_FAST_MAX ((size_t)1 << 20)
/* The API server refuses a Secret or ConfigMap whose data passes 1 MiB. A
 * record whose base64 text would pass it is compressed again at
 * RELEASE_GZIP_BEST (libdeflate's 12, tighter than zlib's 9), the smaller
 * stored. */
#define RELEASE_STORED_MAX ((size_t)1 << 20)
#define RELEASE_GZIP_BEST 12

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
 * Appends to out. Fails as Go does (BH_EINVAL, "json: error calling
 * MarshalJSON for type time.Time: Time.MarshalJSON: timezone hour outside
 * of range [0,23]") when chart.lock.generated has a zone offset of 24 hours
 * or more. */
int release_marshal(const json_t *rel, bh_buf *out, bh_error *err);
/* What release_encode_text_keep_new and release_marshal_keep keep between
 * the records of one release (below). */
typedef struct release_gzkeep release_gzkeep;
/* release_marshal, with the text of the record's chart member kept in k:
 * a later record with the same chart object (the pending and the final
 * write of one install) copies it instead of marshalling it again. A
 * record's chart is built whole and must not be changed once marshalled;
 * k holds a reference to it. k NULL: as release_marshal. */
int release_marshal_keep(release_gzkeep *k, const json_t *rel, bh_buf *out, bh_error *err);

/* A copy of rel equal to what decoding its stored text (release_marshal)
 * gives back, without encoding and decoding it: a real without fraction
 * becomes an integer (Go writes 3.0 as 3). NULL when only decoding can
 * tell (a string with NUL or bytes that are not UTF-8, an integral real
 * beyond int64), or out of memory. */
json_t *release_stored_copy(const json_t *rel);
/* The same, the chart member shared with the copy made for an earlier
 * record of k with the same chart object (release_marshal_keep): the
 * copies must not be changed. */
json_t *release_stored_copy_keep(release_gzkeep *k, const json_t *rel);

/* A copy of the record rel (an object) as it is now, for a holder that may
 * change it: its chart, not changed once the record is built, is shared,
 * the rest copied. NULL on OOM. */
json_t *release_record_copy(const json_t *rel);

/* base64(gzip(json)) of rel, the value Helm stores. Caller frees. */
char *release_encode_new(const json_t *rel, bh_error *err);
/* The same from the release's JSON text (release_marshal's output). */
char *release_encode_text_new(const char *json, size_t len, bh_error *err);
/* release_gzkeep also keeps the compressed chart, config and manifest of
 * the last two records (a text copy to compare, and its raw deflate). */
release_gzkeep *release_gzkeep_new(void); /* NULL on OOM */
void release_gzkeep_free(release_gzkeep *k);
/* Like release_encode_text_new, but the gzip member is three raw deflate
 * pieces (name and info | chart, config, manifest | hooks to the end), the
 * middle one taken from k when an earlier record had the same: the pending
 * and the final write of a release compress it once. Records are 0.1%
 * larger than one piece; gunzip (helm) reads them alike. k NULL: as
 * release_encode_text_new. */
char *release_encode_text_keep_new(release_gzkeep *k, const char *json, size_t len, bh_error *err);
/* Inverse: base64 -> (gunzip if it starts with 1f 8b 08) -> JSON, with
 * RELEASE_MAX_DECODED as limit. *out is a new reference. */
int release_decode(const char *b64, size_t len, json_t **out, bh_error *err);

/* The storage Secret for rel: {"apiVersion":"v1","kind":"Secret",...}.
 * created_unix becomes the createdAt label. New reference. */
json_t *release_secret_new(const json_t *rel, long long created_unix, bh_error *err);
/* The same when the caller has rel's JSON text (release_marshal of rel):
 * the record stored is that text. */
json_t *release_secret_text_new(const json_t *rel, const char *json, size_t len, long long created_unix,
				bh_error *err);
/* The same, its record encoded with release_encode_text_keep_new(keep). */
json_t *release_secret_keep_new(const json_t *rel, const char *json, size_t len, long long created_unix,
				release_gzkeep *keep, bh_error *err);
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
