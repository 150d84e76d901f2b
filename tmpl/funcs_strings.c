/* tmpl/funcs_strings.c — Sprig's string functions (strings.go and the
 * goutils/xstrings helpers it wraps): trim*, upper/lower/title, substr,
 * trunc, abbrev, wrap, the case converters, quote/squote/cat, indent,
 * split*, join, sortAlpha, toString(s), the random strings, hello. Byte-
 * versus rune-level behaviour follows the Go originals exactly. */
#include <stdlib.h>
#include <string.h>

#include "tmpl/funcs.h"
#include "tmpl/gofmt.h"
#include "tmpl/internal.h"
#include "tmpl/sprig_unicode.h"
#include "tmpl/sprig_util.h"

#define STR_MAX_RESULT SPRIG_MAX_STRING

#define ARG_S(k) (c->argv[k].u.s.ptr)
#define ARG_N(k) (c->argv[k].u.s.len)
#define ARG_I(k) (c->argv[k].u.i)

static int ret_str(tmpl_call *c, const char *s, size_t n)
{
	c->result = tmpl_str(c->arena, s, n);
	return c->result.kind == TMPL_STRING ? 0 : sprig_oom(c);
}

static int ret_bool(tmpl_call *c, int b)
{
	c->result = tmpl_bool(b);
	return 0;
}

/* strings.Map(f, s) with Go's treatment of invalid UTF-8 (U+FFFD). */
static int map_runes(tmpl_call *c, const char *s, size_t n, uint32_t (*f)(uint32_t))
{
	bh_buf b;
	tmpl_buf_get(c->engine, &b); /* a kept buffer: no malloc per call */
	size_t w;
	for (size_t i = 0; i < n; i += w) {
		uint32_t r = uni_decode(s + i, n - i, &w);
		uni_put(&b, f(r));
	}
	return sprig_ret_buf(c, &b);
}

/* ---- trimming ---- */

static int fn_trim(tmpl_call *c)
{
	const char *s = ARG_S(0);
	size_t n = ARG_N(0), start = 0, end = n, w;
	while (start < end) {
		uint32_t r = uni_decode(s + start, end - start, &w);
		if (r == UNI_RUNE_ERROR && w == 1)
			break;
		if (!uni_is_space(r))
			break;
		start += w;
	}
	while (end > start) {
		/* decode the last rune */
		size_t k = end - 1;
		while (k > start && end - k < 4 && ((unsigned char)s[k] & 0xC0) == 0x80)
			k--;
		uint32_t r = uni_decode(s + k, end - k, &w);
		if (k + w != end) {
			k = end - 1;
			r = UNI_RUNE_ERROR;
			w = 1;
		}
		if ((r == UNI_RUNE_ERROR && w == 1) || !uni_is_space(r))
			break;
		end = k;
	}
	return ret_str(c, s + start, end - start);
}

/* does the cutset contain rune r? */
static int in_cutset(const char *cs, size_t n, uint32_t r)
{
	size_t w;
	for (size_t i = 0; i < n; i += w) {
		uint32_t x = uni_decode(cs + i, n - i, &w);
		if (x == r)
			return 1;
	}
	return 0;
}

/* strings.Trim(s, cutset) */
static int fn_trim_all(tmpl_call *c)
{
	const char *cs = ARG_S(0), *s = ARG_S(1);
	size_t cn = ARG_N(0), n = ARG_N(1), start = 0, end = n, w;
	if (n == 0 || cn == 0)
		return ret_str(c, s, n);
	while (start < end) {
		uint32_t r = uni_decode(s + start, end - start, &w);
		if (!in_cutset(cs, cn, r))
			break;
		start += w;
	}
	while (end > start) {
		size_t k = end - 1;
		while (k > start && end - k < 4 && ((unsigned char)s[k] & 0xC0) == 0x80)
			k--;
		uint32_t r = uni_decode(s + k, end - k, &w);
		if (k + w != end) {
			k = end - 1;
			r = UNI_RUNE_ERROR;
		}
		if (!in_cutset(cs, cn, r))
			break;
		end = k;
	}
	return ret_str(c, s + start, end - start);
}

static int fn_trim_prefix(tmpl_call *c)
{
	const char *p = ARG_S(0), *s = ARG_S(1);
	size_t pn = ARG_N(0), n = ARG_N(1);
	if (n >= pn && memcmp(s, p, pn) == 0)
		return ret_str(c, s + pn, n - pn);
	return ret_str(c, s, n);
}

static int fn_trim_suffix(tmpl_call *c)
{
	const char *p = ARG_S(0), *s = ARG_S(1);
	size_t pn = ARG_N(0), n = ARG_N(1);
	if (n >= pn && memcmp(s + n - pn, p, pn) == 0)
		return ret_str(c, s, n - pn);
	return ret_str(c, s, n);
}

/* ---- case ---- */

static int fn_upper(tmpl_call *c)
{
	return map_runes(c, ARG_S(0), ARG_N(0), uni_to_upper);
}

static int fn_lower(tmpl_call *c)
{
	return map_runes(c, ARG_S(0), ARG_N(0), uni_to_lower);
}

/* strings.Title's isSeparator */
static int is_separator(uint32_t r)
{
	if (r <= 0x7F) {
		if ((r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r == '_')
			return 0;
		return 1;
	}
	if (uni_is_letter(r) || uni_is_digit(r))
		return 0;
	return uni_is_space(r);
}

static int fn_title(tmpl_call *c)
{
	const char *s = ARG_S(0);
	size_t n = ARG_N(0), w;
	uint32_t prev = ' ';
	bh_buf b = BH_BUF_INIT;
	for (size_t i = 0; i < n; i += w) {
		uint32_t r = uni_decode(s + i, n - i, &w);
		uni_put(&b, is_separator(prev) ? uni_to_title(r) : r);
		prev = r;
	}
	return sprig_ret_buf(c, &b);
}

/* goutils.Uncapitalize: first rune and every rune after whitespace */
static int fn_untitle(tmpl_call *c)
{
	const char *s = ARG_S(0);
	size_t n = ARG_N(0), w;
	int next = 1;
	bh_buf b = BH_BUF_INIT;
	if (n == 0)
		return ret_str(c, s, n);
	for (size_t i = 0; i < n; i += w) {
		uint32_t r = uni_decode(s + i, n - i, &w);
		if (uni_is_space(r)) {
			next = 1;
		} else if (next) {
			r = uni_to_lower(r);
			next = 0;
		}
		uni_put(&b, r);
	}
	return sprig_ret_buf(c, &b);
}

/* goutils.SwapCase */
static int fn_swapcase(tmpl_call *c)
{
	const char *s = ARG_S(0);
	size_t n = ARG_N(0), w;
	int ws = 1;
	bh_buf b = BH_BUF_INIT;
	if (n == 0)
		return ret_str(c, s, n);
	for (size_t i = 0; i < n; i += w) {
		uint32_t r = uni_decode(s + i, n - i, &w);
		if (uni_is_upper(r) || uni_is_title(r)) {
			r = uni_to_lower(r);
			ws = 0;
		} else if (uni_is_lower(r)) {
			r = ws ? uni_to_title(r) : uni_to_upper(r);
			ws = 0;
		} else {
			ws = uni_is_space(r);
		}
		uni_put(&b, r);
	}
	return sprig_ret_buf(c, &b);
}

/* ---- xstrings case conversion ---- */

static int is_connector(uint32_t r)
{
	return r == '-' || r == '_' || uni_is_space(r);
}

/* xstrings isAlphabet: a letter that is not CJK */
static int is_alphabet(uint32_t r)
{
	if (!uni_is_letter(r))
		return 0;
	if (r < 0x3400)
		return 1;
	if ((r >= 0x4E00 && r <= 0x9FCC) || (r >= 0x3400 && r <= 0x4D85) || (r >= 0x20000 && r <= 0x2B81D))
		return 0;
	return 1;
}

/* xstrings ToPascalCase (Sprig's camelcase) */
static int fn_camelcase(tmpl_call *c)
{
	const char *s = ARG_S(0);
	size_t n = ARG_N(0), i = 0, w = 0;
	uint32_t r0 = 0, r1;
	int first_upper = 0;
	bh_buf b = BH_BUF_INIT;
	if (n == 0)
		return ret_str(c, s, 0);
	while (i < n) {
		r0 = uni_decode(s + i, n - i, &w);
		i += w;
		if (!is_connector(r0)) {
			first_upper = uni_is_upper(r0);
			r0 = uni_to_upper(r0);
			break;
		}
		uni_put(&b, r0);
	}
	if (i >= n) {
		/* xstrings writes the last rune again, even a connector */
		if (w != 0)
			uni_put(&b, r0);
		return sprig_ret_buf(c, &b);
	}
	while (i < n) {
		r1 = r0;
		r0 = uni_decode(s + i, n - i, &w);
		i += w;
		if (is_connector(r0) && is_connector(r1)) {
			uni_put(&b, r1);
			continue;
		}
		if (is_connector(r1)) {
			first_upper = uni_is_upper(r0);
			r0 = uni_to_upper(r0);
		} else {
			if (first_upper) {
				if (uni_is_upper(r0))
					r0 = uni_to_lower(r0);
				else
					first_upper = 0;
			}
			uni_put(&b, r1);
		}
	}
	uni_put(&b, r0);
	return sprig_ret_buf(c, &b);
}

enum word_type { W_INVALID, W_NUMBER, W_UPPER, W_ALPHA, W_CONNECTOR, W_PUNCT, W_OTHER };

/* xstrings nextValidRune: skips invalid bytes; prev when none is left */
static uint32_t next_valid(const char *s, size_t n, uint32_t prev, size_t *size)
{
	size_t sz, i = 0;
	*size = 0;
	while (i < n) {
		uint32_t r = uni_decode(s + i, n - i, &sz);
		*size += sz;
		if (!(r == UNI_RUNE_ERROR && sz == 1) && r != UNI_RUNE_ERROR)
			return r;
		i += sz;
	}
	return prev;
}

/* xstrings nextWord: type of the word at s, its length in *wlen */
static enum word_type next_word(const char *str, size_t n, size_t *wlen)
{
	enum word_type wt;
	size_t offset = 0, size, rem = 0;
	const char *p;
	uint32_t r;
	*wlen = 0;
	if (n == 0)
		return W_INVALID;
	r = next_valid(str, n, UNI_RUNE_ERROR, &size);
	offset += size;
	if (r == UNI_RUNE_ERROR) {
		*wlen = offset;
		return W_INVALID;
	}
	p = str;
	rem = n;
#define ADV(sz) do { p += (sz); rem -= (sz); } while (0)
	if (is_connector(r)) {
		wt = W_CONNECTOR;
		ADV(size);
		while (rem > 0) {
			r = next_valid(p, rem, r, &size);
			if (!is_connector(r))
				break;
			offset += size;
			ADV(size);
		}
	} else if (uni_is_punct(r)) {
		wt = W_PUNCT;
		ADV(size);
		while (rem > 0) {
			r = next_valid(p, rem, r, &size);
			if (!uni_is_punct(r))
				break;
			offset += size;
			ADV(size);
		}
	} else if (uni_is_upper(r)) {
		wt = W_UPPER;
		ADV(size);
		if (rem > 0) {
			r = next_valid(p, rem, r, &size);
			if (uni_is_upper(r)) {
				size_t prev_size = size;
				offset += size;
				ADV(size);
				while (rem > 0) {
					r = next_valid(p, rem, r, &size);
					if (!uni_is_upper(r))
						break;
					prev_size = size;
					offset += size;
					ADV(size);
				}
				if (rem > 0 && is_alphabet(r))
					offset -= prev_size;
			} else if (is_alphabet(r)) {
				offset += size;
				ADV(size);
				while (rem > 0) {
					r = next_valid(p, rem, r, &size);
					if (!is_alphabet(r) || uni_is_upper(r))
						break;
					offset += size;
					ADV(size);
				}
			}
		}
	} else if (is_alphabet(r)) {
		wt = W_ALPHA;
		ADV(size);
		while (rem > 0) {
			r = next_valid(p, rem, r, &size);
			if (!is_alphabet(r) || uni_is_upper(r))
				break;
			offset += size;
			ADV(size);
		}
	} else if (uni_is_number(r)) {
		wt = W_NUMBER;
		ADV(size);
		while (rem > 0) {
			r = next_valid(p, rem, r, &size);
			if (!uni_is_number(r))
				break;
			offset += size;
			ADV(size);
		}
	} else {
		wt = W_OTHER;
		ADV(size);
		while (rem > 0) {
			r = next_valid(p, rem, r, &size);
			if (size == 0 || is_connector(r) || is_alphabet(r) || uni_is_number(r) || uni_is_punct(r))
				break;
			offset += size;
			ADV(size);
		}
	}
#undef ADV
	*wlen = offset;
	return wt;
}

static void word_lower(bh_buf *b, enum word_type wt, const char *s, size_t n, char conn)
{
	size_t w;
	if (wt != W_UPPER && wt != W_CONNECTOR) {
		bh_buf_put(b, s, n);
		return;
	}
	for (size_t i = 0; i < n; i += w) {
		uint32_t r = uni_decode(s + i, n - i, &w);
		if (is_connector(r))
			bh_buf_putc(b, conn);
		else if (uni_is_upper(r))
			uni_put(b, uni_to_lower(r));
		else
			uni_put(b, r);
	}
}

/* xstrings camelCaseToLowerCase (snakecase, kebabcase) */
static int camel_to_lower(tmpl_call *c, char conn)
{
	const char *rest = ARG_S(0), *word;
	size_t rn = ARG_N(0), wn;
	enum word_type wt, prev;
	bh_buf b = BH_BUF_INIT;
	if (rn == 0)
		return ret_str(c, rest, 0);
#define NEXT() do { word = rest; wt = next_word(rest, rn, &wn); rest += wn; rn -= wn; } while (0)
	NEXT();
	while (rn > 0) {
		if (wt != W_CONNECTOR)
			word_lower(&b, wt, word, wn, conn);
		prev = wt;
		const char *last = word;
		size_t lastn = wn;
		NEXT();
		switch (prev) {
		case W_NUMBER:
			while (wt == W_ALPHA || wt == W_NUMBER) {
				word_lower(&b, wt, word, wn, conn);
				NEXT();
			}
			if (wt != W_INVALID && wt != W_PUNCT && wt != W_CONNECTOR)
				bh_buf_putc(&b, conn);
			break;
		case W_CONNECTOR:
			word_lower(&b, prev, last, lastn, conn);
			break;
		case W_PUNCT:
			break;
		default:
			if (wt != W_NUMBER) {
				if (wt != W_CONNECTOR && wt != W_PUNCT)
					bh_buf_putc(&b, conn);
				break;
			}
			if (rn == 0)
				break;
			last = word;
			lastn = wn;
			NEXT();
			if (wt != W_ALPHA) {
				word_lower(&b, W_NUMBER, last, lastn, conn);
				if (wt != W_CONNECTOR && wt != W_PUNCT)
					bh_buf_putc(&b, conn);
				break;
			}
			bh_buf_putc(&b, conn);
			word_lower(&b, W_NUMBER, last, lastn, conn);
			while (wt == W_ALPHA || wt == W_NUMBER) {
				word_lower(&b, wt, word, wn, conn);
				NEXT();
			}
			if (wt != W_INVALID && wt != W_CONNECTOR && wt != W_PUNCT)
				bh_buf_putc(&b, conn);
		}
	}
#undef NEXT
	word_lower(&b, wt, word, wn, conn);
	return sprig_ret_buf(c, &b);
}

static int fn_snakecase(tmpl_call *c)
{
	return camel_to_lower(c, '_');
}

static int fn_kebabcase(tmpl_call *c)
{
	return camel_to_lower(c, '-');
}

/* ---- byte-level goutils helpers ---- */

static int fn_nospace(tmpl_call *c)
{
	const unsigned char *s = (const unsigned char *)ARG_S(0);
	size_t n = ARG_N(0), count = 0;
	bh_buf b = BH_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (!uni_is_space(s[i])) {
			uni_put(&b, s[i]);
			count++;
		}
	}
	if (count == n) {
		bh_buf_free(&b);
		return ret_str(c, ARG_S(0), n);
	}
	return sprig_ret_buf(c, &b);
}

static int fn_initials(tmpl_call *c)
{
	const unsigned char *s = (const unsigned char *)ARG_S(0);
	size_t n = ARG_N(0);
	int gap = 1;
	bh_buf b = BH_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (uni_is_space(s[i])) {
			gap = 1;
		} else if (gap) {
			uni_put(&b, s[i]);
			gap = 0;
		}
	}
	return sprig_ret_buf(c, &b);
}

/* goutils.AbbreviateFull; the error cases return "" */
static void abbreviate(bh_buf *b, const char *s, size_t n, int64_t offset, int64_t max)
{
	int64_t len = (int64_t)n;
	if (n == 0 || max < 4)
		return;
	if (len <= max) {
		bh_buf_put(b, s, n);
		return;
	}
	if (offset > len)
		offset = len;
	/* Go's int arithmetic wraps (a very negative offset) */
	if ((int64_t)((uint64_t)len - (uint64_t)offset) < max - 3)
		offset = len - (max - 3);
	if (offset <= 4) {
		bh_buf_put(b, s, (size_t)(max - 3));
		bh_buf_puts(b, "...");
		return;
	}
	if (max < 7)
		return;
	if (offset + max - 3 < len) {
		bh_buf_puts(b, "...");
		abbreviate(b, s + offset, (size_t)(len - offset), 0, max - 3);
		return;
	}
	bh_buf_puts(b, "...");
	bh_buf_put(b, s + (len - (max - 3)), (size_t)(max - 3));
}

static int fn_abbrev(tmpl_call *c)
{
	bh_buf b = BH_BUF_INIT;
	if (ARG_I(0) < 4)
		return ret_str(c, ARG_S(1), ARG_N(1));
	abbreviate(&b, ARG_S(1), ARG_N(1), 0, ARG_I(0));
	return sprig_ret_buf(c, &b);
}

static int fn_abbrevboth(tmpl_call *c)
{
	int64_t left = ARG_I(0), right = ARG_I(1);
	bh_buf b = BH_BUF_INIT;
	if (right < 4 || (left > 0 && right < 7))
		return ret_str(c, ARG_S(2), ARG_N(2));
	abbreviate(&b, ARG_S(2), ARG_N(2), left, right);
	return sprig_ret_buf(c, &b);
}

static int fn_trunc(tmpl_call *c)
{
	int64_t k = ARG_I(0), len = (int64_t)ARG_N(1);
	const char *s = ARG_S(1);
	if (k < 0 && len + k > 0)
		return ret_str(c, s + len + k, (size_t)-k);
	if (k >= 0 && len > k)
		return ret_str(c, s, (size_t)k);
	return ret_str(c, s, (size_t)len);
}

static int fn_substr(tmpl_call *c)
{
	int64_t start = ARG_I(0), end = ARG_I(1), len = (int64_t)ARG_N(2);
	const char *s = ARG_S(2);
	if (start < 0) {
		if (end < 0)
			return tmpl_call_errorf(c, "runtime error: slice bounds out of range [:%lld]", (long long)end);
		if (end > len)
			return tmpl_call_errorf(c, "runtime error: slice bounds out of range [:%lld] with length %lld",
						(long long)end, (long long)len);
		return ret_str(c, s, (size_t)end);
	}
	if (end < 0 || end > len) {
		if (start > len)
			return tmpl_call_errorf(c, "runtime error: slice bounds out of range [%lld:%lld]",
						(long long)start, (long long)len);
		return ret_str(c, s + start, (size_t)(len - start));
	}
	if (start > end)
		return tmpl_call_errorf(c, "runtime error: slice bounds out of range [%lld:%lld]",
					(long long)start, (long long)end);
	return ret_str(c, s + start, (size_t)(end - start));
}

/* strings.Repeat with its panics; huge results are a limit error */
static int repeat_into(tmpl_call *c, bh_buf *b, const char *s, size_t n, int64_t count)
{
	if (count < 0)
		return tmpl_call_errorf(c, "strings: negative Repeat count");
	if (n > 0 && (uint64_t)count > STR_MAX_RESULT / n) {
		bh_error_set(c->err, BH_ELIMIT, "%s: result of %lld x %zu bytes exceeds the limit", c->name,
			     (long long)count, n);
		return BH_ELIMIT;
	}
	for (int64_t i = 0; i < count; i++)
		bh_buf_put(b, s, n);
	return 0;
}

static int fn_repeat(tmpl_call *c)
{
	bh_buf b = BH_BUF_INIT;
	int r = repeat_into(c, &b, ARG_S(1), ARG_N(1), ARG_I(0));
	if (r) {
		bh_buf_free(&b);
		return r;
	}
	return sprig_ret_buf(c, &b);
}

/* goutils.WrapCustom */
static int wrap_custom(tmpl_call *c, const char *str, size_t len, int64_t wl, const char *nl, size_t nln, int long_words)
{
	bh_buf b = BH_BUF_INIT;
	size_t offset = 0;
	if (len == 0)
		return ret_str(c, "", 0);
	if (nln == 0) {
		nl = "\n";
		nln = 1;
	}
	if (wl < 1)
		wl = 1;
	if ((uint64_t)wl > len)
		wl = (int64_t)len + 1;
	size_t w = (size_t)wl;
	while (len - offset > w) {
		if (sprig_check_size(c, &b)) {
			bh_buf_free(&b);
			return BH_ELIMIT;
		}
		if (str[offset] == ' ') {
			offset++;
			continue;
		}
		size_t end = w + offset + 1;
		long sp = -1;
		for (size_t k = end; k > offset; k--)
			if (str[k - 1] == ' ') {
				sp = (long)(k - 1);
				break;
			}
		if (sp >= (long)offset) {
			bh_buf_put(&b, str + offset, (size_t)sp - offset);
			bh_buf_put(&b, nl, nln);
			offset = (size_t)sp + 1;
		} else if (long_words) {
			bh_buf_put(&b, str + offset, w);
			bh_buf_put(&b, nl, nln);
			offset += w;
		} else {
			size_t e = w + offset;
			const char *q = memchr(str + e, ' ', len - e);
			if (q) {
				size_t at = (size_t)(q - str);
				bh_buf_put(&b, str + offset, at - offset);
				bh_buf_put(&b, nl, nln);
				offset = at + 1;
			} else {
				bh_buf_put(&b, str + offset, len - offset);
				offset = len;
			}
		}
	}
	bh_buf_put(&b, str + offset, len - offset);
	return sprig_ret_buf(c, &b);
}

static int fn_wrap(tmpl_call *c)
{
	return wrap_custom(c, ARG_S(1), ARG_N(1), ARG_I(0), "", 0, 0);
}

static int fn_wrap_with(tmpl_call *c)
{
	return wrap_custom(c, ARG_S(2), ARG_N(2), ARG_I(0), ARG_S(1), ARG_N(1), 1);
}

/* ---- predicates ---- */

static int contains(const char *s, size_t n, const char *sub, size_t sn)
{
	if (sn == 0)
		return 1;
	if (sn > n)
		return 0;
	return memmem(s, n, sub, sn) != NULL;
}

static int fn_contains(tmpl_call *c)
{
	return ret_bool(c, contains(ARG_S(1), ARG_N(1), ARG_S(0), ARG_N(0)));
}

static int fn_has_prefix(tmpl_call *c)
{
	return ret_bool(c, ARG_N(1) >= ARG_N(0) && memcmp(ARG_S(1), ARG_S(0), ARG_N(0)) == 0);
}

static int fn_has_suffix(tmpl_call *c)
{
	return ret_bool(c, ARG_N(1) >= ARG_N(0) &&
			memcmp(ARG_S(1) + ARG_N(1) - ARG_N(0), ARG_S(0), ARG_N(0)) == 0);
}

/* ---- quoting and joining ---- */

static int fn_quote(tmpl_call *c)
{
	bh_buf b, t = BH_BUF_INIT;
	tmpl_buf_get(c->engine, &b);
	int first = 1;
	for (int i = 0; i < c->argc; i++) {
		if (tmpl_value_is_nil(&c->argv[i]))
			continue;
		bh_buf_reset(&t);
		tmpl_to_string(&t, &c->argv[i]);
		if (!first)
			bh_buf_putc(&b, ' ');
		gofmt_quote(&b, t.data ? t.data : "", t.len);
		first = 0;
	}
	bh_buf_free(&t);
	return sprig_ret_buf(c, &b);
}

static int fn_squote(tmpl_call *c)
{
	bh_buf b = BH_BUF_INIT;
	int first = 1;
	for (int i = 0; i < c->argc; i++) {
		if (tmpl_value_is_nil(&c->argv[i]))
			continue;
		if (!first)
			bh_buf_putc(&b, ' ');
		bh_buf_putc(&b, '\'');
		gofmt_value(&b, &c->argv[i]);
		bh_buf_putc(&b, '\'');
		first = 0;
	}
	return sprig_ret_buf(c, &b);
}

static int fn_cat(tmpl_call *c)
{
	bh_buf b = BH_BUF_INIT;
	int first = 1;
	for (int i = 0; i < c->argc; i++) {
		if (tmpl_value_is_nil(&c->argv[i]))
			continue;
		if (!first)
			bh_buf_putc(&b, ' ');
		gofmt_value(&b, &c->argv[i]);
		first = 0;
	}
	return sprig_ret_buf(c, &b);
}

/* sprig's indent (pad + strings.Replace(s, "\n", "\n"+pad, -1)), after a
 * newline when lead (nindent): the size is known before writing, so the
 * result is written once, in the arena. The errors are the step by step
 * writer's: the pad's strings.Repeat, then the result's size. */
static int indent_ret(tmpl_call *c, int lead, int64_t spaces, const char *s, size_t n)
{
	if (spaces < 0)
		return tmpl_call_errorf(c, "strings: negative Repeat count");
	if ((uint64_t)spaces > STR_MAX_RESULT) {
		bh_error_set(c->err, BH_ELIMIT, "%s: result of %lld x %zu bytes exceeds the limit", c->name,
			     (long long)spaces, (size_t)1);
		return BH_ELIMIT;
	}
	size_t nl = 0, pad = (size_t)spaces;
	for (const char *x = s, *e = s + n; x < e && (x = memchr(x, '\n', (size_t)(e - x))) != NULL; x++)
		nl++;
	/* pad <= 2^27 and nl < 2^63: no overflow in 128 bits */
	unsigned __int128 total = (unsigned __int128)pad * (nl + 1) + n + (lead ? 1 : 0);
	if (total > SPRIG_MAX_STRING) {
		bh_error_set(c->err, BH_ELIMIT, "%s: result larger than %zu bytes", c->name, SPRIG_MAX_STRING);
		return BH_ELIMIT;
	}
	char *o = tmpl_arena_alloc(c->arena, (size_t)total + 1), *w = o;
	if (!o)
		return sprig_oom(c);
	if (lead)
		*w++ = '\n';
	memset(w, ' ', pad);
	w += pad;
	for (const char *x = s, *e = s + n; x < e;) {
		const char *q = memchr(x, '\n', (size_t)(e - x));
		size_t k = q ? (size_t)(q - x) + 1 : (size_t)(e - x);
		memcpy(w, x, k);
		w += k;
		x += k;
		if (q) {
			memset(w, ' ', pad);
			w += pad;
		}
	}
	*w = '\0';
	c->result = tmpl_str_static(o, (size_t)total);
	return 0;
}

static int fn_indent(tmpl_call *c)
{
	return indent_ret(c, 0, ARG_I(0), ARG_S(1), ARG_N(1));
}

static int fn_nindent(tmpl_call *c)
{
	return indent_ret(c, 1, ARG_I(0), ARG_S(1), ARG_N(1));
}

/* strings.Replace(src, old, new, -1) */
static int fn_replace(tmpl_call *c)
{
	const char *old = ARG_S(0), *nw = ARG_S(1), *s = ARG_S(2);
	size_t on = ARG_N(0), nn = ARG_N(1), n = ARG_N(2), w;
	bh_buf b;
	tmpl_buf_get(c->engine, &b);
	if (on == 0) {
		bh_buf_put(&b, nw, nn);
		for (size_t i = 0; i < n; i += w) {
			uni_decode(s + i, n - i, &w);
			bh_buf_put(&b, s + i, w);
			bh_buf_put(&b, nw, nn);
			if (sprig_check_size(c, &b)) {
				bh_buf_free(&b);
				return BH_ELIMIT;
			}
		}
		return sprig_ret_buf(c, &b);
	}
	size_t i = 0;
	while (i < n) {
		const char *p = n - i >= on ? memmem(s + i, n - i, old, on) : NULL;
		if (!p)
			break;
		bh_buf_put(&b, s + i, (size_t)(p - (s + i)));
		bh_buf_put(&b, nw, nn);
		i = (size_t)(p - s) + on;
		if (sprig_check_size(c, &b)) {
			bh_buf_free(&b);
			return BH_ELIMIT;
		}
	}
	bh_buf_put(&b, s + i, n - i);
	return sprig_ret_buf(c, &b);
}

static int fn_plural(tmpl_call *c)
{
	c->result = ARG_I(2) == 1 ? c->argv[0] : c->argv[1];
	c->result.iface = 0;
	return 0;
}

static int fn_to_string(tmpl_call *c)
{
	bh_buf b = BH_BUF_INIT;
	int g;
	if (c->argv[0].kind == TMPL_STRING) {
		c->result = tmpl_to_string_value(c->arena, &c->argv[0]);
		return 0;
	}
	g = tmpl_to_string(&b, &c->argv[0]);
	if (!g)
		c->result = tmpl_str_buf(c->arena, &b);
	bh_buf_free(&b);
	if (g)
		return bh_error_set(c->err, BH_ELIMIT, "%s: %s", c->name, gofmt_strerror(g));
	return c->result.kind == TMPL_STRING ? 0 : sprig_oom(c);
}

static int fn_to_strings(tmpl_call *c)
{
	tmpl_list *l = sprig_strslice(c, &c->argv[0]);
	if (!l)
		return BH_ELIMIT;
	c->result = tmpl_list_value(l);
	return 0;
}

/* strings.SplitN(s, sep, n) into parts (n < 0: all). */
static int split_parts(tmpl_call *c, const char *s, size_t len, const char *sep, size_t sn, int64_t n,
		       tmpl_list *out)
{
	size_t w;
	if (n == 0)
		return 0;
	if (sn == 0) {
		/* explode into UTF-8 sequences */
		size_t i = 0;
		int64_t k = 0;
		while (i < len) {
			if (n > 0 && k == n - 1) {
				if (tmpl_list_push(c->arena, out, tmpl_str(c->arena, s + i, len - i)))
					return sprig_oom(c);
				return 0;
			}
			uni_decode(s + i, len - i, &w);
			if (tmpl_list_push(c->arena, out, tmpl_str(c->arena, s + i, w)))
				return sprig_oom(c);
			i += w;
			k++;
		}
		return 0;
	}
	size_t i = 0;
	int64_t k = 0;
	while (n < 0 || k < n - 1) {
		const char *p = len - i >= sn ? memmem(s + i, len - i, sep, sn) : NULL;
		if (!p)
			break;
		if (tmpl_list_push(c->arena, out, tmpl_str(c->arena, s + i, (size_t)(p - (s + i)))))
			return sprig_oom(c);
		i = (size_t)(p - s) + sn;
		k++;
	}
	if (tmpl_list_push(c->arena, out, tmpl_str(c->arena, s + i, len - i)))
		return sprig_oom(c);
	return 0;
}

static int parts_to_map(tmpl_call *c, tmpl_list *parts)
{
	tmpl_map *m = sprig_map(c, "map[string]string");
	if (!m)
		return BH_ELIMIT;
	for (size_t i = 0; i < parts->len; i++) {
		char key[32];
		int kn = snprintf(key, sizeof key, "_%zu", i);
		if (tmpl_map_set(c->arena, m, key, (size_t)kn, parts->items[i]))
			return sprig_oom(c);
	}
	c->result = tmpl_map_value(m);
	return 0;
}

static int fn_split(tmpl_call *c)
{
	tmpl_list *l = sprig_list(c, "[]string", 4);
	if (!l || split_parts(c, ARG_S(1), ARG_N(1), ARG_S(0), ARG_N(0), -1, l))
		return BH_ELIMIT;
	return parts_to_map(c, l);
}

static int fn_splitn(tmpl_call *c)
{
	tmpl_list *l = sprig_list(c, "[]string", 4);
	if (!l || split_parts(c, ARG_S(2), ARG_N(2), ARG_S(0), ARG_N(0), ARG_I(1), l))
		return BH_ELIMIT;
	return parts_to_map(c, l);
}

static int fn_split_list(tmpl_call *c)
{
	tmpl_list *l = sprig_list(c, "[]string", 4);
	if (!l || split_parts(c, ARG_S(1), ARG_N(1), ARG_S(0), ARG_N(0), -1, l))
		return BH_ELIMIT;
	c->result = tmpl_list_value(l);
	return 0;
}

static int fn_join(tmpl_call *c)
{
	tmpl_list *l = sprig_strslice(c, &c->argv[1]);
	bh_buf b = BH_BUF_INIT;
	if (!l)
		return BH_ELIMIT;
	for (size_t i = 0; i < l->len; i++) {
		if (i > 0)
			bh_buf_put(&b, ARG_S(0), ARG_N(0));
		bh_buf_put(&b, l->items[i].u.s.ptr, l->items[i].u.s.len);
	}
	return sprig_ret_buf(c, &b);
}

static int cmp_str_values(const void *a, const void *b)
{
	const tmpl_value *x = a, *y = b;
	size_t n = x->u.s.len < y->u.s.len ? x->u.s.len : y->u.s.len;
	int r = memcmp(x->u.s.ptr, y->u.s.ptr, n);
	if (r)
		return r;
	return x->u.s.len < y->u.s.len ? -1 : x->u.s.len > y->u.s.len;
}

static int fn_sort_alpha(tmpl_call *c)
{
	const tmpl_value *v = &c->argv[0];
	tmpl_list *l;
	if (v->kind == TMPL_LIST || v->kind == TMPL_BYTES) {
		l = sprig_strslice(c, v);
		if (!l)
			return BH_ELIMIT;
		/* sort.Strings is not stable, but equal strings are identical */
		if (l->len > 1)
			qsort(l->items, l->len, sizeof(tmpl_value), cmp_str_values);
	} else {
		l = sprig_list(c, "[]string", 1);
		if (!l)
			return BH_ELIMIT;
		tmpl_value s = tmpl_to_string_value(c->arena, v);
		if (s.kind != TMPL_STRING || tmpl_list_push(c->arena, l, s))
			return sprig_oom(c);
	}
	c->result = tmpl_list_value(l);
	return 0;
}

/* ---- random strings (goutils.CryptoRandom) ---- */

static int random_string(tmpl_call *c, const char *set)
{
	int64_t count = ARG_I(0);
	size_t n = strlen(set);
	bh_buf b = BH_BUF_INIT;
	if (count <= 0)
		return ret_str(c, "", 0);
	if ((uint64_t)count > STR_MAX_RESULT) {
		bh_error_set(c->err, BH_ELIMIT, "%s: length %lld exceeds the limit", c->name, (long long)count);
		return BH_ELIMIT;
	}
	for (int64_t i = 0; i < count; i++) {
		uint64_t k;
		if (sprig_random_below(n, &k)) {
			bh_buf_free(&b);
			return tmpl_call_errorf(c, "no random data available");
		}
		bh_buf_putc(&b, set[k]);
	}
	return sprig_ret_buf(c, &b);
}

static const char ALPHA[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
static const char DIGITS[] = "0123456789";

static int fn_rand_alpha(tmpl_call *c)
{
	return random_string(c, ALPHA);
}

static int fn_rand_alnum(tmpl_call *c)
{
	return random_string(c, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
}

static int fn_rand_numeric(tmpl_call *c)
{
	return random_string(c, DIGITS);
}

static int fn_rand_ascii(tmpl_call *c)
{
	char set[96];
	for (int i = 0; i < 95; i++)
		set[i] = (char)(' ' + i);
	set[95] = '\0';
	return random_string(c, set);
}

/* xstrings.Shuffle: Fisher-Yates over the runes */
static int fn_shuffle(tmpl_call *c)
{
	const char *s = ARG_S(0);
	size_t n = ARG_N(0), w, k = 0;
	uint32_t *runes;
	bh_buf b = BH_BUF_INIT;
	if (n == 0)
		return ret_str(c, s, 0);
	runes = tmpl_arena_alloc(c->arena, n * sizeof(uint32_t));
	if (!runes)
		return sprig_oom(c);
	for (size_t i = 0; i < n; i += w)
		runes[k++] = uni_decode(s + i, n - i, &w);
	for (size_t i = k - 1; i > 0; i--) {
		uint64_t j;
		if (sprig_random_below(i + 1, &j))
			return tmpl_call_errorf(c, "no random data available");
		uint32_t t = runes[i];
		runes[i] = runes[j];
		runes[j] = t;
	}
	for (size_t i = 0; i < k; i++)
		uni_put(&b, runes[i]);
	return sprig_ret_buf(c, &b);
}

static int fn_hello(tmpl_call *c)
{
	c->result = tmpl_str_static("Hello!", 6);
	return 0;
}

const tmpl_func_def tmpl_funcs_strings[] = {
	{"abbrev", fn_abbrev, "is", NULL},
	{"abbrevboth", fn_abbrevboth, "iis", NULL},
	{"trunc", fn_trunc, "is", NULL},
	{"trim", fn_trim, "s", NULL},
	{"upper", fn_upper, "s", NULL},
	{"lower", fn_lower, "s", NULL},
	{"title", fn_title, "s", NULL},
	{"untitle", fn_untitle, "s", NULL},
	{"substr", fn_substr, "iis", NULL},
	{"repeat", fn_repeat, "is", NULL},
	{"trimAll", fn_trim_all, "ss", NULL},
	{"trimall", fn_trim_all, "ss", NULL},
	{"trimPrefix", fn_trim_prefix, "ss", NULL},
	{"trimSuffix", fn_trim_suffix, "ss", NULL},
	{"nospace", fn_nospace, "s", NULL},
	{"initials", fn_initials, "s", NULL},
	{"randAlpha", fn_rand_alpha, "i", NULL},
	{"randAlphaNum", fn_rand_alnum, "i", NULL},
	{"randNumeric", fn_rand_numeric, "i", NULL},
	{"randAscii", fn_rand_ascii, "i", NULL},
	{"swapcase", fn_swapcase, "s", NULL},
	{"shuffle", fn_shuffle, "s", NULL},
	{"snakecase", fn_snakecase, "s", NULL},
	{"camelcase", fn_camelcase, "s", NULL},
	{"kebabcase", fn_kebabcase, "s", NULL},
	{"wrap", fn_wrap, "is", NULL},
	{"wrapWith", fn_wrap_with, "iss", NULL},
	{"contains", fn_contains, "ss", NULL},
	{"hasPrefix", fn_has_prefix, "ss", NULL},
	{"hasSuffix", fn_has_suffix, "ss", NULL},
	{"quote", fn_quote, "a*", NULL},
	{"squote", fn_squote, "a*", NULL},
	{"cat", fn_cat, "a*", NULL},
	{"indent", fn_indent, "is", NULL},
	{"nindent", fn_nindent, "is", NULL},
	{"replace", fn_replace, "sss", NULL},
	{"plural", fn_plural, "ssi", NULL},
	{"toString", fn_to_string, "a", NULL},
	{"toStrings", fn_to_strings, "a", NULL},
	{"split", fn_split, "ss", NULL},
	{"splitList", fn_split_list, "ss", NULL},
	{"splitn", fn_splitn, "sis", NULL},
	{"join", fn_join, "sa", NULL},
	{"sortAlpha", fn_sort_alpha, "a", NULL},
	{"hello", fn_hello, "", NULL},
	{NULL, NULL, NULL, NULL},
};
