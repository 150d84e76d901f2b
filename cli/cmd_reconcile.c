/* cli/cmd_reconcile.c — `bulkhead reconcile --once`: one reconcile of a
 * HelmRelease in the foreground, with no daemon, through the same sandboxed
 * worker bulkheadd uses.
 *
 *   bulkhead reconcile --once NAME [-n NS] [--kubeconfig FILE] [--bulkheadd PATH] [-- FLAGS...]
 *   bulkhead reconcile --once -f HR.yaml [...]
 *
 * With -f the HelmRelease is server-side applied first (field manager
 * "bulkhead", as `kubectl apply --server-side` would). A suspended
 * HelmRelease is refused, as `flux reconcile` refuses it. The HelmRelease
 * is annotated reconcile.fluxcd.io/requestedAt (what `flux reconcile hr`
 * does), then this process becomes `bulkheadd --once NS/NAME --kubeconfig
 * FILE FLAGS...` (bulkheadd(8)): it reconciles that HelmRelease alone,
 * writes its status and exits 0 when it ended Ready, 1 when not, 2 when
 * there is no such HelmRelease. bulkheadd is --bulkheadd PATH, else the one
 * installed next to this binary (../sbin/, or ../supervisor/ in the build
 * tree), else bulkheadd on $PATH. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/hr_source.h"
#include "lib/buf.h"

#define MAX_PASS 64

static void usage(FILE *f)
{
	fprintf(f, "usage: bulkhead reconcile --once NAME [-n NS] [--kubeconfig FILE] [--bulkheadd PATH] [-- BULKHEADD FLAGS]\n"
		   "       bulkhead reconcile --once -f HR.yaml [...]\n"
		   "one reconcile through bulkheadd's sandboxed worker, in the foreground; exit 0 Ready, 1 not, 2 not found\n");
}

/* bulkheadd next to this binary (installed: ../sbin/, build tree:
 * ../supervisor/), else NULL (then $PATH). */
static const char *find_bulkheadd(char *buf, size_t n)
{
	static const char *rel[] = {"/../sbin/bulkheadd", "/../supervisor/bulkheadd"};
	char self[PATH_MAX], *slash;
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len <= 0)
		return NULL;
	self[len] = '\0';
	if (!(slash = strrchr(self, '/')))
		return NULL;
	*slash = '\0';
	for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++)
		if ((size_t)snprintf(buf, n, "%s%s", self, rel[i]) < n && access(buf, X_OK) == 0)
			return buf;
	return NULL;
}

/* Server-side applies the file's HelmRelease (-f). */
static int apply_file(const cli_hr_args *a, const kube_config *cfg, kube_client *kc, bh_error *err)
{
	json_t *hr = NULL, *out = NULL;
	kube_write_opts wo = {"bulkhead", 1, 0, NULL};
	int rc;
	if ((rc = cli_hr_load(a, cfg, kc, &hr, err)) < 0)
		return rc;
	json_object_set_new(hr, "apiVersion", json_string("helm.toolkit.fluxcd.io/v2"));
	json_object_del(hr, "status");
	rc = kube_apply(kc, &cli_helmrelease_resource, json_string_value(json_object_get(json_object_get(hr, "metadata"), "namespace")),
			hr, &wo, &out, err);
	json_decref(hr);
	json_decref(out);
	return rc < 0 ? bh_error_prefix(err, "applying %s", a->file) : 0;
}

/* Refuses a suspended HelmRelease; annotates reconcile.fluxcd.io/requestedAt. */
static int request(kube_client *kc, const char *ns, const char *name, bh_error *err)
{
	json_t *hr = NULL, *out = NULL;
	kube_write_opts wo = {"bulkhead", 0, 0, NULL};
	struct timespec ts;
	struct tm tm;
	char when[64], patch[200];
	int rc;
	if ((rc = kube_get(kc, &cli_helmrelease_resource, ns, name, NULL, &hr, err)) < 0)
		return rc;
	rc = json_is_true(json_object_get(json_object_get(hr, "spec"), "suspend"));
	json_decref(hr);
	if (rc)
		return bh_error_set(err, BH_EINVAL, "HelmRelease %s/%s is suspended (.spec.suspend): resume it first", ns, name);
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + strlen(when), sizeof when - strlen(when), ".%09ldZ", ts.tv_nsec);
	snprintf(patch, sizeof patch, "{\"metadata\":{\"annotations\":{\"reconcile.fluxcd.io/requestedAt\":\"%s\"}}}", when);
	rc = kube_patch(kc, &cli_helmrelease_resource, ns, name, KUBE_PATCH_MERGE, patch, &wo, &out, err);
	json_decref(out);
	return rc < 0 ? bh_error_prefix(err, "requesting the reconcile") : 0;
}

int cmd_reconcile(int argc, char **argv)
{
	cli_hr_args a = {0};
	const char *bulkheadd = NULL, *kubeconfig, *ns;
	const char *pass[MAX_PASS + 1];
	size_t npass = 0;
	int once = 0, f, rc = 1;
	kube_config *cfg = NULL;
	kube_client *kc = NULL;
	bh_error err = {0};
	char key[600], found[PATH_MAX];
	for (int i = 1; i < argc; i++) {
		if ((f = cli_hr_flag(argc, argv, &i, &a, usage, &rc)) < 0)
			return rc;
		if (f)
			continue;
		if (!strcmp(argv[i], "--once")) {
			once = 1;
		} else if (!strcmp(argv[i], "--bulkheadd") && i + 1 < argc) {
			bulkheadd = argv[++i];
		} else if (!strcmp(argv[i], "--")) {
			for (i++; i < argc; i++) {
				if (npass >= MAX_PASS) {
					fprintf(stderr, "Error: more than %d flags for bulkheadd\n", MAX_PASS);
					return 2;
				}
				pass[npass++] = argv[i];
			}
		} else if (argv[i][0] != '-' && !a.name) {
			a.name = argv[i];
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!once) {
		fprintf(stderr, "Error: reconcile needs --once (the daemon that reconciles on its own is bulkheadd)\n");
		return 2;
	}
	if (!a.name && !a.file) {
		usage(stderr);
		return 2;
	}
	kubeconfig = a.kubeconfig ? a.kubeconfig : getenv("KUBECONFIG");
	if (cli_hr_client(&a, &cfg, &kc, &err) < 0)
		goto fail;
	if (a.file) {
		json_t *hr = NULL;
		if (cli_hr_load(&a, cfg, NULL, &hr, &err) < 0)
			goto fail;
		snprintf(key, sizeof key, "%s/%s", json_string_value(json_object_get(json_object_get(hr, "metadata"), "namespace")),
			 json_string_value(json_object_get(json_object_get(hr, "metadata"), "name")));
		json_decref(hr);
		if (apply_file(&a, cfg, kc, &err) < 0)
			goto fail;
	} else {
		ns = a.ns ? a.ns : cfg->namespace_ && *cfg->namespace_ ? cfg->namespace_ : "default";
		snprintf(key, sizeof key, "%s/%s", ns, a.name);
	}
	{
		char *slash = strchr(key, '/');
		*slash = '\0';
		rc = request(kc, key, slash + 1, &err);
		*slash = '/';
		if (rc == BH_ENOTFOUND) {
			fprintf(stderr, "Error: %s\n", err.msg);
			rc = 2;
			goto done;
		}
		if (rc < 0)
			goto fail;
	}
	kube_client_free(kc);
	kube_config_free(cfg);
	kc = NULL;
	cfg = NULL;
	if (!bulkheadd)
		bulkheadd = find_bulkheadd(found, sizeof found);
	{
		const char *args[MAX_PASS + 8];
		size_t n = 0;
		args[n++] = "bulkheadd";
		args[n++] = "--once";
		args[n++] = key;
		args[n++] = "--kubeconfig";
		args[n++] = kubeconfig;
		for (size_t i = 0; i < npass; i++)
			args[n++] = pass[i];
		args[n] = NULL;
		fflush(NULL);
		if (bulkheadd)
			execv(bulkheadd, (char *const *)args);
		else
			execvp("bulkheadd", (char *const *)args);
		fprintf(stderr, "Error: running %s: %s\n", bulkheadd ? bulkheadd : "bulkheadd", strerror(errno));
		return 1;
	}
fail:
	fprintf(stderr, "Error: %s\n", err.msg);
	rc = 1;
done:
	if (kc)
		kube_client_free(kc);
	if (cfg)
		kube_config_free(cfg);
	return rc;
}
