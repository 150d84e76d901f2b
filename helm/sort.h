/* helm/sort.h — Helm's manifest post-processing
 * (pkg/release/v1/util manifest.go, manifest_sorter.go, kind_sorter.go):
 * split rendered files into YAML documents with Helm's separator regex
 * `(?:^|\s*\n)---\s*`, read each document's head (apiVersion, kind,
 * metadata.name, annotations), separate hooks (`helm.sh/hook`: events,
 * weight, delete and output-log policies; unknown events drop the document)
 * from ordinary manifests, and stable-sort both by Helm's InstallOrder. */
#ifndef BH_SORT_H
#define BH_SORT_H

#include <stddef.h>

#include "lib/error.h"

typedef struct manifest {
	char *path;        /* "<chart>/templates/x.yaml" (the # Source path) */
	char *content;     /* the document, trimmed */
	size_t content_len;
	int content_borrowed; /* content points into a text the caller owns
			       * (manifest_sort_files_inplace): not freed */
	char *api_version; /* "" when absent */
	char *kind;
	char *name;        /* metadata.name */
	/* hooks only: */
	char **events;     /* lower-cased, "test-success" mapped to "test" */
	size_t nevents;
	int weight;        /* helm.sh/hook-weight (Atoi, invalid -> 0) */
	char **delete_policies;
	size_t ndelete_policies;
	char **output_log_policies;
	size_t noutput_log_policies;
} manifest;

typedef struct manifest_list {
	manifest *v;
	size_t n, cap;
} manifest_list;

/* SplitManifests: the documents of one rendered file, in order. Each is a
 * new string (trimmed); *out is a malloc'd array of n strings. */
int manifest_split(const char *text, char ***out, size_t *n);
void manifest_split_free(char **docs, size_t n);

/* SortManifests over files (paths and rendered texts, any order): files
 * are visited in path order, partials (`_*`) and blank files skipped. On
 * a document that is not YAML: BH_EPARSE "YAML parse error on PATH: ...".
 * `hooks` and `generic` are appended to, then kind-sorted. */
/* Helm logs skipped documents ("skipping unknown hooks", hookTypes=...). */
typedef void (*manifest_log_fn)(void *ud, const char *level, const char *msg,
				const char *const *attrs);
int manifest_sort_files(const char *const *paths, const char *const *texts, size_t n,
			manifest_list *hooks, manifest_list *generic,
			manifest_log_fn log, void *log_ud, bh_error *err);

/* manifest_sort_files leaving each document where it is: texts[i] gets
 * a NUL after each of its documents (in the spaces or the separator after
 * it) and the manifests' contents point into texts, which must outlive
 * both lists. On an error the texts are as they were. */
int manifest_sort_files_inplace(const char *const *paths, char *const *texts, size_t n,
				manifest_list *hooks, manifest_list *generic,
				manifest_log_fn log, void *log_ud, bh_error *err);

/* Stable sort by InstallOrder (unknown kinds last, alphabetically). */
void manifest_sort_by_kind(manifest_list *l);
/* Position of kind in InstallOrder, or -1. */
int manifest_install_order(const char *kind);

int manifest_is_test_hook(const manifest *m);

/* What sorting reads of a document: apiVersion, kind, metadata.name and the
 * hook annotations (helm.sh/hook, -weight, -delete-policy,
 * -output-log-policy), each NULL when absent. */
#define MANIFEST_HEAD_HOOKS 4
typedef struct manifest_head {
	char *api_version, *kind, *name;
	char *hooks[MANIFEST_HEAD_HOOKS];
} manifest_head;

/* Reads h from doc's lines when doc is plain block YAML that it can vouch
 * the full parse reads without error and to the same head (helm/sort_head.c):
 * 1 then (h owned by the caller: manifest_head_clear), 0 when not sure (h
 * empty: parse the document), -1 out of memory. */
extern const char *const manifest_hook_keys[MANIFEST_HEAD_HOOKS]; /* in that order */
int manifest_head_scan(const char *doc, size_t len, manifest_head *h);
void manifest_head_clear(manifest_head *h);
void manifest_list_free(manifest_list *l);

#endif
