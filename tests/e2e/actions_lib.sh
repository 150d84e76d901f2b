# tests/e2e/actions_lib.sh — helpers for the release-action tests (source
# after lib.sh): drive `bulkhead release` and the real helm alternately
# against kubesim and check storage Secrets and objects.
#
#   bh release install NAME CHART -n NS ...     # bulkhead, fails the test on error
#   bh_fail release upgrade ...                 # must fail; prints its stderr
#   expect_versions NS NAME "1:superseded 2:deployed"
#   expect_history NS NAME REV STATUS DESCRIPTION-REGEX   (read by helm history)

: "${BH_BUILDDIR:=$(pwd)}"
BULKHEAD="$BH_BUILDDIR/cli/bulkhead"
[ -x "$BULKHEAD" ] || e2e_skip "bulkhead not built at $BULKHEAD"

bh() {
	local out
	out=$("$BULKHEAD" "$@" 2>&1) || e2e_fail "bulkhead $*: $out"
	BH_OUT=$out
}

bh_fail() {
	local out
	out=$("$BULKHEAD" "$@" 2>&1) && e2e_fail "bulkhead $* succeeded but should fail: $out"
	BH_OUT=$out
}

hm() {
	local out
	out=$(helm "$@" 2>&1) || e2e_fail "helm $*: $out"
	HELM_OUT=$out
}

# The storage Secrets of a release as "V:STATUS ..." (label status, by version).
release_versions() {
	kubectl get secrets -n "$1" -l "owner=helm,name=$2" \
		-o jsonpath='{range .items[*]}{.metadata.labels.version}:{.metadata.labels.status}{"\n"}{end}' |
		sort -n | tr '\n' ' ' | sed 's/ $//'
}

expect_versions() {
	local got
	got=$(release_versions "$1" "$2")
	[ "$got" = "$3" ] || e2e_fail "release $1/$2 storage: want '$3', got '$got'"
	# the type of every storage Secret is Helm's
	local types
	types=$(kubectl get secrets -n "$1" -l "owner=helm,name=$2" -o jsonpath='{range .items[*]}{.type}{"\n"}{end}' | sort -u)
	[ -z "$3" ] || [ "$types" = helm.sh/release.v1 ] || e2e_fail "release $1/$2 Secret types: $types"
}

expect_history() {
	local ns=$1 name=$2 rev=$3 status=$4 desc=$5 out
	out=$(helm history "$name" -n "$ns" 2>&1) || e2e_fail "helm history $name: $out"
	echo "$out" | grep -Eq "^$rev[[:space:]].*[[:space:]]$status[[:space:]].*$desc" ||
		e2e_fail "helm history $name: revision $rev not '$status' '$desc':
$out"
}

# jsonpath of one object
kget() {
	kubectl get "$@" 2>/dev/null
}
