#!/usr/bin/env bash
# tests/e2e/release_rollback_opts.sh — .spec.rollback.force and .recreate reach
# the rollback remediation: an upgrade that never becomes ready is rolled
# back, and kubesim's request log shows the rollback replacing the release's
# objects (PUT, force) and deleting the Pods of its Deployment (recreate),
# under the tenant's identity.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
sk_setup
sk_publish "$BH_SRCDIR/tests/e2e/release/app" team-o app
sk_apply_hr team-o web app "  upgrade:
    timeout: 3s
    remediation:
      retries: 1
  rollback:
    force: true
    recreate: true
  values:
    message: one"
sk_wait_ready team-o web 60 >/dev/null
puts0=$(kubesim_log_count verb=update resource=configmaps namespace=team-o)
dels0=$(kubesim_log_count verb=delete resource=pods namespace=team-o)
kubectl patch helmrelease web -n team-o --type=merge -p '{"spec":{"values":{"message":"two","broken":true}}}' >/dev/null
end=$((SECONDS + 90))
until [ "$(rl_cond team-o web Remediated | cut -d'|' -f1,2)" = "True|RollbackSucceeded" ] &&
	[ "$(kubectl get cm web-config -n team-o -o jsonpath='{.data.message}')" = one ]; do
	[ $SECONDS -ge $end ] && sk_fail "not rolled back after 90s: $(rl_status team-o web '{.status.conditions}')"
	sleep 0.5
done
# (the loop saw both at once; no second look: with retries left, the upgrade
# is tried again right after the rollback and may already have applied "two")
puts=$(kubesim_log_count verb=update resource=configmaps namespace=team-o)
dels=$(kubesim_log_count verb=delete resource=pods namespace=team-o)
[ "$puts" -gt "$puts0" ] || sk_fail "rollback.force: no PUT (replace) of a ConfigMap in the request log ($puts0 -> $puts)"
[ "$dels" -gt "$dels0" ] || sk_fail "rollback.recreate: no Pod deleted in the request log ($dels0 -> $dels)"
echo "PASS: rollback.force and rollback.recreate reach the rollback (replace and Pod restarts in kubesim's log)"
