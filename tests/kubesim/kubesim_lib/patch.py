"""JSON patch (RFC 6902), JSON merge patch (RFC 7386), strategic merge patch,
and the list-type knowledge (merge keys) shared with server-side apply."""
import json

from .util import ApiError, bad_request, dcopy

# Built-in associative lists: field name -> keys (server-side apply list-map-keys).
MAP_LISTS = {
    "containers": ["name"], "initContainers": ["name"], "ephemeralContainers": ["name"],
    "env": ["name"], "volumes": ["name"], "volumeMounts": ["mountPath"],
    "volumeDevices": ["devicePath"], "imagePullSecrets": ["name"], "conditions": ["type"],
    "ownerReferences": ["uid"], "hostAliases": ["ip"], "resourceClaims": ["name"],
    "topologySpreadConstraints": ["topologyKey", "whenUnsatisfiable"], "secrets": ["name"],
    "webhooks": ["name"], "readinessGates": ["conditionType"], "schedulingGates": ["name"],
}
SET_LISTS = {"finalizers"}
KEY_DEFAULTS = {"protocol": "TCP"}


def list_info(field, items, schema=None):
    """('map', keys) | ('set', None) | ('atomic', None) for a list field."""
    if schema is not None:
        lt = schema.get("x-kubernetes-list-type")
        if lt == "map":
            return "map", schema.get("x-kubernetes-list-map-keys") or []
        if lt == "set":
            return "set", None
        return "atomic", None  # CRD lists without x-kubernetes-list-type are atomic
    if field in SET_LISTS:
        return "set", None
    if field == "ports":
        if _items_have(items, "containerPort"):
            return "map", ["containerPort", "protocol"]
        if _items_have(items, "port"):
            return "map", ["port", "protocol"]
        return "atomic", None
    keys = MAP_LISTS.get(field)
    if keys and all(isinstance(i, dict) for i in items or []):
        return "map", keys
    return "atomic", None


def _items_have(items, k):
    return bool(items) and all(isinstance(i, dict) and k in i for i in items)


def item_key(item, keys):
    return tuple((k, item.get(k, KEY_DEFAULTS.get(k))) for k in keys)


# ---- JSON merge patch -------------------------------------------------------

def merge_patch(target, patch):
    if not isinstance(patch, dict):
        return dcopy(patch)
    if not isinstance(target, dict):
        target = {}
    out = dict(target)
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


# ---- JSON patch ---------------------------------------------------------------

def _ptr(path):
    if path == "":
        return []
    if not path.startswith("/"):
        raise bad_request('the server rejected our request due to an error in our request')
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _walk(doc, parts):
    cur = doc
    for p in parts:
        if isinstance(cur, dict):
            if p not in cur:
                raise _jp_err("doc is missing path: %s" % "/" + "/".join(parts))
            cur = cur[p]
        elif isinstance(cur, list):
            try:
                cur = cur[int(p)]
            except (ValueError, IndexError):
                raise _jp_err("doc is missing path: %s" % "/" + "/".join(parts))
        else:
            raise _jp_err("doc is missing path: %s" % "/" + "/".join(parts))
    return cur


def _jp_err(msg):
    return ApiError(422, "Invalid", msg)


def json_patch(doc, ops):
    if not isinstance(ops, list):
        raise bad_request("json: cannot unmarshal object into Go value of type jsonpatch.Patch")
    doc = dcopy(doc)
    for op in ops:
        kind = op.get("op")
        parts = _ptr(op.get("path", ""))
        if kind == "test":
            if _walk(doc, parts) != op.get("value"):
                raise _jp_err("testing value %s failed" % op.get("path"))
            continue
        if kind in ("move", "copy"):
            src = _ptr(op.get("from", ""))
            val = dcopy(_walk(doc, src))
            if kind == "move":
                doc = _remove(doc, src)
            doc = _add(doc, parts, val)
            continue
        if kind == "add":
            doc = _add(doc, parts, dcopy(op.get("value")))
        elif kind == "remove":
            doc = _remove(doc, parts)
        elif kind == "replace":
            _walk(doc, parts)
            doc = _remove(doc, parts)
            doc = _add(doc, parts, dcopy(op.get("value")))
        else:
            raise bad_request("Unexpected kind: %s" % kind)
    return doc


def _add(doc, parts, val):
    if not parts:
        return val
    parent = _walk(doc, parts[:-1])
    last = parts[-1]
    if isinstance(parent, dict):
        parent[last] = val
    elif isinstance(parent, list):
        if last == "-":
            parent.append(val)
        else:
            try:
                i = int(last)
            except ValueError:
                raise _jp_err("invalid index %s" % last)
            if i < 0 or i > len(parent):
                raise _jp_err("add operation does not apply: doc is missing path")
            parent.insert(i, val)
    else:
        raise _jp_err("add operation does not apply: doc is missing path: /" + "/".join(parts))
    return doc


def _remove(doc, parts):
    if not parts:
        return None
    parent = _walk(doc, parts[:-1])
    last = parts[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise _jp_err("remove operation does not apply: doc is missing path: /" + "/".join(parts))
        del parent[last]
    elif isinstance(parent, list):
        try:
            del parent[int(last)]
        except (ValueError, IndexError):
            raise _jp_err("remove operation does not apply: doc is missing path: /" + "/".join(parts))
    return doc


# ---- strategic merge patch -----------------------------------------------------

def _smp_key(field, items):
    kind, keys = list_info(field, items)
    if kind == "map":
        return keys[0]
    if kind == "set":
        return "$primitive"
    return None


def strategic_merge(orig, patch):
    if not isinstance(patch, dict) or not isinstance(orig, dict):
        return _strip(dcopy(patch))
    if patch.get("$patch") == "replace":
        return _strip({k: v for k, v in patch.items() if k != "$patch"})
    if patch.get("$patch") == "delete":
        return None
    out = dict(orig)
    retain = patch.get("$retainKeys")
    orders = {}
    for k, v in patch.items():
        if k in ("$patch", "$retainKeys"):
            continue
        if k.startswith("$setElementOrder/"):
            orders[k.split("/", 1)[1]] = v
            continue
        if k.startswith("$deleteFromPrimitiveList/"):
            f = k.split("/", 1)[1]
            if isinstance(out.get(f), list):
                out[f] = [x for x in out[f] if x not in v]
            continue
        if v is None:
            out.pop(k, None)
            continue
        cur = out.get(k)
        if isinstance(v, dict):
            r = strategic_merge(cur if isinstance(cur, dict) else {}, v)
            if r is None:
                out.pop(k, None)
            else:
                out[k] = r
        elif isinstance(v, list):
            out[k] = _merge_list(k, cur if isinstance(cur, list) else [], v)
        else:
            out[k] = v
    for f, order in orders.items():
        if isinstance(out.get(f), list):
            out[f] = _reorder(f, out[f], order)
    if retain is not None:
        out = {k: v for k, v in out.items() if k in retain}
    return out


def _merge_list(field, cur, patch):
    key = _smp_key(field, patch or cur)
    if any(isinstance(i, dict) and i.get("$patch") == "replace" for i in patch):
        return _strip([i for i in patch if not (isinstance(i, dict) and i.get("$patch") == "replace")])
    if key is None:
        return _strip(dcopy(patch))
    if key == "$primitive":
        out = list(cur)
        for x in patch:
            if x not in out:
                out.append(x)
        return out
    out = [dcopy(i) for i in cur]
    for item in patch:
        if not isinstance(item, dict):
            continue
        kv = item.get(key)
        idx = next((n for n, o in enumerate(out) if isinstance(o, dict) and o.get(key) == kv), None)
        if item.get("$patch") == "delete":
            if idx is not None:
                del out[idx]
            continue
        if idx is None:
            out.append(_strip(dcopy(item)))
        else:
            out[idx] = strategic_merge(out[idx], item)
    return out


def _reorder(field, lst, order):
    key = _smp_key(field, lst)
    def ident(x):
        return x.get(key) if key not in (None, "$primitive") and isinstance(x, dict) else x
    pos = {json.dumps(ident(o), sort_keys=True): n for n, o in enumerate(order)}
    return sorted(lst, key=lambda x: pos.get(json.dumps(ident(x), sort_keys=True), len(pos)))


def _strip(v):
    """Drop leftover patch directives from newly added content."""
    if isinstance(v, dict):
        return {k: _strip(x) for k, x in v.items() if not k.startswith("$")}
    if isinstance(v, list):
        return [_strip(x) for x in v]
    return v
