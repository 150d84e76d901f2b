/* tmpl/funcs_regex.c — Sprig's regular-expression functions (regex.go) with
 * Go regexp semantics on PCRE2: the pattern is parsed with Go's RE2 syntax
 * rules (Go's error messages; no backreferences, lookaround, possessive or
 * atomic groups) and translated to an equivalent PCRE2 pattern; matching
 * is leftmost-first like Go's, iteration over matches, ReplaceAll's $
 * expansion and Split follow Go's regexp package. Backtracking is bounded
 * by PCRE2 match/depth/heap limits (Go's RE2 engine is linear-time). The
 * translation and compilation are lib/goregex.c's. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/gostrconv.h"
#include "lib/vec.h"
#include "tmpl/funcs.h"
#include "tmpl/gofmt.h"
#include "lib/goregex.h"
#include "tmpl/internal.h"
#include "tmpl/sprig_unicode.h"
#include "tmpl/sprig_util.h"

/* CPU-time budget of one function call's matching (each pcre2_match is
 * bounded by goregex.c's limits; this bounds the loop over positions). */
#define RE_TIME_BUDGET_NS (2LL * 1000 * 1000 * 1000)

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
	/* 8 doubled up to REGEX_CACHE_MAX (a power of two times 8) */
	if (rc->n == REGEX_CACHE_MAX || VEC_RESERVE(rc->v, rc->cap, rc->n + 1, 8) < 0)
		return 0;
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
	goregex g;
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
	if (goregex_compile(&g, pat, n, err) < 0)
		return -1;
	re->code = g.code;
	re->md = g.md;
	re->mctx = g.mctx;
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
			/* the first group with that name that took part in
			 * the match, in group order (Go allows a name twice) */
			PCRE2_SIZE *o = ovec(re);
			uint32_t best = 0;
			for (uint32_t e = 0; e < re->name_count; e++) {
				PCRE2_SPTR ent = re->names + e * re->name_size;
				uint32_t g = (uint32_t)(ent[0] << 8 | ent[1]);
				const char *en = (const char *)ent + 2;
				if (strlen(en) == nl && memcmp(en, name, nl) == 0 && (best == 0 || g < best) &&
				    g <= re->ncap && o[2 * g] != PCRE2_UNSET)
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

