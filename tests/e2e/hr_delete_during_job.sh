#!/usr/bin/env bash
# tests/e2e/hr_delete_during_job.sh — a HelmRelease deleted while its
# reconcile job runs. Each install waits (.spec.timeout) on a Deployment
# whose pods kubesim never makes Ready, so the job is still running when
# the delete arrives (checked: its worker is alive after the delete).
#   team-d/web: kubectl delete: the object keeps our finalizer, and once
#     the install's job ends its deletion runs as Flux's does: the Helm
#     release is uninstalled (no storage Secret, `helm list` empty), the
#     finalizer goes, and so does the object.
#   team-g/web: kubectl delete and its finalizer stripped by hand: the
#     object goes while the job runs (bulkheadd's entry.gone); when the job
#     ends the entry leaves the table, nothing is uninstalled (no finalizer,
#     as Flux), and no status is written to it (that write was a 404 logged
#     as an error).
#   team-x/web: kubectl delete, and kubesim fails the status write that
#     follows the job (500): no watch event then says the object is being
#     deleted once the job is over, yet its deletion runs (after
#     --requeue-dependency; it used to wait for the interval, or forever
#     when the outcome stalled it). With no status written the HelmRelease
#     owns no release, so the uninstall is skipped, as Flux does.
# None is reconciled again afterwards, no other error is logged,
# the per-namespace gauges show nothing running or waiting, bulkheadd lives,
# and a new HelmRelease of the same name installs to Ready.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
. "$BH_SRCDIR/tests/e2e/ops_lib.sh"
sk_setup --log-encoding json --metrics-addr 127.0.0.1:0
mport=$(ops_port bulkheadd.log metrics)
LOG="$SK_DIR/bulkheadd.log"
app="$BH_SRCDIR/tests/e2e/release/app"
sk_publish "$app" team-d app
sk_publish "$app" team-g app
sk_publish "$app" team-x app

# gauge NAME NS: the value of NAME{namespace="NS"} on /metrics, "" when absent
gauge() {
	curl -sf "http://127.0.0.1:$mport/metrics" | sed -n "s/^$1{namespace=\"$2\"} //p"
}
# hr_lines NS NAME: bulkheadd's JSON log lines about NS/NAME, as "level msg"
hr_lines() {
	python3 - "$LOG" "$1" "$2" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    try:
        d = json.loads(l)
    except ValueError:
        continue
    hr = d.get("HelmRelease") or {}
    if hr.get("namespace") == sys.argv[2] and hr.get("name") == sys.argv[3]:
        print(d.get("level"), d.get("msg", "").replace("\n", "\\n"))
PY
}
started() { hr_lines "$1" "$2" | grep -c '^info started worker'; }

# a job that waits: the install waits up to .spec.timeout for pods never Ready
for ns in team-d team-g team-x; do
	sk_apply_hr "$ns" web app "  timeout: 15s
  values:
    broken: true"
done
for ns in team-d team-g team-x; do
	ops_wait_storage "$ns" web '1=pending-install'
	[ "$(started "$ns" web)" = 1 ] || sk_fail "$ns/web: no worker started: $(hr_lines "$ns" web)"
done
gauge_is() { [ "$(gauge "$1" "$2")" = "$3" ]; }
for ns in team-d team-g team-x; do
	e2e_retry 10 gauge_is bulkhead_reconciles_in_flight "$ns" 1 ||
		sk_fail "$ns: bulkhead_reconciles_in_flight '$(gauge bulkhead_reconciles_in_flight "$ns")', not 1"
done
workers=$(ops_workers "$BULKHEADD_PID")
[ "$(echo "$workers" | wc -w)" = 3 ] || sk_fail "want 3 workers running, have '$workers'"

kubectl delete helmrelease web -n team-d --wait=false >/dev/null || sk_fail "deleting team-d/web"
kubectl delete helmrelease web -n team-g --wait=false >/dev/null || sk_fail "deleting team-g/web"
kubectl patch helmrelease web -n team-g --type=json -p '[{"op":"remove","path":"/metadata/finalizers"}]' >/dev/null \
	|| sk_fail "removing team-g/web's finalizer"
kubectl get helmrelease web -n team-g >/dev/null 2>&1 && sk_fail "team-g/web still there without its finalizer"
kubectl delete helmrelease web -n team-x --wait=false >/dev/null || sk_fail "deleting team-x/web"
kubesim_admin POST /_kubesim/faults \
	'{"action":"status","code":500,"count":1,"match":{"verb":"patch","path":"/namespaces/team-x/helmreleases/web/status$"}}' \
	>/dev/null || sk_fail "adding the status write fault"
[ -n "$(rl_status team-d web '{.metadata.deletionTimestamp}')" ] || sk_fail "team-d/web not being deleted"
for w in $workers; do
	kill -0 "$w" 2>/dev/null || sk_fail "worker $w ended before the deletes were done: the test raced"
done
for ns in team-d team-g team-x; do
	hr_lines "$ns" web | e2e_has -e '^debug worker [0-9]* exited' -e 'Ready=' &&
		sk_fail "$ns/web's job ended before the deletes were done: the test raced"
done
echo "deleted all three while their installs ran (workers $workers alive)"

rl_wait_gone team-d web
rl_wait_gone team-x web
# the job of team-g/web ends by its .spec.timeout
for w in $workers; do
	e2e_retry 60 eval "! kill -0 $w 2>/dev/null" || sk_fail "worker $w still running"
done
sleep 4 # a requeue would have started by now (--requeue-dependency 1s, backoff 1s)
kill -0 "$BULKHEADD_PID" || sk_fail "bulkheadd died"

# the finalizer path of team-d/web: uninstalled, then let go
[ -z "$(helm list -q -n team-d)" ] || sk_fail "helm list -n team-d after the deletion: $(helm list -n team-d)"
[ -z "$(kubectl get secrets -n team-d -l owner=helm,name=web -o name)" ] || sk_fail "Helm storage of team-d/web left: $(ops_storage team-d web)"
kubectl get deploy web -n team-d >/dev/null 2>&1 && sk_fail "Deployment team-d/web left"
kubectl get cm web-config -n team-d >/dev/null 2>&1 && sk_fail "ConfigMap team-d/web-config left"
# team-g/web went without our finalizer: nothing uninstalls it (as Flux)
[ "$(ops_storage team-g web)" = 1=failed ] || sk_fail "team-g/web storage: '$(ops_storage team-g web)', not 1=failed"
# team-x/web's status never named its release: nothing was uninstalled
[ "$(ops_storage team-x web)" = 1=failed ] || sk_fail "team-x/web storage: '$(ops_storage team-x web)', not 1=failed"

# each reconciled as it should and never again: the install's job, then (team-d)
# the uninstall's; nothing logged after the last outcome
d_lines=$(hr_lines team-d web)
g_lines=$(hr_lines team-g web)
x_lines=$(hr_lines team-x web)
[ "$(started team-d web)" = 2 ] || sk_fail "team-d/web: $(started team-d web) workers, not 2 (install, uninstall): $d_lines"
[ "$(started team-g web)" = 1 ] || sk_fail "team-g/web: $(started team-g web) workers, not 1: $g_lines"
[ "$(started team-x web)" = 2 ] || sk_fail "team-x/web: $(started team-x web) workers, not 2 (install, uninstall): $x_lines"
e2e_expect_contains "$(echo "$x_lines" | grep 'Ready=' | head -1)" "info Ready=False InstallFailed: " "team-x/web's first outcome"
echo "$x_lines" | tail -1 | e2e_has '^info Ready=True UninstallSkipped: Helm uninstall skipped for release team-x/web: this HelmRelease owns no release (no storage namespace in its status)$' ||
	sk_fail "team-x/web: not its skipped uninstall last: $(echo "$x_lines" | tail -3)"
[ "$(echo "$x_lines" | grep -c '^info Ready=')" = 2 ] || sk_fail "team-x/web: outcomes: $(echo "$x_lines" | grep 'Ready=')"
e2e_expect_contains "$(echo "$d_lines" | grep 'Ready=' | head -1)" "info Ready=False InstallFailed: " "team-d/web's first outcome"
e2e_expect_contains "$(echo "$g_lines" | grep 'Ready=' | head -1)" "info Ready=False InstallFailed: " "team-g/web's outcome"
echo "$d_lines" | tail -1 | e2e_has '^info Ready=True UninstallSucceeded: Helm uninstall succeeded for release team-d/web.v1 with chart app@1.0.0$' ||
	sk_fail "team-d/web: a line after its uninstall: $(echo "$d_lines" | tail -3)"
echo "$g_lines" | tail -2 | head -1 | e2e_has '^info Ready=False InstallFailed: ' &&
	echo "$g_lines" | tail -1 | e2e_has '^debug status not written: the HelmRelease is gone$' ||
	sk_fail "team-g/web: not its job's outcome then 'status not written' last: $(echo "$g_lines" | tail -3)"
# the deletion waited for the install's job to end
echo "$d_lines" | sed -n '/^info Ready=False InstallFailed: /,$p' | e2e_has '^debug queued the deletion$' ||
	sk_fail "team-d/web: its deletion was not queued after the install's outcome: $d_lines"
[ "$(echo "$d_lines" | grep -c '^info Ready=')" = 2 ] || sk_fail "team-d/web: outcomes: $(echo "$d_lines" | grep 'Ready=')"
[ "$(echo "$g_lines" | grep -c '^info Ready=')" = 1 ] || sk_fail "team-g/web: outcomes: $(echo "$g_lines" | grep 'Ready=')"
# no error logged, about them or at all, but the status write kubesim failed
xerr='"msg":"writing status of HelmRelease team-x/web: PATCH /apis/helm.toolkit.fluxcd.io/v2/namespaces/team-x/helmreleases/web/status?fieldManager=helm-controller: 500 '
[ "$(grep -c '"level":"error"' "$LOG")" = 1 ] && grep '"level":"error"' "$LOG" | e2e_has -F "$xerr" ||
	sk_fail "errors in bulkheadd's log other than team-x/web's failed status write: $(grep '"level":"error"' "$LOG")"

# nothing of theirs left running or waiting (per-namespace gauges 0 or gone)
for ns in team-d team-g team-x; do
	for g in bulkhead_reconciles_in_flight bulkhead_queue_depth; do
		v=$(gauge $g $ns)
		case "$v" in "" | 0) ;; *) sk_fail "$g{namespace=\"$ns\"} is $v after the deletion" ;; esac
	done
done
aw=$(curl -sf "http://127.0.0.1:$mport/metrics" | sed -n 's/^controller_runtime_active_workers{controller="helmrelease"} //p')
[ "$aw" = 0 ] || sk_fail "controller_runtime_active_workers '$aw', not 0"
echo "team-d/web uninstalled and gone, team-g/web gone without an uninstall, team-x/web let go after a failed status write; none reconciled again; no other error; gauges 0"

# the same names again install normally
for ns in team-d team-g team-x; do sk_apply_hr "$ns" web app; done
for ns in team-d team-g team-x; do
	r=$(sk_wait_ready "$ns" web 90)
	echo "new $ns/web: $r"
done
[ "$(helm list -q -n team-d)" = web ] || sk_fail "helm list -n team-d: $(helm list -n team-d)"
[ "$(ops_storage team-d web)" = 1=deployed ] || sk_fail "new team-d/web storage: $(ops_storage team-d web)"
[ "$(ops_storage team-g web)" = "1=superseded 2=deployed" ] || sk_fail "new team-g/web storage: $(ops_storage team-g web)"
[ "$(ops_storage team-x web)" = "1=superseded 2=deployed" ] || sk_fail "new team-x/web storage: $(ops_storage team-x web)"
[ "$(started team-d web)" = 3 ] || sk_fail "new team-d/web: $(started team-d web) workers in all, not 3"
kill -0 "$BULKHEADD_PID" || sk_fail "bulkheadd died"
[ "$(grep -c '"level":"error"' "$LOG")" = 1 ] || sk_fail "new errors in bulkheadd's log: $(grep '"level":"error"' "$LOG")"
echo "PASS: a HelmRelease deleted while its job runs: uninstalled (with our finalizer, even when the job's status write fails) or let go (without) once the job ends, never requeued; the same name installs again"
