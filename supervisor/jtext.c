/* supervisor/jtext.c — see jtext.h. */
#include "supervisor/jtext.h"

#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/yaml_resolve.h"

/* The bytes of s[0..n) that json_dumps writes as they are: printable
 * ASCII but '"' and '\\', and UTF-8 sequences (checked below). */
static const unsigned char plain[256] = {
	[0x20] = 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x22 '"' */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* 0x5c '\\' */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x7f written as it is */
};

/* s as a JSON string, escaped as jansson's dump_string does; -1 when s is
 * not UTF-8 (json_dumps refuses it). */
static int put_string(bh_buf *out, const char *str, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	bh_buf_putc(out, '"');
	while (i < n) {
		size_t run = i;
		while (run < n && plain[s[run]])
			run++;
		if (run > i)
			bh_buf_put(out, s + i, run - i);
		if ((i = run) >= n)
			break;
		if (s[i] >= 0x80) { /* well-formed UTF-8 as jansson checks it (no overlong form, surrogate, > U+10FFFF) */
			int32_t r;
			int len = utf8_rune_go(s + i, n - i, &r);
			if (r < 0)
				return -1;
			bh_buf_put(out, s + i, (size_t)len);
			i += (size_t)len;
			continue;
		}
		switch (s[i]) {
		case '"': bh_buf_put(out, "\\\"", 2); break;
		case '\\': bh_buf_put(out, "\\\\", 2); break;
		case '\b': bh_buf_put(out, "\\b", 2); break;
		case '\f': bh_buf_put(out, "\\f", 2); break;
		case '\n': bh_buf_put(out, "\\n", 2); break;
		case '\r': bh_buf_put(out, "\\r", 2); break;
		case '\t': bh_buf_put(out, "\\t", 2); break;
		default: {
			char u[6] = {'\\', 'u', '0', '0', hex[s[i] >> 4], hex[s[i] & 15]};
			bh_buf_put(out, u, sizeof u);
		}
		}
		i++;
	}
	bh_buf_putc(out, '"');
	return 0;
}

static void put_integer(bh_buf *out, json_int_t v)
{
	char d[24], *p = d + sizeof d;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	bh_buf_put(out, p, (size_t)(d + sizeof d - p));
}

/* v into out; -1 for what json_dumps is left to write (jtext.h) */
static int put_value(bh_buf *out, const json_t *v, int depth)
{
	size_t i;
	json_t *x;
	int first = 1;
	if (depth > JTEXT_MAX_DEPTH)
		return -1;
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		bh_buf_putc(out, '{');
		for (void *it = json_object_iter((json_t *)v); it; it = json_object_iter_next((json_t *)v, it)) {
			const char *k = json_object_iter_key(it);
			if (!first)
				bh_buf_putc(out, ',');
			first = 0;
#if JANSSON_VERSION_HEX >= 0x020e00
			if (put_string(out, k, json_object_iter_key_len(it)) < 0)
#else
			if (put_string(out, k, strlen(k)) < 0)
#endif
				return -1;
			bh_buf_putc(out, ':');
			if (put_value(out, json_object_iter_value(it), depth + 1) < 0)
				return -1;
		}
		bh_buf_putc(out, '}');
		return 0;
	case JSON_ARRAY:
		bh_buf_putc(out, '[');
		json_array_foreach(v, i, x) {
			if (i)
				bh_buf_putc(out, ',');
			if (put_value(out, x, depth + 1) < 0)
				return -1;
		}
		bh_buf_putc(out, ']');
		return 0;
	case JSON_STRING:
		return put_string(out, json_string_value(v), json_string_length(v));
	case JSON_INTEGER:
		put_integer(out, json_integer_value(v));
		return 0;
	case JSON_TRUE:
		bh_buf_put(out, "true", 4);
		return 0;
	case JSON_FALSE:
		bh_buf_put(out, "false", 5);
		return 0;
	case JSON_NULL:
		bh_buf_put(out, "null", 4);
		return 0;
	default: /* a real: jansson's own digits */
		return -1;
	}
}

char *jtext_new(const json_t *v)
{
	bh_buf out = BH_BUF_INIT;
	if (!json_is_object(v) && !json_is_array(v))
		return NULL;
	if (put_value(&out, v, 0) == 0 && bh_buf_ok(&out))
		return bh_buf_detach(&out);
	if (!bh_buf_ok(&out)) {
		bh_buf_free(&out);
		return NULL;
	}
	bh_buf_free(&out);
	return json_dumps(v, JSON_COMPACT);
}
