/* tests/unit/test_spawn.c — supervisor/spawn.c: a spawned program starts
 * with no signal blocked, ignored or caught, whatever dispositions the
 * supervisor set before its first spawn (the child resets only those). */
#include <check.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/spawn.h"

static void on_usr2(int sig)
{
	(void)sig;
}

/* The child's /proc/self/status, as cat (exec'd by sh) sees it. */
static void child_status(char *buf, size_t cap)
{
	char *argv[] = {"sh", "-c", "exec /bin/cat /proc/self/status >&3", NULL};
	size_t n = 0;
	pid_t pid;
	int sock, st;
	bh_error e;
	ck_assert_msg(spawn_exec("/bin/sh", -1, argv, &pid, &sock, &e) == 0, "%s", e.msg);
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
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
