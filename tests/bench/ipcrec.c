/* tests/bench/ipcrec.c — see ipcrec.h. */
#include "tests/bench/ipcrec.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buf.h"

int ipcrec_write_all(int fd, const void *p, size_t n)
{
	const unsigned char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int ipcrec_append(int fd, char dir, const ipc_hdr *h, const void *payload, const void *file, size_t file_len,
		  bh_error *err)
{
	unsigned char head[1 + IPC_HDR_SIZE], len[8];
	head[0] = (unsigned char)dir;
	ipc_hdr_encode(h, head + 1);
	for (int i = 0; i < 8; i++)
		len[i] = (unsigned char)((uint64_t)file_len >> (8 * i));
	if (ipcrec_write_all(fd, head, sizeof head) < 0 || ipcrec_write_all(fd, payload, h->len) < 0 ||
	    ((h->flags & IPC_F_FD) && (ipcrec_write_all(fd, len, sizeof len) < 0 || ipcrec_write_all(fd, file, file_len) < 0)))
		return bh_error_set(err, BH_EIO, "writing the recording: %s", strerror(errno));
	return 0;
}

void ipcrec_free(ipcrec *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->f[i].payload);
		free(r->f[i].file);
	}
	free(r->f);
	r->f = NULL;
	r->n = 0;
}

/* n bytes of the file at *off, copied to a new NUL-terminated buffer */
static unsigned char *take(const bh_buf *b, size_t *off, size_t n)
{
	unsigned char *p;
	if (n > b->len - *off || !(p = malloc(n + 1)))
		return NULL;
	memcpy(p, b->data + *off, n);
	p[n] = 0;
	*off += n;
	return p;
}

int ipcrec_load(const char *path, ipcrec *r, bh_error *err)
{
	bh_buf b = BH_BUF_INIT;
	size_t off = sizeof IPCREC_MAGIC - 1, cap = 0;
	char chunk[65536];
	size_t got;
	FILE *f = fopen(path, "rb");
	r->f = NULL;
	r->n = 0;
	if (!f)
		return bh_error_set(err, BH_ENOTFOUND, "%s: %s", path, strerror(errno));
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
		bh_buf_put(&b, chunk, got);
	fclose(f);
	if (!bh_buf_ok(&b)) {
		bh_buf_free(&b);
		return bh_error_set(err, BH_ENOMEM, "out of memory reading %s", path);
	}
	if (b.len < off || memcmp(b.data, IPCREC_MAGIC, off) != 0) {
		bh_buf_free(&b);
		return bh_error_set(err, BH_EPROTO, "%s: not a worker IPC recording", path);
	}
	while (off < b.len) {
		ipcrec_frame fr = {0};
		if (b.len - off < 1 + IPC_HDR_SIZE || (b.data[off] != IPCREC_TO_WORKER && b.data[off] != IPCREC_FROM_WORKER) ||
		    ipc_hdr_decode((const unsigned char *)b.data + off + 1, IPC_MAX_PAYLOAD, &fr.hdr, err) < 0)
			goto bad;
		fr.dir = b.data[off];
		off += 1 + IPC_HDR_SIZE;
		if (!(fr.payload = take(&b, &off, fr.hdr.len)))
			goto bad;
		if (fr.hdr.flags & IPC_F_FD) {
			uint64_t n = 0;
			if (b.len - off < 8) {
				free(fr.payload);
				goto bad;
			}
			for (int i = 0; i < 8; i++)
				n |= (uint64_t)(unsigned char)b.data[off + i] << (8 * i);
			off += 8;
			if (!(fr.file = take(&b, &off, n))) {
				free(fr.payload);
				goto bad;
			}
			fr.file_len = n;
		}
		if (r->n == cap) {
			ipcrec_frame *g = realloc(r->f, (cap = cap ? cap * 2 : 64) * sizeof *g);
			if (!g) {
				free(fr.payload);
				free(fr.file);
				goto bad;
			}
			r->f = g;
		}
		r->f[r->n++] = fr;
	}
	bh_buf_free(&b);
	return 0;
bad:
	bh_buf_free(&b);
	ipcrec_free(r);
	return bh_error_set(err, BH_EPROTO, "%s: a truncated or bad frame at byte %zu", path, off);
}
