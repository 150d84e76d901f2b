/* tests/fuzz/fuzz_watch.c — libFuzzer target for the watch-stream decoder:
 * the input is fed whole, then again in chunks whose sizes come from the
 * first byte, and both runs must decode the same number of events. The
 * input as one event line must also decode as jansson decodes it whole, less
 * object.metadata.managedFields (dropped before decoding, kube/watch.c; a
 * member named twice inside them is not looked for); decoded with
 * kube_watch_opts.tree_drop, its text is that object and its tree the same
 * less the members dropped.
 * FUZZ_SEEDS: tests/fuzz/corpus/fuzz_watch
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/watchdec.h"

static int on_event(void *ud, kube_watch_type t, json_t *obj)
{
	(void)t;
	(void)obj;
	(*(long *)ud)++;
	return 0;
}

static long run(const uint8_t *data, size_t size, size_t chunk, int *failed)
{
	long n = 0;
	bh_error err;
	kube_watchdec d;
	kube_watchdec_init(&d, on_event, &n);
	d.max_line = 4096;
	*failed = 0;
	for (size_t off = 0; off < size && !*failed; off += chunk) {
		size_t len = size - off < chunk ? size - off : chunk;
		if (kube_watchdec_feed(&d, (const char *)data + off, len, &err))
			*failed = 1;
	}
	if (!*failed && kube_watchdec_finish(&d, &err))
		*failed = 1;
	kube_watchdec_free(&d);
	return n;
}

/* The line decoded as one event must be what jansson makes of it whole,
 * managedFields left out; a line jansson refuses must be refused. */
static void same_as_whole(const char *s, size_t n)
{
	bh_error err;
	kube_watch_type t;
	json_t *obj = NULL, *whole = json_loadb(s, n, JSON_REJECT_DUPLICATES, NULL);
	int rc = kube_watch_event_parse(s, n, &t, &obj, &err);
	json_t *o = json_object_get(whole, "object");
	if (!whole && !rc) /* the cut may hide only a member named twice inside managedFields */
		o = json_object_get(whole = json_loadb(s, n, 0, NULL), "object");
	if (!whole || !json_is_object(o)) {
		if (!rc)
			abort();
	} else if (!rc) {
		json_t *md = json_object_get(o, "metadata");
		if (json_is_object(md))
			json_object_del(md, "managedFields");
		if (!json_equal(o, obj))
			abort();
	}
	json_decref(obj);
	json_decref(whole);
}

struct got {
	kube_watchdec *d;
	json_t *tree;
	char *text;
	size_t tlen;
};

static int keep(void *ud, kube_watch_type t, json_t *obj)
{
	struct got *g = ud;
	(void)t;
	json_decref(g->tree);
	free(g->text);
	g->tree = json_incref(obj);
	g->text = NULL;
	if (g->d->obj_text && (g->text = malloc(g->d->obj_len + 1))) {
		memcpy(g->text, g->d->obj_text, g->d->obj_len);
		g->tlen = g->d->obj_len;
	}
	return 0;
}

static void drop_paths(json_t *o)
{
	json_object_del(json_object_get(o, "status"), "history");
	json_object_del(o, "spec");
}

/* With tree_drop: the text (when given) decodes as the object, and the tree
 * is the object less (only) the dropped members; without text, the whole
 * object. */
static void same_with_drop(const char *s, size_t n)
{
	static const char *const drop[] = {"status.history", "spec", NULL};
	struct got g = {0};
	bh_error err;
	kube_watchdec d;
	kube_watchdec_init(&d, keep, &g);
	g.d = &d;
	d.drop = drop;
	int rc = kube_watchdec_feed(&d, s, n, &err) || kube_watchdec_finish(&d, &err);
	kube_watchdec_free(&d);
	json_t *whole = json_loadb(s, n, JSON_REJECT_DUPLICATES, NULL);
	if (!whole && !rc) /* only a member named twice inside what was cut */
		whole = json_loadb(s, n, 0, NULL);
	json_t *want = json_deep_copy(json_object_get(whole, "object"));
	if (!rc && g.tree) {
		if (!json_is_object(want))
			abort(); /* accepted what jansson refuses */
		json_object_del(json_object_get(want, "metadata"), "managedFields");
		if (g.text) {
			json_t *t = json_loadb(g.text, g.tlen, 0, NULL);
			if (!json_equal(t, want))
				abort();
			json_decref(t);
			json_t *tree = json_deep_copy(g.tree);
			drop_paths(tree);
			drop_paths(want);
			if (!json_equal(tree, want))
				abort();
			json_decref(tree);
		} else if (!json_equal(g.tree, want)) {
			abort();
		}
	}
	json_decref(want);
	json_decref(whole);
	json_decref(g.tree);
	free(g.text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (size < 65536 && !memchr(data + 1, '\n', size - 1)) {
		same_as_whole((const char *)data + 1, size - 1);
		same_with_drop((const char *)data + 1, size - 1);
	}
	size_t chunk = (size_t)(data[0] % 17) + 1;
	int f1, f2;
	long a = run(data + 1, size - 1, size, &f1);
	long b = run(data + 1, size - 1, chunk, &f2);
	if (a != b || f1 != f2)
		abort(); /* chunking must not change the result */
	return 0;
}
