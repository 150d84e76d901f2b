"""Type checks of built-in objects where kube-apiserver's typed decoding would
fail (a string where an object or integer belongs...). Only the fields the
simulated controllers read are described; a mismatch answers 400 as the
apiserver does: `X in version "v1" cannot be handled as a X: json: cannot
unmarshal string into Go struct field ... of type ...`."""
from .util import bad_request

INT, STR, BOOL, OBJ = "int32", "string", "bool", "object"

CONTAINER = {"name": STR, "image": STR, "command": [STR], "args": [STR], "ports": [{"containerPort": INT,
             "protocol": STR, "name": STR}], "env": [{"name": STR, "value": STR}], "resources": OBJ}
POD_SPEC = {"containers": [CONTAINER], "initContainers": [CONTAINER], "restartPolicy": STR, "volumes": [OBJ],
            "nodeSelector": {"*": STR}, "serviceAccountName": STR, "nodeName": STR}
TEMPLATE = {"metadata": {"labels": {"*": STR}, "annotations": {"*": STR}}, "spec": POD_SPEC}
SELECTOR = {"matchLabels": {"*": STR}, "matchExpressions": [OBJ]}
WORKLOAD = {"replicas": INT, "selector": SELECTOR, "template": TEMPLATE, "paused": BOOL,
            "progressDeadlineSeconds": INT, "minReadySeconds": INT, "strategy": OBJ, "updateStrategy": OBJ,
            "volumeClaimTemplates": [{"metadata": {"name": STR}, "spec": OBJ}], "podManagementPolicy": STR}
SHAPES = {
    ("apps", "deployments"): {"spec": WORKLOAD, "status": OBJ},
    ("apps", "replicasets"): {"spec": WORKLOAD, "status": OBJ},
    ("apps", "statefulsets"): {"spec": WORKLOAD, "status": OBJ},
    ("apps", "daemonsets"): {"spec": WORKLOAD, "status": OBJ},
    ("batch", "jobs"): {"spec": {"parallelism": INT, "completions": INT, "backoffLimit": INT, "suspend": BOOL,
                                 "ttlSecondsAfterFinished": INT, "template": TEMPLATE, "selector": SELECTOR},
                        "status": OBJ},
    ("", "pods"): {"spec": POD_SPEC, "status": OBJ},
    ("", "services"): {"spec": {"type": STR, "clusterIP": STR, "selector": {"*": STR},
                                "ports": [{"port": INT, "nodePort": INT, "protocol": STR, "name": STR}]},
                       "status": OBJ},
    ("", "persistentvolumeclaims"): {"spec": {"accessModes": [STR], "resources": OBJ,
                                              "storageClassName": STR, "volumeName": STR}, "status": OBJ},
    ("", "secrets"): {"data": {"*": STR}, "stringData": {"*": STR}, "type": STR},
    ("", "configmaps"): {"data": {"*": STR}, "binaryData": {"*": STR}},
    ("", "namespaces"): {"spec": OBJ, "status": OBJ},
}
META = {"name": STR, "namespace": STR, "generateName": STR, "labels": {"*": STR}, "annotations": {"*": STR},
        "finalizers": [STR], "ownerReferences": [{"apiVersion": STR, "kind": STR, "name": STR, "uid": STR}],
        "resourceVersion": STR}


def _json_type(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def _check(v, shape, path):
    if v is None:
        return None
    if shape == INT:
        if isinstance(v, bool) or not isinstance(v, int):
            return _json_type(v), path, "int32"
    elif shape == STR:
        if not isinstance(v, str):
            return _json_type(v), path, "string"
    elif shape == BOOL:
        if not isinstance(v, bool):
            return _json_type(v), path, "bool"
    elif shape == OBJ:
        if not isinstance(v, dict):
            return _json_type(v), path, "object"
    elif isinstance(shape, list):
        if not isinstance(v, list):
            return _json_type(v), path, "array"
        for i, x in enumerate(v):
            e = _check(x, shape[0], path)
            if e:
                return e
    elif isinstance(shape, dict):
        if not isinstance(v, dict):
            return _json_type(v), path, "object"
        for k, x in v.items():
            sub = shape.get(k, shape.get("*"))
            if sub is not None:
                e = _check(x, sub, path + "." + k)
                if e:
                    return e
    return None


def check(res, obj):
    """Raise 400 if a built-in object has a field of the wrong JSON type."""
    if res.crd is not None:
        return
    shape = dict(SHAPES.get((res.group, res.resource), {}))
    shape["metadata"] = META
    e = _check(obj, shape, res.kind)
    if e:
        got, path, want = e
        raise bad_request('%s in version "%s" cannot be handled as a %s: json: cannot unmarshal %s into Go '
                          'struct field %s of type %s' % (res.kind, res.version, res.kind, got, path, want))
