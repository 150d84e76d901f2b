/* tests/unit/test_worker_broker.c — worker/broker.h's batch of requests
 * (kube_transport_ops.requests) against a fake broker on a socketpair: the
 * requests all go out before any answer is read, answers out of order are
 * matched by id, a refusal or a timeout fails its request only (the kube
 * client retries that one alone), a watch stopped but still counted by the
 * broker takes a place, and a broken channel fails what waits. */
#include <check.h>
#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "kube/kube.h"
#include "proto/proto.h"
#include "worker/broker.h"
#include "tests/unit/unit_util.h"

#define MAX_SEEN 16

/* The fake broker's script runs in a thread; what it saw is checked by the
 * test afterwards (no assertion in the thread). */
typedef struct fake {
	int sock;
	int script;
	char seen[MAX_SEEN][200]; /* "TYPE id METHOD PATH" of each frame read */
	uint32_t ids[MAX_SEEN];
	int nseen;
	int early;   /* a frame came while the script waited for none */
	int failed;  /* the script could not read what it expected */
} fake;

static int fake_read(fake *f)
{
	ipc_msg m = {0};
	bh_error e;
	proto_kube_request r;
	if (f->nseen >= MAX_SEEN || ipc_recv(f->sock, IPC_MAX_PAYLOAD, 0, &m, &e) < 0) {
		f->failed = 1;
		return -1;
	}
	f->ids[f->nseen] = m.hdr.id;
	if (m.hdr.type == PROTO_KUBE_REQUEST && proto_kube_request_decode(m.payload, m.hdr.len, &r, &e) == 0) {
		snprintf(f->seen[f->nseen], sizeof f->seen[0], "REQ %s %s", r.method, r.path);
		proto_kube_request_free(&r);
	} else {
		snprintf(f->seen[f->nseen], sizeof f->seen[0], "%s", proto_type_name(m.hdr.type));
	}
	ipc_msg_free(&m);
	return f->nseen++;
}

static void fake_answer(fake *f, uint32_t id, uint32_t status, const char *body)
{
	bh_buf b = BH_BUF_INIT;
	bh_error e;
	proto_kube_response_encode(&b, status, body, strlen(body));
	if (ipc_send(f->sock, PROTO_KUBE_RESPONSE, id, b.data, b.len, -1, &e) < 0)
		f->failed = 1;
	bh_buf_free(&b);
}

/* Notes a frame that arrives within ms while none should. */
static void fake_expect_quiet(fake *f, int ms)
{
	struct pollfd p = {f->sock, POLLIN, 0};
	if (poll(&p, 1, ms) > 0)
		f->early = 1;
}

/* The answer to the request in the n-th frame: the pod named by its path's
 * last letter. */
static void fake_pod(fake *f, int n)
{
	char body[200];
	const char *name = strrchr(f->seen[n], '/');
	snprintf(body, sizeof body, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"}}", name ? name + 1 : "?");
	fake_answer(f, f->ids[n], 200, body);
}

static const char *REFUSED = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
			     "\"message\":\"bulkhead broker refused GET /api/v1/namespaces/n/pods/b: not allowed\","
			     "\"reason\":\"Forbidden\",\"code\":403}";
static const char *TIMEOUT = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
			     "\"message\":\"the API server did not answer in time\",\"reason\":\"Timeout\",\"code\":504}";

static void *fake_run(void *ud)
{
	fake *f = ud;
	switch (f->script) {
	case 1: /* four at once, answered d, b (refused), a (404), c (timeout); c again */
		for (int i = 0; i < 4; i++)
			if (fake_read(f) < 0)
				return NULL;
		fake_pod(f, 3);
		fake_answer(f, f->ids[1], 403, REFUSED);
		fake_answer(f, f->ids[0], 404, "{\"kind\":\"Status\",\"reason\":\"NotFound\",\"message\":\"pods \\\"a\\\" not found\"}");
		fake_answer(f, f->ids[2], 504, TIMEOUT);
		if (fake_read(f) < 0)
			return NULL;
		fake_pod(f, 4);
		break;
	case 2: /* a watch stopped, its end answered only after three of four */
		if (fake_read(f) < 0)
			return NULL;
		if (ipc_send(f->sock, PROTO_KUBE_STREAM, f->ids[0], "{\"type\":\"ADDED\"}\n", 17, -1, NULL) < 0)
			f->failed = 1;
		if (fake_read(f) < 0) /* the CANCEL */
			return NULL;
		for (int i = 0; i < 3; i++)
			if (fake_read(f) < 0)
				return NULL;
		fake_expect_quiet(f, 100);
		ipc_send(f->sock, PROTO_KUBE_STREAM, f->ids[0], "late\n", 5, -1, NULL);
		fake_answer(f, f->ids[0], 200, "");
		for (int i = 4; i >= 2; i--)
			fake_pod(f, i);
		if (fake_read(f) < 0)
			return NULL;
		fake_pod(f, 5);
		break;
	case 3: /* two read, then the channel breaks */
		for (int i = 0; i < 2; i++)
			if (fake_read(f) < 0)
				return NULL;
		shutdown(f->sock, SHUT_RDWR);
		break;
	}
	return NULL;
}

typedef struct rig {
	int sv[2];
	fake f;
	pthread_t th;
	kube_transport *t;
	kube_client *kc;
} rig;

static void rig_start(rig *r, int script)
{
	bh_error e;
	memset(r, 0, sizeof *r);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, r->sv), 0);
	r->f.sock = r->sv[1];
	r->f.script = script;
	ck_assert_int_eq(pthread_create(&r->th, NULL, fake_run, &r->f), 0);
	r->t = worker_broker_transport_new(r->sv[0], &e);
	ck_assert_ptr_nonnull(r->t);
	ck_assert_ptr_nonnull(r->t->ops->requests);
}

static void rig_client(rig *r)
{
	bh_error e;
	r->kc = kube_client_new(r->t, &e);
	ck_assert_ptr_nonnull(r->kc);
	kube_client_set_hooks(r->kc, unit_no_sleep, unit_no_jitter, NULL);
	r->t = NULL; /* the client's now */
}

/* After the fake's thread was joined. */
static void rig_free(rig *r)
{
	kube_client_free(r->kc);
	kube_transport_free(r->t);
	close(r->sv[0]);
	close(r->sv[1]);
}

static const kube_resource pods = {"", "v1", "pods", "Pod", 1};

START_TEST(test_batch_out_of_order)
{
	rig r;
	kube_get_item it[4];
	const char *names[] = {"a", "b", "c", "d"};
	rig_start(&r, 1);
	rig_client(&r);
	for (int i = 0; i < 4; i++)
		it[i] = (kube_get_item){.r = &pods, .ns = "n", .name = names[i]};
	kube_get_many(r.kc, it, 4);
	pthread_join(r.th, NULL);
	ck_assert_int_eq(r.f.failed, 0);
	/* all four went out before the first answer (the fake read them all
	 * first), with distinct ids; then the timed-out one alone */
	ck_assert_int_eq(r.f.nseen, 5);
	for (int i = 0; i < 4; i++) {
		char want[100];
		snprintf(want, sizeof want, "REQ GET /api/v1/namespaces/n/pods/%s", names[i]);
		ck_assert_str_eq(r.f.seen[i], want);
		for (int k = 0; k < i; k++)
			ck_assert_uint_ne(r.f.ids[i], r.f.ids[k]);
	}
	ck_assert_str_eq(r.f.seen[4], "REQ GET /api/v1/namespaces/n/pods/c");
	ck_assert_int_eq(it[0].rc, BH_ENOTFOUND);
	ck_assert_ptr_null(it[0].out);
	ck_assert_str_eq(it[0].err.msg, "GET /api/v1/namespaces/n/pods/a: 404 NotFound: pods \"a\" not found");
	/* the refusal fails b only, with the words kube_get gives it */
	ck_assert_int_eq(it[1].rc, BH_EDENIED);
	ck_assert_str_eq(it[1].err.msg, "GET /api/v1/namespaces/n/pods/b: 403 Forbidden: bulkhead broker refused GET "
					"/api/v1/namespaces/n/pods/b: not allowed");
	/* the timeout was retried, alone, and then answered */
	ck_assert_int_eq(it[2].rc, 0);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(it[2].out, "metadata"), "name")), "c");
	ck_assert_int_eq(it[3].rc, 0);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(it[3].out, "metadata"), "name")), "d");
	for (int i = 0; i < 4; i++)
		json_decref(it[i].out);
	rig_free(&r);
}
END_TEST

static int stop_at_first(void *ud, const char *data, size_t len)
{
	(void)ud;
	(void)data;
	return len > 0;
}

START_TEST(test_stopped_watch_takes_a_place)
{
	rig r;
	bh_error e, es[4];
	bh_error *errs[4] = {&es[0], &es[1], &es[2], &es[3]};
	kube_request w = {.method = "GET", .path = "/api/v1/namespaces/n/pods?watch=1"};
	kube_request reqs[4];
	kube_response wresp = KUBE_RESPONSE_INIT, resps[4];
	int rcs[4];
	const char *paths[] = {"/api/v1/namespaces/n/pods/a", "/api/v1/namespaces/n/pods/b",
			       "/api/v1/namespaces/n/pods/c", "/api/v1/namespaces/n/pods/d"};
	rig_start(&r, 2);
	ck_assert_int_eq(r.t->ops->stream(r.t->impl, &w, &wresp, stop_at_first, NULL, &e), 0);
	kube_response_free(&wresp);
	for (int i = 0; i < 4; i++) {
		reqs[i] = (kube_request){.method = "GET", .path = paths[i]};
		resps[i] = (kube_response)KUBE_RESPONSE_INIT;
	}
	r.t->ops->requests(r.t->impl, 4, reqs, resps, rcs, errs);
	pthread_join(r.th, NULL);
	ck_assert_int_eq(r.f.failed, 0);
	ck_assert_int_eq(r.f.early, 0); /* three went, the fourth waited for a place */
	ck_assert_int_eq(r.f.nseen, 6);
	ck_assert_str_eq(r.f.seen[1], "KUBE_CANCEL");
	ck_assert_str_eq(r.f.seen[5], "REQ GET /api/v1/namespaces/n/pods/d");
	for (int i = 0; i < 4; i++) {
		char want[100];
		ck_assert_int_eq(rcs[i], 0);
		ck_assert_int_eq(resps[i].status, 200);
		snprintf(want, sizeof want, "\"name\":\"%c\"", 'a' + i);
		ck_assert_ptr_nonnull(strstr(bh_buf_str(&resps[i].body), want));
		kube_response_free(&resps[i]);
	}
	rig_free(&r);
}
END_TEST

START_TEST(test_broken_channel)
{
	rig r;
	bh_error es[3];
	bh_error *errs[3] = {&es[0], &es[1], &es[2]};
	kube_request reqs[3];
	kube_response resps[3];
	int rcs[3];
	rig_start(&r, 3);
	for (int i = 0; i < 3; i++) {
		reqs[i] = (kube_request){.method = "GET", .path = i ? "/api/v1/namespaces/n/pods/b" : "/api/v1/namespaces/n/pods/a"};
		resps[i] = (kube_response)KUBE_RESPONSE_INIT;
	}
	r.t->ops->requests(r.t->impl, 2, reqs, resps, rcs, errs);
	pthread_join(r.th, NULL);
	ck_assert_int_eq(r.f.nseen, 2);
	ck_assert_int_eq(rcs[0], BH_EIO);
	ck_assert_int_eq(rcs[1], BH_EIO);
	ck_assert_msg(strstr(es[0].msg, "waiting for the broker's answer to GET /api/v1/namespaces/n/pods/a") == es[0].msg,
		      "%s", es[0].msg);
	ck_assert_msg(strstr(es[1].msg, "waiting for the broker's answer to GET /api/v1/namespaces/n/pods/b") == es[1].msg,
		      "%s", es[1].msg);
	for (int i = 0; i < 3; i++)
		kube_response_free(&resps[i]);
	rig_free(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("worker_broker");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_batch_out_of_order);
	tcase_add_test(tc, test_stopped_watch_takes_a_place);
	tcase_add_test(tc, test_broken_channel);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
