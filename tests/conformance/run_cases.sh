#!/bin/sh
# tests/conformance/run_cases.sh — automake test: renders every case of
# ../shared/conformance with `bulkhead template` (run_cases.py). Skips (77)
# when the corpus or python3 is absent.
src=${BH_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BH_BUILDDIR:-$PWD}
corpus="$src/../shared/conformance"
if [ ! -d "$corpus/cases" ]; then
	echo "SKIP: conformance corpus not found at $corpus"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not installed (needed to read case.json)"
	exit 77
fi
exec python3 "$src/tests/conformance/run_cases.py" "$build/cli/bulkhead" "$corpus"
