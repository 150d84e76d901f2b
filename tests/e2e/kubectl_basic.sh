#!/usr/bin/env bash
# tests/e2e/kubectl_basic.sh — the real kubectl against kubesim: apply -f
# (client-side and --server-side, with a conflict), get -o yaml, describe,
# wait --for=condition=ready/available, CRDs with a status subresource, delete.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
e2e_need_tool kubectl curl
kubesim_start
m="$E2E_TMP/m"; mkdir -p "$m"

cat >"$m/app.yaml" <<'Y'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        ports:
        - containerPort: 80
        env:
        - name: MODE
          value: one
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - port: 80
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  color: blue
Y

out=$(kubectl apply -f "$m/app.yaml" 2>&1) || e2e_fail "apply: $out"
e2e_expect_contains "$out" "deployment.apps/web created" "kubectl apply"
e2e_expect_contains "$out" "service/web created" "kubectl apply"
e2e_expect_contains "$out" "configmap/settings created" "kubectl apply"

kubectl wait --for=condition=available deployment/web --timeout=30s >/dev/null || e2e_fail "deployment web not available"
out=$(kubectl wait --for=condition=ready pod -l app=web --timeout=30s 2>&1) || e2e_fail "wait pods: $out"
[ "$(echo "$out" | grep -c 'condition met')" = 2 ] || e2e_fail "expected 2 ready pods, got: $out"

y=$(kubectl get deployment web -o yaml) || e2e_fail "get -o yaml"
e2e_expect_contains "$y" "kind: Deployment" "get -o yaml"
e2e_expect_contains "$y" "generation: 1" "get -o yaml"
e2e_expect_contains "$y" "kubectl.kubernetes.io/last-applied-configuration" "get -o yaml"
e2e_expect_contains "$y" "availableReplicas: 2" "get -o yaml"
ip=$(kubectl get service web -o jsonpath='{.spec.clusterIP}')
case "$ip" in 10.96.*) ;; *) e2e_fail "service has no ClusterIP: '$ip'" ;; esac

# client-side apply of a change: strategic merge patch, generation bumps
sed -i 's/value: one/value: two/; s/color: blue/color: green/' "$m/app.yaml"
out=$(kubectl apply -f "$m/app.yaml" 2>&1) || e2e_fail "re-apply: $out"
e2e_expect_contains "$out" "deployment.apps/web configured" "re-apply"
e2e_expect_contains "$out" "service/web unchanged" "re-apply"
[ "$(kubectl get deploy web -o jsonpath='{.spec.template.spec.containers[0].env[0].value}/{.metadata.generation}')" = "two/2" ] \
	|| e2e_fail "apply did not change the env value or bump generation"
[ "$(kubectl get cm settings -o jsonpath='{.data.color}')" = green ] || e2e_fail "configmap not updated"
kubectl rollout status deployment/web --timeout=30s >/dev/null || e2e_fail "rollout status"

d=$(kubectl describe deployment web) || e2e_fail "describe"
e2e_expect_contains "$d" "Replicas:               2 desired | 2 updated | 2 total | 2 available | 0 unavailable" "describe"
echo "$d" | grep -Eq '^ +MODE: +two$' || e2e_fail "describe lacks the MODE=two environment: $d"
e2e_expect_contains "$d" "ScalingReplicaSet" "describe events"

# server-side apply: create, conflict with another manager, force
cat >"$m/ssa.yaml" <<'Y'
apiVersion: v1
kind: ConfigMap
metadata:
  name: ssa
data:
  a: "1"
  b: "2"
Y
out=$(kubectl apply --server-side -f "$m/ssa.yaml" 2>&1) || e2e_fail "ssa: $out"
e2e_expect_contains "$out" "configmap/ssa serverside-applied" "apply --server-side"
mf=$(kubectl get cm ssa -o yaml --show-managed-fields)
e2e_expect_contains "$mf" "operation: Apply" "managedFields"
e2e_expect_contains "$mf" "manager: kubectl" "managedFields"
kubectl patch cm ssa --type=merge -p '{"data":{"a":"changed"}}' >/dev/null || e2e_fail "patch"
out=$(kubectl apply --server-side -f "$m/ssa.yaml" 2>&1) && e2e_fail "conflicting apply succeeded: $out"
e2e_expect_contains "$out" 'Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: .data.a' "conflict"
kubectl apply --server-side --force-conflicts -f "$m/ssa.yaml" >/dev/null || e2e_fail "force-conflicts"
[ "$(kubectl get cm ssa -o jsonpath='{.data.a}')" = 1 ] || e2e_fail "force apply did not take the field"
sed -i '/b: "2"/d' "$m/ssa.yaml"
kubectl apply --server-side -f "$m/ssa.yaml" >/dev/null || e2e_fail "ssa remove field"
[ "$(kubectl get cm ssa -o jsonpath='{.data}')" = '{"a":"1"}' ] || e2e_fail "field removed from the applied config was kept"

# strict field validation (kubectl's default): a typo is refused like the apiserver does
printf 'apiVersion: v1\nkind: Service\nmetadata: {name: typo}\nspec:\n  ports: [{port: 80, targetPortt: 8080}]\n' >"$m/typo.yaml"
out=$(kubectl apply -f "$m/typo.yaml" 2>&1) && e2e_fail "typo accepted: $out"
e2e_expect_contains "$out" 'Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "spec.ports[0].targetPortt"' "strict validation"

# CRDs with a status subresource; wait on a condition set through /status
kubectl apply -f "$BH_SRCDIR/tests/kubesim/testdata/flux-crds.yaml" >/dev/null || e2e_fail "apply CRDs"
cat >"$m/hr.yaml" <<'Y'
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: demo
spec:
  interval: 5m
  chart:
    spec:
      chart: podinfo
Y
kubectl apply -f "$m/hr.yaml" >/dev/null || e2e_fail "apply HelmRelease"
kubectl wait --for=condition=ready helmrelease/demo --timeout=20s >"$m/wait.out" 2>&1 &
waiter=$!
sleep 1
kill -0 $waiter 2>/dev/null || e2e_fail "kubectl wait returned before the condition was set: $(cat "$m/wait.out")"
kubectl patch hr demo --subresource=status --type=merge \
	-p '{"status":{"conditions":[{"type":"Ready","status":"True","reason":"InstallSucceeded","message":"Helm install succeeded","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' >/dev/null \
	|| e2e_fail "patch status"
wait $waiter || e2e_fail "kubectl wait failed: $(cat "$m/wait.out")"
e2e_expect_contains "$(cat "$m/wait.out")" "helmrelease.helm.toolkit.fluxcd.io/demo condition met" "wait"
row=$(kubectl get hr demo --no-headers)
e2e_expect_contains "$row" "True" "printer columns"
e2e_expect_contains "$row" "Helm install succeeded" "printer columns"
[ "$(kubectl get hr demo -o jsonpath='{.metadata.generation}')" = 1 ] || e2e_fail "status update bumped generation"

# delete: the deployment goes, its ReplicaSets and pods are garbage collected
out=$(kubectl delete -f "$m/app.yaml" 2>&1) || e2e_fail "delete: $out"
e2e_expect_contains "$out" 'deployment.apps "web" deleted' "delete"
out=$(kubectl get deployment web 2>&1) && e2e_fail "deployment still there"
e2e_expect_contains "$out" 'deployments.apps "web" not found' "get after delete"
kubectl wait --for=delete pod -l app=web --timeout=20s >/dev/null 2>&1 || true
e2e_retry 10 sh -c '[ -z "$(kubectl get pods -l app=web -o name)" ]' || e2e_fail "pods not garbage collected"

# the request log saw kubectl's calls, made by admin
n=$(kubesim_log_count verb=patch user=admin) || e2e_fail "request log"
[ "$n" -ge 3 ] || e2e_fail "expected >= 3 patch requests by admin in the request log, got $n"
n=$(kubesim_log_count verb=delete resource=deployments name=web status=200)
[ "$n" = 1 ] || e2e_fail "expected 1 successful delete of deployment web in the request log, got $n"
echo "PASS: kubectl_basic"
