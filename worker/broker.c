/* worker/broker.c — see broker.h. */
#include "worker/broker.h"

#include <stdlib.h>
#include <string.h>

#include "ipc/ipc.h"
#include "proto/proto.h"

typedef struct broker {
	int sock;
	uint32_t next_id;
} broker;

static int broker_request(void *impl, const kube_request *req, kube_response *resp, bh_error *err)
{
	broker *b = impl;
	proto_header h[PROTO_MAX_HEADERS];
	char *owned[PROTO_MAX_HEADERS];
	size_t nh = 0, no = 0;
	bh_buf msg = BH_BUF_INIT;
	uint32_t id = ++b->next_id, status;
	ipc_msg m = {0};
	const unsigned char *body;
	size_t blen;
	int rc;

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
	if ((rc = ipc_send(b->sock, PROTO_KUBE_REQUEST, id, msg.data, msg.len, -1, err)) < 0)
		goto done;
	for (;;) {
		if ((rc = ipc_recv(b->sock, IPC_MAX_PAYLOAD, 0, &m, err)) < 0) {
			bh_error_prefix(err, "waiting for the broker's answer to %s %s", req->method, req->path);
			rc = BH_EUNAVAIL == rc ? rc : BH_EIO;
			goto done;
		}
		if (m.hdr.type == PROTO_KUBE_RESPONSE && m.hdr.id == id)
			break;
		ipc_msg_free(&m);
		rc = bh_error_set(err, BH_EPROTO, "unexpected %s message from the supervisor", proto_type_name(m.hdr.type));
		goto done;
	}
	if ((rc = proto_kube_response_decode(m.payload, m.hdr.len, &status, &body, &blen, err)) < 0)
		goto done;
	resp->status = status;
	resp->content_type = strdup("application/json");
	bh_buf_put(&resp->body, body, blen);
	rc = 0;
done:
	ipc_msg_free(&m);
	bh_buf_free(&msg);
	for (size_t i = 0; i < no; i++)
		free(owned[i]);
	return rc;
}

static int broker_stream(void *impl, const kube_request *req, kube_response *resp, kube_stream_fn fn, void *ud,
			 bh_error *err)
{
	(void)impl;
	(void)resp;
	(void)fn;
	(void)ud;
	return bh_error_set(err, BH_EDENIED, "%s %s: watch streams are not available to workers", req->method, req->path);
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
