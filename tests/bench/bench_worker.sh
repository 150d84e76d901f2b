#!/usr/bin/env bash
# tests/bench/bench_worker.sh — one worker's job, repeatably (issue 14): a
# podinfo install under kubesim and bulkheadd with tests/bench/worker_tap in
# the worker's place records the worker's conversation (the job, the chart,
# every request and answer); tests/bench/worker_replay then plays it back to
# the job code in-process $BENCH_WORKER_K times (default 20) and prints the
# CPU time per job (the first in a process, as in a worker, and the later
# ones). BENCH_WORKER_KEEP=FILE keeps the recording; BENCH_WORKER_CALLGRIND=1
# also prints the instructions of one job (valgrind --tool=callgrind,
# collected inside worker_job_run). A benchmark, not a test: it prints
# numbers, and fails only when the install or the replay does.
set -uo pipefail
src=${BH_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
export BH_SRCDIR=$src BH_BUILDDIR=${BH_BUILDDIR:-$PWD}
chart="$src/../shared/conformance/charts/podinfo"
[ -f "$chart/Chart.yaml" ] || { echo "bench_worker: podinfo chart not found at $chart (skipped)"; exit 0; }
tap=$BH_BUILDDIR/tests/bench/worker_tap replay=$BH_BUILDDIR/tests/bench/worker_replay
for b in "$tap" "$replay" "$BH_BUILDDIR/worker/bulkhead-worker"; do
	[ -x "$b" ] || { echo "bench_worker: $b not built"; exit 1; }
done
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/skeleton_lib.sh"
exec 3>&1 >"$E2E_TMP/bench.out" 2>&1 # the helpers' chatter stays out of the numbers
# bw_fail MSG: the helpers' last lines on the bench's output, then the failure
bw_fail() {
	{ echo "bench_worker: FAIL: $*"; tail -n 30 "$E2E_TMP/bench.out"; } >&3
	sk_fail "$*"
}
# the worker runs as another user (65534 under root): the recording's
# folder is outside E2E_TMP (0700), writable by all
rec=$(mktemp -d "${TMPDIR:-/tmp}/bh-bench-worker.XXXXXX") && chmod 0777 "$rec" || exit 1
trap 'bw_rc=$?; rm -rf "$rec"; (exit $bw_rc); sk_cleanup' EXIT
printf '#!/bin/sh\nexec "%s" "%s" "%s" "$@"\n' "$tap" "$rec/podinfo.ipc" "$BH_BUILDDIR/worker/bulkhead-worker" \
	>"$rec/worker.sh"
chmod 0755 "$rec/worker.sh"
SK_WORKER_PATH="$rec/worker.sh" sk_setup || bw_fail "setting up"
sk_publish "$chart" bench podinfo || bw_fail "publishing podinfo"
sk_apply_hr bench podinfo podinfo || bw_fail "applying the HelmRelease"
(sk_wait_ready bench podinfo 120 >/dev/null) || bw_fail "podinfo not Ready"
[ -s "$rec/podinfo.ipc" ] || bw_fail "no recording at $rec/podinfo.ipc"
[ -n "${BENCH_WORKER_KEEP:-}" ] && cp "$rec/podinfo.ipc" "$BENCH_WORKER_KEEP"
# the replay's malloc as a worker's (supervisor/spawn.c: SPAWN_WORKER_MALLOC)
export GLIBC_TUNABLES=glibc.malloc.tcache_count=1000
echo "podinfo install job, replayed: $("$replay" -n "${BENCH_WORKER_K:-20}" "$rec/podinfo.ipc" 2>&1)" >&3 ||
	bw_fail "replay"
if [ -n "${BENCH_WORKER_CALLGRIND:-}" ] && command -v valgrind >/dev/null; then
	valgrind --tool=callgrind --callgrind-out-file="$rec/cg.out" --toggle-collect=worker_job_run \
		"$replay" -n 1 "$rec/podinfo.ipc" >/dev/null 2>"$rec/cg.log" || bw_fail "replay under callgrind"
	echo "podinfo install job: $(sed -n 's/^summary: //p' "$rec/cg.out") instructions (callgrind, one job)" >&3
fi
