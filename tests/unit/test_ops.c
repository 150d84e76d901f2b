/* tests/unit/test_ops.c — the supervisor's operations pieces that need no
 * cluster: metric label escaping, the exposition text (histogram buckets,
 * counters), worker death causes, structured log options, and the leader
 * election's take/renew decisions, the fair scheduler. */
#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/job.h"
#include "supervisor/leader.h"
#include "supervisor/log.h"
#include "supervisor/metrics.h"
#include "supervisor/sched.h"
#include "tests/unit/unit_util.h"

START_TEST(test_labels)
{
	char b[64];
	metrics_labels(b, sizeof b, "a", "x\"y\\z\nw", "b", "", (const char *)NULL);
	ck_assert_str_eq(b, "a=\"x\\\"y\\\\z\\nw\",b=\"\"");
	metrics_labels(b, 12, "name", "a-very-long-value", (const char *)NULL);
	ck_assert_uint_lt(strlen(b), 12);
	ck_assert_str_eq(b, "name=\"a-v\"");
	/* a key that does not fit is cut where the buffer ends */
	metrics_labels(b, 10, "a", "xy", "longkey", "v", (const char *)NULL);
	ck_assert_str_eq(b, "a=\"xy\",lo");
}
END_TEST

/* Many series (past several growths of the index): each found again, the
 * same labels in two families kept apart, and every one rendered once. */
START_TEST(test_many_series)
{
	size_t n, lines = 0;
	char *t, l[64], want[160];
	metrics_reset();
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 3000; i++) {
			snprintf(l, sizeof l, "namespace=\"ns-%d\"", i);
			metrics_add(M_INFLIGHT, l, 1);
			metrics_add(M_QUEUE_DEPTH, l, i % 7);
		}
	t = metrics_render_new(&n);
	ck_assert_ptr_nonnull(t);
	for (int i = 0; i < 3000; i += 499) {
		snprintf(want, sizeof want, "\nbulkhead_reconciles_in_flight{namespace=\"ns-%d\"} 2\n", i);
		ck_assert_msg(strstr(t, want) != NULL, "missing: %s", want);
		snprintf(want, sizeof want, "\nbulkhead_queue_depth{namespace=\"ns-%d\"} %d\n", i, 2 * (i % 7));
		ck_assert_msg(strstr(t, want) != NULL, "missing: %s", want);
	}
	for (const char *p = t; (p = strstr(p, "{namespace=\"ns-")); p++)
		lines++;
	ck_assert_uint_eq(lines, 6000);
	free(t);
	metrics_reset();
}
END_TEST

START_TEST(test_render)
{
	size_t n;
	char *t;
	metrics_reset();
	metrics_add(M_WORKER_SPAWNS, NULL, 2);
	metrics_observe(M_RECONCILE_DURATION, "kind=\"HelmRelease\",name=\"a\",namespace=\"n\"", 0.5);
	metrics_observe(M_RECONCILE_DURATION, "kind=\"HelmRelease\",name=\"a\",namespace=\"n\"", 50);
	metrics_set(M_QUEUE_DEPTH, "namespace=\"n\"", 3);
	metrics_zero(M_QUEUE_DEPTH);
	metrics_broker_request("get", 200);
	metrics_broker_request("get", 200);
	t = metrics_render_new(&n);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(strlen(t), n);
	ck_assert_ptr_nonnull(strstr(t, "# TYPE gotk_reconcile_duration_seconds histogram\n"));
	ck_assert_ptr_nonnull(strstr(t, "bulkhead_worker_spawns_total 2\n"));
	ck_assert_ptr_nonnull(strstr(
		t, "gotk_reconcile_duration_seconds_bucket{kind=\"HelmRelease\",name=\"a\",namespace=\"n\",le=\"0.1\"} 0\n"));
	ck_assert_ptr_nonnull(strstr(
		t, "gotk_reconcile_duration_seconds_bucket{kind=\"HelmRelease\",name=\"a\",namespace=\"n\",le=\"1\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(
		t, "gotk_reconcile_duration_seconds_bucket{kind=\"HelmRelease\",name=\"a\",namespace=\"n\",le=\"+Inf\"} 2\n"));
	ck_assert_ptr_nonnull(strstr(t, "gotk_reconcile_duration_seconds_sum{kind=\"HelmRelease\",name=\"a\",namespace=\"n\"} 50.5\n"));
	ck_assert_ptr_nonnull(strstr(t, "bulkhead_queue_depth{namespace=\"n\"} 0\n"));
	ck_assert_ptr_nonnull(strstr(t, "bulkhead_broker_requests_total{verb=\"get\",code=\"200\"} 2\n"));
	free(t);
	metrics_reset();
}
END_TEST

START_TEST(test_death_cause)
{
	sv_job j;
	memset(&j, 0, sizeof j);
	j.wstatus = 0; /* exited 0 */
	ck_assert_str_eq(metrics_death_cause(&j, 60), "exit");
	j.wstatus = SIGSYS;
	ck_assert_str_eq(metrics_death_cause(&j, 60), "seccomp");
	j.wstatus = SIGXCPU;
	ck_assert_str_eq(metrics_death_cause(&j, 60), "cpu");
	j.wstatus = SIGKILL;
	ck_assert_str_eq(metrics_death_cause(&j, 60), "killed");
	j.cpu_used = 61;
	ck_assert_str_eq(metrics_death_cause(&j, 60), "cpu");
	j.timed_out = 1;
	ck_assert_str_eq(metrics_death_cause(&j, 60), "timeout");
	j.timed_out = 0;
	j.wstatus = SIGSEGV;
	ck_assert_str_eq(metrics_death_cause(&j, 60), "crash");
	strcpy(j.violation, "bad frame");
	ck_assert_str_eq(metrics_death_cause(&j, 60), "protocol");
	j.violation[0] = '\0';
	j.wstatus = 0;
	j.has_result = 1;
	j.result.message = "rendering: out of memory";
	ck_assert_str_eq(metrics_death_cause(&j, 60), "memory");
	j.result.message = "executing \"t\" at <repeat 1048576 \"x\">:\n    template memory limit exceeded in repeat";
	ck_assert_str_eq(metrics_death_cause(&j, 60), "memory");
	j.result.message = "Helm install failed: exit status 1";
	ck_assert_str_eq(metrics_death_cause(&j, 60), "exit");
}
END_TEST

START_TEST(test_log_options)
{
	char id[37], id2[37];
	ck_assert_int_eq(svlog_encoding_parse("json"), SVLOG_JSON);
	ck_assert_int_eq(svlog_encoding_parse("console"), SVLOG_CONSOLE);
	ck_assert_int_eq(svlog_encoding_parse("text"), -1);
	ck_assert_int_eq(svlog_level_parse("debug"), SVLOG_DEBUG);
	ck_assert_int_eq(svlog_level_parse("trace"), -1);
	svlog_reconcile_id(id);
	svlog_reconcile_id(id2);
	ck_assert_uint_eq(strlen(id), 36);
	ck_assert_int_eq(id[14], '4');
	ck_assert(strchr("89ab", id[19]) != NULL);
	ck_assert_str_ne(id, id2);
	ck_assert_int_ne(memcmp(id, id2, 8), 0); /* not a counter in the last digits */
}
END_TEST

/* held lines (the main loop's) wait for svlog_flush, then go out whole and
 * in order; svlog_hold(0) writes each at once again */
START_TEST(test_log_hold)
{
	int p[2], saved = dup(2);
	char buf[512];
	ssize_t n;
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(fcntl(p[0], F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_ge(dup2(p[1], 2), 0);
	svlog_setup(SVLOG_CONSOLE, SVLOG_INFO);
	svlog_hold(1);
	svlog(SVLOG_INFO, "one");
	svlog_hr(SVLOG_INFO, "ns/a", NULL, "two");
	svlog(SVLOG_DEBUG, "not at this level");
	ck_assert_int_lt(read(p[0], buf, sizeof buf), 0);
	svlog_flush();
	n = read(p[0], buf, sizeof buf - 1);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_str_eq(buf, "bulkheadd: one\nbulkheadd: ns/a: two\n");
	/* svlog_flush_due: nothing held; a line held waits until 50 ms old */
	ck_assert_int_eq(svlog_flush_due(), -1);
	svlog(SVLOG_INFO, "four");
	int due = svlog_flush_due();
	ck_assert_int_ge(due, 0);
	ck_assert_int_le(due, 50);
	ck_assert_int_lt(read(p[0], buf, sizeof buf), 0);
	usleep(60 * 1000);
	ck_assert_int_eq(svlog_flush_due(), -1);
	n = read(p[0], buf, sizeof buf - 1);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_str_eq(buf, "bulkheadd: four\n");
	/* an error goes out at once, after the lines held before it */
	svlog(SVLOG_INFO, "five");
	svlog(SVLOG_ERROR, "six");
	n = read(p[0], buf, sizeof buf - 1);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_str_eq(buf, "bulkheadd: five\nbulkheadd: six\n");
	ck_assert_int_eq(svlog_flush_due(), -1);
	svlog_hold(0);
	svlog(SVLOG_INFO, "three");
	n = read(p[0], buf, sizeof buf - 1);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_str_eq(buf, "bulkheadd: three\n");
	dup2(saved, 2);
	close(saved);
	close(p[0]);
	close(p[1]);
}
END_TEST

/* the JSON encoding: zap's fields in Flux's order, strings escaped as Go's
 * encoder does (no HTML escaping), the timestamp ISO 8601 UTC with milliseconds */
static void log_json_check(const char *line, const char *after_ts)
{
	static const char head[] = "{\"level\":\"info\",\"ts\":\"";
	const char *ts = line + strlen(head);
	ck_assert_int_eq(strncmp(line, head, strlen(head)), 0);
	for (int i = 0; i < 24; i++) /* 2026-11-27T02:09:06.123Z */
		ck_assert_msg(ts[i] == "dddd-dd-ddTdd:dd:dd.dddZ"[i] ||
				      ("dddd-dd-ddTdd:dd:dd.dddZ"[i] == 'd' && ts[i] >= '0' && ts[i] <= '9'),
			      "timestamp %.24s", ts);
	ck_assert_str_eq(ts + 24, after_ts);
}

START_TEST(test_log_json)
{
	int p[2], saved = dup(2);
	char buf[1024];
	ssize_t n;
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_ge(dup2(p[1], 2), 0);
	svlog_setup(SVLOG_JSON, SVLOG_INFO);
	svlog_hr(SVLOG_INFO, "ns/a", "r1", "say \"%s\" <%d>", "hi", 7);
	n = read(p[0], buf, sizeof buf - 1);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	log_json_check(buf, "\",\"msg\":\"say \\\"hi\\\" <7>\",\"controller\":\"helmrelease\",\"controllerGroup\":"
			    "\"helm.toolkit.fluxcd.io\",\"controllerKind\":\"HelmRelease\",\"HelmRelease\":{\"name\":\"a\","
			    "\"namespace\":\"ns\"},\"namespace\":\"ns\",\"name\":\"a\",\"reconcileID\":\"r1\"}\n");
	svlog_worker("ns/b", NULL, "line\tone", 8);
	svlog(SVLOG_INFO, "plain");
	n = read(p[0], buf, sizeof buf - 1);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_ptr_nonnull(strchr(buf, '\n'));
	log_json_check(strchr(buf, '\n') + 1, "\",\"msg\":\"plain\"}\n");
	*strchr(buf, '\n') = '\0';
	log_json_check(buf, "\",\"msg\":\"line\\tone\",\"logger\":\"worker\",\"controller\":\"helmrelease\","
			    "\"controllerGroup\":\"helm.toolkit.fluxcd.io\",\"controllerKind\":\"HelmRelease\","
			    "\"HelmRelease\":{\"name\":\"b\",\"namespace\":\"ns\"},\"namespace\":\"ns\",\"name\":\"b\"}");
	svlog_setup(SVLOG_CONSOLE, SVLOG_INFO);
	dup2(saved, 2);
	close(saved);
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(test_leader_decisions)
{
	json_t *held = json_pack("{s:s,s:i,s:i}", "holderIdentity", "other", "leaseDurationSeconds", 15, "leaseTransitions", 2);
	json_t *freed = json_pack("{s:s}", "holderIdentity", "");
	json_t *n;
	ck_assert_int_eq(leader_may_take(NULL, "me", 0, 0, 35), 1);
	ck_assert_int_eq(leader_may_take(freed, "me", 100, 100, 35), 1);
	/* held by another: only once its lease duration passed since we saw it change */
	ck_assert_int_eq(leader_may_take(held, "me", 100, 114.9, 35), 0);
	ck_assert_int_eq(leader_may_take(held, "me", 100, 115, 35), 1);
	n = leader_spec_new(held, "me", "2026-01-01T00:00:00.000000Z", 4);
	ck_assert_str_eq(json_string_value(json_object_get(n, "holderIdentity")), "me");
	ck_assert_int_eq(json_integer_value(json_object_get(n, "leaseTransitions")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(n, "leaseDurationSeconds")), 4);
	ck_assert_str_eq(json_string_value(json_object_get(n, "acquireTime")), "2026-01-01T00:00:00.000000Z");
	ck_assert_int_eq(leader_may_take(n, "me", 0, 1e9, 35), 1); /* our own: always renewable */
	{ /* a renewal keeps acquireTime and the transition count */
		json_t *r = leader_spec_new(n, "me", "2026-01-01T00:00:05.000000Z", 4);
		ck_assert_str_eq(json_string_value(json_object_get(r, "acquireTime")), "2026-01-01T00:00:00.000000Z");
		ck_assert_str_eq(json_string_value(json_object_get(r, "renewTime")), "2026-01-01T00:00:05.000000Z");
		ck_assert_int_eq(json_integer_value(json_object_get(r, "leaseTransitions")), 3);
		json_decref(r);
	}
	json_decref(n);
	n = leader_spec_new(freed, "me", "t", 4); /* taking a released Lease is no transition */
	ck_assert_int_eq(json_integer_value(json_object_get(n, "leaseTransitions")), 0);
	json_decref(n);
	json_decref(held);
	json_decref(freed);
}
END_TEST

/* The scheduling rule of supervisor/sched.h written directly, as a walk of
 * the whole queue described in an array: the reference sched_q is checked
 * against. */
typedef struct sched_item {
	const char *ns;   /* tenant namespace */
	int ready;        /* queued and due now */
	int running;      /* a reconcile of it is running */
	double since;     /* when it became due (earliest first within a namespace) */
} sched_item;

typedef struct sched_state {
	char last_ns[256]; /* namespace served last ("" at first) */
} sched_state;

static unsigned running_in(const sched_item *items, size_t n, const char *ns)
{
	unsigned r = 0;
	for (size_t i = 0; i < n; i++)
		r += items[i].running && !strcmp(items[i].ns, ns);
	return r;
}

/* Index of the item to start next (and remembers its namespace), or -1
 * when nothing may start. cap: running reconciles per namespace (0: no cap). */
static long sched_pick(sched_state *s, const sched_item *items, size_t n, unsigned cap)
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

START_TEST(test_sched_round_robin)
{
	sched_item q[] = {
		{"tenant-a", 1, 0, 3}, {"tenant-a", 1, 0, 1}, {"tenant-a", 1, 0, 2},
		{"tenant-c", 0, 0, 0}, {"tenant-b", 1, 0, 5},
	};
	sched_state st = {""};
	char order[64] = "";
	for (int i = 0; i < 4; i++) {
		long k = sched_pick(&st, q, 5, 0);
		ck_assert_int_ge(k, 0);
		q[k].ready = 0;
		snprintf(order + strlen(order), sizeof order - strlen(order), "%ld ", k);
	}
	/* a's longest waiting, then b's only one, then a's in order of waiting */
	ck_assert_str_eq(order, "1 4 2 0 ");
	ck_assert_int_eq(sched_pick(&st, q, 5, 0), -1);
}
END_TEST

START_TEST(test_sched_cap)
{
	sched_item q[] = {{"a", 0, 1, 0}, {"a", 1, 0, 1}, {"a", 1, 0, 2}, {"b", 1, 0, 9}};
	sched_state st = {""};
	ck_assert_int_eq(sched_pick(&st, q, 4, 1), 3); /* a is at its cap of 1 */
	q[3].ready = 0;
	q[3].running = 1;
	ck_assert_int_eq(sched_pick(&st, q, 4, 1), -1);
	ck_assert_int_eq(sched_pick(&st, q, 4, 2), 1);
	ck_assert_str_eq(st.last_ns, "a");
}
END_TEST

/* sched_q against sched_pick: the same random run of queue, start, finish,
 * requeue, dequeue, removal, namespace change and clock events on a table,
 * the choice of each (every item described to sched_pick) and the next
 * timer compared at every step, and the namespaces sched_q holds counted. */
typedef struct qitem {
	const char *ns;
	int queued, running;
	int known; /* reported to sched_q since it was made */
	double due;
	sched_link l;
} qitem;

#define QMAX 1024
static qitem qt[QMAX];
static size_t qn;

static sched_link *qt_link(void *ud, size_t i)
{
	(void)ud;
	return &qt[i].l;
}

static int qt_waiting(void *ud, size_t i)
{
	(void)ud;
	return qt[i].queued && !qt[i].running;
}

static long ref_pick(sched_state *st, double now, unsigned cap)
{
	sched_item it[QMAX];
	for (size_t i = 0; i < qn; i++)
		it[i] = (sched_item){qt[i].ns, qt[i].queued && !qt[i].running && qt[i].due <= now, qt[i].running, qt[i].due};
	return sched_pick(st, it, qn, cap);
}

static double ref_next(double now)
{
	double t = HUGE_VAL;
	for (size_t i = 0; i < qn; i++)
		if (qt[i].queued && !qt[i].running && qt[i].due > now && qt[i].due < t)
			t = qt[i].due;
	return t;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* How many namespaces the items reported to sched_q name, told apart by name. */
static size_t ref_namespaces(void)
{
	const char *n[QMAX];
	size_t k = 0, d = 0;
	for (size_t i = 0; i < qn; i++)
		if (qt[i].known)
			n[k++] = qt[i].ns;
	qsort(n, k, sizeof *n, name_cmp);
	for (size_t j = 0; j < k; j++)
		d += !j || strcmp(n[j], n[j - 1]) != 0;
	return d;
}

/* Times a same_choice_run step ended with fewer namespaces held. */
static unsigned long ns_left;

/* Item i leaves the table: the last moves into its place. */
static void qt_remove(sched_q *q, size_t i)
{
	sched_q_remove(q, i);
	qt[i] = qt[--qn];
	if (i != qn)
		sched_q_moved(q, i);
}

/* One random run of `steps` events over items of namespaces names[0..nnames)
 * (prefill items made at first, in a random order of namespaces), both
 * schedulers compared at every pick and timer, and sched_q's namespaces
 * counted after every step; the number of picks. window 0: a new item's
 * namespace any of names; else one of `window` after the (n / 2)th for
 * the nth new item, and more removals (of running items too): namespaces
 * come, and go with their last item. */
static unsigned long same_choice_run(const char *const *names, size_t nnames, size_t prefill, int steps, unsigned cap,
				     size_t window)
{
	static const double in[] = {0, 0, 0, 1, 2.5, 5};
	sched_q q = SCHED_Q_INIT(qt_link, qt_waiting, NULL);
	sched_state st = {""};
	unsigned long picks = 0;
	size_t made = 0, held = 0;
	double now = 100;
	qn = 0;
	for (int step = 0; step < steps; step++) {
		long r = qn < prefill ? 0 : random() % (window ? 20 : 17), i = qn ? random() % (long)qn : -1;
		if (r < 2 && qn < QMAX) { /* a new item */
			memset(&qt[qn], 0, sizeof qt[qn]);
			if (window)
				qt[qn].ns = names[(made++ / 2 + (size_t)random() % window) % nnames];
			else
				qt[qn].ns = names[(size_t)random() % nnames];
			qn++;
		} else if (r < 5 && i >= 0) { /* queued (again), maybe while running */
			qt[i].queued = 1;
			qt[i].known = 1;
			qt[i].due = now + in[random() % 6];
			ck_assert_int_eq(sched_q_queue(&q, (size_t)i, qt[i].ns, qt[i].due), 0);
		} else if (r < 9) { /* the loop starts what it may */
			long a = ref_pick(&st, now, cap), b = sched_q_pick(&q, now, cap);
			ck_assert_int_eq(a, b);
			if (b >= 0) {
				qt[b].queued = 0;
				qt[b].running = 1;
				ck_assert_int_eq(sched_q_running(&q, (size_t)b, qt[b].ns, 1), 0); /* queued: known */
				picks++;
			}
		} else if (r < 11 && i >= 0 && qt[i].running) { /* its job ends */
			qt[i].running = 0;
			ck_assert_int_eq(sched_q_running(&q, (size_t)i, qt[i].ns, 0), 0);
			if (qt[i].queued)
				ck_assert_int_eq(sched_q_wait(&q, (size_t)i, qt[i].ns), 0);
		} else if (r < 12 && i >= 0 && !qt[i].running) { /* dequeued without a job */
			qt[i].queued = 0;
		} else if (r < 13 && i >= 0 && !qt[i].running) { /* removed: the last moves in */
			qt_remove(&q, (size_t)i);
		} else if (r < 15) {
			now += (r == 13 ? 0.5 : 1);
		} else if (r < 16) {
			double t = ref_next(now);
			ck_assert(sched_q_next(&q, now) == t);
		} else if (r < 17 && i >= 0) { /* reported with another namespace: it moves there */
			qt[i].ns = names[(size_t)random() % nnames];
			if (qt[i].known)
				ck_assert_int_eq(sched_q_running(&q, (size_t)i, qt[i].ns, qt[i].running), 0);
		} else if (i >= 0) { /* removed, running or not */
			qt_remove(&q, (size_t)i);
		}
		ck_assert_uint_eq(q.nns, ref_namespaces());
		ns_left += q.nns < held;
		held = q.nns;
	}
	sched_q_free(&q);
	return picks;
}

START_TEST(test_sched_q_same_choice)
{
	static const char *const names[] = {"", "b", "a", "tenant-2", "c", "tenant-10"};
	unsigned long picks = 0;
	srandom(14);
	for (int run = 0; run < 200; run++)
		picks += same_choice_run(names, 6, 0, 400, (unsigned)(run % 3), 0);
	ck_assert_uint_gt(picks, 3000); /* the runs started things */
}
END_TEST

/* names[k] = buf[k] = "<prefix>k", but "" for k = 0. */
static void ns_names(char (*buf)[16], const char **names, int n, const char *prefix)
{
	for (int k = 0; k < n; k++) {
		snprintf(buf[k], sizeof buf[k], "%s%d", prefix, k);
		names[k] = k ? buf[k] : "";
	}
}

/* The same with one HelmRelease or a few per tenant: 300 namespaces (their
 * tree grows while items come, names first seen in a random order), about
 * two items each, with and without a cap. */
START_TEST(test_sched_q_same_choice_many_ns)
{
	static char buf[300][16];
	const char *names[300];
	unsigned long picks = 0;
	ns_names(buf, names, 300, "tenant-");
	srandom(1000);
	for (int run = 0; run < 6; run++)
		picks += same_choice_run(names, 300, 600, 6000, (unsigned)(run % 3), 0);
	ck_assert_uint_gt(picks, 2500); /* the runs started things */
}
END_TEST

/* Namespaces that come and go (one per preview environment): new items
 * name a few namespaces further on as the run goes, old ones lose their
 * last item and leave; sched_q holds only those named, picks as the rule
 * does, and goes on after one served last that left. */
START_TEST(test_sched_q_ns_churn)
{
	static char buf[2000][16];
	const char *names[2000];
	unsigned long picks = 0;
	ns_names(buf, names, 2000, "pr-");
	srandom(77);
	ns_left = 0;
	for (int run = 0; run < 60; run++)
		picks += same_choice_run(names, 2000, run % 2 ? 40 : 0, 2000, (unsigned)(run % 3), (size_t)(2 + run % 7));
	ck_assert_uint_gt(picks, 3000); /* the runs started things */
	ck_assert_uint_gt(ns_left, 4000); /* and namespaces left */
}
END_TEST

/* A namespace whose last HelmRelease is deleted is no longer held; one of
 * the same name later is new, and the round-robin goes on after the name
 * served last even when that one left. */
START_TEST(test_sched_q_ns_leaves)
{
	static const char *const ns[] = {"a", "b", "c"};
	sched_q q = SCHED_Q_INIT(qt_link, qt_waiting, NULL);
	qn = 0;
	for (size_t i = 0; i < 3; i++) {
		qt[qn++] = (qitem){.ns = ns[i], .queued = 1, .known = 1};
		ck_assert_int_eq(sched_q_queue(&q, i, ns[i], 0), 0);
	}
	ck_assert_uint_eq(q.nns, 3);
	ck_assert_int_eq(sched_q_pick(&q, 1, 0), 0); /* a */
	qt[0].queued = 0;
	qt[0].running = 1;
	ck_assert_int_eq(sched_q_running(&q, 0, "a", 1), 0);
	qt_remove(&q, 1); /* b's last item: c's moves to 1 */
	ck_assert_uint_eq(q.nns, 2);
	ck_assert_int_eq(sched_q_pick(&q, 1, 0), 1); /* c */
	qt[1].queued = 0;
	qt_remove(&q, 1); /* c, served last, leaves */
	ck_assert_uint_eq(q.nns, 1);
	ck_assert_int_eq(sched_q_pick(&q, 1, 0), -1);
	/* new items in b, d and c again: after c comes d, then the wrap */
	for (size_t i = 0; i < 3; i++) {
		static const char *const again[] = {"b", "d", "c"};
		qt[qn] = (qitem){.ns = again[i], .queued = 1, .known = 1};
		ck_assert_int_eq(sched_q_queue(&q, qn, again[i], 0), 0);
		qn++;
	}
	ck_assert_uint_eq(q.nns, 4);
	for (size_t k = 0; k < 3; k++) {
		static const long want[] = {2, 1, 3}; /* d, b, c */
		ck_assert_int_eq(sched_q_pick(&q, 1, 0), want[k]);
		qt[want[k]].queued = 0;
	}
	ck_assert_int_eq(sched_q_pick(&q, 1, 0), -1);
	while (qn)
		qt_remove(&q, qn - 1);
	ck_assert_uint_eq(q.nns, 0);
	sched_q_free(&q);
}
END_TEST

/* 100000 namespaces, each with one item at a time of 50: the ones held
 * (and the room for them) stay bounded by the items, not by the
 * namespaces ever seen. */
START_TEST(test_sched_q_ns_bounded)
{
	sched_q q = SCHED_Q_INIT(qt_link, qt_waiting, NULL);
	static char name[50][16];
	size_t most = 0, mostcap = 0;
	qn = 0;
	for (size_t k = 0; k < 100000; k++) {
		const char *ns = name[k % 50];
		long p;
		for (size_t i = 0; i < qn; i++)
			if (qt[i].ns == ns) { /* the item of 50 namespaces ago */
				qt_remove(&q, i);
				break;
			}
		snprintf(name[k % 50], sizeof name[k % 50], "pr-%zu", k);
		qt[qn] = (qitem){.ns = ns, .queued = 1, .known = 1, .due = (double)k};
		ck_assert_int_eq(sched_q_queue(&q, qn, ns, (double)k), 0);
		qn++;
		if ((p = sched_q_pick(&q, (double)k, 1)) >= 0) {
			qt[p].queued = 0;
			ck_assert_int_eq(sched_q_running(&q, (size_t)p, qt[p].ns, k % 3 == 0), 0);
			qt[p].running = k % 3 == 0;
		}
		most = q.nns > most ? q.nns : most;
		mostcap = q.nscap > mostcap ? q.nscap : mostcap;
	}
	ck_assert_uint_eq(q.nns, 50);
	ck_assert_uint_le(most, 50);
	ck_assert_uint_le(mostcap, 64);
	while (qn)
		qt_remove(&q, 0);
	ck_assert_uint_eq(q.nns, 0);
	ck_assert_uint_le(q.nscap, 16); /* halved as they left */
	sched_q_free(&q);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ops");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_labels);
	tcase_add_test(tc, test_render);
	tcase_add_test(tc, test_many_series);
	tcase_add_test(tc, test_death_cause);
	tcase_add_test(tc, test_log_options);
	tcase_add_test(tc, test_log_hold);
	tcase_add_test(tc, test_log_json);
	tcase_add_test(tc, test_leader_decisions);
	tcase_add_test(tc, test_sched_round_robin);
	tcase_add_test(tc, test_sched_cap);
	tcase_add_test(tc, test_sched_q_same_choice);
	tcase_add_test(tc, test_sched_q_same_choice_many_ns);
	tcase_add_test(tc, test_sched_q_ns_churn);
	tcase_add_test(tc, test_sched_q_ns_leaves);
	tcase_add_test(tc, test_sched_q_ns_bounded);
	tcase_set_timeout(tc, 30); /* sched_pick's walk of ~600 items per pick, under ASan */
	suite_add_tcase(s, tc);
	return unit_run(s);
}
