/* supervisor/artifact.c — see artifact.h. */
#include "supervisor/artifact.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/buf.h"

int artifact_verify(const unsigned char *p, size_t n, const char *digest, bh_error *err)
{
	const EVP_MD *md = NULL;
	const char *colon = digest ? strchr(digest, ':') : NULL;
	unsigned char out[EVP_MAX_MD_SIZE];
	unsigned int olen = 0;
	char hex[2 * EVP_MAX_MD_SIZE + 1];
	if (!colon)
		return bh_error_set(err, BH_EINVAL, "artifact digest %s is not <algorithm>:<hex>", digest ? digest : "(none)");
	if (strncmp(digest, "sha256:", 7) == 0)
		md = EVP_sha256();
	else if (strncmp(digest, "sha384:", 7) == 0)
		md = EVP_sha384();
	else if (strncmp(digest, "sha512:", 7) == 0)
		md = EVP_sha512();
	else
		return bh_error_set(err, BH_EINVAL, "artifact digest algorithm %.*s is not supported", (int)(colon - digest), digest);
	if (!EVP_Digest(p, n, out, &olen, md, NULL))
		return bh_error_set(err, BH_EIO, "computing the artifact digest failed");
	for (unsigned i = 0; i < olen; i++)
		snprintf(hex + 2 * i, 3, "%02x", out[i]);
	if (strcasecmp(colon + 1, hex) != 0)
		return bh_error_set(err, BH_EINVAL, "integrity check failed: computed digest %.*s:%s does not match %s",
				    (int)(colon - digest), digest, hex, digest);
	return 0;
}

static fetchcl_opts fetcher;
static int have_fetcher;

void artifact_use_fetcher(const fetchcl_opts *o)
{
	fetcher = *o;
	have_fetcher = 1;
}

/* artifact_verify over the whole of fd (pread: the offset stays). */
static int verify_fd(int fd, const char *digest, bh_error *err)
{
	bh_buf b = BH_BUF_INIT;
	char chunk[65536];
	off_t off = 0;
	ssize_t n;
	int rc;
	while ((n = pread(fd, chunk, sizeof chunk, off)) > 0 && b.len <= ARTIFACT_MAX_BYTES) {
		bh_buf_put(&b, chunk, (size_t)n);
		off += n;
	}
	if (n < 0 || !bh_buf_ok(&b))
		rc = bh_error_set(err, BH_EIO, "reading the artifact: %s", n < 0 ? strerror(errno) : "out of memory");
	else
		rc = artifact_verify((const unsigned char *)(b.data ? b.data : ""), b.len, digest, err);
	bh_buf_free(&b);
	return rc;
}

int artifact_fetch(const char *url, const char *digest, long timeout_ms, int *fd, bh_error *err)
{
	proto_fetch_request rq = {0};
	proto_fetch_result res = {0};
	fetchcl_opts fo = fetcher;
	int rc;
	*fd = -1;
	if (!have_fetcher)
		return bh_error_set(err, BH_EINVAL, "failed to download artifact from %s: no bulkhead-fetcher configured", url);
	rq.op = FETCH_OP_ARTIFACT;
	rq.url = (char *)url;
	rq.digest = (char *)digest;
	rq.timeout_ms = timeout_ms > 0 ? timeout_ms : 30000;
	rq.max_chart = (long long)ARTIFACT_MAX_BYTES;
	fo.label = "artifact";
	if ((rc = fetchcl_run(&fo, &rq, &res, fd, err)) < 0) {
		bh_error_prefix(err, "failed to download artifact from %s", url);
		rc = BH_EUNAVAIL;
	} else if (!res.ok) {
		int integrity = res.reason && !strcmp(res.reason, "IntegrityCheckFailed");
		rc = bh_error_set(err, integrity ? BH_EINVAL : BH_EUNAVAIL, "failed to %s artifact from %s: %s",
				  integrity ? "verify" : "download", url, res.message ? res.message : "");
	} else if ((rc = verify_fd(*fd, digest, err)) < 0) {
		bh_error_prefix(err, "failed to verify artifact from %s", url);
	}
	if (rc < 0 && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	proto_fetch_result_free(&res);
	return rc;
}
