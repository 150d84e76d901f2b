#!/usr/bin/env bash
# tests/e2e/sources_oci_template.sh — `bulkhead template oci://...` prints
# the same bytes (stdout, stderr with Helm's "Pulled:"/"Digest:" lines,
# exit status) as `helm template` against a real registry (Debian's
# docker-registry) holding charts pushed by the real `helm push`: the
# highest version, an exact --version, a constraint, a tag in the
# reference, a prerelease only when asked; with htpasswd basic auth
# (--username/--password, or what `helm registry login` saved: the
# registry config) and behind a Bearer token service
# (sources/token_registry.py: WWW-Authenticate challenge, token exchange);
# a tag list in pages (Link: rel="next"); and failures
# (wrong password, no credentials, unknown chart, a version that no tag
# matches) fail in both.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${BH_BUILDDIR:=$BH_SRCDIR/build}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/sources/registry.sh"
BH=$BH_BUILDDIR/cli/bulkhead
[ -x "$BH" ] || e2e_skip "bulkhead not built"
e2e_need_tool helm python3 curl docker-registry htpasswd
T=$(mktemp -d)
PIDS=
trap 'kill $PIDS 2>/dev/null; rm -rf "$T"' EXIT
export HELM_CACHE_HOME=$T/helm/cache HELM_CONFIG_HOME=$T/helm/config HELM_DATA_HOME=$T/helm/data
export HELM_REGISTRY_CONFIG=$T/helm/registry.json
reg_start "$T/open" || e2e_fail "docker-registry did not start"
PIDS="$PIDS $REG_PID"; O=127.0.0.1:$REG_PORT
reg_start "$T/auth" alice:s3cret || e2e_fail "docker-registry (htpasswd) did not start"
PIDS="$PIDS $REG_PID"; A=127.0.0.1:$REG_PORT

# demo 0.1.0, 0.2.0, 0.3.0-rc.1, webapp 0.1.0, pushed by helm
mkdir -p "$T/pkg"
for v in 0.1.0 0.2.0 0.3.0-rc.1; do
	cp -r "$BH_SRCDIR/tests/e2e/skeleton/demo" "$T/demo-$v"
	sed -i "s/^version:.*/version: $v/" "$T/demo-$v/Chart.yaml"
	helm package "$T/demo-$v" -d "$T/pkg" >/dev/null || e2e_fail "helm package demo $v"
done
helm package "$BH_SRCDIR/tests/e2e/skeleton/webapp" -d "$T/pkg" >/dev/null || e2e_fail "helm package webapp"
for f in "$T"/pkg/*.tgz; do
	helm push "$f" "oci://$O/charts" --plain-http >/dev/null 2>&1 || e2e_fail "helm push $f"
done
helm registry login "$A" --username alice --password s3cret --plain-http >/dev/null 2>&1 || e2e_fail "helm registry login"
helm push "$T/pkg/demo-0.2.0.tgz" "oci://$A/charts" --plain-http >/dev/null 2>&1 || e2e_fail "helm push (auth)"
helm registry logout "$A" >/dev/null 2>&1
tport=$(e2e_free_port)
python3 "$BH_SRCDIR/tests/e2e/sources/token_registry.py" "$tport" "$O" alice:s3cret >/dev/null 2>&1 &
PIDS="$PIDS $!"; K=127.0.0.1:$tport
e2e_retry 20 sh -c "curl -s -o /dev/null -w '%{http_code}' http://$K/v2/ | grep -q 401" || e2e_fail "token registry did not start"
# the same registry paging its tag lists one tag a page (Link headers)
pport=$(e2e_free_port)
python3 "$BH_SRCDIR/tests/e2e/sources/token_registry.py" "$pport" "$O" - 1 >/dev/null 2>&1 &
PIDS="$PIDS $!"; P=127.0.0.1:$pport
e2e_retry 20 curl -sf -o /dev/null "http://$P/v2/" || e2e_fail "paging registry front did not start"
curl -sf -D - -o /dev/null "http://$P/v2/charts/demo/tags/list" | e2e_has 'rel="next"' || e2e_fail "the tag list is not paged"

n=0
same() {
	local h b hs bs
	h=$(helm template "$@" 2>"$T/h.err"); hs=$?
	b=$("$BH" template "$@" 2>"$T/b.err"); bs=$?
	n=$((n + 1))
	[ "$h" = "$b" ] || { diff <(echo "$h") <(echo "$b") | head; e2e_fail "stdout differs: template $*"; }
	[ $hs = $bs ] || e2e_fail "exit status $hs (helm) vs $bs: template $*"
	if [ $hs = 0 ]; then
		cmp -s "$T/h.err" "$T/b.err" || { diff "$T/h.err" "$T/b.err"; e2e_fail "stderr differs: template $*"; }
	else
		[ -s "$T/b.err" ] || e2e_fail "no error message: template $*"
	fi
}
same web "oci://$O/charts/demo" --plain-http
same web "oci://$O/charts/demo" --plain-http --version 0.1.0
same web "oci://$O/charts/demo" --plain-http --version '>=0.1.0 <0.2.0'
same web "oci://$O/charts/demo" --plain-http --version '>=0.3.0-0'
same web "oci://$O/charts/demo:0.2.0" --plain-http
same web "oci://$O/charts/webapp" --plain-http --set replicaCount=3 -n team
same web "oci://$A/charts/demo" --plain-http --username alice --password s3cret
same web "oci://$A/charts/demo" --plain-http --username alice --password wrong
same web "oci://$A/charts/demo" --plain-http
# credentials `helm registry login` saved (HELM_REGISTRY_CONFIG, then --registry-config)
helm registry login "$A" --username alice --password s3cret --plain-http >/dev/null 2>&1 || e2e_fail "helm registry login"
same web "oci://$A/charts/demo" --plain-http
mv "$HELM_REGISTRY_CONFIG" "$T/saved.json"
same web "oci://$A/charts/demo" --plain-http --registry-config "$T/saved.json"
"$BH" template web "oci://$A/charts/demo" --plain-http --registry-config "$T/saved.json" 2>&1 >/dev/null |
	e2e_has "Pulled: $A/charts/demo:0.2.0" || e2e_fail "the saved credentials were not used"
same web "oci://$A/charts/demo" --plain-http --registry-config "$T/none.json"
same web "oci://$A/charts/demo" --plain-http --registry-config "$T/saved.json" --username alice --password wrong
same web "oci://$K/charts/demo" --plain-http --username alice --password s3cret --version 0.1.0
same web "oci://$K/charts/webapp" --plain-http --username alice --password s3cret
same web "oci://$K/charts/demo" --plain-http --username alice --password wrong
same web "oci://$K/charts/demo" --plain-http
same web "oci://$O/charts/nope" --plain-http
same web "oci://$O/charts/demo" --plain-http --version 9.9.9
same web "oci://$O/charts/demo" --plain-http --version '>=5'
# paged tag lists: 0.2.0 is on the second page, 0.3.0-rc.1 on the third
same web "oci://$P/charts/demo" --plain-http
same web "oci://$P/charts/demo" --plain-http --version '>=0.3.0-0'
"$BH" template web "oci://$P/charts/demo" --plain-http 2>&1 >/dev/null | e2e_has "Pulled: $P/charts/demo:0.2.0" ||
	e2e_fail "not the highest stable version of a paged tag list"
# the pulled chart is the one helm pushed: 0.2.0 is the highest stable
"$BH" template web "oci://$O/charts/demo" --plain-http 2>&1 >/dev/null | e2e_has "Pulled: $O/charts/demo:0.2.0" ||
	e2e_fail "not the highest stable version"
echo "PASS: $n oci:// template cases identical to helm template"
