#!/usr/bin/env bash
# tests/e2e/skeleton_audit_rotate.sh — the audit log rotates by size without
# losing a record, and a request in flight at a crash is on record:
#   1. --audit-log-max-size 2048: the log rotates into many files, and the
#      request ids across all of them, intent and outcome paired, match the
#      requests kubesim saw from the tenant one for one;
#   2. bulkheadd is killed (SIGKILL) while a request hangs in kubesim: the
#      request is on record as an intent without an outcome.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_audit_lib.sh"

SK_ROT=${E2E_TMP}/skeleton/rot.log
sk_setup --audit-log "$SK_ROT" --audit-log-max-size 2048 --audit-log-max-backups 500
# 1. rotation by size loses nothing
e2e_retry 20 grep -q "watching HelmReleases" "$SK_DIR/bulkheadd.log" || sk_fail "bulkheadd did not start"
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

# 2. a request in flight at a crash is on record
tenant team-crash
kubesim_admin POST /_kubesim/faults \
	'{"action":"hang","ms":10000,"count":-1,"match":{"as":"system:serviceaccount:team-crash:deployer","resource":"configmaps"}}' \
	>/dev/null || sk_fail "adding the hang fault"
sk_apply_hr team-crash demo demo "  serviceAccountName: deployer"
cm='"phase":"intent",.*"helmRelease":"team-crash/demo",.*"path":"/api/v1/namespaces/team-crash/configmaps'
e2e_retry 60 grep -q "$cm" "$SK_DIR/rot.log" || sk_fail "no intent record for the hanging request"
kill -KILL "$BULKHEADD_PID"
wait "$BULKHEADD_PID" 2>/dev/null
BULKHEADD_PID=
kubesim_admin DELETE /_kubesim/faults >/dev/null
id=$(grep "$cm" "$SK_DIR/rot.log" | head -1 | sed 's/.*"id":"\([^"]*\)".*/\1/')
[ -n "$id" ] || sk_fail "the intent record has no id"
grep "\"id\":\"$id\"" "$SK_DIR"/rot.log* | e2e_has '"phase":"outcome"' && sk_fail "request $id has an outcome: it was not in flight"
echo "crash: request $id is on record as an intent without an outcome"
echo "PASS: the audit log rotates without losing a record, and records requests in flight"
