/* kube/curl.h — the libcurl transport (library libbhkubecurl.a): HTTPS to
 * the API server of a kube_config with TLS verification (CA data, client
 * certificates, tls-server-name), bearer tokens re-read on rotation,
 * connection reuse and timeouts. Used by the supervisor and the CLI; the
 * worker never links it.
 */
#ifndef BH_KUBE_CURL_H
#define BH_KUBE_CURL_H

#include "kube/config.h"
#include "kube/transport.h"
#include "lib/error.h"

/* Connect timeout and default whole-request timeout in milliseconds. */
#define KUBE_CURL_CONNECT_TIMEOUT_MS 10000
#define KUBE_CURL_DEFAULT_TIMEOUT_MS 60000

/* A transport for cfg (copied: the caller keeps its cfg). Free with
 * kube_transport_free() or hand to kube_client_new(). */
kube_transport *kube_curl_transport_new(const kube_config *cfg, bh_error *err);

/* Convenience: transport + client for cfg. */
struct kube_client *kube_curl_client_new(const kube_config *cfg, bh_error *err);

#endif
