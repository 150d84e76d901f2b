/* supervisor/audit.c — see audit.h. */
#include "supervisor/audit.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/gojson.h"
#include "supervisor/log.h"
#include "supervisor/metrics.h"

#define AUDIT_MAX_NOTIFY 4 /* callers of audit_sync_async waiting at a time */

static struct {
	char *path, *cluster;
	unsigned long long max_size;
	unsigned max_backups;
	int fd;
	char instance[17]; /* hex, fresh per process start */
	unsigned long long next_id;
	/* group commit: records are numbered as written; one fdatasync covers
	 * every record written before it started */
	unsigned long long written, synced;
	unsigned long long lost_lo, lost_hi; /* the records the last failed sync was to cover */
	int syncing;                         /* a thread is in fdatasync on sync_fd (outside mu) */
	int sync_fd;                         /* the fd it syncs; if that file is closed meanwhile (a
					      * rotation, SIGHUP), the syncing thread closes it after */
	int regular;                         /* fd is a regular file (rotated by size) */
	unsigned long long size;             /* its size: fstat at open, then what we appended */
	char sync_error[300];
	bh_buf line; /* the record being written (under mu), kept between records */
	/* the sync thread (audit_sync_async): asked to sync, and whom to tell */
	int syncer_on, sync_asked;
	int syncer_idle; /* it waits without a clock (nothing unsynced, no sync for a second): a
			  * write must wake it to set its 1 s clock */
	struct {
		void (*fn)(void *);
		void *ud;
	} notify[AUDIT_MAX_NOTIFY];
	int nnotify;
} A = {.fd = -1, .sync_fd = -1};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;  /* a sync ended */
/* the sync thread is asked for a sync, or woken from its wait without a
 * clock: posted after mu is released, waited on outside mu (a condition
 * variable's wait takes mu back marked contended, so that every wake-up
 * cost the sync thread a futex call when it released mu); a post the
 * thread did not need only makes its next wait return at once */
static sem_t ssem; /* set up by syncer_start */

/* Under mu: the sync thread waits on ssem (until deadline, when not NULL);
 * 0 when posted or interrupted (the caller looks again), -1 when the
 * deadline passed. */
static int syncer_wait(const struct timespec *deadline)
{
	int r;
	pthread_mutex_unlock(&mu);
	r = deadline ? sem_timedwait(&ssem, deadline) : sem_wait(&ssem);
	if (r < 0 && errno == EINTR)
		r = 0;
	pthread_mutex_lock(&mu);
	return r;
}

/* Under mu: the outcome of a sync (errno e) meant to cover records up to upto. */
static void synced_upto(unsigned long long upto, int e)
{
	if (e) {
		A.lost_lo = A.synced + 1;
		A.lost_hi = upto;
		snprintf(A.sync_error, sizeof A.sync_error, "audit log %.200s: cannot sync: %s", A.path ? A.path : "",
			 strerror(e));
	} else if (upto > A.synced) {
		A.synced = upto;
	}
	pthread_cond_broadcast(&cv);
}

/* Under mu: makes what was written to the open file durable before it is
 * closed or renamed (a sync running elsewhere on the same fd goes on: the
 * fd stays open for it, see close_log). */
static void settle(void)
{
	if (A.fd >= 0 && A.synced < A.written)
		synced_upto(A.written, fdatasync(A.fd) < 0 && errno != EINVAL && errno != EROFS ? errno : 0);
}

/* Under mu: closes the log's fd, or leaves that to the thread syncing it
 * (sync_to), which then owns it. */
static void close_log(void)
{
	if (A.fd >= 0 && !(A.syncing && A.sync_fd == A.fd))
		close(A.fd);
	A.fd = -1;
}

static int open_log(bh_error *err)
{
	struct stat st;
	A.fd = open(A.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (A.fd < 0)
		return bh_error_set(err, BH_EIO, "audit log %s: cannot open: %s", A.path, strerror(errno));
	if (fstat(A.fd, &st) < 0) {
		int e = errno;
		close(A.fd);
		A.fd = -1;
		return bh_error_set(err, BH_EIO, "audit log %s: %s", A.path, strerror(e));
	}
	/* the size is kept here from now on: no fstat per record (the log is
	 * ours; with O_APPEND every record lands at its end) */
	A.regular = S_ISREG(st.st_mode);
	A.size = (unsigned long long)st.st_size;
	return 0;
}

int audit_open(const audit_opts *o, bh_error *err)
{
	unsigned char r[8];
	audit_close();
	if (!o || !o->path)
		return 0;
	if (!(A.path = strdup(o->path)) || !(A.cluster = strdup(o->cluster ? o->cluster : "")))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	A.max_size = o->max_size;
	A.max_backups = o->max_backups;
	if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		memcpy(r, &ts.tv_nsec, 4);
		memcpy(r + 4, &ts.tv_sec, 4);
	}
	for (int i = 0; i < 8; i++)
		snprintf(A.instance + 2 * i, 3, "%02x", r[i]);
	return open_log(err);
}

int audit_reopen(bh_error *err)
{
	int rc;
	if (!A.path)
		return 0;
	pthread_mutex_lock(&mu);
	settle();
	close_log();
	rc = open_log(err);
	pthread_mutex_unlock(&mu);
	return rc;
}

void audit_close(void)
{
	pthread_mutex_lock(&mu);
	settle();
	close_log();
	free(A.path);
	free(A.cluster);
	A.path = A.cluster = NULL;
	bh_buf_free(&A.line);
	pthread_mutex_unlock(&mu);
}

unsigned long long audit_next_id(void)
{
	unsigned long long id;
	pthread_mutex_lock(&mu);
	id = ++A.next_id;
	pthread_mutex_unlock(&mu);
	return id;
}

/* Makes a rename or a new file in the log's folder durable. */
static void sync_dir(void)
{
	char *copy = strdup(A.path);
	int d;
	if (!copy)
		return;
	if ((d = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		if (fsync(d) < 0) {
			/* the records themselves are synced; a lost rename loses no record */
		}
		close(d);
	}
	free(copy);
}

/* PATH -> PATH.1 -> PATH.2 ... PATH.<max_backups>; a new PATH is opened. */
static int rotate(bh_error *err)
{
	size_t n = strlen(A.path) + 24;
	char *from = malloc(n), *to = malloc(n);
	int rc = 0;
	if (!from || !to) {
		free(from);
		free(to);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	settle();
	close_log();
	if (A.max_backups == 0) {
		if (unlink(A.path) < 0 && errno != ENOENT)
			rc = bh_error_set(err, BH_EIO, "audit log %s: cannot rotate: %s", A.path, strerror(errno));
	} else {
		for (unsigned i = A.max_backups; i > 1 && !rc; i--) {
			snprintf(from, n, "%s.%u", A.path, i - 1);
			snprintf(to, n, "%s.%u", A.path, i);
			if (rename(from, to) < 0 && errno != ENOENT)
				rc = bh_error_set(err, BH_EIO, "audit log %s: cannot rotate %s: %s", A.path, from, strerror(errno));
		}
		snprintf(to, n, "%s.1", A.path);
		if (!rc && rename(A.path, to) < 0)
			rc = bh_error_set(err, BH_EIO, "audit log %s: cannot rotate: %s", A.path, strerror(errno));
	}
	free(from);
	free(to);
	if (!rc)
		rc = open_log(err);
	sync_dir();
	return rc;
}

/* v in decimal into b. */
static void put_ull(bh_buf *b, unsigned long long v)
{
	char d[24];
	size_t k = sizeof d;
	do
		d[--k] = (char)('0' + v % 10);
	while ((v /= 10));
	bh_buf_put(b, d + k, sizeof d - k);
}

/* The time now, RFC 3339 in UTC to the microsecond, into b. Under mu: the
 * date and time to the second are formatted once per second (last). */
static void put_time(bh_buf *b)
{
	static time_t last_sec = (time_t)-1;
	static char last[32];
	static size_t last_n;
	struct timespec ts;
	char us[8];
	long v;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (ts.tv_sec != last_sec) {
		struct tm tm;
		gmtime_r(&ts.tv_sec, &tm);
		last_n = strftime(last, sizeof last, "%Y-%m-%dT%H:%M:%S", &tm);
		last_sec = ts.tv_sec;
	}
	bh_buf_put(b, last, last_n);
	us[0] = '.';
	v = ts.tv_nsec / 1000;
	for (int i = 6; i >= 1; i--, v /= 10)
		us[i] = (char)('0' + v % 10);
	us[7] = 'Z';
	bh_buf_put(b, us, sizeof us);
}

/* A JSON string member ,"key":"value" (escaped as encoding/json does, HTML
 * characters kept; invalid UTF-8 as U+FFFD). key needs no escaping. */
static void put_member(bh_buf *b, const char *key, const char *v)
{
	bh_buf_put(b, ",\"", 2);
	bh_buf_puts(b, key);
	bh_buf_put(b, "\":", 2);
	gojson_quote(b, v, strlen(v), GOJSON_NO_HTML_ESCAPE);
}

/* The record's line (with its newline) into b: written directly, one
 * buffer, no JSON tree and no printf but for the duration (this runs for
 * every request, on the main loop and the forwarding thread). Under mu. */
static void format_record(const audit_rec *r, bh_buf *b)
{
	char ms[40];
	bh_buf_puts(b, "{\"time\":\"");
	put_time(b);
	bh_buf_putc(b, '"');
	if (r->id) {
		bh_buf_puts(b, ",\"id\":\"");
		bh_buf_puts(b, A.instance);
		bh_buf_putc(b, '-');
		put_ull(b, r->id);
		bh_buf_putc(b, '"');
	}
	put_member(b, "phase", r->phase);
	put_member(b, "cluster", r->cluster ? r->cluster : A.cluster);
	put_member(b, "helmRelease", r->helm_release ? r->helm_release : "");
	put_member(b, "identity", r->identity ? r->identity : r->cluster ? "(kubeconfig)" : "(controller)");
	put_member(b, "verb", r->verb ? r->verb : "");
	put_member(b, "path", r->path ? r->path : "");
	if (strcmp(r->phase, "intent") != 0) {
		bh_buf_puts(b, ",\"status\":");
		if (r->status < 0)
			bh_buf_putc(b, '-');
		put_ull(b, r->status < 0 ? 0ULL - (unsigned long long)r->status : (unsigned long long)r->status);
	}
	if (!strcmp(r->phase, "outcome")) {
		/* milliseconds to the microsecond, 6 significant digits, always
		 * a real ("12.0") */
		long long us = (long long)(r->duration_ms * 1000);
		bh_buf_puts(b, ",\"durationMs\":");
		if (us >= 0 && us < 1000000) {
			/* under a second: at most 6 digits, all significant, so
			 * %.6g prints the exact decimal; written directly */
			char f[4];
			int k = 3;
			put_ull(b, (unsigned long long)us / 1000);
			bh_buf_putc(b, '.');
			f[0] = (char)('0' + us / 100 % 10);
			f[1] = (char)('0' + us / 10 % 10);
			f[2] = (char)('0' + us % 10);
			while (k > 1 && f[k - 1] == '0')
				k--;
			bh_buf_put(b, f, (size_t)k);
		} else {
			snprintf(ms, sizeof ms, "%.6g", (double)us / 1000.0);
			bh_buf_puts(b, ms);
			if (!strpbrk(ms, ".e"))
				bh_buf_puts(b, ".0");
		}
	}
	if (r->why)
		put_member(b, strcmp(r->phase, "outcome") ? "refused" : "error", r->why);
	bh_buf_puts(b, "}\n");
}

/* Is r the intent of a read (get, list, watch), which changes nothing and
 * so needs no sync before it is sent (audit.h)? The connect subresources,
 * which a GET can reach and which do act (the broker refuses them), are
 * synced all the same. */
static int read_intent(const audit_rec *r)
{
	const char *v = r->verb;
	if (!v || strcmp(r->phase, "intent") != 0 || (strcmp(v, "get") && strcmp(v, "list") && strcmp(v, "watch")))
		return 0;
	return !r->path || !(strstr(r->path, "/exec") || strstr(r->path, "/attach") || strstr(r->path, "/portforward") ||
			     strstr(r->path, "/proxy"));
}

int audit_record(const audit_rec *r, bh_error *err)
{
	unsigned long long seq;
	int rc = audit_write(r, &seq, err);
	if (rc < 0 || (seq == 0 && read_intent(r)))
		return rc; /* a read's intent: nothing to wait for (counted when written) */
	return audit_sync(seq, err);
}

/* Waits until record seq is durable (a group commit); 0 or BH_EIO. */
static int sync_to(unsigned long long seq, bh_error *err)
{
	int rc = 0;
	if (seq == 0) /* no log */
		return 0;
	pthread_mutex_lock(&mu);
	while (A.synced < seq && !(seq >= A.lost_lo && seq <= A.lost_hi)) {
		unsigned long long upto;
		int fd, e = 0;
		if (A.syncing) {
			pthread_cond_wait(&cv, &mu);
			continue;
		}
		A.syncing = 1;
		upto = A.written;
		A.sync_fd = fd = A.fd; /* a rotation meanwhile leaves it open for us (close_log) */
		if (fd < 0)
			e = EBADF;
		pthread_mutex_unlock(&mu);
		if (fd >= 0 && fdatasync(fd) < 0 && errno != EINVAL && errno != EROFS)
			e = errno;
		pthread_mutex_lock(&mu);
		if (fd >= 0 && fd != A.fd)
			close(fd); /* closed (rotated, reopened) while we synced it */
		A.syncing = 0;
		A.sync_fd = -1;
		synced_upto(upto, e); /* a failure fails every record it was to cover */
	}
	if (A.synced < seq || (seq >= A.lost_lo && seq <= A.lost_hi))
		rc = bh_error_set(err, BH_EIO, "%s", A.sync_error);
	pthread_mutex_unlock(&mu);
	return rc;
}

int audit_sync(unsigned long long seq, bh_error *err)
{
	int rc = sync_to(seq, err);
	metrics_audit_record(rc == 0);
	return rc;
}

int audit_write_outcome(const audit_rec *r, bh_error *err)
{
	unsigned long long seq;
	int rc = audit_write(r, &seq, err);
	if (seq)
		metrics_audit_record(rc == 0);
	return rc;
}

int audit_unsynced(void)
{
	int r;
	pthread_mutex_lock(&mu);
	r = A.synced < A.written;
	pthread_mutex_unlock(&mu);
	return r;
}

int audit_settle(bh_error *err)
{
	unsigned long long upto;
	pthread_mutex_lock(&mu);
	upto = A.synced < A.written ? A.written : 0;
	pthread_mutex_unlock(&mu);
	return upto ? sync_to(upto, err) : 0;
}

/* Under mu: is record seq durable (1), not yet (0), or lost to a failed sync (-1)? */
static int durable(unsigned long long seq)
{
	if (seq >= A.lost_lo && seq <= A.lost_hi)
		return -1;
	return seq <= A.synced;
}

int audit_durable(unsigned long long seq, bh_error *err)
{
	int d;
	if (seq == 0) /* no log */
		return 1;
	pthread_mutex_lock(&mu);
	if ((d = durable(seq)) < 0)
		bh_error_set(err, BH_EIO, "%s", A.sync_error);
	pthread_mutex_unlock(&mu);
	if (d)
		metrics_audit_record(d > 0);
	return d < 0 ? BH_EIO : d;
}

/* Under mu: are there records a sync would make durable (written, not
 * synced, not lost to a failed sync)? */
static int unsettled(void)
{
	return A.synced < A.written && durable(A.written) >= 0;
}

/* The sync thread: a group commit of everything written whenever it is
 * asked (audit_sync_async), and of what is left unsynced a second after its
 * last sync; then it tells those who asked. For that second after a sync it
 * waits with its clock set, so that the records written meanwhile (the
 * outcomes, the reads' intents) need not wake it; only a second without
 * anything written sends it to wait without a clock, from which the next
 * write wakes it (audit_write: syncer_idle). */
static void *syncer_main(void *arg)
{
	int said = 0;  /* a failed settle is logged once */
	int armed = 0; /* its clock is set (deadline): a write needs no wake */
	struct timespec deadline = {0, 0};
	(void)arg;
	pthread_setname_np(pthread_self(), "bh-audit-sync"); /* its CPU in /proc/PID/task/ by name */
	pthread_mutex_lock(&mu);
	for (;;) {
		unsigned long long upto;
		int n, asked;
		__typeof__(A.notify) tell;
		bh_error e;
		while (!A.sync_asked) {
			if (!armed) {
				if (!unsettled()) {
					A.syncer_idle = 1;
					syncer_wait(NULL);
					A.syncer_idle = 0;
					continue;
				}
				clock_gettime(CLOCK_REALTIME, &deadline);
				deadline.tv_sec += 1;
				armed = 1;
			}
			if (syncer_wait(&deadline) == 0 || A.sync_asked)
				continue;
			armed = 0; /* a second since the last sync (or the first write after one) */
			if (unsettled())
				break; /* the outcomes and reads written since become durable */
		}
		asked = A.sync_asked;
		A.sync_asked = 0;
		upto = A.written;
		n = A.nnotify;
		memcpy(tell, A.notify, sizeof tell);
		A.nnotify = 0;
		pthread_mutex_unlock(&mu);
		if (sync_to(upto, &e) < 0 && !asked && !said++) /* the next intent fails the job anyway */
			svlog(SVLOG_ERROR, "%s", e.msg);
		for (int i = 0; i < n; i++)
			tell[i].fn(tell[i].ud);
		pthread_mutex_lock(&mu);
		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_sec += 1;
		armed = 1;
	}
	return NULL;
}

/* Under mu: starts the sync thread unless it runs; 0 or -1. */
static int syncer_start(void)
{
	pthread_t th;
	if (A.syncer_on)
		return 0;
	if (sem_init(&ssem, 0, 0) < 0 || pthread_create(&th, NULL, syncer_main, NULL) != 0)
		return -1;
	pthread_detach(th);
	A.syncer_on = 1;
	return 0;
}

int audit_sync_async(void (*done)(void *), void *ud, bh_error *err)
{
	int i, ask;
	pthread_mutex_lock(&mu);
	if (syncer_start() < 0) {
		pthread_mutex_unlock(&mu);
		return bh_error_set(err, BH_EIO, "audit log: cannot start its sync thread");
	}
	for (i = 0; i < A.nnotify && !(A.notify[i].fn == done && A.notify[i].ud == ud); i++)
		;
	if (i == A.nnotify) {
		if (i == AUDIT_MAX_NOTIFY) {
			pthread_mutex_unlock(&mu);
			return bh_error_set(err, BH_ELIMIT, "audit log: more than %d waiting for its sync thread",
					    AUDIT_MAX_NOTIFY);
		}
		A.notify[A.nnotify].fn = done;
		A.notify[A.nnotify++].ud = ud;
	}
	ask = !A.sync_asked;
	A.sync_asked = 1;
	pthread_mutex_unlock(&mu);
	if (ask) /* after the unlock: woken under mu, the sync thread would only wait for it */
		sem_post(&ssem);
	return 0;
}

int audit_write(const audit_rec *r, unsigned long long *seq, bh_error *err)
{
	bh_buf *line = &A.line;
	size_t n;
	ssize_t w;
	int rc = 0, read = 0, wake = 0;
	*seq = 0;
	if (r->phase && (!strcmp(r->phase, "outcome") || !strcmp(r->phase, "refused")))
		metrics_broker_request(r->verb, r->status);
	if (!A.path)
		return 0;
	pthread_mutex_lock(&mu);
	bh_buf_reset(line);
	if (A.fd < 0 && open_log(err) < 0) {
		pthread_mutex_unlock(&mu);
		metrics_audit_record(0);
		return err ? err->code : BH_EIO;
	}
	format_record(r, line);
	if (!bh_buf_ok(line)) {
		bh_buf_free(line);
		rc = bh_error_set(err, BH_ENOMEM, "audit log %s: out of memory", A.path);
		goto out;
	}
	n = line->len;
	if (A.regular && A.max_size && A.size > 0 && A.size + n > A.max_size) {
		if ((rc = rotate(err)) < 0)
			goto out;
	}
	w = write(A.fd, line->data, n);
	if (w != (ssize_t)n) {
		int e = w < 0 ? errno : ENOSPC;
		if (w > 0 && A.regular && ftruncate(A.fd, (off_t)A.size) < 0) {
			/* a torn line stays; the record is refused all the same */
		}
		rc = bh_error_set(err, BH_EIO, "audit log %s: cannot write: %s", A.path, strerror(e));
		goto out;
	}
	A.size += n;
	*seq = ++A.written;
	if (read_intent(r)) {
		/* sent without waiting: durable with the next sync (a
		 * mutation's intent, or the sync thread's within a second) */
		*seq = 0;
		read = 1;
	}
	/* what is written and not synced is the sync thread's within a
	 * second: started, or woken from its wait without a clock (a thread
	 * that cannot be started leaves it to the next intent's sync) */
	if (A.syncer_idle) {
		A.syncer_idle = 0;
		wake = 1;
	} else if (syncer_start() < 0) {
		/* nothing lost: only later */
	}
out:
	pthread_mutex_unlock(&mu);
	if (wake) /* as in audit_sync_async: after the unlock */
		sem_post(&ssem);
	if (rc < 0 || read)
		metrics_audit_record(rc == 0);
	return rc;
}

int audit_parse_size(const char *s, unsigned long long *out)
{
	static const struct {
		const char *suffix;
		unsigned long long mult;
	} units[] = {{"", 1},
		     {"K", 1000ULL},
		     {"M", 1000000ULL},
		     {"G", 1000000000ULL},
		     {"Ki", 1ULL << 10},
		     {"Mi", 1ULL << 20},
		     {"Gi", 1ULL << 30}};
	char *end;
	unsigned long long v;
	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (!strcmp(end, units[i].suffix)) {
			if (v > ~0ULL / units[i].mult)
				return -1;
			*out = v * units[i].mult;
			return 0;
		}
	return -1;
}
