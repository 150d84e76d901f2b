#!/usr/bin/env bash
# tests/e2e/ops_faults.sh — issue 13: bulkheadd itself under API faults.
# While three HelmReleases reconcile, kubesim answers 429 storms (with
# Retry-After) on Helm storage, 503s on HelmRelease lists, ends the
# HelmRelease watch twice, answers one watch 410 Gone, holds one status
# write for 3s and fails every OCIRepository list. Every HelmRelease ends
# Ready with nothing left pending-*, and bulkheadd keeps running.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
sk_setup
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-q demo
kill -TERM "$BULKHEADD_PID" && wait "$BULKHEADD_PID" # restarted below, into the faults
fault() { kubesim_admin POST /_kubesim/faults "$1" >/dev/null || sk_fail "adding fault $1"; }
fault '{"action":"status","code":429,"retryAfter":1,"count":6,"match":{"resource":"secrets","namespace":"team-q"}}'
fault '{"action":"status","code":503,"count":3,"match":{"resource":"helmreleases","verb":"list"}}'
fault '{"action":"closeWatch","afterMs":500,"count":2,"match":{"resource":"helmreleases","verb":"watch"}}'
fault '{"action":"status","code":410,"count":1,"match":{"resource":"helmreleases","verb":"watch"}}'
fault '{"action":"latency","ms":3000,"count":1,"match":{"resource":"helmreleases","method":"PATCH"}}'
# a watch whose list always fails (loopwatch.h: its lists share a thread)
# never holds up the HelmReleases' list
fault '{"action":"status","code":503,"count":100000,"match":{"resource":"ocirepositories","verb":"list"}}'
sk_start_bulkheadd
for n in one two three; do sk_apply_hr team-q "$n" demo "  releaseName: $n"; done
for n in one two three; do sk_wait_ready team-q "$n" 90 >/dev/null; done
kill -0 "$BULKHEADD_PID" 2>/dev/null || sk_fail "bulkheadd died"
s=$(kubectl get secrets -n team-q -l owner=helm -o jsonpath='{range .items[*]}{.metadata.labels.name}.v{.metadata.labels.version}={.metadata.labels.status} {end}')
echo "storage: $s"
case "$s" in *pending-*) sk_fail "a release was left pending: $s" ;; esac
kubesim_admin GET /_kubesim/faults | python3 -c '
import json, sys
fs = json.load(sys.stdin)["faults"]
print("fault hits:", ", ".join("%s %s=%s" % (f.get("action"), (f.get("match") or {}).get("resource"), f.get("hits")) for f in fs))'
kubesim_admin GET /_kubesim/faults | python3 -c '
import json, sys
miss = [f for f in json.load(sys.stdin)["faults"] if not f.get("hits")]
assert not miss, "faults never hit: %s" % miss' || sk_fail "not every fault was exercised"
echo "PASS: 429 storms, 503s, dropped watches, 410 Gone and a slow write: every release Ready, none pending"
