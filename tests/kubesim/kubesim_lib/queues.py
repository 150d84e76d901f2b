"""Work queues of the simulated controllers: the objects each controller must
look at again, fed by every store write (Store.listener) and by timers, so a
controller pass reads only what changed, never every object; plus the uid and
owner indexes that find an object's owners and dependents without a scan."""
import heapq
import time

# the controllers in the order a pass runs them (Controllers.tick)
ORDER = ("namespaces", "gc", "deployments", "replicasets", "statefulsets", "daemonsets", "jobs", "pods",
         "services", "endpoints", "pvcs", "sa_secrets", "apiservices")
# owner kinds whose controller reads its dependents: a dependent's write queues the owner
OWNERS = {("apps", "deployments"): "deployments", ("apps", "replicasets"): "replicasets",
          ("apps", "statefulsets"): "statefulsets", ("apps", "daemonsets"): "daemonsets",
          ("batch", "jobs"): "jobs"}
# kinds whose own writes queue their own controller
OWN = {("apps", "deployments"): "deployments", ("apps", "replicasets"): "replicasets",
       ("apps", "statefulsets"): "statefulsets", ("apps", "daemonsets"): "daemonsets",
       ("batch", "jobs"): "jobs", ("", "pods"): "pods", ("", "persistentvolumeclaims"): "pvcs",
       ("apiregistration.k8s.io", "apiservices"): "apiservices"}
SA_TOKEN = "kubernetes.io/service-account-token"


def _ref_uids(md):
    return [r.get("uid") for r in (md.get("ownerReferences") or [])] if md else []


class WorkQueues:
    def __init__(self, store, wake):
        self.store = store
        self.wake = wake  # threading.Event set when there is work
        self.clear()

    def clear(self):
        self.q = {n: {} for n in ORDER}  # controller -> ordered set of keys
        self.by_uid = {}  # uid -> {(group, resource, ns, name): None} (mirrored Events share a uid)
        self.deps = {}  # owner uid -> {(group, resource, ns, name): None} of the objects naming it
        self.selectors = {}  # (ns, label, value) -> {service name: selector} (endpoints)
        self.sa_waiting = {}  # ns -> {secret name: None}: token Secrets whose ServiceAccount is missing
        self.timers = []  # heap of (due, queue, key)
        self.due = {}  # (queue, key) -> earliest due time in timers

    # ---- queues -------------------------------------------------------------------------------------
    def add(self, queue, key):
        self.q[queue][key] = None
        self.wake.set()

    def take(self, queue):
        """The keys queued for queue, in key order; the queue starts empty again."""
        keys = self.q[queue]
        if not keys:
            return ()
        self.q[queue] = {}
        return sorted(keys)

    def at(self, when, queue, key):
        """Queue key again at monotonic time when."""
        k = (queue, key)
        cur = self.due.get(k)
        if cur is not None and cur <= when:
            return
        self.due[k] = when
        heapq.heappush(self.timers, (when, queue, key))

    def fire_timers(self):
        now = time.monotonic()
        while self.timers and self.timers[0][0] <= now:
            when, queue, key = heapq.heappop(self.timers)
            if self.due.get((queue, key)) == when:
                del self.due[(queue, key)]
                self.q[queue][key] = None

    def next_timer(self):
        return self.timers[0][0] if self.timers else None

    def pending(self):
        return any(self.q.values())

    # ---- indexes --------------------------------------------------------------------------------------
    def has_uid(self, uid):
        return uid in self.by_uid

    def dependents(self, uid):
        return list(self.deps.get(uid, ()))

    def owners(self, uids):
        """The keys of the stored objects with these uids."""
        for u in uids:
            yield from self.by_uid.get(u, ())

    def _index(self, key, md, omd, removed):
        uid = md.get("uid")
        ouid = omd.get("uid") if omd else None
        if removed or (ouid is not None and ouid != uid):
            gone = ouid if not removed else uid
            s = self.by_uid.get(gone)
            if s is not None:
                s.pop(key, None)
                if not s:
                    del self.by_uid[gone]
        if not removed:
            self.by_uid.setdefault(uid, {})[key] = None
        old, new = _ref_uids(omd), ([] if removed else _ref_uids(md))
        if old != new:
            for u in old:
                if u not in new:
                    s = self.deps.get(u)
                    if s is not None:
                        s.pop(key, None)
                        if not s:
                            del self.deps[u]
            for u in new:
                self.deps.setdefault(u, {})[key] = None
        return old, new

    # ---- the store's listener (called under the store lock) ------------------------------------------
    def on_write(self, g, r, ns, name, old, new):
        """Object (g, r, ns, name) went from old to new (None: absent)."""
        removed = new is None
        md = (old if removed else new)["metadata"]
        omd = old["metadata"] if old is not None else None
        key = (g, r, ns, name)
        old_refs, new_refs = self._index(key, md, omd, removed)
        # garbage collector: an object naming owners, one being deleted with
        # dependents to handle, and (on a removal) the objects it owned
        if new_refs or (not removed and md.get("deletionTimestamp") and md.get("finalizers")):
            self.add("gc", key)
        if removed:
            uid = md.get("uid")
            if uid not in self.by_uid:
                for d in self.deps.get(uid, ()):
                    self.add("gc", d)
        if old_refs or new_refs:
            for o in self.owners(set(old_refs) | set(new_refs)):
                og, orr, ons, oname = o
                own = self.store.get(og, orr, ons, oname)
                if own is not None and own["metadata"].get("deletionTimestamp"):
                    self.add("gc", o)
                q = OWNERS.get((og, orr))
                if q is not None:
                    self.add(q, (ons, oname))
        # namespace controller: a terminating namespace, and its content
        if g == "" and r == "namespaces":
            if not removed and md.get("deletionTimestamp"):
                self.add("namespaces", ("", name))
        elif ns:
            nso = self.store.get("", "namespaces", "", ns)
            if nso is not None and nso["metadata"].get("deletionTimestamp"):
                self.add("namespaces", ("", ns))
        q = OWN.get((g, r))
        if q is not None:
            if not removed:
                self.add(q, (ns, name))
            elif q == "pvcs":  # a StatefulSet recreates its claims
                for s in self.store.list("apps", "statefulsets", ns):
                    self.add("statefulsets", (ns, s["metadata"]["name"]))
        if g != "":
            return
        if r == "pods":
            self._pod_services(ns, old, new)
        elif r == "services":
            self._service(ns, name, old, new)
        elif r == "endpoints":
            self.add("endpoints", (ns, name))
        elif r == "secrets":
            if not removed and new.get("type") == SA_TOKEN and not (new.get("data") or {}).get("token"):
                self.add("sa_secrets", (ns, name))
        elif r == "serviceaccounts" and not removed:
            for s in self.sa_waiting.pop(ns, ()):
                self.add("sa_secrets", (ns, s))

    def _pod_services(self, ns, old, new):
        """Queue the Endpoints of the Services whose selector matches the pod, before or after."""
        seen = set()
        for o in (old, new):
            labels = (o["metadata"].get("labels") or {}) if o is not None else {}
            for k, v in labels.items():
                for svc, sel in self.selectors.get((ns, k, v), {}).items():
                    if svc not in seen and all(labels.get(a) == b for a, b in sel.items()):
                        seen.add(svc)
                        self.add("endpoints", (ns, svc))

    def _service(self, ns, name, old, new):
        osel = ((old.get("spec") or {}).get("selector") or {}) if old is not None else {}
        nsel = ((new.get("spec") or {}).get("selector") or {}) if new is not None else {}
        if osel != nsel:
            for k, v in osel.items():
                s = self.selectors.get((ns, k, v))
                if s is not None:
                    s.pop(name, None)
                    if not s:
                        del self.selectors[(ns, k, v)]
            for k, v in nsel.items():
                self.selectors.setdefault((ns, k, v), {})[name] = nsel
        if new is not None:
            self.add("services", (ns, name))
            self.add("endpoints", (ns, name))
        for a in self.store.list("apiregistration.k8s.io", "apiservices"):
            svc = (a.get("spec") or {}).get("service") or {}
            if svc.get("namespace", "") == ns and svc.get("name", "") == name:
                self.add("apiservices", ("", a["metadata"]["name"]))

    def sa_missing(self, ns, name):
        self.sa_waiting.setdefault(ns, {})[name] = None
