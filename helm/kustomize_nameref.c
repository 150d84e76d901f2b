/* helm/kustomize_nameref.c — kustomize's name reference transformer, as
 * far as it can fail here (kustomize_internal.h: kz_nameref_check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helm/kustomize.h"
#include "helm/kustomize_internal.h"
#include "helm/kustomize_schema.h"

/* kustomize ends every build with its name reference transformer, which
 * walks each referrer field spec of its default nameReference
 * configuration (api/internal/konfig/builtinpluginconsts/namereference.go)
 * through the objects. Names never change here (no prefix, suffix or
 * generator), so it only matters where it fails: on an object a patch
 * left in a shape the walk refuses. */
typedef struct nameref_spec {
	const char *group, *version, *kind, *path;
	const char *tgroup, *tversion, *tkind; /* the referral's kind (the back reference) */
} nameref_spec;

/* kustomize v5.7.1's referrer field specs, in the order the transformer
 * visits them (its back references sorted as resid.Gvk.IsLessThan sorts,
 * each one's referrers in the order given; the HorizontalPodAutoscaler's,
 * which four back references share, last for the other three). */
static const nameref_spec nameref_specs[] = {
	/* StorageClass */
	{"", "", "PersistentVolume", "spec/storageClassName", "storage.k8s.io", "v1", "StorageClass"},
	{"", "", "PersistentVolumeClaim", "spec/storageClassName", "storage.k8s.io", "v1", "StorageClass"},
	{"", "", "StatefulSet", "spec/volumeClaimTemplates/spec/storageClassName", "storage.k8s.io", "v1", "StorageClass"},
	/* ServiceAccount */
	{"rbac.authorization.k8s.io", "", "RoleBinding", "subjects", "", "v1", "ServiceAccount"},
	{"rbac.authorization.k8s.io", "", "ClusterRoleBinding", "subjects", "", "v1", "ServiceAccount"},
	{"", "", "Pod", "spec/serviceAccountName", "", "v1", "ServiceAccount"},
	{"", "", "StatefulSet", "spec/template/spec/serviceAccountName", "", "v1", "ServiceAccount"},
	{"", "", "Deployment", "spec/template/spec/serviceAccountName", "", "v1", "ServiceAccount"},
	{"", "", "ReplicationController", "spec/template/spec/serviceAccountName", "", "v1", "ServiceAccount"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/serviceAccountName", "", "v1", "ServiceAccount"},
	{"", "", "Job", "spec/template/spec/serviceAccountName", "", "v1", "ServiceAccount"},
	{"", "", "DaemonSet", "spec/template/spec/serviceAccountName", "", "v1", "ServiceAccount"},
	/* Role */
	{"rbac.authorization.k8s.io", "", "RoleBinding", "roleRef/name", "rbac.authorization.k8s.io", "", "Role"},
	/* ClusterRole */
	{"rbac.authorization.k8s.io", "", "ClusterRoleBinding", "roleRef/name", "rbac.authorization.k8s.io", "", "ClusterRole"},
	/* ConfigMap */
	{"", "v1", "Pod", "spec/volumes/configMap/name", "", "v1", "ConfigMap"},
	{"", "v1", "Pod", "spec/containers/env/valueFrom/configMapKeyRef/name", "", "v1", "ConfigMap"},
	{"", "v1", "Pod", "spec/initContainers/env/valueFrom/configMapKeyRef/name", "", "v1", "ConfigMap"},
	{"", "v1", "Pod", "spec/containers/envFrom/configMapRef/name", "", "v1", "ConfigMap"},
	{"", "v1", "Pod", "spec/initContainers/envFrom/configMapRef/name", "", "v1", "ConfigMap"},
	{"", "v1", "Pod", "spec/volumes/projected/sources/configMap/name", "", "v1", "ConfigMap"},
	{"", "", "PodTemplate", "template/spec/volumes/configMap/name", "", "v1", "ConfigMap"},
	{"", "", "PodTemplate", "template/spec/containers/env/valueFrom/configMapKeyRef/name", "", "v1", "ConfigMap"},
	{"", "", "PodTemplate", "template/spec/initContainers/env/valueFrom/configMapKeyRef/name", "", "v1", "ConfigMap"},
	{"", "", "PodTemplate", "template/spec/containers/envFrom/configMapRef/name", "", "v1", "ConfigMap"},
	{"", "", "PodTemplate", "template/spec/initContainers/envFrom/configMapRef/name", "", "v1", "ConfigMap"},
	{"", "", "PodTemplate", "template/spec/volumes/projected/sources/configMap/name", "", "v1", "ConfigMap"},
	{"", "", "Deployment", "spec/template/spec/volumes/configMap/name", "", "v1", "ConfigMap"},
	{"", "", "Deployment", "spec/template/spec/containers/env/valueFrom/configMapKeyRef/name", "", "v1", "ConfigMap"},
	{"", "", "Deployment", "spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name", "", "v1", "ConfigMap"},
	{"", "", "Deployment", "spec/template/spec/containers/envFrom/configMapRef/name", "", "v1", "ConfigMap"},
	{"", "", "Deployment", "spec/template/spec/initContainers/envFrom/configMapRef/name", "", "v1", "ConfigMap"},
	{"", "", "Deployment", "spec/template/spec/volumes/projected/sources/configMap/name", "", "v1", "ConfigMap"},
	{"", "", "ReplicaSet", "spec/template/spec/volumes/configMap/name", "", "v1", "ConfigMap"},
	{"", "", "ReplicaSet", "spec/template/spec/containers/env/valueFrom/configMapKeyRef/name", "", "v1", "ConfigMap"},
	{"", "", "ReplicaSet", "spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name", "", "v1", "ConfigMap"},
	{"", "", "ReplicaSet", "spec/template/spec/containers/envFrom/configMapRef/name", "", "v1", "ConfigMap"},
	{"", "", "ReplicaSet", "spec/template/spec/initContainers/envFrom/configMapRef/name", "", "v1", "ConfigMap"},
	{"", "", "ReplicaSet", "spec/template/spec/volumes/projected/sources/configMap/name", "", "v1", "ConfigMap"},
	{"", "", "DaemonSet", "spec/template/spec/volumes/configMap/name", "", "v1", "ConfigMap"},
	{"", "", "DaemonSet", "spec/template/spec/containers/env/valueFrom/configMapKeyRef/name", "", "v1", "ConfigMap"},
	{"", "", "DaemonSet", "spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name", "", "v1", "ConfigMap"},
	{"", "", "DaemonSet", "spec/template/spec/containers/envFrom/configMapRef/name", "", "v1", "ConfigMap"},
	{"", "", "DaemonSet", "spec/template/spec/initContainers/envFrom/configMapRef/name", "", "v1", "ConfigMap"},
	{"", "", "DaemonSet", "spec/template/spec/volumes/projected/sources/configMap/name", "", "v1", "ConfigMap"},
	{"", "", "StatefulSet", "spec/template/spec/volumes/configMap/name", "", "v1", "ConfigMap"},
	{"", "", "StatefulSet", "spec/template/spec/containers/env/valueFrom/configMapKeyRef/name", "", "v1", "ConfigMap"},
	{"", "", "StatefulSet", "spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name", "", "v1", "ConfigMap"},
	{"", "", "StatefulSet", "spec/template/spec/containers/envFrom/configMapRef/name", "", "v1", "ConfigMap"},
	{"", "", "StatefulSet", "spec/template/spec/initContainers/envFrom/configMapRef/name", "", "v1", "ConfigMap"},
	{"", "", "StatefulSet", "spec/template/spec/volumes/projected/sources/configMap/name", "", "v1", "ConfigMap"},
	{"", "", "Job", "spec/template/spec/volumes/configMap/name", "", "v1", "ConfigMap"},
	{"", "", "Job", "spec/template/spec/containers/env/valueFrom/configMapKeyRef/name", "", "v1", "ConfigMap"},
	{"", "", "Job", "spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name", "", "v1", "ConfigMap"},
	{"", "", "Job", "spec/template/spec/containers/envFrom/configMapRef/name", "", "v1", "ConfigMap"},
	{"", "", "Job", "spec/template/spec/initContainers/envFrom/configMapRef/name", "", "v1", "ConfigMap"},
	{"", "", "Job", "spec/template/spec/volumes/projected/sources/configMap/name", "", "v1", "ConfigMap"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/volumes/configMap/name", "", "v1", "ConfigMap"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/volumes/projected/sources/configMap/name", "", "v1", "ConfigMap"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/containers/env/valueFrom/configMapKeyRef/name", "", "v1", "ConfigMap"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name", "", "v1", "ConfigMap"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/containers/envFrom/configMapRef/name", "", "v1", "ConfigMap"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/initContainers/envFrom/configMapRef/name", "", "v1", "ConfigMap"},
	{"", "", "Node", "spec/configSource/configMap", "", "v1", "ConfigMap"},
	{"", "", "Role", "rules/resourceNames", "", "v1", "ConfigMap"},
	{"", "", "ClusterRole", "rules/resourceNames", "", "v1", "ConfigMap"},
	{"", "", "Ingress", "metadata/annotations/nginx.ingress.kubernetes.io\\/fastcgi-params-configmap", "", "v1", "ConfigMap"},
	/* Secret */
	{"", "v1", "Pod", "spec/volumes/secret/secretName", "", "v1", "Secret"},
	{"", "v1", "Pod", "spec/containers/env/valueFrom/secretKeyRef/name", "", "v1", "Secret"},
	{"", "v1", "Pod", "spec/initContainers/env/valueFrom/secretKeyRef/name", "", "v1", "Secret"},
	{"", "v1", "Pod", "spec/containers/envFrom/secretRef/name", "", "v1", "Secret"},
	{"", "v1", "Pod", "spec/initContainers/envFrom/secretRef/name", "", "v1", "Secret"},
	{"", "v1", "Pod", "spec/imagePullSecrets/name", "", "v1", "Secret"},
	{"", "v1", "Pod", "spec/volumes/projected/sources/secret/name", "", "v1", "Secret"},
	{"", "", "PodTemplate", "template/spec/volumes/secret/secretName", "", "v1", "Secret"},
	{"", "", "PodTemplate", "template/spec/containers/env/valueFrom/secretKeyRef/name", "", "v1", "Secret"},
	{"", "", "PodTemplate", "template/spec/initContainers/env/valueFrom/secretKeyRef/name", "", "v1", "Secret"},
	{"", "", "PodTemplate", "template/spec/containers/envFrom/secretRef/name", "", "v1", "Secret"},
	{"", "", "PodTemplate", "template/spec/initContainers/envFrom/secretRef/name", "", "v1", "Secret"},
	{"", "", "PodTemplate", "template/spec/imagePullSecrets/name", "", "v1", "Secret"},
	{"", "", "PodTemplate", "template/spec/volumes/projected/sources/secret/name", "", "v1", "Secret"},
	{"", "", "Deployment", "spec/template/spec/volumes/secret/secretName", "", "v1", "Secret"},
	{"", "", "Deployment", "spec/template/spec/containers/env/valueFrom/secretKeyRef/name", "", "v1", "Secret"},
	{"", "", "Deployment", "spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name", "", "v1", "Secret"},
	{"", "", "Deployment", "spec/template/spec/containers/envFrom/secretRef/name", "", "v1", "Secret"},
	{"", "", "Deployment", "spec/template/spec/initContainers/envFrom/secretRef/name", "", "v1", "Secret"},
	{"", "", "Deployment", "spec/template/spec/imagePullSecrets/name", "", "v1", "Secret"},
	{"", "", "Deployment", "spec/template/spec/volumes/projected/sources/secret/name", "", "v1", "Secret"},
	{"", "", "ReplicaSet", "spec/template/spec/volumes/secret/secretName", "", "v1", "Secret"},
	{"", "", "ReplicaSet", "spec/template/spec/containers/env/valueFrom/secretKeyRef/name", "", "v1", "Secret"},
	{"", "", "ReplicaSet", "spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name", "", "v1", "Secret"},
	{"", "", "ReplicaSet", "spec/template/spec/containers/envFrom/secretRef/name", "", "v1", "Secret"},
	{"", "", "ReplicaSet", "spec/template/spec/initContainers/envFrom/secretRef/name", "", "v1", "Secret"},
	{"", "", "ReplicaSet", "spec/template/spec/imagePullSecrets/name", "", "v1", "Secret"},
	{"", "", "ReplicaSet", "spec/template/spec/volumes/projected/sources/secret/name", "", "v1", "Secret"},
	{"", "", "DaemonSet", "spec/template/spec/volumes/secret/secretName", "", "v1", "Secret"},
	{"", "", "DaemonSet", "spec/template/spec/containers/env/valueFrom/secretKeyRef/name", "", "v1", "Secret"},
	{"", "", "DaemonSet", "spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name", "", "v1", "Secret"},
	{"", "", "DaemonSet", "spec/template/spec/containers/envFrom/secretRef/name", "", "v1", "Secret"},
	{"", "", "DaemonSet", "spec/template/spec/initContainers/envFrom/secretRef/name", "", "v1", "Secret"},
	{"", "", "DaemonSet", "spec/template/spec/imagePullSecrets/name", "", "v1", "Secret"},
	{"", "", "DaemonSet", "spec/template/spec/volumes/projected/sources/secret/name", "", "v1", "Secret"},
	{"", "", "StatefulSet", "spec/template/spec/volumes/secret/secretName", "", "v1", "Secret"},
	{"", "", "StatefulSet", "spec/template/spec/containers/env/valueFrom/secretKeyRef/name", "", "v1", "Secret"},
	{"", "", "StatefulSet", "spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name", "", "v1", "Secret"},
	{"", "", "StatefulSet", "spec/template/spec/containers/envFrom/secretRef/name", "", "v1", "Secret"},
	{"", "", "StatefulSet", "spec/template/spec/initContainers/envFrom/secretRef/name", "", "v1", "Secret"},
	{"", "", "StatefulSet", "spec/template/spec/imagePullSecrets/name", "", "v1", "Secret"},
	{"", "", "StatefulSet", "spec/template/spec/volumes/projected/sources/secret/name", "", "v1", "Secret"},
	{"", "", "Job", "spec/template/spec/volumes/secret/secretName", "", "v1", "Secret"},
	{"", "", "Job", "spec/template/spec/containers/env/valueFrom/secretKeyRef/name", "", "v1", "Secret"},
	{"", "", "Job", "spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name", "", "v1", "Secret"},
	{"", "", "Job", "spec/template/spec/containers/envFrom/secretRef/name", "", "v1", "Secret"},
	{"", "", "Job", "spec/template/spec/initContainers/envFrom/secretRef/name", "", "v1", "Secret"},
	{"", "", "Job", "spec/template/spec/imagePullSecrets/name", "", "v1", "Secret"},
	{"", "", "Job", "spec/template/spec/volumes/projected/sources/secret/name", "", "v1", "Secret"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/volumes/secret/secretName", "", "v1", "Secret"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/volumes/projected/sources/secret/name", "", "v1", "Secret"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/containers/env/valueFrom/secretKeyRef/name", "", "v1", "Secret"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name", "", "v1", "Secret"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/containers/envFrom/secretRef/name", "", "v1", "Secret"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/initContainers/envFrom/secretRef/name", "", "v1", "Secret"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/imagePullSecrets/name", "", "v1", "Secret"},
	{"", "", "Ingress", "spec/tls/secretName", "", "v1", "Secret"},
	{"", "", "Ingress", "metadata/annotations/ingress.kubernetes.io\\/auth-secret", "", "v1", "Secret"},
	{"", "", "Ingress", "metadata/annotations/nginx.ingress.kubernetes.io\\/auth-secret", "", "v1", "Secret"},
	{"", "", "Ingress", "metadata/annotations/nginx.ingress.kubernetes.io\\/auth-tls-secret", "", "v1", "Secret"},
	{"", "", "ServiceAccount", "imagePullSecrets/name", "", "v1", "Secret"},
	{"", "", "StorageClass", "parameters/secretName", "", "v1", "Secret"},
	{"", "", "StorageClass", "parameters/adminSecretName", "", "v1", "Secret"},
	{"", "", "StorageClass", "parameters/userSecretName", "", "v1", "Secret"},
	{"", "", "StorageClass", "parameters/secretRef", "", "v1", "Secret"},
	{"serving.knative.dev", "v1", "Service", "spec/template/spec/containers/env/valueFrom/secretKeyRef/name", "", "v1", "Secret"},
	{"", "", "PersistentVolume", "spec/azureFile/secretName", "", "v1", "Secret"},
	/* Service */
	{"apps", "", "StatefulSet", "spec/serviceName", "", "v1", "Service"},
	{"", "", "Ingress", "spec/rules/http/paths/backend/serviceName", "", "v1", "Service"},
	{"", "", "Ingress", "spec/backend/serviceName", "", "v1", "Service"},
	{"", "", "Ingress", "spec/rules/http/paths/backend/service/name", "", "v1", "Service"},
	{"", "", "Ingress", "spec/defaultBackend/service/name", "", "v1", "Service"},
	{"apiregistration.k8s.io", "", "APIService", "spec/service/name", "", "v1", "Service"},
	{"admissionregistration.k8s.io", "", "ValidatingWebhookConfiguration", "webhooks/clientConfig/service", "", "v1", "Service"},
	{"admissionregistration.k8s.io", "", "MutatingWebhookConfiguration", "webhooks/clientConfig/service", "", "v1", "Service"},
	/* PriorityClass */
	{"", "", "Pod", "spec/priorityClassName", "scheduling.k8s.io", "v1", "PriorityClass"},
	{"", "", "StatefulSet", "spec/template/spec/priorityClassName", "scheduling.k8s.io", "v1", "PriorityClass"},
	{"", "", "Deployment", "spec/template/spec/priorityClassName", "scheduling.k8s.io", "v1", "PriorityClass"},
	{"", "", "ReplicationController", "spec/template/spec/priorityClassName", "scheduling.k8s.io", "v1", "PriorityClass"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/priorityClassName", "scheduling.k8s.io", "v1", "PriorityClass"},
	{"", "", "Job", "spec/template/spec/priorityClassName", "scheduling.k8s.io", "v1", "PriorityClass"},
	{"", "", "DaemonSet", "spec/template/spec/priorityClassName", "scheduling.k8s.io", "v1", "PriorityClass"},
	/* PersistentVolume */
	{"", "", "PersistentVolumeClaim", "spec/volumeName", "", "v1", "PersistentVolume"},
	/* PersistentVolumeClaim */
	{"", "", "Pod", "spec/volumes/persistentVolumeClaim/claimName", "", "v1", "PersistentVolumeClaim"},
	{"", "", "StatefulSet", "spec/template/spec/volumes/persistentVolumeClaim/claimName", "", "v1", "PersistentVolumeClaim"},
	{"", "", "Deployment", "spec/template/spec/volumes/persistentVolumeClaim/claimName", "", "v1", "PersistentVolumeClaim"},
	{"", "", "ReplicationController", "spec/template/spec/volumes/persistentVolumeClaim/claimName", "", "v1", "PersistentVolumeClaim"},
	{"", "", "CronJob", "spec/jobTemplate/spec/template/spec/volumes/persistentVolumeClaim/claimName", "", "v1", "PersistentVolumeClaim"},
	{"", "", "Job", "spec/template/spec/volumes/persistentVolumeClaim/claimName", "", "v1", "PersistentVolumeClaim"},
	{"", "", "DaemonSet", "spec/template/spec/volumes/persistentVolumeClaim/claimName", "", "v1", "PersistentVolumeClaim"},
	/* Deployment */
	{"", "", "HorizontalPodAutoscaler", "spec/scaleTargetRef/name", "", "", "Deployment"},
	{"", "", "HorizontalPodAutoscaler", "spec/scaleTargetRef/name", "", "", "ReplicationController"},
	{"", "", "HorizontalPodAutoscaler", "spec/scaleTargetRef/name", "", "", "ReplicaSet"},
	{"", "", "HorizontalPodAutoscaler", "spec/scaleTargetRef/name", "", "", "StatefulSet"},
	/* ValidatingAdmissionPolicy */
	{"admissionregistration.k8s.io", "", "ValidatingAdmissionPolicyBinding", "spec/policyName", "admissionregistration.k8s.io", "", "ValidatingAdmissionPolicy"},
	/* IngressClass */
	{"", "", "Ingress", "spec/ingressClassName", "networking.k8s.io/v1", "v1", "IngressClass"},
	{NULL, NULL, NULL, NULL, NULL, NULL, NULL},
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

/* utils.PathSplitter: path split at "/" in place ("\\/" does not split). */
static size_t split_path(char *path, char **segs, size_t max)
{
	char *save = NULL;
	size_t nseg = 0;
	for (char *t = strtok_r(path, "/", &save); t && nseg < max; t = strtok_r(NULL, "/", &save)) {
		size_t l = nseg ? strlen(segs[nseg - 1]) : 0;
		if (l && segs[nseg - 1][l - 1] == '\\') {
			segs[nseg - 1][l - 1] = '/';
			memmove(segs[nseg - 1] + l, t, strlen(t) + 1);
		} else {
			segs[nseg++] = t;
		}
	}
	return nseg;
}

/* fn on the path segments of spec s, in referrer id; its error prefixed as
 * kustomize words it. */
static int spec_walk(const nameref_spec *s, const char *id, int (*fn)(void *, char **, size_t, bh_error *), void *ctx,
		     bh_error *err)
{
	char *path, *segs[16];
	size_t nseg;
	int rc;
	if (!(path = strdup(s->path)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	nseg = split_path(path, segs, 16);
	rc = fn(ctx, segs, nseg, err);
	free(path);
	if (rc < 0) {
		bh_error_prefix(err, "considering field '%s' of object %s", s->path, id);
		return bh_error_prefix(err, "updating name reference in '%s' field of '%s'", s->path, id);
	}
	return 0;
}

static int check_walk(void *o, char **segs, size_t nseg, bh_error *err)
{
	return nameref_walk(o, segs, nseg, 0, 0, err);
}

/* The name reference transformer's walk over one object; an error as
 * kustomize words it. */
int kz_nameref_check(const json_t *o, bh_error *err)
{
	char id[1024];
	int first = 1;
	for (const nameref_spec *s = nameref_specs; s->path; s++) {
		int rc;
		if (!gvk_selects(s, o))
			continue;
		if (first) {
			res_id(o, id, sizeof id);
			if ((rc = nameref_role_binding(o, id, err)) < 0)
				return rc;
			first = 0;
		}
		if ((rc = spec_walk(s, id, check_walk, (void *)o, err)) < 0)
			return rc;
	}
	return 0;
}

/* ---- renames: a JSON patch may rename an object -------------------------------------- */

/* kustomize stores an object's id (name, namespace, kind) in its build
 * annotations before each JSON patch (PatchTransformer, StorePreviousId);
 * at the end its name reference transformer points each reference to a
 * previous name at the object's current name. Objects never JSON-patched
 * have no previous ids and are never referrals. */
#define PREV_NAMES "internal.config.kubernetes.io/previousNames"
#define PREV_NAMESPACES "internal.config.kubernetes.io/previousNamespaces"
#define PREV_KINDS "internal.config.kubernetes.io/previousKinds"

typedef struct nr_ctx {
	json_t *objs;
	const json_t *referrer;
	const nameref_spec *spec;
	char rid[1024];
} nr_ctx;

static const char *anno(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(json_object_get(json_object_get(o, "metadata"), "annotations"), k));
}


static int gvk_is(const char *group, const char *version, const char *kind, const char *sg, const char *sv,
		  const char *sk)
{
	return (!*sg || !strcmp(sg, group)) && (!*sv || !strcmp(sv, version)) && (!*sk || !strcmp(sk, kind));
}

static void group_version(const json_t *o, char *g, char *v, size_t n)
{
	const char *av = kz_sget(o, "apiVersion"), *slash = strchr(av, '/');
	snprintf(g, n, "%.*s", slash ? (int)(slash - av) : 0, av);
	snprintf(v, n, "%s", slash ? slash + 1 : av);
}

/* resid.IsSelected on c's previous ids: one named name (NULL: any) of the
 * kind sg/sv/sk. */
static int prev_selected(const json_t *c, const char *name, const char *sg, const char *sv, const char *sk)
{
	const char *names = anno(c, PREV_NAMES), *kinds = anno(c, PREV_KINDS);
	char g[256], v[256], nm[512], k[256];
	if (!names)
		return 0;
	group_version(c, g, v, sizeof g);
	for (size_t i = 0; kz_csv_at(names, i, nm, sizeof nm); i++) {
		if (!kz_csv_at(kinds ? kinds : "", i, k, sizeof k))
			k[0] = '\0';
		if ((!name || !strcmp(nm, name)) && gvk_is(g, v, k, sg, sv, sk))
			return 1;
	}
	return 0;
}

static int cluster_scoped(const json_t *o)
{
	return kz_schema_cluster_scoped(kz_sget(o, "apiVersion"), kz_sget(o, "kind"));
}

static const char *eff_ns(const json_t *o)
{
	const char *ns = kz_sget(json_object_get(o, "metadata"), "namespace");
	return cluster_scoped(o) ? "_non_namespaceable_" : *ns ? ns : "default";
}

/* SubsetThatCouldBeReferencedByResource */
static int could_refer(const json_t *r, const json_t *c)
{
	const json_t *s;
	size_t i;
	if (cluster_scoped(r) || cluster_scoped(c) || !strcmp(eff_ns(r), eff_ns(c)))
		return 1;
	if (strcmp(kz_sget(r, "kind"), "RoleBinding"))
		return 0;
	json_array_foreach(json_object_get(r, "subjects"), i, s) if (!strcmp(kz_sget(s, "kind"), "ServiceAccount") &&
								      json_is_string(json_object_get(s, "namespace")) &&
								      !strcmp(kz_sget(s, "namespace"),
									      kz_sget(json_object_get(c, "metadata"),
										      "namespace"))) return 1;
	return 0;
}

/* nameref.Filter.selectReferral: the one object a reference to name
 * means, NULL for none; -1 (err set) when several differ. ns: the
 * namespace a map reference names, or NULL. */
/* c is a candidate for a reference to name (namespace ns, or NULL) of
 * the referrer. */
static int candidate(const nr_ctx *x, const json_t *c, const char *name, const char *ns)
{
	const char *rr = strstr(x->spec->path, "roleRef/name");
	if (!json_is_object(c) || !could_refer(x->referrer, c) ||
	    !prev_selected(c, name, x->spec->tgroup, x->spec->tversion, x->spec->tkind))
		return 0;
	if (ns) { /* GroupedByOriginalNamespace: the first previous namespace */
		char on[512];
		const char *pn = anno(c, PREV_NAMESPACES);
		if (!pn || !kz_csv_at(pn, 0, on, sizeof on))
			snprintf(on, sizeof on, "%s", kz_sget(json_object_get(c, "metadata"), "namespace"));
		if (strcmp(on, ns) && strcmp(kz_sget(json_object_get(c, "metadata"), "namespace"), ns))
			return 0;
	}
	if (rr && rr[strlen("roleRef/name")] == '\0') {
		const json_t *ref = json_object_get(x->referrer, "roleRef");
		if (json_is_object(ref) && !prev_selected(c, NULL, kz_sget(ref, "apiGroup"), "", kz_sget(ref, "kind")))
			return 0;
	}
	if (!cluster_scoped(x->referrer) && !cluster_scoped(c) && strcmp(kz_sget(c, "kind"), "ServiceAccount") &&
	    strcmp(eff_ns(x->referrer), eff_ns(c)))
		return 0;
	return 1;
}

/* An object as kustomize's MustYaml prints it (our records left out). */
static void put_yaml(const json_t *o, bh_buf *b)
{
	json_t *c = json_copy((json_t *)o);
	if (c) {
		json_object_del(c, KZ_TEXTS);
		kz_emit_one(c, 0, b, NULL);
	}
	json_decref(c);
}

/* nameref's "found multiple possible referrals" error with its
 * failureDetails: the referrer and each candidate, as YAML. */
static int referrals_error(const nr_ctx *x, const char *name, const char *ns, const char *ids, bh_error *err)
{
	bh_buf b = BH_BUF_INIT;
	const json_t *c;
	size_t i, k = 0;
	int rc;
	bh_buf_printf(&b, "found multiple possible referrals: %s\n\n**** Too many possible referral targets to referrer:\n",
		      ids);
	put_yaml(x->referrer, &b);
	bh_buf_puts(&b, "\n");
	json_array_foreach(x->objs, i, c) if (candidate(x, c, name, ns)) {
		bh_buf_printf(&b, "--- possible referral %zu:\n", k++);
		put_yaml(c, &b);
		bh_buf_puts(&b, "\n");
	}
	rc = bh_error_set(err, BH_EINVAL, "%s", bh_buf_str(&b));
	bh_buf_free(&b);
	return rc;
}

static int select_referral(nr_ctx *x, const char *name, const char *ns, int mapping, const json_t **out,
			   bh_error *err)
{
	const json_t *c, *first = NULL;
	size_t i, n = 0;
	int same = 1;
	char ids[2048] = "";
	*out = NULL;
	json_array_foreach(x->objs, i, c) {
		if (!candidate(x, c, name, ns))
			continue;
		if (!first)
			first = c;
		else if (strcmp(kz_sget(json_object_get(c, "metadata"), "name"),
				kz_sget(json_object_get(first, "metadata"), "name")) ||
			 (mapping && strcmp(kz_sget(json_object_get(c, "metadata"), "namespace"),
					    kz_sget(json_object_get(first, "metadata"), "namespace"))))
			same = 0;
		{
			char id[1024];
			res_id(c, id, sizeof id);
			snprintf(ids + strlen(ids), sizeof ids - strlen(ids), "%s%s", n ? ", " : "", id);
		}
		n++;
	}
	if (n > 1 && !same)
		return referrals_error(x, name, ns, ids, err);
	*out = first;
	return 0;
}

static int rename_leaf(nr_ctx *x, json_t *holder, const char *key, size_t idx, json_t *v, bh_error *err)
{
	const json_t *ref;
	if (json_is_string(v)) {
		if (select_referral(x, json_string_value(v), NULL, 0, &ref, err) < 0)
			return -1;
		if (ref && strcmp(json_string_value(v), kz_sget(json_object_get(ref, "metadata"), "name"))) {
			json_t *nv = json_string(kz_sget(json_object_get(ref, "metadata"), "name"));
			if (key)
				json_object_set_new(holder, key, nv);
			else
				json_array_set_new(holder, idx, nv);
		}
		return 0;
	}
	if (json_is_object(v) && json_is_string(json_object_get(v, "name"))) {
		const char *name = kz_sget(v, "name");
		const json_t *nsv = json_object_get(v, "namespace");
		const char *rns;
		if (select_referral(x, name, nsv ? (json_is_string(nsv) ? json_string_value(nsv) : "") : NULL, 1, &ref,
				    err) < 0)
			return -1;
		if (!ref)
			return 0;
		rns = kz_sget(json_object_get(ref, "metadata"), "namespace");
		if (!strcmp(kz_sget(json_object_get(ref, "metadata"), "name"), name) && !*rns)
			return 0;
		json_object_set_new(v, "name", json_string(kz_sget(json_object_get(ref, "metadata"), "name")));
		if (*rns)
			json_object_set_new(v, "namespace", json_string(rns));
	}
	return 0;
}

static int rename_walk(nr_ctx *x, json_t *holder, const char *key, size_t idx, json_t *v, char **segs, size_t nseg,
		       size_t at, int depth, bh_error *err)
{
	size_t i;
	json_t *e;
	if (!v || json_is_null(v) || depth > KZ_MAX_DEPTH)
		return 0;
	if (at == nseg) {
		if (!json_is_array(v))
			return rename_leaf(x, holder, key, idx, v, err);
		json_array_foreach(v, i, e) if (rename_leaf(x, v, NULL, i, e, err) < 0) return -1;
		return 0;
	}
	if (json_is_object(v))
		return rename_walk(x, v, segs[at], 0, json_object_get(v, segs[at]), segs, nseg, at + 1, depth + 1, err);
	json_array_foreach(v, i, e) if (rename_walk(x, v, NULL, i, e, segs, nseg, at, depth + 1, err) < 0) return -1;
	return 0;
}

static int rename_spec(void *x, char **segs, size_t nseg, bh_error *err)
{
	nr_ctx *c = x;
	return rename_walk(c, NULL, NULL, 0, (json_t *)c->referrer, segs, nseg, 0, 0, err);
}

int kz_nameref_rename(json_t *objs, bh_error *err)
{
	size_t i, j;
	json_t *o, *c;
	int any = 0;
	nr_ctx x;
	json_array_foreach(objs, j, c) any |= anno(c, PREV_NAMES) != NULL;
	if (!any)
		return 0;
	x.objs = objs;
	json_array_foreach(objs, i, o) {
		if (!json_is_object(o))
			continue;
		x.referrer = o;
		res_id(o, x.rid, sizeof x.rid);
		for (const nameref_spec *s = nameref_specs; s->path; s++) {
			int rc;
			if (!gvk_selects(s, o))
				continue;
			x.spec = s;
			if ((rc = spec_walk(s, x.rid, rename_spec, &x, err)) < 0)
				return rc;
		}
	}
	return 0;
}
