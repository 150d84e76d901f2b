/* kube/h2_head.c — a response's header fields (kube_h2_head_field, see
 * kube/h2.h). Its own file: a pure decoder, fuzzed alone
 * (tests/fuzz/fuzz_kube_h2_head.c) without nghttp2. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kube/h2.h"

static int is(const uint8_t *name, size_t nlen, const char *lit)
{
	size_t k = strlen(lit);
	return nlen == k && !strncasecmp((const char *)name, lit, k);
}

/* A trimmed copy of v (spaces and tabs off both ends), or NULL. */
static char *trimmed(const uint8_t *v, size_t n)
{
	char *s;
	while (n && (v[0] == ' ' || v[0] == '\t'))
		v++, n--;
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	if (!(s = malloc(n + 1)))
		return NULL;
	memcpy(s, v, n);
	s[n] = '\0';
	return s;
}

int kube_h2_head_field(kube_response *resp, uint64_t *clen, const uint8_t *name, size_t nlen,
                       const uint8_t *value, size_t vlen, bh_error *err)
{
	char **slot = NULL;
	if (vlen > KUBE_H2_MAX_VALUE)
		return bh_error_set(err, BH_EPROTO, "response header %.*s: value longer than %u bytes",
		                    (int)(nlen < 64 ? nlen : 64), (const char *)name, (unsigned)KUBE_H2_MAX_VALUE);
	if (is(name, nlen, ":status")) {
		if (resp->status)
			return bh_error_set(err, BH_EPROTO, "response with two :status fields");
		if (vlen != 3 || value[0] < '1' || value[0] > '5' || value[1] < '0' || value[1] > '9' || value[2] < '0' ||
		    value[2] > '9')
			return bh_error_set(err, BH_EPROTO, "response :status is not three digits 100-599");
		resp->status = (value[0] - '0') * 100 + (value[1] - '0') * 10 + (value[2] - '0');
		return 0;
	}
	if (is(name, nlen, "content-length")) {
		uint64_t v = 0;
		size_t i;
		for (i = 0; i < vlen && value[i] >= '0' && value[i] <= '9' && v <= (UINT64_MAX - 9) / 10; i++)
			v = v * 10 + (uint64_t)(value[i] - '0');
		*clen = i == vlen && vlen ? v : UINT64_MAX;
		return 0;
	}
	if (is(name, nlen, "content-type"))
		slot = &resp->content_type;
	else if (is(name, nlen, "retry-after"))
		slot = &resp->retry_after;
	else
		return 0;
	if (memchr(value, '\0', vlen) || memchr(value, '\r', vlen) || memchr(value, '\n', vlen))
		return bh_error_set(err, BH_EPROTO, "response header %s holds NUL, CR or LF",
		                    slot == &resp->content_type ? "content-type" : "retry-after");
	free(*slot);
	if (!(*slot = trimmed(value, vlen)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	return 0;
}
