#!/usr/bin/env bash
# tests/e2e/ops_crash.sh — issue 13: crash safety. bulkheadd is killed with
# SIGKILL while four releases are each in the middle of an action (a hook Job
# of tests/e2e/ops/hooked keeps it there): an install (pending-install), an
# upgrade (pending-upgrade), a rollback run as upgrade remediation
# (pending-rollback) and an uninstall of a deleted HelmRelease
# (uninstalling). Its workers die with it (nothing is written after the
# kill). After a restart every release ends in the right state: the stale
# pending-* release is unlocked as Flux does ("Release unlocked from stale
# ... state") and the action runs again; the uninstall completes.
# Throughout: every Helm storage Secret decodes and agrees with its labels
# (nothing half-written), no revision appears twice, at most one is
# deployed, none is left pending, and no HelmRelease ever shows
# InstallFailed/UpgradeFailed. (ops_crash_worker.sh kills a worker alone.)
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
. "$BH_SRCDIR/tests/e2e/ops_lib.sh"
sk_setup
CHART=$BH_SRCDIR/tests/e2e/ops/hooked
sk_publish "$CHART" c-ins hooked
for ns in c-upg c-rb c-del; do sk_publish_tgz "$SK_DIR/charts/hooked-0.1.0.tgz" "$ns" hooked hooked 0.1.0; done

# 1. four releases, each in the middle of an action (the rollback first: it
# takes a failed upgrade to get there)
sk_apply_hr c-upg upg hooked "  values:
    hookSeconds: {pre-upgrade: 8}"
sk_apply_hr c-rb rb hooked "  upgrade:
    remediation: {retries: 1}
  values:
    hookSeconds: {pre-upgrade: 2, pre-rollback: 12}"
sk_apply_hr c-del del hooked "  values:
    hookSeconds: {pre-delete: 8}"
for hr in c-upg/upg c-rb/rb c-del/del; do sk_wait_ready "${hr%/*}" "${hr#*/}" 60 >/dev/null; done
kubectl patch helmrelease rb -n c-rb --type=merge -p '{"spec":{"values":{"greeting":"two"}}}' >/dev/null
# the upgrade of rb fails (its pre-upgrade hook Job fails): remediation rolls back to v1
for i in $(seq 1 100); do kubectl get job rb-pre-upgrade -n c-rb >/dev/null 2>&1 && break; sleep 0.1; done
kubesim_admin POST /_kubesim/jobs/c-rb/rb-pre-upgrade/outcome '{"outcome":"Failed"}' >/dev/null || sk_fail "failing rb's pre-upgrade hook"
ops_wait_storage c-rb rb "*3=pending-rollback"
sk_apply_hr c-ins ins hooked "  values:
    hookSeconds: {pre-install: 8}"
kubectl patch helmrelease upg -n c-upg --type=merge -p '{"spec":{"values":{"greeting":"two"}}}' >/dev/null
kubectl delete helmrelease del -n c-del --wait=false >/dev/null
ops_wait_storage c-ins ins "1=pending-install"
ops_wait_storage c-upg upg "1=deployed 2=pending-upgrade"
ops_wait_storage c-del del "1=uninstalling"
w=$(ops_workers "$BULKHEADD_PID")
echo "t=$SECONDS all four mid-action; workers: $w"
[ "$(echo "$w" | wc -w)" -ge 4 ] || sk_fail "expected 4 running workers, found '$w'"
h=$(ops_holders "$BULKHEADD_PID")
echo "namespace holders: $h"
kill -KILL "$BULKHEADD_PID"
wait "$BULKHEADD_PID" 2>/dev/null
BULKHEADD_PID=
sleep 0.5
for p in $w $h; do # (a zombie is dead: whoever inherited it has not reaped it yet)
	case "$(awk '/^State:/ {print $2}' "/proc/$p/status" 2>/dev/null)" in "" | Z) ;; *) sk_fail "worker or holder $p outlived bulkheadd: $(ps -o pid,ppid,stat,cmd -p "$p")" ;; esac
done
for hr in c-ins/ins c-upg/upg c-rb/rb c-del/del; do echo "after SIGKILL: $hr: $(ops_storage "${hr%/*}" "${hr#*/}")"; done
# nothing changes while no bulkheadd runs (the workers could not write)
sleep 2
ops_wait_storage c-ins ins "1=pending-install"
ops_wait_storage c-upg upg "1=deployed 2=pending-upgrade"
ops_wait_storage c-rb rb "*3=pending-rollback"

# 2. restart: every release converges (rb's upgrade hook now succeeds)
kubesim_admin POST /_kubesim/jobs/c-rb/rb-pre-upgrade/outcome '{"outcome":"Succeeded"}' >/dev/null || sk_fail "un-failing rb's hook"
sk_start_bulkheadd
t0=$SECONDS
rl_wait_gone c-del del
r=$(sk_wait_ready c-ins ins 90)
e2e_expect_contains "$r" "True|UpgradeSucceeded|Helm upgrade succeeded for release c-ins/ins.v2" "c-ins/ins after the restart"
r=$(sk_wait_ready c-upg upg 90)
e2e_expect_contains "$r" "True|UpgradeSucceeded|Helm upgrade succeeded for release c-upg/upg.v3" "c-upg/upg after the restart"
r=$(sk_wait_ready c-rb rb 90)
e2e_expect_contains "$r" "True|UpgradeSucceeded|Helm upgrade succeeded for release c-rb/rb.v4" "c-rb/rb after the restart"
echo "t=$SECONDS converged $((SECONDS - t0))s after the restart"
for hr in c-ins/ins c-upg/upg c-rb/rb; do
	ns=${hr%/*} n=${hr#*/}
	ops_sound "$ns" "$n"
	ops_no_false_failure "$ns" "$n"
	helm history "$n" -n "$ns" | e2e_has "Release unlocked from stale 'pending-" || sk_fail "$hr: no unlock in helm history"
	echo "after the restart: $hr: $(ops_storage "$ns" "$n")"
done
[ "$(ops_storage c-ins ins)" = "1=superseded 2=deployed" ] || sk_fail "c-ins/ins: $(ops_storage c-ins ins)"
[ "$(ops_storage c-upg upg)" = "1=superseded 2=failed 3=deployed" ] || sk_fail "c-upg/upg: $(ops_storage c-upg upg)"
[ "$(ops_storage c-rb rb)" = "1=superseded 2=failed 3=failed 4=deployed" ] || sk_fail "c-rb/rb: $(ops_storage c-rb rb)"
[ "$(kubectl get cm upg-config -n c-upg -o jsonpath='{.data.greeting}/{.data.revision}')" = "two/3" ] \
	|| sk_fail "upg-config: $(kubectl get cm upg-config -n c-upg -o jsonpath='{.data}')"
[ "$(kubectl get cm rb-config -n c-rb -o jsonpath='{.data.greeting}/{.data.revision}')" = "two/4" ] \
	|| sk_fail "rb-config: $(kubectl get cm rb-config -n c-rb -o jsonpath='{.data}')"
[ -z "$(kubectl get secrets -n c-del -l owner=helm,name=del -o name)" ] || sk_fail "Helm storage of del left: $(ops_storage c-del del)"
kubectl get cm del-config -n c-del >/dev/null 2>&1 && sk_fail "ConfigMap del-config left"

kill -0 "$BULKHEADD_PID" || sk_fail "bulkheadd died"
echo "PASS: SIGKILL of bulkheadd during install, upgrade, rollback and uninstall: unlocked and converged, nothing half-written, no duplicate revision"
