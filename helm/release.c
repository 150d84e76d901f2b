/* helm/release.c — see release.h. */
#include "helm/release.h"

#include "lib/gojson.h"
#include "lib/gzip.h"
#include "lib/yaml_resolve.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libdeflate.h>
#include <zlib.h>

/* ---- base64 ------------------------------------------------------------------ */
static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The two characters of every 12 bits, made by the compiler: B64C(i) is
 * b64[i] as a constant expression. */
#define B64C(i) ((char)((i) < 26 ? 'A' + (i) : (i) < 52 ? 'a' + (i) - 26 : (i) < 62 ? '0' + (i) - 52 : (i) == 62 ? '+' : '/'))
#define B64P(i) {B64C((i) >> 6), B64C((i) & 63)},
#define B64P4(i) B64P(i) B64P((i) + 1) B64P((i) + 2) B64P((i) + 3)
#define B64P16(i) B64P4(i) B64P4((i) + 4) B64P4((i) + 8) B64P4((i) + 12)
#define B64P64(i) B64P16(i) B64P16((i) + 16) B64P16((i) + 32) B64P16((i) + 48)
#define B64P256(i) B64P64(i) B64P64((i) + 64) B64P64((i) + 128) B64P64((i) + 192)
#define B64P1024(i) B64P256(i) B64P256((i) + 256) B64P256((i) + 512) B64P256((i) + 768)
static const char b64pair[4096][2] = {B64P1024(0) B64P1024(1024) B64P1024(2048) B64P1024(3072)};

/* 3 bytes -> 4 characters */
static inline void base64_3(char *s, const unsigned char *p)
{
	unsigned v = (unsigned)p[0] << 16 | (unsigned)p[1] << 8 | p[2];
	memcpy(s, b64pair[v >> 12], 2);
	memcpy(s + 2, b64pair[v & 4095], 2);
}

/* Standard base64 of p[0..n) with padding into out; returns its length. */
static size_t base64_put(char *s, const unsigned char *p, size_t n)
{
	size_t o = 0, i;
	for (i = 0; i + 2 < n; i += 3, o += 4)
		base64_3(s + o, p + i);
	if (i < n) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0);
		s[o++] = b64[v >> 18];
		s[o++] = b64[(v >> 12) & 63];
		s[o++] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
		s[o++] = '=';
	}
	return o;
}

char *release_base64_new(const unsigned char *p, size_t n)
{
	char *s = malloc((n + 2) / 3 * 4 + 1);
	if (s)
		s[base64_put(s, p, n)] = '\0';
	return s;
}

/* base64(base64(p[0..n))), the Secret's data.release as the API carries
 * it, without the text between: 9 bytes make 12 characters, which make 16
 * (groups of 3 bytes, then of 3 characters, so the pieces join). */
static char *base64_twice_new(const unsigned char *p, size_t n, size_t *len)
{
	size_t l1 = (n + 2) / 3 * 4, o = 0, i;
	char *s = malloc((l1 + 2) / 3 * 4 + 1), mid[12];
	if (!s)
		return NULL;
	for (i = 0; i + 9 <= n; i += 9, o += 16) {
		for (int j = 0; j < 3; j++)
			base64_3(mid + 4 * j, p + i + 3 * j);
		for (int j = 0; j < 4; j++)
			base64_3(s + o + 4 * j, (const unsigned char *)mid + 3 * j);
	}
	if (i < n)
		o += base64_put(s + o, (const unsigned char *)mid, base64_put(mid, p + i, n - i));
	s[o] = '\0';
	*len = o;
	return s;
}

/* The value of every base64 digit, -1 for any other byte (as
 * bh_base64_value), made by the compiler. */
#define B64V(c)                                                                                                     \
	((c) >= 'A' && (c) <= 'Z'   ? (c) - 'A'                                                                     \
	 : (c) >= 'a' && (c) <= 'z' ? (c) - 'a' + 26                                                                \
	 : (c) >= '0' && (c) <= '9' ? (c) - '0' + 52                                                                \
	 : (c) == '+'               ? 62                                                                            \
	 : (c) == '/'               ? 63                                                                            \
				    : -1)
#define B64V4(c) B64V(c), B64V((c) + 1), B64V((c) + 2), B64V((c) + 3)
#define B64V16(c) B64V4(c), B64V4((c) + 4), B64V4((c) + 8), B64V4((c) + 12)
#define B64V64(c) B64V16(c), B64V16((c) + 16), B64V16((c) + 32), B64V16((c) + 48)
static const signed char b64val[256] = {B64V64(0), B64V64(64), B64V64(128), B64V64(192)};

int release_base64_decode(const char *s, size_t n, bh_buf *out, bh_error *err)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char *o;
	size_t i;
	if (n % 4)
		return bh_error_set(err, BH_EINVAL, "illegal base64 data: length %zu is not a multiple of 4", n);
	if (bh_buf_grow(out, n / 4 * 3) < 0)
		return bh_error_set(err, BH_ENOMEM, "out of memory decoding base64");
	/* every group but the last (the only one with padding) by the table,
	 * into the room made; the first group with another byte, and the last,
	 * by the loop below, which names what is wrong */
	o = (unsigned char *)out->data + out->len;
	for (i = 0; i + 4 < n; i += 4, o += 3) {
		int a = b64val[u[i]], b = b64val[u[i + 1]], c = b64val[u[i + 2]], d = b64val[u[i + 3]];
		if ((a | b | c | d) < 0)
			break;
		unsigned x = (unsigned)a << 18 | (unsigned)b << 12 | (unsigned)c << 6 | (unsigned)d;
		o[0] = (unsigned char)(x >> 16);
		o[1] = (unsigned char)(x >> 8);
		o[2] = (unsigned char)x;
	}
	out->len = (size_t)(o - (unsigned char *)out->data);
	out->data[out->len] = '\0';
	for (; i < n; i += 4) {
		int v[4], pad = 0;
		for (int k = 0; k < 4; k++) {
			unsigned char c = (unsigned char)s[i + k];
			if (c == '=' && i + 4 == n && k >= 2 && (k == 3 || s[i + 3] == '=')) {
				v[k] = 0;
				pad++;
				continue;
			}
			v[k] = bh_base64_value(c);
			if (v[k] < 0 || pad)
				return bh_error_set(err, BH_EINVAL, "illegal base64 data at input byte %zu", i + k);
		}
		unsigned x = (unsigned)v[0] << 18 | (unsigned)v[1] << 12 | (unsigned)v[2] << 6 | (unsigned)v[3];
		unsigned char b[3] = {x >> 16, (x >> 8) & 0xff, x & 0xff};
		bh_buf_put(out, b, 3 - (size_t)pad);
	}
	return bh_buf_ok(out) ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory decoding base64");
}

/* ---- JSON -------------------------------------------------------------------- */
/* Deep copy with object keys sorted bytewise (Go marshals maps sorted). */
struct member {
	const char *key;
	json_t *value;
};

static int keycmp(const void *a, const void *b)
{
	return strcmp(((const struct member *)a)->key, ((const struct member *)b)->key);
}

/* v with its objects' members in key order (Go's order for a map); the
 * scalars are shared (nothing sets a scalar in place). */
static json_t *sorted_copy(const json_t *v)
{
	if (json_is_object(v)) {
		size_t n = json_object_size(v), i = 0;
		struct member *m = malloc((n ? n : 1) * sizeof *m);
		const char *k;
		json_t *x, *o = json_object();
		if (!m || !o) {
			free(m);
			json_decref(o);
			return NULL;
		}
		json_object_foreach((json_t *)v, k, x) m[i++] = (struct member){k, x};
		qsort(m, n, sizeof *m, keycmp);
		for (i = 0; i < n; i++)
			json_object_set_new(o, m[i].key, sorted_copy(m[i].value));
		free(m);
		return o;
	}
	if (json_is_array(v)) {
		json_t *a = json_array(), *x;
		size_t i;
		json_array_foreach(v, i, x) json_array_append_new(a, sorted_copy(x));
		return a;
	}
	return json_incref((json_t *)v);
}

static void set_str(json_t *o, const char *k, const char *v)
{
	if (v && *v)
		json_object_set_new(o, k, json_string(v));
}

/* Chart metadata in pkg/chart/v2 Metadata field order, omitempty. */
static json_t *ordered_metadata(const json_t *m)
{
	static const char *const order[] = {
		"name", "home", "sources", "version", "description", "keywords", "maintainers", "icon",
		"apiVersion", "condition", "tags", "appVersion", "deprecated", "annotations", "kubeVersion",
		"dependencies", "type",
	};
	json_t *o = json_object();
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		json_t *v = json_object_get(m, order[i]);
		if (!v || json_is_null(v) || json_is_false(v))
			continue;
		if (json_is_string(v) && json_string_length(v) == 0)
			continue;
		if ((json_is_array(v) && json_array_size(v) == 0) || (json_is_object(v) && json_object_size(v) == 0))
			continue;
		json_object_set_new(o, order[i], sorted_copy(v));
	}
	return o;
}

json_t *release_json_new(const release_fields *f, bh_error *err)
{
	json_t *r = json_object(), *info = json_object(), *chart = json_object();
	if (!r || !info || !chart) {
		json_decref(r);
		json_decref(info);
		json_decref(chart);
		bh_error_set(err, BH_ENOMEM, "out of memory building the release");
		return NULL;
	}
	set_str(r, "name", f->name);
	set_str(info, "first_deployed", f->first_deployed);
	set_str(info, "last_deployed", f->last_deployed);
	set_str(info, "description", f->description);
	set_str(info, "status", f->status);
	set_str(info, "notes", f->notes);
	json_object_set_new(r, "info", info);
	json_object_set_new(chart, "metadata", f->chart_metadata ? ordered_metadata(f->chart_metadata) : json_null());
	json_object_set_new(chart, "lock", json_null());
	json_object_set_new(chart, "templates", f->chart_templates ? json_deep_copy(f->chart_templates) : json_null());
	json_object_set_new(chart, "values", f->chart_values ? sorted_copy(f->chart_values) : json_null());
	json_object_set_new(chart, "schema", json_null());
	json_object_set_new(chart, "files", f->chart_files ? json_deep_copy(f->chart_files) : json_null());
	json_object_set_new(r, "chart", chart);
	if (f->config && json_object_size(f->config))
		json_object_set_new(r, "config", sorted_copy(f->config));
	set_str(r, "manifest", f->manifest);
	if (f->version)
		json_object_set_new(r, "version", json_integer(f->version));
	set_str(r, "namespace", f->namespace_);
	set_str(r, "apply_method", f->apply_method);
	return r;
}

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* Is some byte of w zero? */
static inline uint64_t any_zero(uint64_t w)
{
	return (w - ONES) & ~w & HIGHS;
}

/* Does a byte of w need gojson_quote's care: a control, '"', '\\', the
 * HTML-unsafe '<', '>', '&', or a byte above 0x7f? */
static inline uint64_t any_unsafe(uint64_t w)
{
	return (w & HIGHS) | any_zero(w & (ONES * 0xe0)) | any_zero(w ^ (ONES * '"')) | any_zero(w ^ (ONES * '\\')) |
	       any_zero(w ^ (ONES * '<')) | any_zero(w ^ (ONES * '>')) | any_zero(w ^ (ONES * '&'));
}

/* gojson_quote(b, s, n, 0): a string of safe ASCII only (the chart files'
 * base64, most of a record) is copied between its quotes as it is, checked
 * eight bytes at a time; any other goes to gojson_quote. */
static void quote(bh_buf *b, const char *s, size_t n)
{
	size_t i = 0;
	uint64_t w, bad = 0;
	for (; n - i >= 8 && !bad; i += 8) {
		memcpy(&w, s + i, 8);
		bad = any_unsafe(w);
	}
	if (!bad && i < n) { /* the last 1-7 bytes, padded with a safe byte */
		w = ONES * 'A';
		memcpy(&w, s + i, n - i);
		bad = any_unsafe(w);
	}
	if (bad) {
		gojson_quote(b, s, n, 0);
		return;
	}
	bh_buf_putc(b, '"');
	bh_buf_put(b, s, n);
	bh_buf_putc(b, '"');
}

/* Go's encoding/json over an ordered tree: objects in insertion order (the
 * builders above put struct fields in Go's order and sort map keys),
 * strings HTML-safe escaped and numbers formatted as Go does. */
static int emit_kept(bh_buf *b, const json_t *v, release_gzkeep *keep);
static void keep_split(release_gzkeep *keep, const char *key, size_t at, int first);
static void keep_split_start(release_gzkeep *keep, size_t base);
static void keep_split_end(release_gzkeep *keep, size_t end);

static int emit(bh_buf *b, const json_t *v, int depth, release_gzkeep *keep)
{
	const char *k;
	json_t *x;
	size_t i;
	int first = 1;
	if (depth > 1000)
		return BH_ELIMIT;
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		bh_buf_putc(b, '{');
		json_object_foreach((json_t *)v, k, x) {
			if (keep) /* the record's top level: where its pieces begin (gzip_kept) */
				keep_split(keep, k, b->len, first);
			if (!first)
				bh_buf_putc(b, ',');
			first = 0;
			gojson_quote(b, k, strlen(k), 0);
			bh_buf_putc(b, ':');
			if (keep && json_is_object(x) && !strcmp(k, "chart")) {
				if (emit_kept(b, x, keep) < 0)
					return BH_ELIMIT;
			} else if (emit(b, x, depth + 1, NULL) < 0) {
				return BH_ELIMIT;
			}
		}
		bh_buf_putc(b, '}');
		return 0;
	case JSON_ARRAY:
		bh_buf_putc(b, '[');
		json_array_foreach(v, i, x) {
			if (i)
				bh_buf_putc(b, ',');
			if (emit(b, x, depth + 1, NULL) < 0)
				return BH_ELIMIT;
		}
		bh_buf_putc(b, ']');
		return 0;
	case JSON_STRING:
		quote(b, json_string_value(v), json_string_length(v));
		return 0;
	case JSON_INTEGER:
		bh_buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return 0;
	case JSON_REAL:
		gojson_format_float(b, json_real_value(v));
		return 0;
	case JSON_TRUE:
		bh_buf_puts(b, "true");
		return 0;
	case JSON_FALSE:
		bh_buf_puts(b, "false");
		return 0;
	default:
		bh_buf_puts(b, "null");
		return 0;
	}
}

/* json.Marshal of the release calls time.Time's MarshalJSON on its chart's
 * Chart.lock generated time, which fails when the offset's hour is 24 or
 * more: Go parses offsets up to +24:60, and chart_load keeps such a time as
 * rfc3339_format wrote it (`helm template` never marshals it), so its text
 * ends in a zone hour of two digits, 24 or 25. */
static int lock_time_check(const json_t *rel, bh_error *err)
{
	const json_t *g = json_object_get(json_object_get(json_object_get(rel, "chart"), "lock"), "generated");
	const char *s = json_string_value(g);
	size_t n = json_string_length(g);
	if (!s || n < 6 || (s[n - 6] != '+' && s[n - 6] != '-') || s[n - 3] != ':')
		return 0;
	if (s[n - 5] < '0' || s[n - 5] > '9' || s[n - 4] < '0' || s[n - 4] > '9' ||
	    (s[n - 5] - '0') * 10 + (s[n - 4] - '0') < 24)
		return 0;
	return bh_error_set(err, BH_EINVAL, "json: error calling MarshalJSON for type time.Time: "
			    "Time.MarshalJSON: timezone hour outside of range [0,23]");
}

int release_marshal_keep(release_gzkeep *keep, const json_t *rel, bh_buf *out, bh_error *err)
{
	int rc;
	if ((rc = lock_time_check(rel, err)) < 0)
		return rc;
	if (keep)
		keep_split_start(keep, out->len);
	if (emit(out, rel, 0, keep) < 0)
		return bh_error_set(err, BH_ELIMIT, "release is nested too deeply to marshal");
	if (keep)
		keep_split_end(keep, out->len);
	return bh_buf_ok(out) ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory marshalling the release");
}

int release_marshal(const json_t *rel, bh_buf *out, bh_error *err)
{
	return release_marshal_keep(NULL, rel, out, err);
}

/* Does release_marshal write s[0..n) so that it reads back the same: no
 * NUL (refused when read) and valid UTF-8 as Go decodes it (anything else
 * is written as U+FFFD)? */
static int text_as_is(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	for (size_t i = 0; i < n;) {
		int32_t r;
		/* eight bytes at a time while none is NUL or above 0x7f (the base64
		 * of a chart's files, most of a record's text) */
		while (n - i >= 8) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if ((w & HIGHS) | any_zero(w))
				break;
			i += 8;
		}
		if (i == n)
			break;
		if (s[i] && s[i] < 0x80) {
			i++;
			continue;
		}
		if (!s[i])
			return 0;
		i += (size_t)utf8_rune_go(s + i, n - i, &r);
		if (r < 0)
			return 0;
	}
	return 1;
}

/* A real as it reads back: Go's shortest form, an integer when it has no
 * fraction or exponent (3.0 is written 3); NULL when it would not read. */
static json_t *real_as_is(double v)
{
	char digits[64];
	bh_buf t = BH_BUF_INIT;
	json_t *r = NULL;
	if (!isfinite(v))
		return NULL;
	gojson_format_float(&t, v);
	snprintf(digits, sizeof digits, "%s", bh_buf_str(&t));
	if (bh_buf_ok(&t) && t.len < sizeof digits) {
		if (strpbrk(digits, ".eE")) {
			r = json_real(v);
		} else {
			char *end;
			errno = 0;
			long long i = strtoll(digits, &end, 10);
			if (!errno && !*end)
				r = json_integer(i);
		}
	}
	bh_buf_free(&t);
	return r;
}

static json_t *copy_kept(const json_t *v, release_gzkeep *keep);

static json_t *copy_as_is(const json_t *v, int depth, release_gzkeep *keep)
{
	const char *k;
	json_t *x, *c, *o;
	size_t i;
	if (depth > 1000) /* release_marshal's limit */
		return NULL;
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		o = json_object();
		json_object_foreach((json_t *)v, k, x) {
			if (!o || !text_as_is(k, strlen(k)) ||
			    !(c = keep && json_is_object(x) && !strcmp(k, "chart") ? copy_kept(x, keep)
										  : copy_as_is(x, depth + 1, NULL)) ||
			    json_object_set_new_nocheck(o, k, c) < 0) {
				json_decref(o);
				return NULL;
			}
		}
		return o;
	case JSON_ARRAY:
		o = json_array();
		json_array_foreach(v, i, x) {
			if (!o || !(c = copy_as_is(x, depth + 1, NULL)) || json_array_append_new(o, c) < 0) {
				json_decref(o);
				return NULL;
			}
		}
		return o;
	case JSON_STRING: /* shared, as the integers: nothing sets a scalar in place */
		return text_as_is(json_string_value(v), json_string_length(v)) ? json_incref((json_t *)v) : NULL;
	case JSON_REAL:
		return real_as_is(json_real_value(v));
	default: /* integers; true, false, null: singletons */
		return json_incref((json_t *)v);
	}
}

json_t *release_record_copy(const json_t *rel)
{
	json_t *c = json_object(), *x;
	const char *k;
	if (!c)
		return NULL;
	json_object_foreach((json_t *)rel, k, x) {
		json_t *v = json_is_object(x) && !strcmp(k, "chart") ? json_incref(x) : json_deep_copy(x);
		if (!v || json_object_set_new_nocheck(c, k, v) < 0) {
			json_decref(c);
			return NULL;
		}
	}
	return c;
}

json_t *release_stored_copy(const json_t *rel)
{
	return json_is_object(rel) ? copy_as_is(rel, 0, NULL) : NULL;
}

json_t *release_stored_copy_keep(release_gzkeep *k, const json_t *rel)
{
	return json_is_object(rel) ? copy_as_is(rel, 0, k) : NULL;
}

/* ---- gzip ---------------------------------------------------------------------- */
/* Every member of in[0..n) inflated whole by libdeflate (about twice
 * zlib's speed, a CRC-32 with carry-less multiplies) into out: 1 when every
 * member is whole and valid (CRC-32 and size checked), has no header CRC
 * (zlib checks it, libdeflate skips it) and all of them make at most max
 * bytes. Else 0 with out as it was: gunzip_limited then reads in with zlib,
 * with its errors, as if this were not tried. A member's room is first
 * guessed (8 times what is left of the input, or the last member's trailer
 * size if more) and grown 4 times when short, up to the limit. */
static int gunzip_whole(const unsigned char *in, size_t n, size_t max, bh_buf *out)
{
	struct libdeflate_decompressor *d;
	enum libdeflate_result r = LIBDEFLATE_BAD_DATA;
	size_t at = 0, start = out->len, last;
	if (n < 18 || !(d = libdeflate_alloc_decompressor()))
		return 0;
	last = (size_t)in[n - 4] | (size_t)in[n - 3] << 8 | (size_t)in[n - 2] << 16 | (size_t)in[n - 1] << 24;
	while (at < n) {
		size_t used = 0, got = 0, left = max - (out->len - start), room = (n - at) * 8 + 4096;
		if (n - at < 18 || (in[at + 3] & 0x02))
			break;
		if (room < last + 4096)
			room = last + 4096;
		for (room = room < left ? room : left;; room = room < left / 4 ? room * 4 : left) {
			if (bh_buf_grow(out, room) < 0)
				break;
			r = libdeflate_gzip_decompress_ex(d, in + at, n - at, out->data + out->len, room, &used, &got);
			if (r != LIBDEFLATE_INSUFFICIENT_SPACE || room == left)
				break;
		}
		if (r != LIBDEFLATE_SUCCESS || !bh_buf_ok(out))
			break;
		out->len += got;
		out->data[out->len] = '\0';
		at += used;
	}
	libdeflate_free_decompressor(d);
	if (at == n && r == LIBDEFLATE_SUCCESS && bh_buf_ok(out))
		return 1;
	out->len = start;
	if (out->data)
		out->data[start] = '\0';
	return 0;
}

/* gunzips in[0..n), every member of it, into out (at most max bytes). */
static int gunzip_limited(const unsigned char *in, size_t n, size_t max, bh_buf *out, bh_error *err)
{
	z_stream z;
	unsigned char chunk[16384];
	int rc;
	if (gunzip_whole(in, n, max, out))
		return 0;
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return bh_error_set(err, BH_ENOMEM, "gzip: inflateInit2 failed");
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)n;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof chunk;
		rc = inflate(&z, Z_NO_FLUSH);
		if (rc != Z_OK && rc != Z_STREAM_END) {
			inflateEnd(&z);
			return bh_error_set(err, BH_EINVAL, "gzip: invalid compressed data (%s)", z.msg ? z.msg : "truncated");
		}
		bh_buf_put(out, chunk, sizeof chunk - z.avail_out);
		if (out->len > max) {
			inflateEnd(&z);
			return bh_error_set(err, BH_ELIMIT, "release data decompresses to more than %zu bytes", max);
		}
		if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) {
			inflateEnd(&z);
			return bh_error_set(err, BH_EINVAL, "gzip: unexpected end of compressed data");
		}
		/* more after a member: the next member (RFC 1952 2.2), read as
		 * Go's gzip.Reader does (multistream); anything else is an error */
		if (rc == Z_STREAM_END && z.avail_in && inflateReset(&z) == Z_OK)
			rc = Z_OK;
	} while (rc != Z_STREAM_END);
	inflateEnd(&z);
	return bh_buf_ok(out) ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory decompressing");
}

/* The gzip level of a record of len bytes (release.h). */
static int gzip_level(size_t len)
{
	return len <= RELEASE_GZIP_FAST_MAX ? RELEASE_GZIP_FAST_LEVEL : RELEASE_GZIP_LEVEL;
}

char *release_encode_text_new(const char *json, size_t len, bh_error *err)
{
	return release_encode_text_keep_new(NULL, json, len, err);
}

/* ---- records compressed in pieces (release_gzkeep) -------------------------- */
#define GZKEEP_N 2 /* an upgrade writes the new record, the old one superseded, the new one again */

struct release_gzkeep {
	struct gzpiece {
		char *text; /* the piece's JSON text (NULL: empty slot) */
		size_t len;
		bh_buf z;   /* its gzip member */
	} e[GZKEEP_N];
	int next;
	struct keptchart {
		json_t *chart;  /* a chart object marshalled (held: its address is not reused), or NULL */
		bh_buf js;      /* and its text */
		json_t *stored; /* its release_stored_copy, once made (shared by the copies: never changed) */
	} c[GZKEEP_N];
	int next_chart;
	/* the last text release_marshal_keep wrote, from split_base of its
	 * buffer: its length, and where its "chart" and its "hooks" (or
	 * "version") members begin, the ',' before each (0: none) */
	size_t split_base, split_len, split_a, split_b;
	bh_gzipper *gz; /* the compressor of the last record, at level gz_level */
	int gz_level;
};

static void keep_split_start(release_gzkeep *keep, size_t base)
{
	keep->split_base = base;
	keep->split_len = keep->split_a = keep->split_b = 0;
}

static void keep_split_end(release_gzkeep *keep, size_t end)
{
	keep->split_len = end - keep->split_base;
}

/* The top-level member key begins at (its ',' unless first): record_split's
 * points, found as they are written. */
static void keep_split(release_gzkeep *keep, const char *key, size_t at, int first)
{
	if (first)
		return;
	if (!keep->split_a && !strcmp(key, "chart"))
		keep->split_a = at - keep->split_base;
	else if (keep->split_a && !keep->split_b && (!strcmp(key, "hooks") || !strcmp(key, "version")))
		keep->split_b = at - keep->split_base;
}

/* The chart member of a record: its text again when it is one of the last
 * two objects marshalled (a record's chart is built whole and not changed
 * after, release.h), else marshalled and kept. */
static int emit_kept(bh_buf *b, const json_t *v, release_gzkeep *keep)
{
	size_t at = b->len;
	struct keptchart *kc;
	for (int i = 0; i < GZKEEP_N; i++)
		if (keep->c[i].chart == v) {
			bh_buf_put(b, keep->c[i].js.data, keep->c[i].js.len);
			return 0;
		}
	if (emit(b, v, 1, NULL) < 0)
		return BH_ELIMIT;
	kc = &keep->c[keep->next_chart];
	keep->next_chart = (keep->next_chart + 1) % GZKEEP_N;
	json_decref(kc->chart);
	json_decref(kc->stored);
	kc->chart = kc->stored = NULL;
	bh_buf_free(&kc->js);
	if (bh_buf_ok(b)) {
		bh_buf_put(&kc->js, b->data + at, b->len - at);
		if (bh_buf_ok(&kc->js))
			kc->chart = json_incref((json_t *)v);
	}
	return 0;
}

/* The chart member of a stored copy: the copy made for an earlier record
 * with the same (kept) chart object, else a new one, kept when the object
 * is. The copies share it: stored copies are not changed (storage.c hands
 * out deep copies of them). */
static json_t *copy_kept(const json_t *v, release_gzkeep *keep)
{
	for (int i = 0; i < GZKEEP_N; i++)
		if (keep->c[i].chart == v) {
			if (!keep->c[i].stored)
				keep->c[i].stored = copy_as_is(v, 1, NULL);
			return json_incref(keep->c[i].stored);
		}
	return copy_as_is(v, 1, NULL);
}

release_gzkeep *release_gzkeep_new(void)
{
	return calloc(1, sizeof(release_gzkeep));
}

void release_gzkeep_free(release_gzkeep *k)
{
	if (!k)
		return;
	for (int i = 0; i < GZKEEP_N; i++) {
		free(k->e[i].text);
		bh_buf_free(&k->e[i].z);
	}
	for (int i = 0; i < GZKEEP_N; i++) {
		json_decref(k->c[i].chart);
		json_decref(k->c[i].stored);
		bh_buf_free(&k->c[i].js);
	}
	bh_gzipper_free(k->gz);
	free(k);
}

/* Where the record's chart begins and its hooks (or version) begin: the
 * top-level members of release_marshal's compact text. 0 when not found. */
static void record_split(const char *s, size_t n, size_t *a, size_t *b)
{
	int depth = 0, str = 0;
	*a = *b = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				str = 0;
		} else if (c == '"') {
			str = 1;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			depth--;
		} else if (c == ',' && depth == 1) {
			const char *k = s + i + 1;
			size_t left = n - i - 1;
			if (!*a && left > 8 && !memcmp(k, "\"chart\":", 8)) {
				*a = i;
			} else if (*a && ((left > 8 && !memcmp(k, "\"hooks\":", 8)) || (left > 10 && !memcmp(k, "\"version\":", 10)))) {
				*b = i;
				return;
			}
		}
	}
}

/* k's compressor at level (set up once for the records of a job). */
static bh_gzipper *keep_gzipper(release_gzkeep *k, int level)
{
	if (k->gz && k->gz_level != level) {
		bh_gzipper_free(k->gz);
		k->gz = NULL;
	}
	if (!k->gz) {
		k->gz = bh_gzipper_new(level);
		k->gz_level = level;
	}
	return k->gz;
}

/* json as three gzip members: name and info | chart, config, manifest |
 * hooks to the end. The middle one, nearly all of a record and the same in
 * each write of one release, comes from k when k compressed it before.
 * gunzip, Go's gzip.Reader (multistream, the default, as Helm reads) and
 * release_decode read the members as one stream. */
static int gzip_kept(release_gzkeep *k, const char *json, size_t len, bh_buf *out)
{
	size_t a, b;
	struct gzpiece *m = NULL;
	bh_gzipper *g = keep_gzipper(k, gzip_level(len));
	if (!g)
		return -1;
	/* the points release_marshal_keep saw when this is its last text (as
	 * record_split would find them), else a scan */
	if (k->split_b && k->split_len == len && k->split_b < len && json[k->split_a] == ',' &&
	    !memcmp(json + k->split_a + 1, "\"chart\":", 8) && json[k->split_b] == ',') {
		a = k->split_a;
		b = k->split_b;
	} else {
		record_split(json, len, &a, &b);
	}
	if (!a || !b)
		return bh_gzipper_member(g, json, len, out, NULL);
	for (int i = 0; i < GZKEEP_N && !m; i++)
		if (k->e[i].text && k->e[i].len == b - a && !memcmp(k->e[i].text, json + a, b - a))
			m = &k->e[i];
	if (!m) {
		m = &k->e[k->next];
		k->next = (k->next + 1) % GZKEEP_N;
		free(m->text);
		bh_buf_reset(&m->z);
		if (!(m->text = malloc(b - a))) {
			m->len = 0;
			return -1;
		}
		memcpy(m->text, json + a, b - a);
		m->len = b - a;
		if (bh_gzipper_member(g, json + a, b - a, &m->z, NULL) < 0) {
			free(m->text);
			m->text = NULL;
			return -1;
		}
	}
	if (bh_gzipper_member(g, json, a, out, NULL) < 0)
		return -1;
	bh_buf_put(out, m->z.data, m->z.len);
	if (bh_gzipper_member(g, json + b, len - b, out, NULL) < 0)
		return -1;
	return bh_buf_ok(out) ? 0 : -1;
}

/* The gzip member of a record into gz (in pieces when k is not NULL). */
static int gzip_record(release_gzkeep *k, const char *json, size_t len, bh_buf *gz, bh_error *err)
{
	if (!k)
		return bh_gzip(json, len, gzip_level(len), gz, err);
	return gzip_kept(k, json, len, gz) < 0 ? bh_error_set(err, BH_EIO, "gzip: compressing the release failed") : 0;
}

/* A record whose text would pass RELEASE_STORED_MAX at its level is
 * compressed again, whole, at libdeflate's best (smaller than Go's
 * BestCompression), and the smaller kept: a chart Helm can store is never
 * refused here for our faster level. */
static int gzip_tight(const char *json, size_t len, bh_buf *gz, bh_error *err)
{
	bh_buf best = BH_BUF_INIT;
	if ((gz->len + 2) / 3 * 4 <= RELEASE_STORED_MAX)
		return 0;
	if (bh_gzip(json, len, RELEASE_GZIP_BEST, &best, err) < 0)
		return -1;
	if (best.len < gz->len) {
		bh_buf t = *gz;
		*gz = best;
		best = t;
	}
	bh_buf_free(&best);
	return 0;
}

char *release_encode_text_keep_new(release_gzkeep *k, const char *json, size_t len, bh_error *err)
{
	bh_buf gz = BH_BUF_INIT;
	char *s = NULL;
	if (gzip_record(k, json, len, &gz, err) == 0 && gzip_tight(json, len, &gz, err) == 0 &&
	    !(s = release_base64_new((unsigned char *)gz.data, gz.len)))
		bh_error_set(err, BH_ENOMEM, "out of memory encoding the release");
	bh_buf_free(&gz);
	return s;
}

char *release_encode_new(const json_t *rel, bh_error *err)
{
	bh_buf js = BH_BUF_INIT;
	char *s = NULL;
	if (release_marshal(rel, &js, err) == 0)
		s = release_encode_text_new(bh_buf_str(&js), js.len, err);
	bh_buf_free(&js);
	return s;
}

int release_decode(const char *s, size_t len, json_t **out, bh_error *err)
{
	bh_buf raw = BH_BUF_INIT, js = BH_BUF_INIT;
	const char *text;
	size_t tlen;
	json_error_t je;
	int rc;
	*out = NULL;
	if (len > RELEASE_MAX_DECODED)
		return bh_error_set(err, BH_ELIMIT, "release data of %zu bytes exceeds the limit", len);
	if ((rc = release_base64_decode(s, len, &raw, err)) < 0)
		goto done;
	text = raw.data ? raw.data : "";
	tlen = raw.len;
	if (raw.len >= 3 && (unsigned char)raw.data[0] == 0x1f && (unsigned char)raw.data[1] == 0x8b &&
	    (unsigned char)raw.data[2] == 0x08) {
		if ((rc = gunzip_limited((unsigned char *)raw.data, raw.len, RELEASE_MAX_DECODED, &js, err)) < 0)
			goto done;
		text = js.data ? js.data : "";
		tlen = js.len;
	}
	*out = json_loadb(text, tlen, 0, &je);
	if (!*out || !json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		rc = bh_error_set(err, BH_EPARSE, "release JSON: %s", je.text[0] ? je.text : "not an object");
		goto done;
	}
	rc = 0;
done:
	bh_buf_free(&raw);
	bh_buf_free(&js);
	return rc;
}

char *release_secret_name_new(const char *name, int version)
{
	size_t n = strlen(name) + 40;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "sh.helm.release.v1.%s.v%d", name, version);
	return s;
}

json_t *release_secret_new(const json_t *rel, long long created_unix, bh_error *err)
{
	bh_buf js = BH_BUF_INIT;
	json_t *sec = NULL;
	if (release_marshal(rel, &js, err) == 0)
		sec = release_secret_text_new(rel, bh_buf_str(&js), js.len, created_unix, err);
	bh_buf_free(&js);
	return sec;
}

json_t *release_secret_text_new(const json_t *rel, const char *json, size_t len, long long created_unix, bh_error *err)
{
	return release_secret_keep_new(rel, json, len, created_unix, NULL, err);
}

json_t *release_secret_keep_new(const json_t *rel, const char *json, size_t len, long long created_unix,
				release_gzkeep *keep, bh_error *err)
{
	const char *name = json_string_value(json_object_get(rel, "name"));
	const char *ns = json_string_value(json_object_get(rel, "namespace"));
	const char *status = json_string_value(json_object_get(json_object_get(rel, "info"), "status"));
	int version = (int)json_integer_value(json_object_get(rel, "version"));
	char *enc2, *sname, buf[32];
	size_t elen;
	bh_buf gz = BH_BUF_INIT;
	json_t *sec, *labels, *data;
	if (!name || !status || version <= 0) {
		bh_error_set(err, BH_EINVAL, "release needs a name, a status and a positive version");
		return NULL;
	}
	if (gzip_record(keep, json, len, &gz, err) < 0) {
		bh_buf_free(&gz);
		return NULL;
	}
	enc2 = base64_twice_new((const unsigned char *)gz.data, gz.len, &elen);
	sname = release_secret_name_new(name, version);
	bh_buf_free(&gz);
	if (!enc2 || !sname) {
		free(enc2);
		free(sname);
		bh_error_set(err, BH_ENOMEM, "out of memory building the release Secret");
		return NULL;
	}
	labels = json_object();
	data = json_stringn_nocheck(enc2, elen); /* base64: ASCII, no UTF-8 check */
	snprintf(buf, sizeof buf, "%lld", created_unix);
	json_object_set_new(labels, "createdAt", json_string(buf));
	json_object_set_new(labels, "name", json_string(name));
	json_object_set_new(labels, "owner", json_string("helm"));
	json_object_set_new(labels, "status", json_string(status));
	snprintf(buf, sizeof buf, "%d", version);
	json_object_set_new(labels, "version", json_string(buf));
	sec = json_pack("{s:s, s:s, s:{s:s, s:o}, s:s, s:{s:o}}", "apiVersion", "v1", "kind", "Secret",
			"metadata", "name", sname, "labels", labels, "type", "helm.sh/release.v1", "data",
			"release", data);
	if (sec && ns)
		json_object_set_new(json_object_get(sec, "metadata"), "namespace", json_string(ns));
	free(enc2);
	free(sname);
	if (!sec)
		bh_error_set(err, BH_ENOMEM, "out of memory building the release Secret");
	return sec;
}

void release_time_format(long long sec, long nsec, char out[40])
{
	struct tm tm;
	time_t t = (time_t)sec;
	char frac[32] = "", full[128];
	gmtime_r(&t, &tm);
	if (nsec > 0 && nsec < 1000000000L) {
		int len;
		snprintf(frac, sizeof frac, ".%09ld", nsec);
		len = (int)strlen(frac);
		while (len > 1 && frac[len - 1] == '0')
			frac[--len] = '\0';
	}
	snprintf(full, sizeof full, "%04d-%02d-%02dT%02d:%02d:%02d%sZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
	snprintf(out, 40, "%.39s", full);
}
