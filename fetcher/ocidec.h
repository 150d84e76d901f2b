/* fetcher/ocidec.h — decoders of the bytes an OCI registry (the
 * distribution protocol) and a tenant's docker config hand the fetcher:
 * WWW-Authenticate challenges (RFC 7235: schemes with auth-params or a
 * token68), image manifests and indexes, tag lists and their Link headers,
 * token-service answers,
 * and the credentials a docker config JSON (.dockerconfigjson) holds for
 * one registry host. Pure functions over untrusted bytes, each with size
 * and count limits; every one has a fuzz target (tests/fuzz/fuzz_oci.c). */
#ifndef BH_FETCHER_OCIDEC_H
#define BH_FETCHER_OCIDEC_H

#include <jansson.h>
#include <stddef.h>

#include "lib/error.h"

#define OCI_AUTH_MAX_HEADER 8192   /* bytes of one WWW-Authenticate value */
#define OCI_AUTH_MAX_CHALLENGES 8
#define OCI_AUTH_MAX_PARAMS 16     /* auth-params of one challenge */
#define OCI_MAX_MANIFEST ((size_t)4 << 20) /* as containerd and oras-go */
#define OCI_MAX_LAYERS 1024
#define OCI_MAX_TAGS 100000      /* in one tag list, and over all its pages */
#define OCI_MAX_TAG_PAGES 1000    /* pages of one tag list (Link: rel="next") */
#define OCI_MAX_LINK 8192         /* bytes of one Link header value */
#define OCI_MAX_TOKEN_ANSWER ((size_t)1 << 20)
#define OCI_MAX_DOCKER_CONFIG ((size_t)1 << 20)

/* A JSON object of at most max bytes (duplicate keys refused; jansson's
 * depth limit), or NULL with err (BH_ELIMIT, BH_EPARSE naming what). */
json_t *oci_json_load(const char *what, const char *text, size_t n, size_t max, bh_error *err);

/* ---- WWW-Authenticate ---------------------------------------------------- */
typedef struct oci_auth_param {
	char *name;  /* lower-cased; "" for a token68 */
	char *value; /* unquoted */
} oci_auth_param;

typedef struct oci_challenge {
	char *scheme; /* as written ("Bearer", "basic") */
	oci_auth_param params[OCI_AUTH_MAX_PARAMS];
	size_t nparams;
} oci_challenge;

typedef struct oci_challenges {
	oci_challenge c[OCI_AUTH_MAX_CHALLENGES];
	size_t n;
} oci_challenges;

/* Decodes the value of a WWW-Authenticate header. BH_EPARSE naming the
 * offset of what is wrong, BH_ELIMIT past a limit. Free with
 * oci_auth_free (also after a failure). */
int oci_auth_decode(const char *s, size_t n, oci_challenges *out, bh_error *err);
void oci_auth_free(oci_challenges *c);
/* The first challenge of scheme (case-insensitive), or NULL; its param
 * name (case-insensitive), or NULL. Borrowed. */
const oci_challenge *oci_auth_find(const oci_challenges *c, const char *scheme);
const char *oci_auth_param_get(const oci_challenge *c, const char *name);

/* ---- manifests ------------------------------------------------------------ */
typedef struct oci_descriptor {
	char *media_type;
	char *digest; /* "<algorithm>:<hex>", checked */
	long long size;
	char *artifact_type; /* or NULL (an index's manifests: the referrers API's) */
} oci_descriptor;

typedef struct oci_manifest {
	int is_index;           /* an image index: manifests, no layers */
	char *media_type;       /* or NULL */
	char *artifact_type;    /* or NULL */
	oci_descriptor config;  /* manifests only */
	oci_descriptor *layers; /* layers, or an index's manifests */
	size_t nlayers;
} oci_manifest;

/* Decodes an image manifest or index (schemaVersion 2). BH_EPARSE,
 * BH_EINVAL (a missing or wrong field, named), BH_ELIMIT. */
int oci_manifest_decode(const char *text, size_t n, oci_manifest **out, bh_error *err);
void oci_manifest_free(oci_manifest *m);
/* Is d "sha256:" followed by 64 lower-case hex digits? */
int oci_digest_valid_sha256(const char *d);

/* ---- tags, tokens ---------------------------------------------------------- */
/* {"name": ..., "tags": [...]}: the tag strings (caller frees each and the
 * array with oci_tags_free). */
int oci_tags_decode(const char *text, size_t n, char ***tags, size_t *ntags, bh_error *err);
void oci_tags_free(char **tags, size_t n);
/* The next page of a paginated tag list, from the answer's Link header
 * (`<URL>; rel="next"`), read as oras-go reads it: the text between the
 * leading '<' and the first '>' (a relative reference is resolved by the
 * caller against the request's URL). *next is NULL for an empty value.
 * BH_EPARSE when there is no <...>, BH_ELIMIT past OCI_MAX_LINK; a URL
 * with a control character or a space is refused. Caller frees *next. */
int oci_link_next(const char *s, size_t n, char **next, bh_error *err);
/* A token service's answer: "token", else "access_token". Caller frees. */
int oci_token_decode(const char *text, size_t n, char **token, bh_error *err);

/* ---- docker config --------------------------------------------------------- */
/* The username and password that a docker config JSON ({"auths": {KEY:
 * {"auth": base64("user:pass")} or {"username", "password"}}}) holds for
 * host ("registry.example:5000"); a KEY matches with or without a scheme
 * and path ("https://host/v1/"). BH_ENOTFOUND when none matches, BH_EINVAL
 * for a malformed entry or one with only an identity token. Caller frees
 * both (and should clear them). */
int oci_dockercfg_lookup(const char *text, size_t n, const char *host, char **username, char **password,
			 bh_error *err);

#endif
