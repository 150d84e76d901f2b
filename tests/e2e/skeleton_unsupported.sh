#!/usr/bin/env bash
# tests/e2e/skeleton_unsupported.sh — HelmRelease fields bulkhead does not
# implement yet are refused by name (Ready=False, UnsupportedSpec, an Event),
# never silently ignored: a .spec.kubeConfig.configMapRef (a workload identity
# provider) must not end up installing into the management cluster.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
sk_setup
chart="$BH_SRCDIR/tests/e2e/skeleton/demo"
sk_publish "$chart" team-x demo
sk_apply_hr team-x remote demo "  kubeConfig:
    configMapRef:
      name: remote-identity"
r=$(sk_wait_cond team-x remote False 60)
e2e_expect_contains "$r" "False|UnsupportedSpec|.spec.kubeConfig.configMapRef is not supported by this version of bulkhead: workload identity providers" "Ready"
grep -q "team-x/remote: started worker" "$SK_DIR/bulkheadd.log" && sk_fail "a worker was started for an unsupported spec"
[ -z "$(kubectl get secrets -n team-x -l owner=helm -o name)" ] || sk_fail "a release was stored for an unsupported spec"
kubectl get configmap demo-config -n team-x >/dev/null 2>&1 && sk_fail "objects were installed for an unsupported spec"
ev=$(kubectl get events -n team-x -o jsonpath='{range .items[*]}{.type} {.reason}{"\n"}{end}')
e2e_expect_contains "$ev" "Warning UnsupportedSpec" "events"
echo "PASS: unsupported HelmRelease fields are refused by name"
