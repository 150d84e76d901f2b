#!/usr/bin/env bash
# tests/e2e/release_depends.sh — .spec.dependsOn as the v2 document and Flux's
# helm-controller do it: "frontend" depends on "backend", which does not
# exist yet: frontend is Ready=False with Flux's reason DependencyNotReady and
# message, a Normal Event, and no worker; once backend is created and Ready,
# frontend installs (looked at again every --requeue-dependency). Two
# HelmReleases that depend on each other are reported as a cycle
# (DependencyCycle, the cycle named) and install once it is broken. A
# dependency in another namespace is refused under --no-cross-namespace-refs
# (Flux's AccessDenied).
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
sk_setup
chart="$BH_SRCDIR/tests/e2e/skeleton/demo"
wait_reason() { # NS NAME REASON: prints Ready once its reason is REASON
	local end=$((SECONDS + 60)) r
	until r=$(sk_ready "$1" "$2") && [ "$(echo "$r" | cut -d'|' -f2)" = "$3" ]; do
		[ $SECONDS -ge $end ] && sk_fail "$1/$2: Ready reason not $3 after 60s (Ready: '$r')"
		sleep 0.3
	done
	echo "$r"
}
sk_publish "$chart" team-d demo

# frontend waits for a backend that does not exist yet
sk_apply_hr team-d frontend demo "  dependsOn:
  - name: backend"
r=$(wait_reason team-d frontend DependencyNotReady)
e2e_expect_contains "$r" "False|DependencyNotReady|unable to get 'team-d/backend' dependency: helmreleases.helm.toolkit.fluxcd.io \"backend\" not found" "frontend Ready"
sleep 3 # several --requeue-dependency rounds: still waiting, still no worker
e2e_expect_contains "$(sk_ready team-d frontend)" "False|DependencyNotReady|" "frontend still waiting"
grep -q "team-d/frontend: started worker" "$SK_DIR/bulkheadd.log" && sk_fail "a worker ran for frontend before its dependency"
kubectl get secret -n team-d -l owner=helm,name=frontend -o name 2>/dev/null | e2e_has . && sk_fail "frontend was released before its dependency"
ev=$(kubectl get events -n team-d --field-selector involvedObject.name=frontend -o jsonpath='{range .items[*]}{.type}/{.reason}{"\n"}{end}')
e2e_expect_contains "$ev" "Normal/DependencyNotReady" "frontend events (Flux records a Normal Event)"

# backend appears and becomes Ready: frontend follows
sk_apply_hr team-d backend demo
sk_wait_ready team-d backend 60 >/dev/null
sk_wait_ready team-d frontend 60 >/dev/null
b=$(rl_status team-d backend '{.status.history[0].firstDeployed}')
f=$(rl_status team-d frontend '{.status.history[0].firstDeployed}')
[ -n "$b" ] && [ -n "$f" ] && [[ ! "$f" < "$b" ]] || sk_fail "frontend ($f) deployed before backend ($b)"

# a cycle: a clear reason on both, and both install once it is broken
sk_apply_hr team-d one demo "  dependsOn:
  - name: two"
sk_apply_hr team-d two demo "  dependsOn:
  - name: one"
r=$(wait_reason team-d one DependencyCycle)
e2e_expect_contains "$r" "False|DependencyCycle|dependency cycle: team-d/one -> team-d/two -> team-d/one: none of them can become Ready" "one Ready"
r=$(wait_reason team-d two DependencyCycle)
e2e_expect_contains "$r" "False|DependencyCycle|dependency cycle: team-d/two -> team-d/one -> team-d/two" "two Ready"
sk_apply_hr team-d two demo
sk_wait_ready team-d two 60 >/dev/null
sk_wait_ready team-d one 60 >/dev/null

# another namespace's HelmRelease under the lock-down
sk_publish "$chart" team-e demo
sk_apply_hr team-e cross demo "  dependsOn:
  - name: backend
    namespace: team-d"
r=$(wait_reason team-e cross AccessDenied)
e2e_expect_contains "$r" "False|AccessDenied|cross-namespace references are not allowed: cannot access HelmRelease team-d/backend" "cross Ready"
echo "PASS: dependsOn waits for Ready dependencies (DependencyNotReady), names cycles, and obeys the cross-namespace lock-down"
