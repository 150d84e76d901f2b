#!/usr/bin/env bash
# tests/e2e/sources_oci_fields.sh — the OCIRepository fields the built-in
# source took over from "not yet supported", against Debian's
# docker-registry with charts pushed by the real `helm push`; bulkheadd
# under its own ServiceAccount (deploy/ RBAC):
#  - .spec.ref.semverFilter: only the tags the Go regexp matches
#    (unanchored) are weighed by the semver range (0.1.0 and 0.2.0, not the
#    newer 1.0.0); a regexp Go refuses is Ready=False naming the field;
#  - .spec.serviceAccountName: the ServiceAccount's imagePullSecrets log in
#    to an htpasswd registry (401 without them) and merge with secretRef's
#    config, whose entry for the same registry comes first (as
#    source-controller's keychain: secretRef, then the ServiceAccount's
#    secrets; the first entry for the registry wins); a missing
#    ServiceAccount is AuthenticationFailed;
#  - .spec.proxySecretRef: every request goes through the proxy the Secret
#    names (tests/e2e/sources/count_proxy.py, with basic auth): the source
#    URL's host does not resolve, only the proxy knows it; the proxy's log
#    counts the requests; a wrong proxy password fails; a registry over
#    https (certSecretRef's CA) is reached through a CONNECT tunnel.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/sources/registry.sh"
. "$BH_SRCDIR/tests/e2e/sources/tls.sh"
reg_setup_builtin

# oci NS NAME URL REF-AND-MORE-SPEC-LINES (4-space indented under spec:)
oci() {
	kubectl apply -f - >/dev/null <<YAML || sk_fail "applying OCIRepository $1/$2"
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: $2
  namespace: $1
spec:
  url: $3
  insecure: true
  interval: 1m
$4
YAML
}
# want NS NAME REGEX: until "<Ready status>|<reason>|<revision>|<message>" matches (60s)
want() {
	local q='{.status.conditions[?(@.type=="Ready")].status}|{.status.conditions[?(@.type=="Ready")].reason}|{.status.artifact.revision}|{.status.conditions[?(@.type=="Ready")].message}'
	local end=$((SECONDS + 60)) have
	while :; do
		have=$(kubectl get ocirepository "$2" -n "$1" -o jsonpath="$q" 2>/dev/null)
		echo "$have" | grep -qE -- "$3" && break
		[ $SECONDS -ge $end ] && sk_fail "OCIRepository $1/$2: want /$3/, have '$have'"
		sleep 0.3
	done
	echo "OCIRepository $1/$2: $(echo "$have" | cut -c1-240)"
}
mkdir -p "$SK_DIR/pkg"
sk_tenant team-f

# --- .spec.ref.semverFilter
m1=$(reg_push "$O" demo 0.1.0)
m2=$(reg_push "$O" demo 0.2.0)
reg_push "$O" demo 1.0.0 >/dev/null
oci team-f all "oci://$O/charts/demo" '  ref:
    semver: ">=0.1.0"'
oci team-f zero "oci://$O/charts/demo" '  ref:
    semver: ">=0.1.0"
    semverFilter: "^0\\."'
oci team-f two "oci://$O/charts/demo" '  ref:
    semver: ">=0.0.1"
    semverFilter: "\\.2\\."'
oci team-f badre "oci://$O/charts/demo" '  ref:
    semver: ">=0.1.0"
    semverFilter: "(0\\.1"'
want team-f all '^True\|Succeeded\|1\.0\.0@sha256:'
want team-f zero "^True\|Succeeded\|0\.2\.0@$m2\|"
want team-f two "^True\|Succeeded\|0\.2\.0@$m2\|"
want team-f badre '^False\|.*\|\|.*\.spec\.ref\.semverFilter: error parsing regexp: missing closing \): `\(0\\\.1`'
# a new filter (a new generation) moves the artifact back
kubectl patch ocirepository zero -n team-f --type=merge -p '{"spec":{"ref":{"semverFilter":"^0\\.1\\."}}}' >/dev/null ||
	sk_fail "patching semverFilter"
want team-f zero "^True\|Succeeded\|0\.1\.0@$m1\|"

# --- .spec.serviceAccountName: imagePullSecrets of the ServiceAccount
helm registry login "$A" --username alice --password s3cret --plain-http >/dev/null 2>&1 || sk_fail "helm registry login"
ma=$(reg_push "$A" demo 0.1.0)
helm registry logout "$A" >/dev/null 2>&1
kubectl create secret docker-registry regcred -n team-f --docker-server="$A" --docker-username=alice \
	--docker-password=s3cret >/dev/null || sk_fail "creating regcred"
kubectl create secret docker-registry stale -n team-f --docker-server="$A" --docker-username=alice \
	--docker-password=wrong >/dev/null || sk_fail "creating stale"
kubectl create secret docker-registry elsewhere -n team-f --docker-server=registry.bulkhead.invalid \
	--docker-username=carol --docker-password=x >/dev/null || sk_fail "creating elsewhere"
kubectl create secret generic notdocker -n team-f --from-literal=username=bob --from-literal=password=x >/dev/null ||
	sk_fail "creating notdocker"
kubectl apply -f - >/dev/null <<YAML || sk_fail "applying ServiceAccount puller"
apiVersion: v1
kind: ServiceAccount
metadata:
  name: puller
  namespace: team-f
imagePullSecrets:
- name: notdocker
- name: regcred
YAML
oci team-f anon "oci://$A/charts/demo" '  ref:
    tag: 0.1.0'
oci team-f sa "oci://$A/charts/demo" '  ref:
    tag: 0.1.0
  serviceAccountName: puller'
oci team-f merged "oci://$A/charts/demo" '  ref:
    tag: 0.1.0
  secretRef:
    name: elsewhere
  serviceAccountName: puller'
oci team-f first "oci://$A/charts/demo" '  ref:
    tag: 0.1.0
  secretRef:
    name: stale
  serviceAccountName: puller'
oci team-f nosa "oci://$A/charts/demo" '  ref:
    tag: 0.1.0
  serviceAccountName: nobody'
want team-f anon '^False\|AuthenticationFailed\|\|.*401 Unauthorized'
want team-f sa "^True\|Succeeded\|0\.1\.0@$ma\|"
want team-f merged "^True\|Succeeded\|0\.1\.0@$ma\|"
want team-f first '^False\|AuthenticationFailed\|\|.*401 Unauthorized'
want team-f nosa "^False\|AuthenticationFailed\|\|failed to get credential: serviceaccount 'team-f/nobody' not found"

# --- .spec.proxySecretRef: a host only the proxy knows
pport=$(sk_free_port)
python3 "$BH_SRCDIR/tests/e2e/sources/count_proxy.py" "$pport" carol:pr0xy "registry.bulkhead.invalid:5000=$O" \
	>"$SK_DIR/proxy.log" 2>&1 &
REG_PIDS="$REG_PIDS $!"
e2e_retry 20 sh -c "curl -s -o /dev/null -w '%{http_code}' -x http://127.0.0.1:$pport http://registry.bulkhead.invalid:5000/v2/ | grep -q 407" ||
	sk_fail "the proxy did not start"
kubectl create secret generic proxy -n team-f --from-literal=address="http://127.0.0.1:$pport" \
	--from-literal=username=carol --from-literal=password=pr0xy >/dev/null || sk_fail "creating the proxy secret"
kubectl create secret generic badproxy -n team-f --from-literal=address="http://127.0.0.1:$pport" \
	--from-literal=username=carol --from-literal=password=nope >/dev/null || sk_fail "creating badproxy"
kubectl create secret generic socks -n team-f --from-literal=address="socks5://127.0.0.1:$pport" >/dev/null ||
	sk_fail "creating socks"
oci team-f direct "oci://registry.bulkhead.invalid:5000/charts/demo" '  ref:
    tag: 0.2.0'
oci team-f proxied "oci://registry.bulkhead.invalid:5000/charts/demo" '  ref:
    semver: "<1.0.0"
  proxySecretRef:
    name: proxy'
oci team-f badpass "oci://registry.bulkhead.invalid:5000/charts/demo" '  ref:
    tag: 0.2.0
  proxySecretRef:
    name: badproxy'
oci team-f socks "oci://registry.bulkhead.invalid:5000/charts/demo" '  ref:
    tag: 0.2.0
  proxySecretRef:
    name: socks'
want team-f direct '^False\|OCIArtifactPullFailed\|\|'
want team-f proxied "^True\|Succeeded\|0\.2\.0@$m2\|"
want team-f badpass '^False\|OCIArtifactPullFailed\|\|.*407'
want team-f socks "^False\|AuthenticationFailed\|\|failed to get proxy address: secret 'team-f/socks': proxy URL must use http or https scheme, got 'socks5'"
# https through the proxy: a CONNECT tunnel (the same storage served over TLS)
src_make_tls "$SK_DIR/tls" || sk_fail "openssl"
mkdir -p "$SK_DIR/reg-tls" && ln -s "$SK_DIR/reg-open/data" "$SK_DIR/reg-tls/data"
reg_start "$SK_DIR/reg-tls" "" "$SK_DIR/tls" || sk_fail "docker-registry (TLS) did not start"
REG_PIDS="$REG_PIDS $REG_PID"; T=127.0.0.1:$REG_PORT
kubectl create secret generic regca -n team-f --from-file=ca.crt="$SK_DIR/tls/ca.crt" >/dev/null || sk_fail "creating regca"
kubectl apply -f - >/dev/null <<YAML || sk_fail "applying OCIRepository tunnel"
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: tunnel
  namespace: team-f
spec:
  url: oci://$T/charts/demo
  interval: 1m
  ref:
    tag: 0.2.0
  certSecretRef:
    name: regca
  proxySecretRef:
    name: proxy
YAML
want team-f tunnel "^True\|Succeeded\|0\.2\.0@$m2\|"
grep -q "^RELAY CONNECT $T\$" "$SK_DIR/proxy.log" || sk_fail "no CONNECT $T through the proxy: $(cat "$SK_DIR/proxy.log")"
# the tag list, the manifest and the layer all came through the proxy
for what in "/v2/charts/demo/tags/list" "/v2/charts/demo/manifests/0.2.0" "/v2/charts/demo/blobs/sha256:"; do
	grep -q "^RELAY GET http://registry.bulkhead.invalid:5000$what" "$SK_DIR/proxy.log" ||
		sk_fail "the proxy relayed no GET $what: $(cat "$SK_DIR/proxy.log")"
done
echo "proxy relayed $(grep -c '^RELAY' "$SK_DIR/proxy.log") requests, refused $(grep -c '^DENIED' "$SK_DIR/proxy.log")"
grep -q '^DENIED' "$SK_DIR/proxy.log" || sk_fail "the wrong proxy password was not refused by the proxy"
echo "PASS"
