#!/usr/bin/env bash
# tests/e2e/release_remediation.sh — .spec.test and remediation in the
# release state machine: an install followed by its tests (TestSuccess,
# history testHooks); an upgrade whose Deployment never becomes ready within
# upgrade.timeout, with upgrade.remediation.retries=1: rolled back
# (Remediated), retried once, rolled back again, then Stalled with
# RetriesExceeded and the failure counters; a failing test with
# install.remediation.remediateLastFailure: uninstall remediation; a failing
# test with test.ignoreFailures: no remediation, Ready from Released.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
sk_setup
sk_publish "$BH_SRCDIR/tests/e2e/release/app" team-m app
sk_apply_hr team-m web app "  test:
    enable: true
  upgrade:
    timeout: 3s
    remediation:
      retries: 1
  values:
    message: one"
r=$(sk_wait_ready team-m web 60)
e2e_expect_contains "$r" "True|TestSucceeded|Helm test succeeded for release team-m/web.v1 with chart app@1.0.0: 1 test hook completed successfully" "Ready after install and test"
e2e_expect_contains "$(rl_cond team-m web Released)" "True|InstallSucceeded|Helm install succeeded for release team-m/web.v1 with chart app@1.0.0" "Released"
e2e_expect_contains "$(rl_cond team-m web TestSuccess)" "True|TestSucceeded|" "TestSuccess"
[ "$(rl_status team-m web '{.status.history[0].testHooks.web-test.phase}')" = Succeeded ] || sk_fail "testHooks: $(rl_status team-m web '{.status.history[0]}')"
[ -n "$(rl_status team-m web '{.status.history[0].testHooks.web-test.lastCompleted}')" ] || sk_fail "testHooks lastCompleted"
[ "$(kubectl get pod web-test -n team-m -o jsonpath='{.status.phase}')" = Succeeded ] || sk_fail "test pod"
# helm sees the test run in the release too
helm status web -n team-m 2>/dev/null | e2e_has 'Phase:.*Succeeded' || sk_fail "helm status lacks the test phase: $(helm status web -n team-m 2>&1)"

# an upgrade that never becomes ready: upgrade, rollback, upgrade, rollback, stalled
kubectl patch helmrelease web -n team-m --type=merge -p '{"spec":{"values":{"message":"two","broken":true}}}' >/dev/null
end=$((SECONDS + 120))
until [ "$(rl_cond team-m web Stalled | cut -d'|' -f1)" = True ]; do
	[ $SECONDS -ge $end ] && sk_fail "not stalled after 120s: $(rl_status team-m web '{.status}')"
	sleep 0.5
done
st=$(rl_cond team-m web Stalled)
e2e_expect_contains "$st" "True|RetriesExceeded|Failed to upgrade after 2 attempt(s)" "Stalled"
r=$(sk_ready team-m web)
e2e_expect_contains "$r" "False|RollbackSucceeded|Helm rollback to previous release team-m/web.v" "Ready after remediation"
e2e_expect_contains "$(rl_cond team-m web Remediated)" "True|RollbackSucceeded|" "Remediated"
e2e_expect_contains "$(rl_cond team-m web Released)" "False|UpgradeFailed|Helm upgrade failed for release team-m/web with chart app@1.0.0: " "Released"
[ "$(rl_status team-m web '{.status.upgradeFailures} {.status.failures} {.status.lastAttemptedReleaseAction}')" = "2 2 upgrade" ] \
	|| sk_fail "counters: $(rl_status team-m web '{.status}')"
[ "$(rl_history team-m web)" = "1:superseded 2:failed 3:superseded 4:failed 5:deployed" ] || sk_fail "helm history: $(rl_history team-m web)"
helm history web -n team-m 2>/dev/null | e2e_has "Rollback to 3" || sk_fail "no 'Rollback to 3' in helm history"
[ "$(rl_status team-m web '{.status.history[0].version}:{.status.history[0].status}:{.status.history[0].action}')" = "5:deployed:rollback" ] \
	|| sk_fail "history[0]: $(rl_status team-m web '{.status.history[0]}')"
[ "$(kubectl get cm web-config -n team-m -o jsonpath='{.data.message}')" = one ] || sk_fail "web-config not rolled back"
[ "$(rl_status team-m web '{.status.observedGeneration}')" = 2 ] || sk_fail "observedGeneration of a stalled object"
# one Event per action, with Flux's revision/token annotations
ev=$(kubectl get events -n team-m --field-selector involvedObject.name=web -o jsonpath='{range .items[*]}{.type}/{.reason} {end}')
for want in Normal/InstallSucceeded Normal/TestSucceeded Warning/UpgradeFailed Normal/RollbackSucceeded; do
	e2e_expect_contains "$ev" "$want" "events of web"
done
[ "$(kubectl get events -n team-m --field-selector involvedObject.name=web,reason=RollbackSucceeded -o jsonpath='{.items[0].metadata.annotations.helm\.toolkit\.fluxcd\.io/revision} {.items[0].metadata.annotations.helm\.toolkit\.fluxcd\.io/token}')" = \
	"1.0.0 $(rl_status team-m web '{.status.history[0].configDigest}')" ] || sk_fail "event annotations: $(kubectl get events -n team-m -o json | head -c 3000)"
# stalled: no further attempts until the object changes
sleep 3
[ "$(rl_history team-m web | wc -w)" = 5 ] || sk_fail "a stalled release was retried: $(rl_history team-m web)"
# reconcile.fluxcd.io/resetAt = requestedAt resets the counters: two more attempts
t=$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)
kubectl annotate helmrelease web -n team-m --overwrite "reconcile.fluxcd.io/resetAt=$t" "reconcile.fluxcd.io/requestedAt=$t" >/dev/null
end=$((SECONDS + 120))
until [ "$(rl_status team-m web '{.status.lastHandledResetAt}')" = "$t" ] && [ "$(rl_cond team-m web Stalled | cut -d'|' -f1)" = True ] && rl_settled team-m web; do
	[ $SECONDS -ge $end ] && sk_fail "reset not handled: $(rl_status team-m web '{.status}')"
	sleep 0.5
done
# (.spec.maxHistory defaults to 5)
[ "$(rl_history team-m web)" = "5:superseded 6:failed 7:superseded 8:failed 9:deployed" ] \
	|| sk_fail "helm history after the reset: $(rl_history team-m web)"
[ "$(rl_status team-m web '{.status.upgradeFailures}')" = 2 ] || sk_fail "upgradeFailures after the reset"
# a fix (new generation) resets the counters and upgrades
kubectl patch helmrelease web -n team-m --type=merge -p '{"spec":{"values":{"broken":false}}}' >/dev/null
rl_wait_gen team-m web 3 90
r=$(sk_ready team-m web)
e2e_expect_contains "$r" "True|TestSucceeded|Helm test succeeded for release team-m/web.v10 with chart app@1.0.0" "Ready after the fix"
[ -z "$(rl_cond team-m web Stalled)$(rl_cond team-m web Remediated)" ] || sk_fail "Stalled/Remediated left: $(rl_status team-m web '{.status.conditions}')"
[ -z "$(rl_status team-m web '{.status.upgradeFailures}{.status.failures}')" ] || sk_fail "counters not reset: $(rl_status team-m web '{.status}')"

# a failing test after install, remediateLastFailure: uninstall remediation
sk_apply_hr team-m lax app "  test:
    enable: true
    ignoreFailures: true
  install:
    remediation:
      remediateLastFailure: true
  values:
    testOutcome: Failed"
sk_apply_hr team-m flaky app "  test:
    enable: true
  install:
    remediation:
      remediateLastFailure: true
  values:
    testOutcome: Failed"
end=$((SECONDS + 90))
until [ "$(rl_cond team-m flaky Stalled | cut -d'|' -f1)" = True ]; do
	[ $SECONDS -ge $end ] && sk_fail "flaky not stalled: $(rl_status team-m flaky '{.status}')"
	sleep 0.5
done
e2e_expect_contains "$(rl_cond team-m flaky TestSuccess)" "False|TestFailed|Helm test failed for release team-m/flaky.v1 with chart app@1.0.0: " "TestSuccess"
e2e_expect_contains "$(rl_cond team-m flaky Remediated)" "True|UninstallSucceeded|Helm uninstall remediation for release team-m/flaky.v1 with chart app@1.0.0 succeeded" "Remediated"
e2e_expect_contains "$(rl_cond team-m flaky Stalled)" "True|RetriesExceeded|Failed to install after 1 attempt(s)" "Stalled of flaky"
[ "$(rl_status team-m flaky '{.status.installFailures} {.status.failures}')" = "1 1" ] || sk_fail "flaky counters: $(rl_status team-m flaky '{.status}')"
[ "$(rl_status team-m flaky '{.status.history[0].testHooks.flaky-test.phase}')" = Failed ] || sk_fail "flaky testHooks: $(rl_status team-m flaky '{.status.history}')"
helm status flaky -n team-m >/dev/null 2>&1 && sk_fail "flaky still installed"
kubectl get deploy flaky -n team-m >/dev/null 2>&1 && sk_fail "flaky's Deployment left after the uninstall remediation"
# test.ignoreFailures: the failed test is recorded, not remediated or counted
end=$((SECONDS + 60))
until [ "$(rl_cond team-m lax TestSuccess | cut -d'|' -f1)" = False ]; do
	[ $SECONDS -ge $end ] && sk_fail "lax: no test result: $(rl_status team-m lax '{.status}')"
	sleep 0.5
done
sleep 2 # a remediation would follow the test at once
e2e_expect_contains "$(rl_cond team-m lax TestSuccess)" "False|TestFailed|Helm test failed for release team-m/lax.v1 with chart app@1.0.0: " "TestSuccess of lax"
e2e_expect_contains "$(rl_cond team-m lax Ready)" "True|InstallSucceeded|Helm install succeeded for release team-m/lax.v1 with chart app@1.0.0" "Ready of lax (test.ignoreFailures)"
[ -z "$(rl_cond team-m lax Remediated)" ] || sk_fail "lax remediated despite test.ignoreFailures: $(rl_cond team-m lax Remediated)"
[ "$(rl_status team-m lax '{.status.installFailures}')" = "" ] || sk_fail "lax counted a failure: $(rl_status team-m lax '{.status}')"
[ "$(rl_history team-m lax)" = "1:deployed" ] || sk_fail "lax history: $(rl_history team-m lax)"
echo "PASS: tests, rollback and uninstall remediation, retries, failure counters, Stalled, test.ignoreFailures"
