/* supervisor/log.c — see log.h. */
#include "supervisor/log.h"

#include "lib/buf.h"
#include "lib/gojson.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define LOG_MSG_MAX 8192

static svlog_encoding encoding = SVLOG_CONSOLE;
static svlog_level max_level = SVLOG_INFO;

static const char *const level_names[] = {"error", "info", "debug"};

void svlog_setup(svlog_encoding enc, svlog_level max)
{
	encoding = enc;
	max_level = max;
}

int svlog_encoding_parse(const char *s)
{
	if (!strcmp(s, "json"))
		return SVLOG_JSON;
	if (!strcmp(s, "console"))
		return SVLOG_CONSOLE;
	return -1;
}

int svlog_level_parse(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, level_names[i]))
			return i;
	return -1;
}

int svlog_enabled(svlog_level l)
{
	return l <= max_level;
}

#define LOG_HELD_MAX 32768

/* How long a held line may wait for the lines after it (svlog_flush_due):
 * at the scale benchmark's pace a turn held about 2 lines, a write each;
 * this many ms gather the lines of several installs into one write, a
 * delay no reader of the log notices. */
#define LOG_HOLD_MS 50

static __thread int holding; /* this thread's lines go to held */
static __thread bh_buf held;
static __thread long long held_at; /* CLOCK_MONOTONIC ms of held's first line */

static long long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void write_all(const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(2, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

void svlog_flush(void)
{
	if (held.len)
		write_all(held.data, held.len);
	bh_buf_reset(&held);
}

int svlog_flush_due(void)
{
	long long left;
	if (!held.len)
		return -1;
	if ((left = held_at + LOG_HOLD_MS - mono_ms()) > 0)
		return (int)left;
	svlog_flush();
	return -1;
}

static void flush_at_exit(void)
{
	svlog_flush();
	bh_buf_free(&held);
}

void svlog_hold(int on)
{
	static int registered;
	if (on && !registered) {
		registered = 1;
		atexit(flush_at_exit);
	}
	if (!on)
		svlog_flush();
	holding = on;
}

/* A line at level l: out now, or held (an error goes out at once, with
 * the lines held before it). */
static void write_line(svlog_level l, const char *s, size_t n)
{
	if (!holding) {
		write_all(s, n);
		return;
	}
	if (!held.len)
		held_at = mono_ms();
	bh_buf_put(&held, s, n);
	if (!bh_buf_ok(&held)) { /* no memory: what is held, then this line, go out now */
		svlog_flush();
		bh_buf_free(&held);
		write_all(s, n);
	} else if (held.len >= LOG_HELD_MAX || l == SVLOG_ERROR) {
		svlog_flush();
	}
}

/* n decimal digits of v, zero-padded, at p; returns the end */
static char *digits(char *p, long v, int n)
{
	for (int i = n - 1; i >= 0; i--, v /= 10)
		p[i] = (char)('0' + v % 10);
	return p + n;
}

/* ISO 8601 UTC with milliseconds, as zap's ISO8601TimeEncoder in Flux
 * (2006-01-02T15:04:05.000Z), into buf[TS_MAX]; its length. Digits
 * written here, not by snprintf: one per log line. */
#define TS_MAX 64
static size_t timestamp(char *buf)
{
	struct timespec ts;
	struct tm tm;
	char *p = buf;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	if (tm.tm_year < -1900 || tm.tm_year > 9999 - 1900) { /* not four digits: as printf writes it */
		int n = snprintf(buf, TS_MAX, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
				 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (ts.tv_nsec / 1000000) % 1000);
		return n > 0 && n < TS_MAX ? (size_t)n : 0;
	}
	p = digits(p, tm.tm_year + 1900L, 4);
	*p++ = '-';
	p = digits(p, tm.tm_mon + 1L, 2);
	*p++ = '-';
	p = digits(p, tm.tm_mday, 2);
	*p++ = 'T';
	p = digits(p, tm.tm_hour, 2);
	*p++ = ':';
	p = digits(p, tm.tm_min, 2);
	*p++ = ':';
	p = digits(p, tm.tm_sec, 2);
	*p++ = '.';
	p = digits(p, (ts.tv_nsec / 1000000) % 1000, 3);
	*p++ = 'Z';
	*p = '\0';
	return (size_t)(p - buf);
}

/* ,"key":"v" (or "name":"v" first in an object, for key NULL); key needs no escaping */
static void put_field(bh_buf *b, const char *key, const char *v, size_t n)
{
	if (key) {
		bh_buf_puts(b, ",\"");
		bh_buf_puts(b, key);
		bh_buf_puts(b, "\":");
	} else {
		bh_buf_puts(b, "\"name\":");
	}
	gojson_quote(b, v, n, GOJSON_NO_HTML_ESCAPE);
}

static void emit(svlog_level l, const char *key, const char *rid, int worker, const char *msg, size_t mlen)
{
	char line[LOG_MSG_MAX + 512];
	if (encoding == SVLOG_CONSOLE) {
		int n;
		if (key)
			n = snprintf(line, sizeof line, "bulkheadd: %s%s: %.*s\n", worker ? "worker " : "", key, (int)mlen, msg);
		else
			n = snprintf(line, sizeof line, "bulkheadd: %.*s\n", (int)mlen, msg);
		if (n <= 0)
			return;
		if ((size_t)n >= sizeof line) {
			n = (int)sizeof line - 1;
			line[n - 1] = '\n';
		}
		write_line(l, line, (size_t)n);
		return;
	}
	{
		/* Flux's zap fields, in its order, written straight into a buffer
		 * (strings escaped as Go's encoder does, UTF-8 kept); any thread */
		bh_buf out = BH_BUF_INIT;
		char ts[TS_MAX];
		size_t tl = timestamp(ts);
		bh_buf_grow(&out, mlen + 384); /* one allocation for most lines (else bh_buf_ok says) */
		bh_buf_puts(&out, "{\"level\":\"");
		bh_buf_puts(&out, level_names[l]);
		bh_buf_puts(&out, "\",\"ts\":\"");
		bh_buf_put(&out, ts, tl);
		bh_buf_putc(&out, '"');
		put_field(&out, "msg", msg, mlen);
		if (worker)
			bh_buf_puts(&out, ",\"logger\":\"worker\"");
		if (key) {
			const char *slash = strchr(key, '/');
			const char *name = slash ? slash + 1 : key;
			size_t nslen = slash ? (size_t)(slash - key) : 0;
			bh_buf_puts(&out, ",\"controller\":\"helmrelease\",\"controllerGroup\":\"helm.toolkit.fluxcd.io\""
			                  ",\"controllerKind\":\"HelmRelease\",\"HelmRelease\":{");
			put_field(&out, NULL, name, strlen(name));
			put_field(&out, "namespace", key, nslen);
			bh_buf_puts(&out, "}");
			put_field(&out, "namespace", key, nslen);
			put_field(&out, "name", name, strlen(name));
			if (rid)
				put_field(&out, "reconcileID", rid, strlen(rid));
		}
		bh_buf_puts(&out, "}\n");
		if (bh_buf_ok(&out))
			write_line(l, out.data, out.len);
		bh_buf_free(&out);
	}
}

static void vlog(svlog_level l, const char *key, const char *rid, const char *fmt, va_list ap)
{
	char msg[LOG_MSG_MAX];
	int n;
	if (!svlog_enabled(l))
		return;
	n = vsnprintf(msg, sizeof msg, fmt, ap);
	if (n < 0)
		return;
	emit(l, key, rid, 0, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
}

void svlog(svlog_level l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(l, NULL, NULL, fmt, ap);
	va_end(ap);
}

void svlog_hr(svlog_level l, const char *key, const char *rid, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(l, key, rid, fmt, ap);
	va_end(ap);
}

void svlog_worker(const char *key, const char *rid, const char *msg, size_t n)
{
	if (svlog_enabled(SVLOG_INFO))
		emit(SVLOG_INFO, key, rid, 1, msg, n < LOG_MSG_MAX ? n : LOG_MSG_MAX);
}

/* splitmix64's finalizer: a bijection, so distinct inputs give distinct ids */
static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t id_seed[2];
static uint64_t id_count;
static pthread_once_t id_once = PTHREAD_ONCE_INIT;

static void id_seed_init(void)
{
	unsigned char b[16];
	size_t got = 0;
	while (got < sizeof b) {
		ssize_t r = getrandom(b + got, sizeof b - got, 0);
		if (r <= 0) { /* no entropy source: still unique per process */
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			for (size_t i = got; i < sizeof b; i++)
				b[i] = (unsigned char)((ts.tv_nsec >> (i % 4 * 8)) ^ (ts.tv_sec >> (i % 8)) ^ (getpid() >> (i % 3 * 8)));
			break;
		}
		got += (size_t)r;
	}
	memcpy(id_seed, b, sizeof id_seed);
}

/* One getrandom per process, not one per id: an id is 122 bits of the
 * process's random seed mixed with a counter (two bijections, so ids of one
 * process differ; unpredictable across restarts). A reconcile id
 * correlates log lines, it guards nothing. */
void svlog_reconcile_id(char out[37])
{
	unsigned char b[16];
	uint64_t n, hi, lo;
	pthread_once(&id_once, id_seed_init);
	n = __atomic_add_fetch(&id_count, 1, __ATOMIC_RELAXED);
	hi = mix64(id_seed[0] ^ n);
	lo = mix64(id_seed[1] + n);
	for (int i = 0; i < 8; i++) {
		b[i] = (unsigned char)(hi >> (56 - 8 * i));
		b[8 + i] = (unsigned char)(lo >> (56 - 8 * i));
	}
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	/* 8-4-4-4-12 lower-case hex digits, as "%02x" each */
	for (int i = 0, o = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = "0123456789abcdef"[b[i] >> 4];
		out[o++] = "0123456789abcdef"[b[i] & 15];
	}
	out[36] = '\0';
}
