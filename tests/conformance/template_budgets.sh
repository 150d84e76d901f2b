#!/usr/bin/env bash
# tests/conformance/template_budgets.sh — `bulkhead template` budgets on
# hostile input: the CPU limit (--cpu-limit, default 120 s) ends an RSA
# keygen loop with a clear error; a values file whose anchor holds itself
# fails at once with helm v4.1.4's exact text; rendered output stops at the
# 16 MiB cap; duplicate keys are warned about. Expected texts of helm
# captured from helm v4.1.4.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}" "${BH_BUILDDIR:=$PWD}"
bh="$BH_BUILDDIR/cli/bulkhead"
[ -x "$bh" ] || { echo "FAIL: $bh is not built"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
mkchart() { # DIR TEMPLATE
	mkdir -p "$tmp/$1/templates"
	printf 'apiVersion: v2\nname: %s\nversion: 0.1.0\n' "$1" >"$tmp/$1/Chart.yaml"
	printf '%s\n' "$2" >"$tmp/$1/templates/t.yaml"
}

# 1. CPU limit: genPrivateKey in a loop ends with the limit's error
mkchart rsa '{{ range until 100000 }}{{ genPrivateKey "rsa" }}{{ end }}'
"$bh" template x "$tmp/rsa" --cpu-limit 1 >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 1 ] || fail "cpu limit: exit status $rc, want 1"
[ "$(cat "$tmp/err")" = "Error: CPU time limit exceeded: rendering used 1 seconds of CPU (--cpu-limit 1; raise it, or 0 for no limit)" ] \
	|| fail "cpu limit: stderr: $(head -c 500 "$tmp/err")"
"$bh" template x "$tmp/rsa" --cpu-limit=1s >"$tmp/out" 2>"$tmp/err" && fail "--cpu-limit=1s accepted"
grep -q 'invalid argument "1s" for "--cpu-limit" flag' "$tmp/err" || fail "--cpu-limit=1s: $(cat "$tmp/err")"
"$bh" template --help | grep -- '--cpu-limit SECONDS' >/dev/null || fail "--help does not document --cpu-limit"
# a normal chart is unaffected by a small limit
mkchart ok 'a: {{ 1 }}'
[ "$("$bh" template x "$tmp/ok" --cpu-limit 1 2>&1)" = "$(printf -- '---\n# Source: ok/templates/t.yaml\na: 1')" ] \
	|| fail "ok chart under --cpu-limit 1"

# 2. an anchor inside its own key (found by fuzz_kubeconfig): helm's error, at once
printf '&u\n*u:\n*u: c0\n8888888888888888888888888888888888888888888888888888888888888888888888er: u1}\n' >"$tmp/anchor.yaml"
"$bh" template x "$tmp/ok" -f "$tmp/anchor.yaml" --cpu-limit 5 >"$tmp/out" 2>"$tmp/err"
[ "$(cat "$tmp/err")" = "Error: failed to parse $tmp/anchor.yaml: cannot unmarshal yaml document: error converting YAML to JSON: yaml: anchor 'u' value contains itself" ] \
	|| fail "anchor in its own key: $(head -c 500 "$tmp/err")"

# 3. a million objects stop at the 16 MiB output cap
mkchart million '{{ range until 1000000 }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: c{{ . }}
{{ end }}'
"$bh" template x "$tmp/million" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 1 ] || fail "million: exit status $rc"
grep -qx "Error: rendered manifests exceed the output limit of 16 MiB (16777216 bytes) in template million/templates/t.yaml" "$tmp/err" \
	|| fail "million: $(head -c 500 "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "million: printed $(wc -c <"$tmp/out") bytes"

# 4. duplicate keys: helm template reads them silently (the later value
#    wins, stdout unchanged); bulkhead warns on stderr naming file and key in
#    goyaml's strict words (helm lint's text for that Chart.yaml: "line 4:
#    key \"version\" already set in map")
mkchart dup 'r: "{{ .Values.r }} {{ .Chart.Version }}"'
printf 'version: 0.2.0\n' >>"$tmp/dup/Chart.yaml"
printf 'r: 1\nr: 2\n' >"$tmp/dup/values.yaml"
printf 'x: 1\nx: 2\n' >"$tmp/dupv.yaml"
"$bh" template x "$tmp/dup" -f "$tmp/dupv.yaml" >"$tmp/out" 2>"$tmp/err" || fail "dup: $(cat "$tmp/err")"
[ "$(cat "$tmp/out")" = "$(printf -- '---\n# Source: dup/templates/t.yaml\nr: "2 0.2.0"')" ] || fail "dup: stdout $(cat "$tmp/out")"
[ "$(cat "$tmp/err")" = "level=WARN msg=\"duplicate key in YAML: the later value wins\" file=$tmp/dupv.yaml error=\"line 2: key \\\"x\\\" already set in map\"
level=WARN msg=\"duplicate key in YAML: the later value wins\" file=dup/Chart.yaml error=\"line 4: key \\\"version\\\" already set in map\"
level=WARN msg=\"duplicate key in YAML: the later value wins\" file=dup/values.yaml error=\"line 2: key \\\"r\\\" already set in map\"" ] \
	|| fail "dup: stderr $(cat "$tmp/err")"

[ $fails = 0 ] && echo "PASS: template budgets (cpu limit, anchor cycle, output cap, duplicate keys)"
[ $fails = 0 ]
