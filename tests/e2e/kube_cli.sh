#!/usr/bin/env bash
# tests/e2e/kube_cli.sh — `bulkhead check-kubeconfig` against kubesim: the
# admin kubeconfig is valid and reaches the server (same version as the real
# kubectl reports); in strict (tenant) mode its certificate file paths are
# refused by field name unless --allow-files is given.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
bh="${BH_BUILDDIR:-$PWD}/cli/bulkhead"
[ -x "$bh" ] || e2e_fail "$bh is not built"
kubesim_start

out=$("$bh" check-kubeconfig "$KUBECONFIG" --connect 2>&1) || e2e_fail "check-kubeconfig --connect failed: $out"
e2e_expect_contains "$out" "auth: client certificate"
e2e_expect_contains "$out" "server: $KUBESIM_URL"
if command -v kubectl >/dev/null 2>&1; then
	want=$(kubectl version -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["serverVersion"]["gitVersion"])') ||
		e2e_fail "kubectl version failed"
	e2e_expect_contains "$out" "server version: $want"
fi

# a kubeconfig naming files (the CA file kubesim wrote) is refused in strict mode
cat >"$E2E_TMP/files.yaml" <<EOT
apiVersion: v1
kind: Config
current-context: f
contexts: [{name: f, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {server: "$KUBESIM_URL", certificate-authority: "$KUBESIM_DIR/ca.crt"}}]
users: [{name: u, user: {token: "unused"}}]
EOT
out=$("$bh" check-kubeconfig "$E2E_TMP/files.yaml" --strict 2>&1) && e2e_fail "strict mode accepted file paths: $out"
e2e_expect_contains "$out" "clusters[0].cluster.certificate-authority: file paths are not allowed in tenant kubeconfigs"
"$bh" check-kubeconfig "$E2E_TMP/files.yaml" --strict --allow-files >/dev/null || e2e_fail "--allow-files did not lift the refusal"

# a tenant kubeconfig with inline data and a token passes strict mode and works
tok=$(kubesim_admin POST /_kubesim/tokens '{"user":"tenant","groups":["system:masters"]}' |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])') || e2e_fail "could not mint a token"
ca=$(base64 -w0 <"$KUBESIM_DIR/ca.crt")
cat >"$E2E_TMP/tenant.yaml" <<EOT
apiVersion: v1
kind: Config
current-context: t
contexts: [{name: t, context: {cluster: c, user: u, namespace: team}}]
clusters: [{name: c, cluster: {server: "$KUBESIM_URL", certificate-authority-data: "$ca"}}]
users: [{name: u, user: {token: "$tok"}}]
EOT
out=$("$bh" check-kubeconfig "$E2E_TMP/tenant.yaml" --strict --connect 2>&1) || e2e_fail "tenant kubeconfig refused: $out"
e2e_expect_contains "$out" "namespace: team"
e2e_expect_contains "$out" "auth: bearer token"
# the same with proxy-url is refused, naming the field, and exits 1
sed -i "s|certificate-authority-data|proxy-url: \"http://127.0.0.1:9\", certificate-authority-data|" "$E2E_TMP/tenant.yaml"
out=$("$bh" check-kubeconfig "$E2E_TMP/tenant.yaml" --strict 2>&1)
[ $? -eq 1 ] || e2e_fail "expected exit 1 for a refused tenant kubeconfig"
e2e_expect_contains "$out" "clusters[0].cluster.proxy-url: proxies are not allowed in tenant kubeconfigs"
echo "PASS: check-kubeconfig"
