#!/bin/sh
# tests/conformance/template_verify.sh — `bulkhead template --verify
# [--keyring]` against the real `helm template --verify` (v4.1.4): charts
# are signed at run time by the real `helm package --sign` with keys gpg
# makes (RSA, Ed25519), or clearsigned by gpg itself with an ECDSA signing
# subkey; every case must give helm's stdout, stderr and exit code: good
# signatures (public and secret keyrings, a keyring of several keys),
# another key, an armored keyring, a tampered .prov, a tampered archive, a
# renamed archive, no .prov, no keyring, a truncated or empty keyring, a
# directory as keyring, an unpacked chart, a non-.tgz archive, --debug;
# DSA and Ed25519+Cv25519 keys, a revoked and an expired key; .prov bodies
# with odd YAML (numbers, wrong types, no "..." part, a syntax error).
# Charts from --repo or a URL (a local HTTP server) with their .prov, and
# from oci:// (docker-registry) with the provenance layer `helm push`
# stores. Skips (77) without helm or gpg.
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
gen dsa dsa2048 sign
gen def default default
gen rev rsa2048 sign
gpg --batch --faked-system-time '20200101T000000!' --pinentry-mode loopback --passphrase '' \
	--quick-gen-key 'exp <exp@example.com>' rsa2048 sign 1d >/dev/null 2>&1
subfpr() { gpg --with-colons --list-keys "$1" 2>/dev/null | awk -F: '/^fpr/ { n++; if (n == 2) print $10 }'; }
main=$(gpg --with-colons --list-keys sub 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
gpg --batch --pinentry-mode loopback --passphrase '' --quick-add-key "$main" nistp256/ecdsa sign never >/dev/null 2>&1
for k in rsa other ed sub dsa def rev exp; do
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
sign def def
sign rev rev
# revoke "rev" after it signed: its revocation certificate, imported
revfpr=$(gpg --with-colons --list-keys rev 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
sed 's/^:-----/-----/' "$GNUPGHOME/openpgp-revocs.d/$revfpr.rev" >rev.asc
gpg --batch --import rev.asc >/dev/null 2>&1 && gpg --export rev >rev.gpg
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
clearsign() { # DIR KEY BODY [GPG OPTIONS]: DIR/app-0.1.0.tgz with a .prov gpg clearsigned
	dir=$1 key=$2 body=$3
	shift 3
	mkdir -p "$dir" && cp rsa/app-0.1.0.tgz "$dir/" && printf '%s' "$body" >"$dir/body.txt" &&
		gpg --batch --yes --local-user "$key" "$@" --clearsign -o "$dir/app-0.1.0.tgz.prov" "$dir/body.txt" 2>/dev/null ||
		{ echo "FAIL: gpg --clearsign $dir"; exit 1; }
}
sum=$(sed -n 's/^  app-0.1.0.tgz: //p' body.txt)
clearsign dsa dsa "$(cat body.txt)"
clearsign exp exp "$(cat body.txt)" --faked-system-time '20200101T010000!'
clearsign y-number rsa "$(printf 'name: app\n...\nfiles:\n  app-0.1.0.tgz: 0x10\n')"
clearsign y-list rsa "$(printf 'name: app\n...\nfiles:\n  a: [1]\n  app-0.1.0.tgz: %s\n' "$sum")"
clearsign y-files rsa "$(printf 'name: app\n...\nimages: 5\nfiles: true\n')"
clearsign y-top rsa "$(printf 'name: app\n...\n- a\n')"
clearsign y-case rsa "$(printf -- '- name: app\n...\nFiles:\n  app-0.1.0.tgz: %s   \n...\nx\n' "$sum")"
clearsign y-noparts rsa "$(printf 'name: app\nfiles:\n  app-0.1.0.tgz: %s\n' "$sum")"
clearsign y-syntax rsa "$(printf 'name: app\n...\nfiles: [\n')"

check() { # NAME WANT ARGS...: helm and bulkhead agree; helm succeeds (WANT "ok") or says WANT
	name=$1 want=$2
	shift 2
	rm -rf "$tmp/.cache/helm/content" # bulkhead keeps no content cache: compare with a cold one
	helm template x "$@" >h.out 2>h.err
	hr=$?
	"$bh" template x "$@" >b.out 2>b.err
	br=$?
	if { [ "$want" = ok ] && [ "$hr" != 0 ]; } || { [ "$want" != ok ] && ! grep -qF -- "$want" h.err; }; then
		echo "FAIL: $name: the case is not what it should be: helm exit $hr, wanted $want:"
		cat h.err
		fails=$((fails + 1))
	elif [ "$hr" = "$br" ] && cmp -s h.out b.out && cmp -s h.err b.err; then
		echo "ok: $name (exit $hr)"
	else
		echo "FAIL: $name: helm exit $hr, bulkhead exit $br"
		diff h.err b.err | head -10
		cmp h.out b.out
		fails=$((fails + 1))
	fi
}
check valid ok rsa/app-0.1.0.tgz --verify --keyring rsa.gpg
check valid-secret-keyring ok rsa/app-0.1.0.tgz --verify --keyring rsa-sec.gpg
check valid-several-keys ok rsa/app-0.1.0.tgz --verify --keyring all.gpg
check valid-ed25519 ok ed/app-0.1.0.tgz --verify --keyring ed.gpg
check valid-ecdsa-subkey ok ecdsa/app-0.1.0.tgz --verify --keyring sub.gpg
check valid-debug ok rsa/app-0.1.0.tgz --verify --keyring rsa.gpg --debug
check wrong-key 'unknown entity' rsa/app-0.1.0.tgz --verify --keyring other.gpg
check wrong-key-ed25519 'unknown entity' ed/app-0.1.0.tgz --verify --keyring rsa.gpg
check armored-keyring MSB rsa/app-0.1.0.tgz --verify --keyring rsa.asc
check tampered-prov 'RSA verification failure' tampered-prov/app-0.1.0.tgz --verify --keyring rsa.gpg
check tampered-prov-ecdsa 'ECDSA verification failure' ecdsa-bad/app-0.1.0.tgz --verify --keyring sub.gpg
check tampered-archive 'sha256 sum does not match' tampered-tgz/app-0.1.0.tgz --verify --keyring rsa.gpg
check renamed-archive 'does not contain a SHA' renamed/app.tgz --verify --keyring rsa.gpg
check missing-prov 'could not load provenance file' noprov/app-0.1.0.tgz --verify --keyring rsa.gpg
check missing-keyring 'failed to load keyring: open' rsa/app-0.1.0.tgz --verify --keyring nonexist.gpg
check empty-keyring 'unknown entity' rsa/app-0.1.0.tgz --verify --keyring empty.gpg
check truncated-keyring 'unexpected EOF' rsa/app-0.1.0.tgz --verify --keyring trunc.gpg
check directory-keyring 'is a directory' rsa/app-0.1.0.tgz --verify --keyring "$tmp"
check unpacked-chart 'unpacked charts' app --verify --keyring rsa.gpg
check not-tgz 'must be a tgz' notgz/app.tar.gz --verify --keyring rsa.gpg
check valid-dsa ok dsa/app-0.1.0.tgz --verify --keyring dsa.gpg
check valid-ed25519-cv25519 ok def/app-0.1.0.tgz --verify --keyring def.gpg
check revoked-key 'revoked key' rev/app-0.1.0.tgz --verify --keyring rev.gpg
check expired-key 'key expired' exp/app-0.1.0.tgz --verify --keyring exp.gpg
check yaml-number-entry '"16" !=' y-number/app-0.1.0.tgz --verify --keyring rsa.gpg
check yaml-list-entry 'cannot unmarshal array' y-list/app-0.1.0.tgz --verify --keyring rsa.gpg
check yaml-files-not-map 'SumCollection.files of type map' y-files/app-0.1.0.tgz --verify --keyring rsa.gpg
check yaml-top-list provenance.SumCollection y-top/app-0.1.0.tgz --verify --keyring rsa.gpg
check yaml-field-case ok y-case/app-0.1.0.tgz --verify --keyring rsa.gpg
check yaml-no-parts 'at least two parts' y-noparts/app-0.1.0.tgz --verify --keyring rsa.gpg
check yaml-syntax 'error converting YAML' y-syntax/app-0.1.0.tgz --verify --keyring rsa.gpg
check valid-with-values ok rsa/app-0.1.0.tgz --verify --keyring rsa.gpg --set x=1
cp body.txt noprov/app-0.1.0.tgz.prov
check prov-without-signature 'signature block not found' noprov/app-0.1.0.tgz --verify --keyring rsa.gpg

# charts from a repository (--repo) or a URL: the .prov is fetched next to
# the chart (a local HTTP server)
if command -v python3 >/dev/null; then
	mkdir -p www/repo www/noprov
	cp rsa/app-0.1.0.tgz rsa/app-0.1.0.tgz.prov www/repo/ && cp tampered-tgz/app-0.1.0.tgz www/noprov/
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	helm repo index www/repo --url "http://127.0.0.1:$port/repo" >/dev/null
	python3 -m http.server "$port" --bind 127.0.0.1 --directory www >/dev/null 2>&1 &
	srv=$!
	trap 'kill $srv 2>/dev/null; gpgconf --homedir "$tmp/gnupg" --kill all >/dev/null 2>&1; rm -rf "$tmp"' EXIT
	for i in 1 2 3 4 5 6 7 8 9 10; do
		python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/repo/index.yaml')" 2>/dev/null && break
		sleep 0.5
	done
	check repo-valid ok app --repo "http://127.0.0.1:$port/repo" --verify --keyring rsa.gpg
	check repo-wrong-key 'unknown entity' app --repo "http://127.0.0.1:$port/repo" --verify --keyring other.gpg
	check url-valid ok "http://127.0.0.1:$port/repo/app-0.1.0.tgz" --verify --keyring rsa.gpg
	check url-no-prov 'failed to fetch provenance' "http://127.0.0.1:$port/noprov/app-0.1.0.tgz" --verify --keyring rsa.gpg
else
	echo "skipped: --repo and URL cases (python3 not installed)"
fi
# oci:// charts pushed by `helm push` with their .prov (the provenance
# layer) to Debian's docker-registry
if command -v docker-registry >/dev/null && command -v python3 >/dev/null; then
	rport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	mkdir -p reg/data
	printf 'version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: %s\nhttp:\n  addr: 127.0.0.1:%s\n' \
		"$tmp/reg/data" "$rport" >reg/config.yml
	docker-registry serve reg/config.yml >reg/log 2>&1 &
	reg=$!
	trap 'kill $srv $reg 2>/dev/null; gpgconf --homedir "$tmp/gnupg" --kill all >/dev/null 2>&1; rm -rf "$tmp"' EXIT
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$rport/v2/')" 2>/dev/null && break
		sleep 0.5
	done
	mkdir -p unsigned && (cd unsigned && helm package ../app --version 0.2.0 >/dev/null)
	helm push rsa/app-0.1.0.tgz "oci://127.0.0.1:$rport/charts" --plain-http >/dev/null 2>&1 &&
		helm push unsigned/app-0.2.0.tgz "oci://127.0.0.1:$rport/charts" --plain-http >/dev/null 2>&1 ||
		{ echo "FAIL: helm push to docker-registry"; fails=$((fails + 1)); }
	o="oci://127.0.0.1:$rport/charts/app"
	check oci-valid ok "$o" --version 0.1.0 --plain-http --verify --keyring rsa.gpg
	check oci-wrong-key 'unknown entity' "$o:0.1.0" --plain-http --verify --keyring other.gpg
	check oci-no-prov 'failed to fetch provenance' "$o" --plain-http --verify --keyring rsa.gpg
else
	echo "skipped: oci:// cases (docker-registry or python3 not installed)"
fi
[ "$fails" = 0 ]
