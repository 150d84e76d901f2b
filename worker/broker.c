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
			ipc_msg_free(m);
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
		if (stop)
			return ipc_send(b->sock, PROTO_KUBE_CANCEL, id, "", 0, -1, err);
	}
}

static void broker_free(void *impl)
{
	free(impl);
}

static const kube_transport_ops ops = {broker_request, broker_stream, broker_free};

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
