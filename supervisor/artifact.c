/* supervisor/artifact.c — see artifact.h. */
#include "supervisor/artifact.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
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

static size_t on_data(char *p, size_t sz, size_t nm, void *ud)
{
	bh_buf *b = ud;
	size_t n = sz * nm;
	if (b->len + n > ARTIFACT_MAX_BYTES)
		return 0;
	bh_buf_put(b, p, n);
	return bh_buf_ok(b) ? n : 0;
}

static int to_sealed_fd(const bh_buf *b, int *fd, bh_error *err)
{
	int mfd = memfd_create("bulkhead-chart", MFD_CLOEXEC | MFD_ALLOW_SEALING), ro;
	size_t off = 0;
	char path[64];
	if (mfd < 0)
		return bh_error_set(err, BH_EIO, "memfd_create: %s", strerror(errno));
	while (off < b->len) {
		ssize_t w = write(mfd, b->data + off, b->len - off);
		if (w < 0) {
			close(mfd);
			return bh_error_set(err, BH_EIO, "writing the artifact to memory: %s", strerror(errno));
		}
		off += (size_t)w;
	}
	if (fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		close(mfd);
		return bh_error_set(err, BH_EIO, "sealing the artifact: %s", strerror(errno));
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", mfd);
	ro = open(path, O_RDONLY | O_CLOEXEC);
	close(mfd);
	if (ro < 0)
		return bh_error_set(err, BH_EIO, "reopening the artifact read-only: %s", strerror(errno));
	*fd = ro;
	return 0;
}

int artifact_fetch(const char *url, const char *digest, long timeout_ms, int *fd, bh_error *err)
{
	CURL *c = curl_easy_init();
	bh_buf b = BH_BUF_INIT;
	char ebuf[CURL_ERROR_SIZE] = "";
	long code = 0;
	CURLcode cr;
	int rc;
	*fd = -1;
	if (!c)
		return bh_error_set(err, BH_ENOMEM, "curl_easy_init failed");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms > 0 ? timeout_ms : 30000L);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)ARTIFACT_MAX_BYTES);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
	cr = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(c);
	if (cr == CURLE_WRITE_ERROR || cr == CURLE_FILESIZE_EXCEEDED) {
		rc = bh_error_set(err, BH_ELIMIT, "artifact %s is larger than %zu bytes", url, ARTIFACT_MAX_BYTES);
		goto done;
	}
	if (cr != CURLE_OK) {
		rc = bh_error_set(err, BH_EUNAVAIL, "failed to download artifact from %s: %s", url,
				  ebuf[0] ? ebuf : curl_easy_strerror(cr));
		goto done;
	}
	if (code == 404) {
		rc = bh_error_set(err, BH_ENOTFOUND, "artifact not found at %s (404)", url);
		goto done;
	}
	if (code != 200) {
		rc = bh_error_set(err, BH_EUNAVAIL, "failed to download artifact from %s, status: %ld", url, code);
		goto done;
	}
	if ((rc = artifact_verify((unsigned char *)(b.data ? b.data : ""), b.len, digest, err)) < 0) {
		bh_error_prefix(err, "failed to verify artifact from %s", url);
		goto done;
	}
	rc = to_sealed_fd(&b, fd, err);
done:
	bh_buf_free(&b);
	return rc;
}
