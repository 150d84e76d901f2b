#!/bin/sh
# tests/conformance/gen_kustomize_goldens.sh — writes the golden output of
# every kustomize conformance case with the REAL kustomize (`kubectl
# kustomize`, kubectl v1.35 / kustomize v5.7.1): CASE/expected.yaml, or
# CASE/expected.err when kustomize refuses the case. The kustomization is
# `resources: [resources.yaml]` plus the case's kustomize.yaml (the same
# `patches` and `images` a HelmRelease's postRenderers[].kustomize holds);
# with kustomize2.yaml (3, ...) the next ones run over its output in turn.
# Usage: gen_kustomize_goldens.sh [CASE_DIR...]   (default: all cases)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
KUBECTL=${KUBECTL:-kubectl}
[ $# -gt 0 ] || set -- "$here"/kustomize/*/
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for c in "$@"; do
	c=${c%/}
	rm -f "$c/expected.yaml" "$c/expected.err"
	cp "$c/resources.yaml" "$tmp/in"
	# kustomize.yaml, then kustomize2.yaml...: post-renderers in a chain,
	# each over the text the one before printed
	for kz in "$c/kustomize.yaml" "$c"/kustomize[2-9].yaml; do
		[ -f "$kz" ] || continue
		rm -rf "$tmp"/k && mkdir "$tmp"/k
		cp "$tmp/in" "$tmp/k/resources.yaml"
		{ echo "resources: [resources.yaml]"; cat "$kz"; } >"$tmp/k/kustomization.yaml"
		if ! "$KUBECTL" kustomize "$tmp/k" >"$tmp/out" 2>"$tmp/err"; then
			sed "s#$tmp/k#CASE#g" "$tmp/err" >"$c/expected.err"
			break
		fi
		mv "$tmp/out" "$tmp/in"
	done
	[ -f "$c/expected.err" ] || mv "$tmp/in" "$c/expected.yaml"
	echo "$(basename "$c"): $([ -f "$c/expected.yaml" ] && echo ok || echo error)"
done
