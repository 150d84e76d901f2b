/* tests/fuzz/fuzz_helmrelease.c — libFuzzer target for the HelmRelease model
 * decoder (hr_decode_bytes: JSON bytes, size and depth limits, the field
 * table walk, v2beta2 conversion). Property: an accepted object has exactly
 * one of .spec.chart and .spec.chartRef, durations that are not negative,
 * and no refused field set.
 * FUZZ_SEEDS: tests/fuzz/corpus/fuzz_helmrelease
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "api/helmrelease.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bh_error err;
	hr_model *m = NULL;
	if (hr_decode_bytes((const char *)data, size, &m, &err) == 0) {
		if (m->has_chart == m->has_chart_ref || m->interval_ns < 0 || m->timeout_ns < 0 || m->ndepends_on)
			abort();
		hr_model_free(m);
	}
	return 0;
}
