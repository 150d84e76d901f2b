/* tmpl/sprig_unicode.c — rune classes, case mapping and UTF-8 as Go's
 * unicode and unicode/utf8 packages define them (tables in
 * tmpl/unicode_tables.c). */
#include "tmpl/sprig_unicode.h"

#include "lib/gostrconv.h"

static int in_ranges(const uni_range *t, size_t n, uint32_t r)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r < t[mid].lo)
			hi = mid;
		else if (r > t[mid].hi)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

int uni_is_letter(uint32_t r) { return in_ranges(uni_letter, uni_nletter, r); }
int uni_is_upper(uint32_t r) { return in_ranges(uni_upper, uni_nupper, r); }
int uni_is_lower(uint32_t r) { return in_ranges(uni_lower, uni_nlower, r); }
int uni_is_title(uint32_t r) { return in_ranges(uni_title, uni_ntitle, r); }
int uni_is_digit(uint32_t r) { return in_ranges(uni_digit, uni_ndigit, r); }
int uni_is_number(uint32_t r) { return in_ranges(uni_number, uni_nnumber, r); }
int uni_is_punct(uint32_t r) { return in_ranges(uni_punct, uni_npunct, r); }

int uni_is_space(uint32_t r)
{
	if (r <= 0xFF)
		return r == ' ' || (r >= '\t' && r <= '\r') || r == 0x85 || r == 0xA0;
	return r == 0x1680 || (r >= 0x2000 && r <= 0x200A) || r == 0x2028 ||
	       r == 0x2029 || r == 0x202F || r == 0x205F || r == 0x3000;
}

static const uni_case *find_case(uint32_t r)
{
	size_t lo = 0, hi = uni_ncases;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r < uni_cases[mid].cp)
			hi = mid;
		else if (r > uni_cases[mid].cp)
			lo = mid + 1;
		else
			return &uni_cases[mid];
	}
	return NULL;
}

uint32_t uni_to_upper(uint32_t r)
{
	if (r < 0x80)
		return r >= 'a' && r <= 'z' ? r - 32 : r;
	const uni_case *c = find_case(r);
	return c ? c->upper : r;
}

uint32_t uni_to_lower(uint32_t r)
{
	if (r < 0x80)
		return r >= 'A' && r <= 'Z' ? r + 32 : r;
	const uni_case *c = find_case(r);
	return c ? c->lower : r;
}

uint32_t uni_to_title(uint32_t r)
{
	if (r < 0x80)
		return r >= 'a' && r <= 'z' ? r - 32 : r;
	const uni_case *c = find_case(r);
	return c ? c->title : r;
}

uint32_t uni_decode(const char *str, size_t n, size_t *width)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t r;
	size_t need;
	if (n == 0) {
		*width = 0;
		return UNI_RUNE_ERROR;
	}
	*width = 1;
	if (s[0] < 0x80)
		return s[0];
	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		need = 2;
		r = s[0] & 0x1F;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		need = 3;
		r = s[0] & 0x0F;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		need = 4;
		r = s[0] & 0x07;
	} else {
		return UNI_RUNE_ERROR;
	}
	if (n < need)
		return UNI_RUNE_ERROR;
	/* second byte ranges as in utf8.acceptRanges */
	unsigned char lo = 0x80, hi = 0xBF;
	if (s[0] == 0xE0)
		lo = 0xA0;
	else if (s[0] == 0xED)
		hi = 0x9F;
	else if (s[0] == 0xF0)
		lo = 0x90;
	else if (s[0] == 0xF4)
		hi = 0x8F;
	if (s[1] < lo || s[1] > hi)
		return UNI_RUNE_ERROR;
	for (size_t i = 1; i < need; i++) {
		if (i > 1 && (s[i] < 0x80 || s[i] > 0xBF))
			return UNI_RUNE_ERROR;
		r = (r << 6) | (s[i] & 0x3F);
	}
	*width = need;
	return r;
}

void uni_put(bh_buf *out, uint32_t r)
{
	go_append_rune(out, r > 0x10FFFF ? -1 : (int32_t)r);
}
