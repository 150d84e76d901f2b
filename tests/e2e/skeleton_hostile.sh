#!/usr/bin/env bash
# tests/e2e/skeleton_hostile.sh — must-show 5: a hostile worker (test program
# tests/e2e/hostile_worker given through --worker-path) that sends oversized
# frames, garbage, fds, a malformed result, requests for another namespace's
# objects, or impersonation headers of its own is refused each time, audited,
# and cannot crash or stall the supervisor: a well-behaved HelmRelease
# reconciled at the same time still becomes Ready.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${BH_BUILDDIR:=$BH_SRCDIR/build}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
hostile="$BH_BUILDDIR/tests/e2e/hostile_worker"
[ -x "$hostile" ] || e2e_skip "$hostile not built"
SK_WORKER_PATH="$hostile" sk_setup --concurrent 9
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-x demo
kubectl create ns team-victim >/dev/null
kubectl create secret generic db-password -n team-victim --from-literal=password=hunter2 >/dev/null
kubectl create serviceaccount tenant -n team-x >/dev/null
for mode in oversized garbage fd badresult foreign impersonate flood stall; do
	extra="  serviceAccountName: tenant"
	[ "$mode" = stall ] && extra="$extra
  timeout: 4s"
	sk_apply_hr team-x "$mode" demo "$extra" "    bulkhead.dev/hostile: $mode"
done
sleep 1 # the stalled worker is now holding half a frame
sk_apply_hr team-x good demo "  releaseName: good"

r=$(sk_wait_ready team-x good 60); echo "good:        $r"
check() { # check NAME REASON TEXT
	local r
	r=$(sk_wait_cond team-x "$1" False 60)
	echo "$1: $r"
	e2e_expect_contains "$r" "False|$2|" "Ready of team-x/$1"
	e2e_expect_contains "$r" "$3" "Ready of team-x/$1"
}
check oversized ProtocolViolation "announces 4294967295 payload bytes"
check garbage ProtocolViolation "worker broke the supervisor protocol"
check fd ProtocolViolation "file descriptor"
check badresult ProtocolViolation "RESULT: invalid JSON"
check foreign HostileReport "statuses 403 403: bulkhead broker refused GET /api/v1/namespaces/team-victim/secrets: namespace team-victim is not one of the job's namespaces"
check impersonate HostileReport "statuses 403 403: bulkhead broker refused GET /api/v1/namespaces/team-x/configmaps: a worker may not choose its identity (header Impersonate-User)"
check impersonate HostileReport "(header Authorization)"
check flood HostileReport "flood: forwarded=some throttled(429)=some answered=50"
check stall WorkerTimeout "worker exceeded its deadline of 4s"

# every refusal is in the audit log, with the worker's tenant identity
a=$(cat "$SK_AUDIT")
for want in '"helmRelease":"team-x/oversized","identity":"system:serviceaccount:team-x:tenant","verb":"invalid"' \
	'"helmRelease":"team-x/foreign","identity":"system:serviceaccount:team-x:tenant","verb":"list","path":"/api/v1/namespaces/team-victim/secrets","status":403' \
	'"verb":"get","path":"/api/v1/namespaces/team-victim/secrets/db-password","status":403' \
	'"refused":"a worker may not choose its identity (header Impersonate-User)"' \
	'"refused":"a worker may not choose its identity (header Authorization)"' \
	'"helmRelease":"team-x/garbage"' '"helmRelease":"team-x/fd"' '"helmRelease":"team-x/badresult"'; do
	e2e_expect_contains "$a" "$want" "audit log"
done
# the secret was never read: no audit line forwarded it
if grep '"path":"/api/v1/namespaces/team-victim/secrets/db-password"' "$SK_AUDIT" | e2e_has -v '"status":403'; then
	sk_fail "a request for team-victim's secret was forwarded"
fi
kill -0 "$BULKHEADD_PID" 2>/dev/null || sk_fail "bulkheadd died"
echo "PASS: hostile workers are refused, audited, and cannot stall the supervisor"
