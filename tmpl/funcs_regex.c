/* tmpl/funcs_regex.c — Sprig's regular-expression functions (regex.go) with
 * Go regexp semantics on PCRE2: the pattern is parsed with Go's RE2 syntax
 * rules (Go's error messages; no backreferences, lookaround, possessive or
 * atomic groups) and translated to an equivalent PCRE2 pattern; matching
 * is leftmost-first like Go's, iteration over matches, ReplaceAll's $
 * expansion and Split follow Go's regexp package. Backtracking is bounded
 * by PCRE2 match/depth/heap limits (Go's RE2 engine is linear-time). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/gostrconv.h"
#include "tmpl/funcs.h"
#include "tmpl/gofmt.h"
#include "tmpl/internal.h"
#include "tmpl/sprig_unicode.h"
#include "tmpl/sprig_util.h"

#define RE_MATCH_LIMIT 10000000
#define RE_DEPTH_LIMIT 100000
#define RE_HEAP_LIMIT (64 * 1024) /* KiB */
#define RE_MAX_REPEAT 1000
/* CPU-time budget of one function call's matching (each pcre2_match is
 * bounded by the limits above; this bounds the loop over positions). */
#define RE_TIME_BUDGET_NS (2LL * 1000 * 1000 * 1000)

typedef struct re_parse re_parse;
static int re_error(re_parse *p, const char *code, const char *expr, size_t n);

/* Go's limits on the shape of the parse tree: node height (nesting) and
 * the product of nested {n,m} counts. */
#define RE_MAX_HEIGHT 1000
#define RE_MAX_GROUPS 1001

/* One open group while translating: what Go's parse tree would hold, as
 * far as its height and nested repeat counts go. Items of the current
 * alternative: seq_* (all but the last), last_* (the last one, which a
 * repetition operator applies to). h = node height, pr = product of the
 * {n,m} counts along the worst chain of nested repeats. */
typedef struct re_frame {
	int capture;
	int nalts, alt_h, alt_pr;  /* finished alternatives */
	int seq_n, seq_h, seq_pr;  /* items before the last one */
	int last_h, last_pr;
	int run;                   /* the last item is a literal run of this many runes */
} re_frame;

struct re_parse {
	const char *s;     /* whole pattern */
	size_t n;
	bh_buf *out;       /* PCRE2 pattern */
	bh_buf *err;       /* Go message after "error parsing regexp: " */
	int depth;         /* open groups */
	re_frame fr[RE_MAX_GROUPS + 1];
};

static int imax(int a, int b)
{
	return a > b ? a : b;
}

static int nest_error(re_parse *p)
{
	bh_buf_puts(p->err, "expression nests too deeply: `");
	bh_buf_put(p->err, p->s, p->n);
	bh_buf_putc(p->err, '`');
	return -1;
}

/* a new item of height h in the current alternative; lit: a literal rune
 * (consecutive ones form one node) */
static void tree_item(re_parse *p, int h, int pr, int lit)
{
	re_frame *f = &p->fr[p->depth];
	if (lit && f->run > 0) {
		f->run++;
		return;
	}
	if (f->seq_n > 0 || f->last_h > 0) {
		f->seq_h = imax(f->seq_h, f->last_h);
		f->seq_pr = imax(f->seq_pr, f->last_pr);
	}
	if (f->last_h > 0)
		f->seq_n++;
	f->last_h = h;
	f->last_pr = pr;
	f->run = lit ? 1 : 0;
}

/* height and repeat product of the current alternative */
static void tree_seq(const re_frame *f, int *h, int *pr)
{
	int n = f->seq_n + (f->last_h > 0);
	*pr = imax(imax(f->seq_pr, f->last_pr), 1);
	if (n == 0)
		*h = 1;
	else if (n == 1)
		*h = f->last_h;
	else
		*h = 1 + imax(f->seq_h, f->last_h);
}

/* a repetition of the last item; m = Go's repeatIsValid count (-1 for
 * * + ?), check: whether Go validates the nested counts here */
static int tree_repeat(re_parse *p, long m, int check, size_t op, size_t opn)
{
	re_frame *f = &p->fr[p->depth];
	if (f->run > 1) {
		/* x in "abx*" is split from its literal run */
		f->seq_h = imax(f->seq_h, 1);
		f->seq_n++;
		f->last_h = 1;
		f->last_pr = 1;
	}
	f->run = 0;
	f->last_h++;
	if (f->last_h > RE_MAX_HEIGHT)
		return nest_error(p);
	if (m >= 0) {
		long pr = m == 0 ? 1 : m * (long)f->last_pr;
		if (check && m > 0 && pr > RE_MAX_REPEAT)
			return re_error(p, "invalid repeat count", p->s + op, opn);
		f->last_pr = pr > RE_MAX_REPEAT + 1 ? RE_MAX_REPEAT + 1 : (int)pr;
	}
	return 0;
}

static void tree_alt(re_parse *p)
{
	re_frame *f = &p->fr[p->depth];
	int h, pr;
	tree_seq(f, &h, &pr);
	f->alt_h = imax(f->alt_h, h);
	f->alt_pr = imax(f->alt_pr, pr);
	f->nalts++;
	f->seq_n = f->seq_h = f->seq_pr = f->last_h = f->last_pr = f->run = 0;
}

/* height/product of the whole content of the current group */
static int tree_close(re_parse *p, int *h, int *pr)
{
	re_frame *f = &p->fr[p->depth];
	tree_seq(f, h, pr);
	if (f->nalts > 0) {
		*h = 1 + imax(f->alt_h, *h);
		*pr = imax(f->alt_pr, *pr);
	}
	if (f->capture)
		(*h)++;
	if (*h > RE_MAX_HEIGHT)
		return nest_error(p);
	return 0;
}

static int tree_open(re_parse *p, int capture)
{
	if (p->depth + 1 > RE_MAX_GROUPS)
		return nest_error(p);
	p->depth++;
	memset(&p->fr[p->depth], 0, sizeof(re_frame));
	p->fr[p->depth].capture = capture;
	return 0;
}

static int re_error(re_parse *p, const char *code, const char *expr, size_t n)
{
	bh_buf_printf(p->err, "%s: `", code);
	bh_buf_put(p->err, expr, n);
	bh_buf_putc(p->err, '`');
	return -1;
}

static void put_rune_lit(bh_buf *out, uint32_t r)
{
	bh_buf_printf(out, "\\x{%X}", r);
}

static int is_alnum_ascii(uint32_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Go's parseEscape at s[i] == '\\': the literal rune and the new index,
 * or -1 with the error set. */
static long parse_escape(re_parse *p, size_t i, uint32_t *rune)
{
	size_t start = i, w;
	uint32_t c;
	i++;
	if (i >= p->n) {
		bh_buf_puts(p->err, "trailing backslash at end of expression: ``");
		return -1;
	}
	c = uni_decode(p->s + i, p->n - i, &w);
	i += w;
	if (c < 0x80 && !is_alnum_ascii(c)) {
		*rune = c;
		return (long)i;
	}
	switch (c) {
	case '1': case '2': case '3': case '4': case '5': case '6': case '7':
		if (i >= p->n || p->s[i] < '0' || p->s[i] > '7')
			break;
		/* fallthrough */
	case '0': {
		uint32_t r = c - '0';
		for (int k = 1; k < 3; k++) {
			if (i >= p->n || p->s[i] < '0' || p->s[i] > '7')
				break;
			r = r * 8 + (uint32_t)(p->s[i] - '0');
			i++;
		}
		*rune = r;
		return (long)i;
	}
	case 'x': {
		if (i >= p->n)
			break;
		c = uni_decode(p->s + i, p->n - i, &w);
		i += w;
		if (c == '{') {
			uint32_t r = 0;
			int nhex = 0, ok = 0;
			while (i < p->n) {
				c = uni_decode(p->s + i, p->n - i, &w);
				i += w;
				if (c == '}') {
					ok = 1;
					break;
				}
				int v = go_unhex(c);
				if (v < 0)
					break;
				r = r * 16 + (uint32_t)v;
				if (r > 0x10FFFF)
					break;
				nhex++;
			}
			if (!ok || nhex == 0)
				break;
			*rune = r;
			return (long)i;
		}
		int x = go_unhex(c);
		if (i >= p->n)
			break;
		c = uni_decode(p->s + i, p->n - i, &w);
		i += w;
		int y = go_unhex(c);
		if (x < 0 || y < 0)
			break;
		*rune = (uint32_t)(x * 16 + y);
		return (long)i;
	}
	case 'a': *rune = '\a'; return (long)i;
	case 'f': *rune = '\f'; return (long)i;
	case 'n': *rune = '\n'; return (long)i;
	case 'r': *rune = '\r'; return (long)i;
	case 't': *rune = '\t'; return (long)i;
	case 'v': *rune = '\v'; return (long)i;
	default:
		break;
	}
	re_error(p, "invalid escape sequence", p->s + start, i - start);
	return -1;
}

/* \d \D \s \S \w \W: PCRE2 text (inside or outside a class); NULL if not */
static const char *perl_class(char c, int in_class)
{
	switch (c) {
	case 'd': return in_class ? "0-9" : "[0-9]";
	case 'D': return in_class ? "\\D" : "[^0-9]";
	case 's': return in_class ? "\\t\\n\\f\\r " : "[\\t\\n\\f\\r ]";
	case 'S': return in_class ? "\\S" : "[^\\t\\n\\f\\r ]";
	case 'w': return in_class ? "0-9A-Za-z_" : "[0-9A-Za-z_]";
	case 'W': return in_class ? "\\W" : "[^0-9A-Za-z_]";
	default: return NULL;
	}
}

/* \pL, \p{Greek}, \PL ...: copied through; returns new index */
static long unicode_class(re_parse *p, size_t i)
{
	size_t start = i;
	i += 2;
	if (i >= p->n)
		return re_error(p, "invalid character class range", p->s + start, p->n - start);
	if (p->s[i] == '{') {
		const char *e = memchr(p->s + i, '}', p->n - i);
		if (!e)
			return re_error(p, "invalid character class range", p->s + start, p->n - start);
		i = (size_t)(e - p->s) + 1;
	} else {
		size_t w;
		uni_decode(p->s + i, p->n - i, &w);
		i += w;
	}
	bh_buf_put(p->out, p->s + start, i - start);
	return (long)i;
}

static const char *const posix_names[] = {
	"alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower",
	"print", "punct", "space", "upper", "word", "xdigit", NULL,
};

/* a character class starting at s[i] == '['; returns the new index */
static long parse_class(re_parse *p, size_t i)
{
	size_t start = i, w;
	int first = 1;
	i++;
	bh_buf_putc(p->out, '[');
	if (i < p->n && p->s[i] == '^') {
		bh_buf_putc(p->out, '^');
		i++;
	}
	while (i >= p->n || p->s[i] != ']' || first) {
		uint32_t lo, hi;
		size_t item = i;
		first = 0;
		if (i >= p->n)
			return re_error(p, "missing closing ]", p->s + start, p->n - start);
		/* [:name:] */
		if (p->n - i > 2 && p->s[i] == '[' && p->s[i + 1] == ':') {
			const char *e = memmem(p->s + i + 2, p->n - i - 2, ":]", 2);
			if (e) {
				size_t nl = (size_t)(e - (p->s + i + 2));
				const char *name = p->s + i + 2;
				int neg = nl > 0 && name[0] == '^';
				int ok = 0;
				for (int k = 0; posix_names[k] && !ok; k++)
					ok = strlen(posix_names[k]) == nl - (size_t)neg &&
					     memcmp(posix_names[k], name + neg, nl - (size_t)neg) == 0;
				if (!ok)
					return re_error(p, "invalid character class range", p->s + i, nl + 4);
				bh_buf_put(p->out, p->s + i, nl + 4);
				i += nl + 4;
				continue;
			}
		}
		if (p->s[i] == '\\' && i + 1 < p->n && (p->s[i + 1] == 'p' || p->s[i + 1] == 'P')) {
			long r = unicode_class(p, i);
			if (r < 0)
				return r;
			i = (size_t)r;
			continue;
		}
		if (p->s[i] == '\\' && i + 1 < p->n && perl_class(p->s[i + 1], 1)) {
			bh_buf_puts(p->out, perl_class(p->s[i + 1], 1));
			i += 2;
			continue;
		}
		/* single character or range */
		if (p->s[i] == '\\') {
			long r = parse_escape(p, i, &lo);
			if (r < 0)
				return r;
			i = (size_t)r;
		} else {
			lo = uni_decode(p->s + i, p->n - i, &w);
			i += w;
		}
		hi = lo;
		if (p->n - i >= 2 && p->s[i] == '-' && p->s[i + 1] != ']') {
			i++;
			if (i >= p->n)
				return re_error(p, "missing closing ]", p->s + start, p->n - start);
			if (p->s[i] == '\\') {
				long r = parse_escape(p, i, &hi);
				if (r < 0)
					return r;
				i = (size_t)r;
			} else {
				hi = uni_decode(p->s + i, p->n - i, &w);
				i += w;
			}
			if (hi < lo)
				return re_error(p, "invalid character class range", p->s + item, i - item);
		}
		put_rune_lit(p->out, lo);
		if (hi != lo) {
			bh_buf_putc(p->out, '-');
			put_rune_lit(p->out, hi);
		}
	}
	bh_buf_putc(p->out, ']');
	return (long)i + 1;
}

/* Go's parseRepeat for "{...}" at s[i]: 1 with min/max and end index, or 0
 * when it is not a repetition (then '{' is a literal). max -1 = no max. */
static int parse_repeat(const re_parse *p, size_t i, long *min, long *max, size_t *end)
{
	long *dst = min;
	int have = 0;
	i++;
	*min = -1;
	*max = -1;
	for (int part = 0; part < 2; part++) {
		size_t d = i;
		long v = 0;
		while (i < p->n && p->s[i] >= '0' && p->s[i] <= '9') {
			if (v < 100000000)
				v = v * 10 + (p->s[i] - '0');
			i++;
		}
		if (i == d) {
			if (part == 0)
				return 0;
		} else {
			if (i - d >= 2 && p->s[d] == '0')
				return 0;
			*dst = v >= 100000000 ? -2 : v;
			have = 1;
		}
		if (part == 0) {
			if (i < p->n && p->s[i] == ',') {
				i++;
				dst = max;
				continue;
			}
			*max = *min;
			break;
		}
	}
	(void)have;
	if (i >= p->n || p->s[i] != '}')
		return 0;
	*end = i + 1;
	return 1;
}

/* Translates the Go pattern into PCRE2 syntax. 0 or -1 (err set). */
static int re_translate(re_parse *p)
{
	size_t i = 0, w;
	long last_rep = -1;
	int can_repeat = 0;
	memset(&p->fr[0], 0, sizeof(re_frame));
	while (i < p->n) {
		char ch = p->s[i];
		long this_rep = -1;
		size_t tok = i;
		switch (ch) {
		case '(':
			if (i + 1 < p->n && p->s[i + 1] == '?') {
				size_t t = i + 2;
				/* named group (?P<name> or (?<name> */
				if ((p->n - i > 4 && p->s[i + 2] == 'P' && p->s[i + 3] == '<') ||
				    (p->n - i > 3 && p->s[i + 2] == '<')) {
					size_t ns = p->s[i + 2] == 'P' ? i + 4 : i + 3;
					const char *gt = memchr(p->s + ns, '>', p->n - ns);
					if (!gt)
						return re_error(p, "invalid named capture", p->s + i, p->n - i);
					size_t ne = (size_t)(gt - p->s);
					int ok = ne > ns;
					for (size_t k = ns; k < ne && ok;) {
						uint32_t r = uni_decode(p->s + k, ne - k, &w);
						ok = r == '_' || uni_is_letter(r) || uni_is_digit(r);
						k += w;
					}
					if (!ok)
						return re_error(p, "invalid named capture", p->s + i, ne + 1 - i);
					bh_buf_puts(p->out, "(?<");
					bh_buf_put(p->out, p->s + ns, ne - ns);
					bh_buf_putc(p->out, '>');
					if (tree_open(p, 1))
						return -1;
					i = ne + 1;
					can_repeat = 0;
					break;
				}
				/* flags */
				int sign = 1, saw = 0, done = 0;
				bh_buf flags = BH_BUF_INIT;
				while (t < p->n && !done) {
					char f = p->s[t++];
					switch (f) {
					case 'i': case 'm': case 's': case 'U':
						bh_buf_putc(&flags, f);
						saw = 1;
						break;
					case '-':
						if (sign < 0)
							goto bad_perl;
						sign = -1;
						saw = 0;
						bh_buf_putc(&flags, f);
						break;
					case ':':
					case ')':
						if (sign < 0 && !saw)
							goto bad_perl;
						if (f == ':') {
							bh_buf_puts(p->out, "(?");
							bh_buf_put(p->out, flags.data ? flags.data : "", flags.len);
							bh_buf_putc(p->out, ':');
							if (tree_open(p, 0)) {
								bh_buf_free(&flags);
								return -1;
							}
						} else if (flags.len > 0) {
							bh_buf_puts(p->out, "(?");
							bh_buf_put(p->out, flags.data, flags.len);
							bh_buf_putc(p->out, ')');
						}
						done = 1;
						break;
					default:
						goto bad_perl;
					}
				}
				bh_buf_free(&flags);
				if (!done) {
					/* ran out of pattern: Go reports what was read */
					return re_error(p, "invalid or unsupported Perl syntax", p->s + i, t - i);
				}
				i = t;
				can_repeat = 0;
				break;
bad_perl:
				bh_buf_free(&flags);
				{
					/* include the offending rune */
					size_t e = t;
					if (e > p->n)
						e = p->n;
					return re_error(p, "invalid or unsupported Perl syntax", p->s + i, e - i);
				}
			}
			bh_buf_putc(p->out, '(');
			if (tree_open(p, 1))
				return -1;
			i++;
			can_repeat = 0;
			break;
		case ')': {
			int h, pr;
			if (p->depth == 0)
				return re_error(p, "unexpected )", p->s, p->n);
			if (tree_close(p, &h, &pr))
				return -1;
			p->depth--;
			tree_item(p, h, pr, 0);
			bh_buf_putc(p->out, ')');
			i++;
			can_repeat = 1;
			break;
		}
		case '|':
			tree_alt(p);
			bh_buf_putc(p->out, '|');
			i++;
			can_repeat = 0;
			break;
		case '^':
		case '$':
			/* grouped: Go lets assertions take repetition operators */
			bh_buf_puts(p->out, ch == '^' ? "(?:^)" : "(?:$)");
			tree_item(p, 1, 1, 0);
			i++;
			can_repeat = 1;
			break;
		case '.':
			bh_buf_putc(p->out, ch);
			tree_item(p, 1, 1, 0);
			i++;
			can_repeat = 1;
			break;
		case '[': {
			long r = parse_class(p, i);
			if (r < 0)
				return -1;
			tree_item(p, 1, 1, 0);
			i = (size_t)r;
			can_repeat = 1;
			break;
		}
		case '*':
		case '+':
		case '?':
		case '{': {
			size_t end = i + 1;
			long min = 0, max = 0;
			if (ch == '{') {
				if (!parse_repeat(p, i, &min, &max, &end)) {
					bh_buf_puts(p->out, "\\{");
					tree_item(p, 1, 1, 1);
					i++;
					can_repeat = 1;
					break;
				}
				if (min < 0 || min > RE_MAX_REPEAT || max > RE_MAX_REPEAT || max == -2 ||
				    (max >= 0 && min > max))
					return re_error(p, "invalid repeat count", p->s + i, end - i);
			}
			size_t after = end;
			if (after < p->n && p->s[after] == '?')
				after++;
			if (last_rep >= 0)
				return re_error(p, "invalid nested repetition operator", p->s + last_rep,
						after - (size_t)last_rep);
			if (!can_repeat)
				return re_error(p, "missing argument to repetition operator", p->s + i, after - i);
			if (ch == '{') {
				if (tree_repeat(p, max >= 0 ? max : min, min >= 2 || max >= 2, i, end - i))
					return -1;
			} else if (tree_repeat(p, -1, 0, i, 0)) {
				return -1;
			}
			bh_buf_put(p->out, p->s + i, after - i);
			this_rep = (long)tok;
			i = after;
			break;
		}
		case '\\': {
			char e = i + 1 < p->n ? p->s[i + 1] : 0;
			if (e == 'A' || e == 'b' || e == 'B' || e == 'z') {
				bh_buf_puts(p->out, "(?:\\");
				bh_buf_putc(p->out, e);
				bh_buf_putc(p->out, ')');
				tree_item(p, 1, 1, 0);
				i += 2;
				can_repeat = 1;
				break;
			}
			if (e == 'C')
				return re_error(p, "invalid escape sequence", p->s + i, 2);
			if (e == 'Q') {
				const char *q = memmem(p->s + i + 2, p->n - i - 2, "\\E", 2);
				size_t qe = q ? (size_t)(q - p->s) : p->n;
				for (size_t k = i + 2; k < qe; k += w) {
					put_rune_lit(p->out, uni_decode(p->s + k, qe - k, &w));
					tree_item(p, 1, 1, 1);
				}
				i = q ? qe + 2 : p->n;
				can_repeat = 1;
				break;
			}
			if (e == 'p' || e == 'P') {
				long r = unicode_class(p, i);
				if (r < 0)
					return -1;
				tree_item(p, 1, 1, 0);
				i = (size_t)r;
				can_repeat = 1;
				break;
			}
			if (perl_class(e, 0)) {
				bh_buf_puts(p->out, perl_class(e, 0));
				tree_item(p, 1, 1, 0);
				i += 2;
				can_repeat = 1;
				break;
			}
			uint32_t r;
			long ni = parse_escape(p, i, &r);
			if (ni < 0)
				return -1;
			put_rune_lit(p->out, r);
			tree_item(p, 1, 1, 1);
			i = (size_t)ni;
			can_repeat = 1;
			break;
		}
		default: {
			uint32_t r = uni_decode(p->s + i, p->n - i, &w);
			if (r == UNI_RUNE_ERROR && w == 1) {
				bh_buf_puts(p->err, "invalid UTF-8: `");
				bh_buf_put(p->err, p->s + i, p->n - i);
				bh_buf_putc(p->err, '`');
				return -1;
			}
			put_rune_lit(p->out, r);
			tree_item(p, 1, 1, 1);
			i += w;
			can_repeat = 1;
		}
		}
		last_rep = this_rep;
	}
	if (p->depth > 0)
		return re_error(p, "missing closing )", p->s, p->n);
	int h, pr;
	return tree_close(p, &h, &pr);
}

typedef struct regex {
	pcre2_code *code;
	pcre2_match_data *md;
	pcre2_match_context *mctx;
	uint32_t ncap;          /* capture groups */
	PCRE2_SPTR names;       /* name table */
	uint32_t name_count, name_size;
	/* the subject as matched: invalid UTF-8 bytes become U+FFFD, as Go
	 * reads them; map[] takes a position there back to the original */
	const char *subj;
	size_t subj_len;
	const size_t *map;      /* NULL when subj is the original */
	const char *orig;
	size_t orig_len;
	long long started_mono; /* CLOCK_MONOTONIC (ns) at compile time */
	long long started_cpu;  /* this thread's CPU time (ns) then, or a bit
	                         * more (cpu_time_at) */
	int shared;             /* code, md and mctx belong to the engine's cache */
} regex;

/* The budget counts CPU time, not wall time: a loaded machine must not turn
 * a size-limit error (or a success) into a time-budget error. This
 * thread's CPU clock has no vDSO path: a system call per read, which was
 * two per regex call (hundreds per chart). The monotonic clock is read in
 * user space, and a thread's CPU time never runs faster than it, so the CPU
 * clock is read only when the monotonic time since the start is past the
 * budget, and a start's CPU time is bounded from above by the last CPU
 * reading plus the monotonic time since (CPU_REF_NS at most, else read
 * again): the budget then counts at most CPU_REF_NS more, never less. */
#define CPU_REF_NS (20LL * 1000 * 1000)

static long long clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The thread's CPU time at monotonic time mono (now), or up to CPU_REF_NS
 * more; one CPU clock read per CPU_REF_NS of monotonic time at most. */
static long long cpu_time_at(long long mono)
{
	static _Thread_local long long ref_mono, ref_cpu;
	static _Thread_local int have_ref;
	if (!have_ref || mono - ref_mono > CPU_REF_NS || mono < ref_mono) {
		ref_cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		ref_mono = mono;
		have_ref = 1;
	}
	return ref_cpu + (mono - ref_mono);
}

/* 1 when the matching that started at re's compile has used more than
 * RE_TIME_BUDGET_NS of CPU time */
static int over_time_budget(const regex *re)
{
	if (clock_ns(CLOCK_MONOTONIC) - re->started_mono <= RE_TIME_BUDGET_NS)
		return 0;
	return clock_ns(CLOCK_THREAD_CPUTIME_ID) - re->started_cpu > RE_TIME_BUDGET_NS;
}

/* position in the original subject */
static size_t om(const regex *re, size_t t)
{
	return re->map ? re->map[t] : t;
}

/* Prepares re->subj from s[0..n). 0 or BH_ELIMIT. */
static int subject_prepare(tmpl_call *c, regex *re, const char *s, size_t n)
{
	size_t w, extra = 0;
	re->orig = re->subj = s;
	re->orig_len = re->subj_len = n;
	re->map = NULL;
	for (size_t i = 0; i < n; i += w)
		if (uni_decode(s + i, n - i, &w) == UNI_RUNE_ERROR && w == 1)
			extra += 2;
	if (extra == 0)
		return 0;
	char *t = tmpl_arena_alloc(c->arena, n + extra + 1);
	size_t *map = tmpl_arena_alloc(c->arena, (n + extra + 1) * sizeof(size_t));
	if (!t || !map)
		return sprig_oom(c);
	size_t k = 0;
	for (size_t i = 0; i < n; i += w) {
		uint32_t r = uni_decode(s + i, n - i, &w);
		if (r == UNI_RUNE_ERROR && w == 1) {
			memcpy(t + k, "\xEF\xBF\xBD", 3);
			map[k] = map[k + 1] = map[k + 2] = i;
			k += 3;
		} else {
			for (size_t q = 0; q < w; q++)
				map[k + q] = i;
			memcpy(t + k, s + i, w);
			k += w;
		}
	}
	map[k] = n;
	re->subj = t;
	re->subj_len = k;
	re->map = map;
	return 0;
}

static void regex_free(regex *re)
{
	if (re->shared)
		return;
	pcre2_match_data_free(re->md);
	pcre2_match_context_free(re->mctx);
	pcre2_code_free(re->code);
}

/* Compiled patterns by their Go text, per engine: charts call
 * regexReplaceAll and friends with a few constant patterns many times. */
#define REGEX_CACHE_MAX 256

/* An entry keeps the pattern's match data and context and what
 * pcre2_pattern_info tells of it, with the code: a regex function call
 * never nests another (no template runs while one matches), so the calls
 * of a pattern take turns with one set. */
typedef struct regex_cached {
	char *pat;
	size_t n;
	regex re; /* code, md, mctx, ncap and the name table */
} regex_cached;

struct tmpl_regex_cache {
	regex_cached *v; /* grown as patterns come: a chart has a few */
	size_t n, cap;
};

static void regex_cache_free(struct tmpl_regex_cache *rc);

static const regex *regex_cache_find(tmpl_engine *e, const char *pat, size_t n)
{
	struct tmpl_regex_cache *rc = e ? e->regex_cache : NULL;
	for (size_t i = 0; rc && i < rc->n; i++)
		if (rc->v[i].n == n && memcmp(rc->v[i].pat, pat, n) == 0)
			return &rc->v[i].re;
	return NULL;
}

/* 1 when the cache took re's code, md and mctx (it then frees them with
 * the engine) */
static int regex_cache_add(tmpl_engine *e, const char *pat, size_t n, const regex *re)
{
	if (!e)
		return 0;
	struct tmpl_regex_cache *rc = e->regex_cache;
	if (!rc) {
		if ((rc = e->regex_cache = calloc(1, sizeof *rc)) == NULL)
			return 0;
		e->regex_cache_free = regex_cache_free;
	}
	if (rc->n == rc->cap) {
		size_t nc = rc->cap ? rc->cap * 2 : 8;
		regex_cached *v;
		if (rc->cap == REGEX_CACHE_MAX || (v = realloc(rc->v, nc * sizeof *v)) == NULL)
			return 0;
		rc->v = v;
		rc->cap = nc;
	}
	char *k = malloc(n + 1);
	if (!k)
		return 0;
	memcpy(k, pat, n);
	rc->v[rc->n].pat = k;
	rc->v[rc->n].n = n;
	rc->v[rc->n].re = *re;
	rc->v[rc->n].re.shared = 0;
	rc->n++;
	return 1;
}

static void regex_cache_free(struct tmpl_regex_cache *rc)
{
	for (size_t i = 0; rc && i < rc->n; i++) {
		free(rc->v[i].pat);
		regex_free(&rc->v[i].re);
	}
	if (rc)
		free(rc->v);
	free(rc);
}

/* Compiles a Go pattern (or takes it from e's cache; e may be NULL). 0, or
 * -1 with err holding Go's Error() text. */
static int regex_compile(tmpl_engine *e, regex *re, const char *pat, size_t n, bh_buf *err)
{
	bh_buf out = BH_BUF_INIT;
	re_parse *p;
	int ec;
	PCRE2_SIZE eo;
	memset(re, 0, sizeof *re);
	const regex *kept = regex_cache_find(e, pat, n);
	if (kept) {
		re->code = kept->code;
		re->md = kept->md;
		re->mctx = kept->mctx;
		re->ncap = kept->ncap;
		re->names = kept->names;
		re->name_count = kept->name_count;
		re->name_size = kept->name_size;
		re->shared = 1;
		goto started;
	}
	/* not calloc: the 40 KiB of frames are set up as groups open
	 * (re_translate, tree_open), and zeroing them all cost more than the
	 * translation of a typical pattern */
	p = malloc(sizeof(re_parse));
	bh_buf_puts(err, "error parsing regexp: ");
	if (!p) {
		bh_buf_reset(err);
		bh_buf_puts(err, "out of memory");
		return -1;
	}
	p->s = pat;
	p->n = n;
	p->out = &out;
	p->err = err;
	p->depth = 0;
	int tr = re_translate(p);
	free(p);
	if (tr) {
		bh_buf_free(&out);
		return -1;
	}
	pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
	if (cc)
		pcre2_set_parens_nest_limit(cc, 1000);
	re->code = pcre2_compile((PCRE2_SPTR)(out.data ? out.data : ""), out.len,
				 PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_BACKSLASH_C,
				 &ec, &eo, cc);
	pcre2_compile_context_free(cc);
	bh_buf_free(&out);
	if (!re->code) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(ec, msg, sizeof msg);
		bh_buf_reset(err);
		bh_buf_printf(err, "error parsing regexp: %s: `", (const char *)msg);
		bh_buf_put(err, pat, n);
		bh_buf_putc(err, '`');
		return -1;
	}
	re->md = pcre2_match_data_create_from_pattern(re->code, NULL);
	re->mctx = pcre2_match_context_create(NULL);
	if (!re->md || !re->mctx) {
		regex_free(re);
		bh_buf_reset(err);
		bh_buf_puts(err, "out of memory");
		return -1;
	}
	pcre2_set_match_limit(re->mctx, RE_MATCH_LIMIT);
	pcre2_set_depth_limit(re->mctx, RE_DEPTH_LIMIT);
	pcre2_set_heap_limit(re->mctx, RE_HEAP_LIMIT);
	pcre2_pattern_info(re->code, PCRE2_INFO_CAPTURECOUNT, &re->ncap);
	pcre2_pattern_info(re->code, PCRE2_INFO_NAMECOUNT, &re->name_count);
	pcre2_pattern_info(re->code, PCRE2_INFO_NAMEENTRYSIZE, &re->name_size);
	pcre2_pattern_info(re->code, PCRE2_INFO_NAMETABLE, &re->names);
	re->shared = regex_cache_add(e, pat, n, re);
started:
	re->started_mono = clock_ns(CLOCK_MONOTONIC);
	re->started_cpu = cpu_time_at(re->started_mono);
	return 0;
}

/* One match at or after pos: 1 found, 0 none, -1 error (set on c). */
static int regex_exec(tmpl_call *c, regex *re, const char *s, size_t n, size_t pos)
{
	int rc;
	if (over_time_budget(re)) {
		bh_error_set(c->err, BH_ELIMIT, "%s: regular expression matching took too long (time budget)", c->name);
		return BH_ELIMIT;
	}
	/* subjects are valid UTF-8 (subject_prepare) and positions are on
	 * character boundaries, so PCRE2 need not re-check the whole subject
	 * on every call */
	rc = pcre2_match(re->code, (PCRE2_SPTR)s, n, pos, PCRE2_NO_UTF_CHECK, re->md, re->mctx);
	if (rc >= 0)
		return 1;
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT) {
		bh_error_set(c->err, BH_ELIMIT, "%s: regular expression too costly for this input (backtracking limit)",
			     c->name);
		return BH_ELIMIT;
	}
	PCRE2_UCHAR msg[256];
	pcre2_get_error_message(rc, msg, sizeof msg);
	return tmpl_call_errorf(c, "regexp: %s", (const char *)msg);
}

static PCRE2_SIZE *ovec(regex *re)
{
	return pcre2_get_ovector_pointer(re->md);
}

/* the error of an uncompilable pattern, as the function reports it */
enum on_bad { BAD_FALSE, BAD_PLAIN, BAD_PANIC };

static int compile_for(tmpl_call *c, regex *re, enum on_bad how)
{
	bh_buf err = BH_BUF_INIT;
	const char *pat = c->argv[0].u.s.ptr;
	size_t n = c->argv[0].u.s.len;
	if (regex_compile(c->engine, re, pat, n, &err) == 0) {
		bh_buf_free(&err);
		if (subject_prepare(c, re, c->argv[1].u.s.ptr, c->argv[1].u.s.len)) {
			regex_free(re);
			return BH_ELIMIT;
		}
		return 0;
	}
	int r;
	if (how == BAD_FALSE) {
		c->result = tmpl_bool(0);
		r = 1;
	} else if (how == BAD_PLAIN) {
		r = tmpl_call_errorf(c, "%s", bh_buf_str(&err));
	} else {
		/* regexp.MustCompile: "regexp: Compile(" + quote(expr) + "): " + err */
		bh_buf q = BH_BUF_INIT;
		int back = 1;
		for (size_t i = 0; i < n; i++) {
			unsigned char ch = (unsigned char)pat[i];
			if (ch == '`' || (ch < 0x20 && ch != '\t') || ch == 0x7f)
				back = 0;
		}
		size_t w;
		for (size_t i = 0; i < n && back; i += w)
			if (uni_decode(pat + i, n - i, &w) == UNI_RUNE_ERROR && w == 1)
				back = 0;
		if (back) {
			bh_buf_putc(&q, '`');
			bh_buf_put(&q, pat, n);
			bh_buf_putc(&q, '`');
		} else {
			gofmt_quote(&q, pat, n);
		}
		r = tmpl_call_errorf(c, "regexp: Compile(%s): %s", bh_buf_str(&q), bh_buf_str(&err));
		bh_buf_free(&q);
	}
	bh_buf_free(&err);
	return r;
}

static int do_match(tmpl_call *c, enum on_bad how)
{
	regex re;
	int r = compile_for(c, &re, how);
	if (r)
		return r == 1 ? 0 : r;
	r = regex_exec(c, &re, re.subj, re.subj_len, 0);
	regex_free(&re);
	if (r < 0)
		return r;
	c->result = tmpl_bool(r);
	return 0;
}

static int fn_regex_match(tmpl_call *c)
{
	return do_match(c, BAD_FALSE);
}

static int fn_must_regex_match(tmpl_call *c)
{
	return do_match(c, BAD_PLAIN);
}

/* Go's allMatches: calls fn(start, end) for up to n matches (n < 0: all) */
typedef int (*match_fn)(tmpl_call *c, regex *re, void *ud, size_t a, size_t b);

static int all_matches(tmpl_call *c, regex *re, const char *s, size_t len, int64_t n, match_fn fn, void *ud)
{
	size_t pos = 0;
	long prev_end = -1;
	int64_t i = 0;
	if (n < 0)
		n = (int64_t)len + 1;
	while (i < n && pos <= len) {
		int r = regex_exec(c, re, s, len, pos);
		if (r < 0)
			return r;
		if (r == 0)
			break;
		size_t a = ovec(re)[0], b = ovec(re)[1];
		int accept = 1;
		if (b == pos) {
			if ((long)a == prev_end)
				accept = 0;
			if (pos < len) {
				size_t w;
				uni_decode(s + pos, len - pos, &w);
				pos += w;
			} else {
				pos = len + 1;
			}
		} else {
			pos = b;
		}
		prev_end = (long)b;
		if (accept) {
			int e = fn(c, re, ud, a, b);
			if (e)
				return e;
			i++;
		}
	}
	return 0;
}

typedef struct collect {
	const char *s;
	tmpl_list *l;
} collect;

static int collect_match(tmpl_call *c, regex *re, void *ud, size_t a, size_t b)
{
	collect *k = ud;
	tmpl_value v = tmpl_str(c->arena, re->orig + om(re, a), om(re, b) - om(re, a));
	if (v.kind != TMPL_STRING || tmpl_list_push(c->arena, k->l, v))
		return sprig_oom(c);
	k->l->is_nil = 0;
	return 0;
}

static int find_all(tmpl_call *c, enum on_bad how)
{
	regex re;
	int r = compile_for(c, &re, how);
	if (r)
		return r;
	collect k = {re.orig, sprig_list(c, "[]string", 4)};
	if (!k.l) {
		regex_free(&re);
		return BH_ELIMIT;
	}
	k.l->is_nil = 1;
	r = all_matches(c, &re, re.subj, re.subj_len, c->argv[2].u.i, collect_match, &k);
	regex_free(&re);
	if (r)
		return r;
	c->result = tmpl_list_value(k.l);
	return 0;
}

static int fn_regex_find_all(tmpl_call *c)
{
	return find_all(c, BAD_PANIC);
}

static int fn_must_regex_find_all(tmpl_call *c)
{
	return find_all(c, BAD_PLAIN);
}

static int find(tmpl_call *c, enum on_bad how)
{
	regex re;
	int r = compile_for(c, &re, how);
	if (r)
		return r;
	r = regex_exec(c, &re, re.subj, re.subj_len, 0);
	if (r < 0) {
		regex_free(&re);
		return r;
	}
	if (r == 0)
		c->result = tmpl_str_static("", 0);
	else
		c->result = tmpl_str(c->arena, re.orig + om(&re, ovec(&re)[0]),
				     om(&re, ovec(&re)[1]) - om(&re, ovec(&re)[0]));
	regex_free(&re);
	return c->result.kind == TMPL_STRING ? 0 : sprig_oom(c);
}

static int fn_regex_find(tmpl_call *c)
{
	return find(c, BAD_PANIC);
}

static int fn_must_regex_find(tmpl_call *c)
{
	return find(c, BAD_PLAIN);
}

/* group i of the current match into out (nothing when it did not take part) */
static void put_group(bh_buf *out, regex *re, uint32_t i)
{
	PCRE2_SIZE *o = ovec(re);
	if (i > re->ncap || o[2 * i] == PCRE2_UNSET)
		return;
	bh_buf_put(out, re->orig + om(re, o[2 * i]), om(re, o[2 * i + 1]) - om(re, o[2 * i]));
}

/* Regexp.expand for ReplaceAllString */
static void expand(bh_buf *out, regex *re, const char *tpl, size_t tn)
{
	size_t i = 0, w;
	while (i < tn) {
		const char *d = memchr(tpl + i, '$', tn - i);
		if (!d)
			break;
		bh_buf_put(out, tpl + i, (size_t)(d - (tpl + i)));
		i = (size_t)(d - tpl) + 1;
		if (i < tn && tpl[i] == '$') {
			bh_buf_putc(out, '$');
			i++;
			continue;
		}
		/* extract */
		size_t k = i;
		int brace = 0;
		if (k < tn && tpl[k] == '{') {
			brace = 1;
			k++;
		}
		size_t ns = k;
		while (k < tn) {
			uint32_t r = uni_decode(tpl + k, tn - k, &w);
			if (!uni_is_letter(r) && !uni_is_digit(r) && r != '_')
				break;
			k += w;
		}
		size_t nl = k - ns;
		if (nl == 0 || (brace && (k >= tn || tpl[k] != '}'))) {
			bh_buf_putc(out, '$');
			continue;
		}
		if (brace)
			k++;
		const char *name = tpl + ns;
		long num = 0;
		for (size_t q = 0; q < nl; q++) {
			if (name[q] < '0' || name[q] > '9' || num >= 100000000) {
				num = -1;
				break;
			}
			num = num * 10 + (name[q] - '0');
		}
		if (name[0] == '0' && nl > 1)
			num = -1;
		i = k;
		if (num >= 0) {
			put_group(out, re, (uint32_t)num);
		} else {
			/* first group with that name, in group order */
			uint32_t best = 0;
			for (uint32_t e = 0; e < re->name_count; e++) {
				PCRE2_SPTR ent = re->names + e * re->name_size;
				uint32_t g = (uint32_t)(ent[0] << 8 | ent[1]);
				const char *en = (const char *)ent + 2;
				if (strlen(en) == nl && memcmp(en, name, nl) == 0 && (best == 0 || g < best))
					best = g;
			}
			if (best)
				put_group(out, re, best);
		}
	}
	bh_buf_put(out, tpl + i, tn - i);
}

/* Go's replaceAll */
static int replace_all(tmpl_call *c, enum on_bad how, int literal)
{
	regex re;
	int r = compile_for(c, &re, how);
	if (r)
		return r;
	const char *src = re.subj, *repl = c->argv[2].u.s.ptr;
	size_t end = re.subj_len, rn = c->argv[2].u.s.len;
	size_t last = 0, pos = 0, w;
	bh_buf b;
	tmpl_buf_get(c->engine, &b);
	while (pos <= end) {
		r = regex_exec(c, &re, src, end, pos);
		if (r < 0) {
			regex_free(&re);
			bh_buf_free(&b);
			return r;
		}
		if (r == 0)
			break;
		size_t a0 = ovec(&re)[0], a1 = ovec(&re)[1];
		bh_buf_put(&b, re.orig + om(&re, last), om(&re, a0) - om(&re, last));
		if (a1 > last || a0 == 0) {
			if (literal)
				bh_buf_put(&b, repl, rn);
			else
				expand(&b, &re, repl, rn);
		}
		last = a1;
		if (sprig_check_size(c, &b)) {
			regex_free(&re);
			bh_buf_free(&b);
			return BH_ELIMIT;
		}
		w = 0;
		if (pos < end)
			uni_decode(src + pos, end - pos, &w);
		if (pos + w > a1)
			pos += w;
		else if (pos + 1 > a1)
			pos++;
		else
			pos = a1;
	}
	bh_buf_put(&b, re.orig + om(&re, last), re.orig_len - om(&re, last));
	regex_free(&re);
	return sprig_ret_buf(c, &b);
}

static int fn_regex_replace_all(tmpl_call *c)
{
	return replace_all(c, BAD_PANIC, 0);
}

static int fn_must_regex_replace_all(tmpl_call *c)
{
	return replace_all(c, BAD_PLAIN, 0);
}

static int fn_regex_replace_all_literal(tmpl_call *c)
{
	return replace_all(c, BAD_PANIC, 1);
}

static int fn_must_regex_replace_all_literal(tmpl_call *c)
{
	return replace_all(c, BAD_PLAIN, 1);
}

typedef struct splitter {
	tmpl_list *idx; /* match bounds as ints: a0 b0 a1 b1 ... */
} splitter;

static int collect_bounds(tmpl_call *c, regex *re, void *ud, size_t a, size_t b)
{
	splitter *sp = ud;
	(void)re;
	if (tmpl_list_push(c->arena, sp->idx, tmpl_int((int64_t)a)) ||
	    tmpl_list_push(c->arena, sp->idx, tmpl_int((int64_t)b)))
		return sprig_oom(c);
	return 0;
}

/* Go's Regexp.Split */
static int split(tmpl_call *c, enum on_bad how)
{
	regex re;
	int64_t n = c->argv[2].u.i;
	int r = compile_for(c, &re, how);
	if (r)
		return r;
	const char *s = re.subj;
	size_t len = re.subj_len;
	tmpl_list *out = sprig_list(c, "[]string", 4);
	if (!out) {
		regex_free(&re);
		return BH_ELIMIT;
	}
	if (n == 0) {
		regex_free(&re);
		out->is_nil = 1;
		c->result = tmpl_list_value(out);
		return 0;
	}
	if (c->argv[0].u.s.len > 0 && len == 0) {
		regex_free(&re);
		if (tmpl_list_push(c->arena, out, tmpl_str_static("", 0)))
			return sprig_oom(c);
		c->result = tmpl_list_value(out);
		return 0;
	}
	splitter sp = {sprig_list(c, "[]int", 8)};
	if (!sp.idx) {
		regex_free(&re);
		return BH_ELIMIT;
	}
	r = all_matches(c, &re, s, len, n, collect_bounds, &sp);
	regex_free(&re);
	if (r)
		return r;
	/* pieces come from the original subject */
	size_t beg = 0, end = 0;
	for (size_t k = 0; k + 1 < sp.idx->len; k += 2) {
		if (n > 0 && (int64_t)out->len == n - 1)
			break;
		end = (size_t)sp.idx->items[k].u.i;
		size_t m1 = (size_t)sp.idx->items[k + 1].u.i;
		if (m1 != 0 && tmpl_list_push(c->arena, out, tmpl_str(c->arena, re.orig + om(&re, beg), om(&re, end) - om(&re, beg))))
			return sprig_oom(c);
		beg = m1;
	}
	if (end != len && tmpl_list_push(c->arena, out, tmpl_str(c->arena, re.orig + om(&re, beg), re.orig_len - om(&re, beg))))
		return sprig_oom(c);
	c->result = tmpl_list_value(out);
	return 0;
}

static int fn_regex_split(tmpl_call *c)
{
	return split(c, BAD_PANIC);
}

static int fn_must_regex_split(tmpl_call *c)
{
	return split(c, BAD_PLAIN);
}

static int fn_regex_quote_meta(tmpl_call *c)
{
	const char *s = c->argv[0].u.s.ptr;
	size_t n = c->argv[0].u.s.len;
	bh_buf b = BH_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (strchr("\\.+*?()|[]{}^$", s[i]) && s[i] != '\0')
			bh_buf_putc(&b, '\\');
		bh_buf_putc(&b, s[i]);
	}
	return sprig_ret_buf(c, &b);
}

const tmpl_func_def tmpl_funcs_regex[] = {
	{"regexMatch", fn_regex_match, "ss", NULL},
	{"mustRegexMatch", fn_must_regex_match, "ss", NULL},
	{"regexFindAll", fn_regex_find_all, "ssi", NULL},
	{"mustRegexFindAll", fn_must_regex_find_all, "ssi", NULL},
	{"regexFind", fn_regex_find, "ss", NULL},
	{"mustRegexFind", fn_must_regex_find, "ss", NULL},
	{"regexReplaceAll", fn_regex_replace_all, "sss", NULL},
	{"mustRegexReplaceAll", fn_must_regex_replace_all, "sss", NULL},
	{"regexReplaceAllLiteral", fn_regex_replace_all_literal, "sss", NULL},
	{"mustRegexReplaceAllLiteral", fn_must_regex_replace_all_literal, "sss", NULL},
	{"regexSplit", fn_regex_split, "ssi", NULL},
	{"mustRegexSplit", fn_must_regex_split, "ssi", NULL},
	{"regexQuoteMeta", fn_regex_quote_meta, "s", NULL},
	{NULL, NULL, NULL, NULL},
};
