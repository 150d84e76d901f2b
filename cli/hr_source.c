/* cli/hr_source.c — see hr_source.h. */
#include "cli/hr_source.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/curl.h"
#include "lib/buf.h"
#include "lib/yaml.h"

const kube_resource cli_helmrelease_resource = {"helm.toolkit.fluxcd.io", "v2", "helmreleases", "HelmRelease", 1};

#define HR_FILE_MAX ((size_t)4 << 20)

int cli_hr_flag(int argc, char **argv, int *i, cli_hr_args *a, void (*usage)(FILE *), int *exit_rc)
{
	static const struct {
		const char *flag;
		size_t off;
	} flags[] = {
		{"-f", offsetof(cli_hr_args, file)},
		{"--filename", offsetof(cli_hr_args, file)},
		{"-n", offsetof(cli_hr_args, ns)},
		{"--namespace", offsetof(cli_hr_args, ns)},
		{"--kubeconfig", offsetof(cli_hr_args, kubeconfig)},
	};
	const char *arg = argv[*i];
	if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
		usage(stdout);
		*exit_rc = 0;
		return -1;
	}
	for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
		size_t n = strlen(flags[k].flag);
		const char **dst = (const char **)((char *)a + flags[k].off);
		if (strncmp(arg, flags[k].flag, n) != 0)
			continue;
		if (arg[n] == '=') {
			*dst = arg + n + 1;
			return 1;
		}
		if (arg[n] != '\0')
			continue;
		if (*i + 1 >= argc) {
			fprintf(stderr, "Error: flag needs an argument: %s\n", flags[k].flag);
			*exit_rc = 2;
			return -1;
		}
		*dst = argv[++*i];
		return 1;
	}
	return 0;
}

int cli_hr_client(const cli_hr_args *a, kube_config **cfg, kube_client **kc, bh_error *err)
{
	const char *path = a->kubeconfig ? a->kubeconfig : getenv("KUBECONFIG");
	kube_config_opts ko = {0};
	*cfg = NULL;
	*kc = NULL;
	if (!path || !*path)
		return bh_error_set(err, BH_EINVAL, "no kubeconfig (--kubeconfig or KUBECONFIG)");
	if (!(*cfg = kube_config_load(path, &ko, err)))
		return err->code ? err->code : BH_EINVAL;
	if (!(*kc = kube_curl_client_new(*cfg, err))) {
		kube_config_free(*cfg);
		*cfg = NULL;
		return err->code ? err->code : BH_EIO;
	}
	return 0;
}

static int read_file(const char *path, bh_buf *out, bh_error *err)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	char buf[65536];
	size_t n;
	if (!f)
		return bh_error_set(err, BH_ENOTFOUND, "reading %s: %s", path, strerror(errno));
	while ((n = fread(buf, 1, sizeof buf, f)) > 0 && out->len <= HR_FILE_MAX)
		bh_buf_put(out, buf, n);
	if (f != stdin)
		fclose(f);
	if (out->len > HR_FILE_MAX)
		return bh_error_set(err, BH_ELIMIT, "%s: larger than %zu bytes", path, HR_FILE_MAX);
	return bh_buf_ok(out) ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory");
}

static int from_file(const cli_hr_args *a, const kube_config *cfg, json_t **hr, bh_error *err)
{
	bh_buf b = BH_BUF_INIT;
	json_t *o = NULL, *md;
	const char *ns;
	int rc;
	if ((rc = read_file(a->file, &b, err)) < 0)
		goto done;
	if ((rc = yaml_parse_any(b.data ? b.data : "", b.len, NULL, YAML_KEEP_INTS, &o, err)) < 0)
		goto done;
	md = json_object_get(o, "metadata");
	if (!json_is_object(o) || !json_is_object(md) || !json_is_string(json_object_get(md, "name"))) {
		rc = bh_error_set(err, BH_EINVAL, "%s: not an object with metadata.name", a->file);
		goto done;
	}
	if (a->name && strcmp(a->name, json_string_value(json_object_get(md, "name")))) {
		rc = bh_error_set(err, BH_EINVAL, "%s holds HelmRelease %s, not %s", a->file,
				  json_string_value(json_object_get(md, "name")), a->name);
		goto done;
	}
	ns = json_string_value(json_object_get(md, "namespace"));
	if (a->ns && ns && strcmp(a->ns, ns)) {
		rc = bh_error_set(err, BH_EINVAL, "%s is in namespace %s, not %s (-n)", a->file, ns, a->ns);
		goto done;
	}
	if (!ns)
		json_object_set_new(md, "namespace",
				    json_string(a->ns ? a->ns : cfg && cfg->namespace_ && *cfg->namespace_ ? cfg->namespace_ : "default"));
	*hr = o;
	o = NULL;
	rc = 0;
done:
	json_decref(o);
	bh_buf_free(&b);
	return rc;
}

int cli_hr_load(const cli_hr_args *a, const kube_config *cfg, kube_client *kc, json_t **hr, bh_error *err)
{
	const char *api, *kind;
	int rc;
	*hr = NULL;
	if (a->file) {
		rc = from_file(a, cfg, hr, err);
	} else {
		const char *ns = a->ns ? a->ns : cfg && cfg->namespace_ && *cfg->namespace_ ? cfg->namespace_ : "default";
		if (!kc)
			return bh_error_set(err, BH_EINVAL, "HelmRelease %s/%s: no cluster to read it from", ns, a->name);
		rc = kube_get(kc, &cli_helmrelease_resource, ns, a->name, NULL, hr, err);
	}
	if (rc < 0)
		return rc;
	api = json_string_value(json_object_get(*hr, "apiVersion"));
	kind = json_string_value(json_object_get(*hr, "kind"));
	if (!api || strncmp(api, "helm.toolkit.fluxcd.io/", 23) || !kind || strcmp(kind, "HelmRelease")) {
		json_decref(*hr);
		*hr = NULL;
		return bh_error_set(err, BH_EINVAL, "%s: a %s of %s, not a HelmRelease of helm.toolkit.fluxcd.io",
				    a->file ? a->file : a->name, kind ? kind : "(no kind)", api ? api : "(no apiVersion)");
	}
	return 0;
}
