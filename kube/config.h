/* kube/config.h — where and how to reach a Kubernetes API server:
 * kubeconfig files (clusters, users, contexts, current-context), in-cluster
 * service-account configuration, and a strict mode for tenant kubeconfigs
 * (HelmRelease .spec.kubeConfig Secrets) that refuses anything reaching
 * outside the document (files, exec, auth-provider, proxies, insecure TLS)
 * unless the operator allowed it.
 *
 * kube_config_parse() is a pure function of its bytes (no file is read in
 * strict mode unless allowed), with size and depth limits.
 */
#ifndef BH_KUBE_CONFIG_H
#define BH_KUBE_CONFIG_H

#include <stddef.h>
#include <time.h>

#include "lib/error.h"

/* Largest kubeconfig accepted, and its deepest nesting. */
#define KUBE_CONFIG_MAX_BYTES (4u << 20)
#define KUBE_CONFIG_MAX_DEPTH 32
#define KUBE_CONFIG_MAX_NODES 200000 /* values, aliases expanded */

/* Strict-mode allowances (operator flags). */
enum {
	KUBE_ALLOW_EXEC = 1 << 0,          /* users[].user.exec */
	KUBE_ALLOW_AUTH_PROVIDER = 1 << 1, /* users[].user.auth-provider */
	KUBE_ALLOW_FILES = 1 << 2,         /* any *-file / certificate-authority / tokenFile path */
	KUBE_ALLOW_PROXY = 1 << 3,         /* clusters[].cluster.proxy-url */
	KUBE_ALLOW_INSECURE = 1 << 4,      /* clusters[].cluster.insecure-skip-tls-verify */
};

typedef struct kube_config_opts {
	int strict;          /* refuse what `allow` does not name */
	unsigned allow;      /* KUBE_ALLOW_* (strict mode only) */
	const char *context; /* use this context instead of current-context */
	const char *base_dir;/* relative file paths resolve here (NULL: cwd) */
} kube_config_opts;

/* A resolved connection: one cluster + one user. All strings owned. */
typedef struct kube_config {
	char *server;          /* "https://host:port" (no trailing slash) */
	char *tls_server_name; /* SNI / verification name, or NULL */
	int insecure;          /* skip TLS verification */
	int strict;            /* parsed in strict mode: the transport also refuses
	                        * a forbidden address (kube/addr.h) when it connects */
	char *proxy_url;       /* or NULL */
	char *ca_pem;          /* PEM bytes (NUL-terminated) or NULL */
	size_t ca_len;
	char *cert_pem;        /* client certificate PEM or NULL */
	size_t cert_len;
	char *key_pem;         /* client key PEM or NULL */
	size_t key_len;
	char *token;           /* bearer token or NULL */
	char *token_file;      /* re-read when it changes (in-cluster), or NULL */
	char *username;        /* basic auth, or NULL */
	char *password;
	char *namespace_;      /* context namespace, "default" when unset */
	char *context;         /* name of the context used (NULL in-cluster) */
	char *user;            /* name of the context's users[] entry, or NULL */
	time_t token_mtime;    /* for token_file rotation */
	long token_mtime_ns;
	time_t token_checked;  /* last stat() of token_file */
	/* exec credential plugin (users[].user.exec; strict mode needs
	 * KUBE_ALLOW_EXEC), or exec_argv == NULL */
	char **exec_argv;      /* NULL-terminated; argv[0] is the command */
	char **exec_env;       /* NULL-terminated "NAME=VALUE" added to the environment */
	char *exec_api_version;/* client.authentication.k8s.io/v1 or v1beta1 */
	time_t exec_expiry;    /* credential expiry; 0 = none given (kept until refreshed) */
	int exec_have;         /* a credential from the plugin is cached */
} kube_config;

/* Parses kubeconfig bytes (YAML or JSON) and resolves the selected context.
 * Errors name the offending field, e.g.
 * "users[0].user.exec: exec credential plugins are not allowed in tenant
 * kubeconfigs". Caller frees with kube_config_free(). */
kube_config *kube_config_parse(const char *data, size_t len,
                               const kube_config_opts *opts, bh_error *err);
/* Reads the file and parses it (base_dir defaults to the file's folder). */
kube_config *kube_config_load(const char *path, const kube_config_opts *opts,
                              bh_error *err);
/* In-cluster configuration: KUBERNETES_SERVICE_HOST/PORT and the service
 * account files under root (NULL = "/"): root/var/run/secrets/kubernetes.io/
 * serviceaccount/{token,ca.crt,namespace}. The token file is re-read on
 * rotation (see kube_config_token). */
kube_config *kube_config_in_cluster_load(const char *root, bh_error *err);
/* The default chain: $KUBECONFIG (first entry), else in-cluster when
 * KUBERNETES_SERVICE_HOST is set, else ~/.kube/config. */
kube_config *kube_config_default_load(bh_error *err);
kube_config *kube_config_dup(const kube_config *cfg, bh_error *err);
void kube_config_free(kube_config *cfg);

/* The bearer token to send now (borrowed, may be NULL): re-reads
 * token_file when its mtime/size changed (checked at most once a second). */
const char *kube_config_token(kube_config *cfg, bh_error *err);

/* Brings the credentials up to date before a request: token_file rotation,
 * and the exec plugin (run when no credential is cached or it expires
 * within 10 s; its token or client certificate replaces cfg's). Returns 0
 * or an error naming the plugin. */
int kube_config_refresh(kube_config *cfg, bh_error *err);
/* kube_config_refresh before sending method path: its error prefixed with
 * them, and a timeout or unavailability turned into BH_EINVAL (a credential
 * that could not be had is not a transient API error: no retry). */
int kube_config_refresh_for(kube_config *cfg, const char *method, const char *path, bh_error *err);
/* Forgets a cached exec credential (after a 401), so the next refresh runs
 * the plugin again. */
void kube_config_invalidate(kube_config *cfg);

/* Limits on the exec plugin: run time and output size. */
#define KUBE_EXEC_TIMEOUT_MS 30000
#define KUBE_EXEC_MAX_OUTPUT (1u << 20)

#endif
