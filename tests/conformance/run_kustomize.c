/* tests/conformance/run_kustomize.c — prints what helm/kustomize makes of a
 * conformance case: CASE/resources.yaml through the `patches` and `images`
 * of CASE/kustomize.yaml (a Flux postRenderers[].kustomize object), as
 * `kubectl kustomize` prints it. Exit 1 with the error on stderr when the
 * kustomization or a patch fails. Used by run_kustomize.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helm/kustomize.h"
#include "lib/yaml.h"

static char *slurp(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;
	char *buf = NULL;
	size_t n = 0, cap = 0, r;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(f = fopen(path, "rb")))
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = (cap ? cap * 2 : 8192) + 4096);
			if (!nb)
				break;
			buf = nb;
		}
		r = fread(buf + n, 1, 4096, f);
		n += r;
	} while (r > 0);
	fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

int main(int argc, char **argv)
{
	char *res, *kz;
	json_t *objs = NULL, *spec = NULL;
	kustomization *k = NULL;
	bh_error err;
	bh_buf out = BH_BUF_INIT;
	int rc = 1;
	if (argc != 2) {
		fprintf(stderr, "usage: run_kustomize CASE_DIR\n");
		return 2;
	}
	res = slurp(argv[1], "resources.yaml");
	kz = slurp(argv[1], "kustomize.yaml");
	if (!res || !kz) {
		fprintf(stderr, "%s: missing resources.yaml or kustomize.yaml\n", argv[1]);
		goto done;
	}
	if (yaml_parse_any(kz, strlen(kz), NULL, YAML_KEEP_INTS, &spec, &err) < 0 ||
	    kustomization_decode(spec, &k, &err) < 0 || kz_objects_parse_texts(res, &objs, &err) < 0 ||
	    kustomize_apply(k, objs, &err) < 0 || kz_objects_emit(objs, &out, &err) < 0) {
		fprintf(stderr, "Error: %s\n", err.msg);
		goto done;
	}
	fwrite(out.data ? out.data : "", 1, out.len, stdout);
	rc = 0;
done:
	bh_buf_free(&out);
	kustomization_free(k);
	json_decref(objs);
	json_decref(spec);
	free(res);
	free(kz);
	return rc;
}
