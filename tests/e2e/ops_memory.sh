#!/usr/bin/env bash
# tests/e2e/ops_memory.sh — issue 13: a worker hitting its memory limit
# (--worker-memory-mb). A chart whose rendering holds far more than the
# limit (tests/e2e/ops/hog) fails its install, and on another HelmRelease
# its upgrade, with a reason that names the memory limit; nothing is
# half-written (no release record for the install, the upgrade leaves the
# deployed revision alone and creates none); the metrics count the death as
# "memory"; another tenant's release is reconciled meanwhile.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
. "$BH_SRCDIR/tests/e2e/ops_lib.sh"
sk_setup --worker-memory-mb 200 --metrics-addr 127.0.0.1:0
port=$(ops_port bulkheadd.log metrics)
sk_publish "$BH_SRCDIR/tests/e2e/ops/hog" team-m hog
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-n demo
sk_apply_hr team-m grow hog
sk_wait_ready team-m grow 60 >/dev/null

sk_apply_hr team-m big hog "  values:
    megabytes: 400"
kubectl patch helmrelease grow -n team-m --type=merge -p '{"spec":{"values":{"megabytes":400}}}' >/dev/null
sk_apply_hr team-n fine demo
r=$(sk_wait_ready team-n fine 90)
echo "the other tenant: $r"
r=$(sk_wait_cond team-m big False 90)
echo "install over the limit: $r"
e2e_expect_contains "$r" "False|InstallFailed|" "team-m/big"
e2e_has -i "memory limit" <<<"$r" || sk_fail "team-m/big: the reason does not name the memory limit: $r"
rl_wait_gen team-m grow 2 90
r=$(sk_ready team-m grow)
echo "upgrade over the limit: $r"
e2e_expect_contains "$r" "False|UpgradeFailed|" "team-m/grow"
e2e_has -i "memory limit" <<<"$r" || sk_fail "team-m/grow: the reason does not name the memory limit: $r"
[ -z "$(ops_storage team-m big)" ] || sk_fail "a release record of big: $(ops_storage team-m big)"
kubectl get cm big-hog -n team-m >/dev/null 2>&1 && sk_fail "ConfigMap big-hog created"
[ "$(ops_storage team-m grow)" = "1=deployed" ] || sk_fail "grow's storage: $(ops_storage team-m grow)"
[ "$(kubectl get cm grow-hog -n team-m -o jsonpath='{.data.held}')" = 0 ] || sk_fail "grow-hog changed"
m=$(curl -sf "http://127.0.0.1:$port/metrics") || sk_fail "no /metrics"
deaths=$(sed -n 's/^bulkhead_worker_deaths_total{.*cause="memory".*} \([0-9]*\)$/\1/p' <<<"$m" | head -1)
echo "worker deaths by memory: ${deaths:-none}"
[ "${deaths:-0}" -ge 2 ] || sk_fail "worker deaths by memory not counted: $(grep worker_deaths <<<"$m")"
echo "PASS: over --worker-memory-mb: a reason naming the memory limit, nothing half-written, counted; other tenants unaffected"
