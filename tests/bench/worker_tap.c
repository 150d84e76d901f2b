/* tests/bench/worker_tap.c — sits between bulkheadd and one worker and
 * records their conversation (tests/bench/ipcrec.h) for worker_replay.
 *
 * usage: worker_tap OUT WORKER [ARGS...]
 * Run by bulkheadd in the worker's place (a --worker-path script that execs
 * it; see bench_worker.sh), with bulkheadd's socket as fd 3. It starts
 * WORKER with ARGS on a socketpair of its own as fd 3 and passes every frame
 * on, each way, appending it to OUT. Only the first worker given a job
 * (--job) records: when OUT exists already, or ARGS have no --job, the tap
 * execs WORKER in its own place. A bench tool:
 * the worker runs locked down as always, the tap itself is not. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "tests/bench/ipcrec.h"

extern char **environ;

/* The bytes of the passed file (a regular file or memfd), from its start:
 * pread, so its offset stays where the worker expects it. */
static unsigned char *file_bytes(int fd, size_t *len)
{
	struct stat st;
	unsigned char *p;
	size_t n = 0;
	if (fstat(fd, &st) < 0 || !(p = malloc((size_t)st.st_size + 1)))
		return NULL;
	while (n < (size_t)st.st_size) {
		ssize_t r = pread(fd, p + n, (size_t)st.st_size - n, (off_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(p);
			return NULL;
		}
		n += (size_t)r;
	}
	*len = n;
	return p;
}

/* One frame from `from` to `to`, recorded; 1 when the conversation ended. */
static int pass(int from, int to, char dir, int out)
{
	ipc_msg m = {0};
	bh_error e = {0};
	unsigned char *file = NULL;
	size_t flen = 0;
	int rc = 0;
	if (ipc_recv(from, IPC_MAX_PAYLOAD, dir == IPCREC_TO_WORKER, &m, &e) < 0)
		return 1;
	if (m.fd >= 0 && !(file = file_bytes(m.fd, &flen)))
		fprintf(stderr, "worker_tap: could not read the passed file: %s\n", strerror(errno));
	if (ipcrec_append(out, dir, &m.hdr, m.payload, file, flen, &e) < 0)
		fprintf(stderr, "worker_tap: %s\n", e.msg);
	if (ipc_send(to, m.hdr.type, m.hdr.id, m.payload, m.hdr.len, m.fd, &e) < 0)
		rc = 1;
	free(file);
	ipc_msg_free(&m);
	return rc;
}

int main(int argc, char **argv)
{
	int out, sv[2], status;
	pid_t pid;
	if (argc < 3) {
		fprintf(stderr, "usage: worker_tap OUT WORKER [ARGS...] (bulkheadd's socket as fd 3)\n");
		return 2;
	}
	const char *worker = argv[2];
	int job = 0;
	for (int i = 3; i < argc; i++)
		job |= strcmp(argv[i], "--job") == 0;
	argv[2] = "bulkhead-worker"; /* the worker's argv: its name, then ARGS */
	/* bulkheadd runs the worker binary for more than jobs (a tenant's
	 * namespace holder, --hold-namespaces; --cpu-caps): those go as they are */
	if (!job || (out = open(argv[1], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0) {
		execve(worker, argv + 2, environ);
		return 127;
	}
	if (write(out, IPCREC_MAGIC, sizeof IPCREC_MAGIC - 1) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		perror("worker_tap");
		return 1;
	}
	if ((pid = fork()) < 0) {
		perror("worker_tap: fork");
		return 1;
	}
	if (pid == 0) {
		if (dup2(sv[1], 3) < 0)
			_exit(126);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		execve(worker, argv + 2, environ);
		_exit(127);
	}
	close(sv[1]);
	for (;;) {
		struct pollfd p[2] = {{3, POLLIN, 0}, {sv[0], POLLIN, 0}};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents && pass(3, sv[0], IPCREC_TO_WORKER, out))
			break;
		if (p[1].revents && pass(sv[0], 3, IPCREC_FROM_WORKER, out))
			break;
	}
	close(sv[0]);
	close(3);
	close(out);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		kill(getpid(), WTERMSIG(status));
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
