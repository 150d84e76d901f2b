#!/usr/bin/env bash
# tests/e2e/ops_leader.sh — issue 13: leader election. Two replicas (each
# with its own ServiceAccount, so kubesim's request log tells them apart)
# with --enable-leader-election: only the Lease holder writes (HelmRelease
# status, Helm storage, objects); SIGKILL of the holder hands the Lease over
# within the lease duration (plus one retry period) and releases still
# converge; a clean stop releases the Lease (empty holderIdentity).
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/ops_lib.sh"
ops_setup
kubectl get ns bulkhead-system >/dev/null 2>&1 || kubectl create ns bulkhead-system >/dev/null
start_replica() { # NAME: a bulkheadd as ServiceAccount bulkhead-system/NAME
	local n=$1 tok
	kubectl create sa "$n" -n bulkhead-system >/dev/null
	kubectl create clusterrolebinding "$n" --clusterrole=cluster-admin --serviceaccount="bulkhead-system:$n" >/dev/null
	tok=$(kubectl create token "$n" -n bulkhead-system) || sk_fail "token for $n"
	kubesim_kubeconfig_token "$n" "$tok" "$SK_DIR/$n.kubeconfig"
	ops_run "$n.log" --kubeconfig "$SK_DIR/$n.kubeconfig" \
		--enable-leader-election --leader-election-namespace bulkhead-system \
		--leader-election-lease-duration 4s --leader-election-renew-deadline 3s --leader-election-retry-period 1s
	eval "PID_${n//-/_}=\$OPS_PID"
}
holder() { kubectl get lease bulkheadd-leader-election -n bulkhead-system -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
start_replica rep-a
start_replica rep-b
for i in $(seq 1 100); do [ -n "$(holder)" ] && break; sleep 0.2; done
h=$(holder)
[ -n "$h" ] || sk_fail "nobody took the Lease"
if grep -q "acquired lease" "$SK_DIR/rep-a.log"; then leader=rep-a; follower=rep-b; else leader=rep-b; follower=rep-a; fi
grep -q "acquired lease" "$SK_DIR/$follower.log" && sk_fail "both replicas acquired the Lease"
echo "leader: $leader (holder $h), follower: $follower"

sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-e demo
sk_apply_hr team-e one demo "  releaseName: one"
sk_apply_hr team-e two demo "  releaseName: two"
sk_wait_ready team-e one 60 >/dev/null
sk_wait_ready team-e two 60 >/dev/null
kubesim_admin GET /_kubesim/log >"$SK_DIR/requests.log"
python3 - "$SK_DIR/requests.log" "$leader" "$follower" <<'PY' || sk_fail "writes by the follower"
import json, sys
leader, follower = ("system:serviceaccount:bulkhead-system:" + n for n in sys.argv[2:4])
writes = {leader: 0, follower: 0}
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["user"] in writes and e["method"] != "GET" and e.get("resource") != "leases":
        writes[e["user"]] += 1
        assert e["user"] == leader, "the follower wrote: %s %s" % (e["method"], e["path"])
assert writes[leader] >= 4, writes
print("writes other than the Lease: leader %d, follower %d" % (writes[leader], writes[follower]))
PY

# SIGKILL the leader: the follower takes over within the lease duration
eval "lp=\$PID_${leader//-/_}"
t0=$(date +%s%N)
kill -KILL "$lp"
for i in $(seq 1 100); do
	case "$(holder)" in "$h"|"") sleep 0.1 ;; *) break ;; esac
done
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
h2=$(holder)
[ "$h2" != "$h" ] && [ -n "$h2" ] || sk_fail "the Lease was not handed over (holder $h2)"
echo "handover after SIGKILL of the leader: ${ms}ms (lease duration 4s, retry period 1s)"
[ "$ms" -le 6500 ] || sk_fail "handover took ${ms}ms, more than the lease duration plus two retry periods"
grep -q "acquired lease" "$SK_DIR/$follower.log" || sk_fail "the follower did not log its leadership"
kubectl patch helmrelease one -n team-e --type=merge -p '{"spec":{"values":{"greeting":"after handover"}}}' >/dev/null
sk_apply_hr team-e three demo "  releaseName: three"
sk_wait_ready team-e three 60 >/dev/null
for i in $(seq 1 150); do
	[ "$(kubectl get helmrelease one -n team-e -o jsonpath='{.status.lastAttemptedGeneration}')" = 2 ] && break
	sleep 0.2
done
r=$(sk_wait_ready team-e one 60)
e2e_expect_contains "$r" "True|UpgradeSucceeded" "team-e/one after the handover"

# a clean stop releases the Lease
eval "fp=\$PID_${follower//-/_}"
kill -TERM "$fp"
timeout 30 tail --pid="$fp" -f /dev/null
[ -z "$(holder)" ] || sk_fail "the Lease was not released on a clean stop (holder $(holder))"
grep -q "released the Lease" "$SK_DIR/$follower.log" || sk_fail "no release in the log"
echo "PASS: one writer at a time; SIGKILL hands over within the lease duration; clean stop releases the Lease"
