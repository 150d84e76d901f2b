/* lib/gzip.c — see gzip.h. */
#include "lib/gzip.h"

#include <string.h>
#include <zlib.h>

int bh_gzip_best(const void *in, size_t n, bh_buf *out, bh_error *err)
{
	return bh_gzip(in, n, Z_BEST_COMPRESSION, out, err);
}

int bh_gzip(const void *in, size_t n, int level, bh_buf *out, bh_error *err)
{
	z_stream z;
	gz_header h;
	unsigned char chunk[16384];
	int rc;
	memset(&z, 0, sizeof z);
	memset(&h, 0, sizeof h);
	if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return bh_error_set(err, BH_ENOMEM, "gzip: deflateInit2 failed");
	h.os = 255; /* Go's compress/gzip: OS unknown, mtime 0 */
	deflateSetHeader(&z, &h);
	z.next_in = (unsigned char *)(in ? in : "");
	z.avail_in = (uInt)n;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof chunk;
		rc = deflate(&z, Z_FINISH);
		bh_buf_put(out, chunk, sizeof chunk - z.avail_out);
	} while (rc == Z_OK);
	deflateEnd(&z);
	if (rc != Z_STREAM_END || !bh_buf_ok(out))
		return bh_error_set(err, BH_EIO, "gzip: compression failed");
	return 0;
}
