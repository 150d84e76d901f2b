# tests/e2e/skeleton_audit_lib.sh — helpers of the audit log e2e tests
# (source after skeleton_lib.sh):
#   tenant NS        namespace NS, ServiceAccount "deployer" with a Role over
#                    what the demo chart makes, and HelmChart NS/demo
#   as_tenant NS     requests kubesim saw made as that ServiceAccount
#   restart ARGS...  a new bulkheadd with ARGS, once it watches
tenant() { # tenant NS: namespace, ServiceAccount "deployer" and its Role
	kubectl apply -f - >/dev/null <<YAML || sk_fail "creating tenant $1"
apiVersion: v1
kind: Namespace
metadata: {name: $1}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: deployer, namespace: $1}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: deployer, namespace: $1}
rules:
- apiGroups: ["", apps]
  resources: [secrets, configmaps, services, deployments]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: deployer, namespace: $1}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: deployer}
subjects: [{kind: ServiceAccount, name: deployer, namespace: $1}]
YAML
	sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" "$1" demo
}
as_tenant() { kubesim_log_count impersonatedUser="system:serviceaccount:$1:deployer"; }
restart() { # restart BULKHEADD-ARGS...: a new bulkheadd, up once it watches
	kill -TERM "$BULKHEADD_PID" && wait "$BULKHEADD_PID" 2>/dev/null
	: >"$SK_DIR/bulkheadd.log"
	sk_start_bulkheadd "$@"
	e2e_retry 20 grep -q "watching HelmReleases" "$SK_DIR/bulkheadd.log" || sk_fail "bulkheadd did not start"
}

