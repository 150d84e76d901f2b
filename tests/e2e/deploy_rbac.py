#!/usr/bin/env python3
"""tests/e2e/deploy_rbac.py KUBESIM_DIR DEPLOY_YAML — installs the identity
of bulkheadd from deploy/bulkhead.yaml into kubesim, as a cluster admin
would with `kubectl apply`: every object of the file but the Deployment
(Namespace, ServiceAccount, ClusterRole, ClusterRoleBinding, Roles, ...) is
server-side applied with kubesim's admin certificate. Then it asks for a
TokenRequest token of the bulkheadd ServiceAccount and prints it, so that
tests run bulkheadd with exactly the rights deploy/ grants, never as admin.
Python standard library only (no kubectl: scripts/demo.sh uses it too)."""
import json
import os
import re
import ssl
import sys
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kubesim"))
from kubesim_lib import miniyaml  # noqa: E402

SKIP_KINDS = {"Deployment", "PodDisruptionBudget"}  # the controller runs here as a local process (not even parsed)


def docs(path):
    with open(path) as f:
        text = f.read()
    cur = []
    for line in text.split("\n") + ["---"]:
        if line.strip() == "---":
            body = "\n".join(cur).strip()
            cur = []
            kind = re.search(r"^kind: *(\S+)", body, re.M)
            if kind and kind.group(1) not in SKIP_KINDS:
                yield miniyaml.load(body)
        else:
            cur.append(line)


def api_path(obj):
    gv = obj["apiVersion"]
    plural = obj["kind"].lower() + "s"
    base = "/api/" + gv if "/" not in gv else "/apis/" + gv
    md = obj["metadata"]
    ns = md.get("namespace")
    if ns:
        base += "/namespaces/" + ns
    return base + "/" + plural + "/" + md["name"]


def main():
    kdir, deploy = sys.argv[1], sys.argv[2]
    with open(os.path.join(kdir, "url")) as f:
        url = f.read().strip()
    ctx = ssl.create_default_context(cafile=os.path.join(kdir, "ca.crt"))
    ctx.load_cert_chain(os.path.join(kdir, "admin.crt"), os.path.join(kdir, "admin.key"))

    def call(method, path, body, ctype):
        req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method=method,
                                     headers={"Content-Type": ctype, "Accept": "application/json"})
        try:
            with urllib.request.urlopen(req, context=ctx, timeout=30) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            sys.exit("deploy_rbac: %s %s: %d %s" % (method, path, e.code, e.read().decode(errors="replace")))

    sa = None
    for obj in docs(deploy):
        call("PATCH", api_path(obj) + "?fieldManager=deploy-rbac&force=true", obj,
             "application/apply-patch+yaml")
        if obj["kind"] == "ServiceAccount" and obj["metadata"]["name"] == "bulkheadd":
            sa = obj["metadata"]
    if sa is None:
        sys.exit("deploy_rbac: %s has no ServiceAccount bulkheadd" % deploy)
    tr = call("POST", "/api/v1/namespaces/%s/serviceaccounts/bulkheadd/token" % sa["namespace"],
              {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
               "spec": {"expirationSeconds": 7200}}, "application/json")
    print(tr["status"]["token"])


if __name__ == "__main__":
    main()
