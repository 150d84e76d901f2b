#!/usr/bin/env bash
# tests/e2e/skeleton_audit.sh — the audit log fails closed, is reopened on
# SIGHUP and rotated by size without losing a record. Three bulkheadd runs
# against one kubesim, each for its own tenant (namespace and ServiceAccount):
#   1. --audit-log /dev/full: no request is forwarded on the tenant's behalf
#      (kubesim's request log has none as its ServiceAccount) and the release
#      ends Ready=False AuditLogFailed, naming the log and the error;
#   2. the log is moved away and bulkheadd gets SIGHUP: the next records land
#      in a new file at the same path, none in the moved one;
#   3. --audit-log-max-size 2048: the log rotates into many files, and the
#      request ids across all of them, intent and outcome paired, match the
#      requests kubesim saw from the tenant one for one.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"

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

sk_setup --audit-log /dev/full
e2e_retry 20 grep -q "watching HelmReleases" "$SK_DIR/bulkheadd.log" || sk_fail "bulkheadd did not start"

# 1. fail closed
tenant team-full
sk_apply_hr team-full demo demo "  serviceAccountName: deployer"
r=$(sk_wait_cond team-full demo False 60)
echo "full: $r"
e2e_expect_contains "$r" "False|AuditLogFailed|the worker was stopped because its request could not be audited: audit log /dev/full: cannot write: No space left on device" "Ready"
n=$(as_tenant team-full) || sk_fail "reading kubesim's request log"
[ "$n" = 0 ] || sk_fail "$n requests were forwarded as the tenant while the audit log failed"
kubectl get configmap -n team-full demo-config >/dev/null 2>&1 && sk_fail "the chart was applied"

# 2. SIGHUP reopens the log
restart --audit-log "$SK_DIR/hup.log"
tenant team-hup
sk_apply_hr team-hup demo demo "  serviceAccountName: deployer"
sk_wait_ready team-hup demo 90 >/dev/null
grep -q '"helmRelease":"team-hup/demo"' "$SK_DIR/hup.log" || sk_fail "no records in hup.log"
mv "$SK_DIR/hup.log" "$SK_DIR/hup.log.moved"
before=$(wc -l <"$SK_DIR/hup.log.moved")
kill -HUP "$BULKHEADD_PID"
e2e_retry 10 grep -q "audit log reopened" "$SK_DIR/bulkheadd.log" || sk_fail "no reopen after SIGHUP"
kill -0 "$BULKHEADD_PID" 2>/dev/null || sk_fail "bulkheadd died of SIGHUP"
[ -f "$SK_DIR/hup.log" ] || sk_fail "SIGHUP did not create a new $SK_DIR/hup.log"
kubectl annotate helmrelease demo -n team-hup --overwrite reconcile.fluxcd.io/requestedAt="$(date +%s)" >/dev/null
e2e_retry 60 grep -q '"phase":"outcome".*"helmRelease":"team-hup/demo"' "$SK_DIR/hup.log" ||
	sk_fail "no new records in the reopened log"
[ "$(wc -l <"$SK_DIR/hup.log.moved")" = "$before" ] || sk_fail "records went on into the moved file"

# 3. rotation by size loses nothing
restart --audit-log "$SK_DIR/rot.log" --audit-log-max-size 2048 --audit-log-max-backups 500
tenant team-rot
sk_apply_hr team-rot demo demo "  serviceAccountName: deployer"
sk_wait_ready team-rot demo 90 >/dev/null
sleep 1
files=$(ls "$SK_DIR"/rot.log* | wc -l)
[ "$files" -ge 3 ] || sk_fail "expected the log to rotate into several files, found $files"
for f in "$SK_DIR"/rot.log*; do
	[ "$(stat -c %s "$f")" -le 2048 ] || sk_fail "$f is larger than --audit-log-max-size"
done
seen=$(as_tenant team-rot) || sk_fail "reading kubesim's request log"
cat "$SK_DIR"/rot.log* | python3 -c '
import json, sys
intent, outcome = set(), []
for line in sys.stdin:
    r = json.loads(line)
    if r["helmRelease"] != "team-rot/demo":
        continue
    assert r["cluster"], r
    if r["phase"] == "intent":
        intent.add(r["id"])
    elif r["phase"] == "outcome":
        outcome.append(r["id"])
        assert r["status"] > 0 and r["identity"] == "system:serviceaccount:team-rot:deployer", r
assert len(outcome) == len(set(outcome)), "an outcome recorded twice"
assert intent == set(outcome), "intent and outcome records do not pair: %s" % (intent ^ set(outcome))
want = int(sys.argv[1])
assert len(outcome) == want, "%d outcomes across the rotated files, kubesim saw %d requests" % (len(outcome), want)
print("rotation: %d requests, each with its intent and outcome, across %s files" % (want, sys.argv[2]))
' "$seen" "$files" || sk_fail "records lost across the rotation"
[ "$seen" -gt 5 ] || sk_fail "too few requests ($seen) to tell"
echo "PASS: the audit log fails closed, reopens on SIGHUP and rotates without losing a record"
