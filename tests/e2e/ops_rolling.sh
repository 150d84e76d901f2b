#!/usr/bin/env bash
# tests/e2e/ops_rolling.sh — issue 13: a rolling restart of the Deployment's
# pod pair never reports a false failure. The old replica (the Lease holder)
# is upgrading one release and installing another, each held in a hook Job
# for longer than the lease duration; the new replica starts (RollingUpdate
# runs both) and the old one gets SIGTERM mid-reconcile. The old one starts
# nothing new, finishes both actions, writes their status and only then
# releases the Lease; the new one takes over. Watched throughout: no Ready
# condition or event ever says InstallFailed/UpgradeFailed/PendingRelease,
# no release is unlocked (nobody touched another's pending release), no
# revision is made twice. Both replicas run as deploy/'s bulkheadd
# ServiceAccount.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
. "$BH_SRCDIR/tests/e2e/ops_lib.sh"
ops_setup
LE=(--enable-leader-election --leader-election-namespace bulkhead-system --leader-election-lease-duration 3s
	--leader-election-renew-deadline 2s --leader-election-retry-period 1s --graceful-shutdown-timeout 60s)
holder() { kubectl get lease bulkheadd-leader-election -n bulkhead-system -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
sk_publish "$BH_SRCDIR/tests/e2e/ops/hooked" team-r hooked

ops_run old.log "${LE[@]}"
OLD=$OPS_PID
for i in $(seq 1 100); do [ -n "$(holder)" ] && break; sleep 0.2; done
[ -n "$(holder)" ] || sk_fail "the old replica did not take the Lease"
sk_apply_hr team-r up hooked "  values:
    hookSeconds: {pre-upgrade: 6}"
sk_wait_ready team-r up 60 >/dev/null

# watch every Ready condition from here on
(while :; do
	for n in up fresh; do echo "$n $(sk_ready team-r $n)"; done
	sleep 0.2
done) >"$SK_DIR/ready.seen" 2>/dev/null &
WATCH=$!
OPS_PIDS+=("$WATCH")

kubectl patch helmrelease up -n team-r --type=merge -p '{"spec":{"values":{"greeting":"two"}}}' >/dev/null
sk_apply_hr team-r fresh hooked "  values:
    hookSeconds: {pre-install: 6}"
ops_wait_storage team-r up "1=deployed 2=pending-upgrade"
ops_wait_storage team-r fresh "1=pending-install"
ops_run new.log "${LE[@]}"
NEW=$OPS_PID
sleep 1
grep -q "acquired lease" "$SK_DIR/new.log" && sk_fail "the new replica took the Lease from a live leader"
t0=$SECONDS
kill -TERM "$OLD"
timeout 60 tail --pid="$OLD" -f /dev/null || sk_fail "the old replica did not stop"
wait "$OLD"
echo "old replica stopped $((SECONDS - t0))s after SIGTERM: $(grep -c . "$SK_DIR/old.log") log lines"
grep -q "stopping: no new reconciles; waiting up to 60s for 2 running" "$SK_DIR/old.log" || sk_fail "no graceful stop of 2 reconciles in old.log"
grep -q "released the Lease" "$SK_DIR/old.log" || sk_fail "the old replica did not release the Lease"
for i in $(seq 1 50); do grep -q "acquired lease" "$SK_DIR/new.log" && break; sleep 0.2; done
grep -q "acquired lease" "$SK_DIR/new.log" || sk_fail "the new replica did not take over"
r=$(sk_wait_ready team-r up 60)
case "$r" in "True|UpgradeSucceeded|"*) ;; *) sk_fail "up: $r" ;; esac
r=$(sk_wait_ready team-r fresh 60)
case "$r" in "True|InstallSucceeded|"*) ;; *) sk_fail "fresh: $r" ;; esac
# the new replica reconciles both (it knows nothing of the old one's work)
# and finds nothing to do; then a change goes through it
kubectl patch helmrelease up -n team-r --type=merge -p '{"spec":{"values":{"greeting":"three"},"interval":"10m"}}' >/dev/null
rl_wait_gen team-r up 3 60
r=$(sk_ready team-r up)
e2e_expect_contains "$r" "True|UpgradeSucceeded|Helm upgrade succeeded for release team-r/up.v3" "up after the new replica's upgrade"
kill "$WATCH"
echo "storage: up: $(ops_storage team-r up); fresh: $(ops_storage team-r fresh)"
[ "$(ops_storage team-r up)" = "1=superseded 2=superseded 3=deployed" ] || sk_fail "up: $(ops_storage team-r up)"
[ "$(ops_storage team-r fresh)" = "1=deployed" ] || sk_fail "fresh: $(ops_storage team-r fresh)"
echo "Ready reasons seen: $(cut -d'|' -f1,2 "$SK_DIR/ready.seen" | sort | uniq -c | tr -s ' \n' ' ')"
e2e_has -E '\|(InstallFailed|UpgradeFailed|PendingRelease)\|' "$SK_DIR/ready.seen" && sk_fail "a false failure: $(grep -E 'Failed|Pending' "$SK_DIR/ready.seen" | sort -u)"
ev=$(kubectl get events -n team-r -o jsonpath='{range .items[*]}{.reason} {end}')
case " $ev " in *" InstallFailed "* | *" UpgradeFailed "*) sk_fail "events: $ev" ;; esac
for n in up fresh; do helm history "$n" -n team-r | e2e_has "unlocked" && sk_fail "$n was unlocked: $(helm history "$n" -n team-r)"; done
echo "PASS: a rolling restart mid-reconcile: the old replica finishes and hands over; no false failure, no unlock"
