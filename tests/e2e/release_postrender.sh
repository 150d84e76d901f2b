#!/usr/bin/env bash
# tests/e2e/release_postrender.sh — issue 11 must-show: a HelmRelease with
# kustomize post-renderers (a strategic merge patch, a JSON 6902 patch with
# a target, images) and commonMetadata: the objects in the cluster carry the
# patches, the new image, the common labels/annotations and Flux's origin
# labels; the test hook is post-rendered too; .status records
# observedPostRenderersDigest / observedCommonMetadataDigest (Flux's digest:
# sha256 of Go's JSON of the field); a change of only postRenderers, then of
# only commonMetadata, upgrades the release (new Helm revisions).
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
sk_setup
sk_publish "$BH_SRCDIR/tests/e2e/release/app" team-p app
pr='  postRenderers:
  - kustomize:
      patches:
      - patch: |
          apiVersion: apps/v1
          kind: Deployment
          metadata:
            name: web
          spec:
            template:
              spec:
                containers:
                - name: app
                  env:
                  - name: PATCHED
                    value: "yes"
      - patch: |
          - op: add
            path: /data/extra
            value: from-json-patch
        target:
          kind: ConfigMap
          name: web-.*
      images:
      - name: nginx
        newTag: "1.28"
      - name: busybox
        newName: registry.example.com/busybox'
cm='  commonMetadata:
    labels:
      team: p
    annotations:
      owner: platform'
sk_apply_hr team-p web app "  test:
    enable: true
$pr
$cm"
r=$(sk_wait_ready team-p web 90)
e2e_expect_contains "$r" "True|TestSucceeded|" "Ready after install"
[ "$(rl_history team-p web)" = "1:deployed" ] || sk_fail "helm history: $(rl_history team-p web)"
dep() { kubectl get deploy web -n team-p -o jsonpath="$1"; }
[ "$(dep '{.spec.template.spec.containers[0].image}')" = "nginx:1.28" ] || sk_fail "image: $(dep '{.spec.template.spec.containers[0].image}')"
[ "$(dep '{.spec.template.spec.containers[0].env[0].name}={.spec.template.spec.containers[0].env[0].value}')" = "PATCHED=yes" ] \
	|| sk_fail "strategic merge patch: $(dep '{.spec.template.spec.containers[0]}')"
[ "$(kubectl get cm web-config -n team-p -o jsonpath='{.data.extra}')" = from-json-patch ] || sk_fail "JSON patch on web-config"
labels=$(dep '{.metadata.labels.team} {.metadata.labels.helm\.toolkit\.fluxcd\.io/name} {.metadata.labels.helm\.toolkit\.fluxcd\.io/namespace} {.metadata.annotations.owner}')
[ "$labels" = "p web team-p platform" ] || sk_fail "common metadata and origin labels on the Deployment: '$labels'"
[ "$(kubectl get cm web-config -n team-p -o jsonpath='{.metadata.labels.helm\.toolkit\.fluxcd\.io/name}')" = web ] || sk_fail "origin label on web-config"
# the test hook went through the post-renderers as well
hooks=$(helm get hooks web -n team-p)
e2e_expect_contains "$hooks" "image: registry.example.com/busybox:1.36" "post-rendered test hook"
e2e_expect_contains "$hooks" "helm.toolkit.fluxcd.io/name: web" "origin label on the test hook"
man=$(helm get manifest web -n team-p)
e2e_expect_contains "$man" "# Source: app/templates/deployment.yaml" "stored manifest"
e2e_expect_contains "$man" "image: nginx:1.28" "stored manifest"

# Flux's digests: sha256 over Go's json.Encoder output of the field
want_pr=$(kubectl get helmrelease web -n team-p -o json | python3 -c '
import hashlib, json, sys
spec = json.load(sys.stdin)["spec"]
def k(x):
    o = {}
    if x.get("patches"):
        o["patches"] = [dict([("patch", p["patch"])] + ([("target", {f: p["target"][f] for f in ("group","version","kind","name","namespace","annotationSelector","labelSelector") if p["target"].get(f)})] if p.get("target") else [])) for p in x["patches"]]
    if x.get("images"):
        o["images"] = [{f: i[f] for f in ("name","newName","newTag","digest") if f == "name" or i.get(f)} for i in x["images"]]
    return o
enc = json.dumps([{"kustomize": k(p["kustomize"])} for p in spec["postRenderers"]], separators=(",", ":"), ensure_ascii=False) + "\n"
print("sha256:" + hashlib.sha256(enc.encode()).hexdigest())')
[ "$(rl_status team-p web '{.status.observedPostRenderersDigest}')" = "$want_pr" ] \
	|| sk_fail "observedPostRenderersDigest $(rl_status team-p web '{.status.observedPostRenderersDigest}') want $want_pr"
want_cm="sha256:$(printf '{"annotations":{"owner":"platform"},"labels":{"team":"p"}}\n' | sha256sum | cut -d' ' -f1)"
[ "$(rl_status team-p web '{.status.observedCommonMetadataDigest}')" = "$want_cm" ] \
	|| sk_fail "observedCommonMetadataDigest $(rl_status team-p web '{.status.observedCommonMetadataDigest}') want $want_cm"

# only the post-renderers change: an upgrade
kubectl patch helmrelease web -n team-p --type=json -p '[{"op":"replace","path":"/spec/postRenderers/0/kustomize/images/0/newTag","value":"1.29"}]' >/dev/null
rl_wait_gen team-p web 2 90
[ "$(rl_history team-p web)" = "1:superseded 2:deployed" ] || sk_fail "postRenderers change did not upgrade: $(rl_history team-p web)"
[ "$(dep '{.spec.template.spec.containers[0].image}')" = "nginx:1.29" ] || sk_fail "image after upgrade: $(dep '{.spec.template.spec.containers[0].image}')"
[ "$(rl_status team-p web '{.status.observedPostRenderersDigest}')" != "$want_pr" ] || sk_fail "observedPostRenderersDigest not updated"
e2e_expect_contains "$(rl_cond team-p web Released)" "True|UpgradeSucceeded|" "Released after a postRenderers change"

# only commonMetadata changes: an upgrade
kubectl patch helmrelease web -n team-p --type=merge -p '{"spec":{"commonMetadata":{"labels":{"team":"q"}}}}' >/dev/null
rl_wait_gen team-p web 3 90
[ "$(rl_history team-p web)" = "1:superseded 2:superseded 3:deployed" ] || sk_fail "commonMetadata change did not upgrade: $(rl_history team-p web)"
[ "$(dep '{.metadata.labels.team}')" = q ] || sk_fail "common label after upgrade: $(dep '{.metadata.labels}')"

# nothing changed: in sync, no new revision
rl_request team-p web
[ "$(rl_history team-p web)" = "1:superseded 2:superseded 3:deployed" ] || sk_fail "in-sync reconcile upgraded: $(rl_history team-p web)"

# an invalid post-renderer is refused by name, nothing is applied
sk_apply_hr team-p bad app "  postRenderers:
  - kustomize:
      patches:
      - patch: |
          - op: add
            path: /x
            value: 1"
r=$(sk_wait_cond team-p bad False 60)
# kustomize refuses it when it builds: the install fails with kustomize's
# text after Helm's, as Flux's post-renderer fails
e2e_expect_contains "$r" 'error while running post render on files: must specify a target for JSON patch [patch: "- op: add\n  path: /x\n  value: 1"]' "Ready of an invalid post-renderer"
# a rendered object with a key twice fails as Flux's post-renderers fail
# (its origin labels alone print every object through kustomize's resource
# map); nothing of it is installed
sk_apply_hr team-p dup app "  values:
    rawData: 'message: again'"
r=$(sk_wait_cond team-p dup False 60)
e2e_expect_contains "$r" 'Helm install failed for release team-p/dup with chart app@' "Ready of a key twice"
e2e_expect_contains "$r" 'error while running post render on files: map[string]interface {}(nil): yaml: unmarshal errors:' "Ready of a key twice"
e2e_expect_contains "$r" 'line 7: mapping key "message" already defined at line 6' "Ready of a key twice"
kubectl get configmap -n team-p dup-config >/dev/null 2>&1 && sk_fail "the ConfigMap with a key twice was applied"
echo "PASS: post-renderers and commonMetadata applied, recorded, and upgraded on change"
