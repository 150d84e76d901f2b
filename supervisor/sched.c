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
	size_t pos;   /* its place in q->ns (by name) */
	sched_heap h; /* its queued items by (due, index) */
	unsigned running;
	char name[];
};

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

/* The record of namespace name (made, in its place by name, on first use),
 * or NULL when out of memory. A binary search; a new namespace moves the
 * ones after it and their keys (the minimums above them follow): once per
 * namespace. */
static sched_ns *ns_of(sched_q *q, const char *name)
{
	size_t lo = 0, hi = q->nns, l = strlen(name);
	int grew = 0;
	sched_ns *s;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(q->ns[mid]->name, name);
		if (c == 0)
			return q->ns[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
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

static sched_link *link_in(sched_q *q, size_t i, const char *ns)
{
	sched_link *l = q->link(q->ud, i);
	if (!l->ns && !(l->ns = ns_of(q, ns)))
		return NULL;
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
	if (l->ns)
		ns_rekey(q, l->ns);
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

long sched_q_pick(sched_q *q, double now, unsigned cap)
{
	/* the rule's order: the namespaces after the last served, then from
	 * the first up to it (at first, "" is after nothing: it comes on the
	 * wrap); of those, the ones whose key says they may start something */
	size_t after = q->last ? q->last->pos + 1 : (q->nns && !q->ns[0]->name[0]);
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
				q->last = s;
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
