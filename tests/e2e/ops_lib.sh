# tests/e2e/ops_lib.sh — helpers for the operations tests that run several
# bulkheadd instances (source after lib.sh and skeleton_lib.sh):
#   ops_setup          sk_setup, then stop its bulkheadd: the test starts its own
#   ops_run LOG ARGS   a bulkheadd (admin kubeconfig unless ARGS give one) logging
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
	"$SK_BULKHEADD" --kubeconfig "$KUBECONFIG" --worker-path "$SK_WORKER" --requeue-dependency 1s "$@" \
		>>"$SK_DIR/$log" 2>&1 &
	OPS_PID=$!
	OPS_PIDS+=("$OPS_PID")
}
