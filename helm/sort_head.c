/* helm/sort_head.c — manifest_head_scan (see sort.h): the head of a
 * rendered document read from its lines, without building its tree.
 *
 * Helm's SortManifests parses every document fully (sigs.k8s.io/yaml into a
 * SimpleHead), so a document it cannot read fails the render; yet sorting
 * needs only apiVersion, kind, metadata.name and four annotations. This scan
 * accepts the plain block YAML that rendered charts are made of (block
 * mappings and sequences, one-line plain and quoted scalars, literal and
 * folded block scalars, `[]` and `{}`, comments) and answers "not sure" on
 * anything else: anchors, aliases, tags, flow collections, multi-line plain
 * or quoted scalars, tabs, control or non-printable characters, keys that
 * YAML would type (numbers, booleans, null) or Go's JSON decoder would match
 * case-insensitively, scalars that could read as NaN or infinite, and any
 * indentation it does not fully follow. On "not sure" the caller parses the
 * document as before, so what this accepts must be exactly what the full
 * parse accepts, with the same head: tests/fuzz/fuzz_sort_head.c checks
 * that against lib/yaml.c. */
#include "helm/sort.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "lib/gostrconv.h"
#include "lib/yaml_resolve.h"

#define HEAD_MAX_DEPTH 200       /* far below YAML_MAX_DEPTH */
#define HEAD_MAX_NODES 500000    /* far below YAML_MAX_NODES */
#define HEAD_MAX_BYTES (16 << 20) /* far below YAML_MAX_BYTES */
#define HEAD_MAX_KEY 1000        /* a simple key is at most 1024 characters */

enum { UNSURE = 0, OK = 1 };
enum { ROLE_NONE, ROLE_TOP, ROLE_META, ROLE_ANN };
enum { V_NULL, V_PLAIN, V_SQUOTE, V_DQUOTE, V_BLOCK, V_EMPTYSEQ, V_EMPTYMAP, V_FLOW, V_MAP, V_SEQ };

typedef struct scan {
	const char *s, *end;
	const char *cur;  /* start of the next line to read */
	int depth;
	int cur_ind;      /* indentation of the line content_line returned */
	const char *hint; /* a line whose indentation plain_more found: hint_ind */
	int hint_ind;
	size_t nodes;
	manifest_head *h;
	int oom;
} scan;

typedef struct value {
	int type;
	const char *p; /* scalar text (quotes excluded) */
	size_t n;
} value;

const char *const manifest_hook_keys[MANIFEST_HEAD_HOOKS] = {
	"helm.sh/hook", "helm.sh/hook-weight", "helm.sh/hook-delete-policy",
	"helm.sh/hook-output-log-policy",
};

static int eol(const scan *sc, const char *p)
{
	return p >= sc->end || *p == '\n';
}

static const char *line_end(const scan *sc, const char *p)
{
	const char *e = memchr(p, '\n', (size_t)(sc->end - p));
	return e ? e : sc->end;
}

static const char *next_line(const scan *sc, const char *p)
{
	const char *e = line_end(sc, p);
	return e < sc->end ? e + 1 : sc->end;
}

static int indent_of(const scan *sc, const char *line)
{
	const char *p = line;
	/* 16 or 8 columns at a time: rendered manifests are deeply indented */
#if defined(__SSE2__)
	while (sc->end - p >= 16) {
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
			_mm_loadu_si128((const __m128i *)(const void *)p), _mm_set1_epi8(' ')));
		if (m != 0xFFFF)
			return (int)(p - line) + __builtin_ctz(~m);
		p += 16;
	}
#endif
	while (sc->end - p >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		w ^= 0x2020202020202020ULL; /* a space becomes 0 */
		if (w)
			return (int)(p - line) + __builtin_ctzll(w) / 8; /* little endian */
		p += 8;
	}
	while (p < sc->end && *p == ' ')
		p++;
	return (int)(p - line);
}

/* The next line with content from sc->cur (blank and comment lines
 * skipped), or NULL at the end; sets sc->cur to it. */
static const char *content_line(scan *sc)
{
	while (sc->cur < sc->end) {
		int i = sc->cur == sc->hint ? sc->hint_ind : indent_of(sc, sc->cur);
		const char *p = sc->cur + i;
		if (!eol(sc, p) && *p != '#') {
			sc->cur_ind = i;
			return sc->cur;
		}
		sc->cur = next_line(sc, sc->cur);
	}
	return NULL;
}

/* A document marker ("---" or "...") starting at s + i. */
static int marker_at(const char *s, size_t n, size_t i)
{
	return i + 3 <= n && (!memcmp(s + i, "---", 3) || !memcmp(s + i, "...", 3));
}

/* Every byte printable as libyaml/goyaml read it (no tab, CR, control or
 * C1 character, BOM, LS/PS, noncharacter), and no document marker line. */
static int chars_ok(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t stop = n;
#if defined(__SSE2__)
		if (n - i >= 16) { /* 16 bytes: all in 0x20..0x7E but for newlines pass */
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(u + i));
			/* signed: bytes from 0x80 are below 0x20 too */
			unsigned odd = (unsigned)_mm_movemask_epi8(_mm_or_si128(
				_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7F))));
			if (!odd) {
				i += 16;
				continue;
			}
			unsigned nl = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
			if (odd == nl) {
				for (; nl; nl &= nl - 1)
					if (marker_at(s, n, i + (size_t)__builtin_ctz(nl) + 1))
						return 0;
				i += 16;
				continue;
			}
			stop = i + 16; /* these 16 one by one */
		}
#else
		if (n - i >= 8) { /* 8 bytes all in 0x20..0x7E pass at once */
			uint64_t w;
			memcpy(&w, u + i, 8);
			if (!((((w - 0x2020202020202020ULL) & ~w) | ((w + 0x0101010101010101ULL) | w)) &
			      0x8080808080808080ULL)) {
				i += 8;
				continue;
			}
			stop = i + 8; /* these 8 one by one (a newline among them, mostly) */
		}
#endif
		while (i < stop) {
			unsigned c = u[i];
			if (c >= 0x20 && c < 0x7F) {
				i++;
				continue;
			}
			if (c == '\n') {
				i++;
				if (marker_at(s, n, i))
					return 0;
				continue;
			}
			if (c < 0x80)
				return 0;
			int32_t r;
			i += (size_t)utf8_rune_go(u + i, n - i, &r);
			if (r < 0xA0 || r == 0x2028 || r == 0x2029 || r == 0xFEFF || r == 0xFFFE || r == 0xFFFF)
				return 0;
		}
	}
	return !marker_at(s, n, 0);
}

static int indicator(char c)
{
	/* NUL too, as strchr finds a string's terminator */
	static const unsigned char ind[256] = {
		[0] = 1, ['-'] = 1, ['?'] = 1, [':'] = 1, [','] = 1, ['['] = 1, [']'] = 1, ['{'] = 1, ['}'] = 1,
		['#'] = 1, ['&'] = 1, ['*'] = 1, ['!'] = 1, ['|'] = 1, ['>'] = 1, ['\''] = 1, ['"'] = 1,
		['%'] = 1, ['@'] = 1, ['`'] = 1,
	};
	return ind[(unsigned char)c];
}

static int blank_at(const scan *sc, const char *p)
{
	return eol(sc, p) || *p == ' ';
}

/* typed_word's first letters: 1, typed whatever follows; 2, the first
 * letter of one of the words typed_word_slow looks at */
static const unsigned char typed_first[256] = {
	[0] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
	['7'] = 1, ['8'] = 1, ['9'] = 1, ['+'] = 1, ['-'] = 1, ['.'] = 1, ['~'] = 1,
	['<'] = 1, ['='] = 1, ['y'] = 2, ['Y'] = 2, ['n'] = 2, ['N'] = 2, ['t'] = 2,
	['T'] = 2, ['f'] = 2, ['F'] = 2, ['o'] = 2, ['O'] = 2,
};

/* typed_word of a word of 1 to 5 characters starting with a letter of
 * typed_first's 2 */
static int typed_word_slow(const char *p, size_t n)
{
	/* the one word of this length and first letter, if any: it is typed
	 * written lower-case, capitalized or upper-case */
	char c = (char)(p[0] | 0x20);
	const char *w = n == 1 ? (c == 'y' ? "y" : "n") :
			n == 2 ? (c == 'n' ? "no" : c == 'o' ? "on" : NULL) :
			n == 3 ? (c == 'y' ? "yes" : c == 'o' ? "off" : NULL) :
			n == 4 ? (c == 't' ? "true" : c == 'n' ? "null" : NULL) :
				 (c == 'f' ? "false" : NULL);
	if (!w || (n == 1 && c != 'y' && c != 'n'))
		return 0;
	int lower = 1, upper = 1;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] | 0x20) != w[i]) /* neither case of w: "type", "name" */
			return 0;
		lower &= p[i] == w[i];
		upper &= p[i] == (char)(w[i] - 'a' + 'A');
	}
	return lower || (upper && p[0] != w[0]);
}

/* A plain scalar YAML 1.1 would not type as a string: inline for the
 * keys and values (most) that their first letter or length decides. */
static inline int typed_word(const char *p, size_t n)
{
	unsigned f = typed_first[n ? (unsigned char)p[0] : 0];
	if (f != 2 || n > 5)
		return f == 1;
	return typed_word_slow(p, n);
}

/* A plain scalar that might resolve to a float too large, or to NaN/Inf:
 * one that Go's ParseFloat could read (a digit at least, only characters
 * of a number) with an exponent or past 300 characters, or inf/nan. */
static int float_risk(const char *p, size_t n)
{
	static const unsigned char numeric[256] = {
		['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
		['8'] = 1, ['9'] = 1, ['+'] = 1, ['-'] = 1, ['.'] = 1,
	};
	if (!n || !numeric[(unsigned char)p[0]])
		return 0;
	size_t i = 0;
	while (i < n && strchr("+-.", p[i]))
		i++;
	if (n - i >= 3 && (!strncasecmp(p + i, "inf", 3) || !strncasecmp(p + i, "nan", 3)))
		return 1;
	int hex = n - i >= 2 && p[i] == '0' && (p[i + 1] == 'x' || p[i + 1] == 'X');
	int exp = 0, digit = hex;
	for (size_t j = i + 2 * hex; j < n; j++) {
		if (!strchr(hex ? "0123456789abcdefABCDEF_.pP+-" : "0123456789_.eE+-", p[j]))
			return 0; /* no number of either form ("--flag=x", however long) */
		exp |= !!strchr(hex ? "pP" : "eE", p[j]);
		digit |= p[j] >= '0' && p[j] <= '9';
	}
	/* no number without a digit ("-e"); below 300 characters, only an
	 * exponent reaches past 1e308 */
	return digit && (exp || n > 300);
}

/* The 4 hex digits of a "\\u" escape at p, naming a printable character
 * (what chars_ok lets through, no surrogate): 1, else 0 (not sure). */
static int printable_u(const scan *sc, const char *p)
{
	unsigned r = 0;
	if (sc->end - p < 4)
		return 0;
	for (int i = 0; i < 4; i++) {
		int d = go_unhex((unsigned char)p[i]);
		if (d < 0)
			return 0;
		r = r * 16 + (unsigned)d;
	}
	return (r >= 0x20 && r < 0x7F) || (r >= 0xA0 && r < 0xD800) ||
	       (r >= 0xE000 && r < 0xFFFE && r != 0xFEFF && r != 0x2028 && r != 0x2029);
}

/* A quoted scalar at p (on its quote): *v set, *after past the closing
 * quote. One line when n < 0; else it may go on over lines indented more
 * than n (its collection's column), and is then a string whose text this
 * scan does not take (V_BLOCK). UNSURE on escapes libyaml might refuse, an
 * escaped line break, or a missing end. */
static int quoted(const scan *sc, const char *p, int n, value *v, const char **after)
{
	char q = *p++;
	const char *start = p;
	int lines = 0;
	for (;; p++) {
		if (p >= sc->end)
			return UNSURE;
		if (*p == '\n') {
			int i = indent_of(sc, p + 1);
			if (n < 0 || (!eol(sc, p + 1 + i) && i <= n))
				return UNSURE;
			lines = 1;
			continue;
		}
		if (q == '\'' && *p == '\'') {
			if (!eol(sc, p + 1) && p[1] == '\'') {
				p++;
				continue;
			}
			break;
		}
		if (q == '"' && *p == '\\') {
			p++;
			if (!eol(sc, p) && *p == 'u' && printable_u(sc, p + 1)) {
				p += 4; /* "\u003c", as Go's JSON encoder writes '<' */
				continue;
			}
			/* goyaml.v2 has no "\/" escape (lib/yaml.c refuses it) */
			if (eol(sc, p) || !strchr("abtnvfre \"\\", *p))
				return UNSURE;
			continue;
		}
		if (q == '"' && *p == '"')
			break;
	}
	v->type = lines ? V_BLOCK : q == '"' ? V_DQUOTE : V_SQUOTE;
	v->p = start;
	v->n = (size_t)(p - start);
	*after = p + 1;
	return OK;
}

/* Spaces then the end of the line or a comment. */
static int rest_empty(const scan *sc, const char *p)
{
	const char *q = p;
	while (!eol(sc, q) && *q == ' ')
		q++;
	return eol(sc, q) || (*q == '#' && q > p);
}

enum { NOTKEY = 2 };

/* What try_key looks at in a plain line: ':', what a key may not hold, and
 * the line's end. */
static const unsigned char key_special[256] = {
	[':'] = 1, ['#'] = 1, ['['] = 1, [']'] = 1, ['{'] = 1, ['}'] = 1, [','] = 1,
	['"'] = 1, ['\''] = 1, ['\n'] = 1,
};

/* What plain_stop looks for. */
static const unsigned char plain_special[256] = {[':'] = 1, ['#'] = 1, ['\n'] = 1};

#if defined(__SSE2__)
static inline __m128i eq(__m128i v, char c)
{
	return _mm_cmpeq_epi8(v, _mm_set1_epi8(c));
}

/* The bytes of v that key_special or plain_special marks, as bits. */
static inline unsigned key_bits(__m128i v)
{
	__m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20)); /* [ ] become { } */
	__m128i m = _mm_or_si128(_mm_or_si128(eq(v, ':'), eq(v, '#')), _mm_or_si128(eq(v, '\n'), eq(v, ',')));
	m = _mm_or_si128(m, _mm_or_si128(eq(v, '"'), eq(v, '\'')));
	m = _mm_or_si128(m, _mm_or_si128(eq(folded, '{'), eq(folded, '}')));
	return (unsigned)_mm_movemask_epi8(m);
}

static inline unsigned plain_bits(__m128i v)
{
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(eq(v, ':'), eq(v, '#')), eq(v, '\n')));
}
#endif

/* The first byte from q that table marks (key_special or plain_special),
 * or sc->end: 16 bytes at a time where SSE2 is. */
static inline const char *skip_to(const scan *sc, const char *q, const unsigned char *table)
{
#if defined(__SSE2__)
	while (sc->end - q >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
		unsigned m = table == key_special ? key_bits(v) : plain_bits(v);
		if (m)
			return q + __builtin_ctz(m);
		q += 16;
	}
#endif
	while (q < sc->end && !table[(unsigned char)*q])
		q++;
	return q;
}

/* A `key:` at p: OK with the key's text in *k and *after past the colon,
 * NOTKEY when the line holds no key, UNSURE otherwise. */
static int try_key(const scan *sc, const char *p, value *k, const char **after)
{
	if (*p == '"' || *p == '\'') {
		const char *a;
		if (!quoted(sc, p, -1, k, &a))
			return UNSURE;
		if (eol(sc, a) || *a != ':')
			return rest_empty(sc, a) ? NOTKEY : UNSURE;
		if (!blank_at(sc, a + 1) || k->n > HEAD_MAX_KEY ||
		    (k->type == V_DQUOTE && memchr(k->p, '\\', k->n)))
			return UNSURE;
		*after = a + 1;
		return OK;
	}
	const char *q = p;
	if (indicator(*p) && !(*p == '-' && !blank_at(sc, p + 1)))
		return NOTKEY; /* a value of its own, or nothing this scan reads */
	int odd = 0; /* a character that a plain value may hold, but not a key here */
	for (;; q++) {
		q = skip_to(sc, q, key_special);
		if (eol(sc, q))
			break;
		if (*q == ':' && blank_at(sc, q + 1))
			break;
		if (*q == '#' && q > p && q[-1] == ' ')
			return NOTKEY;
		if (*q != ':')
			odd = 1;
	}
	if (eol(sc, q))
		return NOTKEY;
	size_t n = (size_t)(q - p);
	if (odd || !n || n > HEAD_MAX_KEY || p[n - 1] == ' ' || indicator(p[0]) || typed_word(p, n))
		return UNSURE;
	k->type = V_PLAIN;
	k->p = p;
	k->n = n;
	*after = q + 1;
	return OK;
}

#define HEAD_MAX_FLOW 50 /* nesting of flow collections */

/* A scalar inside a flow collection at p: quoted, or plain up to one of
 * ",[]{}:#" (a plain key must then be followed by ": ", a plain value by
 * ',' or the end of its collection). *after is where it stops. */
static int flow_scalar(const scan *sc, const char *p, int key, const char **after)
{
	value v;
	if (*p == '"' || *p == '\'')
		return quoted(sc, p, -1, &v, after) && (!key || v.n < HEAD_MAX_KEY);
	if (indicator(*p) && !(*p == '-' && !eol(sc, p + 1) && !strchr(" ,[]{}", p[1])))
		return UNSURE;
	const char *q = p, *last = p;
	for (; !eol(sc, q) && !strchr(",[]{}:#", *q); q++)
		if (*q != ' ')
			last = q + 1;
	size_t n = (size_t)(last - p);
	/* goyaml.v2 ends a flow plain scalar at a '?' (lib/yaml.c refuses it) */
	if (memchr(p, '?', n))
		return UNSURE;
	if (!n || n > HEAD_MAX_KEY || (key ? typed_word(p, n) || *q != ':' || last != q || !blank_at(sc, q + 1) :
			 float_risk(p, n) || *q == ':' || *q == '#'))
		return UNSURE;
	*after = q;
	return OK;
}

static const char *skip_spaces(const scan *sc, const char *p)
{
	while (!eol(sc, p) && *p == ' ')
		p++;
	return p;
}

/* A one-line flow sequence or mapping at p (on its bracket); *after past
 * its end. No empty entries, trailing commas, single pairs or comments. */
static int flow(scan *sc, const char *p, int depth, const char **after)
{
	char close = *p == '[' ? ']' : '}';
	int map = *p == '{';
	if (depth > HEAD_MAX_FLOW || ++sc->nodes > HEAD_MAX_NODES)
		return UNSURE;
	p = skip_spaces(sc, p + 1);
	if (!eol(sc, p) && *p == close) {
		*after = p + 1;
		return OK;
	}
	for (;;) {
		if (map) {
			if (!flow_scalar(sc, p, 1, &p) || eol(sc, p) || *p != ':')
				return UNSURE;
			p = skip_spaces(sc, p + 1);
		}
		if (eol(sc, p))
			return UNSURE;
		int ok = *p == '[' || *p == '{' ? flow(sc, p, depth + 1, &p) : flow_scalar(sc, p, 0, &p);
		if (!ok)
			return UNSURE;
		p = skip_spaces(sc, p);
		if (eol(sc, p))
			return UNSURE;
		if (*p == close) {
			*after = p + 1;
			return OK;
		}
		if (*p != ',')
			return UNSURE;
		p = skip_spaces(sc, p + 1);
		if (eol(sc, p) || *p == close)
			return UNSURE;
	}
}

static int node(scan *sc, const char *line, int k, int role, value *v);

/* A literal or folded block scalar whose header is at p, in a collection
 * indented n: consumes its lines. */
static int block_scalar(scan *sc, const char *p, int n, value *v)
{
	p++;
	if (!eol(sc, p) && (*p == '+' || *p == '-'))
		p++;
	if (!rest_empty(sc, p) || (!eol(sc, p) && *p != ' '))
		return UNSURE;
	sc->cur = next_line(sc, p);
	int maxblank = 0, ind = -1;
	const char *l = sc->cur;
	for (; l < sc->end; l = next_line(sc, l)) {
		int i = indent_of(sc, l);
		if (!eol(sc, l + i)) {
			ind = i;
			break;
		}
		if (i > maxblank)
			maxblank = i;
	}
	if (ind < 0) { /* nothing after: an empty or all-blank scalar */
		sc->cur = sc->end;
	} else {
		if (ind <= n || maxblank > ind)
			return UNSURE;
		while (l < sc->end) {
			int i = indent_of(sc, l);
			if (!eol(sc, l + i) && i < ind) {
				sc->hint = l; /* content_line reads this line next */
				sc->hint_ind = i;
				break;
			}
			l = next_line(sc, l);
		}
		sc->cur = l;
	}
	v->type = V_BLOCK;
	return OK;
}

/* Where the plain scalar text at p stops on its line: the line's end, or
 * a comment (" #"); NULL at a ": " (a plain scalar holds none). */
static const char *plain_stop(const scan *sc, const char *p)
{
	for (const char *q = p;; q++) {
		q = skip_to(sc, q, plain_special);
		if (eol(sc, q))
			return q;
		if (*q == ':' && blank_at(sc, q + 1))
			return NULL;
		if (*q == '#' && q > p && q[-1] == ' ')
			return q;
	}
}

/* The lines that continue a plain scalar (more indented than its
 * collection at n, up to one that is not): the scalar becomes a string
 * whose text this scan does not take (V_BLOCK). */
static int plain_more(scan *sc, int n, value *v)
{
	for (const char *l = sc->cur; l < sc->end;) {
		int i = indent_of(sc, l);
		if (eol(sc, l + i)) {
			l = next_line(sc, l);
			continue;
		}
		const char *p = l + i;
		if (i <= n || *p == '#') {
			sc->hint = l; /* content_line reads this line next */
			sc->hint_ind = i;
			return OK;
		}
		if (strchr("-?:", *p) && blank_at(sc, p + 1))
			return UNSURE;
		const char *q = plain_stop(sc, p);
		if (!q || !eol(sc, q))
			return UNSURE;
		v->type = V_BLOCK;
		sc->cur = l = q < sc->end ? q + 1 : sc->end;
	}
	return OK;
}

/* The value after `key:` or `- ` at p, in a collection indented n (ctx is
 * V_MAP or V_SEQ); on OK sc->cur is the line after it. */
static int value_at(scan *sc, const char *p, int n, int ctx, int role, value *v)
{
	while (!eol(sc, p) && *p == ' ')
		p++;
	if (eol(sc, p) || *p == '#') {
		sc->cur = next_line(sc, p);
		const char *l = content_line(sc);
		v->type = V_NULL;
		if (!l)
			return OK;
		int k = sc->cur_ind;
		if (k > n)
			return node(sc, l, k, role, v);
		if (k == n && ctx == V_MAP && l[k] == '-' && blank_at(sc, l + k + 1))
			return node(sc, l, k, role, v);
		return OK;
	}
	if (*p == '|' || *p == '>')
		return block_scalar(sc, p, n, v);
	if (*p == '"' || *p == '\'') {
		const char *a;
		if (!quoted(sc, p, n, v, &a) || !rest_empty(sc, a))
			return UNSURE;
		sc->cur = next_line(sc, a);
		return OK;
	}
	if (*p == '[' || *p == '{') {
		const char *a;
		if (!flow(sc, p, 0, &a) || !rest_empty(sc, a))
			return UNSURE;
		v->type = a == skip_spaces(sc, p + 1) + 1 ? (*p == '[' ? V_EMPTYSEQ : V_EMPTYMAP) : V_FLOW;
		sc->cur = next_line(sc, p);
		return OK;
	}
	if (indicator(*p) && !(strchr("-:", *p) && !blank_at(sc, p + 1)))
		return UNSURE;
	const char *q = plain_stop(sc, p), *le = q, *last;
	if (!q)
		return UNSURE;
	if (!eol(sc, q)) /* a comment */
		le = line_end(sc, q);
	for (last = q; last > p && last[-1] == ' ';)
		last--;
	v->type = V_PLAIN;
	v->p = p;
	v->n = (size_t)(last - p);
	if (float_risk(v->p, v->n))
		return UNSURE;
	sc->cur = le < sc->end ? le + 1 : sc->end;
	return q == le ? plain_more(sc, n, v) : OK;
}

/* A string the Go field would get unchanged (a string-typed scalar). */
static int string_value(const value *v)
{
	if (v->type == V_PLAIN)
		return !typed_word(v->p, v->n);
	return v->type == V_SQUOTE || v->type == V_DQUOTE || v->type == V_BLOCK;
}

/* The scalar's text, unquoted, into *dst (which must be unset). */
static int take_string(scan *sc, const value *v, char **dst)
{
	if (*dst || !string_value(v) || v->type == V_BLOCK ||
	    (v->type == V_DQUOTE && memchr(v->p, '\\', v->n)))
		return UNSURE;
	char *s = malloc(v->n + 1), *o = s;
	if (!s) {
		sc->oom = 1;
		return UNSURE;
	}
	for (size_t i = 0; i < v->n; i++) {
		*o++ = v->p[i];
		if (v->type == V_SQUOTE && v->p[i] == '\'')
			i++;
	}
	*o = 0;
	*dst = s;
	return OK;
}

static int key_is(const value *k, const char *name)
{
	return strlen(name) == k->n && !memcmp(k->p, name, k->n);
}

static int key_like(const value *k, const char *name)
{
	return strlen(name) == k->n && !strncasecmp(k->p, name, k->n);
}

/* Records what the head needs of key k's value v in a mapping of role. */
static int head_entry(scan *sc, int role, const value *k, const value *v, int *seen)
{
	manifest_head *h = sc->h;
	if (role == ROLE_ANN) {
		if (!string_value(v))
			return UNSURE;
		for (int i = 0; i < MANIFEST_HEAD_HOOKS; i++)
			if (key_is(k, manifest_hook_keys[i]))
				return take_string(sc, v, &h->hooks[i]);
		return OK;
	}
	static const char *const top[] = {"apiVersion", "kind", "metadata"};
	static const char *const meta[] = {"name", "annotations"};
	const char *const *names = role == ROLE_TOP ? top : meta;
	int nn = role == ROLE_TOP ? 3 : 2;
	for (int i = 0; i < nn; i++) {
		if (!key_like(k, names[i]))
			continue;
		if (!key_is(k, names[i]) || (*seen & (1 << i)))
			return UNSURE;
		*seen |= 1 << i;
		if (role == ROLE_TOP && i < 2)
			return take_string(sc, v, i ? &h->kind : &h->api_version);
		if (role == ROLE_META && i == 0)
			return take_string(sc, v, &h->name);
		/* metadata must be a mapping; annotations may also be empty */
		return v->type == V_MAP || (i == 1 && (v->type == V_NULL || v->type == V_EMPTYMAP)) ? OK : UNSURE;
	}
	return OK;
}

static int child_role(int role, const value *k)
{
	if (role == ROLE_TOP && key_is(k, "metadata"))
		return ROLE_META;
	if (role == ROLE_META && key_is(k, "annotations"))
		return ROLE_ANN;
	return ROLE_NONE;
}

/* After a collection's entry: OK to go on with the line at indent n in *l,
 * NOTKEY when the collection ends (a line less indented, or none). */
static int next_entry(scan *sc, int n, const char **l)
{
	*l = content_line(sc);
	if (!*l)
		return NOTKEY;
	int i = sc->cur_ind;
	if (i < n)
		return NOTKEY;
	return i == n ? OK : UNSURE;
}

/* A block mapping whose first key, k (try_key read it; its colon just
 * before after), is at column n, as its other keys. */
static int mapping(scan *sc, value k, const char *after, int n, int role)
{
	int seen = 0;
	for (;;) {
		value v;
		const char *l;
		if (++sc->nodes > HEAD_MAX_NODES)
			return UNSURE;
		if (!value_at(sc, after, n, V_MAP, child_role(role, &k), &v))
			return UNSURE;
		if (role != ROLE_NONE && !head_entry(sc, role, &k, &v, &seen))
			return UNSURE;
		int r = next_entry(sc, n, &l);
		if (r == NOTKEY)
			return OK;
		if (r != OK || l[n] == '-' || try_key(sc, l + n, &k, &after) != OK)
			return UNSURE;
	}
}

/* A block sequence whose first `-` is at p, at column n. */
static int sequence(scan *sc, const char *p, int n)
{
	for (;;) {
		value v, k;
		const char *l, *after, *q = p + 1;
		if (++sc->nodes > HEAD_MAX_NODES || !blank_at(sc, q))
			return UNSURE;
		while (!eol(sc, q) && *q == ' ')
			q++;
		if (!eol(sc, q) && *q == '-' && blank_at(sc, q + 1))
			return UNSURE;
		int r = eol(sc, q) ? NOTKEY : try_key(sc, q, &k, &after);
		if (r == UNSURE)
			return UNSURE;
		if (r == OK) {
			int c = (int)(q - p) + n;
			if (++sc->depth > HEAD_MAX_DEPTH || !mapping(sc, k, after, c, ROLE_NONE))
				return UNSURE;
			sc->depth--;
		} else if (!value_at(sc, q, n, V_SEQ, ROLE_NONE, &v)) {
			return UNSURE;
		}
		r = next_entry(sc, n, &l);
		if (r == NOTKEY)
			return OK;
		if (r != OK)
			return UNSURE;
		if (l[n] != '-' || !blank_at(sc, l + n + 1))
			return OK; /* the next key of a mapping at the same column */
		p = l + n;
	}
}

/* The block collection starting on line, indented k. */
static int node(scan *sc, const char *line, int k, int role, value *v)
{
	const char *p = line + k, *after;
	value key;
	int ok;
	if (++sc->depth > HEAD_MAX_DEPTH)
		return UNSURE;
	if (*p == '[' || *p == '{') {
		ok = value_at(sc, p, k, V_SEQ, role, v);
	} else if (*p == '-' && blank_at(sc, p + 1)) {
		v->type = V_SEQ;
		ok = role == ROLE_NONE && sequence(sc, p, k);
	} else {
		v->type = V_MAP;
		ok = try_key(sc, p, &key, &after) == OK && mapping(sc, key, after, k, role);
	}
	sc->depth--;
	return ok;
}

void manifest_head_clear(manifest_head *h)
{
	free(h->api_version);
	free(h->kind);
	free(h->name);
	for (int i = 0; i < MANIFEST_HEAD_HOOKS; i++)
		free(h->hooks[i]);
	memset(h, 0, sizeof *h);
}

int manifest_head_scan(const char *doc, size_t len, manifest_head *h)
{
	scan sc = {.s = doc, .end = doc + len, .cur = doc, .h = h};
	value v;
	memset(h, 0, sizeof *h);
	if (len > HEAD_MAX_BYTES || !chars_ok(doc, len))
		return 0;
	const char *l = content_line(&sc);
	int ok = l && node(&sc, l, indent_of(&sc, l), ROLE_TOP, &v) && v.type == V_MAP &&
		 !content_line(&sc);
	if (!ok)
		manifest_head_clear(h);
	return sc.oom ? -1 : ok;
}
