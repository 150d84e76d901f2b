/* tests/unit/test_spawn.c — supervisor/spawn.c: a spawned program starts
 * with no signal blocked, ignored or caught, whatever dispositions the
 * supervisor set before its first spawn (the child resets only those); a
 * worker's environment is the helpers' fixed one plus its malloc tunable. */
#include <check.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/spawn.h"

static void on_usr2(int sig)
{
	(void)sig;
}

/* What a spawned child (pid, its socket sock) wrote to its fd 3, into buf;
 * it must exit 0. */
static void child_output(pid_t pid, int sock, char *buf, size_t cap)
{
	size_t n = 0;
	int st;
	for (;;) {
		struct pollfd p = {sock, POLLIN, 0};
		ssize_t r;
		ck_assert_int_eq(poll(&p, 1, 10000), 1);
		r = read(sock, buf + n, cap - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = 0;
	close(sock);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* The child's /proc/self/status, as cat (exec'd by sh) sees it. */
static void child_status(char *buf, size_t cap)
{
	char *argv[] = {"sh", "-c", "exec /bin/cat /proc/self/status >&3", NULL};
	pid_t pid;
	int sock;
	bh_error e;
	ck_assert_msg(spawn_exec("/bin/sh", -1, argv, &pid, &sock, &e) == 0, "%s", e.msg);
	child_output(pid, sock, buf, cap);
}

/* Does the NUL-separated environment env[0..n) hold the entry want? */
static int env_has(const char *env, size_t n, const char *want)
{
	for (size_t i = 0; i < n; i += strlen(env + i) + 1)
		if (strcmp(env + i, want) == 0)
			return 1;
	return 0;
}

/* A worker (here a script in its place, run by execve: no O_PATH fd) gets
 * the fixed environment and glibc's malloc tunable; another helper
 * (spawn_exec) the fixed environment alone. */
START_TEST(test_worker_env)
{
	static char env[8192];
	char dir[] = "/tmp/test_spawn.XXXXXX", path[64], *argv[] = {"sh", "-c", "exec /usr/bin/env -0 >&3", NULL};
	spawn_opts o = {0};
	FILE *f;
	pid_t pid;
	int sock;
	bh_error e;
	const char *fixed[] = {"PATH=/nonexistent", "LANG=C", "TZ=", "MALLOC_ARENA_MAX=1"};
	const char *tunable = "GLIBC_TUNABLES=glibc.malloc.tcache_count=1000";
	ck_assert(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/worker", dir);
	ck_assert((f = fopen(path, "w")) != NULL);
	fputs("#!/bin/sh\nexec /usr/bin/env -0 >&3\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(path, 0755), 0);
	o.worker_path = path;
	o.worker_fd = -1;
	o.job_label = "ns/name";
	o.cpu_seconds = 10;
	o.memory_mb = 64;
	ck_assert_msg(spawn_worker(&o, &pid, &sock, &e) == 0, "%s", e.msg);
	memset(env, 0, sizeof env);
	child_output(pid, sock, env, sizeof env);
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		ck_assert_msg(env_has(env, sizeof env, fixed[i]), "the worker's environment lacks %s", fixed[i]);
	ck_assert_msg(env_has(env, sizeof env, tunable), "the worker's environment lacks %s", tunable);
	ck_assert_msg(spawn_exec("/bin/sh", -1, argv, &pid, &sock, &e) == 0, "%s", e.msg);
	memset(env, 0, sizeof env);
	child_output(pid, sock, env, sizeof env);
	ck_assert(env_has(env, sizeof env, "MALLOC_ARENA_MAX=1"));
	ck_assert_msg(!env_has(env, sizeof env, tunable), "a helper other than the worker got %s", tunable);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

static unsigned long long mask_of(const char *status, const char *key)
{
	const char *p = strstr(status, key);
	ck_assert_msg(p != NULL, "no %s in %s", key, status);
	return strtoull(p + strlen(key), NULL, 16);
}

START_TEST(test_signals_reset)
{
	static char status[16384];
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr2;
	ck_assert_int_eq(sigaction(SIGUSR2, &sa, NULL), 0);
	sa.sa_handler = SIG_IGN;
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	ck_assert_int_eq(sigaction(SIGPIPE, &sa, NULL), 0);
	for (int round = 0; round < 2; round++) { /* the first spawn reads the dispositions, the second uses them */
		child_status(status, sizeof status);
		ck_assert_uint_eq(mask_of(status, "\nSigBlk:"), 0);
		/* 32 and 33 are glibc's own (sigaction refuses them): what the
		 * test was started with, as before */
		ck_assert_uint_eq(mask_of(status, "\nSigIgn:") & ~(3ULL << 31), 0);
		ck_assert_uint_eq(mask_of(status, "\nSigCgt:"), 0);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("spawn");
	TCase *tc = tcase_create("spawn");
	SRunner *sr;
	int failed;
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_signals_reset);
	tcase_add_test(tc, test_worker_env);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
