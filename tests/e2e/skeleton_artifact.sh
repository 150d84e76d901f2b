#!/usr/bin/env bash
# tests/e2e/skeleton_artifact.sh — the chart arrives the way Flux's
# source-controller provides it:
#  - a HelmChart whose .status.artifact digest does not match the bytes at its
#    url: the mismatch is reported on the HelmRelease (ArtifactFailed) and
#    nothing is installed (no worker is started, nothing is stored);
#  - .spec.chart: bulkheadd creates HelmChart <ns>-<name> itself, waits for
#    its artifact (SourceNotReady), then installs once a source-controller
#    (here: the test) fills .status.artifact.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
sk_setup
chart="$BH_SRCDIR/tests/e2e/skeleton/demo"
bad="sha256:0000000000000000000000000000000000000000000000000000000000000000"
sk_publish "$chart" team-d tampered "$bad"
sk_apply_hr team-d tampered tampered
r=$(sk_wait_cond team-d tampered False 60)
echo "tampered: $r"
e2e_expect_contains "$r" "False|ArtifactFailed|Could not load chart: failed to verify artifact from $SK_CHART_URL/demo-0.1.0.tgz: integrity check failed: computed digest sha256:" "Ready"
e2e_expect_contains "$r" "does not match $bad" "Ready"
[ -z "$(kubectl get secrets -n team-d -l owner=helm -o name)" ] || sk_fail "a release was stored despite the digest mismatch"
kubectl get configmap demo-config -n team-d >/dev/null 2>&1 && sk_fail "objects were installed despite the digest mismatch"
grep -q "team-d/tampered: started worker" "$SK_DIR/bulkheadd.log" && sk_fail "a worker was started for the tampered artifact"
ev=$(kubectl get events -n team-d -o jsonpath='{range .items[*]}{.type} {.reason}{"\n"}{end}')
e2e_expect_contains "$ev" "Warning ArtifactFailed" "events"

# .spec.chart: the controller creates the HelmChart
kubectl apply -f - >/dev/null <<YAML || sk_fail "applying HelmRelease team-d/web"
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: web
  namespace: team-d
spec:
  interval: 5m
  chart:
    spec:
      chart: demo
      version: "0.1.x"
      sourceRef:
        kind: HelmRepository
        name: charts
YAML
e2e_retry 30 kubectl get helmchart team-d-web -n team-d -o name >/dev/null 2>&1 || sk_fail "HelmChart team-d/team-d-web was not created"
spec=$(kubectl get helmchart team-d-web -n team-d -o jsonpath='{.spec.chart} {.spec.version} {.spec.sourceRef.kind}/{.spec.sourceRef.name} {.spec.interval} {.metadata.labels.helm\.toolkit\.fluxcd\.io/name}')
[ "$spec" = "demo 0.1.x HelmRepository/charts 5m web" ] || sk_fail "HelmChart spec: '$spec'"
r=$(sk_wait_cond team-d web False 30)
e2e_expect_contains "$r" "False|SourceNotReady|HelmChart 'team-d/team-d-web' is not ready" "Ready before the artifact"
sum=$(sha256sum "$SK_DIR/charts/demo-0.1.0.tgz" | cut -d' ' -f1)
kubectl patch helmchart team-d-web -n team-d --subresource=status --type=merge -p \
	"{\"status\":{\"artifact\":{\"url\":\"$SK_CHART_URL/demo-0.1.0.tgz\",\"digest\":\"sha256:$sum\",\"revision\":\"0.1.0\"}}}" >/dev/null
r=$(sk_wait_ready team-d web 60)
echo "web: $r"
hc=$(kubectl get helmrelease web -n team-d -o jsonpath='{.status.helmChart} {.status.observedGeneration} {.status.history[0].chartName}@{.status.history[0].chartVersion} {.status.history[0].status} {.status.storageNamespace}')
[ "$hc" = "team-d/team-d-web 1 demo@0.1.0 deployed team-d" ] || sk_fail "status: '$hc'"
echo "PASS: artifacts are verified, HelmCharts created from .spec.chart"
