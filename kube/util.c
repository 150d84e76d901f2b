/* kube/util.c — base64, file reading, URL escaping. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/internal.h"
#include "lib/buf.h"

/* ---- base64 ---- */

char *kube_base64_decode(const char *in, size_t len, size_t *out_len)
{
	char *out = malloc(len / 4 * 3 + 4);
	if (!out)
		return NULL;
	size_t o = 0;
	unsigned acc = 0;
	int bits = 0, pad = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];
		if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		int v = bh_base64_value(c);
		if (v < 0 || pad) {
			free(out);
			return NULL;
		}
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	if (pad > 2 || bits >= 6) {
		free(out);
		return NULL;
	}
	out[o] = 0;
	if (out_len)
		*out_len = o;
	return out;
}

/* ---- files ---- */

char *kube_file_read(const char *path, size_t max, size_t *out_len, bh_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		bh_error_set(err, errno == ENOENT ? BH_ENOTFOUND : BH_EIO, "%s: %s", path, strerror(errno));
		return NULL;
	}
	bh_buf b = BH_BUF_INIT;
	char chunk[8192];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (b.len + n > max) {
			fclose(f);
			bh_buf_free(&b);
			bh_error_set(err, BH_ELIMIT, "%s: larger than %zu bytes", path, max);
			return NULL;
		}
		bh_buf_put(&b, chunk, n);
	}
	int bad = ferror(f);
	fclose(f);
	if (bad || !bh_buf_ok(&b)) {
		bh_buf_free(&b);
		bh_error_set(err, bad ? BH_EIO : BH_ENOMEM, "%s: read failed", path);
		return NULL;
	}
	if (out_len)
		*out_len = b.len;
	if (!b.data)
		return strdup("");
	return bh_buf_detach(&b);
}

void kube_query_escape(bh_buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.' || c == '~') {
			bh_buf_putc(b, (char)c);
		} else {
			bh_buf_putc(b, '%');
			bh_buf_putc(b, hex[c >> 4]);
			bh_buf_putc(b, hex[c & 15]);
		}
	}
}

char **kube_strv_dup(char *const *v)
{
	size_t n = 0;
	while (v[n])
		n++;
	char **d = calloc(n + 1, sizeof *d);
	if (!d)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!(d[i] = strdup(v[i]))) {
			kube_strv_free(d);
			return NULL;
		}
	return d;
}

void kube_strv_free(char **v)
{
	if (!v)
		return;
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

int kube_has_ctl(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f)
			return 1;
	return 0;
}
