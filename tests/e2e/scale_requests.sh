#!/usr/bin/env bash
# tests/e2e/scale_requests.sh — what one HelmRelease costs the API server
# (issue 14): kubesim's request log counts every request bulkheadd makes, as
# itself or as the tenant, for an install of the podinfo chart
# (../shared/conformance) and for a reconcile that changes nothing (a
# reconcile request annotation). Fails above 12 requests per install and
# above 2 per no-op reconcile. bulkheadd's own watches (its caches, as
# itself) are not counted: they stay open across reconciles; a worker's
# watch (as the tenant: the readiness wait's) is a request of the install.
# After the install (the broker followed the worker's storage writes), the
# next no-ops run no worker at all (supervisor/noop.h): the storage list and
# the status write, which leaves the status as the install wrote it; a
# release changed behind bulkheadd's back (a new storage revision) brings
# the worker back.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/skeleton_lib.sh"
e2e_need_shared
chart="$E2E_SHARED/conformance/charts/podinfo"
[ -f "$chart/Chart.yaml" ] || e2e_skip "podinfo chart not in $chart"
sk_setup --concurrent 2
sk_publish "$chart" apps podinfo
sleep 2 # bulkheadd's start-up (list, discovery, watches) is not the install's cost

# scale_count SINCE: requests bulkheadd made after log line SINCE, one
# "verb path" a line (bulkheadd's own watches left out)
scale_count() {
	kubesim_admin GET /_kubesim/log | python3 -c '
import json, sys
since = int(sys.argv[1])
for i, line in enumerate(sys.stdin):
    e = json.loads(line)
    if i < since or not e.get("userAgent", "").startswith("bulkhead/") or (e.get("verb") == "watch" and not e.get("impersonatedUser")):
        continue
    print(e.get("method"), e.get("path"), e.get("status"))' "$1"
}
log_len() { kubesim_admin GET /_kubesim/log | wc -l; }

mark=$(log_len)
sk_apply_hr apps podinfo podinfo
sk_wait_ready apps podinfo 60 >/dev/null
sleep 1 # the last status write lands after Ready is visible
reqs=$(scale_count "$mark")
n=$(printf '%s\n' "$reqs" | grep -c .)
echo "install: $n requests"
printf '%s\n' "$reqs"
[ "$n" -le 12 ] || sk_fail "an install of podinfo made $n API requests (at most 12)"

workers() { grep -c "apps/podinfo: started worker" "$SK_DIR/bulkheadd.log"; }
# noop REQ: asks for a reconcile and waits until it is handled; prints its requests
noop() {
	local mark i
	mark=$(log_len)
	kubectl annotate helmrelease podinfo -n apps --overwrite reconcile.fluxcd.io/requestedAt="$1" >/dev/null ||
		sk_fail "annotating"
	for i in $(seq 1 100); do
		[ "$(kubectl get helmrelease podinfo -n apps -o jsonpath='{.status.lastHandledReconcileAt}')" = "$1" ] && break
		sleep 0.2
	done
	[ "$(kubectl get helmrelease podinfo -n apps -o jsonpath='{.status.lastHandledReconcileAt}')" = "$1" ] ||
		sk_fail "the reconcile request $1 was not handled"
	sleep 1
	scale_count "$mark"
}
ready_msg() { kubectl get helmrelease podinfo -n apps -o jsonpath='{.status.conditions[?(@.type=="Ready")].message}'; }
# the status but the reconcile request handled
status_of() {
	kubectl get helmrelease podinfo -n apps -o json | python3 -c '
import json, sys
s = json.load(sys.stdin)["status"]
s.pop("lastHandledReconcileAt", None)
print(json.dumps(s, sort_keys=True))'
}
st0=$(status_of)
w0=$(workers)
reqs=$(noop noop-1)
n=$(printf '%s\n' "$reqs" | grep -c .)
echo "no-op reconcile: $n requests"
printf '%s\n' "$reqs"
[ "$n" -le 2 ] || sk_fail "a reconcile that changes nothing made $n API requests (at most 2)"
[ "$(kubectl get secrets -n apps -l owner=helm,name=podinfo -o name | wc -l)" = 1 ] ||
	sk_fail "the no-op reconcile made a new release revision"
w1=$(workers)
[ "$w1" = "$w0" ] || sk_fail "the first no-op reconcile after the install ran $((w1 - w0)) workers (none expected)"
[ "$(status_of)" = "$st0" ] || sk_fail "the no-op changed the status the install wrote: $(status_of) (was $st0)"
msg1=$(ready_msg)
hist1=$(kubectl get helmrelease podinfo -n apps -o jsonpath='{.status.history}')

reqs=$(noop noop-2)
n=$(printf '%s\n' "$reqs" | grep -c .)
echo "no-op reconcile, inputs and storage unchanged: $n requests"
printf '%s\n' "$reqs"
[ "$n" -le 2 ] || sk_fail "a second reconcile that changes nothing made $n API requests (at most 2)"
[ "$(workers)" = "$w1" ] || sk_fail "a worker was started for a reconcile whose inputs and storage did not change"
grep -q "apps/podinfo.*in sync: inputs and release storage unchanged, no worker" "$SK_DIR/bulkheadd.log" ||
	sk_fail "bulkheadd did not say it skipped the worker"
[ "$(ready_msg)" = "$msg1" ] || sk_fail "the Ready message changed without a worker: $(ready_msg) (was $msg1)"
[ "$(kubectl get helmrelease podinfo -n apps -o jsonpath='{.status.history}')" = "$hist1" ] ||
	sk_fail "status.history changed without a worker"

# the release changed behind bulkheadd's back: the storage differs, a worker looks
kubectl label secret -n apps sh.helm.release.v1.podinfo.v1 e2e-touched=yes >/dev/null || sk_fail "labelling the release"
noop noop-3 >/dev/null
[ "$(workers)" = $((w1 + 1)) ] || sk_fail "a changed release storage did not start a worker"
echo "PASS: scale_requests"
