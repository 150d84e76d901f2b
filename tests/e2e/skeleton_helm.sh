#!/usr/bin/env bash
# tests/e2e/skeleton_helm.sh — must-show 2: the real Helm CLI (v4) reads the
# release bulkhead stored: `helm list -n NS` lists it, `helm get manifest`
# prints exactly what `helm template` renders for the same chart once Flux's
# post-renderer has added its origin labels (the real `kubectl kustomize`
# with those labels gives the expected objects), and
# `helm history` shows revision 1 deployed; `helm get values` shows the
# HelmRelease's values.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
sk_setup
chart="$BH_SRCDIR/tests/e2e/skeleton/demo"
sk_publish "$chart" team-h demo
sk_apply_hr team-h web demo "  values:
    replicas: 2
    greeting: <hi> & bye"
sk_wait_ready team-h web 60 >/dev/null
# helm template's output through the real kustomize with Flux's origin labels
# (the post-renderer every Flux release goes through); the documents of both
# compared in the same order, without Helm's "# Source:" comment lines
with_origin() {
	local d
	d=$(mktemp -d "$SK_DIR/kz.XXXXXX")
	cat >"$d/helm.yaml"
	printf 'resources: [helm.yaml]\nlabels:\n- pairs:\n    helm.toolkit.fluxcd.io/name: %s\n    helm.toolkit.fluxcd.io/namespace: %s\n' "$1" "$2" >"$d/kustomization.yaml"
	kubectl kustomize "$d"
}
same_docs() {
	python3 -c 'import sys
def docs(t): return sorted(d.strip() for d in "\n".join(l for l in t.splitlines() if not l.startswith("# Source:")).split("---") if d.strip())
sys.exit(docs(open(sys.argv[1]).read()) != docs(open(sys.argv[2]).read()))' <(echo "$1") <(echo "$2")
}

list=$(helm list -n team-h 2>&1) || sk_fail "helm list failed: $list"
echo "$list"
echo "$list" | awk -F'\t' 'NR==2 {gsub(/ /, ""); print $1, $3, $5, $6, $7}' | e2e_has -x "web 1 deployed demo-0.1.0 1.0.0" \
	|| sk_fail "helm list does not show web revision 1 deployed demo-0.1.0 1.0.0: $list"
lj=$(helm list -n team-h -o json)
[ "$(echo "$lj" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(len(r), r[0]["name"], r[0]["namespace"], r[0]["revision"], r[0]["status"], r[0]["chart"], r[0]["app_version"])')" = "1 web team-h 1 deployed demo-0.1.0 1.0.0" ] \
	|| sk_fail "helm list -o json: $lj"

got=$(helm get manifest web -n team-h 2>&1) || sk_fail "helm get manifest failed: $got"
want=$(helm template web "$chart" -n team-h 2>&1 | with_origin web team-h) || sk_fail "helm template failed: $want"
same_docs "$got" "$want" || { diff <(echo "$want") <(echo "$got"); sk_fail "helm get manifest differs from helm template"; }
echo "$got" | e2e_has "^# Source: demo/templates/" || sk_fail "helm get manifest lost its # Source lines"

hist=$(helm history web -n team-h 2>&1) || sk_fail "helm history failed: $hist"
echo "$hist"
echo "$hist" | awk 'NR==2 {print $1, $NF}' | e2e_has "^1 " || sk_fail "helm history has no revision 1: $hist"
echo "$hist" | e2e_has "Install complete" || sk_fail "helm history lacks 'Install complete': $hist"

vals=$(helm get values web -n team-h -o json 2>&1) || sk_fail "helm get values failed: $vals"
echo "$vals" | python3 -c 'import json,sys; sys.exit(json.load(sys.stdin) != {"greeting": "<hi> & bye", "replicas": 2})' \
	|| sk_fail "helm get values: $vals"

status=$(helm status web -n team-h 2>&1) || sk_fail "helm status failed: $status"
echo "$status" | e2e_has "STATUS: deployed" || sk_fail "helm status: $status"

# the objects carry Helm's ownership metadata, so Helm can take them over
owner=$(kubectl get configmap demo-config -n team-h -o jsonpath='{.metadata.labels.app\.kubernetes\.io/managed-by} {.metadata.annotations.meta\.helm\.sh/release-name}')
[ "$owner" = "Helm web" ] || sk_fail "ownership metadata on demo-config: '$owner'"
# a templated chart, rendered inside the sandbox by the chart engine: the
# stored manifest and notes are what the real helm renders
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/webapp" team-h webapp
sk_apply_hr team-h web2 webapp "  values:
    replicaCount: 3
    config:
      color: red
    extraLabels:
      team: h"
sk_wait_ready team-h web2 60 >/dev/null
got=$(helm get manifest web2 -n team-h 2>&1) || sk_fail "helm get manifest web2 failed: $got"
want=$(helm template web2 "$BH_SRCDIR/tests/e2e/skeleton/webapp" -n team-h --set replicaCount=3 --set config.color=red --set extraLabels.team=h 2>&1 | with_origin web2 team-h) \
	|| sk_fail "helm template webapp failed: $want"
same_docs "$got" "$want" || { diff <(echo "$want") <(echo "$got"); sk_fail "helm get manifest web2 differs from helm template"; }
notes=$(helm get notes web2 -n team-h 2>&1)
e2e_expect_contains "$notes" "web2-webapp is installed in team-h." "helm get notes"
[ "$(kubectl get deploy web2-webapp -n team-h -o jsonpath='{.spec.replicas}')" = 3 ] || sk_fail "web2-webapp replicas"
# an upgrade (new generation): revision 2 deployed, revision 1 superseded
kubectl patch helmrelease web2 -n team-h --type=merge -p '{"spec":{"values":{"replicaCount":2}}}' >/dev/null
end=$((SECONDS + 60))
until [ "$(kubectl get helmrelease web2 -n team-h -o jsonpath='{.status.observedGeneration}')" = 2 ]; do
	[ $SECONDS -ge $end ] && sk_fail "web2 generation 2 not reconciled: $(sk_ready team-h web2)"
	sleep 0.3
done
r=$(sk_ready team-h web2)
e2e_expect_contains "$r" "True|UpgradeSucceeded|Helm upgrade succeeded for release team-h/web2.v2 with chart webapp@1.2.3" "Ready after upgrade"
hist=$(helm history web2 -n team-h -o json) || sk_fail "helm history web2"
[ "$(echo "$hist" | python3 -c 'import json,sys; print(" ".join("%d:%s:%s" % (h["revision"], h["status"], h["description"]) for h in json.load(sys.stdin)))')" = \
  "1:superseded:Install complete 2:deployed:Upgrade complete" ] || sk_fail "helm history after upgrade: $hist"
[ "$(helm get values web2 -n team-h --revision 1 -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["replicaCount"])')" = 3 ] \
	|| sk_fail "helm get values --revision 1"
[ "$(kubectl get deploy web2-webapp -n team-h -o jsonpath='{.spec.replicas}')" = 2 ] || sk_fail "web2-webapp replicas after upgrade"
[ "$(kubectl get helmrelease web2 -n team-h -o jsonpath='{.status.history[0].version} {.status.history[0].status} {.status.history[1].version} {.status.history[1].status} {.status.lastAttemptedReleaseAction}')" = "2 deployed 1 superseded upgrade" ] \
	|| sk_fail "status.history after upgrade: $(kubectl get helmrelease web2 -n team-h -o jsonpath='{.status.history}')"
echo "PASS: helm list/get manifest/history/values/status/notes read bulkhead's releases"
