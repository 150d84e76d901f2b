#!/usr/bin/env bash
# tests/e2e/sources_external.sh — --sources=external (a source-controller
# fills HelmChart .status.artifact; here the test does, as sk_publish): a
# new artifact revision of the HelmChart reconciles the HelmRelease that
# uses it at once, not at its 10m interval.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
sk_setup --sources external
src="$SK_DIR/src"
cp -r "$BH_SRCDIR/tests/e2e/skeleton/demo" "$src"
sk_publish "$src" team-x demo
sk_apply_hr team-x web demo
sk_wait_ready team-x web 60 >/dev/null
sed -i 's/^version: .*/version: 0.3.0/' "$src/Chart.yaml"
sk_publish "$src" team-x demo
start=$SECONDS
while [ "$(kubectl get helmrelease web -n team-x -o jsonpath='{.status.lastAttemptedRevision}')" != 0.3.0 ]; do
	[ $((SECONDS - start)) -gt 20 ] && sk_fail "the new HelmChart revision did not reconcile the HelmRelease within 20s"
	sleep 0.3
done
sk_wait_ready team-x web 30 >/dev/null
echo "reconciled $((SECONDS - start))s after the new artifact"
echo "PASS"
