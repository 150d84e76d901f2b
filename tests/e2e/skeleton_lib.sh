# tests/e2e/skeleton_lib.sh — helpers for the walking-skeleton e2e tests and
# the demo (source it after tests/e2e/lib.sh):
#   sk_setup [BULKHEADD ARGS...]  kubesim + CRDs + chart server + bulkheadd
#   sk_publish CHARTDIR NS NAME   package the chart, serve it, create HelmChart
#                                 NS/NAME with .status.artifact as
#                                 source-controller would fill it
#   sk_apply_hr NS NAME HELMCHART [EXTRA-SPEC-YAML]
#   sk_wait_ready NS NAME SECS    until Ready=True (fails with the status)
#   sk_wait_cond NS NAME STATUS SECS   until Ready=STATUS
#   sk_ready NS NAME              prints "status|reason|message" of Ready
# Exports SK_DIR (charts, logs), SK_CHART_URL, BULKHEADD_PID, SK_AUDIT.
: "${BH_BUILDDIR:=$BH_SRCDIR/build}"
SK_BULKHEADD=${SK_BULKHEADD:-$BH_BUILDDIR/supervisor/bulkheadd}
SK_WORKER=${SK_WORKER:-$BH_BUILDDIR/worker/bulkhead-worker}
BULKHEADD_PID=
SK_HTTP_PID=

sk_cleanup() {
	local rc=$?
	[ -n "$BULKHEADD_PID" ] && kill -TERM "$BULKHEADD_PID" 2>/dev/null && { wait "$BULKHEADD_PID" 2>/dev/null || true; }
	[ -n "$SK_HTTP_PID" ] && kill -TERM "$SK_HTTP_PID" 2>/dev/null && { wait "$SK_HTTP_PID" 2>/dev/null || true; }
	BULKHEADD_PID= SK_HTTP_PID=
	e2e_cleanup
	exit $rc
}
trap sk_cleanup EXIT

sk_fail() {
	echo "FAIL: $*" >&2
	if [ -f "${SK_DIR:-/nonexistent}/bulkheadd.log" ]; then
		echo "--- last lines of bulkheadd.log:" >&2
		tail -n 30 "$SK_DIR/bulkheadd.log" >&2
	fi
	e2e_fail "$*"
}

sk_free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

sk_start_http() {
	local port
	port=$(sk_free_port)
	python3 -m http.server --bind 127.0.0.1 "$port" --directory "$SK_DIR/charts" >"$SK_DIR/http.log" 2>&1 &
	SK_HTTP_PID=$!
	SK_CHART_URL="http://127.0.0.1:$port"
	export SK_CHART_URL
	e2e_retry 60 curl -sf -o /dev/null "$SK_CHART_URL/" || sk_fail "chart server did not start"
}

sk_start_bulkheadd() {
	SK_AUDIT="$SK_DIR/audit.log"
	export SK_AUDIT
	"$SK_BULKHEADD" --kubeconfig "$KUBECONFIG" --audit-log "$SK_AUDIT" --worker-path "${SK_WORKER_PATH:-$SK_WORKER}" \
		--requeue-dependency 1s --log-level debug "$@" >>"$SK_DIR/bulkheadd.log" 2>&1 &
	BULKHEADD_PID=$!
	sleep 0.3
	kill -0 "$BULKHEADD_PID" 2>/dev/null || sk_fail "bulkheadd exited at startup"
}

sk_setup() {
	[ -x "$SK_BULKHEADD" ] || e2e_skip "$SK_BULKHEADD not built"
	[ -x "$SK_WORKER" ] || e2e_skip "$SK_WORKER not built"
	e2e_need_tool kubectl helm python3 curl
	SK_DIR="$E2E_TMP/skeleton"
	mkdir -p "$SK_DIR/charts"
	export SK_DIR
	kubesim_start
	kubectl apply -f "$BH_SRCDIR/deploy/crds/" >/dev/null || sk_fail "applying deploy/crds"
	sk_start_http
	sk_start_bulkheadd "$@"
}

# sk_publish CHARTDIR NS NAME [DIGEST-OVERRIDE]
sk_publish() {
	local dir=$1 tgz
	tgz=$(cd "$SK_DIR/charts" && helm package "$dir" | sed 's/.*: //')
	sk_publish_tgz "$tgz" "$2" "$3" "$(basename "$dir")" "$(sed -n 's/^version: *//p' "$dir/Chart.yaml" | tr -d '"')" "${4:-}"
}

# sk_publish_tgz ARCHIVE NS NAME CHART VERSION [DIGEST-OVERRIDE]: serve an
# archive made by any tool (copied to $SK_DIR/charts) as HelmChart NS/NAME
sk_publish_tgz() {
	local tgz=$1 ns=$2 name=$3 chart=$4 ver=$5 digest=${6:-} sum
	[ "$(dirname "$(realpath "$tgz")")" = "$(realpath "$SK_DIR/charts")" ] || cp "$tgz" "$SK_DIR/charts/" || sk_fail "copying $tgz"
	tgz=$(basename "$tgz")
	sum=$(sha256sum "$SK_DIR/charts/$tgz" | cut -d' ' -f1)
	[ -n "$digest" ] || digest="sha256:$sum"
	kubectl get ns "$ns" >/dev/null 2>&1 || kubectl create ns "$ns" >/dev/null
	# kubectl's client-side validation fetches OpenAPI documents; on a loaded
	# machine that fetch has failed once under kubesim, so try up to 3 times.
	local try
	for try in 1 2 3; do
		kubectl apply -f - >/dev/null <<YAML && break
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmChart
metadata:
  name: $name
  namespace: $ns
spec:
  chart: $chart
  version: "$ver"
  interval: 10m
  sourceRef:
    kind: HelmRepository
    name: local
YAML
		[ "$try" = 3 ] && sk_fail "creating HelmChart $ns/$name"
		sleep 1
	done
	kubectl patch helmchart "$name" -n "$ns" --subresource=status --type=merge -p \
		"{\"status\":{\"observedGeneration\":1,\"artifact\":{\"url\":\"$SK_CHART_URL/$tgz\",\"digest\":\"$digest\",\"revision\":\"$ver\",\"path\":\"helmchart/$ns/$name/$tgz\",\"lastUpdateTime\":\"2026-01-01T00:00:00Z\"},\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"ChartPullSucceeded\",\"message\":\"pulled '$chart' chart with version '$ver'\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}]}}" \
		>/dev/null || sk_fail "setting HelmChart $ns/$name status"
}

# sk_apply_hr NS NAME HELMCHART [EXTRA SPEC LINES (2-space indented)] [ANNOTATIONS LINES]
sk_apply_hr() {
	local ns=$1 name=$2 chart=$3 extra=${4:-} ann=${5:-}
	kubectl get ns "$ns" >/dev/null 2>&1 || kubectl create ns "$ns" >/dev/null
	kubectl apply -f - >/dev/null <<YAML || sk_fail "applying HelmRelease $ns/$name"
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: $name
  namespace: $ns
  annotations:
    bulkhead.dev/e2e: "yes"
$ann
spec:
  interval: 10m
  chartRef:
    kind: HelmChart
    name: $chart
$extra
YAML
}

sk_ready() {
	kubectl get helmrelease "$2" -n "$1" -o jsonpath='{range .status.conditions[?(@.type=="Ready")]}{.status}|{.reason}|{.message}{end}' 2>/dev/null
}

sk_wait_cond() {
	local ns=$1 name=$2 want=$3 secs=$4 end=$((SECONDS + $4)) r
	while :; do
		r=$(sk_ready "$ns" "$name")
		case "$r" in "$want|"*) echo "$r"; return 0 ;; esac
		[ $SECONDS -ge $end ] && sk_fail "HelmRelease $ns/$name not Ready=$want after ${secs}s (Ready: '$r')"
		sleep 0.3
	done
}

sk_wait_ready() { sk_wait_cond "$1" "$2" True "$3"; }
