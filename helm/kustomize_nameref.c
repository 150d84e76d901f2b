/* helm/kustomize_nameref.c — kustomize's name reference transformer, as
 * far as it can fail here (kustomize_internal.h: kz_nameref_check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helm/kustomize.h"
#include "helm/kustomize_internal.h"

/* kustomize ends every build with its name reference transformer, which
 * walks each referrer field spec of its default nameReference
 * configuration (api/internal/konfig/builtinpluginconsts/namereference.go)
 * through the objects. Names never change here (no prefix, suffix or
 * generator), so it only matters where it fails: on an object a patch
 * left in a shape the walk refuses. */
typedef struct nameref_spec {
	const char *group, *version, *kind, *path;
} nameref_spec;

/* kustomize v5.7.1's referrer field specs, in the order the transformer
 * visits them (its back references sorted as resid.Gvk.IsLessThan sorts,
 * each one's referrers in the order given; repeats left out). */
static const nameref_spec nameref_specs[] = {
	/* StorageClass */
	{"", "", "PersistentVolume", "spec/storageClassName"},
	{"", "", "PersistentVolumeClaim", "spec/storageClassName"},
	{"", "", "StatefulSet", "spec/volumeClaimTemplates/spec/storageClassName"},
	/* ServiceAccount */
	{"rbac.authorization.k8s.io", "", "RoleBinding", "subjects"},
	{"rbac.authorization.k8s.io", "", "ClusterRoleBinding", "subjects"},
	{"", "", "Pod", "spec/serviceAccountName"},
	{"", "", "StatefulSet", "spec/template/spec/serviceAccountName"},
	{"", "", "Deployment", "spec/template/spec/serviceAccountName"},
	{"", "", "ReplicationController", "spec/template/spec/serviceAccountName"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/serviceAccountName"},
	{"", "", "Job", "spec/template/spec/serviceAccountName"},
	{"", "", "DaemonSet", "spec/template/spec/serviceAccountName"},
	/* Role */
	{"rbac.authorization.k8s.io", "", "RoleBinding", "roleRef/name"},
	/* ClusterRole */
	{"rbac.authorization.k8s.io", "", "ClusterRoleBinding", "roleRef/name"},
	/* ConfigMap */
	{"", "v1", "Pod", "spec/volumes/configMap/name"},
	{"", "v1", "Pod", "spec/containers/env/valueFrom/configMapKeyRef/name"},
	{"", "v1", "Pod", "spec/initContainers/env/valueFrom/configMapKeyRef/name"},
	{"", "v1", "Pod", "spec/containers/envFrom/configMapRef/name"},
	{"", "v1", "Pod", "spec/initContainers/envFrom/configMapRef/name"},
	{"", "v1", "Pod", "spec/volumes/projected/sources/configMap/name"},
	{"", "", "PodTemplate", "template/spec/volumes/configMap/name"},
	{"", "", "PodTemplate", "template/spec/containers/env/valueFrom/configMapKeyRef/name"},
	{"", "", "PodTemplate", "template/spec/initContainers/env/valueFrom/configMapKeyRef/name"},
	{"", "", "PodTemplate", "template/spec/containers/envFrom/configMapRef/name"},
	{"", "", "PodTemplate", "template/spec/initContainers/envFrom/configMapRef/name"},
	{"", "", "PodTemplate", "template/spec/volumes/projected/sources/configMap/name"},
	{"", "", "Deployment", "spec/template/spec/volumes/configMap/name"},
	{"", "", "Deployment", "spec/template/spec/containers/env/valueFrom/configMapKeyRef/name"},
	{"", "", "Deployment", "spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name"},
	{"", "", "Deployment", "spec/template/spec/containers/envFrom/configMapRef/name"},
	{"", "", "Deployment", "spec/template/spec/initContainers/envFrom/configMapRef/name"},
	{"", "", "Deployment", "spec/template/spec/volumes/projected/sources/configMap/name"},
	{"", "", "ReplicaSet", "spec/template/spec/volumes/configMap/name"},
	{"", "", "ReplicaSet", "spec/template/spec/containers/env/valueFrom/configMapKeyRef/name"},
	{"", "", "ReplicaSet", "spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name"},
	{"", "", "ReplicaSet", "spec/template/spec/containers/envFrom/configMapRef/name"},
	{"", "", "ReplicaSet", "spec/template/spec/initContainers/envFrom/configMapRef/name"},
	{"", "", "ReplicaSet", "spec/template/spec/volumes/projected/sources/configMap/name"},
	{"", "", "DaemonSet", "spec/template/spec/volumes/configMap/name"},
	{"", "", "DaemonSet", "spec/template/spec/containers/env/valueFrom/configMapKeyRef/name"},
	{"", "", "DaemonSet", "spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name"},
	{"", "", "DaemonSet", "spec/template/spec/containers/envFrom/configMapRef/name"},
	{"", "", "DaemonSet", "spec/template/spec/initContainers/envFrom/configMapRef/name"},
	{"", "", "DaemonSet", "spec/template/spec/volumes/projected/sources/configMap/name"},
	{"", "", "StatefulSet", "spec/template/spec/volumes/configMap/name"},
	{"", "", "StatefulSet", "spec/template/spec/containers/env/valueFrom/configMapKeyRef/name"},
	{"", "", "StatefulSet", "spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name"},
	{"", "", "StatefulSet", "spec/template/spec/containers/envFrom/configMapRef/name"},
	{"", "", "StatefulSet", "spec/template/spec/initContainers/envFrom/configMapRef/name"},
	{"", "", "StatefulSet", "spec/template/spec/volumes/projected/sources/configMap/name"},
	{"", "", "Job", "spec/template/spec/volumes/configMap/name"},
	{"", "", "Job", "spec/template/spec/containers/env/valueFrom/configMapKeyRef/name"},
	{"", "", "Job", "spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name"},
	{"", "", "Job", "spec/template/spec/containers/envFrom/configMapRef/name"},
	{"", "", "Job", "spec/template/spec/initContainers/envFrom/configMapRef/name"},
	{"", "", "Job", "spec/template/spec/volumes/projected/sources/configMap/name"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/volumes/configMap/name"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/volumes/projected/sources/configMap/name"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/containers/env/valueFrom/configMapKeyRef/name"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/containers/envFrom/configMapRef/name"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/initContainers/envFrom/configMapRef/name"},
	{"", "", "Node", "spec/configSource/configMap"},
	{"", "", "Role", "rules/resourceNames"},
	{"", "", "ClusterRole", "rules/resourceNames"},
	{"", "", "Ingress", "metadata/annotations/nginx.ingress.kubernetes.io\\/fastcgi-params-configmap"},
	/* Secret */
	{"", "v1", "Pod", "spec/volumes/secret/secretName"},
	{"", "v1", "Pod", "spec/containers/env/valueFrom/secretKeyRef/name"},
	{"", "v1", "Pod", "spec/initContainers/env/valueFrom/secretKeyRef/name"},
	{"", "v1", "Pod", "spec/containers/envFrom/secretRef/name"},
	{"", "v1", "Pod", "spec/initContainers/envFrom/secretRef/name"},
	{"", "v1", "Pod", "spec/imagePullSecrets/name"},
	{"", "v1", "Pod", "spec/volumes/projected/sources/secret/name"},
	{"", "", "PodTemplate", "template/spec/volumes/secret/secretName"},
	{"", "", "PodTemplate", "template/spec/containers/env/valueFrom/secretKeyRef/name"},
	{"", "", "PodTemplate", "template/spec/initContainers/env/valueFrom/secretKeyRef/name"},
	{"", "", "PodTemplate", "template/spec/containers/envFrom/secretRef/name"},
	{"", "", "PodTemplate", "template/spec/initContainers/envFrom/secretRef/name"},
	{"", "", "PodTemplate", "template/spec/imagePullSecrets/name"},
	{"", "", "PodTemplate", "template/spec/volumes/projected/sources/secret/name"},
	{"", "", "Deployment", "spec/template/spec/volumes/secret/secretName"},
	{"", "", "Deployment", "spec/template/spec/containers/env/valueFrom/secretKeyRef/name"},
	{"", "", "Deployment", "spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name"},
	{"", "", "Deployment", "spec/template/spec/containers/envFrom/secretRef/name"},
	{"", "", "Deployment", "spec/template/spec/initContainers/envFrom/secretRef/name"},
	{"", "", "Deployment", "spec/template/spec/imagePullSecrets/name"},
	{"", "", "Deployment", "spec/template/spec/volumes/projected/sources/secret/name"},
	{"", "", "ReplicaSet", "spec/template/spec/volumes/secret/secretName"},
	{"", "", "ReplicaSet", "spec/template/spec/containers/env/valueFrom/secretKeyRef/name"},
	{"", "", "ReplicaSet", "spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name"},
	{"", "", "ReplicaSet", "spec/template/spec/containers/envFrom/secretRef/name"},
	{"", "", "ReplicaSet", "spec/template/spec/initContainers/envFrom/secretRef/name"},
	{"", "", "ReplicaSet", "spec/template/spec/imagePullSecrets/name"},
	{"", "", "ReplicaSet", "spec/template/spec/volumes/projected/sources/secret/name"},
	{"", "", "DaemonSet", "spec/template/spec/volumes/secret/secretName"},
	{"", "", "DaemonSet", "spec/template/spec/containers/env/valueFrom/secretKeyRef/name"},
	{"", "", "DaemonSet", "spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name"},
	{"", "", "DaemonSet", "spec/template/spec/containers/envFrom/secretRef/name"},
	{"", "", "DaemonSet", "spec/template/spec/initContainers/envFrom/secretRef/name"},
	{"", "", "DaemonSet", "spec/template/spec/imagePullSecrets/name"},
	{"", "", "DaemonSet", "spec/template/spec/volumes/projected/sources/secret/name"},
	{"", "", "StatefulSet", "spec/template/spec/volumes/secret/secretName"},
	{"", "", "StatefulSet", "spec/template/spec/containers/env/valueFrom/secretKeyRef/name"},
	{"", "", "StatefulSet", "spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name"},
	{"", "", "StatefulSet", "spec/template/spec/containers/envFrom/secretRef/name"},
	{"", "", "StatefulSet", "spec/template/spec/initContainers/envFrom/secretRef/name"},
	{"", "", "StatefulSet", "spec/template/spec/imagePullSecrets/name"},
	{"", "", "StatefulSet", "spec/template/spec/volumes/projected/sources/secret/name"},
	{"", "", "Job", "spec/template/spec/volumes/secret/secretName"},
	{"", "", "Job", "spec/template/spec/containers/env/valueFrom/secretKeyRef/name"},
	{"", "", "Job", "spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name"},
	{"", "", "Job", "spec/template/spec/containers/envFrom/secretRef/name"},
	{"", "", "Job", "spec/template/spec/initContainers/envFrom/secretRef/name"},
	{"", "", "Job", "spec/template/spec/imagePullSecrets/name"},
	{"", "", "Job", "spec/template/spec/volumes/projected/sources/secret/name"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/volumes/secret/secretName"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/volumes/projected/sources/secret/name"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/containers/env/valueFrom/secretKeyRef/name"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/containers/envFrom/secretRef/name"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/initContainers/envFrom/secretRef/name"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/imagePullSecrets/name"},
	{"", "", "Ingress", "spec/tls/secretName"},
	{"", "", "Ingress", "metadata/annotations/ingress.kubernetes.io\\/auth-secret"},
	{"", "", "Ingress", "metadata/annotations/nginx.ingress.kubernetes.io\\/auth-secret"},
	{"", "", "Ingress", "metadata/annotations/nginx.ingress.kubernetes.io\\/auth-tls-secret"},
	{"", "", "ServiceAccount", "imagePullSecrets/name"},
	{"", "", "StorageClass", "parameters/secretName"},
	{"", "", "StorageClass", "parameters/adminSecretName"},
	{"", "", "StorageClass", "parameters/userSecretName"},
	{"", "", "StorageClass", "parameters/secretRef"},
	{"serving.knative.dev", "v1", "Service", "spec/template/spec/containers/env/valueFrom/secretKeyRef/name"},
	{"", "", "PersistentVolume", "spec/azureFile/secretName"},
	/* Service */
	{"apps", "", "StatefulSet", "spec/serviceName"},
	{"", "", "Ingress", "spec/rules/http/paths/backend/serviceName"},
	{"", "", "Ingress", "spec/backend/serviceName"},
	{"", "", "Ingress", "spec/rules/http/paths/backend/service/name"},
	{"", "", "Ingress", "spec/defaultBackend/service/name"},
	{"apiregistration.k8s.io", "", "APIService", "spec/service/name"},
	{"admissionregistration.k8s.io", "", "ValidatingWebhookConfiguration", "webhooks/clientConfig/service"},
	{"admissionregistration.k8s.io", "", "MutatingWebhookConfiguration", "webhooks/clientConfig/service"},
	/* PriorityClass */
	{"", "", "Pod", "spec/priorityClassName"},
	{"", "", "StatefulSet", "spec/template/spec/priorityClassName"},
	{"", "", "Deployment", "spec/template/spec/priorityClassName"},
	{"", "", "ReplicationController", "spec/template/spec/priorityClassName"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/priorityClassName"},
	{"", "", "Job", "spec/template/spec/priorityClassName"},
	{"", "", "DaemonSet", "spec/template/spec/priorityClassName"},
	/* PersistentVolume */
	{"", "", "PersistentVolumeClaim", "spec/volumeName"},
	/* PersistentVolumeClaim */
	{"", "", "Pod", "spec/volumes/persistentVolumeClaim/claimName"},
	{"", "", "StatefulSet", "spec/template/spec/volumes/persistentVolumeClaim/claimName"},
	{"", "", "Deployment", "spec/template/spec/volumes/persistentVolumeClaim/claimName"},
	{"", "", "ReplicationController", "spec/template/spec/volumes/persistentVolumeClaim/claimName"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/volumes/persistentVolumeClaim/claimName"},
	{"", "", "Job", "spec/template/spec/volumes/persistentVolumeClaim/claimName"},
	{"", "", "DaemonSet", "spec/template/spec/volumes/persistentVolumeClaim/claimName"},
	/* Deployment */
	{"", "", "HorizontalPodAutoscaler", "spec/scaleTargetRef/name"},
	/* ValidatingAdmissionPolicy */
	{"admissionregistration.k8s.io", "", "ValidatingAdmissionPolicyBinding", "spec/policyName"},
	/* IngressClass */
	{"", "", "Ingress", "spec/ingressClassName"},
	{NULL, NULL, NULL, NULL},
};

/* resid.ResId.String(): Kind.version.group/name.namespace */
static void res_id(const json_t *o, char *buf, size_t n)
{
	const char *av = kz_sget(o, "apiVersion"), *slash = strchr(av, '/');
	const json_t *md = json_object_get(o, "metadata");
	const char *kind = kz_sget(o, "kind"), *name = kz_sget(md, "name"), *ns = kz_sget(md, "namespace");
	char group[256], version[256];
	snprintf(group, sizeof group, "%.*s", slash ? (int)(slash - av) : 0, av);
	snprintf(version, sizeof version, "%s", slash ? slash + 1 : av);
	snprintf(buf, n, "%s.%s.%s/%s.%s", *kind ? kind : "[noKind]", *version ? version : "[noVer]",
		 *group ? group : "[noGrp]", *name ? name : "[noName]", *ns ? ns : "[noNs]");
}

/* The Go type kustomize's map of the object holds for v */
static const char *go_type(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "map[string]interface {}";
	case JSON_ARRAY:
		return "[]interface {}";
	case JSON_STRING:
		return "string";
	case JSON_INTEGER:
		return "int";
	case JSON_REAL:
		return "float64";
	case JSON_TRUE:
	case JSON_FALSE:
		return "bool";
	default:
		return "nil";
	}
}

/* nameref.Filter.set on the node at the end of the path: a map must hold
 * a "name", a list only names or such maps. */
static int nameref_leaf(const json_t *v, bh_error *err)
{
	size_t i;
	const json_t *e;
	if (json_is_object(v) && !json_object_get(v, "name"))
		return bh_error_set(err, BH_EINVAL, "path config error; no 'name' field in node");
	json_array_foreach(v, i, e) {
		if (json_is_object(e) && !json_object_get(e, "name"))
			return bh_error_set(err, BH_EINVAL, "path config error; no 'name' field in node");
		if (json_is_array(e))
			return bh_error_set(err, BH_EINVAL,
					    "a list in the list is expected to be either a string or a map of string");
	}
	return 0;
}

/* fieldspec.Filter's walk of segs[at..] from v */
static int nameref_walk(const json_t *v, char **segs, size_t nseg, size_t at, int depth, bh_error *err)
{
	if (at == nseg)
		return nameref_leaf(v, err);
	if (!v || json_is_null(v) || depth > KZ_MAX_DEPTH)
		return 0;
	if (json_is_object(v))
		return nameref_walk(json_object_get(v, segs[at]), segs, nseg, at + 1, depth + 1, err);
	if (json_is_array(v)) {
		size_t i;
		const json_t *e;
		json_array_foreach(v, i, e) if (nameref_walk(e, segs, nseg, at, depth + 1, err) < 0)
		{
			char rest[512] = "";
			for (size_t k = at; k < nseg; k++)
				snprintf(rest + strlen(rest), sizeof rest - strlen(rest), "%s%s", k > at ? " " : "",
					 segs[k]);
			return bh_error_prefix(err, "visit traversal on path: [%s]", rest);
		}
		return 0;
	}
	return bh_error_set(err, BH_EINVAL, "expected sequence or mapping node");
}

static int gvk_selects(const nameref_spec *s, const json_t *o)
{
	const char *av = kz_sget(o, "apiVersion"), *slash = strchr(av, '/');
	size_t gl = slash ? (size_t)(slash - av) : 0;
	const char *version = slash ? slash + 1 : av;
	if (*s->group && (strlen(s->group) != gl || strncmp(s->group, av, gl)))
		return 0;
	if (*s->version && strcmp(s->version, version))
		return 0;
	return !*s->kind || !strcmp(s->kind, kz_sget(o, "kind"));
}

/* resmap.SubsetThatCouldBeReferencedByResource on a RoleBinding: its
 * subjects must be maps, a ServiceAccount's namespace a string (kustomize
 * panics on the first, fails on the second). */
static int nameref_role_binding(const json_t *o, const char *id, bh_error *err)
{
	const json_t *subjects = json_object_get(o, "subjects"), *s;
	size_t i;
	if (strcmp(kz_sget(o, "kind"), "RoleBinding") || !json_is_array(subjects))
		return 0;
	json_array_foreach(subjects, i, s) {
		const json_t *ns, *kind;
		if (!json_is_object(s))
			return bh_error_set(err, BH_EINVAL,
					    "%s: subjects[%zu]: interface conversion: interface {} is %s, not "
					    "map[string]interface {} (kustomize v5.7.1 panics)",
					    id, i, go_type(s));
		ns = json_object_get(s, "namespace");
		kind = json_object_get(s, "kind");
		if (!ns || !kind)
			continue;
		if (!json_is_string(kind))
			return bh_error_set(err, BH_EINVAL,
					    "%s: subjects[%zu].kind: interface conversion: interface {} is %s, not string "
					    "(kustomize v5.7.1 panics)",
					    id, i, go_type(kind));
		if (!strcmp(json_string_value(kind), "ServiceAccount") && !json_is_string(ns))
			return bh_error_set(err, BH_EINVAL, "Invalid Input: namespace is blank for resource \"%s\"\n", id);
	}
	return 0;
}

/* The name reference transformer's walk over one object; an error as
 * kustomize words it. */
int kz_nameref_check(const json_t *o, bh_error *err)
{
	char id[1024];
	int first = 1;
	for (const nameref_spec *s = nameref_specs; s->path; s++) {
		char *path, *segs[16], *save = NULL;
		size_t nseg = 0;
		int rc;
		if (!gvk_selects(s, o))
			continue;
		if (first) {
			res_id(o, id, sizeof id);
			if ((rc = nameref_role_binding(o, id, err)) < 0)
				return rc;
			first = 0;
		}
		if (!(path = strdup(s->path)))
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		/* utils.PathSplitter: "\\/" does not split */
		for (char *t = strtok_r(path, "/", &save); t && nseg < 16; t = strtok_r(NULL, "/", &save)) {
			size_t l = nseg ? strlen(segs[nseg - 1]) : 0;
			if (l && segs[nseg - 1][l - 1] == '\\') {
				segs[nseg - 1][l - 1] = '/';
				memmove(segs[nseg - 1] + l, t, strlen(t) + 1);
			} else {
				segs[nseg++] = t;
			}
		}
		rc = nameref_walk(o, segs, nseg, 0, 0, err);
		free(path);
		if (rc < 0) {
			bh_error_prefix(err, "considering field '%s' of object %s", s->path, id);
			return bh_error_prefix(err, "updating name reference in '%s' field of '%s'", s->path, id);
		}
	}
	return 0;
}
