/* tmpl/toml_decode.c — a TOML 1.0 reader producing template values the way
 * BurntSushi/toml decodes into map[string]interface{} (see toml.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gostrconv.h"
#include "tmpl/gofmt.h"
#include "tmpl/gotime.h"
#include "tmpl/gotime_zone.h"
#include "tmpl/toml.h"

/* what a map is, for redefinition rules */
enum { TB_IMPLICIT = 1, TB_EXPLICIT = 2, TB_DOTTED = 4, TB_INLINE = 8, TB_AOT = 16 };

typedef struct tinfo {
	const void *ptr; /* tmpl_map* or tmpl_list* */
	int flags;
} tinfo;

typedef struct parser {
	tmpl_arena *a;
	const char *s, *end, *p;
	int line;
	bh_error *err;
	tmpl_map *root, *cur;
	char lastkey[256];
	char ctx[256]; /* the current [table] path */
	tinfo *info;
	size_t ninfo, capinfo;
	int depth;
} parser;

static int fail(parser *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(parser *P, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (P->lastkey[0])
		return bh_error_set(P->err, BH_EPARSE, "toml: line %d (last key \"%s\"): %s", P->line, P->lastkey, msg);
	return bh_error_set(P->err, BH_EPARSE, "toml: line %d: %s", P->line, msg);
}

static int oom(parser *P)
{
	return bh_error_set(P->err, BH_ENOMEM, "out of memory");
}

/* ---- side table of map/list flags ---- */

static size_t hptr(const void *p, size_t cap)
{
	return ((uintptr_t)p >> 4) * 2654435761u % cap;
}

static int *flags_of(parser *P, const void *ptr, int create)
{
	if (P->capinfo == 0 || (create && P->ninfo * 2 >= P->capinfo)) {
		size_t ncap = P->capinfo ? P->capinfo * 2 : 64;
		tinfo *ni = calloc(ncap, sizeof *ni);
		if (!ni)
			return NULL;
		for (size_t i = 0; i < P->capinfo; i++)
			if (P->info[i].ptr) {
				size_t h = hptr(P->info[i].ptr, ncap);
				while (ni[h].ptr)
					h = (h + 1) % ncap;
				ni[h] = P->info[i];
			}
		free(P->info);
		P->info = ni;
		P->capinfo = ncap;
	}
	size_t h = hptr(ptr, P->capinfo);
	while (P->info[h].ptr) {
		if (P->info[h].ptr == ptr)
			return &P->info[h].flags;
		h = (h + 1) % P->capinfo;
	}
	if (!create)
		return NULL;
	P->info[h].ptr = ptr;
	P->info[h].flags = 0;
	P->ninfo++;
	return &P->info[h].flags;
}

static int get_flags(parser *P, const void *ptr)
{
	int *f = flags_of(P, ptr, 0);
	return f ? *f : 0;
}

static int set_flags(parser *P, const void *ptr, int fl)
{
	int *f = flags_of(P, ptr, 1);
	if (!f)
		return -1;
	*f |= fl;
	return 0;
}

/* ---- lexing helpers ---- */

static int at_end(parser *P)
{
	return P->p >= P->end;
}

static void skip_ws(parser *P)
{
	while (!at_end(P) && (*P->p == ' ' || *P->p == '\t'))
		P->p++;
}

static void skip_comment(parser *P)
{
	if (!at_end(P) && *P->p == '#')
		while (!at_end(P) && *P->p != '\n')
			P->p++;
}

/* whitespace, newlines and comments (inside arrays) */
static void skip_all(parser *P)
{
	for (;;) {
		skip_ws(P);
		skip_comment(P);
		if (!at_end(P) && *P->p == '\r' && P->p + 1 < P->end && P->p[1] == '\n')
			P->p++;
		if (!at_end(P) && *P->p == '\n') {
			P->p++;
			P->line++;
			continue;
		}
		return;
	}
}

static int is_bare(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* Strings: basic, literal, and their multi-line forms. *P->p is the quote. */
/* A \x, \u or \U escape without its hex digits: BurntSushi quotes the
 * string's text from its opening delimiter through the offending byte */
static int bad_hex_escape(parser *P, const char *body, char c, int ndigits)
{
	bh_buf q = BH_BUF_INIT;
	int rc;
	size_t len = (size_t)(P->p - body) + !at_end(P);
	if (!at_end(P) && *P->p == '\n')
		P->line++;
	gofmt_quote(&q, body, len);
	rc = fail(P, "expected %s hexadecimal digits after '\\%c', but got %s instead",
		  ndigits == 2 ? "two" : ndigits == 4 ? "four" : "eight", c, bh_buf_ok(&q) ? bh_buf_str(&q) : "");
	bh_buf_free(&q);
	return rc;
}

static int parse_string(parser *P, bh_buf *out, int allow_multi)
{
	char q = *P->p;
	int multi = allow_multi && P->end - P->p >= 3 && P->p[1] == q && P->p[2] == q;
	P->p += multi ? 3 : 1;
	const char *body = P->p;
	if (multi) {
		if (!at_end(P) && *P->p == '\n') {
			P->p++;
			P->line++;
		} else if (P->end - P->p >= 2 && P->p[0] == '\r' && P->p[1] == '\n') {
			P->p += 2;
			P->line++;
		}
	}
	for (;;) {
		if (at_end(P))
			/* BurntSushi quotes the missing delimiter with the other quote */
			return fail(P, "unexpected EOF; expected %s",
				    q == '"' ? (multi ? "'\"\"\"'" : "'\"'") : (multi ? "\"'''\"" : "\"'\""));
		char c = *P->p;
		if (c == q) {
			if (!multi) {
				P->p++;
				return 0;
			}
			if (P->end - P->p >= 3 && P->p[1] == q && P->p[2] == q) {
				/* up to two extra quotes belong to the content */
				int extra = 0;
				while (P->end - P->p >= 4 && P->p[3] == q && extra < 2) {
					bh_buf_putc(out, q);
					P->p++;
					extra++;
				}
				P->p += 3;
				return 0;
			}
			bh_buf_putc(out, c);
			P->p++;
			continue;
		}
		if (c == '\n') {
			if (!multi)
				return fail(P, "strings cannot contain newlines");
			P->line++;
			bh_buf_putc(out, c);
			P->p++;
			continue;
		}
		if (q == '"' && c == '\\') {
			P->p++;
			if (at_end(P))
				return fail(P, "unexpected EOF");
			c = *P->p++;
			switch (c) {
			case 'b': bh_buf_putc(out, '\b'); break;
			case 't': bh_buf_putc(out, '\t'); break;
			case 'n': bh_buf_putc(out, '\n'); break;
			case 'f': bh_buf_putc(out, '\f'); break;
			case 'r': bh_buf_putc(out, '\r'); break;
			case 'e': bh_buf_putc(out, 0x1b); break;
			case '"': bh_buf_putc(out, '"'); break;
			case '\\': bh_buf_putc(out, '\\'); break;
			case 'u':
			case 'U':
			case 'x': {
				int n = c == 'u' ? 4 : c == 'U' ? 8 : 2;
				unsigned long cp = 0;
				for (int i = 0; i < n; i++) {
					char h = at_end(P) ? 0 : *P->p;
					int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
						: h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
					if (d < 0)
						return bad_hex_escape(P, body, c, n);
					cp = cp * 16 + (unsigned long)d;
					P->p++;
				}
				if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
					/* BurntSushi writes \u before the digits whatever the escape */
					return fail(P, "Escaped character '\\u%.*s' is not valid UTF-8.", n, P->p - n);
				go_append_rune(out, (int32_t)cp); /* cp checked above */
				break;
			}
			case ' ':
			case '\t':
			case '\r':
			case '\n':
				if (!multi)
					return fail(P, "invalid escape in string '\\%c'", c);
				/* line-ending backslash: trim whitespace up to the next non-blank */
				P->p--;
				{
					const char *t = P->p;
					while (t < P->end && (*t == ' ' || *t == '\t'))
						t++;
					if (t < P->end && *t == '\r')
						t++;
					if (t >= P->end || *t != '\n')
						return fail(P, "invalid escape in string '\\%c'", c);
				}
				while (!at_end(P) && (*P->p == ' ' || *P->p == '\t' || *P->p == '\r' || *P->p == '\n')) {
					if (*P->p == '\n')
						P->line++;
					P->p++;
				}
				break;
			default:
				return fail(P, "invalid escape in string '\\%c'", c);
			}
			continue;
		}
		if ((unsigned char)c < 0x20 && c != '\t' && !(multi && c == '\r'))
			return fail(P, "control characters are not allowed");
		bh_buf_putc(out, c);
		P->p++;
	}
}

/* BurntSushi's words for a key segment that is missing where c stands:
 * stop is '=' for a key/value line and ']' for a table name */
static int missing_key(parser *P, char stop, int first, char c)
{
	if (stop == ']' && first && c == ']')
		return fail(P, "unexpected end of table name (table names cannot be empty)");
	if (stop == ']' && c == '=')
		return fail(P, "expected '.' or ']' to end table name, but got '=' instead");
	if (c == '=')
		return fail(P, first ? "unexpected '=': key name appears blank" : "unexpected '='");
	if (c == '\n')
		return fail(P, "expected a key but found ' ' instead");
	return fail(P, "bare keys cannot contain '%c'", c);
}

/* One key segment into out (the first of its key when first). */
static int parse_key_part(parser *P, bh_buf *out, char stop, int first)
{
	skip_ws(P);
	if (at_end(P))
		return fail(P, "unexpected EOF; expected key");
	if (*P->p == '"' || *P->p == '\'')
		return parse_string(P, out, 0);
	const char *st = P->p;
	while (!at_end(P) && is_bare(*P->p))
		P->p++;
	if (P->p == st)
		return missing_key(P, stop, first, *P->p);
	bh_buf_put(out, st, (size_t)(P->p - st));
	return 0;
}

typedef struct keypath {
	char *parts[TOML_MAX_DEPTH];
	size_t lens[TOML_MAX_DEPTH];
	int n;
} keypath;

static void keypath_free(keypath *k)
{
	for (int i = 0; i < k->n; i++)
		free(k->parts[i]);
	k->n = 0;
}

/* dotted key; stops before '=' or ']' */
static int parse_key(parser *P, keypath *k, char stop)
{
	k->n = 0;
	for (;;) {
		bh_buf b = BH_BUF_INIT;
		if (k->n >= TOML_MAX_DEPTH)
			return bh_error_set(P->err, BH_ELIMIT, "toml: key nested deeper than %d", TOML_MAX_DEPTH);
		if (parse_key_part(P, &b, stop, k->n == 0)) {
			bh_buf_free(&b);
			return -1;
		}
		k->lens[k->n] = b.len;
		k->parts[k->n] = b.data ? bh_buf_detach(&b) : strdup("");
		if (!k->parts[k->n])
			return oom(P);
		k->n++;
		skip_ws(P);
		if (!at_end(P) && *P->p == '.') {
			P->p++;
			continue;
		}
		if (at_end(P) || *P->p != stop) {
			if (stop == '=')
				return fail(P, "expected '.' or '=', but got '%c' instead", at_end(P) ? ' ' : *P->p);
			return fail(P, "expected '.' or ']' to end table name, but got '%s' instead", at_end(P) ? "\\x00" : (char[2]){*P->p, 0});
		}
		if (stop != '=')
			return 0;
		/* lastkey is the full dotted key, in the current table */
		bh_buf full = BH_BUF_INIT;
		if (P->ctx[0] && P->depth == 0) {
			bh_buf_puts(&full, P->ctx);
			bh_buf_putc(&full, '.');
		}
		for (int i = 0; i < k->n; i++) {
			if (i)
				bh_buf_putc(&full, '.');
			bh_buf_puts(&full, k->parts[i]);
		}
		snprintf(P->lastkey, sizeof P->lastkey, "%s", bh_buf_str(&full));
		bh_buf_free(&full);
		return 0;
	}
}

/* ---- values ---- */

static int parse_value(parser *P, tmpl_value *out);

static int digits_ok(const char *s, size_t n, int base)
{
	int prev_us = 1;
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		int ok = base == 16 ? ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))
			 : base == 8 ? (c >= '0' && c <= '7') : base == 2 ? (c == '0' || c == '1') : (c >= '0' && c <= '9');
		if (c == '_') {
			if (prev_us)
				return 0;
			prev_us = 1;
			continue;
		}
		if (!ok)
			return 0;
		prev_us = 0;
	}
	return !prev_us;
}

static void *arena_alloc(void *ud, size_t n)
{
	return tmpl_arena_alloc(ud, n);
}

/* tok[at..] matches pat, where '9' is any digit and other bytes stand for
 * themselves (sscanf alone would take "2=" for a 2-digit day) */
static int dt_shape(const char *tok, size_t n, size_t at, const char *pat)
{
	size_t k;
	for (k = 0; pat[k]; k++) {
		if (at + k >= n)
			return 0;
		if (pat[k] == '9' ? !(tok[at + k] >= '0' && tok[at + k] <= '9') : tok[at + k] != pat[k])
			return 0;
	}
	return 1;
}

static int parse_datetime(parser *P, const char *tok, size_t n, tmpl_value *out)
{
	int Y = 0, M = 1, D = 1, h = 0, mi = 0, s = 0, nsec = 0, off = 0, have_date = 0, have_time = 0, have_off = 0, zulu = 0;
	size_t i = 0, shown;
	char em[64];
	if (n >= 10 && tok[4] == '-' && tok[7] == '-') {
		if (!dt_shape(tok, n, 0, "9999-99-99") || sscanf(tok, "%4d-%2d-%2d", &Y, &M, &D) != 3)
			goto bad;
		have_date = 1;
		i = 10;
		if (i < n && (tok[i] == 'T' || tok[i] == 't' || tok[i] == ' '))
			i++;
		else if (i < n)
			goto bad;
	}
	if (i < n) {
		if (!dt_shape(tok, n, i, "99:99:99") ||
		    sscanf(tok + i, "%2d:%2d:%2d", &h, &mi, &s) != 3)
			goto bad;
		have_time = 1;
		i += 8;
		if (i < n && tok[i] == '.') {
			int k = 0;
			i++;
			while (i < n && tok[i] >= '0' && tok[i] <= '9') {
				if (k < 9) {
					nsec = nsec * 10 + tok[i] - '0';
					k++;
				}
				i++;
			}
			if (k == 0)
				goto bad;
			while (k++ < 9)
				nsec *= 10;
		}
		if (i < n && (tok[i] == 'Z' || tok[i] == 'z')) {
			zulu = have_off = 1;
			i++;
		} else if (i < n && (tok[i] == '+' || tok[i] == '-')) {
			int oh, om;
			if (!dt_shape(tok, n, i + 1, "99:99") || sscanf(tok + i + 1, "%2d:%2d", &oh, &om) != 2)
				goto bad;
			off = (oh * 60 + om) * 60 * (tok[i] == '-' ? -1 : 1);
			have_off = 1;
			i += 6;
		}
		if (i != n)
			goto bad;
		if (have_off && !have_date)
			goto bad;
	}
	if (M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || mi > 59 || s > 60)
		goto bad;
	{
		static const int dim[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
		int leap = (Y % 4 == 0 && (Y % 100 != 0 || Y % 400 == 0));
		if (D > dim[M - 1] || (M == 2 && D == 29 && !leap))
			goto bad;
	}
	gotime t;
	if (!have_date) {
		Y = 0;
		M = 1;
		D = 1;
	}
	if (have_off && zulu) {
		t = gotime_date(Y, M, D, h, mi, s, nsec, NULL);
	} else if (have_off) {
		/* a fixed zone: parse through gotime so the zone is Go's FixedZone("", off) */
		char layout[] = "2006-01-02T15:04:05.999999999Z07:00";
		char val[160];
		snprintf(val, sizeof val, "%04d-%02d-%02dT%02d:%02d:%02d.%09d%c%02d:%02d", Y, M, D, h, mi, s, nsec,
			 off < 0 ? '-' : '+', abs(off) / 3600, abs(off) / 60 % 60);
		if (gotime_parse(layout, sizeof layout - 1, val, strlen(val), arena_alloc, P->a, &t, em, sizeof em))
			goto bad;
	} else {
		/* BurntSushi: time.FixedZone("datetime-local"/"date-local"/"time-local", 0) */
		gotime_loc *fz = tmpl_arena_alloc(P->a, gotime_loc_fixed_size());
		if (!fz)
			return oom(P);
		gotime_loc_fixed_init(fz, have_date && have_time ? "datetime-local" : have_date ? "date-local" : "time-local", 0);
		t = gotime_date(Y, M, D, h, mi, s, nsec, fz);
	}
	*out = tmpl_time_value(P->a, &t);
	return out->kind == TMPL_INVALID ? oom(P) : 0;
bad:
	/* BurntSushi's lexer ends a datetime at the first byte that cannot be in one */
	shown = strspn(tok, "0123456789-:.+TtZz ");
	return fail(P, "invalid datetime: \"%.*s\"", (int)(shown < n ? shown : n), tok);
}

static int parse_number_or_date(parser *P, tmpl_value *out)
{
	const char *st = P->p;
	char tok[128];
	size_t n;
	/* a token runs to whitespace or a delimiter; a space may separate date and time */
	while (!at_end(P) && *P->p != ',' && *P->p != ']' && *P->p != '}' && *P->p != '\n' && *P->p != '#' &&
	       *P->p != '\r' && *P->p != '\t') {
		if (*P->p == ' ') {
			/* "1979-05-27 07:32:00" */
			if (P->p - st == 10 && st[4] == '-' && P->end - P->p > 3 && P->p[1] >= '0' && P->p[1] <= '9' &&
			    P->p[3] == ':') {
				P->p++;
				continue;
			}
			break;
		}
		P->p++;
	}
	n = (size_t)(P->p - st);
	if (n == 0 || n >= sizeof tok)
	{
		/* Go's %q of the rune: a newline shows as '\n' */
		char c = n ? *st : (at_end(P) ? ' ' : *P->p);
		if (c == '\n')
			return fail(P, "expected value but found '\\n' instead");
		return fail(P, "expected value but found '%c' instead", c);
	}
	memcpy(tok, st, n);
	tok[n] = '\0';
	if (strcmp(tok, "true") == 0 || strcmp(tok, "false") == 0) {
		*out = tmpl_bool(tok[0] == 't');
		return 0;
	}
	/* BurntSushi's lexer takes a value only from a digit, sign or '.' (or
	 * true/false/inf/nan); it names a letter run in quotes, else the byte */
	if ((!strchr("0123456789+-.", tok[0]) || !tok[0]) && strcmp(tok, "inf") && strcmp(tok, "nan")) {
		size_t w = strspn(tok, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
		if (w)
			return fail(P, "expected value but found \"%.*s\" instead", (int)w, tok);
		return fail(P, "expected value but found '%c' instead", tok[0]);
	}
	const char *t = tok;
	int neg = 0;
	if (*t == '+' || *t == '-') {
		neg = *t == '-';
		t++;
	}
	if (strcmp(t, "inf") == 0) {
		*out = tmpl_float(neg ? -INFINITY : INFINITY);
		return 0;
	}
	if (strcmp(t, "nan") == 0) {
		*out = tmpl_float(neg ? -NAN : NAN);
		return 0;
	}
	/* BurntSushi's lexer: digits then '-' or ':' start a datetime */
	size_t lead = strspn(tok, "0123456789");
	if (lead > 0 && (tok[lead] == '-' || tok[lead] == ':'))
		return parse_datetime(P, tok, n, out);
	if (t[0] == '0' && (t[1] == 'x' || t[1] == 'o' || t[1] == 'b')) {
		int base = t[1] == 'x' ? 16 : t[1] == 'o' ? 8 : 2;
		unsigned long long v = 0;
		if (t != tok)
			return fail(P, "cannot use sign with non-decimal numbers: '%c0%c'", tok[0], t[1]);
		if (!digits_ok(t + 2, strlen(t + 2), base))
			return fail(P, "invalid integer: \"%s\"", tok);
		for (const char *q = t + 2; *q; q++) {
			if (*q == '_')
				continue;
			int d = *q >= 'a' ? *q - 'a' + 10 : *q >= 'A' ? *q - 'A' + 10 : *q - '0';
			if (v > (unsigned long long)INT64_MAX / (unsigned)base)
				return fail(P, "integer \"%s\" is out of range", tok);
			v = v * (unsigned)base + (unsigned)d;
			if (v > (unsigned long long)INT64_MAX)
				return fail(P, "integer \"%s\" is out of range", tok);
		}
		*out = tmpl_int64((int64_t)v);
		return 0;
	}
	int isfloat = strpbrk(t, ".eE") != NULL;
	char clean[128];
	size_t k = 0;
	for (const char *q = tok; *q; q++)
		if (*q != '_')
			clean[k++] = *q;
	clean[k] = '\0';
	if (!isfloat) {
		if (t[0] == '0' && t[1] >= '0' && t[1] <= '9')
			return fail(P, "Invalid integer \"%s\": cannot have leading zeroes", tok);
		if (!digits_ok(t, strlen(t), 10) || (t[0] == '0' && t[1]))
			return fail(P, "invalid integer: \"%s\"", tok);
		errno = 0;
		long long v = strtoll(clean, NULL, 10);
		if (errno)
			return fail(P, "%s is out of range for int64", tok);
		*out = tmpl_int64(v);
		return 0;
	}
	/* float: int part, optional fraction, optional exponent; underscores between digits */
	{
		const char *q = t;
		const char *ip = q;
		if (*t == '.')
			return fail(P, "floats must start with a digit, not '.'");
		while (*q && *q != '.' && *q != 'e' && *q != 'E')
			q++;
		if (!digits_ok(ip, (size_t)(q - ip), 10) || (ip[0] == '0' && q - ip > 1))
			return fail(P, "invalid float: \"%s\"", tok);
		if (*q == '.') {
			const char *fp = ++q;
			while (*q && *q != 'e' && *q != 'E')
				q++;
			if (q == fp)
				return fail(P, "Invalid float \"%s\": '.' must be followed by one or more digits", tok);
			if (!digits_ok(fp, (size_t)(q - fp), 10))
				return fail(P, "Invalid float value: \"%s\"", tok);
		}
		if (*q == 'e' || *q == 'E') {
			q++;
			if (*q == '+' || *q == '-')
				q++;
			if (!digits_ok(q, strlen(q), 10))
				return fail(P, "Invalid float value: \"%s\"", tok);
		}
	}
	errno = 0;
	double f = strtod(clean, NULL);
	/* Go's ParseFloat refuses overflow only; underflow is 0 */
	if (errno == ERANGE && isinf(f))
		return fail(P, "%s is out of range for float64", tok);
	*out = tmpl_float(f);
	return 0;
}

static int insert(parser *P, tmpl_map *m, const char *k, size_t kl, tmpl_value v)
{
	if (tmpl_map_get(m, k, kl)) {
		return fail(P, "Key '%s' has already been defined.", P->lastkey);
	}
	if (tmpl_map_set(P->a, m, k, kl, v))
		return oom(P);
	return 0;
}

static int descend_dotted(parser *P, tmpl_map *m, const keypath *k, tmpl_map **out);

static int parse_inline_table(parser *P, tmpl_value *out)
{
	tmpl_map *m = tmpl_map_new(P->a, NULL);
	if (!m)
		return oom(P);
	P->p++; /* { */
	skip_ws(P);
	if (!at_end(P) && *P->p == '}') {
		P->p++;
		goto done;
	}
	for (;;) {
		keypath k;
		tmpl_map *t;
		tmpl_value v;
		int rc;
		skip_ws(P);
		rc = parse_key(P, &k, '=');
		if (rc == 0) {
			P->p++;
			skip_ws(P);
			rc = parse_value(P, &v);
		}
		if (rc == 0)
			rc = descend_dotted(P, m, &k, &t);
		if (rc == 0)
			rc = insert(P, t, k.parts[k.n - 1], k.lens[k.n - 1], v);
		keypath_free(&k);
		if (rc)
			return -1;
		skip_ws(P);
		if (!at_end(P) && *P->p == ',') {
			P->p++;
			continue;
		}
		if (!at_end(P) && *P->p == '}') {
			P->p++;
			break;
		}
		return fail(P, "expected a comma or an inline table terminator '}', but got '%c' instead",
			    at_end(P) ? ' ' : *P->p);
	}
done:
	if (set_flags(P, m, TB_INLINE))
		return oom(P);
	tmpl_map_sort(m);
	*out = tmpl_map_value(m);
	return 0;
}

static int parse_array(parser *P, tmpl_value *out)
{
	tmpl_list *l = tmpl_list_new(P->a, NULL, 4);
	if (!l)
		return oom(P);
	P->p++; /* [ */
	for (;;) {
		tmpl_value v;
		skip_all(P);
		if (at_end(P))
			return fail(P, "unexpected EOF; expected ']'");
		if (*P->p == ']') {
			P->p++;
			break;
		}
		if (*P->p == ',')
			return fail(P, "unexpected comma");
		if (parse_value(P, &v))
			return -1;
		if (tmpl_list_push(P->a, l, v))
			return oom(P);
		skip_all(P);
		if (!at_end(P) && *P->p == ',') {
			P->p++;
			continue;
		}
		if (!at_end(P) && *P->p == ']') {
			P->p++;
			break;
		}
		if (at_end(P))
			return fail(P, "expected a comma (',') or array terminator (']'), but got end of file");
		return fail(P, "expected a comma (',') or array terminator (']'), but got '%c'", *P->p);
	}
	if (set_flags(P, l, TB_INLINE))
		return oom(P);
	*out = tmpl_list_value(l);
	return 0;
}

static int parse_value(parser *P, tmpl_value *out)
{
	int rc;
	if (at_end(P))
		return fail(P, "unexpected EOF; expected value");
	if (++P->depth > TOML_MAX_DEPTH)
		return bh_error_set(P->err, BH_ELIMIT, "toml: values nested deeper than %d", TOML_MAX_DEPTH);
	switch (*P->p) {
	case '"':
	case '\'': {
		bh_buf b = BH_BUF_INIT;
		rc = parse_string(P, &b, 1);
		if (rc == 0) {
			*out = tmpl_str(P->a, bh_buf_str(&b), b.len);
			if (out->kind == TMPL_INVALID)
				rc = oom(P);
		}
		bh_buf_free(&b);
		break;
	}
	case '[': rc = parse_array(P, out); break;
	case '{': rc = parse_inline_table(P, out); break;
	default: rc = parse_number_or_date(P, out); break;
	}
	P->depth--;
	return rc;
}

/* ---- tables ---- */

/* Walks/creates the tables of k[0..n-1) for a dotted key under m. */
static int descend_dotted(parser *P, tmpl_map *m, const keypath *k, tmpl_map **out)
{
	for (int i = 0; i < k->n - 1; i++) {
		tmpl_value *v = tmpl_map_get(m, k->parts[i], k->lens[i]);
		if (!v) {
			tmpl_map *t = tmpl_map_new(P->a, NULL);
			if (!t || tmpl_map_set(P->a, m, k->parts[i], k->lens[i], tmpl_map_value(t)) ||
			    set_flags(P, t, TB_DOTTED))
				return oom(P);
			m = t;
			continue;
		}
		if (v->kind != TMPL_MAP || (get_flags(P, v->u.map) & (TB_INLINE | TB_EXPLICIT)) == TB_INLINE ||
		    (get_flags(P, v->u.map) & TB_INLINE))
			return fail(P, "Key '%s' has already been defined.", P->lastkey);
		m = v->u.map;
	}
	*out = m;
	return 0;
}

/* [a.b.c] or [[a.b.c]] */
static int header(parser *P, int aot)
{
	keypath k;
	tmpl_map *m = P->root;
	int rc = 0;
	bh_buf hb = BH_BUF_INIT;
	const char *hdr = "";
	P->p += aot ? 2 : 1;
	P->lastkey[0] = '\0';
	skip_ws(P);
	if (parse_key(P, &k, ']'))
		goto out_fail;
	P->p++;
	for (int i = 0; i < k.n; i++) {
		if (i)
			bh_buf_putc(&hb, '.');
		bh_buf_puts(&hb, k.parts[i]);
	}
	hdr = bh_buf_str(&hb);
	if (aot) {
		if (at_end(P) || *P->p != ']') {
			fail(P, "expected ']]' to end array of tables");
			goto out_fail;
		}
		P->p++;
	}
	for (int i = 0; i < k.n; i++) {
		tmpl_value *v = tmpl_map_get(m, k.parts[i], k.lens[i]);
		int last = i == k.n - 1;
		if (last && aot) {
			tmpl_map *t = tmpl_map_new(P->a, NULL);
			if (!t)
				goto out_oom;
			if (!v) {
				tmpl_list *l = tmpl_list_new(P->a, "[]map[string]interface {}", 4);
				if (!l || tmpl_list_push(P->a, l, tmpl_map_value(t)) ||
				    tmpl_map_set(P->a, m, k.parts[i], k.lens[i], tmpl_list_value(l)) || set_flags(P, l, TB_AOT))
					goto out_oom;
			} else if (v->kind == TMPL_LIST && (get_flags(P, v->u.list) & TB_AOT)) {
				if (tmpl_list_push(P->a, v->u.list, tmpl_map_value(t)))
					goto out_oom;
			} else {
				fail(P, "Key '%s' was already created and cannot be used as an array.", hdr);
				goto out_fail;
			}
			m = t;
			break;
		}
		if (!v) {
			tmpl_map *t = tmpl_map_new(P->a, NULL);
			if (!t || tmpl_map_set(P->a, m, k.parts[i], k.lens[i], tmpl_map_value(t)) ||
			    set_flags(P, t, last ? TB_EXPLICIT : TB_IMPLICIT))
				goto out_oom;
			m = t;
			continue;
		}
		if (v->kind == TMPL_LIST && (get_flags(P, v->u.list) & TB_AOT) && v->u.list->len > 0) {
			tmpl_value *lastv = &v->u.list->items[v->u.list->len - 1];
			if (last) {
				fail(P, "Key '%s' has already been defined.", hdr);
				goto out_fail;
			}
			m = lastv->u.map;
			continue;
		}
		if (v->kind != TMPL_MAP) {
			fail(P, "Key '%s' has already been defined.", hdr);
			goto out_fail;
		}
		int fl = get_flags(P, v->u.map);
		if (last) {
			if (fl & TB_EXPLICIT) {
				fail(P, "Key '%s' has already been defined.", hdr);
				goto out_fail;
			}
			if (set_flags(P, v->u.map, TB_EXPLICIT))
				goto out_oom;
		}
		m = v->u.map;
	}
	P->cur = m;
	snprintf(P->ctx, sizeof P->ctx, "%s", hdr);
	bh_buf_free(&hb);
	keypath_free(&k);
	return rc;
out_oom:
	oom(P);
out_fail:
	bh_buf_free(&hb);
	keypath_free(&k);
	return -1;
}

static int keyval(parser *P)
{
	keypath k;
	tmpl_map *t;
	tmpl_value v;
	int rc = parse_key(P, &k, '=');
	if (rc == 0) {
		P->p++;
		skip_ws(P);
		rc = parse_value(P, &v);
	}
	if (rc == 0)
		rc = descend_dotted(P, P->cur, &k, &t);
	if (rc == 0)
		rc = insert(P, t, k.parts[k.n - 1], k.lens[k.n - 1], v);
	keypath_free(&k);
	if (rc == 0)
		P->lastkey[0] = '\0'; /* the decoder's "last key" lasts while its value is read */
	return rc;
}

static void sort_all(tmpl_value *v, int depth)
{
	if (depth > TOML_MAX_DEPTH + 2)
		return;
	if (v->kind == TMPL_MAP) {
		tmpl_map_sort(v->u.map);
		for (size_t i = 0; i < v->u.map->len; i++)
			sort_all(&v->u.map->entries[i].val, depth + 1);
	} else if (v->kind == TMPL_LIST) {
		for (size_t i = 0; i < v->u.list->len; i++)
			sort_all(&v->u.list->items[i], depth + 1);
	}
}

int toml_decode(tmpl_arena *a, const char *text, size_t len, tmpl_value *out, bh_error *err)
{
	parser P;
	int rc = 0;
	if (len > TOML_MAX_BYTES)
		return bh_error_set(err, BH_ELIMIT, "toml: document larger than %zu bytes", TOML_MAX_BYTES);
	memset(&P, 0, sizeof P);
	P.a = a;
	P.s = P.p = text;
	P.end = text + len;
	P.line = 1;
	P.err = err;
	P.root = P.cur = tmpl_map_new(a, NULL);
	if (!P.root)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		P.p += 3;
	while (rc == 0) {
		skip_ws(&P);
		skip_comment(&P);
		if (at_end(&P))
			break;
		if (*P.p == '\r' && P.p + 1 < P.end && P.p[1] == '\n')
			P.p++;
		if (*P.p == '\n') {
			P.p++;
			P.line++;
			continue;
		}
		if (*P.p == '[')
			rc = header(&P, P.p + 1 < P.end && P.p[1] == '[');
		else
			rc = keyval(&P);
		if (rc)
			break;
		skip_ws(&P);
		skip_comment(&P);
		if (!at_end(&P) && *P.p != '\n' && *P.p != '\r')
			rc = fail(&P, "expected a top-level item to end with a newline, comment, or EOF, but got '%c' instead",
				  *P.p);
	}
	free(P.info);
	if (rc)
		return err->code ? err->code : BH_EPARSE;
	*out = tmpl_map_value(P.root);
	sort_all(out, 0);
	return 0;
}
