/* tests/unit/test_fetcher_sandbox.c — bulkhead-fetcher's lock-down holds:
 * after lockdown_apply() a process cannot open the supervisor's files (a
 * kubeconfig, a token, anything outside the resolver's few files), cannot
 * create a unix socket (no way to an API server or agent socket), cannot
 * write files, and dies on exec or fork, while it can still read
 * /etc/hosts and open IPv4 sockets. Each check runs in a child. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fetcher/lockdown.h"
#include "tests/unit/unit_util.h"

static char secret_path[64];
static int landlocked; /* in the child: lockdown_apply's result */

/* Runs fn in a locked-down child; returns its wait status. */
static int in_sandbox(int (*fn)(void))
{
	int sv[2];
	pid_t p;
	int st = 0;
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	p = fork();
	ck_assert_int_ge(p, 0);
	if (p == 0) {
		lockdown_opts o = {sv[1], 0, 10}; /* no RLIMIT_AS: sanitizer builds reserve huge shadow maps */
		bh_error e;
		if (sv[1] != 3 && dup2(sv[1], 3) < 0)
			_exit(90);
		o.sock = 3;
		if ((landlocked = lockdown_apply(&o, &e)) < 0)
			_exit(91);
		_exit(fn());
	}
	close(sv[1]);
	waitpid(p, &st, 0);
	close(sv[0]);
	return st;
}

static int open_secret(void)
{
	int fd = open(secret_path, O_RDONLY);
	return fd < 0 && errno == EACCES ? 0 : 1;
}

static int open_kube_paths(void)
{
	const char *p[] = {"/etc/passwd", "/var/run/secrets/kubernetes.io/serviceaccount/token", "/proc/1/environ", "/"};
	for (size_t i = 0; i < sizeof p / sizeof *p; i++)
		if (open(p[i], O_RDONLY) >= 0)
			return 1;
	return 0;
}

static int write_file(void)
{
	return open("/tmp/bulkhead-fetcher-test", O_WRONLY | O_CREAT, 0600) >= 0 ? 1 : 0;
}

static int unix_socket(void)
{
	return socket(AF_UNIX, SOCK_STREAM, 0) < 0 && errno == EAFNOSUPPORT ? 0 : 1;
}

static int allowed(void)
{
	int fd = open("/etc/hosts", O_RDONLY), s = socket(AF_INET, SOCK_STREAM, 0);
	/* without Landlock (an old kernel) no path opens at all */
	return (fd >= 0 || errno == ENOENT || (!landlocked && errno == EACCES)) && s >= 0 ? 0 : 1;
}

static int do_exec(void)
{
	char *argv[] = {"/bin/true", NULL};
	execv("/bin/true", argv);
	return 0;
}

static int do_fork(void)
{
	return fork() >= 0 ? 0 : 0;
}

START_TEST(test_files_and_sockets)
{
	int fd, st;
	snprintf(secret_path, sizeof secret_path, "/tmp/bh-fetcher-secret-XXXXXX");
	fd = mkstemp(secret_path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "token", 5), 5);
	close(fd);
	st = in_sandbox(open_secret);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the supervisor's file was readable (status %d)", st);
	st = in_sandbox(open_kube_paths);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a path outside the resolver's files opened (status %d)", st);
	st = in_sandbox(write_file); /* refused, or the process killed for trying */
	ck_assert_msg(WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 159), "a file could be created (status %d)", st);
	ck_assert_int_ne(access("/tmp/bulkhead-fetcher-test", F_OK), 0);
	st = in_sandbox(unix_socket);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a unix socket could be made (status %d)", st);
	st = in_sandbox(allowed);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "resolver files or IPv4 sockets refused (status %d)", st);
	unlink(secret_path);
}
END_TEST

START_TEST(test_exec_and_fork_die)
{
	int st = in_sandbox(do_exec);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 159, "exec was not stopped by seccomp (status %d)", st);
	st = in_sandbox(do_fork);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 159, "fork was not stopped by seccomp (status %d)", st);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fetcher_sandbox");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_files_and_sockets);
	tcase_add_test(tc, test_exec_and_fork_die);
	suite_add_tcase(s, tc);
	return unit_failures(s, CK_NOFORK) ? EXIT_FAILURE : EXIT_SUCCESS;
}
