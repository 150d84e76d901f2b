#!/usr/bin/env bash
# tests/e2e/ops_chart.sh — issue 13: deploy/chart/, a Helm chart for bulkhead
# itself.
#  - `bulkhead template` renders it byte-identically to the real
#    `helm template`, with the default values and with the others that change
#    what it renders (no leader election, a standby replica), and fails as
#    helm does on a refused combination;
#  - with the defaults it renders the objects of deploy/bulkhead.yaml (the
#    same least-privilege RBAC, Deployment strategy and probes,
#    PodDisruptionBudget) but for the objects' own labels (Helm's set);
#  - strategy: RollingUpdate with leader election, Recreate without it;
#  - the real `helm install` puts it into kubesim, and a bulkheadd running with
#    the token of the ServiceAccount it created installs a HelmRelease (the
#    chart's RBAC is enough: kubesim refused none of its own requests).
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
[ -x "$SK_BULKHEADD" ] || e2e_skip "$SK_BULKHEADD not built"
e2e_need_tool kubectl helm python3 curl
BH=$BH_BUILDDIR/cli/bulkhead
CHART=$BH_SRCDIR/deploy/chart
SK_DIR="$E2E_TMP/skeleton"
mkdir -p "$SK_DIR/charts"
export SK_DIR

# 1. byte-identical to helm template
n=0
for set in "" "--set leaderElection=false" "--set replicaCount=2" "--set replicaCount=2,leaderElection=false"; do
	# shellcheck disable=SC2086
	helm template bulkheadd "$CHART" -n bulkhead-system $set >"$E2E_TMP/helm.out" 2>&1
	hrc=$?
	# shellcheck disable=SC2086
	"$BH" template bulkheadd "$CHART" -n bulkhead-system $set >"$E2E_TMP/bh.out" 2>&1
	brc=$?
	[ "$hrc" = "$brc" ] || e2e_fail "template $set: helm exited $hrc, bulkhead $brc: $(head -3 "$E2E_TMP/bh.out")"
	cmp -s "$E2E_TMP/helm.out" "$E2E_TMP/bh.out" || { diff -u "$E2E_TMP/helm.out" "$E2E_TMP/bh.out" | head -30; e2e_fail "bulkhead template $set differs from helm template"; }
	n=$((n + 1))
done
e2e_has "replicaCount above 1 needs leaderElection" "$E2E_TMP/bh.out" || e2e_fail "no refusal of replicas without leader election: $(cat "$E2E_TMP/bh.out")"
echo "bulkhead template = helm template for $n value sets (one refused by both)"

# 2. the objects of deploy/bulkhead.yaml, but for their labels; 3. strategies
helm template bulkheadd "$CHART" -n bulkhead-system >"$E2E_TMP/chart.yaml"
helm template bulkheadd "$CHART" -n bulkhead-system --set leaderElection=false >"$E2E_TMP/chart-noel.yaml"
python3 - "$E2E_TMP/chart.yaml" "$BH_SRCDIR/deploy/bulkhead.yaml" "$E2E_TMP/chart-noel.yaml" <<'PY' || e2e_fail "the chart and deploy/bulkhead.yaml differ"
import sys, yaml
def objs(path):  # kind/name -> object, without the labels of the object itself (selectors and pod labels stay)
    out = {}
    for d in yaml.safe_load_all(open(path)):
        if d:
            d["metadata"].pop("labels", None)
            out["%s/%s" % (d["kind"], d["metadata"]["name"])] = d
    return out
chart, deploy = objs(sys.argv[1]), objs(sys.argv[2])
deploy.pop("Namespace/bulkhead-system")  # helm install --create-namespace
assert sorted(chart) == sorted(deploy), "objects: chart %s, deploy/ %s" % (sorted(chart), sorted(deploy))
for k in chart:
    assert chart[k] == deploy[k], "%s differs:\nchart:   %s\ndeploy/: %s" % (k, chart[k], deploy[k])
dep = chart["Deployment/bulkheadd"]["spec"]
assert dep["strategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}, dep["strategy"]
assert "--enable-leader-election" in dep["template"]["spec"]["containers"][0]["args"]
noel = objs(sys.argv[3])
spec = noel["Deployment/bulkheadd"]["spec"]
assert spec["strategy"] == {"type": "Recreate"}, spec["strategy"]
assert "--enable-leader-election" not in spec["template"]["spec"]["containers"][0]["args"]
assert "Role/bulkheadd-leader-election" not in noel
print("%d objects as deploy/bulkhead.yaml; RollingUpdate with leader election, Recreate without" % len(chart))
PY

# 4. helm install into kubesim, then a bulkheadd as the chart's ServiceAccount
kubesim_start
kubectl apply --server-side --field-manager=bulkhead-install -f "$BH_SRCDIR/deploy/crds/" >/dev/null || e2e_fail "applying deploy/crds"
helm install bulkheadd "$CHART" -n bulkhead-system --create-namespace --wait --timeout 60s >"$E2E_TMP/install.out" 2>&1 \
	|| e2e_fail "helm install: $(cat "$E2E_TMP/install.out")"
[ "$(helm status bulkheadd -n bulkhead-system -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["info"]["status"])')" = deployed ] \
	|| e2e_fail "helm status: $(helm status bulkheadd -n bulkhead-system)"
[ "$(kubectl get deploy bulkheadd -n bulkhead-system -o jsonpath='{.spec.strategy.type}/{.status.readyReplicas}')" = "RollingUpdate/1" ] \
	|| e2e_fail "Deployment: $(kubectl get deploy bulkheadd -n bulkhead-system -o jsonpath='{.spec.strategy} {.status}')"
[ "$(kubectl get pdb bulkheadd -n bulkhead-system -o jsonpath='{.spec.maxUnavailable}')" = 1 ] || e2e_fail "no PodDisruptionBudget"
tok=$(kubectl create token bulkheadd -n bulkhead-system) || e2e_fail "token of the chart's ServiceAccount"
SK_KUBECONFIG="$SK_DIR/bulkheadd.kubeconfig"
export SK_KUBECONFIG
kubesim_kubeconfig_token bulkheadd "$tok" "$SK_KUBECONFIG"
sk_start_http
sk_start_bulkheadd --enable-leader-election --leader-election-namespace bulkhead-system
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-h demo
sk_apply_hr team-h web demo
r=$(sk_wait_ready team-h web 60)
e2e_expect_contains "$r" "True|InstallSucceeded" "HelmRelease under the chart's RBAC"
[ -n "$(kubectl get lease bulkheadd-leader-election -n bulkhead-system -o jsonpath='{.spec.holderIdentity}')" ] || e2e_fail "no Lease held"
kill -TERM "$BULKHEADD_PID" && wait "$BULKHEADD_PID" # (the upgrade takes its Lease Role away)
BULKHEADD_PID=
helm upgrade bulkheadd "$CHART" -n bulkhead-system --set leaderElection=false >/dev/null || e2e_fail "helm upgrade"
[ "$(kubectl get deploy bulkheadd -n bulkhead-system -o jsonpath='{.spec.strategy.type}')" = Recreate ] || e2e_fail "no Recreate after the upgrade"
echo "PASS: the chart renders as helm does and as deploy/bulkhead.yaml, installs with helm, and its RBAC runs bulkheadd"
