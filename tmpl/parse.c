/* tmpl/parse.c — lexer and parser of Go's text/template language, a port
 * of text/template/parse (lex.go, parse.go) with the same tokens, trim
 * markers, error messages and line accounting. Parse trees live in the
 * engine's parse arena. Errors unwind with longjmp to tmpl_parse(). */
#include <limits.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "lib/gostrconv.h"
#include "lib/vec.h"
#include "tmpl/gofmt.h"
#include "tmpl/internal.h"
#include "tmpl/sprig_unicode.h"
#include "tmpl/strconv.h"

static size_t rune_count_str(const char *s, size_t n);

enum item_type {
	I_ERROR, I_BOOL, I_CHAR, I_CHAR_CONSTANT, I_COMMENT, I_COMPLEX, I_ASSIGN,
	I_DECLARE, I_EOF, I_FIELD, I_IDENTIFIER, I_LEFT_DELIM, I_LEFT_PAREN,
	I_NUMBER, I_PIPE, I_RAW_STRING, I_RIGHT_DELIM, I_RIGHT_PAREN,
	I_STRING, I_TEXT, I_VARIABLE,
	I_KEYWORD, /* keywords after this */
	I_BLOCK, I_BREAK, I_CONTINUE, I_DOT, I_DEFINE, I_ELSE, I_END, I_IF,
	I_NIL, I_RANGE, I_TEMPLATE, I_WITH,
};

/* Go's lexer emits a space token between the tokens of an action that
 * white space separates; this one folds it into the token after it: sp is
 * 1 + the offset where that space started (0: no space before).
 * Lines are not counted while lexing: a token's line is 1 + the newlines
 * before its pos (Go's lexer counts the same newlines as it goes), found
 * by item_line() when an error needs it. Only an error item, and the EOF
 * items after it (Go's lexer restarts at offset 0 then), carry theirs. */
typedef struct item {
	enum item_type typ;
	int pos;
	unsigned len;    /* a token is shorter than its source (tmpl_parse: < 2^31) */
	int sp;
	const char *val; /* I_ERROR: the message, an arena string */
	int line;        /* 0: the line of pos */
	/* I_FIELD, I_VARIABLE: the dots in val; I_STRING: 1 when val has a
	 * backslash or a non-ASCII byte (Go's unquote is needed), else 0 */
	int aux;
	/* I_FIELD, I_VARIABLE: the length of the first name (with its '.' or
	 * '$'): the token Go's lexer would have stopped at */
	unsigned seg;
} item;

typedef struct lexer {
	const char *input;
	size_t len;
	size_t pos, start;
	int at_eof;
	int paren_depth;
	item *it;         /* where the token being lexed goes */
	int sp;           /* white space skipped before the next token (item.sp) */
	int inside_action;
	int at_delim;     /* the text token just lexed ends at a left delimiter, at pos */
	int err_line;     /* after an error: the line of the EOF items */
	tmpl_arena *a;
} lexer;

#define LEFT_DELIM "{{"
#define RIGHT_DELIM "}}"

typedef int (*state_fn)(lexer *l); /* returns next state id, 0 = emitted */

/* ---- unicode classes: Go's unicode.IsLetter and IsDigit (sprig_unicode.h's
 * tables, Unicode 15.0.0 as Go 1.25) ---- */

static inline int is_alnum(int r)
{
	if (r < 0x80)
		return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') ||
		       r == '_';
	return r >= 0 && (uni_is_letter((uint32_t)r) || uni_is_digit((uint32_t)r));
}

static int is_space(int r)
{
	return r == ' ' || r == '\t' || r == '\r' || r == '\n';
}

static int dec_rune_multi(const unsigned char *u, size_t n, int *size);

static inline int dec_rune(const char *s, size_t n, int *size)
{
	const unsigned char *u = (const unsigned char *)s;
	if (u[0] < 0x80) {
		*size = 1;
		return (int)u[0];
	}
	return dec_rune_multi(u, n, size);
}

/* dec_rune for a first byte >= 0x80 */
static int dec_rune_multi(const unsigned char *u, size_t n, int *size)
{
	unsigned c = u[0];
	if (c >= 0xC2 && c <= 0xDF && n >= 2 && (u[1] & 0xC0) == 0x80) {
		*size = 2;
		return (int)(((c & 0x1F) << 6) | (u[1] & 0x3F));
	}
	if (c >= 0xE0 && c <= 0xEF && n >= 3 && (u[1] & 0xC0) == 0x80 && (u[2] & 0xC0) == 0x80) {
		int r = (int)(((c & 0x0F) << 12) | ((u[1] & 0x3F) << 6) | (u[2] & 0x3F));
		if (r >= 0x800 && (r < 0xD800 || r > 0xDFFF)) {
			*size = 3;
			return r;
		}
	}
	if (c >= 0xF0 && c <= 0xF4 && n >= 4 && (u[1] & 0xC0) == 0x80 &&
	    (u[2] & 0xC0) == 0x80 && (u[3] & 0xC0) == 0x80) {
		int r = (int)(((c & 0x07) << 18) | ((u[1] & 0x3F) << 12) | ((u[2] & 0x3F) << 6) |
			      (u[3] & 0x3F));
		if (r >= 0x10000 && r <= 0x10FFFF) {
			*size = 4;
			return r;
		}
	}
	*size = 1;
	return 0xFFFD;
}

/* ---- lexer primitives ---- */

#define LEOF (-1)

static inline int lnext(lexer *l)
{
	int sz, r;
	if (l->pos >= l->len) {
		l->at_eof = 1;
		return LEOF;
	}
	r = (unsigned char)l->input[l->pos];
	if (r < 0x80) {
		l->pos++;
		return r;
	}
	r = dec_rune_multi((const unsigned char *)l->input + l->pos, l->len - l->pos, &sz);
	l->pos += (size_t)sz;
	return r;
}

static inline void lbackup(lexer *l)
{
	if (l->at_eof || l->pos == 0)
		return;
	if ((unsigned char)l->input[l->pos - 1] < 0x80) {
		/* an ASCII byte is a whole rune */
		l->pos--;
	} else {
		/* step back one rune */
		size_t p = l->pos - 1;
		while (p > 0 && ((unsigned char)l->input[p] & 0xC0) == 0x80 && l->pos - p < 4)
			p--;
		int sz;
		dec_rune(l->input + p, l->len - p, &sz);
		if (p + (size_t)sz != l->pos)
			p = l->pos - 1;
		l->pos = p;
	}
}

static inline int lpeek(lexer *l)
{
	int r = lnext(l);
	lbackup(l);
	return r;
}

static int count_nl(const char *s, size_t n)
{
	int c = 0;
	const char *e = s + n;
	while (s < e && (s = memchr(s, '\n', (size_t)(e - s))) != NULL) {
		c++;
		s++;
	}
	return c;
}

/* the line of offset pos of s */
static int line_at(const char *s, size_t pos)
{
	return 1 + count_nl(s, pos);
}

/* Fills in token i, of type t, from start to end, with sp as its item.sp;
 * the lexer goes on at end. */
static inline __attribute__((always_inline)) void fast_emit(lexer *l, item *i, enum item_type t,
							  size_t start, size_t end, int sp)
{
	i->typ = t;
	i->pos = (int)start;
	i->val = l->input + start;
	i->len = (unsigned)(end - start);
	i->sp = sp;
	i->line = 0;
	l->sp = 0;
	l->pos = l->start = end;
}

/* Emits the token from start to pos. */
static inline __attribute__((always_inline)) int emit(lexer *l, enum item_type t)
{
	fast_emit(l, l->it, t, l->start, l->pos, l->sp);
	return 0;
}

static int accept(lexer *l, const char *valid)
{
	int r = lnext(l);
	if (r != LEOF && r < 0x80 && r != 0 && strchr(valid, r))
		return 1;
	lbackup(l);
	return 0;
}

static void accept_run(lexer *l, const char *valid)
{
	int r;
	do {
		r = lnext(l);
	} while (r != LEOF && r < 0x80 && r != 0 && strchr(valid, r));
	lbackup(l);
}

static int lerrorf(lexer *l, const char *fmt, ...) __attribute__((format(printf, 2, 3), noinline, cold));
static int lerrorf(lexer *l, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	memset(l->it, 0, sizeof(*l->it));
	l->it->typ = I_ERROR;
	l->it->pos = (int)l->start;
	l->it->line = line_at(l->input, l->start);
	l->err_line = l->it->line;
	l->sp = 0;
	l->it->val = tmpl_arena_strdup(l->a, buf, strlen(buf));
	if (!l->it->val)
		l->it->val = "";
	l->it->len = (unsigned)strlen(l->it->val);
	l->start = 0;
	l->pos = 0;
	l->len = 0;
	return 0;
}

/* Go's %#U: U+0041 'A' when r is printable (strconv.IsPrint), else U+0001 */
static void fmt_U(char *buf, size_t n, int r)
{
	bh_buf t = BH_BUF_INIT;
	if (go_is_print(r))
		go_append_rune(&t, r);
	if (bh_buf_ok(&t) && t.len)
		snprintf(buf, n, "U+%04X '%s'", r, bh_buf_str(&t));
	else
		snprintf(buf, n, "U+%04X", r);
	bh_buf_free(&t);
}

/* ---- lexer states ---- */

enum { S_NONE = 0, S_TEXT, S_LEFT_DELIM, S_COMMENT, S_RIGHT_DELIM, S_INSIDE };

static int has_left_trim(const char *s, size_t n)
{
	return n >= 2 && s[0] == '-' && is_space((unsigned char)s[1]);
}

static int has_right_trim(const char *s, size_t n)
{
	return n >= 2 && is_space((unsigned char)s[0]) && s[1] == '-';
}

static int starts_with(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);
	return n >= k && memcmp(s, p, k) == 0;
}

static const unsigned char space_byte[256] = {[' '] = 1, ['\t'] = 1, ['\r'] = 1, ['\n'] = 1};

static size_t right_trim_len(const char *s, size_t n)
{
	size_t k = n;
	/* indentation: 8 spaces a step */
	uint64_t w;
	while (k >= 8 && (memcpy(&w, s + k - 8, 8), w == 0x2020202020202020ull))
		k -= 8;
	while (k > 0 && space_byte[(unsigned char)s[k - 1]])
		k--;
	return n - k;
}

static size_t left_trim_len(const char *s, size_t n)
{
	size_t k = 0;
	while (k < n && is_space((unsigned char)s[k]))
		k++;
	return k;
}

static inline __attribute__((always_inline)) void at_right_delim(lexer *l, int *delim, int *trim)
{
	const char *s = l->input + l->pos;
	size_t n = l->len - l->pos;
	*delim = *trim = 0;
	if (has_right_trim(s, n) && starts_with(s + 2, n - 2, RIGHT_DELIM)) {
		*delim = *trim = 1;
		return;
	}
	if (starts_with(s, n, RIGHT_DELIM))
		*delim = 1;
}

/* 1: the ASCII bytes that end an identifier, field or variable by
 * themselves; 2: '}' (only as the start of "}}") */
static const unsigned char ascii_term[128] = {
	[' '] = 1, ['\t'] = 1, ['\r'] = 1, ['\n'] = 1, ['.'] = 1, [','] = 1, ['|'] = 1,
	[':'] = 1, [')'] = 1, ['('] = 1, ['}'] = 2,
};

static int at_terminator_rune(lexer *l);

static inline __attribute__((always_inline)) int at_terminator(lexer *l)
{
	if (l->pos >= l->len) {
		l->at_eof = 1; /* as lpeek's read of the end */
		return 1;
	}
	unsigned char c = (unsigned char)l->input[l->pos];
	if (c < 0x80) {
		unsigned t = ascii_term[c];
		if (t == 2)
			return l->pos + 1 < l->len && l->input[l->pos + 1] == '}';
		return (int)t;
	}
	return at_terminator_rune(l);
}

/* at_terminator for a first byte >= 0x80 */
static int at_terminator_rune(lexer *l)
{
	int r = lpeek(l);
	if (is_space(r))
		return 1;
	switch (r) {
	case LEOF: case '.': case ',': case '|': case ':': case ')': case '(':
		return 1;
	}
	return starts_with(l->input + l->pos, l->len - l->pos, RIGHT_DELIM);
}

static int lex_text(lexer *l)
{
	const char *s = l->input + l->pos;
	const char *x = NULL;
	size_t n = l->len - l->pos;
	for (const char *c = s, *e = s + n; c + 1 < e && (c = memchr(c, '{', (size_t)(e - c - 1)));
	     c++)
		if (c[1] == '{') {
			x = c;
			break;
		}
	if (x) {
		size_t off = (size_t)(x - s);
		if (off > 0) {
			l->pos += off;
			size_t trim = 0;
			size_t delim_end = l->pos + 2;
			if (has_left_trim(l->input + delim_end, l->len - delim_end))
				trim = right_trim_len(l->input + l->start, l->pos - l->start);
			size_t tlen = l->pos - trim - l->start;
			if (tlen > 0) {
				item *i = l->it;
				i->typ = I_TEXT;
				i->pos = (int)l->start;
				i->val = l->input + l->start;
				i->len = (unsigned)tlen;
				i->sp = 0;
				i->line = 0;
				l->sp = 0;
				l->start = l->pos;
				l->at_delim = 1;
				return S_NONE;
			}
			l->start = l->pos;
		}
		return S_LEFT_DELIM;
	}
	l->pos = l->len;
	if (l->pos > l->start)
		return emit(l, I_TEXT);
	emit(l, I_EOF);
	l->it->line = l->err_line;
	return S_NONE;
}

static int lex_left_delim(lexer *l)
{
	l->pos += 2;
	int trim = has_left_trim(l->input + l->pos, l->len - l->pos);
	size_t after = trim ? 2 : 0;
	if (starts_with(l->input + l->pos + after, l->len - l->pos - after, "/*")) {
		l->pos += after;
		l->start = l->pos;
		return S_COMMENT;
	}
	emit(l, I_LEFT_DELIM);
	l->inside_action = 1;
	l->pos += after;
	l->start = l->pos;
	l->paren_depth = 0;
	return S_NONE;
}

static int lex_comment(lexer *l)
{
	l->pos += 2;
	const char *s = l->input + l->pos, *e = l->input + l->len, *c = s;
	while ((c = memchr(c, '*', (size_t)(e - c))) != NULL && (c + 1 == e || c[1] != '/'))
		c++;
	if (!c || c + 1 == e)
		return lerrorf(l, "unclosed comment");
	l->pos += (size_t)(c - s) + 2;
	int delim, trim;
	at_right_delim(l, &delim, &trim);
	if (!delim)
		return lerrorf(l, "comment ends before closing delimiter");
	/* the comment item: not kept */
	l->sp = 0;
	if (trim)
		l->pos += 2;
	l->pos += 2;
	if (trim)
		l->pos += left_trim_len(l->input + l->pos, l->len - l->pos);
	l->start = l->pos;
	return S_TEXT;
}

static inline __attribute__((always_inline)) void lex_right_delim(lexer *l)
{
	int delim, trim;
	at_right_delim(l, &delim, &trim);
	if (trim) {
		l->pos += 2;
		l->start = l->pos;
	}
	l->pos += 2;
	emit(l, I_RIGHT_DELIM);
	if (trim) {
		l->pos += left_trim_len(l->input + l->pos, l->len - l->pos);
		l->start = l->pos;
	}
	l->inside_action = 0;
}

/* Go's lexSpace, but the space is not a token: it is skipped, its offset
 * kept for the token after it (sp), and lexing goes on inside. Returns
 * S_RIGHT_DELIM when on a trimmed right delimiter, else S_INSIDE. */
static int lex_space(lexer *l)
{
	int num = 0;
	size_t at = l->pos;
	/* spaces are ASCII: a byte loop reads the runes lnext would */
	for (;;) {
		if (l->pos >= l->len) {
			l->at_eof = 1; /* as lpeek's read of the end */
			break;
		}
		char c = l->input[l->pos];
		if (!is_space((unsigned char)c))
			break;
		l->pos++;
		num++;
	}
	const char *s = l->input + l->pos - 1;
	size_t n = l->len - l->pos + 1;
	/* s[0] is a space: has_right_trim is s[1] == '-' */
	if (n >= 2 && s[1] == '-' && starts_with(s + 2, n - 2, RIGHT_DELIM)) {
		lbackup(l);
		if (num == 1)
			return S_RIGHT_DELIM;
	}
	l->sp = (int)at + 1;
	l->start = l->pos;
	return S_INSIDE;
}

/* Go's key map (keywords) plus true and false, found by length and first
 * letter; I_IDENTIFIER for any other word */
static inline __attribute__((always_inline)) enum item_type word_type(const char *w, size_t n)
{
#define WORD(s, t) if (w[0] == s[0] && memcmp(w + 1, s + 1, sizeof s - 2) == 0) return t
	switch (n) {
	case 1:
		if (w[0] == '.')
			return I_DOT;
		break;
	case 2:
		WORD("if", I_IF);
		break;
	case 3:
		WORD("end", I_END);
		WORD("nil", I_NIL);
		break;
	case 4:
		WORD("else", I_ELSE);
		WORD("with", I_WITH);
		WORD("true", I_BOOL);
		break;
	case 5:
		WORD("block", I_BLOCK);
		WORD("break", I_BREAK);
		WORD("range", I_RANGE);
		WORD("false", I_BOOL);
		break;
	case 6:
		WORD("define", I_DEFINE);
		break;
	case 8:
		WORD("continue", I_CONTINUE);
		WORD("template", I_TEMPLATE);
		break;
	}
#undef WORD
	return I_IDENTIFIER;
}

/* 1 for the ASCII bytes is_alnum accepts: letters, digits, '_' */
static const unsigned char ascii_word[256] = {
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
	['7'] = 1, ['8'] = 1, ['9'] = 1, ['_'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1,
	['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1,
	['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1,
	['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1,
	['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
	['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1,
	['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
};

/* The first offset from p on (up to len) of a byte that ascii_word does
 * not accept: 16 bytes a step where they are there to read. */
static inline size_t word_end(const unsigned char *s, size_t p, size_t len)
{
#ifdef __SSE2__
	while (p + 16 <= len) {
		__m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + p));
		/* a range [lo, lo+n) test as one signed compare: x - lo + 0x80
		 * is below -128 + n exactly for x in it (bytes >= 0x80 too);
		 * letters are tested folded to lower case (x | 0x20) */
		__m128i lc = _mm_or_si128(c, _mm_set1_epi8(0x20));
		__m128i al = _mm_cmplt_epi8(_mm_add_epi8(lc, _mm_set1_epi8((char)(0x80 - 'a'))),
					    _mm_set1_epi8((char)(-128 + 26)));
		__m128i dg = _mm_cmplt_epi8(_mm_add_epi8(c, _mm_set1_epi8((char)(0x80 - '0'))),
					    _mm_set1_epi8((char)(-128 + 10)));
		__m128i us = _mm_cmpeq_epi8(c, _mm_set1_epi8('_'));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(al, _mm_or_si128(dg, us)));
		if (m != 0xFFFF)
			return p + (size_t)__builtin_ctz(~m);
		p += 16;
	}
#endif
	while (p < len && ascii_word[s[p]])
		p++;
	return p;
}

/* Skips alphanumeric runes; returns the rune after them (LEOF at the end),
 * left unread, as a loop of lnext and a final lbackup would. */
static inline __attribute__((always_inline)) int scan_alnum(lexer *l)
{
	const unsigned char *s = (const unsigned char *)l->input;
	for (;;) {
		size_t p = word_end(s, l->pos, l->len);
		l->pos = p;
		if (p >= l->len) {
			l->at_eof = 1; /* lnext's read of the end; lbackup keeps pos */
			return LEOF;
		}
		if (s[p] < 0x80)
			return s[p]; /* not alphanumeric: left unread */
		int r = lnext(l);
		if (is_alnum(r))
			continue;
		lbackup(l);
		return r;
	}
}

static inline __attribute__((always_inline)) int lex_identifier(lexer *l)
{
	int r = scan_alnum(l);
	const char *w = l->input + l->start;
	size_t wn = l->pos - l->start;
	if (!at_terminator(l)) {
		char u[64];
		fmt_U(u, sizeof u, r == LEOF ? 0xFFFD : r);
		return lerrorf(l, "bad character %s", u);
	}
	enum item_type t = word_type(w, wn);
	if (t == I_IDENTIFIER && w[0] == '.')
		t = I_FIELD;
	return emit(l, t);
}

static int lex_field_or_var(lexer *l, enum item_type t);
static int lex_char(lexer *l);
static int lex_number(lexer *l);
static int lex_quote(lexer *l);
static int lex_raw_quote(lexer *l);

/* Lexes one token inside an action (white space before it folded in). */
static inline __attribute__((always_inline)) void lex_inside(lexer *l)
{
	/* white space, then a right delimiter ('}}' or, trimmed, ' -}}') or
	 * the token */
	int delim = 0;
	while (l->pos < l->len) {
		const char *s = l->input + l->pos;
		size_t n = l->len - l->pos;
		if (space_byte[(unsigned char)s[0]]) {
			/* one space before a token (the common case): what
			 * lex_space does with it */
			if (n >= 2 && !space_byte[(unsigned char)s[1]] && s[1] != '-') {
				l->sp = (int)l->pos + 1;
				l->start = ++l->pos;
				/* s[1], not a space, is what the loop would look at next */
				delim = s[1] == '}' && n >= 3 && s[2] == '}';
				break;
			}
			if (n >= 4 && s[1] == '-' && s[2] == '}' && s[3] == '}') {
				delim = 1;
				break;
			}
			if (lex_space(l) == S_RIGHT_DELIM) {
				lex_right_delim(l);
				return;
			}
			continue;
		}
		delim = s[0] == '}' && n >= 2 && s[1] == '}';
		break;
	}
	if (delim) {
		if (l->paren_depth == 0)
			lex_right_delim(l);
		else
			lerrorf(l, "unclosed left paren");
		return;
	}
	/* an identifier or keyword (a letter or '_') or a number (a digit or
	 * sign) starts here: lexed without lnext's read and lbackup's step
	 * back */
	if (l->pos < l->len) {
		unsigned char c = (unsigned char)l->input[l->pos];
		if (ascii_word[c]) {
			if (c >= '0' && c <= '9')
				lex_number(l);
			else
				lex_identifier(l);
			return;
		}
		if (c == '+' || c == '-') {
			lex_number(l);
			return;
		}
	}
	int r = lnext(l);
	if (r == LEOF) {
		lerrorf(l, "unclosed action");
		return;
	}
	switch (r) {
	case '=':
		emit(l, I_ASSIGN);
		return;
	case ':':
		if (lnext(l) != '=')
			lerrorf(l, "expected :=");
		else
			emit(l, I_DECLARE);
		return;
	case '|':
		emit(l, I_PIPE);
		return;
	case '"':
		lex_quote(l);
		return;
	case '`':
		lex_raw_quote(l);
		return;
	case '$':
		lex_field_or_var(l, I_VARIABLE);
		return;
	case '\'':
		lex_char(l);
		return;
	case '.':
		if (l->pos < l->len) {
			char c = l->input[l->pos];
			if (c < '0' || c > '9') {
				lex_field_or_var(l, I_FIELD);
				return;
			}
		}
		lbackup(l);
		lex_number(l);
		return;
	case '(':
		l->paren_depth++;
		emit(l, I_LEFT_PAREN);
		return;
	case ')':
		l->paren_depth--;
		if (l->paren_depth < 0)
			lerrorf(l, "unexpected right paren");
		else
			emit(l, I_RIGHT_PAREN);
		return;
	}
	if (r == '+' || r == '-' || (r >= '0' && r <= '9')) {
		lbackup(l);
		lex_number(l);
		return;
	}
	if (is_alnum(r)) {
		lbackup(l);
		lex_identifier(l);
		return;
	}
	if (r < 0x80 && r >= 0x20 && r != 0x7F) {
		emit(l, I_CHAR);
		return;
	}
	char u[64];
	fmt_U(u, sizeof u, r);
	lerrorf(l, "unrecognized character in action: %s", u);
}

/* The end of the word of identifier or name characters at p (< len) when
 * an ASCII terminator follows it (ascii_term: a space, '.', ',', '|', ':',
 * parentheses, or "}}"), else 0 (a non-ASCII rune or another byte after
 * it, or the end: the general lexer decides then). */
static inline __attribute__((always_inline)) size_t name_end(const unsigned char *s, size_t p,
								 size_t len)
{
	size_t q = word_end(s, p, len);
	if (q >= len || s[q] >= 0x80)
		return 0;
	unsigned t = ascii_term[s[q]];
	if (t == 0 || (t == 2 && !(q + 1 < len && s[q + 1] == '}')))
		return 0;
	return q;
}

/* Go lexes $x.a.b or .a.b as one variable or field and then one field
 * per ".name", which its parser joins again (operand's chain). Here the
 * token takes in every ".name" after it that would lex as a field, ASCII
 * only, and the parser splits it at its dots (seg_pos, unexpected and
 * operand keep Go's positions and messages). */
static inline __attribute__((always_inline)) int lex_more_fields(lexer *l)
{
	const unsigned char *s = (const unsigned char *)l->input;
	size_t p = l->pos;
	int k = 0;
	/* ".5" would be a number */
	while (p + 1 < l->len && s[p] == '.' && ascii_word[s[p + 1]] && !(s[p + 1] >= '0' && s[p + 1] <= '9')) {
		size_t q = name_end(s, p + 1, l->len);
		if (!q)
			break;
		p = q;
		k++;
	}
	l->pos = p;
	return k;
}

static inline __attribute__((always_inline)) int lex_field_or_var(lexer *l, enum item_type t)
{
	int r;
	if (at_terminator(l)) {
		if (t == I_VARIABLE) {
			unsigned seg = (unsigned)(l->pos - l->start);
			int k = lex_more_fields(l);
			emit(l, I_VARIABLE);
			l->it->aux = k;
			l->it->seg = seg;
			return 0;
		}
		return emit(l, I_DOT);
	}
	r = scan_alnum(l);
	if (!at_terminator(l)) {
		char u[64];
		fmt_U(u, sizeof u, r == LEOF ? 0xFFFD : r);
		return lerrorf(l, "bad character %s", u);
	}
	unsigned seg = (unsigned)(l->pos - l->start);
	int k = lex_more_fields(l) + (t == I_FIELD);
	emit(l, t);
	l->it->aux = k;
	l->it->seg = seg;
	return 0;
}

static int lex_char(lexer *l)
{
	for (;;) {
		int r = lnext(l);
		if (r == '\\') {
			r = lnext(l);
			if (r != LEOF && r != '\n')
				continue;
			return lerrorf(l, "unterminated character constant");
		}
		if (r == LEOF || r == '\n')
			return lerrorf(l, "unterminated character constant");
		if (r == '\'')
			break;
	}
	return emit(l, I_CHAR_CONSTANT);
}

static int scan_number(lexer *l)
{
	const char *digits = "0123456789_";
	accept(l, "+-");
	if (accept(l, "0")) {
		if (accept(l, "xX"))
			digits = "0123456789abcdefABCDEF_";
		else if (accept(l, "oO"))
			digits = "01234567_";
		else if (accept(l, "bB"))
			digits = "01_";
	}
	accept_run(l, digits);
	if (accept(l, "."))
		accept_run(l, digits);
	if (strlen(digits) == 11 && accept(l, "eE")) {
		accept(l, "+-");
		accept_run(l, "0123456789_");
	}
	if (strlen(digits) == 23 && accept(l, "pP")) {
		accept(l, "+-");
		accept_run(l, "0123456789_");
	}
	accept(l, "i");
	if (is_alnum(lpeek(l))) {
		lnext(l);
		return 0;
	}
	return 1;
}

static void quote_for_err(char *buf, size_t n, const char *s, size_t len)
{
	bh_buf b = BH_BUF_INIT;
	gofmt_quote(&b, s, len);
	snprintf(buf, n, "%s", bh_buf_str(&b));
	bh_buf_free(&b);
}

static int lex_number(lexer *l)
{
	char q[600];
	/* "0" or [1-9][0-9]* before an ASCII byte that ends it: the number
	 * scan_number and the sign check below would emit */
	const unsigned char *s = (const unsigned char *)l->input;
	size_t p = l->pos;
	if (p < l->len && s[p] >= '0' && s[p] <= '9') {
		if (s[p++] != '0')
			while (p < l->len && s[p] >= '0' && s[p] <= '9')
				p++;
		/* not a byte scan_number could still take: a digit, letter,
		 * '_', '.' or sign */
		if (p < l->len && s[p] < 0x80 && !ascii_word[s[p]] && s[p] != '.' && s[p] != '+' &&
		    s[p] != '-') {
			l->pos = p;
			return emit(l, I_NUMBER);
		}
	}
	if (!scan_number(l)) {
		quote_for_err(q, sizeof q, l->input + l->start, l->pos - l->start);
		return lerrorf(l, "bad number syntax: %s", q);
	}
	int sign = lpeek(l);
	if (sign == '+' || sign == '-') {
		if (!scan_number(l) || l->input[l->pos - 1] != 'i') {
			quote_for_err(q, sizeof q, l->input + l->start, l->pos - l->start);
			return lerrorf(l, "bad number syntax: %s", q);
		}
		return emit(l, I_COMPLEX);
	}
	return emit(l, I_NUMBER);
}

/* The quote scanners look at bytes: the runes they stop at are ASCII, and
 * no byte of a multi-byte or invalid UTF-8 sequence is ASCII. */
static int lex_quote(lexer *l)
{
	int esc = 0;
	for (;;) {
#ifdef __SSE2__
		/* 16 bytes a step over the plain ones: none of '"', '\\',
		 * '\n' or >= 0x80 (the bytes the loop below looks at) */
		while (l->pos + 16 <= l->len) {
			__m128i c = _mm_loadu_si128((const __m128i *)(const void *)(l->input + l->pos));
			__m128i stop = _mm_or_si128(
				_mm_or_si128(_mm_cmpeq_epi8(c, _mm_set1_epi8('"')),
					     _mm_cmpeq_epi8(c, _mm_set1_epi8('\\'))),
				_mm_or_si128(_mm_cmpeq_epi8(c, _mm_set1_epi8('\n')),
					     _mm_cmplt_epi8(c, _mm_setzero_si128())));
			unsigned m = (unsigned)_mm_movemask_epi8(stop);
			if (m) {
				l->pos += (size_t)__builtin_ctz(m);
				break;
			}
			l->pos += 16;
		}
#endif
		if (l->pos >= l->len) {
			l->at_eof = 1;
			return lerrorf(l, "unterminated quoted string");
		}
		unsigned char c = (unsigned char)l->input[l->pos++];
		if (c > '\\') {
			esc |= c >= 0x80;
			continue;
		}
		if (c == '\\') {
			esc = 1;
			int r = lnext(l);
			if (r != LEOF && r != '\n')
				continue;
			return lerrorf(l, "unterminated quoted string");
		}
		if (c == '\n')
			return lerrorf(l, "unterminated quoted string");
		if (c == '"')
			break;
	}
	emit(l, I_STRING);
	l->it->aux = esc;
	return 0;
}

static int lex_raw_quote(lexer *l)
{
	const char *s = l->input + l->pos;
	const char *q = memchr(s, '`', l->len - l->pos);
	size_t n = q ? (size_t)(q - s) : l->len - l->pos;
	l->pos += n;
	if (!q) {
		l->at_eof = 1;
		return lerrorf(l, "unterminated raw quoted string");
	}
	l->pos++;
	return emit(l, I_RAW_STRING);
}

static void lex_next_slow(lexer *l, item *out) __attribute__((noinline));

/* Starts the token at start, with sp as its item.sp, in out: for a
 * lexer state function to lex and emit. */
static inline __attribute__((always_inline)) void fast_start(lexer *l, item *out, size_t start, int sp)
{
	l->it = out;
	l->sp = sp;
	l->pos = l->start = start;
}

/* lex_next_item's identifier or keyword at pos (an ASCII letter or '_'),
 * sp its item.sp */
static void lex_fast_word(lexer *l, item *out, size_t pos, int sp) __attribute__((noinline));
static void lex_fast_word(lexer *l, item *out, size_t pos, int sp)
{
	const unsigned char *s = (const unsigned char *)l->input;
	size_t q = name_end(s, pos, l->len);
	if (!q) {
		lex_next_slow(l, out);
		return;
	}
	fast_emit(l, out, word_type((const char *)s + pos, q - pos), pos, q, sp);
}

/* lex_next_item's field or variable at pos ('.' or '$', then a name
 * character, not a digit), sp its item.sp */
static void lex_fast_name(lexer *l, item *out, size_t pos, int sp) __attribute__((noinline));
static void lex_fast_name(lexer *l, item *out, size_t pos, int sp)
{
	const unsigned char *s = (const unsigned char *)l->input;
	size_t q = name_end(s, pos + 1, l->len);
	if (!q) {
		lex_next_slow(l, out);
		return;
	}
	l->pos = q;
	int k = lex_more_fields(l) + (s[pos] == '.');
	fast_emit(l, out, s[pos] == '.' ? I_FIELD : I_VARIABLE, pos, l->pos, sp);
	out->aux = k;
	out->seg = (unsigned)(q - pos);
}

/* Lexes the next token into out. Inside an action, the common tokens
 * (after at most one space: an identifier or keyword, a field or
 * variable with a name, '|', '(', ')' and "}}") are lexed here and in
 * lex_fast_word and lex_fast_name, with few live values and without the
 * general lexer's state (lex_inside gives the same tokens); anything
 * else, and anything that would be an error, goes to lex_next_slow from
 * where this started. */
static void lex_next_item(lexer *l, item *out)
{
	if (l->inside_action) {
		const unsigned char *s = (const unsigned char *)l->input;
		size_t len = l->len, pos = l->pos;
		int sp = l->sp;
		if (pos + 2 >= len)
			goto slow;
		if (space_byte[s[pos]]) {
			if (s[pos + 1] == '-' && pos + 3 < len && s[pos + 2] == '}' && s[pos + 3] == '}' &&
			    l->paren_depth == 0) {
				/* a trimmed right delimiter: the white space
				 * after it goes too */
				fast_emit(l, out, I_RIGHT_DELIM, pos + 2, pos + 4, sp);
				l->pos = l->start = l->pos + left_trim_len(l->input + l->pos, len - l->pos);
				l->inside_action = 0;
				return;
			}
			if (space_byte[s[pos + 1]] || s[pos + 1] == '-')
				goto slow;
			sp = (int)pos + 1;
			pos++;
		}
		switch (s[pos]) {
		case '}':
			if (s[pos + 1] != '}' || l->paren_depth != 0)
				goto slow;
			fast_emit(l, out, I_RIGHT_DELIM, pos, pos + 2, sp);
			l->inside_action = 0;
			return;
		case '|':
			fast_emit(l, out, I_PIPE, pos, pos + 1, sp);
			return;
		case '(':
			l->paren_depth++;
			fast_emit(l, out, I_LEFT_PAREN, pos, pos + 1, sp);
			return;
		case ')':
			if (l->paren_depth == 0)
				goto slow;
			l->paren_depth--;
			fast_emit(l, out, I_RIGHT_PAREN, pos, pos + 1, sp);
			return;
		case '=':
			fast_emit(l, out, I_ASSIGN, pos, pos + 1, sp);
			return;
		case ':':
			if (s[pos + 1] != '=')
				goto slow;
			fast_emit(l, out, I_DECLARE, pos, pos + 2, sp);
			return;
		case '"':
			fast_start(l, out, pos, sp);
			l->pos++;
			lex_quote(l);
			return;
		case '`':
			fast_start(l, out, pos, sp);
			l->pos++;
			lex_raw_quote(l);
			return;
		case '0': case '1': case '2': case '3': case '4':
		case '5': case '6': case '7': case '8': case '9':
			fast_start(l, out, pos, sp);
			lex_number(l);
			return;
		case '.':
			/* the dot alone, before an ASCII terminator */
			if (ascii_term[s[pos + 1] & 0x7F] == 1 && s[pos + 1] < 0x80) {
				fast_emit(l, out, I_DOT, pos, pos + 1, sp);
				return;
			}
			/* fall through */
		case '$':
			/* a name after the dot or dollar sign, not a digit
			 * (".5" is a number) */
			if (!ascii_word[s[pos + 1]] || (s[pos + 1] >= '0' && s[pos + 1] <= '9'))
				goto slow;
			lex_fast_name(l, out, pos, sp);
			return;
		default:
			if (!ascii_word[s[pos]] || (s[pos] >= '0' && s[pos] <= '9'))
				goto slow;
			lex_fast_word(l, out, pos, sp);
			return;
		}
	} else if (l->at_delim) {
		/* the left delimiter after a text token (lex_left_delim),
		 * not a comment's */
		const char *s = l->input;
		size_t len = l->len, pos = l->pos + 2;
		if (pos + 4 > len)
			goto slow;
		size_t after = s[pos] == '-' && space_byte[(unsigned char)s[pos + 1]] ? 2 : 0;
		if (s[pos + after] == '/' && s[pos + after + 1] == '*')
			goto slow;
		fast_emit(l, out, I_LEFT_DELIM, l->pos, pos, l->sp);
		l->pos = l->start = pos + after;
		l->inside_action = 1;
		l->paren_depth = 0;
		l->at_delim = 0;
		return;
	}
slow:
	lex_next_slow(l, out);
}

static void lex_next_slow(lexer *l, item *out)
{
	l->it = out;
	if (l->inside_action) {
		lex_inside(l);
		return;
	}
	int st = l->at_delim ? S_LEFT_DELIM : S_TEXT;
	l->at_delim = 0;
	for (;;) {
		switch (st) {
		case S_TEXT: st = lex_text(l); break;
		case S_LEFT_DELIM: st = lex_left_delim(l); break;
		case S_COMMENT: st = lex_comment(l); break;
		default: return;
		}
	}
}

/* ---- parser ---- */

typedef struct parser {
	tmpl_engine *e;
	tmpl_arena *a;
	lexer *lex;
	ttree *tree;
	item token[3];
	int peek_count;
	const char **vars;
	int nvars, capvars;
	int action_pos;   /* 1 + the offset of the action being parsed (0: none) */
	int range_depth;
	int stack_depth;
	int max_depth;
	jmp_buf *jb;
	bh_error *err;
	/* children of the lists, commands and pipelines being parsed (each
	 * takes its own from its mark on, to an array of the exact size) */
	struct tnode_stack *stk;
	/* the {{end}} or {{else}} that ended the last item_list: read by its
	 * caller, never part of a tree, so not allocated */
	tnode delim_node;
	/* trees created by this Parse call (Go's treeSet) */
	ttree ***set;
	size_t *nset, *capset;
} parser;

/* a token's line (see item) */
static int item_line(const parser *p, const item *t)
{
	return t->line ? t->line : line_at(p->lex->input, (size_t)t->pos);
}

static void perrorf(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void perrorf(parser *p, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	bh_error_set(p->err, BH_EPARSE, "template: %s:%d: %s", p->tree->parse_name,
		     item_line(p, &p->token[0]), buf);
	longjmp(*p->jb, 1);
}

static void palloc_failed(parser *p) __attribute__((noreturn, noinline, cold));
static void palloc_failed(parser *p)
{
	bh_error_set(p->err, BH_ELIMIT, "template: %s: out of memory while parsing",
		     p->tree->parse_name);
	longjmp(*p->jb, 1);
}

static inline void *palloc(parser *p, size_t n)
{
	void *x = tmpl_arena_bump(p->a, n);
	if (!x)
		palloc_failed(p);
	return x;
}

static char *pstrdup(parser *p, const char *s, size_t n)
{
	char *x = palloc(p, n + 1);
	memcpy(x, s, n);
	x[n] = '\0';
	return x;
}

/* The token functions return pointers into p->token: valid until the
 * next one reads a token (copy an item held across reads). */
static const item *pnext(parser *p)
{
	if (p->peek_count > 0)
		return &p->token[--p->peek_count];
	lex_next_item(p->lex, &p->token[0]);
	return &p->token[0];
}

static void pbackup(parser *p)
{
	p->peek_count++;
}

static void pbackup2(parser *p, item t1)
{
	p->token[1] = t1;
	p->peek_count = 2;
}


static const item *ppeek(parser *p)
{
	if (p->peek_count > 0)
		return &p->token[p->peek_count - 1];
	p->peek_count = 1;
	lex_next_item(p->lex, &p->token[0]);
	return &p->token[0];
}


/* Go's item.String() */
static void item_string(char *buf, size_t n, const item *i)
{
	if (i->typ == I_EOF) {
		snprintf(buf, n, "EOF");
	} else if (i->typ == I_ERROR) {
		snprintf(buf, n, "%.*s", (int)i->len, i->val);
	} else if (i->typ > I_KEYWORD) {
		snprintf(buf, n, "<%.*s>", (int)i->len, i->val);
	} else if (rune_count_str(i->val, i->len) > 10) {
		/* %.10q...: quote the first 10 runes */
		size_t k = 0;
		int c = 0, sz;
		while (k < i->len && c < 10) {
			dec_rune(i->val + k, i->len - k, &sz);
			k += (size_t)sz;
			c++;
		}
		quote_for_err(buf, n - 4, i->val, k);
		strcat(buf, "...");
	} else {
		quote_for_err(buf, n, i->val, i->len);
	}
}

/* Length of a field or variable token's first name (lex_more_fields):
 * the token Go's lexer would have stopped at. */
static unsigned first_segment(const item *t)
{
	return t->seg;
}

/* Go's position of a joined field or variable: its chain's, the second
 * name's dot */
static int seg_pos(const item *t)
{
	unsigned k = first_segment(t);
	return k < t->len ? t->pos + (int)k : t->pos;
}

static void unexpected(parser *p, item tok, const char *context) __attribute__((noreturn));
static void unexpected(parser *p, item tok, const char *context)
{
	char s[1024];
	if (tok.typ == I_FIELD || tok.typ == I_VARIABLE)
		tok.len = first_segment(&tok); /* Go's token */
	if (tok.typ == I_ERROR) {
		char extra[512] = "";
		int action_line = p->action_pos ? line_at(p->lex->input, (size_t)p->action_pos - 1) : 0;
		if (action_line != 0 && action_line != item_line(p, &tok)) {
			int is_action = tok.len >= 7 && memcmp(tok.val + tok.len - 7, " action", 7) == 0;
			snprintf(extra, sizeof extra, "%s started at %s:%d", is_action ? "" : " in action",
				 p->tree->parse_name, action_line);
		}
		perrorf(p, "%.*s%s", (int)tok.len, tok.val, extra);
	}
	item_string(s, sizeof s, &tok);
	perrorf(p, "unexpected %s in %s", s, context);
}

static const item *expect(parser *p, enum item_type t, const char *context)
{
	const item *tok = pnext(p);
	if (tok->typ != t)
		unexpected(p, *tok, context);
	return tok;
}

#define END_OF(f) (offsetof(tnode, f) + sizeof(((tnode *)0)->f))

/* Bytes of a node of type t: the common fields plus the union members
 * its type uses (internal.h); nothing reads or writes past them. */
static size_t node_size(enum node_type t)
{
	switch (t) {
	case N_TEXT: case N_COMMENT:
		return END_OF(len);
	case N_LIST: case N_COMMAND:
		return END_OF(nitems);
	case N_FIELD: case N_VARIABLE:
		return END_OF(nident);
	case N_CHAIN:
		return END_OF(node);
	case N_IDENT:
		return END_OF(fn);
	case N_STRING:
		return END_OF(qlen);
	case N_PIPE:
		return END_OF(decl); /* pipeline: END_OF(is_assign) without decls */
	case N_ACTION:
		return END_OF(pipe);
	case N_IF: case N_RANGE: case N_WITH:
		return END_OF(else_list);
	case N_TEMPLATE:
		return END_OF(name);
	case N_BOOL:
		return END_OF(b);
	case N_DOT: case N_NIL: case N_END: case N_ELSE: case N_BREAK: case N_CONTINUE:
		return offsetof(tnode, text);
	default:
		return sizeof(tnode);
	}
}

static tnode *new_node(parser *p, enum node_type t, int pos)
{
	tnode *n = palloc(p, node_size(t));
	n->type = t;
	n->pos = pos;
	return n;
}

static void stk_grow(parser *p) __attribute__((noinline));
static void stk_grow(parser *p)
{
	struct tnode_stack *st = p->stk;
	if (VEC_RESERVE(st->v, st->cap, st->n + 1, 256) < 0)
		palloc_failed(p);
}

static inline void stk_push(parser *p, tnode *n)
{
	struct tnode_stack *st = p->stk;
	if (st->n == st->cap)
		stk_grow(p);
	st->v[st->n++] = n;
}

/* Moves the children pushed since mark into owner's items. */
static inline __attribute__((always_inline)) void stk_take(parser *p, tnode *owner, size_t mark)
{
	struct tnode_stack *st = p->stk;
	size_t k = st->n - mark;
	if (k == 1) {
		/* the common case: one command, one operand */
		tnode **d = owner->items = palloc(p, sizeof(tnode *));
		d[0] = st->v[mark];
	} else if (k) {
		/* mostly two or three children: a loop, not a call to memcpy */
		tnode **d = owner->items = palloc(p, k * sizeof(tnode *));
		for (size_t i = 0; i < k; i++)
			d[i] = st->v[mark + i];
	}
	owner->nitems = (int)k;
	st->n = mark;
}

static void push_var(parser *p, const char *name)
{
	if (p->nvars == p->capvars) {
		int nc = p->capvars ? p->capvars * 2 : 8;
		const char **nv = palloc(p, (size_t)nc * sizeof(char *));
		if (p->nvars)
			memcpy(nv, p->vars, (size_t)p->nvars * sizeof(char *));
		p->vars = nv;
		p->capvars = nc;
	}
	p->vars[p->nvars++] = name;
}

/* The length of the name at the start of s (n bytes, a dot after it),
 * copied to w (which has room for 8 bytes more than that from w on, as
 * long as 8 bytes of s are left to read): the bytes up to the first dot,
 * 8 a step (a dot is a zero byte of the word xor "........"). */
static inline size_t copy_name(char *w, const char *s, size_t n)
{
	size_t len = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (len + 8 <= n) {
		uint64_t x, y, z;
		memcpy(&x, s + len, 8);
		memcpy(w + len, &x, 8);
		y = x ^ 0x2E2E2E2E2E2E2E2Eull;
		z = (y - 0x0101010101010101ull) & ~y & 0x8080808080808080ull;
		if (z)
			return len + (size_t)__builtin_ctzll(z) / 8;
		len += 8;
	}
#endif
	while (len < n && s[len] != '.') {
		w[len] = s[len];
		len++;
	}
	return len;
}

/* A list of names (split_names) is an ident array in one block, after a
 * prefix: the text it was cut from (in the tree's text, which lives as
 * long as the engine: tmpl_parse), that text's length and the count of
 * names. */
struct names_prefix {
	const char *key;
	uint32_t keylen, count;
};

static inline const struct names_prefix *names_prefix(const char **id)
{
	return (const struct names_prefix *)(const void *)((const char *)id - sizeof(struct names_prefix));
}

/* The names of s, cut at its ndots dots, into a new list (see
 * names_prefix): each after its header (see tmpl_name_hash in
 * internal.h) and NUL-terminated. */
static const char **split_names(parser *p, const char *s, size_t n, int ndots) __attribute__((noinline));
static const char **split_names(parser *p, const char *s, size_t n, int ndots)
{
	int cnt = ndots + 1;
	/* the prefix, the pointers, then the names: one block. copy_name may
	 * write up to 7 bytes past a name (and its NUL) while 8 bytes of s
	 * are left: into the next name's place, written after, never past
	 * the block */
	struct names_prefix *pf =
		palloc(p, sizeof(*pf) + (size_t)cnt * sizeof(char *) + n + 9 * (size_t)cnt);
	const char **id = (const char **)(void *)(pf + 1);
	char *w = (char *)(id + cnt);
	pf->key = s;
	pf->keylen = (uint32_t)n; /* < 2^31: tmpl_parse */
	for (int k = 0; k < cnt; k++) {
		size_t len;
		if (k + 1 < cnt) {
			len = copy_name(w + 8, s, n);
		} else {
			len = n;
			memcpy(w + 8, s, len);
		}
		uint32_t len32 = (uint32_t)len;
		memcpy(w + 4, &len32, sizeof len32);
		w[8 + len] = '\0';
		id[k] = w + 8;
		w += 9 + len;
		if (len == n) {
			cnt = k + 1;
			break;
		}
		s += len + 1;
		n -= len + 1;
	}
	pf->count = (uint32_t)cnt;
	return id;
}

/* The name index's hash of a token's text: its length and its first and
 * last 8 bytes (the index compares the texts), a few instructions where
 * tmpl_strhash takes a step per 8 bytes. */
static inline uint32_t token_hash(const char *s, size_t n)
{
	uint64_t a, b;
	if (n >= 8) {
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
	} else if (n >= 4) {
		uint32_t x, y;
		memcpy(&x, s, 4);
		memcpy(&y, s + n - 4, 4);
		a = x;
		b = y;
	} else {
		a = n ? (unsigned char)s[0] : 0;
		b = n ? ((unsigned)(unsigned char)s[n >> 1] << 8) | (unsigned char)s[n - 1] : 0;
	}
	uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ ((b ^ n) * 0xBF58476D1CE4E5B9ull);
	return (uint32_t)(h ^ (h >> 32));
}

/* memcmp(a, b, n) == 0 for n >= 8: 8 bytes a step, the last 8 overlapping */
static inline int text_eq(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	size_t i = 0;
	for (; i + 8 < n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return 0;
	}
	memcpy(&x, a + n - 8, 8);
	memcpy(&y, b + n - 8, 8);
	return x == y;
}

/* Doubles the engine's name index (a first one of 512 slots), in the
 * parse arena (zero, no memset; the old one is left there, half the new
 * one's size); 0 when out of memory (the index stays as it was). */
static int name_index_grow(tmpl_engine *e) __attribute__((noinline, cold));
static int name_index_grow(tmpl_engine *e)
{
	size_t nc = e->name_index_cap ? e->name_index_cap * 2 : 512;
	const char ***v = tmpl_arena_bump(&e->parse_arena, nc * sizeof(*v));
	if (!v)
		return 0;
	for (size_t i = 0; i < e->name_index_cap; i++) {
		const char **id = e->name_index[i];
		if (!id)
			continue;
		const struct names_prefix *pf = names_prefix(id);
		size_t j = token_hash(pf->key, pf->keylen) & (nc - 1);
		while (v[j])
			j = (j + 1) & (nc - 1);
		v[j] = id;
	}
	e->name_index = v;
	e->name_index_cap = nc;
	return 1;
}

/* token_names when s is not in the index (j: the free slot it would
 * take, when the index has one) */
static const char **new_token_names(parser *p, const char *s, size_t n, int ndots, size_t j)
	__attribute__((noinline));
static const char **new_token_names(parser *p, const char *s, size_t n, int ndots, size_t j)
{
	tmpl_engine *e = p->e;
	const char **id = split_names(p, s, n, ndots);
	/* load at most 3/4; without room the list is just not shared */
	if ((e->name_index_n + 1) * 4 > e->name_index_cap * 3) {
		if (!name_index_grow(e))
			return id;
		size_t mask = e->name_index_cap - 1;
		for (j = token_hash(s, n) & mask; e->name_index[j]; j = (j + 1) & mask)
			;
	}
	e->name_index[j] = id;
	e->name_index_n++;
	return id;
}

/* The names of s (n bytes of the tree's text, ndots dots) into *ident,
 * *nident: the list of an earlier token with the same text when there is
 * one (lists are never changed once made; the executor only fills in the
 * names' hashes, the same for all), else a new one, remembered in the
 * engine's index. */
static inline __attribute__((always_inline)) void token_names(parser *p, const char *s, size_t n,
								       int ndots, const char ***ident,
								       int *nident)
{
	tmpl_engine *e = p->e;
	const char **id;
	size_t j = 0;
	if (e->name_index_cap) {
		size_t mask = e->name_index_cap - 1;
		for (j = token_hash(s, n) & mask; (id = e->name_index[j]) != NULL; j = (j + 1) & mask) {
			const struct names_prefix *pf = names_prefix(id);
			if (pf->keylen == n && (n < 8 ? tmpl_key_eq(pf->key, s, n) : text_eq(pf->key, s, n))) {
				*ident = id;
				*nident = (int)pf->count;
				return;
			}
		}
	}
	id = new_token_names(p, s, n, ndots, j);
	*ident = id;
	*nident = (int)names_prefix(id)->count;
}

static tnode *new_variable(parser *p, int pos, const char *s, size_t n, int ndots)
{
	tnode *v = new_node(p, N_VARIABLE, pos);
	token_names(p, s, n, ndots, &v->ident, &v->nident);
	return v;
}

static tnode *new_field(parser *p, int pos, const char *s, size_t n, int ndots)
{
	tnode *v = new_variable(p, pos, s + 1, n - 1, ndots - 1); /* drop leading '.' */
	v->type = N_FIELD;
	return v;
}

static tnode *pipeline(parser *p, const char *context, enum item_type end);
static tnode *item_list(parser *p, tnode **next);
static tnode *if_control(parser *p);
static tnode *with_control(parser *p);

static tnode *use_var(parser *p, int pos, const char *s, size_t n, int ndots)
{
	tnode *v = new_variable(p, pos, s, n, ndots);
	/* names start with '$': the second bytes are compared first */
	const char *name = v->ident[0];
	for (int i = 0; i < p->nvars; i++)
		if (p->vars[i][1] == name[1] && strcmp(p->vars[i], name) == 0)
			return v;
	perrorf(p, "undefined variable \"%s\"", v->ident[0]);
}

static tnode *new_number(parser *p, item tok, const char **errp, char *errbuf, size_t errbuf_size)
{
	tnode *n = new_node(p, N_NUMBER, tok.pos);
	const char *text = tok.val;
	size_t len = tok.len;
	n->text = pstrdup(p, text, len);
	n->len = len;
	*errp = NULL;
	if (tok.typ == I_CHAR_CONSTANT) {
		int r;
		size_t used;
		if (go_unquote_char(text + 1, len - 1, text[0], &r, &used)) {
			*errp = "invalid syntax";
			return NULL;
		}
		if (len - 1 - used != 1 || text[len - 1] != '\'') {
			snprintf(errbuf, errbuf_size, "malformed character constant: %.*s", (int)len, text);
			*errp = errbuf;
			return NULL;
		}
		n->i64 = r;
		n->is_int = 1;
		n->u64 = (uint64_t)r;
		n->is_uint = 1;
		n->f64 = r;
		n->is_float = 1;
		return n;
	}
	if (tok.typ == I_COMPLEX) {
		/* a+bi: split at the last sign that is not after e/E/p/P */
		size_t k;
		for (k = len - 1; k > 0; k--)
			if ((text[k] == '+' || text[k] == '-') && !(text[k - 1] == 'e' || text[k - 1] == 'E' ||
								     text[k - 1] == 'p' || text[k - 1] == 'P'))
				break;
		double re, im;
		if (k == 0 || go_parse_float(text, k, &re) || go_parse_float(text + k, len - k - 1, &im)) {
			*errp = "expected integer";
			return NULL;
		}
		n->is_complex = 1;
		n->f64 = re;
		n->im = im;
		goto simplify;
	}
	if (len > 0 && text[len - 1] == 'i') {
		double f;
		if (go_parse_float(text, len - 1, &f) == 0) {
			n->is_complex = 1;
			n->f64 = 0;
			n->im = f;
			goto simplify;
		}
	}
	{
		uint64_t u;
		int64_t i;
		if (go_parse_uint(text, len, 0, &u) == 0) {
			n->is_uint = 1;
			n->u64 = u;
		}
		if (go_parse_int(text, len, 0, &i) == 0) {
			n->is_int = 1;
			n->i64 = i;
			if (i == 0) {
				n->is_uint = 1;
				n->u64 = u;
			}
		}
		if (n->is_int) {
			n->is_float = 1;
			n->f64 = (double)n->i64;
		} else if (n->is_uint) {
			n->is_float = 1;
			n->f64 = (double)n->u64;
		} else {
			double f;
			if (go_parse_float(text, len, &f) == 0) {
				int has = 0;
				for (size_t k = 0; k < len; k++)
					if (strchr(".eEpP", text[k]))
						has = 1;
				if (!has) {
					char q[600];
					quote_for_err(q, sizeof q, text, len);
					snprintf(errbuf, errbuf_size, "integer overflow: %s", q);
					*errp = errbuf;
					return NULL;
				}
				n->is_float = 1;
				n->f64 = f;
				if (!n->is_int && f >= -9223372036854775808.0 && f < 9223372036854775808.0 &&
				    (double)(int64_t)f == f) {
					n->is_int = 1;
					n->i64 = (int64_t)f;
				}
				if (!n->is_uint && f >= 0 && f < 18446744073709551616.0 && (double)(uint64_t)f == f) {
					n->is_uint = 1;
					n->u64 = (uint64_t)f;
				}
			}
		}
		if (!n->is_int && !n->is_uint && !n->is_float) {
			char q[600];
			quote_for_err(q, sizeof q, text, len);
			snprintf(errbuf, errbuf_size, "illegal number syntax: %s", q);
			*errp = errbuf;
			return NULL;
		}
		return n;
	}
simplify:
	n->is_float = n->im == 0;
	if (n->is_float) {
		double f = n->f64;
		n->is_int = f >= -9223372036854775808.0 && f < 9223372036854775808.0 && (double)(int64_t)f == f;
		if (n->is_int)
			n->i64 = (int64_t)f;
		n->is_uint = f >= 0 && f < 18446744073709551616.0 && (double)(uint64_t)f == f;
		if (n->is_uint)
			n->u64 = (uint64_t)f;
	}
	return n;
}

/* Go's strconv.Unquote of a string token, copied into the arena (*n gets
 * its length); "invalid syntax" when it does not unquote. A token without
 * escapes, carriage returns or non-ASCII bytes is its own inside. */
static char *unquote_token(parser *p, const item *tok, size_t *n)
{
	const char *in = tok->val + 1;
	size_t k = 0, len = tok->len - 2; /* the lexer's tokens have both quotes */
	if (tok->typ == I_STRING)
		k = tok->aux ? 0 : len; /* lex_quote saw the escapes */
	else {
		const char *cr = memchr(in, '\r', len);
		k = cr ? (size_t)(cr - in) : len;
	}
	if (k == len) {
		*n = len;
		return pstrdup(p, in, len);
	}
	bh_buf b = BH_BUF_INIT;
	if (go_unquote(tok->val, tok->len, &b)) {
		bh_buf_free(&b);
		perrorf(p, "invalid syntax");
	}
	char *r = pstrdup(p, bh_buf_str(&b), b.len);
	*n = b.len;
	bh_buf_free(&b);
	return r;
}

/* term's number: its own function, out of term's hot path */
static tnode *number_term(parser *p, const item *tp) __attribute__((noinline));
static tnode *number_term(parser *p, const item *tp)
{
	const char *e;
	char ebuf[700];
	tnode *n = new_number(p, *tp, &e, ebuf, sizeof ebuf);
	if (!n)
		perrorf(p, "%s", e);
	return n;
}

static tnode *term(parser *p)
{
	/* a pointer into p->token: read before the next token is */
	const item *tp = pnext(p);
	switch (tp->typ) {
	case I_LEFT_PAREN: {
		if (p->stack_depth >= p->max_depth || tmpl_stack_over(p->e))
			perrorf(p, "max expression depth exceeded");
		p->stack_depth++;
		tnode *n = pipeline(p, "parenthesized pipeline", I_RIGHT_PAREN);
		p->stack_depth--;
		return n;
	}
	case I_IDENTIFIER: {
		/* the node keeps the function (its name is the token's text) */
		const tmpl_func_def *fn = tmpl_engine_func_find(p->e, tp->val, tp->len);
		if (!fn)
			perrorf(p, "function \"%.*s\" not defined", (int)tp->len, tp->val);
		tnode *n = new_node(p, N_IDENT, tp->pos);
		n->fn = fn;
		return n;
	}
	case I_DOT:
		return new_node(p, N_DOT, tp->pos);
	case I_NIL:
		return new_node(p, N_NIL, tp->pos);
	case I_VARIABLE:
		return use_var(p, seg_pos(tp), tp->val, tp->len, tp->aux);
	case I_FIELD:
		return new_field(p, seg_pos(tp), tp->val, tp->len, tp->aux);
	case I_BOOL: {
		tnode *n = new_node(p, N_BOOL, tp->pos);
		n->b = tp->len == 4;
		return n;
	}
	case I_CHAR_CONSTANT:
	case I_COMPLEX:
	case I_NUMBER:
		return number_term(p, tp);
	case I_STRING:
	case I_RAW_STRING: {
		tnode *n = new_node(p, N_STRING, tp->pos);
		n->text = unquote_token(p, tp, &n->len);
		n->quoted = tp->val; /* points into the tree text (kept alive) */
		n->qlen = tp->len;
		return n;
	}
	default:
		break;
	}
	pbackup(p);
	return NULL;
}

static void node_string_q(char *buf, size_t n, const tnode *nd)
{
	bh_buf b = BH_BUF_INIT, q = BH_BUF_INIT;
	tnode_string(&b, nd);
	gofmt_quote(&q, bh_buf_str(&b), b.len);
	snprintf(buf, n, "%s", bh_buf_str(&q));
	bh_buf_free(&b);
	bh_buf_free(&q);
}

static tnode *field_chain(parser *p, tnode *node) __attribute__((noinline));

static tnode *operand(parser *p)
{
	tnode *node = term(p);
	if (!node)
		return NULL;
	/* a field right after the term (no space between) */
	if (ppeek(p)->typ == I_FIELD && !p->token[p->peek_count - 1].sp)
		return field_chain(p, node);
	return node;
}

/* operand's term node followed by fields: a chain (Go's operand) */
static tnode *field_chain(parser *p, tnode *node)
{
	{
		tnode *chain = new_node(p, N_CHAIN, ppeek(p)->pos);
		chain->node = node;
		int cap = 0;
		while (ppeek(p)->typ == I_FIELD && !p->token[p->peek_count - 1].sp) {
			item f = *pnext(p);
			/* one name per dot (lex_more_fields) */
			const char **id;
			int nid;
			token_names(p, f.val + 1, f.len - 1, f.aux - 1, &id, &nid);
			if (chain->nident + nid > cap) {
				int nc = cap ? cap * 2 : 4;
				while (nc < chain->nident + nid)
					nc *= 2;
				const char **ni = palloc(p, (size_t)nc * sizeof(char *));
				if (chain->nident)
					memcpy(ni, chain->ident, (size_t)chain->nident * sizeof(char *));
				chain->ident = ni;
				cap = nc;
			}
			memcpy(chain->ident + chain->nident, id, (size_t)nid * sizeof(char *));
			chain->nident += nid;
		}
		switch (node->type) {
		case N_FIELD:
		case N_VARIABLE: {
			/* Go re-parses chain.String(): the names of both, in order */
			int cnt = node->nident + chain->nident;
			const char **id = palloc(p, (size_t)cnt * sizeof(char *));
			for (int k = 0; k < node->nident; k++)
				id[k] = node->ident[k];
			for (int k = 0; k < chain->nident; k++)
				id[node->nident + k] = chain->ident[k];
			node->ident = id;
			node->nident = cnt;
			node->pos = chain->pos;
			return node;
		}
		case N_BOOL:
		case N_STRING:
		case N_NUMBER:
		case N_NIL:
		case N_DOT: {
			char q[1024];
			node_string_q(q, sizeof q, node);
			/* Go's last token read is the space before this one */
			if (p->token[0].sp)
				p->token[0].line = line_at(p->lex->input, (size_t)p->token[0].sp - 1);
			perrorf(p, "unexpected . after term %s", q);
		}
		default:
			return chain;
		}
	}
}

static tnode *command(parser *p)
{
	tnode *cmd = new_node(p, N_COMMAND, ppeek(p)->pos);
	size_t mark = p->stk->n;
	for (;;) {
		tnode *op = operand(p);
		if (op)
			stk_push(p, op);
		/* peeked, read only when it ends the command or is an error */
		const item *tok = ppeek(p);
		switch (tok->typ) {
		case I_RIGHT_DELIM:
		case I_RIGHT_PAREN:
			break;
		case I_PIPE:
			pnext(p);
			break;
		default:
			if (op && tok->sp) /* Go: a space, then the next operand */
				continue;
			unexpected(p, *pnext(p), "operand");
		}
		break;
	}
	stk_take(p, cmd, mark);
	if (cmd->nitems == 0)
		perrorf(p, "empty command");
	return cmd;
}

static void check_pipeline(parser *p, tnode *pipe, const char *context)
{
	if (pipe->nitems == 0)
		perrorf(p, "missing value for %s", context);
	for (int i = 1; i < pipe->nitems; i++) {
		switch (pipe->items[i]->items[0]->type) {
		case N_BOOL: case N_DOT: case N_NIL: case N_NUMBER: case N_STRING:
			perrorf(p, "non executable command in pipeline stage %d", i + 1);
		default:
			break;
		}
	}
}

/* A new pipeline node at pos: without declarations (most), it ends
 * before decl. */
static inline tnode *new_pipe(parser *p, int pos, int ndecl)
{
	tnode *pipe = palloc(p, ndecl ? END_OF(decl) : END_OF(is_assign));
	pipe->type = N_PIPE;
	pipe->pos = pos;
	return pipe;
}

/* pipeline's start when it is on a variable: its declarations, if any,
 * and the node */
static tnode *pipeline_decls(parser *p, const char *context) __attribute__((noinline));
static tnode *pipeline_decls(parser *p, const char *context)
{
	int pos = ppeek(p)->pos;
	tnode *decl0 = NULL, *decl1 = NULL; /* at most two (range's) */
	int ndecl = 0, is_assign = 0;
decls:
	/* $x.a: Go reads the field .a after $x, never a declaration */
	if (ppeek(p)->typ == I_VARIABLE && !ppeek(p)->aux) {
		item v = *ppeek(p);
		pnext(p);
		item nxt = *ppeek(p);
		if (nxt.typ == I_ASSIGN || nxt.typ == I_DECLARE) {
			is_assign = nxt.typ == I_ASSIGN;
			pnext(p);
			tnode *var = new_variable(p, v.pos, v.val, v.len, 0);
			*(ndecl++ ? &decl1 : &decl0) = var;
			push_var(p, var->ident[0]);
		} else if (nxt.typ == I_CHAR && nxt.len == 1 && nxt.val[0] == ',') {
			pnext(p);
			tnode *var = new_variable(p, v.pos, v.val, v.len, 0);
			*(ndecl++ ? &decl1 : &decl0) = var;
			push_var(p, var->ident[0]);
			if (strcmp(context, "range") == 0 && ndecl < 2) {
				switch (ppeek(p)->typ) {
				case I_VARIABLE:
				case I_RIGHT_DELIM:
				case I_RIGHT_PAREN:
					goto decls;
				default:
					perrorf(p, "range can only initialize variables");
				}
			}
			perrorf(p, "too many declarations in %s", context);
		} else {
			pbackup2(p, v);
		}
	}
	tnode *pipe = new_pipe(p, pos, ndecl);
	if (ndecl) {
		pipe->decl = palloc(p, (size_t)ndecl * sizeof(tnode *));
		pipe->decl[0] = decl0;
		if (ndecl > 1)
			pipe->decl[1] = decl1;
		pipe->ndecl = (unsigned short)ndecl;
		pipe->is_assign = (unsigned char)is_assign;
	}
	return pipe;
}

static tnode *pipeline(parser *p, const char *context, enum item_type end)
{
	const item *t0 = ppeek(p);
	tnode *pipe = t0->typ == I_VARIABLE && !t0->aux ? pipeline_decls(p, context)
							: new_pipe(p, t0->pos, 0);
	size_t mark = p->stk->n;
	for (;;) {
		/* peeked: a command reads it again */
		const item *t = ppeek(p);
		if (t->typ == end) {
			pnext(p);
			stk_take(p, pipe, mark);
			check_pipeline(p, pipe, context);
			return pipe;
		}
		switch (t->typ) {
		case I_BOOL: case I_CHAR_CONSTANT: case I_COMPLEX: case I_DOT: case I_FIELD:
		case I_IDENTIFIER: case I_NUMBER: case I_NIL: case I_RAW_STRING: case I_STRING:
		case I_VARIABLE: case I_LEFT_PAREN:
			stk_push(p, command(p));
			break;
		default:
			unexpected(p, *pnext(p), context);
		}
	}
}

static void parse_control(parser *p, const char *context, tnode *branch)
{
	int saved = p->nvars;
	tnode *next;
	/* context is "if", "range" or "with" */
	int is_range = context[0] == 'r';
	if (tmpl_stack_over(p->e))
		perrorf(p, "max expression depth exceeded");
	branch->pipe = pipeline(p, context, I_RIGHT_DELIM);
	branch->pos = branch->pipe->pos;
	if (is_range)
		p->range_depth++;
	branch->list = item_list(p, &next);
	if (is_range)
		p->range_depth--;
	if (next->type == N_ELSE) {
		if (context[0] == 'i' && ppeek(p)->typ == I_IF) {
			pnext(p);
			branch->else_list = new_node(p, N_LIST, next->pos);
			size_t mark = p->stk->n;
			stk_push(p, if_control(p));
			stk_take(p, branch->else_list, mark);
		} else if (context[0] == 'w' && ppeek(p)->typ == I_WITH) {
			pnext(p);
			branch->else_list = new_node(p, N_LIST, next->pos);
			size_t mark = p->stk->n;
			stk_push(p, with_control(p));
			stk_take(p, branch->else_list, mark);
		} else {
			branch->else_list = item_list(p, &next);
			if (next->type != N_END) {
				bh_buf b = BH_BUF_INIT;
				char s[256];
				tnode_string(&b, next);
				snprintf(s, sizeof s, "%s", bh_buf_str(&b));
				bh_buf_free(&b);
				perrorf(p, "expected end; found %s", s);
			}
		}
	}
	p->nvars = saved;
}

static tnode *if_control(parser *p)
{
	tnode *n = new_node(p, N_IF, 0);
	parse_control(p, "if", n);
	return n;
}

static tnode *range_control(parser *p)
{
	tnode *n = new_node(p, N_RANGE, 0);
	parse_control(p, "range", n);
	return n;
}

static tnode *with_control(parser *p)
{
	tnode *n = new_node(p, N_WITH, 0);
	parse_control(p, "with", n);
	return n;
}

/* The node of an {{end}} or {{else}}: p->delim_node (see parser). */
static tnode *delim_node(parser *p, enum node_type t, int pos)
{
	p->delim_node.type = t;
	p->delim_node.pos = pos;
	return &p->delim_node;
}

static tnode *end_control(parser *p)
{
	return delim_node(p, N_END, expect(p, I_RIGHT_DELIM, "end")->pos);
}

static tnode *else_control(parser *p)
{
	const item *pk = ppeek(p);
	if (pk->typ == I_IF || pk->typ == I_WITH)
		return delim_node(p, N_ELSE, pk->pos);
	return delim_node(p, N_ELSE, expect(p, I_RIGHT_DELIM, "else")->pos);
}

static const char *parse_template_name(parser *p, item tok, const char *context)
{
	if (tok.typ == I_STRING || tok.typ == I_RAW_STRING) {
		size_t n;
		return unquote_token(p, &tok, &n);
	}
	unexpected(p, tok, context);
}

static int is_empty_tree(const tnode *n)
{
	if (!n)
		return 1;
	switch (n->type) {
	case N_COMMENT:
		return 1;
	case N_LIST:
		for (int i = 0; i < n->nitems; i++)
			if (!is_empty_tree(n->items[i]))
				return 0;
		return 1;
	case N_TEXT:
		for (size_t i = 0; i < n->len; i++) {
			unsigned char c = (unsigned char)n->text[i];
			if (!(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'))
				return 0;
		}
		return 1;
	default:
		return 0;
	}
}

/* Go's Tree.add: record in this Parse call's set. */
static void tree_add(parser *p)
{
	/* a file defines up to hundreds of names: hashes first */
	uint32_t h = tmpl_strhash(p->tree->name, strlen(p->tree->name));
	p->tree->name_hash = h;
	for (size_t i = 0; i < *p->nset; i++) {
		ttree *t = (*p->set)[i];
		if (t->name_hash == h && strcmp(t->name, p->tree->name) == 0) {
			if (is_empty_tree(t->root)) {
				(*p->set)[i] = p->tree;
				return;
			}
			if (!is_empty_tree(p->tree->root))
				perrorf(p, "template: multiple definition of template \"%s\"", p->tree->name);
			return;
		}
	}
	if (*p->nset == *p->capset) {
		size_t nc = *p->capset ? *p->capset * 2 : 8;
		ttree **n = palloc(p, nc * sizeof(ttree *));
		if (*p->nset)
			memcpy(n, *p->set, *p->nset * sizeof(ttree *));
		*p->set = n;
		*p->capset = nc;
	}
	(*p->set)[(*p->nset)++] = p->tree;
}

static void sub_parser(parser *sub, parser *p, const char *name)
{
	memset(sub, 0, sizeof(*sub));
	sub->e = p->e;
	sub->a = p->a;
	sub->lex = p->lex;
	sub->jb = p->jb;
	sub->err = p->err;
	sub->stk = p->stk;
	sub->set = p->set;
	sub->nset = p->nset;
	sub->capset = p->capset;
	sub->max_depth = p->max_depth;
	sub->tree = palloc(p, sizeof(ttree));
	sub->tree->name = name;
	sub->tree->parse_name = p->tree->parse_name;
	sub->tree->text = p->tree->text;
	sub->tree->text_len = p->tree->text_len;
	push_var(sub, "$");
}

static tnode *template_control(parser *p);
static tnode *block_control(parser *p);

static tnode *action(parser *p)
{
	const item *tp = pnext(p);
	enum item_type typ = tp->typ;
	int pos = tp->pos;
	switch (typ) {
	case I_BLOCK:
		return block_control(p);
	case I_BREAK:
	case I_CONTINUE: {
		item t = *pnext(p);
		const char *ctx = typ == I_BREAK ? "{{break}}" : "{{continue}}";
		if (t.typ != I_RIGHT_DELIM)
			unexpected(p, t, ctx);
		if (p->range_depth == 0)
			perrorf(p, "%s outside {{range}}", ctx);
		tnode *n = new_node(p, typ == I_BREAK ? N_BREAK : N_CONTINUE, pos);
			return n;
	}
	case I_ELSE:
		return else_control(p);
	case I_END:
		return end_control(p);
	case I_IF:
		return if_control(p);
	case I_RANGE:
		return range_control(p);
	case I_TEMPLATE:
		return template_control(p);
	case I_WITH:
		return with_control(p);
	default:
		break;
	}
	pbackup(p);
	tnode *a = new_node(p, N_ACTION, ppeek(p)->pos);
	a->pipe = pipeline(p, "command", I_RIGHT_DELIM);
	return a;
}

/* text_or_action after a token other than text */
static tnode *delim_action(parser *p, const item *tok) __attribute__((noinline));
static tnode *delim_action(parser *p, const item *tok)
{
	if (tok->typ != I_LEFT_DELIM)
		unexpected(p, *tok, "input");
	p->action_pos = tok->pos + 1;
	tnode *n = action(p);
	p->action_pos = 0;
	return n;
}

/* inline in the list loops: text, every other token, needs no call */
static inline __attribute__((always_inline)) tnode *text_or_action(parser *p)
{
	const item *tok = pnext(p);
	if (tok->typ != I_TEXT)
		return delim_action(p, tok);
	tnode *n = new_node(p, N_TEXT, tok->pos);
	n->text = tok->val; /* points into the tree text (kept alive) */
	n->len = tok->len;
	return n;
}

static tnode *item_list(parser *p, tnode **next)
{
	tnode *list = new_node(p, N_LIST, ppeek(p)->pos);
	size_t mark = p->stk->n;
	while (ppeek(p)->typ != I_EOF) {
		tnode *n = text_or_action(p);
		if (n->type == N_END || n->type == N_ELSE) {
			*next = n;
			stk_take(p, list, mark);
			return list;
		}
		stk_push(p, n);
	}
	perrorf(p, "unexpected EOF");
}

static void parse_definition(parser *p)
{
	const char *context = "define clause";
	item name = *pnext(p);
	if (name.typ != I_STRING && name.typ != I_RAW_STRING)
		unexpected(p, name, context);
	size_t n;
	p->tree->name = unquote_token(p, &name, &n);
	expect(p, I_RIGHT_DELIM, context);
	tnode *end;
	p->tree->root = item_list(p, &end);
	if (end->type != N_END) {
		bh_buf s = BH_BUF_INIT;
		char m[256];
		tnode_string(&s, end);
		snprintf(m, sizeof m, "%s", bh_buf_str(&s));
		bh_buf_free(&s);
		perrorf(p, "unexpected %s in %s", m, context);
	}
	tree_add(p);
}

static tnode *block_control(parser *p)
{
	const char *context = "block clause";
	item tok = *pnext(p);
	const char *name = parse_template_name(p, tok, context);
	tnode *pipe = pipeline(p, context, I_RIGHT_DELIM);
	parser sub;
	sub_parser(&sub, p, name);
	tnode *end;
	sub.tree->root = item_list(&sub, &end);
	if (end->type != N_END) {
		bh_buf s = BH_BUF_INIT;
		char m[256];
		tnode_string(&s, end);
		snprintf(m, sizeof m, "%s", bh_buf_str(&s));
		bh_buf_free(&s);
		perrorf(p, "unexpected %s in %s", m, context);
	}
	tree_add(&sub);
	tnode *t = new_node(p, N_TEMPLATE, tok.pos);
	t->name = name;
	t->pipe = pipe;
	return t;
}

static tnode *template_control(parser *p)
{
	const char *context = "template clause";
	item tok = *pnext(p);
	const char *name = parse_template_name(p, tok, context);
	tnode *pipe = NULL;
	if (pnext(p)->typ != I_RIGHT_DELIM) {
		pbackup(p);
		pipe = pipeline(p, context, I_RIGHT_DELIM);
	}
	tnode *t = new_node(p, N_TEMPLATE, tok.pos);
	t->name = name;
	t->pipe = pipe;
	return t;
}

static void parse_top(parser *p)
{
	p->tree->root = new_node(p, N_LIST, ppeek(p)->pos);
	size_t mark = p->stk->n;
	while (ppeek(p)->typ != I_EOF) {
		if (ppeek(p)->typ == I_LEFT_DELIM) {
			item delim = *pnext(p);
			if (pnext(p)->typ == I_DEFINE) {
				parser sub;
				sub_parser(&sub, p, "definition");
				parse_definition(&sub);
				continue;
			}
			pbackup2(p, delim);
		}
		tnode *n = text_or_action(p);
		if (n->type == N_END || n->type == N_ELSE) {
			bh_buf s = BH_BUF_INIT;
			char m[256];
			tnode_string(&s, n);
			snprintf(m, sizeof m, "%s", bh_buf_str(&s));
			bh_buf_free(&s);
			perrorf(p, "unexpected %s", m);
		}
		stk_push(p, n);
	}
	stk_take(p, p->tree->root, mark);
}

static size_t rune_count_str(const char *s, size_t n)
{
	size_t c = 0, i = 0;
	int sz;
	while (i < n) {
		dec_rune(s + i, n - i, &sz);
		i += (size_t)sz;
		c++;
	}
	return c;
}

int tmpl_parse_set(tmpl_engine *e, const char *name, const char *src, size_t len, int borrow,
		   ttree ***setp, size_t *nsetp, bh_error *err)
{
	jmp_buf jb;
	lexer lx;
	parser p;
	ttree **set = NULL;
	size_t nset = 0, capset = 0;
	const char *text;
	/* positions and token lengths are ints */
	size_t max = e->limits.max_source < INT_MAX ? e->limits.max_source : INT_MAX;
	*setp = NULL;
	*nsetp = 0;
	if (len > max)
		return bh_error_set(err, BH_ELIMIT, "template: %s: source is %zu bytes, over the limit of %zu",
				    name, len, max);
	text = borrow ? src : tmpl_arena_strdup(&e->parse_arena, src, len);
	if (!text)
		return bh_error_set(err, BH_ELIMIT, "template: %s: out of memory", name);
	memset(&lx, 0, sizeof(lx));
	lx.input = text;
	lx.len = len;
	lx.a = &e->parse_arena;
	memset(&p, 0, sizeof(p));
	p.e = e;
	p.a = &e->parse_arena;
	p.lex = &lx;
	p.jb = &jb;
	p.err = err;
	p.set = &set;
	p.nset = &nset;
	p.capset = &capset;
	p.max_depth = e->limits.max_parse_depth;
	p.tree = tmpl_arena_alloc(p.a, sizeof(ttree));
	if (!p.tree)
		return bh_error_set(err, BH_ELIMIT, "template: %s: out of memory", name);
	p.tree->name = tmpl_arena_strdup(p.a, name, strlen(name));
	p.tree->parse_name = p.tree->name;
	p.tree->text = text;
	p.tree->text_len = len;
	if (setjmp(jb))
		return err ? err->code : BH_EPARSE;
	e->parse_stack.n = 0;
	p.stk = &e->parse_stack;
	push_var(&p, "$");
	parse_top(&p);
	tree_add(&p);
	*setp = set;
	*nsetp = nset;
	return 0;
}

int tmpl_ns_associate(tmpl_engine *e, tmpl_ns *ns, ttree *const *set, size_t nset, const char *name,
		      bh_error *err)
{
	for (size_t i = 0; i < nset; i++) {
		ttree *t = set[i];
		ttree *old = tmpl_ns_find(ns, t->name);
		if (old && is_empty_tree(t->root))
			continue;
		if (tmpl_ns_add(e, ns, t))
			return bh_error_set(err, BH_ELIMIT, "template: %s: out of memory", name);
	}
	return 0;
}

int tmpl_parse(tmpl_engine *e, tmpl_ns *ns, const char *name, const char *src,
	       size_t len, int borrow, bh_error *err)
{
	ttree **set;
	size_t nset;
	int rc = tmpl_parse_set(e, name, src, len, borrow, &set, &nset, err);
	return rc ? rc : tmpl_ns_associate(e, ns, set, nset, name, err);
}

/* ---- Node.String() ---- */

void tnode_string(bh_buf *out, const tnode *n)
{
	int i;
	if (!n)
		return;
	switch (n->type) {
	case N_TEXT:
		bh_buf_put(out, n->text, n->len);
		break;
	case N_COMMENT:
		bh_buf_puts(out, "{{");
		bh_buf_put(out, n->text, n->len);
		bh_buf_puts(out, "}}");
		break;
	case N_LIST:
		for (i = 0; i < n->nitems; i++)
			tnode_string(out, n->items[i]);
		break;
	case N_PIPE:
		if (n->ndecl > 0) {
			for (i = 0; i < n->ndecl; i++) {
				if (i > 0)
					bh_buf_puts(out, ", ");
				tnode_string(out, n->decl[i]);
			}
			bh_buf_puts(out, n->is_assign ? " = " : " := ");
		}
		for (i = 0; i < n->nitems; i++) {
			if (i > 0)
				bh_buf_puts(out, " | ");
			tnode_string(out, n->items[i]);
		}
		break;
	case N_ACTION:
		bh_buf_puts(out, "{{");
		tnode_string(out, n->pipe);
		bh_buf_puts(out, "}}");
		break;
	case N_COMMAND:
		for (i = 0; i < n->nitems; i++) {
			if (i > 0)
				bh_buf_putc(out, ' ');
			if (n->items[i]->type == N_PIPE) {
				bh_buf_putc(out, '(');
				tnode_string(out, n->items[i]);
				bh_buf_putc(out, ')');
			} else {
				tnode_string(out, n->items[i]);
			}
		}
		break;
	case N_IDENT:
		bh_buf_puts(out, n->fn->name);
		break;
	case N_VARIABLE:
		for (i = 0; i < n->nident; i++) {
			if (i > 0)
				bh_buf_putc(out, '.');
			bh_buf_puts(out, n->ident[i]);
		}
		break;
	case N_FIELD:
		for (i = 0; i < n->nident; i++) {
			bh_buf_putc(out, '.');
			bh_buf_puts(out, n->ident[i]);
		}
		break;
	case N_CHAIN:
		if (n->node->type == N_PIPE) {
			bh_buf_putc(out, '(');
			tnode_string(out, n->node);
			bh_buf_putc(out, ')');
		} else {
			tnode_string(out, n->node);
		}
		for (i = 0; i < n->nident; i++) {
			bh_buf_putc(out, '.');
			bh_buf_puts(out, n->ident[i]);
		}
		break;
	case N_DOT:
		bh_buf_putc(out, '.');
		break;
	case N_NIL:
		bh_buf_puts(out, "nil");
		break;
	case N_BOOL:
		bh_buf_puts(out, n->b ? "true" : "false");
		break;
	case N_NUMBER:
		bh_buf_put(out, n->text, n->len);
		break;
	case N_STRING:
		bh_buf_put(out, n->quoted, n->qlen);
		break;
	case N_END:
		bh_buf_puts(out, "{{end}}");
		break;
	case N_ELSE:
		bh_buf_puts(out, "{{else}}");
		break;
	case N_BREAK:
		bh_buf_puts(out, "{{break}}");
		break;
	case N_CONTINUE:
		bh_buf_puts(out, "{{continue}}");
		break;
	case N_IF:
	case N_RANGE:
	case N_WITH:
		bh_buf_puts(out, "{{");
		bh_buf_puts(out, n->type == N_IF ? "if" : n->type == N_RANGE ? "range" : "with");
		bh_buf_putc(out, ' ');
		tnode_string(out, n->pipe);
		bh_buf_puts(out, "}}");
		tnode_string(out, n->list);
		if (n->else_list) {
			bh_buf_puts(out, "{{else}}");
			tnode_string(out, n->else_list);
		}
		bh_buf_puts(out, "{{end}}");
		break;
	case N_TEMPLATE:
		bh_buf_puts(out, "{{template ");
		gofmt_quote(out, n->name, strlen(n->name));
		if (n->pipe) {
			bh_buf_putc(out, ' ');
			tnode_string(out, n->pipe);
		}
		bh_buf_puts(out, "}}");
		break;
	}
}
