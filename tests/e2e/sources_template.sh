#!/usr/bin/env bash
# tests/e2e/sources_template.sh — `bulkhead template` with remote charts
# prints the same bytes (stdout, stderr, exit status) as `helm template`
# against the same loopback servers: --repo (latest, exact --version, a
# constraint with Helm's warning, unknown chart or version, an unreachable
# repository), a chart URL, and HTTPS with --username/--password,
# --ca-file, --insecure-skip-tls-verify and a wrong password.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${BH_BUILDDIR:=$BH_SRCDIR/build}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/sources/tls.sh"
BH=$BH_BUILDDIR/cli/bulkhead
[ -x "$BH" ] || e2e_skip "bulkhead not built"
e2e_need_tool helm python3 openssl curl
T=$(mktemp -d)
PIDS=
trap 'kill $PIDS 2>/dev/null; rm -rf "$T"' EXIT
export HELM_CACHE_HOME=$T/helm/cache HELM_CONFIG_HOME=$T/helm/config HELM_DATA_HOME=$T/helm/data
repo=$T/repo
mkdir -p "$repo"
for c in demo webapp; do helm package "$BH_SRCDIR/tests/e2e/skeleton/$c" -d "$repo" >/dev/null || e2e_fail "helm package $c"; done
helm repo index "$repo" >/dev/null || e2e_fail "helm repo index"
src_serve_repo "$repo" "$T/tls"

n=0
same() {
	local h b hs bs
	h=$(helm template "$@" 2>"$T/h.err"); hs=$?
	b=$("$BH" template "$@" 2>"$T/b.err"); bs=$?
	n=$((n + 1))
	[ "$h" = "$b" ] || { diff <(echo "$h") <(echo "$b") | head; e2e_fail "stdout differs: template $*"; }
	cmp -s "$T/h.err" "$T/b.err" || { diff "$T/h.err" "$T/b.err"; e2e_fail "stderr differs: template $*"; }
	[ $hs = $bs ] || e2e_fail "exit status $hs (helm) vs $bs: template $*"
}
same web demo --repo "$R"
same web webapp --repo "$R" --set replicaCount=3 -n team
same web demo --repo "$R/" --version 0.1.0
same web demo --repo "$R" --version ">=0.1.0"
same web nope --repo "$R"
same web demo --repo "$R" --version 9.9.9
same web demo --repo "$R/missing"
same web "$R/webapp-0.1.0.tgz"
same web demo --repo "$S" --username alice --password s3cret --ca-file "$T/tls/ca.crt"
same web webapp --repo "$S" --username alice --password s3cret --insecure-skip-tls-verify
same web demo --repo "$S" --username alice --password wrong --ca-file "$T/tls/ca.crt"
echo "PASS: $n remote template cases byte-identical to helm template"
