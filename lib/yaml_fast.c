/* lib/yaml_fast.c — a direct reader for the plain block YAML that values
 * files are mostly made of (see yaml_fast_build in lib/yaml_internal.h).
 * It follows libyaml's scanner rules for the constructs it knows and gives
 * up (answer 1) on anything else, including everything libyaml would
 * refuse, so the result never differs from libyaml's: libyaml then reads
 * the text again. Its bytes are checked once, all at the start (text_ok);
 * lines are read once; comments cost one memchr each. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "lib/scan.h"
#include "lib/vec.h"
#include "lib/yaml_internal.h"

int yaml_fast_off;

#define FAST_MAX_KEY 1000  /* libyaml's simple keys end within 1024 bytes */
#define FAST_MAX_DEPTH 200 /* deeper documents go to libyaml */

typedef struct fast {
	builder *b;
	const char *s;
	size_t len;
	/* the current content line: [ls, le), its first non-space byte at
	 * column col, 0-based number lno; eof when there is none */
	size_t ls, le, col, lno;
	int eof;
	int started; /* a content line was read: a "---" line ends the document */
	size_t depth;
	char *arena; /* scalar texts, each NUL-terminated */
	size_t alen, acap;
	ynode **stk; /* the kids of the collections being read, the
		      * innermost's last */
	size_t sn, scap;
} fast;

/* One UTF-8 sequence at s[i..n) that libyaml reads as a printable
 * character and not as a line break, BOM or blank: its length, 0 if not. */
static size_t utf8_printable(const unsigned char *s, size_t i, size_t n)
{
	unsigned c = s[i], v;
	size_t k, w;
	if (c >= 0xC2 && c <= 0xDF)
		w = 2, v = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		w = 3, v = c & 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		w = 4, v = c & 0x07;
	else
		return 0;
	if (i + w > n)
		return 0;
	for (k = 1; k < w; k++) {
		if ((s[i + k] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (s[i + k] & 0x3F);
	}
	if ((w == 3 && v < 0x800) || (w == 4 && (v < 0x10000 || v > 0x10FFFF)))
		return 0;
	if (v < 0xA0 || (v >= 0xD800 && v < 0xE000) || v == 0xFEFF || v == 0x2028 || v == 0x2029 ||
	    v == 0xFFFE || v == 0xFFFF)
		return 0;
	return w;
}

/* 0 when every byte of s[0..n) is a line feed or one libyaml reads as a
 * plain printable character (tab included), -1 otherwise: the whole text
 * once, before any line is read (a text that fails goes to libyaml). A
 * UTF-8 sequence never holds a line feed, so this is the check of each
 * line's bytes in turn. */
static int text_ok(const unsigned char *s, size_t n)
{
	size_t a = 0;
	while (a < n) {
		unsigned c;
#ifdef __SSE2__
		/* sixteen bytes of 0x20..0x7E, tab or line feed at once */
		while (n - a >= 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + a));
			__m128i ctl = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)); /* controls, >= 0x80 */
			__m128i ok = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')),
						  _mm_cmpeq_epi8(v, _mm_set1_epi8('\t')));
			__m128i bad = _mm_or_si128(_mm_andnot_si128(ok, ctl), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7F)));
			if (_mm_movemask_epi8(bad))
				break;
			a += 16;
		}
#else
		/* eight bytes of 0x20..0x7E at once */
		const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
		while (n - a >= 8) {
			uint64_t w, x;
			memcpy(&w, s + a, 8);
			x = w ^ (0x7F * ones);
			if ((w & highs) || ((w - 0x20 * ones) & ~w & highs) || ((x - ones) & ~x & highs))
				break;
			a += 8;
		}
#endif
		if (a >= n)
			break;
		c = s[a];
		if ((c >= 0x20 && c < 0x7F) || c == '\t' || c == '\n') {
			a++;
			continue;
		}
		if (c < 0x80)
			return -1;
		size_t w = utf8_printable(s, a, n);
		if (!w)
			return -1;
		a += w;
	}
	return 0;
}

static inline size_t line_end(const fast *f, size_t pos)
{
	const char *nl = memchr(f->s + pos, '\n', f->len - pos);
	return nl ? (size_t)(nl - f->s) : f->len;
}

/* The end of the line that starts at pos (its '\n', or f->len), found in
 * the same pass as *first: the line's first byte that is not a space (its
 * end if none). Sixteen bytes at a time while the text has them. */
static inline size_t line_scan(const fast *f, size_t pos, size_t *first)
{
	const char *s = f->s;
	size_t n = f->len, i = pos, fst = SIZE_MAX;
#ifdef __SSE2__
	while (n - i >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		unsigned nl = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
		if (fst == SIZE_MAX) {
			unsigned other = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' '))) & 0xFFFFu;
			if (other) /* a '\n' is one too: fst <= the end */
				fst = i + (size_t)__builtin_ctz(other);
		}
		if (nl) {
			*first = fst;
			return i + (size_t)__builtin_ctz(nl);
		}
		i += 16;
	}
#endif
	for (; i < n && s[i] != '\n'; i++)
		if (fst == SIZE_MAX && s[i] != ' ')
			fst = i;
	*first = fst == SIZE_MAX ? i : fst;
	return i;
}

/* The first byte of s[i..e) that is ':', ' ' or a tab (where a plain
 * scalar on one line may end, or gets refused); e if none. Sixteen bytes
 * at a time while s[i..e) has them. */
static inline size_t plain_stop(const char *s, size_t i, size_t e)
{
#ifdef __SSE2__
	while (e - i >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(':')),
						      _mm_cmpeq_epi8(v, _mm_set1_epi8(' '))),
					 _mm_cmpeq_epi8(v, _mm_set1_epi8('\t')));
		unsigned bits = (unsigned)_mm_movemask_epi8(m);
		if (bits)
			return i + (size_t)__builtin_ctz(bits);
		i += 16;
	}
#endif
	while (i < e && s[i] != ':' && s[i] != ' ' && s[i] != '\t')
		i++;
	return i;
}

/* From the line starting at pos: skips blank and comment lines, stops at
 * the next content line (or eof). -1 to give up. */
static int seek_content(fast *f, size_t pos, size_t lno)
{
	for (;;) {
		size_t le, i;
		if (pos >= f->len) {
			f->eof = 1;
			f->ls = f->le = f->len;
			f->lno = lno;
			return 0;
		}
		le = line_scan(f, pos, &i);
		if (i == le || f->s[i] == '#') {
			pos = le + 1;
			lno++;
			continue;
		}
		if (f->s[i] == '\t')
			return -1;
		if (i == pos && f->started && le - pos >= 3 && !memcmp(f->s + pos, "---", 3)) {
			/* the next document's start (only blanks after it):
			 * the document ends here, as libyaml reads only the
			 * first */
			for (i = pos + 3; i < le && f->s[i] == ' '; i++)
				;
			if (i < le)
				return -1;
			f->eof = 1;
			f->ls = f->le = f->len;
			f->lno = lno;
			return 0;
		}
		if (i == pos && (f->s[i] == '%' || (le - pos >= 3 && (!memcmp(f->s + pos, "---", 3) ||
								       !memcmp(f->s + pos, "...", 3)))))
			return -1;
		f->started = 1;
		f->ls = pos;
		f->le = le;
		f->col = i - pos;
		f->lno = lno;
		return 0;
	}
}

/* to the content line after the current one */
static int advance(fast *f)
{
	return seek_content(f, f->le + 1, f->lno + 1);
}

/* kid_push when the stack is full: twice the room */
static __attribute__((noinline)) int kid_push_grow(fast *f, ynode *kid)
{
	if (VEC_RESERVE(f->stk, f->scap, f->sn + 1, 64) < 0)
		return -1;
	f->stk[f->sn++] = kid;
	return 0;
}

/* kid as the next kid of the innermost collection being read */
static inline int kid_push(fast *f, ynode *kid)
{
	if (f->sn == f->scap)
		return kid_push_grow(f, kid);
	f->stk[f->sn++] = kid;
	return 0;
}

/* c's kids: what kid_push put on the stack since base, moved to an array
 * of their number */
static int kids_close(fast *f, ynode *c, size_t base)
{
	size_t n = f->sn - base;
	if (n) {
		ynode **k = ykids_take(f->b, n);
		if (!k)
			return -1;
		memcpy(k, f->stk + base, n * sizeof *k);
		c->kids = k;
		c->n = c->cap = n;
	}
	f->sn = base;
	return 0;
}

static inline char *arena_take(fast *f, size_t n)
{
	char *p;
	if (f->acap - f->alen < n + 1)
		return NULL;
	p = f->arena + f->alen;
	f->alen += n + 1;
	p[n] = 0;
	return p;
}

/* a scalar node of n bytes of arena text (filled by the caller) */
static inline ynode *scalar_new(fast *f, size_t n, int implicit, char **text)
{
	ynode *sc;
	char *t = arena_take(f, n);
	if (!t || !(sc = ynode_new(f->b, N_SCALAR)))
		return NULL;
	sc->value = t;
	sc->len = n;
	sc->implicit = implicit;
	sc->line = f->lno;
	*text = t;
	return sc;
}

static ynode *scalar_copy(fast *f, size_t a, size_t e)
{
	char *t;
	ynode *sc = scalar_new(f, e - a, 1, &t);
	if (sc)
		memcpy(t, f->s + a, e - a);
	return sc;
}

static inline int is_blank_end(const fast *f, size_t i)
{
	return i >= f->le || f->s[i] == ' ';
}

/* A '-' that opens a block sequence entry. */
static int is_entry(const fast *f, size_t p)
{
	return f->s[p] == '-' && is_blank_end(f, p + 1);
}

/* Bytes that may not start a plain scalar here (libyaml's indicators, and
 * the blanks); '-' only before a blank. */
static inline int bad_plain_start(const fast *f, size_t p)
{
	switch (f->s[p]) {
	case '-':
		return is_blank_end(f, p + 1);
	case '?': case ':': case ',': case '[': case ']': case '{': case '}': case '#': case '&':
	case '*': case '!': case '|': case '>': case '\'': case '"': case '%': case '@': case '`':
	case '\t': case ' ':
		return 1;
	default:
		return 0;
	}
}

/* A quoted scalar from p (its opening quote) that closes on this line:
 * the node, *end just past the closing quote. NULL to give up. */
static ynode *quoted(fast *f, size_t p, size_t *end)
{
	const char *s = f->s;
	char q = s[p], *t;
	size_t i, n = 0, start = p + 1;
	ynode *sc;
	/* mostly the text runs to the closing quote without an escape: then
	 * it is copied as it is */
	for (i = start; i < f->le && s[i] != q && s[i] != '\\' && s[i] != '\t'; i++)
		;
	if (i < f->le && s[i] == q && (q == '"' || i + 1 >= f->le || s[i + 1] != '\'')) {
		if (!(sc = scalar_new(f, i - start, 0, &t)))
			return NULL;
		memcpy(t, s + start, i - start);
		*end = i + 1;
		return sc;
	}
	/* first the length of the text, then the text */
	for (i = start; i < f->le; i++) {
		char c = s[i];
		if (c == '\t')
			return NULL;
		if (c == q) {
			if (q == '\'' && i + 1 < f->le && s[i + 1] == '\'') {
				i++;
				n++;
				continue;
			}
			break;
		}
		if (q == '"' && c == '\\') {
			if (i + 1 >= f->le || !s[i + 1] || !strchr("\"\\ 0abtnvfre", s[i + 1]))
				return NULL;
			i++;
		}
		n++;
	}
	/* (libyaml folds line breaks other than \n (NEL, U+2028, U+2029)
	 * inside quotes and refuses control characters: text_ok left those to
	 * libyaml) */
	if (i >= f->le)
		return NULL;
	*end = i + 1;
	if (!(sc = scalar_new(f, n, 0, &t)))
		return NULL;
	for (i = start; n; i++, n--) {
		char c = s[i];
		if (c == '\'' && q == '\'') {
			i++;
		} else if (c == '\\' && q == '"') {
			static const char from[] = "\"\\ 0abtnvfre", to[] = "\"\\ \0\a\b\t\n\v\f\r\x1b";
			c = to[strchr(from, s[++i]) - from];
		}
		*t++ = c;
	}
	return sc;
}

/* After a value on this line: only blanks, then the end or a comment. */
static int rest_is_comment(const fast *f, size_t p)
{
	size_t i = p;
	while (i < f->le && f->s[i] == ' ')
		i++;
	return i == f->le || (i > p && f->s[i] == '#') ? 0 : -1;
}

static ynode *collection_new(fast *f, int kind);
static ynode *flow(fast *f, size_t p, size_t *end);

/* A node of a flow collection from p of this line: a quoted or plain
 * scalar, or (not as a key) a flow collection; *end past it. */
static ynode *flow_item(fast *f, size_t p, size_t *end, int key)
{
	const char *s = f->s;
	size_t i = p, e;
	if (s[p] == '"' || s[p] == '\'')
		return quoted(f, p, end);
	if (s[p] == '[' || s[p] == '{')
		return key ? NULL : flow(f, p, end);
	if (bad_plain_start(f, p))
		return NULL;
	/* the plain scalar ends at a flow indicator; at the others (a ':', a
	 * comment, a quote in it) the caller gives up but after a key */
	while (i < f->le && !strchr(",[]{}#:?'\"\t", s[i]))
		i++;
	for (e = i; e > p && s[e - 1] == ' ';)
		e--;
	*end = i;
	return scalar_copy(f, p, e);
}

/* A flow sequence or mapping on this line from p (its bracket): of
 * scalars and flow collections, a mapping's pairs "key: value" with a
 * scalar key; *end past its closing bracket. */
static ynode *flow(fast *f, size_t p, size_t *end)
{
	const char *s = f->s;
	int seq = s[p] == '[';
	char close = seq ? ']' : '}';
	ynode *c;
	size_t i = p + 1, base = f->sn;
	while (i < f->le && s[i] == ' ')
		i++;
	if (i < f->le && s[i] == close) { /* empty: [] or {} (no deeper level) */
		if ((c = ynode_new(f->b, seq ? N_SEQ : N_MAP)))
			c->line = f->lno;
		*end = i + 1;
		return c;
	}
	if (!(c = collection_new(f, seq ? N_SEQ : N_MAP)))
		return NULL;
	while (i >= f->le || s[i] != close) {
		size_t at = i;
		ynode *item;
		if (i >= f->le || !(item = flow_item(f, i, &i, !seq)) || kid_push(f, item))
			return NULL;
		if (!seq) {
			/* libyaml's simple keys end within 1024 bytes; a ':' right
			 * after a quoted key, and an empty value, are left to it */
			while (i < f->le && s[i] == ' ')
				i++;
			if (i - at > FAST_MAX_KEY || i + 1 >= f->le || s[i] != ':' || s[i + 1] != ' ')
				return NULL;
			for (i += 2; i < f->le && s[i] == ' ';)
				i++;
			if (i >= f->le || s[i] == ',' || s[i] == close || !(item = flow_item(f, i, &i, 0)) ||
			    kid_push(f, item))
				return NULL;
		}
		while (i < f->le && s[i] == ' ')
			i++;
		if (i < f->le && s[i] == close)
			break;
		if (i >= f->le || s[i] != ',')
			return NULL;
		for (i++; i < f->le && s[i] == ' ';)
			i++;
		if (i < f->le && (s[i] == close || s[i] == ','))
			return NULL; /* a trailing or empty entry: left to libyaml */
	}
	*end = i + 1;
	f->depth--;
	return kids_close(f, c, base) ? NULL : c;
}

static void put_nl(char **t, size_t n)
{
	memset(*t, '\n', n);
	*t += n;
}

/* A literal or folded block scalar whose header is at p of the current
 * line, in a block whose indentation is pind (libyaml's parser->indent):
 * libyaml's scan_block_scalar with its breaks, for lines without tabs. On
 * return the current line is the next content line. */
static ynode *block_scalar(fast *f, size_t p, size_t pind)
{
	const char *s = f->s;
	int literal = s[p] == '|', chomp = 0;
	size_t line = f->lno, pos, lno, indent = 0, max_indent = 0, col = 0;
	size_t leading = 0, trailing = 0, n = 0, a0;
	int leading_blank = 0, pass;
	char *t = NULL, *t0 = NULL;
	ynode *sc = NULL;
	p++;
	if (p < f->le && (s[p] == '-' || s[p] == '+'))
		chomp = s[p++] == '-' ? -1 : 1;
	if (rest_is_comment(f, p))
		return NULL; /* an indentation indicator, or text */
	/* twice: once to measure the text, once to write it */
	for (pass = 0; pass < 2; pass++) {
		pos = f->le + 1;
		lno = f->lno + 1;
		indent = 0;
		max_indent = 0;
		leading = trailing = 0;
		leading_blank = 0;
		a0 = n;
		n = 0;
		for (;;) {
			/* the breaks: empty lines before the next content line */
			for (;;) {
				size_t le, sp;
				if (pos >= f->len)
					break;
				le = line_end(f, pos);
				if (memchr(s + pos, '\t', le - pos))
					return NULL;
				for (sp = 0; pos + sp < le && s[pos + sp] == ' ' && (!indent || sp < indent); sp++)
					;
				if (sp > max_indent)
					max_indent = sp;
				col = sp;
				if (pos + sp < le)
					break;
				if (le >= f->len)
					return NULL; /* an empty last line without a newline */
				trailing++;
				pos = le + 1;
				lno++;
			}
			if (!indent) {
				indent = max_indent;
				if (indent < pind + 1)
					indent = pind + 1;
			}
			if (pos >= f->len || col != indent)
				break;
			{
				size_t cs = pos + indent, le = line_end(f, pos);
				int trailing_blank = s[cs] == ' ';
				if (!literal && leading && !leading_blank && !trailing_blank) {
					if (!trailing) {
						if (pass)
							*t++ = ' ';
						n++;
					}
				} else {
					if (pass)
						put_nl(&t, leading);
					n += leading;
				}
				leading = 0;
				if (pass)
					put_nl(&t, trailing);
				n += trailing;
				trailing = 0;
				leading_blank = s[cs] == ' ';
				if (pass) {
					memcpy(t, s + cs, le - cs);
					t += le - cs;
				}
				n += le - cs;
				leading = le < f->len; /* the line's break (none at the end) */
				pos = le + 1;
				lno++;
			}
		}
		if (chomp != -1) {
			if (pass)
				put_nl(&t, leading);
			n += leading;
		}
		if (chomp == 1) {
			if (pass)
				put_nl(&t, trailing);
			n += trailing;
		}
		if (!pass) {
			if (!(sc = scalar_new(f, n, 0, &t0)))
				return NULL;
			sc->line = line;
			t = t0;
		} else if (n != a0 || (size_t)(t - t0) != n) {
			return NULL;
		}
	}
	/* the line that ended the scalar (not yet read as content) */
	if (seek_content(f, pos, lno))
		return NULL;
	return sc;
}

/* Whether a mapping entry's key starts at p of the current line: 1 with
 * *after just past its ':' (followed by a blank or the end), 0 when the
 * line is no mapping entry, -1 to give up. */
static int key_probe(const fast *f, size_t p, size_t *after)
{
	const char *s = f->s;
	size_t i;
	if (s[p] == '"' || s[p] == '\'') {
		for (i = p + 1; i < f->le && s[i] != s[p]; i++)
			if (s[i] == '\\' && s[p] == '"')
				i++;
		if (s[p] == '\'' && i + 1 < f->le && s[i + 1] == '\'')
			return -1; /* an escaped quote in a single-quoted key */
		for (i++; i < f->le && s[i] == ' '; i++)
			;
		if (i >= f->le || s[i] != ':')
			return 0;
	} else {
		for (i = p; (i = plain_stop(s, i, f->le)) < f->le; i++) {
			if (s[i] == ':' && is_blank_end(f, i + 1))
				break;
			if (s[i] == ' ' && i + 1 < f->le && s[i + 1] == '#')
				return 0;
			if (s[i] == '\t')
				return -1;
		}
		if (i >= f->le)
			return 0;
		if (bad_plain_start(f, p) || s[p] == '-')
			return -1;
	}
	if (!is_blank_end(f, i + 1) || i - p > FAST_MAX_KEY)
		return -1;
	*after = i + 1;
	return 1;
}

/* The key node of an entry key_probe found. */
static ynode *key_node(fast *f, size_t p, size_t after)
{
	size_t e = after - 1, q;
	ynode *k;
	if (f->s[p] != '"' && f->s[p] != '\'') {
		while (e > p && f->s[e - 1] == ' ')
			e--;
		return scalar_copy(f, p, e);
	}
	k = quoted(f, p, &q);
	while (k && q < e && f->s[q] == ' ')
		q++;
	return k && q == e ? k : NULL;
}

/* The lines that continue a plain scalar whose first line ends with the
 * current line, in a block of indentation pind (libyaml's
 * scan_plain_scalar in block context): their text as libyaml joins it to
 * the first line's (one line break: a space; n empty lines: n newlines),
 * written to t unless t is NULL; its length, or -1 to give up (a line with
 * a tab, or where ": " or " #" would end the scalar). *next and *nlno: the
 * start and number of the line after the scalar's last. */
static long plain_more(const fast *f, size_t pind, char *t, size_t *next, size_t *nlno)
{
	const char *s = f->s;
	size_t pos = f->le + 1, lno = f->lno + 1, n = 0, breaks = 0;
	*next = pos;
	*nlno = lno;
	while (pos < f->len) {
		size_t le = line_end(f, pos), i, k, e;
		for (i = pos; i < le && s[i] == ' '; i++)
			;
		if (i < le && s[i] == '\t')
			return -1;
		if (i == le) { /* an empty line */
			breaks++;
			pos = le + 1;
			lno++;
			continue;
		}
		if (i - pos <= pind || s[i] == '#')
			break; /* less indented, or a comment: the scalar ended */
		for (k = i; k < le; k++)
			if (s[k] == '\t' || (s[k] == ':' && (k + 1 == le || s[k + 1] == ' ')) ||
			    (s[k] == ' ' && k + 1 < le && s[k + 1] == '#'))
				return -1;
		for (e = le; s[e - 1] == ' ';)
			e--;
		if (t) {
			if (breaks)
				memset(t + n, '\n', breaks);
			else
				t[n] = ' ';
			memcpy(t + n + (breaks ? breaks : 1), s + i, e - i);
		}
		n += (breaks ? breaks : 1) + (e - i);
		breaks = 0;
		pos = le + 1;
		lno++;
		*next = pos;
		*nlno = lno;
	}
	return (long)n;
}

/* A plain scalar from p of the current line to e (its first line's text,
 * the line read to its end), and the lines that continue it (plain_more);
 * on return the current line is the next content line (f->ls is not read
 * before). */
static ynode *plain_lines(fast *f, size_t p, size_t e, size_t pind)
{
	size_t next, nlno;
	long more = plain_more(f, pind, NULL, &next, &nlno);
	char *t;
	ynode *v;
	if (more < 0 || !(v = scalar_new(f, e - p + (size_t)more, 1, &t)))
		return NULL;
	memcpy(t, f->s + p, e - p);
	if (more)
		plain_more(f, pind, t + (e - p), &next, &nlno);
	return seek_content(f, next, nlno) ? NULL : v;
}

static ynode *block_node(fast *f, size_t pind);
static ynode *mapping(fast *f, size_t col, size_t p);
static ynode *sequence(fast *f, size_t col, int indentless);

/* A value that starts at p of the current line, in a block of indentation
 * pind; leaves the current line at the next content line, which may not be
 * indented deeper than pind (that would continue the scalar or be an
 * error, both libyaml's). */
static ynode *inline_value(fast *f, size_t p, size_t pind)
{
	const char *s = f->s;
	ynode *v;
	size_t end;
	char c = s[p];
	if (c == '|' || c == '>') {
		v = block_scalar(f, p, pind);
	} else {
		if (c == '"' || c == '\'')
			v = quoted(f, p, &end);
		else if (c == '[' || c == '{')
			v = flow(f, p, &end);
		else {
			size_t i;
			if (bad_plain_start(f, p))
				return NULL;
			for (i = p; (i = plain_stop(s, i, f->le)) < f->le; i++) {
				if (s[i] == ':' && is_blank_end(f, i + 1))
					return NULL;
				if (s[i] == ' ' && i + 1 < f->le && s[i + 1] == '#')
					break;
				if (s[i] == '\t')
					return NULL;
			}
			if (i == f->le) { /* more lines may continue it */
				size_t le0 = f->le, lno0 = f->lno;
				while (i > p && s[i - 1] == ' ')
					i--;
				if (advance(f))
					return NULL;
				if (!f->eof && f->col > pind) {
					/* they do (or it is libyaml's error):
					 * read from the first line again */
					f->le = le0;
					f->lno = lno0;
					v = plain_lines(f, p, i, pind);
				} else if ((v = scalar_copy(f, p, i))) {
					v->line = lno0;
				}
				goto next;
			}
			while (i > p && s[i - 1] == ' ')
				i--;
			v = scalar_copy(f, p, i);
			end = i;
		}
		if (!v || rest_is_comment(f, end) || advance(f))
			return NULL;
	}
next:
	if (v && !f->eof && f->col > pind)
		return NULL;
	return v;
}

/* The value of an entry whose indicator (':' or '-') left nothing but a
 * comment on its line, in a block at column col: a node on the lines
 * below, or an empty scalar of the indicator's line. indentless: a '-' at
 * col also starts a value (a mapping's sequence). */
static ynode *value_below(fast *f, size_t col, int indentless)
{
	char *t;
	size_t line = f->lno;
	ynode *v;
	if (advance(f))
		return NULL;
	if (!f->eof && f->col > col)
		return block_node(f, col);
	if (indentless && !f->eof && f->col == col && is_entry(f, f->ls + col))
		return sequence(f, col, 1);
	v = scalar_new(f, 0, 1, &t);
	if (v)
		v->line = line;
	return v;
}

/* A mapping or sequence node starting on the current line, one level
 * deeper; NULL past the depth this reader goes to. */
static ynode *collection_new(fast *f, int kind)
{
	ynode *c;
	if (++f->depth > FAST_MAX_DEPTH || f->depth >= f->b->max_depth || !(c = ynode_new(f->b, kind)))
		return NULL;
	c->line = f->lno;
	return c;
}

/* A block mapping at column col whose first key is at p of the current
 * line. */
static ynode *mapping(fast *f, size_t col, size_t p)
{
	ynode *m = collection_new(f, N_MAP);
	size_t base = f->sn;
	if (!m)
		return NULL;
	for (;;) {
		size_t after, i;
		ynode *k, *v;
		if (key_probe(f, p, &after) != 1 || !(k = key_node(f, p, after)) || kid_push(f, k))
			return NULL;
		for (i = after; i < f->le && f->s[i] == ' '; i++)
			;
		if (i == f->le || f->s[i] == '#')
			v = value_below(f, col, 1);
		else
			v = inline_value(f, i, col);
		if (!v || kid_push(f, v))
			return NULL;
		if (f->eof || f->col < col)
			break;
		if (f->col > col || is_entry(f, f->ls + col))
			return NULL;
		p = f->ls + col;
	}
	f->depth--;
	return kids_close(f, m, base) ? NULL : m;
}

/* A block sequence at column col, its first '-' on the current line;
 * indentless ones (a mapping's value at the mapping's column) end at a
 * line of that column without '-'. */
static ynode *sequence(fast *f, size_t col, int indentless)
{
	ynode *sq = collection_new(f, N_SEQ);
	size_t base = f->sn;
	if (!sq)
		return NULL;
	for (;;) {
		size_t p = f->ls + col + 1;
		ynode *v;
		while (p < f->le && f->s[p] == ' ')
			p++;
		if (p == f->le || f->s[p] == '#') {
			v = value_below(f, col, 0);
		} else if (is_entry(f, p)) {
			return NULL;
		} else {
			size_t after;
			int r = key_probe(f, p, &after);
			/* a mapping on the entry's line, at its column */
			v = r > 0 ? mapping(f, p - f->ls, p) : r == 0 ? inline_value(f, p, col) : NULL;
		}
		if (!v || kid_push(f, v))
			return NULL;
		if (f->eof || f->col < col)
			break;
		if (f->col > col)
			return NULL;
		if (!is_entry(f, f->ls + col)) {
			if (!indentless)
				return NULL; /* libyaml: did not find expected '-' */
			break;
		}
	}
	f->depth--;
	return kids_close(f, sq, base) ? NULL : sq;
}

/* A node starting on the current line, in a block of indentation pind:
 * a mapping or a sequence, or a scalar or a flow collection; at the top
 * (pind NO_PIND) a flow collection only of those (what follows it is left
 * to yaml_fast_build: nothing may). */
#define NO_PIND ((size_t)-1)
static ynode *block_node(fast *f, size_t pind)
{
	size_t p = f->ls + f->col, after;
	int r;
	if (is_entry(f, p))
		return sequence(f, f->col, 0);
	r = key_probe(f, p, &after);
	if (r == 1)
		return mapping(f, f->col, p);
	if (r == 0 && pind == NO_PIND && (f->s[p] == '[' || f->s[p] == '{'))
		return inline_value(f, p, 0);
	return r == 0 && pind != NO_PIND ? inline_value(f, p, pind) : NULL;
}

int yaml_fast_build(builder *b, const char *text, size_t len, ynode **root)
{
	fast f;
	ynode *r;
	*root = NULL;
	if (yaml_fast_off)
		return 1;
	memset(&f, 0, sizeof f);
	f.b = b;
	f.s = text;
	f.len = len;
	if (text_ok((const unsigned char *)text, len) || seek_content(&f, 0, 0))
		return 1;
	if (f.eof)
		return 0;
	f.acap = len + 64;
	f.arena = malloc(f.acap);
	if (!f.arena)
		return 1;
	b->arena = f.arena;
	r = block_node(&f, NO_PIND);
	free(f.stk);
	if (!r || !f.eof) {
		ybuilder_reset(b);
		return 1;
	}
	*root = r;
	return 0;
}
