/* supervisor/sched.c — see sched.h. */
#include "supervisor/sched.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

static unsigned running_in(const sched_item *items, size_t n, const char *ns)
{
	unsigned r = 0;
	for (size_t i = 0; i < n; i++)
		r += items[i].running && !strcmp(items[i].ns, ns);
	return r;
}

long sched_pick(sched_state *s, const sched_item *items, size_t n, unsigned cap)
{
	long after = -1, first = -1; /* best item in the next namespace after last_ns, and overall */
	for (size_t i = 0; i < n; i++) {
		const sched_item *it = &items[i];
		long *slot;
		int c;
		if (!it->ready || it->running)
			continue;
		slot = strcmp(it->ns, s->last_ns) > 0 ? &after : &first;
		if (*slot >= 0) {
			c = strcmp(it->ns, items[*slot].ns);
			if (c > 0 || (c == 0 && it->since >= items[*slot].since))
				continue;
		}
		if (cap && running_in(items, n, it->ns) >= cap)
			continue; /* this namespace is at its cap: another may go */
		*slot = (long)i;
	}
	if (after < 0) /* wrap around: the first namespace in order */
		after = first;
	if (after >= 0)
		snprintf(s->last_ns, sizeof s->last_ns, "%s", items[after].ns);
	return after;
}

/* ---- sched_q ------------------------------------------------------------------ */
struct sched_ns {
	sched_ns *next; /* the next by name */
	sched_heap h;   /* its queued items by (due, index) */
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
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 16;
		size_t *a = realloc(h->a, cap * sizeof *a);
		if (!a)
			return BH_ENOMEM;
		h->a = a;
		h->cap = cap;
	}
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

/* The record of namespace name (made, in its place by name, on first use),
 * or NULL when out of memory. A walk of the namespaces: once per item. */
static sched_ns *ns_of(sched_q *q, const char *name)
{
	sched_ns **p = &q->first, *s;
	size_t l = strlen(name);
	int c = 1;
	while (*p && (c = strcmp((*p)->name, name)) < 0)
		p = &(*p)->next;
	if (c == 0)
		return *p;
	if (!(s = calloc(1, sizeof *s + l + 1)))
		return NULL;
	memcpy(s->name, name, l + 1);
	s->next = *p;
	*p = s;
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
		return BH_ENOMEM;
	}
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
 * may not (started, dequeued) leave its heap on the way. */
static long ns_top(sched_q *q, sched_ns *s)
{
	while (s->h.n) {
		size_t i = s->h.a[0];
		if (q->waiting(q->ud, i))
			return (long)i;
		heap_del(q, &s->h, 0, i);
	}
	return -1;
}

long sched_q_pick(sched_q *q, double now, unsigned cap)
{
	/* sched_pick's order: the namespaces after the last served, then from
	 * the first (at first, "" is after nothing: it comes on the wrap) */
	sched_ns *start = q->last ? q->last->next : q->first;
	if (!q->last && start && !start->name[0])
		start = start->next;
	for (int wrap = 0; wrap < 2; wrap++)
		for (sched_ns *s = wrap ? q->first : start; s && !(wrap && s == start); s = s->next) {
			long i;
			if (cap && s->running >= cap)
				continue;
			if ((i = ns_top(q, s)) >= 0 && q->link(q->ud, (size_t)i)->due <= now) {
				q->last = s;
				return i;
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
	while (q->first) {
		sched_ns *s = q->first;
		q->first = s->next;
		free(s->h.a);
		free(s);
	}
	free(q->timer.a);
	q->timer = (sched_heap){NULL, 0, 0};
	q->last = NULL;
}
