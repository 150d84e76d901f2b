#!/usr/bin/env bash
# tests/e2e/actions_hooks.sh — hooks of `bulkhead release` checked against
# the real helm from kubesim's request log: the same chart (a hook for every
# event, weights, delete policies, test pods) goes through install, upgrade,
# rollback, test and uninstall once with helm and once with bulkhead, and the
# sequences of writes to hook and release objects must be identical. Then:
# a failing pre-upgrade hook leaves the release failed with the hook named;
# hook-failed / hook-succeeded delete policies; last_run recorded in the
# release; --no-hooks runs none.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
e2e_need_tool kubectl helm
. "$(dirname "$0")/actions_lib.sh"
kubesim_start
CH="$E2E_TMP/hookchart"
make_hookchart "$CH"

# writes to hook objects (h-*, t-*) and the release's own objects (hk-*);
# helm creates consecutive objects of one kind in parallel, so runs of
# release-object writes with the same verb and resource are sorted
seq_filter() {
	grep -E ' (h-|t-|hk-)' | python3 -c 'import sys
out=[]; run=[]
def flush():
    out.extend(sorted(run)); run.clear()
for l in sys.stdin.read().splitlines():
    v,res,name=l.split()[:3]
    if name.startswith("hk-") and (not run or run[0].split()[:2]==[v,res]):
        run.append(l); continue
    flush()
    if name.startswith("hk-"): run.append(l)
    else: out.append(l)
flush()
print("\n".join(out))' || true
}

run_all() { # TOOL NS
	local tool=$1 ns=$2
	kubectl create namespace "$ns" >/dev/null || e2e_fail "namespace"
	log_mark
	if [ "$tool" = helm ]; then hm install hk "$CH" -n "$ns" --wait; else bh release install hk "$CH" -n "$ns"; fi
	SEQ_INSTALL=$(log_since | seq_filter)
	log_mark
	if [ "$tool" = helm ]; then hm upgrade hk "$CH" -n "$ns" --wait --set data=two; else bh release upgrade hk "$CH" -n "$ns" --set data=two; fi
	SEQ_UPGRADE=$(log_since | seq_filter)
	log_mark
	if [ "$tool" = helm ]; then hm rollback hk 1 -n "$ns" --wait; else bh release rollback hk 1 -n "$ns"; fi
	SEQ_ROLLBACK=$(log_since | seq_filter)
	log_mark
	if [ "$tool" = helm ]; then hm test hk -n "$ns"; else bh release test hk -n "$ns"; fi
	SEQ_TEST=$(log_since | seq_filter)
	log_mark
	if [ "$tool" = helm ]; then hm uninstall hk -n "$ns" --wait; else bh release uninstall hk -n "$ns"; fi
	SEQ_UNINSTALL=$(log_since | seq_filter)
}

run_all helm h-ns
H_INSTALL=$SEQ_INSTALL H_UPGRADE=$SEQ_UPGRADE H_ROLLBACK=$SEQ_ROLLBACK H_TEST=$SEQ_TEST H_UNINSTALL=$SEQ_UNINSTALL
run_all bulkhead b-ns
[ -n "${E2E_VERBOSE:-}" ] && printf "%s\n--\n" "$H_INSTALL" "$H_UPGRADE" "$H_TEST" "$H_UNINSTALL" "$SEQ_UNINSTALL"
for step in INSTALL UPGRADE ROLLBACK TEST UNINSTALL; do
	h="H_$step" b="SEQ_$step"
	[ -n "${!h}" ] || e2e_fail "helm $step: no hook writes seen in the request log"
	[ "${!h}" = "${!b}" ] || e2e_fail "$step: hook/object writes differ from helm's:
$(diff <(echo "${!h}") <(echo "${!b}"))"
done
# spot checks of the golden order itself: weight -1 before 5, ties by name
echo "$H_INSTALL" | grep -n 'h-pre-install' | sed -n 1,3p | e2e_has '^1:.*h-pre-install-b' || e2e_fail "order: $H_INSTALL"
n_b=$(echo "$SEQ_INSTALL" | grep -n 'patch configmaps h-pre-install-b' | cut -d: -f1)
n_c=$(echo "$SEQ_INSTALL" | grep -n 'patch configmaps h-pre-install-c' | cut -d: -f1)
n_a=$(echo "$SEQ_INSTALL" | grep -n 'patch configmaps h-pre-install-a' | cut -d: -f1)
n_m=$(echo "$SEQ_INSTALL" | grep -n 'patch configmaps hk-main' | cut -d: -f1)
n_p=$(echo "$SEQ_INSTALL" | grep -n 'patch configmaps h-post-install-b' | cut -d: -f1)
[ "$n_b" -lt "$n_c" ] && [ "$n_c" -lt "$n_a" ] && [ "$n_a" -lt "$n_m" ] && [ "$n_m" -lt "$n_p" ] ||
	e2e_fail "install order b<c<a<main<post: $SEQ_INSTALL"

echo "== last_run recorded in the release"
kubectl create namespace lr >/dev/null
bh release install hk "$CH" -n lr
release_json lr hk 1 | python3 -c 'import json,sys
r=json.load(sys.stdin)
hs={h["name"]:h for h in r["hooks"]}
for n in ("h-pre-install-a","h-post-install-b"):
    lr=hs[n]["last_run"]
    assert lr["phase"]=="Succeeded" and lr["started_at"] and lr["completed_at"], (n, lr)
assert hs["h-pre-upgrade-a"]["last_run"]=={"phase":""}, hs["h-pre-upgrade-a"]["last_run"]
assert hs["h-pre-install-a"]["weight"]==5 and hs["h-pre-install-b"]["weight"]==-1
assert hs["h-pre-install-a"]["delete_policies"]==["before-hook-creation"]
' || e2e_fail "hook last_run / weights not recorded as helm does"
hm get hooks hk -n lr
e2e_expect_contains "$HELM_OUT" "name: h-post-delete-c" "helm get hooks"

echo "== failing pre-upgrade hook (delete policy hook-succeeded: the failed Job is kept)"
log_mark
bh_fail release upgrade hk "$CH" -n lr --set data=three --set preUpgradeJob=true --set jobExit=3 --timeout 30s
e2e_expect_contains "$BH_OUT" "pre-upgrade hooks failed" "failed upgrade"
e2e_expect_contains "$BH_OUT" "h-pre-upgrade-job" "failed upgrade names the hook"
expect_versions lr hk "1:deployed 2:failed"
# the recorded description is the real helm's for the same failure
kubectl create namespace fh >/dev/null
hm install hk "$CH" -n fh
helm upgrade hk "$CH" -n fh --set data=three --set preUpgradeJob=true --set jobExit=3 --timeout 30s >/dev/null 2>&1 &&
	e2e_fail "helm upgrade with the failing hook succeeded"
desc() { helm history hk -n "$1" -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)[-1]["description"])'; }
want=$(desc fh | sed 's|Job/fh/|Job/lr/|')
[ "$(desc lr)" = "$want" ] || e2e_fail "failed-upgrade description differs from helm's:
helm:     $want
bulkhead: $(desc lr)"
expect_history lr hk 2 failed "pre-upgrade hooks failed: .*h-pre-upgrade-job"
[ "$(kubectl get cm hk-main -n lr -o jsonpath='{.data.value}')" = one ] || e2e_fail "failed pre-upgrade hook still changed objects"
kubectl get job h-pre-upgrade-job -n lr >/dev/null 2>&1 || e2e_fail "failed hook Job deleted despite policy hook-succeeded"
# the pre-upgrade ConfigMap hooks that ran before the failing Job: default policy, kept
release_json lr hk 2 | python3 -c 'import json,sys
r=json.load(sys.stdin); hs={h["name"]:h for h in r["hooks"]}
assert hs["h-pre-upgrade-job"]["last_run"]["phase"]=="Failed", hs["h-pre-upgrade-job"]["last_run"]
assert hs["h-pre-upgrade-b"]["last_run"]["phase"]=="Succeeded"' || e2e_fail "hook phases of the failed upgrade"

echo "== hook-failed policy deletes the failed Job; before-hook-creation replaces the old one"
log_mark
bh_fail release upgrade hk "$CH" -n lr --set preUpgradeJob=true --set jobExit=3 --set jobDeletePolicy=hook-failed --timeout 30s
seq=$(log_since)
echo "$seq" | e2e_has 'delete jobs h-pre-upgrade-job' || e2e_fail "failed Job not deleted with hook-failed: $seq"
e2e_retry 10 sh -c '! kubectl get job h-pre-upgrade-job -n lr >/dev/null 2>&1' || e2e_fail "Job still there"
expect_versions lr hk "1:deployed 2:failed 3:failed"

echo "== hook-succeeded: a succeeding hook Job is deleted after success (as helm does it)"
kubectl create namespace hs >/dev/null
kubectl create namespace hs-helm >/dev/null
hm install hk "$CH" -n hs-helm
log_mark
hm upgrade hk "$CH" -n hs-helm --set data=x --set preUpgradeJob=true
want=$(log_since | grep -E ' (h-pre-upgrade-job|hk-main) ')
bh release install hk "$CH" -n hs
log_mark
bh release upgrade hk "$CH" -n hs --set data=x --set preUpgradeJob=true
seq=$(log_since | grep -E ' (h-pre-upgrade-job|hk-main) ')
e2e_expect_contains "$want" "delete jobs h-pre-upgrade-job 200" "helm's hook-succeeded deletion"
[ "$seq" = "$want" ] || e2e_fail "hook-succeeded Job: helm did
$want
bulkhead did
$seq"
e2e_retry 10 sh -c '! kubectl get job h-pre-upgrade-job -n hs >/dev/null 2>&1' || e2e_fail "succeeded Job not deleted"

echo "== --no-hooks (install, upgrade, rollback, uninstall)"
kubectl create namespace nh >/dev/null
log_mark
bh release install hk "$CH" -n nh --no-hooks
bh release upgrade hk "$CH" -n nh --no-hooks --set data=nh
bh release rollback hk -n nh --no-hooks
seq=$(log_since | grep -E ' (h-|t-)' || true)
[ -z "$seq" ] || e2e_fail "install/upgrade/rollback --no-hooks ran hooks: $seq"
expect_history nh hk 3 deployed "Rollback to 1"
log_mark
bh release upgrade hk "$CH" -n hs --set data=y --no-hooks
seq=$(log_since | grep -E ' h-' || true)
[ -z "$seq" ] || e2e_fail "--no-hooks still touched hooks: $seq"
[ "$(kubectl get cm hk-main -n hs -o jsonpath='{.data.value}')" = y ] || e2e_fail "--no-hooks upgrade not applied"
log_mark
bh release uninstall hk -n hs --no-hooks
seq=$(log_since | grep -E ' h-' || true)
[ -z "$seq" ] || e2e_fail "uninstall --no-hooks ran hooks: $seq"
echo "PASS: actions_hooks"
