/* fetcher/http.h — one HTTP(S) GET under the fetcher's policy (libcurl):
 * http and https only, no proxies from the environment, a size cap checked
 * against Content-Length and against the bytes that arrive, a total timeout
 * and a low-speed cut-off (a server dripping bytes is dropped), redirects
 * followed by hand (at most 10) with the credentials sent only to the host
 * they belong to unless pass_credentials, TLS from PEM blobs held in
 * memory, an HTTP(S) proxy only when the request names one (plain http
 * forwarded, https through CONNECT, as Go's http.ProxyURL), and a list of
 * addresses never connected to (the Kubernetes API server's; the proxy's
 * address is checked too). */
#ifndef BH_FETCHER_HTTP_H
#define BH_FETCHER_HTTP_H

#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"

typedef struct http_opts {
	const char *username, *password; /* basic auth, or NULL */
	const char *bearer;              /* "Authorization: Bearer", or NULL */
	const char *ca_pem;              /* trusted CAs (PEM), or NULL for the system's */
	const char *cert_pem, *key_pem;  /* client certificate, or NULL */
	int insecure_skip_verify;
	int pass_credentials;            /* also to other hosts (redirects, chart URLs) */
	const char *auth_url;            /* the credentials belong to this URL's host:port
					  * (NULL: the requested URL's) */
	const char *proxy;               /* http://host:port or https://host:port, or NULL */
	const char *proxy_username, *proxy_password; /* the proxy's basic auth, or NULL */
	long timeout_ms;                 /* whole request, redirects included */
	long low_speed_secs;             /* abort below 1 KiB/s for this long (0 = 10) */
	const char *accept;              /* Accept header, or NULL */
	char *www_authenticate;          /* out: WWW-Authenticate of a 401 (malloc'ed), or NULL */
	long status;                     /* out: last HTTP status */
	char *content_type;              /* out: Content-Type of the answer (malloc'ed), or NULL */
	int want_link;                   /* keep the Link header in link */
	char *link;                      /* out: with want_link, the answer's Link header
					  * (malloc'ed), or NULL */
} http_opts;

/* Loads the system CA bundle and resolves the denied host:port list; call
 * once before the sandbox closes the file system. */
int http_init(const char *const *deny, size_t ndeny, bh_error *err);

/* GET url into out (at most max bytes). Errors: BH_ELIMIT (too large),
 * BH_ETIMEOUT, BH_EDENIED (a denied address, a refused redirect),
 * BH_ENOTFOUND (404), BH_EUNAVAIL (connection, TLS, other status; the
 * message is Helm's "failed to fetch URL : 500 Internal Server Error"). */
int http_get(http_opts *o, const char *url, size_t max, bh_buf *out, bh_error *err);

#endif
