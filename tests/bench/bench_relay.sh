#!/usr/bin/env bash
# tests/bench/bench_relay.sh — the floor of bulkheadd's relay design (issue
# 14: supervisor CPU / workers' CPU <= 0.2). tests/bench/bench_relay relays
# requests the way bulkheadd does and nothing else (see its header): W
# workers on Unix sockets, an audit line before and after each request, a
# group-committed fdatasync before each mutation ($BENCH_RELAY_MUT of 12,
# default 5), one TLS 1.3 connection to a loopback server. One row for
# --concurrent 10 ($BENCH_RELAY_W, default 10), one for a single worker,
# and one for 10 workers that each spend a request's share of an install's
# CPU before each request (think: $BENCH_WORKER_MS / 12, so requests
# overlap about as they do under bulkheadd and the relay batches less),
# then the first and the third again with an install's bytes (-s install: the
# release Secret written and echoed twice, see bench_relay.c), each the run
# with the median relay CPU per request of $BENCH_RELAY_RUNS
# (default 5), $BENCH_RELAY_K requests per worker (default 1200):
#   relay_us    the relay process's CPU (all threads) per request,
#               user_us + sys_us
#   ms/install  the same for an install's 12 requests
#   fsyncs      fdatasyncs, mut/fsync mutations each covered (group
#               commit), us/fsync the sync thread's CPU per fdatasync
# Then the floor per install (the first row: the least the design costs;
# and the third: at bulkheadd's workers' pace) against bulkheadd's (what bench_scale measured,
# $BENCH_SUP_MS, default 3.4 ms: not re-run here) and against the 0.2 goal
# on the workers' CPU per install ($BENCH_WORKER_MS, default 5.7 ms, also
# bench_scale's). The audit file lies in $TMPDIR (default /tmp): fdatasync
# costs what that filesystem makes it cost. A benchmark, not a test: it
# prints numbers.
set -uo pipefail
b=${BH_BUILDDIR:-$PWD}
prog="$b/tests/bench/bench_relay"
[ -x "$prog" ] || { echo "bench_relay: $prog not built"; exit 1; }
w=${BENCH_RELAY_W:-10}
opts=(-k "${BENCH_RELAY_K:-1200}" -m "${BENCH_RELAY_MUT:-5}" -r "${BENCH_RELAY_RUNS:-5}")
wk=${BENCH_WORKER_MS:-5.7}
think=$(awk -v w="$wk" 'BEGIN { printf "%d", w * 1000 / 12 }')
"$prog" --header
row=$("$prog" -w "$w" "${opts[@]}") || exit 1
echo "$row"
"$prog" -w 1 "${opts[@]}" || exit 1
paced=$("$prog" -w "$w" -t "$think" "${opts[@]}") || exit 1
echo "$paced"
echo "the same with an install's bytes (-s install: ~111 KB out, ~126 KB in per install, the release Secret twice):"
irow=$("$prog" -w "$w" -s install "${opts[@]}") || exit 1
echo "$irow"
ipaced=$("$prog" -w "$w" -t "$think" -s install "${opts[@]}") || exit 1
echo "$ipaced"
floor=$(echo "$row" | awk '{print $10}')
floor_paced=$(echo "$paced" | awk '{print $10}')
ifloor=$(echo "$irow" | awk '{print $10}')
ifloor_paced=$(echo "$ipaced" | awk '{print $10}')
sup=${BENCH_SUP_MS:-3.4}
awk -v f="$floor" -v p="$floor_paced" -v fi="$ifloor" -v pi="$ifloor_paced" -v s="$sup" -v w="$wk" -v n="$w" 'BEGIN {
	printf "floor per install, %d workers: %.3f ms relay CPU (at the workers'\'' pace: %.3f ms); with an install'\''s bytes %.3f ms (at pace %.3f ms)\n", n, f, p, fi, pi
	printf "bulkheadd per install (bench_scale, BENCH_SUP_MS): %.2f ms = %.1f x the floor (%.1f x the floor with an install'\''s bytes at pace)\n", s, s / f, s / pi
	printf "workers per install (bench_scale, BENCH_WORKER_MS): %.2f ms; x 0.2 goal = %.3f ms supervisor CPU per install\n", w, 0.2 * w
	printf "floor / workers = %.3f, at pace %.3f; with an install'\''s bytes %.3f, at pace %.3f (goal 0.2): the floor takes %.0f%% .. %.0f%% of the goal'\''s budget\n", f / w, p / w, fi / w, pi / w, 100 * f / (0.2 * w), 100 * pi / (0.2 * w)
}'
