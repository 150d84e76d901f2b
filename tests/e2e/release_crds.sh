#!/usr/bin/env bash
# tests/e2e/release_crds.sh — the deprecated .spec.install.skipCRDs acts as
# its documented replacement, .spec.install.crds: Skip (when crds is unset):
# the chart's crds/ are not installed, the release is; without it, the
# default Create policy installs them. The install records how long it took
# (.status.lastAttemptedReleaseActionDuration, a Go duration).
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
SK_TENANT_CLUSTER=1 # the CRD is cluster-scoped: the tenants may create it
sk_setup
d="$SK_DIR/withcrd/app"
mkdir -p "$SK_DIR/withcrd"
cp -r "$BH_SRCDIR/tests/e2e/release/app" "$SK_DIR/withcrd/"
mkdir -p "$d/crds"
e2e_crd_yaml Gadget >"$d/crds/gadgets.yaml"
sk_publish "$d" team-s app
sk_publish "$d" team-u app
sk_apply_hr team-s skip app "  install:
    skipCRDs: true"
sk_wait_ready team-s skip 60 >/dev/null
kubectl get crd gadgets.example.com >/dev/null 2>&1 && sk_fail "install.skipCRDs: the chart's CRD was installed"
[ "$(kubectl get cm skip-config -n team-s -o jsonpath='{.data.message}')" = hello ] || sk_fail "the release's objects are missing"
dur=$(rl_status team-s skip '{.status.lastAttemptedReleaseActionDuration}')
[[ "$dur" =~ ^([0-9]+m)?[0-9]+(\.[0-9]+)?m?s$ ]] || sk_fail "lastAttemptedReleaseActionDuration: '$dur'"
sk_apply_hr team-u create app
sk_wait_ready team-u create 60 >/dev/null
kubectl get crd gadgets.example.com >/dev/null 2>&1 || sk_fail "the default crds policy (Create) did not install the CRD"
echo "PASS: install.skipCRDs skips the chart's CRDs (crds: Skip), the default creates them; lastAttemptedReleaseActionDuration=$dur"
