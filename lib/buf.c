/* lib/buf.c — see buf.h. */
#include "lib/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"

void bh_buf_init(bh_buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}

void bh_buf_free(bh_buf *b)
{
	free(b->data);
	bh_buf_init(b);
}

void bh_buf_reset(bh_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

int bh_buf_grow(bh_buf *b, size_t extra)
{
	int fresh = !b->data;
	if (b->oom)
		return -1;
	if (extra > (size_t)-1 / 2 - b->len) {
		b->oom = 1;
		return -1;
	}
	if (VEC_RESERVE(b->data, b->cap, b->len + extra + 1, 64) < 0) {
		b->oom = 1;
		return -1;
	}
	if (fresh) /* a buffer grown before its first append reads "" */
		b->data[0] = '\0';
	return 0;
}

void bh_buf_put_slow(bh_buf *b, const void *p, size_t n)
{
	if (bh_buf_grow(b, n) < 0)
		return;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}



void bh_buf_vprintf(bh_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;
	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || bh_buf_grow(b, (size_t)n) < 0)
		return;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void bh_buf_printf(bh_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bh_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void bh_buf_put_base64(bh_buf *b, const void *data, size_t n, int wrap)
{
	static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = data;
	int col = 0;
	for (size_t i = 0; i < n; i += 3) {
		unsigned x = (unsigned)p[i] << 16;
		size_t k = n - i < 3 ? n - i : 3;
		if (k > 1)
			x |= (unsigned)p[i + 1] << 8;
		if (k > 2)
			x |= p[i + 2];
		char q[4] = {al[x >> 18], al[(x >> 12) & 63], k > 1 ? al[(x >> 6) & 63] : '=', k > 2 ? al[x & 63] : '='};
		for (int j = 0; j < 4; j++) {
			bh_buf_putc(b, q[j]);
			if (wrap > 0 && ++col == wrap) {
				bh_buf_putc(b, '\n');
				col = 0;
			}
		}
	}
	if (wrap > 0 && col)
		bh_buf_putc(b, '\n');
}

int bh_buf_ok(const bh_buf *b)
{
	return !b->oom;
}

const char *bh_buf_str(const bh_buf *b)
{
	return b->data ? b->data : "";
}

char *bh_buf_detach(bh_buf *b)
{
	char *p = b->data;
	if (!p)
		p = calloc(1, 1);
	bh_buf_init(b);
	return p;
}

int bh_base64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}
