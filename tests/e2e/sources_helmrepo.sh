#!/usr/bin/env bash
# tests/e2e/sources_helmrepo.sh — built-in sources (--sources=builtin): a
# loopback Helm repository whose packages and index.yaml are made by the
# real `helm package` / `helm repo index`; a HelmRelease with .spec.chart
# installs from it through bulkhead-fetcher (HelmRepository and HelmChart
# status as source-controller writes them, sha256 digest of the package);
# after `helm repo index` publishes a new version the release upgrades
# within seconds; changing .spec.chart.spec.version updates the HelmChart,
# and moving the HelmRelease to chartRef deletes it. The same repository
# over HTTPS with basic auth (secretRef) and its CA (certSecretRef)
# installs too; a wrong password ends in AuthenticationFailed.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
sk_setup --sources builtin

repo="$SK_DIR/repo"
mkdir -p "$repo"
REPO_PID=
port=$(sk_free_port)
python3 -m http.server --bind 127.0.0.1 "$port" --directory "$repo" >"$SK_DIR/repo-http.log" 2>&1 &
REPO_PID=$!
HTTPS_PID=
trap 'st=$?; kill $REPO_PID $HTTPS_PID 2>/dev/null; (exit $st); sk_cleanup' EXIT
REPO_URL="http://127.0.0.1:$port"

# publish VERSION: package tests/e2e/skeleton/demo as that version, re-index
publish() {
	rm -rf "$SK_DIR/src" && cp -r "$BH_SRCDIR/tests/e2e/skeleton/demo" "$SK_DIR/src"
	sed -i "s/^version: .*/version: $1/" "$SK_DIR/src/Chart.yaml"
	helm package "$SK_DIR/src" -d "$repo" >/dev/null || sk_fail "helm package $1"
	helm repo index "$repo" >/dev/null || sk_fail "helm repo index"
}
# wait_rev REV SECS: until the HelmRelease attempted chart version REV
wait_rev() {
	local start=$SECONDS
	while [ "$(kubectl get helmrelease web -n team-r -o jsonpath='{.status.lastAttemptedRevision}')" != "$1" ]; do
		[ $((SECONDS - start)) -gt "$2" ] && sk_fail "HelmRelease web did not move to $1 within $2s"
		sleep 0.3
	done
	echo "moved to $1 after $((SECONDS - start))s"
}
publish 0.1.0
e2e_retry 20 curl -sf -o /dev/null "$REPO_URL/index.yaml" || sk_fail "repository server did not start"

sk_tenant team-r
kubectl apply -f - >/dev/null <<YAML || sk_fail "applying HelmRepository"
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: local
  namespace: team-r
spec:
  url: $REPO_URL
  interval: 1s
YAML
kubectl apply -f - >/dev/null <<YAML || sk_fail "applying HelmRelease"
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: web
  namespace: team-r
spec:
  interval: 10m
  chart:
    spec:
      chart: demo
      version: ">=0.1.0"
      sourceRef:
        kind: HelmRepository
        name: local
YAML
sk_wait_ready team-r web 60 >/dev/null
[ "$(kubectl get helmrelease web -n team-r -o jsonpath='{.status.lastAttemptedRevision}')" = 0.1.0 ] \
	|| sk_fail "installed revision is not 0.1.0"
# HelmRepository and HelmChart status as source-controller writes them
r=$(kubectl get helmrepository local -n team-r -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}|{.status.artifact.revision}|{.status.artifact.digest}')
sum=$(sha256sum "$repo/index.yaml" | cut -d' ' -f1)
[ "$r" = "True|sha256:$sum|sha256:$sum" ] || sk_fail "HelmRepository status: '$r' (index sha256:$sum)"
c=$(kubectl get helmchart team-r-web -n team-r -o jsonpath='{.status.conditions[?(@.type=="Ready")].reason}|{.status.conditions[?(@.type=="Ready")].message}|{.status.artifact.revision}|{.status.artifact.digest}')
sum=$(sha256sum "$repo/demo-0.1.0.tgz" | cut -d' ' -f1)
[ "$c" = "ChartPullSucceeded|pulled 'demo' chart with version '0.1.0'|0.1.0|sha256:$sum" ] || sk_fail "HelmChart status: '$c'"
helm list -n team-r | e2e_has "demo-0.1.0" || sk_fail "helm list does not show demo-0.1.0"

# a new version published by helm repo index: upgraded within seconds
publish 0.2.0
wait_rev 0.2.0 30
sk_wait_ready team-r web 30 >/dev/null
helm history web -n team-r | e2e_has "demo-0.2.0" || sk_fail "helm history has no demo-0.2.0"

# .spec.chart.spec.version changed: the HelmChart follows, the release goes back
kubectl patch helmrelease web -n team-r --type=merge -p '{"spec":{"chart":{"spec":{"version":"0.1.0"}}}}' >/dev/null
e2e_retry 60 sh -c "[ \"\$(kubectl get helmchart team-r-web -n team-r -o jsonpath='{.spec.version}')\" = 0.1.0 ]" \
	|| sk_fail "HelmChart .spec.version was not updated"
wait_rev 0.1.0 30
sk_wait_ready team-r web 30 >/dev/null

# moved to chartRef: the HelmChart made from .spec.chart is deleted
kubectl apply -f - >/dev/null <<YAML || sk_fail "applying HelmChart other"
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmChart
metadata:
  name: other
  namespace: team-r
spec:
  chart: demo
  version: 0.2.0
  interval: 1m
  sourceRef:
    kind: HelmRepository
    name: local
YAML
kubectl patch helmrelease web -n team-r --type=json -p '[{"op":"remove","path":"/spec/chart"},{"op":"add","path":"/spec/chartRef","value":{"kind":"HelmChart","name":"other"}}]' >/dev/null \
	|| sk_fail "moving to chartRef"
e2e_retry 60 sh -c "! kubectl get helmchart team-r-web -n team-r >/dev/null 2>&1" || sk_fail "HelmChart team-r-web not deleted after the move to chartRef"
wait_rev 0.2.0 30

# HTTPS with basic auth: a CA and a server certificate for 127.0.0.1
tls="$SK_DIR/tls"
. "$BH_SRCDIR/tests/e2e/sources/tls.sh"
src_make_tls "$tls" || sk_fail "openssl: certificates"
sport=$(sk_free_port)
python3 "$BH_SRCDIR/tests/e2e/sources/https_repo.py" "$sport" "$repo" "$tls/srv.crt" "$tls/srv.key" alice:s3cret \
	>"$SK_DIR/https.log" 2>&1 &
HTTPS_PID=$!
e2e_retry 20 curl -sf --cacert "$tls/ca.crt" -u alice:s3cret -o /dev/null "https://127.0.0.1:$sport/index.yaml" \
	|| sk_fail "the HTTPS repository did not start"
# https_tenant NS PASSWORD
https_tenant() {
	sk_tenant "$1"
	kubectl create secret generic auth -n "$1" --from-literal=username=alice --from-literal=password="$2" >/dev/null
	kubectl create secret generic tls -n "$1" --from-file=ca.crt="$tls/ca.crt" >/dev/null
	kubectl apply -f - >/dev/null <<YAML || sk_fail "applying the HTTPS tenant $1"
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: secure
  namespace: $1
spec:
  url: https://127.0.0.1:$sport
  interval: 1m
  secretRef:
    name: auth
  certSecretRef:
    name: tls
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: app
  namespace: $1
spec:
  interval: 10m
  chart:
    spec:
      chart: demo
      version: 0.2.0
      sourceRef:
        kind: HelmRepository
        name: secure
YAML
}
https_tenant team-s s3cret
https_tenant team-w wrong
sk_wait_ready team-s app 60 >/dev/null
helm list -n team-s | e2e_has "demo-0.2.0" || sk_fail "team-s: helm list does not show demo-0.2.0"
e2e_retry 60 sh -c "kubectl get helmrepository secure -n team-w -o jsonpath='{.status.conditions[0].reason} {.status.conditions[0].message}' | grep -q 'AuthenticationFailed.*401 Unauthorized'" \
	|| sk_fail "team-w: no AuthenticationFailed: $(kubectl get helmrepository secure -n team-w -o jsonpath='{.status.conditions}')"
echo "PASS"
