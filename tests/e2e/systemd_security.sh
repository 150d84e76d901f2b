#!/usr/bin/env bash
# tests/e2e/systemd_security.sh — systemd/bulkheadd.service is hardened:
# `systemd-analyze security --offline=true` rates its exposure at most 1.5,
# and it starts bulkheadd locked down (--default-service-account,
# --no-cross-namespace-refs). Skips when systemd-analyze is absent (Debian
# package systemd, installed by scripts/install-deps.sh).
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
unit="$BH_SRCDIR/systemd/bulkheadd.service"
command -v systemd-analyze >/dev/null 2>&1 || { echo "SKIP: systemd-analyze not installed (Debian package systemd)"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
out=$(systemd-analyze security --offline=true --no-pager "$unit" 2>&1)
echo "$out" | grep -E '✗|Overall'
score=$(echo "$out" | sed -n 's/.*Overall exposure level for bulkheadd\.service: \([0-9][0-9.]*\).*/\1/p')
[ -n "$score" ] || fail "no exposure level in the output of systemd-analyze security"
awk -v s="$score" 'BEGIN { exit !(s <= 1.5) }' || fail "exposure level $score is above 1.5"
# the same bound through systemd-analyze's own threshold (tenths)
systemd-analyze security --offline=true --no-pager --threshold=15 "$unit" >/dev/null 2>&1 \
	|| fail "systemd-analyze --threshold=15 refused the unit"
exec_start=$(sed -n '/^ExecStart=/,/[^\\]$/p' "$unit")
case "$exec_start" in *"--default-service-account default"*) ;; *) fail "ExecStart lacks --default-service-account: $exec_start" ;; esac
case "$exec_start" in *"--no-cross-namespace-refs"*) ;; *) fail "ExecStart lacks --no-cross-namespace-refs: $exec_start" ;; esac
echo "PASS: systemd-analyze security rates bulkheadd.service at $score (<= 1.5), locked down"
