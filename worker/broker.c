/* worker/broker.c — see broker.h. */
#include "worker/broker.h"

#include <stdlib.h>
#include <string.h>

#include "ipc/ipc.h"
#include "lib/buf.h"
#include "proto/proto.h"

typedef struct broker {
	int sock;
	uint32_t next_id;
	/* a watch this side stopped whose last answer (its KUBE_RESPONSE) has
	 * not come: the broker still counts it among the requests in flight */
	uint32_t cancelled;
} broker;

/* Sends req as a PROTO_KUBE_REQUEST frame; *id gets its request id. */
static int send_request(broker *b, const kube_request *req, uint32_t *id, bh_error *err)
{
	proto_header h[PROTO_MAX_HEADERS];
	char *owned[PROTO_MAX_HEADERS];
	size_t nh = 0, no = 0;
	bh_buf msg = BH_BUF_INIT;
	int rc;

	*id = ++b->next_id;
	if (req->content_type)
		h[nh++] = (proto_header){"Content-Type", (char *)req->content_type};
	h[nh++] = (proto_header){"Accept", (char *)(req->accept ? req->accept : "application/json")};
	for (const char *const *l = req->headers; l && *l && nh < PROTO_MAX_HEADERS; l++) {
		const char *colon = strchr(*l, ':');
		char *line;
		if (!colon)
			continue;
		if (!(line = strdup(*l))) {
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
			goto done;
		}
		owned[no++] = line;
		line[colon - *l] = '\0';
		h[nh].name = line;
		h[nh].value = line + (colon - *l) + 1 + strspn(colon + 1, " ");
		nh++;
	}
	if ((rc = proto_kube_request_encode(&msg, req->method, req->path, h, nh, req->body ? req->body : "",
					    req->body ? req->body_len : 0)) < 0) {
		bh_error_set(err, rc, "out of memory encoding a request");
		goto done;
	}
	rc = ipc_send(b->sock, PROTO_KUBE_REQUEST, *id, msg.data, msg.len, -1, err);
done:
	bh_buf_free(&msg);
	for (size_t i = 0; i < no; i++)
		free(owned[i]);
	return rc;
}

/* Drops a late frame (of a watch this side stopped, or of a request whose
 * answer was already refused as a stream); the last one of the stopped
 * watch frees its place in the broker's count. */
static void drop_late(broker *b, ipc_msg *m)
{
	if (m->hdr.type == PROTO_KUBE_RESPONSE && m->hdr.id == b->cancelled)
		b->cancelled = 0;
	ipc_msg_free(m);
}

/* The next frame for request id (a KUBE_STREAM piece, or its KUBE_RESPONSE).
 * Late frames of a watch this side stopped (lower ids) are dropped. */
static int recv_answer(broker *b, const kube_request *req, uint32_t id, ipc_msg *m, bh_error *err)
{
	for (;;) {
		int rc = ipc_recv(b->sock, IPC_MAX_PAYLOAD, 0, m, err);
		if (rc < 0) {
			bh_error_prefix(err, "waiting for the broker's answer to %s %s", req->method, req->path);
			return BH_EUNAVAIL == rc ? rc : BH_EIO;
		}
		if ((m->hdr.type == PROTO_KUBE_RESPONSE || m->hdr.type == PROTO_KUBE_STREAM) && m->hdr.id == id)
			return 0;
		if ((m->hdr.type == PROTO_KUBE_RESPONSE || m->hdr.type == PROTO_KUBE_STREAM) && m->hdr.id < id) {
			drop_late(b, m);
			continue;
		}
		rc = bh_error_set(err, BH_EPROTO, "unexpected %s message from the supervisor", proto_type_name(m->hdr.type));
		ipc_msg_free(m);
		return rc;
	}
}

/* A KUBE_RESPONSE into resp. */
static int take_response(const ipc_msg *m, kube_response *resp, bh_error *err)
{
	uint32_t status;
	const unsigned char *body;
	size_t blen;
	int rc = proto_kube_response_decode(m->payload, m->hdr.len, &status, &body, &blen, err);
	if (rc < 0)
		return rc;
	resp->status = status;
	resp->content_type = strdup("application/json");
	bh_buf_put(&resp->body, body, blen);
	return 0;
}

static int broker_request(void *impl, const kube_request *req, kube_response *resp, bh_error *err)
{
	broker *b = impl;
	uint32_t id;
	ipc_msg m = {0};
	int rc;
	if ((rc = send_request(b, req, &id, err)) < 0)
		return rc;
	for (;;) {
		if ((rc = recv_answer(b, req, id, &m, err)) < 0)
			return rc;
		if (m.hdr.type == PROTO_KUBE_RESPONSE)
			break;
		ipc_msg_free(&m);
		return bh_error_set(err, BH_EPROTO, "a stream answered %s %s", req->method, req->path);
	}
	rc = take_response(&m, resp, err);
	ipc_msg_free(&m);
	return rc;
}

/* A watch: the broker forwards the stream's bytes as KUBE_STREAM frames and
 * ends it with the KUBE_RESPONSE. When fn stops it, a KUBE_CANCEL tells the
 * broker; what it sent meanwhile is dropped by recv_answer. */
static int broker_stream(void *impl, const kube_request *req, kube_response *resp, kube_stream_fn fn, void *ud,
			 bh_error *err)
{
	broker *b = impl;
	uint32_t id;
	int rc;
	if ((rc = send_request(b, req, &id, err)) < 0)
		return rc;
	for (;;) {
		ipc_msg m = {0};
		int stop;
		if ((rc = recv_answer(b, req, id, &m, err)) < 0)
			return rc;
		if (m.hdr.type == PROTO_KUBE_RESPONSE) {
			rc = take_response(&m, resp, err);
			ipc_msg_free(&m);
			return rc;
		}
		resp->status = 200;
		stop = m.hdr.len && fn(ud, (const char *)m.payload, m.hdr.len);
		ipc_msg_free(&m);
		if (stop) {
			b->cancelled = id;
			return ipc_send(b->sock, PROTO_KUBE_CANCEL, id, "", 0, -1, err);
		}
	}
}

/* A batch's requests [at, end) still waiting for an answer when the
 * channel broke with e (recv: while reading, which the single call words
 * so too): each fails with it, as the single call would. */
static void batch_broken(const kube_request *reqs, int *rcs, const unsigned char *waiting, size_t at, size_t end,
			 const bh_error *e, int recv, bh_error *const *errs)
{
	int code = !recv || e->code == BH_EUNAVAIL ? e->code : BH_EIO;
	for (size_t i = at; i < end; i++) {
		if (!waiting[i - at])
			continue;
		if (recv)
			rcs[i] = bh_error_set(errs[i], code, "waiting for the broker's answer to %s %s: %s", reqs[i].method,
					      reqs[i].path, e->msg);
		else
			rcs[i] = bh_error_set(errs[i], code, "%s", e->msg);
	}
}

/* One round of a batch: requests [at, end) (at most KUBE_BATCH_MAX) all
 * sent, then their answers read as they come, matched by id. Returns 0, or
 * the code that broke the channel while reading (each request of the round
 * without an answer then fails with it). */
static int batch_round(broker *b, size_t at, size_t end, const kube_request *reqs, kube_response *resps, int *rcs,
		       bh_error *const *errs)
{
	uint32_t ids[KUBE_BATCH_MAX];
	unsigned char waiting[KUBE_BATCH_MAX] = {0};
	size_t nwait = 0;
	bh_error e;
	int rc;
	for (size_t i = at; i < end; i++)
		if ((rcs[i] = send_request(b, &reqs[i], &ids[i - at], errs[i])) == 0) {
			waiting[i - at] = 1;
			nwait++;
		}
	while (nwait > 0) {
		ipc_msg m = {0};
		size_t i = at;
		if ((rc = ipc_recv(b->sock, IPC_MAX_PAYLOAD, 0, &m, &e)) < 0) {
			batch_broken(reqs, rcs, waiting, at, end, &e, 1, errs);
			return rc;
		}
		if ((m.hdr.type != PROTO_KUBE_RESPONSE && m.hdr.type != PROTO_KUBE_STREAM) || m.hdr.id > b->next_id) {
			bh_error_set(&e, BH_EPROTO, "unexpected %s message from the supervisor", proto_type_name(m.hdr.type));
			ipc_msg_free(&m);
			batch_broken(reqs, rcs, waiting, at, end, &e, 0, errs);
			return BH_EPROTO;
		}
		while (i < end && !(waiting[i - at] && ids[i - at] == m.hdr.id))
			i++;
		if (i == end) { /* late: a stopped watch's, or an answer refused below */
			drop_late(b, &m);
			continue;
		}
		waiting[i - at] = 0;
		nwait--;
		if (m.hdr.type == PROTO_KUBE_RESPONSE)
			rcs[i] = take_response(&m, &resps[i], errs[i]);
		else
			rcs[i] = bh_error_set(errs[i], BH_EPROTO, "a stream answered %s %s", reqs[i].method, reqs[i].path);
		ipc_msg_free(&m);
	}
	return 0;
}

/* The requests sent before the first answer is read: one round trip for
 * up to KUBE_BATCH_MAX. A refusal is an answer (403, 429), so it fails
 * its request only. A watch this side stopped that the broker still counts
 * takes one place: the round is one smaller. */
static void broker_requests(void *impl, size_t n, const kube_request *reqs, kube_response *resps, int *rcs,
			    bh_error *const *errs)
{
	broker *b = impl;
	size_t at = 0;
	int rc = 0;
	while (at < n) {
		size_t width = KUBE_BATCH_MAX - (b->cancelled ? 1 : 0);
		size_t end = n - at < width ? n : at + width;
		if (rc < 0) { /* the channel broke in an earlier round */
			for (size_t i = at; i < n; i++)
				rcs[i] = bh_error_set(errs[i], rc, "%s %s not sent: the channel to the broker broke",
						      reqs[i].method, reqs[i].path);
			return;
		}
		rc = batch_round(b, at, end, reqs, resps, rcs, errs);
		at = end;
	}
}

static void broker_free(void *impl)
{
	free(impl);
}

static const kube_transport_ops ops = {broker_request, broker_stream, broker_free, broker_requests};

kube_transport *worker_broker_transport_new(int sock, bh_error *err)
{
	broker *b = calloc(1, sizeof *b);
	kube_transport *t;
	if (!b) {
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	b->sock = sock;
	if (!(t = kube_transport_new(&ops, b))) {
		free(b);
		bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	return t;
}
