#!/usr/bin/env bash
# tests/e2e/kube_client.sh — runs the kube/ client tests (tests/unit/test_kube_e2e)
# against a freshly started kubesim, through the libcurl transport, with
# kubesim's fault injection: retries and Retry-After, pagination, watch
# resume across dropped connections, relist after 410, typed errors.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
bin="${BH_BUILDDIR:-$PWD}/tests/unit/test_kube_e2e"
[ -x "$bin" ] || e2e_fail "$bin is not built (make check builds it)"
kubesim_start
# golden discovery output from the real kubectl, when it is installed
api_versions=
if command -v kubectl >/dev/null 2>&1; then
	kubectl api-versions >"$E2E_TMP/api-versions" || e2e_fail "kubectl api-versions failed"
	api_versions="$E2E_TMP/api-versions"
fi
KUBE_E2E_KUBECONFIG="$KUBECONFIG" KUBE_E2E_API_VERSIONS="$api_versions" "$bin" || e2e_fail "test_kube_e2e failed"
