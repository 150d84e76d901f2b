/* supervisor/fetchcl.c — see fetchcl.h. */
#include "supervisor/fetchcl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "proto/proto.h"
#include "sandbox/sandbox.h"
#include "supervisor/spawn.h"

#define SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

char *fetchcl_default_path(void)
{
	char self[PATH_MAX], *slash, *p = NULL;
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/'))) {
			*slash = '\0';
			if (asprintf(&p, "%s/../fetcher/bulkhead-fetcher", self) > 0 && access(p, X_OK) == 0)
				return p;
			free(p);
			if (asprintf(&p, "%s/../libexec/bulkhead-fetcher", self) > 0 && access(p, X_OK) == 0)
				return p;
			free(p);
		}
	}
	return strdup("/usr/libexec/bulkhead-fetcher");
}

/* Checks the fd the fetcher passed: a sealed regular file within max bytes
 * whose sha256 is digest; returns a fresh read-only fd of it. */
static int verify_fd(int fd, const char *digest, size_t max, int *out, bh_error *err)
{
	struct stat st;
	unsigned char buf[65536], d[32];
	unsigned int dl = 0;
	char hex[72], path[64];
	EVP_MD_CTX *ctx;
	off_t off = 0;
	int seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & SEALS) != SEALS || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return bh_error_set(err, BH_EPROTO, "the fetcher passed an artifact that is not a sealed memfd");
	if ((size_t)st.st_size > max)
		return bh_error_set(err, BH_ELIMIT, "the fetcher passed an artifact of %lld bytes, limit %zu",
				    (long long)st.st_size, max);
	if (!(ctx = EVP_MD_CTX_new()) || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(ctx);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	for (;;) {
		ssize_t r = pread(fd, buf, sizeof buf, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		EVP_DigestUpdate(ctx, buf, (size_t)r);
		off += r;
	}
	EVP_DigestFinal_ex(ctx, d, &dl);
	EVP_MD_CTX_free(ctx);
	memcpy(hex, "sha256:", 7);
	for (unsigned i = 0; i < 32; i++)
		snprintf(hex + 7 + 2 * i, 3, "%02x", d[i]);
	if (off != st.st_size || strcmp(hex, digest) != 0)
		return bh_error_set(err, BH_EPROTO, "the fetcher's artifact has digest %s, not the %s it claimed", hex, digest);
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if ((*out = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return bh_error_set(err, BH_EIO, "reopening the artifact read-only: %s", strerror(errno));
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits for one whole frame until deadline (its payload is rd's). */
static int recv_frame(ipc_reader *rd, int sock, double deadline, ipc_msg *m, bh_error *err)
{
	int rc;
	for (;;) {
		struct pollfd p = {sock, POLLIN, 0};
		double left = deadline - now_s();
		if (left <= 0) {
			rc = bh_error_set(err, BH_ETIMEOUT, "the fetcher did not answer in time and was killed");
			break;
		}
		if (poll(&p, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR) {
			rc = bh_error_set(err, BH_EIO, "poll: %s", strerror(errno));
			break;
		}
		rc = ipc_reader_read(rd, sock, m, err);
		if (rc == IPC_MSG) {
			rc = 0;
			break;
		}
		if (rc == IPC_EOF) {
			rc = bh_error_set(err, BH_EPROTO, "the fetcher exited without an answer");
			break;
		}
		if (rc < 0)
			break;
	}
	return rc;
}

int fetchcl_run(const fetchcl_opts *o, const proto_fetch_request *rq, proto_fetch_result *res, int *fd,
		bh_error *err)
{
	char mem[32], cpu[32];
	char *argv[12];
	int argc = 0, sock = -1, pidfd, rc;
	pid_t pid;
	bh_buf req = BH_BUF_INIT;
	ipc_msg m = {{0}, NULL, -1, NULL};
	ipc_reader rd;
	double deadline = now_s() + (rq->timeout_ms > 0 ? (double)rq->timeout_ms / 1000 : 60) + 10;
	size_t max = rq->op == FETCH_OP_INDEX ? (size_t)(rq->max_index ? rq->max_index : 50 << 20)
					      : (size_t)(rq->max_chart ? rq->max_chart : 10 << 20);
	*fd = -1;
	memset(res, 0, sizeof *res);
	snprintf(mem, sizeof mem, "%lu", o->memory_mb ? o->memory_mb : 2048);
	snprintf(cpu, sizeof cpu, "%lu", o->cpu_seconds ? o->cpu_seconds : 120);
	argv[argc++] = "bulkhead-fetcher";
	argv[argc++] = "--fd", argv[argc++] = "3";
	argv[argc++] = "--memory-mb", argv[argc++] = mem;
	argv[argc++] = "--cpu-seconds", argv[argc++] = cpu;
	if (o->deny)
		argv[argc++] = "--deny", argv[argc++] = (char *)o->deny;
	argv[argc++] = "--source", argv[argc++] = (char *)(o->label ? o->label : "-");
	argv[argc] = NULL;
	if ((rc = proto_fetch_request_encode(rq, &req, err)) < 0)
		return rc;
	if ((rc = spawn_exec(o->path, o->path_fd, argv, &pid, &sock, err)) < 0) {
		bh_buf_free(&req);
		return bh_error_prefix(err, "starting the fetcher");
	}
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	rc = ipc_send(sock, PROTO_FETCH, 0, req.data, req.len, -1, err);
	explicit_bzero(req.data, req.len);
	bh_buf_free(&req);
	/* the socket blocks (spawn_exec's socketpair): ipc_send writes it whole;
	 * the reader asks MSG_DONTWAIT, after recv_frame's poll */
	ipc_reader_init(&rd, PROTO_MAX_FETCH_RESULT, 1);
	if (rc == 0)
		rc = recv_frame(&rd, sock, deadline, &m, err);
	if (rc == 0 && m.hdr.type == PROTO_SECCOMP) {
		uint32_t nr, arch;
		char name[64];
		if (proto_seccomp_decode(m.payload, m.hdr.len, &nr, &arch, err) == 0)
			rc = bh_error_set(err, BH_EDENIED, "the fetcher was killed by seccomp: forbidden system call %s (%u)",
					  sandbox_syscall_name(nr, arch, name, sizeof name), nr);
		else
			rc = err->code;
	} else if (rc == 0 && m.hdr.type != PROTO_FETCH_RESULT) {
		rc = bh_error_set(err, BH_EPROTO, "the fetcher sent %s instead of FETCH_RESULT", proto_type_name(m.hdr.type));
	} else if (rc == 0 && (rc = proto_fetch_result_decode(m.payload, m.hdr.len, res, err)) < 0) {
		bh_error_prefix(err, "the fetcher broke the protocol");
	} else if (rc == 0 && res->ok && !res->unchanged) {
		if (m.fd < 0)
			rc = bh_error_set(err, BH_EPROTO, "the fetcher reported an artifact but passed no fd");
		else
			rc = verify_fd(m.fd, res->digest, max, fd, err);
	} else if (rc == 0 && m.fd >= 0) {
		rc = bh_error_set(err, BH_EPROTO, "the fetcher passed an fd with a failure");
	}
	if (rc < 0)
		proto_fetch_result_free(res);
	ipc_msg_free(&m);
	ipc_reader_free(&rd);
	close(sock);
	if (pidfd >= 0) { /* by pidfd: the pid may have been reaped by the main loop and reused */
		siginfo_t si;
		syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
		waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED); /* ECHILD when the main loop reaped it */
		close(pidfd);
	}
	return rc;
}
