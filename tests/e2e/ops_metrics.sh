#!/usr/bin/env bash
# tests/e2e/ops_metrics.sh — issue 13: --health-addr serves /healthz (200)
# and /readyz (503 until the HelmRelease cache has synced, here held back by
# 503s from kubesim on the list, then 200); --metrics-addr serves /metrics,
# which passes `promtool check metrics` and whose series move as releases
# reconcile: worker spawns and deaths by cause, Flux's reconcile duration
# histogram, controller-runtime's totals, broker requests by verb and code,
# audit records written.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/ops_lib.sh"
command -v promtool >/dev/null || e2e_skip "promtool not installed (Debian package prometheus)"
sk_setup
# a second bulkheadd, whose first HelmRelease list kubesim answers 503
kill -TERM "$BULKHEADD_PID" && wait "$BULKHEADD_PID"
kubesim_admin POST /_kubesim/faults '{"action":"status","code":503,"count":-1,"match":{"resource":"helmreleases","verb":"list"}}' \
	>/dev/null || sk_fail "adding the list fault"
sk_start_bulkheadd --test-hooks --metrics-addr 127.0.0.1:0 --health-addr 127.0.0.1:0
mport=$(ops_port bulkheadd.log metrics)
hport=$(ops_port bulkheadd.log "health probes")
code() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1$2"; }
[ "$(code "$hport" /healthz)" = 200 ] || sk_fail "/healthz not 200"
[ "$(code "$hport" /readyz)" = 503 ] || sk_fail "/readyz not 503 before the cache synced"
[ "$(code "$hport" /metrics)" = 404 ] || sk_fail "/metrics served on the health address"
kubesim_admin DELETE /_kubesim/faults >/dev/null
for i in $(seq 1 150); do [ "$(code "$hport" /readyz)" = 200 ] && break; sleep 0.2; done
[ "$(code "$hport" /readyz)" = 200 ] || sk_fail "/readyz not 200 after the cache synced"
echo "probes: /healthz 200, /readyz 503 then 200"

scrape() { curl -sf "http://127.0.0.1:$mport/metrics" >"$SK_DIR/metrics.$1" || sk_fail "scraping /metrics"
	promtool check metrics <"$SK_DIR/metrics.$1" || sk_fail "promtool check metrics ($1)"; }
scrape before
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-m demo
sk_apply_hr team-m web demo
sk_apply_hr team-m crash demo "" "    bulkhead.dev/test-hook: segv"
sk_wait_ready team-m web 60 >/dev/null
sk_wait_cond team-m crash False 60 >/dev/null
sleep 1.2 # the queue gauges are refreshed once a second
scrape after
python3 - "$SK_DIR/metrics.before" "$SK_DIR/metrics.after" <<'PY' || sk_fail "metrics did not move as expected"
import re, sys
def load(p):
    d = {}
    for l in open(p):
        if l.startswith("#") or not l.strip():
            continue
        k, v = l.rsplit(" ", 1)
        d[k] = float(v)
    return d
b, a = load(sys.argv[1]), load(sys.argv[2])
def val(d, k): return d.get(k, 0.0)
def total(d, prefix): return sum(v for k, v in d.items() if k.startswith(prefix))
checks = [
    ("bulkhead_worker_spawns_total", 2),
    ('bulkhead_worker_deaths_total{cause="exit"}', 1),
    ('bulkhead_worker_deaths_total{cause="crash"}', 1),
    ('gotk_reconcile_duration_seconds_count{kind="HelmRelease",name="web",namespace="team-m"}', 1),
    ('gotk_reconcile_duration_seconds_bucket{kind="HelmRelease",name="web",namespace="team-m",le="+Inf"}', 1),
    ('controller_runtime_reconcile_total{controller="helmrelease",result="success"}', 1),
    ('controller_runtime_reconcile_errors_total{controller="helmrelease"}', 1),
    ('bulkhead_audit_records_total{result="written"}', 1),
]
for k, want in checks:
    got = val(a, k) - val(b, k)
    assert got >= want, "%s moved by %s, want >= %s" % (k, got, want)
assert total(a, "bulkhead_broker_requests_total{verb=\"create\",code=\"201\"}") >= 1, "no broker creates"
assert total(a, "bulkhead_broker_requests_total{verb=\"get\"") >= 1, "no broker gets"
assert 'controller_runtime_max_concurrent_reconciles{controller="helmrelease"}' in a
assert 'workqueue_depth{controller="helmrelease",name="helmrelease"}' in a
print("moved:", ", ".join("%s +%g" % (k, val(a, k) - val(b, k)) for k, _ in checks))
PY
echo "PASS: probes answer as described; /metrics passes promtool and its series move"
