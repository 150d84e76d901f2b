#!/usr/bin/env bash
# tests/e2e/ops_crash_worker.sh — issue 13: crash safety of a worker alone.
# A worker SIGKILLed mid-upgrade (pending-upgrade): the HelmRelease says so
# (WorkerCrashed) and the next reconcile unlocks the release and converges.
# A worker SIGKILLed mid-uninstall of a deleted HelmRelease: the uninstall
# is retried with the work queue's backoff, as Flux retries a failed
# deletion (not after .spec.interval), and completes. Nothing half-written,
# no revision twice, no false InstallFailed/UpgradeFailed (ops_lib.sh).
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
. "$BH_SRCDIR/tests/e2e/ops_lib.sh"
sk_setup
sk_publish "$BH_SRCDIR/tests/e2e/ops/hooked" c-wk hooked
sk_apply_hr c-wk wd hooked "  values:
    hookSeconds: {pre-delete: 4}"
# mid-upgrade: a precise reason, then convergence
sk_apply_hr c-wk wk hooked "  values:
    hookSeconds: {pre-upgrade: 4}"
sk_wait_ready c-wk wk 60 >/dev/null
sk_wait_ready c-wk wd 60 >/dev/null
kubectl patch helmrelease wk -n c-wk --type=merge -p '{"spec":{"values":{"greeting":"two"}}}' >/dev/null
ops_wait_storage c-wk wk "1=deployed 2=pending-upgrade"
w=$(ops_workers "$BULKHEADD_PID")
[ "$(echo "$w" | wc -w)" = 1 ] || sk_fail "expected one worker, found '$w'"
kill -KILL $w
r=$(sk_wait_cond c-wk wk False 30)
e2e_expect_contains "$r" "False|WorkerCrashed|worker was killed by signal KILL (Killed) before reporting a result" "c-wk/wk after its worker was killed"
rl_request c-wk wk
r=$(sk_wait_ready c-wk wk 60)
e2e_expect_contains "$r" "True|UpgradeSucceeded|Helm upgrade succeeded for release c-wk/wk.v3" "c-wk/wk after the next reconcile"
ops_sound c-wk wk
ops_no_false_failure c-wk wk
echo "after the worker's SIGKILL: c-wk/wk: $(ops_storage c-wk wk)"
# ... and mid-uninstall: the deletion is retried with backoff (not after
# .spec.interval) and completes
kubectl delete helmrelease wd -n c-wk --wait=false >/dev/null
ops_wait_storage c-wk wd "1=uninstalling"
w=$(ops_workers "$BULKHEADD_PID")
[ "$(echo "$w" | wc -w)" = 1 ] || sk_fail "expected one worker, found '$w'"
kill -KILL $w
t0=$SECONDS
end=$((SECONDS + 40))
while kubectl get helmrelease wd -n c-wk >/dev/null 2>&1; do
	[ $SECONDS -ge $end ] && sk_fail "c-wk/wd not deleted 40s after its uninstall worker was killed: $(sk_ready c-wk wd), storage $(ops_storage c-wk wd)"
	sleep 0.3
done
echo "c-wk/wd deleted $((SECONDS - t0))s after its uninstall worker was killed"
[ -z "$(ops_storage c-wk wd)" ] || sk_fail "Helm storage of wd left: $(ops_storage c-wk wd)"
kill -0 "$BULKHEADD_PID" || sk_fail "bulkheadd died"
echo "PASS: a worker SIGKILLed mid-upgrade and mid-uninstall: a precise reason, then unlocked and converged"
