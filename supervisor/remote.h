/* supervisor/remote.h — .spec.kubeConfig: the workload cluster a release
 * goes to (Flux's remote clusters, Cluster-API's "<cluster>-kubeconfig"
 * Secrets). The supervisor reads the Secret named by .spec.kubeConfig.
 * secretRef (in the HelmRelease's namespace, key .key, else "value", else
 * "value.yaml") as the controller, on every reconcile (so rotated
 * credentials are picked up), and parses it with the strict tenant policy
 * (kube/config.h: no exec plugins, auth providers, file paths, proxies,
 * insecure TLS or forbidden addresses). The worker's requests then go to that
 * cluster with the kubeconfig's identity, impersonating .spec.
 * serviceAccountName there when it is set; status and Events stay on the
 * management cluster. .spec.kubeConfig.configMapRef (workload identity
 * providers) is refused by the model: no provider exists here. */
#ifndef BH_SUPERVISOR_REMOTE_H
#define BH_SUPERVISOR_REMOTE_H

#include <jansson.h>
#include <stddef.h>

#include "kube/config.h"
#include "kube/kube.h"
#include "lib/error.h"

#define REMOTE_CLUSTER_MAX 600
/* Condition reason when the kubeconfig cannot be used. */
#define REMOTE_REASON "InvalidKubeConfig"

/* Loads hr's (borrowed) remote cluster: 0 with *cfg NULL when hr has no
 * .spec.kubeConfig; 0 with *cfg (new, kube_config_free) and cluster set to
 * a name for logs and audit records ("<server> (Secret <ns>/<name>)");
 * BH_ENOTFOUND (the Secret or its key is missing: Cluster API may not
 * have written it yet), BH_EDENIED / BH_EINVAL (the kubeconfig fails the
 * strict policy or does not parse), or an API error, with err saying
 * which Secret and why. */
int remote_load(kube_client *kc, const json_t *hr, kube_config **cfg, char *cluster, size_t n, bh_error *err);

/* The user hr's worker impersonates on the remote cluster, as Flux:
 * "system:serviceaccount:<ns>:<.spec.serviceAccountName>" when it is set,
 * else "" (the kubeconfig's own identity: --default-service-account is a
 * management-cluster policy). BH_EINVAL for an invalid name. */
int remote_identity(const json_t *hr, char *buf, size_t n, bh_error *err);

/* The pure part: the kubeconfig from a Secret object (borrowed). */
int remote_from_secret(const json_t *secret, const char *key, kube_config **cfg, bh_error *err);

#endif
