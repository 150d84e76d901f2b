#!/usr/bin/env bash
# tests/e2e/template_dry_run_server.sh — `bulkhead template --dry-run=server`
# and `--validate` talk to the cluster as `helm template` does with them:
# the capabilities from discovery (.Capabilities.KubeVersion and
# .APIVersions, --api-versions ignored), `lookup` reading live objects, the
# CRDs warning (not with --skip-crds), install's check that no rendered
# object exists without the release's ownership metadata (not with
# --take-ownership or --is-upgrade), the reachability errors, and
# --kube-apiserver/--kube-token/--kube-ca-file/--kube-insecure-skip-tls-verify
# over the kubeconfig, --kube-as-user/--kube-as-group (impersonation: RBAC
# of the impersonated user, the API server's refusal text from `lookup`,
# clientcmd's refusal of groups without a user). Each case
# runs the real helm and bulkhead against the same kubesim and compares
# stdout, stderr and the exit status. (Not compared: helm's validation of
# the objects against the server's OpenAPI schema, which bulkhead lacks.)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
: "${BH_BUILDDIR:=$BH_SRCDIR/build}"
BH=$BH_BUILDDIR/cli/bulkhead
[ -x "$BH" ] || e2e_skip "bulkhead not built"
e2e_need_tool kubectl helm python3
kubesim_start
T=$E2E_TMP/charts
mkdir -p "$T/lk/templates" "$T/lk/crds"
printf 'apiVersion: v2\nname: lk\nversion: 1.0.0\n' >"$T/lk/Chart.yaml"
cat >"$T/lk/templates/cm.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: lk-out
data:
  seen: {{ (lookup "v1" "ConfigMap" "default" "taken").data.k | quote }}
  all: {{ len (lookup "v1" "ConfigMap" "default" "").items | quote }}
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
  apps: {{ .Capabilities.APIVersions.Has "apps/v1" | quote }}
  foo: {{ .Capabilities.APIVersions.Has "foo/v1" | quote }}
EOF
printf 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: xs.example.com\n' \
	>"$T/lk/crds/x.yaml"
mkdir -p "$T/own/templates"
printf 'apiVersion: v2\nname: own\nversion: 1.0.0\n' >"$T/own/Chart.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: taken\ndata:\n  k: mine\n' >"$T/own/templates/cm.yaml"
kubectl create configmap taken --from-literal=k=live >/dev/null || e2e_fail "kubectl create configmap"
printf 'apiVersion: v1\nclusters:\n- cluster: {server: "http://127.0.0.1:1"}\n  name: d\ncontexts:\n- context: {cluster: d, user: u}\n  name: d\ncurrent-context: d\nusers:\n- name: u\n  user: {token: x}\n' \
	>"$T/dead.kubeconfig"

n=0
same() {
	local hs bs
	n=$((n + 1))
	helm template x "$@" >"$T/h.out" 2>"$T/h.err"; hs=$?
	"$BH" template x "$@" >"$T/b.out" 2>"$T/b.err"; bs=$?
	cmp -s "$T/h.out" "$T/b.out" || { diff "$T/h.out" "$T/b.out" | head -20; e2e_fail "case $n: stdout differs: $*"; }
	cmp -s "$T/h.err" "$T/b.err" || { diff "$T/h.err" "$T/b.err"; e2e_fail "case $n: stderr differs: $*"; }
	[ $hs = $bs ] || e2e_fail "case $n: exit status $hs (helm) vs $bs: $*"
}
same "$T/lk" --dry-run=server
grep -q 'seen: "live"' "$T/b.out" || e2e_fail "lookup did not read the live ConfigMap"
same "$T/lk" --validate
same "$T/lk" --dry-run=server --skip-crds --api-versions foo/v1 --debug
same "$T/lk" --dry-run=server --kube-context nope
same "$T/own" --dry-run=server
e2e_has 'exists and cannot be imported' <"$T/b.err" || e2e_fail "the unowned ConfigMap was not refused"
same "$T/own" --validate -n default
same "$T/own" --dry-run=server --take-ownership
same "$T/own" --dry-run=server --is-upgrade
same "$T/own" --dry-run=server -n other
same "$T/lk" --dry-run=server --kubeconfig "$T/dead.kubeconfig"
same "$T/lk" --dry-run=server --kubeconfig "$T/none.kubeconfig"
# --kube-* over the kubeconfig
same "$T/lk" --dry-run=server --kube-apiserver http://127.0.0.1:1
same "$T/lk" --dry-run=server --kubeconfig "$T/dead.kubeconfig" --kube-apiserver "$(cat "$KUBESIM_DIR/url")" \
	--kube-token "$(cat "$KUBESIM_DIR/admin.token")" --kube-ca-file "$KUBESIM_DIR/ca.crt"
same "$T/lk" --dry-run=server --kubeconfig "$T/dead.kubeconfig" --kube-apiserver "$(cat "$KUBESIM_DIR/url")" \
	--kube-token "$(cat "$KUBESIM_DIR/admin.token")" --kube-insecure-skip-tls-verify
# impersonation: a ServiceAccount that may view default, one that may not, a group
kubectl create ns team >/dev/null && kubectl create sa app -n team >/dev/null &&
	kubectl create rolebinding view-app -n default --clusterrole=view --serviceaccount=team:app >/dev/null ||
	e2e_fail "kubectl: ServiceAccount team/app"
same "$T/lk" --dry-run=server --kube-as-user system:serviceaccount:team:app
grep -q 'seen: "live"' "$T/b.out" || e2e_fail "lookup as team:app did not read the live ConfigMap"
same "$T/lk" --dry-run=server --kube-as-user system:serviceaccount:team:other
e2e_has 'User "system:serviceaccount:team:other" cannot get' <"$T/b.err" || e2e_fail "impersonation was not applied"
same "$T/lk" --dry-run=server --kube-as-user bob --kube-as-group system:masters
same "$T/lk" --dry-run=server --kube-as-group system:masters
echo "PASS: $n --dry-run=server/--validate cases identical to helm template"
