"""meta.k8s.io/v1 Table responses (what `kubectl get` asks for), with the
columns kube-apiserver prints for common kinds and CRD additionalPrinterColumns."""
import json
import re
import time

from .util import get_path, parse_time


def human_duration(secs):
    s = int(secs)
    if s < -1:
        return "<invalid>"
    if s < 0:
        return "0s"
    if s < 120:
        return "%ds" % s
    m = s // 60
    if m < 10:
        return "%dm" % m if s % 60 == 0 else "%dm%ds" % (m, s % 60)
    if m < 180:
        return "%dm" % m
    h = s // 3600
    if h < 8:
        return "%dh" % h if m % 60 == 0 else "%dh%dm" % (h, m % 60)
    if h < 48:
        return "%dh" % h
    if h < 24 * 8:
        return "%dd" % (h // 24) if h % 24 == 0 else "%dd%dh" % (h // 24, h % 24)
    if h < 24 * 365 * 2:
        return "%dd" % (h // 24)
    if h < 24 * 365 * 8:
        dy = (h // 24) % 365
        return "%dy" % (h // 24 // 365) if dy == 0 else "%dy%dd" % (h // 24 // 365, dy)
    return "%dy" % (h // 24 // 365)


def age(obj):
    ts = get_path(obj, "metadata", "creationTimestamp")
    if not ts:
        return "<unknown>"
    return human_duration(time.time() - parse_time(ts))


def _col(name, typ="string", fmt="", desc="", prio=0):
    return {"name": name, "type": typ, "format": fmt, "description": desc, "priority": prio}


def _ports(svc):
    out = []
    for p in get_path(svc, "spec", "ports") or []:
        s = str(p.get("port"))
        if p.get("nodePort"):
            s += ":%d" % p["nodePort"]
        out.append("%s/%s" % (s, p.get("protocol", "TCP")))
    return ",".join(out) or "<none>"


def _pod_ready(p):
    cs = get_path(p, "status", "containerStatuses") or []
    total = len(get_path(p, "spec", "containers") or [])
    return "%d/%d" % (sum(1 for c in cs if c.get("ready")), total)


def _pod_status(p):
    if get_path(p, "metadata", "deletionTimestamp"):
        return "Terminating"
    phase = get_path(p, "status", "phase") or "Pending"
    for c in get_path(p, "status", "containerStatuses") or []:
        w = (c.get("state") or {}).get("waiting")
        if w and w.get("reason"):
            return w["reason"]
        t = (c.get("state") or {}).get("terminated")
        if t and t.get("reason") and phase != "Running":
            return t["reason"]
    return phase


def _endpoints(ep):
    out = []
    for sub in ep.get("subsets") or []:
        for a in sub.get("addresses") or []:
            for p in sub.get("ports") or [{}]:
                out.append("%s:%s" % (a.get("ip"), p.get("port")) if p else a.get("ip"))
    if len(out) > 3:
        return ",".join(out[:3]) + " + %d more..." % (len(out) - 3)
    return ",".join(out) or "<none>"


def _lb(svc):
    t = get_path(svc, "spec", "type")
    ing = get_path(svc, "status", "loadBalancer", "ingress") or []
    if t == "LoadBalancer":
        return ",".join(i.get("ip") or i.get("hostname", "") for i in ing) or "<pending>"
    return ",".join(get_path(svc, "spec", "externalIPs") or []) or "<none>"


BUILTIN_COLS = {
    ("", "pods"): ([_col("Name", fmt="name"), _col("Ready"), _col("Status"), _col("Restarts", "string"),
                    _col("Age")],
                   lambda o: [_pod_ready(o), _pod_status(o), str(sum(c.get("restartCount", 0) for c in
                              get_path(o, "status", "containerStatuses") or [])), age(o)]),
    ("", "services"): ([_col("Name", fmt="name"), _col("Type"), _col("Cluster-IP"), _col("External-IP"),
                        _col("Port(s)"), _col("Age")],
                       lambda o: [get_path(o, "spec", "type") or "ClusterIP",
                                  get_path(o, "spec", "clusterIP") or "<none>", _lb(o), _ports(o), age(o)]),
    ("", "configmaps"): ([_col("Name", fmt="name"), _col("Data", "integer"), _col("Age")],
                         lambda o: [len(o.get("data") or {}) + len(o.get("binaryData") or {}), age(o)]),
    ("", "secrets"): ([_col("Name", fmt="name"), _col("Type"), _col("Data", "integer"), _col("Age")],
                      lambda o: [o.get("type", "Opaque"), len(o.get("data") or {}), age(o)]),
    ("", "namespaces"): ([_col("Name", fmt="name"), _col("Status"), _col("Age")],
                         lambda o: [get_path(o, "status", "phase") or "Active", age(o)]),
    ("", "serviceaccounts"): ([_col("Name", fmt="name"), _col("Secrets", "integer"), _col("Age")],
                              lambda o: [len(o.get("secrets") or []), age(o)]),
    ("", "persistentvolumeclaims"): ([_col("Name", fmt="name"), _col("Status"), _col("Volume"),
                                      _col("Capacity"), _col("Access Modes"), _col("StorageClass"),
                                      _col("Age")],
                                     lambda o: [get_path(o, "status", "phase") or "Pending",
                                                get_path(o, "spec", "volumeName") or "",
                                                get_path(o, "status", "capacity", "storage") or "",
                                                ",".join(get_path(o, "status", "accessModes") or []),
                                                get_path(o, "spec", "storageClassName") or "<unset>",
                                                age(o)]),
    ("apps", "deployments"): ([_col("Name", fmt="name"), _col("Ready"), _col("Up-to-date", "integer"),
                               _col("Available", "integer"), _col("Age")],
                              lambda o: ["%d/%d" % (get_path(o, "status", "readyReplicas") or 0,
                                                    get_path(o, "spec", "replicas") or 0),
                                         get_path(o, "status", "updatedReplicas") or 0,
                                         get_path(o, "status", "availableReplicas") or 0, age(o)]),
    ("apps", "replicasets"): ([_col("Name", fmt="name"), _col("Desired", "integer"),
                               _col("Current", "integer"), _col("Ready", "integer"), _col("Age")],
                              lambda o: [get_path(o, "spec", "replicas") or 0,
                                         get_path(o, "status", "replicas") or 0,
                                         get_path(o, "status", "readyReplicas") or 0, age(o)]),
    ("apps", "statefulsets"): ([_col("Name", fmt="name"), _col("Ready"), _col("Age")],
                               lambda o: ["%d/%d" % (get_path(o, "status", "readyReplicas") or 0,
                                                     get_path(o, "spec", "replicas") or 0), age(o)]),
    ("apps", "daemonsets"): ([_col("Name", fmt="name"), _col("Desired", "integer"), _col("Current", "integer"),
                              _col("Ready", "integer"), _col("Up-to-date", "integer"), _col("Available", "integer"),
                              _col("Node Selector"), _col("Age")],
                             lambda o: [get_path(o, "status", "desiredNumberScheduled") or 0,
                                        get_path(o, "status", "currentNumberScheduled") or 0,
                                        get_path(o, "status", "numberReady") or 0,
                                        get_path(o, "status", "updatedNumberScheduled") or 0,
                                        get_path(o, "status", "numberAvailable") or 0,
                                        ",".join("%s=%s" % kv for kv in sorted((get_path(
                                            o, "spec", "template", "spec", "nodeSelector") or {}).items()))
                                        or "<none>", age(o)]),
    ("", "endpoints"): ([_col("Name", fmt="name"), _col("Endpoints"), _col("Age")],
                        lambda o: [_endpoints(o), age(o)]),
    ("", "nodes"): ([_col("Name", fmt="name"), _col("Status"), _col("Roles"), _col("Age"), _col("Version")],
                    lambda o: ["Ready", "<none>", age(o), "v1.35.0"]),
    ("", "persistentvolumes"): ([_col("Name", fmt="name"), _col("Capacity"), _col("Access Modes"),
                                 _col("Reclaim Policy"), _col("Status"), _col("Claim"), _col("StorageClass"),
                                 _col("Age")],
                                lambda o: [get_path(o, "spec", "capacity", "storage") or "",
                                           ",".join(get_path(o, "spec", "accessModes") or []),
                                           get_path(o, "spec", "persistentVolumeReclaimPolicy") or "",
                                           get_path(o, "status", "phase") or "Bound",
                                           "%s/%s" % (get_path(o, "spec", "claimRef", "namespace") or "",
                                                      get_path(o, "spec", "claimRef", "name") or ""),
                                           get_path(o, "spec", "storageClassName") or "", age(o)]),
    ("networking.k8s.io", "ingresses"): ([_col("Name", fmt="name"), _col("Class"), _col("Hosts"), _col("Address"),
                                          _col("Ports"), _col("Age")],
                                         lambda o: [get_path(o, "spec", "ingressClassName") or "<none>",
                                                    ",".join(r.get("host", "*") for r in get_path(o, "spec", "rules")
                                                             or []) or "*",
                                                    ",".join(i.get("ip", "") for i in get_path(
                                                        o, "status", "loadBalancer", "ingress") or []),
                                                    "80, 443" if get_path(o, "spec", "tls") else "80", age(o)]),
    ("batch", "cronjobs"): ([_col("Name", fmt="name"), _col("Schedule"), _col("Timezone"), _col("Suspend"),
                             _col("Active", "integer"), _col("Last Schedule"), _col("Age")],
                            lambda o: [get_path(o, "spec", "schedule") or "", get_path(o, "spec", "timeZone") or
                                       "<none>", str(bool(get_path(o, "spec", "suspend"))),
                                       len(get_path(o, "status", "active") or []), "<none>", age(o)]),
    ("batch", "jobs"): ([_col("Name", fmt="name"), _col("Status"), _col("Completions"), _col("Duration"),
                         _col("Age")],
                        lambda o: [_job_status(o), "%d/%d" % (get_path(o, "status", "succeeded") or 0,
                                                              get_path(o, "spec", "completions") or 1),
                                   _job_duration(o), age(o)]),
}


def _job_status(o):
    for c in get_path(o, "status", "conditions") or []:
        if c.get("type") in ("Complete", "Failed") and c.get("status") == "True":
            return c["type"]
    return "Running"


def _job_duration(o):
    st = get_path(o, "status", "startTime")
    if not st:
        return ""
    end = get_path(o, "status", "completionTime")
    e = parse_time(end) if end else time.time()
    return human_duration(e - parse_time(st))


def jsonpath(obj, path):
    """The small JSONPath subset used in additionalPrinterColumns."""
    cur = [obj]
    for tok in re.findall(r"\.([A-Za-z0-9_\-]+)|\[\?\(@\.([A-Za-z0-9_\-.]+)==[\"']([^\"']*)[\"']\)\]|\[(\d+)\]",
                          path):
        field, fkey, fval, idx = tok
        nxt = []
        for c in cur:
            if field:
                if isinstance(c, dict) and field in c:
                    nxt.append(c[field])
            elif fkey:
                if isinstance(c, list):
                    nxt.extend(i for i in c if isinstance(i, dict) and str(get_path(i, *fkey.split("."))) == fval)
            elif idx:
                if isinstance(c, list) and int(idx) < len(c):
                    nxt.append(c[int(idx)])
        cur = nxt
    if not cur:
        return None
    v = cur[0]
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    return v


def _partial(obj, include):
    if include == "None":
        return None
    if include == "Object":
        return obj
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj.get("metadata")}


def columns_for(res):
    if (res.group, res.resource) in BUILTIN_COLS:
        cols, fn = BUILTIN_COLS[(res.group, res.resource)]
        return cols, fn
    pcs = getattr(res, "printer_columns", None)
    if res.crd is not None and pcs:
        cols = [_col("Name", fmt="name")]
        for pc in pcs:
            cols.append(_col(pc.get("name", ""), pc.get("type", "string"), pc.get("format", ""),
                             pc.get("description", ""), pc.get("priority", 0)))
        has_age = any(pc.get("jsonPath") == ".metadata.creationTimestamp" for pc in pcs)
        if not has_age:
            cols.append(_col("Age", "date"))

        def fn(o):
            row = []
            for pc in pcs:
                v = jsonpath(o, pc.get("jsonPath", ""))
                if pc.get("type") == "date" and v:
                    v = human_duration(time.time() - parse_time(v))
                row.append(v)
            if not has_age:
                row.append(age(o))
            return row
        for c in cols:
            if c["type"] == "date":
                c["type"] = "string"
        return cols, fn
    return [_col("Name", fmt="name"), _col("Age")], lambda o: [age(o)]


def _since(ts):
    return human_duration(time.time() - parse_time(ts)) if ts else "<unknown>"


EVENT_COLS = [_col("Last Seen"), _col("Type"), _col("Reason"), _col("Object"), _col("Subobject", prio=1),
              _col("Source", prio=1), _col("Message"), _col("First Seen", prio=1), _col("Count", "integer", prio=1),
              _col("Name", fmt="name", prio=1)]


def _event_row(o):
    io = o.get("involvedObject") or o.get("regarding") or {}
    src = o.get("source") or {}
    last = o.get("lastTimestamp") or o.get("eventTime") or get_path(o, "metadata", "creationTimestamp")
    first = o.get("firstTimestamp") or o.get("eventTime") or last
    return [_since(last), o.get("type", ""), o.get("reason", ""),
            "%s/%s" % (str(io.get("kind", "")).lower(), io.get("name", "")), io.get("fieldPath", ""),
            ", ".join(x for x in (src.get("component") or o.get("reportingComponent") or
                                  o.get("reportingController"), src.get("host")) if x),
            o.get("message") or o.get("note") or "", _since(first), o.get("count", 1), o["metadata"]["name"]]


def to_table(res, objs, list_meta, include="Metadata"):
    rows = []
    if res.resource == "events":
        for o in objs:
            rows.append({"cells": _event_row(o), "object": _partial(o, include)})
        return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": list_meta or {},
                "columnDefinitions": EVENT_COLS, "rows": rows}
    cols, fn = columns_for(res)
    for o in objs:
        rows.append({"cells": [o["metadata"]["name"]] + fn(o), "object": _partial(o, include)})
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": list_meta or {},
            "columnDefinitions": cols, "rows": rows}
