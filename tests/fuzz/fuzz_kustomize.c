/* tests/fuzz/fuzz_kustomize.c — libFuzzer target for helm/kustomize: the
 * input is "KUSTOMIZATION\n===\nOBJECTS": a postRenderers[].kustomize
 * object (YAML: patches and images, from a HelmRelease, i.e. untrusted) and
 * a multi-document manifest. Decoding, strategic merge, JSON 6902, target
 * selection and images must never crash, leak or recurse without bound.
 * The objects are read as a post-renderer reads them (with the texts and
 * styles of their scalars), and the kustomization applied twice.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "helm/kustomize.h"
#include "lib/yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *sep;
	json_t *spec = NULL, *objs = NULL;
	kustomization *k = NULL;
	bh_error err;
	bh_buf out = BH_BUF_INIT;
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	sep = strstr(s, "\n===\n");
	if (sep) {
		*sep = '\0';
		if (yaml_parse_any(s, strlen(s), NULL, YAML_KEEP_INTS, &spec, &err) == 0 &&
		    kustomization_decode(spec, &k, &err) == 0 && kz_objects_check_keys(sep + 5, size & 1, &err) == 0 &&
		    kz_objects_parse_texts(sep + 5, &objs, &err) == 0 &&
		    kustomize_apply(k, objs, &err) == 0 && kz_objects_emit(objs, &out, &err) == 0)
			kustomize_apply(k, objs, &err); /* a second post-renderer: styles from the output */
	} else if (kz_objects_parse(s, &objs, &err) == 0) {
		/* no kustomization: the objects as their own JSON patch / selector */
		json_t *ops = json_array_get(objs, 0);
		json_t *doc = json_incref(json_array_get(objs, 1));
		kz_selector *sel = NULL;
		if (doc && json_is_array(json_object_get(ops, "ops")))
			kz_json_patch(&doc, json_object_get(ops, "ops"), &err);
		if (doc && kz_selector_decode(json_object_get(ops, "target"), &sel, &err) == 0)
			kz_selector_match(sel, doc);
		kz_selector_free(sel);
		json_decref(doc);
	}
	bh_buf_free(&out);
	kustomization_free(k);
	json_decref(objs);
	json_decref(spec);
	free(s);
	return 0;
}
