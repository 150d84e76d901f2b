"""Simulated controllers (kube-controller-manager, kubelet, scheduler,
apiextensions): Deployments/ReplicaSets/StatefulSets/DaemonSets roll out,
Jobs complete or fail, Pods run, PVCs bind, Services get IPs, Namespaces
terminate, ownerReference garbage collection, CRD registration, SA tokens."""
import base64
import hashlib
import json
import re
import threading
import time

from . import apply as ssa
from .defaults import random_suffix
from .rbac import bootstrap_objects
from .selectors import selector_object_match
from .util import ApiError, dcopy, get_path, now_rfc3339, semantic

NODE = "kubesim-node"
KCM = "kube-controller-manager"
KUBELET = "kubelet"


def _owned_by(obj, uid):
    return any(r.get("uid") == uid for r in obj["metadata"].get("ownerReferences") or [])


def _controller_ref(owner, api_version, kind):
    md = owner["metadata"]
    return {"apiVersion": api_version, "kind": kind, "name": md["name"], "uid": md["uid"],
            "controller": True, "blockOwnerDeletion": True}


def _cond(conds, typ, status, reason, message, now):
    for c in conds:
        if c.get("type") == typ:
            if c.get("status") != status:
                c["lastTransitionTime"] = now
            if c.get("status") != status or c.get("reason") != reason:
                c["lastUpdateTime"] = now
            c.update({"status": status, "reason": reason, "message": message})
            return conds
    conds.append({"type": typ, "status": status, "lastUpdateTime": now, "lastTransitionTime": now,
                  "reason": reason, "message": message})
    return conds


def _pod_ready(p):
    return get_path(p, "status", "phase") == "Running" and any(
        c.get("type") == "Ready" and c.get("status") == "True" for c in get_path(p, "status", "conditions") or [])


def _same_template(rs, tmpl):
    """kube's EqualIgnoreHash: the ReplicaSet's template equals the Deployment's,
    ignoring the pod-template-hash label, with nil == empty."""
    t = dcopy(get_path(rs, "spec", "template") or {})
    (t.get("metadata") or {}).get("labels", {}).pop("pod-template-hash", None)
    return semantic(t) == semantic(tmpl)


def _hash(obj):
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:10]


class Controllers:
    def __init__(self, store, registry, api, tokens, certs_ca, opts):
        self.store = store
        self.registry = registry
        self.api = api
        self.tokens = tokens
        self.ca_pem = certs_ca
        self.opts = opts
        self.wake = threading.Event()
        self.seen = {}  # uid -> monotonic time of last state change
        self.pod_override = {}  # (ns, name) -> (phase, exitCode)
        self.job_outcome = {}  # (ns, name) -> "Succeeded" | "Failed"
        self.pod_ip = 10
        api.hooks = self
        self.thread = None

    def r(self, group, resource):
        return self.registry.by_gr(group, resource)

    # ---- bootstrap ---------------------------------------------------------------------------------
    def bootstrap(self):
        with self.store.lock:
            for ns in ("default", "kube-system", "kube-public", "kube-node-lease"):
                self.api.create(self.r("", "namespaces"), "", {"metadata": {"name": ns}}, "kube-apiserver")
            for g, res, o in bootstrap_objects():
                self.api.create(self.r(g, res), "", dcopy(o), "kube-apiserver")
            self.api.create(self.r("", "nodes"), "", {"metadata": {"name": NODE, "labels": {
                "kubernetes.io/hostname": NODE, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}},
                "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
                           "addresses": [{"type": "InternalIP", "address": "172.18.0.2"}]}}, "kubelet")
            self.api.create(self.r("storage.k8s.io", "storageclasses"), "", {
                "metadata": {"name": "standard", "annotations": {
                    "storageclass.kubernetes.io/is-default-class": "true"}},
                "provisioner": "kubesim.io/hostpath", "reclaimPolicy": "Delete",
                "volumeBindingMode": "Immediate"}, "kube-apiserver")
            svc = self.r("", "services")
            self.api.create(svc, "default", {"metadata": {"name": "kubernetes", "labels": {
                "component": "apiserver", "provider": "kubernetes"}},
                "spec": {"clusterIP": "10.96.0.1", "ports": [
                    {"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}]}}, "kube-apiserver")

    def reset(self):
        with self.store.lock:
            self.store.wipe()
            for name in list(self.registry.custom):
                self.registry.remove_crd(name)
            self.seen.clear()
            self.pod_override.clear()
            self.job_outcome.clear()
            self.api.alloc.__init__()
            self.bootstrap()

    # ---- hooks called by Api under the store lock --------------------------------------------------------
    def _mirror_event(self, ev):
        """events.k8s.io/v1 and core/v1 Events share storage in kube-apiserver; kubesim
        keeps a core/v1 copy of each events.k8s.io Event (what kubectl describe reads)."""
        md = ev["metadata"]
        series = ev.get("series") or {}
        core = {"metadata": {k: dcopy(v) for k, v in md.items() if k in ("name", "namespace", "labels",
                                                                         "annotations", "uid", "creationTimestamp")},
                "involvedObject": dcopy(ev.get("regarding") or {}), "reason": ev.get("reason", ""),
                "message": ev.get("note", ""), "type": ev.get("type", ""),
                "count": ev.get("deprecatedCount") or series.get("count") or 1,
                "firstTimestamp": ev.get("deprecatedFirstTimestamp"),
                "lastTimestamp": ev.get("deprecatedLastTimestamp") or series.get("lastObservedTime"),
                "eventTime": ev.get("eventTime"), "source": dcopy(ev.get("deprecatedSource") or {}),
                "reportingComponent": ev.get("reportingController", ""),
                "reportingInstance": ev.get("reportingInstance", ""), "action": ev.get("action", "")}
        if ev.get("related"):
            core["related"] = dcopy(ev["related"])
        if series:
            core["series"] = dcopy(series)
        core = {k: v for k, v in core.items() if v not in (None, "")}
        old = self.store.get("", "events", md.get("namespace", ""), md["name"])
        if old is not None:
            core["metadata"] = dcopy(old["metadata"])
        self.store.put("", "events", core, "MODIFIED" if old else "ADDED")

    def after_write(self, res, old, new):
        g, r = res.group, res.resource
        if g == "events.k8s.io" and r == "events":
            self._mirror_event(new)
        if g == "apiextensions.k8s.io" and r == "customresourcedefinitions":
            if not new["metadata"].get("deletionTimestamp"):
                self.registry.set_crd(new)
        elif g == "" and r == "namespaces" and old is None:
            ns = new["metadata"]["name"]
            self.api.create(self.r("", "serviceaccounts"), ns, {"metadata": {"name": "default"}}, KCM)
            self.api.create(self.r("", "configmaps"), ns, {"metadata": {"name": "kube-root-ca.crt", "annotations": {
                "kubernetes.io/description": "Contains a CA bundle that can be used to verify the "
                "kube-apiserver when using internal endpoints such as the internal service IP or "
                "kubernetes.default.svc. No other usage is guaranteed across distributions of "
                "Kubernetes clusters."}}, "data": {"ca.crt": self.ca_pem}}, "kube-root-ca-cert-publisher")
        self.wake.set()

    def after_delete(self, res, obj):
        g, r = res.group, res.resource
        if g == "apiextensions.k8s.io" and r == "customresourcedefinitions":
            spec = obj.get("spec") or {}
            grp, plural = spec.get("group", ""), (spec.get("names") or {}).get("plural", "")
            for o in list(self.store.list(grp, plural)):
                md = o["metadata"]
                self.store.remove(grp, plural, md.get("namespace", ""), md["name"])
            self.store.drop_resource(grp, plural)
            self.registry.remove_crd(obj["metadata"]["name"])
        elif g == "" and r == "services":
            self.api.alloc.release(obj)
        elif g == "events.k8s.io" and r == "events":
            md = obj["metadata"]
            self.store.remove("", "events", md.get("namespace", ""), md["name"])
        self.seen.pop(obj["metadata"].get("uid"), None)
        self.wake.set()

    # ---- admin ----------------------------------------------------------------------------------------
    def set_pod_phase(self, ns, name, phase, exit_code=None):
        if phase not in ("Pending", "Running", "Succeeded", "Failed"):
            raise ApiError(400, "BadRequest", "phase must be Pending, Running, Succeeded or Failed")
        with self.store.lock:
            if self.store.get("", "pods", ns, name) is None:
                raise ApiError(404, "NotFound", 'pods "%s" not found' % name)
            self.pod_override[(ns, name)] = (phase, exit_code)
            self.tick()

    def set_job_outcome(self, ns, name, outcome):
        if outcome not in ("Succeeded", "Failed"):
            raise ApiError(400, "BadRequest", "outcome must be Succeeded or Failed")
        with self.store.lock:
            if self.store.get("batch", "jobs", ns, name) is None:
                raise ApiError(404, "NotFound", 'jobs.batch "%s" not found' % name)
            self.job_outcome[(ns, name)] = outcome
            self.tick()

    # ---- loop -------------------------------------------------------------------------------------------
    def start(self):
        self.thread = threading.Thread(target=self._loop, name="controllers", daemon=True)
        self.thread.start()

    def _loop(self):
        while not self.opts.stopping:
            self.wake.wait(self.opts.controller_interval)
            self.wake.clear()
            try:
                with self.store.lock:
                    self.tick()
            except Exception:  # keep the simulated cluster running; report the bug
                import traceback
                traceback.print_exc()
                time.sleep(0.5)

    def _age(self, obj, key=""):
        """Seconds since this object (or this object's `key` state) was first seen."""
        k = obj["metadata"].get("uid", "") + key
        now = time.monotonic()
        if k not in self.seen:
            self.seen[k] = now
        return now - self.seen[k]

    def _put(self, res, old, new, manager=KCM, sub="status"):
        if new == old:
            return old
        ssa.track_update(old, new, manager, res.api_version, sub, res.version_schema, "status" in res.subres)
        self.store.put(res.group, res.resource, new, "MODIFIED")
        self.after_write(res, old, new)
        return new

    def _event(self, obj, kind, reason, message, typ="Normal", source=KCM):
        md = obj["metadata"]
        ns = md.get("namespace") or "default"
        ev = {"metadata": {"name": "%s.%x" % (md["name"], int(time.time() * 1e9))},
              "involvedObject": {"kind": kind, "namespace": md.get("namespace", ""), "name": md["name"],
                                 "uid": md.get("uid"), "apiVersion": obj.get("apiVersion", ""),
                                 "resourceVersion": md.get("resourceVersion")},
              "reason": reason, "message": message, "source": {"component": source},
              "firstTimestamp": now_rfc3339(), "lastTimestamp": now_rfc3339(), "count": 1, "type": typ,
              "reportingComponent": source, "reportingInstance": ""}
        try:
            self.api.create(self.r("", "events"), ns, ev, source)
        except ApiError:
            pass

    def tick(self):
        for fn in (self._namespaces, self._gc, self._crd_finalize, self._deployments, self._replicasets,
                   self._statefulsets, self._daemonsets, self._jobs, self._pods, self._services, self._pvcs,
                   self._sa_secrets):
            fn()

    # ---- namespaces & GC -----------------------------------------------------------------------------
    def _namespaces(self):
        nsr = self.r("", "namespaces")
        for ns in list(self.store.list("", "namespaces")):
            if not ns["metadata"].get("deletionTimestamp"):
                continue
            name = ns["metadata"]["name"]
            left = 0
            for g, r, ons, oname, obj in list(self.store.all_items()):
                if ons != name or r == "events":
                    continue
                left += 1
                if not obj["metadata"].get("deletionTimestamp"):
                    res = self.r(g, r)
                    if res is not None:
                        try:
                            self.api.delete(res, ons, oname, {"propagationPolicy": "Background"})
                        except ApiError:
                            pass
            if left:
                continue
            for g, r, ons, oname, obj in list(self.store.all_items()):
                if ons == name:
                    self.store.remove(g, r, ons, oname)
            new = dcopy(ns)
            if "kubernetes" in (new.get("spec") or {}).get("finalizers", []):
                new["spec"]["finalizers"] = [f for f in new["spec"]["finalizers"] if f != "kubernetes"]
                if not new["metadata"].get("finalizers"):
                    final = self.store.remove("", "namespaces", "", name)
                    self.after_delete(nsr, final)
                else:
                    self._put(nsr, ns, new, KCM, "finalize")

    def _gc(self):
        by_uid = {}
        items = list(self.store.all_items())
        for g, r, ns, name, obj in items:
            by_uid[obj["metadata"].get("uid")] = (g, r, obj)
        deps = {}
        for g, r, ns, name, obj in items:
            for ref in obj["metadata"].get("ownerReferences") or []:
                deps.setdefault(ref.get("uid"), []).append((g, r, obj))
        for g, r, ns, name, obj in items:
            md = obj["metadata"]
            refs = md.get("ownerReferences") or []
            if refs:
                alive = [x for x in refs if x.get("uid") in by_uid]
                if not alive and not md.get("deletionTimestamp"):
                    res = self.r(g, r)
                    if res:
                        try:
                            self.api.delete(res, ns, name, {"propagationPolicy": "Background"})
                        except ApiError:
                            pass
                    continue
            if not md.get("deletionTimestamp"):
                continue
            fins = md.get("finalizers") or []
            uid = md.get("uid")
            res = self.r(g, r)
            if res is None:
                continue
            if "foregroundDeletion" in fins:
                mine = [d for d in deps.get(uid, []) if self.store.get(d[0], d[1], d[2]["metadata"].get(
                    "namespace", ""), d[2]["metadata"]["name"]) is d[2]]
                for dg, dr, dobj in mine:
                    if not dobj["metadata"].get("deletionTimestamp"):
                        dres = self.r(dg, dr)
                        if dres:
                            try:
                                self.api.delete(dres, dobj["metadata"].get("namespace", ""),
                                                dobj["metadata"]["name"], {"propagationPolicy": "Foreground"})
                            except ApiError:
                                pass
                if not mine:
                    self._drop_finalizer(res, obj, "foregroundDeletion")
            elif "orphan" in fins:
                for dg, dr, dobj in deps.get(uid, []):
                    cur = self.store.get(dg, dr, dobj["metadata"].get("namespace", ""), dobj["metadata"]["name"])
                    if cur is None:
                        continue
                    new = dcopy(cur)
                    new["metadata"]["ownerReferences"] = [x for x in cur["metadata"].get("ownerReferences", [])
                                                          if x.get("uid") != uid]
                    if not new["metadata"]["ownerReferences"]:
                        del new["metadata"]["ownerReferences"]
                    self._put(self.r(dg, dr), cur, new, "garbage-collector", None)
                self._drop_finalizer(res, obj, "orphan")

    def _drop_finalizer(self, res, obj, fin):
        new = dcopy(obj)
        new["metadata"]["finalizers"] = [f for f in obj["metadata"].get("finalizers", []) if f != fin]
        if not new["metadata"]["finalizers"]:
            del new["metadata"]["finalizers"]
        try:
            self.api.update(res, obj["metadata"].get("namespace", ""), obj["metadata"]["name"], new,
                            "garbage-collector")
        except ApiError:
            pass

    def _crd_finalize(self):
        pass

    # ---- workloads -------------------------------------------------------------------------------------
    def _pods_of(self, owner, ns):
        uid = owner["metadata"]["uid"]
        return [p for p in self.store.list("", "pods", ns) if _owned_by(p, uid)]

    def _new_pod(self, owner, api_version, kind, name, extra_labels=None, annotations=None):
        tmpl = dcopy(get_path(owner, "spec", "template") or {})
        md = tmpl.get("metadata") or {}
        labels = dict(md.get("labels") or {})
        labels.update(extra_labels or {})
        ann = dict(md.get("annotations") or {})
        ann.update(annotations or {})
        pod = {"metadata": {"name": name, "labels": labels,
                            "ownerReferences": [_controller_ref(owner, api_version, kind)]},
               "spec": tmpl.get("spec") or {"containers": []}}
        if ann:
            pod["metadata"]["annotations"] = ann
        try:
            p = self.api.create(self.r("", "pods"), owner["metadata"]["namespace"], pod, KCM)
            self._event(owner, kind, "SuccessfulCreate", "Created pod: %s" % p["metadata"]["name"])
            return p
        except ApiError:
            return None

    def _set_status(self, res, obj, status):
        new = dcopy(obj)
        new["status"] = status
        return self._put(res, obj, new)

    def _deployments(self):
        dres, rsres = self.r("apps", "deployments"), self.r("apps", "replicasets")
        for d in list(self.store.list("apps", "deployments")):
            md = d["metadata"]
            if md.get("deletionTimestamp"):
                continue
            ns = md["namespace"]
            spec = d.get("spec") or {}
            want = spec.get("replicas", 1)
            tmpl = spec.get("template") or {}
            h = _hash(tmpl)
            owned = [rs for rs in self.store.list("apps", "replicasets", ns) if _owned_by(rs, md["uid"])]
            cur = next((rs for rs in owned if _same_template(rs, tmpl)), None)
            revs = [int((rs["metadata"].get("annotations") or {}).get("deployment.kubernetes.io/revision", "0"))
                    for rs in owned]
            if spec.get("paused"):
                continue
            if cur is None:
                rev = str(max(revs + [0]) + 1)
                t = dcopy(tmpl)
                t.setdefault("metadata", {}).setdefault("labels", {})["pod-template-hash"] = h
                sel = dcopy(spec.get("selector") or {})
                sel.setdefault("matchLabels", {})["pod-template-hash"] = h
                rs = {"metadata": {"name": "%s-%s" % (md["name"], h), "labels": dict(t["metadata"]["labels"]),
                                   "annotations": {"deployment.kubernetes.io/desired-replicas": str(want),
                                                   "deployment.kubernetes.io/max-replicas": str(want + 1),
                                                   "deployment.kubernetes.io/revision": rev},
                                   "ownerReferences": [_controller_ref(d, "apps/v1", "Deployment")]},
                      "spec": {"replicas": want, "selector": sel, "template": t,
                               "minReadySeconds": spec.get("minReadySeconds", 0)}}
                try:
                    cur = self.api.create(rsres, ns, rs, KCM)
                    cur = self.store.get("apps", "replicasets", ns, cur["metadata"]["name"])
                    self._event(d, "Deployment", "ScalingReplicaSet",
                                "Scaled up replica set %s from 0 to %d" % (cur["metadata"]["name"], want))
                except ApiError:
                    continue
            else:
                rev = (cur["metadata"].get("annotations") or {}).get("deployment.kubernetes.io/revision", "1")
                if get_path(cur, "spec", "replicas") != want:
                    new = dcopy(cur)
                    new["spec"]["replicas"] = want
                    new["metadata"].setdefault("annotations", {})["deployment.kubernetes.io/desired-replicas"] = \
                        str(want)
                    cur = self._put(rsres, cur, new, KCM, None)
            if (md.get("annotations") or {}).get("deployment.kubernetes.io/revision") != rev:
                new = dcopy(d)
                new["metadata"].setdefault("annotations", {})["deployment.kubernetes.io/revision"] = rev
                d = self._put(dres, d, new, KCM, None)
            new_ready = (get_path(cur, "status", "availableReplicas") or 0) >= want
            for rs in owned:
                if rs is cur or rs["metadata"]["uid"] == cur["metadata"]["uid"]:
                    continue
                if get_path(rs, "spec", "replicas") and new_ready:
                    new = dcopy(rs)
                    new["spec"]["replicas"] = 0
                    self._put(rsres, rs, new, KCM, None)
                    self._event(d, "Deployment", "ScalingReplicaSet", "Scaled down replica set %s from %d to 0"
                                % (rs["metadata"]["name"], get_path(rs, "spec", "replicas")))
            owned = [rs for rs in self.store.list("apps", "replicasets", ns) if _owned_by(rs, md["uid"])]
            total = sum(get_path(rs, "status", "replicas") or 0 for rs in owned)
            ready = sum(get_path(rs, "status", "readyReplicas") or 0 for rs in owned)
            avail = sum(get_path(rs, "status", "availableReplicas") or 0 for rs in owned)
            updated = get_path(cur, "status", "replicas") or 0
            now = now_rfc3339()
            st = dcopy(d.get("status") or {})
            conds = dcopy(st.get("conditions") or [])
            mu = get_path(spec, "strategy", "rollingUpdate", "maxUnavailable", default=0)
            if isinstance(mu, str) and mu.endswith("%"):
                mu = int(want * int(mu[:-1]) / 100)
            if get_path(spec, "strategy", "type") == "Recreate":
                mu = 0
            if avail >= want - int(mu or 0):
                _cond(conds, "Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.",
                      now)
            else:
                _cond(conds, "Available", "False", "MinimumReplicasUnavailable",
                      "Deployment does not have minimum availability.", now)
            rsname = cur["metadata"]["name"]
            if updated == want and avail >= want and total == want and \
                    (get_path(cur, "status", "availableReplicas") or 0) >= want:
                _cond(conds, "Progressing", "True", "NewReplicaSetAvailable",
                      'ReplicaSet "%s" has successfully progressed.' % rsname, now)
                self.seen.pop(md["uid"] + "/progress/" + rsname, None)
            elif self._age(d, "/progress/" + rsname) > spec.get("progressDeadlineSeconds", 600):
                _cond(conds, "Progressing", "False", "ProgressDeadlineExceeded",
                      'ReplicaSet "%s" has timed out progressing.' % rsname, now)
            else:
                _cond(conds, "Progressing", "True", "ReplicaSetUpdated", 'ReplicaSet "%s" is progressing.' % rsname,
                      now)
            conds.sort(key=lambda c: {"Available": 0, "Progressing": 1}.get(c["type"], 2))
            st2 = {"observedGeneration": md.get("generation", 1), "replicas": total, "updatedReplicas": updated,
                   "readyReplicas": ready, "availableReplicas": avail, "conditions": conds}
            if total - avail > 0:
                st2["unavailableReplicas"] = total - avail
            for k in ("readyReplicas", "availableReplicas", "replicas", "updatedReplicas"):
                if not st2[k]:
                    del st2[k]
            if st2 != st:
                self._set_status(dres, d, st2)

    def _replicasets(self):
        rsres = self.r("apps", "replicasets")
        for rs in list(self.store.list("apps", "replicasets")):
            md = rs["metadata"]
            if md.get("deletionTimestamp"):
                continue
            ns = md["namespace"]
            want = get_path(rs, "spec", "replicas", default=1)
            pods = [p for p in self._pods_of(rs, ns) if not p["metadata"].get("deletionTimestamp")]
            while len(pods) < want:
                p = self._new_pod(rs, "apps/v1", "ReplicaSet", "%s-%s" % (md["name"], random_suffix()))
                if p is None:
                    break
                pods.append(p)
            while len(pods) > want:
                victim = sorted(pods, key=lambda p: (_pod_ready(p), p["metadata"]["creationTimestamp"]))[0]
                pods.remove(victim)
                try:
                    self.api.delete(self.r("", "pods"), ns, victim["metadata"]["name"], {})
                    self._event(rs, "ReplicaSet", "SuccessfulDelete", "Deleted pod: %s" % victim["metadata"]["name"])
                except ApiError:
                    pass
            ready = sum(1 for p in pods if _pod_ready(p))
            st = {"replicas": len(pods), "fullyLabeledReplicas": len(pods), "readyReplicas": ready,
                  "availableReplicas": ready, "observedGeneration": md.get("generation", 1)}
            for k in ("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas"):
                if not st[k] and k != "replicas":
                    del st[k]
            if st != (rs.get("status") or {}):
                self._set_status(rsres, rs, st)

    def _statefulsets(self):
        res = self.r("apps", "statefulsets")
        for s in list(self.store.list("apps", "statefulsets")):
            md = s["metadata"]
            if md.get("deletionTimestamp"):
                continue
            ns = md["namespace"]
            spec = s.get("spec") or {}
            want = spec.get("replicas", 1)
            rev = "%s-%s" % (md["name"], _hash(spec.get("template") or {}))
            pods = {p["metadata"]["name"]: p for p in self._pods_of(s, ns)}
            for i in range(want):
                name = "%s-%d" % (md["name"], i)
                for vct in spec.get("volumeClaimTemplates") or []:
                    cname = "%s-%s" % (vct["metadata"]["name"], name)
                    if self.store.get("", "persistentvolumeclaims", ns, cname) is None:
                        pvc = {"metadata": {"name": cname, "labels": dict((spec.get("selector") or {}).get(
                            "matchLabels") or {})}, "spec": dcopy(vct.get("spec") or {})}
                        try:
                            self.api.create(self.r("", "persistentvolumeclaims"), ns, pvc, KCM)
                        except ApiError:
                            pass
                p = pods.get(name)
                if p is None:
                    if spec.get("podManagementPolicy", "OrderedReady") == "OrderedReady" and i > 0 and not \
                            _pod_ready(pods.get("%s-%d" % (md["name"], i - 1)) or {"status": {}}):
                        break
                    p = self._new_pod(s, "apps/v1", "StatefulSet", name, {
                        "controller-revision-hash": rev, "statefulset.kubernetes.io/pod-name": name,
                        "apps.kubernetes.io/pod-index": str(i)})
                    if p is not None:
                        p = self.store.get("", "pods", ns, name)
                        pods[name] = p
                    break
            for name, p in list(pods.items()):
                idx = int(name.rsplit("-", 1)[-1]) if name.rsplit("-", 1)[-1].isdigit() else 0
                stale = (p["metadata"].get("labels") or {}).get("controller-revision-hash") != rev
                if (idx >= want or stale) and not p["metadata"].get("deletionTimestamp"):
                    try:
                        self.api.delete(self.r("", "pods"), ns, name, {})
                    except ApiError:
                        pass
                    del pods[name]
                    break
            live = [p for p in pods.values() if not p["metadata"].get("deletionTimestamp")]
            ready = sum(1 for p in live if _pod_ready(p))
            upd = sum(1 for p in live if (p["metadata"].get("labels") or {}).get("controller-revision-hash") == rev)
            old = s.get("status") or {}
            cur_rev = old.get("currentRevision", rev)
            if upd == want == len(live):
                cur_rev = rev
            st = {"observedGeneration": md.get("generation", 1), "replicas": len(live), "readyReplicas": ready,
                  "currentReplicas": upd if cur_rev == rev else len(live) - upd, "updatedReplicas": upd,
                  "availableReplicas": ready, "currentRevision": cur_rev, "updateRevision": rev,
                  "collisionCount": 0}
            for k in ("readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"):
                if not st[k]:
                    del st[k]
            if st != old:
                self._set_status(res, s, st)

    def _daemonsets(self):
        res = self.r("apps", "daemonsets")
        for ds in list(self.store.list("apps", "daemonsets")):
            md = ds["metadata"]
            if md.get("deletionTimestamp"):
                continue
            ns = md["namespace"]
            h = _hash(get_path(ds, "spec", "template") or {})
            pods = [p for p in self._pods_of(ds, ns) if not p["metadata"].get("deletionTimestamp")]
            for p in pods:
                if (p["metadata"].get("labels") or {}).get("controller-revision-hash") != h:
                    try:
                        self.api.delete(self.r("", "pods"), ns, p["metadata"]["name"], {})
                    except ApiError:
                        pass
            pods = [p for p in pods if (p["metadata"].get("labels") or {}).get("controller-revision-hash") == h]
            if not pods:
                p = self._new_pod(ds, "apps/v1", "DaemonSet", "%s-%s" % (md["name"], random_suffix()),
                                  {"controller-revision-hash": h, "pod-template-generation":
                                   str(md.get("generation", 1))})
                if p:
                    pods = [p]
            ready = sum(1 for p in pods if _pod_ready(p))
            st = {"currentNumberScheduled": 1, "desiredNumberScheduled": 1, "numberMisscheduled": 0,
                  "numberReady": ready, "observedGeneration": md.get("generation", 1),
                  "updatedNumberScheduled": len(pods)}
            if ready:
                st["numberAvailable"] = ready
            else:
                st["numberUnavailable"] = 1
            if st != (ds.get("status") or {}):
                self._set_status(res, ds, st)

    def _jobs(self):
        res = self.r("batch", "jobs")
        for j in list(self.store.list("batch", "jobs")):
            md = j["metadata"]
            if md.get("deletionTimestamp"):
                continue
            ns = md["namespace"]
            spec = j.get("spec") or {}
            old = j.get("status") or {}
            now = now_rfc3339()
            finished = any(c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
                           for c in old.get("conditions") or [])
            if finished:
                ttl = spec.get("ttlSecondsAfterFinished")
                if ttl is not None and self._age(j, "/finished") >= ttl:
                    try:
                        self.api.delete(res, ns, md["name"], {"propagationPolicy": "Background"})
                    except ApiError:
                        pass
                continue
            if spec.get("suspend"):
                continue
            pods = self._pods_of(j, ns)
            succeeded = sum(1 for p in pods if get_path(p, "status", "phase") == "Succeeded")
            failed = sum(1 for p in pods if get_path(p, "status", "phase") == "Failed")
            active = [p for p in pods if get_path(p, "status", "phase") in ("Pending", "Running", None)
                      and not p["metadata"].get("deletionTimestamp")]
            completions = spec.get("completions", 1) or 1
            backoff = spec.get("backoffLimit", 6)
            outcome = self.job_outcome.get((ns, md["name"])) or (md.get("annotations") or {}).get(
                "kubesim.io/outcome")
            if outcome:
                for p in active:
                    self.pod_override[(ns, p["metadata"]["name"])] = (outcome, None if outcome == "Succeeded" else 1)
            st = {"startTime": old.get("startTime") or now, "uncountedTerminatedPods": {},
                  "terminating": 0}
            conds = dcopy(old.get("conditions") or [])
            if succeeded >= completions:
                _cond(conds, "SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of "
                      "succeeded pods", now)
                _cond(conds, "Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods",
                      now)
                st["completionTime"] = now
                self._event(j, "Job", "Completed", "Job completed")
                self._age(j, "/finished")
            elif failed > backoff:
                _cond(conds, "FailureTarget", "True", "BackoffLimitExceeded", "Job has reached the specified backoff "
                      "limit", now)
                _cond(conds, "Failed", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit",
                      now)
                self._event(j, "Job", "BackoffLimitExceeded", "Job has reached the specified backoff limit",
                            "Warning")
                self._age(j, "/finished")
                for p in active:
                    try:
                        self.api.delete(self.r("", "pods"), ns, p["metadata"]["name"], {})
                    except ApiError:
                        pass
                active = []
            else:
                par = spec.get("parallelism", 1)
                need = min(par, completions - succeeded) - len(active)
                ann = {"kubesim.io/outcome": outcome} if outcome else None
                for _ in range(max(0, need)):
                    p = self._new_pod(j, "batch/v1", "Job", "%s-%s" % (md["name"], random_suffix()), None, ann)
                    if p:
                        active.append(p)
            for c in conds:
                c.pop("lastUpdateTime", None)
                c.setdefault("lastProbeTime", c.get("lastTransitionTime"))
            if conds:
                st["conditions"] = conds
            if active:
                st["active"] = len(active)
            if succeeded:
                st["succeeded"] = succeeded
            if failed:
                st["failed"] = failed
            st["ready"] = sum(1 for p in active if _pod_ready(p))
            if "completionTime" not in st and old.get("completionTime"):
                st["completionTime"] = old["completionTime"]
            cmp_old = {k: v for k, v in old.items()}
            if st != cmp_old:
                self._set_status(res, j, st)

    # ---- kubelet ----------------------------------------------------------------------------------------
    def _pod_outcome(self, p):
        """Outcome of a run-to-completion pod: the kubesim.io/outcome annotation,
        else the first `exit N` in the container commands (N != 0 fails), else success."""
        ann = p["metadata"].get("annotations") or {}
        o = ann.get("kubesim.io/outcome")
        if o in ("Succeeded", "Failed"):
            return o, 0 if o == "Succeeded" else 1
        for c in get_path(p, "spec", "containers") or []:
            words = " ".join(str(x) for x in (c.get("command") or []) + (c.get("args") or []))
            m = re.search(r"\bexit\s+(\d+)", words)
            if m and int(m.group(1)) != 0:
                return "Failed", int(m.group(1))
            if words.strip() == "false" or "kubesim-fail" in words:
                return "Failed", 1
        return "Succeeded", 0

    def _run_seconds(self, p):
        ann = p["metadata"].get("annotations") or {}
        if "kubesim.io/run-seconds" in ann:
            return float(ann["kubesim.io/run-seconds"])
        secs = self.opts.pod_run_seconds
        for c in get_path(p, "spec", "containers") or []:
            words = " ".join(str(x) for x in (c.get("command") or []) + (c.get("args") or []))
            m = re.search(r"\bsleep\s+(\d+(?:\.\d+)?)", words)
            if m:
                secs = max(secs, min(float(m.group(1)), 600.0))
        return secs

    def _pods(self):
        pres = self.r("", "pods")
        for p in list(self.store.list("", "pods")):
            md = p["metadata"]
            if md.get("deletionTimestamp"):
                continue
            ns, name = md["namespace"], md["name"]
            phase = get_path(p, "status", "phase") or "Pending"
            ann = md.get("annotations") or {}
            override = self.pod_override.pop((ns, name), None)
            now = now_rfc3339()
            if override:
                self._pod_set(pres, p, override[0], override[1], now)
                continue
            if phase == "Pending":
                if self._age(p, "/pending") < float(ann.get("kubesim.io/start-delay", self.opts.pod_start_delay)):
                    continue
                self._pod_set(pres, p, "Running", None, now)
            elif phase == "Running":
                rp = get_path(p, "spec", "restartPolicy") or "Always"
                if rp == "Always" and "kubesim.io/outcome" not in ann:
                    if self._crashing(p) and self._age(p, "/running") >= self._run_seconds(p):
                        self._crashloop(pres, p, now)
                        self.seen[md["uid"] + "/running"] = time.monotonic()
                    continue
                if self._age(p, "/running") < self._run_seconds(p):
                    continue
                phase, code = self._pod_outcome(p)
                self._pod_set(pres, p, phase, code, now)

    def _crashing(self, p):
        """A restartPolicy=Always pod whose command exits non-zero crash-loops."""
        return (get_path(p, "spec", "restartPolicy") or "Always") == "Always" and \
            "kubesim.io/outcome" not in (p["metadata"].get("annotations") or {}) and \
            self._pod_outcome(p)[0] == "Failed"

    def _crashloop(self, pres, p, now):
        code = self._pod_outcome(p)[1]
        new = dcopy(p)
        st = new.setdefault("status", {})
        for cs in st.get("containerStatuses") or []:
            cs["restartCount"] = cs.get("restartCount", 0) + 1
            cs["ready"] = False
            cs["started"] = False
            cs["lastState"] = {"terminated": {"exitCode": code, "reason": "Error", "startedAt": now,
                                              "finishedAt": now, "containerID": cs.get("containerID", "")}}
            cs["state"] = {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 10s restarting failed "
                                       "container=%s pod=%s_%s(%s)" % (cs.get("name"), p["metadata"]["name"],
                                                                       p["metadata"]["namespace"],
                                                                       p["metadata"]["uid"])}}
        self._put(pres, p, new, KUBELET, "status")
        self._event(p, "Pod", "BackOff", "Back-off restarting failed container", "Warning", source="kubelet")

    def _pod_set(self, pres, p, phase, exit_code, now):
        md = p["metadata"]
        new = dcopy(p)
        spec = new.setdefault("spec", {})
        if not spec.get("nodeName"):
            spec["nodeName"] = NODE
            p = self._put(pres, p, new, "kube-scheduler", None)
            new = dcopy(p)
            self._event(p, "Pod", "Scheduled", "Successfully assigned %s/%s to %s" % (md["namespace"], md["name"],
                                                                                     NODE), source="default-scheduler")
        st = dcopy(p.get("status") or {})
        ann = md.get("annotations") or {}
        if not st.get("podIP"):
            self.pod_ip += 1
            ip = "10.244.%d.%d" % (self.pod_ip // 250, self.pod_ip % 250 + 1)
            st.update({"hostIP": "172.18.0.2", "hostIPs": [{"ip": "172.18.0.2"}], "podIP": ip,
                       "podIPs": [{"ip": ip}], "startTime": now})
        st["phase"] = phase
        ready = phase == "Running" and ann.get("kubesim.io/ready", "true") != "false" and not self._crashing(p)
        conds = st.get("conditions") or []
        r = "True" if ready else "False"
        reason = "PodCompleted" if phase in ("Succeeded", "Failed") else ("" if ready else "ContainersNotReady")
        for typ, val in (("PodReadyToStartContainers", "True" if phase == "Running" else "False"),
                         ("Initialized", "True"), ("Ready", r), ("ContainersReady", r), ("PodScheduled", "True")):
            _cond(conds, typ, val, reason if typ in ("Ready", "ContainersReady") else "", "", now)
        for c in conds:
            c.pop("lastUpdateTime", None)
            c.setdefault("lastProbeTime", None)
            if not c.get("reason"):
                c.pop("reason", None)
            if not c.get("message"):
                c.pop("message", None)
        st["conditions"] = conds
        css = []
        for c in get_path(p, "spec", "containers") or []:
            cs = {"name": c.get("name"), "image": c.get("image"), "imageID": "docker.io/library/" + str(
                c.get("image")) + "@sha256:" + hashlib.sha256(str(c.get("image")).encode()).hexdigest(),
                "containerID": "containerd://" + hashlib.sha256((md["uid"] + str(c.get("name"))).encode()).hexdigest(),
                "ready": ready, "restartCount": 0, "started": phase == "Running"}
            if phase == "Running":
                cs["state"] = {"running": {"startedAt": now}}
            elif phase in ("Succeeded", "Failed"):
                code = exit_code if exit_code is not None else (0 if phase == "Succeeded" else 1)
                cs["state"] = {"terminated": {"exitCode": code, "reason": "Completed" if code == 0 else "Error",
                                              "startedAt": st.get("startTime", now), "finishedAt": now,
                                              "containerID": cs["containerID"]}}
            else:
                cs["state"] = {"waiting": {"reason": "ContainerCreating"}}
            css.append(cs)
        st["containerStatuses"] = css
        st.setdefault("qosClass", "BestEffort")
        if st != p.get("status"):
            new = dcopy(p)
            new["status"] = st
            self._put(pres, p, new, KUBELET, "status")
            if phase == "Running" and get_path(p, "status", "phase") != "Running":
                for c in get_path(p, "spec", "containers") or []:
                    self._event(p, "Pod", "Started", "Started container %s" % c.get("name"), source="kubelet")

    # ---- services, volumes, tokens --------------------------------------------------------------------------
    def _services(self):
        res = self.r("", "services")
        for s in list(self.store.list("", "services")):
            if get_path(s, "spec", "type") != "LoadBalancer" or get_path(s, "status", "loadBalancer", "ingress"):
                continue
            if self._age(s, "/lb") < self.opts.lb_delay:
                continue
            self._set_status(res, s, {"loadBalancer": {"ingress": [{"ip": self.api.alloc.lb_ip(),
                                                                    "ipMode": "VIP"}]}})

    def _pvcs(self):
        res = self.r("", "persistentvolumeclaims")
        for c in list(self.store.list("", "persistentvolumeclaims")):
            md = c["metadata"]
            if get_path(c, "status", "phase") == "Bound" or md.get("deletionTimestamp"):
                continue
            if self._age(c, "/pvc") < self.opts.pvc_delay:
                continue
            spec = c.get("spec") or {}
            size = get_path(spec, "resources", "requests", "storage", default="1Gi")
            pv_name = spec.get("volumeName") or "pvc-" + md["uid"]
            if self.store.get("", "persistentvolumes", "", pv_name) is None:
                try:
                    self.api.create(self.r("", "persistentvolumes"), "", {
                        "metadata": {"name": pv_name, "annotations": {"pv.kubernetes.io/provisioned-by":
                                                                      "kubesim.io/hostpath"}},
                        "spec": {"capacity": {"storage": size}, "accessModes": spec.get("accessModes") or
                                 ["ReadWriteOnce"], "persistentVolumeReclaimPolicy": "Delete",
                                 "storageClassName": spec.get("storageClassName") or "standard",
                                 "volumeMode": spec.get("volumeMode", "Filesystem"),
                                 "hostPath": {"path": "/var/kubesim/" + pv_name},
                                 "claimRef": {"kind": "PersistentVolumeClaim", "namespace": md["namespace"],
                                              "name": md["name"], "uid": md["uid"], "apiVersion": "v1"}}},
                        "persistentvolume-controller")
                except ApiError:
                    pass
            new = dcopy(c)
            new["spec"]["volumeName"] = pv_name
            new["spec"].setdefault("storageClassName", "standard")
            new["metadata"].setdefault("annotations", {})["pv.kubernetes.io/bind-completed"] = "yes"
            c = self._put(res, c, new, "persistentvolume-controller", None)
            self._set_status(res, c, {"phase": "Bound", "accessModes": spec.get("accessModes") or ["ReadWriteOnce"],
                                      "capacity": {"storage": size}})

    def _sa_secrets(self):
        res = self.r("", "secrets")
        for s in list(self.store.list("", "secrets")):
            if s.get("type") != "kubernetes.io/service-account-token" or (s.get("data") or {}).get("token"):
                continue
            md = s["metadata"]
            sa_name = (md.get("annotations") or {}).get("kubernetes.io/service-account.name")
            sa = self.store.get("", "serviceaccounts", md["namespace"], sa_name or "")
            if sa is None:
                continue
            tok, _ = self.tokens.issue_sa(md["namespace"], sa_name, sa["metadata"]["uid"], None, 0,
                                          ("secret", md["name"], md["uid"]))
            new = dcopy(s)
            new["metadata"]["annotations"]["kubernetes.io/service-account.uid"] = sa["metadata"]["uid"]
            new["data"] = dict(new.get("data") or {})
            new["data"].update({"token": base64.b64encode(tok.encode()).decode(),
                                "ca.crt": base64.b64encode(self.ca_pem.encode()).decode(),
                                "namespace": base64.b64encode(md["namespace"].encode()).decode()})
            self._put(res, s, new, KCM, None)


_ = selector_object_match
