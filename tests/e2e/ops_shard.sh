#!/usr/bin/env bash
# tests/e2e/ops_shard.sh — issue 13: sharding as Flux does it. Two bulkheadd
# instances, one with --watch-label-selector='!sharding.fluxcd.io/key' (the
# main instance), one with 'sharding.fluxcd.io/key=shard1' and
# --watch-all-namespaces=false (own namespace, from RUNTIME_NAMESPACE), split
# a set of HelmReleases with no overlap: each is reconciled by exactly the
# instance it belongs to, and a shard1 release outside the shard's namespace
# by neither.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/ops_lib.sh"
ops_setup
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" shard-ns demo
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-z demo
hr() { # NS NAME [SHARD]
	kubectl apply -f - >/dev/null <<YAML || sk_fail "applying $1/$2"
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: $2
  namespace: $1
${3:+  labels:
    sharding.fluxcd.io/key: $3}
spec:
  interval: 10m
  releaseName: $2
  chartRef:
    kind: HelmChart
    name: demo
YAML
}
hr shard-ns s1 shard1
hr shard-ns s2 shard1
hr shard-ns m1
hr team-z m2
hr team-z other shard1 # shard1, but outside the shard's namespace
ops_run main.log '--watch-label-selector=!sharding.fluxcd.io/key'
RUNTIME_NAMESPACE=shard-ns ops_run shard1.log --watch-label-selector=sharding.fluxcd.io/key=shard1 --watch-all-namespaces=false
for n in s1 s2 m1; do sk_wait_ready shard-ns "$n" 60 >/dev/null; done
sk_wait_ready team-z m2 60 >/dev/null
sleep 1
keys() { sed -n 's/^bulkheadd: \([^ ]*\): started worker.*/\1/p' "$SK_DIR/$1" | sort -u | tr '\n' ' '; }
main=$(keys main.log)
shard=$(keys shard1.log)
echo "main instance: $main"
echo "shard1 instance: $shard"
[ "$main" = "shard-ns/m1 team-z/m2 " ] || sk_fail "the main instance reconciled: $main"
[ "$shard" = "shard-ns/s1 shard-ns/s2 " ] || sk_fail "the shard1 instance reconciled: $shard"
[ -z "$(sk_ready team-z other)" ] || sk_fail "team-z/other was reconciled by someone"
grep -q "watching HelmReleases in namespace shard-ns matching sharding.fluxcd.io/key=shard1" "$SK_DIR/shard1.log" \
	|| sk_fail "the shard's scope is not in its log"
echo "PASS: two instances split the HelmReleases by label selector and namespace, with no overlap"
