#!/bin/sh
# tests/conformance/gen_kustomize_goldens.sh — writes the golden output of
# every kustomize conformance case with the REAL kustomize (`kubectl
# kustomize`, kubectl v1.35 / kustomize v5.7.1): CASE/expected.yaml, or
# CASE/expected.err when kustomize refuses the case. The kustomization is
# `resources: [resources.yaml]` plus the case's kustomize.yaml (the same
# `patches` and `images` a HelmRelease's postRenderers[].kustomize holds).
# Usage: gen_kustomize_goldens.sh [CASE_DIR...]   (default: all cases)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
KUBECTL=${KUBECTL:-kubectl}
[ $# -gt 0 ] || set -- "$here"/kustomize/*/
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for c in "$@"; do
	c=${c%/}
	rm -rf "$tmp"/k && mkdir "$tmp"/k
	cp "$c/resources.yaml" "$tmp/k/resources.yaml"
	{ echo "resources: [resources.yaml]"; cat "$c/kustomize.yaml"; } >"$tmp/k/kustomization.yaml"
	rm -f "$c/expected.yaml" "$c/expected.err"
	if "$KUBECTL" kustomize "$tmp/k" >"$tmp/out" 2>"$tmp/err"; then
		mv "$tmp/out" "$c/expected.yaml"
	else
		sed "s#$tmp/k#CASE#g" "$tmp/err" >"$c/expected.err"
	fi
	echo "$(basename "$c"): $([ -f "$c/expected.yaml" ] && echo ok || echo error)"
done
