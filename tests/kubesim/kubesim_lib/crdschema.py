"""Structural schema handling for custom resources, as kube-apiserver does it
on every write: prune unknown fields, apply defaults, then validate (type,
required, enum, pattern, bounds) with the apiserver's field error texts."""
import copy
import re

ROOT_KEEP = ("apiVersion", "kind", "metadata")
MAX_DEPTH = 64


def _props(s):
    return s.get("properties") or {}


def prune(v, s, root=False, depth=0, path="", dropped=None):
    """Drop fields the schema does not declare; their paths go to `dropped`."""
    if s is None or depth > MAX_DEPTH:
        return v
    if isinstance(v, dict):
        props = _props(s)
        ap = s.get("additionalProperties")
        keep_unknown = s.get("x-kubernetes-preserve-unknown-fields") or isinstance(ap, dict) or ap is True
        embedded = s.get("x-kubernetes-embedded-resource")
        for k in list(v):
            sub = (path + "." if path else "") + k
            if (root or embedded) and k in ROOT_KEEP:
                continue
            if v[k] is None and not (props.get(k) or {}).get("nullable"):
                del v[k]
                continue
            if k in props:
                v[k] = prune(v[k], props[k], False, depth + 1, sub, dropped)
            elif (root or embedded) and k in ROOT_KEEP:
                continue
            elif isinstance(ap, dict):
                v[k] = prune(v[k], ap, False, depth + 1, sub, dropped)
            elif not keep_unknown:
                del v[k]
                if dropped is not None:
                    dropped.append(sub)
    elif isinstance(v, list) and isinstance(s.get("items"), dict):
        for i, x in enumerate(v):
            v[i] = prune(x, s["items"], False, depth + 1, "%s[%d]" % (path, i), dropped)
    return v


def default(v, s, depth=0):
    if s is None or depth > MAX_DEPTH:
        return
    if isinstance(v, dict):
        for k, ps in _props(s).items():
            if k in v and v[k] is None and not ps.get("nullable") and "default" in ps:
                v[k] = copy.deepcopy(ps["default"])
            elif k not in v and "default" in ps:
                v[k] = copy.deepcopy(ps["default"])
            if k in v:
                default(v[k], ps, depth + 1)
        ap = s.get("additionalProperties")
        if isinstance(ap, dict):
            for k in v:
                if k not in _props(s):
                    default(v[k], ap, depth + 1)
    elif isinstance(v, list) and isinstance(s.get("items"), dict):
        for x in v:
            default(x, s["items"], depth + 1)


def _tname(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def _q(v):
    import json
    return json.dumps(v) if isinstance(v, str) else (json.dumps(v) if not isinstance(v, (dict, list)) else
                                                      json.dumps(v, separators=(",", ":")))


def validate(v, s, path, errs, depth=0):
    if s is None or depth > MAX_DEPTH:
        return
    t = s.get("type")
    if v is None:
        if t and not s.get("nullable"):
            errs.append((path, 'Invalid value: "null": %s in body must be of type %s: "null"' % (path, t),
                         "FieldValueTypeInvalid"))
        return
    if s.get("x-kubernetes-int-or-string"):
        if not isinstance(v, (int, str)) or isinstance(v, bool):
            errs.append((path, 'Invalid value: "%s": %s in body must be of type integer,string: "%s"'
                         % (_tname(v), path, _tname(v)), "FieldValueTypeInvalid"))
            return
    elif t:
        actual = _tname(v)
        ok = actual == t or (t == "number" and actual == "integer")
        if not ok:
            errs.append((path, 'Invalid value: "%s": %s in body must be of type %s: "%s"' % (actual, path, t, actual),
                         "FieldValueTypeInvalid"))
            return
    if "enum" in s and v not in s["enum"]:
        errs.append((path, "Unsupported value: %s: supported values: %s" % (_q(v), ", ".join(_q(x) for x in s["enum"])),
                     "FieldValueNotSupported"))
    if isinstance(v, str):
        if "pattern" in s and not re.search(s["pattern"], v):
            errs.append((path, "Invalid value: %s: %s in body should match '%s'" % (_q(v), path, s["pattern"]),
                         "FieldValueInvalid"))
        if "maxLength" in s and len(v) > s["maxLength"]:
            errs.append((path, "Too long: may not be more than %d bytes" % s["maxLength"], "FieldValueTooLong"))
        if "minLength" in s and len(v) < s["minLength"]:
            errs.append((path, "Invalid value: %s: %s in body should be at least %d chars long"
                         % (_q(v), path, s["minLength"]), "FieldValueInvalid"))
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if "minimum" in s and v < s["minimum"]:
            errs.append((path, "Invalid value: %s: %s in body should be greater than or equal to %s"
                         % (_q(v), path, s["minimum"]), "FieldValueInvalid"))
        if "maximum" in s and v > s["maximum"]:
            errs.append((path, "Invalid value: %s: %s in body should be less than or equal to %s"
                         % (_q(v), path, s["maximum"]), "FieldValueInvalid"))
    if isinstance(v, list):
        if "maxItems" in s and len(v) > s["maxItems"]:
            errs.append((path, "Too many: %d: must have at most %d items" % (len(v), s["maxItems"]),
                         "FieldValueTooMany"))
        if "minItems" in s and len(v) < s["minItems"]:
            errs.append((path, "Invalid value: %d: %s in body should have at least %d items"
                         % (len(v), path, s["minItems"]), "FieldValueInvalid"))
        if isinstance(s.get("items"), dict):
            for i, x in enumerate(v):
                validate(x, s["items"], "%s[%d]" % (path, i), errs, depth + 1)
    if isinstance(v, dict):
        for r in s.get("required") or []:
            if r not in v:
                errs.append(((path + "." if path else "") + r, "Required value", "FieldValueRequired"))
        props = _props(s)
        ap = s.get("additionalProperties")
        for k, x in v.items():
            sub = (path + "." if path else "") + k
            if k in props:
                validate(x, props[k], sub, errs, depth + 1)
            elif isinstance(ap, dict):
                validate(x, ap, "%s[%s]" % (path, k) if path else k, errs, depth + 1)


def process(obj, schema, dropped=None):
    """Prune and default obj in place; return the list of validation causes.
    Paths of pruned unknown fields are appended to `dropped`."""
    if not schema:
        return []
    prune(obj, schema, True, 0, "", dropped)
    default(obj, schema)
    errs = []
    sub = {k: v for k, v in obj.items() if k not in ROOT_KEEP}
    root = dict(schema)
    root["required"] = [r for r in schema.get("required") or [] if r not in ROOT_KEEP]
    props = dict(_props(schema))
    for k in ROOT_KEEP:
        props.pop(k, None)
    root["properties"] = props
    validate(sub, root, "", errs)
    return errs
