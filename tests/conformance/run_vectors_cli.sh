#!/bin/sh
# tests/conformance/run_vectors_cli.sh — automake test: renders every
# template conformance vector (../shared/conformance/functions/*.jsonl) as a
# chart through `bulkhead template --debug`, the way Helm's output was
# captured (run_vectors_cli.py), and compares the verdicts with the
# in-process runner (run_vectors) when it is built. Fails on a failure listed
# neither in vectors-known-failures.txt nor vectors-cli-known-failures.txt;
# skips (77) when the corpus or python3 is absent.
src=${BH_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BH_BUILDDIR:-$PWD}
corpus="$src/../shared/conformance/functions"
if [ ! -d "$src/../shared" ] || [ ! -f "$corpus/lang.jsonl" ]; then
	echo "SKIP: template conformance vectors not found at $corpus"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not installed (needed to read the vectors)"
	exit 77
fi
set --
if [ -x "$build/tests/conformance/run_vectors" ]; then
	set -- --inproc "$build/tests/conformance/run_vectors"
fi
# deep include recursion in the sanitizer build needs a larger stack (see run_vectors.sh)
ulimit -s 131072 2>/dev/null || ulimit -s unlimited 2>/dev/null || :
exec python3 "$src/tests/conformance/run_vectors_cli.py" "$@" "$build/cli/bulkhead" \
	"$corpus/lang.jsonl" "$corpus/funcs.jsonl"
