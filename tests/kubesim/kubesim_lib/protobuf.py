"""Decoder for the Kubernetes protobuf envelope ("k8s\\0" + runtime.Unknown)
for the request bodies real clients send as protobuf: client-go's typed
clients (kubectl create configmap|secret|namespace|serviceaccount|token,
kubectl auth can-i, Helm's release Secrets) use
application/vnd.kubernetes.protobuf for built-in kinds. Only the kinds listed
in KINDS are decoded; others answer 415 with a message saying so."""
import base64
import datetime

from .util import ApiError

MAGIC = b"k8s\x00"
MAX_DEPTH = 32


def _varint(buf, i):
    shift = result = 0
    while True:
        if i >= len(buf):
            raise ValueError("truncated varint")
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7
        if shift > 70:
            raise ValueError("varint too long")


def fields(buf):
    """Yield (field number, wire type, value) of one message."""
    i = 0
    n = len(buf)
    while i < n:
        key, i = _varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(buf, i)
        elif wt == 2:
            ln, i = _varint(buf, i)
            if i + ln > n:
                raise ValueError("truncated field")
            v = buf[i:i + ln]
            i += ln
        elif wt == 1:
            v = buf[i:i + 8]
            i += 8
        elif wt == 5:
            v = buf[i:i + 4]
            i += 4
        else:
            raise ValueError("unsupported wire type %d" % wt)
        yield num, wt, v


def _signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


S, B, I, BOOL, TIME = "s", "b", "i", "bool", "time"

TYPEMETA = {1: ("apiVersion", S), 2: ("kind", S)}
OWNERREF = {5: ("apiVersion", S), 1: ("kind", S), 3: ("name", S), 4: ("uid", S), 6: ("controller", BOOL),
            7: ("blockOwnerDeletion", BOOL)}
FIELDSV1 = "fieldsv1"
MFE = {1: ("manager", S), 2: ("operation", S), 3: ("apiVersion", S), 4: ("time", TIME),
       6: ("fieldsType", S), 7: ("fieldsV1", FIELDSV1), 8: ("subresource", S)}
OBJECTMETA = {1: ("name", S), 2: ("generateName", S), 3: ("namespace", S), 4: ("selfLink", S), 5: ("uid", S),
              6: ("resourceVersion", S), 7: ("generation", I), 8: ("creationTimestamp", TIME),
              9: ("deletionTimestamp", TIME), 10: ("deletionGracePeriodSeconds", I),
              11: ("labels", ("map", S)), 12: ("annotations", ("map", S)),
              13: ("ownerReferences", ("rep", OWNERREF)), 14: ("finalizers", ("rep", S)),
              17: ("managedFields", ("rep", MFE))}
OBJREF = {1: ("kind", S), 2: ("namespace", S), 3: ("name", S), 4: ("uid", S), 5: ("apiVersion", S),
          6: ("resourceVersion", S), 7: ("fieldPath", S)}
RESATTR = {1: ("namespace", S), 2: ("verb", S), 3: ("group", S), 4: ("version", S), 5: ("resource", S),
           6: ("subresource", S), 7: ("name", S)}
NONRESATTR = {1: ("path", S), 2: ("verb", S)}
EXTRA = {1: ("items", ("rep", S))}
PRECOND = {1: ("uid", S), 2: ("resourceVersion", S)}

KINDS = {
    "ConfigMap": {1: ("metadata", OBJECTMETA), 2: ("data", ("map", S)), 3: ("binaryData", ("map", B)),
                  4: ("immutable", BOOL)},
    "Secret": {1: ("metadata", OBJECTMETA), 2: ("data", ("map", B)), 3: ("type", S),
               4: ("stringData", ("map", S)), 5: ("immutable", BOOL)},
    "Namespace": {1: ("metadata", OBJECTMETA), 2: ("spec", {1: ("finalizers", ("rep", S))}),
                  3: ("status", {1: ("phase", S)})},
    "ServiceAccount": {1: ("metadata", OBJECTMETA), 2: ("secrets", ("rep", OBJREF)),
                       3: ("imagePullSecrets", ("rep", {1: ("name", S)})),
                       4: ("automountServiceAccountToken", BOOL)},
    "SelfSubjectAccessReview": {1: ("metadata", OBJECTMETA), 2: ("spec", {
        1: ("resourceAttributes", RESATTR), 2: ("nonResourceAttributes", NONRESATTR)})},
    "SubjectAccessReview": {1: ("metadata", OBJECTMETA), 2: ("spec", {
        1: ("resourceAttributes", RESATTR), 2: ("nonResourceAttributes", NONRESATTR), 3: ("user", S),
        4: ("groups", ("rep", S)), 5: ("extra", ("map", EXTRA)), 6: ("uid", S)})},
    "LocalSubjectAccessReview": None,  # same shape as SubjectAccessReview, filled below
    "SelfSubjectRulesReview": {1: ("metadata", OBJECTMETA), 2: ("spec", {1: ("namespace", S)})},
    "TokenRequest": {1: ("metadata", OBJECTMETA), 2: ("spec", {
        1: ("audiences", ("rep", S)), 4: ("expirationSeconds", I),
        3: ("boundObjectRef", {1: ("kind", S), 2: ("apiVersion", S), 3: ("name", S), 4: ("uid", S)})})},
    "TokenReview": {1: ("metadata", OBJECTMETA), 2: ("spec", {1: ("token", S), 2: ("audiences", ("rep", S))})},
    "SelfSubjectReview": {1: ("metadata", OBJECTMETA)},
    "DeleteOptions": {1: ("gracePeriodSeconds", I), 2: ("preconditions", PRECOND), 3: ("orphanDependents", BOOL),
                      4: ("propagationPolicy", S), 5: ("dryRun", ("rep", S))},
}
KINDS["LocalSubjectAccessReview"] = KINDS["SubjectAccessReview"]
LABELSEL = {1: ("matchLabels", ("map", S)), 2: ("matchExpressions", ("rep", {
    1: ("key", S), 2: ("operator", S), 3: ("values", ("rep", S))}))}
POLICYRULE = {1: ("verbs", ("rep", S)), 2: ("apiGroups", ("rep", S)), 3: ("resources", ("rep", S)),
              4: ("resourceNames", ("rep", S)), 5: ("nonResourceURLs", ("rep", S))}
SUBJECT = {1: ("kind", S), 2: ("apiGroup", S), 3: ("name", S), 4: ("namespace", S)}
ROLEREF = {1: ("apiGroup", S), 2: ("kind", S), 3: ("name", S)}
KINDS["Role"] = {1: ("metadata", OBJECTMETA), 2: ("rules", ("rep", POLICYRULE))}
KINDS["ClusterRole"] = {1: ("metadata", OBJECTMETA), 2: ("rules", ("rep", POLICYRULE)),
                        3: ("aggregationRule", {1: ("clusterRoleSelectors", ("rep", LABELSEL))})}
KINDS["RoleBinding"] = {1: ("metadata", OBJECTMETA), 2: ("subjects", ("rep", SUBJECT)), 3: ("roleRef", ROLEREF)}
KINDS["ClusterRoleBinding"] = KINDS["RoleBinding"]


def _time(buf):
    secs = nanos = 0
    for num, wt, v in fields(buf):
        if num == 1 and wt == 0:
            secs = _signed(v)
        elif num == 2 and wt == 0:
            nanos = v
    if secs <= -62135596800:
        return None  # Go's zero time
    t = datetime.datetime.fromtimestamp(secs, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _scalar(typ, wt, v, depth):
    if typ == S:
        return v.decode("utf-8")
    if typ == B:
        return base64.b64encode(bytes(v)).decode()
    if typ == I:
        return _signed(v)
    if typ == BOOL:
        return bool(v)
    if typ == TIME:
        return _time(v)
    if typ == FIELDSV1:
        import json
        for num, _, raw in fields(v):
            if num == 1:
                return json.loads(raw.decode())
        return {}
    if isinstance(typ, dict):
        return decode_message(v, typ, depth + 1)
    raise ValueError("bad schema")


def decode_message(buf, schema, depth=0):
    if depth > MAX_DEPTH:
        raise ValueError("nesting too deep")
    out = {}
    for num, wt, v in fields(bytes(buf)):
        f = schema.get(num)
        if f is None:
            continue
        name, typ = f
        if isinstance(typ, tuple) and typ[0] == "rep":
            out.setdefault(name, []).append(_scalar(typ[1], wt, v, depth))
        elif isinstance(typ, tuple) and typ[0] == "map":
            k = val = None
            for n2, wt2, v2 in fields(v):
                if n2 == 1:
                    k = v2.decode("utf-8")
                elif n2 == 2:
                    val = _scalar(typ[1], wt2, v2, depth)
            if val is None:
                val = "" if typ[1] in (S, B) else {}
            out.setdefault(name, {})[k or ""] = val
        else:
            out[name] = _scalar(typ, wt, v, depth)
    # Go writes zero values of non-pointer fields; JSON would omit them
    return {k: v for k, v in out.items() if v not in ("", None, False, 0, {}, [])}


def decode(body):
    """JSON-like object from a protobuf request body; raises ApiError 415/400."""
    if not body.startswith(MAGIC):
        raise ApiError(400, "BadRequest", "protobuf body without the k8s envelope")
    try:
        tm, raw = {}, b""
        for num, wt, v in fields(body[4:]):
            if num == 1:
                tm = decode_message(v, TYPEMETA)
            elif num == 2:
                raw = v
        kind = tm.get("kind", "")
        schema = KINDS.get(kind)
        if schema is None:
            raise ApiError(415, "UnsupportedMediaType", "kubesim cannot decode protobuf bodies of kind %r "
                           "(supported: %s); send application/json" % (kind, ", ".join(sorted(KINDS))))
        obj = decode_message(raw, schema)
    except (ValueError, UnicodeDecodeError) as e:
        raise ApiError(400, "BadRequest", "error decoding protobuf body: %s" % e)
    if tm.get("apiVersion"):
        obj["apiVersion"] = tm["apiVersion"]
    if kind:
        obj["kind"] = kind
    return obj
