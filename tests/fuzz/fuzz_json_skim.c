/* tests/fuzz/fuzz_json_skim.c — libFuzzer target for lib/json_skim.h, each
 * way compared with jansson's decode of the whole input:
 *   way 0: json_skim_value, strict and lax: a value the strict scan accepts
 *          whole is one jansson accepts, and the lax scan ends where it
 *          does; a value jansson accepts (nesting under JSON_SKIM_DEPTH,
 *          no NUL byte, where jansson stops) the lax scan steps over whole;
 *   way 1: json_skim_object with keys "a" and "b": each span found decodes
 *          to jansson's member; an object jansson accepts (no member twice)
 *          is read;
 *   way 2: json_skim_string into 8 bytes: what it copies is jansson's
 *          string;
 *   way 3: json_skim_cut of a.b.c: the text less the cut decodes as the
 *          whole text less that member, and is refused when the whole is
 *          (but for a member named twice inside the value cut);
 *   way 4: json_skim_find and json_skim_cut_found of the paths the next
 *          byte's bits pick from eight (nested, overlapping, one twice):
 *          on a JSON text, the same text, and as many cuts, as
 *          json_skim_cut of each path in turn on the text the cuts before
 *          left; on any other text, a text jansson still refuses.
 * The input's first byte picks the way (fuzz_pick.h). kube/watch.c's use of
 * the cut is fuzzed by fuzz_watch, noop.c's reads by fuzz_noop.
 * FUZZ_SEEDS: tests/fuzz/corpus/fuzz_watch
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_pick.h"
#include "lib/json_skim.h"

static int depth_of(const json_t *v)
{
	int d = 0, c;
	const char *k;
	size_t i;
	json_t *x;
	if (json_is_object(v))
		json_object_foreach((json_t *)v, k, x) if ((c = depth_of(x)) > d) d = c;
	if (json_is_array(v))
		json_array_foreach(v, i, x) if ((c = depth_of(x)) > d) d = c;
	return d + (json_is_object(v) || json_is_array(v));
}

static int ascii(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80 || !s[i])
			return 0;
	return 1;
}

static void way_value(const char *s, size_t n, const json_t *whole)
{
	const char *e = s + n, *strict = json_skim_value(s, e, 0, JSON_SKIM_STRICT), *lax = json_skim_value(s, e, 0, 0);
	if (!strict || json_skim_ws(strict, e) != e)
		strict = NULL; /* not one value, whole */
	if (strict && ascii(s, n) && !whole)
		abort(); /* strict accepted what jansson refuses */
	if (strict && lax != strict)
		abort();
	if (whole && depth_of(whole) < JSON_SKIM_DEPTH && !memchr(s, '\0', n) && (!lax || json_skim_ws(lax, e) != e))
		abort(); /* lax did not step over a value jansson read */
}

static void way_object(const char *s, size_t n, const json_t *whole, const json_t *strict_whole)
{
	static const char *const keys[] = {"a", "b", NULL};
	json_skim_span v[2];
	const char *end, *e = s + n;
	int rc = json_skim_object(s, e, 0, keys, v, &end);
	if (json_is_object(strict_whole) && depth_of(strict_whole) < JSON_SKIM_DEPTH && !memchr(s, '\0', n) &&
	    (rc != 0 || json_skim_ws(end, e) != e))
		abort(); /* an object jansson read, not skimmed */
	if (rc != 0 || !json_is_object(whole) || json_skim_ws(end, e) != e)
		return;
	for (int k = 0; k < 2; k++) {
		json_t *m = json_object_get(whole, keys[k]), *got;
		if (!v[k].s) {
			if (m)
				abort();
			continue;
		}
		got = json_loadb(v[k].s, (size_t)(v[k].e - v[k].s), JSON_DECODE_ANY, NULL);
		if (!json_equal(got, m))
			abort();
		json_decref(got);
	}
}

static void way_string(const char *s, size_t n, const json_t *whole)
{
	char out[8];
	if (json_skim_string(s, s + n, out, sizeof out) != 0)
		return;
	if (!json_is_string(whole) || strcmp(out, json_string_value(whole)) != 0)
		abort();
}

static void way_cut(const char *s, size_t n, const json_t *whole)
{
	static const char *const path[] = {"a", "b", "c"};
	size_t from, to;
	if (!json_skim_cut(s, n, path, 3, &from, &to))
		return;
	if (from > to || to > n)
		abort();
	char *t = malloc(n - (to - from) + 1);
	if (!t)
		abort();
	memcpy(t, s, from);
	memcpy(t + from, s + to, n - to);
	json_t *cut = json_loadb(t, n - (to - from), JSON_REJECT_DUPLICATES, NULL);
	free(t);
	if (!whole) {
		/* the cut may hide only a member named twice inside its value */
		json_t *any = cut ? json_loadb(s, n, 0, NULL) : NULL;
		if (cut && !any)
			abort(); /* the cut hid what made the text wrong */
		whole = any;
		if (!whole)
			return;
	} else {
		json_incref((json_t *)whole);
	}
	json_t *want = json_deep_copy(whole);
	json_decref((json_t *)whole);
	json_object_del(json_object_get(json_object_get(want, "a"), "b"), "c");
	if (!json_equal(cut, want))
		abort();
	json_decref(want);
	json_decref(cut);
}

static void way_cuts(const char *s, size_t n)
{
	static const char *const paths[8] = {"a.b.c", "a", "a.b", "a.c", "b", "a.b.c", "c.a", "a.b.d"};
	json_skim_paths ps = {0};
	json_skim_found f;
	unsigned mask;
	int ncut, seq = 0;
	char *one, *cur;
	size_t len;
	if (n < 1)
		return;
	mask = (unsigned char)*s++;
	n--;
	one = malloc(n + 1);
	cur = malloc(n + 1);
	if (!one || !cur)
		abort();
	memcpy(cur, s, n);
	len = n;
	for (int i = 0; i < 8; i++) {
		const char *path[3];
		int np = 0;
		size_t from, to;
		if (!(mask >> i & 1))
			continue;
		if (json_skim_paths_add(&ps, NULL, 0, paths[i]) < 0)
			abort();
		for (const char *p = paths[i]; *p; p += p[1] == '.' ? 2 : 1) /* one-letter names */
			path[np++] = p[0] == 'a' ? "a" : p[0] == 'b' ? "b" : p[0] == 'c' ? "c" : "d";
		if (!json_skim_cut(cur, len, path, np, &from, &to))
			continue;
		if (from > to || to > len)
			abort();
		memmove(cur + from, cur + to, len - to);
		len -= to - from;
		seq++;
	}
	json_skim_find(s, n, &ps, &f);
	size_t got = json_skim_cut_found(s, n, &f, ~0u, one, &ncut);
	json_t *whole = json_loadb(s, n, 0, NULL);
	if (whole) {
		if (got != len || ncut != seq || memcmp(one, cur, len))
			abort(); /* the one pass cut otherwise than the cuts in turn */
		/* in place as well */
		memcpy(one, s, n);
		if (json_skim_cut_found(one, n, &f, ~0u, one, NULL) != len || memcmp(one, cur, len))
			abort();
		json_decref(whole);
	} else {
		/* no JSON: the one pass may stop where the text does and cut
		 * less than the lenient cuts in turn, but never makes it JSON */
		json_t *cut = json_loadb(one, got, 0, NULL);
		if (got > n || cut)
			abort();
	}
	free(one);
	free(cur);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_pick in;
	if (!fuzz_pick_take(data, size, 5, &in) || in.n > 65536)
		return 0;
	json_t *whole = json_loadb(in.s, in.n, JSON_DECODE_ANY, NULL);
	switch (in.way) {
	case 0:
		way_value(in.s, in.n, whole);
		break;
	case 1: {
		json_t *nodup = json_loadb(in.s, in.n, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);
		way_object(in.s, in.n, whole, nodup);
		json_decref(nodup);
		break;
	}
	case 2:
		way_string(in.s, in.n, whole);
		break;
	case 4:
		way_cuts(in.s, in.n);
		break;
	default: {
		json_t *nodup = json_loadb(in.s, in.n, JSON_REJECT_DUPLICATES, NULL);
		way_cut(in.s, in.n, nodup);
		json_decref(nodup);
	}
	}
	json_decref(whole);
	return 0;
}
