#!/usr/bin/env bash
# tests/e2e/sources_hostile.sh — hostile Helm repositories are contained by
# bulkhead-fetcher (--sources=builtin): a never-ending index, an index
# nested 200000 deep, an index of null entries, a redirect to another host
# (the credentials must not follow), a slow-loris server, a package whose
# digest is not the index's, a lying Content-Length, and a repository URL
# that is the Kubernetes API server. Each ends with a clear reason on that
# tenant's source and HelmRelease only; a good tenant installs meanwhile.
# (Another host here is another host:port; the fetcher keeps credentials to
# the repository's host and port.)
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
sk_setup --sources builtin

repo="$SK_DIR/repo"
mkdir -p "$repo"
helm package "$BH_SRCDIR/tests/e2e/skeleton/demo" -d "$repo" >/dev/null || sk_fail "helm package"
helm repo index "$repo" >/dev/null || sk_fail "helm repo index"
port=$(sk_free_port)
other=$(sk_free_port)
python3 "$BH_SRCDIR/tests/e2e/sources/hostile_repo.py" "$port" "$repo" "$SK_DIR/hostile.log" "$other" >"$SK_DIR/hostile-http.log" 2>&1 &
HOSTILE_PID=$!
python3 "$BH_SRCDIR/tests/e2e/sources/hostile_repo.py" "$other" "$repo" "$SK_DIR/hostile.log" >>"$SK_DIR/hostile-http.log" 2>&1 &
OTHER_PID=$!
trap 'st=$?; kill $HOSTILE_PID $OTHER_PID 2>/dev/null; (exit $st); sk_cleanup' EXIT
BASE="http://127.0.0.1:$port"
e2e_retry 20 curl -sf -o /dev/null "$BASE/good/index.yaml" || sk_fail "hostile repository server did not start"

# tenant KIND [URL]: namespace t-KIND with HelmRepository "repo" and HelmRelease "app"
tenant() {
	local kind=$1 url=${2:-$BASE/$1}
	sk_tenant "t-$kind"
	kubectl create secret generic creds -n "t-$kind" --from-literal=username=alice --from-literal=password=s3cret >/dev/null
	kubectl apply -f - >/dev/null <<YAML || sk_fail "applying tenant $kind"
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: repo
  namespace: t-$kind
spec:
  url: $url
  interval: 1m
  timeout: 40s
  secretRef:
    name: creds
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: app
  namespace: t-$kind
spec:
  interval: 10m
  chart:
    spec:
      chart: demo
      sourceRef:
        kind: HelmRepository
        name: repo
YAML
}

# expect KIND OBJECT REASON TEXT: the Ready condition of OBJECT (helmrepository
# repo or helmchart t-KIND-app) in t-KIND is False with REASON and TEXT
expect() {
	local kind=$1 obj=$2 reason=$3 text=$4 end=$((SECONDS + 60)) r
	while :; do
		r=$(kubectl get "$obj" -n "t-$kind" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}|{.status.conditions[?(@.type=="Ready")].reason}|{.status.conditions[?(@.type=="Ready")].message}' 2>/dev/null)
		case "$r" in "False|$reason|"*"$text"*) echo "$kind: $r"; return 0 ;; esac
		[ $SECONDS -ge $end ] && sk_fail "$kind: $obj Ready is '$r', want False|$reason|...$text..."
		sleep 0.5
	done
}

for k in huge deep nulls redirect slow digest lying good; do tenant "$k"; done
tenant apiserver "$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}')"

sk_wait_ready t-good app 60 >/dev/null
expect huge helmrepository/repo IndexationFailed "the response is larger than the limit of 52428800 bytes"
expect deep helmrepository/repo IndexationFailed "yaml: document nested deeper than 64 levels"
expect nulls helmchart/t-nulls-app ChartPullFailed "no chart version found"
expect redirect helmrepository/repo AuthenticationFailed "401 Unauthorized"
expect digest helmchart/t-digest-app ChartPullFailed "does not match the index's sha256:deadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeef"
expect lying helmrepository/repo IndexationFailed "transfer closed with"
expect apiserver helmrepository/repo IndexationFailed "refusing to connect to the Kubernetes API server's address"
expect slow helmrepository/repo IndexationFailed "Operation too slow"

# the credentials went to the repository's host, never to the other one
grep -q "^redirect index.yaml auth=yes" "$SK_DIR/hostile.log" || sk_fail "the repository itself got no credentials"
grep -q "^capture index.yaml auth=no" "$SK_DIR/hostile.log" || sk_fail "the redirect was not followed"
grep -q "^capture .*auth=yes" "$SK_DIR/hostile.log" && sk_fail "credentials were sent to another host after a redirect"
# each failure stays on its tenant: the HelmReleases wait for their source
for k in huge deep nulls redirect digest lying apiserver; do
	r=$(sk_ready "t-$k" app)
	case "$r" in False\|SourceNotReady\|*) ;; *) sk_fail "t-$k/app: '$r'" ;; esac
	[ -z "$(kubectl get secrets -n "t-$k" -l owner=helm -o name)" ] || sk_fail "t-$k: a release was stored"
done
sk_wait_ready t-good app 5 >/dev/null
kill -0 "$BULKHEADD_PID" || sk_fail "bulkheadd died"
echo "PASS"
