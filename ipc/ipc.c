/* ipc/ipc.c — see ipc.h. */
#include "ipc/ipc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = (v >> 24) & 0xff;
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void ipc_hdr_encode(const ipc_hdr *h, unsigned char out[IPC_HDR_SIZE])
{
	put32(out, h->type);
	put32(out + 4, h->len);
	put32(out + 8, h->id);
	put32(out + 12, h->flags);
}

int ipc_hdr_decode(const unsigned char in[IPC_HDR_SIZE], uint32_t max, ipc_hdr *h, bh_error *err)
{
	h->type = get32(in);
	h->len = get32(in + 4);
	h->id = get32(in + 8);
	h->flags = get32(in + 12);
	if (max > IPC_MAX_PAYLOAD)
		max = IPC_MAX_PAYLOAD;
	if (h->len > max)
		return bh_error_set(err, BH_ELIMIT, "frame of type %u announces %u payload bytes, limit is %u",
				    h->type, h->len, max);
	if (h->flags & ~IPC_F_FD)
		return bh_error_set(err, BH_EPROTO, "frame of type %u has unknown flags 0x%x", h->type, h->flags);
	return 0;
}

void ipc_msg_free(ipc_msg *m)
{
	if (!m)
		return;
	free(m->mem);
	m->mem = NULL;
	m->payload = NULL;
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
}

/* Closes every fd found in the control message; returns how many, and the
 * first one in *first (kept open) when keep_first is set. */
static int take_fds(struct msghdr *mh, int keep_first, int *first)
{
	int n = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t cnt = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		int *fds = (int *)CMSG_DATA(c);
		for (size_t i = 0; i < cnt; i++) {
			int fd;
			memcpy(&fd, fds + i, sizeof fd);
			if (n == 0 && keep_first)
				*first = fd;
			else
				close(fd);
			n++;
		}
	}
	return n;
}

/* recvmsg of up to len bytes with flags (0, or MSG_DONTWAIT); fds handled
 * per allow. Returns bytes, 0 on EOF, -1 with errno, or -2 on an fd
 * violation (fds closed). */
static ssize_t recv_some(int sock, void *p, size_t len, int flags, int allow, int *fd_out)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 8)];
		struct cmsghdr align;
	} cm;
	struct iovec iov = {p, len};
	struct msghdr mh = {0};
	ssize_t n;
	int first = -1, cnt;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof cm.buf;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | flags);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	cnt = take_fds(&mh, allow && *fd_out < 0, &first);
	if ((mh.msg_flags & MSG_CTRUNC) || cnt > 1 || (cnt == 1 && !(allow && *fd_out < 0))) {
		if (first >= 0)
			close(first);
		return -2;
	}
	if (cnt == 1)
		*fd_out = first;
	return n;
}

int ipc_send(int sock, uint32_t type, uint32_t id, const void *payload, size_t len,
	     int pass_fd, bh_error *err)
{
	unsigned char hb[IPC_HDR_SIZE];
	ipc_hdr h = {type, (uint32_t)len, id, pass_fd >= 0 ? IPC_F_FD : 0};
	size_t total, done = 0;
	if (len > IPC_MAX_PAYLOAD)
		return bh_error_set(err, BH_ELIMIT, "message of %zu bytes exceeds the %u-byte frame limit",
				    len, IPC_MAX_PAYLOAD);
	ipc_hdr_encode(&h, hb);
	total = IPC_HDR_SIZE + len;
	while (done < total) {
		struct iovec iov[2];
		int niov = 0;
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} cm;
		struct msghdr mh = {0};
		ssize_t n;
		if (done < IPC_HDR_SIZE) {
			iov[niov].iov_base = hb + done;
			iov[niov++].iov_len = IPC_HDR_SIZE - done;
			if (len) {
				iov[niov].iov_base = (void *)payload;
				iov[niov++].iov_len = len;
			}
		} else {
			iov[niov].iov_base = (unsigned char *)payload + (done - IPC_HDR_SIZE);
			iov[niov++].iov_len = total - done;
		}
		mh.msg_iov = iov;
		mh.msg_iovlen = niov;
		if (done == 0 && pass_fd >= 0) {
			struct cmsghdr *c;
			memset(&cm, 0, sizeof cm);
			mh.msg_control = cm.buf;
			mh.msg_controllen = sizeof cm.buf;
			c = CMSG_FIRSTHDR(&mh);
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			c->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
		}
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return bh_error_set(err, BH_EIO, "sending frame of type %u: %s", type, strerror(errno));
		}
		done += (size_t)n;
	}
	return 0;
}

int ipc_recv(int sock, uint32_t max, int allow_fd, ipc_msg *m, bh_error *err)
{
	unsigned char hb[IPC_HDR_SIZE];
	size_t got = 0;
	int fd = -1, rc;
	m->payload = m->mem = NULL;
	m->fd = -1;
	while (got < IPC_HDR_SIZE) {
		ssize_t n = recv_some(sock, hb + got, IPC_HDR_SIZE - got, 0, allow_fd, &fd);
		if (n == -2)
			goto fdviol;
		if (n < 0) {
			rc = bh_error_set(err, BH_EIO, "reading frame header: %s", strerror(errno));
			goto fail;
		}
		if (n == 0) {
			rc = bh_error_set(err, BH_EIO, "peer closed the channel");
			goto fail;
		}
		got += (size_t)n;
	}
	if ((rc = ipc_hdr_decode(hb, max, &m->hdr, err)) < 0)
		goto fail;
	if (!(m->hdr.flags & IPC_F_FD) != (fd < 0)) {
		rc = bh_error_set(err, BH_EPROTO, "frame of type %u: fd flag does not match the fds received",
				  m->hdr.type);
		goto fail;
	}
	m->payload = malloc((size_t)m->hdr.len + 1);
	if (!m->payload) {
		rc = bh_error_set(err, BH_ENOMEM, "out of memory for a %u-byte frame", m->hdr.len);
		goto fail;
	}
	got = 0;
	while (got < m->hdr.len) {
		ssize_t n = recv_some(sock, m->payload + got, m->hdr.len - got, 0, 0, &fd);
		if (n == -2)
			goto fdviol;
		if (n <= 0) {
			rc = bh_error_set(err, BH_EIO, "reading %u-byte frame payload: %s", m->hdr.len,
					  n == 0 ? "peer closed the channel" : strerror(errno));
			goto fail;
		}
		got += (size_t)n;
	}
	m->payload[m->hdr.len] = '\0';
	m->mem = m->payload;
	m->fd = fd;
	return 0;
fdviol:
	rc = bh_error_set(err, BH_EPROTO, "peer passed a file descriptor where none is allowed");
fail:
	if (fd >= 0)
		close(fd);
	free(m->payload);
	m->payload = NULL;
	m->fd = -1;
	return rc;
}

/* The reader's first buffer: room for the frames a worker sends in a burst
 * (log lines, requests, a result), read with one recvmsg. */
#define IPC_STAGE 16384

void ipc_reader_init(ipc_reader *r, uint32_t max, int allow_fd)
{
	memset(r, 0, sizeof *r);
	r->max = max > IPC_MAX_PAYLOAD ? IPC_MAX_PAYLOAD : max;
	r->allow_fd = allow_fd;
	r->fd = -1;
}

void ipc_reader_free(ipc_reader *r)
{
	free(r->buf);
	r->buf = NULL;
	r->cap = r->off = r->len = r->nul_at = 0;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

/* The bytes the frame at off spans when its header is buffered, else 0. */
static size_t frame_size(const ipc_reader *r)
{
	return r->len - r->off >= IPC_HDR_SIZE ? IPC_HDR_SIZE + (size_t)get32(r->buf + r->off + 4) : 0;
}

int ipc_reader_more(const ipc_reader *r)
{
	size_t need = frame_size(r);
	return r->full || (need && r->len - r->off >= need);
}

/* Room in buf for need bytes from off and a NUL after them. */
static int reserve(ipc_reader *r, size_t need, bh_error *err)
{
	size_t avail = r->len - r->off, cap;
	unsigned char *b;
	if (r->off + need + 1 <= r->cap)
		return 0;
	if (r->off) {
		memmove(r->buf, r->buf + r->off, avail);
		r->off = 0;
		r->len = avail;
		if (need + 1 <= r->cap)
			return 0;
	}
	/* a frame larger than the stage gets room for a stage more: the read
	 * of its rest may then stop short of the room, which shows the socket
	 * drained (room for exactly the frame is filled by every read of it,
	 * and one more recvmsg had to find EAGAIN) */
	cap = need + 1 > IPC_STAGE ? need + 1 + IPC_STAGE : IPC_STAGE;
	if (!(b = realloc(r->buf, cap)))
		return bh_error_set(err, BH_ENOMEM, "out of memory for a %zu-byte frame", need - IPC_HDR_SIZE);
	r->buf = b;
	r->cap = cap;
	return 0;
}

int ipc_reader_read(ipc_reader *r, int sock, ipc_msg *m, bh_error *err)
{
	int short_read = 0;
	if (r->nul_at) { /* the last frame handed out is given up now */
		r->buf[r->nul_at] = r->nul_was;
		r->nul_at = 0;
	}
	for (;;) {
		size_t avail = r->len - r->off, need = IPC_HDR_SIZE, want;
		ssize_t n;
		int rc;
		if (avail == 0)
			r->off = r->len = 0;
		if (avail >= IPC_HDR_SIZE) {
			ipc_hdr h;
			if ((rc = ipc_hdr_decode(r->buf + r->off, r->max, &h, err)) < 0)
				return rc;
			need += h.len;
			if (avail >= need) {
				if (!(h.flags & IPC_F_FD) != (r->fd < 0))
					return bh_error_set(err, BH_EPROTO,
							    "frame of type %u: fd flag does not match the fds received", h.type);
				m->hdr = h;
				m->payload = r->buf + r->off + IPC_HDR_SIZE;
				m->mem = NULL;
				m->fd = r->fd;
				r->fd = -1;
				r->off += need;
				if (r->off < r->len) { /* the next frame's first byte, back at the next call */
					r->nul_at = r->off;
					r->nul_was = r->buf[r->off];
				}
				r->buf[r->off] = '\0';
				return IPC_MSG;
			}
		}
		if (short_read) /* the socket had no more */
			return IPC_AGAIN;
		if ((rc = reserve(r, need, err)) < 0)
			return rc;
		/* a reader that allows fds reads no further than this frame */
		want = r->allow_fd ? need - avail : r->cap - 1 - r->len;
		/* MSG_DONTWAIT, as the writer's sends: the socket itself may
		 * block (spawn.h's, no fcntl per worker) */
		n = recv_some(sock, r->buf + r->len, want, MSG_DONTWAIT, r->allow_fd, &r->fd);
		if (n == -2)
			return bh_error_set(err, BH_EPROTO, "peer passed a file descriptor where none is allowed");
		if (n < 0) {
			r->full = 0;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return IPC_AGAIN;
			if (errno != ECONNRESET)
				return bh_error_set(err, BH_EIO, "reading from peer: %s", strerror(errno));
			/* the peer went away with our bytes unread (a killed worker, a
			 * supervisor gone): the end of the channel, as a close is */
			n = 0;
		}
		if (n == 0) {
			r->full = 0;
			if (avail == 0)
				return IPC_EOF;
			return bh_error_set(err, BH_EPROTO, "peer closed the channel inside a frame");
		}
		r->len += (size_t)n;
		r->full = (size_t)n == want;
		short_read = !r->full;
	}
}

void ipc_outq_init(ipc_outq *q)
{
	bh_buf_init(&q->buf);
	q->off = 0;
	q->fd = -1;
	q->fd_at = 0;
}

void ipc_outq_free(ipc_outq *q)
{
	bh_buf_free(&q->buf);
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
	q->off = 0;
}

int ipc_outq_push2(ipc_outq *q, uint32_t type, uint32_t id, const void *head, size_t hlen, const void *body,
		   size_t blen, int pass_fd, bh_error *err)
{
	unsigned char hb[IPC_HDR_SIZE];
	size_t len = hlen + blen;
	ipc_hdr h = {type, (uint32_t)len, id, pass_fd >= 0 ? IPC_F_FD : 0};
	if (hlen > IPC_MAX_PAYLOAD || blen > IPC_MAX_PAYLOAD - hlen) {
		if (pass_fd >= 0)
			close(pass_fd);
		return bh_error_set(err, BH_ELIMIT, "message of %zu bytes exceeds the frame limit", hlen + blen);
	}
	if (pass_fd >= 0 && q->fd >= 0) {
		close(pass_fd);
		return bh_error_set(err, BH_EINVAL, "an fd is already pending on this channel");
	}
	if (q->off == q->buf.len) {
		bh_buf_reset(&q->buf);
		q->off = 0;
	}
	ipc_hdr_encode(&h, hb);
	if (pass_fd >= 0) {
		q->fd = pass_fd;
		q->fd_at = q->buf.len;
	}
	if (bh_buf_grow(&q->buf, sizeof hb + len) == 0) {
		bh_buf_put(&q->buf, hb, sizeof hb);
		bh_buf_put(&q->buf, head, hlen);
		bh_buf_put(&q->buf, body, blen);
	}
	if (!bh_buf_ok(&q->buf))
		return bh_error_set(err, BH_ENOMEM, "out of memory queueing a frame");
	return 0;
}

int ipc_outq_send2(ipc_outq *q, int sock, uint32_t type, uint32_t id, const void *head, size_t hlen,
		   const void *body, size_t blen, bh_error *err)
{
	unsigned char hb[IPC_HDR_SIZE];
	ipc_hdr h = {type, (uint32_t)(hlen + blen), id, 0};
	struct iovec iov[3];
	struct msghdr mh = {0};
	size_t skip, total = sizeof hb + hlen + blen;
	ssize_t n;
	if (sock < 0 || q->off < q->buf.len || hlen > IPC_MAX_PAYLOAD || blen > IPC_MAX_PAYLOAD - hlen)
		return ipc_outq_push2(q, type, id, head, hlen, body, blen, -1, err);
	ipc_hdr_encode(&h, hb);
	iov[0] = (struct iovec){hb, sizeof hb};
	iov[1] = (struct iovec){(void *)head, hlen};
	iov[2] = (struct iovec){(void *)body, blen};
	mh.msg_iov = iov;
	mh.msg_iovlen = 3;
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0) /* full (EAGAIN), or the peer is gone: queued, the flush says so */
		return ipc_outq_push2(q, type, id, head, hlen, body, blen, -1, err);
	if ((size_t)n == total)
		return 0;
	/* the unsent tail of the frame, as the queue would hold it */
	skip = (size_t)n;
	bh_buf_reset(&q->buf);
	q->off = 0;
	for (int i = 0; i < 3; i++) {
		if (skip >= iov[i].iov_len) {
			skip -= iov[i].iov_len;
			continue;
		}
		bh_buf_put(&q->buf, (const unsigned char *)iov[i].iov_base + skip, iov[i].iov_len - skip);
		skip = 0;
	}
	if (!bh_buf_ok(&q->buf))
		return bh_error_set(err, BH_ENOMEM, "out of memory queueing a frame");
	return 0;
}

int ipc_outq_push(ipc_outq *q, uint32_t type, uint32_t id, const void *payload, size_t len,
		  int pass_fd, bh_error *err)
{
	return ipc_outq_push2(q, type, id, NULL, 0, payload, len, pass_fd, err);
}

int ipc_outq_pending(const ipc_outq *q)
{
	return q->off < q->buf.len;
}

int ipc_outq_flush(ipc_outq *q, int sock, bh_error *err)
{
	while (q->off < q->buf.len) {
		struct iovec iov;
		struct msghdr mh = {0};
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} cm;
		size_t end = q->buf.len;
		ssize_t n;
		int with_fd = q->fd >= 0 && q->off == q->fd_at;
		if (q->fd >= 0 && q->off < q->fd_at)
			end = q->fd_at; /* the fd must ride on its own frame's first byte */
		iov.iov_base = q->buf.data + q->off;
		iov.iov_len = end - q->off;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		if (with_fd) {
			struct cmsghdr *c;
			memset(&cm, 0, sizeof cm);
			mh.msg_control = cm.buf;
			mh.msg_controllen = sizeof cm.buf;
			c = CMSG_FIRSTHDR(&mh);
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			c->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(c), &q->fd, sizeof(int));
		}
		n = sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return bh_error_set(err, BH_EIO, "writing to peer: %s", strerror(errno));
		}
		if (with_fd && n > 0) {
			close(q->fd);
			q->fd = -1;
		}
		q->off += (size_t)n;
	}
	bh_buf_reset(&q->buf);
	q->off = 0;
	return 1;
}
