#!/usr/bin/env bash
# tests/run-all.sh — the whole test suite (the README's test command).
#  1. installs missing Debian packages and the real kubectl/helm (.tools/bin)
#  2. builds with -Werror in build/ and runs `make check` (unit, conformance,
#     end-to-end against tests/kubesim, interoperability with kubectl/helm)
#  3. builds with -fsanitize=address,undefined in build-asan/ and runs the
#     unit and conformance tests (`make check-unit`)
#  4. runs every fuzz target for a bounded time (tests/fuzz/run)
# Ends with one line "N passed, M failed" over all of it; exit 1 on any failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
jobs=$(nproc 2>/dev/null || echo 2)
scripts/install-deps.sh || { echo "run-all: dependency installation failed"; exit 1; }
export PATH="$top/.tools/bin:$PATH"

[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null 2>&1 || { autoreconf -fi; exit 1; }

passed=0; failed=0; skipped=0
count() { # count LOGFILE: add automake's totals from a test-suite.log
	local log=$1 p f s e
	[ -f "$log" ] || { failed=$((failed + 1)); return; }
	p=$(grep -m1 '^# PASS:' "$log" | awk '{print $3}'); f=$(grep -m1 '^# FAIL:' "$log" | awk '{print $3}')
	s=$(grep -m1 '^# SKIP:' "$log" | awk '{print $3}'); e=$(grep -m1 '^# ERROR:' "$log" | awk '{print $3}')
	passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0} + ${e:-0})); skipped=$((skipped + ${s:-0}))
}
step() { echo; echo "=== $* ==="; }

step "build (-Werror) and make check"
mkdir -p build
( cd build && { [ -f Makefile ] || ../configure --enable-werror >/dev/null; } \
  && make -j"$jobs" >/dev/null && make -j"$jobs" check ) ; rc=$?
[ -f build/test-suite.log ] && cat build/test-suite.log | grep -E '^(# |FAIL|ERROR)' ; count build/test-suite.log
[ $rc -eq 0 ] || echo "run-all: build or make check failed (rc=$rc)"
[ $rc -eq 0 ] || [ -f build/test-suite.log ] || failed=$((failed + 1))

step "sanitizer build (-fsanitize=address,undefined) and make check-unit"
mkdir -p build-asan
( cd build-asan && { [ -f Makefile ] || ../configure --enable-werror \
	CFLAGS="-g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	LDFLAGS="-fsanitize=address,undefined" >/dev/null; } \
  && make -j"$jobs" >/dev/null && { ulimit -s 131072 2>/dev/null || :; } && ASAN_OPTIONS=detect_leaks=1 make -j"$jobs" check-unit ) ; rc=$?
[ -f build-asan/test-suite.log ] && grep -E '^(# |FAIL|ERROR)' build-asan/test-suite.log; count build-asan/test-suite.log
[ $rc -eq 0 ] || echo "run-all: sanitizer build or tests failed (rc=$rc)"

if [ -x tests/fuzz/run ]; then
	step "fuzz targets (bounded)"
	if tests/fuzz/run; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
fi

echo
echo "run-all: $skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
