/* lib/goregex.c — see goregex.h. */
#include "lib/goregex.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/goregex_uni.h"
#include "lib/gostrconv.h"
#include "lib/yaml_resolve.h"

#define RE_MATCH_LIMIT 10000000
#define RE_DEPTH_LIMIT 100000
#define RE_HEAP_LIMIT (64 * 1024) /* KiB */
#define RE_MAX_REPEAT 1000
#define RUNE_ERROR 0xFFFDu

/* Go's utf8.DecodeRuneInString: an invalid byte is U+FFFD, width 1 */
static uint32_t decode(const char *s, size_t n, size_t *width)
{
	int32_t r;
	if (n == 0) {
		*width = 0;
		return RUNE_ERROR;
	}
	*width = (size_t)utf8_rune_go((const unsigned char *)s, n, &r);
	return r < 0 ? RUNE_ERROR : (uint32_t)r;
}

/* Go's isValidCaptureName: [A-Za-z0-9_]+, ASCII only */
static int capture_name_ok(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= 'a' && s[i] <= 'z')))
			return 0;
	return 1;
}

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
	int icase;                 /* (?i) in effect here */
} re_frame;

struct re_parse {
	const char *s;     /* whole pattern */
	size_t n;
	bh_buf *out;       /* PCRE2 pattern */
	bh_buf *err;       /* Go message after "error parsing regexp: " */
	int depth;         /* open groups */
	int restore_i;     /* a class turned PCRE2's case folding off: "(?i)" due after its repetition */
	char **defs;       /* big classes, written once (put_class) */
	size_t ndefs;
	size_t ncap;       /* the pattern's capture groups */
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

/* A class parsed up to r (parse_class, unicode_class: the index after it,
 * or negative on an error already reported) is one item of the tree: 0
 * with *i moved to r, or -1. */
static int class_item(re_parse *p, long r, size_t *i)
{
	if (r < 0)
		return -1;
	tree_item(p, 1, 1, 0);
	*i = (size_t)r;
	return 0;
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
	p->fr[p->depth].icase = p->fr[p->depth - 1].icase;
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
	c = decode(p->s + i, p->n - i, &w);
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
		c = decode(p->s + i, p->n - i, &w);
		i += w;
		if (c == '{') {
			uint32_t r = 0;
			int nhex = 0, ok = 0;
			while (i < p->n) {
				c = decode(p->s + i, p->n - i, &w);
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
		c = decode(p->s + i, p->n - i, &w);
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

/* One character of a class at s[i], escaped or not, in *rune: the index
 * after it, or a negative error from parse_escape. */
static long class_rune(re_parse *p, size_t i, uint32_t *rune)
{
	size_t w;
	if (p->s[i] == '\\')
		return parse_escape(p, i, rune);
	*rune = decode(p->s + i, p->n - i, &w);
	return (long)(i + w);
}

/* \d \D \s \S \w \W outside a class: PCRE2 text; NULL if not */
static const char *perl_class(char c)
{
	switch (c) {
	case 'd': return "[0-9]";
	case 'D': return "[^0-9]";
	case 's': return "[\\t\\n\\f\\r ]";
	case 'S': return "[^\\t\\n\\f\\r ]";
	case 'w': return "[0-9A-Za-z_]";
	case 'W': return "[^0-9A-Za-z_]";
	default: return NULL;
	}
}

/* Go's perlGroup and posixGroup: the ASCII ranges of a class, "" ending */
static const char *group_ranges(const char *name, size_t n)
{
	static const char *const groups[][2] = {
		{"\\d", "09"}, {"\\s", "\t\n\f\r  "}, {"\\w", "09AZ__az"},
		{"alnum", "09AZaz"}, {"alpha", "AZaz"}, {"ascii", "\x01\x7f"}, {"blank", "\t\t  "},
		{"cntrl", "\x01\x1f\x7f\x7f"}, {"digit", "09"}, {"graph", "!~"}, {"lower", "az"},
		{"print", " ~"}, {"punct", "!/:@[`{~"}, {"space", "\t\r  "}, {"upper", "AZ"},
		{"word", "09AZ__az"}, {"xdigit", "09AFaf"},
	};
	for (size_t k = 0; k < sizeof groups / sizeof groups[0]; k++)
		if (strlen(groups[k][0]) == n && !memcmp(groups[k][0], name, n))
			return groups[k][1];
	return NULL;
}

/* adds a group's ranges to set, folded under (?i) and negated as Go's
 * appendGroup does */
static void add_group(goregex_set *set, const char *rg, int neg, int icase)
{
	goregex_set t = GOREGEX_SET_INIT;
	/* ascii's and cntrl's ranges start at U+0000, written \x01 above */
	for (; rg[0]; rg += 2)
		goregex_set_add(&t, rg[0] == 1 ? 0 : (unsigned char)rg[0], (unsigned char)rg[1]);
	if (icase)
		goregex_set_fold(&t);
	if (neg)
		goregex_set_negate(&t);
	goregex_set_union(set, &t);
	goregex_set_free(&t);
}

/* Go 1.25's names for \p{...} (regexp/syntax unicodeTable): a name is
 * first put in canonical form (its first letter upper case, the others
 * lower case, without '_', '-' and ' '), then looked up among Any,
 * Assigned, Ascii and Lc, unicode.Categories, unicode.Scripts (Unicode
 * 15.0.0: a script whose key is not itself canonical, Old_Italic or
 * SignWriting, is never found) and the long names of the categories
 * (unicode.CategoryAliases, by their canonical form) — goregex_uni_table
 * and the aliases below. */
static const char *const go_category_aliases[][2] = {
	{"Casedletter", "LC"}, {"Closepunctuation", "Pe"}, {"Combiningmark", "M"},
	{"Connectorpunctuation", "Pc"}, {"Control", "Cc"}, {"Cntrl", "Cc"}, {"Currencysymbol", "Sc"},
	{"Dashpunctuation", "Pd"}, {"Decimalnumber", "Nd"}, {"Digit", "Nd"}, {"Enclosingmark", "Me"},
	{"Finalpunctuation", "Pf"}, {"Format", "Cf"}, {"Initialpunctuation", "Pi"}, {"Letter", "L"},
	{"Letternumber", "Nl"}, {"Lineseparator", "Zl"}, {"Lowercaseletter", "Ll"}, {"Mark", "M"},
	{"Mathsymbol", "Sm"}, {"Modifierletter", "Lm"}, {"Modifiersymbol", "Sk"}, {"Nonspacingmark", "Mn"},
	{"Number", "N"}, {"Openpunctuation", "Ps"}, {"Other", "C"}, {"Otherletter", "Lo"},
	{"Othernumber", "No"}, {"Otherpunctuation", "Po"}, {"Othersymbol", "So"},
	{"Paragraphseparator", "Zp"}, {"Privateuse", "Co"}, {"Punct", "P"}, {"Punctuation", "P"},
	{"Separator", "Z"}, {"Spaceseparator", "Zs"}, {"Spacingmark", "Mc"}, {"Surrogate", "Cs"},
	{"Symbol", "S"}, {"Titlecaseletter", "Lt"}, {"Unassigned", "Cn"}, {"Uppercaseletter", "Lu"},
	{NULL, NULL},
};

/* regexp/syntax canonicalName into out (size outn); 0 when too long */
static int canonical_name(const char *s, size_t n, char *out, size_t outn)
{
	size_t k = 0;
	int first = 1;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '_' || c == '-' || c == ' ')
			continue;
		if (first) {
			if (c >= 'a' && c <= 'z')
				c = (char)(c - 'a' + 'A');
			first = 0;
		} else if (c >= 'A' && c <= 'Z') {
			c = (char)(c - 'A' + 'a');
		}
		if (k + 1 >= outn)
			return 0;
		out[k++] = c;
	}
	out[k] = '\0';
	return 1;
}

/* A class as Go builds it (u: its code points before a [^...] negation)
 * and the PCRE2 property classes of the names in it, exact but for code
 * points new in Unicode 15.0 (goregex_uni_table): it is written with those
 * of them that fall within it or within its complement (fast to match),
 * and explicit ranges for the rest. */
#define RE_MAX_PROPS 8
typedef struct re_prop {
	char text[GOREGEX_PROP_MAX];
	goregex_set q;
} re_prop;
typedef struct re_class {
	goregex_set u;
	size_t nprops; /* the names' PCRE2 classes, candidates for writing it */
	re_prop props[RE_MAX_PROPS];
} re_class;
#define RE_CLASS_INIT {GOREGEX_SET_INIT, 0, {{"", GOREGEX_SET_INIT}}}

static void class_free(re_class *c)
{
	goregex_set_free(&c->u);
	for (size_t k = 0; k < c->nprops; k++)
		goregex_set_free(&c->props[k].q);
}

/* target written as "[" props E "]": the PCRE2 classes (each also
 * negated) within it in props, returns the rest E */
static goregex_set class_form(const re_class *c, const goregex_set *target, bh_buf *props)
{
	goregex_set e = GOREGEX_SET_INIT;
	goregex_set_union(&e, target);
	for (size_t k = 0; k < 2 * c->nprops; k++) {
		const re_prop *pr = &c->props[k / 2];
		goregex_set q = GOREGEX_SET_INIT;
		goregex_set_union(&q, &pr->q);
		if (k % 2)
			goregex_set_negate(&q);
		goregex_set_clean(&q);
		goregex_set_minus(&q, target);
		if (!q.n && !q.oom) { /* within target */
			goregex_set_free(&q);
			goregex_set_union(&q, &pr->q);
			if (k % 2)
				goregex_set_negate(&q);
			goregex_set_minus(&e, &q);
			bh_buf_putc(props, '\\');
			bh_buf_putc(props, (pr->text[1] == 'p') == !(k % 2) ? 'p' : 'P');
			bh_buf_puts(props, pr->text + 2);
		}
		e.oom |= q.oom;
		goregex_set_free(&q);
	}
	return e;
}

static int oom_error(re_parse *p)
{
	bh_buf_reset(p->err);
	bh_buf_puts(p->err, "out of memory");
	return -1;
}

/* Writes a class. Under (?i), PCRE2 would fold its explicit ranges again:
 * its case folding is turned off before it and on again after its
 * repetition, if any (re_translate, class_next); not with a group
 * "(?-i:...)", which a counted repetition would copy. A class of more than
 * RE_SET_INLINE explicit ranges ((?i)\p{Lu}, \p{Cn}) is written once, with
 * case folding off, in a "(?(DEFINE)...)" at the end of the pattern
 * (go_parse) and called where it stands, so that a pattern with many
 * stays under PCRE2's size limit of a compiled pattern. Those groups are
 * unnamed and come after the pattern's own, which keep their numbers and
 * names; they never capture. Their numbers are known at the end: a call
 * is written RE_DEF_MARK k RE_DEF_MARK meanwhile (a byte the translation
 * never writes otherwise) and numbered by go_parse. 0, or -1 (err set). */
#define RE_SET_INLINE 32
#define RE_DEF_MARK '\x01'
static int put_class(re_parse *p, re_class *c, int negated)
{
	goregex_set e, ne, nu = GOREGEX_SET_INIT;
	bh_buf txt = BH_BUF_INIT, props = BH_BUF_INIT, nprops = BH_BUF_INIT;
	size_t k, n;
	int oom;
	/* u and its complement, each as PCRE2 classes and the rest: the
	 * one with fewer explicit ranges, which cost matching time */
	goregex_set_clean(&c->u);
	goregex_set_union(&nu, &c->u);
	goregex_set_negate(&nu);
	e = class_form(c, &c->u, &props);
	ne = class_form(c, &nu, &nprops);
	if (ne.n < e.n) {
		goregex_set t = e;
		bh_buf tb = props;
		e = ne, ne = t;
		props = nprops, nprops = tb;
		negated = !negated;
	}
	oom = e.oom || ne.oom || nu.oom || c->u.oom;
	goregex_set_free(&ne);
	goregex_set_free(&nu);
	bh_buf_free(&nprops);
	bh_buf_puts(&txt, negated ? "[^" : "[");
	bh_buf_put(&txt, bh_buf_str(&props), props.len);
	n = goregex_set_put(&txt, &e);
	if (!n && !props.len) { /* nothing, or everything */
		bh_buf_reset(&txt);
		bh_buf_puts(&txt, negated ? "[" : "[^");
		bh_buf_puts(&txt, "\\x{0}-\\x{10ffff}");
	}
	bh_buf_putc(&txt, ']');
	oom |= e.oom || txt.oom || props.oom;
	goregex_set_free(&e);
	bh_buf_free(&props);
	if (oom) {
		bh_buf_free(&txt);
		return oom_error(p);
	}
	if (n <= RE_SET_INLINE) {
		if (p->fr[p->depth].icase && !p->restore_i) {
			bh_buf_puts(p->out, "(?-i)");
			p->restore_i = 1;
		}
		bh_buf_put(p->out, txt.data, txt.len);
		bh_buf_free(&txt);
		return 0;
	}
	for (k = 0; k < p->ndefs; k++)
		if (!strcmp(p->defs[k], txt.data))
			break;
	if (k == p->ndefs) {
		char **d = realloc(p->defs, (k + 1) * sizeof *d);
		if (!d) {
			bh_buf_free(&txt);
			return oom_error(p);
		}
		p->defs = d;
		p->defs[p->ndefs++] = bh_buf_detach(&txt);
	}
	bh_buf_free(&txt);
	bh_buf_printf(p->out, "%c%zu%c", RE_DEF_MARK, k, RE_DEF_MARK);
	return 0;
}

/* \pL, \p{Greek}, \PL, \p{^Letter} ... at s[i], looked up as Go 1.25 does:
 * its code points, folded under (?i) where Go folds them, added to c. In a
 * class (negp NULL) a negated one is added negated; else its negation is
 * left to the caller in *negp. Returns the new index. */
static long unicode_class(re_parse *p, size_t i, re_class *c, int *negp)
{
	size_t start = i, nl;
	const char *name;
	int neg = p->s[i + 1] == 'P', ok = 0;
	int icase = p->fr[p->depth].icase;
	char canon[64], prop[GOREGEX_PROP_MAX] = "";
	goregex_set t = GOREGEX_SET_INIT, q = GOREGEX_SET_INIT;
	i += 2;
	if (i >= p->n)
		return re_error(p, "invalid character class range", p->s + start, p->n - start);
	if (p->s[i] == '{') {
		const char *e = memchr(p->s + i, '}', p->n - i);
		if (!e)
			return re_error(p, "invalid character class range", p->s + start, p->n - start);
		name = p->s + i + 1;
		nl = (size_t)(e - name);
		i = (size_t)(e - p->s) + 1;
		if (nl > 0 && name[0] == '^') {
			neg = !neg;
			name++;
			nl--;
		}
	} else {
		size_t w;
		decode(p->s + i, p->n - i, &w);
		name = p->s + i;
		nl = w;
		i += w;
	}
	if (canonical_name(name, nl, canon, sizeof canon)) {
		ok = goregex_uni_table(canon, icase, &t, prop, &q);
		for (size_t k = 0; go_category_aliases[k][0] && !ok; k++)
			if (!strcmp(go_category_aliases[k][0], canon))
				ok = goregex_uni_table(go_category_aliases[k][1], icase, &t, prop, &q);
	}
	if (!ok) {
		goregex_set_free(&t);
		goregex_set_free(&q);
		return re_error(p, "invalid character class range", p->s + start, i - start);
	}
	if (negp) {
		*negp = neg;
		neg = 0;
	}
	if (neg)
		goregex_set_negate(&t);
	goregex_set_union(&c->u, &t);
	ok = !t.oom && !q.oom;
	goregex_set_free(&t);
	for (size_t k = 0; k < c->nprops && prop[0]; k++)
		if (!strcmp(c->props[k].text + 2, prop + 2))
			prop[0] = '\0';
	if (prop[0] && c->nprops < RE_MAX_PROPS) {
		memcpy(c->props[c->nprops].text, prop, sizeof prop);
		c->props[c->nprops++].q = q;
	} else {
		goregex_set_free(&q);
	}
	if (!ok)
		return oom_error(p);
	return (long)i;
}

/* \pL ... outside a class: one item of the tree; returns the new index */
static long unicode_item(re_parse *p, size_t i)
{
	re_class c = RE_CLASS_INIT;
	int neg;
	long r = unicode_class(p, i, &c, &neg);
	if (r >= 0 && put_class(p, &c, neg))
		r = -1;
	class_free(&c);
	return r;
}

/* a character class starting at s[i] == '[', built as Go's parseClass
 * builds it (literal ranges and ASCII groups case folded under (?i), then
 * the whole negated for [^...]); returns the new index */
static long parse_class(re_parse *p, size_t i)
{
	size_t start = i;
	int first = 1, negated = 0, icase = p->fr[p->depth].icase;
	long rc;
	/* c.u: what Go has folded already (or never folds); lits: literal
	 * ranges, folded at the end under (?i) */
	re_class c = RE_CLASS_INIT;
	goregex_set lits = GOREGEX_SET_INIT;
	i++;
	if (i < p->n && p->s[i] == '^') {
		negated = 1;
		i++;
	}
	while (i >= p->n || p->s[i] != ']' || first) {
		uint32_t lo, hi;
		size_t item = i;
		first = 0;
		if (i >= p->n) {
			rc = re_error(p, "missing closing ]", p->s + start, p->n - start);
			goto out;
		}
		/* [:name:] */
		if (p->n - i > 2 && p->s[i] == '[' && p->s[i + 1] == ':') {
			const char *e = memmem(p->s + i + 2, p->n - i - 2, ":]", 2);
			if (e) {
				size_t nl = (size_t)(e - (p->s + i + 2));
				const char *name = p->s + i + 2;
				int neg = nl > 0 && name[0] == '^';
				const char *rg = group_ranges(name + neg, nl - (size_t)neg);
				if (!rg || name[neg] == '\\') {
					rc = re_error(p, "invalid character class range", p->s + i, nl + 4);
					goto out;
				}
				add_group(neg || !icase ? &c.u : &lits, rg, neg, neg && icase);
				i += nl + 4;
				continue;
			}
		}
		if (p->s[i] == '\\' && i + 1 < p->n && (p->s[i + 1] == 'p' || p->s[i + 1] == 'P')) {
			if ((rc = unicode_class(p, i, &c, NULL)) < 0)
				goto out;
			i = (size_t)rc;
			continue;
		}
		if (p->s[i] == '\\' && i + 1 < p->n && perl_class(p->s[i + 1])) {
			char ch = p->s[i + 1];
			int neg = ch >= 'A' && ch <= 'Z';
			char lower[2] = {'\\', (char)(neg ? ch - 'A' + 'a' : ch)};
			add_group(neg || !icase ? &c.u : &lits, group_ranges(lower, 2), neg, neg && icase);
			i += 2;
			continue;
		}
		/* single character or range */
		if ((rc = class_rune(p, i, &lo)) < 0)
			goto out;
		i = (size_t)rc;
		hi = lo;
		if (p->n - i >= 2 && p->s[i] == '-' && p->s[i + 1] != ']') {
			i++;
			if ((rc = class_rune(p, i, &hi)) < 0)
				goto out;
			i = (size_t)rc;
			if (hi < lo) {
				rc = re_error(p, "invalid character class range", p->s + item, i - item);
				goto out;
			}
		}
		goregex_set_add(&lits, lo, hi);
	}
	if (icase)
		goregex_set_fold(&lits);
	goregex_set_union(&c.u, &lits);
	rc = put_class(p, &c, negated) ? -1 : (long)i + 1;
out:
	class_free(&c);
	goregex_set_free(&lits);
	return rc;
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

/* Is s[i] a repetition of the item before, or a class written with case
 * folding off (then PCRE2's folding stays off: put_class)? */
static int class_next(const re_parse *p, size_t i)
{
	long min, max;
	size_t end;
	char c = p->s[i];
	return c == '*' || c == '+' || c == '?' || c == '[' ||
	       (c == '{' && parse_repeat(p, i, &min, &max, &end)) ||
	       (c == '\\' && i + 1 < p->n && (p->s[i + 1] == 'p' || p->s[i + 1] == 'P'));
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
		if (p->restore_i && !class_next(p, i)) {
			bh_buf_puts(p->out, "(?i)");
			p->restore_i = 0;
		}
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
					if (!capture_name_ok(p->s + ns, ne - ns))
						return re_error(p, "invalid named capture", p->s + i, ne + 1 - i);
					bh_buf_puts(p->out, "(?<");
					p->ncap++;
					bh_buf_put(p->out, p->s + ns, ne - ns);
					bh_buf_putc(p->out, '>');
					if (tree_open(p, 1))
						return -1;
					i = ne + 1;
					can_repeat = 0;
					break;
				}
				/* flags */
				int sign = 1, saw = 0, done = 0, ic = -1;
				bh_buf flags = BH_BUF_INIT;
				while (t < p->n && !done) {
					char f = p->s[t++];
					switch (f) {
					case 'i': case 'm': case 's': case 'U':
						if (f == 'i')
							ic = sign > 0;
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
							if (ic >= 0)
								p->fr[p->depth].icase = ic;
						} else if (flags.len > 0) {
							if (ic >= 0)
								p->fr[p->depth].icase = ic;
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
			p->ncap++;
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
		case '[':
			if (class_item(p, parse_class(p, i), &i) < 0)
				return -1;
			can_repeat = 1;
			break;
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
					put_rune_lit(p->out, decode(p->s + k, qe - k, &w));
					tree_item(p, 1, 1, 1);
				}
				i = q ? qe + 2 : p->n;
				can_repeat = 1;
				break;
			}
			if (e == 'p' || e == 'P') {
				if (class_item(p, unicode_item(p, i), &i) < 0)
					return -1;
				can_repeat = 1;
				break;
			}
			if (perl_class(e)) {
				bh_buf_puts(p->out, perl_class(e));
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
			uint32_t r = decode(p->s + i, p->n - i, &w);
			if (r == RUNE_ERROR && w == 1) {
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

/* Go's parse of pat[0..n) (its translation to PCRE2 made and dropped): 0,
 * or -1 with err holding Go's Error() text. */
static int go_parse(const char *pat, size_t n, bh_buf *out, bh_buf *err)
{
	/* not calloc: the 40 KiB of frames are set up as groups open
	 * (re_translate, tree_open), and zeroing them all cost more than the
	 * translation of a typical pattern */
	re_parse *p = malloc(sizeof(re_parse));
	int tr;
	bh_buf_puts(err, "error parsing regexp: ");
	if (!p) {
		bh_buf_reset(err);
		bh_buf_puts(err, "out of memory");
		return -1;
	}
	p->s = pat;
	p->n = n;
	p->out = out;
	p->err = err;
	p->depth = 0;
	p->restore_i = 0;
	p->defs = NULL;
	p->ndefs = 0;
	p->ncap = 0;
	tr = re_translate(p);
	if (p->ndefs && !tr && !out->oom) {
		/* the calls numbered after the pattern's own groups */
		bh_buf o = BH_BUF_INIT;
		for (size_t i = 0; i < out->len; i++) {
			if (out->data[i] != RE_DEF_MARK) {
				bh_buf_putc(&o, out->data[i]);
				continue;
			}
			char *e;
			unsigned long k = strtoul(out->data + i + 1, &e, 10);
			bh_buf_printf(&o, "(?%lu)", (unsigned long)p->ncap + k + 1);
			i = (size_t)(e - out->data);
		}
		bh_buf_puts(&o, "(?(DEFINE)");
		for (size_t k = 0; k < p->ndefs; k++)
			bh_buf_printf(&o, "((?-i)%s)", p->defs[k]);
		bh_buf_putc(&o, ')');
		bh_buf_reset(out);
		bh_buf_put(out, bh_buf_str(&o), o.len);
		out->oom |= o.oom;
		bh_buf_free(&o);
	}
	for (size_t k = 0; k < p->ndefs; k++)
		free(p->defs[k]);
	free(p->defs);
	if (!tr && out->oom) {
		bh_buf_reset(err);
		bh_buf_puts(err, "out of memory");
		tr = -1;
	}
	free(p);
	return tr ? -1 : 0;
}

int goregex_check(const char *pat, size_t n, bh_buf *err)
{
	bh_buf out = BH_BUF_INIT, why = BH_BUF_INIT;
	int rc = go_parse(pat, n, &out, &why);
	if (rc)
		bh_buf_put(err, why.data, why.len);
	bh_buf_free(&out);
	bh_buf_free(&why);
	return rc;
}

int goregex_compile(goregex *re, const char *pat, size_t n, bh_buf *err)
{
	bh_buf out = BH_BUF_INIT;
	pcre2_compile_context *cc;
	int ec;
	PCRE2_SIZE eo;
	memset(re, 0, sizeof *re);
	if (go_parse(pat, n, &out, err)) {
		bh_buf_free(&out);
		return -1;
	}
	cc = pcre2_compile_context_create(NULL);
	if (cc)
		pcre2_set_parens_nest_limit(cc, 1000);
	re->code = pcre2_compile((PCRE2_SPTR)(out.data ? out.data : ""), out.len,
				 PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_BACKSLASH_C |
					 PCRE2_DUPNAMES, /* Go takes a group name twice */
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
		goregex_release(re);
		bh_buf_reset(err);
		bh_buf_puts(err, "out of memory");
		return -1;
	}
	pcre2_set_match_limit(re->mctx, RE_MATCH_LIMIT);
	pcre2_set_depth_limit(re->mctx, RE_DEPTH_LIMIT);
	pcre2_set_heap_limit(re->mctx, RE_HEAP_LIMIT);
	return 0;
}

int goregex_match(goregex *re, const char *s, size_t n, bh_error *err)
{
	/* compiled with PCRE2_MATCH_INVALID_UTF: no check of the whole subject */
	int rc = pcre2_match(re->code, (PCRE2_SPTR)s, n, 0, 0, re->md, re->mctx);
	if (rc >= 0)
		return 1;
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT)
		return bh_error_set(err, BH_ELIMIT, "regular expression too costly for this input (backtracking limit)");
	PCRE2_UCHAR msg[256];
	pcre2_get_error_message(rc, msg, sizeof msg);
	return bh_error_set(err, BH_EINVAL, "regexp: %s", (const char *)msg);
}

void goregex_release(goregex *re)
{
	pcre2_match_data_free(re->md);
	pcre2_match_context_free(re->mctx);
	pcre2_code_free(re->code);
	memset(re, 0, sizeof *re);
}
