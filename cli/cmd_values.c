/* cli/cmd_values.c — `bulkhead values`: the values a HelmRelease gives its
 * chart, composed as Flux composes them (each .spec.valuesFrom ConfigMap or
 * Secret in order, then .spec.values; worker/values.c, the code the worker
 * runs), printed as `flux debug hr --show-values` and `helm get values -o
 * yaml` print them (sigs.k8s.io/yaml), or as JSON with -o json.
 *
 *   bulkhead values NAME [-n NS] [--kubeconfig FILE] [-o yaml|json]
 *   bulkhead values -f HR.yaml [--kubeconfig FILE] [-o yaml|json]
 *
 * A HelmRelease read from a file needs no cluster unless it has valuesFrom.
 * The ConfigMaps and Secrets are read with the kubeconfig's identity (not
 * impersonating the HelmRelease's ServiceAccount). Exit status 1 on error
 * ("Error: ..." naming the reference), 2 on a usage error. */
#include <stdio.h>
#include <string.h>

#include "cli/hr_source.h"
#include "lib/buf.h"
#include "lib/gojson.h"
#include "lib/yaml.h"
#include "worker/values.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: bulkhead values NAME [-n NS] [--kubeconfig FILE] [-o yaml|json]\n"
		   "       bulkhead values -f HR.yaml [--kubeconfig FILE] [-o yaml|json]\n"
		   "the values a HelmRelease gives its chart: .spec.valuesFrom in order, then .spec.values\n");
}

int cmd_values(int argc, char **argv)
{
	cli_hr_args a = {0};
	const char *output = "yaml";
	kube_config *cfg = NULL;
	kube_client *kc = NULL;
	json_t *hr = NULL, *vals = NULL;
	const json_t *spec;
	bh_buf out = BH_BUF_INIT;
	bh_error err = {0};
	int rc = 1, f;
	for (int i = 1; i < argc; i++) {
		if ((f = cli_hr_flag(argc, argv, &i, &a, usage, &rc)) < 0)
			return rc;
		if (f)
			continue;
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			output = argv[++i];
		} else if (!strncmp(argv[i], "--output=", 9) || !strncmp(argv[i], "-o=", 3)) {
			output = strchr(argv[i], '=') + 1;
		} else if (argv[i][0] != '-' && !a.name) {
			a.name = argv[i];
		} else {
			usage(stderr);
			return 2;
		}
	}
	if ((!a.name && !a.file) || (strcmp(output, "yaml") && strcmp(output, "json"))) {
		usage(stderr);
		return 2;
	}
	/* a file without valuesFrom needs no cluster */
	if (!a.file || a.kubeconfig || getenv("KUBECONFIG")) {
		if (cli_hr_client(&a, &cfg, &kc, &err) < 0 && !a.file)
			goto fail;
	}
	if (cli_hr_load(&a, cfg, kc, &hr, &err) < 0)
		goto fail;
	spec = json_object_get(hr, "spec");
	if (json_array_size(json_object_get(spec, "valuesFrom")) && !kc) {
		if (cli_hr_client(&a, &cfg, &kc, &err) < 0) {
			bh_error_prefix(&err, "its .spec.valuesFrom is read from the cluster");
			goto fail;
		}
	}
	if (worker_values_compose(kc, json_string_value(json_object_get(json_object_get(hr, "metadata"), "namespace")),
				  spec, &vals, &err) < 0)
		goto fail;
	if (!strcmp(output, "json")) {
		if (gojson_encode(vals, 0, &out, &err) < 0)
			goto fail;
		bh_buf_putc(&out, '\n');
	} else if (yaml_emit(vals, &out, &err) < 0) {
		goto fail;
	}
	fwrite(out.data, 1, out.len, stdout);
	rc = 0;
	goto done;
fail:
	fprintf(stderr, "Error: %s\n", err.msg);
done:
	bh_buf_free(&out);
	json_decref(vals);
	json_decref(hr);
	if (kc)
		kube_client_free(kc);
	if (cfg)
		kube_config_free(cfg);
	return rc;
}
