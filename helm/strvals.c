/* helm/strvals.c — see strvals.h. A transcription of the behaviour of Helm's
 * pkg/strvals parser (including its quirks: `a={}` is [""], `a[0]` with
 * nothing after it sets an empty list, Go panics become "unable to parse key"
 * errors), working on bytes (the separators are all ASCII). */
#include "helm/strvals.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"

#define SV_EOF 1 /* positive: "io.EOF", not an error */

typedef struct sv {
	const char *s;
	size_t len, pos;
	enum strvals_mode mode;
	strvals_reader reader;
	void *ctx;
	bh_error *err;
	int index_depth;
} sv;

const char *strvals_flag_prefix(enum strvals_mode mode)
{
	switch (mode) {
	case STRVALS_TYPED: return "failed parsing --set data";
	case STRVALS_STRING: return "failed parsing --set-string data";
	case STRVALS_JSON: return "failed parsing --set-json data";
	case STRVALS_FILE: return "failed parsing --set-file data";
	case STRVALS_LITERAL: return "failed parsing --set-literal data";
	}
	return "failed parsing data";
}

static const char *go_type(const json_t *v)
{
	if (!v || json_is_null(v))
		return "nil";
	switch (json_typeof(v)) {
	case JSON_STRING: return "string";
	case JSON_TRUE:
	case JSON_FALSE: return "bool";
	case JSON_INTEGER: return "int64";
	case JSON_REAL: return "float64";
	case JSON_OBJECT: return "map[string]interface {}";
	case JSON_ARRAY: return "[]interface {}";
	default: return "nil";
	}
}

/* Go's %q of a string (strconv.Quote, ASCII-only escapes for control bytes). */
static void go_quote(bh_buf *b, const char *s, size_t n)
{
	bh_buf_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': bh_buf_puts(b, "\\\""); break;
		case '\\': bh_buf_puts(b, "\\\\"); break;
		case '\n': bh_buf_puts(b, "\\n"); break;
		case '\t': bh_buf_puts(b, "\\t"); break;
		case '\r': bh_buf_puts(b, "\\r"); break;
		case '\a': bh_buf_puts(b, "\\a"); break;
		case '\b': bh_buf_puts(b, "\\b"); break;
		case '\f': bh_buf_puts(b, "\\f"); break;
		case '\v': bh_buf_puts(b, "\\v"); break;
		default:
			if (c < 0x20 || c == 0x7f)
				bh_buf_printf(b, "\\x%02x", c);
			else
				bh_buf_putc(b, (char)c);
		}
	}
	bh_buf_putc(b, '"');
}

static int sv_fail_quoted(sv *p, const char *pre, const bh_buf *tok, const char *post)
{
	bh_buf q = BH_BUF_INIT;
	go_quote(&q, tok->data ? tok->data : "", tok->len);
	bh_error_set(p->err, BH_EINVAL, "%s%s%s", pre, bh_buf_str(&q), post);
	bh_buf_free(&q);
	return BH_EINVAL;
}

static int sv_panic(sv *p, const json_t *have, const char *want)
{
	return bh_error_set(p->err, BH_EINVAL,
			    "unable to parse key: interface conversion: interface {} is %s, not %s",
			    go_type(have), want);
}

/* Reads until one of `stop` (or EOF). Backslash escapes the next byte unless
 * literal. Returns 0 with *last set, or SV_EOF. */
static int runes_until(sv *p, const char *stop, bh_buf *tok, char *last, int literal)
{
	bh_buf_reset(tok);
	for (;;) {
		if (p->pos >= p->len) {
			*last = 0;
			return SV_EOF;
		}
		char c = p->s[p->pos++];
		if (c && strchr(stop, c)) {
			*last = c;
			return 0;
		}
		if (c == '\\' && !literal) {
			if (p->pos >= p->len) {
				*last = 0;
				return SV_EOF;
			}
			bh_buf_putc(tok, p->s[p->pos++]);
			continue;
		}
		bh_buf_putc(tok, c);
	}
}

json_t *strvals_typed_value(const char *s, size_t n)
{
	if (n == 4 && !strncasecmp(s, "true", 4))
		return json_true();
	if (n == 5 && !strncasecmp(s, "false", 5))
		return json_false();
	if (n == 4 && !strncasecmp(s, "null", 4))
		return json_null();
	if (n == 1 && s[0] == '0')
		return json_integer(0);
	if (n > 0 && s[0] != '0') {
		/* strconv.ParseInt(s, 10, 64): optional sign, then only digits. */
		size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
		int ok = i < n;
		for (size_t j = i; j < n; j++)
			if (s[j] < '0' || s[j] > '9')
				ok = 0;
		if (ok && n < 32) {
			char tmp[32];
			memcpy(tmp, s, n);
			tmp[n] = 0;
			errno = 0;
			long long v = strtoll(tmp, NULL, 10);
			if (errno == 0)
				return json_integer(v);
		}
	}
	return json_stringn(s, n);
}

/* t.reader(rs): the value for a scalar token in the current mode. */
static json_t *sv_read(sv *p, const bh_buf *tok)
{
	const char *s = tok->data ? tok->data : "";
	switch (p->mode) {
	case STRVALS_TYPED: return strvals_typed_value(s, tok->len);
	case STRVALS_FILE:
		if (!p->reader) {
			bh_error_set(p->err, BH_EINVAL, "reading files is not supported here");
			return NULL;
		}
		return p->reader(s, p->ctx, p->err);
	default: return json_stringn(s, tok->len);
	}
}

static void sv_set(json_t *data, const bh_buf *key, json_t *val)
{
	if (key->len == 0) {
		json_decref(val);
		return;
	}
	json_object_setn_new(data, key->data, key->len, val);
}

static json_t *sv_get(json_t *data, const bh_buf *key)
{
	if (key->len == 0)
		return json_object_getn(data, "", 0);
	return json_object_getn(data, key->data, key->len);
}

/* strconv.Atoi on the index text. */
static int sv_atoi(sv *p, const bh_buf *tok, long *out)
{
	const char *s = tok->data ? tok->data : "";
	size_t n = tok->len, i = 0;
	bh_buf q = BH_BUF_INIT;
	int bad = n == 0;
	if (n > 0 && (s[0] == '+' || s[0] == '-'))
		i = 1;
	if (i >= n)
		bad = 1;
	for (size_t j = i; j < n; j++)
		if (s[j] < '0' || s[j] > '9')
			bad = 1;
	go_quote(&q, s, n);
	if (bad) {
		bh_error_set(p->err, BH_EINVAL, "error parsing index: strconv.Atoi: parsing %s: invalid syntax", bh_buf_str(&q));
		bh_buf_free(&q);
		return BH_EINVAL;
	}
	errno = 0;
	long long v = strtoll(s, NULL, 10);
	if (errno || n - i > 19) {
		bh_error_set(p->err, BH_EINVAL, "error parsing index: strconv.Atoi: parsing %s: value out of range", bh_buf_str(&q));
		bh_buf_free(&q);
		return BH_EINVAL;
	}
	bh_buf_free(&q);
	*out = (long)v;
	return 0;
}

/* keyIndex: reads "N]" after a '['. */
static int key_index(sv *p, long *out)
{
	bh_buf tok = BH_BUF_INIT;
	char last;
	int rc = runes_until(p, "]", &tok, &last, p->mode == STRVALS_LITERAL);
	if (rc == SV_EOF) {
		bh_buf_free(&tok);
		return SV_EOF; /* "error parsing index: EOF" is wrapped by the caller */
	}
	rc = sv_atoi(p, &tok, out);
	bh_buf_free(&tok);
	return rc;
}

static int set_index(sv *p, json_t *list, long index, json_t *val)
{
	if (index < 0) {
		json_decref(val);
		return bh_error_set(p->err, BH_EINVAL, "negative %ld index not allowed", index);
	}
	if (index > STRVALS_MAX_INDEX) {
		json_decref(val);
		return bh_error_set(p->err, BH_ELIMIT,
				    "index of %ld is greater than maximum supported index of %d",
				    index, STRVALS_MAX_INDEX);
	}
	while (json_array_size(list) <= (size_t)index)
		if (json_array_append_new(list, json_null()))
			break;
	json_array_set_new(list, (size_t)index, val);
	return 0;
}

/* emptyVal: skips blanks; true at ',' or EOF (consumed). */
static int empty_val(sv *p)
{
	while (p->pos < p->len) {
		char c = p->s[p->pos];
		if (c == ',') {
			p->pos++;
			return 1;
		}
		if (!(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'))
			return 0;
		p->pos++;
	}
	return 1;
}

/* Decodes one JSON value at the cursor (Go json.Decoder.Decode + InputOffset). */
static json_t *json_val(sv *p)
{
	json_error_t je;
	const char *s = p->s + p->pos;
	size_t n = p->len - p->pos;
	json_t *v = json_loadb(s, n, JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK | JSON_DECODE_INT_AS_REAL, &je);
	if (!v) {
		bh_error_set(p->err, BH_EINVAL, "%s", je.text);
		return NULL;
	}
	size_t used = (size_t)je.position;
	if (!json_is_object(v) && !json_is_array(v) && !json_is_string(v)) {
		/* jansson may read one code point past a scalar; Go stops at it */
		size_t i = 0;
		while (i < n && strchr(" \t\r\n", s[i]))
			i++;
		while (i < n && strchr("+-0123456789.eEtruefalsn", s[i]))
			i++;
		used = i;
	}
	if (used > n)
		used = n;
	p->pos += used;
	return v;
}

static int sv_key(sv *p, json_t *data, int level);

/* valList: `{a,b}` (0 with *out), or 2 = "not a list", SV_EOF at EOF. */
static int val_list(sv *p, json_t **out)
{
	if (p->pos >= p->len)
		return SV_EOF;
	if (p->s[p->pos] != '{')
		return 2;
	p->pos++;
	json_t *list = json_array();
	bh_buf tok = BH_BUF_INIT;
	char last;
	for (;;) {
		if (runes_until(p, ",}", &tok, &last, 0) == SV_EOF) {
			bh_buf_free(&tok);
			json_decref(list);
			return bh_error_set(p->err, BH_EINVAL, "list must terminate with '}'");
		}
		if (last == '}') {
			if (p->pos < p->len && p->s[p->pos] == ',')
				p->pos++;
		}
		json_t *v = sv_read(p, &tok);
		if (!v) {
			bh_buf_free(&tok);
			json_decref(list);
			return p->err ? p->err->code : BH_EINVAL;
		}
		json_array_append_new(list, v);
		if (last == '}')
			break;
	}
	bh_buf_free(&tok);
	*out = list;
	return 0;
}

/* val(): everything up to ',' (literal mode: up to EOF). */
static int scalar_val(sv *p, json_t **out)
{
	bh_buf tok = BH_BUF_INIT;
	char last;
	runes_until(p, p->mode == STRVALS_LITERAL ? "" : ",", &tok, &last, p->mode == STRVALS_LITERAL);
	json_t *v = p->mode == STRVALS_LITERAL ? json_stringn(tok.data ? tok.data : "", tok.len) : sv_read(p, &tok);
	bh_buf_free(&tok);
	if (!v)
		return p->err ? p->err->code : BH_EINVAL;
	*out = v;
	return 0;
}

/* The value after '=' (for key() and listItem()); *out set on 0 or SV_EOF. */
static int value_after_eq(sv *p, json_t **out)
{
	if (p->mode == STRVALS_JSON) {
		if (empty_val(p)) {
			*out = json_null();
			return 0;
		}
		json_t *v = json_val(p);
		if (!v)
			return BH_EINVAL;
		*out = v;
		empty_val(p);
		return 0;
	}
	if (p->mode == STRVALS_LITERAL)
		return scalar_val(p, out);
	int rc = val_list(p, out);
	if (rc == 0)
		return 0;
	if (rc == SV_EOF) {
		*out = json_string("");
		return SV_EOF;
	}
	if (rc != 2)
		return rc;
	return scalar_val(p, out);
}

/* listItem: what follows `name[i]`. Mutates `list` in place. */
static int list_item(sv *p, json_t *list, long i, int level)
{
	bh_buf tok = BH_BUF_INIT;
	char last;
	int rc;
	if (i < 0)
		return bh_error_set(p->err, BH_EINVAL, "negative %ld index not allowed", i);
	if (++p->index_depth > STRVALS_MAX_NESTED_INDEX)
		return bh_error_set(p->err, BH_ELIMIT, "list indexes are nested deeper than the maximum of %d",
				    STRVALS_MAX_NESTED_INDEX);
	rc = runes_until(p, "[.=", &tok, &last, p->mode == STRVALS_LITERAL);
	if (tok.len > 0) {
		/* Go formats the []rune with %q: ['a' 'b'] */
		bh_buf m = BH_BUF_INIT;
		bh_buf_puts(&m, "unexpected data at end of array index: [");
		for (size_t j = 0; j < tok.len; j++) {
			unsigned char c = (unsigned char)tok.data[j];
			if (j)
				bh_buf_putc(&m, ' ');
			if (c == '\'' || c == '\\')
				bh_buf_printf(&m, "'\\%c'", c);
			else if (c < 0x20 || c == 0x7f)
				bh_buf_printf(&m, "'\\x%02x'", c);
			else
				bh_buf_printf(&m, "'%c'", c);
		}
		bh_buf_putc(&m, ']');
		bh_error_set(p->err, BH_EINVAL, "%s", bh_buf_str(&m));
		bh_buf_free(&m);
		bh_buf_free(&tok);
		return BH_EINVAL;
	}
	bh_buf_free(&tok);
	if (rc == SV_EOF)
		return SV_EOF;
	if (last == '=') {
		json_t *v = NULL;
		rc = value_after_eq(p, &v);
		if (rc < 0)
			return rc;
		return set_index(p, list, i, v);
	}
	if (last == '[') {
		long next;
		rc = key_index(p, &next);
		if (rc) /* Helm wraps io.EOF with %w, so parse() ends quietly */
			return rc;
		json_t *cur = NULL;
		if ((long)json_array_size(list) > i) {
			json_t *existed = json_array_get(list, (size_t)i);
			if (!json_is_null(existed)) {
				if (!json_is_array(existed))
					return sv_panic(p, existed, "[]interface {}");
				cur = json_incref(existed);
			}
		}
		if (!cur)
			cur = json_array();
		rc = list_item(p, cur, next, level);
		if (rc) {
			json_decref(cur);
			return rc;
		}
		return set_index(p, list, i, cur);
	}
	/* '.' */
	json_t *inner = NULL;
	if ((long)json_array_size(list) > i) {
		inner = json_array_get(list, (size_t)i);
		if (!json_is_object(inner)) {
			json_array_set_new(list, (size_t)i, json_object());
			inner = json_array_get(list, (size_t)i);
		}
		json_incref(inner);
	} else {
		inner = json_object();
	}
	rc = sv_key(p, inner, level);
	if (rc) {
		json_decref(inner);
		return rc;
	}
	return set_index(p, list, i, inner);
}

/* key(): one `name...=value` item into data. 0, SV_EOF, or <0. */
static int sv_key(sv *p, json_t *data, int level)
{
	bh_buf k = BH_BUF_INIT;
	char last;
	int rc, literal = p->mode == STRVALS_LITERAL;
	rc = runes_until(p, literal ? "=[." : "=[,.", &k, &last, literal);
	if (rc == SV_EOF) {
		if (k.len == 0) {
			bh_buf_free(&k);
			return SV_EOF;
		}
		rc = sv_fail_quoted(p, "key ", &k, " has no value");
		bh_buf_free(&k);
		return rc;
	}
	switch (last) {
	case '[': {
		long i;
		rc = key_index(p, &i);
		if (rc) /* SV_EOF too: Helm's wrapped io.EOF ends parsing quietly */
			break;
		json_t *list = sv_get(data, &k);
		if (list && !json_is_array(list)) {
			rc = sv_panic(p, list, "[]interface {}");
			break;
		}
		list = list ? json_incref(list) : json_array();
		rc = list_item(p, list, i, level);
		sv_set(data, &k, list);
		break;
	}
	case '=': {
		json_t *v = NULL;
		rc = value_after_eq(p, &v);
		if (rc >= 0)
			sv_set(data, &k, v);
		break;
	}
	case ',':
		sv_set(data, &k, json_string(""));
		rc = sv_fail_quoted(p, "key ", &k, " has no value (cannot end with ,)");
		break;
	default: { /* '.' */
		if (++level > STRVALS_MAX_NESTED_NAME) {
			rc = bh_error_set(p->err, BH_ELIMIT,
					  "value name nested level is greater than maximum supported nested level of %d",
					  STRVALS_MAX_NESTED_NAME);
			break;
		}
		json_t *inner = sv_get(data, &k);
		if (inner && !json_is_object(inner)) {
			rc = sv_panic(p, inner, "map[string]interface {}");
			break;
		}
		inner = inner ? json_incref(inner) : json_object();
		rc = sv_key(p, inner, level);
		if (rc == 0 && json_object_size(inner) == 0)
			rc = sv_fail_quoted(p, "key map ", &k, " has no value");
		if (json_object_size(inner) != 0)
			sv_set(data, &k, json_incref(inner));
		json_decref(inner);
		break;
	}
	}
	bh_buf_free(&k);
	return rc;
}

int strvals_parse_into(const char *s, json_t *dest, enum strvals_mode mode,
		       strvals_reader reader, void *ctx, bh_error *err)
{
	sv p = {s, strlen(s), 0, mode, reader, ctx, err, 0};
	if (!json_is_object(dest))
		return bh_error_set(err, BH_EINVAL, "strvals: destination is not a map");
	for (;;) {
		p.index_depth = 0;
		int rc = sv_key(&p, dest, 0);
		if (rc == SV_EOF)
			return 0;
		if (rc)
			return rc;
	}
}
