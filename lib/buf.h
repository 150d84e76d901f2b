/* lib/buf.h — growable byte buffer (always NUL-terminated) used for text
 * building everywhere. A bh_buf owns its memory; bh_buf_free() releases it,
 * bh_buf_detach() hands the bytes to the caller (free() them).
 * Allocation failure is reported by a sticky `oom` flag, checked once at the
 * end with bh_buf_ok(), so building code stays linear. */
#ifndef BH_BUF_H
#define BH_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct bh_buf {
	char *data;  /* NUL-terminated; NULL until the first append */
	size_t len;
	size_t cap;
	int oom;     /* set when an allocation failed; later appends are no-ops */
} bh_buf;

#define BH_BUF_INIT {NULL, 0, 0, 0}

void bh_buf_init(bh_buf *b);
void bh_buf_free(bh_buf *b);
void bh_buf_reset(bh_buf *b);              /* len = 0, memory kept */
int bh_buf_grow(bh_buf *b, size_t extra);  /* 0, or -1 on OOM */
void bh_buf_put_slow(bh_buf *b, const void *p, size_t n);
/* n bytes: inline while there is room (most calls: a template's text, a
 * printed value), else bh_buf_put_slow, which grows the buffer */
static inline void bh_buf_put(bh_buf *b, const void *p, size_t n)
{
	if (!b->oom && n < b->cap - b->len) { /* room for the bytes and the NUL */
		if (n) /* p may be NULL when n is 0 */
			__builtin_memcpy(b->data + b->len, p, n);
		b->len += n;
		b->data[b->len] = '\0';
		return;
	}
	bh_buf_put_slow(b, p, n);
}
static inline void bh_buf_puts(bh_buf *b, const char *s)
{
	bh_buf_put(b, s, __builtin_strlen(s));
}
/* one byte: inline while there is room (most calls), else bh_buf_put */
static inline void bh_buf_putc(bh_buf *b, char c)
{
	if (!b->oom && b->len + 2 <= b->cap) { /* room for c and the NUL */
		b->data[b->len++] = c;
		b->data[b->len] = '\0';
		return;
	}
	bh_buf_put_slow(b, &c, 1);
}
void bh_buf_printf(bh_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void bh_buf_vprintf(bh_buf *b, const char *fmt, va_list ap);
/* base64 (StdEncoding, padded) of p[0..n). wrap > 0: a '\n' after every
 * wrap output characters and after a shorter last line (PEM uses 64). */
void bh_buf_put_base64(bh_buf *b, const void *p, size_t n, int wrap);
/* The value of a base64 (StdEncoding) digit, or -1 for any other byte. */
int bh_base64_value(unsigned char c);
int bh_buf_ok(const bh_buf *b);            /* 1 unless an allocation failed */
const char *bh_buf_str(const bh_buf *b);   /* never NULL ("" when empty) */
char *bh_buf_detach(bh_buf *b);            /* caller frees; b is reset */

#endif
