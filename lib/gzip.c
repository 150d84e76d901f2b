/* lib/gzip.c — see gzip.h. */
#include "lib/gzip.h"

#include <libdeflate.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>

struct bh_gzipper {
	struct libdeflate_compressor *c;
};

bh_gzipper *bh_gzipper_new(int level)
{
	bh_gzipper *g;
	if (level < 1 || level > 12 || !(g = malloc(sizeof *g)))
		return NULL;
	if (!(g->c = libdeflate_alloc_compressor(level))) {
		free(g);
		return NULL;
	}
	return g;
}

void bh_gzipper_free(bh_gzipper *g)
{
	if (!g)
		return;
	libdeflate_free_compressor(g->c);
	free(g);
}

int bh_gzipper_member(bh_gzipper *g, const void *in, size_t n, bh_buf *out, bh_error *err)
{
	/* Go's compress/gzip header: no flags, mtime 0, XFL 0, OS unknown */
	static const unsigned char head[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255};
	size_t bound = libdeflate_deflate_compress_bound(g->c, n), z;
	uint32_t crc;
	unsigned char *p;
	if (!in)
		in = "";
	if (bh_buf_grow(out, sizeof head + bound + 8) < 0)
		return bh_error_set(err, BH_ENOMEM, "gzip: out of memory");
	p = (unsigned char *)out->data + out->len;
	memcpy(p, head, sizeof head);
	/* within the bound libdeflate never runs out of room: 0 is no output */
	z = libdeflate_deflate_compress(g->c, in, n, p + sizeof head, bound);
	if (!z)
		return bh_error_set(err, BH_ENOMEM, "gzip: compression failed");
	crc = libdeflate_crc32(0, in, n);
	p += sizeof head + z;
	for (int i = 0; i < 4; i++) {
		p[i] = (unsigned char)(crc >> (8 * i));
		p[4 + i] = (unsigned char)((uint32_t)n >> (8 * i)); /* ISIZE: the length mod 2^32 */
	}
	out->len += sizeof head + z + 8;
	out->data[out->len] = '\0';
	return 0;
}

int bh_gzip(const void *in, size_t n, int level, bh_buf *out, bh_error *err)
{
	bh_gzipper *g = bh_gzipper_new(level);
	int rc;
	if (!g)
		return level < 1 || level > 12 ? bh_error_set(err, BH_EINVAL, "gzip: level %d out of range (1-12)", level)
					       : bh_error_set(err, BH_ENOMEM, "gzip: out of memory");
	rc = bh_gzipper_member(g, in, n, out, err);
	bh_gzipper_free(g);
	return rc;
}

int bh_gzip_best(const void *in, size_t n, bh_buf *out, bh_error *err)
{
	return bh_gzip(in, n, 9, out, err);
}
