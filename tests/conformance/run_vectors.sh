#!/bin/sh
# tests/conformance/run_vectors.sh — automake test: runs every template
# conformance vector (../shared/conformance/functions/*.jsonl) through tmpl/.
# Fails on any failure not listed in vectors-known-failures.txt; skips (77)
# when the corpus is absent. Regenerate the list with:
#   $BH_BUILDDIR/tests/conformance/run_vectors --write-known-failures \
#     tests/conformance/vectors-known-failures.txt ../shared/conformance/functions/*.jsonl
src=${BH_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BH_BUILDDIR:-$PWD}
corpus="$src/../shared/conformance/functions"
if [ ! -f "$corpus/lang.jsonl" ]; then
	echo "SKIP: template conformance vectors not found at $corpus"
	exit 77
fi
# Deep include recursion needs more than the default 8 MiB of stack in the
# sanitizer build (tmpl_limits.max_stack is 48 MiB there).
ulimit -s 131072 2>/dev/null || ulimit -s unlimited 2>/dev/null || :
# tmpl-diff.jsonl: random templates rendered by the real Helm 4.1.4
# (tests/conformance/gen_tmpl_diff.py), kept in this repository.
exec "$build/tests/conformance/run_vectors" "$src/tests/conformance/vectors-known-failures.txt" \
	"$corpus/lang.jsonl" "$corpus/funcs.jsonl" "$src/tests/conformance/tmpl-diff.jsonl"
