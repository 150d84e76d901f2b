#!/usr/bin/env bash
# tests/e2e/release_delete_owned.sh — deleting a HelmRelease uninstalls only
# the release it owns, as its .status.history records it (Flux's
# reconcileReleaseDeletion / Uninstall.Reconcile): a release of the same
# name installed by someone else with the helm CLI survives the deletion of
# a HelmRelease that never owned it, and of one whose release was replaced
# by another chart's; an owned release is uninstalled.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
sk_setup
app="$BH_SRCDIR/tests/e2e/release/app"
sk_publish "$app" team-o app

# 1. someone else's release; the HelmRelease of that name never reconciles
#    (its chart does not exist), so it owns nothing
helm install other "$app" -n team-o >/dev/null || sk_fail "helm install other"
sk_apply_hr team-o other no-such-chart
sk_wait_cond team-o other False 60 >/dev/null
[ "$(rl_status team-o other '{.metadata.finalizers}')" = '["finalizers.fluxcd.io"]' ] || sk_fail "finalizer of other: $(rl_status team-o other '{.metadata}')"
kubectl delete helmrelease other -n team-o --wait=false >/dev/null
rl_wait_gone team-o other
[ "$(helm status other -n team-o -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["info"]["status"])')" = deployed ] \
	|| sk_fail "the helm CLI's release other was uninstalled by a HelmRelease that never owned it"
kubectl get deploy other -n team-o >/dev/null || sk_fail "Deployment other removed"
grep -q "team-o/other: Ready=True UninstallSkipped: Helm uninstall skipped for release team-o/other: this HelmRelease owns no release" "$SK_DIR/bulkheadd.log" \
	|| sk_fail "no skipped uninstall of other in the log"

# 2. owned once, then replaced out of band: the helm CLI uninstalled it and
#    installed another chart under the same name (version 1 again)
sk_apply_hr team-o swap app
sk_wait_ready team-o swap 60 >/dev/null
helm uninstall swap -n team-o >/dev/null || sk_fail "helm uninstall swap"
other_chart="$SK_DIR/other/app2"
mkdir -p "$SK_DIR/other" && cp -r "$app" "$other_chart" && sed -i 's/^name: .*/name: app2/' "$other_chart/Chart.yaml"
helm install swap "$other_chart" -n team-o >/dev/null || sk_fail "helm install swap (app2)"
kubectl delete helmrelease swap -n team-o --wait=false >/dev/null
rl_wait_gone team-o swap
helm status swap -n team-o >/dev/null 2>&1 || sk_fail "the helm CLI's app2 release swap was uninstalled"
grep -q "Helm uninstall skipped for release team-o/swap.v1 with chart app@1.0.0: the release in storage is team-o/swap.v1 with chart app2, not team-o/swap.v1 with chart app@1.0.0 from .status.history" "$SK_DIR/bulkheadd.log" \
	|| sk_fail "no skipped uninstall of swap in the log"

# 3. an owned release is uninstalled
sk_apply_hr team-o mine app
sk_wait_ready team-o mine 60 >/dev/null
kubectl delete helmrelease mine -n team-o --wait=false >/dev/null
rl_wait_gone team-o mine
helm status mine -n team-o >/dev/null 2>&1 && sk_fail "the owned release mine is still installed"
[ -z "$(kubectl get secrets -n team-o -l owner=helm,name=mine -o name)" ] || sk_fail "Helm storage of mine left"
kubectl get deploy mine -n team-o >/dev/null 2>&1 && sk_fail "Deployment mine left"
grep -q "team-o/mine: Ready=True UninstallSucceeded: Helm uninstall succeeded for release team-o/mine.v1 with chart app@1.0.0" "$SK_DIR/bulkheadd.log" \
	|| sk_fail "no uninstall of mine in the log"
echo "PASS: deletion uninstalls only the owned release (never-owned and replaced releases stay, an owned one goes)"
