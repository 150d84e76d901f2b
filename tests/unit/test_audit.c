/* tests/unit/test_audit.c — supervisor/audit.c: records and their schema,
 * failing closed (a record that cannot be written is an error), reopening,
 * size rotation with a bounded number of backups, sizes, and writes from
 * several threads made durable by shared syncs (audit_write, audit_sync),
 * outcomes and reads' intents made durable by the next sync
 * (audit_write_outcome, audit_settle) or the sync thread's within a second. */
#include <check.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "supervisor/audit.h"
#include "tests/unit/unit_util.h"

static char dir[64], logp[128];

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/bh-audit.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(logp, sizeof logp, "%s/audit.log", dir);
}

static void teardown(void)
{
	char cmd[128];
	audit_close();
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static int rec(const char *phase, unsigned long long id, bh_error *e)
{
	audit_rec r = {phase, id, "team-a/web", "system:serviceaccount:team-a:deployer", "get",
		       "/api/v1/namespaces/team-a/configmaps/x", 200, 1.5, NULL};
	return audit_record(&r, e);
}

/* Lines of file f (0 when absent); *first gets the counter of the first id. */
static int lines(const char *f, unsigned long long *first)
{
	FILE *fp = fopen(f, "r");
	char buf[2048];
	int n = 0;
	if (!fp)
		return 0;
	while (fgets(buf, sizeof buf, fp)) {
		json_error_t je;
		json_t *o = json_loads(buf, 0, &je);
		ck_assert_msg(o != NULL, "%s: not JSON: %s", f, buf);
		const char *id = json_string_value(json_object_get(o, "id"));
		ck_assert_ptr_nonnull(id);
		if (n++ == 0 && first)
			*first = strtoull(strrchr(id, '-') + 1, NULL, 10);
		json_decref(o);
	}
	fclose(fp);
	return n;
}

START_TEST(test_schema)
{
	bh_error e;
	audit_opts o = {logp, "https://10.0.0.1:443", 0, 0};
	char buf[1024];
	ck_assert_int_eq(audit_open(&o, &e), 0);
	unsigned long long id = audit_next_id();
	ck_assert_int_eq(rec("intent", id, &e), 0);
	ck_assert_int_eq(rec("outcome", id, &e), 0);
	audit_rec v = {"violation", 0, "team-a/web", NULL, "invalid", "", 0, 0, "unknown message type 9"};
	ck_assert_int_eq(audit_record(&v, &e), 0);
	FILE *f = fopen(logp, "r");
	ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
	ck_assert_msg(strstr(buf, "\",\"phase\":\"intent\",\"cluster\":\"https://10.0.0.1:443\",\"helmRelease\":\"team-a/web\","
				  "\"identity\":\"system:serviceaccount:team-a:deployer\",\"verb\":\"get\","
				  "\"path\":\"/api/v1/namespaces/team-a/configmaps/x\"}\n"),
		      "%s", buf);
	char id1[64];
	ck_assert_int_eq(sscanf(strstr(buf, "\"id\":\""), "\"id\":\"%63[^\"]", id1), 1);
	ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
	ck_assert_msg(strstr(buf, id1) && strstr(buf, "\"phase\":\"outcome\"") && strstr(buf, "\"status\":200,\"durationMs\":1.5}"),
		      "%s", buf);
	ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
	ck_assert_msg(strstr(buf, "\"phase\":\"violation\"") && strstr(buf, "\"identity\":\"(controller)\",\"verb\":\"invalid\"") &&
			      strstr(buf, "\"refused\":\"unknown message type 9\"") && !strstr(buf, "\"id\""),
		      "%s", buf);
	fclose(f);
}
END_TEST

/* The record's "time" (RFC 3339, UTC, microseconds: 2026-11-27T05:17:55.123456Z)
 * into out (27 characters and a NUL). */
static void time_of(const char *line, char out[28])
{
	const char *t = strstr(line, "{\"time\":\"");
	ck_assert_ptr_nonnull(t);
	t += 9;
	ck_assert_msg(strlen(t) > 27 && t[27] == '"', "%s", line);
	memcpy(out, t, 27);
	out[27] = '\0';
	for (int i = 0; i < 27; i++) {
		char c = out[i];
		int digit = c >= '0' && c <= '9';
		switch (i) {
		case 4: case 7: ck_assert_msg(c == '-', "%s", out); break;
		case 10: ck_assert_msg(c == 'T', "%s", out); break;
		case 13: case 16: ck_assert_msg(c == ':', "%s", out); break;
		case 19: ck_assert_msg(c == '.', "%s", out); break;
		case 26: ck_assert_msg(c == 'Z', "%s", out); break;
		default: ck_assert_msg(digit, "%s", out);
		}
	}
}

/* The wall clock's second as the log's times read it: time(2) is the
 * coarse clock, which may still show the last second for a tick after
 * CLOCK_REALTIME moved on. */
static time_t realtime_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec;
}

/* Each record has its own time, to the microsecond and of its second (the
 * date and time to the second are formatted once per second and kept), and
 * an id of the process's instance and the number given. */
START_TEST(test_time_and_id)
{
	bh_error e;
	audit_opts o = {logp, "https://10.0.0.1:443", 0, 0};
	char buf[1024], t1[28], t2[28], t3[28], want[32];
	ck_assert_int_eq(audit_open(&o, &e), 0);
	time_t now = realtime_s(), then;
	ck_assert_int_eq(rec("intent", 4294967301ULL, &e), 0);
	ck_assert_int_eq(rec("outcome", 4294967301ULL, &e), 0);
	/* the second after the records' (they may be in the second after now's) */
	then = realtime_s();
	while (realtime_s() == then)
		usleep(20000);
	ck_assert_int_eq(rec("intent", 10, &e), 0);
	FILE *f = fopen(logp, "r");
	ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
	time_of(buf, t1);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%S", &tm);
	ck_assert_msg(strncmp(t1, want, 19) >= 0, "%s before %s", t1, want);
	char inst[17], *dash = strstr(buf, "\"id\":\"");
	ck_assert_ptr_nonnull(dash);
	ck_assert_int_eq(sscanf(dash, "\"id\":\"%16[0-9a-f]-", inst), 1);
	ck_assert_int_eq(strlen(inst), 16);
	snprintf(want, sizeof want, "%s-4294967301\"", inst);
	ck_assert_msg(strstr(buf, want) != NULL, "%s", buf);
	ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
	time_of(buf, t2);
	ck_assert_msg(strstr(buf, want) != NULL, "%s", buf);
	ck_assert_msg(strcmp(t2, t1) >= 0, "%s then %s", t1, t2);
	ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
	time_of(buf, t3);
	ck_assert_msg(strncmp(t3, t1, 19) > 0, "a second later, still %s (first %s)", t3, t1);
	snprintf(want, sizeof want, "%s-10\"", inst);
	ck_assert_msg(strstr(buf, want) != NULL, "%s", buf);
	fclose(f);
}
END_TEST

/* Records are written without a JSON library: what a worker sent (a path,
 * a refusal) is escaped, invalid UTF-8 becomes U+FFFD, durationMs stays a
 * real, and the line parses back to the same strings. */
START_TEST(test_escaping)
{
	bh_error e;
	audit_opts o = {logp, "https://10.0.0.1:443", 0, 0};
	char buf[2048];
	const char *path = "/api/v1/namespaces/a\"b\\c/x\n\t\x01<&>\xc3\xa9", *why = "bad \xff byte";
	ck_assert_int_eq(audit_open(&o, &e), 0);
	audit_rec r = {"refused", 7, "team-a/web", "u", "get", path, 403, 0, why};
	ck_assert_int_eq(audit_record(&r, &e), 0);
	audit_rec out = {"outcome", 8, "team-a/web", "u", "get", "/x", 200, 12.0, NULL};
	ck_assert_int_eq(audit_record(&out, &e), 0);
	audit_rec big = {"outcome", 9, "team-a/web", "u", "get", "/x", 0, 1234.56789, "timed out"};
	ck_assert_int_eq(audit_record(&big, &e), 0);
	FILE *f = fopen(logp, "r");
	ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
	ck_assert_msg(strstr(buf, "\"path\":\"/api/v1/namespaces/a\\\"b\\\\c/x\\n\\t\\u0001<&>\xc3\xa9\"") &&
			      strstr(buf, "\"status\":403,\"refused\":\"bad \\ufffd byte\"}\n"),
		      "%s", buf);
	json_error_t je;
	json_t *j = json_loads(buf, 0, &je);
	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(json_string_value(json_object_get(j, "path")), path);
	json_decref(j);
	ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
	ck_assert_msg(strstr(buf, "\"status\":200,\"durationMs\":12.0}\n"), "%s", buf);
	ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
	ck_assert_msg(strstr(buf, "\"status\":0,\"durationMs\":1234.57,\"error\":\"timed out\"}\n"), "%s", buf);
	fclose(f);
}
END_TEST

START_TEST(test_fails_closed)
{
	bh_error e;
	audit_opts o = {"/dev/full", "in", 0, 0};
	ck_assert_int_eq(audit_open(&o, &e), 0);
	ck_assert_int_eq(rec("intent", audit_next_id(), &e), BH_EIO);
	ck_assert_str_eq(e.msg, "audit log /dev/full: cannot write: No space left on device");
	/* a log that cannot be reopened refuses records until it can */
	o.path = logp;
	ck_assert_int_eq(audit_open(&o, &e), 0);
	ck_assert_int_eq(unlink(logp), 0);
	ck_assert_int_eq(rmdir(dir), 0);
	ck_assert_int_eq(audit_reopen(&e), BH_EIO);
	ck_assert_msg(strstr(e.msg, "cannot open: No such file or directory"), "%s", e.msg);
	ck_assert_int_eq(rec("intent", audit_next_id(), &e), BH_EIO);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	ck_assert_int_eq(rec("intent", audit_next_id(), &e), 0);
	ck_assert_int_eq(lines(logp, NULL), 1);
	/* no log configured: nothing to fail */
	audit_close();
	ck_assert_int_eq(rec("intent", 1, &e), 0);
}
END_TEST

/* One forwarding thread's share: write an intent, wait for it to be durable. */
static void *writer(void *arg)
{
	bh_error e;
	(void)arg;
	for (int i = 0; i < 50; i++) {
		audit_rec r = {"intent", audit_next_id(), "team-a/web", NULL, "patch", "/api/v1/namespaces/team-a/pods/p", 0, 0, NULL};
		unsigned long long seq = 0;
		if (audit_write(&r, &seq, &e) < 0 || seq == 0 || audit_sync(seq, &e) < 0)
			return (void *)1;
	}
	return NULL;
}

START_TEST(test_group_commit)
{
	bh_error e;
	audit_opts o = {logp, "in", 16 * 1024, 10}; /* rotations while threads sync */
	pthread_t th[4];
	void *rc;
	unsigned long long seq = 7;
	ck_assert_int_eq(audit_open(&o, &e), 0);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, writer, NULL), 0);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(pthread_join(th[i], &rc), 0);
		ck_assert_ptr_null(rc);
	}
	ck_assert_int_eq(audit_sync(0, &e), 0); /* nothing to wait for */
	{ /* every record once, across the rotated files */
		int n = lines(logp, NULL);
		for (int i = 1; i <= 10; i++) {
			char p[160];
			snprintf(p, sizeof p, "%s.%d", logp, i);
			n += lines(p, NULL);
		}
		ck_assert_int_eq(n, 200);
	}
	/* no log: nothing written, nothing to wait for */
	audit_close();
	audit_rec r = {"intent", 1, "team-a/web", NULL, "get", "/api", 0, 0, NULL};
	ck_assert_int_eq(audit_write(&r, &seq, &e), 0);
	ck_assert_int_eq(seq, 0);
}
END_TEST

START_TEST(test_reopen)
{
	bh_error e;
	char moved[160];
	audit_opts o = {logp, "in", 0, 0};
	ck_assert_int_eq(audit_open(&o, &e), 0);
	ck_assert_int_eq(rec("intent", audit_next_id(), &e), 0);
	snprintf(moved, sizeof moved, "%s.moved", logp);
	ck_assert_int_eq(rename(logp, moved), 0);
	ck_assert_int_eq(rec("intent", audit_next_id(), &e), 0); /* still the open file */
	ck_assert_int_eq(audit_reopen(&e), 0);
	ck_assert_int_eq(rec("intent", audit_next_id(), &e), 0);
	ck_assert_int_eq(lines(moved, NULL), 2);
	ck_assert_int_eq(lines(logp, NULL), 1);
}
END_TEST

START_TEST(test_rotation)
{
	bh_error e;
	char f[160];
	struct stat st;
	audit_opts o = {logp, "https://x", 1000, 3};
	ck_assert_int_eq(audit_open(&o, &e), 0);
	unsigned long long last = 0;
	for (int i = 0; i < 40; i++)
		ck_assert_int_eq(rec("intent", last = audit_next_id(), &e), 0);
	/* PATH.3 (oldest kept) .. PATH.1, PATH: consecutive ids ending at the last */
	unsigned long long next = 0, first;
	int total = 0;
	for (int k = 3; k >= 0; k--) {
		if (k)
			snprintf(f, sizeof f, "%s.%d", logp, k);
		else
			snprintf(f, sizeof f, "%s", logp);
		int n = lines(f, &first);
		ck_assert_msg(n > 0, "%s is empty or missing", f);
		ck_assert_int_eq(stat(f, &st), 0);
		ck_assert_int_le(st.st_size, 1000);
		if (next)
			ck_assert_int_eq(first, next);
		next = first + (unsigned long long)n;
		total += n;
	}
	ck_assert_int_eq(next, last + 1);
	ck_assert_int_lt(total, 40); /* older files went: only 3 backups */
	snprintf(f, sizeof f, "%s.4", logp);
	ck_assert_int_ne(stat(f, &st), 0);
	/* without backups the old file is removed */
	o.max_backups = 0;
	ck_assert_int_eq(audit_open(&o, &e), 0);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(rec("intent", audit_next_id(), &e), 0);
	ck_assert_int_eq(stat(logp, &st), 0);
	ck_assert_int_le(st.st_size, 1000);
}
END_TEST

/* Waits up to 15 s for every record written to be durable; 1 when they are. */
static int settled_soon(void)
{
	for (int i = 0; i < 300 && audit_unsynced(); i++)
		usleep(50000);
	return !audit_unsynced();
}

static void on_sync(void *ud)
{
	__atomic_store_n((int *)ud, 1, __ATOMIC_SEQ_CST);
}

/* An outcome is written at once and made durable by the next sync (an
 * intent's, or audit_settle), not on its own. */
START_TEST(test_outcome_settles)
{
	bh_error e;
	audit_opts o = {logp, "in", 0, 0};
	audit_rec out = {"outcome", 1, "team-a/web", NULL, "get", "/api", 200, 1.0, NULL};
	audit_rec in = {"intent", 2, "team-a/web", NULL, "create", "/api/v1/namespaces/team-a/configmaps", 0, 0, NULL};
	unsigned long long seq;
	ck_assert_int_eq(audit_open(&o, &e), 0);
	ck_assert_int_eq(audit_unsynced(), 0);
	ck_assert_int_eq(audit_write_outcome(&out, &e), 0);
	ck_assert_int_eq(lines(logp, NULL), 1); /* written at once */
	ck_assert_int_eq(audit_unsynced(), 1);
	ck_assert_int_eq(audit_write(&in, &seq, &e), 0);
	ck_assert_int_eq(audit_sync(seq, &e), 0); /* the next intent's sync covers it */
	ck_assert_int_eq(audit_unsynced(), 0);
	ck_assert_int_eq(audit_write_outcome(&out, &e), 0);
	ck_assert_int_eq(audit_unsynced(), 1);
	ck_assert_int_eq(audit_settle(&e), 0);
	ck_assert_int_eq(audit_unsynced(), 0);
	ck_assert_int_eq(audit_settle(&e), 0); /* nothing to do */
	ck_assert_int_eq(lines(logp, NULL), 3);
}
END_TEST

/* A read's intent (get, list, watch) is written and not waited for: seq 0,
 * durable with the next mutation's sync, or the sync thread's when nothing
 * follows; a mutation's intent and a GET of a connect subresource are. */
START_TEST(test_read_intent)
{
	bh_error e;
	audit_opts o = {logp, "in", 0, 0};
	static const char *const reads[][2] = {{"get", "/api/v1/namespaces/team-a/secrets/s"},
					       {"list", "/api/v1/namespaces/team-a/configmaps"},
					       {"watch", "/api/v1/namespaces/team-a/pods?watch=1"}};
	audit_rec mut = {"intent", 9, "team-a/web", NULL, "update", "/api/v1/namespaces/team-a/configmaps/x", 0, 0, NULL};
	audit_rec exec = {"intent", 10, "team-a/web", NULL, "get", "/api/v1/namespaces/team-a/pods/p/exec", 0, 0, NULL};
	unsigned long long seq = 7;
	ck_assert_int_eq(audit_open(&o, &e), 0);
	for (int i = 0; i < 3; i++) {
		audit_rec r = {"intent", (unsigned long long)i + 1, "team-a/web", NULL, reads[i][0], reads[i][1], 0, 0, NULL};
		ck_assert_int_eq(audit_write(&r, &seq, &e), 0);
		ck_assert_msg(seq == 0, "%s: seq %llu", reads[i][0], seq);
	}
	ck_assert_int_eq(lines(logp, NULL), 3); /* written before they go */
	ck_assert_int_eq(audit_unsynced(), 1);
	ck_assert_int_eq(audit_write(&mut, &seq, &e), 0);
	ck_assert_uint_gt(seq, 0);
	ck_assert_int_eq(audit_sync(seq, &e), 0); /* and covers the reads before it */
	ck_assert_int_eq(audit_unsynced(), 0);
	unsigned long long mseq = seq;
	ck_assert_int_eq(audit_write(&exec, &seq, &e), 0);
	ck_assert_uint_eq(seq, mseq + 1);
	ck_assert_int_eq(audit_sync(seq, &e), 0);
	/* a read nothing follows: the sync thread settles it */
	audit_rec last = {"intent", 11, "team-a/web", NULL, "get", "/api/v1/namespaces/team-a/secrets/s", 0, 0, NULL};
	ck_assert_int_eq(audit_write(&last, &seq, &e), 0);
	ck_assert_uint_eq(seq, 0);
	ck_assert(settled_soon());
	/* audit_record of a read's intent returns once it is written */
	ck_assert_int_eq(audit_record(&last, &e), 0);
	ck_assert_int_eq(lines(logp, NULL), 7);
}
END_TEST

/* The sync thread settles an outcome written after its sync without being
 * woken for it (its clock runs for a second after each sync), and one
 * written after a second of nothing (it is woken, and sets its clock). */
START_TEST(test_sync_thread_settles)
{
	bh_error e;
	audit_opts o = {logp, "in", 0, 0};
	audit_rec in = {"intent", 1, "team-a/web", NULL, "create", "/api/v1/namespaces/team-a/configmaps", 0, 0, NULL};
	audit_rec out = {"outcome", 1, "team-a/web", NULL, "create", "/api/v1/namespaces/team-a/configmaps", 201, 1.0, NULL};
	unsigned long long seq;
	int done = 0;
	ck_assert_int_eq(audit_open(&o, &e), 0);
	ck_assert_int_eq(audit_write(&in, &seq, &e), 0);
	ck_assert_int_eq(audit_sync_async(on_sync, &done, &e), 0);
	for (int i = 0; i < 300 && !__atomic_load_n(&done, __ATOMIC_SEQ_CST); i++)
		usleep(50000);
	ck_assert_int_eq(audit_durable(seq, &e), 1);
	ck_assert_int_eq(audit_write_outcome(&out, &e), 0); /* right after the thread's sync */
	ck_assert_int_eq(audit_unsynced(), 1);
	ck_assert_msg(settled_soon(), "an outcome written after the sync thread's sync is never synced");
	usleep(1500000); /* a second after that sync with nothing new: the thread waits without its clock */
	ck_assert_int_eq(audit_write_outcome(&out, &e), 0);
	ck_assert_msg(settled_soon(), "an outcome written while the sync thread is idle is never synced");
	ck_assert_int_eq(lines(logp, NULL), 3);
}
END_TEST

/* durationMs: milliseconds to the microsecond, as "%.6g" prints them,
 * always a real: under a second and beyond. */
START_TEST(test_duration)
{
	bh_error e;
	audit_opts o = {logp, "in", 0, 0};
	static const double ms[] = {0, 0.0004, 0.001, 0.5, 1, 1.5, 3.25, 12, 12.0009, 99.999, 100.1, 999.999, 999.9999,
				    1000, 1000.5, 1234.56789, 99999.9, 123456.789, 1e6, 2.5e7};
	char buf[1024];
	FILE *f;
	ck_assert_int_eq(audit_open(&o, &e), 0);
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
		audit_rec r = {"outcome", i + 1, "team-a/web", NULL, "get", "/x", 200, ms[i], NULL};
		ck_assert_int_eq(audit_record(&r, &e), 0);
	}
	ck_assert_ptr_nonnull(f = fopen(logp, "r"));
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
		char want[64], *at;
		int n = snprintf(want, sizeof want, "\"durationMs\":%.6g", (double)(long long)(ms[i] * 1000) / 1000.0);
		if (!strpbrk(want + 13, ".e"))
			snprintf(want + n, sizeof want - (size_t)n, ".0");
		ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
		ck_assert_msg((at = strstr(buf, want)) && at[strlen(want)] == '}', "%g ms: want %s in %s", ms[i], want, buf);
	}
	fclose(f);
}
END_TEST

START_TEST(test_sizes)
{
	unsigned long long v;
	ck_assert_int_eq(audit_parse_size("4096", &v), 0);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(audit_parse_size("100Mi", &v), 0);
	ck_assert_uint_eq(v, 100ULL << 20);
	ck_assert_int_eq(audit_parse_size("10M", &v), 0);
	ck_assert_uint_eq(v, 10000000ULL);
	ck_assert_int_eq(audit_parse_size("2Gi", &v), 0);
	ck_assert_uint_eq(v, 2ULL << 30);
	ck_assert_int_eq(audit_parse_size("0", &v), 0);
	ck_assert_uint_eq(v, 0);
	static const char *const bad[] = {"", "-1", "10MB", "1.5Mi", "Mi", "99999999999999999999", "18446744073709551615Ki"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(audit_parse_size(bad[i], &v) == -1, "%s accepted", bad[i]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("audit");
	TCase *tc = tcase_create("audit");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30); /* the sync thread's second, waited for (test_sync_thread_settles) */
	tcase_add_test(tc, test_schema);
	tcase_add_test(tc, test_time_and_id);
	tcase_add_test(tc, test_escaping);
	tcase_add_test(tc, test_fails_closed);
	tcase_add_test(tc, test_reopen);
	tcase_add_test(tc, test_rotation);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_group_commit);
	tcase_add_test(tc, test_outcome_settles);
	tcase_add_test(tc, test_read_intent);
	tcase_add_test(tc, test_sync_thread_settles);
	tcase_add_test(tc, test_duration);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
