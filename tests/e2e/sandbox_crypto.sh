#!/usr/bin/env bash
# tests/e2e/sandbox_crypto.sh — issue 14: the worker sets OpenSSL up lazily,
# after its lock-down (worker/prepare.c), so every crypto template function
# must still work under the seccomp filter: a chart calling the digests,
# AES, derivePassword, genCA/genSignedCert/genSelfSignedCert, the three
# genPrivateKey kinds, bcrypt/htpasswd and the random functions installs
# Ready=True through a sandboxed worker, and its ConfigMap (digests, a round
# trip, and the shape of the random outputs) equals the real helm template's.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
e2e_need_tool helm
sk_setup --concurrent 2
chart="$E2E_TMP/crypto"
mkdir -p "$chart/templates"
printf 'apiVersion: v2\nname: crypto\nversion: 0.1.0\n' >"$chart/Chart.yaml"
cat >"$chart/templates/cm.yaml" <<'TPL'
{{- $ca := genCA "bulkhead-ca" 365 }}
{{- $cert := genSignedCert "svc" nil (list "svc.example") 365 $ca }}
{{- $self := genSelfSignedCert "self" nil nil 365 }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: crypto
data:
  sha1: {{ sha1sum "bulkhead" | quote }}
  sha256: {{ sha256sum "bulkhead" | quote }}
  sha512: {{ sha512sum "bulkhead" | quote }}
  adler32: {{ adler32sum "bulkhead" | quote }}
  derived: {{ derivePassword 1 "long" "password" "user" "example.com" | quote }}
  aes: {{ encryptAES "secretkey" "plaintext" | decryptAES "secretkey" | quote }}
  ca: {{ hasPrefix "-----BEGIN CERTIFICATE-----" $ca.Cert | quote }}
  cert: {{ hasPrefix "-----BEGIN CERTIFICATE-----" $cert.Cert | quote }}
  self: {{ hasPrefix "-----BEGIN RSA PRIVATE KEY-----" $self.Key | quote }}
  rsa: {{ genPrivateKey "rsa" | hasPrefix "-----BEGIN RSA PRIVATE KEY-----" | quote }}
  ecdsa: {{ genPrivateKey "ecdsa" | hasPrefix "-----BEGIN EC PRIVATE KEY-----" | quote }}
  ed25519: {{ genPrivateKey "ed25519" | hasPrefix "-----BEGIN PRIVATE KEY-----" | quote }}
  bcrypt: {{ bcrypt "pw" | hasPrefix "$2a$" | quote }}
  htpasswd: {{ htpasswd "u" "p" | hasPrefix "u:$2a$" | quote }}
  rand: {{ randBytes 24 | b64dec | len | quote }}
  uuid: {{ uuidv4 | len | quote }}
  alnum: {{ randAlphaNum 12 | len | quote }}
TPL
want=$(helm template crypto "$chart" | python3 -c '
import json, sys
doc = "".join(l for l in sys.stdin if not l.startswith(("#", "---")))
data = {}
for l in doc.split("\ndata:\n", 1)[1].splitlines():
    if not l.strip():
        continue
    k, v = l.strip().split(": ", 1)
    data[k] = json.loads(v)
print(json.dumps(data, sort_keys=True))') || sk_fail "helm template of the crypto chart"
printf '%s\n' "$want" | e2e_has -F '"ed25519": "true"' || sk_fail "helm's own rendering is not as this test expects: $want"
sk_publish "$chart" team-c crypto
sk_apply_hr team-c crypto crypto
r=$(sk_wait_ready team-c crypto 120)
echo "crypto: $r"
got=$(kubectl get configmap crypto -n team-c -o json | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["data"], sort_keys=True))') ||
	sk_fail "reading ConfigMap team-c/crypto"
[ "$got" = "$want" ] || sk_fail "ConfigMap data differs from helm template:
 got  $got
 want $want"
kill -0 "$BULKHEADD_PID" 2>/dev/null || sk_fail "bulkheadd died"
echo "PASS: every crypto template function works in the locked-down worker, as helm renders it"
