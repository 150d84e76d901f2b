/* tests/conformance/run_kustomize.c — prints what helm/kustomize makes of a
 * conformance case: CASE/resources.yaml through the `patches` and `images`
 * of CASE/kustomize.yaml (a Flux postRenderers[].kustomize object), as
 * `kubectl kustomize` prints it; with CASE/kustomize2.yaml (3, ...), those
 * after it in order, as a HelmRelease's post-renderers run. Exit 1 with
 * the error on stderr when a kustomization or a patch fails. Used by
 * run_kustomize.sh. */
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

/* The kustomizations of a case: kustomize.yaml, then kustomize2.yaml,
 * kustomize3.yaml... when present (a HelmRelease's post-renderers in
 * order); *n of them, or -1 with err set. */
#define MAX_CHAIN 8
static int load_chain(const char *dir, kustomization **ks, size_t *n, bh_error *err)
{
	*n = 0;
	for (int i = 1; i <= MAX_CHAIN; i++) {
		char name[32];
		char *text;
		json_t *spec = NULL;
		int rc;
		snprintf(name, sizeof name, i == 1 ? "kustomize.yaml" : "kustomize%d.yaml", i);
		if (!(text = slurp(dir, name))) {
			if (i == 1)
				return bh_error_set(err, BH_EINVAL, "%s: missing kustomize.yaml", dir);
			break;
		}
		rc = yaml_parse_any(text, strlen(text), NULL, YAML_KEEP_INTS, &spec, err);
		free(text);
		if (rc == 0)
			rc = kustomization_decode(spec, &ks[*n], err);
		json_decref(spec);
		if (rc < 0)
			return rc;
		(*n)++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char *res;
	json_t *objs = NULL;
	kustomization *ks[MAX_CHAIN] = {0};
	size_t nk = 0;
	bh_error err;
	bh_buf out = BH_BUF_INIT;
	int rc = 1;
	if (argc != 2) {
		fprintf(stderr, "usage: run_kustomize CASE_DIR\n");
		return 2;
	}
	if (!(res = slurp(argv[1], "resources.yaml"))) {
		fprintf(stderr, "%s: missing resources.yaml\n", argv[1]);
		goto done;
	}
	if (load_chain(argv[1], ks, &nk, &err) < 0 || kz_objects_check_keys(res, 0, &err) < 0 ||
	    kz_objects_parse_texts(res, &objs, &err) < 0 ||
	    kustomize_apply_chain(ks, nk, objs, &err) < 0 || kz_objects_emit(objs, &out, &err) < 0) {
		/* as kubectl prints it */
		fprintf(stderr, "error: %s%s", err.msg, err.msg[0] && err.msg[strlen(err.msg) - 1] == '\n' ? "" : "\n");
		goto done;
	}
	fwrite(out.data ? out.data : "", 1, out.len, stdout);
	rc = 0;
done:
	bh_buf_free(&out);
	for (size_t i = 0; i < nk; i++)
		kustomization_free(ks[i]);
	json_decref(objs);
	free(res);
	return rc;
}
