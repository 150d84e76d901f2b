/* helm/provenance.c — Helm's provenance check (see helm/provenance.h). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helm/provenance.h"
#include "helm/chart.h"
#include "lib/gopath.h"
#include "lib/yaml.h"

#define PROV_MAX_ARCHIVE ((size_t)1 << 30) /* bytes of a chart archive read to hash it */

static const char *memmem_s(const char *h, size_t hn, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; hn >= k && i <= hn - k; i++)
		if (!memcmp(h + i, needle, k))
			return h + i;
	return NULL;
}

static const char *json_kind(const json_t *v)
{
	return json_is_object(v) ? "object" : json_is_array(v) ? "array" : json_is_string(v) ? "string"
	     : json_is_boolean(v) ? "bool" : "number";
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The keys of o in encoding/json's order (json.Marshal of the converted
 * YAML map sorts them); a new array of borrowed strings. */
static const char **sorted_keys(json_t *o, size_t *n)
{
	const char **k = calloc(json_object_size(o) + 1, sizeof *k), *key;
	json_t *x;
	*n = 0;
	if (!k)
		return NULL;
	json_object_foreach(o, key, x) k[(*n)++] = key;
	qsort(k, *n, sizeof *k, cmp_str);
	return k;
}

/* One map[string]string field of SumCollection (name "files" or
 * "images"): every key of doc equal to it ignoring case, in key order,
 * merged into into; YAML numbers and booleans become strings as
 * sigs.k8s.io/yaml makes them for a string target. */
static int sum_field(json_t *doc, const char *name, json_t *into, bh_error *err)
{
	size_t n, m;
	const char **keys = sorted_keys(doc, &n);
	if (!keys)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		if (strcasecmp(keys[i], name))
			continue;
		json_t *v = json_object_get(doc, keys[i]);
		if (json_is_null(v))
			continue;
		if (!json_is_object(v)) {
			rc = bh_error_set(err, BH_EINVAL,
					  "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal %s into Go "
					  "struct field SumCollection.%s of type map[string]string", json_kind(v), name);
			break;
		}
		const char **ek = sorted_keys(v, &m);
		for (size_t j = 0; ek && j < m && !rc; j++) {
			json_t *x = json_object_get(v, ek[j]), *str = chart_yaml_string_new(x);
			if (str || json_is_string(x) || json_is_null(x))
				json_object_set_new(into, ek[j], str ? str : json_is_string(x) ? json_incref(x) : json_string(""));
			else
				rc = bh_error_set(err, BH_EINVAL,
						  "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal %s into "
						  "Go struct field SumCollection.%s of type string", json_kind(x), name);
		}
		if (!ek)
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		free(ek);
	}
	free(keys);
	return rc;
}

/* parseMessageBlock: the part after the first "\n...\n" (up to the next
 * one) read into SumCollection by sigs.k8s.io/yaml; *files is a new object
 * (the `files` map). */
static int message_files(const char *plain, size_t n, json_t **files, bh_error *err)
{
	*files = NULL;
	const char *a = memmem_s(plain, n, "\n...\n");
	if (!a)
		return bh_error_set(err, BH_EINVAL, "message block must have at least two parts");
	a += 5;
	const char *b = memmem_s(a, n - (size_t)(a - plain), "\n...\n");
	size_t len = b ? (size_t)(b - a) : n - (size_t)(a - plain);
	json_t *doc = NULL, *images = json_object();
	int rc = yaml_parse_any(a, len, NULL, YAML_KEEP_INTS, &doc, err);
	if (rc)
		goto out;
	if (!json_is_null(doc) && !json_is_object(doc)) {
		rc = bh_error_set(err, BH_EINVAL,
				  "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal %s into Go value "
				  "of type provenance.SumCollection", json_kind(doc));
		goto out;
	}
	*files = json_object();
	if (!*files || !images)
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
	else if (json_is_object(doc) && !(rc = sum_field(doc, "files", *files, err)))
		rc = sum_field(doc, "images", images, err);
out:
	json_decref(doc);
	json_decref(images);
	if (rc) {
		json_decref(*files);
		*files = NULL;
	}
	return rc;
}

int provenance_verify(const pgp_keyring *kr, const void *archive, size_t archive_len, const char *prov,
		      size_t prov_len, const char *filename, int64_t now, bh_error *err)
{
	pgp_clearsigned cs;
	if (pgp_clearsign_decode(prov, prov_len, &cs))
		return bh_error_set(err, BH_EINVAL, "signature block not found");
	int rc;
	json_t *files = NULL;
	if (cs.sig_err)
		rc = bh_error_set(err, BH_EINVAL, "%s", cs.err_msg);
	else
		rc = pgp_verify_detached(kr, cs.signed_text.data, cs.signed_text.len, cs.sig.data, cs.sig.len, now, err);
	if (rc)
		goto out;
	unsigned char dg[32];
	char sum[7 + 65] = "sha256:";
	if (!EVP_Digest(archive, archive_len, dg, NULL, EVP_sha256(), NULL)) {
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < 32; i++)
		snprintf(sum + 7 + 2 * i, 3, "%02x", dg[i]);
	if ((rc = message_files(cs.plain.data ? cs.plain.data : "", cs.plain.len, &files, err)))
		goto out;
	json_t *sha = json_object_get(files, filename);
	if (!sha)
		rc = bh_error_set(err, BH_EDENIED, "provenance does not contain a SHA for a file named \"%s\"", filename);
	else if (strcmp(json_is_string(sha) ? json_string_value(sha) : "", sum))
		rc = bh_error_set(err, BH_EDENIED, "sha256 sum does not match for %s: \"%s\" != \"%s\"", filename,
				  json_is_string(sha) ? json_string_value(sha) : "", sum);
out:
	json_decref(files);
	pgp_clearsigned_free(&cs);
	return rc;
}

/* os.ReadFile; what: the Go error's operation prefix. */
static int read_file(const char *path, size_t max, bh_buf *out, bh_error *err)
{
	char eb[128];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bh_error_set(err, BH_EIO, "open %s: %s", path, gopath_errno_text(errno, eb, sizeof eb));
	char buf[65536];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0) {
		if (out->len + (size_t)n > max) {
			close(fd);
			return bh_error_set(err, BH_ELIMIT, "read %s: larger than %zu bytes", path, max);
		}
		bh_buf_put(out, buf, (size_t)n);
	}
	int e = errno;
	close(fd);
	if (n < 0)
		return bh_error_set(err, BH_EIO, "read %s: %s", path, gopath_errno_text(e, eb, sizeof eb));
	if (!bh_buf_ok(out))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	return 0;
}

/* VerifyChart from the .tgz check on: name is the archive's name, prov its
 * provenance file (read from path + ".prov" when NULL). */
static int verify_as(const char *path, const char *name, const void *prov, size_t prov_len, const char *keyring,
		     int64_t now, bh_error *err)
{
	struct stat st;
	char eb[128];
	const char *dot = strrchr(name, '.');
	if (!dot || strchr(dot, '/') || strcasecmp(dot, ".tgz"))
		return bh_error_set(err, BH_EINVAL, "chart must be a tgz file");
	bh_buf provpath = BH_BUF_INIT, ring = BH_BUF_INIT, archive = BH_BUF_INIT, provdata = BH_BUF_INIT;
	pgp_keyring *kr = NULL;
	int rc = 0;
	bh_buf_printf(&provpath, "%s.prov", path);
	if (!prov && stat(bh_buf_str(&provpath), &st)) {
		rc = bh_error_set(err, BH_EIO, "could not load provenance file %s: stat %s: %s", bh_buf_str(&provpath),
				  bh_buf_str(&provpath), gopath_errno_text(errno, eb, sizeof eb));
		goto out;
	}
	if ((rc = read_file(keyring, PGP_MAX_INPUT, &ring, err)) ||
	    (rc = pgp_keyring_decode(ring.data ? ring.data : "", ring.len, &kr, err))) {
		bh_error_prefix(err, "failed to load keyring");
		goto out;
	}
	if ((rc = read_file(path, PROV_MAX_ARCHIVE, &archive, err))) {
		bh_error_prefix(err, "failed to read chart archive");
		goto out;
	}
	if (!prov && (rc = read_file(bh_buf_str(&provpath), PGP_MAX_INPUT, &provdata, err))) {
		bh_error_prefix(err, "failed to read provenance file");
		goto out;
	}
	if (!prov)
		prov = provdata.data ? provdata.data : "", prov_len = provdata.len;
	rc = provenance_verify(kr, archive.data ? archive.data : "", archive.len, prov, prov_len, name, now, err);
out:
	pgp_keyring_free(kr);
	bh_buf_free(&provpath);
	bh_buf_free(&ring);
	bh_buf_free(&archive);
	bh_buf_free(&provdata);
	return rc;
}

int provenance_verify_chart(const char *path, const char *keyring, int64_t now, bh_error *err)
{
	struct stat st;
	char eb[128];
	if (stat(path, &st))
		return bh_error_set(err, BH_EIO, "stat %s: %s", path, gopath_errno_text(errno, eb, sizeof eb));
	if (S_ISDIR(st.st_mode))
		return bh_error_set(err, BH_EINVAL, "unpacked charts cannot be verified");
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	return verify_as(path, base, NULL, 0, keyring, now, err);
}

int provenance_verify_download(const char *path, const char *name, const void *prov, size_t prov_len,
			       const char *keyring, int64_t now, bh_error *err)
{
	return verify_as(path, name, prov ? prov : "", prov_len, keyring, now, err);
}
