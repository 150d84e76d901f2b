"""Label selectors (query string form and metav1.LabelSelector) and field selectors."""
import re

from .util import bad_request, get_path

_REQ = re.compile(r"^\s*(!?)\s*([A-Za-z0-9_./-]+)\s*(?:(==|=|!=|\s+in\s+|\s+notin\s+)\s*(.*?))?\s*$")


def _split_top(s):
    """Split at commas outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


def parse_label_selector(s):
    """Returns a list of (key, op, values); op in = != in notin exists !exists."""
    reqs = []
    if not s:
        return reqs
    for part in _split_top(s):
        m = _REQ.match(part)
        if not m:
            raise bad_request('unable to parse requirement: found \'%s\', expected: identifier' % part.strip())
        neg, key, op, val = m.group(1), m.group(2), (m.group(3) or "").strip(), m.group(4)
        if not op:
            reqs.append((key, "!exists" if neg else "exists", []))
            continue
        if neg:
            raise bad_request("unable to parse requirement: '!' only allowed before a key")
        if op in ("in", "notin"):
            val = val.strip()
            if not (val.startswith("(") and val.endswith(")")):
                raise bad_request("unable to parse requirement: found '%s', expected: '('" % val)
            vals = [v.strip() for v in val[1:-1].split(",") if v.strip()]
            reqs.append((key, op, vals))
        else:
            reqs.append((key, "!=" if op == "!=" else "=", [val.strip()]))
    return reqs


def labels_match(reqs, labels):
    labels = labels or {}
    for key, op, vals in reqs:
        has = key in labels
        v = labels.get(key)
        if op == "=" and (not has or v != vals[0]):
            return False
        if op == "!=" and has and v == vals[0]:
            return False
        if op == "in" and (not has or v not in vals):
            return False
        if op == "notin" and has and v in vals:
            return False
        if op == "exists" and not has:
            return False
        if op == "!exists" and has:
            return False
    return True


def selector_object_match(sel, labels):
    """metav1.LabelSelector; None matches nothing, {} matches everything."""
    if sel is None:
        return False
    labels = labels or {}
    for k, v in (sel.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for e in sel.get("matchExpressions") or []:
        k, op, vals = e.get("key"), e.get("operator"), e.get("values") or []
        if op == "In" and labels.get(k) not in vals:
            return False
        if op == "NotIn" and k in labels and labels[k] in vals:
            return False
        if op == "Exists" and k not in labels:
            return False
        if op == "DoesNotExist" and k in labels:
            return False
    return True


def parse_field_selector(s):
    reqs = []
    if not s:
        return reqs
    for part in s.split(","):
        part = part.strip()
        if not part:
            continue
        if "!=" in part:
            k, v = part.split("!=", 1)
            reqs.append((k.strip(), "!=", v.strip()))
        elif "==" in part:
            k, v = part.split("==", 1)
            reqs.append((k.strip(), "=", v.strip()))
        elif "=" in part:
            k, v = part.split("=", 1)
            reqs.append((k.strip(), "=", v.strip()))
        else:
            raise bad_request('invalid selector: \'%s\'; can\'t understand \'%s\'' % (s, part))
    return reqs


def fields_match(reqs, obj):
    for path, op, want in reqs:
        v = get_path(obj, *path.split("."))
        if v is None:
            v = ""
        if isinstance(v, bool):
            v = "true" if v else "false"
        v = str(v)
        if op == "=" and v != want:
            return False
        if op == "!=" and v == want:
            return False
    return True


# Field selectors kube-apiserver supports per kind (besides metadata.name/namespace).
FIELD_LABELS = {
    ("", "pods"): {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
                   "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName"},
    ("", "events"): {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
                     "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
                     "reason", "reportingComponent", "source", "type"},
    ("events.k8s.io", "events"): {"regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid",
                                  "regarding.apiVersion", "regarding.resourceVersion", "regarding.fieldPath",
                                  "reason", "reportingController", "type"},
    ("", "secrets"): {"type"},
    ("", "namespaces"): {"status.phase"},
    ("", "nodes"): {"spec.unschedulable"},
    ("", "services"): {"spec.clusterIP", "spec.type"},
    ("", "replicationcontrollers"): {"status.replicas"},
    ("apps", "replicasets"): {"status.replicas"},
    ("batch", "jobs"): {"status.successful"},
    ("certificates.k8s.io", "certificatesigningrequests"): {"spec.signerName"},
}


def check_field_selector(res, reqs):
    """400 for field selectors the apiserver would not support on this kind."""
    allowed = {"metadata.name", "metadata.namespace"} | FIELD_LABELS.get((res.group, res.resource), set())
    if res.crd is not None:
        for v in (res.crd.get("spec") or {}).get("versions") or []:
            if v.get("name") == res.version:
                for f in v.get("selectableFields") or []:
                    allowed.add(f.get("jsonPath", "").lstrip("."))
    for path, _, _ in reqs:
        if path not in allowed:
            raise bad_request('field label not supported: %s' % path)
