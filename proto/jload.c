/* proto/jload.c — see jload.h. */
#include "proto/jload.h"

#include <stdlib.h>
#include <string.h>

typedef struct rd {
	const char *p, *end;
	size_t flags;
	char *tmp; /* unescaped string values (grows) */
	size_t ntmp;
} rd;

static void skip_ws(rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t'))
		r->p++;
}

/* The string at r->p (after its quote): *s, *n the bytes themselves when
 * they hold no escape (*esc 0), else the unescaped bytes in r->tmp. 0, or
 * -1: not the subset (or no memory). */
static int read_string(rd *r, const char **s, size_t *n, int *esc)
{
	const char *q = r->p;
	size_t o = 0;
	while (q < r->end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20 && (unsigned char)*q < 0x80)
		q++;
	if (q < r->end && *q == '"') {
		*s = r->p;
		*n = (size_t)(q - r->p);
		*esc = 0;
		r->p = q + 1;
		return 0;
	}
	if ((size_t)(r->end - r->p) > r->ntmp) { /* unescaping only shortens */
		char *t = realloc(r->tmp, (size_t)(r->end - r->p));
		if (!t)
			return -1;
		r->tmp = t;
		r->ntmp = (size_t)(r->end - r->p);
	}
	for (q = r->p; q < r->end; q++) {
		unsigned char c = (unsigned char)*q;
		if (c == '"') {
			*s = r->tmp;
			*n = o;
			*esc = 1;
			r->p = q + 1;
			return 0;
		}
		if (c < 0x20 || c >= 0x80)
			return -1;
		if (c == '\\') {
			if (++q == r->end)
				return -1;
			switch (*q) {
			case '"': c = '"'; break;
			case '\\': c = '\\'; break;
			case '/': c = '/'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			default: return -1; /* \u and anything else: json_loadb's */
			}
		}
		r->tmp[o++] = (char)c;
	}
	return -1;
}

static json_t *read_value(rd *r, int depth);

static json_t *read_number(rd *r)
{
	const char *q = r->p;
	int neg = 0;
	long long v = 0;
	size_t nd;
	if (q < r->end && *q == '-') {
		neg = 1;
		q++;
	}
	for (nd = 0; q + nd < r->end && q[nd] >= '0' && q[nd] <= '9'; nd++)
		if (nd < 18) /* longer: json_loadb's (v stays in range) */
			v = v * 10 + (q[nd] - '0');
	if (nd == 0 || nd > 18 || (nd > 1 && q[0] == '0'))
		return NULL;
	q += nd;
	if (q < r->end && (*q == '.' || *q == 'e' || *q == 'E'))
		return NULL; /* a real: json_loadb's */
	r->p = q;
	return json_integer(neg ? -v : v);
}

static json_t *read_word(rd *r, const char *w, size_t n, json_t *v)
{
	if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n) != 0)
		return NULL;
	r->p += n;
	return v;
}

static json_t *read_object(rd *r, int depth)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	skip_ws(r);
	if (r->p < r->end && *r->p == '}') {
		r->p++;
		return o;
	}
	for (;;) {
		const char *k;
		size_t kn;
		int esc;
		char *kcopy = NULL;
		json_t *v;
		if (r->p == r->end || *r->p != '"')
			goto fail;
		r->p++;
		if (read_string(r, &k, &kn, &esc) < 0)
			goto fail;
		if (esc) { /* r->tmp is the value's next */
			if (!(kcopy = malloc(kn + 1)))
				goto fail;
			memcpy(kcopy, k, kn);
			k = kcopy;
		}
		skip_ws(r);
		if (r->p == r->end || *r->p != ':' || ((r->flags & JSON_REJECT_DUPLICATES) && json_object_getn(o, k, kn))) {
			free(kcopy);
			goto fail;
		}
		r->p++;
		v = read_value(r, depth + 1);
		if (!v || json_object_setn_new_nocheck(o, k, kn, v) < 0) {
			free(kcopy);
			goto fail;
		}
		free(kcopy);
		skip_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			skip_ws(r);
			continue;
		}
		if (r->p < r->end && *r->p == '}') {
			r->p++;
			return o;
		}
		goto fail;
	}
fail:
	json_decref(o);
	return NULL;
}

static json_t *read_array(rd *r, int depth)
{
	json_t *a = json_array();
	if (!a)
		return NULL;
	skip_ws(r);
	if (r->p < r->end && *r->p == ']') {
		r->p++;
		return a;
	}
	for (;;) {
		json_t *v = read_value(r, depth + 1);
		if (!v || json_array_append_new(a, v) < 0)
			break;
		skip_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == ']') {
			r->p++;
			return a;
		}
		break;
	}
	json_decref(a);
	return NULL;
}

static json_t *read_value(rd *r, int depth)
{
	const char *s;
	size_t n;
	int esc;
	skip_ws(r);
	if (r->p == r->end || depth > JLOAD_MAX_DEPTH)
		return NULL;
	switch (*r->p) {
	case '{':
		r->p++;
		return read_object(r, depth);
	case '[':
		r->p++;
		return read_array(r, depth);
	case '"':
		r->p++;
		return read_string(r, &s, &n, &esc) < 0 ? NULL : json_stringn_nocheck(s, n);
	case 't':
		return read_word(r, "true", 4, json_true());
	case 'f':
		return read_word(r, "false", 5, json_false());
	case 'n':
		return read_word(r, "null", 4, json_null());
	default:
		return read_number(r);
	}
}

json_t *jload_subset_new(const char *text, size_t len, size_t flags)
{
	rd r = {text, text + len, flags, NULL, 0};
	json_t *v = NULL;
	if ((flags & ~(size_t)JSON_REJECT_DUPLICATES) == 0 && text) {
		skip_ws(&r);
		if (r.p < r.end && (*r.p == '{' || *r.p == '['))
			v = read_value(&r, 1);
		skip_ws(&r);
		if (v && r.p != r.end) { /* trailing bytes: json_loadb's error */
			json_decref(v);
			v = NULL;
		}
		free(r.tmp);
	}
	return v;
}

json_t *jload_new(const char *text, size_t len, size_t flags, json_error_t *je)
{
	json_t *v = jload_subset_new(text, len, flags);
	return v ? v : json_loadb(text, len, flags, je);
}
