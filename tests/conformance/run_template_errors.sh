#!/bin/sh
# tests/conformance/run_template_errors.sh — automake test: `bulkhead
# template`'s error texts against goldens the real `helm template` v4.1.4
# produced (tests/conformance/template_errors/: cases.txt, goldens.jsonl;
# regenerate with `template_cli/run.py gen helm template_errors`): infinite
# and deep include recursion (helm's whole message, over 100 KB),
# wrong-typed function arguments reported at the argument, and what Go's
# strconv.IsPrint makes %q, quote, js and schema messages escape. Skips
# (77) without python3.
src=${BH_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BH_BUILDDIR:-$PWD}
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not installed (needed to read the cases)"
	exit 77
fi
exec python3 "$src/tests/conformance/template_cli/run.py" check "$build/cli/bulkhead" \
	"$src/tests/conformance/template_errors"
