"""Simulated controllers (kube-controller-manager, kubelet, scheduler,
apiextensions): Deployments/ReplicaSets/StatefulSets/DaemonSets roll out,
Jobs complete or fail, Pods run, PVCs bind, Services get IPs, Namespaces
terminate, ownerReference garbage collection, CRD registration, SA tokens."""
import base64
import threading
import time

from . import apply as ssa
from .ctrlutil import KCM, NODE
from .kubelet import Kubelet
from .queues import WorkQueues
from .rbac import bootstrap_objects
from .util import ApiError, dcopy, get_path, now_rfc3339
from .workloads import WorkloadControllers


class Controllers(WorkloadControllers, Kubelet):
    def __init__(self, store, registry, api, tokens, certs_ca, opts):
        self.store = store
        self.registry = registry
        self.api = api
        self.tokens = tokens
        self.ca_pem = certs_ca
        self.opts = opts
        self.wake = threading.Event()
        self.wq = WorkQueues(store, self.wake)  # what each controller must look at (fed by every write)
        store.listener = self.wq.on_write
        self.outcomes = {}  # (uid, resourceVersion) -> pod outcome
        self.memo = {}  # derived facts of stored objects, by resourceVersion (WorkloadControllers._memo)
        self.seen = {}  # uid -> monotonic time of last state change
        self.pod_override = {}  # (ns, name) -> (phase, exitCode)
        self.job_outcome = {}  # (ns, name) -> "Succeeded" | "Failed"
        self.pod_ip = 10
        api.hooks = self
        self.thread = None
        self.cpustats = False

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
            self.api.create(self.r("", "endpoints"), "default", {
                "metadata": {"name": "kubernetes", "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"}},
                "subsets": [{"addresses": [{"ip": "172.18.0.2"}],
                             "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]}]}, "kube-apiserver")

    def reset(self):
        with self.store.lock:
            self.store.wipe()
            self.wq.clear()
            for name in list(self.registry.custom):
                self.registry.remove_crd(name)
            self.seen.clear()
            self.memo.clear()
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

    # The controllers learn of writes from the store (WorkQueues.on_write);
    # these hooks do what kube-apiserver itself does around a write.
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

    # ---- admin ----------------------------------------------------------------------------------------
    def set_pod_phase(self, ns, name, phase, exit_code=None):
        if phase not in ("Pending", "Running", "Succeeded", "Failed"):
            raise ApiError(400, "BadRequest", "phase must be Pending, Running, Succeeded or Failed")
        with self.store.lock:
            if self.store.get("", "pods", ns, name) is None:
                raise ApiError(404, "NotFound", 'pods "%s" not found' % name)
            self.pod_override[(ns, name)] = (phase, exit_code)
            self.wq.add("pods", (ns, name))
            self.tick()

    def set_job_outcome(self, ns, name, outcome):
        if outcome not in ("Succeeded", "Failed"):
            raise ApiError(400, "BadRequest", "outcome must be Succeeded or Failed")
        with self.store.lock:
            if self.store.get("batch", "jobs", ns, name) is None:
                raise ApiError(404, "NotFound", 'jobs.batch "%s" not found' % name)
            self.job_outcome[(ns, name)] = outcome
            self.wq.add("jobs", (ns, name))
            self.tick()

    # ---- loop -------------------------------------------------------------------------------------------
    def start(self):
        self.thread = threading.Thread(target=self._loop, name="controllers", daemon=True)
        self.thread.start()

    def _loop(self):
        """Sleep until a write queues work or a timer is due, then run a pass over
        what is queued. A pass holds the store: with much to do, at most a
        third of the time goes to passes (requests are served in between)."""
        gap, last = 0.0, 0.0
        while not self.opts.stopping:
            with self.store.lock:
                due = self.wq.next_timer()
            cap = self.opts.controller_interval
            timeout = cap if due is None else min(cap, max(0.0, due - time.monotonic()))
            self.wake.wait(timeout)
            wait = last + gap - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            self.wake.clear()
            try:
                t0 = time.monotonic()
                with self.store.lock:
                    self.wq.fire_timers()
                    if not self.wq.pending():
                        continue
                    self.tick()
                last = time.monotonic()
                gap = 2 * (last - t0)
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

    def _due(self, queue, obj, key, delay, strict=False):
        """Whether obj's `key` state (see _age) is delay seconds old (more than
        that if strict); if not, obj is queued again for when it will be."""
        age = self._age(obj, key)
        if age > delay or (age == delay and not strict):
            return True
        md = obj["metadata"]
        self.wq.at(self.seen[md.get("uid", "") + key] + delay + (0.001 if strict else 0.0), queue,
                   (md.get("namespace", ""), md["name"]))
        return False

    def _each(self, queue, group, resource):
        """The stored objects queued for queue (removed ones left out)."""
        for ns, name in self.wq.take(queue):
            obj = self.store.get(group, resource, ns, name)
            if obj is not None:
                yield obj

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
        """One pass of the controllers over the objects queued for them (by
        writes and due timers). A write made during the pass queues work for
        the controllers after this one in the same pass, for the others in the
        next pass."""
        for name in ("namespaces", "gc", "deployments", "replicasets", "statefulsets", "daemonsets", "jobs",
                     "pods", "services", "endpoints", "pvcs", "sa_secrets", "apiservices"):
            if self.wq.q[name]:
                if self.cpustats:
                    from .profiling import cpu_add
                    t0 = time.thread_time()
                    getattr(self, "_" + name)()
                    cpu_add("controller " + name, time.thread_time() - t0)
                    continue
                getattr(self, "_" + name)()

    # ---- namespaces & GC -----------------------------------------------------------------------------
    def _namespaces(self):
        nsr = self.r("", "namespaces")
        for ns in self._each("namespaces", "", "namespaces"):
            if not ns["metadata"].get("deletionTimestamp"):
                continue
            name = ns["metadata"]["name"]
            left, counts, fins = 0, {}, {}
            for g, r, ons, oname, obj in list(self.store.items_in_ns(name)):
                if r == "events":
                    continue
                left += 1
                key = r + "." + g
                counts[key] = counts.get(key, 0) + 1
                for f in obj["metadata"].get("finalizers") or []:
                    fins[f] = fins.get(f, 0) + 1
                if not obj["metadata"].get("deletionTimestamp"):
                    res = self.r(g, r)
                    if res is not None:
                        try:
                            self.api.delete(res, ons, oname, {"propagationPolicy": "Background"})
                        except ApiError:
                            pass
            if left:
                self._ns_conditions(nsr, ns, counts, fins)
                continue
            for g, r, ons, oname, obj in list(self.store.items_in_ns(name)):
                self.store.remove(g, r, ons, oname)
            new = dcopy(ns)
            if "kubernetes" in (new.get("spec") or {}).get("finalizers", []):
                new["spec"]["finalizers"] = [f for f in new["spec"]["finalizers"] if f != "kubernetes"]
                if not new["metadata"].get("finalizers"):
                    final = self.store.remove("", "namespaces", "", name)
                    self.after_delete(nsr, final)
                else:
                    self._put(nsr, ns, new, KCM, "finalize")

    def _ns_conditions(self, nsr, ns, counts, fins):
        """The status conditions the namespace controller sets while content remains."""
        now = now_rfc3339()
        conds = [
            {"type": "NamespaceDeletionDiscoveryFailure", "status": "False", "reason": "ResourcesDiscovered",
             "message": "All resources successfully discovered"},
            {"type": "NamespaceDeletionGroupVersionParsingFailure", "status": "False",
             "reason": "ParsedGroupVersions", "message": "All legacy kube types successfully parsed"},
            {"type": "NamespaceDeletionContentFailure", "status": "False", "reason": "ContentDeleted",
             "message": "All content successfully deleted, may be waiting on finalization"},
            {"type": "NamespaceContentRemaining", "status": "True", "reason": "SomeResourcesRemain",
             "message": "Some resources are remaining: " + ", ".join(
                 "%s has %d resource instances" % (k, v) for k, v in sorted(counts.items()))}]
        if fins:
            conds.append({"type": "NamespaceFinalizersRemaining", "status": "True", "reason": "SomeFinalizersRemain",
                          "message": "Some content in the namespace has finalizers remaining: " + ", ".join(
                              "%s in %d resource instances" % (k, v) for k, v in sorted(fins.items()))})
        old = {c["type"]: c for c in (ns.get("status") or {}).get("conditions") or []}
        for c in conds:
            prev = old.get(c["type"])
            same = prev and all(prev.get(k) == c[k] for k in ("status", "reason", "message"))
            c["lastTransitionTime"] = prev["lastTransitionTime"] if same else now
        if conds != (ns.get("status") or {}).get("conditions"):
            new = dcopy(ns)
            new.setdefault("status", {})["conditions"] = conds
            self._put(nsr, ns, new, KCM, "status")

    def _gc(self):
        """The garbage collector over the queued objects: dependents whose owners
        are all gone are deleted; an owner being deleted in the foreground
        waits for its dependents, an orphaning one lets them go."""
        for g, r, ns, name in self.wq.take("gc"):
            obj = self.store.get(g, r, ns, name)
            if obj is None:
                continue
            md = obj["metadata"]
            refs = md.get("ownerReferences") or []
            if refs:
                alive = [x for x in refs if self.wq.has_uid(x.get("uid"))]
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
            deps = []
            for dg, dr, dns, dname in self.wq.dependents(uid):
                dobj = self.store.get(dg, dr, dns, dname)
                if dobj is not None:
                    deps.append((dg, dr, dobj))
            if "foregroundDeletion" in fins:
                for dg, dr, dobj in deps:
                    if not dobj["metadata"].get("deletionTimestamp"):
                        dres = self.r(dg, dr)
                        if dres:
                            try:
                                self.api.delete(dres, dobj["metadata"].get("namespace", ""),
                                                dobj["metadata"]["name"], {"propagationPolicy": "Foreground"})
                            except ApiError:
                                pass
                if not deps:
                    self._drop_finalizer(res, obj, "foregroundDeletion")
            elif "orphan" in fins:
                for dg, dr, cur in deps:
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

    # ---- services, volumes, tokens --------------------------------------------------------------------------
    def _services(self):
        res = self.r("", "services")
        for s in self._each("services", "", "services"):
            if get_path(s, "spec", "type") != "LoadBalancer" or get_path(s, "status", "loadBalancer", "ingress"):
                continue
            if not self._due("services", s, "/lb", self.opts.lb_delay):
                continue
            self._set_status(res, s, {"loadBalancer": {"ingress": [{"ip": self.api.alloc.lb_ip(),
                                                                    "ipMode": "VIP"}]}})

    def _endpoints(self):
        """The endpoints controller: Endpoints of each selector Service list its pods' IPs."""
        epr = self.r("", "endpoints")
        for svc in self._each("endpoints", "", "services"):
            md = svc["metadata"]
            spec = svc.get("spec") or {}
            sel = spec.get("selector")
            if not sel or spec.get("type") == "ExternalName" or md.get("deletionTimestamp"):
                continue
            self._endpoints_of(epr, svc, md, spec, sel, md["namespace"])

    def _endpoints_of(self, epr, svc, md, spec, sel, ns):
        """The Endpoints of one selector Service."""
        ready, not_ready = [], []
        pods = {}
        for p in self.store.list_selected("", "pods", ns, [(k, "=", [v]) for k, v in sel.items()]):
            labels = p["metadata"].get("labels") or {}
            ip = get_path(p, "status", "podIP")
            if not ip or p["metadata"].get("deletionTimestamp") or any(labels.get(k) != v for k, v in sel.items()):
                continue
            if get_path(p, "status", "phase") in ("Succeeded", "Failed"):
                continue
            addr = {"ip": ip, "nodeName": get_path(p, "spec", "nodeName") or NODE,
                    "targetRef": {"kind": "Pod", "namespace": ns, "name": p["metadata"]["name"],
                                  "uid": p["metadata"]["uid"]}}
            is_ready = any(c.get("type") == "Ready" and c.get("status") == "True"
                           for c in get_path(p, "status", "conditions") or [])
            (ready if is_ready else not_ready).append(addr)
            pods[p["metadata"]["name"]] = p
        ports = []
        for sp in spec.get("ports") or []:
            tp = sp.get("targetPort", sp.get("port"))
            if isinstance(tp, str):
                for p in pods.values():
                    for c in get_path(p, "spec", "containers") or []:
                        for cp in c.get("ports") or []:
                            if cp.get("name") == tp:
                                tp = cp.get("containerPort")
            if isinstance(tp, int):
                e = {"port": tp, "protocol": sp.get("protocol", "TCP")}
                if sp.get("name"):
                    e["name"] = sp["name"]
                ports.append(e)
        subsets = []
        if ready or not_ready:
            sub = {}
            if ready:
                sub["addresses"] = sorted(ready, key=lambda a: a["ip"])
            if not_ready:
                sub["notReadyAddresses"] = sorted(not_ready, key=lambda a: a["ip"])
            if ports:
                sub["ports"] = ports
            subsets = [sub]
        cur = self.store.get("", "endpoints", ns, md["name"])
        body = {"metadata": {"name": md["name"], "labels": dict(md.get("labels") or {})}}
        if subsets:
            body["subsets"] = subsets
        try:
            if cur is None:
                self.api.create(epr, ns, body, "endpoint-controller")
            elif cur.get("subsets") != body.get("subsets"):
                new = dcopy(cur)
                if subsets:
                    new["subsets"] = subsets
                else:
                    new.pop("subsets", None)
                self._put(epr, cur, new, "endpoint-controller", None)
        except ApiError:
            pass

    def _apiservices(self):
        """kube-aggregator's availability check, simplified: a local APIService
        is Available; a remote one once its Service exists."""
        res = self.r("apiregistration.k8s.io", "apiservices")
        for a in self._each("apiservices", "apiregistration.k8s.io", "apiservices"):
            svc = get_path(a, "spec", "service")
            if svc is None:
                want = ("True", "Local", "Local APIServices are always available")
            elif self.store.get("", "services", svc.get("namespace", ""), svc.get("name", "")) is not None:
                want = ("True", "Passed", "all checks passed")
            else:
                want = ("False", "ServiceNotFound", 'service/%s in "%s" is not present' %
                        (svc.get("name", ""), svc.get("namespace", "")))
            conds = get_path(a, "status", "conditions") or []
            cur = next((c for c in conds if c.get("type") == "Available"), None)
            if cur and (cur.get("status"), cur.get("reason")) == want[:2]:
                continue
            self._set_status(res, a, {"conditions": [{"type": "Available", "status": want[0], "reason": want[1],
                                                      "message": want[2], "lastTransitionTime": now_rfc3339()}]})

    def _pvcs(self):
        res = self.r("", "persistentvolumeclaims")
        for c in self._each("pvcs", "", "persistentvolumeclaims"):
            md = c["metadata"]
            if get_path(c, "status", "phase") == "Bound" or md.get("deletionTimestamp"):
                continue
            if not self._due("pvcs", c, "/pvc", self.opts.pvc_delay):
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
        for s in self._each("sa_secrets", "", "secrets"):
            if s.get("type") != "kubernetes.io/service-account-token" or (s.get("data") or {}).get("token"):
                continue
            md = s["metadata"]
            sa_name = (md.get("annotations") or {}).get("kubernetes.io/service-account.name")
            sa = self.store.get("", "serviceaccounts", md["namespace"], sa_name or "")
            if sa is None:
                self.wq.sa_missing(md["namespace"], md["name"])
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

