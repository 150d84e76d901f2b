#!/usr/bin/env bash
# tests/bench/bench_tmpl.sh — template engine benchmark (run by `make bench`):
# parses and renders the templates of ../shared/conformance/charts/* and of
# the language vectors repeatedly; prints templates/second and peak RSS.
set -uo pipefail
corpus="$BH_SRCDIR/../shared/conformance"
bin="$BH_BUILDDIR/tests/bench/bench_tmpl"
if [ ! -d "$corpus" ]; then
	echo "SKIP: conformance corpus not found at $corpus"
	exit 0
fi
if [ ! -x "$bin" ]; then
	echo "bench_tmpl not built (make bench builds it)"
	exit 1
fi
exec "$bin" "$corpus" "${BENCH_SECONDS:-3}"
