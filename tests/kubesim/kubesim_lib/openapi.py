"""A small OpenAPI v3 document set: the root index and one document per
group-version listing every resource path with its operations and the
query parameters kube-apiserver accepts (clients use this to detect
server-side field validation and dry-run support). CRD schemas are included
so clients can resolve custom kinds; built-in schemas are not (kubectl then
uses its compiled-in types). /openapi/v2 is answered 404 (its protobuf form is
what kubectl would ask for), which kubectl and helm tolerate."""
import hashlib
import json

PARAMS = ["dryRun", "fieldManager", "fieldValidation", "force", "pretty"]


def _params(names):
    return [{"name": n, "in": "query", "schema": {"type": "string" if n != "force" else "boolean"},
             "uniqueItems": True} for n in names]


def _gv_key(group, version):
    return "api/" + version if group == "" else "apis/%s/%s" % (group, version)


def gv_document(reg, group, version):
    rs = [r for r in reg.all() if r.group == group and r.version == version]
    if not rs:
        return None
    paths = {}
    schemas = {}
    prefix = "/" + _gv_key(group, version)
    for r in rs:
        gvk = [{"group": group, "version": version, "kind": r.kind}]
        ref = "%s.%s.%s" % ("io.k8s.kubesim" if r.crd is None else ".".join(reversed(group.split("."))),
                            version, r.kind)
        if r.crd is not None:
            sch = dict(r.version_schema or {"type": "object", "x-kubernetes-preserve-unknown-fields": True})
            sch["x-kubernetes-group-version-kind"] = gvk
            schemas[ref] = sch
        base = prefix + ("/namespaces/{namespace}" if r.namespaced else "") + "/" + r.resource
        body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/" + ref}}}} \
            if r.crd is not None else {}
        paths[base] = {
            "get": {"operationId": "list" + r.kind, "parameters": _params(["pretty"]),
                    "x-kubernetes-action": "list", "x-kubernetes-group-version-kind": gvk[0]},
            "post": {"operationId": "create" + r.kind, "parameters": _params(PARAMS[:3] + ["pretty"]),
                     "requestBody": body, "x-kubernetes-action": "post",
                     "x-kubernetes-group-version-kind": gvk[0]},
        }
        paths[base + "/{name}"] = {
            "get": {"operationId": "read" + r.kind, "x-kubernetes-action": "get",
                    "x-kubernetes-group-version-kind": gvk[0]},
            "put": {"operationId": "replace" + r.kind, "parameters": _params(PARAMS[:3] + ["pretty"]),
                    "requestBody": body, "x-kubernetes-action": "put",
                    "x-kubernetes-group-version-kind": gvk[0]},
            "patch": {"operationId": "patch" + r.kind, "parameters": _params(PARAMS),
                      "x-kubernetes-action": "patch", "x-kubernetes-group-version-kind": gvk[0]},
            "delete": {"operationId": "delete" + r.kind, "parameters": _params(["dryRun", "pretty"]),
                       "x-kubernetes-action": "delete", "x-kubernetes-group-version-kind": gvk[0]},
        }
    return {"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": "v1.35.0"},
            "paths": paths, "components": {"schemas": schemas}}


_cache = {"gen": None, "root": None, "reg": None}


def root(reg):
    if _cache["gen"] == reg.generation and _cache["reg"] is reg:
        return _cache["root"]
    gen = reg.generation
    paths = {}
    for g, vs in reg.groups():
        for v in vs:
            doc = gv_document(reg, g, v)
            h = hashlib.sha512(json.dumps(doc, sort_keys=True).encode()).hexdigest().upper()[:128]
            paths[_gv_key(g, v)] = {"serverRelativeURL": "/openapi/v3/%s?hash=%s" % (_gv_key(g, v), h)}
    _cache.update({"gen": gen, "root": {"paths": paths}, "reg": reg})
    return {"paths": paths}


def serve(reg, path):
    if path == "/openapi/v3":
        return root(reg)
    if path.startswith("/openapi/v3/"):
        rest = path[len("/openapi/v3/"):].split("/")
        if rest[0] == "api" and len(rest) == 2:
            return gv_document(reg, "", rest[1])
        if rest[0] == "apis" and len(rest) == 3:
            return gv_document(reg, rest[1], rest[2])
    return None
