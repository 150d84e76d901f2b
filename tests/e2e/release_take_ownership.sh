#!/usr/bin/env bash
# tests/e2e/release_take_ownership.sh — .spec.install.disableTakeOwnership
# (the v2 document): by default an install takes ownership of an existing
# object the chart renders (as Flux: TakeOwnership unless disabled); with
# disableTakeOwnership the install fails naming the object, and the object
# is left as it was.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
sk_setup
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-k demo
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-j demo
kubectl create configmap demo-config -n team-k --from-literal=greeting=mine >/dev/null
kubectl create configmap demo-config -n team-j --from-literal=greeting=mine >/dev/null
sk_apply_hr team-k keep demo "  install:
    disableTakeOwnership: true"
r=$(sk_wait_cond team-k keep False 90)
e2e_expect_contains "$r" "False|InstallFailed|" "keep Ready"
e2e_expect_contains "$r" "demo-config" "keep Ready names the object"
[ "$(kubectl get cm demo-config -n team-k -o jsonpath='{.data.greeting}')" = mine ] || sk_fail "the existing object was changed"
[ -z "$(kubectl get cm demo-config -n team-k -o jsonpath='{.metadata.annotations.meta\.helm\.sh/release-name}')" ] ||
	sk_fail "the existing object was adopted"
sk_apply_hr team-j take demo
sk_wait_ready team-j take 90 >/dev/null
[ "$(kubectl get cm demo-config -n team-j -o jsonpath='{.data.greeting} {.metadata.annotations.meta\.helm\.sh/release-name}')" = "hello take" ] ||
	sk_fail "the existing object was not taken over by default: $(kubectl get cm demo-config -n team-j -o json)"
echo "PASS: install.disableTakeOwnership refuses to adopt an existing object; by default it is adopted"
