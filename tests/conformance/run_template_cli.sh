#!/bin/sh
# tests/conformance/run_template_cli.sh — automake test: `bulkhead template`
# against goldens the real `helm template` v4.1.4 produced
# (tests/conformance/template_cli/: cases.txt, goldens.jsonl; regenerate with
# `template_cli/run.py gen helm`): manifest heads with numbers and booleans,
# every flag of `helm template --help` (a flag helm lists but bulkhead does
# not, or one without a case, fails), --debug lines. Skips (77) without python3.
src=${BH_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BH_BUILDDIR:-$PWD}
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not installed (needed to read the cases)"
	exit 77
fi
exec python3 "$src/tests/conformance/template_cli/run.py" check "$build/cli/bulkhead"
