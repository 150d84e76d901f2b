#!/usr/bin/env bash
# tests/e2e/ops_hang.sh — issue 13: an API server that accepts a tenant's
# requests and never answers them (kubesim's "hang" fault on every request
# made as team-h's ServiceAccount). team-h's two releases end with a precise
# reason once their .spec.timeout passes (WorkerTimeout, naming the
# unanswered request; the forwarding of a hung request times out on its
# own), while team-ok's release, created after them, installs meanwhile:
# the hung requests hold neither the supervisor's loop nor every forwarding
# slot. Once the API server answers again, a reconcile request converges
# team-h with nothing left pending.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
. "$BH_SRCDIR/tests/e2e/ops_lib.sh"
sk_setup --concurrent 3
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-h demo
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-ok demo
kubesim_admin POST /_kubesim/faults \
	'{"action":"hang","count":-1,"match":{"as":"system:serviceaccount:team-h:default"}}' >/dev/null || sk_fail "adding the fault"
t0=$SECONDS
for n in one two; do sk_apply_hr team-h "$n" demo "  releaseName: $n
  timeout: 12s"; done
sleep 1
sk_apply_hr team-ok fine demo
r=$(sk_wait_ready team-ok fine 60)
t_ok=$((SECONDS - t0))
echo "t=${t_ok}s team-ok/fine: $r"
for n in one two; do
	case "$(sk_ready team-h $n)" in True* | False*) sk_fail "team-h/$n ended before team-ok/fine: $(sk_ready team-h $n)" ;; esac
done
for n in one two; do
	r=$(sk_wait_cond team-h "$n" False 90)
	echo "t=$((SECONDS - t0))s team-h/$n: $r"
	case "$r" in
	"False|WorkerTimeout|worker exceeded its deadline of 12s (.spec.timeout) and was killed while the API server had not answered its request") ;;
	*) sk_fail "team-h/$n: no precise reason: $r" ;;
	esac
done
hits=$(kubesim_admin GET /_kubesim/faults | python3 -c 'import json,sys; print(json.load(sys.stdin)["faults"][0]["hits"])')
echo "hung requests: $hits"
[ "$hits" -ge 2 ] || sk_fail "the fault hung $hits requests"
kill -0 "$BULKHEADD_PID" || sk_fail "bulkheadd died"

kubesim_admin DELETE /_kubesim/faults >/dev/null || sk_fail "removing the fault"
for n in one two; do
	rl_request team-h "$n"
	r=$(sk_wait_ready team-h "$n" 60)
	echo "after the API server answers again: team-h/$n: $r"
	case "$(ops_storage team-h "$n")" in *=deployed) ;; *) sk_fail "team-h/$n storage: $(ops_storage team-h "$n")" ;; esac
	case "$(ops_storage team-h "$n")" in *pending*) sk_fail "team-h/$n left pending: $(ops_storage team-h "$n")" ;; esac
done
echo "PASS: hung requests: a precise reason after .spec.timeout, other tenants unaffected, convergence after"
