"""Resource registry: built-in kinds and CRD-served kinds, and the discovery
documents (legacy /api, /apis, per group-version lists, aggregated discovery v2)."""
import threading

VERBS_ALL = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
VERBS_CREATE = ["create"]


class Res:
    """One served resource (one group/version/resource)."""

    def __init__(self, group, version, resource, kind, namespaced=True, short=(), subres=(),
                 verbs=None, singular=None, categories=(), crd=None, storage_version=None):
        self.group = group
        self.version = version
        self.resource = resource
        self.kind = kind
        self.namespaced = namespaced
        self.short = list(short)
        self.subres = list(subres)
        self.verbs = list(verbs if verbs is not None else VERBS_ALL)
        self.singular = singular or kind.lower()
        self.categories = list(categories)
        self.crd = crd  # the CRD object for custom resources
        self.version_schema = None

    @property
    def api_version(self):
        return self.group + "/" + self.version if self.group else self.version

    @property
    def gr(self):
        return (self.group, self.resource)

    @property
    def virtual(self):
        """Create-only review resources, never stored."""
        return self.verbs == VERBS_CREATE


def _b(group, version, resource, kind, ns=True, short=(), sub=(), verbs=None, cat=()):
    return Res(group, version, resource, kind, ns, short, sub, verbs, categories=cat)


BUILTIN = [
    _b("", "v1", "namespaces", "Namespace", False, ["ns"], ["status", "finalize"]),
    _b("", "v1", "configmaps", "ConfigMap", True, ["cm"]),
    _b("", "v1", "secrets", "Secret"),
    _b("", "v1", "serviceaccounts", "ServiceAccount", True, ["sa"], ["token"]),
    _b("", "v1", "services", "Service", True, ["svc"], ["status"], cat=["all"]),
    _b("", "v1", "pods", "Pod", True, ["po"], ["status", "log", "eviction"], cat=["all"]),
    _b("", "v1", "events", "Event", True, ["ev"]),
    _b("", "v1", "endpoints", "Endpoints", True, ["ep"]),
    _b("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", True, ["pvc"], ["status"]),
    _b("", "v1", "persistentvolumes", "PersistentVolume", False, ["pv"], ["status"]),
    _b("", "v1", "nodes", "Node", False, ["no"], ["status"]),
    _b("", "v1", "limitranges", "LimitRange", True, ["limits"]),
    _b("", "v1", "resourcequotas", "ResourceQuota", True, ["quota"], ["status"]),
    _b("", "v1", "replicationcontrollers", "ReplicationController", True, ["rc"], ["status", "scale"], cat=["all"]),
    _b("", "v1", "podtemplates", "PodTemplate"),
    _b("apps", "v1", "deployments", "Deployment", True, ["deploy"], ["status", "scale"], cat=["all"]),
    _b("apps", "v1", "replicasets", "ReplicaSet", True, ["rs"], ["status", "scale"], cat=["all"]),
    _b("apps", "v1", "statefulsets", "StatefulSet", True, ["sts"], ["status", "scale"], cat=["all"]),
    _b("apps", "v1", "daemonsets", "DaemonSet", True, ["ds"], ["status"], cat=["all"]),
    _b("apps", "v1", "controllerrevisions", "ControllerRevision"),
    _b("batch", "v1", "jobs", "Job", True, [], ["status"], cat=["all"]),
    _b("batch", "v1", "cronjobs", "CronJob", True, ["cj"], ["status"], cat=["all"]),
    _b("networking.k8s.io", "v1", "ingresses", "Ingress", True, ["ing"], ["status"]),
    _b("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", True, ["netpol"]),
    _b("networking.k8s.io", "v1", "ingressclasses", "IngressClass", False),
    _b("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", True, ["pdb"], ["status"]),
    _b("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", True, ["hpa"], ["status"], cat=["all"]),
    _b("autoscaling", "v1", "horizontalpodautoscalers", "HorizontalPodAutoscaler", True, ["hpa"], ["status"], cat=["all"]),
    _b("rbac.authorization.k8s.io", "v1", "roles", "Role"),
    _b("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding"),
    _b("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", False),
    _b("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", False),
    _b("coordination.k8s.io", "v1", "leases", "Lease"),
    _b("storage.k8s.io", "v1", "storageclasses", "StorageClass", False, ["sc"]),
    _b("storage.k8s.io", "v1", "csidrivers", "CSIDriver", False),
    _b("storage.k8s.io", "v1", "volumeattachments", "VolumeAttachment", False, [], ["status"]),
    _b("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations",
       "ValidatingWebhookConfiguration", False),
    _b("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations",
       "MutatingWebhookConfiguration", False),
    _b("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies",
       "ValidatingAdmissionPolicy", False, [], ["status"]),
    _b("admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings",
       "ValidatingAdmissionPolicyBinding", False),
    _b("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", False,
       ["crd", "crds"], ["status"]),
    _b("apiregistration.k8s.io", "v1", "apiservices", "APIService", False, [], ["status"]),
    _b("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", False, ["pc"]),
    _b("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice"),
    _b("certificates.k8s.io", "v1", "certificatesigningrequests", "CertificateSigningRequest", False,
       ["csr"], ["status", "approval"]),
    _b("node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", False),
    _b("events.k8s.io", "v1", "events", "Event", True, ["ev"]),
    _b("flowcontrol.apiserver.k8s.io", "v1", "flowschemas", "FlowSchema", False, [], ["status"]),
    _b("flowcontrol.apiserver.k8s.io", "v1", "prioritylevelconfigurations",
       "PriorityLevelConfiguration", False, [], ["status"]),
    _b("authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", False,
       verbs=VERBS_CREATE),
    _b("authorization.k8s.io", "v1", "selfsubjectrulesreviews", "SelfSubjectRulesReview", False,
       verbs=VERBS_CREATE),
    _b("authorization.k8s.io", "v1", "subjectaccessreviews", "SubjectAccessReview", False,
       verbs=VERBS_CREATE),
    _b("authorization.k8s.io", "v1", "localsubjectaccessreviews", "LocalSubjectAccessReview", True,
       verbs=VERBS_CREATE),
    _b("authentication.k8s.io", "v1", "tokenreviews", "TokenReview", False, verbs=VERBS_CREATE),
    _b("authentication.k8s.io", "v1", "selfsubjectreviews", "SelfSubjectReview", False,
       verbs=VERBS_CREATE),
]

SUBRES_KIND = {"status": None, "scale": ("autoscaling", "v1", "Scale"),
               "token": ("authentication.k8s.io", "v1", "TokenRequest"),
               "eviction": ("policy", "v1", "Eviction"), "log": None, "finalize": None,
               "approval": None}
SUBRES_VERBS = {"status": ["get", "patch", "update"], "scale": ["get", "patch", "update"],
                "token": ["create"], "eviction": ["create"], "log": ["get"], "finalize": ["update"],
                "approval": ["get", "patch", "update"]}

# Group preference order as kube-apiserver serves it.
GROUP_ORDER = ["", "apiregistration.k8s.io", "apps", "events.k8s.io", "authentication.k8s.io",
               "authorization.k8s.io", "autoscaling", "batch", "certificates.k8s.io",
               "networking.k8s.io", "policy", "rbac.authorization.k8s.io", "storage.k8s.io",
               "admissionregistration.k8s.io", "apiextensions.k8s.io", "scheduling.k8s.io",
               "coordination.k8s.io", "node.k8s.io", "discovery.k8s.io",
               "flowcontrol.apiserver.k8s.io"]
PREFERRED = {"autoscaling": "v2"}


class Registry:
    """All served resources; CRDs add and remove entries at run time."""

    def __init__(self):
        self.lock = threading.RLock()
        self.builtin = list(BUILTIN)
        self.custom = {}  # crd name -> [Res]
        self.generation = 0  # bumped whenever the set of served resources changes

    def all(self):
        with self.lock:
            out = list(self.builtin)
            for lst in self.custom.values():
                out.extend(lst)
            return out

    def lookup(self, group, version, resource):
        for r in self.all():
            if r.group == group and r.version == version and r.resource == resource:
                return r
        return None

    def by_gr(self, group, resource):
        """Any served version of group/resource (preferred first)."""
        cands = [r for r in self.all() if r.group == group and r.resource == resource]
        if not cands:
            return None
        pref = self.preferred_version(group)
        for r in cands:
            if r.version == pref:
                return r
        return cands[0]

    def by_kind(self, api_version, kind):
        group, _, version = api_version.rpartition("/")
        for r in self.all():
            if r.group == group and r.version == version and r.kind == kind:
                return r
        return None

    def groups(self):
        """[(group, [versions...])] in preference order."""
        seen = {}
        for r in self.all():
            vs = seen.setdefault(r.group, [])
            if r.version not in vs:
                vs.append(r.version)
        order = [g for g in GROUP_ORDER if g in seen] + sorted(g for g in seen if g not in GROUP_ORDER)
        out = []
        for g in order:
            vs = seen[g]
            pref = self.preferred_version(g)
            vs = sorted(vs, key=lambda v: (v != pref, _version_key(v)))
            out.append((g, vs))
        return out

    def preferred_version(self, group):
        if group in PREFERRED:
            return PREFERRED[group]
        with self.lock:
            for lst in self.custom.values():
                for r in lst:
                    if r.group == group and r.crd is not None:
                        st = _crd_storage_version(r.crd)
                        if st:
                            return st
        vs = [r.version for r in self.all() if r.group == group]
        vs.sort(key=_version_key)
        return vs[0] if vs else None

    def set_crd(self, crd):
        """Register (or refresh) the resources served by a CRD object."""
        spec = crd.get("spec", {})
        names = spec.get("names", {})
        group = spec.get("group", "")
        lst = []
        for v in spec.get("versions", []):
            if not v.get("served", True):
                continue
            sub = []
            subres = v.get("subresources") or {}
            if "status" in subres:
                sub.append("status")
            if "scale" in subres:
                sub.append("scale")
            r = Res(group, v["name"], names.get("plural", ""), names.get("kind", ""),
                    spec.get("scope", "Namespaced") == "Namespaced", names.get("shortNames", []),
                    sub, singular=names.get("singular") or names.get("kind", "").lower(),
                    categories=names.get("categories", []), crd=crd)
            r.version_schema = (v.get("schema") or {}).get("openAPIV3Schema")
            r.printer_columns = v.get("additionalPrinterColumns")
            lst.append(r)
        with self.lock:
            self.custom[crd["metadata"]["name"]] = lst
            self.generation += 1

    def remove_crd(self, name):
        with self.lock:
            self.custom.pop(name, None)
            self.generation += 1

    # ---- discovery documents -------------------------------------------------

    def _resource_list_entry(self, r):
        e = {"name": r.resource, "singularName": r.singular, "namespaced": r.namespaced,
             "kind": r.kind, "verbs": r.verbs}
        if r.short:
            e["shortNames"] = r.short
        if r.categories:
            e["categories"] = r.categories
        if r.crd is None and not r.virtual:
            e["storageVersionHash"] = "kubesim="
        return e

    def resource_list(self, group, version):
        rs = [r for r in self.all() if r.group == group and r.version == version]
        if not rs:
            return None
        res = []
        for r in rs:
            res.append(self._resource_list_entry(r))
            for s in r.subres:
                k = SUBRES_KIND.get(s)
                e = {"name": r.resource + "/" + s, "singularName": "", "namespaced": r.namespaced,
                     "kind": k[2] if k else r.kind, "verbs": SUBRES_VERBS.get(s, ["get"])}
                if k:
                    e["group"], e["version"] = k[0], k[1]
                res.append(e)
        gv = group + "/" + version if group else version
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": res}

    def api_group_list(self):
        groups = []
        for g, vs in self.groups():
            if g == "":
                continue
            gvs = [{"groupVersion": g + "/" + v, "version": v} for v in vs]
            groups.append({"name": g, "versions": gvs, "preferredVersion": gvs[0]})
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}

    def api_group(self, group):
        for g, vs in self.groups():
            if g == group and g != "":
                gvs = [{"groupVersion": g + "/" + v, "version": v} for v in vs]
                return {"kind": "APIGroup", "apiVersion": "v1", "name": g, "versions": gvs,
                        "preferredVersion": gvs[0]}
        return None

    def aggregated(self, core):
        """apidiscovery.k8s.io/v2 APIGroupDiscoveryList for /api (core) or /apis."""
        items = []
        for g, vs in self.groups():
            if (g == "") != core:
                continue
            versions = []
            for v in vs:
                rs = []
                for r in self.all():
                    if r.group != g or r.version != v:
                        continue
                    e = {"resource": r.resource,
                         "responseKind": {"group": g, "version": v, "kind": r.kind},
                         "scope": "Namespaced" if r.namespaced else "Cluster",
                         "singularResource": r.singular, "verbs": r.verbs}
                    if r.short:
                        e["shortNames"] = r.short
                    if r.categories:
                        e["categories"] = r.categories
                    subs = []
                    for s in r.subres:
                        k = SUBRES_KIND.get(s)
                        se = {"subresource": s, "verbs": SUBRES_VERBS.get(s, ["get"])}
                        if k:
                            se["responseKind"] = {"group": k[0], "version": k[1], "kind": k[2]}
                        else:
                            se["responseKind"] = {"group": g, "version": v, "kind": r.kind}
                        subs.append(se)
                    if subs:
                        e["subresources"] = subs
                    rs.append(e)
                versions.append({"version": v, "resources": rs, "freshness": "Current"})
            items.append({"metadata": {"name": g, "creationTimestamp": None}, "versions": versions})
        return {"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2",
                "metadata": {}, "items": items}


def _version_key(v):
    """Kubernetes version priority: GA > beta > alpha, higher numbers first."""
    import re
    m = re.match(r"^v(\d+)(?:(alpha|beta)(\d+))?$", v)
    if not m:
        return (3, 0, 0, v)
    major = int(m.group(1))
    stage = {None: 0, "beta": 1, "alpha": 2}[m.group(2)]
    minor = int(m.group(3) or 0)
    return (stage, -major, -minor, v)


def _crd_storage_version(crd):
    vs = [v for v in crd.get("spec", {}).get("versions", []) if v.get("served", True)]
    vs.sort(key=lambda v: _version_key(v["name"]))
    return vs[0]["name"] if vs else None
