"""Server-side apply and managedFields: field sets (fieldsV1), ownership
tracking for updates, apply merge with conflicts (409 unless force)."""
import json

from .patch import item_key, list_info
from .util import ApiError, dcopy, now_rfc3339

META_IGNORED = {"name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp",
                "deletionTimestamp", "deletionGracePeriodSeconds", "managedFields", "selfLink"}


def _sub_schema(schema, key):
    if schema is None:
        return None
    props = schema.get("properties")
    if props and key in props:
        return props[key]
    ap = schema.get("additionalProperties")
    if isinstance(ap, dict):
        return ap
    if schema.get("x-kubernetes-preserve-unknown-fields"):
        return {}
    return {}


def _kjson(item, keys):
    d = {k: v for k, v in item_key(item, keys) if v is not None}
    return "k:" + json.dumps(dict(sorted(d.items())), separators=(",", ":"))


_SELECTOR_FIELDS = {"selector", "podSelector", "namespaceSelector", "labelSelector", "objectSelector"}


def atomic_struct(field, v, schema=None):
    """metav1.LabelSelector is a +structType=atomic struct: owned and replaced as a whole."""
    if schema is not None:
        return schema.get("x-kubernetes-map-type") == "atomic"
    return field in _SELECTOR_FIELDS and isinstance(v, dict) and bool(v) and \
        set(v) <= {"matchLabels", "matchExpressions"}


def _walk_set(v, path, out, schema, field):
    if isinstance(v, dict):
        if not v or atomic_struct(field, v, schema if schema else None):
            out.add(path)
            return
        for k, x in v.items():
            _walk_set(x, path + ("f:" + k,), out, _sub_schema(schema, k), k)
    elif isinstance(v, list):
        kind, keys = list_info(field, v, schema)
        isch = schema.get("items") if isinstance(schema, dict) else None
        if kind == "map" and keys:
            for item in v:
                if not isinstance(item, dict):
                    continue
                ip = path + (_kjson(item, keys),)
                out.add(ip)
                for k, x in item.items():
                    _walk_set(x, ip + ("f:" + k,), out, _sub_schema(isch, k), k)
        elif kind == "set":
            for x in v:
                out.add(path + ("v:" + json.dumps(x, separators=(",", ":")),))
        else:
            out.add(path)
    else:
        out.add(path)


def field_set(obj, schema=None, status_only=False, with_status=True):
    """Set of field paths (tuples of 'f:'/'k:'/'v:' elements) of an object."""
    out = set()
    for k, v in obj.items():
        if k in ("apiVersion", "kind"):
            continue
        if status_only and k not in ("status",):
            continue
        if not with_status and k == "status":
            continue
        if k == "metadata" and isinstance(v, dict):
            for mk, mv in v.items():
                if mk in META_IGNORED:
                    continue
                _walk_set(mv, ("f:metadata", "f:" + mk), out, None, mk)
            continue
        _walk_set(v, ("f:" + k,), out, _sub_schema(schema, k), k)
    return out


_fieldsv1_memo = {}
_written = {}  # id(entry JSON) -> that entry: managedFields entries this module wrote (canonical), pinned


def _wrote(e):
    if len(_written) > 100000:
        _written.clear()
    _written[id(e)] = e
    return e


def _has_path(fv, p):
    """Whether path p is in the field set FieldsV1 fv encodes (as from_fieldsv1 reads it)."""
    node = fv
    for el in p:
        node = node.get(el) if isinstance(node, dict) else None
        if node is None:
            return False
    return isinstance(node, dict) and (("." in node) or (not node and bool(p)))


def to_fieldsv1(paths):
    """The FieldsV1 JSON of a set of paths (remembered: most updates leave most
    managedFields entries as they were). Shared, like all of a stored
    object: never changed in place (clients get copies)."""
    key = frozenset(paths)
    out = _fieldsv1_memo.get(key)
    if out is None:
        if len(_fieldsv1_memo) > 2000:
            _fieldsv1_memo.clear()
        out = _fieldsv1_memo[key] = _to_fieldsv1(key)
    return out


def _to_fieldsv1(paths):
    root = {}
    members = set()
    for p in paths:
        node = root
        for el in p:
            node = node.setdefault(el, {})
        members.add(p)

    def ser(node, prefix):
        out = {}
        if node and prefix in members:
            out["."] = {}
        for k in sorted(node):
            out[k] = ser(node[k], prefix + (k,))
        return out
    return ser(root, ())


def from_fieldsv1(fv, prefix=()):
    out = set()
    if not isinstance(fv, dict):
        return out
    if not fv and prefix:
        out.add(prefix)
    for k, v in fv.items():
        if k == ".":
            out.add(prefix)
        else:
            out |= from_fieldsv1(v, prefix + (k,))
    return out


def _find_item(lst, el):
    if el.startswith("k:"):
        want = json.loads(el[2:])
        for n, it in enumerate(lst):
            if isinstance(it, dict) and all(it.get(k, "TCP" if k == "protocol" else None) == v
                                            for k, v in want.items()):
                return n
    elif el.startswith("v:"):
        want = json.loads(el[2:])
        for n, it in enumerate(lst):
            if it == want:
                return n
    elif el.startswith("i:"):
        n = int(el[2:])
        if n < len(lst):
            return n
    return None


_MISSING = object()


def get_at(obj, path):
    cur = obj
    for el in path:
        if el.startswith("f:"):
            if not isinstance(cur, dict) or el[2:] not in cur:
                return _MISSING
            cur = cur[el[2:]]
        else:
            if not isinstance(cur, list):
                return _MISSING
            n = _find_item(cur, el)
            if n is None:
                return _MISSING
            cur = cur[n]
    return cur


def remove_at(obj, path):
    if not path:
        return
    parent = get_at(obj, path[:-1])
    el = path[-1]
    if el.startswith("f:"):
        if isinstance(parent, dict):
            parent.pop(el[2:], None)
    elif isinstance(parent, list):
        n = _find_item(parent, el)
        if n is not None:
            del parent[n]


def path_string(path):
    s = ""
    for el in path:
        if el.startswith("f:"):
            s += "." + el[2:]
        elif el.startswith("k:"):
            d = json.loads(el[2:])
            s += "[" + ",".join("%s=%s" % (k, json.dumps(v)) for k, v in d.items()) + "]"
        elif el.startswith("v:"):
            s += "[=" + el[2:] + "]"
        else:
            s += "[" + el[2:] + "]"
    return s


def merge_applied(live, cfg, schema=None, field=None):
    if isinstance(live, dict) and isinstance(cfg, dict) and not atomic_struct(field, cfg, schema if schema else None):
        out = dict(live)
        for k, v in cfg.items():
            if v is None:
                out.pop(k, None)
            else:
                out[k] = merge_applied(live.get(k), v, _sub_schema(schema, k), k)
        return out
    if isinstance(live, list) and isinstance(cfg, list):
        kind, keys = list_info(field, cfg or live, schema)
        isch = schema.get("items") if isinstance(schema, dict) else None
        if kind == "map" and keys:
            out = [dcopy(i) for i in live]
            for it in cfg:
                if not isinstance(it, dict):
                    continue
                k = item_key(it, keys)
                idx = next((n for n, o in enumerate(out)
                            if isinstance(o, dict) and item_key(o, keys) == k), None)
                if idx is None:
                    out.append(dcopy(it))
                else:
                    out[idx] = merge_applied(out[idx], it, isch, None)
            return out
        if kind == "set":
            out = list(live)
            for x in cfg:
                if x not in out:
                    out.append(x)
            return out
    return dcopy(cfg)


class Entry:
    """One managedFields entry. An entry loaded from JSON this module wrote
    keeps that JSON (raw) and parses its field set only when asked: most
    updates leave most entries as they were, and write them back unchanged."""

    def __init__(self, manager, operation, api_version, subresource, fields, time=None, raw=None):
        self.manager = manager
        self.operation = operation
        self.api_version = api_version
        self.subresource = subresource or ""
        self._fields = fields
        self.time = time
        self.raw = raw

    @property
    def fields(self):
        if self._fields is None:
            self._fields = from_fieldsv1(self.raw.get("fieldsV1") or {})
        return self._fields

    @fields.setter
    def fields(self, v):
        self._fields = v
        self.raw = None

    def drop(self, paths):
        """fields -= paths, without parsing the fields when none of paths is there."""
        if not paths:
            return
        if self._fields is None:
            fv = self.raw.get("fieldsV1") or {}
            if not any(_has_path(fv, p) for p in paths):
                return
        self.fields = self.fields - paths

    def empty(self):
        if self._fields is None:
            return not self.raw.get("fieldsV1")
        return not self._fields

    def same(self, manager, operation, subresource):
        return (self.manager == manager and self.operation == operation
                and self.subresource == (subresource or ""))

    def to_json(self):
        raw = self.raw
        if raw is not None and raw.get("time") == self.time and raw.get("apiVersion") == self.api_version:
            return _wrote(raw)  # unchanged: shared with the object it was read from
        e = {"manager": self.manager, "operation": self.operation, "apiVersion": self.api_version,
             "time": self.time or now_rfc3339(), "fieldsType": "FieldsV1",
             "fieldsV1": to_fieldsv1(self.fields)}
        if self.subresource:
            e["subresource"] = self.subresource
        return _wrote(e)


def load_entries(obj):
    out = []
    for e in (obj.get("metadata") or {}).get("managedFields") or []:
        if _written.get(id(e)) is e:
            out.append(Entry(e.get("manager", ""), e.get("operation", "Update"), e.get("apiVersion", ""),
                             e.get("subresource"), None, e.get("time"), e))
            continue
        out.append(Entry(e.get("manager", ""), e.get("operation", "Update"), e.get("apiVersion", ""),
                         e.get("subresource"), from_fieldsv1(e.get("fieldsV1") or {}), e.get("time")))
    return out


def store_entries(obj, entries):
    lst = [e.to_json() for e in entries if not e.empty()]
    if lst:
        obj.setdefault("metadata", {})["managedFields"] = lst
    else:
        (obj.get("metadata") or {}).pop("managedFields", None)


def _set_for(obj, schema, subresource, has_status):
    if subresource == "status":
        return field_set(obj, schema, status_only=True)
    return field_set(obj, schema, with_status=not has_status)


def _diff_sub(o, n, path, schema, field, changed, removed):
    """changed/removed of the subtrees o and n at path, from their whole field sets."""
    so, sn = set(), set()
    if o is not _MISSING:
        _walk_set(o, path, so, schema, field)
    if n is not _MISSING:
        _walk_set(n, path, sn, schema, field)
    removed |= so - sn
    k = len(path)
    for p in sn:
        if p not in so or get_at(o, p[k:]) != get_at(n, p[k:]):
            changed.add(p)


def _diff(o, n, path, schema, field, changed, removed):
    """What track_update needs of the subtrees o (old) and n (new) at path:
    removed gets the paths of o's field set not in n's, changed the paths of
    n's field set that o lacks or holds another value at. Equal subtrees add
    nothing (one comparison in C), so an update costs what it changed, not
    the size of the object; maps are followed key by key, anything else
    (lists, atomic maps, scalars) is compared whole (_diff_sub)."""
    if o == n:
        return
    if type(o) is dict and type(n) is dict and o and n and \
            not atomic_struct(field, o, schema if schema else None) and \
            not atomic_struct(field, n, schema if schema else None):
        for k in o.keys() | n.keys():
            _diff(o.get(k, _MISSING), n.get(k, _MISSING), path + ("f:" + k,), _sub_schema(schema, k), k,
                  changed, removed)
        return
    _diff_sub(o, n, path, schema, field, changed, removed)


def changes(old, new, schema=None, status_only=False, with_status=True):
    """(changed, removed) of field_set(old) and field_set(new) with the same
    options: the paths only old has, and new's paths that are new or whose
    value differs."""
    changed, removed = set(), set()
    for k in old.keys() | new.keys():
        if k in ("apiVersion", "kind") or (status_only and k != "status") or (not with_status and k == "status"):
            continue
        o, n = old.get(k, _MISSING), new.get(k, _MISSING)
        if k == "metadata" and (type(o) is dict or o is _MISSING) and (type(n) is dict or n is _MISSING) \
                and (o is not _MISSING or n is not _MISSING):
            o = {} if o is _MISSING else o
            n = {} if n is _MISSING else n
            for mk in o.keys() | n.keys():
                if mk not in META_IGNORED:
                    _diff(o.get(mk, _MISSING), n.get(mk, _MISSING), ("f:metadata", "f:" + mk), None, mk,
                          changed, removed)
            continue
        _diff(o, n, ("f:" + k,), _sub_schema(schema, k), k, changed, removed)
    return changed, removed


def track_update(old, new, manager, api_version, subresource=None, schema=None, has_status=False):
    """Record an Update by `manager` (create when old is None) in new's managedFields."""
    entries = load_entries(old) if old is not None else []
    if old is None:
        changed, removed = _set_for(new, schema, subresource, has_status), set()
    elif subresource == "status":
        changed, removed = changes(old, new, schema, status_only=True)
    else:
        changed, removed = changes(old, new, schema, with_status=not has_status)
    mine = None
    for e in entries:
        e.drop(removed)
        if e.same(manager, "Update", subresource):
            mine = e
        else:
            e.drop(changed)
    if changed:
        if mine is None:
            mine = Entry(manager, "Update", api_version, subresource, set())
            entries.append(mine)
        mine.fields |= changed
        mine.time = now_rfc3339()
        mine.api_version = api_version
    store_entries(new, entries)


def apply(live, cfg, manager, api_version, force, schema=None, has_status=False,
          subresource=None, group="", resource="", name=""):
    """Server-side apply of cfg by manager onto live (None = create). Returns the new object."""
    cfg = dcopy(cfg)
    if subresource == "status":
        cfg_set = field_set(cfg, schema, status_only=True)
    else:
        cfg_set = field_set(cfg, schema, with_status=not has_status)
    entries = load_entries(live) if live is not None else []
    base = live if live is not None else {}
    conflicts = []
    mine = None
    for e in entries:
        if e.same(manager, "Apply", subresource):
            mine = e
            continue
        for p in sorted(cfg_set & e.fields):
            a, b = get_at(cfg, p), get_at(base, p)
            if isinstance(a, dict):
                continue
            if a != b:
                conflicts.append((e.manager, e.api_version, p))
    if conflicts and not force:
        raise conflict_error(conflicts, group, resource, name)
    if force:
        for e in entries:
            if e is not mine:
                e.fields -= cfg_set
    prev = mine.fields if mine else set()
    if subresource == "status":
        merged = dict(base)
        merged["status"] = merge_applied(base.get("status") or {}, cfg.get("status") or {}, _sub_schema(schema, "status"), "status")
    else:
        c = dict(cfg)
        if has_status:
            c.pop("status", None)
        merged = merge_applied(base, c, schema)
    others = set()
    for e in entries:
        if e is not mine:
            others |= e.fields
    for p in sorted(prev - cfg_set - others, key=len, reverse=True):
        remove_at(merged, p)
    if mine is None:
        mine = Entry(manager, "Apply", api_version, subresource, set())
        entries.append(mine)
    mine.fields = set(cfg_set)
    mine.time = now_rfc3339()
    mine.api_version = api_version
    store_entries(merged, entries)
    return merged


def conflict_error(conflicts, group, resource, name):
    n = len(conflicts)
    by_mgr = {}
    for m, av, p in conflicts:
        by_mgr.setdefault((m, av), []).append(p)
    if n == 1:
        m, av, p = conflicts[0]
        text = 'conflict with "%s" using %s: %s' % (m, av, path_string(p))
    else:
        parts = []
        for (m, av), ps in by_mgr.items():
            if len(ps) == 1:
                parts.append('conflict with "%s" using %s: %s' % (m, av, path_string(ps[0])))
            else:
                parts.append('conflicts with "%s" using %s:\n' % (m, av)
                             + "\n".join("- " + path_string(p) for p in ps))
        text = "\n".join(parts)
    msg = "Apply failed with %d conflict%s: %s" % (n, "" if n == 1 else "s", text)
    details = {"name": name, "kind": resource,
               "causes": [{"reason": "FieldManagerConflict",
                           "message": 'conflict with "%s" using %s' % (m, av),
                           "field": path_string(p)} for m, av, p in conflicts]}
    if group:
        details["group"] = group
    return ApiError(409, "Conflict", msg, details)
