/* tests/bench/bench_spawn.c — the cost of starting one sandboxed worker
 * (issue 14: exec + lock-down), measured through supervisor/spawn.c's API
 * as bulkheadd starts them.
 *
 * usage: bench_spawn WORKER N [RECORDING]
 *        bench_spawn --parts N
 *
 * The spawns go round-robin to BENCH_SPAWN_TENANTS tenants (default 10, as
 * bench_scale's; 0: none, each worker makes its own namespaces), so a
 * worker joins its tenant's namespaces as bulkheadd's do (spawn.h); each
 * tenant's holder is started before the timed spawns.
 *
 * For each of N spawns: the supervisor's thread CPU in spawn_worker()
 * (socketpair, vfork, the child's set-up up to exec: the child borrows the
 * parent's thread until execve); then the worker's own CPU from exec until
 * its lock-down is done, read from /proc/PID/schedstat (the scheduler's
 * nanoseconds, not clock ticks) when its "sandbox: ..." log line arrives,
 * while it waits for a job; then its CPU at exit (wait4's rusage) after the
 * socket is closed (it gets no job and ends), with its page faults (minor:
 * also the pages worker/entry.c populates) and peak RSS (wait4's
 * ru_maxrss: a heap huge page counts 2 MiB). Prints the median and the
 * quartiles of each, in microseconds. With tests/bench/phase_worker (the
 * worker built with -DBH_SANDBOX_PHASES), also the median of each phase it
 * reports: exec to main, prepare, namespaces, capabilities, limits and
 * seccomp. With RECORDING (a worker's conversation, tests/bench/ipcrec.h:
 * BENCH_WORKER_KEEP of bench_worker.sh), each worker is then given the
 * recorded job and its chart (in a memfd) and its requests are answered
 * with the recorded answers, so "exec to exit" and the faults are a whole
 * job's, sandbox and start-up included. A benchmark, not a test: it fails
 * only when a worker does not start or lock down, or a job does not go as
 * recorded. With --parts: the kernel's share, call by call, each in N
 * fresh processes (a namespace or a filter is made once per process): the
 * CPU of unshare() for the user namespace alone and with each other one
 * the worker makes, all five as a worker without a tenant does, of
 * joining a tenant holder's five with setns() as a tenant's worker does,
 * and of loading the worker's seccomp filter against a one-instruction
 * one. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "proto/proto.h"
#include "sandbox/sandbox.h"
#include "supervisor/spawn.h"
#include "tests/bench/ipcrec.h"

static double thread_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* The first field of /proc/PID/schedstat: time on a CPU, in ns. */
static double schedstat_us(pid_t pid)
{
	char path[64];
	unsigned long long ns = 0;
	FILE *f;
	snprintf(path, sizeof path, "/proc/%d/schedstat", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	if (fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	fclose(f);
	return ns ? (double)ns / 1e3 : -1;
}

#define PHASES 5
static const char *const phase_name[PHASES] = {"exec-to-main", "prepare", "namespaces", "capabilities", "limits-seccomp"};

/* A phase worker's "phases: NAME US ..." line into ph[0..PHASES). */
static void phases_read(const unsigned char *s, size_t n, double *ph)
{
	char line[256], name[32];
	const char *p = line + 7;
	int used;
	if (n >= sizeof line)
		return;
	memcpy(line, s, n);
	line[n] = 0;
	for (int i = 0; i < PHASES; i++) {
		unsigned long us;
		if (sscanf(p, " %31s %lu%n", name, &us, &used) != 2 || strcmp(name, phase_name[i]) != 0)
			return;
		ph[i] = (double)us;
		p += used;
	}
}

/* Reads the worker's messages until its "sandbox:" line (the lock-down is
 * done), filling ph from a "phases:" line; 0, or -1 with a reason on stderr. */
static int wait_locked(int sock, double *ph)
{
	for (;;) {
		ipc_msg m = {0};
		bh_error e;
		const unsigned char *s;
		size_t n;
		int found;
		if (ipc_recv(sock, IPC_MAX_PAYLOAD, 0, &m, &e) < 0) {
			fprintf(stderr, "bench_spawn: the worker ended before its lock-down: %s\n", e.msg);
			return -1;
		}
		found = 0;
		if (m.hdr.type == PROTO_LOG && proto_str_decode(m.payload, m.hdr.len, IPC_MAX_PAYLOAD, 0, &s, &n, &e) == 0) {
			found = n >= 8 && memcmp(s, "sandbox:", 8) == 0;
			if (n >= 7 && memcmp(s, "phases:", 7) == 0)
				phases_read(s, n, ph);
			else if (!found)
				fprintf(stderr, "bench_spawn: worker: %.*s\n", (int)n, (const char *)s);
		}
		ipc_msg_free(&m);
		if (found)
			return 0;
	}
}

/* Plays the recording's supervisor side to a locked-down worker: the job
 * with its chart, then each recorded answer after the request it answers;
 * the worker's logs are passed over. 0 when the worker sent the requests
 * and the result in the recorded order, or -1 with a reason on stderr. */
static int play_job(int sock, const ipcrec *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const ipcrec_frame *f = &r->f[i];
		uint32_t t = f->hdr.type;
		ipc_msg m;
		bh_error e;
		int fd = -1, rc;
		if (f->dir == IPCREC_TO_WORKER && (t == PROTO_JOB || t == PROTO_KUBE_RESPONSE || t == PROTO_KUBE_STREAM)) {
			if (f->file && ((fd = memfd_create("chart", MFD_CLOEXEC)) < 0 ||
					write(fd, f->file, f->file_len) != (ssize_t)f->file_len || lseek(fd, 0, SEEK_SET) != 0)) {
				fprintf(stderr, "bench_spawn: the chart's memfd: %s\n", strerror(errno));
				return -1;
			}
			rc = ipc_send(sock, t, f->hdr.id, f->payload, f->hdr.len, fd, &e);
			if (fd >= 0)
				close(fd);
			if (rc < 0) {
				fprintf(stderr, "bench_spawn: sending frame %zu: %s\n", i, e.msg);
				return -1;
			}
			continue;
		}
		if (f->dir != IPCREC_FROM_WORKER || (t != PROTO_KUBE_REQUEST && t != PROTO_KUBE_CANCEL && t != PROTO_RESULT))
			continue;
		for (;;) {
			if (ipc_recv(sock, IPC_MAX_PAYLOAD, 0, &m, &e) < 0) {
				fprintf(stderr, "bench_spawn: frame %zu: %s\n", i, e.msg);
				return -1;
			}
			if (m.hdr.type != PROTO_LOG)
				break;
			ipc_msg_free(&m);
		}
		rc = m.hdr.type == t && m.hdr.id == f->hdr.id ? 0 : -1;
		if (rc < 0)
			fprintf(stderr, "bench_spawn: frame %zu: the worker sent a %s frame where the recording has %s\n", i,
				proto_type_name(m.hdr.type), proto_type_name(t));
		ipc_msg_free(&m);
		if (rc < 0 || t == PROTO_RESULT)
			return rc;
	}
	fprintf(stderr, "bench_spawn: the recording has no result\n");
	return -1;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void print_stat(const char *what, double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, by_value);
	printf("%-34s median %7.0f us  (quartiles %.0f .. %.0f)\n", what, v[n / 2], v[n / 4], v[3 * n / 4]);
}

/* ---- --parts ------------------------------------------------------------ */
typedef struct part {
	const char *what;
	int flags;                     /* unshare(flags), or setns(ns_fd, flags), or */
	const struct sock_fprog *prog; /* a seccomp filter to load */
	int ns_fd;                     /* a namespace holder's pidfd, or -1 */
} part;

/* One part in a fresh child, no_new_privs set first: the thread CPU of the
 * call, in us, or -1 when the kernel refused it. */
static double part_once(const part *pt)
{
	int p[2];
	double us = -1;
	pid_t pid;
	if (pipe(p) < 0)
		return -1;
	if ((pid = fork()) == 0) {
		double t0;
		int rc;
		close(p[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			_exit(1);
		t0 = thread_us();
		rc = pt->prog	     ? (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, pt->prog)
		     : pt->ns_fd >= 0 ? setns(pt->ns_fd, pt->flags)
				      : unshare(pt->flags);
		us = rc == 0 ? thread_us() - t0 : -1;
		_exit(write(p[1], &us, sizeof us) == (ssize_t)sizeof us ? 0 : 1);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &us, sizeof us) != (ssize_t)sizeof us)
		us = -1;
	close(p[0]);
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	return us;
}

/* A namespace holder (sandbox_hold_namespaces) in a child: its pidfd, or
 * -1 where the host refuses; *pid is the child's (it ends when *sock is
 * closed). */
static int holder_new(pid_t *pid, int *sock)
{
	int sv[2], fd;
	char c = 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	if ((*pid = fork()) == 0) {
		close(sv[0]);
		_exit(sandbox_hold_namespaces(sv[1], NULL) < 0 ? 1 : 0);
	}
	close(sv[1]);
	*sock = sv[0];
	fd = *pid > 0 ? (int)syscall(SYS_pidfd_open, *pid, 0) : -1;
	if (fd >= 0 && (read(sv[0], &c, 1) != 1 || c != 'y')) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int parts(int n)
{
	static struct sock_filter f[512];
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog worker = {0, f}, one = {1, &allow};
	int u = CLONE_NEWUSER, all = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS;
	char label[96];
	bh_error e;
	int len = sandbox_worker_filter(f, sizeof f / sizeof *f, 0, &e), hsock = -1;
	pid_t hpid = -1;
	int hfd = holder_new(&hpid, &hsock);
	const part list[] = {
		{"unshare: user", u, NULL, -1},
		{"unshare: user + net", u | CLONE_NEWNET, NULL, -1},
		{"unshare: user + mount", u | CLONE_NEWNS, NULL, -1},
		{"unshare: user + ipc", u | CLONE_NEWIPC, NULL, -1},
		{"unshare: user + uts", u | CLONE_NEWUTS, NULL, -1},
		{"unshare: all five (no tenant)", all, NULL, -1},
		{"setns: a tenant's five (holder)", all, NULL, hfd < 0 ? -2 : hfd},
		{"seccomp: the worker's filter", 0, &worker, -1}, /* its length appended */
		{"seccomp: a filter of 1", 0, &one, -1},
	};
	double *v = calloc((size_t)n, sizeof *v);
	if (len < 0 || !v) {
		fprintf(stderr, "bench_spawn: %s\n", len < 0 ? e.msg : "out of memory");
		free(v);
		return 1;
	}
	worker.len = (unsigned short)len;
	printf("lock-down parts, %d fresh processes each (CPU time of the call):\n", n);
	for (size_t k = 0; k < sizeof list / sizeof *list; k++) {
		int i = 0;
		if (list[k].ns_fd != -2) /* -2: no holder */
			for (; i < n && (v[i] = part_once(&list[k])) >= 0; i++)
				;
		if (list[k].prog == &worker)
			snprintf(label, sizeof label, "%s (%d)", list[k].what, len);
		else
			snprintf(label, sizeof label, "%s", list[k].what);
		if (i < n)
			printf("%-34s refused here\n", label);
		else
			print_stat(label, v, n);
	}
	free(v);
	if (hfd >= 0)
		close(hfd);
	if (hsock >= 0)
		close(hsock); /* the holder ends */
	if (hpid > 0)
		while (waitpid(hpid, NULL, 0) < 0 && errno == EINTR)
			;
	return 0;
}

int main(int argc, char **argv)
{
	spawn_opts o = {0};
	double *parent, *locked, *total, *faults, *rss, *ph[PHASES];
	ipcrec rec = {0};
	bh_error e;
	char tenant[32];
	int n, tenants;
	if ((argc != 3 && argc != 4) || (n = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: bench_spawn WORKER N [RECORDING]\n       bench_spawn --parts N\n");
		return 2;
	}
	if (strcmp(argv[1], "--parts") == 0)
		return argc == 3 ? parts(n) : 2;
	if (argc == 4 && ipcrec_load(argv[3], &rec, &e) < 0) {
		fprintf(stderr, "bench_spawn: %s\n", e.msg);
		return 2;
	}
	o.worker_path = argv[1];
	/* as bulkheadd: the binary opened once, above fd 3 (the child's socket) */
	o.worker_fd = open(argv[1], O_PATH | O_CLOEXEC);
	if (o.worker_fd >= 0 && o.worker_fd <= 3) {
		int high = fcntl(o.worker_fd, F_DUPFD_CLOEXEC, 10);
		close(o.worker_fd);
		o.worker_fd = high;
	}
	if (spawn_set_user(getenv("BENCH_SPAWN_USER"), &e) < 0) {
		fprintf(stderr, "bench_spawn: %s\n", e.msg);
		return 2;
	}
	o.job_label = "bench/spawn";
	o.cpu_seconds = 60;
	o.memory_mb = 1024;
	tenants = getenv("BENCH_SPAWN_TENANTS") ? atoi(getenv("BENCH_SPAWN_TENANTS")) : 10;
	for (int t = 0; t < tenants; t++) { /* each tenant's holder, untimed */
		pid_t pid;
		int sock;
		snprintf(tenant, sizeof tenant, "bench-tenant-%d", t);
		o.tenant = tenant;
		if (spawn_worker(&o, &pid, &sock, &e) < 0) {
			fprintf(stderr, "bench_spawn: %s\n", e.msg);
			return 1;
		}
		close(sock);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	parent = calloc((size_t)n, sizeof *parent);
	locked = calloc((size_t)n, sizeof *locked);
	total = calloc((size_t)n, sizeof *total);
	faults = calloc((size_t)n, sizeof *faults);
	rss = calloc((size_t)n, sizeof *rss);
	if (!parent || !locked || !total || !faults || !rss)
		return 1;
	for (int k = 0; k < PHASES; k++)
		if (!(ph[k] = calloc((size_t)n, sizeof *ph[k])))
			return 1;
	for (int i = 0; i < n; i++) {
		pid_t pid;
		int sock, status;
		struct rusage ru;
		double t0;
		if (tenants > 0)
			snprintf(tenant, sizeof tenant, "bench-tenant-%d", i % tenants);
		t0 = thread_us();
		if (spawn_worker(&o, &pid, &sock, &e) < 0) {
			fprintf(stderr, "bench_spawn: %s\n", e.msg);
			return 1;
		}
		parent[i] = thread_us() - t0;
		fcntl(sock, F_SETFL, 0); /* blocking reads */
		double one[PHASES] = {-1};
		if (wait_locked(sock, one) < 0)
			return 1;
		locked[i] = schedstat_us(pid);
		if (rec.n && play_job(sock, &rec) < 0)
			return 1;
		close(sock);
		while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
			;
		total[i] = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
			   (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
		faults[i] = (double)ru.ru_minflt;
		rss[i] = (double)ru.ru_maxrss;
		for (int k = 0; k < PHASES; k++)
			ph[k][i] = one[k];
		if (locked[i] < 0) {
			fprintf(stderr, "bench_spawn: no /proc/%d/schedstat\n", (int)pid);
			return 1;
		}
	}
	printf("worker spawn, %d spawns%s, %d tenants (CPU time):\n", n, rec.n ? ", each with the recorded job" : "",
	       tenants);
	print_stat("supervisor, spawn_worker()", parent, n);
	print_stat("worker, exec to locked down", locked, n);
	print_stat(rec.n ? "worker, exec to exit (the job)" : "worker, exec to exit (no job)", total, n);
	qsort(faults, (size_t)n, sizeof *faults, by_value);
	printf("%-34s median %7.0f\n", "worker, page faults (minor)", faults[n / 2]);
	qsort(rss, (size_t)n, sizeof *rss, by_value);
	printf("%-34s median %7.0f KiB\n", "worker, peak RSS", rss[n / 2]);
	free(parent);
	free(locked);
	free(total);
	free(faults);
	free(rss);
	for (int k = 0; k < PHASES && ph[0][0] >= 0; k++) { /* a phase worker */
		char label[64];
		snprintf(label, sizeof label, "phase %d, %s", k + 1, phase_name[k]);
		print_stat(label, ph[k], n);
	}
	for (int k = 0; k < PHASES; k++)
		free(ph[k]);
	ipcrec_free(&rec);
	return 0;
}
