#!/usr/bin/env bash
# scripts/demo.sh — the walking skeleton, end to end, on loopback:
#  1. installs missing Debian packages (scripts/install-deps.sh --no-tools)
#  2. builds bulkheadd, bulkhead-worker and bulkhead-fetcher (in
#     $BH_BUILDDIR, default build/)
#  3. starts tests/kubesim (a Kubernetes API server emulator), installs the
#     CRDs from deploy/crds/, and serves a Helm repository on loopback (the
#     demo chart packaged, and an index.yaml; by `helm package` and `helm
#     repo index` when helm is installed)
#  4. installs bulkheadd's ServiceAccount and RBAC from deploy/bulkhead.yaml,
#     starts bulkheadd with a token of that ServiceAccount (never as admin),
#     the lock-down flags of the shipped configs and its built-in sources
#     (--sources=builtin), applies
#     a HelmRepository and a sample HelmRelease (.spec.chart) that acts as
#     the ServiceAccount team-a/deployer, and prints its status until
#     Ready=True: bulkheadd fetched the chart through bulkhead-fetcher
#  5. lists the objects the release created, then stops everything it started
# Needs no kubectl or helm: it talks to kubesim with curl.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/install-deps.sh --no-tools

export BH_SRCDIR="$top"
export BH_BUILDDIR="${BH_BUILDDIR:-$top/build}"
if [ ! -x "$BH_BUILDDIR/supervisor/bulkheadd" ] || [ ! -x "$BH_BUILDDIR/worker/bulkhead-worker" ] ||
	[ ! -x "$BH_BUILDDIR/fetcher/bulkhead-fetcher" ] || [ -n "${DEMO_REBUILD:-}" ]; then
	echo "demo: building bulkheadd, bulkhead-worker and bulkhead-fetcher in $BH_BUILDDIR"
	[ -x configure ] || autoreconf -fi >/dev/null
	mkdir -p "$BH_BUILDDIR"
	( cd "$BH_BUILDDIR" && { [ -f Makefile ] || "$top/configure" >/dev/null; } \
	  && make -j2 supervisor/bulkheadd worker/bulkhead-worker fetcher/bulkhead-fetcher >/dev/null )
fi

. "$top/tests/e2e/lib.sh"
BULKHEADD_PID= HTTP_PID=
demo_cleanup() {
	local rc=$?
	[ -n "$BULKHEADD_PID" ] && { kill -TERM "$BULKHEADD_PID" 2>/dev/null; wait "$BULKHEADD_PID" 2>/dev/null || true; }
	[ -n "$HTTP_PID" ] && { kill -TERM "$HTTP_PID" 2>/dev/null; wait "$HTTP_PID" 2>/dev/null || true; }
	e2e_cleanup
	exit $rc
}
trap demo_cleanup EXIT

demo_apply() { # demo_apply PATH YAML: server-side apply as the demo's admin
	kubesim_curl --fail-with-body -X PATCH -H 'Content-Type: application/apply-patch+yaml' \
		--data-binary "$2" "$1?fieldManager=demo&force=true" >/dev/null
}
demo_status_patch() { # demo_status_patch PATH JSON
	kubesim_curl --fail-with-body -X PATCH -H 'Content-Type: application/merge-patch+json' \
		--data-binary "$2" "$1/status" >/dev/null
}

echo "demo: starting kubesim"
kubesim_start
for f in deploy/crds/*.yaml; do
	name=$(sed -n 's/^  name: //p' "$f" | head -1)
	demo_apply "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$name" "$(cat "$f")"
done

echo "demo: serving a Helm repository with the demo chart"
work="$E2E_TMP/demo"
mkdir -p "$work/charts"
if command -v helm >/dev/null 2>&1; then
	helm package tests/e2e/skeleton/demo -d "$work/charts" >/dev/null
	helm repo index "$work/charts"
else # the same two files by hand
	tar -C tests/e2e/skeleton -czf "$work/charts/demo-0.1.0.tgz" demo
	cat >"$work/charts/index.yaml" <<YAML
apiVersion: v1
entries:
  demo:
  - apiVersion: v2
    name: demo
    version: 0.1.0
    appVersion: 1.0.0
    digest: $(sha256sum "$work/charts/demo-0.1.0.tgz" | cut -d' ' -f1)
    urls:
    - demo-0.1.0.tgz
generated: "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
YAML
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 "$port" --directory "$work/charts" >"$work/http.log" 2>&1 &
HTTP_PID=$!

demo_apply /api/v1/namespaces/team-a "apiVersion: v1
kind: Namespace
metadata:
  name: team-a"
demo_apply /api/v1/namespaces/team-a/serviceaccounts/deployer "apiVersion: v1
kind: ServiceAccount
metadata:
  name: deployer
  namespace: team-a"
demo_apply /apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles/deployer "apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: deployer
  namespace: team-a
rules:
- apiGroups: [\"\", apps]
  resources: [secrets, configmaps, services, deployments]
  verbs: [get, list, watch, create, update, patch, delete]"
demo_apply /apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings/deployer "apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: deployer
  namespace: team-a
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: deployer
subjects:
- kind: ServiceAccount
  name: deployer
  namespace: team-a"
demo_apply /apis/source.toolkit.fluxcd.io/v1/namespaces/team-a/helmrepositories/demo "apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: demo
  namespace: team-a
spec:
  url: http://127.0.0.1:$port
  interval: 1m"

echo "demo: starting bulkheadd as the ServiceAccount bulkhead-system/bulkheadd of deploy/bulkhead.yaml"
kubesim_bulkheadd_kubeconfig "$work/bulkheadd.kubeconfig"
"$BH_BUILDDIR/supervisor/bulkheadd" --kubeconfig "$work/bulkheadd.kubeconfig" --audit-log "$work/audit.log" \
	--worker-path "$BH_BUILDDIR/worker/bulkhead-worker" --concurrent 2 --requeue-dependency 1s \
	--sources builtin --fetcher-path "$BH_BUILDDIR/fetcher/bulkhead-fetcher" \
	--default-service-account default --no-cross-namespace-refs \
	>"$work/bulkheadd.log" 2>&1 &
BULKHEADD_PID=$!

echo "demo: applying HelmRelease team-a/demo"
hr=/apis/helm.toolkit.fluxcd.io/v2/namespaces/team-a/helmreleases/demo
demo_apply "$hr" "apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: demo
  namespace: team-a
spec:
  interval: 10m
  timeout: 2m
  serviceAccountName: deployer
  chart:
    spec:
      chart: demo
      version: 0.1.x
      sourceRef:
        kind: HelmRepository
        name: demo
  values:
    greeting: hello from the demo"

ready=
for i in $(seq 1 120); do
	line=$(kubesim_admin GET "$hr" | python3 -c '
import json, sys
o = json.load(sys.stdin)
for c in o.get("status", {}).get("conditions", []):
    if c.get("type") == "Ready":
        print("%s\t%s\t%s" % (c.get("status"), c.get("reason"), c.get("message")))
        break
else:
    print("Unknown\t-\twaiting for the controller")')
	echo "demo: HelmRelease team-a/demo Ready=$line"
	case "$line" in True*) ready=1; break ;; esac
	kill -0 "$BULKHEADD_PID" 2>/dev/null || { echo "demo: bulkheadd exited"; cat "$work/bulkheadd.log"; exit 1; }
	sleep 0.5
done
if [ -z "$ready" ]; then
	echo "demo: FAILED: the HelmRelease did not become ready"
	tail -20 "$work/bulkheadd.log"
	exit 1
fi
echo "demo: objects of the release in namespace team-a:"
for p in configmaps/demo-config services/demo secrets/sh.helm.release.v1.demo.v1; do
	kubesim_admin GET "/api/v1/namespaces/team-a/$p" >/dev/null && echo "  $p"
done
kubesim_admin GET /apis/apps/v1/namespaces/team-a/deployments/demo >/dev/null && echo "  deployments/demo"
echo "demo: the chart as bulkheadd's built-in sources fetched it (HelmChart team-a/team-a-demo):"
kubesim_admin GET /apis/source.toolkit.fluxcd.io/v1/namespaces/team-a/helmcharts/team-a-demo | python3 -c '
import json, sys
s = json.load(sys.stdin).get("status", {})
print("  revision %s, digest %s" % (s.get("artifact", {}).get("revision"), s.get("artifact", {}).get("digest")))'
echo "demo: audit log (every request the worker made, as system:serviceaccount:team-a:deployer):"
sed 's/^/  /' "$work/audit.log"
echo "demo: OK"
exit 0
