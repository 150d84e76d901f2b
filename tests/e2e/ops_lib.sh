# tests/e2e/ops_lib.sh — helpers for the operations tests that run several
# bulkheadd instances (source after lib.sh and skeleton_lib.sh):
#   ops_setup          sk_setup, then stop its bulkheadd: the test starts its own
#   ops_port LOG WHAT  the port an instance logged for "metrics" or "health probes"
#   ops_run LOG ARGS   a bulkheadd (as the bulkheadd ServiceAccount of deploy/,
#                      locked down, unless ARGS say otherwise) logging
#                      to $SK_DIR/LOG; its pid is appended to OPS_PIDS and in OPS_PID
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
