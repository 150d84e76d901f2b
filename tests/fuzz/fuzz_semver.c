/* tests/fuzz/fuzz_semver.c — libFuzzer target for lib/semver: the hand
 * matchers of the constraint grammar (lib/semver_match.h) against PCRE2
 * running Masterminds/semver's own regular expressions (match or not, and
 * every group the matchers fill), then semver_parse and
 * semver_constraint_check on the input. The first byte picks the start
 * offset of the unanchored searches.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/semver.h"
#include "lib/semver_match.h"

#define WS "[\\t\\n\\f\\r ]"
#define OPS "=||!=|>|<|>=|=>|<=|=<|~|~>|\\^"
#define CV "v?([0-9|x|X|\\*]+)(\\.[0-9|x|X|\\*]+)?(\\.[0-9|x|X|\\*]+)?" \
	"(-([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?" \
	"(\\+([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?"

static pcre2_code *compile(const char *re)
{
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, 0, &ec, &eo, NULL);
	if (!c)
		abort();
	return c;
}

/* PCRE2's answer for re on s from start; its ovector's first 2*ng
 * entries into ov (PCRE2_UNSET as SIZE_MAX) */
static int pcre(pcre2_code *re, const char *s, size_t n, size_t start, size_t *ov, int ng)
{
	pcre2_match_data *md = pcre2_match_data_create(32, NULL);
	int rc;
	if (!md)
		abort();
	rc = pcre2_match(re, (PCRE2_SPTR)s, n, start, 0, md, NULL);
	if (rc > 0) {
		PCRE2_SIZE *o = pcre2_get_ovector_pointer(md);
		uint32_t have = pcre2_get_ovector_count(md);
		for (int k = 0; k < 2 * ng; k++)
			ov[k] = (uint32_t)(k / 2) < have && o[k] != PCRE2_UNSET ? o[k] : SIZE_MAX;
	}
	pcre2_match_data_free(md);
	return rc > 0;
}

static void same(int want, const size_t *wov, int got, const size_t *gov, const int *groups, int ng)
{
	if (want != got)
		abort();
	if (!want)
		return;
	for (int k = 0; k < ng; k++) {
		int g = groups[k];
		if (wov[2 * g] != gov[2 * g] || wov[2 * g + 1] != gov[2 * g + 1])
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static pcre2_code *one, *find, *valid, *range;
	static const int one_groups[] = {0, 1, 2, 3, 4, 5, 6};
	static const int range_groups[] = {0, 1, 2, 3, 4, 5, 11, 12, 13, 14, 15};
	size_t want[32], got[32], start, n;
	const char *s;
	if (!one) {
		one = compile("^" WS "*(" OPS ")" WS "*(" CV ")" WS "*$");
		find = compile("(" OPS ")" WS "*(" CV ")");
		valid = compile("^(" WS "*(" OPS ")" WS "*(" CV ")" WS "*)((?:" WS "+|," WS "*)(" OPS ")" WS "*(" CV ")" WS "*)*$");
		range = compile(WS "*(" CV ")" WS "+-" WS "+(" CV ")" WS "*");
	}
	if (size < 1 || size > 2 * SEMVER_MAX_CONSTRAINT)
		return 0;
	s = (const char *)data + 1;
	n = size - 1;
	start = n ? data[0] % (n + 1) : 0;
	same(pcre(one, s, n, 0, want, 7), want, semver_match_one(s, n, got), got, one_groups, 7);
	same(pcre(find, s, n, start, want, 7), want, semver_match_find(s, n, start, got), got, one_groups, 7);
	same(pcre(valid, s, n, 0, want, 1), want, semver_match_valid(s, n), want, one_groups, 0);
	same(pcre(range, s, n, start, want, 16), want, semver_match_range(s, n, start, got), got, range_groups, 11);
	{
		semver v;
		char em[256];
		if (semver_parse("1.2.3-rc.1", 10, &v, em, sizeof em) == 0)
			(void)semver_constraint_check(s, n, &v, em, sizeof em);
		(void)semver_parse(s, n, &v, em, sizeof em);
	}
	return 0;
}
