# tests/e2e/ops_lib.sh — helpers for the operations tests that run several
# bulkheadd instances (source after lib.sh and skeleton_lib.sh):
#   ops_setup          sk_setup, then stop its bulkheadd: the test starts its own
#   ops_port LOG WHAT  the port an instance logged for "metrics" or "health probes"
#   ops_run LOG ARGS   a bulkheadd (as the bulkheadd ServiceAccount of deploy/,
#                      locked down, unless ARGS say otherwise) logging
#                      to $SK_DIR/LOG; its pid is appended to OPS_PIDS and in OPS_PID
#   ops_storage NS NAME, ops_wait_storage NS NAME PATTERN   a release's Helm storage
#   ops_sound NS NAME  its storage decodes, agrees with its labels, nothing
#                      pending, no revision twice, at most one deployed
#   ops_no_false_failure NS NAME   never InstallFailed/UpgradeFailed
#   ops_workers PID    the worker pids of bulkheadd PID (workers running a job)
#   ops_holders PID    its namespace holders' pids (supervisor/spawn.h)
# Every instance is killed when the test ends.
OPS_PIDS=()
OPS_PID=

ops_setup() {
	sk_setup "$@"
	kill -TERM "$BULKHEADD_PID" && wait "$BULKHEADD_PID"
	BULKHEADD_PID=
	trap 'rc=$?; for p in "${OPS_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done; (exit $rc); sk_cleanup' EXIT
}

ops_run() {
	local log=$1
	shift
	"$SK_BULKHEADD" --kubeconfig "$SK_KUBECONFIG" --worker-path "$SK_WORKER" --requeue-dependency 1s \
		--default-service-account default --no-cross-namespace-refs "$@" \
		>>"$SK_DIR/$log" 2>&1 &
	OPS_PID=$!
	OPS_PIDS+=("$OPS_PID")
}

# ops_port LOG WHAT: the port bulkheadd logged for WHAT ("metrics", "health probes")
ops_port() {
	local p i
	for i in $(seq 1 50); do
		p=$(sed -n "s/.*serving $2 on .* (port \([0-9]*\)).*/\1/p" "$SK_DIR/$1" | head -1)
		[ -n "$p" ] && { echo "$p"; return; }
		sleep 0.1
	done
	sk_fail "no '$2' port in $1"
}

# ops_storage NS NAME: "version=status ..." of a release's Helm storage, by version
ops_storage() {
	kubectl get secrets -n "$1" -l "owner=helm,name=$2" \
		-o jsonpath='{range .items[*]}{.metadata.labels.version}={.metadata.labels.status}{"\n"}{end}' | sort -n | tr '\n' ' ' | sed 's/ $//'
}

# ops_wait_storage NS NAME PATTERN: until ops_storage matches the case PATTERN (60 s)
ops_wait_storage() {
	local end=$((SECONDS + 60))
	# shellcheck disable=SC2254
	until case "$(ops_storage "$1" "$2")" in $3) true ;; *) false ;; esac do
		[ $SECONDS -ge $end ] && sk_fail "$1/$2: storage never matched '$3': '$(ops_storage "$1" "$2")'"
		sleep 0.2
	done
}

# ops_sound NS NAME: every storage Secret of the release decodes; its version and
# status agree with its name and labels; no version twice; none pending; at
# most one deployed
ops_sound() {
	kubectl get secrets -n "$1" -l "owner=helm,name=$2" -o json | python3 -c '
import base64, gzip, json, sys
items = json.load(sys.stdin)["items"]
seen, deployed = set(), 0
for s in items:
    l, name = s["metadata"]["labels"], s["metadata"]["name"]
    rel = json.loads(gzip.decompress(base64.b64decode(base64.b64decode(s["data"]["release"]))))
    v, st = rel["version"], rel["info"]["status"]
    assert name == "sh.helm.release.v1.%s.v%d" % (rel["name"], v), "%s holds version %d" % (name, v)
    assert l["version"] == str(v) and l["status"] == st, "%s: labels %s, release v%d %s" % (name, l, v, st)
    assert rel.get("manifest") is not None and rel.get("chart"), "%s: no manifest or chart" % name
    assert v not in seen, "revision %d twice" % v
    seen.add(v)
    assert not st.startswith("pending-"), "%s left %s" % (name, st)
    deployed += st == "deployed"
assert deployed <= 1, "%d deployed revisions" % deployed' || sk_fail "$1/$2: unsound Helm storage: $(ops_storage "$1" "$2")"
}
# ops_no_false_failure NS NAME: the HelmRelease's events never said InstallFailed/UpgradeFailed
ops_no_false_failure() {
	local ev
	ev=$(kubectl get events -n "$1" --field-selector "involvedObject.name=$2" -o jsonpath='{range .items[*]}{.reason} {end}' 2>/dev/null)
	case " $ev " in *" InstallFailed "* | *" UpgradeFailed "*) sk_fail "$1/$2: a false failure was reported: $ev" ;; esac
	case "$(sk_ready "$1" "$2")" in *"|InstallFailed|"* | *"|UpgradeFailed|"*) sk_fail "$1/$2: Ready $(sk_ready "$1" "$2")" ;; esac
	return 0
}
# ops_workers PID: the pids of bulkheadd PID's workers running a job (their
# argv has --job; a tenant's namespace holder, --hold-namespaces, is not one)
ops_workers() { pgrep -P "$1" -f -- ' --job ' | tr '\n' ' '; }
# ops_holders PID: the pids of its namespace holders
ops_holders() { pgrep -P "$1" -f -- '--hold-namespaces' | tr '\n' ' '; }
