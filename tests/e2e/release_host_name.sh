#!/usr/bin/env bash
# tests/e2e/release_host_name.sh — bulkheadd with the API server given by a
# host name, as an off-cluster kubeconfig (or a Cluster API one) has it:
# https://localhost:PORT (kubesim's certificate names DNS:localhost), under
# deploy/'s ServiceAccount. A HelmRelease is installed (Ready), upgraded and,
# deleted, uninstalled: the workers' requests, bulkheadd's status writes
# and the workers' watches all reach the server by that name, over
# bulkheadd's own HTTP/2 client (kube/h2.c: the name looked up off the
# loop's thread, the certificate checked for it), as its log says.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
E2E_SERVER_HOST=localhost
sk_setup
grep -qx "    server: https://localhost:$KUBESIM_PORT" "$SK_KUBECONFIG" \
	|| sk_fail "bulkheadd's kubeconfig does not name the server by host name: $(grep server: "$SK_KUBECONFIG")"
sk_publish "$BH_SRCDIR/tests/e2e/release/app" team-n app
sk_apply_hr team-n web app "  values:
    message: one"
r=$(sk_wait_ready team-n web 60)
e2e_expect_contains "$r" "True|InstallSucceeded|Helm install succeeded for release team-n/web.v1 with chart app@1.0.0" "Ready after install"
[ "$(kubectl get cm web-config -n team-n -o jsonpath='{.data.message}')" = one ] || sk_fail "ConfigMap web-config: $(kubectl get cm web-config -n team-n -o yaml)"

# an upgrade
kubectl patch helmrelease web -n team-n --type=merge -p '{"spec":{"values":{"message":"two"}}}' >/dev/null
rl_wait_gen team-n web 2 60
e2e_expect_contains "$(sk_ready team-n web)" "True|UpgradeSucceeded|Helm upgrade succeeded for release team-n/web.v2 with chart app@1.0.0" "Ready after upgrade"
[ "$(rl_history team-n web)" = "1:superseded 2:deployed" ] || sk_fail "helm history after upgrade: $(rl_history team-n web)"
[ "$(kubectl get cm web-config -n team-n -o jsonpath='{.data.message}')" = two ] || sk_fail "ConfigMap web-config not upgraded"

# bulkheadd's own HTTP/2 client (kube/h2.c) served it, not libcurl
grep -q "forwarding over HTTP/2 (kube/h2.c) to https://localhost:$KUBESIM_PORT" "$SK_DIR/bulkheadd.log" \
	|| sk_fail "bulkheadd did not forward over its HTTP/2 client: $(grep forwarding "$SK_DIR/bulkheadd.log")"
grep -q "forwarding by libcurl" "$SK_DIR/bulkheadd.log" && sk_fail "bulkheadd forwards by libcurl: $(grep forwarding "$SK_DIR/bulkheadd.log")"

# deletion: the release is uninstalled, then the HelmRelease goes
kubectl delete helmrelease web -n team-n --wait=false >/dev/null
rl_wait_gone team-n web
helm status web -n team-n >/dev/null 2>&1 && sk_fail "release web still installed"
[ -z "$(kubectl get secrets -n team-n -l owner=helm,name=web -o name)" ] || sk_fail "Helm storage of web left"
kubectl get cm web-config -n team-n >/dev/null 2>&1 && sk_fail "ConfigMap web-config left"
grep -q "team-n/web: Ready=True UninstallSucceeded: Helm uninstall succeeded for release team-n/web.v2 with chart app@1.0.0" "$SK_DIR/bulkheadd.log" \
	|| sk_fail "no uninstall outcome in the log"
echo "PASS: install, upgrade and uninstall with the API server given by host name"
