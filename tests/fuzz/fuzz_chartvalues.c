/* tests/fuzz/fuzz_chartvalues.c — a HelmChart's valuesFiles applied to an
 * untrusted chart archive (fetcher/chartvalues.h). The input after the
 * first byte is a tar stream, gzip'd here so that the fuzzer explores the
 * tar headers and the values YAML rather than deflate; the first byte picks
 * the values files and ignoreMissingValuesFiles.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fetcher/chartvalues.h"
#include "lib/gzip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const files[] = {"values.yaml", "values-prod.yaml", "sub/values.yaml"};
	bh_buf tgz = BH_BUF_INIT, out = BH_BUF_INIT;
	bh_error e;
	char *version = NULL, *observed = NULL;
	if (size < 1)
		return 0;
	chartvalues_opts o = {
		.files = files + (data[0] & 1),
		.nfiles = 1 + (size_t)((data[0] >> 1) & 1),
		.ignore_missing = (data[0] >> 2) & 1,
		.version_metadata = "3",
		.max_inflated = 1 << 20,
	};
	if (bh_gzip_best(data + 1, size - 1, &tgz, &e) == 0 &&
	    chartvalues_apply(tgz.data, tgz.len, &o, &out, &version, &observed, &e) == 0) {
		free(version);
		free(observed);
	}
	bh_buf_free(&tgz);
	bh_buf_free(&out);
	return 0;
}
