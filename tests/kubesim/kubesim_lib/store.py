"""Object store: one global lock, a global resourceVersion counter (as etcd's),
and an event history (the watch cache) with expiry; old resourceVersions 410."""
import bisect
import threading
import time

from .util import dcopy, gone


class Event:
    __slots__ = ("rv", "group", "resource", "ns", "type", "obj", "old", "at", "enc")

    def __init__(self, rv, group, resource, ns, type_, obj, old):
        self.rv = rv
        self.group = group
        self.resource = resource
        self.ns = ns
        self.type = type_
        self.obj = obj
        self.old = old
        self.at = time.monotonic()
        self.enc = None  # serialized watch events of this event, shared by the watches (watch.py)


class Waiter:
    """One open watch: woken by the writes of its resource in its namespace
    (ns None: all) to its object (name None: any), and by close_watches()."""
    __slots__ = ("cond", "ns", "name")

    def __init__(self, cond, ns, name):
        self.cond = cond
        self.ns = ns
        self.name = name


def _rv(ev):
    return ev.rv


class Store:
    def __init__(self, history_events=5000, history_seconds=600.0):
        self.lock = threading.RLock()
        self.waiters = {}  # (group, resource) -> {Waiter: None}: the open watches of it
        self.rv = 100
        self.data = {}  # (group, resource) -> {(ns, name): obj}
        self.by_ns = {}  # (group, resource) -> {ns: {name: obj}} (the same objects)
        self.order = {}  # (group, resource[, ns]) -> sorted keys, until a key comes or goes
        self.ns_writes = {}  # (group, resource, ns) -> writes so far (see ns_version)
        self.by_label = {}  # (group, resource, label, value) -> {(ns, name): None} (list_selected)
        self.events = []  # ordered by rv
        self.event_rvs = []
        self.res_events = {}  # (group, resource) -> its events, ordered by rv (events_for; trimmed there)
        self.compacted = 0  # highest resourceVersion no longer in history
        self.history_events = history_events
        self.history_seconds = history_seconds
        self.watch_epoch = 0  # bumped to close all open watches
        self.listener = None  # f(group, resource, ns, name, old, new): told of every put and remove

    # ---- reads --------------------------------------------------------------
    def get(self, group, resource, ns, name):
        return self.data.get((group, resource), {}).get((ns or "", name))

    def list(self, group, resource, ns=None):
        gr = (group, resource)
        if ns is None:
            objs = self.data.get(gr)
            if not objs:
                return []
            keys = self.order.get(gr)
            if keys is None:
                keys = self.order[gr] = sorted(objs)
            return [objs[k] for k in keys]
        objs = self.by_ns.get(gr, {}).get(ns)
        if not objs:
            return []
        ck = (group, resource, ns)
        names = self.order.get(ck)
        if names is None:
            names = self.order[ck] = sorted(objs)
        return [objs[n] for n in names]

    def list_selected(self, group, resource, ns, lsel):
        """list(), or fewer objects (in the same order) among which are all
        that label selector lsel (parse_label_selector's requirements)
        matches: those carrying the label of its rarest `key=value`
        requirement (the label index), without a look at every object."""
        best = None
        for key, op, vals in lsel:
            if op == "=" and type(vals[0]) is str:
                c = self.by_label.get((group, resource, key, vals[0]))
                if c is None:
                    return []
                if best is None or len(c) < len(best):
                    best = c
        if best is None:
            return self.list(group, resource, ns)
        objs = self.data.get((group, resource), {})
        return [objs[k] for k in sorted(best) if ns is None or k[0] == ns]

    def _index_labels(self, group, resource, key, old, new):
        ol = (old["metadata"].get("labels") or {}) if old is not None else {}
        nl = (new["metadata"].get("labels") or {}) if new is not None else {}
        if ol == nl:
            return
        for k, v in ol.items():
            if nl.get(k) != v:
                ik = (group, resource, k, v)
                names = self.by_label.get(ik)
                if names is not None:
                    names.pop(key, None)
                    if not names:
                        del self.by_label[ik]
        for k, v in nl.items():
            if ol.get(k) != v:
                self.by_label.setdefault((group, resource, k, v), {})[key] = None

    def list_at(self, group, resource, ns, rv):
        """Objects of group/resource as they were at resourceVersion rv (from the
        watch history, undone newest first); 410 if history no longer reaches rv."""
        if rv >= self.rv:
            return self.list(group, resource, ns)
        if rv < self.compacted:
            raise gone("The resourceVersion for the provided list is too old.")
        cur = dict(self.data.get((group, resource), {}))
        for ev in reversed(self.events_after(rv)):
            if ev.group != group or ev.resource != resource:
                continue
            key = (ev.ns, ev.obj["metadata"]["name"])
            if ev.type == "ADDED":
                cur.pop(key, None)
            elif ev.old is not None:
                cur[key] = ev.old
        return [cur[k] for k in sorted(cur) if ns is None or k[0] == ns]

    def ns_version(self, group, resource, ns):
        """A value that changes whenever an object of group/resource in ns is
        written or removed (the simulated controllers skip work on it)."""
        return self.ns_writes.get((group, resource, ns or ""), 0)

    def all_items(self):
        for (g, r), objs in self.data.items():
            for (ns, name), obj in list(objs.items()):
                yield g, r, ns, name, obj

    def items_in_ns(self, ns):
        """all_items() of one namespace, in the same order."""
        for (g, r), by_ns in self.by_ns.items():
            for name, obj in list((by_ns.get(ns) or {}).items()):
                yield g, r, ns, name, obj

    # ---- writes (caller holds self.lock) ---------------------------------------
    def next_rv(self):
        self.rv += 1
        return self.rv

    def put(self, group, resource, obj, event_type):
        """Store obj (a fresh dict owned by the store) with a new resourceVersion."""
        md = obj["metadata"]
        ns = md.get("namespace", "")
        key = (ns, md["name"])
        gr = (group, resource)
        old = self.data.get(gr, {}).get(key)
        rv = self.next_rv()
        md["resourceVersion"] = str(rv)
        self.data.setdefault(gr, {})[key] = obj
        self.by_ns.setdefault(gr, {}).setdefault(ns, {})[key[1]] = obj
        self._count(group, resource, ns)
        if old is None:
            self._keys_changed(group, resource, ns)
        self._index_labels(group, resource, key, old, obj)
        self._record(Event(rv, group, resource, ns, event_type, obj, old))
        if self.listener is not None:
            self.listener(group, resource, ns, key[1], old, obj)
        return obj

    def remove(self, group, resource, ns, name):
        objs = self.data.get((group, resource), {})
        old = objs.pop((ns or "", name), None)
        if old is None:
            return None
        names = self.by_ns[(group, resource)][ns or ""]
        del names[name]
        if not names:
            del self.by_ns[(group, resource)][ns or ""]
        self._keys_changed(group, resource, ns or "")
        self._count(group, resource, ns or "")
        self._index_labels(group, resource, (ns or "", name), old, None)
        rv = self.next_rv()
        final = dcopy(old)
        final["metadata"]["resourceVersion"] = str(rv)
        self._record(Event(rv, group, resource, ns or "", "DELETED", final, old))
        if self.listener is not None:
            self.listener(group, resource, ns or "", name, old, None)
        return final

    def _count(self, group, resource, ns):
        k = (group, resource, ns)
        self.ns_writes[k] = self.ns_writes.get(k, 0) + 1

    def _keys_changed(self, group, resource, ns):
        self.order.pop((group, resource), None)
        self.order.pop((group, resource, ns), None)

    def drop_resource(self, group, resource):
        self.data.pop((group, resource), None)
        for k in [k for k in self.by_label if k[:2] == (group, resource)]:
            del self.by_label[k]
        for ns in self.by_ns.pop((group, resource), {}):
            self.order.pop((group, resource, ns), None)
            self._count(group, resource, ns)
        self.order.pop((group, resource), None)

    def watch_waiter(self, group, resource, ns=None, name=None):
        """What a watch of group/resource waits on (Waiter.cond, on self.lock):
        woken by the writes that may concern it only — of that resource, in
        ns (None: any namespace), of the object called name (None: any) —
        and by close_watches(). Caller holds self.lock; drop_waiter() when done."""
        w = Waiter(threading.Condition(self.lock), ns, name)
        self.waiters.setdefault((group, resource), {})[w] = None
        return w

    def drop_waiter(self, group, resource, w):
        ws = self.waiters.get((group, resource))
        if ws is not None:
            ws.pop(w, None)
            if not ws:
                del self.waiters[(group, resource)]

    def _wake_all(self):
        for ws in self.waiters.values():
            for w in ws:
                w.cond.notify()

    def _record(self, ev):
        self.events.append(ev)
        self.event_rvs.append(ev.rv)
        lst = self.res_events.setdefault((ev.group, ev.resource), [])
        lst.append(ev)
        self._trim()
        if lst[0].rv <= self.compacted:  # each resource's list holds no more than the history
            del lst[:bisect.bisect_right(lst, self.compacted, key=_rv)]
        ws = self.waiters.get((ev.group, ev.resource))
        if ws:
            ns, name = ev.ns, ev.obj["metadata"]["name"]
            for w in ws:
                if (w.ns is None or w.ns == ns) and (w.name is None or w.name == name):
                    w.cond.notify()

    def _trim(self):
        cut = 0
        n = len(self.events)
        if n > self.history_events:
            cut = n - self.history_events
        limit = time.monotonic() - self.history_seconds
        while cut < n and self.events[cut].at < limit:
            cut += 1
        if cut:
            self.compacted = self.events[cut - 1].rv
            del self.events[:cut]
            del self.event_rvs[:cut]

    def compact(self):
        """Forget all history (admin: makes every older resourceVersion answer 410)."""
        with self.lock:
            self.compacted = self.rv
            self.events = []
            self.event_rvs = []
            self.res_events = {}

    def events_after(self, rv):
        """Events with resourceVersion > rv; raises 410 if rv is too old."""
        self._trim()
        if rv < self.compacted:
            raise gone("too old resource version: %d (%d)" % (rv, self.compacted + 1))
        i = bisect.bisect_right(self.event_rvs, rv)
        return self.events[i:]

    def events_for(self, group, resource, rv):
        """events_after(rv) of group/resource only (a watch reads these: not
        every write of every resource); raises 410 as events_after does."""
        self.events_after(rv)  # trims, and 410 when rv is too old
        lst = self.res_events.get((group, resource))
        if not lst:
            return []
        return lst[bisect.bisect_right(lst, max(rv, self.compacted), key=_rv):]

    def close_watches(self):
        with self.lock:
            self.watch_epoch += 1
            self._wake_all()

    def wipe(self):
        with self.lock:
            self.data = {}
            for k in self.ns_writes:  # every namespace's objects are gone
                self.ns_writes[k] += 1
            self.by_ns = {}
            self.by_label = {}
            self.order = {}
            self.compacted = self.rv
            self.events = []
            self.event_rvs = []
            self.res_events = {}
            self.watch_epoch += 1
            self._wake_all()
