/* tests/e2e/hostile_worker.c — a compromised worker, given to bulkheadd with
 * --worker-path by tests/e2e/skeleton_hostile.sh. It peeks at its job (so the
 * supervisor's frame stays unread) and, when the HelmRelease carries the
 * annotation bulkhead.dev/hostile, misbehaves that way:
 *   oversized  a frame header announcing 4 GiB
 *   garbage    bytes that are no frame at all
 *   fd         a frame carrying a file descriptor
 *   badresult  a RESULT that is not valid JSON
 *   foreign    GET requests for another namespace's Secrets
 *   impersonate requests carrying their own Impersonate-User/Authorization
 *   stall      half a frame, then silence
 *   flood      50 requests without waiting for answers
 * After foreign/impersonate it reports the statuses it got as its result.
 * Without the annotation it execs the real bulkhead-worker, which then reads
 * the job itself. */
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "proto/proto.h"

static json_t *peek_job(int sock)
{
	static unsigned char buf[1 << 20];
	for (int tries = 0; tries < 500; tries++) {
		ssize_t n = recv(sock, buf, sizeof buf, MSG_PEEK);
		ipc_hdr h;
		if (n >= IPC_HDR_SIZE && ipc_hdr_decode(buf, sizeof buf - IPC_HDR_SIZE, &h, NULL) == 0 &&
		    (size_t)n >= IPC_HDR_SIZE + h.len) {
			const unsigned char *s;
			size_t l;
			if (proto_str_decode(buf + IPC_HDR_SIZE, h.len, h.len, 0, &s, &l, NULL) < 0)
				return NULL;
			return json_loadb((const char *)s, l, 0, NULL);
		}
		poll(NULL, 0, 10);
	}
	return NULL;
}

static long request(int sock, uint32_t id, const char *method, const char *path, const proto_header *h, size_t nh,
		    char *msg, size_t msgn)
{
	bh_buf b = BH_BUF_INIT;
	ipc_msg m;
	uint32_t st = 0;
	const unsigned char *body;
	size_t bl;
	proto_kube_request_encode(&b, method, path, h, nh, "", 0);
	if (ipc_send(sock, PROTO_KUBE_REQUEST, id, b.data, b.len, -1, NULL) < 0)
		return -1;
	bh_buf_free(&b);
	for (;;) {
		if (ipc_recv(sock, IPC_MAX_PAYLOAD, 1, &m, NULL) < 0)
			return -1;
		if (m.hdr.type == PROTO_KUBE_RESPONSE && m.hdr.id == id)
			break;
		ipc_msg_free(&m);
	}
	if (proto_kube_response_decode(m.payload, m.hdr.len, &st, &body, &bl, NULL) == 0 && msg) {
		json_t *o = json_loadb((const char *)body, bl, 0, NULL);
		snprintf(msg, msgn, "%s", json_string_value(json_object_get(o, "message")) ? json_string_value(json_object_get(o, "message")) : "");
		json_decref(o);
	}
	ipc_msg_free(&m);
	return st;
}

static void result(int sock, const char *message)
{
	json_t *r = json_pack("{s:b,s:s,s:s}", "ready", 0, "reason", "HostileReport", "message", message);
	char *s = json_dumps(r, JSON_COMPACT);
	bh_buf b = BH_BUF_INIT;
	proto_str_encode(&b, s, strlen(s));
	ipc_send(sock, PROTO_RESULT, 0, b.data, b.len, -1, NULL);
	free(s);
	json_decref(r);
	bh_buf_free(&b);
}

int main(int argc, char **argv)
{
	int sock = 3;
	json_t *job = peek_job(sock);
	const char *mode = json_string_value(json_object_get(
		json_object_get(json_object_get(json_object_get(job, "helmRelease"), "metadata"), "annotations"),
		"bulkhead.dev/hostile"));
	unsigned char hb[IPC_HDR_SIZE];
	char report[4096], m1[1024] = "", m2[1024] = "";
	if (!mode) {
		char self[PATH_MAX], real[PATH_MAX + 64];
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n <= 0)
			return 90;
		self[n] = '\0';
		*strrchr(self, '/') = '\0';
		snprintf(real, sizeof real, "%s/../../worker/bulkhead-worker", self);
		execv(real, argv);
		return 91;
	}
	(void)argc;
	if (strcmp(mode, "oversized") == 0) {
		ipc_hdr h = {PROTO_KUBE_REQUEST, 0xFFFFFFFFu, 1, 0};
		ipc_hdr_encode(&h, hb);
		if (write(sock, hb, sizeof hb) < 0)
			return 1;
	} else if (strcmp(mode, "garbage") == 0) {
		static const char junk[] = "GET /api/v1/secrets HTTP/1.1\r\nHost: kubernetes\r\n\r\n\xff\xfe\x00\x01";
		if (write(sock, junk, sizeof junk) < 0)
			return 1;
	} else if (strcmp(mode, "fd") == 0) {
		bh_buf b = BH_BUF_INIT;
		proto_str_encode(&b, "hello", 5);
		ipc_send(sock, PROTO_LOG, 0, b.data, b.len, 1 /* stdout */, NULL);
	} else if (strcmp(mode, "badresult") == 0) {
		bh_buf b = BH_BUF_INIT;
		proto_str_encode(&b, "{\"ready\":true,", 14);
		ipc_send(sock, PROTO_RESULT, 0, b.data, b.len, -1, NULL);
	} else if (strcmp(mode, "foreign") == 0) {
		long a = request(sock, 1, "GET", "/api/v1/namespaces/team-victim/secrets", NULL, 0, m1, sizeof m1);
		long b = request(sock, 2, "GET", "/api/v1/namespaces/team-victim/secrets/db-password", NULL, 0, m2, sizeof m2);
		snprintf(report, sizeof report, "statuses %ld %ld: %s", a, b, m1);
		result(sock, report);
	} else if (strcmp(mode, "impersonate") == 0) {
		proto_header h1[] = {{"Impersonate-User", "system:admin"}};
		proto_header h2[] = {{"Authorization", "Bearer stolen"}};
		long a = request(sock, 1, "GET", "/api/v1/namespaces/team-x/configmaps", h1, 1, m1, sizeof m1);
		long b = request(sock, 2, "GET", "/api/v1/namespaces/team-x/configmaps", h2, 1, m2, sizeof m2);
		snprintf(report, sizeof report, "statuses %ld %ld: %s | %s", a, b, m1, m2);
		result(sock, report);
	} else if (strcmp(mode, "flood") == 0) {
		int ok = 0, throttled = 0, other = 0;
		for (uint32_t id = 1; id <= 50; id++) {
			bh_buf b = BH_BUF_INIT;
			proto_kube_request_encode(&b, "GET", "/api/v1/namespaces/team-x/configmaps", NULL, 0, "", 0);
			ipc_send(sock, PROTO_KUBE_REQUEST, id, b.data, b.len, -1, NULL);
			bh_buf_free(&b);
		}
		for (int got = 0; got < 50; got++) {
			ipc_msg m;
			uint32_t st = 0;
			const unsigned char *body;
			size_t bl;
			if (ipc_recv(sock, IPC_MAX_PAYLOAD, 1, &m, NULL) < 0)
				break;
			if (m.hdr.type != PROTO_KUBE_RESPONSE) { /* the job we only peeked at */
				ipc_msg_free(&m);
				got--;
				continue;
			}
			if (proto_kube_response_decode(m.payload, m.hdr.len, &st, &body, &bl, NULL) == 0) {
				if (st == 200)
					ok++;
				else if (st == 429)
					throttled++;
				else
					other++;
			}
			ipc_msg_free(&m);
		}
		snprintf(report, sizeof report, "flood: forwarded=%s throttled(429)=%s answered=%d", ok + other > 0 ? "some" : "none",
			 throttled > 0 ? "some" : "none", ok + other + throttled);
		result(sock, report);
	} else if (strcmp(mode, "stall") == 0) {
		ipc_hdr h = {PROTO_LOG, 100, 0, 0};
		ipc_hdr_encode(&h, hb);
		if (write(sock, hb, 10) < 0)
			return 1;
		for (;;)
			pause();
	}
	sleep(30); /* stay alive: the supervisor must act, not wait for our exit */
	return 0;
}
