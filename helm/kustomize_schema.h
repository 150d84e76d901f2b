/* helm/kustomize_schema.h — the strategic-merge facts of the built-in kinds
 * (generated table, helm/kustomize_schema.c): which lists kustomize merges
 * by key and with which keys. Kinds not listed (CRDs) have no schema: their
 * lists are replaced, as kustomize does. */
#ifndef BH_KUSTOMIZE_SCHEMA_H
#define BH_KUSTOMIZE_SCHEMA_H

#include <stddef.h>

typedef struct kz_field {
	const char *name;
	int type;          /* kz_schema_type() index of the value (list: of its
			    * elements; map: of its values), -1 when none */
	unsigned char list;  /* an array */
	unsigned char mapof; /* an object with values of `type` */
	unsigned char assoc; /* x-kubernetes-patch-strategy has "merge" */
	const char *keys;    /* merge keys, comma-separated; "" = primitives */
} kz_field;

typedef struct kz_type {
	const kz_field *fields;
	size_t n;
	int mapof; /* additionalProperties type, -1 when none */
} kz_type;

/* The schema of a built-in kind ("apps/v1", "Deployment"), or NULL. */
const kz_type *kz_schema_root(const char *api_version, const char *kind);
const kz_type *kz_schema_type(int index);
/* 1 for a cluster-scoped built-in kind (kustomize's ResId.IsClusterScoped). */
int kz_schema_cluster_scoped(const char *api_version, const char *kind);

#endif
