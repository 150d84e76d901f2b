#!/usr/bin/env bash
# tests/e2e/ops_shutdown.sh — issue 13: graceful shutdown. SIGTERM while an
# upgrade waits for its pods: bulkheadd starts nothing new, lets the worker
# finish within --graceful-shutdown-timeout, and exits; the release is
# deployed, not left pending-upgrade. With a timeout too short for the
# upgrade, the worker is killed and the HelmRelease says why (WorkerKilled).
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
sk_setup --graceful-shutdown-timeout 60s
sk_publish "$BH_SRCDIR/tests/e2e/ops/slow" team-s slow
sk_apply_hr team-s web slow
sk_wait_ready team-s web 60 >/dev/null
storage() { kubectl get secrets -n team-s -l owner=helm,name=web -o jsonpath='{range .items[*]}{.metadata.labels.version}={.metadata.labels.status} {end}'; }
wait_pending() {
	for i in $(seq 1 150); do
		case "$(storage)" in *"$1=pending-upgrade"*) return 0 ;; esac
		sleep 0.2
	done
	sk_fail "release v$1 never went pending-upgrade: $(storage)"
}

# 1. the upgrade's pods start after 4s; SIGTERM while it waits
kubectl patch helmrelease web -n team-s --type=merge -p '{"spec":{"values":{"startDelay":"4"}}}' >/dev/null
echo "t=$SECONDS installed"; wait_pending 2; echo "t=$SECONDS pending"
kill -TERM "$BULKHEADD_PID"
timeout 60 tail --pid="$BULKHEADD_PID" -f /dev/null || sk_fail "bulkheadd did not exit within the graceful timeout"
wait "$BULKHEADD_PID"; rc=$?
BULKHEADD_PID=; echo "t=$SECONDS exited"
[ "$rc" = 0 ] || sk_fail "bulkheadd exited with $rc"
echo "t=$SECONDS stopped"; s=$(storage)
echo "storage after SIGTERM: $s"
e2e_expect_contains "$s" "2=deployed" "release storage"
r=$(sk_ready team-s web)
e2e_expect_contains "$r" "True|UpgradeSucceeded" "Ready after the graceful stop"
grep -q "stopping: no new reconciles; waiting up to 60s for 1 running" "$SK_DIR/bulkheadd.log" || sk_fail "no graceful stop in the log"

# 2. a timeout shorter than the upgrade: the worker is killed, and Ready says why
sk_start_bulkheadd --graceful-shutdown-timeout 1s
kubectl patch helmrelease web -n team-s --type=merge -p '{"spec":{"values":{"startDelay":"30"}}}' >/dev/null
echo "t=$SECONDS restarted"; wait_pending 3; echo "t=$SECONDS pending 3"
kill -TERM "$BULKHEADD_PID"
timeout 30 tail --pid="$BULKHEADD_PID" -f /dev/null || sk_fail "bulkheadd did not stop after the 1s timeout"
BULKHEADD_PID=; echo "t=$SECONDS exited"
r=$(sk_ready team-s web)
echo "Ready after the forced stop: $r"
e2e_expect_contains "$r" "False|WorkerKilled|bulkheadd was stopping and the worker did not finish within --graceful-shutdown-timeout (1s)" "Ready"
echo "PASS: SIGTERM lets a running upgrade finish; past the timeout the worker is killed and the reason recorded"
