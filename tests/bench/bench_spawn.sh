#!/usr/bin/env bash
# tests/bench/bench_spawn.sh — a worker's start-up (issue 14: exec +
# lock-down ≤ 1 ms): tests/bench/bench_spawn starts the built
# bulkhead-worker $BENCH_SPAWN_N times (default 200) through
# supervisor/spawn.c and prints the median CPU of the supervisor's part, of
# the worker from exec to locked down, and to its exit; then the same for
# tests/bench/phase_worker (the worker timing its phases), with the median
# of each phase. BENCH_SPAWN_RECORDING=FILE (a podinfo install recorded by
# bench_worker.sh with BENCH_WORKER_KEEP=FILE) gives each worker that job
# too: "exec to exit" is then a whole job's CPU. A benchmark: it prints
# numbers, and fails only when a worker does not start or a job does not go
# as recorded. The spawns go round-robin to BENCH_SPAWN_TENANTS tenants
# (default 10; 0: none, each worker unshares its own namespaces), each
# worker joining its tenant's (supervisor/spawn.h). Then the lock-down's
# kernel calls one by one (bench_spawn --parts: each namespace's unshare,
# the setns of a tenant's five, the seccomp load); then, for scale, the exec
# to exit of tests/bench/exec_nop, a program that only returns linked as the
# worker is (this machine's price of any exec and C start-up).
set -uo pipefail
b=${BH_BUILDDIR:-$PWD}
for f in "$b/tests/bench/bench_spawn" "$b/worker/bulkhead-worker"; do
	[ -x "$f" ] || { echo "bench_spawn: $f not built"; exit 1; }
done
rec=()
[ -n "${BENCH_SPAWN_RECORDING:-}" ] && rec=("$BENCH_SPAWN_RECORDING")
"$b/tests/bench/bench_spawn" "$b/worker/bulkhead-worker" "${BENCH_SPAWN_N:-200}" "${rec[@]}" || exit 1
"$b/tests/bench/bench_spawn" --parts "${BENCH_SPAWN_N:-200}" || exit 1
if [ -x "$b/tests/bench/exec_nop" ] && [ -x "$b/tests/bench/runstat" ]; then
	# the scale: what any program linked as the worker costs from exec to exit here
	for _ in $(seq "${BENCH_SPAWN_N:-200}"); do
		"$b/tests/bench/runstat" / "$b/tests/bench/exec_nop" | awk '{print $2 * 1e6}'
	done | sort -n | awk '{v[NR] = $1} END {
		printf "a C program that only returns, linked as the worker, exec to exit: median %d us (quartiles %d .. %d)\n",
			v[int((NR + 1) / 2)], v[int((NR + 3) / 4)], v[int((3 * NR + 1) / 4)] }'
fi
[ -x "$b/tests/bench/phase_worker" ] || exit 0
echo "the phase worker (its own timing adds a few clock reads):"
exec "$b/tests/bench/bench_spawn" "$b/tests/bench/phase_worker" "${BENCH_SPAWN_N:-200}" "${rec[@]}"
