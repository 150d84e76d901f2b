"""End-to-end tests of a kubesim process over loopback HTTP (--http mode with
static tokens): discovery, CRUD semantics, watch/410/bookmarks, pagination,
RBAC and impersonation, TokenRequest, reviews, faults, request log and the
simulated controllers."""
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ADMIN = "admintok"
ALICE = "alicetok"


class Sim:
    def __init__(self, tls=False, args=(), env=None):
        self.dir = tempfile.mkdtemp(prefix="kubesim-test-")
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "kubesim"), "--listen", "127.0.0.1:0", "--dir", self.dir]
            + ([] if tls else ["--http"]) + [
             "--token", ADMIN + "=root:system:masters", "--token", ALICE + "=alice:devs",
             "--bookmark-interval", "0.3", "--pod-start-delay", "0.1", "--pod-run-seconds", "0.2",
             "--watch-cache-events", "200"] + list(args),
            stdout=subprocess.DEVNULL, stderr=self._errfile(), env=env)
        for _ in range(1200):
            if os.path.exists(os.path.join(self.dir, "kubeconfig")):
                break
            if self.proc.poll() is not None:
                raise RuntimeError("kubesim exited: " + open(os.path.join(self.dir, "stderr")).read())
            time.sleep(0.05)
        with open(os.path.join(self.dir, "port")) as f:
            self.port = int(f.read())

    def _errfile(self):
        self.err = open(os.path.join(self.dir, "stderr"), "w")
        return self.err

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)
        self.err.close()
        with open(os.path.join(self.dir, "stderr")) as f:
            err = f.read()
        shutil.rmtree(self.dir, ignore_errors=True)
        return err

    def req(self, method, path, body=None, token=ADMIN, ctype="application/json", headers=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        h = {"Content-Type": ctype, "Accept": "application/json"}
        if token:
            h["Authorization"] = "Bearer " + token
        h.update(headers or {})
        data = body if isinstance(body, (bytes, str)) or body is None else json.dumps(body)
        c.request(method, path, data, h)
        r = c.getresponse()
        raw = r.read()
        c.close()
        try:
            return r.status, json.loads(raw) if raw else None, r
        except ValueError:
            return r.status, raw, r

    def watch(self, path, token=ADMIN, max_events=10, timeout=5.0):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        c.request("GET", path, headers={"Authorization": "Bearer " + token})
        r = c.getresponse()
        return c, r

    def until(self, fn, secs=30.0):
        end = time.time() + secs
        while time.time() < end:
            v = fn()
            if v:
                return v
            time.sleep(0.05)
        raise AssertionError("condition not met within %ss" % secs)


def read_events(resp, n, skip_bookmarks=False):
    out = []
    while len(out) < n:
        line = resp.readline()
        if not line:
            break
        e = json.loads(line)
        if skip_bookmarks and e["type"] == "BOOKMARK":
            continue
        out.append(e)
    return out


CM = "/api/v1/namespaces/default/configmaps"


class KubesimServer(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = Sim()

    @classmethod
    def tearDownClass(cls):
        err = cls.sim.stop()
        if "Traceback" in err:
            raise AssertionError("kubesim printed a traceback:\n" + err)

    def test_discovery(self):
        s = self.sim
        code, body, _ = s.req("GET", "/api")
        self.assertEqual((code, body["versions"]), (200, ["v1"]))
        code, body, r = s.req("GET", "/apis", headers={
            "Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"})
        self.assertEqual(body["kind"], "APIGroupDiscoveryList")
        self.assertIn("as=APIGroupDiscoveryList", r.getheader("Content-Type"))
        names = [i["metadata"]["name"] for i in body["items"]]
        self.assertIn("apps", names)
        code, body, _ = s.req("GET", "/apis/apps/v1")
        dep = [x for x in body["resources"] if x["name"] == "deployments"][0]
        self.assertEqual((dep["kind"], dep["namespaced"], dep["shortNames"]), ("Deployment", True, ["deploy"]))
        self.assertIn("deployments/status", [x["name"] for x in body["resources"]])
        code, body, _ = s.req("GET", "/version")
        self.assertEqual(body["gitVersion"], "v1.35.0")

    def test_crud_semantics(self):
        s = self.sim
        code, cm, _ = s.req("POST", CM + "?fieldManager=test", {"apiVersion": "v1", "kind": "ConfigMap",
                                                                "metadata": {"name": "c1"}, "data": {"a": "1"}})
        self.assertEqual(code, 201)
        self.assertTrue(cm["metadata"]["uid"])
        self.assertNotIn("generation", cm["metadata"])
        code, st, _ = s.req("POST", CM, {"metadata": {"name": "c1"}})
        self.assertEqual((code, st["reason"], st["message"]), (409, "AlreadyExists", 'configmaps "c1" already exists'))
        stale = dict(cm, data={"a": "2"})
        code, cm2, _ = s.req("PUT", CM + "/c1?fieldManager=other", stale)
        self.assertEqual(code, 200)
        self.assertGreater(int(cm2["metadata"]["resourceVersion"]), int(cm["metadata"]["resourceVersion"]))
        code, st, _ = s.req("PUT", CM + "/c1", dict(cm, data={"a": "3"}))
        self.assertEqual((code, st["reason"]), (409, "Conflict"))
        self.assertEqual(st["message"], 'Operation cannot be fulfilled on configmaps "c1": the object has been '
                         'modified; please apply your changes to the latest version and try again')
        self.assertEqual([e["manager"] for e in cm2["metadata"]["managedFields"]], ["other"],
                         "a PUT echoing managedFields is tracked normally")
        code, same, _ = s.req("PUT", CM + "/c1", cm2)
        self.assertEqual(same["metadata"]["resourceVersion"], cm2["metadata"]["resourceVersion"], "no-op update")
        code, st, _ = s.req("GET", CM + "/nope")
        self.assertEqual((code, st["reason"], st["details"]), (404, "NotFound", {"name": "nope", "kind": "configmaps"}))
        code, st, _ = s.req("POST", "/api/v1/namespaces/missing/configmaps", {"metadata": {"name": "x"}})
        self.assertEqual((code, st["message"]), (404, 'namespaces "missing" not found'))
        code, p, _ = s.req("PATCH", CM + "/c1", {"data": {"b": "x"}}, ctype="application/merge-patch+json")
        self.assertEqual(p["data"], {"a": "2", "b": "x"})
        code, p, _ = s.req("PATCH", CM + "/c1", [{"op": "remove", "path": "/data/a"}],
                           ctype="application/json-patch+json")
        self.assertEqual(p["data"], {"b": "x"})
        code, d, _ = s.req("DELETE", CM + "/c1")
        self.assertEqual((code, d["status"]), (200, "Success"))
        code, _, _ = s.req("POST", CM + "?dryRun=All", {"metadata": {"name": "dry"}})
        self.assertEqual(code, 201)
        self.assertEqual(s.req("GET", CM + "/dry")[0], 404)

    def test_percent_encoded_names(self):
        """A name with ':' may come percent-encoded in the path, as kubectl and Helm send it."""
        s = self.sim
        cr = "/apis/rbac.authorization.k8s.io/v1/clusterroles"
        body = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": "system:pct-test"}, "rules": []}
        code, _, _ = s.req("PATCH", cr + "/system%3Apct-test?fieldManager=t&force=true", body,
                           ctype="application/apply-patch+yaml")
        self.assertEqual(code, 201)
        code, got, _ = s.req("GET", cr + "/system%3apct-test")
        self.assertEqual((code, got["metadata"]["name"]), (200, "system:pct-test"))
        self.assertEqual(s.req("GET", cr + "/system:pct-test")[0], 200)
        self.assertEqual(s.req("DELETE", cr + "/system%3Apct-test")[0], 200)

    def test_apiservice_availability(self):
        """An APIService is Available once its Service exists (what Helm's wait reads)."""
        s = self.sim
        path = "/apis/apiregistration.k8s.io/v1/apiservices"
        body = {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
                "metadata": {"name": "v1beta1.metrics.example.io"},
                "spec": {"group": "metrics.example.io", "version": "v1beta1", "groupPriorityMinimum": 100,
                         "versionPriority": 100, "service": {"name": "ms", "namespace": "default"}}}
        self.assertEqual(s.req("POST", path, body)[0], 201)

        def available():
            for _ in range(100):
                st = s.req("GET", path + "/v1beta1.metrics.example.io")[1].get("status") or {}
                c = [x for x in st.get("conditions") or [] if x["type"] == "Available"]
                if c:
                    return c[0]["status"], c[0]["reason"]
                time.sleep(0.05)
        self.assertEqual(available(), ("False", "ServiceNotFound"))
        svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ms"},
               "spec": {"ports": [{"port": 443}]}}
        self.assertEqual(s.req("POST", "/api/v1/namespaces/default/services", svc)[0], 201)
        for _ in range(100):
            if available() == ("True", "Passed"):
                break
            time.sleep(0.05)
        self.assertEqual(available(), ("True", "Passed"))

    def test_optimistic_concurrency(self):
        """Parallel read-modify-write loops with retry on 409: no update is lost."""
        import threading
        s = self.sim
        s.req("POST", CM, {"metadata": {"name": "counter"}, "data": {"n": "0"}})
        errors = []

        def worker():
            for _ in range(10):
                while True:
                    code, cur, _ = s.req("GET", CM + "/counter")
                    cur["data"]["n"] = str(int(cur["data"]["n"]) + 1)
                    code, _, _ = s.req("PUT", CM + "/counter", cur)
                    if code == 200:
                        break
                    if code != 409:
                        errors.append(code)
                        return
        ts = [threading.Thread(target=worker) for _ in range(6)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(s.req("GET", CM + "/counter")[1]["data"]["n"], "60")

    def test_builtin_strict_field_validation(self):
        s = self.sim
        dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "strict"},
               "spec": {"selector": {"matchLabels": {"a": "s"}}, "replicas": 1, "replica": 2, "template": {
                   "metadata": {"labels": {"a": "s"}}, "spec": {"containers": [{"name": "c", "image": "i:1"}]}}}}
        code, st, _ = s.req("POST", "/apis/apps/v1/namespaces/default/deployments?fieldValidation=Strict", dep)
        self.assertEqual((code, st["message"]), (400, 'Deployment in version "v1" cannot be handled as a Deployment: '
                                                      'strict decoding error: unknown field "spec.replica"'))
        code, d, r = s.req("POST", "/apis/apps/v1/namespaces/default/deployments", dep)
        self.assertEqual(code, 201)
        self.assertNotIn("replica", d["spec"])
        self.assertEqual(r.getheader("Warning"), '299 - "unknown field \\"spec.replica\\""')

    def test_generation(self):
        s = self.sim
        dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "g1"},
               "spec": {"selector": {"matchLabels": {"a": "g1"}}, "template": {
                   "metadata": {"labels": {"a": "g1"}}, "spec": {"containers": [{"name": "c", "image": "i:1"}]}}}}
        code, d, _ = s.req("POST", "/apis/apps/v1/namespaces/default/deployments", dep)
        self.assertEqual((code, d["metadata"]["generation"], d["spec"]["replicas"]), (201, 1, 1))
        code, d, _ = s.req("PATCH", "/apis/apps/v1/namespaces/default/deployments/g1",
                           {"metadata": {"labels": {"x": "y"}}}, ctype="application/merge-patch+json")
        self.assertEqual(d["metadata"]["generation"], 1)
        code, d, _ = s.req("PATCH", "/apis/apps/v1/namespaces/default/deployments/g1",
                           {"spec": {"replicas": 2}}, ctype="application/strategic-merge-patch+json")
        self.assertEqual(d["metadata"]["generation"], 2)
        d = s.until(lambda: (lambda x: x if x.get("status", {}).get("availableReplicas") == 2 else None)(
            s.req("GET", "/apis/apps/v1/namespaces/default/deployments/g1")[1]))
        conds = {c["type"]: c for c in d["status"]["conditions"]}
        self.assertEqual(conds["Available"]["status"], "True")
        self.assertEqual(conds["Progressing"]["reason"], "NewReplicaSetAvailable")
        self.assertEqual(d["status"]["observedGeneration"], 2)

    def test_watch_and_410_and_bookmarks(self):
        s = self.sim
        code, lst, _ = s.req("GET", CM + "?labelSelector=w%3D1")
        rv = lst["metadata"]["resourceVersion"]
        c, r = s.watch(CM + "?watch=1&labelSelector=w%3D1&allowWatchBookmarks=true&resourceVersion=" + rv)
        s.req("POST", CM, {"metadata": {"name": "w1", "labels": {"w": "1"}}})
        s.req("POST", CM, {"metadata": {"name": "w2", "labels": {"w": "2"}}})
        s.req("PATCH", CM + "/w1", {"metadata": {"labels": {"w": "0"}}}, ctype="application/merge-patch+json")
        evs = read_events(r, 2, skip_bookmarks=True)
        self.assertEqual([(e["type"], e["object"]["metadata"]["name"]) for e in evs],
                         [("ADDED", "w1"), ("DELETED", "w1")])
        bm = None
        for e in read_events(r, 5):
            if e["type"] == "BOOKMARK":
                bm = e
                break
        self.assertIsNotNone(bm, "no bookmark")
        self.assertEqual(bm["object"]["kind"], "ConfigMap")
        c.close()
        s.req("POST", "/_kubesim/compact")
        c, r = s.watch(CM + "?watch=1&resourceVersion=" + rv)
        ev = read_events(r, 1)[0]
        self.assertEqual((ev["type"], ev["object"]["code"], ev["object"]["reason"]), ("ERROR", 410, "Expired"))
        c.close()

    def test_single_object_watch(self):
        """The readiness wait's watch: one namespaced Deployment by fieldSelector
        metadata.name from a resourceVersion, impersonated, with bookmarks and
        timeoutSeconds; RBAC sees the name (resourceNames) as kube's does."""
        s = self.sim
        s.req("POST", "/api/v1/namespaces", {"metadata": {"name": "sw"}})
        s.req("POST", "/api/v1/namespaces/sw/serviceaccounts", {"metadata": {"name": "w"}})
        s.req("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/sw/roles", {
            "metadata": {"name": "one"}, "rules": [{"apiGroups": ["apps"], "resources": ["deployments"],
                                                    "resourceNames": ["one"], "verbs": ["get", "list", "watch"]}]})
        s.req("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/sw/rolebindings", {
            "metadata": {"name": "one"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                                     "name": "one"},
            "subjects": [{"kind": "ServiceAccount", "name": "w", "namespace": "sw"}]})
        base = "/apis/apps/v1/namespaces/sw/deployments"
        dep = {"metadata": {"name": "one"}, "spec": {"paused": True, "selector": {"matchLabels": {"a": "1"}},
                                                    "template": {"metadata": {"labels": {"a": "1"}},
                                                                 "spec": {"containers": [{"name": "c",
                                                                                          "image": "i"}]}}}}
        code, one, _ = s.req("POST", base, dep)
        self.assertEqual(code, 201)
        dep["metadata"]["name"] = "two"
        s.req("POST", base, dep)
        imp = {"Impersonate-User": "system:serviceaccount:sw:w"}

        def watch(name, timeout):
            c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=20)
            c.request("GET", base + "?watch=1&fieldSelector=metadata.name%%3D%s&resourceVersion=%s"
                      "&timeoutSeconds=%d&allowWatchBookmarks=true" % (name, one["metadata"]["resourceVersion"],
                                                                       timeout),
                      headers=dict(imp, Authorization="Bearer " + ADMIN))
            return c, c.getresponse()
        c, r = watch("two", 2)
        self.assertEqual(r.status, 403)
        self.assertEqual(json.loads(r.read())["message"],
                         'deployments.apps "two" is forbidden: User "system:serviceaccount:sw:w" cannot watch '
                         'resource "deployments" in API group "apps" in the namespace "sw"')
        c.close()
        t0 = time.time()
        c, r = watch("one", 2)
        self.assertEqual(r.status, 200)
        for name in ("two", "one"):
            s.req("PATCH", base + "/" + name, {"metadata": {"labels": {"seen": "yes"}}},
                  ctype="application/merge-patch+json")
        evs = read_events(r, 100)  # to the end of the stream: timeoutSeconds ends it
        took = time.time() - t0
        c.close()
        self.assertGreaterEqual(took, 1.5)
        self.assertLess(took, 6)
        self.assertEqual([(e["type"], e["object"]["metadata"]["name"]) for e in evs if e["type"] != "BOOKMARK"],
                         [("MODIFIED", "one")])
        self.assertEqual(evs[0]["object"]["metadata"]["labels"], {"seen": "yes"})
        bms = [e for e in evs if e["type"] == "BOOKMARK"]
        self.assertTrue(bms, "no bookmark in 2 s (interval 0.3 s)")
        self.assertEqual(bms[-1]["object"]["kind"], "Deployment")
        self.assertGreaterEqual(int(bms[-1]["object"]["metadata"]["resourceVersion"]),
                                int(evs[0]["object"]["metadata"]["resourceVersion"]))
        log = [json.loads(x) for x in s.req("GET", "/_kubesim/log")[1].decode().splitlines()]
        w = [e for e in log if e.get("verb") == "watch" and e.get("resource") == "deployments"
             and e.get("namespace") == "sw"]
        self.assertEqual([(e["name"], e["impersonatedUser"], e["status"]) for e in w],
                         [("two", "system:serviceaccount:sw:w", 403), ("one", "system:serviceaccount:sw:w", 200)])

    def test_crd_strict_validation_and_status(self):
        s = self.sim
        crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": "gadgets.example.com"},
               "spec": {"group": "example.com", "scope": "Namespaced",
                        "names": {"kind": "Gadget", "plural": "gadgets", "singular": "gadget"},
                        "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {
                            "status": {}, "scale": {"specReplicasPath": ".spec.n", "statusReplicasPath": ".status.n"}},
                                      "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                                          "spec": {"type": "object", "properties": {"n": {"type": "integer"}}},
                                          "status": {"type": "object", "properties": {"ok": {"type": "boolean"},
                                                                                        "n": {"type": "integer"}}}}}}}]}}
        code, c, _ = s.req("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
        self.assertEqual(code, 201)
        conds = {x["type"]: x["status"] for x in c["status"]["conditions"]}
        self.assertEqual(conds, {"NamesAccepted": "True", "Established": "True"})
        base = "/apis/example.com/v1/namespaces/default/gadgets"
        code, st, _ = s.req("POST", base + "?fieldValidation=Strict", {
            "apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"n": 1, "x": 2}})
        self.assertEqual((code, st["message"]), (400, 'Gadget in version "v1" cannot be handled as a Gadget: '
                                                      'strict decoding error: unknown field "spec.x"'))
        code, g, r = s.req("POST", base, {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"},
                                          "spec": {"n": 1, "x": 2}, "status": {"ok": True}})
        self.assertEqual((code, g["spec"], "status" in g), (201, {"n": 1}, False))
        self.assertIn('unknown field \\"spec.x\\"', r.getheader("Warning"))
        code, st, _ = s.req("PUT", base + "/g", dict(g, spec={"n": "one"}))
        self.assertEqual((code, st["reason"]), (422, "Invalid"))
        self.assertEqual(st["message"], 'Gadget.example.com "g" is invalid: spec.n: Invalid value: "string": spec.n '
                         'in body must be of type integer: "string"')
        code, g2, _ = s.req("PUT", base + "/g/status", dict(g, status={"ok": True}, spec={"n": 5}))
        self.assertEqual((code, g2["spec"], g2["status"], g2["metadata"]["generation"]), (200, {"n": 1}, {"ok": True}, 1))
        code, g3, _ = s.req("PATCH", base + "/g", {"spec": {"n": 2}}, ctype="application/merge-patch+json")
        self.assertEqual((g3["metadata"]["generation"], g3["status"]), (2, {"ok": True}))
        code, st, _ = s.req("PATCH", base + "/g", {"spec": {"n": 3}}, ctype="application/strategic-merge-patch+json")
        self.assertEqual(code, 415)
        code, sc, _ = s.req("PATCH", base + "/g/scale", {"spec": {"replicas": 4}}, ctype="application/merge-patch+json")
        self.assertEqual((code, sc["kind"], sc["spec"]["replicas"]), (200, "Scale", 4))
        self.assertEqual(s.req("GET", base + "/g")[1]["spec"], {"n": 4})
        self.assertEqual(s.req("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com")[0], 200)
        self.assertEqual(s.req("GET", base)[0], 404)

    def test_initial_events_and_collections(self):
        s = self.sim
        s.req("POST", "/api/v1/namespaces", {"metadata": {"name": "coll"}})
        base = "/api/v1/namespaces/coll/configmaps"
        for i in range(3):
            s.req("POST", base, {"metadata": {"name": "c%d" % i, "labels": {"grp": "a" if i < 2 else "b"}}})
        c, r = s.watch(base + "?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
                              "&allowWatchBookmarks=true")
        evs = read_events(r, 5)
        c.close()
        self.assertEqual([e["type"] for e in evs[:5]], ["ADDED"] * 4 + ["BOOKMARK"])
        self.assertEqual(evs[4]["object"]["metadata"]["annotations"], {"k8s.io/initial-events-end": "true"})
        code, st, _ = s.req("GET", base + "?watch=1&sendInitialEvents=true")
        self.assertEqual((code, st["message"]), (422, 'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: '
                                                      'Forbidden: sendInitialEvents requires setting resourceVersionMatch'
                                                      ' to NotOlderThan, allowWatchBookmarks: Forbidden: '
                                                      'sendInitialEvents requires setting allowWatchBookmarks to true]'))
        code, _, _ = s.req("DELETE", base + "/c0?dryRun=All")
        self.assertEqual(code, 200)
        self.assertEqual(s.req("GET", base + "/c0")[0], 200, "dry-run delete kept the object")
        code, lst, _ = s.req("DELETE", base + "?labelSelector=grp%3Da")
        self.assertEqual((code, sorted(i["metadata"]["name"] for i in lst["items"])), (200, ["c0", "c1"]))
        names = [i["metadata"]["name"] for i in s.req("GET", base)[1]["items"]]
        self.assertEqual(names, ["c2", "kube-root-ca.crt"])
        code, st, _ = s.req("POST", "/api/v1/namespaces/coll/serviceaccounts/default/token",
                            {"spec": {"expirationSeconds": 60}})
        self.assertEqual(code, 422)
        self.assertIn("may not specify a duration less than 10 minutes", st["message"])

    def test_pagination(self):
        s = self.sim
        s.req("POST", "/api/v1/namespaces", {"metadata": {"name": "pages"}})
        for i in range(5):
            s.req("POST", "/api/v1/namespaces/pages/secrets", {"metadata": {"name": "s%d" % i}})
        code, l1, _ = s.req("GET", "/api/v1/namespaces/pages/secrets?limit=2")
        self.assertEqual([x["metadata"]["name"] for x in l1["items"]], ["s0", "s1"])
        self.assertEqual(l1["metadata"]["remainingItemCount"], 3)
        code, l2, _ = s.req("GET", "/api/v1/namespaces/pages/secrets?limit=2&continue=" + l1["metadata"]["continue"])
        self.assertEqual([x["metadata"]["name"] for x in l2["items"]], ["s2", "s3"])
        s.req("DELETE", "/api/v1/namespaces/pages/secrets/s4")
        s.req("POST", "/api/v1/namespaces/pages/secrets", {"metadata": {"name": "s35"}})
        code, l3, _ = s.req("GET", "/api/v1/namespaces/pages/secrets?limit=2&continue=" + l2["metadata"]["continue"])
        self.assertEqual([x["metadata"]["name"] for x in l3["items"]], ["s4"], "continue lists a consistent snapshot")
        self.assertEqual(l3["metadata"]["resourceVersion"], l1["metadata"]["resourceVersion"])
        code, ex, _ = s.req("GET", "/api/v1/namespaces/pages/secrets?resourceVersionMatch=Exact&resourceVersion="
                            + l1["metadata"]["resourceVersion"])
        self.assertEqual([x["metadata"]["name"] for x in ex["items"]], ["s0", "s1", "s2", "s3", "s4"])
        code, st, _ = s.req("GET", "/api/v1/namespaces/pages/secrets?resourceVersionMatch=Exact")
        self.assertEqual((code, st["reason"]), (422, "Invalid"))
        self.assertNotIn("continue", l3["metadata"])
        s.req("POST", "/_kubesim/compact")
        code, st, _ = s.req("GET", "/api/v1/namespaces/pages/secrets?limit=2&continue=" + l1["metadata"]["continue"])
        self.assertEqual((code, st["reason"]), (410, "Expired"))

    def test_rbac_impersonation_and_tokens(self):
        s = self.sim
        s.req("POST", "/api/v1/namespaces", {"metadata": {"name": "team"}})
        s.req("POST", "/api/v1/namespaces/team/serviceaccounts", {"metadata": {"name": "app"}})
        sa = "system:serviceaccount:team:app"
        code, st, _ = s.req("GET", "/api/v1/namespaces/team/pods", headers={"Impersonate-User": sa})
        self.assertEqual(code, 403)
        self.assertEqual(st["message"], 'pods is forbidden: User "system:serviceaccount:team:app" cannot list '
                         'resource "pods" in API group "" in the namespace "team"')
        code, st, _ = s.req("GET", "/api/v1/namespaces/team/pods", token=ALICE, headers={"Impersonate-User": sa})
        self.assertEqual(code, 403)
        self.assertEqual(st["message"], 'serviceaccounts "app" is forbidden: User "alice" cannot impersonate '
                         'resource "serviceaccounts" in API group "" in the namespace "team"')
        # group binding: system:serviceaccounts:team may read configmaps
        s.req("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles", {
            "metadata": {"name": "cm-read"}, "rules": [{"apiGroups": [""], "resources": ["configmaps"],
                                                         "verbs": ["get", "list"]}]})
        s.req("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings", {
            "metadata": {"name": "cm-read"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                                         "name": "cm-read"},
            "subjects": [{"kind": "Group", "name": "system:serviceaccounts:team"}]})
        code, _, _ = s.req("GET", "/api/v1/namespaces/team/configmaps", headers={"Impersonate-User": sa})
        self.assertEqual(code, 200)
        code, _, _ = s.req("GET", "/api/v1/namespaces/team/configmaps", headers={
            "Impersonate-User": sa, "Impersonate-Group": "other"})
        self.assertEqual(code, 403, "explicit groups replace the service account groups")
        # alice may impersonate the SA once granted
        s.req("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", {
            "metadata": {"name": "imp"}, "rules": [{"apiGroups": [""], "resources": ["serviceaccounts"],
                                                    "verbs": ["impersonate"]}]})
        s.req("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
            "metadata": {"name": "imp"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                                     "name": "imp"},
            "subjects": [{"kind": "User", "name": "alice"}]})
        code, _, _ = s.req("GET", "/api/v1/namespaces/team/configmaps", token=ALICE, headers={"Impersonate-User": sa})
        self.assertEqual(code, 200)
        # a request is logged once its response has been written, so the log
        # may lag the response by a moment on a loaded machine
        for _ in range(50):
            log = s.req("GET", "/_kubesim/log")[1].decode().splitlines()
            last = [json.loads(x) for x in log if '"impersonatedUser":"%s"' % sa in x][-1]
            if last["user"] == "alice":
                break
            time.sleep(0.05)
        self.assertEqual((last["user"], last["impersonatedUser"], last["status"]), ("alice", sa, 200))
        # TokenRequest
        code, tr, _ = s.req("POST", "/api/v1/namespaces/team/serviceaccounts/app/token",
                            {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}})
        self.assertEqual(code, 201)
        tok = tr["status"]["token"]
        code, who, _ = s.req("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                             {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}, token=tok)
        self.assertEqual(who["status"]["userInfo"]["username"], sa)
        self.assertIn("system:serviceaccounts:team", who["status"]["userInfo"]["groups"])
        code, _, _ = s.req("GET", "/api/v1/namespaces/team/configmaps", token=tok)
        self.assertEqual(code, 200)
        code, ssar, _ = s.req("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
            "spec": {"resourceAttributes": {"namespace": "team", "verb": "delete", "resource": "configmaps"}}},
            token=tok)
        self.assertEqual(ssar["status"]["allowed"], False)
        code, sar, _ = s.req("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
            "spec": {"user": sa, "groups": ["system:serviceaccounts:team"],
                     "resourceAttributes": {"namespace": "team", "verb": "list", "resource": "configmaps"}}})
        self.assertEqual(sar["status"]["allowed"], True)
        s.req("DELETE", "/api/v1/namespaces/team/serviceaccounts/app")
        code, st, _ = s.req("GET", "/api/v1/namespaces/team/configmaps", token=tok)
        self.assertEqual((code, st["reason"]), (401, "Unauthorized"))

    def test_faults(self):
        s = self.sim
        s.req("POST", "/_kubesim/faults", {"action": "status", "code": 429, "retryAfter": 2,
                                           "match": {"resource": "secrets", "verb": "list"}})
        code, st, r = s.req("GET", "/api/v1/namespaces/default/secrets")
        self.assertEqual((code, st["reason"], r.getheader("Retry-After")), (429, "TooManyRequests", "2"))
        self.assertEqual(s.req("GET", "/api/v1/namespaces/default/secrets")[0], 200, "count defaults to 1")
        s.req("POST", "/api/v1/namespaces/default/configmaps", {"metadata": {"name": "fc"}})
        s.req("POST", "/_kubesim/faults", {"action": "conflict", "match": {"name": "fc"}})
        code, st, _ = s.req("PATCH", CM + "/fc", {"data": {"a": "b"}}, ctype="application/merge-patch+json")
        self.assertEqual((code, st["reason"]), (409, "Conflict"))
        code, _, _ = s.req("PATCH", CM + "/fc", {"data": {"a": "b"}}, ctype="application/merge-patch+json")
        self.assertEqual(code, 200)
        s.req("POST", "/_kubesim/faults", {"action": "status", "code": 503, "count": 2, "match": {"path": "^/version"}})
        self.assertEqual([s.req("GET", "/version")[0] for _ in range(3)], [503, 503, 200])
        s.req("POST", "/_kubesim/faults", {"action": "latency", "ms": 300, "match": {"path": "^/version"}})
        t0 = time.time()
        s.req("GET", "/version")
        self.assertGreaterEqual(time.time() - t0, 0.3)
        s.req("POST", "/_kubesim/faults", {"action": "hang", "ms": 300, "match": {"path": "^/version"}})
        t0 = time.time()
        with self.assertRaises((http.client.RemoteDisconnected, ConnectionError)):
            s.req("GET", "/version")
        self.assertGreaterEqual(time.time() - t0, 0.3)
        self.assertEqual(s.req("GET", "/version")[0], 200)
        s.req("POST", "/_kubesim/faults", {"action": "closeWatch", "afterMs": 200, "match": {"resource": "secrets"}})
        c, r = s.watch("/api/v1/namespaces/default/secrets?watch=1")
        t0 = time.time()
        while r.readline():
            pass
        self.assertLess(time.time() - t0, 10, "closeWatch fault did not end the watch")
        c.close()
        c, r = s.watch(CM + "?watch=1")
        s.req("POST", "/_kubesim/close-watches")
        t0 = time.time()
        while r.readline():
            pass
        self.assertLess(time.time() - t0, 10)
        c.close()
        code, st, _ = s.req("GET", "/_kubesim/log", token=ALICE)
        self.assertEqual(code, 403)

    def test_jobs_pods_and_services(self):
        s = self.sim
        ns = "/api/v1/namespaces/default"
        job = lambda name, cmd: {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
                                 "spec": {"backoffLimit": 1, "template": {"spec": {"restartPolicy": "Never",
                                          "containers": [{"name": "c", "image": "busybox", "command": cmd}]}}}}
        s.req("POST", "/apis/batch/v1/namespaces/default/jobs", job("ok", ["true"]))
        s.req("POST", "/apis/batch/v1/namespaces/default/jobs", job("bad", ["sh", "-c", "exit 1"]))

        def cond(name, typ):
            j = s.req("GET", "/apis/batch/v1/namespaces/default/jobs/" + name)[1]
            return any(c["type"] == typ and c["status"] == "True" for c in j.get("status", {}).get("conditions", []))
        s.until(lambda: cond("ok", "Complete"))
        s.until(lambda: cond("bad", "Failed"))
        j = s.req("GET", "/apis/batch/v1/namespaces/default/jobs/bad")[1]
        self.assertEqual(j["status"]["failed"], 2)
        s.req("POST", ns + "/pods", {"metadata": {"name": "p1", "labels": {"app": "p1"}},
                                     "spec": {"containers": [{"name": "c", "image": "x",
                                                              "ports": [{"name": "web", "containerPort": 8080}]}]}})
        s.until(lambda: s.req("GET", ns + "/pods/p1")[1]["status"]["phase"] == "Running")
        s.req("POST", ns + "/services", {"metadata": {"name": "p1"}, "spec": {
            "selector": {"app": "p1"}, "ports": [{"name": "http", "port": 80, "targetPort": "web"}]}})
        ep = s.until(lambda: (lambda o: o if o.get("subsets") else None)(s.req("GET", ns + "/endpoints/p1")[1]))
        ip = s.req("GET", ns + "/pods/p1")[1]["status"]["podIP"]
        self.assertEqual(ep["subsets"][0]["addresses"][0]["ip"], ip)
        self.assertEqual(ep["subsets"][0]["ports"], [{"port": 8080, "protocol": "TCP", "name": "http"}])
        s.req("POST", "/_kubesim/pods/default/p1/phase", {"phase": "Failed"})
        self.assertEqual(s.req("GET", ns + "/pods/p1")[1]["status"]["phase"], "Failed")
        code, svc, _ = s.req("POST", ns + "/services", {"metadata": {"name": "lb"}, "spec": {
            "type": "LoadBalancer", "ports": [{"port": 80}]}})
        self.assertTrue(svc["spec"]["clusterIP"].startswith("10.96."))
        self.assertGreaterEqual(svc["spec"]["ports"][0]["nodePort"], 30000)
        s.until(lambda: s.req("GET", ns + "/services/lb")[1].get("status", {}).get("loadBalancer", {}).get("ingress"))
        s.req("POST", ns + "/persistentvolumeclaims", {"metadata": {"name": "data"}, "spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}})
        s.until(lambda: s.req("GET", ns + "/persistentvolumeclaims/data")[1].get("status", {}).get("phase") == "Bound")

    def test_workload_rollouts(self):
        s = self.sim
        tmpl = lambda app, cmd=None: {"metadata": {"labels": {"app": app}}, "spec": {"containers": [dict(
            {"name": "c", "image": "img:1"}, **({"command": cmd} if cmd else {}))]}}
        apps = "/apis/apps/v1/namespaces/default/"
        s.req("POST", apps + "statefulsets", {"metadata": {"name": "db"}, "spec": {
            "replicas": 2, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}}, "template": tmpl("db"),
            "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {
                "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}})
        sts = s.until(lambda: (lambda o: o if o.get("status", {}).get("readyReplicas") == 2 else None)(
            s.req("GET", apps + "statefulsets/db")[1]))
        st = sts["status"]
        self.assertEqual((st["replicas"], st["currentReplicas"], st["updatedReplicas"], st["observedGeneration"]),
                         (2, 2, 2, 1))
        self.assertEqual(st["currentRevision"], st["updateRevision"])
        self.assertEqual(s.req("GET", "/api/v1/namespaces/default/pods/db-1")[1]["metadata"]["labels"][
            "statefulset.kubernetes.io/pod-name"], "db-1")
        s.until(lambda: s.req("GET", "/api/v1/namespaces/default/persistentvolumeclaims/data-db-1")[1].get(
            "status", {}).get("phase") == "Bound")
        s.req("POST", apps + "daemonsets", {"metadata": {"name": "agent"}, "spec": {
            "selector": {"matchLabels": {"app": "agent"}}, "template": tmpl("agent")}})
        ds = s.until(lambda: (lambda o: o if o.get("status", {}).get("numberReady") == 1 else None)(
            s.req("GET", apps + "daemonsets/agent")[1]))
        self.assertEqual((ds["status"]["desiredNumberScheduled"], ds["status"]["numberAvailable"]), (1, 1))
        # a crash-looping deployment never becomes available and exceeds its progress deadline
        s.req("POST", apps + "deployments", {"metadata": {"name": "crash"}, "spec": {
            "progressDeadlineSeconds": 1, "selector": {"matchLabels": {"app": "crash"}},
            "template": tmpl("crash", ["sh", "-c", "exit 2"])}})

        def deadline():
            d = s.req("GET", apps + "deployments/crash")[1]
            c = {x["type"]: x for x in d.get("status", {}).get("conditions", [])}
            return d if c.get("Progressing", {}).get("reason") == "ProgressDeadlineExceeded" else None
        d = s.until(deadline)
        self.assertEqual(d["status"].get("availableReplicas", 0), 0)
        pods = s.req("GET", "/api/v1/namespaces/default/pods?labelSelector=app%3Dcrash")[1]["items"]
        cs = pods[0]["status"]["containerStatuses"][0]
        self.assertEqual(cs["state"]["waiting"]["reason"], "CrashLoopBackOff")
        self.assertEqual(cs["lastState"]["terminated"]["exitCode"], 2)
        self.assertGreaterEqual(cs["restartCount"], 1)

    def test_legacy_token_secret_and_extras(self):
        s = self.sim
        s.req("POST", "/api/v1/namespaces/default/serviceaccounts", {"metadata": {"name": "old"}})
        s.req("POST", "/api/v1/namespaces/default/secrets", {"metadata": {"name": "old-token", "annotations": {
            "kubernetes.io/service-account.name": "old"}}, "type": "kubernetes.io/service-account-token"})
        sec = s.until(lambda: (lambda o: o if o.get("data", {}).get("token") else None)(
            s.req("GET", "/api/v1/namespaces/default/secrets/old-token")[1]))
        import base64
        tok = base64.b64decode(sec["data"]["token"]).decode()
        code, who, _ = s.req("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {}, token=tok)
        self.assertEqual(who["status"]["userInfo"]["username"], "system:serviceaccount:default:old")
        s.req("DELETE", "/api/v1/namespaces/default/secrets/old-token")
        self.assertEqual(s.req("GET", "/version", token=tok)[0], 401, "token of a deleted secret")
        code, who, _ = s.req("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {}, headers={
            "Impersonate-User": "jane", "Impersonate-Group": "g1", "Impersonate-Extra-Scopes": "view"})
        ui = who["status"]["userInfo"]
        self.assertEqual((ui["username"], ui["groups"], ui["extra"]),
                         ("jane", ["g1", "system:authenticated"], {"scopes": ["view"]}))

    def test_gc_and_namespace_termination(self):
        s = self.sim
        s.req("POST", "/api/v1/namespaces", {"metadata": {"name": "gc"}})
        base = "/api/v1/namespaces/gc/configmaps"

        def mk(name, owner=None):
            md = {"name": name}
            if owner:
                md["ownerReferences"] = [{"apiVersion": "v1", "kind": "ConfigMap", "name": owner["metadata"]["name"],
                                          "uid": owner["metadata"]["uid"]}]
            return s.req("POST", base, {"metadata": md})[1]
        for mode in ("Background", "Foreground", "Orphan"):
            o = mk("owner-" + mode.lower())
            mk("dep-" + mode.lower(), o)
            code, _, _ = s.req("DELETE", base + "/" + o["metadata"]["name"], {"propagationPolicy": mode})
            self.assertEqual(code, 200)
            s.until(lambda: s.req("GET", base + "/" + o["metadata"]["name"])[0] == 404)
            if mode == "Orphan":
                time.sleep(0.3)
                code, d, _ = s.req("GET", base + "/dep-orphan")
                self.assertEqual(code, 200)
                self.assertNotIn("ownerReferences", d["metadata"])
            else:
                s.until(lambda: s.req("GET", base + "/dep-" + mode.lower())[0] == 404)
        s.req("POST", base, {"metadata": {"name": "held", "finalizers": ["example.com/hold"]}})
        code, nso, _ = s.req("DELETE", "/api/v1/namespaces/gc")
        self.assertEqual(nso["status"]["phase"], "Terminating")
        code, st, _ = s.req("POST", base, {"metadata": {"name": "late"}})
        self.assertEqual(code, 403)
        self.assertIn("because it is being terminated", st["message"])
        nso = s.until(lambda: (lambda o: o if o.get("status", {}).get("conditions") else None)(
            s.req("GET", "/api/v1/namespaces/gc")[1]))
        time.sleep(0.3)
        self.assertEqual(s.req("GET", "/api/v1/namespaces/gc")[0], 200, "blocked by the finalizer")
        conds = {c["type"]: c["message"] for c in nso["status"]["conditions"]}
        self.assertEqual(conds["NamespaceFinalizersRemaining"], "Some content in the namespace has finalizers "
                         "remaining: example.com/hold in 1 resource instances")
        s.req("PATCH", base + "/held", {"metadata": {"finalizers": None}}, ctype="application/merge-patch+json")
        s.until(lambda: s.req("GET", "/api/v1/namespaces/gc")[0] == 404)

    def test_server_side_apply(self):
        s = self.sim
        body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa"}, "data": {"a": "1"}})
        url = CM + "/ssa?fieldManager=one"
        code, o, _ = s.req("PATCH", url, body, ctype="application/apply-patch+yaml")
        self.assertEqual(code, 201)
        self.assertEqual(o["metadata"]["managedFields"][0]["operation"], "Apply")
        body2 = body.replace('"1"', '"2"')
        code, st, _ = s.req("PATCH", CM + "/ssa?fieldManager=two", body2, ctype="application/apply-patch+yaml")
        self.assertEqual((code, st["reason"]), (409, "Conflict"))
        self.assertEqual(st["details"]["causes"][0]["field"], ".data.a")
        code, o, _ = s.req("PATCH", CM + "/ssa?fieldManager=two&force=true", body2, ctype="application/apply-patch+yaml")
        self.assertEqual((code, o["data"]), (200, {"a": "2"}))
        code, st, _ = s.req("PATCH", CM + "/ssa", body2, ctype="application/apply-patch+yaml")
        self.assertEqual(code, 400, "apply needs a fieldManager")
        yaml_body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssay\ndata:\n  k: \"v\"\n  n: \"1\"\n"
        code, o, _ = s.req("PATCH", CM + "/ssay?fieldManager=y", yaml_body, ctype="application/apply-patch+yaml")
        self.assertEqual((code, o.get("data")), (201, {"k": "v", "n": "1"}))


class KubesimTLS(unittest.TestCase):
    """HTTPS: a client resumes its TLS session (TLS 1.3 and 1.2 session
    tickets: no certificate exchange, kubesim's handshake costs less), and a
    resumed connection keeps the client certificate's identity."""

    def test_session_resumption(self):
        import socket
        import ssl
        s = Sim(tls=True)
        try:
            for ver in (ssl.TLSVersion.TLSv1_3, ssl.TLSVersion.TLSv1_2):
                ctx = ssl.create_default_context(cafile=os.path.join(s.dir, "ca.crt"))
                ctx.load_cert_chain(os.path.join(s.dir, "admin.crt"), os.path.join(s.dir, "admin.key"))
                ctx.minimum_version = ctx.maximum_version = ver
                sess, reused = None, []
                for _ in range(3):
                    t = ctx.wrap_socket(socket.create_connection(("127.0.0.1", s.port), timeout=20),
                                        server_hostname="127.0.0.1", session=sess)
                    self.assertEqual(t.version(), "TLSv1.3" if ver == ssl.TLSVersion.TLSv1_3 else "TLSv1.2")
                    body = b"{}"
                    t.sendall(b"POST /apis/authentication.k8s.io/v1/selfsubjectreviews HTTP/1.1\r\nHost: x\r\n"
                              b"Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n"
                              + body)
                    data = b""
                    while True:
                        b = t.recv(65536)
                        if not b:
                            break
                        data += b
                    reused.append(t.session_reused)
                    sess = t.session
                    t.close()
                    head, _, js = data.partition(b"\r\n\r\n")
                    self.assertTrue(head.startswith(b"HTTP/1.1 201"), head)
                    self.assertEqual(json.loads(js)["status"]["userInfo"]["username"], "admin")
                self.assertEqual(reused, [False, True, True], ver)
        finally:
            s.stop()


class H2Client:
    """A minimal HTTP/2 client (the h2 library kubesim uses) over a TLS
    connection to s, as admin; a request's frames are read as they come."""

    def __init__(self, s, window=65535, alpn=("h2", "http/1.1")):
        import socket
        import ssl
        from kubesim_lib import h2conn
        err = h2conn.load()
        if err:
            raise unittest.SkipTest(err)
        self.h2 = h2conn.h2
        ctx = ssl.create_default_context(cafile=os.path.join(s.dir, "ca.crt"))
        ctx.load_cert_chain(os.path.join(s.dir, "admin.crt"), os.path.join(s.dir, "admin.key"))
        ctx.set_alpn_protocols(list(alpn))
        self.sock = ctx.wrap_socket(socket.create_connection(("127.0.0.1", s.port), timeout=20),
                                    server_hostname="127.0.0.1")
        self.authority = "127.0.0.1:%d" % s.port
        self.conn = None
        if self.sock.selected_alpn_protocol() != "h2":
            return
        h2 = self.h2
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        self.conn.local_settings = h2.settings.Settings(client=True, initial_values={
            h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
        self.conn.initiate_connection()
        self.flush()
        self.status, self.headers, self.data, self.ended, self.reset = {}, {}, {}, set(), set()
        self.unacked = {}  # stream -> flow-controlled bytes not yet given back

    def flush(self):
        out = self.conn.data_to_send()
        if out:
            self.sock.sendall(out)

    def request(self, method, path, body=None, ctype="application/json"):
        sid = self.conn.get_next_available_stream_id()
        hs = [(":method", method), (":path", path), (":scheme", "https"), (":authority", self.authority),
              ("user-agent", "h2-test/1")]
        if body is not None:
            body = json.dumps(body).encode() if not isinstance(body, bytes) else body
            hs += [("content-type", ctype), ("content-length", str(len(body)))]
        self.conn.send_headers(sid, hs, end_stream=body is None)
        self.data[sid] = b""
        self.flush()
        while body:  # as the window allows
            room = min(self.conn.local_flow_control_window(sid), self.conn.max_outbound_frame_size)
            if room <= 0:
                self.pump()
                continue
            self.conn.send_data(sid, body[:room], end_stream=len(body) <= room)
            body = body[room:]
            self.flush()
        return sid

    def pump(self, ack=True):
        """Read one batch of frames; ack: give the received bytes back at once."""
        ev = self.h2.events
        b = self.sock.recv(65536)
        if not b:
            raise ConnectionError("kubesim closed the connection")
        for e in self.conn.receive_data(b):
            if isinstance(e, ev.ResponseReceived):
                hs = {k.decode(): v.decode() for k, v in e.headers}
                self.status[e.stream_id] = int(hs[":status"])
                self.headers[e.stream_id] = hs
            elif isinstance(e, ev.DataReceived):
                self.data[e.stream_id] = self.data.get(e.stream_id, b"") + e.data
                self.unacked[e.stream_id] = self.unacked.get(e.stream_id, 0) + e.flow_controlled_length
                if ack:
                    self.ack(e.stream_id)
            elif isinstance(e, ev.StreamEnded):
                self.ended.add(e.stream_id)
            elif isinstance(e, ev.StreamReset):
                self.reset.add(e.stream_id)
        self.flush()

    def ack(self, sid):
        n = self.unacked.pop(sid, 0)
        if n:
            try:
                self.conn.acknowledge_received_data(n, sid)
            except self.h2.exceptions.StreamClosedError:
                pass
        self.flush()

    def until(self, fn):
        while not fn():
            self.pump()

    def call(self, method, path, body=None):
        sid = self.request(method, path, body)
        self.until(lambda: sid in self.ended or sid in self.reset)
        return self.status.get(sid), json.loads(self.data[sid]) if self.data[sid] else None

    def cancel(self, sid):
        self.conn.reset_stream(sid, self.h2.errors.ErrorCodes.CANCEL)
        self.flush()

    def close(self):
        self.sock.close()


def h2_call(s, method, path):
    c = H2Client(s)
    try:
        return c.call(method, path)
    finally:
        c.close()


class KubesimH2(unittest.TestCase):
    """HTTP/2 (ALPN h2) as kube-apiserver serves it: requests multiplexed on
    one connection, a watch cancelled by RST_STREAM while the connection goes
    on serving, the peer's flow-control window respected."""

    @classmethod
    def setUpClass(cls):
        cls.s = Sim(tls=True)

    @classmethod
    def tearDownClass(cls):
        cls.s.stop()

    def stats(self):
        return h2_call(self.s, "GET", "/_kubesim/stats")[1]["connections"]

    def test_request(self):
        before = self.stats()
        c = H2Client(self.s)
        try:
            code, v = c.call("GET", "/version")
            self.assertEqual((code, v["gitVersion"]), (200, "v1.35.0"))
            code, o = c.call("POST", CM, {"apiVersion": "v1", "kind": "ConfigMap",
                                          "metadata": {"name": "h2-req"}, "data": {"k": "v"}})
            self.assertEqual((code, o["metadata"]["name"], o["data"]), (201, "h2-req", {"k": "v"}))
            code, o = c.call("GET", CM + "/h2-req")
            self.assertEqual((code, o["data"]), (200, {"k": "v"}))
            code, o = c.call("GET", CM + "/nope")
            self.assertEqual((code, o["reason"]), (404, "NotFound"))
            # HEAD: the length of what GET would send, no DATA
            sid = c.request("HEAD", CM + "/h2-req")
            c.until(lambda: sid in c.ended)
            self.assertEqual((c.status[sid], c.data[sid]), (200, b""))
            self.assertGreater(int(c.headers[sid]["content-length"]), 0)
            self.assertNotIn("connection", c.headers[sid])
        finally:
            c.close()
        after = self.stats()
        self.assertEqual(after["tls_h2"] - before["tls_h2"], 2)  # this connection, and stats()'s
        self.assertEqual(after["tls_http1"], before["tls_http1"])
        self.assertEqual(after["h2_streams"] - before["h2_streams"], 6)
        # connections by their first request's User-Agent: this one and stats()'s
        self.assertEqual(after["by_agent"]["h2-test"]["h2"] - before["by_agent"]["h2-test"]["h2"], 2)
        self.assertNotIn("http1", after["by_agent"]["h2-test"])
        # the request log as HTTP/1.1 requests make it
        c = H2Client(self.s)
        try:
            sid = c.request("GET", "/_kubesim/log")
            c.until(lambda: sid in c.ended)
            log = [json.loads(x) for x in c.data[sid].splitlines()]
        finally:
            c.close()
        mine = [e for e in log if e.get("userAgent") == "h2-test/1"
                and e["path"] in ("/version", CM, CM + "/h2-req", CM + "/nope")][-5:]
        self.assertEqual([(e["method"], e["path"], e["verb"], e["status"], e["user"]) for e in mine],
                         [("GET", "/version", "get", 200, "admin"), ("POST", CM, "create", 201, "admin"),
                          ("GET", CM + "/h2-req", "get", 200, "admin"), ("GET", CM + "/nope", "get", 404, "admin"),
                          ("HEAD", CM + "/h2-req", "get", 200, "admin")])

    def test_watch_reset_keeps_connection(self):
        c = H2Client(self.s)
        try:
            code, _ = c.call("POST", CM, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "h2-w1"}})
            self.assertEqual(code, 201)
            w = c.request("GET", CM + "?watch=1&fieldSelector=metadata.name%3Dh2-w1")
            c.until(lambda: b"\n" in c.data[w])
            self.assertEqual(json.loads(c.data[w].split(b"\n")[0])["type"], "ADDED")
            self.assertEqual(self.stats()["h2_streams_open"], 2)  # the watch, and stats()'s own request
            c.cancel(w)
            # the connection goes on: a second watch, and a create it sees
            w2 = c.request("GET", CM + "?watch=1&resourceVersion=1&fieldSelector=metadata.name%3Dh2-w2")
            code, _ = c.call("POST", CM, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "h2-w2"}})
            self.assertEqual(code, 201)
            c.until(lambda: b"\n" in c.data[w2])
            self.assertEqual(json.loads(c.data[w2].split(b"\n")[0])["object"]["metadata"]["name"], "h2-w2")
            self.assertNotIn(w, c.ended)
            # the cancelled watch's thread has ended (woken by the reset); the other one runs on
            self.s.until(lambda: self.stats()["h2_streams_open"] == 2)
            c.cancel(w2)
            self.s.until(lambda: self.stats()["h2_streams_open"] == 1)
            self.assertEqual(c.call("GET", "/version")[0], 200)
        finally:
            c.close()

    def test_flow_control_large_list(self):
        import socket
        c = H2Client(self.s, window=16384)
        try:
            blob = "x" * 60000
            for i in range(20):
                code, _ = c.call("POST", "/api/v1/namespaces/kube-public/configmaps",
                                 {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big-%d" % i},
                                  "data": {"blob": blob}})
                self.assertEqual(code, 201)
            sid = c.request("GET", "/api/v1/namespaces/kube-public/configmaps")
            # nothing given back: kubesim stops at the stream's window
            c.sock.settimeout(1.0)
            try:
                while True:
                    c.pump(ack=False)
            except socket.timeout:
                pass
            c.sock.settimeout(20)
            self.assertEqual(len(c.data[sid]), 16384)
            self.assertNotIn(sid, c.ended)
            while sid not in c.ended:
                c.ack(sid)
                c.pump(ack=False)
            lst = json.loads(c.data[sid])
            self.assertEqual(sorted(o["metadata"]["name"] for o in lst["items"]
                                    if o["metadata"]["name"].startswith("big-")),
                             sorted("big-%d" % i for i in range(20)))
            self.assertEqual(int(c.headers[sid]["content-length"]), len(c.data[sid]))
            self.assertGreater(len(c.data[sid]), 20 * 60000)
        finally:
            c.close()

    def test_body_over_limit(self):
        c = H2Client(self.s)
        try:
            code, o = c.call("POST", CM, b"{" + b" " * (3 * 1024 * 1024) + b"}")
            self.assertEqual((code, o["reason"]), (413, "RequestEntityTooLarge"))
            self.assertEqual(c.call("GET", "/version")[0], 200)
        finally:
            c.close()


class KubesimH2Options(unittest.TestCase):
    def test_http1_flag(self):
        s = Sim(tls=True, args=["--http1"])
        try:
            c = H2Client(s)
            self.assertIsNone(c.conn)  # ALPN: http/1.1 chosen though h2 was offered
            self.assertEqual(c.sock.selected_alpn_protocol(), "http/1.1")
            c.sock.sendall(b"GET /_kubesim/stats HTTP/1.1\r\nHost: x\r\nUser-Agent: h1-test/1\r\n"
                           b"Connection: close\r\n\r\n")
            data = b""
            while True:
                b = c.sock.recv(65536)
                if not b:
                    break
                data += b
            c.close()
            head, _, body = data.partition(b"\r\n\r\n")
            self.assertTrue(head.startswith(b"HTTP/1.1 200"), head)
            st = json.loads(body)["connections"]
            self.assertEqual((st["tls_http1"], st["tls_h2"], st["by_agent"]["h1-test"]), (1, 0, {"http1": 1}))
        finally:
            s.stop()

    def test_no_h2_fails_clearly(self):
        d = tempfile.mkdtemp(prefix="kubesim-noh2-")
        try:
            os.makedirs(os.path.join(d, "h2"))
            with open(os.path.join(d, "h2", "__init__.py"), "w") as f:
                f.write("raise ImportError('h2 hidden by the test')\n")
            env = dict(os.environ, PYTHONPATH=d)
            p = subprocess.run([sys.executable, os.path.join(HERE, "kubesim"), "--dir", os.path.join(d, "st")],
                               env=env, capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 1)
            self.assertIn("python3-h2", p.stderr)
            self.assertIn("h2 hidden by the test", p.stderr)
            self.assertFalse(os.path.exists(os.path.join(d, "st", "port")))
        finally:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
