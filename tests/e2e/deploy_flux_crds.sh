#!/usr/bin/env bash
# tests/e2e/deploy_flux_crds.sh — bulkhead on a cluster that runs Flux: the
# cluster already has Flux's HelmRelease, HelmChart, HelmRepository and
# OCIRepository CRDs (tests/e2e/flux/crds.yaml, applied server-side by the
# field manager "flux", as `flux install` does). Installing bulkhead as the
# README says (`kubectl apply -f deploy/`) leaves every one of them as it was;
# applying bulkhead's own CRDs by mistake (`kubectl apply --server-side -f
# deploy/crds/`) is refused with field conflicts and changes nothing; and
# bulkheadd, under its ServiceAccount token, reconciles a HelmRelease stored
# in Flux's CRDs to Ready=True.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
SK_CRDS="$BH_SRCDIR/tests/e2e/flux/crds.yaml" SK_CRDS_MANAGER=flux sk_setup

crds() { # name, resourceVersion, part-of label and the spec of every CRD
	kubectl get crd -o json | python3 -c '
import json, sys
for c in sorted(json.load(sys.stdin)["items"], key=lambda c: c["metadata"]["name"]):
    md = c["metadata"]
    print(md["name"], md["resourceVersion"], (md.get("labels") or {}).get("app.kubernetes.io/part-of"),
          json.dumps(c["spec"], sort_keys=True))'
}
before=$(crds)
[ "$(echo "$before" | grep -c ' flux {')" = 4 ] || sk_fail "Flux's 4 CRDs are not in place: $before"

out=$(kubectl apply -f "$BH_SRCDIR/deploy/" 2>&1) || sk_fail "kubectl apply -f deploy/: $out"
echo "$out"
case "$out" in *customresourcedefinition*) sk_fail "kubectl apply -f deploy/ touched CRDs: $out" ;; esac
[ "$(crds)" = "$before" ] || sk_fail "kubectl apply -f deploy/ changed Flux's CRDs: $(crds)"

out=$(kubectl apply --server-side -f "$BH_SRCDIR/deploy/crds/" 2>&1) && sk_fail "bulkhead's CRDs replaced Flux's: $out"
e2e_expect_contains "$out" 'conflicts with "flux"' "server-side apply of deploy/crds/"
[ "$(crds)" = "$before" ] || sk_fail "a refused apply of deploy/crds/ changed Flux's CRDs: $(crds)"
echo "deploy/crds/ over Flux's CRDs: refused with conflicts, nothing changed"

# bulkhead works on Flux's CRDs
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-f demo
sk_apply_hr team-f demo demo
r=$(sk_wait_ready team-f demo 90)
echo "team-f/demo: $r"
kubectl get configmap demo-config -n team-f >/dev/null 2>&1 || sk_fail "the release's objects are missing"
[ "$(crds)" = "$before" ] || sk_fail "Flux's CRDs changed while bulkhead ran: $(crds)"
echo "PASS: deploy/ leaves Flux's CRDs alone, deploy/crds/ cannot replace them, bulkhead runs on them"
