/* tests/unit/test_kube_watch_multi.c — a watch driven by the caller's poll
 * (kube/watch_multi.h) against a scripted loopback server: the list's
 * objects come as RELIST (managedFields left out) and the stream resumes
 * from the list's resourceVersion; events come in order and a bookmark
 * moves the resourceVersion without being delivered; a stream that ends
 * is reconnected from there; 410 Gone asks for a list; a 500 is retried
 * after the backoff; a refusal (403) stops the watch with its error; the
 * callback asking to stop leaves it idle. Another carrier of the stream
 * (kube_watch_multi_carrier): it is asked for each stream, with its
 * resourceVersion; its bytes, split anywhere, are decoded by the next run,
 * not by the carrier's hand-over; a stream that never left goes again at
 * once; the callback asking to stop stops the carrier's stream. */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kube/config.h"
#include "kube/curl.h"
#include "kube/kube.h"
#include "kube/watch_multi.h"
#include "tests/unit/unit_util.h"

/* ---- the server: connection i gets answers[i], then is closed ---------------- */
static const char *const answers[] = {
	/* 0: the list */
	"200 OK\r\n\r\n{\"kind\":\"ConfigMapList\",\"metadata\":{\"resourceVersion\":\"5\"},\"items\":["
	"{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"4\",\"managedFields\":[{\"manager\":\"m\"}]}}]}",
	/* 1: the watch from 5: an object, a bookmark, the end */
	"200 OK\r\n\r\n{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"b\",\"resourceVersion\":\"6\"}}}\n"
	"{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"7\"}}}\n",
	/* 2: from 7: gone */
	"200 OK\r\n\r\n{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410,\"message\":\"too old\"}}\n",
	/* 3: the list again */
	"200 OK\r\n\r\n{\"kind\":\"ConfigMapList\",\"metadata\":{\"resourceVersion\":\"9\"},\"items\":[]}",
	/* 4: from 9: a server error, retried */
	"500 Internal Server Error\r\nContent-Type: application/json\r\n\r\n{\"kind\":\"Status\",\"code\":500,"
	"\"message\":\"boom\"}",
	/* 5: from 9 again: a change (the callback then asks to stop) */
	"200 OK\r\n\r\n{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"c\",\"resourceVersion\":\"10\"}}}\n",
	/* 6: resumed from 10: refused */
	"403 Forbidden\r\nContent-Type: application/json\r\n\r\n{\"kind\":\"Status\",\"code\":403,\"reason\":"
	"\"Forbidden\",\"message\":\"no\"}",
};
#define NANSWERS (sizeof answers / sizeof answers[0])
static int lfd = -1;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char lines[NANSWERS][512]; /* the request line of each connection */
static size_t nconn;

static void *server(void *arg)
{
	(void)arg;
	for (size_t i = 0; i < NANSWERS; i++) {
		int c = accept(lfd, NULL, NULL);
		char buf[4096], out[1024];
		size_t n = 0;
		ssize_t r;
		if (c < 0)
			return NULL;
		while (n < sizeof buf - 1 && (r = read(c, buf + n, sizeof buf - 1 - n)) > 0) {
			n += (size_t)r;
			buf[n] = '\0';
			if (strstr(buf, "\r\n\r\n"))
				break;
		}
		buf[n] = '\0';
		pthread_mutex_lock(&mu);
		snprintf(lines[i], sizeof lines[i], "%.*s", (int)strcspn(buf, "\r"), buf);
		nconn = i + 1;
		pthread_mutex_unlock(&mu);
		int len = snprintf(out, sizeof out, "HTTP/1.1 %s", answers[i]);
		/* the head's Connection: close goes in before its blank line */
		char *blank = strstr(out, "\r\n\r\n");
		char full[1200];
		int hl = (int)(blank - out);
		len = snprintf(full, sizeof full, "%.*s\r\nConnection: close%s", hl, out, blank);
		if (write(c, full, (size_t)len) < 0) {
			/* the client went away */
		}
		close(c);
	}
	return NULL;
}

/* ---- what the watch delivers ----------------------------------------------------- */
static char got[16][64];
static int ngot, stop_at = -1;

static int on_event(void *ud, kube_watch_type type, json_t *obj)
{
	json_t *meta = json_object_get(obj, "metadata");
	(void)ud;
	ck_assert_int_lt(ngot, 16);
	if (type == KUBE_WATCH_RELIST) {
		json_t *items = json_object_get(obj, "items");
		json_t *first = json_array_get(items, 0);
		snprintf(got[ngot++], sizeof got[0], "RELIST %zu %s%s", json_array_size(items),
			 first ? json_string_value(json_object_get(json_object_get(first, "metadata"), "name")) : "-",
			 json_object_get(json_object_get(first, "metadata"), "managedFields") ? " mf" : "");
	} else {
		snprintf(got[ngot++], sizeof got[0], "%s %s", kube_watch_type_name(type),
			 json_string_value(json_object_get(meta, "name")));
	}
	return ngot == stop_at;
}

/* Turns of a caller's poll loop until the watch stops (its code) or idles
 * (0, after `turns` turns without an event). */
static int drive(kube_watch_multi *w, int turns, bh_error *e)
{
	for (int k = 0; k < turns; k++) {
		struct pollfd p[16];
		size_t n;
		int tmo;
		const struct pollfd *fp = kube_watch_multi_fds(w, &n, &tmo);
		ck_assert_uint_lt(n, 16);
		if (n)
			memcpy(p, fp, n * sizeof *p);
		if (tmo < 0 || tmo > 100)
			tmo = 100;
		if (poll(p, n, tmo) <= 0)
			for (size_t i = 0; i < n; i++)
				p[i].revents = 0;
		int rc = kube_watch_multi_run(w, p, n, e);
		if (rc)
			return rc;
	}
	return 0;
}

static const char *line(size_t i)
{
	static char copy[512];
	pthread_mutex_lock(&mu);
	snprintf(copy, sizeof copy, "%s", i < nconn ? lines[i] : "");
	pthread_mutex_unlock(&mu);
	return copy;
}

START_TEST(test_watch_multi)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	pthread_t th;
	char url[64];
	bh_error e = {0};
	static const kube_resource cm = {.group = "", .version = "v1", .resource = "configmaps", .kind = "ConfigMap",
					 .namespaced = 1};
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(lfd, 8), 0);
	ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&a, &al), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, server, NULL), 0);
	snprintf(url, sizeof url, "http://127.0.0.1:%u", ntohs(a.sin_port));
	kube_config cfg = {0};
	cfg.server = url;
	kube_client *c = kube_curl_client_new(&cfg, &e);
	ck_assert_ptr_nonnull(c);
	kube_retry_policy rp = {.max_attempts = 1, .base_ms = 20, .max_ms = 100};
	kube_client_set_retry(c, &rp);
	kube_watch_opts o = {.timeout_seconds = 30, .label_selector = "app=x"};
	kube_watch_multi *w = kube_watch_multi_new(c, &cm, "ns", &o, on_event, NULL, &e);
	ck_assert_ptr_nonnull(w);
	/* idle until resumed: nothing to poll, no wait asked */
	size_t n;
	int tmo;
	kube_watch_multi_fds(w, &n, &tmo);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(tmo, -1);
	ck_assert_int_eq(kube_watch_multi_relist(w, &e), 0);
	ck_assert_str_eq(line(0), "GET /api/v1/namespaces/ns/configmaps?labelSelector=app%3Dx&limit=500 HTTP/1.1");
	ck_assert_int_eq(ngot, 1);
	ck_assert_str_eq(got[0], "RELIST 1 a");
	kube_watch_multi_resume(w, 0);
	/* the stream, its end, the next from the bookmark's version: 410 */
	ck_assert_int_eq(drive(w, 100, &e), BH_EGONE);
	ck_assert_str_eq(line(1), "GET /api/v1/namespaces/ns/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=30"
				  "&resourceVersion=5&labelSelector=app%3Dx HTTP/1.1");
	ck_assert_str_eq(line(2), "GET /api/v1/namespaces/ns/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=30"
				  "&resourceVersion=7&labelSelector=app%3Dx HTTP/1.1");
	ck_assert_int_eq(ngot, 2);
	ck_assert_str_eq(got[1], "ADDED b");
	/* idle until listed again */
	ck_assert_int_eq(drive(w, 3, &e), 0);
	ck_assert_str_eq(line(3), "");
	ck_assert_int_eq(kube_watch_multi_relist(w, &e), 0);
	ck_assert_str_eq(got[2], "RELIST 0 -");
	stop_at = 4;
	kube_watch_multi_resume(w, 0);
	/* a 500, retried from the same version; the change stops it */
	ck_assert_int_eq(drive(w, 100, &e), 0);
	ck_assert_int_eq(ngot, 4);
	ck_assert_str_eq(got[3], "MODIFIED c");
	ck_assert(strstr(line(4), "&resourceVersion=9&"));
	ck_assert(strstr(line(5), "&resourceVersion=9&"));
	ck_assert_str_eq(line(6), "");
	/* resumed: refused, the watch stops with the server's reason */
	kube_watch_multi_resume(w, 0);
	int rc = drive(w, 100, &e);
	ck_assert_msg(rc == BH_EDENIED, "rc %d: %s [%s]", rc, e.msg, line(6));
	ck_assert_msg(strstr(e.msg, "watch configmaps") != NULL, "%s", e.msg);
	ck_assert(strstr(line(6), "&resourceVersion=10&"));
	ck_assert_int_eq(ngot, 4);
	pthread_join(th, NULL);
	kube_watch_multi_free(w);
	kube_client_free(c);
	close(lfd);
}
END_TEST

/* ---- a carrier of our own --------------------------------------------------------- */
static char car_path[8][256];
static int car_adds, car_stops;

static int car_add(void *cud, const kube_request *req, kube_response *resp, kube_watch_multi *w, bh_error *err)
{
	(void)cud;
	(void)w;
	(void)err;
	ck_assert_int_lt(car_adds, 8);
	snprintf(car_path[car_adds++], sizeof car_path[0], "%s", req->path);
	resp->status = 200; /* as a carrier sets it when the head comes */
	return 0;
}

static void car_stop(void *cud, kube_watch_multi *w)
{
	(void)cud;
	(void)w;
	car_stops++;
}

static const kube_watch_carrier carrier = {car_add, car_stop, NULL};

/* One turn: the wait fds asks for (*tmo), then a run. */
static int turn(kube_watch_multi *w, int *tmo, bh_error *e)
{
	size_t n;
	kube_watch_multi_fds(w, &n, tmo);
	ck_assert_uint_eq(n, 0); /* the carrier's connection is polled by its owner */
	return kube_watch_multi_run(w, NULL, 0, e);
}

START_TEST(test_watch_multi_carrier)
{
	static const kube_resource cm = {.group = "", .version = "v1", .resource = "configmaps", .kind = "ConfigMap",
					 .namespaced = 1};
	static const char ev1[] = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"b\",\"resourceVersion\":\"6\"}}}\n"
				  "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"7\"}}}\n";
	static const char ev2[] = "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"c\",\"resourceVersion\":\"8\"}}}\n";
	bh_error e = {0};
	int tmo;
	kube_config cfg = {0};
	ngot = 0; /* as a test of its own (CK_FORK=no runs both in one process) */
	stop_at = -1;
	cfg.server = "http://127.0.0.1:1"; /* never contacted: the carrier carries */
	kube_client *c = kube_curl_client_new(&cfg, &e);
	ck_assert_ptr_nonnull(c);
	kube_watch_opts o = {.timeout_seconds = 30};
	kube_watch_multi *w = kube_watch_multi_new(c, &cm, "ns", &o, on_event, NULL, &e);
	ck_assert_ptr_nonnull(w);
	kube_watch_multi_carrier(w, &carrier);
	kube_watch_multi_resume(w, 0);
	/* the stream starts on the carrier, which has nothing yet: no wait asked */
	ck_assert_int_eq(turn(w, &tmo, &e), 0);
	ck_assert_int_eq(car_adds, 1);
	ck_assert_str_eq(car_path[0], "/api/v1/namespaces/ns/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=30");
	ck_assert_int_eq(tmo, -1);
	/* bytes split mid-line: kept by the hand-over, decoded by the run */
	ck_assert_int_eq(kube_watch_multi_data(w, ev1, 30), 0);
	ck_assert_int_eq(ngot, 0);
	kube_watch_multi_fds(w, &(size_t){0}, &tmo);
	ck_assert_int_eq(tmo, 0); /* bytes wait: no sleep before the run */
	ck_assert_int_eq(kube_watch_multi_run(w, NULL, 0, &e), 0);
	ck_assert_int_eq(ngot, 0);
	ck_assert_int_eq(kube_watch_multi_data(w, ev1 + 30, sizeof ev1 - 1 - 30), 0);
	ck_assert_int_eq(turn(w, &tmo, &e), 0);
	ck_assert_int_eq(ngot, 1);
	ck_assert_str_eq(got[0], "ADDED b");
	/* its end: the next stream, from the bookmark's version */
	kube_watch_multi_end(w, 0, NULL, 1);
	ck_assert_int_eq(turn(w, &tmo, &e), 0);
	ck_assert_int_eq(turn(w, &tmo, &e), 0);
	ck_assert_int_eq(car_adds, 2);
	ck_assert(strstr(car_path[1], "&resourceVersion=7"));
	/* one that never left goes again at once, from the same version */
	kube_watch_multi_end(w, BH_EUNAVAIL, &(bh_error){BH_EUNAVAIL, "connection refused"}, 0);
	ck_assert_int_eq(turn(w, &tmo, &e), 0);
	ck_assert_int_eq(turn(w, &tmo, &e), 0);
	ck_assert_int_eq(car_adds, 3);
	ck_assert(strstr(car_path[2], "&resourceVersion=7"));
	/* the callback asks to stop: the carrier's stream is stopped, the watch idles */
	stop_at = 2;
	ck_assert_int_eq(kube_watch_multi_data(w, ev2, sizeof ev2 - 1), 0);
	ck_assert_int_eq(turn(w, &tmo, &e), 0);
	ck_assert_int_eq(ngot, 2);
	ck_assert_str_eq(got[1], "MODIFIED c");
	ck_assert_int_eq(car_stops, 1);
	ck_assert_int_eq(turn(w, &tmo, &e), 0);
	ck_assert_int_eq(tmo, -1);
	ck_assert_int_eq(car_adds, 3);
	kube_watch_multi_free(w); /* idle: nothing to stop */
	ck_assert_int_eq(car_stops, 1);
	kube_client_free(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kube_watch_multi");
	TCase *tc = tcase_create("watch");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_watch_multi);
	tcase_add_test(tc, test_watch_multi_carrier);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
