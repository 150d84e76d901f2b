/* lib/goregex_uni.c — see goregex_uni.h. */
#include "lib/goregex_uni.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNE_MAX 0x10FFFFu

void goregex_set_add(goregex_set *s, uint32_t lo, uint32_t hi)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		uint32_t(*r)[2] = realloc(s->r, cap * sizeof *r);
		if (!r) {
			s->oom = 1;
			return;
		}
		s->r = r;
		s->cap = cap;
	}
	s->r[s->n][0] = lo;
	s->r[s->n][1] = hi;
	s->n++;
}

static int range_cmp(const void *a, const void *b)
{
	uint32_t x = ((const uint32_t *)a)[0], y = ((const uint32_t *)b)[0];
	return x < y ? -1 : x > y;
}

void goregex_set_clean(goregex_set *s)
{
	size_t k = 0;
	size_t i = 1;
	if (s->n < 2)
		return;
	while (i < s->n && s->r[i][0] >= s->r[i - 1][0])
		i++;
	if (i < s->n) /* most sets come sorted */
		qsort(s->r, s->n, sizeof *s->r, range_cmp);
	for (size_t i = 1; i < s->n; i++) {
		if (s->r[i][0] <= s->r[k][1] || s->r[i][0] - 1 == s->r[k][1]) {
			if (s->r[i][1] > s->r[k][1])
				s->r[k][1] = s->r[i][1];
		} else {
			k++;
			s->r[k][0] = s->r[i][0];
			s->r[k][1] = s->r[i][1];
		}
	}
	s->n = k + 1;
}

void goregex_set_negate(goregex_set *s)
{
	goregex_set t = GOREGEX_SET_INIT;
	uint32_t next = 0;
	goregex_set_clean(s);
	for (size_t i = 0; i < s->n; i++) {
		if (s->r[i][0] > next)
			goregex_set_add(&t, next, s->r[i][0] - 1);
		next = s->r[i][1] + 1;
	}
	if (next <= RUNE_MAX)
		goregex_set_add(&t, next, RUNE_MAX);
	t.oom |= s->oom;
	free(s->r);
	*s = t;
}

void goregex_set_union(goregex_set *s, const goregex_set *t)
{
	for (size_t i = 0; i < t->n; i++)
		goregex_set_add(s, t->r[i][0], t->r[i][1]);
	s->oom |= t->oom;
}

void goregex_set_minus(goregex_set *s, const goregex_set *t)
{
	goregex_set r = GOREGEX_SET_INIT, nt = GOREGEX_SET_INIT;
	size_t j = 0;
	goregex_set_union(&nt, t);
	goregex_set_negate(&nt);
	goregex_set_clean(s);
	for (size_t i = 0; i < s->n; i++) {
		while (j < nt.n && nt.r[j][1] < s->r[i][0])
			j++;
		for (size_t k = j; k < nt.n && nt.r[k][0] <= s->r[i][1]; k++) {
			uint32_t lo = nt.r[k][0] > s->r[i][0] ? nt.r[k][0] : s->r[i][0];
			uint32_t hi = nt.r[k][1] < s->r[i][1] ? nt.r[k][1] : s->r[i][1];
			goregex_set_add(&r, lo, hi);
		}
	}
	r.oom |= s->oom | nt.oom;
	goregex_set_free(&nt);
	free(s->r);
	*s = r;
}

int goregex_set_has(const goregex_set *s, uint32_t c)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (c < s->r[m][0])
			hi = m;
		else if (c > s->r[m][1])
			lo = m + 1;
		else
			return 1;
	}
	return 0;
}

/* does s meet lo..hi (s cleaned)? */
static int set_meets(const goregex_set *s, uint32_t lo, uint32_t hi)
{
	size_t a = 0, b = s->n;
	while (a < b) { /* the first range ending at or after lo */
		size_t m = a + (b - a) / 2;
		if (s->r[m][1] < lo)
			a = m + 1;
		else
			b = m;
	}
	return a < s->n && s->r[a][0] <= hi;
}

void goregex_set_fold(goregex_set *s)
{
	/* an orbit has at most 4 members: each pass adds the next one of
	 * every member's orbit, until nothing is new */
	for (int pass = 0; pass < 4; pass++) {
		goregex_set add = GOREGEX_SET_INIT;
		goregex_set_clean(s);
		for (size_t k = 0; k < goregex_uni_fold_len; k++) {
			const goregex_fold_run *f = &goregex_uni_fold[k];
			uint32_t last = f->lo + (uint32_t)(f->n - 1) * f->stride;
			if (!set_meets(s, f->lo, last))
				continue;
			for (uint32_t c = f->lo; c <= last; c += f->stride) {
				uint32_t d = (uint32_t)((int32_t)c + f->delta);
				if (goregex_set_has(s, c) && !goregex_set_has(s, d))
					goregex_set_add(&add, d, d);
			}
		}
		size_t added = add.n;
		goregex_set_union(s, &add);
		goregex_set_free(&add);
		if (!added)
			break;
	}
	goregex_set_clean(s);
}

void goregex_set_free(goregex_set *s)
{
	free(s->r);
	memset(s, 0, sizeof *s);
}

/* adds the code points of runs whose id is in ids[0..nids) */
static void add_runs(goregex_set *s, const uint32_t *runs, size_t n, const int *ids, size_t nids)
{
	for (size_t i = 0; i < n; i++) {
		int id = (int)(runs[i] & 0xFF);
		for (size_t k = 0; k < nids; k++) {
			if (ids[k] != id)
				continue;
			uint32_t hi = i + 1 < n ? (runs[i + 1] >> 8) - 1 : RUNE_MAX;
			goregex_set_add(s, runs[i] >> 8, hi);
			break;
		}
	}
}

const char *goregex_uni_category(uint32_t c)
{
	size_t lo = 0, hi = goregex_uni_cat_runs_len; /* the last run starting at or before c */
	if (c > RUNE_MAX)
		return "Cn";
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if ((goregex_uni_cat_runs[mid] >> 8) <= c)
			lo = mid;
		else
			hi = mid;
	}
	return goregex_uni_cat_names[goregex_uni_cat_runs[lo] & 0xFF];
}

static int name_index(const char *const *names, const char *name)
{
	for (int k = 0; names[k]; k++)
		if (!strcmp(names[k], name))
			return k;
	return -1;
}

/* the categories whose name starts with `major` (all when 0), or is `name` */
static int add_categories(goregex_set *s, char major, const char *name)
{
	int ids[64];
	size_t n = 0;
	for (int k = 0; goregex_uni_cat_names[k]; k++)
		if ((major && goregex_uni_cat_names[k][0] == major) || (name && !strcmp(goregex_uni_cat_names[k], name)))
			ids[n++] = k;
	if (!n)
		return 0;
	add_runs(s, goregex_uni_cat_runs, goregex_uni_cat_runs_len, ids, n);
	return 1;
}

/* the names Go has a fold table for (unicode.FoldCategory, FoldScript) */
static const char *const fold_names[] = {
	"L", "Ll", "Lt", "Lu", "M", "Mn", "Common", "Greek", "Inherited", NULL,
};

/* the code points new in Unicode 15.0 */
static void add_new15(goregex_set *s)
{
	for (size_t k = 0; k + 1 < goregex_uni_new15_len; k += 2)
		goregex_set_add(s, goregex_uni_new15[k], goregex_uni_new15[k + 1]);
}

int goregex_uni_table(const char *canon, int fold, goregex_set *tab, char prop[GOREGEX_PROP_MAX], goregex_set *q)
{
	goregex_set t = GOREGEX_SET_INIT;
	int ok = 1;
	const char *pcre = NULL, *fmt = "\\p{%s}";
	if (!strcmp(canon, "Any")) {
		goregex_set_add(&t, 0, RUNE_MAX);
		pcre = "Any";
	} else if (!strcmp(canon, "Assigned")) {
		add_categories(&t, 0, "Cn");
		goregex_set_negate(&t);
		pcre = "Cn", fmt = "\\P{%s}";
	} else if (!strcmp(canon, "Ascii")) {
		goregex_set_add(&t, 0, 0x7F);
		fold = fold ? 2 : 0;
	} else if (!strcmp(canon, "Lc") || !strcmp(canon, "LC")) {
		add_categories(&t, 0, "Lu");
		add_categories(&t, 0, "Ll");
		add_categories(&t, 0, "Lt");
		pcre = "L&";
	} else if (canon[0] && !canon[1] && strchr("CLMNPSZ", canon[0])) {
		add_categories(&t, canon[0], NULL);
		pcre = canon;
	} else if (strlen(canon) == 2 && name_index(goregex_uni_cat_names, canon) >= 0) {
		add_categories(&t, 0, canon);
		pcre = canon;
	} else {
		int id = name_index(goregex_uni_script_names, canon);
		if (id >= 0)
			add_runs(&t, goregex_uni_script_runs, goregex_uni_script_runs_len, &id, 1);
		else
			ok = 0;
		pcre = canon, fmt = "\\p{sc:%s}";
	}
	prop[0] = '\0';
	if (ok && pcre) {
		/* PCRE2's class for the name: Go's table but for what is new
		 * in 15.0, unassigned in PCRE2's Unicode 14 (so in its C and Cn) */
		goregex_set n15 = GOREGEX_SET_INIT;
		add_new15(&n15);
		goregex_set_union(q, &t);
		if (fmt[1] == 'p' && pcre[0] == 'C' && (!pcre[1] || pcre[1] == 'n'))
			goregex_set_union(q, &n15);
		else if (strcmp(pcre, "Any"))
			goregex_set_minus(q, &n15);
		goregex_set_free(&n15);
		if (q->n) /* else not a name in Unicode 14 (Kawi) */
			snprintf(prop, GOREGEX_PROP_MAX, fmt, pcre);
	}
	if (ok && fold && (fold == 2 || name_index(fold_names, canon) >= 0))
		goregex_set_fold(&t);
	goregex_set_union(tab, &t);
	goregex_set_free(&t);
	return ok;
}

static void put_rune(bh_buf *out, uint32_t c)
{
	bh_buf_printf(out, "\\x{%x}", (unsigned)c);
}

static void put_range(bh_buf *out, uint32_t lo, uint32_t hi)
{
	put_rune(out, lo);
	if (hi != lo) {
		if (hi > lo + 1)
			bh_buf_putc(out, '-');
		put_rune(out, hi);
	}
}

size_t goregex_set_put(bh_buf *out, const goregex_set *s)
{
	size_t items = 0;
	for (size_t i = 0; i < s->n; i++) {
		uint32_t lo = s->r[i][0], hi = s->r[i][1];
		if (lo < 0xD800 && hi >= 0xD800) {
			put_range(out, lo, 0xD7FF);
			items++;
		}
		if (hi > 0xDFFF) {
			put_range(out, lo > 0xE000 ? lo : 0xE000, hi);
			items++;
		} else if (hi < 0xD800) {
			put_range(out, lo, hi);
			items++;
		}
	}
	return items;
}
