#!/usr/bin/env bash
# tests/conformance/valgrind_render.sh — the render path the worker runs
# (helm/render.h through `bulkhead template`) under valgrind memcheck on
# corpus cases: no invalid access, no uninitialised use, no leak.
# Skips (77) without valgrind or ../shared.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}" "${BH_BUILDDIR:=$PWD}"
shared="$BH_SRCDIR/../shared/conformance"
[ -d "$shared/cases" ] || { echo "SKIP: $shared is absent (conformance corpus)"; exit 77; }
command -v valgrind >/dev/null || { echo "SKIP: valgrind is not installed"; exit 77; }
# cli/bulkhead with a shared libc: memcheck cannot replace a static libc's malloc (cli/local.mk)
bh="$BH_BUILDDIR/cli/bulkhead-dynamic"
[ -x "$bh" ] || { echo "FAIL: $bh is not built"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
for id in podinfo-full redis-defaults ingress-nginx-daemonset-metrics kps-globals-subchart-values; do
	args=$(python3 - "$shared/cases/$id/case.json" <<'PY'
import json, shlex, sys
c = json.load(open(sys.argv[1]))
print(" ".join(shlex.quote(a) for a in c["helmArgs"][1:]))
PY
) || { echo "FAIL: $id: cannot read case.json"; fails=$((fails + 1)); continue; }
	# helmArgs paths are relative to the corpus root
	if (cd "$shared" && BULKHEAD_FREE_AT_EXIT=1 eval valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--show-leak-kinds=definite,indirect "\"$bh\"" template $args) >"$tmp/out" 2>"$tmp/err"; then
		if cmp -s "$tmp/out" "$shared/cases/$id/expected.yaml" || [ -n "$(python3 -c "import json;print(json.load(open('$shared/cases/$id/case.json')).get('nondeterministic') or '')")" ]; then
			echo "PASS: $id (valgrind clean)"
		else
			echo "FAIL: $id: output differs from helm's under valgrind"; fails=$((fails + 1))
		fi
	else
		echo "FAIL: $id: valgrind reported errors (exit $?):"; tail -40 "$tmp/err"; fails=$((fails + 1))
	fi
done
[ $fails -eq 0 ]
