#!/usr/bin/env bash
# tests/e2e/skeleton_failures.sh — must-show 3: a worker killed mid-job
# (SIGSEGV, SIGKILL) or running past its deadline leaves its HelmRelease
# Ready=False with a reason naming the cause, while another HelmRelease
# reconciled at the same time becomes Ready; the supervisor keeps running.
# A worker that sends a burst of log lines before its request is served.
# The real worker misbehaves on request (annotation bulkhead.dev/test-hook,
# honoured only because bulkheadd runs with --test-hooks).
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
sk_setup --test-hooks --concurrent 4
chart="$BH_SRCDIR/tests/e2e/skeleton/demo"
sk_publish "$chart" team-f demo
sk_apply_hr team-f crash demo "" "    bulkhead.dev/test-hook: segv"
sk_apply_hr team-f killed demo "" "    bulkhead.dev/test-hook: hang"
sk_apply_hr team-f slow demo "  timeout: 3s" "    bulkhead.dev/test-hook: spin"
sk_apply_hr team-f good demo "  releaseName: good"
# a worker that logs 400 lines at once before its first request: more frames
# than the supervisor takes from one worker per turn (64); the rest, the
# request among them, must not wait for the socket to say something new
sk_apply_hr team-f chatty demo "  releaseName: chatty" "    bulkhead.dev/test-hook: chatter"

# SIGKILL the worker of team-f/killed while it works (as the OOM killer would)
pid=
for i in $(seq 1 100); do
	pid=$(pgrep -f -- "--job team-f/killed" | head -1)
	[ -n "$pid" ] && break
	sleep 0.1
done
[ -n "$pid" ] || sk_fail "no worker running for team-f/killed"
grep -q bulkhead-worker "/proc/$pid/cmdline" || sk_fail "pid $pid is not a worker"
kill -KILL "$pid"

r=$(sk_wait_ready team-f good 60)
echo "good:   $r"
r=$(sk_wait_ready team-f chatty 60)
echo "chatty: $r"
e2e_expect_contains "$r" "True|InstallSucceeded" "Ready of team-f/chatty"
n=$(grep -c "test hook chatter: line" "$SK_DIR/bulkheadd.log")
[ "$n" -ge 64 ] || sk_fail "bulkheadd logged $n of the chatty worker's lines: not the burst this test is for"
r=$(sk_wait_cond team-f crash False 60)
echo "crash:  $r"
e2e_expect_contains "$r" "False|WorkerCrashed|worker was killed by signal SEGV" "Ready of team-f/crash"
r=$(sk_wait_cond team-f killed False 60)
echo "killed: $r"
e2e_expect_contains "$r" "False|WorkerCrashed|worker was killed by signal KILL" "Ready of team-f/killed"
r=$(sk_wait_cond team-f slow False 60)
echo "slow:   $r"
e2e_expect_contains "$r" "False|WorkerTimeout|worker exceeded its deadline of 3s" "Ready of team-f/slow"

kill -0 "$BULKHEADD_PID" 2>/dev/null || sk_fail "bulkheadd died"
# the failed releases left nothing half-done in Helm storage that blocks others,
# and the supervisor still reconciles new work
sk_apply_hr team-f after demo "  releaseName: after"
r=$(sk_wait_ready team-f after 60)
echo "after:  $r"
kubectl get configmap demo-config -n team-f >/dev/null || sk_fail "objects of team-f/good missing"
# a Warning event names the cause
ev=$(kubectl get events -n team-f -o jsonpath='{range .items[*]}{.reason}{"\n"}{end}')
e2e_expect_contains "$ev" "WorkerCrashed" "events"
e2e_expect_contains "$ev" "WorkerTimeout" "events"
echo "PASS: crashes, kills and timeouts stay with their own HelmRelease"
