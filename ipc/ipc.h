/* ipc/ipc.h — framing of supervisor<->worker messages over an AF_UNIX
 * SOCK_STREAM socketpair (imsg style). Every frame is a fixed 16-byte header
 * {type, len, id, flags} (little-endian u32s; len = payload bytes, id = request
 * id) followed by len payload bytes. A frame longer than the receiver's limit
 * (at most IPC_MAX_PAYLOAD, OpenSSH's 4 MiB) is refused before anything is
 * allocated. One file descriptor may travel with a frame (SCM_RIGHTS on its
 * first byte, flag IPC_F_FD) only where the receiver allows it; any other fd
 * received is closed and reported as a protocol violation.
 *
 * Worker side: blocking ipc_send()/ipc_recv(). Supervisor side: non-blocking
 * ipc_reader (incremental, never blocks, never trusts a byte) and ipc_outq
 * (queued writes flushed when the socket is writable), so a peer that stops
 * reading or writing cannot stall the supervisor. Both pass MSG_DONTWAIT on
 * each call: the socket may be a blocking one. */
#ifndef BH_IPC_H
#define BH_IPC_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/error.h"

#define IPC_HDR_SIZE 16
#define IPC_MAX_PAYLOAD (4u * 1024 * 1024 - IPC_HDR_SIZE)
#define IPC_F_FD 0x1u /* a file descriptor travels with this frame */

typedef struct ipc_hdr {
	uint32_t type;
	uint32_t len;   /* payload length, header excluded */
	uint32_t id;    /* request id (0 when unused) */
	uint32_t flags; /* IPC_F_* */
} ipc_hdr;

/* A received message. payload is NUL-terminated for convenience (len
 * excludes it); fd is -1 unless one was passed. From ipc_recv the payload is
 * malloc'ed (mem); from ipc_reader_read it lies in the reader's buffer (mem
 * NULL) and is valid until the reader's next call. ipc_msg_free frees mem
 * and closes fd either way. */
typedef struct ipc_msg {
	ipc_hdr hdr;
	unsigned char *payload;
	int fd;
	unsigned char *mem;
} ipc_msg;

void ipc_msg_free(ipc_msg *m);

/* Pure header codec. decode checks len <= max and that flags holds only
 * known bits; returns 0 or BH_ELIMIT/BH_EPROTO. */
void ipc_hdr_encode(const ipc_hdr *h, unsigned char out[IPC_HDR_SIZE]);
int ipc_hdr_decode(const unsigned char in[IPC_HDR_SIZE], uint32_t max, ipc_hdr *h, bh_error *err);

/* Blocking send of one frame (retries on EINTR/partial writes). pass_fd >= 0
 * is attached to the frame. */
int ipc_send(int sock, uint32_t type, uint32_t id, const void *payload, size_t len,
	     int pass_fd, bh_error *err);

/* Blocking receive of one frame with payload <= max. An fd is accepted only
 * when allow_fd is set. Returns 0, or BH_EIO with "peer closed" on EOF. */
int ipc_recv(int sock, uint32_t max, int allow_fd, ipc_msg *m, bh_error *err);

/* Incremental non-blocking reader (MSG_DONTWAIT: the socket needs no
 * O_NONBLOCK). It reads as much as the socket holds
 * into one buffer (one recvmsg for many frames) and hands frames out of it;
 * a reader that allows fds reads frame by frame, so an fd belongs to the
 * frame on whose first byte it came. */
typedef struct ipc_reader {
	unsigned char *buf;
	size_t cap, off, len; /* bytes [off, len) of buf are not handed out yet */
	size_t nul_at;        /* where the last frame's NUL replaced a byte ... */
	unsigned char nul_was; /* ... and that byte (nul_at 0: none) */
	int full;             /* the last read filled what it asked for */
	uint32_t max;
	int allow_fd;
	int fd; /* fd received with the current frame, or -1 */
} ipc_reader;

enum { IPC_AGAIN = 0, IPC_MSG = 1, IPC_EOF = 2 };

void ipc_reader_init(ipc_reader *r, uint32_t max, int allow_fd);
void ipc_reader_free(ipc_reader *r);
/* Returns IPC_MSG with *m filled (its payload borrowed from the reader, see
 * ipc_msg) when a whole frame is buffered or arrives, IPC_AGAIN when the
 * socket has no whole frame for now, IPC_EOF when the peer closed between
 * frames (also when it went away leaving our bytes unread: ECONNRESET), or a negative code (oversized frame, bad flags, unexpected fd, EOF
 * inside a frame, read error). After an error the reader must not be used
 * again. */
int ipc_reader_read(ipc_reader *r, int sock, ipc_msg *m, bh_error *err);
/* After IPC_MSG: nonzero when another call may find a frame without the
 * socket becoming readable again (one is buffered, or the last read was
 * not short); zero means wait for poll (saves a read that would fail). */
int ipc_reader_more(const ipc_reader *r);

/* Queued non-blocking writer. */
typedef struct ipc_outq {
	bh_buf buf;
	size_t off;  /* bytes of buf already sent */
	int fd;      /* fd to attach at byte fd_at, or -1 */
	size_t fd_at;
} ipc_outq;

void ipc_outq_init(ipc_outq *q);
void ipc_outq_free(ipc_outq *q); /* closes a pending fd */
/* Appends a frame; pass_fd (or -1) is owned by the queue from now on. Only
 * one fd may be pending at a time. */
int ipc_outq_push(ipc_outq *q, uint32_t type, uint32_t id, const void *payload, size_t len,
		  int pass_fd, bh_error *err);
/* The same for a payload in two parts, head then body, copied once into
 * the queue (no payload buffer built first). */
int ipc_outq_push2(ipc_outq *q, uint32_t type, uint32_t id, const void *head, size_t hlen, const void *body,
		   size_t blen, int pass_fd, bh_error *err);
/* The same frame (no fd) written straight to sock when nothing is queued
 * before it: head and body go out from where they are, one sendmsg, and
 * only what the socket did not take is copied into the queue (then, or on
 * any write error, it behaves as ipc_outq_push2: the caller's flush reports
 * it). Returns 0, or negative when the frame cannot be queued. */
int ipc_outq_send2(ipc_outq *q, int sock, uint32_t type, uint32_t id, const void *head, size_t hlen,
		   const void *body, size_t blen, bh_error *err);
/* Writes what the socket accepts. Returns 1 when everything was sent, 0 when
 * bytes remain (wait for POLLOUT), negative on error. */
int ipc_outq_flush(ipc_outq *q, int sock, bh_error *err);
int ipc_outq_pending(const ipc_outq *q);

#endif
