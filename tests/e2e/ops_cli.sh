#!/usr/bin/env bash
# tests/e2e/ops_cli.sh — issue 13: `bulkhead values` and `bulkhead reconcile
# --once`, with no bulkheadd running.
#  - values: a HelmRelease with valuesFrom (a ConfigMap, a Secret key at a
#    targetPath) and inline values; `bulkhead values NAME -n NS` and
#    `bulkhead values -f FILE` print, byte for byte, what the real
#    `helm get values -o yaml` (and -o json) prints for the release bulkhead
#    installed with them; a file without valuesFrom needs no cluster, one
#    with valuesFrom says it needs one; a missing reference is named;
#  - reconcile --once: installs the HelmRelease in the foreground through the
#    sandboxed worker and exits 0 with Ready=True; -f FILE applies a changed
#    HelmRelease and upgrades it; a HelmRelease that cannot become Ready
#    exits 1 with its reason written; a missing one exits 2; a suspended one
#    is refused; no bulkheadd is left running.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/ops_lib.sh"
ops_setup
BH=$BH_BUILDDIR/cli/bulkhead
LOCK=(-- --worker-path "$SK_WORKER" --default-service-account default --no-cross-namespace-refs)
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-v demo
kubectl create configmap base -n team-v --from-literal=values.yaml='greeting: from-configmap
nested:
  a: 1
  list: [x, y]
replicas: 2' >/dev/null
kubectl create secret generic sec -n team-v --from-literal=extra='s3cret<&>' >/dev/null
cat >"$SK_DIR/web.yaml" <<'YAML'
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: web
  namespace: team-v
spec:
  interval: 10m
  chartRef:
    kind: HelmChart
    name: demo
  valuesFrom:
  - kind: ConfigMap
    name: base
  - kind: Secret
    name: sec
    valuesKey: extra
    targetPath: nested.b
  values:
    greeting: inline
    ratio: 0.5
    big: 12345678901
    empty: {}
YAML
kubectl apply -f "$SK_DIR/web.yaml" >/dev/null || sk_fail "applying web"

# values before any reconcile, from the cluster and from the file
"$BH" values web -n team-v >"$SK_DIR/v-cluster.yaml" || sk_fail "bulkhead values web: $(cat "$SK_DIR/v-cluster.yaml")"
"$BH" values -f "$SK_DIR/web.yaml" >"$SK_DIR/v-file.yaml" || sk_fail "bulkhead values -f"
cmp -s "$SK_DIR/v-cluster.yaml" "$SK_DIR/v-file.yaml" || sk_fail "values of the object and of the file differ: $(diff "$SK_DIR/v-cluster.yaml" "$SK_DIR/v-file.yaml")"
cat "$SK_DIR/v-cluster.yaml"

# reconcile --once: the install
t0=$SECONDS
"$BH" reconcile --once web -n team-v "${LOCK[@]}" >"$SK_DIR/once1.log" 2>&1
rc=$?
echo "reconcile --once web: exit $rc after $((SECONDS - t0))s"
[ "$rc" = 0 ] || { tail -20 "$SK_DIR/once1.log"; sk_fail "reconcile --once exited $rc"; }
r=$(sk_ready team-v web)
e2e_expect_contains "$r" "True|InstallSucceeded|Helm install succeeded for release team-v/web.v1" "web after reconcile --once"
grep -q "started worker" "$SK_DIR/once1.log" || sk_fail "no sandboxed worker in the log"
pgrep -f "bulkheadd --once" >/dev/null && sk_fail "a bulkheadd --once is still running"

# the golden: what helm stored as the release's values
helm get values web -n team-v -o yaml >"$SK_DIR/helm-values.yaml" || sk_fail "helm get values"
cmp -s "$SK_DIR/helm-values.yaml" "$SK_DIR/v-cluster.yaml" || sk_fail "bulkhead values differs from helm get values -o yaml:
$(diff "$SK_DIR/helm-values.yaml" "$SK_DIR/v-cluster.yaml")"
helm get values web -n team-v -o json >"$SK_DIR/helm-values.json"
"$BH" values web -n team-v -o json >"$SK_DIR/v.json" || sk_fail "bulkhead values -o json"
cmp -s "$SK_DIR/helm-values.json" "$SK_DIR/v.json" || sk_fail "-o json differs: $(diff "$SK_DIR/helm-values.json" "$SK_DIR/v.json")"
echo "bulkhead values = helm get values (-o yaml, -o json) of the release bulkhead installed"

# no cluster needed without valuesFrom; a clear error with it; a missing reference named
sed '/valuesFrom:/,/targetPath/d' "$SK_DIR/web.yaml" >"$SK_DIR/plain.yaml"
out=$(env -u KUBECONFIG "$BH" values -f "$SK_DIR/plain.yaml") || sk_fail "values of a file without valuesFrom needed a cluster"
e2e_expect_contains "$out" "greeting: inline" "values -f without a cluster"
out=$(env -u KUBECONFIG "$BH" values -f "$SK_DIR/web.yaml" 2>&1) && sk_fail "values with valuesFrom and no cluster succeeded"
e2e_expect_contains "$out" "no kubeconfig" "values with valuesFrom and no cluster"
kubectl patch helmrelease web -n team-v --type=json -p '[{"op":"add","path":"/spec/valuesFrom/-","value":{"kind":"ConfigMap","name":"absent"}}]' >/dev/null
out=$("$BH" values web -n team-v 2>&1) && sk_fail "values with a missing ConfigMap succeeded"
e2e_expect_contains "$out" "absent" "the missing reference"
echo "missing reference: $out"
kubectl patch helmrelease web -n team-v --type=json -p '[{"op":"remove","path":"/spec/valuesFrom/2"}]' >/dev/null

# reconcile --once -f: a changed HelmRelease is applied, then upgraded
sed 's/greeting: inline/greeting: changed/' "$SK_DIR/web.yaml" >"$SK_DIR/web2.yaml"
"$BH" reconcile --once -f "$SK_DIR/web2.yaml" "${LOCK[@]}" >"$SK_DIR/once2.log" 2>&1 || { tail -20 "$SK_DIR/once2.log"; sk_fail "reconcile --once -f"; }
r=$(sk_ready team-v web)
e2e_expect_contains "$r" "True|UpgradeSucceeded|Helm upgrade succeeded for release team-v/web.v2" "web after reconcile --once -f"
[ "$(helm get values web -n team-v -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["greeting"])')" = changed ] \
	|| sk_fail "the upgrade did not use the file's values"

# failures: not Ready (exit 1, reason written), not found (2), suspended (refused)
sk_apply_hr team-v broken nosuchchart
"$BH" reconcile --once broken -n team-v "${LOCK[@]}" >"$SK_DIR/once3.log" 2>&1
rc=$?
r=$(sk_ready team-v broken)
echo "reconcile --once broken: exit $rc, Ready: $r"
[ "$rc" = 1 ] || sk_fail "reconcile --once of a HelmRelease that cannot be Ready exited $rc"
case "$r" in False\|*) ;; *) sk_fail "broken: Ready $r" ;; esac
"$BH" reconcile --once ghost -n team-v "${LOCK[@]}" >"$SK_DIR/once4.log" 2>&1
rc=$?
[ "$rc" = 2 ] || sk_fail "reconcile --once of a missing HelmRelease exited $rc: $(cat "$SK_DIR/once4.log")"
kubectl patch helmrelease web -n team-v --type=merge -p '{"spec":{"suspend":true}}' >/dev/null
out=$("$BH" reconcile --once web -n team-v "${LOCK[@]}" 2>&1) && sk_fail "a suspended HelmRelease was reconciled"
e2e_expect_contains "$out" "is suspended" "reconcile --once of a suspended HelmRelease"
out=$("$BH" reconcile web -n team-v 2>&1) && sk_fail "reconcile without --once succeeded"
e2e_expect_contains "$out" "needs --once" "reconcile without --once"
echo "PASS: bulkhead values = helm get values; reconcile --once installs, upgrades from a file, and exits 0/1/2"
