/* tests/unit/test_sandbox.c — the worker lock-down in a forked child: the
 * allowed work still runs; socket(), execve() and open("/etc/passwd") are
 * refused and reported by syscall number over the socket, and so are
 * newfstatat with a path (or another pointer than sandbox_fstat's "") and
 * prlimit64 on another process or setting a limit; no_new_privs,
 * capabilities, seccomp mode and limits are visible in /proc; given a
 * namespace holder, the lock-down joins its namespaces. The BPF
 * program the rules compile to gives every syscall number, with arguments
 * that meet or just miss each rule's tests, the rules' own answer. */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "proto/proto.h"
#include "sandbox/sandbox.h"
#include "tests/unit/unit_util.h"

#if defined(__x86_64__)
#define SANDBOX_TEST_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_TEST_ARCH AUDIT_ARCH_AARCH64
#endif

enum { DO_NOTHING, DO_SOCKET, DO_EXECVE, DO_OPEN, DO_KILL, DO_FORK, DO_PTRACE, DO_STAT_PATH, DO_STAT_EMPTY,
       DO_PRLIMIT_OTHER, DO_PRLIMIT_SET };

static pid_t start(int what, int *sock)
{
	int sv[2];
	pid_t pid;
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		bh_error e;
		sandbox_opts o = {sv[1], -1, 0, 30};
		char buf[8];
		close(sv[0]);
		if (sandbox_lockdown(&o, &e) < 0)
			_exit(2);
		/* allowed: memory, the socket, fstat of an fd, reading its own
		 * limits; sysinfo answers ENOSYS */
		{
			struct stat st;
			struct rlimit rl;
			struct sysinfo si;
			if (sandbox_fstat(sv[1], &st) < 0 || !S_ISSOCK(st.st_mode))
				_exit(6);
			if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || prlimit(getpid(), RLIMIT_NOFILE, NULL, &rl) < 0)
				_exit(7);
			if (sysinfo(&si) == 0 || errno != ENOSYS)
				_exit(8);
		}
		{
			char *p = malloc(1 << 22);
			if (!p)
				_exit(3);
			memset(p, 1, 1 << 22);
			free(p);
		}
		if (ipc_send(sv[1], PROTO_LOG, 0, "locked", 6, -1, &e) < 0)
			_exit(4);
		if (read(sv[1], buf, 1) != 1) /* wait for the parent's go */
			_exit(5);
		switch (what) {
		case DO_SOCKET:
			socket(AF_INET, SOCK_STREAM, 0);
			break;
		case DO_EXECVE: {
			char *argv[] = {"/bin/true", NULL};
			execve("/bin/true", argv, NULL);
			break;
		}
		case DO_OPEN:
			open("/etc/passwd", O_RDONLY);
			break;
		case DO_KILL:
			kill(1, SIGTERM);
			break;
		case DO_FORK:
			syscall(SYS_fork);
			syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
			break;
		case DO_PTRACE:
			syscall(SYS_ptrace, 0, 0, 0, 0);
			break;
		case DO_STAT_PATH: { /* a path with AT_EMPTY_PATH is a path all the same */
			struct stat st;
			syscall(SYS_newfstatat, AT_FDCWD, "/etc/passwd", &st, AT_EMPTY_PATH);
			break;
		}
		case DO_STAT_EMPTY: { /* the right flag, another "" than the filter's */
			struct stat st;
			static const char other[] = "";
			syscall(SYS_newfstatat, sv[1], other, &st, 0x1000 /* AT_EMPTY_PATH */);
			break;
		}
		case DO_PRLIMIT_OTHER: {
			struct rlimit rl;
			prlimit(1, RLIMIT_NOFILE, NULL, &rl);
			break;
		}
		case DO_PRLIMIT_SET: {
			struct rlimit rl = {1, 1};
			prlimit(0, RLIMIT_NOFILE, &rl, NULL);
			break;
		}
		}
		_exit(0);
	}
	close(sv[1]);
	*sock = sv[0];
	return pid;
}

static void proc_status(pid_t pid, const char *key, char *out, size_t n)
{
	char path[64], line[256];
	FILE *f;
	out[0] = '\0';
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, strlen(key)) == 0) {
			snprintf(out, n, "%s", line + strlen(key));
			out[strcspn(out, "\n")] = '\0';
		}
	fclose(f);
}

/* Runs the child to the point of doing `what`; returns the reported syscall
 * (or -1) and the wait status. */
static long run(int what, int *status)
{
	int sock;
	pid_t pid = start(what, &sock);
	bh_error e;
	ipc_msg m;
	long nr = -1;
	char v[128];
	ck_assert_int_eq(ipc_recv(sock, 4096, 0, &m, &e), 0);
	ck_assert_uint_eq(m.hdr.type, PROTO_LOG);
	ipc_msg_free(&m);
	proc_status(pid, "NoNewPrivs:", v, sizeof v);
	ck_assert_str_eq(v + strspn(v, " \t"), "1");
	proc_status(pid, "Seccomp:", v, sizeof v);
	ck_assert_str_eq(v + strspn(v, " \t"), "2");
	proc_status(pid, "CapEff:", v, sizeof v);
	ck_assert_str_eq(v + strspn(v, " \t"), "0000000000000000");
	proc_status(pid, "CapBnd:", v, sizeof v);
	if (geteuid() == 0)
		ck_assert_str_eq(v + strspn(v, " \t"), "0000000000000000");
	ck_assert_int_eq(write(sock, "g", 1), 1);
	if (ipc_recv(sock, 4096, 0, &m, &e) == 0) {
		uint32_t n, arch;
		ck_assert_uint_eq(m.hdr.type, PROTO_SECCOMP);
		ck_assert_int_eq(proto_seccomp_decode(m.payload, m.hdr.len, &n, &arch, &e), 0);
		nr = n;
		ipc_msg_free(&m);
	}
	ck_assert_int_eq(waitpid(pid, status, 0), pid);
	close(sock);
	return nr;
}


/* A classic BPF interpreter for the instructions the filter uses. */
static uint32_t bpf_run(const struct sock_filter *f, unsigned n, const struct seccomp_data *d)
{
	uint32_t a = 0;
	unsigned pc = 0;
	while (pc < n) {
		const struct sock_filter *i = &f[pc++];
		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			ck_assert_uint_le(i->k + 4, sizeof *d);
			memcpy(&a, (const char *)d + i->k, 4);
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= i->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == i->k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += a >= i->k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += a & i->k ? i->jt : i->jf;
			break;
		case BPF_RET | BPF_K:
			return i->k;
		default:
			ck_abort_msg("instruction %u: code 0x%x", pc - 1, i->code);
		}
	}
	ck_abort_msg("the program ran off its end");
	return 0;
}

/* The rules read as sandbox.h says: the first that matches answers. */
static uint32_t rules_run(const sandbox_rule *r, unsigned n, const struct seccomp_data *d, uint32_t dflt)
{
	for (unsigned k = 0; k < n; k++) {
		unsigned i = 0;
		if (r[k].nr != d->nr)
			continue;
		while (i < r[k].n && (d->args[r[k].t[i].arg] & r[k].t[i].mask) == r[k].t[i].val)
			i++;
		if (i == r[k].n)
			return r[k].action;
	}
	return dflt;
}

static void check_all_numbers(const struct sock_filter *f, unsigned n, const sandbox_rule *r, unsigned nr_rules,
			      struct seccomp_data *d, uint32_t dflt)
{
	for (int nr = 0; nr < 1024; nr++) {
		d->nr = nr;
		ck_assert_msg(bpf_run(f, n, d) == rules_run(r, nr_rules, d, dflt), "syscall %d", nr);
	}
}

START_TEST(test_filter_is_the_rules)
{
	static struct sock_filter f[1024];
	sandbox_rule r[256];
	unsigned nr_rules = sandbox_worker_rules(r, 256);
	struct seccomp_data d;
	bh_error e;
	int n = sandbox_worker_filter(f, 1024, 0, &e);
	ck_assert_msg(n > 0, "%s", e.msg);
	ck_assert_uint_le(nr_rules, 256);
	memset(&d, 0, sizeof d);
	d.arch = SANDBOX_TEST_ARCH;
	check_all_numbers(f, (unsigned)n, r, nr_rules, &d, SECCOMP_RET_TRAP);
	/* each rule's tests met, then each test missed by one bit (low and high half) */
	for (unsigned k = 0; k < nr_rules; k++) {
		for (int miss = -1; miss < 2 * (int)r[k].n; miss++) {
			memset(d.args, 0, sizeof d.args);
			for (unsigned i = 0; i < r[k].n; i++)
				d.args[r[k].t[i].arg] = (d.args[r[k].t[i].arg] & ~r[k].t[i].mask) | r[k].t[i].val;
			if (miss >= 0) {
				const sandbox_arg_test *t = &r[k].t[miss / 2];
				uint64_t half = miss % 2 ? t->mask & ~(uint64_t)0xffffffff : t->mask & 0xffffffff;
				if (!half)
					continue;
				d.args[t->arg] ^= half & -half;
			}
			check_all_numbers(f, (unsigned)n, r, nr_rules, &d, SECCOMP_RET_TRAP);
		}
	}
	/* the survey's default; another architecture and x32 are killed */
	memset(d.args, 0, sizeof d.args);
	n = sandbox_worker_filter(f, 1024, 1, &e);
	ck_assert_int_gt(n, 0);
	check_all_numbers(f, (unsigned)n, r, nr_rules, &d, SECCOMP_RET_LOG);
	d.nr = 0;
	d.arch = AUDIT_ARCH_I386;
	ck_assert_uint_eq(bpf_run(f, (unsigned)n, &d), SECCOMP_RET_KILL_PROCESS);
#if defined(__x86_64__)
	d.arch = SANDBOX_TEST_ARCH;
	d.nr = 0x40000000 + 1;
	ck_assert_uint_eq(bpf_run(f, (unsigned)n, &d), SECCOMP_RET_KILL_PROCESS);
#endif
	/* too small a buffer is an error, not a cut program */
	ck_assert_int_eq(sandbox_worker_filter(f, 16, 0, &e), BH_ELIMIT);
}
END_TEST

START_TEST(test_allowed_work)
{
	int st;
	ck_assert_int_eq(run(DO_NOTHING, &st), -1);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 0);
}
END_TEST

START_TEST(test_forbidden)
{
	static const struct { int what; long nr; const char *name; } cases[] = {
		{DO_SOCKET, SYS_socket, "socket"},
		{DO_EXECVE, SYS_execve, "execve"},
		{DO_OPEN, SYS_openat, "openat"},
		{DO_KILL, SYS_kill, "kill"},
		{DO_FORK, SYS_fork, "fork"},
		{DO_PTRACE, SYS_ptrace, "ptrace"},
		{DO_STAT_PATH, SYS_newfstatat, "newfstatat"},
		{DO_STAT_EMPTY, SYS_newfstatat, "newfstatat"},
		{DO_PRLIMIT_OTHER, SYS_prlimit64, "prlimit64"},
		{DO_PRLIMIT_SET, SYS_prlimit64, "prlimit64"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int st;
		char name[64];
		long nr = run(cases[i].what, &st);
		ck_assert_int_eq(nr, cases[i].nr);
		ck_assert(WIFEXITED(st));
		ck_assert_int_eq(WEXITSTATUS(st), SANDBOX_EXIT_SECCOMP);
		ck_assert_str_eq(sandbox_syscall_name((uint32_t)nr, 0, name, sizeof name), cases[i].name);
	}
}
END_TEST

START_TEST(test_close_fds)
{
	pid_t pid = fork();
	int st;
	if (pid == 0) {
		int a = dup(0), b = dup(0), c = dup(0);
		bh_error e;
		if (sandbox_close_fds(b, -1, &e) < 0)
			_exit(1);
		_exit(fcntl(b, F_GETFD) >= 0 && fcntl(a, F_GETFD) < 0 && fcntl(c, F_GETFD) < 0 &&
		      fcntl(0, F_GETFD) < 0 ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* keeping fd 0 and another one */
	pid = fork();
	if (pid == 0) {
		int a = dup(0), b = dup(0), c = dup(0);
		bh_error e;
		if (sandbox_close_fds(b, 0, &e) < 0)
			_exit(1);
		_exit(fcntl(0, F_GETFD) >= 0 && fcntl(b, F_GETFD) >= 0 && fcntl(a, F_GETFD) < 0 &&
		      fcntl(c, F_GETFD) < 0 ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
END_TEST

/* A namespace holder in a child: sandbox_hold_namespaces (pivot != 0), or
 * one that only unshares (its root still the host's, as no real holder
 * is): its pidfd; its pid in *pid, its socket (closed: it ends) in *sock.
 * -1 when the host refuses user namespaces. */
static int holder(int pivot, pid_t *pid, int *sock)
{
	int sv[2], fd;
	char c = 0;
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	if ((*pid = fork()) == 0) {
		close(sv[0]);
		if (pivot)
			_exit(sandbox_hold_namespaces(sv[1], NULL) < 0 ? 1 : 0);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS) < 0)
			_exit(write(sv[1], "n", 1) == 1 ? 1 : 2);
		if (write(sv[1], "y", 1) != 1 || read(sv[1], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(sv[1]);
	*sock = sv[0];
	fd = (int)syscall(SYS_pidfd_open, *pid, 0);
	ck_assert_int_ge(fd, 0);
	if (read(sv[0], &c, 1) != 1 || c != 'y') {
		close(fd);
		return -1;
	}
	return fd;
}

/* A worker given a holder's pidfd joins its namespaces: the holder's
 * network, user and mount namespaces, and it reports no network and an
 * empty root. Given one whose root is not the empty tmpfs (none of ours),
 * it still ends with an empty root, in a mount namespace of its own. */
START_TEST(test_join_holder)
{
	for (int pivot = 1; pivot >= 0; pivot--) {
		char a[64], b[64], iso;
		int hsock, sv[2], fd, st;
		pid_t hpid, pid;
		if ((fd = holder(pivot, &hpid, &hsock)) < 0 || getuid() != 0) {
			printf("test_join_holder: SKIP (not root, or the host refuses user namespaces)\n");
			return;
		}
		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		if ((pid = fork()) == 0) {
			bh_error e;
			sandbox_opts o = {sv[1], -1, 0, 30, 0, fd};
			char c;
			if (sandbox_lockdown(&o, &e) < 0)
				_exit(2);
			c = (char)sandbox_isolation();
			_exit(write(sv[1], &c, 1) == 1 && read(sv[1], &c, 1) >= 0 ? 0 : 3);
		}
		close(sv[1]);
		ck_assert_int_eq(read(sv[0], &iso, 1), 1);
		ck_assert_int_eq(iso, SANDBOX_ISO_USERNS | SANDBOX_ISO_NONET | SANDBOX_ISO_NOFS);
		for (int k = 0; k < 3; k++) {
			const char *ns = k == 0 ? "user" : k == 1 ? "net" : "mnt";
			unit_ns_of(hpid, ns, a, sizeof a);
			unit_ns_of(pid, ns, b, sizeof b);
			if (k < 2 || pivot)
				ck_assert_msg(strcmp(a, b) == 0, "the worker is not in its holder's %s namespace", ns);
			else
				ck_assert_msg(strcmp(a, b) != 0, "the worker kept a mount namespace with the host's root");
		}
		{
			char path[64];
			snprintf(path, sizeof path, "/proc/%d/root/etc", (int)pid);
			ck_assert_msg(access(path, F_OK) < 0, "the worker's root has an /etc");
		}
		close(sv[0]);
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		close(hsock);
		close(fd);
		ck_assert_int_eq(waitpid(hpid, &st, 0), hpid);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sandbox");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_allowed_work);
	tcase_add_test(tc, test_forbidden);
	tcase_add_test(tc, test_close_fds);
	tcase_add_test(tc, test_filter_is_the_rules);
	tcase_add_test(tc, test_join_holder);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
