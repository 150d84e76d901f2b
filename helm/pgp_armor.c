/* helm/pgp_armor.c — ASCII armor and cleartext signed messages, read as
 * go-crypto v1.3.0's armor.Decode and clearsign.Decode read them (see
 * helm/pgp.h). */
#include <stdio.h>
#include <string.h>

#include "helm/pgp.h"

#define ARMOR_BUFSZ 100 /* armor.Decode's bufio.Reader: longer lines come in pieces */

/* bufio.Reader.ReadLine over [*pos, end): one line without its "\n" or
 * "\r\n"; *prefix set when the line did not fit the reader's buffer (only
 * its first ARMOR_BUFSZ bytes are returned, the rest comes as the next
 * "line"). Returns 0 at the end of the input. */
static int read_line(const char *p, size_t len, size_t *pos, const char **line, size_t *n,
		     int *prefix)
{
	if (*pos >= len)
		return 0;
	const char *s = p + *pos;
	size_t avail = len - *pos;
	const char *nl = memchr(s, '\n', avail < ARMOR_BUFSZ ? avail : ARMOR_BUFSZ);
	*line = s;
	*prefix = 0;
	if (!nl && avail >= ARMOR_BUFSZ) {
		*n = ARMOR_BUFSZ;
		*prefix = 1;
		*pos += ARMOR_BUFSZ;
		return 1;
	}
	*n = nl ? (size_t)(nl - s) : avail;
	*pos += *n + (nl != NULL);
	if (nl && *n > 0 && s[*n - 1] == '\r')
		(*n)--;
	return 1;
}

static void trim_space(const char **s, size_t *n)
{
	while (*n && strchr(" \t\r\n\v\f", (*s)[0]))
		(*s)++, (*n)--;
	while (*n && strchr(" \t\r\n\v\f", (*s)[*n - 1]))
		(*n)--;
}

static int has_prefix(const char *s, size_t n, const char *pre)
{
	size_t k = strlen(pre);
	return n >= k && !memcmp(s, pre, k);
}

/* encoding/base64 StdEncoding (padding required; CR and LF ignored). */
static int b64_decode(const char *s, size_t n, bh_buf *out, bh_error *err)
{
	unsigned acc = 0;
	int have = 0, pad = 0;
	size_t i;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\r' || c == '\n')
			continue;
		if (c == '=' && (have == 2 || have == 3) && !pad) {
			pad = 4 - have;
			if (have == 2)
				bh_buf_putc(out, (char)(acc >> 4));
			else
				bh_buf_put(out, (char[]){(char)(acc >> 10), (char)(acc >> 2)}, 2);
			have = 0, acc = 0;
			continue;
		}
		if (pad == 2) { /* the second '=' of "xx==" */
			if (c != '=')
				break;
			pad = 1;
			continue;
		}
		int v = bh_base64_value(c);
		if (v < 0 || pad)
			break;
		acc = acc << 6 | (unsigned)v;
		if (++have == 4) {
			bh_buf_put(out, (char[]){(char)(acc >> 16), (char)(acc >> 8), (char)acc}, 3);
			have = 0, acc = 0;
		}
	}
	if (i < n)
		return bh_error_set(err, BH_EINVAL, "illegal base64 data at input byte %zu", i);
	if (have || pad == 2)
		return bh_error_set(err, BH_EINVAL, "unexpected EOF");
	return 0;
}

int pgp_armor_decode(const char *text, size_t len, bh_buf *type, bh_buf *body, int *body_err,
		     bh_error *err)
{
	size_t pos = 0, n;
	const char *line;
	int prefix, ignore_next = 0;
	*body_err = 0;
	if (len > PGP_MAX_INPUT)
		return bh_error_set(err, BH_ELIMIT, "armored data is larger than %u bytes", PGP_MAX_INPUT);
next_block:
	for (;;) {
		int ignore = ignore_next;
		if (!read_line(text, len, &pos, &line, &n, &prefix))
			return bh_error_set(err, BH_EPARSE, "EOF");
		ignore_next = prefix;
		if (prefix || ignore)
			continue;
		trim_space(&line, &n);
		if (n > 16 && has_prefix(line, n, "-----BEGIN "))
			break;
	}
	bh_buf_reset(type);
	bh_buf_put(type, line + 11, n - 16);
	for (int cont = 0;;) {
		int was_cont = cont;
		if (!read_line(text, len, &pos, &line, &n, &prefix))
			return bh_error_set(err, BH_EPARSE, "EOF");
		cont = prefix;
		if (was_cont)
			continue;
		trim_space(&line, &n);
		if (!n)
			break;
		if (!memchr(line, ':', n))
			goto next_block;
	}
	/* the body: lines up to "-----END " or a 5-byte "=CRC" line */
	bh_buf b64 = BH_BUF_INIT;
	int corrupt = 0;
	while (read_line(text, len, &pos, &line, &n, &prefix)) {
		if (prefix) {
			corrupt = 1;
			break;
		}
		if (has_prefix(line, n, "-----END ") || (n == 5 && line[0] == '='))
			break;
		if (n > 96) {
			corrupt = 1;
			break;
		}
		bh_buf_put(&b64, line, n);
	}
	bh_buf_reset(body);
	bh_error e2;
	if (b64_decode(b64.data ? b64.data : "", b64.len, body, &e2)) {
		*body_err = 1;
		bh_error_set(err, BH_EINVAL, "%s", e2.msg);
	} else if (corrupt) {
		*body_err = 1;
		bh_error_set(err, BH_EINVAL, "openpgp: invalid data: armor invalid");
	}
	bh_buf_free(&b64);
	return bh_buf_ok(body) && bh_buf_ok(type) ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory");
}

/* clearsign's getLine: up to "\n" (a "\r" before it dropped). */
static void get_line(const char **rest, size_t *rn, const char **line, size_t *n)
{
	const char *nl = memchr(*rest, '\n', *rn);
	size_t i = nl ? (size_t)(nl - *rest) : *rn, j = nl ? i + 1 : i;
	*line = *rest;
	*n = (nl && i > 0 && (*rest)[i - 1] == '\r') ? i - 1 : i;
	*rest += j, *rn -= j;
}

static const char *find(const char *h, size_t hn, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; hn >= k && i <= hn - k; i++)
		if (h[i] == needle[0] && !memcmp(h + i, needle, k))
			return h + i;
	return NULL;
}

int pgp_clearsign_decode(const char *data, size_t len, pgp_clearsigned *out)
{
	static const char start[] = "\n-----BEGIN PGP SIGNED MESSAGE-----";
	memset(out, 0, sizeof *out);
	if (len > PGP_MAX_INPUT)
		return BH_ELIMIT;
	const char *rest, *line, *at;
	size_t rn, n;
	if (has_prefix(data, len, start + 1))
		rest = data + sizeof start - 2;
	else if ((at = find(data, len, start)))
		rest = at + sizeof start - 1;
	else
		return BH_EPARSE;
	rn = len - (size_t)(rest - data);
	get_line(&rest, &rn, &line, &n);
	if (n)
		return BH_EPARSE;
	for (;;) { /* headers: only "Hash:" ones */
		if (!rn)
			return BH_EPARSE;
		get_line(&rest, &rn, &line, &n);
		const char *t = line;
		size_t tn = n;
		trim_space(&t, &tn);
		if (!tn)
			break;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] > 0x7e)
				return BH_EPARSE;
		const char *colon = memchr(line, ':', n);
		if (!colon)
			return BH_EPARSE;
		t = line, tn = (size_t)(colon - line);
		trim_space(&t, &tn);
		if (tn != 4 || memcmp(t, "Hash", 4))
			return BH_EPARSE;
	}
	int first = 1, any = 0;
	for (;;) {
		const char *start_of_line = rest;
		size_t start_n = rn;
		get_line(&rest, &rn, &line, &n);
		if (!n && !rn)
			goto fail;
		if (n == 29 && !memcmp(line, "-----BEGIN PGP SIGNATURE-----", 29)) {
			rest = start_of_line, rn = start_n;
			break;
		}
		if (!first)
			bh_buf_put(&out->signed_text, "\r\n", 2);
		first = 0;
		if (has_prefix(line, n, "- "))
			line += 2, n -= 2;
		while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
			n--;
		bh_buf_put(&out->signed_text, line, n);
		bh_buf_put(&out->plain, line, n);
		bh_buf_putc(&out->plain, '\n');
		any = 1;
	}
	if (!any)
		goto fail;
	out->plain.data[--out->plain.len] = 0;
	if (!(at = find(rest, rn, "\n-----END PGP SIGNATURE-----")))
		goto fail;
	size_t i = (size_t)(at - rest) + 28;
	while (i < rn && (rest[i] == '\r' || rest[i] == '\n'))
		i++;
	bh_buf type = BH_BUF_INIT;
	bh_error e;
	int rc = pgp_armor_decode(rest, i, &type, &out->sig, &out->sig_err, &e);
	bh_buf_free(&type);
	if (rc)
		goto fail;
	if (out->sig_err)
		snprintf(out->err_msg, sizeof out->err_msg, "%.200s", e.msg);
	if (!bh_buf_ok(&out->signed_text) || !bh_buf_ok(&out->plain) || !bh_buf_ok(&out->sig)) {
		pgp_clearsigned_free(out);
		return BH_ENOMEM;
	}
	if (!out->signed_text.data)
		bh_buf_puts(&out->signed_text, "");
	return 0;
fail:
	pgp_clearsigned_free(out);
	return BH_EPARSE;
}

void pgp_clearsigned_free(pgp_clearsigned *c)
{
	bh_buf_free(&c->signed_text);
	bh_buf_free(&c->plain);
	bh_buf_free(&c->sig);
}
