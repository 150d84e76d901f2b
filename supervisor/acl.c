/* supervisor/acl.c — see acl.h. */
#include "supervisor/acl.h"

#include <stdio.h>
#include <string.h>

#define DNS1123_SUBDOMAIN_MAX 253

static const char *str_at(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(o, a);
	if (b)
		v = json_object_get(v, b);
	return json_string_value(v);
}

static int alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

int acl_check_sa_name(const char *name, const char *what, bh_error *err)
{
	size_t n = strlen(name), i;
	int ok = n > 0;
	/* labels [a-z0-9]([-a-z0-9]*[a-z0-9])? joined by '.' */
	for (i = 0; ok && i < n; i++) {
		char c = name[i];
		if (c == '.')
			ok = i > 0 && alnum(name[i - 1]) && i + 1 < n && alnum(name[i + 1]);
		else if (c == '-')
			ok = 1; /* not first or last: checked below */
		else
			ok = alnum(c);
	}
	if (ok && (!alnum(name[0]) || !alnum(name[n - 1])))
		ok = 0;
	if (n > DNS1123_SUBDOMAIN_MAX)
		return bh_error_set(err, BH_EINVAL, "%s \"%.64s...\" is invalid: must be no more than %d characters", what,
				    name, DNS1123_SUBDOMAIN_MAX);
	if (!ok)
		return bh_error_set(err, BH_EINVAL,
				    "%s \"%.253s\" is invalid: a lowercase RFC 1123 subdomain must consist of lower case "
				    "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
				    "character (e.g. 'example.com', regex used for validation is "
				    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
				    what, name);
	return 0;
}

int acl_identity(const acl_policy *p, const json_t *hr, char *buf, size_t n, bh_error *err)
{
	const char *ns = str_at(hr, "metadata", "namespace");
	const json_t *v = json_object_get(json_object_get(hr, "spec"), "serviceAccountName");
	const char *sa = json_string_value(v);
	int rc;
	if (v && !json_is_null(v) && !json_is_string(v))
		return bh_error_set(err, BH_EINVAL, ".spec.serviceAccountName must be a string");
	if (sa && *sa) {
		if ((rc = acl_check_sa_name(sa, ".spec.serviceAccountName", err)) < 0)
			return rc;
	} else if (p->default_sa && *p->default_sa) {
		sa = p->default_sa; /* checked at start-up */
	} else {
		return bh_error_set(err, BH_EDENIED,
				    "no ServiceAccount to act as: .spec.serviceAccountName is not set and bulkheadd runs "
				    "without --default-service-account (a release never acts as the controller itself)");
	}
	if (!ns || !*ns || (size_t)snprintf(buf, n, "system:serviceaccount:%s:%s", ns, sa) >= n)
		return bh_error_set(err, BH_EINVAL, "the HelmRelease's namespace is missing or too long");
	return 0;
}

char *acl_sa_path_new(const char *identity, char *sa, size_t n, bh_error *err)
{
	static const kube_resource sa_resource = {"", "v1", "serviceaccounts", "ServiceAccount", 1};
	static const char prefix[] = "system:serviceaccount:";
	char ns[ACL_IDENTITY_MAX], *path;
	const char *name;
	if (strncmp(identity, prefix, sizeof prefix - 1) != 0 || !(name = strchr(identity + sizeof prefix - 1, ':')) ||
	    (size_t)(name - identity) >= sizeof ns + sizeof prefix - 1) {
		bh_error_set(err, BH_EINVAL, "'%s' is not a ServiceAccount", identity);
		return NULL;
	}
	memcpy(ns, identity + sizeof prefix - 1, (size_t)(name - identity) - (sizeof prefix - 1));
	ns[(size_t)(name - identity) - (sizeof prefix - 1)] = '\0';
	name++;
	if (!*ns) /* as kube_get refuses them */
		bh_error_set(err, BH_EINVAL, "serviceaccounts is namespaced: a namespace is required");
	else if (!*name)
		bh_error_set(err, BH_EINVAL, "get serviceaccounts: a name is required");
	else if (!(path = kube_path_new(&sa_resource, ns, name, NULL)))
		bh_error_set(err, BH_ENOMEM, "out of memory");
	else {
		snprintf(sa, n, "%s/%s", ns, name);
		return path;
	}
	return NULL;
}

int acl_sa_exists_of(int rc, const char *sa, bh_error *err)
{
	if (rc == BH_ENOTFOUND) {
		bh_error_set(err, BH_ENOTFOUND, "ServiceAccount %s not found", sa);
		return 0;
	}
	return rc < 0 ? rc : 1;
}

static int denied(bh_error *err, const char *kind, const char *ns, const char *name, const char *why)
{
	return bh_error_set(err, BH_EDENIED, "cross-namespace references are not allowed: cannot access %s %s/%s%s", kind,
			    ns, name ? name : "", why);
}

int acl_check_refs(const acl_policy *p, const json_t *hr, bh_error *err)
{
	const json_t *spec = json_object_get(hr, "spec"), *ref, *x;
	const char *hrns = str_at(hr, "metadata", "namespace"), *hrname = str_at(hr, "metadata", "name"), *ns;
	char name[600];
	size_t i;
	if (!hrns)
		hrns = "";
	/* values are read from the HelmRelease's namespace, whatever the mode:
	 * an entry naming another one is refused rather than read elsewhere */
	json_array_foreach(json_object_get(spec, "valuesFrom"), i, x) {
		ns = str_at(x, "namespace", NULL);
		if (ns && *ns && strcmp(ns, hrns) != 0)
			return denied(err, str_at(x, "kind", NULL) ? str_at(x, "kind", NULL) : "object", ns,
				      str_at(x, "name", NULL), " (.spec.valuesFrom entries are read from the HelmRelease's "
							      "own namespace)");
	}
	if (!p->no_cross_ns_refs)
		return 0;
	ref = json_object_get(spec, "chartRef");
	ns = str_at(ref, "namespace", NULL);
	if (json_is_object(ref) && ns && *ns && strcmp(ns, hrns) != 0)
		return denied(err, str_at(ref, "kind", NULL) ? str_at(ref, "kind", NULL) : "source", ns,
			      str_at(ref, "name", NULL), "");
	/* .spec.chart: the HelmChart "<ns>-<name>" lives in the sourceRef's namespace */
	ref = json_object_get(json_object_get(json_object_get(spec, "chart"), "spec"), "sourceRef");
	ns = str_at(ref, "namespace", NULL);
	if (json_is_object(ref) && ns && *ns && strcmp(ns, hrns) != 0) {
		snprintf(name, sizeof name, "%s-%s", hrns, hrname ? hrname : "");
		return denied(err, "HelmChart", ns, name, "");
	}
	json_array_foreach(json_object_get(spec, "dependsOn"), i, x) {
		ns = str_at(x, "namespace", NULL);
		if (ns && *ns && strcmp(ns, hrns) != 0)
			return denied(err, "HelmRelease", ns, str_at(x, "name", NULL), "");
	}
	return 0;
}
