#!/usr/bin/env bash
# tests/e2e/kube_cli_strict.sh — `bulkhead check-kubeconfig --strict` refuses
# every unsafe server address of a tenant kubeconfig, in every encoding
# (exit 1, naming the field and the address the host really is), requires
# https, and a token holding CR LF is refused when the kubeconfig is read,
# in every mode: `bulkhead release --kubeconfig` sends nothing to kubesim.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
bh="${BH_BUILDDIR:-$PWD}/cli/bulkhead"
[ -x "$bh" ] || e2e_fail "$bh is not built"

kc() { # kc SERVER TOKEN FILE
	cat >"$3" <<EOT
apiVersion: v1
kind: Config
current-context: t
contexts: [{name: t, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {server: "$1"}}]
users: [{name: u, user: {token: "$2"}}]
EOT
}

refuse() { # refuse SERVER EXPECTED-TEXT
	kc "$1" tok "$E2E_TMP/k.yaml"
	out=$("$bh" check-kubeconfig "$E2E_TMP/k.yaml" --strict --allow-exec --allow-files --allow-proxy --allow-insecure 2>&1)
	[ $? -eq 1 ] || e2e_fail "--strict accepted $1: $out"
	e2e_expect_contains "$out" "clusters[0].cluster.server: \"$1\" $2" "refusal of $1"
	"$bh" check-kubeconfig "$E2E_TMP/k.yaml" >/dev/null || e2e_fail "without --strict, $1 should be accepted"
}
md='names 169.254.169.254, a cloud metadata service address; not allowed in tenant kubeconfigs'
refuse http://api.example.com:6443 'is not an https:// URL; tenant kubeconfigs must use https'
refuse https://169.254.169.254 "$md"
refuse https://2852039166 "$md"                   # decimal
refuse https://0251.0376.0251.0376 "$md"          # octal
refuse https://0xa9.0xfe.0xa9.0xfe "$md"          # hex
refuse https://0xA9FEA9FE:443 "$md"               # one hex number, upper case
refuse https://169.254.43518 "$md"                # short dotted
refuse https://169.16689662 "$md"
refuse https://169.254.169.254. "$md"             # trailing dot
refuse 'https://[::ffff:169.254.169.254]' 'names ::ffff:169.254.169.254, a cloud metadata'
refuse 'https://[::ffff:a9fe:a9fe]:6443' 'names ::ffff:169.254.169.254, a cloud metadata'
refuse 'https://[FD00:EC2::254]' 'names fd00:ec2::254, a cloud metadata'
refuse 'https://[fe80::a9fe:a9fe]' 'names fe80::a9fe:a9fe, a link-local address'
refuse https://169.254.0.1:6443 'names 169.254.0.1, a link-local address'
refuse https://100.100.100.200 'names 100.100.100.200, a cloud metadata'
refuse https://METADATA.GOOGLE.INTERNAL. 'names METADATA.GOOGLE.INTERNAL, a cloud metadata'
refuse https://127.0.0.1:10250 'names 127.0.0.1, a kubelet port on the loopback interface'
refuse https://2130706433:10255 'names 127.0.0.1, a kubelet port'
refuse https://localhost:10250 'names localhost, a kubelet port'
refuse 'https://[::1]:10250' 'names ::1, a kubelet port'
refuse https://good@169.254.169.254 "carries user information before '@'"
kc https://api.example.com:6443 tok "$E2E_TMP/k.yaml"
"$bh" check-kubeconfig "$E2E_TMP/k.yaml" --strict >/dev/null || e2e_fail "--strict refused a plain https server"

# a token holding CR LF: refused when read (as kubectl refuses it), in every
# mode, and nothing reaches the server
kubesim_start
kc "$KUBESIM_URL" 'abc\r\nImpersonate-User: system:admin' "$E2E_TMP/crlf.yaml"
for mode in "" --strict; do
	out=$("$bh" check-kubeconfig "$E2E_TMP/crlf.yaml" $mode 2>&1) && e2e_fail "check-kubeconfig $mode accepted a CR LF token"
	e2e_expect_contains "$out" "users[0].user.token: contains a control character (CR, LF, ...)" "check-kubeconfig $mode"
done
kubesim_admin DELETE /_kubesim/log >/dev/null || e2e_fail "clearing the request log"
out=$("$bh" release uninstall web -n default --kubeconfig "$E2E_TMP/crlf.yaml" 2>&1) && e2e_fail "release ran: $out"
e2e_expect_contains "$out" "users[0].user.token: contains a control character" "bulkhead release"
n=$(kubesim_admin GET /_kubesim/log | grep -vc '"path": *"/_kubesim' || true)
[ "$n" = 0 ] || e2e_fail "$n requests reached kubesim: $(kubesim_admin GET /_kubesim/log)"
echo "PASS: check-kubeconfig --strict refuses unsafe addresses in every encoding, and CR LF credentials"
