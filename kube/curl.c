/* kube/curl.c — the libcurl transport (see kube/curl.h). */
#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sys/socket.h>
#include <unistd.h>

#include "kube/addr.h"
#include "kube/curl.h"
#include "kube/curl_priv.h"
#include "kube/internal.h"
#include "kube/kube.h"
#include "lib/buf.h"

#define MAX_BODY (512u << 20)
#define PRESIZE_MAX (4u << 20)

struct curl_tr {
	kube_config *cfg;
	CURL *h;
	char *base;       /* URL prefix requests are sent to */
	char *connect_to; /* "name:port:host:port" for tls-server-name, or NULL */
	char *host_hdr;   /* "Host: host:port" to go with it */
	struct curl_slist *ct; /* connect_to as libcurl takes it, or NULL */
	/* the credentials the handle was given last (set_credentials) */
	const char *set_ca, *set_cert, *set_key;
	size_t set_ca_len, set_cert_len, set_key_len;
	char *auth;        /* "Authorization: Bearer <token>" as last sent, or NULL */
	int auth_clean;    /* its token holds no control character */
	struct call *live; /* a stream started by kube_curl_start, or NULL */
	int tls_id;        /* the handle has kube/curl_tls.c's identity, no blobs */
};

struct xfer {
	kube_response *resp;
	CURL *h;
	kube_stream_fn on_data;
	void *ud;
	int stopped;
	int too_big;
	int sent_body; /* the request has a body */
	const char *forbidden; /* why open_socket refused the address */
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

/* TLS sessions shared by every handle of the process, so a new connection
 * (a watch's, which cancelling cuts; a forwarding thread's fresh one)
 * resumes one instead of a full handshake. libcurl resumes a session only
 * for the same host, port and TLS configuration (CA, client certificate,
 * verification: its ssl_config_matches compares the blobs' bytes), so
 * credentials never mix; the bearer token is not part of TLS. */
static CURLSH *tls_share;
/* libcurl's built-in CA file and directory (compile-time strings), put
 * back on a handle that leaves the TLS identity */
static const char *default_cainfo, *default_capath;
static _Atomic(kube_curl_tls_fn) tls_hook;

void kube_curl_tls_hook_set(kube_curl_tls_fn fn)
{
	atomic_store(&tls_hook, fn);
}
static pthread_mutex_t share_mu[CURL_LOCK_DATA_LAST];

static void share_lock(CURL *h, curl_lock_data d, curl_lock_access a, void *ud)
{
	(void)h, (void)a, (void)ud;
	pthread_mutex_lock(&share_mu[d]);
}

static void share_unlock(CURL *h, curl_lock_data d, void *ud)
{
	(void)h, (void)ud;
	pthread_mutex_unlock(&share_mu[d]);
}

static void curl_init(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
	if (curl_init_rc != CURLE_OK)
		return;
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_init(&share_mu[i], NULL);
	CURL *h = curl_easy_init();
	if (h) {
		curl_easy_getinfo(h, CURLINFO_CAINFO, &default_cainfo);
		curl_easy_getinfo(h, CURLINFO_CAPATH, &default_capath);
		curl_easy_cleanup(h);
	}
	/* without it (out of memory) each handle keeps its own sessions */
	tls_share = kube_curl_session_share_new();
}

CURLSH *kube_curl_session_share_new(void)
{
	CURLSH *sh = curl_share_init();
	if (sh && (curl_share_setopt(sh, CURLSHOPT_LOCKFUNC, share_lock) != CURLSHE_OK ||
		   curl_share_setopt(sh, CURLSHOPT_UNLOCKFUNC, share_unlock) != CURLSHE_OK ||
		   curl_share_setopt(sh, CURLSHOPT_SHARE, (int)CURL_LOCK_DATA_SSL_SESSION) != CURLSHE_OK)) {
		curl_share_cleanup(sh);
		return NULL;
	}
	return sh;
}

static char *hdr_value(const char *line, size_t n, const char *name)
{
	size_t k = strlen(name);
	if (n <= k || strncasecmp(line, name, k) || line[k] != ':')
		return NULL;
	const char *v = line + k + 1;
	const char *end = line + n;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
		end--;
	char *s = malloc((size_t)(end - v) + 1);
	if (s) {
		memcpy(s, v, (size_t)(end - v));
		s[end - v] = 0;
	}
	return s;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb;
	if (n >= 5 && !strncmp(data, "HTTP/", 5)) {
		/* An HTTP/1 server that answers a request with a body with an
		 * error may not have read that body (kubesim does not): the next
		 * request on the connection would be read from the leftover
		 * bytes, so the connection closes after this answer. */
		const char *sp = memchr(data, ' ', n);
		if (x->sent_body && n >= 7 && !strncmp(data + 5, "1.", 2) && sp && (size_t)(sp - data) + 4 <= n &&
		    sp[1] >= '3')
			curl_easy_setopt(x->h, CURLOPT_FORBID_REUSE, 1L);
		/* a new response (after 100 Continue or a redirect): forget headers */
		free(x->resp->content_type);
		free(x->resp->retry_after);
		x->resp->content_type = x->resp->retry_after = NULL;
		return n;
	}
	char *v;
	if (n > 15 && !strncasecmp(data, "Content-Length:", 15)) {
		/* the body's room at once, instead of doubling (and copying) as it
		 * comes; not for a stream's bytes, which on_data takes, nor more
		 * than PRESIZE_MAX on a server's word before the bytes come */
		unsigned long long cl = strtoull(data + 15, NULL, 10);
		if (!x->on_data && cl > x->resp->body.len && cl <= PRESIZE_MAX)
			bh_buf_grow(&x->resp->body, (size_t)cl - x->resp->body.len);
		return n;
	}
	if ((v = hdr_value(data, n, "Content-Type"))) {
		free(x->resp->content_type);
		x->resp->content_type = v;
	} else if ((v = hdr_value(data, n, "Retry-After"))) {
		free(x->resp->retry_after);
		x->resp->retry_after = v;
	}
	return n;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb;
	if (x->on_data) {
		long code = 0;
		curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
		x->resp->status = code;
		if (code >= 200 && code < 300) {
			if (x->on_data(x->ud, data, n)) {
				x->stopped = 1;
				return 0;
			}
			return n;
		}
	}
	if (x->resp->body.len + n > MAX_BODY) {
		x->too_big = 1;
		return 0;
	}
	bh_buf_put(&x->resp->body, data, n);
	return bh_buf_ok(&x->resp->body) ? n : 0;
}

/* A stream's idle tick (libcurl calls it about once a second while nothing
 * comes): on_data(ud, NULL, 0) may stop the stream without new bytes. */
static int on_tick(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	struct xfer *x = ud;
	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	if (x->on_data(x->ud, NULL, 0))
		x->stopped = 1;
	return x->stopped;
}

static int map_curl_error(CURLcode cc, const char *errbuf, const kube_request *req, bh_error *err)
{
	int code;
	switch (cc) {
	case CURLE_OPERATION_TIMEDOUT:
		code = BH_ETIMEOUT;
		break;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		code = BH_EUNAVAIL;
		break;
	case CURLE_OUT_OF_MEMORY:
		code = BH_ENOMEM;
		break;
	default:
		code = BH_EINVAL;
	}
	return bh_error_set(err, code, "%s %s: %s", req->method, req->path,
	                    errbuf[0] ? errbuf : curl_easy_strerror(cc));
}

/* The last line of defence against header injection, whoever built the
 * request (a kubeconfig decoder refuses such values already, as kubectl
 * does): no header line, credential, method or path holding CR, LF or another
 * control character reaches libcurl. NUL cannot be inside a C string: the
 * decoders refuse values that would be cut by one. skip is a line of hl
 * checked already (the bearer token's, when built: auth_line). */
static int check_clean(const struct curl_tr *t, const kube_request *req, const struct curl_slist *hl,
                       const struct curl_slist *skip, bh_error *err)
{
	const char *bad = NULL;
	for (const struct curl_slist *e = hl; e && !bad; e = e->next)
		if (e != skip && kube_has_ctl(e->data))
			bad = e->data;
	if (bad) {
		size_t n = strcspn(bad, ":\r\n");
		return bh_error_set(err, BH_EINVAL, "%s %.300s: header %.*s holds a CR, LF or other control character; not sent",
		                    req->method, req->path, (int)(n < 64 ? n : 64), bad);
	}
	if ((t->cfg->username && kube_has_ctl(t->cfg->username)) || (t->cfg->password && kube_has_ctl(t->cfg->password)))
		return bh_error_set(err, BH_EINVAL, "%s %.300s: the basic-auth credentials hold a control character; not sent",
		                    req->method, req->path);
	if (kube_has_ctl(t->base) || (t->cfg->proxy_url && kube_has_ctl(t->cfg->proxy_url)))
		return bh_error_set(err, BH_EINVAL, "the server or proxy URL holds a control character; not sent");
	if (kube_has_ctl(req->method) || kube_has_ctl(req->path) || strchr(req->method, ' ') || strchr(req->path, ' '))
		return bh_error_set(err, BH_EINVAL, "request method or path holds a space or control character; not sent");
	return 0;
}

#define AUTH_PREFIX "Authorization: Bearer "

/* t's Authorization line for token (t's, borrowed; NULL: out of memory):
 * the one built for the last request when the token is the same (a token
 * of a kilobyte or two, copied and scanned for control characters once,
 * not per request), a new one otherwise. *clean: checked, no control
 * character (check_clean need not scan it again). */
static const char *auth_line(struct curl_tr *t, const char *token, int *clean)
{
	size_t k = sizeof AUTH_PREFIX - 1, n;
	char *l;
	if (!t->auth || strcmp(t->auth + k, token)) {
		free(t->auth);
		n = strlen(token);
		if (!(t->auth = l = malloc(k + n + 1)))
			return NULL;
		memcpy(l, AUTH_PREFIX, k);
		memcpy(l + k, token, n + 1);
		t->auth_clean = !kube_has_ctl(token);
	}
	*clean = t->auth_clean;
	return t->auth;
}

/* hl with the header line "name: value" (value NULL: "name" alone) appended;
 * line is scratch room. Pieces copied, not formatted: the lines of every
 * request are built here. */
static struct curl_slist *add_header(struct curl_slist *hl, bh_buf *line, const char *name, const char *value)
{
	bh_buf_reset(line);
	bh_buf_puts(line, name);
	if (value) {
		bh_buf_put(line, ": ", 2);
		bh_buf_puts(line, value);
	}
	return bh_buf_ok(line) ? curl_slist_append(hl, bh_buf_str(line)) : NULL;
}

/* Strict (tenant) configurations: a name that resolves to a forbidden
 * address (kube/addr.h) is refused when the socket would be opened. */
static curl_socket_t open_socket(void *ud, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct xfer *x = ud;
	(void)purpose;
	if ((x->forbidden = kube_addr_forbidden(&a->addr, a->addrlen)))
		return CURL_SOCKET_BAD;
	return socket(a->family, a->socktype, a->protocol);
}

/* One request in flight on t's handle: what perform sets up and clears. */
struct call {
	struct xfer x;
	const kube_request *req;
	struct curl_slist *hl;
	bh_buf url;
	char errbuf[CURL_ERROR_SIZE];
};

/* The client certificate and CA as t's handle has them (kube/curl_tls.c's
 * identity when they are its bytes, else blobs): set again only when
 * an exec plugin's refresh replaced them (libcurl reads a NOCOPY blob through
 * its pointer, so an unchanged pointer and length need no new setopt). */
static void set_credentials(struct curl_tr *t)
{
	CURL *h = t->h;
	const kube_config *c = t->cfg;
	kube_curl_tls_fn id = atomic_load(&tls_hook);
	if (c->ca_pem == t->set_ca && c->ca_len == t->set_ca_len && c->cert_pem == t->set_cert &&
	    c->cert_len == t->set_cert_len && c->key_pem == t->set_key && c->key_len == t->set_key_len)
		return;
	t->set_ca = c->ca_pem;
	t->set_ca_len = c->ca_len;
	t->set_cert = c->cert_pem;
	t->set_cert_len = c->cert_len;
	t->set_key = c->key_pem;
	t->set_key_len = c->key_len;
	if (id && id(h, c)) {
		t->tls_id = 1;
		return;
	}
	if (t->tls_id) { /* not the identity any more (an exec plugin's new credentials) */
		curl_easy_setopt(h, CURLOPT_SSL_CTX_FUNCTION, (curl_ssl_ctx_callback)NULL);
		curl_easy_setopt(h, CURLOPT_CAINFO, default_cainfo);
		curl_easy_setopt(h, CURLOPT_CAPATH, default_capath);
		curl_easy_setopt(h, CURLOPT_SHARE, tls_share);
		t->tls_id = 0;
	}
	struct curl_blob b = {c->ca_pem, c->ca_len, CURL_BLOB_NOCOPY};
	struct curl_blob cb = {c->cert_pem, c->cert_len, CURL_BLOB_NOCOPY};
	struct curl_blob kb = {c->key_pem, c->key_len, CURL_BLOB_NOCOPY};
	curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, c->ca_pem ? &b : NULL);
	/* none now: none kept from an earlier credential */
	curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, c->cert_pem ? &cb : NULL);
	curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, c->cert_pem ? &kb : NULL);
	if (c->cert_pem) {
		curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
		curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
	}
}

/* Sets req up on t's handle (c holds what the call needs until call_clear). */
static int call_setup(struct curl_tr *t, struct call *c, const kube_request *req, kube_response *resp,
                      kube_stream_fn on_data, void *ud, bh_error *err)
{
	CURL *h = t->h;
	bh_buf line = BH_BUF_INIT;
	int rc;

	memset(c, 0, sizeof *c);
	c->x = (struct xfer){.resp = resp, .h = h, .on_data = on_data, .ud = ud, .sent_body = req->body_len > 0};
	c->req = req;
	bh_buf_puts(&c->url, t->base);
	bh_buf_puts(&c->url, req->path);
	if ((rc = kube_config_refresh_for(t->cfg, req->method, req->path, err)) < 0)
		return rc;
	const char *token = t->cfg->token;
	const char *auth = NULL;
	struct curl_slist *auth_node = NULL;
	int clean = 0, oom;
	oom = token && !(auth = auth_line(t, token, &clean));
	/* a failed append leaves hl as it was (NULL for the first): oom says so */
	c->hl = oom ? NULL : add_header(NULL, &line, "Accept", req->accept ? req->accept : "application/json");
	oom |= !c->hl;
	if (!oom && req->content_type)
		oom |= !add_header(c->hl, &line, "Content-Type", req->content_type);
	if (!oom && auth) {
		oom |= !curl_slist_append(c->hl, auth);
		if (!oom && clean) /* the last line: checked when auth_line built it */
			for (auth_node = c->hl; auth_node->next; auth_node = auth_node->next)
				;
	}
	if (!oom && t->host_hdr)
		oom |= !add_header(c->hl, &line, t->host_hdr, NULL);
	if (!oom)
		oom |= !add_header(c->hl, &line, "Expect:", NULL);
	for (size_t i = 0; !oom && req->headers && req->headers[i]; i++)
		oom |= !add_header(c->hl, &line, req->headers[i], NULL);
	rc = oom || !bh_buf_ok(&c->url);
	bh_buf_free(&line);
	if (rc)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	if ((rc = check_clean(t, req, c->hl, auth_node, err)) < 0)
		return rc;
	/* the options every request shares were set once (set_fixed); these
	 * are this request's, each set every time so none carries over */
	curl_easy_setopt(h, CURLOPT_URL, c->url.data);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, c->hl);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->errbuf);
	long tmo = req->timeout_ms > 0 ? req->timeout_ms : on_data ? 0 : KUBE_CURL_DEFAULT_TIMEOUT_MS;
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, tmo);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, &c->x);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &c->x);
	curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, &c->x);
	/* a stream's idle tick (on_tick); none for a plain request */
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, on_data ? 0L : 1L);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, on_data ? (void *)&c->x : NULL);
	set_credentials(t);
	/* the method: from GET with no body (what a reset left), then this one's */
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, (char *)NULL);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)-1);
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, (char *)NULL);
	curl_easy_setopt(h, CURLOPT_NOBODY, 0L);
	curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	const char *m = req->method;
	if (!strcmp(m, "GET")) {
		/* as set above */
	} else if (!strcmp(m, "HEAD")) {
		curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
	} else {
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, m);
		if (req->body || !strcmp(m, "POST") || !strcmp(m, "PUT") || !strcmp(m, "PATCH")) {
			curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
			curl_easy_setopt(h, CURLOPT_POSTFIELDS, req->body ? req->body : "");
		}
	}
	return 0;
}

/* The outcome of c's transfer, which ended with cc (or was stopped). */
static int call_finish(struct curl_tr *t, struct call *c, CURLcode cc, bh_error *err)
{
	const kube_request *req = c->req;
	long code = 0;
	curl_easy_getinfo(t->h, CURLINFO_RESPONSE_CODE, &code);
	c->x.resp->status = code;
	if (code == 401 && t->cfg->exec_argv)
		kube_config_invalidate(t->cfg); /* the plugin runs again next time */
	if (c->x.stopped)
		return 0;
	if (cc != CURLE_OK && c->x.forbidden)
		return bh_error_set(err, BH_EDENIED, "%s %s: the server's address is %s; not allowed in tenant kubeconfigs",
		                    req->method, req->path, c->x.forbidden);
	if (c->x.too_big)
		return bh_error_set(err, BH_ELIMIT, "%s %s: response larger than %u bytes", req->method, req->path, MAX_BODY);
	if (!bh_buf_ok(&c->x.resp->body))
		return bh_error_set(err, BH_ENOMEM, "out of memory reading response");
	if (cc != CURLE_OK)
		return map_curl_error(cc, c->errbuf, req, err);
	return 0;
}

/* Nothing of c (a call's stack or headers) stays with t's handle. */
static void call_clear(struct curl_tr *t, struct call *c)
{
	CURL *h = t->h;
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, (struct curl_slist *)NULL);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, (char *)NULL);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, (void *)NULL);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, (void *)NULL);
	curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, (void *)NULL);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, (void *)NULL);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 1L);
	curl_easy_setopt(h, CURLOPT_FORBID_REUSE, 0L);
	curl_slist_free_all(c->hl);
	c->hl = NULL;
	bh_buf_free(&c->url);
}

static int perform(struct curl_tr *t, const kube_request *req, kube_response *resp, kube_stream_fn on_data,
                   void *ud, bh_error *err)
{
	struct call c;
	int rc = call_setup(t, &c, req, resp, on_data, ud, err);
	if (rc == 0)
		rc = call_finish(t, &c, curl_easy_perform(t->h), err);
	call_clear(t, &c);
	return rc;
}

static const kube_transport_ops curl_ops;

CURL *kube_curl_start(kube_transport *tr, const kube_request *req, kube_response *resp, kube_stream_fn on_data,
                      void *ud, bh_error *err)
{
	struct curl_tr *t = tr->impl;
	if (tr->ops != &curl_ops || t->live) {
		bh_error_set(err, BH_EINVAL, "%s %s: not an idle libcurl transport", req->method, req->path);
		return NULL;
	}
	if (!(t->live = malloc(sizeof *t->live))) {
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	if (call_setup(t, t->live, req, resp, on_data, ud, err) < 0) {
		call_clear(t, t->live);
		free(t->live);
		t->live = NULL;
		return NULL;
	}
	return t->h;
}

CURL *kube_curl_handle(kube_transport *tr)
{
	return ((struct curl_tr *)tr->impl)->h;
}

int kube_curl_end(kube_transport *tr, CURLcode cc, int stop, bh_error *err)
{
	struct curl_tr *t = tr->impl;
	int rc;
	if (stop)
		t->live->x.stopped = 1;
	rc = call_finish(t, t->live, cc, err);
	call_clear(t, t->live);
	free(t->live);
	t->live = NULL;
	return rc;
}

static int tr_request(void *impl, const kube_request *req, kube_response *resp, bh_error *err)
{
	return perform(impl, req, resp, NULL, NULL, err);
}

static int tr_stream(void *impl, const kube_request *req, kube_response *resp, kube_stream_fn on_data, void *ud,
                     bh_error *err)
{
	return perform(impl, req, resp, on_data, ud, err);
}

static void tr_free(void *impl)
{
	struct curl_tr *t = impl;
	if (!t)
		return;
	if (t->live) { /* a stream still on a multi handle: its owner removed the handle first */
		call_clear(t, t->live);
		free(t->live);
	}
	if (t->h)
		curl_easy_cleanup(t->h);
	kube_config_free(t->cfg);
	curl_slist_free_all(t->ct);
	free(t->base);
	free(t->connect_to);
	free(t->host_hdr);
	free(t->auth);
	free(t);
}

static const kube_transport_ops curl_ops = {tr_request, tr_stream, tr_free};

/* The first of names set to a non-empty value in the environment (borrowed
 * from it), or "": libcurl's curl_getenv counts an empty variable as unset. */
static const char *env_first(const char *const *names)
{
	for (; *names; names++) {
		const char *v = getenv(*names);
		if (v && *v)
			return v;
	}
	return "";
}

const char *kube_curl_env_proxy(int https)
{
	/* no HTTP_PROXY: libcurl leaves it out (a CGI's "Proxy:" header) */
	static const char *const http[] = {"http_proxy", "all_proxy", "ALL_PROXY", NULL};
	static const char *const tls[] = {"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", NULL};
	return env_first(https ? tls : http);
}

const char *kube_curl_env_noproxy(void)
{
	static const char *const names[] = {"no_proxy", "NO_PROXY", NULL};
	return env_first(names);
}

/* The proxy and the hosts that bypass it, set explicitly: without them
 * libcurl reads no_proxy, NO_PROXY and the proxy variables of the URL's
 * scheme from the environment for every transfer. The same choice as
 * libcurl's own, made once per transport: the configuration's proxy-url,
 * else the environment's ("" for none: libcurl then reads no variable);
 * no_proxy applies to either, as it does in libcurl. A server URL of
 * another scheme (none passes kube/config's decoder) is left to libcurl. */
static void set_proxy(struct curl_tr *t)
{
	CURL *h = t->h;
	const char *b = t->base;
	int https = !strncasecmp(b, "https:", 6);
	curl_easy_setopt(h, CURLOPT_NOPROXY, kube_curl_env_noproxy());
	if (t->cfg->proxy_url)
		curl_easy_setopt(h, CURLOPT_PROXY, t->cfg->proxy_url);
	else if (https || !strncasecmp(b, "http:", 5))
		curl_easy_setopt(h, CURLOPT_PROXY, kube_curl_env_proxy(https));
}

/* The options every request of t shares, set once on its handle (a
 * curl_easy_reset per request redid them all); perform sets the rest. */
static int set_fixed(struct curl_tr *t, bh_error *err)
{
	CURL *h = t->h;
	curl_easy_setopt(h, CURLOPT_USERAGENT, "bulkhead/" PACKAGE_VERSION);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	/* over HTTPS (an API server offers h2 by ALPN), a transfer of a multi
	 * handle that starts while a connection is being made waits for it and
	 * becomes one more stream on it, instead of a TLS handshake of its own.
	 * Not over plain HTTP: there libcurl learns that a connection does not
	 * multiplex only from its first answer, and a transfer would wait
	 * behind a long one (a watch) */
	curl_easy_setopt(h, CURLOPT_PIPEWAIT, (long)(t->cfg->server && !strncasecmp(t->cfg->server, "https:", 6)));
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)KUBE_CURL_CONNECT_TIMEOUT_MS);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_tick);
	if (tls_share)
		curl_easy_setopt(h, CURLOPT_SHARE, tls_share);
	if (t->connect_to) {
		if (!(t->ct = curl_slist_append(NULL, t->connect_to)))
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		curl_easy_setopt(h, CURLOPT_CONNECT_TO, t->ct);
	}
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, t->cfg->insecure ? 0L : 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, t->cfg->insecure ? 0L : 2L);
	if (t->cfg->username) {
		curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(h, CURLOPT_USERNAME, t->cfg->username);
		curl_easy_setopt(h, CURLOPT_PASSWORD, t->cfg->password ? t->cfg->password : "");
	}
	set_proxy(t);
	if (t->cfg->strict)
		curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, open_socket);
	return 0;
}

/* With tls-server-name: send to https://NAME:PORT/prefix and connect to the
 * real host, keeping the real Host header (as Go's ServerName does). */
static int setup_server_name(struct curl_tr *t, bh_error *err)
{
	const char *srv = t->cfg->server;
	int https = !strncmp(srv, "https://", 8);
	const char *auth = srv + (https ? 8 : 7);
	const char *slash = strchr(auth, '/');
	size_t alen = slash ? (size_t)(slash - auth) : strlen(auth);
	const char *prefix = slash ? slash : "";
	/* split host and port (IPv6 in brackets) */
	const char *portp = NULL;
	size_t hlen = alen;
	if (auth[0] == '[') {
		const char *rb = memchr(auth, ']', alen);
		if (!rb)
			return bh_error_set(err, BH_EINVAL, "server \"%s\": bad IPv6 address", srv);
		if ((size_t)(rb - auth) + 1 < alen && rb[1] == ':')
			portp = rb + 2;
		hlen = (size_t)(rb - auth) + 1;
	} else {
		const char *colon = memchr(auth, ':', alen);
		if (colon) {
			portp = colon + 1;
			hlen = (size_t)(colon - auth);
		}
	}
	char port[16];
	if (portp)
		snprintf(port, sizeof port, "%.*s", (int)(auth + alen - portp), portp);
	else
		snprintf(port, sizeof port, "%s", https ? "443" : "80");
	bh_buf b = BH_BUF_INIT;
	bh_buf_printf(&b, "%s://%s:%s%s", https ? "https" : "http", t->cfg->tls_server_name, port, prefix);
	t->base = bh_buf_detach(&b);
	/* CONNECT_TO takes an IPv6 address in brackets, as the URL has it */
	bh_buf_printf(&b, "%s:%s:%.*s:%s", t->cfg->tls_server_name, port, (int)hlen, auth, port);
	t->connect_to = bh_buf_detach(&b);
	bh_buf_printf(&b, "Host: %.*s", (int)alen, auth);
	t->host_hdr = bh_buf_detach(&b);
	if (!t->base || !t->connect_to || !t->host_hdr)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	return 0;
}

kube_transport *kube_curl_transport_new(const kube_config *cfg, bh_error *err)
{
	pthread_once(&curl_once, curl_init);
	if (curl_init_rc != CURLE_OK) {
		bh_error_set(err, BH_EIO, "curl_global_init failed: %s", curl_easy_strerror(curl_init_rc));
		return NULL;
	}
	if (!cfg || !cfg->server) {
		bh_error_set(err, BH_EINVAL, "kube transport: configuration has no server");
		return NULL;
	}
	struct curl_tr *t = calloc(1, sizeof *t);
	if (!t) {
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	t->cfg = kube_config_dup(cfg, err);
	if (!t->cfg) {
		tr_free(t);
		return NULL;
	}
	t->h = curl_easy_init();
	if (!t->h) {
		tr_free(t);
		bh_error_set(err, BH_ENOMEM, "curl_easy_init failed");
		return NULL;
	}
	if (cfg->tls_server_name) {
		if (setup_server_name(t, err)) {
			tr_free(t);
			return NULL;
		}
	} else {
		t->base = strdup(cfg->server);
		if (!t->base) {
			tr_free(t);
			bh_error_set(err, BH_ENOMEM, "out of memory");
			return NULL;
		}
	}
	if (set_fixed(t, err)) {
		tr_free(t);
		return NULL;
	}
	kube_transport *tr = kube_transport_new(&curl_ops, t);
	if (!tr) {
		tr_free(t);
		bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	return tr;
}

kube_client *kube_curl_client_new(const kube_config *cfg, bh_error *err)
{
	kube_transport *t = kube_curl_transport_new(cfg, err);
	if (!t)
		return NULL;
	return kube_client_new(t, err);
}
