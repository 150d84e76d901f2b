#!/usr/bin/env bash
# tests/e2e/model_admission.sh — the typed HelmRelease model at admission
# (api/helmrelease.c): .spec.chart plus .spec.chartRef is refused (InvalidSpec,
# Stalled=True, an Event, no worker); a field bulkhead lacks (kubeConfig's configMapRef) is
# refused by name (UnsupportedSpec); an unknown field is refused by name;
# fixing the spec clears Stalled and installs; a v2beta2 object is accepted
# and reads back through both versions.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
sk_setup
chart="$BH_SRCDIR/tests/e2e/skeleton/demo"
sk_publish "$chart" team-x demo
stalled() {
	kubectl get helmrelease "$2" -n "$1" -o jsonpath='{range .status.conditions[?(@.type=="Stalled")]}{.status}|{.reason}{end}'
}

# chart and chartRef together
sk_apply_hr team-x both demo "  chart:
    spec:
      chart: demo
      sourceRef:
        kind: HelmRepository
        name: repo"
r=$(sk_wait_cond team-x both False 60)
e2e_expect_contains "$r" "False|InvalidSpec|both .spec.chart and .spec.chartRef are set" "Ready"
e2e_expect_contains "$(stalled team-x both)" "True|InvalidSpec" "Stalled"
# kubeConfig.configMapRef: refused by name rather than installing into the local cluster
sk_apply_hr team-x deps demo "  kubeConfig:
    configMapRef:
      name: workload"
r=$(sk_wait_cond team-x deps False 60)
e2e_expect_contains "$r" "False|UnsupportedSpec|.spec.kubeConfig" "Ready"
# a misspelt field is refused by name, never ignored
sk_apply_hr team-x typo demo "  install:
    remediation:
      retires: 3"
r=$(sk_wait_cond team-x typo False 60)
e2e_expect_contains "$r" "False|InvalidSpec|unknown field .spec.install.remediation.retires" "Ready"
for n in both deps typo; do
	grep -q "team-x/$n: started worker" "$SK_DIR/bulkheadd.log" && sk_fail "a worker was started for refused spec $n"
done
ev=$(kubectl get events -n team-x -o jsonpath='{range .items[*]}{.type} {.reason} {.involvedObject.name}{"\n"}{end}')
e2e_expect_contains "$ev" "Warning InvalidSpec both" "events"
e2e_expect_contains "$ev" "Warning UnsupportedSpec deps" "events"

# fixing the spec: Stalled goes, the release installs
sk_apply_hr team-x both demo ""
sk_wait_ready team-x both 90 >/dev/null
[ -z "$(stalled team-x both)" ] || sk_fail "Stalled kept after the spec was fixed: $(stalled team-x both)"

# a v2beta2 object
sk_publish "$chart" team-y demo
kubectl apply -f - >/dev/null <<YAML || sk_fail "applying a v2beta2 HelmRelease"
apiVersion: helm.toolkit.fluxcd.io/v2beta2
kind: HelmRelease
metadata:
  name: beta
  namespace: team-y
spec:
  interval: 10m
  releaseName: beta-demo
  chartRef:
    kind: HelmChart
    name: demo
YAML
sk_wait_ready team-y beta 90 >/dev/null
[ "$(kubectl get helmreleases.v2beta2.helm.toolkit.fluxcd.io beta -n team-y -o jsonpath='{.spec.releaseName}')" = beta-demo ] ||
	sk_fail "the v2beta2 object does not read back as v2beta2"
[ "$(kubectl get helmreleases.v2.helm.toolkit.fluxcd.io beta -n team-y -o jsonpath='{.apiVersion}')" = helm.toolkit.fluxcd.io/v2 ] ||
	sk_fail "the v2beta2 object does not read back as v2"
echo "PASS: the HelmRelease model refuses invalid and unsupported specs by name, Stalled clears on a fix, v2beta2 is served"
