#!/usr/bin/env python3
"""tests/e2e/corpus_lib.py — helpers for tests/e2e/corpus_*.sh. Talks to
kubesim as admin (KUBESIM_URL, client certificate in KUBESIM_DIR), in one
process per step, so a step over 16 charts costs one start-up.

  corpus_lib.py pick CORPUS
      one line per chart of CORPUS/charts: "CHART CASE RELEASE NAMESPACE",
      the chart's -defaults case when it renders, else the first case that
      renders with values files only (no --set, no extra API versions).
  corpus_lib.py publish CORPUS CHART_URL ROWS
      ROWS: lines "FMT CHART CASE RELEASE NS ARCHIVE VERSION"; for each, the
      namespace, ServiceAccount corpus-deployer (bound to cluster-admin), the
      case's values files as ConfigMaps RELEASE-values-N (key values.yaml:
      the file's bytes, no YAML re-encoded on the way), HelmChart RELEASE with
      .status.artifact as source-controller fills it, and HelmRelease RELEASE
      (chartRef to it, valuesFrom the ConfigMaps, as corpus-deployer).
  corpus_lib.py upgrade ROWS
      adds .spec.values with a change (upgrade_values) to each HelmRelease.
  corpus_lib.py upgrade-values CHART
      prints that change (JSON, for `helm template -f`).
  corpus_lib.py values-files CORPUS CASE
      prints the case's values files, in order.
  corpus_lib.py same WANT AGAIN GOT
      GOT equals WANT but for lines where WANT and AGAIN (two helm runs) differ.
  corpus_lib.py status ROWS
      "NS RELEASE generation/observedGeneration/history[0].version/Ready|reason|message"
  corpus_lib.py manifest NS RELEASE REVISION
      prints the manifest stored in Helm's release Secret.
  corpus_lib.py helm-list ROWS REVISION < `helm list -A -o json`
      every release of ROWS at REVISION, deployed (0: none listed).
  corpus_lib.py helm-history REVISION < `helm history -o json`
      revisions 1..REVISION, the last deployed, the others superseded.
  corpus_lib.py objects present|absent NS MANIFEST
      checks that every object of MANIFEST is in the cluster (or gone, but
      for those Helm keeps: helm.sh/resource-policy: keep; an object whose
      kind the cluster no longer serves, its CRD deleted, is gone); prints
      their number.
  corpus_lib.py dropped NS OLD NEW
      the objects of manifest OLD that manifest NEW lacks are gone (but for
      those Helm keeps), as Helm's upgrade deletes them; prints their number.
"""
import base64
import gzip
import hashlib
import http.client
import json
import os
import ssl
import sys
import urllib.parse

# values that change on upgrade; charts whose schema refuses unknown keys
# get a key of their own
UPGRADE = {"cert-manager": {"podLabels": {"bulkhead-e2e": "upgraded"}},
           "traefik": {"commonLabels": {"bulkhead-e2e": "upgraded"}}}


def upgrade_values(chart):
    return UPGRADE.get(chart, {"bulkheadE2E": "upgraded"})


class Api:
    def __init__(self):
        d = os.environ["KUBESIM_DIR"]
        u = urllib.parse.urlsplit(os.environ["KUBESIM_URL"])
        ctx = ssl.create_default_context(cafile=os.path.join(d, "ca.crt"))
        ctx.load_cert_chain(os.path.join(d, "admin.crt"), os.path.join(d, "admin.key"))
        self.conn = http.client.HTTPSConnection(u.hostname, u.port, context=ctx, timeout=60)

    def call(self, method, path, body=None, ctype="application/json", ok=(200, 201)):
        data = json.dumps(body).encode() if body is not None else None
        self.conn.request(method, path, body=data, headers={"Content-Type": ctype, "Accept": "application/json"})
        r = self.conn.getresponse()
        out = r.read()
        if r.status not in ok:
            sys.exit("%s %s: %d %s" % (method, path, r.status, out[:300].decode(errors="replace")))
        return r.status, json.loads(out) if out else None

    def create(self, path, obj):
        self.call("POST", path, obj, ok=(200, 201, 409))


def case_json(corpus, case):
    with open(os.path.join(corpus, "cases", case, "case.json")) as f:
        return json.load(f)


def pick(corpus):
    cases = os.path.join(corpus, "cases")
    by_chart = {}
    for c in sorted(os.listdir(cases)):
        if not os.path.exists(os.path.join(cases, c, "expected.yaml")):
            continue
        j = case_json(corpus, c)
        if j["set"] or j.get("setString") or j.get("setJson") or j["includeCrds"]:
            continue
        chart = os.path.basename(j["chart"])
        rank = 0 if c.endswith("-defaults") and not j["valuesFiles"] else 1
        best = by_chart.get(chart)
        if best is None or rank < best[0]:
            by_chart[chart] = (rank, c, j["release"], j["namespace"])
    for chart in sorted(os.listdir(os.path.join(corpus, "charts"))):
        if chart not in by_chart:
            sys.exit("no usable case for chart " + chart)
        _, c, rel, ns = by_chart[chart]
        print(chart, c, rel, ns)


def rows(path):
    with open(path) as f:
        return [line.split() for line in f if line.strip()]


def publish(corpus, url, rows_path):
    api = Api()
    for fmt, chart, case, rel, ns, archive, ver in rows(rows_path):
        api.create("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        api.create("/api/v1/namespaces/%s/serviceaccounts" % ns,
                   {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "corpus-deployer"}})
        api.create("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
                   {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                    "metadata": {"name": "corpus-deployer-" + ns},
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
                    "subjects": [{"kind": "ServiceAccount", "name": "corpus-deployer", "namespace": ns}]})
        refs = []
        for i, vf in enumerate(case_json(corpus, case)["valuesFiles"]):
            with open(os.path.join(corpus, "cases", case, vf)) as f:
                data = f.read()
            name = "%s-values-%d" % (rel, i + 1)
            api.create("/api/v1/namespaces/%s/configmaps" % ns, {"apiVersion": "v1", "kind": "ConfigMap",
                       "metadata": {"name": name}, "data": {"values.yaml": data}})
            refs.append({"kind": "ConfigMap", "name": name, "valuesKey": "values.yaml"})
        hc = "/apis/source.toolkit.fluxcd.io/v1/namespaces/%s/helmcharts" % ns
        api.create(hc, {"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "HelmChart",
                        "metadata": {"name": rel, "namespace": ns},
                        "spec": {"chart": chart, "version": ver, "interval": "10m",
                                 "sourceRef": {"kind": "HelmRepository", "name": "local"}}})
        with open(archive, "rb") as f:
            digest = "sha256:" + hashlib.sha256(f.read()).hexdigest()
        base = os.path.basename(archive)
        api.call("PATCH", hc + "/" + rel + "/status", {"status": {
            "observedGeneration": 1,
            "artifact": {"url": url + "/" + base, "digest": digest, "revision": ver,
                         "path": "helmchart/%s/%s/%s" % (ns, rel, base), "lastUpdateTime": "2026-01-01T00:00:00Z"},
            "conditions": [{"type": "Ready", "status": "True", "reason": "ChartPullSucceeded",
                            "message": "pulled '%s' chart with version '%s'" % (chart, ver),
                            "lastTransitionTime": "2026-01-01T00:00:00Z"}]}},
            ctype="application/merge-patch+json")
        spec = {"interval": "10m", "chartRef": {"kind": "HelmChart", "name": rel},
                "serviceAccountName": "corpus-deployer"}
        if refs:
            spec["valuesFrom"] = refs
        api.create("/apis/helm.toolkit.fluxcd.io/v2/namespaces/%s/helmreleases" % ns,
                   {"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
                    "metadata": {"name": rel, "namespace": ns, "annotations": {"bulkhead.dev/e2e": "yes"}},
                    "spec": spec})


def upgrade(rows_path):
    api = Api()
    for fmt, chart, case, rel, ns, archive, ver in rows(rows_path):
        api.call("PATCH", "/apis/helm.toolkit.fluxcd.io/v2/namespaces/%s/helmreleases/%s" % (ns, rel),
                 {"spec": {"values": upgrade_values(chart)}}, ctype="application/merge-patch+json")


def status(rows_path):
    api = Api()
    for fmt, chart, case, rel, ns, archive, ver in rows(rows_path):
        code, hr = api.call("GET", "/apis/helm.toolkit.fluxcd.io/v2/namespaces/%s/helmreleases/%s" % (ns, rel),
                            ok=(200, 404))
        st = (hr or {}).get("status") or {}
        hist = st.get("history") or [{}]
        ready = [c for c in st.get("conditions") or [] if c.get("type") == "Ready"] or [{}]
        print(ns, rel, "%s/%s/%s/%s|%s|%s" % ((hr or {}).get("metadata", {}).get("generation", ""),
              st.get("observedGeneration", ""), hist[0].get("version", ""), ready[0].get("status", ""),
              ready[0].get("reason", ""), (ready[0].get("message") or "").replace("\n", " ")))


def manifest(ns, rel, rev):
    _, s = Api().call("GET", "/api/v1/namespaces/%s/secrets/sh.helm.release.v1.%s.v%s" % (ns, rel, rev))
    raw = base64.b64decode(base64.b64decode(s["data"]["release"]))
    # Helm writes no "manifest" key for an empty one (omitempty)
    sys.stdout.write(json.loads(gzip.decompress(raw)).get("manifest", ""))


def same(want, again, got):
    """got == want, but for the lines where two runs of helm differ (random
    values); exit 1 with the first difference. Prints ", N random lines
    masked" when there were any."""
    a, b, g = (open(p).read().rstrip("\n").split("\n") for p in (want, again, got))
    if len(a) != len(b):
        sys.exit("two helm template runs differ in length")
    random = {i for i, (x, y) in enumerate(zip(a, b)) if x != y}
    for i, (x, y) in enumerate(zip(a, g)):
        if x != y and i not in random:
            sys.exit("line %d: helm %r, stored %r" % (i + 1, x[:120], y[:120]))
    if len(a) != len(g):
        sys.exit("helm has %d lines, stored %d" % (len(a), len(g)))
    print(", %d random lines masked" % len(random) if random else "")


def helm_list(rows_path, rev):
    """stdin: `helm list -A -o json`; each release of ROWS is listed at
    revision REV, deployed, with its chart (REV 0: none is listed)."""
    listed = {(r["namespace"], r["name"]): r for r in json.load(sys.stdin)}
    for fmt, chart, case, rel, ns, archive, ver in rows(rows_path):
        r = listed.get((ns, rel))
        if rev == "0":
            if r:
                sys.exit("helm list still lists %s/%s: %s" % (ns, rel, r))
            continue
        got = r and (r["revision"], r["status"], r["chart"])
        if got != (rev, "deployed", "%s-%s" % (chart, ver)):
            sys.exit("helm list: %s/%s is %s, not revision %s deployed %s-%s" % (ns, rel, got, rev, chart, ver))


def helm_history(rev):
    """stdin: `helm history -o json`; revisions 1..REV, the last deployed,
    the others superseded."""
    h = [(e["revision"], e["status"]) for e in json.load(sys.stdin)]
    want = [(i, "superseded") for i in range(1, int(rev))] + [(int(rev), "deployed")]
    if h != want:
        sys.exit("helm history: %s, not %s" % (h, want))


def heads(text):
    """(apiVersion, kind, name, namespace) of each document of a rendered
    manifest: top-level keys and metadata's direct children only."""
    import re
    for doc in re.split(r"(?m)^---\s*$", text):
        top, meta, indent, inmeta = {}, {}, None, False
        for line in doc.splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = re.match(r"^([A-Za-z]\w*):\s*(.*?)\s*$", line)
            if m:
                top[m.group(1)] = m.group(2)
                inmeta = m.group(1) == "metadata"
                continue
            if inmeta:
                ind = len(line) - len(line.lstrip(" "))
                indent = ind if indent is None else indent
                m = re.match(r"^ {%d}(name|namespace):\s*(.*?)\s*$" % indent, line)
                if m:
                    meta[m.group(1)] = m.group(2)
        if "kind" in top:
            unq = lambda v: v[1:-1] if len(v) > 1 and v[0] == v[-1] and v[0] in "'\"" else v
            ns = unq(meta.get("namespace", ""))
            # an empty or null namespace is none: the release's
            yield unq(top["apiVersion"]), unq(top["kind"]), unq(meta["name"]), "" if ns in ("null", "~", "Null", "NULL") else ns


def objects(want, ns, path):
    with open(path) as f:
        check(want, ns, list(heads(f.read())))


def dropped(ns, old, new):
    with open(old) as f:
        before = list(heads(f.read()))
    with open(new) as f:
        after = {(gv, kind, name, obj_ns or ns) for gv, kind, name, obj_ns in heads(f.read())}
    check("absent", ns, [h for h in before if (h[0], h[1], h[2], h[3] or ns) not in after])


def check(want, ns, objs):
    api = Api()
    plural = {}

    def resources(gv):
        if gv not in plural:
            code, rl = api.call("GET", ("/apis/" if "/" in gv else "/api/") + gv, ok=(200, 404))
            plural[gv] = {r["kind"]: (r["name"], r["namespaced"]) for r in rl["resources"]
                          if "/" not in r["name"]} if code == 200 else {}
        return plural[gv]

    n = kept = 0
    for gv, kind, name, obj_ns in objs:
        if want == "absent" and kind not in resources(gv):  # its CRD was deleted: so were its objects
            n += 1
            continue
        res, namespaced = resources(gv)[kind]
        obj_ns = obj_ns or ns
        p = ("/apis/" if "/" in gv else "/api/") + gv + \
            ("/namespaces/%s" % obj_ns if namespaced else "") + "/%s/%s" % (res, urllib.parse.quote(name, safe=""))
        code, obj = api.call("GET", p, ok=(200, 404))
        # Helm's uninstall keeps what is annotated helm.sh/resource-policy: keep
        keep = code == 200 and ((obj.get("metadata") or {}).get("annotations") or {}).get(
            "helm.sh/resource-policy") == "keep"
        if (code == 200) != (want == "present") and not (want == "absent" and keep):
            sys.exit("%s %s/%s: %s" % (kind, obj_ns, name, "missing" if want == "present" else "still there"))
        n += 1
        kept += keep
    print("%d objects" % n + (", %d kept by helm.sh/resource-policy" % kept if kept and want == "absent" else ""))


if __name__ == "__main__":
    a = sys.argv[1:]
    cmds = {("pick", 2): lambda: pick(a[1]), ("publish", 4): lambda: publish(*a[1:]),
            ("upgrade", 2): lambda: upgrade(a[1]),
            ("upgrade-values", 2): lambda: json.dump(upgrade_values(a[1]), sys.stdout),
            ("manifest", 4): lambda: manifest(*a[1:]),
            ("same", 4): lambda: same(*a[1:]),
            ("helm-list", 3): lambda: helm_list(a[1], a[2]), ("helm-history", 2): lambda: helm_history(a[1]), ("status", 2): lambda: status(a[1]),
            ("values-files", 3): lambda: print(" ".join(case_json(a[1], a[2])["valuesFiles"])), ("objects", 4): lambda: objects(*a[1:]),
            ("dropped", 4): lambda: dropped(*a[1:])}
    f = cmds.get((a[0] if a else "", len(a)))
    if not f:
        sys.exit(__doc__)
    f()
