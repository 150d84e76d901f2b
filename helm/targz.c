/* helm/targz.c — see targz.h. Follows Go's archive/tar reader: a header
 * block's checksum is checked (signed or unsigned sum), two zero blocks
 * (or the end of the stream at a block boundary) end the archive, PAX 'x'
 * records and GNU 'L'/'K' long names apply to the next entry (a GNU name
 * wins over a PAX path, which wins over the block's own), a '\0' typeflag
 * is a directory when the name ends in '/', and header-only entries (links,
 * devices, directories, FIFOs) carry no data whatever their size says. */
#include "helm/targz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>
#include <zlib.h>

#define BLOCK 512
#define MAX_SPECIAL ((uint64_t)1 << 20) /* Go's maxSpecialFileSize */
/* The largest stream inflated whole up front (inflate_whole); larger ones
 * are read as a stream, in a window of zlib's. */
#define WHOLE_MAX ((uint32_t)16 << 20)

struct targz {
	z_stream z;
	int zinit;
	unsigned char *whole; /* the stream inflated whole (inflate_whole), or NULL */
	size_t whole_len, whole_at;
	int zend;            /* the last gzip member ended and no input is left */
	uint64_t inflated;   /* bytes produced so far */
	uint64_t max;
	uint64_t remain;     /* unread data of the current entry */
	uint64_t pad;        /* padding after it */
	char *name, *link;   /* the current entry's names */
	unsigned char blk[BLOCK];
};

static int corrupt(bh_error *err, const char *what)
{
	return bh_error_set(err, BH_EINVAL, "%s", what);
}

/* The whole stream of u[0..len) inflated at once by libdeflate (about twice
 * zlib's speed, and a CRC-32 with carry-less multiplies) when it is one
 * gzip member, without a header CRC (which zlib checks and libdeflate
 * skips), that ends the input and whose trailer's size is at most max and
 * WHOLE_MAX: 1. Else 0 and nothing is kept: the stream is then read by
 * zlib (zread), with its errors, as if this were not tried. Both check the
 * member's CRC-32 and size, so what is kept is what zlib would read. */
static int inflate_whole(targz *t, const unsigned char *u, size_t len)
{
	struct libdeflate_decompressor *d;
	enum libdeflate_result r = LIBDEFLATE_BAD_DATA;
	size_t in_used = 0, out_len = 0;
	uint32_t isize;
	if (len < 18 || (u[3] & 0x02))
		return 0;
	isize = (uint32_t)u[len - 4] | (uint32_t)u[len - 3] << 8 | (uint32_t)u[len - 2] << 16 |
		(uint32_t)u[len - 1] << 24;
	if (isize == 0 || isize > t->max || isize > WHOLE_MAX)
		return 0;
	if (!(t->whole = malloc(isize)))
		return 0;
	if ((d = libdeflate_alloc_decompressor())) {
		r = libdeflate_gzip_decompress_ex(d, u, len, t->whole, isize, &in_used, &out_len);
		libdeflate_free_decompressor(d);
	}
	if (r != LIBDEFLATE_SUCCESS || in_used != len || out_len != isize) {
		free(t->whole);
		t->whole = NULL;
		return 0;
	}
	t->whole_len = isize;
	return 1;
}

targz *targz_new(const void *buf, size_t len, uint64_t max_inflated, bh_error *err)
{
	const unsigned char *u = buf;
	if (len < 10 || u[0] != 0x1f || u[1] != 0x8b || u[2] != 8) {
		bh_error_set(err, BH_EINVAL, "gzip: invalid header");
		return NULL;
	}
	targz *t = calloc(1, sizeof *t);
	if (!t) {
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	t->max = max_inflated;
	if (inflate_whole(t, u, len))
		return t;
	t->z.next_in = (unsigned char *)u;
	t->z.avail_in = len > UINT32_MAX ? UINT32_MAX : (uInt)len;
	if (inflateInit2(&t->z, 16 + MAX_WBITS) != Z_OK) {
		free(t);
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	t->zinit = 1;
	return t;
}

void targz_free(targz *t)
{
	if (!t)
		return;
	if (t->zinit)
		inflateEnd(&t->z);
	free(t->whole);
	free(t->name);
	free(t->link);
	free(t);
}

/* Up to n decompressed bytes into dst: the count (less than n only at the
 * end of the stream) or a BH_E* code. */
static long zread(targz *t, unsigned char *dst, size_t n, bh_error *err)
{
	size_t got = 0;
	if (n > t->max - t->inflated) {
		if (t->max == t->inflated)
			return bh_error_set(err, BH_ELIMIT, "decompressed size exceeds %llu bytes",
					    (unsigned long long)t->max);
		n = (size_t)(t->max - t->inflated);
	}
	if (t->whole) {
		got = n < t->whole_len - t->whole_at ? n : t->whole_len - t->whole_at;
		memcpy(dst, t->whole + t->whole_at, got);
		t->whole_at += got;
	}
	while (got < n && !t->zend && !t->whole) {
		t->z.next_out = dst + got;
		t->z.avail_out = (uInt)(n - got);
		int r = inflate(&t->z, Z_NO_FLUSH);
		got = n - t->z.avail_out;
		if (r == Z_STREAM_END) {
			if (t->z.avail_in == 0)
				t->zend = 1;
			else if (inflateReset(&t->z) != Z_OK) /* the next member */
				return corrupt(err, "gzip: invalid header");
		} else if (r == Z_BUF_ERROR && t->z.avail_in == 0) {
			return corrupt(err, "unexpected EOF");
		} else if (r == Z_DATA_ERROR) {
			return bh_error_set(err, BH_EINVAL, "gzip: %s", t->z.msg ? t->z.msg : "invalid data");
		} else if (r == Z_MEM_ERROR) {
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		} else if (r != Z_OK && r != Z_BUF_ERROR) {
			return corrupt(err, "gzip: invalid data");
		}
	}
	t->inflated += got;
	return (long)got;
}

/* Exactly n bytes: 1, 0 when the stream ended before the first byte, or a
 * BH_E* code (a partial read is an unexpected EOF). */
static int read_full(targz *t, unsigned char *dst, size_t n, bh_error *err)
{
	size_t got = 0;
	while (got < n) {
		long r = zread(t, dst + got, n - got, err);
		if (r < 0)
			return (int)r;
		if (r == 0) {
			if (got == 0)
				return 0;
			return corrupt(err, "unexpected EOF");
		}
		got += (size_t)r;
	}
	return 1;
}

static int discard(targz *t, uint64_t n, bh_error *err)
{
	unsigned char scratch[4096];
	while (n) {
		size_t k = n < sizeof scratch ? (size_t)n : sizeof scratch;
		int r = read_full(t, scratch, k, err);
		if (r < 0)
			return r;
		if (r == 0)
			return corrupt(err, "unexpected EOF");
		n -= k;
	}
	return 0;
}

static int all_zero(const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

/* Go's parseNumeric: base-256 when the high bit is set, else octal with
 * spaces and NULs trimmed. -1 when invalid or negative. */
static int64_t parse_numeric(const unsigned char *b, size_t n)
{
	uint64_t x = 0;
	if (n && (b[0] & 0x80)) {
		if (b[0] & 0x40)
			return -1; /* negative */
		for (size_t i = 0; i < n; i++) {
			unsigned c = i == 0 ? (b[i] & 0x7f) : b[i];
			if (x >> 56)
				return -1;
			x = x << 8 | c;
		}
		return x >> 63 ? -1 : (int64_t)x;
	}
	while (n && (b[0] == ' ' || b[0] == 0)) {
		b++;
		n--;
	}
	while (n && (b[n - 1] == ' ' || b[n - 1] == 0))
		n--;
	for (size_t i = 0; i < n; i++) {
		if (b[i] < '0' || b[i] > '7' || (x >> 60))
			return -1;
		x = x * 8 + (uint64_t)(b[i] - '0');
	}
	return x >> 63 ? -1 : (int64_t)x;
}

/* The NUL-terminated prefix of a fixed-size field, as a new string. */
static char *field_str(const unsigned char *b, size_t n)
{
	size_t l = 0;
	while (l < n && b[l])
		l++;
	char *s = malloc(l + 1);
	if (s) {
		memcpy(s, b, l);
		s[l] = 0;
	}
	return s;
}

static int checksum_ok(const unsigned char *blk)
{
	int64_t want = parse_numeric(blk + 148, 8);
	int64_t us = 0, ss = 0;
	for (size_t i = 0; i < BLOCK; i++) {
		unsigned char c = i >= 148 && i < 156 ? ' ' : blk[i];
		us += c;
		ss += (signed char)c;
	}
	return want >= 0 && (want == us || want == ss);
}

typedef struct pending {
	char *pax_path, *pax_link, *gnu_name, *gnu_link;
	int64_t pax_size; /* -1: none */
} pending;

static void pending_free(pending *p)
{
	free(p->pax_path);
	free(p->pax_link);
	free(p->gnu_name);
	free(p->gnu_link);
}

static void set_str(char **dst, const char *s, size_t n)
{
	char *v = malloc(n + 1);
	if (v) {
		memcpy(v, s, n);
		v[n] = 0;
	}
	free(*dst);
	*dst = v;
}

/* PAX records "LEN KEY=VALUE\n"; path, linkpath and size are kept for the
 * next entry (global ones are read and dropped, as Helm skips them). */
static int parse_pax(const char *s, size_t n, pending *p, int global, bh_error *err)
{
	while (n) {
		size_t i = 0, len = 0;
		while (i < n && s[i] >= '0' && s[i] <= '9' && len < MAX_SPECIAL)
			len = len * 10 + (size_t)(s[i++] - '0');
		if (i == 0 || i >= n || s[i] != ' ' || len <= i + 1 || len > n || s[len - 1] != '\n')
			return corrupt(err, "archive/tar: invalid tar header");
		const char *kv = s + i + 1, *end = s + len - 1;
		const char *eq = memchr(kv, '=', (size_t)(end - kv));
		if (!eq || eq == kv)
			return corrupt(err, "archive/tar: invalid tar header");
		size_t kl = (size_t)(eq - kv), vl = (size_t)(end - eq - 1);
		if (!global) {
			if (kl == 4 && !memcmp(kv, "path", 4)) {
				set_str(&p->pax_path, eq + 1, vl);
			} else if (kl == 8 && !memcmp(kv, "linkpath", 8)) {
				set_str(&p->pax_link, eq + 1, vl);
			} else if (kl == 4 && !memcmp(kv, "size", 4)) {
				int64_t v = 0;
				if (vl == 0 || vl > 18)
					return corrupt(err, "archive/tar: invalid tar header");
				for (size_t k = 0; k < vl; k++) {
					if (eq[1 + k] < '0' || eq[1 + k] > '9')
						return corrupt(err, "archive/tar: invalid tar header");
					v = v * 10 + (eq[1 + k] - '0');
				}
				p->pax_size = v;
			}
			if ((kl == 4 && !memcmp(kv, "path", 4) && !p->pax_path) ||
			    (kl == 8 && !memcmp(kv, "linkpath", 8) && !p->pax_link))
				return bh_error_set(err, BH_ENOMEM, "out of memory");
		}
		s += len;
		n -= len;
	}
	return 0;
}

/* The data of a special entry ('x', 'g', 'L', 'K'), NUL-terminated. */
static int read_special(targz *t, uint64_t size, char **out, bh_error *err)
{
	if (size > MAX_SPECIAL)
		return corrupt(err, "archive/tar: header field too long");
	unsigned char *d = malloc((size_t)size + 1);
	if (!d)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	int r = size ? read_full(t, d, (size_t)size, err) : 1;
	if (r == 0)
		r = corrupt(err, "unexpected EOF");
	if (r >= 0 && size % BLOCK)
		r = discard(t, BLOCK - size % BLOCK, err);
	if (r < 0) {
		free(d);
		return r;
	}
	d[size] = 0;
	*out = (char *)d;
	return 0;
}

static int header_only(int type)
{
	return type >= '1' && type <= '6';
}

int targz_next(targz *t, targz_entry *e, bh_error *err)
{
	pending p = {.pax_size = -1};
	int rc;
	if ((rc = discard(t, t->remain + t->pad, err)) < 0)
		return rc;
	t->remain = t->pad = 0;
	free(t->name);
	free(t->link);
	t->name = t->link = NULL;
	for (;;) {
		rc = read_full(t, t->blk, BLOCK, err);
		if (rc <= 0)
			break;
		if (all_zero(t->blk, BLOCK)) {
			rc = read_full(t, t->blk, BLOCK, err);
			if (rc > 0)
				rc = all_zero(t->blk, BLOCK) ? 0 : corrupt(err, "archive/tar: invalid tar header");
			break;
		}
		if (!checksum_ok(t->blk)) {
			rc = corrupt(err, "archive/tar: invalid tar header");
			break;
		}
		int ustar = !memcmp(t->blk + 257, "ustar\0" "00", 8);
		int type = t->blk[156];
		int64_t size = parse_numeric(t->blk + 124, 12);
		if (size < 0) {
			rc = corrupt(err, "archive/tar: invalid tar header");
			break;
		}
		if (type == 'x' || type == 'g' || type == 'L' || type == 'K') {
			char *d = NULL;
			if ((rc = read_special(t, (uint64_t)size, &d, err)) < 0)
				break;
			if (type == 'x' || type == 'g')
				rc = parse_pax(d, (size_t)size, &p, type == 'g', err);
			else if (type == 'L')
				set_str(&p.gnu_name, d, strlen(d));
			else
				set_str(&p.gnu_link, d, strlen(d));
			free(d);
			if (rc < 0)
				break;
			if (type == 'g') {
				e->name = "";
				e->linkname = "";
				e->type = TARGZ_GLOBAL;
				e->size = 0;
				rc = 1;
				break;
			}
			continue;
		}
		if (p.gnu_name)
			t->name = strdup(p.gnu_name);
		else if (p.pax_path)
			t->name = strdup(p.pax_path);
		else if (ustar && t->blk[345]) {
			char *pre = field_str(t->blk + 345, 155), *nm = field_str(t->blk, 100);
			if (pre && nm && (t->name = malloc(strlen(pre) + strlen(nm) + 2)))
				sprintf(t->name, "%s/%s", pre, nm);
			free(pre);
			free(nm);
		} else
			t->name = field_str(t->blk, 100);
		t->link = p.gnu_link ? strdup(p.gnu_link) : p.pax_link ? strdup(p.pax_link) : field_str(t->blk + 157, 100);
		if (!t->name || !t->link) {
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
			break;
		}
		if (p.pax_size >= 0)
			size = p.pax_size;
		if (type == 0 || type == '7') {
			size_t l = strlen(t->name);
			type = type == 0 && l && t->name[l - 1] == '/' ? TARGZ_DIR : TARGZ_REG;
		}
		e->name = t->name;
		e->linkname = t->link;
		e->type = type;
		e->size = (uint64_t)size;
		t->remain = header_only(type) ? 0 : (uint64_t)size;
		t->pad = t->remain % BLOCK ? BLOCK - t->remain % BLOCK : 0;
		rc = 1;
		break;
	}
	pending_free(&p);
	return rc;
}

long targz_read(targz *t, void *dst, size_t n, bh_error *err)
{
	if (n > t->remain)
		n = (size_t)t->remain;
	if (n == 0)
		return 0;
	int r = read_full(t, dst, n, err);
	if (r == 0)
		r = corrupt(err, "unexpected EOF");
	if (r < 0)
		return r;
	t->remain -= n;
	return (long)n;
}
