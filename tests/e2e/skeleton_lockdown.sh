#!/usr/bin/env bash
# tests/e2e/skeleton_lockdown.sh — bulkheadd locked down as the shipped
# configs run it (--default-service-account default --no-cross-namespace-refs,
# the bulkheadd ServiceAccount token of deploy/):
#  - a HelmRelease without a ServiceAccount and with targetNamespace:
#    kube-system acts as team-a's "default" ServiceAccount: nothing is created
#    in kube-system, and Ready names the identity and the refusal;
#  - a cross-namespace chartRef, or .spec.chart sourceRef, is refused with
#    Flux's AccessDenied reason and message (Stalled, Warning Event), no
#    worker runs, and fixing the spec reconciles it;
#  - an invalid serviceAccountName is a clear error (no worker), and the
#    HelmRelease deletes cleanly; so does one whose ServiceAccount is gone
#    (as Flux: let go without an uninstall, which nobody could do);
#  - without --default-service-account, a HelmRelease without a
#    ServiceAccount is refused (never run as the controller) and deletes
#    cleanly;
#  - the controller's own requests use exactly the ClusterRole's rules (but
#    for those of the built-in sources, which sources_helmrepo.sh uses).
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
sk_setup
demo="$BH_SRCDIR/tests/e2e/skeleton/demo"
sk_publish "$demo" team-a demo
sk_publish "$demo" team-b demo
sk_publish "$demo" team-c demo
sk_publish "$demo" team-d demo
kubectl create serviceaccount deployer -n team-d >/dev/null
kubectl create rolebinding deployer -n team-d --clusterrole=admin --serviceaccount=team-d:deployer >/dev/null
chart_ref() { printf '  chartRef:\n    kind: HelmChart\n    name: demo\n    namespace: %s\n' "$1"; }
hr() { # hr NS NAME SPEC-LINES
	kubectl apply -f - >/dev/null <<YAML || sk_fail "applying HelmRelease $1/$2"
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: $2
  namespace: $1
spec:
  interval: 10m
$3
YAML
}
hr team-a sneaky "$(chart_ref team-a)
  targetNamespace: kube-system"
hr team-a cross "$(chart_ref team-b)"
hr team-a cross-chart "  chart:
    spec:
      chart: demo
      sourceRef:
        kind: HelmRepository
        name: local
        namespace: team-b"
hr team-a badsa "$(chart_ref team-a)
  serviceAccountName: Bad_Name"
hr team-d orphan "$(chart_ref team-d)
  serviceAccountName: deployer"
hr team-c templated "  chart:
    spec:
      chart: demo
      version: 0.1.0
      sourceRef:
        kind: HelmRepository
        name: local"

expect_cond() { # expect_cond NS NAME TYPE WANT
	local r
	r=$(rl_cond "$1" "$2" "$3")
	e2e_expect_contains "$r" "$4" "$3 of $1/$2"
}
# a HelmRelease without a ServiceAccount acts as its namespace's default one
r=$(sk_wait_cond team-a sneaky False 90)
echo "sneaky: $r"
e2e_expect_contains "$r" 'User "system:serviceaccount:team-a:default" cannot' "Ready of sneaky"
e2e_expect_contains "$r" 'in the namespace "kube-system"' "Ready of sneaky"
# cross-namespace references: Flux's AccessDenied, stalled, no worker
r=$(sk_wait_cond team-a cross False 60)
echo "cross: $r"
[ "$r" = "False|AccessDenied|cross-namespace references are not allowed: cannot access HelmChart team-b/demo" ] \
	|| sk_fail "Ready of team-a/cross: $r"
expect_cond team-a cross Stalled "True|AccessDenied|cross-namespace references are not allowed"
r=$(sk_wait_cond team-a cross-chart False 60)
echo "cross-chart: $r"
[ "$r" = "False|AccessDenied|cross-namespace references are not allowed: cannot access HelmChart team-b/team-a-cross-chart" ] \
	|| sk_fail "Ready of team-a/cross-chart: $r"
kubectl get helmchart team-a-cross-chart -n team-b >/dev/null 2>&1 && sk_fail "a HelmChart was created in team-b"
# an invalid ServiceAccount name
r=$(sk_wait_cond team-a badsa False 60)
echo "badsa: $r"
e2e_expect_contains "$r" 'False|InvalidServiceAccountName|.spec.serviceAccountName "Bad_Name" is invalid: a lowercase RFC 1123 subdomain' "Ready of badsa"
expect_cond team-a badsa Stalled "True|InvalidServiceAccountName"
events=$(kubectl get events -n team-a -o json | python3 -c '
import json, sys
for e in json.load(sys.stdin)["items"]:
    print(e["involvedObject"]["name"], e["type"], e["reason"])')
for want in "cross Warning AccessDenied" "cross-chart Warning AccessDenied" "badsa Warning InvalidServiceAccountName"; do
	e2e_expect_contains "$events" "$want" "events of team-a"
done
for n in cross cross-chart badsa; do
	grep -q "\"helmRelease\":\"team-a/$n\"" "$SK_AUDIT" && sk_fail "a worker ran for team-a/$n"
	grep -q "team-a/$n: started worker" "$SK_DIR/bulkheadd.log" && sk_fail "a worker was started for team-a/$n"
done

# .spec.chart in the own namespace: bulkheadd creates the HelmChart (as
# source-controller would fill it, the test gives it the published artifact)
e2e_retry 30 kubectl get helmchart team-c-templated -n team-c -o name >/dev/null 2>&1 || sk_fail "no HelmChart team-c/team-c-templated"
st=$(kubectl get helmchart demo -n team-c -o jsonpath='{.status}')
kubectl patch helmchart team-c-templated -n team-c --subresource=status --type=merge -p "{\"status\":$st}" >/dev/null \
	|| sk_fail "setting the artifact of team-c/team-c-templated"
sk_wait_ready team-c templated 90 >/dev/null

# fixing the spec un-stalls it
kubectl patch helmrelease cross -n team-a --type=merge -p '{"spec":{"chartRef":{"namespace":"team-a"}}}' >/dev/null
r=$(sk_wait_ready team-a cross 90)
echo "cross, fixed: $r"
[ -z "$(rl_cond team-a cross Stalled)" ] || sk_fail "team-a/cross still Stalled: $(rl_cond team-a cross Stalled)"

# nothing of the kube-system release anywhere
out=$(kubectl get configmaps,services,deployments -n kube-system -o name)
case "$out" in *demo*) sk_fail "objects were created in kube-system: $out" ;; esac
out=$(kubectl get secrets -A -o name)
case "$out" in *sh.helm.release.v1.kube-system-sneaky*) sk_fail "a release record was stored" ;; esac

# the invalid one deletes cleanly (no uninstall to do as nobody), and so
# does the templated one (uninstalled as team-c's default ServiceAccount),
# and the orphan whose ServiceAccount is gone (let go, not uninstalled)
sk_wait_ready team-d orphan 60 >/dev/null
kubectl delete serviceaccount deployer -n team-d >/dev/null
kubectl delete helmrelease badsa -n team-a --wait=false >/dev/null
kubectl delete helmrelease templated -n team-c --wait=false >/dev/null
kubectl delete helmrelease orphan -n team-d --wait=false >/dev/null
e2e_retry 60 bash -c '! kubectl get helmrelease badsa -n team-a >/dev/null 2>&1' || sk_fail "team-a/badsa stuck: $(rl_status team-a badsa '{.metadata}')"
e2e_retry 60 bash -c '! kubectl get helmrelease templated -n team-c >/dev/null 2>&1' || sk_fail "team-c/templated stuck"
e2e_retry 60 bash -c '! kubectl get helmrelease orphan -n team-d >/dev/null 2>&1' || sk_fail "team-d/orphan stuck"
kubectl get configmap demo-config -n team-c >/dev/null 2>&1 && sk_fail "team-c/templated was not uninstalled"
kubectl get configmap demo-config -n team-d >/dev/null 2>&1 || sk_fail "team-d/orphan was uninstalled without its ServiceAccount"
events=$(kubectl get events -n team-d -o json | python3 -c '
import json, sys
for e in json.load(sys.stdin)["items"]:
    print(e["involvedObject"]["name"], e["type"], e["reason"], e["message"])')
e2e_expect_contains "$events" "orphan Warning UninstallSkipped Helm release not uninstalled, the HelmRelease is let go: ServiceAccount team-d/deployer not found" "events of team-d"

# the controller's own requests (not as a tenant) are exactly what its
# ClusterRole grants: no rule is unused, none missing
used=$(python3 - "$KUBESIM_DIR/requests.log" <<'PY'
import json, sys
used = set()
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("user") != "system:serviceaccount:bulkhead-system:bulkheadd" or not e.get("userAgent", "").startswith("bulkhead/"):
        continue
    if e.get("impersonatedUser"):
        used.add("core serviceaccounts impersonate")
    elif e.get("resource"):
        used.add("%s %s%s %s" % (e.get("group") or "core", e["resource"],
                                 "/" + e["subresource"] if e.get("subresource") else "", e["verb"]))
print("\n".join(sorted(used)))
PY
)
granted=$(kubectl get clusterrole bulkheadd -o json | python3 -c '
import json, sys
out = set()
for r in json.load(sys.stdin)["rules"]:
    for g in r["apiGroups"]:
        for res in r["resources"]:
            for v in r["verbs"]:
                out.add("%s %s %s" % (g or "core", res, v))
print("\n".join(sorted(out)))')
echo "--- the controller's own requests:"
echo "$used"
# rules only the built-in sources use (--sources=builtin, exercised under
# this token by sources_helmrepo.sh); any other unused rule is too much
builtin_only="core secrets get
source.toolkit.fluxcd.io helmcharts delete
source.toolkit.fluxcd.io helmcharts list
source.toolkit.fluxcd.io helmcharts patch
source.toolkit.fluxcd.io helmcharts watch
source.toolkit.fluxcd.io helmcharts/status get
source.toolkit.fluxcd.io helmcharts/status patch
source.toolkit.fluxcd.io helmrepositories get
source.toolkit.fluxcd.io helmrepositories list
source.toolkit.fluxcd.io helmrepositories watch
source.toolkit.fluxcd.io helmrepositories/status get
source.toolkit.fluxcd.io helmrepositories/status patch
source.toolkit.fluxcd.io ocirepositories get
source.toolkit.fluxcd.io ocirepositories list
source.toolkit.fluxcd.io ocirepositories watch
source.toolkit.fluxcd.io ocirepositories/status get
source.toolkit.fluxcd.io ocirepositories/status patch"
extra=$(LC_ALL=C comm -23 <(echo "$granted") <(echo "$used") | LC_ALL=C comm -23 - <(echo "$builtin_only" | LC_ALL=C sort))
missing=$(LC_ALL=C comm -13 <(echo "$granted") <(echo "$used"))
[ -z "$extra$missing" ] || sk_fail "ClusterRole bulkheadd and the controller's own requests differ:
granted but never used (remove the rule, or exercise it here): $extra
used but not granted: $missing"

# without --default-service-account: refused, never sent as the controller
kill -TERM "$BULKHEADD_PID" && wait "$BULKHEADD_PID" 2>/dev/null
SK_NO_DEFAULT_SA=1 sk_start_bulkheadd
hr team-a nosa "$(chart_ref team-a)
  targetNamespace: kube-system"
r=$(sk_wait_cond team-a nosa False 60)
echo "nosa: $r"
e2e_expect_contains "$r" "False|AccessDenied|no ServiceAccount to act as: .spec.serviceAccountName is not set and bulkheadd runs without --default-service-account" "Ready of nosa"
expect_cond team-a nosa Stalled "True|AccessDenied"
grep -q '"helmRelease":"team-a/nosa"' "$SK_AUDIT" && sk_fail "a request of team-a/nosa was forwarded"
kubectl delete helmrelease nosa -n team-a --wait=false >/dev/null
e2e_retry 60 bash -c '! kubectl get helmrelease nosa -n team-a >/dev/null 2>&1' || sk_fail "team-a/nosa stuck"
echo "PASS: lock-down: tenant identity or refusal, no cross-namespace references, clean deletes, exact RBAC"
