#!/usr/bin/env bash
# tests/e2e/sources_oci.sh — built-in sources against a real OCI registry:
# Debian's docker-registry on loopback (one open, one with htpasswd basic
# auth), charts pushed by the real `helm push`. bulkheadd, under its
# ServiceAccount token, installs and upgrades
#  - a HelmRelease whose .spec.chart names a HelmRepository of type oci
#    (HelmChart artifact: the chart version, sha256 of the pushed package;
#    a new version pushed: upgraded within seconds), and
#  - a HelmRelease whose .spec.chartRef names an OCIRepository (artifact
#    revision "<tag>@sha256:<manifest digest>" as helm push printed it,
#    release version "<version>+<digest[0:12]>", lastAttemptedRevisionDigest,
#    the history's ociDigest;
#    a new version pushed: upgraded within seconds);
# from the htpasswd registry with a dockerconfigjson secret and with a
# username/password secret, and behind a Bearer token service (the
# WWW-Authenticate challenge and token exchange, sources/token_registry.py);
# wrong credentials end in AuthenticationFailed;
# a tag list in pages (Link: rel="next") is read to its end;
# a blob altered in the registry's storage is refused (digest mismatch).
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/sources/registry.sh"
reg_setup_builtin

# wait_rev NS HR REV SECS: until the HelmRelease attempted chart version REV
wait_rev() {
	local start=$SECONDS
	while [ "$(kubectl get helmrelease "$2" -n "$1" -o jsonpath='{.status.lastAttemptedRevision}')" != "$3" ]; do
		[ $((SECONDS - start)) -gt "$4" ] && sk_fail "HelmRelease $1/$2 did not move to $3 within $4s: $(kubectl get helmrelease "$2" -n "$1" -o jsonpath='{.status.lastAttemptedRevision} {.status.conditions}')"
		sleep 0.3
	done
	echo "$1/$2 moved to $3 after $((SECONDS - start))s"
}
mkdir -p "$SK_DIR/pkg"
reg_push "$O" demo 0.1.0 >/dev/null

# --- HelmRepository type oci + .spec.chart
sk_tenant team-o
kubectl apply -f - >/dev/null <<YAML || sk_fail "applying the OCI HelmRepository"
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: oci
  namespace: team-o
spec:
  type: oci
  url: oci://$O/charts
  insecure: true
  interval: 1m
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: web
  namespace: team-o
spec:
  interval: 10m
  chart:
    spec:
      chart: demo
      version: ">=0.1.0"
      interval: 1s
      sourceRef:
        kind: HelmRepository
        name: oci
YAML
sk_wait_ready team-o web 60 >/dev/null
wait_rev team-o web 0.1.0 5
sum=$(sha256sum "$SK_DIR/pkg/demo-0.1.0.tgz" | cut -d' ' -f1)
c=$(kubectl get helmchart team-o-web -n team-o -o jsonpath='{.status.conditions[?(@.type=="Ready")].reason}|{.status.artifact.revision}|{.status.artifact.digest}')
[ "$c" = "ChartPullSucceeded|0.1.0|sha256:$sum" ] || sk_fail "HelmChart status: '$c' (package sha256:$sum)"
[ -z "$(kubectl get helmrepository oci -n team-o -o jsonpath='{.status.artifact}')" ] || sk_fail "an OCI HelmRepository got an artifact"
helm list -n team-o | e2e_has "demo-0.1.0" || sk_fail "helm list does not show demo-0.1.0"
reg_push "$O" demo 0.2.0 >/dev/null
wait_rev team-o web 0.2.0 30
sk_wait_ready team-o web 30 >/dev/null
helm history web -n team-o | e2e_has "demo-0.2.0" || sk_fail "helm history has no demo-0.2.0"

# --- OCIRepository + .spec.chartRef
kubectl apply -f - >/dev/null <<YAML || sk_fail "applying the OCIRepository"
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: app
  namespace: team-o
spec:
  url: oci://$O/charts/demo
  insecure: true
  interval: 1s
  ref:
    semver: ">=0.1.0"
  layerSelector:
    mediaType: application/vnd.cncf.helm.chart.content.v1.tar+gzip
    operation: copy
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: app
  namespace: team-o
spec:
  interval: 10m
  chartRef:
    kind: OCIRepository
    name: app
YAML
md=$(helm push "$SK_DIR/pkg/demo-0.2.0.tgz" "oci://$O/charts" --plain-http 2>&1 | sed -n 's/^Digest: //p')
sk_wait_ready team-o app 60 >/dev/null
wait_rev team-o app "0.2.0+${md:7:12}" 5
r=$(kubectl get ocirepository app -n team-o -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}|{.status.artifact.revision}|{.status.artifact.digest}|{.status.observedLayerSelector.operation}')
sum=$(sha256sum "$SK_DIR/pkg/demo-0.2.0.tgz" | cut -d' ' -f1)
[ "$r" = "True|0.2.0@$md|sha256:$sum|copy" ] || sk_fail "OCIRepository status: '$r' (want 0.2.0@$md, sha256:$sum)"
[ "$(kubectl get helmrelease app -n team-o -o jsonpath='{.status.lastAttemptedRevisionDigest}')" = "$md" ] ||
	sk_fail "lastAttemptedRevisionDigest is not $md"
helm list -n team-o | e2e_has "demo-0.2.0+${md:7:12}" || sk_fail "helm list does not show demo-0.2.0+${md:7:12}"
[ "$(kubectl get helmrelease app -n team-o -o jsonpath='{.status.history[0].ociDigest}')" = "$md" ] ||
	sk_fail "history[0].ociDigest is not $md: $(kubectl get helmrelease app -n team-o -o jsonpath='{.status.history}')"
md3=$(reg_push "$O" demo 0.3.0)
wait_rev team-o app "0.3.0+${md3:7:12}" 30
sk_wait_ready team-o app 30 >/dev/null
# each revision keeps the digest of the chart it was made from
[ "$(kubectl get helmrelease app -n team-o -o jsonpath='{.status.history[0].ociDigest} {.status.history[1].ociDigest}')" = "$md3 $md" ] ||
	sk_fail "history ociDigest: $(kubectl get helmrelease app -n team-o -o jsonpath='{.status.history}')"

# --- the htpasswd registry: docker config secret, username/password secret, wrong password
helm registry login "$A" --username alice --password s3cret --plain-http >/dev/null 2>&1 || sk_fail "helm registry login"
mda=$(reg_push "$A" demo 0.1.0)
helm registry logout "$A" >/dev/null 2>&1
# auth_tenant NS PASSWORD
auth_tenant() {
	sk_tenant "$1"
	kubectl create secret docker-registry regcred -n "$1" --docker-server="$A" --docker-username=alice \
		--docker-password="$2" >/dev/null || sk_fail "kubectl create secret docker-registry"
	kubectl create secret generic basic -n "$1" --from-literal=username=alice --from-literal=password="$2" >/dev/null
	kubectl apply -f - >/dev/null <<YAML || sk_fail "applying the sources of $1"
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: app
  namespace: $1
spec:
  url: oci://$A/charts/demo
  insecure: true
  interval: 1m
  ref:
    tag: 0.1.0
  secretRef:
    name: regcred
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: app
  namespace: $1
spec:
  interval: 10m
  chartRef:
    kind: OCIRepository
    name: app
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: oci
  namespace: $1
spec:
  type: oci
  url: oci://$A/charts
  insecure: true
  secretRef:
    name: basic
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: web
  namespace: $1
spec:
  interval: 10m
  chart:
    spec:
      chart: demo
      version: 0.1.0
      sourceRef:
        kind: HelmRepository
        name: oci
YAML
}
auth_tenant team-a s3cret
auth_tenant team-x wrong
tport=$(sk_free_port)
python3 "$BH_SRCDIR/tests/e2e/sources/token_registry.py" "$tport" "$O" alice:s3cret >"$SK_DIR/token.log" 2>&1 &
REG_PIDS="$REG_PIDS $!"
e2e_retry 20 sh -c "curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$tport/v2/ | grep -q 401" || sk_fail "token registry did not start"
kubectl create secret docker-registry tokcred -n team-a --docker-server="127.0.0.1:$tport" --docker-username=alice \
	--docker-password=s3cret >/dev/null || sk_fail "kubectl create secret docker-registry tokcred"
kubectl apply -f - >/dev/null <<YAML || sk_fail "applying OCIRepository tok"
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: tok
  namespace: team-a
spec:
  url: oci://127.0.0.1:$tport/charts/demo
  insecure: true
  interval: 1m
  ref:
    tag: 0.3.0
  secretRef:
    name: tokcred
YAML
sk_wait_ready team-a app 60 >/dev/null
sk_wait_ready team-a web 60 >/dev/null
wait_rev team-a app "0.1.0+${mda:7:12}" 5
e2e_retry 60 sh -c "kubectl get ocirepository app -n team-x -o jsonpath='{.status.conditions[0].reason} {.status.conditions[0].message}' | grep -q 'AuthenticationFailed.*401 Unauthorized'" \
	|| sk_fail "team-x: OCIRepository without AuthenticationFailed: $(kubectl get ocirepository app -n team-x -o jsonpath='{.status.conditions}')"
e2e_retry 60 sh -c "kubectl get helmchart team-x-web -n team-x -o jsonpath='{.status.conditions[0].reason}' | grep -q AuthenticationFailed" \
	|| sk_fail "team-x: HelmChart without AuthenticationFailed: $(kubectl get helmchart team-x-web -n team-x -o jsonpath='{.status.conditions}')"
sk_ready team-x app | e2e_has False || sk_fail "team-x/app is not Ready=False"
e2e_retry 60 sh -c "kubectl get ocirepository tok -n team-a -o jsonpath='{.status.artifact.revision}' | grep -q '^0.3.0@$md3\$'" \
	|| sk_fail "token auth: OCIRepository tok: $(kubectl get ocirepository tok -n team-a -o jsonpath='{.status}')"

# --- a registry that pages its tag lists (one tag a page, Link: rel="next"):
# the semver choice sees every page (0.3.0 is on the third)
pport=$(sk_free_port)
python3 "$BH_SRCDIR/tests/e2e/sources/token_registry.py" "$pport" "$O" - 1 >"$SK_DIR/paged.log" 2>&1 &
REG_PIDS="$REG_PIDS $!"
e2e_retry 20 curl -sf -o /dev/null "http://127.0.0.1:$pport/v2/" || sk_fail "paging registry front did not start"
kubectl apply -f - >/dev/null <<YAML || sk_fail "applying OCIRepository paged"
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: paged
  namespace: team-o
spec:
  url: oci://127.0.0.1:$pport/charts/demo
  insecure: true
  interval: 1m
  ref:
    semver: ">=0.1.0"
YAML
e2e_retry 60 sh -c "kubectl get ocirepository paged -n team-o -o jsonpath='{.status.artifact.revision}' | grep -q '^0.3.0@$md3\$'" \
	|| sk_fail "paged tag list: OCIRepository paged: $(kubectl get ocirepository paged -n team-o -o jsonpath='{.status}')"

# --- a layer altered in the registry's storage: refused by its digest
mdb=$(reg_push "$O" bad 0.1.0)
sum=$(sha256sum "$SK_DIR/pkg/bad-0.1.0.tgz" | cut -d' ' -f1)
blob="$SK_DIR/reg-open/data/docker/registry/v2/blobs/sha256/${sum:0:2}/$sum/data"
[ -f "$blob" ] || sk_fail "no blob file $blob"
printf 'tampered' | dd of="$blob" bs=1 seek=100 conv=notrunc 2>/dev/null
kubectl apply -f - >/dev/null <<YAML || sk_fail "applying OCIRepository bad"
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: bad
  namespace: team-o
spec:
  url: oci://$O/charts/bad
  insecure: true
  interval: 1m
  ref:
    digest: $mdb
YAML
e2e_retry 60 sh -c "kubectl get ocirepository bad -n team-o -o jsonpath='{.status.conditions[0].message}' | grep -q 'does not match its descriptor'" \
	|| sk_fail "tampered layer: $(kubectl get ocirepository bad -n team-o -o jsonpath='{.status.conditions}')"
sk_ready team-o app | e2e_has True || sk_fail "team-o/app is no longer Ready"
echo "PASS"
