#!/usr/bin/env bash
# tests/e2e/release_hooks.sh — a chart with hooks through the worker: a
# post-install/post-upgrade hook Job runs after the release's objects (Helm's
# order), the HelmRelease gets Ready, the stored release records the hook's
# last run as Succeeded, and the upgrade re-creates the Job
# (before-hook-creation). A failing hook Job fails the upgrade.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
sk_setup
mkdir -p "$SK_DIR/hooked"
cp -r "$BH_SRCDIR/tests/e2e/release/app" "$SK_DIR/hooked/"
cat >> "$SK_DIR/hooked/app/values.yaml" <<'YAML'
# exit code of the post-install/post-upgrade hook Job
hookExit: 0
YAML
cat > "$SK_DIR/hooked/app/templates/hook-job.yaml" <<'YAML'
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-post
  annotations:
    helm.sh/hook: post-install,post-upgrade
    helm.sh/hook-weight: "1"
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: post
        image: busybox:1.36
        command: ["sh", "-c", "exit {{ .Values.hookExit }}"]
YAML
sk_publish "$SK_DIR/hooked/app" team-h app

# the hook records of the stored release NAME version V but its test hook:
# "name:events:phase ..."
hook_runs() {
	kubectl get secret "sh.helm.release.v1.$1.v$2" -n team-h -o jsonpath='{.data.release}' | python3 -c '
import base64, gzip, json, sys
rel = json.loads(gzip.decompress(base64.b64decode(base64.b64decode(sys.stdin.read()))))
print(" ".join("%s:%s:%s" % (h["name"], ",".join(h["events"]), h["last_run"].get("phase", "")) for h in rel.get("hooks") or [] if h["events"] != ["test"]))'
}

sk_apply_hr team-h web app "  values:
    message: one"
r=$(sk_wait_ready team-h web 60)
e2e_expect_contains "$r" "True|InstallSucceeded|Helm install succeeded for release team-h/web.v1 with chart app@1.0.0" "Ready with a post-install hook"
[ "$(hook_runs web 1)" = "web-post:post-install,post-upgrade:Succeeded" ] || sk_fail "hooks of web v1: $(hook_runs web 1)"
kubectl get job web-post -n team-h >/dev/null || sk_fail "hook Job web-post not created"
grep -q "worker team-h/web: running post-install hooks" "$SK_DIR/bulkheadd.log" || sk_fail "no post-install hooks in the log"
uid1=$(kubectl get job web-post -n team-h -o jsonpath='{.metadata.uid}')
helm status web -n team-h >/dev/null || sk_fail "helm status web"
[ "$(rl_status team-h web '{.status.history[0].version}:{.status.history[0].status}')" = "1:deployed" ] \
	|| sk_fail "status.history: $(rl_status team-h web '{.status.history}')"

# upgrade: the Job is deleted before it is created again (before-hook-creation)
kubectl patch helmrelease web -n team-h --type=merge -p '{"spec":{"values":{"message":"two"}}}' >/dev/null
rl_wait_gen team-h web 2 60
e2e_expect_contains "$(sk_ready team-h web)" "True|UpgradeSucceeded|Helm upgrade succeeded for release team-h/web.v2" "Ready after the upgrade"
[ "$(hook_runs web 2)" = "web-post:post-install,post-upgrade:Succeeded" ] || sk_fail "hooks of web v2: $(hook_runs web 2)"
uid2=$(kubectl get job web-post -n team-h -o jsonpath='{.metadata.uid}')
[ -n "$uid2" ] && [ "$uid1" != "$uid2" ] || sk_fail "hook Job not re-created by the upgrade ($uid1 -> $uid2)"

# a failing post-upgrade hook fails the upgrade
kubectl patch helmrelease web -n team-h --type=merge -p '{"spec":{"values":{"hookExit":3},"upgrade":{"remediation":{"retries":0}}}}' >/dev/null
rl_wait_gen team-h web 3 90
r=$(sk_ready team-h web)
e2e_expect_contains "$r" "False|UpgradeFailed|" "Ready after a failing hook"
case "$r" in *"post-upgrade hooks failed"*) ;; *) sk_fail "no hook failure in: $r" ;; esac
[ "$(hook_runs web 3)" = "web-post:post-install,post-upgrade:Failed" ] || sk_fail "hooks of web v3: $(hook_runs web 3)"
echo "PASS: post-install/post-upgrade hook Job through the worker, re-created on upgrade, a failing hook fails the upgrade"
