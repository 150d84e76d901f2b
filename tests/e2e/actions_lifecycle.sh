#!/usr/bin/env bash
# tests/e2e/actions_lifecycle.sh — rollback, uninstall, test and recovery of
# `bulkhead release` against kubesim:
#  rollback to the previous successful version (after a failed upgrade) or a
#  given one, --recreate, --force, --cleanup-on-fail, the pending lock;
#  uninstall with --deletion-propagation orphan/background/foreground (and
#  waiting for deletion), --keep-history, storage already gone;
#  test with filters, per-hook phases and times, the failing pod named;
#  a worker killed mid-action leaves pending-install / pending-upgrade, and
#  the next actions (unlock, then upgrade, as Flux's v2 state machine does)
#  recover with no duplicate or lost storage version.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
e2e_need_tool kubectl helm
e2e_need_shared
. "$(dirname "$0")/actions_lib.sh"
kubesim_start
CH="$E2E_TMP/hookchart"
make_hookchart "$CH"
PODINFO="$E2E_SHARED/conformance/charts/podinfo"
NOH=--no-hooks
cmval() { kubectl get cm "$1" -n "$2" -o jsonpath='{.data.value}' 2>/dev/null; }

echo "== rollback to the previous successful version after a failed upgrade"
kubectl create namespace rb >/dev/null
bh release install hk "$CH" -n rb $NOH --set data=a
bh release upgrade hk "$CH" -n rb $NOH --set data=b
bh_fail release upgrade hk "$CH" -n rb $NOH --set data=c --set workJob=20 --timeout 2s
expect_versions rb hk "1:superseded 2:deployed 3:failed"
[ "$(cmval hk-main rb)" = c ] || e2e_fail "failed upgrade did apply data=c"
bh release rollback hk -n rb $NOH
e2e_expect_contains "$BH_OUT" "version 4 deployed (Rollback to 2)"
expect_versions rb hk "1:superseded 2:superseded 3:failed 4:deployed"
[ "$(cmval hk-main rb)" = b ] || e2e_fail "rollback did not restore data=b"
bh release rollback hk 1 -n rb $NOH
expect_history rb hk 5 deployed "Rollback to 1"
[ "$(cmval hk-main rb)" = a ] || e2e_fail "rollback 1"
hm get values hk -n rb -o json
e2e_expect_contains "$HELM_OUT" '"data":"a"' "values of the rolled back release"

echo "== rollback --force replaces, plain rollback applies"
kubectl label cm hk-main -n rb mine=yes >/dev/null
bh release rollback hk 2 -n rb $NOH
[ "$(kubectl get cm hk-main -n rb -o jsonpath='{.metadata.labels.mine}')" = yes ] || e2e_fail "rollback removed a foreign label"
bh release rollback hk 1 -n rb $NOH --force
[ -z "$(kubectl get cm hk-main -n rb -o jsonpath='{.metadata.labels.mine}')" ] || e2e_fail "rollback --force did not replace"

echo "== rollback --cleanup-on-fail"
kubectl create namespace rc >/dev/null
bh release install hk "$CH" -n rc $NOH --set extra=true --set workJob=20 --no-wait
bh release upgrade hk "$CH" -n rc $NOH
kubectl get cm hk-extra -n rc >/dev/null 2>&1 && e2e_fail "upgrade left hk-extra"
bh_fail release rollback hk 1 -n rc $NOH --timeout 2s --cleanup-on-fail
e2e_expect_contains "$BH_OUT" "context deadline exceeded"
expect_versions rc hk "1:superseded 2:superseded 3:failed"
expect_history rc hk 3 failed 'Rollback "hk" failed'
e2e_retry 5 sh -c '! kubectl get cm hk-extra -n rc >/dev/null 2>&1' || e2e_fail "--cleanup-on-fail left hk-extra"
e2e_retry 5 sh -c '! kubectl get job hk-work-20 -n rc >/dev/null 2>&1' || e2e_fail "--cleanup-on-fail left the Job"

echo "== rollback --recreate restarts the workload's pods"
kubectl create namespace rr >/dev/null
bh release install pod "$PODINFO" -n rr $NOH --timeout 60s
bh release upgrade pod "$PODINFO" -n rr $NOH --set replicaCount=2 --timeout 60s
before=$(kubectl get pods -n rr -l app.kubernetes.io/name=pod-podinfo -o jsonpath='{.items[*].metadata.name}')
log_mark
bh release rollback pod -n rr $NOH --recreate --timeout 60s
log_since | e2e_has '^delete pods ' || e2e_fail "--recreate deleted no pods"
e2e_expect_contains "$BH_OUT" "recreate Pod rr/" "--recreate report"
after=$(kubectl get pods -n rr -l app.kubernetes.io/name=pod-podinfo -o jsonpath='{.items[*].metadata.name}')
for p in $before; do case " $after " in *" $p "*) e2e_fail "pod $p survived --recreate ($after)" ;; esac; done
[ "$(kubectl get deploy pod-podinfo -n rr -o jsonpath='{.spec.replicas}')" = 1 ] || e2e_fail "rollback replicas"

echo "== uninstall --deletion-propagation orphan keeps dependents, background removes them"
rs=$(kubectl get rs -n rr -o jsonpath='{.items[*].metadata.name}')
[ -n "$rs" ] || e2e_fail "no ReplicaSets"
bh release uninstall pod -n rr $NOH --deletion-propagation orphan --timeout 60s
e2e_expect_contains "$BH_OUT" "orphan Deployment rr/pod-podinfo"
kubectl get deploy pod-podinfo -n rr >/dev/null 2>&1 && e2e_fail "orphan: deployment still there"
sleep 1
[ "$(kubectl get rs -n rr -o jsonpath='{.items[*].metadata.name}')" = "$rs" ] || e2e_fail "orphan: ReplicaSets removed"
kubectl delete rs --all -n rr >/dev/null
kubectl create namespace bg >/dev/null
bh release install pod "$PODINFO" -n bg $NOH --timeout 60s
bh_fail release uninstall pod -n bg --deletion-propagation sideways
e2e_expect_contains "$BH_OUT" "invalid deletion propagation"
bh release uninstall pod -n bg $NOH --deletion-propagation foreground --timeout 60s
kubectl get deploy pod-podinfo -n bg >/dev/null 2>&1 && e2e_fail "uninstall returned before the Deployment was gone"
e2e_retry 10 sh -c '[ -z "$(kubectl get rs -n bg -o name)" ]' || e2e_fail "foreground: ReplicaSets left"
bh release install pod "$PODINFO" -n bg $NOH --timeout 60s
bh release uninstall pod -n bg $NOH --timeout 60s
e2e_retry 10 sh -c '[ -z "$(kubectl get rs -n bg -o name)" ]' || e2e_fail "background: ReplicaSets left"

echo "== uninstall --keep-history, storage already gone"
kubectl create namespace kh >/dev/null
bh release install hk "$CH" -n kh $NOH
bh release uninstall hk -n kh $NOH --keep-history
expect_versions kh hk "1:uninstalled"
expect_history kh hk 1 uninstalled "Uninstallation complete"
hm list -n kh --uninstalled -q
[ "$HELM_OUT" = hk ] || e2e_fail "helm list --uninstalled: $HELM_OUT"
[ "$(cmval hk-kept kh)" = kept ] || e2e_fail "resource-policy keep object deleted by uninstall"
bh release uninstall hk -n kh $NOH
expect_versions kh hk ""
bh release uninstall hk -n kh
e2e_expect_contains "$BH_OUT" "uninstalled" "uninstall without storage"
bh release uninstall never-installed -n kh

echo "== test: filters, phases, the failing pod named"
kubectl create namespace ts >/dev/null
bh release install hk "$CH" -n ts $NOH --set testFail=true
bh_fail release test hk -n ts
e2e_expect_contains "$BH_OUT" "test hook t-bad (Pod) failed" "failing test"
e2e_expect_contains "$BH_OUT" "pod t-bad failed"
release_json ts hk 1 | python3 -c 'import json,sys
r=json.load(sys.stdin); hs={h["name"]:h["last_run"] for h in r["hooks"]}
# by name t-bad runs first; as in Helm the first failure ends the run
assert hs["t-bad"]["phase"]=="Failed" and hs["t-ok"]=={"phase":""}, hs
assert hs["t-bad"]["started_at"] and hs["t-bad"]["completed_at"], hs' ||
	e2e_fail "test phases not recorded"
out=$("$BULKHEAD" release test hk -n ts --filter t-ok -o json 2>/dev/null) || e2e_fail "test --filter t-ok failed"
echo "$out" | python3 -c 'import json,sys
r=json.load(sys.stdin); h=r["hooks"]
assert [x["name"] for x in h]==["t-ok"] and h[0]["phase"]=="Succeeded" and h[0]["event"]=="test", h
assert h[0]["started_at"] and h[0]["completed_at"]' || e2e_fail "test report: $out"
bh release test hk -n ts --filter '!t-bad'
e2e_expect_contains "$BH_OUT" "hook test Pod t-ok: Succeeded"
case "$BH_OUT" in *t-bad*) e2e_fail "excluded test ran: $BH_OUT" ;; esac
hm status hk -n ts
# helm reads the test runs bulkhead recorded
e2e_expect_contains "$HELM_OUT" "TEST SUITE:     t-ok" "helm status after bulkhead test"
e2e_expect_contains "$HELM_OUT" "Phase:          Succeeded" "helm status after bulkhead test"
out=$(helm test hk -n ts --filter name=t-ok 2>&1) || e2e_fail "helm test on a bulkhead release: $out"
e2e_expect_contains "$out" "TEST SUITE:     t-ok" "helm test"

echo "== recovery of a release left pending-install by a killed process"
kubectl create namespace pi >/dev/null
# kill_mid NS ACTION ARGS...: start bulkhead, kill -9 it once storage says pending-*
kill_mid() {
	local ns=$1
	shift
	"$BULKHEAD" release "$@" >/dev/null 2>&1 &
	local pid=$!
	e2e_retry 20 sh -c "kubectl get secrets -n $ns -l owner=helm -o jsonpath='{.items[*].metadata.labels.status}' | grep -q pending-" ||
		e2e_fail "no pending release seen"
	sleep 0.5
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
}
kill_mid pi install hk "$CH" -n pi $NOH --set workJob=30
expect_versions pi hk "1:pending-install"
out=$(helm upgrade hk "$CH" -n pi --no-hooks 2>&1) && e2e_fail "helm upgraded a locked release"
want=$(echo "$out" | sed -n 's/^Error: UPGRADE FAILED: //p')
bh_fail release upgrade hk "$CH" -n pi $NOH
[ "$(echo "$BH_OUT" | sed -n 's/^Error: //p')" = "$want" ] || e2e_fail "lock refusal differs from helm's ($want): $BH_OUT"
bh release unlock hk -n pi
expect_versions pi hk "1:failed"
expect_history pi hk 1 failed "Release unlocked from stale 'pending-install' state"
bh_fail release unlock hk -n pi
bh release upgrade hk "$CH" -n pi $NOH
# the upgrade's base was the failed version 1, which becomes superseded (as
# the real helm does after a failed install)
expect_versions pi hk "1:superseded 2:deployed"
[ "$(cmval hk-main pi)" = one ] || e2e_fail "recovered release objects"

echo "== recovery of a release left pending-upgrade"
kill_mid pi upgrade hk "$CH" -n pi $NOH --set workJob=31 --set data=two
expect_versions pi hk "1:superseded 2:deployed 3:pending-upgrade"
bh_fail release rollback hk -n pi $NOH
e2e_expect_contains "$BH_OUT" "another operation (install/upgrade/rollback) is in progress"
bh release unlock hk -n pi
expect_versions pi hk "1:superseded 2:deployed 3:failed"
bh release upgrade hk "$CH" -n pi $NOH --set data=three
expect_versions pi hk "1:superseded 2:superseded 3:failed 4:deployed"
[ "$(cmval hk-main pi)" = three ] || e2e_fail "upgrade after unlock"
hm history hk -n pi
echo "PASS: actions_lifecycle"
