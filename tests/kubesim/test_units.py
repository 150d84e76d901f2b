"""Unit tests of kubesim's pure modules: selectors, patches, field sets and
server-side apply, RBAC rule matching, the store's watch history."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from kubesim_lib import apply as ssa  # noqa: E402
from kubesim_lib.patch import json_patch, merge_patch, strategic_merge  # noqa: E402
from kubesim_lib.rbac import Attrs, User, forbidden_message, rule_allows  # noqa: E402
from kubesim_lib.selectors import (fields_match, labels_match, parse_field_selector,  # noqa: E402
                                   parse_label_selector, selector_object_match)
from kubesim_lib.store import Store  # noqa: E402
from kubesim_lib.util import ApiError  # noqa: E402


class RequestHeaders(unittest.TestCase):
    def test_same_as_email_parser(self):
        """headers.parse_headers reads what http.client's email-based parser reads."""
        import http.client
        import io
        from kubesim_lib import headers
        blocks = [b"Host: a\r\nAccept: application/json, */*  \r\nUser-Agent:  kubectl/v1.35\r\n\r\n",
                  b"Impersonate-Group: g1\r\nimpersonate-group: g2\r\nImpersonate-Extra-Scopes%2Fx: v\r\n\r\n",
                  b"Folded: a\r\n  b\r\nX-Empty:\r\nX-Tab:\tt\r\n\r\n",
                  b"From me\r\nBad Name: v\r\n\r\n", b"Latin: \xe9\r\nNo-Colon\r\n\r\n", b"\r\n",
                  b"Cr: a\rb\r\n\r\n"]
        for raw in blocks:
            want = http.client.parse_headers(io.BytesIO(raw))
            got = headers.parse_headers(io.BytesIO(raw), headers.Headers)
            self.assertEqual(got.items(), list(want.items()), raw)
            for name in ("accept", "Impersonate-Group", "x-empty", "folded", "missing"):
                self.assertEqual(got.get(name), want.get(name), (raw, name))
                self.assertEqual(got.get_all(name), want.get_all(name), (raw, name))


class Selectors(unittest.TestCase):
    def test_label_selector_forms(self):
        r = parse_label_selector("owner=helm,name in (a,b),!gone,status!=x,has")
        self.assertTrue(labels_match(r, {"owner": "helm", "name": "b", "has": ""}))
        self.assertFalse(labels_match(r, {"owner": "helm", "name": "c", "has": ""}))
        self.assertFalse(labels_match(r, {"owner": "helm", "name": "a", "has": "", "gone": "1"}))
        self.assertFalse(labels_match(r, {"owner": "helm", "name": "a", "has": "", "status": "x"}))
        self.assertFalse(labels_match(r, {"owner": "helm", "name": "a"}))
        self.assertTrue(labels_match(parse_label_selector("a==1"), {"a": "1"}))
        self.assertTrue(labels_match(parse_label_selector("x notin (1)"), {}))

    def test_bad_selector(self):
        with self.assertRaises(ApiError) as cm:
            parse_label_selector("a in 1")
        self.assertEqual(cm.exception.code, 400)

    def test_field_selector(self):
        obj = {"metadata": {"name": "n", "namespace": "d"}, "involvedObject": {"uid": "u"}}
        self.assertTrue(fields_match(parse_field_selector("metadata.name=n,involvedObject.uid=u"), obj))
        self.assertFalse(fields_match(parse_field_selector("metadata.name!=n"), obj))

    def test_supported_field_labels(self):
        from kubesim_lib.resources import Registry
        from kubesim_lib.selectors import check_field_selector
        reg = Registry()
        check_field_selector(reg.lookup("", "v1", "pods"), parse_field_selector("status.phase=Running"))
        check_field_selector(reg.lookup("", "v1", "events"), parse_field_selector("involvedObject.uid=u"))
        with self.assertRaises(ApiError) as cm:
            check_field_selector(reg.lookup("", "v1", "configmaps"), parse_field_selector("data.x=1"))
        self.assertEqual(cm.exception.message, "field label not supported: data.x")

    def test_selector_object(self):
        sel = {"matchLabels": {"app": "a"}, "matchExpressions": [{"key": "t", "operator": "In",
                                                                   "values": ["x"]}]}
        self.assertTrue(selector_object_match(sel, {"app": "a", "t": "x"}))
        self.assertFalse(selector_object_match(sel, {"app": "a"}))
        self.assertFalse(selector_object_match(None, {"app": "a"}))
        self.assertTrue(selector_object_match({}, {}))


class Patches(unittest.TestCase):
    def test_merge_patch_rfc7386(self):
        self.assertEqual(merge_patch({"a": "b", "c": {"d": "e", "f": "g"}}, {"a": "z", "c": {"f": None}}),
                         {"a": "z", "c": {"d": "e"}})
        self.assertEqual(merge_patch({"a": [1, 2]}, {"a": [3]}), {"a": [3]})

    def test_json_patch(self):
        doc = {"a": {"b": [1, 2]}, "c": 1}
        out = json_patch(doc, [{"op": "add", "path": "/a/b/-", "value": 3},
                               {"op": "replace", "path": "/c", "value": 2},
                               {"op": "remove", "path": "/a/b/0"},
                               {"op": "test", "path": "/c", "value": 2},
                               {"op": "copy", "from": "/c", "path": "/d"},
                               {"op": "move", "from": "/d", "path": "/e~1f"}])
        self.assertEqual(out, {"a": {"b": [2, 3]}, "c": 2, "e/f": 2})
        self.assertEqual(doc["c"], 1, "input must not be modified")
        with self.assertRaises(ApiError):
            json_patch(doc, [{"op": "test", "path": "/c", "value": 9}])
        with self.assertRaises(ApiError):
            json_patch(doc, [{"op": "remove", "path": "/nope"}])

    def test_strategic_merge_containers_by_name(self):
        live = {"spec": {"containers": [{"name": "a", "image": "x:1"}, {"name": "b", "image": "y:1"}]}}
        out = strategic_merge(live, {"spec": {"containers": [{"name": "b", "image": "y:2"}]}})
        self.assertEqual(out["spec"]["containers"], [{"name": "a", "image": "x:1"}, {"name": "b", "image": "y:2"}])
        out = strategic_merge(live, {"spec": {"containers": [{"name": "a", "$patch": "delete"}]}})
        self.assertEqual([c["name"] for c in out["spec"]["containers"]], ["b"])
        out = strategic_merge(live, {"spec": {"$setElementOrder/containers": [{"name": "b"}, {"name": "a"}]}})
        self.assertEqual([c["name"] for c in out["spec"]["containers"]], ["b", "a"])

    def test_strategic_merge_directives(self):
        live = {"metadata": {"finalizers": ["a", "b"], "labels": {"x": "1", "y": "2"}},
                "spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}}
        out = strategic_merge(live, {"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"],
                                                  "labels": {"y": None}},
                                     "spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}})
        self.assertEqual(out["metadata"], {"finalizers": ["b"], "labels": {"x": "1"}})
        self.assertEqual(out["spec"]["strategy"], {"type": "Recreate"})
        out = strategic_merge(live, {"metadata": {"labels": {"$patch": "replace", "z": "3"}}})
        self.assertEqual(out["metadata"]["labels"], {"z": "3"})


class FieldSets(unittest.TestCase):
    def test_fieldsv1_round_trip(self):
        obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": "1"},
                                                                "finalizers": ["f"]},
               "spec": {"containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 80}]}]}}
        fs = ssa.field_set(obj)
        fv1 = ssa.to_fieldsv1(fs)
        self.assertEqual(fv1["f:metadata"], {"f:labels": {"f:a": {}}, "f:finalizers": {'v:"f"': {}}})
        item = fv1["f:spec"]["f:containers"]['k:{"name":"c"}']
        self.assertIn(".", item)
        self.assertIn('k:{"containerPort":80,"protocol":"TCP"}', item["f:ports"])
        self.assertEqual(ssa.from_fieldsv1(fv1), fs)

    def test_apply_conflict_and_force(self):
        live = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}}
        ssa.track_update(None, live, "other", "v1")
        cfg = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "2"}}
        with self.assertRaises(ApiError) as cm:
            ssa.apply(live, cfg, "me", "v1", False, resource="configmaps", name="c")
        self.assertEqual(cm.exception.code, 409)
        self.assertEqual(cm.exception.message,
                         'Apply failed with 1 conflict: conflict with "other" using v1: .data.a')
        out = ssa.apply(live, cfg, "me", "v1", True)
        self.assertEqual(out["data"], {"a": "2"})
        mgrs = {e["manager"]: e for e in out["metadata"]["managedFields"]}
        self.assertEqual(set(mgrs), {"me"})
        self.assertEqual(mgrs["me"]["operation"], "Apply")

    def test_apply_same_value_shares_and_removal(self):
        live = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}}
        ssa.track_update(None, live, "other", "v1")
        cfg = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1", "b": "2"}}
        out = ssa.apply(live, cfg, "me", "v1", False)
        self.assertEqual(out["data"], {"a": "1", "b": "2"})
        cfg2 = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {}}
        out2 = ssa.apply(out, cfg2, "me", "v1", False)
        # b was only mine: removed; a is still owned by "other": kept
        self.assertEqual(out2["data"], {"a": "1"})

    def test_update_transfers_ownership(self):
        old = {"metadata": {"name": "c"}, "data": {"a": "1", "b": "1"}}
        ssa.track_update(None, old, "m1", "v1")
        new = {"metadata": {"name": "c", "managedFields": old["metadata"]["managedFields"]},
               "data": {"a": "2", "b": "1"}}
        ssa.track_update(old, new, "m2", "v1")
        mf = {e["manager"]: e["fieldsV1"] for e in new["metadata"]["managedFields"]}
        self.assertEqual(mf["m2"], {"f:data": {"f:a": {}}})
        self.assertEqual(mf["m1"], {"f:data": {"f:b": {}}})


class ManagedFieldsReuse(unittest.TestCase):
    def test_kept_entries_same_as_reparsed(self):
        """track_update writing back the entries it wrote before (without parsing
        them) gives what parsing and re-encoding every entry gives."""
        from kubesim_lib.util import dcopy
        steps = [("helm", None, lambda o: o["spec"].update(replicas=2)),
                 ("kcm", "status", lambda o: o.setdefault("status", {}).update(ready=1)),
                 ("kubectl", None, lambda o: o["metadata"].setdefault("labels", {}).update(x="1")),
                 ("kcm", "status", lambda o: o["status"].update(ready=2, extra=[1, 2])),
                 ("helm", None, lambda o: o["spec"].pop("paused")),
                 ("kubectl", None, lambda o: o["metadata"].pop("labels"))]
        fast = {"metadata": {"name": "d"}, "spec": {"replicas": 1, "paused": True, "template": {"a": "b"}}}
        ssa.track_update(None, fast, "helm", "apps/v1", None, None, True)
        slow = dcopy(fast)
        for mgr, sub, change in steps:
            nf, ns = dcopy(fast), dcopy(slow)
            change(nf)
            change(ns)
            ssa.track_update(fast, nf, mgr, "apps/v1", sub, None, True)
            ssa._written.clear()  # the slow path: every entry parsed again
            ssa.track_update(slow, ns, mgr, "apps/v1", sub, None, True)
            self.assertEqual(nf["metadata"].get("managedFields"), ns["metadata"].get("managedFields"), mgr)
            fast, slow = nf, ns
            for e in fast["metadata"].get("managedFields") or []:  # written by the fast run
                ssa._wrote(e)


class UpdateChanges(unittest.TestCase):
    """ssa.changes (the walk that skips equal subtrees) gives what the
    definition over the two whole field sets gives, on many edits."""

    @staticmethod
    def by_definition(old, new, **kw):
        so, sn = ssa.field_set(old, **kw), ssa.field_set(new, **kw)
        changed = {p for p in sn if p not in so or ssa.get_at(old, p) != ssa.get_at(new, p)}
        return changed, so - sn

    def test_same_as_whole_sets(self):
        import random
        from kubesim_lib.util import dcopy
        base = {"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "d", "namespace": "n", "labels": {"a": "1"}, "annotations": {"x": "y"},
                             "finalizers": ["f1"], "resourceVersion": "5", "ownerReferences": [
                                 {"uid": "u1", "name": "o", "kind": "K", "apiVersion": "v1"}]},
                "spec": {"replicas": 1, "selector": {"matchLabels": {"a": "1"}}, "template": {
                    "metadata": {"labels": {"a": "1"}},
                    "spec": {"containers": [{"name": "c", "image": "i:1", "ports": [
                        {"containerPort": 80, "name": "http"}, {"containerPort": 53, "protocol": "UDP"}],
                        "env": [{"name": "E", "value": "1"}], "args": ["a", "b"]}],
                        "volumes": [{"name": "v", "emptyDir": {}}]}}},
                "status": {"replicas": 1, "conditions": [{"type": "Available", "status": "True"}]}}
        edits = [
            lambda o: o["spec"].update(replicas=3),
            lambda o: o["metadata"]["labels"].update(b="2"),
            lambda o: o["metadata"].pop("labels"),
            lambda o: o["metadata"].update(resourceVersion="9"),
            lambda o: o["metadata"]["finalizers"].append("f2"),
            lambda o: o["metadata"].update(ownerReferences=[]),
            lambda o: o["spec"]["selector"]["matchLabels"].update(b="2"),
            lambda o: o["spec"]["template"]["spec"]["containers"][0].update(image="i:2"),
            lambda o: o["spec"]["template"]["spec"]["containers"][0]["ports"].reverse(),
            lambda o: o["spec"]["template"]["spec"]["containers"][0]["ports"][1].pop("protocol"),
            lambda o: o["spec"]["template"]["spec"]["containers"][0]["ports"][0].update(containerPort=8080),
            lambda o: o["spec"]["template"]["spec"]["containers"].append({"name": "d", "image": "j"}),
            lambda o: o["spec"]["template"]["spec"]["containers"][0]["args"].append("c"),
            lambda o: o["spec"]["template"]["spec"]["containers"][0]["env"][0].update(value="2"),
            lambda o: o["spec"]["template"]["spec"]["volumes"][0].update(emptyDir={"medium": "Memory"}),
            lambda o: o["spec"]["template"]["spec"]["volumes"][0].update(emptyDir={}),
            lambda o: o["spec"].update(paused=None),
            lambda o: o["spec"].update(template={}),
            lambda o: o["spec"].update(strategy={"type": "Recreate"}),
            lambda o: o.pop("spec"),
            lambda o: o["status"].update(replicas=2),
            lambda o: o["status"]["conditions"].append({"type": "Progressing", "status": "True"}),
            lambda o: o["status"]["conditions"][0].update(status="False"),
            lambda o: o.update(status={}),
            lambda o: o.update(data={"k": "v"}),
        ]
        rnd = random.Random(14)

        def edited(obj, most):
            obj = dcopy(obj)
            for e in rnd.sample(edits, rnd.randint(0, most)):
                try:
                    e(obj)
                except (KeyError, IndexError):
                    pass
            return obj
        for i in range(400):
            old = edited(base, 3)
            new = edited(old, 4)
            for kw in ({}, {"with_status": False}, {"status_only": True}):
                self.assertEqual(ssa.changes(old, new, **kw), self.by_definition(old, new, **kw), (i, kw))
        schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
                      "items": {"type": "object"}},
            "atomic": {"type": "object", "x-kubernetes-map-type": "atomic"},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}}
        old = {"metadata": {"name": "x"}, "spec": {"items": [{"k": "a", "v": 1}], "atomic": {"a": 1},
                                                  "free": {"p": {"q": 1}}, "other": [1]}}
        for change in ({"items": [{"k": "a", "v": 2}, {"k": "b"}]}, {"atomic": {"a": 2}},
                       {"free": {"p": {"q": 2}}}, {"other": [2]}, {"items": []}):
            new = dcopy(old)
            new["spec"].update(change)
            self.assertEqual(ssa.changes(old, new, schema), self.by_definition(old, new, schema=schema), change)


class Rbac(unittest.TestCase):
    def test_rules(self):
        rule = {"apiGroups": ["apps"], "resources": ["deployments", "*/scale"], "verbs": ["get", "list"]}
        self.assertTrue(rule_allows(rule, Attrs("get", "apps", "deployments", "", "ns", "d")))
        self.assertFalse(rule_allows(rule, Attrs("get", "apps", "deployments", "status", "ns", "d")))
        self.assertTrue(rule_allows(rule, Attrs("get", "apps", "replicasets", "scale", "ns", "d")))
        self.assertFalse(rule_allows(rule, Attrs("delete", "apps", "deployments", "", "ns", "d")))
        named = {"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["s"], "verbs": ["*"]}
        self.assertTrue(rule_allows(named, Attrs("get", "", "secrets", "", "ns", "s")))
        self.assertFalse(rule_allows(named, Attrs("list", "", "secrets", "", "ns", "")))
        nr = {"nonResourceURLs": ["/apis/*"], "verbs": ["get"]}
        self.assertTrue(rule_allows(nr, Attrs("get", path="/apis/apps", resource_request=False)))
        self.assertFalse(rule_allows(nr, Attrs("get", path="/api", resource_request=False)))

    def test_forbidden_message(self):
        u = User("system:serviceaccount:t:sa")
        self.assertEqual(forbidden_message(u, Attrs("list", "", "pods", "", "t")),
                         'pods is forbidden: User "system:serviceaccount:t:sa" cannot list resource "pods" in '
                         'API group "" in the namespace "t"')
        self.assertEqual(forbidden_message(u, Attrs("get", "apps", "deployments", "status", "", "d")),
                         'deployments.apps "d" is forbidden: User "system:serviceaccount:t:sa" cannot get '
                         'resource "deployments/status" in API group "apps" at the cluster scope')


class CrdSchema(unittest.TestCase):
    SCHEMA = {"type": "object", "required": ["spec"], "properties": {
        "metadata": {"type": "object"},
        "spec": {"type": "object", "required": ["size"], "properties": {
            "size": {"type": "integer", "minimum": 1},
            "color": {"type": "string", "enum": ["red", "blue"], "default": "red"},
            "opt": {"type": "string"},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            "tags": {"type": "array", "items": {"type": "string"}}}},
        "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}

    def test_prune_default_validate(self):
        from kubesim_lib.crdschema import process
        obj = {"apiVersion": "example.com/v1", "kind": "W", "metadata": {"name": "w"},
               "spec": {"size": 2, "extra": 1, "opt": None, "free": {"any": {"x": 1}}}, "junk": True}
        dropped = []
        self.assertEqual(process(obj, self.SCHEMA, dropped), [])
        self.assertEqual(obj["spec"], {"size": 2, "color": "red", "free": {"any": {"x": 1}}})
        self.assertEqual(obj["metadata"], {"name": "w"}, "root metadata is never pruned")
        self.assertNotIn("junk", obj)
        self.assertEqual(sorted(dropped), ["junk", "spec.extra"])

    def test_errors(self):
        from kubesim_lib.crdschema import process
        errs = process({"spec": {"size": "x", "color": "green", "tags": [1]}}, self.SCHEMA)
        self.assertIn(("spec.size", 'Invalid value: "string": spec.size in body must be of type integer: "string"',
                       "FieldValueTypeInvalid"), errs)
        self.assertIn(("spec.color", 'Unsupported value: "green": supported values: "red", "blue"',
                       "FieldValueNotSupported"), errs)
        self.assertIn(("spec.tags[0]", 'Invalid value: "integer": spec.tags[0] in body must be of type string: '
                       '"integer"', "FieldValueTypeInvalid"), errs)
        self.assertEqual(process({}, self.SCHEMA), [("spec", "Required value", "FieldValueRequired")])
        errs = process({"spec": {"size": 0}}, self.SCHEMA)
        self.assertEqual(errs[0][1], "Invalid value: 0: spec.size in body should be greater than or equal to 1")


def _pb_varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out


def _pb(num, val):
    if isinstance(val, bool):
        return _pb_varint(num << 3) + _pb_varint(int(val))
    if isinstance(val, int):
        return _pb_varint(num << 3) + _pb_varint(val & (2 ** 64 - 1))
    if isinstance(val, str):
        val = val.encode()
    return _pb_varint(num << 3 | 2) + _pb_varint(len(val)) + val


class Protobuf(unittest.TestCase):
    def test_secret_envelope(self):
        from kubesim_lib.protobuf import decode
        meta = _pb(1, "rel") + _pb(2, "") + _pb(11, _pb(1, "owner") + _pb(2, "helm")) + \
            _pb(8, _pb(1, -62135596800))
        secret = _pb(1, meta) + _pb(2, _pb(1, "release") + _pb(2, b"\x00\xff")) + _pb(3, "helm.sh/release.v1") + \
            _pb(5, False)
        body = b"k8s\x00" + _pb(1, _pb(1, "v1") + _pb(2, "Secret")) + _pb(2, secret)
        obj = decode(body)
        self.assertEqual(obj, {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "rel", "labels":
                                                                                  {"owner": "helm"}},
                               "data": {"release": "AP8="}, "type": "helm.sh/release.v1"})

    def test_delete_options_and_errors(self):
        from kubesim_lib.protobuf import decode
        body = b"k8s\x00" + _pb(1, _pb(1, "v1") + _pb(2, "DeleteOptions")) + \
            _pb(2, _pb(1, 0) + _pb(4, "Foreground") + _pb(2, _pb(1, "u-1")))
        self.assertEqual(decode(body), {"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": "Foreground",
                                        "preconditions": {"uid": "u-1"}})
        with self.assertRaises(ApiError) as cm:
            decode(b"k8s\x00" + _pb(1, _pb(2, "Deployment")) + _pb(2, b""))
        self.assertEqual(cm.exception.code, 415)
        for bad in (b"k8s\x00\x0a\xff", b"k8s\x00\x0a\x05ab", b"nope"):
            with self.assertRaises(ApiError) as cm:
                decode(bad)
            self.assertEqual(cm.exception.code, 400)


class Shapes(unittest.TestCase):
    def test_typed_decoding_errors(self):
        from kubesim_lib.resources import Registry
        from kubesim_lib.shapes import check
        dep = Registry().lookup("apps", "v1", "deployments")
        check(dep, {"metadata": {"name": "d"}, "spec": {"replicas": 2, "template": {"spec": {"containers": [
            {"name": "c", "ports": [{"containerPort": 80}]}]}}}})
        with self.assertRaises(ApiError) as cm:
            check(dep, {"metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [
                {"name": "c", "ports": [{"containerPort": "80"}]}]}}}})
        self.assertEqual(cm.exception.message, 'Deployment in version "v1" cannot be handled as a Deployment: json: '
                         'cannot unmarshal string into Go struct field '
                         'Deployment.spec.template.spec.containers.ports.containerPort of type int32')
        with self.assertRaises(ApiError):
            check(dep, {"metadata": {"labels": {"a": 1}}})


class KnownFields(unittest.TestCase):
    def test_unknown_fields_and_drop(self):
        from kubesim_lib.knownfields import drop, unknown_fields
        from kubesim_lib.resources import Registry
        dep = Registry().lookup("apps", "v1", "deployments")
        obj = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "labelz": {}},
               "spec": {"replicas": 1, "templat": {}, "template": {"spec": {"containers": [
                   {"name": "c", "image": "i", "imagee": "x", "env": [{"name": "A", "valu": "1"}],
                    "livenessProbe": {"anything": 1}}]}}}}
        paths = unknown_fields(dep, obj)
        self.assertEqual(paths, ["metadata.labelz", "spec.templat", "spec.template.spec.containers[0].imagee",
                                 "spec.template.spec.containers[0].env[0].valu"])
        drop(dep, obj, paths)
        self.assertEqual(unknown_fields(dep, obj), [])
        self.assertEqual(obj["spec"]["template"]["spec"]["containers"][0]["env"], [{"name": "A"}])


class History(unittest.TestCase):
    def test_events_and_410(self):
        s = Store(history_events=3)
        with s.lock:
            for i in range(5):
                s.put("", "configmaps", {"metadata": {"name": "c%d" % i, "namespace": "d"}}, "ADDED")
            rvs = [e.rv for e in s.events_after(s.compacted)]
            self.assertEqual(len(rvs), 3)
            with self.assertRaises(ApiError) as cm:
                s.events_after(s.compacted - 1)
            self.assertEqual(cm.exception.code, 410)
            self.assertIn("too old resource version", cm.exception.message)
            last = s.rv
            s.remove("", "configmaps", "d", "c4")
            self.assertEqual([o["metadata"]["name"] for o in s.list_at("", "configmaps", "d", last)],
                             ["c0", "c1", "c2", "c3", "c4"], "snapshot before the delete")
            self.assertEqual([o["metadata"]["name"] for o in s.list_at("", "configmaps", "d", last - 1)],
                             ["c0", "c1", "c2", "c3"], "snapshot before c4 was added")
            with self.assertRaises(ApiError):
                s.list_at("", "configmaps", "d", s.compacted - 1)
            evs = s.events_after(last)
            self.assertEqual([e.type for e in evs], ["DELETED"])
            self.assertEqual(evs[0].obj["metadata"]["resourceVersion"], str(s.rv))
            s.put("", "secrets", {"metadata": {"name": "s", "namespace": "d"}}, "ADDED")
            self.assertEqual([e.type for e in s.events_for("", "configmaps", last)], ["DELETED"])
            self.assertEqual([e.resource for e in s.events_for("", "secrets", last)], ["secrets"])
            self.assertEqual(s.events_for("", "configmaps", s.rv), [])
            self.assertLessEqual(len(s.res_events[("", "configmaps")]), 3, "a resource's events outlive the history")
            with self.assertRaises(ApiError):
                s.events_for("", "configmaps", s.compacted - 1)

    def test_label_index(self):
        """list_selected (the label index) finds what a filter over list() finds,
        in the same order, through label changes and removals."""
        import random
        rnd = random.Random(3)
        s = Store()
        sels = ["a=1", "a=1,b=2", "b=2,a!=1", "a in (1,2)", "c=3,a=1", "", "a=9", "b==2"]
        with s.lock:
            for i in range(300):
                ns, name = rnd.choice(["x", "y", ""]), "o%d" % rnd.randint(0, 30)
                if rnd.random() < 0.2:
                    s.remove("", "secrets", ns, name)
                else:
                    labels = {k: rnd.choice(["1", "2", "3"]) for k in ("a", "b", "c") if rnd.random() < 0.6}
                    s.put("", "secrets", {"metadata": {"name": name, "namespace": ns, "labels": labels}}, "ADDED")
                for sel in sels:
                    lsel = parse_label_selector(sel)
                    for scope in ("x", "y", None):
                        want = [o for o in s.list("", "secrets", scope)
                                if labels_match(lsel, o["metadata"].get("labels"))]
                        got = [o for o in s.list_selected("", "secrets", scope, lsel)
                               if labels_match(lsel, o["metadata"].get("labels"))]
                        self.assertEqual(got, want, (i, sel, scope))


class Hpack(unittest.TestCase):
    """h2conn's HPACK coder against the hpack package's (RFC 7541): the same
    header lists both ways, through dynamic-table inserts, evictions and size
    updates; malformed blocks raise hpack's errors only (h2 turns them into a
    connection error)."""

    def setUp(self):
        from kubesim_lib import h2conn
        err = h2conn.load()
        if err:
            self.skipTest(err)
        self.h2conn = h2conn
        self.hpack = h2conn.hpack

    def test_decoder_reads_what_hpack_writes(self):
        import random
        rnd = random.Random(14)
        names = [b":method", b":path", b"user-agent", b"accept", b"authorization", b"impersonate-group",
                 b"x-long-" + b"n" * 60, b"content-type"]
        for trial in range(200):
            enc, dec = self.hpack.Encoder(), self.h2conn._Decoder()
            if trial % 3 == 0:
                enc.header_table_size = 200  # evictions, and a size update in the next block
            for _ in range(20):
                hs = [(rnd.choice(names), bytes(rnd.choice(b"abc/?=%-_") for _ in range(rnd.randint(0, 150))))
                      for _ in range(rnd.randint(1, 8))]
                self.assertEqual(dec.decode(enc.encode(hs, huffman=rnd.random() < 0.7)), hs)

    def test_decoder_limits_and_errors(self):
        import random
        rnd = random.Random(2)
        for _ in range(3000):
            b = bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 24)))
            try:
                self.h2conn._Decoder().decode(b)
            except self.hpack.HPACKError:
                pass
        d = self.h2conn._Decoder()
        d.max_header_list_size = 100
        with self.assertRaises(self.hpack.exceptions.OversizedHeaderListError):
            d.decode(self.hpack.Encoder().encode([(b"a", b"b" * 100)]))
        with self.assertRaises(self.hpack.exceptions.InvalidTableSizeError):
            self.h2conn._Decoder().decode(b"\x3f\xe1\x3f")  # a table size update to 8192 > 4096
        with self.assertRaises(self.hpack.exceptions.InvalidTableIndex):
            self.h2conn._Decoder().decode(b"\xbe")  # index 62: the dynamic table is empty
        with self.assertRaises(self.hpack.HPACKDecodingError):
            self.h2conn._Decoder().decode(b"\x00\x05ab")  # truncated name

    def test_encoder_read_by_hpack(self):
        enc, dec = self.h2conn._Encoder(), self.hpack.Decoder()
        hs = [(b":status", b"200"), (b"content-type", b"application/json"), (b"x" * 300, b"y" * 5000)]
        self.assertEqual([tuple(h) for h in dec.decode(enc.encode(hs), raw=True)], hs)
        enc.header_table_size = 0  # the peer's SETTINGS_HEADER_TABLE_SIZE: a size update first
        dec.max_allowed_table_size = 0
        self.assertEqual([tuple(h) for h in dec.decode(enc.encode(hs), raw=True)], hs)
        self.assertEqual(dec.header_table_size, 0)


if __name__ == "__main__":
    unittest.main()
