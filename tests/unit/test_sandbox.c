/* tests/unit/test_sandbox.c — the worker lock-down in a forked child: the
 * allowed work still runs; socket(), execve() and open("/etc/passwd") are
 * refused and reported by syscall number over the socket, and so are
 * newfstatat with a path (or another pointer than sandbox_fstat's "") and
 * prlimit64 on another process or setting a limit; no_new_privs,
 * capabilities, seccomp mode and limits are visible in /proc. */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
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

int main(void)
{
	Suite *s = suite_create("sandbox");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_allowed_work);
	tcase_add_test(tc, test_forbidden);
	tcase_add_test(tc, test_close_fds);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
