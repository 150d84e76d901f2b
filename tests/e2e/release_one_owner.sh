#!/usr/bin/env bash
# tests/e2e/release_one_owner.sh — one HelmRelease per Helm release (the Helm
# Operator's antecedent rule, with Flux v2's origin labels): a second
# HelmRelease whose releaseName names a release made by another is refused
# (Ready=False, reason ReleaseNotOwned, the owner named, a Warning Event)
# and changes nothing, instead of the two taking the release from each other
# in turn; once the owner is deleted (its release uninstalled), the second
# installs it.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
sk_setup
sk_publish "$BH_SRCDIR/tests/e2e/release/app" team-o app
sk_apply_hr team-o first app "  releaseName: shared
  values:
    message: first"
sk_wait_ready team-o first 60 >/dev/null
sk_apply_hr team-o second app "  releaseName: shared
  values:
    message: second"
r=$(sk_wait_cond team-o second False 60)
e2e_expect_contains "$r" "False|ReleaseNotOwned|release 'team-o/shared' does not belong to HelmRelease team-o/second: it was made by HelmRelease team-o/first" "second Ready"
rl_request team-o second # looked at again: still refused, nothing changed
e2e_expect_contains "$(sk_ready team-o second)" "False|ReleaseNotOwned|" "second Ready after another reconcile"
[ "$(rl_history team-o shared)" = "1:deployed" ] || sk_fail "the release was touched: $(rl_history team-o shared)"
[ "$(kubectl get cm shared-config -n team-o -o jsonpath='{.data.message}')" = first ] || sk_fail "shared-config was taken over"
e2e_expect_contains "$(sk_ready team-o first)" "True|InstallSucceeded|" "first Ready"
kubectl get events -n team-o --field-selector involvedObject.name=second,reason=ReleaseNotOwned -o name | e2e_has . ||
	sk_fail "no ReleaseNotOwned Event for second"
# the owner goes (its release with it): the second may have the name now
kubectl delete helmrelease first -n team-o --wait=false >/dev/null
rl_wait_gone team-o first
rl_request team-o second
e2e_expect_contains "$(sk_ready team-o second)" "True|InstallSucceeded|" "second Ready once the owner is gone"
[ "$(kubectl get cm shared-config -n team-o -o jsonpath='{.data.message}')" = second ] || sk_fail "shared-config not the second's"
echo "PASS: a second HelmRelease for a release owned by another is refused (ReleaseNotOwned) and takes it once the owner is gone"
