/* supervisor/main.c — bulkheadd: watches HelmReleases in all namespaces,
 * queues them, and for each reconcile fetches the chart artifact, spawns one
 * sandboxed bulkhead-worker, serves its requests through the broker, and
 * writes the outcome to the HelmRelease's status.
 *
 * The main thread runs a poll loop over the worker sockets, the requests in
 * flight, the workers' watches and its own watches' streams (loopwatch.h):
 * an event is decoded and applied on the thread that uses it, and nothing
 * there blocks on a worker or the API server. Only the watches' lists (at
 * the start, after 410 Gone or an error) are made on a thread of their own
 * and handed to the loop. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <sched.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api/helmrelease.h"
#include "kube/curl.h"
#include "kube/kube.h"
#include "lib/hash.h"
#include "proto/jload.h"
#include "sandbox/sandbox.h"
#include "supervisor/artcache.h"
#include "supervisor/acl.h"
#include "supervisor/artfetch.h"
#include "supervisor/artifact.h"
#include "supervisor/audit.h"
#include "supervisor/depends.h"
#include "supervisor/broker.h"
#include "supervisor/broker_watch.h"
#include "supervisor/loopwatch.h"
#include "supervisor/discovery.h"
#include "supervisor/evset.h"
#include "supervisor/forward.h"
#include "supervisor/hccache.h"
#include "supervisor/hrent.h"
#include "supervisor/jtext.h"
#include "supervisor/httpd.h"
#include "supervisor/job.h"
#include "supervisor/leader.h"
#include "supervisor/log.h"
#include "supervisor/metrics.h"
#include "supervisor/noop.h"
#include "supervisor/notify.h"
#include "supervisor/remote.h"
#include "supervisor/requeue.h"
#include "supervisor/sched.h"
#include "supervisor/source.h"
#include "supervisor/sources.h"
#include "supervisor/spawn.h"
#include "supervisor/status.h"

#define MAX_OUTQ ((size_t)64 << 20) /* a worker that stops reading its answers */

static struct {
	const char *kubeconfig, *audit_log, *worker_path, *default_sa, *metrics_addr, *health_addr;
	int leader_election, watch_all_ns;
	unsigned per_ns_cap;
	const char *watch_selector;
	leader_opts le; /* Flux's defaults: 35s, 30s, 5s */
	int concurrent, test_hooks, log_level, log_encoding; /* svlog_level, svlog_encoding */
	double requeue_dependency, default_interval, shutdown_grace;
	unsigned long worker_cpu, worker_mem_mb;
	unsigned long long audit_max_size;
	unsigned audit_max_backups;
	const char *worker_uid; /* --worker-uid (spawn_set_user); NULL: default */
} opt = {NULL, NULL, NULL, NULL, NULL, NULL, 0, 1, 0, NULL, {NULL, "bulkheadd-leader-election", NULL, 35, 30, 5}, 4, 0, SVLOG_INFO, SVLOG_CONSOLE, 30, 600, 600, 60, 1024, 100ULL << 20, 10};
static acl_policy lockdown; /* --default-service-account, --no-cross-namespace-refs */

/* ---- other threads -> main thread ------------------------------------------ */
static pthread_mutex_t wmu = PTHREAD_MUTEX_INITIALIZER;
static int wake_pipe[2] = {-1, -1};
static volatile sig_atomic_t stopping, reopen_audit;
static atomic_int child_exited = 1; /* SIGCHLD since reap last looked (reap's wait4) */

/* Waking the main loop. Whoever gives the loop work (a queue under wmu,
 * a flag, a SIGCHLD, obj_done on the loop's own thread) stores it, then
 * calls wake(). wake() sets wake_pending and writes a byte to the pipe
 * only when the loop is in (or about to enter) its poll (loop_polling);
 * while the loop is busy the flag alone is enough, as the loop looks at
 * it before it polls and then does not wait (0 ms). So a worker's exit or
 * an answer that comes while the loop works costs no write and read.
 *
 * Why no wake is lost. The loop: drain_watch clears wake_pending (after
 * reading the pipe), then takes the queues; before its poll it stores
 * loop_polling = 1, then loads wake_pending; after the poll it stores
 * loop_polling = 0. wake(): exchanges wake_pending to 1, then loads
 * loop_polling. All four are sequentially consistent, so of the loop's
 * (store loop_polling, load wake_pending) and wake()'s (store
 * wake_pending, load loop_polling) one side sees the other's store:
 * - wake() ran before drain_watch's clear: the work was stored before it,
 *   the queues are taken after the clear, so this turn sees it;
 * - it ran after the clear and before the loop's load: the loop sees
 *   wake_pending and polls for 0 ms (next turn takes the work);
 * - it ran after the loop stored loop_polling (in, or about to enter,
 *   the poll): it sees loop_polling and writes the byte the poll wakes
 *   on (when the poll had already returned, the next poll finds it at
 *   once); both seeing each other costs one spare byte;
 * - wake_pending was already 1: a wake since the clear that the loop
 *   sees before its poll or that wrote the pipe, per the cases above.
 * A byte the poll did not see stays for the next poll (drain_watch reads
 * only what the poll found): one spare turn, never a wait. Signal-safe (lock-free atomics, write(2)). */
static atomic_int loop_polling;
static atomic_int wake_pending;

static void wake(void)
{
	int saved = errno;
	if (!atomic_exchange(&wake_pending, 1) && atomic_load(&loop_polling)) {
		ssize_t n = write(wake_pipe[1], "x", 1);
		(void)n;
	}
	errno = saved;
}

static void upsert(hr_ent *h);
static void drop(const hr_ent *h);
static void relisted(hr_ent **items, size_t n);

/* On the loop's thread (loopwatch.h): each object is decoded once, here,
 * into the cache's compact form (hrent.h), with the text the event carried
 * (ud is the watch's client), and applied; the tree is dropped by the
 * decoder. */
static int on_watch(void *ud, kube_watch_type type, json_t *obj)
{
	const char *text;
	size_t len;
	hr_ent *h;
	if (type == KUBE_WATCH_RELIST) {
		json_t *items = json_object_get(obj, "items"), *it;
		size_t i, n = 0;
		hr_ent **hs = json_array_size(items) ? calloc(json_array_size(items), sizeof *hs) : NULL;
		if (json_array_size(items) && !hs)
			return 0;
		json_array_foreach(items, i, it) {
			if (!(hs[n] = hrent_new(it, NULL, 0))) { /* a partial list would drop the rest */
				while (n)
					free(hs[--n]);
				free(hs);
				return 0;
			}
			n++;
		}
		relisted(hs, n);
		free(hs);
	} else if (type <= KUBE_WATCH_DELETED) {
		text = kube_watch_object_text(ud, &len);
		if (!(h = hrent_new(obj, text, len)))
			return 0;
		if (type == KUBE_WATCH_DELETED) {
			drop(h);
			free(h);
		} else {
			upsert(h);
		}
	}
	return stopping ? 1 : 0;
}

static int builtin_sources;      /* --sources=builtin: supervisor/sources.c */
static const char *fetcher_path; /* --fetcher-path */

/* Sources ("kind/ns/name") with a new artifact revision (from the sources threads). */
static char (*triggers)[560];
static size_t ntriggers;

static void on_artifact(const char *kind, const char *ns, const char *name)
{
	pthread_mutex_lock(&wmu);
	char(*t)[560] = realloc(triggers, (ntriggers + 1) * sizeof *triggers);
	if (t) {
		triggers = t;
		snprintf(triggers[ntriggers++], sizeof *triggers, "%s/%s/%s", kind, ns, name);
	}
	pthread_mutex_unlock(&wmu);
	wake();
}

/* A download of the artifact fetch threads ended (artfetch.h). */
static int fetched;

static void on_fetched(void)
{
	pthread_mutex_lock(&wmu);
	fetched = 1;
	pthread_mutex_unlock(&wmu);
	wake();
}

/* The loop's sources of sockets besides the workers': each gives its fds
 * before the poll and runs after it. */
static const struct loop_src {
	const struct pollfd *(*fds)(size_t *n, int *timeout_ms);
	void (*run)(const struct pollfd *pfd, size_t n);
} loop_srcs[] = {
	{fwd_fds, fwd_run},       /* the requests in flight (forward.h) */
	{bwatch_fds, bwatch_run}, /* the workers' watches (broker_watch.h) */
	{loopwatch_fds, loopwatch_run}, /* its own watches (loopwatch.h) */
};
#define NSRC (sizeof loop_srcs / sizeof loop_srcs[0])

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reopen_audit = 1;
	else if (sig == SIGCHLD)
		atomic_store(&child_exited, 1);
	else if (stopping < 2)
		stopping++; /* a second signal ends the graceful wait */
	wake();
}

/* ---- HelmRelease cache and queue -------------------------------------------- */
/* What a worker that found the release in sync and wrote nothing reported,
 * with the inputs it had (noop.h). */
typedef struct insync {
	json_int_t gen;
	char digest[80];
	uint64_t storage_fp;
	char *storage_path, *helmchart, *storage_ns;
	proto_result res; /* without status and events (a tree each, for every release in sync) */
	char *status;     /* res.status as compact JSON, or NULL */
} insync;

/* A namespace the entries show, with its queue gauges (ns_gauges): one per
 * namespace while an entry points at it (refs), freed with its last entry,
 * so namespaces that come and go leave nothing behind. */
typedef struct nsrec {
	struct nsrec *next;           /* in its hash chain */
	struct nsrec *after, *before; /* the namespaces shown next after it, and before it */
	size_t refs;                  /* entries pointing at it */
	double n[2];                  /* waiting, running */
	char ns[];
} nsrec;

typedef struct entry {
	char key[320];
	hr_ent *hr;     /* the newest object (hrent.h) */
	json_t *tree;   /* hr decoded (hr_of), until the end of the loop's turn, or NULL */
	const char *ns; /* hr's namespace ("" when it has none), for the scheduler */
	nsrec *nsr;     /* its namespace's */
	uint64_t st_written; /* the status last written (status_patch's record), 0: none */
	int queued;
	double not_before;
	json_int_t sched_gen;
	int deleting;           /* queued for the uninstall of a deleted object */
	unsigned retries;       /* consecutive "requeue now" results (backoff) */
	char rid[37];           /* reconcileID of the latest reconcile */
	json_int_t stalled_gen; /* refused by the lock-down at this generation */
	json_int_t done_gen;    /* generation and reconcile request the last */
	char done_req[80];      /* worker attempted: a watch event older than its status write asks for nothing */
	int art_wait;           /* waits for its artifact's download (artfetch.h) */
	insync *sync;           /* its last reconcile changed nothing (noop.h), or NULL */
	int fin_wait;           /* our finalizer's addition is in flight (obj_run) */
	int sa_wait;            /* the deletion's ServiceAccount check is in flight */
	struct obj_op *sa;      /* its answer, for the next start(), or NULL */
	int fin_added;          /* it was added; the cached object may not show it yet */
	sv_job *job;    /* set by entry_job, cleared by entry_unjob (the scheduler counts it) */
	sched_link sl;  /* its place in the scheduler's queues (squeue) */
	size_t hnext; /* the next entry (index + 1) in its key's hash chain, 0 at its end */
	int listed;   /* in the RELIST being applied (drain_watch) */
	int gone;     /* its object went (deleted, not relisted) while it had a job: it goes when that ends */
} entry;

static int worker_fd = -1;
static unsigned long job_serial;
static entry *entries;
static size_t nentries, centries;
static sv_job **jobs;
static size_t njobs;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The queue (sched.h): every entry queued (queue_after) or that got or
 * lost a job is reported to it; an entry that stopped waiting otherwise
 * (started, stalled, refused: queued cleared) leaves it when it comes to
 * the top (entry_waiting). squeue_lost: a report found no memory; ops_pick
 * reports the entries again before it picks. */
static sched_link *entry_link(void *ud, size_t i);
static int entry_waiting(void *ud, size_t i);
static sched_q squeue = SCHED_Q_INIT(entry_link, entry_waiting, NULL);
static int squeue_lost;
/* The next timer of the queue (next_timer) as last computed. */
static double timer_at;

static sched_link *entry_link(void *ud, size_t i)
{
	(void)ud;
	return &entries[i].sl;
}

/* Queues e to run no sooner than delay_s seconds from now. */
static void queue_after(entry *e, double delay_s)
{
	e->queued = 1;
	e->not_before = now_s() + delay_s;
	if (sched_q_queue(&squeue, (size_t)(e - entries), e->ns, e->not_before) < 0)
		squeue_lost = 1;
}

/* e's reconcile (worker or no-op check) is j. */
static void entry_job(entry *e, sv_job *j)
{
	e->job = j;
	if (sched_q_running(&squeue, (size_t)(e - entries), e->ns, 1) < 0)
		squeue_lost = 1;
}

/* e's job is over (e->job cleared): a queue time it got meanwhile is due
 * again (its namespace's queue and the timer). */
static void entry_unjob(entry *e)
{
	e->job = NULL;
	if (sched_q_running(&squeue, (size_t)(e - entries), e->ns, 0) < 0 ||
	    (e->queued && sched_q_wait(&squeue, (size_t)(e - entries), e->ns) < 0))
		squeue_lost = 1;
}

static const char *jstr(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(o, a);
	if (b)
		v = json_object_get(v, b);
	return json_string_value(v);
}

static void key_of(const json_t *hr, char *key, size_t n)
{
	snprintf(key, n, "%s/%s", jstr(hr, "metadata", "namespace") ? jstr(hr, "metadata", "namespace") : "",
		 jstr(hr, "metadata", "name") ? jstr(hr, "metadata", "name") : "");
}

/* ---- the entries by key: chained hash (index + 1 in ebucket and hnext) ---- */
static size_t *ebucket; /* nbucket heads, a power of two; NULL: entries are scanned */
static size_t nbucket;

static size_t key_hash(const char *key)
{
	uint64_t h = bh_fnv1a_str(key);
	return (size_t)(h ^ (h >> 29));
}

/* The link (a bucket head or an hnext) that holds idx1 (index + 1). */
static size_t *hash_link(size_t idx1)
{
	size_t *l = &ebucket[key_hash(entries[idx1 - 1].key) & (nbucket - 1)];
	while (*l != idx1)
		l = &entries[*l - 1].hnext;
	return l;
}

static void hash_insert(size_t idx)
{
	size_t *head = &ebucket[key_hash(entries[idx].key) & (nbucket - 1)];
	entries[idx].hnext = *head;
	*head = idx + 1;
}

/* Indexes entries[idx], new at the end; the table grows with the entries
 * (without memory it stays as it is: longer chains, or a scan). */
static void hash_add(size_t idx)
{
	if (nentries > nbucket) {
		size_t n = nbucket ? nbucket * 2 : 64;
		size_t *b = calloc(n, sizeof *b);
		if (b) {
			free(ebucket);
			ebucket = b;
			nbucket = n;
			for (size_t i = 0; i < nentries; i++)
				hash_insert(i);
			return;
		}
	}
	if (ebucket)
		hash_insert(idx);
}

static entry *find_entry(const char *key)
{
	if (!ebucket) {
		for (size_t i = 0; i < nentries; i++)
			if (strcmp(entries[i].key, key) == 0)
				return &entries[i];
		return NULL;
	}
	for (size_t i = ebucket[key_hash(key) & (nbucket - 1)]; i; i = entries[i - 1].hnext)
		if (strcmp(entries[i - 1].key, key) == 0)
			return &entries[i - 1];
	return NULL;
}

/* e's object as a tree (borrowed): decoded from its compact form on first
 * use in a turn of the main loop, let go at the next turn (trees_release);
 * what must outlive the turn takes a reference. NULL when out of memory. */
static size_t ntrees;

static const json_t *hr_of(entry *e)
{
	if (!e->tree && (e->tree = hrent_tree_new(e->hr)))
		ntrees++;
	return e->tree;
}

static void tree_drop(entry *e)
{
	if (e->tree) {
		json_decref(e->tree);
		e->tree = NULL;
		ntrees--;
	}
}

static void trees_release(void)
{
	for (size_t i = 0; ntrees && i < nentries; i++)
		tree_drop(&entries[i]);
}

static void insync_forget(entry *e)
{
	if (!e->sync)
		return;
	proto_result_free(&e->sync->res);
	free(e->sync->status);
	free(e->sync->storage_path);
	free(e->sync->helmchart);
	free(e->sync->storage_ns);
	free(e->sync);
	e->sync = NULL;
}

/* The cached HelmRelease ns/name (depends.h). */
static const json_t *cache_lookup(void *ud, const char *ns, const char *name)
{
	char key[320];
	entry *en;
	(void)ud;
	snprintf(key, sizeof key, "%s/%s", ns, name);
	return (en = find_entry(key)) ? hr_of(en) : NULL;
}

static double hr_interval(const json_t *hr)
{
	double d = source_parse_duration(jstr(hr, "spec", "interval"));
	return d > 0 ? d : opt.default_interval;
}

#define has_finalizer hr_has_finalizer
#define being_deleted hr_being_deleted

/* The JSON patch that adds (add=1) or removes our finalizer: it tests the
 * list it replaces, so concurrent changes of other finalizers are not lost;
 * hr NULL: an object without a finalizer list (hr_ent.fin_list), given our
 * finalizer. NULL when out of memory. */
static char *finalizer_patch_new(const json_t *hr, int add)
{
	const json_t *cur = hr ? json_object_get(json_object_get(hr, "metadata"), "finalizers") : NULL;
	json_t *next = json_array(), *ops, *f;
	size_t i;
	char *text;
	json_array_foreach(cur, i, f) if (!json_is_string(f) || strcmp(json_string_value(f), HR_FINALIZER) != 0)
		json_array_append(next, f);
	if (add)
		json_array_append_new(next, json_string(HR_FINALIZER));
	if (json_is_array(cur))
		ops = json_pack("[{s:s,s:s,s:O},{s:s,s:s,s:o}]", "op", "test", "path", "/metadata/finalizers", "value", cur,
				"op", "replace", "path", "/metadata/finalizers", "value", next);
	else
		ops = json_pack("[{s:s,s:s,s:o}]", "op", "add", "path", "/metadata/finalizers", "value", next);
	text = ops ? jtext_new(ops) : NULL;
	json_decref(ops);
	return text;
}

/* ---- requests about the object itself, off the main loop -------------------
 * Adding and removing our finalizer, and the ServiceAccount check of a
 * deletion, are runs on the object's status queue (status_run: after the
 * statuses queued for it before, in order, as the loop's own non-blocking
 * requests); their outcomes come back to the loop (obj_take, obj_collect). */
enum obj_kind {
	OBJ_FIN_ADD,     /* our finalizer; the release starts once it is on */
	OBJ_FIN_REMOVE,  /* let the object go (suspended, or no ServiceAccount to uninstall as) */
	OBJ_UNINSTALLED, /* uninstalled: remove the finalizer, delete the HelmChart made for it */
	OBJ_SA_CHECK,    /* does the ServiceAccount the uninstall runs as exist? */
	OBJ_CHART_MOVED, /* moved from .spec.chart to chartRef: delete the HelmChart made for it */
};

typedef struct obj_op {
	enum obj_kind kind;
	char key[320], uid[64];
	char *patch;                     /* finalizer kinds: the JSON patch */
	char *ns, *name;                 /* of the object */
	json_t *hr;                      /* OBJ_UNINSTALLED, OBJ_CHART_MOVED: the object its HelmChart is named from */
	char identity[ACL_IDENTITY_MAX]; /* OBJ_SA_CHECK */
	char sa[ACL_IDENTITY_MAX];       /* its "NS/NAME" */
	enum { OBJ_START, OBJ_ASKED, OBJ_CHART_GET, OBJ_CHART_DELETE } phase; /* obj_run's request in flight */
	char *path;                      /* of that request */
	int rc;                          /* 0 (SA check: 1 it exists, 0 it does not), or an error code */
	char msg[700];                   /* why, when rc is not 0 (SA check: not 1) */
	struct obj_op *next;
} obj_op;

static obj_op *obj_results; /* under wmu */

static void obj_free(obj_op *op)
{
	if (!op)
		return;
	free(op->patch);
	free(op->path);
	free(op->ns);
	free(op->name);
	json_decref(op->hr);
	free(op);
}

/* op's outcome to the main loop (obj_collect). Most come on the loop's
 * own thread (status.h's runs end in its HTTP/2 callbacks), never in its
 * poll: wake() then only sets the flag the next poll looks at. */
static void obj_done(obj_op *op)
{
	pthread_mutex_lock(&wmu);
	op->next = obj_results;
	obj_results = op;
	pthread_mutex_unlock(&wmu);
	wake();
}

/* After an uninstall, or a move to chartRef: st->req (1) the next request
 * of the deletion of the HelmChart made for op's object (a GET, then a
 * DELETE if its label names the object), from the outcome of the one
 * before (phase); 0 when it has ended (a failure logged). */
static int obj_chart_step(obj_op *op, status_step *st)
{
	static const char delete_body[] = "{\"apiVersion\":\"v1\",\"kind\":\"DeleteOptions\"}"; /* kube_delete's */
	bh_error err = {0};
	json_t *hc = NULL;
	int rc = 0, made;
	if (op->phase == OBJ_ASKED) {
		free(op->path);
		if (!(op->path = source_helmchart_path_new(op->hr, &err)))
			rc = err.code ? err.code : BH_ENOMEM;
		else {
			st->req.method = "GET";
			st->req.path = op->path;
			op->phase = OBJ_CHART_GET;
			return 1;
		}
	} else if (op->phase == OBJ_CHART_GET) {
		rc = status_step_result(st, &hc, &err);
		made = rc == 0 && source_helmchart_made_for(hc, op->hr);
		json_decref(hc);
		if (made) {
			st->req.method = "DELETE";
			st->req.path = op->path;
			st->req.content_type = "application/json";
			st->req.body = delete_body;
			st->req.body_len = sizeof delete_body - 1;
			op->phase = OBJ_CHART_DELETE;
			return 1;
		}
	} else {
		rc = status_step_result(st, NULL, &err);
	}
	if (rc < 0 && rc != BH_ENOTFOUND)
		svlog_hr(SVLOG_ERROR, op->key, NULL, "deleting its %sHelmChart: %s", op->kind == OBJ_CHART_MOVED ? "old " : "",
			 err.msg);
	return 0;
}

/* A run on the object's status queue (status_run_fn): the finalizer patch,
 * or the ServiceAccount's GET; after an uninstall or a move to chartRef,
 * the deletion of its HelmChart (obj_chart_step); then the outcome to the
 * main loop. */
static int obj_run(void *ud, status_step *st)
{
	obj_op *op = ud;
	kube_write_opts wo = {"helm-controller", 0, 0, NULL};
	bh_error err = {0};
	if (op->kind == OBJ_CHART_MOVED) {
		if (op->phase == OBJ_START)
			op->phase = OBJ_ASKED; /* no request of its own before the chart's */
		if (obj_chart_step(op, st))
			return 1;
		obj_done(op);
		return 0;
	}
	if (op->phase == OBJ_START) {
		if (op->kind == OBJ_SA_CHECK) {
			if ((op->path = acl_sa_path_new(op->identity, op->sa, sizeof op->sa, &err)))
				st->req.method = "GET";
		} else if ((op->path = kube_patch_path_new(&sv_helmrelease_resource, op->ns, op->name, KUBE_PATCH_JSON, &wo,
							  &st->req.content_type, &err))) {
			st->req.method = "PATCH"; /* the answer is not read: not decoded */
			st->req.body = op->patch;
			st->req.body_len = strlen(op->patch);
		}
		op->phase = OBJ_ASKED;
		if ((st->req.path = op->path))
			return 1;
		op->rc = err.code ? err.code : BH_ENOMEM;
	} else if (op->phase == OBJ_ASKED) {
		json_t *out = NULL;
		op->rc = status_step_result(st, op->kind == OBJ_SA_CHECK ? &out : NULL, &err);
		json_decref(out);
		if (op->kind == OBJ_SA_CHECK)
			op->rc = acl_sa_exists_of(op->rc, op->sa, &err);
	}
	if (op->phase == OBJ_ASKED) { /* the first request's outcome */
		if (op->kind != OBJ_SA_CHECK && op->rc < 0)
			bh_error_prefix(&err, "%s the finalizer %s", op->kind == OBJ_FIN_ADD ? "adding" : "removing",
					HR_FINALIZER);
		if (op->rc != (op->kind == OBJ_SA_CHECK))
			snprintf(op->msg, sizeof op->msg, "%.690s", err.msg);
	}
	if (op->kind == OBJ_UNINSTALLED && obj_chart_step(op, st))
		return 1;
	obj_done(op);
	return 0;
}

static obj_op *obj_take(void)
{
	obj_op *r;
	pthread_mutex_lock(&wmu);
	r = obj_results;
	obj_results = NULL;
	pthread_mutex_unlock(&wmu);
	return r;
}

/* Did the last worker attempt what h asks for (its status is being written)? */
static int attempted(const entry *e, const hr_ent *h)
{
	return e->done_gen && e->done_gen == h->gen && (!h->req || !strcmp(h->req, e->done_req));
}

#define NSREC_BUCKETS 256 /* a power of two */
static nsrec *nsbucket[NSREC_BUCKETS], *nsfirst, *nstail;

/* The record of namespace ns for one more entry, made on its first
 * HelmRelease; NULL when out of memory. */
static nsrec *nsrec_get(const char *ns)
{
	nsrec **b = &nsbucket[key_hash(ns) & (NSREC_BUCKETS - 1)], *r;
	size_t l = strlen(ns);
	for (r = *b; r; r = r->next)
		if (!strcmp(r->ns, ns)) {
			r->refs++;
			return r;
		}
	if (!(r = calloc(1, sizeof *r + l + 1)))
		return NULL;
	memcpy(r->ns, ns, l + 1);
	r->refs = 1;
	r->next = *b;
	*b = r;
	r->before = nstail;
	*(nstail ? &nstail->after : &nsfirst) = r;
	nstail = r;
	return r;
}

/* An entry of r's namespace left: r goes with the last one. */
static void nsrec_put(nsrec *r)
{
	nsrec **b = &nsbucket[key_hash(r->ns) & (NSREC_BUCKETS - 1)];
	if (--r->refs)
		return;
	while (*b != r)
		b = &(*b)->next;
	*b = r->next;
	*(r->before ? &r->before->after : &nsfirst) = r->after;
	*(r->after ? &r->after->before : &nstail) = r->before;
	free(r);
}

static void entry_remove(entry *e)
{
	free(e->hr);
	tree_drop(e);
	insync_forget(e);
	obj_free(e->sa);
	nsrec_put(e->nsr);
	sched_q_remove(&squeue, (size_t)(e - entries));
	if (ebucket) { /* unlinked; the last entry moves into its place, and its link with it */
		size_t idx1 = (size_t)(e - entries) + 1;
		*hash_link(idx1) = e->hnext;
		if (idx1 != nentries)
			*hash_link(nentries) = idx1;
	}
	*e = entries[--nentries];
	if (e != entries + nentries)
		sched_q_moved(&squeue, (size_t)(e - entries));
}

/* Takes h (the main thread's copy). */
static void upsert(hr_ent *h)
{
	char key[320];
	entry *e;
	json_int_t gen = h->gen;
	snprintf(key, sizeof key, "%s/%s", h->ns, h->name);
	if (!(e = find_entry(key))) {
		nsrec *nsr = nsrec_get(h->ns);
		if (!nsr) {
			free(h);
			return;
		}
		if (nentries == centries) {
			entry *ne = realloc(entries, (centries ? centries * 2 : 32) * sizeof *ne);
			if (!ne) {
				nsrec_put(nsr);
				free(h);
				return;
			}
			entries = ne;
			centries = centries ? centries * 2 : 32;
		}
		e = &entries[nentries++];
		memset(e, 0, sizeof *e);
		e->nsr = nsr;
		snprintf(e->key, sizeof e->key, "%s", key);
		hash_add(nentries - 1);
	}
	free(e->hr);
	tree_drop(e);
	e->hr = h;
	e->ns = h->ns;
	e->gone = 0;
	if (h->finalizer)
		e->fin_added = 0;
	if (e->stalled_gen && (e->stalled_gen != gen || h->wants_req))
		e->stalled_gen = 0; /* changed, or asked to try again */
	if (h->deleted) {
		/* uninstall, then let the object go (only while our finalizer holds it) */
		if (!e->job && h->finalizer && !e->deleting) {
			e->deleting = 1;
			queue_after(e, 0);
			svlog_hr(SVLOG_DEBUG, key, NULL, "queued the deletion");
		}
		return;
	}
	if (!e->job && !e->stalled_gen && h->wants && !attempted(e, h) &&
	    (!e->queued || e->sched_gen != gen || e->not_before > now_s())) {
		queue_after(e, 0);
		e->sched_gen = gen;
		svlog_hr(SVLOG_DEBUG, key, NULL, "queued (generation %lld)", (long long)gen);
	}
}

static void drop(const hr_ent *h)
{
	char key[320];
	entry *e;
	snprintf(key, sizeof key, "%s/%s", h->ns, h->name);
	if ((e = find_entry(key)) && e->job)
		e->gone = 1;
	else if (e)
		entry_remove(e);
}

/* A job for key ended: its entry goes if its object went meanwhile (and
 * its namespace leaves the queue with its last entry, sched.h). If the
 * object was deleted meanwhile (upsert found it busy), the watch event of
 * the job's status write queues its uninstall (upsert), with that status
 * in the cache; a failed or unchanged write brings no event, so the
 * uninstall is also queued after --requeue-dependency, not left to the
 * interval (or to nothing, when the outcome stalls it). */
static void entry_job_ended(const char *key)
{
	entry *e = find_entry(key);
	if (e && e->gone && !e->job)
		entry_remove(e);
	else if (e && !e->job && e->hr->deleted && e->hr->finalizer && !e->deleting)
		queue_after(e, opt.requeue_dependency);
}

/* ---- operations: probes, metrics ------------------------------------------- */
static httpd *metrics_srv, *health_srv;

static int ops_start(bh_error *err)
{
	char l[64];
	if (opt.metrics_addr && !(metrics_srv = httpd_start(opt.metrics_addr, HTTPD_METRICS, err)))
		return bh_error_prefix(err, "--metrics-addr");
	if (opt.health_addr && !(health_srv = httpd_start(opt.health_addr, HTTPD_HEALTH, err)))
		return bh_error_prefix(err, "--health-addr");
	if (metrics_srv)
		svlog(SVLOG_INFO, "serving metrics on %s (port %u)", opt.metrics_addr, httpd_port(metrics_srv));
	if (health_srv)
		svlog(SVLOG_INFO, "serving health probes on %s (port %u)", opt.health_addr, httpd_port(health_srv));
	metrics_labels(l, sizeof l, "controller", "helmrelease", (const char *)NULL);
	metrics_set(M_MAX_CONCURRENT, l, opt.concurrent);
	return 0;
}

/* --once NS/NAME (`bulkhead reconcile --once`): only that HelmRelease is
 * started; at the first outcome reported for it (but one whose remediation
 * goes on at once) bulkheadd stops, with status 0 if it ended Ready, 1 if not, 2
 * if there is no such HelmRelease. */
static const char *once_key;
static int once_rc = -1;

static int ops_once_skips(const entry *e)
{
	return once_key && strcmp(e->key, once_key) != 0;
}

static void ops_once_check(void)
{
	static int checked;
	if (!once_key || checked++)
		return;
	if (!find_entry(once_key)) {
		svlog(SVLOG_ERROR, "--once: no HelmRelease %s", once_key);
		once_rc = 2;
		stopping = 1;
	}
}

static int once_goes_on; /* set around the report of a reconcile that goes on at once */

static void ops_once_reported(const char *key, int ready)
{
	if (!once_key || strcmp(key, once_key) || once_goes_on)
		return;
	once_rc = ready ? 0 : 1;
	stopping = 1;
}

static void ops_caches_synced(void)
{
	static int once;
	httpd_set_ready(!stopping);
	if (!once++)
		notify_ready();
	ops_once_check();
}

/* After SIGTERM: no new work; running workers get --graceful-shutdown-timeout
 * to finish, then are killed (their HelmRelease says why). */
static int ops_draining(double now)
{
	static double deadline;
	if (!stopping)
		return 0;
	if (deadline == 0) {
		deadline = now + opt.shutdown_grace;
		httpd_set_ready(0);
		notify_status("stopping: waiting up to %.0fs for %zu running reconciles", opt.shutdown_grace, njobs);
		notify_stopping();
		svlog(SVLOG_INFO, "stopping: no new reconciles; waiting up to %.0fs for %zu running", opt.shutdown_grace,
		      njobs);
	}
	if (stopping > 1)
		deadline = now;
	for (size_t i = 0; now >= deadline && i < njobs; i++)
		if (!jobs[i]->exited && !jobs[i]->shutdown_killed) {
			jobs[i]->shutdown_killed = 1;
			svlog_hr(SVLOG_ERROR, jobs[i]->key, jobs[i]->reconcile_id,
				 "killing worker %d: the graceful shutdown timeout passed", (int)jobs[i]->pid);
			kill(jobs[i]->pid, SIGKILL);
		}
	return 1;
}

/* May the main loop start work now? Not while draining, nor without the
 * Lease; losing it starts the graceful stop (exit status 1, as
 * controller-runtime exits). */
static int ops_may_start(double now)
{
	if (opt.leader_election && leader_lost() && !stopping) {
		svlog(SVLOG_ERROR, "leader election lost: starting nothing new and stopping");
		stopping = 1;
	}
	return !ops_draining(now) && (!opt.leader_election || leader_is_leader());
}

static int ops_leader_start(const kube_config *cfg, bh_error *err)
{
	char host[128] = "bulkheadd", id[37], *identity;
	gethostname(host, sizeof host - 1);
	svlog_reconcile_id(id);
	if (asprintf(&identity, "%s_%s", host, id) < 0)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	opt.le.identity = identity; /* lives as long as the process */
	if (!opt.le.ns)
		opt.le.ns = leader_runtime_namespace();
	return leader_start(cfg, &opt.le, err);
}

/* May entry i start: queued, no job (nor skipped by --once)? */
static int entry_waiting(void *ud, size_t i)
{
	const entry *e = &entries[i];
	(void)ud;
	return e->queued && !e->job && !ops_once_skips(e);
}

/* After a report to the queue found no memory: every entry again. */
static void ops_requeue_lost(void)
{
	squeue_lost = 0;
	for (size_t i = 0; i < nentries; i++) {
		entry *e = &entries[i];
		if ((e->job && !e->sl.running && sched_q_running(&squeue, i, e->ns, 1) < 0) ||
		    (e->queued && !e->job && !sched_q_has(&squeue, i) &&
		     sched_q_queue(&squeue, i, e->ns, e->not_before) < 0))
			squeue_lost = 1;
	}
}

/* The next entry to start (sched.h: round-robin over tenant namespaces,
 * --concurrent-per-namespace, the one due first, the first in the table
 * among equals), or NULL: from the queue kept as entries are queued,
 * started and removed, not a walk of every entry per start. */
static entry *ops_pick(double now)
{
	long k;
	if (squeue_lost)
		ops_requeue_lost();
	k = sched_q_pick(&squeue, now, opt.per_ns_cap);
	return k < 0 ? NULL : &entries[k];
}

/* The per-namespace queue gauges (waiting, running): each entry counted
 * on its namespace's record, then one metrics_add per namespace and gauge,
 * in the order the namespaces were first shown; the number waiting. */
static size_t ns_gauges(double now)
{
	size_t depth = 0;
	for (nsrec *r = nsfirst; r; r = r->after)
		r->n[0] = r->n[1] = 0;
	for (size_t i = 0; i < nentries; i++) {
		const entry *e = &entries[i];
		int waiting = e->queued && !e->job && e->not_before <= now;
		if (waiting || e->job)
			e->nsr->n[waiting ? 0 : 1]++;
		depth += (size_t)waiting;
	}
	for (int g = 0; g < 2; g++)
		for (const nsrec *r = nsfirst; r; r = r->after)
			if (r->n[g]) {
				char l[300];
				metrics_labels(l, sizeof l, "namespace", r->ns, (const char *)NULL);
				metrics_add(g ? M_INFLIGHT : M_QUEUE_DEPTH, l, r->n[g]);
			}
	return depth;
}

/* Each turn of the main loop: liveness, and the queue gauges (at most once a second). */
static void ops_tick(double now)
{
	static double last;
	size_t depth = 0;
	httpd_heartbeat();
	notify_watchdog(now);
	if (now - last < 1)
		return;
	last = now;
	metrics_zero(M_QUEUE_DEPTH);
	metrics_zero(M_INFLIGHT);
	depth = ns_gauges(now);
	metrics_set(M_WORKQUEUE_DEPTH, "controller=\"helmrelease\",name=\"helmrelease\"", (double)depth);
	metrics_set(M_ACTIVE_WORKERS, "controller=\"helmrelease\"", (double)njobs);
	if (!stopping)
		notify_status("%zu HelmReleases, %zu reconciling, %zu waiting", nentries, njobs, depth);
}

static json_t *disc_snapshot; /* handed to every worker (discovery.h) */
static char *disc_text;       /* the same, serialized once: each job carries it verbatim */

/* Did the last poll find the wake-up pipe readable (1 before the first)? */
static int pipe_readable = 1;

static void drain_watch(void)
{
	char buf[256];
	json_t *snap;
	trees_release(); /* a new turn: the trees decoded in the last one go */
	/* read(2) only when the poll found a byte: a wake() while the loop
	 * was busy wrote none (wake_pending says it), and a byte written
	 * after the poll returned is found by the next poll (one spare turn) */
	if (pipe_readable)
		while (read(wake_pipe[0], buf, sizeof buf) == (ssize_t)sizeof buf)
			;
	atomic_exchange(&wake_pending, 0); /* after the drain, before the queues are taken (wake) */
	snap = discovery_take();
	if (snap) {
		json_decref(disc_snapshot);
		disc_snapshot = snap;
		free(disc_text);
		disc_text = jtext_new(snap); /* NULL: set into each job instead */
	}
	pthread_mutex_lock(&wmu);
	for (size_t t = 0; t < ntriggers; t++) { /* a new chart revision: its HelmReleases now */
		char *ns = strchr(triggers[t], '/') + 1, *slash = strchr(ns, '/');
		ns[-1] = *slash = '\0';
		for (size_t k = 0; k < nentries; k++) {
			const hr_ent *h = entries[k].hr;
			if (!entries[k].job && !h->deleted && h->has_src && !strcmp(h->src_kind, triggers[t]) &&
			    !strcmp(h->src_ns, ns) && !strcmp(h->src_name, slash + 1))
				queue_after(&entries[k], 0);
		}
	}
	ntriggers = 0;
	for (size_t k = 0; fetched && k < nentries; k++) /* a download ended: its askers ask again */
		if (entries[k].art_wait) {
			entries[k].art_wait = 0;
			queue_after(&entries[k], 0);
		}
	fetched = 0;
	pthread_mutex_unlock(&wmu);
}

/* A list of the HelmReleases (items, owned: each goes to the cache)
 * replaces the cache: forget what it no longer has. */
static void relisted(hr_ent **items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char key[320];
		entry *en;
		snprintf(key, sizeof key, "%s/%s", items[i]->ns, items[i]->name);
		if ((en = find_entry(key)))
			en->listed = 1;
	}
	for (size_t k = 0; k < nentries;) {
		int found = entries[k].listed;
		entries[k].listed = 0;
		if (!found && !entries[k].job) {
			entry_remove(&entries[k]);
			continue;
		}
		entries[k].gone = !found;
		k++;
	}
	for (size_t i = 0; i < n; i++)
		upsert(items[i]);
	ops_caches_synced();

}

/* ---- jobs -------------------------------------------------------------------- */
/* The loop's wait (evset.h): a socket leaves it before it is closed. */
static evset *loop_ev;

static void loop_forget(int fd)
{
	evset_forget(loop_ev, fd);
}

/* Closes the worker's socket (it stays -1). */
static void job_close_sock(sv_job *j)
{
	if (j->sock >= 0) {
		loop_forget(j->sock);
		close(j->sock);
		j->sock = -1;
	}
}

static void job_free(sv_job *j)
{
	bwatch_cancel_job(j->serial);
	job_close_sock(j);
	ipc_reader_free(&j->rd);
	ipc_outq_free(&j->oq);
	proto_result_free(&j->result);
	json_decref(j->hr);
	free(j->identity);
	free(j->release_name);
	free(j->helmchart);
	free(j->cluster);
	free(j->storage_path);
	free(j->store);
	kube_config_free(j->remote);
	free(j);
}

/* A job for e's current object and reconcile, without a worker yet. */
static sv_job *job_new(entry *e)
{
	const json_t *hr = hr_of(e);
	sv_job *j = hr ? calloc(1, sizeof *j) : NULL;
	if (!j)
		return NULL;
	j->sock = -1;
	j->serial = ++job_serial;
	ipc_reader_init(&j->rd, IPC_MAX_PAYLOAD, 0);
	ipc_outq_init(&j->oq);
	j->hr = json_incref((json_t *)hr);
	j->noop_ok = noop_eligible(j->hr); /* asked for each of its answers (insync_observe) */
	snprintf(j->key, sizeof j->key, "%s", e->key);
	memcpy(j->reconcile_id, e->rid, sizeof j->reconcile_id);
	j->ns = jstr(j->hr, "metadata", "namespace");
	j->name = jstr(j->hr, "metadata", "name");
	return j;
}

static void report(kube_client *kc, const json_t *hr, const sv_outcome *o)
{
	bh_error e;
	char key[320];
	entry *en;
	sv_outcome ow = *o; /* with the entry's record of its status */
	if (!hr)
		return; /* out of memory */
	key_of(hr, key, sizeof key);
	en = find_entry(key);
	svlog_hr(SVLOG_INFO, key, en ? en->rid : NULL, "Ready=%s %s: %s", o->ready ? "True" : "False", o->reason,
		 o->message);
	ow.written = en ? &en->st_written : NULL;
	if (en && en->gone) /* deleted while its job ran: no object to write to (a 404 logged as an error) */
		svlog_hr(SVLOG_DEBUG, key, en->rid, "status not written: the HelmRelease is gone");
	else if (status_write(kc, hr, &ow, &e) < 0)
		svlog_hr(SVLOG_ERROR, key, en ? en->rid : NULL, "%s", e.msg);
	ops_once_reported(key, o->ready);
}

/* Go's time.Duration String() for whole seconds: "5m0s", "1h0m0s", "3s". */
static void go_duration(double secs, char *buf, size_t n)
{
	long s = (long)(secs + 0.5), h = s / 3600, m = (s % 3600) / 60;
	if (h)
		snprintf(buf, n, "%ldh%ldm%lds", h, m, s % 60);
	else if (m)
		snprintf(buf, n, "%ldm%lds", m, s % 60);
	else
		snprintf(buf, n, "%lds", s);
}

/* A lock-down refusal: Ready=False and Stalled=True with a Warning Event;
 * tried again only once the object changes or asks for it. */
static void refuse(kube_client *kc, entry *e, const char *reason, const char *msg)
{
	sv_outcome o = {0, reason, msg};
	o.event = 1;
	o.stalled = 1;
	report(kc, hr_of(e), &o);
	e->queued = 0;
	e->stalled_gen = e->hr->gen;
}

/* The job's JSON text into out: the object's text as the cache keeps it
 * (hrent.h) as member "helmRelease", jobdoc's members (encoded here: they
 * are short), and with_discovery the discovery snapshot's text as member
 * "discovery"; the object and the snapshot are not encoded again per job.
 * 0, or -1 when out of memory. */
static int job_text(bh_buf *out, const hr_ent *h, const json_t *jobdoc, int with_discovery)
{
	char *t = jtext_new(jobdoc);
	size_t n = t ? strlen(t) : 0;
	if (n < 2 || t[0] != '{' || t[n - 1] != '}') {
		free(t);
		return -1;
	}
	bh_buf_puts(out, "{\"helmRelease\":");
	bh_buf_put(out, h->text, h->len);
	if (n > 2) {
		bh_buf_puts(out, ",");
		bh_buf_put(out, t + 1, n - 2);
	}
	if (with_discovery) {
		bh_buf_puts(out, ",\"discovery\":");
		bh_buf_puts(out, disc_text);
	}
	bh_buf_puts(out, "}");
	free(t);
	return bh_buf_ok(out) ? 0 : -1;
}

/* The object's metadata.uid, or "". */
static const char *uid_of(const json_t *hr)
{
	const char *uid = jstr(hr, "metadata", "uid");
	return uid ? uid : "";
}

/* Sends op kind about hr, e's object (obj_run); identity: of OBJ_SA_CHECK;
 * hr NULL: OBJ_FIN_ADD to e's object without a finalizer list, not
 * decoded. 0, or an error (out of memory: nothing was sent). */
static int obj_send(const entry *e, enum obj_kind kind, const json_t *hr, const char *identity,
		    bh_error *err)
{
	obj_op *op = calloc(1, sizeof *op);
	const char *ns = hr ? jstr(hr, "metadata", "namespace") : e->hr->ns;
	const char *name = hr ? jstr(hr, "metadata", "name") : e->hr->name;
	if (!op || !(op->ns = strdup(ns ? ns : "")) || !(op->name = strdup(name ? name : "")) ||
	    (kind != OBJ_SA_CHECK && kind != OBJ_CHART_MOVED && !(op->patch = finalizer_patch_new(hr, kind == OBJ_FIN_ADD))) ||
	    ((kind == OBJ_UNINSTALLED || kind == OBJ_CHART_MOVED) && !(op->hr = json_deep_copy(hr)))) {
		obj_free(op);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	op->kind = kind;
	snprintf(op->key, sizeof op->key, "%s", e->key);
	snprintf(op->uid, sizeof op->uid, "%s", hr ? uid_of(hr) : e->hr->uid);
	if (identity)
		snprintf(op->identity, sizeof op->identity, "%s", identity);
	if (status_run(op->ns, op->name, obj_run, op, err) < 0) {
		obj_free(op);
		return err->code;
	}
	return 0;
}

/* Sends the addition of our finalizer to e's object (decoded only when it
 * has a finalizer list the patch tests). */
static void add_finalizer(kube_client *kc, entry *e)
{
	bh_error err;
	const json_t *hr = e->hr->fin_list ? hr_of(e) : NULL;
	if (e->hr->fin_list && !hr)
		bh_error_set(&err, BH_ENOMEM, "out of memory");
	else if (obj_send(e, OBJ_FIN_ADD, hr, NULL, &err) == 0) {
		e->fin_wait = 1;
		return;
	}
	{
		char msg[700];
		sv_outcome o = {0, "FinalizerFailed", msg};
		snprintf(msg, sizeof msg, "adding the finalizer %s: %.600s", HR_FINALIZER, err.msg);
		report(kc, hr_of(e), &o);
	}
	queue_after(e, opt.requeue_dependency);
}

/* Lets e's object go (hr: its newest copy, whose finalizer list the patch
 * replaces); kind OBJ_FIN_REMOVE or OBJ_UNINSTALLED. */
static int let_go(entry *e, enum obj_kind kind, const json_t *hr, const char *rid)
{
	bh_error err;
	int rc = obj_send(e, kind, hr, NULL, &err);
	if (rc < 0)
		svlog_hr(SVLOG_ERROR, e->key, rid, "removing the finalizer %s: %s", HR_FINALIZER, err.msg);
	return rc;
}

/* The outcomes of obj_run: a finalizer on (the release starts) or not (it
 * says why and is tried again after --requeue-dependency), off (the
 * object goes) or not (logged; after an uninstall, tried again), and the
 * ServiceAccount check (kept for start(), which is queued again). */
static void obj_collect(kube_client *kc, obj_op *op)
{
	while (op) {
		obj_op *n = op->next;
		entry *e = find_entry(op->key);
		int same = e && !strcmp(op->uid, e->hr->uid);
		op->next = NULL;
		switch (op->kind) {
		case OBJ_FIN_ADD:
			if (!same)
				break;
			e->fin_wait = 0;
			queue_after(e, 0);
			if (op->rc < 0) {
				sv_outcome o = {0, "FinalizerFailed", op->msg};
				report(kc, hr_of(e), &o);
				e->not_before += opt.requeue_dependency; /* later: the timer is at most early */
			} else if (!e->hr->finalizer) {
				e->fin_added = 1;
			}
			break;
		case OBJ_FIN_REMOVE:
		case OBJ_UNINSTALLED:
			if (op->rc >= 0 || op->rc == BH_ENOTFOUND)
				break;
			svlog_hr(SVLOG_ERROR, op->key, e ? e->rid : NULL, "%s", op->msg);
			if (op->kind == OBJ_UNINSTALLED && same && e->deleting == 2 && !e->job) {
				e->deleting = 1;
				queue_after(e, opt.requeue_dependency);
			}
			break;
		case OBJ_CHART_MOVED: /* a failure was logged */
			break;
		case OBJ_SA_CHECK:
			if (!e)
				break;
			e->sa_wait = 0;
			queue_after(e, 0);
			if (same) {
				obj_free(e->sa);
				e->sa = op;
				op = NULL;
			}
			break;
		}
		obj_free(op);
		op = n;
	}
}

/* start() once the object is decoded. */
/* Whose namespaces j's worker joins (spawn.h): one set per cluster,
 * namespace and identity, written to buf length-prefixed so no two tenants
 * look alike; NULL (the worker makes its own) when it does not fit. */
static const char *tenant_key(const sv_job *j, const char *ns, char *buf, size_t n)
{
	const char *c = j->cluster ? j->cluster : "", *id = j->identity ? j->identity : "";
	int k = snprintf(buf, n, "%zu:%s%zu:%s%zu:%s", strlen(c), c, strlen(ns), ns, strlen(id), id);
	return k > 0 && (size_t)k < n ? buf : NULL;
}

static void start_decoded(kube_client *kc, entry *e)
{
	source_info si;
	bh_error err, iderr;
	sv_job *j;
	hr_model *model;
	int rc = 0, fd = -1;
	const json_t *hr = hr_of(e);
	char identity[ACL_IDENTITY_MAX], cluster[REMOTE_CLUSTER_MAX];
	char tenant[REMOTE_CLUSTER_MAX + ACL_IDENTITY_MAX + 320]; /* tenant_key's */
	int remote = json_is_object(json_object_get(json_object_get(hr, "spec"), "kubeConfig"));
	int idrc = remote ? remote_identity(hr, identity, sizeof identity, &iderr)
			  : acl_identity(&lockdown, hr, identity, sizeof identity, &iderr);
	const char *idreason = idrc == BH_EINVAL ? "InvalidServiceAccountName" : ACL_ACCESS_DENIED;
	double timeout = source_parse_duration(jstr(hr, "spec", "timeout"));
	json_t *jobdoc;
	bh_buf text = BH_BUF_INIT;
	unsigned char head[PROTO_STR_HEAD];
	spawn_opts so;

	if (!hr) { /* out of memory */
		queue_after(e, opt.requeue_dependency);
		return;
	}
	e->queued = 0;
	svlog_reconcile_id(e->rid);
	memset(&si, 0, sizeof si);
	if (being_deleted(hr) && e->deleting != 2) { /* deleted while queued or working */
		if (!has_finalizer(hr))
			return;
		e->deleting = 1;
	}
	if (e->deleting == 2)
		return; /* uninstalled, finalizer removed: the object is going */
	if (e->deleting) {
		/* Flux: a suspended object is let go without an uninstall */
		if (json_is_true(json_object_get(json_object_get(hr, "spec"), "suspend"))) {
			let_go(e, OBJ_FIN_REMOVE, hr, e->rid);
			e->deleting = 0;
			return;
		}
		rc = 1; /* a remote cluster's ServiceAccount is not checked here */
		if (idrc == 0 && !remote && !e->sa) { /* asked on the object's status queue: queued again with the answer */
			if (e->sa_wait)
				return;
			if ((rc = obj_send(e, OBJ_SA_CHECK, hr, identity, &iderr)) == 0) {
				e->sa_wait = 1;
				return;
			}
		} else if (idrc == 0 && !remote) {
			rc = e->sa->rc;
			snprintf(iderr.msg, sizeof iderr.msg, "%s", e->sa->msg);
			obj_free(e->sa);
			e->sa = NULL;
		}
		if (rc < 0) {
			char msg[1200];
			sv_outcome o = {0, "UninstallFailed", msg};
			snprintf(msg, sizeof msg, "failed to confirm the ServiceAccount can be used to uninstall release: %.1000s",
				 iderr.msg);
			report(kc, hr, &o);
			queue_after(e, opt.requeue_dependency);
			return;
		}
		if (idrc < 0 || rc == 0) {
			/* no ServiceAccount to uninstall as (none configured, an
			 * invalid name, or gone with its namespace): as Flux does,
			 * skip the uninstall rather than hold the object forever */
			char msg[1200];
			sv_outcome o = {0, idrc < 0 ? idreason : "UninstallSkipped", msg};
			snprintf(msg, sizeof msg, "Helm release not uninstalled, the HelmRelease is let go: %.1100s", iderr.msg);
			o.event = 1;
			report(kc, hr, &o);
			let_go(e, OBJ_FIN_REMOVE, hr, e->rid);
			e->deleting = 0;
			return;
		}
		/* the uninstall needs no chart: the worker gets an empty artifact */
		if ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
			queue_after(e, opt.requeue_dependency);
			return;
		}
		goto spawn;
	}
	if (json_is_true(json_object_get(json_object_get(hr, "spec"), "suspend")))
		return; /* suspended since it was queued */
	if (!has_finalizer(hr) && !e->fin_added) {
		if (!e->fin_wait)
			add_finalizer(kc, e);
		return; /* queued again when it is on */
	}
	if ((rc = hr_decode(hr, &model, &err)) < 0) { /* refused or invalid: Stalled until the spec changes */
		sv_outcome o = {0, rc == BH_EDENIED ? "UnsupportedSpec" : "InvalidSpec", err.msg};
		o.event = o.stalled = 1;
		report(kc, hr, &o);
		queue_after(e, hr_interval(hr));
		return;
	}
	hr_model_free(model);
	if (idrc < 0) {
		refuse(kc, e, idreason, iderr.msg);
		return;
	}
	if (acl_check_refs(&lockdown, hr, &err) < 0) {
		refuse(kc, e, ACL_ACCESS_DENIED, err.msg);
		return;
	}
	if ((rc = depends_check(hr, cache_lookup, NULL, err.msg, sizeof err.msg)) != DEPENDS_READY) {
		sv_outcome o = {0, rc == DEPENDS_CYCLE ? DEPENDS_CYCLE_REASON : DEPENDS_REASON, err.msg};
		json_t *ev = depends_event_new(o.reason, err.msg);
		o.event = 1;
		o.events = ev;
		report(kc, hr, &o);
		json_decref(ev);
		queue_after(e, opt.requeue_dependency);
		return;
	}
	rc = source_resolve(kc, hr, &si, &err);
	if (rc != SOURCE_OK) {
		sv_outcome o = {0, rc == SOURCE_NOT_READY ? "SourceNotReady" : "ArtifactFailed", err.msg};
		o.helmchart = si.helmchart[0] ? si.helmchart : NULL;
		o.event = rc != SOURCE_NOT_READY;
		report(kc, hr, &o);
		queue_after(e, opt.requeue_dependency);
		return;
	}
	if (json_is_object(json_object_get(json_object_get(hr, "spec"), "chartRef")) && jstr(hr, "status", "helmChart") &&
	    strcmp(jstr(hr, "status", "helmChart"), si.helmchart) != 0 && /* moved from .spec.chart to chartRef */
	    obj_send(e, OBJ_CHART_MOVED, hr, NULL, &err) < 0)
		svlog_hr(SVLOG_ERROR, e->key, NULL, "deleting its old HelmChart: %s", err.msg);
	if (builtin_sources && (fd = artcache_open(si.digest)) < 0) {
		char msg[1200];
		sv_outcome o = {0, "SourceNotReady", msg};
		snprintf(msg, sizeof msg, "%s '%s/%s' is not ready: artifact %.200s is not fetched yet", si.kind, si.ns,
			 si.name, si.digest);
		o.helmchart = si.helmchart[0] ? si.helmchart : NULL;
		report(kc, hr, &o);
		sources_kick(si.kind, si.ns, si.name);
		queue_after(e, opt.requeue_dependency);
		return;
	}
	if (!builtin_sources && (rc = artfetch_get(e->key, si.url, si.digest, &fd, &err)) == ARTFETCH_PENDING) {
		e->art_wait = 1; /* queued again when the download ends */
		return;
	}
	if (!builtin_sources && rc < 0) {
		char msg[1200];
		sv_outcome o = {0, "ArtifactFailed", msg};
		snprintf(msg, sizeof msg, "Could not load chart: %.1100s", err.msg);
		o.helmchart = si.helmchart[0] ? si.helmchart : NULL;
		o.event = 1;
		report(kc, hr, &o);
		queue_after(e, (rc == BH_EINVAL ? hr_interval(hr) : opt.requeue_dependency));
		return;
	}
spawn:
	if (!(j = job_new(e))) {
		close(fd);
		return;
	}
	j->deleting = e->deleting;
	if (!(j->identity = strdup(identity))) { /* never the controller's identity instead */
		close(fd);
		job_free(j);
		queue_after(e, opt.requeue_dependency);
		return;
	}
	if (remote && (rc = remote_load(kc, hr, &j->remote, cluster, sizeof cluster, &err)) < 0) {
		sv_outcome o = {0, REMOTE_REASON, err.msg};
		o.event = 1;
		report(kc, hr, &o);
		close(fd);
		job_free(j);
		queue_after(e, (rc == BH_ENOTFOUND ? opt.requeue_dependency : hr_interval(hr)));
		return;
	}
	if (remote && !*identity) { /* the kubeconfig's own identity on the remote cluster */
		free(j->identity);
		j->identity = NULL;
	}
	j->cluster = remote ? strdup(cluster) : NULL;
	j->release_name = source_release_name_new(j->hr);
	j->release_ns = (char *)source_release_namespace(j->hr);
	j->storage_ns = (char *)source_storage_namespace(j->hr);
	if (j->deleting && jstr(j->hr, "status", "storageNamespace") && *jstr(j->hr, "status", "storageNamespace"))
		j->storage_ns = (char *)jstr(j->hr, "status", "storageNamespace"); /* Flux: where it installed */
	j->helmchart = si.helmchart[0] ? strdup(si.helmchart) : NULL;
	if (strlen(si.digest) < sizeof j->digest) /* else not remembered */
		memcpy(j->digest, si.digest, strlen(si.digest) + 1);
	/* "helmRelease": e's text, spliced by job_text */
	jobdoc = json_pack("{s:s,s:s,s:s,s:{s:s,s:s,s:s,s:s},s:I}", "releaseName", j->release_name,
			   "releaseNamespace", j->release_ns, "storageNamespace", j->storage_ns, "chart", "url", si.url,
			   "digest", si.digest, "revision", si.revision, "sourceKind", si.kind, "timeoutMs",
			   (json_int_t)((timeout > 0 ? timeout : 300) * 1000));
	if (jobdoc && j->deleting)
		json_object_set_new(jobdoc, "delete", json_true());
	if (jobdoc && disc_snapshot && !disc_text && !j->remote) /* this cluster's: a remote one is discovered by its worker */
		json_object_set(jobdoc, "discovery", disc_snapshot);
	if (opt.test_hooks) {
		const char *h = json_string_value(json_object_get(
			json_object_get(json_object_get(j->hr, "metadata"), "annotations"), "bulkhead.dev/test-hook"));
		if (h)
			json_object_set_new(jobdoc, "testHook", json_string(h));
	}
	rc = jobdoc ? job_text(&text, e->hr, jobdoc, disc_text && !j->remote) : -1;
	json_decref(jobdoc);
	if (!rc)
		proto_str_head(head, text.len);
	if (rc < 0 || ipc_outq_push2(&j->oq, PROTO_JOB, 0, head, sizeof head, text.data, text.len, fd, &err) < 0) {
		svlog_hr(SVLOG_ERROR, j->key, e->rid, "building the job failed");
		bh_buf_free(&text);
		job_free(j);
		return;
	}
	fd = -1; /* owned by the queue */
	bh_buf_free(&text);
	so.worker_path = opt.worker_path;
	so.worker_fd = worker_fd;
	so.job_label = j->key;
	so.cpu_seconds = opt.worker_cpu;
	so.memory_mb = opt.worker_mem_mb;
	so.tenant = tenant_key(j, e->ns, tenant, sizeof tenant);
	if (spawn_worker(&so, &j->pid, &j->sock, &err) < 0) {
		sv_outcome o = {0, "WorkerFailed", err.msg};
		o.event = 1;
		report(kc, hr, &o);
		job_free(j);
		queue_after(e, hr_interval(hr));
		return;
	}
	metrics_add(M_WORKER_SPAWNS, NULL, 1);
	/* the job goes now, into the new socket's empty buffer: not a turn of
	 * the loop later, on a poll that shows it writable */
	if (ipc_outq_flush(&j->oq, j->sock, &err) < 0) {
		/* the worker is gone already; its exit will be reaped */
	}
	j->started = now_s();
	j->deadline = j->started + (timeout > 0 ? timeout : 300);
	entry_job(e, j);
	jobs = realloc(jobs, (njobs + 1) * sizeof *jobs);
	jobs[njobs++] = j;
	svlog_hr(SVLOG_INFO, j->key, e->rid, "started worker %d (release %s in %s, identity %s)", (int)j->pid,
			j->release_name, j->release_ns, j->identity ? j->identity : "of the kubeconfig");
}

/* Starts a reconcile of e: resolve the source, fetch the artifact, spawn.
 * A new object gets our finalizer first, from its compact form (hrent.h):
 * no decode of the object for that turn. */
static void start(kube_client *kc, entry *e)
{
	const hr_ent *h = e->hr;
	if (e->deleting || h->deleted || h->suspend || h->finalizer || e->fin_added) {
		start_decoded(kc, e);
		return;
	}
	e->queued = 0;
	svlog_reconcile_id(e->rid);
	if (!e->fin_wait)
		add_finalizer(kc, e);
}

/* The earliest time after now at which a queued entry without a job is
 * due, or HUGE_VAL: the top of the queue's timer heap (sched_q_next). */
static double next_timer(double now)
{
	return timer_at = sched_q_next(&squeue, now);
}

/* Reconciling=True once the worker acts (its first write): a reconcile
 * that changes nothing writes no Progressing status. */
static void say_progressing(kube_client *kc, sv_job *j)
{
	char msg[128], d[32];
	sv_outcome o = {0, "Progressing", msg};
	bh_error err;
	entry *e = find_entry(j->key);
	j->progress_said = 1;
	go_duration(j->deadline - j->started, d, sizeof d);
	snprintf(msg, sizeof msg, "Running release action with timeout of %s", d);
	o.progressing = 1;
	o.written = e ? &e->st_written : NULL;
	if (status_write(kc, j->hr, &o, &err) < 0)
		svlog_hr(SVLOG_ERROR, j->key, j->reconcile_id, "%s", err.msg);
}

static void kill_job(sv_job *j)
{
	if (!j->exited)
		kill(j->pid, SIGKILL);
	job_close_sock(j);
}

/* Reads and dispatches what the worker sent (when readable: poll showed
 * input, a hang-up or an error, or the reader holds more; a socket that was
 * only writable is not read, a recvmsg that could only find EAGAIN), then
 * writes what is queued for it. */
static void service(kube_client *kc, sv_job *j, int readable)
{
	for (int budget = 0; readable && j->sock >= 0 && budget < 64; budget++) {
		ipc_msg m;
		bh_error err;
		int rc = ipc_reader_read(&j->rd, j->sock, &m, &err);
		if (rc == IPC_AGAIN)
			break;
		if (rc == IPC_EOF) {
			job_close_sock(j);
			break;
		}
		if (rc < 0) {
			broker_violation(j, err.msg);
			kill_job(j);
			break;
		}
		rc = broker_dispatch(j, &m, &err);
		ipc_msg_free(&m);
		if (rc < 0) {
			kill_job(j);
			break;
		}
		if (j->has_result) { /* the job is over: nothing more the worker may do */
			kill_job(j);
			break;
		}
		if (j->writes && !j->progress_said)
			say_progressing(kc, j);
		if (!ipc_reader_more(&j->rd)) /* the socket is drained: poll says when there is more */
			break;
	}
	if (j->sock >= 0) {
		bh_error err;
		if (j->oq.buf.len - j->oq.off > MAX_OUTQ) {
			broker_violation(j, "worker stopped reading its answers");
			kill_job(j);
		} else if (ipc_outq_flush(&j->oq, j->sock, &err) < 0 && !j->exited) {
			/* the worker closed its end; its exit will be reaped */
		}
	}
}

/* The work queue's exponential backoff: 1s, 2s, ... 64s. */
static double requeue_backoff(entry *e)
{
	return (double)(1u << (e->retries < 6 ? e->retries++ : 6));
}

static int insync_fits(const sv_job *j);
static void insync_keep(entry *e, sv_job *j);

static void finish(kube_client *kc, sv_job *j)
{
	entry *e = find_entry(j->key);
	char msg[1600], how[160];
	sv_outcome o = {0};
	spawn_describe_status(j->wstatus, how, sizeof how);
	o.helmchart = j->helmchart;
	o.storage_ns = j->storage_ns;
	o.event = 1;
	o.attempted = 1;
	o.message = msg;
	if (j->audit_error[0]) { /* the broker stopped it: fail closed */
		o.reason = "AuditLogFailed";
		snprintf(msg, sizeof msg, "the worker was stopped because its request could not be audited: %.1000s",
			 j->audit_error);
	} else if (j->has_seccomp || (WIFSIGNALED(j->wstatus) && WTERMSIG(j->wstatus) == SIGSYS)) {
		char name[64];
		o.reason = "SandboxViolation";
		if (j->has_seccomp)
			snprintf(msg, sizeof msg, "worker killed by seccomp: forbidden system call %s (%u)",
				 sandbox_syscall_name(j->seccomp_nr, j->seccomp_arch, name, sizeof name), j->seccomp_nr);
		else
			snprintf(msg, sizeof msg, "worker killed by seccomp (SIGSYS) without reporting the system call");
	} else if (j->shutdown_killed) {
		o.reason = "WorkerKilled";
		snprintf(msg, sizeof msg, "bulkheadd was stopping and the worker did not finish within "
					  "--graceful-shutdown-timeout (%.0fs): it was killed", opt.shutdown_grace);
	} else if (j->timed_out) {
		o.reason = "WorkerTimeout";
		snprintf(msg, sizeof msg, "worker exceeded its deadline of %.0fs (.spec.timeout) and was killed%s",
			 j->deadline - j->started, j->inflight ? " while the API server had not answered its request" : "");
	} else if (j->violation[0]) {
		o.reason = "ProtocolViolation";
		snprintf(msg, sizeof msg, "worker broke the supervisor protocol and was killed: %.1000s", j->violation);
	} else if (j->has_result) {
		o.ready = j->result.ready;
		o.reason = j->result.reason;
		snprintf(msg, sizeof msg, "%s", j->result.message);
		if (!strcmp(metrics_death_cause(j, opt.worker_cpu), "memory")) /* name the limit and its flag */
			snprintf(msg + strlen(msg), sizeof msg - strlen(msg), " (the worker's memory limit: --worker-memory-mb %lu)",
				 opt.worker_mem_mb);
		o.action = j->result.action;
		o.release = j->result.has_release ? &j->result.release : NULL;
		o.revision = j->result.has_release ? j->result.release.chart_version : NULL;
		o.wstatus = j->result.status;
		o.events = j->result.events;
		/* in sync, nothing written: Flux records no Event for that */
		if (o.ready && o.wstatus && !j->writes && !json_array_size(o.events))
			o.event = 0;
	} else if (WIFSIGNALED(j->wstatus)) {
		o.reason = "WorkerCrashed";
		snprintf(msg, sizeof msg, "worker %s before reporting a result", how);
	} else {
		o.reason = "WorkerFailed";
		snprintf(msg, sizeof msg, "worker %s without reporting a result", how);
	}
	svlog_hr(SVLOG_DEBUG, j->key, j->reconcile_id, "worker %d %s", (int)j->pid, how);
	once_goes_on = j->has_result && j->result.status && j->result.requeue == PROTO_REQUEUE_NOW;
	if (j->asked_discovery)
		discovery_refresh(); /* a kind the snapshot lacked, or new CRDs */
	report(kc, j->hr, &o);
	once_goes_on = 0;
	metrics_reconcile_done(j, o.ready, j->has_result && j->result.status && j->result.requeue == PROTO_REQUEUE_NOW,
			       now_s() - j->started, opt.worker_cpu);
	if (e && j->deleting) {
		entry_unjob(e);
		e->deleting = 0;
		if (o.ready) {
			/* uninstalled: let the object go (the newest copy carries the
			 * finalizer list to replace) and delete its HelmChart, on its
			 * status queue; 2 = done, never queued again (obj_collect
			 * queues it again if the finalizer stays) */
			e->deleting = 2;
			if (let_go(e, OBJ_UNINSTALLED, hr_of(e) ? hr_of(e) : j->hr, j->reconcile_id) < 0) {
				e->deleting = 1;
				queue_after(e, opt.requeue_dependency);
			}
		} else { /* as Flux's failed reconcileDelete: the work queue's backoff (1s, 2s, ... 64s) */
			e->deleting = 1;
			queue_after(e, requeue_backoff(e));
		}
		return;
	}
	if (e) {
		const char *req = flux_requested_at(j->hr);
		entry_unjob(e);
		e->done_gen = flux_generation(j->hr);
		snprintf(e->done_req, sizeof e->done_req, "%s", req ? req : "");
		if (!(j->has_result && j->result.status && j->result.requeue == PROTO_REQUEUE_NOW))
			e->retries = 0;
		if (j->has_result && j->result.status && j->result.requeue == PROTO_REQUEUE_NOW) {
			/* Flux's ErrMustRequeue: remediation goes on, with the
			 * work queue's exponential backoff (1s, 2s, ... 64s) */
			queue_after(e, requeue_backoff(e));
			e->sched_gen = flux_generation(j->hr);
		} else if (j->has_result && j->result.status && j->result.requeue == PROTO_REQUEUE_RETRY) {
			double d = requeue_retry_secs(j->hr, j->result.status); /* RetryOnFailure */
			queue_after(e, (d > 0 ? d : hr_interval(j->hr)));
			e->sched_gen = flux_generation(j->hr);
		} else if (!o.ready && j->has_result && j->result.status && j->result.requeue == PROTO_REQUEUE_NEVER) {
			e->queued = 0; /* stalled until the object changes */
			if (e->hr->gen != flux_generation(j->hr)) {
				queue_after(e, 0);
			}
		} else if (!o.ready) {
			queue_after(e, hr_interval(j->hr));
			e->sched_gen = flux_generation(j->hr);
		} else if (e->hr->gen != flux_generation(j->hr)) {
			queue_after(e, 0); /* changed while we worked */
		} else if (j->has_result && j->result.status) {
			/* Flux's RequeueAfter .spec.interval: the state machine looks
			 * again (a release changed behind its back, tests, ...) */
			queue_after(e, requeue_jitter(hr_interval(j->hr)));
			e->sched_gen = flux_generation(j->hr);
		}
		insync_forget(e);
		if (o.ready && insync_fits(j))
			insync_keep(e, j);
	}
}

/* ---- the no-op without a worker (noop.h) ------------------------------------- */
static sv_job **checks; /* storage lists in flight instead of workers */
static size_t nchecks;

/* Did j leave its release Ready (found in sync, or installed or upgraded
 * with every storage write followed), and have inputs the memory can
 * compare? After an action the status it wrote is what an in-sync worker
 * writes again (scale_requests compares them), so the next no-op may
 * write the same without a worker. */
static int insync_fits(const sv_job *j)
{
	return j->has_result && j->result.ready && j->result.status && j->result.requeue == PROTO_REQUEUE_INTERVAL &&
	       !j->asked_discovery && j->store && j->store->ok &&
	       j->storage_path && !j->remote && !j->deleting && j->digest[0] && !j->audit_error[0] && !j->violation[0] &&
	       j->noop_ok;
}

/* Remembers j's outcome for e (the result moves out of j). */
static void insync_keep(entry *e, sv_job *j)
{
	insync *s = calloc(1, sizeof *s);
	if (!s || !(s->storage_ns = strdup(j->storage_ns)) || (j->helmchart && !(s->helmchart = strdup(j->helmchart)))) {
		if (s)
			free(s->storage_ns);
		free(s);
		return;
	}
	s->gen = flux_generation(j->hr);
	snprintf(s->digest, sizeof s->digest, "%s", j->digest);
	s->storage_fp = noop_store_fp(j->store);
	if (j->result.status && !(s->status = jtext_new(j->result.status))) {
		free(s->storage_ns);
		free(s->helmchart);
		free(s);
		return;
	}
	s->storage_path = j->storage_path;
	j->storage_path = NULL;
	s->res = j->result;
	memset(&j->result, 0, sizeof j->result);
	j->has_result = 0;
	json_decref(s->res.status); /* kept as text: the tree is made again when it is written */
	json_decref(s->res.events); /* the next no-op records none */
	s->res.status = s->res.events = NULL;
	e->sync = s;
}

/* A worker's storage list answer loads its storage record, the answers to
 * its writes update it (noop.h). */
static void insync_observe(sv_job *j, const fwd_req *f)
{
	const char *body = f->body.data ? f->body.data : "";
	if (j->check || j->remote || !f->r.method || !j->release_name || !j->noop_ok)
		return;
	if (!strcmp(f->r.method, "GET") && noop_is_storage_list(f->r.path, j->storage_ns)) {
		if (!j->store && !(j->store = malloc(sizeof *j->store)))
			return;
		if (f->status != 200 || f->audit_error[0] || noop_store_load(j->store, body, f->body.len, j->release_name) < 0)
			j->store->ok = 0;
		free(j->storage_path);
		j->storage_path = NULL;
		if (j->store->ok && !(j->storage_path = strdup(f->r.path)))
			j->store->ok = 0;
	} else if (j->store) {
		noop_store_write(j->store, f->r.method, f->r.path, j->storage_ns, j->release_name,
				 f->audit_error[0] ? 0 : f->status, body, f->body.len);
	}
}

/* A reconcile of e its memory may answer: its storage list goes out, as
 * the tenant, instead of a worker. 1 if it did; 0: start() as always. */
static int noop_try(entry *e)
{
	char digest[80], identity[ACL_IDENTITY_MAX];
	const json_t *hr;
	bh_error err;
	sv_job *j, **nc;
	if (!e->sync)
		return 0;
	if (!(hr = hr_of(e))) {
		insync_forget(e);
		return 0;
	}
	if (e->deleting || !noop_eligible(hr) || !has_finalizer(hr) || flux_generation(hr) != e->sync->gen ||
	    source_cached_digest(hr, digest, sizeof digest) < 0 || strcmp(digest, e->sync->digest) != 0 ||
	    acl_identity(&lockdown, hr, identity, sizeof identity, &err) < 0 || acl_check_refs(&lockdown, hr, &err) < 0 ||
	    depends_check(hr, cache_lookup, NULL, err.msg, sizeof err.msg) != DEPENDS_READY ||
	    !(nc = realloc(checks, (nchecks + 1) * sizeof *checks))) {
		insync_forget(e);
		return 0;
	}
	checks = nc;
	svlog_reconcile_id(e->rid);
	if (!(j = job_new(e))) {
		insync_forget(e);
		return 0;
	}
	j->check = 1;
	j->started = now_s();
	if (!(j->identity = strdup(identity)) || !(j->release_name = source_release_name_new(j->hr)) ||
	    broker_forward_own(j, e->sync->storage_path, &err) < 0) {
		if (j->identity && j->release_name)
			svlog_hr(SVLOG_ERROR, e->key, e->rid, "%s", err.msg);
		job_free(j);
		insync_forget(e);
		return 0;
	}
	e->queued = 0;
	entry_job(e, j);
	checks[nchecks++] = j;
	svlog_hr(SVLOG_DEBUG, e->key, e->rid, "inputs unchanged since the release was in sync: listing its storage");
	return 1;
}

/* The storage list of check j answered: the same storage writes the
 * remembered outcome, anything else queues a worker at once. */
static void noop_answered(kube_client *kc, sv_job *j, const fwd_req *f)
{
	entry *e = find_entry(j->key);
	char digest[80];
	uint64_t fp;
	if (!e || e->job != j)
		return;
	entry_unjob(e);
	/* the object or its artifact may have changed while the list was out
	 * (the object's spec did not while its generation is the one j has:
	 * j's tree names the same source, and is not decoded again) */
	if (f->audit_error[0] || f->status != 200 || !e->sync || e->hr->gen != e->sync->gen || e->hr->deleted ||
	    flux_generation(j->hr) != e->sync->gen || source_cached_digest(j->hr, digest, sizeof digest) < 0 ||
	    strcmp(digest, e->sync->digest) != 0 ||
	    noop_storage_fp(f->body.data ? f->body.data : "", f->body.len, j->release_name, &fp) < 0 ||
	    fp != e->sync->storage_fp) {
		svlog_hr(SVLOG_DEBUG, e->key, e->rid, "the release storage changed (or was not read): starting a worker");
		insync_forget(e);
		queue_after(e, 0);
		return;
	}
	{
		const insync *s = e->sync;
		json_t *wstatus = s->status ? jload_new(s->status, strlen(s->status), 0, NULL) : NULL;
		const char *req = flux_requested_at(j->hr);
		sv_outcome o = {0};
		o.ready = s->res.ready;
		o.reason = s->res.reason;
		o.message = s->res.message;
		o.action = s->res.action;
		o.release = s->res.has_release ? &s->res.release : NULL;
		o.revision = s->res.has_release ? s->res.release.chart_version : NULL;
		o.wstatus = wstatus;
		o.attempted = 1;
		o.helmchart = s->helmchart;
		o.storage_ns = s->storage_ns;
		svlog_hr(SVLOG_INFO, e->key, e->rid, "in sync: inputs and release storage unchanged, no worker");
		if (s->status && !wstatus) { /* out of memory: a worker instead */
			insync_forget(e);
			queue_after(e, 0);
			return;
		}
		report(kc, j->hr, &o);
		json_decref(wstatus);
		metrics_reconcile_done(j, 1, 0, now_s() - j->started, opt.worker_cpu);
		e->done_gen = flux_generation(j->hr);
		snprintf(e->done_req, sizeof e->done_req, "%s", req ? req : "");
		e->retries = 0;
		queue_after(e, requeue_jitter(hr_interval(j->hr)));
		e->sched_gen = flux_generation(j->hr);
	}
}

/* The check's answer, if f is one (then freed here). */
static int noop_collect(kube_client *kc, fwd_req *f)
{
	for (size_t i = 0; i < nchecks; i++)
		if (checks[i]->serial == f->serial) {
			sv_job *j = checks[i];
			checks[i] = checks[--nchecks]; /* its outcome audited by the forwarding thread */
			noop_answered(kc, j, f);
			entry_job_ended(j->key);
			job_free(j);
			fwd_req_free(f);
			return 1;
		}
	return 0;
}

static void reap(kube_client *kc)
{
	int look = atomic_exchange(&child_exited, 0); /* wait4 only after a SIGCHLD: each call walks every child */
	while (look) {
		int st;
		struct rusage ru;
		pid_t p = wait4(-1, &st, WNOHANG, &ru);
		if (p <= 0)
			break;
		for (size_t i = 0; i < njobs; i++)
			if (jobs[i]->pid == p) {
				jobs[i]->exited = 1;
				jobs[i]->wstatus = st;
				jobs[i]->cpu_used = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
						    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
			}
	}
	for (size_t i = 0; i < njobs;) {
		sv_job *j = jobs[i];
		if (j->exited) {
			if (j->sock >= 0) {
				/* whatever it wrote before dying is still in the socket */
				service(kc, j, 1);
				job_close_sock(j);
			}
			finish(kc, j);
			entry_job_ended(j->key);
			job_free(j);
			jobs[i] = jobs[--njobs];
			continue;
		}
		i++;
	}
}

/* Answers from the forwarding threads go to their workers: queued, then
 * one write per worker (a watch's pieces and answers that came together go
 * in one sendmsg). */
static void collect_answers(kube_client *kc)
{
	fwd_req *f = fwd_take_done();
	int any = f != NULL;
	while (f) {
		fwd_req *n = STAILQ_NEXT(f, link);
		sv_job *j = NULL;
		bh_error err;
		if (noop_collect(kc, f)) {
			f = n;
			continue;
		}
		for (size_t i = 0; i < njobs; i++)
			if (jobs[i]->serial == f->serial)
				j = jobs[i];
		if (j)
			insync_observe(j, f);
		if (broker_answer(j, f, &err) < 0 && j) {
			svlog_hr(SVLOG_ERROR, j->key, j->reconcile_id, "%s", err.msg);
			if (j->audit_error[0])
				kill_job(j);
		}
		fwd_req_free(f);
		f = n;
	}
	for (size_t i = 0; any && i < njobs; i++) {
		bh_error err;
		sv_job *j = jobs[i];
		if (j->sock >= 0 && ipc_outq_pending(&j->oq) && ipc_outq_flush(&j->oq, j->sock, &err) < 0) {
			/* the worker closed its end; its exit will be reaped */
		}
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bulkheadd [OPTIONS]\n"
		   "The bulkhead HelmRelease controller (helm.toolkit.fluxcd.io/v2): watches HelmReleases and\n"
		   "reconciles each in a fresh sandboxed bulkhead-worker. Options (also as --NAME=VALUE):\n"
		   "  --kubeconfig PATH               kubeconfig (default: $KUBECONFIG, ~/.kube/config, in-cluster)\n"
		   "  --concurrent N                  reconciles at a time (default 4), shared round-robin by namespace\n"
		   "  --concurrent-per-namespace N    at most N of them for one namespace (default 0: no cap)\n"
		   "  --audit-log PATH                the broker's audit log (JSON lines; fails closed)\n"
		   "  --audit-log-max-size SIZE       rotate the audit log at this size (default 100Mi, 0 never)\n"
		   "  --audit-log-max-backups N       rotated audit logs kept (default 10)\n"
		   "  --worker-path PATH              the bulkhead-worker binary\n"
		   "  --worker-cpu-seconds N          CPU limit of one worker (default 60)\n"
		   "  --worker-memory-mb N            address-space limit of one worker (default 1024)\n"
		   "  --worker-uid UID[:GID]|keep     who workers run as (default 65534:65534 as root, else keep)\n"
		   "  --default-service-account NAME  tenant identity when .spec.serviceAccountName is empty\n"
		   "  --no-cross-namespace-refs[=BOOL] refuse references to other namespaces (Flux's lock-down)\n"
		   "  --requeue-dependency DURATION   retry interval for dependencies and sources not ready (default 30s)\n"
		   "  --interval-jitter-percentage N  jitter .spec.interval requeues by +/-N%% (0-99, default 5)\n"
		   "  --log-level error|info|debug    (default info)\n"
		   "  --log-encoding console|json     json: Flux's structured fields (default console)\n"
		   "  --metrics-addr ADDR             serve Prometheus /metrics on HOST:PORT or :PORT (default off)\n"
		   "  --health-addr ADDR              serve /healthz and /readyz on HOST:PORT or :PORT (default off)\n"
		   "  --graceful-shutdown-timeout D   on SIGTERM, time running reconciles get to finish (default 600s)\n"
		   "  --sources builtin|external      serve HelmRepository/HelmChart through bulkhead-fetcher, or\n"
		   "                                  use a source-controller's artifacts (default external)\n"
		   "  --fetcher-path PATH             the bulkhead-fetcher binary\n"
		   "  --watch-label-selector SEL      only HelmReleases matching SEL (sharding: sharding.fluxcd.io/key)\n"
		   "  --watch-all-namespaces[=false]  false: only the namespace bulkheadd runs in (default true)\n"
		   "  --enable-leader-election        only the holder of a coordination.k8s.io Lease reconciles\n"
		   "  --leader-election-lease-duration D, --leader-election-renew-deadline D,\n"
		   "  --leader-election-retry-period D    (defaults 35s, 30s, 5s)\n"
		   "  --leader-election-namespace NS  the Lease's namespace (default $RUNTIME_NAMESPACE, the pod's, or default)\n"
		   "  --leader-election-id NAME       the Lease's name (default bulkheadd-leader-election)\n"
		   "  --once NS/NAME                  reconcile that HelmRelease alone, once, and exit: 0 Ready, 1 not\n"
		   "                                  Ready, 2 not found (`bulkhead reconcile --once`)\n"
		   "  --test-hooks                    honour bulkhead.dev/test-hook annotations (tests only)\n"
		   "  --version                       print the version and exit\n"
		   "  -h, --help                      this help\n");
}

/* A Go bool flag's value: absent (--flag) is true; 1/0, t/f, true/false. */
static int go_bool_flag(const char *v)
{
	static const char *const yes[] = {"1", "t", "T", "true", "TRUE", "True"}, *const no[] = {"0", "f", "F", "false", "FALSE", "False"};
	if (!v)
		return 1;
	for (size_t i = 0; i < 6; i++) {
		if (!strcmp(v, yes[i]))
			return 1;
		if (!strcmp(v, no[i]))
			return 0;
	}
	return -1;
}

static char *default_worker_path(void)
{
	char self[PATH_MAX], *slash, *p = NULL;
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/'))) {
			*slash = '\0';
			if (asprintf(&p, "%s/../worker/bulkhead-worker", self) > 0 && access(p, X_OK) == 0)
				return p;
			free(p);
			if (asprintf(&p, "%s/../libexec/bulkhead-worker", self) > 0 && access(p, X_OK) == 0)
				return p;
			free(p);
		}
	}
	return strdup("/usr/libexec/bulkhead-worker");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"kubeconfig", required_argument, NULL, 'k'}, {"concurrent", required_argument, NULL, 'c'},
		{"audit-log", required_argument, NULL, 'a'}, {"worker-path", required_argument, NULL, 'w'},
		{"log-level", required_argument, NULL, 'l'}, {"default-service-account", required_argument, NULL, 's'},
		{"requeue-dependency", required_argument, NULL, 'r'}, {"worker-cpu-seconds", required_argument, NULL, 'C'},
		{"worker-memory-mb", required_argument, NULL, 'M'}, {"test-hooks", no_argument, NULL, 'T'},
		{"log-encoding", required_argument, NULL, 'E'}, {"version", no_argument, NULL, 'V'},
		{"audit-log-max-size", required_argument, NULL, 'Z'}, {"audit-log-max-backups", required_argument, NULL, 'B'},
		{"metrics-addr", required_argument, NULL, 'm'}, {"health-addr", required_argument, NULL, 'H'},
		{"graceful-shutdown-timeout", required_argument, NULL, 'G'},
		{"sources", required_argument, NULL, 'S'}, {"fetcher-path", required_argument, NULL, 'F'},
		{"enable-leader-election", optional_argument, NULL, 'L'},
		{"concurrent-per-namespace", required_argument, NULL, 1008}, {"watch-label-selector", required_argument, NULL, 1006}, {"watch-all-namespaces", optional_argument, NULL, 1007},
		{"interval-jitter-percentage", required_argument, NULL, 1009}, {"once", required_argument, NULL, 1020},
		{"leader-election-lease-duration", required_argument, NULL, 1001},
		{"leader-election-renew-deadline", required_argument, NULL, 1002},
		{"leader-election-retry-period", required_argument, NULL, 1003},
		{"leader-election-namespace", required_argument, NULL, 1004},
		{"leader-election-id", required_argument, NULL, 1005},
		{"no-cross-namespace-refs", optional_argument, NULL, 'X'},
		{"worker-uid", required_argument, NULL, 'U'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	kube_config *cfg;
	kube_client *kc;
	bh_error err;
	struct sigaction sa;

	/* The forwarding threads allocate the answers the main thread frees:
	 * with glibc's default trim threshold their arenas gave pages back
	 * (madvise) after most answers and faulted them in again. Fixed
	 * thresholds keep up to 2 MiB free per arena. */
	mallopt(M_TRIM_THRESHOLD, 2 << 20);
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	/* Two arenas for all threads (forwarding, status writers, watches):
	 * each arena keeps its free memory and 1-2 MiB of its own; at
	 * BENCH_SCALE_N=300 peak RSS 26.8 -> 24.4 MiB, CPU no higher. */
	mallopt(M_ARENA_MAX, 2);
	/* SCHED_BATCH (the threads started below and the workers inherit it):
	 * a thread of ours woken by another (the audit log's sync thread by an
	 * intent, a worker by its answer) no longer preempts the waker in the
	 * middle of its batch; it runs when the waker sleeps or at the tick.
	 * Same share of the CPU, same nice level, fewer context switches. Not
	 * being allowed to change it costs nothing but those. */
	struct sched_param sp = {0};
	if (sched_setscheduler(0, SCHED_BATCH, &sp) < 0) {
		/* kept SCHED_OTHER */
	}
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'k': opt.kubeconfig = optarg; break;
		case 'c': opt.concurrent = atoi(optarg); break;
		case 'a': opt.audit_log = optarg; break;
		case 'Z':
			if (audit_parse_size(optarg, &opt.audit_max_size) < 0) {
				fprintf(stderr, "bulkheadd: invalid --audit-log-max-size %s (bytes, or with K, M, G, Ki, Mi, Gi)\n", optarg);
				return 2;
			}
			break;
		case 'B': opt.audit_max_backups = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'w': opt.worker_path = optarg; break;
		case 's': opt.default_sa = optarg; break;
		case 'T': opt.test_hooks = 1; break;
		case 'm': opt.metrics_addr = optarg; break;
		case 'H': opt.health_addr = optarg; break;
		case 'F': fetcher_path = optarg; break;
		case 'S':
			if (strcmp(optarg, "builtin") != 0 && strcmp(optarg, "external") != 0) {
				fprintf(stderr, "bulkheadd: --sources must be builtin or external\n");
				return 2;
			}
			builtin_sources = strcmp(optarg, "builtin") == 0;
			break;
		case 'X':
			if (!optarg || !strcmp(optarg, "true"))
				lockdown.no_cross_ns_refs = 1;
			else if (!strcmp(optarg, "false"))
				lockdown.no_cross_ns_refs = 0;
			else {
				fprintf(stderr, "bulkheadd: --no-cross-namespace-refs takes true or false, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'C': opt.worker_cpu = strtoul(optarg, NULL, 10); break;
		case 'M': opt.worker_mem_mb = strtoul(optarg, NULL, 10); break;
		case 'L':
			if ((opt.leader_election = go_bool_flag(optarg)) < 0) {
				fprintf(stderr, "bulkheadd: --enable-leader-election takes true or false\n");
				return 2;
			}
			break;
		case 1001:
		case 1002:
		case 1003: {
			double d = source_parse_duration(optarg);
			if (d <= 0) {
				fprintf(stderr, "bulkheadd: invalid duration %s for %s\n", optarg, argv[optind - 1]);
				return 2;
			}
			*(c == 1001 ? &opt.le.lease_duration : c == 1002 ? &opt.le.renew_deadline : &opt.le.retry_period) = d;
			break;
		}
		case 1004: opt.le.ns = optarg; break;
		case 1008: opt.per_ns_cap = (unsigned)strtoul(optarg, NULL, 10); break;
		case 1006: opt.watch_selector = *optarg ? optarg : NULL; break;
		case 1007:
			if ((opt.watch_all_ns = go_bool_flag(optarg)) < 0) {
				fprintf(stderr, "bulkheadd: --watch-all-namespaces takes true or false\n");
				return 2;
			}
			break;
		case 1005: opt.le.name = optarg; break;
		case 1020: once_key = optarg; break;
		case 1009: {
			char *end;
			long pct = strtol(optarg, &end, 10);
			if (end == optarg || *end || requeue_set_jitter(pct) < 0) {
				fprintf(stderr, "bulkheadd: --interval-jitter-percentage must be 0 to 99\n");
				return 2;
			}
			break;
		}
		case 'G':
			if ((opt.shutdown_grace = source_parse_duration(optarg)) < 0) {
				fprintf(stderr, "bulkheadd: invalid --graceful-shutdown-timeout %s\n", optarg);
				return 2;
			}
			break;
		case 'r':
			if ((opt.requeue_dependency = source_parse_duration(optarg)) < 0) {
				fprintf(stderr, "bulkheadd: invalid --requeue-dependency %s\n", optarg);
				return 2;
			}
			break;
		case 'l':
			if ((opt.log_level = svlog_level_parse(optarg)) < 0) {
				fprintf(stderr, "bulkheadd: --log-level must be error, info or debug\n");
				return 2;
			}
			break;
		case 'E':
			if ((opt.log_encoding = svlog_encoding_parse(optarg)) < 0) {
				fprintf(stderr, "bulkheadd: --log-encoding must be json or console\n");
				return 2;
			}
			break;
		case 'V': printf("bulkheadd %s\n", PACKAGE_VERSION); return 0;
		case 'U': opt.worker_uid = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc || opt.concurrent < 1) {
		usage(stderr);
		return 2;
	}
	svlog_setup(opt.log_encoding, opt.log_level);
	if (spawn_set_user(opt.worker_uid, &err) < 0) {
		fprintf(stderr, "bulkheadd: %s\n", err.msg);
		return 2;
	}
	if (opt.default_sa && acl_check_sa_name(opt.default_sa, "--default-service-account", &err) < 0) {
		fprintf(stderr, "bulkheadd: %s\n", err.msg);
		return 2;
	}
	lockdown.default_sa = opt.default_sa;
	if (!opt.worker_path)
		opt.worker_path = default_worker_path();
	if ((worker_fd = open(opt.worker_path, O_PATH | O_CLOEXEC)) < 0 || access(opt.worker_path, X_OK) < 0) {
		fprintf(stderr, "bulkheadd: worker binary %s: %s (see --worker-path)\n", opt.worker_path, strerror(errno));
		return 1;
	}
	cfg = opt.kubeconfig ? kube_config_load(opt.kubeconfig, NULL, &err) : kube_config_default_load(&err);
	if (!cfg) {
		fprintf(stderr, "bulkheadd: %s\n", err.msg);
		return 1;
	}
	if (!(kc = kube_curl_client_new(cfg, &err))) {
		fprintf(stderr, "bulkheadd: %s\n", err.msg);
		return 1;
	}
	audit_opts ao = {opt.audit_log, cfg->server, opt.audit_max_size, opt.audit_max_backups};
	if (audit_open(&ao, &err) < 0) {
		fprintf(stderr, "bulkheadd: %s\n", err.msg);
		return 1;
	}
	if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		perror("bulkheadd: pipe");
		return 1;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL); /* reopen the audit log */
	signal(SIGPIPE, SIG_IGN);
	if (fwd_start(cfg, opt.concurrent, wake, &err) < 0) {
		fprintf(stderr, "bulkheadd: %s\n", err.msg);
		return 1;
	}
	if (builtin_sources) {
		sources_opts so = {cfg, fetcher_path, 4, on_artifact};
		if (sources_start(&so, &err) < 0) {
			fprintf(stderr, "bulkheadd: %s\n", err.msg);
			return 1;
		}
	} else if (sources_watch_external(cfg, fetcher_path, on_artifact, &err) < 0 ||
		   artfetch_start(2, on_fetched, &err) < 0) {
		fprintf(stderr, "bulkheadd: %s\n", err.msg);
		return 1;
	}
	status_async_start();
	if (discovery_start(cfg, wake, 600, &err) < 0) {
		fprintf(stderr, "bulkheadd: %s\n", err.msg);
		return 1;
	}
	if (ops_start(&err) < 0) {
		fprintf(stderr, "bulkheadd: %s\n", err.msg);
		return 1;
	}
	kube_watch_opts wo = {0};
	wo.timeout_seconds = 60;
	wo.label_selector = opt.watch_selector; /* sharding: Flux's sharding.fluxcd.io/key */
	wo.tree_drop = hrent_unread;            /* in the cache's text, never decoded by the watch */
	if (loopwatch_add(cfg, &sv_helmrelease_resource, opt.watch_all_ns ? NULL : leader_runtime_namespace(), &wo,
			  on_watch, NULL, "HelmReleases", &err) < 0) {
		fprintf(stderr, "bulkheadd: %s\n", err.msg);
		return 1;
	}
	if (opt.leader_election && ops_leader_start(cfg, &err) < 0) {
		fprintf(stderr, "bulkheadd: %s\n", err.msg);
		return 1;
	}
	svlog(SVLOG_INFO, "watching HelmReleases in %s%s%s%s at %s (worker %s, concurrency %d)",
	      opt.watch_all_ns ? "all namespaces" : "namespace ", opt.watch_all_ns ? "" : leader_runtime_namespace(),
	      opt.watch_selector ? " matching " : "", opt.watch_selector ? opt.watch_selector : "", cfg->server, opt.worker_path, opt.concurrent);

	struct pollfd *pf = NULL;
	size_t npf = 0;
	if (!(loop_ev = evset_new(&err))) {
		fprintf(stderr, "bulkheadd: %s\n", err.msg);
		return 1;
	}
	kube_curl_multi_forget_hook(loop_forget); /* the sockets of the multi handles this thread runs */
	svlog_hold(1); /* the loop's lines: written together once the first is 50 ms old (svlog_flush_due) */
	while (!stopping || njobs > 0) {
		double now = now_s(), next = now + 5;
		int timeout;
		drain_watch(); /* first: what a signal flagged is read after (wake) */
		if (reopen_audit) {
			reopen_audit = 0;
			if (audit_reopen(&err) < 0)
				svlog(SVLOG_ERROR, "%s (requests are refused until it opens)", err.msg);
			else
				svlog(SVLOG_INFO, "audit log reopened");
		}
		obj_collect(kc, obj_take());
		collect_answers(kc);
		reap(kc);
		ops_tick(now);
		/* deadlines */
		for (size_t i = 0; i < njobs; i++) {
			if (!jobs[i]->exited && !jobs[i]->timed_out && now >= jobs[i]->deadline) {
				jobs[i]->timed_out = 1;
				kill(jobs[i]->pid, SIGKILL);
			}
		}
		/* start queued reconciles, round-robin over namespaces; now is
		 * read again: what the queues above made due is due this turn */
		now = now_s();
		for (size_t n = 0; ops_may_start(now) && njobs < (size_t)opt.concurrent && n < nentries; n++) {
			entry *e = ops_pick(now);
			if (!e)
				break;
			if (!noop_try(e))
				start(kc, e);
		}
		/* the next timer: a queued reconcile not due when the loop
		 * above looked (one queued since, by start(), is due at once:
		 * the timeout is then 0). One that was due then waits for a
		 * slot (all busy, or its namespace's cap): a worker's exit wakes
		 * the loop, so it never sets a timeout in the past for it (the
		 * loop would spin). */
		if (next_timer(now) < next)
			next = timer_at;
		/* the requests in flight to the API server: their sockets in
		 * the same poll, so a worker's request is read, sent, answered
		 * and written back on this thread (forward.h) */
		size_t nsrc[NSRC], nfds = 0;
		int src_tmo[NSRC];
		const struct pollfd *src_pf[NSRC];
		for (size_t k = 0; k < NSRC; k++) {
			src_pf[k] = loop_srcs[k].fds(&nsrc[k], &src_tmo[k]);
			nfds += nsrc[k];
		}
		if (npf < njobs + 1 + nfds) { /* kept from turn to turn: grows with the jobs */
			struct pollfd *n = realloc(pf, (njobs + 1 + nfds) * sizeof *n);
			if (!n)
				break;
			pf = n;
			npf = njobs + 1 + nfds;
		}
		for (size_t k = 0, at = 1 + njobs; k < NSRC; at += nsrc[k++])
			if (nsrc[k])
				memcpy(pf + at, src_pf[k], nsrc[k] * sizeof *pf);
		pf[0].fd = wake_pipe[0];
		pf[0].events = POLLIN;
		int held = 0; /* a reader holds frames service()'s budget left: they go this turn */
		for (size_t i = 0; i < njobs; i++) {
			pf[i + 1].fd = jobs[i]->sock;
			pf[i + 1].events = jobs[i]->sock >= 0 ? (POLLIN | (ipc_outq_pending(&jobs[i]->oq) ? POLLOUT : 0)) : 0;
			if (!jobs[i]->exited && !jobs[i]->timed_out && jobs[i]->deadline < next)
				next = jobs[i]->deadline;
			held |= jobs[i]->sock >= 0 && ipc_reader_more(&jobs[i]->rd);
		}
		now = now_s();
		timeout = next > now ? (int)((next - now) * 1000) + 1 : 0;
		if (timeout > 1000) /* liveness (ops_tick), the Lease, draining */
			timeout = 1000;
		for (size_t k = 0; k < NSRC; k++)
			if (src_tmo[k] >= 0 && src_tmo[k] < timeout)
				timeout = src_tmo[k];
		if (held) /* the socket may be drained: no event would come for them */
			timeout = 0;
		pf[0].revents = 0;
		int log_due = svlog_flush_due(); /* held lines: written when 50 ms old, so the wait ends then */
		if (log_due >= 0 && log_due < timeout)
			timeout = log_due;
		size_t polled = njobs; /* service() may end jobs: the sockets after them stay where they were */
		atomic_store(&loop_polling, 1); /* then wake() writes the pipe (see wake) */
		if (atomic_load(&wake_pending) || (stopping && njobs == 0)) /* woken while busy: no pipe byte for it; or done */
			timeout = 0;
		int nev = evset_poll(loop_ev, pf, njobs + 1 + nfds, timeout);
		atomic_store(&loop_polling, 0);
		if (nev > 0 || held) {
			for (size_t i = 0; i < polled && i < njobs; i++) {
				int more = jobs[i]->sock >= 0 && ipc_reader_more(&jobs[i]->rd);
				if ((pf[i + 1].revents || more) && jobs[i]->sock >= 0)
					service(kc, jobs[i], (pf[i + 1].revents & ~POLLOUT) || more);
			}
		} else {
			for (size_t i = 0; i < nfds; i++)
				pf[1 + polled + i].revents = 0;
		}
		/* the requests the workers just made leave now, with what the
		 * API server answered (the answers are taken at the top); the
		 * watches' bytes are read */
		for (size_t k = 0, at = 1 + polled; k < NSRC; at += nsrc[k++])
			loop_srcs[k].run(pf + at, nsrc[k]);
		pipe_readable = pf[0].revents != 0;
	}
	free(pf);
	svlog_hold(0);
	ops_draining(now_s()); /* STOPPING=1 and /readyz false, when no worker ran */
	svlog(SVLOG_INFO, "stopping");
	for (size_t i = 0; i < njobs; i++)
		kill_job(jobs[i]);
	kube_curl_multi_forget_hook(NULL);
	evset_free(loop_ev);
	loop_ev = NULL;
	status_flush();
	audit_close();
	httpd_stop(metrics_srv);
	httpd_stop(health_srv);
	leader_stop(); /* releases the Lease */
	return once_rc >= 0 ? once_rc : leader_lost() ? 1 : 0;
}
