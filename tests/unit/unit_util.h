/* tests/unit/unit_util.h — helpers shared by the unit tests: a suite run
 * to the exit status of its main(), the kube client's sleep and random
 * hooks made instant and jitter-free, a whole file read into memory, a
 * test data file under tests/unit/data, a JSON fixture parsed with an
 * assertion, and a process's namespace as /proc names it. Include after
 * <check.h>. */
#ifndef BH_TEST_UNIT_UTIL_H
#define BH_TEST_UNIT_UTIL_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include "lib/buf.h"

/* Suite S run (CK_NORMAL output) in fork mode FORK (CK_FORK_GETENV: as
 * the CK_FORK variable says, check's default), then freed: the number
 * of its tests that failed. */
static inline int unit_failures(Suite *s, enum fork_status fork)
{
	SRunner *sr = srunner_create(s);
	int nf;
	srunner_set_fork_status(sr, fork);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf;
}

/* Suite S run as check's defaults say and freed: the exit status of a
 * test's main(). */
static inline int unit_run(Suite *s)
{
	return unit_failures(s, CK_FORK_GETENV) ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* A kube client's sleep hook (kube_client_set_hooks) that returns at once. */
static inline void unit_no_sleep(void *ud, long ms)
{
	(void)ud;
	(void)ms;
}

/* A kube client's random hook that makes the retry jitter zero. */
static inline double unit_no_jitter(void *ud)
{
	(void)ud;
	return 0.5;
}

/* The bytes of PATH, NUL-terminated (length in *n when n is not NULL), or
 * NULL when it cannot be opened. Caller frees. */
static inline char *unit_read_new(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	bh_buf b = BH_BUF_INIT;
	char chunk[4096];
	size_t k;
	if (!f)
		return NULL;
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
		bh_buf_put(&b, chunk, k);
	fclose(f);
	if (n)
		*n = b.len;
	return b.data ? bh_buf_detach(&b) : calloc(1, 1);
}

/* tests/unit/data/DIR/NAME of the source tree, which must exist. Caller frees. */
static inline char *unit_data_new(const char *dir, const char *name, size_t *n)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/tests/unit/data/%s/%s", BH_SRCDIR, dir, name);
	char *s = unit_read_new(path, n);
	ck_assert_msg(s != NULL, "cannot open %s", path);
	return s;
}

/* TEXT parsed as JSON, which must succeed. Caller decrefs. */
static inline json_t *unit_json_new(const char *text)
{
	json_error_t je;
	json_t *v = json_loads(text, 0, &je);
	ck_assert_msg(v != NULL, "%s: %s", je.text, text);
	return v;
}

/* The namespace ns ("net", "user", ...) of pid as /proc names it
 * ("net:[4026532...]"), into buf; it must be readable (another process's
 * needs ptrace rights: root). */
static inline void unit_ns_of(pid_t pid, const char *ns, char *buf, size_t cap)
{
	char path[64];
	ssize_t n;
	snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)pid, ns);
	n = readlink(path, buf, cap - 1);
	ck_assert_msg(n > 0, "readlink %s", path);
	buf[n] = 0;
}

#endif
