/* fetcher/tarball.c — see tarball.h. */
#include "fetcher/tarball.h"

#include <stdio.h>
#include <string.h>

#include "lib/gzip.h"

/* v in n-1 octal digits and a NUL (the low digits when v is larger) */
static void octal(char *dst, size_t n, unsigned long long v)
{
	dst[n - 1] = '\0';
	for (size_t i = n - 1; i-- > 0; v >>= 3)
		dst[i] = (char)('0' + (v & 7));
}

int tarball_put(bh_buf *tar, const char *name, const void *data, size_t len, long long mtime, bh_error *err)
{
	char h[512];
	size_t nl = strlen(name), cut = 0;
	unsigned sum = 0;
	memset(h, 0, sizeof h);
	if (nl > 100) { /* ustar: prefix/name split at a '/' */
		for (cut = nl - 1; cut > 0 && (name[cut] != '/' || nl - cut - 1 > 100 || cut > 155); cut--)
			;
		if (!cut)
			return bh_error_set(err, BH_ELIMIT, "chart file name too long to package: %.200s", name);
		memcpy(h + 345, name, cut);
		memcpy(h, name + cut + 1, nl - cut - 1);
	} else {
		memcpy(h, name, nl);
	}
	octal(h + 100, 8, 0644);
	octal(h + 108, 8, 0);
	octal(h + 116, 8, 0);
	octal(h + 124, 12, len);
	octal(h + 136, 12, mtime > 0 ? (unsigned long long)mtime : 0);
	h[156] = '0';
	memcpy(h + 257, "ustar\0" "00", 8);
	memset(h + 148, ' ', 8);
	for (size_t i = 0; i < sizeof h; i++)
		sum += (unsigned char)h[i];
	snprintf(h + 148, 8, "%06o", sum);
	bh_buf_put(tar, h, sizeof h);
	bh_buf_put(tar, data ? data : "", len);
	memset(h, 0, sizeof h);
	bh_buf_put(tar, h, (512 - len % 512) % 512);
	return 0;
}

int tarball_finish(bh_buf *tar, bh_buf *out, bh_error *err)
{
	static const char zero[1024];
	bh_buf_put(tar, zero, sizeof zero);
	if (!bh_buf_ok(tar))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	return bh_gzip_best(tar->data, tar->len, out, err);
}
