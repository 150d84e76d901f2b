#!/usr/bin/env bash
# tests/e2e/release_upgrade_force.sh — .spec.upgrade.force reaches the
# upgrade: "Forces resource updates through a replacement strategy" (the v2
# document): the upgrade replaces the release's objects (PUT in kubesim's
# request log, as the tenant) where an upgrade without it applies them
# (no PUT).
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
sk_setup
sk_publish "$BH_SRCDIR/tests/e2e/release/app" team-f app
puts() { kubesim_log_count verb=update resource=configmaps namespace=team-f; }
sk_apply_hr team-f web app "  values:
    message: one"
sk_wait_ready team-f web 60 >/dev/null
# an upgrade without force: applied, no PUT
p0=$(puts)
sk_apply_hr team-f web app "  values:
    message: two"
rl_wait_gen team-f web 2 60
e2e_expect_contains "$(sk_ready team-f web)" "True|UpgradeSucceeded|" "Ready after the plain upgrade"
[ "$(puts)" = "$p0" ] || sk_fail "an upgrade without force replaced objects ($p0 -> $(puts) PUTs)"
# with force: replaced
sk_apply_hr team-f web app "  upgrade:
    force: true
  values:
    message: three"
rl_wait_gen team-f web 3 60
e2e_expect_contains "$(sk_ready team-f web)" "True|UpgradeSucceeded|" "Ready after the forced upgrade"
[ "$(kubectl get cm web-config -n team-f -o jsonpath='{.data.message}')" = three ] || sk_fail "web-config not upgraded"
[ "$(puts)" -gt "$p0" ] || sk_fail "upgrade.force: no PUT (replace) of a ConfigMap in the request log"
echo "PASS: upgrade.force replaces the release's objects (PUT), a plain upgrade applies them"
