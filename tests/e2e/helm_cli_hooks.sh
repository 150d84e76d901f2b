#!/usr/bin/env bash
# tests/e2e/helm_cli_hooks.sh — the real helm (v4) against kubesim with the
# podinfo chart's hook Jobs: a pre-install Job that sleeps (the install must
# wait for it), a post-install Job, a failing pre-upgrade Job (the upgrade
# fails with BackoffLimitExceeded and the release records it), the legacy
# wait strategy, and rollback to the last good revision.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
e2e_need_tool kubectl helm curl
e2e_need_shared
chart="$E2E_SHARED/conformance/charts/podinfo"
[ -f "$chart/Chart.yaml" ] || e2e_skip "podinfo chart not in $chart"
kubesim_start

t0=$SECONDS
out=$(helm install hooks "$chart" -n default --wait --timeout 60s \
	--set hooks.preInstall.job.enabled=true --set-json hooks.preInstall.job.sleepSeconds=3 \
	--set hooks.postInstall.job.enabled=true 2>&1) || e2e_fail "install: $out"
e2e_expect_contains "$out" "STATUS: deployed" "install with hooks"
[ $((SECONDS - t0)) -ge 3 ] || e2e_fail "install did not wait for the sleeping pre-install job"
log=$(kubesim_admin GET /_kubesim/log)
echo "$log" | e2e_has '"verb":"create","user":"admin".*"resource":"jobs"' || \
	echo "$log" | grep '"resource":"jobs"' | e2e_has '"verb":"patch"' || e2e_fail "helm created no hook job"
# hook-delete-policy hook-succeeded: both jobs are gone again
e2e_retry 10 sh -c '[ -z "$(kubectl get jobs -o name)" ]' || e2e_fail "succeeded hook jobs not deleted: $(kubectl get jobs -o name)"

out=$(helm upgrade hooks "$chart" --reuse-values --wait=legacy --timeout 30s --set replicaCount=2 \
	--set hooks.preUpgrade.job.enabled=true --set hooks.preUpgrade.job.exitCode=3 2>&1) \
	&& e2e_fail "upgrade with a failing pre-upgrade hook succeeded: $out"
e2e_expect_contains "$out" "pre-upgrade hooks failed: job hooks-podinfo-pre-upgrade failed: BackoffLimitExceeded" "failed hook"
[ "$(kubectl get deploy hooks-podinfo -o jsonpath='{.spec.replicas}')" = 1 ] || e2e_fail "failed upgrade changed the deployment"
out=$(helm history hooks 2>&1)
echo "$out" | grep -Eq '^2[[:space:]].*failed.*pre-upgrade hooks failed' || e2e_fail "history: $out"

out=$(helm upgrade hooks "$chart" --reuse-values --wait=legacy --timeout 30s --set replicaCount=2 \
	--set image.tag=6.14.2 --set hooks.preUpgrade.job.exitCode=0 2>&1) || e2e_fail "upgrade: $out"
# legacy wait: the new ReplicaSet has >= replicas - maxUnavailable (chart: 1) ready pods
ready=$(kubectl get pods -l app.kubernetes.io/name=hooks-podinfo -o jsonpath='{range .items[*]}{.spec.containers[0].image}={.status.conditions[?(@.type=="Ready")].status}{" "}{end}')
n=$(echo "$ready" | grep -o 'podinfo:6.14.2=True' | wc -l)
[ "$n" -ge 1 ] || e2e_fail "legacy wait returned before a new pod was ready: '$ready'"
out=$(helm rollback hooks 1 --wait --timeout 30s 2>&1) || e2e_fail "rollback: $out"
[ "$(kubectl get deploy hooks-podinfo -o jsonpath='{.spec.replicas}')" = 1 ] || e2e_fail "rollback"
helm uninstall hooks --wait --timeout 30s >/dev/null 2>&1 || e2e_fail "uninstall"
echo "PASS: helm_cli_hooks"
