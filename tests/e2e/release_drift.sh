#!/usr/bin/env bash
# tests/e2e/release_drift.sh — issue 11 must-show: drift detection and
# correction against kubesim, under the tenant's identity through the broker.
#  - mode warn: `kubectl scale` is detected (Warning Event DriftDetected
#    naming the object and the field, Drifted=True) and nothing changes;
#  - mode enabled: `kubectl scale` and `kubectl edit` are reverted and a
#    deleted object is recreated (Event DriftCorrected), with no new revision
#    in `helm history` and Ready/Released unchanged;
#  - an ignore rule keeps /spec/replicas out; the annotation
#    helm.toolkit.fluxcd.io/driftDetection: disabled (set by a post-renderer,
#    as the v2 document shows) keeps an object out;
#  - the API requests of a no-drift check are counted (2 per object).
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
sk_setup
sk_publish "$BH_SRCDIR/tests/e2e/release/app" team-d app
events() { kubectl get events -n team-d -o jsonpath='{range .items[*]}{.involvedObject.name} {.type} {.reason} {.message}{"\n"}{end}'; }
replicas() { kubectl get deploy "$1" -n team-d -o jsonpath='{.spec.replicas}'; }

sk_apply_hr team-d w app "  driftDetection:
    mode: warn"
r=$(sk_wait_ready team-d w 60)
e2e_expect_contains "$r" "True|InstallSucceeded|" "Ready after install"
e2e_expect_contains "$(rl_cond team-d w Drifted)" "False|NoDriftDetected|" "Drifted after install"

# warn: detected and reported, nothing changed
kubectl scale deploy w -n team-d --replicas=3 >/dev/null || sk_fail "kubectl scale"
rl_request team-d w
ev=$(events)
e2e_expect_contains "$ev" "w Warning DriftDetected Cluster state of release team-d/w.v1 has drifted from the desired state:" "DriftDetected event"
e2e_expect_contains "$ev" "Deployment/team-d/w changed: /spec/replicas" "drifted object and field"
[ "$(replicas w)" = 3 ] || sk_fail "warn mode changed the Deployment: replicas $(replicas w)"
e2e_expect_contains "$(rl_cond team-d w Drifted)" "True|DriftDetected|" "Drifted in warn mode"
e2e_expect_contains "$(sk_ready team-d w)" "True|InstallSucceeded|" "Ready stays in warn mode"
[ "$(rl_history team-d w)" = "1:deployed" ] || sk_fail "helm history: $(rl_history team-d w)"

# enabled: scale reverted, without a Helm revision
kubectl patch helmrelease w -n team-d --type=merge -p '{"spec":{"driftDetection":{"mode":"enabled"}}}' >/dev/null
rl_wait_gen team-d w 2 60
[ "$(replicas w)" = 1 ] || sk_fail "kubectl scale not reverted: replicas $(replicas w)"
e2e_expect_contains "$(events)" "w Normal DriftCorrected Cluster state of release team-d/w.v1 has been corrected:" "DriftCorrected event"
e2e_expect_contains "$(events)" "Deployment/team-d/w patched" "DriftCorrected names the object"
e2e_expect_contains "$(rl_cond team-d w Drifted)" "False|DriftCorrected|" "Drifted after correction"
# kubectl edit (a non-interactive editor) of the ConfigMap's data and of a label
cat >"$SK_DIR/editor.sh" <<'SH'
#!/bin/sh
sed -i -e 's/^  message: .*/  message: edited/' -e 's|app.kubernetes.io/managed-by: .*|app.kubernetes.io/managed-by: someone|' "$1"
SH
chmod +x "$SK_DIR/editor.sh"
out=$(KUBE_EDITOR="$SK_DIR/editor.sh" kubectl edit configmap w-config -n team-d 2>&1) || sk_fail "kubectl edit: $out"
[ "$(kubectl get cm w-config -n team-d -o jsonpath='{.data.message}')" = edited ] || sk_fail "kubectl edit did not change the ConfigMap"
rl_request team-d w
[ "$(kubectl get cm w-config -n team-d -o jsonpath='{.data.message} {.metadata.labels.app\.kubernetes\.io/managed-by}')" = "hello Helm" ] \
	|| sk_fail "kubectl edit not reverted: $(kubectl get cm w-config -n team-d -o jsonpath='{.data} {.metadata.labels}')"
e2e_expect_contains "$(events)" "ConfigMap/team-d/w-config changed: /metadata/labels/app.kubernetes.io~1managed-by, /data/message" "edited fields named"
# an object deleted out of band is recreated
kubectl delete configmap w-config -n team-d >/dev/null
rl_request team-d w
[ "$(kubectl get cm w-config -n team-d -o jsonpath='{.data.message}')" = hello ] || sk_fail "deleted ConfigMap not recreated"
e2e_expect_contains "$(events)" "ConfigMap/team-d/w-config removed" "DriftDetected names the missing object"
e2e_expect_contains "$(events)" "ConfigMap/team-d/w-config created" "DriftCorrected names the recreated object"
[ "$(rl_history team-d w)" = "1:deployed" ] || sk_fail "drift correction wrote a Helm revision: $(rl_history team-d w)"
e2e_expect_contains "$(sk_ready team-d w)" "True|InstallSucceeded|" "Ready after corrections"
e2e_expect_contains "$(rl_cond team-d w Released)" "True|InstallSucceeded|" "Released after corrections"

# an ignore rule keeps /spec/replicas out; the disabled annotation keeps an object out
sk_apply_hr team-d i app "  driftDetection:
    mode: enabled
    ignore:
    - paths: [\"/spec/replicas\"]
      target:
        kind: Deployment
  postRenderers:
  - kustomize:
      patches:
      - target:
          version: v1
          kind: ConfigMap
          name: i-config
        patch: |
          - op: add
            path: /metadata/annotations/helm.toolkit.fluxcd.io~1driftDetection
            value: disabled"
sk_wait_ready team-d i 60 >/dev/null
kubectl scale deploy i -n team-d --replicas=4 >/dev/null || sk_fail "kubectl scale i"
kubectl patch configmap i-config -n team-d --type=merge -p '{"data":{"message":"mine"}}' >/dev/null
rl_request team-d i
[ "$(replicas i)" = 4 ] || sk_fail "ignore rule: /spec/replicas was reverted to $(replicas i)"
[ "$(kubectl get cm i-config -n team-d -o jsonpath='{.data.message}')" = mine ] || sk_fail "driftDetection: disabled object was corrected"
events | e2e_has "^i Warning DriftDetected" && sk_fail "drift reported despite the ignore rule and annotation: $(events | grep '^i ')"
e2e_expect_contains "$(rl_cond team-d i Drifted)" "False|NoDriftDetected|" "Drifted with an ignore rule"
# but the rest of the Deployment is still watched
kubectl patch deploy i -n team-d --type=json -p '[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:evil"}]' >/dev/null
rl_request team-d i
[ "$(kubectl get deploy i -n team-d -o jsonpath='{.spec.template.spec.containers[0].image} {.spec.replicas}')" = "nginx:1.27 4" ] \
	|| sk_fail "image drift next to an ignored field: $(kubectl get deploy i -n team-d -o jsonpath='{.spec.template.spec.containers[0].image} {.spec.replicas}')"
# the cost of a check with no drift: 2 requests per checked object (GET and a dry-run apply)
rl_request team-d i
line=$(grep "drift detection of team-d/i.v1" "$SK_DIR/bulkheadd.log" | tail -1)
e2e_expect_contains "$line" "0 object(s) drifted, 0 corrected, 0 failed, 2 API requests" "no-drift check cost (1 object checked, 1 disabled)"
echo "$line"
echo "PASS: drift detected (warn), corrected without a revision (enabled), ignore rules and the disabled annotation honoured"
