#!/usr/bin/env bash
# tests/e2e/helm_cli_podinfo.sh — the real helm (v4) against kubesim with the
# podinfo chart from ../shared/conformance/charts: install --wait (which must
# really wait for the rollout), upgrade, list, history, rollback, test (passing
# and failing), uninstall; the release Secrets are Helm's own format.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
e2e_need_tool kubectl helm curl
e2e_need_shared
chart="$E2E_SHARED/conformance/charts/podinfo"
[ -f "$chart/Chart.yaml" ] || e2e_skip "podinfo chart not in $chart"
# pods take 2s to start, so a non-waiting install would be seen as not ready
kubesim_start --pod-start-delay 2
kubectl create namespace apps >/dev/null || e2e_fail "create namespace"

t0=$SECONDS
out=$(helm install podinfo "$chart" -n apps --wait --timeout 60s 2>&1) || e2e_fail "helm install: $out"
e2e_expect_contains "$out" "STATUS: deployed" "helm install"
[ $((SECONDS - t0)) -ge 2 ] || e2e_fail "helm install --wait returned before the pods could be ready"
[ "$(kubectl get deploy podinfo -n apps -o jsonpath='{.status.availableReplicas}')" = 1 ] \
	|| e2e_fail "deployment not available after install --wait"
kubectl get service podinfo -n apps >/dev/null || e2e_fail "no service"
sec=$(kubectl get secrets -n apps -l owner=helm,name=podinfo -o jsonpath='{.items[*].metadata.name}')
[ "$sec" = "sh.helm.release.v1.podinfo.v1" ] || e2e_fail "release secret: '$sec'"
[ "$(kubectl get secret sh.helm.release.v1.podinfo.v1 -n apps -o jsonpath='{.type}')" = helm.sh/release.v1 ] \
	|| e2e_fail "release secret type"
mf=$(kubectl get deploy podinfo -n apps -o yaml --show-managed-fields)
e2e_expect_contains "$mf" "manager: helm" "managedFields (helm 4 applies server-side)"

out=$(helm upgrade podinfo "$chart" -n apps --set replicaCount=2 --wait --timeout 60s 2>&1) || e2e_fail "upgrade: $out"
e2e_expect_contains "$out" 'Release "podinfo" has been upgraded' "helm upgrade"
[ "$(kubectl get deploy podinfo -n apps -o jsonpath='{.spec.replicas}/{.status.availableReplicas}')" = 2/2 ] \
	|| e2e_fail "upgrade to 2 replicas not rolled out"

out=$(helm list -n apps 2>&1) || e2e_fail "list: $out"
echo "$out" | grep -Eq '^podinfo[[:space:]]+apps[[:space:]]+2[[:space:]].*deployed[[:space:]]+podinfo-6\.14\.1' \
	|| e2e_fail "helm list: $out"
out=$(helm history podinfo -n apps 2>&1) || e2e_fail "history: $out"
echo "$out" | grep -Eq '^1[[:space:]].*superseded.*Install complete' || e2e_fail "history rev 1: $out"
echo "$out" | grep -Eq '^2[[:space:]].*deployed.*Upgrade complete' || e2e_fail "history rev 2: $out"

out=$(helm rollback podinfo 1 -n apps --wait --timeout 60s 2>&1) || e2e_fail "rollback: $out"
e2e_expect_contains "$out" "Rollback was a success" "helm rollback"
[ "$(kubectl get deploy podinfo -n apps -o jsonpath='{.spec.replicas}')" = 1 ] || e2e_fail "rollback did not restore 1 replica"
out=$(helm history podinfo -n apps 2>&1)
echo "$out" | grep -Eq '^3[[:space:]].*deployed.*Rollback to 1' || e2e_fail "history rev 3: $out"

out=$(helm test podinfo -n apps --timeout 60s 2>&1) || e2e_fail "helm test: $out"
n=$(echo "$out" | grep -c 'Phase:          Succeeded')
[ "$n" -ge 2 ] || e2e_fail "expected the podinfo test pods to succeed: $out"

# a failing test hook (the chart's faults.testFail runs `exit 1`)
out=$(helm upgrade podinfo "$chart" -n apps --reuse-values --set faults.testFail=true --wait --timeout 60s 2>&1) \
	|| e2e_fail "upgrade (testFail): $out"
out=$(helm test podinfo -n apps --timeout 60s 2>&1) && e2e_fail "helm test passed with a failing test pod: $out"
e2e_expect_contains "$out" "fault-test" "failing helm test"
e2e_expect_contains "$out" "Phase:          Failed" "failing helm test"

out=$(helm uninstall podinfo -n apps --wait --timeout 60s 2>&1) || e2e_fail "uninstall: $out"
e2e_expect_contains "$out" 'release "podinfo" uninstalled' "uninstall"
[ -z "$(kubectl get deploy,svc,sa -n apps -l app.kubernetes.io/name=podinfo -o name)" ] || e2e_fail "objects left after uninstall"
[ -z "$(kubectl get secrets -n apps -l owner=helm -o name)" ] || e2e_fail "release secrets left after uninstall"
# the failed test pod stays (its hook-delete-policy lacks hook-failed), as in a real cluster
e2e_retry 10 sh -c '[ -z "$(kubectl get pods -n apps -o name | grep -v fault-test)" ]' \
	|| e2e_fail "pods not garbage collected after uninstall: $(kubectl get pods -n apps -o name)"
kubectl get pods -n apps -o name | e2e_has fault-test || e2e_fail "the failed test pod should be kept"
out=$(helm list -n apps -q)
[ -z "$out" ] || e2e_fail "helm list after uninstall: $out"
echo "PASS: helm_cli_podinfo"
