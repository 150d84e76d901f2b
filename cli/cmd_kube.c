/* cli/cmd_kube.c — `bulkhead check-kubeconfig FILE [--strict] ...`: loads a
 * kubeconfig the way the controller would (strict mode: as a tenant's
 * .spec.kubeConfig Secret), prints what it resolved to, and optionally
 * contacts the server. Exit 0 valid, 1 invalid or unreachable, 2 usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/config.h"
#include "kube/curl.h"
#include "kube/kube.h"

int cmd_check_kubeconfig(int argc, char **argv);

static void usage(FILE *f)
{
	fprintf(f, "usage: bulkhead check-kubeconfig FILE [--strict] [--context NAME] [--connect]\n"
	           "         [--allow-exec] [--allow-auth-provider] [--allow-files] [--allow-proxy]\n"
	           "         [--allow-insecure]\n"
	           "  --strict     check as a tenant kubeconfig (HelmRelease .spec.kubeConfig): https only,\n"
	           "               no link-local, cloud metadata or loopback kubelet address (in any\n"
	           "               encoding); refuse exec, auth-provider, file paths, proxy-url and\n"
	           "               insecure-skip-tls-verify unless allowed by the --allow-* flags\n"
	           "  --connect    also call the server's /version endpoint\n");
}

int cmd_check_kubeconfig(int argc, char **argv)
{
	kube_config_opts o = {0};
	const char *file = NULL;
	int connect = 0;
	static const struct {
		const char *flag;
		unsigned bit;
	} allows[] = {
		{"--allow-exec", KUBE_ALLOW_EXEC},   {"--allow-auth-provider", KUBE_ALLOW_AUTH_PROVIDER},
		{"--allow-files", KUBE_ALLOW_FILES}, {"--allow-proxy", KUBE_ALLOW_PROXY},
		{"--allow-insecure", KUBE_ALLOW_INSECURE},
	};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int matched = 0;
		for (size_t k = 0; k < sizeof allows / sizeof allows[0]; k++)
			if (!strcmp(a, allows[k].flag)) {
				o.allow |= allows[k].bit;
				matched = 1;
			}
		if (matched)
			continue;
		if (!strcmp(a, "--strict")) {
			o.strict = 1;
		} else if (!strcmp(a, "--connect")) {
			connect = 1;
		} else if (!strcmp(a, "--context") && i + 1 < argc) {
			o.context = argv[++i];
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "bulkhead check-kubeconfig: unknown flag \"%s\"\n", a);
			usage(stderr);
			return 2;
		} else if (!file) {
			file = a;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!file) {
		usage(stderr);
		return 2;
	}
	if (o.allow && !o.strict) {
		fprintf(stderr, "bulkhead check-kubeconfig: --allow-* flags only apply with --strict\n");
		return 2;
	}
	bh_error err = {0};
	kube_config *cfg = kube_config_load(file, &o, &err);
	if (!cfg) {
		fprintf(stderr, "bulkhead check-kubeconfig: %s\n", err.msg);
		return 1;
	}
	const char *auth = cfg->exec_argv ? "exec plugin" : cfg->cert_pem ? "client certificate" : cfg->token_file ? "token file" :
	                   cfg->token ? "bearer token" : cfg->username ? "basic" : "none";
	printf("context: %s\nserver: %s\nnamespace: %s\nauth: %s\ntls: %s%s%s\n", cfg->context ? cfg->context : "",
	       cfg->server, cfg->namespace_, auth,
	       cfg->insecure ? "verification disabled" : cfg->ca_pem ? "custom CA" : "system CAs",
	       cfg->tls_server_name ? ", server name " : "", cfg->tls_server_name ? cfg->tls_server_name : "");
	if (cfg->proxy_url)
		printf("proxy: %s\n", cfg->proxy_url);
	int rc = 0;
	if (connect) {
		kube_client *c = kube_curl_client_new(cfg, &err);
		json_t *v = NULL;
		if (!c || kube_request_json(c, "GET", "/version", NULL, NULL, &v, &err)) {
			fprintf(stderr, "bulkhead check-kubeconfig: %s\n", err.msg);
			rc = 1;
		} else {
			const char *gv = json_string_value(json_object_get(v, "gitVersion"));
			printf("server version: %s\n", gv ? gv : "(unknown)");
		}
		json_decref(v);
		kube_client_free(c);
	}
	kube_config_free(cfg);
	return rc;
}
