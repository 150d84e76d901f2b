#!/usr/bin/env bash
# tests/e2e/ops_systemd.sh — issue 13: systemd. `systemd-analyze verify` of
# systemd/bulkheadd.service (paths pointed at the build), and the notify
# protocol seen from a NOTIFY_SOCKET this test listens on: READY=1 after the
# HelmRelease cache synced (not before: the list is held back by 503s),
# STATUS= lines, WATCHDOG=1 at half of WATCHDOG_USEC (never a gap of all of it), STOPPING=1 on SIGTERM.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
[ -x "$SK_BULKHEADD" ] || e2e_skip "$SK_BULKHEADD not built"
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$E2E_TMP/unit"
	sed -e "s|/usr/sbin/bulkheadd|$SK_BULKHEADD|" -e "s|/usr/libexec/bulkhead-worker|$SK_WORKER|" \
		"$BH_SRCDIR/systemd/bulkheadd.service" >"$E2E_TMP/unit/bulkheadd.service"
	out=$(systemd-analyze verify "$E2E_TMP/unit/bulkheadd.service" 2>&1) || sk_fail "systemd-analyze verify: $out"
	[ -z "$out" ] || sk_fail "systemd-analyze verify is not clean: $out"
	echo "systemd-analyze verify: clean"
else
	echo "systemd-analyze not installed: unit not verified"
fi

sk_setup
kill -TERM "$BULKHEADD_PID" && wait "$BULKHEADD_PID"
kubesim_admin POST /_kubesim/faults '{"action":"status","code":503,"count":-1,"match":{"resource":"helmreleases","verb":"list"}}' \
	>/dev/null || sk_fail "adding the list fault"
sock="$E2E_TMP/notify.sock"
python3 - "$sock" "$E2E_TMP/notify.log" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(60)
with open(sys.argv[2], "a", buffering=1) as log:
    while True:
        try:
            msg = s.recv(4096).decode()
        except socket.timeout:
            break
        for line in msg.split("\n"):
            log.write("%.3f %s\n" % (time.monotonic(), line))
        if "STOPPING=1" in msg:
            break
PY
listener=$!
for i in $(seq 1 50); do [ -S "$sock" ] && break; sleep 0.1; done
NOTIFY_SOCKET=$sock WATCHDOG_USEC=4000000 sk_start_bulkheadd
sleep 3
grep -q "READY=1" "$E2E_TMP/notify.log" 2>/dev/null && sk_fail "READY=1 before the cache synced"
kubesim_admin DELETE /_kubesim/faults >/dev/null
for i in $(seq 1 150); do grep -q "READY=1" "$E2E_TMP/notify.log" 2>/dev/null && break; sleep 0.2; done
grep -q "READY=1" "$E2E_TMP/notify.log" || sk_fail "no READY=1 after the cache synced"
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-n demo
sk_apply_hr team-n web demo
sk_wait_ready team-n web 60 >/dev/null
# the STATUS line follows the queue gauges, at most once a second (ops_tick):
# wait for the one that counts the HelmRelease (a fixed sleep raced it on a
# loaded machine), then stop
for i in $(seq 1 50); do grep -q "STATUS=1 HelmReleases" "$E2E_TMP/notify.log" 2>/dev/null && break; sleep 0.2; done
kill -TERM "$BULKHEADD_PID"
wait "$BULKHEADD_PID"
BULKHEADD_PID=
wait "$listener"
cat "$E2E_TMP/notify.log"
python3 - "$E2E_TMP/notify.log" <<'PY' || sk_fail "notify messages"
import sys
ev = [l.rstrip("\n").split(" ", 1) for l in open(sys.argv[1]) if " " in l]
msgs = [m for _, m in ev]
assert "READY=1" in msgs and "STOPPING=1" in msgs, msgs
assert msgs.index("READY=1") < msgs.index("STOPPING=1"), msgs
dogs = [float(t) for t, m in ev if m == "WATCHDOG=1"]
assert len(dogs) >= 3, "watchdog pings: %d" % len(dogs)
gaps = [b - a for a, b in zip(dogs, dogs[1:])]
assert max(gaps) < 4.0, "a watchdog gap of %.2fs exceeds WATCHDOG_USEC (4s)" % max(gaps)
st = [m for m in msgs if m.startswith("STATUS=")]
assert any("1 HelmReleases" in m for m in st), st
assert any(m.startswith("STATUS=stopping") for m in st), st
print("notify: %d messages, %d watchdog pings (largest gap %.2fs), statuses: %s" % (len(msgs), len(dogs), max(gaps), st[:3]))
PY
echo "PASS: unit verifies; READY=1 after sync, STATUS, WATCHDOG and STOPPING over the notify socket"
