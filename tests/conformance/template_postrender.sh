#!/bin/sh
# tests/conformance/template_postrender.sh — `bulkhead template
# --post-renderer-config HR.yaml` renders a chart through the HelmRelease's
# post-renderers as Flux would: the output must be the objects the real
# tools give — `helm template` piped through the real `kubectl kustomize`
# with the same patches and images, plus commonMetadata and the origin
# labels — compared document by document (same order, "# Source:" lines
# aside; bulkhead keeps them). Skips (77) without helm and kubectl.
src=${BH_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BH_BUILDDIR:-$PWD}
command -v helm >/dev/null && command -v kubectl >/dev/null || { echo "SKIP: helm or kubectl not on PATH"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chart="$src/tests/e2e/release/app"
# The post-renderer's patches and images, written once: indented into the
# HelmRelease and into the kustomization that is the oracle.
cat >"$tmp/kustomize.yaml" <<'YAML'
patches:
- patch: |
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
    spec:
      replicas: 3
- patch: |
    - op: add
      path: /metadata/annotations/extra
      value: "yes"
  target:
    kind: Pod
images:
- name: busybox
  newTag: "1.37"
YAML
{
	cat <<'YAML'
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: web
  namespace: team-t
spec:
  postRenderers:
  - kustomize:
YAML
	sed 's/^/      /' "$tmp/kustomize.yaml"
	cat <<'YAML'
  commonMetadata:
    labels:
      team: t
    annotations:
      owner: platform
YAML
} >"$tmp/hr.yaml"
mkdir "$tmp/k"
helm template web "$chart" -n team-t >"$tmp/k/helm.yaml" || exit 1
{
	echo 'resources: [helm.yaml]'
	cat "$tmp/kustomize.yaml"
	cat <<'YAML'
labels:
- pairs:
    team: t
    helm.toolkit.fluxcd.io/name: web
    helm.toolkit.fluxcd.io/namespace: team-t
transformers: [annotations.yaml]
YAML
} >"$tmp/k/kustomization.yaml"
# Flux's CommonRenderer: metadata/annotations only (kustomize's
# commonAnnotations would also annotate pod templates)
cat >"$tmp/k/annotations.yaml" <<'YAML'
apiVersion: builtin
kind: AnnotationsTransformer
metadata:
  name: common
annotations:
  owner: platform
fieldSpecs:
- path: metadata/annotations
  create: true
YAML
kubectl kustomize "$tmp/k" >"$tmp/want" || exit 1
"$build/cli/bulkhead" template web "$chart" -n team-t --post-renderer-config "$tmp/hr.yaml" >"$tmp/got" || exit 1
grep -q '^# Source: app/templates/deployment.yaml$' "$tmp/got" || { echo "FAIL: no # Source line"; exit 1; }
python3 - "$tmp/want" "$tmp/got" <<'PY'
import sys
def docs(p):
    out, cur = [], []
    for l in open(p).read().splitlines():
        if l == "---":
            out.append("\n".join(cur)); cur = []
        elif not l.startswith("# Source:"):
            cur.append(l)
    out.append("\n".join(cur))
    return sorted(d.strip() for d in out if d.strip())
w, g = docs(sys.argv[1]), docs(sys.argv[2])
if w != g:
    print("FAIL: bulkhead template --post-renderer-config differs from helm template | kubectl kustomize")
    print("--- want\n" + "\n---\n".join(w) + "\n--- got\n" + "\n---\n".join(g))
    sys.exit(1)
print("PASS: %d objects identical to helm template | kubectl kustomize" % len(w))
PY
