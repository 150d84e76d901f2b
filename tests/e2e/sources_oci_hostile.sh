#!/usr/bin/env bash
# tests/e2e/sources_oci_hostile.sh — hostile OCI registries are contained
# by bulkhead-fetcher (--sources=builtin), each behind basic auth
# (sources/hostile_registry.py): a manifest that never ends (the 4 MiB
# manifest cap), a chart layer claiming 1 GiB (refused before any byte of
# it), a blob whose bytes are not its digest, an image index instead of a
# manifest, and a blob redirected to another host (followed, verified, but
# the credentials must not follow). Each failure ends with a clear reason
# on that tenant's OCIRepository, and its HelmRelease waits for its source;
# a good tenant installs from a real registry (docker-registry, helm push)
# meanwhile. (A slow-loris server: sources_hostile.sh, the same HTTP code.)
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/sources/registry.sh"
e2e_need_tool docker-registry htpasswd
sk_setup --sources builtin
export HELM_REGISTRY_CONFIG=$SK_DIR/helm-registry.json
port=$(sk_free_port)
other=$(sk_free_port)
python3 "$BH_SRCDIR/tests/e2e/sources/hostile_registry.py" "$port" "$SK_DIR/hostile.log" "$other" >"$SK_DIR/hostile-reg.log" 2>&1 &
PIDS=$!
python3 "$BH_SRCDIR/tests/e2e/sources/hostile_registry.py" "$other" "$SK_DIR/hostile.log" >>"$SK_DIR/hostile-reg.log" 2>&1 &
PIDS="$PIDS $!"
trap 'st=$?; kill $PIDS 2>/dev/null; (exit $st); sk_cleanup' EXIT
reg_start "$SK_DIR/reg" || sk_fail "docker-registry did not start"
PIDS="$PIDS $REG_PID"
helm package "$BH_SRCDIR/tests/e2e/skeleton/demo" -d "$SK_DIR" >/dev/null || sk_fail "helm package"
helm push "$SK_DIR/demo-0.1.0.tgz" "oci://127.0.0.1:$REG_PORT/charts" --plain-http >/dev/null 2>&1 || sk_fail "helm push"
e2e_retry 20 curl -sf -o /dev/null "http://127.0.0.1:$port/v2/" || sk_fail "hostile registry did not start"

# tenant KIND URL [MINVERSION]: namespace t-KIND with OCIRepository "repo" and HelmRelease "app"
tenant() {
	sk_tenant "t-$1"
	kubectl create secret generic creds -n "t-$1" --from-literal=username=alice --from-literal=password=s3cret >/dev/null
	kubectl apply -f - >/dev/null <<YAML || sk_fail "applying tenant $1"
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: repo
  namespace: t-$1
spec:
  url: $2
  insecure: true
  interval: 1m
  timeout: 40s
  ref:
    semver: ">=${3:-1.0.0}"
  secretRef:
    name: creds
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: app
  namespace: t-$1
spec:
  interval: 10m
  chartRef:
    kind: OCIRepository
    name: repo
YAML
}
# expect KIND REASON TEXT: OCIRepository repo in t-KIND is Ready=False with REASON and TEXT
expect() {
	local end=$((SECONDS + 60)) r
	while :; do
		r=$(kubectl get ocirepository repo -n "t-$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}|{.status.conditions[?(@.type=="Ready")].reason}|{.status.conditions[?(@.type=="Ready")].message}' 2>/dev/null)
		case "$r" in "False|$2|"*"$3"*) echo "$1: $r"; return 0 ;; esac
		[ $SECONDS -ge $end ] && sk_fail "$1: OCIRepository Ready is '$r', want False|$2|...$3..."
		sleep 0.5
	done
}
kinds="hugemanifest bigblob wrongblob index"
tenant good "oci://127.0.0.1:$REG_PORT/charts/demo" 0.1.0
for k in $kinds redirect; do tenant "$k" "oci://127.0.0.1:$port/charts/$k"; done

sk_wait_ready t-good app 60 >/dev/null
expect hugemanifest OCIArtifactPullFailed "the response is larger than the limit of 4194304 bytes"
expect bigblob OCIArtifactPullFailed "is 1073741824 bytes, more than the limit of 10485760"
expect wrongblob OCIArtifactPullFailed "does not match its descriptor"
expect index OCIArtifactPullFailed "is an image index, not the manifest of a Helm chart"
e2e_retry 60 sh -c "kubectl get ocirepository repo -n t-redirect -o jsonpath='{.status.artifact.digest}' | grep -q sha256:" \
	|| sk_fail "redirect: the blob behind the redirect was not stored"
# the blob storage on another host got the request, without the credentials
grep -q "^capture auth=no" "$SK_DIR/hostile.log" || sk_fail "the blob redirect was not followed"
grep -q "^capture auth=yes" "$SK_DIR/hostile.log" && sk_fail "credentials were sent to another host after a redirect"
for k in $kinds; do
	r=$(sk_ready "t-$k" app)
	case "$r" in False\|SourceNotReady\|*) ;; *) sk_fail "t-$k/app: '$r'" ;; esac
	[ -z "$(kubectl get secrets -n "t-$k" -l owner=helm -o name)" ] || sk_fail "t-$k: a release was stored"
done
[ -z "$(kubectl get secrets -n t-redirect -l owner=helm -o name)" ] || sk_fail "t-redirect: a non-chart was installed"
sk_ready t-good app | e2e_has '^True' || sk_fail "t-good is not Ready"
kill -0 "$BULKHEADD_PID" || sk_fail "bulkheadd died"
echo "PASS"
