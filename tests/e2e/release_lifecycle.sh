#!/usr/bin/env bash
# tests/e2e/release_lifecycle.sh — the HelmRelease's lifecycle around the
# state machine: the finalizer is added on the first reconcile; a release
# left in pending-install (a controller killed mid-action) is unlocked and
# upgraded; deleting the HelmRelease uninstalls the release (objects and
# Helm storage gone) before the finalizer is removed; a suspended
# HelmRelease is let go without an uninstall; targetNamespace, with the
# storage in the release namespace and (Flux's default) in the HelmRelease's.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
sk_setup
sk_publish "$BH_SRCDIR/tests/e2e/release/app" team-l app
sk_apply_hr team-l web app "  values:
    message: one"
sk_wait_ready team-l web 60 >/dev/null
[ "$(rl_status team-l web '{.metadata.finalizers}')" = '["finalizers.fluxcd.io"]' ] || sk_fail "finalizers: $(rl_status team-l web '{.metadata.finalizers}')"

# make v1 look like a release whose controller died mid-install
sec=sh.helm.release.v1.web.v1
kubectl get secret $sec -n team-l -o jsonpath='{.data.release}' | python3 -c '
import base64, gzip, json, sys
rel = json.loads(gzip.decompress(base64.b64decode(base64.b64decode(sys.stdin.read()))))
rel["info"]["status"] = "pending-install"
rel["info"]["description"] = "Initial install underway"
data = base64.b64encode(base64.b64encode(gzip.compress(json.dumps(rel).encode()))).decode()
print(json.dumps({"metadata": {"labels": {"status": "pending-install"}}, "data": {"release": data}}))' > "$SK_DIR/pending.json" \
	|| sk_fail "re-encoding the release"
kubectl patch secret $sec -n team-l --type=merge --patch-file "$SK_DIR/pending.json" >/dev/null || sk_fail "patching $sec"
[ "$(helm status web -n team-l -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["info"]["status"])')" = pending-install ] \
	|| sk_fail "helm does not see pending-install"
rl_request team-l web
r=$(sk_ready team-l web)
e2e_expect_contains "$r" "True|UpgradeSucceeded|Helm upgrade succeeded for release team-l/web.v2 with chart app@1.0.0" "Ready after unlock"
# (the upgrade supersedes the unlocked, failed v1 as Helm's does)
[ "$(rl_history team-l web)" = "1:superseded 2:deployed" ] || sk_fail "helm history after unlock: $(rl_history team-l web)"
helm history web -n team-l | e2e_has "Release unlocked from stale 'pending-install' state" || sk_fail "unlock description: $(helm history web -n team-l)"
[ "$(rl_status team-l web '{.status.history[0].version}:{.status.history[0].status} {.status.history[1].version}:{.status.history[1].status}')" = "2:deployed 1:superseded" ] \
	|| sk_fail "status.history after unlock: $(rl_status team-l web '{.status.history}')"
grep -q "running 'unlock' action" "$SK_DIR/bulkheadd.log" || sk_fail "no unlock action in the log"

# deletion: uninstall, then the object goes
kubectl delete helmrelease web -n team-l --wait=false >/dev/null
rl_wait_gone team-l web
helm status web -n team-l >/dev/null 2>&1 && sk_fail "release web still installed"
[ -z "$(kubectl get secrets -n team-l -l owner=helm,name=web -o name)" ] || sk_fail "Helm storage of web left"
kubectl get deploy web -n team-l >/dev/null 2>&1 && sk_fail "Deployment web left"
kubectl get cm web-config -n team-l >/dev/null 2>&1 && sk_fail "ConfigMap web-config left"
grep -q "team-l/web: Ready=True UninstallSucceeded: Helm uninstall succeeded for release team-l/web.v2 with chart app@1.0.0" "$SK_DIR/bulkheadd.log" \
	|| sk_fail "no uninstall outcome in the log"

# a suspended HelmRelease is let go, its release stays
sk_apply_hr team-l kept app
sk_wait_ready team-l kept 60 >/dev/null
kubectl patch helmrelease kept -n team-l --type=merge -p '{"spec":{"suspend":true}}' >/dev/null
kubectl delete helmrelease kept -n team-l --wait=false >/dev/null
end=$((SECONDS + 60))
while kubectl get helmrelease kept -n team-l >/dev/null 2>&1; do
	[ $SECONDS -ge $end ] && sk_fail "suspended HelmRelease kept not let go"
	sleep 0.3
done
helm status kept -n team-l >/dev/null 2>&1 || sk_fail "the release of a suspended HelmRelease was uninstalled"
kubectl get deploy kept -n team-l >/dev/null || sk_fail "Deployment kept removed"
# targetNamespace: release "<targetNamespace>-<name>" in that namespace
# (where team-l's default ServiceAccount, the releases' identity, may write)
sk_tenant team-l-target team-l
sk_apply_hr team-l tgt app "  targetNamespace: team-l-target
  storageNamespace: team-l-target"
r=$(sk_wait_ready team-l tgt 60)
e2e_expect_contains "$r" "True|InstallSucceeded|Helm install succeeded for release team-l-target/team-l-target-tgt.v1 with chart app@1.0.0" "Ready of tgt"
helm status team-l-target-tgt -n team-l-target >/dev/null 2>&1 || sk_fail "release team-l-target-tgt not in team-l-target"
kubectl get deploy team-l-target-tgt -n team-l-target >/dev/null || sk_fail "Deployment not in the target namespace"
[ "$(rl_status team-l tgt '{.status.storageNamespace} {.status.history[0].namespace} {.status.history[0].name}')" = "team-l-target team-l-target team-l-target-tgt" ] \
	|| sk_fail "status of tgt: $(rl_status team-l tgt '{.status}')"
# the storage namespace changes (storageNamespace dropped: the HelmRelease's
# namespace): the release is uninstalled from the old storage and installed
# with the new one (Flux's ReleaseTargetChanged)
kubectl patch helmrelease tgt -n team-l --type=json -p '[{"op":"remove","path":"/spec/storageNamespace"}]' >/dev/null
rl_wait_gen team-l tgt 2 60
e2e_expect_contains "$(sk_ready team-l tgt)" "True|InstallSucceeded|Helm install succeeded for release team-l-target/team-l-target-tgt.v1" "Ready of tgt after the storage move"
[ -z "$(kubectl get secrets -n team-l-target -l owner=helm,name=team-l-target-tgt -o name)" ] || sk_fail "old storage of tgt left in team-l-target"
kubectl get secret sh.helm.release.v1.team-l-target-tgt.v1 -n team-l >/dev/null || sk_fail "tgt not stored in team-l"
kubectl get deploy team-l-target-tgt -n team-l-target >/dev/null || sk_fail "Deployment of tgt not re-installed"
[ "$(rl_status team-l tgt '{.status.storageNamespace}')" = team-l ] || sk_fail "status.storageNamespace of tgt: $(rl_status team-l tgt '{.status.storageNamespace}')"
grep -q "release target changed from team-l-target/team-l-target-tgt (storage namespace team-l-target)" "$SK_DIR/bulkheadd.log" \
	|| sk_fail "no target change in the log"
kubectl delete helmrelease tgt -n team-l --wait=false >/dev/null

# Flux's usual setup, targetNamespace alone: the objects go to the target
# namespace, Helm's storage stays in the HelmRelease's namespace
sk_apply_hr team-l apart app "  targetNamespace: team-l-target"
r=$(sk_wait_ready team-l apart 60)
e2e_expect_contains "$r" "True|InstallSucceeded|Helm install succeeded for release team-l-target/team-l-target-apart.v1 with chart app@1.0.0" "Ready of apart"
kubectl get deploy team-l-target-apart -n team-l-target >/dev/null || sk_fail "Deployment of apart not in the target namespace"
kubectl get deploy team-l-target-apart -n team-l >/dev/null 2>&1 && sk_fail "Deployment of apart in the storage namespace"
kubectl get secret sh.helm.release.v1.team-l-target-apart.v1 -n team-l >/dev/null || sk_fail "release Secret of apart not in team-l"
[ -z "$(kubectl get secrets -n team-l-target -l owner=helm,name=team-l-target-apart -o name)" ] || sk_fail "release Secret of apart in the target namespace"
helm list -n team-l -o json | python3 -c '
import json, sys
rels = {r["name"]: r for r in json.load(sys.stdin)}
r = rels["team-l-target-apart"]
assert r["namespace"] == "team-l-target" and r["status"] == "deployed" and r["revision"] == "1", r' \
	|| sk_fail "helm list -n team-l: $(helm list -n team-l)"
helm get manifest team-l-target-apart -n team-l | e2e_has "name: team-l-target-apart-config" || sk_fail "helm get manifest of apart"
[ "$(rl_status team-l apart '{.status.storageNamespace} {.status.history[0].namespace} {.status.history[0].name}')" = "team-l team-l-target team-l-target-apart" ] \
	|| sk_fail "status of apart: $(rl_status team-l apart '{.status}')"
# an upgrade and the uninstall on deletion use the same storage
kubectl patch helmrelease apart -n team-l --type=merge -p '{"spec":{"values":{"message":"two"}}}' >/dev/null
rl_wait_gen team-l apart 2 60
e2e_expect_contains "$(sk_ready team-l apart)" "True|UpgradeSucceeded|Helm upgrade succeeded for release team-l-target/team-l-target-apart.v2" "Ready of apart after upgrade"
[ "$(rl_history team-l team-l-target-apart)" = "1:superseded 2:deployed" ] || sk_fail "history of apart: $(rl_history team-l team-l-target-apart)"
kubectl delete helmrelease apart -n team-l --wait=false >/dev/null
end=$((SECONDS + 60))
while kubectl get helmrelease apart -n team-l >/dev/null 2>&1; do
	[ $SECONDS -ge $end ] && sk_fail "HelmRelease apart not deleted: $(rl_status team-l apart '{.status.conditions}')"
	sleep 0.3
done
[ -z "$(kubectl get secrets -n team-l -l owner=helm,name=team-l-target-apart -o name)" ] || sk_fail "Helm storage of apart left"
kubectl get deploy team-l-target-apart -n team-l-target >/dev/null 2>&1 && sk_fail "Deployment of apart left"
echo "PASS: finalizer, unlock of a pending release, uninstall on deletion, suspended deletion, targetNamespace with storage apart"
