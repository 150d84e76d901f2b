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
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 "$port" --directory "$repo" >/dev/null 2>&1 &
PIDS="$PIDS $!"
src_make_tls "$T/tls" || e2e_fail "openssl"
sport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 "$BH_SRCDIR/tests/e2e/sources/https_repo.py" "$sport" "$repo" "$T/tls/srv.crt" "$T/tls/srv.key" alice:s3cret >/dev/null 2>&1 &
PIDS="$PIDS $!"
R=http://127.0.0.1:$port S=https://127.0.0.1:$sport
e2e_retry 20 curl -sf -o /dev/null "$R/index.yaml" || e2e_fail "HTTP repository did not start"
e2e_retry 20 curl -sf --cacert "$T/tls/ca.crt" -u alice:s3cret -o /dev/null "$S/index.yaml" || e2e_fail "HTTPS repository did not start"

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
