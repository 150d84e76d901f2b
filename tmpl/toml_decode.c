/* tmpl/toml_decode.c — a TOML reader that behaves as BurntSushi/toml v1.6.0
 * decoding into map[string]interface{} (see toml.h): its lexer's states, the
 * order in which the parser pulls items, and its error texts, so a document
 * is refused at the same place with the same words ("toml: line N (last key
 * \"k\"): ..."). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gostrconv.h"
#include "tmpl/gotime.h"
#include "tmpl/gotime_zone.h"
#include "tmpl/sprig_unicode.h"
#include "tmpl/toml.h"

enum {
	itemError, itemEOF, itemText, itemString, itemStringEsc, itemRawString, itemMultilineString,
	itemRawMultilineString, itemBool, itemInteger, itemFloat, itemDatetime, itemArray, itemArrayEnd,
	itemTableStart, itemTableEnd, itemArrayTableStart, itemArrayTableEnd, itemKeyStart, itemKeyEnd,
	itemCommentStart, itemInlineTableStart, itemInlineTableEnd
};

typedef struct item {
	int typ;
	int line;
	const char *val; /* a slice of the input, or the error message */
	size_t len;
} item;

#define QCAP 16
#define STACK_MAX (2 * TOML_MAX_DEPTH + 16)

typedef struct lexer lexer;
typedef struct stfn stfn;
struct stfn {
	stfn (*f)(lexer *);
};

struct lexer {
	const char *input;
	size_t n, start, pos;
	int line;
	stfn state;
	item q[QCAP];
	int qhead, qlen;
	int esc;
	size_t prevWidths[4];
	int nprev, atEOF;
	stfn *stack; /* grown as needed, up to STACK_MAX */
	int nstack, stack_cap;
	tmpl_arena *a;
	jmp_buf *jb;
	bh_error *err;
};

#define S(fn) ((stfn){fn})
#define NIL ((stfn){NULL})

static void lx_limit(lexer *lx, const char *what)
{
	if (!strcmp(what, "keys"))
		bh_error_set(lx->err, BH_ELIMIT, "toml: keys of more than %d parts", TOML_MAX_KEY_PARTS);
	else
		bh_error_set(lx->err, BH_ELIMIT, "toml: %s nested deeper than %d", what, TOML_MAX_DEPTH);
	longjmp(*lx->jb, 1);
}

static void lx_oom(lexer *lx)
{
	bh_error_set(lx->err, BH_ENOMEM, "out of memory");
	longjmp(*lx->jb, 1);
}

static void push_item(lexer *lx, item it)
{
	if (lx->qlen == QCAP) /* Go's channel would block; no state emits this many */
		lx_limit(lx, "lexer items");
	lx->q[(lx->qhead + lx->qlen) % QCAP] = it;
	lx->qlen++;
}

static void lx_push(lexer *lx, stfn s)
{
	if (lx->nstack == lx->stack_cap) {
		if (lx->nstack >= STACK_MAX)
			lx_limit(lx, "values");
		int cap = lx->stack_cap ? lx->stack_cap * 2 : 64;
		stfn *ns = realloc(lx->stack, (size_t)cap * sizeof *ns);
		if (!ns)
			lx_oom(lx);
		lx->stack = ns;
		lx->stack_cap = cap;
	}
	lx->stack[lx->nstack++] = s;
}

static stfn lx_pop(lexer *lx)
{
	return lx->nstack ? lx->stack[--lx->nstack] : NIL;
}

/* vsnprintf's length, cut to what buf holds */
static size_t vformat(char *buf, size_t cap, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
static size_t vformat(char *buf, size_t cap, const char *fmt, va_list ap)
{
	int k = vsnprintf(buf, cap, fmt, ap);
	return k < 0 ? 0 : (size_t)k >= cap ? cap - 1 : (size_t)k;
}

/* an error item at line; the message formatted into the arena */
static stfn lx_err_at(lexer *lx, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static stfn lx_err_at(lexer *lx, int line, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	size_t k = vformat(buf, sizeof buf, fmt, ap);
	va_end(ap);
	char *m = tmpl_arena_strdup(lx->a, buf, k);
	if (!m)
		lx_oom(lx);
	push_item(lx, (item){itemError, line, m, k});
	return NIL;
}

/* lx.error(err): on EOF the previous line (errorPrevLine) */
#define lx_error(lx, ...) lx_err_at(lx, (lx)->atEOF ? (lx)->line - 1 : (lx)->line, __VA_ARGS__)
#define lx_error_prevline(lx, ...) lx_err_at(lx, (lx)->line - 1, __VA_ARGS__)
/* lx.errorf: on EOF the line of the last byte */
#define lx_errorf(lx, ...)                                                                                   \
	lx_err_at(lx, (lx)->atEOF && (lx)->pos >= 1 && (lx)->input[(lx)->pos - 1] == '\n' ? (lx)->line - 1     \
											   : (lx)->line,       \
		  __VA_ARGS__)

/* Go's %q of a rune into a small buffer */
typedef struct qbuf {
	char s[64];
} qbuf;

static const char *qrune(qbuf *q, int32_t r)
{
	bh_buf b = BH_BUF_INIT;
	bh_buf_putc(&b, '\'');
	go_quote_rune(&b, r, '\'', 0);
	bh_buf_putc(&b, '\'');
	snprintf(q->s, sizeof q->s, "%s", bh_buf_ok(&b) ? bh_buf_str(&b) : "");
	bh_buf_free(&b);
	return q->s;
}

/* Go's %q of a string, in the arena */
static const char *qstr(lexer *lx, const char *s, size_t n)
{
	bh_buf b = BH_BUF_INIT;
	go_quote(&b, s, n, '"', 0);
	char *r = bh_buf_ok(&b) ? tmpl_arena_strdup(lx->a, bh_buf_str(&b), b.len) : NULL;
	bh_buf_free(&b);
	if (!r)
		lx_oom(lx);
	return r;
}

/* utf8.DecodeRuneInString: (RuneError, 1) for a byte that starts no valid rune */
static int32_t decode_rune(const unsigned char *s, size_t n, size_t *w)
{
	unsigned c = s[0];
	*w = 1;
	if (c < 0x80)
		return (int32_t)c;
	int need;
	int32_t r, min;
	if (c >= 0xC2 && c <= 0xDF) {
		need = 1, r = c & 0x1F, min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		need = 2, r = c & 0x0F, min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 3, r = c & 0x07, min = 0x10000;
	} else {
		return 0xFFFD;
	}
	if ((size_t)need >= n)
		return 0xFFFD;
	for (int i = 1; i <= need; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0xFFFD;
		r = (r << 6) | (s[i] & 0x3F);
	}
	if (r < min || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF))
		return 0xFFFD;
	*w = (size_t)need + 1;
	return r;
}

static int isWhitespace(int32_t r) { return r == '\t' || r == ' '; }
static int isNL(int32_t r) { return r == '\n' || r == '\r'; }
static int isControl(int32_t r) { return r != '\t' && r != '\r' && r != '\n' && ((r >= 0 && r <= 0x1f) || r == 0x7f); }
static int isDigit(int32_t r) { return r >= '0' && r <= '9'; }
static int isBinary(int32_t r) { return r == '0' || r == '1'; }
static int isOctal(int32_t r) { return r >= '0' && r <= '7'; }
static int isHex(int32_t r) { return (r >= '0' && r <= '9') || ((r | 0x20) >= 'a' && (r | 0x20) <= 'f'); }
static int isBareKeyChar(int32_t r)
{
	return (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '_' || r == '-';
}





static int32_t lx_next(lexer *lx)
{
	if (lx->atEOF)
		return 0;
	if (lx->pos >= lx->n) {
		lx->atEOF = 1;
		return 0;
	}
	if (lx->input[lx->pos] == '\n')
		lx->line++;
	lx->prevWidths[3] = lx->prevWidths[2];
	lx->prevWidths[2] = lx->prevWidths[1];
	lx->prevWidths[1] = lx->prevWidths[0];
	if (lx->nprev < 4)
		lx->nprev++;
	size_t w;
	int32_t r = decode_rune((const unsigned char *)lx->input + lx->pos, lx->n - lx->pos, &w);
	if (r == 0xFFFD && w == 1) {
		lx_error(lx, "invalid UTF-8 byte: 0x%02x", (unsigned char)lx->input[lx->pos]);
		return 0xFFFD;
	}
	if (isControl(r) || (r == '\r' && (lx->n - 1 == lx->pos || lx->input[lx->pos + 1] != '\n'))) {
		lx_err_at(lx, lx->line, "TOML files cannot contain control characters: '0x%02x'", (unsigned)r);
		return 0xFFFD;
	}
	lx->prevWidths[0] = w;
	lx->pos += w;
	return r;
}

static void lx_ignore(lexer *lx) { lx->start = lx->pos; }

static void lx_backup(lexer *lx)
{
	if (lx->atEOF) {
		lx->atEOF = 0;
		return;
	}
	if (lx->nprev < 1)
		return;
	size_t w = lx->prevWidths[0];
	lx->prevWidths[0] = lx->prevWidths[1];
	lx->prevWidths[1] = lx->prevWidths[2];
	lx->prevWidths[2] = lx->prevWidths[3];
	lx->nprev--;
	lx->pos -= w;
	if (lx->pos < lx->n && lx->input[lx->pos] == '\n')
		lx->line--;
}

static int lx_accept(lexer *lx, int32_t valid)
{
	if (lx_next(lx) == valid)
		return 1;
	lx_backup(lx);
	return 0;
}

static int32_t lx_peek(lexer *lx)
{
	int32_t r = lx_next(lx);
	lx_backup(lx);
	return r;
}

static void lx_skip(lexer *lx, int (*pred)(int32_t))
{
	for (;;) {
		int32_t r = lx_next(lx);
		if (pred(r))
			continue;
		lx_backup(lx);
		lx_ignore(lx);
		return;
	}
}

static void lx_emit(lexer *lx, int typ)
{
	if (lx->start > lx->pos) {
		lx_error(lx, "invalid UTF-8 byte: 0x%02x", (unsigned char)lx->input[lx->pos]);
		return;
	}
	push_item(lx, (item){typ, lx->line, lx->input + lx->start, lx->pos - lx->start});
	lx->start = lx->pos;
}

static void lx_emit_trim(lexer *lx, int typ)
{
	const char *s = lx->input + lx->start;
	size_t n = lx->pos - lx->start;
	while (n && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	push_item(lx, (item){typ, lx->line, s, n});
	lx->start = lx->pos;
}

static const char *cur(lexer *lx) { return lx->input + lx->start; }
static int curlen(lexer *lx) { return (int)(lx->pos - lx->start); }

/* ---- lexer states (lex.go) ---- */

static stfn lexTop(lexer *lx);
static stfn lexTopEnd(lexer *lx);
static stfn lexTableStart(lexer *lx);
static stfn lexTableEnd(lexer *lx);
static stfn lexArrayTableEnd(lexer *lx);
static stfn lexTableNameStart(lexer *lx);
static stfn lexTableNameEnd(lexer *lx);
static stfn lexBareName(lexer *lx);
static stfn lexQuotedName(lexer *lx);
static stfn lexKeyStart(lexer *lx);
static stfn lexKeyNameStart(lexer *lx);
static stfn lexKeyEnd(lexer *lx);
static stfn lexValue(lexer *lx);
static stfn lexArrayValue(lexer *lx);
static stfn lexArrayValueEnd(lexer *lx);
static stfn lexArrayEnd(lexer *lx);
static stfn lexInlineTableValue(lexer *lx);
static stfn lexInlineTableValueEnd(lexer *lx);
static stfn lexInlineTableEnd(lexer *lx);
static stfn lexString(lexer *lx);
static stfn lexMultilineString(lexer *lx);
static stfn lexRawString(lexer *lx);
static stfn lexMultilineRawString(lexer *lx);
static stfn lexMultilineStringEscape(lexer *lx);
static stfn lexStringEscape(lexer *lx);
static stfn lexHexEscape(lexer *lx);
static stfn lexShortUnicodeEscape(lexer *lx);
static stfn lexLongUnicodeEscape(lexer *lx);
static stfn lexNumberOrDateStart(lexer *lx);
static stfn lexNumberOrDate(lexer *lx);
static stfn lexDatetime(lexer *lx);
static stfn lexHexInteger(lexer *lx);
static stfn lexOctalInteger(lexer *lx);
static stfn lexBinaryInteger(lexer *lx);
static stfn lexDecimalNumber(lexer *lx);
static stfn lexDecimalNumberStart(lexer *lx);
static stfn lexBaseNumberOrDate(lexer *lx);
static stfn lexFloat(lexer *lx);
static stfn lexBool(lexer *lx);
static stfn lexCommentStart(lexer *lx);
static stfn lexComment(lexer *lx);

/* the last rune read is not the token's: the token before it is emitted */
static stfn emit_before(lexer *lx, int typ)
{
	lx_backup(lx);
	lx_emit(lx, typ);
	return lx_pop(lx);
}

static stfn lexSkip(lexer *lx, stfn next)
{
	lx_ignore(lx);
	return next;
}

static stfn lexTop(lexer *lx)
{
	int32_t r = lx_next(lx);
	if (isWhitespace(r) || isNL(r))
		return lexSkip(lx, S(lexTop));
	switch (r) {
	case '#':
		lx_push(lx, S(lexTop));
		return S(lexCommentStart);
	case '[':
		return S(lexTableStart);
	case 0:
		if (lx->pos > lx->start)
			return lx_errorf(lx, "unexpected EOF");
		lx_emit(lx, itemEOF);
		return NIL;
	}
	lx_backup(lx);
	lx_push(lx, S(lexTopEnd));
	return S(lexKeyStart);
}

static stfn lexTopEnd(lexer *lx)
{
	qbuf q;
	int32_t r = lx_next(lx);
	if (r == '#') {
		lx_push(lx, S(lexTop));
		return S(lexCommentStart);
	}
	if (isWhitespace(r))
		return S(lexTopEnd);
	if (isNL(r)) {
		lx_ignore(lx);
		return S(lexTop);
	}
	if (r == 0) {
		lx_emit(lx, itemEOF);
		return NIL;
	}
	return lx_errorf(lx, "expected a top-level item to end with a newline, comment, or EOF, but got %s instead",
			 qrune(&q, r));
}

static stfn lexTableStart(lexer *lx)
{
	if (lx_peek(lx) == '[') {
		lx_next(lx);
		lx_emit(lx, itemArrayTableStart);
		lx_push(lx, S(lexArrayTableEnd));
	} else {
		lx_emit(lx, itemTableStart);
		lx_push(lx, S(lexTableEnd));
	}
	return S(lexTableNameStart);
}

static stfn lexTableEnd(lexer *lx)
{
	lx_emit(lx, itemTableEnd);
	return S(lexTopEnd);
}

static stfn lexArrayTableEnd(lexer *lx)
{
	qbuf q;
	int32_t r = lx_next(lx);
	if (r != ']')
		return lx_errorf(lx, "expected end of table array name delimiter ']', but got %s instead", qrune(&q, r));
	lx_emit(lx, itemArrayTableEnd);
	return S(lexTopEnd);
}

static stfn lexTableNameStart(lexer *lx)
{
	lx_skip(lx, isWhitespace);
	int32_t r = lx_peek(lx);
	if (r == ']' || r == 0)
		return lx_errorf(lx, "unexpected end of table name (table names cannot be empty)");
	if (r == '.')
		return lx_errorf(lx, "unexpected table separator (table names cannot be empty)");
	if (r == '"' || r == '\'') {
		lx_ignore(lx);
		lx_push(lx, S(lexTableNameEnd));
		return S(lexQuotedName);
	}
	lx_push(lx, S(lexTableNameEnd));
	return S(lexBareName);
}

static stfn lexTableNameEnd(lexer *lx)
{
	qbuf q;
	lx_skip(lx, isWhitespace);
	int32_t r = lx_next(lx);
	if (r == '.') {
		lx_ignore(lx);
		return S(lexTableNameStart);
	}
	if (r == ']')
		return lx_pop(lx);
	return lx_errorf(lx, "expected '.' or ']' to end table name, but got %s instead", qrune(&q, r));
}

static stfn lexBareName(lexer *lx)
{
	int32_t r = lx_next(lx);
	if (isBareKeyChar(r))
		return S(lexBareName);
	return emit_before(lx, itemText);
}

static stfn lexQuotedName(lexer *lx)
{
	qbuf q;
	int32_t r = lx_next(lx);
	if (r == '"') {
		lx_ignore(lx);
		return S(lexString);
	}
	if (r == '\'') {
		lx_ignore(lx);
		return S(lexRawString);
	}
	if (isWhitespace(r))
		return lexSkip(lx, S(lexValue));
	if (r == 0)
		return lx_errorf(lx, "unexpected EOF; expected value");
	return lx_errorf(lx, "expected value but found %s instead", qrune(&q, r));
}

static stfn lexKeyStart(lexer *lx)
{
	lx_skip(lx, isWhitespace);
	int32_t r = lx_peek(lx);
	if (r == '=' || r == 0)
		return lx_errorf(lx, "unexpected '=': key name appears blank");
	if (r == '.')
		return lx_errorf(lx, "unexpected '.': keys cannot start with a '.'");
	if (r == '"' || r == '\'')
		lx_ignore(lx);
	lx_emit(lx, itemKeyStart);
	return S(lexKeyNameStart);
}

static stfn lexKeyNameStart(lexer *lx)
{
	lx_skip(lx, isWhitespace);
	int32_t r = lx_peek(lx);
	if (r == '"' || r == '\'') {
		lx_ignore(lx);
		lx_push(lx, S(lexKeyEnd));
		return S(lexQuotedName);
	}
	if (r == '=' || r == 0)
		return lx_errorf(lx, "unexpected '='");
	if (r == '.')
		return lx_errorf(lx, "unexpected '.'");
	lx_push(lx, S(lexKeyEnd));
	return S(lexBareName);
}

static stfn lexKeyEnd(lexer *lx)
{
	qbuf q;
	lx_skip(lx, isWhitespace);
	int32_t r = lx_next(lx);
	if (isWhitespace(r))
		return lexSkip(lx, S(lexKeyEnd));
	if (r == 0)
		return lx_errorf(lx, "unexpected EOF; expected key separator '='");
	if (r == '.') {
		lx_ignore(lx);
		return S(lexKeyNameStart);
	}
	if (r == '=') {
		lx_emit(lx, itemKeyEnd);
		return lexSkip(lx, S(lexValue));
	}
	if (r == '\n')
		return lx_error_prevline(lx, "expected '.' or '=', but got %s instead", qrune(&q, r));
	return lx_errorf(lx, "expected '.' or '=', but got %s instead", qrune(&q, r));
}

/* after a quote q: two more start a multi-line string */
static stfn string_start(lexer *lx, int32_t q, stfn multi, stfn single)
{
	if (lx_accept(lx, q)) {
		if (lx_accept(lx, q)) {
			lx_ignore(lx);
			return multi;
		}
		lx_backup(lx);
	}
	lx_ignore(lx);
	return single;
}

static stfn lexValue(lexer *lx)
{
	qbuf q;
	int32_t r = lx_next(lx);
	if (isWhitespace(r))
		return lexSkip(lx, S(lexValue));
	if (isDigit(r)) {
		lx_backup(lx);
		return S(lexNumberOrDateStart);
	}
	switch (r) {
	case '[':
		lx_ignore(lx);
		lx_emit(lx, itemArray);
		return S(lexArrayValue);
	case '{':
		lx_ignore(lx);
		lx_emit(lx, itemInlineTableStart);
		return S(lexInlineTableValue);
	case '"':
		return string_start(lx, '"', S(lexMultilineString), S(lexString));
	case '\'':
		return string_start(lx, '\'', S(lexMultilineRawString), S(lexRawString));
	case '.':
		return lx_errorf(lx, "floats must start with a digit, not '.'");
	case 'i':
	case 'n':
		if ((lx_accept(lx, 'n') && lx_accept(lx, 'f')) || (lx_accept(lx, 'a') && lx_accept(lx, 'n'))) {
			lx_emit(lx, itemFloat);
			return lx_pop(lx);
		}
		break;
	case '-':
	case '+':
		return S(lexDecimalNumberStart);
	}
	if (r > 0 && uni_is_letter((uint32_t)r)) {
		lx_backup(lx);
		return S(lexBool);
	}
	if (r == 0)
		return lx_errorf(lx, "unexpected EOF; expected value");
	if (r == '\n')
		return lx_error_prevline(lx, "expected value but found %s instead", qrune(&q, r));
	return lx_errorf(lx, "expected value but found %s instead", qrune(&q, r));
}

/* lexArrayEnd, lexInlineTableEnd: the closer has been read */
static stfn container_end(lexer *lx, int typ)
{
	lx_ignore(lx);
	lx_emit(lx, typ);
	return lx_pop(lx);
}

/* in arrays and inline tables: a blank or newline is skipped, a comment
 * read before self goes on */
static stfn blank_or_comment(lexer *lx, int32_t r, stfn self)
{
	if (r != '#')
		return lexSkip(lx, self);
	lx_push(lx, self);
	return S(lexCommentStart);
}

/* lexArrayValue and lexInlineTableValue: blanks, comments and a misplaced
 * comma, then the closer (end) or an item read by item with itemEnd after */
static stfn container_value(lexer *lx, stfn self, int32_t close, stfn end, stfn itemEnd, stfn item)
{
	int32_t r = lx_next(lx);
	if (isWhitespace(r) || isNL(r) || r == '#')
		return blank_or_comment(lx, r, self);
	if (r == ',')
		return lx_errorf(lx, "unexpected comma");
	if (r == close)
		return end;
	lx_backup(lx);
	lx_push(lx, itemEnd);
	return item;
}

static stfn lexArrayValue(lexer *lx)
{
	return container_value(lx, S(lexArrayValue), ']', S(lexArrayEnd), S(lexArrayValueEnd), S(lexValue));
}

/* runeOrEOF */
static const char *rune_or_eof(qbuf *q, int32_t r)
{
	if (r == 0)
		return "end of file";
	bh_buf b = BH_BUF_INIT;
	bh_buf_putc(&b, '\'');
	go_append_rune(&b, r);
	bh_buf_putc(&b, '\'');
	snprintf(q->s, sizeof q->s, "%s", bh_buf_ok(&b) ? bh_buf_str(&b) : "");
	bh_buf_free(&b);
	return q->s;
}

static stfn lexArrayValueEnd(lexer *lx)
{
	qbuf q;
	int32_t r = lx_next(lx);
	if (isWhitespace(r) || isNL(r) || r == '#')
		return blank_or_comment(lx, r, S(lexArrayValueEnd));
	if (r == ',') {
		lx_ignore(lx);
		return S(lexArrayValue);
	}
	if (r == ']')
		return S(lexArrayEnd);
	return lx_errorf(lx, "expected a comma (',') or array terminator (']'), but got %s", rune_or_eof(&q, r));
}

static stfn lexArrayEnd(lexer *lx)
{
	return container_end(lx, itemArrayEnd);
}

static stfn lexInlineTableValue(lexer *lx)
{
	return container_value(lx, S(lexInlineTableValue), '}', S(lexInlineTableEnd), S(lexInlineTableValueEnd),
			       S(lexKeyStart));
}

static stfn lexInlineTableValueEnd(lexer *lx)
{
	qbuf q;
	int32_t r = lx_next(lx);
	if (isWhitespace(r) || isNL(r) || r == '#')
		return blank_or_comment(lx, r, S(lexInlineTableValueEnd));
	if (r == ',') {
		lx_ignore(lx);
		lx_skip(lx, isWhitespace);
		if (lx_peek(lx) == '}')
			return S(lexInlineTableValueEnd);
		return S(lexInlineTableValue);
	}
	if (r == '}')
		return S(lexInlineTableEnd);
	return lx_errorf(lx, "expected a comma or an inline table terminator '}', but got %s instead",
			 rune_or_eof(&q, r));
}

static stfn lexInlineTableEnd(lexer *lx)
{
	return container_end(lx, itemInlineTableEnd);
}

static stfn lexString(lexer *lx)
{
	int32_t r = lx_next(lx);
	if (r == 0)
		return lx_errorf(lx, "unexpected EOF; expected '\"'");
	if (isNL(r))
		return lx_error_prevline(lx, "strings cannot contain newlines");
	if (r == '\\') {
		lx_push(lx, S(lexString));
		return S(lexStringEscape);
	}
	if (r == '"') {
		lx_backup(lx);
		if (lx->esc) {
			lx->esc = 0;
			lx_emit(lx, itemStringEsc);
		} else {
			lx_emit(lx, itemString);
		}
		lx_next(lx);
		lx_ignore(lx);
		return lx_pop(lx);
	}
	return S(lexString);
}

static int cur_has_suffix(lexer *lx, const char *suf)
{
	size_t k = strlen(suf), n = lx->pos - lx->start;
	return n >= k && memcmp(lx->input + lx->pos - k, suf, k) == 0;
}

/* A quote q inside a multi-line string: three end it, but up to two more
 * before the closing three belong to the text, six are an error */
static stfn ml_quote(lexer *lx, int32_t q, stfn self, int typ)
{
	if (lx_accept(lx, q)) {
		if (lx_accept(lx, q)) {
			if (lx_peek(lx) == q) {
				if (q == '"' && cur_has_suffix(lx, "\"\"\"\"\"") && !cur_has_suffix(lx, "\\\"\"\"\"\""))
					return lx_errorf(lx, "unexpected '\"\"\"\"\"\"'");
				if (q == '\'' && cur_has_suffix(lx, "'''''"))
					return lx_errorf(lx, "unexpected \"''''''\"");
				lx_backup(lx);
				lx_backup(lx);
				return self;
			}
			lx_backup(lx); /* the closing quotes are not in the item */
			lx_backup(lx);
			lx_backup(lx);
			if (q == '"')
				lx->esc = 0;
			lx_emit(lx, typ);
			lx_next(lx);
			lx_next(lx);
			lx_next(lx);
			lx_ignore(lx);
			return lx_pop(lx);
		}
		lx_backup(lx);
	}
	return self;
}

static stfn lexMultilineString(lexer *lx)
{
	int32_t r = lx_next(lx);
	switch (r) {
	default:
		return S(lexMultilineString);
	case 0:
		return lx_errorf(lx, "unexpected EOF; expected '\"\"\"'");
	case '\\':
		return S(lexMultilineStringEscape);
	case '"':
		return ml_quote(lx, '"', S(lexMultilineString), itemMultilineString);
	}
}

static stfn lexRawString(lexer *lx)
{
	int32_t r = lx_next(lx);
	if (r == 0)
		return lx_errorf(lx, "unexpected EOF; expected \"'\"");
	if (isNL(r))
		return lx_error_prevline(lx, "strings cannot contain newlines");
	if (r == '\'') {
		lx_backup(lx);
		lx_emit(lx, itemRawString);
		lx_next(lx);
		lx_ignore(lx);
		return lx_pop(lx);
	}
	return S(lexRawString);
}

static stfn lexMultilineRawString(lexer *lx)
{
	int32_t r = lx_next(lx);
	if (r == 0)
		return lx_errorf(lx, "unexpected EOF; expected \"'''\"");
	if (r == '\'')
		return ml_quote(lx, '\'', S(lexMultilineRawString), itemRawMultilineString);
	return S(lexMultilineRawString);
}

static stfn lexMultilineStringEscape(lexer *lx)
{
	if (isNL(lx_next(lx)))
		return S(lexMultilineString);
	lx_backup(lx);
	lx_push(lx, S(lexMultilineString));
	return lexStringEscape(lx);
}

static stfn lexStringEscape(lexer *lx)
{
	lx->esc = 1;
	int32_t r = lx_next(lx);
	switch (r) {
	case 'e': case 'b': case 't': case 'n': case 'f': case 'r': case '"': case ' ': case '\t': case '\\':
		return lx_pop(lx);
	case 'x':
		return S(lexHexEscape);
	case 'u':
		return S(lexShortUnicodeEscape);
	case 'U':
		return S(lexLongUnicodeEscape);
	}
	if (r < 0x80) /* %c: EOF is a NUL byte */
		return lx_error(lx, "invalid escape in string '\\%c'", (char)r);
	bh_buf b = BH_BUF_INIT;
	go_append_rune(&b, r);
	stfn s = lx_error(lx, "invalid escape in string '\\%s'", bh_buf_ok(&b) ? bh_buf_str(&b) : "");
	bh_buf_free(&b);
	return s;
}

static stfn hex_escape(lexer *lx, int n, const char *what, char c)
{
	for (int i = 0; i < n; i++) {
		int32_t r = lx_next(lx);
		if (!isHex(r))
			return lx_errorf(lx, "expected %s hexadecimal digits after '\\%c', but got %s instead", what, c,
					 qstr(lx, cur(lx), (size_t)curlen(lx)));
	}
	return lx_pop(lx);
}

static stfn lexHexEscape(lexer *lx) { return hex_escape(lx, 2, "two", 'x'); }
static stfn lexShortUnicodeEscape(lexer *lx) { return hex_escape(lx, 4, "four", 'u'); }
static stfn lexLongUnicodeEscape(lexer *lx) { return hex_escape(lx, 8, "eight", 'U'); }

static stfn lexNumberOrDateStart(lexer *lx)
{
	if (lx_next(lx) == '0')
		return S(lexBaseNumberOrDate);
	return S(lexNumberOrDate);
}

static stfn lexNumberOrDate(lexer *lx)
{
	int32_t r = lx_next(lx);
	if (isDigit(r))
		return S(lexNumberOrDate);
	switch (r) {
	case '-':
	case ':':
		return S(lexDatetime);
	case '_':
		return S(lexDecimalNumber);
	case '.':
	case 'e':
	case 'E':
		return S(lexFloat);
	}
	return emit_before(lx, itemInteger);
}

static stfn lexDatetime(lexer *lx)
{
	int32_t r = lx_next(lx);
	if (isDigit(r))
		return S(lexDatetime);
	switch (r) {
	case '-': case ':': case 'T': case 't': case ' ': case '.': case 'Z': case 'z': case '+':
		return S(lexDatetime);
	}
	lx_backup(lx);
	lx_emit_trim(lx, itemDatetime);
	return lx_pop(lx);
}

/* hex, octal and binary integers after their prefix */
static stfn based_integer(lexer *lx, int (*digit)(int32_t), stfn self)
{
	int32_t r = lx_next(lx);
	if (digit(r) || r == '_')
		return self;
	return emit_before(lx, itemInteger);
}

static stfn lexHexInteger(lexer *lx) { return based_integer(lx, isHex, S(lexHexInteger)); }
static stfn lexOctalInteger(lexer *lx) { return based_integer(lx, isOctal, S(lexOctalInteger)); }
static stfn lexBinaryInteger(lexer *lx) { return based_integer(lx, isBinary, S(lexBinaryInteger)); }

static stfn lexDecimalNumber(lexer *lx)
{
	int32_t r = lx_next(lx);
	if (isDigit(r))
		return S(lexDecimalNumber);
	switch (r) {
	case '.':
	case 'e':
	case 'E':
		return S(lexFloat);
	case '_':
		return S(lexDecimalNumber);
	}
	return emit_before(lx, itemInteger);
}

static stfn lexDecimalNumberStart(lexer *lx)
{
	qbuf q;
	int32_t r = lx_next(lx);
	switch (r) {
	case 'i':
		if (!lx_accept(lx, 'n') || !lx_accept(lx, 'f'))
			return lx_errorf(lx, "invalid float: '%.*s'", curlen(lx), cur(lx));
		lx_emit(lx, itemFloat);
		return lx_pop(lx);
	case 'n':
		if (!lx_accept(lx, 'a') || !lx_accept(lx, 'n'))
			return lx_errorf(lx, "invalid float: '%.*s'", curlen(lx), cur(lx));
		lx_emit(lx, itemFloat);
		return lx_pop(lx);
	case '0': {
		int32_t p = lx_peek(lx);
		if (p == 'b' || p == 'o' || p == 'x')
			return lx_errorf(lx, "cannot use sign with non-decimal numbers: '%.*s%c'", curlen(lx), cur(lx),
					 (char)p);
		break;
	}
	case '.':
		return lx_errorf(lx, "floats must start with a digit, not '.'");
	}
	if (isDigit(r))
		return S(lexDecimalNumber);
	return lx_errorf(lx, "expected a digit but got %s", qrune(&q, r));
}

/* 0b, 0o, 0x: a prefix without a digit is an error item, but lexing goes on */
static stfn base_prefix(lexer *lx, int (*digit)(int32_t), const char *what, stfn next)
{
	int32_t r = lx_peek(lx);
	if (digit(r))
		return next;
	if (r < 0x80) { /* %c: EOF is a NUL byte */
		lx_errorf(lx, "not a%s number: '%.*s%c'", what, curlen(lx), cur(lx), (char)r);
	} else {
		bh_buf b = BH_BUF_INIT;
		go_append_rune(&b, r);
		lx_errorf(lx, "not a%s number: '%.*s%s'", what, curlen(lx), cur(lx), bh_buf_ok(&b) ? bh_buf_str(&b) : "");
		bh_buf_free(&b);
	}
	return next;
}

static stfn lexBaseNumberOrDate(lexer *lx)
{
	int32_t r = lx_next(lx);
	if (isDigit(r))
		return S(lexNumberOrDate);
	switch (r) {
	case '_':
		return S(lexDecimalNumber);
	case '.':
	case 'e':
	case 'E':
		return S(lexFloat);
	case 'b':
		return base_prefix(lx, isBinary, " binary", S(lexBinaryInteger));
	case 'o':
		return base_prefix(lx, isOctal, "n octal", S(lexOctalInteger));
	case 'x':
		return base_prefix(lx, isHex, " hexadecimal", S(lexHexInteger));
	}
	return emit_before(lx, itemInteger);
}

static stfn lexFloat(lexer *lx)
{
	int32_t r = lx_next(lx);
	if (isDigit(r))
		return S(lexFloat);
	switch (r) {
	case '_': case '.': case '-': case '+': case 'e': case 'E':
		return S(lexFloat);
	}
	return emit_before(lx, itemFloat);
}

static stfn lexBool(lexer *lx)
{
	bh_buf rs = BH_BUF_INIT;
	for (;;) {
		int32_t r = lx_next(lx);
		if (!(r > 0 && uni_is_letter((uint32_t)r))) {
			lx_backup(lx);
			break;
		}
		go_append_rune(&rs, r);
	}
	const char *s = bh_buf_ok(&rs) && rs.len ? bh_buf_str(&rs) : "";
	if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0) {
		bh_buf_free(&rs);
		lx_emit(lx, itemBool);
		return lx_pop(lx);
	}
	const char *qs = qstr(lx, s, strlen(s));
	bh_buf_free(&rs);
	return lx_errorf(lx, "expected value but found %s instead", qs);
}

static stfn lexCommentStart(lexer *lx)
{
	lx_ignore(lx);
	lx_emit(lx, itemCommentStart);
	return S(lexComment);
}

static stfn lexComment(lexer *lx)
{
	int32_t r = lx_next(lx);
	if (isNL(r) || r == 0) {
		return emit_before(lx, itemText);
	}
	return S(lexComment);
}

static item lx_next_item(lexer *lx)
{
	for (;;) {
		if (lx->qlen) {
			item it = lx->q[lx->qhead];
			lx->qhead = (lx->qhead + 1) % QCAP;
			lx->qlen--;
			return it;
		}
		if (!lx->state.f) /* cannot happen: a nil state follows an error item */
			return (item){itemEOF, lx->line, "", 0};
		lx->state = lx->state.f(lx);
	}
}

/* ---- parser (parse.go) ---- */

typedef struct kstr {
	const char *s;
	size_t n;
} kstr;

typedef struct Key {
	kstr *p;
	int n;
} Key;

static const char AOT_TYPE[] = "[]map[string]interface {}";

typedef struct parser {
	lexer lx;
	tmpl_arena *a;
	bh_error *err;
	jmp_buf jb;
	Key context;
	kstr currentKey;
	int posline; /* p.pos */
	tmpl_map *mapping;
	tmpl_map *implicits; /* Key.String() -> true */
	tmpl_map *arrays;    /* Key.String() of keys whose keyInfo type is Array */
	struct vframe *vs; /* value()'s arrays and inline tables being read */
	size_t nvs, vcap;
	bh_buf sb;         /* scratch */
	tmpl_value *msgout; /* the whole error message, NUL bytes too */
} parser;

static void p_oom(parser *p)
{
	lx_oom(&p->lx);
}

static Key key_add(parser *p, Key k, kstr piece)
{
	if (k.n >= TOML_MAX_KEY_PARTS)
		lx_limit(&p->lx, "keys");
	Key r = {tmpl_arena_alloc(p->a, sizeof(kstr) * (size_t)(k.n + 1)), k.n + 1};
	if (!r.p)
		p_oom(p);
	if (k.n)
		memcpy(r.p, k.p, sizeof(kstr) * (size_t)k.n);
	r.p[k.n] = piece;
	return r;
}

static Key key_prefix(Key k, int n)
{
	k.n = n;
	return k;
}

static void key_part_string(bh_buf *b, kstr kk)
{
	if (kk.n == 0) {
		bh_buf_puts(b, "\"\"");
		return;
	}
	int bare = 1;
	for (size_t j = 0; j < kk.n && bare; j++)
		bare = isBareKeyChar((unsigned char)kk.s[j]);
	if (bare) {
		bh_buf_put(b, kk.s, kk.n);
	} else {
		bh_buf_putc(b, '"');
		toml_dbl_quoted(b, kk.s, kk.n);
		bh_buf_putc(b, '"');
	}
}

/* Key.String() of k, with extra (when not NULL) as one more part */
static void key_string(bh_buf *b, Key k, const kstr *extra)
{
	for (int i = 0; i < k.n; i++) {
		if (i)
			bh_buf_putc(b, '.');
		key_part_string(b, k.p[i]);
	}
	if (extra) {
		if (k.n)
			bh_buf_putc(b, '.');
		key_part_string(b, *extra);
	}
}

/* Key.String() in p->sb */
static const char *kstring(parser *p, Key k, const kstr *extra, size_t *len)
{
	p->sb.len = 0;
	key_string(&p->sb, k, extra);
	if (!bh_buf_ok(&p->sb))
		p_oom(p);
	*len = p->sb.len;
	return bh_buf_str(&p->sb);
}

/* p.current() */
static void current(parser *p, bh_buf *b)
{
	if (p->currentKey.n == 0) {
		key_string(b, p->context, NULL);
		return;
	}
	if (p->context.n == 0) {
		bh_buf_put(b, p->currentKey.s, p->currentKey.n);
		return;
	}
	key_string(b, p->context, NULL);
	bh_buf_putc(b, '.');
	bh_buf_put(b, p->currentKey.s, p->currentKey.n);
}

/* panic(ParseError{...}): "toml: line N (last key %q): msg" */
static void p_fail_msg(parser *p, int line, const char *msg, size_t mlen)
{
	bh_buf lk = BH_BUF_INIT, out = BH_BUF_INIT;
	current(p, &lk);
	bh_buf_printf(&out, "toml: line %d", line);
	if (lk.len) {
		bh_buf_puts(&out, " (last key ");
		go_quote(&out, lk.data, lk.len, '"', 0);
		bh_buf_putc(&out, ')');
	}
	bh_buf_puts(&out, ": ");
	bh_buf_put(&out, msg, mlen);
	if (bh_buf_ok(&out)) {
		bh_error_set(p->err, BH_EPARSE, "%s", bh_buf_str(&out));
		if (p->msgout)
			*p->msgout = tmpl_str(p->a, out.data, out.len);
	} else
		bh_error_set(p->err, BH_ENOMEM, "out of memory");
	bh_buf_free(&lk);
	bh_buf_free(&out);
	longjmp(p->jb, 1);
}

static void p_failf(parser *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void p_failf(parser *p, int line, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	size_t k = vformat(buf, sizeof buf, fmt, ap);
	va_end(ap);
	p_fail_msg(p, line, buf, k);
}

/* "Key '%s' ...": Key.String() copied out of the scratch buffer */
static void p_fail_key(parser *p, const char *fmt, Key k, const kstr *extra)
{
	bh_buf b = BH_BUF_INIT;
	key_string(&b, k, extra);
	char *s = bh_buf_ok(&b) ? tmpl_arena_strdup(p->a, bh_buf_str(&b), b.len) : NULL;
	bh_buf_free(&b);
	if (!s)
		p_oom(p);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	p_failf(p, p->posline, fmt, s);
#pragma GCC diagnostic pop
}

static item p_next(parser *p)
{
	item it = lx_next_item(&p->lx);
	if (it.typ == itemError)
		p_fail_msg(p, it.line, it.val, it.len);
	return it;
}

static item p_next_pos(parser *p)
{
	item it = p_next(p);
	p->posline = it.line;
	return it;
}

static void p_bug(parser *p, const char *what)
{
	bh_error_set(p->err, BH_EPARSE, "toml: BUG: %s", what);
	longjmp(p->jb, 1);
}

static void p_expect(parser *p, int typ)
{
	if (p_next(p).typ != typ)
		p_bug(p, "unexpected item");
}

/* string sets keyed by Key.String(); a key taken out stays, as false
 * (tmpl_map_delete then adding could leave a map's index behind) */
static int set_has(parser *p, tmpl_map *set, Key k, const kstr *extra)
{
	size_t n;
	const char *s = kstring(p, k, extra, &n);
	const tmpl_value *v = tmpl_map_get(set, s, n);
	return v && v->u.b;
}

static void set_put(parser *p, tmpl_map *set, Key k, const kstr *extra, int on)
{
	size_t n;
	const char *s = kstring(p, k, extra, &n);
	tmpl_value *v = tmpl_map_get(set, s, n);
	if (v)
		*v = tmpl_bool(on);
	else if (on && tmpl_map_set(p->a, set, s, n, tmpl_bool(1)))
		p_oom(p);
}

static int is_aot(const tmpl_value *v)
{
	return v->kind == TMPL_LIST && v->u.list->gotype && strcmp(v->u.list->gotype, AOT_TYPE) == 0;
}

static tmpl_map *new_map(parser *p)
{
	tmpl_map *m = tmpl_map_new(p->a, NULL);
	if (!m)
		p_oom(p);
	return m;
}

static void map_put(parser *p, tmpl_map *m, kstr k, tmpl_value v)
{
	if (tmpl_map_set(p->a, m, k.s, k.n, v))
		p_oom(p);
}

/* the last table of an array of tables */
static tmpl_map *aot_last(parser *p, tmpl_value *v)
{
	if (v->u.list->len == 0)
		p_bug(p, "empty array of tables");
	return v->u.list->items[v->u.list->len - 1].u.map;
}

static void setValue(parser *p, kstr key, tmpl_value value)
{
	tmpl_map *hash = p->mapping;
	for (int i = 0; i < p->context.n; i++) {
		tmpl_value *t = tmpl_map_get(hash, p->context.p[i].s, p->context.p[i].n);
		if (!t)
			p_bug(p, "context for key has not been established");
		if (is_aot(t))
			hash = aot_last(p, t);
		else if (t->kind == TMPL_MAP)
			hash = t->u.map;
		else
			p_fail_key(p, "Key '%s' has already been defined.", key_prefix(p->context, i + 1), NULL);
	}
	/* keyContext is p->context and key */
	if (tmpl_map_get(hash, key.s, key.n)) {
		if (set_has(p, p->arrays, p->context, &key)) {
			if (!set_has(p, p->implicits, p->context, &key))
				p_fail_key(p, "Key '%s' has already been defined.", p->context, &key);
			set_put(p, p->implicits, p->context, &key, 0);
			map_put(p, hash, key, value);
			return;
		}
		if (set_has(p, p->implicits, p->context, &key)) {
			set_put(p, p->implicits, p->context, &key, 0);
			return;
		}
		p_fail_key(p, "Key '%s' has already been defined.", p->context, &key);
	}
	map_put(p, hash, key, value);
}

/* setType: only whether the key's type is Array matters here */
static void setType(parser *p, kstr key, int isarray)
{
	/* the context and key, or Key{""} when both are empty */
	set_put(p, p->arrays, p->context, key.n || !p->context.n ? &key : NULL, isarray);
}

static void addContext(parser *p, Key key, int array)
{
	tmpl_map *hashContext = p->mapping;
	Key keyContext = {NULL, 0};
	for (int i = 0; i < key.n - 1; i++) {
		kstr k = key.p[i];
		tmpl_value *v = tmpl_map_get(hashContext, k.s, k.n);
		keyContext = key_prefix(key, i + 1);
		if (!v) {
			set_put(p, p->implicits, keyContext, NULL, 1);
			map_put(p, hashContext, k, tmpl_map_value(new_map(p)));
			v = tmpl_map_get(hashContext, k.s, k.n);
		}
		if (is_aot(v))
			hashContext = aot_last(p, v);
		else if (v->kind == TMPL_MAP)
			hashContext = v->u.map;
		else
			p_fail_key(p, "Key '%s' was already created as a hash.", keyContext, NULL);
	}
	p->context = keyContext;
	kstr last = key.p[key.n - 1];
	if (array) {
		tmpl_value *v = tmpl_map_get(hashContext, last.s, last.n);
		if (!v) {
			tmpl_list *l = tmpl_list_new(p->a, AOT_TYPE, 4);
			if (!l)
				p_oom(p);
			map_put(p, hashContext, last, tmpl_list_value(l));
			v = tmpl_map_get(hashContext, last.s, last.n);
		}
		if (is_aot(v)) {
			if (tmpl_list_push(p->a, v->u.list, tmpl_map_value(new_map(p))))
				p_oom(p);
		} else {
			p_fail_key(p, "Key '%s' was already created and cannot be used as an array.", key, NULL);
		}
	} else {
		setValue(p, last, tmpl_map_value(new_map(p)));
	}
	p->context = key; /* keys are never changed once made */
}

static void addImplicitContext(parser *p, Key key)
{
	set_put(p, p->implicits, key, NULL, 1);
	addContext(p, key, 0);
}

static tmpl_value value(parser *p, item it, int parentIsArray);

/* keyString */
static kstr keyString(parser *p, item it)
{
	if (it.typ == itemText)
		return (kstr){it.val, it.len};
	if (it.typ == itemString || it.typ == itemStringEsc || it.typ == itemMultilineString ||
	    it.typ == itemRawString || it.typ == itemRawMultilineString) {
		tmpl_value v = value(p, it, 0);
		/* the text may live in v itself: copied out */
		char *c = tmpl_arena_strdup(p->a, v.u.s.ptr, v.u.s.len);
		if (!c)
			p_oom(p);
		return (kstr){c, v.u.s.len};
	}
	p_bug(p, "unexpected key type");
	return (kstr){"", 0};
}

/* the parts of a key up to end (KeyEnd, TableEnd, ArrayTableEnd) */
static Key read_key(parser *p, item first, int end)
{
	Key key = {NULL, 0};
	int cap = 0;
	item name = first;
	for (; name.typ != end && name.typ != itemEOF; name = p_next(p)) {
		kstr part = keyString(p, name);
		if (key.n >= TOML_MAX_KEY_PARTS)
			lx_limit(&p->lx, "keys");
		if (key.n == cap) { /* doubled: a long dotted key stays linear */
			cap = cap ? cap * 2 : 4;
			kstr *np = tmpl_arena_alloc(p->a, sizeof(kstr) * (size_t)cap);
			if (!np)
				p_oom(p);
			if (key.n)
				memcpy(np, key.p, sizeof(kstr) * (size_t)key.n);
			key.p = np;
		}
		key.p[key.n++] = part;
	}
	if (name.typ != end)
		p_bug(p, "unexpected end of key");
	return key;
}

/* the parts of key but the last become implicit tables; the last is currentKey */
static void key_context(parser *p, Key key)
{
	p->currentKey = key.p[key.n - 1];
	for (int i = 0; i < key.n - 1; i++) {
		Key c = key_add(p, p->context, key.p[i]);
		addImplicitContext(p, c);
	}
}

/* ---- values ---- */

static tmpl_value str_value(parser *p, const char *s, size_t n)
{
	tmpl_value v = tmpl_str(p->a, s, n);
	if (v.kind == TMPL_INVALID)
		p_oom(p);
	return v;
}

static void strip_first_newline(const char **s, size_t *n)
{
	if (*n > 0 && (*s)[0] == '\n')
		(*s)++, (*n)--;
	else if (*n > 1 && (*s)[0] == '\r' && (*s)[1] == '\n')
		*s += 2, *n -= 2;
}

/* stripEscapedNewlines, into the arena */
static void strip_escaped_newlines(parser *p, const char **sp, size_t *np)
{
	const char *s = *sp;
	size_t n = *np, i = 0;
	bh_buf b = BH_BUF_INIT;
	for (;;) {
		const char *bs = i < n ? memchr(s + i, '\\', n - i) : NULL;
		if (!bs) {
			bh_buf_put(&b, s, n);
			break;
		}
		i = (size_t)(bs - s);
		if (n > i + 1 && s[i + 1] == '\\') {
			i += 2;
			continue;
		}
		size_t j = i + 1;
		while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r' || s[j] == '\n'))
			j++;
		if (j == i + 1 || !memchr(s + i, '\n', j - i)) {
			i++;
			continue;
		}
		bh_buf_put(&b, s, i);
		s += j;
		n -= j;
		i = 0;
	}
	char *r = bh_buf_ok(&b) ? tmpl_arena_strdup(p->a, b.data ? b.data : "", b.len) : NULL;
	*np = b.len;
	bh_buf_free(&b);
	if (!r)
		p_oom(p);
	*sp = r;
}

static tmpl_value replace_escapes(parser *p, item it, const char *str, size_t n)
{
	bh_buf b = BH_BUF_INIT;
	for (size_t i = 0; i < n;) {
		if (str[i] != '\\') {
			size_t w;
			int32_t r = decode_rune((const unsigned char *)str + i, n - i, &w);
			if (r == 0xFFFD && w == 1)
				bh_buf_puts(&b, "\xEF\xBF\xBD");
			else
				bh_buf_put(&b, str + i, w);
			i += w;
			continue;
		}
		if (i + 1 >= n) {
			bh_buf_free(&b);
			p_bug(p, "Escape sequence at end of string.");
		}
		char c = str[i + 1];
		int nd = 0;
		switch (c) {
		case ' ':
		case '\t': {
			bh_buf_free(&b);
			p_failf(p, it.line, "invalid escape: '\\%c'", c);
			break;
		}
		case 'b': bh_buf_putc(&b, 0x08); break;
		case 't': bh_buf_putc(&b, 0x09); break;
		case 'n': bh_buf_putc(&b, 0x0a); break;
		case 'f': bh_buf_putc(&b, 0x0c); break;
		case 'r': bh_buf_putc(&b, 0x0d); break;
		case 'e': bh_buf_putc(&b, 0x1b); break;
		case '"': bh_buf_putc(&b, 0x22); break;
		case '\\': bh_buf_putc(&b, 0x5c); break;
		case 'x': nd = 2; break;
		case 'u': nd = 4; break;
		case 'U': nd = 8; break;
		default:
			bh_buf_free(&b);
			p_bug(p, "Expected valid escape code");
		}
		if (nd) {
			if (i + 2 + (size_t)nd > n) {
				bh_buf_free(&b);
				p_bug(p, "short escape");
			}
			uint64_t h = 0;
			for (int k = 0; k < nd; k++)
				h = h * 16 + (uint64_t)go_unhex((unsigned char)str[i + 2 + k]);
			if (h > 0x10FFFF || (h >= 0xD800 && h <= 0xDFFF)) {
				bh_buf_free(&b);
				p_failf(p, it.line, "Escaped character '\\u%.*s' is not valid UTF-8.", nd, str + i + 2);
			}
			go_append_rune(&b, (int32_t)h);
		}
		i += 2 + (size_t)nd;
	}
	tmpl_value v = bh_buf_ok(&b) ? tmpl_str(p->a, b.data ? b.data : "", b.len) : (tmpl_value){0};
	bh_buf_free(&b);
	if (v.kind == TMPL_INVALID)
		p_oom(p);
	return v;
}

static int numUnderscoresOK(const char *s, size_t n)
{
	static const char *const special[] = {"nan", "+nan", "-nan", "inf", "-inf", "+inf"};
	for (size_t i = 0; i < sizeof special / sizeof *special; i++)
		if (strlen(special[i]) == n && memcmp(special[i], s, n) == 0)
			return 1;
	int accept = 0;
	for (size_t i = 0; i < n;) {
		size_t w;
		int32_t r = decode_rune((const unsigned char *)s + i, n - i, &w);
		if (r == '_' && !accept)
			return 0;
		accept = isHex(r);
		i += w;
	}
	return accept;
}

static int numHasLeadingZero(const char *s, size_t n)
{
	if (n > 1 && s[0] == '0' && !(s[1] == 'b' || s[1] == 'o' || s[1] == 'x'))
		return 1;
	if (n > 2 && (s[0] == '-' || s[0] == '+') && s[1] == '0')
		return 1;
	return 0;
}

static int numPeriodsOK(const char *s, size_t n)
{
	int period = 0;
	for (size_t i = 0; i < n; i++) {
		if (period && !isDigit((unsigned char)s[i]))
			return 0;
		period = s[i] == '.';
	}
	return !period;
}

/* strconv.ParseInt(s, 0, 64) for what the lexer emits: 1 ok, 0 range, -1 syntax */
static int parse_int0(const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	int neg = 0, base = 10;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		neg = s[i++] == '-';
	if (n - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'o' || s[i + 1] == 'b')) {
		base = s[i + 1] == 'x' ? 16 : s[i + 1] == 'o' ? 8 : 2;
		i += 2;
	} else if (n - i > 1 && s[i] == '0') {
		base = 8;
		i++;
	}
	if (i >= n && base != 8)
		return -1;
	uint64_t v = 0, lim = neg ? (uint64_t)1 << 63 : ((uint64_t)1 << 63) - 1;
	int range = 0;
	for (; i < n; i++) {
		if (s[i] == '_')
			continue;
		int d = go_unhex((unsigned char)s[i]);
		if (d < 0 || d >= base)
			return -1;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			range = 1;
		else
			v = v * (uint64_t)base + (uint64_t)d;
		if (v > lim)
			range = 1;
	}
	if (range)
		return 0;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 1;
}

static tmpl_value valueInteger(parser *p, item it)
{
	if (!numUnderscoresOK(it.val, it.len))
		p_failf(p, it.line, "Invalid integer %s: underscores must be surrounded by digits", qstr(&p->lx, it.val, it.len));
	if (numHasLeadingZero(it.val, it.len))
		p_failf(p, it.line, "Invalid integer %s: cannot have leading zeroes", qstr(&p->lx, it.val, it.len));
	int64_t v = 0;
	int rc = parse_int0(it.val, it.len, &v);
	if (rc == 0)
		p_failf(p, it.line, "%.*s is out of range for int64", (int)it.len, it.val);
	if (rc < 0)
		p_bug(p, "Expected integer value");
	return tmpl_int64(v);
}

/* strconv.ParseFloat(s, 64) for the lexer's float texts: 1 ok, 0 range, -1 syntax */
static int parse_float(const char *s, double *out)
{
	const char *t = s;
	int neg = 0;
	if (*t == '+' || *t == '-')
		neg = *t++ == '-';
	if (strcmp(t, "inf") == 0) {
		*out = neg ? -INFINITY : INFINITY;
		return 1;
	}
	if (strcmp(s, "nan") == 0) {
		*out = NAN;
		return 1;
	}
	/* digits [. digits] [e [sign] digits], a digit somewhere in the mantissa */
	int digits = 0;
	while (isDigit((unsigned char)*t))
		t++, digits++;
	if (*t == '.') {
		t++;
		while (isDigit((unsigned char)*t))
			t++, digits++;
	}
	if (!digits)
		return -1;
	if (*t == 'e' || *t == 'E') {
		t++;
		if (*t == '+' || *t == '-')
			t++;
		if (!isDigit((unsigned char)*t))
			return -1;
		while (isDigit((unsigned char)*t))
			t++;
	}
	if (*t)
		return -1;
	errno = 0;
	double f = strtod(s, NULL);
	if (errno == ERANGE && isinf(f))
		return 0;
	*out = f;
	return 1;
}

static tmpl_value valueFloat(parser *p, item it)
{
	const char *s = it.val;
	size_t n = it.len, i = 0;
	/* strings.FieldsFunc on . e E */
	while (i < n) {
		while (i < n && (s[i] == '.' || s[i] == 'e' || s[i] == 'E'))
			i++;
		if (i >= n)
			break;
		size_t st = i;
		while (i < n && !(s[i] == '.' || s[i] == 'e' || s[i] == 'E'))
			i++;
		if (!numUnderscoresOK(s + st, i - st))
			p_failf(p, it.line, "Invalid float %s: underscores must be surrounded by digits", qstr(&p->lx, s, n));
	}
	for (i = 0; i < n && (s[i] == '.' || s[i] == 'e' || s[i] == 'E'); i++)
		;
	if (i < n) {
		size_t st = i;
		while (i < n && !(s[i] == '.' || s[i] == 'e' || s[i] == 'E'))
			i++;
		if (numHasLeadingZero(s + st, i - st))
			p_failf(p, it.line, "Invalid float %s: cannot have leading zeroes", qstr(&p->lx, s, n));
	}
	if (!numPeriodsOK(s, n))
		p_failf(p, it.line, "Invalid float %s: '.' must be followed by one or more digits", qstr(&p->lx, s, n));
	char *buf = tmpl_arena_alloc(p->a, n + 4);
	size_t k = 0;
	if (!buf)
		p_oom(p);
	for (i = 0; i < n; i++)
		if (s[i] != '_')
			buf[k++] = s[i];
	buf[k] = '\0';
	int signbit = 0;
	if (strcmp(buf, "+nan") == 0 || strcmp(buf, "-nan") == 0) {
		signbit = buf[0] == '-';
		strcpy(buf, "nan");
	}
	double f = 0;
	int rc = parse_float(buf, &f);
	if (rc == 0)
		p_failf(p, it.line, "%.*s is out of range for float64", (int)n, s);
	if (rc < 0)
		p_failf(p, it.line, "Invalid float value: %s", qstr(&p->lx, s, n));
	if (signbit)
		f = copysign(f, -1);
	return tmpl_float(f);
}

static void *arena_alloc(void *ud, size_t n)
{
	return tmpl_arena_alloc(ud, n);
}

/* missingLeadingZero */
static int missingLeadingZero(const char *d, size_t dn, const char *l)
{
	for (size_t i = 0; l[i]; i++) {
		char c = l[i];
		if (c == '.' || c == 'Z')
			return 0;
		if ((c < '0' || c > '9') && (i >= dn || d[i] != c))
			return 1;
	}
	return 0;
}

static tmpl_value valueDatetime(parser *p, item it)
{
	static const struct {
		const char *fmt;
		const char *zone; /* NULL: Local */
	} dtTypes[] = {
		{"2006-01-02T15:04:05.999999999Z07:00", NULL},
		{"2006-01-02T15:04:05.999999999", "datetime-local"},
		{"2006-01-02", "date-local"},
		{"15:04:05.999999999", "time-local"},
		{"2006-01-02T15:04Z07:00", NULL},
		{"2006-01-02T15:04", "datetime-local"},
		{"15:04", "time-local"},
	};
	char *v = tmpl_arena_strdup(p->a, it.val, it.len);
	if (!v)
		p_oom(p);
	for (size_t i = 0; i < it.len; i++)
		v[i] = v[i] == 'z' ? 'Z' : v[i] == 't' || v[i] == ' ' ? 'T' : v[i];
	for (size_t i = 0; i < sizeof dtTypes / sizeof *dtTypes; i++) {
		gotime t;
		char em[256];
		if (gotime_parse(dtTypes[i].fmt, strlen(dtTypes[i].fmt), v, it.len, arena_alloc, p->a, &t, em, sizeof em))
			continue;
		if (missingLeadingZero(v, it.len, dtTypes[i].fmt))
			break;
		if (dtTypes[i].zone) {
			int64_t y;
			int mo, d, h, mi, s, wd, yd;
			gotime_civil(&t, &y, &mo, &d, &h, &mi, &s, &wd, &yd);
			int64_t ns = (int64_t)t.nsec; /* see gotime.h */
			gotime_loc *fz = tmpl_arena_alloc(p->a, gotime_loc_fixed_size());
			if (!fz)
				p_oom(p);
			gotime_loc_fixed_init(fz, dtTypes[i].zone, 0);
			t = gotime_date(y, mo, d, h, mi, s, ns, fz);
		}
		tmpl_value r = tmpl_time_value(p->a, &t);
		if (r.kind == TMPL_INVALID)
			p_oom(p);
		return r;
	}
	p_failf(p, it.line, "invalid datetime: %s", qstr(&p->lx, v, it.len));
	return (tmpl_value){0};
}

/* An array or inline table being read: value() keeps them on p->vs, not
 * on the C stack, so nesting costs memory, not stack. */
typedef struct vframe {
	int table;          /* an inline table, else an array */
	int parentIsArray;  /* the table is an array's element */
	tmpl_list *list;    /* the array's elements */
	tmpl_map *topHash;  /* the table's members */
	Key outerContext, prevContext;
	kstr outerKey;
	Key key;            /* the table's member whose value is being read */
} vframe;

/* a scalar item's value */
static tmpl_value scalar_value(parser *p, item it)
{
	const char *s = it.val;
	size_t n = it.len;
	switch (it.typ) {
	case itemString:
	case itemRawString:
		return str_value(p, s, n);
	case itemStringEsc:
		return replace_escapes(p, it, s, n);
	case itemMultilineString:
		strip_first_newline(&s, &n);
		strip_escaped_newlines(p, &s, &n);
		return replace_escapes(p, it, s, n);
	case itemRawMultilineString:
		strip_first_newline(&s, &n);
		return str_value(p, s, n);
	case itemInteger:
		return valueInteger(p, it);
	case itemFloat:
		return valueFloat(p, it);
	case itemBool:
		return tmpl_bool(n == 4);
	case itemDatetime:
		return valueDatetime(p, it);
	}
	p_bug(p, "Unexpected value type");
	return (tmpl_value){0};
}

/* the start of valueArray / valueInlineTable: a new frame on p->vs */
static void value_open(parser *p, item it, int parentIsArray)
{
	if (p->nvs >= TOML_MAX_DEPTH)
		lx_limit(&p->lx, "values");
	if (p->nvs == p->vcap) {
		size_t cap = p->vcap ? p->vcap * 2 : 16;
		vframe *nv = realloc(p->vs, cap * sizeof *nv);
		if (!nv)
			p_oom(p);
		p->vs = nv;
		p->vcap = cap;
	}
	vframe *f = &p->vs[p->nvs++];
	memset(f, 0, sizeof *f);
	f->parentIsArray = parentIsArray;
	if (it.typ == itemArray) {
		setType(p, p->currentKey, 1);
		if (!(f->list = tmpl_list_new(p->a, NULL, 2)))
			p_oom(p);
		return;
	}
	f->table = 1;
	f->topHash = new_map(p);
	f->outerContext = p->context;
	f->outerKey = p->currentKey;
	p->context = key_add(p, p->context, p->currentKey);
	f->prevContext = p->context;
	p->currentKey = (kstr){"", 0};
	set_put(p, p->implicits, p->context, NULL, 1);
	addContext(p, p->context, parentIsArray);
}

static void not_a_table(parser *p) __attribute__((noinline, cold));
static void not_a_table(parser *p)
{
	bh_buf b = BH_BUF_INIT, q = BH_BUF_INIT;
	key_string(&b, p->context, NULL);
	go_quote(&q, b.data ? b.data : "", b.len, '"', 0);
	char *qs = bh_buf_ok(&q) ? tmpl_arena_strdup(p->a, bh_buf_str(&q), q.len) : NULL;
	bh_buf_free(&b);
	bh_buf_free(&q);
	if (!qs)
		p_oom(p);
	p_failf(p, p->posline, "%s is not a table", qs);
}

/* valueInlineTable's member f->key read as val */
static void table_put(parser *p, vframe *f, tmpl_value val)
{
	Key key = f->key;
	setValue(p, p->currentKey, val);
	setType(p, p->currentKey, val.kind == TMPL_LIST);
	tmpl_map *hash = f->topHash;
	for (int i = 0; i < key.n - 1; i++) {
		tmpl_value *h = tmpl_map_get(hash, key.p[i].s, key.p[i].n);
		if (!h) {
			map_put(p, hash, key.p[i], tmpl_map_value(new_map(p)));
			h = tmpl_map_get(hash, key.p[i].s, key.p[i].n);
		}
		if (h->kind != TMPL_MAP || is_aot(h))
			not_a_table(p);
		hash = h->u.map;
	}
	map_put(p, hash, p->currentKey, val);
	p->context = f->prevContext;
}

/* BurntSushi's p.value: arrays and inline tables read with a stack of
 * frames instead of its recursion (valueArray, valueInlineTable), in the
 * same order of steps. */
static tmpl_value value(parser *p, item it, int parentIsArray)
{
	if (it.typ != itemArray && it.typ != itemInlineTableStart)
		return scalar_value(p, it);
	size_t base = p->nvs;
	value_open(p, it, parentIsArray);
	for (;;) {
		vframe *f = &p->vs[p->nvs - 1];
		tmpl_value v;
		it = p_next(p);
		if (it.typ == itemCommentStart) {
			p_expect(p, itemText);
			continue;
		}
		if (f->table && it.typ == itemInlineTableEnd) {
			p->context = f->outerContext;
			p->currentKey = f->outerKey;
			v = tmpl_map_value(f->topHash);
		} else if (!f->table && it.typ == itemArrayEnd) {
			v = tmpl_list_value(f->list);
		} else {
			int inArray = !f->table;
			if (f->table) {
				f->key = read_key(p, p_next_pos(p), itemKeyEnd);
				key_context(p, f->key);
				it = p_next(p);
			}
			if (it.typ == itemArray || it.typ == itemInlineTableStart) {
				value_open(p, it, inArray);
				continue;
			}
			v = scalar_value(p, it);
			if (f->table)
				table_put(p, f, v);
			else if (tmpl_list_push(p->a, f->list, v))
				p_oom(p);
			continue;
		}
		/* the frame's value is done: it goes to the frame below */
		if (--p->nvs == base)
			return v;
		f = &p->vs[p->nvs - 1];
		if (f->table)
			table_put(p, f, v);
		else if (tmpl_list_push(p->a, f->list, v))
			p_oom(p);
	}
}

static void topLevel(parser *p, item it)
{
	switch (it.typ) {
	case itemCommentStart:
		p_expect(p, itemText);
		break;
	case itemTableStart:
	case itemArrayTableStart: {
		int aot = it.typ == itemArrayTableStart;
		Key key = read_key(p, p_next_pos(p), aot ? itemArrayTableEnd : itemTableEnd);
		addContext(p, key, aot);
		setType(p, (kstr){"", 0}, 0);
		break;
	}
	case itemKeyStart: {
		Key outerContext = p->context;
		Key key = read_key(p, p_next_pos(p), itemKeyEnd);
		key_context(p, key);
		tmpl_value val = value(p, p_next(p), 0);
		setValue(p, p->currentKey, val);
		setType(p, p->currentKey, val.kind == TMPL_LIST);
		p->context = outerContext;
		p->currentKey = (kstr){"", 0};
		break;
	}
	default:
		p_bug(p, "Unexpected type at top level");
	}
}

/* every map of the tree at v sorted, walked with a stack of its own (the
 * tree is as deep as the document nests) */
static int sort_all(tmpl_value *v)
{
	tmpl_value **st = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (;;) {
		size_t k = 0;
		if (v->kind == TMPL_MAP)
			tmpl_map_sort(v->u.map), k = v->u.map->len;
		else if (v->kind == TMPL_LIST)
			k = v->u.list->len;
		if (k && n + k > cap) {
			size_t nc = cap ? cap : 64;
			while (nc < n + k)
				nc *= 2;
			tmpl_value **ns = realloc(st, nc * sizeof *ns);
			if (!ns) {
				rc = BH_ENOMEM;
				break;
			}
			st = ns, cap = nc;
		}
		for (size_t i = 0; i < k; i++) {
			tmpl_value *c = v->kind == TMPL_MAP ? &v->u.map->entries[i].val : &v->u.list->items[i];
			if (c->kind == TMPL_MAP || c->kind == TMPL_LIST)
				st[n++] = c;
		}
		if (!n)
			break;
		v = st[--n];
	}
	free(st);
	return rc;
}

static int decode(tmpl_arena *a, const char *text, size_t len, tmpl_value *out, bh_error *err, tmpl_value *msg)
{
	if (len > TOML_MAX_BYTES)
		return bh_error_set(err, BH_ELIMIT, "toml: document larger than %zu bytes", TOML_MAX_BYTES);
	/* a BOM (UTF-16's too) is skipped */
	if (len >= 2 && ((unsigned char)text[0] == 0xff && (unsigned char)text[1] == 0xfe))
		text += 2, len -= 2;
	else if (len >= 2 && ((unsigned char)text[0] == 0xfe && (unsigned char)text[1] == 0xff))
		text += 2, len -= 2;
	else if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		text += 3, len -= 3;
	if (memchr(text, 0, len < 6 ? len : 6))
		return bh_error_set(err, BH_EPARSE,
				    "toml: line 1: files cannot contain NULL bytes; probably using UTF-16; TOML files must be UTF-8");
	parser *p = calloc(1, sizeof *p);
	if (!p)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	p->a = a;
	p->err = err;
	p->msgout = msg;
	p->lx.input = text;
	p->lx.n = len;
	p->lx.line = 1;
	p->lx.state = S(lexTop);
	p->lx.a = a;
	p->lx.jb = &p->jb;
	p->lx.err = err;
	int rc = 0;
	if (setjmp(p->jb)) {
		rc = err->code ? err->code : BH_EPARSE;
		goto done;
	}
	p->mapping = new_map(p);
	p->implicits = new_map(p);
	p->arrays = new_map(p);
	for (;;) {
		item it = p_next(p);
		if (it.typ == itemEOF)
			break;
		topLevel(p, it);
	}
	*out = tmpl_map_value(p->mapping);
	if (sort_all(out))
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
done:
	bh_buf_free(&p->sb);
	free(p->vs);
	free(p->lx.stack);
	free(p);
	return rc;
}

int toml_decode(tmpl_arena *a, const char *text, size_t len, tmpl_value *out, bh_error *err)
{
	return decode(a, text, len, out, err, NULL);
}

int toml_from_toml(tmpl_arena *a, const char *text, size_t len, tmpl_value *out, bh_error *err)
{
	tmpl_value msg = tmpl_invalid();
	int rc = decode(a, text, len, out, err, &msg);
	if (rc == 0 || rc == BH_ENOMEM)
		return rc;
	if (msg.kind == TMPL_INVALID)
		msg = tmpl_cstr(a, err->msg);
	tmpl_map *m = tmpl_map_new(a, NULL);
	if (msg.kind == TMPL_INVALID || !m || tmpl_map_set(a, m, "Error", 5, msg))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	*out = tmpl_map_value(m);
	return 0;
}
