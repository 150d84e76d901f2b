/* supervisor/acl.h — Flux's multi-tenancy lock-down, decided before a
 * worker starts: which ServiceAccount a HelmRelease's worker acts as
 * (.spec.serviceAccountName, else --default-service-account; never the
 * controller itself), and whether the HelmRelease may name objects in other
 * namespaces (--no-cross-namespace-refs). Pure functions of the object,
 * but for acl_sa_exists_of's question. */
#ifndef BH_SUPERVISOR_ACL_H
#define BH_SUPERVISOR_ACL_H

#include <jansson.h>
#include <stddef.h>

#include "kube/kube.h"
#include "lib/error.h"

typedef struct acl_policy {
	const char *default_sa; /* --default-service-account, or NULL */
	int no_cross_ns_refs;   /* --no-cross-namespace-refs */
} acl_policy;

/* Flux's Ready/Stalled reason for a refused reference or identity. */
#define ACL_ACCESS_DENIED "AccessDenied"
/* Longest identity acl_identity writes ("system:serviceaccount:NS:NAME"). */
#define ACL_IDENTITY_MAX 600

/* 0 if name is a valid ServiceAccount name (a DNS-1123 subdomain, as the
 * API server validates it), else BH_EINVAL with err saying why in the API
 * server's words (what names "the .spec.serviceAccountName ..."). */
int acl_check_sa_name(const char *name, const char *what, bh_error *err);

/* Writes the user hr's worker impersonates, "system:serviceaccount:<ns>:
 * <sa>", to buf. BH_EINVAL: the ServiceAccount name is invalid;
 * BH_EDENIED: neither .spec.serviceAccountName nor a default is set (the
 * controller's own identity is never lent to a release). */
int acl_identity(const acl_policy *p, const json_t *hr, char *buf, size_t n, bh_error *err);

/* Does the ServiceAccount of identity (as acl_identity wrote it) exist?
 * Asked as the controller (get serviceaccounts): before an uninstall, as
 * Flux does, since a ServiceAccount deleted with its namespace can
 * uninstall nothing. The question is a GET of the path acl_sa_path_new
 * makes (new; NULL with err set when identity is not a ServiceAccount's,
 * or out of memory), which writes "NS/NAME" into sa (n bytes); its answer
 * is acl_sa_exists_of(the GET's outcome: 0, or an error in err, sa): 1
 * yes; 0 no (err says which one is missing); the negative code when the
 * API could not tell. */
char *acl_sa_path_new(const char *identity, char *sa, size_t n, bh_error *err);
int acl_sa_exists_of(int rc, const char *sa, bh_error *err);

/* BH_EDENIED (reason ACL_ACCESS_DENIED, Flux's message "cross-namespace
 * references are not allowed: cannot access KIND NS/NAME") when hr names a
 * HelmChart, OCIRepository or dependency in another namespace and the
 * policy forbids it, or a valuesFrom entry in another namespace (values
 * are only ever read from the HelmRelease's own namespace); else 0. */
int acl_check_refs(const acl_policy *p, const json_t *hr, bh_error *err);

#endif
