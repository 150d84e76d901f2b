/* supervisor/sched.c — see sched.h. */
#include "supervisor/sched.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/vec.h"

/* ---- sched_q ------------------------------------------------------------------ */
struct sched_ns {
	size_t pos;   /* its place in q->ns (by name), or NS_GONE */
	size_t refs;  /* the items whose link names it: at 0 it leaves q->ns */
	sched_heap h; /* its queued items by (due, index) */
	unsigned running;
	char name[];
};

/* The pos of a namespace that left q->ns while it was q->last: kept (its
 * heap freed) for its name only, which the round-robin goes on after. */
#define NS_GONE ((size_t)-1)

static size_t *pos_of(sched_q *q, size_t i, int timer)
{
	sched_link *l = q->link(q->ud, i);
	return timer ? &l->tpos : &l->qpos;
}

/* Does item a come before item b: due earlier, or as due and first in the table? */
static int before(sched_q *q, size_t a, size_t b)
{
	double da = q->link(q->ud, a)->due, db = q->link(q->ud, b)->due;
	return da < db || (da == db && a < b);
}

static void heap_set(sched_q *q, sched_heap *h, int timer, size_t k, size_t i)
{
	h->a[k] = i;
	*pos_of(q, i, timer) = k + 1;
}

/* The item at k goes where its key puts it (up, or down). */
static void heap_fix(sched_q *q, sched_heap *h, int timer, size_t k)
{
	size_t i = h->a[k];
	while (k > 0 && before(q, i, h->a[(k - 1) / 2])) {
		heap_set(q, h, timer, k, h->a[(k - 1) / 2]);
		k = (k - 1) / 2;
	}
	for (;;) {
		size_t c = 2 * k + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && before(q, h->a[c + 1], h->a[c]))
			c++;
		if (!before(q, h->a[c], i))
			break;
		heap_set(q, h, timer, k, h->a[c]);
		k = c;
	}
	heap_set(q, h, timer, k, i);
}

/* Item i into h, or moved within it after its due changed. */
static int heap_put(sched_q *q, sched_heap *h, int timer, size_t i)
{
	size_t pos = *pos_of(q, i, timer);
	if (pos) {
		heap_fix(q, h, timer, pos - 1);
		return 0;
	}
	if (VEC_RESERVE(h->a, h->cap, h->n + 1, 16) < 0)
		return BH_ENOMEM;
	h->a[h->n++] = i;
	heap_fix(q, h, timer, h->n - 1);
	return 0;
}

static void heap_del(sched_q *q, sched_heap *h, int timer, size_t i)
{
	size_t *pos = pos_of(q, i, timer), k = *pos - 1;
	*pos = 0;
	if (k < --h->n) {
		heap_set(q, h, timer, k, h->a[h->n]);
		heap_fix(q, h, timer, k);
	}
}

/* ---- the namespaces' key tree (sched_q.key) ---- */
static double ns_key(const sched_q *q, const sched_ns *s)
{
	if (!s->h.n || (q->cap && s->running >= q->cap))
		return HUGE_VAL;
	return q->link(q->ud, s->h.a[0])->due;
}

/* s's key changed (its heap's top, its running count): its leaf and the
 * minimums above it, up to the first that stays. */
static void ns_rekey(sched_q *q, const sched_ns *s)
{
	size_t k = q->nscap + s->pos;
	q->key[k] = ns_key(q, s);
	for (k /= 2; k >= 1; k /= 2) {
		double m = fmin(q->key[2 * k], q->key[2 * k + 1]);
		if (q->key[k] == m)
			break;
		q->key[k] = m;
	}
}

/* The minimums above leaves [from, to) anew, level by level. */
static void tree_fix(sched_q *q, size_t from, size_t to)
{
	size_t a = (q->nscap + from) / 2, b = (q->nscap + to - 1) / 2;
	for (; a >= 1; a /= 2, b /= 2)
		for (size_t k = a; k <= b; k++)
			q->key[k] = fmin(q->key[2 * k], q->key[2 * k + 1]);
}

/* Every key anew: a new tree, or another cap. */
static void tree_build(sched_q *q)
{
	for (size_t j = 0; j < q->nscap; j++)
		q->key[q->nscap + j] = j < q->nns ? ns_key(q, q->ns[j]) : HUGE_VAL;
	tree_fix(q, 0, q->nscap);
}

/* The first position from `from` on whose key is due by now (it may start
 * something, or its top stopped waiting), or q->nns: from leaf `from` up
 * while no subtree to the right has one, then down to the leftmost. */
static size_t tree_first(const sched_q *q, size_t from, double now)
{
	size_t k;
	if (from >= q->nns)
		return q->nns;
	for (k = q->nscap + from; q->key[k] > now; k++) {
		while (k & 1) /* a right child: its parent's right is further on */
			k /= 2;
		if (k == 0) /* past the root */
			return q->nns;
	}
	while (k < q->nscap)
		k = q->key[2 * k] <= now ? 2 * k : 2 * k + 1;
	return k - q->nscap < q->nns ? k - q->nscap : q->nns;
}

/* Room for one more namespace: the array and the tree double (the tree is
 * made anew by the caller). */
static int ns_grow(sched_q *q)
{
	size_t cap = q->nscap;
	double *key;
	if (VEC_RESERVE(q->ns, cap, q->nns + 1, 16) < 0)
		return BH_ENOMEM;
	if (!(key = malloc(2 * cap * sizeof *key)))
		return BH_ENOMEM; /* the array grew; nscap and the tree stay */
	free(q->key);
	q->key = key;
	q->nscap = cap;
	return 0;
}

/* The first position in q->ns whose name is not before name (a binary
 * search); *found: it is name. */
static size_t ns_find(const sched_q *q, const char *name, int *found)
{
	size_t lo = 0, hi = q->nns;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(q->ns[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < q->nns && !strcmp(q->ns[lo]->name, name);
	return lo;
}

/* The record of namespace name (made, in its place by name, on first use,
 * with no reference yet), or NULL when out of memory. A new namespace
 * moves the ones after it and their keys (the minimums above them
 * follow): once per namespace. */
static sched_ns *ns_of(sched_q *q, const char *name)
{
	size_t l = strlen(name);
	int grew = 0, found;
	size_t lo = ns_find(q, name, &found);
	sched_ns *s;
	if (found)
		return q->ns[lo];
	if (!(s = calloc(1, sizeof *s + l + 1)))
		return NULL;
	if (q->nns == q->nscap) {
		if (ns_grow(q) < 0) {
			free(s);
			return NULL;
		}
		grew = 1;
	}
	memcpy(s->name, name, l + 1);
	memmove(&q->ns[lo + 1], &q->ns[lo], (q->nns - lo) * sizeof *q->ns);
	q->ns[lo] = s;
	q->nns++;
	for (size_t j = lo; j < q->nns; j++)
		q->ns[j]->pos = j;
	if (grew) {
		tree_build(q);
	} else {
		double *leaf = &q->key[q->nscap + lo];
		memmove(leaf + 1, leaf, (q->nns - 1 - lo) * sizeof *leaf);
		*leaf = HUGE_VAL; /* nothing queued in it yet */
		tree_fix(q, lo, q->nns);
	}
	return s;
}

/* At most a quarter of the room used: the array and the tree halve (not
 * below 16), so a controller that once saw many namespaces holds and
 * rebuilds for the ones it has now; a quarter, not a half, so that a
 * count going up and down across a boundary does not remake them each
 * time. 1 when they did (the tree made anew), 0 when they stay (out of
 * memory too: nothing lost, the room stays). */
static int ns_shrink(sched_q *q)
{
	size_t cap = q->nscap / 2;
	sched_ns **a;
	double *key;
	if (q->nscap <= 16 || q->nns > q->nscap / 4)
		return 0;
	if (!(key = malloc(2 * cap * sizeof *key)))
		return 0;
	if (!(a = realloc(q->ns, cap * sizeof *a))) {
		free(key);
		return 0;
	}
	q->ns = a;
	free(q->key);
	q->key = key;
	q->nscap = cap;
	tree_build(q);
	return 1;
}

/* s (no item names it: its heap empty, nothing running) leaves q->ns: the
 * ones after it and their keys move down (the minimums above them
 * follow). The namespace served last stays for its name (NS_GONE): the
 * next pick goes on after it, whatever comes or goes meanwhile. */
static void ns_leave(sched_q *q, sched_ns *s)
{
	size_t p = s->pos;
	free(s->h.a);
	s->h = (sched_heap){NULL, 0, 0};
	memmove(&q->ns[p], &q->ns[p + 1], (q->nns - p - 1) * sizeof *q->ns);
	q->nns--;
	for (size_t j = p; j < q->nns; j++)
		q->ns[j]->pos = j;
	if (!ns_shrink(q)) {
		double *leaf = &q->key[q->nscap + p];
		memmove(leaf, leaf + 1, (q->nns - p) * sizeof *leaf);
		q->key[q->nscap + q->nns] = HUGE_VAL;
		tree_fix(q, p, q->nns + 1);
	}
	if (s == q->last)
		s->pos = NS_GONE;
	else
		free(s);
}

/* An item's link stops naming s: 1 when that was the last (s left q->ns). */
static int ns_unref(sched_q *q, sched_ns *s)
{
	if (--s->refs)
		return 0;
	ns_leave(q, s);
	return 1;
}

/* Item i's link, naming namespace ns (made on the first report). An item
 * reported with another namespace moves there: its place in the queue
 * (its due) and its running count go along, and the old one may leave.
 * NULL when out of memory: the link as it was, or moved but out of the
 * heap (sched_q_has says so). */
static sched_link *link_in(sched_q *q, size_t i, const char *ns)
{
	sched_link *l = q->link(q->ud, i);
	sched_ns *s, *old = l->ns;
	int queued = l->qpos != 0;
	if (old && !strcmp(old->name, ns))
		return l;
	if (!(s = ns_of(q, ns)))
		return NULL;
	s->refs++;
	l->ns = s;
	if (!old)
		return l;
	if (queued)
		heap_del(q, &old->h, 0, i);
	if (l->running) {
		old->running--;
		s->running++;
	}
	if (!ns_unref(q, old))
		ns_rekey(q, old);
	if (queued && heap_put(q, &s->h, 0, i) < 0) {
		ns_rekey(q, s);
		return NULL;
	}
	ns_rekey(q, s);
	return l;
}

int sched_q_queue(sched_q *q, size_t i, const char *ns, double due)
{
	sched_link *l = link_in(q, i, ns);
	if (!l)
		return BH_ENOMEM;
	l->due = due;
	if (heap_put(q, &l->ns->h, 0, i) < 0)
		return BH_ENOMEM;
	if (heap_put(q, &q->timer, 1, i) < 0) {
		heap_del(q, &l->ns->h, 0, i); /* in both or in neither (sched_q_has) */
		ns_rekey(q, l->ns);
		return BH_ENOMEM;
	}
	ns_rekey(q, l->ns);
	return 0;
}

int sched_q_wait(sched_q *q, size_t i, const char *ns)
{
	return sched_q_queue(q, i, ns, q->link(q->ud, i)->due);
}

int sched_q_has(const sched_q *q, size_t i)
{
	return q->link(q->ud, i)->qpos != 0;
}

int sched_q_running(sched_q *q, size_t i, const char *ns, int running)
{
	sched_link *l = link_in(q, i, ns);
	if (!l)
		return BH_ENOMEM;
	if (l->running != !!running) {
		l->running = !!running;
		if (running)
			l->ns->running++;
		else
			l->ns->running--;
		ns_rekey(q, l->ns);
	}
	return 0;
}

void sched_q_remove(sched_q *q, size_t i)
{
	sched_link *l = q->link(q->ud, i);
	if (l->qpos)
		heap_del(q, &l->ns->h, 0, i);
	if (l->tpos)
		heap_del(q, &q->timer, 1, i);
	if (l->running) {
		l->running = 0;
		l->ns->running--;
	}
	if (l->ns && !ns_unref(q, l->ns))
		ns_rekey(q, l->ns);
	l->ns = NULL;
}

void sched_q_moved(sched_q *q, size_t i)
{
	sched_link *l = q->link(q->ud, i);
	if (l->qpos) {
		l->ns->h.a[l->qpos - 1] = i;
		heap_fix(q, &l->ns->h, 0, l->qpos - 1);
	}
	if (l->tpos) {
		q->timer.a[l->tpos - 1] = i;
		heap_fix(q, &q->timer, 1, l->tpos - 1);
	}
}

/* s's queued item due first that may still start, or -1; the ones that
 * may not (started, dequeued) leave its heap on the way (and its key
 * follows its new top). */
static long ns_top(sched_q *q, sched_ns *s)
{
	long top = -1;
	size_t n = s->h.n;
	while (s->h.n) {
		size_t i = s->h.a[0];
		if (q->waiting(q->ud, i)) {
			top = (long)i;
			break;
		}
		heap_del(q, &s->h, 0, i);
	}
	if (s->h.n != n)
		ns_rekey(q, s);
	return top;
}

/* The first position in q->ns after the namespace served last by name:
 * at first after "" (it comes on the wrap), after one that left by its
 * name (not one of the same name that came since). */
static size_t ns_after_last(const sched_q *q)
{
	int found;
	size_t p;
	if (q->last && q->last->pos != NS_GONE)
		return q->last->pos + 1;
	p = ns_find(q, q->last ? q->last->name : "", &found);
	return p + (size_t)found;
}

/* s is served: the last, instead of one kept only for its name. */
static void ns_served(sched_q *q, sched_ns *s)
{
	if (q->last && q->last->pos == NS_GONE)
		free(q->last);
	q->last = s;
}

long sched_q_pick(sched_q *q, double now, unsigned cap)
{
	/* the rule's order: the namespaces after the last served, then from
	 * the first up to it; of those, the ones whose key says they may
	 * start something */
	size_t after = ns_after_last(q);
	if (cap != q->cap) {
		q->cap = cap;
		if (q->nns)
			tree_build(q);
	}
	for (int wrap = 0; wrap < 2; wrap++) {
		size_t end = wrap ? after : q->nns;
		for (size_t k = wrap ? 0 : after; (k = tree_first(q, k, now)) < end; k++) {
			sched_ns *s = q->ns[k]; /* not at its cap: its key says */
			long i = ns_top(q, s);
			if (i >= 0 && q->link(q->ud, (size_t)i)->due <= now) {
				ns_served(q, s);
				return i;
			}
		}
	}
	return -1;
}

double sched_q_next(sched_q *q, double now)
{
	while (q->timer.n) {
		size_t i = q->timer.a[0];
		double due = q->link(q->ud, i)->due;
		if (due > now && q->waiting(q->ud, i))
			return due;
		heap_del(q, &q->timer, 1, i); /* due now (its namespace's heap has it), or not waiting */
	}
	return HUGE_VAL;
}

void sched_q_free(sched_q *q)
{
	if (q->last && q->last->pos == NS_GONE) /* not in q->ns */
		free(q->last);
	for (size_t j = 0; j < q->nns; j++) {
		free(q->ns[j]->h.a);
		free(q->ns[j]);
	}
	free(q->ns);
	free(q->key);
	free(q->timer.a);
	q->ns = NULL;
	q->key = NULL;
	q->nns = q->nscap = 0;
	q->cap = 0;
	q->timer = (sched_heap){NULL, 0, 0};
	q->last = NULL;
}
