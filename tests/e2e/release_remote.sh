#!/usr/bin/env bash
# tests/e2e/release_remote.sh — .spec.kubeConfig (remote clusters): a second
# kubesim is the workload cluster; a Cluster-API-style kubeconfig Secret
# (<cluster>-kubeconfig, key "value", client certificate data inline) sits on
# the management kubesim next to the HelmRelease. Install, upgrade and
# uninstall happen on the workload cluster (objects and Helm storage there,
# none on the management cluster); the management cluster gets the status
# and the Events; the audit records name the remote cluster; the Secret is
# read on every reconcile (rotated credentials are used). A kubeconfig
# that fails the strict tenant policy (an exec plugin) is refused with a
# clear reason, and so is a missing Secret.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
sk_setup
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-w demo
kubesim_spawn workload
rk() { KUBECONFIG="$WORKLOAD_KUBECONFIG" kubectl "$@"; }
rk create namespace team-w >/dev/null || sk_fail "creating team-w on the workload cluster"
kc="$SK_DIR/stage.kubeconfig"
cat >"$kc" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: stage
  cluster:
    server: $WORKLOAD_URL
    certificate-authority-data: $(base64 -w0 <"$WORKLOAD_DIR/ca.crt")
users:
- name: stage-admin
  user:
    client-certificate-data: $(base64 -w0 <"$WORKLOAD_DIR/admin.crt")
    client-key-data: $(base64 -w0 <"$WORKLOAD_DIR/admin.key")
contexts:
- name: stage
  context: {cluster: stage, user: stage-admin}
current-context: stage
YAML
kubectl create secret generic stage-kubeconfig -n team-w --from-file=value="$kc" >/dev/null || sk_fail "creating the kubeconfig Secret"
remote_spec() { printf '  kubeConfig:\n    secretRef:\n      name: %s\n' "$1"; }

# a Secret that is not there yet: a clear reason, retried
sk_apply_hr team-w early demo "$(remote_spec later-kubeconfig)"
r=$(sk_wait_cond team-w early False 60)
e2e_expect_contains "$r" "False|InvalidKubeConfig|could not get KubeConfig Secret 'team-w/later-kubeconfig'" "early Ready"

# install on the workload cluster
sk_apply_hr team-w web demo "$(remote_spec stage-kubeconfig)"
r=$(sk_wait_ready team-w web 90)
e2e_expect_contains "$r" "True|InstallSucceeded|Helm install succeeded for release team-w/web.v1" "web Ready"
[ "$(rk get cm demo-config -n team-w -o jsonpath='{.data.greeting}')" = hello ] || sk_fail "demo-config is not on the workload cluster"
rk get secret sh.helm.release.v1.web.v1 -n team-w >/dev/null 2>&1 || sk_fail "the Helm storage is not on the workload cluster"
kubectl get cm demo-config -n team-w >/dev/null 2>&1 && sk_fail "demo-config was installed on the management cluster"
kubectl get secret sh.helm.release.v1.web.v1 -n team-w >/dev/null 2>&1 && sk_fail "Helm storage written on the management cluster"
kubectl get events -n team-w --field-selector involvedObject.name=web,reason=InstallSucceeded -o name | e2e_has . ||
	sk_fail "no InstallSucceeded Event on the management cluster"
grep "\"cluster\":\"$WORKLOAD_URL (Secret team-w/stage-kubeconfig)\"" "$SK_AUDIT" | e2e_has '"helmRelease":"team-w/web"' ||
	sk_fail "no audit record names the workload cluster: $(grep team-w/web "$SK_AUDIT" | head -3)"

# upgrade there
kubectl patch helmrelease web -n team-w --type=merge -p '{"spec":{"values":{"greeting":"hi"}}}' >/dev/null
rl_wait_gen team-w web 2 90
e2e_expect_contains "$(sk_ready team-w web)" "True|UpgradeSucceeded|Helm upgrade succeeded for release team-w/web.v2" "web Ready after the upgrade"
rk get secret sh.helm.release.v1.web.v2 -n team-w >/dev/null 2>&1 || sk_fail "revision 2 is not on the workload cluster"

# the Secret is read on every reconcile: credentials that change (here to a
# token the workload cluster refuses, then back) are used at once
sed 's/^    client-certificate-data: .*$/    token: not-a-valid-token/; /client-key-data/d' "$kc" >"$SK_DIR/rotated.kubeconfig"
kubectl create secret generic stage-kubeconfig -n team-w --from-file=value="$SK_DIR/rotated.kubeconfig" \
	--dry-run=client -o yaml | kubectl apply -f - >/dev/null 2>&1
rl_request team-w web
r=$(sk_ready team-w web)
case "$r" in False\|*) ;; *) sk_fail "web with refused credentials: Ready '$r'" ;; esac
kubectl create secret generic stage-kubeconfig -n team-w --from-file=value="$kc" --dry-run=client -o yaml |
	kubectl apply -f - >/dev/null 2>&1
rl_request team-w web
e2e_expect_contains "$(sk_ready team-w web)" "True|" "web Ready with the credentials back"

# a kubeconfig that fails the strict policy
cat >"$SK_DIR/exec.kubeconfig" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: $WORKLOAD_URL}
users:
- name: u
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, args: [-c, "cat /etc/shadow"]}
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
YAML
kubectl create secret generic exec-kubeconfig -n team-w --from-file=value.yaml="$SK_DIR/exec.kubeconfig" >/dev/null
sk_apply_hr team-w bad demo "$(remote_spec exec-kubeconfig)"
r=$(sk_wait_cond team-w bad False 60)
e2e_expect_contains "$r" "False|InvalidKubeConfig|KubeConfig Secret 'team-w/exec-kubeconfig': users[0].user.exec" "bad Ready"
grep -q "team-w/bad: started worker" "$SK_DIR/bulkheadd.log" && sk_fail "a worker ran with a kubeconfig the policy refuses"

# uninstall there
kubectl delete helmrelease web -n team-w --wait=false >/dev/null
rl_wait_gone team-w web
rk get cm demo-config -n team-w >/dev/null 2>&1 && sk_fail "demo-config left on the workload cluster after the uninstall"
rk get secret sh.helm.release.v1.web.v2 -n team-w >/dev/null 2>&1 && sk_fail "Helm storage left on the workload cluster"
echo "PASS: .spec.kubeConfig installs, upgrades and uninstalls on the workload cluster; status, Events on the management cluster; audited; strict policy enforced"
