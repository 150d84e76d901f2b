"""Small shared helpers: API errors as kube-apiserver Status objects, time, copies."""
import copy
import datetime
import json
import marshal
import uuid


class ApiError(Exception):
    """An error answered as a metav1.Status (code, reason, message, details)."""

    def __init__(self, code, reason, message, details=None, headers=None):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details
        self.headers = headers or {}

    def status(self):
        st = {"kind": "Status", "apiVersion": "v1", "metadata": {},
              "status": "Failure", "message": self.message, "reason": self.reason}
        if self.details is not None:
            st["details"] = self.details
        st["code"] = self.code
        return st


def _details(name, group, kind):
    d = {}
    if name:
        d["name"] = name
    if group:
        d["group"] = group
    d["kind"] = kind
    return d


def qualified(resource, group):
    return resource + "." + group if group else resource


def not_found(group, resource, name):
    return ApiError(404, "NotFound", '%s "%s" not found' % (qualified(resource, group), name),
                    _details(name, group, resource))


def already_exists(group, resource, name):
    return ApiError(409, "AlreadyExists", '%s "%s" already exists' % (qualified(resource, group), name),
                    _details(name, group, resource))


def conflict(group, resource, name, why):
    return ApiError(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": %s'
                    % (qualified(resource, group), name, why), _details(name, group, resource))


def bad_request(msg):
    return ApiError(400, "BadRequest", msg)


def invalid(group, kind, name, causes):
    """causes: list of (field, message, reason) tuples, like field.ErrorList."""
    msgs = ["%s: %s" % (f, m) for f, m, _ in causes]
    text = "; ".join(msgs)
    if len(msgs) > 1:
        text = "[" + ", ".join(msgs) + "]"
    d = _details(name, group, kind)
    d["causes"] = [{"reason": r, "message": m, "field": f} for f, m, r in causes]
    qk = kind + ("." + group if group else "")
    return ApiError(422, "Invalid", '%s "%s" is invalid: %s' % (qk, name, text), d)


def gone(msg):
    return ApiError(410, "Expired", msg)


def now_rfc3339():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def now_micro():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(s):
    try:
        return datetime.datetime.strptime(s[:19], "%Y-%m-%dT%H:%M:%S").replace(
            tzinfo=datetime.timezone.utc).timestamp()
    except (ValueError, TypeError):
        return 0.0


def new_uid():
    return str(uuid.uuid4())


_ATOMIC = frozenset((str, int, float, bool, type(None)))


def dcopy(o):
    """A deep copy of a JSON tree (dicts, lists, scalars), several times
    faster than copy.deepcopy; anything else is left to copy.deepcopy.
    marshal (format 2: no shared references, so no aliasing either) does the
    common case in C, twice as fast as the walk below."""
    try:
        return marshal.loads(marshal.dumps(o, 2))
    except ValueError:  # a type marshal does not take: walk it
        return _dcopy(o)


def _dcopy(o):
    t = type(o)
    if t is dict:
        return {k: v if type(v) in _ATOMIC else _dcopy(v) for k, v in o.items()}
    if t is list:
        return [v if type(v) in _ATOMIC else _dcopy(v) for v in o]
    if t in _ATOMIC:
        return o
    return copy.deepcopy(o)


def dumps(o):
    return json.dumps(o, separators=(",", ":"))


def get_path(obj, *path, default=None):
    for p in path:
        if isinstance(obj, dict) and p in obj:
            obj = obj[p]
        elif isinstance(obj, list) and isinstance(p, int) and 0 <= p < len(obj):
            obj = obj[p]
        else:
            return default
    return obj


def meta(obj):
    return obj.setdefault("metadata", {})


def strip_nulls(v):
    """Drop null map values recursively (typed Go objects cannot hold them).
    A tree without a null (nearly every one) is returned as it is: the JSON
    encoder (C) finds that out several times faster than a walk."""
    if type(v) is dict or type(v) is list:
        try:
            if "null" not in dumps(v):
                return v
        except (TypeError, ValueError):
            pass
    return _strip_nulls(v)


def _strip_nulls(v):
    if isinstance(v, dict):
        return {k: _strip_nulls(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_strip_nulls(x) for x in v]
    return v


def semantic(v):
    """Normal form for apimachinery's Semantic.DeepEqual: nil and empty maps/lists are equal."""
    if isinstance(v, dict):
        out = {k: semantic(x) for k, x in v.items()}
        return {k: x for k, x in out.items() if x not in (None, {}, [])}
    if isinstance(v, list):
        return [semantic(x) for x in v]
    return v


def int_param(value, name, default=0):
    """An integer query/body parameter, or 400 BadRequest."""
    if value in (None, ""):
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        raise bad_request("invalid value for %s: %r (must be an integer)" % (name, value))
