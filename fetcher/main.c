/* fetcher/main.c — bulkhead-fetcher: started by bulkheadd (fork + exec) for
 * one request, with its end of a socketpair as fd 3 and nothing else: no
 * Kubernetes credentials, an empty environment. It loads the system CA
 * bundle and resolves the addresses it must never connect to (the API
 * server's), locks itself down (lockdown.h), receives one PROTO_FETCH,
 * runs it (fetch.h) and answers with one PROTO_FETCH_RESULT carrying the
 * artifact as a sealed memfd, then exits.
 *
 * usage: bulkhead-fetcher [--fd N] [--deny HOST:PORT]... [--memory-mb N]
 *                         [--cpu-seconds N] [--source KIND/NS/NAME]
 * (--source only labels the process for operators) */
#include <curl/curl.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fetcher/fetch.h"
#include "fetcher/http.h"
#include "fetcher/lockdown.h"
#include "ipc/ipc.h"
#include "proto/fetch.h"
#include "proto/proto.h"

#define MAX_DENY 8

static int sealed_fd(const bh_buf *b)
{
	int fd = memfd_create("bulkhead-artifact", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	size_t off = 0;
	if (fd < 0)
		return -1;
	while (off < b->len) {
		ssize_t w = write(fd, b->data + off, b->len - off);
		if (w <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)w;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void *thread_noop(void *arg)
{
	return arg;
}

/* glibc installs its threads' signal handlers (rt_sigaction) at the first
 * pthread_create, and libcurl's resolver starts a thread for each host name
 * it looks up: one thread before the lock-down (which has no rt_sigaction),
 * else a source URL with a host name would kill the fetcher. */
static int threads_prepare(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, thread_noop, NULL) != 0)
		return -1;
	return pthread_join(t, NULL) == 0 ? 0 : -1;
}

static void answer(int sock, const proto_fetch_result *res, int fd)
{
	bh_buf b = BH_BUF_INIT;
	bh_error e;
	if (proto_fetch_result_encode(res, &b, &e) == 0)
		ipc_send(sock, PROTO_FETCH_RESULT, 0, b.data, b.len, fd, NULL);
	bh_buf_free(&b);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"fd", required_argument, NULL, 'f'}, {"deny", required_argument, NULL, 'd'},
		{"memory-mb", required_argument, NULL, 'm'}, {"cpu-seconds", required_argument, NULL, 'c'},
		{"source", required_argument, NULL, 's'}, {"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0},
	};
	const char *deny[MAX_DENY];
	size_t ndeny = 0;
	lockdown_opts lo_opts = {3, 2048ull << 20, 120};
	proto_fetch_request rq;
	proto_fetch_result res;
	bh_buf art = BH_BUF_INIT;
	ipc_msg m;
	bh_error e;
	int c, fd = -1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'f': lo_opts.sock = atoi(optarg); break;
		case 'd':
			if (ndeny < MAX_DENY)
				deny[ndeny++] = optarg;
			break;
		case 'm': lo_opts.as_bytes = strtoull(optarg, NULL, 10) << 20; break;
		case 'c': lo_opts.cpu_seconds = strtoul(optarg, NULL, 10); break;
		case 's': break;
		case 'V': printf("bulkhead-fetcher %s\n", PACKAGE_VERSION); return 0;
		case 'h':
			printf("usage: bulkhead-fetcher [--fd N] [--deny HOST:PORT]... [--memory-mb N] [--cpu-seconds N]\n"
			       "                        [--source KIND/NS/NAME]\n"
			       "Not for direct use: bulkheadd starts one fetcher per chart download, with its end of\n"
			       "a socketpair as fd N (default 3); the fetcher locks itself down, fetches one source\n"
			       "and exits. --source only labels the process for operators.\n");
			return 0;
		default: fprintf(stderr, "usage: bulkhead-fetcher [--fd N] [--deny HOST:PORT]...\n"); return 2;
		}
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || http_init(deny, ndeny, &e) < 0 || threads_prepare() < 0) {
		fprintf(stderr, "bulkhead-fetcher: initialisation failed\n");
		return 1;
	}
	if (lockdown_apply(&lo_opts, &e) < 0) {
		fprintf(stderr, "bulkhead-fetcher: lock-down failed: %s\n", e.msg);
		return 1;
	}
	if (ipc_recv(lo_opts.sock, PROTO_MAX_FETCH_REQUEST, 0, &m, &e) < 0)
		return 1;
	if (m.hdr.type != PROTO_FETCH || proto_fetch_request_decode(m.payload, m.hdr.len, &rq, &e) < 0) {
		ipc_msg_free(&m);
		return 1;
	}
	ipc_msg_free(&m);
	fetch_run(&rq, &res, &art);
	proto_fetch_request_free(&rq);
	if (res.ok && !res.unchanged && (fd = sealed_fd(&art)) < 0) {
		proto_fetch_result_free(&res);
		memset(&res, 0, sizeof res);
		res.reason = strdup("ArtifactFailed");
		res.message = strdup("the fetcher could not hand the artifact over (memfd)");
	}
	answer(lo_opts.sock, &res, fd);
	proto_fetch_result_free(&res);
	bh_buf_free(&art);
	return 0;
}
