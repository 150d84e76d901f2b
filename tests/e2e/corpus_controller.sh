#!/usr/bin/env bash
# tests/e2e/corpus_controller.sh — issue 9 must-show: every chart of
# ../shared/conformance/charts (its -defaults case, or a values case where
# the chart needs values), packaged by `helm package`, published as a
# HelmChart and reconciled by bulkheadd through the sandboxed worker, 4 at a
# time in one kubesim: each reaches Ready=True, its stored manifest equals
# `helm template` of the same archive and values (through Flux's post-render
# chain, modelled with the real kustomize), it upgrades on a values
# change (compared again) and uninstalls. See corpus_lib.sh.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/corpus_lib.sh"
corpus_setup
start=$SECONDS
while read -r chart case rel ns; do
	corpus_add helm "$chart" "$case" "$rel" "$ns"
done < <(python3 "$BH_SRCDIR/tests/e2e/corpus_lib.py" pick "$CORPUS" || echo FAIL)
[ ${#CORPUS_RELEASES[@]} -ge 16 ] || sk_fail "only ${#CORPUS_RELEASES[@]} charts found"
echo "packed in $((SECONDS - start))s"
corpus_run 900
echo "PASS: ${#CORPUS_RELEASES[@]} corpus charts installed, upgraded and uninstalled in $((SECONDS - start))s"
