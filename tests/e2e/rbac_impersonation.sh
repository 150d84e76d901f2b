#!/usr/bin/env bash
# tests/e2e/rbac_impersonation.sh — the bulkheadd ServiceAccount of
# deploy/bulkhead.yaml, with a TokenRequest token and the real kubectl: it
# may impersonate a ServiceAccount (which then gets exactly that
# ServiceAccount's groups and rights), and nothing else — not a user
# (--as=evil, --as=system:admin), not system:masters nor any other group
# (--as-group), not even a ServiceAccount together with a group. On its own it
# reads no Secrets and writes nothing but what the controller needs.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
e2e_need_tool kubectl
kubesim_start
kubectl apply --server-side -f "$BH_SRCDIR/deploy/crds/" >/dev/null || e2e_fail "applying deploy/crds"
kubectl create namespace team >/dev/null || e2e_fail "create namespace"
kubectl create serviceaccount deployer -n team >/dev/null || e2e_fail "create sa"
kubectl create role deployer -n team --verb=get,list --resource=configmaps >/dev/null || e2e_fail "role"
kubectl create rolebinding deployer -n team --role=deployer --serviceaccount=team:deployer >/dev/null || e2e_fail "rb"
kubectl create configmap app -n team --from-literal=k=v >/dev/null || e2e_fail "configmap"
kubectl create secret generic db -n team --from-literal=password=hunter2 >/dev/null || e2e_fail "secret"
kubesim_bulkheadd_kubeconfig "$E2E_TMP/bulkheadd.kubeconfig"
bk() { KUBECONFIG="$E2E_TMP/bulkheadd.kubeconfig" kubectl "$@"; }
me=system:serviceaccount:bulkhead-system:bulkheadd

who=$(bk auth whoami -o jsonpath='{.status.userInfo.username}' 2>&1) || e2e_fail "whoami: $who"
[ "$who" = "$me" ] || e2e_fail "the token is '$who', not $me"

# forbidden: every user, every group
denied() { # denied EXPECTED-TEXT KUBECTL-ARGS...
	local want=$1 out
	shift
	out=$(bk "$@" 2>&1) && e2e_fail "allowed: kubectl $*: $out"
	e2e_expect_contains "$out" "$want" "kubectl $*"
	echo "refused: kubectl $*"
}
denied "users \"evil\" is forbidden: User \"$me\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope" \
	get secrets -A --as=evil
denied "users \"evil\" is forbidden: User \"$me\" cannot impersonate resource \"users\"" \
	get secrets -A --as=evil --as-group=system:masters
denied "users \"system:admin\" is forbidden" get secrets -n team --as=system:admin
denied "users \"admin\" is forbidden" get secrets -n team --as=admin --as-group=system:masters
denied "groups \"system:masters\" is forbidden: User \"$me\" cannot impersonate resource \"groups\" in API group \"\" at the cluster scope" \
	get secrets -n team --as=system:serviceaccount:team:deployer --as-group=system:masters
denied "groups \"system:serviceaccounts\" is forbidden" \
	get configmaps -n team --as=system:serviceaccount:team:deployer --as-group=system:serviceaccounts
denied "uids.authentication.k8s.io \"0\" is forbidden" get configmaps -n team --as=system:serviceaccount:team:deployer --as-uid=0
# and on its own: no Secrets, no writes beyond its own objects
denied "secrets is forbidden: User \"$me\" cannot list resource \"secrets\"" get secrets -A
denied "cannot create resource \"configmaps\"" create configmap x -n team --from-literal=a=b
denied "cannot delete resource \"helmreleases\"" delete helmreleases.helm.toolkit.fluxcd.io x -n team
[ "$(bk auth can-i impersonate users 2>&1)" = no ] || e2e_fail "can-i impersonate users"
[ "$(bk auth can-i impersonate groups 2>&1)" = no ] || e2e_fail "can-i impersonate groups"

# allowed: a ServiceAccount, which gets that account's groups and rights only
out=$(bk get configmap app -n team --as=system:serviceaccount:team:deployer -o name 2>&1) \
	|| e2e_fail "impersonating team:deployer: $out"
[ "$out" = configmap/app ] || e2e_fail "got '$out'"
groups=$(bk auth whoami --as=system:serviceaccount:team:deployer -o jsonpath='{.status.userInfo.groups}' 2>&1) \
	|| e2e_fail "whoami as team:deployer: $groups"
[ "$groups" = '["system:serviceaccounts","system:serviceaccounts:team","system:authenticated"]' ] \
	|| e2e_fail "groups of the impersonated ServiceAccount: $groups"
denied "secrets \"db\" is forbidden: User \"system:serviceaccount:team:deployer\" cannot get resource \"secrets\"" \
	get secret db -n team --as=system:serviceaccount:team:deployer
echo "PASS: the bulkheadd token impersonates ServiceAccounts only, never users or groups"
