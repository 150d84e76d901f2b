#!/usr/bin/env bash
# tests/e2e/model_chart_template.sh — the HelmChart made from .spec.chart
# carries the template's .spec.chart.metadata labels and annotations (the
# owner labels helm.toolkit.fluxcd.io/name and -/namespace winning, as
# Flux's buildHelmChartFromTemplate and SetOwnerLabels) and
# .spec.chart.spec.ignoreMissingValuesFiles; a change of them is brought to
# the HelmChart on the next reconcile.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
sk_setup
sk_tenant team-t
hr() { # LABEL-VALUE
	kubectl apply -f - >/dev/null <<YAML || sk_fail "applying HelmRelease team-t/web"
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: web
  namespace: team-t
spec:
  interval: 5m
  chart:
    metadata:
      labels:
        tier: $1
        helm.toolkit.fluxcd.io/name: impostor
      annotations:
        team: blue
    spec:
      chart: demo
      sourceRef:
        kind: HelmRepository
        name: charts
      valuesFiles: [values.yaml, values-prod.yaml]
      ignoreMissingValuesFiles: true
YAML
}
hc() { kubectl get helmchart team-t-web -n team-t -o jsonpath="$1" 2>/dev/null; }
hr frontend
e2e_retry 30 kubectl get helmchart team-t-web -n team-t -o name >/dev/null 2>&1 || sk_fail "HelmChart team-t/team-t-web was not created"
got=$(hc '{.metadata.labels.tier} {.metadata.labels.helm\.toolkit\.fluxcd\.io/name} {.metadata.labels.helm\.toolkit\.fluxcd\.io/namespace} {.metadata.annotations.team} {.spec.ignoreMissingValuesFiles} {.spec.valuesFiles}')
[ "$got" = 'frontend web team-t blue true ["values.yaml","values-prod.yaml"]' ] || sk_fail "HelmChart: '$got'"
sk_wait_cond team-t web False 30 >/dev/null
hr backend
end=$((SECONDS + 30))
until [ "$(hc '{.metadata.labels.tier}')" = backend ]; do
	[ $SECONDS -ge $end ] && sk_fail "the HelmChart's labels were not brought in line: $(hc '{.metadata.labels}')"
	sleep 0.3
done
[ "$(hc '{.metadata.labels.helm\.toolkit\.fluxcd\.io/name}')" = web ] || sk_fail "owner label lost: $(hc '{.metadata.labels}')"
echo "PASS: .spec.chart.metadata and ignoreMissingValuesFiles reach the HelmChart made from .spec.chart"
