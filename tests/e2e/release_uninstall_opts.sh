#!/usr/bin/env bash
# tests/e2e/release_uninstall_opts.sh — .spec.uninstall.keepHistory reaches
# the uninstall of a deleted HelmRelease: the objects go, the Helm history
# stays (the last revision "uninstalled", as helm uninstall --keep-history);
# without it the history goes too. .spec.uninstall.deletionPropagation:
# orphan (with disableWait) deletes the release's Deployment but leaves its
# ReplicaSet, which the default (background) propagation would have the
# garbage collector delete.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
sk_setup
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-h demo
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-i demo
sk_publish "$BH_SRCDIR/tests/e2e/release/app" team-j app
sk_apply_hr team-h kept demo "  uninstall:
    keepHistory: true"
sk_apply_hr team-i gone demo
sk_apply_hr team-j orph app "  uninstall:
    deletionPropagation: orphan
    disableWait: true"
sk_wait_ready team-h kept 90 >/dev/null
sk_wait_ready team-i gone 90 >/dev/null
sk_wait_ready team-j orph 90 >/dev/null
rs=$(kubectl get rs -n team-j -o jsonpath='{.items[*].metadata.name}')
[ -n "$rs" ] || sk_fail "no ReplicaSet for the Deployment of orph"
kubectl delete helmrelease kept -n team-h --wait=false >/dev/null
kubectl delete helmrelease gone -n team-i --wait=false >/dev/null
kubectl delete helmrelease orph -n team-j --wait=false >/dev/null
rl_wait_gone team-h kept
rl_wait_gone team-i gone
rl_wait_gone team-j orph
kubectl get deploy orph -n team-j >/dev/null 2>&1 && sk_fail "the Deployment of orph was left behind"
sleep 2 # the garbage collector would have deleted a dependent by now
for r in $rs; do
	own=$(kubectl get rs "$r" -n team-j -o jsonpath='{.metadata.ownerReferences}' 2>&1) ||
		sk_fail "deletionPropagation orphan: ReplicaSet $r was deleted with its Deployment"
	[ -z "$own" ] || sk_fail "ReplicaSet $r still owned after an orphaning delete: $own"
done
[ "$(rl_history team-h kept)" = "1:uninstalled" ] || sk_fail "keepHistory: helm history of kept: '$(rl_history team-h kept)'"
[ -z "$(rl_history team-i gone 2>/dev/null)" ] || sk_fail "history of gone kept without keepHistory: '$(rl_history team-i gone)'"
kubectl get cm demo-config -n team-h >/dev/null 2>&1 && sk_fail "the objects of kept were left behind"
kubectl get cm demo-config -n team-i >/dev/null 2>&1 && sk_fail "the objects of gone were left behind"
echo "PASS: uninstall.keepHistory keeps the Helm history of an uninstalled release; without it the history goes; deletionPropagation orphan leaves the dependents"
