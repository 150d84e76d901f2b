/* tests/fuzz/fuzz_chart_archive.c — libFuzzer target for chart loading from
 * an archive in memory (helm/chart_archive.c + LoadFiles + Chart.yaml and
 * values.yaml parsing), with small limits so bombs stop early.
 */
#include <stdint.h>
#include <stdlib.h>

#include "helm/chart.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	chart_limits lim;
	chart_limits_default(&lim);
	lim.max_total = (size_t)4 << 20;
	lim.max_file = (size_t)1 << 20;
	lim.max_files = 2000;
	lim.max_nesting = 4;
	chart *c = NULL;
	bh_error err;
	if (chart_load_archive(data, size, &lim, &c, &err) == 0) {
		chart *d = chart_dup(c);
		chart_free(d);
		chart_free(c);
	}
	return 0;
}
