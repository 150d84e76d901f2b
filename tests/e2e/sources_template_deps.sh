#!/usr/bin/env bash
# tests/e2e/sources_template_deps.sh — `bulkhead template --dependency-update`
# fetches missing dependencies as `helm template --dependency-update` does
# (downloader.Manager.Update). Each case runs the real helm, then bulkhead,
# on fresh copies of the same chart directory at the same path, with
# separate repository caches, against the same loopback chart repository
# (and Debian's docker-registry for oci://), and compares stdout, stderr,
# the exit status, the archives written into charts/ (byte-equal when
# downloaded, the same file list for a packaged file:// directory), the
# Chart.lock (but its `generated` time) and the cache's index files.
# Cases: a URL with a range, https with basic auth and a CA file from
# repositories.yaml (and a wrong password), an exact version with Chart.lock in sync, a
# Chart.lock out of sync, `@name` and a URL from --repository-config, a
# file:// directory (and --debug), four dependencies with an alias,
# condition, tags and enabled, oci:// (exact and a range), an outdated
# archive deleted, dependencies already present, an unknown repository
# (`@other`, `stable`), no such version, no such chart, an unreachable
# repository, a bad file:// path, a packaged chart, charts/ on another
# filesystem (the archive copied; read-only: the copy's error).
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${BH_BUILDDIR:=$BH_SRCDIR/build}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/sources/tls.sh"
BH=$BH_BUILDDIR/cli/bulkhead
[ -x "$BH" ] || e2e_skip "bulkhead not built"
e2e_need_tool helm python3 curl openssl
T=$(mktemp -d)
PIDS=
trap 'kill $PIDS 2>/dev/null; rm -rf "$T"' EXIT
export HELM_CONFIG_HOME=$T/helmcfg HELM_DATA_HOME=$T/helmdata HELM_REGISTRY_CONFIG=$T/registry.json
SK=$BH_SRCDIR/tests/e2e/skeleton
repo=$T/repo
mkdir -p "$repo" "$T/pkg"
for v in 0.1.0 0.2.0; do
	cp -r "$SK/demo" "$T/pkg/demo-$v"
	sed -i "s/^version:.*/version: $v/" "$T/pkg/demo-$v/Chart.yaml"
	helm package "$T/pkg/demo-$v" -d "$repo" >/dev/null || e2e_fail "helm package demo $v"
done
helm package "$SK/webapp" -d "$repo" >/dev/null || e2e_fail "helm package webapp"
helm repo index "$repo" >/dev/null || e2e_fail "helm repo index"
src_serve_repo "$repo" "$T/tls"
dead=$(e2e_free_port)
O=
if command -v docker-registry >/dev/null 2>&1; then
	. "$BH_SRCDIR/tests/e2e/sources/registry.sh"
	reg_start "$T/reg" || e2e_fail "docker-registry did not start"
	PIDS="$PIDS $REG_PID"
	O=127.0.0.1:$REG_PORT
	for f in "$repo"/demo-*.tgz; do
		helm push "$f" "oci://$O/charts" --plain-http >/dev/null 2>&1 || e2e_fail "helm push $f"
	done
else
	echo "SKIP (part): docker-registry missing, no oci:// cases"
fi
cat >"$T/repos.yaml" <<EOF
apiVersion: ""
generated: "0001-01-01T00:00:00Z"
repositories:
- name: myrepo
  url: $R
EOF
# one repository a file: helm updates several in parallel, in no fixed order
cat >"$T/repos-secure.yaml" <<EOF
repositories:
- name: secure
  url: $S
  username: alice
  password: s3cret
  caFile: $T/tls/ca.crt
EOF
sed 's/s3cret/wrong/' "$T/repos-secure.yaml" >"$T/repos-wrong.yaml"

# chart DIR with one dependency: NAME VERSION REPOSITORY
mkchart() {
	rm -rf "$1"
	mkdir -p "$1/templates"
	printf 'apiVersion: v2\nname: parent\nversion: 1.0.0\ndependencies:\n- name: %s\n  version: "%s"\n  repository: "%s"\n' \
		"$2" "$3" "$4" >"$1/Chart.yaml"
	printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: parent\n' >"$1/templates/cm.yaml"
}

W=$T/work/c
n=0
# same SRC [ARGS]: helm then bulkhead on copies of SRC at $W
same() {
	local src=$1 h b f
	shift
	n=$((n + 1))
	for tool in helm "$BH"; do
		b=$(basename "$tool")
		rm -rf "$T/work" "$T/cache" "$T/cache-$b" "$T/res-$b"
		mkdir -p "$T/work"
		cp -r "$src" "$W"
		(cd "$T/work" && HELM_CACHE_HOME=$T/cache "$tool" template x ./c --dependency-update "$@") \
			>"$T/$b.out" 2>"$T/$b.err"
		echo $? >"$T/$b.rc"
		mv "$T/work" "$T/res-$b"
		[ ! -d "$T/cache" ] || mv "$T/cache" "$T/cache-$b"
	done
	h=$T/res-helm/c b=$T/res-bulkhead/c
	cmp -s "$T/helm.out" "$T/bulkhead.out" || { diff "$T/helm.out" "$T/bulkhead.out" | head -20; e2e_fail "case $n: stdout differs: $*"; }
	cmp -s "$T/helm.err" "$T/bulkhead.err" || { diff "$T/helm.err" "$T/bulkhead.err"; e2e_fail "case $n: stderr differs: $*"; }
	cmp -s "$T/helm.rc" "$T/bulkhead.rc" || e2e_fail "case $n: exit status $(cat "$T/helm.rc") (helm) vs $(cat "$T/bulkhead.rc"): $*"
	[ "$(cd "$T/res-helm" && find c | sort)" = "$(cd "$T/res-bulkhead" && find c | sort)" ] ||
		{ diff <(cd "$T/res-helm" && find c | sort) <(cd "$T/res-bulkhead" && find c | sort); e2e_fail "case $n: other files written: $*"; }
	for f in "$h"/charts/*.tgz; do
		[ -e "$f" ] || continue
		if grep -q 'file://' "$h/Chart.yaml"; then
			[ "$(tar tzf "$f" | sort)" = "$(tar tzf "$b/charts/${f##*/}" | sort)" ] || e2e_fail "case $n: ${f##*/} holds other files"
		else
			cmp -s "$f" "$b/charts/${f##*/}" || e2e_fail "case $n: ${f##*/} differs"
		fi
	done
	if [ -f "$h/Chart.lock" ]; then
		diff <(grep -v '^generated:' "$h/Chart.lock") <(grep -v '^generated:' "$b/Chart.lock") ||
			e2e_fail "case $n: Chart.lock differs"
		cmp -s "$src/Chart.lock" "$h/Chart.lock" && { cmp -s "$h/Chart.lock" "$b/Chart.lock" || e2e_fail "case $n: Chart.lock rewritten"; }
	fi
	for f in "$T"/cache-helm/repository/*-index.yaml; do
		[ -e "$f" ] || continue
		cmp -s "$f" "$T/cache-bulkhead/repository/${f##*/}" || e2e_fail "case $n: cached ${f##*/} differs"
	done
}

mkchart "$T/url" demo ">=0.1.0" "$R"
same "$T/url"
same "$T/url" --repository-config "$T/repos.yaml"
mkchart "$T/byname" demo "0.1.x" "@myrepo"
same "$T/byname" --repository-config "$T/repos.yaml"
mkchart "$T/alias" demo "~0.1.0" "alias:myrepo"
same "$T/alias" --repository-config "$T/repos.yaml"
# https with basic auth and a CA from repositories.yaml (and a wrong password)
mkchart "$T/secure" demo "^0.2.0" "@secure"
same "$T/secure" --repository-config "$T/repos-secure.yaml"
same "$T/secure" --repository-config "$T/repos-wrong.yaml"
mkchart "$T/byurl" demo "0.1.0" "$R/"
same "$T/byurl" --repository-config "$T/repos.yaml"
# Chart.lock in sync (kept as it is), and out of sync (rewritten)
mkchart "$T/locked" demo "0.1.0" "$R"
helm dependency update "$T/locked" >/dev/null 2>&1 || e2e_fail "helm dependency update"
rm -rf "$T/locked/charts"
same "$T/locked"
cp -r "$T/locked" "$T/stale-lock"
sed -i 's/"0.1.0"/">=0.2.0"/' "$T/stale-lock/Chart.yaml"
same "$T/stale-lock"
# an outdated archive in charts/ is deleted; dependencies present: nothing fetched
cp -r "$T/url" "$T/outdated"
mkdir -p "$T/outdated/charts"
cp "$repo/webapp-1.2.3.tgz" "$T/outdated/charts/"
same "$T/outdated"
cp -r "$T/byurl" "$T/outdated2"
mkdir -p "$T/outdated2/charts" && cp "$repo/demo-0.2.0.tgz" "$T/outdated2/charts/"
same "$T/outdated2"
mkchart "$T/present" demo "0.1.0" "$R"
mkdir -p "$T/present/charts" && cp "$repo/demo-0.1.0.tgz" "$T/present/charts/"
same "$T/present"
# file://
cp -r "$SK/webapp" "$T/localdep"
mkchart "$T/file" webapp "1.x" "file://../../localdep"
same "$T/file"
same "$T/file" --debug
mkchart "$T/file-missing" webapp "1.x" "file://../nothere"
same "$T/file-missing"
mkchart "$T/file-version" webapp "9.x" "file://$T/localdep"
same "$T/file-version"
# charts/ on another filesystem (a tmpfs, in a user and mount namespace):
# the archive is copied as fs.RenameWithFallback does after EXDEV; read-only,
# helm's copy error (tmpcharts-PID is the process's own: normalised)
xdev() {
	local tool b
	n=$((n + 1))
	for tool in helm "$BH"; do
		b=$(basename "$tool")
		rm -rf "$T/work" "$T/cache"
		mkdir -p "$T/work"
		cp -r "$1" "$W"
		mkdir -p "$W/charts"
		(cd "$T/work" && HELM_CACHE_HOME=$T/cache unshare -rm sh -c \
			'mount -t tmpfs -o "$1" none c/charts && "$2" template x ./c --dependency-update; echo "rc=$?"; ls c/charts' \
			sh "$2" "$tool") 2>&1 | sed 's/tmpcharts-[0-9]*/tmpcharts-PID/g' >"$T/$b.xdev"
	done
	cmp -s "$T/helm.xdev" "$T/bulkhead.xdev" ||
		{ diff "$T/helm.xdev" "$T/bulkhead.xdev"; e2e_fail "case $n: charts/ on another filesystem ($2) differs"; }
}
if unshare -rm mount -t tmpfs none "$T/pkg" 2>/dev/null; then
	xdev "$T/file" rw
	grep -q '^webapp-.*\.tgz$' "$T/bulkhead.xdev" || e2e_fail "case $n: no archive copied into charts/"
	xdev "$T/file" ro
	grep -q 'copying file failed' "$T/bulkhead.xdev" || e2e_fail "case $n: no copy error"
else
	echo "SKIP (part): no user and mount namespaces, no cross-device cases"
fi
# four at once: an alias, condition, tags, enabled (in Chart.lock's digest),
# the same archive twice, file://, and one already in charts/ (--debug)
mkdir -p "$T/multi/templates" "$T/multi/charts"
cp -r "$SK/demo" "$T/multi/charts/localdemo"
sed -i 's/^name:.*/name: localdemo/' "$T/multi/charts/localdemo/Chart.yaml"
cat >"$T/multi/Chart.yaml" <<EOF
apiVersion: v2
name: multi
version: 1.0.0
dependencies:
- name: demo
  version: ">=0.1.0 <0.2.0"
  repository: $R/
  alias: first
  condition: first.enabled
  tags: [a, b]
- name: demo
  version: "0.1.0"
  repository: $R
  alias: second
  enabled: true
- name: webapp
  version: "1.2.3"
  repository: "file://../../localdep"
- name: localdemo
  version: "*"
  repository: ""
EOF
same "$T/multi" --debug
# errors
mkchart "$T/other" demo "0.1.0" "@other"
same "$T/other" --repository-config "$T/repos.yaml"
mkchart "$T/stable" demo "0.1.0" "stable"
same "$T/stable" --repository-config "$T/repos.yaml"
mkchart "$T/noversion" demo "9.9.9" "$R"
same "$T/noversion"
mkchart "$T/nochart" nope "0.1.0" "$R"
same "$T/nochart"
mkchart "$T/badconstraint" demo "not a version" "$R"
same "$T/badconstraint"
mkchart "$T/dead" demo "0.1.0" "http://127.0.0.1:$dead"
same "$T/dead"
mkchart "$T/pkgd" demo "0.1.0" "$R"
(cd "$T" && tar czf pkgd.tgz pkgd) || e2e_fail "tar"
same "$T/pkgd.tgz"
if [ -n "$O" ]; then
	mkchart "$T/oci" demo "0.1.0" "oci://$O/charts"
	same "$T/oci" --plain-http
	mkchart "$T/oci-range" demo "~0.1" "oci://$O/charts"
	same "$T/oci-range" --plain-http
	mkchart "$T/oci-none" demo "^3.0.0" "oci://$O/charts"
	same "$T/oci-none" --plain-http
fi
echo "PASS: $n --dependency-update cases identical to helm template"
