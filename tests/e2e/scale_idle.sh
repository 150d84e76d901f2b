#!/usr/bin/env bash
# tests/e2e/scale_idle.sh — bulkheadd idles while it waits (issue 14): with
# every --concurrent slot busy (workers that hang, bulkhead.dev/test-hook)
# and more reconciles due in the queue, the supervisor's CPU time over 10 s,
# read from /proc/PID/stat (utime + stime of all its threads, not wall
# time), stays below 1% of one core. A loop that spins on a due item it
# cannot start fails this.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
sk_setup --test-hooks --concurrent 2
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-i demo
for n in 1 2 3 4 5; do
	sk_apply_hr team-i "hang$n" demo "  timeout: 60s" "    bulkhead.dev/test-hook: hang"
done

# both slots taken, three due and waiting
for i in $(seq 1 150); do
	[ "$(grep -c 'started worker' "$SK_DIR/bulkheadd.log")" -ge 2 ] && break
	sleep 0.2
done
[ "$(grep -c 'started worker' "$SK_DIR/bulkheadd.log")" = 2 ] ||
	sk_fail "expected 2 workers started, log has $(grep -c 'started worker' "$SK_DIR/bulkheadd.log")"
[ "$(grep -c 'queued (generation' "$SK_DIR/bulkheadd.log")" -ge 5 ] || sk_fail "not all 5 HelmReleases were queued"
sleep 1

cpu_ticks() { awk '{print $14 + $15}' "/proc/$BULKHEADD_PID/stat"; }
hz=$(getconf CLK_TCK)
t0=$(cpu_ticks)
sleep 10
t1=$(cpu_ticks)
[ "$(grep -c 'started worker' "$SK_DIR/bulkheadd.log")" = 2 ] || sk_fail "a slot freed during the measurement"
used=$((t1 - t0))
echo "bulkheadd used $used ticks (1/$hz s) of CPU in 10 s"
# below 1% of 10 s: fewer than hz/10 ticks
[ "$used" -lt $((hz / 10)) ] || sk_fail "bulkheadd used $used/$hz s of CPU in 10 s while waiting (at most 1%)"
echo "PASS: scale_idle"
