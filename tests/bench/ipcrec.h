/* tests/bench/ipcrec.h — one worker's IPC conversation on disk: what
 * worker_tap writes while it sits between bulkheadd and a worker, and what
 * worker_replay plays back to the worker's job code.
 *
 * The file is IPCREC_MAGIC, then every frame in the order the tap saw it:
 * its direction (IPCREC_TO_WORKER or IPCREC_FROM_WORKER), its 16-byte
 * header as on the wire (ipc/ipc.h), its payload, and for a frame that
 * carried a file descriptor (the job's chart artifact) an 8-byte
 * little-endian length and the file's bytes. */
#ifndef BH_BENCH_IPCREC_H
#define BH_BENCH_IPCREC_H

#include <stddef.h>

#include "ipc/ipc.h"
#include "lib/error.h"

#define IPCREC_MAGIC "bulkhead-ipc-record 1\n"
enum { IPCREC_TO_WORKER = 'S', IPCREC_FROM_WORKER = 'W' };

typedef struct ipcrec_frame {
	char dir;
	ipc_hdr hdr;
	unsigned char *payload; /* hdr.len bytes and a NUL */
	unsigned char *file;    /* the passed fd's bytes (IPC_F_FD), or NULL */
	size_t file_len;
} ipcrec_frame;

typedef struct ipcrec {
	ipcrec_frame *f;
	size_t n;
} ipcrec;

/* Writes all n bytes of p to fd (again after EINTR and short writes);
 * 0, or -1 with errno. Also the benchmarks' plain writer (bench_relay). */
int ipcrec_write_all(int fd, const void *p, size_t n);
/* Appends one frame to fd (file: the passed fd's bytes, or NULL). */
int ipcrec_append(int fd, char dir, const ipc_hdr *h, const void *payload, const void *file, size_t file_len,
		  bh_error *err);
/* Reads a whole recording; ipcrec_free releases it. */
int ipcrec_load(const char *path, ipcrec *r, bh_error *err);
void ipcrec_free(ipcrec *r);

#endif
