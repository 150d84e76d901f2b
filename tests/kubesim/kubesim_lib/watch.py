"""Watch streams (chunked JSON events): replay from the watch cache, selector
transitions, bookmarks, initial events, 410 for expired resourceVersions
(mixed into the HTTP handler)."""
import time
import urllib.parse

from .selectors import (check_field_selector, fields_match, labels_match, parse_field_selector,
                        parse_label_selector)
from .tables import to_table
from .util import ApiError, bad_request, dumps, int_param, invalid


class WatchHandlers:
    # ---- watch ---------------------------------------------------------------------------------------
    def _watch(self, ri, res, q):
        sim = self.sim
        store = sim.store
        ns = ri.namespace if res.namespaced else None
        lsel = parse_label_selector(q.get("labelSelector", ""))
        fsel = parse_field_selector(q.get("fieldSelector", ""))
        check_field_selector(res, fsel)
        if ri.name:
            fsel.append(("metadata.name", "=", ri.name))
        timeout = float(int_param(q.get("timeoutSeconds"), "timeoutSeconds", 1800))
        bookmarks = q.get("allowWatchBookmarks") in ("true", "1")
        initial = q.get("sendInitialEvents") in ("true", "1")
        if "sendInitialEvents" in q:
            causes = []
            if q.get("resourceVersionMatch") != "NotOlderThan":
                causes.append(("resourceVersionMatch", "Forbidden: sendInitialEvents requires setting "
                               "resourceVersionMatch to NotOlderThan", "FieldValueForbidden"))
            if not bookmarks:
                causes.append(("allowWatchBookmarks", "Forbidden: sendInitialEvents requires setting "
                               "allowWatchBookmarks to true", "FieldValueForbidden"))
            if causes:
                raise invalid("meta.k8s.io", "ListOptions", "", causes)
        rv_s = q.get("resourceVersion", "")
        table = self._wants_table()
        include = q.get("includeObject") or "Metadata"

        def match(o):
            if o is None:
                return False
            md = o["metadata"]
            if ns and md.get("namespace") != ns:
                return False
            return labels_match(lsel, md.get("labels")) and (not fsel or fields_match(fsel, o))

        def enc(typ, o):
            if o.get("kind") != "Status":  # called with the store lock held
                o = sim.api.out(res, o) if table else sim.api.view(res, o)
            if table and typ != "ERROR" and typ != "BOOKMARK":
                o = to_table(res, [o], {"resourceVersion": o["metadata"].get("resourceVersion", "")},
                             include)
            return (dumps({"type": typ, "object": o}) + "\n").encode()

        chunks = []
        one = ri.name or next((v for f, op, v in fsel if f == "metadata.name" and op in ("=", "==")), None)
        with store.lock:
            waiter = store.watch_waiter(res.group, res.resource, ns or None, one)
            self._watching(waiter)
        try:
            self._watch_stream(ri, res, store, waiter, chunks, initial, bookmarks, rv_s, ns, timeout, match, enc, table)
        finally:
            with store.lock:
                store.drop_waiter(res.group, res.resource, waiter)

    def _watch_stream(self, ri, res, store, waiter, chunks, initial, bookmarks, rv_s, ns, timeout, match, enc, table):
        sim = self.sim
        cond = waiter.cond
        with store.lock:
            epoch = store.watch_epoch
            if initial or rv_s in ("", "0"):
                if initial or rv_s in ("", "0"):
                    for o in store.list(res.group, res.resource, ns):
                        if match(o):
                            chunks.append(enc("ADDED", o))
                last = store.rv
                if initial and bookmarks:
                    chunks.append((dumps({"type": "BOOKMARK", "object": {
                        "kind": res.kind, "apiVersion": res.api_version, "metadata": {
                            "resourceVersion": str(last), "annotations": {
                                "k8s.io/initial-events-end": "true"}}}}) + "\n").encode())
            else:
                try:
                    last = int(rv_s)
                except ValueError:
                    raise bad_request("invalid resource version: %s" % rv_s)
                try:
                    store.events_after(last)
                except ApiError as e:
                    self._start_stream()
                    self._chunk(enc("ERROR", e.status()))
                    self._chunk(b"")
                    return
        self._start_stream()
        for c in chunks:
            self._chunk(c)
        deadline = time.monotonic() + timeout
        next_bm = time.monotonic() + sim.opts.bookmark_interval
        close_fault = sim.admin.take({"method": "GET", "path": self._path_only(), "verb": "watch",
                                      "resource": ri.resource, "namespace": ri.namespace,
                                      "name": ri.name, "user": ""}, ("closeWatch",))
        if close_fault:
            deadline = min(deadline, time.monotonic() + float(close_fault.spec.get("afterMs", 0)) / 1000.0)
        while not sim.opts.stopping and not self._stream_gone():
            out = []
            with store.lock:
                try:
                    evs = store.events_for(res.group, res.resource, last)
                except ApiError as e:
                    out.append(enc("ERROR", e.status()))
                    evs = None
                if evs is not None:
                    for ev in evs:
                        last = ev.rv
                        if ev.group != res.group or ev.resource != res.resource:
                            continue
                        new_m = match(ev.obj) if ev.type != "DELETED" else False
                        old_m = match(ev.old)
                        if ev.type == "DELETED":
                            typ = "DELETED" if old_m else None
                        elif new_m:
                            typ = "MODIFIED" if old_m else "ADDED"
                        else:
                            typ = "DELETED" if old_m else None
                        if typ is None:
                            continue
                        if table:
                            out.append(enc(typ, ev.obj))
                            continue
                        # serialized once for every watch of the resource served as res is
                        k = (typ, res.api_version, res.kind)
                        cache = ev.enc
                        if cache is None:
                            cache = ev.enc = {}
                        b = cache.get(k)
                        if b is None:
                            b = cache[k] = enc(typ, ev.obj)
                        out.append(b)
                    last = max(last, store.rv)  # every event of this resource up to now is handled
                    if not out:
                        now = time.monotonic()
                        if bookmarks and now >= next_bm:
                            next_bm = now + sim.opts.bookmark_interval
                            out.append((dumps({"type": "BOOKMARK", "object": {
                                "kind": res.kind, "apiVersion": res.api_version,
                                "metadata": {"resourceVersion": str(store.rv)}}}) + "\n").encode())
                            last = max(last, store.rv)
                        else:
                            if store.watch_epoch != epoch or now >= deadline:
                                break
                            # woken by a write that may concern this watch (its resource, its
                            # namespace, its object); at least every 0.5 s to follow the
                            # history (the other writes) and see stopping
                            t = min(0.5, deadline - now, next_bm - now if bookmarks else 0.5)
                            cond.wait(max(0.01, t))
                            continue
            if out:  # the events of one look in one write
                self._chunks(out)
            if evs is None:
                break
            if time.monotonic() >= deadline:
                break
            with store.lock:
                if store.watch_epoch != epoch:
                    break
        self._chunk(b"")
        self.close_connection = True

    def _path_only(self):
        return urllib.parse.urlsplit(self.path).path

    def _start_stream(self):
        """Start the chunked response; the request log records a watch when it starts."""
        self._entry["status"] = 200
        self._entry["ms"] = 0
        self.sim.admin.record(self._entry)
        self._logged = True
        self._start_stream_head()
        self._status = 200
