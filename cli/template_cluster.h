/* cli/template_cluster.h — the cluster `bulkhead template --dry-run=server`
 * (and the deprecated --validate) talks to, as `helm template` does with
 * them: the kubeconfig (--kubeconfig, else $KUBECONFIG's first file, else
 * ~/.kube/config; --kube-context, and --kube-apiserver, --kube-token,
 * --kube-ca-file, --kube-tls-server-name, --kube-insecure-skip-tls-verify
 * over it), the reachability check, the
 * capabilities from discovery (server version, API versions) and a live
 * `lookup` (helm/action.h action_lookup). Install's checks of the rendered
 * objects are action_install_check. */
#ifndef BH_CLI_TEMPLATE_CLUSTER_H
#define BH_CLI_TEMPLATE_CLUSTER_H

#include <jansson.h>

#include "kube/config.h"
#include "kube/kube.h"
#include "lib/error.h"

typedef struct template_cluster {
	kube_config *cfg;
	kube_client *kc;
	char version[64];          /* the server's gitVersion */
	json_t *apis;              /* discovery's API versions (strings) */
	const char **api_versions; /* borrowed from apis */
	size_t n_api_versions;
} template_cluster;

/* helm's --kube-* flags over the kubeconfig (NULL/0: not given). */
typedef struct template_kube_flags {
	const char *kubeconfig, *context;
	const char *apiserver, *token, *ca_file, *tls_server_name;
	int insecure;
	const char *as_user;          /* --kube-as-user, or NULL */
	const char *const *as_groups; /* --kube-as-group, n_as_groups of them */
	size_t n_as_groups;
} template_kube_flags;

/* Connects and reads the capabilities. The error is helm's "cluster
 * reachability check failed: kubernetes cluster unreachable: ...". */
int template_cluster_open(const template_kube_flags *f, template_cluster *tc, bh_error *err);
void template_cluster_close(template_cluster *tc);

#endif
