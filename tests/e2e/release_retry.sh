#!/usr/bin/env bash
# tests/e2e/release_retry.sh — .spec.upgrade.strategy RetryOnFailure with
# retryInterval, as Flux's helm-controller does it: an upgrade whose
# Deployment never becomes ready fails (Released=False UpgradeFailed), is
# NOT rolled back, the object says Reconciling=True ProgressingWithRetry
# "retrying after 15s", and the upgrade is tried again after retryInterval
# (not at once, not after .spec.interval); once the values are fixed, the
# next upgrade succeeds and the failure counters are cleared.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
sk_setup
sk_publish "$BH_SRCDIR/tests/e2e/release/app" team-r app
spec() {
	printf '  upgrade:\n    timeout: 3s\n    strategy:\n      name: RetryOnFailure\n      retryInterval: 15s\n'
	printf '  values:\n    message: %s\n    broken: %s\n' "$1" "$2"
}
sk_apply_hr team-r web app "$(spec one false)"
sk_wait_ready team-r web 60 >/dev/null

kubectl patch helmrelease web -n team-r --type=merge -p '{"spec":{"values":{"message":"two","broken":true}}}' >/dev/null
# the times revisions 2 and 3 (the retry) appear
t2="" t3="" end=$((SECONDS + 150))
while [ -z "$t3" ]; do
	[ $SECONDS -ge $end ] && sk_fail "no retry after 90s: history $(rl_history team-r web), $(rl_status team-r web '{.status.conditions}')"
	h=$(rl_history team-r web)
	[ -z "$t2" ] && [[ "$h" == *"2:"* ]] && t2=$(date +%s.%N)
	[ -z "$t3" ] && [[ "$h" == *"3:"* ]] && t3=$(date +%s.%N)
	if [ -n "$t2" ] && [ -z "$t3" ] && [ -z "${seen:-}" ] && [ "$(rl_cond team-r web Reconciling)" = "True|ProgressingWithRetry|retrying after 15s" ]; then
		seen=1
		e2e_expect_contains "$(sk_ready team-r web)" "False|UpgradeFailed|Helm upgrade failed for release team-r/web with chart app@1.0.0: " "Ready while retrying"
		e2e_expect_contains "$(rl_cond team-r web Released)" "False|UpgradeFailed|" "Released while retrying"
		[ -z "$(rl_cond team-r web Remediated)" ] || sk_fail "remediated with RetryOnFailure: $(rl_cond team-r web Remediated)"
		[ -z "$(rl_cond team-r web Stalled)" ] || sk_fail "stalled with RetryOnFailure: $(rl_cond team-r web Stalled)"
		[ "$(rl_status team-r web '{.status.upgradeFailures}')" = 1 ] || sk_fail "upgradeFailures: $(rl_status team-r web '{.status}')"
	fi
	sleep 0.3
done
[ -n "${seen:-}" ] || sk_fail "never saw Reconciling=True ProgressingWithRetry 'retrying after 15s' between the attempts"
# the failed attempt waits 3s for readiness, then the retry comes 15s (+/-5%)
# later: measured between the revisions' own deploy times (info.last_deployed
# of the release records), not by polling, which lags on a loaded machine
deployed() {
	kubectl get secret -n team-r "sh.helm.release.v1.web.v$1" -o jsonpath='{.data.release}' | base64 -d | base64 -d |
		gunzip | python3 -c 'import json,sys,datetime
t = json.load(sys.stdin)["info"]["last_deployed"]
d, frac = (t[:19], t[19:].split("Z")[0].split("+")[0].split("-")[0])
print("%.3f" % (datetime.datetime.strptime(d, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc).timestamp() + float("0" + frac if frac else 0)))'
}
t2=$(deployed 2) && t3=$(deployed 3) || sk_fail "cannot read the deploy times of revisions 2 and 3"
gap=$(awk -v a="$t2" -v b="$t3" 'BEGIN { printf "%.1f", b - a }')
awk -v g="$gap" 'BEGIN { exit !(g >= 16 && g < 60) }' ||
	sk_fail "the retry came ${gap}s after the failed attempt started (want 3s wait + 15s retryInterval, about 18s)"
case "$(rl_history team-r web)" in "1:deployed 2:failed 3:"*) ;; *) sk_fail "helm history: $(rl_history team-r web)" ;; esac
helm history web -n team-r 2>/dev/null | e2e_has "Rollback" && sk_fail "RetryOnFailure rolled back: $(helm history web -n team-r 2>&1)"
[ "$(kubectl get cm web-config -n team-r -o jsonpath='{.data.message}')" = two ] || sk_fail "web-config: the failed upgrade's objects stay (no rollback)"

# fixed: the next upgrade succeeds and the counters are cleared
kubectl patch helmrelease web -n team-r --type=merge -p '{"spec":{"values":{"broken":false}}}' >/dev/null
gen=$(rl_status team-r web '{.metadata.generation}')
end=$((SECONDS + 90))
until [ "$(sk_ready team-r web | cut -d'|' -f1,2)" = "True|UpgradeSucceeded" ] && [ "$(rl_status team-r web '{.status.observedGeneration}')" = "$gen" ]; do
	[ $SECONDS -ge $end ] && sk_fail "not Ready after the fix: $(rl_status team-r web '{.status}')"
	sleep 0.3
done
[ -z "$(rl_status team-r web '{.status.upgradeFailures}{.status.failures}')" ] || sk_fail "failures not cleared: $(rl_status team-r web '{.status}')"
echo "PASS: RetryOnFailure retries a failed upgrade after retryInterval (${gap}s after the failed attempt began), without rollback, and clears the failures on success"
