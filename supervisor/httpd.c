/* supervisor/httpd.c — see httpd.h. */
#include "supervisor/httpd.h"

#include <microhttpd.h>
#include <netdb.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "supervisor/metrics.h"

#define HTTPD_MAX_CONNECTIONS 32u
#define HTTPD_MAX_PER_IP 8u
#define HTTPD_IDLE_SECONDS 10u
#define HTTPD_CONN_MEMORY ((size_t)16384)

struct httpd {
	struct MHD_Daemon *d;
	unsigned roles;
	unsigned port;
};

static atomic_int ready;
static atomic_llong heartbeat;

static long long mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec;
}

void httpd_set_ready(int r)
{
	atomic_store(&ready, r);
}

void httpd_heartbeat(void)
{
	atomic_store(&heartbeat, mono_s());
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *type, char *body, size_t len,
			     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result rc;
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	rc = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return rc;
}

#define TEXT "text/plain; charset=utf-8"

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_len, void **state)
{
	const httpd *h = cls;
	static int first;
	(void)version;
	(void)upload;
	if (!*state) { /* headers only so far: answer when the request is complete */
		*state = &first;
		return MHD_YES;
	}
	if (*upload_len) { /* a body: not ours to read */
		*upload_len = 0;
		return MHD_YES;
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, TEXT, "method not allowed\n", 19, MHD_RESPMEM_PERSISTENT);
	if ((h->roles & HTTPD_METRICS) && !strcmp(url, "/metrics")) {
		size_t len;
		char *text = metrics_render_new(&len);
		if (!text)
			return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, TEXT, "out of memory\n", 14,
				     MHD_RESPMEM_PERSISTENT);
		return reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", text, len,
			     MHD_RESPMEM_MUST_FREE);
	}
	if ((h->roles & HTTPD_HEALTH) && !strcmp(url, "/healthz")) {
		if (mono_s() - atomic_load(&heartbeat) > HTTPD_STALL_SECONDS)
			return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, TEXT, "main loop stalled\n", 18,
				     MHD_RESPMEM_PERSISTENT);
		return reply(c, MHD_HTTP_OK, TEXT, "ok\n", 3, MHD_RESPMEM_PERSISTENT);
	}
	if ((h->roles & HTTPD_HEALTH) && !strcmp(url, "/readyz")) {
		if (!atomic_load(&ready))
			return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, TEXT, "not ready: caches not synced\n", 29,
				     MHD_RESPMEM_PERSISTENT);
		return reply(c, MHD_HTTP_OK, TEXT, "ok\n", 3, MHD_RESPMEM_PERSISTENT);
	}
	return reply(c, MHD_HTTP_NOT_FOUND, TEXT, "not found\n", 10, MHD_RESPMEM_PERSISTENT);
}

/* Splits "HOST:PORT" / "[V6]:PORT" / ":PORT" into host (maybe "") and port. */
static int split_addr(const char *addr, char *host, size_t hn, char *port, size_t pn, bh_error *err)
{
	const char *colon;
	size_t hl;
	if (addr[0] == '[') {
		const char *end = strchr(addr, ']');
		if (!end || end[1] != ':')
			return bh_error_set(err, BH_EINVAL, "address %s: expected [IPV6]:PORT", addr);
		hl = (size_t)(end - addr - 1);
		addr++;
		colon = end + 1;
	} else {
		if (!(colon = strrchr(addr, ':')))
			return bh_error_set(err, BH_EINVAL, "address %s: expected HOST:PORT or :PORT", addr);
		hl = (size_t)(colon - addr);
	}
	if (hl >= hn || strlen(colon + 1) >= pn || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
	    atol(colon + 1) > 65535)
		return bh_error_set(err, BH_EINVAL, "address %s: invalid host or port", addr);
	memcpy(host, addr, hl);
	host[hl] = '\0';
	snprintf(port, pn, "%s", colon + 1);
	return 0;
}

httpd *httpd_start(const char *addr, unsigned roles, bh_error *err)
{
	char host[256], port[8];
	struct addrinfo hints, *ai = NULL;
	httpd *h;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
	const union MHD_DaemonInfo *info;
	if (split_addr(addr, host, sizeof host, port, sizeof port, err) < 0)
		return NULL;
	if (!(h = calloc(1, sizeof *h))) {
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	h->roles = roles;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if (host[0]) {
		int rc = getaddrinfo(host, port, &hints, &ai);
		if (rc != 0) {
			bh_error_set(err, BH_EINVAL, "address %s: %s", addr, gai_strerror(rc));
			free(h);
			return NULL;
		}
		h->d = MHD_start_daemon(flags | (ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0), (uint16_t)atoi(port), NULL,
					NULL, handle, h, MHD_OPTION_SOCK_ADDR, ai->ai_addr, MHD_OPTION_CONNECTION_LIMIT,
					HTTPD_MAX_CONNECTIONS, MHD_OPTION_PER_IP_CONNECTION_LIMIT, HTTPD_MAX_PER_IP,
					MHD_OPTION_CONNECTION_TIMEOUT, HTTPD_IDLE_SECONDS, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
					HTTPD_CONN_MEMORY, MHD_OPTION_END);
		freeaddrinfo(ai);
	} else {
		/* every address: IPv6 with IPv4 mapped, or IPv4 alone where IPv6 is off */
		for (int v6 = 1; v6 >= 0 && !h->d; v6--)
			h->d = MHD_start_daemon(flags | (v6 ? MHD_USE_DUAL_STACK : 0), (uint16_t)atoi(port), NULL, NULL,
						handle, h, MHD_OPTION_CONNECTION_LIMIT, HTTPD_MAX_CONNECTIONS,
						MHD_OPTION_PER_IP_CONNECTION_LIMIT, HTTPD_MAX_PER_IP,
						MHD_OPTION_CONNECTION_TIMEOUT, HTTPD_IDLE_SECONDS,
						MHD_OPTION_CONNECTION_MEMORY_LIMIT, HTTPD_CONN_MEMORY, MHD_OPTION_END);
	}
	if (!h->d) {
		bh_error_set(err, BH_EIO, "cannot listen on %s (address in use or not available)", addr);
		free(h);
		return NULL;
	}
	info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : (unsigned)atoi(port);
	httpd_heartbeat();
	return h;
}

unsigned httpd_port(const httpd *h)
{
	return h->port;
}

void httpd_stop(httpd *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	free(h);
}
