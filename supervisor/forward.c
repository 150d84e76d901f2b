/* supervisor/forward.c — see forward.h. */
#include "supervisor/forward.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kube/curl.h"
#include "kube/kube.h"
#include "supervisor/acl.h"
#include "supervisor/audit.h"
#include "supervisor/broker.h"
#include "supervisor/log.h"

#define FWD_TIMEOUT_MS 30000

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static fwd_req *in_head, *in_tail, *done_head;
static int wake = -1;
static int settle_failed; /* said once */

void fwd_req_free(fwd_req *r)
{
	if (!r)
		return;
	free(r->key);
	free(r->identity);
	free(r->cluster);
	kube_config_free(r->remote);
	proto_kube_request_free(&r->r);
	bh_buf_free(&r->body);
	free(r);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static void perform(kube_client *kc, fwd_req *f)
{
	kube_request req;
	kube_response resp = KUBE_RESPONSE_INIT;
	char user_h[ACL_IDENTITY_MAX + 32];
	const char *headers[2] = {NULL};
	bh_error err;
	double t0 = now_ms();
	memset(&req, 0, sizeof req);
	req.method = f->r.method;
	req.path = f->r.path;
	req.content_type = proto_kube_request_header(&f->r, "Content-Type");
	req.accept = proto_kube_request_header(&f->r, "Accept");
	req.body = f->r.body_len ? (const char *)f->r.body : NULL;
	req.body_len = f->r.body_len;
	req.timeout_ms = FWD_TIMEOUT_MS;
	if (f->identity) {
		/* the user alone: the API server gives an impersonated
		 * ServiceAccount its groups (system:serviceaccounts,
		 * system:serviceaccounts:<ns>, system:authenticated), and the
		 * controller may impersonate nothing else (deploy/bulkhead.yaml) */
		if ((size_t)snprintf(user_h, sizeof user_h, "Impersonate-User: %s", f->identity) >= sizeof user_h) {
			f->status = 0;
			snprintf(f->error, sizeof f->error, "the identity to impersonate is too long");
			return;
		}
		headers[0] = user_h;
		req.headers = headers;
	}
	if (kube_request_send(kc, &req, &resp, &err) < 0) {
		f->status = 0;
		snprintf(f->error, sizeof f->error, "%.500s", err.msg);
	} else {
		f->status = resp.status;
		f->body = resp.body;
		bh_buf_init(&resp.body);
	}
	kube_response_free(&resp);
	f->ms = now_ms() - t0;
}

static kube_config *fwd_cfg;

static void *fwd_main(void *arg)
{
	kube_client *kc = arg;
	for (;;) {
		fwd_req *f;
		bh_error e;
		pthread_mutex_lock(&mu);
		while (!in_head) {
			struct timespec ts;
			if (!audit_unsynced()) { /* nothing to settle: sleep until work comes */
				pthread_cond_wait(&cv, &mu);
				continue;
			}
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			if (pthread_cond_timedwait(&cv, &mu, &ts) != 0 && !in_head) {
				/* idle for a second: the outcomes written last become durable */
				pthread_mutex_unlock(&mu);
				if (audit_settle(&e) < 0 && !settle_failed++) /* the next intent fails the job anyway */
					svlog(SVLOG_ERROR, "%s", e.msg);
				pthread_mutex_lock(&mu);
			}
		}
		f = in_head;
		in_head = f->next;
		if (!in_head)
			in_tail = NULL;
		pthread_mutex_unlock(&mu);
		f->next = NULL;
		if (audit_sync(f->audit_seq, &e) < 0) { /* fail closed: never sent */
			snprintf(f->audit_error, sizeof f->audit_error, "%.500s", e.msg[0] ? e.msg : "audit log: not synced");
			goto done;
		}
		if (f->remote) { /* a remote cluster: a client of its own for this request */
			kube_client *rc = kube_curl_client_new(f->remote, &e);
			if (rc) {
				kube_client_set_timeout(rc, FWD_TIMEOUT_MS);
				perform(rc, f);
				kube_client_free(rc);
			} else {
				f->status = 0;
				snprintf(f->error, sizeof f->error, "remote cluster: %.480s", e.msg);
			}
		} else {
			perform(kc, f);
		}
		{
			audit_rec rec = {"outcome", f->audit_id, f->key, f->identity, broker_verb(f->r.method, f->r.path),
					 f->r.path, f->status, f->ms, f->status ? NULL : f->error, f->cluster};
			if (audit_write_outcome(&rec, &e) < 0)
				snprintf(f->audit_error, sizeof f->audit_error, "%.500s", e.msg[0] ? e.msg : "audit log: not written");
		}
		if (!f->remote && (f->status < 200 || f->status > 299) && f->r.body_len) {
			/* Start the next request on a fresh connection: a server that
			 * refused this one before reading its body (kubesim does) would
			 * otherwise read the next request from the leftover bytes. */
			bh_error e;
			kube_client *fresh = kube_curl_client_new(fwd_cfg, &e);
			if (fresh) {
				kube_client_set_timeout(fresh, FWD_TIMEOUT_MS);
				kube_client_free(kc);
				kc = fresh;
			}
		}
	done:
		fwd_done(f);
	}
	return NULL;
}

void fwd_done(fwd_req *f)
{
	int first;
	pthread_mutex_lock(&mu);
	first = !done_head;
	f->next = done_head;
	done_head = f;
	pthread_mutex_unlock(&mu);
	/* one byte per batch: the main loop drains the pipe before it takes
	 * the answers, so a byte is needed only when the list was empty */
	if (first && write(wake, "f", 1) < 0) {
		/* the main loop also polls on a timer */
	}
}

const kube_config *fwd_config(void)
{
	return fwd_cfg;
}

int fwd_start(const kube_config *cfg, int n, int wake_fd, bh_error *err)
{
	wake = wake_fd;
	if (!(fwd_cfg = kube_config_dup(cfg, err)))
		return err ? err->code : BH_ENOMEM;
	for (int i = 0; i < n; i++) {
		kube_client *kc = kube_curl_client_new(cfg, err);
		pthread_t th;
		if (!kc)
			return err ? err->code : BH_EIO;
		kube_client_set_timeout(kc, FWD_TIMEOUT_MS);
		if (pthread_create(&th, NULL, fwd_main, kc) != 0)
			return bh_error_set(err, BH_EIO, "cannot start a forwarding thread");
		pthread_detach(th);
	}
	return 0;
}

void fwd_submit(fwd_req *r)
{
	r->next = NULL;
	pthread_mutex_lock(&mu);
	if (in_tail)
		in_tail->next = r;
	else
		in_head = r;
	in_tail = r;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}

fwd_req *fwd_take_done(void)
{
	fwd_req *l, *rev = NULL;
	pthread_mutex_lock(&mu);
	l = done_head;
	done_head = NULL;
	pthread_mutex_unlock(&mu);
	while (l) { /* oldest first */
		fwd_req *n = l->next;
		l->next = rev;
		rev = l;
		l = n;
	}
	return rev;
}
