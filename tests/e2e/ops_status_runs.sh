#!/usr/bin/env bash
# tests/e2e/ops_status_runs.sh — issue 14: the requests bulkheadd makes about
# a HelmRelease itself (adding and removing its finalizer, the ServiceAccount
# check of its deletion, the deletion of a HelmChart made for it) are the
# main loop's own non-blocking requests (supervisor/status.h status_run).
# kubesim refuses each of them once (409, not retried): the failure is
# reported with the message a blocking client gave (the request named), the
# object is tried again, ends Ready, and on deletion is uninstalled and goes.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
sk_setup
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-q demo
fault() { kubesim_admin POST /_kubesim/faults "$1" >/dev/null || sk_fail "adding fault $1"; }
hr=/apis/helm.toolkit.fluxcd.io/v2/namespaces/team-q/helmreleases/one
fault '{"action":"status","code":409,"message":"injected add","count":1,"match":{"method":"PATCH","path":"/helmreleases/one$"}}'
sk_apply_hr team-q one demo
sk_wait_ready team-q one 60 >/dev/null
e2e_expect_contains "$(cat "$SK_DIR/bulkheadd.log")" \
	"FinalizerFailed: adding the finalizer finalizers.fluxcd.io: PATCH $hr?fieldManager=helm-controller: 409 Conflict: injected add" \
	"the failed finalizer addition"
kubectl get helmrelease one -n team-q -o jsonpath='{.metadata.finalizers}' | grep -q finalizers.fluxcd.io ||
	sk_fail "no finalizer on team-q/one"
kubectl get configmap demo-config -n team-q >/dev/null 2>&1 || sk_fail "team-q/one was not installed"

fault '{"action":"status","code":409,"message":"injected sa","count":1,"match":{"method":"GET","path":"/serviceaccounts/default$"}}'
fault '{"action":"status","code":409,"message":"injected remove","count":1,"match":{"method":"PATCH","path":"/helmreleases/one$"}}'
fault '{"action":"status","code":409,"message":"injected chart","count":1,"match":{"method":"GET","path":"/helmcharts/team-q-one$"}}'
kubectl delete helmrelease one -n team-q --wait=false >/dev/null
e2e_retry 60 bash -c '! kubectl get helmrelease one -n team-q >/dev/null 2>&1' || sk_fail "team-q/one stuck: $(kubectl get helmrelease one -n team-q -o jsonpath='{.metadata.finalizers} {.status.conditions}')"
kubectl get configmap demo-config -n team-q >/dev/null 2>&1 && sk_fail "team-q/one was not uninstalled"
log=$(cat "$SK_DIR/bulkheadd.log")
e2e_expect_contains "$log" \
	"UninstallFailed: failed to confirm the ServiceAccount can be used to uninstall release: GET /api/v1/namespaces/team-q/serviceaccounts/default: 409 Conflict: injected sa" \
	"the failed ServiceAccount check"
e2e_expect_contains "$log" \
	"removing the finalizer finalizers.fluxcd.io: PATCH $hr?fieldManager=helm-controller: 409 Conflict: injected remove" \
	"the failed finalizer removal"
e2e_expect_contains "$log" \
	"deleting its HelmChart: GET /apis/source.toolkit.fluxcd.io/v1/namespaces/team-q/helmcharts/team-q-one: 409 Conflict: injected chart" \
	"the failed HelmChart look-up"
kubesim_admin GET /_kubesim/faults | python3 -c '
import json, sys
miss = [f for f in json.load(sys.stdin)["faults"] if not f.get("hits")]
assert not miss, "faults never hit: %s" % miss' || sk_fail "not every fault was exercised"
kill -0 "$BULKHEADD_PID" 2>/dev/null || sk_fail "bulkheadd died"
echo "PASS: finalizer, ServiceAccount check and HelmChart requests fail, are reported as before, and are tried again"
