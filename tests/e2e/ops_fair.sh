#!/usr/bin/env bash
# tests/e2e/ops_fair.sh — issue 13: fair scheduling. Tenant A has 200 queued
# HelmReleases and tenant B one, all there before bulkheadd starts with a
# single reconcile slot (--concurrent 1). Round-robin over namespaces starts
# B's release within one slot: at most one of A's reconciles starts before
# it (an order and a count, not a wall-clock bound), and the per-tenant
# queue depth is in the metrics (200 less A's reconciles started: a count,
# not a rate).
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/ops_lib.sh"
ops_setup
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" tenant-a demo
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" tenant-b demo
for i in $(seq 1 201); do
	ns=tenant-a name=a$i
	[ "$i" = 201 ] && ns=tenant-b name=b1 # created last
	printf -- '---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  interval: 10m\n  releaseName: %s\n  chartRef:\n    kind: HelmChart\n    name: demo\n' \
		"$name" "$ns" "$name"
done >"$SK_DIR/hrs.yaml"
kubectl create -f "$SK_DIR/hrs.yaml" >/dev/null || sk_fail "creating 201 HelmReleases"
ops_run fair.log --concurrent 1 --metrics-addr 127.0.0.1:0
mport=$(ops_port fair.log metrics)
sk_wait_ready tenant-b b1 120 >/dev/null
# tenant-a's reconciles started so far (each one leaves A's queue)
started_a() { grep -c '^bulkheadd: tenant-a/[^ ]*: started worker' "$SK_DIR/fair.log" || true; }
s1=$(started_a)
sleep 1.2 # the queue gauges are refreshed once a second
depth=$(curl -sf "http://127.0.0.1:$mport/metrics" | sed -n 's/^bulkhead_queue_depth{namespace="tenant-a"} //p')
s2=$(started_a)
kill -TERM "$OPS_PID"
order=$(sed -n 's/^bulkheadd: \([^ ]*\): started worker.*/\1/p' "$SK_DIR/fair.log")
before=$(echo "$order" | sed '/^tenant-b\/b1$/,$d' | grep -c . || true)
echo "reconciles started before tenant-b/b1: $before ($(echo "$order" | head -3 | tr '\n' ' '))"
echo "queue depth of tenant-a when b1 was ready: $depth"
[ "$before" -le 1 ] || sk_fail "$before of tenant-a's reconciles started before tenant-b's (one slot allows 1)"
# the gauge was taken between the two counts (the one running may or may not be in it)
echo "tenant-a's reconciles started: $s1 before the gauge's last refresh, $s2 after the scrape"
[ -n "$depth" ] && [ "${depth%.*}" -ge $((200 - s2 - 1)) ] && [ "${depth%.*}" -le $((200 - s1 + 1)) ] ||
	sk_fail "bulkhead_queue_depth{namespace=\"tenant-a\"} is '$depth', not 200 less the $s1..$s2 of A's reconciles started"
echo "PASS: tenant B's release started within one slot of tenant A's 200; queue depth per tenant in metrics"
