#!/usr/bin/env bash
# tests/e2e/sources_oci_verify.sh — built-in sources verify cosign
# signatures with public keys, against a real OCI registry (Debian's
# docker-registry, charts pushed by the real `helm push`). Charts are
# signed the way cosign's docs show for "Sign With OpenSSL, Verify With
# Cosign": cosign's simple-signing payload for the pushed manifest digest,
# signed by `openssl dgst -sha256 -sign`, and attached as `cosign attach
# signature` does it (the payload as a blob, a manifest at tag
# sha256-<hex>.sig with the base64 signature in the layer's
# dev.cosignproject.cosign/signature annotation) through the registry's
# HTTP API. bulkheadd runs under its ServiceAccount token (sk_setup).
#  - a HelmRelease with .spec.chart.spec.verify: its HelmChart carries the
#    verify block, verifies (SourceVerified True, 'verified signature of
#    version 0.1.0') and the release installs;
#  - a HelmChart whose signature manifest holds two signatures, the second
#    by the trusted key;
#  - an OCIRepository verified with an RSA key among two keys of the Secret
#    (the other an Ed25519 key), and one signed with Ed25519;
#  - a HelmChart whose chart another key signed, one without signature, one
#    whose signed payload names another digest: not Ready, source-controller's
#    ChartVerificationError texts, SourceVerified False VerificationError;
#  - an unsigned OCIRepository: VerificationError 'no matching signatures
#    were found for ...'; a Secret with no *.pub key;
#  - a verified OCIRepository revision is not checked again until its
#    generation changes (its signature deleted meanwhile);
#  - a HelmChart of an HTTP HelmRepository: refused by name (.spec.verify
#    applies only to OCI HelmRepositories), as source-controller fails it;
#  - a chart whose only signature is a cosign v3 bundle (an OCI referrer
#    through the referrers tag schema): a failure that says so;
#  - keyless cosign (no secretRef) and notation: refused by name.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/sources/registry.sh"
e2e_need_tool openssl base64 sha256sum
reg_setup_builtin

K=$SK_DIR/keys
mkdir -p "$K"
openssl ecparam -name prime256v1 -genkey -noout -out "$K/ec.pem" 2>/dev/null || sk_fail "openssl ecparam"
openssl ec -in "$K/ec.pem" -pubout -out "$K/ec.pub" 2>/dev/null
openssl ecparam -name prime256v1 -genkey -noout -out "$K/other.pem" 2>/dev/null
openssl ec -in "$K/other.pem" -pubout -out "$K/other.pub" 2>/dev/null
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$K/rsa.pem" 2>/dev/null || sk_fail "openssl genpkey rsa"
openssl pkey -in "$K/rsa.pem" -pubout -out "$K/rsa.pub"
openssl genpkey -algorithm ed25519 -out "$K/ed.pem" 2>/dev/null || sk_fail "openssl genpkey ed25519"
openssl pkey -in "$K/ed.pem" -pubout -out "$K/ed.pub"

# put_blob REPO FILE: uploads FILE as a blob of REPO (monolithic POST+PUT); prints its digest
put_blob() {
	local loc d
	d=sha256:$(sha256sum "$2" | cut -d' ' -f1)
	loc=$(curl -sS -o /dev/null -D - -X POST "http://$O/v2/$1/blobs/uploads/" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
	[ -n "$loc" ] || sk_fail "no upload location for $1"
	case "$loc" in http*) ;; *) loc="http://$O$loc" ;; esac
	case "$loc" in *\?*) loc="$loc&digest=$d" ;; *) loc="$loc?digest=$d" ;; esac
	curl -sSf -o /dev/null -X PUT -H 'Content-Type: application/octet-stream' --data-binary "@$2" "$loc" ||
		sk_fail "uploading a blob to $1"
	echo "$d"
}

# sign NAME DIGEST KEY [CLAIMED_DIGEST] [KEY2]: a cosign signature of
# charts/NAME@DIGEST made with openssl and KEY, its payload claiming
# CLAIMED_DIGEST (default DIGEST); with KEY2, a second signature layer
# (as a second `cosign attach` adds one) by KEY2 over the same payload
sign() {
	local repo=charts/$1 md=$2 claim=${4:-$2} dir=$SK_DIR/sig-$1 pd cd layers= key sig
	mkdir -p "$dir"
	printf '{"critical":{"identity":{"docker-reference":"%s"},"image":{"docker-manifest-digest":"%s"},"type":"cosign container image signature"},"optional":null}' \
		"$O/$repo" "$claim" >"$dir/payload.json"
	printf '{}' >"$dir/config.json"
	pd=$(put_blob "$repo" "$dir/payload.json")
	cd=$(put_blob "$repo" "$dir/config.json")
	for key in "$3" ${5:-}; do
		case "$key" in
		*ed.pem) sig=$(openssl pkeyutl -sign -inkey "$key" -rawin -in "$dir/payload.json" | base64 -w0) ;;
		*) sig=$(openssl dgst -sha256 -sign "$key" "$dir/payload.json" | base64 -w0) ;;
		esac
		[ -n "$sig" ] || sk_fail "signing $1"
		layers="$layers${layers:+,}$(printf '{"mediaType":"application/vnd.dev.cosign.simplesigning.v1+json","size":%d,"digest":"%s","annotations":{"dev.cosignproject.cosign/signature":"%s"}}' \
			"$(stat -c %s "$dir/payload.json")" "$pd" "$sig")"
	done
	printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","size":2,"digest":"%s"},"layers":[%s]}' \
		"$cd" "$layers" >"$dir/manifest.json"
	curl -sSf -o /dev/null -X PUT -H 'Content-Type: application/vnd.oci.image.manifest.v1+json' \
		--data-binary "@$dir/manifest.json" "http://$O/v2/$repo/manifests/sha256-${md#sha256:}.sig" ||
		sk_fail "putting the signature manifest of $1"
}

# bundle NAME DIGEST: a cosign v3 signature of charts/NAME@DIGEST as cosign
# leaves it on a registry without the referrers API: a Sigstore bundle as
# an artifact manifest whose subject is the chart, listed in the index at
# tag sha256-<hex> (the OCI referrers tag schema). Its content is never read.
bundle() {
	local repo=charts/$1 md=$2 dir=$SK_DIR/bundle-$1 bt=application/vnd.dev.sigstore.bundle.v0.3+json bd ed ad n
	mkdir -p "$dir"
	printf '{"mediaType":"%s","verificationMaterial":{},"messageSignature":{}}' "$bt" >"$dir/bundle.json"
	printf '{}' >"$dir/empty.json"
	bd=$(put_blob "$repo" "$dir/bundle.json")
	ed=$(put_blob "$repo" "$dir/empty.json")
	n=$(curl -sSf -H 'Accept: application/vnd.oci.image.manifest.v1+json' "http://$O/v2/$repo/manifests/$md" | wc -c)
	printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"%s","config":{"mediaType":"application/vnd.oci.empty.v1+json","size":2,"digest":"%s"},"layers":[{"mediaType":"%s","size":%d,"digest":"%s"}],"subject":{"mediaType":"application/vnd.oci.image.manifest.v1+json","size":%d,"digest":"%s"}}' \
		"$bt" "$ed" "$bt" "$(stat -c %s "$dir/bundle.json")" "$bd" "$n" "$md" >"$dir/manifest.json"
	ad=sha256:$(sha256sum "$dir/manifest.json" | cut -d' ' -f1)
	curl -sSf -o /dev/null -X PUT -H 'Content-Type: application/vnd.oci.image.manifest.v1+json' \
		--data-binary "@$dir/manifest.json" "http://$O/v2/$repo/manifests/$ad" || sk_fail "putting the bundle of $1"
	printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"%s","size":%d,"digest":"%s"}]}' \
		"$bt" "$(stat -c %s "$dir/manifest.json")" "$ad" >"$dir/index.json"
	curl -sSf -o /dev/null -X PUT -H 'Content-Type: application/vnd.oci.image.index.v1+json' \
		--data-binary "@$dir/index.json" "http://$O/v2/$repo/manifests/sha256-${md#sha256:}" ||
		sk_fail "putting the referrers index of $1"
}

# chart_cond NS NAME TYPE: "status|reason|message" of a HelmChart's condition
chart_cond() {
	kubectl get helmchart "$2" -n "$1" -o jsonpath="{range .status.conditions[?(@.type==\"$3\")]}{.status}|{.reason}|{.message}{end}"
}
oci_cond() {
	kubectl get ocirepository "$2" -n "$1" -o jsonpath="{range .status.conditions[?(@.type==\"$3\")]}{.status}|{.reason}|{.message}{end}"
}
# wait_cond KIND NS NAME TYPE WANT: until the condition reads WANT exactly
wait_cond() {
	local f=chart_cond end=$((SECONDS + 60)) got
	[ "$1" = OCIRepository ] && f=oci_cond
	while got=$($f "$2" "$3" "$4"); [ "$got" != "$5" ]; do
		[ $SECONDS -ge $end ] && sk_fail "$1 $2/$3 $4: '$got', want '$5' (conditions: $(kubectl get "${1,,}" "$3" -n "$2" -o jsonpath='{.status.conditions}'))"
		sleep 0.3
	done
}

sk_tenant team-v
kubectl create secret generic cosign-pub -n team-v --from-file=cosign.pub="$K/ec.pub" >/dev/null || sk_fail "secret cosign-pub"
# two keys: the Ed25519 one first in key order, the RSA one second
kubectl create secret generic two-keys -n team-v --from-file=a-ed.pub="$K/ed.pub" --from-file=b-rsa.pub="$K/rsa.pub" \
	--from-literal=readme=not-a-key >/dev/null || sk_fail "secret two-keys"
kubectl create secret generic ed-pub -n team-v --from-file=cosign.pub="$K/ed.pub" >/dev/null
kubectl create secret generic no-keys -n team-v --from-literal=cosign.key=private >/dev/null

md=$(reg_push "$O" signed 0.1.0)
sign signed "$md" "$K/ec.pem"
mdr=$(reg_push "$O" rsa 0.1.0)
sign rsa "$mdr" "$K/rsa.pem"
mde=$(reg_push "$O" ed 0.1.0)
sign ed "$mde" "$K/ed.pem"
mdw=$(reg_push "$O" wrongkey 0.1.0)
sign wrongkey "$mdw" "$K/other.pem"
mdt=$(reg_push "$O" twosigs 0.1.0)
sign twosigs "$mdt" "$K/other.pem" "" "$K/ec.pem"
mdu=$(reg_push "$O" unsigned 0.1.0)
mdb=$(reg_push "$O" bundled 0.1.0)
bundle bundled "$mdb"
mdc=$(reg_push "$O" claim 0.1.0)
sign claim "$mdc" "$K/ec.pem" sha256:0000000000000000000000000000000000000000000000000000000000000000

kubectl apply -f - >/dev/null <<YAML || sk_fail "applying the sources"
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: oci
  namespace: team-v
spec:
  type: oci
  url: oci://$O/charts
  insecure: true
  interval: 1m
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: web
  namespace: team-v
spec:
  interval: 10m
  chart:
    spec:
      chart: signed
      version: 0.1.0
      interval: 1m
      sourceRef:
        kind: HelmRepository
        name: oci
      verify:
        provider: cosign
        secretRef:
          name: cosign-pub
YAML
# chart_of NAME CHART VERIFY-YAML [REPOSITORY]: a HelmChart of the oci HelmRepository (or REPOSITORY)
chart_of() {
	kubectl apply -f - >/dev/null <<YAML || sk_fail "applying HelmChart $1"
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmChart
metadata:
  name: $1
  namespace: team-v
spec:
  chart: $2
  version: 0.1.0
  interval: 1m
  sourceRef:
    kind: HelmRepository
    name: ${4:-oci}
  verify:
$3
YAML
}
# oci_of NAME CHART [VERIFY-YAML]: an OCIRepository of oci://O/charts/CHART:0.1.0
oci_of() {
	kubectl apply -f - >/dev/null <<YAML || sk_fail "applying OCIRepository $1"
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: $1
  namespace: team-v
spec:
  url: oci://$O/charts/$2
  insecure: true
  interval: 1m
  ref:
    tag: 0.1.0
  verify:
$3
YAML
}
KEYS="    provider: cosign
    secretRef:
      name: cosign-pub"
chart_of wrongkey wrongkey "$KEYS"
chart_of twosigs twosigs "$KEYS"
chart_of unsigned unsigned "$KEYS"
chart_of claim claim "$KEYS"
chart_of bundled bundled "$KEYS"
chart_of nokeys signed "    provider: cosign
    secretRef:
      name: no-keys"
chart_of keyless signed "    provider: cosign
    matchOIDCIdentity:
    - issuer: ^https://token.actions.githubusercontent.com\$
      subject: ^https://github.com/example/.*\$"
chart_of notation signed "    provider: notation
    secretRef:
      name: cosign-pub"
oci_of rsa rsa "    provider: cosign
    secretRef:
      name: two-keys"
oci_of ed ed "    provider: cosign
    secretRef:
      name: ed-pub"
oci_of unsigned unsigned "$KEYS"
oci_of wrongkey wrongkey "$KEYS"
oci_of bundled bundled "$KEYS"
oci_of keyless signed "    provider: cosign"
oci_of notation signed "    provider: notation
    secretRef:
      name: cosign-pub"

# --- the HelmRelease: the HelmChart carries .spec.verify, verifies, the release installs
sk_wait_ready team-v web 90 >/dev/null
v=$(kubectl get helmchart team-v-web -n team-v -o jsonpath='{.spec.verify.provider}|{.spec.verify.secretRef.name}')
[ "$v" = "cosign|cosign-pub" ] || sk_fail "HelmChart team-v-web .spec.verify: '$v'"
wait_cond HelmChart team-v team-v-web SourceVerified "True|Succeeded|verified signature of version 0.1.0"
wait_cond HelmChart team-v team-v-web Ready "True|ChartPullSucceeded|pulled 'signed' chart with version '0.1.0'"
helm list -n team-v | e2e_has "signed-0.1.0" || sk_fail "helm list does not show signed-0.1.0"

# --- OCIRepositories signed with RSA (second of two keys) and Ed25519
wait_cond OCIRepository team-v rsa SourceVerified "True|Succeeded|verified signature of revision 0.1.0@$mdr"
wait_cond OCIRepository team-v rsa Ready "True|Succeeded|stored artifact for digest '0.1.0@$mdr'"
wait_cond OCIRepository team-v ed SourceVerified "True|Succeeded|verified signature of revision 0.1.0@$mde"

# --- two signature layers, the second by the trusted key
wait_cond HelmChart team-v twosigs SourceVerified "True|Succeeded|verified signature of version 0.1.0"

# --- HelmCharts that do not verify (source-controller's texts)
m="chart verification error: failed to verify oci://$O/charts/wrongkey:0.1.0: no matching signatures: invalid signature when validating ASN.1 encoded signature"
wait_cond HelmChart team-v wrongkey Ready "False|ChartVerificationError|$m"
wait_cond HelmChart team-v wrongkey SourceVerified "False|VerificationError|$m"
wait_cond HelmChart team-v wrongkey BuildFailed "True|ChartVerificationError|$m"
[ -z "$(kubectl get helmchart wrongkey -n team-v -o jsonpath='{.status.artifact}')" ] || sk_fail "HelmChart wrongkey got an artifact"
wait_cond HelmChart team-v unsigned Ready "False|ChartVerificationError|chart verification error: failed to verify oci://$O/charts/unsigned:0.1.0: no signatures found"
wait_cond HelmChart team-v claim Ready "False|ChartVerificationError|chart verification error: failed to verify oci://$O/charts/claim:0.1.0: no matching signatures: invalid or missing digest in claim: sha256:0000000000000000000000000000000000000000000000000000000000000000"
b="no signatures found: the signature is a cosign v3 bundle (an OCI referrer of type application/vnd.dev.sigstore.bundle.v0.3+json), which bulkhead's built-in sources do not read; sign with 'cosign sign --new-bundle-format=false', or use Flux's source-controller (bulkheadd --sources=external)"
wait_cond HelmChart team-v bundled Ready "False|ChartVerificationError|chart verification error: failed to verify oci://$O/charts/bundled:0.1.0: $b"
wait_cond HelmChart team-v nokeys Ready "False|VerificationError|failed to verify the signature using provider 'cosign': no public keys found in secret 'team-v/no-keys'"
wait_cond HelmChart team-v keyless Ready "False|UnsupportedSpec|.spec.verify without .spec.verify.secretRef (cosign keyless verification, which needs Sigstore's public Fulcio and Rekor online) is not supported by bulkhead's built-in sources: give the public keys in .spec.verify.secretRef"
wait_cond HelmChart team-v notation Ready "False|UnsupportedSpec|.spec.verify.provider 'notation' is not supported by bulkhead's built-in sources (only 'cosign' with the public keys of .spec.verify.secretRef)"

# --- OCIRepositories that do not verify
wait_cond OCIRepository team-v unsigned Ready "False|VerificationError|failed to verify the signature using provider 'cosign': no matching signatures were found for '$O/charts/unsigned@$mdu'"
wait_cond OCIRepository team-v unsigned SourceVerified "False|VerificationError|failed to verify the signature using provider 'cosign': no matching signatures were found for '$O/charts/unsigned@$mdu'"
wait_cond OCIRepository team-v wrongkey Ready "False|VerificationError|failed to verify the signature using provider 'cosign': no matching signatures were found for '$O/charts/wrongkey@$mdw'"
[ -z "$(kubectl get ocirepository wrongkey -n team-v -o jsonpath='{.status.artifact}')" ] || sk_fail "OCIRepository wrongkey got an artifact"
wait_cond OCIRepository team-v bundled Ready "False|VerificationError|failed to verify the signature using provider 'cosign': no matching signatures were found for '$O/charts/bundled@$mdb': $b"
wait_cond OCIRepository team-v keyless Ready "False|UnsupportedSpec|.spec.verify without .spec.verify.secretRef (cosign keyless verification, which needs Sigstore's public Fulcio and Rekor online) is not supported by bulkhead's built-in sources: give the public keys in .spec.verify.secretRef"
wait_cond OCIRepository team-v notation Ready "False|UnsupportedSpec|.spec.verify.provider 'notation' is not supported by bulkhead's built-in sources (only 'cosign' with the public keys of .spec.verify.secretRef)"

# --- a verified revision is not verified again while SourceVerified is True
# for the generation (source-controller's rule): the signature deleted, a
# reconcile asked for: still Ready; a new generation: verified again, fails
sd=sha256:$(sha256sum "$SK_DIR/sig-rsa/manifest.json" | cut -d' ' -f1)
curl -sSf -o /dev/null -X DELETE "http://$O/v2/charts/rsa/manifests/$sd" || sk_fail "deleting the signature of rsa"
kubectl annotate ocirepository rsa -n team-v --overwrite reconcile.fluxcd.io/requestedAt=again >/dev/null
e2e_retry 30 sh -c "kubectl get ocirepository rsa -n team-v -o jsonpath='{.status.lastHandledReconcileAt}' | grep -qx again" ||
	sk_fail "OCIRepository rsa did not handle the reconcile request"
wait_cond OCIRepository team-v rsa Ready "True|Succeeded|stored artifact for digest '0.1.0@$mdr'"
wait_cond OCIRepository team-v rsa SourceVerified "True|Succeeded|verified signature of revision 0.1.0@$mdr"
kubectl patch ocirepository rsa -n team-v --type merge -p '{"spec":{"interval":"2m"}}' >/dev/null
wait_cond OCIRepository team-v rsa Ready "False|VerificationError|failed to verify the signature using provider 'cosign': no matching signatures were found for '$O/charts/rsa@$mdr'"

# --- an HTTP HelmRepository: refused by name, before any fetch (source-controller fails it too)
helm repo index "$SK_DIR/pkg" >/dev/null || sk_fail "helm repo index"
hport=$(sk_free_port)
(cd "$SK_DIR/pkg" && exec python3 -m http.server "$hport" --bind 127.0.0.1) >"$SK_DIR/http.log" 2>&1 &
REG_PIDS="$REG_PIDS $!"
e2e_retry 20 curl -sf -o /dev/null "http://127.0.0.1:$hport/index.yaml" || sk_fail "the HTTP chart repository did not start"
kubectl apply -f - >/dev/null <<YAML || sk_fail "applying the HTTP HelmRepository"
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: http
  namespace: team-v
spec:
  url: http://127.0.0.1:$hport
  interval: 1m
YAML
chart_of http signed "$KEYS" http
wait_cond HelmChart team-v http Ready "False|ChartVerificationError|chart verification error: .spec.verify applies only to charts of a HelmRepository of type 'oci' (an HTTP repository's charts carry no cosign signature)"
wait_cond HelmChart team-v http SourceVerified "False|VerificationError|chart verification error: .spec.verify applies only to charts of a HelmRepository of type 'oci' (an HTTP repository's charts carry no cosign signature)"

# --- the key fixed: the wrong-key HelmChart verifies on its next try
kubectl create secret generic cosign-pub -n team-v --from-file=cosign.pub="$K/ec.pub" --from-file=other.pub="$K/other.pub" \
	--dry-run=client -o yaml | kubectl apply -f - >/dev/null 2>&1 || sk_fail "updating secret cosign-pub"
kubectl annotate helmchart wrongkey -n team-v --overwrite reconcile.fluxcd.io/requestedAt="$(date +%s)" >/dev/null
wait_cond HelmChart team-v wrongkey SourceVerified "True|Succeeded|verified signature of version 0.1.0"
wait_cond HelmChart team-v wrongkey Ready "True|ChartPullSucceeded|pulled 'wrongkey' chart with version '0.1.0'"
[ -z "$(chart_cond team-v wrongkey BuildFailed)" ] || sk_fail "HelmChart wrongkey kept BuildFailed"
echo "PASS"
