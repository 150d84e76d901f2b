#!/bin/sh
# tests/conformance/template_verify.sh — `bulkhead template --verify
# [--keyring]` against the real `helm template --verify` (v4.1.4): charts
# are signed at run time by the real `helm package --sign` with keys gpg
# makes (RSA, Ed25519), or clearsigned by gpg itself with an ECDSA signing
# subkey; every case must give helm's stdout, stderr and exit code: good
# signatures (public and secret keyrings, a keyring of several keys),
# another key, an armored keyring, a tampered .prov, a tampered archive, a
# renamed archive, no .prov, no keyring, a truncated or empty keyring, a
# directory as keyring, an unpacked chart, a non-.tgz archive, --debug.
# --verify of a chart from --repo or oci:// is refused by name (bulkhead
# does not fetch provenance files). Skips (77) without helm or gpg.
src=${BH_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BH_BUILDDIR:-$PWD}
[ -x "$src/.tools/bin/helm" ] && PATH="$src/.tools/bin:$PATH"
command -v helm >/dev/null || { echo "SKIP: helm not on PATH (scripts/install-deps.sh)"; exit 77; }
command -v gpg >/dev/null || { echo "SKIP: gpg not installed (Debian package gnupg)"; exit 77; }
bh="$build/cli/bulkhead"
tmp=$(mktemp -d)
trap 'gpgconf --homedir "$tmp/gnupg" --kill all >/dev/null 2>&1; rm -rf "$tmp"' EXIT
export GNUPGHOME="$tmp/gnupg" HOME="$tmp"
mkdir -m 700 "$GNUPGHOME"
cd "$tmp" || exit 1
fails=0
gen() { # NAME ALGO USAGE
	gpg --batch --pinentry-mode loopback --passphrase '' --quick-gen-key "$1 <$1@example.com>" "$2" "$3" never \
		>/dev/null 2>&1 || { echo "FAIL: gpg could not make key $1 ($2)"; exit 1; }
}
gen rsa rsa2048 sign
gen other rsa2048 sign
gen ed ed25519 sign
gen sub rsa2048 sign,cert
subfpr() { gpg --with-colons --list-keys "$1" 2>/dev/null | awk -F: '/^fpr/ { n++; if (n == 2) print $10 }'; }
main=$(gpg --with-colons --list-keys sub 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
gpg --batch --pinentry-mode loopback --passphrase '' --quick-add-key "$main" nistp256/ecdsa sign never >/dev/null 2>&1
for k in rsa other ed sub; do
	gpg --export-secret-keys "$k" >"$k-sec.gpg"
	gpg --export "$k" >"$k.gpg"
done
gpg --armor --export rsa >rsa.asc
cat other.gpg ed.gpg rsa.gpg >all.gpg
: >empty.gpg
head -c 100 rsa.gpg >trunc.gpg

helm create app >/dev/null
sign() { # DIR KEY
	mkdir -p "$1" && (cd "$1" && helm package --sign --key "$2" --keyring "../$2-sec.gpg" ../app >/dev/null) ||
		{ echo "FAIL: helm package --sign --key $2"; exit 1; }
}
sign rsa rsa
sign ed ed
for d in tampered-prov tampered-tgz renamed noprov notgz ecdsa ecdsa-bad; do mkdir "$d"; done
cp rsa/app-0.1.0.tgz rsa/app-0.1.0.tgz.prov tampered-prov/
sed 's/^version: 0.1.0/version: 0.1.1/' rsa/app-0.1.0.tgz.prov >tampered-prov/app-0.1.0.tgz.prov
cp rsa/app-0.1.0.tgz.prov tampered-tgz/ && { cat rsa/app-0.1.0.tgz; echo x; } >tampered-tgz/app-0.1.0.tgz
cp rsa/app-0.1.0.tgz renamed/app.tgz && cp rsa/app-0.1.0.tgz.prov renamed/app.tgz.prov
cp rsa/app-0.1.0.tgz noprov/
cp rsa/app-0.1.0.tgz notgz/app.tar.gz && cp rsa/app-0.1.0.tgz.prov notgz/app.tar.gz.prov
# a .prov clearsigned by gpg with the ECDSA signing subkey (cross-signed)
gpg --decrypt rsa/app-0.1.0.tgz.prov 2>/dev/null >body.txt
cp rsa/app-0.1.0.tgz ecdsa/ && gpg --batch --yes --digest-algo SHA384 --local-user "$(subfpr sub)!" \
	--clearsign -o ecdsa/app-0.1.0.tgz.prov body.txt || { echo "FAIL: gpg --clearsign"; exit 1; }
cp ecdsa/app-0.1.0.tgz ecdsa-bad/ && sed 's/^version: 0.1.0/version: 0.1.1/' ecdsa/app-0.1.0.tgz.prov >ecdsa-bad/app-0.1.0.tgz.prov

check() { # NAME ARGS...: helm and bulkhead agree
	name=$1
	shift
	helm template x "$@" >h.out 2>h.err
	hr=$?
	"$bh" template x "$@" >b.out 2>b.err
	br=$?
	if [ "$hr" = "$br" ] && cmp -s h.out b.out && cmp -s h.err b.err; then
		echo "ok: $name (exit $hr)"
	else
		echo "FAIL: $name: helm exit $hr, bulkhead exit $br"
		diff h.err b.err | head -10
		cmp h.out b.out
		fails=$((fails + 1))
	fi
}
check valid rsa/app-0.1.0.tgz --verify --keyring rsa.gpg
check valid-secret-keyring rsa/app-0.1.0.tgz --verify --keyring rsa-sec.gpg
check valid-several-keys rsa/app-0.1.0.tgz --verify --keyring all.gpg
check valid-ed25519 ed/app-0.1.0.tgz --verify --keyring ed.gpg
check valid-ecdsa-subkey ecdsa/app-0.1.0.tgz --verify --keyring sub.gpg
check valid-debug rsa/app-0.1.0.tgz --verify --keyring rsa.gpg --debug
check wrong-key rsa/app-0.1.0.tgz --verify --keyring other.gpg
check wrong-key-ed25519 ed/app-0.1.0.tgz --verify --keyring rsa.gpg
check armored-keyring rsa/app-0.1.0.tgz --verify --keyring rsa.asc
check tampered-prov tampered-prov/app-0.1.0.tgz --verify --keyring rsa.gpg
check tampered-prov-ecdsa ecdsa-bad/app-0.1.0.tgz --verify --keyring sub.gpg
check tampered-archive tampered-tgz/app-0.1.0.tgz --verify --keyring rsa.gpg
check renamed-archive renamed/app.tgz --verify --keyring rsa.gpg
check missing-prov noprov/app-0.1.0.tgz --verify --keyring rsa.gpg
check missing-keyring rsa/app-0.1.0.tgz --verify --keyring nonexist.gpg
check empty-keyring rsa/app-0.1.0.tgz --verify --keyring empty.gpg
check truncated-keyring rsa/app-0.1.0.tgz --verify --keyring trunc.gpg
check directory-keyring rsa/app-0.1.0.tgz --verify --keyring "$tmp"
check unpacked-chart app --verify --keyring rsa.gpg
check not-tgz notgz/app.tar.gz --verify --keyring rsa.gpg
check valid-with-values rsa/app-0.1.0.tgz --verify --keyring rsa.gpg --set x=1
cp body.txt noprov/app-0.1.0.tgz.prov
check prov-without-signature noprov/app-0.1.0.tgz --verify --keyring rsa.gpg

# remote charts: bulkhead does not fetch .prov files, and says so
for ref in "--repo http://127.0.0.1:9/charts app" "oci://127.0.0.1:9/charts/app"; do
	# shellcheck disable=SC2086
	"$bh" template x $ref --verify --keyring rsa.gpg >b.out 2>b.err
	if [ $? = 1 ] && grep -q 'bulkhead does not fetch the provenance file' b.err; then
		echo "ok: remote refused by name ($ref)"
	else
		echo "FAIL: --verify with $ref:"
		cat b.err
		fails=$((fails + 1))
	fi
done
[ "$fails" = 0 ]
