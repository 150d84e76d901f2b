"""API semantics of kube-apiserver's generic registry: create, get, list,
update, patch (merge, JSON, strategic, server-side apply), delete with
finalizers and propagation, resourceVersion/generation rules, conflicts."""
import base64
import json
import re
import threading

from . import apply as ssa
from . import knownfields, shapes
from .defaults import Allocator, apply_defaults, job_selector, random_suffix, service_allocate
from .patch import json_patch, merge_patch, strategic_merge
from .selectors import (check_field_selector, fields_match, labels_match, parse_field_selector,
                        parse_label_selector)
from .util import (ApiError, already_exists, bad_request, conflict, dcopy, gone, invalid, new_uid,
                   int_param, not_found, now_rfc3339, strip_nulls)

GENERATION_GROUPS = {"apps", "batch", "networking.k8s.io", "policy", "autoscaling",
                     "apiextensions.k8s.io", "admissionregistration.k8s.io", "storage.k8s.io",
                     "flowcontrol.apiserver.k8s.io"}
RETURN_OBJECT_ON_DELETE = {("", "pods"), ("", "namespaces"), ("apiextensions.k8s.io",
                                                             "customresourcedefinitions")}


_SUBDOMAIN = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1035 = r"[a-z]([-a-z0-9]*[a-z0-9])?"
_QNAME = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LVALUE = r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?"


def validate_name(res, name):
    """metadata.name rules per kind, with kube's messages."""
    if res.group == "" and res.resource == "namespaces":
        rx, n, what = _LABEL, 63, ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
                                   "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
                                   "'123-abc', regex used for validation is '%s')" % _LABEL)
    elif res.group == "" and res.resource == "services":
        rx, n, what = _DNS1035, 63, ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
                                     "start with an alphabetic character, and end with an alphanumeric character "
                                     "(e.g. 'my-name',  or 'abc-123', regex used for validation is '%s')" % _DNS1035)
    else:
        rx, n, what = _SUBDOMAIN, 253, ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                                        "characters, '-' or '.', and must start and end with an alphanumeric "
                                        "character (e.g. 'example.com', regex used for validation is '%s')"
                                        % _SUBDOMAIN)
    out = []
    if not re.fullmatch(rx, name):
        out.append(("metadata.name", 'Invalid value: "%s": %s' % (name, what), "FieldValueInvalid"))
    if len(name) > n:
        out.append(("metadata.name", 'Invalid value: "%s": must be no more than %d characters' % (name, n),
                    "FieldValueInvalid"))
    return out


def _qualified_name_errors(key):
    prefix, _, nm = key.rpartition("/")
    errs = []
    if not nm or len(nm) > 63 or not re.fullmatch(_QNAME, nm):
        errs.append("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
                    "validation is '%s')" % _QNAME)
    if "/" in key and (not prefix or len(prefix) > 253 or not re.fullmatch(_SUBDOMAIN, prefix)):
        errs.append("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                    "'-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
                    "used for validation is '%s')" % _SUBDOMAIN)
    return errs


def validate_meta_maps(md):
    out = []
    for k in ("labels", "annotations"):
        v = md.get(k)
        if v is None:
            continue
        if not isinstance(v, dict) or any(not isinstance(x, str) for x in v.values()):
            out.append(("metadata." + k, "Invalid value: must be a map of strings", "FieldValueInvalid"))
            continue
        for key, val in v.items():
            for e in _qualified_name_errors(key):
                out.append(("metadata." + k, 'Invalid value: "%s": %s' % (key, e), "FieldValueInvalid"))
            if k == "labels":
                if len(val) > 63:
                    out.append(("metadata.labels", 'Invalid value: "%s": must be no more than 63 characters' % val,
                                "FieldValueInvalid"))
                if not re.fullmatch(_LVALUE, val):
                    out.append(("metadata.labels", 'Invalid value: "%s": a valid label must be an empty string or '
                                "consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
                                "an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
                                "used for validation is '%s')" % (val, _LVALUE), "FieldValueInvalid"))
        if k == "annotations" and sum(len(a) + len(b) for a, b in v.items()) > 262144:
            out.append(("metadata.annotations", "Too long: must have at most 262144 bytes", "FieldValueTooLong"))
    return out


def uses_generation(res):
    return res.crd is not None or res.group in GENERATION_GROUPS or (res.group, res.resource) in (
        ("", "pods"), ("", "replicationcontrollers"))


def spec_part(res, obj):
    """The part of an object whose change bumps metadata.generation."""
    if res.crd is not None:
        return {k: v for k, v in obj.items() if k not in ("metadata", "status", "apiVersion", "kind")}
    if res.resource == "customresourcedefinitions":
        return obj.get("spec")
    return {k: v for k, v in obj.items() if k not in ("metadata", "status", "apiVersion", "kind")}


_UNSET = object()


def _strip_meta_time(obj):
    o = dict(obj)
    md = dict(o.get("metadata") or {})
    mf = md.get("managedFields")
    if mf:
        md["managedFields"] = [{k: v for k, v in e.items() if k != "time"} for e in mf]
    o["metadata"] = md
    return o


class Api:
    def __init__(self, store, registry, hooks=None):
        self.store = store
        self.registry = registry
        self.alloc = Allocator()
        self.hooks = hooks  # object with after_write(res, old, new) / after_delete(res, obj)
        self.ctx = threading.local()  # per-request options: field_validation, warnings

    # ---- helpers -----------------------------------------------------------------
    def out(self, res, obj):
        o = dcopy(obj)
        o["apiVersion"] = res.api_version
        o["kind"] = res.kind
        return o

    @staticmethod
    def view(res, obj):
        """obj as out() gives it, sharing the stored object's values: only to
        serialize while the store lock is held."""
        o = dict(obj)
        o["apiVersion"] = res.api_version
        o["kind"] = res.kind
        return o

    def _ns_check(self, res, ns, creating):
        if not res.namespaced:
            return
        nso = self.store.get("", "namespaces", "", ns)
        if nso is None:
            raise not_found("", "namespaces", ns)
        if creating and nso["metadata"].get("deletionTimestamp"):
            raise ApiError(403, "Forbidden",
                           '%s "%s" is forbidden: unable to create new content in namespace %s because it '
                           'is being terminated' % (res.resource, "", ns),
                           {"name": "", "kind": res.resource,
                            "causes": [{"reason": "NamespaceTerminating", "message":
                                        "namespace %s is being terminated" % ns,
                                        "field": "metadata.namespace"}]})

    def _check_body(self, res, obj, ns):
        if not isinstance(obj, dict):
            raise bad_request("the body of the request was in an unknown format")
        av, kind = obj.get("apiVersion"), obj.get("kind")
        if av and av != res.api_version and not (res.group == "" and av == "v1"):
            g = av.rpartition("/")[0]
            if g != res.group:
                raise bad_request("the API version in the data (%s) does not match the expected API "
                                  "version (%s)" % (av, res.api_version))
        if kind and kind != res.kind:
            raise bad_request("the kind in the data (%s) does not match the expected kind (%s)"
                              % (kind, res.kind))
        md = obj.setdefault("metadata", {})
        if not isinstance(md, dict):
            raise bad_request("metadata must be an object")
        if res.namespaced:
            if md.get("namespace") and md["namespace"] != ns:
                raise bad_request("the namespace of the provided object does not match the namespace "
                                  "sent on the request")
            md["namespace"] = ns
        else:
            md.pop("namespace", None)
        obj["apiVersion"] = res.api_version
        obj["kind"] = res.kind

    def _validate(self, res, obj, old):
        name = obj["metadata"].get("name", "")
        causes = []
        if not name:
            causes.append(("metadata.name", "Required value: name or generateName is required",
                           "FieldValueRequired"))
        elif res.group == "rbac.authorization.k8s.io" or res.crd is not None:
            if name in (".", "..") or "/" in name or "%" in name:
                causes.append(("metadata.name", 'Invalid value: "%s": may not contain \'/\' or \'%%\'' % name,
                               "FieldValueInvalid"))
        else:
            causes.extend(validate_name(res, name))
        causes.extend(validate_meta_maps(obj["metadata"]))
        if res.group == "" and res.resource in ("configmaps", "secrets"):
            total = sum(len(k) + len(v) for k, v in (obj.get("data") or {}).items() if isinstance(v, str))
            total += sum(len(k) + len(v) for k, v in (obj.get("binaryData") or {}).items() if isinstance(v, str))
            if res.resource == "secrets":
                total = sum(len(base64.b64decode(v + "==", validate=False)) for v in (obj.get("data") or {}).values()
                            if isinstance(v, str))
            if total > 1048576:
                causes.append(("data" if res.resource == "secrets" else "", "Too long: must have at most 1048576 bytes",
                               "FieldValueTooLong"))
        if res.group == "" and res.resource in ("configmaps", "secrets"):
            for k, v in (obj.get("data") or {}).items():
                if not isinstance(v, str):
                    causes.append(("data[%s]" % k, "Invalid value: must be a string", "FieldValueInvalid"))
                elif res.resource == "secrets":
                    try:
                        base64.b64decode(v, validate=True)
                    except ValueError:
                        causes.append(("data[%s]" % k, "Invalid value: illegal base64 data",
                                       "FieldValueInvalid"))
        if res.group == "apps" and res.resource in ("deployments", "replicasets", "statefulsets",
                                                    "daemonsets"):
            spec = obj.get("spec") or {}
            if not spec.get("selector"):
                causes.append(("spec.selector", "Required value", "FieldValueRequired"))
            if old is not None and (old.get("spec") or {}).get("selector") != spec.get("selector"):
                causes.append(("spec.selector", "Invalid value: field is immutable", "FieldValueInvalid"))
        if res.group == "" and res.resource in ("configmaps", "secrets") and old is not None \
                and old.get("immutable"):
            if old.get("data") != obj.get("data"):
                causes.append(("data", "Forbidden: field is immutable when `immutable` is set",
                               "FieldValueForbidden"))
        if causes:
            raise invalid(res.group, res.kind, name, causes)

    def _normalize(self, res, obj):
        shapes.check(res, obj)
        unknown = knownfields.unknown_fields(res, obj)
        if unknown:
            fv = getattr(self.ctx, "field_validation", "")
            if fv == "Strict":
                raise bad_request('%s in version "%s" cannot be handled as a %s: strict decoding error: %s'
                                  % (res.kind, res.version, res.kind,
                                     ", ".join('unknown field "%s"' % p for p in unknown)))
            if fv == "Warn":
                self.ctx.warnings = getattr(self.ctx, "warnings", []) + ['unknown field "%s"' % p for p in unknown]
            knownfields.drop(res, obj, unknown)
        for k in [k for k, v in obj.items() if v is None]:
            del obj[k]
        md = obj.get("metadata")
        if isinstance(md, dict):
            clean = strip_nulls(md)
            if clean is not md:
                md.clear()
                md.update(clean)
        if res.crd is None:
            for k in list(obj):
                if k not in ("metadata",):
                    obj[k] = strip_nulls(obj[k])
        if res.crd is not None and res.version_schema:
            from .crdschema import process
            dropped = []
            causes = process(obj, res.version_schema, dropped)
            fv = getattr(self.ctx, "field_validation", "")
            if dropped and fv == "Strict":
                raise bad_request('%s in version "%s" cannot be handled as a %s: strict decoding error: %s'
                                  % (res.kind, res.version, res.kind,
                                     ", ".join('unknown field "%s"' % p for p in dropped)))
            if dropped and fv == "Warn":
                self.ctx.warnings = getattr(self.ctx, "warnings", []) + ['unknown field "%s"' % p for p in dropped]
            if causes:
                name = obj.get("metadata", {}).get("name", "")
                raise invalid(res.group, res.kind, name, causes)
        if res.group == "" and res.resource == "secrets" and isinstance(obj.get("stringData"), dict):
            data = obj.setdefault("data", {}) or {}
            for k, v in obj.pop("stringData").items():
                data[k] = base64.b64encode(str(v).encode()).decode()
            obj["data"] = data
        apply_defaults(res.group, res.resource, obj)

    # ---- reads ---------------------------------------------------------------------------
    def get(self, res, ns, name):
        with self.store.lock:
            obj = self.store.get(res.group, res.resource, ns, name)
            if obj is None:
                raise not_found(res.group, res.resource, name)
            return self.out(res, obj)

    def list(self, res, ns, q, shared=False):
        """The list answer; shared=True: items share the stored objects (view()),
        for a caller that serializes it while holding the store lock."""
        lsel = parse_label_selector(q.get("labelSelector", ""))
        fsel = parse_field_selector(q.get("fieldSelector", ""))
        check_field_selector(res, fsel)
        limit = int_param(q.get("limit"), "limit")
        cont = q.get("continue") or ""
        rv_param = q.get("resourceVersion", "")
        match = q.get("resourceVersionMatch", "")
        if match not in ("", "Exact", "NotOlderThan"):
            raise invalid("meta.k8s.io", "ListOptions", "", [(
                "resourceVersionMatch", 'Unsupported value: "%s": supported values: "Exact", "NotOlderThan", ""'
                % match, "FieldValueNotSupported")])
        if match and not rv_param:
            raise invalid("meta.k8s.io", "ListOptions", "", [(
                "resourceVersionMatch", "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is "
                "provided", "FieldValueForbidden")])
        if match == "Exact" and rv_param == "0":
            raise invalid("meta.k8s.io", "ListOptions", "", [(
                "resourceVersionMatch", 'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
                "FieldValueForbidden")])
        if cont and rv_param not in ("", "0"):
            raise bad_request("specifying resource version is not allowed when using continue")
        start = None
        with self.store.lock:
            at = None
            if cont:
                try:
                    tok = json.loads(base64.b64decode(cont))
                    start, at = tok["start"], int(tok["rv"])
                except (ValueError, KeyError, TypeError):
                    raise bad_request("continue key is not valid: incorrect encoded start resourceVersion")
                if at < self.store.compacted:
                    raise gone("The provided continue parameter is too old to display a consistent list "
                               "result. You can start a new list without the continue parameter, or use "
                               "the continue token in this response to retrieve the remainder of the "
                               "results. Continuing with the provided token results in an inconsistent "
                               "list - objects that were created, modified, or deleted between the time "
                               "the first chunk was returned and now may show up in the list.")
            elif match == "Exact":
                at = int_param(rv_param, "resourceVersion")
            scope = ns if res.namespaced and ns else None
            if at is None:
                at = self.store.rv
                objs = self.store.list_selected(res.group, res.resource, scope, lsel)
            else:
                objs = self.store.list_at(res.group, res.resource, scope, at)
            items = []
            for o in objs:
                md = o["metadata"]
                key = md.get("namespace", "") + "/" + md["name"]
                if start is not None and key <= start:
                    continue
                if not labels_match(lsel, md.get("labels")):
                    continue
                if fsel and not fields_match(fsel, o):
                    continue
                items.append((key, o))
            meta = {"resourceVersion": str(at)}
            if limit and len(items) > limit:
                last = items[limit - 1][0]
                meta["continue"] = base64.b64encode(json.dumps(
                    {"v": "meta.k8s.io/v1", "rv": at, "start": last}, separators=(",", ":")).encode()).decode()
                meta["remainingItemCount"] = len(items) - limit
                items = items[:limit]
            lst = [(self.view if shared else self.out)(res, o) for _, o in items]
        return {"kind": res.kind + "List", "apiVersion": res.api_version, "metadata": meta, "items": lst}

    # ---- create ---------------------------------------------------------------------------
    def create(self, res, ns, obj, manager, dry_run=False):
        self._check_body(res, obj, ns)
        md = obj["metadata"]
        with self.store.lock:
            self._ns_check(res, ns, True)
            if not md.get("name") and md.get("generateName"):
                for _ in range(10):
                    cand = md["generateName"] + random_suffix()
                    if self.store.get(res.group, res.resource, ns, cand) is None:
                        md["name"] = cand
                        break
            self._normalize(res, obj)
            self._validate(res, obj, None)
            if self.store.get(res.group, res.resource, ns, md["name"]) is not None:
                raise already_exists(res.group, res.resource, md["name"])
            if md.get("resourceVersion") not in (None, "", "0"):
                raise ApiError(500, "InternalError", "Internal error occurred: resourceVersion should not be set "
                               "on objects to be created")
            for k in ("resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"):
                md.pop(k, None)
            md["uid"] = new_uid()
            md["creationTimestamp"] = now_rfc3339()
            if uses_generation(res):
                md["generation"] = 1
            else:
                md.pop("generation", None)
            self._prepare_create(res, obj)
            if "managedFields" not in md or not md["managedFields"]:
                md.pop("managedFields", None)
                ssa.track_update(None, obj, manager, res.api_version, None, res.version_schema,
                                 "status" in res.subres)
            if dry_run:
                return self.out(res, obj)
            self.store.put(res.group, res.resource, obj, "ADDED")
            if self.hooks:
                self.hooks.after_write(res, None, obj)
            return self.out(res, obj)

    def _prepare_create(self, res, obj):
        g, r = res.group, res.resource
        if "status" in res.subres and r not in ("namespaces",):
            obj.pop("status", None)
        if g == "" and r == "namespaces":
            obj["spec"] = {"finalizers": ["kubernetes"]}
            obj["status"] = {"phase": "Active"}
            obj["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = obj["metadata"]["name"]
        elif g == "" and r == "pods":
            obj["status"] = {"phase": "Pending", "qosClass": "BestEffort"}
        elif g == "" and r == "services":
            service_allocate(self.alloc, obj)
        elif g == "batch" and r == "jobs":
            job_selector(obj)
        elif g == "apiextensions.k8s.io" and r == "customresourcedefinitions":
            self._crd_status(obj)

    def _crd_status(self, obj):
        spec = obj.get("spec") or {}
        names = dict(spec.get("names") or {})
        names.setdefault("singular", names.get("kind", "").lower())
        names.setdefault("listKind", names.get("kind", "") + "List")
        t = now_rfc3339()
        prev = {c.get("type"): c.get("lastTransitionTime") for c in (obj.get("status") or {}).get("conditions") or []}
        stored = [v["name"] for v in spec.get("versions", []) if v.get("storage")]
        old_stored = ((obj.get("status") or {}).get("storedVersions")) or []
        obj["status"] = {
            "acceptedNames": names,
            "conditions": [
                {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts",
                 "message": "no conflicts found", "lastTransitionTime": prev.get("NamesAccepted") or t},
                {"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
                 "message": "the initial names have been accepted",
                 "lastTransitionTime": prev.get("Established") or t}],
            "storedVersions": sorted(set(old_stored) | set(stored))}

    # ---- update ---------------------------------------------------------------------------
    def update(self, res, ns, name, obj, manager, subresource=None, dry_run=False, _apply_entries=None):
        self._check_body(res, obj, ns)
        md = obj["metadata"]
        if md.get("name") and md["name"] != name:
            raise bad_request("the name of the object (%s) does not match the name on the URL (%s)"
                              % (md["name"], name))
        md["name"] = name
        with self.store.lock:
            old = self.store.get(res.group, res.resource, ns, name)
            if old is None:
                raise not_found(res.group, res.resource, name)
            rv = md.get("resourceVersion")
            if rv and rv != old["metadata"]["resourceVersion"]:
                raise conflict(res.group, res.resource, name, "the object has been modified; please "
                               "apply your changes to the latest version and try again")
            if not rv and (res.crd is not None or res.resource == "customresourcedefinitions"):
                raise invalid(res.group, res.kind, name, [("metadata.resourceVersion", "Invalid value: 0x0: must "
                                                           "be specified for an update", "FieldValueInvalid")])
            new = self._merge_update(res, old, obj, subresource)
            self._normalize(res, new)
            self._validate(res, new, old)
            if res.group == "" and res.resource == "services":
                service_allocate(self.alloc, new, old)
            if res.resource == "customresourcedefinitions" and res.group == "apiextensions.k8s.io" \
                    and subresource is None:
                new["status"] = dcopy(old.get("status"))
                self._crd_status(new)
            if uses_generation(res) and subresource is None:
                gen = old["metadata"].get("generation", 1)
                if spec_part(res, new) != spec_part(res, old):
                    gen += 1
                new["metadata"]["generation"] = gen
            if _apply_entries is None:
                sent = (obj.get("metadata") or {}).get("managedFields", _UNSET)
                if sent is _UNSET or sent == old["metadata"].get("managedFields"):
                    new["metadata"].pop("managedFields", None)  # track_update writes them from old's
                    ssa.track_update(old, new, manager, res.api_version, subresource,
                                     res.version_schema, "status" in res.subres)
                elif not sent:
                    new["metadata"].pop("managedFields", None)
            # finalizers all gone on a deleting object: delete for real
            if new["metadata"].get("deletionTimestamp") and not new["metadata"].get("finalizers") \
                    and not (res.resource == "namespaces" and (new.get("spec") or {}).get("finalizers")):
                if dry_run:
                    return self.out(res, new)
                final = self.store.remove(res.group, res.resource, ns, name)
                if self.hooks:
                    self.hooks.after_delete(res, final)
                return self.out(res, final)
            if _strip_meta_time(new) == _strip_meta_time(old):
                return self.out(res, old)
            if dry_run:
                return self.out(res, new)
            self.store.put(res.group, res.resource, new, "MODIFIED")
            if self.hooks:
                self.hooks.after_write(res, old, new)
            return self.out(res, new)

    def _merge_update(self, res, old, obj, subresource):
        new = dcopy(obj)
        md, omd = new["metadata"], old["metadata"]
        for k in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                  "generation"):
            if k in omd:
                md[k] = omd[k]
            else:
                md.pop(k, None)
        if res.namespaced:
            md["namespace"] = omd.get("namespace")
        has_status = "status" in res.subres
        if subresource == "status":
            out = dcopy(old)
            out["status"] = new.get("status")
            if out["status"] is None:
                out.pop("status")
            out["metadata"]["managedFields"] = md.get("managedFields", omd.get("managedFields"))
            if out["metadata"]["managedFields"] is None:
                del out["metadata"]["managedFields"]
            if "managedFields" not in md:
                out["metadata"].pop("managedFields", None)
                if omd.get("managedFields"):
                    out["metadata"]["managedFields"] = dcopy(omd["managedFields"])
            return out
        if has_status:
            if "status" in old:
                new["status"] = dcopy(old["status"])
            else:
                new.pop("status", None)
        if res.group == "" and res.resource == "namespaces":
            new["spec"] = dcopy(old.get("spec"))
            new["status"] = dcopy(old.get("status"))
        return new

    # ---- patch ----------------------------------------------------------------------------
    def patch(self, res, ns, name, ctype, body, manager, subresource=None, force=False,
              dry_run=False):
        ctype = (ctype or "").split(";")[0].strip()
        if ctype == "application/apply-patch+yaml":
            return self._apply(res, ns, name, body, manager, subresource, force, dry_run)
        try:
            patch = json.loads(body or b"null")
        except ValueError as e:
            raise bad_request("error decoding patch: %s" % e)
        with self.store.lock:
            old = self.store.get(res.group, res.resource, ns, name)
            if old is None:
                raise not_found(res.group, res.resource, name)
            cur = self.out(res, old)
            if ctype == "application/json-patch+json":
                new = json_patch(cur, patch)
            elif ctype == "application/merge-patch+json":
                new = merge_patch(cur, patch)
            elif ctype == "application/strategic-merge-patch+json":
                if res.crd is not None:
                    raise ApiError(415, "UnsupportedMediaType",
                                   "the body of the request was in an unknown format - accepted media "
                                   "types include: application/json-patch+json, "
                                   "application/merge-patch+json, application/apply-patch+yaml")
                new = strategic_merge(cur, patch)
            else:
                raise ApiError(415, "UnsupportedMediaType",
                               "the body of the request was in an unknown format - accepted media types "
                               "include: application/json-patch+json, application/merge-patch+json, "
                               "application/apply-patch+yaml, application/strategic-merge-patch+json")
            if not isinstance(new, dict):
                raise bad_request("patch produced a non-object")
            new.setdefault("metadata", {})
            prv = (patch.get("metadata") or {}).get("resourceVersion") if isinstance(patch, dict) else None
            new["metadata"]["resourceVersion"] = prv or old["metadata"]["resourceVersion"]
            if (new["metadata"].get("managedFields") == old["metadata"].get("managedFields")):
                new["metadata"].pop("managedFields", None)
            return self.update(res, ns, name, new, manager, subresource, dry_run)

    def _apply(self, res, ns, name, body, manager, subresource, force, dry_run):
        if not manager:
            raise bad_request("PATCH requests with apply content type must have a fieldManager")
        cfg = parse_apply_body(body)
        if not isinstance(cfg, dict):
            raise bad_request("error decoding YAML: object expected")
        self._check_body(res, cfg, ns)
        md = cfg["metadata"]
        if md.get("name") and md["name"] != name:
            raise bad_request("the name of the object (%s) does not match the name on the URL (%s)"
                              % (md["name"], name))
        md["name"] = name
        if "managedFields" in md:
            raise bad_request("metadata.managedFields must be nil")
        has_status = "status" in res.subres
        with self.store.lock:
            old = self.store.get(res.group, res.resource, ns, name)
            if old is None:
                if subresource:
                    raise not_found(res.group, res.resource, name)
                obj = ssa.apply(None, cfg, manager, res.api_version, force, res.version_schema,
                                has_status, None, res.group, res.resource, name)
                obj["metadata"].pop("resourceVersion", None)
                mf = obj["metadata"].get("managedFields")
                created = self.create(res, ns, obj, manager, dry_run)
                return created
            live = self.out(res, old)
            rv = md.get("resourceVersion")
            if rv and rv != old["metadata"]["resourceVersion"]:
                raise conflict(res.group, res.resource, name, "the object has been modified; please "
                               "apply your changes to the latest version and try again")
            merged = ssa.apply(live, cfg, manager, res.api_version, force, res.version_schema,
                               has_status, subresource, res.group, res.resource, name)
            merged["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
            return self.update(res, ns, name, merged, manager, subresource, dry_run, _apply_entries=True)

    # ---- delete ---------------------------------------------------------------------------
    def delete(self, res, ns, name, opts, dry_run=False):
        policy = opts.get("propagationPolicy")
        if opts.get("orphanDependents") is True:
            policy = "Orphan"
        if policy is None and opts.get("orphanDependents") is None and (res.group, res.resource) == ("batch", "jobs"):
            policy = "Orphan"  # batch/v1 Job's default garbage collection policy
        pre = opts.get("preconditions") or {}
        with self.store.lock:
            old = self.store.get(res.group, res.resource, ns, name)
            if old is None:
                raise not_found(res.group, res.resource, name)
            omd = old["metadata"]
            if pre.get("uid") and pre["uid"] != omd.get("uid"):
                raise conflict(res.group, res.resource, name, "Precondition failed: UID in precondition: "
                               "%s, UID in object meta: %s" % (pre["uid"], omd.get("uid")))
            if pre.get("resourceVersion") and pre["resourceVersion"] != omd.get("resourceVersion"):
                raise conflict(res.group, res.resource, name, "Precondition failed: ResourceVersion in "
                               "precondition: %s, ResourceVersion in object meta: %s"
                               % (pre["resourceVersion"], omd.get("resourceVersion")))
            fins = list(omd.get("finalizers") or [])
            if policy == "Foreground" and "foregroundDeletion" not in fins:
                fins.append("foregroundDeletion")
            elif policy == "Orphan" and "orphan" not in fins:
                fins.append("orphan")
            is_ns = res.group == "" and res.resource == "namespaces"
            if fins or is_ns:
                new = dcopy(old)
                md = new["metadata"]
                if fins:
                    md["finalizers"] = fins
                if not md.get("deletionTimestamp"):
                    md["deletionTimestamp"] = now_rfc3339()
                    md["deletionGracePeriodSeconds"] = 0
                if is_ns:
                    new.setdefault("status", {})["phase"] = "Terminating"
                if dry_run:
                    return 200, self.out(res, new)
                if new != old:
                    self.store.put(res.group, res.resource, new, "MODIFIED")
                    if self.hooks:
                        self.hooks.after_write(res, old, new)
                return 200, self.out(res, new)
            if dry_run:
                return 200, self.out(res, old)
            final = self.store.remove(res.group, res.resource, ns, name)
            if self.hooks:
                self.hooks.after_delete(res, final)
            if (res.group, res.resource) in RETURN_OBJECT_ON_DELETE or res.crd is not None:
                return 200, self.out(res, final)
            d = {"name": name, "kind": res.resource, "uid": omd.get("uid")}
            if res.group:
                d["group"] = res.group
            return 200, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                         "details": d}

    def delete_collection(self, res, ns, q, opts, dry_run=False):
        lst = self.list(res, ns, q)
        items = []
        for o in lst["items"]:
            try:
                _, d = self.delete(res, o["metadata"].get("namespace", ""), o["metadata"]["name"], opts,
                                   dry_run)
                items.append(o)
            except ApiError:
                pass
        lst["items"] = items
        return lst


def parse_apply_body(body):
    """Apply bodies: JSON, or the block-style YAML subset kubectl and helm send."""
    text = body.decode("utf-8") if isinstance(body, bytes) else body
    try:
        return json.loads(text)
    except ValueError:
        pass
    from .miniyaml import load
    try:
        return load(text)
    except ValueError as e:
        raise bad_request("error decoding YAML: %s" % e)

