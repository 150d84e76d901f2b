"""Request handlers for subresources and review kinds: scale, TokenRequest,
SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview,
SelfSubjectRulesReview, SelfSubjectReview, TokenReview (mixed into the HTTP handler)."""
import json
import time

from .rbac import Attrs, User, rules_review
from .util import ApiError, bad_request, int_param, not_found, now_rfc3339


def _get_path(obj, path):
    cur = obj
    for p in path.lstrip(".").split("."):
        if not isinstance(cur, dict):
            return None
        cur = cur.get(p)
    return cur


def _set_path(obj, path, value):
    parts = path.lstrip(".").split(".")
    cur = obj
    for p in parts[:-1]:
        cur = cur.setdefault(p, {})
    cur[parts[-1]] = value


class SubresourceHandlers:
    # ---- subresources --------------------------------------------------------------------------------
    @staticmethod
    def _scale_paths(res):
        """(spec replicas, status replicas, label selector) paths; CRDs declare theirs."""
        if res.crd is not None:
            for v in (res.crd.get("spec") or {}).get("versions") or []:
                if v.get("name") == res.version:
                    sc = (v.get("subresources") or {}).get("scale") or {}
                    return (sc.get("specReplicasPath", ".spec.replicas"), sc.get("statusReplicasPath",
                            ".status.replicas"), sc.get("labelSelectorPath"))
        return ".spec.replicas", ".status.replicas", None

    def _scale(self, ri, res, ns, q):
        api = self.sim.api
        with self.sim.store.lock:
            obj = api.get(res, ns, ri.name)
            if ri.verb in ("update", "patch"):
                cur = self._scale_obj(res, obj)
                if ri.verb == "update":
                    new = self._json_body()
                else:
                    from .patch import json_patch, merge_patch, strategic_merge
                    try:
                        body = json.loads(self._body() or b"{}")
                    except ValueError as e:
                        raise bad_request("error decoding patch: %s" % e)
                    ct = self.headers.get("Content-Type", "")
                    new = json_patch(cur, body) if "json-patch" in ct else (
                        strategic_merge(cur, body) if "strategic" in ct else merge_patch(cur, body))
                reps = (new.get("spec") or {}).get("replicas") if isinstance(new, dict) else None
                if reps is not None:
                    if isinstance(reps, bool) or not isinstance(reps, int) or reps < 0:
                        raise ApiError(422, "Invalid", 'Scale.autoscaling "%s" is invalid: spec.replicas: Invalid '
                                       "value: %s: must be greater than or equal to 0" % (ri.name, reps))
                    _set_path(obj, self._scale_paths(res)[0], reps)
                    obj = api.update(res, ns, ri.name, obj, self._manager(q), None, self._dry(q))
            return self._send(200, self._scale_obj(res, obj))

    def _scale_obj(self, res, obj):
        spec_p, status_p, sel_p = self._scale_paths(res)
        if sel_p:
            sel_s = _get_path(obj, sel_p) or ""
        else:
            sel = (obj.get("spec") or {}).get("selector") or {}
            sel_s = ",".join("%s=%s" % kv for kv in sorted((sel.get("matchLabels") or {}).items()))
        md = obj["metadata"]
        return {"kind": "Scale", "apiVersion": "autoscaling/v1",
                "metadata": {"name": md["name"], "namespace": md.get("namespace"), "uid": md.get("uid"),
                             "resourceVersion": md.get("resourceVersion"),
                             "creationTimestamp": md.get("creationTimestamp")},
                "spec": {"replicas": _get_path(obj, spec_p) or 0},
                "status": {"replicas": _get_path(obj, status_p) or 0, "selector": sel_s}}

    def _token_request(self, ri, ns):
        body = self._json_body()
        spec = body.get("spec") or {}
        sim = self.sim
        with sim.store.lock:
            sa = sim.store.get("", "serviceaccounts", ns, ri.name)
            if sa is None:
                raise not_found("", "serviceaccounts", ri.name)
            bound = None
            ref = spec.get("boundObjectRef")
            if ref:
                r = {"Pod": "pods", "Secret": "secrets", "Node": "nodes"}.get(ref.get("kind"))
                o = sim.store.get("", r, "" if r == "nodes" else ns, ref.get("name", "")) if r else None
                if o is None:
                    raise not_found("", r or "objects", ref.get("name", ""))
                bound = (ref["kind"].lower(), ref["name"], o["metadata"]["uid"])
            secs = int_param(spec.get("expirationSeconds"), "spec.expirationSeconds", 3600)
            if secs < 600:
                raise ApiError(422, "Invalid", 'TokenRequest.authentication.k8s.io "%s" is invalid: '
                               "spec.expirationSeconds: Invalid value: %d: may not specify a duration less "
                               "than 10 minutes" % (ri.name, secs))
            tok, exp = sim.tokens.issue_sa(ns, ri.name, sa["metadata"]["uid"], spec.get("audiences"),
                                           secs, bound)
        out = {"kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1",
               "metadata": {"name": ri.name, "namespace": ns, "creationTimestamp": now_rfc3339()},
               "spec": {"audiences": spec.get("audiences") or [sim.tokens.ISSUER],
                        "expirationSeconds": secs, "boundObjectRef": spec.get("boundObjectRef")},
               "status": {"token": tok, "expirationTimestamp": time.strftime(
                   "%Y-%m-%dT%H:%M:%SZ", time.gmtime(exp))}}
        return self._send(201, out)

    def _review(self, user, ri):
        body = self._json_body()
        spec = body.get("spec") or {}
        authz = self.sim.authz
        out = {"kind": body.get("kind") or ri.res.kind, "apiVersion": ri.res.api_version,
               "metadata": {"creationTimestamp": None}, "spec": spec}
        r = ri.resource
        if r == "selfsubjectreviews":
            out["status"] = {"userInfo": user.to_json()}
            return self._send(201, out)
        if r == "tokenreviews":
            u = self.sim.tokens.authenticate(spec.get("token", ""), self.sim.store)
            out["status"] = {"authenticated": True, "user": u.to_json(),
                             "audiences": spec.get("audiences") or [self.sim.tokens.ISSUER]} if u else {
                "authenticated": False, "error": "invalid bearer token"}
            return self._send(201, out)
        if r == "selfsubjectrulesreviews":
            out["status"] = rules_review(authz, user, spec.get("namespace", ""))
            return self._send(201, out)
        who = user
        if r in ("subjectaccessreviews", "localsubjectaccessreviews"):
            who = User(spec.get("user", ""), spec.get("groups") or [], spec.get("uid", ""))
            if r == "localsubjectaccessreviews":
                ra = spec.get("resourceAttributes") or {}
                if ra.get("namespace") and ra["namespace"] != ri.namespace:
                    raise bad_request("spec.resourceAttributes.namespace must match metadata.namespace")
                spec.setdefault("resourceAttributes", {})["namespace"] = ri.namespace
                out["metadata"]["namespace"] = ri.namespace
        ra, nra = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
        if ra:
            a = Attrs(ra.get("verb", ""), ra.get("group", ""), ra.get("resource", ""),
                      ra.get("subresource", ""), ra.get("namespace", ""), ra.get("name", ""))
        elif nra:
            a = Attrs(nra.get("verb", ""), path=nra.get("path", ""), resource_request=False)
        else:
            raise ApiError(422, "Invalid", '%s.authorization.k8s.io "" is invalid: [spec.resourceAttributes: '
                           "Invalid value: \"null\": exactly one of nonResourceAttributes or "
                           "resourceAttributes must be specified, spec.nonResourceAttributes: Invalid value: "
                           "\"null\": exactly one of nonResourceAttributes or resourceAttributes must be "
                           "specified]" % ri.res.kind)
        ok = authz.allowed(who, a)
        out["status"] = {"allowed": ok}
        if ok:
            out["status"]["reason"] = 'RBAC: allowed by kubesim for User "%s"' % who.name
        return self._send(201, out)
