#!/usr/bin/env bash
# tests/e2e/sources_oci_verify_external.sh — --sources=external: a
# HelmRelease's .spec.chart.spec.verify is copied into the HelmChart
# bulkhead makes from .spec.chart, as helm-controller's
# templateVerificationToSourceVerification does (provider, secretRef,
# matchOIDCIdentity; the real source-controller verifies), and a change of
# it reaches the HelmChart. bulkheadd runs under its ServiceAccount token
# (sk_setup).
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
sk_setup --sources external
sk_tenant team-e
# hr VERIFY-YAML: HelmRelease team-e/web of chart demo with that .spec.chart.spec.verify
hr() {
	kubectl apply -f - >/dev/null <<YAML || sk_fail "applying HelmRelease team-e/web"
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: web
  namespace: team-e
spec:
  interval: 10m
  chart:
    spec:
      chart: demo
      version: 0.1.0
      sourceRef:
        kind: HelmRepository
        name: charts
      verify:
$1
YAML
}
# wait_verify WANT: until the HelmChart's .spec.verify (compact JSON, keys sorted) is WANT
wait_verify() {
	local end=$((SECONDS + 30)) got
	while got=$(kubectl get helmchart team-e-web -n team-e -o json 2>/dev/null | python3 -c \
		'import json,sys; print(json.dumps(json.load(sys.stdin)["spec"].get("verify"), sort_keys=True, separators=(",", ":")))' 2>/dev/null)
		[ "$got" != "$1" ]; do
		[ $SECONDS -ge $end ] && sk_fail "HelmChart team-e/team-e-web .spec.verify: '$got', want '$1'"
		sleep 0.3
	done
}
hr "        provider: cosign
        secretRef:
          name: cosign-pub
        matchOIDCIdentity:
        - issuer: ^https://token.actions.githubusercontent.com\$
          subject: ^https://github.com/example/.*\$"
wait_verify '{"matchOIDCIdentity":[{"issuer":"^https://token.actions.githubusercontent.com$","subject":"^https://github.com/example/.*$"}],"provider":"cosign","secretRef":{"name":"cosign-pub"}}'
# notation and keyless are the real source-controller's to verify: copied as they are
hr "        provider: notation
        secretRef:
          name: trust"
wait_verify '{"provider":"notation","secretRef":{"name":"trust"}}'
echo "PASS"
