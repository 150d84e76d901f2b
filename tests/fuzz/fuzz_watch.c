/* tests/fuzz/fuzz_watch.c — libFuzzer target for the watch-stream decoder:
 * the input is fed whole, then again in chunks whose sizes come from the
 * first byte, and both runs must decode the same number of events. The
 * input as one event line must also decode as jansson decodes it whole, less
 * object.metadata.managedFields (dropped before decoding, kube/watch.c; a
 * member named twice inside them is not looked for).
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (size < 65536 && !memchr(data + 1, '\n', size - 1))
		same_as_whole((const char *)data + 1, size - 1);
	size_t chunk = (size_t)(data[0] % 17) + 1;
	int f1, f2;
	long a = run(data + 1, size - 1, size, &f1);
	long b = run(data + 1, size - 1, chunk, &f2);
	if (a != b || f1 != f2)
		abort(); /* chunking must not change the result */
	return 0;
}
