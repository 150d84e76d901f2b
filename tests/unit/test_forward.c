/* tests/unit/test_forward.c — supervisor/forward.c against a loopback API
 * server: a request leaves only once its intent record is durable (the
 * audit log's syncs are held here, by this program's own fdatasync, and
 * the server checks each request's record when it arrives; a read, a
 * worker's watch, goes without waiting: audit.h), a failed sync
 * means the request is never sent and its answer says why, and a slow
 * request does not hold back one sent after it. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kube/config.h"
#include "supervisor/audit.h"
#include "supervisor/broker_watch.h"
#include "supervisor/forward.h"
#include "tests/unit/unit_util.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

/* ---- the audit log's syncs, held or failed at will ------------------------ */
static int hold_syncs, fail_syncs, syncs_begun;

/* Replaces libc's for the audit log: waits while syncs are held. */
int fdatasync(int fd)
{
	int fail;
	pthread_mutex_lock(&mu);
	syncs_begun++;
	pthread_cond_broadcast(&cv);
	while (hold_syncs)
		pthread_cond_wait(&cv, &mu);
	fail = fail_syncs;
	pthread_mutex_unlock(&mu);
	if (fail) {
		errno = EIO;
		return -1;
	}
	return (int)syscall(SYS_fdatasync, fd);
}

/* ---- a loopback API server ---------------------------------------------- */
#define MAXSEEN 16
static struct {
	char path[128];
	unsigned long long seq; /* its intent record */
} expect[MAXSEEN];
static int nexpect;
static char seen[MAXSEEN][128];
static int nseen, early; /* requests received; of them, before their record was durable */
static int slow_held = 1, slow_waiting;
static int lfd = -1, lport;

static void *conn_main(void *arg)
{
	int c = (int)(long)arg;
	char buf[8192];
	size_t n = 0;
	for (;;) {
		char *end, path[128] = "", *cl;
		size_t head, body = 0;
		ssize_t r;
		while (!(end = (n ? strstr(buf, "\r\n\r\n") : NULL))) {
			if (n == sizeof buf - 1 || (r = read(c, buf + n, sizeof buf - 1 - n)) <= 0) {
				close(c);
				return NULL;
			}
			n += (size_t)r;
			buf[n] = '\0';
		}
		head = (size_t)(end - buf) + 4;
		if ((cl = strcasestr(buf, "Content-Length:")) && cl < end)
			body = strtoul(cl + 15, NULL, 10);
		while (n < head + body && (r = read(c, buf + n, sizeof buf - 1 - n)) > 0)
			n += (size_t)r;
		sscanf(buf, "%*s %127s", path);
		memmove(buf, buf + head + body, n - head - body);
		n -= head + body;
		buf[n] = '\0';
		pthread_mutex_lock(&mu);
		for (int i = 0; i < nexpect; i++)
			if (!strcmp(expect[i].path, path) && audit_durable(expect[i].seq, NULL) != 1)
				early++;
		if (nseen < MAXSEEN)
			snprintf(seen[nseen++], sizeof seen[0], "%s", path);
		pthread_cond_broadcast(&cv);
		if (strstr(path, "slow")) {
			slow_waiting = 1;
			pthread_cond_broadcast(&cv);
			while (slow_held)
				pthread_cond_wait(&cv, &mu);
		}
		pthread_mutex_unlock(&mu);
		static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
		if (write(c, ok, sizeof ok - 1) < 0) {
			close(c);
			return NULL;
		}
	}
}

static void *listener(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_t th;
		int c = accept(lfd, NULL, NULL);
		if (c < 0)
			continue;
		if (pthread_create(&th, NULL, conn_main, (void *)(long)c) == 0)
			pthread_detach(th);
		else
			close(c);
	}
	return NULL;
}

static char dir[64];
static int wake[2]; /* the loop's wake-up pipe */

/* The forwarding's wake-up (fwd_start): a byte to the test loop's pipe. */
static void wake_test(void)
{
	ssize_t n = write(wake[1], "f", 1);
	(void)n;
}

/* The server, the audit log and the forwarding, driven by this thread (once per process). */
static void start(void)
{
	static int started;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	char logp[128], server[64];
	kube_config cfg = {0};
	bh_error e;
	pthread_t th;
	if (started++)
		return;
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(lfd, 0);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(lfd, 16), 0);
	ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&a, &al), 0);
	lport = ntohs(a.sin_port);
	ck_assert_int_eq(pthread_create(&th, NULL, listener, NULL), 0);
	pthread_detach(th);
	snprintf(logp, sizeof logp, "%s/audit.log", dir);
	audit_opts o = {logp, "in", 0, 0};
	ck_assert_int_eq(audit_open(&o, &e), 0);
	ck_assert_int_eq(pipe(wake), 0);
	snprintf(server, sizeof server, "http://127.0.0.1:%d", lport);
	cfg.server = server;
	ck_assert_int_eq(fwd_start(&cfg, 2, wake_test, &e), 0);
}

/* A PUT of path (a GET of a watch's) as the forwarder gets it from the
 * broker: its intent written (not yet durable; a read's is not waited
 * for, audit.h), the server told which record it is. */
static fwd_req *submit(const char *path)
{
	fwd_req *f = calloc(1, sizeof *f);
	bh_error e;
	int watch = strstr(path, "watch=1") != NULL;
	ck_assert_ptr_nonnull(f);
	f->r.method = strdup(watch ? "GET" : "PUT");
	f->r.path = strdup(path);
	f->key = strdup("team-a/web");
	f->audit_id = audit_next_id();
	audit_rec r = {"intent", f->audit_id, f->key, NULL, watch ? "watch" : "update", path, 0, 0, NULL, NULL};
	ck_assert_int_eq(audit_write(&r, &f->audit_seq, &e), 0);
	ck_assert_uint_eq(f->audit_seq == 0, watch);
	pthread_mutex_lock(&mu);
	ck_assert_int_lt(nexpect, MAXSEEN);
	snprintf(expect[nexpect].path, sizeof expect[0].path, "%s", path);
	expect[nexpect++].seq = f->audit_seq;
	pthread_mutex_unlock(&mu);
	fwd_submit(f);
	return f;
}

/* One turn of the loop that drives the forwarding (as bulkheadd's main
 * loop does): poll on the wake-up pipe and the requests' sockets for up to
 * ms, then fwd_run. 1 when the wake-up pipe had a byte. */
static int turn(int ms)
{
	struct pollfd p[64];
	size_t n, nw;
	int tmo, wtmo, woken;
	const struct pollfd *fp = fwd_fds(&n, &tmo);
	const struct pollfd *wp = bwatch_fds(&nw, &wtmo); /* the workers' watches */
	ck_assert_uint_lt(n + nw, 63);
	p[0] = (struct pollfd){wake[0], POLLIN, 0};
	memcpy(p + 1, fp, n * sizeof *p);
	if (nw)
		memcpy(p + 1 + n, wp, nw * sizeof *p);
	if (tmo < 0 || (wtmo >= 0 && wtmo < tmo))
		tmo = wtmo;
	if (tmo < 0 || tmo > ms)
		tmo = ms;
	if (poll(p, n + nw + 1, tmo) <= 0)
		for (size_t i = 0; i <= n + nw; i++)
			p[i].revents = 0;
	woken = p[0].revents != 0;
	if (woken) {
		char b[16];
		ck_assert_int_gt(read(wake[0], b, sizeof b), 0);
	}
	fwd_run(p + 1, n);
	bwatch_run(p + 1 + n, nw);
	return woken;
}

/* The next answer (it must come within a minute). */
static fwd_req *answer(void)
{
	static fwd_req *pending;
	fwd_req *f;
	time_t end = time(NULL) + 60;
	while (!pending) {
		ck_assert_msg(time(NULL) < end, "no answer from the forwarding");
		turn(1000);
		pending = fwd_take_done();
	}
	f = pending;
	pending = STAILQ_NEXT(f, link);
	return f;
}

static int was_seen(const char *path)
{
	int hit = 0;
	pthread_mutex_lock(&mu);
	for (int i = 0; i < nseen; i++)
		hit |= !strcmp(seen[i], path);
	pthread_mutex_unlock(&mu);
	return hit;
}

/* Submits path with its intent's sync held, checks it is not sent while the
 * sync is held (a read is: nothing to wait for), then lets the sync end and
 * returns the final answer. */
static fwd_req *held_then_sent(const char *path, int read)
{
	fwd_req *f = NULL;
	pthread_mutex_lock(&mu);
	hold_syncs = 1;
	syncs_begun = 0;
	pthread_mutex_unlock(&mu);
	submit(path);
	if (read) { /* answered, the sync still held */
		while ((f = answer())->piece)
			fwd_req_free(f);
	} else {
		for (int begun = 0; !begun;) { /* the sync of its intent has begun, and is held */
			turn(10);
			pthread_mutex_lock(&mu);
			begun = syncs_begun || nseen;
			pthread_mutex_unlock(&mu);
		}
		for (int i = 0; i < 20; i++) /* time it would have had to leave, the loop turning */
			turn(10);
		ck_assert(!was_seen(path));
	}
	pthread_mutex_lock(&mu);
	ck_assert_int_eq(hold_syncs, 1);
	hold_syncs = 0;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	while (!f && (f = answer())->piece) { /* a watch's bytes come first */
		fwd_req_free(f);
		f = NULL;
	}
	ck_assert_str_eq(f->r.path, path);
	return f;
}

START_TEST(test_sent_once_durable)
{
	fwd_req *f;
	start();
	f = held_then_sent("/api/v1/namespaces/team-a/configmaps/held", 0);
	ck_assert_str_eq(f->audit_error, "");
	ck_assert_int_eq(f->status, 200);
	ck_assert_int_eq((int)f->body.len, 2);
	ck_assert(was_seen("/api/v1/namespaces/team-a/configmaps/held"));
	fwd_req_free(f);
	/* many at once: each sent only once durable, whatever sync covered it */
	for (int i = 0; i < 6; i++) {
		char p[80];
		snprintf(p, sizeof p, "/api/v1/namespaces/team-a/configmaps/many-%d", i);
		submit(p);
	}
	for (int i = 0; i < 6; i++) {
		f = answer();
		ck_assert_int_eq(f->status, 200);
		ck_assert_str_eq(f->audit_error, "");
		fwd_req_free(f);
	}
	/* a worker's watch, a read, is not held (it goes by broker_watch.h) */
	f = held_then_sent("/api/v1/namespaces/team-a/configmaps?watch=1&fieldSelector=metadata.name%3Dw&timeoutSeconds=5", 1);
	ck_assert_str_eq(f->audit_error, "");
	ck_assert_int_eq(f->status, 200);
	fwd_req_free(f);
	pthread_mutex_lock(&mu);
	ck_assert_int_eq(early, 0);
	pthread_mutex_unlock(&mu);
}
END_TEST

START_TEST(test_one_sync_per_turn)
{
	int begun;
	start();
	/* a turn's requests (as the broker submits them while the main loop
	 * reads its workers) wait for one sync, asked for when the turn ends */
	pthread_mutex_lock(&mu);
	hold_syncs = 1;
	syncs_begun = 0;
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < 4; i++) {
		char p[80];
		snprintf(p, sizeof p, "/api/v1/namespaces/team-a/configmaps/turn-%d", i);
		submit(p);
	}
	usleep(200 * 1000); /* time a sync asked for at once would have had to begin */
	pthread_mutex_lock(&mu);
	ck_assert_int_eq(syncs_begun, 0); /* none before the turn ends */
	pthread_mutex_unlock(&mu);
	turn(0);
	pthread_mutex_lock(&mu);
	while (!syncs_begun)
		pthread_cond_wait(&cv, &mu);
	hold_syncs = 0;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < 4; i++) {
		fwd_req *f = answer();
		ck_assert_int_eq(f->status, 200);
		ck_assert_str_eq(f->audit_error, "");
		fwd_req_free(f);
	}
	pthread_mutex_lock(&mu);
	begun = syncs_begun;
	ck_assert_int_eq(early, 0);
	pthread_mutex_unlock(&mu);
	ck_assert_int_eq(begun, 1); /* one covered the four */
}
END_TEST

START_TEST(test_failed_sync_never_sent)
{
	fwd_req *f;
	start();
	pthread_mutex_lock(&mu);
	fail_syncs = 1;
	pthread_mutex_unlock(&mu);
	submit("/api/v1/namespaces/team-a/configmaps/lost");
	f = answer();
	ck_assert_str_eq(f->r.path, "/api/v1/namespaces/team-a/configmaps/lost");
	ck_assert_ptr_nonnull(strstr(f->audit_error, "cannot sync"));
	ck_assert_int_eq(f->status, 0);
	fwd_req_free(f);
	pthread_mutex_lock(&mu);
	fail_syncs = 0;
	pthread_mutex_unlock(&mu);
	/* the next one is sent: its own record synced */
	submit("/api/v1/namespaces/team-a/configmaps/after");
	f = answer();
	ck_assert_int_eq(f->status, 200);
	ck_assert_str_eq(f->audit_error, "");
	fwd_req_free(f);
	ck_assert(!was_seen("/api/v1/namespaces/team-a/configmaps/lost"));
	ck_assert(was_seen("/api/v1/namespaces/team-a/configmaps/after"));
}
END_TEST

START_TEST(test_slow_holds_back_nothing)
{
	fwd_req *f;
	start();
	submit("/api/v1/namespaces/team-a/configmaps/slow");
	for (int waiting = 0; !waiting;) { /* the server has it and does not answer */
		turn(10);
		pthread_mutex_lock(&mu);
		waiting = slow_waiting;
		pthread_mutex_unlock(&mu);
	}
	submit("/api/v1/namespaces/team-a/configmaps/fast");
	f = answer(); /* answered while the slow one still waits */
	ck_assert_str_eq(f->r.path, "/api/v1/namespaces/team-a/configmaps/fast");
	ck_assert_int_eq(f->status, 200);
	fwd_req_free(f);
	pthread_mutex_lock(&mu);
	ck_assert_int_eq(slow_held, 1);
	slow_held = 0;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	f = answer();
	ck_assert_str_eq(f->r.path, "/api/v1/namespaces/team-a/configmaps/slow");
	ck_assert_int_eq(f->status, 200);
	fwd_req_free(f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("forward");
	TCase *tc = tcase_create("core");
	int nf;
	char cmd[128];
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_sent_once_durable);
	tcase_add_test(tc, test_one_sync_per_turn);
	tcase_add_test(tc, test_failed_sync_never_sent);
	tcase_add_test(tc, test_slow_holds_back_nothing);
	suite_add_tcase(s, tc);
	snprintf(dir, sizeof dir, "/tmp/bh-fwd.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	nf = unit_failures(s, CK_FORK_GETENV);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		nf++;
	return nf ? 1 : 0;
}
