/* fetcher/http.c — see http.h. */
#include "fetcher/http.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#define MAX_REDIRECTS 10
#define MAX_DENY 8
#define CA_BUNDLE "/etc/ssl/certs/ca-certificates.crt"
#define CA_MAX ((size_t)4 << 20)

static struct sockaddr_storage deny_addrs[MAX_DENY * 4];
static size_t ndeny_addrs;
static bh_buf system_ca = BH_BUF_INIT;

int http_init(const char *const *deny, size_t ndeny, bh_error *err)
{
	FILE *f = fopen(CA_BUNDLE, "re");
	if (f) {
		char chunk[8192];
		size_t n;
		while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && system_ca.len < CA_MAX)
			bh_buf_put(&system_ca, chunk, n);
		fclose(f);
	}
	for (size_t i = 0; i < ndeny && i < MAX_DENY; i++) {
		char host[256];
		const char *colon = strrchr(deny[i], ':');
		struct addrinfo hints = {0}, *res = NULL, *a;
		if (!colon || (size_t)(colon - deny[i]) >= sizeof host)
			return bh_error_set(err, BH_EINVAL, "--deny %s is not host:port", deny[i]);
		snprintf(host, sizeof host, "%.*s", (int)(colon - deny[i]), deny[i]);
		if (host[0] == '[' && host[strlen(host) - 1] == ']') {
			memmove(host, host + 1, strlen(host));
			host[strlen(host) - 1] = '\0';
		}
		hints.ai_socktype = SOCK_STREAM;
		if (getaddrinfo(host, colon + 1, &hints, &res) != 0)
			continue; /* an unresolvable name cannot be connected to either */
		for (a = res; a && ndeny_addrs < sizeof deny_addrs / sizeof deny_addrs[0]; a = a->ai_next)
			memcpy(&deny_addrs[ndeny_addrs++], a->ai_addr, a->ai_addrlen);
		freeaddrinfo(res);
	}
	return 0;
}

static int same_addr(const struct sockaddr *a, const struct sockaddr_storage *b)
{
	if (a->sa_family != b->ss_family)
		return 0;
	if (a->sa_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
		return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->sa_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
		return x->sin6_port == y->sin6_port && !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof x->sin6_addr);
	}
	return 0;
}

typedef struct xfer {
	char reason[64]; /* the status line's reason phrase (Go's resp.Status) */
	bh_buf *out;
	size_t max;
	int too_big, denied;
	http_opts *o;
	char *location;
} xfer;

static curl_socket_t on_open(void *ud, curlsocktype purpose, struct curl_sockaddr *a)
{
	xfer *x = ud;
	(void)purpose;
	for (size_t i = 0; i < ndeny_addrs; i++)
		if (same_addr(&a->addr, &deny_addrs[i])) {
			x->denied = 1;
			return CURL_SOCKET_BAD;
		}
	return socket(a->family, a->socktype, a->protocol);
}

static size_t on_data(char *p, size_t sz, size_t nm, void *ud)
{
	xfer *x = ud;
	size_t n = sz * nm;
	if (x->out->len + n > x->max) {
		x->too_big = 1;
		return 0;
	}
	bh_buf_put(x->out, p, n);
	return bh_buf_ok(x->out) ? n : 0;
}

static char *header_value(const char *line, size_t n, const char *name)
{
	size_t nl = strlen(name);
	if (n <= nl + 1 || strncasecmp(line, name, nl) != 0 || line[nl] != ':')
		return NULL;
	line += nl + 1, n -= nl + 1;
	while (n && (*line == ' ' || *line == '\t'))
		line++, n--;
	while (n && (line[n - 1] == '\r' || line[n - 1] == '\n' || line[n - 1] == ' '))
		n--;
	return strndup(line, n);
}

static size_t on_header(char *p, size_t sz, size_t nm, void *ud)
{
	xfer *x = ud;
	size_t n = sz * nm;
	char *v;
	if (n >= 5 && strncmp(p, "HTTP/", 5) == 0) { /* a new response: forget the last one's headers */
		const char *sp = memchr(p, ' ', n), *sp2 = sp ? memchr(sp + 1, ' ', n - (size_t)(sp + 1 - p)) : NULL;
		size_t rl = sp2 ? n - (size_t)(sp2 + 1 - p) : 0;
		while (rl && (sp2[rl] == '\r' || sp2[rl] == '\n' || sp2[rl] == '\0'))
			rl--;
		snprintf(x->reason, sizeof x->reason, "%.*s", sp2 ? (int)rl : 0, sp2 ? sp2 + 1 : "");
		for (char *c = x->reason; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
		free(x->location), x->location = NULL;
		free(x->o->www_authenticate), x->o->www_authenticate = NULL;
		free(x->o->content_type), x->o->content_type = NULL;
		if (x->o->want_link)
			free(x->o->link), x->o->link = NULL;
	}
	if ((v = header_value(p, n, "Location")))
		free(x->location), x->location = v;
	else if ((v = header_value(p, n, "WWW-Authenticate")))
		free(x->o->www_authenticate), x->o->www_authenticate = v;
	else if ((v = header_value(p, n, "Content-Type")))
		free(x->o->content_type), x->o->content_type = v;
	else if (x->o->want_link && (v = header_value(p, n, "Link")))
		free(x->o->link), x->o->link = v;
	return n;
}

static const char *status_text(long s)
{
	static const struct {
		long code;
		const char *text;
	} t[] = {{400, "Bad Request"}, {401, "Unauthorized"}, {403, "Forbidden"}, {404, "Not Found"},
		 {405, "Method Not Allowed"}, {408, "Request Timeout"}, {429, "Too Many Requests"},
		 {500, "Internal Server Error"}, {502, "Bad Gateway"}, {503, "Service Unavailable"},
		 {504, "Gateway Timeout"}};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (t[i].code == s)
			return t[i].text;
	return "";
}

/* host:port of url (default port by scheme), for the credentials policy. */
static int url_authority(const char *url, char *buf, size_t n)
{
	CURLU *u = curl_url();
	char *host = NULL, *port = NULL;
	int ok = u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
		 curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
		 curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK;
	if (ok)
		snprintf(buf, n, "%s:%s", host, port);
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(u);
	return ok ? 0 : -1;
}

static char *resolve_location(const char *base, const char *loc)
{
	CURLU *u = curl_url();
	char *s = NULL, *r = NULL;
	if (u && curl_url_set(u, CURLUPART_URL, base, 0) == CURLUE_OK &&
	    curl_url_set(u, CURLUPART_URL, loc, 0) == CURLUE_OK && curl_url_get(u, CURLUPART_URL, &s, 0) == CURLUE_OK)
		r = strdup(s);
	curl_free(s);
	curl_url_cleanup(u);
	return r;
}

static void set_tls(CURL *c, const http_opts *o)
{
	struct curl_blob ca = {0}, cert = {0}, key = {0};
	if (o->ca_pem) {
		ca.data = (void *)o->ca_pem, ca.len = strlen(o->ca_pem);
	} else {
		ca.data = system_ca.data, ca.len = system_ca.len;
	}
	ca.flags = CURL_BLOB_COPY;
	curl_easy_setopt(c, CURLOPT_CAPATH, NULL);
	curl_easy_setopt(c, CURLOPT_PROXY_CAPATH, NULL);
	if (ca.len) {
		curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
		/* an https proxy is checked with the same CAs (as Go's transport) */
		curl_easy_setopt(c, CURLOPT_PROXY_CAINFO_BLOB, &ca);
	}
	if (o->cert_pem && o->key_pem) {
		cert.data = (void *)o->cert_pem, cert.len = strlen(o->cert_pem), cert.flags = CURL_BLOB_COPY;
		key.data = (void *)o->key_pem, key.len = strlen(o->key_pem), key.flags = CURL_BLOB_COPY;
		curl_easy_setopt(c, CURLOPT_SSLCERT_BLOB, &cert);
		curl_easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
		curl_easy_setopt(c, CURLOPT_SSLKEY_BLOB, &key);
		curl_easy_setopt(c, CURLOPT_SSLKEYTYPE, "PEM");
	}
	if (o->insecure_skip_verify) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
		curl_easy_setopt(c, CURLOPT_PROXY_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_PROXY_SSL_VERIFYHOST, 0L);
	}
}

static int one_get(http_opts *o, CURL *c, const char *url, int with_auth, xfer *x, long remaining_ms, bh_error *err)
{
	char ebuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdrs = NULL;
	char line[8192];
	CURLcode cr;
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	/* no proxy from the environment; one the request names, for every host */
	curl_easy_setopt(c, CURLOPT_NOPROXY, o->proxy ? "" : "*");
	if (o->proxy) {
		curl_easy_setopt(c, CURLOPT_PROXY, o->proxy);
		if (o->proxy_username) {
			curl_easy_setopt(c, CURLOPT_PROXYAUTH, CURLAUTH_BASIC);
			curl_easy_setopt(c, CURLOPT_PROXYUSERNAME, o->proxy_username);
			curl_easy_setopt(c, CURLOPT_PROXYPASSWORD, o->proxy_password ? o->proxy_password : "");
		}
	}
	curl_easy_setopt(c, CURLOPT_USERAGENT, "bulkhead-fetcher");
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, remaining_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, remaining_ms < 15000 ? remaining_ms : 15000L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, o->low_speed_secs > 0 ? o->low_speed_secs : 10L);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)x->max);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, on_open);
	curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, x);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
	set_tls(c, o);
	if (with_auth && o->username) {
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(c, CURLOPT_USERNAME, o->username);
		curl_easy_setopt(c, CURLOPT_PASSWORD, o->password ? o->password : "");
	}
	if (with_auth && o->bearer) {
		snprintf(line, sizeof line, "Authorization: Bearer %s", o->bearer);
		hdrs = curl_slist_append(hdrs, line);
	}
	if (o->accept) {
		snprintf(line, sizeof line, "Accept: %s", o->accept);
		hdrs = curl_slist_append(hdrs, line);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	cr = curl_easy_perform(c);
	curl_slist_free_all(hdrs);
	o->status = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &o->status);
	if (x->denied)
		return bh_error_set(err, BH_EDENIED, "failed to fetch %s : refusing to connect to the Kubernetes API server's address", url);
	if (x->too_big || cr == CURLE_FILESIZE_EXCEEDED)
		return bh_error_set(err, BH_ELIMIT, "failed to fetch %s : the response is larger than the limit of %zu bytes", url, x->max);
	if (cr == CURLE_OPERATION_TIMEDOUT)
		return bh_error_set(err, BH_ETIMEOUT, "failed to fetch %s : %s", url, ebuf[0] ? ebuf : curl_easy_strerror(cr));
	if (cr != CURLE_OK)
		return bh_error_set(err, BH_EUNAVAIL, "failed to fetch %s : %s", url, ebuf[0] ? ebuf : curl_easy_strerror(cr));
	return 0;
}

int http_get(http_opts *o, const char *url, size_t max, bh_buf *out, bh_error *err)
{
	CURL *c = curl_easy_init();
	char origin[512], here[512];
	char *cur = strdup(url);
	xfer x = {"", out, max, 0, 0, o, NULL};
	long budget = o->timeout_ms > 0 ? o->timeout_ms : 60000;
	struct timespec t0, t1;
	int rc = 0;
	if (!c || !cur) {
		curl_easy_cleanup(c);
		free(cur);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	if (o->proxy && strncmp(o->proxy, "http://", 7) != 0 && strncmp(o->proxy, "https://", 8) != 0) {
		rc = bh_error_set(err, BH_EINVAL, "proxy URL must use http or https scheme");
		goto done;
	}
	if (url_authority(o->auth_url ? o->auth_url : url, origin, sizeof origin) < 0) {
		rc = bh_error_set(err, BH_EINVAL, "invalid URL %s", url);
		goto done;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int hop = 0;; hop++) {
		long used;
		int same = url_authority(cur, here, sizeof here) == 0 && strcmp(here, origin) == 0;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		used = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		if (used >= budget) {
			rc = bh_error_set(err, BH_ETIMEOUT, "failed to fetch %s : timeout of %ld ms reached", url, budget);
			break;
		}
		bh_buf_reset(out);
		if ((rc = one_get(o, c, cur, same || o->pass_credentials, &x, budget - used, err)) < 0)
			break;
		if (o->status >= 300 && o->status < 400 && x.location) {
			char *next = resolve_location(cur, x.location);
			if (hop >= MAX_REDIRECTS || !next) {
				free(next);
				rc = bh_error_set(err, BH_EDENIED, "failed to fetch %s : %s", url,
						  next ? "stopped after 10 redirects" : "invalid redirect location");
				break;
			}
			free(cur);
			cur = next;
			continue;
		}
		if (o->status == 200)
			break;
		rc = bh_error_set(err, o->status == 404 ? BH_ENOTFOUND : BH_EUNAVAIL, "failed to fetch %s : %ld %s", cur,
				  o->status, x.reason[0] ? x.reason : status_text(o->status));
		break;
	}
done:
	free(x.location);
	free(cur);
	curl_easy_cleanup(c);
	return rc;
}
