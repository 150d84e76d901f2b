/* tests/unit/test_ipc.c — framing: round trips, fd passing, oversized and
 * malformed frames, unexpected fds, partial frames, queued writes. */
#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "tests/unit/unit_util.h"

static void pair(int sv[2])
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
}

START_TEST(test_roundtrip)
{
	int sv[2];
	bh_error e;
	ipc_msg m;
	pair(sv);
	ck_assert_int_eq(ipc_send(sv[0], 7, 42, "hello", 5, -1, &e), 0);
	ck_assert_int_eq(ipc_recv(sv[1], 1024, 0, &m, &e), 0);
	ck_assert_uint_eq(m.hdr.type, 7);
	ck_assert_uint_eq(m.hdr.id, 42);
	ck_assert_uint_eq(m.hdr.len, 5);
	ck_assert_str_eq((char *)m.payload, "hello");
	ck_assert_int_eq(m.fd, -1);
	ipc_msg_free(&m);
	close(sv[0]);
	ck_assert_int_eq(ipc_recv(sv[1], 1024, 0, &m, &e), BH_EIO);
	ck_assert(strstr(e.msg, "closed") != NULL);
	close(sv[1]);
}
END_TEST

START_TEST(test_fd_passing)
{
	int sv[2], p[2];
	bh_error e;
	ipc_msg m;
	char c = 0;
	pair(sv);
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], "x", 1), 1);
	ck_assert_int_eq(ipc_send(sv[0], 1, 0, "job", 3, p[0], &e), 0);
	ck_assert_int_eq(ipc_recv(sv[1], 1024, 1, &m, &e), 0);
	ck_assert_int_ge(m.fd, 0);
	ck_assert_uint_eq(m.hdr.flags, IPC_F_FD);
	ck_assert_int_eq(read(m.fd, &c, 1), 1);
	ck_assert_int_eq(c, 'x');
	ipc_msg_free(&m);
	/* the same frame where fds are not allowed: refused, fd closed */
	ck_assert_int_eq(ipc_send(sv[0], 1, 0, "job", 3, p[0], &e), 0);
	ck_assert_int_eq(ipc_recv(sv[1], 1024, 0, &m, &e), BH_EPROTO);
	ck_assert(strstr(e.msg, "file descriptor") != NULL);
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(test_oversized_refused_before_alloc)
{
	int sv[2];
	bh_error e;
	ipc_msg m;
	unsigned char hb[IPC_HDR_SIZE];
	ipc_hdr h = {16, 0xFFFFFFFFu, 1, 0};
	ipc_reader r;
	pair(sv);
	ipc_hdr_encode(&h, hb);
	ck_assert_int_eq(write(sv[0], hb, sizeof hb), (int)sizeof hb);
	ck_assert_int_eq(ipc_recv(sv[1], IPC_MAX_PAYLOAD, 0, &m, &e), BH_ELIMIT);
	ck_assert(strstr(e.msg, "4294967295") != NULL);
	/* the non-blocking reader too, with a small limit */
	h.len = 2000;
	ipc_hdr_encode(&h, hb);
	ck_assert_int_eq(write(sv[0], hb, sizeof hb), (int)sizeof hb);
	ipc_reader_init(&r, 1000, 0);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), BH_ELIMIT);
	ipc_reader_free(&r);
	/* unknown flags */
	h.len = 0;
	h.flags = 0x80;
	ipc_hdr_encode(&h, hb);
	ck_assert_int_eq(ipc_hdr_decode(hb, 100, &h, &e), BH_EPROTO);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(test_reader_partial)
{
	int sv[2];
	bh_error e;
	ipc_msg m;
	ipc_reader r;
	unsigned char hb[IPC_HDR_SIZE];
	ipc_hdr h = {17, 10, 3, 0};
	pair(sv);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	ipc_reader_init(&r, 1024, 0);
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_AGAIN);
	ipc_hdr_encode(&h, hb);
	ck_assert_int_eq(write(sv[0], hb, 5), 5);
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_AGAIN);
	ck_assert_int_eq(write(sv[0], hb + 5, 11), 11);
	ck_assert_int_eq(write(sv[0], "01234", 5), 5);
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_AGAIN);
	ck_assert_int_eq(write(sv[0], "56789", 5), 5);
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_MSG);
	ck_assert_str_eq((char *)m.payload, "0123456789");
	ck_assert_uint_eq(m.hdr.id, 3);
	ipc_msg_free(&m);
	/* EOF in the middle of a frame is a protocol error; between frames it is EOF */
	ck_assert_int_eq(write(sv[0], hb, 3), 3);
	close(sv[0]);
	/* (a short read ends a call: the EOF is seen by the next one, after poll) */
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_AGAIN);
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), BH_EPROTO);
	ipc_reader_free(&r);
	ipc_reader_init(&r, 1024, 0);
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_EOF);
	ipc_reader_free(&r);
	close(sv[1]);
}
END_TEST

/* the supervisor's reader never waits, on a socket left blocking too
 * (spawn.h: no O_NONBLOCK per worker): an empty socket, and one holding half
 * a frame, give IPC_AGAIN at once (a wait would hang here until check's
 * timeout fails the test), with and without fds allowed */
START_TEST(test_reader_blocking_socket)
{
	for (int allow = 0; allow <= 1; allow++) {
		int sv[2];
		bh_error e;
		ipc_msg m;
		ipc_reader r;
		unsigned char hb[IPC_HDR_SIZE];
		ipc_hdr h = {17, 4, 9, 0};
		pair(sv);
		ck_assert_int_eq(fcntl(sv[1], F_GETFL) & O_NONBLOCK, 0);
		ipc_reader_init(&r, 1024, allow);
		ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_AGAIN);
		ipc_hdr_encode(&h, hb);
		ck_assert_int_eq(write(sv[0], hb, sizeof hb), (int)sizeof hb);
		ck_assert_int_eq(write(sv[0], "ab", 2), 2);
		ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_AGAIN);
		ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_AGAIN);
		ck_assert_int_eq(write(sv[0], "cd", 2), 2);
		ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_MSG);
		ck_assert_str_eq((char *)m.payload, "abcd");
		ipc_msg_free(&m);
		ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_AGAIN);
		ipc_reader_free(&r);
		close(sv[0]);
		close(sv[1]);
	}
}
END_TEST

/* frames sent in a burst come in one read and are handed out one by one,
 * each NUL-terminated in place without harming the next; ipc_reader_more
 * says when the socket is drained (no read that would fail) */
START_TEST(test_reader_burst)
{
	int sv[2];
	bh_error e;
	ipc_msg m;
	ipc_reader r;
	size_t big = 40000;
	char *data = malloc(big + 1);
	pair(sv);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	memset(data, 'b', big);
	data[big] = '\0';
	ck_assert_int_eq(ipc_send(sv[0], 1, 1, "one", 3, -1, &e), 0);
	ck_assert_int_eq(ipc_send(sv[0], 2, 2, "", 0, -1, &e), 0);
	ck_assert_int_eq(ipc_send(sv[0], 3, 3, data, big, -1, &e), 0);
	ck_assert_int_eq(ipc_send(sv[0], 4, 4, "four", 4, -1, &e), 0);
	ipc_reader_init(&r, IPC_MAX_PAYLOAD, 0);
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_MSG);
	ck_assert_uint_eq(m.hdr.type, 1);
	ck_assert_str_eq((char *)m.payload, "one");
	ck_assert(ipc_reader_more(&r));
	ipc_msg_free(&m);
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_MSG);
	ck_assert_uint_eq(m.hdr.type, 2);
	ck_assert_uint_eq(m.hdr.len, 0);
	ck_assert_str_eq((char *)m.payload, "");
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_MSG);
	ck_assert_uint_eq(m.hdr.type, 3);
	ck_assert_str_eq((char *)m.payload, data);
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_MSG);
	ck_assert_uint_eq(m.hdr.type, 4);
	ck_assert_uint_eq(m.hdr.id, 4);
	ck_assert_str_eq((char *)m.payload, "four");
	ck_assert(!ipc_reader_more(&r));
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_AGAIN);
	/* a frame split over two bursts */
	ck_assert_int_eq(ipc_send(sv[0], 5, 5, "five", 4, -1, &e), 0);
	ck_assert_int_eq(write(sv[0], "\6\0\0\0\3\0\0\0", 8), 8);
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_MSG);
	ck_assert_str_eq((char *)m.payload, "five");
	ck_assert(!ipc_reader_more(&r));
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_AGAIN);
	ck_assert_int_eq(write(sv[0], "\6\0\0\0\0\0\0\0six", 11), 11);
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_MSG);
	ck_assert_uint_eq(m.hdr.type, 6);
	ck_assert_str_eq((char *)m.payload, "six");
	close(sv[0]);
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_EOF);
	ipc_reader_free(&r);
	free(data);
	close(sv[1]);
}
END_TEST

START_TEST(test_outq_large_and_fd)
{
	int sv[2], p[2];
	bh_error e;
	ipc_outq q;
	ipc_msg m;
	size_t big = 1u << 20;
	unsigned char *data = malloc(big);
	int rc, got = 0;
	pair(sv);
	ck_assert_int_eq(pipe(p), 0);
	for (size_t i = 0; i < big; i++)
		data[i] = (unsigned char)(i * 7);
	ipc_outq_init(&q);
	/* a payload in two parts arrives as one */
	ck_assert_int_eq(ipc_outq_push2(&q, 3, 8, "he", 2, "ad+body", 7, -1, &e), 0);
	ck_assert_int_eq(ipc_outq_flush(&q, sv[0], &e), 1);
	ck_assert_int_eq(ipc_recv(sv[1], 100, 0, &m, &e), 0);
	ck_assert_uint_eq(m.hdr.type, 3);
	ck_assert_uint_eq(m.hdr.id, 8);
	ck_assert_str_eq((char *)m.payload, "head+body");
	ipc_msg_free(&m);
	ck_assert_int_eq(ipc_outq_push(&q, 1, 9, "first", 5, p[0], &e), 0);
	ck_assert_int_eq(ipc_outq_push(&q, 2, 10, data, big, -1, &e), 0);
	/* the socket cannot hold 1 MiB: flush returns 0 and must not block */
	rc = ipc_outq_flush(&q, sv[0], &e);
	ck_assert_int_eq(rc, 0);
	ck_assert(ipc_outq_pending(&q));
	ck_assert_int_eq(ipc_recv(sv[1], IPC_MAX_PAYLOAD, 1, &m, &e), 0);
	ck_assert_int_ge(m.fd, 0);
	ck_assert_str_eq((char *)m.payload, "first");
	ipc_msg_free(&m);
	/* drain the rest while flushing */
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	ipc_reader r;
	ipc_reader_init(&r, IPC_MAX_PAYLOAD, 0);
	for (int i = 0; i < 100000 && !got; i++) {
		ck_assert_int_ge(ipc_outq_flush(&q, sv[0], &e), 0);
		rc = ipc_reader_read(&r, sv[1], &m, &e);
		ck_assert_int_ge(rc, 0);
		if (rc == IPC_MSG)
			got = 1;
	}
	ck_assert(got);
	ck_assert_uint_eq(m.hdr.len, big);
	ck_assert(memcmp(m.payload, data, big) == 0);
	ipc_msg_free(&m);
	ipc_reader_free(&r);
	ipc_outq_free(&q);
	free(data);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* A peer that goes away leaving our bytes unread (a SIGKILLed worker with
 * answers queued to it) resets the channel: between frames that is the end
 * of the channel, not a read error. */
/* ipc_outq_send2: straight to the socket when nothing waits, behind what
 * waits otherwise, and the tail the socket did not take queued: the peer
 * reads every frame whole and in order. */
START_TEST(test_outq_send2)
{
	int sv[2];
	bh_error e;
	ipc_outq q;
	ipc_msg m;
	ipc_reader r;
	size_t big = 1u << 20;
	unsigned char *data = malloc(big);
	int rc, got = 0;
	pair(sv);
	for (size_t i = 0; i < big; i++)
		data[i] = (unsigned char)(i * 13 + 1);
	ipc_outq_init(&q);
	/* nothing queued: sent at once, the queue stays empty */
	ck_assert_int_eq(ipc_outq_send2(&q, sv[0], 2, 5, "he", 2, "ad+body", 7, &e), 0);
	ck_assert(!ipc_outq_pending(&q));
	ck_assert_int_eq(ipc_recv(sv[1], 100, 0, &m, &e), 0);
	ck_assert_uint_eq(m.hdr.type, 2);
	ck_assert_uint_eq(m.hdr.id, 5);
	ck_assert_str_eq((char *)m.payload, "head+body");
	ipc_msg_free(&m);
	/* a frame queued first: the next one waits behind it */
	ck_assert_int_eq(ipc_outq_push(&q, 4, 6, "first", 5, -1, &e), 0);
	ck_assert_int_eq(ipc_outq_send2(&q, sv[0], 2, 7, "x", 1, "y", 1, &e), 0);
	ck_assert(ipc_outq_pending(&q));
	ck_assert_int_eq(ipc_outq_flush(&q, sv[0], &e), 1);
	ck_assert_int_eq(ipc_recv(sv[1], 100, 0, &m, &e), 0);
	ck_assert_uint_eq(m.hdr.id, 6);
	ck_assert_str_eq((char *)m.payload, "first");
	ipc_msg_free(&m);
	ck_assert_int_eq(ipc_recv(sv[1], 100, 0, &m, &e), 0);
	ck_assert_uint_eq(m.hdr.id, 7);
	ck_assert_str_eq((char *)m.payload, "xy");
	ipc_msg_free(&m);
	/* more than the socket holds: the rest is queued, then a small frame
	 * after it; both arrive whole, in order */
	ck_assert_int_eq(ipc_outq_send2(&q, sv[0], 2, 8, "h", 1, data, big, &e), 0);
	ck_assert(ipc_outq_pending(&q));
	ck_assert_int_eq(ipc_outq_send2(&q, sv[0], 2, 9, "t", 1, "ail", 3, &e), 0);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	ipc_reader_init(&r, IPC_MAX_PAYLOAD, 0);
	for (int i = 0; i < 100000 && got < 2; i++) {
		ck_assert_int_ge(ipc_outq_flush(&q, sv[0], &e), 0);
		rc = ipc_reader_read(&r, sv[1], &m, &e);
		ck_assert_int_ge(rc, 0);
		if (rc != IPC_MSG)
			continue;
		if (got++ == 0) {
			ck_assert_uint_eq(m.hdr.id, 8);
			ck_assert_uint_eq(m.hdr.len, big + 1);
			ck_assert_int_eq(m.payload[0], 'h');
			ck_assert(memcmp(m.payload + 1, data, big) == 0);
		} else {
			ck_assert_uint_eq(m.hdr.id, 9);
			ck_assert_str_eq((char *)m.payload, "tail");
		}
		ipc_msg_free(&m);
	}
	ck_assert_int_eq(got, 2);
	ck_assert(!ipc_outq_pending(&q));
	/* a closed peer: queued, and the flush reports it */
	close(sv[1]);
	ck_assert_int_eq(ipc_outq_send2(&q, sv[0], 2, 10, "a", 1, "b", 1, &e), 0);
	ck_assert(ipc_outq_pending(&q));
	ck_assert_int_lt(ipc_outq_flush(&q, sv[0], &e), 0);
	ipc_reader_free(&r);
	ipc_outq_free(&q);
	free(data);
	close(sv[0]);
}
END_TEST

START_TEST(test_reader_reset_is_eof)
{
	int sv[2];
	bh_error e;
	ipc_msg m;
	ipc_reader r;
	pair(sv);
	ck_assert_int_eq(ipc_send(sv[0], 4, 1, "request", 7, -1, &e), 0);
	ck_assert_int_eq(ipc_send(sv[1], 5, 1, "unread answer", 13, -1, &e), 0);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	ipc_reader_init(&r, 1024, 0);
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_MSG);
	ck_assert_str_eq((char *)m.payload, "request");
	close(sv[0]); /* "unread answer" is still in sv[0]'s queue */
	ck_assert_int_eq(ipc_reader_read(&r, sv[1], &m, &e), IPC_EOF);
	ipc_reader_free(&r);
	close(sv[1]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ipc");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_fd_passing);
	tcase_add_test(tc, test_oversized_refused_before_alloc);
	tcase_add_test(tc, test_reader_partial);
	tcase_add_test(tc, test_reader_blocking_socket);
	tcase_add_test(tc, test_reader_burst);
	tcase_add_test(tc, test_outq_large_and_fd);
	tcase_add_test(tc, test_outq_send2);
	tcase_add_test(tc, test_reader_reset_is_eof);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
