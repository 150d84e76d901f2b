/* supervisor/spawn.c — see spawn.h. */
#include "supervisor/spawn.h"

#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <stdlib.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static uid_t run_uid = (uid_t)-1;
static gid_t run_gid = (gid_t)-1;

int spawn_set_user(const char *spec, bh_error *err)
{
	unsigned long u, g;
	char *end;
	if (!spec) {
		if (geteuid() == 0)
			run_uid = 65534, run_gid = 65534;
		return 0;
	}
	if (strcmp(spec, "keep") == 0) {
		run_uid = (uid_t)-1;
		return 0;
	}
	errno = 0;
	u = strtoul(spec, &end, 10);
	g = u;
	if (*end == ':')
		g = strtoul(end + 1, &end, 10);
	if (errno || *end || !*spec || u == 0 || g == 0 || u >= 0xFFFFFFFFul || g >= 0xFFFFFFFFul)
		return bh_error_set(err, BH_EINVAL, "--worker-uid %s: want UID[:GID], numbers other than 0 (or keep)", spec);
	run_uid = (uid_t)u;
	run_gid = (gid_t)g;
	return 0;
}

/* In the vfork child: raw system calls (glibc's setuid would signal the
 * parent's threads to change theirs too, as for a threaded process). */
static int switch_user(void)
{
	if (run_uid == (uid_t)-1)
		return 0;
	if (syscall(SYS_setgroups, 0, NULL) < 0 || syscall(SYS_setgid, run_gid) < 0 || syscall(SYS_setuid, run_uid) < 0)
		return -1;
	return getuid() == run_uid && geteuid() == run_uid && getgid() == run_gid && syscall(SYS_setuid, 0) < 0 ? 0 : -1;
}

static int spawn_env(const char *path, int path_fd, char *const argv[], char *const envp[], int pass_fd, pid_t *pid,
		     int *sock, bh_error *err);

/* The helpers' fixed environment. */
#define SPAWN_ENV "PATH=/nonexistent", "LANG=C", "TZ=", "MALLOC_ARENA_MAX=1"

/* A worker's also keeps up to 1000 freed blocks of each small size (up to
 * 1032 bytes) in malloc's per-thread cache instead of glibc's 7: a job
 * frees and allocates many small blocks of the same sizes (JSON and YAML
 * trees, strings), and each one past the 7th went through _int_free and
 * back through _int_malloc. callgrind, a podinfo install job replayed
 * (tests/bench/worker_replay): 17.60 -> 16.93 M instructions (300: 17.05 M,
 * 65535: 16.89 M); the worker's peak RSS (bench_spawn: 5368 KiB) and page
 * faults are unchanged, its heap still one huge page. The value is fixed
 * here, never the tenant's; a static worker reads it at start
 * (__libc_start_main), not a loader. */
#define SPAWN_WORKER_MALLOC "GLIBC_TUNABLES=glibc.malloc.tcache_count=1000"

/* ---- namespace holders, one per tenant (spawn.h) ------------------------ */
typedef struct holder {
	char *tenant; /* NULL: a free slot */
	pid_t pid;
	int pidfd, sock;
	unsigned long used; /* holder_clock at its last use */
} holder;
static holder holders[SPAWN_HOLDERS];
static unsigned long holder_clock;
static int holders_refused; /* a holder failed: none is tried again */

/* For a holder's answer (it takes about 2 ms): the main loop waits, once
 * per tenant, and a worker binary that cannot be a holder (a test's
 * stand-in, say) costs this wait once. */
#define SPAWN_HOLD_WAIT_MS 1000

static void holder_drop(holder *h)
{
	close(h->sock); /* it reads end of file and ends */
	close(h->pidfd);
	free(h->tenant);
	memset(h, 0, sizeof *h);
}

/* Up to n bytes a helper just started writes to sock, until it closes
 * the socket or n arrived, each wait at most ms; 0 when nothing came in
 * time (or on an error). */
static size_t read_answer(int sock, char *buf, size_t n, int ms)
{
	size_t got = 0;
	while (got < n) {
		struct pollfd p = {sock, POLLIN, 0};
		ssize_t r;
		if (poll(&p, 1, ms) != 1 || (r = read(sock, buf + got, n - got)) < 0)
			return 0;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return got;
}

/* Starts h's holder for tenant (worker_path, worker_fd: the worker binary)
 * and waits for its answer; 0, or -1 (nothing kept). */
static int holder_start(holder *h, const char *tenant, const char *worker_path, int worker_fd)
{
	char *argv[] = {"bulkhead-worker", "--hold-namespaces", NULL};
	char c = 0;
	if (spawn_exec(worker_path, worker_fd, argv, &h->pid, &h->sock, NULL) < 0)
		return -1;
	h->pidfd = (int)syscall(SYS_pidfd_open, h->pid, 0); /* close-on-exec */
	if (h->pidfd >= 0 && read_answer(h->sock, &c, 1, SPAWN_HOLD_WAIT_MS) == 1 && c == 'y' &&
	    (h->tenant = strdup(tenant)))
		return 0;
	/* "n": the host cannot (no user namespaces); anything else: this
	 * binary cannot. Either way its workers unshare their own from now on. */
	holders_refused = 1;
	if (c != 'n') /* "n": it ends by itself */
		kill(h->pid, SIGKILL); /* our child, not reaped yet: its pid is not reused */
	close(h->sock);
	if (h->pidfd >= 0)
		close(h->pidfd);
	memset(h, 0, sizeof *h);
	return -1;
}

/* The pidfd of tenant's holder, started when there is none (or it died),
 * or -1: the worker makes its own namespaces. */
static int holder_fd(const char *tenant, const char *worker_path, int worker_fd)
{
	holder *h = NULL, *lru = &holders[0]; /* a free slot, else the least recently used */
	if (!tenant || holders_refused)
		return -1;
	for (size_t i = 0; i < SPAWN_HOLDERS && !h; i++) {
		holder *k = &holders[i];
		if (k->tenant && strcmp(k->tenant, tenant) == 0)
			h = k;
		else if (lru->tenant && (!k->tenant || k->used < lru->used))
			lru = k;
	}
	if (h) {
		struct pollfd p = {h->pidfd, POLLIN, 0}; /* readable: it ended */
		if (poll(&p, 1, 0) == 0) {
			h->used = ++holder_clock;
			return h->pidfd;
		}
		holder_drop(h);
		lru = h;
	}
	if (lru->tenant)
		holder_drop(lru);
	if (holder_start(lru, tenant, worker_path, worker_fd) < 0)
		return -1;
	lru->used = ++holder_clock;
	return lru->pidfd;
}

/* ---- OpenSSL's CPU capabilities, found once ------------------------------
 * A worker's OpenSSL start-up asks cpuid six times (each a trap to the
 * hypervisor here); given OPENSSL_ia32cap it asks none. The value is what
 * the worker binary itself found, run once with --cpu-caps (worker/main.c)
 * at the first spawn, never anything a tenant gave; checked for its form,
 * else left out (the worker asks cpuid as before). */
#define SPAWN_CAPS_WAIT_MS 1000 /* once, at the first spawn (it takes about 1 ms) */
static char ia32cap[64]; /* "OPENSSL_ia32cap=0x..:0x..", or "" */
static int ia32cap_tried;

/* s is "0xHEX:0xHEX" (at most 16 digits each). */
static int caps_form(const char *s)
{
	for (int part = 0; part < 2; part++) {
		size_t n = 0;
		if (s[0] != '0' || s[1] != 'x')
			return 0;
		for (s += 2; (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f'); s++)
			n++;
		if (n < 1 || n > 16 || *s != (part ? '\0' : ':'))
			return 0;
		s += !part;
	}
	return 1;
}

static void caps_find(const char *worker_path, int worker_fd)
{
	char *argv[] = {"bulkhead-worker", "--cpu-caps", NULL}, got[40];
	size_t n;
	pid_t pid;
	int sock, st;
	ia32cap_tried = 1;
	if (spawn_exec(worker_path, worker_fd, argv, &pid, &sock, NULL) < 0)
		return;
	if ((n = read_answer(sock, got, sizeof got - 1, SPAWN_CAPS_WAIT_MS)) == 0)
		kill(pid, SIGKILL); /* nothing in time: not waited for longer */
	close(sock);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	got[n] = 0;
	if (n && WIFEXITED(st) && WEXITSTATUS(st) == 0 && caps_form(got))
		snprintf(ia32cap, sizeof ia32cap, "OPENSSL_ia32cap=%s", got);
}

int spawn_worker(const spawn_opts *o, pid_t *pid, int *sock, bh_error *err)
{
	char cpu[32], mem[32];
	char *argv[] = {"bulkhead-worker", "--fd", "3", "--cpu-seconds", cpu, "--memory-mb", mem, "--job",
			(char *)(o->job_label ? o->job_label : "-"), "--ns-fd", "4", NULL};
	char *envp[] = {SPAWN_ENV, SPAWN_WORKER_MALLOC, ia32cap, NULL};
	int ns_fd;
	if (!ia32cap_tried)
		caps_find(o->worker_path, o->worker_fd);
	if (!ia32cap[0])
		envp[sizeof envp / sizeof *envp - 2] = NULL;
	ns_fd = holder_fd(o->tenant, o->worker_path, o->worker_fd);
	snprintf(cpu, sizeof cpu, "%lu", o->cpu_seconds);
	snprintf(mem, sizeof mem, "%lu", o->memory_mb);
	if (ns_fd < 0)
		argv[9] = NULL; /* no --ns-fd */
	return spawn_env(o->worker_path, o->worker_fd, argv, envp, ns_fd, pid, sock, err);
}

/* The signals whose disposition is not SIG_DFL (a handler, or SIG_IGN),
 * read once in the parent at the first spawn: bulkheadd sets its handlers
 * at start, before it starts any worker or fetcher. A child resets these
 * and no others (4-5 calls instead of 63 in every vfork child); execve
 * would reset a handler anyway, but the child unblocks its signals before
 * exec while it still shares the parent's memory, and SIG_IGN would be
 * inherited. Signals glibc keeps for itself (32, 33) are refused by
 * sigaction either way. */
static sigset_t changed;
static pthread_once_t changed_once = PTHREAD_ONCE_INIT;
static pid_t self; /* the supervisor's pid, read with them (a getpid per spawn less) */

static void changed_read(void)
{
	struct sigaction old;
	self = getpid();
	sigemptyset(&changed);
	for (int s = 1; s < 65; s++)
		if (sigaction(s, NULL, &old) == 0 && old.sa_handler != SIG_DFL) /* sa_sigaction shares it */
			sigaddset(&changed, s);
}

int spawn_exec(const char *path, int path_fd, char *const argv[], pid_t *pid, int *sock, bh_error *err)
{
	char *envp[] = {SPAWN_ENV, NULL};
	return spawn_env(path, path_fd, argv, envp, -1, pid, sock, err);
}

/* pass_fd >= 0: also given to the child as its fd 4. */
static int spawn_env(const char *path, int path_fd, char *const argv[], char *const envp[], int pass_fd, pid_t *pid,
		     int *sock, bh_error *err)
{
	int sv[2];
	pid_t p, parent;
	sigset_t all, old;
	/* by path: a clear error here rather than the child's exit 127; by fd
	 * (an open binary, checked when opened) exec cannot find it missing */
	if (path_fd < 0 && access(path, X_OK) < 0)
		return bh_error_set(err, BH_ENOTFOUND, "binary %s: %s", path, strerror(errno));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return bh_error_set(err, BH_EIO, "socketpair: %s", strerror(errno));
	/* vfork: no copy of the supervisor's page tables (and no copy-on-write
	 * faults after) per worker; the child shares its memory until exec, so
	 * it makes system calls only, with every signal blocked until its
	 * handlers are the defaults (no supervisor handler runs in it) */
	pthread_once(&changed_once, changed_read);
	parent = self;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	p = vfork();
	if (p != 0)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (p < 0) {
		close(sv[0]);
		close(sv[1]);
		return bh_error_set(err, BH_EIO, "vfork: %s", strerror(errno));
	}
	if (p == 0) {
		sigset_t none;
		struct sigaction dfl;
		int pass = -1;
		if (pass_fd >= 0 && (pass = fcntl(pass_fd, F_DUPFD, 5)) < 0) /* out of the way of 3 and 4 */
			_exit(126);
		if (sv[1] != 3) {
			if (dup2(sv[1], 3) < 0)
				_exit(126);
		} else {
			fcntl(3, F_SETFD, 0);
		}
		if (pass >= 0 && dup2(pass, 4) < 0)
			_exit(126);
		syscall(SYS_close_range, pass >= 0 ? 5 : 4, ~0U, CLOSE_RANGE_CLOEXEC);
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		for (int s = 1; s < 65; s++)
			if (sigismember(&changed, s) == 1)
				sigaction(s, &dfl, NULL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		setsid();
		umask(077);
		if (switch_user() < 0)
			_exit(124);
		/* after switch_user: a change of credentials clears the setting */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() != parent)
			_exit(125);
		if (chdir("/") < 0)
			_exit(126);
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		if (path_fd >= 0)
			syscall(SYS_execveat, path_fd, "", argv, envp, AT_EMPTY_PATH);
		execve(path, argv, envp);
		_exit(127);
	}
	close(sv[1]); /* sv[0] stays blocking: ipc's reader and writer pass MSG_DONTWAIT (spawn.h) */
	*pid = p;
	*sock = sv[0];
	return 0;
}

void spawn_describe_status(int status, char *buf, unsigned long n)
{
	if (WIFEXITED(status))
		snprintf(buf, n, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, n, "was killed by signal %s (%s)", sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?",
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, n, "ended with wait status 0x%x", status);
}
