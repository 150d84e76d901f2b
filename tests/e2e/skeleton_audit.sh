#!/usr/bin/env bash
# tests/e2e/skeleton_audit.sh — the audit log fails closed and is reopened on
# SIGHUP. Two bulkheadd runs against one kubesim, each for its own tenant
# (namespace and ServiceAccount):
#   1. --audit-log /dev/full: no request is forwarded on the tenant's behalf
#      (kubesim's request log has none as its ServiceAccount) and the release
#      ends Ready=False AuditLogFailed, naming the log and the error;
#   2. the log is moved away and bulkheadd gets SIGHUP: the next records land
#      in a new file at the same path, none in the moved one.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_audit_lib.sh"

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
# the worker's readiness watch went as the tenant, as its other requests
w=$(kubesim_log_count verb=watch impersonatedUser="system:serviceaccount:team-hup:deployer") ||
	sk_fail "reading kubesim's request log"
[ "$w" -ge 1 ] || sk_fail "no watch was made as the tenant team-hup"
# each forwarded request's outcome names the verb of its intent (the verb is
# worked out once, when the request is taken), and the verbs follow the methods
python3 - "$SK_DIR/hup.log" <<'PY' || sk_fail "intent and outcome records disagree on a verb"
import json, sys
intent, pairs, seen = {}, 0, set()
recs = [json.loads(l) for l in open(sys.argv[1])]
for r in recs:
    if r.get("phase") == "intent" and "id" in r:
        intent[r["id"]] = r
for r in recs:
    i = intent.get(r.get("id")) if r.get("phase") == "outcome" else None
    if i is None:
        continue
    pairs += 1
    seen.add(r["verb"])
    if r["verb"] != i["verb"]:
        sys.exit("id %s: intent %s, outcome %s (%s)" % (r["id"], i["verb"], r["verb"], r["path"]))
if not pairs or not {"create", "get"} <= seen:
    sys.exit("%d intent/outcome pairs, verbs %s" % (pairs, sorted(seen)))
PY
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

echo "PASS: the audit log fails closed and is reopened on SIGHUP"
