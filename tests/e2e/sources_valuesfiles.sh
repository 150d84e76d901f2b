#!/usr/bin/env bash
# tests/e2e/sources_valuesfiles.sh — built-in sources: HelmChart
# .spec.valuesFiles from a HelmRelease's .spec.chart.spec. The chart's
# values.yaml and values-prod.yaml are merged (later wins, maps merge) into
# the re-packaged artifact (version 0.1.0+<HelmChart generation>, as
# source-controller); the installed manifest equals the real
# `helm template -f values.yaml -f values-prod.yaml` of the same chart. A
# missing values file fails the HelmChart naming it (BuildFailed,
# ValuesFilesError); with ignoreMissingValuesFiles the release installs with
# the files that exist, listed in .status.observedValuesFiles.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
sk_setup --sources builtin

chart="$BH_SRCDIR/tests/e2e/sources/valuesfiles"
repo="$SK_DIR/repo"
mkdir -p "$repo"
port=$(sk_free_port)
python3 -m http.server --bind 127.0.0.1 "$port" --directory "$repo" >"$SK_DIR/repo-http.log" 2>&1 &
REPO_PID=$!
trap 'st=$?; kill $REPO_PID 2>/dev/null; (exit $st); sk_cleanup' EXIT
helm package "$chart" -d "$repo" >/dev/null || sk_fail "helm package"
helm repo index "$repo" >/dev/null || sk_fail "helm repo index"
e2e_retry 20 curl -sf -o /dev/null "http://127.0.0.1:$port/index.yaml" || sk_fail "repository server did not start"

sk_tenant team-v
kubectl apply -f - >/dev/null <<YAML || sk_fail "applying HelmRepository"
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: {name: local, namespace: team-v}
spec: {url: "http://127.0.0.1:$port", interval: 1m}
YAML
# hr NAME FILES [IGNORE]: a HelmRelease with .spec.chart.spec.valuesFiles FILES
hr() {
	kubectl apply -f - >/dev/null <<YAML || sk_fail "applying HelmRelease $1"
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: $1, namespace: team-v}
spec:
  interval: 10m
  chart:
    spec:
      chart: layered
      sourceRef: {kind: HelmRepository, name: local}
      valuesFiles: $2
      ignoreMissingValuesFiles: ${3:-false}
YAML
}
hc() { kubectl get helmchart "team-v-$1" -n team-v -o jsonpath="$2"; }

# 1. merged values: the manifest of the real helm template with both files
hr prod "[values.yaml, values-prod.yaml]"
sk_wait_ready team-v prod 40 >/dev/null
gen=$(hc prod '{.metadata.generation}')
got=$(hc prod '{.status.artifact.revision} {.status.observedValuesFiles}')
[ "$got" = "0.1.0+$gen [\"values.yaml\",\"values-prod.yaml\"]" ] || sk_fail "HelmChart status: $got"
[ "$(kubectl get helmrelease prod -n team-v -o jsonpath='{.status.lastAttemptedRevision}')" = "0.1.0+$gen" ] \
	|| sk_fail "HelmRelease did not install chart version 0.1.0+$gen"
# the golden: real helm template, through Flux's origin-labels post-render
# (real `kubectl kustomize`), as tests/e2e/skeleton_helm.sh models it
mkdir -p "$SK_DIR/kz"
helm template prod "$chart" -n team-v -f "$chart/values.yaml" -f "$chart/values-prod.yaml" \
	| grep -v '^# Source:' >"$SK_DIR/kz/helm.yaml" || sk_fail "helm template"
printf 'resources: [helm.yaml]\nlabels:\n- pairs:\n    helm.toolkit.fluxcd.io/name: prod\n    helm.toolkit.fluxcd.io/namespace: team-v\n' \
	>"$SK_DIR/kz/kustomization.yaml"
kubectl kustomize "$SK_DIR/kz" >"$SK_DIR/want.yaml" || sk_fail "kubectl kustomize"
KUBECONFIG="$KUBESIM_DIR/kubeconfig" helm get manifest prod -n team-v | grep -v '^# Source:' | sed '/^---$/d' \
	>"$SK_DIR/got.yaml" || sk_fail "helm get manifest"
diff -uB "$SK_DIR/want.yaml" "$SK_DIR/got.yaml" || sk_fail "stored manifest differs from helm template -f values.yaml -f values-prod.yaml"
kubectl get configmap prod-layered -n team-v -o jsonpath='{.data.greeting}' | e2e_has '^prod$' \
	|| sk_fail "the ConfigMap does not carry the merged values"
echo "merged values install as helm template -f values.yaml -f values-prod.yaml renders them"

# 2. a missing file fails the HelmChart, naming it
hr miss "[values.yaml, values-missing.yaml]"
start=$SECONDS
until [ "$(hc miss '{.status.conditions[?(@.type=="BuildFailed")].reason}')" = ValuesFilesError ]; do
	[ $((SECONDS - start)) -gt 30 ] && sk_fail "HelmChart team-v-miss: no ValuesFilesError: $(hc miss '{.status.conditions}')"
	sleep 0.3
done
hc miss '{.status.conditions[?(@.type=="Ready")].message}' | e2e_has "no values file found at path 'values-missing.yaml'" \
	|| sk_fail "the failure does not name the file: $(hc miss '{.status.conditions}')"
[ "$(hc miss '{.status.conditions[?(@.type=="Ready")].status}')" = False ] || sk_fail "HelmChart team-v-miss is Ready"
echo "a missing values file: $(hc miss '{.status.conditions[?(@.type=="Ready")].message}')"

# 3. ignoreMissingValuesFiles: installs with the files there are
hr miss "[values.yaml, values-missing.yaml]" true
sk_wait_ready team-v miss 40 >/dev/null
[ "$(hc miss '{.status.observedValuesFiles}')" = '["values.yaml"]' ] || sk_fail "observedValuesFiles: $(hc miss '{.status.observedValuesFiles}')"
kubectl get configmap miss-layered -n team-v -o jsonpath='{.data.greeting}' | e2e_has '^hello$' \
	|| sk_fail "ignoreMissingValuesFiles: the ConfigMap does not carry values.yaml's values"
echo "PASS: HelmChart valuesFiles merged, missing files refused by name or ignored"
