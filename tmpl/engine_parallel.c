/* tmpl/engine_parallel.c — a chart's template files parsed on more than
 * one thread (tmpl_engine_add_borrowed_all, tmpl/tmpl.h).
 *
 * Parsing is most of a mid-size chart's render that is not execution, and
 * one file's parse depends on no other's: Go parses every file on its own
 * and only then adds its trees to the template set, in file order. So each
 * thread takes the next file not yet taken, parses it with its own engine
 * (its own parse arena, name index and stack budget: tmpl_parse_set touches
 * nothing shared), and keeps the file's trees in the file's slot. When all
 * are done, the caller's thread adds the slots' trees to the namespace in
 * file order (tmpl_ns_associate), which gives the namespace that one
 * tmpl_engine_add_borrowed per file gives, and the helpers' arenas join the
 * engine's. Of several failing files, the first in file order is the one
 * reported, as a sequential parse would: files after it are left alone, or
 * their trees dropped. The job form (tmpl_parse_job_start) lets the caller
 * do other work while the helpers parse: helm/render.c coalesces and checks
 * the values meanwhile, then joins in. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tmpl/internal.h"
#include "tmpl/tmpl.h"

#define MAX_THREADS 8
/* Below this many bytes of templates a thread costs more than it saves
 * (its start and its stack's first pages: some tens of microseconds). */
#define MIN_PARALLEL_BYTES (48 * 1024)

struct slot {
	ttree **set;
	size_t nset;
};

struct batch {
	const tmpl_source *v;
	size_t n;
	struct slot *out;
	atomic_size_t next; /* the next file to take */
	atomic_size_t fail; /* the first failing file so far (n: none) */
};

struct parser_thread {
	struct batch *b;
	tmpl_engine *e;
	size_t fail; /* the file this thread failed on (b->n: none) */
	int rc;
	bh_error err;
	pthread_t th;
};

static void fail_at(struct batch *b, size_t i)
{
	size_t cur = atomic_load(&b->fail);
	while (i < cur && !atomic_compare_exchange_weak(&b->fail, &cur, i))
		;
}

static void parse_files(struct parser_thread *w)
{
	struct batch *b = w->b;
	char base;
	int outer = !w->e->stack_base;
	if (outer)
		tmpl_stack_set_base(w->e, (uintptr_t)&base);
	for (;;) {
		size_t i = atomic_fetch_add(&b->next, 1);
		if (i >= b->n || i > atomic_load(&b->fail))
			break;
		w->rc = tmpl_parse_set(w->e, b->v[i].name, b->v[i].src, b->v[i].len, 1, &b->out[i].set,
				       &b->out[i].nset, &w->err);
		if (w->rc) {
			w->fail = i;
			fail_at(b, i);
			break;
		}
	}
	if (outer)
		tmpl_stack_set_base(w->e, 0);
}

static void *parser_main(void *arg)
{
	parse_files(arg);
	return NULL;
}

/* An engine for a helper thread: the settings its parse reads. */
static tmpl_engine *helper_engine(const tmpl_engine *e, bh_error *err)
{
	tmpl_engine *h = tmpl_engine_new(err);
	if (!h)
		return NULL;
	tmpl_engine_set_limits(h, &e->limits);
	h->sprig_only = e->sprig_only;
	h->dns = e->dns;
	return h;
}

struct tmpl_parse_job {
	tmpl_engine *e;
	struct batch b;
	int nw;
	struct parser_thread w[MAX_THREADS];
};

tmpl_parse_job *tmpl_parse_job_start(tmpl_engine *e, const tmpl_source *v, size_t n, int threads)
{
	size_t bytes = 0;
	for (size_t i = 0; i < n; i++)
		bytes += v[i].len;
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	if (threads <= 1 || n < 2 || bytes < MIN_PARALLEL_BYTES)
		return NULL;
	tmpl_parse_job *j = calloc(1, sizeof *j);
	if (!j)
		return NULL;
	if (!(j->b.out = calloc(n, sizeof *j->b.out))) {
		free(j);
		return NULL;
	}
	j->e = e;
	j->b.v = v;
	j->b.n = n;
	atomic_init(&j->b.next, 0);
	atomic_init(&j->b.fail, n);
	j->w[0].b = &j->b;
	j->w[0].e = e;
	j->w[0].fail = n;
	j->nw = 1;
	/* the helpers' stacks hold the same parse depth as the caller's */
	pthread_attr_t attr;
	int have_attr = pthread_attr_init(&attr) == 0;
	if (have_attr)
		(void)pthread_attr_setstacksize(&attr, e->limits.max_stack + ((size_t)1 << 20));
	for (; j->nw < threads; j->nw++) {
		struct parser_thread *t = &j->w[j->nw];
		t->b = &j->b;
		t->fail = n;
		if (!(t->e = helper_engine(e, NULL)))
			break;
		if (pthread_create(&t->th, have_attr ? &attr : NULL, parser_main, t)) {
			tmpl_engine_free(t->e);
			t->e = NULL;
			break;
		}
	}
	if (have_attr)
		pthread_attr_destroy(&attr);
	if (j->nw == 1) { /* no thread: the caller parses as it would have */
		free(j->b.out);
		free(j);
		return NULL;
	}
	return j;
}

/* after the helpers are joined: their arenas (trees and all) become e's */
static void job_free(tmpl_parse_job *j)
{
	for (int k = 1; k < j->nw; k++) {
		tmpl_arena_adopt(&j->e->parse_arena, &j->w[k].e->parse_arena);
		tmpl_engine_free(j->w[k].e);
	}
	free(j->b.out);
	free(j);
}

int tmpl_parse_job_finish(tmpl_parse_job *j, bh_error *err)
{
	tmpl_engine *e = j->e;
	int rc = 0;
	parse_files(&j->w[0]);
	for (int k = 1; k < j->nw; k++)
		pthread_join(j->w[k].th, NULL);
	size_t n = j->b.n, fail = atomic_load(&j->b.fail);
	/* the files before the first failure join the namespace, in order */
	for (size_t i = 0; i < fail && i < n && !rc; i++)
		rc = tmpl_ns_associate(e, &e->ns, j->b.out[i].set, j->b.out[i].nset, j->b.v[i].name, err);
	for (int k = 0; k < j->nw && !rc && fail < n; k++)
		if (j->w[k].fail == fail) {
			rc = j->w[k].rc;
			if (err) {
				*err = j->w[k].err;
				if (rc == BH_EPARSE)
					tmpl_helm_parse_error(err);
			}
		}
	job_free(j);
	if (!rc && e->parse_arena.budget && e->parse_arena.used > e->parse_arena.budget)
		rc = bh_error_set(err, BH_ELIMIT, "template: out of memory (over the memory limit of %zu bytes)",
				  e->limits.max_memory);
	return rc;
}

void tmpl_parse_job_cancel(tmpl_parse_job *j)
{
	atomic_store(&j->b.fail, 0); /* the helpers stop after their current file */
	for (int k = 1; k < j->nw; k++)
		pthread_join(j->w[k].th, NULL);
	job_free(j);
}

int tmpl_engine_add_borrowed_all(tmpl_engine *e, const tmpl_source *v, size_t n, int threads, bh_error *err)
{
	tmpl_parse_job *j = tmpl_parse_job_start(e, v, n, threads);
	int rc = 0;
	if (j)
		return tmpl_parse_job_finish(j, err);
	for (size_t i = 0; i < n && !rc; i++)
		rc = tmpl_engine_add_borrowed(e, v[i].name, v[i].src, v[i].len, err);
	return rc;
}
