/* cli/template_remote.h — charts from a repository for `bulkhead template`,
 * as `helm template` finds them (LocateChart): `--repo URL` with the
 * repository's index.yaml (a version chosen as Helm's IndexFile.Get does,
 * the same warning when a constraint rather than an exact version
 * matched), or a chart URL; with --username/--password, --ca-file,
 * --cert-file/--key-file, --insecure-skip-tls-verify and
 * --pass-credentials; or an oci:// reference (a tag, a digest, or --version
 * as an exact tag or a constraint over the tags, with --plain-http and the
 * credentials of --registry-config), with
 * Helm's "Pulled:" and "Digest:" lines. The bytes are fetched by the fetcher's code
 * (fetcher/http.h, fetcher/index.h, fetcher/oci.h); error texts are Helm's. */
#ifndef BH_CLI_TEMPLATE_REMOTE_H
#define BH_CLI_TEMPLATE_REMOTE_H

#include "lib/buf.h"
#include "lib/error.h"

typedef struct template_remote {
	const char *repo, *version;
	const char *username, *password;
	const char *ca_file, *cert_file, *key_file;
	int insecure_skip_tls_verify, pass_credentials, plain_http;
	/* oci:// without --username: the credentials `helm registry login`
	 * saved for the registry's host in this docker config.json (helm's
	 * --registry-config), or NULL */
	const char *registry_config;
	void (*warn)(const char *msg, const char *const *attrs); /* Helm's slog.Warn */
	/* --verify: the chart URL + ".prov" (oci://: the manifest's provenance
	 * layer) is fetched into prov, and the name the .prov lists the chart
	 * under (the URL path's base name; "<name>-<tag>.tgz") into prov_name */
	bh_buf *prov, *prov_name;
	char **pulled_version; /* out, when non-NULL: the chart version an oci:// pull took (new string) */
} template_remote;

/* Is chart something template_remote_fetch must get (--repo given, or a
 * URL)? */
int template_remote_wanted(const template_remote *o, const char *chart);
/* GET url (at most max bytes) into out with o's credentials (belonging
 * to o->repo's host unless pass_credentials) and TLS files. */
int template_remote_get(const template_remote *o, const char *url, size_t max, bh_buf *out, bh_error *err);
/* Downloads the chart archive into out. */
int template_remote_fetch(const template_remote *o, const char *chart, bh_buf *out, bh_error *err);

#endif
