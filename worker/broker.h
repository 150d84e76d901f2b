/* worker/broker.h — the worker's side of the kube transport seam
 * (kube/transport.h): each request becomes a PROTO_KUBE_REQUEST frame to the
 * supervisor's broker, which forwards it with the tenant's identity and
 * answers with PROTO_KUBE_RESPONSE. No network access is needed (or
 * possible) in the worker. A watch (the wait's, kube/wait.h) comes back as
 * PROTO_KUBE_STREAM frames until its PROTO_KUBE_RESPONSE; PROTO_KUBE_CANCEL
 * stops it early. */
#ifndef BH_WORKER_BROKER_H
#define BH_WORKER_BROKER_H

#include "kube/transport.h"
#include "lib/error.h"

/* A transport over the worker's socket (not owned: the worker closes it). */
kube_transport *worker_broker_transport_new(int sock, bh_error *err);

#endif
