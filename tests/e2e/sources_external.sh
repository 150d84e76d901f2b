#!/usr/bin/env bash
# tests/e2e/sources_external.sh — --sources=external (a source-controller
# fills HelmChart .status.artifact; here the test does, as sk_publish): a
# new artifact revision of the HelmChart reconciles the HelmRelease that
# uses it at once, not at its 10m interval. The same for an OCIRepository
# named by .spec.chartRef: its artifact (downloaded by bulkhead-fetcher)
# installs as chart version <version>+<digest[0:12]>, and a new digest
# under the same tag upgrades at once.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
sk_setup --sources external
src="$SK_DIR/src"
cp -r "$BH_SRCDIR/tests/e2e/skeleton/demo" "$src"
sk_publish "$src" team-x demo
sk_apply_hr team-x web demo
sk_wait_ready team-x web 60 >/dev/null
sed -i 's/^version: .*/version: 0.3.0/' "$src/Chart.yaml"
sk_publish "$src" team-x demo
start=$SECONDS
while [ "$(kubectl get helmrelease web -n team-x -o jsonpath='{.status.lastAttemptedRevision}')" != 0.3.0 ]; do
	[ $((SECONDS - start)) -gt 20 ] && sk_fail "the new HelmChart revision did not reconcile the HelmRelease within 20s"
	sleep 0.3
done
sk_wait_ready team-x web 30 >/dev/null
echo "reconciled $((SECONDS - start))s after the new artifact"

# ocirepo DIGEST: OCIRepository team-x/app serving the 0.3.0 package as tag 0.3.0 with that manifest digest
tgz=$(ls "$SK_DIR/charts"/demo-0.3.0.tgz) || sk_fail "no demo-0.3.0.tgz"
sum=$(sha256sum "$tgz" | cut -d' ' -f1)
ocirepo() {
	kubectl apply -f - >/dev/null <<YAML || sk_fail "applying OCIRepository app"
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: app
  namespace: team-x
spec:
  url: oci://registry.example/charts/demo
  interval: 10m
  ref:
    tag: 0.3.0
YAML
	kubectl patch ocirepository app -n team-x --subresource=status --type=merge -p \
		"{\"status\":{\"observedGeneration\":1,\"artifact\":{\"url\":\"$SK_CHART_URL/demo-0.3.0.tgz\",\"digest\":\"sha256:$sum\",\"revision\":\"0.3.0@$1\",\"path\":\"ocirepository/team-x/app/$sum.tgz\",\"lastUpdateTime\":\"2026-01-01T00:00:00Z\"}}}" \
		>/dev/null || sk_fail "setting OCIRepository status"
}
d1=sha256:1111111111112222222222222222222222222222222222222222222222222222
d2=sha256:3333333333334444444444444444444444444444444444444444444444444444
ocirepo "$d1"
kubectl apply -f - >/dev/null <<YAML || sk_fail "applying HelmRelease app"
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: app
  namespace: team-x
spec:
  interval: 10m
  chartRef:
    kind: OCIRepository
    name: app
YAML
sk_wait_ready team-x app 60 >/dev/null
[ "$(kubectl get helmrelease app -n team-x -o jsonpath='{.status.lastAttemptedRevision}|{.status.lastAttemptedRevisionDigest}')" = "0.3.0+111111111111|$d1" ] \
	|| sk_fail "OCIRepository release: $(kubectl get helmrelease app -n team-x -o jsonpath='{.status.lastAttemptedRevision}|{.status.lastAttemptedRevisionDigest}')"
ocirepo "$d2"
start=$SECONDS
while [ "$(kubectl get helmrelease app -n team-x -o jsonpath='{.status.lastAttemptedRevision}')" != 0.3.0+333333333333 ]; do
	[ $((SECONDS - start)) -gt 20 ] && sk_fail "the new OCIRepository digest did not reconcile the HelmRelease within 20s"
	sleep 0.3
done
sk_wait_ready team-x app 30 >/dev/null
helm history app -n team-x | e2e_has "demo-0.3.0+333333333333" || sk_fail "helm history has no demo-0.3.0+333333333333"
echo "PASS"
