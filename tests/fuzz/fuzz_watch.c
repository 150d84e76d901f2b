/* tests/fuzz/fuzz_watch.c — libFuzzer target for the watch-stream decoder:
 * the input is fed whole, then again in chunks whose sizes come from the
 * first byte, and both runs must decode the same number of events.
 * FUZZ_SEEDS: tests/fuzz/corpus/fuzz_watch
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t chunk = (size_t)(data[0] % 17) + 1;
	int f1, f2;
	long a = run(data + 1, size - 1, size, &f1);
	long b = run(data + 1, size - 1, chunk, &f2);
	if (a != b || f1 != f2)
		abort(); /* chunking must not change the result */
	return 0;
}
