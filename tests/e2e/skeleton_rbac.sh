#!/usr/bin/env bash
# tests/e2e/skeleton_rbac.sh — must-show 6: with a ServiceAccount whose Role
# allows only its own namespace, a chart that tries to create an object in
# another namespace fails with kubesim's 403 in the HelmRelease's Ready
# message, and the audit log shows the denied request (forwarded by the
# broker as the tenant, denied by the API server's RBAC). A second
# HelmRelease without .spec.serviceAccountName gets --default-service-account.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
sk_setup --default-service-account deployer
kubectl create ns team-r >/dev/null
kubectl create ns team-other >/dev/null
kubectl create serviceaccount deployer -n team-r >/dev/null
kubectl create role deployer -n team-r --verb='*' --resource=secrets,configmaps >/dev/null
kubectl create rolebinding deployer -n team-r --role=deployer --serviceaccount=team-r:deployer >/dev/null
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/escape" team-r escape
sk_apply_hr team-r escape escape "  serviceAccountName: deployer"
r=$(sk_wait_cond team-r escape False 60)
echo "escape: $r"
e2e_expect_contains "$r" "False|InstallFailed|Helm install failed for release team-r/escape with chart escape@0.2.0" "Ready"
e2e_expect_contains "$r" "403" "Ready"
e2e_expect_contains "$r" 'User "system:serviceaccount:team-r:deployer" cannot' "Ready"
e2e_expect_contains "$r" "team-other" "Ready"
line=$(grep '"path":"/api/v1/namespaces/team-other/configmaps/intruder' "$SK_AUDIT") || sk_fail "no audit line for the denied request"
echo "audit: $line"
e2e_expect_contains "$line" '"identity":"system:serviceaccount:team-r:deployer","verb":"get"' "audit line"
e2e_expect_contains "$line" '"status":403' "audit line"
case "$line" in *refused*) sk_fail "the broker refused it itself; kubesim's RBAC should have" ;; esac
# as with the Helm CLI, the install stops at the check of existing objects
# (a GET of each object, as the tenant), before it stores or applies anything
kubectl get configmap intruder -n team-other >/dev/null 2>&1 && sk_fail "team-other/intruder was created"
kubectl get configmap mine -n team-r >/dev/null 2>&1 && sk_fail "team-r/mine was applied after a failed check"
kubectl get secret sh.helm.release.v1.escape.v1 -n team-r >/dev/null 2>&1 && sk_fail "a release record was stored"
# --default-service-account: same tenant identity without .spec.serviceAccountName
sk_apply_hr team-r escape2 escape "  releaseName: escape2"
r=$(sk_wait_cond team-r escape2 False 60)
e2e_expect_contains "$r" 'User "system:serviceaccount:team-r:deployer" cannot get resource "configmaps"' "Ready of escape2"
# (no "grep | grep -q" under pipefail: an early exit of grep -q fails the pipe)
a=$(grep '"helmRelease":"team-r/escape2"' "$SK_AUDIT")
case "$a" in *'"identity":"system:serviceaccount:team-r:deployer"'*) ;; *) sk_fail "escape2 did not act as the default service account: $a" ;; esac
echo "PASS: RBAC of the impersonated ServiceAccount decides, and the denial is reported and audited"
