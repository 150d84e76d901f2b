#!/usr/bin/env bash
# tests/e2e/kubectl_auth.sh — the real kubectl against kubesim's authn/authz:
# auth can-i --as=system:serviceaccount:NS:NAME, RBAC bindings, TokenRequest
# tokens, bearer tokens, impersonation denial with the apiserver's 403 text.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
e2e_need_tool kubectl curl
kubesim_start --token alice-token=alice:dev
kubectl create namespace team >/dev/null || e2e_fail "create namespace"
kubectl create serviceaccount deployer -n team >/dev/null || e2e_fail "create sa"
sa=system:serviceaccount:team:deployer

out=$(kubectl auth can-i list pods --as=$sa -n team 2>&1) && e2e_fail "can-i allowed before any binding: $out"
[ "$out" = no ] || e2e_fail "can-i printed '$out', want 'no'"
kubectl create rolebinding deployer-edit --clusterrole=edit --serviceaccount=team:deployer -n team >/dev/null \
	|| e2e_fail "create rolebinding"
[ "$(kubectl auth can-i list pods --as=$sa -n team)" = yes ] || e2e_fail "can-i list pods after binding"
[ "$(kubectl auth can-i create deployments.apps --as=$sa -n team)" = yes ] || e2e_fail "can-i create deployments"
[ "$(kubectl auth can-i list pods --as=$sa -n default 2>&1)" = no ] || e2e_fail "binding leaked to another namespace"
[ "$(kubectl auth can-i create rolebindings --as=$sa -n team 2>&1)" = no ] || e2e_fail "edit must not grant RBAC writes"
# a Group binding for the namespace's service accounts
kubectl create rolebinding sas-view --clusterrole=view --group=system:serviceaccounts:team -n team >/dev/null \
	|| e2e_fail "group rolebinding"
[ "$(kubectl auth can-i list services --as=system:serviceaccount:team:other -n team)" = yes ] \
	|| e2e_fail "system:serviceaccounts:team group binding not honoured"
[ "$(kubectl auth can-i list services --as=system:serviceaccount:team:other --as-group=devs -n team 2>&1)" = no ] \
	|| e2e_fail "explicit --as-group must replace the service account groups"

# a TokenRequest token authenticates as the service account (a kubeconfig with
# only the token: with a client certificate too, the certificate would win)
tok=$(kubectl create token deployer -n team) || e2e_fail "create token"
kubesim_kubeconfig_token deployer "$tok" "$E2E_TMP/sa.kubeconfig"
who=$(KUBECONFIG="$E2E_TMP/sa.kubeconfig" kubectl auth whoami 2>&1) || e2e_fail "whoami: $who"
e2e_expect_contains "$who" "$sa" "whoami"
e2e_expect_contains "$who" "system:serviceaccounts:team" "whoami groups"
KUBECONFIG="$E2E_TMP/sa.kubeconfig" kubectl -n team create configmap made-by-sa --from-literal=k=v >/dev/null \
	|| e2e_fail "SA create cm"
out=$(KUBECONFIG="$E2E_TMP/sa.kubeconfig" kubectl -n default get secrets 2>&1) && e2e_fail "SA read secrets in default"
e2e_expect_contains "$out" 'Error from server (Forbidden): secrets is forbidden: User "system:serviceaccount:team:deployer" cannot list resource "secrets" in API group "" in the namespace "default"' "403"

# impersonation needs the impersonate verb
kubesim_kubeconfig_token alice alice-token "$E2E_TMP/alice.kubeconfig"
out=$(KUBECONFIG="$E2E_TMP/alice.kubeconfig" kubectl get pods -n team --as=$sa 2>&1) && e2e_fail "alice impersonated without rights"
e2e_expect_contains "$out" 'serviceaccounts "deployer" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team"' "impersonation 403"
out=$(KUBECONFIG="$E2E_TMP/alice.kubeconfig" kubectl get pods -n team --as=bob 2>&1) && e2e_fail "alice impersonated bob"
e2e_expect_contains "$out" 'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope' "impersonation 403"
kubectl create clusterrole impersonate-sa --verb=impersonate --resource=serviceaccounts >/dev/null || e2e_fail "clusterrole"
kubectl create clusterrolebinding alice-impersonate --clusterrole=impersonate-sa --user=alice >/dev/null || e2e_fail "crb"
out=$(KUBECONFIG="$E2E_TMP/alice.kubeconfig" kubectl get configmap made-by-sa -n team --as=$sa -o name 2>&1) \
	|| e2e_fail "alice impersonating the SA: $out"
[ "$out" = configmap/made-by-sa ] || e2e_fail "got '$out'"

log=$(kubesim_admin GET /_kubesim/log)
echo "$log" | grep '"user":"alice"' | e2e_has "\"impersonatedUser\":\"$sa\"" || e2e_fail "request log lacks alice as $sa"
echo "PASS: kubectl_auth"
