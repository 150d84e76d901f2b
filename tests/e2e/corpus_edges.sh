#!/usr/bin/env bash
# tests/e2e/corpus_edges.sh — what the sweep of ~300 real charts through
# bulkheadd met that ../shared/conformance does not hold, as small charts
# (tests/e2e/corpus_edges/charts, each modelled on the real chart its
# Chart.yaml names) through corpus_lib.sh as corpus_controller.sh runs them:
# Ready=True, stored manifest == `helm template` (revision 2 rendered with
# --is-upgrade, as Helm's upgrade renders), read back by helm, upgraded,
# uninstalled.
#   edge-upgrade  a Secret rendered while .Release.IsInstall (Percona's pmm),
#                 a ConfigMap while .Release.IsUpgrade: the upgrade deletes
#                 the Secret and adds the ConfigMap
#   edge-null-ns  metadata.namespace empty and ~ (dysnix's gcloud-sql-proxy
#                 with .Values.namespace unset): the release's namespace
#   edge-empty    no object at all (linkerd's partials, cert-manager's
#                 common): an empty manifest, deployed, then uninstalled
# and one that cannot install: edge-no-crd renders kinds the cluster does
# not serve (a ServiceMonitor without its CRD, an apiextensions.k8s.io/v1beta1
# CRD): Ready=False with the kinds as the real helm v4.1.4 names them
# (helm install against kubesim: 'resource mapping not found for name: "sm"
# namespace: "" from "": no matches for kind "ServiceMonitor" in version
# "monitoring.coreos.com/v1"' and 'ensure CRDs are installed first', k8s'
# NoKindMatchError in cli-runtime's words).
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/corpus_lib.sh"
CORPUS_DIR="$BH_SRCDIR/tests/e2e/corpus_edges"
corpus_setup
start=$SECONDS
for chart in edge-upgrade edge-null-ns edge-empty; do
	corpus_add helm "$chart" defaults "$chart" "edges-$chart"
done
corpus_run 240 | tee "$SK_DIR/run.out"
[ "${PIPESTATUS[0]}" = 0 ] || exit 1
out=$(cat "$SK_DIR/run.out")
# what each edge is about happened (the comparisons above are with helm)
e2e_has -x 'ok: helm edge-upgrade as edges-edge-upgrade/edge-upgrade: 1 objects only revision 1 had are gone' <<<"$out" ||
	sk_fail "edge-upgrade: the Secret rendered on install only was not checked gone after the upgrade"
[ "$(grep -c '^kind:' "$SK_DIR/cmp/edge-upgrade.2.got")" = 2 ] && grep -q 'name: edge-upgrade-upgraded' "$SK_DIR/cmp/edge-upgrade.2.got" ||
	sk_fail "edge-upgrade revision 2 is not the upgrade's rendering"
[ ! -s "$SK_DIR/cmp/edge-empty.1.got" ] || sk_fail "edge-empty: the stored manifest is not empty"
e2e_has -x 'ok: helm edge-null-ns as edges-edge-null-ns/edge-null-ns uninstalled (2 objects)' <<<"$out" ||
	sk_fail "edge-null-ns: its 2 objects were not checked in the release's namespace"
sk_publish "$CORPUS_DIR/charts/edge-no-crd" edges-nocrd edge-no-crd
sk_apply_hr edges-nocrd edge-no-crd edge-no-crd
r=$(sk_wait_cond edges-nocrd edge-no-crd False 60)
# helm install's error, word for word (cli-runtime's mapper wraps each
# NoKindMatchError; Helm's install order puts the CRD first)
want='False|InstallFailed|Helm install failed for release edges-nocrd/edge-no-crd with chart edge-no-crd@0.1.0: '
want+='unable to build kubernetes objects from release manifest: [resource mapping not found for name: "x.example.com" '
want+=$'namespace: "" from "": no matches for kind "CustomResourceDefinition" in version "apiextensions.k8s.io/v1beta1"\n'
want+='ensure CRDs are installed first, resource mapping not found for name: "sm" namespace: "" from "": no matches for '
want+=$'kind "ServiceMonitor" in version "monitoring.coreos.com/v1"\nensure CRDs are installed first]'
[ "$r" = "$want" ] || sk_fail "edge-no-crd: Ready is '$r', not '$want'"
echo "ok: edge-no-crd: $r"
echo "PASS: ${#CORPUS_RELEASES[@]} edge charts installed, upgraded and uninstalled in $((SECONDS - start))s"
