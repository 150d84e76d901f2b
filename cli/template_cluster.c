/* cli/template_cluster.c — see template_cluster.h. */
#include "cli/template_cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kube/curl.h"
#include "lib/buf.h"

/* Go's words for a refused connection to server (curl says it its way);
 * NULL: clientcmd's default server. */
static void unreachable(const char *server, bh_error *err)
{
	const char *s = server ? server : "http://localhost:8080", *h = strstr(s, "://");
	if (!server || strstr(err->msg, "Couldn't connect to server")) {
		h = h ? h + 3 : s;
		size_t hl = strcspn(h, "/");
		const char *colon = memchr(h, ':', hl);
		char host[300];
		snprintf(host, sizeof host, "%.*s%s", (int)hl, h, colon ? "" : !strncmp(s, "https", 5) ? ":443" : ":80");
		if (!strncmp(host, "localhost:", 10)) /* the same length */
			memcpy(host, "127.0.0.1", 9);
		bh_error_set(err, BH_EUNAVAIL, "Get \"%s/version\": dial tcp %s: connect: connection refused", s, host);
	}
	bh_error_prefix(err, "cluster reachability check failed: kubernetes cluster unreachable");
}

static int replace(char **dst, const char *v)
{
	char *n = strdup(v);
	if (!n)
		return -1;
	free(*dst);
	*dst = n;
	return 0;
}

/* The --kube-* flags over the loaded kubeconfig. */
static int overrides(const template_kube_flags *f, kube_config *cfg, bh_error *err)
{
	if (f->apiserver && *f->apiserver) {
		size_t n = strlen(f->apiserver);
		if (replace(&cfg->server, f->apiserver))
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		while (n > 1 && cfg->server[n - 1] == '/')
			cfg->server[--n] = '\0';
	}
	if (f->token && *f->token && replace(&cfg->token, f->token))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	if (f->tls_server_name && *f->tls_server_name && replace(&cfg->tls_server_name, f->tls_server_name))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	if (f->insecure)
		cfg->insecure = 1;
	if (f->ca_file && *f->ca_file) {
		FILE *in = fopen(f->ca_file, "re");
		bh_buf b = BH_BUF_INIT;
		char chunk[8192];
		size_t got;
		if (!in)
			return bh_error_set(err, BH_EIO, "open %s: no such file or directory", f->ca_file);
		while ((got = fread(chunk, 1, sizeof chunk, in)) > 0 && b.len < (1u << 20))
			bh_buf_put(&b, chunk, got);
		fclose(in);
		bh_buf_putc(&b, '\0');
		if (!bh_buf_ok(&b)) {
			bh_buf_free(&b);
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		}
		free(cfg->ca_pem);
		cfg->ca_len = b.len - 1;
		cfg->ca_pem = bh_buf_detach(&b);
	}
	return 0;
}

/* --kube-as-user and --kube-as-group: Impersonate-User and
 * Impersonate-Group on every request, as client-go sends them; groups
 * without a user fail clientcmd's validation of the kubeconfig user. */
static int impersonate(const template_kube_flags *f, const kube_config *cfg, kube_client *kc, bh_error *err)
{
	const char **groups;
	int rc;
	if ((!f->as_user || !*f->as_user) && !f->n_as_groups)
		return 0;
	if (!f->as_user || !*f->as_user)
		return bh_error_set(err, BH_EINVAL, "invalid configuration: requesting uid, groups or user-extra for %s "
				    "without impersonating a user", cfg->user ? cfg->user : "");
	if (!(groups = calloc(f->n_as_groups + 1, sizeof *groups)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	for (size_t i = 0; i < f->n_as_groups; i++)
		groups[i] = f->as_groups[i];
	rc = kube_client_set_impersonation(kc, f->as_user && *f->as_user ? f->as_user : NULL,
					   f->n_as_groups ? groups : NULL, err);
	free(groups);
	return rc;
}

int template_cluster_open(const template_kube_flags *f, template_cluster *tc, bh_error *err)
{
	const char *kubeconfig = f->kubeconfig, *context = f->context;
	kube_config_opts ko = {0};
	bh_buf path = BH_BUF_INIT;
	const char *env = getenv("KUBECONFIG"), *home = getenv("HOME");
	int rc = 0;
	memset(tc, 0, sizeof *tc);
	ko.context = context && *context ? context : NULL;
	if (kubeconfig && *kubeconfig)
		bh_buf_puts(&path, kubeconfig);
	else if (env && *env)
		bh_buf_printf(&path, "%.*s", (int)strcspn(env, ":"), env);
	else
		bh_buf_printf(&path, "%s/.kube/config", home ? home : "");
	if (access(bh_buf_str(&path), F_OK)) {
		if (kubeconfig && *kubeconfig) /* an explicit file must exist */
			bh_error_set(err, BH_ENOTFOUND, "cluster reachability check failed: kubernetes cluster unreachable: "
				     "stat %s: no such file or directory", kubeconfig);
		else /* clientcmd's default: localhost:8080 */
			unreachable(NULL, err);
		bh_buf_free(&path);
		return err ? err->code : BH_EUNAVAIL;
	}
	if (!(tc->cfg = kube_config_load(bh_buf_str(&path), &ko, err)) || overrides(f, tc->cfg, err) ||
	    !(tc->kc = kube_curl_client_new(tc->cfg, err)) || impersonate(f, tc->cfg, tc->kc, err)) {
		bh_buf_free(&path);
		if (ko.context && err && strstr(err->msg, "no context named")) /* clientcmd's words */
			bh_error_set(err, BH_ENOTFOUND, "context \"%s\" does not exist", ko.context);
		return bh_error_prefix(err, "cluster reachability check failed: kubernetes cluster unreachable");
	}
	else if ((rc = kube_server_version(tc->kc, tc->version, sizeof tc->version, err)) == 0 &&
		 (rc = kube_discovery_api_versions(tc->kc, &tc->apis, err)) == 0) {
		tc->n_api_versions = json_array_size(tc->apis);
		if (!(tc->api_versions = calloc(tc->n_api_versions + 1, sizeof *tc->api_versions)))
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		for (size_t i = 0; rc == 0 && i < tc->n_api_versions; i++)
			tc->api_versions[i] = json_string_value(json_array_get(tc->apis, i));
	}
	if (rc < 0)
		unreachable(tc->cfg->server, err);
	bh_buf_free(&path);
	return rc < 0 ? rc : 0;
}

void template_cluster_close(template_cluster *tc)
{
	free(tc->api_versions);
	json_decref(tc->apis);
	if (tc->kc)
		kube_client_free(tc->kc);
	if (tc->cfg)
		kube_config_free(tc->cfg);
	memset(tc, 0, sizeof *tc);
}
