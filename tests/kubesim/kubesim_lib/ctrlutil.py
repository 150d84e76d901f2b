"""Helpers shared by the simulated controllers."""
import hashlib
import json

from .util import dcopy, get_path, semantic

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
