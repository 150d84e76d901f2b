#!/usr/bin/env bash
# tests/e2e/skeleton_demo.sh — must-show 1: the README demo command ends with
# the sample HelmRelease Ready=True and its objects present in kubesim.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${BH_BUILDDIR:=$BH_SRCDIR/build}"
export BH_SRCDIR BH_BUILDDIR
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
[ -x "$BH_BUILDDIR/supervisor/bulkheadd" ] || { echo "SKIP: bulkheadd not built in $BH_BUILDDIR"; exit 77; }
out=$(timeout 300 bash "$BH_SRCDIR/scripts/demo.sh" 2>&1); rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "FAIL: scripts/demo.sh exited with $rc"; exit 1; }
for want in "Ready=True	InstallSucceeded	Helm install succeeded for release team-a/demo.v1 with chart demo@0.1.0" \
	"  configmaps/demo-config" "  services/demo" "  deployments/demo" "  secrets/sh.helm.release.v1.demo.v1" \
	'"identity":"system:serviceaccount:team-a:deployer"' "demo: OK"; do
	case "$out" in *"$want"*) ;; *) echo "FAIL: demo output lacks: $want"; exit 1 ;; esac
done
# everything the demo started is gone
if pgrep -f "bulkheadd --kubeconfig $BH_BUILDDIR" >/dev/null 2>&1; then
	: # another test may run its own bulkheadd; not conclusive
fi
echo "PASS: demo ended Ready=True with its objects in kubesim"
