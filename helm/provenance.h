/* helm/provenance.h — Helm's chart provenance check, as `helm template
 * --verify` runs it (downloader.VerifyChart, provenance.Signatory.Verify):
 * the chart archive's "<archive>.prov" file is a clearsigned YAML message
 * (the chart's metadata, "...", then `files:` mapping archive names to
 * "sha256:<hex>") whose signature must verify against a binary OpenPGP
 * keyring (helm/pgp.h), and whose entry for the archive's base name must
 * be the archive's SHA-256. Error texts are Helm's. */
#ifndef BH_HELM_PROVENANCE_H
#define BH_HELM_PROVENANCE_H

#include <stddef.h>
#include <stdint.h>

#include "helm/pgp.h"
#include "lib/error.h"

/* Signatory.Verify over bytes: a pure function. filename is the archive's
 * base name; now is Unix seconds (expiry checks). */
int provenance_verify(const pgp_keyring *kr, const void *archive, size_t archive_len, const char *prov,
		      size_t prov_len, const char *filename, int64_t now, bh_error *err);

/* downloader.VerifyChart: path is the chart archive, its provenance file
 * is path + ".prov", keyring a binary keyring file. 0 when verified. */
int provenance_verify_chart(const char *path, const char *keyring, int64_t now, bh_error *err);

/* The same for a downloaded chart (DownloadToCache): the archive at path is
 * checked as the file `name` (the chart URL's base name), against prov,
 * the provenance file's bytes fetched next to it. */
int provenance_verify_download(const char *path, const char *name, const void *prov, size_t prov_len,
			       const char *keyring, int64_t now, bh_error *err);

#endif
