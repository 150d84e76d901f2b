"""Fault injection rules and the request log (admin endpoints /_kubesim/...)."""
import json
import re
import threading
import time


class Fault:
    """One rule. Matches on method, path regex, verb, resource, name, namespace, user.
    Actions: latency (ms, then continue), status (429/500/503 ... with optional
    retryAfter), closeWatch (end matching watches after `afterMs`), conflict (409 on
    the next update/patch of the object), hang (sleep `ms`, default forever, no answer)."""

    def __init__(self, spec, fid):
        self.id = fid
        self.spec = spec
        self.count = int(spec.get("count", 1))  # -1 = unlimited
        self.action = spec.get("action", "")
        m = spec.get("match") or {}
        self.method = m.get("method")
        self.path = re.compile(m["path"]) if m.get("path") else None
        self.verb = m.get("verb")
        self.resource = m.get("resource")
        self.name = m.get("name")
        self.namespace = m.get("namespace")
        self.user = m.get("user")
        self.as_user = m.get("as")
        self.hits = 0
        for k, typ in (("code", int), ("retryAfter", int), ("ms", float), ("afterMs", float)):
            if k in spec:
                typ(spec[k])  # ValueError/TypeError for a malformed rule

    def matches(self, req):
        if self.count == 0:
            return False
        if self.method and self.method.upper() != req["method"]:
            return False
        if self.path and not self.path.search(req["path"]):
            return False
        if self.verb and self.verb != req.get("verb"):
            return False
        if self.resource and self.resource != req.get("resource"):
            return False
        if self.name and self.name != req.get("name"):
            return False
        if self.namespace and self.namespace != req.get("namespace"):
            return False
        if self.user and self.user != req.get("user"):
            return False
        if self.as_user and self.as_user != req.get("impersonatedUser"):
            return False
        return True

    def to_json(self):
        d = dict(self.spec)
        d["id"] = self.id
        d["remaining"] = self.count
        d["hits"] = self.hits
        return d


class Admin:
    MAX_LOG = 200000  # entries kept in memory (the file keeps all)

    def __init__(self, log_path=None):
        self.lock = threading.Lock()
        self.faults = []
        self.next_id = 1
        self.log = []
        self.seq = 0
        self.log_path = log_path
        self.log_file = open(log_path, "a", buffering=1) if log_path else None

    def add_fault(self, spec):
        if spec.get("action") not in ("latency", "status", "closeWatch", "conflict", "hang"):
            raise ValueError("action must be one of latency, status, closeWatch, conflict, hang")
        try:
            f = Fault(spec, 0)
        except (re.error, TypeError, ValueError) as e:
            raise ValueError("bad fault rule: %s" % e)
        with self.lock:
            f.id = self.next_id
            self.next_id += 1
            self.faults.append(f)
            return f

    def clear_faults(self):
        with self.lock:
            self.faults = []

    def take(self, req, actions):
        """Consume and return the first matching fault whose action is in actions."""
        if not self.faults:  # no rule at all (most runs): no lock taken
            return None
        with self.lock:
            for f in self.faults:
                if f.action in actions and f.matches(req):
                    if f.count > 0:
                        f.count -= 1
                    f.hits += 1
                    return f
        return None

    def next_seq(self):
        """Arrival order of requests (the log itself is in completion order)."""
        with self.lock:
            self.seq += 1
            return self.seq

    def record(self, entry):
        entry["time"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with self.lock:
            self.log.append(entry)
            if len(self.log) > self.MAX_LOG:
                del self.log[:len(self.log) - self.MAX_LOG]
            if self.log_file:
                self.log_file.write(json.dumps(entry, separators=(",", ":")) + "\n")

    def log_lines(self):
        with self.lock:
            return "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in self.log)

    def clear_log(self):
        with self.lock:
            self.log = []
