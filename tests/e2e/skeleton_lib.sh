# tests/e2e/skeleton_lib.sh — helpers for the walking-skeleton e2e tests and
# the demo (source it after tests/e2e/lib.sh):
#   sk_setup [BULKHEADD ARGS...]  kubesim + CRDs + chart server + bulkheadd,
#                                 which runs as the bulkheadd ServiceAccount
#                                 of deploy/bulkhead.yaml (token in
#                                 $SK_KUBECONFIG), never as admin, with the
#                                 lock-down flags of the shipped configs
#                                 (--default-service-account default
#                                 --no-cross-namespace-refs); ARGS come after
#                                 them and may override them
#   SK_CRDS=FILE sk_setup ...    the CRDs to install instead of deploy/crds/
#                                 (SK_CRDS_MANAGER: their field manager)
#   sk_tenant NS [SA-NS]          namespace NS, where the ServiceAccount
#                                 SA-NS:default (default NS) may do anything
#                                 namespaced: the tenant identity of
#                                 HelmReleases without serviceAccountName
#                                 (SK_TENANT_CLUSTER=1: cluster-wide, for
#                                 charts with cluster-scoped objects)
#   sk_publish CHARTDIR NS NAME   package the chart, serve it, create HelmChart
#                                 NS/NAME with .status.artifact as
#                                 source-controller would fill it
#   sk_apply_hr NS NAME HELMCHART [EXTRA-SPEC-YAML]
#   sk_wait_ready NS NAME SECS    until Ready=True (fails with the status)
#   sk_wait_cond NS NAME STATUS SECS   until Ready=STATUS
#   sk_ready NS NAME              prints "status|reason|message" of Ready
# Exports SK_DIR (charts, logs), SK_CHART_URL, BULKHEADD_PID, SK_AUDIT,
# SK_KUBECONFIG.
: "${BH_BUILDDIR:=$BH_SRCDIR/build}"
SK_BULKHEADD=${SK_BULKHEADD:-$BH_BUILDDIR/supervisor/bulkheadd}
SK_WORKER=${SK_WORKER:-$BH_BUILDDIR/worker/bulkhead-worker}
BULKHEADD_PID=
SK_HTTP_PID=

# sk_own_denials: the requests bulkheadd (user agent bulkhead/) made with its
# token, not as a tenant, that kubesim refused (a refused impersonation
# included), one "verb group/resource[/sub] -> status" a line:
# deploy/bulkhead.yaml lacks a rule the controller needs.
sk_own_denials() {
	[ -f "${KUBESIM_DIR:-/nonexistent}/requests.log" ] || return 0
	python3 - "$KUBESIM_DIR/requests.log" <<'PY'
import json, sys
seen = set()
for line in open(sys.argv[1]):
    e = json.loads(line)
    if (e.get("user") == "system:serviceaccount:bulkhead-system:bulkheadd" and e.get("status") in (401, 403)
            and e.get("userAgent", "").startswith("bulkhead/")):
        what = "%s %s/%s%s (as %s) -> %d" % (e.get("verb"), e.get("group") or "core", e.get("resource"),
                                             "/" + e["subresource"] if e.get("subresource") else "",
                                             e.get("impersonatedUser") or "bulkheadd", e["status"])
        if not e.get("impersonatedUser") and what not in seen:
            seen.add(what)
            print(what)
PY
}

sk_cleanup() {
	local rc=$? denied
	[ -n "$BULKHEADD_PID" ] && kill -TERM "$BULKHEADD_PID" 2>/dev/null && { wait "$BULKHEADD_PID" 2>/dev/null || true; }
	# every test checks that deploy/bulkhead.yaml grants what bulkheadd uses
	if [ -n "${SK_KUBECONFIG:-}" ] && denied=$(sk_own_denials) && [ -n "$denied" ]; then
		echo "FAIL: kubesim refused bulkheadd's own requests (deploy/bulkhead.yaml lacks a rule):" >&2
		echo "$denied" >&2
		[ $rc -eq 0 ] && rc=1
	fi
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

sk_free_port() { e2e_free_port; }

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
	# the shipped configs' lock-down (deploy/, systemd/); SK_NO_DEFAULT_SA=1:
	# without a default ServiceAccount
	local lock=(--no-cross-namespace-refs --default-service-account default)
	[ -n "${SK_NO_DEFAULT_SA:-}" ] && lock=(--no-cross-namespace-refs)
	SK_AUDIT="$SK_DIR/audit.log"
	export SK_AUDIT
	"$SK_BULKHEADD" --kubeconfig "$SK_KUBECONFIG" --audit-log "$SK_AUDIT" --worker-path "${SK_WORKER_PATH:-$SK_WORKER}" \
		"${lock[@]}" --requeue-dependency 1s --log-level debug "$@" >>"$SK_DIR/bulkheadd.log" 2>&1 &
	BULKHEADD_PID=$!
	sleep 0.3
	kill -0 "$BULKHEADD_PID" 2>/dev/null || sk_fail "bulkheadd exited at startup"
}

sk_setup() {
	[ -x "$SK_BULKHEADD" ] || e2e_skip "$SK_BULKHEADD not built"
	[ -x "$SK_WORKER" ] || e2e_skip "$SK_WORKER not built"
	case " $* " in *" --sources builtin "*) # the built-in sources run bulkhead-fetcher
		[ -x "${BH_BUILDDIR:-$BH_SRCDIR/build}/fetcher/bulkhead-fetcher" ] || e2e_skip "bulkhead-fetcher not built" ;;
	esac
	e2e_need_tool kubectl helm python3 curl
	SK_DIR="$E2E_TMP/skeleton"
	mkdir -p "$SK_DIR/charts"
	export SK_DIR
	kubesim_start
	# as README's "Installing" says (server-side: never over Flux's own CRDs);
	# SK_CRDS names other CRDs (a cluster that runs Flux), applied by SK_CRDS_MANAGER
	kubectl apply --server-side --field-manager="${SK_CRDS_MANAGER:-bulkhead-install}" \
		-f "${SK_CRDS:-$BH_SRCDIR/deploy/crds/}" >/dev/null || sk_fail "applying ${SK_CRDS:-deploy/crds}"
	SK_KUBECONFIG="$SK_DIR/bulkheadd.kubeconfig"
	export SK_KUBECONFIG
	kubesim_bulkheadd_kubeconfig "$SK_KUBECONFIG"
	sk_start_http
	sk_start_bulkheadd "$@"
}

SK_TENANTS=" "
sk_tenant() {
	local ns=$1 sans=${2:-$1}
	case "$SK_TENANTS" in *" $ns:$sans "*) return 0 ;; esac
	kubectl get ns "$ns" >/dev/null 2>&1 || kubectl create ns "$ns" >/dev/null || sk_fail "creating namespace $ns"
	if [ -n "${SK_TENANT_CLUSTER:-}" ]; then # charts with cluster-scoped objects (corpus)
		kubectl create clusterrolebinding "e2e-tenant-$ns-$sans" --clusterrole=cluster-admin \
			--serviceaccount="$sans:default" >/dev/null || sk_fail "binding $sans:default cluster-wide"
	else
		kubectl create rolebinding "e2e-tenant-$sans" -n "$ns" --clusterrole=cluster-admin \
			--serviceaccount="$sans:default" >/dev/null || sk_fail "binding $sans:default in $ns"
	fi
	SK_TENANTS="$SK_TENANTS$ns:$sans "
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
	sk_tenant "$ns"
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
	sk_tenant "$ns"
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
