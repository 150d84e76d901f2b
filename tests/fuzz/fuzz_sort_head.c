/* tests/fuzz/fuzz_sort_head.c — libFuzzer target for manifest_head_scan
 * (helm/sort_head.c), differential: whenever the scan vouches for a document,
 * the full YAML parse (lib/yaml.c, as helm/sort.c reads a document) must
 * accept it and give the same head: apiVersion, kind, metadata.name and the
 * hook annotations as strings, no key that Go's JSON decoder would match
 * case-insensitively, and every annotation a string.
 * FUZZ_SOURCES: helm/sort_head.c lib/yaml.c lib/yaml_emit.c lib/yaml_resolve.c lib/gojson.c lib/gostrconv.c lib/buf.c lib/error.c
 * FUZZ_LIBS: -ljansson -lyaml
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "helm/sort.h"
#include "lib/yaml.h"

static void fail(const char *what, const char *doc)
{
	fprintf(stderr, "fuzz_sort_head: %s\n---\n%s\n---\n", what, doc);
	abort();
}

/* o's field name (exact key only; a case variant fails), as h read it. */
static const json_t *field(const json_t *o, const char *name, const char *doc)
{
	const char *k;
	json_t *x;
	json_object_foreach((json_t *)o, k, x)
		if (!strcasecmp(k, name) && strcmp(k, name))
			fail("a case variant of a head key was vouched for", doc);
	return json_object_get(o, name);
}

static void same(const json_t *v, const char *s, const char *what, const char *doc)
{
	if (!v && !s)
		return;
	if (!v || !s || !json_is_string(v) || strcmp(json_string_value(v), s))
		fail(what, doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *doc = malloc(size + 1);
	if (!doc)
		return 0;
	memcpy(doc, data, size);
	doc[size] = 0;
	size_t len = strlen(doc);
	manifest_head h;
	if (manifest_head_scan(doc, len, &h) != 1) {
		free(doc);
		return 0;
	}
	json_t *j = NULL;
	bh_error err;
	if (yaml_parse_any(doc, len, NULL, YAML_KEEP_INTS, &j, &err))
		fail(err.msg, doc);
	if (!json_is_object(j))
		fail("not a mapping", doc);
	same(field(j, "apiVersion", doc), h.api_version, "apiVersion differs", doc);
	same(field(j, "kind", doc), h.kind, "kind differs", doc);
	const json_t *md = field(j, "metadata", doc), *ann = NULL;
	if (md && !json_is_object(md))
		fail("metadata is not a mapping", doc);
	if (md) {
		same(field(md, "name", doc), h.name, "name differs", doc);
		ann = field(md, "annotations", doc);
		if (json_is_null(ann)) /* read as none */
			ann = NULL;
		if (ann && !json_is_object(ann))
			fail("annotations is not a mapping", doc);
	} else if (h.name) {
		fail("name without metadata", doc);
	}
	const char *k;
	json_t *x;
	json_object_foreach((json_t *)ann, k, x)
		if (!json_is_string(x))
			fail("an annotation is not a string", doc);
	for (int i = 0; i < MANIFEST_HEAD_HOOKS; i++)
		same(ann ? json_object_get(ann, manifest_hook_keys[i]) : NULL, h.hooks[i],
		     "a hook annotation differs", doc);
	json_decref(j);
	manifest_head_clear(&h);
	free(doc);
	return 0;
}
