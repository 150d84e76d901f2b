#!/usr/bin/env bash
# tests/e2e/actions_heads.sh — issue 15: manifest header fields that are
# numbers or booleans, through `bulkhead release install` and `upgrade`,
# against what the real helm v4 does with the same chart and values in the
# same kubesim: Helm sorts such manifests (their heads read as strings), but
# building the objects fails before any hook or write, with the text of
# kubectl's metadata decoder ("unable to decode \"\": json: cannot unmarshal
# number into Go struct field ObjectMeta.metadata.annotations of type
# string"; several documents: "[a, b]"); a hook's is found when it is built
# for deletion. Each case: the same error text, the same release storage
# (nothing, or a failed revision), no object written; with the values quoted,
# both install, store the same manifest and write the same metadata.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
e2e_need_tool kubectl helm
. "$(dirname "$0")/actions_lib.sh"
chart="$BH_SRCDIR/tests/e2e/heads"
kubesim_start
kubectl create namespace hd >/dev/null || e2e_fail "create namespace"

# the "Error: " line of a failed command, without helm's action prefix
err_line() {
	sed -n 's/^Error: //p' | sed 's/^INSTALLATION FAILED: //; s/^UPGRADE FAILED: //' | head -1
}
reset() {
	helm uninstall h -n hd >/dev/null 2>&1
	kubectl delete secrets -n hd -l owner=helm >/dev/null 2>&1
	kubectl delete configmaps -n hd cm cm2 hk 123 >/dev/null 2>&1
	true
}
objects() {
	kubectl get configmaps -n hd -o jsonpath='{range .items[*]}{.metadata.name} {end}' | tr ' ' '\n' |
		grep -v '^kube-root-ca.crt$' | grep -v '^$' | tr '\n' ' '
}

# install_case NAME VALUES-ARGS...: helm and bulkhead both fail alike
install_case() {
	local name=$1 h b hv bv ho bo
	shift
	reset
	h=$(helm install h "$chart" -n hd --timeout 30s "$@" 2>&1) && e2e_fail "$name: helm installed"
	hv=$(release_versions hd h) ho=$(objects)
	h=$(echo "$h" | err_line)
	reset
	b=$("$BULKHEAD" release install h "$chart" -n hd --timeout 30s "$@" 2>&1) && e2e_fail "$name: bulkhead installed: $b"
	bv=$(release_versions hd h) bo=$(objects)
	b=$(echo "$b" | err_line)
	[ -n "$h" ] && [ "$h" = "$b" ] || e2e_fail "$name: install error differs:
 helm:     $h
 bulkhead: $b"
	[ "$hv" = "$bv" ] || e2e_fail "$name: storage after the failed install: helm '$hv', bulkhead '$bv'"
	[ "$ho" = "$bo" ] || e2e_fail "$name: objects after the failed install: helm '$ho', bulkhead '$bo'"
	echo "ok: install, $name: $b (storage '$bv')"
}

install_case "annotation number" --set-json 'annotations={"prometheus.io/port":9252,"team":"x"}'
install_case "annotation float" --set-json 'annotations={"a":1.5}'
install_case "label bool" --set-json 'labels={"enabled":true}'
install_case "labels and annotations" --set-json 'labels={"a":1},annotations={"b":false}'
install_case "name number" --set-json 'name=123'
install_case "namespace number" --set-json 'ns=5'
install_case "two documents" --set-json 'annotations={"a":1},annotations2={"b":true}'
install_case "hook weight number" --set-json 'hookWeight=5'

# the same values as strings: both install them, alike
reset
vals=(--set-json 'annotations={"prometheus.io/port":"9252"},labels={"enabled":"true"},hookWeight="5"')
hm install h "$chart" -n hd --timeout 30s "${vals[@]}"
hm get manifest h -n hd
want=$HELM_OUT
want_meta=$(kubectl get configmap cm -n hd -o jsonpath='{.metadata.labels}{.metadata.annotations}')
reset
bh release install h "$chart" -n hd --timeout 30s "${vals[@]}"
hm get manifest h -n hd
[ "$want" = "$HELM_OUT" ] || e2e_fail "quoted values: stored manifests differ: $(diff <(echo "$want") <(echo "$HELM_OUT"))"
[ "$(kubectl get configmap cm -n hd -o jsonpath='{.metadata.labels}{.metadata.annotations}')" = "$want_meta" ] ||
	e2e_fail "quoted values: metadata differs from helm's: $want_meta"
echo "ok: quoted values install alike ($want_meta)"

# upgrade_case NAME VALUES-ARGS...: from a good revision 1, helm and
# bulkhead both refuse the upgrade alike
upgrade_case() {
	local name=$1 h b hv bv
	shift
	reset
	hm install h "$chart" -n hd --timeout 30s
	h=$(helm upgrade h "$chart" -n hd --timeout 30s "$@" 2>&1) && e2e_fail "$name: helm upgraded"
	hv=$(release_versions hd h)
	h=$(echo "$h" | err_line)
	reset
	bh release install h "$chart" -n hd --timeout 30s
	b=$("$BULKHEAD" release upgrade h "$chart" -n hd --timeout 30s "$@" 2>&1) && e2e_fail "$name: bulkhead upgraded: $b"
	bv=$(release_versions hd h)
	b=$(echo "$b" | err_line)
	[ -n "$h" ] && [ "$h" = "$b" ] || e2e_fail "$name: upgrade error differs:
 helm:     $h
 bulkhead: $b"
	[ "$hv" = "$bv" ] || e2e_fail "$name: storage after the failed upgrade: helm '$hv', bulkhead '$bv'"
	[ -z "$(kubectl get configmap cm -n hd -o jsonpath='{.metadata.annotations.a}')" ] ||
		e2e_fail "$name: the refused upgrade wrote the object"
	echo "ok: upgrade, $name: $b (storage '$bv')"
}
upgrade_case "annotation number" --set-json 'annotations={"a":7}'
upgrade_case "label bool" --set-json 'labels={"a":false}'
reset
echo "PASS: actions_heads"
