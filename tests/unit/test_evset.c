/* tests/unit/test_evset.c — the loop's epoll-backed wait answers as poll(2)
 * would: readiness per entry, events changed between calls, fds leaving
 * the set, one fd in two entries, a closed fd whose number is reused after
 * evset_forget, negative fds, and an fd epoll refuses. */
#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "supervisor/evset.h"
#include "tests/unit/unit_util.h"

static void pair(int sv[2])
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv), 0);
}

static evset *mk(void)
{
	bh_error e;
	evset *s = evset_new(&e);
	ck_assert_ptr_nonnull(s);
	return s;
}

START_TEST(test_readiness_as_poll)
{
	int a[2], b[2];
	evset *s = mk();
	pair(a);
	pair(b);
	struct pollfd pf[3] = {{a[0], POLLIN, 0}, {-1, POLLIN, 0}, {b[0], POLLIN, 0}};
	ck_assert_int_eq(evset_poll(s, pf, 3, 0), 0);
	ck_assert_int_eq(write(b[1], "x", 1), 1);
	pf[1].revents = POLLIN; /* a negative fd's revents are cleared */
	ck_assert_int_eq(evset_poll(s, pf, 3, 1000), 1);
	ck_assert_int_eq(pf[0].revents, 0);
	ck_assert_int_eq(pf[1].revents, 0);
	ck_assert_int_eq(pf[2].revents, POLLIN);
	/* level-triggered: still readable until read */
	ck_assert_int_eq(evset_poll(s, pf, 3, 0), 1);
	char c;
	ck_assert_int_eq(read(b[0], &c, 1), 1);
	ck_assert_int_eq(evset_poll(s, pf, 3, 0), 0);
	/* the events change: POLLOUT now too */
	pf[0].events = POLLIN | POLLOUT;
	ck_assert_int_eq(evset_poll(s, pf, 3, 0), 1);
	ck_assert_int_eq(pf[0].revents, POLLOUT);
	pf[0].events = POLLIN;
	ck_assert_int_eq(evset_poll(s, pf, 3, 0), 0);
	/* the peer hangs up: POLLHUP without asking for it */
	close(a[1]);
	ck_assert_int_eq(evset_poll(s, pf, 3, 0), 1);
	ck_assert(pf[0].revents & POLLHUP);
	close(a[0]);
	close(b[0]);
	close(b[1]);
	evset_free(s);
}
END_TEST

START_TEST(test_leaving_and_shared_fd)
{
	int a[2];
	evset *s = mk();
	pair(a);
	ck_assert_int_eq(write(a[1], "x", 1), 1);
	struct pollfd pf[2] = {{a[0], POLLIN, 0}, {a[0], POLLOUT, 0}};
	ck_assert_int_eq(evset_poll(s, pf, 2, 0), 2);
	ck_assert_int_eq(pf[0].revents, POLLIN);
	ck_assert_int_eq(pf[1].revents, POLLOUT);
	/* a[0] leaves the set: a readable fd no longer waited on wakes nothing */
	int q[2];
	pair(q);
	struct pollfd other = {q[0], POLLIN, 0};
	ck_assert_int_eq(evset_poll(s, &other, 1, 50), 0);
	ck_assert_int_eq(other.revents, 0);
	/* and back */
	ck_assert_int_eq(evset_poll(s, pf, 1, 0), 1);
	ck_assert_int_eq(pf[0].revents, POLLIN);
	close(a[0]);
	close(a[1]);
	close(q[0]);
	close(q[1]);
	evset_free(s);
}
END_TEST

START_TEST(test_number_reused_after_forget)
{
	int a[2], b[2];
	evset *s = mk();
	pair(a);
	struct pollfd pf = {a[0], POLLIN, 0};
	ck_assert_int_eq(evset_poll(s, &pf, 1, 0), 0);
	int fd = a[0];
	evset_forget(s, fd);
	close(a[0]);
	close(a[1]);
	pair(b); /* the lowest free numbers: a's again */
	ck_assert_int_eq(b[0], fd);
	ck_assert_int_eq(write(b[1], "y", 1), 1);
	pf.fd = b[0];
	ck_assert_int_eq(evset_poll(s, &pf, 1, 1000), 1);
	ck_assert_int_eq(pf.revents, POLLIN);
	evset_forget(s, 12345); /* unknown: ignored */
	evset_forget(s, -1);
	close(b[0]);
	close(b[1]);
	evset_free(s);
}
END_TEST

START_TEST(test_refused_fd_polled)
{
	/* epoll refuses a regular file; poll(2) answers for it, as before */
	char path[] = "/tmp/test_evset.XXXXXX";
	int fd = mkstemp(path), a[2];
	ck_assert_int_ge(fd, 0);
	unlink(path);
	pair(a);
	evset *s = mk();
	struct pollfd pf[2] = {{fd, POLLIN, 0}, {a[0], POLLIN, 0}};
	ck_assert_int_eq(evset_poll(s, pf, 2, 0), 1);
	ck_assert_int_eq(pf[0].revents, POLLIN);
	ck_assert_int_eq(pf[1].revents, 0);
	close(fd);
	close(a[0]);
	close(a[1]);
	evset_free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("evset");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_readiness_as_poll);
	tcase_add_test(tc, test_leaving_and_shared_fd);
	tcase_add_test(tc, test_number_reused_after_forget);
	tcase_add_test(tc, test_refused_fd_polled);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
