/* supervisor/metrics.c — see metrics.h. */
#include "supervisor/metrics.h"

#include <pthread.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <signal.h>
#include <sys/wait.h>

#include "lib/buf.h"
#include "lib/hash.h"
#include "supervisor/job.h"

#define MAX_SERIES 20000 /* label cardinality bound: new series beyond it are dropped */
#define NBUCKETS 5

typedef enum { T_COUNTER, T_GAUGE, T_HISTOGRAM } mtype;

static const struct family {
	const char *name, *help;
	mtype type;
} families[M_FAMILIES] = {
	[M_RECONCILE_DURATION] = {"gotk_reconcile_duration_seconds",
				  "The duration in seconds of a gitops toolkit resource reconciliation.", T_HISTOGRAM},
	[M_RECONCILE_TOTAL] = {"controller_runtime_reconcile_total",
			       "Total number of reconciliations per controller", T_COUNTER},
	[M_RECONCILE_ERRORS] = {"controller_runtime_reconcile_errors_total",
				"Total number of reconciliation errors per controller", T_COUNTER},
	[M_MAX_CONCURRENT] = {"controller_runtime_max_concurrent_reconciles",
			      "Maximum number of concurrent reconciles per controller", T_GAUGE},
	[M_ACTIVE_WORKERS] = {"controller_runtime_active_workers",
			      "Number of currently used workers per controller", T_GAUGE},
	[M_WORKQUEUE_DEPTH] = {"workqueue_depth", "Current depth of workqueue", T_GAUGE},
	[M_LEADER] = {"leader_election_master_status",
		      "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
		      T_GAUGE},
	[M_WORKER_SPAWNS] = {"bulkhead_worker_spawns_total", "Sandboxed workers started.", T_COUNTER},
	[M_WORKER_DEATHS] = {"bulkhead_worker_deaths_total",
			     "Workers ended, by cause: exit, seccomp, cpu, memory, timeout, protocol.", T_COUNTER},
	[M_BROKER_REQUESTS] = {"bulkhead_broker_requests_total",
			       "Kubernetes requests of workers through the broker, by verb and HTTP code (0: not answered).",
			       T_COUNTER},
	[M_AUDIT_RECORDS] = {"bulkhead_audit_records_total", "Audit log records, by result: written or failed.",
			     T_COUNTER},
	[M_INFLIGHT] = {"bulkhead_reconciles_in_flight", "Reconciles running, per tenant namespace.", T_GAUGE},
	[M_QUEUE_DEPTH] = {"bulkhead_queue_depth", "HelmReleases waiting for a reconcile slot, per tenant namespace.",
			   T_GAUGE},
};

/* Flux's reconcile duration buckets: prometheus.ExponentialBuckets(10e-3, 10, 5) */
static const double buckets[NBUCKETS] = {0.01, 0.1, 1, 10, 100};

typedef struct series {
	metrics_family f;
	char *labels;
	uint64_t hash; /* series_hash(f, labels) */
	double value, sum;
	unsigned long long count, bucket[NBUCKETS];
} series;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static series *all;
static size_t nall, call;
/* The series by (family, labels): open addressing over all[], each slot an
 * index + 1 (0: empty), nslot a power of two above twice nall. A lookup
 * runs for every broker request and reconcile, and with a duration series
 * per HelmRelease a walk of all[] grew with them. */
static size_t *slot, nslot;

static uint64_t series_hash(metrics_family f, const char *labels)
{
	int fi = (int)f;
	return bh_fnv1a(bh_fnv1a(BH_FNV1A_INIT, &fi, sizeof fi), labels, strlen(labels));
}

/* With mu held: the slots rebuilt for n (> 2 * nall) of them; -1 without memory. */
static int slots_grow(size_t n)
{
	size_t *ns = calloc(n, sizeof *ns);
	if (!ns)
		return -1;
	for (size_t i = 0; i < nall; i++) {
		size_t k = (size_t)all[i].hash & (n - 1);
		while (ns[k])
			k = (k + 1) & (n - 1);
		ns[k] = i + 1;
	}
	free(slot);
	slot = ns;
	nslot = n;
	return 0;
}

void metrics_labels(char *buf, size_t n, ...)
{
	va_list ap;
	const char *k;
	size_t o = 0;
	if (!n)
		return;
	buf[0] = '\0';
	va_start(ap, n);
	while ((k = va_arg(ap, const char *))) {
		const char *v = va_arg(ap, const char *);
		/* ,key=" (what snprintf "%s%s=\"" wrote, cut the same way
		 * when it does not fit), without the printf machinery: this
		 * runs for every broker request */
		size_t kl = strlen(k), sep = o ? 1 : 0, w = sep + kl + 2, fit = w < n - o ? w : n - o - 1;
		for (size_t i = 0; i < fit; i++)
			buf[o + i] = i < sep ? ',' : i < sep + kl ? k[i - sep] : i == sep + kl ? '=' : '"';
		buf[o + fit] = '\0';
		if (fit < w)
			break;
		o += w;
		for (v = v ? v : ""; *v && o + 3 < n; v++) {
			if (*v == '\\' || *v == '"' || *v == '\n') {
				buf[o++] = '\\';
				buf[o++] = *v == '\n' ? 'n' : *v;
			} else {
				buf[o++] = *v;
			}
		}
		if (o + 2 > n)
			break;
		buf[o++] = '"';
		buf[o] = '\0';
	}
	va_end(ap);
}

/* With mu held: the series, created at 0 if new (NULL past the bound). */
static series *find(metrics_family f, const char *labels)
{
	uint64_t h;
	size_t k = 0;
	labels = labels ? labels : "";
	h = series_hash(f, labels);
	if (nslot)
		for (k = (size_t)h & (nslot - 1); slot[k]; k = (k + 1) & (nslot - 1)) {
			series *s = &all[slot[k] - 1];
			if (s->hash == h && s->f == f && !strcmp(s->labels, labels))
				return s;
		}
	if (nall >= MAX_SERIES)
		return NULL;
	if (nall == call) {
		size_t nc = call ? call * 2 : 64;
		series *ns = realloc(all, nc * sizeof *ns);
		if (!ns)
			return NULL;
		all = ns;
		call = nc;
	}
	if (2 * (nall + 1) > nslot) {
		if (slots_grow(nslot ? nslot * 2 : 128) < 0)
			return NULL;
		for (k = (size_t)h & (nslot - 1); slot[k]; k = (k + 1) & (nslot - 1))
			;
	}
	memset(&all[nall], 0, sizeof all[nall]);
	all[nall].f = f;
	all[nall].hash = h;
	if (!(all[nall].labels = strdup(labels)))
		return NULL;
	slot[k] = nall + 1;
	return &all[nall++];
}

void metrics_add(metrics_family f, const char *labels, double v)
{
	series *s;
	pthread_mutex_lock(&mu);
	if ((s = find(f, labels)))
		s->value += v;
	pthread_mutex_unlock(&mu);
}

void metrics_set(metrics_family f, const char *labels, double v)
{
	series *s;
	pthread_mutex_lock(&mu);
	if ((s = find(f, labels)))
		s->value = v;
	pthread_mutex_unlock(&mu);
}

void metrics_observe(metrics_family f, const char *labels, double v)
{
	series *s;
	pthread_mutex_lock(&mu);
	if ((s = find(f, labels))) {
		s->count++;
		s->sum += v;
		for (int i = 0; i < NBUCKETS; i++)
			if (v <= buckets[i])
				s->bucket[i]++;
	}
	pthread_mutex_unlock(&mu);
}

void metrics_zero(metrics_family f)
{
	pthread_mutex_lock(&mu);
	for (size_t i = 0; i < nall; i++)
		if (all[i].f == f)
			all[i].value = 0;
	pthread_mutex_unlock(&mu);
}

void metrics_broker_request(const char *verb, long code)
{
	char l[128], c[24];
	size_t k = sizeof c;
	unsigned long u = code < 0 ? 0UL - (unsigned long)code : (unsigned long)code;
	c[--k] = '\0';
	do /* "%ld" */
		c[--k] = (char)('0' + u % 10);
	while ((u /= 10));
	if (code < 0)
		c[--k] = '-';
	metrics_labels(l, sizeof l, "verb", verb && *verb ? verb : "unknown", "code", c + k, (const char *)NULL);
	metrics_add(M_BROKER_REQUESTS, l, 1);
}

void metrics_audit_record(int ok)
{
	metrics_add(M_AUDIT_RECORDS, ok ? "result=\"written\"" : "result=\"failed\"", 1);
}

const char *metrics_death_cause(const sv_job *j, unsigned long cpu_limit)
{
	int sig = WIFSIGNALED(j->wstatus) ? WTERMSIG(j->wstatus) : 0;
	if (j->has_seccomp || sig == SIGSYS)
		return "seccomp";
	if (j->timed_out)
		return "timeout";
	if (j->violation[0])
		return "protocol";
	if (sig == SIGXCPU || (sig == SIGKILL && cpu_limit && j->cpu_used >= (double)cpu_limit))
		return "cpu";
	if (j->has_result && j->result.message &&
	    (strstr(j->result.message, "out of memory") || strstr(j->result.message, "memory limit exceeded")))
		return "memory";
	if (sig == SIGKILL && !j->has_result)
		return "killed";
	if (sig && !j->has_result)
		return "crash";
	return "exit";
}

void metrics_reconcile_done(const sv_job *j, int ready, int requeue, double seconds, unsigned long cpu_limit)
{
	char l[700];
	if (!j->check) { /* a no-op decided without a worker (noop.h) ran none */
		metrics_labels(l, sizeof l, "cause", metrics_death_cause(j, cpu_limit), (const char *)NULL);
		metrics_add(M_WORKER_DEATHS, l, 1);
	}
	metrics_labels(l, sizeof l, "kind", "HelmRelease", "name", j->name, "namespace", j->ns, (const char *)NULL);
	metrics_observe(M_RECONCILE_DURATION, l, seconds);
	metrics_add(M_RECONCILE_TOTAL,
		    ready ? "controller=\"helmrelease\",result=\"success\""
			  : requeue ? "controller=\"helmrelease\",result=\"requeue\""
				    : "controller=\"helmrelease\",result=\"error\"",
		    1);
	if (!ready && !requeue)
		metrics_add(M_RECONCILE_ERRORS, "controller=\"helmrelease\"", 1);
}

/* Shortest text that reads back as v (Go's strconv 'g' -1 style). */
static void num(char *b, size_t n, double v)
{
	snprintf(b, n, "%.15g", v);
	if (strtod(b, NULL) != v)
		snprintf(b, n, "%.17g", v);
}

static void line(bh_buf *b, const char *name, const char *suffix, const char *labels, const char *extra, double v)
{
	char t[64];
	num(t, sizeof t, v);
	bh_buf_printf(b, "%s%s", name, suffix);
	if ((labels && *labels) || extra)
		bh_buf_printf(b, "{%s%s%s}", labels ? labels : "", labels && *labels && extra ? "," : "",
			      extra ? extra : "");
	bh_buf_printf(b, " %s\n", t);
}

char *metrics_render_new(size_t *len)
{
	bh_buf b = BH_BUF_INIT;
	pthread_mutex_lock(&mu);
	for (int f = 0; f < M_FAMILIES; f++) {
		const struct family *fa = &families[f];
		int any = 0;
		bh_buf_printf(&b, "# HELP %s %s\n# TYPE %s %s\n", fa->name, fa->help, fa->name,
			      fa->type == T_COUNTER ? "counter" : fa->type == T_GAUGE ? "gauge" : "histogram");
		for (size_t i = 0; i < nall; i++) {
			const series *s = &all[i];
			if ((int)s->f != f)
				continue;
			any = 1;
			if (fa->type != T_HISTOGRAM) {
				line(&b, fa->name, "", s->labels, NULL, s->value);
				continue;
			}
			for (int k = 0; k < NBUCKETS; k++) {
				char le[48], t[32];
				num(t, sizeof t, buckets[k]);
				snprintf(le, sizeof le, "le=\"%s\"", t);
				line(&b, fa->name, "_bucket", s->labels, le, (double)s->bucket[k]);
			}
			line(&b, fa->name, "_bucket", s->labels, "le=\"+Inf\"", (double)s->count);
			line(&b, fa->name, "_sum", s->labels, NULL, s->sum);
			line(&b, fa->name, "_count", s->labels, NULL, (double)s->count);
		}
		if (!any && f == M_WORKER_SPAWNS)
			line(&b, fa->name, "", NULL, NULL, 0);
	}
	pthread_mutex_unlock(&mu);
	if (!bh_buf_ok(&b)) {
		bh_buf_free(&b);
		return NULL;
	}
	*len = b.len;
	return bh_buf_detach(&b);
}

void metrics_reset(void)
{
	pthread_mutex_lock(&mu);
	for (size_t i = 0; i < nall; i++)
		free(all[i].labels);
	free(all);
	free(slot);
	all = NULL;
	slot = NULL;
	nall = call = nslot = 0;
	pthread_mutex_unlock(&mu);
}
