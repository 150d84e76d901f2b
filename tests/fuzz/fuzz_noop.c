/* tests/fuzz/fuzz_noop.c — libFuzzer target for the no-op decision's
 * decoders (supervisor/noop.h), which read the answers the API server gave
 * to a worker's storage list and writes, and the paths the worker chose:
 *   way 0: noop_is_storage_list(path, namespace), the input split at its
 *          first NUL;
 *   way 1: a storage list answer: noop_store_load and noop_storage_fp must
 *          agree (both fail, or give the same fingerprint);
 *   way 2: a storage list answer, then writes: lines "METHOD PATH STATUS"
 *          each followed by one line of answer body, fed to
 *          noop_store_write; the store never holds more than
 *          NOOP_STORE_MAX Secrets and is never revived once dropped.
 * The input's first byte picks the way (fuzz_pick.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_pick.h"
#include "supervisor/noop.h"

#define RELEASE "rel"
#define NS "team"

/* the next line of [*p, end) in a NUL-terminated copy (caller frees) */
static char *line_dup(const char **p, const char *end)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
	char *s = malloc(n + 1);
	if (!s)
		abort();
	memcpy(s, *p, n);
	s[n] = '\0';
	*p += n + (nl ? 1 : 0);
	return s;
}

static void check_list(const char *s, size_t n)
{
	noop_store st;
	uint64_t fp = 0;
	int a = noop_store_load(&st, s, n, RELEASE);
	int b = noop_storage_fp(s, n, RELEASE, &fp);
	if (a != b || (a == 0 && (fp != noop_store_fp(&st) || !st.ok)) || (a < 0 && st.ok))
		abort();
	if (st.n > NOOP_STORE_MAX)
		abort();
}

static void check_writes(const char *s, size_t n)
{
	const char *p = s, *end = s + n;
	char *list = line_dup(&p, end);
	noop_store *st = calloc(1, sizeof *st);
	if (!st)
		abort();
	noop_store_load(st, list, strlen(list), RELEASE);
	free(list);
	while (p < end) {
		char *req = line_dup(&p, end), *body = line_dup(&p, end);
		char method[16] = "", path[1024] = "";
		long status = 0;
		int was_ok = st->ok;
		if (sscanf(req, "%15s %1023s %ld", method, path, &status) >= 2)
			noop_store_write(st, method, path, NS, RELEASE, status, body, strlen(body));
		if (st->n > NOOP_STORE_MAX || (st->ok && !was_ok))
			abort();
		free(req);
		free(body);
	}
	free(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_pick in;
	char *buf;
	if (!fuzz_pick_take(data, size, 3, &in))
		return 0;
	buf = malloc(in.n + 1); /* the decoders read NUL-terminated paths */
	if (!buf)
		abort();
	memcpy(buf, in.s, in.n);
	buf[in.n] = '\0';
	switch (in.way) {
	case 0: {
		size_t k = strlen(buf);
		(void)noop_is_storage_list(buf, k < in.n ? buf + k + 1 : "");
		break;
	}
	case 1:
		check_list(buf, in.n);
		break;
	default:
		check_writes(buf, in.n);
		break;
	}
	free(buf);
	return 0;
}
