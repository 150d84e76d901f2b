/* tests/fuzz/fuzz_ipc.c — the supervisor's non-blocking frame reader
 * (ipc_reader, the one that reads a worker's bytes) on a hostile stream.
 * The input's first byte sets the size of the pieces the stream arrives in
 * (1 to 256 bytes); the rest is the stream, written into a socketpair piece
 * by piece, each piece followed by reads while the reader has more. Every
 * frame handed out must be the next bytes sent (its payload NUL-terminated,
 * within the limit), and once the stream is sent no whole frame may be left
 * undelivered; after an error or EOF the reader is not used again.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipc/ipc.h"

#define LIMIT 4096

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int sv[2], dead = 0;
	ipc_reader r;
	size_t piece, off = 0, got = 0;
	if (size < 1 || size > 65536)
		return 0;
	piece = (size_t)data[0] + 1;
	data++;
	size--;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 || fcntl(sv[1], F_SETFL, O_NONBLOCK) < 0)
		abort();
	ipc_reader_init(&r, LIMIT, 0);
	while (off < size && !dead) {
		size_t k = size - off < piece ? size - off : piece;
		if (write(sv[0], data + off, k) != (ssize_t)k)
			abort();
		off += k;
		for (;;) {
			ipc_msg m;
			bh_error e;
			int rc = ipc_reader_read(&r, sv[1], &m, &e);
			if (rc < 0 || rc == IPC_EOF) {
				dead = 1;
				break;
			}
			if (rc == IPC_AGAIN)
				break;
			if (m.hdr.len > LIMIT || m.fd != -1 || m.mem || got + IPC_HDR_SIZE + m.hdr.len > off ||
			    le32(data + got) != m.hdr.type || le32(data + got + 4) != m.hdr.len ||
			    le32(data + got + 8) != m.hdr.id || m.payload[m.hdr.len] != '\0' ||
			    memcmp(m.payload, data + got + IPC_HDR_SIZE, m.hdr.len) != 0)
				abort();
			got += IPC_HDR_SIZE + m.hdr.len;
			ipc_msg_free(&m);
			if (!ipc_reader_more(&r))
				break;
		}
	}
	/* what is left is less than one whole frame (or the reader stopped) */
	if (!dead && size - got >= IPC_HDR_SIZE && le32(data + got + 4) <= LIMIT &&
	    size - got >= IPC_HDR_SIZE + (size_t)le32(data + got + 4) && le32(data + got + 12) == 0)
		abort();
	ipc_reader_free(&r);
	close(sv[0]);
	close(sv[1]);
	return 0;
}
