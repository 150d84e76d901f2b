"""RBAC authorization as kube-apiserver's RBAC authorizer does it, plus the
bootstrap policy (cluster-admin, admin/edit/view, discovery, basic-user)."""
from .selectors import selector_object_match

RBAC = "rbac.authorization.k8s.io"


class User:
    def __init__(self, name, groups=(), uid="", extra=None):
        self.name = name
        self.groups = list(groups)
        self.uid = uid
        self.extra = extra or {}

    def to_json(self):
        d = {"username": self.name, "groups": self.groups}
        if self.uid:
            d["uid"] = self.uid
        if self.extra:
            d["extra"] = self.extra
        return d


class Attrs:
    """Authorization attributes of one request."""

    def __init__(self, verb, group="", resource="", subresource="", namespace="", name="",
                 path="", resource_request=True):
        self.verb = verb
        self.group = group
        self.resource = resource
        self.subresource = subresource
        self.namespace = namespace
        self.name = name
        self.path = path
        self.resource_request = resource_request


def _has(lst, v):
    return "*" in lst or v in lst


def rule_allows(rule, a):
    if not _has(rule.get("verbs") or [], a.verb):
        return False
    if not a.resource_request:
        for u in rule.get("nonResourceURLs") or []:
            if u == "*" or u == a.path or (u.endswith("*") and a.path.startswith(u[:-1])):
                return True
        return False
    if rule.get("nonResourceURLs") and not rule.get("resources"):
        return False
    if not _has(rule.get("apiGroups") or [], a.group):
        return False
    combined = a.resource + ("/" + a.subresource if a.subresource else "")
    ok = False
    for r in rule.get("resources") or []:
        if r == "*" or r == combined or (a.subresource and r == "*/" + a.subresource):
            ok = True
            break
    if not ok:
        return False
    names = rule.get("resourceNames") or []
    return not names or a.name in names


def subject_matches(subj, user, binding_ns):
    kind = subj.get("kind")
    if kind == "User":
        return subj.get("name") == user.name
    if kind == "Group":
        return subj.get("name") in user.groups
    if kind == "ServiceAccount":
        ns = subj.get("namespace") or binding_ns
        return user.name == "system:serviceaccount:%s:%s" % (ns, subj.get("name"))
    return False


class Authorizer:
    def __init__(self, store):
        self.store = store
        self.cache = {}  # (user, groups, namespace) -> (RBAC objects' versions, rules)
        self.decisions = {}  # (user, groups, attributes) -> (RBAC objects' versions, allowed)

    def _cluster_role_rules(self, name, depth=0):
        cr = self.store.get(RBAC, "clusterroles", "", name)
        if cr is None:
            return []
        rules = list(cr.get("rules") or [])
        agg = cr.get("aggregationRule")
        if agg and depth < 3:
            for other in self.store.list(RBAC, "clusterroles"):
                if other is cr:
                    continue
                labels = other["metadata"].get("labels") or {}
                if any(selector_object_match(s, labels) for s in agg.get("clusterRoleSelectors") or []):
                    rules.extend(self._cluster_role_rules(other["metadata"]["name"], depth + 1))
        return rules

    def _version(self, namespace):
        """Changes whenever a Role, ClusterRole or binding that could apply in namespace does."""
        v = self.store.ns_version
        return (v(RBAC, "clusterroles", ""), v(RBAC, "clusterrolebindings", ""),
                v(RBAC, "roles", namespace), v(RBAC, "rolebindings", namespace))

    def rules_for(self, user, namespace):
        """All rules that apply to user in namespace ('' = cluster-wide only)."""
        return list(self._rules(user, namespace, self._version(namespace)))

    def _rules(self, user, namespace, version):
        """rules_for, remembered until a Role, ClusterRole or binding that could
        apply changes (the list is shared: not to be changed)."""
        key = (user.name, tuple(user.groups), namespace)
        hit = self.cache.get(key)
        if hit is not None and hit[0] == version:
            return hit[1]
        if len(self.cache) > 10000:
            self.cache.clear()
        out = self._rules_for(user, namespace)
        self.cache[key] = (version, out)
        return out

    def _rules_for(self, user, namespace):
        out = []
        for crb in self.store.list(RBAC, "clusterrolebindings"):
            if any(subject_matches(s, user, "") for s in crb.get("subjects") or []):
                out.extend(self._cluster_role_rules(crb.get("roleRef", {}).get("name", "")))
        if namespace:
            for rb in self.store.list(RBAC, "rolebindings", namespace):
                if not any(subject_matches(s, user, namespace) for s in rb.get("subjects") or []):
                    continue
                ref = rb.get("roleRef", {})
                if ref.get("kind") == "ClusterRole":
                    out.extend(self._cluster_role_rules(ref.get("name", "")))
                else:
                    role = self.store.get(RBAC, "roles", namespace, ref.get("name", ""))
                    if role:
                        out.extend(role.get("rules") or [])
        return out

    def allowed(self, user, a):
        if "system:masters" in user.groups:
            return True
        key = (user.name, tuple(user.groups), a.verb, a.group, a.resource, a.subresource, a.namespace, a.name,
               a.path, a.resource_request)
        with self.store.lock:
            # the decision is remembered as the rules are (a client repeats its requests)
            version = self._version(a.namespace)
            try:
                hit = self.decisions.get(key)
            except TypeError:  # a review's attributes that are not strings: not remembered
                return any(rule_allows(r, a) for r in self._rules(user, a.namespace, version))
            if hit is not None and hit[0] == version:
                return hit[1]
            ok = any(rule_allows(r, a) for r in self._rules(user, a.namespace, version))
            if len(self.decisions) > 20000:
                self.decisions.clear()
            self.decisions[key] = (version, ok)
            return ok


def forbidden_message(user, a):
    """The message kube-apiserver's Forbidden responses carry."""
    if not a.resource_request:
        return 'forbidden: User "%s" cannot %s path "%s"' % (user.name, a.verb, a.path)
    res = a.resource + ("/" + a.subresource if a.subresource else "")
    q = a.resource + ("." + a.group if a.group else "")
    head = '%s "%s" is forbidden' % (q, a.name) if a.name else "%s is forbidden" % q
    where = 'in the namespace "%s"' % a.namespace if a.namespace else "at the cluster scope"
    return '%s: User "%s" cannot %s resource "%s" in API group "%s" %s' % (
        head, user.name, a.verb, res, a.group, where)


def _cr(name, rules, labels=None, agg=None):
    o = {"apiVersion": RBAC + "/v1", "kind": "ClusterRole",
         "metadata": {"name": name, "labels": {"kubernetes.io/bootstrapping": "rbac-defaults"}},
         "rules": rules}
    if labels:
        o["metadata"]["labels"].update(labels)
    if agg:
        o["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": {l: "true"}} for l in agg]}
    return o


def _crb(name, role, groups=(), users=()):
    subj = [{"apiGroup": RBAC, "kind": "Group", "name": g} for g in groups]
    subj += [{"apiGroup": RBAC, "kind": "User", "name": u} for u in users]
    return {"apiVersion": RBAC + "/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": name, "labels": {"kubernetes.io/bootstrapping": "rbac-defaults"}},
            "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": role}, "subjects": subj}


RO = ["get", "list", "watch"]
RW = ["create", "delete", "deletecollection", "patch", "update"]


def bootstrap_objects():
    """(group, resource, object) for the default RBAC policy."""
    view_core = ["configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status",
                 "pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
                 "services", "services/status", "bindings", "events", "limitranges",
                 "namespaces/status", "pods/log", "pods/status", "replicationcontrollers/status",
                 "resourcequotas", "resourcequotas/status"]
    view_rules = [
        {"apiGroups": [""], "resources": view_core, "verbs": RO},
        {"apiGroups": [""], "resources": ["namespaces"], "verbs": RO},
        {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": RO},
        {"apiGroups": ["apps"], "resources": [
            "controllerrevisions", "daemonsets", "daemonsets/status", "deployments", "deployments/scale",
            "deployments/status", "replicasets", "replicasets/scale", "replicasets/status",
            "statefulsets", "statefulsets/scale", "statefulsets/status"], "verbs": RO},
        {"apiGroups": ["autoscaling"], "resources": ["horizontalpodautoscalers",
                                                     "horizontalpodautoscalers/status"], "verbs": RO},
        {"apiGroups": ["batch"], "resources": ["cronjobs", "cronjobs/status", "jobs", "jobs/status"],
         "verbs": RO},
        {"apiGroups": ["policy"], "resources": ["poddisruptionbudgets", "poddisruptionbudgets/status"],
         "verbs": RO},
        {"apiGroups": ["networking.k8s.io"], "resources": ["ingresses", "ingresses/status",
                                                           "networkpolicies"], "verbs": RO},
    ]
    edit_rules = [
        {"apiGroups": [""], "resources": ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy",
                                          "secrets", "services/proxy"], "verbs": RO},
        {"apiGroups": [""], "resources": ["serviceaccounts"], "verbs": ["impersonate"]},
        {"apiGroups": [""], "resources": ["pods", "pods/attach", "pods/exec", "pods/portforward",
                                          "pods/proxy"], "verbs": RW},
        {"apiGroups": [""], "resources": ["pods/eviction"], "verbs": ["create"]},
        {"apiGroups": [""], "resources": ["configmaps", "events", "persistentvolumeclaims",
                                          "replicationcontrollers", "replicationcontrollers/scale",
                                          "secrets", "serviceaccounts", "services", "services/proxy"],
         "verbs": RW},
        {"apiGroups": [""], "resources": ["serviceaccounts/token"], "verbs": ["create"]},
        {"apiGroups": ["apps"], "resources": ["daemonsets", "deployments", "deployments/rollback",
                                              "deployments/scale", "replicasets", "replicasets/scale",
                                              "statefulsets", "statefulsets/scale"], "verbs": RW},
        {"apiGroups": ["autoscaling"], "resources": ["horizontalpodautoscalers"], "verbs": RW},
        {"apiGroups": ["batch"], "resources": ["cronjobs", "jobs"], "verbs": RW},
        {"apiGroups": ["networking.k8s.io"], "resources": ["ingresses", "networkpolicies"], "verbs": RW},
        {"apiGroups": ["policy"], "resources": ["poddisruptionbudgets"], "verbs": RW},
        {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": RO + RW},
    ]
    admin_rules = [
        {"apiGroups": ["authorization.k8s.io"], "resources": ["localsubjectaccessreviews"],
         "verbs": ["create"]},
        {"apiGroups": [RBAC], "resources": ["rolebindings", "roles"], "verbs": RO + RW},
    ]
    agg = "rbac.authorization.k8s.io/aggregate-to-"
    objs = [
        _cr("cluster-admin", [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
                              {"nonResourceURLs": ["*"], "verbs": ["*"]}]),
        _cr("admin", [], agg=[agg + "admin"]),
        _cr("edit", [], {agg + "admin": "true"}, agg=[agg + "edit"]),
        _cr("view", [], {agg + "edit": "true"}, agg=[agg + "view"]),
        _cr("system:aggregate-to-admin", admin_rules, {agg + "admin": "true"}),
        _cr("system:aggregate-to-edit", edit_rules, {agg + "edit": "true"}),
        _cr("system:aggregate-to-view", view_rules, {agg + "view": "true"}),
        _cr("system:discovery", [{"nonResourceURLs": [
            "/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*",
            "/readyz", "/version", "/version/"], "verbs": ["get"]}]),
        _cr("system:public-info-viewer", [{"nonResourceURLs": [
            "/healthz", "/livez", "/readyz", "/version", "/version/"], "verbs": ["get"]}]),
        _cr("system:basic-user", [
            {"apiGroups": ["authorization.k8s.io"], "resources": ["selfsubjectaccessreviews",
                                                                  "selfsubjectrulesreviews"],
             "verbs": ["create"]},
            {"apiGroups": ["authentication.k8s.io"], "resources": ["selfsubjectreviews"],
             "verbs": ["create"]}]),
        _crb("cluster-admin", "cluster-admin", groups=["system:masters"]),
        _crb("system:discovery", "system:discovery", groups=["system:authenticated"]),
        _crb("system:basic-user", "system:basic-user", groups=["system:authenticated"]),
        _crb("system:public-info-viewer", "system:public-info-viewer",
             groups=["system:authenticated", "system:unauthenticated"]),
    ]
    out = []
    for o in objs:
        out.append((RBAC, "clusterroles" if o["kind"] == "ClusterRole" else "clusterrolebindings", o))
    return out


def rules_review(authz, user, namespace):
    """SelfSubjectRulesReview status."""
    if "system:masters" in user.groups:
        rules = [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
                 {"nonResourceURLs": ["*"], "verbs": ["*"]}]
    else:
        with authz.store.lock:
            rules = authz.rules_for(user, namespace)
    res, nonres = [], []
    for r in rules:
        if r.get("nonResourceURLs"):
            nonres.append({"verbs": r.get("verbs", []), "nonResourceURLs": r["nonResourceURLs"]})
        else:
            e = {"verbs": r.get("verbs", []), "apiGroups": r.get("apiGroups", []),
                 "resources": r.get("resources", [])}
            if r.get("resourceNames"):
                e["resourceNames"] = r["resourceNames"]
            res.append(e)
    return {"resourceRules": res, "nonResourceRules": nonres, "incomplete": False}
