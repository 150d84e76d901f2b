#!/usr/bin/env bash
# tests/e2e/scale_requests.sh — what one HelmRelease costs the API server
# (issue 14): kubesim's request log counts every request bulkheadd makes, as
# itself or as the tenant, for an install of the podinfo chart
# (../shared/conformance) and for a reconcile that changes nothing (a
# reconcile request annotation). Fails above 12 requests per install and
# above 2 per no-op reconcile. Watches are not counted (they stay open).
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
# "verb path" a line (watches left out)
scale_count() {
	kubesim_admin GET /_kubesim/log | python3 -c '
import json, sys
since = int(sys.argv[1])
for i, line in enumerate(sys.stdin):
    e = json.loads(line)
    if i < since or not e.get("userAgent", "").startswith("bulkhead/") or e.get("verb") == "watch":
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

mark=$(log_len)
kubectl annotate helmrelease podinfo -n apps --overwrite reconcile.fluxcd.io/requestedAt=noop-1 >/dev/null ||
	sk_fail "annotating"
for i in $(seq 1 100); do
	[ "$(kubectl get helmrelease podinfo -n apps -o jsonpath='{.status.lastHandledReconcileAt}')" = noop-1 ] && break
	sleep 0.2
done
[ "$(kubectl get helmrelease podinfo -n apps -o jsonpath='{.status.lastHandledReconcileAt}')" = noop-1 ] ||
	sk_fail "the reconcile request was not handled"
sleep 1
reqs=$(scale_count "$mark")
n=$(printf '%s\n' "$reqs" | grep -c .)
echo "no-op reconcile: $n requests"
printf '%s\n' "$reqs"
[ "$n" -le 2 ] || sk_fail "a reconcile that changes nothing made $n API requests (at most 2)"
[ "$(kubectl get secrets -n apps -l owner=helm,name=podinfo -o name | wc -l)" = 1 ] ||
	sk_fail "the no-op reconcile made a new release revision"
echo "PASS: scale_requests"
